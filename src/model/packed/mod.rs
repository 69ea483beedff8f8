//! Packed boards: an N x N board in one integer, 4 bits a cell (the tile's exponent), moved by
//! per-row table lookups. They are the engine of search players and headless playouts.
//!
//! There is one engine, [`PackedBoard<N>`]; the sizes it exists for, and the integer each one
//! lives in, are the one list in [`packed_sizes!`] at the bottom of this file. From that list
//! come [`on_fastest`] (the one place that picks a representation for a board), [`warm_up`] and
//! [`PACKED_SIZES`]; a size not in it does not compile (`PackedBoard::<6>` has no `Layout`).
//!
//! One engine serves every size. Columns move as the rows of the transposed board on 4x4 (a
//! transpose is three masked shifts of a `u64`), and cell by cell on the other sizes, where a
//! transpose is a loop over every cell and measured slower (`TRANSPOSES`). A 4x4 vertical
//! `slide` (points wanted) transposes once and reads column tables whose entries are already in
//! place ([`SpreadColumn`]), so it needs no transpose back. A hand-tuned table
//! engine in `benches/baseline/` is the yardstick (`cargo bench --bench engine -- engine_ratio`).
//!
//! The tables are built by running [`slide_line`] on every possible row, so packed boards follow
//! the plain rules by construction. They hold exponents up to 15 (32768); two 32768s never merge
//! here (a 65536 cannot be stored), which is the one place they differ from [`Board`].

use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::grid::{Grid, OnGrid};
use crate::model::size::Size;
use std::fmt::Debug;
use std::hash::Hash;
mod tables;

use tables::{MERGE_POINTS, MoveTables, SpreadColumn, TABLES, points_in_entry};

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
    /// The board of side `n` packed in these bits with rows and columns exchanged.
    #[must_use]
    fn transpose(self, n: usize) -> Self;
    /// Bit 0 of each of the first `cells` nibbles set if that nibble is zero; every other bit
    /// clear.
    #[must_use]
    fn zero_nibbles(self, cells: usize) -> Self;
    /// The index of the lowest set bit, cleared; `None` if no bit is set.
    fn take_lowest_bit(&mut self) -> Option<usize>;
}

/// [`Bits::transpose`] for any side, one cell at a time.
#[inline]
fn transpose_nibbles<B: Bits>(bits: B, n: usize) -> B {
    let mut out = B::default();
    for r in 0..n {
        for c in 0..n {
            out = out.or_shifted(u64::from(bits.nibble(n * r + c)), 4 * (n * c + r));
        }
    }
    out
}

macro_rules! bits {
    ($t:ty, $low_bits:expr, $transpose:item) => {
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
                x &= $low_bits;
                // Counted without `count_ones`, which is a long chain of shifts and masks on
                // x86-64 processors without POPCNT (the default target): each byte adds its
                // two nibbles (0 to 2), and one multiplication adds up the bytes into the top
                // byte (at most 32 cells, far below its 255).
                let bytes = (x + (x >> 4)) & (<$t>::MAX / 0xFF * 0x0F);
                (bytes.wrapping_mul(<$t>::MAX / 0xFF) >> (<$t>::BITS - 8)) as u32
            }
            #[inline]
            fn zero_nibbles(self, cells: usize) -> $t {
                // Bit 0 of each nibble becomes "this cell holds a tile"; the cells past the
                // board's last are masked off.
                let mut x = self | (self >> 1);
                x |= x >> 2;
                let all: $t = if 4 * cells >= <$t>::BITS as usize {
                    $low_bits
                } else {
                    $low_bits & ((1 << (4 * cells)) - 1)
                };
                !x & all
            }
            #[inline]
            fn take_lowest_bit(&mut self) -> Option<usize> {
                if *self == 0 {
                    return None;
                }
                let index = self.trailing_zeros() as usize;
                *self &= *self - 1;
                Some(index)
            }
            $transpose
        }
    };
}
bits!(
    u64,
    0x1111_1111_1111_1111,
    /// Sides other than 4 go one cell at a time; 4x4 swaps cells in three masked steps
    /// (2x2 blocks of cells, then 2x2 blocks of those), as table engines do.
    #[inline]
    fn transpose(self, n: usize) -> u64 {
        if n != 4 {
            return transpose_nibbles(self, n);
        }
        let a1 = self & 0xF0F0_0F0F_F0F0_0F0F;
        let a2 = self & 0x0000_F0F0_0000_F0F0;
        let a3 = self & 0x0F0F_0000_0F0F_0000;
        let a = a1 | (a2 << 12) | (a3 >> 12);
        let b1 = a & 0xFF00_FF00_00FF_00FF;
        let b2 = a & 0x00FF_00FF_0000_0000;
        let b3 = a & 0x0000_0000_FF00_FF00;
        b1 | (b2 >> 24) | (b3 << 24)
    }
);
bits!(
    u128,
    0x1111_1111_1111_1111_1111_1111_1111_1111,
    /// One cell at a time.
    #[inline]
    fn transpose(self, n: usize) -> u128 {
        transpose_nibbles(self, n)
    }
);

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

