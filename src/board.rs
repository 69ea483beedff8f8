//! The plain n x n board: exact rules for every size from 3 to 8.

use crate::direction::Direction;
use crate::grid::{Grid, line_cell};
use crate::line::slide_line;
use thiserror::Error;

/// The smallest board size.
pub const MIN_SIZE: usize = 3;
/// The largest board size.
pub const MAX_SIZE: usize = 8;
/// The largest exponent a board file or save may hold (2^63, the largest power of two in `u64`).
pub const MAX_FILE_EXPONENT: u8 = 63;

/// Why a board could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BoardError {
    /// The size is outside 3..=8.
    #[error("board size {0} is not between {MIN_SIZE} and {MAX_SIZE}")]
    BadSize(usize),
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

/// A square board of size 3..=8 holding tile exponents, stored row-major in a fixed array.
///
/// Invariant: `3 <= size <= 8` and every cell past `size * size` is 0, so derived equality and
/// hashing compare boards by their tiles. It is `Copy`, so search can use it without allocating.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Board {
    size: u8,
    cells: [u8; MAX_SIZE * MAX_SIZE],
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
    pub fn empty(size: usize) -> Result<Board, BoardError> {
        if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
            return Err(BoardError::BadSize(size));
        }
        Ok(Board {
            size: size as u8,
            cells: [0; MAX_SIZE * MAX_SIZE],
        })
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
        let n = self.size();
        &self.cells[..n * n]
    }

    /// The sum of all tile values (a move never changes it; a spawn adds the new tile).
    pub fn tile_sum(&self) -> u128 {
        self.exponents().iter().map(|&e| tile_value(e)).sum()
    }
}

impl Grid for Board {
    /// Exponents go as high as a `u8` holds (far past any file's 2^63).
    const MAX_EXPONENT: u8 = u8::MAX;

    fn size(&self) -> usize {
        usize::from(self.size)
    }

    fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.size() + col]
    }

    fn set(&mut self, row: usize, col: usize, exponent: u8) {
        let n = self.size();
        self.cells[row * n + col] = exponent;
    }

    fn slide(&self, direction: Direction) -> Option<(Board, u64)> {
        let n = self.size();
        let mut next = *self;
        let mut points = 0u64;
        let mut changed = false;
        let mut buffer = [0u8; MAX_SIZE];
        for line in 0..n {
            let buffer = &mut buffer[..n];
            for (k, cell) in buffer.iter_mut().enumerate() {
                let (r, c) = line_cell(n, direction, line, k);
                *cell = self.get(r, c);
            }
            if let Some(p) = slide_line(buffer) {
                changed = true;
                points = points.saturating_add(p);
                for (k, &cell) in buffer.iter().enumerate() {
                    let (r, c) = line_cell(n, direction, line, k);
                    next.set(r, c, cell);
                }
            }
        }
        changed.then_some((next, points))
    }

    fn empty_count(&self) -> usize {
        self.exponents().iter().filter(|&&e| e == 0).count()
    }

    fn max_exponent(&self) -> u8 {
        self.exponents().iter().copied().max().unwrap_or(0)
    }

    fn heuristic(&self) -> f32 {
        let n = self.size();
        let mut total = 0.0;
        let mut line = [0u8; MAX_SIZE];
        for i in 0..n {
            for (k, cell) in line[..n].iter_mut().enumerate() {
                *cell = self.get(i, k);
            }
            total += crate::ai::heuristic::line_score(&line[..n]);
            for (k, cell) in line[..n].iter_mut().enumerate() {
                *cell = self.get(k, i);
            }
            total += crate::ai::heuristic::line_score(&line[..n]);
        }
        total
    }

    fn to_board(&self) -> Board {
        *self
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

    #[test]
    fn sizes_outside_3_to_8_are_refused() {
        assert_eq!(Board::empty(2), Err(BoardError::BadSize(2)));
        assert_eq!(Board::empty(9), Err(BoardError::BadSize(9)));
        assert!(Board::empty(3).is_ok() && Board::empty(8).is_ok());
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
        assert!(!b.can_move());
        assert!(Direction::ALL.iter().all(|&d| b.slide(d).is_none()));
    }

    #[test]
    fn full_board_without_equal_neighbours_cannot_move() {
        let b = board(&[&[2, 4, 2], &[4, 2, 4], &[2, 4, 2]]);
        assert!(!b.can_move());
        assert!(Direction::ALL.iter().all(|&d| b.slide(d).is_none()));
    }
}
