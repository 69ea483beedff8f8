//! The learned player: expectimax over an n-tuple [`Network`]'s values of afterstates
//! (`--player learned`), to a fixed depth or as deep as its depth policy says.
//!
//! Depth 1 plays greedily on reward + value of the afterstate, as training does; each further
//! level averages over the new tiles the game's rules can spawn (leaning toward the worst one in
//! games that end at their goal: [`super::chance`]) and takes the best move after each. Rewards are merge points, the currency the network was trained in, whatever the game
//! scores. The network knows 4x4 boards only; it reads tiles of 32768 and more as 32768, and
//! its search does not see two 32768s merge (a packed board's limit), which only matters past a
//! 32768.

use super::chance;
use super::expectimax::Advice;
use super::{Expectimax, Player, SearchConfig};
use crate::learning::ntuple::Network;
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::grid::Grid;
use crate::model::packed::Board4;
use crate::model::rules::{Rules, SpawnSite};
use rand::Rng;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// The deepest the learned player searches (`--depth`): each level multiplies the time of a
/// move by the number of new tiles the rules can place and the moves after each (tens early
/// in a game), and depth 4 already takes tens of milliseconds a move on open boards.
pub const MAX_LEARNED_DEPTH: u32 = 4;

/// The depth the learned player's policy searches an open board at: 2, the prototype's "2-ply"
/// (a move, the new tile, a move), which plays far better than greedy play for a few
/// hundredths of a millisecond a move.
pub const DEFAULT_LEARNED_DEPTH: u32 = 2;

/// The depth the policy searches open boards at in games that do not end at their goal
/// (classic keep-playing, or no goal): 3. Those games go on for ten thousand moves and more,
/// toward tiles a shallower search loses, and their target allows 2 ms a move: with one move
/// more on boards with at most [`KEEP_PLAYING_CROWDED_EMPTY_CELLS`] empty cells, the shipped
/// network plays at 0.39 ms a move and made 16384 in 86.7% and 32768 in 38.0% of 300 games
/// (measurements/learned.md). Games that end at their goal (Power-11 Hard) are won at
/// [`DEFAULT_LEARNED_DEPTH`] in about a tenth of a millisecond and keep it.
pub const KEEP_PLAYING_LEARNED_DEPTH: u32 = 3;

/// Boards with at most this many empty cells are searched one move deeper than open ones by
/// the depth policy in games that end at their goal: they are lost on crowded boards, and
/// there the search branches little, so the extra move costs little (a tenth of a millisecond;
/// on at most 1 empty cell only, 14 more of 10,000 Hard games were lost). Changing it changes
/// the moves of recorded runs: raise [`super::SEARCH_REVISION`] with it.
pub const CROWDED_EMPTY_CELLS: usize = 3;

/// [`CROWDED_EMPTY_CELLS`] in games that do not end at their goal: 1. Their open boards are
/// already searched 3 moves deep, and a fourth on boards with 2 or 3 empty cells took three
/// quarters of the time of a move (1.53 ms a move where this takes 0.39, over 300 classic
/// games) for little strength (16384 in 89.7% of them against 86.7%; measurements/learned.md). Raise [`super::SEARCH_REVISION`] with it too.
pub const KEEP_PLAYING_CROWDED_EMPTY_CELLS: usize = 1;

/// A network loaded the first time a move is asked of it: a session that never asks for
/// advice or a computer move never pays for reading one (hundreds of MiB once read).
pub struct LazyNetwork {
    network: OnceLock<Arc<Network>>,
    load: Box<dyn Fn() -> (Arc<Network>, Option<String>) + Send + Sync>,
    /// What loading had to say (a weight file passed over), until a front end takes it.
    note: Mutex<Option<String>>,
}

impl LazyNetwork {
    /// A network that `load` makes when it is first needed (once, whatever the threads), with
    /// a note for the player if it has one: the front end shows it where its player looks
    /// ([`LazyNetwork::take_note`]), since the full screen would wipe a line on stderr.
    pub fn new(
        load: impl Fn() -> (Arc<Network>, Option<String>) + Send + Sync + 'static,
    ) -> LazyNetwork {
        LazyNetwork {
            network: OnceLock::new(),
            load: Box::new(load),
            note: Mutex::new(None),
        }
    }

    /// A network already loaded.
    pub fn loaded(network: Arc<Network>) -> LazyNetwork {
        LazyNetwork {
            network: OnceLock::from(network),
            load: Box::new(unreachable_network),
            note: Mutex::new(None),
        }
    }

