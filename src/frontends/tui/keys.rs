//! What a key does, and the computer's moves: the front end's state beside the session
//! ([`Ui`]), keys mapped to session [`Command`]s for the screen shown (a handler per screen),
//! the requests that wait for the players, the autoplay's pace and moves, and what the status
//! line says of what the session reports.

use super::motion::{Motion, SCHEDULE};
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::size::Size;
use crate::session::{Answer, Ask, Command, Event, MenuStyle, Screen, Session, Store};
use crate::text::advice_line;
use crossterm::event::{KeyCode, KeyEvent};
use std::time::{Duration, Instant};

/// The slowest autoplay `-` goes to.
pub(super) const SLOWEST: Duration = Duration::from_secs(2);

/// How long the computer may think before the screen says so.
pub(super) const MARK_AFTER: Duration = Duration::from_millis(100);

/// A question the computer player is answering on a thread of its own: keys go on working, and
/// an answer that comes for a question no longer asked is dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Thinking {
    /// What was asked.
    pub(super) ask: Ask,
    /// Its number: an answer carries the number of its question.
    pub(super) number: u64,
    /// When it was asked.
    pub(super) since: Instant,
    /// Sent to the thread that answers it (else still to be sent).
    pub(super) sent: bool,
    /// The `Thinking` mark is on the status line.
    pub(super) marked: bool,
}

/// What the front end keeps besides the session: the status line, the marks and modes.
// Independent switches of what the screen shows, not the states of one machine.
#[allow(clippy::struct_excessive_bools)]
#[derive(Default)]
pub(super) struct Ui {
    /// The question the computer player is thinking about, if any.
    pub(super) thinking: Option<Thinking>,
    /// How many questions were asked: the next one's number.
    pub(super) asked: u64,
    /// Moves are animated (`--no-animation` and `m` turn it off).
    pub(super) animate: bool,
    /// The move being animated, and when its key came.
    pub(super) motion: Option<(Motion, Instant)>,
    /// When the game on the screen was started or resumed, and how long it lasted once over.
    pub(super) started: Option<Instant>,
    /// See `started`.
    pub(super) lasted: Option<Duration>,
    /// The autoplay's time between moves.
    pub(super) delay: Duration,
    /// The status line: messages, advice, questions.
    pub(super) status: String,
    /// What the player had to say when it was first asked for a move (a weight file passed
    /// over), shown in the status line's place until the next key: on stderr, the full
    /// screen would wipe it at once.
    pub(super) note: Option<String>,
    /// The cell of the tile the last move placed, marked `new`.
    pub(super) new_tile: Option<(usize, usize)>,
    /// The direction the last advice gave, until the board changes.
    pub(super) advised: Option<Direction>,
    /// The computer plays: when its next move is due.
    pub(super) autoplay: Option<Instant>,
    /// The key help is shown.
    pub(super) help: bool,
    /// Moves were made since the game was saved (or started).
    pub(super) unsaved: bool,
    /// The key (`q` or `n`) pressed once with unsaved moves, which a second press confirms.
    pub(super) pending: Option<char>,
    /// The last frame said the window is too small: game keys wait.
    pub(super) cramped: bool,
}

/// A key pressed while the computer plays or advice is awaited: `+` and `-` set the
/// autoplay's pace, any other key takes the game back at once (and is used up, as the status
/// line said it would be): a move being thought of is dropped. Advice asked for a board a key
/// is about to change is dropped too. True if the key is used up.
pub(super) fn taken_by_the_computer(ui: &mut Ui, code: KeyCode) -> bool {
    if ui.autoplay.is_some() {
        if let Some(faster) = speed_key(code) {
            ui.delay = paced(ui.delay, faster);
            ui.status = autoplay_status(ui.delay);
            return true;
        }
        ui.autoplay = None;
        ui.thinking = None;
        ui.status = "You have the game back.".to_string();
        return true;
    }
    if ui.thinking.is_some_and(|t| t.ask == Ask::Advice)
        && !matches!(code, KeyCode::Char('a' | 'A'))
    {
        ui.thinking = None;
        ui.status.clear();
    }
    false
}

/// Asks `ask` of the computer player: the loop sends it to a thread of its own.
pub(super) fn ask(ui: &mut Ui, ask: Ask) {
    ui.asked += 1;
    ui.thinking = Some(Thinking {
        ask,
        number: ui.asked,
        since: Instant::now(),
        sent: false,
        marked: false,
    });
}

