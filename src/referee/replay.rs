//! The assignment's rules played alongside the keys, every fault found once.
//!
//! The boards a program printed are matched to the keys it was fed by the rules, not by
//! counting: a key that changes the state takes the next board, or the one after the copies of
//! the current state before it; a key that changes nothing takes no board or those copies.
//! Where that leaves a choice, and after every fault (did the program's game go on from what
//! the rules make, or from what it printed?), each way is kept as a reading of its own
//! ([`Reading`]) and the later keys decide: the replay keeps the few readings that explain the
//! transcript with the fewest faults ([`BEAM`]), so a board misprinted once is one finding, a
//! game that really went off is followed where it went, and a fault is blamed on the key whose
//! board shows it.
//!
//! Fed a key at a time with the boards printed in answer to it ([`Replay::key`] with a group),
//! as a run the referee drives is, a key's boards are its own and no reading looks past them.

use super::assignment::Assignment;
use super::keys::Key;
use super::reading::{Before, Context, Phase, Reading, shows};
use super::state::{State, States};
use super::transcript::{Piece, Printed};
use super::{Finding, Rule, Step};

/// How many readings are kept from key to key: enough for the choices one key leaves (a copy
/// or not, the rules' state or the program's), few enough to referee 100,000 boards a second.
const BEAM: usize = 16;

/// A reading costs more than the best one by this many faults: it is dropped.
const SLACK: u32 = 8;

/// The referee's game alongside a run's keys.
#[derive(Clone)]
pub(super) struct Replay {
    assignment: Assignment,
    before: Before,
    boards: Vec<Printed>,
    readings: Vec<Reading>,
    /// Whether boards come a key's group at a time (so a key never takes a later key's).
    grouped: bool,
}

/// What the replay found: the best reading's findings, the game's states at the last `s`, and
/// whether a resume took a state the referee never saw.
pub(super) struct Outcome {
    pub findings: Vec<Finding>,
    pub counts: Vec<(Rule, usize)>,
    /// How many times each rule was checked (those never checked left out).
    pub checks: Vec<(Rule, u32)>,
    pub saved: Option<Vec<State>>,
    pub unseen_resume: bool,
    /// Each key's step, in order.
    pub steps: Vec<Step>,
}

impl Replay {
    /// A replay of `assignment`'s rules over `boards` (all of them, or, when `grouped`, none
    /// yet: each key brings its own), knowing `before` of the save a run could resume.
    pub(super) fn new(
        assignment: Assignment,
        before: Before,
        boards: Vec<Printed>,
        grouped: bool,
    ) -> Replay {
        let readings = vec![Reading::start(&before)];
        Replay {
            assignment,
            before,
            boards,
            readings,
            grouped,
        }
    }

    /// The boards so far.
    pub(super) fn boards(&self) -> &[Printed] {
        &self.boards
    }

    /// Takes the boards of `piece`, printed before any key (the program's opening), or the end
    /// messages it holds after a board of an earlier piece.
    pub(super) fn extend(&mut self, piece: Piece) {
        if let Some(last) = self.boards.last_mut() {
            last.ends.extend(piece.earlier_ends);
        }
        self.boards.extend(piece.boards);
    }

    /// Carries out `keys`, fed at once (a line of several keys), whose answer is `piece`: the
    /// boards are the keys' together, and the rules tell which is whose.
    pub(super) fn keys_with(&mut self, keys: &[Key], piece: Piece) {
        if let Some(last) = self.boards.last_mut() {
            last.ends.extend(piece.earlier_ends);
        }
        self.boards.extend(piece.boards);
        for (i, key) in keys.iter().enumerate() {
            self.step(key, i + 1 == keys.len());
        }
    }

    /// Carries out `key`; `group`, when the run was fed a key at a time, holds the boards
    /// printed in answer to it.
    pub(super) fn key(&mut self, key: &Key, group: Vec<Printed>) {
        self.boards.extend(group);
        self.step(key, true);
    }

    /// Carries out `key` on the boards so far; where the run was fed a key at a time and
    /// `closes` (the last key of what was fed at once), the boards it left are read too.
    fn step(&mut self, key: &Key, closes: bool) {
        let limit = self.boards.len();
        let ctx = Context {
            boards: &self.boards,
            assignment: self.assignment,
            before: &self.before,
            limit,
        };
        let mut next: Vec<Reading> = Vec::with_capacity(self.readings.len() * 3);
        for reading in &self.readings {
            for mut after in reading.after(&ctx, key) {
                if self.grouped && closes {
                    after = after.rest_of_group(&ctx, key);
                }
                after.trail = after.trail.pushed(Step {
                    boards: after.next,
                    action: after.action,
                });
                next.push(after);
            }
        }
        self.readings = keep_best(next, &self.boards);
    }

    /// After the last key: every board left is a copy of the last state, or a fault. Returns
    /// the best reading's outcome.
    pub(super) fn finish(self) -> Outcome {
        let ctx = Context {
            boards: &self.boards,
            assignment: self.assignment,
            before: &self.before,
            limit: self.boards.len(),
        };
        let finished: Vec<Reading> = self
            .readings
            .iter()
            .map(|reading| reading.rest_unexplained(&ctx, None))
            .collect();
        let best = keep_best(finished, &self.boards)
            .into_iter()
            .next()
            .unwrap_or_else(|| Reading::start(&self.before));
        let counts = Rule::ALL
            .iter()
            .zip(best.findings.counts())
            .filter(|&(_, &n)| n > 0)
            .map(|(&rule, &n)| (rule, n as usize))
            .collect();
        let checks = Rule::ALL
            .iter()
            .zip(best.findings.checks())
            .filter(|&(_, &n)| n > 0)
            .map(|(&rule, &n)| (rule, n))
            .collect();
        Outcome {
            findings: best.findings.to_vec(),
            counts,
            checks,
            saved: best.saved.as_ref().map(States::to_vec),
            unseen_resume: best.unseen_resume,
            steps: best.trail.to_vec(),
        }
    }

