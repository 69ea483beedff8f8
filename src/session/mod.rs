//! The session: welcome menu -> game -> end of game -> menu, as a state machine driven by
//! [`Command`]s and reporting [`Event`]s and [`Screen`]s as data.
//!
//! Every front end (the line console, autoplay, a full-screen terminal) is a thin layer over
//! this: it maps its input to commands and draws the screen and events it gets back. The game
//! flow (what a key may do where, when the best score is recorded, the keep-playing offer) lives
//! here once. The session never prints and never touches a file: saves and best scores go
//! through a [`Store`], which the program backs with files and tests with memory.

mod questions;
pub use questions::{Answer, Ask, Question};

use crate::model::direction::Direction;
use crate::model::game::{Game, Snapshot, Status, Timeline};
use crate::model::history;
use crate::model::random::GameRng;
use crate::model::rules::{Rules, Score, Turn};
use crate::model::size::Size;
use crate::players::{Advice, AnyPlayer, Expectimax, SearchConfig, Solution, choose_on_board};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::fmt::Display;
use std::sync::Arc;

/// Where a session keeps saved games and best scores.
pub trait Store {
    /// Why a save, a load or a best score failed (shown to the player).
    type Error: Display;

    /// Where games are saved, as the game screen names it (`power11.saved`).
    fn location(&self) -> String;

    /// Saves `timeline`, replacing the saved game.
    fn save(&mut self, timeline: &Timeline) -> Result<usize, Self::Error>;

    /// The saved game, or `None` if there is none.
    fn load(&mut self) -> Result<Option<Timeline>, Self::Error>;

    /// The best score recorded under `rules` (at their size; [`Rules::record_name`]).
    fn best(&self, rules: &Rules) -> Option<Score>;

    /// Records `score` under `rules` if it beats the best; an error only if the new best could
    /// not be kept.
    fn record_best(&mut self, rules: &Rules, score: Score) -> Result<(), Self::Error>;

    /// The most states of a game on `size` boards a save holds: a game keeps no more history
    /// than that ([`Game::limit_history`]), so that its memory is bounded and undo never
    /// reaches what a save would leave out. Unbounded unless the store says otherwise.
    fn history_limit(&self, _size: usize) -> usize {
        usize::MAX
    }

    /// The solved table of `rules`, if the store has one (advice then gives exact odds).
    fn table(&mut self, _rules: &Rules) -> Option<Arc<Solution>> {
        None
    }
}

/// A [`Store`] in memory: for tests, autoplay and anything that must not touch files.
#[derive(Debug, Default)]
pub struct MemoryStore {
    saved: Option<Timeline>,
    best: BTreeMap<(String, usize), Score>,
    /// [`Store::history_limit`], by board size (none: unbounded).
    history_limit: Option<fn(usize) -> usize>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// The same store, its games keeping at most `limit(size)` states on `size` boards (the
    /// program gives what a save file holds, `text::states_a_save_holds`).
    #[must_use]
    pub fn with_history_limit(mut self, limit: fn(usize) -> usize) -> MemoryStore {
        self.history_limit = Some(limit);
        self
    }
}

impl Store for MemoryStore {
    type Error = Infallible;

    fn location(&self) -> String {
        "memory".to_string()
    }

    fn save(&mut self, timeline: &Timeline) -> Result<usize, Infallible> {
        self.saved = Some(timeline.clone());
        Ok(0)
    }

    fn load(&mut self) -> Result<Option<Timeline>, Infallible> {
        Ok(self.saved.clone())
    }

    fn best(&self, rules: &Rules) -> Option<Score> {
        self.best.get(&(rules.record_name(), rules.size())).copied()
    }

    fn history_limit(&self, size: usize) -> usize {
        self.history_limit.map_or(usize::MAX, |limit| limit(size))
    }

    fn record_best(&mut self, rules: &Rules, score: Score) -> Result<(), Infallible> {
        let key = (rules.record_name(), rules.size());
        let best = self.best.entry(key).or_insert(score);
        *best = (*best).max(score);
        Ok(())
    }
}

