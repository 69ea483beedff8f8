//! Finding the boards in what a program printed: a line of `#`, rows between `#`s whose
//! cells are split by `|` (blank or `0` for an empty cell), a line of `#`, for any size 3 to 8,
//! with anything at all between boards. Each board's score is its `Score: N` line and its end
//! messages are the `YOU WON ...` and `YOU LOST!` lines after it. Terminal control sequences (a
//! screen clear) are left out first. Where the text differs from the assignment's (cells of
//! `0`, another frame width, cells not right-aligned in 4, another score line), a format
//! warning says so, once a rule with its count.

use super::{Finding, Rule};
use crate::model::board::Board;
use crate::model::rules::Score;
use std::borrow::Cow;
use std::collections::VecDeque;

/// A board as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Printed {
    /// The board (a cell that is no tile is read as empty: see `not_a_tile`).
    pub board: Board,
    /// Its score, if a score line goes with it.
    pub score: Option<Score>,
    /// The line of its top frame (1-based).
    pub line: usize,
    /// The end messages printed after it (before the next board).
    pub ends: Vec<End>,
    /// A cell that holds no tile (`3`, `x`), as printed.
    pub not_a_tile: Option<String>,
}

/// An end-of-game message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// `YOU WON WITH A SCORE OF N` (the score, if the line gives one).
    Won(Option<Score>),
    /// `YOU LOST!`.
    Lost,
}

/// The boards of a transcript, and its format warnings.
pub(super) struct Scanned {
    pub boards: Vec<Printed>,
    pub warnings: Vec<Finding>,
}

/// Format warnings, each rule once with its count and its first place.
#[derive(Default)]
struct Warnings(Vec<Finding>);

impl Warnings {
    fn add(&mut self, rule: Rule, board: Option<usize>, line: usize, detail: impl Into<String>) {
        if let Some(seen) = self.0.iter_mut().find(|w| w.rule == rule) {
            seen.count += 1;
            return;
        }
        let mut finding = Finding::new(rule, detail);
        finding.board = board;
        finding.line = Some(line);
        self.0.push(finding);
    }
}

/// `line` without terminal control sequences (`ESC [ ... letter`, `ESC ] ... BEL`, other
/// `ESC x` pairs), carriage returns and other control characters.
fn plain(line: &str) -> Cow<'_, str> {
    if !line.chars().any(|c| c.is_control() && c != '\t') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            match chars.next() {
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    for c in chars.by_ref() {
                        if c == '\u{7}' {
                            break;
                        }
                    }
                }
                _ => {}
            }
        } else if !c.is_control() || c == '\t' {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `line` is a frame: `#` only, at least three.
fn is_frame(line: &str) -> bool {
    line.len() >= 3 && line.bytes().all(|b| b == b'#')
}

/// The score a line gives, if it is a score line (`Score: N`, or another spelling of it),
/// and whether it reads exactly `Score: N`.
fn score_line(line: &str) -> Option<(Score, bool)> {
    let trimmed = line.trim();
    let rest = trimmed.get(..5)?;
    if !rest.eq_ignore_ascii_case("score") {
        return None;
    }
    let number: String = trimmed[5..]
        .trim_start_matches([':', '=', ' ', '\t'])
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    let score: Score = number.parse().ok()?;
    Some((score, trimmed == format!("Score: {score}")))
}

/// The end message a line holds, if any, and whether it reads as the assignment's.
fn end_line(line: &str) -> Option<(End, bool)> {
    let trimmed = line.trim();
    let lower = trimmed.to_ascii_lowercase();
    if lower.starts_with("you won") {
        let number: String = lower
            .rsplit(|c: char| !c.is_ascii_digit())
            .find(|w| !w.is_empty())
            .unwrap_or_default()
            .to_string();
        let score = number.parse().ok();
        let exact = score.is_some_and(|n| trimmed == format!("YOU WON WITH A SCORE OF {n}"));
        return Some((End::Won(score), exact));
    }
    if lower.starts_with("you lost") || lower.starts_with("game over") {
        return Some((End::Lost, trimmed == "YOU LOST!"));
    }
    None
}

/// A board's rows as printed, if `lines` (the rows after a top frame, then the bottom frame)
/// make one: the cells of each row and the index of the bottom frame.
fn rows_of<'a>(lines: impl Iterator<Item = &'a str>) -> Option<(Vec<Vec<String>>, usize)> {
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate().take(9) {
        let line = line.trim();
        if is_frame(line) {
            return Some((rows, i));
        }
        let inner = line.strip_prefix('#')?.strip_suffix('#')?;
        rows.push(inner.split('|').map(str::to_string).collect());
    }
    None
}

/// The lines a board can take after its top frame: up to 8 rows and the bottom frame.
const LOOK_AHEAD: usize = 9;

