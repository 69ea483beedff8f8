//! Front ends: each maps its input to `session::Command`s and draws the session's screens and
//! events on its reader, writer or terminal. A front end never opens a file: the session's
//! `Store` (`files::store`) does.

pub mod autoplay;
pub mod console;
pub mod mips;
pub mod tui;

/// What the console and the full-screen mode say after a save that left out the oldest
/// `left_out` states of a history too long to read back whole.
fn saved_without(location: &str, left_out: usize) -> String {
    let moves = if left_out == 1 { "move" } else { "moves" };
    format!(
        "Game saved to {location} without its first {left_out} {moves}: the rest of its history is as long as a save can be."
    )
}

/// What the console and the full-screen mode say, once a game, when it first lets go of its
/// oldest states to keep no more than a save holds.
fn history_forgotten(kept: usize) -> String {
    format!(
        "This game now keeps only its last {kept} states, as many as a save can hold: undo no longer reaches its first moves."
    )
}

/// What the console and the full-screen mode say when the best scores could not be written:
/// once, as the session keeps them in memory from then on.
fn best_not_saved(error: &dyn std::fmt::Display) -> String {
    format!("Could not save the best score: {error}; best scores are kept for this session only.")
}

/// What the console and the full-screen mode say, once, when a saved game's history is not one
/// the rules can make (an edited save): it resumes, as the user's file, but its score is not a
/// best score.
fn resumed_unexplained(state: usize, states: usize, why: &str) -> String {
    format!(
        "The saved game's state {state} of {states} is not one the rules can make ({why}): it resumes as it is, and does not count for the best score."
    )
}

/// What the console and the full-screen mode say when a saved game of a size the menu does
/// not offer goes on under the session's rules: a save holds no rules, so a 3x3 game saved
/// under `mini` is resumed under the rules this program was started with.
fn resumed_under(rules: &crate::model::rules::Rules) -> String {
    use crate::model::named::Named;
    let n = rules.size();
    let goal = rules.goal().map_or("no goal".to_string(), |g| {
        format!("goal {}", crate::model::board::tile_value(g))
    });
    let hint = if n == 3 {
        "--variant mini"
    } else {
        "--variant NAME"
    };
    format!(
        "The saved game is {n}x{n}, a size this menu does not offer: it goes on under {} rules ({goal}). For the rules it was played by, start power11 {hint}.",
        rules.variant().name()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_resume_under_other_rules_names_them_and_the_way_back() {
        let rules = crate::model::rules::Rules::power11(3).unwrap();
        assert_eq!(
            super::resumed_under(&rules),
            "The saved game is 3x3, a size this menu does not offer: it goes on under power11 rules (goal 2048). For the rules it was played by, start power11 --variant mini."
        );
    }

    #[test]
    fn a_shortened_save_says_how_many_moves_it_left_out() {
        assert_eq!(
            super::saved_without("power11.saved", 1),
            "Game saved to power11.saved without its first 1 move: the rest of its history is as long as a save can be."
        );
        assert!(super::saved_without("s", 639_557).contains(" its first 639557 moves: "));
    }
}
