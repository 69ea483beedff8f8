//! One reading of a transcript: a way its boards answer its keys, with the game the rules play
//! alongside and what it found so far. A key's reading may go several ways (is a copy of the
//! board a reprint, or this key's board? after a fault, did the program's game go on from what
//! the rules make, or from what it printed?): [`Reading::after`] gives each way as a reading of
//! its own, and the replay keeps the ones that explain the transcript with the fewest faults.
//!
//! Each key's expectation is computed from the rules alone (a slide and its points, an undo, a
//! resume); new tiles, which no referee can predict, are learned from the board printed once
//! the rules' own judge ([`crate::model::history::new_tile_fault`]) finds it one the spawn rule
//! may place.

use super::assignment::{Assignment, Effect, Expect};
use super::keys::Key;
use super::state::{Findings, State, States, Trail};
use super::transcript::Printed;
use super::{Action, Finding, Rule};

/// Where the game of a reading stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Phase {
    Menu,
    Game,
    /// Won or lost: the next key goes back to the menu (Power-11), or the program has ended
    /// (MIPS).
    Ended,
    /// The program quit: keys after it are not read.
    Closed,
    /// The MIPS program reads the nine numbers of a start state: how many it has, and them.
    Entering(u8, [u8; 9]),
}

/// What the referee knows of the save a run could resume before any `s`.
#[derive(Clone, Debug, Default)]
pub(super) enum Before {
    /// Nothing: a transcript may follow a save made before it (its board is taken as saved).
    #[default]
    Unknown,
    /// There was none: the run started in a fresh folder.
    Nothing,
    /// This save (`--save-before`), oldest first.
    Save(States),
}

/// What every reading shares: the boards printed, the assignment, what was there before.
pub(super) struct Context<'a> {
    pub boards: &'a [Printed],
    pub assignment: Assignment,
    pub before: &'a Before,
    /// The first board no reading of this key may take (the key's own boards end there when
    /// the run was fed a key at a time), or the end of the transcript.
    pub limit: usize,
}

/// A reading of the transcript so far.
#[derive(Clone, Debug)]
pub(super) struct Reading {
    /// The first board not yet taken.
    pub next: usize,
    pub phase: Phase,
    /// The game's states; the top one is the current one.
    pub history: States,
    /// How many of `history`'s states a resume read from a save: an undo into them may find
    /// nothing (a program whose save keeps one state).
    pub resumed: usize,
    /// The game's states at the last `s` (or the save before the run).
    pub saved: Option<States>,
    /// Whether a resume took its state from the board printed (a save the referee never saw).
    pub unseen_resume: bool,
    /// Whether new tiles appear after a move (the MIPS program's 3 and 4).
    pub new_tiles: bool,
    /// Whether the current state is a board printed with a fault whose true state the rules
    /// could not tell: the next move's board is also judged against the states one cell away
    /// from it, so a board misprinted once is one fault, not one at every key after it.
    pub misprinted: Misprint,
    pub findings: Findings,
    /// The keys carried out so far, with the boards each took.
    pub trail: Trail,
    /// What the last key did by the rules.
    pub action: Action,
    /// Preferences among readings that explain as much: following the program's state rather
    /// than the rules' after a fault costs one.
    pub penalty: u32,
    /// How many boards the first game key of each kind took: one that changes the state, and
    /// one that does not (a program prints alike for alike keys).
    pub usual: [Option<u8>; 2],
    /// How many game keys took another number of boards than the key of their kind before:
    /// a reading that makes a program print irregularly explains it worse.
    pub irregular: u32,
}

/// How the board a reading goes on from may have been misprinted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Misprint {
    /// It is what the program has.
    No,
    /// In any one cell (a tile added, taken away, one step larger or smaller).
    AnyCell,
    /// By leaving out its new tile, which the program had: the only misprint that explains a
    /// board that only lacks its new tile (taking a tile away from it would explain another
    /// missing tile next, hiding a second fault behind the first).
    NewTileLeftOut,
}

