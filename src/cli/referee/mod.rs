//! `power11 referee`: a program's run checked against its assignment's rules (Power-11's or the
//! MIPS program's), from a transcript and its keys, or by running the program (`--run`, given
//! once a program of a class), on given keys or on generated scripts (`--scripts`), in
//! parallel (`--jobs`), reported in words, as JSON, as Gradescope's `results.json` and as
//! JUnit XML. Exit code 0 when every rule holds, 1 when one is broken, 3 when no rule is
//! broken but a run failed, crashed, hung or printed without end, 2 for bad arguments or files.

mod page;
mod play;
mod words;

use super::args::RefereeArgs;
use super::guard::{self, stopped, stopped_by};
use super::{StandardOutput, UsageError, Verdict};
use crate::files::runs::{KeepDir, read_any_text};
use crate::grading::feedback::{RunShown, replay_command};
use crate::live::{self, Ran, Setup};
use crate::model::random::{mix, seeded};
use crate::referee::grades::{self, ProgramResult, ScriptResult};
use crate::referee::{Assignment, Options, Report, SaveBefore, referee, scripts};
use crate::runner::{Ending, Limits, Spec, signal_name};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
pub(super) use words::{in_words, run_json};

/// The most of a transcript read: 512 MiB.
const MAX_TRANSCRIPT: u64 = 512 << 20;
/// The most of a keys file read.
const MAX_KEYS: u64 = 64 << 20;
/// Time a run may spend answering added for each line sent, unless `--timeout` is given: a
/// generated script of 1,000 keys allows a program 60 ms a key, a game to 2048 (about 1,000
/// keys) 170 ms.
const PER_KEY: Duration = Duration::from_millis(50);

pub(super) fn run_referee(args: &RefereeArgs) -> anyhow::Result<()> {
    let outcome = referee_command(args);
    crate::runner::release_groups();
    // JSON for every outcome: an error too, on standard output, beside the usual message.
    if args.json
        && let Err(e) = &outcome
        && e.downcast_ref::<Verdict>().is_none()
    {
        let mut out = StandardOutput::lock();
        let _ = writeln!(out, "{}", serde_json::json!({ "error": format!("{e:#}") }));
        let _ = out.flush();
    }
    outcome
}

/// The refereeing's options from `args`, and the text of `--save-before`'s save.
fn options_of(args: &RefereeArgs) -> anyhow::Result<(Options, Option<String>)> {
    let assignment = match args.interface.as_str() {
        "mips" => Assignment::Mips,
        _ => Assignment::Power11,
    };
    let save_before = args
        .save_before
        .as_deref()
        .map(|path| {
            let text = read_any_text(path, MAX_TRANSCRIPT).map_err(UsageError)?;
            crate::text::parse_save(&text)
                .map(|timeline| (timeline, text))
                .map_err(|e| {
                    UsageError(format!(
                        "--save-before {}:{}: {}",
                        crate::files::shown(path),
                        e.line,
                        e.problem
                    ))
                })
        })
        .transpose()?;
    let options = Options {
        strict: args.strict,
        assignment,
        before: match (&save_before, args.run.is_empty()) {
            (Some((timeline, _)), _) => SaveBefore::Save(timeline.clone()),
            // A run starts in a fresh folder, with no save to resume.
            (None, false) => SaveBefore::Nothing,
            (None, true) => SaveBefore::Unknown,
        },
    };
    Ok((options, save_before.map(|(_, text)| text)))
}

/// Refuses flags that would be ignored with the others given, rather than ignore them.
fn refuse_ignored(args: &RefereeArgs) -> anyhow::Result<()> {
    if args.size.is_some() && args.play.is_none() {
        return Err(UsageError(
            "--size picks the board --play plays (generated scripts play both sizes)".to_string(),
        )
        .into());
    }
    for (flag, path) in [
        ("--html", &args.html),
        ("--gradescope", &args.gradescope),
        ("--junit", &args.junit),
    ] {
        if let Some(path) = path {
            crate::files::outputs::check_report_file(path, flag)?;
        }
    }
    if args.html.is_some() && args.run.len() > 1 {
        return Err(UsageError(
            "--html shows one program's runs: give one --run (each student's page comes with \
             `power11 grade`)"
                .to_string(),
        )
        .into());
    }
    if (args.gradescope.is_some() || args.junit.is_some())
        && args.scripts.is_none()
        && args.play.is_none()
    {
        return Err(UsageError(
            "--gradescope and --junit grade generated scripts or a play: give --scripts N or \
             --play GOAL (a keys file is reported with --json)"
                .to_string(),
        )
        .into());
    }
    Ok(())
}

