//! `Board3` and `Board5`: 3x3 and 5x5 boards packed in a `u128` (4 bits per cell, the tile's
//! exponent), moved and evaluated by per-row table lookups. They are the engine of search players
//! and headless playouts on the `mini` board and on Power-11 Easy.
//!
//! As for [`crate::Board4`], the tables are built by running [`slide_line`] and
//! [`line_score`] on every possible row, so these boards follow the plain rules by construction,
//! except that two 32768s never merge (a 65536 cannot be stored). The evaluation adds the rows and
//! columns in the same order as [`Board`]'s, so a search decides exactly as it would on the plain
//! board, only faster.

use crate::ai::heuristic::line_score;
use crate::board::Board;
use crate::direction::Direction;
use crate::grid::Grid;
use crate::line::slide_line;
use crate::packed::MAX_PACKED_EXPONENT;
use std::sync::LazyLock;

/// A packed N x N board for N = 3 or 5; cell (r, c) is the nibble at bits `4 * (N * r + c)`.
///
/// Invariant: the bits above `4 * N * N` are 0, so derived equality and hashing compare boards
/// by their tiles.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PackedBoard<const N: usize>(u128);

/// A 3x3 board in a `u128`.
pub type Board3 = PackedBoard<3>;
/// A 5x5 board in a `u128`.
pub type Board5 = PackedBoard<5>;

/// What one packed row (4 bits per cell, cell 0 in the low bits) becomes, for every row.
struct Tables {
    left: Vec<u32>,
    right: Vec<u32>,
    left_points: Vec<u32>,
    right_points: Vec<u32>,
    score: Vec<f32>,
}

fn unpack_row(n: usize, row: u32) -> Vec<u8> {
    (0..n).map(|c| ((row >> (4 * c)) & 0xF) as u8).collect()
}

fn pack_row(cells: &[u8]) -> u32 {
    cells
        .iter()
        .enumerate()
        .fold(0, |row, (c, &e)| row | (u32::from(e) << (4 * c)))
}

/// Slides a row of `n` cells toward cell 0 with the plain rules, except that 15s never merge:
/// each 15 is swapped for a distinct marker that equals nothing, then swapped back.
fn slide_row(mut cells: Vec<u8>) -> (Vec<u8>, u32) {
    for (i, cell) in cells.iter_mut().enumerate() {
        if *cell == MAX_PACKED_EXPONENT {
            *cell = 100 + i as u8;
        }
    }
    let points = slide_line(&mut cells).unwrap_or(0);
    for cell in &mut cells {
        if *cell >= 100 {
            *cell = MAX_PACKED_EXPONENT;
        }
    }
    (cells, points as u32)
}

fn build_tables(n: usize) -> Tables {
    let rows = 1usize << (4 * n);
    let mut t = Tables {
        left: vec![0; rows],
        right: vec![0; rows],
        left_points: vec![0; rows],
        right_points: vec![0; rows],
        score: vec![0.0; rows],
    };
    for i in 0..rows {
        let cells = unpack_row(n, i as u32);
        let (left, points) = slide_row(cells.clone());
        t.left[i] = pack_row(&left);
        t.left_points[i] = points;
        let reversed: Vec<u8> = cells.iter().rev().copied().collect();
        let (mut right, points) = slide_row(reversed);
        right.reverse();
        t.right[i] = pack_row(&right);
        t.right_points[i] = points;
        t.score[i] = line_score(&cells);
    }
    t
}

static TABLES_3: LazyLock<Tables> = LazyLock::new(|| build_tables(3));
static TABLES_5: LazyLock<Tables> = LazyLock::new(|| build_tables(5));

impl<const N: usize> PackedBoard<N> {
    const ROW_BITS: usize = 4 * N;
    const ROW_MASK: u128 = (1 << (4 * N)) - 1;

    fn tables() -> &'static Tables {
        match N {
            3 => &TABLES_3,
            5 => &TABLES_5,
            _ => unreachable!("PackedBoard exists for N = 3 and N = 5 only"),
        }
    }

    /// The packed form of `board`, if it is N x N, N is 3 or 5, and every tile is at most 2^15.
    pub fn from_board(board: &Board) -> Option<PackedBoard<N>> {
        if !matches!(N, 3 | 5) || board.size() != N || board.max_exponent() > MAX_PACKED_EXPONENT {
            return None;
        }
        let bits = board
            .exponents()
            .iter()
            .enumerate()
            .fold(0u128, |bits, (i, &e)| bits | (u128::from(e) << (4 * i)));
        Some(PackedBoard(bits))
    }

    /// The plain form.
    pub fn to_board(self) -> Board {
        let cells: Vec<u8> = (0..N * N).map(|i| self.cell(i)).collect();
        Board::from_exponents(N, &cells).expect("N * N cells make an N x N board")
    }

    /// Forces the tables to be built now (they are built on first use otherwise; the 5x5 ones
    /// take a moment).
    pub fn warm_up() {
        let _ = Self::tables();
    }

    #[inline]
    fn cell(self, i: usize) -> u8 {
        ((self.0 >> (4 * i)) & 0xF) as u8
    }

    #[inline]
    fn row(self, r: usize) -> usize {
        ((self.0 >> (Self::ROW_BITS * r)) & Self::ROW_MASK) as usize
    }

    /// Column `c` read top to bottom, packed like a row.
    #[inline]
    fn column(self, c: usize) -> usize {
        (0..N).fold(0, |col, r| {
            col | (usize::from(self.cell(N * r + c)) << (4 * r))
        })
    }

    /// Slides every row (`vertical == false`) or every column with `table`.
    #[inline]
    fn slide_lines(self, vertical: bool, table: &[u32], points: &[u32]) -> (u128, u64) {
        let mut out = 0u128;
        let mut total = 0u64;
        for line in 0..N {
            let index = if vertical {
                self.column(line)
            } else {
                self.row(line)
            };
            let moved = u128::from(table[index]);
            total += u64::from(points[index]);
            if vertical {
                for r in 0..N {
                    out |= ((moved >> (4 * r)) & 0xF) << (4 * (N * r + line));
                }
            } else {
                out |= moved << (Self::ROW_BITS * line);
            }
        }
        (out, total)
    }
}

