//! `power11 bench`: many headless games over a thread pool, and their statistics.
//!
//! A long run can be split: `--first-game K --games N` plays games `K..K+N` of the run its
//! seed defines, and [`merge`] adds up the JSON reports of the parts into the report of the
//! whole, as if one invocation had played them all (the median comes from the score counts
//! each report carries, never from averaging medians).

mod merge;
pub mod plot;
mod report;

pub use merge::{MAX_REPORT_BYTES, MergeError, STANDARD_INPUT, merge, read_report, shown};

use crate::model::line::tile_points;
use crate::model::named::Named;
use crate::model::random::{mix, seeded};
use crate::model::rules::{NewTile, Rules, Score, Start};
use crate::players::playout::{GameRecord, play_game_until};
use crate::players::{AnyPlayer, Player};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What to benchmark.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// The rules of every game.
    pub rules: Rules,
    /// Who plays: each game gets its own copy.
    pub player: AnyPlayer,
    /// The search depth the player was given (`None`: its own policy), recorded in the report
    /// so that only runs of the same player are merged.
    pub depth: Option<u32>,
    /// The search's time budget per move in milliseconds, if it was given one.
    pub time_budget_ms: Option<u64>,
    /// The learned player's network ([`crate::learning::ntuple::Network::fingerprint`]), recorded so that
    /// games of different networks are never merged.
    pub network: Option<String>,
    /// The index of the first game: a run can be split into parts that merge.
    pub first_game: u64,
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

/// The normal quantile of a two-sided 95% interval.
const Z_95: f64 = 1.959_963_984_540_054;

/// The 95% Wilson score interval of a proportion seen `k` times in `n` trials, as fractions.
///
/// Wilson rather than the textbook `p ± 1.96·sqrt(p(1-p)/n)`: that one collapses to a
/// zero-width interval at 0% and 100% (997/1000 and 100/100 are exactly the rates we report)
/// and strays outside [0, 1]; Wilson's stays inside and keeps a width at the ends.
pub fn wilson_interval(k: u64, n: u64) -> [f64; 2] {
    if n == 0 {
        return [0.0, 1.0];
    }
    let all = k == n;
    let n = n as f64;
    let p = k as f64 / n;
    let z2 = Z_95 * Z_95;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z_95 / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At 0 and n successes the bounds are exactly 0 and 1; rounding would say 1e-18.
    let low = if k == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if all { 1.0 } else { (centre + half).min(1.0) };
    [low, high]
}

/// What a run measured: the fields two reports must share to be parts of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunIdentity {
    /// The base seed.
    pub seed: u64,
    /// The player.
    pub player: String,
    /// The fixed search depth the player was given, if any.
    pub depth: Option<u32>,
    /// The search's time budget per move in milliseconds, if it was given one (its games do
    /// not replay from the seed).
    #[serde(default)]
    pub time_budget_ms: Option<u64>,
    /// The variant.
    pub variant: String,
    /// The board size.
    pub size: usize,
    /// Every rule, in words (the variant's name does not show `--goal` or `--spawn`).
    pub rules: String,
    /// The attempt limit per game.
    pub max_moves: u64,
    /// The version of power11 that played.
    pub version: String,
    /// The [`crate::players::SEARCH_REVISION`] that played: another one picks other moves. Reports
    /// written before it existed read as 0.
    #[serde(default)]
    pub search_revision: u32,
    /// The learned player's network, in words (tuples, stages, training, file checksum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<String>,
}