/// Which welcome menu the session shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuStyle {
    /// Power-11's menu: a new Easy (5x5) or Hard (4x4) game.
    EasyHard,
    /// One board size: the rules' own.
    OneSize,
}

/// What the player asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Menu: a new game of this size (one the menu offers); end of a game that offers to go
    /// on: a new game of the same size.
    NewGame(Size),
    /// Menu: resume the saved game.
    Resume,
    /// Menu: leave the program.
    Quit,
    /// Game: slide the tiles.
    Move(Direction),
    /// Game: the computer player picks and plays the move.
    ComputerMove,
    /// Game: play this move as the computer's (one its player chose off the thread that reads
    /// keys: [`Session::question`]); like [`Command::ComputerMove`], it stops the game
    /// counting for the best score.
    ComputerPlays(Direction),
    /// Game: save it, with its history.
    Save,
    /// Game: take the last move back.
    Undo,
    /// Game: ask the search player which move it would make.
    Advice,
    /// Game: switch new tiles off (`false`) or back on (`true`) for the rest of the game, or
    /// until switched again ([`Game::switch_new_tiles`]).
    NewTiles(bool),
    /// End of a game that offers it: keep playing past the goal.
    KeepPlaying,
    /// Game or end of a game: back to the menu.
    Leave,
}

/// What a command did, beyond the screen it leaves.
#[derive(Debug)]
pub enum Event<E> {
    /// A move was played (`turn.moved` is false if it changed nothing).
    Moved {
        /// Its direction.
        direction: Direction,
        /// What it did.
        turn: Turn,
    },
    /// The game was saved.
    Saved {
        /// How many of its oldest states the save left out (0 but for a history of millions
        /// of moves, which the store keeps within what it can read back).
        left_out: usize,
    },
    /// The game could not be saved; it goes on.
    SaveFailed(E),
    /// The game let go of its oldest states for the first time, to keep no more than a save
    /// holds ([`Store::history_limit`]): undo no longer reaches its start. Said once a game.
    HistoryForgotten {
        /// How many states it keeps at most (the current one and those undo goes back to).
        kept: usize,
    },
    /// A move was taken back.
    Undone,
    /// There was no move to take back.
    NothingToUndo,
    /// What the advisor says of the position.
    Advice(AdviceReport),
    /// New tiles were switched off or on (`on`), even if they already were.
    NewTiles {
        /// Whether new tiles now appear after a move.
        on: bool,
    },
    /// `Resume` found no saved game.
    NoSavedGame,
    /// `Resume` found a game of a size the menu does not offer (a save holds no rules): it
    /// goes on under these rules, which may not be the ones it was played by.
    ResumedUnder(Rules),
    /// `Resume` found a saved game whose history the rules cannot explain (an edited save): it
    /// resumes as it is, and does not count for the best score.
    ResumedUnexplained {
        /// The first state that breaks a rule, 1-based, oldest first.
        state: usize,
        /// How many states the save holds.
        states: usize,
        /// The rule it breaks, in words.
        why: String,
    },
    /// `Resume` found a saved game it could not read.
    ResumeFailed(E),
    /// A new best score could not be kept.
    BestNotSaved(E),
    /// The session is over.
    Goodbye,
    /// The command does nothing on this screen.
    NotNow,
}

/// Advice on a position.
#[derive(Clone, Debug, PartialEq)]
pub enum AdviceReport {
    /// The search player's advice, or `None` if no move changes the board.
    Search(Option<Advice>),
    /// The exact odds of winning after each move that changes the board, best first (3x3,
    /// from a solved table).
    Exact(Vec<(Direction, f64)>),
}

