//! `power11 train`: the checks before a run (the output file, its lock, the coherence file),
//! the run, and its report in words.

use super::UsageError;
use super::args::TrainArgs;
use crate::files::outputs::{
    check_coherence_out, check_plot, check_plot_apart, check_weights_out, weights_out,
};
use crate::files::weights::coherence_path;
use crate::learning::cores;
use crate::learning::ntuple::Network;
use crate::train::prepare::{NetworkSettings, Prepared, prepare};
use crate::train::{self, Budget, START_POSITIONS, TrainConfig};
use anyhow::Context;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

pub(super) fn run_train(args: &TrainArgs) -> anyhow::Result<()> {
    let out = weights_out(args.out.as_deref())?;
    let _lock = check_weights_out(&out, args.resume, args.restart)?;
    check_plot(args.plot.as_deref())?;
    if let Some(plot) = &args.plot {
        check_plot_apart(plot, &[out.clone(), coherence_path(&out)])?;
    }
    if !args.no_coherence {
        check_coherence_out(&out)?;
    }
    let settings = NetworkSettings {
        out: out.clone(),
        resume: args.resume,
        tuples: args.tuples,
        stages: args.stages.clone(),
        start_at: args.start_at,
        end_at: args.end_at,
        optimistic: args.optimistic,
        coherence: !args.no_coherence,
        rate: args.rate,
    };
    let Prepared {
        network,
        schedule,
        notes,
    } = prepare(&settings).map_err(|e| UsageError(e.to_string()))?;
    for note in notes {
        super::note_as("power11 train", note);
    }
    let threads = args.threads.map_or_else(cores, |t| t as usize);
    let seed = args.seed.unwrap_or_else(super::os_seed);
    let budget = match (args.minutes, args.games) {
        (Some(minutes), _) => Budget::Time(Duration::from_secs_f64(minutes * 60.0)),
        (None, Some(games)) => Budget::Games(games),
        (None, None) => unreachable!("clap requires a budget"),
    };
    let mut config = TrainConfig {
        budget,
        threads,
        seed,
        schedule,
        lambda: args.lambda,
        rewind: !args.no_rewind,
        end_at: args.end_at,
        out: out.clone(),
        checkpoint_every: Duration::from_secs_f64(args.checkpoint_minutes * 60.0),
        starts: Vec::new(),
    };
    // Ctrl-C (or a hang-up or kill) stops the run after the games in flight and keeps the
    // weights; a second Ctrl-C ends the program at once (the last checkpoint stays whole).
    let stop = super::stop_on_signals(
        "power11 train",
        format!("{} keeps its last checkpoint", crate::files::shown(&out)),
    )?;
    let learning_words = announce(&network, &config);
    if let Some(exponent) = args.start_at
        && !collect_late_starts(&network, exponent, &mut config, &stop)?
    {
        return Ok(());
    }
    let (last, curve) = train_with_progress(&network, &config, &stop)?;
    // The picture first: a standard output that fails (closed, full) must not cost it.
    let drawn = match &args.plot {
        Some(path) => train::plot::learning_curve(&curve.points, &curve.checkpoints)
            .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", crate::files::shown(path)))
            .and_then(|svg| Ok(crate::files::pictures::write_svg(path, &svg)?)),
        None => Ok(()),
    };
    print_summary(&network, &last, &stop, &learning_words, &out)?;
    drawn
}

/// Says on stderr what the run will do (what it says is repeated in the summary, so it may go
/// unseen), and returns how it learns, in words.
fn announce(network: &Network, config: &TrainConfig) -> String {
    let out = &config.out;
    let (seed, threads) = (config.seed, config.threads);
    let budget_words = match config.budget {
        Budget::Time(t) => duration_words(t.as_secs_f64()),
        Budget::Games(1) => "1 game".to_string(),
        Budget::Games(n) => format!("{n} games"),
    };
    let network_words = if network.training().games == 0 {
        format!("a new network ({})", network.description())
    } else {
        format!(
            "the network in {} ({})",
            crate::files::shown(out),
            network.description()
        )
    };
    let learning_words = learning_words(config, network.tracks_coherence());
    // A note on stderr; what it says is repeated in the summary, so it may go unseen.
    super::note_as(
        "power11 train",
        format_args!(
            "{budget_words} of training for {network_words}, {learning_words}, seed {seed}, \
             {threads} thread(s), writing {}",
            crate::files::shown(out)
        ),
    );
    learning_words
}