/// The statistics `bench` prints (and `--json` serialises).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchReport {
    /// Games played.
    pub games: u64,
    /// Which games, as half-open index ranges `[first, end)` in order: one for a single run,
    /// several when merged parts leave gaps.
    pub game_ranges: Vec<[u64; 2]>,
    /// The goal tile's value, `None` when the rules have no goal (then nothing is won).
    pub goal: Option<u64>,
    /// Games that reached the goal.
    pub wins: u64,
    /// wins / games.
    pub win_rate: f64,
    /// The 95% interval of the win rate, `None` when the rules have no goal.
    pub win_interval: Option<[f64; 2]>,
    /// Mean final score.
    pub mean_score: f64,
    /// Median final score.
    pub median_score: f64,
    /// Best final score.
    pub max_score: Score,
    /// How many games ended with each score: what a merge needs for the median.
    pub score_counts: BTreeMap<Score, u64>,
    /// How many games ended with each largest tile (tile value -> games).
    pub max_tile_counts: BTreeMap<u64, u64>,
    /// How many games reached each tile (tile value -> games whose largest tile was at least
    /// that), for every power of two from the smallest largest tile to the largest one.
    pub reached_counts: BTreeMap<u64, u64>,
    /// The 95% interval of each reach rate in `reached_counts`, as fractions.
    pub reached_intervals: BTreeMap<u64, [f64; 2]>,
    /// The indices of the first games (at most [`UNWON_SEEDS_SHOWN`], in game order) that did
    /// not reach the goal; empty when the rules have no goal.
    pub unwon_games: Vec<u64>,
    /// Their seeds, so that one can be watched with `--autoplay PLAYER --seed S`.
    pub unwon_seeds: Vec<u64>,
    /// Moves that changed the board, over all games.
    pub moves: u64,
    /// Moves attempted, over all games.
    pub attempts: u64,
    /// Games cut off by the attempt limit.
    pub cut_off: u64,
    /// Moves per second of wall-clock time, all threads together.
    pub moves_per_second: f64,
    /// Mean wall-clock time per move on the playing threads, in milliseconds.
    pub ms_per_move: f64,
    /// Thread time over all games, in seconds (what `ms_per_move` is computed from).
    pub thread_seconds: f64,
    /// Mean CPU time per move, in milliseconds: unlike `ms_per_move`, it leaves out the time
    /// a thread waited for a core, so a busy machine moves it far less (contention for caches
    /// and memory still raises it). `None` where the system does not give a thread's CPU time (it is measured on
    /// Linux), and in a merge of parts one of which lacks it (reports written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms_per_move: Option<f64>,
    /// CPU time of the threads over all games, in seconds (what `cpu_ms_per_move` is computed
    /// from), when every game's was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
    /// Wall-clock seconds (summed over the parts of a merged report).
    pub seconds: f64,
    /// Worker threads used (the most any part used, in a merged report).
    pub jobs: usize,
    /// What was measured.
    #[serde(flatten)]
    pub identity: RunIdentity,
}

/// Every rule of `rules` in words, for [`RunIdentity::rules`].
pub fn describe_rules(rules: &Rules) -> String {
    let n = rules.size();
    let goal = match rules.goal() {
        Some(goal) if rules.keep_playing() => format!("goal {} (keep playing)", tile_points(goal)),
        Some(goal) => format!("goal {}", tile_points(goal)),
        None => "no goal".to_string(),
    };
    let tile = |tile: NewTile| match tile {
        NewTile::TwoOrFour => "2 or 4",
        NewTile::Two => "2",
    };
    let start = match rules.start() {
        Start::Tiles { count, tile: t } => format!("start {count} tile(s) of {}", tile(t)),
        Start::Fill(p) => format!("start filled with 2s at {p}"),
    };
    format!(
        "{} {n}x{n}, {goal}, spawn {}, score {}, {start}",
        rules.variant().name(),
        rules.spawn().name(),
        rules.scoring().name(),
    )
}

/// How long one game took on its thread.
#[derive(Clone, Copy, Debug)]
struct GameTime {
    /// Wall-clock time.
    wall: Duration,
    /// CPU time, where the system gives it ([`thread_cpu_time`]).
    cpu: Option<Duration>,
}

/// The CPU time the calling thread has used so far, where the system gives it (Linux).
#[cfg(target_os = "linux")]
fn thread_cpu_time() -> Option<Duration> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through the pointer, which points at a local
    // that outlives the call.
    let read = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &raw mut now) };
    let seconds = u64::try_from(now.tv_sec).ok()?;
    let nanos = u32::try_from(now.tv_nsec).ok()?;
    (read == 0).then(|| Duration::new(seconds, nanos))
}

