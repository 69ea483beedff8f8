//! Learning: the n-tuple network (tuple sets, stages, weights, its file format) and temporal
//! difference learning on self-played games. It takes an RNG and never starts a thread, reads
//! the clock or opens a file: the trainer (`train`) and the weight files (`files::weights`) do.

pub mod ntuple;
pub mod td;
