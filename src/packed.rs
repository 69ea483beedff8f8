//! Packed boards: an N x N board in one integer, 4 bits a cell (the tile's exponent), moved by
//! per-row table lookups. They are the engine of search players and headless playouts.
//!
//! There is one engine, [`PackedBoard<N>`]; the sizes it exists for, and the integer each one
//! lives in, are the one list in [`packed_sizes!`] at the bottom of this file. From that list
//! come [`on_fastest`] (the one place that picks a representation for a board), [`warm_up`] and
//! [`PACKED_SIZES`]; a size not in it does not compile (`PackedBoard::<6>` has no `Layout`).
//!
//! One engine serves every size: a transpose-based 4x4 column move (the separate `Board4` of
//! earlier versions) measured 6.4 ns per Up move against 6.9 ns for the generic path, and the
//! same 1.65 ms per search decision (`cargo bench --bench engine`, both builds in one session),
//! so no 4x4 special case is kept.
//!
//! The tables are built by running [`slide_line`] on every possible row, so packed boards follow
//! the plain rules by construction. They hold exponents up to 15 (32768); two 32768s never merge
//! here (a 65536 cannot be stored), which is the one place they differ from [`Board`].

use crate::board::Board;
use crate::direction::Direction;
use crate::grid::{Grid, OnGrid};
use crate::line::slide_line;
use crate::size::Size;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::OnceLock;

/// The largest exponent a packed cell holds.
pub const MAX_PACKED_EXPONENT: u8 = 15;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u128 {}
    impl<const N: usize> Sealed for super::Packing<N> {}
}

/// An unsigned integer that holds a packed board (`u64` or `u128`): the few bit operations the
/// engine needs, so that one generic engine serves every width.
pub trait Bits:
    Copy + Eq + Hash + Default + Debug + Send + Sync + 'static + sealed::Sealed
{
    /// The `index`-th 4-bit cell.
    fn nibble(self, index: usize) -> u8;
    /// The same bits with the `index`-th cell set to `value` (at most 15).
    #[must_use]
    fn with_nibble(self, index: usize, value: u8) -> Self;
    /// `width` bits starting at bit `shift`.
    fn field(self, shift: usize, width: usize) -> usize;
    /// The same bits or-ed with `value << shift`.
    #[must_use]
    fn or_shifted(self, value: u64, shift: usize) -> Self;
    /// How many 4-bit cells are not zero.
    fn occupied_nibbles(self) -> u32;
}

macro_rules! bits {
    ($t:ty, $low_bits:expr) => {
        impl Bits for $t {
            #[inline]
            fn nibble(self, index: usize) -> u8 {
                ((self >> (4 * index)) & 0xF) as u8
            }
            #[inline]
            fn with_nibble(self, index: usize, value: u8) -> $t {
                let shift = 4 * index;
                (self & !(0xF << shift)) | (<$t>::from(value) << shift)
            }
            #[inline]
            fn field(self, shift: usize, width: usize) -> usize {
                ((self >> shift) & ((1 << width) - 1)) as usize
            }
            #[inline]
            fn or_shifted(self, value: u64, shift: usize) -> $t {
                self | (<$t>::from(value) << shift)
            }
            #[inline]
            fn occupied_nibbles(self) -> u32 {
                // Bit 0 of each nibble becomes "this cell holds a tile".
                let mut x = self | (self >> 1);
                x |= x >> 2;
                (x & $low_bits).count_ones()
            }
        }
    };
}
bits!(u64, 0x1111_1111_1111_1111);
bits!(u128, 0x1111_1111_1111_1111_1111_1111_1111_1111);

/// The packed layout of an N x N board: which integer holds it. Implemented for the sizes in
/// the one list at the bottom of this file, and for no other.
pub trait Layout: sealed::Sealed {
    /// The integer the board lives in.
    type Bits: Bits;
}

/// The marker type that carries a size into [`Layout`].
#[derive(Debug)]
pub struct Packing<const N: usize>;

/// A packed N x N board; cell (r, c) is the nibble at bits `4 * (N * r + c)`.
///
/// Invariant: the bits above `4 * N * N` are 0, so derived equality and hashing compare boards
/// by their tiles.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PackedBoard<const N: usize>
where
    Packing<N>: Layout,
{
    bits: <Packing<N> as Layout>::Bits,
}

/// A 3x3 board (the `mini` variant's).
pub type Board3 = PackedBoard<3>;
/// A 4x4 board (Power-11 Hard, classic 2048).
pub type Board4 = PackedBoard<4>;
/// A 5x5 board (Power-11 Easy).
pub type Board5 = PackedBoard<5>;

