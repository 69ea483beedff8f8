//! A class graded at once: each program's results over the same scripts, and the forms
//! graders read them in: a table in words (program by rule), Gradescope's `results.json`
//! (a test a rule) and JUnit XML (a test suite a program, a test case a rule). Pure: the
//! command line runs the programs and writes the files.
//!
//! Formats, as published: Gradescope's autograder specification (`results.json`: `score`,
//! `execution_time`, `output`, `tests` of `name`, `number`, `score`, `max_score`, `status`,
//! `output`), and JUnit XML as Jenkins reads it (`testsuites` of `testsuite` with `name`,
//! `tests`, `failures`, `errors`, `skipped`, `time`; `testcase` with `name`, `classname`,
//! `time`, and a `failure` or `error` with `message` and `type`).

use super::{Assignment, Finding, Report, Rule, boards_side_by_side};
use std::fmt::Write as _;

/// What went wrong with a run itself, apart from the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct RunProblem {
    /// `crashed`, `hung`, `flooded` or `left-running` (it did not exit at the end of its
    /// input).
    pub kind: &'static str,
    /// In words, the key it was answering where known.
    pub words: String,
}

/// One script's outcome for one program: its report, and what went wrong with the run.
#[derive(Clone, Debug)]
pub struct ScriptResult {
    /// The script's number.
    pub script: u64,
    /// The referee's report of the run.
    pub report: Report,
    /// What went wrong with the run itself, if anything.
    pub problem: Option<RunProblem>,
}

impl ScriptResult {
    /// Whether the run failed: a rule broken, or the run itself went wrong.
    pub fn failed(&self) -> bool {
        !self.report.passed() || self.problem.is_some()
    }
}

/// One program's results over a class's scripts.
#[derive(Clone, Debug)]
pub struct ProgramResult {
    /// The command that ran it, as given.
    pub command: String,
    /// How many scripts it ran.
    pub scripts: usize,
    /// How many it was to run: more than it ran when the grading was stopped before its end,
    /// and then nothing it did not run counts as passed.
    pub planned: usize,
    /// How many failed.
    pub failed: usize,
    /// Each rule broken and in how many scripts, in the order of [`Rule::ALL`].
    pub rules: Vec<(Rule, usize)>,
    /// How many runs exited with a code other than 0, crashed, hung or flooded.
    pub problems: usize,
    /// The first instance of each broken rule, with its script's number.
    pub first: Vec<(u64, Finding)>,
    /// The first run problem, with its script's number.
    pub first_problem: Option<(u64, RunProblem)>,
    /// How many times each rule was checked over all its scripts (those never checked left
    /// out): a rule it never broke holds only if it was checked.
    pub checked: Vec<(Rule, u64)>,
}

impl ProgramResult {
    /// The results of `command` over `results` (one per script, in script order), of the
    /// `planned` scripts it was to run.
    pub fn new(command: &str, results: &[ScriptResult], planned: usize) -> ProgramResult {
        let mut rules: Vec<(Rule, usize)> = Vec::new();
        let mut first: Vec<(u64, Finding)> = Vec::new();
        for result in results {
            for broken in &result.report.rules {
                match rules.iter_mut().find(|(rule, _)| *rule == broken.rule) {
                    Some((_, n)) => *n += 1,
                    None => rules.push((broken.rule, 1)),
                }
                let instance = result
                    .report
                    .violations
                    .iter()
                    .find(|f| f.rule == broken.rule);
                if let Some(finding) = instance
                    && !first.iter().any(|(_, f)| f.rule == broken.rule)
                {
                    first.push((result.script, finding.clone()));
                }
            }
        }
        rules.sort_by_key(|(rule, _)| rule.index());
        let first_problem = results
            .iter()
            .find_map(|r| r.problem.clone().map(|p| (r.script, p)));
        let mut checked: Vec<(Rule, u64)> = Vec::new();
        for result in results {
            for check in &result.report.checked {
                match checked.iter_mut().find(|(rule, _)| *rule == check.rule) {
                    Some((_, n)) => *n += u64::from(check.times),
                    None => checked.push((check.rule, u64::from(check.times))),
                }
            }
        }
        checked.sort_by_key(|(rule, _)| rule.index());
        ProgramResult {
            command: command.to_string(),
            scripts: results.len(),
            planned: planned.max(results.len()),
            failed: results.iter().filter(|r| r.failed()).count(),
            rules,
            problems: results.iter().filter(|r| r.problem.is_some()).count(),
            first,
            first_problem,
            checked,
        }
    }

