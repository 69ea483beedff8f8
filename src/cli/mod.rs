//! The command line: argument parsing (clap), knob validation, dispatch and exit codes.
//!
//! Exit codes: 0 on success (also when stdout is closed early), 2 for bad arguments or a bad
//! `--board` file, 1 for any other failure.

mod args;
mod bench;
mod compact;
mod grade;
mod grading_args;
mod guard;
mod manual;
mod play;
mod player;
mod referee;
mod solve;
mod tables;
mod train;
mod values;

use crate::files::outputs::OutputError;
use args::{Cli, Command, Interface};
use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches};
use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// A problem with what the user asked for (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

/// A command's verdict on what it checked (the referee's: a rule broken is 1, a run that only
/// crashed, hung or flooded is 3): the exit code, and the reason in words.
#[derive(Debug, thiserror::Error)]
#[error("{words}")]
struct Verdict {
    code: u8,
    words: String,
}

/// A run ended by a signal, after putting everything back (the full-screen mode's terminal):
/// the program exits as the signal would have made it, 128 + its number, and says nothing.
#[derive(Debug, thiserror::Error)]
#[error("stopped by signal {0}")]
struct Stopped(i32);

/// Parses the arguments, runs, and turns the outcome into an exit code.
pub fn main() -> ExitCode {
    let parsed = Cli::command().try_get_matches().and_then(|matches| {
        let mut cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut Cli::command()))?;
        cli.variant_given = matches.value_source("variant") == Some(ValueSource::CommandLine);
        Ok(cli)
    });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let e = with_tip(e);
            if e.use_stderr() && referee_json_asked() {
                // `referee --json` gives JSON for every outcome, a refused argument too.
                let text = e.render().to_string();
                let first = text.lines().next().unwrap_or_default();
                let words = first.strip_prefix("error: ").unwrap_or(first);
                let mut out = io::stdout().lock();
                let _ = writeln!(out, "{}", serde_json::json!({ "error": words }));
                let _ = out.flush();
            }
            return clap_exit(&e);
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) if let Some(&Stopped(signal)) = e.downcast_ref::<Stopped>() => {
            ExitCode::from(u8::try_from(128 + signal).unwrap_or(1))
        }
        Err(e) if let Some(&Verdict { code, .. }) = e.downcast_ref::<Verdict>() => {
            note(format_args!("{e:#}"));
            ExitCode::from(code)
        }
        Err(e) => {
            let refused = matches!(e.downcast_ref(), Some(OutputError::Refused(_)));
            let code = if refused || e.downcast_ref::<UsageError>().is_some() {
                2
            } else {
                1
            };
            note(format_args!("{e:#}"));
            ExitCode::from(code)
        }
    }
}

/// Writes `message` on standard error as one line after `power11: `, its control characters
/// in caret notation (`^[`, `^J`): a message names files and quotes what the user gave, and a
/// file name may hold an escape sequence or a line break that must not reach the terminal as
/// one.
pub(crate) fn note(message: impl std::fmt::Display) {
    note_as("power11", message);
}

/// [`note`] after `who: ` (`power11 train`).
pub(crate) fn note_as(who: &str, message: impl std::fmt::Display) {
    let shown = crate::text::visible_text(&message.to_string());
    let _ = writeln!(io::stderr(), "{who}: {shown}");
}

/// How long a run stopped by a signal may take to finish what it was doing (the games in
/// flight, the last checkpoint) before it ends at once: a write that does not end (a stalled
/// disk, a full pipe) must not keep a run that was told to stop.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// The signal that stopped a long run ([`stop_on_signals`]), 0 before one came.
static STOP_SIGNAL: std::sync::LazyLock<Arc<std::sync::atomic::AtomicUsize>> =
    std::sync::LazyLock::new(Arc::default);

/// The signal that stopped a long run (SIGINT where none is known): a run stopped with nothing
/// to keep exits as that signal would have made it.
pub(super) fn stop_signal() -> i32 {
    match STOP_SIGNAL.load(std::sync::atomic::Ordering::Relaxed) {
        0 => signal_hook::consts::SIGINT,
        signal => i32::try_from(signal).unwrap_or(signal_hook::consts::SIGINT),
    }
}

