//! The weight file: a network written as bytes ([`Network::to_bytes`], streamed by
//! [`Network::write_weights_to`]) and read back ([`Network::from_bytes`]): its header, its
//! stored stages' blocks in zstd frames (compressed and decompressed on every core), and the
//! CRC-32 that ends it. The format is described in `format`; formats 1 and 2 are still read.

use super::blocks::{F16Cells, WideCells, blocks_of_stage, expand_in_parallel, first_not_finite};
use super::bytes::{Hashing, Reader};
use super::format::{
    BLOCK, DEFAULT_LEVEL, F16_MAX, FORMAT, FORMAT_DENSE, FORMAT_ONE_FRAME, FRAME_BLOCKS, VALUE_F16,
    WEIGHTS_MAGIC,
};
use super::frames::{decompress_listed, decompress_one_frame, frames_of, in_parallel, workers};
use super::pending::{Pending, pending_stages};
use super::table::Table;
use super::{Network, NetworkError, Stages, Training, TupleSet, WeightUse};
use crate::model::named::Named;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::Ordering;

impl Network {
    /// The weight file, at the checkpoints' zstd level ([`DEFAULT_LEVEL`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_at(DEFAULT_LEVEL)
    }

    /// The weight file, compressed at zstd `level` (1 to 22; higher is smaller and slower):
    /// magic, format, the header (tuple set and its cells, stages, value type, training
    /// counters, weights a network holds), a byte whose bit `k` says stage `k` is stored, the
    /// stored stages' f16 values in zstd frames of at most 128 blocks of one stage each (see
    /// the notes of the `format` module; the frames are compressed on every core), and a CRC-32
    /// of everything before it. Weights beyond the f16 range are clamped to it (they never get
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
            network.set_pending(stored[j], Pending::new(frames, holds, below));
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

#[cfg(test)]
mod tests {
    use super::super::frames::decompress_frames;
    use super::super::tests::{bits, trained};
    use super::*;

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

    #[test]
    fn weights_round_trip_through_bytes_as_f16() {
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        let a = bits(&[[2, 4, 8, 16], [0; 4], [0; 4], [0; 4]]);
        let b = bits(&[[2048, 4, 8, 16], [0; 4], [0; 4], [0; 4]]);
        net.adjust(a, 1234.5);
        net.adjust(b, -77.25);
        net.add_training(Training {
            games: 3,
            moves: 400,
            seconds: 1.5,
        });
        let bytes = net.to_bytes();
        let back = Network::from_bytes(&bytes).unwrap();
        assert_eq!(back.training(), net.training());
        assert_eq!(back.stages(), net.stages());
        assert_eq!(back.stages_trained(), 2);
        for board in [a, b] {
            let (x, y) = (net.value(board), back.value(board));
            assert!((x - y).abs() <= x.abs() * 1e-3, "{x} vs {y}");
        }
        assert_eq!(back.to_bytes(), bytes);
    }

    #[test]
    fn damaged_and_foreign_files_are_refused() {
        let net = Network::new(TupleSet::Rows, Stages::single());
        let bytes = net.to_bytes();
        assert_eq!(
            Network::from_bytes(b"hello").unwrap_err(),
            NetworkError::NotWeights
        );
        assert_eq!(
            Network::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err(),
            NetworkError::Checksum
        );
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 1;
        assert_eq!(
            Network::from_bytes(&flipped).unwrap_err(),
            NetworkError::Checksum
        );
        let mut newer = bytes.clone();
        newer[8] = 9;
        assert_eq!(
            Network::from_bytes(&newer).unwrap_err(),
            NetworkError::Version(9)
        );
        assert_eq!(
            Network::from_bytes(&bytes[..10]).unwrap_err(),
            NetworkError::Checksum
        );
        // A file whose header is consistent with its checksum but names other cells.
        let mut other = bytes[..bytes.len() - 4].to_vec();
        let cells_at = WEIGHTS_MAGIC.len() + 4 + 1 + 3 + 1 + 1;
        other[cells_at] = 15;
        let sum = crc32fast::hash(&other);
        other.extend_from_slice(&sum.to_le_bytes());
        assert!(matches!(
            Network::from_bytes(&other).unwrap_err(),
            NetworkError::Header(m) if m.contains("not those of the tuple set '2x4'")
        ));
        // A weight that is not a number (a run that diverged) is written as it is, and refused.
        let diverged = Network::new(TupleSet::Rows, Stages::single());
        diverged.adjust(0, f32::NAN);
        assert!(matches!(
            Network::from_bytes(&diverged.to_bytes()).unwrap_err(),
            NetworkError::Weight(_)
        ));
    }
}
