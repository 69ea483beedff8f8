//! `power11 referee`: a Power-11 program's run checked against the assignment's rules, from a
//! transcript and its keys, or by running the program (`--run`), on given keys or on generated
//! scripts (`--scripts`). Exit code 0 when every rule holds, 1 when one is broken or the program
//! crashed, hung or printed without end, 2 when a file cannot be read.

use super::args::RefereeArgs;
use super::{StandardOutput, UsageError};
use crate::files::runs::{Ended, KeepDir, RunOutput, read_any_text, run_fresh};
use crate::model::random::{mix, seeded};
use crate::referee::{Options, Report, referee, scripts, to_text};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// The most of a transcript read: 512 MiB.
const MAX_TRANSCRIPT: u64 = 512 << 20;
/// The most of a run's output kept: 64 MiB (a million boards; a program printing more is
/// stopped as one that prints without end).
const MAX_RUN_OUTPUT: usize = 64 << 20;
/// The most of a keys file read.
const MAX_KEYS: u64 = 64 << 20;

/// A referee's verdict on the run it checked: a failed one exits 1.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Failed(String);

pub(super) fn run_referee(args: &RefereeArgs) -> anyhow::Result<()> {
    let options = Options {
        strict: args.strict,
    };
    let read = |path: &Path, limit| read_any_text(path, limit).map_err(UsageError);
    if let Some(count) = args.scripts {
        return run_scripts(args, count, options);
    }
    let keys_path = args
        .keys
        .as_deref()
        .expect("clap requires --keys without --scripts");
    let keys = read(keys_path, MAX_KEYS)?;
    if keys.trim().is_empty() {
        return Err(UsageError(format!(
            "{}: no keys in it (each character that is not a blank is a key)",
            crate::files::shown(keys_path)
        ))
        .into());
    }
    let (report, run) = if let Some(command) = &args.run {
        let (report, run) = run_and_referee(command, &keys, args.timeout, options)?;
        (report, Some(run))
    } else {
        let transcript_path = args.transcript.as_deref().expect("clap requires it");
        let save = args
            .save
            .as_deref()
            .map(|p| read(p, MAX_TRANSCRIPT))
            .transpose()?;
        let transcript = read(transcript_path, MAX_TRANSCRIPT)?;
        (referee(&keys, &transcript, save.as_deref(), options), None)
    };
    let run_fault = run.as_ref().and_then(run_problem);
    let mut out = StandardOutput::lock();
    if args.json {
        let json = serde_json::json!({
            "report": report,
            "run": run.as_ref().map(run_json),
        });
        writeln!(out, "{json}")?;
    } else {
        out.write_all(in_words(&report, run.as_ref()).as_bytes())?;
    }
    out.flush()?;
    verdict(&report, run_fault.as_deref())
}

/// Exit code 1, with the reason, where the run failed.
fn verdict(report: &Report, run_fault: Option<&str>) -> anyhow::Result<()> {
    match (report.passed(), run_fault) {
        (true, None) => Ok(()),
        (false, _) => Err(Failed(format!(
            "{} violation(s) of the rules",
            report.violations.len()
        ))
        .into()),
        (true, Some(fault)) => Err(Failed(fault.to_string()).into()),
    }
}

/// `text` (a command as typed) as messages show it: control characters in caret notation, so
/// that a name holding an escape sequence cannot retitle or clear the grader's terminal.
fn shown_text(text: &str) -> String {
    text.chars().map(crate::text::visible).collect()
}

/// The program's command line, split as a shell splits it.
fn program_of(command: &str) -> anyhow::Result<Vec<String>> {
    match shlex::split(command) {
        Some(words) if !words.is_empty() => Ok(words),
        _ => Err(UsageError(format!(
            "--run '{}': not a command line (unclosed quote, or nothing to run)",
            shown_text(command)
        ))
        .into()),
    }
}

/// Runs `command` on `keys` and referees what it printed and saved.
fn run_and_referee(
    command: &str,
    keys: &str,
    timeout: f64,
    options: Options,
) -> anyhow::Result<(Report, RunOutput)> {
    let run = run_program(command, keys, timeout)?;
    let transcript = String::from_utf8_lossy(&run.stdout);
    let save = run.save.as_deref().map(String::from_utf8_lossy);
    let report = referee(keys, &transcript, save.as_deref(), options);
    Ok((report, run))
}

/// The report in words, after the run's line (how it ended: a crash or a hang explains the
/// boards missing), if a run made it.
fn in_words(report: &Report, run: Option<&RunOutput>) -> String {
    let run_line = run.map(|run| format!("{}\n", run_words(run)));
    run_line.unwrap_or_default() + &to_text(report)
}