    /// How many times `rule` was checked over its scripts (0: no script reached it).
    pub fn times_checked(&self, rule: Rule) -> u64 {
        self.checked
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or(0, |&(_, n)| n)
    }

    /// Why `rule`, which it never broke, is not said to hold: no script reached it.
    fn unreached(&self, rule: Rule) -> Option<String> {
        (self.broke(rule) == 0 && self.times_checked(rule) == 0).then(|| {
            format!(
                "not checked: none of its {} scripts reached a board or key this rule applies to, so it is not said to hold (no point)",
                self.scripts
            )
        })
    }

    /// The program's name, as a class table shows it: the folder and file of the last word of
    /// its command that names one (`alice/student.py` for `python3 /class/alice/student.py`),
    /// else its command.
    pub fn name(&self) -> String {
        let path = self
            .command
            .split_whitespace()
            .rev()
            .find(|w| w.contains('/') && !w.starts_with('-'));
        match path {
            Some(path) => {
                let path = std::path::Path::new(path);
                let file = path.file_name().map(|f| f.to_string_lossy().into_owned());
                let folder = path
                    .parent()
                    .and_then(std::path::Path::file_name)
                    .map(|f| f.to_string_lossy().into_owned());
                match (folder, file) {
                    (Some(folder), Some(file)) => format!("{folder}/{file}"),
                    (None, Some(file)) => file,
                    _ => self.command.clone(),
                }
            }
            None => self.command.clone(),
        }
    }

    /// The rules it broke in words, a line each: the rule, how many scripts broke it, the
    /// first: the summary a long run of scripts ends with.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for (rule, scripts) in &self.rules {
            let first = self
                .first
                .iter()
                .find(|(_, f)| f.rule == *rule)
                .map_or(String::new(), |(script, _)| {
                    format!(", first script {script}")
                });
            let _ = writeln!(
                out,
                "  {:<20} broken in {scripts} of {} scripts{first}",
                rule.name(),
                self.scripts
            );
        }
        if self.problems > 0 {
            let first = self
                .first_problem
                .as_ref()
                .map_or(String::new(), |(script, p)| {
                    format!(", first script {script} ({})", p.kind)
                });
            let _ = writeln!(
                out,
                "  {:<20} {} of {} runs went wrong{first}",
                "runs", self.problems, self.scripts
            );
        }
        out
    }

    /// How many of its scripts were not run (the grading was stopped first).
    pub fn not_run(&self) -> usize {
        self.planned - self.scripts
    }

    /// Why its grade is not whole, in words, when it is not: the scripts not run.
    pub fn incomplete(&self) -> Option<String> {
        (self.not_run() > 0).then(|| {
            format!(
                "not graded: the grading was stopped after {} of {} scripts; nothing it did not run counts as passed",
                self.scripts, self.planned
            )
        })
    }

    /// How many scripts broke `rule`.
    pub fn broke(&self, rule: Rule) -> usize {
        self.rules
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or(0, |&(_, n)| n)
    }
}

/// `text` with what XML 1.0 cannot hold (control characters) in caret notation, and its
/// markup characters escaped.
fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' | '\t' => out.push(c),
            c => out.push_str(&crate::text::visible(c)),
        }
    }
    out
}

/// A finding in words, for a grading system's output: where, what, and both boards.
fn instance_words(script: u64, finding: &Finding) -> String {
    let mut out = format!("script {script}");
    if let Some(board) = finding.board {
        let _ = write!(out, ", board {board}");
    }
    if let Some(key) = finding.key {
        let _ = write!(out, ", key {} '{}'", key.index, key.key);
    }
    let _ = writeln!(out, ": {}", finding.detail);
    out.push_str(&boards_side_by_side(finding));
    out
}

/// The rules graded for `assignment`: its game's rules, then its format's (graded under
/// `--strict` only).
pub fn graded_rules(assignment: Assignment) -> Vec<Rule> {
    Rule::ALL
        .iter()
        .copied()
        .filter(|&rule| assignment.has_rule(rule))
        .collect()
}

