//! `--tui`: the full-screen terminal front end. Arrow keys without Enter, coloured tiles, one
//! board redrawn in place.
//!
//! Like the line console it decides no rule and no game flow: it maps keys to session
//! [`Command`]s and draws the [`Screen`] and events the session reports. Drawing is split in
//! two: [`render`] builds a [`Frame`] (lines of styled text) from a [`View`], a pure function
//! that tests and the benchmark call; `Terminal` writes frames with crossterm and owns the
//! terminal's state, restoring it on every way out (quit, Ctrl-C, SIGTERM, SIGHUP, an error, a
//! panic).

use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use crate::model::game::Game;
use crate::model::named::Named;
use crate::model::rules::Rules;
use crate::model::size::Size;
use crate::session::{Command, Event, MenuStyle, Screen, Session, Store};
use crate::text::{advice_line, cell_width, end_message};
use crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::SetForegroundColor;
use crossterm::style::{Attribute, Color, Print, ResetColor, SetAttribute, SetBackgroundColor};
use crossterm::{cursor, execute, queue, terminal};
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// How colours are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorMode {
    /// No colour (`NO_COLOR`, `--color never`): tiles are told apart by their numbers.
    None,
    /// The 256-colour palette.
    Ansi256,
    /// 24-bit colour (`COLORTERM=truecolor`).
    TrueColor,
}

impl ColorMode {
    /// The mode for `--color` (`auto`, `always`, `never`) and the environment's conventions.
    pub fn choose(flag: &str, no_color: bool, colorterm: Option<&str>) -> ColorMode {
        let best = match colorterm {
            Some("truecolor" | "24bit") => ColorMode::TrueColor,
            _ => ColorMode::Ansi256,
        };
        match flag {
            "never" => ColorMode::None,
            "always" => best,
            _ if no_color => ColorMode::None,
            _ => best,
        }
    }

    fn color(self, (r, g, b): (u8, u8, u8)) -> Option<Color> {
        match self {
            ColorMode::None => None,
            ColorMode::TrueColor => Some(Color::Rgb { r, g, b }),
            ColorMode::Ansi256 => {
                // The 6x6x6 cube of the 256-colour palette.
                let level = |v: u8| (u16::from(v) * 5 + 127) / 255;
                Some(Color::AnsiValue(
                    (16 + 36 * level(r) + 6 * level(g) + level(b)) as u8,
                ))
            }
        }
    }
}

/// A piece of text in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The text (no newline).
    pub text: String,
    /// Its foreground colour, if any.
    pub fg: Option<Color>,
    /// Its background colour, if any.
    pub bg: Option<Color>,
    /// Bold.
    pub bold: bool,
}

impl Span {
    fn plain(text: impl Into<String>) -> Span {
        Span {
            text: text.into(),
            fg: None,
            bg: None,
            bold: false,
        }
    }

    fn bold(text: impl Into<String>) -> Span {
        Span {
            bold: true,
            ..Span::plain(text)
        }
    }
}

/// One screenful: lines of styled spans.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frame {
    /// The lines, top to bottom.
    pub lines: Vec<Vec<Span>>,
    /// The window was too small: the frame only says so (and game keys wait).
    pub cramped: bool,
}

impl Frame {
    fn line(&mut self, spans: Vec<Span>) {
        self.lines.push(spans);
    }

    /// The frame's text without styles (for tests and for reading it).
    pub fn to_text(&self) -> String {
        self.lines
            .iter()
            .map(|spans| spans.iter().map(|s| s.text.as_str()).collect::<String>() + "\n")
            .collect()
    }

    /// The widest line, in characters.
    pub fn width(&self) -> usize {
        self.lines
            .iter()
            .map(|spans| spans.iter().map(|s| s.text.chars().count()).sum())
            .max()
            .unwrap_or(0)
    }

