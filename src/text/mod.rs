//! The text format: how the game prints boards, screens and messages, and how save files and
//! board files are read back. This module is the only one that knows what a board looks like on
//! screen; the line console and autoplay compose their output from it.

use crate::model::board::{Board, BoardError, exponent_of, tile_value};
use crate::model::direction::Direction;
use crate::model::game::{Game, Snapshot, Status, Timeline};
use crate::model::named::Named;
use crate::model::rules::{Rules, Score, Variant};
use crate::model::size::Size;
use crate::session::{AdviceReport, MenuStyle};
use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use thiserror::Error;

/// The narrowest a cell is printed.
pub const MIN_CELL_WIDTH: usize = 4;

/// What is wrong with a line of a board or save file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Problem {
    /// The file has no board at all.
    #[error("no board found")]
    Empty,
    /// A state does not start with a score line.
    #[error("expected a 'Score: N' line, found '{0}'")]
    ExpectedScore(String),
    /// The score is not an integer.
    #[error("bad score '{0}': expected a whole number")]
    BadScore(String),
    /// A board does not start with its frame.
    #[error("expected a line of '#' (the top of a board), found '{0}'")]
    ExpectedTopFrame(String),
    /// A score line is the last thing in the file: its board is missing.
    #[error("a score with no board after it")]
    NoBoardAfterScore,
    /// The file ends inside a board (reported at the board's top frame, the last line that
    /// says anything about it).
    #[error("the board that starts here is not closed by a line of '#'")]
    MissingBottomFrame,
    /// A whole number that no tile can be: negative, or past the largest (2^63).
    #[error("'{0}' is not a tile: tiles are powers of two from 2 to 2^63, and 0 is an empty cell")]
    NoSuchTile(String),
    /// A file of one line holds more numbers than a row can, and not a square number of them.
    #[error(
        "{0} numbers on one line: a board needs n*n of them (9, 16, 25, 36, 49 or 64), or n lines of n"
    )]
    OneLineCount(usize),
    /// A file of one number per line does not hold a square number of them.
    #[error(
        "{0} numbers, one per line: a board needs n*n of them (9, 16, 25, 36, 49 or 64), optionally after a line holding n"
    )]
    NumberCount(usize),
    /// The board holds no tile at all (no game can reach it).
    #[error("the board has no tile: at least one cell must hold a 2 or more")]
    NoTile,
    /// A framed row does not start and end with '#'.
    #[error("a board row must start and end with '#'")]
    RowNotFramed,
    /// A row has the wrong number of cells.
    #[error("expected {expected} cells, found {found}")]
    CellCount {
        /// The count most rows have (on a tie, the one that comes first in the file).
        expected: usize,
        /// This row's.
        found: usize,
    },
    /// The board is not square.
    #[error("expected {expected} rows of {expected} cells, found {found} row{}", if *found == 1 { "" } else { "s" })]
    RowCount {
        /// Cells per row.
        expected: usize,
        /// Rows found.
        found: usize,
    },
    /// A cell is not a number.
    #[error("'{0}' is not a number")]
    NotNumber(String),
    /// A cell or the size is invalid.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// A later state has a different size than the first.
    #[error("this board is {found}x{found}, the first one is {expected}x{expected}")]
    MixedSizes {
        /// The first board's size.
        expected: usize,
        /// This one's.
        found: usize,
    },
}

/// A [`Problem`] and the 1-based line it was found on.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: {problem}")]
pub struct ParseError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong there.
    pub problem: Problem,
}

fn fail<T>(line: usize, problem: Problem) -> Result<T, ParseError> {
    Err(ParseError { line, problem })
}

/// How wide every cell of `board` is drawn: the widest tile's digits, at least
/// [`MIN_CELL_WIDTH`]. The line game and the full-screen mode share it.
pub fn cell_width(board: &Board) -> usize {
    board
        .exponents()
        .iter()
        .map(|&e| tile_value(e).to_string().len())
        .max()
        .unwrap_or(0)
        .max(MIN_CELL_WIDTH)
}

/// The board as the game prints it: a frame of `#`, cells right-aligned in a field of 4
/// characters (wider if a tile needs more digits, the same width for the whole board) joined by
/// `|`. Ends with a newline.
pub fn render_board(board: &Board) -> String {
    let n = board.size();
    let width = cell_width(board);
    let frame = "#".repeat(2 + n * width + (n - 1));
    let mut out = String::with_capacity((frame.len() + 1) * (n + 2));
    out.push_str(&frame);
    out.push('\n');
    for r in 0..n {
        out.push('#');
        for c in 0..n {
            if c > 0 {
                out.push('|');
            }
            let e = board.get(r, c);
            if e == 0 {
                out.extend(std::iter::repeat_n(' ', width));
            } else {
                let _ = write!(out, "{:>width$}", tile_value(e));
            }
        }
        out.push_str("#\n");
    }
    out.push_str(&frame);
    out.push('\n');
    out
}

