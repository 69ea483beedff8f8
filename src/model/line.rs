//! The one merge loop: sliding a single line of tiles toward its start.
//!
//! Every move of every board representation is this function applied to the lines of the board
//! read in the direction of motion, so the rules of merging live here and nowhere else.

/// The largest tile: 2^63, the largest power of two a `u64` (and so a save file's cell) holds.
/// Two of them do not merge, so every board a game can reach can be saved and read back.
pub const MAX_TILE_EXPONENT: u8 = 63;

/// The value of the tile with exponent `exponent` (`2^exponent`), saturated at `u64::MAX`.
///
/// Scores are sums of tile values; saturating keeps absurd hand-made boards from overflowing.
pub fn tile_points(exponent: u8) -> u64 {
    1u64.checked_shl(u32::from(exponent)).unwrap_or(u64::MAX)
}

/// Slides `line` toward index 0, merging equal neighbours, and returns the points scored, or
/// `None` if the line does not change (the move is not made).
///
/// Cells hold tile exponents (`0` = empty, `k` = the tile `2^k`). Only tiles present before the
/// slide merge, each at most once, and when three or more equal tiles meet, the ones nearest
/// index 0 merge first; two tiles of [`MAX_TILE_EXPONENT`] do not merge. Works for any length.
pub fn slide_line(line: &mut [u8]) -> Option<u64> {
    slide_line_traced(line, |_| {})
}

/// Where one tile of a line went in a slide ([`slide_line_traced`]): from cell `from` to cell
/// `to`, and whether it joined the tile already there (a merge) or took the cell alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Travel {
    /// The cell it was in.
    pub from: usize,
    /// The cell it ends in.
    pub to: usize,
    /// It merged into the tile that went to `to` before it.
    pub merged: bool,
}

