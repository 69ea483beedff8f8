//! The feedback page of `power11 referee --html`, end to end: the real binary referees a real
//! program with a planted fault, and the page it writes is read with an HTML parser (each
//! finding's two boards, the replay's data matched to the findings), shown text from a hostile
//! program checked to be text, and the page opened in a real headless Chromium, whose replay is
//! stepped with the arrow keys and its buttons to a finding.

use crate::common::{Run, python};
use scraper::{ElementRef, Html, Selector};
use serde_json::Value;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn select(css: &str) -> Selector {
    Selector::parse(css).unwrap()
}

/// The keys of the runs: a game on 4x4, moves round the board, an undo, quit twice.
fn keys() -> String {
    format!("h\n{}b\nq\nq\n", "l\nd\nr\nd\n".repeat(15))
}

/// A board on the page, row by row, each cell's number ("" for an empty cell; the `*` that
/// marks a cell that differs left out).
fn page_board(table: ElementRef<'_>) -> Vec<String> {
    table
        .select(&select("td"))
        .map(|td| {
            td.text()
                .next()
                .unwrap_or("")
                .trim_end_matches('*')
                .to_string()
        })
        .collect()
}

/// A JSON array of strings.
fn strings(array: &Value) -> Vec<String> {
    array
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

/// A board of the referee's JSON (rows of values), as [`page_board`] reads one.
fn json_board(rows: &Value) -> Vec<String> {
    rows.as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_array().unwrap().iter())
        .map(|v| match v.as_u64().unwrap() {
            0 => String::new(),
            n => n.to_string(),
        })
        .collect()
}

/// A board of the replay's data (a base-36 exponent a cell), as [`page_board`] reads one.
fn data_board(cells: &str) -> Vec<String> {
    cells
        .chars()
        .map(|c| match c.to_digit(36).unwrap() {
            0 => String::new(),
            e => (1u64 << e).to_string(),
        })
        .collect()
}

/// Referees the Python program with `fault` on [`keys`] with `--html` and `--json`: the
/// page's text and the report.
fn page_of(run: &Run, fault: &str) -> Option<(String, Value)> {
    let program = python(&format!("--seed 3 --fault {fault}"))?;
    std::fs::write(run.path("keys.txt"), keys()).unwrap();
    let ran = run.run(
        &[
            "referee",
            "--run",
            &program,
            "--keys",
            "keys.txt",
            "--html",
            "page.html",
            "--json",
        ],
        "",
    );
    assert_eq!(ran.code, 1, "{}\n{}", ran.stdout, ran.stderr);
    let json: Value = serde_json::from_str(&ran.stdout).unwrap();
    let page = std::fs::read_to_string(run.path("page.html")).unwrap();
    Some((page, json["report"].clone()))
}

#[test]
fn a_page_shows_each_finding_as_two_boards_and_the_run_key_by_key() {
    let run = Run::new();
    let Some((page, report)) = page_of(&run, "merge-twice") else {
        return;
    };
    let html = Html::parse_document(&page);
    let violations = report["violations"].as_array().unwrap();
    assert!(!violations.is_empty(), "{report}");
    let findings: Vec<_> = html.select(&select("article.finding")).collect();
    assert_eq!(findings.len(), violations.len().min(20));
    for (k, (article, finding)) in findings.iter().zip(violations).enumerate() {
        assert_eq!(
            article.value().id(),
            Some(format!("run-1-finding-{}", k + 1).as_str())
        );
        let boards: Vec<_> = article.select(&select("table.board")).collect();
        assert_eq!(boards.len(), 2, "printed and allowed: {}", article.html());
        assert_eq!(page_board(boards[0]), json_board(&finding["printed"]));
        assert_eq!(page_board(boards[1]), json_board(&finding["expected"]));
        // Every cell that differs is marked on both boards, and no other.
        let differ: Vec<bool> = page_board(boards[0])
            .iter()
            .zip(page_board(boards[1]))
            .map(|(a, b)| *a != b)
            .collect();
        for board in &boards {
            let marked: Vec<bool> = board
                .select(&select("td"))
                .map(|td| td.value().classes().any(|c| c == "diff"))
                .collect();
            assert_eq!(marked, differ, "{}", board.html());
        }
        let key = finding["key"]["index"].as_u64().unwrap();
        let words = article.select(&select("p.where")).next().unwrap();
        assert!(
            words
                .text()
                .collect::<String>()
                .contains(&format!("key {key} ")),
            "{}",
            words.html()
        );
        assert_eq!(article.select(&select("p.keys code")).count(), 1);
    }

    // The replay's data: every key, every board, and each finding at its key, where the board
    // the replay shows is the one the finding is about.
    let data = html
        .select(&select("section.replay script.replay-data"))
        .next()
        .unwrap();
    let data: Value = serde_json::from_str(&data.text().collect::<String>()).unwrap();
    let typed: Vec<String> = keys().split_whitespace().map(str::to_string).collect();
    let keys = strings(&data["keys"]);
    assert_eq!(keys, typed);
    assert_eq!(data["all"], typed.len());
    let actions = data["actions"].as_str().unwrap();
    assert_eq!(actions.chars().next(), Some('n'), "h starts a game");
    assert_eq!(
        actions.chars().nth(typed.len() - 3),
        Some('u'),
        "b undoes: {actions}"
    );
    let boards = data["boards"].as_array().unwrap();
    let taken = data["taken"].as_array().unwrap();
    assert_eq!(taken.len(), typed.len());
    let in_data = data["findings"].as_array().unwrap();
    assert_eq!(in_data.len(), findings.len());
    for (shown, finding) in in_data.iter().zip(violations) {
        let key = finding["key"]["index"].as_u64().unwrap();
        assert_eq!(shown["key"].as_u64(), Some(key));
        assert!(
            html.select(&select(&format!("#{}", shown["id"].as_str().unwrap())))
                .next()
                .is_some()
        );
        let board = taken[usize::try_from(key).unwrap() - 1].as_u64().unwrap();
        let cells = boards[usize::try_from(board).unwrap() - 1]
            .as_str()
            .unwrap();
        assert_eq!(data_board(cells), json_board(&finding["printed"]));
        assert_eq!(
            data_board(shown["expected"].as_str().unwrap()),
            json_board(&finding["expected"])
        );
    }
    for external in ["script[src]", "link", "img", "iframe", "object", "embed"] {
        assert_eq!(html.select(&select(external)).count(), 0, "{external}");
    }
    for external in ["http:", "https:", "@import", "url("] {
        assert!(!page.contains(external), "{external}");
    }
}

