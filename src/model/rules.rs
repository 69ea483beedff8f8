//! The rules of a game as data: board size, goal, how a game starts, where new tiles come from
//! and how the score counts. Every variant is a [`Rules`] value; there is one engine.

use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::grid::Grid;
use crate::model::named::Named;
use crate::model::random::{below, chance};
use crate::model::size::{Size, SizeError};
use rand::Rng;
use thiserror::Error;

/// The named rule sets (`--variant`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Power-11: 5x5 Easy or 4x4 Hard, goal 2048.
    Power11,
    /// Classic 2048: 4x4, best score, keep playing after 2048.
    Classic,
    /// 3x3, goal 512, only 2s.
    Mini,
    /// Deterministic 2s on the edge the tiles left, +1/-1 per move, no goal.
    Edge,
}

impl Named for Variant {
    const ALL: &'static [Variant] = &[
        Variant::Power11,
        Variant::Classic,
        Variant::Mini,
        Variant::Edge,
    ];

    /// The name used on the command line and in the best-score file.
    fn name(self) -> &'static str {
        match self {
            Variant::Power11 => "power11",
            Variant::Classic => "classic",
            Variant::Mini => "mini",
            Variant::Edge => "edge",
        }
    }

    fn about(self) -> &'static str {
        match self {
            Variant::Power11 => "Power-11: 5x5 Easy or 4x4 Hard, goal 2048",
            Variant::Classic => "Classic 2048: 4x4, best score, keep playing after 2048",
            Variant::Mini => "3x3, goal 512, only 2s",
            Variant::Edge => "Deterministic 2s on the edge the tiles left, +1/-1 per move, no goal",
        }
    }
}

/// Which value a new random tile takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewTile {
    /// 2 with probability 90%, 4 with probability 10%.
    TwoOrFour,
    /// Always 2.
    Two,
}

/// The probability that a [`NewTile::TwoOrFour`] tile is a 4.
pub const FOUR_CHANCE: f64 = 0.1;

/// [`FOUR_CHANCE`] as the search weighs it.
const FOUR_WEIGHT: f32 = FOUR_CHANCE as f32;

impl NewTile {
    /// The tiles this rule can place, each with its probability, in the order the search
    /// weighs them: `(probability, exponent)`.
    pub fn outcomes(self) -> &'static [(f32, u8)] {
        match self {
            NewTile::TwoOrFour => &[(1.0 - FOUR_WEIGHT, 1), (FOUR_WEIGHT, 2)],
            NewTile::Two => &[(1.0, 1)],
        }
    }

    /// Draws a tile's exponent. Draws nothing when only one tile is possible, so the random
    /// stream is the one games have always used.
    fn draw<R: Rng + ?Sized>(self, rng: &mut R) -> u8 {
        match self {
            NewTile::TwoOrFour if chance(rng, FOUR_CHANCE) => 2,
            _ => 1,
        }
    }
}

/// Where the new tile goes after a move: the one description of a spawn rule, which the game's
/// draw ([`Rules::spawn_after`]) and the search's chance nodes both read. A new spawn rule is a
/// new [`Spawn`] and its arm in [`Rules::spawn_site`]; nothing else changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnSite {
    /// No tile appears.
    Nowhere,
    /// This tile at this cell, with certainty.
    Cell {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
        /// The tile's exponent.
        exponent: u8,
    },
    /// A cell drawn uniformly from the empty ones (none if the board is full), holding a tile
    /// drawn from [`NewTile::outcomes`].
    AnyEmpty(NewTile),
}

/// How a new game's board is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Start {
    /// `count` tiles at random empty cells.
    Tiles {
        /// How many tiles.
        count: usize,
        /// Their values.
        tile: NewTile,
    },
    /// Every cell independently a 2 with this probability (drawn again if all came out empty).
    Fill(f64),
}

/// Where a new tile appears after a move that changed the board (`--spawn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spawn {
    /// A random empty cell, 2 (90%) or 4 (10%).
    Random,
    /// A random empty cell, always 2.
    Twos,
    /// Always 2, at the first empty cell of the edge the tiles moved away from.
    Edge,
    /// No tile ever appears.
    None,
}

impl Named for Spawn {
    const ALL: &'static [Spawn] = &[Spawn::Random, Spawn::Twos, Spawn::Edge, Spawn::None];

