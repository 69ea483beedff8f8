//! `--tui`: the full-screen terminal front end. Arrow keys without Enter, coloured tiles, one
//! board redrawn in place, moves in motion.
//!
//! Like the line console it decides no rule and no game flow: it maps keys to session
//! [`Command`](crate::session::Command)s (`keys`) and draws the [`Screen`] and events the
//! session reports. Drawing is split in three: [`render`] builds a [`Frame`] (the window's
//! cells) from a [`View`], a pure function that tests and the benchmark call; a [`Painter`]
//! writes what changed since the last frame; `Terminal` owns the terminal's state, restoring
//! it on every way out (quit, Ctrl-C, SIGTERM, SIGHUP, an error, a panic). This file holds
//! the loop that ties them: what wakes it (keys, signals, frames due, the autoplay's moves).

mod color;
mod diff;
mod frame;
mod glyphs;
mod keys;
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

use crate::session::{Answer, Screen, Session, Store};
use crossterm::event::{self, Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use keys::{
    MARK_AFTER, Ui, answer_at_once, answered, autoplay_move, follow_the_clock, on_key,
    taken_by_the_computer,
};
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};
use terminal::{Terminal, restore};

/// The autoplay's pace when `--delay` names none: about eight moves a second.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(120);

/// Runs `session` full-screen until `q` at the menu, the Ctrl-C key or a signal that ends a
/// program (SIGINT, SIGQUIT, SIGTERM, SIGHUP), the terminal restored in every case; returns
/// the signal that ended it, if one did (its caller exits as the signal would have). `delay`
/// is the autoplay's time between moves ([`DEFAULT_DELAY`] for the usual pace, 0 for as fast
/// as frames are drawn); `animate` slides the tiles of each move (`--no-animation` not given).
pub fn run<S: Store>(
    mut session: Session<S>,
    colors: ColorMode,
    delay: Duration,
    animate: bool,
) -> io::Result<Option<i32>> {
    let stopped_by = watch_signals()?;
    restore_on_panic();
    // crossterm drops colours itself where NO_COLOR is set; the mode chosen (`--color always`
    // overrides NO_COLOR) is the mode drawn.
    crossterm::style::force_color_output(colors != ColorMode::None);
    let mut screen = Drawn {
        terminal: Terminal::enter()?,
        painter: Painter::new(),
        size: None,
        dirty: true,
        colors,
    };
    // The players get ready from the start (reading a network takes a second, the search's
    // tables for a 5x5 board half of one), for every size the session can reach, so that the
    // first advice rarely waits; the players think on threads of their own
    // (`send_question`), so a key never waits for them, and the screen says when they take a
    // while.
    std::thread::spawn(session.warm_up());
    let mut ui = Ui {
        animate,
        delay,
        ..Ui::default()
    };
    if matches!(session.screen(), Screen::Game { .. }) {
        ui.started = Some(Instant::now());
    }
    let (wake, events) = mpsc::channel();
    read_events(wake.clone());
    while stopped_by.load(Ordering::Relaxed) == 0 {
        screen.dirty |= autoplay_move(&session, &mut ui);
        send_question(&mut session, &mut ui, &wake);
        let next_frame = before_drawing(&mut session, &mut ui, &mut screen);
        // Drawn only when something changed: an idle screen is not redrawn.
        if screen.dirty {
            ui.cramped = screen.draw(&session, &ui)?;
            screen.dirty = false;
        }
        let wait = time_to_wait(&ui, next_frame);
        match events.recv_timeout(wait) {
            Ok(Wake::Terminal(event)) => {
                screen.dirty = true;
                if !on_event(&mut session, &mut ui, &mut screen, &event)? {
                    break;
                }
            }
            Ok(Wake::Answer(number, answer)) => {
                screen.dirty |= answered(&mut session, &mut ui, number, *answer);
                follow_the_clock(&session, &mut ui);
            }
            Err(RecvTimeoutError::Timeout) => {
                if !io::stdout().is_terminal() {
                    break; // The terminal is gone.
                }
                follow_the_clock(&session, &mut ui);
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    session.close();
    drop(screen);
    let signal = stopped_by.load(Ordering::Relaxed);
    Ok((signal != 0).then(|| i32::try_from(signal).expect("a signal number")))
}

/// The terminal and what was last drawn on it.
struct Drawn {
    terminal: Terminal,
    painter: Painter,
    /// The window's size when the last frame was drawn.
    size: Option<(u16, u16)>,
    /// Something changed since the last frame: the next turn of the loop draws one.
    dirty: bool,
    colors: ColorMode,
}

/// Restores the terminal before a panic's message is printed, so that it reads as a message.
fn restore_on_panic() {
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous_hook(info);
    }));
}

/// What wakes the loop: a terminal's event, or the computer player's answer to a question
/// (with its number).
enum Wake {
    Terminal(TermEvent),
    Answer(u64, Box<Answer>),
}

/// The terminal's events, read on a thread of their own, so that the loop always wakes up to
/// see a signal (SIGTERM, SIGHUP) or a terminal that went away, even if reading would block or
/// spin (crossterm reads a closed terminal's end of input again and again).
fn read_events(wake: Sender<Wake>) {
    std::thread::spawn(move || {
        while let Ok(event) = event::read() {
            if wake.send(Wake::Terminal(event)).is_err() {
                break;
            }
        }
    });
}

