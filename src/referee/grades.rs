//! A class refereed at once: each program's results over the same scripts (each rule broken
//! and where first, each checked and how often, what went wrong with the runs), and the
//! class as a table in words (program by rule). Pure: the command line runs the programs;
//! `grading` scores the results and writes the gradebook's forms.

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

/// A finding in words, for a grading system's output: where (`at`: `script 3`), what, and
/// both boards.
pub fn finding_words(at: &str, finding: &Finding) -> String {
    let mut out = at.to_string();
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
        let visible: String = crate::text::visible_text(text);
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
}