#[test]
fn what_a_program_printed_shows_on_its_page_as_text() {
    let run = Run::new();
    let said = "<script>alert(1)</script> &amp; <b>bold</b>";
    std::fs::write(
        run.path("game.sh"),
        format!("echo '{said}'\necho '{said}' >&2\nexit 1\n"),
    )
    .unwrap();
    std::fs::write(run.path("keys.txt"), "h <i>&lt; q\n").unwrap();
    let ran = run.run(
        &[
            "referee",
            "--run",
            "sh game.sh",
            "--keys",
            "keys.txt",
            "--html",
            "page.html",
        ],
        "",
    );
    assert_ne!(ran.code, 0, "{}", ran.stdout);
    let page = std::fs::read_to_string(run.path("page.html")).unwrap();
    assert!(!page.contains("<script>alert"), "{page}");
    assert!(!page.contains("<b>bold"), "{page}");
    assert!(!page.contains("<i>"), "{page}");
    let html = Html::parse_document(&page);
    let problem: String = html
        .select(&select("p.problem"))
        .next()
        .unwrap_or_else(|| panic!("{page}"))
        .text()
        .collect();
    assert!(problem.contains(said), "{problem}");
    // The page's own script is the only one that runs; the replay's data holds the keys as
    // text.
    let scripts: Vec<_> = html.select(&select("script")).collect();
    assert!(scripts.iter().all(|s| {
        s.value().attr("type") == Some("application/json") || s.text().any(|t| t.contains("Replay"))
    }));
    if let Some(data) = html.select(&select("script.replay-data")).next() {
        let data: Value = serde_json::from_str(&data.text().collect::<String>()).unwrap();
        assert_eq!(data["keys"][1], "<");
    }
    // A page is one program's: several are graded with `power11 grade`.
    run.run(
        &[
            "referee",
            "--run",
            "sh game.sh",
            "--run",
            "sh game.sh",
            "--keys",
            "keys.txt",
            "--html",
            "two.html",
        ],
        "",
    )
    .assert_refused("--html shows one program's runs");
    assert!(!run.path("two.html").exists());
    // A page that could not be written is refused before any run, as a wrong argument.
    for (page, says) in [
        ("nowhere/page.html", "there is no directory"),
        (".", "names a directory"),
    ] {
        run.run(
            &[
                "referee",
                "--run",
                "sh game.sh",
                "--keys",
                "keys.txt",
                "--html",
                page,
            ],
            "",
        )
        .assert_refused(says);
    }
    // So are Gradescope's and JUnit's files (they failed after every run, with exit 1).
    for flag in ["--gradescope", "--junit"] {
        run.run(
            &[
                "referee",
                "--run",
                "sh game.sh",
                "--scripts",
                "1",
                flag,
                "nowhere/out",
            ],
            "",
        )
        .assert_refused("there is no directory");
    }
}

/// Chromium, as Debian installs it (or `POWER11_BROWSER`), if found.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("POWER11_BROWSER") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| {
            ["chromium", "chromium-browser", "google-chrome"].map(|name| dir.join(name))
        })
        .find(|candidate| candidate.is_file())
}

/// `page` as headless Chromium leaves it once its scripts ran: the document it dumps.
/// Chromium's files go in `dir` (it is given `dir` as its home).
fn in_chromium(browser: &Path, dir: &Path, page: &Path) -> String {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--dump-dom",
            // Time for the page in its frame to load and say what it showed.
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("file://{}", page.display()))
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    // Not a timed assertion: a browser that never ends must not hang the suite.
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("chromium did not finish in 300 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().unwrap()
}

