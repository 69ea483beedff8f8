//! `power11 referee --run PROGRAM --play GOAL`: the program played live to its win, its loss,
//! or every other path, each board refereed as it comes.

use super::super::args::RefereeArgs;
use super::super::guard::{stopped, stopped_by};
use super::super::player::strongest;
use super::super::{StandardOutput, UsageError};
use super::{in_words, keep_dir, run_json, setup_of, verdict};
use crate::grading::feedback::{RunShown, replay_command};
use crate::live::play::{Goal, Plan, Played, Reached, play};
use crate::model::rules::Rules;
use crate::referee::grades::{ProgramResult, ScriptResult};
use crate::referee::{Assignment, Options};
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

/// Plays `program` as `args` says, reports, and keeps the runs of a play that broke a rule.
pub(super) fn run_play(
    args: &RefereeArgs,
    options: &Options,
    program: &[String],
) -> anyhow::Result<()> {
    let goal = match args.play.as_deref() {
        Some("lose") => Goal::Lose,
        Some("explore") => Goal::Explore,
        _ => Goal::Win,
    };
    let size = match options.assignment {
        Assignment::Mips => 3,
        Assignment::Power11 => usize::from(args.size.unwrap_or(4)),
    };
    let rules = match options.assignment {
        Assignment::Mips => Rules::mini(),
        Assignment::Power11 => Rules::power11(size)?,
    };
    let mut strongest = strongest(&rules, size)?;
    let seed = args.seed.unwrap_or_else(super::super::os_seed);
    let live_setup = setup_of(args, program, options)?;
    let keep = keep_dir(args, &format!("play-{}-seed-{seed}", goal.name()))?;
    let played = play(
        &live_setup,
        Plan {
            goal,
            size,
            player: &mut strongest,
            seed,
            max_keys: 50_000,
            max_games: 3,
        },
    )
    .map_err(|e| UsageError(format!("--run: {e}")))?;
    let broken = played.runs.iter().any(|r| !r.report.passed());
    let problem = played.runs.iter().find_map(crate::live::Ran::problem);
    // A play that went wrong is kept whole: a second run replays with the first's save.
    let kept: Vec<Option<Result<PathBuf, String>>> = played
        .runs
        .iter()
        .enumerate()
        .map(|(i, ran)| {
            (broken || problem.is_some()).then(|| {
                keep.keep(
                    None,
                    i as u64,
                    &ran.keys,
                    &ran.transcript,
                    ran.save.as_deref(),
                )
                .map_err(|e| e.to_string())
            })
        })
        .collect();
    keep.finish();
    let mut out = StandardOutput::lock();
    if args.json {
        writeln!(out, "{}", play_json(&played, &kept, seed, size))?;
    } else {
        out.write_all(play_words(&played, &kept, seed, size).as_bytes())?;
    }
    out.flush()?;
    drop(out);
    let command = args
        .run
        .first()
        .cloned()
        .unwrap_or_else(|| program.join(" "));
    let scripts: Vec<ScriptResult> = played
        .runs
        .iter()
        .enumerate()
        .map(|(i, ran)| ScriptResult {
            script: i as u64,
            report: ran.report.clone(),
            problem: ran.problem(),
        })
        .collect();
    let result = ProgramResult::new(&command, &scripts, scripts.len());
    write_grades(args, options, &result, played.seconds)?;
    let candidates: Vec<RunShown<'_>> = played
        .runs
        .iter()
        .enumerate()
        .map(|(i, ran)| {
            let keys_file = format!("script-{i:04}.keys");
            RunShown {
                label: format!("run {} of the play {} (seed {seed})", i + 1, goal.name()),
                keys: &ran.keys,
                report: &ran.report,
                problem: super::page::problem(ran),
                replay: replay_command(&command, &keys_file),
                keys_file,
            }
        })
        .collect();
    super::page::write(args, options, &result, played.seconds, candidates)?;
    if let Some(signal) = stopped_by() {
        return Err(stopped(signal, "the play so far"));
    }
    verdict(broken, problem.is_some(), || match problem {
        Some(problem) if !broken => problem.words,
        _ => "a rule broken in play".to_string(),
    })
}