/// [`slide_line`], telling `trace` where each tile went, in the order the loop takes them (every
/// tile, the ones that stay too): the one merge loop, so what a front end animates is what the
/// rules did.
#[inline]
pub fn slide_line_traced(line: &mut [u8], mut trace: impl FnMut(Travel)) -> Option<u64> {
    let mut out = 0;
    let mut can_absorb = false;
    let mut points = 0u64;
    let mut changed = false;
    for next in 0..line.len() {
        // Invariant: `line[..out]` holds final values, except that `line[out - 1]` may still
        // absorb one equal tile iff `can_absorb` (it was not produced by a merge); every cell
        // in `line[out..next]` is empty; `line[next..]` is untouched input.
        let tile = line[next];
        if tile == 0 {
            continue;
        }
        line[next] = 0;
        if can_absorb && line[out - 1] == tile && tile < MAX_TILE_EXPONENT {
            let merged = tile.saturating_add(1);
            line[out - 1] = merged;
            points = points.saturating_add(tile_points(merged));
            can_absorb = false;
            changed = true;
            trace(Travel {
                from: next,
                to: out - 1,
                merged: true,
            });
        } else {
            line[out] = tile;
            changed |= out != next;
            trace(Travel {
                from: next,
                to: out,
                merged: false,
            });
            out += 1;
            can_absorb = true;
        }
    }
    changed.then_some(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Converts tile values to exponents, slides, and converts back.
    fn slide_values(values: &[u64]) -> Option<(Vec<u64>, u64)> {
        let mut line: Vec<u8> = values
            .iter()
            .map(|&v| if v == 0 { 0 } else { v.trailing_zeros() as u8 })
            .collect();
        let points = slide_line(&mut line)?;
        let values = line
            .iter()
            .map(|&e| if e == 0 { 0 } else { 1u64 << e })
            .collect();
        Some((values, points))
    }

    fn check(input: &[u64], expected: &[u64], expected_points: u64) {
        assert_eq!(
            slide_values(input),
            Some((expected.to_vec(), expected_points)),
            "sliding {input:?}"
        );
    }

    #[test]
    fn the_traced_slide_says_where_each_tile_went() {
        // 4 4 0 4 2: the first two 4s merge at 0, the third 4 goes to 1, the 2 to 2.
        let mut line = [2, 2, 0, 2, 1];
        let mut travels = Vec::new();
        let points = slide_line_traced(&mut line, |t| travels.push(t));
        assert_eq!((line, points), ([3, 2, 1, 0, 0], Some(8)));
        let t = |from, to, merged| Travel { from, to, merged };
        assert_eq!(
            travels,
            [
                t(0, 0, false),
                t(1, 0, true),
                t(3, 1, false),
                t(4, 2, false)
            ]
        );
        // A line that does not change: every tile stays.
        let mut still = [1, 2, 0];
        let mut travels = Vec::new();
        assert_eq!(slide_line_traced(&mut still, |t| travels.push(t)), None);
        assert_eq!(travels, [t(0, 0, false), t(1, 1, false)]);
    }

    #[test]
    fn example_0_8_0_2() {
        check(&[0, 8, 0, 2], &[8, 2, 0, 0], 0);
    }

    #[test]
    fn example_4_4_16_16() {
        check(&[4, 4, 16, 16], &[8, 32, 0, 0], 40);
    }

    #[test]
    fn example_4_4_0_4_merges_nearest_wall_first() {
        check(&[4, 4, 0, 4], &[8, 4, 0, 0], 8);
    }

    #[test]
    fn example_4_4_4_4() {
        check(&[4, 4, 4, 4], &[8, 8, 0, 0], 16);
    }

    #[test]
    fn example_empty_line_is_no_move() {
        assert_eq!(slide_values(&[0, 0, 0, 0]), None);
    }

    #[test]
    fn example_2_8_4_0_is_no_move() {
        assert_eq!(slide_values(&[2, 8, 4, 0]), None);
    }

    #[test]
    fn example_0_2_0_4() {
        check(&[0, 2, 0, 4], &[2, 4, 0, 0], 0);
    }

    #[test]
    fn example_4_2_0_4() {
        check(&[4, 2, 0, 4], &[4, 2, 4, 0], 0);
    }

    #[test]
    fn example_2_2_0_0() {
        check(&[2, 2, 0, 0], &[4, 0, 0, 0], 4);
    }

    #[test]
    fn example_0_2_0_2() {
        check(&[0, 2, 0, 2], &[4, 0, 0, 0], 4);
    }

    #[test]
    fn example_2_2_4_4() {
        check(&[2, 2, 4, 4], &[4, 8, 0, 0], 12);
    }

    #[test]
    fn example_2_0_2_4() {
        check(&[2, 0, 2, 4], &[4, 4, 0, 0], 4);
    }

    #[test]
    fn example_2_2_2_2() {
        check(&[2, 2, 2, 2], &[4, 4, 0, 0], 8);
    }

    #[test]
    fn example_right_on_0_2_2_2_merges_rightmost_pair() {
        // Moving right reads the row from the right: [2,2,2,0] in the direction of motion.
        let (slid, points) = slide_values(&[2, 2, 2, 0]).unwrap();
        let row: Vec<u64> = slid.into_iter().rev().collect();
        assert_eq!((row, points), (vec![0, 0, 2, 4], 4));
    }

    #[test]
    fn works_for_any_length() {
        check(&[2, 2], &[4, 0], 4);
        check(&[0, 0, 2], &[2, 0, 0], 0);
        check(&[2, 2, 2, 0, 4, 4, 0, 8], &[4, 2, 8, 8, 0, 0, 0, 0], 12);
        assert_eq!(slide_values(&[]), None);
        assert_eq!(slide_values(&[2]), None);
    }

    #[test]
    fn two_of_the_largest_tiles_do_not_merge() {
        let mut line = [MAX_TILE_EXPONENT, MAX_TILE_EXPONENT, 62, 62];
        assert_eq!(slide_line(&mut line), Some(1 << 63));
        assert_eq!(
            line,
            [MAX_TILE_EXPONENT, MAX_TILE_EXPONENT, MAX_TILE_EXPONENT, 0]
        );
    }

    #[test]
    fn merged_tile_does_not_merge_again() {
        check(&[2, 2, 4, 0], &[4, 4, 0, 0], 4);
        check(&[4, 2, 2, 0], &[4, 4, 0, 0], 4);
    }
}
