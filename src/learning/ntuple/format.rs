//! The n-tuple network's files: the weight file (`Network::to_bytes`, `Network::from_bytes`)
//! and the coherence file beside it, and the file markers.
//!
//! Both are one header, zstd-compressed stages and one CRC-32 of everything before it. The
//! weight file holds only the stages that have weights of their own, in blocks; each block is a
//! bitmap of the weights it stores (nonzero ones, or in a later stage those that differ from
//! the stage stored before it: a promoted stage starts as a copy) and their values, low bytes
//! then high bytes (the bytes that vary most kept apart from those that vary least). So a
//! file's size follows what was learned, not the table's size. Its blocks are in zstd frames
//! of at most [`FRAME_BLOCKS`] blocks (format 3), so that every core decompresses some: one
//! frame, on one core, took half the processor time of loading the shipped network. Formats 2 (one frame) and 1 (every stage,
//! dense and uncompressed) are still read; the coherence file is one frame.

use super::memory::{zeroed, zeroed_small};
use super::{
    CoherenceError, MAX_STAGES, Network, NetworkError, Stages, Table, Training, TupleSet, WeightUse,
};
use crate::model::named::Named;
use std::io::{self, BufRead, Read, Write};
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The magic bytes a coherence file starts with.
pub const COHERENCE_MAGIC: &[u8; 8] = b"P11COHER";
/// The coherence-file format this program writes.
pub(super) const COHERENCE_FORMAT: u32 = 3;
/// The coherence-file format before the rate was kept: the same but for it (still read).
const COHERENCE_FORMAT_NO_RATE: u32 = 2;
/// The first coherence-file format: every stage's sums, dense and uncompressed (still read).
const COHERENCE_FORMAT_DENSE: u32 = 1;

/// The magic bytes a weight file starts with.
pub const WEIGHTS_MAGIC: &[u8; 8] = b"P11NTUPL";
/// The weight-file format this program writes.
pub(super) const FORMAT: u32 = 3;
/// The weight-file format with the stages in one zstd frame (still read).
const FORMAT_ONE_FRAME: u32 = 2;
/// The first weight-file format: every stage, dense f16, uncompressed (still read).
const FORMAT_DENSE: u32 = 1;
/// The value type code for IEEE half-precision weights.
const VALUE_F16: u8 = 1;
/// The largest finite f16: weights are clamped to it when written.
pub(super) const F16_MAX: f32 = 65504.0;
/// Values a block holds: the unit of the byte split and of reading and writing.
const BLOCK: usize = 1 << 16;
/// Blocks a zstd frame of a weight file holds at most (format 3): frames are compressed and
/// decompressed on every core, and 8M weights a frame cost a few parts in a thousand of the
/// file's size against one frame.
const FRAME_BLOCKS: usize = 128;
/// Frames a weight file may hold: more than any tuple set and stages make, fewer than a
/// damaged file could ask for.
const MAX_FRAMES: usize = 1 << 12;

/// The zstd level checkpoints are written at: fast (a few seconds for a whole network), and
/// most of a network's zeros and repeats are found at any level.
pub const DEFAULT_LEVEL: i32 = 3;

