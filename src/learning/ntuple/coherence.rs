//! Temporal-coherence sums as training keeps them: one 32-bit word a weight, half the two
//! `f32` sums a weight they stand for.
//!
//! Coherence is |E| / A, where E is the sum of the errors a weight was asked to correct and A
//! the sum of their sizes. A word keeps that ratio itself, r = E / A in [-1, 1], as a 16-bit
//! fixed-point number (the low half, `i16` in 1/32767ths), and A beside it (the high half: an
//! `f32`'s exponent and 8 leading mantissa bits, so 9 significant bits over the whole `f32`
//! range; 0 for a weight never updated). An update by error e sets
//! r to (r A + e) / (A + |e|) and A to A + |e|: exactly E / A as the two sums would give it.
//!
//! The ratio is what scales a step, so it is the part kept exactly: its error is absolute, at
//! most 1/65534 a rounding, whatever the sums' sizes. A only says how much a new error weighs
//! against the old ones, so 9 bits of it are plenty. Late in training an error moves r by
//! less than one unit of its last place (and A by less than one of its own), and rounded to
//! nearest, the weight's coherence would stop where it was; so both are rounded **at random**,
//! up with the chance of the part dropped (stochastic rounding): in expectation every error
//! counts. The random bits come from a generator each training thread keeps ([`draw`], once
//! an update, spread over its weights by [`dither`]): threads never share a cache line for it,
//! and a one-thread run learns the same network every time, since each run's threads start it
//! alike.

use std::cell::Cell;
use std::sync::atomic::AtomicU32;

/// One stage's coherence sums, one word a weight of its table.
pub(super) type Sums = Box<[AtomicU32]>;

/// r's fixed point: ±1 is ±`SCALE`.
const SCALE: f32 = 32767.0;

/// One unit of r (a product is cheaper than a quotient, on every update of every weight).
const UNIT: f32 = 1.0 / SCALE;

/// The largest code of A that is a finite `f32` (exponent 254, mantissa bits all set).
const LARGEST_SIZE: u32 = 0xFEFF;

/// The coherence of a weight whose sums are `word`: |E| / A, and 1 for a weight never updated
/// (its first step is a whole one).
#[inline]
pub(super) fn coherence(word: u32) -> f32 {
    if word >> 16 == 0 {
        1.0
    } else {
        f32::from(ratio_units(word)).abs() * UNIT
    }
}

/// `word` with `error` added to its sums; `bits` are 32 random bits ([`dither`]) for the
/// rounding. An error of 0 to a weight never updated, or one that is not a number,
/// changes nothing.
#[inline]
pub(super) fn add(word: u32, error: f32, bits: u32) -> u32 {
    let size = size(word);
    // Past the largest finite size a sum grows no more (no error comes near it).
    let grown = (size + error.abs()).min(f32::MAX);
    if error.is_nan() || grown <= 0.0 {
        return word;
    }
    let ratio = (f32::from(ratio_units(word)) * UNIT * size + error) / grown;
    // ratio * SCALE is within ±SCALE, so the sum below is positive and `as` truncates it
    // down: up with the chance of the fraction, given a uniform draw in [0, 1).
    let draw = f32::from(bits as u16) / 65536.0;
    let units = ((ratio * SCALE + SCALE + 1.0 + draw) as i32 - (SCALE as i32 + 1))
        .clamp(-(SCALE as i32), SCALE as i32);
    // The size's dropped 15 bits added to random ones carry into the kept ones with the
    // chance of their fraction (within a binade the mantissa is linear).
    let code = ((grown.to_bits() + ((bits >> 16) & 0x7FFF)) >> 15).clamp(1, LARGEST_SIZE);
    (code << 16) | u32::from(units as i16 as u16)
}

/// The two sums a word stands for, as files keep them: E's `f32` bits in the low half of the
/// `u64`, A's in the high half.
pub(super) fn to_pair(word: u32) -> u64 {
    let size = size(word);
    let sum = f32::from(ratio_units(word)) / SCALE * size;
    u64::from(sum.to_bits()) | (u64::from(size.to_bits()) << 32)
}

/// The word of the two sums `pair` (as [`to_pair`] gives them), each part rounded to nearest:
/// what [`to_pair`] gave comes back as it was. Sums that are not a weight's (a size that is
/// not above 0, or not a number) are those of a weight never updated.
pub(super) fn from_pair(pair: u64) -> u32 {
    let sum = f32::from_bits(pair as u32);
    let size = f32::from_bits((pair >> 32) as u32);
    if !(size > 0.0 && size.is_finite()) || sum.is_nan() {
        return 0;
    }
    let units = ((sum / size).clamp(-1.0, 1.0) * SCALE).round() as i16;
    let code = ((size.to_bits() + 0x4000) >> 15).clamp(1, LARGEST_SIZE);
    (code << 16) | u32::from(units as u16)
}

