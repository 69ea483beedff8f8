//! Temporal-difference learning of an n-tuple [`Network`] by self-play (`power11 train`).
//!
//! Afterstate TD(0) (Szubert & Jaśkowski 2014): the network values the board just after a move,
//! before its new tile. A game is played greedily on `reward + value(afterstate)`; when it ends,
//! each afterstate's value is moved toward the reward of the next move plus the (just updated)
//! value of the next afterstate, from the last move back to the first, so the end of the game
//! reaches its beginning in one pass.
//!
//! Games follow the classic rules on the packed 4x4 engine: two starting tiles, then one new tile
//! a move, a 2 (90%) or a 4 (10%) in a random empty cell, drawn as `Rules::spawn_after` draws
//! them. Play with the network ([`crate::ai::LearnedPlayer`]) uses the game's own rules.

use super::ntuple::Network;
use crate::direction::Direction;
use crate::grid::Grid;
use crate::packed::Board4;
use crate::random::{below, chance};
use rand::Rng;

/// How one training game went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Outcome {
    /// The game's score (the classic one: the sum of the merged tiles).
    pub score: u64,
    /// Moves played.
    pub moves: u64,
    /// The largest tile's exponent at the end.
    pub max_exponent: u8,
}

/// A new tile in a random empty cell of `board`: a 2, or a 4 one time in ten. The board has an
/// empty cell.
fn spawn<R: Rng + ?Sized>(board: Board4, rng: &mut R) -> Board4 {
    let k = below(rng, board.empty_count());
    let (row, col) = board.nth_empty(k).expect("k is below the empty count");
    let exponent = if chance(rng, 0.1) { 2 } else { 1 };
    let mut next = board;
    next.set(row, col, exponent);
    next
}

/// A new game's board: two new tiles on an empty board.
fn new_board<R: Rng + ?Sized>(rng: &mut R) -> Board4 {
    spawn(spawn(Board4::default(), rng), rng)
}

/// The move `network` plays on `board`, greedily: the largest reward plus value of the
/// afterstate (ties go to the first in [`Direction::ALL`]), with that afterstate, its reward and
/// its value; `None` if no move changes the board.
#[inline]
pub fn greedy(network: &Network, board: Board4) -> Option<(Board4, u64, f32)> {
    // Every afterstate first, their weights fetched together, then valued: the reads of the
    // four overlap instead of waiting one after another.
    let mut moves = [(Board4::default(), 0u64); 4];
    let mut count = 0;
    for direction in Direction::ALL {
        if let Some(moved) = board.slide(direction) {
            network.prefetch(moved.0.bits());
            moves[count] = moved;
            count += 1;
        }
    }
    let mut best: Option<(Board4, u64, f32)> = None;
    for &(after, reward) in &moves[..count] {
        let value = network.value(after.bits());
        if best.is_none_or(|(_, r, v)| reward as f32 + value > r as f32 + v) {
            best = Some((after, reward, value));
        }
    }
    best
}

/// Plays one game with `network` and learns from it at rate `alpha` (each weight a board reads
/// moves by `alpha * error / 8`). `path` is scratch space, reused between games so that a
/// thread allocates once.
pub fn learn_game<R: Rng + ?Sized>(
    network: &Network,
    alpha: f32,
    rng: &mut R,
    path: &mut Vec<(u64, u64)>,
) -> Outcome {
    let start = new_board(rng);
    learn_game_from(network, alpha, start, rng, path)
}

/// [`learn_game`] from `start` instead of a new board: late-stage training starts its games
/// where earlier games first made a large tile, so that the weights of the late stages see as
/// many games as the first. The outcome counts the moves and points from `start` on.
pub fn learn_game_from<R: Rng + ?Sized>(
    network: &Network,
    alpha: f32,
    start: Board4,
    rng: &mut R,
    path: &mut Vec<(u64, u64)>,
) -> Outcome {
    path.clear();
    let mut board = start;
    let mut score = 0;
    while let Some((after, reward, _)) = greedy(network, board) {
        path.push((after.bits(), reward));
        score += reward;
        board = spawn(after, rng);
    }
    learn_from(network, alpha, path);
    Outcome {
        score,
        moves: path.len() as u64,
        max_exponent: board.max_exponent(),
    }
}

/// Plays a game greedily with `network`, without learning, from a new board until a tile of
/// `exponent` or more is on it: that board (its new tile placed), or `None` if the game ends
/// first. These are the start positions of late-stage training.
pub fn play_until<R: Rng + ?Sized>(network: &Network, exponent: u8, rng: &mut R) -> Option<Board4> {
    let mut board = new_board(rng);
    while board.max_exponent() < exponent {
        let (after, _, _) = greedy(network, board)?;
        board = spawn(after, rng);
    }
    Some(board)
}