    /// The network, loaded now if it was not yet.
    pub fn get(&self) -> &Arc<Network> {
        self.network.get_or_init(|| {
            let (network, note) = (self.load)();
            *self.note.lock().unwrap_or_else(PoisonError::into_inner) = note;
            network
        })
    }

    /// Whether the network has been read.
    pub fn is_loaded(&self) -> bool {
        self.network.get().is_some()
    }

    /// The note loading left, once.
    pub fn take_note(&self) -> Option<String> {
        self.note
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// What [`LazyNetwork::loaded`] would load: never called, as its network is set from the start.
fn unreachable_network() -> (Arc<Network>, Option<String>) {
    let network = Network::new(
        crate::learning::ntuple::TupleSet::Rows,
        crate::learning::ntuple::Stages::single(),
    );
    (Arc::new(network), None)
}

impl std::fmt::Debug for LazyNetwork {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.network.get() {
            Some(network) => f.debug_tuple("LazyNetwork").field(network).finish(),
            None => f.write_str("LazyNetwork(not loaded yet)"),
        }
    }
}

/// The learned player.
#[derive(Clone, Debug)]
pub struct LearnedPlayer {
    network: Arc<LazyNetwork>,
    /// A fixed depth, or `None` for the depth policy ([`LearnedPlayer::depth_for`]).
    depth: Option<u32>,
    /// The player of boards that are not 4x4 (a 5x5 game chosen at the menu).
    fallback: Expectimax,
}

impl LearnedPlayer {
    /// A player searching `depth` moves deep (1 = greedy) with `network`, or as deep as the
    /// depth policy says when `depth` is `None`.
    pub fn new(network: Arc<Network>, depth: Option<u32>) -> LearnedPlayer {
        LearnedPlayer::lazy(Arc::new(LazyNetwork::loaded(network)), depth)
    }

    /// [`LearnedPlayer::new`] with a network loaded when its first move is asked for.
    pub fn lazy(network: Arc<LazyNetwork>, depth: Option<u32>) -> LearnedPlayer {
        LearnedPlayer {
            network,
            depth: depth.map(|d| d.clamp(1, MAX_LEARNED_DEPTH)),
            fallback: Expectimax::new(SearchConfig::default()),
        }
    }

    /// Whether its network has been read (its first move answers at once).
    pub fn is_loaded(&self) -> bool {
        self.network.is_loaded()
    }

    /// Reads its network now, if it was not yet (once, whatever the threads).
    pub fn load(&self) {
        self.network.get();
    }

    /// What loading its network had to say, once ([`LazyNetwork::take_note`]).
    pub fn take_note(&self) -> Option<String> {
        self.network.take_note()
    }

    /// The fixed depth it searches, or `None` if it follows the depth policy.
    pub fn depth(&self) -> Option<u32> {
        self.depth
    }

    /// How deep it searches a board with `empty` empty cells under `rules`: the fixed depth, or
    /// the policy's ([`DEFAULT_LEARNED_DEPTH`] in games that end at their goal, else
    /// [`KEEP_PLAYING_LEARNED_DEPTH`]), one more on crowded boards ([`CROWDED_EMPTY_CELLS`],
    /// [`KEEP_PLAYING_CROWDED_EMPTY_CELLS`]).
    pub fn depth_for(&self, empty: usize, rules: &Rules) -> u32 {
        let (open, crowded) = if rules.ends_at_goal() {
            (DEFAULT_LEARNED_DEPTH, CROWDED_EMPTY_CELLS)
        } else {
            (KEEP_PLAYING_LEARNED_DEPTH, KEEP_PLAYING_CROWDED_EMPTY_CELLS)
        };
        self.depth.unwrap_or(open + u32::from(empty <= crowded))
    }