    /// The findings of the best reading so far (for a run refereed as it goes).
    pub(super) fn findings_so_far(&self) -> u32 {
        self.readings.first().map_or(0, |r| r.findings.total())
    }

    /// The best reading's current state, if a game is on (for a run refereed as it goes).
    pub(super) fn state(&self) -> Option<State> {
        self.readings.first().and_then(Reading::current)
    }

    /// Where the best reading's game stands (for a run refereed as it goes).
    pub(super) fn stage(&self) -> super::Stage {
        match self.readings.first().map(|r| r.phase) {
            Some(Phase::Game | Phase::Entering(..)) => super::Stage::Game,
            Some(Phase::Ended) => super::Stage::Over,
            Some(Phase::Closed) => super::Stage::Closed,
            Some(Phase::Menu) | None => super::Stage::Menu,
        }
    }

    /// How many moves the best reading's game could undo (0 at its start, or with no game).
    pub(super) fn undoable(&self) -> usize {
        self.readings
            .first()
            .map_or(0, |r| r.history.len().saturating_sub(1))
    }
}

impl Reading {
    /// This reading with the boards of `key`'s group it did not take read too: copies of the
    /// current state are reprints, anything else a board no key explains.
    fn rest_of_group(self, ctx: &Context<'_>, key: &Key) -> Reading {
        self.rest_unexplained(ctx, Some(key))
    }

    /// This reading with every board up to the limit taken: copies of the current state are
    /// reprints; every other board is a fault of its own (`key`: the key it answered, if known).
    fn rest_unexplained(&self, ctx: &Context<'_>, key: Option<&Key>) -> Reading {
        let mut reading = self.clone();
        while reading.next < ctx.limit {
            let index = reading.next;
            let printed = &ctx.boards[index];
            reading.next += 1;
            if reading.current().is_some_and(|state| shows(printed, state)) {
                continue;
            }
            let detail = match key {
                Some(key) => format!(
                    "a board the rules do not explain, printed in answer to key {} '{}'",
                    key.index, key.typed
                ),
                None => "a board after the last key's".to_string(),
            };
            let finding = super::reading::at(Rule::Unexplained, index, printed, key, detail);
            reading.findings = reading.findings.with(finding);
        }
        reading
    }
}

/// How many boards (but copies of its state) a reading may leave unread behind the reading
/// furthest on and still set the standard the others are kept by: a key takes at most a board
/// and a reprint or two, so a reading further behind has stopped reading boards (it takes a
/// program for one at its menu) and looks cheap only because its faults are still ahead of it.
const NEAR: usize = 6;

/// How many such boards a reading may leave behind at all before it is dropped.
const FAR: usize = 64;

/// How many of the readings kept may lag more than [`NEAR`] boards behind.
const LAGGING: usize = 2;

/// The best readings of `readings`: the fewest faults first (then the fewest findings, then
/// the fewest penalties, then the order they came in), one of each place
/// ([`Reading::same_place`]), at most [`BEAM`], none more than [`SLACK`] faults behind the
/// best of those [`NEAR`] the furthest, none [`FAR`] behind it.
fn keep_best(mut readings: Vec<Reading>, boards: &[Printed]) -> Vec<Reading> {
    let furthest = readings.iter().map(|r| r.next).max().unwrap_or(0);
    // How many boards (but copies of its state) the reading left behind the furthest, up to
    // one more than `FAR`.
    let lag = |r: &Reading| {
        let current = r.current();
        boards[r.next.min(furthest)..furthest]
            .iter()
            .filter(|printed| current.is_none_or(|state| !shows(printed, state)))
            .take(FAR + 1)
            .count()
    };
    let mut ranked: Vec<(usize, Reading)> = readings.drain(..).map(|r| (lag(&r), r)).collect();
    if ranked.iter().any(|&(lag, _)| lag <= FAR) {
        ranked.retain(|&(lag, _)| lag <= FAR);
    }
    ranked.sort_by_key(|(_, r)| r.cost());
    let best = ranked
        .iter()
        .filter(|&&(lag, _)| lag <= NEAR)
        .chain(ranked.iter())
        .map(|(_, r)| r.cost().0)
        .next()
        .unwrap_or(0);
    // Readings that lag are kept (their faults may still come) but take few places, so that
    // they cannot crowd out the readings that read on.
    let mut kept: Vec<Reading> = Vec::with_capacity(BEAM);
    let mut lagging = 0;
    for (lag, reading) in ranked {
        if kept.len() == BEAM {
            break;
        }
        if reading.cost().0 > best.saturating_add(SLACK)
            || kept.iter().any(|k| k.same_place(&reading))
            || (lag > NEAR && lagging == LAGGING)
        {
            continue;
        }
        lagging += usize::from(lag > NEAR);
        kept.push(reading);
    }
    kept
}
