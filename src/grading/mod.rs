//! A class graded (`power11 grade`): each submission of a class folder copied or unpacked
//! into the output folder, built held, its program run on the rubric's scripts and played
//! live to the rubric's goals through [`crate::live`], scored by the [`rubric::Rubric`], and
//! kept (`OUT/state/NAME.json`, with the fingerprint it was graded from) so that a grading
//! stopped halfway goes on where it stopped and a submission that has not changed is not
//! graded again. The gradebook's forms are written from the grades alone
//! ([`gradebook`]). Nothing here prints: progress goes to the caller's [`Event`] handler.

pub mod build;
pub mod feedback;
pub mod gradebook;
mod replay;
pub mod rubric;
pub mod scoring;

use crate::files::class::{Submission, executables, fingerprint, listing, make_work};
use crate::live::play::{Plan, play};
use crate::live::{Ran, Setup, run_keys, run_script};
use crate::players::AnyPlayer;
use crate::referee::grades::{ProgramResult, ScriptResult};
use crate::referee::{Assignment, Options, SaveBefore};
use crate::runner::{Ending, Limits, NOBODY};
use build::{BuildPlan, Built, made_program};
use feedback::{RunShown, SHOWN_RUNS, replay_command};
use rubric::Rubric;
use scoring::{BuildNote, ItemSpec, PlayResult, Standing, StudentGrade, items_of, score};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The most failing scripts kept for a student (keys and transcript each).
const KEPT_FAILURES: usize = 20;

/// A script's result, and its run when it failed (kept to show).
type Done = (ScriptResult, Option<Ran>);
/// The most of a kept grade read back.
const MAX_STATE: u64 = 16 << 20;

/// The grade of one program over `result`'s scripts, as `power11 referee --gradescope` gives
/// it: a point a game rule (format rules only if `strict`), one for the runs.
pub fn referee_grade(
    result: &ProgramResult,
    assignment: Assignment,
    strict: bool,
    seconds: f64,
) -> StudentGrade {
    let specs = scoring::referee_items(assignment, strict);
    let label = |script: u64| format!("script {script}");
    let items = score(&specs, result, &[], false, &label);
    let summary = format!(
        "{} of {} scripts failed ({})",
        result.failed,
        result.scripts,
        assignment.name()
    );
    let summary = match result.incomplete() {
        Some(why) => format!("{why}. {summary}"),
        None => summary,
    };
    let mut grade = StudentGrade::graded(&result.command, result, items, summary);
    grade.seconds = seconds;
    grade
}

/// JUnit XML of the programs of a class of `--run`s, as the referee writes it: a test suite a
/// program, named by its command.
pub fn referee_junit(
    results: &[ProgramResult],
    assignment: Assignment,
    strict: bool,
    seconds: f64,
) -> String {
    let grades: Vec<StudentGrade> = results
        .iter()
        .map(|r| referee_grade(r, assignment, strict, seconds))
        .collect();
    gradebook::junit(
        &grades,
        "power11 referee",
        &format!("power11.referee.{}", assignment.name()),
        |g| g.command.clone(),
        seconds,
    )
}

/// What a grading reports as it goes.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// Submission `index` (from 0) of `of`, named `name`, is being graded.
    Started {
        /// Its place in the class.
        index: usize,
        /// How many there are.
        of: usize,
        /// Its name.
        name: &'a str,
    },
    /// Its build (or unpacking) is running.
    Building,
    /// `done` of its `of` scripts have run.
    Scripts {
        /// Scripts run.
        done: usize,
        /// Scripts to run.
        of: usize,
    },
    /// A play is running.
    Playing(&'a str),
    /// Its grade: graded now, or kept from before (`kept`).
    Graded {
        /// The grade.
        grade: &'a StudentGrade,
        /// Whether it was kept from an earlier grading, unchanged since.
        kept: bool,
    },
}

