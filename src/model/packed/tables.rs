//! The move tables of packed rows: what every row of a width becomes under a move, with its
//! points, built by running [`slide_line`] on every possible row (so the packed engine follows
//! the plain rules by construction).

use super::MAX_PACKED_EXPONENT;
use crate::model::line::slide_line;
use crate::model::size::Size;
use std::sync::OnceLock;

/// What one packed row (4 bits per cell, cell 0 in the low bits) becomes, for every row of one
/// width, so that a row's move and its points are one lookup: each `u32` entry holds the moved
/// row in its low `4 * width` bits, then, on rows of up to 4 cells, a quarter of the points its
/// merges score (every merge makes at least a 4, so points are a multiple of 4; the most a row
/// scores is two 32768s, 65536, whose quarter 16384 needs 15 bits), and on
/// longer rows, whose points would not fit, the exponent of each tile its merges made (4 bits
/// each, at most 2 of them, 0 = none), read through [`MERGE_POINTS`].
///
/// Rows of up to 16 bits also get tables of the moved row alone (`u16`), for moves whose points
/// nobody reads ([`Grid::moved`]): a search makes millions of those, and tables half the size
/// leave more of the cache to its evaluation table and transposition table.
///
/// 4x4 boards also get column tables (`up`, `down`, see [`SpreadColumn`]), so that a vertical
/// move with points transposes the board once instead of twice, as table engines do.
pub(super) struct MoveTables {
    pub(super) left: Vec<u32>,
    pub(super) right: Vec<u32>,
    pub(super) left_rows: Vec<u16>,
    pub(super) right_rows: Vec<u16>,
    pub(super) up: Vec<SpreadColumn>,
    pub(super) down: Vec<SpreadColumn>,
}

/// A 4x4 column table entry, by column key (the column read top to bottom, packed like a row):
/// the moved column already in its board positions in column 0 (cell r at bits `16 r`), so a
/// vertical move shifts four entries into place with no transpose back; and a quarter of the
/// merges' points (15 bits) in the bits between the cells, whose widest gap is 12 bits: the
/// low 12 bits at bits 4..16, the top 3 at bits 20..23. Four entries' point fields add up
/// without touching each other (the low fields' sum carries into bits 16..18 at most, below
/// the top fields, whose sum stays below bit 25), so a move adds the fields first and decodes
/// once ([`SpreadColumn::points`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SpreadColumn(pub(super) u64);

impl SpreadColumn {
    /// The bits of the cells.
    pub(super) const CELLS: u64 = 0x000F_000F_000F_000F;
    /// The bits of the two point fields.
    pub(super) const POINT_FIELDS: u64 = 0x0070_FFF0;

    pub(super) fn new(moved_row: u16, quarter_points: u32) -> SpreadColumn {
        debug_assert!(quarter_points < 1 << 15);
        let x = u64::from(moved_row);
        let cells = (x | (x << 12) | (x << 24) | (x << 36)) & Self::CELLS;
        let quarter = u64::from(quarter_points);
        SpreadColumn(cells | ((quarter & 0xFFF) << 4) | ((quarter >> 12) << 20))
    }

    /// The points of entries whose [`SpreadColumn::POINT_FIELDS`] bits were added up into
    /// `fields`.
    #[inline]
    pub(super) fn points(fields: u64) -> u64 {
        (((fields >> 4) & 0x3FFF) + ((fields >> 20) << 12)) << 2
    }
}

/// The points of the tiles a row's merges made, by the byte of a [`MoveTables`] entry that
/// holds their exponents (two nibbles, 0 = no merge): 2^a + 2^b. Summing the two nibbles' points
/// in the game loop cost more than the rest of a move (callgrind, random-player games).
pub(super) const MERGE_POINTS: [u32; 256] = {
    let mut points = [0u32; 256];
    let mut byte = 0;
    while byte < 256 {
        let (a, b) = (byte & 0xF, byte >> 4);
        points[byte] = (if a > 0 { 1 << a } else { 0 }) + (if b > 0 { 1 << b } else { 0 });
        byte += 1;
    }
    points
};