    /// The frame as terminal output: each line at its row, styled.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        queue!(out, terminal::Clear(terminal::ClearType::All))?;
        for (row, spans) in self.lines.iter().enumerate() {
            queue!(out, cursor::MoveTo(0, row as u16))?;
            for span in spans {
                if let Some(fg) = span.fg {
                    queue!(out, SetForegroundColor(fg))?;
                }
                if let Some(bg) = span.bg {
                    queue!(out, SetBackgroundColor(bg))?;
                }
                if span.bold {
                    queue!(out, SetAttribute(Attribute::Bold))?;
                }
                queue!(out, Print(&span.text))?;
                if span.fg.is_some() || span.bg.is_some() || span.bold {
                    queue!(out, ResetColor, SetAttribute(Attribute::Reset))?;
                }
            }
        }
        Ok(())
    }
}

/// The colours of a tile, close to the original web game's: background and text.
fn tile_colors(exponent: u8) -> ((u8, u8, u8), (u8, u8, u8)) {
    const DARK: (u8, u8, u8) = (0x77, 0x6e, 0x65);
    const LIGHT: (u8, u8, u8) = (0xf9, 0xf6, 0xf2);
    let background = match exponent {
        0 => (0xcd, 0xc1, 0xb4),
        1 => (0xee, 0xe4, 0xda),
        2 => (0xed, 0xe0, 0xc8),
        3 => (0xf2, 0xb1, 0x79),
        4 => (0xf5, 0x95, 0x63),
        5 => (0xf6, 0x7c, 0x5f),
        6 => (0xf6, 0x5e, 0x3b),
        7 => (0xed, 0xcf, 0x72),
        8 => (0xed, 0xcc, 0x61),
        9 => (0xed, 0xc8, 0x50),
        10 => (0xed, 0xc5, 0x3f),
        11 => (0xed, 0xc2, 0x2e),
        _ => (0x3c, 0x3a, 0x32),
    };
    let text = if exponent <= 2 { DARK } else { LIGHT };
    (background, text)
}

/// Everything a frame shows.
#[derive(Clone, Debug)]
pub struct View<'a> {
    /// The session's screen.
    pub screen: Screen<'a>,
    /// The rules of new games and the menu (for the menu screen).
    pub rules: &'a Rules,
    /// The menu's style.
    pub menu: MenuStyle,
    /// The cell where the last new tile appeared, marked on the board.
    pub new_tile: Option<(usize, usize)>,
    /// The status line (messages, advice).
    pub status: &'a str,
    /// The advised direction, drawn beside the board.
    pub advised: Option<Direction>,
    /// Whether the computer is playing.
    pub autoplay: bool,
    /// Whether the key help is shown in full.
    pub help: bool,
    /// How colours are drawn.
    pub colors: ColorMode,
}

/// The key help under the board: it fits an 80-column terminal.
const KEYS_LINE: &str =
    "arrows hjk udlr: move  b undo  s save  a advice  p auto  n new  ? help  q menu";

/// The frame for `view`, for a terminal of `width` x `height` characters: boards drawn three
/// lines a row where they fit, else one line a row (so every size 3 to 8 fits 80x24), else a
/// frame that says the window is too small and still shows the status line, so a question
/// (`q again drops them`) is never asked unseen.
pub fn render(view: &View<'_>, width: usize, height: usize) -> Frame {
    let roomy = render_with(view, Layout::Roomy);
    if roomy.width() <= width && roomy.lines.len() <= height {
        return roomy;
    }
    let compact = render_with(view, Layout::Compact);
    if compact.width() <= width && compact.lines.len() <= height {
        return compact;
    }
    let needed = (compact.width(), compact.lines.len());
    let mut small = Frame {
        cramped: true,
        ..Frame::default()
    };
    let mut text: Vec<String> = Vec::new();
    if !view.status.is_empty() {
        text.extend(wrap(view.status, width));
        text.push(String::new());
    }
    text.extend([
        "Window too small:".to_string(),
        format!("needs {}x{},", needed.0, needed.1),
        format!("has {width}x{height}."),
        "Enlarge it, or q.".to_string(),
    ]);
    for line in text.into_iter().take(height.max(1)) {
        small.line(vec![Span::plain(
            line.chars().take(width.max(1)).collect::<String>(),
        )]);
    }
    small
}