    fn name(self) -> &'static str {
        match self {
            Spawn::Random => "random",
            Spawn::Twos => "twos",
            Spawn::Edge => "edge",
            Spawn::None => "none",
        }
    }

    fn about(self) -> &'static str {
        match self {
            Spawn::Random => "A random empty cell, 2 (90%) or 4 (10%)",
            Spawn::Twos => "A random empty cell, always 2",
            Spawn::Edge => {
                "Always 2, at the first empty cell of the edge the tiles moved away from"
            }
            Spawn::None => "No tile ever appears",
        }
    }
}

/// How the score counts (`--score`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scoring {
    /// Each merge adds the value of the new tile.
    Merges,
    /// +1 for a move that changed the board, -1 for one that did not.
    Moves,
}

impl Named for Scoring {
    const ALL: &'static [Scoring] = &[Scoring::Merges, Scoring::Moves];

    fn name(self) -> &'static str {
        match self {
            Scoring::Merges => "merges",
            Scoring::Moves => "moves",
        }
    }

    fn about(self) -> &'static str {
        match self {
            Scoring::Merges => "Each merge adds the value of the new tile",
            Scoring::Moves => "+1 for a move that changed the board, -1 for one that did not",
        }
    }
}

/// Why a knob's value was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RulesError {
    /// `--size` outside 3..=8.
    #[error(transparent)]
    BadSize(#[from] SizeError),
    /// `--goal` not a power of two from 8 to 2^20.
    #[error("goal {0} is not a power of two from 8 to 1048576")]
    BadGoal(u64),
    /// `--fill` outside (0, 1].
    #[error("fill probability {} is not in 0 < P <= 1", short_number(*.0))]
    BadFill(f64),
}

/// `value` as a message quotes it: as written (`0.3`, `2`), or with an exponent where that
/// would run past a dozen characters (`1e300`, not 301 digits).
pub(crate) fn short_number(value: f64) -> String {
    let plain = value.to_string();
    if plain.len() > 12 {
        format!("{value:e}")
    } else {
        plain
    }
}

/// The smallest goal exponent (8).
pub(crate) const MIN_GOAL_EXPONENT: u8 = 3;
/// The largest goal exponent (2^20).
pub(crate) const MAX_GOAL_EXPONENT: u8 = 20;
/// How often an all-empty [`Start::Fill`] board is drawn again before one 2 is placed instead.
const FILL_REDRAWS: usize = 10_000;

/// A complete rule set. Built from a preset, then adjusted with the validated `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    variant: Variant,
    size: Size,
    goal: Option<u8>,
    start: Start,
    spawn: Spawn,
    scoring: Scoring,
    keep_playing: bool,
}

/// A score: merged tile values add up past `i64` in games with the largest tiles (a single merge
/// into 2^63 is worth 2^63), so scores are 128-bit and exact.
pub type Score = i128;

/// What a move did, as [`Rules::apply_move`] reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    /// Whether the board changed (and so a tile may have spawned).
    pub moved: bool,
    /// Points the merges were worth (whatever the scoring rule).
    pub points: u64,
    /// What the move adds to the score under the scoring rule.
    pub score_delta: Score,
}

impl Rules {
    /// Power-11 on an n x n board (5 = Easy, 4 = Hard).
    pub fn power11(size: usize) -> Result<Rules, RulesError> {
        Rules {
            variant: Variant::Power11,
            size: Size::HARD,
            goal: Some(11),
            start: Start::Tiles {
                count: 2,
                tile: NewTile::TwoOrFour,
            },
            spawn: Spawn::Random,
            scoring: Scoring::Merges,
            keep_playing: false,
        }
        .with_size(size)
    }

    /// Classic 2048: 4x4, keeps a best score, offers to keep playing past 2048.
    pub fn classic() -> Rules {
        Rules {
            variant: Variant::Classic,
            keep_playing: true,
            ..Rules::preset(Variant::Power11)
        }
    }

    /// 3x3, starts with two 2s, only 2s spawn, goal 512.
    pub fn mini() -> Rules {
        Rules {
            variant: Variant::Mini,
            size: Size::new(3).expect("3 is a size"),
            goal: Some(9),
            start: Start::Tiles {
                count: 2,
                tile: NewTile::Two,
            },
            spawn: Spawn::Twos,
            scoring: Scoring::Merges,
            keep_playing: false,
        }
    }