/// What the test does in the browser: the replay stepped with the arrow keys, then to the
/// first finding with its button, then to the second finding from that finding's own button;
/// what it showed at each, and how wide the page is, sent to the frame around it as JSON.
const DRIVER: &str = r##"<script>
(function () {
  var out = {};
  var section = document.querySelector("section.replay");
  var at = function () { return Number(section.getAttribute("data-at")); };
  // A key pressed where the keyboard's focus is: on one of the replay's buttons.
  var press = function (key) {
    document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key: key, bubbles: true }));
  };
  out.hidden = section.hidden;
  out.start = at();
  section.querySelector("button").focus();
  out.focused = document.activeElement.tagName;
  ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"].forEach(press);
  out.arrows = at();
  press("End");
  out.end = at();
  press("Home");
  section.querySelector('button[data-go="next-finding"]').click();
  out.finding = at();
  out.step = section.querySelector(".step").textContent;
  out.cells = Array.from(section.querySelectorAll(".stage table.board")[0].querySelectorAll("td"))
    .map(function (td) {
      return td.firstChild && td.firstChild.nodeType === 3 ? td.firstChild.textContent : "";
    });
  out.marked = section.querySelectorAll(".stage td.diff").length;
  out.links = Array.from(section.querySelectorAll(".found a")).map(function (a) {
    return a.getAttribute("href");
  });
  var second = document.querySelector("#run-1-finding-2 button.show");
  if (second) {
    second.click();
    out.second = at();
  }
  out.width = window.innerWidth;
  out.scrollWidth = document.documentElement.scrollWidth;
  out.wide = Array.from(document.querySelectorAll("body *"))
    .filter(function (e) { return e.getBoundingClientRect().right > window.innerWidth; })
    .map(function (e) { return e.tagName + "." + e.className; });
  parent.postMessage(JSON.stringify(out), "*");
})();
</script>"##;

/// The page the browser opens: the driven page in a frame as wide as a phone (headless
/// Chromium's own window is at least 500 pixels wide), and what the page says it showed
/// written into `pre#driven`.
const FRAME: &str = r#"<!DOCTYPE html>
<html><body><pre id="driven"></pre>
<script>
window.addEventListener("message", function (event) {
  document.getElementById("driven").textContent = event.data;
});
</script>
<iframe src="driven.html" width="360" height="740"></iframe>
</body></html>
"#;

#[test]
fn the_replay_steps_to_a_finding_in_a_real_browser() {
    let Some(browser) = chromium() else {
        assert!(
            std::env::var_os("POWER11_REQUIRE_BROWSER").is_none(),
            "no Chromium on PATH: .ci/run installs Debian's chromium"
        );
        eprintln!("skipped: no Chromium on PATH (apt install chromium; .ci/run installs it)");
        return;
    };
    let run = Run::new();
    let Some((page, report)) = page_of(&run, "merge-twice") else {
        return;
    };
    let driven = run.path("driven.html");
    std::fs::write(
        &driven,
        page.replace("</body>", &format!("{DRIVER}</body>")),
    )
    .unwrap();
    std::fs::write(run.path("frame.html"), FRAME).unwrap();
    let dom = in_chromium(&browser, run.dir.path(), &run.path("frame.html"));
    let html = Html::parse_document(&dom);
    let out: Value = serde_json::from_str(
        &html
            .select(&select("pre#driven"))
            .next()
            .unwrap_or_else(|| panic!("the driver did not run: {dom}"))
            .text()
            .collect::<String>(),
    )
    .unwrap();
    let violations = report["violations"].as_array().unwrap();
    let first = &violations[0];
    let key = first["key"]["index"].as_u64().unwrap();
    assert_eq!(out["hidden"], false, "the script shows the replay");
    assert_eq!(out["start"], 0);
    assert_eq!(out["focused"], "BUTTON");
    assert_eq!(out["arrows"], 2, "three steps on, one back");
    assert_eq!(out["end"], report["keys"]);
    assert_eq!(out["finding"], key);
    assert!(
        out["step"]
            .as_str()
            .unwrap()
            .starts_with(&format!("Key {key} of {}", report["keys"])),
        "{}",
        out["step"]
    );
    assert_eq!(strings(&out["cells"]), json_board(&first["printed"]));
    assert!(out["marked"].as_u64().unwrap() > 0, "{out}");
    assert!(
        out["links"]
            .as_array()
            .unwrap()
            .contains(&Value::from("#run-1-finding-1")),
        "{out}"
    );
    if let Some(second) = violations.get(1) {
        assert_eq!(out["second"], second["key"]["index"]);
    }
    assert_eq!(out["width"], 360, "{out}");
    assert!(
        out["scrollWidth"].as_u64() <= out["width"].as_u64(),
        "a phone-sized window scrolls sideways: {out}"
    );
}
