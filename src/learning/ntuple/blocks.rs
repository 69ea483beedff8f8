//! A stored stage's blocks read back: cut off the decompressed bytes and checked
//! ([`blocks_of_stage`]), then expanded into a table of `f32` weights to train on or of f16
//! weights to play with, each thread a run of blocks ([`expand_in_parallel`], scoped threads that
//! have all ended when it returns). The layout is the one the weight file's `write_stage` writes.

use super::bytes::Reader;
use super::format::BLOCK;
use super::memory::{zeroed, zeroed_small};
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering};

/// One block of a stored stage in the frame (as the weight file's `write_stage` writes it): its
/// bitmap and the low and high bytes of the weights it stores.
pub(super) struct Block<'a> {
    mask: &'a [u8],
    low: &'a [u8],
    high: &'a [u8],
}

/// A stored stage of `count` weights cut off the front of `reader` into its blocks, checked:
/// every bitmap, and as many low and high bytes as it marks.
pub(super) fn blocks_of_stage<'a>(
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

/// The index in its table of the first weight of `blocks` that is not a finite number (an f16
/// whose exponent bits are all set), as [`expand`] would find it.
pub(super) fn first_not_finite(blocks: &[Block<'_>]) -> Option<usize> {
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

/// How a table of one kind holds a weight the file stores as f16 bits.
pub(super) trait Cells: Sync {
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
pub(super) struct WideCells(Vec<f32>);

impl WideCells {
    /// Every f16's value, looked up by its bits.
    pub(super) fn of_f16() -> WideCells {
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
pub(super) struct F16Cells;

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
pub(super) type TableOf<C> = Box<[<C as Cells>::Cell]>;

/// The tables of `stages` (`per_stage` weights each, in tables that come zeroed), each
/// thread writing a run of blocks through every stage, so that a later stage's block finds
/// the block below it already written; the first stage is on top of `base` if there is one.
/// Fails with the first weight that is not a finite number, as (stored stage, index in its
/// table).
pub(super) fn expand_in_parallel<C: Cells>(
    stages: &[Vec<Block<'_>>],
    per_stage: usize,
    cells: &C,
    base: Option<&[C::Cell]>,
) -> Result<Vec<TableOf<C>>, (usize, usize)> {
    let owned: Vec<TableOf<C>> = stages.iter().map(|_| C::zeroed(per_stage)).collect();
    let tables = &owned;
    let blocks = stages.first().map_or(0, Vec::len);
    let threads = super::frames::workers(blocks);
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
