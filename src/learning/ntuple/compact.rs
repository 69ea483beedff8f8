//! Smaller networks for shipping: each weight rounded to a grain (a multiple of one step, so
//! that small weights cost few bytes), the weights that barely matter set to zero (magnitude
//! pruning) and the others rounded to fewer significant bits, so that the compressed file
//! shrinks while the values that decide moves stay.

use super::Network;
use super::format::F16_MAX;
use std::sync::Mutex;

/// The most significant bits an f16 keeps after its leading one.
pub const F16_MANTISSA_BITS: u32 = 10;

/// How a network is made smaller ([`Network::compacted`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compaction {
    /// The share of the stored weights kept, the largest in what they add (a first-stage
    /// weight's value, a later stage's difference from the stage below): `1.0` keeps them all.
    pub keep: f64,
    /// Significant bits each kept weight keeps after its leading one, 0 to
    /// [`F16_MANTISSA_BITS`] (which changes nothing).
    pub mantissa_bits: u32,
    /// How many of the stages with weights of their own keep them (the first ones); the later
    /// ones then play with the last kept. A stage matters only once a game reaches its tile,
    /// so the last stage costs much space for little play.
    pub stages: usize,
    /// A grain every weight's value (first stage) or difference from the stage below as
    /// compacted (later stages) is rounded to a multiple of, before its significant bits are:
    /// `0.0` for none. With every weight kept and all significant bits, every stage's values
    /// are then within half a grain of the trained ones; a weight within half a grain of the
    /// stage below as compacted costs nothing in the file. A board's value is a sum of
    /// weights, so an error counts alike whatever the weight's size; a grain spends fewer
    /// bytes on small weights than significant bits do.
    pub step: f32,
}

/// What a compaction did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Compacted {
    /// Weights that add something (nonzero, or unlike the stage below) in the stages kept,
    /// before.
    pub nonzero_before: u64,
    /// The same, after.
    pub nonzero_after: u64,
    /// Of those before, the ones `keep`'s cut left (before the grain and the rounding): 0
    /// when `keep` alone left none.
    pub over_cut: u64,
}

impl Network {
    /// A copy of this network with the same tuples, stages and training counters, its first
    /// `how.stages` stored stages pruned and rounded: a weight whose value (first stage) or
    /// difference from the stage below (later stages) is smaller, as f16, than the cut that
    /// keeps the largest `keep` share becomes zero (or the stage below's), and the rest are
    /// rounded to a multiple of `step` (a later stage's difference, from the stage below as
    /// compacted) and then to `mantissa_bits` significant bits. A weight left as the stage
    /// below has it costs nothing in the file.
    pub fn compacted(&self, how: Compaction) -> (Network, Compacted) {
        let stored: Vec<usize> = (0..self.stages.count())
            .filter(|&k| self.stage_table(k).is_some())
            .take(how.stages.max(1))
            .collect();
        let values: Vec<Vec<f32>> = stored
            .iter()
            .map(|&k| self.stage_values(k).expect("stored"))
            .collect();
        // What each stored weight adds: its value in the first stage, its difference from the
        // stage below in a later one. f16 sizes have 2^15 bit patterns, ordered as the numbers
        // are: a count of each gives the exact cut without sorting hundreds of millions.
        let own = |s: usize, i: usize| match s {
            0 => values[0][i],
            _ => values[s][i] - values[s - 1][i],
        };
        let mut counts = vec![0u64; 1 << 15];
        for s in 0..values.len() {
            for i in 0..values[s].len() {
                counts[magnitude(own(s, i)) as usize] += 1;
            }
        }
        let nonzero_before: u64 = counts[1..].iter().sum();
        let wanted = (nonzero_before as f64 * how.keep.clamp(0.0, 1.0)).round() as u64;
        let mut cut = counts.len();
        let mut kept = 0;
        while cut > 1 && kept + counts[cut - 1] <= wanted {
            cut -= 1;
            kept += counts[cut];
        }
        let drop = F16_MANTISSA_BITS - how.mantissa_bits.min(F16_MANTISSA_BITS);
        let mut out = Network::unfilled(self.set, self.stages.clone());
        let mut nonzero_after = 0;
        let mut below: Vec<f32> = Vec::new();
        for (s, &k) in stored.iter().enumerate() {
            let small: Vec<f32> = (0..values[s].len())
                .map(|i| {
                    let (base, value) = if s == 0 {
                        (0.0, values[0][i])
                    } else {
                        (below[i], values[s][i])
                    };
                    let value = if (magnitude(own(s, i)) as usize) < cut {
                        base
                    } else {
                        round_f16(grained(base, value, how.step), drop)
                    };
                    nonzero_after += u64::from(value.to_bits() != base.to_bits());
                    value
                })
                .collect();
            out.set_stage(k, small.iter().copied());
            below = small;
        }
        out.training = Mutex::new(self.training());
        let report = Compacted {
            nonzero_before,
            nonzero_after,
            over_cut: kept,
        };
        (out, report)
    }

