//! An n-tuple network: the learned evaluation of 4x4 boards (`power11 train`, `--player learned`).
//!
//! A tuple is a handful of cells; its weights are a table indexed by the exponents in those cells
//! (4 bits each), and the network's value of a board is the sum, over every tuple and each of the
//! board's 8 symmetric images, of one weight. Tables of 6 cells hold 16^6 weights, so a network
//! of four 6-tuples sees most of what matters on a 4x4 board and is learned fast by TD
//! (Szubert & Jaśkowski 2014; the tuple set of Yeh et al. 2016).
//!
//! Weights are `AtomicU32`s holding `f32` bits so that training threads share one network
//! without locks: relaxed loads and stores are plain moves on x86, and two threads adjusting the
//! same weight at once lose one adjustment at worst ("Hogwild"), never tear a value. A network
//! read from a file to play with ([`WeightUse::Play`]) keeps the file's f16 bits instead: the
//! same values (f16 to f32 is exact), in half the memory, never moved.
//!
//! Stages: a network may hold separate weights for game stages, split by the largest tile
//! ([`Stages`]). A stage's weights start as a copy of the stage below when a training game first
//! reaches it (weight promotion), and a stage never trained evaluates with the one below. A
//! stage's table (and its coherence sums) is allocated only then: memory follows what the games
//! reached, not what the stage split allows.

mod blocks;
mod bytes;
mod coherence_file;
mod compact;
mod format;
mod frames;
mod learn;
mod memory;
mod pending;
mod split;
mod symmetry;
mod table;
mod weight_file;

pub use coherence_file::CoherenceError;
pub use compact::{Compacted, Compaction, F16_MANTISSA_BITS};
use format::FORMAT;
pub use format::{COHERENCE_MAGIC, DEFAULT_LEVEL, WEIGHTS_MAGIC};
use memory::{filled, prefetch};
use pending::Pending;
pub use symmetry::{max_exponent, symmetries};
use table::{MAX_FEATURES, Table};

use crate::model::named::Named;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
use std::sync::{Mutex, OnceLock};
use thiserror::Error;

/// The tuple sets a network can be built on: each is a list of tuples of cells (cell `i` is row
/// `i / 4`, column `i % 4`), sampled at the board's 8 symmetries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TupleSet {
    /// Four 6-tuples (two 2x3 rectangles, and two of a row with the two cells under its first
    /// two): 4 x 16^6 weights per stage, 256 MiB of f32. The set of the strongest published
    /// programs, and the default.
    Sixes,
    /// Two 4-tuples (an edge row and a middle row): 2 x 16^4 weights per stage. Learns in
    /// seconds and plays far worse; for tests and quick experiments.
    Rows,
}

impl TupleSet {
    /// The tuples' cells.
    pub fn tuples(self) -> &'static [&'static [u8]] {
        match self {
            TupleSet::Sixes => &[
                &[0, 1, 2, 3, 4, 5],
                &[4, 5, 6, 7, 8, 9],
                &[0, 1, 2, 4, 5, 6],
                &[4, 5, 6, 8, 9, 10],
            ],
            TupleSet::Rows => &[&[0, 1, 2, 3], &[4, 5, 6, 7]],
        }
    }

    /// Weights per stage.
    pub fn weights_per_stage(self) -> usize {
        self.tuples().iter().map(|t| 1usize << (4 * t.len())).sum()
    }
}

impl Named for TupleSet {
    const ALL: &'static [TupleSet] = &[TupleSet::Sixes, TupleSet::Rows];

    fn name(self) -> &'static str {
        match self {
            TupleSet::Sixes => "4x6",
            TupleSet::Rows => "2x4",
        }
    }

    fn about(self) -> &'static str {
        match self {
            TupleSet::Sixes => "Four 6-tuples, 256 MiB of weights a stage while training (strong)",
            TupleSet::Rows => "Two 4-tuples, 0.5 MiB a stage (weak; learns in seconds)",
        }
    }
}

