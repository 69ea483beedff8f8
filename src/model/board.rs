//! The plain n x n board: exact rules for every size from 3 to 8, tiles up to 2^255.
//!
//! This is the board of interactive games and the reference every packed board is tested
//! against. It knows nothing of the [`crate::Grid`] trait, which is implemented for it one
//! floor up, so the model's bottom floor has no circle.

use crate::model::direction::Direction;
use crate::model::line::{slide_line, slide_line_traced};
use crate::model::size::{Size, SizeError};
use thiserror::Error;

/// Why a board could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardError {
    /// The size is outside 3..=8.
    #[error(transparent)]
    BadSize(#[from] SizeError),
    /// The cells do not form a square of the given size.
    #[error("expected {expected} cells, found {found}")]
    WrongCellCount {
        /// size * size.
        expected: usize,
        /// What was given.
        found: usize,
    },
    /// A tile value is not empty (0) or a power of two >= 2.
    #[error("{0} is not a power of two >= 2")]
    BadTile(u64),
}

/// One tile's way in a slide ([`Board::travels`]): the cells (row, column) it goes from and
/// to, its exponent before the move, and whether it merged into the tile that reached `to`
/// before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slid {
    /// Its cell before the move.
    pub from: (usize, usize),
    /// Its cell after the move.
    pub to: (usize, usize),
    /// Its exponent before the move.
    pub exponent: u8,
    /// It merged into the tile already at `to`.
    pub merged: bool,
}

/// A square board of size 3..=8 holding tile exponents, stored row-major in a fixed array.
///
/// Invariant: every cell past `size * size` is 0, so derived equality and hashing compare boards
/// by their tiles. It is `Copy`, so search can use it without allocating.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    size: Size,
    cells: [u8; Size::MAX * Size::MAX],
}

/// The value of the tile with exponent `exponent`, for display (0 for an empty cell).
pub fn tile_value(exponent: u8) -> u128 {
    if exponent == 0 {
        0
    } else {
        1u128.checked_shl(u32::from(exponent)).unwrap_or(u128::MAX)
    }
}

/// The exponent of a tile value: 0 for 0, `k` for `2^k` with `k >= 1`, an error otherwise.
pub fn exponent_of(value: u64) -> Result<u8, BoardError> {
    match value {
        0 => Ok(0),
        v if v >= 2 && v.is_power_of_two() => Ok(v.trailing_zeros() as u8),
        v => Err(BoardError::BadTile(v)),
    }
}

impl Board {
    /// An empty board of the given size.
    pub fn new(size: Size) -> Board {
        Board {
            size,
            cells: [0; Size::MAX * Size::MAX],
        }
    }

    /// An empty board of side `size`, if it is a valid size.
    pub fn empty(size: usize) -> Result<Board, BoardError> {
        Ok(Board::new(Size::new(size)?))
    }

    /// A board from row-major exponents (`size * size` of them).
    pub fn from_exponents(size: usize, exponents: &[u8]) -> Result<Board, BoardError> {
        let mut board = Board::empty(size)?;
        if exponents.len() != size * size {
            return Err(BoardError::WrongCellCount {
                expected: size * size,
                found: exponents.len(),
            });
        }
        board.cells[..exponents.len()].copy_from_slice(exponents);
        Ok(board)
    }

    /// A board from rows of tile values (0 = empty); the number of rows is the size.
    pub fn from_values(rows: &[Vec<u64>]) -> Result<Board, BoardError> {
        let size = rows.len();
        let mut board = Board::empty(size)?;
        for (r, row) in rows.iter().enumerate() {
            if row.len() != size {
                return Err(BoardError::WrongCellCount {
                    expected: size,
                    found: row.len(),
                });
            }
            for (c, &value) in row.iter().enumerate() {
                board.set(r, c, exponent_of(value)?);
            }
        }
        Ok(board)
    }

    /// The tile values row by row (0 = empty), for tests and display.
    pub fn values(&self) -> Vec<Vec<u128>> {
        let n = self.size();
        (0..n)
            .map(|r| (0..n).map(|c| tile_value(self.get(r, c))).collect())
            .collect()
    }

    /// The row-major exponents.
    pub fn exponents(&self) -> &[u8] {
        &self.cells[..self.size.cells()]
    }

    /// The sum of all tile values (a move never changes it; a spawn adds the new tile).
    pub fn tile_sum(&self) -> u128 {
        self.exponents().iter().map(|&e| tile_value(e)).sum()
    }

    /// The side as a [`Size`].
    pub fn side(&self) -> Size {
        self.size
    }

    /// The number of rows (= columns).
    pub fn size(&self) -> usize {
        self.size.get()
    }

