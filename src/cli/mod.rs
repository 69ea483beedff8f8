//! The command line: argument parsing (clap), knob validation, dispatch and exit codes.
//!
//! Exit codes: 0 on success (also when stdout is closed early), 2 for bad arguments or a bad
//! `--board` file, 1 for any other failure.

use crate::bench::{self, BenchConfig};
use crate::files::best::{BestScores, data_dir};
use crate::files::save::{
    SAVE_FILE, directory_of, read_board_file, resolve_links, without_temporary_path,
};
use crate::files::solutions;
use crate::files::store::FileStore;
use crate::files::weights::{
    WeightsFileError, coherence_path, default_path, read_coherence, read_weights,
};
use crate::frontends::console::Console;
use crate::frontends::mips::Mips;
use crate::frontends::tui::{self, ColorMode};
use crate::model::named::Named;
use crate::model::random::{os_seed, seeded};
use crate::model::rules::{Rules, Scoring, Spawn, Variant};
use crate::model::size::Size;
use crate::players::optimal::{Phase, SolvedRules};
use crate::players::playout::default_attempt_limit;
use crate::players::{
    AnyPlayer, CROWDED_EMPTY_CELLS, DEFAULT_LEARNED_DEPTH, KEEP_PLAYING_LEARNED_DEPTH,
    MAX_BUDGET_MS, MAX_FIXED_DEPTH, MAX_LEARNED_DEPTH, Network, PlayerKind, RandomPlayer,
    SearchConfig, Solution, Stages, TupleSet,
};
use crate::session::{MemoryStore, MenuStyle, Session, Settings};
use crate::train::{self, Budget, Schedule, TrainConfig};
use anyhow::Context;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::parser::ValueSource;
use clap::{ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;
use std::io::{self, IsTerminal, Read, Write};
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
    args_conflicts_with_subcommands = true,
    group(ArgGroup::new("computer").args(["autoplay", "player"]).multiple(false))
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    rules: RulesArgs,

    /// Seed the random number generator: the same seed and input give the same output.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    seed: Option<u64>,

    /// Start the first game from this board file (a grid of numbers, a framed board, or a save).
    #[arg(long, value_name = "FILE")]
    board: Option<PathBuf>,

    /// Let the computer play one game in the console, then exit.
    #[arg(long, value_name = "PLAYER", value_parser = named::<PlayerKind>())]
    autoplay: Option<PlayerKind>,

    /// The computer player of a game played by hand: its moves in the full-screen mode's
    /// autoplay, and its advice (default: expectimax).
    #[arg(long, value_name = "PLAYER", value_parser = named::<PlayerKind>())]
    player: Option<PlayerKind>,

    /// The learned player's weights (default: the data directory's, where `power11 train`
    /// writes them).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,

    /// Play full-screen: arrow keys, coloured tiles, one board redrawn in place.
    #[arg(long, conflicts_with = "autoplay")]
    tui: bool,

    /// The line interface: Power-11's, or that of a 2048 in MIPS assembly, which plays 3x3 to 512
    /// (its menu, `+---+` board, one upper-case key a line; 3 and 4 switch new tiles off and on).
    /// `mips` takes `--seed` and no other game or player flag.
    #[arg(long, value_name = "NAME", value_parser = named::<Interface>(), default_value = "power11")]
    interface: Interface,

    /// Whether `--variant` was given (not its default): `--interface mips` refuses any but
    /// `mini`.
    #[arg(skip)]
    variant_given: bool,

    /// Colours in the full-screen mode (`auto` follows `NO_COLOR` and the terminal).
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"], requires = "tui")]
    color: String,

    /// With --autoplay: wait this many milliseconds after each move.
    #[arg(
        long,
        value_name = "MS",
        allow_negative_numbers = true,
        requires = "autoplay"
    )]
    delay: Option<u64>,

    /// With --autoplay: stop after this many attempted moves.
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        requires = "autoplay"
    )]
    max_moves: Option<u64>,

    /// With --autoplay or --player expectimax or learned: search this many moves deep instead
    /// of adapting the depth (learned: 1 to 4).
    #[arg(long, value_name = "N", allow_negative_numbers = true, requires = "computer", value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_FIXED_DEPTH)))]
    depth: Option<u32>,

    /// With --autoplay or --player expectimax: search deeper while this many milliseconds per
    /// move last (moves then depend on the machine's speed).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, requires = "computer", conflicts_with = "depth", value_parser = clap::value_parser!(u64).range(1..=MAX_BUDGET_MS))]
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
  best scores, solved 3x3 tables and learned weights live in $POWER11_DATA_DIR (set and not
  empty: an empty value counts as unset, as with NO_COLOR), else the platform's data
  directory (~/.local/share/power11 on Linux). Best scores are kept per rule set and size for
  games played by hand; --autoplay and bench games are the computer's and are not recorded

Examples:
  power11                                play Power-11 (menu: e = Easy 5x5, h = Hard 4x4)
  power11 --tui                          the same, full-screen with the arrow keys
  power11 --interface mips               the MIPS 3x3 program's menu, board and W/A/S/D keys
  power11 --variant classic              classic 2048 with best score and keep-playing
  power11 --board B1.txt --variant edge  start from a board file
  power11 --autoplay expectimax --seed 1 watch the search player win
  power11 solve --variant mini           solve 3x3 to 512 exactly (then --player optimal)
  power11 bench --player random --games 100000 --jobs 1
  power11 train --minutes 90             learn an evaluation by self-play (then --player learned)
  power11 bench --player learned --variant classic --games 1000";

