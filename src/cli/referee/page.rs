//! `power11 referee ... --html FILE`: what the referee found as a feedback page, the one a
//! graded class gives each student (`crate::grading::feedback`), for a transcript, a run, the
//! failing runs of generated scripts or the runs of a play.

use super::super::args::RefereeArgs;
use crate::grading::feedback::{self, RunShown, SHOWN_RUNS};
use crate::live::Ran;
use crate::referee::grades::{ProgramResult, ScriptResult};
use crate::referee::{Options, Report};
use anyhow::Context as _;

/// Writes `--html`'s page, if asked for: `result` graded as the referee grades it, and the
/// first failing runs of `runs` (the first runs, where none failed: a passing run shows its
/// replay too).
pub(super) fn write(
    args: &RefereeArgs,
    options: &Options,
    result: &ProgramResult,
    seconds: f64,
    runs: Vec<RunShown<'_>>,
) -> anyhow::Result<()> {
    let Some(path) = &args.html else {
        return Ok(());
    };
    let failed = |r: &RunShown<'_>| !r.report.passed() || r.problem.is_some();
    let any_failed = runs.iter().any(failed);
    let shown: Vec<RunShown<'_>> = runs
        .into_iter()
        .filter(|r| !any_failed || failed(r))
        .take(SHOWN_RUNS)
        .collect();
    let grade = crate::grading::referee_grade(result, options.assignment, options.strict, seconds);
    let html = feedback::page(&grade, &shown);
    crate::files::save::write_atomic(path, html.as_bytes())
        .with_context(|| format!("--html {}", crate::files::shown(path)))?;
    Ok(())
}

/// What `run` went wrong with apart from the rules, in words, for a page.
pub(super) fn problem(run: &Ran) -> Option<String> {
    run.problem().map(|p| p.words)
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
