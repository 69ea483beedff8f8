//! The referee: whether a program's run follows its assignment's rules (Power-11's, or the
//! MIPS 3x3 program's), from the keys it was fed and what it printed. New tiles are random, so
//! two correct programs print different boards and a `diff` says nothing; the referee plays
//! the rules alongside instead, key by key, learning each new tile from the board printed once
//! it is checked to be one. It finds every fault once, each at the board that shows it and the
//! key that board answers, and goes on after it (see `replay`).
//!
//! Strings in, a [`Report`] out: reading the files and running the program are the command
//! line's (`power11 referee`). Everything a report says has a stable [`Rule`] name. A run fed
//! a key at a time is refereed as it goes ([`Referee`]).

mod assignment;
mod ending;
pub mod grades;
mod keys;
mod reading;
mod replay;
mod report;
mod rule;
mod save;
pub mod scripts;
mod slides;
mod state;
mod transcript;

pub use assignment::Assignment;
pub use keys::{Key, read as keys_of, read_keys};
pub use report::{boards_side_by_side, to_text};
pub use rule::Rule;

use crate::model::board::Board;
use crate::model::game::Timeline;
use reading::Before;
use replay::Replay;
use transcript::Scanner;

/// The key a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct KeyAt {
    /// The key, as typed.
    pub key: char,
    /// Its position among the keys (1-based).
    pub index: usize,
    /// The line of the keys file it is on (1-based).
    pub line: usize,
}

/// What a run broke (or, for a format rule, where its text differs from the assignment's).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// The board's position among the printed boards (1-based), if the finding is at one.
    pub board: Option<usize>,
    /// The transcript's line where that board starts (1-based).
    pub line: Option<usize>,
    /// The key the finding is about, if any.
    pub key: Option<KeyAt>,
    /// What was wrong, in words.
    pub detail: String,
    /// The board the rules make (for a move that changes the board: after its slide, before
    /// the new tile); in JSON, rows of tile values, 0 for an empty cell.
    #[cfg_attr(feature = "cli", serde(serialize_with = "rows"))]
    pub expected: Option<Board>,
    /// The score the rules make.
    pub expected_score: Option<i128>,
    /// The board printed; in JSON, rows of tile values.
    #[cfg_attr(feature = "cli", serde(serialize_with = "rows"))]
    pub printed: Option<Board>,
    /// The score printed.
    pub printed_score: Option<i128>,
    /// How many times a format finding was seen (1 for the others).
    pub count: usize,
}

impl Finding {
    /// A finding of `rule` with `detail`, at no board yet.
    pub(crate) fn new(rule: Rule, detail: impl Into<String>) -> Finding {
        Finding {
            rule,
            board: None,
            line: None,
            key: None,
            detail: detail.into(),
            expected: None,
            expected_score: None,
            printed: None,
            printed_score: None,
            count: 1,
        }
    }
}

/// What a key did by the rules, as a replay of the run marks it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Action {
    /// A move that changed the board.
    Move,
    /// A new game (or the MIPS program's start state).
    NewGame,
    /// `b`: the move before undone.
    Undo,
    /// `r`: a saved game resumed.
    Resume,
    /// `s`: the game saved.
    Save,
    /// Nothing the rules change: a move that moves no tile, a key at the menu, a quit.
    #[default]
    Other,
}

/// One key of a run as the referee read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    /// How many of the run's boards had been printed once the key was answered: the key's own
    /// board, if it took one, is the last of them.
    pub boards: usize,
    /// What the key did.
    pub action: Action,
}

/// A board as the run printed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    /// The board.
    pub board: Board,
    /// The score printed with it.
    pub score: Option<i128>,
    /// The transcript's line where it starts (1-based).
    pub line: usize,
}

/// A run key by key, as the referee matched its boards to its keys: what a replay of the run
/// steps through (a feedback page's), beside the findings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Every board the run printed, in order.
    pub boards: Vec<Shown>,
    /// Each key, in order.
    pub steps: Vec<Step>,
}

/// What the save file held, as far as the referee could tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "cli",
    derive(serde::Serialize),
    serde(rename_all = "kebab-case")
)]
pub enum SaveKind {
    /// The game's states at the last `s`, the oldest first or (a `save-order` warning) the
    /// newest first (the undo bonus).
    History,
    /// The current state only.
    OneState,
    /// Not checked against the game: no `s` was pressed in a game.
    Unchecked,
    /// It breaks a rule: not in the assignment's format, or not the game as saved (the
    /// violation says which).
    Faulty,
}