/// The rules a key of `effect` checks (its board, where it has one, is checked against the
/// end rules too, as it is taken): what a report says was checked, so that a rule no key
/// reached is never said to hold.
fn checked_by(effect: &Effect, new_tiles: bool) -> &'static [Rule] {
    use super::assignment::Blame;
    match effect {
        Effect::Change(Expect::NewGame(_), _) => &[
            Rule::NewGameTiles,
            Rule::NewGameScore,
            Rule::NewGameSize,
            Rule::MissingBoard,
            Rule::Unexplained,
            Rule::NotATile,
        ],
        Effect::Change(Expect::Move { .. }, _) if new_tiles => &[
            Rule::Merge,
            Rule::MergedTwice,
            Rule::Score,
            Rule::NewTileMissing,
            Rule::NewTilesExtra,
            Rule::NewTileValue,
            Rule::MissingBoard,
            Rule::Unexplained,
            Rule::NotATile,
        ],
        Effect::Change(Expect::Move { .. }, _) => &[
            Rule::Merge,
            Rule::MergedTwice,
            Rule::Score,
            Rule::NewTileWhileOff,
            Rule::MissingBoard,
            Rule::Unexplained,
            Rule::NotATile,
        ],
        Effect::Change(Expect::Undo(_) | Expect::UndoIntoSave(_), _) => &[
            Rule::Undo,
            Rule::MissingBoard,
            Rule::Unexplained,
            Rule::NotATile,
        ],
        Effect::Change(Expect::Resume(_) | Expect::ResumeUnseen, _) => &[
            Rule::Resume,
            Rule::MissingBoard,
            Rule::Unexplained,
            Rule::NotATile,
        ],
        Effect::Change(Expect::StartState(_), _) => &[
            Rule::StartState,
            Rule::MissingBoard,
            Rule::Unexplained,
            Rule::NotATile,
        ],
        Effect::Nothing(Blame::UnchangedMove, _) => &[Rule::UnchangedMove],
        Effect::Nothing(Blame::UndoPastStart, _) => &[Rule::UndoPastStart],
        Effect::Nothing(Blame::EndReturns, _) => &[Rule::EndReturnsToMenu],
        Effect::Nothing(Blame::ResumeNothing, _) => &[Rule::Resume],
        Effect::Save | Effect::Nothing(Blame::Save, _) => &[Rule::Save],
        Effect::Nothing(..) | Effect::Switch(_) | Effect::Enter(_) => &[],
    }
}

/// Whether `printed` shows `state`: its board, and its score where a score line goes with it.
pub(super) fn shows(printed: &Printed, state: State) -> bool {
    printed.board == state.board
        && printed.not_a_tile.is_none()
        && printed.score.is_none_or(|s| s == state.score)
}

/// A finding of `rule` at board `index` (0-based) for `key`.
pub(super) fn at(
    rule: Rule,
    index: usize,
    printed: &Printed,
    key: Option<&Key>,
    detail: String,
) -> Finding {
    let mut finding = Finding::new(rule, detail);
    finding.board = Some(index + 1);
    finding.line = Some(printed.line);
    finding.key = key.map(Key::at);
    finding.printed = Some(printed.board);
    finding.printed_score = printed.score;
    finding
}

/// What a board taken for a key that changes the state came to.
pub(super) enum Judged {
    /// It is what the rules make: the new state.
    Fits(State),
    /// It breaks a rule: the finding, and the states a game could go on from: the rules'
    /// (each the board could have been if it was misprinted: none where the rules cannot tell,
    /// a new game's tiles, a new tile missing) and the one printed.
    Fault {
        finding: Box<Finding>,
        rules: Vec<State>,
        printed: Option<State>,
    },
}

impl Reading {
    /// A reading before the first key.
    pub(super) fn start(before: &Before) -> Reading {
        Reading {
            next: 0,
            phase: Phase::Menu,
            history: States::default(),
            resumed: 0,
            saved: match before {
                Before::Save(states) => Some(states.clone()),
                Before::Unknown | Before::Nothing => None,
            },
            unseen_resume: false,
            new_tiles: true,
            misprinted: Misprint::No,
            findings: Findings::default(),
            trail: Trail::default(),
            action: Action::Other,
            penalty: 0,
            usual: [None, None],
            irregular: 0,
        }
    }

    /// The current state.
    pub(super) fn current(&self) -> Option<State> {
        self.history.top()
    }

