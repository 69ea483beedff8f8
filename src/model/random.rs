//! The game's random number generator and the only ways it is sampled.
//!
//! Graders keep expected outputs for `--seed N`, so the stream of draws is an interface: the
//! generator is `ChaCha8` (its output is specified and stable across versions) and the sampling
//! below is our own code, so no change in `rand`'s algorithms can change a game.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator every game, player and benchmark uses.
pub type GameRng = ChaCha8Rng;

/// A generator seeded with `seed` (the seed's little-endian bytes, zero padded to 32 bytes).
pub fn seeded(seed: u64) -> GameRng {
    let mut key = [0u8; 32];
    key[..8].copy_from_slice(&seed.to_le_bytes());
    ChaCha8Rng::from_seed(key)
}

/// A uniform integer in `0..n` (`n > 0`), by rejection sampling on 32-bit draws.
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: usize) -> usize {
    debug_assert!(n > 0 && u32::try_from(n).is_ok());
    let n = n as u32;
    // The largest multiple of n that fits in 2^32; draws at or above it are rejected so every
    // residue is equally likely.
    let zone = u32::MAX - (u32::MAX - n + 1) % n;
    loop {
        let draw = rng.next_u32();
        if draw <= zone {
            return (draw % n) as usize;
        }
    }
}

/// True with probability `p` (uses a 53-bit uniform float in `[0, 1)`).
pub fn chance<R: Rng + ?Sized>(rng: &mut R, p: f64) -> bool {
    let unit = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
    unit < p
}

/// A well-mixed 64-bit value from `x` (`SplitMix64`'s finaliser), for deriving per-game seeds.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let (mut a, mut b) = (seeded(7), seeded(7));
        let xs: Vec<usize> = (0..50).map(|_| below(&mut a, 16)).collect();
        let ys: Vec<usize> = (0..50).map(|_| below(&mut b, 16)).collect();
        assert_eq!(xs, ys);
        assert_ne!(
            xs,
            (0..50)
                .map(|_| below(&mut seeded(8), 16))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn below_covers_its_range_and_stays_in_it() {
        let mut rng = seeded(1);
        let mut seen = [0usize; 5];
        for _ in 0..5000 {
            seen[below(&mut rng, 5)] += 1;
        }
        assert!(seen.iter().all(|&k| (800..1200).contains(&k)), "{seen:?}");
    }

    #[test]
    fn chance_is_roughly_p() {
        let mut rng = seeded(2);
        let hits = (0..10_000).filter(|_| chance(&mut rng, 0.1)).count();
        assert!((800..1200).contains(&hits), "{hits}");
        assert!(!(0..100).any(|_| chance(&mut rng, 0.0)));
        assert!((0..100).all(|_| chance(&mut rng, 1.0)));
    }
}