    /// 4x4 filled at random with 2s (probability 0.3), 2s spawn at the edge the tiles left,
    /// +1/-1 per move, no goal.
    pub fn edge() -> Rules {
        Rules {
            variant: Variant::Edge,
            size: Size::HARD,
            goal: None,
            start: Start::Fill(0.3),
            spawn: Spawn::Edge,
            scoring: Scoring::Moves,
            keep_playing: false,
        }
    }

    /// The preset for `variant` at its default size (Power-11: Hard, 4x4).
    pub fn preset(variant: Variant) -> Rules {
        match variant {
            Variant::Power11 => Rules::power11(4).expect("4 is a valid size"),
            Variant::Classic => Rules::classic(),
            Variant::Mini => Rules::mini(),
            Variant::Edge => Rules::edge(),
        }
    }

    /// The same rules on an n x n board.
    pub fn with_size(self, size: usize) -> Result<Rules, RulesError> {
        Ok(self.on(Size::new(size)?))
    }

    /// The same rules on a board of side `size`.
    #[must_use]
    pub fn on(self, size: Size) -> Rules {
        Rules { size, ..self }
    }

    /// The same rules with goal `goal` (a tile value), or no goal.
    pub fn with_goal(self, goal: Option<u64>) -> Result<Rules, RulesError> {
        let goal = match goal {
            None => None,
            Some(v) if v.is_power_of_two() => {
                let e = v.trailing_zeros() as u8;
                if !(MIN_GOAL_EXPONENT..=MAX_GOAL_EXPONENT).contains(&e) {
                    return Err(RulesError::BadGoal(v));
                }
                Some(e)
            }
            Some(v) => return Err(RulesError::BadGoal(v)),
        };
        Ok(Rules { goal, ..self })
    }

    /// The same rules with new tiles placed by `spawn`.
    #[must_use]
    pub fn with_spawn(self, spawn: Spawn) -> Rules {
        Rules { spawn, ..self }
    }

    /// The same rules scored by `scoring`.
    #[must_use]
    pub fn with_scoring(self, scoring: Scoring) -> Rules {
        Rules { scoring, ..self }
    }

    /// The same rules, but a new game fills each cell with a 2 with probability `p`.
    pub fn with_fill(self, p: f64) -> Result<Rules, RulesError> {
        if !(p > 0.0 && p <= 1.0) {
            return Err(RulesError::BadFill(p));
        }
        Ok(Rules {
            start: Start::Fill(p),
            ..self
        })
    }

    /// The variant these rules started from.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// The board size.
    pub fn size(&self) -> usize {
        self.size.get()
    }
    /// The goal tile's exponent (11 for 2048), if the game has one.
    pub fn goal(&self) -> Option<u8> {
        self.goal
    }
    /// How a new game starts.
    pub fn start(&self) -> Start {
        self.start
    }
    /// Where new tiles come from.
    pub fn spawn(&self) -> Spawn {
        self.spawn
    }
    /// How the score counts.
    pub fn scoring(&self) -> Scoring {
        self.scoring
    }
    /// Whether reaching the goal offers to keep playing (classic).
    pub fn keep_playing(&self) -> bool {
        self.keep_playing
    }
    /// Whether a game under these rules ends at its goal, won or lost (Power-11, `mini`): a
    /// goal and no keep-playing. Such games count wins and losses, not points, and the searches
    /// play them more cautiously (`ai::chance::lean`, `Expectimax::small_tree`).
    pub fn ends_at_goal(&self) -> bool {
        self.goal.is_some() && !self.keep_playing
    }
    /// The name best scores are kept under (with the size beside it): the variant's name when
    /// the rules are its preset's, else the name followed by each rule that differs, as
    /// `classic/goal-none/score-moves`. Scores of different rules never share a record, and a
    /// variant's own record keeps the name it always had.
    pub fn record_name(&self) -> String {
        let preset = Rules::preset(self.variant);
        let mut parts = vec![self.variant.name().to_string()];
        if self.goal != preset.goal {
            parts.push(match self.goal {
                Some(goal) => format!("goal-{}", 1u64 << goal),
                None => "goal-none".to_string(),
            });
        }
        if self.start != preset.start {
            parts.push(match self.start {
                Start::Fill(p) => format!("fill-{p}"),
                Start::Tiles { count, tile } => format!(
                    "start-{count}-{}",
                    match tile {
                        NewTile::TwoOrFour => "twos-fours",
                        NewTile::Two => "twos",
                    }
                ),
            });
        }
        if self.spawn != preset.spawn {
            parts.push(format!("spawn-{}", self.spawn.name()));
        }
        if self.scoring != preset.scoring {
            parts.push(format!("score-{}", self.scoring.name()));
        }
        parts.join("/")
    }