/// Gradescope's and JUnit's files for a play, where asked for: its runs graded as a class's
/// scripts are (each rule held where a run checked it and none broke it).
fn write_grades(
    args: &RefereeArgs,
    options: &Options,
    result: &ProgramResult,
    seconds: f64,
) -> anyhow::Result<()> {
    if args.gradescope.is_none() && args.junit.is_none() {
        return Ok(());
    }
    let (assignment, strict) = (options.assignment, options.strict);
    if let Some(path) = &args.gradescope {
        let grades = crate::grading::gradebook::gradescope(&crate::grading::referee_grade(
            result, assignment, strict, seconds,
        ));
        let text = serde_json::to_string_pretty(&grades)? + "\n";
        crate::files::save::write_atomic(path, text.as_bytes())?;
    }
    if let Some(path) = &args.junit {
        let xml = crate::grading::referee_junit(
            std::slice::from_ref(result),
            assignment,
            strict,
            seconds,
        );
        crate::files::save::write_atomic(path, xml.as_bytes())?;
    }
    Ok(())
}

/// A play as JSON: `play` (goal, reached, keys, seconds, seed, size), the run a grader looks
/// at first (`report` and `run`: the first that went wrong, else the last), and every run.
fn play_json(
    played: &Played,
    kept: &[Option<Result<PathBuf, String>>],
    seed: u64,
    size: usize,
) -> serde_json::Value {
    let runs: Vec<serde_json::Value> = played
        .runs
        .iter()
        .zip(kept)
        .map(|(ran, kept)| {
            let (keys, not_kept) = match kept {
                Some(Ok(path)) => (Some(path.clone()), None),
                Some(Err(e)) => (None, Some(e.clone())),
                None => (None, None),
            };
            serde_json::json!({
                "report": ran.report,
                "run": run_json(ran),
                "keys": keys,
                "not_kept": not_kept,
            })
        })
        .collect();
    let main = played
        .runs
        .iter()
        .position(|r| !r.report.passed() || r.problem().is_some())
        .unwrap_or(played.runs.len().saturating_sub(1));
    serde_json::json!({
        "play": {
            "goal": played.goal.name(),
            "reached": played.reached.map(Reached::name),
            "keys": played.keys,
            "seconds": played.seconds,
            "seed": seed,
            "size": size,
        },
        "report": runs.get(main).map(|r| r["report"].clone()),
        "run": runs.get(main).map(|r| r["run"].clone()),
        "runs": runs,
    })
}

/// A play in words: each run's report (where it is kept, if it is), then the play's line.
fn play_words(
    played: &Played,
    kept: &[Option<Result<PathBuf, String>>],
    seed: u64,
    size: usize,
) -> String {
    let mut words = String::new();
    let several = played.runs.len() > 1;
    for (i, (ran, kept)) in played.runs.iter().zip(kept).enumerate() {
        if several {
            let _ = writeln!(words, "run {} of {}:", i + 1, played.runs.len());
        }
        match kept {
            Some(Ok(path)) => {
                let _ = writeln!(
                    words,
                    "keys and transcript kept as {}",
                    crate::files::shown(path)
                );
            }
            Some(Err(e)) => {
                let _ = writeln!(words, "warning: not kept: {e}");
            }
            None => {}
        }
        words.push_str(&in_words(&ran.report, Some(ran)));
    }
    let met = match played.goal {
        Goal::Win => played.reached == Some(Reached::Win),
        Goal::Lose => played.reached == Some(Reached::Loss),
        Goal::Explore => played.reached.is_some(),
    };
    if !met {
        let _ = writeln!(
            words,
            "warning: the play did not reach its goal ({}): what comes after it is not checked",
            played.goal.name()
        );
    }
    let _ = writeln!(
        words,
        "play: {} on {size}x{size} (seed {seed}): reached {}, {} keys in {:.1} s",
        played.goal.name(),
        played.reached.map_or("no end of a game", Reached::name),
        played.keys,
        played.seconds
    );
    words
}