impl Network {
    /// The weight file, at the checkpoints' zstd level ([`DEFAULT_LEVEL`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_at(DEFAULT_LEVEL)
    }

    /// The weight file, compressed at zstd `level` (1 to 22; higher is smaller and slower):
    /// magic, format, the header (tuple set and its cells, stages, value type, training
    /// counters, weights a network holds), a byte whose bit `k` says stage `k` is stored, the
    /// stored stages' f16 values in zstd frames of at most 128 blocks of one stage
    /// each (see the module's notes; the frames are compressed on every core), and a CRC-32 of
    /// everything before it. Weights beyond the f16 range are clamped to it (they never get
    /// near it in practice).
    pub fn to_bytes_at(&self, level: i32) -> Vec<u8> {
        self.to_bytes_framed(level, FRAME_BLOCKS)
    }

    /// [`Network::to_bytes_at`] streamed to `out` as its frames are compressed, a few at a
    /// time, so that a checkpoint never holds the whole file (nor all its frames) in memory
    /// beside the network it trains: returns the file's CRC-32, its last 4 bytes.
    pub fn write_weights_to(&self, level: i32, out: &mut dyn Write) -> io::Result<u32> {
        self.write_framed(level, FRAME_BLOCKS, out)
    }

    /// [`Network::to_bytes_at`] with frames of at most `frame_blocks` blocks.
    fn to_bytes_framed(&self, level: i32, frame_blocks: usize) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_framed(level, frame_blocks, &mut out)
            .expect("writing into memory cannot fail");
        out
    }

    /// [`Network::write_weights_to`] with frames of at most `frame_blocks` blocks.
    fn write_framed(
        &self,
        level: i32,
        frame_blocks: usize,
        out: &mut dyn Write,
    ) -> io::Result<u32> {
        let mut out = Hashing::new(out);
        let mut head = self.header(FORMAT);
        let stored: Vec<&Table> = (0..self.stages.count())
            .filter_map(|k| self.stage_table(k))
            .collect();
        let mask = (0..self.stages.count())
            .filter(|&k| self.stage_table(k).is_some())
            .fold(0u8, |mask, k| mask | (1 << k));
        head.push(mask);
        out.write_all(&head)?;
        let level = level.clamp(1, zstd::zstd_safe::max_c_level());
        let blocks = self.set.weights_per_stage().div_ceil(BLOCK);
        // One job a frame: (stored stage, first block, end block).
        let jobs: Vec<(usize, usize, usize)> = (0..stored.len())
            .flat_map(|j| {
                (0..blocks)
                    .step_by(frame_blocks.max(1))
                    .map(move |b| (j, b, (b + frame_blocks.max(1)).min(blocks)))
            })
            .collect();
        let frame = |&(j, first, end): &(usize, usize, usize)| {
            let below = j.checked_sub(1).map(|i| stored[i]);
            let mut bytes = Vec::new();
            write_stage(&mut bytes, stored[j], below, first..end);
            zstd::bulk::compress(&bytes, level).expect("compressing into memory cannot fail")
        };
        // Two frames a thread at a time: every core busy, a few frames in memory.
        for batch in jobs.chunks(2 * workers(jobs.len())) {
            for frame in in_parallel(batch, frame) {
                out.write_all(&frame)?;
            }
        }
        let sum = out.hasher.finalize();
        out.inner.write_all(&sum.to_le_bytes())?;
        Ok(sum)
    }

    /// Magic, `format` and the header both formats share, up to the weight count.
    fn header(&self, format: u32) -> Vec<u8> {
        let tuples = self.set.tuples();
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(WEIGHTS_MAGIC);
        out.extend_from_slice(&format.to_le_bytes());
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
        let count = self.set.weights_per_stage() * self.stages.count();
        out.extend_from_slice(&(count as u64).to_le_bytes());
        out
    }

    /// Reads a weight file written by [`Network::to_bytes`] (format 3) or by an earlier power11
    /// (formats 1 and 2): the whole file is checked (magic, format, checksum, a known tuple set with
    /// its exact cells, stages, value type, the weight count, every value finite) before a
    /// network is made, so a bad file is never half-used. Its weights are `f32`, to train on
    /// ([`WeightUse::Training`]); [`Network::from_bytes_for`] reads one to play with.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetworkError> {
        Network::from_bytes_for(bytes, WeightUse::Training)
    }

    /// [`Network::from_bytes`], its weights held as `weight_use` says: a network read only to
    /// play with ([`WeightUse::Play`]) keeps the file's f16 values, in half the memory (a file
    /// of format 1 is read into `f32` whatever the use).
    pub fn from_bytes_for(bytes: &[u8], weight_use: WeightUse) -> Result<Network, NetworkError> {
        if !bytes.starts_with(WEIGHTS_MAGIC) {
            return Err(NetworkError::NotWeights);
        }
        let mut reader = Reader(&bytes[WEIGHTS_MAGIC.len()..]);
        let format = reader.u32().ok_or(NetworkError::Checksum)?;
        if ![FORMAT, FORMAT_ONE_FRAME, FORMAT_DENSE].contains(&format) {
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
        let (set, stages, training) = read_header(&mut reader)?;
        let mut network = Network::unfilled(set, stages);
        if format == FORMAT_DENSE {
            read_dense(&mut network, reader.0)?;
        } else {
            read_compressed(&mut network, reader.0, weight_use, format)?;
        }
        network.training = Mutex::new(training);
        network.checksum = Some(u32::from_le_bytes(*sum));
        Ok(network)
    }

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
pub(super) fn round_sums(pair: u64) -> u64 {
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

/// The f16 bits of the `f32` bits `w`, clamped to the f16 range.
#[inline]
fn f16_bits(w: u32) -> u16 {
    half::f16::from_f32(f32::from_bits(w).clamp(-F16_MAX, F16_MAX)).to_bits()
}

/// Weight `i` of `table` as the file stores it: f16 bits.
#[inline]
fn stored_bits(table: &Table, i: usize) -> u16 {
    match table {
        Table::Learning(t) => f16_bits(t[i].load(Ordering::Relaxed)),
        Table::Frozen(t) => t[i].load(Ordering::Relaxed),
    }
}

/// The `blocks` (by index) of one stored stage, for a frame of the weight file, in blocks of
/// [`BLOCK`] weights: a bitmap of
/// the weights the block stores (bit `i` of byte `i / 8`: in the first stage the nonzero ones,
/// in a later one those that differ from `below`, the stage stored before it), then those
/// weights' f16 low bytes, then their high bytes. The others are zero, or `below`'s. Each block
/// is read from the network once: training threads may be moving the weights meanwhile.
fn write_stage(
    out: &mut Vec<u8>,
    table: &Table,
    below: Option<&Table>,
    blocks: std::ops::Range<usize>,
) {
    let mut bits: Vec<u16> = Vec::with_capacity(BLOCK);
    let mut own: Vec<bool> = Vec::with_capacity(BLOCK);
    for start in blocks
        .map(|b| b * BLOCK)
        .filter(|&start| start < table.len())
    {
        let end = (start + BLOCK).min(table.len());
        bits.clear();
        bits.extend((start..end).map(|i| stored_bits(table, i)));
        own.clear();
        own.extend(bits.iter().enumerate().map(|(i, &b)| match below {
            None => b != 0,
            Some(below) => b != stored_bits(below, start + i),
        }));
        out.extend(own.chunks(8).map(|eight| {
            eight
                .iter()
                .enumerate()
                .fold(0u8, |mask, (j, &o)| mask | (u8::from(o) << j))
        }));
        for shift in [0, 8] {
            out.extend(
                bits.iter()
                    .zip(&own)
                    .filter(|(_, o)| **o)
                    .map(|(&b, _)| (b >> shift) as u8),
            );
        }
    }
}

/// A weight file's header after its format: the tuple set, stages, value type, training
/// counters and weight count, checked.
fn read_header(reader: &mut Reader<'_>) -> Result<(TupleSet, Stages, Training), NetworkError> {
    let header = |what: &str| NetworkError::Header(what.to_string());
    let set = read_tuple_set(reader)?;
    let splits = reader.u8().ok_or_else(|| header("cut in the stages"))?;
    let thresholds = reader
        .take(usize::from(splits))
        .ok_or_else(|| header("cut in the stages"))?;
    let stages = Stages::split_at(thresholds).map_err(|e| NetworkError::Header(e.to_string()))?;
    match reader.u8() {
        Some(VALUE_F16) => {}
        Some(other) => {
            return Err(NetworkError::Header(format!("unknown value type {other}")));
        }
        None => return Err(header("cut before the value type")),
    }
    let training = read_counters(reader)?;
    let stored = reader.u64().ok_or_else(|| header("cut in the counters"))?;
    let expected = set.weights_per_stage() * stages.count();
    if stored != expected as u64 {
        return Err(NetworkError::Header(format!(
            "it holds {stored} weights; this tuple set and these stages have {expected}"
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
    Ok((set, stages, training))
}

/// Format 1's weights: every stage, dense f16 (a stage of zeros was never reached).
fn read_dense(network: &mut Network, values: &[u8]) -> Result<(), NetworkError> {
    let per_stage = network.set.weights_per_stage();
    let count = per_stage * network.stages.count();
    if values.len() != 2 * count {
        return Err(NetworkError::Header(format!(
            "it holds {} bytes of weights; this tuple set and these stages have {count} weights",
            values.len()
        )));
    }
    for (stage, bytes) in values.chunks_exact(2 * per_stage).enumerate() {
        let mut decoded = Vec::with_capacity(per_stage);
        for (i, pair) in bytes.chunks_exact(2).enumerate() {
            let value = half::f16::from_le_bytes([pair[0], pair[1]]).to_f32();
            if !value.is_finite() {
                return Err(NetworkError::Weight(stage * per_stage + i));
            }
            decoded.push(value);
        }
        if stage == 0 || decoded.iter().any(|&v| v != 0.0) {
            network.set_stage(stage, decoded.into_iter());
        }
    }
    Ok(())
}

/// Format 2's and 3's weights: the stage byte, then the stored stages in one zstd frame
/// (format 2) or in frames that each say their size (format 3, decompressed on every core).
/// All of it is decompressed and cut into blocks first (so a damaged file is refused before
/// any table is made), then the blocks are spread over threads: each writes its blocks of every
/// stage into tables that come zeroed, so that a zero costs nothing.
fn read_compressed(
    network: &mut Network,
    rest: &[u8],
    weight_use: WeightUse,
    format: u32,
) -> Result<(), NetworkError> {
    let damaged = |what: String| NetworkError::Header(format!("its weights are damaged: {what}"));
    let Some((&mask, frames)) = rest.split_first() else {
        return Err(NetworkError::Header(
            "cut before the stages' weights".to_string(),
        ));
    };
    let count = network.stages.count();
    if mask & 1 == 0 || u32::from(mask) >= 1 << count {
        return Err(NetworkError::Header(format!(
            "its stored stages ({mask:#04b}) do not fit its {count} stage(s)"
        )));
    }
    let stored: Vec<usize> = (0..count).filter(|k| mask & (1 << k) != 0).collect();
    let per_stage = network.set.weights_per_stage();
    // The most a stage can hold: every weight stored, and its blocks' bitmaps.
    let most = stored.len() * (per_stage.div_ceil(BLOCK) * BLOCK / 8 + 2 * per_stage);
    let (decoded, listed) = if format == FORMAT_ONE_FRAME {
        (decompress_one_frame(frames, most), Vec::new())
    } else {
        match frames_of(frames, most) {
            Ok(listed) => (decompress_listed(&listed), listed),
            Err(what) => (Err(what), Vec::new()),
        }
    };
    let decoded = decoded.map_err(damaged)?;
    let mut reader = Reader(&decoded);
    // Each stored stage's blocks, and where its bytes start in `decoded`.
    let mut stages = Vec::with_capacity(stored.len());
    let mut starts = Vec::with_capacity(stored.len() + 1);
    for _ in &stored {
        starts.push(decoded.len() - reader.0.len());
        stages.push(blocks_of_stage(&mut reader, per_stage).map_err(|w| damaged(w.to_string()))?);
    }
    starts.push(decoded.len());
    if !reader.0.is_empty() {
        return Err(damaged("more values than its stages hold".to_string()));
    }
    let bad = |(j, at): (usize, usize)| NetworkError::Weight(stored[j] * per_stage + at);
    if weight_use == WeightUse::Play
        && let Some(pending) = pending_stages(&listed, &starts)
    {
        // Every stage checked now, each expanded from its own frames when a board first needs
        // it: stage 0 at once, but after the bytes decoded to check them are gone.
        for (j, blocks) in stages.iter().enumerate() {
            if let Some(at) = first_not_finite(blocks) {
                return Err(bad((j, at)));
            }
        }
        drop(stages);
        drop(decoded);
        for (j, frames) in pending.into_iter().enumerate() {
            let holds = starts[j + 1] - starts[j];
            let below = j.checked_sub(1).map(|i| stored[i]);
            let frames = Mutex::new(frames);
            network.set_pending(
                stored[j],
                Pending {
                    frames,
                    holds,
                    below,
                },
            );
        }
        network.table(0);
        return Ok(());
    }
    let tables: Vec<Table> = match weight_use {
        WeightUse::Training => expand_in_parallel(&stages, per_stage, &WideCells::of_f16(), None)
            .map_err(bad)?
            .into_iter()
            .map(Table::Learning)
            .collect(),
        WeightUse::Play => expand_in_parallel(&stages, per_stage, &F16Cells, None)
            .map_err(bad)?
            .into_iter()
            .map(Table::Frozen)
            .collect(),
    };
    for (&stage, table) in stored.iter().zip(tables) {
        network.set_table(stage, table);
    }
    Ok(())
}

/// A stored stage of a weight file read to play, not expanded yet ([`Network::table`]): its
/// zstd frames as the file has them, all checked when the file was read (they decompress to
/// `holds` bytes of whole blocks whose values are finite; emptied once expanded), and the
/// stored stage below it, whose weights it keeps wherever it stores none of its own.
pub(super) struct Pending {
    frames: Mutex<Vec<u8>>,
    holds: usize,
    below: Option<usize>,
}

impl Pending {
    /// The stored stage this one is expanded on top of.
    pub(super) fn below(&self) -> Option<usize> {
        self.below
    }

    /// The stage's table of `per_stage` f16 weights, `below`'s where it stores none: once (the
    /// frames are let go).
    pub(super) fn expand(&self, per_stage: usize, below: Option<&Table>) -> Table {
        const CHECKED: &str = "a pending stage's frames were checked when its file was read";
        let decoded = {
            let mut frames = self
                .frames
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let decoded = decompress_frames(&frames, self.holds).expect(CHECKED);
            // Decoded, the frames are needed no more.
            *frames = Vec::new();
            decoded
        };
        let blocks = blocks_of_stage(&mut Reader(&decoded), per_stage).expect(CHECKED);
        let below = below.map(|table| match table {
            Table::Frozen(cells) => &cells[..],
            Table::Learning(_) => unreachable!("a network read to play holds f16 tables only"),
        });
        let table = expand_in_parallel(&[blocks], per_stage, &F16Cells, below)
            .ok()
            .and_then(|tables| tables.into_iter().next())
            .expect(CHECKED);
        Table::Frozen(table)
    }
}

/// The compressed frames of each stored stage, when the frames `listed` (with the bytes each
/// holds) fall on the stages' bounds in the decompressed bytes (`starts`, and the end): a
/// stage can then be decompressed on its own. `None` for a file whose frames straddle two
/// stages (which power11 never writes) or that has one frame: it is expanded whole.
fn pending_stages(listed: &[(&[u8], usize)], starts: &[usize]) -> Option<Vec<Vec<u8>>> {
    if listed.is_empty() {
        return None;
    }
    let mut stages = vec![Vec::new(); starts.len() - 1];
    let mut at = 0;
    for &(frame, holds) in listed {
        // The stage whose bytes this frame's start falls in; it must end within it.
        let j = starts.partition_point(|&s| s <= at).checked_sub(1)?;
        if j + 1 >= starts.len() || at + holds > starts[j + 1] {
            return None;
        }
        stages[j].extend_from_slice(frame);
        at += holds;
    }
    // The frames cover the bytes end to end, each within one stage: so each stage's bytes are
    // its frames' (a stage of no bytes, which power11 never writes, would have none).
    starts.windows(2).all(|w| w[0] < w[1]).then_some(stages)
}

/// The index in its table of the first weight of `blocks` that is not a finite number (an f16
/// whose exponent bits are all set), as [`expand`] would find it.
fn first_not_finite(blocks: &[Block<'_>]) -> Option<usize> {
    blocks.iter().enumerate().find_map(|(b, block)| {
        let bad = block.high.iter().position(|&h| h & 0x7C == 0x7C)?;
        let at = block
            .mask
            .iter()
            .enumerate()
            .flat_map(|(byte, &m)| {
                (0..8)
                    .filter(move |bit| m & (1 << bit) != 0)
                    .map(move |bit| 8 * byte + bit)
            })
            .nth(bad)?;
        Some(b * BLOCK + at)
    })
}

/// The one zstd frame of a format-2 file (nothing after it), decompressed: at most `most` bytes.
fn decompress_one_frame(frame: &[u8], most: usize) -> Result<Vec<u8>, String> {
    let size = zstd::zstd_safe::find_frame_compressed_size(frame)
        .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())?;
    if size != frame.len() {
        return Err("bytes after its weights".to_string());
    }
    // Room for every value a frame of these stages may hold; only what is written is touched.
    let mut decoded = Vec::with_capacity(most);
    zstd::bulk::Decompressor::new()
        .and_then(|mut d| d.decompress_to_buffer(frame, &mut decoded))
        .map_err(|e| e.to_string())?;
    Ok(decoded)
}

/// The zstd frames of a format-3 file, each saying how much it holds, decompressed on every
/// core into one buffer, in order: at most `most` bytes in all.
fn decompress_frames(rest: &[u8], most: usize) -> Result<Vec<u8>, String> {
    decompress_listed(&frames_of(rest, most)?)
}

/// The zstd frames of a format-3 file, each with the bytes it says it holds, checked before
/// anything is decompressed: at most `most` bytes in all.
fn frames_of(mut rest: &[u8], most: usize) -> Result<Vec<(&[u8], usize)>, String> {
    let mut frames: Vec<(&[u8], usize)> = Vec::new();
    let mut total = 0usize;
    while !rest.is_empty() {
        if frames.len() == MAX_FRAMES {
            return Err(format!("more than {MAX_FRAMES} frames"));
        }
        let size = zstd::zstd_safe::find_frame_compressed_size(rest)
            .map_err(|code| zstd::zstd_safe::get_error_name(code).to_string())?;
        let (frame, after) = rest.split_at(size);
        let holds = match zstd::zstd_safe::get_frame_content_size(frame) {
            Ok(Some(n)) => usize::try_from(n).unwrap_or(usize::MAX),
            _ => return Err("a frame that does not say its size".to_string()),
        };
        total = total.saturating_add(holds);
        if total > most {
            return Err("more values than its stages hold".to_string());
        }
        frames.push((frame, holds));
        rest = after;
    }
    if frames.is_empty() {
        return Err("no frame".to_string());
    }
    Ok(frames)
}

/// The frames [`frames_of`] listed, decompressed on every core into one buffer, in order.
fn decompress_listed(frames: &[(&[u8], usize)]) -> Result<Vec<u8>, String> {
    let total = frames.iter().map(|&(_, holds)| holds).sum();
    let mut decoded = vec![0u8; total];
    let mut jobs: Vec<(&[u8], &mut [u8])> = Vec::with_capacity(frames.len());
    let mut room = decoded.as_mut_slice();
    for &(frame, holds) in frames {
        let (part, after) = std::mem::take(&mut room).split_at_mut(holds);
        jobs.push((frame, part));
        room = after;
    }
    let jobs: Vec<std::sync::Mutex<(&[u8], &mut [u8])>> =
        jobs.into_iter().map(std::sync::Mutex::new).collect();
    let results = in_parallel(&jobs, |job| {
        let mut job = job
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let (frame, part) = &mut *job;
        let wanted = part.len();
        match zstd::bulk::Decompressor::new().and_then(|mut d| d.decompress_to_buffer(frame, *part))
        {
            Ok(n) if n == wanted => Ok(()),
            Ok(_) => Err("a frame that holds less than it says".to_string()),
            Err(e) => Err(e.to_string()),
        }
    });
    results.into_iter().collect::<Result<(), String>>()?;
    Ok(decoded)
}

/// How many threads [`in_parallel`] runs `jobs` jobs on: up to 8, as many as the machine has.
fn workers(jobs: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 8)
        .min(jobs.max(1))
}

/// `work` done on each of `jobs` by up to 8 threads (as many as the machine has), the results
/// in the jobs' order: frames are compressed and decompressed on every core.
fn in_parallel<J: Sync, T: Send>(jobs: &[J], work: impl Fn(&J) -> T + Sync) -> Vec<T> {
    let threads = workers(jobs.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let run = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(i) else {
                return done;
            };
            done.push((i, work(job)));
        }
    };
    let mut done = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, run).ok())
            .collect();
        // This thread works too, and finishes whatever no other thread could be had for.
        let mut done = run();
        for other in others {
            done.extend(
                other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, result)| result).collect()
}

/// One block of a stored stage in the frame ([`write_stage`]): its bitmap and the low and high
/// bytes of the weights it stores.
struct Block<'a> {
    mask: &'a [u8],
    low: &'a [u8],
    high: &'a [u8],
}

/// A stored stage of `count` weights cut off the front of `reader` into its blocks, checked:
/// every bitmap, and as many low and high bytes as it marks.
fn blocks_of_stage<'a>(
    reader: &mut Reader<'a>,
    count: usize,
) -> Result<Vec<Block<'a>>, &'static str> {
    let cut = "cut short";
    let mut blocks = Vec::with_capacity(count.div_ceil(BLOCK));
    for start in (0..count).step_by(BLOCK) {
        let n = BLOCK.min(count - start);
        let mask = reader.take(n.div_ceil(8)).ok_or(cut)?;
        if !n.is_multiple_of(8) && mask[n / 8] >> (n % 8) != 0 {
            return Err("bits past the last weight");
        }
        let stored = mask.iter().map(|m| m.count_ones() as usize).sum::<usize>();
        let low = reader.take(stored).ok_or(cut)?;
        let high = reader.take(stored).ok_or(cut)?;
        blocks.push(Block { mask, low, high });
    }
    Ok(blocks)
}