    /// Which move is best on `grid` and why; `None` if no move changes it. Boards that are not
    /// 4x4 get the hand-tuned search's advice.
    pub fn advise<G: Grid>(&self, grid: &G, rules: &Rules) -> Option<Advice> {
        if grid.size() != 4 {
            return self.fallback.advise(grid, rules);
        }
        // Every 4x4 board fits the network's bits; tiles past 32768 read as 32768.
        let keys = grid.line_keys(false);
        let bits = (0..4).fold(0u64, |bits, r| bits | ((keys[r] as u64) << (16 * r)));
        let board = Board4::from_bits(bits);
        let goal_pending = rules.goal().is_some() && !rules.goal_reached(grid);
        let depth = self.depth_for(board.empty_count(), rules);
        let mut search = Search {
            network: self.network.get(),
            rules,
            lean: chance::lean(rules),
            cache: FxHashMap::default(),
            caches: depth >= 3,
        };
        let mut ranked: Vec<(Direction, f32, bool)> = Vec::with_capacity(4);
        for direction in Direction::ALL {
            let Some(next) = grid.moved(direction) else {
                continue;
            };
            if goal_pending && rules.goal_reached(&next) {
                ranked.push((direction, f32::INFINITY, true));
                continue;
            }
            let value = match board.slide(direction) {
                Some((after, reward)) => {
                    reward as f32 + search.after_value(after, direction, depth)
                }
                // The plain board moves but the packed one does not: two 32768s merge. Worth
                // a 65536's points and the rest of the game on a board like this one.
                None => 65536.0 + self.network.get().value(bits),
            };
            ranked.push((direction, value, false));
        }
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let (direction, value, wins) = *ranked.first()?;
        Some(Advice {
            direction,
            value,
            runner_up: ranked.get(1).map(|&(d, v, _)| (d, v)),
            wins,
            depth,
        })
    }

    /// [`LearnedPlayer::advise`] on a plain board (other sizes searched on a packed engine).
    pub fn advise_board(&self, board: &Board, rules: &Rules) -> Option<Advice> {
        if board.size() != 4 {
            return self.fallback.advise_board(board, rules);
        }
        self.advise(board, rules)
    }
}

/// One decision's search.
struct Search<'a> {
    network: &'a Network,
    rules: &'a Rules,
    /// How far chance nodes lean toward their worst outcome ([`chance::lean`]).
    lean: f32,
    /// Values of afterstates by board and depth, for the positions that several lines reach
    /// (a 2 then a 4 placed in either order): kept only by searches of depth 3 and more, where
    /// they repeat often enough to pay for the lookups. The leaves (depth 1) are kept too: a
    /// network's value reads 32 weights at random from hundreds of megabytes, which costs more
    /// than a lookup here (keeping them saved about a sixth of a depth-4 search's time, measured).
    cache: FxHashMap<(u64, u32), f32>,
    caches: bool,
}

impl Search<'_> {
    /// The value of `after` (the board just after a move toward `moved`) searched `depth` moves
    /// deep: the network's at depth 1, else the average over the rules' new tiles of the best
    /// move after each, leaning toward the worst of them in games that end at their goal
    /// ([`chance::chance_value`]).
    fn after_value(&mut self, after: Board4, moved: Direction, depth: u32) -> f32 {
        if depth <= 1 {
            if !self.caches {
                return self.network.value(after.bits());
            }
            let network = self.network;
            return *self
                .cache
                .entry((after.bits(), 1))
                .or_insert_with(|| network.value(after.bits()));
        }
        match self.rules.spawn_site(&after, moved) {
            SpawnSite::Nowhere => self.best_value(after, depth - 1),
            SpawnSite::Cell { row, col, exponent } => {
                let mut next = after;
                next.set(row, col, exponent);
                self.best_value(next, depth - 1)
            }
            // The one kind of chance node whose outcomes depend on the board alone (not on the
            // move that made it), so its value can be cached by board.
            SpawnSite::AnyEmpty(tile) => {
                let key = (after.bits(), depth);
                if self.caches
                    && let Some(&value) = self.cache.get(&key)
                {
                    return value;
                }
                let empty = after.empty_count();
                let value = if empty == 0 {
                    self.best_value(after, depth - 1)
                } else {
                    let (mut total, mut worst) = (0.0, f32::INFINITY);
                    for (r, c) in after.empty_cells() {
                        for &(chance, exponent) in tile.outcomes() {
                            let mut next = after;
                            next.set(r, c, exponent);
                            let value = self.best_value(next, depth - 1);
                            worst = worst.min(value);
                            total += chance * value;
                        }
                    }
                    chance::chance_value(total / empty as f32, worst, self.lean)
                };
                if self.caches {
                    self.cache.insert(key, value);
                }
                value
            }
        }
    }

    /// The best reward plus searched value over the moves from `board`; 0 if no move is left
    /// (a lost game is worth what the last afterstate of a training game is taught: nothing).
    fn best_value(&mut self, board: Board4, depth: u32) -> f32 {
        let mut best = f32::NEG_INFINITY;
        for direction in Direction::ALL {
            if let Some((after, reward)) = board.slide(direction) {
                best = best.max(reward as f32 + self.after_value(after, direction, depth));
            }
        }
        if best == f32::NEG_INFINITY { 0.0 } else { best }
    }
}