    /// What the reading costs: its findings weighed (`Findings::weight`) and irregular prints
    /// (one weighs as two faults of a board: a fault that looks like a reprint is likelier
    /// than a program that changes how it prints), then (of readings that cost as much) its
    /// findings alone, then its penalties.
    pub(super) fn cost(&self) -> (u32, u32, u32) {
        let findings = self.findings.total();
        let irregular = self.irregular.saturating_mul(4);
        (
            self.findings.weight().saturating_add(irregular),
            findings,
            self.penalty,
        )
    }

    /// This reading with `finding` added.
    pub(super) fn found(&self, finding: Finding) -> Reading {
        let mut next = self.clone();
        next.findings = next.findings.with(finding);
        next
    }

    /// How many boards from `from` print the current state again.
    pub(super) fn copies(&self, ctx: &Context<'_>, from: usize) -> usize {
        let Some(current) = self.current() else {
            return 0;
        };
        ctx.boards[from.min(ctx.limit)..ctx.limit]
            .iter()
            .take_while(|printed| shows(printed, current))
            .count()
    }

    /// The readings of `key`, each with how regularly it makes the program print.
    pub(super) fn after(&self, ctx: &Context<'_>, key: &Key) -> Vec<Reading> {
        let effect = ctx.assignment.effect(self, key, ctx.before);
        let mut this = self.clone();
        this.findings = this.findings.checked(checked_by(&effect, self.new_tiles));
        let this = &this;
        let kind = match effect {
            _ if self.phase != Phase::Game => None,
            Effect::Change(..) => Some(0),
            Effect::Nothing(_, Phase::Game) | Effect::Switch(_) | Effect::Save => Some(1),
            Effect::Nothing(..) | Effect::Enter(_) => None,
        };
        let action = super::state::action_of(&effect);
        let mut readings = this.readings_of(ctx, key, effect);
        for reading in &mut readings {
            reading.action = action;
        }
        if let Some(kind) = kind {
            for reading in &mut readings {
                let taken = u8::try_from(reading.next - self.next).unwrap_or(u8::MAX);
                // Before a key of its kind, a key is expected to print as the other kind did,
                // or (a key that changes nothing, first of all) as the assignment says such a
                // key prints (the MIPS program's `Invalid move.` and no board).
                let usual = self.usual[kind]
                    .or(if kind == 1 {
                        ctx.assignment.unchanged_prints()
                    } else {
                        None
                    })
                    .or(self.usual[1 - kind]);
                if usual.is_some_and(|usual| usual != taken) {
                    reading.irregular += 1;
                }
                // The first key of a kind sets how the program prints for it: a key that
                // prints otherwise is irregular, and so is no key that prints as usual again.
                reading.usual[kind].get_or_insert(taken);
            }
        }
        readings
    }

    /// The readings of `key`, whose effect is `effect`.
    fn readings_of(&self, ctx: &Context<'_>, key: &Key, effect: Effect) -> Vec<Reading> {
        match effect {
            Effect::Change(expect, phase) => self.changed(ctx, key, expect, phase),
            Effect::Nothing(blame, phase) => self.unchanged(ctx, key, blame, phase),
            Effect::Switch(on) => {
                let mut next = self.clone();
                next.new_tiles = on;
                next.unchanged(ctx, key, super::assignment::Blame::Nothing, self.phase)
            }
            Effect::Save => {
                let mut next = self.clone();
                next.saved = Some(self.history.clone());
                next.unchanged(ctx, key, super::assignment::Blame::Save, self.phase)
            }
            Effect::Enter(phase) => {
                let mut next = self.clone();
                next.phase = phase;
                vec![next]
            }
        }
    }

