//! Reading: save files and board files, with line-numbered `ParseError`s.

use super::shorten;
use crate::model::board::{Board, BoardError, exponent_of};
use crate::model::game::{Snapshot, Timeline};
use crate::model::rules::Score;
use crate::model::size::Size;
use std::cmp::Reverse;
use std::collections::BTreeMap;
use thiserror::Error;

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
    /// The score is a whole number beyond what a score holds (a 128-bit integer), either way.
    #[error("bad score '{0}': a whole number out of a score's range (-2^127 to 2^127 - 1)")]
    ScoreOutOfRange(String),
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
    /// The file holds one number: no board at all.
    #[error(
        "a single number: a board is n lines of n numbers (n from 3 to 8), n*n numbers on one line, or a drawn board"
    )]
    SingleNumber,
    /// A file of numbers holds more than any board could, by far: refused where they pass the
    /// count, before the rest is read.
    #[error(
        "more than {0} numbers, and a board holds at most 64 (n lines of n, optionally after a line holding n)"
    )]
    TooManyNumbers(usize),
    /// The board holds no tile at all (no game can reach it).
    #[error("the board has no tile: at least one cell must hold a 2 or more")]
    NoTile,
    /// A framed row does not start and end with '#'.
    #[error("a board row must start and end with '#'")]
    RowNotFramed,
    /// A row of a board drawn with `+---+` rules does not start and end with '|'.
    #[error("a row of a board drawn with '+---+' must start and end with '|'")]
    RowNotBordered,
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

/// The lines of a text file: BOM, `\r` and trailing blanks removed. Lines end in LF or CRLF
/// (any CRs before the LF are trailing blanks); a file with no LF at all (an old Mac file) ends
/// them in CR. An iterator, not a list: a file of many short lines is read in the memory it
/// takes, not 16 bytes a line.
pub(crate) fn lines_of(text: &str) -> impl Iterator<Item = &str> + Clone {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let end = if text.contains('\n') { '\n' } else { '\r' };
    text.split_terminator(end).map(str::trim_end)
}

/// The most numbers a board file of numbers is read to: far more than a board holds (64 cells
/// and a size), few enough that a file of millions is refused in the memory a few lines take.
const MAX_NUMBERS: usize = 4096;

/// The lines of a file with their 1-based numbers, read one at a time.
type Numbered<'a> = std::iter::Peekable<Box<dyn Iterator<Item = (usize, &'a str)> + 'a>>;

fn numbered<'a>(lines: impl Iterator<Item = &'a str> + 'a) -> Numbered<'a> {
    let boxed: Box<dyn Iterator<Item = (usize, &'a str)> + 'a> =
        Box::new(lines.enumerate().map(|(i, line)| (i + 1, line)));
    boxed.peekable()
}

/// Skips blank lines; the next line that is not blank, if any (left in `lines`).
fn skip_blank<'a>(lines: &mut Numbered<'a>) -> Option<(usize, &'a str)> {
    while let Some(&(number, line)) = lines.peek() {
        if !line.trim().is_empty() {
            return Some((number, line));
        }
        lines.next();
    }
    None
}

/// Reads a save file: one or more states, each a score line (`Score: N` or a bare number) and a
/// framed board, all of one size, in either order (see [`newest_first`]). Liberal in the shape
/// (frames of any length, cells of any width or alignment, `0` for empty, `|` inside the frame,
/// blank lines between states or between a score and its board, indented boards, CRLF or
/// lone-CR line ends, no final newline); strict in the content (cell counts,
/// powers of two, one size, whole-number scores, nothing else in the file).
pub fn parse_save(text: &str) -> Result<Timeline, ParseError> {
    parse_framed(numbered(lines_of(text)), true).map(oldest_first)
}

/// `timeline` with its oldest state first, whichever order it was listed in.
fn oldest_first(timeline: Timeline) -> Timeline {
    if newest_first(timeline.states()) {
        timeline.reversed()
    } else {
        timeline
    }
}