/// The boards of `text`, and its format warnings. Lines are read through a window of the few
/// a board can take, so a transcript of millions of short lines takes no more memory than its
/// boards.
pub(super) fn scan(text: &str) -> Scanned {
    let mut source = text.split('\n').map(plain);
    let mut window: VecDeque<Cow<'_, str>> = VecDeque::with_capacity(LOOK_AHEAD + 1);
    let mut boards: Vec<Printed> = Vec::new();
    let mut warnings = Warnings::default();
    // The score line seen since the last board, and whether scores come before boards.
    let mut pending_score: Option<Score> = None;
    // The line number (0-based) of the window's first line.
    let mut i = 0;
    loop {
        while window.len() <= LOOK_AHEAD {
            match source.next() {
                Some(line) => window.push_back(line),
                None => break,
            }
        }
        let Some(current) = window.pop_front() else {
            break;
        };
        let line = current.trim();
        if let Some((score, exact)) = score_line(line) {
            if !exact {
                warnings.add(Rule::ScoreLine, None, i + 1, format!("'{line}'"));
            }
            pending_score = Some(score);
            i += 1;
            continue;
        }
        if let Some((end, exact)) = end_line(line) {
            if !exact {
                warnings.add(
                    Rule::EndMessage,
                    Some(boards.len()).filter(|n| *n > 0),
                    i + 1,
                    format!("'{line}'"),
                );
            }
            if let Some(last) = boards.last_mut() {
                last.ends.push(end);
            }
            i += 1;
            continue;
        }
        if !is_frame(line) {
            i += 1;
            continue;
        }
        let Some((rows, bottom)) = rows_of(window.iter().map(AsRef::as_ref)) else {
            i += 1;
            continue;
        };
        let n = rows.len();
        if !(3..=8).contains(&n) || rows.iter().any(|r| r.len() != n) {
            if n > 0 {
                warnings.add(
                    Rule::UnreadableBoard,
                    None,
                    i + 1,
                    format!("{n} rows framed by # at line {}", i + 1),
                );
            }
            i += 1;
            continue;
        }
        let index = boards.len() + 1;
        let printed = read_board(&rows, line.len(), index, i + 1, &mut warnings);
        let mut printed = printed;
        printed.score = pending_score.take();
        if printed.score.is_none() {
            warnings.add(
                Rule::NoScoreLine,
                Some(index),
                i + 1,
                "no Score: line before it",
            );
        }
        boards.push(printed);
        window.drain(..=bottom);
        i += bottom + 2;
    }
    Scanned {
        boards,
        warnings: warnings.0,
    }
}

/// The board of `rows` (cells as printed), framed `frame` characters wide, the `index`-th
/// board, at `line`; its format deviations go to `warnings`.
fn read_board(
    rows: &[Vec<String>],
    frame: usize,
    index: usize,
    line: usize,
    warnings: &mut Warnings,
) -> Printed {
    let n = rows.len();
    let mut values = vec![vec![0u64; n]; n];
    let mut not_a_tile = None;
    let mut zero = false;
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let text = cell.trim();
            if text.is_empty() {
                continue;
            }
            if text == "0" {
                zero = true;
                continue;
            }
            match text.parse::<u64>() {
                Ok(v) if v >= 2 && v.is_power_of_two() => values[r][c] = v,
                _ => {
                    not_a_tile.get_or_insert_with(|| text.to_string());
                }
            }
        }
    }
    let widest = super::slides::cell_chars(&values);
    if zero {
        warnings.add(
            Rule::ZeroCells,
            Some(index),
            line,
            "empty cells printed as 0",
        );
    }
    if frame != 2 + n * widest + (n - 1) {
        warnings.add(
            Rule::FrameWidth,
            Some(index),
            line,
            format!(
                "a {n}x{n} board framed {frame} characters wide, not {}",
                5 * n + 1
            ),
        );
    }
    // Each cell as wide as the widest tile (4 up to 2048), its text at the right edge.
    let aligned = rows
        .iter()
        .flatten()
        .all(|cell| cell.len() == widest && (cell.trim().is_empty() || !cell.ends_with(' ')));
    if !aligned {
        warnings.add(
            Rule::CellAlignment,
            Some(index),
            line,
            "cells not right-aligned in 4 characters",
        );
    }
    let board = Board::from_values(&values).expect("3 to 8 rows of powers of two");
    Printed {
        board,
        score: None,
        line,
        ends: Vec::new(),
        not_a_tile,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_are_found_among_anything_with_their_scores_and_ends() {
        let text = "Welcome to Power-11!\n\x1b[2J\x1b[HScore: 4\n#####################\n#   2|    |    |    #\n#    |   4|    |    #\n#    |    |    |    #\n#    |    |    |   2#\n#####################\nMoves: u = Up\n\n\nScore: 8\n################\n#   0|   0|   0#\n#   0|   8|   0#\n#   0|   0|   4#\n################\nYOU LOST!\n";
        let scanned = scan(text);
        assert_eq!(scanned.boards.len(), 2);
        let first = &scanned.boards[0];
        assert_eq!((first.score, first.line), (Some(4), 3));
        assert_eq!(first.board.get(1, 1), 2);
        let second = &scanned.boards[1];
        assert_eq!((second.score, second.board.size()), (Some(8), 3));
        assert_eq!(second.ends, [End::Lost]);
        let rules: Vec<Rule> = scanned.warnings.iter().map(|w| w.rule).collect();
        assert_eq!(rules, [Rule::ZeroCells]);
    }

    #[test]
    fn format_deviations_are_warned_once_with_a_count() {
        let board = "#######\n# 2| | #\n#  | | #\n#  | | #\n#######\n";
        let text = format!("score=2\n{board}score=2\n{board}You won! 2048\n");
        let scanned = scan(&text);
        assert_eq!(scanned.boards.len(), 2);
        let found: Vec<(Rule, usize)> =
            scanned.warnings.iter().map(|w| (w.rule, w.count)).collect();
        assert_eq!(
            found,
            [
                (Rule::ScoreLine, 2),
                (Rule::FrameWidth, 2),
                (Rule::CellAlignment, 2),
                (Rule::EndMessage, 1)
            ]
        );
        assert_eq!(scanned.boards[1].ends, [End::Won(Some(2048))]);
    }

    #[test]
    fn a_cell_that_is_no_tile_is_kept_for_the_referee() {
        let text = "Score: 0\n################\n#   3|    |    #\n#    |    |    #\n#    |    |    #\n################\n";
        let scanned = scan(text);
        assert_eq!(scanned.boards[0].not_a_tile.as_deref(), Some("3"));
    }
}
