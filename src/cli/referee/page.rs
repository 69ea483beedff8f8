//! `power11 referee ... --html FILE`: what the referee found as a feedback page, the one a
//! graded class gives each student (`crate::grading::feedback`), for a transcript, a run, the
//! failing runs of generated scripts or the runs of a play.

use super::super::args::RefereeArgs;
use crate::grading::feedback::{self, RunShown};
use crate::live::Ran;
use crate::referee::grades::{ProgramResult, ScriptResult};
use crate::referee::{Options, Report};
use anyhow::Context as _;

/// The most runs a page shows: the first failing ones.
const SHOWN_RUNS: usize = 5;

/// One run a page may show, before it is known whether it failed.
pub(super) struct Candidate<'a> {
    pub label: String,
    pub keys: &'a str,
    pub report: &'a Report,
    pub run: Option<&'a Ran>,
    /// The name its keys are offered as.
    pub keys_file: String,
    pub replay: String,
}

/// The command that runs `command` (as typed to `--run`) on the keys in `keys_file`.
pub(super) fn run_command(command: &str, keys_file: &str) -> String {
    format!(
        "power11 referee --run {} --keys {}",
        shlex::try_quote(command).unwrap_or_default(),
        shlex::try_quote(keys_file).unwrap_or_default()
    )
}

/// Writes `--html`'s page, if asked for: `result` graded as the referee grades it, and the
/// first failing runs of `runs` (every run, where none failed: one passing run shows its
/// replay).
pub(super) fn write(
    args: &RefereeArgs,
    options: &Options,
    result: &ProgramResult,
    seconds: f64,
    runs: &[Candidate<'_>],
) -> anyhow::Result<()> {
    let Some(path) = &args.html else {
        return Ok(());
    };
    let failed = |c: &&Candidate<'_>| !c.report.passed() || c.run.and_then(Ran::problem).is_some();
    let any_failed = runs.iter().any(|c| failed(&c));
    let shown: Vec<RunShown<'_>> = runs
        .iter()
        .filter(|c| !any_failed || failed(c))
        .take(SHOWN_RUNS)
        .map(|c| RunShown {
            label: c.label.clone(),
            keys: c.keys,
            report: c.report,
            problem: c.run.and_then(Ran::problem).map(|p| p.words),
            keys_file: c.keys_file.clone(),
            replay: c.replay.clone(),
        })
        .collect();
    let grade = crate::grading::referee_grade(result, options.assignment, options.strict, seconds);
    let html = feedback::page(&grade, &shown);
    crate::files::save::write_atomic(path, html.as_bytes())
        .with_context(|| format!("--html {}", crate::files::shown(path)))?;
    Ok(())
}

/// The result of one transcript or run, as a class of one script.
pub(super) fn one_result(command: &str, report: &Report, run: Option<&Ran>) -> ProgramResult {
    let script = ScriptResult {
        script: 0,
        report: report.clone(),
        problem: run.and_then(Ran::problem),
    };
    ProgramResult::new(command, &[script], 1)
}
