//! The exact 3x3 player: every position's probability that perfect play reaches the goal,
//! computed once for a rule set, and the move that maximises it.
//!
//! On 3x3 the whole game fits in memory. Every move adds exactly the spawned tile to the tile
//! sum, so the positions fall into layers by tile sum, each depending only on the two above it
//! (a 2 or a 4 more): one forward pass lists the reachable positions layer by layer, one
//! backward pass values them, with no iteration to convergence. Positions are folded under the
//! 8 symmetries of the square, which change neither the moves available nor their odds.
//!
//! A position is the board before the player's move. Its value is 1 if a move makes the goal
//! tile at once; otherwise the best over the moves that change the board of the average, over
//! every empty cell and every tile the rules spawn there, of the next position's value; 0 with
//! no move.

use super::Player;
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::grid::Grid;
use crate::model::packed::Board3;
use crate::model::rules::{FOUR_CHANCE, NewTile, Rules, Spawn, Start};
use rand::Rng;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;
use thiserror::Error;

/// Why a rule set cannot be solved.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SolveError {
    /// Only 3x3 boards fit in memory.
    #[error(
        "the exact player plays 3x3 boards only, and these rules are {0}x{0} (3x3 rules: --variant mini, or --size 3 with a --goal)"
    )]
    NotThreeByThree(usize),
    /// A goal no 3x3 game can make: solving it would take the whole table to say 0.
    #[error(
        "no 3x3 game reaches goal {goal}, so no player can: the largest tile there is {largest} ({which}); give a --goal of at most that"
    )]
    OutOfReach {
        /// The goal tile.
        goal: u64,
        /// The largest tile these new tiles can make on 3x3.
        largest: u64,
        /// Which new tiles.
        which: &'static str,
    },
    /// Without a goal there is nothing to win.
    #[error("the exact player needs a goal (--goal)")]
    NoGoal,
    /// The solver models spawns of 2s, or of 2s and 4s, on random cells.
    #[error("the exact player solves --spawn random or --spawn twos only")]
    Spawn,
    /// The solver models a start of random tiles.
    #[error("the exact player solves games that start with random tiles (not --fill)")]
    Start,
}

/// The 8 symmetries of the 3x3 square as cell permutations: `SYMMETRIES[s][i]` is the cell
/// whose tile lands on cell `i`.
const SYMMETRIES: [[usize; 9]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8], // identity
    [6, 3, 0, 7, 4, 1, 8, 5, 2], // a quarter turn
    [8, 7, 6, 5, 4, 3, 2, 1, 0], // a half turn
    [2, 5, 8, 1, 4, 7, 0, 3, 6], // three quarter turns
    [2, 1, 0, 5, 4, 3, 8, 7, 6], // mirrored left to right
    [6, 7, 8, 3, 4, 5, 0, 1, 2], // mirrored top to bottom
    [0, 3, 6, 1, 4, 7, 2, 5, 8], // transposed
    [8, 5, 2, 7, 4, 1, 6, 3, 0], // transposed the other way
];

/// The key of `board`: its 36 bits, 4 per cell, cell 0 lowest.
fn key_of(board: Board3) -> u64 {
    (0..9).fold(0, |key, i| {
        key | (u64::from(board.get(i / 3, i % 3)) << (4 * i))
    })
}

fn from_key(key: u64) -> Board3 {
    let mut board = Board3::default();
    for i in 0..9 {
        board.set(i / 3, i % 3, ((key >> (4 * i)) & 0xF) as u8);
    }
    board
}

/// The exponent in cell `i` of `key`.
fn cell(key: u64, i: usize) -> u64 {
    (key >> (4 * i)) & 0xF
}

/// The smallest key among the 8 symmetric images of `key`: one key per class of positions.
fn canonical(key: u64) -> u64 {
    SYMMETRIES
        .iter()
        .map(|perm| {
            perm.iter().enumerate().fold(0, |out, (i, &src)| {
                out | (((key >> (4 * src)) & 0xF) << (4 * i))
            })
        })
        .min()
        .expect("eight symmetries")
}

/// The tile sum of a key, in units of 2 (every tile is at least 2).
fn half_sum(key: u64) -> usize {
    (0..9)
        .map(|i| ((key >> (4 * i)) & 0xF) as u32)
        .filter(|&e| e > 0)
        .map(|e| 1usize << (e - 1))
        .sum()
}

