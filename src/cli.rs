//! The command line: argument parsing (clap), knob validation, dispatch and exit codes.
//!
//! Exit codes: 0 on success (also when stdout is closed early), 2 for bad arguments or a bad
//! `--board` file, 1 for any other failure.

use crate::ai::optimal::{Phase, SolvedRules};
use crate::ai::{AnyPlayer, MAX_BUDGET_MS, MAX_FIXED_DEPTH, PlayerKind, SearchConfig, Solution};
use crate::bench::{self, BenchConfig};
use crate::best::{BestScores, data_dir};
use crate::console::Console;
use crate::named::Named;
use crate::playout::default_attempt_limit;
use crate::random::{os_seed, seeded};
use crate::rules::{Rules, Scoring, Spawn, Variant};
use crate::save::{SAVE_FILE, read_board_file};
use crate::session::{MemoryStore, MenuStyle, Session, Settings};
use crate::size::Size;
use crate::store::FileStore;
use crate::tables;
use crate::tui::{self, ColorMode};
use anyhow::Context;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Power-11: slide tiles on a 4x4 or 5x5 board, merge equal ones, reach 2048.
/// Also plays the rest of the 2048 family, and lets the computer play.
#[derive(Parser, Debug)]
#[command(
    name = "power11",
    bin_name = "power11",
    version,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    rules: RulesArgs,

    /// Seed the random number generator: the same seed and input give the same output.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,

    /// Start the first game from this board file (a grid of numbers, a framed board, or a save).
    #[arg(long, value_name = "FILE")]
    board: Option<PathBuf>,

    /// Let the computer play one game in the console, then exit.
    #[arg(long, value_name = "PLAYER", value_parser = named::<PlayerKind>())]
    autoplay: Option<PlayerKind>,

    /// Play full-screen: arrow keys, coloured tiles, one board redrawn in place.
    #[arg(long, conflicts_with = "autoplay")]
    tui: bool,

    /// Colours in the full-screen mode (`auto` follows `NO_COLOR` and the terminal).
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"], requires = "tui")]
    color: String,

    /// With --autoplay: wait this many milliseconds after each move.
    #[arg(long, value_name = "MS", requires = "autoplay")]
    delay: Option<u64>,

    /// With --autoplay: stop after this many attempted moves.
    #[arg(long, value_name = "N", requires = "autoplay")]
    max_moves: Option<u64>,

    /// With --autoplay expectimax: search this many moves deep instead of adapting the depth.
    #[arg(long, value_name = "N", requires = "autoplay", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_FIXED_DEPTH)))]
    depth: Option<u32>,

    /// With --autoplay expectimax: search deeper while this many milliseconds per move last
    /// (moves then depend on the machine's speed).
    #[arg(long, value_name = "MS", requires = "autoplay", conflicts_with = "depth", value_parser = clap::value_parser!(u64).range(1..=MAX_BUDGET_MS))]
    ms_per_move: Option<u64>,
}

const AFTER_HELP: &str = "\
Commands in a game: u d l r (move), s (save to power11.saved), b (back/undo), a (advice),
q (quit to the menu; unsaved moves are lost). Every non-blank character of a line is one key.

Files:
  power11.saved     the saved game, in the current directory: Score lines and framed boards,
                    oldest state first (files of other Power-11 programs are read too)
  --board FILE      n lines of n numbers (0 = empty), n*n numbers one per line, a framed
                    board, or a whole save; n is 3 to 8
  best scores and solved 3x3 tables live in $POWER11_DATA_DIR, else the platform's data
  directory (~/.local/share/power11 on Linux)

Examples:
  power11                                play Power-11 (menu: e = Easy 5x5, h = Hard 4x4)
  power11 --tui                          the same, full-screen with the arrow keys
  power11 --variant classic              classic 2048 with best score and keep-playing
  power11 --board B1.txt --variant edge  start from a board file
  power11 --autoplay expectimax --seed 1 watch the search player win
  power11 solve --variant mini           solve 3x3 to 512 exactly (then --player optimal)
  power11 bench --player random --games 100000 --jobs 1";

#[derive(Subcommand, Debug)]
enum Command {
    /// Play many games headless with a computer player and print statistics.
    Bench(BenchArgs),
    /// Solve a 3x3 rule set exactly: every position's odds of winning with perfect play.
    Solve(SolveArgs),
}

#[derive(Subcommand, Debug)]
enum BenchCommand {
    /// Add up the --json reports of parts of one run (--first-game) into the report of the
    /// whole, as if one invocation had played every game.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
struct MergeArgs {
    /// The reports (`bench --json` output), in any order.
    #[arg(value_name = "REPORT", required = true)]
    reports: Vec<PathBuf>,

