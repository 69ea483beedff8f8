//! The search player: expectimax over the player's moves and the new tiles.
//!
//! Max nodes try every move that changes the board; chance nodes average over where the new tile
//! can appear as the rules say (2 at 90% / 4 at 10%, only 2s, a fixed edge cell, or none),
//! leaning toward the worst new tile in games that end at their goal ([`super::chance`]).
//! Branches whose probability falls below a cutoff are evaluated by the heuristic instead of
//! searched, chance nodes are cached in a transposition table, and the depth grows as the board
//! fills up.

use super::Player;
use super::chance;
use super::heuristic::Evaluator;
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::grid::{Grid, OnGrid};
use crate::model::packed::on_fastest;
use crate::model::rules::{Rules, Spawn, SpawnSite};
use rand::Rng;
use rustc_hash::FxHashMap;
use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    /// How many chance nodes the last search on this thread cached: the next one (a move
    /// later, a similar position) starts with room for as many instead of growing its table
    /// step by step. Only the allocation is reused, never a value: each decision starts empty.
    static LAST_CACHE_LEN: Cell<usize> = const { Cell::new(0) };
}

/// How hard the search tries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// A fixed depth (player moves looked ahead), or `None` to adapt it to the position.
    pub depth: Option<u32>,
    /// Branches less likely than this are evaluated, not searched.
    pub min_probability: f32,
    /// A time budget per decision: after the search at the usual depth, search one move
    /// deeper at a time while the budget lasts (a search cut short is thrown away). Moves
    /// then depend on the machine's speed, so `None` (the default) keeps games reproducible.
    /// Ignored when `depth` is fixed.
    pub time_budget: Option<Duration>,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            depth: None,
            min_probability: 1e-4,
            time_budget: None,
        }
    }
}

/// The deepest a fixed depth (`--depth`) may be.
pub const MAX_FIXED_DEPTH: u32 = 8;

/// The largest time budget per move (`--ms-per-move`), in milliseconds.
pub const MAX_BUDGET_MS: u64 = 60_000;

/// Which decisions the search makes: raised with every deliberate change of a move it picks
/// (the depth policy, the evaluation, the search), so that bench reports of games played by
/// different searches are never merged. `tests/integration/search.rs` ties it to the recorded
/// games: re-recording them without raising it fails. 0 is every search before it existed;
/// 2 leans chance nodes toward their worst outcome in games that end at their goal
/// ([`super::chance`]), for this search and the learned player's; 3 searches small trees one
/// move deeper on 4x4 boards in games that end at their goal ([`Expectimax::small_tree`]);
/// 4 raises the size of tree it deepens from 500 to 750 chance nodes ([`SMALL_TREE`]); 5 has
/// the learned player search games that do not end at their goal one move deeper
/// ([`super::KEEP_PLAYING_LEARNED_DEPTH`]); 6 has it search those games' boards a move
/// deeper than that only when at most 1 cell is empty, not 3
/// ([`super::KEEP_PLAYING_CROWDED_EMPTY_CELLS`]).
pub const SEARCH_REVISION: u32 = 6;

/// The largest search tree, in chance nodes, that [`Expectimax::small_tree`] searches again one
/// move deeper. A move deeper costs several times the last search, so this bounds the extra
/// work. It is chosen for Power-11 Hard's goal of 3 ms/move: Power-11 Hard took 2.19 ms/move
/// without the rule, 2.70 at 500 and 3.14 at 1000 (seed 1, 1000 games), and 750 was chosen
/// before its run as the largest size, in steps of 250, whose cost read between those keeps a
/// margin under 3 ms (measurements/search.md, "Small trees searched deeper", has what it
/// measured).
pub const SMALL_TREE: usize = 750;

/// The deepest a time budget (or a small tree) lets the search go: past this, the probability
/// cutoff has pruned almost every line anyway.
pub const MAX_BUDGET_DEPTH: u32 = 12;