/// How a table of one kind holds a weight the file stores as f16 bits.
trait Cells: Sync {
    /// One weight in memory.
    type Cell: bytemuck::Zeroable + Sync;
    /// A weight's bits in memory (zero bits are a zero, never written).
    type Bits: Copy + PartialEq;
    /// The bits of a zero.
    const ZERO: Self::Bits;
    /// The bits of the f16 `stored`.
    fn bits(&self, stored: u16) -> Self::Bits;
    /// The bits in `cell`.
    fn load(cell: &Self::Cell) -> Self::Bits;
    /// Puts `bits` in `cell`.
    fn store(cell: &Self::Cell, bits: Self::Bits);
    /// A table of `count` zeros, in the pages that suit its use.
    fn zeroed(count: usize) -> Box<[Self::Cell]>;
}

/// `f32` weights, for training: every f16's value looked up, far faster than converting
/// hundreds of millions one by one.
struct WideCells(Vec<f32>);

impl WideCells {
    fn of_f16() -> WideCells {
        WideCells(
            (0..=u16::MAX)
                .map(|b| half::f16::from_bits(b).to_f32())
                .collect(),
        )
    }
}

impl Cells for WideCells {
    type Cell = AtomicU32;
    type Bits = u32;
    const ZERO: u32 = 0;
    fn bits(&self, stored: u16) -> u32 {
        self.0[usize::from(stored)].to_bits()
    }
    fn load(cell: &AtomicU32) -> u32 {
        cell.load(Ordering::Relaxed)
    }
    fn store(cell: &AtomicU32, bits: u32) {
        cell.store(bits, Ordering::Relaxed);
    }
    fn zeroed(count: usize) -> Box<[AtomicU32]> {
        zeroed(count)
    }
}