/// Answers `ask` at once, where the session does (no search: a solved table, a player that
/// does not search, no game).
pub(super) fn answer_at_once<S: Store>(session: &mut Session<S>, ui: &mut Ui, ask: Ask) {
    match ask {
        Ask::Move => {
            let before = ui.status.clone();
            move_played(session, ui, Command::ComputerMove);
            next_autoplay_move(ui, before);
        }
        Ask::Advice => report(session, ui, Command::Advice),
    }
}

/// After the autoplay's move: the next one timed from now, the status line kept (`before`,
/// unless the move had something to say).
fn next_autoplay_move(ui: &mut Ui, before: String) {
    if ui.autoplay.is_none() {
        return;
    }
    ui.autoplay = Some(Instant::now() + ui.delay);
    if ui.status.is_empty() {
        ui.status = if before.is_empty() || before.starts_with("Thinking") {
            autoplay_status(ui.delay)
        } else {
            before
        };
    }
    // Fast autoplay is not animated: its moves come before a motion would end.
    if ui.delay < *SCHEDULE.last().expect("a schedule") + Duration::from_millis(50) {
        ui.motion = None;
    }
}

/// Carries out the answer to question `number`, if it is still the one asked: the move played
/// (and the autoplay's next one timed from now), or the advice said. True if the screen
/// changed.
pub(super) fn answered<S: Store>(
    session: &mut Session<S>,
    ui: &mut Ui,
    number: u64,
    answer: Answer,
) -> bool {
    let Some(thinking) = ui.thinking.filter(|t| t.number == number) else {
        return false;
    };
    ui.thinking = None;
    if thinking.marked {
        ui.status.clear();
    }
    let board = board_shown(session);
    let events = session.answered(answer);
    match thinking.ask {
        Ask::Move => {
            let before = ui.status.clone();
            if let Some(board) = board {
                moved(session, ui, &board, events);
            }
            next_autoplay_move(ui, before);
        }
        Ask::Advice => said(session, ui, events),
    }
    true
}

/// The autoplay's next move asked for, if it plays, its move is due and none is being thought
/// of, on a game in progress the window shows (it waits while the window is too small, and
/// stops at a game's end); true if the screen changed.
pub(super) fn autoplay_move<S: Store>(session: &Session<S>, ui: &mut Ui) -> bool {
    let Some(due) = ui.autoplay else {
        return false;
    };
    if ui.cramped || due > Instant::now() || ui.thinking.is_some() {
        return false;
    }
    if let Screen::Game { .. } = session.screen() {
        ask(ui, Ask::Move);
        false
    } else {
        ui.autoplay = None;
        true
    }
}

/// Whether `code` speeds the autoplay up (`+`, `=` on the same key) or slows it down (`-`).
fn speed_key(code: KeyCode) -> Option<bool> {
    match code {
        KeyCode::Char('+' | '=') => Some(true),
        KeyCode::Char('-' | '_') => Some(false),
        _ => None,
    }
}

/// The autoplay's delay one step faster (half, down to none) or slower (twice, from 15 ms, up
/// to [`SLOWEST`]).
pub(super) fn paced(delay: Duration, faster: bool) -> Duration {
    if faster {
        let half = delay / 2;
        if half < Duration::from_millis(8) {
            Duration::ZERO
        } else {
            half
        }
    } else {
        (delay * 2).clamp(Duration::from_millis(15), SLOWEST)
    }
}

/// What the status line says while the computer plays.
pub(super) fn autoplay_status(delay: Duration) -> String {
    let pace = if delay.is_zero() {
        "as fast as the screen draws".to_string()
    } else {
        format!("a move every {} ms", delay.as_millis())
    };
    format!("The computer plays ({pace}): + faster, - slower, any key stops.")
}

/// Keeps the game's time: from its start or resume on this screen to its end (the end screen
/// says how long it took), going on when a won game is played on.
pub(super) fn follow_the_clock<S: Store>(session: &Session<S>, ui: &mut Ui) {
    match session.screen() {
        Screen::Menu | Screen::Closed => (ui.started, ui.lasted) = (None, None),
        Screen::Game { .. } => {
            ui.started.get_or_insert_with(Instant::now);
            ui.lasted = None;
        }
        Screen::End { .. } => {
            let started = *ui.started.get_or_insert_with(Instant::now);
            ui.lasted.get_or_insert_with(|| started.elapsed());
        }
    }
}

