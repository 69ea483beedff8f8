//! The full-screen frame: what a screen shows, as lines of styled spans, for a window of a
//! given size. Pure: tests and the benchmark call [`render`] with no terminal.

use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use crate::model::game::Game;
use crate::model::named::Named;
use crate::model::rules::Rules;
use crate::session::{MenuStyle, Screen};
use crate::text::{cell_width, end_message};
use crossterm::style::{
    Attribute, Color, Print, ResetColor, SetAttribute, SetBackgroundColor, SetForegroundColor,
};
use crossterm::{cursor, queue, terminal};
use std::io::{self, Write};

/// How colours are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ColorMode {
    /// No colour (`NO_COLOR`, `--color never`, a monochrome terminal such as a VT100): tiles
    /// are told apart by their numbers.
    None,
    /// The 8 colours every colour terminal has (`TERM=xterm`, `linux`, `screen`): each tile's
    /// colour is the nearest of a fixed table, its text black or white.
    Basic,
    /// The 256-colour palette (`TERM=xterm-256color`, `tmux-256color`, ...).
    Ansi256,
    /// 24-bit colour (`COLORTERM=truecolor`).
    TrueColor,
}

impl ColorMode {
    /// The mode for `--color` (`auto`, `always`, `never`) and the environment's conventions:
    /// `NO_COLOR`, `COLORTERM`, and what `TERM` names. `always` draws in colour even where the
    /// terminal's name says it has none (at least [`ColorMode::Basic`]).
    pub fn choose(
        flag: &str,
        no_color: bool,
        colorterm: Option<&str>,
        term: Option<&str>,
    ) -> ColorMode {
        let best = ColorMode::of_terminal(colorterm, term);
        match flag {
            "never" => ColorMode::None,
            "always" => best.max(ColorMode::Basic),
            _ if no_color => ColorMode::None,
            _ => best,
        }
    }

    /// What a terminal draws, by the conventions programs share: `COLORTERM=truecolor` (or
    /// `24bit`) for 24-bit colour; a `TERM` naming 256 colours (`*256color*`, `*-direct`) or a
    /// terminal known to have them; none for `dumb` and the VT terminals (`vt100`, `vt220`);
    /// else the 8 basic colours. Windows consoles set no `TERM` and have 256 colours.
    fn of_terminal(colorterm: Option<&str>, term: Option<&str>) -> ColorMode {
        const WITH_256: &[&str] = &[
            "alacritty",
            "foot",
            "wezterm",
            "xterm-kitty",
            "xterm-ghostty",
        ];
        if matches!(colorterm, Some("truecolor" | "24bit")) {
            return ColorMode::TrueColor;
        }
        match term {
            None if cfg!(windows) => ColorMode::Ansi256,
            Some(t)
                if t.contains("256color") || t.ends_with("-direct") || WITH_256.contains(&t) =>
            {
                ColorMode::Ansi256
            }
            Some(t) if t == "dumb" || is_vt(t) => ColorMode::None,
            _ => ColorMode::Basic,
        }
    }

    /// How a colour of the web game's palette is drawn.
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
            ColorMode::Basic => Some(nearest_basic(r, g, b)),
        }
    }

    /// A tile's text and background colours. In 8 colours the text is black or white, the one
    /// that stands out on the basic colour the background became (the web game's text colour
    /// can become that very colour).
    pub(super) fn tile(self, exponent: u8) -> (Option<Color>, Option<Color>) {
        let (background, text) = tile_colors(exponent);
        let background = self.color(background);
        let text = match (self, background) {
            (ColorMode::Basic, Some(back)) => Some(contrasting(back)),
            _ => self.color(text),
        };
        (text, background)
    }
}

/// Black or white, whichever reads on `background`, one of the 8 basic colours.
fn contrasting(background: Color) -> Color {
    match background {
        Color::Black | Color::DarkRed | Color::DarkBlue | Color::DarkMagenta => Color::White,
        _ => Color::Black,
    }
}

/// The nearest of the 8 colours every colour terminal has (as xterm draws them).
fn nearest_basic(r: u8, g: u8, b: u8) -> Color {
    const BASIC: [(Color, (i32, i32, i32)); 8] = [
        (Color::Black, (0, 0, 0)),
        (Color::DarkRed, (205, 0, 0)),
        (Color::DarkGreen, (0, 205, 0)),
        (Color::DarkYellow, (205, 205, 0)),
        (Color::DarkBlue, (0, 0, 238)),
        (Color::DarkMagenta, (205, 0, 205)),
        (Color::DarkCyan, (0, 205, 205)),
        (Color::Grey, (229, 229, 229)),
    ];
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    BASIC
        .iter()
        .min_by_key(|(_, (br, bg, bb))| (r - br).pow(2) + (g - bg).pow(2) + (b - bb).pow(2))
        .map_or(Color::Reset, |&(color, _)| color)
}