/// What the referee knows of a save the run could resume before its first `s`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum SaveBefore {
    /// Nothing: a transcript may begin by resuming a save made before it, whose board is then
    /// taken as the saved state (and a note says so).
    #[default]
    Unknown,
    /// There was none (the run started in a fresh folder): `r` before any `s` resumes nothing.
    Nothing,
    /// This save (`--save-before FILE`): `r` before any `s` must resume it.
    Save(Timeline),
}

/// How to referee.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Format deviations are violations too.
    pub strict: bool,
    /// Whose rules and interface.
    pub assignment: Assignment,
    /// What a resume before the first `s` may find.
    pub before: SaveBefore,
}

/// A rule broken, how often, and where first.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Broken {
    /// The rule.
    pub rule: Rule,
    /// How many times it was broken (a format rule: how many boards or lines deviate).
    pub count: usize,
    /// The board of its first instance (1-based), if it is at one.
    pub board: Option<usize>,
    /// The key of its first instance, if any.
    pub key: Option<KeyAt>,
}

/// A rule checked, and how many times: a board or key it applies to was judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Checked {
    /// The rule.
    pub rule: Rule,
    /// How many boards or keys it was checked on.
    pub times: u32,
}

/// What the referee found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Report {
    /// Whose rules the run was refereed by.
    #[cfg_attr(feature = "cli", serde(serialize_with = "assignment_name"))]
    pub assignment: Assignment,
    /// Keys read from the keys file.
    pub keys: usize,
    /// Boards found in the transcript.
    pub boards: usize,
    /// Every rule broken, each with its count and first place, in the order of
    /// [`Rule::ALL`]: the game's rules, the save's, and under `--strict` the format's.
    pub rules: Vec<Broken>,
    /// The instances of the broken rules, in the order they were found (at most 100 of a
    /// rule; `rules` counts them all).
    pub violations: Vec<Finding>,
    /// Format deviations, each rule once with its count (violations under `--strict`).
    pub warnings: Vec<Finding>,
    /// What the referee could not check, in words (a resume of a save it never saw).
    pub notes: Vec<String>,
    /// What the save file held, if one was given.
    pub save: Option<SaveKind>,
    /// Every rule checked, with how many times, in the order of [`Rule::ALL`]: a rule not
    /// among them was never reached (no board or key it applies to), and holds or breaks
    /// nothing.
    pub checked: Vec<Checked>,
    /// The run key by key (not in JSON: the keys and the transcript are the run's own files).
    #[cfg_attr(feature = "cli", serde(skip))]
    pub trace: Trace,
}

/// A board as JSON gives it: rows of tile values, 0 for an empty cell.
#[cfg(feature = "cli")]
#[allow(clippy::ref_option)]
fn rows<S: serde::Serializer>(board: &Option<Board>, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize;
    board.as_ref().map(slides::values).serialize(serializer)
}

#[cfg(feature = "cli")]
#[allow(clippy::trivially_copy_pass_by_ref)]
fn assignment_name<S: serde::Serializer>(
    assignment: &Assignment,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(assignment.name())
}

impl Report {
    /// Whether every rule held (and, under `--strict`, every format).
    pub fn passed(&self) -> bool {
        self.rules.is_empty()
    }

    /// How many times `rule` was checked (0: never reached).
    pub fn times_checked(&self, rule: Rule) -> u32 {
        self.checked
            .iter()
            .find(|c| c.rule == rule)
            .map_or(0, |c| c.times)
    }

    /// The rules of the assignment this run never reached, in order.
    pub fn not_checked(&self) -> Vec<Rule> {
        Rule::ALL
            .iter()
            .copied()
            .filter(|&rule| self.assignment.has_rule(rule) && self.times_checked(rule) == 0)
            .filter(|&rule| !self.rules.iter().any(|b| b.rule == rule))
            .collect()
    }
}

/// Where a run's game stands, as the referee sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// At the menu: no game on.
    Menu,
    /// A game on.
    Game,
    /// A game won or lost, its message said: the next key goes back to the menu (Power-11),
    /// or the program has ended (MIPS).
    Over,
    /// The program quit.
    Closed,
}

/// A run refereed as it goes: each key with what the program printed in answer to it.
#[derive(Clone)]
pub struct Referee {
    options: Options,
    scanner: Scanner,
    replay: Replay,
    keys: usize,
}