/// The results as a table in words: a row a program, a column a broken rule, each cell the
/// number of scripts that broke it.
pub fn table(programs: &[ProgramResult]) -> String {
    let mut columns: Vec<Rule> = Vec::new();
    for program in programs {
        for &(rule, _) in &program.rules {
            if !columns.contains(&rule) {
                columns.push(rule);
            }
        }
    }
    columns.sort_by_key(|rule| rule.index());
    let names: Vec<String> = programs.iter().map(ProgramResult::name).collect();
    let width = names
        .iter()
        .map(|name| name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(7, 40);
    let shorten = |text: &str| -> String {
        let visible: String = text.chars().map(crate::text::visible).collect();
        if visible.chars().count() <= width {
            visible
        } else {
            // A name starts with what tells one student's from another's (its folder).
            let kept: String = visible.chars().take(width - 1).collect();
            format!("{kept}…")
        }
    };
    let mut out = String::new();
    let _ = write!(out, "{:<width$}  failed", "program");
    for rule in &columns {
        let _ = write!(out, "  {}", rule.name());
    }
    out.push_str("  run problems\n");
    for program in programs {
        let failed = format!("{}/{}", program.failed, program.scripts);
        let _ = write!(out, "{:<width$}  {failed:>6}", shorten(&program.name()));
        for rule in &columns {
            let n = program.broke(*rule);
            let cell = if n == 0 {
                ".".to_string()
            } else {
                n.to_string()
            };
            let _ = write!(out, "  {cell:>w$}", w = rule.name().len());
        }
        let problems = if program.problems == 0 {
            ".".to_string()
        } else {
            program.problems.to_string()
        };
        let _ = writeln!(out, "  {problems:>12}");
    }
    out
}

/// One test of a Gradescope `results.json`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct GradescopeTest {
    /// The test's name: the rule in words, and its stable name.
    pub name: String,
    /// Its number, in the order of the rules.
    pub number: String,
    /// The points earned.
    pub score: f64,
    /// The points it is worth.
    pub max_score: f64,
    /// `passed` or `failed`.
    pub status: &'static str,
    /// Where it broke first, with both boards (empty if it held).
    pub output: String,
}

/// Gradescope's `results.json` for one submission.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Gradescope {
    /// The points earned, all tests together.
    pub score: f64,
    /// How long the grading took, in whole seconds.
    pub execution_time: u64,
    /// The whole submission in a line.
    pub output: String,
    /// A test a rule, and one for the runs themselves.
    pub tests: Vec<GradescopeTest>,
}

/// `program`'s results as Gradescope reads them: a test a rule of `assignment` (a point each;
/// a format rule is worth a point only if `strict`), and a test that every run ended well.
pub fn gradescope(
    program: &ProgramResult,
    assignment: Assignment,
    strict: bool,
    seconds: f64,
) -> Gradescope {
    let mut tests = Vec::new();
    for (i, rule) in graded_rules(assignment).into_iter().enumerate() {
        let broke = program.broke(rule);
        let max_score = if rule.is_format() && !strict {
            0.0
        } else {
            1.0
        };
        let output = program
            .first
            .iter()
            .find(|(_, f)| f.rule == rule)
            .map_or_else(String::new, |(script, finding)| {
                format!(
                    "broken in {broke} of {} scripts; first:\n{}",
                    program.scripts,
                    instance_words(*script, finding)
                )
            });
        // A rule that held in the scripts run holds only if every script was run, and only
        // if some script reached it.
        let unreached = program.unreached(rule);
        let held = broke == 0 && program.not_run() == 0 && unreached.is_none();
        let output = match (program.incomplete(), unreached) {
            (Some(why), _) if broke == 0 => why,
            (None, Some(why)) => why,
            _ if held => format!("held: checked {} times", program.times_checked(rule)),
            _ => output,
        };
        tests.push(GradescopeTest {
            name: format!("{} [{}]", rule.words(), rule.name()),
            number: format!("{}", i + 1),
            score: if held { max_score } else { 0.0 },
            max_score,
            status: if held { "passed" } else { "failed" },
            output,
        });
    }
    let runs_ok = program.problems == 0 && program.not_run() == 0;
    tests.push(GradescopeTest {
        name: "every run ends by itself, without a crash, a hang or output without end [runs]"
            .to_string(),
        number: format!("{}", tests.len() + 1),
        score: if runs_ok { 1.0 } else { 0.0 },
        max_score: 1.0,
        status: if runs_ok { "passed" } else { "failed" },
        output: program.first_problem.as_ref().map_or_else(
            || program.incomplete().unwrap_or_default(),
            |(script, problem)| {
                format!(
                    "{} of {} runs went wrong; first, script {script}: {}",
                    program.problems, program.scripts, problem.words
                )
            },
        ),
    });
    let summary = format!(
        "{} of {} scripts failed ({})",
        program.failed,
        program.scripts,
        assignment.name()
    );
    Gradescope {
        score: tests.iter().map(|t| t.score).sum(),
        execution_time: seconds.max(0.0).round() as u64,
        output: match program.incomplete() {
            Some(why) => format!("{why}. {summary}"),
            None => summary,
        },
        tests,
    }
}

