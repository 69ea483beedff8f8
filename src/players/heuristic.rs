//! The evaluation search players use: a score for each row and column, summed.
//!
//! It rewards empty cells and equal neighbours (merges waiting to happen), and penalises lines
//! that are not monotonic and boards holding many large tiles. The weights are the well-known
//! ones from public heuristic expectimax players; a constant per line keeps every live position
//! above 0, the value of a lost one.
//!
//! The one exception is the weight of an empty cell on 3x3 boards: with nine cells, room is
//! what keeps a game alive, and the 4x4 weight lets the search trade it for monotonicity.
//! `power11 bench --player expectimax --variant mini --depth 4 --games 200 --seed 2` wins
//! 10% of games with the 4x4 weight and 76% with the 3x3 one.
//!
//! The per-line tables for packed boards live here, with the evaluation: boards only hand out
//! their rows' and columns' keys ([`Grid::line_key`]).

use crate::model::grid::Grid;
use crate::model::packed::{MAX_PACKED_EXPONENT, PACKED_SIZES};
use crate::model::size::Size;
use std::sync::{LazyLock, OnceLock};

const LINE_BASE: f32 = 200_000.0;
const EMPTY_WEIGHT: f32 = 270.0;
const EMPTY_WEIGHT_3X3: f32 = 5_000.0;
const MERGES_WEIGHT: f32 = 700.0;
const MONOTONICITY_POWER: f32 = 4.0;
const MONOTONICITY_WEIGHT: f32 = 47.0;
const SUM_POWER: f32 = 3.5;
const SUM_WEIGHT: f32 = 11.0;

/// `rank^SUM_POWER` and `rank^MONOTONICITY_POWER` for every exponent.
static POWERS: LazyLock<[(f32, f32); 256]> = LazyLock::new(|| {
    let mut table = [(0.0, 0.0); 256];
    for (rank, entry) in table.iter_mut().enumerate() {
        let r = rank as f32;
        *entry = (r.powf(SUM_POWER), r.powf(MONOTONICITY_POWER));
    }
    table
});

/// The evaluation of one line of exponents (a row or a column, any length; the length is the
/// board's size).
pub fn line_score(line: &[u8]) -> f32 {
    let empty_weight = if line.len() <= 3 {
        EMPTY_WEIGHT_3X3
    } else {
        EMPTY_WEIGHT
    };
    let powers = &*POWERS;
    let mut sum = 0.0;
    let mut empty = 0u32;
    let mut merges = 0u32;
    let mut previous = 0u8;
    let mut run = 0u32;
    for &rank in line {
        sum += powers[usize::from(rank)].0;
        if rank == 0 {
            empty += 1;
            continue;
        }
        if previous == rank {
            run += 1;
        } else if run > 0 {
            merges += 1 + run;
            run = 0;
        }
        previous = rank;
    }
    if run > 0 {
        merges += 1 + run;
    }
    let (mut toward_start, mut toward_end) = (0.0f32, 0.0f32);
    for pair in line.windows(2) {
        let (a, b) = (
            powers[usize::from(pair[0])].1,
            powers[usize::from(pair[1])].1,
        );
        if pair[0] > pair[1] {
            toward_start += a - b;
        } else {
            toward_end += b - a;
        }
    }
    LINE_BASE + empty_weight * empty as f32 + MERGES_WEIGHT * merges as f32
        - MONOTONICITY_WEIGHT * toward_start.min(toward_end)
        - SUM_WEIGHT * sum
}

/// `line_score` of every line of one width, indexed by the line's key (4 bits a cell).
static LINE_TABLES: [OnceLock<Box<[f32]>>; Size::MAX + 1] =
    [const { OnceLock::new() }; Size::MAX + 1];

fn line_table(width: usize) -> &'static [f32] {
    LINE_TABLES[width].get_or_init(|| {
        (0..1usize << (4 * width))
            .map(|key| {
                let line: Vec<u8> = (0..width).map(|k| ((key >> (4 * k)) & 0xF) as u8).collect();
                line_score(&line)
            })
            .collect()
    })
}

/// Builds now what the first evaluation of an `size` x `size` board would wait for: its line
/// table and the packed engine's move tables (half a second for 5x5), for a front end to do
/// in the background before advice is asked for.
pub fn warm_up(size: usize) {
    if PACKED_SIZES.contains(&size) {
        let _ = line_table(size);
        crate::model::packed::warm_up(size);
    }
}

/// The board evaluation for one kind of grid, with its tables looked up once (a search makes
/// one and evaluates millions of boards with it).
#[derive(Clone, Copy, Debug)]
pub struct Evaluator {
    /// The line table, for grids whose cells fit 4 bits (packed boards).
    table: Option<&'static [f32]>,
    /// The side of the grids it evaluates.
    size: usize,
}