/// `text` cut into lines of at most `width` characters, at blanks where it can be.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let last = lines.last_mut().expect("never empty");
        let used = last.chars().count();
        if used > 0 && used + 1 + word.chars().count() > width {
            lines.push(String::new());
        } else if used > 0 {
            last.push(' ');
        }
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > width {
            let rest = word.split_off(width);
            lines.last_mut().expect("never empty").extend(word);
            lines.push(String::new());
            word = rest;
        }
        lines.last_mut().expect("never empty").extend(word);
    }
    lines
}

/// How a board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// Three lines a row: the number on the middle one, `new` above it.
    Roomy,
    /// One line a row, the new tile marked by a `*` after its number.
    Compact,
}

fn render_with(view: &View<'_>, layout: Layout) -> Frame {
    let mut frame = Frame::default();
    match view.screen {
        Screen::Menu | Screen::Closed => render_menu(view, &mut frame),
        Screen::Game { game, best } => render_game(view, game, best, None, layout, &mut frame),
        Screen::End {
            game,
            best,
            offers_more,
        } => render_game(view, game, best, Some(offers_more), layout, &mut frame),
    }
    if view.help {
        frame.line(vec![]);
        for line in [
            "Move: arrows, h (left) j (down) k (up), or u d l r as in the line game",
            "b, Backspace: undo one move    s: save to the save file",
            "a: advice, the move and why    p: the computer plays (a key takes over)",
            "n: new game    q: the menu (both ask first if moves are unsaved)",
            "t: new tiles off / on    Ctrl-Z: suspend    Ctrl-C: leave at once",
            "?, Esc: close this help",
        ] {
            frame.line(vec![Span::plain(line)]);
        }
    }
    frame
}

fn render_menu(view: &View<'_>, frame: &mut Frame) {
    frame.line(vec![Span::bold("Power-11")]);
    frame.line(vec![]);
    match view.menu {
        MenuStyle::EasyHard => {
            frame.line(vec![Span::plain("  e - start a new Easy (5-by-5) game")]);
            frame.line(vec![Span::plain("  h - start a new Hard (4-by-4) game")]);
        }
        MenuStyle::OneSize => {
            let n = view.rules.size();
            frame.line(vec![Span::plain(format!(
                "  n - start a new {n}-by-{n} game ({})",
                view.rules.variant().name()
            ))]);
        }
    }
    frame.line(vec![Span::plain("  r - Resume the last saved game")]);
    frame.line(vec![Span::plain("  q - Quit the game")]);
    frame.line(vec![]);
    frame.line(vec![Span::plain(view.status)]);
}

fn render_game(
    view: &View<'_>,
    game: &Game,
    best: i128,
    end: Option<bool>,
    layout: Layout,
    frame: &mut Frame,
) {
    let rules = game.rules();
    let n = game.board().size();
    let goal = rules
        .goal()
        .map_or("no goal".to_string(), |g| format!("goal {}", tile_value(g)));
    frame.line(vec![
        Span::bold("Power-11"),
        Span::plain(format!("  {} {n}x{n}, {goal}", rules.variant().name())),
        Span::plain(if view.autoplay {
            "   [computer playing]"
        } else {
            ""
        }),
    ]);
    let tiles = if game.new_tiles() {
        ""
    } else {
        "   New tiles off"
    };
    frame.line(vec![Span::plain(format!(
        "Score {}   Best {best}   Moves {}{tiles}",
        game.score(),
        game.undo_depth()
    ))]);
    render_board(view, game.board(), layout, frame);
    if let Some(offers_more) = end {
        let message = end_message(game.status(), game.score()).unwrap_or_default();
        frame.line(vec![Span::bold(message)]);
        frame.line(vec![Span::plain(if offers_more {
            "k - keep playing, n - start a new game, any other key - back to the menu"
        } else {
            "Press any key to return to the menu."
        })]);
    } else {
        frame.line(vec![Span::plain(view.status)]);
        frame.line(vec![Span::plain(KEYS_LINE)]);
    }
}

