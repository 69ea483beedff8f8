//! How the searches value a chance node (the new tile): the one place both the hand-tuned
//! expectimax and the learned player take it from.
//!
//! Expectimax values a chance node at the mean of its outcomes. In a game that ends at its goal
//! (Power-11, `mini`), a game is won or lost and nothing else counts, and the mean undervalues
//! the one outcome that matters: a move whose new tile can land where it ends the game, 1 chance
//! in 20 or 30, is worth little less than a safe one by the mean. The searches there lean from
//! the mean toward the worst outcome: `mean - lean * (mean - worst)`, with `lean` =
//! [`RISK_AVERSION`]. Measured on Power-11 Hard (seeds 1 to 8, 1000 games each), the learned
//! player's depth policy lost 12 of 8000 games with the mean and 2 with the lean; the hand-tuned
//! search, on seed 1, won the three games it lost with the mean and lost one other (999/1000).
//! Keep-playing games (classic) are scored by points, and there the lean costs: the learned
//! player at depth 2 made 16384 in 55.7% of 1000 classic games with it against 61.4% without
//! (an experiment build; measurements/search.md, "Leaning toward the worst tile"). So they
//! keep the mean.

use crate::model::rules::Rules;

/// How far a chance node's value leans from the mean of its outcomes toward the worst one, in
/// games that end at their goal. Changing it changes the moves of recorded runs: raise
/// [`super::SEARCH_REVISION`] with it.
pub const RISK_AVERSION: f32 = 0.2;

/// The lean a search uses under `rules`: [`RISK_AVERSION`] when a game ends at its goal (won or
/// lost), none when it keeps playing or has no goal (not won or lost).
pub fn lean(rules: &Rules) -> f32 {
    if rules.ends_at_goal() {
        RISK_AVERSION
    } else {
        0.0
    }
}

/// A chance node's value from the mean and the worst of its outcomes' values. With no lean it
/// is the mean, to the bit, so a search that does not lean plays exactly as it always has.
#[inline]
pub fn chance_value(mean: f32, worst: f32, lean: f32) -> f32 {
    if lean == 0.0 {
        mean
    } else {
        mean - lean * (mean - worst)
    }
}

#[cfg(test)]
mod tests {
    // The values are exact by construction, and the mean must come back to the bit.
    #![allow(clippy::float_cmp)]
    use super::*;

    #[test]
    fn games_that_end_at_their_goal_lean_and_the_others_do_not() {
        assert_eq!(lean(&Rules::power11(4).unwrap()), RISK_AVERSION);
        assert_eq!(lean(&Rules::power11(5).unwrap()), RISK_AVERSION);
        assert_eq!(lean(&Rules::mini()), RISK_AVERSION);
        assert_eq!(lean(&Rules::classic()), 0.0);
        assert_eq!(
            lean(&Rules::power11(4).unwrap().with_goal(None).unwrap()),
            0.0
        );
    }

    #[test]
    fn the_value_leans_from_the_mean_toward_the_worst() {
        assert_eq!(chance_value(100.0, 20.0, 0.0), 100.0);
        assert_eq!(chance_value(100.0, 20.0, 0.25), 80.0);
        assert_eq!(chance_value(100.0, 20.0, 1.0), 20.0);
        // No lean is the mean exactly, whatever the worst.
        assert_eq!(chance_value(0.1, f32::INFINITY, 0.0), 0.1);
    }
}
