//! `--tui`: the full-screen terminal front end. Arrow keys without Enter, coloured tiles, one
//! board redrawn in place.
//!
//! Like the line console it decides no rule and no game flow: it maps keys to session
//! [`Command`]s and draws the [`Screen`] and events the session reports. Drawing is split in
//! three: [`render`] builds a [`Frame`] (the window's cells) from a [`View`], a pure function
//! that tests and the benchmark call; a [`Painter`] writes what changed since the last frame;
//! `Terminal` owns the terminal's state, restoring it on every way out (quit, Ctrl-C, SIGTERM,
//! SIGHUP, an error, a panic).

mod color;
mod diff;
mod frame;
mod layout;
mod motion;
mod palette;
mod render;
mod terminal;
mod tiles;

pub use diff::{BEGIN_UPDATE, END_UPDATE, Painter};
pub use frame::{Cell, Frame, Style};
pub use motion::{Motion, SCHEDULE};
pub use palette::{ColorMode, TileStyle};
pub use render::{View, render};

use crate::model::direction::Direction;
use crate::model::size::Size;
use crate::session::{Command, Event, MenuStyle, Screen, Session, Store};
use crate::text::advice_line;
use crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};
use terminal::{Terminal, restore};

/// The autoplay's pace when `--delay` names none: about eight moves a second.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(120);

/// The slowest autoplay `-` goes to.
const SLOWEST: Duration = Duration::from_secs(2);

/// A request that waits for the players to be ready (the learned player's network being read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Waiting {
    /// Advice on the board shown.
    Advice,
    /// The computer to play.
    Autoplay,
}

/// What the front end keeps besides the session: the status line, the marks and modes.
// Independent switches of what the screen shows, not the states of one machine.
#[allow(clippy::struct_excessive_bools)]
#[derive(Default)]
struct Ui {
    /// A request carried out once the players are ready and its mark has been drawn; until
    /// then a `Thinking` mark shows.
    waiting: Option<Waiting>,
    /// The `Thinking` mark of the request waiting has been drawn: a slow answer never leaves
    /// the screen as it was before the key.
    mark_drawn: bool,
    /// Moves are animated (`--no-animation` and `m` turn it off).
    animate: bool,
    /// The move being animated, and when its key came.
    motion: Option<(Motion, Instant)>,
    /// When the game on the screen was started or resumed, and how long it lasted once over.
    started: Option<Instant>,
    /// See `started`.
    lasted: Option<Duration>,
    /// The autoplay's time between moves.
    delay: Duration,
    status: String,
    /// What the player had to say when it was first asked for a move (a weight file passed
    /// over), shown in the status line's place until the next key: on stderr, the full
    /// screen would wipe it at once.
    note: Option<String>,
    new_tile: Option<(usize, usize)>,
    advised: Option<Direction>,
    /// The computer plays: when its next move is due.
    autoplay: Option<Instant>,
    help: bool,
    /// Moves were made since the game was saved (or started).
    unsaved: bool,
    /// The key (`q` or `n`) pressed once with unsaved moves, which a second press confirms.
    pending: Option<char>,
    /// The last frame said the window is too small: game keys wait.
    cramped: bool,
}