fn render_board(view: &View<'_>, board: &Board, layout: Layout, frame: &mut Frame) {
    let n = board.size();
    // The line game's cell width, and a blank on each side of the number.
    let width = cell_width(board) + 2;
    let arrow = view.advised.map(|d| match d {
        Direction::Up => "  ^ advised",
        Direction::Down => "  v advised",
        Direction::Left => "  < advised",
        Direction::Right => "  > advised",
    });
    let subs: &[usize] = match layout {
        Layout::Roomy => &[0, 1, 2],
        Layout::Compact => &[1],
    };
    for r in 0..n {
        for &sub in subs {
            let mut spans = vec![Span::plain(" ")];
            for c in 0..n {
                let e = board.get(r, c);
                let (bg, fg) = tile_colors(e);
                let marked = view.new_tile == Some((r, c));
                let text = match (sub, e) {
                    (1, 0) => format!("{:^width$}", "."),
                    (1, _) if marked && layout == Layout::Compact => {
                        // The number keeps its place; the `*` takes the blank after it.
                        let mut cell = format!("{:^width$}", tile_value(e));
                        let end = cell.trim_end().len();
                        cell.replace_range(end..=end, "*");
                        cell
                    }
                    (1, _) => format!("{:^width$}", tile_value(e)),
                    (0, _) if marked => format!("{:^width$}", "new"),
                    _ => " ".repeat(width),
                };
                spans.push(Span {
                    text,
                    fg: view.colors.color(fg),
                    bg: view.colors.color(bg),
                    bold: e > 0 && sub == 1,
                });
                spans.push(Span::plain(" "));
            }
            if r == n / 2
                && sub == 1
                && let Some(arrow) = arrow
            {
                spans.push(Span::bold(arrow));
            }
            frame.line(spans);
        }
    }
}

/// The terminal in full-screen mode: raw input, the alternate screen, no cursor. Dropping it
/// restores the terminal, so every way out of [`run`] does.
struct Terminal {
    out: io::Stdout,
}

impl Terminal {
    fn enter() -> io::Result<Terminal> {
        terminal::enable_raw_mode()?;
        let mut out = io::stdout();
        if let Err(e) = execute!(out, terminal::EnterAlternateScreen, cursor::Hide) {
            let _ = terminal::disable_raw_mode();
            return Err(e);
        }
        Ok(Terminal { out })
    }

    /// Ctrl-Z: gives the terminal back to the shell as it was and stops the program (as the
    /// terminal's own Ctrl-Z does outside raw mode); after `fg`, takes the screen again. Where
    /// nothing can stop it (no job control), it goes on at once, as `less` and `vim` do.
    fn suspend(&mut self) -> io::Result<()> {
        let _ = self.out.flush();
        restore();
        #[cfg(unix)]
        // SAFETY: raise only sends a signal to this process; SIGTSTP's default action stops it.
        unsafe {
            libc::raise(libc::SIGTSTP);
        }
        terminal::enable_raw_mode()?;
        execute!(self.out, terminal::EnterAlternateScreen, cursor::Hide)
    }
}

/// Restores the terminal (cursor shown, alternate screen left, raw mode off).
fn restore() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        ResetColor,
        cursor::Show,
        terminal::LeaveAlternateScreen
    );
    let _ = terminal::disable_raw_mode();
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.out.flush();
        restore();
    }
}

/// What the front end keeps besides the session: the status line, the marks and modes.
// Four independent switches of what the screen shows, not the states of one machine.
#[allow(clippy::struct_excessive_bools)]
#[derive(Default)]
struct Ui {
    status: String,
    new_tile: Option<(usize, usize)>,
    advised: Option<Direction>,
    autoplay: bool,
    help: bool,
    /// Moves were made since the game was saved (or started).
    unsaved: bool,
    /// The key (`q` or `n`) pressed once with unsaved moves, which a second press confirms.
    pending: Option<char>,
    /// The last frame said the window is too small: game keys wait.
    cramped: bool,
}