impl Referee {
    /// A referee of a run under `options`, before its first key.
    pub fn new(options: Options) -> Referee {
        let before = match &options.before {
            SaveBefore::Unknown => Before::Unknown,
            SaveBefore::Nothing => Before::Nothing,
            SaveBefore::Save(timeline) => Before::Save(state::States::of(timeline.states())),
        };
        Referee {
            scanner: Scanner::new(options.assignment),
            replay: Replay::new(options.assignment, before, Vec::new(), true),
            keys: 0,
            options,
        }
    }

    /// What the program printed before its first key (its menu): no board is expected there,
    /// and any it holds must be explained by the first key. Call before the first [`Self::keys`].
    pub fn opening(&mut self, printed: &str) {
        let piece = self.scanner.scan(printed);
        self.replay.extend(piece);
    }

    /// `keys`, fed to the program at once (a line of keys, or one key), and what it printed
    /// in answer to them: which board is whose, the rules tell.
    pub fn keys(&mut self, keys: &[Key], printed: &str) {
        self.keys += keys.len();
        let piece = self.scanner.scan(printed);
        if keys.is_empty() {
            // Input with no key in it (a blank line): what it printed is for the next key.
            self.replay.extend(piece);
        } else {
            self.replay.keys_with(keys, piece);
        }
    }

    /// Whether `keys` with `printed` as their answer would be a fault (a board missing where
    /// the rules want one, say): what a run that may not have finished answering waits
    /// longer for, rather than pin a board on the wrong key by time alone.
    pub fn would_fault(&self, keys: &[Key], printed: &str) -> bool {
        let mut trial = self.clone();
        trial.keys(keys, printed);
        trial.faults() > self.faults()
    }

    /// Where the game stands now, as the rules see it: what a player choosing the next key
    /// needs beside the board.
    pub fn stage(&self) -> Stage {
        self.replay.stage()
    }

    /// How many moves `b` could undo now (0 at the start of a game): how long an undo chain
    /// back to the start is.
    pub fn undoable(&self) -> usize {
        self.replay.undoable()
    }

    /// The state of the game as the rules see it now, if one is on: what a player choosing the
    /// next key looks at.
    pub fn state(&self) -> Option<crate::model::game::Snapshot> {
        self.replay.state()
    }

    /// How many faults were found so far.
    pub fn faults(&self) -> u32 {
        self.replay.findings_so_far()
    }

    /// The report, with `save` (the save file the run left, if any) checked against the game.
    pub fn finish(self, save: Option<&str>) -> Report {
        let warnings = self.scanner.warnings();
        report_of(&self.options, self.keys, warnings, self.replay, save, false)
    }

    /// The report of a run in a folder the referee watched, `save` the save file it left
    /// there (`None`: it left none, and then an `s` pressed in a game broke `save-state`).
    pub fn finish_in_folder(self, save: Option<&str>) -> Report {
        let warnings = self.scanner.warnings();
        report_of(&self.options, self.keys, warnings, self.replay, save, true)
    }
}

/// Referees a run: `keys`, the text piped into the program; `transcript`, what it printed on
/// standard output; `save`, the save file it wrote, if any.
pub fn referee(keys: &str, transcript: &str, save: Option<&str>, options: &Options) -> Report {
    referee_with(keys, transcript, save, options, false)
}

fn referee_with(
    keys: &str,
    transcript: &str,
    save: Option<&str>,
    options: &Options,
    in_folder: bool,
) -> Report {
    let keys = keys::read(keys, options.assignment);
    let mut scanner = Scanner::new(options.assignment);
    let boards = scanner.scan(transcript).boards;
    let before = match &options.before {
        SaveBefore::Unknown => Before::Unknown,
        SaveBefore::Nothing => Before::Nothing,
        SaveBefore::Save(timeline) => Before::Save(state::States::of(timeline.states())),
    };
    let mut replay = Replay::new(options.assignment, before, boards, false);
    for key in &keys {
        replay.key(key, Vec::new());
    }
    report_of(
        options,
        keys.len(),
        scanner.warnings(),
        replay,
        save,
        in_folder,
    )
}

/// Referees a run in a folder the referee watched, as [`referee`] does a transcript: `save`
/// is the save it left there (`None`: it left none, and then an `s` pressed in a game broke
/// `save-state`), as [`Referee::finish_in_folder`] has it.
pub fn referee_in_folder(
    keys: &str,
    transcript: &str,
    save: Option<&str>,
    options: &Options,
) -> Report {
    referee_with(keys, transcript, save, options, true)
}