    /// The readings of a key that changes the state to what `expect` says, and the phase to
    /// `phase` (where the board does not end the game): its board is the next one, or the one
    /// after the copies of the current state before it (a program that prints a board twice),
    /// or none (a missing board).
    fn changed(&self, ctx: &Context<'_>, key: &Key, expect: Expect, phase: Phase) -> Vec<Reading> {
        let mut out = Vec::new();
        // The copies a program that prints its board twice leaves before this key's board:
        // one, or as many as such keys took before, never a long run of reprints.
        let twice = usize::from(self.usual[1].unwrap_or(1).max(1));
        let copies = self.copies(ctx, self.next).min(twice);
        let mut candidates = vec![self.next];
        if copies > 0 {
            candidates.push(self.next + copies);
        }
        let mut fitted = false;
        for index in candidates {
            if index >= ctx.limit {
                continue;
            }
            match self.judged(ctx, key, expect, index) {
                Judged::Fits(state) => {
                    fitted = true;
                    out.extend(self.entered(ctx, key, expect, phase, index, state));
                }
                Judged::Fault {
                    finding,
                    rules,
                    printed,
                } => {
                    // The program's state first: of two readings that explain the boards after
                    // alike, the program's is what it goes on from (the rules' explains better
                    // where the board was only misprinted).
                    let misprint = match (rules.is_empty(), finding.rule) {
                        (false, _) => Misprint::No,
                        (true, Rule::NewTileMissing) => Misprint::NewTileLeftOut,
                        (true, _) => Misprint::AnyCell,
                    };
                    let faulty = self.found(*finding);
                    if let Some(state) = printed.filter(|p| !rules.contains(p)) {
                        for mut reading in faulty.entered(ctx, key, expect, phase, index, state) {
                            // Where the rules could not tell the state, the board may have
                            // been misprinted: the next move is judged leniently too.
                            reading.misprinted = misprint;
                            out.push(reading);
                        }
                    }
                    for &state in &rules {
                        for mut reading in faulty.entered(ctx, key, expect, phase, index, state) {
                            reading.penalty += 1;
                            out.push(reading);
                        }
                    }
                }
            }
        }
        // A board that is this key's by the rules leaves no reading where it printed none worth
        // keeping (it would cost a fault more, and read the same boards after).
        // (A resume of a save never seen, or an undo into a resumed save, fits any board or
        // none: both are kept.)
        if !fitted || matches!(expect, Expect::ResumeUnseen | Expect::UndoIntoSave(_)) {
            out.extend(self.missing(ctx, key, expect, phase));
        }
        out
    }

    /// Board `index` judged as `key`'s: by the rules from the current state, and where that
    /// fails on a board that followed a misprint, from each state one cell away from it (the
    /// state the program really had, if the board before was misprinted).
    fn judged(&self, ctx: &Context<'_>, key: &Key, expect: Expect, index: usize) -> Judged {
        let judged = ctx.assignment.judge(self, ctx, key, expect, index);
        let (Judged::Fault { .. }, Expect::Move { direction, .. }) = (&judged, expect) else {
            return judged;
        };
        let Some(current) = self.current() else {
            return judged;
        };
        let nearby_states = match self.misprinted {
            Misprint::No => return judged,
            Misprint::AnyCell => one_cell_away(current),
            Misprint::NewTileLeftOut => one_cell_away(current)
                .into_iter()
                .filter(|near| near.board.empty_count() + 1 == current.board.empty_count())
                .collect(),
        };
        for near in nearby_states {
            let Some((slid, points)) = near.board.slide(direction) else {
                continue;
            };
            let mut nearby = self.clone();
            nearby.history = self.history.popped().pushed(near);
            let expect = Expect::Move {
                direction,
                slid,
                points,
            };
            if let fits @ Judged::Fits(_) = ctx.assignment.judge(&nearby, ctx, key, expect, index) {
                return fits;
            }
        }
        judged
    }

    /// The reading where `key`, which changes the state, printed no board: a fault, unless it
    /// is an undo the program's save could not give. The game goes on as the program left it
    /// (nothing happened), or where the rules tell the state, as they make it.
    fn missing(&self, ctx: &Context<'_>, key: &Key, expect: Expect, phase: Phase) -> Vec<Reading> {
        // No board after `r` of a save the referee never saw: there was none to resume.
        if let Expect::ResumeUnseen = expect {
            return vec![self.clone()];
        }
        if let Expect::UndoIntoSave(_) = expect {
            let mut next = self.clone();
            let current = self.current().expect("a game has a state");
            next.history = States::one(current);
            next.resumed = 0;
            return vec![next];
        }
        let mut finding = Finding::new(
            Rule::MissingBoard,
            format!(
                "key {} '{}' changes the game, but no board follows it",
                key.index, key.typed
            ),
        );
        finding.board = Some(self.next + 1);
        finding.line = ctx.boards.get(self.next).map(|p| p.line);
        finding.key = Some(key.at());
        let mut faulty = self.found(finding);
        // A key's board is the next one printed: a reading that leaves a board there unread
        // explains the transcript worse than its one finding says (it has the board yet to
        // explain), and comes after one that reads it.
        if self.next < ctx.limit {
            faulty.irregular += 1;
            faulty.penalty += 2;
        }
        let mut out = vec![faulty.clone()];
        if let Some(state) = expect.state() {
            let mut reading = faulty;
            reading.apply(expect, phase, state);
            out.push(reading);
        }
        out
    }