    /// Print the merged report as one JSON object (which merges again).
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct SolveArgs {
    /// Write the table here (default: the data directory, where players and advice find it).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    #[command(flatten)]
    rules: RulesArgs,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct BenchArgs {
    #[command(subcommand)]
    command: Option<BenchCommand>,

    /// Who plays.
    #[arg(long, value_name = "PLAYER", value_parser = named::<PlayerKind>(), required = true)]
    player: Option<PlayerKind>,

    /// How many games.
    #[arg(long, value_name = "N", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,

    /// Play games K..K+N of the run --seed defines (a long run split into parts; add up
    /// their --json reports with `bench merge`).
    #[arg(long, value_name = "K", default_value_t = 0, requires = "seed")]
    first_game: u64,

    /// Worker threads (default: all cores).
    #[arg(long, value_name = "J", value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,

    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,

    /// The base seed (game i gets its own seed derived from it; default: random, and printed).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,

    /// Stop a game after this many attempted moves.
    #[arg(long, value_name = "N")]
    max_moves: Option<u64>,

    /// Expectimax: search this many moves deep instead of adapting the depth.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_FIXED_DEPTH)))]
    depth: Option<u32>,

    /// Expectimax: search deeper while this many milliseconds per move last (games then
    /// depend on the machine's speed and load, so they do not replay from the seed).
    #[arg(long, value_name = "MS", conflicts_with = "depth", value_parser = clap::value_parser!(u64).range(1..=MAX_BUDGET_MS))]
    ms_per_move: Option<u64>,

    #[command(flatten)]
    rules: RulesArgs,
}

/// The variant and the knobs that override it.
#[derive(Args, Debug)]
struct RulesArgs {
    /// The rule set.
    #[arg(long, value_name = "NAME", value_parser = named::<Variant>(), default_value = "power11")]
    variant: Variant,

    /// Board size (3 to 8), for every variant.
    #[arg(long, value_name = "N")]
    size: Option<Size>,

    /// The goal tile (a power of two from 8 to 1048576), or `none`.
    #[arg(long, value_name = "V", value_parser = parse_goal)]
    goal: Option<Goal>,

    /// Where new tiles appear.
    #[arg(long, value_name = "RULE", value_parser = named::<Spawn>())]
    spawn: Option<Spawn>,

    /// How the score counts.
    #[arg(long, value_name = "RULE", value_parser = named::<Scoring>())]
    score: Option<Scoring>,

    /// Start with each cell a 2 with probability P (0 < P <= 1).
    #[arg(long, value_name = "P", value_parser = parse_fill)]
    fill: Option<f64>,
}

/// The parser of a [`Named`] option: its names are the possible values, each with its help.
fn named<T: Named + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::ALL
        .iter()
        .map(|value| PossibleValue::new(value.name()).help(value.about()));
    PossibleValuesParser::new(values)
        .map(|name| T::from_name(&name).expect("clap accepts only the listed names"))
}

#[derive(Clone, Copy, Debug)]
struct Goal(Option<u64>);

fn parse_goal(text: &str) -> Result<Goal, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Goal(None));
    }
    let value: u64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number or 'none'"))?;
    Rules::classic()
        .with_goal(Some(value))
        .map(|_| Goal(Some(value)))
        .map_err(|e| e.to_string())
}

fn parse_fill(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    Rules::edge()
        .with_fill(p)
        .map(|_| p)
        .map_err(|e| e.to_string())
}

impl RulesArgs {
    fn rules(&self) -> anyhow::Result<Rules> {
        let mut rules = Rules::preset(self.variant);
        if let Some(size) = self.size {
            rules = rules.on(size);
        }
        if let Some(Goal(goal)) = self.goal {
            rules = rules.with_goal(goal)?;
        }
        if let Some(spawn) = self.spawn {
            rules = rules.with_spawn(spawn);
        }
        if let Some(scoring) = self.score {
            rules = rules.with_scoring(scoring);
        }
        if let Some(p) = self.fill {
            rules = rules.with_fill(p)?;
        }
        Ok(rules)
    }
}

/// A problem with what the user asked for (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

/// Parses the arguments, runs, and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let code = if e.downcast_ref::<UsageError>().is_some() {
                2
            } else {
                1
            };
            let _ = writeln!(io::stderr(), "power11: {e:#}");
            ExitCode::from(code)
        }
    }
}

