//! A feedback page: one self-contained HTML file (no script, style sheet, font or picture
//! from anywhere else) a student opens from a file. The verdict and points first, then each
//! finding as two boards side by side (what the program printed, what the rules allow; the
//! cells that differ marked by more than colour), with its rule's words, its key and its
//! transcript line, the run's problems, and the command that replays the run. Every text that
//! came from a program is escaped: it shows as text and never runs.

use super::replay;
use crate::grading::gradebook::{self, xml_text};
use crate::grading::scoring::{Outcome, StudentGrade};
use crate::model::board::{Board, tile_value};
use crate::referee::{Finding, Report};
use std::fmt::Write as _;

/// The most findings a run shows (the rest are counted).
const SHOWN_FINDINGS: usize = 20;

/// The most runs a page shows: the first failing ones.
pub const SHOWN_RUNS: usize = 5;

/// The command that runs `command` (a program's command line, as `--run` takes it) on the keys
/// saved as `keys_file`, refereed: what a page tells a student to type in the program's folder.
pub fn replay_command(command: &str, keys_file: &str) -> String {
    format!(
        "power11 referee --run {} --keys {}",
        shlex::try_quote(command).unwrap_or_default(),
        shlex::try_quote(keys_file).unwrap_or_default()
    )
}

/// One run a page shows: a failing script or play, what the referee made of it, and how to
/// replay it.
pub struct RunShown<'a> {
    /// The run's name: `script 12`, `the play win on 4x4 (run 1)`.
    pub label: String,
    /// The keys it was fed.
    pub keys: &'a str,
    /// What the referee found.
    pub report: &'a Report,
    /// The run's problem apart from the rules, in words (a crash, a hang), if any.
    pub problem: Option<String>,
    /// The name its keys are saved as (the page offers them as a file of that name).
    pub keys_file: String,
    /// The command that replays it on the student's machine, in the program's folder, with
    /// the keys saved as `keys_file`.
    pub replay: String,
}

/// The page of `grade`, showing `runs`.
pub fn page(grade: &StudentGrade, runs: &[RunShown<'_>]) -> String {
    let mut out = String::with_capacity(16 << 10);
    let title = format!("{}: {}", grade.student, points(grade));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}{}</style>\n</head>\n<body>\n<main>\n",
        xml_text(&title),
        tile_style()
    );
    let _ = writeln!(
        out,
        "<h1>{}</h1>\n<p class=\"verdict\">{} <strong>{}</strong>: {}</p>",
        xml_text(&grade.student),
        grade.standing.name(),
        points(grade),
        xml_text(&grade.summary)
    );
    out.push_str("<table class=\"items\">\n<tr><th scope=\"col\">item</th><th scope=\"col\">points</th><th scope=\"col\">how it went</th></tr>\n");
    for item in &grade.items {
        let how = if item.output.is_empty() {
            item.message.as_str()
        } else {
            item.output.as_str()
        };
        let _ = writeln!(
            out,
            "<tr class=\"{}\"><td>{}</td><td>{} of {}</td><td>{}</td></tr>",
            outcome_class(item.outcome),
            xml_text(&item.title),
            gradebook::points(item.points),
            gradebook::points(item.max),
            xml_text(how.trim_end())
        );
    }
    out.push_str("</table>\n");
    if let Some(build) = &grade.build
        && !build.built
    {
        let _ = writeln!(
            out,
            "<section class=\"build\"><h2>The build</h2><p><code>{}</code> {}</p><pre>{}</pre></section>",
            xml_text(&build.command),
            xml_text(&build.ended),
            xml_text(&build.log_end)
        );
    }
    for (index, run) in runs.iter().enumerate() {
        run_section(&mut out, index + 1, run);
    }
    out.push_str("</main>\n");
    if out.contains("<section class=\"replay\"") {
        let _ = writeln!(out, "<script>{}</script>", replay::SCRIPT);
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The tiles' colours, as the full screen draws them in 24-bit colour: `td.tE` for each
/// exponent `E` a page's board shows (0: an empty cell; 35 and up alike).
fn tile_style() -> String {
    use crate::text::colours::{BOARD, hex, tile_colours};
    let mut css = format!("table.board{{background:{}}}\n", hex(BOARD));
    for exponent in 0..=35 {
        let (background, digits) = tile_colours(exponent);
        let _ = writeln!(
            css,
            "td.t{exponent}{{background:{};color:{}}}",
            hex(background),
            hex(digits)
        );
    }
    css
}

/// The class's page: a row a student, with a link to the student's page
/// (`feedback/NAME.html`).
pub fn index(class: &str, grades: &[StudentGrade]) -> String {
    let mut out = String::with_capacity(4 << 10);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n<h1>{}</h1>\n\
         <table class=\"items\">\n<tr><th scope=\"col\">student</th><th scope=\"col\">points</th>\
         <th scope=\"col\">status</th><th scope=\"col\">first finding</th></tr>\n",
        xml_text(class),
        xml_text(class)
    );
    for grade in grades {
        let _ = writeln!(
            out,
            "<tr><td><a href=\"feedback/{}.html\">{}</a></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            link_name(&grade.student),
            xml_text(&grade.student),
            points(grade),
            grade.standing.name(),
            xml_text(grade.first_finding.as_deref().unwrap_or(""))
        );
    }
    out.push_str("</table>\n</main>\n</body>\n</html>\n");
    out
}

