//! Temporal-difference learning of an n-tuple [`Network`] by self-play (`power11 train`).
//!
//! Afterstate TD(λ) (Szubert & Jaśkowski 2014; the λ-return computed backward over the whole
//! game once it ends, as in Matsuzaki's backward temporal coherence learning): the network values the
//! board just after a move, before its new tile. A game is played greedily on
//! `reward + value(afterstate)`; when it ends, each afterstate's value is moved toward its
//! λ-return, from the last move back to the first, so the end of the game reaches its
//! beginning in one pass. With λ = 0 that target is the next move's reward plus the (just
//! updated) value of the next afterstate: TD(0). With [`Learning::rewind`], a game that ran
//! long is played again from its middle (Matsuzaki's restart strategy), so the late game, which
//! a game reaches once, is learned from as often as the early game.
//!
//! Games follow the classic rules on the packed 4x4 engine: two starting tiles, then one new tile
//! a move, a 2 (90%) or a 4 (10%) in a random empty cell, drawn as `Rules::spawn_after` draws
//! them. Play with the network ([`crate::players::LearnedPlayer`]) uses the game's own rules.

use super::ntuple::Network;
use crate::model::direction::Direction;
use crate::model::grid::Grid;
use crate::model::packed::Board4;
use crate::model::random::{below, chance};
use rand::Rng;

/// How a game is learned from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Learning {
    /// The learning rate: each weight a board reads moves by `rate * error / 8`.
    pub rate: f32,
    /// λ, 0 to 1: how far back each move's outcome is credited in one pass. Each afterstate
    /// moves toward `reward + λ * (the next afterstate's target) + (1 - λ) * (its value)`: 0 is
    /// TD(0), 1 the game's remaining score (Monte Carlo).
    pub lambda: f32,
    /// After a game of more than [`REWIND_MOVES`] moves, play and learn again from the board
    /// halfway through it (a new tile drawn anew), and so on from the middle of each replay
    /// until one is that short.
    pub rewind: bool,
    /// Early-stage training: a game (and each rewind) ends after the move that first makes a
    /// tile of this exponent or more; that afterstate is not learned, and its value is the
    /// rest of the game's ([`learn_from_tail`]), so the stages from that tile on never move
    /// when the tile starts one of the network's stages (`train` refuses any other).
    pub end_at: Option<u8>,
}

impl Learning {
    /// Plain afterstate TD(0) at `rate`, no rewinds.
    pub fn td0(rate: f32) -> Learning {
        Learning {
            rate,
            lambda: 0.0,
            rewind: false,
            end_at: None,
        }
    }
}

/// [`Learning::rewind`] plays games of more moves than this again from their middle.
pub const REWIND_MOVES: usize = 10;

/// How one training game went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Outcome {
    /// The game's score (the classic one: the sum of the merged tiles).
    pub score: u64,
    /// Moves played and learned from: the game's, and its rewinds'.
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

/// Plays one game with `network` and learns from it as `learning` says. `path` is scratch
/// space, reused between games so that a thread allocates once.
pub fn learn_game<R: Rng + ?Sized>(
    network: &Network,
    learning: Learning,
    rng: &mut R,
    path: &mut Vec<(u64, u64)>,
) -> Outcome {
    let start = new_board(rng);
    learn_game_from(network, learning, start, rng, path)
}

/// [`learn_game`] from `start` instead of a new board: late-stage training starts its games
/// where earlier games first made a large tile, so that the weights of the late stages see as
/// many games as the first. The outcome's score and largest tile are the game's from `start`
/// on (a rewind is not a new game); its moves count the rewinds' too.
pub fn learn_game_from<R: Rng + ?Sized>(
    network: &Network,
    learning: Learning,
    start: Board4,
    rng: &mut R,
    path: &mut Vec<(u64, u64)>,
) -> Outcome {
    let mut outcome = play_and_learn(network, learning, start, rng, path);
    if learning.rewind {
        // Invariant: `path` holds the afterstates of the last game played, from its start.
        while path.len() > REWIND_MOVES {
            let again = play_and_learn(network, learning, spawn(middle(path), rng), rng, path);
            outcome.moves += again.moves;
        }
    }
    outcome
}

/// The afterstate halfway through a game's `path` (of its afterstates and rewards), where a
/// rewind starts again: the later one of the two middle ones when the game has an even number
/// of moves.
fn middle(path: &[(u64, u64)]) -> Board4 {
    Board4::from_bits(path[path.len() / 2].0)
}