    /// The exponent at `row`, `col` (both below the size).
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.size() + col]
    }

    /// Puts exponent `exponent` at `row`, `col`.
    pub fn set(&mut self, row: usize, col: usize, exponent: u8) {
        let n = self.size();
        self.cells[row * n + col] = exponent;
    }

    /// The board after sliding toward `direction` and the points the merges score, or `None`
    /// if the move changes nothing: [`slide_line`] on each line read in the direction of motion.
    pub fn slide(&self, direction: Direction) -> Option<(Board, u64)> {
        let n = self.size();
        let mut next = *self;
        let mut points = 0u64;
        let mut changed = false;
        let mut buffer = [0u8; Size::MAX];
        for line in 0..n {
            let buffer = &mut buffer[..n];
            for (k, cell) in buffer.iter_mut().enumerate() {
                let (r, c) = direction.line_cell(n, line, k);
                *cell = self.get(r, c);
            }
            if let Some(p) = slide_line(buffer) {
                changed = true;
                points = points.saturating_add(p);
                for (k, &cell) in buffer.iter().enumerate() {
                    let (r, c) = direction.line_cell(n, line, k);
                    next.set(r, c, cell);
                }
            }
        }
        changed.then_some((next, points))
    }

    /// Where each tile goes when the board slides toward `direction` (every tile, those that
    /// stay too), from the one merge loop ([`slide_line_traced`]): what a front end needs to
    /// animate a move without a second copy of the rules.
    pub fn travels(&self, direction: Direction) -> Vec<Slid> {
        let n = self.size();
        let mut travels = Vec::with_capacity(n * n);
        let mut buffer = [0u8; Size::MAX];
        for line in 0..n {
            let buffer = &mut buffer[..n];
            for (k, cell) in buffer.iter_mut().enumerate() {
                let (r, c) = direction.line_cell(n, line, k);
                *cell = self.get(r, c);
            }
            let mut before = [0u8; Size::MAX];
            before[..n].copy_from_slice(buffer);
            slide_line_traced(buffer, |travel| {
                travels.push(Slid {
                    from: direction.line_cell(n, line, travel.from),
                    to: direction.line_cell(n, line, travel.to),
                    exponent: before[travel.from],
                    merged: travel.merged,
                });
            });
        }
        travels
    }

    /// How many cells are empty.
    pub fn empty_count(&self) -> usize {
        self.exponents().iter().filter(|&&e| e == 0).count()
    }

    /// The largest exponent on the board (`0` if it is empty).
    pub fn max_exponent(&self) -> u8 {
        self.exponents().iter().copied().max().unwrap_or(0)
    }
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Board{:?}", self.values())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&[u64]]) -> Board {
        Board::from_values(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    /// The travels rebuild the slid board: each tile lands where it says, merged pairs make
    /// one tile one higher.
    #[test]
    fn travels_agree_with_the_slide() {
        let b = board(&[&[2, 2, 4, 0], &[0, 4, 0, 4], &[8, 0, 8, 8], &[2, 4, 8, 16]]);
        for direction in Direction::ALL {
            let mut rebuilt = Board::empty(4).unwrap();
            for t in b.travels(direction) {
                assert_eq!(b.get(t.from.0, t.from.1), t.exponent);
                let e = if t.merged { t.exponent + 1 } else { t.exponent };
                rebuilt.set(t.to.0, t.to.1, e);
            }
            let slid = b.slide(direction).map_or(b, |(slid, _)| slid);
            assert_eq!(rebuilt, slid, "{direction}");
        }
    }

    #[test]
    fn sizes_outside_3_to_8_are_refused() {
        assert_eq!(
            Board::empty(2),
            Err(BoardError::BadSize(SizeError::OutOfRange(2)))
        );
        assert_eq!(
            Board::empty(9),
            Err(BoardError::BadSize(SizeError::OutOfRange(9)))
        );
        assert_eq!(Board::empty(3).map(|b| b.size()), Ok(3));
        assert_eq!(Board::empty(8).map(|b| b.size()), Ok(8));
    }

    #[test]
    fn bad_tiles_are_refused() {
        assert_eq!(exponent_of(3), Err(BoardError::BadTile(3)));
        assert_eq!(exponent_of(1), Err(BoardError::BadTile(1)));
        assert_eq!(exponent_of(2048), Ok(11));
    }

    #[test]
    fn move_right_on_0_2_2_2_row() {
        let b = board(&[&[0, 2, 2, 2], &[0; 4], &[0; 4], &[0; 4]]);
        let (after, points) = b.slide(Direction::Right).unwrap();
        assert_eq!(after.values()[0], vec![0, 0, 2, 4]);
        assert_eq!(points, 4);
    }

    #[test]
    fn move_up_and_down_read_columns() {
        let b = board(&[&[2, 0, 0], &[2, 0, 0], &[4, 0, 8]]);
        let (up, points) = b.slide(Direction::Up).unwrap();
        assert_eq!(
            up.values(),
            vec![vec![4, 0, 8], vec![4, 0, 0], vec![0, 0, 0]]
        );
        assert_eq!(points, 4);
        let (down, _) = b.slide(Direction::Down).unwrap();
        assert_eq!(
            down.values(),
            vec![vec![0, 0, 0], vec![4, 0, 0], vec![4, 0, 8]]
        );
    }

    #[test]
    fn empty_board_cannot_move() {
        let b = board(&[&[0, 0, 0], &[0, 0, 0], &[0, 0, 0]]);
        assert!(Direction::ALL.iter().all(|&d| b.slide(d).is_none()));
    }

    #[test]
    fn full_board_without_equal_neighbours_cannot_move() {
        let b = board(&[&[2, 4, 2], &[4, 2, 4], &[2, 4, 2]]);
        assert!(Direction::ALL.iter().all(|&d| b.slide(d).is_none()));
    }
}
