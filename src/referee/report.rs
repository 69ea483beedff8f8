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
    if let Some(expected) = &finding.expected {
        columns.push((
            heading("expected", finding.expected_score),
            board_lines(expected),
        ));
    }
    if let Some(printed) = &finding.printed {
        columns.push((
            heading("printed", finding.printed_score),
            board_lines(printed),
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

/// The report in words, as `power11 referee` prints it.
pub fn to_text(report: &Report) -> String {
    let mut out = String::new();
    for finding in &report.violations {
        let _ = writeln!(
            out,
            "violation at {}: {} [{}]\n    {}",
            place(finding),
            finding.rule.words(),
            finding.rule.name(),
            finding.detail
        );
        out.push_str(&boards_side_by_side(finding));
    }
    if let Some(board) = report.stopped_at {
        let _ = writeln!(
            out,
            "refereeing stopped at board {board}: after a fault, every later board would be off"
        );
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
    if let Some(kind) = report.save {
        let _ = writeln!(
            out,
            "save: {}",
            match kind {
                SaveKind::History => "the game's states, oldest first (with the undo bonus)",
                SaveKind::OneState => "the current state alone (without the undo bonus)",
                SaveKind::Unchecked => "not checked against the game (no s among the keys)",
                SaveKind::Faulty => "breaks a rule (see the violation above)",
            }
        );
    }
    let violations = report.violations.len();
    let _ = writeln!(
        out,
        "{} keys, {} boards: {}",
        report.keys,
        report.boards,
        match (violations, report.warnings.len()) {
            (0, 0) => "every rule holds".to_string(),
            (0, w) => format!("every rule holds ({w} format warning(s))"),
            (v, w) => format!("{v} violation(s), {w} format warning(s)"),
        }
    );
    out
}
