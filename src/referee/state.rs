//! What a reading of a transcript carries from key to key, in forms that cost nothing to copy:
//! the game's states as a persistent stack ([`States`]: a push or a pop makes a new stack that
//! shares the rest), and the findings so far as a persistent list with a count a rule
//! ([`Findings`]). The referee keeps a few readings side by side and drops all but the best, so
//! a copy must not copy a history of a million states.

use super::assignment::{Effect, Expect};
use super::{Action, Finding, Rule, Step};
use crate::model::game::Snapshot;
use std::rc::Rc;

/// A game's state: what a save holds of it.
pub(super) type State = Snapshot;

/// A game's states, oldest at the bottom, the current one on top; empty before a game.
#[derive(Clone, Debug, Default)]
pub(super) struct States(Option<Rc<Node>>);

#[derive(Debug)]
struct Node {
    state: State,
    below: States,
    len: usize,
}

impl States {
    /// A stack of `state` alone.
    pub(super) fn one(state: State) -> States {
        States::default().pushed(state)
    }

    /// A stack of `states`, oldest first.
    pub(super) fn of(states: &[State]) -> States {
        states
            .iter()
            .fold(States::default(), |stack, &state| stack.pushed(state))
    }

    /// This stack with `state` on top.
    pub(super) fn pushed(&self, state: State) -> States {
        States(Some(Rc::new(Node {
            state,
            below: self.clone(),
            len: self.len() + 1,
        })))
    }

    /// This stack without its top.
    pub(super) fn popped(&self) -> States {
        self.0
            .as_ref()
            .map_or_else(States::default, |node| node.below.clone())
    }

    /// The current state.
    pub(super) fn top(&self) -> Option<State> {
        self.0.as_ref().map(|node| node.state)
    }

    /// The state before the current one.
    pub(super) fn second(&self) -> Option<State> {
        self.0.as_ref().and_then(|node| node.below.top())
    }

    /// How many states.
    pub(super) fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |node| node.len)
    }

    /// Whether `self` and `other` are the same stack (not only equal states).
    pub(super) fn same(&self, other: &States) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }

    /// The states, oldest first.
    pub(super) fn to_vec(&self) -> Vec<State> {
        let mut states = Vec::with_capacity(self.len());
        let mut at = self;
        while let Some(node) = &at.0 {
            states.push(node.state);
            at = &node.below;
        }
        states.reverse();
        states
    }
}

impl Drop for Node {
    /// Lets go of a long stack a node at a time: the default drop would recurse once a state.
    fn drop(&mut self) {
        let mut below = self.below.0.take();
        while let Some(node) = below {
            match Rc::try_unwrap(node) {
                Ok(mut node) => below = node.below.0.take(),
                Err(_) => break,
            }
        }
    }
}

/// The keys a reading has carried out, newest first: for each, how many boards had been taken
/// once it was answered and what it did, as a persistent list (a copy shares it). What a
/// replay of the run steps through.
#[derive(Clone, Debug, Default)]
pub(super) struct Trail(Option<Rc<TrailNode>>);

#[derive(Debug)]
struct TrailNode {
    step: Step,
    before: Trail,
}

impl Trail {
    /// This trail and `step`.
    pub(super) fn pushed(&self, step: Step) -> Trail {
        Trail(Some(Rc::new(TrailNode {
            step,
            before: self.clone(),
        })))
    }

    /// The steps, oldest first.
    pub(super) fn to_vec(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut at = self;
        while let Some(node) = &at.0 {
            steps.push(node.step);
            at = &node.before;
        }
        steps.reverse();
        steps
    }
}

/// What a key with `effect` did, as a trail marks it.
pub(super) fn action_of(effect: &Effect) -> Action {
    match effect {
        Effect::Change(Expect::NewGame(_) | Expect::StartState(_), _) => Action::NewGame,
        Effect::Change(Expect::Move { .. }, _) => Action::Move,
        Effect::Change(Expect::Undo(_) | Expect::UndoIntoSave(_), _) => Action::Undo,
        Effect::Change(Expect::Resume(_) | Expect::ResumeUnseen, _) => Action::Resume,
        Effect::Save => Action::Save,
        Effect::Nothing(..) | Effect::Switch(_) | Effect::Enter(_) => Action::Other,
    }
}

impl Drop for TrailNode {
    /// Lets go of a long trail a node at a time (the default drop recurses once a key).
    fn drop(&mut self) {
        let mut before = self.before.0.take();
        while let Some(node) = before {
            match Rc::try_unwrap(node) {
                Ok(mut node) => before = node.before.0.take(),
                Err(_) => break,
            }
        }
    }
}

/// The most instances of one rule a report keeps (every one is counted).
pub(super) const KEPT_A_RULE: usize = 100;

