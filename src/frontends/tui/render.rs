//! The full-screen frame: what a screen shows, cell by cell, for a window of a given size.
//! Pure: tests and the benchmark call [`render`] with no terminal; [`Painter`](super::Painter)
//! writes the cells that changed.

use super::frame::{Frame, Style};
use super::layout::{Layout, MESSAGE_LINES, game_layout, least_window};
use super::motion::Motion;
use super::palette::ColorMode;
use super::tiles::{Marks, draw_board};
use crate::model::board::tile_value;
use crate::model::direction::Direction;
use crate::model::game::Game;
use crate::model::named::Named;
use crate::model::rules::Rules;
use crate::session::{MenuStyle, Screen};
use crate::text::end_message;
use std::time::Duration;

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
    /// The advised direction, its arrows drawn on the board.
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
    /// The move being animated and the time since its key, if one is.
    pub motion: Option<(&'a Motion, Duration)>,
    /// How long the game has been played in this sitting (the end screen says).
    pub played: Duration,
}

/// The key help under the board, the longest that fits the window: every key where 80
/// columns are, fewer where not (`?` shows them all).
pub(super) const KEY_LINES: [&str; 3] = [
    "arrows hjk udlr: move  b undo  s save  a advice  p auto  n new  ? help  q menu",
    "arrows: move  b undo  s save  a advice  p auto  ? keys  q menu",
    "arrows: move  b undo  ? keys  q menu",
];

/// The key help, each line at most 40 columns.
const HELP: [&str; 7] = [
    "arrows, h j k, u d l r: move (l: left)",
    "b, Backspace: undo     s: save",
    "a: advice     p: computer plays (+ -)",
    "n: new game   t: new tiles off / on",
    "m: motion off / on",
    "q: menu   Ctrl-Z: suspend   Ctrl-C: quit",
    "?, Esc: close this help",
];