/// The CPU time the calling thread has used so far: not measured here.
#[cfg(not(target_os = "linux"))]
fn thread_cpu_time() -> Option<Duration> {
    None
}

fn play_one(config: &BenchConfig, index: u64, stop: &AtomicBool) -> Option<(GameRecord, GameTime)> {
    let started = Instant::now();
    let cpu_started = thread_cpu_time();
    let mut rng = seeded(game_seed(config.seed, index));
    let start = config.rules.new_board(&mut rng);
    let mut player = config.player.clone();
    let record = play_game_until(
        &config.rules,
        start,
        &mut player,
        &mut rng,
        config.max_attempts,
        stop,
    )?;
    let time = GameTime {
        wall: started.elapsed(),
        cpu: cpu_started
            .zip(thread_cpu_time())
            .map(|(start, end)| end.saturating_sub(start)),
    };
    Some((record, time))
}

/// What one bench thread played: games counted, and games that ended while a game below them
/// was still in flight, which count only if that one ends too.
#[derive(Default)]
struct Played {
    tally: Tally,
    pending: Vec<(u64, GameRecord, GameTime)>,
    /// The game this thread gave up when the run was stopped.
    given_up: Option<u64>,
}

impl Played {
    /// Counts the pending games below `lowest_playing`, the lowest game any thread plays: every
    /// game below it has ended.
    fn settle(&mut self, lowest_playing: u64) {
        let tally = &mut self.tally;
        self.pending.retain(|&(i, record, time)| {
            if i < lowest_playing {
                *tally = std::mem::take(tally).add(i, &record, time);
                false
            } else {
                true
            }
        });
    }

    /// The games counted, once every thread has ended: those below `given_up`, the first game
    /// given up (`u64::MAX`: none was).
    fn into_tally(mut self, given_up: u64) -> Tally {
        self.pending.retain(|&(i, ..)| i < given_up);
        self.settle(u64::MAX);
        self.tally
    }
}

/// The statistics of the games played so far, merged as games finish: its size does not grow
/// with the number of games (only with the number of distinct scores and largest tiles).
#[derive(Clone, Debug, Default)]
struct Tally {
    games: u64,
    wins: u64,
    /// How many games ended with each score (for the mean and the median).
    scores: BTreeMap<Score, u64>,
    max_tile_counts: BTreeMap<u64, u64>,
    /// The indices of the first games not won, at most [`UNWON_SEEDS_SHOWN`].
    unwon: Vec<u64>,
    moves: u64,
    attempts: u64,
    cut_off: u64,
    thread_seconds: f64,
    cpu_seconds: f64,
    /// Whether some game's CPU time is unknown (then `cpu_seconds` is not the whole run's).
    cpu_unknown: bool,
}

impl Tally {
    fn add(mut self, index: u64, record: &GameRecord, time: GameTime) -> Tally {
        self.games += 1;
        self.wins += u64::from(record.won);
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
        self.thread_seconds += time.wall.as_secs_f64();
        match time.cpu {
            Some(cpu) => self.cpu_seconds += cpu.as_secs_f64(),
            None => self.cpu_unknown = true,
        }
        self
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.games += other.games;
        self.wins += other.wins;
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
        self.cpu_seconds += other.cpu_seconds;
        self.cpu_unknown |= other.cpu_unknown;
        self
    }

