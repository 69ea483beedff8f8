//! Learning: the n-tuple network (tuple sets, stages, weights, its file format) and temporal
//! difference learning on self-played games. It takes an RNG and never reads the clock or
//! opens a file: the trainer (`train`) and the weight files (`files::weights`) do. Its one use
//! of threads is a weight file's frames, compressed and decompressed on every core (scoped
//! threads, joined before the call returns).

pub mod ntuple;
pub mod td;

/// How many threads the machine runs at once (1 where it cannot say): the one reading of it,
/// for everything that sizes its work to the machine (frames, the exact solver, `train` and
/// `bench` without `--threads` or `--jobs`). The lowest floor that starts threads holds it.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}
