//! The n-tuple network's files: the weight file (`Network::to_bytes`, `Network::from_bytes`:
//! header, f16 values, checksum) and the coherence file beside it, and the file markers.

use super::{CoherenceError, Network, NetworkError, READY, Stages, Training, TupleSet};
use crate::model::named::Named;
use std::io::{self, Read, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The magic bytes a coherence file starts with.
pub const COHERENCE_MAGIC: &[u8; 8] = b"P11COHER";
/// The coherence-file format this program writes and reads.
pub(super) const COHERENCE_FORMAT: u32 = 1;
/// How many sums a coherence file is read or written in at a time.
const SUMS_PER_CHUNK: usize = 1 << 16;

/// The magic bytes a weight file starts with.
pub const WEIGHTS_MAGIC: &[u8; 8] = b"P11NTUPL";
/// The weight-file format this program writes and reads.
pub(super) const FORMAT: u32 = 1;
/// The value type code for IEEE half-precision weights.
const VALUE_F16: u8 = 1;
/// The largest finite f16: weights are clamped to it when written.
const F16_MAX: f32 = 65504.0;

impl Network {
    /// Writes the coherence sums (nothing, if training does not track them) for the weight file
    /// whose checksum is `weights_checksum`: magic `P11COHER`, a format version, that checksum,
    /// the number of weights, each weight's two sums (its `u64`, little-endian) and a CRC-32 of
    /// everything before it. Streamed, so that 1.6 GB of sums are never copied in memory.
    pub fn write_coherence(&self, weights_checksum: u32, out: &mut dyn Write) -> io::Result<()> {
        let Some(sums) = &self.coherence else {
            return Ok(());
        };
        let mut hasher = crc32fast::Hasher::new();
        let mut put = |bytes: &[u8]| {
            hasher.update(bytes);
            out.write_all(bytes)
        };
        put(COHERENCE_MAGIC)?;
        put(&COHERENCE_FORMAT.to_le_bytes())?;
        put(&weights_checksum.to_le_bytes())?;
        put(&(sums.len() as u64).to_le_bytes())?;
        let mut chunk = Vec::with_capacity(8 * SUMS_PER_CHUNK);
        for part in sums.chunks(SUMS_PER_CHUNK) {
            chunk.clear();
            for pair in part {
                chunk.extend_from_slice(&pair.load(Ordering::Relaxed).to_le_bytes());
            }
            put(&chunk)?;
        }
        let sum = hasher.finalize();
        out.write_all(&sum.to_le_bytes())
    }

    /// Reads the coherence sums [`Network::write_coherence`] wrote, into a network that tracks
    /// coherence and was read from the weight file whose checksum is `weights_checksum`. The
    /// whole input is checked (magic, format, that checksum, the size, the CRC-32, nothing
    /// after it); on any failure the sums are all zero again, never half-read.
    pub fn read_coherence(
        &mut self,
        weights_checksum: u32,
        input: &mut dyn Read,
    ) -> Result<(), CoherenceError> {
        let Some(sums) = &self.coherence else {
            return Err(CoherenceError::NotTracked);
        };
        let read = read_sums(sums, weights_checksum, input);
        if read.is_err() {
            for pair in sums.as_ref() {
                pair.store(0, Ordering::Relaxed);
            }
        }
        read
    }

    /// The weight file: header, f16 weights, CRC-32. Weights beyond the f16 range are clamped
    /// to it (they never get near it in practice). A stage never reached is written as zeros
    /// and read back as "not trained".
    pub fn to_bytes(&self) -> Vec<u8> {
        let tuples = self.set.tuples();
        let mut out = Vec::with_capacity(64 + 2 * self.weights.len());
        out.extend_from_slice(WEIGHTS_MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        let name = self.set.name().as_bytes();
        out.push(name.len() as u8);
        out.extend_from_slice(name);
        out.push(tuples.len() as u8);
        for tuple in tuples {
            out.push(tuple.len() as u8);
            out.extend_from_slice(tuple);
        }
        out.push(self.stages.thresholds.len() as u8);
        out.extend_from_slice(&self.stages.thresholds);
        out.push(VALUE_F16);
        let training = self.training();
        out.extend_from_slice(&training.games.to_le_bytes());
        out.extend_from_slice(&training.moves.to_le_bytes());
        out.extend_from_slice(&training.seconds.to_le_bytes());
        out.extend_from_slice(&(self.weights.len() as u64).to_le_bytes());
        let per_stage = self.set.weights_per_stage();
        for (stage, weights) in self.weights.chunks(per_stage).enumerate() {
            // Read once a stage: a promotion that finishes while the file is written must not
            // leave the stage's first weights as zeros and the rest as values.
            let ready = self.state[stage].load(Ordering::Acquire) == READY;
            for w in weights {
                let value = if ready {
                    f32::from_bits(w.load(Ordering::Relaxed)).clamp(-F16_MAX, F16_MAX)
                } else {
                    0.0
                };
                out.extend_from_slice(&half::f16::from_f32(value).to_le_bytes());
            }
        }
        let sum = crc32fast::hash(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a weight file written by [`Network::to_bytes`]: the whole file is checked (magic,
    /// format, checksum, a known tuple set with its exact cells, stages, value type, the weight
    /// count, every value finite) before a network is made, so a bad file is never half-used.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        if !bytes.starts_with(WEIGHTS_MAGIC) {
            return Err(NetworkError::NotWeights);
        }
        let mut reader = Reader(&bytes[WEIGHTS_MAGIC.len()..]);
        let format = reader.u32().ok_or(NetworkError::Checksum)?;
        if format != FORMAT {
            return Err(NetworkError::Version(format));
        }
        let Some((body, sum)) = bytes.split_last_chunk::<4>() else {
            return Err(NetworkError::Checksum);
        };
        if body.len() < WEIGHTS_MAGIC.len() + 4 || crc32fast::hash(body) != u32::from_le_bytes(*sum)
        {
            return Err(NetworkError::Checksum);
        }
        let mut reader = Reader(&body[WEIGHTS_MAGIC.len() + 4..]);
        let header = |what: &str| NetworkError::Header(what.to_string());
        let set = read_tuple_set(&mut reader)?;
        let splits = reader.u8().ok_or_else(|| header("cut in the stages"))?;
        let thresholds = reader
            .take(usize::from(splits))
            .ok_or_else(|| header("cut in the stages"))?;
        let stages =
            Stages::split_at(thresholds).map_err(|e| NetworkError::Header(e.to_string()))?;
        match reader.u8() {
            Some(VALUE_F16) => {}
            Some(other) => {
                return Err(NetworkError::Header(format!("unknown value type {other}")));
            }
            None => return Err(header("cut before the value type")),
        }
        let training = read_counters(&mut reader)?;
        let stored = reader.u64().ok_or_else(|| header("cut in the counters"))?;
        // Checked before a network is allocated (up to a GiB).
        let expected = set.weights_per_stage() * stages.count();
        if stored != expected as u64 || reader.0.len() != 2 * expected {
            return Err(NetworkError::Header(format!(
                "it holds {stored} weights in {} bytes; this tuple set and these stages have {expected}",
                reader.0.len(),
            )));
        }
        // A year of training is far more than anyone runs; more is a damaged counter.
        let Training {
            games,
            moves,
            seconds,
        } = training;
        if !seconds.is_finite() || !(0.0..=1e10).contains(&seconds) || moves < games {
            return Err(header("its training counters are not possible"));
        }
        let mut network = Network::new(set, stages);
        let per_stage = set.weights_per_stage();
        let mut nonzero = vec![false; network.stages.count()];
        for (i, pair) in reader.0.chunks_exact(2).enumerate() {
            let value = half::f16::from_le_bytes([pair[0], pair[1]]).to_f32();
            if !value.is_finite() {
                return Err(NetworkError::Weight(i));
            }
            nonzero[i / per_stage] |= value != 0.0;
            network.weights[i].store(value.to_bits(), Ordering::Relaxed);
        }
        for (stage, trained) in nonzero.into_iter().enumerate().skip(1) {
            if trained {
                network.state[stage].store(READY, Ordering::Relaxed);
            }
        }
        network.training = Mutex::new(training);
        network.checksum = Some(u32::from_le_bytes(*sum));
        Ok(network)
    }
}

/// The tuple set a weight file names, checked against the tuples it lists.
fn read_tuple_set(reader: &mut Reader<'_>) -> Result<TupleSet, NetworkError> {
    let header = |what: &str| NetworkError::Header(what.to_string());
    let name_len = reader.u8().ok_or_else(|| header("cut in the tuple set"))?;
    let name = reader
        .take(usize::from(name_len))
        .and_then(|b| std::str::from_utf8(b).ok())
        .ok_or_else(|| header("cut in the tuple set"))?;
    let set = TupleSet::from_name(name)
        .ok_or_else(|| NetworkError::Header(format!("unknown tuple set '{name}'")))?;
    let count = reader.u8().ok_or_else(|| header("cut in the tuples"))?;
    let mut tuples = Vec::new();
    for _ in 0..count {
        let len = reader.u8().ok_or_else(|| header("cut in the tuples"))?;
        let cells = reader
            .take(usize::from(len))
            .ok_or_else(|| header("cut in the tuples"))?;
        tuples.push(cells.to_vec());
    }
    if tuples
        .iter()
        .map(Vec::as_slice)
        .ne(set.tuples().iter().copied())
    {
        return Err(NetworkError::Header(format!(
            "its tuples are not those of the tuple set '{name}'"
        )));
    }
    Ok(set)
}

/// A weight file's training counters (games, moves, seconds), not yet checked.
fn read_counters(reader: &mut Reader<'_>) -> Result<Training, NetworkError> {
    let cut = || NetworkError::Header("cut in the counters".to_string());
    let games = reader.u64().ok_or_else(cut)?;
    let moves = reader.u64().ok_or_else(cut)?;
    let seconds = reader.u64().map(f64::from_bits).ok_or_else(cut)?;
    Ok(Training {
        games,
        moves,
        seconds,
    })
}

/// The body of [`Network::read_coherence`]: fills `sums` from `input` as it checks it.
fn read_sums(
    sums: &[AtomicU64],
    weights_checksum: u32,
    input: &mut dyn Read,
) -> Result<(), CoherenceError> {
    let mut hasher = crc32fast::Hasher::new();
    let mut take = |buffer: &mut [u8]| -> Result<(), CoherenceError> {
        input.read_exact(buffer).map_err(|e| match e.kind() {
            io::ErrorKind::UnexpectedEof => CoherenceError::Checksum,
            _ => CoherenceError::Io(e),
        })?;
        hasher.update(buffer);
        Ok(())
    };
    let mut header = [0u8; 24];
    take(&mut header).map_err(|e| match e {
        CoherenceError::Checksum => CoherenceError::NotCoherence,
        other => other,
    })?;
    if !header.starts_with(COHERENCE_MAGIC) {
        return Err(CoherenceError::NotCoherence);
    }
    let word = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    let format = word(8);
    if format != COHERENCE_FORMAT {
        return Err(CoherenceError::Version(format));
    }
    let written_for = word(12);
    if written_for != weights_checksum {
        return Err(CoherenceError::OtherWeights(written_for, weights_checksum));
    }
    let count = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
    if count != sums.len() as u64 {
        return Err(CoherenceError::Size(count, sums.len()));
    }
    let mut chunk = vec![0u8; 8 * SUMS_PER_CHUNK];
    for part in sums.chunks(SUMS_PER_CHUNK) {
        let bytes = &mut chunk[..8 * part.len()];
        take(bytes)?;
        for (pair, value) in part.iter().zip(bytes.chunks_exact(8)) {
            pair.store(
                u64::from_le_bytes(value.try_into().expect("8 bytes")),
                Ordering::Relaxed,
            );
        }
    }
    let expected = hasher.finalize();
    let mut sum = [0u8; 4];
    input.read_exact(&mut sum).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => CoherenceError::Checksum,
        _ => CoherenceError::Io(e),
    })?;
    let mut after = [0u8; 1];
    if u32::from_le_bytes(sum) != expected || input.read(&mut after)? != 0 {
        return Err(CoherenceError::Checksum);
    }
    Ok(())
}

/// Little-endian reads off the front of a byte slice.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }
}
