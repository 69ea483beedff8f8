//! A run in words and as JSON: how it ended, the key it answered, the command run, what held
//! it, and its problem (a crash, a hang) apart from the rules.

use super::shown_text;
use crate::live::Ran;
use crate::referee::{Report, to_text};
use crate::runner::{Ending, signal_name};
use std::fmt::Write as _;

/// The report in words, after the run's line (how it ended: a crash or a hang explains the
/// boards missing), if a run made it.
pub(crate) fn in_words(report: &Report, run: Option<&Ran>) -> String {
    let run_line = run.map(|run| format!("{}\n", run_words(run)));
    run_line.unwrap_or_default() + &to_text(report)
}

/// A run in words: how it ended and how long it took, and the board before the key it was
/// answering when that ending was not its own.
fn run_words(run: &Ran) -> String {
    let outcome = &run.outcome;
    let mut words = match run.problem() {
        Some(problem) => format!("run: {}", problem.words),
        None => format!(
            "run: the program {} after {:.2} s",
            outcome.ending, outcome.seconds
        ),
    };
    if run.save.is_some() {
        words.push_str("; it left power11.saved");
    }
    if outcome.leftovers > 0 {
        let _ = write!(
            words,
            "; {} process(es) it started were still running at its end, and were ended",
            outcome.leftovers
        );
    }
    if !outcome.command.is_empty() {
        let command = shlex::try_join(outcome.command.iter().map(String::as_str))
            .unwrap_or_else(|_| outcome.command.join(" "));
        let _ = write!(words, "\ncommand: {}", shown_text(&command));
    }
    if let Some(why) = &outcome.held.no_sandbox {
        let _ = write!(
            words,
            "\nwarning: it ran without a sandbox ({why}): it could read and write whatever its user may, and see the referee's processes"
        );
    }
    if let (Some(board), Some(_)) = (&run.board_before, run.problem()) {
        words.push_str("\nthe board before that key:\n");
        words.push_str(crate::text::render_board(board).trim_end());
    }
    words
}

/// A run as JSON: how it ended, the key it answered then, the board before it, and the end of
/// its standard error.
pub(crate) fn run_json(run: &Ran) -> serde_json::Value {
    let outcome = &run.outcome;
    let (ended, code) = match &outcome.ending {
        Ending::Exited(code) => ("exited", Some(*code)),
        Ending::Signal(signal) => ("signal", Some(*signal)),
        Ending::TimeLimit(_) => ("timed-out", None),
        Ending::OutputCap(_) => ("output-capped", None),
        Ending::MemoryLimit(_) => ("memory-limit", None),
        Ending::NoExit(_) => ("no-exit", None),
        Ending::KeptReading => ("kept-reading", None),
        Ending::Stopped => ("stopped", None),
        Ending::Failed(_) => ("failed", None),
    };
    let signal = match outcome.ending {
        Ending::Signal(n) => signal_name(n),
        _ => None,
    };
    serde_json::json!({
        "ended": ended,
        "code": code,
        "signal": signal,
        "seconds": outcome.seconds,
        "answering_seconds": outcome.answering_seconds,
        "time_limit": outcome.time_limit,
        "saved": run.save.is_some(),
        "key": run.answering,
        "board_before": run.board_before.as_ref().map(crate::text::render_board),
        "stderr": {
            "bytes": outcome.stderr.total,
            "end": String::from_utf8_lossy(outcome.stderr.end(2048)),
        },
        "leftovers": outcome.leftovers,
        "held": held_json(&outcome.held),
        "command": outcome.command,
    })
}

/// What held a run, as JSON: its sandbox (or why none), how its memory was counted, the
/// most it used, and the user it ran as.
fn held_json(held: &crate::runner::Held) -> serde_json::Value {
    serde_json::json!({
        "sandbox": held.no_sandbox.is_none(),
        "no_sandbox": held.no_sandbox,
        "notes": held.notes,
        "memory": if held.memory_group { "run" } else { "process" },
        "peak_memory": held.peak_memory,
        "user": held.user,
    })
}
