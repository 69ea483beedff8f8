//! The end of a game in a reading: a board the rules say wins or loses must say so, and one
//! that goes on must not; where a program breaks that, the game goes on both ways (as the
//! program went on, and as the rules say), and the later keys decide.

use super::Rule;
use super::keys::Key;
use super::reading::{Context, Phase, Reading, at, shows};
use super::state::State;
use super::transcript::End;
use crate::model::grid::Grid;

impl Reading {
    /// The readings once the board at `index`, showing `state`, is taken: a game won or lost
    /// says so, and one that goes on says neither. Where it breaks that, the game goes on as
    /// the program went on (ended, or not) and as the rules say, two readings.
    pub(super) fn ended(
        mut self,
        ctx: &Context<'_>,
        key: Option<&Key>,
        index: usize,
        state: State,
    ) -> Vec<Reading> {
        let over = ctx.assignment.over_phase();
        // Every board taken checks that no end is said too early; a won board, that the win
        // is said (with its score); a lost one, that the loss is.
        let won = ctx.assignment.won(&state.board);
        let lost = !won && !state.board.can_move();
        let mut checked = vec![Rule::WinTooEarly, Rule::LossTooEarly];
        if won {
            checked.push(Rule::WinNotAnnounced);
            if ctx.assignment.has_scores() {
                checked.push(Rule::WinScore);
            }
        }
        if lost {
            checked.push(Rule::LossNotAnnounced);
        }
        self.findings = self.findings.checked(&checked);
        let (fault, rules_phase, program_phase) = match end_fault(ctx, index, state) {
            None if ctx.assignment.won(&state.board) || !state.board.can_move() => {
                (None, over, over)
            }
            None => (None, self.phase, self.phase),
            Some((rule, detail, said_end)) => {
                let printed = &ctx.boards[index];
                let mut finding = at(rule, index, printed, key, detail);
                if rule == Rule::WinScore {
                    finding.expected_score = Some(state.score);
                }
                let (rules, program) = match rule {
                    // The message was said; only its score was wrong.
                    Rule::WinScore => (over, over),
                    _ if said_end => (self.phase, over),
                    _ => (over, Phase::Game),
                };
                (Some(finding), rules, program)
            }
        };
        match fault {
            None => {
                self.phase = rules_phase;
                vec![self]
            }
            Some(finding) => {
                let faulty = self.found(finding);
                let mut by_rules = faulty.clone();
                by_rules.phase = rules_phase;
                by_rules.penalty += 1;
                let mut by_program = faulty;
                by_program.phase = program_phase;
                if by_program.phase == by_rules.phase {
                    vec![by_program]
                } else {
                    vec![by_program, by_rules]
                }
            }
        }
    }
}

/// The end rule the board at `index` (showing `state`) breaks, if any: its rule, in words, and
/// whether the program said the game ended (a message where the rules have none). A message
/// after a copy of the board printed right after it counts as said (a program that prints its
/// last board twice).
fn end_fault(ctx: &Context<'_>, index: usize, state: State) -> Option<(Rule, String, bool)> {
    let assignment = ctx.assignment;
    let won = assignment.won(&state.board);
    let lost = !won && !state.board.can_move();
    let copies = ctx.boards[index + 1..ctx.limit]
        .iter()
        .take_while(|printed| shows(printed, state));
    let ends = || {
        ctx.boards[index]
            .ends
            .iter()
            .chain(copies.clone().flat_map(|printed| printed.ends.iter()))
    };
    let said_won = ends().find_map(|e| match e {
        End::Won(n) => Some(*n),
        End::Lost => None,
    });
    let said_lost = ends().any(|e| *e == End::Lost);
    let (goal, win_words, loss_words) = (
        assignment.goal_value(),
        assignment.win_words(),
        assignment.loss_words(),
    );
    match (won, said_won, lost, said_lost) {
        (true, None, _, _) => Some((
            Rule::WinNotAnnounced,
            format!("a {goal} is on the board, and no {win_words} follows"),
            false,
        )),
        (true, Some(Some(n)), _, _) if assignment.has_scores() && n != state.score => Some((
            Rule::WinScore,
            format!(
                "YOU WON WITH A SCORE OF {n}, where the score is {}",
                state.score
            ),
            true,
        )),
        (false, Some(_), _, _) => Some((
            Rule::WinTooEarly,
            format!("{win_words} on a board without a {goal}"),
            true,
        )),
        (false, None, true, false) => Some((
            Rule::LossNotAnnounced,
            format!("no move changes this board, and no {loss_words} follows"),
            false,
        )),
        (false, None, false, true) => Some((
            Rule::LossTooEarly,
            format!("{loss_words} on a board that a move can still change"),
            true,
        )),
        (true, Some(_), _, _) | (false, None, _, _) => None,
    }
}
