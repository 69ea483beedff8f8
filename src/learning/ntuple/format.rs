//! The n-tuple network's files: the weight file (`Network::to_bytes`, `Network::from_bytes`)
//! and the coherence file beside it, and the file markers.
//!
//! Both are one header, one zstd frame and one CRC-32 of everything before it. The weight
//! file's frame holds only the stages that have weights of their own; each is a bitmap of the
//! weights it stores (nonzero ones, or in a later stage those that differ from the stage stored
//! before it: a promoted stage starts as a copy) and their values, low bytes then high bytes
//! (the bytes that vary most kept apart from those that vary least). So a file's size follows
//! what was learned, not the table's size. Format 1 (every stage, dense and
//! uncompressed) is still read.

use super::memory::zeroed;
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
pub(super) const COHERENCE_FORMAT: u32 = 2;
/// The first coherence-file format: every stage's sums, dense and uncompressed (still read).
const COHERENCE_FORMAT_DENSE: u32 = 1;

/// The magic bytes a weight file starts with.
pub const WEIGHTS_MAGIC: &[u8; 8] = b"P11NTUPL";
/// The weight-file format this program writes.
pub(super) const FORMAT: u32 = 2;
/// The first weight-file format: every stage, dense f16, uncompressed (still read).
const FORMAT_DENSE: u32 = 1;
/// The value type code for IEEE half-precision weights.
const VALUE_F16: u8 = 1;
/// The largest finite f16: weights are clamped to it when written.
const F16_MAX: f32 = 65504.0;
/// Values a block holds: the unit of the byte split and of reading and writing.
const BLOCK: usize = 1 << 16;

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
    /// counters, weights a network holds), a byte whose bit `k` says stage `k` is stored, a
    /// zstd frame of the stored stages' f16 values (see the module's notes), and a CRC-32 of
    /// everything before it. Weights beyond the f16 range are clamped to it (they never get
    /// near it in practice).
    pub fn to_bytes_at(&self, level: i32) -> Vec<u8> {
        let mut out = self.header(FORMAT);
        let stored: Vec<usize> = (0..self.stages.count())
            .filter(|&k| self.stage_table(k).is_some())
            .collect();
        out.push(stored.iter().fold(0u8, |mask, &k| mask | (1 << k)));
        let level = level.clamp(1, zstd::zstd_safe::max_c_level());
        let mut encoder =
            zstd::Encoder::new(out, level).expect("a zstd level in its range is accepted");
        let mut below: Option<&Table> = None;
        for &k in &stored {
            let table = self.stage_table(k).expect("stored stages have tables");
            write_stage(&mut encoder, table, below).expect("compressing into memory cannot fail");
            below = Some(table);
        }
        let mut out = encoder
            .finish()
            .expect("compressing into memory cannot fail");
        let sum = crc32fast::hash(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
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

    /// Reads a weight file written by [`Network::to_bytes`] (format 2) or by an earlier power11
    /// (format 1): the whole file is checked (magic, format, checksum, a known tuple set with
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
        if format != FORMAT && format != FORMAT_DENSE {
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
            read_compressed(&mut network, reader.0, weight_use)?;
        }
        network.training = Mutex::new(training);
        network.checksum = Some(u32::from_le_bytes(*sum));
        Ok(network)
    }

    /// Writes the coherence sums (nothing, if training does not track them) for the weight file
    /// whose checksum is `weights_checksum`: magic `P11COHER`, a format version, that checksum,
    /// the number of weights, a byte whose bit `k` says stage `k`'s sums are stored, a zstd
    /// frame of those stages' sums (each weight's two sums in its `u64`, rounded to 16
    /// significant bits, byte split like the weights) and a CRC-32 of
    /// everything before it. Streamed, so that the sums are never copied in memory.
    pub fn write_coherence(&self, weights_checksum: u32, out: &mut dyn Write) -> io::Result<()> {
        let Some(stages) = &self.coherence else {
            return Ok(());
        };
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
    /// format 1), into a network that tracks coherence and was read from the weight file whose
    /// checksum is `weights_checksum`. The whole input is checked (magic, format, that
    /// checksum, the size, the stages, the CRC-32, nothing after it); on any failure the sums
    /// are all zero again, never half-read.
    pub fn read_coherence(
        &mut self,
        weights_checksum: u32,
        input: &mut dyn BufRead,
    ) -> Result<(), CoherenceError> {
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

/// A weight's two coherence sums (two `f32`s in a `u64`) rounded to 16 significant bits
/// each: what they say (the size of one over the other, to a few parts in 100,000) is kept, and
/// the byte of noise each carries below it, which no compressor can shrink, is not.
pub(super) fn round_sums(pair: u64) -> u64 {
    let round = |bits: u32| {
        let rounded = bits.wrapping_add(0x80) & !0xFF;
        // Never into infinity (sums are far from it) nor across the sign.
        if rounded & 0x7F80_0000 == 0x7F80_0000 || (rounded ^ bits) & 0x8000_0000 != 0 {
            bits & !0xFF
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

/// One stored stage into the weight file's frame, in blocks of [`BLOCK`] weights: a bitmap of
/// the weights the block stores (bit `i` of byte `i / 8`: in the first stage the nonzero ones,
/// in a later one those that differ from `below`, the stage stored before it), then those
/// weights' f16 low bytes, then their high bytes. The others are zero, or `below`'s. Each block
/// is read from the network once: training threads may be moving the weights meanwhile.
fn write_stage(out: &mut impl Write, table: &Table, below: Option<&Table>) -> io::Result<()> {
    let mut bits: Vec<u16> = Vec::with_capacity(BLOCK);
    let mut own: Vec<bool> = Vec::with_capacity(BLOCK);
    let mut bytes: Vec<u8> = Vec::with_capacity(2 * BLOCK + BLOCK / 8);
    for start in (0..table.len()).step_by(BLOCK) {
        let end = (start + BLOCK).min(table.len());
        bits.clear();
        bits.extend((start..end).map(|i| stored_bits(table, i)));
        own.clear();
        own.extend(bits.iter().enumerate().map(|(i, &b)| match below {
            None => b != 0,
            Some(below) => b != stored_bits(below, start + i),
        }));
        bytes.clear();
        bytes.extend(own.chunks(8).map(|eight| {
            eight
                .iter()
                .enumerate()
                .fold(0u8, |mask, (j, &o)| mask | (u8::from(o) << j))
        }));
        for shift in [0, 8] {
            bytes.extend(
                bits.iter()
                    .zip(&own)
                    .filter(|(_, o)| **o)
                    .map(|(&b, _)| (b >> shift) as u8),
            );
        }
        out.write_all(&bytes)?;
    }
    Ok(())
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

/// Format 2's weights: the stage byte, then the zstd frame of the stored stages. The frame is
/// read whole and cut into blocks first (so a damaged one is refused before any table is
/// made), then the blocks are spread over threads: each writes its blocks of every stage into
/// tables that come zeroed, so that a zero costs nothing.
fn read_compressed(
    network: &mut Network,
    rest: &[u8],
    weight_use: WeightUse,
) -> Result<(), NetworkError> {
    let damaged = |what: String| NetworkError::Header(format!("its weights are damaged: {what}"));
    let Some((&mask, frame)) = rest.split_first() else {
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
    let size = zstd::zstd_safe::find_frame_compressed_size(frame)
        .map_err(|code| damaged(zstd::zstd_safe::get_error_name(code).to_string()))?;
    if size != frame.len() {
        return Err(damaged("bytes after its weights".to_string()));
    }
    // Room for every value a frame of these stages may hold; only what is written is touched.
    let mut decoded = Vec::with_capacity(most);
    zstd::bulk::Decompressor::new()
        .and_then(|mut d| d.decompress_to_buffer(frame, &mut decoded))
        .map_err(|e| damaged(e.to_string()))?;
    let mut reader = Reader(&decoded);
    let stages = stored
        .iter()
        .map(|_| blocks_of_stage(&mut reader, per_stage))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|what| damaged(what.to_string()))?;
    if !reader.0.is_empty() {
        return Err(damaged("more values than its stages hold".to_string()));
    }
    let tables: Vec<Table> = match weight_use {
        WeightUse::Training => expand_in_parallel(&stages, per_stage, &WideCells::of_f16())
            .map_err(|(j, at)| NetworkError::Weight(stored[j] * per_stage + at))?
            .into_iter()
            .map(Table::Learning)
            .collect(),
        WeightUse::Play => expand_in_parallel(&stages, per_stage, &F16Cells)
            .map_err(|(j, at)| NetworkError::Weight(stored[j] * per_stage + at))?
            .into_iter()
            .map(Table::Frozen)
            .collect(),
    };
    for (&stage, table) in stored.iter().zip(tables) {
        network.set_table(stage, table);
    }
    Ok(())
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
}

/// One stage's table of the kind `C` holds.
type TableOf<C> = Box<[<C as Cells>::Cell]>;

/// The tables of `stages` (`per_stage` weights each, in tables that come zeroed), each
/// thread writing a run of blocks through every stage, so that a later stage's block finds
/// the block below it already written. Fails with the first weight that is not a finite
/// number, as (stored stage, index in its table).
fn expand_in_parallel<C: Cells>(
    stages: &[Vec<Block<'_>>],
    per_stage: usize,
    cells: &C,
) -> Result<Vec<TableOf<C>>, (usize, usize)> {
    let owned: Vec<TableOf<C>> = stages.iter().map(|_| zeroed(per_stage)).collect();
    let tables = &owned;
    let blocks = stages.first().map_or(0, Vec::len);
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, 8)
        .min(blocks.max(1));
    let run = blocks.div_ceil(threads);
    let expand_run = |first: usize| {
        (first..(first + run).min(blocks))
            .flat_map(|b| (0..stages.len()).map(move |j| (b, j)))
            .find_map(|(b, j)| {
                let below = j.checked_sub(1).map(|i| &*tables[i]);
                expand(&stages[j][b], b * BLOCK, &tables[j], below, cells).map(|at| (j, at))
            })
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

/// The body of [`Network::read_coherence`]: fills the sums from `input` as it checks it.
fn read_sums(
    network: &Network,
    weights_checksum: u32,
    input: &mut dyn BufRead,
) -> Result<(), CoherenceError> {
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
    if format != COHERENCE_FORMAT && format != COHERENCE_FORMAT_DENSE {
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
    Ok(())
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
        // Written again, it is format 2 and far smaller than the dense file.
        let new = old.to_bytes();
        assert_eq!(new[8], 2);
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
            Network::from_bytes(&body).unwrap_err().to_string()
        };
        let mask_at = bytes.len() - 4 - (bytes.len() - 4 - trained().header(FORMAT).len());
        let error = resealed(&|b| b[mask_at] = 0b100);
        assert!(error.contains("stored stages"), "{error}");
        for cut in [1, 4, 10, 30] {
            let error = resealed(&|b| b.truncate(b.len() - cut));
            assert!(error.contains("damaged"), "{cut}: {error}");
        }
        let error = resealed(&|b| b.extend_from_slice(b"more"));
        assert!(error.contains("bytes after its weights"), "{error}");
    }
}
