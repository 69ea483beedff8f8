//! Finding the boards in what a program printed: a line of `#`, rows between `#`s whose
//! cells are split by `|` (blank or `0` for an empty cell), a line of `#`, for any size 3 to 8,
//! with anything at all between boards. Each board's score is its `Score: N` line and its end
//! messages are the `YOU WON ...` and `YOU LOST!` lines after it. Terminal control sequences (a
//! screen clear) are left out first. Where the text differs from the assignment's (cells of
//! `0`, another frame width, cells not right-aligned in 4, another score line), a format
//! warning says so, once a rule with its count.

use super::assignment::Assignment;
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
#[cfg(test)]
pub(super) struct Scanned {
    pub boards: Vec<Printed>,
    pub warnings: Vec<Finding>,
}

/// Format warnings, each rule once with its count and its first place.
#[derive(Clone, Default)]
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

/// The lines a board can take after its top frame: up to 8 rows and the bottom frame, or, on
/// the MIPS program's board, 8 rows each with its rule.
const LOOK_AHEAD: usize = 16;

/// Boards found in text that comes a piece at a time (what a program printed in answer to each
/// key), its format warnings gathered over all of it and its lines numbered as one text.
#[derive(Clone)]
pub(super) struct Scanner {
    assignment: Assignment,
    warnings: Warnings,
    /// The score line seen since the last board.
    pending_score: Option<Score>,
    /// The lines read so far.
    lines: usize,
    /// The boards found so far.
    boards: usize,
    /// Whether the last board found can still get end messages (no board since).
    last_open: bool,
}

/// What a piece of text held: its boards, and the end messages after it that belong to the
/// board found before it.
pub(super) struct Piece {
    pub boards: Vec<Printed>,
    pub earlier_ends: Vec<End>,
}

impl Scanner {
    /// A scanner of `assignment`'s boards.
    pub(super) fn new(assignment: Assignment) -> Scanner {
        Scanner {
            assignment,
            warnings: Warnings::default(),
            pending_score: None,
            lines: 0,
            boards: 0,
            last_open: false,
        }
    }

    /// The boards of `text` (the next piece), through a window of the few lines a board can
    /// take, so a transcript of millions of short lines takes no more memory than its boards.
    pub(super) fn scan(&mut self, text: &str) -> Piece {
        let mut piece = Piece {
            boards: Vec::new(),
            earlier_ends: Vec::new(),
        };
        let text = text.strip_suffix('\n').unwrap_or(text);
        if text.is_empty() {
            return piece;
        }
        let mut source = text.split('\n').map(plain);
        let mut window: VecDeque<Cow<'_, str>> = VecDeque::with_capacity(LOOK_AHEAD + 1);
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
            self.lines += 1;
            let line = current.trim();
            let number = self.lines;
            if let Some((score, exact)) = score_line(line) {
                if !exact {
                    self.warnings
                        .add(Rule::ScoreLine, None, number, format!("'{line}'"));
                }
                self.pending_score = Some(score);
                continue;
            }
            if let Some((end, exact)) = self.assignment_end(line) {
                if !exact {
                    self.warnings.add(
                        Rule::EndMessage,
                        Some(self.boards).filter(|n| *n > 0),
                        number,
                        format!("'{line}'"),
                    );
                }
                match piece.boards.last_mut() {
                    Some(last) => last.ends.push(end),
                    None if self.last_open => piece.earlier_ends.push(end),
                    None => {}
                }
                continue;
            }
            let found = match self.assignment {
                Assignment::Power11 if is_frame(line) => rows_of(window.iter().map(AsRef::as_ref))
                    .map(|(rows, bottom)| (rows, bottom, line.len())),
                Assignment::Mips if is_rule(line) => {
                    mips_rows_of(line, window.iter().map(AsRef::as_ref))
                        .map(|(rows, bottom)| (rows, bottom, line.len()))
                }
                _ => None,
            };
            let Some((rows, bottom, frame)) = found else {
                continue;
            };
            let n = rows.len();
            if !(3..=8).contains(&n) || rows.iter().any(|r| r.len() != n) {
                if n > 0 {
                    self.warnings.add(
                        Rule::UnreadableBoard,
                        None,
                        number,
                        format!("{n} rows framed at line {number}"),
                    );
                }
                continue;
            }
            self.boards += 1;
            let mut printed = match self.assignment {
                Assignment::Power11 => {
                    read_board(&rows, frame, self.boards, number, &mut self.warnings)
                }
                Assignment::Mips => read_mips_board(&rows, self.boards, number, &mut self.warnings),
            };
            printed.score = self.pending_score.take();
            if printed.score.is_none() && self.assignment == Assignment::Power11 {
                self.warnings.add(
                    Rule::NoScoreLine,
                    Some(self.boards),
                    number,
                    "no Score: line before it",
                );
            }
            piece.boards.push(printed);
            self.last_open = true;
            window.drain(..=bottom);
            self.lines += bottom + 1;
        }
        // Text after the last line break joins the next piece's first line in a terminal; a
        // key's answer ends with its prompt, so pieces are read as whole lines.
        piece
    }

    /// The end message `line` holds under this assignment, and whether it reads exactly.
    fn assignment_end(&self, line: &str) -> Option<(End, bool)> {
        match self.assignment {
            Assignment::Power11 => end_line(line),
            Assignment::Mips => mips_end_line(line),
        }
    }

    /// The format warnings of everything scanned.
    pub(super) fn warnings(self) -> Vec<Finding> {
        self.warnings.0
    }
}

