//! Drawing: boards, the `Score:` line, the menu, game and end screens, the advice line.

use super::MIN_CELL_WIDTH;
use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use crate::model::game::{Game, Snapshot, Status, Timeline};
use crate::model::named::Named;
use crate::model::rules::{Rules, Score, Variant};
use crate::session::{AdviceReport, MenuStyle};
use std::fmt::Write as _;

/// How wide every cell of `board` is drawn: the widest tile's digits, at least
/// [`MIN_CELL_WIDTH`]. The line game and the full-screen mode share it.
pub fn cell_width(board: &Board) -> usize {
    board
        .exponents()
        .iter()
        .map(|&e| tile_value(e).to_string().len())
        .max()
        .unwrap_or(0)
        .max(MIN_CELL_WIDTH)
}

/// The board as the game prints it: a frame of `#`, cells right-aligned in a field of 4
/// characters (wider if a tile needs more digits, the same width for the whole board) joined by
/// `|`. Ends with a newline.
pub fn render_board(board: &Board) -> String {
    let n = board.size();
    let width = cell_width(board);
    let frame = "#".repeat(2 + n * width + (n - 1));
    let mut out = String::with_capacity((frame.len() + 1) * (n + 2));
    out.push_str(&frame);
    out.push('\n');
    for r in 0..n {
        out.push('#');
        for c in 0..n {
            if c > 0 {
                out.push('|');
            }
            let e = board.get(r, c);
            if e == 0 {
                out.extend(std::iter::repeat_n(' ', width));
            } else {
                let _ = write!(out, "{:>width$}", tile_value(e));
            }
        }
        out.push_str("#\n");
    }
    out.push_str(&frame);
    out.push('\n');
    out
}

/// A state as shown: the `Score: N` line, a `Best: B` line where the rules keep a best score,
/// then the board. This is the one place the `Score:` line is written.
pub fn render_scored(score: Score, best: Option<Score>, board: &Board) -> String {
    let mut text = format!("Score: {score}\n");
    if let Some(best) = best {
        let _ = writeln!(text, "Best: {best}");
    }
    text.push_str(&render_board(board));
    text
}

/// A state as saved: the `Score: N` line, then the board.
pub fn render_state(state: &Snapshot) -> String {
    render_scored(state.score, None, &state.board)
}

/// The length in bytes of [`render_state`]`(state)`, known without drawing it: a save's size
/// is known before it is written.
pub fn state_len(state: &Snapshot) -> usize {
    let n = state.board.size();
    let row = 2 + n * cell_width(&state.board) + (n - 1) + 1;
    let score = state.score;
    let digits = usize::from(score < 0)
        + score
            .unsigned_abs()
            .checked_ilog10()
            .map_or(1, |d| d as usize + 1);
    "Score: \n".len() + digits + (n + 2) * row
}

/// The largest save file: 256 MiB, well above any real game (a history of a million moves on
/// 4x4 is about 150 MB). A save is read up to it, and written within it.
pub const MAX_SAVE_BYTES: u64 = 256 << 20;

/// The most states a save holds on `size` boards: as many of its smallest states (score 0,
/// tiles of at most four digits) as [`MAX_SAVE_BYTES`] takes. A game keeps no more history
/// than that in memory (`Game::limit_history`): undo never reaches a state no save could hold.
pub fn states_a_save_holds(size: usize) -> usize {
    let n = size;
    let smallest = "Score: 0\n".len() + (n + 2) * (2 + n * MIN_CELL_WIDTH + (n - 1) + 1);
    // The last state has no newline after it.
    ((MAX_SAVE_BYTES + 1) / smallest as u64) as usize
}

/// Where the newest states of `states` that fit in a save of `limit` bytes start (the current
/// state is kept whatever its size): a save of a history too long for the file leaves out its
/// oldest states.
pub fn first_saved(states: &[Snapshot], limit: usize) -> usize {
    // The last state has no newline after it.
    let mut total = 0usize;
    let mut first = states.len();
    for (i, state) in states.iter().enumerate().rev() {
        total += state_len(state);
        if total > limit + 1 && i + 1 < states.len() {
            break;
        }
        first = i;
    }
    first
}

/// Writes the save file of `states` (oldest first) to `out`, as [`render_save`] draws it, a
/// state at a time: a save of the longest history holds no second copy of it in memory.
pub fn write_save_to(out: &mut dyn std::io::Write, states: &[Snapshot]) -> std::io::Result<()> {
    for (i, state) in states.iter().enumerate() {
        let mut text = render_state(state);
        if i + 1 == states.len() {
            text.pop();
        }
        out.write_all(text.as_bytes())?;
    }
    Ok(())
}

/// The whole save file for `timeline`, as the other Power-11 programs write it: the game's start
/// first, the current state last, and no newline after the last row (one of them reads a
/// final newline as the start of another state).
pub fn render_save(timeline: &Timeline) -> String {
    let mut text: String = timeline.states().iter().map(render_state).collect();
    text.pop();
    text
}

