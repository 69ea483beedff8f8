//! Computer players: one [`Player`] trait, one file per player, and [`PlayerKind`], the one
//! table of the players the program offers.
//!
//! A new player is a new file, a new [`PlayerKind`] with its name, and its arm in
//! [`PlayerKind::build`] and [`AnyPlayer`]'s `match`es, all in this file: the command line,
//! autoplay and bench take their players from here.

pub mod chance;
pub mod expectimax;
pub mod heuristic;
pub mod learned;
pub mod optimal;
pub(crate) mod playout;
mod random;

use crate::learning::ntuple::Network;
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::grid::{Grid, OnGrid};
use crate::model::named::Named;
use crate::model::packed::on_fastest;
use crate::model::rules::Rules;
use rand::Rng;
use std::sync::Arc;
use thiserror::Error;

pub use expectimax::{
    Advice, Expectimax, MAX_BUDGET_MS, MAX_FIXED_DEPTH, SEARCH_REVISION, SearchConfig,
};
pub use learned::{
    CROWDED_EMPTY_CELLS, DEFAULT_LEARNED_DEPTH, KEEP_PLAYING_CROWDED_EMPTY_CELLS,
    KEEP_PLAYING_LEARNED_DEPTH, LazyNetwork, LearnedPlayer, MAX_LEARNED_DEPTH,
};
pub use optimal::{OptimalPlayer, Solution};
pub use random::RandomPlayer;

/// Something that picks moves. Generic over the board representation so that the same player
/// runs on the packed engines and on the plain board.
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

/// The players the program offers (`--autoplay`, `bench --player`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerKind {
    /// Uniformly random directions.
    Random,
    /// Expectimax search with a heuristic evaluation.
    Expectimax,
    /// Perfect play on 3x3 from a solved table.
    Optimal,
    /// Expectimax over a learned n-tuple network (4x4 boards; `power11 train` makes one).
    Learned,
}

/// Why a player could not be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PlayerError {
    /// The optimal player plays a solved table, and none was given.
    #[error("the optimal player needs the table of these rules (power11 solve)")]
    NoTable,
    /// The learned player plays a trained network, and none was given.
    #[error("the learned player needs a trained network (power11 train)")]
    NoNetwork,
}

impl Named for PlayerKind {
    const ALL: &'static [PlayerKind] = &[
        PlayerKind::Random,
        PlayerKind::Expectimax,
        PlayerKind::Optimal,
        PlayerKind::Learned,
    ];

    fn name(self) -> &'static str {
        match self {
            PlayerKind::Random => "random",
            PlayerKind::Expectimax => "expectimax",
            PlayerKind::Optimal => "optimal",
            PlayerKind::Learned => "learned",
        }
    }

    fn about(self) -> &'static str {
        match self {
            PlayerKind::Random => "Uniformly random directions",
            PlayerKind::Expectimax => "Expectimax search with a heuristic evaluation",
            PlayerKind::Optimal => "Perfect play on 3x3 boards, from a solved table",
            PlayerKind::Learned => {
                "Expectimax over a network learned by self-play (4x4; a 5x5 game at the menu gets the search; power11 train)"
            }
        }
    }
}

impl PlayerKind {
    /// The player that advises and plays when none is named, for games whose boards may be
    /// any of `sizes` (a menu may offer two): the learned player where 4x4 boards are played,
    /// as its shipped network plays them better than the hand-tuned search in a fraction of
    /// its time (measurements/learned.md), handing other sizes to that search; the search
    /// elsewhere, and wherever the user tuned a search the learned player does not do
    /// (`search`: a time per move, or a depth past [`MAX_LEARNED_DEPTH`]).
    pub fn default_for(sizes: &[usize], search: &SearchConfig) -> PlayerKind {
        let tuned =
            search.time_budget.is_some() || search.depth.is_some_and(|d| d > MAX_LEARNED_DEPTH);
        if sizes.contains(&4) && !tuned {
            PlayerKind::Learned
        } else {
            PlayerKind::Expectimax
        }
    }