/// A state as shown: the `Score: N` line, a `Best: B` line where the rules keep a best score,
/// then the board. This is the one place the `Score:` line is written.
pub fn render_scored(score: Score, best: Option<Score>, board: &Board) -> String {
    let mut text = format!("Score: {score}\n");
    if let Some(best) = best {
        let _ = writeln!(text, "Best: {best}");
    }
    text.push_str(&render_board(board));
    text
}

/// A state as saved: the `Score: N` line, then the board.
pub fn render_state(state: &Snapshot) -> String {
    render_scored(state.score, None, &state.board)
}

/// The whole save file for `timeline`, as the other Power-11 programs write it: the game's start
/// first, the current state last, and no newline after the last row (one of them reads a
/// final newline as the start of another state).
pub fn render_save(timeline: &Timeline) -> String {
    let mut text: String = timeline.states().iter().map(render_state).collect();
    text.pop();
    text
}

/// The welcome menu.
pub fn render_menu(style: MenuStyle, rules: &Rules) -> String {
    let mut text = String::from("Welcome to Power-11!");
    match style {
        MenuStyle::EasyHard => text.push_str(
            "\n  e - start a new Easy (5-by-5) game\n  h - start a new Hard (4-by-4) game\n",
        ),
        MenuStyle::OneSize => {
            let n = rules.size();
            let goal = rules
                .goal()
                .map_or("no goal".to_string(), |g| format!("goal {}", tile_value(g)));
            let _ = write!(
                text,
                " ({}, {n}-by-{n}, {goal})\n  n - start a new {n}-by-{n} game\n",
                rules.variant().name()
            );
        }
    }
    text.push_str("  r - Resume the last saved game\n  q - Quit the game\n");
    text
}

/// The best score a line screen of `game` shows: none in Power-11 games, whose screens are the
/// assignment's (it has no `Best:` line; their best score is kept all the same, and shown
/// full-screen), `best` in every other rule set.
fn line_best(game: &Game, best: Score) -> Option<Score> {
    (game.rules().variant() != Variant::Power11).then_some(best)
}

/// The game screen of the line console: the state and the keys, `location` being where `s`
/// saves.
pub fn render_game_screen(game: &Game, best: Score, location: &str) -> String {
    let mut text = render_scored(game.score(), line_best(game, best), game.board());
    text.push_str("Moves: u = Up, d = Down, l = Left, r = Right\n");
    let _ = writeln!(
        text,
        "Other: s = Save to {location}, b = Back (undo), a = Advice, q = Quit to the menu (unsaved moves are lost)"
    );
    text
}

/// The end-of-game screen of the line console: the final state, the end message and what the
/// next line does.
pub fn render_end_screen(game: &Game, best: Score, offers_more: bool) -> String {
    let mut text = render_scored(game.score(), line_best(game, best), game.board());
    if let Some(message) = end_message(game.status(), game.score()) {
        text.push_str(&message);
        text.push('\n');
    }
    if offers_more {
        text.push_str("k - keep playing, n - start a new game, anything else - back to the menu\n");
    } else {
        text.push_str("Press Enter to return to the menu.\n");
    }
    text
}

/// The advice line for `report` under `rules`.
pub fn advice_line(report: &AdviceReport, rules: &Rules) -> String {
    let name = |d: Direction| format!("{} ({})", d.key(), d.name());
    let advice = match report {
        AdviceReport::Search(Some(advice)) => advice,
        AdviceReport::Search(None) => return "Advice: no move changes the board.".to_string(),
        AdviceReport::Exact(moves) => {
            let Some(((best, odds), others)) = moves.split_first() else {
                return "Advice: no move changes the board.".to_string();
            };
            let others: Vec<String> = others
                .iter()
                .map(|(d, p)| format!("{} {p:.4}", d.key()))
                .collect();
            let rest = if others.is_empty() {
                " (the only move that changes the board)".to_string()
            } else {
                format!("; {}", others.join(", "))
            };
            return format!(
                "Advice: {}: perfect play wins from here with probability {odds:.4}{rest}.",
                name(*best)
            );
        }
    };
    let best = name(advice.direction);
    if advice.wins {
        let goal = rules.goal().map_or(0, tile_value);
        return format!("Advice: {best}: it makes {goal} now.");
    }
    match advice.runner_up {
        None => format!("Advice: {best}: the only move that changes the board."),
        Some((_, 0.0)) if advice.value > 0.0 => format!(
            "Advice: {best}: every other move loses within {} move(s).",
            advice.depth
        ),
        // A player reads a margin in words, not the search's ratings (whose scale means
        // nothing to them; bench and its JSON keep the figures). Ratings that print the same
        // are a tie.
        Some((other, value)) => {
            let ahead = format!("looking {} move(s) ahead", advice.depth);
            let margin = (advice.value - value) / advice.value.abs().max(1.0);
            let words = if format!("{value:.0}") == format!("{:.0}", advice.value) {
                "as good as"
            } else if margin < 0.01 {
                "slightly better than"
            } else if margin < 0.1 {
                "better than"
            } else {
                "clearly better than"
            };
            format!("Advice: {best}: {ahead}, {words} {}.", name(other))
        }
    }
}

