//! The n-tuple network's file format in one place: the markers and sizes that the weight file
//! (`weight_file`) and the coherence file (`coherence_file`) are written and read with.
//!
//! Both files are one header, zstd-compressed stages and one CRC-32 of everything before it.
//! The weight file holds only the stages that have weights of their own, in blocks; each block
//! is a bitmap of the weights it stores (nonzero ones, or in a later stage those that differ
//! from the stage stored before it: a promoted stage starts as a copy) and their values, low
//! bytes then high bytes (the bytes that vary most kept apart from those that vary least). So a
//! file's size follows what was learned, not the table's size. Its blocks are in zstd frames
//! of at most [`FRAME_BLOCKS`] blocks (format 3), so that every core decompresses some: one
//! frame, on one core, took half the processor time of loading the shipped network. Formats 2
//! (one frame) and 1 (every stage, dense and uncompressed) are still read; the coherence file is
//! one frame.

/// The magic bytes a coherence file starts with.
pub const COHERENCE_MAGIC: &[u8; 8] = b"P11COHER";
/// The coherence-file format this program writes.
pub(super) const COHERENCE_FORMAT: u32 = 3;
/// The coherence-file format before the rate was kept: the same but for it (still read).
pub(super) const COHERENCE_FORMAT_NO_RATE: u32 = 2;
/// The first coherence-file format: every stage's sums, dense and uncompressed (still read).
pub(super) const COHERENCE_FORMAT_DENSE: u32 = 1;

/// The magic bytes a weight file starts with.
pub const WEIGHTS_MAGIC: &[u8; 8] = b"P11NTUPL";
/// The weight-file format this program writes.
pub(super) const FORMAT: u32 = 3;
/// The weight-file format with the stages in one zstd frame (still read).
pub(super) const FORMAT_ONE_FRAME: u32 = 2;
/// The first weight-file format: every stage, dense f16, uncompressed (still read).
pub(super) const FORMAT_DENSE: u32 = 1;
/// The value type code for IEEE half-precision weights.
pub(super) const VALUE_F16: u8 = 1;
/// The largest finite f16: weights are clamped to it when written.
pub(super) const F16_MAX: f32 = 65504.0;
/// Values a block holds: the unit of the byte split and of reading and writing.
pub(super) const BLOCK: usize = 1 << 16;
/// Blocks a zstd frame of a weight file holds at most (format 3): frames are compressed and
/// decompressed on every core, and 8M weights a frame cost a few parts in a thousand of the
/// file's size against one frame.
pub(super) const FRAME_BLOCKS: usize = 128;
/// Frames a weight file may hold: more than any tuple set and stages make, fewer than a
/// damaged file could ask for.
pub(super) const MAX_FRAMES: usize = 1 << 12;

/// The zstd level checkpoints are written at: fast (a few seconds for a whole network), and
/// most of a network's zeros and repeats are found at any level.
pub const DEFAULT_LEVEL: i32 = 3;