    /// The readings once board `index` is taken as `key`'s, showing `state`: its end checked
    /// (a game won or lost says so), the phase the rules or the program go on in.
    fn entered(
        &self,
        ctx: &Context<'_>,
        key: &Key,
        expect: Expect,
        phase: Phase,
        index: usize,
        state: State,
    ) -> Vec<Reading> {
        let mut reading = self.clone();
        reading.next = index + 1;
        reading.apply(expect, phase, state);
        // A resume that showed the save's oldest state may have read a save written newest
        // first oldest first: its game is the saved one backwards, and its undos go forward.
        let backwards = match (&expect, &self.saved) {
            (Expect::Resume(_), Some(saved)) if saved.len() > 1 => {
                let mut states = saved.to_vec();
                (states.first() == Some(&state)).then(|| {
                    states.reverse();
                    let mut backwards = reading.clone();
                    backwards.history = States::of(&states);
                    backwards.resumed = states.len();
                    backwards
                })
            }
            _ => None,
        };
        // (Backwards first: of the two, it is what a program that saves every state has.)
        let mut out = match backwards {
            Some(backwards) => backwards.ended(ctx, Some(key), index, state),
            None => Vec::new(),
        };
        out.extend(reading.ended(ctx, Some(key), index, state));
        // The board printed again right after (a program that prints it twice) may be this
        // key's too: as many copies as such keys took before, or one.
        let twice = usize::from(self.usual[0].unwrap_or(2).max(2)) - 1;
        let trailing = out.first().map_or(0, |r| r.copies(ctx, r.next).min(twice));
        if trailing > 0 {
            let reprinted: Vec<Reading> = out
                .iter()
                .map(|r| {
                    let mut r = r.clone();
                    r.next += trailing;
                    r
                })
                .collect();
            out.extend(reprinted);
        }
        out
    }

    /// The history and phase once `state` is the one `expect` made.
    fn apply(&mut self, expect: Expect, phase: Phase, state: State) {
        self.misprinted = Misprint::No;
        match expect {
            Expect::NewGame(_) | Expect::StartState(_) => {
                self.history = States::one(state);
                self.resumed = 0;
                self.new_tiles = true;
            }
            Expect::Move { .. } => self.history = self.history.pushed(state),
            Expect::Resume(_) => {
                // The saved game, or (a resume that showed an earlier state of it) the saved
                // game up to that state, as a program that resumed it there has it.
                let saved = match &self.saved {
                    Some(saved) if saved.top() == Some(state) => saved.clone(),
                    Some(saved) => {
                        let states = saved.to_vec();
                        match states.iter().rposition(|&s| s == state) {
                            Some(at) => States::of(&states[..=at]),
                            None => States::one(state),
                        }
                    }
                    None => States::one(state),
                };
                self.resumed = saved.len();
                self.history = saved;
            }
            Expect::ResumeUnseen => {
                self.history = States::one(state);
                self.saved = Some(self.history.clone());
                self.resumed = 1;
                self.unseen_resume = true;
            }
            Expect::Undo(_) | Expect::UndoIntoSave(_) => {
                // The state before the last move; else (an undo that did nothing, or went
                // back further) the game as the program has it then, its history unpopped or
                // popped to that state; else the undo's state misprinted.
                let popped = self.history.popped();
                self.history = if popped.top() == Some(state) {
                    popped
                } else if self.history.top() == Some(state) {
                    self.history.clone()
                } else {
                    let states = popped.to_vec();
                    match states.iter().rposition(|&s| s == state) {
                        Some(at) => States::of(&states[..=at]),
                        None => popped.popped().pushed(state),
                    }
                };
            }
        }
        self.phase = phase;
    }