impl<const N: usize> Grid for PackedBoard<N> {
    const MAX_EXPONENT: u8 = MAX_PACKED_EXPONENT;

    fn size(&self) -> usize {
        N
    }

    #[inline]
    fn get(&self, row: usize, col: usize) -> u8 {
        self.cell(N * row + col)
    }

    #[inline]
    fn set(&mut self, row: usize, col: usize, exponent: u8) {
        let shift = 4 * (N * row + col);
        self.0 =
            (self.0 & !(0xF << shift)) | (u128::from(exponent.min(MAX_PACKED_EXPONENT)) << shift);
    }

    #[inline]
    fn slide(&self, direction: Direction) -> Option<(PackedBoard<N>, u64)> {
        let t = Self::tables();
        let (next, points) = match direction {
            Direction::Left => self.slide_lines(false, &t.left, &t.left_points),
            Direction::Right => self.slide_lines(false, &t.right, &t.right_points),
            Direction::Up => self.slide_lines(true, &t.left, &t.left_points),
            Direction::Down => self.slide_lines(true, &t.right, &t.right_points),
        };
        (next != self.0).then_some((PackedBoard(next), points))
    }

    #[inline]
    fn empty_count(&self) -> usize {
        // Bit 0 of each nibble becomes "this cell holds a tile".
        let mut x = self.0 | (self.0 >> 1);
        x |= x >> 2;
        let low_bits = (0..N * N).fold(0u128, |m, i| m | (1 << (4 * i)));
        N * N - (x & low_bits).count_ones() as usize
    }

    fn max_exponent(&self) -> u8 {
        (0..N * N).map(|i| self.cell(i)).max().unwrap_or(0)
    }

    #[inline]
    fn heuristic(&self) -> f32 {
        // Row i, then column i, as Board::heuristic adds them: the same f32 sum to the bit.
        let t = Self::tables();
        let mut total = 0.0;
        for i in 0..N {
            total += t.score[self.row(i)];
            total += t.score[self.column(i)];
        }
        total
    }

    fn to_board(&self) -> Board {
        PackedBoard::to_board(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_board_on_3x3_and_5x5() {
        let board = Board::from_exponents(3, &[0, 1, 2, 3, 4, 5, 6, 7, 15]).unwrap();
        let packed = Board3::from_board(&board).unwrap();
        assert_eq!(packed.to_board(), board);
        assert_eq!((packed.get(2, 2), packed.get(0, 1)), (15, 1));
        assert_eq!((packed.empty_count(), packed.max_exponent()), (1, 15));
        let cells: Vec<u8> = (0..25).map(|i| (i % 16) as u8).collect();
        let board = Board::from_exponents(5, &cells).unwrap();
        let packed = Board5::from_board(&board).unwrap();
        assert_eq!(packed.to_board(), board);
        assert_eq!(packed.empty_count(), 2);
    }

    #[test]
    fn refuses_what_it_cannot_hold() {
        assert!(Board3::from_board(&Board::empty(4).unwrap()).is_none());
        assert!(Board5::from_board(&Board::empty(3).unwrap()).is_none());
        assert!(PackedBoard::<4>::from_board(&Board::empty(4).unwrap()).is_none());
        let mut big = Board::empty(5).unwrap();
        big.set(4, 4, 16);
        assert!(Board5::from_board(&big).is_none());
    }

    #[test]
    fn columns_slide_like_the_plain_board() {
        let board = Board::from_values(&[vec![2, 0, 4], vec![2, 4, 0], vec![0, 4, 4]]).unwrap();
        let packed = Board3::from_board(&board).unwrap();
        for direction in Direction::ALL {
            let fast = packed.slide(direction).map(|(b, p)| (b.to_board(), p));
            assert_eq!(fast, board.slide(direction), "{direction}");
        }
    }

    #[test]
    fn two_32768s_do_not_merge_but_others_do() {
        assert_eq!(slide_row(vec![15, 15, 1, 1, 0]), (vec![15, 15, 2, 0, 0], 4));
    }
}
