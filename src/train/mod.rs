//! `power11 train`: worker threads play self-play games on one shared network
//! ([`crate::learning::td::learn_game`], or from collected late-stage boards: [`collect_starts`]), a
//! learning-rate schedule lowers the rate as the budget is spent, and the network is written
//! atomically at every checkpoint and at the end.
//!
//! Game `i` of a network's training (counted over every run, so a resumed run goes on where the
//! last one stopped) is seeded from the run's seed and `i`. With one thread and a game budget a
//! run is deterministic; with more threads the games interleave their updates, and with a time
//! budget the number of games depends on the machine.

pub mod plot;
pub mod prepare;

use crate::files::save::FileError;
use crate::files::weights::write_weights;
use crate::learning::ntuple::Network;
use crate::learning::ntuple::Training;
use crate::learning::td::{Learning, Outcome, learn_game, learn_game_from, play_until};
use crate::model::packed::Board4;
use crate::model::random::{below, mix, seeded};
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// The stage split of new networks: separate weights once a 16384 and once a 32768 is made.
pub const DEFAULT_STAGES: &[u8] = &[14, 15];

/// The smallest learning rate: smaller ones learn nothing in any budget (and past the `f32`
/// range they would be 0).
pub const MIN_RATE: f32 = 1e-6;

/// The most a new network may value every board at (`--optimistic`): far above any score a
/// game makes, and each of a 4x6 network's 32 weights stays well inside the f16 range.
pub const MAX_INITIAL_VALUE: f32 = 1_000_000.0;

/// The learning rate under temporal coherence: a whole step (each update moves a 4x6 network's
/// value by its whole error, times the weights' coherence), Jaśkowski's α = 1.
pub const COHERENCE_RATE: f32 = 0.25;

/// How many start positions late-stage training (`--start-at`) collects.
pub const START_POSITIONS: usize = 1000;

/// How long a run trains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    /// This much wall-clock time.
    Time(Duration),
    /// This many games.
    Games(u64),
}

/// The learning-rate schedule: `rate` at the start, falling geometrically to `final_rate` over
/// the budget before its last `final_part`, then `final_rate` to the end. A high rate learns
/// fast but its noise caps what the weights can be: lowering it settles them (measured: a
/// 25-minute one-thread run at 0.1 that dropped to 0.01 for its last 5 minutes went from a
/// rolling mean score of 86,000 to 131,000), and a rate that falls gradually spends the middle
/// of the budget where a lower rate still learns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// The rate at the start of the run.
    pub rate: f32,
    /// The rate for the end of the run.
    pub final_rate: f32,
    /// Which part of the budget, at the end, uses `final_rate` (0 to 1).
    pub final_part: f64,
}

impl Default for Schedule {
    fn default() -> Schedule {
        Schedule {
            rate: 0.1,
            final_rate: 0.01,
            final_part: 0.2,
        }
    }
}

impl Schedule {
    /// `rate` from the start to the end (temporal coherence lowers each weight's own rate).
    pub fn constant(rate: f32) -> Schedule {
        Schedule {
            rate,
            final_rate: rate,
            ..Schedule::default()
        }
    }

    /// `rate` falling to a tenth of it, the default shape.
    pub fn falling(rate: f32) -> Schedule {
        Schedule {
            rate,
            final_rate: rate / 10.0,
            ..Schedule::default()
        }
    }

    /// Whether the rate never changes.
    #[allow(clippy::float_cmp)] // a constant schedule holds one value twice
    pub fn is_constant(&self) -> bool {
        self.final_rate == self.rate
    }

    /// The rate when `done` (0 to 1) of the budget is spent.
    pub fn rate_at(&self, done: f64) -> f32 {
        // `max` also turns a NaN into 0; a `final_part` of 1 is then final_rate throughout.
        let done = done.max(0.0);
        let falling = 1.0 - self.final_part;
        if done >= falling {
            return self.final_rate;
        }
        let ratio = f64::from(self.final_rate) / f64::from(self.rate);
        (f64::from(self.rate) * ratio.powf(done / falling)) as f32
    }
}

