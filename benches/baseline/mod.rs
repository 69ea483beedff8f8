//! The yardstick for the engine: a hand-tuned 4x4 table engine in the style of nneonneo's
//! 2048 AI, written only to be measured against.
//!
//! A board is one `u64`, 4 bits a cell. Rows move by one table lookup each; a table entry is
//! the XOR that turns the row into its moved form, so a move is four XORs into the board. Columns
//! move by the same trick on the transposed board, with tables whose entries are already spread
//! into column positions (cells 16 bits apart), so a column move costs one transpose. The score
//! is not tracked per move: it is read off the final tiles, less what the start's tiles and
//! each spawned 4 would count (they were never made by a merge).
//!
//! It plays a random game with the same random stream as `power11::play_game` with the random
//! player (a direction from `below(rng, 4)`, then a cell from `below(rng, empty)` and a 4 with
//! probability 0.1), so the two engines play the very same games and the benchmark compares
//! engines, not games. [`check_same_games`] asserts that before anything is timed.

use power11::players::RandomPlayer;
use power11::random::{GameRng, below, chance, seeded};
use power11::{Board, Rules, play_game};
use std::hint::black_box;

/// One batch of the engine ratio's games: seeded random-player games on Power-11 Hard rules,
/// played the same on both engines, so that their times (`cargo bench --bench engine --
/// engine_ratio`) or instruction counts (`examples/engine_games.rs`) divide into the ratio.
pub(crate) struct Batch {
    rules: Rules,
    /// Each game's start and the random stream that plays it.
    starts: Vec<(Board, GameRng)>,
}

impl Batch {
    /// How many games a batch plays.
    pub(crate) const GAMES: u64 = 64;

    /// Games 0..[`Batch::GAMES`], game `k` started and played from `seeded(k)`.
    pub(crate) fn new() -> Batch {
        let rules = Rules::power11(4).expect("4 is valid");
        let starts = (0..Self::GAMES)
            .map(|seed| {
                let mut rng = seeded(seed);
                (rules.new_board(&mut rng), rng)
            })
            .collect();
        Batch { rules, starts }
    }

    /// Plays the batch on our engine (`play_game`).
    pub(crate) fn play_ours(&self) {
        for (start, rng) in &self.starts {
            let mut rng = rng.clone();
            black_box(play_game(
                &self.rules,
                *start,
                &mut RandomPlayer,
                &mut rng,
                u64::MAX,
            ));
        }
    }

    /// Plays the batch on the table engine.
    pub(crate) fn play_baseline(&self, engine: &TableEngine) {
        for (start, rng) in &self.starts {
            let mut rng = rng.clone();
            black_box(engine.random_game(pack(start), &mut rng));
        }
    }
}

/// The move tables, built once (as the reference program builds its own at start-up).
pub(crate) struct TableEngine {
    row_left: Box<[u16; 65536]>,
    row_right: Box<[u16; 65536]>,
    col_up: Box<[u64; 65536]>,
    col_down: Box<[u64; 65536]>,
    /// The sum over the row's tiles of what merging them scored: `(k - 1) * 2^k` for a 2^k.
    row_score: Box<[u32; 65536]>,
}

fn boxed<T: Copy + Default, const N: usize>() -> Box<[T; N]> {
    vec![T::default(); N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("the vector has N elements"))
}

fn unpack_col(row: u16) -> u64 {
    let x = u64::from(row);
    (x | (x << 12) | (x << 24) | (x << 36)) & 0x000F_000F_000F_000F
}

fn reverse_row(row: u16) -> u16 {
    (row >> 12) | ((row >> 4) & 0x00F0) | ((row << 4) & 0x0F00) | (row << 12)
}

/// Rows and columns exchanged.
fn transpose(x: u64) -> u64 {
    let a1 = x & 0xF0F0_0F0F_F0F0_0F0F;
    let a2 = x & 0x0000_F0F0_0000_F0F0;
    let a3 = x & 0x0F0F_0000_0F0F_0000;
    let a = a1 | (a2 << 12) | (a3 >> 12);
    let b1 = a & 0xFF00_FF00_00FF_00FF;
    let b2 = a & 0x00FF_00FF_0000_0000;
    let b3 = a & 0x0000_0000_FF00_FF00;
    b1 | (b2 >> 24) | (b3 << 24)
}

