//! A student's grade: each rubric item's points from the program's results over its scripts
//! and plays, with what a student reads beside them (where a rule broke first, both boards;
//! why an item earned nothing). A grade is data the gradebook's forms are written from alone,
//! and what `power11 grade` keeps to go on where it stopped, so it is serialisable.

use super::rubric::{PlayItem, Rubric};
use crate::live::play::{Goal, Reached};
use crate::referee::grades::{ProgramResult, RunProblem, finding_words, graded_rules};
use crate::referee::{Assignment, Rule};
use serde::{Deserialize, Serialize};

/// What an item of a grade is about.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ItemKind {
    /// A rule of the game or its format: it held, checked and never broken.
    Rule(Rule),
    /// Every run ended by itself: no crash, hang, flood or failing exit.
    Runs,
    /// A live play reached its goal.
    Play(PlayItem),
}

/// An item a grade is made of, and its most points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ItemSpec {
    /// What it grades.
    pub kind: ItemKind,
    /// Its most points.
    pub max: f64,
}

impl ItemSpec {
    /// Its name in the gradebook: the rule's name, `runs`, `play-win-4`.
    pub fn name(&self) -> String {
        match self.kind {
            ItemKind::Rule(rule) => rule.name().to_string(),
            ItemKind::Runs => "runs".to_string(),
            ItemKind::Play(play) => play.name(),
        }
    }

    /// Its title, as a test's name in Gradescope: what it asks in words, then its name.
    pub fn title(&self) -> String {
        let words = match self.kind {
            ItemKind::Rule(rule) => rule.words().to_string(),
            ItemKind::Runs => {
                "every run ends by itself, without a crash, a hang or output without end"
                    .to_string()
            }
            ItemKind::Play(play) => format!(
                "played live on {0}x{0}, it reaches {1}",
                play.size,
                match play.goal {
                    Goal::Win => "the win",
                    Goal::Lose => "the loss",
                    Goal::Explore => "the end of a game through undos, saves and a resume",
                }
            ),
        };
        format!("{words} [{}]", self.name())
    }
}

/// The items a rubric grades on, in the gradebook's order: each rule worth points, `runs`,
/// each play.
pub fn items_of(rubric: &Rubric) -> Vec<ItemSpec> {
    let mut items: Vec<ItemSpec> = rubric
        .rules
        .iter()
        .filter(|(rule, _)| rubric.points_of(*rule) > 0.0)
        .map(|&(rule, max)| ItemSpec {
            kind: ItemKind::Rule(rule),
            max,
        })
        .collect();
    if rubric.runs > 0.0 {
        items.push(ItemSpec {
            kind: ItemKind::Runs,
            max: rubric.runs,
        });
    }
    items.extend(rubric.plays.iter().map(|&play| ItemSpec {
        kind: ItemKind::Play(play),
        max: play.points,
    }));
    items
}

/// The referee's own items (`power11 referee --gradescope`): a point a rule of `assignment`
/// (a format rule worth one only if `strict`, else listed at 0), and one for the runs.
pub fn referee_items(assignment: Assignment, strict: bool) -> Vec<ItemSpec> {
    let mut items: Vec<ItemSpec> = graded_rules(assignment)
        .into_iter()
        .map(|rule| ItemSpec {
            kind: ItemKind::Rule(rule),
            max: if rule.is_format() && !strict {
                0.0
            } else {
                1.0
            },
        })
        .collect();
    items.push(ItemSpec {
        kind: ItemKind::Runs,
        max: 1.0,
    });
    items
}

/// How an item came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// It earned its points.
    Passed,
    /// A rule broke, or a play did not reach its goal.
    Failed,
    /// A run went wrong (a crash, a hang): a test in error, in JUnit's words.
    Error,
    /// No script or play reached it: not said to hold.
    NotChecked,
    /// The grading stopped before it was graded.
    NotGraded,
}

impl Outcome {
    /// Gradescope's status: `passed` or `failed`.
    pub fn status(self) -> &'static str {
        if self == Outcome::Passed {
            "passed"
        } else {
            "failed"
        }
    }
}

/// One item of a student's grade.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// Its name (`merge`, `runs`, `play-win-4`).
    pub name: String,
    /// What it asks, then its name.
    pub title: String,
    /// The points earned.
    pub points: f64,
    /// The most points.
    pub max: f64,
    /// How it came out.
    pub outcome: Outcome,
    /// In a line: what broke and how often, what went wrong, why it is not graded.
    pub message: String,
    /// The kind of fault: the rule's name, the run problem's kind, `interrupted`.
    pub kind: String,
    /// What a student reads: where it broke first, with both boards.
    pub output: String,
}