/// Runs `session` full-screen until `q` at the menu, Ctrl-C, SIGTERM or SIGHUP.
pub fn run<S: Store>(mut session: Session<S>, colors: ColorMode) -> io::Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGHUP] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous_hook(info);
    }));
    // crossterm drops colours itself where NO_COLOR is set; the mode chosen (`--color always`
    // overrides NO_COLOR) is the mode drawn.
    crossterm::style::force_color_output(colors != ColorMode::None);
    let mut terminal = Terminal::enter()?;
    let mut ui = Ui {
        status: String::new(),
        new_tile: None,
        advised: None,
        autoplay: false,
        help: false,
        unsaved: false,
        pending: None,
        cramped: false,
    };
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
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        // Drawn only when something changed: an idle screen is not redrawn, so it never flickers.
        if dirty {
            ui.cramped = draw(&mut terminal, &session, &ui, colors)?;
            dirty = false;
        }
        let pace = if ui.autoplay {
            Duration::from_millis(120)
        } else {
            Duration::from_millis(250)
        };
        let event = match events.recv_timeout(pace) {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => {
                if !io::stdout().is_terminal() {
                    break; // The terminal is gone.
                }
                if ui.autoplay {
                    if let Screen::Game { .. } = session.screen() {
                        play(&mut session, &mut ui, Command::ComputerMove);
                    } else {
                        ui.autoplay = false;
                    }
                    dirty = true;
                }
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        dirty = true;
        if let TermEvent::Key(key) = event
            && key.kind != KeyEventKind::Release
        {
            if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
                break;
            }
            if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('z') {
                terminal.suspend()?;
                continue;
            }
            if ui.autoplay {
                ui.autoplay = false;
                ui.status = "You have the game back.".to_string();
                continue;
            }
            if !on_key(&mut session, &mut ui, key) {
                break;
            }
        }
        // Any other event (a resize) only redraws, for the new size.
    }
    session.close();
    drop(terminal);
    Ok(())
}

/// Draws the screen; says whether the window was too small for it.
fn draw<S: Store>(
    terminal: &mut Terminal,
    session: &Session<S>,
    ui: &Ui,
    colors: ColorMode,
) -> io::Result<bool> {
    let (width, height) = terminal::size().unwrap_or((80, 24));
    let view = View {
        screen: session.screen(),
        rules: session.rules(),
        menu: session.menu(),
        new_tile: ui.new_tile,
        status: &ui.status,
        advised: ui.advised,
        autoplay: ui.autoplay,
        help: ui.help,
        colors,
    };
    let frame = render(&view, usize::from(width), usize::from(height));
    frame.write_to(&mut terminal.out)?;
    terminal.out.flush()?;
    Ok(frame.cramped)
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
        ui.status = format!("Moves not saved: {key} again drops them, s saves.");
        return true;
    }
    match session.screen() {
        Screen::Menu => {
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
                ui.unsaved = false;
                report(session, ui, command);
            }
        }
        Screen::End {
            game, offers_more, ..
        } => {
            let size = game.board().side();
            let command = match c {
                Some('k') if offers_more => Command::KeepPlaying,
                Some('n') if offers_more => Command::NewGame(size),
                _ => Command::Leave,
            };
            ui.status.clear();
            report(session, ui, command);
        }
        Screen::Game { game, .. } => {
            let direction = match key.code {
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
            };
            if let Some(direction) = direction {
                play(session, ui, Command::Move(direction));
                return true;
            }
            let size = game.board().side();
            let new_tiles = game.new_tiles();
            match (key.code, c) {
                (KeyCode::Backspace, _) | (_, Some('b')) => {
                    ui.status.clear();
                    ui.new_tile = None;
                    report(session, ui, Command::Undo);
                }
                (_, Some('s')) => {
                    report(session, ui, Command::Save);
                }
                (_, Some('a')) => report(session, ui, Command::Advice),
                (_, Some('t')) => report(session, ui, Command::NewTiles(!new_tiles)),
                (_, Some('p')) => {
                    ui.autoplay = true;
                    ui.status = "The computer plays: any key takes over.".to_string();
                }
                (_, Some('n')) => {
                    report(session, ui, Command::Leave);
                    report(session, ui, Command::NewGame(size));
                    ui.status.clear();
                    ui.help = false;
                    ui.new_tile = None;
                    ui.unsaved = false;
                }
                (_, Some('?')) => ui.help = !ui.help,
                (_, Some('q')) => {
                    ui.status.clear();
                    ui.help = false;
                    ui.new_tile = None;
                    report(session, ui, Command::Leave);
                }
                _ => {
                    ui.status = "Unknown key: press ? for help.".to_string();
                }
            }
        }
        Screen::Closed => return false,
    }
    true
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
            ui.new_tile = before.slide(direction).and_then(|(slid, _)| {
                let n = slid.size();
                (0..n * n)
                    .map(|i| (i / n, i % n))
                    .find(|&(r, c)| slid.get(r, c) == 0 && after.get(r, c) != 0)
            });
        }
    }
}