/// The programs' results as JUnit XML: a test suite a program, a test case a rule of
/// `assignment` (format rules only if `strict`) and one for the runs, each broken rule a
/// `failure`, each run problem an `error`; a grading stopped before its end adds a test case
/// `complete` in error, and what held in the scripts run is `skipped`, not passed.
pub fn junit(
    programs: &[ProgramResult],
    assignment: Assignment,
    strict: bool,
    seconds: f64,
) -> String {
    let rules: Vec<Rule> = graded_rules(assignment)
        .into_iter()
        .filter(|rule| strict || !rule.is_format())
        .collect();
    let counts: Vec<SuiteCounts> = programs
        .iter()
        .map(|p| SuiteCounts::of(p, &rules))
        .collect();
    let sum = |field: fn(&SuiteCounts) -> usize| counts.iter().map(field).sum::<usize>();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"power11 referee\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{seconds:.3}\">",
        sum(|c| c.tests),
        sum(|c| c.failures),
        sum(|c| c.errors),
        sum(|c| c.skipped)
    );
    let class = format!("power11.referee.{}", assignment.name());
    for (program, counts) in programs.iter().zip(&counts) {
        junit_suite(&mut out, program, counts, &rules, &class);
    }
    out.push_str("</testsuites>\n");
    out
}

/// A JUnit test suite's counts.
struct SuiteCounts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl SuiteCounts {
    fn of(program: &ProgramResult, rules: &[Rule]) -> SuiteCounts {
        let incomplete = program.not_run() > 0;
        let unbroken = rules.iter().filter(|&&r| program.broke(r) == 0).count();
        let unreached = rules
            .iter()
            .filter(|&&r| program.unreached(r).is_some())
            .count();
        SuiteCounts {
            tests: rules.len() + 1 + usize::from(incomplete),
            failures: rules.len() - unbroken,
            errors: usize::from(program.problems > 0) + usize::from(incomplete),
            skipped: if incomplete {
                unbroken + usize::from(program.problems == 0)
            } else {
                unreached
            },
        }
    }
}

/// A test case with nothing in it (it passed), or `why` it was skipped.
fn passed_or_skipped(out: &mut String, skipped: Option<&String>) {
    match skipped {
        Some(why) => {
            let _ = writeln!(
                out,
                ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                xml_text(why)
            );
        }
        None => out.push_str("/>\n"),
    }
}

