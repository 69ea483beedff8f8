//! An interactive game: rules, the current board and score, and the undo history.

use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::grid::Grid;
use crate::model::rules::{Rules, Score, Spawn, Turn};
use rand::Rng;
use thiserror::Error;

/// A board and the score that goes with it: one entry of the history and of a save file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Snapshot {
    /// The board.
    pub board: Board,
    /// The score when the board looked like this.
    pub score: Score,
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Moves can be made.
    Playing,
    /// The goal tile is on the board (and the player has not chosen to keep playing).
    Won,
    /// No move changes the board and the goal was never reached.
    Lost,
    /// No move changes the board, in a game with no goal or whose goal was already passed.
    Over,
}

/// A non-empty series of game states of one board size, oldest first: what a save file holds
/// and what a game is restored from. Its constructors keep both promises, so nothing that
/// receives one checks for an empty list or mixed sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeline {
    states: Vec<Snapshot>,
}

/// A state whose board has another size than the timeline's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("this board is {found}x{found}, the first one is {expected}x{expected}")]
pub struct MixedSizes {
    /// The timeline's size.
    pub expected: usize,
    /// The refused state's.
    pub found: usize,
}

impl Timeline {
    /// A timeline of one state.
    pub fn new(state: Snapshot) -> Timeline {
        Timeline {
            states: vec![state],
        }
    }

    /// Adds `state` after the others, if its board has their size.
    pub fn push(&mut self, state: Snapshot) -> Result<(), MixedSizes> {
        let expected = self.size();
        if state.board.size() != expected {
            return Err(MixedSizes {
                expected,
                found: state.board.size(),
            });
        }
        self.states.push(state);
        Ok(())
    }

    /// The states, oldest first (never empty).
    pub fn states(&self) -> &[Snapshot] {
        &self.states
    }

    /// The newest state: where a restored game stands.
    pub fn current(&self) -> &Snapshot {
        self.states.last().expect("a timeline is never empty")
    }

    /// The side of every board in it.
    pub fn size(&self) -> usize {
        self.states[0].board.size()
    }

    /// The same states in the opposite order (for files written newest first).
    #[must_use]
    pub fn reversed(mut self) -> Timeline {
        self.states.reverse();
        self
    }
}

/// A game in progress with its undo history: every state since the start, or the newest
/// [`Game::limit_history`] of them.
///
/// Invariant: `states` is never empty, its last state is the current one, and every board in
/// it has `rules.size()` as its size.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    /// The states kept, oldest first: those undo goes back to, then the current one.
    states: Timeline,
    /// The player chose to keep playing past the goal.
    continued: bool,
    /// New tiles appear after a move (the rules' spawn); false while they are switched off.
    new_tiles: bool,
    /// The most states kept (the current one included).
    limit: usize,
    /// How many of the oldest states were let go to stay within `limit`.
    forgotten: usize,
}

impl Game {
    /// A new game: the rules' starting board, score 0.
    pub fn new<R: Rng + ?Sized>(rules: Rules, rng: &mut R) -> Game {
        let board = rules.new_board(rng);
        Game::from_board(rules, board)
    }

    /// A game starting from `board` with score 0; the rules take the board's size.
    pub fn from_board(rules: Rules, board: Board) -> Game {
        Game::from_timeline(rules, Timeline::new(Snapshot { board, score: 0 }))
    }

    /// Starts a game at the newest state of `timeline` (a board file), with the older states
    /// as its undo history. The rules take the boards' size. A board that already holds the
    /// goal is won: a keep-playing game offers to go on.
    pub fn from_timeline(rules: Rules, timeline: Timeline) -> Game {
        Game {
            rules: rules.on(timeline.current().board.side()),
            states: timeline,
            continued: false,
            new_tiles: true,
            limit: usize::MAX,
            forgotten: 0,
        }
    }

    /// Resumes a saved game: as [`Game::from_timeline`], except that a keep-playing game whose
    /// board already holds the goal goes on without the offer. A save holds boards and scores,
    /// not the answer to "keep playing?", but the answer was yes: a game is saved only while
    /// moves can be made, and past the goal that takes keeping on.
    pub fn resume(rules: Rules, timeline: Timeline) -> Game {
        let mut game = Game::from_timeline(rules, timeline);
        game.continued = game.rules.keep_playing() && game.rules.goal_reached(game.board());
        game
    }

    /// Keeps at most `states` states from now on (the current one and `states - 1` that undo
    /// goes back to; at least the current one): the oldest are let go, so that a game of any
    /// length holds a bounded memory. The program keeps what a save can hold, so undo never
    /// reaches a state a save would leave out. States are let go a batch at a time (a 64th of
    /// the limit), so that a move costs the same however long the game.
    pub fn limit_history(&mut self, states: usize) {
        self.limit = states.max(1);
        self.trim();
    }

    /// How many of the oldest states were let go to keep within [`Game::limit_history`]
    /// (0 for a game that kept every state).
    pub fn forgotten(&self) -> usize {
        self.forgotten
    }