/// The flag that a signal (SIGINT, SIGTERM, SIGHUP) sets to stop a long run (train, bench) as
/// it can, keeping what it did; a second signal ends the program at once (exit 128 + its
/// number: 130 for Ctrl-C), and so
/// does the first if the run has not ended [`STOP_GRACE`] after it (exit 128 + its number,
/// after a note by `who` that says what is `kept`).
pub(super) fn stop_on_signals(who: &'static str, kept: String) -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM, SIGHUP] {
        // A second signal: the exit a shell expects of that signal (130, 143, 129).
        signal_hook::flag::register_conditional_shutdown(signal, 128 + signal, Arc::clone(&stop))?;
        signal_hook::flag::register_usize(signal, Arc::clone(&STOP_SIGNAL), signal as usize)?;
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("stop-watch".to_string())
        .spawn(move || {
            let Some(signal) = signals.forever().next() else {
                return;
            };
            std::thread::sleep(STOP_GRACE);
            note_as(
                who,
                format_args!(
                    "still not stopped {} s after the signal: ending now ({kept})",
                    STOP_GRACE.as_secs()
                ),
            );
            std::process::exit(128 + signal);
        })?;
    Ok(stop)
}

/// A seed from the operating system's randomness, for games and runs started without
/// `--seed`. Where the system refuses (early boot, a sandbox), the standard library's own
/// per-process hash keys and the clock, mixed, still differ from run to run.
pub(super) fn os_seed() -> u64 {
    use rand::TryRng;
    use std::hash::{BuildHasher, Hasher};
    rand::rngs::SysRng.try_next_u64().unwrap_or_else(|_| {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        hasher.finish()
    })
}

/// clap's error, with a tip where two arguments that cannot go together most likely mean one
/// thing the user can be shown: options written before the command they belong to,
/// `--autoplay --player P` for `--autoplay P`, and `--tui --autoplay` for the full-screen
/// mode's own autoplay.
fn with_tip(mut error: clap::Error) -> clap::Error {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if error.kind() != ErrorKind::ArgumentConflict {
        return error;
    }
    let strings = |kind| match error.get(kind) {
        Some(ContextValue::String(s)) => vec![s.clone()],
        Some(ContextValue::Strings(v)) => v.clone(),
        _ => Vec::new(),
    };
    let subcommand = strings(ContextKind::InvalidSubcommand);
    let mut named = strings(ContextKind::InvalidArg);
    named.extend(strings(ContextKind::PriorArg));
    let given = |flag: &str| named.iter().any(|a| a.split(' ').next() == Some(flag));
    let tip = if let Some(command) = subcommand.first() {
        format!(
            "a command's options come after it: 'power11 {command} {}'",
            named.join(" ")
        )
    } else if given("--autoplay") && given("--player") {
        "--autoplay names its player itself: '--autoplay learned'".to_string()
    } else if given("--autoplay") && given("--tui") {
        "in the full-screen mode the computer plays on the 'p' key (its player: --player)"
            .to_string()
    } else {
        return error;
    };
    error.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![tip.into()]),
    );
    error
}

/// Prints what clap has to say (help, version, or a usage error) and the exit code that goes
/// with it. Unlike clap's own `exit`, a help text that cannot be written (`--help > /dev/full`)
/// is an error, as every other output of the program is.
/// Whether the command line asks `referee` for JSON (read from the words as typed, for an
/// error clap found before any were parsed).
fn referee_json_asked() -> bool {
    let words: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    words.iter().any(|w| w == "referee") && words.iter().any(|w| w == "--json")
}

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
                note(format_args!(
                    "cannot write to standard output: {}",
                    crate::files::system_words(&e)
                ));
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
        let message = format!(
            "cannot write to standard output: {}",
            crate::files::system_words(error)
        );
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
        Some(Command::Bench(args)) => bench::run_bench(args),
        Some(Command::Solve(args)) => solve::run_solve(args),
        Some(Command::Train(args)) => train::run_train(args),
        Some(Command::Compact(args)) => compact::run_compact(args),
        Some(Command::Referee(args)) => referee::run_referee(args),
        Some(Command::Grade(args)) => grade::run_grade(args),
        Some(Command::Completions(args)) => manual::print_completions(&args.shell),
        Some(Command::Man(args)) => manual::print_man_page(&args.command),
        None if cli.interface == Interface::Mips => play::run_mips(cli),
        None => play::run_play(cli),
    }
}