/// The line that ends a game in status `status` with score `score`, or `None` while playing.
pub fn end_message(status: Status, score: Score) -> Option<String> {
    match status {
        Status::Playing => None,
        Status::Won => Some(format!("YOU WON WITH A SCORE OF {score}")),
        Status::Lost => Some("YOU LOST!".to_string()),
        Status::Over => Some(format!("Game Over! Final score: {score}")),
    }
}

/// The lines of a text file: BOM, `\r` and trailing blanks removed. Lines end in LF or CRLF
/// (any CRs before the LF are trailing blanks); a file with no LF at all (an old Mac file) ends
/// them in CR.
pub(crate) fn lines_of(text: &str) -> Vec<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains('\n') {
        text.lines().map(str::trim_end).collect()
    } else {
        text.split_terminator('\r').map(str::trim_end).collect()
    }
}

/// Reads a save file: one or more states, each a score line (`Score: N` or a bare number) and a
/// framed board, all of one size, in either order (see [`newest_first`]). Liberal in the shape
/// (frames of any length, cells of any width or alignment, `0` for empty, `|` inside the frame,
/// blank lines between states or between a score and its board, indented boards, CRLF or
/// lone-CR line ends, no final newline); strict in the content (cell counts,
/// powers of two, one size, whole-number scores, nothing else in the file).
pub fn parse_save(text: &str) -> Result<Timeline, ParseError> {
    parse_framed(&lines_of(text), true)
}

/// Reads a board file in any accepted format: a grid of numbers (blanks or commas, 0 = empty,
/// optionally preceded by a line holding just the size), a framed board with or without a
/// `Score:` line, or a whole save file.
pub fn parse_board_file(text: &str) -> Result<Timeline, ParseError> {
    let lines = lines_of(text);
    let first = lines.iter().map(|l| l.trim_start()).find(|l| !l.is_empty());
    match first {
        None => fail(1, Problem::Empty),
        Some(l) if l.starts_with('#') || l.starts_with("Score:") => parse_framed(&lines, false),
        Some(_) if lines.iter().any(|l| l.trim_start().starts_with('#')) => {
            parse_framed(&lines, false)
        }
        Some(_) => parse_numbers(&lines).map(Timeline::new),
    }
}

fn is_frame(line: &str) -> bool {
    !line.is_empty() && line.bytes().all(|b| b == b'#')
}

fn parse_cell(text: &str) -> Result<u8, Problem> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(0);
    }
    let value: u64 = text.parse().map_err(|_| {
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            Problem::NoSuchTile(shorten(text))
        } else {
            Problem::NotNumber(shorten(text))
        }
    })?;
    Ok(exponent_of(value)?)
}

/// `c` as it can be shown on a terminal: control characters in caret notation (`^[` for ESC,
/// `^@` for NUL), so that echoing a key never sends the terminal a control sequence; other
/// control characters and the bidirectional controls (which would reorder the rest of the
/// line, as U+202E does) as `\u{...}`.
pub fn visible(c: char) -> String {
    match c {
        '\u{0}'..='\u{1f}' => format!("^{}", char::from(c as u8 + 64)),
        '\u{7f}' => "^?".to_string(),
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            c.escape_unicode().to_string()
        }
        c if c.is_control() => c.escape_unicode().to_string(),
        c => c.to_string(),
    }
}

/// At most 30 characters of `text`, for messages that quote input, control characters shown
/// in caret notation (a damaged file must not send the terminal escape sequences).
pub(crate) fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(30).map(visible).collect();
    if text.chars().count() > 30 {
        out.push_str("...");
    }
    out
}