    /// The tally a report was summarised from (what [`merge`] adds up).
    fn of_report(report: &BenchReport) -> Tally {
        Tally {
            games: report.games,
            wins: report.wins,
            scores: report.score_counts.clone(),
            max_tile_counts: report.max_tile_counts.clone(),
            unwon: report.unwon_games.clone(),
            moves: report.moves,
            attempts: report.attempts,
            cut_off: report.cut_off,
            thread_seconds: report.thread_seconds,
            cpu_seconds: report.cpu_seconds.unwrap_or(0.0),
            cpu_unknown: report.cpu_seconds.is_none(),
        }
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

    fn mean_score(&self) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        // Exact while the sum fits an i128 (every real run); past that, f64 is still close,
        // where a saturated sum would be wrong by any amount.
        let exact = self.scores.iter().try_fold(0i128, |sum, (&score, &k)| {
            sum.checked_add(score.checked_mul(Score::from(k))?)
        });
        let sum = exact.map_or_else(
            || self.scores.iter().map(|(&s, &k)| s as f64 * k as f64).sum(),
            |sum| sum as f64,
        );
        sum / self.games as f64
    }
}

/// Plays the games on `config.jobs` threads (no more than there are games), calling
/// `progress` after each game. Once `stop` is set (Ctrl-C), no game is started and the games in
/// flight are given up between two moves: the report is of the games before the first one given
/// up (always the first ones, `game_ranges` naming them), so that `bench merge` adds up the
/// rest, played later with `--first-game`. A thread with no game left ends, so more threads
/// than cores cost their switches, never a spin.
pub fn run(
    config: &BenchConfig,
    progress: &(dyn Fn() + Sync),
    stop: &AtomicBool,
) -> std::io::Result<BenchReport> {
    crate::model::packed::warm_up(config.rules.size());
    let started = Instant::now();
    let end = config.first_game.saturating_add(config.games);
    let threads = config.jobs.clamp(
        1,
        usize::try_from(config.games).unwrap_or(usize::MAX).max(1),
    );
    // Each thread takes the next game not yet taken, in index order, until none is left or
    // `stop` is set: no thread waits for another (games differ in length).
    let next = AtomicU64::new(config.first_game);
    // The game each thread plays (`u64::MAX`: none). Set to a bound at or below the game's
    // index before the game is taken, so that a game that ends while one below it is in flight
    // is always seen to, and waits (`Played::pending`) until the games below it are played:
    // a run given up partway counts only the games below the first one given up.
    let playing: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(u64::MAX)).collect();
    let lowest_playing = || playing.iter().map(|p| p.load(Ordering::SeqCst)).min();
    let play = |thread: usize| {
        let mut played = Played::default();
        while !stop.load(Ordering::Relaxed) {
            playing[thread].store(next.load(Ordering::SeqCst), Ordering::SeqCst);
            let Ok(i) = next.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |i| {
                (i < end).then_some(i + 1)
            }) else {
                break;
            };
            playing[thread].store(i, Ordering::SeqCst);
            let Some((record, time)) = play_one(config, i, stop) else {
                played.given_up = Some(i);
                break;
            };
            playing[thread].store(u64::MAX, Ordering::SeqCst);
            progress();
            played.pending.push((i, record, time));
            played.settle(lowest_playing().unwrap_or(u64::MAX));
        }
        playing[thread].store(u64::MAX, Ordering::SeqCst);
        played
    };
    let played = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(threads);
        for thread in 0..threads {
            match std::thread::Builder::new().spawn_scoped(scope, move || play(thread)) {
                Ok(handle) => handles.push(handle),
                Err(e) if handles.is_empty() => return Err(e),
                // The threads that started take every game between them.
                Err(_) => break,
            }
        }
        Ok(handles
            .into_iter()
            .map(|h| h.join().expect("a bench thread does not panic"))
            .collect::<Vec<_>>())
    })?;
    // Every game below the first one given up was played (games are taken in order, and a
    // thread gives up only the game it plays): those are the report's.
    let given_up = played.iter().filter_map(|p| p.given_up).min();
    let tally = played
        .into_iter()
        .map(|p| p.into_tally(given_up.unwrap_or(u64::MAX)))
        .fold(Tally::default(), Tally::merge);
    let identity = RunIdentity {
        seed: config.seed,
        player: config.player.name().to_string(),
        depth: config.depth,
        time_budget_ms: config.time_budget_ms,
        variant: config.rules.variant().name().to_string(),
        size: config.rules.size(),
        rules: describe_rules(&config.rules),
        max_moves: config.max_attempts,
        version: env!("CARGO_PKG_VERSION").to_string(),
        search_revision: crate::players::SEARCH_REVISION,
        network: config.network.clone(),
    };
    let run = Run {
        goal: config.rules.goal().map(tile_points),
        // Every game taken was played, and they were taken in order.
        game_ranges: if tally.games == 0 {
            Vec::new()
        } else {
            vec![[config.first_game, config.first_game + tally.games]]
        },
        seconds: started.elapsed().as_secs_f64(),
        jobs: config.jobs,
        identity,
    };
    Ok(summarise(run, &tally))
}