/// The frame for `view` in a window of `width` x `height`: the board's layout fixed by the
/// window's size alone (never by a message or a mark), else a frame that says the window is too small and still shows
/// the status line, so a question (`q again leaves ...`) is never asked unseen.
pub fn render(view: &View<'_>, width: usize, height: usize) -> Frame {
    let width = width.max(1);
    let height = height.max(1);
    match view.screen {
        Screen::Menu | Screen::Closed => render_menu(view, width, height),
        Screen::Game { game, best } => render_game(view, game, best, None, width, height),
        Screen::End {
            game,
            best,
            offers_more,
        } => render_game(view, game, best, Some(offers_more), width, height),
    }
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

/// The status message in at most `lines` lines of `width`: wrapped, and shortened with `…`
/// past them (it never takes the board's room). Control characters show in caret notation.
fn message_lines(status: &str, width: usize, lines: usize) -> Vec<String> {
    let shown: String = crate::text::visible_text(status);
    if shown.is_empty() {
        return Vec::new();
    }
    let mut wrapped = wrap(&shown, width);
    if wrapped.len() > lines {
        wrapped.truncate(lines);
        let last = wrapped.last_mut().expect("at least one line");
        let mut kept: Vec<char> = last.chars().collect();
        kept.truncate(width.saturating_sub(1));
        *last = kept.into_iter().collect::<String>() + "…";
    }
    wrapped
}

/// `parts` on one line, as far apart as `width` lets them be (three blanks, two, one), or
/// `None` if they do not fit.
fn spread(parts: &[&str], width: usize) -> Option<String> {
    ["   ", "  ", " "]
        .iter()
        .map(|gap| parts.join(gap))
        .find(|line| line.chars().count() <= width)
}

/// The first of `candidates` that fits `width` on one line, else the last cut to it.
fn first_fitting(candidates: &[Vec<&str>], width: usize) -> String {
    candidates
        .iter()
        .find_map(|parts| spread(parts, width))
        .unwrap_or_else(|| {
            let last = candidates.last().expect("candidates").join(" ");
            last.chars().take(width).collect()
        })
}

fn render_menu(view: &View<'_>, width: usize, height: usize) -> Frame {
    let mut lines: Vec<(String, Style)> = vec![
        ("Power-11".to_string(), Style::BOLD),
        (String::new(), Style::default()),
    ];
    match view.menu {
        MenuStyle::EasyHard => {
            lines.push((
                "  e - start a new Easy (5-by-5) game".into(),
                Style::default(),
            ));
            lines.push((
                "  h - start a new Hard (4-by-4) game".into(),
                Style::default(),
            ));
        }
        MenuStyle::OneSize => {
            let n = view.rules.size();
            lines.push((
                format!(
                    "  n - start a new {n}-by-{n} game ({})",
                    view.rules.variant().name()
                ),
                Style::default(),
            ));
        }
    }
    lines.push(("  r - Resume the last saved game".into(), Style::default()));
    lines.push(("  q - Quit the game".into(), Style::default()));
    lines.push((String::new(), Style::default()));
    let text_width = width.min(80);
    for line in message_lines(view.status, text_width, MESSAGE_LINES) {
        lines.push((line, Style::default()));
    }
    let widest = lines
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(40)
        .min(width);
    let mut frame = Frame::new(width, height);
    let left = (width - widest) / 2;
    let top = height.saturating_sub(7 + MESSAGE_LINES) / 2;
    for (k, (line, style)) in lines.iter().enumerate() {
        frame.put(left, top + k, line, *style);
    }
    frame
}

/// The game's title: Power-11 and, for other rules, their name, then the board and the goal
/// (the rule set named once), and what is switched: the computer playing, new tiles off.
fn title_line(view: &View<'_>, game: &Game, width: usize) -> String {
    let rules = game.rules();
    let n = game.board().size();
    let goal = rules
        .goal()
        .map_or("no goal".to_string(), |g| format!("goal {}", tile_value(g)));
    let name = rules.variant().name();
    let named = if name == "power11" {
        format!("Power-11  {n}x{n}, {goal}")
    } else {
        format!("Power-11  {name} {n}x{n}, {goal}")
    };
    let short = if name == "power11" {
        format!("Power-11 {n}x{n}")
    } else {
        format!("{name} {n}x{n}")
    };
    let mut flags = Vec::new();
    if view.autoplay {
        flags.push("[computer]");
    }
    if !game.new_tiles() {
        flags.push("[no new tiles]");
    }
    let mut long = vec![named.as_str()];
    long.extend(&flags);
    let mut brief = vec![short.as_str()];
    brief.extend(&flags);
    first_fitting(&[long, brief], width)
}

/// The score line: the score, the best (and that the game does not count toward it), and the
/// moves at its right end, where they fit.
fn score_line(view: &View<'_>, game: &Game, best: i128, width: usize) -> (String, Option<String>) {
    let score = format!("Score {}", game.score());
    let best = format!("Best {best}");
    let moves = format!("Moves {}", game.undo_depth());
    let counted: &[&str] = if view.counted {
        &[]
    } else {
        &["(not counted)"]
    };
    let mut full = vec![score.as_str(), best.as_str()];
    full.extend(counted);
    let mut short = full.clone();
    if !view.counted {
        short[2] = "(not kept)";
    }
    let left = first_fitting(&[full, short], width);
    let used = left.chars().count();
    let right = (used + 3 + moves.len() <= width).then_some(moves);
    (left, right)
}

/// A game's frame, or its end's (`end`: whether it offers to play on), or the help alone, or
/// the frame of a window too small for the board.
fn render_game(
    view: &View<'_>,
    game: &Game,
    best: i128,
    end: Option<bool>,
    width: usize,
    height: usize,
) -> Frame {
    let n = game.board().size();
    let Some(layout) = game_layout(n, width, height) else {
        if view.help
            && let Some(frame) = help_alone(width, height)
        {
            return frame;
        }
        // A game's end is said even where its board does not fit.
        let ended = end.map(|_| {
            let said = end_message(game.status(), game.score()).unwrap_or_default();
            format!("{said} Enter: the menu.")
        });
        return too_small(ended.as_deref().unwrap_or(view.status), n, width, height);
    };
    let help_below = layout.bottom + 1 + HELP.len() <= height;
    if view.help
        && !help_below
        && let Some(frame) = help_alone(width, height)
    {
        return frame;
    }
    let mut frame = Frame::new(width, height);
    frame.board = Some(layout.tiles());
    frame.tile = Some(layout.tile);
    let (left, text_width) = layout.text;
    let title = title_line(view, game, text_width);
    let name_end = if title.starts_with("Power-11") { 8 } else { 0 };
    frame.put(left, layout.title, &title[..name_end], Style::BOLD);
    frame.put(
        left + name_end,
        layout.title,
        &title[name_end..],
        Style::default(),
    );
    let (score, moves) = score_line(view, game, best, text_width);
    frame.put(left, layout.score, &score, Style::default());
    if let Some(moves) = moves {
        let col = left + text_width - moves.len();
        frame.put(col, layout.score, &moves, Style::default());
    }
    if let Some((motion, elapsed)) = view.motion
        && let Some(rise) = motion.rise(elapsed)
    {
        // `+N` rises from the end of the score line to the line above, where it is free.
        let plus = format!("+{}", motion.points);
        let col = left + score.chars().count() + 2;
        let row = layout.score - rise;
        let free = (col..col + plus.len()).all(|c| c < width && frame.cell(row, c).ch == ' ');
        if free && col + plus.len() <= left + text_width {
            frame.put(col, row, &plus, Style::BOLD);
        }
    }
    let marks = Marks {
        colors: view.colors,
        motion: view.motion,
        new_tile: view.new_tile,
        advised: view.advised,
    };
    draw_board(&mut frame, game.board(), &layout, marks);
    if let Some(offers_more) = end {
        draw_end(&mut frame, view, game, offers_more, &layout);
    } else {
        let (left, text_width) = layout.lines;
        for (k, line) in message_lines(view.status, text_width, MESSAGE_LINES)
            .iter()
            .enumerate()
        {
            frame.put(left, layout.message + k, line, Style::default());
        }
        let keys = KEY_LINES
            .iter()
            .find(|k| k.len() <= text_width)
            .unwrap_or(&KEY_LINES[KEY_LINES.len() - 1]);
        frame.put(left, layout.keys, keys, Style::default());
    }
    if view.help {
        for (k, line) in HELP.iter().enumerate() {
            frame.put(
                layout.lines.0,
                layout.bottom + 1 + k,
                line,
                Style::default(),
            );
        }
    }
    frame
}

/// The end of a game below its board: what the line game says, the largest tile, moves and
/// time, and the keys that go on.
fn draw_end(frame: &mut Frame, view: &View<'_>, game: &Game, offers_more: bool, layout: &Layout) {
    let (left, text_width) = layout.lines;
    let said = end_message(game.status(), game.score()).unwrap_or_default();
    frame.put(left, layout.message, &said, Style::BOLD);
    let largest = tile_value(game.board().max_exponent());
    let seconds = view.played.as_secs();
    let time = format!("{}:{:02}", seconds / 60, seconds % 60);
    let facts = format!(
        "Largest tile {largest}   Moves {}   Time {time}",
        game.undo_depth()
    );
    let facts = first_fitting(
        &[
            vec![facts.as_str()],
            vec![&format!("Largest {largest}"), &format!("Time {time}")],
        ],
        text_width,
    );
    frame.put(left, layout.message + 1, &facts, Style::default());
    let keys = if offers_more {
        "k - keep playing, n - new game, Enter - the menu"
    } else {
        "Enter (or any key but a move) - the menu"
    };
    let short = if offers_more {
        "k: keep playing  n: new  Enter: menu"
    } else {
        "Enter - the menu"
    };
    let keys = first_fitting(&[vec![keys], vec![short]], text_width);
    frame.put(left, layout.keys, &keys, Style::default());
}

/// The help alone, where it does not fit beside the board: it is what was asked for.
fn help_alone(width: usize, height: usize) -> Option<Frame> {
    let widest = HELP.iter().map(|l| l.len()).max().unwrap_or(0);
    if widest > width || HELP.len() + 2 > height {
        return None;
    }
    let mut frame = Frame::new(width, height);
    let (left, top) = ((width - widest) / 2, (height - HELP.len() - 2) / 2);
    frame.put(left, top, "Power-11 keys", Style::BOLD);
    for (k, line) in HELP.iter().enumerate() {
        frame.put(left, top + 2 + k, line, Style::default());
    }
    Some(frame)
}

/// The frame of a window too small for the board: the status line, then what it needs.
fn too_small(status: &str, n: usize, width: usize, height: usize) -> Frame {
    debug_assert_eq!(
        KEY_LINES[KEY_LINES.len() - 1].len(),
        super::layout::LEAST_TEXT
    );
    let (w, h) = least_window(n);
    let mut text: Vec<String> = message_lines(status, width, MESSAGE_LINES);
    if !text.is_empty() {
        text.push(String::new());
    }
    text.extend([
        "Window too small:".to_string(),
        format!("needs {w}x{h},"),
        format!("has {width}x{height}."),
        "Enlarge it, or q.".to_string(),
    ]);
    let mut frame = Frame::new(width, height);
    frame.cramped = true;
    for (row, line) in text.iter().take(height).enumerate() {
        frame.put(0, row, line, Style::default());
    }
    frame
}