/// f16 weights as the file has them, to play with.
struct F16Cells;

impl Cells for F16Cells {
    type Cell = AtomicU16;
    type Bits = u16;
    const ZERO: u16 = 0;
    fn bits(&self, stored: u16) -> u16 {
        stored
    }
    fn load(cell: &AtomicU16) -> u16 {
        cell.load(Ordering::Relaxed)
    }
    fn store(cell: &AtomicU16, bits: u16) {
        cell.store(bits, Ordering::Relaxed);
    }
    fn zeroed(count: usize) -> Box<[AtomicU16]> {
        zeroed_small(count)
    }
}

/// One stage's table of the kind `C` holds.
type TableOf<C> = Box<[<C as Cells>::Cell]>;

/// The tables of `stages` (`per_stage` weights each, in tables that come zeroed), each
/// thread writing a run of blocks through every stage, so that a later stage's block finds
/// the block below it already written; the first stage is on top of `base` if there is one.
/// Fails with the first weight that is not a finite number, as (stored stage, index in its
/// table).
fn expand_in_parallel<C: Cells>(
    stages: &[Vec<Block<'_>>],
    per_stage: usize,
    cells: &C,
    base: Option<&[C::Cell]>,
) -> Result<Vec<TableOf<C>>, (usize, usize)> {
    let owned: Vec<TableOf<C>> = stages.iter().map(|_| C::zeroed(per_stage)).collect();
    let tables = &owned;
    let blocks = stages.first().map_or(0, Vec::len);
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 8)
        .min(blocks.max(1));
    let run = blocks.div_ceil(threads);
    // A run goes block by block through every stage, so its first bad weight need not be
    // its lowest (a later stage's first block comes before stage 0's second): the lowest of a
    // run's, and then of all runs', is the one named, whatever the number of threads.
    let expand_run = |first: usize| {
        (first..(first + run).min(blocks))
            .flat_map(|b| (0..stages.len()).map(move |j| (b, j)))
            .filter_map(|(b, j)| {
                let below = j.checked_sub(1).map_or(base, |i| Some(&*tables[i]));
                expand(&stages[j][b], b * BLOCK, &tables[j], below, cells).map(|at| (j, at))
            })
            .min()
    };
    std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads)
            .map(|t| {
                let first = t * run;
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || expand_run(first))
                    .map_err(|_| first)
            })
            .collect();
        let mut bad: Vec<(usize, usize)> = expand_run(0).into_iter().collect();
        for other in others {
            bad.extend(match other {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
                // No thread to be had: this one does that run too.
                Err(first) => expand_run(first),
            });
        }
        match bad.into_iter().min() {
            Some(bad) => Err(bad),
            None => Ok(()),
        }
    })?;
    Ok(owned)
}