/// r of `word`, in units of 1/32767.
#[inline]
fn ratio_units(word: u32) -> i16 {
    word as u16 as i16
}

/// A of `word`.
#[inline]
fn size(word: u32) -> f32 {
    f32::from_bits((word >> 16) << 15)
}

thread_local! {
    /// The state of this thread's generator for [`draw`] (xorshift32: never zero). Training
    /// threads are new with each run, so each run's start the same.
    static NOISE: Cell<u32> = const { Cell::new(0x2545_F491) };
}

/// 32 random bits for one update: this thread's generator, moved on once (xorshift32; the
/// rounding needs no more than bits that are even).
#[inline]
pub(super) fn draw() -> u32 {
    NOISE.with(|state| {
        let mut x = state.get();
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        state.set(x);
        x
    })
}

/// The random bits for weight `index` in an update whose [`draw`] is `draw`: a weight's bits
/// change with every update, and the weights of one update need no chain of draws between
/// them.
#[inline]
pub(super) fn dither(draw: u32, index: u32) -> u32 {
    (draw ^ index).wrapping_mul(0x9E37_79B9)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds `errors` in turn to a weight never updated, as training would to weight 5.
    fn summed(errors: impl IntoIterator<Item = f32>) -> u32 {
        errors
            .into_iter()
            .fold(0, |word, e| add(word, e, dither(draw(), 5)))
    }

    #[test]
    #[allow(clippy::float_cmp)] // ±1 and 1/3 of 32767 units are exact enough to compare
    fn a_word_keeps_the_ratio_of_the_sums_and_their_size() {
        assert_eq!(coherence(0), 1.0);
        // A first error, either way: coherent, a whole step.
        assert_eq!(coherence(summed([5.0])), 1.0);
        assert_eq!(coherence(summed([-5.0])), 1.0);
        // +8, -4: |4| / 12.
        let word = summed([8.0, -4.0]);
        assert!(
            (coherence(word) - 1.0 / 3.0).abs() <= 1.0 / SCALE,
            "{}",
            coherence(word)
        );
        let pair = to_pair(word);
        let (sum, size) = (
            f32::from_bits(pair as u32),
            f32::from_bits((pair >> 32) as u32),
        );
        assert!(
            (size - 12.0).abs() <= 12.0 / 256.0 && (sum - 4.0).abs() < 0.1,
            "{sum} {size}"
        );
        // Errors that do not count leave a word as it is.
        assert_eq!(add(0, 0.0, 123), 0);
        assert_eq!(add(word, f32::NAN, 123), word);
        assert_eq!(add(word, 0.0, 0), word);
    }

    #[test]
    #[allow(clippy::float_cmp)] // a ratio of exactly ±1 is SCALE units: exact
    fn a_word_round_trips_through_the_two_sums_files_keep() {
        for i in 0..10_000 {
            let word = (dither(draw(), i) % (LARGEST_SIZE + 1)) << 16 | (draw() & 0xFFFF);
            let units = word as u16 as i16;
            if word >> 16 == 0 || units == i16::MIN {
                continue; // no word of a weight updated
            }
            assert_eq!(from_pair(to_pair(word)), word, "{word:08x}");
        }
        assert_eq!(from_pair(to_pair(0)), 0);
        // Sums of no weight are a weight never updated.
        let pair = |sum: f32, size: f32| u64::from(sum.to_bits()) | u64::from(size.to_bits()) << 32;
        for (sum, size) in [
            (1.0, 0.0),
            (1.0, -2.0),
            (f32::NAN, 1.0),
            (1.0, f32::INFINITY),
        ] {
            assert_eq!(from_pair(pair(sum, size)), 0, "{sum} {size}");
        }
        // A ratio past ±1 (rounding in an earlier writer) is taken as ±1.
        assert_eq!(coherence(from_pair(pair(-3.0, 2.0))), 1.0);
    }

    #[test]
    fn small_errors_still_count_on_large_sums() {
        // A weight that has seen 2^16 errors of 1 that cancel out, then 2^16 that all point
        // one way: exact sums say coherence 2^16 / 2^17 = 1/2. Each late error moves r by
        // some 1/2^17, a quarter of its last place: rounded to nearest it would never move.
        let errors = (0..1 << 16)
            .map(|i| if i % 2 == 0 { 1.0 } else { -1.0 })
            .chain((0..1 << 16).map(|_| 1.0));
        let word = summed(errors);
        let c = coherence(word);
        assert!((c - 0.5).abs() < 0.02, "{c}");
        let size = f32::from_bits(to_pair(word).wrapping_shr(32) as u32);
        assert!((size / 131_072.0 - 1.0).abs() < 0.03, "{size}");
    }

    #[test]
    fn sizes_stop_at_the_largest_finite_one() {
        let word = summed([f32::MAX, f32::MAX, -1.0]);
        assert_eq!(word >> 16, LARGEST_SIZE);
        assert!(coherence(word).is_finite() && coherence(word) <= 1.0);
    }
}
