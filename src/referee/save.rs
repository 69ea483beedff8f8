//! The save file a program wrote (`power11.saved`), checked against the game: the
//! assignment's format, its last state the board shown when `s` was last pressed, and its
//! states the game's history oldest first (the undo bonus) or that state alone.

use super::replay::State;
use super::slides::values;
use super::{Finding, Rule, SaveKind};
use crate::text::{newest_first, parse_save};

/// What `text` (a save file) holds against `saved` (the game's states at the last `s`, if
/// the keys pressed it), and the violation, if any.
pub(super) fn check(text: &str, saved: Option<&[State]>) -> (SaveKind, Option<Finding>) {
    let timeline = match parse_save(text) {
        Ok(timeline) => timeline,
        Err(e) => {
            let finding = Finding::new(
                Rule::SaveFormat,
                format!("the save file, line {}: {}", e.line, e.problem),
            );
            return (SaveKind::Unchecked, Some(finding));
        }
    };
    let Some(saved) = saved else {
        return (SaveKind::Unchecked, None);
    };
    let mut states = timeline.states().to_vec();
    if newest_first(&states) {
        states.reverse();
    }
    let current = saved.last().expect("a game has a state");
    let last = states.last().expect("a save holds a state");
    if last != current {
        let mut finding = Finding::new(
            Rule::SaveState,
            "the save's last state is not the board shown when s was pressed",
        );
        finding.expected = Some(values(&current.board));
        finding.expected_score = Some(current.score);
        finding.printed = Some(values(&last.board));
        finding.printed_score = Some(last.score);
        return (SaveKind::Unchecked, Some(finding));
    }
    if states == saved {
        return (SaveKind::History, None);
    }
    if states.len() == 1 {
        return (SaveKind::OneState, None);
    }
    let finding = Finding::new(
        Rule::SaveHistory,
        format!(
            "the save holds {} states, and they are not the game's {} states oldest first",
            states.len(),
            saved.len()
        ),
    );
    (SaveKind::Unchecked, Some(finding))
}

/// A format warning if `text` holds its states newest first (readable, but not the
/// assignment's order).
pub(super) fn order_warning(text: &str, saved: Option<&[State]>) -> Option<Finding> {
    let timeline = parse_save(text).ok()?;
    let states = timeline.states();
    (saved.is_some() && states.len() > 1 && newest_first(states)).then(|| {
        Finding::new(
            Rule::SaveOrder,
            "the save holds its states newest first; the assignment's order is oldest first",
        )
    })
}