/// A class's grading: its rubric, its output folder, how its programs are held.
pub struct Grader<'a> {
    /// The rubric.
    pub rubric: &'a Rubric,
    /// The rubric's text, part of each grade's fingerprint.
    pub rubric_text: &'a str,
    /// The output folder (`OUT`).
    pub out: PathBuf,
    /// Folders every program of the class is kept from (the class folder, `OUT`).
    pub covered: Vec<PathBuf>,
    /// Runs at once.
    pub jobs: usize,
    /// Whether programs run in their sandbox.
    pub sandbox: bool,
    /// The memory a run may use.
    pub memory: Option<u64>,
    /// Whether a script is first fed at once ([`run_script`]).
    pub fast: bool,
    /// Every student's scripts: each one's number and keys.
    pub scripts: Vec<(u64, String)>,
    /// The strongest player for a board size, for the plays.
    pub players: &'a (dyn Fn(usize) -> Result<AnyPlayer, String> + Sync),
    /// Whether the grading has been stopped (a signal): what is running then is not graded.
    pub stopped: &'a (dyn Fn() -> bool + Sync),
}

/// A grade as kept in `OUT/state/NAME.json`.
#[derive(serde::Serialize, serde::Deserialize)]
struct Kept {
    fingerprint: String,
    grade: StudentGrade,
}

