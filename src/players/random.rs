//! The random player: every attempt a uniformly random direction, useful or not.

use super::Player;
use crate::model::direction::Direction;
use crate::model::grid::Grid;
use crate::model::random::below;
use crate::model::rules::Rules;
use rand::Rng;

/// Picks each attempted move uniformly from the four directions; a move that changes nothing
/// is still an attempt (under move scoring it costs a point).
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomPlayer;

impl Player for RandomPlayer {
    fn name(&self) -> &'static str {
        "random"
    }

    fn choose<G: Grid, R: Rng + ?Sized>(&mut self, _: &G, _: &Rules, rng: &mut R) -> Direction {
        Direction::ALL[below(rng, 4)]
    }
}
