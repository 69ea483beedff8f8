//! The forms graders read a class's grades in, each written from the students' grades alone:
//! Gradescope's `results.json` (a test an item), JUnit XML (a test suite a student, a test
//! case an item), a CSV row a student (total, maximum, a column an item, as a spreadsheet
//! opens it and learning management systems import it) and the class's JSON. Pure: text in
//! memory, written atomically by the caller.
//!
//! Formats, as published: Gradescope's autograder specification (`results.json`: `score`,
//! `execution_time`, `output`, `tests` of `name`, `number`, `score`, `max_score`, `status`,
//! `output`), and JUnit XML as Jenkins reads it (`testsuites` of `testsuite` with `name`,
//! `tests`, `failures`, `errors`, `skipped`, `time`; `testcase` with `name`, `classname`,
//! `time`, and a `failure`, `error` or `skipped` with `message` and `type`).

use super::scoring::{Outcome, Standing, StudentGrade};
use serde::Serialize;
use std::fmt::Write as _;

/// One test of a Gradescope `results.json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GradescopeTest {
    /// The test's name: the item in words, and its name.
    pub name: String,
    /// Its number, in the rubric's order.
    pub number: String,
    /// The points earned.
    pub score: f64,
    /// The points it is worth.
    pub max_score: f64,
    /// `passed` or `failed`.
    pub status: &'static str,
    /// What the student reads: where it broke first, with both boards.
    pub output: String,
}

/// Gradescope's `results.json` for one submission.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gradescope {
    /// The points earned, all tests together.
    pub score: f64,
    /// How long the grading took, in whole seconds.
    pub execution_time: u64,
    /// The whole submission in a line.
    pub output: String,
    /// A test an item.
    pub tests: Vec<GradescopeTest>,
}

/// `grade` as Gradescope reads it.
pub fn gradescope(grade: &StudentGrade) -> Gradescope {
    let tests: Vec<GradescopeTest> = grade
        .items
        .iter()
        .enumerate()
        .map(|(i, item)| GradescopeTest {
            name: item.title.clone(),
            number: format!("{}", i + 1),
            score: item.points,
            max_score: item.max,
            status: item.outcome.status(),
            output: item.output.clone(),
        })
        .collect();
    Gradescope {
        score: tests.iter().map(|t| t.score).sum(),
        execution_time: grade.seconds.max(0.0).round() as u64,
        output: grade.summary.clone(),
        tests,
    }
}

/// `text` with what XML 1.0 cannot hold (control characters) in caret notation, and its
/// markup characters escaped.
pub fn xml_text(text: &str) -> String {
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

/// A JUnit test suite's counts.
#[derive(Default)]
struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    /// The counts of `grade`'s suite: an item worth points a test case, and one more, in
    /// error, for a grading stopped before its end.
    fn of(grade: &StudentGrade) -> Counts {
        let mut counts = Counts::default();
        for item in grade.items.iter().filter(|i| i.max > 0.0) {
            counts.tests += 1;
            match item.outcome {
                Outcome::Passed => {}
                Outcome::Failed => counts.failures += 1,
                Outcome::Error => counts.errors += 1,
                Outcome::NotChecked | Outcome::NotGraded => counts.skipped += 1,
            }
        }
        if grade.standing == Standing::NotGraded {
            counts.tests += 1;
            counts.errors += 1;
        }
        counts
    }
}

/// The students' grades as JUnit XML: a test suite a student (named `name` says how), a test
/// case an item worth points, each broken rule or unmet play a `failure`, each run problem
/// an `error`, an item not checked or not graded `skipped`; a grading stopped before its end
/// adds a test case `complete` in error. `suites` names the whole, `class` each case's class.
pub fn junit(
    grades: &[StudentGrade],
    suites: &str,
    class: &str,
    name: impl Fn(&StudentGrade) -> String,
    seconds: f64,
) -> String {
    let counts: Vec<Counts> = grades.iter().map(Counts::of).collect();
    let sum = |field: fn(&Counts) -> usize| counts.iter().map(field).sum::<usize>();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{seconds:.3}\">",
        xml_text(suites),
        sum(|c| c.tests),
        sum(|c| c.failures),
        sum(|c| c.errors),
        sum(|c| c.skipped)
    );
    for (grade, counts) in grades.iter().zip(&counts) {
        suite(&mut out, grade, counts, &name(grade), class);
    }
    out.push_str("</testsuites>\n");
    out
}

/// One student's JUnit test suite.
fn suite(out: &mut String, grade: &StudentGrade, counts: &Counts, name: &str, class: &str) {
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3}\">",
        xml_text(name),
        counts.tests,
        counts.failures,
        counts.errors,
        counts.skipped,
        grade.seconds.max(0.0)
    );
    let class = xml_text(class);
    for item in grade.items.iter().filter(|i| i.max > 0.0) {
        let _ = write!(
            out,
            "    <testcase name=\"{}\" classname=\"{class}\" time=\"0\"",
            xml_text(&item.name)
        );
        let (tag, body) = match item.outcome {
            Outcome::Passed => {
                out.push_str("/>\n");
                continue;
            }
            Outcome::Failed => ("failure", true),
            Outcome::Error => ("error", true),
            Outcome::NotChecked | Outcome::NotGraded => ("skipped", false),
        };
        if body {
            let _ = writeln!(
                out,
                ">\n      <{tag} message=\"{}\" type=\"{}\">{}</{tag}>\n    </testcase>",
                xml_text(&item.message),
                xml_text(&item.kind),
                xml_text(&item.output)
            );
        } else {
            let _ = writeln!(
                out,
                ">\n      <{tag} message=\"{}\"/>\n    </testcase>",
                xml_text(&item.message)
            );
        }
    }
    if grade.standing == Standing::NotGraded {
        let _ = writeln!(
            out,
            "    <testcase name=\"complete\" classname=\"{class}\" time=\"0\">\n      <error message=\"{}\" type=\"interrupted\"/>\n    </testcase>",
            xml_text(&grade.summary)
        );
    }
    out.push_str("  </testsuite>\n");
}