/// `name` as a relative link's path segment (or a `data:` link's text): every byte but
/// letters, digits and `-._~` percent-encoded (a name with `#`, `?`, a space or a quote still
/// links to its file).
fn link_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// A run's section: its problem, each finding, the command that replays it.
fn run_section(out: &mut String, number: usize, run: &RunShown<'_>) {
    let _ = writeln!(
        out,
        "<section class=\"run\" id=\"run-{number}\">\n<h2>{}</h2>",
        xml_text(&run.label)
    );
    if let Some(problem) = &run.problem {
        let _ = writeln!(out, "<p class=\"problem\">{}</p>", xml_text(problem));
    }
    let keys: Vec<&str> = run.keys.lines().collect();
    for (k, finding) in run
        .report
        .violations
        .iter()
        .take(SHOWN_FINDINGS)
        .enumerate()
    {
        finding_section(
            out,
            &format!("run-{number}-finding-{}", k + 1),
            finding,
            &keys,
        );
    }
    let more = run.report.violations.len().saturating_sub(SHOWN_FINDINGS);
    if more > 0 {
        let _ = writeln!(out, "<p>and {more} more findings in this run.</p>");
    }
    let _ = writeln!(
        out,
        "<p>To run it again, save <a download=\"{file}\" href=\"data:text/plain;charset=utf-8,{}\">\
         its keys as {file}</a> in the program's folder and type there: \
         <code class=\"command\">{}</code></p>",
        link_name(run.keys),
        xml_text(&run.replay),
        file = xml_text(&run.keys_file),
    );
    replay::section(out, number, run, SHOWN_FINDINGS);
    out.push_str("</section>\n");
}

/// A finding: its rule, where, the two boards, the keys that led there.
fn finding_section(out: &mut String, id: &str, finding: &Finding, keys: &[&str]) {
    let _ = writeln!(
        out,
        "<article class=\"finding\" id=\"{id}\">\n<h3>{} <span class=\"rule\">[{}]</span></h3>",
        xml_text(finding.rule.words()),
        finding.rule.name()
    );
    let mut place = Vec::new();
    if let Some(board) = finding.board {
        place.push(format!("board {board}"));
    }
    if let Some(key) = &finding.key {
        place.push(format!(
            "key {} '{}' (keys line {})",
            key.index,
            crate::text::visible(key.key),
            key.line
        ));
    }
    if let Some(line) = finding.line {
        place.push(format!("transcript line {line}"));
    }
    let _ = writeln!(
        out,
        "<p class=\"where\">{}</p>\n<p class=\"detail\">{}</p>",
        xml_text(&place.join(", ")),
        xml_text(&finding.detail)
    );
    if finding.printed.is_some() || finding.expected.is_some() {
        out.push_str("<div class=\"pair\">\n");
        board_figure(
            out,
            "What the program printed",
            finding.printed.as_ref(),
            finding.printed_score,
            finding.expected.as_ref(),
        );
        board_figure(
            out,
            "What the rules allow",
            finding.expected.as_ref(),
            finding.expected_score,
            finding.printed.as_ref(),
        );
        out.push_str("</div>\n");
    }
    if let Some(key) = &finding.key {
        let upto = keys.len().min(key.line);
        let from = upto.saturating_sub(12);
        let shown: Vec<String> = keys[from..upto]
            .iter()
            .map(|k| crate::text::visible_text(k))
            .collect();
        let _ = writeln!(
            out,
            "<p class=\"keys\">The keys that led there (keys lines {}-{}): <code>{}</code></p>",
            from + 1,
            upto,
            xml_text(&shown.join(" "))
        );
    }
    out.push_str("</article>\n");
}