/// One play of a student's program, as a grade needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayResult {
    /// The play.
    pub play: PlayItem,
    /// What it reached, if a game's end.
    pub reached: Option<Reached>,
    /// The keys it played.
    pub keys: usize,
}

impl PlayResult {
    /// Whether it reached its goal.
    pub fn met(&self) -> bool {
        match self.play.goal {
            Goal::Win => self.reached == Some(Reached::Win),
            Goal::Lose => self.reached == Some(Reached::Loss),
            Goal::Explore => self.reached.is_some(),
        }
    }
}

/// What a script's number names: a script, or a run of a play (`label`'s words).
pub type Label<'a> = &'a dyn Fn(u64) -> String;

/// The items `specs` of a program whose scripts and plays' runs gave `result` (the plays'
/// runs numbered after the scripts, `label` naming each), its plays `plays`; a rule no run
/// reached earns its points only if `unchecked_scores`.
pub fn score(
    specs: &[ItemSpec],
    result: &ProgramResult,
    plays: &[PlayResult],
    unchecked_scores: bool,
    label: Label<'_>,
) -> Vec<Item> {
    // What a result counts: scripts, or with plays beside them, runs.
    let runs = if plays.is_empty() {
        "scripts"
    } else {
        "runs (scripts and plays)"
    };
    specs
        .iter()
        .map(|spec| {
            let mut item = match spec.kind {
                ItemKind::Rule(rule) => rule_item(rule, result, unchecked_scores, label, runs),
                ItemKind::Runs => runs_item(result, label, runs),
                ItemKind::Play(play) => play_item(play, plays, result),
            };
            item.name = spec.name();
            item.title = spec.title();
            item.max = spec.max;
            item.points = if item.outcome == Outcome::Passed {
                spec.max
            } else {
                0.0
            };
            item
        })
        .collect()
}

fn item(outcome: Outcome, message: String, kind: &str, output: String) -> Item {
    Item {
        name: String::new(),
        title: String::new(),
        points: 0.0,
        max: 0.0,
        outcome,
        message,
        kind: kind.to_string(),
        output,
    }
}

fn rule_item(
    rule: Rule,
    result: &ProgramResult,
    unchecked: bool,
    label: Label<'_>,
    runs: &str,
) -> Item {
    let broke = result.broke(rule);
    if broke > 0 {
        let first = result
            .first
            .iter()
            .find(|(_, f)| f.rule == rule)
            .map_or_else(String::new, |(script, f)| finding_words(&label(*script), f));
        return item(
            Outcome::Failed,
            format!(
                "{}: broken in {broke} of {} {runs}",
                rule.words(),
                result.scripts
            ),
            rule.name(),
            format!(
                "broken in {broke} of {} {runs}; first:\n{first}",
                result.scripts
            ),
        );
    }
    if let Some(why) = result.incomplete() {
        return item(Outcome::NotGraded, why.clone(), "interrupted", why);
    }
    let times = result.times_checked(rule);
    if times == 0 && !unchecked {
        let why = format!(
            "not checked: none of its {} {runs} reached a board or key this rule applies to, so it is not said to hold (no point)",
            result.scripts
        );
        return item(Outcome::NotChecked, why.clone(), "not-checked", why);
    }
    let output = if times == 0 {
        "not checked, and given its points all the same (the rubric's unchecked-scores)".into()
    } else {
        let times = match times {
            1 => "once".to_string(),
            n => format!("{n} times"),
        };
        format!("held: checked {times}")
    };
    item(Outcome::Passed, String::new(), rule.name(), output)
}

fn runs_item(result: &ProgramResult, label: Label<'_>, runs: &str) -> Item {
    match (&result.first_problem, result.incomplete()) {
        (Some((script, problem)), _) => {
            let RunProblem { kind, words } = problem;
            let words = format!(
                "{} of {} {runs} went wrong; first, {}: {words}",
                result.problems,
                result.scripts,
                label(*script)
            );
            item(Outcome::Error, words.clone(), kind, words)
        }
        (None, Some(why)) => item(Outcome::NotGraded, why.clone(), "interrupted", why),
        (None, None) => item(Outcome::Passed, String::new(), "runs", String::new()),
    }
}

