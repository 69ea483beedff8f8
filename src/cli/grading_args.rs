//! The arguments of the commands that grade other people's programs: `referee` (one program,
//! or a class of `--run`s) and `grade` (a class folder into the gradebook).

use super::values::{Memory, parse_count, parse_memory, parse_seconds, parse_seed, whole};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
#[command(after_help = "\
Exit codes: 0 when every rule holds, 1 when a rule is broken, 3 when no rule is broken but a run
failed (exit code not 0), crashed, hung or printed without end, 2 when the files cannot be read
or the arguments are wrong.
With --json every outcome is JSON on standard output, an error as {\"error\": ...}.

Examples:
  printf 'h\\nl\\nu\\ns\\nq\\nq\\n' > keys.txt
  ./theirs < keys.txt > out.txt
  power11 referee --keys keys.txt out.txt --save power11.saved
  power11 referee --run './theirs' --keys keys.txt
  power11 referee --run './theirs' --scripts 200 --seed 1
  power11 referee --run './a' --run 'python3 b.py' --scripts 100 --seed 1 --junit grades.xml
  power11 referee --interface mips --run './mips' --scripts 100 --seed 1
  power11 referee --run 'python3 student.py' --play win --size 5")]
pub(super) struct RefereeArgs {
    /// What the program printed on standard output, the keys piped into it being --keys.
    #[arg(
        value_name = "TRANSCRIPT",
        required_unless_present = "run",
        conflicts_with = "run"
    )]
    pub(super) transcript: Option<PathBuf>,
    /// The file of keys that was piped into the program (every character that is not a blank
    /// is a key; for the MIPS program, every line).
    #[arg(
        long,
        value_name = "KEYS",
        required_unless_present_any = ["scripts", "play"],
        conflicts_with = "scripts"
    )]
    pub(super) keys: Option<PathBuf>,
    /// The power11.saved the program wrote, checked against the game: its last state the
    /// board shown at the last s, its states the game's oldest first or that state alone.
    #[arg(long, value_name = "FILE", conflicts_with = "run")]
    pub(super) save: Option<PathBuf>,
    /// The save there was before the run: an r before the first s must resume it (with --run,
    /// it is put in the program's folder as power11.saved). Without it, a transcript's first
    /// resume takes its board as the saved state, and a run's resumes nothing.
    #[arg(long, value_name = "FILE")]
    pub(super) save_before: Option<PathBuf>,
    /// Run the program (a command line, split as a shell splits it) in a fresh temporary
    /// directory, the keys on its standard input, and referee what it printed and saved. Give
    /// it again for each program of a class: every one plays the same keys or scripts.
    #[arg(long, value_name = "'PROGRAM ARGS'")]
    pub(super) run: Vec<String>,
    /// Whose rules and interface: power11 (the Power-11 assignment) or mips (the MIPS 3x3
    /// program: its +---+ board, a line a key, W A S D, 3 and 4 for new tiles off and on).
    #[arg(long, value_name = "NAME", default_value = "power11", value_parser = ["power11", "mips"])]
    pub(super) interface: String,
    /// With --run: the seconds a run may spend answering its keys, summed over the run, before
    /// it is stopped (and said to hang) [default: 10, and 120 with --play, plus 0.05 a line
    /// sent, and at most 10 on one answer].
    #[arg(
        long,
        value_name = "SECONDS",
        requires = "run",
        allow_negative_numbers = true,
        value_parser = parse_seconds
    )]
    pub(super) timeout: Option<f64>,
    /// With --run: play the program live, each key chosen from the board it just printed:
    /// win (power11's strongest player, to the win and the key after it), lose (as fast as
    /// the rules allow), or explore (undo chains, saves, quit and resume in a fresh run, undo
    /// back to the start).
    #[arg(long, value_name = "GOAL", requires = "run", conflicts_with_all = ["keys", "scripts"], value_parser = ["win", "lose", "explore"])]
    pub(super) play: Option<String>,
    /// With --play: the size of board to play, 4 (Hard, h) or 5 (Easy, e) [default: 4].
    #[arg(long, value_name = "N", requires = "play", value_parser = clap::value_parser!(u8).range(4..=5))]
    pub(super) size: Option<u8>,
    /// With --run: the memory the program may use, as 512M, 1G, ... or none: the run as a
    /// whole, shared memory and its /tmp counted, where a memory control group can be had
    /// (else each process's own allocations, `RLIMIT_DATA`, with its shared memory watched).
    #[arg(long, value_name = "SIZE", default_value = "1G", requires = "run", value_parser = parse_memory)]
    pub(super) memory: Memory,
    /// With --run: run each program without its sandbox (its own process ids, mounts, IPC,
    /// no network, the grader's files out of sight), held by its limits alone: for a program
    /// that needs what the sandbox keeps from it.
    #[arg(long, requires = "run")]
    pub(super) no_sandbox: bool,
    /// With --run: play N generated key scripts (both sizes, moves, undos, saves, quit and
    /// resume) instead of --keys, and keep each failing one.
    #[arg(
        long,
        value_name = "N",
        requires = "run",
        allow_negative_numbers = true,
        value_parser = parse_count
    )]
    pub(super) scripts: Option<u64>,
    /// The seed of the generated scripts or of --play's choices (any 64-bit number; random if
    /// not given).
    #[arg(long, value_name = "N", requires = "run", value_parser = parse_seed)]
    pub(super) seed: Option<u64>,
    /// Where failing generated scripts are kept, with what the program printed and saved (a
    /// folder a program, program-1, program-2, ..., when there are several)
    /// [default: referee-failures, made for the run, not used if it is a link or another
    /// user's]
    #[arg(long, value_name = "DIR", requires = "run")]
    pub(super) keep: Option<PathBuf>,
    /// With --run: how many runs go at once [default: the machine's cores].
    #[arg(long, value_name = "J", requires = "run", allow_negative_numbers = true, value_parser = whole::<u64>("a number of jobs", 1, 256))]
    pub(super) jobs: Option<u64>,
    /// With --run: write Gradescope's results.json for the one program run (a test a rule,
    /// a point each, and one for the runs; format rules count only with --strict).
    #[arg(long, value_name = "FILE", requires = "run")]
    pub(super) gradescope: Option<PathBuf>,
    /// With --run: write JUnit XML (a test suite a program, a test case a rule, a failure a
    /// broken rule), as CI systems read it.
    #[arg(long, value_name = "FILE", requires = "run")]
    pub(super) junit: Option<PathBuf>,
    /// Write a feedback page: one HTML file a student opens in any browser, each finding as
    /// the board printed beside the board the rules allow, and the run key by key (the first
    /// five failing runs of generated scripts or a play).
    #[arg(long, value_name = "FILE")]
    pub(super) html: Option<PathBuf>,
    /// Format deviations (cells of 0, frame width, alignment, score line, end messages) are
    /// violations, not warnings.
    #[arg(long)]
    pub(super) strict: bool,
    /// The report as JSON, for scripts (errors too).
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Args, Debug)]
#[command(after_help = "\
Each folder, .zip, .tar.gz or .tgz directly in CLASS is one student's submission, named by its
file name. Each is copied or unpacked into OUT/work/NAME, built there (a Makefile, Cargo.toml,
CMakeLists.txt, one .py or one .java program, or the rubric's [build] command), run on the
rubric's scripts and plays, and graded by the rubric. OUT gets grades.csv (a row a student),
results/NAME.json (Gradescope's results.json), class.xml (JUnit), class.json, logs/ (each
build's log), failures/ (failing scripts' and plays' keys and transcripts) and state/ (each grade and
what it was graded from: run again, and only what changed or was not finished is graded).

Exit codes: 0 when the class was graded, 2 for bad arguments or a rubric that cannot be read,
128 + the signal when it was stopped (what was graded is kept; run the command again to go on).

Examples:
  power11 grade submissions/ --out grades/
  power11 grade --print-rubric > rubric.toml
  power11 grade submissions/ --out grades/ --rubric rubric.toml --jobs 4")]
#[allow(clippy::struct_excessive_bools)] // on/off flags, each its own choice
pub(super) struct GradeArgs {
    /// The class folder: a folder, .zip, .tar.gz or .tgz a student.
    #[arg(value_name = "CLASS", required_unless_present = "print_rubric")]
    pub(super) class: Option<PathBuf>,
    /// The folder the gradebook and everything kept goes in (made if missing).
    #[arg(long, value_name = "DIR", required_unless_present = "print_rubric")]
    pub(super) out: Option<PathBuf>,
    /// The rubric: what the class is graded on and the points of each, in TOML
    /// [default: the built-in one, which --print-rubric prints].
    #[arg(long, value_name = "FILE")]
    pub(super) rubric: Option<PathBuf>,
    /// Print the built-in rubric (to start a rubric of your own from) and exit.
    #[arg(long, conflicts_with_all = ["class", "out", "rubric"])]
    pub(super) print_rubric: bool,
    /// Grade every submission again, even those whose grade is kept and unchanged.
    #[arg(long)]
    pub(super) fresh: bool,
    /// How many runs go at once [default: the machine's cores].
    #[arg(long, value_name = "J", allow_negative_numbers = true, value_parser = whole::<u64>("a number of jobs", 1, 256))]
    pub(super) jobs: Option<u64>,
    /// The number of generated scripts each program plays [default: the rubric's].
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_count)]
    pub(super) scripts: Option<u64>,
    /// The scripts' and plays' seed [default: the rubric's].
    #[arg(long, value_name = "N", value_parser = parse_seed)]
    pub(super) seed: Option<u64>,
    /// The memory each run may use, as 512M, 1G, ... or none.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_memory)]
    pub(super) memory: Memory,
    /// Run builds and programs without their sandbox, held by their limits alone.
    #[arg(long)]
    pub(super) no_sandbox: bool,
    /// Feed every script a key at a time, never all at once (slower; the same grades).
    #[arg(long)]
    pub(super) key_by_key: bool,
}