#[derive(Subcommand, Debug)]
enum Command {
    /// Play many games headless with a computer player and print statistics.
    Bench(BenchArgs),
    /// Solve a 3x3 rule set exactly: every position's odds of winning with perfect play.
    Solve(SolveArgs),
    /// Learn a 4x4 evaluation by self-play (TD learning of an n-tuple network) for
    /// `--player learned`. Ctrl-C stops early and keeps what was learned.
    Train(TrainArgs),
    /// Print a shell completion script: `power11 completions bash > power11.bash`.
    Completions(CompletionsArgs),
    /// Print a manual page (roff): `power11 man | man -l -`.
    Man(ManArgs),
}

#[derive(Args, Debug)]
struct CompletionsArgs {
    /// The shell: bash, elvish, fish, powershell or zsh.
    #[arg(value_name = "SHELL")]
    shell: String,
}

#[derive(Args, Debug)]
struct ManArgs {
    /// The command whose page to print (`bench`, `bench merge`, `solve`, `train`, ...);
    /// without one, power11's own page.
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("budget").args(["minutes", "games"]).required(true)))]
#[allow(clippy::struct_excessive_bools)] // on/off flags, each its own choice
struct TrainArgs {
    /// Train for this many minutes (fractions allowed).
    #[arg(long, value_name = "M", allow_negative_numbers = true, value_parser = parse_minutes)]
    minutes: Option<f64>,

    /// Train for this many games (with --threads 1 and --seed, the result is reproducible).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..))]
    games: Option<u64>,

    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: Option<u64>,

    /// Seed the games (default: random, and printed).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    seed: Option<u64>,

    /// Write the weights here (default: the data directory's weight file, where
    /// --player learned looks); its directory must be there.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,

    /// Go on training the network in the output file (its tuples and stages).
    #[arg(long)]
    resume: bool,

    /// Start a new network even though the output file holds one (replaced at the first
    /// checkpoint).
    #[arg(long, conflicts_with = "resume")]
    restart: bool,

    /// The tuple set of a new network.
    #[arg(long, value_name = "SET", value_parser = named::<TupleSet>())]
    tuples: Option<TupleSet>,

    /// Where a new network's stages split: tiles from 4 to 32768 that start a stage with weights
    /// of its own, or `none` for one stage [default: 16384,32768].
    #[arg(long, value_name = "TILES", value_parser = parse_stages)]
    stages: Option<Stages>,

    /// Optimistic initialization: a new network starts by valuing every board V (320000 is the
    /// published choice), so that training games are drawn to the boards they have learned
    /// least (Guei, Chen & Wu 2021); 0 starts from zeros. Off by default: after 90 minutes
    /// here it made 16384 in 1% of games against 66% without it, and the paper's gains come
    /// after far longer training (measurements/learned.md).
    #[arg(
        long,
        value_name = "V",
        allow_negative_numbers = true,
        default_value_t = 0.0,
        value_parser = parse_initial_value,
        conflicts_with = "resume"
    )]
    optimistic: f32,

    /// The learning rate (at most 0.25: each update moves a 4x6 network's value by 4 x rate x
    /// its error, so higher rates overshoot). It stays as it is, each weight's temporal
    /// coherence lowering its own; with --no-coherence it falls to a tenth of it over the first
    /// four fifths of the budget and stays there for the last fifth [default: 0.25, and 0.1
    /// with --no-coherence]
    #[arg(long, value_name = "A", allow_negative_numbers = true, value_parser = parse_rate)]
    rate: Option<f32>,

    /// TD(λ): each afterstate's target leans on the rewards that followed it, fading by λ a
    /// move, more than on the network's estimate (0 is TD(0), 1 the game's remaining score).
    #[arg(long, value_name = "L", allow_negative_numbers = true, default_value_t = 0.5, value_parser = parse_lambda)]
    lambda: f32,

    /// Plain steps instead of temporal coherence learning (where each weight's step is scaled
    /// by how consistently its errors point one way, so that every weight anneals at its own
    /// pace; Jaśkowski 2018). The coherence sums take twice the weights' memory while training
    /// and are kept beside the weights, in FILE.coherence, for --resume.
    #[arg(long)]
    no_coherence: bool,

    /// Learn from each game once. By default a game of more than 10 moves is played and
    /// learned again from the board halfway through it, and again from the middle of that
    /// game, until one is that short (Matsuzaki's restart strategy), so that the late game is
    /// learned from about as often as the early game.
    #[arg(long)]
    no_rewind: bool,

    /// Minutes between checkpoints (the weights are also written at the end).
    #[arg(long, value_name = "M", allow_negative_numbers = true, default_value_t = 5.0, value_parser = parse_minutes)]
    checkpoint_minutes: f64,

    /// Late-stage training (with --resume; TILE must be one of the network's stage splits):
    /// first collect 1000 boards on which the network's own greedy games first make TILE (not
    /// counted in --minutes), then start every game from one of them, so that the stages from
    /// TILE on learn from every game and the stages below are left as they are.
    #[arg(long, value_name = "TILE", allow_negative_numbers = true, value_parser = parse_tile, requires = "resume")]
    start_at: Option<u8>,
}

/// The learning rate under temporal coherence: a whole step (each update moves a 4x6 network's
/// value by its whole error, times the weights' coherence), Jaśkowski's α = 1.
const COHERENCE_RATE: f32 = 0.25;

