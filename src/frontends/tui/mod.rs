//! `--tui`: the full-screen terminal front end. Arrow keys without Enter, coloured tiles, one
//! board redrawn in place.
//!
//! Like the line console it decides no rule and no game flow: it maps keys to session
//! [`Command`]s and draws the [`Screen`] and events the session reports. Drawing is split in
//! two: [`render`] builds a [`Frame`] (lines of styled text) from a [`View`], a pure function
//! that tests and the benchmark call; `Terminal` writes frames with crossterm and owns the
//! terminal's state, restoring it on every way out (quit, Ctrl-C, SIGTERM, SIGHUP, an error, a
//! panic).

mod render;
mod terminal;

pub use render::{ColorMode, Frame, Span, View, render};

use crate::model::direction::Direction;
use crate::model::size::Size;
use crate::session::{Command, Event, MenuStyle, Screen, Session, Store};
use crate::text::advice_line;
use crossterm::event::{self, Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::io::{self, IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;
use terminal::{Terminal, restore};

/// What the front end keeps besides the session: the status line, the marks and modes.
// Four independent switches of what the screen shows, not the states of one machine.
#[allow(clippy::struct_excessive_bools)]
#[derive(Default)]
struct Ui {
    status: String,
    /// What the player had to say when it was first asked for a move (a weight file passed
    /// over), shown in the status line's place until the next key: on stderr, the full
    /// screen would wipe it at once.
    note: Option<String>,
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

/// Runs `session` full-screen until `q` at the menu, the Ctrl-C key or a signal that ends a
/// program (SIGINT, SIGQUIT, SIGTERM, SIGHUP), the terminal restored in every case; returns
/// the signal that ended it, if one did (its caller exits as the signal would have).
pub fn run<S: Store>(mut session: Session<S>, colors: ColorMode) -> io::Result<Option<i32>> {
    // The number of the signal that came, 0 for none. In raw mode the Ctrl-C key is a key;
    // SIGINT and SIGQUIT come from outside (`kill`), and would leave the terminal raw.
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
        note: None,
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
        if stopped_by.load(Ordering::Relaxed) != 0 {
            break;
        }
        if let Some(note) = session.take_note() {
            ui.note = Some(note);
            dirty = true;
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
            ui.note = None;
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
    let signal = stopped_by.load(Ordering::Relaxed);
    Ok((signal != 0).then(|| i32::try_from(signal).expect("a signal number")))
}

/// Draws the screen; says whether the window was too small for it.
fn draw<S: Store>(
    terminal: &mut Terminal,
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
    frame.write_to(&mut terminal.out)?;
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
        autoplay: ui.autoplay,
        help: ui.help,
        colors,
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
        ui.status = format!("Moves not saved: {key} again drops them, s saves.");
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
    use super::render::KEYS_LINE;
    use super::*;
    use crate::model::board::Board;
    use crate::model::game::Game;
    use crate::model::rules::Rules;

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
            render(&view_of(session, &ui, ColorMode::None), 100, 40).to_text()
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
        let basic = ansi(ColorMode::Basic);
        assert!(basic.contains("\u{1b}[43m"), "2048 on the basic yellow");
        assert!(!basic.contains("\u{1b}[48;"), "no palette or 24-bit colour");
        let xterm = Some("xterm-256color");
        let cases = [
            (("auto", true, Some("truecolor"), xterm), ColorMode::None),
            (("always", true, None, xterm), ColorMode::Ansi256),
            (("never", false, None, xterm), ColorMode::None),
            (
                ("auto", false, Some("24bit"), Some("vt100")),
                ColorMode::TrueColor,
            ),
            (
                ("auto", false, None, Some("tmux-256color")),
                ColorMode::Ansi256,
            ),
            (
                ("auto", false, None, Some("xterm-kitty")),
                ColorMode::Ansi256,
            ),
            (("auto", false, None, Some("xterm")), ColorMode::Basic),
            (("auto", false, None, Some("linux")), ColorMode::Basic),
            (("auto", false, None, Some("vt100")), ColorMode::None),
            (("auto", false, None, Some("vte")), ColorMode::Basic),
            (("always", false, None, Some("vt220")), ColorMode::Basic),
        ];
        for ((flag, no_color, colorterm, term), mode) in cases {
            assert_eq!(
                ColorMode::choose(flag, no_color, colorterm, term),
                mode,
                "--color {flag}, NO_COLOR {no_color}, COLORTERM {colorterm:?}, TERM {term:?}"
            );
        }
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
