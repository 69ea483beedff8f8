//! The coherence file beside a weight file: each weight's temporal-coherence sums, written
//! ([`Network::write_coherence`]) and read back ([`Network::read_coherence`]) only into the
//! weights they were gathered on, and why they may not be ([`CoherenceError`]).

use super::bytes::Hashing;
use super::format::{
    BLOCK, COHERENCE_FORMAT, COHERENCE_FORMAT_DENSE, COHERENCE_FORMAT_NO_RATE, COHERENCE_MAGIC,
    DEFAULT_LEVEL,
};
use super::{Network, Sums};
use std::io::{self, BufRead, Read, Write};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

/// Why a network's coherence sums could not be read back ([`Network::read_coherence`]).
#[derive(Debug, Error)]
pub enum CoherenceError {
    /// The bytes are not a coherence file.
    #[error("not a power11 coherence file")]
    NotCoherence,
    /// A coherence file of a format this program does not read.
    #[error("coherence file format {0}, this program reads formats 1 to {COHERENCE_FORMAT}")]
    Version(u32),
    /// The sums were written beside other weights: an older checkpoint's, or another network's.
    #[error(
        "its sums belong to other weights (crc32 {0:08x}, not {1:08x}: an earlier checkpoint's, or another network's)"
    )]
    OtherWeights(u32, u32),
    /// The sums are of a network of another size.
    #[error("it holds sums for {0} weights, not {1}")]
    Size(u64, usize),
    /// The file was damaged or cut.
    #[error("the coherence file is damaged or cut short (its checksum does not match)")]
    Checksum,
    /// The network was not read from a weight file (built, or split since it was read): no
    /// sums in a file are its own.
    #[error("the network was not read from a weight file, so no coherence sums are its own")]
    NotFromFile,
    /// The network does not track coherence: there is nowhere to read sums into.
    #[error("the network does not track coherence")]
    NotTracked,
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl Network {
    /// Writes the coherence sums (nothing, if training does not track them) for the weight file
    /// whose checksum is `weights_checksum`, gathered by a run learning at `rate`: magic
    /// `P11COHER`, a format version, that checksum, the number of weights, a byte whose bit `k`
    /// says stage `k`'s sums are stored, the rate (`f32`), a zstd frame of those stages' sums
    /// (each weight's two sums in its `u64`, rounded to 8 significant bits, byte split like the
    /// weights) and a CRC-32 of everything before it. Streamed, so that the sums are never
    /// copied in memory.
    pub fn write_coherence(
        &self,
        weights_checksum: u32,
        rate: f32,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        let Some(stages) = &self.coherence else {
            return Ok(());
        };
        // What no run learns at is not written: the reader would call the file damaged.
        if !is_learning_rate(rate) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a learning rate of {rate} (above 0, at most 1)"),
            ));
        }
        let mut out = Hashing::new(out);
        out.write_all(COHERENCE_MAGIC)?;
        out.write_all(&COHERENCE_FORMAT.to_le_bytes())?;
        out.write_all(&weights_checksum.to_le_bytes())?;
        let count = self.set.weights_per_stage() * self.stages.count();
        out.write_all(&(count as u64).to_le_bytes())?;
        let stored: Vec<&[AtomicU64]> = stages
            .iter()
            .filter_map(|s| s.get().map(|s| &**s))
            .collect();
        let mask = stages
            .iter()
            .enumerate()
            .filter(|(_, s)| s.get().is_some())
            .fold(0u8, |mask, (k, _)| mask | (1 << k));
        out.write_all(&[mask])?;
        out.write_all(&rate.to_le_bytes())?;
        let mut encoder = zstd::Encoder::new(out, DEFAULT_LEVEL)?;
        let mut block = Vec::with_capacity(8 * BLOCK);
        for sums in stored {
            for part in sums.chunks(BLOCK) {
                // Each sum read once: training threads may be moving them meanwhile.
                let pairs: Vec<u64> = part
                    .iter()
                    .map(|p| round_sums(p.load(Ordering::Relaxed)))
                    .collect();
                block.clear();
                for plane in 0..8 {
                    block.extend(pairs.iter().map(|pair| (pair >> (8 * plane)) as u8));
                }
                encoder.write_all(&block)?;
            }
        }
        let Hashing { inner, hasher } = encoder.finish()?;
        inner.write_all(&hasher.finalize().to_le_bytes())
    }

    /// Reads the coherence sums [`Network::write_coherence`] wrote (or an earlier power11's
    /// formats 1 and 2), into a network that tracks coherence and was read from the weight file
    /// whose checksum is `weights_checksum`, and returns the rate they were gathered at (`None`
    /// from a file of an earlier format, which did not keep it). The whole input is checked
    /// (magic, format, that checksum, the size, the stages, the rate, the CRC-32, nothing after
    /// it); on any failure the sums are all zero again, never half-read.
    pub fn read_coherence(
        &mut self,
        weights_checksum: u32,
        input: &mut dyn BufRead,
    ) -> Result<Option<f32>, CoherenceError> {
        let Some(stages) = &self.coherence else {
            return Err(CoherenceError::NotTracked);
        };
        let read = read_sums(self, weights_checksum, input);
        if read.is_err() {
            for sums in stages.iter().filter_map(|s| s.get()) {
                for pair in sums.as_ref() {
                    pair.store(0, Ordering::Relaxed);
                }
            }
        }
        read
    }
}