/// How many start positions late-stage training (`--start-at`) collects.
const START_POSITIONS: usize = 1000;

/// A tile value from 8 (the smallest a game makes rather than places) to 2^15 (the largest a
/// 4x4 network's stages split at), as its exponent.
fn parse_tile(text: &str) -> Result<u8, String> {
    match text.trim().parse::<u64>() {
        Ok(value) if value.is_power_of_two() && (8..=1 << 15).contains(&value) => {
            Ok(value.trailing_zeros() as u8)
        }
        _ => Err(format!(
            "'{text}' is not a tile (a power of two from 8 to 32768)"
        )),
    }
}

/// The stage split of new networks: separate weights once a 16384 and once a 32768 is made.
const DEFAULT_STAGES: &[u8] = &[14, 15];

fn parse_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(m) if (0.0001..=525_600.0).contains(&m) => Ok(m),
        _ => Err(format!(
            "'{text}' is not a number of minutes (from 0.0001, at most a year)"
        )),
    }
}

fn parse_lambda(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(l) if (0.0..=1.0).contains(&l) => Ok(l),
        _ => Err(format!("'{text}' is not a λ (from 0 to 1)")),
    }
}

/// The smallest learning rate: smaller ones learn nothing in any budget (and past the `f32`
/// range they would be 0).
const MIN_RATE: f32 = 1e-6;

fn parse_rate(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(a) if (MIN_RATE..=0.25).contains(&a) => Ok(a),
        _ => Err(format!(
            "'{text}' is not a learning rate (from 0.000001 to 0.25)"
        )),
    }
}

/// The most a new network may value every board at (`--optimistic`): far above any score a
/// game makes, and each of a 4x6 network's 32 weights stays well inside the f16 range.
const MAX_INITIAL_VALUE: f32 = 1_000_000.0;

fn parse_initial_value(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(v) if (0.0..=MAX_INITIAL_VALUE).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{text}' is not an initial value (a score from 0 to {MAX_INITIAL_VALUE})"
        )),
    }
}

fn parse_stages(text: &str) -> Result<Stages, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Stages::single());
    }
    let exponents = text
        .split(',')
        .map(|tile| {
            let value: u64 = tile
                .trim()
                .parse()
                .map_err(|_| format!("'{tile}' is not a tile"))?;
            if value < 2 || !value.is_power_of_two() {
                return Err(format!("'{tile}' is not a tile (a power of two from 2)"));
            }
            // Every board holds a 2 or more: a stage below a split at 2 would never be used,
            // yet trained, kept in memory and written.
            if value == 2 {
                return Err(
                    "a split at 2 leaves the first stage unused: splits are tiles from 4"
                        .to_string(),
                );
            }
            Ok(value.trailing_zeros() as u8)
        })
        .collect::<Result<Vec<u8>, String>>()?;
    Stages::split_at(&exponents).map_err(|_| {
        "stage splits are increasing tiles from 4 to 32768, at most 3 of them".to_string()
    })
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
    /// Write the table here (default: the data directory, where players and advice find it);
    /// its directory must be there.
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
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..))]
    games: u64,

    /// Play games K..K+N of the run --seed defines (a long run split into parts; add up
    /// their --json reports with `bench merge`).
    #[arg(
        long,
        value_name = "K",
        allow_negative_numbers = true,
        default_value_t = 0,
        requires = "seed"
    )]
    first_game: u64,

    /// Worker threads (default: all cores).
    #[arg(long, value_name = "J", allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..=1024))]
    jobs: Option<u64>,

    /// Print the summary as one JSON object.
    #[arg(long)]
    json: bool,

    /// The base seed (game i gets its own seed derived from it; default: random, and printed).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    seed: Option<u64>,

    /// Stop a game after this many attempted moves.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..))]
    max_moves: Option<u64>,

    /// Expectimax or learned: search this many moves deep instead of adapting the depth
    /// (learned: 1 to 4).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(MAX_FIXED_DEPTH)))]
    depth: Option<u32>,

    /// The learned player's weights (default: the data directory's, where `power11 train`
    /// writes them).
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,

    /// Expectimax: search deeper while this many milliseconds per move last (games then
    /// depend on the machine's speed and load, so they do not replay from the seed).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, conflicts_with = "depth", value_parser = clap::value_parser!(u64).range(1..=MAX_BUDGET_MS))]
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
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    size: Option<Size>,

    /// The goal tile (a power of two from 8 to 1048576), or `none`.
    #[arg(long, value_name = "V", allow_negative_numbers = true, value_parser = parse_goal)]
    goal: Option<Goal>,

    /// Where new tiles appear.
    #[arg(long, value_name = "RULE", value_parser = named::<Spawn>())]
    spawn: Option<Spawn>,

    /// How the score counts.
    #[arg(long, value_name = "RULE", value_parser = named::<Scoring>())]
    score: Option<Scoring>,

    /// Start with each cell a 2 with probability P (0 < P <= 1).
    #[arg(long, value_name = "P", allow_negative_numbers = true, value_parser = parse_fill)]
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

/// A `--seed`: any 64-bit unsigned number, said so when the text is not one.
fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("a seed is a whole number from 0 to {} (2^64-1)", u64::MAX))
}

/// The line interfaces (`--interface`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Interface {
    /// Power-11's: the console.
    Power11,
    /// The MIPS 3x3 program's.
    Mips,
}