/// Reads a save file as [`parse_save`] does, its states left in the order the file lists them:
/// for a referee, which reports a file written newest first.
pub fn parse_save_as_listed(text: &str) -> Result<Timeline, ParseError> {
    parse_framed(numbered(lines_of(text)), true)
}

/// Reads a board file in any accepted format: a grid of numbers (blanks or commas, 0 = empty,
/// optionally preceded by a line holding just the size), a framed board with or without a
/// `Score:` line, a whole save file, or a board drawn with `+---+` rules and `|` as the MIPS
/// program prints it.
pub fn parse_board_file(text: &str) -> Result<Timeline, ParseError> {
    let lines = lines_of(text);
    let first = lines.clone().map(str::trim_start).find(|l| !l.is_empty());
    match first {
        None => fail(1, Problem::Empty),
        Some(l) if l.starts_with('#') || l.starts_with("Score:") => {
            parse_framed(numbered(lines), false).map(oldest_first)
        }
        Some(_) if lines.clone().any(|l| l.trim_start().starts_with('#')) => {
            parse_framed(numbered(lines), false).map(oldest_first)
        }
        Some(l) if is_rule(l) || l.starts_with('|') => parse_bordered(lines).map(Timeline::new),
        Some(_) => parse_numbers(lines).map(Timeline::new),
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

/// Reads framed states into a timeline, in the order the file lists them (callers put them
/// oldest first: see [`newest_first`]).
fn parse_framed(mut lines: Numbered<'_>, require_score: bool) -> Result<Timeline, ParseError> {
    let mut timeline: Option<Timeline> = None;
    // Blank lines may stand between states.
    while let Some((number, line)) = skip_blank(&mut lines) {
        lines.next();
        let (score, top) = match score_line(line) {
            Some(text) => {
                let score = text.parse::<Score>().or_else(|e| {
                    let problem = match e.kind() {
                        std::num::IntErrorKind::PosOverflow
                        | std::num::IntErrorKind::NegOverflow => {
                            Problem::ScoreOutOfRange(shorten(text))
                        }
                        _ => Problem::BadScore(shorten(text)),
                    };
                    fail(number, problem)
                })?;
                // Blank lines may stand between a score and its board too.
                let Some(top) = skip_blank(&mut lines) else {
                    return fail(number, Problem::NoBoardAfterScore);
                };
                lines.next();
                (score, top)
            }
            None if require_score || timeline.is_some() => {
                return fail(number, Problem::ExpectedScore(shorten(line)));
            }
            None => (0, (number, line)),
        };
        let board = parse_framed_board(&mut lines, top)?;
        let state = Snapshot { board, score };
        match timeline.as_mut() {
            None => timeline = Some(Timeline::new(state)),
            Some(timeline) => timeline.push(state).map_err(|sizes| ParseError {
                line: top.0,
                problem: Problem::MixedSizes {
                    expected: sizes.expected,
                    found: sizes.found,
                },
            })?,
        }
    }
    timeline.ok_or(ParseError {
        line: 1,
        problem: Problem::Empty,
    })
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

/// Reads the board whose top frame should be `top` (already taken from `lines`), up to and
/// including its bottom frame.
fn parse_framed_board(lines: &mut Numbered<'_>, top: (usize, &str)) -> Result<Board, ParseError> {
    let (start, first) = top;
    // Frames, like rows, may be indented.
    if !is_frame(first.trim_start()) {
        return fail(start, Problem::ExpectedTopFrame(shorten(first)));
    }
    let mut grid = DrawnBoard::default();
    let bottom = loop {
        let Some((i, line)) = lines.next() else {
            return fail(start, Problem::MissingBottomFrame);
        };
        // A blank line inside a board is a row out of its frame, unless nothing follows it:
        // then the board is what is unfinished.
        if line.trim().is_empty() && skip_blank(lines).is_none() {
            return fail(start, Problem::MissingBottomFrame);
        }
        // Frames and rows may have any width: other programs draw frames of their own length
        // and cells left-aligned or wider than 4. What must agree is the number of cells.
        let line = line.trim_start();
        if is_frame(line) {
            break i;
        }
        let inner = between(line, '#').ok_or(ParseError {
            line: i,
            problem: Problem::RowNotFramed,
        })?;
        // Some programs draw a `|` just inside each `#`: `#|   2|   4|#`.
        let inner = inner.strip_prefix('|').unwrap_or(inner);
        let inner = inner.strip_suffix('|').unwrap_or(inner);
        grid.add(i, inner)?;
    };
    grid.board(bottom)
}

/// What a drawn row holds between its first and last `edge`, if it starts and ends with one.
fn between(line: &str, edge: char) -> Option<&str> {
    line.strip_prefix(edge)?.strip_suffix(edge)
}

/// The rows of a drawn board as they are read, their cells between `|`s: one cell count for
/// all, at most [`Size::MAX`] of them.
#[derive(Default)]
struct DrawnBoard {
    cells: Vec<u8>,
    per_row: usize,
    rows: usize,
}

impl DrawnBoard {
    /// Adds the row on line `line` whose cells `inner` holds.
    fn add(&mut self, line: usize, inner: &str) -> Result<(), ParseError> {
        let row: Vec<u8> = inner
            .split('|')
            .map(parse_cell)
            .collect::<Result<_, _>>()
            .or_else(|p| fail(line, p))?;
        if self.rows == 0 {
            self.per_row = row.len();
        } else if row.len() != self.per_row {
            let problem = Problem::CellCount {
                expected: self.per_row,
                found: row.len(),
            };
            return fail(line, problem);
        }
        if self.rows == Size::MAX {
            // A ninth row: a 9x9 (or larger) board is a size, not a miscount.
            let problem = match Size::new(self.per_row) {
                Err(e) => Problem::Board(BoardError::BadSize(e)),
                Ok(_) => Problem::RowCount {
                    expected: self.per_row,
                    found: self.rows + 1,
                },
            };
            return fail(line, problem);
        }
        self.cells.extend(row);
        self.rows += 1;
        Ok(())
    }

    /// The board the rows make, its problems reported at line `end` (where it ends).
    fn board(self, end: usize) -> Result<Board, ParseError> {
        let DrawnBoard {
            cells,
            per_row,
            rows,
        } = self;
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
            return fail(end, problem);
        }
        let board = Board::from_exponents(rows, &cells).or_else(|e| fail(end, e.into()))?;
        if board.max_exponent() == 0 {
            return fail(end, Problem::NoTile);
        }
        Ok(board)
    }
}

/// A line of a board drawn as the MIPS program draws it, between its rows: `+---+---+---+`.
fn is_rule(line: &str) -> bool {
    line.starts_with('+') && line.bytes().all(|b| b == b'+' || b == b'-')
}

/// A board drawn with `+---+` rules between rows of cells between `|`s (`|   | 2 |   |`), as
/// the MIPS program prints it: what a user copies from its screen.
fn parse_bordered<'a>(lines: impl Iterator<Item = &'a str>) -> Result<Snapshot, ParseError> {
    let mut grid = DrawnBoard::default();
    let mut last = 1;
    for (i, line) in lines.enumerate() {
        let (number, line) = (i + 1, line.trim());
        if line.is_empty() || is_rule(line) {
            continue;
        }
        let inner = between(line, '|').ok_or(ParseError {
            line: number,
            problem: Problem::RowNotBordered,
        })?;
        grid.add(number, inner)?;
        last = number;
    }
    if grid.rows == 0 {
        return fail(1, Problem::Empty);
    }
    let board = grid.board(last)?;
    Ok(Snapshot { board, score: 0 })
}

fn parse_numbers<'a>(lines: impl Iterator<Item = &'a str>) -> Result<Snapshot, ParseError> {
    let mut token_lines = number_lines(lines)?;
    let declared = declared_size(&mut token_lines)?;
    // n*n numbers one per line (a 3x3 state typed as 9 lines), optionally after a line holding
    // n: regrouped into n rows of n, each cell keeping its own line for messages.
    if token_lines.len() > 1 && token_lines.iter().all(|(_, tokens)| tokens.len() == 1) {
        token_lines = one_per_line(token_lines)?;
    }
    // n*n numbers on one line: the rows one after the other. More numbers than the widest row
    // has, and not n*n of them, are counted in the message.
    if let [(line, tokens)] = token_lines.as_slice() {
        let line = *line;
        if tokens.len() == 1 {
            return fail(line, Problem::SingleNumber);
        }
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
    let per_row = square_side(&rows)?;
    let last_line = rows.last().map_or(1, |(l, _)| *l);
    let cells: Vec<u8> = rows.into_iter().flat_map(|(_, r)| r).collect();
    let board = Board::from_exponents(per_row, &cells).or_else(|e| fail(last_line, e.into()))?;
    if board.max_exponent() == 0 {
        return fail(last_line, Problem::NoTile);
    }
    Ok(Snapshot { board, score: 0 })
}

/// The lines that hold numbers, with their 1-based line numbers and their tokens (numbers are
/// separated by blanks or commas); refused at the first word that is no number, or at the line
/// that takes them past [`MAX_NUMBERS`].
fn number_lines<'a>(
    lines: impl Iterator<Item = &'a str>,
) -> Result<Vec<(usize, Vec<&'a str>)>, ParseError> {
    let mut token_lines = Vec::new();
    let mut count = 0;
    for (i, line) in lines.enumerate() {
        let mut tokens = Vec::new();
        for token in line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
        {
            // A word that is no number at all is named where it stands, before any count (rows
            // written with another separator, `2;0;0;0`, or prose). A number that is not a tile
            // may still be the size line.
            if let Err(problem @ Problem::NotNumber(_)) = parse_cell(token) {
                return fail(i + 1, problem);
            }
            count += 1;
            if count > MAX_NUMBERS {
                return fail(i + 1, Problem::TooManyNumbers(MAX_NUMBERS));
            }
            tokens.push(token);
        }
        if !tokens.is_empty() {
            token_lines.push((i + 1, tokens));
        }
    }
    Ok(token_lines)
}