/// Handles one key; false to leave the program.
pub(super) fn on_key<S: Store>(session: &mut Session<S>, ui: &mut Ui, key: KeyEvent) -> bool {
    let pending = ui.pending.take();
    let c = match key.code {
        KeyCode::Char(c) => Some(c.to_ascii_lowercase()),
        _ => None,
    };
    if key.code == KeyCode::Esc {
        ui.help = false;
        return true;
    }
    // Nothing is played blind in a window too small to show the board; what shrinks the
    // screen (closing the help), undoes a game's move, saves or leaves (the end of a game
    // with Enter, which its note says) still works there.
    let undo = matches!(c, Some('b')) || key.code == KeyCode::Backspace;
    let in_game = matches!(session.screen(), Screen::Game { .. });
    let leaves_the_end =
        key.code == KeyCode::Enter && matches!(session.screen(), Screen::End { .. });
    let acts_unseen = matches!(c, Some('q' | 's' | '?')) || (undo && in_game) || leaves_the_end;
    if ui.cramped && !acts_unseen {
        return true;
    }
    // `q` and `n` drop unsaved moves only when pressed twice.
    if let Some(key @ ('q' | 'n')) = c
        && ui.unsaved
        && pending != Some(key)
        && matches!(session.screen(), Screen::Game { .. })
    {
        ui.pending = Some(key);
        ui.status = if key == 'q' {
            "Moves not saved: q again leaves without them, s saves them, other keys play on."
        } else {
            "Moves not saved: n again starts a new game, s saves them, other keys play on."
        }
        .to_string();
        return true;
    }
    match session.screen() {
        Screen::Menu => menu_key(session, ui, c),
        Screen::End {
            game, offers_more, ..
        } => {
            let size = game.board().side();
            let command = match c {
                Some('k') if offers_more => Command::KeepPlaying,
                Some('n') if offers_more => Command::NewGame(size),
                // A move key held down past the game's last move must not leave its end
                // unseen: the end screen asks for another key.
                _ if direction_of(key.code).is_some() => return true,
                _ => Command::Leave,
            };
            ui.status.clear();
            report(session, ui, command);
            true
        }
        Screen::Game { .. } => {
            game_key(session, ui, key, c);
            true
        }
        Screen::Closed => false,
    }
}

/// A key at the menu; false to leave the program.
fn menu_key<S: Store>(session: &mut Session<S>, ui: &mut Ui, c: Option<char>) -> bool {
    let command = match (session.menu(), c) {
        (MenuStyle::EasyHard, Some('e')) => Some(Command::NewGame(Size::EASY)),
        (MenuStyle::EasyHard, Some('h')) => Some(Command::NewGame(Size::HARD)),
        (MenuStyle::OneSize, Some('n')) => {
            session.menu_sizes().first().map(|&s| Command::NewGame(s))
        }
        (_, Some('r')) => Some(Command::Resume),
        (_, Some('q')) => return false,
        _ => None,
    };
    if let Some(command) = command {
        ui.status.clear();
        ui.new_tile = None;
        ui.advised = None;
        ui.unsaved = false;
        report(session, ui, command);
    }
    true
}

/// The direction a key moves in a game, if it is a move: the arrows, vim's `h` `j` `k`, and the
/// line game's `u` `d` `l` `r`.
fn direction_of(code: KeyCode) -> Option<Direction> {
    match code {
        KeyCode::Up => Some(Direction::Up),
        KeyCode::Down => Some(Direction::Down),
        KeyCode::Left => Some(Direction::Left),
        KeyCode::Right => Some(Direction::Right),
        KeyCode::Char(ch) => match ch.to_ascii_lowercase() {
            'k' | 'u' => Some(Direction::Up),
            'j' | 'd' => Some(Direction::Down),
            'h' | 'l' => Some(Direction::Left),
            'r' => Some(Direction::Right),
            _ => None,
        },
        _ => None,
    }
}

/// A key during a game.
fn game_key<S: Store>(session: &mut Session<S>, ui: &mut Ui, key: KeyEvent, c: Option<char>) {
    if let Some(direction) = direction_of(key.code) {
        move_played(session, ui, Command::Move(direction));
        return;
    }
    let Screen::Game { game, .. } = session.screen() else {
        return;
    };
    let size = game.board().side();
    let new_tiles = game.new_tiles();
    match (key.code, c) {
        (KeyCode::Backspace, _) | (_, Some('b')) => {
            ui.status.clear();
            ui.new_tile = None;
            report(session, ui, Command::Undo);
        }
        (_, Some('s')) => report(session, ui, Command::Save),
        // Asked of the player on a thread of its own: keys go on working while it thinks,
        // and a mark says so once it takes a while.
        (_, Some('a')) => ask(ui, Ask::Advice),
        (_, Some('t')) => report(session, ui, Command::NewTiles(!new_tiles)),
        (_, Some('p')) => {
            ui.autoplay = Some(Instant::now());
            ui.status = autoplay_status(ui.delay);
        }
        (_, Some('m')) => {
            ui.animate = !ui.animate;
            ui.status = if ui.animate {
                "Motion on: tiles slide."
            } else {
                "Motion off: moves are drawn at once."
            }
            .to_string();
        }
        (_, Some('n')) => {
            report(session, ui, Command::Leave);
            report(session, ui, Command::NewGame(size));
            ui.status.clear();
            ui.help = false;
            ui.new_tile = None;
            ui.advised = None;
            ui.unsaved = false;
        }
        (_, Some('?')) => ui.help = !ui.help,
        (_, Some('q')) => {
            ui.status.clear();
            ui.help = false;
            ui.new_tile = None;
            report(session, ui, Command::Leave);
        }
        _ => ui.status = "Unknown key: press ? for help.".to_string(),
    }
}