/// What one packed row (4 bits per cell, cell 0 in the low bits) becomes, for every row of one
/// width.
struct MoveTables {
    left: Vec<u32>,
    right: Vec<u32>,
    left_points: Vec<u32>,
    right_points: Vec<u32>,
}

/// The tables by row width, each built on first use.
static TABLES: [OnceLock<MoveTables>; Size::MAX + 1] = [const { OnceLock::new() }; Size::MAX + 1];

fn pack_row(cells: &[u8]) -> u32 {
    cells
        .iter()
        .enumerate()
        .fold(0, |row, (c, &e)| row | (u32::from(e) << (4 * c)))
}

/// Slides a row toward cell 0 with the plain rules, except that 15s never merge: each 15 is
/// swapped for a distinct marker that equals nothing, then swapped back.
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

impl MoveTables {
    fn build(n: usize) -> MoveTables {
        let rows = 1usize << (4 * n);
        let mut t = MoveTables {
            left: vec![0; rows],
            right: vec![0; rows],
            left_points: vec![0; rows],
            right_points: vec![0; rows],
        };
        for i in 0..rows {
            let cells: Vec<u8> = (0..n).map(|c| ((i >> (4 * c)) & 0xF) as u8).collect();
            let (left, points) = slide_row(cells.clone());
            t.left[i] = pack_row(&left);
            t.left_points[i] = points;
            let reversed: Vec<u8> = cells.iter().rev().copied().collect();
            let (mut right, points) = slide_row(reversed);
            right.reverse();
            t.right[i] = pack_row(&right);
            t.right_points[i] = points;
        }
        t
    }
}

impl<const N: usize> PackedBoard<N>
where
    Packing<N>: Layout,
{
    const ROW_BITS: usize = 4 * N;

    #[inline]
    fn tables() -> &'static MoveTables {
        TABLES[N].get_or_init(|| MoveTables::build(N))
    }

    /// The packed form of `board`, if it is N x N and every tile is below 2^15.
    ///
    /// A 32768 fits a cell but two of them cannot merge here, so a board that holds one is
    /// refused: a search on it must see that merge, and the plain board does.
    pub fn from_board(board: &Board) -> Option<PackedBoard<N>> {
        if board.size() != N || board.max_exponent() >= MAX_PACKED_EXPONENT {
            return None;
        }
        let bits = board
            .exponents()
            .iter()
            .enumerate()
            .fold(<Packing<N> as Layout>::Bits::default(), |bits, (i, &e)| {
                bits.with_nibble(i, e)
            });
        Some(PackedBoard { bits })
    }

    /// The plain form.
    pub fn to_board(self) -> Board {
        let cells: Vec<u8> = (0..N * N).map(|i| self.bits.nibble(i)).collect();
        Board::from_exponents(N, &cells).expect("N * N cells make an N x N board")
    }

    /// The raw bits.
    pub fn bits(self) -> <Packing<N> as Layout>::Bits {
        self.bits
    }

    /// Forces the tables to be built now (they are built on first use otherwise; the 5x5 ones
    /// take a moment), so that timing a run does not charge them to its first game.
    pub fn warm_up() {
        let _ = Self::tables();
    }

    #[inline]
    fn row(self, r: usize) -> usize {
        self.bits.field(Self::ROW_BITS * r, Self::ROW_BITS)
    }

    /// Column `c` read top to bottom, packed like a row.
    #[inline]
    fn column(self, c: usize) -> usize {
        (0..N).fold(0, |col, r| {
            col | (usize::from(self.bits.nibble(N * r + c)) << (4 * r))
        })
    }

    /// Slides every row (`vertical == false`) or every column with `table`.
    #[inline]
    fn slide_lines(self, vertical: bool, table: &[u32], points: &[u32]) -> (Self, u64) {
        let mut out = <Packing<N> as Layout>::Bits::default();
        let mut total = 0u64;
        for line in 0..N {
            let index = if vertical {
                self.column(line)
            } else {
                self.row(line)
            };
            let moved = u64::from(table[index]);
            total += u64::from(points[index]);
            if vertical {
                for r in 0..N {
                    out = out.or_shifted((moved >> (4 * r)) & 0xF, 4 * (N * r + line));
                }
            } else {
                out = out.or_shifted(moved, Self::ROW_BITS * line);
            }
        }
        (PackedBoard { bits: out }, total)
    }
}