/// What the player is looking at.
#[derive(Clone, Copy, Debug)]
pub enum Screen<'a> {
    /// The welcome menu.
    Menu,
    /// A game in progress.
    Game {
        /// The game.
        game: &'a Game,
        /// The best score to show (rules that track one): the stored one, raised by the
        /// highest score this game reached if it counts ([`Session::counts_for_best`]).
        best: Score,
    },
    /// A game that ended (won, lost or over), waiting for the player's choice.
    End {
        /// The game.
        game: &'a Game,
        /// As for [`Screen::Game`].
        best: Score,
        /// The rules offer to keep playing past the goal, or to start a new game (classic).
        offers_more: bool,
    },
    /// The session is over.
    Closed,
}

/// How a session plays: the rules of new games and the menu that offers them.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// The rules new games use (the size is the menu's choice in [`MenuStyle::EasyHard`]).
    pub rules: Rules,
    /// The welcome menu.
    pub menu: MenuStyle,
}

enum State {
    Menu,
    Game(Game),
    Closed,
}

/// A session: the menu and the games played from it.
pub struct Session<S> {
    settings: Settings,
    rng: GameRng,
    store: S,
    /// Advises where `player` does not search (random play, a table's player without a
    /// table for these rules).
    advisor: AnyPlayer,
    player: AnyPlayer,
    state: State,
    /// What the game in progress means for its best score.
    tally: Tally,
    /// The saves this session wrote of games that did not count (each as its number of
    /// states and its last state): resumed, they still do not count.
    uncounted_saves: Vec<(usize, Snapshot)>,
}

/// What a game means for its best score. A game counts only if a person played every move
/// from a normal start (a new game or a resume): not a computer's move, not with new tiles
/// switched off (even for a while), not from a board file. `peak` is the highest score it
/// reached while it counted (`None` for a game that never did), so that the best score shown
/// never drops when a move is taken back or when the game stops counting: what a person
/// reached by hand from a normal start stays theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tally {
    counts: bool,
    peak: Option<Score>,
}

/// What tells a save apart from another: its number of states and its last state.
fn fingerprint(timeline: &Timeline) -> (usize, Snapshot) {
    (timeline.states().len(), *timeline.current())
}

impl Tally {
    fn of(game: &Game, counts: bool) -> Tally {
        Tally {
            counts,
            peak: counts.then(|| game.score()),
        }
    }
}

impl<S: Store> Session<S> {
    /// A session at its welcome menu. `player` makes [`Command::ComputerMove`]s.
    pub fn new(settings: Settings, rng: GameRng, store: S, player: AnyPlayer) -> Session<S> {
        Session {
            settings,
            rng,
            store,
            advisor: AnyPlayer::Expectimax(Expectimax::new(SearchConfig::default())),
            player,
            state: State::Menu,
            tally: Tally {
                counts: true,
                peak: None,
            },
            uncounted_saves: Vec::new(),
        }
    }

    /// The same session, advised by `advisor` where its player does not search (by default
    /// the hand-tuned search; the program gives the player it plays when none is named).
    #[must_use]
    pub fn with_advisor(mut self, advisor: AnyPlayer) -> Session<S> {
        self.advisor = advisor;
        self
    }

    /// Starts a game at the newest state of `timeline` (a board file), skipping the menu.
    pub fn start_from(&mut self, timeline: Timeline) {
        let game = self.bounded(Game::from_timeline(self.settings.rules, timeline));
        self.tally = Tally::of(&game, false);
        self.state = State::Game(game);
    }

    /// Starts a new game of the rules' own size, skipping the menu.
    pub fn start_new(&mut self) {
        let game = self.new_game(self.settings.rules);
        self.state = State::Game(game);
    }

    /// A new game under `rules`, keeping no more history than the store's saves hold; it
    /// counts for the best score until it is played otherwise than by hand.
    fn new_game(&mut self, rules: Rules) -> Game {
        let game = Game::new(rules, &mut self.rng);
        self.tally = Tally::of(&game, true);
        self.bounded(game)
    }

    /// `game`, keeping no more history than the store's saves hold.
    fn bounded(&self, mut game: Game) -> Game {
        game.limit_history(self.store.history_limit(game.rules().size()));
        game
    }

    /// The rules of new games.
    pub fn rules(&self) -> &Rules {
        &self.settings.rules
    }