/// What a run does.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    /// How long.
    pub budget: Budget,
    /// Worker threads.
    pub threads: usize,
    /// The seed games are seeded from.
    pub seed: u64,
    /// The learning rates.
    pub schedule: Schedule,
    /// λ ([`Learning::lambda`]).
    pub lambda: f32,
    /// Whether long games are played again from their middle ([`Learning::rewind`]).
    pub rewind: bool,
    /// Early-stage training: games end at the first tile of this exponent
    /// ([`Learning::end_at`]).
    pub end_at: Option<u8>,
    /// Where the network is written.
    pub out: PathBuf,
    /// How often it is written while training.
    pub checkpoint_every: Duration,
    /// Where games start: new boards if empty, else a board drawn from these for each game
    /// (late-stage training, see [`collect_starts`]).
    pub starts: Vec<Board4>,
}

/// Why a run stopped before its budget was spent.
#[derive(Debug, Error)]
pub enum TrainError {
    /// A checkpoint could not be written (its weights, or its coherence sums). The files keep
    /// what was written before; the message says which file failed and why, once.
    #[error(
        "training stopped: a checkpoint could not be written ({0}); the files keep what was written before"
    )]
    File(FileError),
    /// A weight stopped being a number: the rate is too high for the network. The file keeps
    /// the last checkpoint.
    #[error(
        "training diverged (weight {0} is no longer a number) and was stopped; {1} keeps the last checkpoint: train again with a lower --rate"
    )]
    Diverged(usize, String),
    /// The network was read to play ([`crate::learning::ntuple::WeightUse::Play`]): its f16
    /// weights never move, so a run would only count games. Read it for training.
    #[error(
        "the network was read to play, and its weights cannot learn: read it with WeightUse::Training"
    )]
    Frozen,
}

/// The tiles whose reach rates progress reports show (exponents).
pub const REACH_SHOWN: [u8; 5] = [11, 12, 13, 14, 15];

/// How a run is going, or went.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    /// Games finished in this run.
    pub games: u64,
    /// Moves learned from in them (rewinds included).
    pub moves: u64,
    /// Time since the run started.
    pub elapsed: Duration,
    /// The mean score of the last [`WINDOW`] games.
    pub recent_score: f64,
    /// Of the last [`WINDOW`] games, the part that reached each tile of [`REACH_SHOWN`].
    pub recent_reach: [f64; REACH_SHOWN.len()],
    /// How many games the recent figures are over.
    pub recent_games: usize,
    /// The learning rate in use.
    pub rate: f32,
    /// The budget spent, 0 to 1.
    pub done: f64,
    /// Checkpoints written so far in this run.
    pub checkpoints: u64,
    /// Where its games end ([`TrainConfig::end_at`]): reach rates of larger tiles are not
    /// shown, as no game makes them.
    pub end_at: Option<u8>,
    /// Of the last [`WINDOW`] games, the part that reached the end tile (0 without one).
    pub recent_end_reach: f64,
}

/// How many recent games the rolling figures cover.
pub const WINDOW: usize = 1000;

impl Progress {
    /// Moves per second over the run.
    pub fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The tiles whose reach rates a run shows (progress lines, the learning curve), by
    /// exponent, with their rates: those of [`REACH_SHOWN`] that its games can make, and the
    /// tile they end at when it is below them (the rate that says how its games go).
    pub fn reach_shown(&self) -> Vec<(u8, f64)> {
        let mut shown: Vec<(u8, f64)> = REACH_SHOWN
            .into_iter()
            .zip(self.recent_reach)
            .filter(|&(e, _)| self.end_at.is_none_or(|end| e <= end))
            .collect();
        if let Some(end) = self.end_at.filter(|&end| end < REACH_SHOWN[0]) {
            shown.push((end, self.recent_end_reach));
        }
        shown
    }

    /// One line: games, speed, the rolling score and reach rates, the rate.
    pub fn line(&self) -> String {
        let reach: Vec<String> = self
            .reach_shown()
            .into_iter()
            .map(|(e, part)| format!("{} {:.1}%", 1u64 << e, 100.0 * part))
            .collect();
        let rate = rate_words(self.rate);
        format!(
            "{} game{}, {:.2}M moves/s; last {}: mean score {:.0}, {}; rate {rate}",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.moves_per_second() / 1e6,
            self.recent_games,
            self.recent_score,
            reach.join(" "),
        )
    }
}