/// Runs `session` full-screen until `q` at the menu, the Ctrl-C key or a signal that ends a
/// program (SIGINT, SIGQUIT, SIGTERM, SIGHUP), the terminal restored in every case; returns
/// the signal that ended it, if one did (its caller exits as the signal would have). `delay`
/// is the autoplay's time between moves ([`DEFAULT_DELAY`] for the usual pace, 0 for as fast
/// as frames are drawn); `animate` slides the tiles of each move (`--no-animation` not given).
// One loop: what wakes it (keys, signals, frames due, autoplay) reads best in one place.
#[allow(clippy::too_many_lines)]
pub fn run<S: Store>(
    mut session: Session<S>,
    colors: ColorMode,
    delay: Duration,
    animate: bool,
) -> io::Result<Option<i32>> {
    let stopped_by = watch_signals()?;
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous_hook(info);
    }));
    // crossterm drops colours itself where NO_COLOR is set; the mode chosen (`--color always`
    // overrides NO_COLOR) is the mode drawn.
    crossterm::style::force_color_output(colors != ColorMode::None);
    let mut terminal = Terminal::enter()?;
    // The players get ready from the start (reading a network takes a second, the search's
    // tables for a 5x5 board half of one), for every size the session can reach, so that the
    // first advice rarely waits; when it does, the screen says so and keys go on working.
    std::thread::spawn(session.warm_up());
    let mut ui = Ui {
        animate,
        delay,
        ..Ui::default()
    };
    if matches!(session.screen(), Screen::Game { .. }) {
        ui.started = Some(Instant::now());
    }
    let mut painter = Painter::new();
    // Terminal events are read on their own thread, so that this loop always wakes up to see
    // a signal (SIGTERM, SIGHUP) or a terminal that went away, even if reading would block or
    // spin (crossterm reads a closed terminal's end of input again and again).
    let (sender, events) = mpsc::channel();
    std::thread::spawn(move || {
        while let Ok(event) = event::read() {
            if sender.send(event).is_err() {
                break;
            }
        }
    });
    let mut dirty = true;
    let mut drawn_size = None;
    loop {
        if stopped_by.load(Ordering::Relaxed) != 0 {
            break;
        }
        // A request is carried out once its mark is on the screen (the frame before this
        // turn of the loop drew it) and the players are ready.
        if ui.waiting.is_some() && ui.mark_drawn && session.players_ready() {
            carry_out_waiting(&mut session, &mut ui);
            dirty = true;
        }
        if let Some(note) = session.take_note() {
            ui.note = Some(note);
            dirty = true;
        }
        let now = Instant::now();
        // The next frame of a move in motion, if one is due.
        let mut next_frame = None;
        if let Some((_, at)) = &ui.motion {
            if let Some(next) = Motion::next_frame(now.saturating_duration_since(*at)) {
                dirty = true;
                next_frame = Some(*at + next);
            } else {
                // The last frame: the board at rest.
                ui.motion = None;
                dirty = true;
            }
        }
        // A window resized in two steps (rows, then columns) may signal once: its size is
        // looked at on every turn.
        if crossterm::terminal::size().ok() != drawn_size {
            dirty = true;
        }
        // Drawn only when something changed: an idle screen is not redrawn.
        if dirty {
            drawn_size = crossterm::terminal::size().ok();
            ui.cramped = draw(&mut terminal, &mut painter, &session, &ui, colors)?;
            ui.mark_drawn = ui.waiting.is_some();
            dirty = false;
        }
        let now = Instant::now();
        let mut wait = match (ui.waiting, ui.autoplay) {
            (Some(_), _) if session.players_ready() => Duration::ZERO,
            (Some(_), _) => Duration::from_millis(40),
            (None, Some(at)) => at.saturating_duration_since(now),
            _ => Duration::from_millis(250),
        };
        if let Some(at) = next_frame {
            wait = wait.min(at.saturating_duration_since(now));
        }
        let event = match events.recv_timeout(wait) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                if !io::stdout().is_terminal() {
                    break; // The terminal is gone.
                }
                dirty |= autoplay_move(&mut session, &mut ui);
                follow_the_clock(&session, &mut ui);
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        dirty = true;
        if let TermEvent::Key(key) = event
            && key.kind != KeyEventKind::Release
        {
            ui.note = None;
            // A key ends the motion of the move before it: the board it acts on is shown.
            ui.motion = None;
            if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
                break;
            }
            if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('z') {
                terminal.suspend()?;
                painter.forget();
                continue;
            }
            if taken_by_the_computer(&mut ui, key.code) {
                continue;
            }
            if !on_key(&mut session, &mut ui, key) {
                break;
            }
            follow_the_clock(&session, &mut ui);
        }
        // Any other event (a resize) only redraws, for the new size.
    }
    session.close();
    drop(terminal);
    let signal = stopped_by.load(Ordering::Relaxed);
    Ok((signal != 0).then(|| i32::try_from(signal).expect("a signal number")))
}

