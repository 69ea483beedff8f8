//! The save file a program wrote (`power11.saved`), checked against the game: the
//! assignment's format, its last state the board shown when `s` was last pressed, and its
//! states the game's history oldest first (the undo bonus) or that state alone.

use super::state::State;
use super::{Finding, Rule, SaveKind};
use crate::text::{newest_first, parse_save_as_listed};

/// What a save file holds against the game: what it was found to be, the rule it breaks (if
/// any), and the format warning (if any).
pub(super) struct Checked {
    pub kind: SaveKind,
    pub violation: Option<Finding>,
    pub warning: Option<Finding>,
}

/// What `text` (a save file) holds against `saved` (the game's states at the last `s`, if
/// one was pressed in a game, whatever the game did before or after it).
pub(super) fn check(text: &str, saved: Option<&[State]>) -> Checked {
    let timeline = match parse_save_as_listed(text) {
        Ok(timeline) => timeline,
        Err(e) => {
            let finding = Finding::new(
                Rule::SaveFormat,
                format!("the save file, line {}: {}", e.line, e.problem),
            );
            return Checked {
                kind: SaveKind::Faulty,
                violation: Some(finding),
                warning: None,
            };
        }
    };
    let mut states = timeline.states().to_vec();
    // Newest first is readable, but not the assignment's order: a format warning, whether or
    // not the game can be checked.
    let newest = states.len() > 1 && newest_first(&states);
    if newest {
        states.reverse();
    }
    let warning = newest.then(|| {
        Finding::new(
            Rule::SaveOrder,
            "the save holds its states newest first; the assignment's order is oldest first",
        )
    });
    let Some(saved) = saved else {
        return Checked {
            kind: SaveKind::Unchecked,
            violation: None,
            warning,
        };
    };
    let (kind, violation) = against(&states, saved);
    Checked {
        kind,
        violation,
        warning,
    }
}

/// What `states` (a save's, oldest first) are against `saved` (the game's at the last `s`).
fn against(states: &[State], saved: &[State]) -> (SaveKind, Option<Finding>) {
    let current = saved.last().expect("a game has a state");
    let last = states.last().expect("a save holds a state");
    if last != current {
        let mut finding = Finding::new(
            Rule::SaveState,
            "the save's last state is not the board shown when s was pressed",
        );
        finding.expected = Some(current.board);
        finding.expected_score = Some(current.score);
        finding.printed = Some(last.board);
        finding.printed_score = Some(last.score);
        return (SaveKind::Faulty, Some(finding));
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
    (SaveKind::Faulty, Some(finding))
}