/// A weight's two coherence sums (two `f32`s in a `u64`) rounded to 8 significant bits each
/// (a bfloat16 in the high half of each `f32`): what they say, the size of one over the
/// other, is kept to within 1% (a step of training is scaled by it, never aimed by it), and the
/// two bytes of noise each carries below that, which no compressor shrinks and which were
/// over a third of a 5-minute run's data directory, are not.
fn round_sums(pair: u64) -> u64 {
    let round = |bits: u32| {
        let rounded = bits.wrapping_add(0x8000) & !0xFFFF;
        // Never into infinity (sums are far from it) nor across the sign.
        if rounded & 0x7F80_0000 == 0x7F80_0000 || (rounded ^ bits) & 0x8000_0000 != 0 {
            bits & !0xFFFF
        } else {
            rounded
        }
    };
    u64::from(round(pair as u32)) | (u64::from(round((pair >> 32) as u32)) << 32)
}

/// Whether a coherence file may record `rate`: no run learns at a rate outside (0, 1]
/// (`train --rate` takes at most 0.25), so the writer refuses one and the reader calls it damage.
fn is_learning_rate(rate: f32) -> bool {
    rate > 0.0 && rate <= 1.0
}

/// The body of [`Network::read_coherence`]: fills the sums from `input` as it checks it, and
/// returns the rate they were gathered at, if the file keeps it.
fn read_sums(
    network: &Network,
    weights_checksum: u32,
    input: &mut dyn BufRead,
) -> Result<Option<f32>, CoherenceError> {
    let mut input = Hashing::new(input);
    let mut header = [0u8; 24];
    input.read_exact(&mut header).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => CoherenceError::NotCoherence,
        _ => CoherenceError::Io(e),
    })?;
    if !header.starts_with(COHERENCE_MAGIC) {
        return Err(CoherenceError::NotCoherence);
    }
    let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let format = word(8);
    if ![
        COHERENCE_FORMAT,
        COHERENCE_FORMAT_NO_RATE,
        COHERENCE_FORMAT_DENSE,
    ]
    .contains(&format)
    {
        return Err(CoherenceError::Version(format));
    }
    let written_for = word(12);
    if written_for != weights_checksum {
        return Err(CoherenceError::OtherWeights(written_for, weights_checksum));
    }
    let count = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    let per_stage = network.set.weights_per_stage();
    let expected = per_stage * network.stages.count();
    if count != expected as u64 {
        return Err(CoherenceError::Size(count, expected));
    }
    let stages = network
        .coherence
        .as_ref()
        .ok_or(CoherenceError::NotTracked)?;
    let mut rate = None;
    if format == COHERENCE_FORMAT_DENSE {
        // Every stage's sums; those of a stage without weights of its own are all zero.
        let every = (1u8 << stages.len()) - 1;
        read_stored_sums(stages, every, per_stage, &mut input, |bytes, i| {
            u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
        })
        .map_err(cut_is_damage)?;
    } else {
        let mut mask = [0u8; 1];
        input.read_exact(&mut mask).map_err(cut_is_damage)?;
        if u32::from(mask[0]) >= 1 << stages.len() {
            return Err(CoherenceError::Checksum);
        }
        if format == COHERENCE_FORMAT {
            let mut word = [0u8; 4];
            input.read_exact(&mut word).map_err(cut_is_damage)?;
            let value = f32::from_le_bytes(word);
            if !is_learning_rate(value) {
                return Err(CoherenceError::Checksum);
            }
            rate = Some(value);
        }
        let mut decoder = zstd::Decoder::with_buffer(&mut input)
            .map_err(cut_is_damage)?
            .single_frame();
        read_stored_sums(stages, mask[0], per_stage, &mut decoder, |bytes, i| {
            let n = bytes.len() / 8;
            (0..8).fold(0u64, |v, plane| {
                v | (u64::from(bytes[plane * n + i]) << (8 * plane))
            })
        })
        .map_err(cut_is_damage)?;
        let mut after = [0u8; 1];
        if decoder.read(&mut after).map_err(cut_is_damage)? != 0 {
            return Err(CoherenceError::Checksum);
        }
    }
    let expected = input.hasher.clone().finalize();
    let mut sum = [0u8; 4];
    input.inner.read_exact(&mut sum).map_err(cut_is_damage)?;
    let mut after = [0u8; 1];
    if u32::from_le_bytes(sum) != expected || input.inner.read(&mut after)? != 0 {
        return Err(CoherenceError::Checksum);
    }
    Ok(rate)
}