impl Evaluator {
    /// The evaluator for grids of the type and size of `grid`. Tables are built for the packed
    /// sizes only: a plain board's line can hold any exponent, and other sizes' tables would be
    /// too large (16^8 entries for 8x8).
    pub fn for_grid<G: Grid>(grid: &G) -> Evaluator {
        let size = grid.size();
        let keyed = G::MAX_EXPONENT <= MAX_PACKED_EXPONENT && PACKED_SIZES.contains(&size);
        Evaluator {
            table: keyed.then(|| line_table(size)),
            size,
        }
    }

    /// A number that grows with how promising the position is: the sum of [`line_score`] over
    /// every row and column.
    ///
    /// The order of the sum is part of the players' behaviour (`f32` addition rounds), so a
    /// seed's game replays move for move: packed 4x4 boards add the rows, then the columns; every
    /// other board (plain 4x4 included) adds row i, then column i, for each i in turn. A grid of
    /// another size than the evaluator's is evaluated plainly.
    #[inline]
    pub fn evaluate<G: Grid>(&self, grid: &G) -> f32 {
        let n = grid.size();
        let Some(table) = self.table.filter(|_| n == self.size) else {
            return plain_evaluation(grid);
        };
        let (rows, columns) = (grid.line_keys(false), grid.line_keys(true));
        if n == 4 {
            let rows = table[rows[0]] + table[rows[1]] + table[rows[2]] + table[rows[3]];
            let columns =
                table[columns[0]] + table[columns[1]] + table[columns[2]] + table[columns[3]];
            rows + columns
        } else {
            let mut total = 0.0;
            for i in 0..n {
                total += table[rows[i]];
                total += table[columns[i]];
            }
            total
        }
    }
}

/// The evaluation of `grid` (see [`Evaluator::evaluate`]); looks its tables up on each call.
pub fn evaluate<G: Grid>(grid: &G) -> f32 {
    Evaluator::for_grid(grid).evaluate(grid)
}

fn plain_evaluation<G: Grid>(grid: &G) -> f32 {
    let n = grid.size();
    let mut total = 0.0;
    let mut line = [0u8; Size::MAX];
    for i in 0..n {
        for (k, cell) in line[..n].iter_mut().enumerate() {
            *cell = grid.get(i, k);
        }
        total += line_score(&line[..n]);
        for (k, cell) in line[..n].iter_mut().enumerate() {
            *cell = grid.get(k, i);
        }
        total += line_score(&line[..n]);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::Board;
    use crate::model::packed::{Board3, Board4, Board5};

    #[test]
    fn packed_boards_evaluate_from_their_tables_like_the_plain_board() {
        let b3 = Board::from_values(&[vec![2, 4, 0], vec![8, 8, 0], vec![0, 2, 16]]).unwrap();
        let p3 = Board3::from_board(&b3).unwrap();
        assert_eq!(evaluate(&p3).to_bits(), evaluate(&b3).to_bits());
        let cells: Vec<u8> = (0..25).map(|i| (i * 7 % 13) as u8).collect();
        let b5 = Board::from_exponents(5, &cells).unwrap();
        let p5 = Board5::from_board(&b5).unwrap();
        assert_eq!(evaluate(&p5).to_bits(), evaluate(&b5).to_bits());
        // 4x4 adds in another order: equal up to rounding.
        let b4 = Board::from_exponents(4, &cells[..16]).unwrap();
        let p4 = Board4::from_board(&b4).unwrap();
        assert!((evaluate(&p4) - evaluate(&b4)).abs() <= 1e-3 * evaluate(&b4).abs());
    }

    #[test]
    fn empty_cells_and_merges_are_better() {
        assert!(line_score(&[1, 0, 0, 0]) > line_score(&[1, 2, 0, 0]));
        assert!(line_score(&[3, 3, 1, 0]) > line_score(&[3, 2, 1, 0]));
    }

    #[test]
    fn room_is_worth_more_on_3x3_boards() {
        let on_3x3 = line_score(&[0, 0, 0]) - line_score(&[0, 0, 1]);
        let on_4x4 = line_score(&[0, 0, 0, 0]) - line_score(&[0, 0, 0, 1]);
        assert!(on_3x3 > on_4x4, "{on_3x3} <= {on_4x4}");
    }

    #[test]
    fn monotonic_lines_are_better() {
        assert!(line_score(&[5, 4, 3, 2]) > line_score(&[4, 5, 2, 3]));
        assert_eq!(
            line_score(&[5, 4, 3, 2]).to_bits(),
            line_score(&[2, 3, 4, 5]).to_bits()
        );
    }
}