fn play_item(play: PlayItem, plays: &[PlayResult], result: &ProgramResult) -> Item {
    let Some(played) = plays.iter().find(|p| p.play.name() == play.name()) else {
        let why = result
            .incomplete()
            .unwrap_or_else(|| "not graded: the grading was stopped before this play".into());
        return item(Outcome::NotGraded, why.clone(), "interrupted", why);
    };
    let reached = played.reached.map_or("no end of a game", Reached::name);
    if played.met() {
        return item(
            Outcome::Passed,
            String::new(),
            "play",
            format!("reached {reached} in {} keys", played.keys),
        );
    }
    item(
        Outcome::Failed,
        format!("did not reach its goal: reached {reached}"),
        "play",
        format!(
            "played {} keys and reached {reached}: the goal was {}",
            played.keys,
            play.goal.name()
        ),
    )
}

/// How a student's submission fared as a whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// Built, run and graded.
    Graded,
    /// Its build failed (or its archive was refused): no point.
    DidNotBuild,
    /// The grading stopped before it was graded whole: no grade.
    NotGraded,
}

impl Standing {
    /// As the gradebook spells it.
    pub fn name(self) -> &'static str {
        match self {
            Standing::Graded => "graded",
            Standing::DidNotBuild => "did-not-build",
            Standing::NotGraded => "not-graded",
        }
    }
}

/// One student's grade: what the gradebook's forms are written from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StudentGrade {
    /// The student (the submission's name), or the program's command for the referee.
    pub student: String,
    /// How it fared.
    pub standing: Standing,
    /// The points earned, all items together.
    pub total: f64,
    /// The most points.
    pub max: f64,
    /// Each item, in the rubric's order.
    pub items: Vec<Item>,
    /// The whole grade in a line: scripts failed, or why it has no grade.
    pub summary: String,
    /// The first thing that went wrong, in a line (the summary table's last column).
    pub first_finding: Option<String>,
    /// What was run, as typed.
    pub command: String,
    /// Scripts run, of those planned, and how many failed; how many passed at once.
    pub scripts: usize,
    /// Scripts it was to run.
    pub planned: usize,
    /// Scripts that failed.
    pub failed: usize,
    /// Scripts that passed fed at once (not key by key).
    pub at_once: usize,
    /// Seconds its grading took, its build's included.
    pub seconds: f64,
    /// Its build, if one ran: the command and the end of its log.
    pub build: Option<BuildNote>,
}

/// A build, as a grade keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildNote {
    /// The build's command, or how the archive was unpacked.
    pub command: String,
    /// Whether it built.
    pub built: bool,
    /// How it ended, in words.
    pub ended: String,
    /// Its log's last lines.
    pub log_end: String,
    /// Where its whole log is (relative to the output folder).
    pub log: Option<String>,
}

impl StudentGrade {
    /// The grade of `student` from its `items` (a graded program).
    pub fn graded(
        student: &str,
        result: &ProgramResult,
        items: Vec<Item>,
        summary: String,
    ) -> Self {
        let complete = result.not_run() == 0;
        let first_finding = items
            .iter()
            .find(|i| matches!(i.outcome, Outcome::Failed | Outcome::Error))
            .map(|i| format!("{}: {}", i.name, i.message));
        StudentGrade {
            student: student.to_string(),
            standing: if complete {
                Standing::Graded
            } else {
                Standing::NotGraded
            },
            total: items.iter().map(|i| i.points).sum(),
            max: items.iter().map(|i| i.max).sum(),
            items,
            summary,
            first_finding,
            command: result.command.clone(),
            scripts: result.scripts,
            planned: result.planned,
            failed: result.failed,
            at_once: 0,
            seconds: 0.0,
            build: None,
        }
    }

    /// The grade of a submission that earned nothing before it ran: it did not build (or
    /// its archive was refused), or the grading stopped first; `why` in a line.
    pub fn without_run(student: &str, specs: &[ItemSpec], standing: Standing, why: &str) -> Self {
        let outcome = if standing == Standing::NotGraded {
            Outcome::NotGraded
        } else {
            Outcome::Failed
        };
        let items: Vec<Item> = specs
            .iter()
            .map(|spec| Item {
                name: spec.name(),
                title: spec.title(),
                points: 0.0,
                max: spec.max,
                outcome,
                message: why.to_string(),
                kind: standing.name().to_string(),
                output: why.to_string(),
            })
            .collect();
        StudentGrade {
            student: student.to_string(),
            standing,
            total: 0.0,
            max: items.iter().map(|i| i.max).sum(),
            items,
            summary: why.to_string(),
            first_finding: (standing == Standing::DidNotBuild).then(|| why.to_string()),
            command: String::new(),
            scripts: 0,
            planned: 0,
            failed: 0,
            at_once: 0,
            seconds: 0.0,
            build: None,
        }
    }
}
