//! A stored stage of a weight file read to play, kept compressed until a board first needs it
//! ([`Pending`]), and which stages of a file can be kept so ([`pending_stages`]).

use super::blocks::{F16Cells, blocks_of_stage, expand_in_parallel};
use super::bytes::Reader;
use super::frames::decompress_frames;
use super::table::Table;
use std::sync::Mutex;

/// A stored stage of a weight file read to play, not expanded yet (the network expands it when
/// a board of it is first valued): its zstd frames as the file has them, all checked when the
/// file was read (they decompress to `holds` bytes of whole blocks whose values are finite;
/// emptied once expanded), and the stored stage below it, whose weights it keeps wherever it
/// stores none of its own.
pub(super) struct Pending {
    frames: Mutex<Vec<u8>>,
    holds: usize,
    below: Option<usize>,
}

impl Pending {
    /// A stage whose checked `frames` decompress to `holds` bytes, expanded on top of the stored
    /// stage `below`.
    pub(super) fn new(frames: Vec<u8>, holds: usize, below: Option<usize>) -> Pending {
        Pending {
            frames: Mutex::new(frames),
            holds,
            below,
        }
    }

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
pub(super) fn pending_stages(listed: &[(&[u8], usize)], starts: &[usize]) -> Option<Vec<Vec<u8>>> {
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
