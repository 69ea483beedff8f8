//! Computer players: one [`Player`] trait, one file per player.

pub mod expectimax;
pub mod heuristic;
pub mod random;

use crate::board::Board;
use crate::direction::Direction;
use crate::grid::{Grid, OnGrid, on_fastest};
use crate::rules::Rules;
use rand_core::Rng;

pub use expectimax::Expectimax;
pub use random::RandomPlayer;

/// Something that picks moves. Generic over the board representation so that the same player
/// runs on the packed 4x4 engine and on the plain board.
pub trait Player {
    /// The name used on the command line and in reports.
    fn name(&self) -> &'static str;

    /// The move to attempt on `grid` under `rules`. The game is not over when this is called.
    fn choose<G: Grid, R: Rng + ?Sized>(
        &mut self,
        grid: &G,
        rules: &Rules,
        rng: &mut R,
    ) -> Direction;
}

/// The players the command line offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlayerKind {
    /// Uniformly random directions.
    Random,
    /// Expectimax search with a heuristic evaluation.
    Expectimax,
}

impl PlayerKind {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PlayerKind::Random => "random",
            PlayerKind::Expectimax => "expectimax",
        }
    }
}

/// Asks `player` for a move on `board`, on a packed engine when the board fits one.
pub fn choose_on_board<P: Player, R: Rng + ?Sized>(
    player: &mut P,
    board: &Board,
    rules: &Rules,
    rng: &mut R,
) -> Direction {
    struct Choose<'a, P, R: ?Sized> {
        player: &'a mut P,
        rules: &'a Rules,
        rng: &'a mut R,
    }
    impl<P: Player, R: Rng + ?Sized> OnGrid for Choose<'_, P, R> {
        type Output = Direction;
        fn run<G: Grid>(self, grid: G) -> Direction {
            self.player.choose(&grid, self.rules, self.rng)
        }
    }
    on_fastest(board, Choose { player, rules, rng })
}
