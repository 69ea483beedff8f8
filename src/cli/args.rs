//! The command line's clap definition: `Cli`, its commands and their arguments (the parsers of
//! their values are in `values`). Every command and its completions and manual page read this one
//! definition.

use super::values::{
    Goal, MAX_DELAY_MS, Offered, named, parse_count, parse_fill, parse_goal, parse_index,
    parse_initial_value, parse_lambda, parse_minutes, parse_rate, parse_seed, parse_share,
    parse_stages, parse_step, parse_tile, whole,
};
use crate::learning::ntuple::{Stages, TupleSet};
use crate::model::named::Named;
use crate::model::rules::{Rules, Scoring, Spawn, Variant};
use crate::model::size::Size;
use crate::players::{MAX_BUDGET_MS, MAX_FIXED_DEPTH, PlayerKind};
use clap::{ArgGroup, Args, Parser, Subcommand};
use std::path::PathBuf;

pub(super) use super::grading_args::{GradeArgs, RefereeArgs};

/// Power-11: slide tiles on a 4x4 or 5x5 board, merge equal ones, reach 2048.
/// Also plays the rest of the 2048 family, and lets the computer play.
#[derive(Parser, Debug)]
#[command(
    name = "power11",
    bin_name = "power11",
    version,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true,
    group(ArgGroup::new("computer").args(["autoplay", "player"]).multiple(false)),
    group(ArgGroup::new("paced").args(["autoplay", "tui"]).multiple(true))
)]
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Option<Command>,

    #[command(flatten)]
    pub(super) rules: RulesArgs,

    /// Seed the random number generator: the same seed and input give the same output.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    pub(super) seed: Option<u64>,

    /// Start the first game from this board file (a grid of numbers, a framed board, a board
    /// drawn with `+---+` rules as the MIPS program prints it, or a save).
    #[arg(long, value_name = "FILE")]
    pub(super) board: Option<PathBuf>,

    /// Let the computer play one game in the console, then exit (default player: learned on
    /// 4x4, with the network shipped in power11 unless you trained one; expectimax on other
    /// sizes, or with --ms-per-move or a --depth past 4).
    #[arg(long, value_name = "PLAYER", value_parser = named::<PlayerKind>(), num_args = 0..=1)]
    #[allow(clippy::option_option)] // clap's form of a flag whose value may be left out
    pub(super) autoplay: Option<Option<PlayerKind>>,

    /// The computer player of a game played by hand: its moves in the full-screen mode's
    /// autoplay, and its advice (default: learned on 4x4 boards, expectimax on others).
    #[arg(long, value_name = "PLAYER", value_parser = named::<PlayerKind>())]
    pub(super) player: Option<PlayerKind>,

    /// The learned player's weights (default: the data directory's, where `power11 train`
    /// writes them, else the network shipped in power11).
    #[arg(long, value_name = "FILE")]
    pub(super) weights: Option<PathBuf>,

    /// Play full-screen: arrow keys, coloured tiles, one board redrawn in place.
    #[arg(long, conflicts_with = "autoplay")]
    pub(super) tui: bool,

    /// The line interface: Power-11's, or that of a 2048 in MIPS assembly, which plays 3x3 to 512
    /// (its menu, `+---+` board, one upper-case key a line; 3 and 4 switch new tiles off and on).
    /// `mips` takes `--seed`, and of the game flags only those that name its rules (`--variant
    /// mini`, `--size 3`, `--goal 512`, `--spawn twos`, `--score merges`).
    #[arg(long, value_name = "NAME", value_parser = named::<Interface>(), default_value = "power11")]
    pub(super) interface: Interface,

    /// Whether `--variant` was given (not its default): `--interface mips` refuses any but
    /// `mini`.
    #[arg(skip)]
    pub(super) variant_given: bool,

    /// Full screen without motion: a move is drawn at once, with no sliding tiles (the `m` key
    /// switches motion off and on while playing).
    #[arg(long, requires = "tui")]
    pub(super) no_animation: bool,

    /// Colours in the full-screen mode (`auto` follows `NO_COLOR` and the terminal).
    #[arg(long, value_name = "WHEN", default_value = "auto", value_parser = ["auto", "always", "never"], requires = "tui")]
    pub(super) color: String,

    /// With --autoplay or --tui: wait this many milliseconds after each computer move (at most
    /// an hour; --tui's autoplay: 120 unless given, 0 as fast as the screen draws).
    #[arg(
        long,
        value_name = "MS",
        allow_negative_numbers = true,
        requires = "paced",
        value_parser = whole::<u64>("a delay in milliseconds", 0, MAX_DELAY_MS)
    )]
    pub(super) delay: Option<u64>,

    /// With --autoplay: stop after this many attempted moves.
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        requires = "autoplay",
        value_parser = parse_count
    )]
    pub(super) max_moves: Option<u64>,

    /// With --autoplay or --player expectimax or learned: search this many moves deep instead
    /// of adapting the depth (learned: 1 to 4).
    #[arg(long, value_name = "N", allow_negative_numbers = true, requires = "computer", value_parser = whole::<u32>("a depth", 1, MAX_FIXED_DEPTH as u64))]
    pub(super) depth: Option<u32>,

    /// With --autoplay or --player expectimax: search deeper while this many milliseconds per
    /// move last (moves then depend on the machine's speed).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, requires = "computer", conflicts_with = "depth", value_parser = whole::<u64>("a time per move in milliseconds", 1, MAX_BUDGET_MS))]
    pub(super) ms_per_move: Option<u64>,
}