fn referee_command(args: &RefereeArgs) -> anyhow::Result<()> {
    let (options, save_text) = options_of(args)?;
    let assignment = options.assignment;
    let read = |path: &Path, limit| read_any_text(path, limit).map_err(UsageError);
    let programs: Vec<Vec<String>> = args
        .run
        .iter()
        .map(|c| program_of(c))
        .collect::<anyhow::Result<_>>()?;
    refuse_ignored(args)?;
    if !args.run.is_empty() {
        guard::stop_on_signals()?;
    }
    if args.play.is_some() {
        let [program] = programs.as_slice() else {
            return Err(UsageError("--play plays one program: give one --run".to_string()).into());
        };
        return play::run_play(args, &options, program);
    }
    if args.gradescope.is_some() && args.run.len() > 1 {
        return Err(UsageError(
            "--gradescope grades one submission: give one --run (--junit takes several)"
                .to_string(),
        )
        .into());
    }
    if args.scripts.is_none() {
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
        let class = Class {
            args,
            options,
            programs: &programs,
            scripts: vec![(0, keys)],
            save: save_text.as_deref(),
        };
        if programs.len() <= 1 {
            return one_keys_file(&class, keys_path);
        }
        return class.grade(None, None);
    }
    let count = args.scripts.expect("checked above");
    let seed = args.seed.unwrap_or_else(super::os_seed);
    let keep = keep_dir(args, &format!("seed-{seed}"))?;
    let scripts = (0..count)
        .map(|index| {
            let mut rng = seeded(mix(seed ^ mix(index)));
            let keys = match assignment {
                Assignment::Power11 => scripts::generate(&mut rng),
                Assignment::Mips => scripts::generate_mips(&mut rng),
            };
            (index, keys)
        })
        .collect();
    let class = Class {
        args,
        options,
        programs: &programs,
        scripts,
        save: save_text.as_deref(),
    };
    let graded = class.grade(Some(&keep), Some(seed));
    keep.finish();
    graded
}

/// One keys file refereed: a transcript of it (no `--run`), or one program run on it.
fn one_keys_file(class: &Class<'_>, keys_path: &Path) -> anyhow::Result<()> {
    let (args, options) = (class.args, &class.options);
    let keys = &class.scripts[0].1;
    let read = |path: &Path, limit| read_any_text(path, limit).map_err(UsageError);
    let keys_file = file_name(keys_path);
    if class.programs.is_empty() {
        let transcript_path = args.transcript.as_deref().expect("clap requires it");
        let save = args
            .save
            .as_deref()
            .map(|p| read(p, MAX_TRANSCRIPT))
            .transpose()?;
        let transcript = read(transcript_path, MAX_TRANSCRIPT)?;
        let report = referee(keys, &transcript, save.as_deref(), options);
        let shown = crate::files::shown(transcript_path);
        let candidate = RunShown {
            label: format!("the transcript {shown}"),
            keys,
            report: &report,
            problem: None,
            replay: format!(
                "power11 referee --keys {} {}",
                shlex::try_quote(&keys_file).unwrap_or_default(),
                shlex::try_quote(&shown).unwrap_or_default()
            ),
            keys_file,
        };
        let result = page::one_result(&shown, &report, None);
        page::write(args, options, &result, 0.0, vec![candidate])?;
        return print_one(args, &report, None);
    }
    let started = Instant::now();
    let (report, run) = run_and_referee(&class.programs[0], keys, class)?;
    let candidate = RunShown {
        label: format!("the keys {}", crate::files::shown(keys_path)),
        keys,
        report: &report,
        problem: page::problem(&run),
        replay: replay_command(&args.run[0], &keys_file),
        keys_file,
    };
    let result = page::one_result(&args.run[0], &report, Some(&run));
    let seconds = started.elapsed().as_secs_f64();
    page::write(args, options, &result, seconds, vec![candidate])?;
    print_one(args, &report, Some(&run))
}

/// The last part of `path`, as a page names the file it offers.
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || "keys.txt".to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// The folder failing runs are kept in: `--keep`, else `referee-failures` (made for the run,
/// refused when it is a link or another user's), and in it this run's own, named `label` and
/// the time.
pub(super) fn keep_dir(args: &RefereeArgs, label: &str) -> anyhow::Result<KeepDir> {
    Ok(match &args.keep {
        Some(path) => KeepDir::prepare(path, false, label),
        None => KeepDir::prepare(Path::new("referee-failures"), true, label),
    }
    .map_err(UsageError)?)
}