impl PackedBoard<4> {
    /// The 4x4 board these bits hold (cell (r, c) in the nibble at bits `4 * (4 * r + c)`):
    /// every `u64` is one, with 32768s that never merge (see the module's notes). The learned
    /// player and training work on raw bits.
    pub fn from_bits(bits: u64) -> Board4 {
        PackedBoard { bits }
    }
}

// The small move helpers are forced inline: left to itself the compiler kept the row move out
// of line in the random-player game, where the call was 21% of the time (perf, `cargo bench
// --bench engine -- engine_ratio`).
#[allow(clippy::inline_always)]
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

    /// Whether columns are read by transposing the whole board (4x4: a few masked shifts) or
    /// cell by cell (other sizes, where a transpose is a loop over every cell: measured slower
    /// on 5x5 than reading the columns).
    const TRANSPOSES: bool = N == 4;

    /// Column `c` read top to bottom, packed like a row.
    #[inline]
    fn column(self, c: usize) -> usize {
        (0..N).fold(0, |col, r| {
            col | (usize::from(self.bits.nibble(N * r + c)) << (4 * r))
        })
    }

    /// Every column moved by `lines` (which moves one line, given as a row key, to a row
    /// key), cell by cell: the other sizes' column move.
    #[inline(always)]
    fn move_columns(self, mut lines: impl FnMut(usize) -> u64) -> Self {
        let mut out = <Packing<N> as Layout>::Bits::default();
        for c in 0..N {
            let moved = lines(self.column(c));
            for r in 0..N {
                out = out.or_shifted((moved >> (4 * r)) & 0xF, 4 * (N * r + c));
            }
        }
        PackedBoard { bits: out }
    }

    /// The board with rows and columns exchanged: columns move as the rows of this.
    #[inline(always)]
    fn transposed(self) -> Self {
        PackedBoard {
            bits: self.bits.transpose(N),
        }
    }

    /// The board after a move, read from tables whose entries `row_of` turns into moved rows
    /// (it sees every entry used, so it can add up their points too). The one place a
    /// direction becomes rows, transposed rows or columns.
    #[inline(always)]
    fn move_with<E: Copy>(
        self,
        direction: Direction,
        left: &[E],
        right: &[E],
        mut row_of: impl FnMut(E) -> u64,
    ) -> Self {
        let table = match direction {
            Direction::Left | Direction::Up => left,
            Direction::Right | Direction::Down => right,
        };
        // A table has a row for every key: slicing it to that length once lets the compiler
        // drop the bounds check of each row's lookup (keys are masked to the row's bits).
        let table = &table[..1 << Self::ROW_BITS];
        match direction {
            Direction::Left | Direction::Right => self.move_rows(table, &mut row_of),
            // Columns are the rows of the transposed board.
            _ if Self::TRANSPOSES => self.transposed().move_rows(table, &mut row_of).transposed(),
            _ => self.move_columns(|key| row_of(table[key])),
        }
    }

    /// Every row moved by `table`, whose entries `row_of` turns into moved rows.
    #[inline(always)]
    fn move_rows<E: Copy>(self, table: &[E], row_of: &mut impl FnMut(E) -> u64) -> Self {
        let mut out = <Packing<N> as Layout>::Bits::default();
        for line in 0..N {
            out = out.or_shifted(row_of(table[self.row(line)]), Self::ROW_BITS * line);
        }
        PackedBoard { bits: out }
    }

    /// The bit that starts the `k`-th empty cell's nibble (row-major), if there are more than
    /// `k` empty cells. The default `nth_empty` walks `empty_cells`; clearing the lowest hole
    /// k times is the same answer in fewer steps, and a new tile is placed this way after
    /// every move of a playout.
    #[inline]
    fn nth_hole(self, k: usize) -> Option<usize> {
        let mut holes = self.bits.zero_nibbles(N * N);
        for _ in 0..k {
            holes.take_lowest_bit()?;
        }
        holes.take_lowest_bit()
    }

    /// Whether vertical moves with points read the column tables of [`SpreadColumn`]s (4x4).
    const SPREADS: bool = N == 4;

    /// A vertical move with its points on 4x4, from the [`SpreadColumn`] table of its
    /// direction: one transpose to read the columns, none back.
    #[inline(always)]
    fn slide_columns(self, table: &[SpreadColumn]) -> Option<(Self, u64)> {
        let table = &table[..1 << Self::ROW_BITS];
        let columns = self.transposed();
        let mut out = <Packing<N> as Layout>::Bits::default();
        let mut fields = 0;
        for c in 0..N {
            let SpreadColumn(entry) = table[columns.row(c)];
            out = out.or_shifted(entry & SpreadColumn::CELLS, 4 * c);
            fields += entry & SpreadColumn::POINT_FIELDS;
        }
        let next = PackedBoard { bits: out };
        (next != self).then_some((next, SpreadColumn::points(fields)))
    }

    /// A [`MoveTables`] entry's moved row and points: a quarter of the points above the row,
    /// or (on rows too long for them) at most two merged tiles' exponents, whose points are one
    /// lookup in [`MERGE_POINTS`] (the `packed_sizes!` list checks that they fit).
    #[inline(always)]
    fn decode(entry: u32) -> (u64, u64) {
        let above = entry >> Self::ROW_BITS;
        let points = if points_in_entry(N) {
            above << 2
        } else {
            MERGE_POINTS[above as usize & 0xFF]
        };
        (
            u64::from(entry) & ((1 << Self::ROW_BITS) - 1),
            u64::from(points),
        )
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

    // Inlined into the game loop: random games ran 0.64x the table-engine baseline with a
    // call here and 0.76x without (`cargo bench --bench engine -- engine_ratio`, quiet machine).
    #[allow(clippy::inline_always)]
    #[inline(always)]
    fn slide(&self, direction: Direction) -> Option<(PackedBoard<N>, u64)> {
        let t = Self::tables();
        match direction {
            Direction::Up if Self::SPREADS => return self.slide_columns(&t.up),
            Direction::Down if Self::SPREADS => return self.slide_columns(&t.down),
            _ => {}
        }
        let mut points = 0;
        let next = self.move_with(direction, &t.left, &t.right, |entry| {
            let (row, line_points) = Self::decode(entry);
            points += line_points;
            row
        });
        (next != *self).then_some((next, points))
    }

    #[inline]
    fn moved(&self, direction: Direction) -> Option<PackedBoard<N>> {
        let t = Self::tables();
        let next = if Self::ROW_BITS <= 16 {
            self.move_with(direction, &t.left_rows, &t.right_rows, u64::from)
        } else {
            let mask = (1 << Self::ROW_BITS) - 1;
            self.move_with(direction, &t.left, &t.right, |entry| {
                u64::from(entry) & mask
            })
        };
        (next != *self).then_some(next)
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
    fn can_move(&self) -> bool {
        // As the default, without counting cells: a tile and a hole can always move; a full
        // board moves if Left or Up changes it (Right and Down change the same lines).
        let holes = self.bits.zero_nibbles(N * N);
        let tiles = self.bits != <Packing<N> as Layout>::Bits::default();
        if holes != <Packing<N> as Layout>::Bits::default() {
            return tiles;
        }
        self.moved(Direction::Left).is_some() || self.moved(Direction::Up).is_some()
    }

    #[inline]
    fn nth_empty(&self, k: usize) -> Option<(usize, usize)> {
        let i = self.nth_hole(k)? / 4;
        Some((i / N, i % N))
    }

    #[inline]
    fn fill_nth_empty(&mut self, k: usize, exponent: u8) -> bool {
        let Some(bit) = self.nth_hole(k) else {
            return false;
        };
        // The bit starts the k-th empty cell's nibble, which holds 0: no need to clear it.
        self.bits = self
            .bits
            .or_shifted(u64::from(exponent.min(MAX_PACKED_EXPONENT)), bit);
        true
    }

    #[inline]
    fn empty_cells(&self) -> impl Iterator<Item = (usize, usize)> {
        let mut empty = self.bits.zero_nibbles(N * N);
        std::iter::from_fn(move || {
            let i = empty.take_lowest_bit()? / 4;
            Some((i / N, i % N))
        })
    }

    #[inline]
    fn line_key(&self, index: usize, vertical: bool) -> usize {
        if vertical {
            self.column(index)
        } else {
            self.row(index)
        }
    }

    #[inline]
    fn line_keys(&self, vertical: bool) -> [usize; Size::MAX] {
        let mut keys = [0; Size::MAX];
        if vertical && !Self::TRANSPOSES {
            for (c, key) in keys[..N].iter_mut().enumerate() {
                *key = self.column(c);
            }
            return keys;
        }
        let source = if vertical { self.transposed() } else { *self };
        for (i, key) in keys[..N].iter_mut().enumerate() {
            *key = source.row(i);
        }
        keys
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
            const _: () = assert!(
                points_in_entry($n) || (4 * $n + 4 * ($n / 2) <= 32 && $n / 2 <= 2),
                "a row and its points, or its merged tiles for MERGE_POINTS, fit a table entry"
            );
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
    use super::tables::{pack_row, slide_row};
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
            let moved = packed.moved(direction).map(PackedBoard::to_board);
            assert_eq!(moved, board.slide(direction).map(|(b, _)| b), "{direction}");
        }
    }

    #[test]
    fn fast_transpose_and_empty_cells_match_the_cell_by_cell_ones() {
        struct Check;
        impl OnGrid for Check {
            type Output = ();
            fn run<G: Grid>(self, grid: G) {
                let board = grid.to_board();
                let n = board.size();
                for i in 0..n {
                    assert_eq!(
                        grid.line_key(i, true),
                        board.line_key(i, true),
                        "column {i}"
                    );
                    assert_eq!(grid.line_keys(true)[i], board.line_key(i, true));
                    assert_eq!(grid.line_keys(false)[i], board.line_key(i, false));
                }
                let empty: Vec<_> = (0..n * n)
                    .map(|i| (i / n, i % n))
                    .filter(|&(r, c)| board.get(r, c) == 0)
                    .collect();
                for k in 0..=empty.len() {
                    assert_eq!(grid.nth_empty(k), empty.get(k).copied(), "{k}");
                    // Filling the k-th hole from the mask is the plain board's default.
                    let (mut packed, mut plain) = (grid, board);
                    let filled = packed.fill_nth_empty(k, 3);
                    assert_eq!(filled, plain.fill_nth_empty(k, 3), "{k}");
                    assert_eq!(filled, k < empty.len(), "{k}");
                    assert_eq!(packed.to_board(), plain, "{k}");
                }
            }
        }
        let mut rng = crate::model::random::seeded(4);
        for &n in PACKED_SIZES {
            for _ in 0..200 {
                let cells: Vec<u8> = (0..n * n)
                    .map(|_| {
                        let e = crate::model::random::below(&mut rng, 20);
                        if e >= 14 { 0 } else { e as u8 }
                    })
                    .collect();
                on_fastest(&Board::from_exponents(n, &cells).unwrap(), Check);
            }
        }
        // The transpose of 4x4 bits exchanges cell (r, c) with (c, r).
        assert_eq!(0x0000_0000_0000_0021u64.transpose(4), 0x0000_0000_0002_0001);
        // Every size transposes (only 4x4 moves through it; see `TRANSPOSES`).
        let cells: Vec<u8> = (0..25).map(|i| (i % 14) as u8).collect();
        let plain_transpose = |b: &Board| {
            let n = b.size();
            let t: Vec<u8> = (0..n * n).map(|i| b.get(i % n, i / n)).collect();
            Board::from_exponents(n, &t).unwrap()
        };
        let b3 = Board::from_exponents(3, &cells[..9]).unwrap();
        let b4 = Board::from_exponents(4, &cells[..16]).unwrap();
        let b5 = Board::from_exponents(5, &cells).unwrap();
        let t3 = Board3::from_board(&b3).unwrap().transposed().to_board();
        let t4 = Board4::from_board(&b4).unwrap().transposed().to_board();
        let t5 = Board5::from_board(&b5).unwrap().transposed().to_board();
        assert_eq!(t3, plain_transpose(&b3));
        assert_eq!(t4, plain_transpose(&b4));
        assert_eq!(t5, plain_transpose(&b5));
    }

    /// Checks every entry of the tables of rows of `N` cells against the merge loop: the moved
    /// row and the points, both directions.
    fn every_entry_decodes_to_the_merge_loop<const N: usize>()
    where
        Packing<N>: Layout,
    {
        let tables = PackedBoard::<N>::tables();
        for key in 0..1usize << (4 * N) {
            let cells: Vec<u8> = (0..N).map(|c| ((key >> (4 * c)) & 0xF) as u8).collect();
            let (left, points) = slide_row(cells.clone());
            let decoded = PackedBoard::<N>::decode(tables.left[key]);
            assert_eq!(
                decoded,
                (u64::from(pack_row(&left)), u64::from(points)),
                "{cells:?}"
            );
            let (mut right, points) = slide_row(cells.iter().rev().copied().collect());
            right.reverse();
            let decoded = PackedBoard::<N>::decode(tables.right[key]);
            assert_eq!(
                decoded,
                (u64::from(pack_row(&right)), u64::from(points)),
                "{cells:?}"
            );
        }
    }

    #[test]
    fn every_3x3_and_4x4_table_entry_holds_the_merge_loops_row_and_points() {
        every_entry_decodes_to_the_merge_loop::<3>();
        every_entry_decodes_to_the_merge_loop::<4>();
    }

    #[test]
    fn every_4x4_column_entry_holds_its_rows_move_spread_and_its_points() {
        let tables = Board4::tables();
        let spread =
            |row: u64| (0..4).fold(0, |bits, r| bits | ((row >> (4 * r)) & 0xF) << (16 * r));
        for key in 0..1 << 16 {
            for (rows, columns) in [(&tables.left, &tables.up), (&tables.right, &tables.down)] {
                let (row, points) = Board4::decode(rows[key]);
                let SpreadColumn(entry) = columns[key];
                assert_eq!(entry & SpreadColumn::CELLS, spread(row), "{key:#06x}");
                let fields = entry & SpreadColumn::POINT_FIELDS;
                assert_eq!(SpreadColumn::points(fields), points, "{key:#06x}");
            }
        }
        // The most four columns score (two 32768s each) still adds up field by field.
        let SpreadColumn(most) = tables.up[0xEEEE];
        let fields = (most & SpreadColumn::POINT_FIELDS) * 4;
        assert_eq!(SpreadColumn::points(fields), 4 * 65536);
        // And every column shape the fields can hold: the sum of any four quarters.
        for quarters in [
            [1, 4095, 4096, 32767],
            [32767; 4],
            [4095; 4],
            [0, 0, 0, 4096],
        ] {
            let fields: u64 = quarters
                .iter()
                .map(|&q| SpreadColumn::new(0, q).0 & SpreadColumn::POINT_FIELDS)
                .sum();
            let total: u64 = quarters.iter().map(|&q| 4 * u64::from(q)).sum();
            assert_eq!(SpreadColumn::points(fields), total, "{quarters:?}");
        }
    }

    #[test]
    fn the_largest_merges_score_in_full() {
        let row = |n: usize, cells: &[u64]| {
            let mut values = vec![vec![0u64; n]; n];
            values[0] = cells
                .iter()
                .map(|&e| if e == 0 { 0 } else { 1 << e })
                .collect();
            Board::from_values(&values).unwrap()
        };
        let points = |board: &Board, direction| {
            struct Slide(Direction);
            impl OnGrid for Slide {
                type Output = Option<u64>;
                fn run<G: Grid>(self, grid: G) -> Option<u64> {
                    grid.slide(self.0).map(|(_, points)| points)
                }
            }
            on_fastest(board, Slide(direction))
        };
        // Four 16384s make two 32768s: 65536 points, the most a row scores (its quarter
        // needs all 15 bits above a 4x4 row).
        assert_eq!(
            points(&row(4, &[14, 14, 14, 14]), Direction::Left),
            Some(65536)
        );
        assert_eq!(
            points(&row(4, &[14, 14, 14, 14]), Direction::Right),
            Some(65536)
        );
        // The same through the 4x4 column tables: one column, then all four at once (the
        // point fields of four entries added up before they are decoded).
        let column = Board::from_values(&vec![vec![16384, 0, 0, 0]; 4]).unwrap();
        assert_eq!(points(&column, Direction::Up), Some(65536));
        assert_eq!(points(&column, Direction::Down), Some(65536));
        let full = Board::from_values(&vec![vec![16384; 4]; 4]).unwrap();
        assert_eq!(points(&full, Direction::Up), Some(4 * 65536));
        assert_eq!(points(&full, Direction::Down), Some(4 * 65536));
        assert_eq!(points(&row(3, &[14, 14, 0]), Direction::Left), Some(32768));
        assert_eq!(
            points(&row(5, &[14, 14, 14, 14, 13]), Direction::Left),
            Some(65536)
        );
        assert_eq!(
            points(&row(5, &[13, 13, 14, 14, 0]), Direction::Right),
            Some(49152)
        );
    }

    #[test]
    fn occupied_nibbles_counts_the_nonzero_cells_of_any_bits() {
        let naive = |nibbles: &[u8]| nibbles.iter().filter(|&&n| n != 0).count() as u32;
        let mut rng = crate::model::random::seeded(9);
        for k in 0..2000 {
            // Every nibble drawn, some zeros forced, so that full and empty boards both occur.
            let zeros = crate::model::random::below(&mut rng, 33);
            let nibbles: Vec<u8> = (0..32)
                .map(|i| {
                    let n = crate::model::random::below(&mut rng, 16) as u8;
                    if i < zeros || k == 0 {
                        0
                    } else {
                        n.max(u8::from(k == 1))
                    }
                })
                .collect();
            let wide = nibbles
                .iter()
                .enumerate()
                .fold(0u128, |bits, (i, &n)| bits.with_nibble(i, n));
            let narrow = nibbles[..16]
                .iter()
                .enumerate()
                .fold(0u64, |bits, (i, &n)| bits.with_nibble(i, n));
            assert_eq!(wide.occupied_nibbles(), naive(&nibbles), "{wide:032x}");
            assert_eq!(
                narrow.occupied_nibbles(),
                naive(&nibbles[..16]),
                "{narrow:016x}"
            );
        }
        assert_eq!(u64::MAX.occupied_nibbles(), 16);
        assert_eq!(u128::MAX.occupied_nibbles(), 32);
    }

    #[test]
    fn two_32768s_do_not_merge_but_others_do() {
        assert_eq!(slide_row(vec![15, 15, 1, 1, 0]), (vec![15, 15, 2, 0, 0], 4));
    }
}