/// A learning rate (or λ) as it reads best: the rate falls continuously, and four decimals
/// without trailing zeros say enough (an `f32` 0.002 printed in full is 0.0019999999); values
/// too small for them (a --rate of 0.0001 falls to 0.00001) are in exponent form.
pub fn rate_words(rate: f32) -> String {
    if rate == 0.0 || rate >= 1e-3 {
        let fixed = format!("{rate:.4}");
        fixed
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    } else {
        format!("{rate:.1e}")
    }
}

/// The rolling window of recent games.
#[derive(Default)]
struct Recent {
    games: VecDeque<Outcome>,
}

impl Recent {
    fn push(&mut self, outcome: Outcome) {
        if self.games.len() == WINDOW {
            self.games.pop_front();
        }
        self.games.push_back(outcome);
    }

    fn score(&self) -> f64 {
        let n = self.games.len().max(1) as f64;
        self.games.iter().map(|g| g.score as f64).sum::<f64>() / n
    }

    fn reach(&self) -> [f64; REACH_SHOWN.len()] {
        REACH_SHOWN.map(|e| self.reach_of(e))
    }

    /// The part of the recent games that made a tile of exponent `e` or more.
    fn reach_of(&self, e: u8) -> f64 {
        let n = self.games.len().max(1) as f64;
        self.games.iter().filter(|g| g.max_exponent >= e).count() as f64 / n
    }
}

/// The seed of game `index` of a network's training under `seed`.
pub fn training_game_seed(seed: u64, index: u64) -> u64 {
    mix(seed ^ mix(index.wrapping_add(0x7472_6169_6e00)))
}

/// The start positions of late-stage training, as [`collect_starts`] found them.
#[derive(Clone, Debug, PartialEq)]
pub struct Starts {
    /// The boards, in the order of the games that made them.
    pub boards: Vec<Board4>,
    /// How many games were played to find them.
    pub games: u64,
}

/// Keeps the games that look for start positions apart from the training games of the same
/// seed and index ("START" in ASCII).
const START_SALT: u64 = 0x0053_5441_5254;

/// The rarest a network may make the tile, in games per board: a network that makes it more
/// rarely is not ready for late-stage training (collecting would take long, and training would
/// start from few boards).
pub const START_GAMES_PER_BOARD: u64 = 200;

/// How many games [`collect_starts`] plays before it judges the network's rate: after them it
/// gives up as soon as it has found fewer than one board in [`START_GAMES_PER_BOARD`] games.
pub const START_GAMES_BEFORE_JUDGING: u64 = 2000;

/// Whether [`collect_starts`] gives up before game `index`, having found `found` boards in the
/// games before it.
fn too_rare(found: u64, index: u64) -> bool {
    index >= START_GAMES_BEFORE_JUDGING && found.saturating_mul(START_GAMES_PER_BOARD) < index
}

