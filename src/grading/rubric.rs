//! A rubric: what a class is graded on and how many points each thing is worth, in TOML, a
//! file the teacher names (`power11 grade --rubric FILE`; `--print-rubric` prints the
//! built-in one, which gives today's points: a point a game rule held, and one for runs that
//! end well). Every student gets the same scripts and plays, so a grade is fair and
//! repeatable. A rubric that names an unknown rule, play or setting is refused with its line.

use crate::live::play::Goal;
use crate::referee::{Assignment, Rule};
use std::fmt::Write as _;

/// A play the rubric asks for, and what reaching its goal is worth.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayItem {
    /// What it plays to.
    pub goal: Goal,
    /// The board: 4 or 5.
    pub size: usize,
    /// Its points, given when it reached its goal.
    pub points: f64,
}

impl PlayItem {
    /// Its name in the rubric and the gradebook: `play-win-4`.
    pub fn name(&self) -> String {
        format!("play-{}-{}", self.goal.name(), self.size)
    }
}

/// How a class is graded.
#[derive(Clone, Debug, PartialEq)]
pub struct Rubric {
    /// How many generated scripts each program plays.
    pub scripts: u64,
    /// Their seed: every student plays the same scripts.
    pub seed: u64,
    /// The seconds a run may spend answering, if not the referee's default.
    pub timeout: Option<f64>,
    /// Each rule's points, given when it held: checked, and never broken.
    pub rules: Vec<(Rule, f64)>,
    /// Points for every run ending by itself (no crash, hang or flood).
    pub runs: f64,
    /// The plays, each with its points.
    pub plays: Vec<PlayItem>,
    /// Whether a rule no script or play reached still gets its points.
    pub unchecked_scores: bool,
    /// Whether format deviations are faults.
    pub strict: bool,
    /// How to build a submission, if not from its files (a shell command).
    pub build: Option<String>,
    /// How to run it once built, if not from its files (as `--run` takes it).
    pub run: Option<String>,
    /// The seconds a build may take.
    pub build_timeout: f64,
}

/// Why a rubric was refused: its line (1-based; 0 for the whole file) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}: {problem}")]
pub struct RubricError {
    /// The line.
    pub line: usize,
    /// What is wrong, and what to do.
    pub problem: String,
}

/// The plays a rubric may name.
const PLAYS: &[(&str, Goal, usize)] = &[
    ("play-win-4", Goal::Win, 4),
    ("play-win-5", Goal::Win, 5),
    ("play-lose-4", Goal::Lose, 4),
    ("play-lose-5", Goal::Lose, 5),
    ("play-explore-4", Goal::Explore, 4),
    ("play-explore-5", Goal::Explore, 5),
];

/// The built-in rubric, as `--print-rubric` prints it.
pub fn default_text() -> String {
    let mut out = String::from(
        "# power11 grade's rubric: what a class is graded on, and the points of each.\n\
         # Every student plays the same scripts and plays.\n\n\
         [scripts]\n\
         count = 100        # generated key scripts a program plays\n\
         seed = 1           # the scripts' seed\n\
         # timeout = 10     # seconds a run may spend answering (default: the referee's)\n\n\
         [points]\n\
         # A rule's points are given when it held: some script or play checked it, and none\n\
         # broke it. Format rules count only with strict = true.\n",
    );
    for rule in Rule::ALL {
        if !Assignment::Power11.has_rule(*rule) {
            continue;
        }
        let points = u8::from(!rule.is_format());
        let _ = writeln!(out, "{} = {points}", rule.name());
    }
    out.push_str(
        "runs = 1           # every run ends by itself: no crash, hang or output without end\n\
         # A play's points are given when it reached its goal (explore: a game's end).\n\
         # play-win-4 = 2\n\
         # play-lose-4 = 1\n\
         # play-explore-4 = 1\n\
         # play-win-5, play-lose-5, play-explore-5 likewise\n\n\
         [options]\n\
         unchecked-scores = false   # a rule no script or play reached gets its points anyway\n\
         strict = false             # format deviations are faults\n\n\
         [build]\n\
         # How a submission is built and run, where its files do not say (a Makefile, a\n\
         # Cargo.toml, a CMakeLists.txt, one .py or one .java file):\n\
         # command = \"make game\"\n\
         # run = \"./game\"\n\
         timeout = 300      # seconds a build may take\n",
    );
    out
}