const AFTER_HELP: &str = "\
Commands in a game: u d l r (move), s (save to power11.saved), b (back/undo), a (advice),
q (quit to the menu; unsaved moves are lost). Every non-blank character of a line is one key.

Files:
  power11.saved     the saved game, in the current directory: Score lines and framed boards,
                    oldest state first (files of other Power-11 programs are read too)
  --board FILE      n lines of n numbers (0 = empty), n*n numbers one per line, a framed
                    board, one drawn with +---+ rules (as MIPS), or a whole save; n is 3 to 8
  best scores, solved 3x3 tables and learned weights live in $POWER11_DATA_DIR (set and not
  empty: an empty value counts as unset, as with NO_COLOR), else the platform's data
  directory (~/.local/share/power11 on Linux). Best scores are kept per rule set and size for
  games a person played every move of from a new game or a resume: not --autoplay, bench or
  --tui's p games, not games with new tiles switched off, not games started from --board

Examples:
  power11                                play Power-11 (menu: e = Easy 5x5, h = Hard 4x4)
  power11 --tui                          the same, full-screen with the arrow keys
  power11 --interface mips               the MIPS 3x3 program's menu, board and W/A/S/D keys
  power11 --variant classic              classic 2048 with best score and keep-playing
  power11 --board B1.txt --variant edge  start from a board file
  power11 --autoplay expectimax --seed 1 watch the search player win
  power11 solve --variant mini           solve 3x3 to 512 exactly (then --player optimal)
  power11 bench --player random --games 100000 --jobs 1
  power11 train --minutes 5 --out w.p11w learn a network by self-play (then --weights w.p11w)
  power11 bench --player learned --variant classic --games 1000";

#[derive(Subcommand, Debug)]
pub(super) enum Command {
    /// Play many games headless with a computer player and print statistics.
    Bench(BenchArgs),
    /// Solve a 3x3 rule set exactly: every position's odds of winning with perfect play.
    Solve(SolveArgs),
    /// Learn a 4x4 evaluation by self-play (TD learning of an n-tuple network) for
    /// `--player learned`. Ctrl-C stops early and keeps what was learned.
    Train(TrainArgs),
    /// Check a Power-11 program's run against the assignment's rules, from the keys it was
    /// fed and what it printed (or run it: --run), board by board.
    Referee(RefereeArgs),
    /// Grade a class: each submission in a folder built, run and played, graded by a rubric
    /// into the gradebook (grades.csv, Gradescope, JUnit); run again, it goes on where it
    /// stopped.
    Grade(GradeArgs),
    /// Write a smaller copy of a weight file: the smallest weights set to zero, the others
    /// rounded, compressed harder. The shipped network is made so.
    Compact(CompactArgs),
    /// Print a shell completion script: `power11 completions bash > power11.bash`.
    Completions(CompletionsArgs),
    /// Print a manual page (roff): `power11 man | man -l -`.
    Man(ManArgs),
}