/// Where a network's stages split: stage `k` holds the boards whose largest exponent is at least
/// the `k`-th threshold (stage 0 has none). Strictly increasing exponents in `1..=15`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Stages {
    thresholds: Vec<u8>,
}

/// The most stages a network has.
pub const MAX_STAGES: usize = 4;

/// The stages a file marks as stored fit in its stage byte (weight and coherence files alike).
const _: () = assert!(MAX_STAGES <= 8);

impl Stages {
    /// One stage: the same weights for the whole game.
    pub fn single() -> Stages {
        Stages::default()
    }

    /// Stages split at these largest-tile exponents (14 = 16384): strictly increasing, within
    /// `1..=15`, at most [`MAX_STAGES`]` - 1` of them. (A split at 1 leaves stage 0 unused, as
    /// every board holds a 2 or more: `train` does not make one, but a file that has one is
    /// still a network that plays.)
    pub fn split_at(thresholds: &[u8]) -> Result<Stages, NetworkError> {
        let increasing = thresholds.windows(2).all(|w| w[0] < w[1]);
        let in_range = thresholds.iter().all(|&e| (1..=15).contains(&e));
        if !increasing || !in_range || thresholds.len() >= MAX_STAGES {
            return Err(NetworkError::BadStages(thresholds.to_vec()));
        }
        Ok(Stages {
            thresholds: thresholds.to_vec(),
        })
    }

    /// The split exponents.
    pub fn thresholds(&self) -> &[u8] {
        &self.thresholds
    }

    /// How many stages.
    pub fn count(&self) -> usize {
        self.thresholds.len() + 1
    }

    /// Whether these stages keep every split of `from` (and may add others): what
    /// [`Network::split`] takes.
    pub fn keeps_the_splits_of(&self, from: &Stages) -> bool {
        from.thresholds.iter().all(|e| self.thresholds.contains(e))
    }

    /// The stage of a board whose largest exponent is `max_exponent`.
    pub fn of(&self, max_exponent: u8) -> usize {
        self.thresholds
            .iter()
            .take_while(|&&e| e <= max_exponent)
            .count()
    }
}

impl std::fmt::Display for Stages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.thresholds.is_empty() {
            return f.write_str("one stage");
        }
        let tiles: Vec<String> = self
            .thresholds
            .iter()
            .map(|&e| (1u64 << e).to_string())
            .collect();
        write!(f, "stages split at {}", tiles.join(", "))
    }
}

/// How much training a network has had (kept in its file, added to by each run).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Training {
    /// Self-played games.
    pub games: u64,
    /// Moves learned from: the games', and their rewinds'.
    pub moves: u64,
    /// Seconds spent training (wall clock, all runs).
    pub seconds: f64,
}

/// Why a network could not be built or read.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum NetworkError {
    /// Stage thresholds that do not split a game.
    #[error(
        "stage splits must be increasing tile exponents from 1 to 15, at most 3 of them: {0:?}"
    )]
    BadStages(Vec<u8>),
    /// The bytes are not a weight file at all.
    #[error("not a power11 weight file")]
    NotWeights,
    /// A weight file of a format this program does not read.
    #[error("weight file format {0}, this program reads format {FORMAT}")]
    Version(u32),
    /// The checksum does not match: the file was damaged or cut.
    #[error("the weight file is damaged or cut short (its checksum does not match)")]
    Checksum,
    /// A weight that is not a finite number (a file written by a run that diverged).
    #[error("the weight file's weight {0} is not a number")]
    Weight(usize),
    /// The header passes its checksum but says something this program cannot use.
    #[error("the weight file's header is not usable: {0}")]
    Header(String),
    /// A split of a network's stages that would move or remove one of its splits
    /// ([`Network::split`]): what the stage on one side of it learned would be lost.
    #[error(
        "a network with {from} cannot become one with {to}: splits may be added, never moved or removed (that would lose what a stage learned)"
    )]
    NotASplit {
        /// The network's stages.
        from: Stages,
        /// The stages asked for.
        to: Stages,
    },
}