impl Named for Interface {
    const ALL: &'static [Interface] = &[Interface::Power11, Interface::Mips];

    fn name(self) -> &'static str {
        match self {
            Interface::Power11 => "power11",
            Interface::Mips => "mips",
        }
    }

    fn about(self) -> &'static str {
        match self {
            Interface::Power11 => {
                "Power-11's: its menu, Score line and # board, keys u d l r s b a q"
            }
            Interface::Mips => {
                "The MIPS 3x3 program's: its menu and +---+ board, keys W A S D X, 3 and 4 (new tiles off, on)"
            }
        }
    }
}

/// A problem with what the user asked for (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

/// Parses the arguments, runs, and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    let parsed = Cli::command().try_get_matches().and_then(|matches| {
        let mut cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut Cli::command()))?;
        cli.variant_given = matches.value_source("variant") == Some(ValueSource::CommandLine);
        Ok(cli)
    });
    let cli = match parsed {
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

/// Standard output whose errors say so (`cannot write to standard output: No space left on
/// device`): the system's error alone does not name the file. The error's kind is kept, so a
/// closed pipe still ends the program quietly.
struct StandardOutput<W>(W);

impl StandardOutput<io::StdoutLock<'static>> {
    fn lock() -> Self {
        StandardOutput(io::stdout().lock())
    }
}

impl<W: Write> Write for StandardOutput<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).map_err(|e| Self::label(&e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().map_err(|e| Self::label(&e))
    }
}

impl<W> StandardOutput<W> {
    fn label(error: &io::Error) -> io::Error {
        let message = format!("cannot write to standard output: {error}");
        io::Error::new(error.kind(), message)
    }
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
        Some(Command::Train(args)) => return run_train(args),
        Some(Command::Completions(args)) => return print_completions(&args.shell),
        Some(Command::Man(args)) => return print_man_page(&args.command),
        None => {}
    }
    if cli.interface == Interface::Mips {
        return run_mips(cli);
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
    if cli.tui && std::env::var_os("TERM").is_some_and(|term| term == "dumb") {
        let message = "--tui needs a terminal that can move its cursor and TERM=dumb cannot; \
                       play the line interface (power11 without --tui)";
        return Err(UsageError(message.to_string()).into());
    }
    let menu = if rules.variant() == Variant::Power11 && cli.rules.size.is_none() {
        MenuStyle::EasyHard
    } else {
        MenuStyle::OneSize
    };
    let settings = Settings { rules, menu };
    // A game by hand may be played on 5x5 from the menu; the learned player then hands 5x5
    // boards to the hand-tuned search. Autoplay plays the rules given, which must suit it.
    let any_size = cli.autoplay.is_none() && menu == MenuStyle::EasyHard;
    if let (Some(PlayerKind::Learned), Some(timeline)) = (cli.autoplay, &first_game)
        && timeline.size() != 4
    {
        let n = timeline.size();
        let message = format!(
            "the learned player plays 4x4 boards (classic, Power-11 Hard); {} holds a {n}x{n} board",
            cli.board
                .as_deref()
                .map_or(String::new(), |p| p.display().to_string())
        );
        return Err(UsageError(message).into());
    }
    let (player, _) = player_for(
        cli.autoplay
            .or(cli.player)
            .unwrap_or(PlayerKind::Expectimax),
        cli.depth,
        cli.ms_per_move,
        &rules,
        cli.weights.as_deref(),
        any_size,
    )?;
    let mut out = io::BufWriter::new(StandardOutput::lock());
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
        return Ok(crate::frontends::autoplay::run(
            &mut out,
            &mut session,
            delay,
            limit,
        )?);
    }
    // Notes about the best-score file go to standard error, before the game: its output stays
    // what the moves make it. (A best score that cannot be saved is said in the game.)
    let best = if let Some(dir) = data_dir() {
        let (loaded, warnings) = BestScores::load(&dir);
        for warning in warnings {
            eprintln!("power11: {warning}");
        }
        loaded
    } else {
        eprintln!(
            "power11: no data directory (POWER11_DATA_DIR is not set and there is no home \
             directory); best scores are kept for this session only: set POWER11_DATA_DIR to keep them"
        );
        BestScores::in_memory()
    };
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

/// `--interface mips`: the MIPS program's interface on stdin and stdout. It plays the `mini`
/// rules (those of that program: 3x3, 2s, two at the start, goal 512) and keeps nothing: no
/// save, no best score.
fn run_mips(cli: &Cli) -> anyhow::Result<()> {
    if let Some(flag) = mips_conflict(cli) {
        let message = format!(
            "--interface mips plays the MIPS program's own game (3x3 to 512, its menu and keys): it takes no {flag}"
        );
        return Err(UsageError(message).into());
    }
    let settings = Settings {
        rules: Rules::mini(),
        menu: MenuStyle::OneSize,
    };
    let rng = seeded(cli.seed.unwrap_or_else(os_seed));
    let session = Session::new(
        settings,
        rng,
        MemoryStore::new(),
        AnyPlayer::Random(RandomPlayer),
    );
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    Mips::new(session, stdin.lock(), &mut out).run()?;
    Ok(())
}