/// The findings of a reading: a persistent list, newest first, keeping at most
/// [`KEPT_A_RULE`] of a rule, and the count of every rule.
#[derive(Clone, Debug)]
pub(super) struct Findings {
    list: Option<Rc<FindingNode>>,
    counts: Rc<[u32; Rule::ALL.len()]>,
    /// How many times each rule was checked (a board or key it applies to was judged),
    /// broken or not: a rule never checked is not said to hold.
    checks: Rc<[u32; Rule::ALL.len()]>,
    total: u32,
    /// The findings weighed: a board the rules do not explain weighs two, a fault in what is
    /// said of a board that is right (its score, its end message) one.
    weight: u32,
}

#[derive(Debug)]
struct FindingNode {
    finding: Finding,
    next: Option<Rc<FindingNode>>,
}

impl Drop for FindingNode {
    fn drop(&mut self) {
        let mut next = self.next.take();
        while let Some(node) = next {
            match Rc::try_unwrap(node) {
                Ok(mut node) => next = node.next.take(),
                Err(_) => break,
            }
        }
    }
}

impl Default for Findings {
    fn default() -> Findings {
        Findings {
            list: None,
            counts: Rc::new([0; Rule::ALL.len()]),
            checks: Rc::new([0; Rule::ALL.len()]),
            total: 0,
            weight: 0,
        }
    }
}

/// What a finding of `rule` weighs when readings are compared: a fault in what is said of a
/// board that is itself right (its score, an end message) one, a board the rules do not make
/// two. A reading that reads the boards off by one breaks board rules at every key, where the
/// right reading of a program that only miscounts its score breaks the score rule alone.
fn weight_of(rule: Rule) -> u32 {
    match rule {
        Rule::Score
        | Rule::NewGameScore
        | Rule::WinScore
        | Rule::WinNotAnnounced
        | Rule::WinTooEarly
        | Rule::LossNotAnnounced
        | Rule::LossTooEarly => 1,
        _ => 2,
    }
}

impl Findings {
    /// These findings and `finding`.
    pub(super) fn with(&self, finding: Finding) -> Findings {
        let mut counts = *self.counts;
        let count = &mut counts[finding.rule.index()];
        *count = count.saturating_add(1);
        let keep = (*count as usize) <= KEPT_A_RULE;
        let weight = self.weight.saturating_add(weight_of(finding.rule));
        Findings {
            list: if keep {
                Some(Rc::new(FindingNode {
                    finding,
                    next: self.list.clone(),
                }))
            } else {
                self.list.clone()
            },
            counts: Rc::new(counts),
            checks: Rc::clone(&self.checks),
            total: self.total.saturating_add(1),
            weight,
        }
    }

    /// These findings, with each of `rules` checked once more.
    pub(super) fn checked(&self, rules: &[Rule]) -> Findings {
        let mut checks = *self.checks;
        for rule in rules {
            let count = &mut checks[rule.index()];
            *count = count.saturating_add(1);
        }
        Findings {
            checks: Rc::new(checks),
            ..self.clone()
        }
    }

    /// How many times each rule was checked.
    pub(super) fn checks(&self) -> &[u32] {
        &self.checks[..]
    }

    /// The findings weighed ([`weight_of`]).
    pub(super) fn weight(&self) -> u32 {
        self.weight
    }

    /// How many findings, of every rule.
    pub(super) fn total(&self) -> u32 {
        self.total
    }

    /// How many findings of each rule.
    pub(super) fn counts(&self) -> &[u32] {
        &self.counts[..]
    }

    /// The findings kept, oldest first.
    pub(super) fn to_vec(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut at = &self.list;
        while let Some(node) = at {
            out.push(node.finding.clone());
            at = &node.next;
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::Board;

    fn state(score: i128) -> State {
        State {
            board: Board::new(crate::model::size::Size::new(4).unwrap()),
            score,
        }
    }

    #[test]
    fn a_stack_shares_what_it_does_not_change() {
        let base = States::of(&[state(0), state(4), state(8)]);
        let undone = base.popped();
        let other = undone.pushed(state(12));
        assert_eq!(base.len(), 3);
        assert_eq!(
            other.to_vec().iter().map(|s| s.score).collect::<Vec<_>>(),
            [0, 4, 12]
        );
        assert_eq!(base.second().map(|s| s.score), Some(4));
        assert!(base.popped().same(&undone));
        // A long stack is let go of without recursing once a state.
        let long = (0..1_000_000).fold(States::default(), |s, i| s.pushed(state(i)));
        assert_eq!(long.len(), 1_000_000);
        drop(long);
    }

    #[test]
    fn findings_count_every_instance_and_keep_the_first_of_a_rule() {
        let mut findings = Findings::default();
        for i in 0..(KEPT_A_RULE + 5) {
            findings = findings.with(Finding::new(Rule::Score, format!("{i}")));
        }
        findings = findings.with(Finding::new(Rule::Undo, "undo"));
        assert_eq!(findings.total() as usize, KEPT_A_RULE + 6);
        assert_eq!(
            findings.counts()[Rule::Score.index()] as usize,
            KEPT_A_RULE + 5
        );
        let kept = findings.to_vec();
        assert_eq!(kept.len(), KEPT_A_RULE + 1);
        assert_eq!(kept[0].detail, "0");
        assert_eq!(kept.last().unwrap().rule, Rule::Undo);
    }
}