    /// The menu this session shows.
    pub fn menu(&self) -> MenuStyle {
        self.settings.menu
    }

    /// The board sizes the menu offers.
    pub fn menu_sizes(&self) -> Vec<Size> {
        match self.settings.menu {
            MenuStyle::EasyHard => vec![Size::EASY, Size::HARD],
            MenuStyle::OneSize => {
                vec![Size::new(self.settings.rules.size()).expect("rules hold a size")]
            }
        }
    }

    /// The store saves and best scores go to.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// What the player is looking at now.
    pub fn screen(&self) -> Screen<'_> {
        match &self.state {
            State::Menu => Screen::Menu,
            State::Closed => Screen::Closed,
            State::Game(game) => {
                let best = self.best_shown(game);
                match game.status() {
                    Status::Playing => Screen::Game { game, best },
                    status => Screen::End {
                        game,
                        best,
                        offers_more: status == Status::Won && game.rules().keep_playing(),
                    },
                }
            }
        }
    }

    /// Carries out `command` and reports what happened.
    pub fn handle(&mut self, command: Command) -> Vec<Event<S::Error>> {
        let state = std::mem::replace(&mut self.state, State::Closed);
        let (state, events) = match state {
            State::Menu => self.in_menu(command),
            State::Game(game) if game.status() == Status::Playing => self.in_game(game, command),
            State::Game(game) => self.at_end(game, command),
            State::Closed => (State::Closed, vec![Event::NotNow]),
        };
        self.state = state;
        events
    }

    /// Ends the session (the input ended): a game in progress or just ended counts toward the
    /// best score.
    pub fn close(&mut self) -> Vec<Event<S::Error>> {
        let events = match std::mem::replace(&mut self.state, State::Closed) {
            State::Game(game) => self.record_best(&game),
            _ => Vec::new(),
        };
        self.state = State::Closed;
        events
    }

    fn in_menu(&mut self, command: Command) -> (State, Vec<Event<S::Error>>) {
        match command {
            Command::NewGame(size) if self.menu_sizes().contains(&size) => {
                let rules = self.settings.rules.on(size);
                let game = self.new_game(rules);
                (State::Game(game), Vec::new())
            }
            Command::Resume => match self.store.load() {
                Ok(Some(timeline)) => {
                    let ours = self.uncounted_saves.contains(&fingerprint(&timeline));
                    // A history no play could make (an edited save) still resumes, as the
                    // user's file, but says so once and sets no best score. A save this
                    // session wrote of a game that did not count is not judged again.
                    let game = self.bounded(Game::resume(self.settings.rules, timeline));
                    let states = game.timeline().states();
                    let unexplained = if ours {
                        None
                    } else {
                        history::first_unexplained(game.rules(), states)
                    };
                    let states = states.len();
                    self.tally = Tally::of(&game, !ours && unexplained.is_none());
                    let size = game.board().size();
                    let mut events = Vec::new();
                    if !self.menu_sizes().iter().any(|s| s.get() == size) {
                        events.push(Event::ResumedUnder(*game.rules()));
                    }
                    if let Some((state, why)) = unexplained {
                        events.push(Event::ResumedUnexplained { state, states, why });
                    }
                    (State::Game(game), events)
                }
                Ok(None) => (State::Menu, vec![Event::NoSavedGame]),
                Err(e) => (State::Menu, vec![Event::ResumeFailed(e)]),
            },
            Command::Quit => (State::Closed, vec![Event::Goodbye]),
            _ => (State::Menu, vec![Event::NotNow]),
        }
    }

    fn in_game(&mut self, mut game: Game, command: Command) -> (State, Vec<Event<S::Error>>) {
        let forgotten = game.forgotten();
        let event = match command {
            Command::Move(direction) => Event::Moved {
                direction,
                turn: game.play(direction, &mut self.rng),
            },
            Command::ComputerMove | Command::ComputerPlays(_) => {
                self.tally.counts = false;
                let rules = game.move_rules();
                let direction = match command {
                    Command::ComputerPlays(direction) => direction,
                    _ => choose_on_board(&mut self.player, game.board(), &rules, &mut self.rng),
                };
                Event::Moved {
                    direction,
                    turn: game.play(direction, &mut self.rng),
                }
            }
            Command::Save => match self.store.save(game.timeline()) {
                Ok(left_out) => {
                    if !self.tally.counts {
                        // A few are enough: a session saves one game at a time.
                        if self.uncounted_saves.len() >= 16 {
                            self.uncounted_saves.remove(0);
                        }
                        self.uncounted_saves.push(fingerprint(game.timeline()));
                    }
                    Event::Saved { left_out }
                }
                Err(e) => Event::SaveFailed(e),
            },
            Command::Undo if game.undo() => Event::Undone,
            Command::Undo => Event::NothingToUndo,
            Command::Advice => Event::Advice(self.advise(&game)),
            Command::NewTiles(on) => {
                self.tally.counts &= on;
                game.switch_new_tiles(on);
                Event::NewTiles { on }
            }
            Command::Leave => {
                let events = self.record_best(&game);
                return (State::Menu, events);
            }
            _ => Event::NotNow,
        };
        if self.tally.counts {
            self.tally.peak = self.tally.peak.max(Some(game.score()));
        }
        let mut events = vec![event];
        if forgotten == 0 && game.forgotten() > 0 {
            events.push(Event::HistoryForgotten {
                kept: self.store.history_limit(game.rules().size()),
            });
        }
        (State::Game(game), events)
    }

    fn at_end(&mut self, mut game: Game, command: Command) -> (State, Vec<Event<S::Error>>) {
        let offers_more = game.status() == Status::Won && game.rules().keep_playing();
        match command {
            Command::KeepPlaying if offers_more => {
                game.keep_playing();
                (State::Game(game), Vec::new())
            }
            Command::NewGame(_) if offers_more => {
                let events = self.record_best(&game);
                let next = self.new_game(*game.rules());
                (State::Game(next), events)
            }
            Command::Leave => {
                let events = self.record_best(&game);
                (State::Menu, events)
            }
            _ => (State::Game(game), vec![Event::NotNow]),
        }
    }

    /// Whether the player and the advisor answer at once (a learned player's network read).
    pub fn players_ready(&self) -> bool {
        self.player.is_ready() && self.advisor.is_ready()
    }

    /// A task that gets the player and the advisor ready ([`AnyPlayer::warm_up`]) and the
    /// search's tables for every board size the session can reach (its menu's and the game's
    /// in progress), for a front end to run on a thread of its own from the start, so that the
    /// first advice or computer move does not wait for it.
    pub fn warm_up(&self) -> impl FnOnce() + Send + 'static {
        let (player, advisor) = (self.player.clone(), self.advisor.clone());
        // The search's tables first (a fraction of a second, the game's size first), so that
        // advice, which the advisor gives until the network is read, never waits for them.
        let mut sizes: Vec<usize> = Vec::new();
        if let State::Game(game) = &self.state {
            sizes.push(game.board().size());
        }
        sizes.extend(self.menu_sizes().iter().map(|s| s.get()));
        move || {
            for size in sizes {
                crate::players::heuristic::warm_up(size);
            }
            player.warm_up();
            advisor.warm_up();
        }
    }

    /// What the player or the advisor had to say when first asked for a move, once (a weight
    /// file passed over): for a front end that would lose a line on stderr (the full screen)
    /// to show where its player looks.
    pub fn take_note(&self) -> Option<String> {
        self.player.take_note().or_else(|| self.advisor.take_note())
    }

    /// Exact odds where the store has the table of the rules the next move is played by (new
    /// tiles switched off are rules of their own), else the player's own advice if it searches
    /// (expectimax, learned), else the advisor's ([`Session::with_advisor`]).
    fn advise(&mut self, game: &Game) -> AdviceReport {
        let rules = &game.move_rules();
        if let Some(moves) = self
            .store
            .table(rules)
            .and_then(|table| table.move_values(game.board()))
        {
            return AdviceReport::Exact(moves);
        }
        let board = game.board();
        AdviceReport::Search(
            self.player
                .advise_board(board, rules)
                .or_else(|| self.advisor.advise_board(board, rules))
                .flatten(),
        )
    }

    /// Whether the game in progress counts for the best score: a person played every move
    /// from a normal start (see [`Screen::Game`]'s `best`).
    pub fn counts_for_best(&self) -> bool {
        self.tally.counts
    }

    /// The best score shown beside `game`'s: the stored one, or the highest score this game
    /// reached while it counted if that is higher (so neither taking a move back nor a game
    /// that stops counting lowers it). Every rule set keeps one (a front end chooses whether
    /// its screen shows it).
    fn best_shown(&self, game: &Game) -> Score {
        let stored = self.store.best(game.rules()).unwrap_or(0);
        let now = self.tally.counts.then(|| game.score());
        stored.max(self.tally.peak.max(now).unwrap_or(0))
    }

    /// Records the highest score the game reached while it counted (what its screens showed
    /// as the best): a game that counts records its score, one that stopped counting only the
    /// points it scored before (a game of none leaves the record alone).
    fn record_best(&mut self, game: &Game) -> Vec<Event<S::Error>> {
        let now = self.tally.counts.then(|| game.score());
        let Some(score) = self.tally.peak.max(now) else {
            return Vec::new();
        };
        if !self.tally.counts && score <= 0 {
            return Vec::new();
        }
        match self.store.record_best(game.rules(), score) {
            Ok(()) => Vec::new(),
            Err(e) => vec![Event::BestNotSaved(e)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::Board;
    use crate::model::random::seeded;
    use crate::players::RandomPlayer;

    fn session(rules: Rules, menu: MenuStyle) -> Session<MemoryStore> {
        Session::new(
            Settings { rules, menu },
            seeded(1),
            MemoryStore::new(),
            AnyPlayer::Random(RandomPlayer),
        )
    }

    #[test]
    fn menu_offers_its_sizes_only() {
        let mut s = session(Rules::power11(4).unwrap(), MenuStyle::EasyHard);
        let three = Size::new(3).unwrap();
        assert!(matches!(
            s.handle(Command::NewGame(three))[..],
            [Event::NotNow]
        ));
        assert!(matches!(s.screen(), Screen::Menu));
        assert!(s.handle(Command::NewGame(Size::EASY)).is_empty());
        let Screen::Game { game, best } = s.screen() else {
            panic!("a game")
        };
        assert_eq!((game.board().size(), best), (5, 0));
    }

    #[test]
    fn save_then_resume_restores_the_game_with_its_history() {
        let mut s = session(Rules::mini(), MenuStyle::OneSize);
        s.handle(Command::NewGame(Size::new(3).unwrap()));
        play_until_it_scores(&mut s);
        let Screen::Game { game, .. } = s.screen() else {
            panic!("a game")
        };
        let saved = game.timeline().clone();
        assert!(matches!(
            s.handle(Command::Save)[..],
            [Event::Saved { left_out: 0 }]
        ));
        assert!(s.handle(Command::Leave).is_empty());
        assert!(s.handle(Command::Resume).is_empty());
        let Screen::Game { game, best } = s.screen() else {
            panic!("a game")
        };
        assert_eq!(game.timeline(), &saved);
        assert_eq!(best, game.score(), "mini tracks a best score");
    }

    #[test]
    fn resume_without_a_save_stays_at_the_menu() {
        let mut s = session(Rules::mini(), MenuStyle::OneSize);
        assert!(matches!(
            s.handle(Command::Resume)[..],
            [Event::NoSavedGame]
        ));
        assert!(matches!(s.screen(), Screen::Menu));
        assert!(matches!(s.handle(Command::Quit)[..], [Event::Goodbye]));
        assert!(matches!(s.screen(), Screen::Closed));
    }

    #[test]
    fn new_tiles_switch_in_a_game_only_and_hold_until_switched_again() {
        let mut s = session(Rules::mini(), MenuStyle::OneSize);
        assert!(matches!(
            s.handle(Command::NewTiles(false))[..],
            [Event::NotNow]
        ));
        let board = Board::from_values(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]).unwrap();
        s.start_from(Timeline::new(Snapshot { board, score: 0 }));
        assert!(matches!(
            s.handle(Command::NewTiles(false))[..],
            [Event::NewTiles { on: false }]
        ));
        // The tiles' sum: merges keep it, and only a new tile adds to it.
        let sum = |s: &Session<MemoryStore>| match s.screen() {
            Screen::Game { game, .. } => game.board().values().concat().iter().sum::<u128>(),
            _ => panic!("a game"),
        };
        // Moves that change the board place no tile, the computer's too.
        for command in [
            Command::Move(Direction::Right),
            Command::Move(Direction::Down),
            Command::ComputerMove,
            Command::ComputerMove,
        ] {
            let events = s.handle(command);
            assert_eq!(sum(&s), 4, "{events:?}");
        }
        assert!(matches!(
            s.handle(Command::NewTiles(true))[..],
            [Event::NewTiles { on: true }]
        ));
        let Screen::Game { game, .. } = s.screen() else {
            panic!("a game")
        };
        assert!(game.new_tiles());
        let direction = Direction::ALL
            .into_iter()
            .find(|&d| game.board().slide(d).is_some())
            .expect("a move");
        s.handle(Command::Move(direction));
        assert_eq!(sum(&s), 6, "a new 2 again");
    }

    /// Plays moves by hand (the first that changes the board, in a fixed order) until the
    /// game scores; gives the score.
    fn play_until_it_scores(s: &mut Session<MemoryStore>) -> Score {
        loop {
            let Screen::Game { game, .. } = s.screen() else {
                panic!("a game")
            };
            if game.score() > 0 {
                return game.score();
            }
            let direction = Direction::ALL
                .into_iter()
                .find(|&d| game.board().slide(d).is_some())
                .expect("a move");
            s.handle(Command::Move(direction));
        }
    }

    #[test]
    fn leaving_a_game_records_its_best_score() {
        let mut s = session(Rules::classic(), MenuStyle::OneSize);
        s.handle(Command::NewGame(Size::HARD));
        assert!(s.counts_for_best());
        let score = play_until_it_scores(&mut s);
        s.handle(Command::Leave);
        assert_eq!(s.store().best(&Rules::classic()), Some(score));
    }

    #[test]
    fn the_best_shown_never_drops_when_a_move_is_taken_back() {
        let mut s = session(Rules::classic(), MenuStyle::OneSize);
        s.handle(Command::NewGame(Size::HARD));
        let score = play_until_it_scores(&mut s);
        s.handle(Command::Undo);
        let Screen::Game { game, best } = s.screen() else {
            panic!("a game")
        };
        assert!(game.score() < score, "the undo took the points back");
        assert_eq!(
            best, score,
            "the best shown keeps the highest score reached"
        );
    }

    /// Regression (issue 66): a hand game showing Best 60 showed "Best 0 (not counted)" once
    /// a computer move or new tiles off made it stop counting. The best shown keeps the score
    /// the game reached while it counted, and that score is what is recorded.
    #[test]
    fn the_best_shown_never_drops_when_a_game_stops_counting() {
        let stops: [(&str, Command); 2] = [
            ("a computer move", Command::ComputerMove),
            ("new tiles off", Command::NewTiles(false)),
        ];
        for (how, stop) in stops {
            let mut s = session(Rules::classic(), MenuStyle::OneSize);
            s.handle(Command::NewGame(Size::HARD));
            let score = play_until_it_scores(&mut s);
            s.handle(stop);
            assert!(!s.counts_for_best(), "{how}");
            let Screen::Game { best, .. } = s.screen() else {
                panic!("a game")
            };
            assert_eq!(best, score, "{how}: the best shown dropped");
            // Points scored after it stopped counting raise neither the best shown nor the
            // one recorded.
            let Screen::Game { game, .. } = s.screen() else {
                panic!("a game")
            };
            let reached = game.score();
            s.handle(Command::Undo);
            let Screen::Game { best, .. } = s.screen() else {
                panic!("a game")
            };
            assert_eq!(best, score, "{how}: after undo");
            s.handle(Command::Leave);
            assert_eq!(
                s.store().best(&Rules::classic()),
                Some(score),
                "{how}: the score reached by hand is kept ({reached} now)"
            );
        }
    }

    /// How a test starts a game.
    type Start = fn(&mut Session<MemoryStore>);

    #[test]
    fn games_not_played_by_hand_from_a_normal_start_record_no_best() {
        let board = Board::from_values(&[vec![2, 2, 0], vec![0; 3], vec![0, 0, 4]]).unwrap();
        let ways: [(&str, Start); 3] = [
            ("a computer move", |s| {
                s.handle(Command::NewGame(Size::new(3).unwrap()));
                s.handle(Command::ComputerMove);
            }),
            ("new tiles off for a while", |s| {
                s.handle(Command::NewGame(Size::new(3).unwrap()));
                s.handle(Command::NewTiles(false));
                s.handle(Command::NewTiles(true));
            }),
            ("a start from a board file", |_| {}),
        ];
        for (how, start) in ways {
            let mut s = session(Rules::mini(), MenuStyle::OneSize);
            s.start_from(Timeline::new(Snapshot { board, score: 0 }));
            if how != "a start from a board file" {
                s.handle(Command::Leave);
            }
            start(&mut s);
            assert!(!s.counts_for_best(), "{how}");
            let score = play_until_it_scores(&mut s);
            let Screen::Game { best, .. } = s.screen() else {
                panic!("a game")
            };
            assert!(
                score > 0 && best == 0,
                "{how}: the best shown stays the stored one"
            );
            s.handle(Command::Leave);
            assert_eq!(s.store().best(&Rules::mini()), None, "{how}");
        }
    }

    /// Regression (hostile-user trial): a game that did not count, saved and resumed in the
    /// same session, counted again.
    #[test]
    fn a_game_that_does_not_count_still_does_not_once_saved_and_resumed() {
        let mut s = session(Rules::mini(), MenuStyle::OneSize);
        let board = Board::from_values(&[vec![256, 256, 0], vec![0; 3], vec![0; 3]]).unwrap();
        s.start_from(Timeline::new(Snapshot { board, score: 0 }));
        assert!(matches!(s.handle(Command::Save)[..], [Event::Saved { .. }]));
        s.handle(Command::Leave);
        assert!(s.handle(Command::Resume).is_empty());
        assert!(!s.counts_for_best());
        s.handle(Command::Move(Direction::Left));
        s.handle(Command::Leave);
        assert_eq!(s.store().best(&Rules::mini()), None);
        // A game by hand, saved and resumed, counts.
        s.handle(Command::NewGame(Size::new(3).unwrap()));
        s.handle(Command::Save);
        s.handle(Command::Leave);
        s.handle(Command::Resume);
        assert!(s.counts_for_best());
    }

    #[test]
    fn a_save_of_a_size_the_menu_does_not_offer_says_whose_rules_it_goes_on_under() {
        let mut s = session(Rules::power11(4).unwrap(), MenuStyle::EasyHard);
        let board = Board::from_values(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]).unwrap();
        s.store
            .save(&Timeline::new(Snapshot { board, score: 0 }))
            .unwrap();
        let events = s.handle(Command::Resume);
        assert!(
            matches!(&events[..], [Event::ResumedUnder(rules)] if rules.size() == 3),
            "{events:?}"
        );
        let mut mini = session(Rules::mini(), MenuStyle::OneSize);
        mini.store
            .save(&Timeline::new(Snapshot { board, score: 0 }))
            .unwrap();
        assert!(mini.handle(Command::Resume).is_empty(), "mini offers 3x3");
        let Screen::Game { game, .. } = mini.screen() else {
            panic!("a game")
        };
        assert_eq!(game.rules(), &Rules::mini());
    }
}