    /// How many weights are not zero, over the stages with weights of their own.
    pub fn nonzero_weights(&self) -> u64 {
        (0..self.stages.count())
            .filter_map(|k| self.stage_table(k))
            .map(|t| (0..t.len()).filter(|&i| t.weight(i) != 0.0).count() as u64)
            .sum()
    }
}

/// The size of `w` as f16 bits without the sign (ordered as the sizes are).
fn magnitude(w: f32) -> u16 {
    half::f16::from_f32(w).to_bits() & 0x7FFF
}

/// `value` as `base` (a multiple of `step`) plus its difference from it rounded to the nearest
/// multiple of `step` (ties away from zero), never past the largest multiple that f16 holds;
/// `value` itself where `step` is not above 0.
fn grained(base: f32, value: f32, step: f32) -> f32 {
    if step > 0.0 {
        let largest = (F16_MAX / step).floor() * step;
        (base + ((value - base) / step).round() * step).clamp(-largest, largest)
    } else {
        value
    }
}

/// `value` as f16, rounded to the nearest with the `drop` lowest mantissa bits zero (ties away
/// from zero), never past the largest finite f16.
fn round_f16(value: f32, drop: u32) -> f32 {
    let bits = half::f16::from_f32(value.clamp(-F16_MAX, F16_MAX)).to_bits();
    if drop == 0 {
        return half::f16::from_bits(bits).to_f32();
    }
    let (sign, size) = (bits & 0x8000, bits & 0x7FFF);
    let step = 1u16 << drop;
    let rounded = ((u32::from(size) + u32::from(step / 2)) >> drop << drop) as u16;
    let largest = 0x7C00 - step;
    half::f16::from_bits(sign | rounded.min(largest)).to_f32()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::ntuple::{Stages, TupleSet};

    #[test]
    #[allow(clippy::float_cmp)] // f16 values are exact
    fn rounding_keeps_the_leading_bits_and_never_reaches_infinity() {
        assert_eq!(round_f16(1.0 + 1.0 / 1024.0, 0), 1.0 + 1.0 / 1024.0);
        // 1 + 3/1024 to 8 bits (steps of 1/256): 1 + 1/256 (3/1024 is nearer 4/1024 than 0).
        assert_eq!(round_f16(1.0 + 3.0 / 1024.0, 2), 1.0 + 1.0 / 256.0);
        assert_eq!(round_f16(-(1.0 + 3.0 / 1024.0), 2), -(1.0 + 1.0 / 256.0));
        // A mantissa that rounds up carries into the exponent: 1.999 to 0 bits is 2.
        assert_eq!(round_f16(1.999, 10), 2.0);
        assert_eq!(round_f16(65504.0, 10), 32768.0);
        assert!(round_f16(65504.0, 3).is_finite());
        assert_eq!(round_f16(0.0, 5), 0.0);
        assert_eq!(round_f16(65536.0, 0), 65504.0);
        assert_eq!(round_f16(-1e9, 0), -65504.0);
    }

    #[test]
    #[allow(clippy::float_cmp)] // multiples of powers of two in the f16 range are exact
    fn a_grain_rounds_from_the_stage_below_and_never_past_the_f16_range() {
        assert_eq!(grained(0.0, 3.9, 8.0), 0.0);
        assert_eq!(grained(0.0, 4.0, 8.0), 8.0);
        assert_eq!(grained(16.0, 19.9, 8.0), 16.0);
        assert_eq!(grained(16.0, 12.1, 8.0), 16.0);
        assert_eq!(grained(16.0, 11.9, 8.0), 8.0);
        assert_eq!(grained(-8.0, -21.0, 8.0), -24.0);
        assert_eq!(grained(0.0, 65504.0, 64.0), 65472.0);
        assert_eq!(grained(0.0, -65504.0, 1024.0), -64512.0);
        assert_eq!(grained(64512.0, 70000.0, 1024.0), 64512.0);
        assert_eq!(grained(5.0, 3.3, 0.0), 3.3);
    }

    #[test]
    fn pruning_keeps_the_largest_share_and_equal_stages_stay_equal() {
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        // Ten boards of their own lines, values 1 to 10 apart.
        let boards: Vec<u64> = (1..=10u64).map(|k| k | (k << 16)).collect();
        for (i, &b) in boards.iter().enumerate() {
            net.adjust(b, 8.0 * (i + 1) as f32);
        }
        // A late board promotes stage 0 into stage 1 unchanged but for its own weights.
        let late = 11u64 << 60;
        net.adjust(late, 0.0);
        assert_eq!(net.stages_trained(), 2);
        // Stage 1 is stage 0's copy: only stage 0's weights add anything.
        let before = net.nonzero_weights() / 2;
        let (small, report) = net.compacted(Compaction {
            keep: 0.5,
            mantissa_bits: F16_MANTISSA_BITS,
            stages: 3,
            step: 0.0,
        });
        assert_eq!(report.nonzero_before, before);
        assert_eq!(2 * report.nonzero_after, small.nonzero_weights());
        // Never more than asked; fewer where weights of equal size straddle the cut (each
        // board's weights moved by equal steps).
        assert!(
            report.nonzero_after <= before / 2 && report.nonzero_after >= before / 4,
            "{report:?}"
        );
        // The largest stay as they were, the smallest are gone, in both stages alike.
        let (was, now) = (net.stage_values(0).unwrap(), small.stage_values(0).unwrap());
        let dropped = was
            .iter()
            .zip(&now)
            .filter(|(w, n)| **w != 0.0 && **n == 0.0);
        let largest_dropped = dropped.map(|(w, _)| w.abs()).fold(0.0, f32::max);
        for (w, n) in was.iter().zip(&now) {
            assert!(
                *n == 0.0 || (n.to_bits() == w.to_bits() && w.abs() > largest_dropped),
                "{w} {n}"
            );
        }
        assert!(largest_dropped > 0.0);
        assert_eq!(
            small.stage_values(0).unwrap()[..1 << 16],
            small.stage_values(1).unwrap()[..1 << 16]
        );
        assert_eq!(small.training(), net.training());
        // Keeping everything at full precision changes nothing.
        let (same, _) = net.compacted(Compaction {
            keep: 1.0,
            mantissa_bits: F16_MANTISSA_BITS,
            stages: 3,
            step: 0.0,
        });
        assert_eq!(same.to_bytes(), net.to_bytes());
    }

    #[test]
    #[allow(clippy::float_cmp)] // multiples of a power of two below 2048 are exact in f16
    fn a_grain_rounds_each_weight_and_each_difference_alike_whatever_its_size() {
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        let boards: Vec<u64> = (1..=40u64).map(|k| (k % 16) | ((k / 16) << 4)).collect();
        for (i, &b) in boards.iter().enumerate() {
            net.adjust(b, 0.7 * (i * i) as f32 - 300.0);
        }
        // Two late boards promote stage 0 and move its copy: one by a little (differences
        // a grain takes away), one by much.
        let late = 11u64 << 60;
        net.adjust(late | 0x0003_0002_0001, 2.5);
        net.adjust(late | 0x0005_0006_0007, 900.0);
        let step = 8.0;
        let (small, report) = net.compacted(Compaction {
            keep: 1.0,
            mantissa_bits: F16_MANTISSA_BITS,
            stages: 2,
            step,
        });
        let was: Vec<Vec<f32>> = (0..2).map(|k| net.stage_values(k).unwrap()).collect();
        let now: Vec<Vec<f32>> = (0..2).map(|k| small.stage_values(k).unwrap()).collect();
        let (mut differences, mut gone) = (0, 0);
        for i in 0..was[0].len() {
            // The first stage: the nearest multiple of the grain, small weights as large.
            assert_eq!(now[0][i] % step, 0.0, "{}", now[0][i]);
            assert!((now[0][i] - was[0][i]).abs() <= step / 2.0, "{i}");
            // The second: its difference from the first as compacted, a multiple of the
            // grain, so that its value too is within half a grain of the trained one; a copy
            // stays a copy, and a difference that rounds to nothing is gone (the weight is
            // the first stage's).
            let (d_was, d_now) = (was[1][i] - was[0][i], now[1][i] - now[0][i]);
            assert_eq!(d_now % step, 0.0, "{d_now}");
            if d_was == 0.0 {
                assert_eq!(d_now, 0.0, "{i}");
            } else {
                assert!((now[1][i] - was[1][i]).abs() <= step / 2.0, "{i}");
            }
            differences += usize::from(d_was != 0.0);
            gone += usize::from(d_was != 0.0 && d_now == 0.0);
        }
        assert!(
            differences > 0 && gone > 0 && gone < differences,
            "{gone} of {differences}"
        );
        assert!(report.nonzero_after < report.nonzero_before, "{report:?}");
        // No grain changes nothing.
        let (same, _) = net.compacted(Compaction {
            keep: 1.0,
            mantissa_bits: F16_MANTISSA_BITS,
            stages: 2,
            step: 0.0,
        });
        assert_eq!(same.to_bytes(), net.to_bytes());
    }
}