/// The tables by row width, each built on first use.
pub(super) static TABLES: [OnceLock<MoveTables>; Size::MAX + 1] =
    [const { OnceLock::new() }; Size::MAX + 1];

pub(super) fn pack_row(cells: &[u8]) -> u32 {
    cells
        .iter()
        .enumerate()
        .fold(0, |row, (c, &e)| row | (u32::from(e) << (4 * c)))
}

/// Whether a table entry of rows of `n` cells holds a quarter of the points above the row (see
/// [`MoveTables`]): 15 bits of them fit above rows of up to 4 cells.
pub(super) const fn points_in_entry(n: usize) -> bool {
    4 * n + 15 <= 32
}

/// The table entry of a row that slides to `moved` making the tiles `merged`.
pub(super) fn table_entry(moved: &[u8], merged: &[u8]) -> u32 {
    let n = moved.len();
    let row = pack_row(moved);
    if points_in_entry(n) {
        let points: u32 = merged.iter().map(|&e| 1u32 << e).sum();
        debug_assert!(points.is_multiple_of(4) && points / 4 < 1 << 15);
        return row | (points / 4) << (4 * n);
    }
    debug_assert!(merged.len() <= 2 && 4 * n + 4 * merged.len() <= 32);
    merged.iter().enumerate().fold(row, |entry, (k, &e)| {
        entry | (u32::from(e) << (4 * (n + k)))
    })
}

/// The exponents of the tiles a slide of `cells` toward cell 0 makes: tiles pair off from the
/// leading side, each tile in at most one merge, and 15s never merge.
pub(super) fn merged_tiles(cells: &[u8]) -> Vec<u8> {
    let tiles: Vec<u8> = cells.iter().copied().filter(|&e| e != 0).collect();
    let mut merged = Vec::new();
    let mut i = 0;
    // Invariant: tiles[..i] are placed; tiles[i] has not merged yet.
    while i < tiles.len() {
        if i + 1 < tiles.len() && tiles[i] == tiles[i + 1] && tiles[i] != MAX_PACKED_EXPONENT {
            merged.push(tiles[i] + 1);
            i += 2;
        } else {
            i += 1;
        }
    }
    merged
}

/// Slides a row toward cell 0 with the plain rules, except that 15s never merge: each 15 is
/// swapped for a distinct marker that equals nothing, then swapped back.
pub(super) fn slide_row(mut cells: Vec<u8>) -> (Vec<u8>, u32) {
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
    pub(super) fn build(n: usize) -> MoveTables {
        let rows = 1usize << (4 * n);
        let mut t = MoveTables {
            left: vec![0; rows],
            right: vec![0; rows],
            left_rows: Vec::new(),
            right_rows: Vec::new(),
            up: Vec::new(),
            down: Vec::new(),
        };
        // The entry of a row slid toward cell 0; the merges' tiles are found a second way and
        // must score the points the merge loop counted.
        let entry = |cells: Vec<u8>| {
            let merged = merged_tiles(&cells);
            let (moved, points) = slide_row(cells);
            let merged_points: u32 = merged.iter().map(|&e| 1u32 << e).sum();
            assert_eq!(points, merged_points, "{moved:?}");
            (moved, merged)
        };
        for i in 0..rows {
            let cells: Vec<u8> = (0..n).map(|c| ((i >> (4 * c)) & 0xF) as u8).collect();
            let (left, merged) = entry(cells.clone());
            t.left[i] = table_entry(&left, &merged);
            // Right is Left on the reversed row, reversed back.
            let (mut right, merged) = entry(cells.into_iter().rev().collect());
            right.reverse();
            t.right[i] = table_entry(&right, &merged);
        }
        if 4 * n <= 16 {
            let row_of = |entry: &u32| (entry & ((1 << (4 * n)) - 1)) as u16;
            t.left_rows = t.left.iter().map(row_of).collect();
            t.right_rows = t.right.iter().map(row_of).collect();
        }
        if n == 4 {
            // Up is Left on the column read top to bottom, Down is Right.
            let spread = |&entry: &u32| SpreadColumn::new(entry as u16, entry >> 16);
            t.up = t.left.iter().map(spread).collect();
            t.down = t.right.iter().map(spread).collect();
        }
        t
    }
}