/// Late-stage training's start positions (`--start-at`), collected into `config`; false if the
/// run was stopped while collecting them (it says so, and the file is unchanged). Too few
/// positions is a usage error (exit 2).
fn collect_late_starts(
    network: &Network,
    exponent: u8,
    config: &mut TrainConfig,
    stop: &AtomicBool,
) -> anyhow::Result<bool> {
    let (threads, seed) = (config.threads, config.seed);
    let out = config.out.clone();
    let tile = 1u64 << exponent;
    let _ = writeln!(
        io::stderr(),
        "power11 train: collecting {START_POSITIONS} start positions (boards where the \
         network's greedy games first make {tile}; not counted in the budget)"
    );
    let started = Instant::now();
    let starts = train::collect_starts(network, exponent, START_POSITIONS, threads, seed, stop);
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        let _ = writeln!(
            io::stdout(),
            "trained 0 games (stopped early, while collecting start positions): {} is \
             unchanged",
            crate::files::shown(&out)
        );
        return Ok(false);
    }
    if starts.boards.len() < START_POSITIONS {
        let message = format!(
            "--start-at {tile}: the network made a {tile} in {} of {} greedy games, fewer \
             than one in {}: train it from new boards (without --start-at) first",
            starts.boards.len(),
            starts.games,
            train::START_GAMES_PER_BOARD
        );
        return Err(UsageError(message).into());
    }
    let _ = writeln!(
        io::stderr(),
        "power11 train: {} start positions from {} games in {:.1} s",
        starts.boards.len(),
        starts.games,
        started.elapsed().as_secs_f64()
    );
    config.starts = starts.boards;
    Ok(true)
}

/// Runs the training with a progress bar on a terminal (a line a minute otherwise), and returns
/// its last progress.
fn train_with_progress(
    network: &Network,
    config: &TrainConfig,
    stop: &AtomicBool,
) -> anyhow::Result<(train::Progress, Curve)> {
    let terminal = io::stderr().is_terminal();
    let bar = terminal.then(|| {
        let bar = indicatif::ProgressBar::new(1000);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "[{elapsed_precise}] {wide_bar} ETA {eta}\n{msg}",
            )
            .expect("a valid template"),
        );
        bar
    });
    let mut last_line = Instant::now();
    let mut curve = Curve::default();
    let mut told = false;
    let mut progress = |p: &train::Progress| {
        // The first signal is answered at once: the last checkpoint may take seconds, and a
        // second signal in the silence would end the run before it.
        if !told && stop.load(std::sync::atomic::Ordering::Relaxed) {
            told = true;
            let notice = "power11 train: stopping: the games in flight finish, then the weights are written (Ctrl-C again ends at once, and the files keep the last checkpoint)";
            match &bar {
                Some(bar) => bar.println(notice),
                None => eprintln!("{notice}"),
            }
        }
        curve.record(p);
        if let Some(bar) = &bar {
            bar.set_position((p.done * 1000.0) as u64);
            bar.set_message(p.line());
        } else if last_line.elapsed() >= Duration::from_secs(60) {
            eprintln!("{}", p.line());
            last_line = Instant::now();
        }
    };
    let result = train::run(network, config, stop, &mut progress);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let last = result?;
    curve.record(&last);
    Ok((last, curve))
}

/// The learning curve of a run as it goes: a point each [`Curve::POINTS`]-th of the budget (a
/// few hundred points, whatever its length), and the moves at each checkpoint.
#[derive(Default)]
struct Curve {
    points: Vec<train::plot::CurvePoint>,
    checkpoints: Vec<u64>,
}