/// An optional first line holding just the size, as some board files have, taken off
/// `token_lines`: its line and the size. It is a count, not a tile, so it is read before any
/// cell is (3 is a size, not a bad tile).
fn declared_size(
    token_lines: &mut Vec<(usize, Vec<&str>)>,
) -> Result<Option<(usize, usize)>, ParseError> {
    let [(line, first), (_, second), ..] = token_lines.as_slice() else {
        return Ok(None);
    };
    if first.len() != 1 || second.len() <= 1 {
        return Ok(None);
    }
    let line = *line;
    let size: usize = first[0]
        .parse()
        .or_else(|_| fail(line, Problem::NotNumber(shorten(first[0]))))?;
    if let Err(e) = Size::new(size) {
        return fail(line, Problem::Board(BoardError::BadSize(e)));
    }
    token_lines.remove(0);
    Ok(Some((line, size)))
}

/// The side of the square the rows make: the row length most rows agree on (on a tie, the one
/// that comes first in the file), so that a message names the odd row out rather than the rows
/// after an odd first one; then as many rows as that.
fn square_side(rows: &[(usize, Vec<u8>)]) -> Result<usize, ParseError> {
    let mut lengths: BTreeMap<usize, (usize, Reverse<usize>)> = BTreeMap::new();
    for (i, (_, row)) in rows.iter().enumerate() {
        lengths.entry(row.len()).or_insert((0, Reverse(i))).0 += 1;
    }
    let per_row = lengths
        .iter()
        .max_by_key(|(_, seen)| **seen)
        .map_or(0, |(&len, _)| len);
    for (line, row) in rows {
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
    if rows.len() != per_row {
        let last_line = rows.last().map_or(1, |(l, _)| *l);
        return fail(
            last_line,
            Problem::RowCount {
                expected: per_row,
                found: rows.len(),
            },
        );
    }
    Ok(per_row)
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