/// The rules a solution answers, and what a table file records of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolvedRules {
    /// The goal tile's exponent.
    pub goal: u8,
    /// Whether spawns (and the start) may be 4s (2/4), or only 2s.
    pub fours: bool,
    /// Tiles on the board at the start.
    pub start_tiles: u8,
    /// Whether the start tiles may be 4s.
    pub start_fours: bool,
}

impl SolvedRules {
    /// What the solver needs to know of `rules`, if it can solve them.
    pub fn of(rules: &Rules) -> Result<SolvedRules, SolveError> {
        if rules.size() != 3 {
            return Err(SolveError::NotThreeByThree(rules.size()));
        }
        let goal = rules.goal().ok_or(SolveError::NoGoal)?;
        let fours = match rules.spawn() {
            Spawn::Random => true,
            Spawn::Twos => false,
            Spawn::Edge | Spawn::None => return Err(SolveError::Spawn),
        };
        // Each merge into the largest tile needs a tile one smaller beside it, and so on down
        // to a new tile: nine cells make at most 2^10 from new 4s, 2^9 from new 2s.
        let largest = if fours { 10 } else { 9 };
        if goal > largest {
            return Err(SolveError::OutOfReach {
                goal: 1 << goal,
                largest: 1 << largest,
                which: if fours {
                    "new tiles of 2 and 4"
                } else {
                    "new tiles of 2 only"
                },
            });
        }
        let Start::Tiles { count, tile } = rules.start() else {
            return Err(SolveError::Start);
        };
        Ok(SolvedRules {
            goal,
            fours,
            start_tiles: count.min(9) as u8,
            start_fours: tile == NewTile::TwoOrFour,
        })
    }

    /// The new tiles and their probabilities.
    fn outcomes(fours: bool) -> &'static [(f64, u8)] {
        if fours {
            &[(1.0 - FOUR_CHANCE, 1), (FOUR_CHANCE, 2)]
        } else {
            &[(1.0, 1)]
        }
    }
}

/// Why bytes are not a solution table.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TableError {
    /// It does not start with the table's magic bytes.
    #[error("not a power11 solution table")]
    NotATable,
    /// Another version of the format.
    #[error("a table of format version {0}; this power11 reads version {TABLE_VERSION}")]
    Version(u32),
    /// The checksum does not match: the file was damaged or cut.
    #[error("the table is damaged (its checksum does not match)")]
    Checksum,
    /// The bytes end early or hold impossible counts.
    #[error("the table is damaged (it ends early or holds impossible counts)")]
    Truncated,
    /// A table made for other rules.
    #[error("the table was made for other rules ({found}); these are {wanted}")]
    OtherRules {
        /// What the table solves.
        found: String,
        /// What was asked for.
        wanted: String,
    },
}

/// The first bytes of a table file.
const TABLE_MAGIC: &[u8; 8] = b"P11SOLVE";
/// The table format's version.
pub const TABLE_VERSION: u32 = 1;

/// FNV-1a, 64 bits: a checksum that finds a damaged or cut table.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Reads bytes off the front of a slice, failing with [`TableError::Truncated`].
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], TableError> {
        let (head, rest) = self
            .0
            .split_first_chunk::<N>()
            .ok_or(TableError::Truncated)?;
        self.0 = rest;
        Ok(*head)
    }

    fn varint(&mut self) -> Result<u64, TableError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let [byte] = self.take::<1>()?;
            value |= u64::from(byte & 0x7F) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(TableError::Truncated)
    }
}

fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

impl std::fmt::Display for SolvedRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let spawns = if self.fours { "2 or 4" } else { "2" };
        let start = if self.start_fours { "2 or 4" } else { "2" };
        write!(
            f,
            "3x3, goal {}, new tiles {spawns}, starting with {} tiles of {start}",
            1u64 << self.goal,
            self.start_tiles
        )
    }
}

/// What the solver is doing, for a progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Listing the reachable positions, layer by layer.
    Listing,
    /// Valuing them, from the fullest layer down.
    Valuing,
}