/// The backward pass over one game's afterstates and the rewards of the moves that made them,
/// first move first: each value moves toward the next move's reward plus the next afterstate's
/// updated value, the last one toward 0 (the game ended after it).
pub fn learn_from(network: &Network, alpha: f32, path: &[(u64, u64)]) {
    // Invariant: `target` is what the afterstate being updated should be worth: the next move's
    // reward plus the next afterstate's updated value (0 after the last move).
    let mut target = 0.0f32;
    for (k, &(after, reward)) in path.iter().enumerate().rev() {
        // The next afterstate's weights arrive while this one is learned.
        if let Some(&(earlier, _)) = k.checked_sub(1).and_then(|j| path.get(j)) {
            network.prefetch(earlier);
        }
        target = reward as f32 + network.learn(after, target, alpha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::ntuple::{Stages, TupleSet};
    use crate::random::seeded;

    /// A board whose 16 features (2 row tuples x 8 images) read 16 different weights: every
    /// line holds different exponents.
    fn distinct(offset: u64) -> u64 {
        (0..16).fold(0, |bits, i| bits | (((i + offset) % 16) << (4 * i)))
    }

    #[test]
    #[allow(clippy::float_cmp)] // sums of binary fractions: exact
    fn the_td_update_on_a_tiny_network_moves_values_toward_their_targets() {
        let network = Network::new(TupleSet::Rows, Stages::single());
        let (a, b) = (distinct(0), distinct(5));
        // a, then b (made by a move worth 8), then the game ended.
        learn_from(&network, 0.25, &[(a, 0), (b, 8)]);
        // b's target is 0 and its value was 0: unchanged. a's target is 8 + 0: a step of
        // 0.25 * 8 = 2 moves each of its 16 weights by 2 / 8, its value by 4.
        assert_eq!(network.value(b), 0.0);
        assert_eq!(network.value(a), 4.0);
        // Again: b is still worth 0, so a's error is 8 - 4 and it moves by 2 more.
        learn_from(&network, 0.25, &[(a, 0), (b, 8)]);
        assert_eq!(network.value(a), 6.0);
        // Many passes converge on the target.
        for _ in 0..60 {
            learn_from(&network, 0.25, &[(a, 0), (b, 8)]);
        }
        assert!(
            (network.value(a) - 8.0).abs() < 1e-3,
            "{}",
            network.value(a)
        );
        // A value above its target comes down: the last afterstate is worth 0.
        network.adjust(b, 10.0);
        let high = network.value(b);
        learn_from(&network, 0.25, &[(b, 0)]);
        assert!(network.value(b) < high);
    }

    #[test]
    fn one_thread_and_a_seed_learn_the_same_network() {
        let train = || {
            let network = Network::new(TupleSet::Rows, Stages::single());
            let mut rng = seeded(11);
            let mut path = Vec::new();
            let outcomes: Vec<Outcome> = (0..20)
                .map(|_| learn_game(&network, 0.1, &mut rng, &mut path))
                .collect();
            (outcomes, network.to_bytes())
        };
        assert_eq!(train(), train());
    }

    #[test]
    fn late_stage_games_start_where_a_greedy_game_first_made_the_tile() {
        let network = Network::new(TupleSet::Rows, Stages::single());
        let mut rng = seeded(5);
        let mut path = Vec::new();
        for _ in 0..200 {
            learn_game(&network, 0.1, &mut rng, &mut path);
        }
        let values = network.to_bytes();
        let mut rng = seeded(9);
        let start = (0..100)
            .find_map(|_| play_until(&network, 6, &mut rng))
            .expect("a trained network makes a 64");
        // Its first 64: the largest tile is that 64.
        assert_eq!(start.max_exponent(), 6);
        // Playing without learning left the network alone.
        assert_eq!(network.to_bytes(), values);
        // A game from it counts its points from there, and its first afterstate is a move of it.
        let outcome = learn_game_from(&network, 0.1, start, &mut rng, &mut path);
        assert_eq!(
            outcome.score,
            path.iter().map(|&(_, reward)| reward).sum::<u64>()
        );
        assert!(outcome.max_exponent >= 6);
        let first = Board4::from_bits(path[0].0);
        assert!(
            Direction::ALL
                .iter()
                .any(|&d| start.slide(d).map(|m| m.0) == Some(first))
        );
        // A tile the network never makes: the game ends first.
        assert!(play_until(&network, 15, &mut rng).is_none());
    }

    #[test]
    fn greedy_takes_the_best_reward_plus_value() {
        let network = Network::new(TupleSet::Rows, Stages::single());
        // [2 2 4 0]: Left and Right merge the 2s (reward 4); on a zero network they tie, and
        // the first in Direction::ALL that merges wins over the moves that do not.
        let board = Board4::from_bits(0x0211);
        let (_, reward, value) = greedy(&network, board).unwrap();
        assert_eq!((reward, value), (4, 0.0));
        assert!(greedy(&network, Board4::default()).is_none());
    }
}
