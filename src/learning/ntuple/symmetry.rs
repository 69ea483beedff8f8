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

#[cfg(test)]
mod tests {
    use super::super::tests::bits;
    use super::*;

    #[test]
    fn the_eight_symmetries_are_the_mirror_images_and_rotations() {
        let b = bits(&[[2, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]]);
        let images = symmetries(b);
        let mut distinct = images.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 8);
        assert_eq!(
            images[1],
            bits(&[[0, 0, 4, 2], [0, 0, 0, 0], [0, 0, 0, 0], [8, 0, 0, 0]])
        );
        assert_eq!(
            images[2],
            bits(&[[0, 0, 0, 8], [0, 0, 0, 0], [0, 0, 0, 0], [2, 4, 0, 0]])
        );
        assert_eq!(
            images[4],
            bits(&[[2, 0, 0, 0], [4, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]])
        );
        // Every image of an image is an image (the 8 form a group).
        for image in images {
            let mut again = symmetries(image).to_vec();
            again.sort_unstable();
            assert_eq!(again, distinct);
        }
    }
}