/// What a network read from a file is for, which decides how it holds its weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightUse {
    /// Training goes on: `f32` weights that training threads move.
    Training,
    /// Playing only: the file's f16 weights as they are, in half the memory (the values are the
    /// same: every f16 is exactly an `f32`). [`Network::learn`] leaves such a network as it is.
    /// A file of format 1 is read into `f32` whatever the use.
    Play,
}

/// One stage's coherence sums, one word a weight of its [`Table`].
type Sums = Box<[AtomicU64]>;

/// The learned evaluation: weights for each stage and tuple.
pub struct Network {
    set: TupleSet,
    stages: Stages,
    /// Each stage's weights, once it has weights of its own: stage 0 always, a later stage from
    /// its promotion on (set once, whole: a thread that finds a table finds all of it).
    tables: Box<[OnceLock<Table>]>,
    /// Whether a thread has taken on a stage's promotion (only one copies it).
    claimed: Box<[AtomicBool]>,
    /// Behind a lock so that a checkpoint can record a run's training while its threads learn.
    training: Mutex<Training>,
    /// The checksum of the file it was read from, if it was read from one: with the training
    /// counters, what tells two networks apart in a bench report.
    checksum: Option<u32>,
    /// Temporal coherence, when training uses it ([`Network::track_coherence`]): for each
    /// weight, the sum of the errors its updates were asked to correct (`f32` bits, low half)
    /// and the sum of their sizes (high half), in one word so that a thread never reads one
    /// sum of an update without the other. One table a stage, set before the stage's weights.
    coherence: Option<Box<[OnceLock<Sums>]>>,
    /// The stored stages of a network read to play, each expanded into its table when a board
    /// of it is first valued ([`Network::table`]): set when the file is read, never after, and
    /// kept (its frames let go) once expanded, so that a stage with weights of its own is one
    /// with a table or one pending.
    pending: Box<[Option<Pending>]>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("set", &self.set)
            .field("stages", &self.stages)
            .field("training", &self.training())
            .finish_non_exhaustive()
    }
}

impl Network {
    /// A network of zeros (it values every board 0, so its first games are random-ish).
    pub fn new(set: TupleSet, stages: Stages) -> Network {
        let mut network = Network::unfilled(set, stages);
        network.set_stage(0, std::iter::empty());
        network
    }

    /// A network with no table yet, not even stage 0's: whoever builds it (a file's reader,
    /// [`Network::compacted`]) sets stage 0 before anything reads it.
    fn unfilled(set: TupleSet, stages: Stages) -> Network {
        let tables: Box<[OnceLock<Table>]> = (0..stages.count()).map(|_| OnceLock::new()).collect();
        let claimed = (0..stages.count())
            .map(|_| AtomicBool::new(false))
            .collect();
        let pending = (0..stages.count()).map(|_| None).collect();
        Network {
            set,
            stages,
            tables,
            claimed,
            training: Mutex::new(Training::default()),
            checksum: None,
            coherence: None,
            pending,
        }
    }

    /// The tuple set.
    pub fn tuple_set(&self) -> TupleSet {
        self.set
    }

    /// The stage split.
    pub fn stages(&self) -> &Stages {
        &self.stages
    }