/// The score a line gives, if it is a score line: `Score: N` (as this program and most others
/// write it) or a bare whole number (as some others do).
fn score_line(line: &str) -> Option<&str> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix("Score:") {
        return Some(rest.trim());
    }
    let digits = line.strip_prefix('-').unwrap_or(line);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some(line)
}

/// Reads framed states into a timeline, whichever order the file lists them in (see
/// [`newest_first`]).
fn parse_framed(lines: &[&str], require_score: bool) -> Result<Timeline, ParseError> {
    let end = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |p| p + 1);
    if end == 0 {
        return fail(1, Problem::Empty);
    }
    let mut states: Vec<Snapshot> = Vec::new();
    let mut i = 0;
    while i < end {
        // Blank lines may stand between states.
        if lines[i].trim().is_empty() {
            i += 1;
            continue;
        }
        let score = match score_line(lines[i]) {
            Some(text) => {
                let score = text
                    .parse::<Score>()
                    .or_else(|_| fail(i + 1, Problem::BadScore(shorten(text))))?;
                let score_at = i;
                i += 1;
                // Blank lines may stand between a score and its board too.
                while i < end && lines[i].trim().is_empty() {
                    i += 1;
                }
                if i == end {
                    return fail(score_at + 1, Problem::NoBoardAfterScore);
                }
                score
            }
            None if require_score || !states.is_empty() => {
                return fail(i + 1, Problem::ExpectedScore(shorten(lines[i])));
            }
            None => 0,
        };
        let (board, next) = parse_framed_board(lines, i, end)?;
        if let Some(first) = states.first()
            && first.board.size() != board.size()
        {
            let problem = Problem::MixedSizes {
                expected: first.board.size(),
                found: board.size(),
            };
            return fail(i + 1, problem);
        }
        states.push(Snapshot { board, score });
        i = next;
    }
    if newest_first(&states) {
        states.reverse();
    }
    let mut timeline = Timeline::new(states[0]);
    for state in states.into_iter().skip(1) {
        timeline
            .push(state)
            .expect("every board has the first one's size (checked above)");
    }
    Ok(timeline)
}

/// Whether states listed in file order run from the newest to the oldest (as power11 wrote them
/// before version 0.2) rather than from the game's start (as the other Power-11 programs and
/// power11 now write them).
///
/// The file itself tells: every move that spawns a tile adds it to the tile sum, and a merge
/// score never falls (a merge is worth 4 or more). The tile sums decide if they change at all;
/// otherwise the score changes larger than 1 (a change of 1 either way is a +1/-1 score, which
/// tells nothing); a file that cannot tell (no spawns, +1/-1 scoring) is read as oldest first.
pub fn newest_first(states: &[Snapshot]) -> bool {
    /// `Some(true)` if the steps that count mostly fall, `Some(false)` if they mostly rise.
    fn direction(steps: impl Iterator<Item = std::cmp::Ordering>) -> Option<bool> {
        let (mut up, mut down) = (0usize, 0usize);
        for step in steps {
            match step {
                std::cmp::Ordering::Greater => up += 1,
                std::cmp::Ordering::Less => down += 1,
                std::cmp::Ordering::Equal => {}
            }
        }
        (up + down > 0).then_some(down > up)
    }
    let pairs = || states.iter().zip(states.iter().skip(1));
    let sums = pairs().map(|(a, b)| b.board.tile_sum().cmp(&a.board.tile_sum()));
    let merges = pairs().map(|(a, b)| match b.score - a.score {
        -1..=1 => std::cmp::Ordering::Equal,
        delta => delta.cmp(&0),
    });
    direction(sums)
        .or_else(|| direction(merges))
        .unwrap_or(false)
}

