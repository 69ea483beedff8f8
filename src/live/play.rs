//! The referee playing a program (`referee --run PROGRAM --play GOAL`): each key chosen from
//! the board the program just printed, as the rules read it, so that the parts of a program a
//! random script never reaches are refereed too: the win and the key after it (`win`, played by
//! power11's strongest player), the loss (`lose`, as fast as the rules allow), and undo chains,
//! saves at any moment, quitting and resuming in a fresh run, and undo back to the start across
//! it (`explore`). A fault does not end the play: the referee follows the program's own game
//! from there (one that starts with one tile is still played to its win), and the play ends
//! as a person would, `q` to the menu and `q` to leave, when its goal is reached, its keys are
//! used up, or its faults pass [`MAX_FAULTS`] (a program whose game went off for good is
//! reported, not followed for thousands of keys). The runs are kept for replay.

use super::{Live, LiveError, Ran, Setup};
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::random::{below, seeded};
use crate::model::rules::Rules;
use crate::players::{AnyPlayer, choose_on_board};
use crate::referee::{Assignment, SaveBefore, Stage};
use std::time::Instant;

/// The most faults a play goes on past: beyond them it ends (politely, as when its keys run
/// out), so that a program lost for good yields a short report and a short transcript.
pub const MAX_FAULTS: u32 = 40;

/// What the play sets out to reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The win, and the key after it.
    Win,
    /// A loss, as fast as the rules allow.
    Lose,
    /// Every other path: undo chains, saves (at the end of a game too), quit and resume in a
    /// fresh run, undo back to the start across it, to the end of a game.
    Explore,
}

impl Goal {
    /// Its name on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Goal::Win => "win",
            Goal::Lose => "lose",
            Goal::Explore => "explore",
        }
    }
}

/// How a game of the play ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reached {
    /// The program announced the win.
    Win,
    /// The program announced the loss.
    Loss,
}

impl Reached {
    /// Its name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Reached::Win => "win",
            Reached::Loss => "loss",
        }
    }
}

/// A play, done.
#[derive(Debug)]
pub struct Played {
    /// What it set out to reach.
    pub goal: Goal,
    /// How its last game ended, if one did.
    pub reached: Option<Reached>,
    /// Keys fed, over all its runs.
    pub keys: usize,
    /// Seconds it took.
    pub seconds: f64,
    /// Its runs, in order (explore quits and resumes in a second one).
    pub runs: Vec<Ran>,
}

/// How to play.
pub struct Plan<'a> {
    /// What to reach.
    pub goal: Goal,
    /// The size of board to play: 4 (Hard) or 5 (Easy); the MIPS program's is 3.
    pub size: usize,
    /// The player that plays to win.
    pub player: &'a mut AnyPlayer,
    /// The seed of the random choices (explore's, and the player's).
    pub seed: u64,
    /// The most keys fed in all: a program that never ends a game is not played for ever.
    pub max_keys: usize,
    /// The most games played to reach the goal (a `win` lost is played again).
    pub max_games: usize,
}

/// Plays `setup`'s program as `plan` says, refereeing every board as it comes.
pub fn play(setup: &Setup, plan: Plan<'_>) -> Result<Played, LiveError> {
    let started = Instant::now();
    let rules = match setup.options.assignment {
        Assignment::Mips => Rules::mini(),
        Assignment::Power11 => match plan.size {
            4 | 5 => Rules::power11(plan.size).map_err(|_| LiveError::Size(plan.size))?,
            size => return Err(LiveError::Size(size)),
        },
    };
    let mut player = Player::new(setup.options.assignment, rules, plan);
    let mut runs = Vec::new();
    let mut live = Live::start(setup, SaveBefore::Nothing, None)?;
    let mut unanswered = false;
    loop {
        player.observe(&live);
        let faults = live.referee().faults();
        let keys = runs.iter().map(count_keys).sum::<usize>() + live.keys_fed();
        if keys >= player.plan.max_keys || faults >= MAX_FAULTS {
            // Enough: the play leaves as a person would.
            player.finishing = true;
        }
        let next = if (live.ended() && unanswered) || keys >= player.plan.max_keys + 8 {
            None
        } else if live.ended() {
            // It ended before the play did: the key it would have had is refereed unanswered
            // (a board missing where one was due), once.
            unanswered = true;
            player.next(&live)
        } else {
            player.next(&live)
        };
        let Some(next) = next else {
            let ran = live.finish();
            // Quit to resume: a fresh run from the save it left.
            let resume = player.resuming
                && !player.finishing
                && ran.outcome.ending != crate::runner::Ending::Stopped;
            let save = ran.save.clone();
            runs.push(ran);
            match (resume, save) {
                (true, Some(save)) => {
                    player.resuming = false;
                    player.resumed = true;
                    let text = String::from_utf8_lossy(&save).into_owned();
                    let before = match crate::text::parse_save(&text) {
                        Ok(timeline) => SaveBefore::Save(timeline),
                        Err(_) => SaveBefore::Unknown,
                    };
                    live = Live::start(setup, before, Some(&save))?;
                    unanswered = false;
                    continue;
                }
                _ => break,
            }
        };
        live.send_line(&next);
    }
    let keys = runs.iter().map(count_keys).sum();
    Ok(Played {
        goal: player.plan.goal,
        reached: player.reached,
        keys,
        seconds: started.elapsed().as_secs_f64(),
        runs,
    })
}