/// Every reachable position's value under one rule set.
#[derive(Debug)]
pub struct Solution {
    rules: SolvedRules,
    /// Layer `h` holds the positions whose tile sum is `2 * h`: their canonical keys, sorted,
    /// and their values.
    layers: Vec<(Vec<u64>, Vec<f64>)>,
    /// The probability of winning from the start, before the start tiles are drawn.
    start: f64,
}

impl Solution {
    /// Solves `rules`, calling `progress(phase, layers done, layers in all)` as it goes.
    pub fn solve(
        rules: &Rules,
        progress: &(dyn Fn(Phase, usize, usize) + Sync),
    ) -> Result<Solution, SolveError> {
        let solved = SolvedRules::of(rules)?;
        crate::model::packed::warm_up(3);
        let starts = start_positions(solved);
        let layers = list_positions(solved, &starts, progress);
        let values = value_positions(solved, &layers, progress);
        let layers: Vec<(Vec<u64>, Vec<f64>)> = layers.into_iter().zip(values).collect();
        let mut solution = Solution {
            rules: solved,
            layers,
            start: 0.0,
        };
        solution.start = starts
            .iter()
            .map(|&(p, key)| p * solution.value_of_key(key))
            .sum();
        Ok(solution)
    }

    /// The rules this solution answers.
    pub fn rules(&self) -> SolvedRules {
        self.rules
    }

    /// How many positions (up to symmetry) it values.
    pub fn positions(&self) -> usize {
        self.layers.iter().map(|(keys, _)| keys.len()).sum()
    }

    /// The probability that perfect play wins from the start of a game.
    pub fn start_probability(&self) -> f64 {
        self.start
    }

