//! One stage's weights in memory ([`Table`]): `f32` bits that training moves, or the f16 bits a
//! file stores for a network read to play; read one by one, summed over a board's features,
//! copied and prefetched.

use super::memory::{prefetch, zeroed};
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

/// The most weights one sum reads: a board's features, 8 images of at most 4 tuples.
pub(super) const MAX_FEATURES: usize = 32;

/// One stage's weights: a table per tuple, one after the other, each indexed by its cells'
/// exponents (first cell in the low bits).
pub(super) enum Table {
    /// `f32` bits, moved by training.
    Learning(Box<[AtomicU32]>),
    /// f16 bits, as a file stores them ([`WeightUse::Play`](super::WeightUse::Play)).
    Frozen(Box<[AtomicU16]>),
}

impl Table {
    /// How many weights it holds.
    pub(super) fn len(&self) -> usize {
        match self {
            Table::Learning(t) => t.len(),
            Table::Frozen(t) => t.len(),
        }
    }

    /// Weight `i`'s value.
    #[inline]
    pub(super) fn weight(&self, i: usize) -> f32 {
        match self {
            Table::Learning(t) => f32::from_bits(t[i].load(Ordering::Relaxed)),
            Table::Frozen(t) => f16_value(t[i].load(Ordering::Relaxed)),
        }
    }

    /// The weights training moves, unless they are frozen.
    #[inline]
    pub(super) fn learning(&self) -> Option<&[AtomicU32]> {
        match self {
            Table::Learning(t) => Some(t),
            Table::Frozen(_) => None,
        }
    }

    /// The sum of the weights `features` index.
    #[inline]
    pub(super) fn sum(&self, features: &[u32]) -> f32 {
        match self {
            Table::Learning(t) => sum(t, features),
            Table::Frozen(t) => {
                // All the reads first, then the arithmetic: each read misses the caches, and
                // kept apart from the conversions they all fit in the processor's window at
                // once (read and converted one by one, half the reads waited: 12% slower).
                let mut bits = [0u16; MAX_FEATURES];
                for (b, &i) in bits.iter_mut().zip(features) {
                    *b = t[i as usize].load(Ordering::Relaxed);
                }
                let mut values = [0f32; MAX_FEATURES];
                for (v, &b) in values.iter_mut().zip(&bits) {
                    *v = f16_value(b);
                }
                values[..features.len()].iter().sum()
            }
        }
    }

    /// A copy, in memory of its own (zeros are not written: memory never written costs
    /// nothing).
    pub(super) fn duplicate(&self) -> Table {
        match self {
            Table::Learning(from) => Table::Learning(copied(
                from,
                |w| w.load(Ordering::Relaxed),
                |w, v| w.store(v, Ordering::Relaxed),
            )),
            Table::Frozen(from) => Table::Frozen(copied(
                from,
                |w| w.load(Ordering::Relaxed),
                |w, v| w.store(v, Ordering::Relaxed),
            )),
        }
    }

    /// Starts fetching weight `i` into the cache.
    #[inline]
    pub(super) fn prefetch(&self, i: usize) {
        match self {
            Table::Learning(t) => prefetch(t[i].as_ptr().cast()),
            Table::Frozen(t) => prefetch(t[i].as_ptr().cast()),
        }
    }
}

/// The value of the f16 `bits`, exactly: its exponent and mantissa moved into an `f32`'s
/// places, then scaled from the f16's exponent bias (15) to the `f32`'s (127) by 2^112, which
/// is exact for every finite f16, subnormal ones included (a file holds no other).
#[inline]
fn f16_value(bits: u16) -> f32 {
    let bits = u32::from(bits);
    let size = f32::from_bits((bits & 0x7FFF) << 13) * f32::from_bits(0x7780_0000);
    f32::from_bits(size.to_bits() | ((bits & 0x8000) << 16))
}

/// A copy of the cells `from`, read with `load` and written with `store`, in memory of its own:
/// zeros are not written, and memory never written costs nothing.
pub(super) fn copied<T: bytemuck::Zeroable, V: Copy + PartialEq + Default>(
    from: &[T],
    load: impl Fn(&T) -> V,
    store: impl Fn(&T, V),
) -> Box<[T]> {
    let to: Box<[T]> = zeroed(from.len());
    for (cell, value) in to.iter().zip(from.iter().map(load)) {
        if value != V::default() {
            store(cell, value);
        }
    }
    to
}

/// The sum of the weights `features` index in `table`.
#[inline]
pub(super) fn sum(table: &[AtomicU32], features: &[u32]) -> f32 {
    features
        .iter()
        .map(|&i| f32::from_bits(table[i as usize].load(Ordering::Relaxed)))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finite_f16_is_read_as_its_exact_value() {
        let mut finite = 0;
        for bits in 0..=u16::MAX {
            let value = half::f16::from_bits(bits);
            if value.is_finite() {
                finite += 1;
                assert_eq!(
                    f16_value(bits).to_bits(),
                    value.to_f32().to_bits(),
                    "f16 bits {bits:#06x}"
                );
            }
        }
        // Subnormals, zeros of both signs and the largest f16 were all among them.
        assert_eq!(finite, 65536 - 2 * 1024);
    }
}
