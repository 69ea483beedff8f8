//! The full-screen frame: what a screen shows, as lines of styled spans, for a window of a
//! given size. Pure: tests and the benchmark call [`render`] with no terminal.

use super::palette::{ColorMode, basic_code};
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
use std::fmt::Write as _;
use std::io::{self, Write};

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
    /// The lines that draw the board (their first and one past their last), centred as one
    /// block: the advice's arrow beside the middle row does not move it.
    pub board: (usize, usize),
    /// The column and row of its top left corner in the window (it is drawn centred).
    pub left: usize,
    /// See `left`.
    pub top: usize,
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
            let at = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
            queue!(out, cursor::MoveTo(at(self.left), at(self.top + row)))?;
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
    /// Whether the game counts for the best score (a person played every move from a normal
    /// start); the score line says so when it does not.
    pub counted: bool,
    /// Whether the key help is shown in full.
    pub help: bool,
    /// How colours are drawn.
    pub colors: ColorMode,
}

/// The plain colour code `code` (30-37 text, 40-47 background), as a command.
fn basic(code: u8) -> Print<String> {
    Print(format!("\x1b[{code}m"))
}

/// The key help under the board, the longest that fits the window: every key where 80
/// columns are, fewer where not (`?` shows them all).
pub(super) const KEY_LINES: [&str; 3] = [
    "arrows hjk udlr: move  b undo  s save  a advice  p auto  n new  ? help  q menu",
    "arrows: move  b undo  s save  a advice  p auto  ? keys  q menu",
    "arrows: move  b undo  ? keys  q menu",
];

/// How a board is drawn: each tile `width` columns by `height` lines, `gap` columns of the
/// terminal's own background between tiles and `gap_lines` lines between rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    width: usize,
    height: usize,
    gap: usize,
    gap_lines: usize,
}

/// The layouts tried for `board`, largest first: tiles of about the web game's square shape
/// (a terminal's character is about twice as tall as wide), then a line a tile with a gap line
/// between rows, then without one. A tile is always wide enough for the board's widest number
/// with a blank on each side.
fn layouts(board: &Board) -> impl Iterator<Item = Layout> {
    let least = cell_width(board) + 2;
    [
        (15, 7, 2, 1),
        (13, 6, 2, 1),
        (11, 5, 2, 1),
        (9, 4, 2, 1),
        (7, 3, 2, 1),
        (0, 1, 1, 1),
        (0, 1, 1, 0),
    ]
    .into_iter()
    .map(move |(width, height, gap, gap_lines)| Layout {
        width: least.max(width),
        height,
        gap,
        gap_lines,
    })
}

/// The frame for `view`, for a terminal of `width` x `height` characters: the largest layout
/// that fits, centred, else a frame that says the window is too small and still shows the
/// status line, so a question (`q again leaves ...`) is never asked unseen.
pub fn render(view: &View<'_>, width: usize, height: usize) -> Frame {
    let board = match view.screen {
        Screen::Game { game, .. } | Screen::End { game, .. } => Some(*game.board()),
        Screen::Menu | Screen::Closed => None,
    };
    let tried: Vec<Layout> = board.as_ref().map_or_else(
        || {
            vec![Layout {
                width: 0,
                height: 1,
                gap: 1,
                gap_lines: 0,
            }]
        },
        |board| layouts(board).collect(),
    );
    // Room for the status lines a message takes (two below 80 columns, where advice wraps) is
    // kept whether or not one shows, so that a message does not make the board jump to a
    // smaller layout and back.
    let in_game = board.is_some();
    let status = wrap(&shown_status(view), width).len();
    let wanted: usize = if width < 80 { 2 } else { 1 };
    let reserve = if in_game {
        wanted.saturating_sub(status)
    } else {
        0
    };
    for &layout in &tried {
        for keys in KEY_LINES {
            let mut frame = render_with(view, layout, keys, width);
            if frame.width() <= width && frame.lines.len() + reserve <= height {
                centre_board(&mut frame);
                frame.left = (width - frame.width()) / 2;
                frame.top = (height - frame.lines.len()) / 2;
                return frame;
            }
        }
    }
    // The help alone, where it does not fit beside the board: it is what was asked for.
    if view.help && in_game {
        let mut frame = Frame::default();
        frame.line(vec![Span::bold("Power-11 keys")]);
        frame.line(vec![]);
        help_lines(&mut frame);
        if frame.width() <= width && frame.lines.len() <= height {
            frame.left = (width - frame.width()) / 2;
            frame.top = (height - frame.lines.len()) / 2;
            return frame;
        }
    }
    too_small(view, *tried.last().expect("a layout"), width, height)
}