/// Carries out a command and puts what it reports in the status line.
fn report<S: Store>(session: &mut Session<S>, ui: &mut Ui, command: Command) {
    let location = session.store().location();
    for event in session.handle(command) {
        ui.advised = None;
        ui.status = match event {
            Event::Saved => {
                ui.unsaved = false;
                format!("Game saved to {location}.")
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
            Event::BestNotSaved(e) => format!("Could not save the best score: {e}"),
            Event::NewTiles { on: false } => {
                "New tiles off: moves place no tile until t again.".to_string()
            }
            Event::NewTiles { on: true } => "New tiles on again.".to_string(),
            Event::Moved { .. } | Event::NotNow | Event::Goodbye => continue,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::game::Game;

    fn game(rows: &[Vec<u64>], rules: Rules) -> Game {
        Game::from_board(rules, Board::from_values(rows).unwrap())
    }

    fn view<'a>(screen: Screen<'a>, rules: &'a Rules, colors: ColorMode) -> View<'a> {
        View {
            screen,
            rules,
            menu: MenuStyle::OneSize,
            new_tile: None,
            status: "",
            advised: None,
            autoplay: false,
            help: false,
            colors,
        }
    }

    /// The game screen of `g` without colour, for a `width` x `height` terminal.
    fn render_plain_game(g: &Game, rules: &Rules, width: usize, height: usize) -> Frame {
        let screen = Screen::Game { game: g, best: 0 };
        render(&view(screen, rules, ColorMode::None), width, height)
    }

    #[test]
    fn the_3x3_game_screen_without_colour() {
        let rules = Rules::mini();
        let g = game(&[vec![2, 0, 4], vec![0, 8, 0], vec![0, 0, 2]], rules);
        let mut v = view(Screen::Game { game: &g, best: 12 }, &rules, ColorMode::None);
        v.new_tile = Some((2, 2));
        v.status = "Game saved to power11.saved.";
        // Each cell is 6 wide (4 digits + 2), centred, with a blank between cells.
        let expected = [
            "Power-11  mini 3x3, goal 512",
            "Score 0   Best 12   Moves 0",
            "                      ",
            "   2      .      4    ",
            "                      ",
            "                      ",
            "   .      8      .    ",
            "                      ",
            "                new   ",
            "   .      .      2    ",
            "                      ",
            "Game saved to power11.saved.",
            KEYS_LINE,
        ]
        .map(|line| format!("{line}\n"))
        .concat();
        assert_eq!(render(&v, 100, 30).to_text(), expected);
    }

    #[test]
    fn t_switches_new_tiles_off_and_on_and_the_screen_says_so() {
        use crate::model::game::{Snapshot, Timeline};
        use crate::model::random::seeded;
        use crate::players::{AnyPlayer, RandomPlayer};
        use crate::session::{MemoryStore, Settings};
        let rules = Rules::mini();
        let mut session = Session::new(
            Settings {
                rules,
                menu: MenuStyle::OneSize,
            },
            seeded(1),
            MemoryStore::new(),
            AnyPlayer::Random(RandomPlayer),
        );
        let board = Board::from_values(&[vec![128, 64, 64], vec![32, 256, 128], vec![0; 3]]);
        session.start_from(Timeline::new(Snapshot {
            board: board.unwrap(),
            score: 0,
        }));
        let mut ui = Ui::default();
        let mut press = |session: &mut Session<MemoryStore>, c: char| {
            assert!(on_key(
                session,
                &mut ui,
                KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
            ));
            let view = View {
                screen: session.screen(),
                rules: session.rules(),
                menu: session.menu(),
                new_tile: ui.new_tile,
                status: &ui.status,
                advised: ui.advised,
                autoplay: ui.autoplay,
                help: ui.help,
                colors: ColorMode::None,
            };
            render(&view, 100, 40).to_text()
        };
        // The board's nine lines (the marks of a new tile are on the first of each cell's three).
        let board = |screen: &str| -> String {
            screen
                .lines()
                .skip(2)
                .take(9)
                .collect::<Vec<_>>()
                .join("\n")
        };
        let screen = press(&mut session, 't');
        assert!(
            screen.contains("\nScore 0   Best 0   Moves 0   New tiles off\n"),
            "{screen}"
        );
        assert!(screen.contains("\nNew tiles off: moves place no tile until t again.\n"));
        // Left: the slide alone, no new tile (and none marked).
        let screen = press(&mut session, 'l');
        assert_eq!(
            board(&screen),
            [
                "                      ",
                "  128    128     .    ",
                "                      ",
                "                      ",
                "   32    256    128   ",
                "                      ",
                "                      ",
                "   .      .      .    ",
                "                      ",
            ]
            .join("\n"),
            "{screen}"
        );
        assert!(
            screen.contains("\nScore 128   Best 128   Moves 1   New tiles off\n"),
            "{screen}"
        );
        // The help names the key; t again turns new tiles back on.
        assert!(press(&mut session, '?').contains("\nt: new tiles off / on    Ctrl-Z: suspend"));
        let screen = press(&mut session, 't');
        assert!(
            screen.contains("\nScore 128   Best 128   Moves 1\n"),
            "{screen}"
        );
        assert!(screen.contains("\nNew tiles on again.\n"), "{screen}");
        let screen = press(&mut session, 'l');
        assert!(
            board(&screen).contains("new"),
            "a new tile, marked: {screen}"
        );
    }

    #[test]
    fn colours_follow_the_mode() {
        let rules = Rules::classic();
        let g = game(
            &[
                vec![2048, 0, 0, 0],
                vec![0; 4],
                vec![0; 4],
                vec![0, 0, 0, 2],
            ],
            rules,
        );
        let screen = Screen::Game { game: &g, best: 0 };
        let ansi = |mode| {
            let mut out = Vec::new();
            render(&view(screen, &rules, mode), 100, 30)
                .write_to(&mut out)
                .unwrap();
            String::from_utf8(out).unwrap()
        };
        // 2048's background, #edc22e, in 24-bit colour.
        assert!(ansi(ColorMode::TrueColor).contains("\u{1b}[48;2;237;194;46m"));
        assert!(ansi(ColorMode::Ansi256).contains("\u{1b}[48;5;"));
        assert!(!ansi(ColorMode::None).contains("\u{1b}[48;"));
        assert_eq!(
            ColorMode::choose("auto", true, Some("truecolor")),
            ColorMode::None
        );
        assert_eq!(ColorMode::choose("always", true, None), ColorMode::Ansi256);
        assert_eq!(ColorMode::choose("never", false, None), ColorMode::None);
        assert_eq!(
            ColorMode::choose("auto", false, Some("24bit")),
            ColorMode::TrueColor
        );
    }

    #[test]
    fn an_8x8_board_and_a_six_digit_tile_widen_the_screen() {
        let rules = Rules::classic().with_size(8).unwrap();
        let mut rows = vec![vec![0u64; 8]; 8];
        rows[0][0] = 131_072;
        let g = game(&rows, rules);
        let frame = render_plain_game(&g, &rules, 200, 60);
        let text = frame.to_text();
        // Cells are 8 wide (6 digits + 2) and 8 of them, each followed by a blank.
        assert!(text.contains("\n  131072  "), "{text}");
        assert_eq!(
            frame.lines[3]
                .iter()
                .map(|s| s.text.chars().count())
                .sum::<usize>(),
            1 + 8 * 9
        );
        // In a window too small for it, the screen says so.
        let small = render_plain_game(&g, &rules, 40, 20);
        assert!(small.cramped);
        // It needs the compact layout's size: the key line's width, a line a board row.
        assert_eq!(
            small.to_text(),
            "Window too small:\nneeds 78x12,\nhas 40x20.\nEnlarge it, or q.\n"
        );
        // Every screen of a 4x4 game, key help shown, fits an 80x24 terminal.
        let rules = Rules::classic();
        let g = game(
            &[vec![2048, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
            rules,
        );
        let mut v = view(Screen::Game { game: &g, best: 1 }, &rules, ColorMode::None);
        v.help = true;
        assert!(
            !render(&v, 80, 24).cramped,
            "{}",
            render(&v, 200, 60).to_text()
        );
    }

    /// Hostile-user item 9: every size, with six-digit tiles and the help shown, fits 80x24
    /// (7x7 and 8x8 in the compact layout, a line a row, the new tile marked with a `*`).
    #[test]
    fn every_size_fits_80x24_compact_where_it_must() {
        for n in 3..=8 {
            let rules = Rules::classic().with_size(n).unwrap();
            let mut rows = vec![vec![2u64; n]; n];
            rows[0][0] = 131_072;
            let g = game(&rows, rules);
            let mut v = view(Screen::Game { game: &g, best: 1 }, &rules, ColorMode::None);
            v.new_tile = Some((n - 1, n - 1));
            v.status = "Game saved to power11.saved.";
            for help in [false, true] {
                v.help = help;
                let frame = render(&v, 80, 24);
                assert!(!frame.cramped, "{n}x{n}: {}", render(&v, 200, 60).to_text());
                let compact = frame.lines.len() < 3 * n + 4;
                assert_eq!(compact, n >= 7 || (help && n >= 5), "{n}x{n}, help {help}");
                if compact {
                    assert!(frame.to_text().contains(" 2*"), "{}", frame.to_text());
                }
            }
        }
    }

    /// Hostile-user items 6 and 7: a window too small still shows the status line (a question
    /// is never asked unseen), wrapped to the window, and the frame never outgrows it.
    #[test]
    fn a_cramped_frame_keeps_the_status_line() {
        let rules = Rules::power11(4).unwrap();
        let g = game(
            &[vec![2, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
            rules,
        );
        let mut v = view(Screen::Game { game: &g, best: 8 }, &rules, ColorMode::None);
        v.status = "Moves not saved: q again drops them, s saves.";
        let frame = render(&v, 30, 10);
        assert!(frame.cramped);
        assert_eq!(
            frame.to_text(),
            "Moves not saved: q again drops\nthem, s saves.\n\nWindow too small:\nneeds 78x8,\nhas 30x10.\nEnlarge it, or q.\n"
        );
        let tiny = render(&v, 12, 3);
        assert!(
            tiny.width() <= 12 && tiny.lines.len() <= 3,
            "{}",
            tiny.to_text()
        );
        assert!(tiny.to_text().starts_with("Moves not\n"));
    }

    /// Hostile-user item 12: the Power-11 game shows its best score full-screen.
    #[test]
    fn power11_games_show_their_best_score() {
        let rules = Rules::power11(4).unwrap();
        let g = game(
            &[vec![2, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
            rules,
        );
        let text = render_plain_game_with_best(&g, &rules, 96);
        assert!(text.contains("Score 0   Best 96   Moves 0"), "{text}");
    }

    fn render_plain_game_with_best(g: &Game, rules: &Rules, best: i128) -> String {
        let screen = Screen::Game { game: g, best };
        render(&view(screen, rules, ColorMode::None), 100, 30).to_text()
    }

    #[test]
    fn the_end_screens_say_what_the_line_game_says() {
        let rules = Rules::power11(3).unwrap();
        let lost = game(&[vec![2, 4, 2], vec![4, 2, 4], vec![2, 4, 2]], rules);
        let text = render(
            &view(
                Screen::End {
                    game: &lost,
                    best: 0,
                    offers_more: false,
                },
                &rules,
                ColorMode::None,
            ),
            100,
            30,
        )
        .to_text();
        assert!(
            text.ends_with("YOU LOST!\nPress any key to return to the menu.\n"),
            "{text}"
        );
        let rules = Rules::classic();
        let won = game(
            &[vec![2048, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
            rules,
        );
        let text = render(
            &view(
                Screen::End {
                    game: &won,
                    best: 0,
                    offers_more: true,
                },
                &rules,
                ColorMode::None,
            ),
            100,
            30,
        )
        .to_text();
        assert!(text.contains("YOU WON WITH A SCORE OF 0\nk - keep playing, n - start a new game"));
    }
}