impl Default for Rubric {
    fn default() -> Rubric {
        parse(&default_text()).expect("the built-in rubric is a rubric")
    }
}

/// The line of `text` where `key` is set (a `key =` at a line's start), or 0.
fn line_of(text: &str, key: &str) -> usize {
    text.lines()
        .position(|line| {
            let line = line.trim_start();
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        })
        .map_or(0, |i| i + 1)
}

/// A number (an integer or a float) of `value`.
fn number(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Integer(n) => Some(*n as f64),
        toml::Value::Float(x) => Some(*x),
        _ => None,
    }
}

/// Reads a rubric from its text.
pub fn parse(text: &str) -> Result<Rubric, RubricError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let line = e.span().map_or(0, |span| {
            text[..span.start.min(text.len())].lines().count().max(1)
        });
        RubricError {
            line,
            problem: format!("not TOML: {}", e.message()),
        }
    })?;
    let fail = |key: &str, problem: String| RubricError {
        line: line_of(text, key),
        problem,
    };
    let mut rubric = Rubric {
        scripts: 100,
        seed: 1,
        timeout: None,
        rules: Vec::new(),
        runs: 0.0,
        plays: Vec::new(),
        unchecked_scores: false,
        strict: false,
        build: None,
        run: None,
        build_timeout: 300.0,
    };
    for (section, value) in &table {
        let Some(entries) = value.as_table() else {
            return Err(fail(
                section,
                format!(
                    "'{section}' is not a section: the rubric's settings go in [scripts], [points], [options] and [build]"
                ),
            ));
        };
        for (key, value) in entries {
            set(&mut rubric, section, key, value, text)?;
        }
    }
    // No [points] at all: the built-in points (a rubric that only sets the scripts means
    // "as usual, but these scripts"); with a [points], exactly the points it gives.
    if !table.contains_key("points") {
        let usual = Rubric::default();
        rubric.rules = usual.rules;
        rubric.runs = usual.runs;
    }
    rubric.rules.sort_by_key(|(rule, _)| rule.index());
    if rubric.max() <= 0.0 {
        return Err(RubricError {
            line: text
                .lines()
                .position(|line| line.trim() == "[points]")
                .map_or(0, |i| i + 1),
            problem: "it gives no points: give some rule, runs or play points in [points]"
                .to_string(),
        });
    }
    if rubric.scripts == 0 && rubric.plays.is_empty() {
        return Err(fail(
            "count",
            "nothing to grade on: give [scripts] count, or a play's points".to_string(),
        ));
    }
    Ok(rubric)
}

/// Sets `[section] key = value` in `rubric`, or says why it cannot be.
fn set(
    rubric: &mut Rubric,
    section: &str,
    key: &str,
    value: &toml::Value,
    text: &str,
) -> Result<(), RubricError> {
    let fail = |key: &str, problem: String| RubricError {
        line: line_of(text, key),
        problem,
    };
    let as_number = || {
        number(value)
            .filter(|n| n.is_finite() && *n >= 0.0)
            .ok_or_else(|| fail(key, format!("{key} wants a number of 0 or more")))
    };
    let as_bool = || {
        value
            .as_bool()
            .ok_or_else(|| fail(key, format!("{key} wants true or false")))
    };
    let as_text = || {
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| fail(key, format!("{key} wants a quoted command")))
    };
    match (section, key) {
        ("scripts", "count") => rubric.scripts = as_number()? as u64,
        ("scripts", "seed") => rubric.seed = as_number()? as u64,
        ("scripts", "timeout") => rubric.timeout = Some(as_number()?),
        ("points", "runs") => rubric.runs = as_number()?,
        ("points", name) => {
            if let Some(&(_, goal, size)) = PLAYS.iter().find(|(n, ..)| *n == name) {
                rubric.plays.push(PlayItem {
                    goal,
                    size,
                    points: as_number()?,
                });
            } else if let Some(rule) = Rule::ALL
                .iter()
                .find(|r| r.name() == name && Assignment::Power11.has_rule(**r))
            {
                rubric.rules.push((*rule, as_number()?));
            } else {
                return Err(fail(
                    key,
                    format!(
                        "unknown rule or play '{name}': `power11 grade --print-rubric` lists them"
                    ),
                ));
            }
        }
        ("options", "unchecked-scores") => rubric.unchecked_scores = as_bool()?,
        ("options", "strict") => rubric.strict = as_bool()?,
        ("build", "command") => rubric.build = Some(as_text()?),
        ("build", "run") => rubric.run = Some(as_text()?),
        ("build", "timeout") => rubric.build_timeout = as_number()?,
        _ => {
            return Err(fail(
                key,
                format!(
                    "unknown setting '{key}' in [{section}]: `power11 grade --print-rubric` lists them"
                ),
            ));
        }
    }
    Ok(())
}

