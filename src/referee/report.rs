//! A referee's report in words: each violation at its board and key, with the rule broken
//! and the expected and printed boards side by side; then the warnings and the save.

use super::{Finding, Report, SaveKind};
use std::fmt::Write as _;

/// A board of tile values drawn as the assignment draws it (a frame of `#`, cells
/// right-aligned in 4 characters, `|` between them), a line a row.
fn board_lines(rows: &[Vec<u64>]) -> Vec<String> {
    let n = rows.len();
    let width = super::slides::cell_chars(rows);
    let frame = "#".repeat(2 + n * width + n.saturating_sub(1));
    let mut lines = vec![frame.clone()];
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|&v| {
                if v == 0 {
                    " ".repeat(width)
                } else {
                    format!("{v:>width$}")
                }
            })
            .collect();
        lines.push(format!("#{}#", cells.join("|")));
    }
    lines.push(frame);
    lines
}

/// The expected and printed boards of a finding side by side, each under its heading (with
/// its score, where there is one).
pub fn boards_side_by_side(finding: &Finding) -> String {
    let heading = |what: &str, score: Option<i128>| match score {
        Some(score) => format!("{what}, score {score}"),
        None => what.to_string(),
    };
    let mut columns: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(expected) = finding.expected.as_ref().map(super::slides::values) {
        columns.push((
            heading("expected", finding.expected_score),
            board_lines(&expected),
        ));
    }
    if let Some(printed) = finding.printed.as_ref().map(super::slides::values) {
        columns.push((
            heading("printed", finding.printed_score),
            board_lines(&printed),
        ));
    }
    if columns.is_empty() {
        return String::new();
    }
    let height = columns.iter().map(|(_, l)| l.len()).max().unwrap_or(0);
    let widths: Vec<usize> = columns
        .iter()
        .map(|(h, l)| {
            l.iter()
                .map(String::len)
                .chain([h.len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in 0..=height {
        let cells: Vec<String> = columns
            .iter()
            .zip(&widths)
            .map(|((heading, lines), &width)| {
                let text = if row == 0 {
                    heading.as_str()
                } else {
                    lines.get(row - 1).map_or("", String::as_str)
                };
                format!("{text:width$}")
            })
            .collect();
        let _ = writeln!(out, "    {}", cells.join("    ").trim_end());
    }
    out
}

/// Where a finding is: `board 3 (transcript line 20), key 5 'l' (keys line 2)`.
fn place(finding: &Finding) -> String {
    let mut parts = Vec::new();
    match (finding.board, finding.line) {
        (Some(board), Some(line)) => parts.push(format!("board {board} (transcript line {line})")),
        (Some(1), None) => parts.push("board 1 (none was printed)".to_string()),
        (Some(board), None) => parts.push(format!(
            "board {board} (missing: the transcript ends after board {})",
            board - 1
        )),
        _ => {}
    }
    if let Some(key) = finding.key {
        parts.push(format!(
            "key {} '{}' (keys line {})",
            key.index, key.key, key.line
        ));
    }
    if parts.is_empty() {
        "the save file".to_string()
    } else {
        parts.join(", ")
    }
}

/// How many instances of a rule the text report names (the JSON has up to 100 of each).
const NAMED_A_RULE: usize = 3;

/// The report in words, as `power11 referee` prints it: each rule broken, how often, its first
/// instances at their boards and keys (the first with the expected and printed boards side by
/// side); then the warnings, the notes, the save, and a summary line.
pub fn to_text(report: &Report) -> String {
    let mut out = String::new();
    let mut broken: Vec<&super::Broken> = report.rules.iter().collect();
    // In the order the transcript shows them: first board first, the save's last.
    broken.sort_by_key(|b| (b.board.is_none(), b.board, b.key.map(|k| k.index)));
    for rule in broken {
        let times = match rule.count {
            1 => "once".to_string(),
            n => format!("{n} times"),
        };
        let _ = writeln!(
            out,
            "broken: {} [{}], {times}",
            rule.rule.words(),
            rule.rule.name()
        );
        let instances = report.violations.iter().filter(|f| f.rule == rule.rule);
        let mut named = 0;
        for (i, finding) in instances.take(NAMED_A_RULE).enumerate() {
            let _ = writeln!(out, "  at {}: {}", place(finding), finding.detail);
            if i == 0 {
                out.push_str(&boards_side_by_side(finding));
            }
            named += 1;
        }
        if rule.count > named {
            let _ = writeln!(out, "  and {} more", rule.count - named);
        }
    }
    for warning in &report.warnings {
        let times = if warning.count == 1 {
            String::new()
        } else {
            format!("; {} times", warning.count)
        };
        let first = warning.line.map_or(String::new(), |line| {
            format!(" (first at transcript line {line}{times})")
        });
        let _ = writeln!(
            out,
            "warning: {} [{}]: {}{first}",
            warning.rule.words(),
            warning.rule.name(),
            warning.detail
        );
    }
    for note in &report.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let unreached = report.not_checked();
    if !unreached.is_empty() {
        let names: Vec<&str> = unreached.iter().map(|rule| rule.name()).collect();
        let _ = writeln!(
            out,
            "not checked (no board or key reached them): {}",
            names.join(", ")
        );
    }
    if let Some(kind) = report.save {
        let newest = report
            .warnings
            .iter()
            .chain(&report.violations)
            .any(|f| f.rule == super::Rule::SaveOrder);
        let _ = writeln!(
            out,
            "save: {}",
            match kind {
                SaveKind::History if newest => {
                    "the game's states, newest first (with the undo bonus; see save-order)"
                }
                SaveKind::History => "the game's states, oldest first (with the undo bonus)",
                SaveKind::OneState => "the current state alone (without the undo bonus)",
                SaveKind::Unchecked => "not checked against the game (no s pressed in a game)",
                SaveKind::Faulty => "breaks a rule (see above)",
            }
        );
    }
    // Every instance of every rule broken: a format rule broken under `--strict` too.
    let faults: usize = report.rules.iter().map(|b| b.count).sum();
    let _ = writeln!(
        out,
        "{} keys, {} boards: {}",
        report.keys,
        report.boards,
        match (report.rules.len(), report.warnings.len()) {
            (0, 0) => "every rule holds".to_string(),
            (0, w) => format!("every rule holds ({w} format warning(s))"),
            (r, w) =>
                format!("{r} rule(s) broken, {faults} fault(s) in all, {w} format warning(s)"),
        }
    );
    out
}