    /// The training it has had.
    pub fn training(&self) -> Training {
        *self
            .training
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records more training (a run adds what it did, at each checkpoint).
    pub fn add_training(&self, more: Training) {
        let mut training = self
            .training
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        training.games = training.games.saturating_add(more.games);
        training.moves = training.moves.saturating_add(more.moves);
        training.seconds += more.seconds;
    }

    /// The network in words: its tuple set, its stages and how many games trained it.
    pub fn description(&self) -> String {
        let games = self.training().games;
        format!(
            "tuples {}, {}, {games} game{} trained",
            self.set.name(),
            self.stages,
            if games == 1 { "" } else { "s" }
        )
    }

    /// The checksum of the weight file it was read from (the file's last four bytes), if it
    /// was read from one.
    pub fn file_checksum(&self) -> Option<u32> {
        self.checksum
    }

    /// Which network this is, for reports: [`Network::description`] and the checksum of the
    /// file it was read from.
    pub fn fingerprint(&self) -> String {
        let mut text = self.description();
        if let Some(sum) = self.checksum {
            let _ = write!(text, ", file crc32 {sum:08x}");
        }
        text
    }

    /// Whether the boards whose largest exponent is `max_exponent` are valued by weights of
    /// their own stage (it was trained, or promoted), not borrowed from a stage below.
    pub fn stage_learned(&self, max_exponent: u8) -> bool {
        self.has_weights(self.stages.of(max_exponent))
    }

    /// How many stages have weights of their own (trained, or promoted from below).
    pub fn stages_trained(&self) -> usize {
        (0..self.stages.count())
            .filter(|&k| self.has_weights(k))
            .count()
    }

    /// How many stages' tables are in memory: those with weights of their own but for the
    /// stages of a network read to play that no board has reached yet (each is expanded from
    /// the file's bytes the first time a board of it is valued).
    pub fn stages_in_memory(&self) -> usize {
        self.tables.iter().filter(|t| t.get().is_some()).count()
    }

    /// Whether `stage` has weights of its own: a table, or a stored stage waiting to be
    /// expanded.
    #[inline]
    fn has_weights(&self, stage: usize) -> bool {
        self.tables[stage].get().is_some() || self.pending[stage].is_some()
    }

    /// The weights of `stage`, which must have weights of its own (stage 0 always has), expanded
    /// now if they were waiting.
    #[inline]
    fn table(&self, stage: usize) -> &Table {
        match self.tables[stage].get() {
            Some(table) => table,
            None => self.expanded(stage),
        }
    }

    /// A pending stage's table, expanded by the first thread that asks (the others wait for
    /// it), on top of the stored stage below it.
    #[cold]
    #[inline(never)]
    fn expanded(&self, stage: usize) -> &Table {
        self.tables[stage].get_or_init(|| {
            let pending = self.pending[stage].as_ref().expect(
                "stage 0 has a table from the start, and only stages with weights are asked for",
            );
            let below = pending.below().map(|k| self.table(k));
            pending.expand(self.set.weights_per_stage(), below)
        })
    }

    /// Expands every pending stage (before the tables are taken apart).
    fn expand_all(&self) {
        for stage in 0..self.stages.count() {
            if self.pending[stage].is_some() {
                self.table(stage);
            }
        }
    }

    /// The weights of `stage` if it has weights of its own (expanded, if they were waiting).
    fn stage_table(&self, stage: usize) -> Option<&Table> {
        (stage < self.stages.count() && self.has_weights(stage)).then(|| self.table(stage))
    }

    /// The stage whose weights value `board`: its own if it has any, else the nearest below.
    #[inline]
    fn stage_for(&self, board: u64) -> usize {
        if self.stages.thresholds.is_empty() {
            return 0;
        }
        let mut stage = self.stages.of(max_exponent(board));
        while stage > 0 && !self.has_weights(stage) {
            stage -= 1;
        }
        stage
    }

    /// The weight indices `board` reads in its stage's table, one per tuple and symmetry, in
    /// the first [`Network::feature_count`] entries. Each tuple set's indices are read off the
    /// bits in closed form (its cells are runs of neighbouring nibbles); a test checks them
    /// against the cells [`TupleSet::tuples`] lists, which is what the file records.
    #[inline]
    fn features(&self, board: u64) -> [u32; MAX_FEATURES] {
        let mut out = [0u32; MAX_FEATURES];
        let images = symmetries(board);
        match self.set {
            TupleSet::Sixes => {
                const T: u32 = 1 << 24;
                for (k, x) in images.into_iter().enumerate() {
                    let f = &mut out[4 * k..4 * k + 4];
                    f[0] = (x & 0xFF_FFFF) as u32;
                    f[1] = T + ((x >> 16) & 0xFF_FFFF) as u32;
                    f[2] = 2 * T + ((x & 0xFFF) | ((x >> 4) & 0xFF_F000)) as u32;
                    f[3] = 3 * T + (((x >> 16) & 0xFFF) | ((x >> 20) & 0xFF_F000)) as u32;
                }
            }
            TupleSet::Rows => {
                const T: u32 = 1 << 16;
                for (k, x) in images.into_iter().enumerate() {
                    out[2 * k] = (x & 0xFFFF) as u32;
                    out[2 * k + 1] = T + ((x >> 16) & 0xFFFF) as u32;
                }
            }
        }
        out
    }

    /// How many features a board has: 8 images of each tuple.
    #[inline]
    fn feature_count(&self) -> usize {
        8 * self.set.tuples().len()
    }

    /// The network's value of `board` (a 4x4 board in [`crate::Board4`] bits): the sum of its
    /// features' weights.
    #[inline]
    pub fn value(&self, board: u64) -> f32 {
        let table = self.table(self.stage_for(board));
        let features = self.features(board);
        table.sum(&features[..self.feature_count()])
    }

    /// Whether its weights are frozen ([`WeightUse::Play`]): learning leaves them as they are.
    pub fn is_frozen(&self) -> bool {
        self.table(0).learning().is_none()
    }

    /// Starts fetching the weights `board` reads into the cache, so that a later
    /// [`Network::value`] or [`Network::learn`] of it finds them there: weights are read at
    /// random all over the tables, and a read that misses every cache costs far more than
    /// the arithmetic around it.
    #[inline]
    pub fn prefetch(&self, board: u64) {
        self.prefetch_features(board, false);
    }

    /// Prefetches the weights `board` reads, and their coherence sums if `sums` and training
    /// tracks them.
    #[inline]
    fn prefetch_features(&self, board: u64, sums: bool) {
        let stage = self.stage_for(board);
        let table = self.table(stage);
        let features = self.features(board);
        let coherence = self
            .coherence
            .as_ref()
            .filter(|_| sums)
            .and_then(|stages| stages[stage].get());
        for &i in &features[..self.feature_count()] {
            table.prefetch(i as usize);
            if let Some(coherence) = coherence {
                prefetch(coherence[i as usize].as_ptr().cast());
            }
        }
    }

    /// Each stage's weights as numbers, `None` for a stage with none of its own (for tools
    /// and tests that compare or reshape networks; playing never needs a copy).
    pub fn stage_values(&self, stage: usize) -> Option<Vec<f32>> {
        let table = self.stage_table(stage)?;
        Some((0..table.len()).map(|i| table.weight(i)).collect())
    }

    /// Gives `stage` the weights `values` as its own (a file's); stage 0 is overwritten. Only
    /// while the network is being built, before any thread plays or learns with it.
    pub(super) fn set_stage(&mut self, stage: usize, values: impl Iterator<Item = f32>) {
        let count = self.set.weights_per_stage();
        let table = filled(count, values.map(|v| AtomicU32::new(v.to_bits())));
        self.set_table(stage, Table::Learning(table));
    }

    /// Gives `stage` weights of its own that wait in `pending` until a board of it is valued.
    /// Only while the network is being built, as [`Network::set_stage`].
    fn set_pending(&mut self, stage: usize, pending: Pending) {
        self.tables[stage] = OnceLock::new();
        self.claimed[stage] = AtomicBool::new(true);
        self.pending[stage] = Some(pending);
    }

    /// Gives `stage` the weights `table` as its own (see [`Network::set_stage`]).
    fn set_table(&mut self, stage: usize, table: Table) {
        self.tables[stage] = OnceLock::from(table);
        self.pending[stage] = None;
        self.claimed[stage] = AtomicBool::new(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::Board;
    use crate::model::packed::Board4;

    /// A board's bits from its tiles' values (for the tests of every file of the network).
    pub(super) fn bits(rows: &[[u64; 4]]) -> u64 {
        let rows: Vec<Vec<u64>> = rows.iter().map(|r| r.to_vec()).collect();
        Board4::from_board(&Board::from_values(&rows).unwrap())
            .unwrap()
            .bits()
    }

    /// A network of two stages with a few weights learned in each (for the tests of its files).
    pub(super) fn trained() -> Network {
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        for k in 1..=9u64 {
            net.adjust(k | (k << 20), 100.0 * k as f32);
        }
        net.adjust(11 << 60, 7.5);
        net
    }

    #[test]
    fn the_closed_form_features_read_the_listed_cells() {
        let mut rng = crate::model::random::seeded(2);
        for &set in TupleSet::ALL {
            assert!(8 * set.tuples().len() <= MAX_FEATURES);
            let net = Network::new(set, Stages::single());
            for _ in 0..200 {
                let board = (0..16).fold(0u64, |b, i| {
                    b | ((crate::model::random::below(&mut rng, 16) as u64) << (4 * i))
                });
                let fast = net.features(board);
                let mut k = 0;
                for image in symmetries(board) {
                    let mut offset = 0;
                    for (t, tuple) in set.tuples().iter().enumerate() {
                        let mut index = offset;
                        offset += 1 << (4 * tuple.len());
                        for (j, &cell) in tuple.iter().enumerate() {
                            index |= (((image >> (4 * cell)) & 0xF) as usize) << (4 * j);
                        }
                        assert_eq!(fast[k] as usize, index, "{set:?} tuple {t}");
                        k += 1;
                    }
                }
                assert_eq!(k, net.feature_count());
            }
        }
    }

    #[test]
    fn symmetric_boards_have_the_same_value() {
        let net = Network::new(TupleSet::Rows, Stages::single());
        let b = bits(&[[2, 4, 8, 0], [0, 16, 0, 0], [0, 0, 2, 0], [0, 0, 0, 32]]);
        net.adjust(b, 10.0);
        let v = net.value(b);
        for image in symmetries(b) {
            assert!((net.value(image) - v).abs() < 1e-4);
        }
    }

    #[test]
    fn stages_split_by_the_largest_tile_and_promote_from_below() {
        let stages = Stages::split_at(&[14, 15]).unwrap();
        assert_eq!((stages.of(13), stages.of(14), stages.of(15)), (0, 1, 2));
        assert_eq!(stages.to_string(), "stages split at 16384, 32768");
        assert_eq!(Stages::single().to_string(), "one stage");
        assert!(Stages::split_at(&[15, 14]).is_err());
        assert!(Stages::split_at(&[0]).is_err());
        assert!(Stages::split_at(&[12, 13, 14, 15]).is_err());

        let net = Network::new(TupleSet::Rows, stages);
        let early = bits(&[[2, 4, 0, 0], [0; 4], [0; 4], [0; 4]]);
        let mut late = early;
        late |= 14 << 60; // a 16384 in the last cell
        net.adjust(early, 8.0);
        assert_eq!(net.stages_trained(), 1);
        // Stage 1 has no weights: it reads stage 0's.
        let before = net.value(late);
        let early_value = net.value(early);
        // Adjusting a stage-1 board copies stage 0 up first, then moves only stage 1.
        net.adjust(late, 4.0);
        assert_eq!(net.stages_trained(), 2);
        assert!(net.value(late) > before);
        assert!((net.value(early) - early_value).abs() < 1e-6);
    }
}
