//! `Board4`: a 4x4 board packed in a `u64` (4 bits per cell, the tile's exponent), moved by
//! table lookups. It is the engine of search players and headless playouts on 4x4 boards.
//!
//! The tables are built by running [`slide_line`] on every possible row, so `Board4` follows the
//! plain rules by construction. It holds exponents up to 15 (32768); two 32768s never merge here
//! (a 65536 cannot be stored), which is the one place it differs from [`Board`].

use crate::board::Board;
use crate::direction::Direction;
use crate::grid::Grid;
use crate::line::slide_line;
use std::sync::LazyLock;

/// The largest exponent a `Board4` cell holds.
pub const MAX_PACKED_EXPONENT: u8 = 15;

/// A 4x4 board; cell (r, c) is the nibble at bits `4 * (4r + c)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Board4(u64);

struct Tables {
    left: Vec<u16>,
    right: Vec<u16>,
    left_points: Vec<u32>,
    right_points: Vec<u32>,
    score: Vec<f32>,
}

fn unpack_row(row: u16) -> [u8; 4] {
    [0, 1, 2, 3].map(|c| ((row >> (4 * c)) & 0xF) as u8)
}

fn pack_row(cells: [u8; 4]) -> u16 {
    cells
        .iter()
        .enumerate()
        .fold(0, |row, (c, &e)| row | (u16::from(e) << (4 * c)))
}

fn reverse_row(row: u16) -> u16 {
    (row >> 12) | ((row >> 4) & 0x00F0) | ((row << 4) & 0x0F00) | (row << 12)
}

/// Slides a packed row toward cell 0 with the plain rules, except that 15s never merge: each 15
/// is swapped for a distinct marker that equals nothing, then swapped back.
fn slide_packed_row(row: u16) -> (u16, u32) {
    let mut cells = unpack_row(row);
    for (i, cell) in cells.iter_mut().enumerate() {
        if *cell == MAX_PACKED_EXPONENT {
            *cell = 100 + i as u8;
        }
    }
    let points = slide_line(&mut cells).unwrap_or(0);
    let cells = cells.map(|e| if e >= 100 { MAX_PACKED_EXPONENT } else { e });
    (pack_row(cells), points as u32)
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| {
    let mut t = Tables {
        left: vec![0; 1 << 16],
        right: vec![0; 1 << 16],
        left_points: vec![0; 1 << 16],
        right_points: vec![0; 1 << 16],
        score: vec![0.0; 1 << 16],
    };
    for row in 0..=u16::MAX {
        let i = usize::from(row);
        let (left, points) = slide_packed_row(row);
        let (reversed, reversed_points) = slide_packed_row(reverse_row(row));
        t.left[i] = left;
        t.left_points[i] = points;
        t.right[i] = reverse_row(reversed);
        t.right_points[i] = reversed_points;
        t.score[i] = crate::ai::heuristic::line_score(&unpack_row(row));
    }
    t
});

/// Swaps rows and columns.
fn transpose(x: u64) -> u64 {
    let a1 = x & 0xF0F0_0F0F_F0F0_0F0F;
    let a2 = x & 0x0000_F0F0_0000_F0F0;
    let a3 = x & 0x0F0F_0000_0F0F_0000;
    let a = a1 | (a2 << 12) | (a3 >> 12);
    let b1 = a & 0xFF00_FF00_00FF_00FF;
    let b2 = a & 0x00FF_00FF_0000_0000;
    let b3 = a & 0x0000_0000_FF00_FF00;
    b1 | (b2 >> 24) | (b3 << 24)
}

/// Slides every row with `table`; returns the new board and the points.
#[inline]
fn slide_rows(x: u64, table: &[u16], points: &[u32]) -> (u64, u64) {
    let mut out = 0u64;
    let mut total = 0u64;
    for r in 0..4 {
        let row = ((x >> (16 * r)) & 0xFFFF) as usize;
        out |= u64::from(table[row]) << (16 * r);
        total += u64::from(points[row]);
    }
    (out, total)
}

impl Board4 {
    /// The packed form of `board`, if it is 4x4 and every tile is at most 2^15.
    pub fn from_board(board: &Board) -> Option<Board4> {
        if board.size() != 4 || board.max_exponent() > MAX_PACKED_EXPONENT {
            return None;
        }
        let bits = board
            .exponents()
            .iter()
            .enumerate()
            .fold(0u64, |bits, (i, &e)| bits | (u64::from(e) << (4 * i)));
        Some(Board4(bits))
    }