/// The welcome menu.
pub fn render_menu(style: MenuStyle, rules: &Rules) -> String {
    let mut text = String::from("Welcome to Power-11!");
    match style {
        MenuStyle::EasyHard => text.push_str(
            "\n  e - start a new Easy (5-by-5) game\n  h - start a new Hard (4-by-4) game\n",
        ),
        MenuStyle::OneSize => {
            let n = rules.size();
            let goal = rules
                .goal()
                .map_or("no goal".to_string(), |g| format!("goal {}", tile_value(g)));
            let _ = write!(
                text,
                " ({}, {n}-by-{n}, {goal})\n  n - start a new {n}-by-{n} game\n",
                rules.variant().name()
            );
        }
    }
    text.push_str("  r - Resume the last saved game\n  q - Quit the game\n");
    text
}

/// The best score a line screen of `game` shows: none in Power-11 games, whose screens are the
/// assignment's (it has no `Best:` line; their best score is kept all the same, and shown
/// full-screen), `best` in every other rule set.
fn line_best(game: &Game, best: Score) -> Option<Score> {
    (game.rules().variant() != Variant::Power11).then_some(best)
}

/// The game screen of the line console: the state and the keys, `location` being where `s`
/// saves.
pub fn render_game_screen(game: &Game, best: Score, location: &str) -> String {
    let mut text = render_scored(game.score(), line_best(game, best), game.board());
    text.push_str("Moves: u = Up, d = Down, l = Left, r = Right\n");
    let _ = writeln!(
        text,
        "Other: s = Save to {location}, b = Back (undo), a = Advice, q = Quit to the menu (unsaved moves are lost)"
    );
    text
}

/// The end-of-game screen of the line console: the final state, the end message and what the
/// next line does.
pub fn render_end_screen(game: &Game, best: Score, offers_more: bool) -> String {
    let mut text = render_scored(game.score(), line_best(game, best), game.board());
    if let Some(message) = end_message(game.status(), game.score()) {
        text.push_str(&message);
        text.push('\n');
    }
    if offers_more {
        text.push_str("k - keep playing, n - start a new game, anything else - back to the menu\n");
    } else {
        text.push_str("Press Enter to return to the menu.\n");
    }
    text
}

/// The advice line for `report` under `rules`.
pub fn advice_line(report: &AdviceReport, rules: &Rules) -> String {
    let name = |d: Direction| format!("{} ({})", d.key(), d.name());
    let advice = match report {
        AdviceReport::Search(Some(advice)) => advice,
        AdviceReport::Search(None) => return "Advice: no move changes the board.".to_string(),
        AdviceReport::Exact(moves) => {
            let Some(((best, odds), others)) = moves.split_first() else {
                return "Advice: no move changes the board.".to_string();
            };
            let others: Vec<String> = others
                .iter()
                .map(|(d, p)| format!("{} {p:.4}", d.key()))
                .collect();
            let rest = if others.is_empty() {
                " (the only move that changes the board)".to_string()
            } else {
                format!("; {}", others.join(", "))
            };
            return format!(
                "Advice: {}: perfect play wins from here with probability {odds:.4}{rest}.",
                name(*best)
            );
        }
    };
    let best = name(advice.direction);
    if advice.wins {
        let goal = rules.goal().map_or(0, tile_value);
        return format!("Advice: {best}: it makes {goal} now.");
    }
    match advice.runner_up {
        None => format!("Advice: {best}: the only move that changes the board."),
        Some((_, 0.0)) if advice.value > 0.0 => format!(
            "Advice: {best}: every other move loses within {} move(s).",
            advice.depth
        ),
        // A player reads a margin in words, not the search's ratings (whose scale means
        // nothing to them; bench and its JSON keep the figures). Ratings that print the same
        // are a tie.
        Some((other, value)) => {
            let ahead = format!("looking {} move(s) ahead", advice.depth);
            let margin = (advice.value - value) / advice.value.abs().max(1.0);
            let words = if format!("{value:.0}") == format!("{:.0}", advice.value) {
                "as good as"
            } else if margin < 0.01 {
                "slightly better than"
            } else if margin < 0.1 {
                "better than"
            } else {
                "clearly better than"
            };
            format!("Advice: {best}: {ahead}, {words} {}.", name(other))
        }
    }
}

/// The line that ends a game in status `status` with score `score`, or `None` while playing.
pub fn end_message(status: Status, score: Score) -> Option<String> {
    match status {
        Status::Playing => None,
        Status::Won => Some(format!("YOU WON WITH A SCORE OF {score}")),
        Status::Lost => Some("YOU LOST!".to_string()),
        Status::Over => Some(format!("Game Over! Final score: {score}")),
    }
}