/// Collects up to `count` start positions for late-stage training: the boards on which greedy
/// games of `network` (no learning) first hold a tile of `exponent` or more. Game `i` is seeded
/// from `seed` and `i` (apart from training's games) and the network does not change, so the
/// boards found are the same whatever the number of `threads` playing at once, as long as it
/// finds `count` (a few more games may be played with more threads). It gives up after
/// [`START_GAMES_BEFORE_JUDGING`] games if the network makes the tile in fewer than one game in
/// [`START_GAMES_PER_BOARD`], and stops when `stop` is set, with what it found.
pub fn collect_starts(
    network: &Network,
    exponent: u8,
    count: usize,
    threads: usize,
    seed: u64,
    stop: &AtomicBool,
) -> Starts {
    let next = AtomicU64::new(0);
    let found = AtomicU64::new(0);
    let played = AtomicU64::new(0);
    let mut boards: Vec<(u64, Board4)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                let (next, found, played) = (&next, &found, &played);
                scope.spawn(move || {
                    let mut mine = Vec::new();
                    loop {
                        let enough = found.load(Ordering::Relaxed) >= count as u64;
                        if enough || stop.load(Ordering::Relaxed) {
                            break;
                        }
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if too_rare(found.load(Ordering::Relaxed), index) {
                            break;
                        }
                        let mut rng = seeded(mix(training_game_seed(seed, index) ^ START_SALT));
                        let made = play_until(network, exponent, &mut rng);
                        played.fetch_add(1, Ordering::Relaxed);
                        if let Some(board) = made {
                            found.fetch_add(1, Ordering::Relaxed);
                            mine.push((index, board));
                        }
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a start-position worker does not panic"))
            .collect()
    });
    // Game order, not finishing order: every game below the count-th find was played to its
    // end, so these are the first `count` finds whatever the threads.
    boards.sort_unstable_by_key(|&(index, _)| index);
    boards.truncate(count);
    Starts {
        boards: boards.into_iter().map(|(_, board)| board).collect(),
        games: played.load(Ordering::Relaxed),
    }
}

/// Trains `network` as `config` says, calling `progress` about five times a second and after
/// the last game, writing checkpoints to `config.out` and the network at the end. Setting
/// `stop` ends the run early (the games in flight finish and count); the network is written
/// either way. Returns the run's last progress.
pub fn run(
    network: &Network,
    config: &TrainConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Progress, TrainError> {
    if network.is_frozen() {
        return Err(TrainError::Frozen);
    }
    let started = Instant::now();
    let first_game = network.training().games;
    let next = AtomicU64::new(0);
    // Set when a checkpoint cannot be written: training on with nowhere to keep it loses time.
    let abort = AtomicBool::new(false);
    let threads = config.threads.max(1);
    let budget = config.budget;
    let done_at = |games: u64| match budget {
        Budget::Games(total) => games as f64 / total.max(1) as f64,
        Budget::Time(limit) => started.elapsed().as_secs_f64() / limit.as_secs_f64().max(1e-9),
    };
    let (sender, outcomes) = mpsc::channel::<Outcome>();
    let mut recent = Recent::default();
    let mut last = Progress {
        games: 0,
        moves: 0,
        elapsed: Duration::ZERO,
        recent_score: 0.0,
        recent_reach: [0.0; REACH_SHOWN.len()],
        recent_games: 0,
        rate: config.schedule.rate,
        done: 0.0,
        checkpoints: 0,
        end_at: config.end_at,
        recent_end_reach: 0.0,
    };
    // What has been recorded in the network's counters so far.
    let mut recorded = Training::default();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let sender = sender.clone();
            let (next, abort) = (&next, &abort);
            let done_at = &done_at;
            scope.spawn(move || {
                play_games(
                    network,
                    config,
                    first_game,
                    (next, stop, abort),
                    done_at,
                    &sender,
                );
            });
        }
        drop(sender);
        let mut last_checkpoint = Instant::now();
        let mut last_report = Instant::now();
        let tick = Duration::from_millis(200);
        loop {
            let finished = match outcomes.recv_timeout(tick) {
                Ok(outcome) => {
                    last.games += 1;
                    last.moves += outcome.moves;
                    recent.push(outcome);
                    false
                }
                Err(mpsc::RecvTimeoutError::Timeout) => false,
                Err(mpsc::RecvTimeoutError::Disconnected) => true,
            };
            if finished || last_report.elapsed() >= tick {
                last.elapsed = started.elapsed();
                last.recent_score = recent.score();
                last.recent_reach = recent.reach();
                last.recent_end_reach = config.end_at.map_or(0.0, |e| recent.reach_of(e));
                last.recent_games = recent.games.len();
                last.done = done_at(last.games).min(1.0);
                last.rate = config.schedule.rate_at(last.done);
                progress(&last);
                last_report = Instant::now();
            }
            if finished || last_checkpoint.elapsed() >= config.checkpoint_every {
                match checkpoint(network, config, &last, recorded, started) {
                    Ok(now) => {
                        recorded = now;
                        last.checkpoints += 1;
                    }
                    Err(e) => {
                        // Training on with nowhere to keep it would lose time: the threads stop.
                        abort.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                }
                last_checkpoint = Instant::now();
            }
            if finished {
                return Ok(last.clone());
            }
        }
    })
}