    /// The readings of a key that changes nothing (and sets the phase to `phase`): it takes no
    /// board, or the copies of the current state that follow (a program that prints the board
    /// after every key), or a board that shows what `blame` says it must not do (a fault).
    fn unchanged(
        &self,
        ctx: &Context<'_>,
        key: &Key,
        blame: super::assignment::Blame,
        phase: Phase,
    ) -> Vec<Reading> {
        let mut quiet = self.clone();
        quiet.phase = phase;
        let copies = quiet.copies(ctx, quiet.next);
        // A key that leaves the game (to the menu, or out of the program): the copies of its
        // board printed before are the game's, never a later key's.
        let leaves = self.phase != phase && matches!(phase, Phase::Menu | Phase::Closed);
        let mut out = Vec::new();
        // No board, one (a program that prints the board after every key), or as many as such
        // keys took before (one that prints it twice); a key that leaves the game may also
        // take the reprint a key before it left (printed before the menu). Never a long run of
        // reprints at once: each key after takes its own.
        // The likeliest first (as such keys took before), so that of readings that explain as
        // much, the likeliest is kept.
        let usual = usize::from(self.usual[1].or(self.usual[0]).unwrap_or(1));
        let mut counts = if leaves {
            vec![usual + 1, usual, 1, 0]
        } else {
            vec![usual, 1, 0]
        };
        counts.retain(|&n| n <= copies);
        let mut seen = Vec::new();
        counts.retain(|n| {
            let first = !seen.contains(n);
            seen.push(*n);
            first
        });
        for taken in counts {
            let mut reprinted = quiet.clone();
            reprinted.next += taken;
            out.push(reprinted);
        }
        // The board a fault shows is the next one, or the one after a reprint or two: never
        // one past a long run of reprints, which later keys take.
        let shown_at = quiet.next + copies.min(usual.max(1));
        if let Some((finding, printed)) = Assignment::blamed(self, ctx, key, blame, shown_at) {
            let faulty = quiet.found(finding);
            let index = shown_at;
            let mut by_rules = faulty.clone();
            by_rules.next = index + 1;
            by_rules.penalty += 1;
            if let Some(state) = printed {
                let mut by_program = faulty;
                by_program.next = index + 1;
                by_program.history = by_program.history.pushed(state);
                by_program.phase = Phase::Game;
                out.push(by_program);
            }
            out.push(by_rules);
        }
        out
    }

    /// Whether `self` and `other` stand alike for every key to come: the same board next, the
    /// same phase and game.
    pub(super) fn same_place(&self, other: &Reading) -> bool {
        self.next == other.next
            && self.phase == other.phase
            && self.new_tiles == other.new_tiles
            && self.misprinted == other.misprinted
            && self.usual == other.usual
            && self.history.len() == other.history.len()
            && self.current() == other.current()
            && self.resumed == other.resumed
            && match (&self.saved, &other.saved) {
                (Some(a), Some(b)) => a.same(b) || a.top() == b.top() && a.len() == b.len(),
                (None, None) => true,
                _ => false,
            }
    }
}

/// The states one cell away from `state` (a tile added, taken away, or one step larger or
/// smaller), in row-major order: what a board misprinted in one cell really was.
fn one_cell_away(state: State) -> Vec<State> {
    let board = state.board;
    let mut out = Vec::new();
    for (i, &e) in board.exponents().iter().enumerate() {
        let options: &[u8] = match e {
            0 => &[1, 2],
            1 => &[0, 2],
            _ => &[0, e - 1, e + 1],
        };
        for &option in options {
            if option == 0 && e == 0 || option > crate::model::line::MAX_TILE_EXPONENT {
                continue;
            }
            let mut near = board;
            near.set(i / board.size(), i % board.size(), option);
            out.push(State {
                board: near,
                score: state.score,
            });
        }
    }
    out
}

/// The board `printed` as a state, with `score` where it prints none.
pub(super) fn printed_state(printed: &Printed, score: crate::model::rules::Score) -> State {
    State {
        board: printed.board,
        score: printed.score.unwrap_or(score),
    }
}