/// The key help, each line at most 40 columns.
fn help_lines(frame: &mut Frame) {
    for line in [
        "arrows, h j k, u d l r: move (l: left)",
        "b, Backspace: undo     s: save",
        "a: advice     p: computer plays (+ -)",
        "n: new game   t: new tiles off / on",
        "q: menu   Ctrl-Z: suspend   Ctrl-C: quit",
        "?, Esc: close this help",
    ] {
        frame.line(vec![Span::plain(line)]);
    }
}

/// The board's lines centred in the frame's width, as one block (its widest line, the middle
/// row with the advice's arrow, sets the block's width); the text around it stays at the
/// frame's left edge.
fn centre_board(frame: &mut Frame) {
    let width = frame.width();
    let line_width = |spans: &[Span]| spans.iter().map(|s| s.text.chars().count()).sum::<usize>();
    let (first, end) = frame.board;
    let board = frame.lines[first..end]
        .iter()
        .map(|spans| line_width(spans))
        .max()
        .unwrap_or(0);
    let shift = width.saturating_sub(board) / 2;
    if shift == 0 {
        return;
    }
    for spans in &mut frame.lines[first..end] {
        if !spans.is_empty() {
            spans.insert(0, Span::plain(" ".repeat(shift)));
        }
    }
}

/// The frame of a window too small for `view` even in `smallest`: the status line, then what
/// the screen needs.
fn too_small(view: &View<'_>, smallest: Layout, width: usize, height: usize) -> Frame {
    let keys = KEY_LINES[KEY_LINES.len() - 1];
    // The board's width, and its height with the status line wrapped to that width.
    let bare = View {
        status: "",
        ..view.clone()
    };
    let wide = render_with(&bare, smallest, keys, width).width();
    let lines = render_with(view, smallest, keys, wide).lines.len();
    let status = wrap(&shown_status(view), wide).len();
    let wanted: usize = if wide < 80 { 2 } else { 1 };
    let needed = (wide, lines + wanted.saturating_sub(status));
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

/// `parts` on one line, as far apart as `width` lets them be (three blanks, two, one), or on
/// as many lines as they need.
fn spread(parts: &[&str], width: usize) -> Vec<String> {
    for gap in ["   ", "  ", " "] {
        let line = parts.join(gap);
        if line.chars().count() <= width {
            return vec![line];
        }
    }
    let mut lines = vec![String::new()];
    for part in parts {
        let last = lines.last_mut().expect("never empty");
        let used = last.chars().count();
        if used > 0 && used + 3 + part.chars().count() > width {
            lines.push((*part).to_string());
        } else {
            if used > 0 {
                last.push_str("   ");
            }
            last.push_str(part);
        }
    }
    lines
}

/// The frame of `view` with its board in `layout` and `keys` as its key line, its status line
/// wrapped at `width`: a message is as long as what it names (a path, a file's problem), and
/// the window is not too small for the board because of it.
fn render_with(view: &View<'_>, layout: Layout, keys: &str, width: usize) -> Frame {
    let mut frame = Frame::default();
    let status = wrap(&shown_status(view), width);
    match view.screen {
        Screen::Menu | Screen::Closed => render_menu(view, &status, &mut frame),
        Screen::Game { game, best } => {
            let parts = (layout, keys, width);
            render_game(view, &status, game, best, None, parts, &mut frame);
        }
        Screen::End {
            game,
            best,
            offers_more,
        } => {
            let parts = (layout, keys, width);
            render_game(
                view,
                &status,
                game,
                best,
                Some(offers_more),
                parts,
                &mut frame,
            );
        }
    }
    if view.help {
        frame.line(vec![]);
        help_lines(&mut frame);
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

/// The game's title: Power-11 and, for other rules, their name, then the board and the goal
/// (the rule set named once).
fn title(rules: &Rules, n: usize) -> String {
    let goal = rules
        .goal()
        .map_or("no goal".to_string(), |g| format!("goal {}", tile_value(g)));
    let name = rules.variant().name();
    if name == "power11" {
        format!("  {n}x{n}, {goal}")
    } else {
        format!("  {name} {n}x{n}, {goal}")
    }
}

fn render_game(
    view: &View<'_>,
    status: &[String],
    game: &Game,
    best: i128,
    end: Option<bool>,
    (layout, keys, width): (Layout, &str, usize),
    frame: &mut Frame,
) {
    let rules = game.rules();
    let n = game.board().size();
    frame.line(vec![
        Span::bold("Power-11"),
        Span::plain(title(rules, n)),
        Span::plain(if view.autoplay { "  [computer]" } else { "" }),
    ]);
    let (score, best, moves) = (
        format!("Score {}", game.score()),
        format!("Best {best}"),
        format!("Moves {}", game.undo_depth()),
    );
    let mut parts = vec![score.as_str(), best.as_str()];
    if !view.counted {
        parts.push("(not counted)");
    }
    parts.push(moves.as_str());
    if !game.new_tiles() {
        parts.push("New tiles off");
    }
    for line in spread(&parts, width) {
        frame.line(vec![Span::plain(line)]);
    }
    // A blank line under the score, but where tiles are a line high and every line counts.
    if layout.height > 1 {
        frame.line(vec![]);
    }
    let first = frame.lines.len();
    render_board(view, game.board(), layout, frame);
    frame.board = (first, frame.lines.len());
    if let Some(offers_more) = end {
        let message = end_message(game.status(), game.score()).unwrap_or_default();
        frame.line(vec![Span::bold(message)]);
        frame.line(vec![Span::plain(if offers_more {
            "k - keep playing, n - new game, Enter - the menu"
        } else {
            "Enter (or any key but a move) - the menu"
        })]);
    } else {
        status_lines(status, frame);
        frame.line(vec![Span::plain(keys)]);
    }
}

fn render_board(view: &View<'_>, board: &Board, layout: Layout, frame: &mut Frame) {
    let n = board.size();
    let width = layout.width;
    let middle = layout.height / 2;
    // The advised direction beside the middle row, its place kept when there is none, so the
    // board does not move when advice comes.
    let arrow = match view.advised {
        Some(Direction::Up) => "  ^",
        Some(Direction::Down) => "  v",
        Some(Direction::Left) => "  <",
        Some(Direction::Right) => "  >",
        None => "   ",
    };
    for r in 0..n {
        if r > 0 {
            for _ in 0..layout.gap_lines {
                frame.line(vec![]);
            }
        }
        for sub in 0..layout.height {
            let mut spans = Vec::with_capacity(2 * n + 1);
            for c in 0..n {
                if c > 0 {
                    spans.push(Span::plain(" ".repeat(layout.gap)));
                }
                let e = board.get(r, c);
                let style = view.colors.tile(e);
                let marked = view.new_tile == Some((r, c));
                let mut text = String::with_capacity(width);
                match (sub == middle, e) {
                    // Empty cells are blank blocks; without colour a dot shows where they are.
                    (true, 0) if view.colors == ColorMode::None => {
                        let _ = write!(text, "{:^width$}", ".");
                    }
                    (true, 0) => text.push_str(&" ".repeat(width)),
                    (true, _) if marked && layout.height == 1 => {
                        // The number keeps its place; the `*` takes the blank after it.
                        let _ = write!(text, "{:^width$}", tile_value(e));
                        let end = text.trim_end().len();
                        text.replace_range(end..=end, "*");
                    }
                    (true, _) => {
                        let _ = write!(text, "{:^width$}", tile_value(e));
                    }
                    (false, _) if marked && sub + 1 == middle => {
                        let _ = write!(text, "{:^width$}", "new");
                    }
                    (false, _) => text.push_str(&" ".repeat(width)),
                }
                spans.push(Span {
                    text,
                    fg: style.fg,
                    bg: style.bg,
                    bold: style.bold && sub == middle,
                });
            }
            if r == n / 2 && sub == middle {
                spans.push(Span::bold(arrow));
            }
            frame.line(spans);
        }
    }
}