    /// The plain form.
    pub fn to_board(self) -> Board {
        let cells: Vec<u8> = (0..16).map(|i| ((self.0 >> (4 * i)) & 0xF) as u8).collect();
        Board::from_exponents(4, &cells).expect("16 cells make a 4x4 board")
    }

    /// The raw bits.
    pub fn bits(self) -> u64 {
        self.0
    }

    /// Forces the tables to be built now (they are built on first use otherwise).
    pub fn warm_up() {
        LazyLock::force(&TABLES);
    }
}

impl Grid for Board4 {
    const MAX_EXPONENT: u8 = MAX_PACKED_EXPONENT;

    fn size(&self) -> usize {
        4
    }

    #[inline]
    fn get(&self, row: usize, col: usize) -> u8 {
        ((self.0 >> (4 * (4 * row + col))) & 0xF) as u8
    }

    #[inline]
    fn set(&mut self, row: usize, col: usize, exponent: u8) {
        let shift = 4 * (4 * row + col);
        self.0 =
            (self.0 & !(0xF << shift)) | (u64::from(exponent.min(MAX_PACKED_EXPONENT)) << shift);
    }

    #[inline]
    fn slide(&self, direction: Direction) -> Option<(Board4, u64)> {
        let t = &*TABLES;
        let (next, points) = match direction {
            Direction::Left => slide_rows(self.0, &t.left, &t.left_points),
            Direction::Right => slide_rows(self.0, &t.right, &t.right_points),
            Direction::Up => {
                let (n, p) = slide_rows(transpose(self.0), &t.left, &t.left_points);
                (transpose(n), p)
            }
            Direction::Down => {
                let (n, p) = slide_rows(transpose(self.0), &t.right, &t.right_points);
                (transpose(n), p)
            }
        };
        (next != self.0).then_some((Board4(next), points))
    }

    #[inline]
    fn empty_count(&self) -> usize {
        let mut x = self.0 | (self.0 >> 1);
        x |= x >> 2;
        16 - (x & 0x1111_1111_1111_1111).count_ones() as usize
    }

    fn max_exponent(&self) -> u8 {
        (0..16)
            .map(|i| ((self.0 >> (4 * i)) & 0xF) as u8)
            .max()
            .unwrap_or(0)
    }

    #[inline]
    fn nth_empty(&self, k: usize) -> Option<(usize, usize)> {
        let mut seen = 0;
        for i in 0..16 {
            if (self.0 >> (4 * i)) & 0xF == 0 {
                if seen == k {
                    return Some((i / 4, i % 4));
                }
                seen += 1;
            }
        }
        None
    }

    #[inline]
    fn heuristic(&self) -> f32 {
        let t = &*TABLES;
        let rows = |x: u64| -> f32 {
            (0..4)
                .map(|r| t.score[((x >> (16 * r)) & 0xFFFF) as usize])
                .sum()
        };
        rows(self.0) + rows(transpose(self.0))
    }

    fn to_board(&self) -> Board {
        Board4::to_board(*self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_board() {
        let board = Board::from_exponents(4, &(0..16).collect::<Vec<u8>>()).unwrap();
        let packed = Board4::from_board(&board).unwrap();
        assert_eq!(packed.to_board(), board);
        assert_eq!(packed.get(2, 3), 11);
        assert_eq!(packed.empty_count(), 1);
        assert_eq!(packed.max_exponent(), 15);
    }

    #[test]
    fn refuses_what_it_cannot_hold() {
        assert!(Board4::from_board(&Board::empty(5).unwrap()).is_none());
        let mut big = Board::empty(4).unwrap();
        big.set(0, 0, 16);
        assert!(Board4::from_board(&big).is_none());
    }

    #[test]
    fn transpose_swaps_rows_and_columns() {
        let board = Board::from_exponents(4, &(0..16).collect::<Vec<u8>>()).unwrap();
        let t = Board4(transpose(Board4::from_board(&board).unwrap().0));
        for r in 0..4 {
            for c in 0..4 {
                assert_eq!(t.get(r, c), board.get(c, r));
            }
        }
    }

    #[test]
    fn two_32768s_do_not_merge_but_others_do() {
        let row = pack_row([15, 15, 1, 1]);
        assert_eq!(slide_packed_row(row), (pack_row([15, 15, 2, 0]), 4));
    }
}