/// One block, starting at weight `start`, written into `table`: the weights its bitmap marks,
/// and elsewhere `below`'s (a later stage) or zero (the table's own). Zeros are not written.
/// Returns the index of a stored weight that is not a finite number.
fn expand<C: Cells>(
    block: &Block<'_>,
    start: usize,
    table: &[C::Cell],
    below: Option<&[C::Cell]>,
    cells: &C,
) -> Option<usize> {
    let end = (start + BLOCK).min(table.len());
    let mut next = 0;
    for (byte, &m) in block.mask.iter().enumerate() {
        let first = start + 8 * byte;
        let last = (first + 8).min(end);
        // Most bytes store nothing (most weights are zero, or as the stage below has them).
        if m == 0 && below.is_none() {
            continue;
        }
        for i in first..last {
            let bits = if m & (1 << (i - first)) == 0 {
                below.map_or(C::ZERO, |t| C::load(&t[i]))
            } else {
                let stored = u16::from_le_bytes([block.low[next], block.high[next]]);
                next += 1;
                // An f16 whose exponent bits are all set is an infinity or not a number.
                if stored & 0x7C00 == 0x7C00 {
                    return Some(i);
                }
                cells.bits(stored)
            };
            if bits != C::ZERO {
                C::store(&table[i], bits);
            }
        }
    }
    None
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
    stages: &[OnceLock<super::Sums>],
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

/// A reader or writer that keeps the CRC-32 of the bytes that pass through it (for a reader,
/// of the bytes consumed: a zstd decoder reads its frame through it and leaves what follows).
struct Hashing<T> {
    inner: T,
    hasher: crc32fast::Hasher,
}

impl<T> Hashing<T> {
    fn new(inner: T) -> Hashing<T> {
        Hashing {
            inner,
            hasher: crc32fast::Hasher::new(),
        }
    }
}

impl<T: Write> Write for Hashing<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<T: BufRead> Read for Hashing<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

impl<T: BufRead> BufRead for Hashing<T> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, n: usize) {
        // The bytes `fill_buf` returned are still buffered: asking again reads nothing.
        if let Ok(buffered) = self.inner.fill_buf() {
            self.hasher.update(&buffered[..n.min(buffered.len())]);
        }
        self.inner.consume(n);
    }
}