impl TableEngine {
    pub(crate) fn new() -> TableEngine {
        let mut t = TableEngine {
            row_left: boxed(),
            row_right: boxed(),
            col_up: boxed(),
            col_down: boxed(),
            row_score: boxed(),
        };
        for row in 0..=u16::MAX {
            let mut line = [row & 0xF, (row >> 4) & 0xF, (row >> 8) & 0xF, row >> 12];
            t.row_score[usize::from(row)] = line
                .iter()
                .map(|&k| if k >= 2 { (u32::from(k) - 1) << k } else { 0 })
                .sum();
            // Slide toward cell 0, merging each pair once; 32768s (15) do not merge.
            let mut i = 0;
            while i < 3 {
                let Some(j) = (i + 1..4).find(|&j| line[j] != 0) else {
                    break;
                };
                if line[i] == 0 {
                    line[i] = line[j];
                    line[j] = 0;
                    continue; // look again at i: it may merge with the next tile
                } else if line[i] == line[j] && line[i] != 15 {
                    line[i] += 1;
                    line[j] = 0;
                }
                i += 1;
            }
            let result = line[0] | (line[1] << 4) | (line[2] << 8) | (line[3] << 12);
            let rev_row = reverse_row(row);
            let rev_result = reverse_row(result);
            t.row_left[usize::from(row)] = row ^ result;
            t.row_right[usize::from(rev_row)] = rev_row ^ rev_result;
            t.col_up[usize::from(row)] = unpack_col(row) ^ unpack_col(result);
            t.col_down[usize::from(rev_row)] = unpack_col(rev_row) ^ unpack_col(rev_result);
        }
        t
    }

    fn rows(board: u64, table: &[u16; 65536]) -> u64 {
        let mut out = board;
        for k in 0..4 {
            out ^= u64::from(table[((board >> (16 * k)) & 0xFFFF) as usize]) << (16 * k);
        }
        out
    }

    fn columns(board: u64, table: &[u64; 65536]) -> u64 {
        let t = transpose(board);
        let mut out = board;
        for k in 0..4 {
            out ^= table[((t >> (16 * k)) & 0xFFFF) as usize] << (4 * k);
        }
        out
    }

    /// The board after a move: 0 = Up, 1 = Down, 2 = Left, 3 = Right (`Direction::ALL`'s order).
    pub(crate) fn slide(&self, board: u64, direction: usize) -> u64 {
        match direction {
            0 => Self::columns(board, &self.col_up),
            1 => Self::columns(board, &self.col_down),
            2 => Self::rows(board, &self.row_left),
            _ => Self::rows(board, &self.row_right),
        }
    }

    fn score(&self, board: u64) -> u64 {
        (0..4)
            .map(|k| u64::from(self.row_score[((board >> (16 * k)) & 0xFFFF) as usize]))
            .sum()
    }

    /// One random-player game from `board`: its final score and its moves that changed the
    /// board.
    pub(crate) fn random_game(&self, mut board: u64, rng: &mut GameRng) -> (u64, u64) {
        let mut moves = 0;
        let mut fours = 0;
        // The start's tiles were not made by merges either.
        let start_score = self.score(board);
        loop {
            if (0..4).all(|d| self.slide(board, d) == board) {
                return (self.score(board) - start_score - 4 * fours, moves);
            }
            let next = self.slide(board, below(rng, 4));
            if next == board {
                continue;
            }
            moves += 1;
            board = next;
            // Spawn: the k-th empty cell (row-major), then its tile. Bit 0 of each nibble of
            // `empty` says the cell is empty; clearing the lowest set bit k times leaves the k-th.
            let mut x = board | (board >> 1);
            x |= x >> 2;
            let mut empty = !x & 0x1111_1111_1111_1111;
            for _ in 0..below(rng, empty.count_ones() as usize) {
                empty &= empty - 1;
            }
            let cell = empty.trailing_zeros();
            let four = chance(rng, 0.1);
            fours += u64::from(four);
            board |= (if four { 2 } else { 1 }) << cell;
        }
    }
}

/// A plain board as the table engine's `u64`.
pub(crate) fn pack(board: &Board) -> u64 {
    board
        .exponents()
        .iter()
        .enumerate()
        .fold(0, |bits, (i, &e)| bits | (u64::from(e) << (4 * i)))
}

/// Plays `games` seeded random games on both engines and panics unless they agree on every
/// game's score and number of moves: the benchmark's ratio is only meaningful if they do.
pub(crate) fn check_same_games(engine: &TableEngine, games: u64) {
    let rules = Rules::power11(4).expect("4 is valid");
    for seed in 0..games {
        let mut rng = seeded(seed);
        let start = rules.new_board(&mut rng);
        let mut ours = rng.clone();
        let record = play_game(&rules, start, &mut RandomPlayer, &mut ours, u64::MAX);
        let (score, moves) = engine.random_game(pack(&start), &mut rng);
        assert_eq!(
            (i128::from(score), moves),
            (record.score, record.moves),
            "seed {seed}: the baseline engine plays another game"
        );
    }
}