fn parse_framed_board(
    lines: &[&str],
    start: usize,
    end: usize,
) -> Result<(Board, usize), ParseError> {
    // Frames, like rows, may be indented.
    match lines.get(start) {
        Some(l) if start < end && is_frame(l.trim_start()) => {}
        Some(l) if start < end => return fail(start + 1, Problem::ExpectedTopFrame(shorten(l))),
        _ => return fail(start + 1, Problem::MissingBottomFrame),
    }
    let mut cells: Vec<u8> = Vec::new();
    let mut per_row = 0;
    let mut rows = 0;
    let mut i = start + 1;
    loop {
        if i >= end {
            return fail(start + 1, Problem::MissingBottomFrame);
        }
        // Frames and rows may have any width: other programs draw frames of their own length
        // and cells left-aligned or wider than 4. What must agree is the number of cells.
        let line = lines[i].trim_start();
        if is_frame(line) {
            break;
        }
        let inner = line
            .strip_prefix('#')
            .and_then(|l| l.strip_suffix('#'))
            .ok_or(ParseError {
                line: i + 1,
                problem: Problem::RowNotFramed,
            })?;
        // Some programs draw a `|` just inside each `#`: `#|   2|   4|#`.
        let inner = inner.strip_prefix('|').unwrap_or(inner);
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        let row: Vec<u8> = inner
            .split('|')
            .map(parse_cell)
            .collect::<Result<_, _>>()
            .or_else(|p| fail(i + 1, p))?;
        if rows == 0 {
            per_row = row.len();
        } else if row.len() != per_row {
            return fail(
                i + 1,
                Problem::CellCount {
                    expected: per_row,
                    found: row.len(),
                },
            );
        }
        if rows == Size::MAX {
            // A ninth row: a 9x9 (or larger) board is a size, not a miscount.
            let problem = match Size::new(per_row) {
                Err(e) => Problem::Board(BoardError::BadSize(e)),
                Ok(_) => Problem::RowCount {
                    expected: per_row,
                    found: rows + 1,
                },
            };
            return fail(i + 1, problem);
        }
        cells.extend(row);
        rows += 1;
        i += 1;
    }
    if rows != per_row || Size::new(rows).is_err() {
        let problem = if rows == per_row {
            Problem::Board(BoardError::BadSize(
                Size::new(rows).expect_err("checked just above"),
            ))
        } else {
            Problem::RowCount {
                expected: per_row,
                found: rows,
            }
        };
        return fail(i + 1, problem);
    }
    let board = Board::from_exponents(rows, &cells).or_else(|e| fail(i + 1, e.into()))?;
    if board.max_exponent() == 0 {
        return fail(i + 1, Problem::NoTile);
    }
    Ok((board, i + 1))
}

fn parse_numbers(lines: &[&str]) -> Result<Snapshot, ParseError> {
    // The lines that hold numbers, with their 1-based line numbers and their tokens.
    let mut token_lines: Vec<(usize, Vec<&str>)> = lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let tokens: Vec<&str> = line
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|t| !t.is_empty())
                .collect();
            (i + 1, tokens)
        })
        .filter(|(_, tokens)| !tokens.is_empty())
        .collect();
    // An optional first line holding just the size, as some board files have. It is a count,
    // not a tile, so it is read before any cell is (3 is a size, not a bad tile).
    let mut declared = None;
    if let [(line, first), (_, second), ..] = token_lines.as_slice()
        && first.len() == 1
        && second.len() > 1
    {
        let size: usize = first[0]
            .parse()
            .or_else(|_| fail(*line, Problem::NotNumber(shorten(first[0]))))?;
        if let Err(e) = Size::new(size) {
            return fail(*line, Problem::Board(BoardError::BadSize(e)));
        }
        declared = Some((*line, size));
        token_lines.remove(0);
    }
    // n*n numbers one per line (a 3x3 state typed as 9 lines), optionally after a line holding
    // n: regrouped into n rows of n, each cell keeping its own line for messages.
    if token_lines.len() > 1 && token_lines.iter().all(|(_, tokens)| tokens.len() == 1) {
        token_lines = one_per_line(token_lines)?;
    }
    // n*n numbers on one line: the rows one after the other. More numbers than the widest row
    // has, and not n*n of them, are counted in the message.
    if let [(line, tokens)] = token_lines.as_slice() {
        let line = *line;
        match side_of(tokens.len()) {
            Some(n) if declared.is_none_or(|(_, size)| size == n) => {
                token_lines = tokens.chunks(n).map(|row| (line, row.to_vec())).collect();
            }
            None if tokens.len() > Size::MAX => {
                return fail(line, Problem::OneLineCount(tokens.len()));
            }
            _ => {}
        }
    }
    let mut rows: Vec<(usize, Vec<u8>)> = Vec::new();
    for (line, tokens) in token_lines {
        let row: Vec<u8> = tokens
            .iter()
            .map(|t| parse_cell(t))
            .collect::<Result<_, _>>()
            .or_else(|p| fail(line, p))?;
        rows.push((line, row));
    }
    if let Some((size_line, size)) = declared
        && (rows.len() != size || rows[0].1.len() != size)
    {
        return fail(
            size_line,
            Problem::RowCount {
                expected: size,
                found: rows.len(),
            },
        );
    }
    // The row length most rows agree on (on a tie, the one that comes first in the file), so
    // that a message names the odd row out rather than the rows after an odd first one.
    let mut lengths: BTreeMap<usize, (usize, Reverse<usize>)> = BTreeMap::new();
    for (i, (_, row)) in rows.iter().enumerate() {
        lengths.entry(row.len()).or_insert((0, Reverse(i))).0 += 1;
    }
    let per_row = lengths
        .iter()
        .max_by_key(|(_, seen)| **seen)
        .map_or(0, |(&len, _)| len);
    for (line, row) in &rows {
        if row.len() != per_row {
            return fail(
                *line,
                Problem::CellCount {
                    expected: per_row,
                    found: row.len(),
                },
            );
        }
    }
    let last_line = rows.last().map_or(1, |(l, _)| *l);
    if rows.len() != per_row {
        return fail(
            last_line,
            Problem::RowCount {
                expected: per_row,
                found: rows.len(),
            },
        );
    }
    let cells: Vec<u8> = rows.into_iter().flat_map(|(_, r)| r).collect();
    let board = Board::from_exponents(per_row, &cells).or_else(|e| fail(last_line, e.into()))?;
    if board.max_exponent() == 0 {
        return fail(last_line, Problem::NoTile);
    }
    Ok(Snapshot { board, score: 0 })
}