/// The plain colour code `code` (30-37 text, 40-47 background), as a command.
fn basic(code: u8) -> Print<String> {
    Print(format!("\x1b[{code}m"))
}

/// Whether `term` names a DEC VT terminal (`vt100`, `vt220`), which has no colour; `vte`
/// (GNOME's terminals) has.
fn is_vt(term: &str) -> bool {
    term.strip_prefix("vt")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The number (0 to 7) of one of the 8 basic colours, written as the plain codes (`ESC [ 3N m`,
/// `ESC [ 4N m`) every colour terminal reads; crossterm writes them as palette entries
/// (`ESC [ 38;5;N m`), which a terminal of 8 colours does not.
fn basic_code(color: Color) -> Option<u8> {
    match color {
        Color::Black => Some(0),
        Color::DarkRed => Some(1),
        Color::DarkGreen => Some(2),
        Color::DarkYellow => Some(3),
        Color::DarkBlue => Some(4),
        Color::DarkMagenta => Some(5),
        Color::DarkCyan => Some(6),
        Color::Grey | Color::White => Some(7),
        _ => None,
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
                    match basic_code(fg) {
                        Some(code) => queue!(out, basic(30 + code))?,
                        None => queue!(out, SetForegroundColor(fg))?,
                    }
                }
                if let Some(bg) = span.bg {
                    match basic_code(bg) {
                        Some(code) => queue!(out, basic(40 + code))?,
                        None => queue!(out, SetBackgroundColor(bg))?,
                    }
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
pub(super) const KEYS_LINE: &str =
    "arrows hjk udlr: move  b undo  s save  a advice  p auto  n new  ? help  q menu";

/// The frame for `view`, for a terminal of `width` x `height` characters: boards drawn three
/// lines a row where they fit, else one line a row (so every size 3 to 8 fits 80x24), else a
/// frame that says the window is too small and still shows the status line, so a question
/// (`q again drops them`) is never asked unseen.
pub fn render(view: &View<'_>, width: usize, height: usize) -> Frame {
    let roomy = render_with(view, Layout::Roomy, width);
    if roomy.width() <= width && roomy.lines.len() <= height {
        return roomy;
    }
    let compact = render_with(view, Layout::Compact, width);
    if compact.width() <= width && compact.lines.len() <= height {
        return compact;
    }
    // The board's width, and its height with the status line wrapped to that width.
    let bare = View {
        status: "",
        ..view.clone()
    };
    let wide = render_with(&bare, Layout::Compact, width).width();
    let needed = (wide, render_with(view, Layout::Compact, wide).lines.len());
    let mut small = Frame {
        cramped: true,
        ..Frame::default()
    };
    let mut text: Vec<String> = Vec::new();
    if !view.status.is_empty() {
        text.extend(wrap(&shown_status(view), width));
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

/// The frame of `view` in `layout`, its status line wrapped at `width`: a message is as long as
/// what it names (a path, a file's problem), and the window is not too small for the board
/// because of it.
fn render_with(view: &View<'_>, layout: Layout, width: usize) -> Frame {
    let mut frame = Frame::default();
    let status = wrap(&shown_status(view), width);
    match view.screen {
        Screen::Menu | Screen::Closed => render_menu(view, &status, &mut frame),
        Screen::Game { game, best } => {
            render_game(view, &status, game, best, None, layout, &mut frame);
        }
        Screen::End {
            game,
            best,
            offers_more,
        } => render_game(
            view,
            &status,
            game,
            best,
            Some(offers_more),
            layout,
            &mut frame,
        ),
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

fn render_menu(view: &View<'_>, status: &[String], frame: &mut Frame) {
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
    status_lines(status, frame);
}

/// The status line as it is drawn: a message names files and quotes what was typed, so its
/// control characters are shown in caret notation, never sent to the terminal.
fn shown_status(view: &View<'_>) -> String {
    view.status.chars().map(crate::text::visible).collect()
}

/// The status line, wrapped.
fn status_lines(status: &[String], frame: &mut Frame) {
    for line in status {
        frame.line(vec![Span::plain(line.as_str())]);
    }
}

fn render_game(
    view: &View<'_>,
    status: &[String],
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
        status_lines(status, frame);
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
                let (fg, bg) = view.colors.tile(e);
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
                    fg,
                    bg,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (review): in 8 colours the number of an 8 or a 128 was written in the code
    /// of its own background (the web game's light text and its light tile both became grey).
    #[test]
    fn in_8_colours_a_number_never_takes_its_tiles_colour() {
        for exponent in 0..=17 {
            let (fg, bg) = ColorMode::Basic.tile(exponent);
            let (fg, bg) = (fg.and_then(basic_code), bg.and_then(basic_code));
            assert!(fg.is_some() && bg.is_some(), "{exponent}");
            assert_ne!(fg, bg, "the tile of exponent {exponent}");
        }
    }
}