impl Curve {
    /// Points a curve keeps at most, spread over the run.
    const POINTS: usize = 400;

    fn record(&mut self, p: &train::Progress) {
        // Progress is reported after each checkpoint, before the next one.
        if p.checkpoints > self.checkpoints.len() as u64 {
            self.checkpoints.push(p.moves);
        }
        // A point when the run's share done has grown by 1/POINTS since the last one.
        let due = self.points.last().is_none_or(|_| {
            let step = 1.0 / Self::POINTS as f64;
            (p.done / step).floor() as usize >= self.points.len()
        });
        if p.recent_games > 0 && (due || p.done >= 1.0) {
            self.points.push(p.into());
        }
    }
}

/// Prints the run's summary on stdout.
fn print_summary(
    network: &Network,
    last: &train::Progress,
    stop: &AtomicBool,
    learning_words: &str,
    out: &Path,
) -> anyhow::Result<()> {
    let total = network.training();
    let stopped = stopped_words(stop.load(std::sync::atomic::Ordering::Relaxed), last);
    let summary = format!(
        "trained {} game{}{stopped} in {:.1} s: {:.2}M moves/s\n{}\nlearning: {learning_words}\nnetwork: {}, {} of training in all\nweights: {}\n",
        last.games,
        if last.games == 1 { "" } else { "s" },
        last.elapsed.as_secs_f64(),
        last.moves_per_second() / 1e6,
        last.line(),
        network.description(),
        duration_words(total.seconds),
        crate::files::shown(out)
    );
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(summary.as_bytes())
        .and_then(|()| stdout.flush())
        .with_context(|| {
            format!(
                "cannot write to standard output (the weights are saved in {})",
                crate::files::shown(out)
            )
        })
}

/// What the summary says of a stop: "stopped early" only if the run was stopped before its
/// budget was spent (a Ctrl-C while the last checkpoint is written stops nothing).
fn stopped_words(stop: bool, last: &train::Progress) -> &'static str {
    if stop && last.done < 1.0 {
        " (stopped early)"
    } else {
        ""
    }
}

/// How a run learns, in words: `TD(0), rate 0.1 falling to 0.01` or `TD(λ = 0.5), temporal
/// coherence, rewinds, rate 0.25`.
fn learning_words(config: &TrainConfig, coherence: bool) -> String {
    let mut words = vec![if config.lambda == 0.0 {
        "TD(0)".to_string()
    } else {
        format!("TD(λ = {})", train::rate_words(config.lambda))
    }];
    if coherence {
        words.push("temporal coherence".to_string());
    }
    if config.rewind {
        words.push("rewinds".to_string());
    }
    if let Some(end) = config.end_at {
        words.push(format!("games ending at {}", 1u64 << end));
    }
    let schedule = config.schedule;
    let (rate, final_rate) = (
        train::rate_words(schedule.rate),
        train::rate_words(schedule.final_rate),
    );
    words.push(if schedule.is_constant() {
        format!("rate {rate}")
    } else {
        format!("rate {rate} falling to {final_rate}")
    });
    words.join(", ")
}

/// A length of time in the unit that reads best: seconds under two minutes, else minutes.
fn duration_words(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.1} s")
    } else {
        format!("{:.1} minutes", seconds / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_after_the_budget_was_spent_is_not_an_early_stop() {
        let progress = |done: f64| train::Progress {
            games: 100,
            moves: 1000,
            elapsed: std::time::Duration::from_secs(1),
            recent_score: 0.0,
            recent_reach: [0.0; train::REACH_SHOWN.len()],
            recent_games: 100,
            rate: 0.1,
            done,
            checkpoints: 1,
            end_at: None,
            recent_end_reach: 0.0,
        };
        assert_eq!(stopped_words(true, &progress(0.4)), " (stopped early)");
        // Regression (hostile trial): a Ctrl-C while the last checkpoint was written said
        // "trained 100 games (stopped early)" of a 100-game run.
        assert_eq!(stopped_words(true, &progress(1.0)), "");
        assert_eq!(stopped_words(false, &progress(0.4)), "");
    }
}
