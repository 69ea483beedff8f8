//! `power11 bench`: many headless games over a thread pool, and their statistics.

use crate::ai::{PlayerKind, SearchConfig};
use crate::line::tile_points;
use crate::named::Named;
use crate::playout::{GameRecord, play_game};
use crate::random::{mix, seeded};
use crate::rules::Rules;
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
    /// Who plays.
    pub player: PlayerKind,
    /// Search settings (ignored by players that do not search).
    pub search: SearchConfig,
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
    pub max_score: i64,
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
    let mut player = config.player.build(config.search);
    let record = play_game(
        &config.rules,
        start,
        &mut player,
        &mut rng,
        config.max_attempts,
    );
    (record, started.elapsed())
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
    let results: Vec<(GameRecord, Duration)> = pool.install(|| {
        (0..config.games)
            .into_par_iter()
            .map(|i| {
                let result = play_one(config, i);
                progress();
                result
            })
            .collect()
    });
    Ok(summarise(config, &results, started.elapsed()))
}

fn summarise(
    config: &BenchConfig,
    results: &[(GameRecord, Duration)],
    wall: Duration,
) -> BenchReport {
    let games = results.len() as u64;
    let mut scores: Vec<i64> = results.iter().map(|(r, _)| r.score).collect();
    scores.sort_unstable();
    let median_score = match scores.len() {
        0 => 0.0,
        n if n % 2 == 1 => scores[n / 2] as f64,
        n => f64::midpoint(scores[n / 2 - 1] as f64, scores[n / 2] as f64),
    };
    let mut max_tile_counts = BTreeMap::new();
    for (r, _) in results {
        *max_tile_counts
            .entry(tile_points(r.max_exponent))
            .or_insert(0) += 1;
    }
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
        (0u64..)
            .zip(results)
            .filter(|(_, (r, _))| !r.won)
            .map(|(index, _)| game_seed(config.seed, index))
            .take(UNWON_SEEDS_SHOWN)
            .collect()
    } else {
        Vec::new()
    };
    let wins = results.iter().filter(|(r, _)| r.won).count() as u64;
    let moves: u64 = results.iter().map(|(r, _)| r.moves).sum();
    let thread_time: f64 = results.iter().map(|(_, d)| d.as_secs_f64()).sum();
    let seconds = wall.as_secs_f64();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    BenchReport {
        games,
        goal: config.rules.goal().map(tile_points),
        wins,
        win_rate: ratio(wins as f64, games as f64),
        mean_score: ratio(scores.iter().map(|&s| s as f64).sum(), games as f64),
        median_score,
        max_score: scores.last().copied().unwrap_or(0),
        max_tile_counts,
        reached_counts,
        unwon_seeds,
        moves,
        attempts: results.iter().map(|(r, _)| r.attempts).sum(),
        cut_off: results.iter().filter(|(r, _)| r.cut_off).count() as u64,
        moves_per_second: ratio(moves as f64, seconds),
        ms_per_move: ratio(thread_time * 1000.0, moves as f64),
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
