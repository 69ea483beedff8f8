//! A run's replay on its feedback page: the run key by key as the referee matched its boards to
//! its keys ([`crate::referee::Trace`]), as data the page's one script (`replay.js`, inline)
//! steps through, with buttons and the arrow keys, jumping to each finding. Without JavaScript
//! the section stays hidden and the findings, plain HTML, say everything.
//!
//! The data is JSON inside `<script type="application/json">`: every `<`, `>` and `&` in it
//! written as `\u003c` and the like, so nothing a program printed or a keys file held can
//! close the element or start markup.

use super::feedback::RunShown;
use crate::model::board::Board;
use crate::referee::{Action, keys_of};
use serde::Serialize;
use std::fmt::Write as _;

/// The most keys a replay steps through: a run's first 10,000 (its data is about 44 bytes a
/// key, so a page of five such runs stays near 2.5 MB; a 1,000-key play's page is 65 KB).
pub(super) const MAX_KEYS: usize = 10_000;

/// The page's script: finds each replay's data and draws its controls.
pub(super) const SCRIPT: &str = include_str!("replay.js");

/// What the script reads.
#[derive(Serialize)]
struct Data<'a> {
    /// Each key as shown (control characters in caret notation).
    keys: Vec<String>,
    /// Each key's line in the keys file.
    lines: Vec<usize>,
    /// Each board printed: its exponents a cell each, row by row, in base 36 (`0` empty).
    boards: Vec<String>,
    /// Each board's score, if printed.
    scores: Vec<Option<String>>,
    /// Each board's line in the transcript.
    at: Vec<usize>,
    /// For each key, how many boards had been printed once it was answered.
    taken: Vec<usize>,
    /// For each key, what it did: `m` a move, `n` a new game, `u` an undo, `r` a resume, `s` a
    /// save, `-` nothing the rules change.
    actions: String,
    /// The findings at a key, in order.
    findings: Vec<FindingAt<'a>>,
    /// How many keys the run had (more than `keys` holds when cut at [`MAX_KEYS`]).
    all: usize,
}

#[derive(Serialize)]
struct FindingAt<'a> {
    /// The key (1-based).
    key: usize,
    /// The finding's element on the page.
    id: String,
    /// The rule's name.
    rule: &'a str,
    /// The board the rules allow there, as `boards` writes one.
    expected: Option<String>,
}

/// A board as the data writes it.
fn cells(board: &Board) -> String {
    board
        .exponents()
        .iter()
        .map(|&e| char::from_digit(u32::from(e.min(35)), 36).unwrap_or('z'))
        .collect()
}

/// The replay of `run`, the `number`-th on its page, whose findings were shown as
/// `run-NUMBER-finding-K` for the first `shown`: hidden until the script shows it.
pub(super) fn section(out: &mut String, number: usize, run: &RunShown<'_>, shown: usize) {
    let trace = &run.report.trace;
    let keys = keys_of(run.keys, run.report.assignment);
    if keys.is_empty() || trace.steps.is_empty() {
        return;
    }
    let count = keys.len().min(trace.steps.len()).min(MAX_KEYS);
    let steps = &trace.steps[..count];
    let boards_used = steps.last().map_or(0, |s| s.boards).min(trace.boards.len());
    let findings = run
        .report
        .violations
        .iter()
        .take(shown)
        .enumerate()
        .filter_map(|(k, f)| {
            let key = f.key?.index;
            (key <= count).then(|| FindingAt {
                key,
                id: format!("run-{number}-finding-{}", k + 1),
                rule: f.rule.name(),
                expected: f.expected.as_ref().map(cells),
            })
        })
        .collect();
    let data = Data {
        keys: keys[..count]
            .iter()
            .map(|k| crate::text::visible_text(&k.text()))
            .collect(),
        lines: keys[..count].iter().map(|k| k.line).collect(),
        boards: trace.boards[..boards_used]
            .iter()
            .map(|b| cells(&b.board))
            .collect(),
        scores: trace.boards[..boards_used]
            .iter()
            .map(|b| b.score.map(|s| s.to_string()))
            .collect(),
        at: trace.boards[..boards_used].iter().map(|b| b.line).collect(),
        taken: steps.iter().map(|s| s.boards.min(boards_used)).collect(),
        actions: steps
            .iter()
            .map(|s| match s.action {
                Action::Move => 'm',
                Action::NewGame => 'n',
                Action::Undo => 'u',
                Action::Resume => 'r',
                Action::Save => 's',
                Action::Other => '-',
            })
            .collect(),
        findings,
        all: keys.len(),
    };
    let json = serde_json::to_string(&data).unwrap_or_default();
    let cut = if keys.len() > count {
        format!(
            " (its first {count} keys of {}: the findings list every one)",
            keys.len()
        )
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<section class=\"replay\" id=\"run-{number}-replay\" tabindex=\"-1\" hidden \
         aria-label=\"Replay of the run, key by key\">\n\
         <h3>The run key by key{cut}</h3>\n\
         <p class=\"help\">Step with the buttons, or with the left and right arrow keys once one \
         of them has the focus (Tab to it; Home and End for the first and the last key, Page \
         Up and Page Down for the findings).</p>\n\
         <div class=\"controls\">\
         <button type=\"button\" data-go=\"first\">First</button>\
         <button type=\"button\" data-go=\"prev\">Previous key</button>\
         <button type=\"button\" data-go=\"next\">Next key</button>\
         <button type=\"button\" data-go=\"last\">Last</button>\
         <button type=\"button\" data-go=\"prev-finding\">Previous finding</button>\
         <button type=\"button\" data-go=\"next-finding\">Next finding</button>\
         </div>\n\
         <p class=\"step\" aria-live=\"polite\"></p>\n\
         <div class=\"stage\"></div>\n\
         <script type=\"application/json\" class=\"replay-data\">{}</script>\n\
         </section>\n",
        script_safe(&json)
    );
}

/// JSON made safe inside a `<script>` element: `<`, `>` and `&` as JSON's `\u` escapes (they
/// occur only inside strings).
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_in_the_data_can_close_its_element() {
        let json = serde_json::to_string(&["</script><b>&amp;"]).unwrap();
        let safe = script_safe(&json);
        assert!(!safe.contains('<') && !safe.contains('>') && !safe.contains('&'));
        let back: Vec<String> = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, ["</script><b>&amp;"]);
    }

    #[test]
    fn a_board_is_a_cell_a_character() {
        let board = Board::from_values(&[vec![2, 0, 4], vec![0; 3], vec![2048, 0, 0]]).unwrap();
        assert_eq!(cells(&board), "102000b00");
    }
}