/// Prints what clap has to say (help, version, or a usage error) and the exit code that goes
/// with it. Unlike clap's own `exit`, a help text that cannot be written (`--help > /dev/full`)
/// is an error, as every other output of the program is.
fn clap_exit(error: &clap::Error) -> ExitCode {
    let mut text = error.render().to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    if !error.use_stderr() {
        let mut out = io::stdout().lock();
        return match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                let _ = writeln!(
                    io::stderr(),
                    "power11: cannot write to standard output: {e}"
                );
                ExitCode::from(1)
            }
        };
    }
    let _ = error.print();
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Runs what the arguments ask for.
fn run(cli: &Cli) -> anyhow::Result<()> {
    match &cli.command {
        Some(Command::Bench(args)) => return run_bench(args),
        Some(Command::Solve(args)) => return run_solve(args),
        None => {}
    }
    let rules = cli.rules.rules()?;
    let seed = cli.seed.unwrap_or_else(os_seed);
    let rng = seeded(seed);
    let first_game = match &cli.board {
        Some(path) => {
            let timeline = read_board_file(path).map_err(|e| UsageError(e.to_string()))?;
            let size = timeline.size();
            if let Some(wanted) = cli.rules.size.filter(|n| n.get() != size) {
                let message = format!(
                    "{} holds a {size}x{size} board, but --size is {wanted}",
                    path.display()
                );
                return Err(UsageError(message).into());
            }
            Some(timeline)
        }
        None => None,
    };
    if cli.tui && !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
        let message = "--tui needs a terminal on standard input and output; \
                       without one, play the line interface (power11 without --tui)";
        return Err(UsageError(message.to_string()).into());
    }
    let menu = if rules.variant() == Variant::Power11 && cli.rules.size.is_none() {
        MenuStyle::EasyHard
    } else {
        MenuStyle::OneSize
    };
    let settings = Settings { rules, menu };
    let player = player_for(
        cli.autoplay.unwrap_or(PlayerKind::Expectimax),
        cli.depth,
        cli.ms_per_move,
        &rules,
    )?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    if cli.autoplay.is_some() {
        let mut session = Session::new(settings, rng, MemoryStore::new(), player);
        match first_game {
            Some(timeline) => session.start_from(timeline),
            None => session.start_new(),
        }
        let delay = Duration::from_millis(cli.delay.unwrap_or(0));
        let limit = cli
            .max_moves
            .unwrap_or_else(|| default_attempt_limit(&rules));
        return Ok(crate::autoplay::run(&mut out, &mut session, delay, limit)?);
    }
    let mut best = BestScores::in_memory();
    if rules.tracks_best()
        && let Some(dir) = data_dir()
    {
        let (loaded, warnings) = BestScores::load(&dir);
        best = loaded;
        for warning in warnings {
            writeln!(out, "Note: {warning}")?;
        }
    }
    let store = FileStore::new(PathBuf::from(SAVE_FILE), best, data_dir());
    let mut session = Session::new(settings, rng, store, player);
    if let Some(timeline) = first_game {
        session.start_from(timeline);
    }
    if cli.tui {
        let colors = ColorMode::choose(
            &cli.color,
            std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            std::env::var("COLORTERM").ok().as_deref(),
        );
        out.flush()?;
        return Ok(tui::run(session, colors)?);
    }
    let stdin = io::stdin();
    Console::new(session, stdin.lock(), &mut out).run()?;
    Ok(())
}

fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
    if let Some(BenchCommand::Merge(merge)) = &args.command {
        return run_merge(merge);
    }
    let kind = args.player.context("bench needs --player")?;
    let rules = args.rules.rules()?;
    if args.first_game.checked_add(args.games).is_none() {
        let message = format!(
            "--first-game {} plus --games {} is past the last game",
            args.first_game, args.games
        );
        return Err(UsageError(message).into());
    }
    let jobs = match args.jobs {
        Some(j) => j as usize,
        None => std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
    };
    let config = BenchConfig {
        rules,
        player: player_for(kind, args.depth, args.ms_per_move, &rules)?,
        depth: args.depth,
        time_budget_ms: args.ms_per_move,
        first_game: args.first_game,
        games: args.games,
        jobs,
        seed: args.seed.unwrap_or_else(os_seed),
        max_attempts: args
            .max_moves
            .unwrap_or_else(|| default_attempt_limit(&rules)),
    };
    let bar = io::stderr().is_terminal().then(|| {
        let label = format!("{} on {}", kind.name(), rules.variant().name());
        // One game shows a spinner; more show a bar. Both tick from the start, so the clock
        // runs before the first (possibly long) game ends.
        let (bar, template) = if args.games == 1 {
            (
                indicatif::ProgressBar::new_spinner(),
                "{spinner} {msg} [{elapsed_precise}] playing one game",
            )
        } else {
            (
                indicatif::ProgressBar::new(args.games),
                "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} games, ETA {eta}",
            )
        };
        bar.set_style(indicatif::ProgressStyle::with_template(template).expect("a valid template"));
        bar.set_message(label);
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let tick = || {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    };
    let report = bench::run(&config, &tick).context("cannot start the worker threads")?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    print_report(&report, args.json)
}

/// Merges bench reports; a file that cannot be merged is a usage error (exit 2).
fn run_merge(args: &MergeArgs) -> anyhow::Result<()> {
    let mut reports = Vec::with_capacity(args.reports.len());
    for path in &args.reports {
        let report = bench::read_report(path).map_err(|e| UsageError(e.to_string()))?;
        reports.push((path.clone(), report));
    }
    let merged = bench::merge(&reports).map_err(|e| UsageError(e.to_string()))?;
    print_report(&merged, args.json)
}

fn print_report(report: &bench::BenchReport, json: bool) -> anyhow::Result<()> {
    let text = if json {
        format!("{}\n", serde_json::to_string(report)?)
    } else {
        report.to_text()
    };
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The player `kind` for games under `rules`: the optimal player loads the solved table of
/// these rules from the data directory, or solves them first (with a progress bar).
fn player_for(
    kind: PlayerKind,
    depth: Option<u32>,
    ms_per_move: Option<u64>,
    rules: &Rules,
) -> anyhow::Result<AnyPlayer> {
    if kind != PlayerKind::Expectimax && (depth.is_some() || ms_per_move.is_some()) {
        let message = format!(
            "--depth and --ms-per-move tune the expectimax player's search; the {} player does not search",
            kind.name()
        );
        return Err(UsageError(message).into());
    }
    let search = SearchConfig {
        depth,
        time_budget: ms_per_move.map(Duration::from_millis),
        ..Default::default()
    };
    let table = match kind {
        PlayerKind::Optimal => Some(table_for(rules, None)?.0),
        _ => None,
    };
    Ok(kind.build(search, table.as_ref())?)
}

/// The solved table of `rules`: read from `out` (or the data directory's file for these rules)
/// if it is there and whole, else solved and written there. Also says whether it was solved
/// now. Rules the solver cannot solve are a usage error (exit 2).
fn table_for(rules: &Rules, out: Option<&Path>) -> anyhow::Result<(Arc<Solution>, bool)> {
    let solved = SolvedRules::of(rules).map_err(|e| UsageError(e.to_string()))?;
    let path = match out {
        Some(path) => path.to_path_buf(),
        None => data_dir()
            .context("no data directory for the table (set POWER11_DATA_DIR)")?
            .join(tables::default_name(&solved)),
    };
    if out.is_none() {
        match tables::read_table(&path, rules) {
            Ok(Some(solution)) => return Ok((Arc::new(solution), false)),
            Ok(None) => {}
            Err(e) => eprintln!("power11: {e}; solving again"),
        }
    }
    let bar = io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(1);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg:>24} [{elapsed_precise}] {wide_bar} {pos}/{len} layers",
            )
            .expect("a valid template"),
        );
        bar
    });
    let progress = |phase: Phase, done: usize, total: usize| {
        if let Some(bar) = &bar {
            bar.set_message(match phase {
                Phase::Listing => format!("listing positions ({solved})"),
                Phase::Valuing => "valuing positions".to_string(),
            });
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let solution = Solution::solve(rules, &progress).map_err(|e| UsageError(e.to_string()))?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    tables::write_table(&path, &solution)?;
    Ok((Arc::new(solution), true))
}

fn run_solve(args: &SolveArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let started = Instant::now();
    let (solution, solved) = table_for(&rules, args.out.as_deref())?;
    let seconds = started.elapsed().as_secs_f64();
    let path = match &args.out {
        Some(path) => path.clone(),
        None => data_dir()
            .context("no data directory")?
            .join(tables::default_name(&solution.rules())),
    };
    let how = if solved {
        format!("solved in {seconds:.1} s")
    } else {
        "read from the table".to_string()
    };
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "optimal win probability: {:.6}\npositions: {} (8 symmetries folded), {how}\ntable: {}",
        solution.start_probability(),
        solution.positions(),
        path.display()
    )?;
    out.flush()?;
    Ok(())
}