/// How many max nodes the search visits between two looks at the clock.
const NODES_PER_CLOCK_CHECK: u32 = 1024;

/// What the search thinks of the best move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Advice {
    /// The move.
    pub direction: Direction,
    /// Its searched evaluation: expected over the new tiles, leaning toward the worst one in
    /// games that end at their goal (higher is better; 0 means every line loses).
    pub value: f32,
    /// The next best move and its value, if another move changes the board.
    pub runner_up: Option<(Direction, f32)>,
    /// True if the move reaches the goal tile right now.
    pub wins: bool,
    /// How deep the search looked.
    pub depth: u32,
}

/// The expectimax player.
#[derive(Clone, Debug, Default)]
pub struct Expectimax {
    config: SearchConfig,
}

impl Expectimax {
    /// A player with the given configuration.
    pub fn new(config: SearchConfig) -> Expectimax {
        Expectimax { config }
    }

    /// The depth the search uses on `grid`: deeper as the tiles diversify, bounded by size.
    pub fn depth_for<G: Grid>(&self, grid: &G) -> u32 {
        if let Some(depth) = self.config.depth {
            return depth.max(1);
        }
        let n = grid.size();
        let mut seen = [false; 256];
        let mut distinct = 0u32;
        for r in 0..n {
            for c in 0..n {
                let e = usize::from(grid.get(r, c));
                if e > 0 && !seen[e] {
                    seen[e] = true;
                    distinct += 1;
                }
            }
        }
        // Positions with many different tiles are the delicate ones; small boards branch
        // little and can afford depth (3x3 games are lost by one slip, so they get the most),
        // large ones branch a lot and are easy to survive.
        match n {
            3 => distinct.clamp(4, 8),
            // A full 4x4 board is one bad spawn from the end, and the move after it can only
            // merge: one more move of look-ahead there is what won the games the distinct-tile
            // rule alone lost (seed 256348001381387271 died on a full board searched at
            // depth 3). Deeper on every crowded board (2-3 empty cells) measured 3-5x slower
            // per move: the cells a merge frees make those trees wide again.
            4 => {
                (distinct.saturating_sub(4).clamp(2, 6) + u32::from(grid.empty_count() == 0)).min(6)
            }
            _ => distinct.saturating_sub(7).clamp(1, 3),
        }
    }

    /// Searches `grid` and says which move is best and why; `None` if no move changes it.
    pub fn advise<G: Grid>(&self, grid: &G, rules: &Rules) -> Option<Advice> {
        let started = Instant::now();
        let (mut advice, mut tree) = self.advise_at(grid, rules, self.depth_for(grid), None)?;
        // Only the usual search sizes the next decision's table: a deeper one would make the
        // next decision clear a table far larger than it needs.
        LAST_CACHE_LEN.set(tree);
        // Small trees are searched again one move deeper, while they stay small.
        if let Some(small) = self.small_tree(grid, rules) {
            while tree <= small && !advice.wins && advice.depth < MAX_BUDGET_DEPTH {
                match self.advise_at(grid, rules, advice.depth + 1, None) {
                    Some(deeper) => (advice, tree) = deeper,
                    None => break,
                }
            }
        }
        let (Some(budget), None) = (self.config.time_budget, self.config.depth) else {
            return Some(advice);
        };
        // Iterative deepening: each deeper search must finish within the budget or is dropped.
        // One move deeper costs at least twice the last search, so a search that cannot
        // finish in what is left is not started.
        let deadline = started + budget;
        let mut last = started.elapsed();
        while !advice.wins && advice.depth < MAX_BUDGET_DEPTH {
            let now = Instant::now();
            if now + 2 * last >= deadline {
                break;
            }
            match self.advise_at(grid, rules, advice.depth + 1, Some(deadline)) {
                Some((better, _)) => advice = better,
                None => break,
            }
            last = now.elapsed();
        }
        Some(advice)
    }