    /// The value of the position with this (any) key: 1 if it holds the goal, else the table's.
    /// The table as bytes: a header naming the rules, each layer's keys (delta-coded) and
    /// values (`f32`: 7 digits, more than any odds are shown with), and a checksum.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(TABLE_MAGIC);
        out.extend_from_slice(&TABLE_VERSION.to_le_bytes());
        let r = self.rules;
        out.extend_from_slice(&[
            r.goal,
            u8::from(r.fours),
            r.start_tiles,
            u8::from(r.start_fours),
        ]);
        out.extend_from_slice(&self.start.to_le_bytes());
        out.extend_from_slice(&(self.layers.len() as u32).to_le_bytes());
        for (keys, values) in &self.layers {
            out.extend_from_slice(&(keys.len() as u32).to_le_bytes());
            let mut previous = 0;
            for &key in keys {
                push_varint(&mut out, key - previous);
                previous = key;
            }
            for &value in values {
                out.extend_from_slice(&(value as f32).to_le_bytes());
            }
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// A table read back from [`Solution::to_bytes`], if it is whole and answers `rules`.
    pub fn from_bytes(bytes: &[u8], rules: &Rules) -> Result<Solution, TableError> {
        let wanted = SolvedRules::of(rules).map_err(|_| TableError::NotATable)?;
        if !bytes.starts_with(TABLE_MAGIC) {
            return Err(TableError::NotATable);
        }
        let (body, sum) = bytes.split_last_chunk::<8>().ok_or(TableError::Truncated)?;
        let mut reader = Reader(&body[TABLE_MAGIC.len()..]);
        let version = u32::from_le_bytes(reader.take()?);
        if version != TABLE_VERSION {
            return Err(TableError::Version(version));
        }
        if checksum(body) != u64::from_le_bytes(*sum) {
            return Err(TableError::Checksum);
        }
        let [goal, fours, start_tiles, start_fours] = reader.take::<4>()?;
        let found = SolvedRules {
            goal,
            fours: fours != 0,
            start_tiles,
            start_fours: start_fours != 0,
        };
        if found != wanted {
            return Err(TableError::OtherRules {
                found: found.to_string(),
                wanted: wanted.to_string(),
            });
        }
        let start = f64::from_le_bytes(reader.take()?);
        let layer_count = u32::from_le_bytes(reader.take()?) as usize;
        if layer_count > 9 << 15 {
            return Err(TableError::Truncated);
        }
        let mut layers = Vec::with_capacity(layer_count);
        for _ in 0..layer_count {
            let count = u32::from_le_bytes(reader.take()?) as usize;
            // Every key takes a byte at least, every value four: a count the rest of the table
            // cannot hold is damage, refused before anything is allocated for it.
            if count.saturating_mul(5) > reader.0.len() {
                return Err(TableError::Truncated);
            }
            let mut keys = Vec::with_capacity(count);
            let mut previous = 0u64;
            for _ in 0..count {
                previous = previous
                    .checked_add(reader.varint()?)
                    .ok_or(TableError::Truncated)?;
                keys.push(previous);
            }
            let mut values = Vec::with_capacity(count);
            for _ in 0..count {
                values.push(f64::from(f32::from_le_bytes(reader.take()?)));
            }
            layers.push((keys, values));
        }
        if !reader.0.is_empty() {
            return Err(TableError::Truncated);
        }
        Ok(Solution {
            rules: found,
            layers,
            start,
        })
    }

    fn value_of_key(&self, key: u64) -> f64 {
        self.lookup(key).unwrap_or(0.0)
    }

    /// The value of the position with this (any) key: 1 if it holds the goal, else the table's;
    /// `None` for a position the rules cannot reach from a start (a hand-made board), which
    /// the table does not hold.
    fn lookup(&self, key: u64) -> Option<f64> {
        let board = from_key(key);
        if board.max_exponent() >= self.rules.goal {
            return Some(1.0);
        }
        let key = canonical(key);
        let (keys, values) = self.layers.get(half_sum(key))?;
        keys.binary_search(&key).ok().map(|i| values[i])
    }

    /// The probability that perfect play wins after moving `board` toward each direction that
    /// changes it, best first (ties in the order of [`Direction::ALL`]); empty if no move
    /// does. `None` for a board the table cannot answer: not 3x3, a tile of 2^15 or more, or a
    /// hand-made position the rules never reach (its odds are unknown, not 0).
    pub fn move_values(&self, board: &Board) -> Option<Vec<(Direction, f64)>> {
        let packed = Board3::from_board(board)?;
        let mut moves = Vec::with_capacity(4);
        for d in Direction::ALL {
            if let Some((slid, _)) = packed.slide(d) {
                moves.push((d, self.after_slide(slid)?));
            }
        }
        moves.sort_by(|a, b| b.1.total_cmp(&a.1));
        Some(moves)
    }

    /// The probability of winning from `slid`, a board just moved, before its new tile; `None`
    /// if a position it leads to is not in the table.
    fn after_slide(&self, slid: Board3) -> Option<f64> {
        if slid.max_exponent() >= self.rules.goal {
            return Some(1.0);
        }
        let empty = slid.empty_count();
        if empty == 0 {
            return Some(0.0);
        }
        let mut total = 0.0;
        for cell in 0..9 {
            let (r, c) = (cell / 3, cell % 3);
            if slid.get(r, c) != 0 {
                continue;
            }
            for &(p, exponent) in SolvedRules::outcomes(self.rules.fours) {
                let mut next = slid;
                next.set(r, c, exponent);
                total += p * self.lookup(key_of(next))?;
            }
        }
        Some(total / empty as f64)
    }
}

/// The start positions (canonical keys) and their probabilities: the start tiles drawn one
/// after the other on random empty cells.
fn start_positions(rules: SolvedRules) -> Vec<(f64, u64)> {
    let mut positions = vec![(1.0, 0u64)];
    for _ in 0..rules.start_tiles {
        let mut next = Vec::new();
        for (p, key) in positions {
            let empty: Vec<usize> = (0..9).filter(|&i| cell(key, i) == 0).collect();
            for &cell in &empty {
                for &(q, exponent) in SolvedRules::outcomes(rules.start_fours) {
                    let p = p * q / empty.len() as f64;
                    next.push((p, key | (u64::from(exponent) << (4 * cell))));
                }
            }
        }
        positions = next;
    }
    positions
        .into_iter()
        .map(|(p, key)| (p, canonical(key)))
        .collect()
}

/// The positions a move and a new tile lead to from `key` (canonical keys, goal not reached).
fn children(rules: SolvedRules, key: u64, out: &mut Vec<u64>) {
    let board = from_key(key);
    for direction in Direction::ALL {
        let Some((slid, _)) = board.slide(direction) else {
            continue;
        };
        if slid.max_exponent() >= rules.goal {
            continue;
        }
        let slid_key = key_of(slid);
        for index in 0..9 {
            if cell(slid_key, index) != 0 {
                continue;
            }
            for &(_, exponent) in SolvedRules::outcomes(rules.fours) {
                out.push(canonical(slid_key | (u64::from(exponent) << (4 * index))));
            }
        }
    }
}

/// Every position reachable from the starts, by layer of tile sum (keys sorted).
fn list_positions(
    rules: SolvedRules,
    starts: &[(f64, u64)],
    progress: &(dyn Fn(Phase, usize, usize) + Sync),
) -> Vec<Vec<u64>> {
    // Nine tiles below the goal: no reachable position sums to more.
    let top = 9 * (1usize << (rules.goal - 1));
    let mut pending: Vec<FxHashSet<u64>> = vec![FxHashSet::default(); top + 3];
    for &(_, key) in starts {
        pending[half_sum(key)].insert(key);
    }
    let mut layers = Vec::with_capacity(top + 1);
    for h in 0..=top {
        let mut keys: Vec<u64> = std::mem::take(&mut pending[h]).into_iter().collect();
        keys.sort_unstable();
        let found = par_map(&keys.chunks(4096).collect::<Vec<_>>(), |chunk| {
            let mut out = Vec::new();
            for &key in *chunk {
                children(rules, key, &mut out);
            }
            out.sort_unstable();
            out.dedup();
            out
        });
        for child in found.into_iter().flatten() {
            pending[half_sum(child)].insert(child);
        }
        layers.push(keys);
        progress(Phase::Listing, h + 1, top + 1);
    }
    layers
}

/// The value of every listed position, layer by layer from the top.
fn value_positions(
    rules: SolvedRules,
    layers: &[Vec<u64>],
    progress: &(dyn Fn(Phase, usize, usize) + Sync),
) -> Vec<Vec<f64>> {
    let mut values: Vec<Vec<f64>> = vec![Vec::new(); layers.len()];
    // The values of the two layers above the one being valued, by key.
    let mut above: FxHashMap<usize, FxHashMap<u64, f64>> = FxHashMap::default();
    for h in (0..layers.len()).rev() {
        let lookup = |key: u64| -> f64 {
            let board = from_key(key);
            if board.max_exponent() >= rules.goal {
                return 1.0;
            }
            let key = canonical(key);
            above
                .get(&half_sum(key))
                .and_then(|layer| layer.get(&key))
                .copied()
                .unwrap_or(0.0)
        };
        let layer_values: Vec<f64> = par_map(&layers[h], |&key| {
            let board = from_key(key);
            let mut best = 0.0f64;
            for direction in Direction::ALL {
                let Some((slid, _)) = board.slide(direction) else {
                    continue;
                };
                let value = if slid.max_exponent() >= rules.goal {
                    1.0
                } else {
                    let slid_key = key_of(slid);
                    let empty = slid.empty_count();
                    let mut total = 0.0;
                    for index in 0..9 {
                        if cell(slid_key, index) != 0 {
                            continue;
                        }
                        for &(p, exponent) in SolvedRules::outcomes(rules.fours) {
                            total += p * lookup(slid_key | (u64::from(exponent) << (4 * index)));
                        }
                    }
                    total / empty as f64
                };
                best = best.max(value);
            }
            best
        });
        above.remove(&(h + 3));
        above.insert(
            h,
            layers[h]
                .iter()
                .copied()
                .zip(layer_values.iter().copied())
                .collect(),
        );
        values[h] = layer_values;
        progress(Phase::Valuing, layers.len() - h, layers.len());
    }
    values
}

/// `f` on every item, on all cores (the standard library's scoped threads: the core library
/// has no thread pool), in order.
fn par_map<T: Sync, U: Send>(items: &[T], f: impl Fn(&T) -> U + Sync) -> Vec<U> {
    let threads = crate::learning::cores();
    if threads == 1 || items.len() < 256 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<U>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a solver thread does not panic"))
            .collect()
    })
}

