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

mod compact;
mod format;
mod memory;
mod symmetry;

pub use compact::{Compacted, Compaction, F16_MANTISSA_BITS};
use format::{COHERENCE_FORMAT, FORMAT};
pub use format::{COHERENCE_MAGIC, DEFAULT_LEVEL, WEIGHTS_MAGIC};
use memory::{filled, prefetch, zeroed};
pub use symmetry::{max_exponent, symmetries};

use crate::model::named::Named;
use std::fmt::Write as _;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU32, AtomicU64, Ordering};
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

/// The most features a board has: 8 images of at most 4 tuples.
const MAX_FEATURES: usize = 32;

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

/// One stage's weights: a table per tuple, one after the other, each indexed by its cells'
/// exponents (first cell in the low bits).
pub(super) enum Table {
    /// `f32` bits, moved by training.
    Learning(Box<[AtomicU32]>),
    /// f16 bits, as a file stores them ([`WeightUse::Play`]).
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
    fn learning(&self) -> Option<&[AtomicU32]> {
        match self {
            Table::Learning(t) => Some(t),
            Table::Frozen(_) => None,
        }
    }

    /// The sum of the weights `features` index.
    #[inline]
    fn sum(&self, features: &[u32]) -> f32 {
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
    fn duplicate(&self) -> Table {
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
    fn prefetch(&self, i: usize) {
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
    pending: Box<[Option<format::Pending>]>,
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

    /// Makes every later [`Network::learn`] scale each weight's step by its **temporal
    /// coherence** (Beal & Smith 1999; Jaśkowski 2018): the size of the sum of the errors the
    /// weight was asked to correct over the sum of their sizes. A weight whose errors keep
    /// pointing one way (it has not learned yet) takes whole steps; one whose errors cancel out
    /// (it is as right as it gets, and what is left is the game's chance) takes ever smaller
    /// ones, so each weight anneals at its own pace, without a schedule. The sums are kept in
    /// memory only (twice the weights' size) and start at zero: a resumed run starts them anew,
    /// and so does a stage when it is promoted (its weights are a copy of the stage below, but
    /// its boards are new to them).
    pub fn track_coherence(&mut self) {
        if self.coherence.is_none() {
            let per_stage = self.set.weights_per_stage();
            let sums = self
                .tables
                .iter()
                .enumerate()
                .map(|(stage, _)| {
                    let cell = OnceLock::new();
                    if self.has_weights(stage) {
                        let _ = cell.set(zeroed(per_stage));
                    }
                    cell
                })
                .collect();
            self.coherence = Some(sums);
        }
    }

    /// Whether updates are scaled by temporal coherence ([`Network::track_coherence`]).
    pub fn tracks_coherence(&self) -> bool {
        self.coherence.is_some()
    }

    /// A new network that values every board `value` before it has learned anything
    /// (optimistic initialization, Guei, Chen & Wu 2021): a board's value only falls toward what
    /// it is worth once training games visit it, so greedy training games are drawn to boards
    /// they have seen least, which plain TD leaves to the chance of the new tiles. Only the first
    /// stage starts so; the later ones are promoted copies of it, as in [`Network::new`].
    pub fn with_initial_value(set: TupleSet, stages: Stages, value: f32) -> Network {
        let network = Network::new(set, stages);
        let share = (value / network.feature_count() as f32).to_bits();
        for weight in network.table(0).learning().into_iter().flatten() {
            weight.store(share, Ordering::Relaxed);
        }
        network
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

    /// This network with its stages split further at `stages`, whose splits must include all
    /// of its own: each new stage starts with a copy of the weights of the stage that held its
    /// boards (none where that stage had none), so every board is valued as before, to the
    /// bit. Coherence sums, if tracked, go with the weights: the lowest new stage of each old
    /// one keeps that stage's table and sums, the stages above it get copies of both (the same
    /// weights, learned on the same boards: starting their sums at zero would make their next
    /// steps whole ones). The split network was read from no file (no checksum).
    pub fn split(self, stages: Stages) -> Result<Network, NetworkError> {
        if !stages.keeps_the_splits_of(&self.stages) {
            return Err(NetworkError::NotASplit {
                from: self.stages,
                to: stages,
            });
        }
        self.expand_all();
        let mut out = Network::unfilled(self.set, stages);
        *out.training
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = self.training();
        let mut old: Vec<Option<Table>> = self
            .tables
            .into_vec()
            .into_iter()
            .map(OnceLock::into_inner)
            .collect();
        let mut old_sums: Option<Vec<Option<Sums>>> = self.coherence.map(|sums| {
            sums.into_vec()
                .into_iter()
                .map(OnceLock::into_inner)
                .collect()
        });
        let mut sums: Option<Vec<OnceLock<Sums>>> = old_sums
            .as_ref()
            .map(|_| (0..out.stages.count()).map(|_| OnceLock::new()).collect());
        // The old stage that held new stage k's boards: the one of its smallest exponent.
        let thresholds = out.stages.thresholds.clone();
        let old_of = |k: usize| match k {
            0 => 0,
            _ => self.stages.of(thresholds[k - 1]),
        };
        // New stages from the top down, so that the lowest new stage of each old one takes
        // its table and the ones above it take copies.
        for k in (0..out.stages.count()).rev() {
            let from = old_of(k);
            let lowest = k == 0 || old_of(k - 1) != from;
            let table = if lowest {
                old[from].take()
            } else {
                old[from].as_ref().map(Table::duplicate)
            };
            if let Some(table) = table {
                if let (Some(sums), Some(old_sums)) = (sums.as_mut(), old_sums.as_mut()) {
                    // A copy's weights are the same weights, learned on the same boards: so
                    // are its sums.
                    let stage_sums = if lowest {
                        old_sums[from].take()
                    } else {
                        old_sums[from].as_deref().map(duplicate_sums)
                    };
                    let stage_sums = stage_sums.unwrap_or_else(|| zeroed(table.len()));
                    let _ = sums[k].set(stage_sums);
                }
                out.set_table(k, table);
            }
        }
        out.coherence = sums.map(Vec::into_boxed_slice);
        Ok(out)
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
    pub(super) fn stage_table(&self, stage: usize) -> Option<&Table> {
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

    /// Moves `board`'s value toward `target` by `rate` times the error (each weight it reads
    /// moves by `rate * error / 8`: the step is shared among the 8 symmetric images, as in
    /// Szubert & Jaśkowski's and Yeh et al.'s learning rates; with temporal coherence, each
    /// weight's step is scaled by its coherence first) and returns the new value. The first
    /// adjustment in a stage with no weights of its own copies the stage below into it. A
    /// frozen network ([`WeightUse::Play`]) is left as it is, and the value returned.
    pub fn learn(&self, board: u64, target: f32, rate: f32) -> f32 {
        if self.is_frozen() {
            return self.value(board);
        }
        let stage = self.adjusted_stage(board);
        let Some(table) = self.table(stage).learning() else {
            return self.value(board);
        };
        let features = self.features(board);
        let features = &features[..self.feature_count()];
        let error = target - sum(table, features);
        let sums = self
            .coherence
            .as_ref()
            .and_then(|stages| stages[stage].get());
        match sums {
            None => add(table, features, rate * error / 8.0),
            Some(sums) => add_coherent(table, sums, features, rate / 8.0, error),
        }
    }

    /// [`Network::prefetch`] for a [`Network::learn`] of `board`: its weights, and their
    /// coherence sums when training tracks them.
    #[inline]
    pub fn prefetch_for_learning(&self, board: u64) {
        self.prefetch_features(board, true);
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

    /// Moves every weight `board` reads by `step / 8` and returns the board's new value (see
    /// [`Network::learn`]).
    pub fn adjust(&self, board: u64, step: f32) -> f32 {
        if self.is_frozen() {
            return self.value(board);
        }
        let Some(table) = self.table(self.adjusted_stage(board)).learning() else {
            return self.value(board);
        };
        let features = self.features(board);
        add(table, &features[..self.feature_count()], step / 8.0)
    }

    /// The stage whose weights an adjustment of `board` moves: its own, promoted if needed.
    #[inline]
    fn adjusted_stage(&self, board: u64) -> usize {
        let stage = self.stage_for(board);
        if self.stages.thresholds.is_empty() {
            return stage;
        }
        let wanted = self.stages.of(max_exponent(board));
        if stage < wanted {
            self.promote(wanted);
            return self.stage_for(board);
        }
        stage
    }

    /// The first weight that is not a finite number, if any (its index counting the stages
    /// before it as whole tables): a learning rate too high makes values overshoot and grow
    /// without bound, and such weights must not replace a good file.
    pub fn first_non_finite(&self) -> Option<usize> {
        let per_stage = self.set.weights_per_stage();
        (0..self.stages.count()).find_map(|stage| {
            let table = self.stage_table(stage)?;
            let at = (0..table.len()).position(|i| !table.weight(i).is_finite())?;
            Some(stage * per_stage + at)
        })
    }

    /// Each stage's weights as numbers, `None` for a stage with none of its own (for tools
    /// and tests that compare or reshape networks; playing never needs a copy).
    pub fn stage_values(&self, stage: usize) -> Option<Vec<f32>> {
        let table = self.stage_table(stage)?;
        Some((0..table.len()).map(|i| table.weight(i)).collect())
    }

    /// Gives `stage` weights of its own, a copy of the nearest stage below that has them (and
    /// coherence sums of zero, if training tracks them). One thread copies; the others keep
    /// using the stage below until the copy is set, whole.
    fn promote(&self, stage: usize) {
        if self.claimed[stage].swap(true, Ordering::AcqRel) {
            return;
        }
        // A frozen network never learns, so it never gets here.
        let from = self.table(self.nearest_below(stage));
        if from.learning().is_none() {
            return;
        }
        let table = from.duplicate();
        if let Some(stages) = &self.coherence {
            let _ = stages[stage].set(zeroed(table.len()));
        }
        let _ = self.tables[stage].set(table);
    }

    /// The nearest stage below `stage` that has weights of its own (stage 0 at the bottom).
    fn nearest_below(&self, stage: usize) -> usize {
        let mut from = stage.saturating_sub(1);
        while from > 0 && !self.has_weights(from) {
            from -= 1;
        }
        from
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
    fn set_pending(&mut self, stage: usize, pending: format::Pending) {
        self.tables[stage] = OnceLock::new();
        self.claimed[stage] = AtomicBool::new(true);
        self.pending[stage] = Some(pending);
    }

    /// Gives `stage` the weights `table` as its own (see [`Network::set_stage`]).
    pub(super) fn set_table(&mut self, stage: usize, table: Table) {
        self.tables[stage] = OnceLock::from(table);
        self.pending[stage] = None;
        self.claimed[stage] = AtomicBool::new(true);
    }
}

/// A copy of coherence sums, in memory of its own.
fn duplicate_sums(from: &[AtomicU64]) -> Sums {
    copied(
        from,
        |w| w.load(Ordering::Relaxed),
        |w, v| w.store(v, Ordering::Relaxed),
    )
}

/// A copy of the cells `from`, read with `load` and written with `store`, in memory of its own:
/// zeros are not written, and memory never written costs nothing.
fn copied<T: bytemuck::Zeroable, V: Copy + PartialEq + Default>(
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
fn sum(table: &[AtomicU32], features: &[u32]) -> f32 {
    features
        .iter()
        .map(|&i| f32::from_bits(table[i as usize].load(Ordering::Relaxed)))
        .sum()
}

/// Adds `share` to each weight of `features` and returns their new sum. A weight read by
/// several features (a board with two equal lines) moves once per feature, so the sum is
/// taken again after every weight has moved.
#[inline]
fn add(table: &[AtomicU32], features: &[u32], share: f32) -> f32 {
    for &i in features {
        let w = &table[i as usize];
        let value = f32::from_bits(w.load(Ordering::Relaxed)) + share;
        w.store(value.to_bits(), Ordering::Relaxed);
    }
    sum(table, features)
}

/// [`add`] under temporal coherence: each weight moves by `rate * error` times its coherence
/// (1 for a weight never updated), then `error` is added to its sums. The sums hold the raw
/// error, not the step, so that a rate schedule does not bend them. A weight the board reads
/// twice sees its sums with the first reading's error in them.
///
/// |sum| <= size holds for each update, but rounding, or two threads' updates of one weight
/// where one is lost, can break it by a little: the coherence is capped at 1, so a step is
/// never more than a whole one. Past some 2^24 updates of a weight its sums grow no more (an
/// `f32` adds nothing that small to them), and its coherence stays where it is.
#[inline]
fn add_coherent(
    table: &[AtomicU32],
    sums: &[AtomicU64],
    features: &[u32],
    rate: f32,
    error: f32,
) -> f32 {
    for &i in features {
        let i = i as usize;
        let pair = sums[i].load(Ordering::Relaxed);
        let (sum, size) = (
            f32::from_bits(pair as u32),
            f32::from_bits((pair >> 32) as u32),
        );
        let coherence = if size > 0.0 {
            (sum.abs() / size).min(1.0)
        } else {
            1.0
        };
        let w = &table[i];
        let value = f32::from_bits(w.load(Ordering::Relaxed)) + rate * coherence * error;
        w.store(value.to_bits(), Ordering::Relaxed);
        let (sum, size) = (sum + error, size + error.abs());
        let pair = u64::from(sum.to_bits()) | (u64::from(size.to_bits()) << 32);
        sums[i].store(pair, Ordering::Relaxed);
    }
    sum(table, features)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::Board;
    use crate::model::packed::Board4;

    fn bits(rows: &[[u64; 4]]) -> u64 {
        let rows: Vec<Vec<u64>> = rows.iter().map(|r| r.to_vec()).collect();
        Board4::from_board(&Board::from_values(&rows).unwrap())
            .unwrap()
            .bits()
    }

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

    #[test]
    fn the_eight_symmetries_are_the_mirror_images_and_rotations() {
        let b = bits(&[[2, 4, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]]);
        let images = symmetries(b);
        let mut distinct = images.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), 8);
        assert_eq!(
            images[1],
            bits(&[[0, 0, 4, 2], [0, 0, 0, 0], [0, 0, 0, 0], [8, 0, 0, 0]])
        );
        assert_eq!(
            images[2],
            bits(&[[0, 0, 0, 8], [0, 0, 0, 0], [0, 0, 0, 0], [2, 4, 0, 0]])
        );
        assert_eq!(
            images[4],
            bits(&[[2, 0, 0, 0], [4, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 8]])
        );
        // Every image of an image is an image (the 8 form a group).
        for image in images {
            let mut again = symmetries(image).to_vec();
            again.sort_unstable();
            assert_eq!(again, distinct);
        }
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
    fn an_adjustment_moves_the_value_by_its_step() {
        // Rows: 2 tuples x 8 images = 16 features, each moved by step / 8, so the value
        // moves by 2 x step when no two features share a weight.
        let net = Network::new(TupleSet::Rows, Stages::single());
        let b = bits(&[
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [2, 2, 4, 8],
            [4, 8, 16, 32],
        ]);
        let after = net.adjust(b, 1.0);
        assert!((after - 2.0).abs() < 1e-5, "{after}");
        assert!((net.value(b) - after).abs() < 1e-6);
    }

    #[test]
    fn an_adjustment_returns_the_new_value_when_features_share_weights() {
        // An empty board: every line reads 0, so all 16 features are 2 weights, each read 8
        // times. A step of 1 moves each by 1/8 per read: the value rises by 16 x 8 x 1/8.
        let net = Network::new(TupleSet::Rows, Stages::single());
        let after = net.adjust(0, 1.0);
        assert!(
            (after - net.value(0)).abs() < 1e-5,
            "{after} vs {}",
            net.value(0)
        );
        assert!((after - 16.0).abs() < 1e-4, "{after}");
        let learned = net.learn(0, 0.0, 0.01);
        assert!((learned - net.value(0)).abs() < 1e-5);
    }

    #[test]
    fn temporal_coherence_shrinks_the_steps_of_weights_whose_errors_cancel_out() {
        // Every line of it differs from the others, read either way: 16 weights of their own.
        let board = bits(&[
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [512, 1024, 2048, 4096],
            [8192, 16384, 2, 4],
        ]);
        let mut coherent = Network::new(TupleSet::Rows, Stages::single());
        coherent.track_coherence();
        assert!(coherent.tracks_coherence());
        let plain = Network::new(TupleSet::Rows, Stages::single());
        let close = |a: f32, b: f32| (a - b).abs() < 1e-4;
        // 16 weights, each moved by 0.25 * error / 8: the value moves by half the error.
        // The first two updates meet no cancelling error: whole steps, as without coherence.
        for network in [&coherent, &plain] {
            assert!(close(network.learn(board, 8.0, 0.25), 4.0));
            assert!(close(network.learn(board, 0.0, 0.25), 2.0));
        }
        // Errors of +8 and -4 so far: coherence |8 - 4| / (8 + 4) = 1/3. The next error, -2,
        // moves the value by a third of the plain step of -1.
        assert!(close(plain.learn(board, 0.0, 0.25), 1.0));
        let value = coherent.learn(board, 0.0, 0.25);
        assert!(close(value, 2.0 - 1.0 / 3.0), "{value}");
        // Sums of +8, -4, -2: the next error, -1, at rate 0.5 (a plain step of -1) meets the
        // coherence 2 / 14.
        let value = coherent.learn(board, value - 1.0, 0.5);
        let expected = 2.0 - 1.0 / 3.0 - 1.0 / 7.0;
        assert!(close(value, expected), "{value}");
        // The sums hold errors, not steps: now 1 / 15 (sums of the steps taken, 0.25 x (8 - 4
        // - 2) - 0.5 x 1 = 0, would stop the weights).
        let value = coherent.learn(board, value - 1.0, 0.25);
        assert!(close(value, expected - 0.5 / 15.0), "{value}");
        // Weights no update has touched (no line of this board is one of the other's) take
        // whole steps: the same as without coherence.
        let other = bits(&[[4, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        let whole = plain.learn(other, 8.0, 0.25);
        assert!(whole > 4.0); // weights it reads more than once move more than once
        assert!(close(coherent.learn(other, 8.0, 0.25), whole));
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
        let rounded: Vec<u64> = sums(&network).into_iter().map(format::round_sums).collect();
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

    #[test]
    #[allow(clippy::float_cmp)] // 1000 / 16 = 62.5, summed 16 times: exact
    fn an_optimistic_network_values_every_board_at_its_initial_value_until_it_learns() {
        let stages = Stages::split_at(&[11]).unwrap();
        let net = Network::with_initial_value(TupleSet::Rows, stages, 1000.0);
        let early = bits(&[[2, 4, 8, 16], [32, 0, 0, 0], [0; 4], [0; 4]]);
        let late = bits(&[[2048, 4, 8, 16], [0; 4], [0; 4], [0; 4]]);
        for board in [0, early, late] {
            assert_eq!(net.value(board), 1000.0);
        }
        // A late board promotes the early stage's weights as they are, optimism included;
        // then learning an early board that ended a game (target 0) brings its value down and
        // leaves the late stage alone.
        assert_eq!(net.learn(late, 1000.0, 0.1), 1000.0);
        assert_eq!(net.stages_trained(), 2);
        let learned = net.learn(early, 0.0, 0.1);
        assert!(learned < 1000.0, "{learned}");
        assert_eq!(net.value(late), 1000.0);
        // The optimism survives the file (62.5 is exact in f16).
        let back = Network::from_bytes(&net.to_bytes()).unwrap();
        assert_eq!(back.value(late), 1000.0);
        assert_eq!(back.value(early), net.value(early));
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

    /// Random boards of every stage: tiles up to 2^15 in random cells.
    fn random_boards(count: usize) -> Vec<u64> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        (0..count)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                state ^ (state >> 29)
            })
            .collect()
    }

    #[test]
    fn a_split_network_values_every_board_as_before_and_its_new_stage_learns_alone() {
        // Stage 0 and stage 1 (from 64) trained, stage 2 (from 2048) never reached.
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[6, 11]).unwrap());
        let boards = random_boards(5000);
        for (k, &board) in boards.iter().enumerate().take(2000) {
            net.adjust(board & 0x5555_5555_5555_5555, (k % 7) as f32 - 3.0);
        }
        net.adjust(bits(&[[64, 2, 0, 0], [0; 4], [0; 4], [0; 4]]), 5.0);
        assert_eq!(net.stages_trained(), 2);
        let bytes = net.to_bytes();
        let played = Network::from_bytes_for(&bytes, WeightUse::Play).unwrap();
        let played_before: Vec<u32> = boards.iter().map(|&b| played.value(b).to_bits()).collect();

        // Splits at 16 (inside stage 0) and 64 and 2048 kept; as read from a file, where the
        // weights are f16.
        let net = Network::from_bytes(&bytes).unwrap();
        let wider = Stages::split_at(&[4, 6, 11]).unwrap();
        let split = net.split(wider.clone()).unwrap();
        assert_eq!(split.stages(), &wider);
        // Stages 0 and 1 are copies of the old stage 0, stage 2 holds the old stage 1, and
        // the old stage 2 had no weights: neither has its new stage 3.
        assert_eq!(split.stages_trained(), 3);
        assert!(split.stage_values(0) == split.stage_values(1));
        assert!(split.stage_values(3).is_none());
        assert_eq!(split.file_checksum(), None);
        let after: Vec<u32> = boards.iter().map(|&b| split.value(b).to_bits()).collect();
        assert!(after == played_before, "a split moved a value");
        // Written and read back (a checkpoint), the same stages and values.
        let back = Network::from_bytes(&split.to_bytes()).unwrap();
        assert_eq!((back.stages(), back.stages_trained()), (&wider, 3));
        let read: Vec<u32> = boards.iter().map(|&b| back.value(b).to_bits()).collect();
        assert!(
            read == played_before,
            "a split network's file moved a value"
        );

        // The new stage learns alone: an adjustment of a board below 16 leaves 16-63 alone.
        let small = bits(&[[8, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        let middle = bits(&[[8, 2, 16, 0], [0; 4], [0; 4], [0; 4]]);
        let (small_before, middle_before) = (split.value(small), split.value(middle));
        split.adjust(small, 4.0);
        assert!(split.value(small) > small_before);
        assert_eq!(split.value(middle).to_bits(), middle_before.to_bits());

        // A network read to play splits too, and keeps its values.
        let frozen = Network::from_bytes_for(&bytes, WeightUse::Play)
            .unwrap()
            .split(wider)
            .unwrap();
        assert!(frozen.is_frozen());
        let frozen_after: Vec<u32> = boards.iter().map(|&b| frozen.value(b).to_bits()).collect();
        assert!(frozen_after == played_before);

        // Moving or removing a split is refused.
        for to in [&[4, 11][..], &[7, 11], &[]] {
            let refused = Network::from_bytes(&bytes)
                .unwrap()
                .split(Stages::split_at(to).unwrap());
            assert!(
                matches!(refused, Err(NetworkError::NotASplit { .. })),
                "{to:?}"
            );
        }
        let message = Network::from_bytes(&bytes)
            .unwrap()
            .split(Stages::single())
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            message,
            "a network with stages split at 64, 2048 cannot become one with one stage: splits \
             may be added, never moved or removed (that would lose what a stage learned)"
        );
    }

    #[test]
    fn a_split_carries_the_coherence_sums_with_the_weights_they_were_gathered_on() {
        let mut net = Network::new(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        net.track_coherence();
        let small = bits(&[[8, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        let late = bits(&[[2048, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        for _ in 0..5 {
            net.learn(small, 100.0, 0.25);
            net.learn(late, -50.0, 0.25);
        }
        let sums_of = |net: &Network, k: usize| -> Vec<u64> {
            let stages = net.coherence.as_ref().expect("tracked");
            stages[k]
                .get()
                .map(|s| s.iter().map(|w| w.load(Ordering::Relaxed)).collect())
                .unwrap_or_default()
        };
        let (early_sums, late_sums) = (sums_of(&net, 0), sums_of(&net, 1));
        assert!(early_sums.iter().any(|&w| w != 0) && late_sums.iter().any(|&w| w != 0));
        let split = net.split(Stages::split_at(&[4, 11]).unwrap()).unwrap();
        assert!(split.tracks_coherence());
        // Stage 0 keeps the old first stage's sums, its copy above has a copy of them (the
        // same weights, learned on the same boards), and the stage from 2048 keeps its own.
        assert!(sums_of(&split, 0) == early_sums);
        assert!(sums_of(&split, 1) == early_sums);
        assert!(sums_of(&split, 2) == late_sums);
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