    /// The second half of the depth policy: the largest search tree, in chance nodes, that is
    /// searched again one move deeper; `None` when none is (a fixed depth, or rules it was not
    /// measured on). On a 4x4 board in a game that ends at its goal, a game is lost on a
    /// crowded board, and crowded boards branch little: their trees are the small ones, and a
    /// move more of look-ahead costs little there. The rule follows the tree's size, not a
    /// guess from the tiles, so it is as reproducible as the rest of the policy. Measured on
    /// Power-11 Hard (measurements/search.md, "Small trees searched deeper"). Classic keeps the
    /// plain policy: its figures are measured over far longer games, at a time per move of
    /// their own.
    ///
    /// Only new tiles at a random empty cell make chance nodes that the tree's size counts (the
    /// transposition table holds those alone): under `--spawn edge` or `none` every tree would
    /// look empty and be deepened to the ceiling, so those rules keep the plain policy too. A
    /// time budget (`--ms-per-move`) decides the depth by itself: it deepens small trees within
    /// its budget, where this rule's searches have no deadline.
    pub fn small_tree<G: Grid>(&self, grid: &G, rules: &Rules) -> Option<usize> {
        let counted = matches!(rules.spawn(), Spawn::Random | Spawn::Twos);
        let untimed = self.config.depth.is_none() && self.config.time_budget.is_none();
        (untimed && grid.size() == 4 && rules.ends_at_goal() && counted).then_some(SMALL_TREE)
    }

    /// The search at `depth`; `None` if no move changes the board or `deadline` passed first.
    fn advise_at<G: Grid>(
        &self,
        grid: &G,
        rules: &Rules,
        depth: u32,
        deadline: Option<Instant>,
    ) -> Option<(Advice, usize)> {
        let goal_pending = rules.goal().is_some() && !rules.goal_reached(grid);
        let mut search = Search {
            rules,
            lean: chance::lean(rules),
            depth_limit: depth,
            min_probability: self.config.min_probability,
            evaluator: Evaluator::for_grid(grid),
            cache: FxHashMap::with_capacity_and_hasher(
                LAST_CACHE_LEN.get(),
                rustc_hash::FxBuildHasher,
            ),
            deadline,
            until_clock_check: NODES_PER_CLOCK_CHECK,
            out_of_time: false,
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
            let value = search.chance(&next, direction, 1, 1.0);
            ranked.push((direction, value, false));
        }
        let tree = search.cache.len();
        if search.out_of_time {
            return None;
        }
        // Stable sort: ties keep the order of Direction::ALL.
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
        let (direction, value, wins) = *ranked.first()?;
        let advice = Advice {
            direction,
            value,
            runner_up: ranked.get(1).map(|&(d, v, _)| (d, v)),
            wins,
            depth,
        };
        Some((advice, tree))
    }
}

impl Expectimax {
    /// [`Expectimax::advise`] on a plain board, searched on a packed engine when one fits.
    pub fn advise_board(&self, board: &Board, rules: &Rules) -> Option<Advice> {
        struct Advise<'a>(&'a Expectimax, &'a Rules);
        impl OnGrid for Advise<'_> {
            type Output = Option<Advice>;
            fn run<G: Grid>(self, grid: G) -> Option<Advice> {
                self.0.advise(&grid, self.1)
            }
        }
        on_fastest(board, Advise(self, rules))
    }
}

impl Player for Expectimax {
    fn name(&self) -> &'static str {
        "expectimax"
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

struct Search<'a, G> {
    rules: &'a Rules,
    /// How far chance nodes lean toward their worst outcome ([`chance::lean`]).
    lean: f32,
    depth_limit: u32,
    min_probability: f32,
    evaluator: Evaluator,
    /// Chance-node values by board, with the depth they were computed at.
    cache: FxHashMap<G, (u32, f32)>,
    /// When to give up (a deeper search of iterative deepening), if ever.
    deadline: Option<Instant>,
    /// Max nodes left before the next look at the clock.
    until_clock_check: u32,
    /// The deadline passed: every value from now on is meaningless, and the caller drops them.
    out_of_time: bool,
}