/// The number of the signal that came (0 for none), set by a handler for each signal that ends
/// a program. In raw mode the Ctrl-C key is a key; SIGINT and SIGQUIT come from outside
/// (`kill`), and would leave the terminal raw.
fn watch_signals() -> io::Result<Arc<AtomicUsize>> {
    let stopped_by = Arc::new(AtomicUsize::new(0));
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGQUIT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        let number = usize::try_from(signal).expect("signal numbers are positive");
        signal_hook::flag::register_usize(signal, Arc::clone(&stopped_by), number)?;
    }
    Ok(stopped_by)
}

/// A key pressed while the computer plays or is about to, or while advice is awaited: `+` and
/// `-` set the autoplay's pace, any other key takes the game back (and is used up, as the
/// status line said it would be). Advice asked for a board a key is about to change is not
/// waited for. True if the key is used up.
fn taken_by_the_computer(ui: &mut Ui, code: KeyCode) -> bool {
    if ui.autoplay.is_some() || ui.waiting == Some(Waiting::Autoplay) {
        if let Some(faster) = speed_key(code) {
            ui.delay = paced(ui.delay, faster);
            ui.status = autoplay_status(ui.delay);
            return true;
        }
        ui.autoplay = None;
        ui.waiting = None;
        ui.status = "You have the game back.".to_string();
        return true;
    }
    if ui.waiting == Some(Waiting::Advice) && !matches!(code, KeyCode::Char('a' | 'A')) {
        ui.waiting = None;
        ui.status.clear();
    }
    false
}

/// Carries out the request that waited for the players, now that they are ready.
fn carry_out_waiting<S: Store>(session: &mut Session<S>, ui: &mut Ui) {
    match ui.waiting.take() {
        Some(Waiting::Advice) => {
            ui.status.clear();
            report(session, ui, Command::Advice);
        }
        Some(Waiting::Autoplay) => {
            ui.autoplay = Some(Instant::now());
            ui.status = autoplay_status(ui.delay);
        }
        None => {}
    }
}