impl Rubric {
    /// The points of `rule` (0 where the rubric gives none, a format rule without strict).
    pub fn points_of(&self, rule: Rule) -> f64 {
        if rule.is_format() && !self.strict {
            return 0.0;
        }
        self.rules
            .iter()
            .find(|(r, _)| *r == rule)
            .map_or(0.0, |&(_, points)| points)
    }

    /// The rubric's items in the gradebook's order, with their most points: each rule worth
    /// points, `runs`, each play.
    pub fn items(&self) -> Vec<(String, f64)> {
        let mut items: Vec<(String, f64)> = self
            .rules
            .iter()
            .filter(|(rule, _)| self.points_of(*rule) > 0.0)
            .map(|&(rule, points)| (rule.name().to_string(), points))
            .collect();
        if self.runs > 0.0 {
            items.push(("runs".to_string(), self.runs));
        }
        items.extend(self.plays.iter().map(|p| (p.name(), p.points)));
        items
    }

    /// The most points a student can get.
    pub fn max(&self) -> f64 {
        self.items().iter().map(|(_, points)| points).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_rubric_gives_a_point_a_game_rule_and_one_for_runs() {
        let rubric = Rubric::default();
        assert_eq!(rubric.scripts, 100);
        assert_eq!(rubric.points_of(Rule::Merge).to_bits(), 1f64.to_bits());
        assert_eq!(rubric.points_of(Rule::ZeroCells).to_bits(), 0f64.to_bits());
        assert_eq!(rubric.runs.to_bits(), 1f64.to_bits());
        assert!(rubric.plays.is_empty());
        let game_rules = Rule::ALL
            .iter()
            .filter(|r| Assignment::Power11.has_rule(**r) && !r.is_format())
            .count();
        assert_eq!(rubric.max().to_bits(), ((game_rules + 1) as f64).to_bits());
    }

    #[test]
    fn a_rubric_without_points_gives_the_usual_ones_and_one_with_none_is_refused() {
        let rubric = parse("[scripts]\ncount = 6\n").unwrap();
        assert_eq!(rubric.scripts, 6);
        assert_eq!(rubric.items(), Rubric::default().items());
        let only = parse("[points]\nmerge = 2\n").unwrap();
        assert_eq!(only.items(), [("merge".to_string(), 2.0)]);
        let none = parse("[scripts]\ncount = 6\n[points]\nmerge = 0\n").unwrap_err();
        assert_eq!(none.line, 3);
        assert!(none.problem.contains("no points"), "{none}");
    }

    #[test]
    fn an_unknown_rule_is_refused_with_its_line() {
        let text = "[scripts]\ncount = 5\n\n[points]\nmerge = 2\nmergee = 1\n";
        let error = parse(text).unwrap_err();
        assert_eq!(error.line, 6);
        assert!(
            error.problem.starts_with("unknown rule or play 'mergee'"),
            "{error}"
        );
        let error = parse("[points]\nmerge = -1\n").unwrap_err();
        assert_eq!(
            (error.line, error.problem.as_str()),
            (2, "merge wants a number of 0 or more")
        );
        let error = parse("[scripts\ncount = 1\n").unwrap_err();
        assert_eq!(error.line, 1, "{error}");
    }

    #[test]
    fn plays_and_build_commands_are_read() {
        let rubric = parse(
            "[scripts]\ncount = 3\n[points]\nmerge = 1\nplay-win-4 = 2.5\n[build]\ncommand = \"make game\"\nrun = \"./game\"\n",
        )
        .unwrap();
        assert_eq!(rubric.plays.len(), 1);
        assert_eq!(rubric.plays[0].name(), "play-win-4");
        assert_eq!(rubric.build.as_deref(), Some("make game"));
        assert_eq!(rubric.run.as_deref(), Some("./game"));
        assert_eq!(
            rubric.items(),
            [("merge".to_string(), 1.0), ("play-win-4".to_string(), 2.5)]
        );
    }
}