impl Grader<'_> {
    /// The rubric's items.
    pub fn items(&self) -> Vec<ItemSpec> {
        items_of(self.rubric)
    }

    /// Grades `submissions` in order, each reported to `event`; one whose kept grade still
    /// fits (its files, the rubric and power11's version unchanged) is not graded again
    /// unless `fresh`. Stops early when [`Grader::stopped`] says so: the rest are not graded.
    pub fn grade_class(
        &self,
        submissions: &[Submission],
        fresh: bool,
        event: &mut (dyn FnMut(Event<'_>) + Send),
    ) -> Vec<StudentGrade> {
        let specs = self.items();
        let mut grades = Vec::new();
        for (index, submission) in submissions.iter().enumerate() {
            let name = submission.name.as_str();
            if (self.stopped)() {
                let why = "not graded: the grading was stopped before it";
                grades.push(StudentGrade::without_run(
                    name,
                    &specs,
                    Standing::NotGraded,
                    why,
                ));
                continue;
            }
            event(Event::Started {
                index,
                of: submissions.len(),
                name,
            });
            let print = self.fingerprint(submission);
            if !fresh && let Some(grade) = print.as_ref().and_then(|p| self.kept(name, p)) {
                event(Event::Graded {
                    grade: &grade,
                    kept: true,
                });
                grades.push(grade);
                continue;
            }
            let grade = self.grade_one(submission, &specs, event);
            if grade.standing != Standing::NotGraded
                && let Some(print) = &print
            {
                self.keep(name, print, &grade);
            }
            event(Event::Graded {
                grade: &grade,
                kept: false,
            });
            grades.push(grade);
        }
        grades
    }

    fn state_path(&self, name: &str) -> PathBuf {
        self.out.join("state").join(format!("{name}.json"))
    }

    fn fingerprint(&self, submission: &Submission) -> Option<String> {
        let salt = format!(
            "{}\n{}\nsandbox={}\nfast={}\n",
            env!("CARGO_PKG_VERSION"),
            self.rubric_text,
            self.sandbox,
            self.fast
        );
        fingerprint(&submission.path, salt.as_bytes())
            .ok()
            .map(|p| format!("{p:016x}"))
    }

    /// The grade kept for `name`, if it was graded from `print`.
    fn kept(&self, name: &str, print: &str) -> Option<StudentGrade> {
        let text = crate::files::class::read_small(&self.state_path(name), MAX_STATE).ok()??;
        let kept: Kept = serde_json::from_str(&text).ok()?;
        (kept.fingerprint == print).then_some(kept.grade)
    }

    fn keep(&self, name: &str, print: &str, grade: &StudentGrade) {
        let kept = Kept {
            fingerprint: print.to_string(),
            grade: grade.clone(),
        };
        if let Ok(text) = serde_json::to_string_pretty(&kept) {
            let path = self.state_path(name);
            // A grade that cannot be kept is graded again next time: nothing is lost.
            let _ = crate::files::class::make_folder(&self.out.join("state"));
            let _ = crate::files::save::write_atomic(&path, text.as_bytes());
        }
    }

    /// Grades one submission: unpacked, built, run, played and scored.
    fn grade_one(
        &self,
        submission: &Submission,
        specs: &[ItemSpec],
        event: &mut (dyn FnMut(Event<'_>) + Send),
    ) -> StudentGrade {
        let started = Instant::now();
        let name = submission.name.as_str();
        event(Event::Building);
        let (setup, note) = match self.prepare(submission) {
            Ok(ready) => ready,
            Err((why, note)) => {
                let mut grade = StudentGrade::without_run(name, specs, Standing::DidNotBuild, &why);
                if (self.stopped)() {
                    grade = StudentGrade::without_run(
                        name,
                        specs,
                        Standing::NotGraded,
                        "not graded: the grading was stopped during its build",
                    );
                }
                grade.build = note;
                grade.seconds = started.elapsed().as_secs_f64();
                self.keep_page(&grade, &[]);
                return grade;
            }
        };
        let (mut results, at_once, mut cut) = self.run_scripts(&setup, event);
        let count = self.scripts.len() as u64;
        // Each play run's name and keys, numbered after the scripts.
        let mut labels: Vec<(String, String)> = Vec::new();
        let plays = if cut {
            Vec::new()
        } else {
            let (plays, stopped) = self.run_plays(&setup, &mut results, &mut labels, event);
            cut = stopped;
            plays
        };
        let planned = results.len() + usize::from(cut);
        let result = ProgramResult::new(&setup.words.join(" "), &results, planned);
        let label = |script: u64| match script.checked_sub(count) {
            Some(k) => labels
                .get(usize::try_from(k).unwrap_or(usize::MAX))
                .map(|(label, _)| label.clone())
                .unwrap_or_default(),
            None => format!("script {script}"),
        };
        let items = score(specs, &result, &plays, self.rubric.unchecked_scores, &label);
        let scripts = results.len().min(self.scripts.len());
        let mut summary = format!(
            "{} of {} scripts failed",
            result.failed.min(scripts),
            scripts
        );
        for play in &plays {
            let reached = play
                .reached
                .map_or("no end of a game", crate::live::play::Reached::name);
            let _ = write!(summary, "; play {}: reached {reached}", play.play.name());
        }
        if let Some(why) = result.incomplete() {
            summary = format!("{why}. {summary}");
        }
        let mut grade = StudentGrade::graded(name, &result, items, summary);
        grade.at_once = at_once;
        grade.build = note;
        grade.seconds = started.elapsed().as_secs_f64();
        let command = shlex::try_join(setup.words.iter().map(String::as_str))
            .unwrap_or_else(|_| setup.words.join(" "));
        let shown: Vec<RunShown<'_>> = results
            .iter()
            .filter(|r| r.failed())
            .take(SHOWN_RUNS)
            .map(|r| {
                let keys = match r.script.checked_sub(count) {
                    None => self
                        .scripts
                        .get(usize::try_from(r.script).unwrap_or(usize::MAX))
                        .map(|(_, keys)| keys.as_str()),
                    Some(k) => labels
                        .get(usize::try_from(k).unwrap_or(usize::MAX))
                        .map(|(_, keys)| keys.as_str()),
                };
                let keys_file = format!("script-{:04}.keys", r.script);
                RunShown {
                    label: label(r.script),
                    keys: keys.unwrap_or(""),
                    report: &r.report,
                    problem: r.problem.as_ref().map(|p| p.words.clone()),
                    replay: replay_command(&command, &keys_file),
                    keys_file,
                }
            })
            .collect();
        self.keep_page(&grade, &shown);
        grade
    }

    /// The student's feedback page, `OUT/feedback/NAME.html`.
    fn keep_page(&self, grade: &StudentGrade, runs: &[RunShown<'_>]) {
        let folder = self.out.join("feedback");
        if crate::files::class::make_folder(&folder).is_ok() {
            let html = feedback::page(grade, runs);
            let path = folder.join(format!("{}.html", grade.student));
            let _ = crate::files::save::write_atomic(&path, html.as_bytes());
        }
    }

    /// The rubric's plays, each run's result added to `results` (labelled in `labels`, after
    /// the scripts'); the plays reached, and whether the grading was stopped first.
    fn run_plays(
        &self,
        setup: &Setup,
        results: &mut Vec<ScriptResult>,
        labels: &mut Vec<(String, String)>,
        event: &mut (dyn FnMut(Event<'_>) + Send),
    ) -> (Vec<PlayResult>, bool) {
        let count = self.scripts.len() as u64;
        let mut plays = Vec::new();
        let mut cut = false;
        for item in &self.rubric.plays {
            if (self.stopped)() {
                cut = true;
                break;
            }
            event(Event::Playing(&item.name()));
            let Ok(mut player) = (self.players)(item.size) else {
                continue;
            };
            let plan = Plan {
                goal: item.goal,
                size: item.size,
                player: &mut player,
                seed: self.rubric.seed,
                max_keys: 50_000,
                max_games: 3,
            };
            let Ok(outcome) = play(setup, plan) else {
                continue;
            };
            if outcome
                .runs
                .iter()
                .any(|r| r.outcome.ending == Ending::Stopped)
            {
                cut = true;
                break;
            }
            for (k, ran) in outcome.runs.iter().enumerate() {
                let script = count + labels.len() as u64;
                let label = format!(
                    "the play {} on {}x{} (run {})",
                    item.goal.name(),
                    item.size,
                    item.size,
                    k + 1
                );
                labels.push((label, ran.keys.clone()));
                if !ran.report.passed() || ran.problem().is_some() {
                    self.keep_failure(setup, script, ran);
                }
                results.push(ScriptResult {
                    script,
                    report: ran.report.clone(),
                    problem: ran.problem(),
                });
            }
            plays.push(PlayResult {
                play: *item,
                reached: outcome.reached,
                keys: outcome.keys,
            });
        }
        (plays, cut)
    }

    /// The submission's own copy built, and how its program runs; or why it has no program,
    /// with its build's note.
    // Called once a submission, and its error is a failed build's usual way out.
    #[allow(clippy::result_large_err)]
    fn prepare(
        &self,
        submission: &Submission,
    ) -> Result<(Setup, Option<BuildNote>), (String, Option<BuildNote>)> {
        let name = &submission.name;
        let work = self.out.join("work").join(name);
        let root = make_work(submission, &work, crate::files::archives::Caps::default())
            .map_err(|why| (why, None))?;
        let names = listing(&root).map_err(|e| (crate::files::system_words(&e), None))?;
        let plan = BuildPlan::detect(
            &names,
            self.rubric.build.as_deref(),
            self.rubric.run.as_deref(),
        )
        .map_err(|why| (format!("did not build: {why}"), None))?;
        let root_user = rustix::process::getuid().is_root();
        let before = executables(&root).unwrap_or_default();
        let mut note = None;
        if let Some(command) = &plan.command {
            if root_user {
                crate::files::sandbox::hand_over(&work, NOBODY, NOBODY)
                    .map_err(|e| (crate::files::system_words(&e), None))?;
            }
            let timeout = Duration::from_secs_f64(self.rubric.build_timeout);
            let built = build::build(command, &root, &self.covered, timeout, self.sandbox)
                .map_err(|e| (format!("did not build: {e}"), None))?;
            let log = self.keep_log(name, command, &built);
            let built_note = BuildNote {
                command: command.clone(),
                built: built.ok(),
                ended: built.ending.to_string(),
                log_end: built.log_end(12),
                log,
            };
            if !built.ok() {
                let why = format!(
                    "did not build: `{command}` {}; its log ends: {}",
                    built.ending,
                    built.log_end(3).replace('\n', " | ")
                );
                return Err((why, Some(built_note)));
            }
            note = Some(built_note);
        }
        if root_user {
            // Root's files are the program's own through its view (an idmapped mount).
            let _ = crate::files::sandbox::hand_over(&work, 0, 0);
        }
        let run = if let Some(run) = &plan.run {
            run.clone()
        } else {
            let after = executables(&root).unwrap_or_default();
            made_program(&before, &after, plan.made_in)
                .map_err(|why| (format!("did not build: {why}"), note.clone()))?
        };
        let words = shlex::split(&run)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| {
                (
                    format!("did not build: the run command '{run}' is not a command line"),
                    note.clone(),
                )
            })?;
        let timeout = self.rubric.timeout;
        let setup = Setup {
            words,
            origin: root,
            limits: Limits {
                memory: self.memory,
                ..Limits::default()
            },
            time_limit: Duration::from_secs_f64(timeout.unwrap_or(10.0)),
            per_key: if timeout.is_some() {
                Duration::ZERO
            } else {
                Duration::from_millis(50)
            },
            key_limit: timeout
                .is_none()
                .then_some(crate::runner::Spec::DEFAULT_TIME_LIMIT),
            options: Options {
                strict: self.rubric.strict,
                assignment: Assignment::Power11,
                before: SaveBefore::Nothing,
            },
            sandbox: self.sandbox,
            covered: self.covered.clone(),
        };
        Ok((setup, note))
    }

    /// The build's whole log kept in `OUT/logs/NAME.build.txt`; its path there, if kept.
    fn keep_log(&self, name: &str, command: &str, built: &Built) -> Option<String> {
        let relative = format!("logs/{name}.build.txt");
        let text = format!(
            "$ {command}\n{}\n[{} in {:.1} s]\n",
            built.log, built.ending, built.seconds
        );
        crate::files::class::make_folder(&self.out.join("logs")).ok()?;
        crate::files::save::write_atomic(&self.out.join(&relative), text.as_bytes()).ok()?;
        Some(relative)
    }

    /// Every script run, `jobs` at a time: the results in script order, how many passed fed
    /// at once, and whether the grading was stopped first.
    fn run_scripts(
        &self,
        setup: &Setup,
        event: &mut (dyn FnMut(Event<'_>) + Send),
    ) -> (Vec<ScriptResult>, usize, bool) {
        let total = self.scripts.len();
        let next = AtomicUsize::new(0);
        let finished = AtomicUsize::new(0);
        let at_once = AtomicUsize::new(0);
        let done: Mutex<Vec<Option<Done>>> = Mutex::new((0..total).map(|_| None).collect());
        let events = Mutex::new(event);
        std::thread::scope(|scope| {
            for _ in 0..self.jobs.clamp(1, total.max(1)) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= total || (self.stopped)() {
                            return;
                        }
                        let (script, keys) = &self.scripts[i];
                        let ran = if self.fast {
                            run_script(setup, keys, SaveBefore::Nothing, None)
                        } else {
                            run_keys(setup, keys, SaveBefore::Nothing, None).map(|r| (r, false))
                        };
                        let (ran, quick) = match ran {
                            Ok(ran) => ran,
                            Err(e) => {
                                let problem = crate::referee::grades::RunProblem {
                                    kind: "failed",
                                    words: format!("the run could not be made: {e}"),
                                };
                                let report =
                                    crate::referee::referee(keys, "", None, &setup.options);
                                let result = ScriptResult {
                                    script: *script,
                                    report,
                                    problem: Some(problem),
                                };
                                if let Ok(mut done) = done.lock() {
                                    done[i] = Some((result, None));
                                }
                                finished.fetch_add(1, Ordering::Relaxed);
                                continue;
                            }
                        };
                        if ran.outcome.ending == Ending::Stopped {
                            return;
                        }
                        at_once.fetch_add(usize::from(quick), Ordering::Relaxed);
                        let result = ScriptResult {
                            script: *script,
                            report: ran.report.clone(),
                            problem: ran.problem(),
                        };
                        let keep = result.failed().then_some(ran);
                        if let Ok(mut done) = done.lock() {
                            done[i] = Some((result, keep));
                        }
                        let n = finished.fetch_add(1, Ordering::Relaxed) + 1;
                        if let Ok(mut event) = events.lock() {
                            event(Event::Scripts { done: n, of: total });
                        }
                    }
                });
            }
        });
        let done: Vec<Option<(ScriptResult, Option<Ran>)>> = done.into_inner().unwrap_or_default();
        let cut = done.iter().any(Option::is_none);
        let mut results = Vec::new();
        let mut kept = 0;
        for (result, ran) in done.into_iter().flatten() {
            if let Some(ran) = ran
                && kept < KEPT_FAILURES
            {
                kept += 1;
                self.keep_failure(setup, result.script, &ran);
            }
            results.push(result);
        }
        (results, at_once.into_inner(), cut)
    }

    /// A failing script's keys and transcript, kept in `OUT/failures/NAME/` to replay.
    fn keep_failure(&self, setup: &Setup, script: u64, ran: &Ran) {
        let Some(name) = setup
            .origin
            .strip_prefix(self.out.join("work"))
            .ok()
            .and_then(|p| p.iter().next())
        else {
            return;
        };
        let folder = self.out.join("failures").join(name);
        if crate::files::class::make_folder(&folder).is_err() {
            return;
        }
        let _ = crate::files::save::write_atomic(
            &folder.join(format!("script-{script:04}.keys")),
            ran.keys.as_bytes(),
        );
        let _ = crate::files::save::write_atomic(
            &folder.join(format!("script-{script:04}.out")),
            &ran.transcript,
        );
    }
}
