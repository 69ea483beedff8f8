//! What the rules and the players need from a board, whatever its representation.
//!
//! [`crate::Board`] is the plain, exact representation for any size; [`crate::Board4`],
//! [`crate::Board3`] and [`crate::Board5`] are the packed ones used where speed matters. Rules and
//! players are written once, against this trait, and [`on_fastest`] picks the representation.

use crate::board::Board;
use crate::direction::Direction;
use crate::packed::Board4;
use crate::packed128::{Board3, Board5};
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
        let n = self.size();
        (0..n * n)
            .map(|i| (i / n, i % n))
            .filter(|&(r, c)| self.get(r, c) == 0)
            .nth(k)
    }

    /// A number that grows with how promising the position is, for search players.
    ///
    /// It is the sum of [`crate::ai::heuristic::line_score`] over every row and column.
    fn heuristic(&self) -> f32;

    /// The same position as a plain [`Board`].
    fn to_board(&self) -> Board;
}

/// Builds the move tables of the packed board for `size`, if there is one, so that timing a
/// run does not charge their construction to its first game.
pub fn warm_up(size: usize) {
    match size {
        3 => Board3::warm_up(),
        4 => Board4::warm_up(),
        5 => Board5::warm_up(),
        _ => {}
    }
}

/// A computation to run on a board in whichever representation is fastest for it.
pub trait OnGrid {
    /// What the computation gives.
    type Output;

    /// Runs the computation on `grid`.
    fn run<G: Grid>(self, grid: G) -> Self::Output;
}

/// Runs `task` on `board` packed ([`Board4`], [`Board3`], [`Board5`]) when it fits, plain
/// otherwise. This is the one place that chooses a representation.
pub fn on_fastest<T: OnGrid>(board: &Board, task: T) -> T::Output {
    if let Some(packed) = Board4::from_board(board) {
        task.run(packed)
    } else if let Some(packed) = Board3::from_board(board) {
        task.run(packed)
    } else if let Some(packed) = Board5::from_board(board) {
        task.run(packed)
    } else {
        task.run(*board)
    }
}

/// The cell that is the `k`-th one of line `line` when the board of size `n` is read in the
/// direction of motion of `direction` (k = 0 is the cell at the wall tiles move toward).
pub fn line_cell(n: usize, direction: Direction, line: usize, k: usize) -> (usize, usize) {
    match direction {
        Direction::Left => (line, k),
        Direction::Right => (line, n - 1 - k),
        Direction::Up => (k, line),
        Direction::Down => (n - 1 - k, line),
    }
}
