//! What the rules and the players need from a board, whatever its representation.
//!
//! [`Board`] is the plain, exact representation for any size; the packed boards
//! ([`crate::PackedBoard`]) are the fast ones. Rules and players are written once, against this
//! trait. This module names no packed board: which representation a computation runs on is
//! chosen in `packed`, from its one list of packed sizes.

use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::line::MAX_TILE_EXPONENT;
use crate::model::size::Size;
use std::hash::Hash;

/// A square board of tile exponents (`0` = empty, `k` = the tile `2^k`).
pub trait Grid: Copy + Eq + Hash {
    /// The largest exponent a cell can hold (the packed boards stop at 15: two 32768s do not
    /// merge there).
    const MAX_EXPONENT: u8;

    /// The number of rows (= columns).
    fn size(&self) -> usize;

    /// The exponent at `row`, `col` (both below [`Grid::size`]).
    fn get(&self, row: usize, col: usize) -> u8;

    /// Puts exponent `exponent` at `row`, `col`.
    fn set(&mut self, row: usize, col: usize, exponent: u8);

    /// The board after sliding toward `direction` and the points the merges score, or `None`
    /// if the move changes nothing.
    fn slide(&self, direction: Direction) -> Option<(Self, u64)>;

    /// The board after sliding toward `direction`, or `None` if the move changes nothing: for
    /// callers that do not need the points (a search), which packed boards serve from smaller
    /// tables.
    fn moved(&self, direction: Direction) -> Option<Self> {
        self.slide(direction).map(|(next, _)| next)
    }

    /// How many cells are empty.
    fn empty_count(&self) -> usize;

    /// The largest exponent on the board (`0` if it is empty).
    fn max_exponent(&self) -> u8;

    /// Whether any move changes the board.
    fn can_move(&self) -> bool {
        // A board with both a tile and a hole always has a tile that can slide into some hole.
        // On a full board, Left changes a row iff it holds two equal neighbours, which is when
        // Right changes it too; likewise Up and Down for columns. An empty board cannot move.
        let empty = self.empty_count();
        (empty > 0 && empty < self.size() * self.size())
            || self.slide(Direction::Left).is_some()
            || self.slide(Direction::Up).is_some()
    }

    /// The `k`-th empty cell in row-major order, if there are more than `k`.
    fn nth_empty(&self, k: usize) -> Option<(usize, usize)> {
        self.empty_cells().nth(k)
    }

    /// Puts `exponent` in the `k`-th empty cell in row-major order and says whether there was
    /// one: every randomly placed new tile (after each move of a playout, millions a second),
    /// which packed boards place straight from their mask of holes, with no row and column in
    /// between.
    fn fill_nth_empty(&mut self, k: usize, exponent: u8) -> bool {
        let Some((row, col)) = self.nth_empty(k) else {
            return false;
        };
        self.set(row, col, exponent);
        true
    }

    /// The empty cells (row, column) in row-major order.
    fn empty_cells(&self) -> impl Iterator<Item = (usize, usize)> {
        let n = self.size();
        (0..n * n)
            .map(move |i| (i / n, i % n))
            .filter(|&(r, c)| self.get(r, c) == 0)
    }

    /// Row `index` (or column `index`, if `vertical`) as a key for per-line tables: 4 bits a
    /// cell, the first cell (leftmost, or topmost) in the low bits. Exact for boards whose
    /// [`Grid::MAX_EXPONENT`] is at most 15 (packed boards answer from their bits); larger
    /// exponents are cut to 15.
    fn line_key(&self, index: usize, vertical: bool) -> usize {
        (0..self.size()).fold(0, |key, k| {
            let (r, c) = if vertical { (k, index) } else { (index, k) };
            key | (usize::from(self.get(r, c).min(15)) << (4 * k))
        })
    }

    /// Every row's [`Grid::line_key`] (or every column's, if `vertical`), in order; entries past
    /// [`Grid::size`] are 0. Packed boards read all columns from one transpose.
    fn line_keys(&self, vertical: bool) -> [usize; Size::MAX] {
        let mut keys = [0; Size::MAX];
        for (i, key) in keys[..self.size()].iter_mut().enumerate() {
            *key = self.line_key(i, vertical);
        }
        keys
    }

    /// The same position as a plain [`Board`].
    fn to_board(&self) -> Board;
}

impl Grid for Board {
    /// Tiles go up to 2^63 (see [`MAX_TILE_EXPONENT`]).
    const MAX_EXPONENT: u8 = MAX_TILE_EXPONENT;

    fn size(&self) -> usize {
        Board::size(self)
    }

    fn get(&self, row: usize, col: usize) -> u8 {
        Board::get(self, row, col)
    }

    fn set(&mut self, row: usize, col: usize, exponent: u8) {
        Board::set(self, row, col, exponent);
    }

    fn slide(&self, direction: Direction) -> Option<(Board, u64)> {
        Board::slide(self, direction)
    }

    fn empty_count(&self) -> usize {
        Board::empty_count(self)
    }

    fn max_exponent(&self) -> u8 {
        Board::max_exponent(self)
    }

    fn to_board(&self) -> Board {
        *self
    }
}

/// A computation to run on a board in whichever representation is fastest for it (see
/// [`crate::on_fastest`]).
pub trait OnGrid {
    /// What the computation gives.
    type Output;

    /// Runs the computation on `grid`.
    fn run<G: Grid>(self, grid: G) -> Self::Output;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn can_move_on_full_and_empty_boards() {
        let stuck = Board::from_values(&[vec![2, 4, 2], vec![4, 2, 4], vec![2, 4, 2]]).unwrap();
        assert!(!stuck.can_move());
        let open = Board::from_values(&[vec![2, 4, 2], vec![4, 4, 8], vec![2, 8, 2]]).unwrap();
        assert!(open.can_move());
        assert!(!Board::empty(3).unwrap().can_move());
    }

    #[test]
    fn line_keys_read_rows_and_columns_from_the_first_cell() {
        let b = Board::from_values(&[vec![2, 4, 0], vec![8, 0, 0], vec![0, 0, 16]]).unwrap();
        assert_eq!(b.line_key(0, false), 0x021);
        assert_eq!(b.line_key(0, true), 0x031);
        assert_eq!(b.line_key(2, true), 0x400);
    }
}