#[derive(Args, Debug)]
pub(super) struct CompactArgs {
    /// The weight file to read.
    #[arg(long, value_name = "FILE")]
    pub(super) weights: PathBuf,

    /// The smaller weight file to write (a new file: an existing one is left alone).
    #[arg(long, value_name = "FILE")]
    pub(super) out: PathBuf,

    /// The share of nonzero weights kept at most, the largest in size (above 0, at most 1):
    /// weights the size of the cut go together, so on a grained or rounded network, whose
    /// sizes repeat, a little less is kept.
    #[arg(long, allow_negative_numbers = true, value_name = "SHARE", default_value_t = 1.0, value_parser = parse_share)]
    pub(super) keep: f64,

    /// Significant bits each weight keeps after its leading one (0 to 10; f16 has 10).
    #[arg(long, allow_negative_numbers = true, value_name = "BITS", default_value_t = 10, value_parser = whole::<u32>("a number of bits", 0, 10))]
    pub(super) mantissa_bits: u32,

    /// Keep the weights of the first N stages that have their own; later stages play with
    /// the last one kept (the stage of 32768 matters only after a 32768).
    #[arg(long, allow_negative_numbers = true, value_name = "N", default_value_t = 4, value_parser = whole::<u64>("a number of stages", 1, 4))]
    pub(super) stages: u64,

    /// Round each weight (a later stage's: its difference from the stage below) to a multiple
    /// of STEP, a power of two from 2^-10 to 1024 (0: none): a board's value is a sum of
    /// weights, so small ones need no finer grain than large ones.
    #[arg(long, allow_negative_numbers = true, value_name = "STEP", default_value_t = 0.0, value_parser = parse_step)]
    pub(super) step: f64,

    /// The zstd level (1 to 22; higher is smaller and slower).
    #[arg(long, allow_negative_numbers = true, value_name = "L", default_value_t = 19, value_parser = whole::<i32>("a zstd level", 1, 22))]
    pub(super) level: i32,
}

#[derive(Args, Debug)]
pub(super) struct CompletionsArgs {
    /// The shell, in any case.
    #[arg(value_name = "SHELL", value_parser = Offered(&["bash", "elvish", "fish", "powershell", "zsh"]))]
    pub(super) shell: String,
}

#[derive(Args, Debug)]
pub(super) struct ManArgs {
    /// The command whose page to print (`bench merge` also as one word, quoted); without one,
    /// power11's own page.
    #[arg(value_name = "COMMAND", value_parser = Offered(&["bench", "bench-merge", "solve", "train", "referee", "compact", "completions", "man"]))]
    pub(super) command: Vec<String>,
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("budget").args(["minutes", "games"]).required(true)))]
#[allow(clippy::struct_excessive_bools)] // on/off flags, each its own choice
pub(super) struct TrainArgs {
    /// Train for this many minutes (fractions allowed).
    #[arg(long, value_name = "M", allow_negative_numbers = true, value_parser = parse_minutes)]
    pub(super) minutes: Option<f64>,