    /// Whether `grid` holds the goal tile (or a larger one).
    pub fn goal_reached<G: Grid>(&self, grid: &G) -> bool {
        self.goal.is_some_and(|g| grid.max_exponent() >= g)
    }

    /// A new game's board.
    pub fn new_board<R: Rng + ?Sized>(&self, rng: &mut R) -> Board {
        let mut board = Board::new(self.size);
        match self.start {
            Start::Tiles { count, tile } => {
                for _ in 0..count {
                    spawn_random(&mut board, tile, rng);
                }
            }
            Start::Fill(p) => {
                for _ in 0..FILL_REDRAWS {
                    for r in 0..self.size() {
                        for c in 0..self.size() {
                            board.set(r, c, u8::from(chance(rng, p)));
                        }
                    }
                    if board.max_exponent() > 0 {
                        return board;
                    }
                }
                // Only reachable with a tiny P: rather than loop for ever, place one 2.
                spawn_random(&mut board, NewTile::Two, rng);
            }
        }
        board
    }

    /// Plays one move on `grid`: slide, then (if the board changed) the new tile.
    ///
    /// This is the only implementation of a turn; the interactive game and headless playouts
    /// both call it.
    pub fn apply_move<G: Grid, R: Rng + ?Sized>(
        &self,
        grid: &mut G,
        direction: Direction,
        rng: &mut R,
    ) -> Turn {
        match grid.slide(direction) {
            None => Turn {
                moved: false,
                points: 0,
                score_delta: self.score_of(0, 0, 1),
            },
            Some((next, points)) => {
                *grid = next;
                self.spawn_after(grid, direction, rng);
                Turn {
                    moved: true,
                    points,
                    score_delta: self.score_of(points, 1, 0),
                }
            }
        }
    }

    /// What a stretch of turns adds to the score under the scoring rule: their merges made
    /// `points`, `moved` of them changed the board and `unmoved` did not. The one place a scoring
    /// rule is declared; a playout adds up its turns and asks once per stretch of play (once
    /// per board representation), rather than adding a `Score` after every move.
    pub fn score_of(&self, points: u64, moved: u64, unmoved: u64) -> Score {
        match self.scoring {
            Scoring::Merges => Score::from(points),
            Scoring::Moves => Score::from(moved) - Score::from(unmoved),
        }
    }

    /// Where the new tile goes on `grid` after a move toward `moved` that changed it. This is
    /// the one place a spawn rule is declared.
    pub fn spawn_site<G: Grid>(&self, grid: &G, moved: Direction) -> SpawnSite {
        match self.spawn {
            Spawn::Random => SpawnSite::AnyEmpty(NewTile::TwoOrFour),
            Spawn::Twos => SpawnSite::AnyEmpty(NewTile::Two),
            Spawn::Edge => match edge_cell(grid, moved) {
                Some((row, col)) => SpawnSite::Cell {
                    row,
                    col,
                    exponent: 1,
                },
                None => SpawnSite::Nowhere,
            },
            Spawn::None => SpawnSite::Nowhere,
        }
    }

    /// Places the new tile after a move toward `moved` that changed the board.
    pub fn spawn_after<G: Grid, R: Rng + ?Sized>(
        &self,
        grid: &mut G,
        moved: Direction,
        rng: &mut R,
    ) {
        match self.spawn_site(grid, moved) {
            SpawnSite::Nowhere => {}
            SpawnSite::Cell { row, col, exponent } => grid.set(row, col, exponent),
            SpawnSite::AnyEmpty(tile) => spawn_random(grid, tile, rng),
        }
    }
}