/// A training thread: plays and learns games, taking the next game's index from `next`, until
/// the budget is spent or `stop` or `abort` is set; sends each game's outcome.
fn play_games(
    network: &Network,
    config: &TrainConfig,
    first_game: u64,
    (next, stop, abort): (&AtomicU64, &AtomicBool, &AtomicBool),
    done_at: &dyn Fn(u64) -> f64,
    sender: &mpsc::Sender<Outcome>,
) {
    let mut path = Vec::new();
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let done = done_at(index);
        let out_of_games = matches!(config.budget, Budget::Games(n) if index >= n);
        let stopped = stop.load(Ordering::Relaxed) || abort.load(Ordering::Relaxed);
        if out_of_games || done >= 1.0 || stopped {
            break;
        }
        let learning = Learning {
            rate: config.schedule.rate_at(done),
            lambda: config.lambda,
            rewind: config.rewind,
            end_at: config.end_at,
        };
        let mut rng = seeded(training_game_seed(
            config.seed,
            first_game.wrapping_add(index),
        ));
        let outcome = if config.starts.is_empty() {
            learn_game(network, learning, &mut rng, &mut path)
        } else {
            let start = config.starts[below(&mut rng, config.starts.len())];
            learn_game_from(network, learning, start, &mut rng, &mut path)
        };
        if sender.send(outcome).is_err() {
            break;
        }
    }
}

