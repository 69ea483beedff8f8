//! The symmetries of a 4x4 board in packed bits, and its largest tile.

/// The 8 symmetric images of a 4x4 board (bit layout of [`crate::Board4`]): the identity, the
/// mirror images and rotations.
#[inline]
pub fn symmetries(board: u64) -> [u64; 8] {
    let t = transpose(board);
    let v = flip_rows(board);
    let vt = flip_rows(t);
    [
        board,
        mirror(board),
        v,
        mirror(v),
        t,
        mirror(t),
        vt,
        mirror(vt),
    ]
}

/// Columns swapped left to right.
#[inline]
fn mirror(b: u64) -> u64 {
    ((b & 0x000F_000F_000F_000F) << 12)
        | ((b & 0x00F0_00F0_00F0_00F0) << 4)
        | ((b & 0x0F00_0F00_0F00_0F00) >> 4)
        | ((b & 0xF000_F000_F000_F000) >> 12)
}

/// Rows swapped top to bottom.
#[inline]
fn flip_rows(b: u64) -> u64 {
    (b << 48)
        | ((b << 16) & 0x0000_FFFF_0000_0000)
        | ((b >> 16) & 0x0000_0000_FFFF_0000)
        | (b >> 48)
}

/// Rows and columns exchanged.
#[inline]
fn transpose(b: u64) -> u64 {
    use crate::model::packed::Bits;
    b.transpose(4)
}

/// The largest exponent on a 4x4 board.
#[inline]
pub fn max_exponent(board: u64) -> u8 {
    (0..16)
        .map(|i| ((board >> (4 * i)) & 0xF) as u8)
        .max()
        .unwrap_or(0)
}