/// The player that plays a solution: always the move with the best odds. On a hand-made
/// position the table does not hold, it plays the search player's move.
#[derive(Clone, Debug)]
pub struct OptimalPlayer {
    solution: Arc<Solution>,
    fallback: super::Expectimax,
}

impl OptimalPlayer {
    /// A player for the rules `solution` answers.
    pub fn new(solution: Arc<Solution>) -> OptimalPlayer {
        OptimalPlayer {
            solution,
            fallback: super::Expectimax::default(),
        }
    }

    /// The solution it plays.
    pub fn solution(&self) -> &Solution {
        &self.solution
    }
}

impl Player for OptimalPlayer {
    fn name(&self) -> &'static str {
        "optimal"
    }

    fn choose<G: Grid, R: Rng + ?Sized>(
        &mut self,
        grid: &G,
        rules: &Rules,
        rng: &mut R,
    ) -> Direction {
        match self
            .solution
            .move_values(&grid.to_board())
            .and_then(|moves| moves.first().map(|m| m.0))
        {
            Some(direction) => direction,
            None => self.fallback.choose(grid, rules, rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_positions_share_one_key() {
        let board = Board::from_values(&[vec![2, 4, 0], vec![0, 0, 0], vec![0, 0, 8]]).unwrap();
        let class_of = |b: &Board| canonical(key_of(Board3::from_board(b).unwrap()));
        let mut rotated = Board::empty(3).unwrap();
        for r in 0..3 {
            for c in 0..3 {
                rotated.set(c, 2 - r, board.get(r, c));
            }
        }
        assert_eq!(class_of(&board), class_of(&rotated));
        assert_ne!(class_of(&board), class_of(&Board::empty(3).unwrap()));
        assert_eq!(half_sum(key_of(Board3::from_board(&board).unwrap())), 7);
    }

    /// The new tiles of `rules` and their probabilities, written out again for the reference.
    fn tiles(rules: &Rules) -> &'static [(f64, u8)] {
        if rules.spawn() == Spawn::Random {
            &[(0.9, 1), (0.1, 2)]
        } else {
            &[(1.0, 1)]
        }
    }

    /// The probability of winning after `slid` (a board just moved) by plain recursive
    /// expectimax over the whole game tree: no layers, no symmetry, a memo by the exact board.
    fn reference_after(slid: Board3, rules: &Rules, memo: &mut FxHashMap<u64, f64>) -> f64 {
        if slid.max_exponent() >= rules.goal().unwrap() {
            return 1.0;
        }
        let mut total = 0.0;
        for (r, c) in (0..9).map(|i| (i / 3, i % 3)) {
            if slid.get(r, c) != 0 {
                continue;
            }
            for &(p, e) in tiles(rules) {
                let mut next = slid;
                next.set(r, c, e);
                total += p * reference(next, rules, memo);
            }
        }
        total / slid.empty_count() as f64
    }

    /// The probability of winning from `board`, before the player's move (see above).
    fn reference(board: Board3, rules: &Rules, memo: &mut FxHashMap<u64, f64>) -> f64 {
        if let Some(&v) = memo.get(&board.bits()) {
            return v;
        }
        let best = Direction::ALL
            .into_iter()
            .filter_map(|d| board.slide(d))
            .map(|(slid, _)| reference_after(slid, rules, memo))
            .fold(0.0, f64::max);
        memo.insert(board.bits(), best);
        best
    }

    /// Solves `rules` to `goal` and checks it against [`reference`] to 1e-9: the start, and
    /// every move from two positions.
    fn check_against_the_whole_tree(rules: Rules, goal: u64) {
        {
            {
                let rules = rules.with_goal(Some(goal)).unwrap();
                let solution = Solution::solve(&rules, &|_, _, _| {}).unwrap();
                let mut memo = FxHashMap::default();
                // The start: two tiles drawn one after the other.
                let start = tiles(&rules);
                let mut expected = 0.0;
                for first in 0..9 {
                    for second in (0..9).filter(|&c| c != first) {
                        for &(p, a) in start {
                            for &(q, b) in start {
                                let mut board = Board3::default();
                                board.set(first / 3, first % 3, a);
                                board.set(second / 3, second % 3, b);
                                expected += p * q / 72.0 * reference(board, &rules, &mut memo);
                            }
                        }
                    }
                }
                let found = solution.start_probability();
                assert!(
                    (found - expected).abs() < 1e-9,
                    "goal {goal}, {:?}: {found} against {expected}",
                    rules.spawn()
                );
                assert!(found > 0.0 && found <= 1.0);
                // And the odds of each move from a few positions.
                for cells in [[1u8, 1, 0, 0, 2, 0, 0, 0, 1], [3, 2, 1, 1, 0, 0, 2, 0, 0]] {
                    let board = Board::from_exponents(3, &cells).unwrap();
                    let packed = Board3::from_board(&board).unwrap();
                    for (d, p) in solution.move_values(&board).unwrap() {
                        let (slid, _) = packed.slide(d).unwrap();
                        let expected = reference_after(slid, &rules, &mut memo);
                        let p: f64 = p;
                        assert!((p - expected).abs() < 1e-9, "{d}: {p} against {expected}");
                    }
                }
            }
        }
    }

    fn two_or_four() -> Rules {
        Rules::power11(3).unwrap()
    }

    #[test]
    fn the_solver_agrees_with_the_whole_tree_for_twos_to_32() {
        check_against_the_whole_tree(Rules::mini(), 32);
    }

    #[test]
    fn the_solver_agrees_with_the_whole_tree_for_twos_to_64() {
        check_against_the_whole_tree(Rules::mini(), 64);
    }

    #[test]
    fn the_solver_agrees_with_the_whole_tree_for_twos_and_fours_to_32() {
        check_against_the_whole_tree(two_or_four(), 32);
    }

    #[test]
    fn the_solver_agrees_with_the_whole_tree_for_twos_and_fours_to_64() {
        check_against_the_whole_tree(two_or_four(), 64);
    }

    #[test]
    fn a_table_round_trips_and_damage_or_other_rules_are_refused() {
        let rules = Rules::mini().with_goal(Some(32)).unwrap();
        let solution = Solution::solve(&rules, &|_, _, _| {}).unwrap();
        let bytes = solution.to_bytes();
        let read = Solution::from_bytes(&bytes, &rules).unwrap();
        assert_eq!(read.positions(), solution.positions());
        assert_eq!(
            read.start_probability().to_bits(),
            solution.start_probability().to_bits()
        );
        let board = Board::from_exponents(3, &[1, 1, 0, 0, 2, 0, 0, 0, 1]).unwrap();
        let odds = |s: &Solution| s.move_values(&board).unwrap();
        for (a, b) in odds(&read).iter().zip(odds(&solution)) {
            assert_eq!(a.0, b.0);
            assert!((a.1 - b.1).abs() < 1e-6);
        }
        let mut damaged = bytes.clone();
        damaged[40] ^= 1;
        assert_eq!(
            Solution::from_bytes(&damaged, &rules).unwrap_err(),
            TableError::Checksum
        );
        assert_eq!(
            Solution::from_bytes(&bytes[..bytes.len() / 2], &rules).unwrap_err(),
            TableError::Checksum
        );
        assert_eq!(
            Solution::from_bytes(b"hello", &rules).unwrap_err(),
            TableError::NotATable
        );
        let other = Rules::mini().with_goal(Some(64)).unwrap();
        assert_eq!(
            Solution::from_bytes(&bytes, &other)
                .unwrap_err()
                .to_string(),
            "the table was made for other rules (3x3, goal 32, new tiles 2, starting with 2 \
             tiles of 2); these are 3x3, goal 64, new tiles 2, starting with 2 tiles of 2"
        );
    }

    #[test]
    fn positions_the_table_does_not_hold_have_no_odds() {
        let rules = Rules::mini().with_goal(Some(128)).unwrap();
        let solution = Solution::solve(&rules, &|_, _, _| {}).unwrap();
        // Two 64s in opposite corners: no start leads here with only 2s spawning this far.
        let board = Board::from_values(&[vec![64, 0, 0], vec![0; 3], vec![0, 0, 64]]).unwrap();
        assert_eq!(solution.move_values(&board), None);
        let reachable = Board::from_exponents(3, &[1, 1, 0, 0, 0, 0, 0, 0, 0]).unwrap();
        assert!(solution.move_values(&reachable).is_some());
    }

    #[test]
    fn other_rules_are_refused() {
        assert_eq!(
            SolvedRules::of(&Rules::classic()),
            Err(SolveError::NotThreeByThree(4))
        );
        assert_eq!(
            SolvedRules::of(&Rules::mini().with_goal(None).unwrap()),
            Err(SolveError::NoGoal)
        );
        assert_eq!(
            SolvedRules::of(
                &Rules::edge()
                    .with_size(3)
                    .unwrap()
                    .with_goal(Some(64))
                    .unwrap()
            ),
            Err(SolveError::Spawn)
        );
    }
}