impl<const N: usize> Grid for PackedBoard<N>
where
    Packing<N>: Layout,
{
    const MAX_EXPONENT: u8 = MAX_PACKED_EXPONENT;

    fn size(&self) -> usize {
        N
    }

    #[inline]
    fn get(&self, row: usize, col: usize) -> u8 {
        self.bits.nibble(N * row + col)
    }

    #[inline]
    fn set(&mut self, row: usize, col: usize, exponent: u8) {
        self.bits = self
            .bits
            .with_nibble(N * row + col, exponent.min(MAX_PACKED_EXPONENT));
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
        (next != *self).then_some((next, points))
    }

    #[inline]
    fn empty_count(&self) -> usize {
        // The bits past the last cell are 0, so they count as empty nibbles of no cell.
        N * N - self.bits.occupied_nibbles() as usize
    }

    fn max_exponent(&self) -> u8 {
        (0..N * N).map(|i| self.bits.nibble(i)).max().unwrap_or(0)
    }

    #[inline]
    fn nth_empty(&self, k: usize) -> Option<(usize, usize)> {
        let mut seen = 0;
        for i in 0..N * N {
            if self.bits.nibble(i) == 0 {
                if seen == k {
                    return Some((i / N, i % N));
                }
                seen += 1;
            }
        }
        None
    }

    #[inline]
    fn line_key(&self, index: usize, vertical: bool) -> usize {
        if vertical {
            self.column(index)
        } else {
            self.row(index)
        }
    }

    fn to_board(&self) -> Board {
        PackedBoard::to_board(*self)
    }
}

/// The one list of packed sizes and the integer each lives in. A new packed size is one more
/// entry here (its tables have 16^N rows, so sizes past 5 cost more memory than they save time).
macro_rules! packed_sizes {
    ($($n:literal => $bits:ty),* $(,)?) => {
        $(
            impl Layout for Packing<$n> {
                type Bits = $bits;
            }
            const _: () = assert!(4 * $n * $n <= <$bits>::BITS as usize, "the board fits its integer");
        )*

        /// The sizes that have a packed board.
        pub const PACKED_SIZES: &[usize] = &[$($n),*];

        /// Runs `task` on `board` packed when a packed board of its size holds it, plain
        /// otherwise. This is the one place that chooses a representation.
        pub fn on_fastest<T: OnGrid>(board: &Board, task: T) -> T::Output {
            match board.size() {
                $($n => match PackedBoard::<$n>::from_board(board) {
                    Some(packed) => task.run(packed),
                    None => task.run(*board),
                },)*
                _ => task.run(*board),
            }
        }

        /// Builds the move tables of the packed board for `size`, if there is one, so that
        /// timing a run does not charge their construction to its first game.
        pub fn warm_up(size: usize) {
            match size {
                $($n => PackedBoard::<$n>::warm_up(),)*
                _ => {}
            }
        }
    };
}

packed_sizes! {
    3 => u64,
    4 => u64,
    5 => u128,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_board_on_every_packed_size() {
        struct Check;
        impl OnGrid for Check {
            type Output = (Board, usize, u8, bool);
            fn run<G: Grid>(self, grid: G) -> Self::Output {
                (
                    grid.to_board(),
                    grid.empty_count(),
                    grid.max_exponent(),
                    G::MAX_EXPONENT == MAX_PACKED_EXPONENT,
                )
            }
        }
        for &n in PACKED_SIZES {
            let mut cells: Vec<u8> = (0..n * n).map(|i| (i % 15) as u8).collect();
            cells[n * n - 1] = MAX_PACKED_EXPONENT - 1;
            let board = Board::from_exponents(n, &cells).unwrap();
            let (back, empty, max, packed) = on_fastest(&board, Check);
            assert_eq!(back, board, "{n}");
            assert_eq!(empty, cells.iter().filter(|&&e| e == 0).count(), "{n}");
            assert_eq!((max, packed), (14, true), "{n}");
        }
    }

    #[test]
    fn refuses_what_it_cannot_hold() {
        assert!(Board4::from_board(&Board::empty(5).unwrap()).is_none());
        assert!(Board3::from_board(&Board::empty(4).unwrap()).is_none());
        let mut big = Board::empty(4).unwrap();
        big.set(0, 0, 16);
        assert!(Board4::from_board(&big).is_none());
        // A 32768 fits a cell, but two would not merge: the plain board takes it.
        big.set(0, 0, MAX_PACKED_EXPONENT);
        assert!(Board4::from_board(&big).is_none());
        big.set(0, 0, MAX_PACKED_EXPONENT - 1);
        assert!(Board4::from_board(&big).is_some());
    }

    #[test]
    fn default_packed_boards_are_empty_and_cannot_move() {
        // `PackedBoard::<4>::default().slide(Left)` used to panic through the public API.
        assert_eq!(Board4::default().slide(Direction::Left), None);
        assert_eq!(Board3::default().empty_count(), 9);
        assert!(!Board5::default().can_move());
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