/// Plays one game greedily from `start`, recording its afterstates and rewards in `path`, then
/// learns from them.
fn play_and_learn<R: Rng + ?Sized>(
    network: &Network,
    learning: Learning,
    start: Board4,
    rng: &mut R,
    path: &mut Vec<(u64, u64)>,
) -> Outcome {
    path.clear();
    let mut board = start;
    let mut score = 0;
    // The λ-return beyond the last afterstate in `path`: 0 when the game ended there.
    let mut tail = 0.0;
    while let Some((after, reward, value)) = greedy(network, board) {
        score += reward;
        if learning
            .end_at
            .is_some_and(|end| after.max_exponent() >= end)
        {
            // Its afterstate's target would be its own value: its reward and value are the
            // return of the move before it, and the afterstate itself is left as it is.
            tail = reward as f32 + value;
            board = after;
            break;
        }
        path.push((after.bits(), reward));
        board = spawn(after, rng);
    }
    learn_from_tail(network, learning, path, tail);
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
/// first move first: each value moves toward its λ-return, the last one toward 0 (the game
/// ended after it). With λ = 0 the target is the next move's reward plus the next afterstate's
/// updated value, exactly (`0 * x` and `1 * x` are exact in floating point).
pub fn learn_from(network: &Network, learning: Learning, path: &[(u64, u64)]) {
    learn_from_tail(network, learning, path, 0.0);
}

/// [`learn_from`] a game that goes on after `path` (early-stage training ends it at a tile):
/// `tail` is the λ-return of the last afterstate in `path`, the next move's reward plus the
/// value of the board it made, which is not learned.
pub fn learn_from_tail(network: &Network, learning: Learning, path: &[(u64, u64)], tail: f32) {
    let lambda = learning.lambda;
    // Invariant: `target` is the λ-return of the afterstate being updated: the next move's
    // reward, plus λ times the next afterstate's own target and 1 - λ times its updated value
    // (`tail` after the last afterstate in `path`).
    let mut target = tail;
    for (k, &(after, reward)) in path.iter().enumerate().rev() {
        // The next afterstate's weights arrive while this one is learned.
        if let Some(&(earlier, _)) = k.checked_sub(1).and_then(|j| path.get(j)) {
            network.prefetch_for_learning(earlier);
        }
        let value = network.learn(after, target, learning.rate);
        target = reward as f32 + lambda * target + (1.0 - lambda) * value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::ntuple::{Stages, TupleSet, max_exponent};
    use crate::model::random::seeded;

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
        learn_from(&network, Learning::td0(0.25), &[(a, 0), (b, 8)]);
        // b's target is 0 and its value was 0: unchanged. a's target is 8 + 0: a step of
        // 0.25 * 8 = 2 moves each of its 16 weights by 2 / 8, its value by 4.
        assert_eq!(network.value(b), 0.0);
        assert_eq!(network.value(a), 4.0);
        // Again: b is still worth 0, so a's error is 8 - 4 and it moves by 2 more.
        learn_from(&network, Learning::td0(0.25), &[(a, 0), (b, 8)]);
        assert_eq!(network.value(a), 6.0);
        // Many passes converge on the target.
        for _ in 0..60 {
            learn_from(&network, Learning::td0(0.25), &[(a, 0), (b, 8)]);
        }
        assert!(
            (network.value(a) - 8.0).abs() < 1e-3,
            "{}",
            network.value(a)
        );
        // A value above its target comes down: the last afterstate is worth 0.
        network.adjust(b, 10.0);
        let high = network.value(b);
        learn_from(&network, Learning::td0(0.25), &[(b, 0)]);
        assert!(network.value(b) < high);
    }

    #[test]
    #[allow(clippy::float_cmp)] // sums of binary fractions: exact
    fn lambda_credits_a_move_with_the_rewards_that_came_after_the_next_one() {
        // a, b (made by a move worth 8), c (made by a move worth 4), then the game ended. Each
        // update moves a value by half its error (16 weights, each by 0.25 * error / 8).
        let (a, b, c) = (distinct(0), distinct(5), distinct(10));
        let first_value_of_a = |lambda: f32| {
            let network = Network::new(TupleSet::Rows, Stages::single());
            let learning = Learning {
                lambda,
                ..Learning::td0(0.25)
            };
            learn_from(&network, learning, &[(a, 0), (b, 8), (c, 4)]);
            // c's target is 0: it stays 0. b's target is 4: it becomes 2.
            assert_eq!((network.value(c), network.value(b)), (0.0, 2.0));
            network.value(a)
        };
        // a's target: 8 + λ * 4 + (1 - λ) * 2 (b's target and its new value); half of it.
        assert_eq!(first_value_of_a(0.0), 5.0);
        assert_eq!(first_value_of_a(0.5), 5.5);
        assert_eq!(first_value_of_a(1.0), 6.0);
    }

    #[test]
    #[allow(clippy::float_cmp)] // sums of binary fractions: exact
    fn a_game_ended_at_a_tile_learns_toward_the_value_of_the_rest() {
        let network = Network::new(TupleSet::Rows, Stages::single());
        let (a, b) = (distinct(0), distinct(5));
        // b, the last afterstate kept, is followed by a move worth 4 to a board worth 12:
        // its target is 16, and half its error is learned.
        learn_from_tail(&network, Learning::td0(0.25), &[(a, 0), (b, 8)], 16.0);
        assert_eq!(network.value(b), 8.0);
        // a's target is b's reward and b's new value.
        assert_eq!(network.value(a), 8.0);
    }

    #[test]
    fn a_game_ended_at_a_tile_is_worth_the_value_of_the_board_it_ended_on() {
        // Every board is worth 1000 in both stages: each target is a reward plus a value of
        // 1000, so no value falls. Were the board a game ends on worth nothing (a game lost
        // there), the last afterstate of every game would fall toward its reward.
        let network = Network::with_initial_value(TupleSet::Rows, Stages::single(), 1000.0)
            .split(Stages::split_at(&[5]).unwrap())
            .unwrap();
        let mut rng = seeded(5);
        let mut path = Vec::new();
        let learning = Learning {
            end_at: Some(5),
            ..Learning::td0(0.1)
        };
        let mut ended = 0;
        for _ in 0..30 {
            let outcome = learn_game(&network, learning, &mut rng, &mut path);
            if outcome.max_exponent == 5 {
                ended += 1;
                let &(last, _) = path.last().unwrap();
                assert!(network.value(last) > 990.0, "{}", network.value(last));
            }
        }
        assert!(ended > 0, "no game made a 32");
    }

    #[test]
    fn a_game_with_an_end_stops_at_its_tile_and_never_learns_past_it() {
        let network = Network::new(TupleSet::Rows, Stages::single());
        let mut rng = seeded(3);
        let mut path = Vec::new();
        let learning = Learning {
            end_at: Some(5),
            ..Learning::td0(0.1)
        };
        for _ in 0..50 {
            let outcome = learn_game(&network, learning, &mut rng, &mut path);
            assert!(outcome.max_exponent <= 5, "{outcome:?}");
            assert!(path.iter().all(|&(after, _)| max_exponent(after) < 5));
        }
        let ended = (0..50)
            .filter(|_| learn_game(&network, learning, &mut rng, &mut path).max_exponent == 5)
            .count();
        assert!(ended > 0, "no game made a 32");
    }

    #[test]
    fn a_rewind_plays_the_game_again_from_its_middle_and_keeps_the_first_games_score() {
        let play = |rewind: bool| {
            let network = Network::new(TupleSet::Rows, Stages::single());
            let mut rng = seeded(3);
            let mut path = Vec::new();
            let learning = Learning {
                rewind,
                ..Learning::td0(0.1)
            };
            let outcome = learn_game(&network, learning, &mut rng, &mut path);
            (outcome, path.len(), network.to_bytes())
        };
        let (plain, plain_path, plain_weights) = play(false);
        let (rewound, last_path, rewound_weights) = play(true);
        // The first game is the same game: its score and largest tile are the outcome's.
        assert!(plain.moves as usize > REWIND_MOVES);
        assert_eq!(plain_path, plain.moves as usize);
        assert_eq!(
            (rewound.score, rewound.max_exponent),
            (plain.score, plain.max_exponent)
        );
        // Its replays add their moves and their learning, and the last one was short.
        assert!(rewound.moves > plain.moves, "{rewound:?} / {plain:?}");
        assert!(last_path <= REWIND_MOVES);
        assert_ne!(rewound_weights, plain_weights);
    }

    #[test]
    fn a_rewind_starts_from_the_afterstate_halfway_through_the_game() {
        let path: Vec<(u64, u64)> = (1..=11).map(|k| (k, 0)).collect();
        assert_eq!(middle(&path).bits(), 6);
        assert_eq!(middle(&path[..10]).bits(), 6);
        assert_eq!(middle(&path[..1]).bits(), 1);
    }

    #[test]
    fn one_thread_and_a_seed_learn_the_same_network() {
        let train = || {
            let network = Network::new(TupleSet::Rows, Stages::single());
            let mut rng = seeded(11);
            let mut path = Vec::new();
            let outcomes: Vec<Outcome> = (0..20)
                .map(|_| learn_game(&network, Learning::td0(0.1), &mut rng, &mut path))
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
            learn_game(&network, Learning::td0(0.1), &mut rng, &mut path);
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
        let outcome = learn_game_from(&network, Learning::td0(0.1), start, &mut rng, &mut path);
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