/// What a report says besides its tally.
struct Run {
    goal: Option<u64>,
    game_ranges: Vec<[u64; 2]>,
    seconds: f64,
    jobs: usize,
    identity: RunIdentity,
}

/// How many games reached each tile from the smallest largest tile to the largest, given how
/// many games ended with each largest tile (tiles never shrink, so a game reached every tile up
/// to its largest).
fn reached_counts(max_tile_counts: &BTreeMap<u64, u64>) -> BTreeMap<u64, u64> {
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
    reached_counts
}

fn summarise(run: Run, tally: &Tally) -> BenchReport {
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
    let reached_counts = reached_counts(&max_tile_counts);
    let reached_intervals = reached_counts
        .iter()
        .map(|(&tile, &k)| (tile, wilson_interval(k, games)))
        .collect();
    let unwon_games = if run.goal.is_some() {
        tally.unwon.clone()
    } else {
        Vec::new()
    };
    let unwon_seeds = unwon_games
        .iter()
        .map(|&index| game_seed(run.identity.seed, index))
        .collect();
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let cpu_seconds = (!tally.cpu_unknown).then_some(tally.cpu_seconds);
    BenchReport {
        games,
        game_ranges: run.game_ranges,
        goal: run.goal,
        wins: tally.wins,
        win_rate: ratio(tally.wins as f64, games as f64),
        win_interval: run.goal.map(|_| wilson_interval(tally.wins, games)),
        mean_score: tally.mean_score(),
        median_score,
        max_score: tally.scores.last_key_value().map_or(0, |(&s, _)| s),
        score_counts: tally.scores.clone(),
        max_tile_counts,
        reached_counts,
        reached_intervals,
        unwon_games,
        unwon_seeds,
        moves: tally.moves,
        attempts: tally.attempts,
        cut_off: tally.cut_off,
        moves_per_second: ratio(tally.moves as f64, run.seconds),
        ms_per_move: ratio(tally.thread_seconds * 1000.0, tally.moves as f64),
        thread_seconds: tally.thread_seconds,
        cpu_ms_per_move: cpu_seconds.map(|cpu| ratio(cpu * 1000.0, tally.moves as f64)),
        cpu_seconds,
        seconds: run.seconds,
        jobs: run.jobs,
        identity: run.identity,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_run(first_game: u64, games: u64) -> BenchConfig {
        BenchConfig {
            rules: Rules::mini(),
            player: AnyPlayer::Random(crate::players::RandomPlayer),
            depth: None,
            time_budget_ms: None,
            network: None,
            first_game,
            games,
            jobs: 2,
            seed: 7,
            max_attempts: 10_000,
        }
    }

    /// Regression (review): a stop left the threads walking through every index not played, so
    /// `--games` in the trillions and Ctrl-C did not end. A run stopped before it starts plays
    /// nothing, at once; one that is stopped partway has played a first part of its games.
    #[test]
    fn a_stopped_run_plays_no_more_and_its_games_are_the_first_ones() {
        let stopped = AtomicBool::new(true);
        let report = run(&random_run(5, u64::MAX - 5), &|| {}, &stopped).unwrap();
        assert_eq!((report.games, report.game_ranges.len()), (0, 0));
        let stop = AtomicBool::new(false);
        let played = std::sync::atomic::AtomicU64::new(0);
        let progress = || {
            if played.fetch_add(1, Ordering::Relaxed) + 1 >= 100 {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let report = run(&random_run(10, 1_000_000), &progress, &stop).unwrap();
        // The other thread's game in flight is given up, and the games above it not counted.
        assert!((50..=101).contains(&report.games), "{}", report.games);
        assert_eq!(report.game_ranges, vec![[10, 10 + report.games]]);
    }

    /// A game that ends while a game below it is in flight counts only once that one ends; a
    /// run given up partway counts the games below the first one given up, and no other.
    #[test]
    fn games_above_one_given_up_are_not_counted() {
        let record = |score| GameRecord {
            score,
            max_exponent: 3,
            moves: 5,
            attempts: 5,
            won: false,
            cut_off: false,
        };
        let time = GameTime {
            wall: Duration::from_millis(1),
            cpu: None,
        };
        let mut played = Played::default();
        for (i, score) in [(0, 10), (2, 30), (3, 40), (5, 60)] {
            played.pending.push((i, record(score), time));
        }
        // Game 1 is in flight elsewhere: only game 0 counts yet.
        played.settle(1);
        assert_eq!(played.tally.games, 1);
        assert_eq!(played.pending.len(), 3);
        // Game 1 ended; game 4 was given up: games 2 and 3 count, 5 does not.
        let tally = played.into_tally(4);
        assert_eq!(tally.games, 3);
        assert_eq!(
            tally.scores.keys().copied().collect::<Vec<_>>(),
            [10, 30, 40]
        );
        // Nothing given up: every game counts.
        let mut played = Played::default();
        played.pending.push((7, record(1), time));
        assert_eq!(played.into_tally(u64::MAX).games, 1);
    }

    #[test]
    fn wilson_intervals_match_published_values() {
        // Newcombe (1998), table I: 81/263 -> 0.2553-0.3662; 15/148 -> 0.0624-0.1605.
        let round = |x: f64| (x * 10_000.0).round() / 10_000.0;
        let [low, high] = wilson_interval(81, 263);
        assert_eq!((round(low), round(high)), (0.2553, 0.3662));
        let [low, high] = wilson_interval(15, 148);
        assert_eq!((round(low), round(high)), (0.0624, 0.1605));
        // The ends keep a width: 0/20 is not "surely 0%", 1000/1000 not "surely 100%".
        let [low, high] = wilson_interval(0, 20);
        assert_eq!((low, round(high)), (0.0, 0.1611));
        let [low, high] = wilson_interval(1000, 1000);
        assert_eq!((round(low), high), (0.9962, 1.0));
        let [low, high] = wilson_interval(0, 0);
        assert!(low <= 0.0 && high >= 1.0, "no games: no knowledge");
    }

    #[test]
    fn a_tally_split_anywhere_merges_into_the_same_tally() {
        let record = |score, max_exponent, won| GameRecord {
            score,
            max_exponent,
            moves: 10,
            attempts: 12,
            won,
            cut_off: false,
        };
        let records = [
            record(500, 8, false),
            record(9000, 11, true),
            record(500, 9, false),
            record(12_000, 11, true),
            record(700, 9, false),
        ];
        let tally = |range: std::ops::Range<usize>| {
            range.fold(Tally::default(), |t, i| {
                let time = GameTime {
                    wall: Duration::from_millis(1),
                    cpu: Some(Duration::from_millis(1)),
                };
                t.add(i as u64, &records[i], time)
            })
        };
        let whole = tally(0..5);
        for split in 0..=5 {
            let merged = tally(0..split).merge(tally(split..5));
            assert_eq!(merged.scores, whole.scores, "split at {split}");
            assert_eq!(merged.max_tile_counts, whole.max_tile_counts);
            assert_eq!(merged.unwon, vec![0, 2, 4]);
            assert_eq!((merged.games, merged.wins, merged.moves), (5, 2, 50));
        }
        assert_eq!(whole.nth_score(2), 700);
        assert!((whole.mean_score() - 4540.0).abs() < 1e-9);
    }

    /// A report of a tally of classic games, for tests of what reports show.
    fn report(tally: &Tally) -> BenchReport {
        let run = Run {
            goal: None,
            game_ranges: vec![[0, tally.games]],
            seconds: 1.0,
            jobs: 1,
            identity: RunIdentity {
                seed: 1,
                player: "random".to_string(),
                depth: None,
                time_budget_ms: None,
                variant: "classic".to_string(),
                size: 4,
                rules: describe_rules(&Rules::classic()),
                max_moves: 100,
                version: "test".to_string(),
                search_revision: 0,
                network: None,
            },
        };
        summarise(run, tally)
    }

    #[test]
    fn a_count_of_one_is_singular() {
        let record = |moves, attempts| GameRecord {
            score: 4,
            max_exponent: 2,
            moves,
            attempts,
            won: false,
            cut_off: false,
        };
        let game = GameTime {
            wall: Duration::from_millis(1),
            cpu: None,
        };
        let one = Tally::default().add(0, &record(1, 1), game);
        assert!(report(&one).to_text().contains("moves: 1 (1 attempt) in "));
        let more = Tally::default().add(0, &record(10, 12), game);
        assert!(
            report(&more)
                .to_text()
                .contains("moves: 10 (12 attempts) in ")
        );
    }

    #[test]
    fn cpu_time_is_reported_only_when_every_game_has_one() {
        let record = GameRecord {
            score: 100,
            max_exponent: 5,
            moves: 10,
            attempts: 12,
            won: false,
            cut_off: false,
        };
        let game = |cpu_ms: Option<u64>| GameTime {
            wall: Duration::from_millis(9),
            cpu: cpu_ms.map(Duration::from_millis),
        };
        let measured =
            Tally::default()
                .add(0, &record, game(Some(3)))
                .add(1, &record, game(Some(5)));
        let whole = report(&measured);
        assert_eq!(whole.cpu_seconds, Some(0.008));
        // 8 ms of CPU time over 20 moves; the wall-clock figure stays what it was.
        assert!((whole.cpu_ms_per_move.unwrap() - 0.4).abs() < 1e-12);
        assert!((whole.ms_per_move - 0.9).abs() < 1e-12);
        // One game without it, in this tally or in a merged one, and the run has none.
        let partly = measured.clone().add(2, &record, game(None));
        assert_eq!(report(&partly).cpu_seconds, None);
        assert_eq!(report(&partly).cpu_ms_per_move, None);
        let other = Tally::of_report(&report(&partly));
        assert_eq!(report(&measured.merge(other)).cpu_seconds, None);
        assert!(report(&partly).to_text().contains(" ms/move\n"));
        assert!(
            whole
                .to_text()
                .contains(" ms/move (0.400000 ms/move of CPU time)\n")
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_cpu_clock_counts_work_and_not_sleep() {
        let start = thread_cpu_time().expect("Linux gives a thread's CPU time");
        std::thread::sleep(Duration::from_millis(100));
        let slept = thread_cpu_time().unwrap().saturating_sub(start);
        // A sleeping thread uses microseconds of CPU: a wall clock would read 100 ms.
        assert!(slept < Duration::from_millis(50), "{slept:?}");
        // Work moves it on (however busy the machine, within a generous wall-clock limit).
        let before = thread_cpu_time().unwrap();
        let limit = Instant::now() + Duration::from_secs(60);
        let mut x = 0u64;
        while thread_cpu_time().unwrap() < before + Duration::from_millis(5) {
            assert!(Instant::now() < limit, "the CPU clock did not move");
            for i in 0..10_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
        }
    }

    #[test]
    fn a_mean_too_large_for_an_exact_sum_is_still_close() {
        let tally = Tally {
            games: 10,
            scores: BTreeMap::from([(Score::MAX / 4, 10)]),
            ..Tally::default()
        };
        let expected = (Score::MAX / 4) as f64;
        assert!((tally.mean_score() - expected).abs() / expected < 1e-9);
    }
}