/// The side of a square board of `count` cells, if there is one.
fn side_of(count: usize) -> Option<usize> {
    (Size::MIN..=Size::MAX).find(|n| n * n == count)
}

/// Regroups lines of one number each into the rows of a square board: n*n of them, or n and
/// then n*n. Parse errors of a cell still name the cell's own line.
fn one_per_line(
    mut token_lines: Vec<(usize, Vec<&str>)>,
) -> Result<Vec<(usize, Vec<&str>)>, ParseError> {
    let count = token_lines.len();
    let n = if let Some(n) = side_of(count) {
        n
    } else {
        let declared = token_lines[0].1[0].parse::<usize>().ok();
        let Some(n) = side_of(count - 1).filter(|&n| declared == Some(n)) else {
            return fail(token_lines[count - 1].0, Problem::NumberCount(count));
        };
        token_lines.remove(0);
        n
    };
    for (line, tokens) in &token_lines {
        parse_cell(tokens[0]).or_else(|p| fail(*line, p))?;
    }
    Ok(token_lines
        .chunks(n)
        .map(|row| (row[n - 1].0, row.iter().map(|(_, t)| t[0]).collect()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hostile-user item 11: the advice line gives a margin in a player's words, never the
    /// search's ratings.
    #[test]
    fn advice_gives_a_margin_in_words() {
        let rules = Rules::classic();
        let line = |value: f32, other: f32| {
            let advice = crate::players::Advice {
                direction: Direction::Left,
                value,
                runner_up: Some((Direction::Up, other)),
                wins: false,
                depth: 3,
            };
            advice_line(&AdviceReport::Search(Some(advice)), &rules)
        };
        let ahead = "Advice: l (Left): looking 3 move(s) ahead,";
        for ((value, other), words) in [
            ((1_000_000.2, 1_000_000.0), "as good as"),
            ((1_000_000.0, 999_000.0), "slightly better than"),
            ((1_000_000.0, 950_000.0), "better than"),
            ((1_000_000.0, 500_000.0), "clearly better than"),
        ] {
            assert_eq!(line(value, other), format!("{ahead} {words} u (Up)."));
        }
    }

    const EXAMPLE: &str = "\
Score: 4
#####################
#    |    |    |    #
#    |    |   2|    #
#    |    |    |    #
#   4|   4|    |    #
#####################
";

    fn example_board() -> Board {
        Board::from_values(&[
            vec![0, 0, 0, 0],
            vec![0, 0, 2, 0],
            vec![0; 4],
            vec![4, 4, 0, 0],
        ])
        .unwrap()
    }

    #[test]
    fn advice_when_every_other_move_loses_counts_moves_as_its_siblings_do() {
        use crate::players::Advice;
        let advice = |depth| {
            advice_line(
                &AdviceReport::Search(Some(Advice {
                    direction: Direction::Left,
                    value: 5.0,
                    runner_up: Some((Direction::Up, 0.0)),
                    wins: false,
                    depth,
                })),
                &Rules::classic(),
            )
        };
        assert_eq!(
            advice(1),
            "Advice: l (Left): every other move loses within 1 move(s)."
        );
        assert_eq!(
            advice(3),
            "Advice: l (Left): every other move loses within 3 move(s)."
        );
    }

    #[test]
    fn renders_the_issue_example_exactly() {
        let state = Snapshot {
            board: example_board(),
            score: 4,
        };
        assert_eq!(render_state(&state), EXAMPLE);
    }

    #[test]
    fn wide_tiles_widen_every_cell() {
        let b = Board::from_values(&[vec![131_072, 0, 0], vec![0; 3], vec![0, 0, 2]]).unwrap();
        let text = render_board(&b);
        assert!(
            text.starts_with("######################\n#131072|      |      #\n"),
            "{text}"
        );
        assert_eq!(parse_board_file(&text).unwrap().current().board, b);
    }

    #[test]
    fn save_round_trips() {
        let a = Snapshot {
            board: example_board(),
            score: 4,
        };
        let mut start = Board::empty(4).unwrap();
        start.set(3, 0, 2);
        start.set(3, 1, 2);
        let b = Snapshot {
            board: start,
            score: 0,
        };
        let mut timeline = Timeline::new(b);
        timeline.push(a).unwrap();
        let text = render_save(&timeline);
        assert!(text.starts_with("Score: 0\n"), "the start comes first");
        assert!(
            text.ends_with(EXAMPLE.trim_end()),
            "the current state last, with no final newline"
        );
        assert_eq!(parse_save(&text).unwrap(), timeline);
        assert_eq!(parse_save(&text.replace('\n', "\r\n")).unwrap(), timeline);
        assert_eq!(parse_save(&text.replace('\n', "\r")).unwrap(), timeline);
        // Regression (review): CR CR LF (a CRLF file converted twice) reads as before.
        assert_eq!(parse_save(&text.replace('\n', "\r\r\n")).unwrap(), timeline);
    }

    fn save_error(text: &str) -> ParseError {
        parse_save(text).unwrap_err()
    }

    #[test]
    fn save_errors_name_line_and_problem() {
        let five = EXAMPLE.replace("#    |    |   2|    #", "#    |    |   2|    |    #");
        assert_eq!(
            save_error(&five).to_string(),
            "line 4: expected 4 cells, found 5"
        );
        let three = EXAMPLE.replace("#    |    |   2|    #", "#    |    |   2     #");
        assert_eq!(
            save_error(&three).to_string(),
            "line 4: expected 4 cells, found 3"
        );
        let bad_cell = EXAMPLE.replace("   2|", "   3|");
        assert_eq!(
            save_error(&bad_cell).to_string(),
            "line 4: 3 is not a power of two >= 2"
        );
        let bad_score = EXAMPLE.replace("Score: 4", "Score: four");
        assert_eq!(
            save_error(&bad_score).to_string(),
            "line 1: bad score 'four': expected a whole number"
        );
        let no_score = EXAMPLE.replace("Score: 4\n", "");
        assert!(matches!(
            save_error(&no_score).problem,
            Problem::ExpectedScore(_)
        ));
        let garbage = format!("{EXAMPLE}hello\n");
        assert_eq!(save_error(&garbage).line, 8);
        let truncated = EXAMPLE.lines().take(4).collect::<Vec<_>>().join("\n") + "\n";
        assert_eq!(save_error(&truncated).problem, Problem::MissingBottomFrame);
        // At the board's top frame, not a line past the end of the file.
        assert_eq!(save_error(&truncated).line, 2);
        // A score with no board is said to be one, at its own line; blank lines between a
        // score and its board, and an indented board, are read.
        let last_alone = format!("{EXAMPLE}Score: 8\n\n");
        assert_eq!(
            save_error(&last_alone).to_string(),
            "line 8: a score with no board after it"
        );
        let spaced = EXAMPLE.replace("Score: 4\n", "Score: 4\n\n\n");
        let indented = EXAMPLE.replace("\n#", "\n   #");
        for text in [spaced, indented] {
            assert_eq!(parse_save(&text).unwrap().current().board, example_board());
        }
        assert_eq!(save_error("").problem, Problem::Empty);
    }

    #[test]
    fn a_nine_by_nine_board_is_a_size_not_a_miscount() {
        let row = format!("#{}#", ["   2"; 9].join("|"));
        let frame = "#".repeat(row.len());
        let text = format!(
            "Score: 0\n{frame}\n{}{frame}\n",
            format!("{row}\n").repeat(9)
        );
        assert_eq!(
            save_error(&text).to_string(),
            "line 11: board size 9 is not between 3 and 8"
        );
    }

    #[test]
    fn mixed_sizes_in_a_save_are_refused() {
        let small = Snapshot {
            board: Board::from_values(&[vec![2, 0, 0], vec![0; 3], vec![0; 3]]).unwrap(),
            score: 0,
        };
        let big = Snapshot {
            board: example_board(),
            score: 4,
        };
        let err = save_error(&format!("{}{}", render_state(&big), render_state(&small)));
        assert_eq!(
            (err.line, err.problem),
            (
                9,
                Problem::MixedSizes {
                    expected: 4,
                    found: 3
                }
            )
        );
    }

    #[test]
    fn board_file_number_grid_with_blanks_or_commas() {
        let b = parse_board_file("0 0 0 0\n0 0 2 0\n0,0,0,0\n4, 4, 0, 0\n").unwrap();
        assert_eq!(
            b,
            Timeline::new(Snapshot {
                board: example_board(),
                score: 0
            })
        );
        let sized = parse_board_file("4\n0 0 0 0\n0 0 2 0\n0 0 0 0\n4 4 0 0\n").unwrap();
        assert_eq!(sized.current().board, example_board());
        // Regression: a size line of 3 (or 5, 6, 7) was read as a tile and refused.
        let three = parse_board_file("3\n2 0 0\n0 0 0\n0 0 4\n").unwrap();
        assert_eq!(three.current().board.values()[2], vec![0, 0, 4]);
        let err = parse_board_file("5\n2 0 0\n0 0 0\n0 0 4\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: expected 5 rows of 5 cells, found 3 rows"
        );
        // n*n numbers on one line, and lines that end in a lone CR (old Mac files).
        let one_line = parse_board_file("2 0 0 0 4 0 0 0 8\n").unwrap();
        assert_eq!(
            one_line.current().board.values(),
            vec![vec![2, 0, 0], vec![0, 4, 0], vec![0, 0, 8]]
        );
        let sized_line = parse_board_file("3\n2 0 0 0 4 0 0 0 8").unwrap();
        assert_eq!(sized_line, one_line);
        let cr = parse_board_file("0 0 0 0\r0 0 2 0\r0 0 0 0\r4 4 0 0\r").unwrap();
        assert_eq!(cr.current().board, example_board());
        let err = parse_board_file("1\n2 0 0\n0 0 0\n0 0 4\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: board size 1 is not between 3 and 8"
        );
    }

    #[test]
    fn board_file_framed_with_or_without_score() {
        assert_eq!(parse_board_file(EXAMPLE).unwrap().current().score, 4);
        let bare = EXAMPLE.replace("Score: 4\n", "");
        assert_eq!(
            parse_board_file(&bare).unwrap().current().board,
            example_board()
        );
    }

    #[test]
    fn echoed_text_cannot_reorder_or_control_the_terminal() {
        assert_eq!(visible('\u{1b}'), "^[");
        assert_eq!(visible('\u{202e}'), "\\u{202e}");
        assert_eq!(visible('\u{2067}'), "\\u{2067}");
        assert_eq!(visible('\u{61c}'), "\\u{61c}");
        assert_eq!(visible('\u{85}'), "\\u{85}");
        assert_eq!(visible('é'), "é");
    }

    #[test]
    fn board_file_errors() {
        let err = parse_board_file("0 0 0\n0 0\n0 0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 2: expected 3 cells, found 2");
        let err = parse_board_file("0 0 0\n0 0 0\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: expected 3 rows of 3 cells, found 2 rows"
        );
        let err = parse_board_file("0 x\n0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1: 'x' is not a number");
        let err = parse_board_file("2 0\n0 0\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: board size 2 is not between 3 and 8"
        );
        let err = parse_board_file("0 0 0\n0 -2 0\n0 0 0\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: '-2' is not a tile: tiles are powers of two from 2 to 2^63, and 0 is an empty cell"
        );
        let err = parse_board_file("0 0 0\n0 18446744073709551616 0\n0 0 0\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("line 2: '18446744073709551616' is not a tile")
        );
        // The odd row out is named, even when it is the first.
        let err = parse_board_file("2 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1: expected 4 cells, found 3");
        let err = parse_board_file("2 0 0 0 4 0 0 0 8 0").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: 10 numbers on one line: a board needs n*n of them (9, 16, 25, 36, 49 or 64), or n lines of n"
        );
        let err = parse_board_file("2 0 0 0").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: expected 4 rows of 4 cells, found 1 row"
        );
        // On a tie the length that comes first wins: the first row is the odd one.
        let err = parse_board_file("2 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1: expected 4 cells, found 3");
        // Regression (review): rows were compared with every other row, so a file of many
        // rows took time growing with their square before any message.
        let many = "2 2\n".repeat(200_000);
        let err = parse_board_file(&many).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 200000: expected 2 rows of 2 cells, found 200000 rows"
        );
        assert_eq!(
            parse_board_file("\n\n").unwrap_err().problem,
            Problem::Empty
        );
    }
}