/// Reads the sums of the stages `stored` marks (bit `k`: stage `k`) from `input` into the
/// network's. A stage stored that the weights lack (promoted between a checkpoint's two files)
/// is read past; one the weights have and the file lacks keeps sums of zero.
fn read_stored_sums(
    stages: &[OnceLock<Sums>],
    stored: u8,
    per_stage: usize,
    input: &mut dyn Read,
    decode: impl Fn(&[u8], usize) -> u64,
) -> io::Result<()> {
    let mut scratch: Vec<AtomicU64> = Vec::new();
    for (k, stage) in stages.iter().enumerate() {
        if stored & (1 << k) == 0 {
            continue;
        }
        let sums = if let Some(sums) = stage.get() {
            &**sums
        } else {
            scratch.resize_with(per_stage, AtomicU64::default);
            &scratch[..]
        };
        fill_sums(sums, input, &decode)?;
    }
    Ok(())
}

/// Reads `sums` from `input` block by block, each block's `i`-th sum decoded by `decode`.
fn fill_sums(
    sums: &[AtomicU64],
    input: &mut dyn Read,
    decode: impl Fn(&[u8], usize) -> u64,
) -> io::Result<()> {
    let mut block = vec![0u8; 8 * BLOCK];
    for part in sums.chunks(BLOCK) {
        let bytes = &mut block[..8 * part.len()];
        input.read_exact(bytes)?;
        for (i, pair) in part.iter().enumerate() {
            pair.store(decode(bytes, i), Ordering::Relaxed);
        }
    }
    Ok(())
}