/// Every rule the replay checked, with the report's own: the format on every board printed,
/// an end message on every end reached, a save's rules where a save was checked.
fn checks_of(
    outcome: &replay::Outcome,
    boards: usize,
    save_given: bool,
    save_known: bool,
) -> Vec<(Rule, u32)> {
    let mut checks: Vec<(Rule, u32)> = outcome.checks.clone();
    let mut check = |rule: Rule, times: u32| {
        if times == 0 {
            return;
        }
        match checks.iter_mut().find(|(r, _)| *r == rule) {
            Some((_, n)) => *n = n.saturating_add(times),
            None => checks.push((rule, times)),
        }
    };
    // The format is checked on every board printed, an end message on every end reached.
    let count = u32::try_from(boards).unwrap_or(u32::MAX);
    for rule in [
        Rule::ZeroCells,
        Rule::FrameWidth,
        Rule::CellAlignment,
        Rule::ScoreLine,
        Rule::NoScoreLine,
        Rule::UnreadableBoard,
    ] {
        check(rule, count);
    }
    let ends = outcome
        .checks
        .iter()
        .filter(|(r, _)| matches!(r, Rule::WinNotAnnounced | Rule::LossNotAnnounced))
        .map(|(_, n)| *n)
        .sum();
    check(Rule::EndMessage, ends);
    // A save file given is checked whole.
    if save_given {
        for rule in [
            Rule::SaveFormat,
            Rule::SaveState,
            Rule::SaveHistory,
            Rule::SaveOrder,
        ] {
            check(rule, 1);
        }
    }
    if save_known && outcome.saved.is_some() {
        check(Rule::SaveState, 1);
    }
    checks
}

/// The report of a finished replay.
fn report_of(
    options: &Options,
    keys: usize,
    mut warnings: Vec<Finding>,
    replay: Replay,
    save: Option<&str>,
    save_known: bool,
) -> Report {
    let shown: Vec<Shown> = replay
        .boards()
        .iter()
        .map(|printed| Shown {
            board: printed.board,
            score: printed.score,
            line: printed.line,
        })
        .collect();
    let boards = shown.len();
    let outcome = replay.finish();
    let mut checks = checks_of(&outcome, boards, save.is_some(), save_known);
    let mut violations = outcome.findings;
    let mut notes = Vec::new();
    if outcome.unseen_resume {
        notes.push(
            "'r' resumed a save made before the run, which the referee never saw: the board \
             it printed is taken as the saved state (--save-before FILE checks it)"
                .to_string(),
        );
    }
    if save.is_none() && save_known && outcome.saved.is_some() {
        violations.push(Finding::new(
            Rule::SaveState,
            "s was pressed in a game, but the run left no power11.saved in its folder that could be read (a regular file, not a link, of at most 64 MiB)",
        ));
    }
    let save_kind = save.map(|text| {
        let checked = save::check(text, outcome.saved.as_deref());
        violations.extend(checked.violation);
        warnings.extend(checked.warning);
        checked.kind
    });
    // Under `--strict` the format's deviations are violations, and no longer warnings.
    if options.strict {
        violations.append(&mut warnings);
    }
    let mut rules: Vec<Broken> = Vec::new();
    for finding in &violations {
        let count = if finding.rule.is_format() {
            finding.count
        } else {
            outcome
                .counts
                .iter()
                .find(|(rule, _)| *rule == finding.rule)
                .map_or(1, |&(_, n)| n)
        };
        if !rules.iter().any(|b| b.rule == finding.rule) {
            rules.push(Broken {
                rule: finding.rule,
                count,
                board: finding.board,
                key: finding.key,
            });
        }
    }
    rules.sort_by_key(|b| b.rule.index());
    checks.sort_by_key(|(rule, _)| rule.index());
    Report {
        checked: checks
            .into_iter()
            .map(|(rule, times)| Checked { rule, times })
            .collect(),
        assignment: options.assignment,
        keys,
        boards,
        rules,
        violations,
        warnings,
        notes,
        save: save_kind,
        trace: Trace {
            boards: shown,
            steps: outcome.steps,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names scripts match are distinct and in kebab case, the format's rules come after
    /// the game's, and each rule's index is its place in `ALL`.
    #[test]
    fn every_rule_has_a_name_of_its_own() {
        let names: std::collections::BTreeSet<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), Rule::ALL.len());
        for name in &names {
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name}"
            );
        }
        let first_format = Rule::ALL.iter().position(|r| r.is_format()).unwrap();
        assert!(Rule::ALL[first_format..].iter().all(|r| r.is_format()));
        for (i, rule) in Rule::ALL.iter().enumerate() {
            assert_eq!(rule.index(), i, "{rule:?}");
        }
    }
}