    /// A player of this kind; `search` tunes the players that search (the learned player reads
    /// only its depth), `table` is the solved table the optimal player plays, `network` the
    /// learned player's network (each player ignores what it does not use).
    pub fn build(
        self,
        search: SearchConfig,
        table: Option<&Arc<Solution>>,
        network: Option<&Arc<Network>>,
    ) -> Result<AnyPlayer, PlayerError> {
        Ok(match self {
            PlayerKind::Random => AnyPlayer::Random(RandomPlayer),
            PlayerKind::Expectimax => AnyPlayer::Expectimax(Expectimax::new(search)),
            PlayerKind::Optimal => AnyPlayer::Optimal(OptimalPlayer::new(Arc::clone(
                table.ok_or(PlayerError::NoTable)?,
            ))),
            PlayerKind::Learned => AnyPlayer::Learned(LearnedPlayer::new(
                Arc::clone(network.ok_or(PlayerError::NoNetwork)?),
                search.depth,
            )),
        })
    }
}

/// Any of the players [`PlayerKind`] lists, so that code that runs "the player the user chose"
/// is written once.
#[derive(Clone, Debug)]
pub enum AnyPlayer {
    /// [`RandomPlayer`].
    Random(RandomPlayer),
    /// [`Expectimax`].
    Expectimax(Expectimax),
    /// [`OptimalPlayer`].
    Optimal(OptimalPlayer),
    /// [`LearnedPlayer`].
    Learned(LearnedPlayer),
}

impl AnyPlayer {
    /// The player's own advice on `board`, for the players that search (expectimax, learned);
    /// `None` for the others, whose moves explain nothing.
    pub fn advise_board(&self, board: &Board, rules: &Rules) -> Option<Option<Advice>> {
        match self {
            AnyPlayer::Expectimax(player) => Some(player.advise_board(board, rules)),
            AnyPlayer::Learned(player) => Some(player.advise_board(board, rules)),
            AnyPlayer::Random(_) | AnyPlayer::Optimal(_) => None,
        }
    }

    /// What setting the player up had to say when it was first asked for a move (the learned
    /// player's weight file passed over), once; `None` for the others.
    pub fn take_note(&self) -> Option<String> {
        match self {
            AnyPlayer::Learned(player) => player.take_note(),
            _ => None,
        }
    }

    /// Whether the player answers at once: false only for a learned player whose network is
    /// still to be read.
    pub fn is_ready(&self) -> bool {
        match self {
            AnyPlayer::Learned(player) => player.is_loaded(),
            _ => true,
        }
    }

    /// Does now what the first move would otherwise wait for (reading the learned player's
    /// network); a clone shares it, so a front end warms a clone on a thread of its own.
    pub fn warm_up(&self) {
        if let AnyPlayer::Learned(player) = self {
            player.load();
        }
    }
}

impl Player for AnyPlayer {
    fn name(&self) -> &'static str {
        match self {
            AnyPlayer::Random(player) => player.name(),
            AnyPlayer::Expectimax(player) => player.name(),
            AnyPlayer::Optimal(player) => player.name(),
            AnyPlayer::Learned(player) => player.name(),
        }
    }

    fn choose<G: Grid, R: Rng + ?Sized>(
        &mut self,
        grid: &G,
        rules: &Rules,
        rng: &mut R,
    ) -> Direction {
        match self {
            AnyPlayer::Random(player) => player.choose(grid, rules, rng),
            AnyPlayer::Expectimax(player) => player.choose(grid, rules, rng),
            AnyPlayer::Optimal(player) => player.choose(grid, rules, rng),
            AnyPlayer::Learned(player) => player.choose(grid, rules, rng),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::ntuple::{Stages, TupleSet};

    #[test]
    fn every_kind_builds_a_player_of_its_name() {
        let rules = Rules::mini().with_goal(Some(16)).unwrap();
        let table = Arc::new(Solution::solve(&rules, &|_, _, _| {}).unwrap());
        let network = Arc::new(Network::new(TupleSet::Rows, Stages::single()));
        for &kind in PlayerKind::ALL {
            let player = kind
                .build(SearchConfig::default(), Some(&table), Some(&network))
                .unwrap();
            assert_eq!(player.name(), kind.name());
            assert_eq!(PlayerKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(
            PlayerKind::Optimal
                .build(SearchConfig::default(), None, None)
                .unwrap_err(),
            PlayerError::NoTable
        );
        assert_eq!(
            PlayerKind::Learned
                .build(SearchConfig::default(), None, None)
                .unwrap_err(),
            PlayerError::NoNetwork
        );
    }
}