/// Puts a new tile on a random empty cell (cell drawn first, then its value). No-op on a full
/// board.
pub fn spawn_random<G: Grid, R: Rng + ?Sized>(grid: &mut G, tile: NewTile, rng: &mut R) {
    let empty = grid.empty_count();
    if empty == 0 {
        return;
    }
    // The cell is drawn before the tile: the random stream games have always used.
    let k = below(rng, empty);
    let placed = grid.fill_nth_empty(k, tile.draw(rng));
    assert!(placed, "index is below the number of empty cells");
}

/// Where the `edge` spawn rule puts the new 2 after a move toward `moved`: the first empty cell
/// (leftmost, or topmost) of the edge the tiles moved away from.
pub fn edge_cell<G: Grid>(grid: &G, moved: Direction) -> Option<(usize, usize)> {
    let n = grid.size();
    let cells: Box<dyn Iterator<Item = (usize, usize)>> = match moved {
        Direction::Up => Box::new((0..n).map(move |c| (n - 1, c))),
        Direction::Down => Box::new((0..n).map(|c| (0, c))),
        Direction::Left => Box::new((0..n).map(move |r| (r, n - 1))),
        Direction::Right => Box::new((0..n).map(|r| (r, 0))),
    };
    cells.into_iter().find(|&(r, c)| grid.get(r, c) == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::random::seeded;

    #[test]
    fn presets_match_the_variant_table() {
        let p = Rules::power11(5).unwrap();
        assert_eq!(
            (p.size(), p.goal(), p.spawn()),
            (5, Some(11), Spawn::Random)
        );
        let c = Rules::classic();
        assert!(c.keep_playing() && c.size() == 4);
        let m = Rules::mini();
        assert_eq!((m.size(), m.goal(), m.spawn()), (3, Some(9), Spawn::Twos));
        let e = Rules::edge();
        assert_eq!(
            (e.goal(), e.spawn(), e.scoring()),
            (None, Spawn::Edge, Scoring::Moves)
        );
    }

    #[test]
    fn best_scores_are_kept_by_the_rules_that_differ_from_the_preset() {
        assert_eq!(Rules::classic().record_name(), "classic");
        assert_eq!(Rules::mini().with_size(4).unwrap().record_name(), "mini");
        let odd = Rules::classic()
            .with_goal(None)
            .unwrap()
            .with_scoring(Scoring::Moves);
        assert_eq!(odd.record_name(), "classic/goal-none/score-moves");
        let filled = Rules::edge()
            .with_fill(0.5)
            .unwrap()
            .with_spawn(Spawn::Twos);
        assert_eq!(filled.record_name(), "edge/fill-0.5/spawn-twos");
        let goal = Rules::mini().with_goal(Some(1024)).unwrap();
        assert_eq!(goal.record_name(), "mini/goal-1024");
        // The record name is one word of the best-score file.
        assert!(!odd.record_name().contains(char::is_whitespace));
    }

    #[test]
    fn knobs_are_validated() {
        assert_eq!(
            Rules::mini().with_size(2),
            Err(RulesError::BadSize(SizeError::OutOfRange(2)))
        );
        assert_eq!(
            Rules::mini().with_goal(Some(3)),
            Err(RulesError::BadGoal(3))
        );
        assert_eq!(
            Rules::mini().with_goal(Some(4)),
            Err(RulesError::BadGoal(4))
        );
        assert_eq!(
            Rules::mini().with_goal(Some(1 << 21)),
            Err(RulesError::BadGoal(1 << 21))
        );
        assert_eq!(Rules::mini().with_goal(Some(8)).unwrap().goal(), Some(3));
        assert_eq!(Rules::edge().with_fill(0.0), Err(RulesError::BadFill(0.0)));
        assert!(Rules::edge().with_fill(f64::NAN).is_err());
        assert!(Rules::edge().with_fill(1.0).is_ok());
    }

    #[test]
    fn new_power11_game_has_two_tiles_of_2_or_4() {
        for seed in 0..50 {
            let b = Rules::power11(5).unwrap().new_board(&mut seeded(seed));
            let tiles: Vec<u8> = b.exponents().iter().copied().filter(|&e| e > 0).collect();
            assert_eq!(tiles.len(), 2);
            assert!(tiles.iter().all(|&e| e == 1 || e == 2));
        }
    }

    #[test]
    fn edge_start_fills_with_twos_only_and_never_empty() {
        for seed in 0..50 {
            let b = Rules::edge()
                .with_fill(0.01)
                .unwrap()
                .new_board(&mut seeded(seed));
            assert!(b.max_exponent() == 1);
        }
    }

    #[test]
    fn edge_spawn_places_on_the_edge_left_behind() {
        let rules = Rules::edge();
        let mut rng = seeded(0);
        let rows = |b: &Board| b.values();
        // One 2 in the middle of a 4x4 board, moved each way.
        let mut start = Board::empty(4).unwrap();
        start.set(1, 1, 1);
        let cases = [
            (Direction::Up, (3, 0)),
            (Direction::Down, (0, 0)),
            (Direction::Left, (0, 3)),
            (Direction::Right, (0, 0)),
        ];
        for (dir, (r, c)) in cases {
            let mut b = start;
            let turn = rules.apply_move(&mut b, dir, &mut rng);
            assert_eq!(turn.score_delta, 1);
            assert_eq!(b.get(r, c), 1, "after {dir}: {:?}", rows(&b));
        }
        // A move that changes nothing costs a point.
        let mut b =
            Board::from_values(&[vec![2, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]]).unwrap();
        assert_eq!(
            rules
                .apply_move(&mut b, Direction::Up, &mut rng)
                .score_delta,
            -1
        );
    }

    /// Edge worked examples: an Up move under the edge rules on a 4x4 board whose only tiles
    /// are in column 0 (read top to bottom). Gives column 0 after the move (the new 2 lands at
    /// the bottom row's leftmost empty cell, which is in column 0 unless it is occupied) and
    /// the score change.
    fn edge_up(column: [u64; 4]) -> ([u128; 4], Score) {
        let rows: Vec<Vec<u64>> = column.iter().map(|&v| vec![v, 0, 0, 0]).collect();
        let mut board = Board::from_values(&rows).unwrap();
        let turn = Rules::edge().apply_move(&mut board, Direction::Up, &mut seeded(0));
        let v = board.values();
        let others: u128 = v.iter().flat_map(|row| row[1..].iter()).sum();
        assert_eq!(others, 0, "the new 2 stays in column 0: {v:?}");
        ([0, 1, 2, 3].map(|r| v[r][0]), turn.score_delta)
    }

    #[test]
    fn edge_example_0_2_0_4() {
        assert_eq!(edge_up([0, 2, 0, 4]), ([2, 4, 0, 2], 1));
    }
    #[test]
    fn edge_example_4_2_0_4() {
        assert_eq!(edge_up([4, 2, 0, 4]), ([4, 2, 4, 2], 1));
    }
    #[test]
    fn edge_example_2_2_4_4() {
        assert_eq!(edge_up([2, 2, 4, 4]), ([4, 8, 0, 2], 1));
    }
    #[test]
    fn edge_example_2_0_2_4() {
        assert_eq!(edge_up([2, 0, 2, 4]), ([4, 4, 0, 2], 1));
    }
    #[test]
    fn edge_example_2_2_2_2() {
        assert_eq!(edge_up([2, 2, 2, 2]), ([4, 4, 0, 2], 1));
    }
    #[test]
    fn edge_example_2_8_4_0_cannot_move() {
        assert_eq!(edge_up([2, 8, 4, 0]), ([2, 8, 4, 0], -1));
    }

    #[test]
    fn spawn_sites_describe_each_rule() {
        let board = Board::from_values(&[vec![2, 0, 0], vec![0; 3], vec![0; 3]]).unwrap();
        let at = |spawn| {
            Rules::mini()
                .with_spawn(spawn)
                .spawn_site(&board, Direction::Up)
        };
        assert_eq!(at(Spawn::Random), SpawnSite::AnyEmpty(NewTile::TwoOrFour));
        assert_eq!(at(Spawn::Twos), SpawnSite::AnyEmpty(NewTile::Two));
        assert_eq!(
            at(Spawn::Edge),
            SpawnSite::Cell {
                row: 2,
                col: 0,
                exponent: 1
            }
        );
        assert_eq!(at(Spawn::None), SpawnSite::Nowhere);
        let total: f32 = NewTile::TwoOrFour.outcomes().iter().map(|o| o.0).sum();
        assert!((total - 1.0).abs() < 1e-6);
    }
}