/// Adds what was trained since `recorded` to the network's counters and writes the network;
/// returns the counters now recorded. A network gone non-finite is not written.
fn checkpoint(
    network: &Network,
    config: &TrainConfig,
    last: &Progress,
    recorded: Training,
    started: Instant,
) -> Result<Training, TrainError> {
    let now = Training {
        games: last.games,
        moves: last.moves,
        seconds: started.elapsed().as_secs_f64(),
    };
    network.add_training(Training {
        games: now.games - recorded.games,
        moves: now.moves - recorded.moves,
        seconds: now.seconds - recorded.seconds,
    });
    if let Some(weight) = network.first_non_finite() {
        let out = crate::files::shown(&config.out).clone();
        return Err(TrainError::Diverged(weight, out));
    }
    write_weights(&config.out, network, last.rate).map_err(TrainError::File)?;
    Ok(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::ntuple::{Stages, TupleSet};
    use crate::model::grid::Grid;

    #[test]
    #[allow(clippy::float_cmp)] // rate_at(0) is rate x ratio^0, exact; the others are returned
    fn the_rate_falls_to_a_tenth_and_stays_there_for_the_last_part_of_the_budget() {
        let schedule = Schedule::default();
        let close = |a: f32, b: f32| (a - b).abs() < 1e-6;
        assert_eq!(schedule.rate_at(0.0), 0.1);
        // Halfway through the fall (0.4 of the budget) it is 0.1 / sqrt(10).
        assert!(
            close(schedule.rate_at(0.4), 0.1 / 10f32.sqrt()),
            "{}",
            schedule.rate_at(0.4)
        );
        assert!(schedule.rate_at(0.79) > 0.01 && schedule.rate_at(0.79) < 0.0105);
        assert_eq!(schedule.rate_at(0.8), 0.01);
        assert_eq!(schedule.rate_at(1.0), 0.01);
        let rates: Vec<f32> = (0..=100)
            .map(|k| schedule.rate_at(f64::from(k) / 100.0))
            .collect();
        assert!(
            rates.windows(2).all(|w| w[1] <= w[0]),
            "never rises: {rates:?}"
        );
    }

    /// A small network trained for `games` games (one thread, a seed) split at 64.
    /// A one-thread run of `games` games from `starts`, plain TD(0) with no rewinds, writing
    /// to `out` and never checkpointing on the way.
    fn quick_run(games: u64, out: std::path::PathBuf, starts: Vec<Board4>) -> TrainConfig {
        TrainConfig {
            budget: Budget::Games(games),
            threads: 1,
            seed: 3,
            schedule: Schedule::default(),
            lambda: 0.0,
            rewind: false,
            end_at: None,
            out,
            checkpoint_every: Duration::from_secs(3600),
            starts,
        }
    }

    fn small_network(games: u64) -> Network {
        let network = Network::new(TupleSet::Rows, Stages::split_at(&[6]).unwrap());
        let mut rng = seeded(1);
        let mut path = Vec::new();
        for _ in 0..games {
            learn_game(&network, Learning::td0(0.1), &mut rng, &mut path);
        }
        network
    }

    #[test]
    fn start_positions_hold_the_tile_and_one_thread_finds_the_same_ones() {
        let network = small_network(300);
        let never = AtomicBool::new(false);
        let starts = collect_starts(&network, 6, 20, 1, 4, &never);
        assert_eq!(starts.boards.len(), 20);
        assert!(starts.games >= 20);
        assert!(starts.boards.iter().all(|b| b.max_exponent() == 6));
        assert_eq!(collect_starts(&network, 6, 20, 1, 4, &never), starts);
        // Two threads find the same boards (they may play a game more).
        assert_eq!(
            collect_starts(&network, 6, 20, 2, 4, &never).boards,
            starts.boards
        );
        // Another seed, other boards.
        assert_ne!(
            collect_starts(&network, 6, 20, 1, 5, &never).boards,
            starts.boards
        );
    }

    #[test]
    fn a_tile_the_network_never_makes_gives_up_after_a_bounded_number_of_games() {
        let network = small_network(0);
        let never = AtomicBool::new(false);
        let starts = collect_starts(&network, 15, 1000, 2, 4, &never);
        assert!(starts.boards.is_empty());
        assert_eq!(starts.games, START_GAMES_BEFORE_JUDGING);
        // And a stop ends it at once.
        let stopped = AtomicBool::new(true);
        assert_eq!(collect_starts(&network, 6, 10, 1, 4, &stopped).games, 0);
    }

    #[test]
    fn collection_gives_up_after_2000_games_on_fewer_than_one_board_in_200() {
        assert!(!too_rare(0, START_GAMES_BEFORE_JUDGING - 1));
        assert!(too_rare(0, START_GAMES_BEFORE_JUDGING));
        assert!(!too_rare(10, 2000));
        assert!(too_rare(9, 2000));
        assert!(!too_rare(1000, 200_000));
        assert!(too_rare(999, 200_000));
    }

    #[test]
    fn late_stage_training_moves_only_the_late_stages_weights() {
        let network = small_network(300);
        let never = AtomicBool::new(false);
        let starts = collect_starts(&network, 6, 50, 1, 4, &never).boards;
        let stage = |values: &[Option<Vec<f32>>], k: usize| values[k].clone().unwrap_or_default();
        let stages = |network: &Network| -> Vec<Option<Vec<f32>>> {
            (0..network.stages().count())
                .map(|k| network.stage_values(k))
                .collect()
        };
        let before = stages(&network);
        let dir = tempfile::tempdir().unwrap();
        let config = quick_run(100, dir.path().join("w.p11w"), starts);
        let last = run(&network, &config, &never, &mut |_| {}).unwrap();
        assert_eq!(last.games, 100);
        let after = stages(&network);
        // (Compared with `assert!`: a failure need not print 131,072 weights.)
        assert!(stage(&after, 0) == stage(&before, 0), "stage 0 moved");
        assert!(
            stage(&after, 1) != stage(&before, 1),
            "stage 1 learned nothing"
        );
    }

    #[test]
    fn early_stage_training_moves_only_the_early_stages_weights() {
        let network = small_network(300);
        let never = AtomicBool::new(false);
        let before_late = network.stage_values(1);
        let before_early = network.stage_values(0);
        assert!(before_late.is_some(), "the small network makes a 64");
        let dir = tempfile::tempdir().unwrap();
        let config = TrainConfig {
            end_at: Some(6),
            ..quick_run(100, dir.path().join("w.p11w"), Vec::new())
        };
        let last = run(&network, &config, &never, &mut |_| {}).unwrap();
        assert_eq!(last.games, 100);
        assert!(network.stage_values(1) == before_late, "stage 1 moved");
        assert!(
            network.stage_values(0) != before_early,
            "stage 0 learned nothing"
        );
        // Without an end, the same games move stage 1 too.
        let again = small_network(300);
        let config = quick_run(100, dir.path().join("v.p11w"), Vec::new());
        run(&again, &config, &never, &mut |_| {}).unwrap();
        assert!(again.stage_values(1) != before_late);
    }

    #[test]
    fn a_network_read_to_play_is_refused_rather_than_trained_in_vain() {
        let bytes = small_network(50).to_bytes();
        let frozen =
            Network::from_bytes_for(&bytes, crate::learning::ntuple::WeightUse::Play).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = quick_run(10, dir.path().join("w.p11w"), Vec::new());
        let never = AtomicBool::new(false);
        let games = frozen.training().games;
        let refused = run(&frozen, &config, &never, &mut |_| {}).unwrap_err();
        assert!(matches!(refused, TrainError::Frozen), "{refused}");
        // Nothing was written, nothing counted.
        assert!(!config.out.exists());
        assert_eq!(frozen.training().games, games);
    }

    #[test]
    fn lambda_and_rewinds_reach_the_training_games() {
        let never = AtomicBool::new(false);
        let dir = tempfile::tempdir().unwrap();
        let train = |lambda: f32, rewind: bool| {
            let network = Network::new(TupleSet::Rows, Stages::single());
            let config = TrainConfig {
                lambda,
                rewind,
                ..quick_run(30, dir.path().join("w.p11w"), Vec::new())
            };
            let last = run(&network, &config, &never, &mut |_| {}).unwrap();
            (last, network.to_bytes())
        };
        let (plain, plain_weights) = train(0.0, false);
        let (_, lambda_weights) = train(0.5, false);
        let (rewound, _) = train(0.0, true);
        // The same games' first moves, learned otherwise.
        assert_eq!(plain.games, 30);
        assert!(lambda_weights[63..] != plain_weights[63..]);
        // Rewinds learn from more moves in as many games.
        assert_eq!(rewound.games, 30);
        assert!(
            rewound.moves > plain.moves,
            "{} / {}",
            rewound.moves,
            plain.moves
        );
    }

    #[test]
    fn progress_lines_say_what_the_run_did() {
        let progress = Progress {
            games: 1200,
            moves: 3_000_000,
            elapsed: Duration::from_secs(2),
            recent_score: 21_000.4,
            recent_reach: [0.9, 0.5, 0.1, 0.0, 0.0],
            recent_games: 1000,
            rate: 0.1,
            done: 0.5,
            checkpoints: 1,
            end_at: None,
            recent_end_reach: 0.0,
        };
        assert_eq!(
            progress.line(),
            "1200 games, 1.50M moves/s; last 1000: mean score 21000, \
             2048 90.0% 4096 50.0% 8192 10.0% 16384 0.0% 32768 0.0%; rate 0.1"
        );
        // Games that end at 4096 make no larger tile: their rates are not shown.
        let ended = Progress {
            end_at: Some(12),
            ..progress.clone()
        };
        assert_eq!(
            ended.line(),
            "1200 games, 1.50M moves/s; last 1000: mean score 21000, 2048 90.0% 4096 50.0%; \
             rate 0.1"
        );
        // Below 2048, the end tile's own rate.
        let early = Progress {
            end_at: Some(6),
            recent_end_reach: 0.41,
            ..progress.clone()
        };
        assert_eq!(
            early.line(),
            "1200 games, 1.50M moves/s; last 1000: mean score 21000, 64 41.0%; rate 0.1"
        );
        let rate_shown = |rate: f32| {
            let line = Progress {
                rate,
                ..progress.clone()
            }
            .line();
            line.rsplit("rate ").next().unwrap().to_string()
        };
        assert_eq!(rate_shown(0.01), "0.01");
        assert_eq!(rate_shown(0.031_622_8), "0.0316");
        assert_eq!(rate_shown(0.25), "0.25");
        assert_eq!(rate_shown(0.000_01), "1.0e-5");
        let one = Progress {
            games: 1,
            recent_games: 1,
            ..progress.clone()
        };
        assert!(one.line().starts_with("1 game, "), "{}", one.line());
    }

    #[test]
    fn the_schedule_has_no_nan_at_its_edges() {
        let all_final = Schedule {
            final_part: 1.0,
            ..Schedule::default()
        };
        for done in [-1.0, 0.0, 0.5, 1.0, 2.0, f64::NAN] {
            assert!((all_final.rate_at(done) - 0.01).abs() < 1e-9, "{done}");
            let rate = Schedule::default().rate_at(done);
            assert!((0.01..=0.1).contains(&rate), "{done}: {rate}");
        }
    }
}