impl Player for LearnedPlayer {
    fn name(&self) -> &'static str {
        "learned"
    }

    fn choose<G: Grid, R: Rng + ?Sized>(
        &mut self,
        grid: &G,
        rules: &Rules,
        _: &mut R,
    ) -> Direction {
        self.advise(grid, rules)
            .map_or(Direction::Up, |advice| advice.direction)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::ntuple::{Stages, TupleSet};
    use crate::learning::td::{Learning, learn_game};
    use crate::model::random::seeded;
    use crate::model::rules::NewTile;

    fn trained() -> Arc<Network> {
        let network = Network::new(TupleSet::Rows, Stages::single());
        let mut rng = seeded(5);
        let mut path = Vec::new();
        for _ in 0..300 {
            learn_game(&network, Learning::td0(0.1), &mut rng, &mut path);
        }
        Arc::new(network)
    }

    #[test]
    fn depth_one_is_the_greedy_move_of_training() {
        let network = trained();
        let player = LearnedPlayer::new(Arc::clone(&network), Some(1));
        let rules = Rules::classic();
        let mut rng = seeded(9);
        let mut board = Board4::default();
        board.set(0, 0, 1);
        board.set(2, 3, 2);
        for _ in 0..50 {
            let Some((after, _, _)) = crate::learning::td::greedy(&network, board) else {
                break;
            };
            let advice = player.advise(&board, &rules).unwrap();
            assert_eq!(board.slide(advice.direction).unwrap().0, after);
            let (r, c) = after
                .nth_empty(crate::model::random::below(&mut rng, after.empty_count()))
                .unwrap();
            board = after;
            board.set(r, c, 1);
        }
    }

    #[test]
    fn the_depth_policy_looks_one_move_further_on_crowded_boards() {
        let policy = LearnedPlayer::new(trained(), None);
        // The advice says how deep it looked, and a crowded board's is the deeper search's.
        let open_board = Board::from_values(&[
            vec![2, 4, 8, 16],
            vec![0, 2, 0, 4],
            vec![0, 0, 2, 0],
            vec![0, 0, 0, 2],
        ])
        .unwrap();
        // Crowded by either policy's measure: one empty cell.
        let crowded = Board::from_values(&[
            vec![2, 4, 8, 16],
            vec![4, 8, 16, 32],
            vec![8, 16, 32, 64],
            vec![2, 4, 2, 0],
        ])
        .unwrap();
        // A fixed depth is kept on every board.
        let fixed = LearnedPlayer::new(trained(), Some(1));
        for (rules, open, crowded_cells) in [
            (
                Rules::power11(4).unwrap(),
                DEFAULT_LEARNED_DEPTH,
                CROWDED_EMPTY_CELLS,
            ),
            (
                Rules::classic(),
                KEEP_PLAYING_LEARNED_DEPTH,
                KEEP_PLAYING_CROWDED_EMPTY_CELLS,
            ),
        ] {
            assert_eq!(policy.depth_for(16, &rules), open);
            assert_eq!(policy.depth_for(crowded_cells + 1, &rules), open);
            assert_eq!(policy.depth_for(crowded_cells, &rules), open + 1);
            assert_eq!(policy.depth_for(0, &rules), open + 1);
            assert_eq!(fixed.depth_for(0, &rules), 1);
            assert_eq!(fixed.depth_for(16, &rules), 1);
            assert_eq!(
                policy.advise_board(&open_board, &rules).unwrap().depth,
                open
            );
            let deep = policy.advise_board(&crowded, &rules).unwrap();
            assert_eq!(deep.depth, open + 1);
            let deeper = LearnedPlayer::new(trained(), Some(open + 1));
            assert_eq!(Some(deep), deeper.advise_board(&crowded, &rules));
        }
    }

    #[test]
    fn it_takes_the_goal_when_a_move_makes_it() {
        let player = LearnedPlayer::new(trained(), Some(2));
        let rules = Rules::power11(4).unwrap();
        let board = Board::from_values(&[
            vec![1024, 1024, 0, 0],
            vec![0, 0, 0, 0],
            vec![0, 0, 0, 2],
            vec![0, 0, 0, 0],
        ])
        .unwrap();
        let advice = player.advise_board(&board, &rules).unwrap();
        assert!(advice.wins);
        assert!(matches!(
            advice.direction,
            Direction::Left | Direction::Right
        ));
    }

    #[test]
    fn plain_boards_and_packed_boards_get_the_same_advice() {
        let player = LearnedPlayer::new(trained(), Some(2));
        let rules = Rules::classic();
        let board = Board::from_values(&[
            vec![2, 4, 8, 16],
            vec![0, 2, 0, 4],
            vec![0, 0, 2, 0],
            vec![0, 0, 0, 2],
        ])
        .unwrap();
        let packed = Board4::from_board(&board).unwrap();
        assert_eq!(
            player.advise(&board, &rules),
            player.advise(&packed, &rules)
        );
    }

    /// Random 4x4 boards of 8 small tiles.
    fn random_boards(seed: u64, count: usize) -> Vec<Board4> {
        let mut rng = seeded(seed);
        (0..count)
            .map(|_| {
                let mut board = Board4::default();
                for _ in 0..8 {
                    let k = crate::model::random::below(&mut rng, board.empty_count());
                    let (r, c) = board.nth_empty(k).unwrap();
                    board.set(r, c, 1 + crate::model::random::below(&mut rng, 5) as u8);
                }
                board
            })
            .collect()
    }

    fn search<'a>(network: &'a Network, rules: &'a Rules, caches: bool) -> Search<'a> {
        Search {
            network,
            rules,
            lean: chance::lean(rules),
            cache: FxHashMap::default(),
            caches,
        }
    }

    #[test]
    fn a_chance_node_leans_toward_its_worst_tile_only_in_games_that_end_at_the_goal() {
        let network = trained();
        for rules in [Rules::classic(), Rules::power11(4).unwrap()] {
            let lean = chance::lean(&rules);
            let mut leaned = 0;
            for board in random_boards(13, 20) {
                for direction in Direction::ALL {
                    let Some((after, _)) = board.slide(direction) else {
                        continue;
                    };
                    let mut search = search(&network, &rules, false);
                    // Each new tile's value, in the order the search adds them up.
                    let mut values = Vec::new();
                    for (r, c) in after.empty_cells() {
                        for &(p, exponent) in NewTile::TwoOrFour.outcomes() {
                            let mut next = after;
                            next.set(r, c, exponent);
                            values.push((p, search.best_value(next, 1)));
                        }
                    }
                    let mean = values.iter().map(|&(p, v)| p * v).sum::<f32>()
                        / after.empty_count() as f32;
                    let worst = values.iter().map(|&(_, v)| v).fold(f32::INFINITY, f32::min);
                    let value = search.after_value(after, direction, 2);
                    // The shared rule on the search's own sums, to the bit: the plain
                    // mean where the game keeps playing.
                    let expected = chance::chance_value(mean, worst, lean);
                    assert_eq!(value.to_bits(), expected.to_bits(), "{value} {expected}");
                    if lean == 0.0 {
                        assert_eq!(value.to_bits(), mean.to_bits(), "the mean exactly");
                    } else if worst < mean - 1.0 {
                        assert!(value < mean, "{value} {mean} {worst}");
                        leaned += 1;
                    }
                }
            }
            assert!(
                lean == 0.0 || leaned > 10,
                "some nodes have a worse tile: {leaned}"
            );
        }
    }

    #[test]
    fn the_cache_of_deep_searches_changes_no_value() {
        let network = trained();
        for rules in [Rules::classic(), Rules::power11(4).unwrap()] {
            for board in random_boards(12, 20) {
                for direction in Direction::ALL {
                    let Some((after, _)) = board.slide(direction) else {
                        continue;
                    };
                    let value =
                        |caches| search(&network, &rules, caches).after_value(after, direction, 3);
                    assert_eq!(value(true).to_bits(), value(false).to_bits());
                }
            }
        }
    }

    #[test]
    fn other_sizes_get_the_hand_tuned_search() {
        let player = LearnedPlayer::new(trained(), Some(2));
        let rules = Rules::power11(5).unwrap();
        let board = Board::from_values(&[
            vec![2, 0, 0, 0, 0],
            vec![0, 0, 0, 0, 0],
            vec![0, 0, 4, 0, 0],
            vec![0, 0, 0, 0, 0],
            vec![0, 0, 0, 0, 2],
        ])
        .unwrap();
        assert_eq!(
            player.advise_board(&board, &rules),
            Expectimax::default().advise_board(&board, &rules)
        );
    }
}