/// Stages a file can mark as stored fit in its stage byte.
const _: () = assert!(MAX_STAGES <= 8);

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A network of two stages with a few weights learned in each.
    fn trained() -> Network {
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        for k in 1..=9u64 {
            net.adjust(k | (k << 20), 100.0 * k as f32);
        }
        net.adjust(11 << 60, 7.5);
        net
    }

    /// The file an earlier power11 wrote (format 1): every stage dense, f16, uncompressed.
    fn format_1(net: &Network) -> Vec<u8> {
        let mut out = net.header(FORMAT_DENSE);
        for k in 0..net.stages.count() {
            let values = net.stage_values(k).unwrap_or_else(|| vec![0.0; 1 << 17]);
            for v in values {
                out.extend_from_slice(&half::f16::from_f32(v).to_le_bytes());
            }
        }
        let sum = crc32fast::hash(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    #[test]
    fn files_of_format_1_are_still_read() {
        let net = trained();
        let old = Network::from_bytes(&format_1(&net)).unwrap();
        let new = Network::from_bytes(&net.to_bytes()).unwrap();
        assert_eq!(old.stages_trained(), 2);
        for k in 0..2 {
            // (`assert!`: a failure need not print 131,072 weights.)
            assert!(old.stage_values(k) == new.stage_values(k), "stage {k}");
        }
        // Written again, it is format 3 and far smaller than the dense file.
        let new = old.to_bytes();
        assert_eq!(new[8], 3);
        assert!(new.len() * 20 < format_1(&net).len(), "{}", new.len());
    }

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
    fn a_network_read_to_play_holds_the_same_values_and_never_moves() {
        let bytes = trained().to_bytes();
        let training = Network::from_bytes(&bytes).unwrap();
        let play = Network::from_bytes_for(&bytes, WeightUse::Play).unwrap();
        assert!(play.is_frozen() && !training.is_frozen());
        let boards: Vec<u64> = (0..=15u64)
            .flat_map(|k| {
                [
                    k | (k << 20),
                    k << 60,
                    (k << 4) | (11 << 36),
                    0x1234_5678 * k,
                ]
            })
            .collect();
        for &board in &boards {
            assert_eq!(play.value(board).to_bits(), training.value(board).to_bits());
        }
        // Written back, it is the same file.
        assert_eq!(play.to_bytes(), bytes);
        // Learning leaves it as it is, and says what it is worth.
        let board = 3 | (3 << 20);
        let before = play.value(board);
        assert_eq!(
            play.learn(board, before + 1000.0, 0.5).to_bits(),
            before.to_bits()
        );
        assert_eq!(play.adjust(board, 1000.0).to_bits(), before.to_bits());
        assert_eq!(play.value(board).to_bits(), before.to_bits());
        assert_eq!(play.to_bytes(), bytes);
        // A later stage promoted by learning in a network that plays is not made either.
        assert_eq!(play.stages_trained(), training.stages_trained());
    }

    /// A network of four stages, three stored (the fourth plays with the third), each later
    /// stage differing from the one below somewhere, and the boards of each.
    fn three_stored() -> (Network, [u64; 4]) {
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[11, 13, 15]).unwrap());
        let boards = [5 | (6 << 20), 11 << 60, 13 << 40, 15 << 8];
        for (k, &board) in boards.iter().enumerate().take(3) {
            net.adjust(board | (3 << 24), 100.0 * (k + 1) as f32);
            net.adjust(board, 40.0);
        }
        assert_eq!(net.stages_trained(), 3);
        (net, boards)
    }

    #[test]
    fn a_network_read_to_play_expands_a_later_stage_when_a_board_first_reaches_it() {
        let (net, boards) = three_stored();
        let bytes = net.to_bytes();
        let training = Network::from_bytes(&bytes).unwrap();
        assert_eq!(training.stages_in_memory(), 3);
        let play = Network::from_bytes_for(&bytes, WeightUse::Play).unwrap();
        // Read, it holds stage 0 only, though all three count as trained.
        assert_eq!((play.stages_in_memory(), play.stages_trained()), (1, 3));
        assert_eq!(
            play.value(boards[0]).to_bits(),
            training.value(boards[0]).to_bits()
        );
        assert_eq!(play.stages_in_memory(), 1);
        // A board of stage 2 expands it on top of stage 1, which it needs first.
        let values = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| play.value(boards[2] | (3 << 24))))
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap())
                .collect::<Vec<_>>()
        });
        assert_eq!(play.stages_in_memory(), 3);
        assert!(
            values
                .iter()
                .all(|v| v.to_bits() == training.value(boards[2] | (3 << 24)).to_bits())
        );
        for k in 0..4 {
            assert!(
                play.stage_values(k) == training.stage_values(k),
                "stage {k}"
            );
        }
        for &board in &boards {
            for extra in [0, 3 << 24, 0x0000_0012_0034_0000] {
                let board = board | extra;
                assert_eq!(play.value(board).to_bits(), training.value(board).to_bits());
            }
        }
        // Whatever reads the whole network (writing it) expands what still waits.
        let play = Network::from_bytes_for(&bytes, WeightUse::Play).unwrap();
        assert_eq!(play.to_bytes(), bytes);
        assert_eq!(play.stages_in_memory(), 3);
    }

    #[test]
    fn stages_of_several_frames_and_a_stage_not_stored_wait_alike() {
        // Stages 0 and 2 stored, 1 not (its boards play with stage 0), each of two frames.
        let count = TupleSet::Rows.weights_per_stage();
        let mut net = Network::unfilled(TupleSet::Rows, Stages::split_at(&[11, 13, 15]).unwrap());
        let some = |i: usize| if i.is_multiple_of(3) { 1.0 } else { 0.0 };
        net.set_stage(0, (0..count).map(some));
        net.set_stage(
            2,
            (0..count).map(move |i| if i.is_multiple_of(7) { 2.5 } else { some(i) }),
        );
        let boards = [5 | (6 << 20), 11 << 60, 13 << 40, 15 << 8];
        let bytes = net.to_bytes_framed(3, 1);
        let training = Network::from_bytes(&bytes).unwrap();
        let play = Network::from_bytes_for(&bytes, WeightUse::Play).unwrap();
        assert_eq!((play.stages_in_memory(), play.stages_trained()), (1, 2));
        assert_eq!(
            play.value(boards[1]).to_bits(),
            training.value(boards[1]).to_bits()
        );
        assert_eq!(
            play.stages_in_memory(),
            1,
            "stage 1's boards play with stage 0"
        );
        for &board in &boards {
            assert_eq!(play.value(board).to_bits(), training.value(board).to_bits());
        }
        assert_eq!(play.stages_in_memory(), 2);
        for k in 0..4 {
            assert!(
                play.stage_values(k) == training.stage_values(k),
                "stage {k}"
            );
        }
    }

    #[test]
    fn a_weight_that_is_not_a_number_deep_in_a_later_stage_is_named_at_once() {
        let count = TupleSet::Rows.weights_per_stage();
        let mut net = Network::unfilled(TupleSet::Rows, Stages::split_at(&[11, 13]).unwrap());
        let some = |i: usize| if i.is_multiple_of(5) { 1.0 } else { 0.0 };
        net.set_stage(0, (0..count).map(some));
        // Stage 2 differs from stage 1 here and there, and in its second block by a NaN.
        let at = BLOCK + 4465;
        net.set_stage(1, (0..count).map(some));
        net.set_stage(
            2,
            (0..count).map(move |i| match i {
                _ if i == at => f32::NAN,
                _ if i % 1000 == 3 => 9.0,
                _ => some(i),
            }),
        );
        for frames in [1, FRAME_BLOCKS] {
            for weight_use in [WeightUse::Training, WeightUse::Play] {
                assert_eq!(
                    Network::from_bytes_for(&net.to_bytes_framed(3, frames), weight_use)
                        .unwrap_err(),
                    NetworkError::Weight(2 * count + at),
                    "{frames} frame(s) a stage, {weight_use:?}"
                );
            }
        }
    }

    #[test]
    fn a_file_whose_frames_straddle_stages_is_read_whole_to_play() {
        let (net, boards) = three_stored();
        let bytes = net.to_bytes();
        // The same stages in one frame under format 3 (power11 never writes it, but it is a
        // file whose frames and stages do not line up).
        let header = net.header(FORMAT).len();
        let (body, _) = bytes.split_last_chunk::<4>().unwrap();
        let decoded = decompress_frames(&body[header + 1..], usize::MAX).unwrap();
        let mut one = body[..=header].to_vec();
        one.extend_from_slice(&zstd::bulk::compress(&decoded, 3).unwrap());
        let sum = crc32fast::hash(&one);
        one.extend_from_slice(&sum.to_le_bytes());
        let play = Network::from_bytes_for(&one, WeightUse::Play).unwrap();
        assert_eq!(play.stages_in_memory(), 3);
        let training = Network::from_bytes(&bytes).unwrap();
        for &board in &boards {
            assert_eq!(play.value(board).to_bits(), training.value(board).to_bits());
        }
    }

    #[test]
    fn a_stage_costs_what_it_changed_and_one_never_reached_costs_nothing() {
        let one = Network::new(TupleSet::Rows, Stages::split_at(&[11, 12]).unwrap());
        one.adjust(5 | (6 << 20), 300.0);
        let base = one.to_bytes().len();
        // Promoted, unchanged: a bitmap of zeros, a few bytes compressed.
        one.adjust(11 << 60, 0.0);
        assert_eq!(one.stages_trained(), 2);
        let promoted = one.to_bytes();
        assert!(promoted.len() < base + 64, "{} vs {base}", promoted.len());
        let back = Network::from_bytes(&promoted).unwrap();
        assert_eq!(back.stages_trained(), 2);
        assert!(
            back.stage_values(1)
                == Network::from_bytes(&one.to_bytes())
                    .unwrap()
                    .stage_values(0)
        );
        // The stage never reached is not in the file and has no table once read.
        assert!(back.stage_values(2).is_none());
        assert!(
            back.value(12 << 60).to_bits() == back.value(11 << 60).to_bits(),
            "an empty stage plays with the one below"
        );
    }

    #[test]
    fn the_first_weight_that_is_not_a_number_is_named_whichever_thread_reads_it() {
        let count = TupleSet::Rows.weights_per_stage();
        let mut net = Network::unfilled(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        // Stage 0's last weight lies in its last block; stage 1's in its first.
        let nan_at =
            |at: usize, other: f32| (0..count).map(move |i| if i == at { f32::NAN } else { other });
        net.set_stage(0, nan_at(count - 1, 2.0));
        net.set_stage(1, nan_at(3, 1.0));
        for weight_use in [WeightUse::Training, WeightUse::Play] {
            assert_eq!(
                Network::from_bytes_for(&net.to_bytes(), weight_use).unwrap_err(),
                NetworkError::Weight(count - 1)
            );
        }
        net.set_stage(0, nan_at(count, 2.0));
        for weight_use in [WeightUse::Training, WeightUse::Play] {
            assert_eq!(
                Network::from_bytes_for(&net.to_bytes(), weight_use).unwrap_err(),
                NetworkError::Weight(count + 3)
            );
        }
    }

    #[test]
    fn a_damaged_frame_or_stage_byte_is_refused_whole() {
        let bytes = trained().to_bytes();
        // Re-sealed with a good checksum, so that the frame's own checks are what refuse it.
        let resealed = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut body = bytes[..bytes.len() - 4].to_vec();
            edit(&mut body);
            let sum = crc32fast::hash(&body);
            body.extend_from_slice(&sum.to_le_bytes());
            // Refused alike whether read to train or to play (whose later stages wait).
            let error = Network::from_bytes(&body).unwrap_err();
            let play = Network::from_bytes_for(&body, WeightUse::Play).unwrap_err();
            assert_eq!(error, play);
            error.to_string()
        };
        let mask_at = bytes.len() - 4 - (bytes.len() - 4 - trained().header(FORMAT).len());
        let error = resealed(&|b| b[mask_at] = 0b100);
        assert!(error.contains("stored stages"), "{error}");
        for cut in [1, 4, 10, 30] {
            let error = resealed(&|b| b.truncate(b.len() - cut));
            assert!(error.contains("damaged"), "{cut}: {error}");
        }
        let error = resealed(&|b| b.extend_from_slice(b"more"));
        assert!(error.contains("damaged"), "{error}");
        // A frame that does not say what it holds (power11 always says it) is refused.
        let error = resealed(&|b| {
            let mut compressor = zstd::bulk::Compressor::new(3).unwrap();
            compressor
                .set_parameter(zstd::stream::raw::CParameter::ContentSizeFlag(false))
                .unwrap();
            b.extend_from_slice(&compressor.compress(&[0; 16]).unwrap());
        });
        assert!(error.contains("does not say its size"), "{error}");
        // Nor may the frames hold more than the stages can.
        let error = resealed(&|b| {
            b.extend_from_slice(&zstd::bulk::compress(&vec![0; 1 << 20], 3).unwrap());
        });
        assert!(
            error.contains("more values than its stages hold"),
            "{error}"
        );
    }

    /// The file power11 0.3.0 wrote (format 2): the stored stages in one zstd frame.
    fn format_2(net: &Network) -> Vec<u8> {
        let mut out = net.header(FORMAT_ONE_FRAME);
        let stored: Vec<&Table> = (0..net.stages.count())
            .filter_map(|k| net.stage_table(k))
            .collect();
        out.push((1u8 << stored.len()) - 1);
        let mut encoder = zstd::Encoder::new(out, 3).unwrap();
        for (j, table) in stored.iter().enumerate() {
            let mut bytes = Vec::new();
            let blocks = table.len().div_ceil(BLOCK);
            write_stage(
                &mut bytes,
                table,
                j.checked_sub(1).map(|i| stored[i]),
                0..blocks,
            );
            encoder.write_all(&bytes).unwrap();
        }
        let mut out = encoder.finish().unwrap();
        let sum = crc32fast::hash(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The zstd frames after a weight file's header and stage byte.
    fn frames(bytes: &[u8], header: usize) -> usize {
        let mut rest = &bytes[header + 1..bytes.len() - 4];
        let mut count = 0;
        while !rest.is_empty() {
            rest = &rest[zstd::zstd_safe::find_frame_compressed_size(rest).unwrap()..];
            count += 1;
        }
        count
    }

    #[test]
    fn a_file_is_read_back_the_same_whatever_its_frames() {
        let net = trained();
        // What the file should hold: the weights as f16, read from the dense format 1.
        let f16 = Network::from_bytes(&format_1(&net)).unwrap();
        let header = net.header(FORMAT).len();
        // 2 stages of 2 blocks (2 x 65,536 weights).
        for (frame_blocks, expected) in [(1, 4), (2, 2), (FRAME_BLOCKS, 2)] {
            let bytes = net.to_bytes_framed(3, frame_blocks);
            assert_eq!(bytes[8], 3, "format 3");
            assert_eq!(
                frames(&bytes, header),
                expected,
                "{frame_blocks} blocks a frame"
            );
            for weight_use in [WeightUse::Training, WeightUse::Play] {
                let back = Network::from_bytes_for(&bytes, weight_use).unwrap();
                for k in 0..2 {
                    assert!(back.stage_values(k) == f16.stage_values(k), "stage {k}");
                }
                assert_eq!(back.training(), net.training());
            }
        }
        assert_eq!(
            net.to_bytes(),
            net.to_bytes_framed(DEFAULT_LEVEL, FRAME_BLOCKS)
        );
        // Streamed, a few frames at a time: the same bytes, and the checksum they end with.
        let mut streamed = Vec::new();
        let sum = net.write_framed(3, 1, &mut streamed).unwrap();
        assert_eq!(streamed, net.to_bytes_framed(3, 1));
        assert_eq!(streamed[streamed.len() - 4..], sum.to_le_bytes());
        let mut whole = Vec::new();
        let sum = net.write_weights_to(DEFAULT_LEVEL, &mut whole).unwrap();
        assert_eq!(whole, net.to_bytes());
        assert_eq!(sum, crc32fast::hash(&whole[..whole.len() - 4]));
    }

    #[test]
    fn files_of_format_2_are_still_read() {
        let net = trained();
        let f16 = Network::from_bytes(&format_1(&net)).unwrap();
        let old = format_2(&net);
        assert_eq!(frames(&old, net.header(FORMAT).len()), 1);
        for weight_use in [WeightUse::Training, WeightUse::Play] {
            let back = Network::from_bytes_for(&old, weight_use).unwrap();
            for k in 0..2 {
                assert!(back.stage_values(k) == f16.stage_values(k), "stage {k}");
            }
        }
        // One frame and nothing after it: bytes after it are refused.
        let mut body = old[..old.len() - 4].to_vec();
        body.extend_from_slice(b"more");
        let sum = crc32fast::hash(&body);
        body.extend_from_slice(&sum.to_le_bytes());
        let error = Network::from_bytes(&body).unwrap_err().to_string();
        assert!(error.contains("bytes after its weights"), "{error}");
    }
}