/// The keys a run was fed.
fn count_keys(ran: &Ran) -> usize {
    ran.report.keys
}

/// The chooser of keys, and what it has done so far.
struct Player<'a> {
    assignment: Assignment,
    /// The rules of the games played.
    rules: Rules,
    plan: Plan<'a>,
    rng: rand_chacha::ChaCha8Rng,
    games: usize,
    reached: Option<Reached>,
    /// Explore: the run is being quit, to resume in the next.
    resuming: bool,
    /// Explore: the game was resumed in a fresh run.
    resumed: bool,
    /// Explore: undos still to send in a chain.
    undos: usize,
    /// Explore: moves made in this game.
    moves: usize,
    /// Explore: after how many moves the first game is saved and quit, to resume (sooner
    /// when the board fills, so that a resume comes before the game ends).
    quit_at: usize,
    /// Keys queued to send, in order.
    queue: std::collections::VecDeque<String>,
    /// The play is ending: only the keys that leave are sent (`q` to the menu, `q` to go).
    finishing: bool,
}

impl<'a> Player<'a> {
    fn new(assignment: Assignment, rules: Rules, plan: Plan<'a>) -> Player<'a> {
        Player {
            assignment,
            rules,
            rng: seeded(plan.seed),
            plan,
            games: 0,
            reached: None,
            resuming: false,
            resumed: false,
            undos: 0,
            moves: 0,
            quit_at: 30,
            queue: std::collections::VecDeque::new(),
            finishing: false,
        }
    }

    /// Notes how a game ended, when `live`'s referee sees it over (the MIPS program ends
    /// with its game: this is seen before the run is finished).
    fn observe(&mut self, live: &Live) {
        let referee = live.referee();
        let over = match referee.stage() {
            Stage::Over => true,
            // The MIPS program's game ends the program.
            Stage::Closed => self.assignment == Assignment::Mips,
            Stage::Menu | Stage::Game => false,
        };
        let Some(state) = referee.state().filter(|_| over) else {
            return;
        };
        if self.rules.goal_reached(&state.board) {
            self.reached = Some(Reached::Win);
        } else if Direction::ALL
            .into_iter()
            .all(|d| state.board.slide(d).is_none())
        {
            self.reached = Some(Reached::Loss);
        }
    }

    /// The next line to feed `live`'s program; `None` once it has quit.
    fn next(&mut self, live: &Live) -> Option<String> {
        let referee = live.referee();
        if self.finishing {
            self.queue.clear();
            return match referee.stage() {
                Stage::Closed => None,
                Stage::Menu | Stage::Game => Some(self.quit_key().to_string()),
                Stage::Over => Some(self.at_end()),
            };
        }
        if let Some(line) = self.queue.pop_front() {
            return Some(line);
        }
        Some(match referee.stage() {
            Stage::Menu => self.at_menu(),
            Stage::Game => match referee.state() {
                Some(state) => self.in_game(&state.board, referee.undoable()),
                // A game the rules cannot read: leave it.
                None => self.quit_key().to_string(),
            },
            Stage::Over => self.at_end(),
            // It quit, and did not end (what it is then is the runner's to say).
            Stage::Closed => return None,
        })
    }

    /// The key that quits (a game, then the program).
    fn quit_key(&self) -> char {
        match self.assignment {
            Assignment::Mips => 'X',
            Assignment::Power11 => 'q',
        }
    }

    /// At the menu: a game, or quit when the goal is reached or the games are played.
    fn at_menu(&mut self) -> String {
        let done = match self.plan.goal {
            Goal::Win => self.reached == Some(Reached::Win),
            Goal::Lose | Goal::Explore => self.reached.is_some(),
        };
        if done || self.games >= self.plan.max_games {
            return self.quit_key().to_string();
        }
        if self.resumed && self.games == 1 && self.moves > 0 && self.reached.is_none() {
            // Explore, in the fresh run: resume the game quit, then undo back to its start.
            self.moves = 0;
            self.undos = usize::MAX;
            return "r".to_string();
        }
        self.games += 1;
        self.moves = 0;
        self.quit_at = 20 + below(&mut self.rng, 30);
        match self.assignment {
            Assignment::Mips if self.plan.goal == Goal::Win => {
                // A start state one move from 512: the win is reached on any board size the
                // player could not win from a new game in a run.
                for value in ["256", "256", "0", "0", "0", "0", "0", "0", "0"] {
                    self.queue.push_back(value.to_string());
                }
                "2".to_string()
            }
            Assignment::Mips => "1".to_string(),
            Assignment::Power11 => match self.plan.size {
                5 => "e".to_string(),
                _ => "h".to_string(),
            },
        }
    }

    /// After a game's end message: the key that goes back to the menu (explore: `s`, a save
    /// at the end of a game, which the rules say returns to the menu).
    fn at_end(&mut self) -> String {
        match (self.assignment, self.plan.goal) {
            // The MIPS program ends with its game: nothing is read.
            (Assignment::Mips, _) => self.quit_key().to_string(),
            (Assignment::Power11, Goal::Explore) => "s".to_string(),
            (Assignment::Power11, _) => "m".to_string(),
        }
    }

    /// In a game on `board`, with `undoable` moves to undo.
    fn in_game(&mut self, board: &Board, undoable: usize) -> String {
        let direction = match self.plan.goal {
            Goal::Win => choose_on_board(self.plan.player, board, &self.rules, &mut self.rng),
            Goal::Lose => losing_move(board),
            Goal::Explore => return self.explore(board, undoable),
        };
        self.moves += 1;
        self.move_key(direction)
    }

    /// The key of `direction`.
    fn move_key(&self, direction: Direction) -> String {
        match self.assignment {
            Assignment::Mips => match direction {
                Direction::Up => "W",
                Direction::Left => "A",
                Direction::Down => "S",
                Direction::Right => "D",
            }
            .to_string(),
            Assignment::Power11 => direction.key().to_string(),
        }
    }

    /// Explore's key in a game: undo chains (back to the start, and one past it, after a
    /// resume), saves, new tiles off and on (MIPS), quitting to resume, and random moves.
    fn explore(&mut self, board: &Board, undoable: usize) -> String {
        if self.undos > 0 {
            if undoable == 0 {
                // At the start: one `b` past it, then play on.
                self.undos = 0;
            } else {
                self.undos -= 1;
            }
            if self.assignment == Assignment::Power11 {
                return "b".to_string();
            }
        }
        let roll = below(&mut self.rng, 100);
        match self.assignment {
            Assignment::Power11 if roll < 6 => {
                self.undos = 1 + below(&mut self.rng, 6);
                return "b".to_string();
            }
            Assignment::Power11 if roll < 10 => return "s".to_string(),
            Assignment::Power11
                if !self.resumed
                    && (self.moves >= self.quit_at
                        || (self.moves >= 5 && board.empty_count() <= 2)) =>
            {
                // Save, quit the game and the program: the next run resumes it.
                self.resuming = true;
                self.queue.push_back("q".to_string());
                self.queue.push_back("q".to_string());
                return "s".to_string();
            }
            Assignment::Mips if roll < 4 => return "3".to_string(),
            Assignment::Mips if roll < 8 => return "4".to_string(),
            _ => {}
        }
        self.moves += 1;
        let moves: Vec<Direction> = Direction::ALL
            .into_iter()
            .filter(|&d| board.slide(d).is_some())
            .collect();
        let direction = match moves.len() {
            0 => Direction::ALL[below(&mut self.rng, 4)],
            n => moves[below(&mut self.rng, n)],
        };
        self.move_key(direction)
    }
}

/// The move that loses fastest: of the moves that change the board, the one that leaves the
/// fewest empty cells (the fewest merges), the first such in `Direction::ALL`'s order.
fn losing_move(board: &Board) -> Direction {
    Direction::ALL
        .into_iter()
        .filter_map(|d| board.slide(d).map(|(after, _)| (after.empty_count(), d)))
        .min_by_key(|&(empty, _)| empty)
        .map_or(Direction::Left, |(_, d)| d)
}