/// One program's JUnit test suite.
fn junit_suite(
    out: &mut String,
    program: &ProgramResult,
    counts: &SuiteCounts,
    rules: &[Rule],
    class: &str,
) {
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
        xml_text(&program.command),
        counts.tests,
        counts.failures,
        counts.errors,
        counts.skipped
    );
    let incomplete = program.incomplete();
    for &rule in rules {
        let _ = write!(
            out,
            "    <testcase name=\"{}\" classname=\"{class}\" time=\"0\"",
            rule.name()
        );
        let broke = program.broke(rule);
        if broke == 0 {
            let skipped = incomplete.clone().or_else(|| program.unreached(rule));
            passed_or_skipped(out, skipped.as_ref());
            continue;
        }
        let first = program
            .first
            .iter()
            .find(|(_, f)| f.rule == rule)
            .map_or_else(String::new, |(script, f)| instance_words(*script, f));
        let _ = writeln!(
            out,
            ">\n      <failure message=\"{}: broken in {broke} of {} scripts\" type=\"{}\">{}</failure>\n    </testcase>",
            xml_text(rule.words()),
            program.scripts,
            rule.name(),
            xml_text(&first)
        );
    }
    let _ = write!(
        out,
        "    <testcase name=\"runs\" classname=\"{class}\" time=\"0\""
    );
    match &program.first_problem {
        None => passed_or_skipped(out, incomplete.as_ref()),
        Some((script, problem)) => {
            let _ = writeln!(
                out,
                ">\n      <error message=\"{} of {} runs went wrong\" type=\"{}\">script {script}: {}</error>\n    </testcase>",
                program.problems,
                program.scripts,
                problem.kind,
                xml_text(&problem.words)
            );
        }
    }
    if let Some(why) = &incomplete {
        let _ = writeln!(
            out,
            "    <testcase name=\"complete\" classname=\"{class}\" time=\"0\">\n      <error message=\"{}\" type=\"interrupted\"/>\n    </testcase>",
            xml_text(why)
        );
    }
    out.push_str("  </testsuite>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::{Options, referee};

    fn result(script: u64, keys: &str, transcript: &str) -> ScriptResult {
        ScriptResult {
            script,
            report: referee(keys, transcript, None, &Options::default()),
            problem: None,
        }
    }

    /// Regression (new users, round 3): the class table cut each command from the left,
    /// which hid the student's folder. It shows each program's folder and file first.
    #[test]
    fn the_table_names_each_program_by_its_folder_and_file() {
        let long = "python3 /home/grader/submissions/2026/section-b/";
        let a = ProgramResult::new(
            &format!("{long}alice/student.py --x"),
            &[result(0, "h\n", "")],
            1,
        );
        let b = ProgramResult::new(&format!("{long}bob/student.py"), &[result(0, "h\n", "")], 1);
        let c = ProgramResult::new("./theirs", &[result(0, "h\n", "")], 1);
        assert_eq!(a.name(), "alice/student.py");
        assert_eq!(c.name(), "theirs");
        let table = table(&[a, b, c]);
        let rows: Vec<&str> = table.lines().skip(1).collect();
        assert!(rows[0].starts_with("alice/student.py "), "{table}");
        assert!(rows[1].starts_with("bob/student.py "), "{table}");
        assert!(rows[2].starts_with("theirs "), "{table}");
    }

    #[test]
    fn xml_text_escapes_markup_and_control_characters() {
        assert_eq!(
            xml_text("a<b & \"c\"\u{1b}[2J\n"),
            "a&lt;b &amp; &quot;c&quot;^[[2J\n"
        );
    }

    #[test]
    fn a_program_that_prints_nothing_fails_every_test_it_reaches() {
        let bad = ProgramResult::new("./bad", &[result(0, "h\nl\n", ""), result(1, "h\n", "")], 2);
        assert_eq!((bad.scripts, bad.failed), (2, 2));
        assert_eq!(bad.rules, [(Rule::MissingBoard, 2)]);
        let grades = gradescope(&bad, Assignment::Power11, false, 1.4);
        let missing = grades
            .tests
            .iter()
            .find(|t| t.name.ends_with("[missing-board]"))
            .unwrap();
        assert_eq!((missing.status, missing.score), ("failed", 0.0));
        assert!(
            missing
                .output
                .starts_with("broken in 2 of 2 scripts; first:\nscript 0")
        );
        assert_eq!(grades.execution_time, 1);
        let game_rules = graded_rules(Assignment::Power11)
            .iter()
            .filter(|r| !r.is_format())
            .count();
        // Every game rule its keys reached but the one broken, and the runs; a rule no key
        // reached (the win's, the undo's) earns nothing, and says why.
        let reached = graded_rules(Assignment::Power11)
            .into_iter()
            .filter(|&r| !r.is_format() && bad.broke(r) == 0 && bad.times_checked(r) > 0)
            .count();
        assert!(reached > 3 && reached < game_rules - 1, "{reached}");
        assert!(
            (grades.score - (reached + 1) as f64).abs() < 1e-9,
            "{}",
            grades.score
        );
        let win = grades
            .tests
            .iter()
            .find(|t| t.name.ends_with("[win-not-announced]"))
            .unwrap();
        assert_eq!((win.status, win.score), ("failed", 0.0));
        assert!(win.output.starts_with("not checked: "), "{}", win.output);
        let xml = junit(&[bad], Assignment::Power11, false, 1.0);
        assert!(xml.contains("<failure message=\"a key that changes the game is followed by its board: broken in 2 of 2 scripts\" type=\"missing-board\">"), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), game_rules + 1);
    }

    #[test]
    fn a_grading_stopped_halfway_gives_nothing_it_did_not_run() {
        let good = "h\n";
        let transcript = "";
        let half = ProgramResult::new("./good", &[result(0, good, transcript)], 4);
        assert_eq!((half.scripts, half.planned, half.not_run()), (1, 4, 3));
        let grades = gradescope(&half, Assignment::Power11, false, 1.0);
        assert!(grades.score.abs() < f64::EPSILON, "{grades:?}");
        assert!(
            grades
                .output
                .starts_with("not graded: the grading was stopped after 1 of 4 scripts")
        );
        assert!(grades.tests.iter().all(|t| t.status == "failed"));
        let xml = junit(&[half], Assignment::Power11, false, 1.0);
        assert!(xml.contains("<testcase name=\"complete\""), "{xml}");
        assert!(xml.contains("type=\"interrupted\""), "{xml}");
        assert!(xml.contains("<skipped message=\"not graded: "), "{xml}");
        let whole = ProgramResult::new("./good", &[result(0, good, transcript)], 1);
        assert!(whole.incomplete().is_none());
        assert!(
            !junit(&[whole], Assignment::Power11, false, 1.0)
                .contains("skipped message=\"not graded")
        );
    }
}
