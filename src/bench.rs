//! `power11 bench`: many headless games over a thread pool, and their statistics.

use crate::ai::{AnyPlayer, Player};
use crate::line::tile_points;
use crate::named::Named;
use crate::playout::{GameRecord, play_game};
use crate::random::{mix, seeded};
use crate::rules::{Rules, Score};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// What to benchmark.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// The rules of every game.
    pub rules: Rules,
    /// Who plays: each game gets its own copy.
    pub player: AnyPlayer,
    /// How many games.
    pub games: u64,
    /// Worker threads.
    pub jobs: usize,
    /// The base seed; game `i` is seeded with [`game_seed`]`(seed, i)`.
    pub seed: u64,
    /// Attempt limit per game.
    pub max_attempts: u64,
}

/// The seed of game `index` in a benchmark seeded with `seed`.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    mix(seed ^ mix(index))
}

/// How many seeds of games that were not won a report lists.
pub const UNWON_SEEDS_SHOWN: usize = 10;

/// How many of them the text summary shows.
const UNWON_SEEDS_IN_TEXT: usize = 3;

/// The statistics `bench` prints (and `--json` serialises).
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Games played.
    pub games: u64,
    /// The goal tile's value, `None` when the rules have no goal (then nothing is won).
    pub goal: Option<u64>,
    /// Games that reached the goal.
    pub wins: u64,
    /// wins / games.
    pub win_rate: f64,
    /// Mean final score.
    pub mean_score: f64,
    /// Median final score.
    pub median_score: f64,
    /// Best final score.
    pub max_score: Score,
    /// How many games ended with each largest tile (tile value -> games).
    pub max_tile_counts: BTreeMap<u64, u64>,
    /// How many games reached each tile (tile value -> games whose largest tile was at least
    /// that), for every power of two from the smallest largest tile to the largest one.
    pub reached_counts: BTreeMap<u64, u64>,
    /// The seeds of the first games (at most [`UNWON_SEEDS_SHOWN`], in game order) that did
    /// not reach the goal, so that one can be watched with `--autoplay PLAYER --seed S`;
    /// empty when the rules have no goal.
    pub unwon_seeds: Vec<u64>,
    /// Moves that changed the board, over all games.
    pub moves: u64,
    /// Moves attempted, over all games.
    pub attempts: u64,
    /// Games cut off by the attempt limit.
    pub cut_off: u64,
    /// Moves per second of wall-clock time, all threads together.
    pub moves_per_second: f64,
    /// Mean thread time per move, in milliseconds.
    pub ms_per_move: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// The base seed.
    pub seed: u64,
    /// The player.
    pub player: String,
    /// The variant.
    pub variant: String,
    /// The board size.
    pub size: usize,
    /// Worker threads used.
    pub jobs: usize,
}

fn play_one(config: &BenchConfig, index: u64) -> (GameRecord, Duration) {
    let started = Instant::now();
    let mut rng = seeded(game_seed(config.seed, index));
    let start = config.rules.new_board(&mut rng);
    let mut player = config.player.clone();
    let record = play_game(
        &config.rules,
        start,
        &mut player,
        &mut rng,
        config.max_attempts,
    );
    (record, started.elapsed())
}

/// The statistics of the games played so far, merged as games finish: its size does not grow
/// with the number of games (only with the number of distinct scores and largest tiles).
#[derive(Clone, Debug, Default)]
struct Tally {
    games: u64,
    wins: u64,
    score_sum: i128,
    /// How many games ended with each score (for the median).
    scores: BTreeMap<Score, u64>,
    max_tile_counts: BTreeMap<u64, u64>,
    /// The indices of the first games not won, at most [`UNWON_SEEDS_SHOWN`].
    unwon: Vec<u64>,
    moves: u64,
    attempts: u64,
    cut_off: u64,
    thread_seconds: f64,
}

impl Tally {
    fn add(mut self, index: u64, record: &GameRecord, time: Duration) -> Tally {
        self.games += 1;
        self.wins += u64::from(record.won);
        self.score_sum = self.score_sum.saturating_add(record.score);
        *self.scores.entry(record.score).or_insert(0) += 1;
        *self
            .max_tile_counts
            .entry(tile_points(record.max_exponent))
            .or_insert(0) += 1;
        if !record.won {
            self.unwon.push(index);
            self.keep_first_unwon();
        }
        self.moves += record.moves;
        self.attempts += record.attempts;
        self.cut_off += u64::from(record.cut_off);
        self.thread_seconds += time.as_secs_f64();
        self
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.games += other.games;
        self.wins += other.wins;
        self.score_sum = self.score_sum.saturating_add(other.score_sum);
        for (score, k) in other.scores {
            *self.scores.entry(score).or_insert(0) += k;
        }
        for (tile, k) in other.max_tile_counts {
            *self.max_tile_counts.entry(tile).or_insert(0) += k;
        }
        self.unwon.extend(other.unwon);
        self.keep_first_unwon();
        self.moves += other.moves;
        self.attempts += other.attempts;
        self.cut_off += other.cut_off;
        self.thread_seconds += other.thread_seconds;
        self
    }

    fn keep_first_unwon(&mut self) {
        self.unwon.sort_unstable();
        self.unwon.truncate(UNWON_SEEDS_SHOWN);
    }