/// The report of one transcript or one run: in words or JSON, then the verdict.
fn print_one(args: &RefereeArgs, report: &Report, run: Option<&Ran>) -> anyhow::Result<()> {
    let mut out = StandardOutput::lock();
    if args.json {
        let json = serde_json::json!({
            "report": report,
            "run": run.map(run_json),
            "stops_from_programs": guard::stops_from_runs(),
        });
        writeln!(out, "{json}")?;
    } else {
        out.write_all(in_words(report, run).as_bytes())?;
        ignored_stops(&mut out)?;
    }
    out.flush()?;
    drop(out);
    if let Some(signal) = stopped_by() {
        return Err(stopped(signal, "the run"));
    }
    let problem = run.and_then(Ran::problem);
    verdict(!report.passed(), problem.is_some(), || {
        problem.map_or_else(
            || format!("{} rule(s) broken", report.rules.len()),
            |p| p.words,
        )
    })
}

/// Says how many stop signals the programs run sent the referee, if any: each was ignored.
fn ignored_stops(out: &mut impl Write) -> std::io::Result<()> {
    match guard::stops_from_runs() {
        0 => Ok(()),
        n => writeln!(
            out,
            "note: the programs run sent the referee {n} stop signal(s) (SIGINT, SIGTERM or SIGHUP); each was ignored"
        ),
    }
}

/// Exit 1 where a rule was broken, 3 where only a run went wrong, 0 otherwise.
pub(super) fn verdict(
    broken: bool,
    problem: bool,
    words: impl FnOnce() -> String,
) -> anyhow::Result<()> {
    match (broken, problem) {
        (false, false) => Ok(()),
        (true, _) => Err(Verdict {
            code: 1,
            words: words(),
        }
        .into()),
        (false, true) => Err(Verdict {
            code: 3,
            words: words(),
        }
        .into()),
    }
}

/// A class's verdict: stopped by a signal (128 + it), a rule broken (1), a run gone wrong (3),
/// or every rule kept (0); `count` scripts a program.
fn class_verdict(results: &[ProgramResult], count: usize) -> anyhow::Result<()> {
    if let Some(signal) = stopped_by() {
        let done: usize = results.iter().map(|r| r.scripts).sum();
        return Err(stopped(
            signal,
            &format!("{done} of {} runs", count * results.len()),
        ));
    }
    let broken = results.iter().any(|r| !r.rules.is_empty());
    let problem = results.iter().any(|r| r.problems > 0);
    verdict(broken, problem, || {
        let failed: usize = results.iter().map(|r| r.failed).sum();
        format!("{failed} of {} runs failed", count * results.len())
    })
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

/// `text` (a command as typed) as messages show it: control characters in caret notation, so
/// that a name holding an escape sequence cannot retitle or clear the grader's terminal.
fn shown_text(text: &str) -> String {
    crate::text::visible_text(text)
}

/// A class's programs, the scripts they all play, and how.
struct Class<'a> {
    args: &'a RefereeArgs,
    options: Options,
    programs: &'a [Vec<String>],
    /// Each script's number and keys.
    scripts: Vec<(u64, String)>,
    /// The save put in each run's folder first (`--save-before`).
    save: Option<&'a str>,
}

/// One run of a class, done: its result, the keys and what the program printed and saved.
struct Done {
    result: ScriptResult,
    run: Ran,
}

