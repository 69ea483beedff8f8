//! `power11 train`: the checks before a run (the output file, its lock, the coherence file),
//! the run, and its report in words.

use super::args::TrainArgs;
use super::{UsageError, check_out_directory};
use crate::files::best::data_dir;
use crate::files::open::{OpenError, open_lock, open_regular, other_names};
use crate::files::save::check_writable_beside;
use crate::files::weights::{
    CoherenceFileError, WeightsFileError, coherence_path, default_path, read_coherence,
    read_weights, shipped_network,
};
use crate::learning::ntuple::{
    COHERENCE_MAGIC, MAX_STAGES, NetworkError, WEIGHTS_MAGIC, WeightUse,
};
use crate::model::named::Named;
use crate::model::random::os_seed;
use crate::players::{Network, Stages, TupleSet};
use crate::train::{self, Budget, Schedule, TrainConfig};
use crate::train::{COHERENCE_RATE, DEFAULT_STAGES, MIN_RATE, START_POSITIONS};
use anyhow::Context;
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Whether training may write `out`, checked before it starts (a run that could not keep its
/// work would waste it): a new file in a directory that takes files, or an existing weight
/// file that `--resume` continues or `--restart` replaces. Any other file is never replaced.
/// Returns the lock that keeps a second `power11 train` off the same file for the whole run
/// (two runs on one file would each overwrite the other's work).
fn check_weights_out(out: &Path, resume: bool, restart: bool) -> anyhow::Result<std::fs::File> {
    let usage = |message: String| Err(UsageError(message).into());
    let shown = crate::files::shown(out);
    match std::fs::metadata(out) {
        Ok(meta) if meta.is_dir() => {
            return usage(format!("--out {shown} is a directory, not a file"));
        }
        Ok(meta) if !meta.is_file() => {
            return usage(format!("--out {shown} is not a regular file"));
        }
        // Checkpoints would be refused (`save::write_atomic`): say so before the run, not after.
        Ok(meta) if meta.permissions().readonly() => {
            return usage(format!("{shown}: the file is read-only; it is left alone"));
        }
        // A checkpoint replaces the name, not the file: the other names would keep the old
        // network, and a run through one of them would take a lock of its own.
        Ok(meta) if other_names(&meta) > 0 => {
            let others = other_names(&meta);
            let names = if others == 1 { "name" } else { "names" };
            return usage(format!(
                "{shown} has {others} other {names} (hard links): a checkpoint replaces {shown} \
                 with a new file, which the other {names} would not see, and a run through one \
                 of them would not know of this one; train a copy (cp) instead"
            ));
        }
        Ok(_) => {
            let mut magic = [0u8; 8];
            let is_weights = open_regular(out)
                .map_err(OpenError::into_io)
                .and_then(|(mut f, _)| f.read_exact(&mut magic))
                .is_ok()
                && &magic == WEIGHTS_MAGIC;
            if !is_weights {
                return usage(format!(
                    "{shown} is not a weight file; it is left alone (move it away, or choose another --out)"
                ));
            }
            if resume {
                // Read whole, and said what is wrong with it, where the network is read.
                return lock_beside(out);
            }
            // --restart replaces a whole weight file, never a damaged one (what it held can
            // only be judged by the user) nor one of another format version (a network another
            // power11 trained, hours of work).
            match read_weights(out, WeightUse::Play) {
                Err(
                    WeightsFileError::Damaged { problem, .. }
                    | WeightsFileError::OtherVersion { problem, .. },
                ) => {
                    return usage(format!(
                        "{shown}: {problem}; it is left alone (move it away, or choose another --out)"
                    ));
                }
                _ if restart => {}
                Ok(_) => {
                    return usage(format!(
                        "{shown} already holds weights: add --resume to go on training them, or --restart to replace them"
                    ));
                }
                Err(e) => {
                    return usage(format!(
                        "{shown} holds weights that cannot be used ({e}): --restart replaces them"
                    ));
                }
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return usage(format!("cannot use --out {shown}: {e}")),
    }
    lock_beside(out)
}

/// The lock that keeps a second `power11 train` off `out`, once its directory has taken the
/// temporary file a checkpoint is written to. Both go beside the file that a link names, as
/// the checkpoints do: two runs through two links to one file share a lock.
fn lock_beside(out: &Path) -> anyhow::Result<std::fs::File> {
    let usage = |message: String| Err(UsageError(message).into());
    let shown = crate::files::shown(out);
    let (dir, name) = check_writable_beside(out, true).map_err(|reason| {
        UsageError(format!(
            "cannot write --out {shown}: {}",
            crate::files::system_words(&reason)
        ))
    })?;
    // `.NAME.lock`, the name cut as a temporary file's is, so that any name has a lock.
    let lock_path = dir.join(format!(
        "{}lock",
        crate::files::save::temporary_prefix(&name)
    ));
    let lock = open_lock(&lock_path).map_err(|e| {
        UsageError(format!(
            "cannot use --out {shown}: its lock {} is {}",
            crate::files::shown(&lock_path),
            match e {
                OpenError::NotRegular(what) => format!("{what}, not a lock file: remove it"),
                OpenError::Io(e) => format!("not usable: {}", crate::files::system_words(&e)),
            }
        ))
    })?;
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(std::fs::TryLockError::WouldBlock) => usage(format!(
            "another power11 train is writing {shown}: wait for it to finish or choose another --out"
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", crate::files::shown(&lock_path)))
        }
    }
}

/// Whether training may keep its coherence sums beside `out` (`weights::coherence_path`),
/// checked before it starts, as `out` is: no file there, or a readable file of sums that is not
/// read-only, in a directory that takes the temporary file a checkpoint writes (through a link,
/// the directory of the file it names). Any other file is never replaced.
fn check_coherence_out(out: &Path) -> anyhow::Result<()> {
    let path = coherence_path(out);
    let shown = crate::files::shown(&path);
    let refuse = |problem: &str| -> anyhow::Result<()> {
        Err(UsageError(format!(
            "{shown} {problem}; it is left alone (training keeps its coherence sums there: move it away, or train with --no-coherence)"
        ))
        .into())
    };
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            let reason = crate::files::system_words(&e);
            return Err(UsageError(format!("cannot use {shown}: {reason}")).into());
        }
        Ok(meta) if !meta.is_file() => return refuse("is not a regular file"),
        Ok(meta) if meta.permissions().readonly() => return refuse("is read-only"),
        Ok(_) => {
            let mut magic = [0u8; 8];
            let read = open_regular(&path)
                .map_err(OpenError::into_io)
                .and_then(|(mut f, _)| f.read_exact(&mut magic));
            match read {
                Err(e) if e.kind() != io::ErrorKind::UnexpectedEof => {
                    return Err(UsageError(format!("cannot read {shown}: {e}")).into());
                }
                Ok(()) if &magic == COHERENCE_MAGIC => {}
                _ => return refuse("is not a file of coherence sums"),
            }
        }
    }
    // Beside the file a link at `path` names (a link to nowhere fails here).
    check_writable_beside(&path, false)
        .map(drop)
        .map_err(|reason| {
            let reason = crate::files::system_words(&reason);
            UsageError(format!("cannot write {shown}: {reason}")).into()
        })
}

pub(super) fn run_train(args: &TrainArgs) -> anyhow::Result<()> {
    let out = weights_out(args)?;
    let _lock = check_weights_out(&out, args.resume, args.restart)?;
    super::bench::check_plot(args.plot.as_deref())?;
    if let Some(plot) = &args.plot {
        // Where a file is written: through its links (as the files layer writes), absolute.
        let absolute = |p: &Path| {
            let target = crate::files::save::resolve_links(p).unwrap_or_else(|_| p.to_path_buf());
            // Links among the directories too: the directory is there by now.
            let dir = crate::files::save::directory_of(&target);
            match (std::fs::canonicalize(dir), target.file_name()) {
                (Ok(dir), Some(name)) => dir.join(name),
                _ => std::path::absolute(&target).unwrap_or(target),
            }
        };
        if [out.clone(), coherence_path(&out)]
            .iter()
            .any(|file| absolute(file) == absolute(plot))
        {
            return Err(UsageError(format!(
                "cannot use --plot {}: the run writes its weights there",
                crate::files::shown(plot)
            ))
            .into());
        }
    }
    if !args.no_coherence {
        check_coherence_out(&out)?;
    }
    let (mut network, split_to) = if args.resume {
        resumed_network(args, &out)?
    } else {
        (new_network(args), None)
    };
    let threads = match args.threads {
        Some(t) => t as usize,
        None => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
    };
    let seed = args.seed.unwrap_or_else(os_seed);
    let budget = match (args.minutes, args.games) {
        (Some(minutes), _) => Budget::Time(Duration::from_secs_f64(minutes * 60.0)),
        (None, Some(games)) => Budget::Games(games),
        (None, None) => unreachable!("clap requires a budget"),
    };
    let schedule = schedule_for(args, &out, &mut network);
    // Split once its coherence sums are read: they go with the weights they were gathered on.
    let network = match split_to {
        Some(stages) => split_network(network, &stages)?,
        None => network,
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

/// The weight file a run writes: `--out`, whose directory must be there, else the data
/// directory's.
fn weights_out(args: &TrainArgs) -> anyhow::Result<PathBuf> {
    if let Some(path) = &args.out {
        check_out_directory(path, "--out")?;
        return Ok(path.clone());
    }
    let path = default_path(data_dir().as_deref()).ok_or_else(|| {
        UsageError(
            "no data directory for the weights (set POWER11_DATA_DIR or pass --out)".to_string(),
        )
    })?;
    // No --out was given: a data directory that cannot take the file is named as such.
    if let Err(reason) = crate::files::save::check_writable_beside(&path, true) {
        let dir = data_dir().unwrap_or_default();
        return Err(UsageError(format!(
            "cannot keep weights in the data directory {} ({}): {}; set POWER11_DATA_DIR to a directory you can write, or pass --out",
            crate::files::shown(&dir),
            crate::files::shown(&path),
            crate::files::system_words(&reason)
        ))
        .into());
    }
    Ok(path)
}

/// The network in `out` that `--resume` trains on (the shipped network if there is no file
/// yet), and the stages `--stages` splits it into, if it asks for more splits than it has;
/// refused (exit 2), before anything is split or written, if it is not a network the
/// arguments can train (another tuple set, splits moved or removed, a `--start-at` or
/// `--end-at` tile that does not start a stage).
fn resumed_network(args: &TrainArgs, out: &Path) -> anyhow::Result<(Network, Option<Stages>)> {
    // What the refusals below name: the file, or the shipped network when there is none.
    let mut holder = crate::files::shown(out).clone();
    // Said once every check below has passed: a run refused does not go on from anything.
    let mut going_on = None;
    let network = match read_weights(out, WeightUse::Training) {
        Ok(network) => network,
        // Nothing trained here yet: go on from the network the player plays without one.
        Err(WeightsFileError::Missing(_)) => {
            let network =
                shipped_network(WeightUse::Training).map_err(|e| UsageError(e.to_string()))?;
            going_on = Some(format!(
                "{} does not exist yet: going on from the network shipped in power11 ({}), written to it at the first checkpoint",
                crate::files::shown(out),
                network.description()
            ));
            holder =
                format!("the network shipped in power11 (resumed as {holder} does not exist yet)");
            network
        }
        Err(e) => return Err(UsageError(format!("--resume: {e}")).into()),
    };
    if let Some(set) = args.tuples.filter(|&set| set != network.tuple_set()) {
        let message = format!(
            "{holder} holds a network of tuple set {}, not {}",
            network.tuple_set().name(),
            set.name()
        );
        return Err(UsageError(message).into());
    }
    let split_to = args.stages.clone().filter(|s| s != network.stages());
    if let Some(stages) = &split_to
        && !stages.keeps_the_splits_of(network.stages())
    {
        let refused = NetworkError::NotASplit {
            from: network.stages().clone(),
            to: stages.clone(),
        };
        return Err(UsageError(format!("--stages: {holder}: {refused}")).into());
    }
    // The stages the run trains: the file's, or those it is split into.
    let stages = split_to.as_ref().unwrap_or(network.stages());
    if let Some(exponent) = args.start_at.filter(|e| !stages.thresholds().contains(e)) {
        // Its games would train the stage they start in on late boards only, and that
        // stage also values the boards before the tile.
        let tile = 1u64 << exponent;
        let message = format!(
            "--start-at {tile}: {holder} has {stages}, and late-stage training must \
             start at one of its splits (a stage that starts at {tile})"
        );
        return Err(UsageError(message).into());
    }
    check_end_at(args, &holder, stages, &network)?;
    if let Some(note) = going_on {
        super::note_as("power11 train", format_args!("{note}"));
    }
    Ok((network, split_to))
}

/// Refuses (exit 2) an `--end-at` tile that does not start one of `stages` (the run's), that
/// is not above `--start-at`, or whose stage has no weights of its own in `network` (the
/// board a game ends on would be valued by the very weights that learn it).
fn check_end_at(
    args: &TrainArgs,
    holder: &str,
    stages: &Stages,
    network: &Network,
) -> anyhow::Result<()> {
    let Some(end) = args.end_at else {
        return Ok(());
    };
    let tile = 1u64 << end;
    let tiles = |exponents: &[u8]| -> String {
        let tiles: Vec<String> = exponents.iter().map(|&e| (1u64 << e).to_string()).collect();
        tiles.join(",")
    };
    if !network.stage_learned(end) {
        let message = format!(
            "--end-at {tile}: {holder} has no weights of its own from {tile} on (no training \
             game has made a {tile}), and the boards its games end on would be valued by the \
             weights they train: train it without --end-at first"
        );
        return Err(UsageError(message).into());
    }
    if !stages.thresholds().contains(&end) {
        // The file's splits and the tile: what a --stages that adds it names.
        let mut wanted = network.stages().thresholds().to_vec();
        wanted.push(end);
        wanted.sort_unstable();
        let hint = if Stages::split_at(&wanted).is_ok() {
            format!("add it with --stages {}", tiles(&wanted))
        } else {
            format!(
                "it cannot be added, as a network has at most {} splits",
                MAX_STAGES - 1
            )
        };
        let message = format!(
            "--end-at {tile}: {holder} has {stages}, and early-stage training must end at one of \
             its splits (a stage that starts at {tile}): {hint}"
        );
        return Err(UsageError(message).into());
    }
    if let Some(start) = args.start_at.filter(|&start| start >= end) {
        let message = format!(
            "--end-at {tile} must be above --start-at {}: its games would end before they start",
            1u64 << start
        );
        return Err(UsageError(message).into());
    }
    Ok(())
}

/// `network` split into `stages` ([`Network::split`]), with a note: the file holds the new
/// stages from the first checkpoint on.
fn split_network(network: Network, stages: &Stages) -> anyhow::Result<Network> {
    let from = network.stages().clone();
    let split = network
        .split(stages.clone())
        .map_err(|e| UsageError(format!("--stages: {e}")))?;
    super::note_as(
        "power11 train",
        format_args!(
            "splitting the network ({from}) into {stages}: each new stage starts as a copy of the one it was part of, and the file holds the new stages from the first checkpoint on"
        ),
    );
    Ok(split)
}

/// A new network: the tuple set and stages given (or the defaults), starting at `--optimistic`.
fn new_network(args: &TrainArgs) -> Network {
    let stages = args
        .stages
        .clone()
        .unwrap_or_else(|| Stages::split_at(DEFAULT_STAGES).expect("the default stages are valid"));
    Network::with_initial_value(
        args.tuples.unwrap_or(TupleSet::Sixes),
        stages,
        args.optimistic,
    )
}

/// The default rate of a resumed network whose coherence sums start anew (the shipped network,
/// or sums lost): its steps are whole ones until errors cancel, and at [`COHERENCE_RATE`] they
/// undo what it learned (measurements/learned.md, "The shipped network").
const FRESH_SUMS_RATE: f32 = 0.01;

/// The learning-rate schedule; under temporal coherence, the network's sums are tracked, and on
/// `--resume` read back from beside `out` (a note on stderr says whether they go on).
fn schedule_for(args: &TrainArgs, out: &Path, network: &mut Network) -> Schedule {
    if args.no_coherence {
        Schedule::falling(args.rate.unwrap_or(Schedule::default().rate))
    } else {
        network.track_coherence();
        let mut rate = args.rate.unwrap_or(COHERENCE_RATE);
        if args.resume {
            // A note on stderr: whether the sums go on, or start anew. Anew, every weight's
            // next step is a whole one: at the default rate that undoes a trained network
            // (measured: the shipped network's rolling mean score fell from 165,000 to 28,000
            // in 3000 games), so the default rate is then a low one.
            let note = match read_coherence(out, network) {
                Ok(gathered_at) => {
                    let from = coherence_path(out);
                    // Sums gathered at a low rate are young sums of a trained network (the run
                    // started them anew): at the default rate their whole steps would undo it.
                    match gathered_at.filter(|_| args.rate.is_none()) {
                        Some(gathered) => {
                            rate = gathered.clamp(MIN_RATE, COHERENCE_RATE);
                            format!(
                                "the coherence sums go on from {}, at rate {}, the rate they were gathered at",
                                crate::files::shown(&from),
                                train::rate_words(rate)
                            )
                        }
                        None => format!(
                            "the coherence sums go on from {}",
                            crate::files::shown(&from)
                        ),
                    }
                }
                Err(e) => {
                    if args.rate.is_none() {
                        rate = FRESH_SUMS_RATE;
                    }
                    let fate = match e {
                        CoherenceFileError::Missing(_) => "written",
                        CoherenceFileError::Unusable { .. } => "replaced",
                    };
                    format!(
                        "{e}: the coherence sums start anew, at rate {rate} (the file is {fate} \
                         at the first checkpoint)"
                    )
                }
            };
            super::note_as("power11 train", note);
        }
        Schedule::constant(rate)
    }
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