/// One move of the autoplay, if it plays and its move is due, on a game in progress the window
/// shows (it waits while the window is too small, and stops at a game's end); true if the
/// screen changed.
fn autoplay_move<S: Store>(session: &mut Session<S>, ui: &mut Ui) -> bool {
    let now = Instant::now();
    let Some(due) = ui.autoplay else {
        return false;
    };
    if ui.cramped || due > now {
        return false;
    }
    if let Screen::Game { .. } = session.screen() {
        play(session, ui, Command::ComputerMove);
        // Fast autoplay is not animated: its moves come before a motion would end.
        if ui.delay < *SCHEDULE.last().expect("a schedule") + Duration::from_millis(50) {
            ui.motion = None;
        }
        ui.autoplay = Some(now + ui.delay);
        if ui.status.is_empty() {
            ui.status = autoplay_status(ui.delay);
        }
    } else {
        ui.autoplay = None;
    }
    true
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
fn paced(delay: Duration, faster: bool) -> Duration {
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
fn autoplay_status(delay: Duration) -> String {
    let pace = if delay.is_zero() {
        "as fast as the screen draws".to_string()
    } else {
        format!("a move every {} ms", delay.as_millis())
    };
    format!("The computer plays ({pace}): + faster, - slower, any key stops.")
}

/// Draws the screen (what changed since the last frame); says whether the window was too
/// small for it.
fn draw<S: Store>(
    terminal: &mut Terminal,
    painter: &mut Painter,
    session: &Session<S>,
    ui: &Ui,
    colors: ColorMode,
) -> io::Result<bool> {
    // A terminal that gives no size (or 0x0, as a pseudo-terminal nobody sized) is drawn for
    // the usual 80x24 rather than for nothing.
    let (width, height) = match crossterm::terminal::size() {
        Ok((width, height)) if width > 0 && height > 0 => (width, height),
        _ => (80, 24),
    };
    let frame = render(
        &view_of(session, ui, colors),
        usize::from(width),
        usize::from(height),
    );
    painter.paint(&frame, &mut terminal.out)?;
    terminal.out.flush()?;
    Ok(frame.cramped)
}

/// What the screen shows now: the session's screen and the front end's marks and modes.
fn view_of<'a, S: Store>(session: &'a Session<S>, ui: &'a Ui, colors: ColorMode) -> View<'a> {
    View {
        screen: session.screen(),
        rules: session.rules(),
        menu: session.menu(),
        new_tile: ui.new_tile,
        status: ui.note.as_deref().unwrap_or(&ui.status),
        advised: ui.advised,
        autoplay: ui.autoplay.is_some(),
        counted: session.counts_for_best(),
        help: ui.help,
        colors,
        motion: ui
            .motion
            .as_ref()
            .map(|(motion, at)| (motion, at.elapsed())),
        played: ui
            .lasted
            .or_else(|| ui.started.map(|at| at.elapsed()))
            .unwrap_or_default(),
    }
}

/// Keeps the game's time: from its start or resume on this screen to its end (the end screen
/// says how long it took), going on when a won game is played on.
fn follow_the_clock<S: Store>(session: &Session<S>, ui: &mut Ui) {
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
fn on_key<S: Store>(session: &mut Session<S>, ui: &mut Ui, key: KeyEvent) -> bool {
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
    // screen (closing the help), saves or leaves still works there.
    if ui.cramped && !matches!(c, Some('q' | 's' | '?')) {
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
        play(session, ui, Command::Move(direction));
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
        // Advice is asked for once its mark is on the screen: the first on a large board may
        // take a moment, and the screen never stays as it was before the key meanwhile.
        (_, Some('a')) => {
            ui.waiting = Some(Waiting::Advice);
            ui.mark_drawn = false;
            ui.status = if session.players_ready() {
                "Thinking ...".to_string()
            } else {
                "Thinking ... (the player is reading its network)".to_string()
            };
        }
        (_, Some('t')) => report(session, ui, Command::NewTiles(!new_tiles)),
        (_, Some('p')) => {
            ui.waiting = Some(Waiting::Autoplay);
            ui.mark_drawn = false;
            ui.status = if session.players_ready() {
                "Thinking ...: any key takes over.".to_string()
            } else {
                "Thinking ... (the player is reading its network): any key takes over.".to_string()
            };
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
fn play<S: Store>(session: &mut Session<S>, ui: &mut Ui, command: Command) {
    let before = match session.screen() {
        Screen::Game { game, .. } => *game.board(),
        _ => return,
    };
    ui.advised = None;
    for event in session.handle(command) {
        if let Event::Moved { direction, turn } = event {
            ui.status.clear();
            if !turn.moved {
                ui.status = format!("{direction}: nothing moves.");
                continue;
            }
            ui.unsaved = true;
            let after = match session.screen() {
                Screen::Game { game, .. } | Screen::End { game, .. } => *game.board(),
                _ => before,
            };
            let motion = Motion::new(&before, direction, &after, turn.score_delta);
            ui.new_tile = motion.as_ref().and_then(Motion::new_cell);
            ui.motion = motion
                .filter(|_| ui.animate)
                .map(|motion| (motion, Instant::now()));
        }
    }
}

/// Carries out a command and puts what it reports in the status line.
fn report<S: Store>(session: &mut Session<S>, ui: &mut Ui, command: Command) {
    let location = session.store().location();
    for event in session.handle(command) {
        ui.advised = None;
        ui.status = match event {
            Event::Saved { left_out: 0 } => {
                ui.unsaved = false;
                format!("Game saved to {location}.")
            }
            Event::Saved { left_out } => {
                ui.unsaved = false;
                super::saved_without(&location, left_out)
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
            Event::BestNotSaved(e) => super::best_not_saved(&e),
            Event::HistoryForgotten { kept } => super::history_forgotten(kept),
            Event::ResumedUnder(rules) => super::resumed_under(&rules),
            Event::NewTiles { on: false } => {
                "New tiles off: moves place no tile until t again.".to_string()
            }
            Event::NewTiles { on: true } => "New tiles on again.".to_string(),
            Event::Moved { .. } | Event::NotNow | Event::Goodbye => continue,
        };
    }
}

#[cfg(test)]
mod tests;