impl<G: Grid> Search<'_, G> {
    /// The best value over the player's moves from `grid` (0 if no move is possible: lost).
    fn max_node(&mut self, grid: &G, depth: u32, probability: f32) -> f32 {
        if self.deadline.is_some() && self.times_up() {
            return 0.0;
        }
        let mut best = 0.0f32;
        for direction in Direction::ALL {
            if let Some(next) = grid.moved(direction) {
                best = best.max(self.chance(&next, direction, depth + 1, probability));
            }
        }
        best
    }

    /// Whether the deadline has passed, reading the clock once every
    /// [`NODES_PER_CLOCK_CHECK`] calls.
    fn times_up(&mut self) -> bool {
        if !self.out_of_time {
            self.until_clock_check -= 1;
            if self.until_clock_check == 0 {
                self.until_clock_check = NODES_PER_CLOCK_CHECK;
                self.out_of_time = self.deadline.is_some_and(|d| Instant::now() >= d);
            }
        }
        self.out_of_time
    }

    /// The value of `grid` just after a move toward `moved`, before its new tile:
    /// the average over where [`Rules::spawn_site`] says it can go.
    fn chance(&mut self, grid: &G, moved: Direction, depth: u32, probability: f32) -> f32 {
        if depth > self.depth_limit || probability < self.min_probability {
            return self.evaluator.evaluate(grid).max(1.0);
        }
        match self.rules.spawn_site(grid, moved) {
            SpawnSite::Nowhere => self.max_node(grid, depth, probability),
            SpawnSite::Cell { row, col, exponent } => {
                let mut next = *grid;
                next.set(row, col, exponent);
                self.max_node(&next, depth, probability)
            }
            SpawnSite::AnyEmpty(tile) => {
                if let Some(&(cached_depth, value)) = self.cache.get(grid)
                    && cached_depth <= depth
                {
                    return value;
                }
                let value = self.average_over_spawns(grid, tile.outcomes(), depth, probability);
                self.cache.insert(*grid, (depth, value));
                value
            }
        }
    }

    /// The average over every empty cell, and every tile `outcomes` can put there, of the best
    /// move after it (`outcomes`: probability and exponent of each tile), leaning toward the
    /// worst of them in games that end at their goal ([`chance::chance_value`]).
    fn average_over_spawns(
        &mut self,
        grid: &G,
        outcomes: &[(f32, u8)],
        depth: u32,
        probability: f32,
    ) -> f32 {
        let empty = grid.empty_count();
        if empty == 0 {
            return self.max_node(grid, depth, probability);
        }
        let per_cell = probability / empty as f32;
        let (mut total, mut worst) = (0.0, f32::INFINITY);
        // Row-major order, as the sum has always been taken (f32 addition rounds).
        for (r, c) in grid.empty_cells() {
            for &(chance, exponent) in outcomes {
                let mut next = *grid;
                next.set(r, c, exponent);
                let value = self.max_node(&next, depth, per_cell * chance);
                worst = worst.min(value);
                total += chance * value;
            }
        }
        chance::chance_value(total / empty as f32, worst, self.lean)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rules::NewTile;

    fn board(rows: &[[u64; 4]]) -> Board {
        let rows: Vec<Vec<u64>> = rows.iter().map(|r| r.to_vec()).collect();
        Board::from_values(&rows).unwrap()
    }

    #[test]
    fn the_depth_policy_looks_one_move_further_on_a_full_4x4_board() {
        let policy = Expectimax::default();
        // The position seed 256348001381387271 died in: 7 distinct tiles, full.
        let full = board(&[
            [128, 4, 32, 4],
            [8, 64, 4, 2],
            [2, 16, 32, 128],
            [4, 4, 2, 4],
        ]);
        assert_eq!(policy.depth_for(&full), 4);
        let mut one_hole = full;
        one_hole.set(3, 0, 0);
        assert_eq!(policy.depth_for(&one_hole), 3);
        // The policy's ceiling holds on full boards too.
        let diverse = board(&[
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [512, 1024, 2048, 4096],
            [2, 4, 8, 16],
        ]);
        assert_eq!(policy.depth_for(&diverse), 6);
        // A fixed depth is fixed.
        let fixed = Expectimax::new(SearchConfig {
            depth: Some(3),
            ..SearchConfig::default()
        });
        assert_eq!(fixed.depth_for(&full), 3);
    }

    #[test]
    fn a_small_tree_is_searched_deeper_while_it_stays_small() {
        // A crowded Power-11 Hard board: one hole, few moves, a small tree at the usual depth.
        let crowded = board(&[
            [1024, 32, 8, 2],
            [32, 16, 32, 4],
            [8, 256, 128, 16],
            [2, 512, 4, 0],
        ]);
        let grid = crate::model::packed::PackedBoard::<4>::from_board(&crowded).unwrap();
        let hard = Rules::power11(4).unwrap();
        let policy = Expectimax::default();
        let usual = policy.depth_for(&grid);
        assert_eq!(policy.small_tree(&grid, &hard), Some(SMALL_TREE));
        let advice = policy.advise(&grid, &hard).unwrap();
        assert!(advice.depth > usual, "{advice:?} from depth {usual}");
        // Every depth it passed had a small tree; the one it stopped at did not (or is the
        // ceiling), and its advice is that depth's complete search.
        for depth in usual..advice.depth {
            let (_, tree) = policy.advise_at(&grid, &hard, depth, None).unwrap();
            assert!(tree <= SMALL_TREE, "depth {depth}: {tree} nodes");
        }
        let (last, tree) = policy.advise_at(&grid, &hard, advice.depth, None).unwrap();
        assert_eq!(last, advice);
        assert!(
            tree > SMALL_TREE || advice.depth == MAX_BUDGET_DEPTH,
            "{tree}"
        );
        // Classic (keep playing), other sizes and a fixed depth keep the plain policy.
        let classic = Rules::classic();
        assert_eq!(policy.small_tree(&grid, &classic), None);
        assert_eq!(policy.advise(&grid, &classic).unwrap().depth, usual);
        let easy = Rules::power11(5).unwrap();
        assert_eq!(policy.small_tree(&board5(), &easy), None);
        // Spawn rules without chance nodes to count would look like empty trees.
        for spawn in [Spawn::Edge, Spawn::None] {
            assert_eq!(policy.small_tree(&grid, &hard.with_spawn(spawn)), None);
        }
        assert_eq!(
            policy.small_tree(&grid, &hard.with_spawn(Spawn::Twos)),
            Some(SMALL_TREE)
        );
        let fixed = Expectimax::new(SearchConfig {
            depth: Some(2),
            ..SearchConfig::default()
        });
        assert_eq!(fixed.small_tree(&grid, &hard), None);
        let timed = Expectimax::new(SearchConfig {
            time_budget: Some(Duration::from_millis(1)),
            ..SearchConfig::default()
        });
        assert_eq!(timed.small_tree(&grid, &hard), None);
        assert_eq!(fixed.advise(&grid, &hard).unwrap().depth, 2);
    }

    fn board5() -> Board {
        let mut board = Board::empty(5).unwrap();
        board.set(4, 4, 1);
        board.set(4, 3, 1);
        board
    }

    #[test]
    fn a_chance_node_leans_toward_its_worst_tile_only_in_games_that_end_at_the_goal() {
        // A crowded board: some new tiles leave it far worse off than others.
        let grid = board(&[[2, 4, 8, 16], [4, 8, 16, 32], [0, 0, 64, 128], [0, 4, 0, 2]]);
        for rules in [Rules::classic(), Rules::power11(4).unwrap()] {
            let mut search = Search {
                rules: &rules,
                lean: chance::lean(&rules),
                depth_limit: 3,
                min_probability: 0.0,
                evaluator: Evaluator::for_grid(&grid),
                cache: FxHashMap::default(),
                deadline: None,
                until_clock_check: NODES_PER_CLOCK_CHECK,
                out_of_time: false,
            };
            let outcomes = NewTile::TwoOrFour.outcomes();
            // Each new tile's value, in the order the search adds them up.
            let mut values = Vec::new();
            for (r, c) in grid.empty_cells() {
                for &(p, exponent) in outcomes {
                    let mut next = grid;
                    next.set(r, c, exponent);
                    values.push((p, search.max_node(&next, 2, 1.0)));
                }
            }
            let mean = values.iter().map(|&(p, v)| p * v).sum::<f32>() / grid.empty_count() as f32;
            let worst = values.iter().map(|&(_, v)| v).fold(f32::INFINITY, f32::min);
            assert!(worst < mean - 1000.0, "a bad tile: {worst} {mean}");
            let value = search.average_over_spawns(&grid, outcomes, 2, 1.0);
            // The shared rule on the search's own sums, to the bit.
            let expected = chance::chance_value(mean, worst, chance::lean(&rules));
            assert_eq!(value.to_bits(), expected.to_bits(), "{value} {expected}");
            if rules.keep_playing() {
                assert_eq!(value.to_bits(), mean.to_bits(), "the mean exactly");
            } else {
                assert!(value < mean - 500.0, "leans: {value} {mean}");
            }
        }
    }

    fn early() -> Board {
        board(&[[0, 0, 2, 0], [0, 4, 0, 0], [2, 8, 16, 0], [32, 8, 4, 2]])
    }

    #[test]
    fn a_time_budget_searches_deeper_than_the_policy() {
        let rules = Rules::power11(4).unwrap();
        let policy = Expectimax::default();
        let usual = policy.advise_board(&early(), &rules).unwrap();
        let budgeted = Expectimax::new(SearchConfig {
            time_budget: Some(Duration::from_secs(2)),
            ..SearchConfig::default()
        });
        let deeper = budgeted.advise_board(&early(), &rules).unwrap();
        assert!(deeper.depth > usual.depth, "{deeper:?} vs {usual:?}");
        assert!(deeper.depth <= MAX_BUDGET_DEPTH);
        // What it answers is the complete search at the depth it reached.
        let grid = crate::model::packed::PackedBoard::<4>::from_board(&early()).unwrap();
        let complete = Expectimax::default().advise_at(&grid, &rules, deeper.depth, None);
        assert_eq!(Some(deeper), complete.map(|(advice, _)| advice));
    }

    #[test]
    fn a_budget_too_small_to_go_deeper_gives_the_usual_advice() {
        // The search at the policy's first depth always finishes; nothing deeper fits in 1 ns
        // (and a time budget leaves small trees to its own deepening).
        let rules = Rules::power11(4).unwrap();
        let grid = crate::model::packed::PackedBoard::<4>::from_board(&early()).unwrap();
        let policy = Expectimax::default();
        let usual = policy.advise_at(&grid, &rules, policy.depth_for(&grid), None);
        let hurried = Expectimax::new(SearchConfig {
            time_budget: Some(Duration::from_nanos(1)),
            ..SearchConfig::default()
        });
        assert_eq!(
            hurried.advise_board(&early(), &rules),
            usual.map(|(advice, _)| advice)
        );
    }

    #[test]
    fn a_search_past_its_deadline_is_dropped() {
        let rules = Rules::power11(4).unwrap();
        let grid = crate::model::packed::PackedBoard::<4>::from_board(&early()).unwrap();
        let passed = Some(Instant::now());
        let player = Expectimax::default();
        // Deep enough to visit more than a clock check's worth of nodes.
        assert_eq!(player.advise_at(&grid, &rules, 6, passed), None);
        assert!(player.advise_at(&grid, &rules, 6, None).is_some());
    }
}