impl Class<'_> {
    /// Runs every program on every script, `--jobs` at a time, and reports: per program, its
    /// failing scripts (kept in `keep`), a table of the class, the graders' files.
    fn grade(&self, keep: Option<&KeepDir>, seed: Option<u64>) -> anyhow::Result<()> {
        let started = Instant::now();
        let done = self.run_all()?;
        let seconds = started.elapsed().as_secs_f64();
        let several = self.programs.len() > 1;
        let mut out = StandardOutput::lock();
        let mut programs_json = Vec::new();
        let mut results = Vec::new();
        for (p, runs) in done.iter().enumerate() {
            let command = &self.args.run[p];
            let scripts: Vec<ScriptResult> = runs.iter().map(|d| d.result.clone()).collect();
            let result = ProgramResult::new(command, &scripts, self.scripts.len());
            let failures = self.failures(&mut out, p, runs, keep)?;
            programs_json.push(serde_json::json!({
                "command": command,
                "scripts": result.scripts,
                "planned": result.planned,
                "failed": result.failed,
                "rules": result.rules.iter().map(|(rule, n)| serde_json::json!({
                    "rule": rule.name(),
                    "scripts": n,
                })).collect::<Vec<_>>(),
                "run_problems": result.problems,
                "failures": failures,
            }));
            results.push(result);
        }
        let count = self.scripts.len();
        if self.args.json {
            let mut json = serde_json::json!({
                "scripts": count,
                "stopped_by": stopped_by().and_then(signal_name),
                "stops_from_programs": guard::stops_from_runs(),
                "seed": seed,
                "interface": self.options.assignment.name(),
                "programs": programs_json,
            });
            // Every failing run of the class, each with its program's command: the same field
            // for one program and for several.
            json["failed"] = programs_json
                .iter()
                .flat_map(|program| {
                    let command = program["command"].clone();
                    program["failures"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .map(move |mut failure| {
                            failure["command"] = command.clone();
                            failure
                        })
                })
                .collect();
            writeln!(out, "{json}")?;
        } else {
            if several {
                out.write_all(grades::table(&results).as_bytes())?;
            }
            let seed = seed.map_or_else(String::new, |s| format!(" (seed {s})"));
            for result in &results {
                let done = result.scripts;
                let scripts = if done == 1 { "script" } else { "scripts" };
                writeln!(
                    out,
                    "{done} {scripts}{seed} run with {}: {} failed",
                    shown_text(&result.command),
                    result.failed
                )?;
                if let Some(why) = result.incomplete() {
                    writeln!(out, "{why}")?;
                }
                let summary = result.summary();
                if !several && !summary.is_empty() {
                    write!(out, "rules broken:\n{summary}")?;
                }
            }
            ignored_stops(&mut out)?;
        }
        out.flush()?;
        drop(out);
        self.write_grades(&results, seconds)?;
        if let ([result], [runs]) = (results.as_slice(), done.as_slice()) {
            self.write_page(result, runs, seconds)?;
        }
        class_verdict(&results, count)
    }

    /// Program `p`'s failing runs, each kept in `keep` (a folder a program when there are
    /// several) and, for one program in words, reported on `out`: their JSON.
    fn failures(
        &self,
        out: &mut impl Write,
        p: usize,
        runs: &[Done],
        keep: Option<&KeepDir>,
    ) -> anyhow::Result<Vec<serde_json::Value>> {
        let several = self.programs.len() > 1;
        let mut failures = Vec::new();
        for d in runs.iter().filter(|d| d.result.failed()) {
            let keys = &self.scripts[usize::try_from(d.result.script).unwrap_or(0)].1;
            let kept = keep.map(|k| {
                let sub = several.then(|| format!("program-{}", p + 1));
                k.keep(
                    sub.as_deref(),
                    d.result.script,
                    keys,
                    &d.run.transcript,
                    d.run.save.as_deref(),
                )
            });
            if !self.args.json && !several {
                match &kept {
                    Some(Ok(path)) => writeln!(
                        out,
                        "script {} failed (kept as {}):",
                        d.result.script,
                        crate::files::shown(path)
                    )?,
                    Some(Err(e)) => writeln!(
                        out,
                        "script {} failed (warning: not kept: {e}):",
                        d.result.script
                    )?,
                    None => writeln!(out, "script {} failed:", d.result.script)?,
                }
                out.write_all(in_words(&d.result.report, Some(&d.run)).as_bytes())?;
            }
            let (kept, not_kept) = match kept {
                Some(Ok(path)) => (Some(path), None),
                Some(Err(e)) => (None, Some(e.to_string())),
                None => (None, None),
            };
            failures.push(serde_json::json!({
                "script": d.result.script,
                "keys": kept,
                "not_kept": not_kept,
                "report": d.result.report,
                "run": run_json(&d.run),
            }));
        }
        Ok(failures)
    }

    /// `--html`'s page of the one program's failing runs.
    fn write_page(
        &self,
        result: &ProgramResult,
        runs: &[Done],
        seconds: f64,
    ) -> anyhow::Result<()> {
        let candidates: Vec<RunShown<'_>> = runs
            .iter()
            .map(|d| {
                let script = usize::try_from(d.result.script).unwrap_or(0);
                let keys_file = format!("script-{:04}.keys", d.result.script);
                RunShown {
                    label: format!("script {}", d.result.script),
                    keys: self
                        .scripts
                        .get(script)
                        .map_or("", |(_, keys)| keys.as_str()),
                    report: &d.result.report,
                    problem: page::problem(&d.run),
                    replay: replay_command(&self.args.run[0], &keys_file),
                    keys_file,
                }
            })
            .collect();
        page::write(self.args, &self.options, result, seconds, candidates)
    }

    /// Gradescope's and JUnit's files, where asked for.
    fn write_grades(&self, results: &[ProgramResult], seconds: f64) -> anyhow::Result<()> {
        let assignment = self.options.assignment;
        if let (Some(path), [result]) = (&self.args.gradescope, results) {
            let grades = crate::grading::gradebook::gradescope(&crate::grading::referee_grade(
                result,
                assignment,
                self.options.strict,
                seconds,
            ));
            let text = serde_json::to_string_pretty(&grades)? + "\n";
            crate::files::save::write_atomic(path, text.as_bytes())?;
        }
        if let Some(path) = &self.args.junit {
            let xml =
                crate::grading::referee_junit(results, assignment, self.options.strict, seconds);
            crate::files::save::write_atomic(path, xml.as_bytes())?;
        }
        Ok(())
    }

    /// Every program on every script, `--jobs` runs at a time: the runs of each program, in
    /// script order.
    fn run_all(&self) -> anyhow::Result<Vec<Vec<Done>>> {
        let total = self.programs.len() * self.scripts.len();
        let jobs = self
            .args
            .jobs
            .map_or_else(crate::learning::cores, |j| usize::try_from(j).unwrap_or(1))
            .clamp(1, total.max(1));
        let next = AtomicUsize::new(0);
        let done: Mutex<Vec<Option<Done>>> = Mutex::new((0..total).map(|_| None).collect());
        let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let failed = failure.lock().map_or(true, |f| f.is_some());
                        if i >= total || failed || stopped_by().is_some() {
                            return;
                        }
                        let (p, s) = (i / self.scripts.len(), i % self.scripts.len());
                        let (script, keys) = &self.scripts[s];
                        match run_and_referee(&self.programs[p], keys, self) {
                            // A run the referee's own stop ended is not the program's.
                            Ok((_, run)) if run.outcome.ending == Ending::Stopped => return,
                            Ok((report, run)) => {
                                let problem = run.problem();
                                let result = ScriptResult {
                                    script: *script,
                                    report,
                                    problem,
                                };
                                if let Ok(mut done) = done.lock() {
                                    done[i] = Some(Done { result, run });
                                }
                            }
                            Err(e) => {
                                if let Ok(mut failure) = failure.lock() {
                                    failure.get_or_insert(e);
                                }
                                return;
                            }
                        }
                    }
                });
            }
        });
        if let Some(e) = failure.into_inner().ok().flatten() {
            return Err(e);
        }
        let mut done = done.into_inner().unwrap_or_default().into_iter();
        Ok(self
            .programs
            .iter()
            .map(|_| done.by_ref().take(self.scripts.len()).flatten().collect())
            .collect())
    }
}