    /// Train for this many games (with --threads 1 and --seed, the result is reproducible).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_count)]
    pub(super) games: Option<u64>,

    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = whole::<u64>("a number of threads", 1, 256))]
    pub(super) threads: Option<u64>,

    /// Seed the games (default: random, and printed).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    pub(super) seed: Option<u64>,

    /// Write the weights here (default: the data directory's weight file, where
    /// --player learned looks); its directory must be there.
    #[arg(long, value_name = "FILE")]
    pub(super) out: Option<PathBuf>,

    /// Go on training the network in the output file (its tuples and stages; --stages may add
    /// splits), or, if there is none yet, the network shipped in power11.
    #[arg(long)]
    pub(super) resume: bool,

    /// Start a new network even though the output file holds one (replaced at the first
    /// checkpoint).
    #[arg(long, conflicts_with = "resume")]
    pub(super) restart: bool,

    /// The tuple set of a new network.
    #[arg(long, value_name = "SET", value_parser = named::<TupleSet>())]
    pub(super) tuples: Option<TupleSet>,

    /// Where a new network's stages split: tiles from 4 to 32768 that start a stage with weights
    /// of its own, or `none` for one stage [default: 16384,32768]. With --resume, splits to
    /// add to the network's (all of its own among them): each new stage starts as a copy of
    /// the one it was part of.
    #[arg(long, value_name = "TILES", value_parser = parse_stages)]
    pub(super) stages: Option<Stages>,

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
    pub(super) optimistic: f32,

    /// The learning rate (at most 0.25: each update moves a 4x6 network's value by 4 x rate x
    /// its error, so higher rates overshoot). It stays as it is, each weight's temporal
    /// coherence lowering its own; with --no-coherence it falls to a tenth of it over the first
    /// four fifths of the budget and stays there for the last fifth [default: 0.25; with
    /// --resume, the rate the coherence sums were gathered at, or 0.01 when it starts them anew
    /// (the shipped network, or sums lost), as whole steps at 0.25 undo a trained network; 0.1
    /// with --no-coherence]
    #[arg(long, value_name = "A", allow_negative_numbers = true, value_parser = parse_rate)]
    pub(super) rate: Option<f32>,

    /// TD(λ): each afterstate's target leans on the rewards that followed it, fading by λ a
    /// move, more than on the network's estimate (0 is TD(0), 1 the game's remaining score).
    #[arg(long, value_name = "L", allow_negative_numbers = true, default_value_t = 0.5, value_parser = parse_lambda)]
    pub(super) lambda: f32,

    /// Plain steps instead of temporal coherence learning (where each weight's step is scaled
    /// by how consistently its errors point one way, so that every weight anneals at its own
    /// pace; Jaśkowski 2018). The coherence sums take twice the weights' memory while training
    /// and are kept beside the weights, in FILE.coherence, for --resume.
    #[arg(long)]
    pub(super) no_coherence: bool,

    /// Learn from each game once. By default a game of more than 10 moves is played and
    /// learned again from the board halfway through it, and again from the middle of that
    /// game, until one is that short (Matsuzaki's restart strategy), so that the late game is
    /// learned from about as often as the early game.
    #[arg(long)]
    pub(super) no_rewind: bool,

    /// Minutes between checkpoints (the weights are also written at the end).
    #[arg(long, value_name = "M", allow_negative_numbers = true, default_value_t = 5.0, value_parser = parse_minutes)]
    pub(super) checkpoint_minutes: f64,

    /// Draw the learning curve (the rolling mean score and reach rates against moves learned
    /// from, checkpoints marked) as an SVG picture in FILE at the end of the run.
    #[arg(long, value_name = "FILE")]
    pub(super) plot: Option<PathBuf>,

    /// Late-stage training (with --resume; TILE must be one of the network's stage splits):
    /// first collect 1000 boards on which the network's own greedy games first make TILE (not
    /// counted in --minutes), then start every game from one of them, so that the stages from
    /// TILE on learn from every game and the stages below are left as they are.
    #[arg(long, value_name = "TILE", allow_negative_numbers = true, value_parser = parse_tile, requires = "resume")]
    pub(super) start_at: Option<u8>,

    /// Early-stage training (with --resume; TILE must be one of the network's stage splits,
    /// its stage trained, above any --start-at): every game, and every replay of its middle,
    /// ends after the move that first makes TILE, valued from there by the network, so that
    /// the stages below TILE learn the whole game's worth and the stages from TILE on are left
    /// as they are.
    #[arg(long, value_name = "TILE", allow_negative_numbers = true, value_parser = parse_tile, requires = "resume")]
    pub(super) end_at: Option<u8>,
}

#[derive(Subcommand, Debug)]
pub(super) enum BenchCommand {
    /// Add up the --json reports of parts of one run (--first-game) into the report of the
    /// whole, as if one invocation had played every game.
    Merge(MergeArgs),
}

#[derive(Args, Debug)]
pub(super) struct MergeArgs {
    /// The reports (`bench --json` output), in any order; `-` reads one from standard input.
    #[arg(value_name = "REPORT", required = true)]
    pub(super) reports: Vec<PathBuf>,

    /// Also draw the merged report as an SVG picture in FILE (as `bench --plot`).
    #[arg(long, value_name = "FILE")]
    pub(super) plot: Option<PathBuf>,