/// Runs `command` on `keys`.
fn run_program(command: &str, keys: &str, timeout: f64) -> anyhow::Result<RunOutput> {
    let program = program_of(command)?;
    run_fresh(
        &program,
        keys.as_bytes(),
        Duration::from_secs_f64(timeout),
        MAX_RUN_OUTPUT,
    )
    .map_err(|e| {
        let hint = if e.kind() == std::io::ErrorKind::NotFound && !program[0].contains('/') {
            " (not on PATH: give its path, as ./name)"
        } else {
            ""
        };
        UsageError(format!("--run: {e}{hint}")).into()
    })
}

/// What went wrong with a run itself, apart from the rules: a crash, a hang, output without end.
fn run_problem(run: &RunOutput) -> Option<String> {
    match run.ended {
        Ended::Exited(_) => None,
        Ended::Signal(signal) => Some(format!(
            "the program was ended by signal {signal} (a crash)"
        )),
        Ended::TimedOut => Some(format!(
            "the program was still running after {:.1} s and was stopped (it did not end at the end of its input)",
            run.seconds
        )),
        Ended::OutputCapped => Some(format!(
            "the program printed more than {} MiB and was stopped",
            MAX_RUN_OUTPUT >> 20
        )),
    }
}

/// A run in words: how it ended and how long it took.
fn run_words(run: &RunOutput) -> String {
    let save = if run.save.is_some() {
        "; it left power11.saved"
    } else {
        ""
    };
    match (run.ended, run_problem(run)) {
        (_, Some(problem)) => format!("run: {problem}{save}"),
        (Ended::Exited(code), None) => format!(
            "run: the program exited with code {code} after {:.2} s{save}",
            run.seconds
        ),
        (_, None) => String::new(),
    }
}

fn run_json(run: &RunOutput) -> serde_json::Value {
    let (ended, code) = match run.ended {
        Ended::Exited(code) => ("exited", Some(code)),
        Ended::Signal(signal) => ("signal", Some(signal)),
        Ended::TimedOut => ("timed-out", None),
        Ended::OutputCapped => ("output-capped", None),
    };
    serde_json::json!({
        "ended": ended,
        "code": code,
        "seconds": run.seconds,
        "saved": run.save.is_some(),
    })
}

/// `--scripts N`: N generated scripts, each run and refereed; the failing ones kept.
fn run_scripts(args: &RefereeArgs, count: u64, options: Options) -> anyhow::Result<()> {
    let command = args
        .run
        .as_deref()
        .expect("clap requires --run with --scripts");
    program_of(command)?;
    let seed = args.seed.unwrap_or_else(super::os_seed);
    let keep = match &args.keep {
        Some(path) => KeepDir::prepare(path, false),
        None => KeepDir::prepare(Path::new("referee-failures"), true),
    }
    .map_err(UsageError)?;
    let mut out = StandardOutput::lock();
    let mut failed = Vec::new();
    for index in 0..count {
        let keys = scripts::generate(&mut seeded(mix(seed ^ mix(index))));
        let (report, run) = run_and_referee(command, &keys, args.timeout, options)?;
        if report.passed() && run_problem(&run).is_none() {
            continue;
        }
        // A file that cannot be kept loses that file, not the run: said, and the runs go on.
        let kept = keep.keep(index, &keys, &run);
        if !args.json {
            match &kept {
                Ok(path) => writeln!(
                    out,
                    "script {index} failed (kept as {}):",
                    crate::files::shown(path)
                )?,
                Err(e) => writeln!(out, "script {index} failed (warning: not kept: {e}):")?,
            }
            out.write_all(in_words(&report, Some(&run)).as_bytes())?;
        }
        let (kept, not_kept) = match kept {
            Ok(path) => (Some(path), None),
            Err(e) => (None, Some(e.to_string())),
        };
        failed.push(serde_json::json!({
            "script": index,
            "keys": kept,
            "not_kept": not_kept,
            "report": report,
            "run": run_json(&run),
        }));
    }
    keep.finish();
    if args.json {
        let json = serde_json::json!({"scripts": count, "seed": seed, "failed": failed});
        writeln!(out, "{json}")?;
    } else {
        writeln!(
            out,
            "{count} scripts (seed {seed}) run with {}: {} failed",
            shown_text(command),
            failed.len()
        )?;
    }
    out.flush()?;
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failed(format!("{} of {count} scripts failed", failed.len())).into())
    }
}