/// The boards of `text` (a whole transcript), and its format warnings.
#[cfg(test)]
pub(super) fn scan(text: &str) -> Scanned {
    let mut scanner = Scanner::new(Assignment::Power11);
    let boards = scanner.scan(text).boards;
    Scanned {
        boards,
        warnings: scanner.warnings(),
    }
}

/// Whether `line` is the MIPS program's rule between rows: `+---` a column, then `+`.
fn is_rule(line: &str) -> bool {
    line.len() >= 9
        && line.starts_with('+')
        && line
            .as_bytes()
            .chunks(4)
            .all(|chunk| chunk == b"+---" || chunk == b"+")
}

/// A MIPS board's rows as printed, if `lines` (the lines after its top rule `top`) make one:
/// a row of `|`-split cells, then a rule, n times. The cells of each row and the index of the
/// bottom rule.
fn mips_rows_of<'a>(
    top: &str,
    lines: impl Iterator<Item = &'a str>,
) -> Option<(Vec<Vec<String>>, usize)> {
    let mut rows = Vec::new();
    let mut expect_row = true;
    let mut last_rule = None;
    for (i, line) in lines.enumerate().take(LOOK_AHEAD) {
        let line = line.trim_end();
        if expect_row {
            let Some(inner) = line.strip_prefix('|').and_then(|l| l.strip_suffix('|')) else {
                break;
            };
            rows.push(inner.split('|').map(str::to_string).collect());
        } else {
            if line != top {
                break;
            }
            last_rule = Some(i);
        }
        expect_row = !expect_row;
    }
    let bottom = last_rule?;
    rows.truncate(bottom.div_ceil(2));
    Some((rows, bottom))
}

/// The end message a MIPS line holds, and whether it reads as the program's.
fn mips_end_line(line: &str) -> Option<(End, bool)> {
    let trimmed = line.trim();
    let lower = trimmed.to_ascii_lowercase();
    if lower.starts_with("congratulations") {
        return Some((
            End::Won(None),
            trimmed == "Congratulations! You have reached the 512 tile!",
        ));
    }
    if lower.starts_with("game over") {
        return Some((End::Lost, trimmed == "Game Over."));
    }
    None
}

/// The cell of each tile the MIPS program draws, by exponent: empty, then 2 to 512.
const MIPS_CELLS: [&str; 10] = [
    "   ", " 2 ", " 4 ", " 8 ", " 16", " 32", " 64", "128", "256", "512",
];

/// The board of MIPS `rows`, the `index`-th board, at `line`.
fn read_mips_board(
    rows: &[Vec<String>],
    index: usize,
    line: usize,
    warnings: &mut Warnings,
) -> Printed {
    let (values, not_a_tile, _zero) = cell_values(rows);
    let exact = rows.iter().flatten().all(|cell| {
        let text = cell.trim();
        text.is_empty() && (cell.len() == 3 || cell.len() == 2)
            || text
                .parse::<u64>()
                .ok()
                .and_then(|v| crate::model::board::exponent_of(v).ok())
                .and_then(|e| MIPS_CELLS.get(usize::from(e)))
                .is_some_and(|drawn| drawn == cell)
    });
    if !exact {
        warnings.add(
            Rule::CellAlignment,
            Some(index),
            line,
            "cells not drawn as the MIPS program draws them (' 2 ', ' 16', '128')",
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

/// The tile values of `rows` (cells as printed: blank or `0` empty), the first cell that is no
/// tile, and whether a `0` stood for an empty cell.
fn cell_values(rows: &[Vec<String>]) -> (Vec<Vec<u64>>, Option<String>, bool) {
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
    (values, not_a_tile, zero)
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
    let (values, not_a_tile, zero) = cell_values(rows);
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