/// A board as a table, each cell that differs from `other` marked (a class, a border and a
/// `*` a screen reader reads as "differs").
fn board_figure(
    out: &mut String,
    caption: &str,
    board: Option<&Board>,
    score: Option<i128>,
    other: Option<&Board>,
) {
    let _ = writeln!(out, "<figure>\n<figcaption>{caption}</figcaption>");
    let Some(board) = board else {
        out.push_str("<p class=\"none\">no board</p>\n</figure>\n");
        return;
    };
    out.push_str("<table class=\"board\">\n");
    let n = board.size();
    for row in 0..n {
        out.push_str("<tr>");
        for col in 0..n {
            let exponent = board.get(row, col);
            let differs = other
                .filter(|o| o.size() == n)
                .is_some_and(|o| o.get(row, col) != exponent);
            let value = if exponent == 0 {
                String::new()
            } else {
                tile_value(exponent).to_string()
            };
            let class = format!(
                "t{}{}",
                exponent.min(35),
                if differs { " diff" } else { "" }
            );
            let mark = if differs {
                "<span class=\"mark\" aria-label=\"differs\">*</span>"
            } else {
                ""
            };
            let _ = write!(out, "<td class=\"{class}\">{value}{mark}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    if let Some(score) = score {
        let _ = writeln!(out, "<p class=\"score\">Score: {score}</p>");
    }
    out.push_str("</figure>\n");
}

fn outcome_class(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Passed => "passed",
        Outcome::Failed => "failed",
        Outcome::Error => "error",
        Outcome::NotChecked => "not-checked",
        Outcome::NotGraded => "not-graded",
    }
}

fn points(grade: &StudentGrade) -> String {
    format!(
        "{} of {} points",
        gradebook::points(grade.total),
        gradebook::points(grade.max)
    )
}

/// The page's look: text at 4.5:1 or more, tiles at 3:1 or more against their digits, a
/// narrow window's boards one above the other, and printing in black on white.
const STYLE: &str = "
body{font-family:system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fff;line-height:1.4}
main{max-width:60rem;margin:auto;padding:1rem}
h1{margin:.2rem 0;font-size:1.5rem;overflow-wrap:anywhere}
.verdict{font-size:1.1rem}
table.items{border-collapse:collapse;width:100%}
table.items td,table.items th{border-bottom:1px solid #bbb;padding:.2rem .4rem;text-align:left;vertical-align:top;white-space:pre-line;overflow-wrap:anywhere}
tr.failed td:first-child,tr.error td:first-child{border-left:.3rem solid #a40000}
tr.not-checked td:first-child,tr.not-graded td:first-child{border-left:.3rem solid #6b6b6b}
tr.passed td:first-child{border-left:.3rem solid #1f6f1f}
.pair{display:flex;flex-wrap:wrap;gap:1.5rem}
figure{margin:0}
table.board{border-collapse:separate;border-spacing:.3rem;border-radius:.3rem}
table.board td{width:3rem;height:3rem;text-align:center;font-weight:bold;border-radius:.2rem;position:relative}
table.board td.diff{outline:.25rem solid #0b3d91;outline-offset:-.25rem}
.mark{position:absolute;top:0;right:.15rem;font-size:.8rem;color:#0b3d91}
code{background:#f2f2f2;padding:0 .2rem;word-break:break-all}
.rule{font-weight:normal;color:#4a4a4a}
.replay{border-top:1px solid #bbb;margin-top:1rem}
.replay:focus{outline:.2rem solid #0b3d91}
.controls{display:flex;flex-wrap:wrap;gap:.4rem}
button{font:inherit;padding:.3rem .6rem;border:1px solid #4a4a4a;border-radius:.2rem;background:#f2f2f2;color:#1b1b1b}
button:focus{outline:.2rem solid #0b3d91}
.stage{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}
.step.marked{border-left:.3rem solid #0b3d91;padding-left:.4rem}
@media print{body{color:#000}.pair{display:block}table.board,table.board td{background:#fff!important;color:#000!important}table.board td{border:1px solid #000}.replay,button{display:none}}
";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grading::scoring::{Item, Standing};
    use crate::referee::{Assignment, KeyAt, Rule};

    fn grade() -> StudentGrade {
        StudentGrade {
            student: "mallory<script>".to_string(),
            standing: Standing::Graded,
            total: 1.0,
            max: 2.0,
            items: vec![Item {
                name: "merge".into(),
                title: "merge".into(),
                points: 0.0,
                max: 1.0,
                outcome: Outcome::Failed,
                message: "broken".into(),
                kind: "merge".into(),
                output: "broken in 1 of 1 scripts".into(),
            }],
            summary: "1 of 1 scripts failed".into(),
            first_finding: None,
            command: "python3 game.py".into(),
            scripts: 1,
            planned: 1,
            failed: 1,
            at_once: 0,
            seconds: 1.0,
            build: None,
        }
    }

    fn report(detail: &str) -> Report {
        let printed = Board::from_values(&[vec![4, 0, 0], vec![0; 3], vec![0; 3]]);
        let expected = Board::from_values(&[vec![8, 0, 0], vec![0; 3], vec![0; 3]]);
        Report {
            assignment: Assignment::Power11,
            keys: 2,
            boards: 2,
            rules: Vec::new(),
            violations: vec![Finding {
                rule: Rule::Merge,
                board: Some(2),
                line: Some(9),
                key: Some(KeyAt {
                    key: 'l',
                    index: 2,
                    line: 2,
                }),
                detail: detail.to_string(),
                expected: expected.ok(),
                expected_score: Some(8),
                printed: printed.ok(),
                printed_score: Some(4),
                count: 1,
            }],
            warnings: Vec::new(),
            notes: Vec::new(),
            save: None,
            checked: Vec::new(),
            trace: crate::referee::Trace::default(),
        }
    }

    /// Every text colour of the page reads at 4.5:1 or more on its white, and every tile's
    /// digits at 3:1 or more on the tile.
    #[test]
    fn the_page_keeps_its_contrast() {
        use crate::text::colours::{MIN_CONTRAST, contrast};
        let rgb = |hex: &str| {
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
            (byte(0), byte(2), byte(4))
        };
        let css = format!("{STYLE}{}", tile_style());
        let mut text = 0;
        for rule in css.split('}') {
            let Some((selector, body)) = rule.split_once('{') else {
                continue;
            };
            let colour = |name: &str| {
                body.split(';')
                    .find_map(|d| d.trim().strip_prefix(name)?.strip_prefix(":#"))
                    .filter(|hex| hex.len() == 6)
                    .map(rgb)
            };
            match (colour("color"), colour("background")) {
                (Some(digits), Some(tile)) if selector.contains("td.t") => {
                    assert!(contrast(digits, tile) >= MIN_CONTRAST, "{rule}");
                }
                (Some(colour), _) => {
                    text += 1;
                    assert!(contrast(colour, (255, 255, 255)) >= 4.5, "{rule}");
                }
                _ => {}
            }
        }
        assert!(text >= 3, "{css}");
    }

    #[test]
    fn the_class_page_links_each_student_whatever_the_name() {
        let html = index("class", &[grade()]);
        assert!(
            html.contains(
                "<a href=\"feedback/mallory%3Cscript%3E.html\">mallory&lt;script&gt;</a>"
            )
        );
        assert!(html.contains("1 of 2 points"));
    }

    #[test]
    fn a_finding_shows_both_boards_with_the_differing_cell_marked_and_escapes_what_came_from_a_program()
     {
        let report = report("printed <script>alert(1)</script> &amp; \u{1b}[2J");
        let run = RunShown {
            label: "script 0".into(),
            keys: "h\nl\n",
            report: &report,
            problem: Some("it said <b>bye</b>".into()),
            keys_file: "script-0000.keys".into(),
            replay: "power11 referee --run ./game --keys script-0000.keys".into(),
        };
        let html = page(&grade(), &[run]);
        assert!(!html.contains("<script>alert"), "{html}");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp;amp; ^[[2J"));
        assert!(html.contains("mallory&lt;script&gt;"));
        assert!(html.contains("it said &lt;b&gt;bye&lt;/b&gt;"));
        assert_eq!(html.matches("<table class=\"board\">").count(), 2);
        // The one cell that differs, marked on both boards.
        assert_eq!(html.matches("class=\"t2 diff\"").count(), 1);
        assert_eq!(html.matches("class=\"t3 diff\"").count(), 1);
        assert_eq!(html.matches("aria-label=\"differs\"").count(), 2);
        assert!(html.contains("<code>h l</code>"));
        for external in ["http:", "https:", " src=", "<link", "@import", "url("] {
            assert!(!html.contains(external), "{external}");
        }
    }
}