/// The first flag given with `--interface mips` that it cannot honour, as given: any flag of
/// another interface, a player's, `--board` (a start state is typed at its menu), and a rule
/// other than the MIPS program's (`--variant mini` and `--size 3` agree with it).
fn mips_conflict(cli: &Cli) -> Option<String> {
    let rules = &cli.rules;
    let mini = Rules::mini();
    let plain = |flag: &str| Some(flag.to_string());
    if cli.tui {
        return plain("--tui");
    }
    if let Some(player) = cli.autoplay {
        return Some(format!("--autoplay {}", player.name()));
    }
    if let Some(player) = cli.player {
        return Some(format!("--player {}", player.name()));
    }
    if cli.weights.is_some() {
        return plain("--weights");
    }
    if cli.board.is_some() {
        return plain("--board (its menu's 2 starts from a state)");
    }
    if cli.variant_given && rules.variant != Variant::Mini {
        return Some(format!("--variant {}", rules.variant.name()));
    }
    if let Some(size) = rules.size.filter(|s| s.get() != mini.size()) {
        return Some(format!("--size {size}"));
    }
    if let Some(Goal(goal)) = rules.goal {
        let exponent = goal.map(|v| v.trailing_zeros() as u8);
        if exponent != mini.goal() {
            return Some(format!(
                "--goal {}",
                goal.map_or("none".to_string(), |v| v.to_string())
            ));
        }
    }
    if let Some(spawn) = rules.spawn.filter(|&s| s != mini.spawn()) {
        return Some(format!("--spawn {}", spawn.name()));
    }
    if let Some(scoring) = rules.score.filter(|&s| s != mini.scoring()) {
        return Some(format!("--score {}", scoring.name()));
    }
    if let Some(p) = rules.fill {
        return Some(format!("--fill {p}"));
    }
    None
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
    let (player, network) = player_for(
        kind,
        args.depth,
        args.ms_per_move,
        &rules,
        args.weights.as_deref(),
        false,
    )?;
    let config = BenchConfig {
        rules,
        player,
        depth: args.depth,
        network: network.map(|n| n.fingerprint()),
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
    let mut out = StandardOutput::lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The player `kind` for games under `rules`, and the network it plays if it is the learned
/// player: the optimal player loads the solved table of these rules from the data directory,
/// or solves them first (with a progress bar); the learned player loads its weights (from
/// `weights`, else the data directory) and plays 4x4 boards only, unless `any_size` (a game by
/// hand, where other sizes get the hand-tuned search).
fn player_for(
    kind: PlayerKind,
    depth: Option<u32>,
    ms_per_move: Option<u64>,
    rules: &Rules,
    weights: Option<&Path>,
    any_size: bool,
) -> anyhow::Result<(AnyPlayer, Option<Arc<Network>>)> {
    let usage = |message: String| Err(UsageError(message).into());
    if kind != PlayerKind::Learned && weights.is_some() {
        return usage(format!(
            "--weights is the learned player's network; the {} player has none",
            kind.name()
        ));
    }
    if kind == PlayerKind::Learned {
        if ms_per_move.is_some() {
            return usage(format!(
                "--ms-per-move times the expectimax search; the learned player searches {DEFAULT_LEARNED_DEPTH} moves deep in games that end at their goal and {KEEP_PLAYING_LEARNED_DEPTH} in others (one more on boards with at most {CROWDED_EMPTY_CELLS} empty cells), or --depth 1 to {MAX_LEARNED_DEPTH}"
            ));
        }
        if let Some(d) = depth.filter(|&d| d > MAX_LEARNED_DEPTH) {
            return usage(format!(
                "the learned player searches 1 to {MAX_LEARNED_DEPTH} moves deep, not {d}"
            ));
        }
        let n = rules.size();
        if n != 4 && !any_size {
            return usage(format!(
                "the learned player plays 4x4 boards (classic, Power-11 Hard); these rules are {n}x{n}"
            ));
        }
        let network = load_network(weights)?;
        let search = SearchConfig {
            depth,
            ..Default::default()
        };
        let player = kind.build(search, None, Some(&network))?;
        return Ok((player, Some(network)));
    }
    if kind != PlayerKind::Expectimax && (depth.is_some() || ms_per_move.is_some()) {
        let message = format!(
            "--depth and --ms-per-move tune the expectimax player's search (--depth the learned player's too); the {} player does not search",
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
    Ok((kind.build(search, table.as_ref(), None)?, None))
}

/// The learned player's network from `weights`, else from the data directory's weight file.
/// No file, or one that is not a whole network, is a usage error (exit 2) saying what to do.
fn load_network(weights: Option<&Path>) -> anyhow::Result<Arc<Network>> {
    let path = match weights {
        Some(path) => path.to_path_buf(),
        None => default_path(data_dir().as_deref()).ok_or_else(|| {
            UsageError(
                "no data directory to find the learned player's weights in (set POWER11_DATA_DIR or pass --weights)"
                    .to_string(),
            )
        })?,
    };
    match read_weights(&path) {
        Ok(network) => Ok(Arc::new(network)),
        Err(WeightsFileError::Missing(_)) => {
            let out = if weights.is_some() {
                format!(" --out {}", path.display())
            } else {
                String::new()
            };
            Err(UsageError(format!(
                "the learned player has no trained network ({} does not exist): make one with \
                 `power11 train --minutes 90{out}` (it plays well after about 90 minutes on 2 \
                 cores; `--minutes 5` makes a fair one)",
                path.display()
            ))
            .into())
        }
        Err(e) => Err(UsageError(e.to_string()).into()),
    }
}

/// An `--out` file's directory must be there: power11 makes its own data directory, but a
/// directory the user names that does not exist is most likely a typo, and making it would hide
/// the file where they will not look. Through a link, the directory of the file it names.
fn check_out_directory(out: &Path) -> anyhow::Result<()> {
    // `sub/` names a directory: the file's name would be `sub`, and a rename onto `sub/` fails
    // at the end of the work, not before it.
    if out
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator)
    {
        let message = format!(
            "cannot use --out {}: it names a directory (it ends with a '/'), not a file",
            out.display()
        );
        return Err(UsageError(message).into());
    }
    let target = resolve_links(out).unwrap_or_else(|_| out.to_path_buf());
    let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    let problem = match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => format!("{} is not a directory", dir.display()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            format!("there is no directory {}", dir.display())
        }
        Err(e) => format!("{}: {e}", dir.display()),
    };
    Err(UsageError(format!("cannot use --out {}: {problem}", out.display())).into())
}

/// The solved table of `rules`: read from `out` (or the data directory's file for these rules)
/// if it is there and whole, else solved and written there. Also says whether it was solved
/// now. Rules the solver cannot solve, and an `out` that holds anything but a whole table of
/// these rules (another file, another rule set's table, a damaged table), are usage errors
/// (exit 2): the file is left as it is.
fn table_for(rules: &Rules, out: Option<&Path>) -> anyhow::Result<(Arc<Solution>, bool)> {
    let solved = SolvedRules::of(rules).map_err(|e| UsageError(e.to_string()))?;
    let path = match out {
        Some(path) => {
            check_out_directory(path)?;
            path.to_path_buf()
        }
        None => data_dir()
            .context("no data directory for the table (set POWER11_DATA_DIR)")?
            .join(solutions::default_name(&solved)),
    };
    match solutions::read_table(&path, rules) {
        Ok(Some(solution)) => return Ok((Arc::new(solution), false)),
        Ok(None) => {}
        // The data directory's table is power11's own: a damaged one is solved again.
        Err(e) if out.is_none() => eprintln!("power11: {e}; solving again"),
        // A file the user named is theirs: never replaced by a table.
        Err(e) => {
            return Err(UsageError(format!(
                "{e}; it is left alone (choose another --out, or remove it to solve again)"
            ))
            .into());
        }
    }
    if !io::stderr().is_terminal() {
        // No progress bar off a terminal: one line, so that a pause of seconds (or minutes,
        // for the largest rule sets) before the game or the benchmark is not a mystery.
        eprintln!(
            "power11: solving {solved} exactly, once: the table goes to {}",
            path.display()
        );
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
    solutions::write_table(&path, &solution)?;
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
            .join(solutions::default_name(&solution.rules())),
    };
    let how = if solved {
        format!("solved in {seconds:.1} s")
    } else {
        "read from the table".to_string()
    };
    let mut out = StandardOutput::lock();
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

/// Whether training may write `out`, checked before it starts (a run that could not keep its
/// work would waste it): a new file in a directory that takes files, or an existing weight
/// file that `--resume` continues or `--restart` replaces. Any other file is never replaced.
/// Returns the lock that keeps a second `power11 train` off the same file for the whole run
/// (two runs on one file would each overwrite the other's work).
fn check_weights_out(out: &Path, resume: bool, restart: bool) -> anyhow::Result<std::fs::File> {
    let usage = |message: String| Err(UsageError(message).into());
    let shown = out.display();
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
        Ok(_) if resume => {}
        Ok(_) => {
            let mut magic = [0u8; 8];
            let is_weights = std::fs::File::open(out)
                .and_then(|mut f| f.read_exact(&mut magic))
                .is_ok()
                && &magic == b"P11NTUPL";
            if !is_weights {
                return usage(format!(
                    "{shown} is not a weight file; it is left alone (choose another --out)"
                ));
            }
            // --restart replaces a whole weight file, never a damaged one (what it held can
            // only be judged by the user) nor one of another format version (a network another
            // power11 trained, hours of work).
            match read_weights(out) {
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
    // The directory must take the temporary file a checkpoint is written to, and the lock
    // beside it. Both go beside the file that a link names, as the checkpoints do: two runs
    // through two links to one file share a lock.
    let (dir, name) = check_writable_beside(out, true)
        .map_err(|reason| UsageError(format!("cannot write --out {shown}: {reason}")))?;
    let lock_path = dir.join(format!(".{name}.lock"));
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .with_context(|| format!("cannot write {}", lock_path.display()))?;
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(std::fs::TryLockError::WouldBlock) => usage(format!(
            "another power11 train is writing {shown}: wait for it to finish or choose another --out"
        )),
        Err(std::fs::TryLockError::Error(e)) => {
            Err(e).with_context(|| format!("cannot lock {}", lock_path.display()))
        }
    }
}

/// Whether training may keep its coherence sums beside `out` (`weights::coherence_path`),
/// checked before it starts, as `out` is: no file there, or a readable file of sums that is not
/// read-only, in a directory that takes the temporary file a checkpoint writes (through a link,
/// the directory of the file it names). Any other file is never replaced.
fn check_coherence_out(out: &Path) -> anyhow::Result<()> {
    let path = coherence_path(out);
    let shown = path.display();
    let refuse = |problem: &str| -> anyhow::Result<()> {
        Err(UsageError(format!(
            "{shown} {problem}; it is left alone (training keeps its coherence sums there: move it away, or train with --no-coherence)"
        ))
        .into())
    };
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(UsageError(format!("cannot use {shown}: {e}")).into()),
        Ok(meta) if !meta.is_file() => return refuse("is not a regular file"),
        Ok(meta) if meta.permissions().readonly() => return refuse("is read-only"),
        Ok(_) => {
            let mut magic = [0u8; 8];
            let read = std::fs::File::open(&path).and_then(|mut f| f.read_exact(&mut magic));
            match read {
                Err(e) if e.kind() != io::ErrorKind::UnexpectedEof => {
                    return Err(UsageError(format!("cannot read {shown}: {e}")).into());
                }
                Ok(()) if &magic == b"P11COHER" => {}
                _ => return refuse("is not a file of coherence sums"),
            }
        }
    }
    // Beside the file a link at `path` names (a link to nowhere fails here).
    check_writable_beside(&path, false)
        .map(drop)
        .map_err(|reason| UsageError(format!("cannot write {shown}: {reason}")).into())
}

/// The directory and name of the file `path` names (following links), once that directory (made
/// first if `make_dir`) has taken a temporary file named as `save::write_atomic` names the one it
/// writes `path` through: checked before hours of work depend on it. The error is the system's,
/// without the temporary file's (perhaps very long) path.
fn check_writable_beside(path: &Path, make_dir: bool) -> io::Result<(PathBuf, String)> {
    let target = resolve_links(path)?;
    let dir = directory_of(&target).to_path_buf();
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    if make_dir {
        std::fs::create_dir_all(&dir)?;
    }
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(without_temporary_path)?;
    Ok((dir, name))
}

fn run_train(args: &TrainArgs) -> anyhow::Result<()> {
    let out = match &args.out {
        Some(path) => {
            check_out_directory(path)?;
            path.clone()
        }
        None => default_path(data_dir().as_deref()).ok_or_else(|| {
            UsageError(
                "no data directory for the weights (set POWER11_DATA_DIR or pass --out)"
                    .to_string(),
            )
        })?,
    };
    let _lock = check_weights_out(&out, args.resume, args.restart)?;
    if !args.no_coherence {
        check_coherence_out(&out)?;
    }
    let mut network = if args.resume {
        let network = match read_weights(&out) {
            Ok(network) => network,
            Err(WeightsFileError::Missing(_)) => {
                let message = format!(
                    "--resume: {} does not exist (train without --resume to start a network)",
                    out.display()
                );
                return Err(UsageError(message).into());
            }
            Err(e) => return Err(UsageError(format!("--resume: {e}")).into()),
        };
        if let Some(set) = args.tuples.filter(|&set| set != network.tuple_set()) {
            let message = format!(
                "{} holds a network of tuple set {}, not {}",
                out.display(),
                network.tuple_set().name(),
                set.name()
            );
            return Err(UsageError(message).into());
        }
        if let Some(stages) = args.stages.as_ref().filter(|&s| s != network.stages()) {
            let message = format!(
                "{} holds a network with {}, not {stages}",
                out.display(),
                network.stages()
            );
            return Err(UsageError(message).into());
        }
        if let Some(exponent) = args
            .start_at
            .filter(|e| !network.stages().thresholds().contains(e))
        {
            // Its games would train the stage they start in on late boards only, and that
            // stage also values the boards before the tile.
            let tile = 1u64 << exponent;
            let message = format!(
                "--start-at {tile}: the network in {} has {}, and late-stage training must \
                 start at one of its splits (a stage that starts at {tile})",
                out.display(),
                network.stages()
            );
            return Err(UsageError(message).into());
        }
        network
    } else {
        let stages = args.stages.clone().unwrap_or_else(|| {
            Stages::split_at(DEFAULT_STAGES).expect("the default stages are valid")
        });
        Network::with_initial_value(
            args.tuples.unwrap_or(TupleSet::Sixes),
            stages,
            args.optimistic,
        )
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
    let schedule = if args.no_coherence {
        Schedule::falling(args.rate.unwrap_or(Schedule::default().rate))
    } else {
        network.track_coherence();
        if args.resume {
            // A note on stderr: whether the sums go on, or start anew (whole steps at first,
            // which shake a trained network up for a few minutes).
            let note = match read_coherence(&out, &mut network) {
                Ok(()) => format!(
                    "the coherence sums go on from {}",
                    coherence_path(&out).display()
                ),
                Err(e) => format!(
                    "{e}: the coherence sums start anew (the file is replaced at the first \
                     checkpoint)"
                ),
            };
            let _ = writeln!(io::stderr(), "power11 train: {note}");
        }
        Schedule::constant(args.rate.unwrap_or(COHERENCE_RATE))
    };
    let mut config = TrainConfig {
        budget,
        threads,
        seed,
        schedule,
        lambda: args.lambda,
        rewind: !args.no_rewind,
        out: out.clone(),
        checkpoint_every: Duration::from_secs_f64(args.checkpoint_minutes * 60.0),
        starts: Vec::new(),
    };
    // Ctrl-C (or a hang-up or kill) stops the run after the games in flight and keeps the
    // weights; a second Ctrl-C ends the program at once (the last checkpoint stays whole).
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&stop))?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let budget_words = match budget {
        Budget::Time(t) => duration_words(t.as_secs_f64()),
        Budget::Games(1) => "1 game".to_string(),
        Budget::Games(n) => format!("{n} games"),
    };
    let network_words = if network.training().games == 0 {
        format!("a new network ({})", network.description())
    } else {
        format!(
            "the network in {} ({})",
            out.display(),
            network.description()
        )
    };
    let learning_words = learning_words(&config, network.tracks_coherence());
    // A note on stderr; what it says is repeated in the summary, so it may go unseen.
    let _ = writeln!(
        io::stderr(),
        "power11 train: {budget_words} of training for {network_words}, {learning_words}, \
         seed {seed}, {threads} thread(s), writing {}",
        out.display()
    );
    if let Some(exponent) = args.start_at {
        let tile = 1u64 << exponent;
        let _ = writeln!(
            io::stderr(),
            "power11 train: collecting {START_POSITIONS} start positions (boards where the \
             network's greedy games first make {tile}; not counted in the budget)"
        );
        let started = Instant::now();
        let starts =
            train::collect_starts(&network, exponent, START_POSITIONS, threads, seed, &stop);
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = writeln!(
                io::stdout(),
                "trained 0 games (stopped early, while collecting start positions): {} is \
                 unchanged",
                out.display()
            );
            return Ok(());
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
    }
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
    let mut progress = |p: &train::Progress| {
        if let Some(bar) = &bar {
            bar.set_position((p.done * 1000.0) as u64);
            bar.set_message(p.line());
        } else if last_line.elapsed() >= Duration::from_secs(60) {
            eprintln!("{}", p.line());
            last_line = Instant::now();
        }
    };
    let result = train::run(&network, &config, &stop, &mut progress);
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let last = result?;
    let total = network.training();
    let stopped = if stop.load(std::sync::atomic::Ordering::Relaxed) {
        " (stopped early)"
    } else {
        ""
    };
    let summary = format!(
        "trained {} game{}{stopped} in {:.1} s: {:.2}M moves/s\n{}\nlearning: {learning_words}\nnetwork: {}, {} of training in all\nweights: {}\n",
        last.games,
        if last.games == 1 { "" } else { "s" },
        last.elapsed.as_secs_f64(),
        last.moves_per_second() / 1e6,
        last.line(),
        network.description(),
        duration_words(total.seconds),
        out.display()
    );
    let mut stdout = io::stdout().lock();
    stdout
        .write_all(summary.as_bytes())
        .and_then(|()| stdout.flush())
        .with_context(|| {
            format!(
                "cannot write to standard output (the weights are saved in {})",
                out.display()
            )
        })
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

/// `power11 completions SHELL`: the completion script of every command and flag, for a shell
/// named as `clap_complete` names it (any case). An unknown name is a one-line usage error.
fn print_completions(name: &str) -> anyhow::Result<()> {
    let shell = Shell::value_variants()
        .iter()
        .copied()
        .find(|shell| {
            shell
                .to_possible_value()
                .is_some_and(|value| value.matches(name, true))
        })
        .ok_or_else(|| {
            UsageError(format!(
                "unknown shell '{}': completions are for bash, elvish, fish, powershell and zsh",
                name.escape_debug()
            ))
        })?;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "power11", &mut script);
    write_stdout(&script)
}

/// `power11 man [COMMAND...]`: the manual page of power11, or of one of its commands
/// (`power11-bench(1)`, `power11-bench-merge(1)`, ...), the pages power11's own page lists.
fn print_man_page(path: &[String]) -> anyhow::Result<()> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    for name in path {
        let parent = command
            .get_display_name()
            .unwrap_or(command.get_name())
            .replace('-', " ");
        let commands: Vec<&str> = command
            .get_subcommands()
            .filter(|sub| !sub.is_hide_set())
            .map(clap::Command::get_name)
            .collect();
        let Some(sub) = command
            .get_subcommands()
            .find(|sub| !sub.is_hide_set() && sub.get_name() == name)
            .cloned()
        else {
            let known = if commands.is_empty() {
                "it has none".to_string()
            } else {
                format!("its commands: {}", commands.join(", "))
            };
            let message = format!(
                "{parent} has no command '{}' ({known})",
                name.escape_debug()
            );
            return Err(UsageError(message).into());
        };
        command = sub;
    }
    let title = command
        .get_display_name()
        .unwrap_or(command.get_name())
        .to_uppercase();
    let extra = command.get_after_help().map(ToString::to_string);
    let has_version = command.get_version().is_some();
    let has_subcommands = command.get_subcommands().next().is_some();
    let man = clap_mangen::Man::new(command)
        .title(title)
        .date(RELEASE_DATE)
        .source(concat!("power11 ", env!("CARGO_PKG_VERSION")))
        .manual("User Commands");
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    if has_subcommands {
        man.render_subcommands_section(&mut page)?;
    }
    // The help's closing text is laid out by hand (columns of examples): no-fill, not the
    // filled paragraph clap_mangen makes of it.
    if let Some(extra) = extra {
        page.extend_from_slice(b".SH \"KEYS, FILES AND EXAMPLES\"\n.nf\n");
        for line in extra.lines() {
            page.extend_from_slice(roff_line(line).as_bytes());
            page.push(b'\n');
        }
        page.extend_from_slice(b".fi\n");
    }
    if has_version {
        man.render_version_section(&mut page)?;
    }
    write_stdout(&page)
}

/// The date of this version's release, as its manual pages give it (and CHANGELOG.md, which a
/// test compares).
const RELEASE_DATE: &str = "2026-11-26";

/// One line of text as roff prints it verbatim: backslashes and hyphens escaped, and a line
/// that would start with a control character (`.` or `'`) guarded.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// Writes generated text to standard output (a closed pipe ends the program quietly, as
/// everywhere; any other failure is an error).
fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .context("cannot write to standard output")
}