    fn trim(&mut self) {
        let kept = &mut self.states.states;
        if kept.len() <= self.limit {
            return;
        }
        let batch = (kept.len() - self.limit)
            .max(self.limit / 64)
            .min(kept.len() - 1);
        kept.drain(..batch);
        self.forgotten += batch;
    }

    /// Every state kept, oldest first, the current one last: what a save holds.
    pub fn timeline(&self) -> &Timeline {
        &self.states
    }

    /// The rules this game is played by.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
    /// The current board.
    pub fn board(&self) -> &Board {
        &self.states.current().board
    }
    /// The current score.
    pub fn score(&self) -> Score {
        self.states.current().score
    }
    /// How many moves can be undone.
    pub fn undo_depth(&self) -> usize {
        self.states.states.len() - 1
    }

    /// Whether new tiles appear after a move (true unless switched off with
    /// [`Game::switch_new_tiles`]).
    pub fn new_tiles(&self) -> bool {
        self.new_tiles
    }

    /// Switches new tiles off (`false`) or back on (`true`) for the moves that follow: while
    /// they are off, a move that changes the board places no tile. The switch is not part of a
    /// state: undo leaves it as it is, and a saved game resumes with new tiles on.
    pub fn switch_new_tiles(&mut self, on: bool) {
        self.new_tiles = on;
    }

    /// The rules the next move is played by: the game's own, or the same with no new tile
    /// ([`Spawn::None`]) while new tiles are switched off. This is the one place the switch
    /// acts; moves, the computer's choice and advice all read it.
    pub fn move_rules(&self) -> Rules {
        if self.new_tiles {
            self.rules
        } else {
            self.rules.with_spawn(Spawn::None)
        }
    }

    /// Plays a move. A move that changes nothing leaves the board as it is (and, under move
    /// scoring, costs a point, which undo can give back).
    pub fn play<R: Rng + ?Sized>(&mut self, direction: Direction, rng: &mut R) -> Turn {
        let before = *self.states.current();
        let mut after = before;
        let turn = self
            .move_rules()
            .apply_move(&mut after.board, direction, rng);
        after.score = after.score.saturating_add(turn.score_delta);
        if after != before {
            self.states.states.push(after);
            self.trim();
        }
        turn
    }

    /// Goes back one state; false if there is nothing to undo.
    pub fn undo(&mut self) -> bool {
        if self.states.states.len() > 1 {
            self.states.states.pop();
            true
        } else {
            false
        }
    }

    /// Accepts the offer to keep playing past the goal (only meaningful when [`Status::Won`]).
    pub fn keep_playing(&mut self) {
        self.continued = true;
    }