/// A coherence file cut short is a damaged one; other read errors are what they are.
fn cut_is_damage(e: io::Error) -> CoherenceError {
    match e.kind() {
        io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidData | io::ErrorKind::Other => {
            CoherenceError::Checksum
        }
        _ => CoherenceError::Io(e),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{bits, trained};
    use super::super::{Stages, TupleSet};
    use super::*;

    #[test]
    fn coherence_files_of_format_1_are_still_read() {
        let mut net = trained();
        net.track_coherence();
        for k in 1..=5u64 {
            net.learn(k | (k << 20), 50.0 * k as f32, 0.25);
        }
        let words: Vec<u64> = net
            .coherence
            .as_ref()
            .unwrap()
            .iter()
            .flat_map(|stage| {
                let stage: Vec<u64> = match stage.get() {
                    Some(sums) => sums.iter().map(|p| p.load(Ordering::Relaxed)).collect(),
                    None => vec![0; 1 << 17],
                };
                stage
            })
            .collect();
        // Every stage's sums, dense, as power11 0.2 wrote them.
        let mut old = COHERENCE_MAGIC.to_vec();
        old.extend_from_slice(&COHERENCE_FORMAT_DENSE.to_le_bytes());
        old.extend_from_slice(&0x1234u32.to_le_bytes());
        old.extend_from_slice(&(words.len() as u64).to_le_bytes());
        for w in &words {
            old.extend_from_slice(&w.to_le_bytes());
        }
        let sum = crc32fast::hash(&old);
        old.extend_from_slice(&sum.to_le_bytes());
        let mut back = trained();
        back.track_coherence();
        back.read_coherence(0x1234, &mut &old[..]).unwrap();
        let read: Vec<u64> = back.coherence.as_ref().unwrap()[0]
            .get()
            .unwrap()
            .iter()
            .map(|p| p.load(Ordering::Relaxed))
            .collect();
        assert!(
            read == words[..1 << 17],
            "stage 0's sums come back as written"
        );
        assert!(read.iter().any(|&w| w != 0));
    }

    #[test]
    fn coherence_sums_round_trip_and_only_into_the_weights_they_were_written_with() {
        let board = bits(&[[2, 4, 8, 16], [32, 0, 0, 0], [0; 4], [0; 4]]);
        let trained = |errors: &[f32]| {
            let mut network = Network::new(TupleSet::Rows, Stages::single());
            network.track_coherence();
            for &target in errors {
                network.learn(board, target, 0.25);
            }
            network
        };
        let network = trained(&[8.0, -4.0, 6.0]);
        let mut bytes = Vec::new();
        network.write_coherence(0xABCD, 0.125, &mut bytes).unwrap();
        // Compressed: far less than the 8 bytes a weight the sums take in memory.
        let weights = TupleSet::Rows.weights_per_stage();
        assert!(bytes.len() < weights, "{} bytes", bytes.len());
        let sums = |n: &Network| -> Vec<u64> {
            n.coherence
                .as_ref()
                .unwrap()
                .iter()
                .filter_map(|stage| stage.get())
                .flat_map(|sums| sums.iter().map(|p| p.load(Ordering::Relaxed)))
                .collect()
        };
        let fresh = || trained(&[]);
        let mut read = fresh();
        // The rate the sums were gathered at comes back with them.
        assert_eq!(
            read.read_coherence(0xABCD, &mut &bytes[..]).unwrap(),
            Some(0.125)
        );
        // Each sum comes back rounded to 8 significant bits (a bfloat16: the low 16 bits of
        // its f32 are 0), within 2^-8 of itself.
        let rounded: Vec<u64> = sums(&network).into_iter().map(round_sums).collect();
        assert!(sums(&read) == rounded);
        for (back, was) in sums(&read).iter().zip(sums(&network)) {
            for shift in [0, 32] {
                let (b, w) = (
                    f32::from_bits((back >> shift) as u32),
                    f32::from_bits((was >> shift) as u32),
                );
                assert_eq!(b.to_bits() & 0xFFFF, 0, "{b} {w}");
                assert!((b - w).abs() <= w.abs() / 256.0, "{b} {w}");
            }
        }
        // An error of 8 moves both alike (to within 1%: the rounded sums keep their ratio that
        // well), less than a network without sums: the coherence carried over.
        let moved = |n: &Network| {
            let before = n.value(board);
            n.learn(board, before + 8.0, 0.25) - before
        };
        let (carried, original, whole) = (moved(&read), moved(&network), moved(&fresh()));
        assert!(
            (carried - original).abs() <= original.abs() / 100.0 && carried < 0.9 * whole,
            "{carried} {original} {whole}"
        );
        // Anything else leaves the sums at zero.
        let zero = sums(&fresh());
        let refused = |bytes: &[u8], checksum: u32| {
            let mut network = fresh();
            let error = network
                .read_coherence(checksum, &mut &bytes[..])
                .unwrap_err();
            assert!(sums(&network) == zero, "{error}");
            error.to_string()
        };
        assert!(
            refused(&bytes, 0x1234)
                .contains("belong to other weights (crc32 0000abcd, not 00001234")
        );
        for at in [30, bytes.len() / 2, bytes.len() - 6] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert!(refused(&damaged, 0xABCD).contains("damaged"), "byte {at}");
        }
        assert!(refused(&bytes[..bytes.len() - 1], 0xABCD).contains("damaged"));
        assert!(refused(&[&bytes[..], &[0]].concat(), 0xABCD).contains("damaged"));
        assert!(refused(&bytes[..10], 0xABCD).contains("not a power11 coherence file"));
        let mut newer = bytes.clone();
        newer[8] = 9;
        assert!(refused(&newer, 0xABCD).contains("format 9"));
        // A rate no run learns at (its bytes follow the 25-byte header) is damage.
        for rate in [0.0f32, -0.5, 2.0, f32::NAN] {
            let mut odd = bytes.clone();
            odd[25..29].copy_from_slice(&rate.to_le_bytes());
            let body = odd.len() - 4;
            let sum = crc32fast::hash(&odd[..body]);
            odd[body..].copy_from_slice(&sum.to_le_bytes());
            assert!(refused(&odd, 0xABCD).contains("damaged"), "{rate}");
        }
        // Format 2 (power11 0.3.0): the same without the rate, read as sums of no known rate.
        let mut two = bytes[..25].to_vec();
        two[8] = 2;
        two.extend_from_slice(&bytes[29..bytes.len() - 4]);
        let sum = crc32fast::hash(&two);
        two.extend_from_slice(&sum.to_le_bytes());
        let mut old = fresh();
        assert_eq!(old.read_coherence(0xABCD, &mut &two[..]).unwrap(), None);
        assert!(sums(&old) == rounded);
        let mut bigger = Network::new(TupleSet::Rows, Stages::split_at(&[6]).unwrap());
        bigger.track_coherence();
        let error = bigger.read_coherence(0xABCD, &mut &bytes[..]).unwrap_err();
        assert!(error.to_string().contains("not 262144"), "{error}");
        // A network that does not track coherence writes nothing and reads nothing.
        let mut plain = Network::new(TupleSet::Rows, Stages::single());
        let mut none = Vec::new();
        plain.write_coherence(1, 0.25, &mut none).unwrap();
        assert!(none.is_empty());
        assert!(matches!(
            plain.read_coherence(0xABCD, &mut &bytes[..]),
            Err(CoherenceError::NotTracked)
        ));
    }
}