    /// Print the merged report as one JSON object (which merges again).
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Args, Debug)]
pub(super) struct SolveArgs {
    /// Write the table here (default: the data directory, where players and advice find it);
    /// its directory must be there.
    #[arg(long, value_name = "FILE")]
    pub(super) out: Option<PathBuf>,

    #[command(flatten)]
    pub(super) rules: RulesArgs,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(super) struct BenchArgs {
    #[command(subcommand)]
    pub(super) command: Option<BenchCommand>,

    /// Who plays.
    #[arg(long, value_name = "PLAYER", value_parser = named::<PlayerKind>(), required = true)]
    pub(super) player: Option<PlayerKind>,

    /// How many games.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value_t = 100, value_parser = parse_count)]
    pub(super) games: u64,

    /// Play games K..K+N of the run --seed defines (a long run split into parts; add up
    /// their --json reports with `bench merge`).
    #[arg(
        long,
        value_name = "K",
        allow_negative_numbers = true,
        default_value_t = 0,
        requires = "seed",
        value_parser = parse_index
    )]
    pub(super) first_game: u64,

    /// Worker threads (default: all cores).
    #[arg(long, value_name = "J", allow_negative_numbers = true, value_parser = whole::<u64>("a number of jobs", 1, 1024))]
    pub(super) jobs: Option<u64>,

    /// Print the summary as one JSON object.
    #[arg(long)]
    pub(super) json: bool,

    /// Also draw the reach rates (with their 95% intervals) and the histogram of scores, as an
    /// SVG picture in FILE (a new file, an empty one, or a picture power11 drew, which it
    /// replaces; anyone else's picture is left alone).
    #[arg(long, value_name = "FILE")]
    pub(super) plot: Option<PathBuf>,

    /// The base seed (game i gets its own seed derived from it; default: random, and printed).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_seed)]
    pub(super) seed: Option<u64>,

    /// Stop a game after this many attempted moves.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_count)]
    pub(super) max_moves: Option<u64>,

    /// Expectimax or learned: search this many moves deep instead of adapting the depth
    /// (learned: 1 to 4).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = whole::<u32>("a depth", 1, MAX_FIXED_DEPTH as u64))]
    pub(super) depth: Option<u32>,

    /// The learned player's weights (default: the data directory's, where `power11 train`
    /// writes them, else the network shipped in power11).
    #[arg(long, value_name = "FILE")]
    pub(super) weights: Option<PathBuf>,

    /// Expectimax: search deeper while this many milliseconds per move last (games then
    /// depend on the machine's speed and load, so they do not replay from the seed).
    #[arg(long, value_name = "MS", allow_negative_numbers = true, conflicts_with = "depth", value_parser = whole::<u64>("a time per move in milliseconds", 1, MAX_BUDGET_MS))]
    pub(super) ms_per_move: Option<u64>,

    #[command(flatten)]
    pub(super) rules: RulesArgs,
}

/// The variant and the knobs that override it.
#[derive(Args, Debug)]
pub(super) struct RulesArgs {
    /// The rule set.
    #[arg(long, value_name = "NAME", value_parser = named::<Variant>(), default_value = "power11")]
    pub(super) variant: Variant,

    /// Board size (3 to 8), for every variant.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub(super) size: Option<Size>,

    /// The goal tile (a power of two from 8 to 1048576), or `none`.
    #[arg(long, value_name = "V", allow_negative_numbers = true, value_parser = parse_goal)]
    pub(super) goal: Option<Goal>,

    /// Where new tiles appear.
    #[arg(long, value_name = "RULE", value_parser = named::<Spawn>())]
    pub(super) spawn: Option<Spawn>,

    /// How the score counts.
    #[arg(long, value_name = "RULE", value_parser = named::<Scoring>())]
    pub(super) score: Option<Scoring>,

    /// Start with each cell a 2 with probability P (0 < P <= 1).
    #[arg(long, value_name = "P", allow_negative_numbers = true, value_parser = parse_fill)]
    pub(super) fill: Option<f64>,
}

impl RulesArgs {
    pub(super) fn rules(&self) -> anyhow::Result<Rules> {
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

/// The line interfaces (`--interface`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Interface {
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