    /// The `k`-th smallest score (0-based), from the counts.
    fn nth_score(&self, k: u64) -> Score {
        let mut seen = 0;
        for (&score, &count) in &self.scores {
            seen += count;
            if seen > k {
                return score;
            }
        }
        0
    }
}

/// Plays the games on `config.jobs` threads, calling `progress` after each game.
pub fn run(
    config: &BenchConfig,
    progress: &(dyn Fn() + Sync),
) -> Result<BenchReport, rayon::ThreadPoolBuildError> {
    crate::packed::warm_up(config.rules.size());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.jobs)
        .build()?;
    let started = Instant::now();
    let tally = pool.install(|| {
        (0..config.games)
            .into_par_iter()
            .fold(Tally::default, |tally, i| {
                let (record, time) = play_one(config, i);
                progress();
                tally.add(i, &record, time)
            })
            .reduce(Tally::default, Tally::merge)
    });
    Ok(summarise(config, &tally, started.elapsed()))
}

fn summarise(config: &BenchConfig, tally: &Tally, wall: Duration) -> BenchReport {
    let games = tally.games;
    let median_score = match games {
        0 => 0.0,
        n if n % 2 == 1 => tally.nth_score(n / 2) as f64,
        n => f64::midpoint(
            tally.nth_score(n / 2 - 1) as f64,
            tally.nth_score(n / 2) as f64,
        ),
    };
    let max_tile_counts = tally.max_tile_counts.clone();
    let mut reached_counts = BTreeMap::new();
    if let (Some((&low, _)), Some((&high, _))) = (
        max_tile_counts.first_key_value(),
        max_tile_counts.last_key_value(),
    ) {
        let mut tile = low;
        while tile <= high {
            let reached = max_tile_counts.range(tile..).map(|(_, k)| k).sum();
            reached_counts.insert(tile, reached);
            tile = tile.saturating_mul(2).max(tile + 1);
        }
    }
    let unwon_seeds = if config.rules.goal().is_some() {
        tally
            .unwon
            .iter()
            .map(|&index| game_seed(config.seed, index))
            .collect()
    } else {
        Vec::new()
    };
    let seconds = wall.as_secs_f64();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    BenchReport {
        games,
        goal: config.rules.goal().map(tile_points),
        wins: tally.wins,
        win_rate: ratio(tally.wins as f64, games as f64),
        mean_score: ratio(tally.score_sum as f64, games as f64),
        median_score,
        max_score: tally.scores.last_key_value().map_or(0, |(&s, _)| s),
        max_tile_counts,
        reached_counts,
        unwon_seeds,
        moves: tally.moves,
        attempts: tally.attempts,
        cut_off: tally.cut_off,
        moves_per_second: ratio(tally.moves as f64, seconds),
        ms_per_move: ratio(tally.thread_seconds * 1000.0, tally.moves as f64),
        seconds,
        seed: config.seed,
        player: config.player.name().to_string(),
        variant: config.rules.variant().name().to_string(),
        size: config.rules.size(),
        jobs: config.jobs,
    }
}

impl BenchReport {
    /// The human-readable summary.
    pub fn to_text(&self) -> String {
        let pct = |k: u64| {
            if self.games > 0 {
                100.0 * k as f64 / self.games as f64
            } else {
                0.0
            }
        };
        let tiles: Vec<String> = self
            .max_tile_counts
            .iter()
            .map(|(tile, k)| format!("{tile}: {k} ({:.1}%)", pct(*k)))
            .collect();
        let reached: Vec<String> = self
            .reached_counts
            .iter()
            .map(|(tile, k)| format!("{tile}: {k} ({:.1}%)", pct(*k)))
            .collect();
        let mut text = format!(
            "player {}, variant {}, {}x{}, seed {}, {} thread(s)\n\
             games: {}  wins: {}\n\
             score: mean {:.1}, median {:.1}, max {}\n\
             largest tile: {}\n\
             reached: {}\n\
             moves: {} ({} attempts) in {:.2} s: {:.0} moves/s, {:.6} ms/move\n",
            self.player,
            self.variant,
            self.size,
            self.size,
            self.seed,
            self.jobs,
            self.games,
            match self.goal {
                Some(_) => format!("{} ({:.1}%)", self.wins, 100.0 * self.win_rate),
                None => "- (no goal)".to_string(),
            },
            self.mean_score,
            self.median_score,
            self.max_score,
            tiles.join(", "),
            reached.join(", "),
            self.moves,
            self.attempts,
            self.seconds,
            self.moves_per_second,
            self.ms_per_move,
        );
        if !self.unwon_seeds.is_empty() {
            let seeds: Vec<String> = self
                .unwon_seeds
                .iter()
                .take(UNWON_SEEDS_IN_TEXT)
                .map(u64::to_string)
                .collect();
            let _ = writeln!(
                text,
                "not won: {} game(s), seeds {}{} (watch one: power11 --autoplay {} --seed S, same flags)",
                self.games - self.wins,
                seeds.join(", "),
                if self.games - self.wins > seeds.len() as u64 {
                    ", ..."
                } else {
                    ""
                },
                self.player,
            );
        }
        if self.cut_off > 0 {
            let _ = writeln!(text, "cut off by the move limit: {} game(s)", self.cut_off);
        }
        text
    }
}