/// Runs `program` on `keys` under `class`'s settings, a line at a time, refereeing each answer.
fn run_and_referee(
    program: &[String],
    keys: &str,
    class: &Class<'_>,
) -> anyhow::Result<(Report, Ran)> {
    let setup = setup_of(class.args, program, &class.options)?;
    let before = class.options.before.clone();
    let ran = live::run_keys(&setup, keys, before, class.save.map(str::as_bytes))
        .map_err(|e| UsageError(format!("--run: {e}")))?;
    Ok((ran.report.clone(), ran))
}

/// How to run `program` under `args`: from the referee's own folder, with its limits.
pub(super) fn setup_of(
    args: &RefereeArgs,
    program: &[String],
    options: &Options,
) -> anyhow::Result<Setup> {
    let origin = std::env::current_dir()
        .map_err(|e| anyhow::anyhow!("cannot tell the current folder: {e}"))?;
    let default = if args.play.is_some() { 120.0 } else { 10.0 };
    // Unless told, a long script allows a slow program more time, and one answer 10 s.
    let (per_key, key_limit) = match args.timeout {
        Some(_) => (Duration::ZERO, None),
        None => (PER_KEY, Some(Spec::DEFAULT_TIME_LIMIT)),
    };
    Ok(Setup {
        words: program.to_vec(),
        origin,
        limits: Limits {
            memory: args.memory.0,
            ..Limits::default()
        },
        time_limit: Duration::from_secs_f64(args.timeout.unwrap_or(default)),
        per_key,
        key_limit,
        options: options.clone(),
        sandbox: !args.no_sandbox,
        covered: Vec::new(),
    })
}