    /// Where the game stands now.
    pub fn status(&self) -> Status {
        let board = self.board();
        let reached = self.rules.goal_reached(board);
        if reached && !self.continued {
            Status::Won
        } else if board.can_move() {
            Status::Playing
        } else if self.rules.goal().is_some() && !reached {
            Status::Lost
        } else {
            Status::Over
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::random::seeded;

    fn board(rows: &[&[u64]]) -> Board {
        Board::from_values(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn a_move_scores_spawns_and_can_be_undone() {
        let mut rng = seeded(3);
        let start = board(&[&[2, 2, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let mut game = Game::from_board(Rules::power11(4).unwrap(), start);
        let turn = game.play(Direction::Left, &mut rng);
        assert!(turn.moved);
        assert_eq!(game.score(), 4);
        assert_eq!(game.board().get(0, 0), 2);
        assert_eq!(
            game.board().exponents().iter().filter(|&&e| e > 0).count(),
            2
        );
        assert!(game.undo());
        assert_eq!((game.board(), game.score()), (&start, 0));
        assert!(!game.undo());
    }

    #[test]
    fn a_move_that_changes_nothing_is_not_made() {
        let mut rng = seeded(3);
        let start = board(&[&[2, 4, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let mut game = Game::from_board(Rules::power11(4).unwrap(), start);
        assert!(!game.play(Direction::Left, &mut rng).moved);
        assert_eq!(
            (game.board(), game.score(), game.undo_depth()),
            (&start, 0, 0)
        );
    }

    #[test]
    fn winning_move_still_spawns_then_game_is_won() {
        let mut rng = seeded(3);
        let start = board(&[&[1024, 1024, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let mut game = Game::from_board(Rules::power11(4).unwrap(), start);
        game.play(Direction::Left, &mut rng);
        assert_eq!(game.status(), Status::Won);
        assert_eq!(game.score(), 2048);
        assert_eq!(
            game.board().exponents().iter().filter(|&&e| e > 0).count(),
            2
        );
    }

    #[test]
    fn stuck_board_is_lost_or_over() {
        let stuck = board(&[&[2, 4, 2], &[4, 2, 4], &[2, 4, 2]]);
        assert_eq!(
            Game::from_board(Rules::mini(), stuck).status(),
            Status::Lost
        );
        assert_eq!(
            Game::from_board(Rules::edge(), stuck).status(),
            Status::Over
        );
    }

    #[test]
    fn a_resumed_keep_playing_game_past_its_goal_is_not_offered_the_goal_again() {
        let won = board(&[&[2048, 2, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let state = Snapshot {
            board: won,
            score: 20_000,
        };
        let classic = Game::resume(Rules::classic(), Timeline::new(state));
        assert_eq!(classic.status(), Status::Playing);
        // A board file that holds the goal still offers it; a game that ends at its goal is
        // still won.
        let started = Game::from_timeline(Rules::classic(), Timeline::new(state));
        assert_eq!(started.status(), Status::Won);
        let hard = Game::resume(Rules::power11(4).unwrap(), Timeline::new(state));
        assert_eq!(hard.status(), Status::Won);
        // Below the goal, nothing was answered yet.
        let below = Snapshot {
            board: board(&[&[1024, 1024, 0, 0], &[0; 4], &[0; 4], &[0; 4]]),
            score: 9_000,
        };
        let mut game = Game::resume(Rules::classic(), Timeline::new(below));
        game.play(Direction::Left, &mut seeded(1));
        assert_eq!(game.status(), Status::Won);
    }

    #[test]
    fn keep_playing_turns_won_into_playing() {
        let won = board(&[&[2048, 0, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let mut game = Game::from_board(Rules::classic(), won);
        assert_eq!(game.status(), Status::Won);
        game.keep_playing();
        assert_eq!(game.status(), Status::Playing);
    }

    #[test]
    fn timeline_round_trips() {
        let mut rng = seeded(9);
        let mut game = Game::new(Rules::power11(5).unwrap(), &mut rng);
        for d in [
            Direction::Left,
            Direction::Up,
            Direction::Right,
            Direction::Down,
        ] {
            game.play(d, &mut rng);
        }
        let timeline = game.timeline();
        assert_eq!(
            timeline.current(),
            &Snapshot {
                board: *game.board(),
                score: game.score()
            }
        );
        assert_eq!(timeline.states().len(), game.undo_depth() + 1);
        let restored = Game::from_timeline(Rules::power11(4).unwrap(), timeline.clone());
        assert_eq!(restored.timeline(), timeline);
        assert_eq!(restored.rules().size(), 5);
    }

    /// Regression (hostile users, round 3): the history grew without bound (4M moves held
    /// 380 MB) where a save keeps a bounded number of states. It keeps at most its limit,
    /// the newest states, and says how many it let go.
    #[test]
    fn the_history_keeps_at_most_its_limit_of_newest_states() {
        let mut rng = seeded(4);
        let start = board(&[&[2, 0, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        let rules = Rules::power11(4).unwrap().with_spawn(Spawn::None);
        let mut game = Game::from_board(rules, start);
        game.limit_history(128);
        let mut boards = Vec::new();
        for i in 0..1000 {
            let direction = [Direction::Right, Direction::Left][i % 2];
            game.play(direction, &mut rng);
            boards.push(*game.board());
            assert!(game.timeline().states().len() <= 128, "move {i}");
        }
        let kept = game.timeline().states().len();
        assert_eq!(game.forgotten() + kept, 1001);
        assert!(kept >= 128 - 2, "a batch is a 64th of the limit: {kept}");
        // The newest states, in order, the current one last.
        let newest: Vec<Board> = game.timeline().states().iter().map(|s| s.board).collect();
        assert_eq!(newest, boards[1000 - kept..]);
        // Undo goes back to the oldest state kept, and no further.
        for _ in 1..kept {
            assert!(game.undo());
        }
        assert!(!game.undo());
        // A limit below one state keeps the current one.
        game.limit_history(0);
        assert_eq!(game.timeline().states().len(), 1);
        assert_eq!(game.undo_depth(), 0);
    }

    #[test]
    fn mixed_sizes_are_refused() {
        let a = Snapshot {
            board: Board::empty(4).unwrap(),
            score: 0,
        };
        let b = Snapshot {
            board: Board::empty(5).unwrap(),
            score: 0,
        };
        let mut timeline = Timeline::new(a);
        assert_eq!(
            timeline.push(b),
            Err(MixedSizes {
                expected: 4,
                found: 5
            })
        );
        assert_eq!(timeline.states(), &[a]);
    }

    #[test]
    fn new_tiles_switched_off_place_no_tile_until_switched_on() {
        let mut rng = seeded(3);
        let start = board(&[&[128, 64, 64], &[32, 256, 128], &[0, 0, 0]]);
        let mut game = Game::from_board(Rules::mini(), start);
        game.switch_new_tiles(false);
        assert!(!game.new_tiles());
        assert_eq!(game.move_rules().spawn(), Spawn::None);
        assert_eq!(
            game.rules().spawn(),
            Spawn::Twos,
            "the game's own rules stay"
        );
        game.play(Direction::Left, &mut rng);
        assert_eq!(
            game.board(),
            &board(&[&[128, 128, 0], &[32, 256, 128], &[0, 0, 0]])
        );
        // Undo leaves the switch as it is.
        assert!(game.undo());
        assert!(!game.new_tiles());
        game.switch_new_tiles(true);
        assert_eq!(game.move_rules(), *game.rules());
        game.play(Direction::Left, &mut rng);
        let tiles = game.board().exponents().iter().filter(|&&e| e > 0).count();
        assert_eq!(tiles, 6, "five tiles after the merge, and a new one");
    }
}