/// Plays a move (the player's or the computer's) and marks the tile that appeared.
fn move_played<S: Store>(session: &mut Session<S>, ui: &mut Ui, command: Command) {
    let Some(before) = board_shown(session) else {
        return;
    };
    let events = session.handle(command);
    moved(session, ui, &before, events);
}

/// The board of the game in progress, if one is.
fn board_shown<S: Store>(session: &Session<S>) -> Option<Board> {
    match session.screen() {
        Screen::Game { game, .. } => Some(*game.board()),
        _ => None,
    }
}

/// What a move did (`events`, the session now after it): the status line, the new tile's mark
/// and the motion from the board before it.
fn moved<S: Store>(
    session: &Session<S>,
    ui: &mut Ui,
    before: &Board,
    events: Vec<Event<S::Error>>,
) {
    ui.advised = None;
    for event in events {
        if let Event::Moved { direction, turn } = event {
            ui.status.clear();
            if !turn.moved {
                ui.status = format!("{direction}: nothing moves.");
                continue;
            }
            ui.unsaved = true;
            let after = match session.screen() {
                Screen::Game { game, .. } | Screen::End { game, .. } => *game.board(),
                _ => *before,
            };
            let motion = Motion::new(before, direction, &after, turn.score_delta);
            ui.new_tile = motion.as_ref().and_then(Motion::new_cell);
            ui.motion = motion
                .filter(|_| ui.animate)
                .map(|motion| (motion, Instant::now()));
        }
    }
}

/// Carries out a command and puts what it reports in the status line.
fn report<S: Store>(session: &mut Session<S>, ui: &mut Ui, command: Command) {
    let events = session.handle(command);
    said(session, ui, events);
}

/// Puts what the session reported in the status line.
fn said<S: Store>(session: &Session<S>, ui: &mut Ui, events: Vec<Event<S::Error>>) {
    let location = session.store().location();
    for event in events {
        ui.advised = None;
        ui.status = match event {
            Event::Saved { left_out: 0 } => {
                ui.unsaved = false;
                format!("Game saved to {location}.")
            }
            Event::Saved { left_out } => {
                ui.unsaved = false;
                super::super::saved_without(&location, left_out)
            }
            Event::SaveFailed(e) => format!("Could not save the game: {e}"),
            Event::NothingToUndo => "Nothing to undo: this is the start of the game.".to_string(),
            Event::Undone => String::new(),
            Event::Advice(advice) => {
                let rules = match session.screen() {
                    Screen::Game { game, .. } => *game.rules(),
                    _ => *session.rules(),
                };
                ui.advised = match &advice {
                    crate::session::AdviceReport::Search(Some(a)) => Some(a.direction),
                    crate::session::AdviceReport::Exact(moves) => moves.first().map(|m| m.0),
                    crate::session::AdviceReport::Search(None) => None,
                };
                advice_line(&advice, &rules)
            }
            Event::NoSavedGame => format!("No saved game to resume: {location} does not exist."),
            Event::ResumeFailed(e) => format!("Cannot resume: {e}"),
            Event::BestNotSaved(e) => super::super::best_not_saved(&e),
            Event::HistoryForgotten { kept } => super::super::history_forgotten(kept),
            Event::ResumedUnexplained { state, states, why } => {
                super::super::resumed_unexplained(state, states, &why)
            }
            Event::ResumedUnder(rules) => super::super::resumed_under(&rules),
            Event::NewTiles { on: false } => {
                "New tiles off: moves place no tile until t again.".to_string()
            }
            Event::NewTiles { on: true } => "New tiles on again.".to_string(),
            Event::Moved { .. } | Event::NotNow | Event::Goodbye => continue,
        };
    }
}