/// The question the computer player is to think about, sent to a thread of its own (a thread
/// a question: one dropped by a key goes on to its end unheard, and never delays the next);
/// one the session answers at once is answered here.
fn send_question<S: Store>(session: &mut Session<S>, ui: &mut Ui, wake: &Sender<Wake>) {
    let Some(thinking) = ui.thinking.as_mut().filter(|t| !t.sent) else {
        return;
    };
    thinking.sent = true;
    let (number, ask) = (thinking.number, thinking.ask);
    let Some(question) = session.question(ask) else {
        ui.thinking = None;
        answer_at_once(session, ui, ask);
        return;
    };
    let wake = wake.clone();
    let thinker = std::thread::Builder::new().spawn(move || {
        slow_for_tests();
        let answer = question.answer();
        let _ = wake.send(Wake::Answer(number, Box::new(answer)));
    });
    if let Err(e) = thinker {
        // No thread to be had (a limit on processes): said, and the game stays the player's.
        ui.thinking = None;
        ui.autoplay = None;
        ui.status = format!("The computer cannot think now (no thread: {e}).");
    }
}

/// Under test builds only, `POWER11_TEST_THINK_MS` makes every answer take that much longer:
/// the tests' player forced to think, which shows that no key waits for it. Release builds
/// never read it.
fn slow_for_tests() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("POWER11_TEST_THINK_MS")
        .ok()
        .and_then(|ms| ms.parse::<u64>().ok())
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

/// What a turn of the loop does before it draws: the mark of a question thought about for
/// [`MARK_AFTER`], the player's note taken, the next frame of a move
/// in motion (when it is due, returned) or its end, and a window of a new size. Marks the
/// screen to be drawn where any of them changed it.
fn before_drawing<S: Store>(
    session: &mut Session<S>,
    ui: &mut Ui,
    screen: &mut Drawn,
) -> Option<Instant> {
    // A question thought about for a while is said to be.
    if let Some(thinking) = ui.thinking.as_mut()
        && !thinking.marked
        && thinking.since.elapsed() >= MARK_AFTER
    {
        thinking.marked = true;
        let reading = if session.players_ready() {
            ""
        } else {
            " (the player is reading its network)"
        };
        ui.status = match thinking.ask {
            crate::session::Ask::Move => format!("Thinking ...{reading}: any key takes over."),
            crate::session::Ask::Advice => format!("Thinking ...{reading}"),
        };
        screen.dirty = true;
    }
    if let Some(note) = session.take_note() {
        ui.note = Some(note);
        screen.dirty = true;
    }
    let mut next_frame = None;
    if let Some((_, at)) = &ui.motion {
        if let Some(next) = Motion::next_frame(at.elapsed()) {
            next_frame = Some(*at + next);
        } else {
            // The last frame: the board at rest.
            ui.motion = None;
        }
        screen.dirty = true;
    }
    // A window resized in two steps (rows, then columns) may signal once: its size is looked
    // at on every turn.
    if crossterm::terminal::size().ok() != screen.size {
        screen.dirty = true;
    }
    next_frame
}

/// How long the loop waits for a key or an answer: until the mark of a question thought about
/// is due, the autoplay's next move, or the motion's next frame, else a quarter of a second
/// (to look at the window's size and the terminal again).
fn time_to_wait(ui: &Ui, next_frame: Option<Instant>) -> Duration {
    let now = Instant::now();
    let wait = match (ui.thinking, ui.autoplay) {
        (Some(t), _) if !t.marked => (t.since + MARK_AFTER).saturating_duration_since(now),
        (None, Some(at)) => at.saturating_duration_since(now),
        // An answer wakes the loop itself.
        _ => Duration::from_millis(250),
    };
    next_frame.map_or(wait, |at| wait.min(at.saturating_duration_since(now)))
}

/// Acts on a terminal event: a key (Ctrl-C leaves, Ctrl-Z suspends, others go to the screen
/// shown); any other event (a resize) only redraws, for the new size. False to leave.
fn on_event<S: Store>(
    session: &mut Session<S>,
    ui: &mut Ui,
    screen: &mut Drawn,
    event: &TermEvent,
) -> io::Result<bool> {
    let TermEvent::Key(key) = *event else {
        return Ok(true);
    };
    if key.kind == KeyEventKind::Release {
        return Ok(true);
    }
    ui.note = None;
    // A key ends the motion of the move before it: the board it acts on is shown.
    ui.motion = None;
    let control = key.modifiers.contains(KeyModifiers::CONTROL);
    if control && key.code == KeyCode::Char('c') {
        return Ok(false);
    }
    if control && key.code == KeyCode::Char('z') {
        screen.terminal.suspend()?;
        screen.painter.forget();
        return Ok(true);
    }
    if taken_by_the_computer(ui, key.code) {
        return Ok(true);
    }
    let go_on = on_key(session, ui, key);
    follow_the_clock(session, ui);
    Ok(go_on)
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

impl Drawn {
    /// Draws the screen (what changed since the last frame); says whether the window was too
    /// small for it.
    fn draw<S: Store>(&mut self, session: &Session<S>, ui: &Ui) -> io::Result<bool> {
        self.size = crossterm::terminal::size().ok();
        // A terminal that gives no size (or 0x0, as a pseudo-terminal nobody sized) is drawn
        // for the usual 80x24 rather than for nothing.
        let (width, height) = match self.size {
            Some((width, height)) if width > 0 && height > 0 => (width, height),
            _ => (80, 24),
        };
        let frame = render(
            &view_of(session, ui, self.colors),
            usize::from(width),
            usize::from(height),
        );
        self.painter.paint(&frame, &mut self.terminal.out)?;
        self.terminal.out.flush()?;
        Ok(frame.cramped)
    }
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

#[cfg(test)]
mod tests;