/// A number as a spreadsheet reads it: whole numbers without a point, others to 2 places.
pub fn points(value: f64) -> String {
    if (value - value.round()).abs() < 1e-9 {
        format!("{}", value.round() as i64)
    } else {
        format!("{value:.2}")
    }
}

/// The class as CSV: a header, then a row a student: `student`, `status`, `total` (empty when
/// not graded: a learning management system then changes no grade), `max`, a column an
/// item (`items`, the rubric's names), and the first finding.
pub fn csv(grades: &[StudentGrade], items: &[String]) -> Result<String, csv::Error> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["student", "status", "total", "max"];
    header.extend(items.iter().map(String::as_str));
    header.push("first finding");
    writer.write_record(&header)?;
    for grade in grades {
        let has_grade = grade.standing != Standing::NotGraded;
        let mut row = vec![
            grade.student.clone(),
            grade.standing.name().to_string(),
            if has_grade {
                points(grade.total)
            } else {
                String::new()
            },
            points(grade.max),
        ];
        for name in items {
            let item = grade.items.iter().find(|i| &i.name == name);
            row.push(match item {
                Some(item) if has_grade => points(item.points),
                _ => String::new(),
            });
        }
        row.push(grade.first_finding.clone().unwrap_or_default());
        writer.write_record(&row)?;
    }
    let bytes = writer
        .into_inner()
        .map_err(csv::IntoInnerError::into_error)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::scoring::{Item, ItemSpec, Label, StudentGrade, referee_items, score};
    use crate::referee::grades::{ProgramResult, ScriptResult, graded_rules};
    use crate::referee::{Assignment, Options, Rule, referee};

    fn result(script: u64, keys: &str, transcript: &str) -> ScriptResult {
        ScriptResult {
            script,
            report: referee(keys, transcript, None, &Options::default()),
            problem: None,
        }
    }

    fn grade_of(program: &ProgramResult, specs: &[ItemSpec]) -> StudentGrade {
        let label: Label<'_> = &|s| format!("script {s}");
        let items: Vec<Item> = score(specs, program, &[], false, label);
        StudentGrade::graded(&program.command, program, items, "summary".into())
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
        let mut grade = grade_of(&bad, &referee_items(Assignment::Power11, false));
        grade.seconds = 1.4;
        let grades = gradescope(&grade);
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
        let xml = junit(
            &[grade],
            "power11 referee",
            "power11.referee.power11",
            |g| g.command.clone(),
            1.0,
        );
        assert!(xml.contains("<failure message=\"a key that changes the game is followed by its board: broken in 2 of 2 scripts\" type=\"missing-board\">"), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), game_rules + 1);
    }

    #[test]
    fn a_grading_stopped_halfway_gives_nothing_it_did_not_run() {
        let half = ProgramResult::new("./good", &[result(0, "h\n", "")], 4);
        assert_eq!((half.scripts, half.planned, half.not_run()), (1, 4, 3));
        let specs = referee_items(Assignment::Power11, false);
        let grade = grade_of(&half, &specs);
        assert_eq!(grade.standing, Standing::NotGraded);
        let grades = gradescope(&grade);
        assert!(grades.score.abs() < f64::EPSILON, "{grades:?}");
        assert!(grades.tests.iter().all(|t| t.status == "failed"));
        let xml = junit(
            std::slice::from_ref(&grade),
            "s",
            "c",
            |g| g.student.clone(),
            1.0,
        );
        assert!(xml.contains("<testcase name=\"complete\""), "{xml}");
        assert!(xml.contains("type=\"interrupted\""), "{xml}");
        assert!(xml.contains("<skipped message=\"not graded: "), "{xml}");
        let names: Vec<String> = specs.iter().map(ItemSpec::name).collect();
        let table = csv(&[grade], &names).unwrap();
        let row = table.lines().nth(1).unwrap();
        assert!(row.starts_with("./good,not-graded,,"), "{row}");
        let whole = ProgramResult::new("./good", &[result(0, "h\n", "")], 1);
        let xml = junit(
            &[grade_of(&whole, &specs)],
            "s",
            "c",
            |g| g.student.clone(),
            1.0,
        );
        assert!(!xml.contains("skipped message=\"not graded"), "{xml}");
    }

    #[test]
    fn points_read_as_a_spreadsheet_reads_them() {
        assert_eq!(points(3.0), "3");
        assert_eq!(points(2.5), "2.50");
        assert_eq!(points(0.0), "0");
    }
}
