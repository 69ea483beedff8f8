//! `power11 grade` (issue 72): a class folder as a course downloads it (a folder, `.zip` or
//! `.tar.gz` a student), each built the way its files say, held, graded by a rubric, into
//! the gradebook's files; stopped halfway and run again, it grades only the rest; a changed
//! submission is graded again alone. The programs are `tests/programs/power11.py` (with and
//! without a planted fault) and its C port `tests/programs/c`.

use crate::common::{Ran, Run};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A short rubric: every student gets the same six scripts; a hang ends in three seconds.
const RUBRIC: &str = "\
[scripts]
count = 6
seed = 3
timeout = 3
";

fn program(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs")
        .join(name)
}

/// Whether `command` runs here (`python3`, `cc`); a test that needs it is skipped without.
fn have(command: &str) -> bool {
    let found = std::process::Command::new(command)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipped: {command} is not on PATH");
    }
    found
}

/// A `main.py` that runs the Python program with `args`.
fn runner(args: &str) -> String {
    format!(
        "import runpy, sys\nsys.argv = ['power11.py'] + {args}\nrunpy.run_path('power11.py', run_name='__main__')\n"
    )
}

fn folder(class: &Path, name: &str, files: &[(&str, &[u8])]) {
    for (file, bytes) in files {
        let path = class.join(name).join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

fn zip(path: &Path, files: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// The class of the tests, in `run`'s folder `class`:
/// - alice: the Python program, correct; bob.zip: the same in a folder of the archive;
/// - carol: a `main.py` that plants a merge counted twice; erin: one that spins for ever
///   when asked to save; gina.tar.gz: the correct program with a README;
/// - dave: a Makefile whose C does not compile; mallory.zip: an entry that climbs out;
/// - frank: the C port built by its Makefile (where there is a C compiler).
fn class(run: &Run, with_c: bool) -> PathBuf {
    let class = run.path("class");
    std::fs::create_dir(&class).unwrap();
    let python = std::fs::read(program("power11.py")).unwrap();
    folder(&class, "alice", &[("power11.py", &python)]);
    zip(
        &class.join("bob.zip"),
        &[("bob/power11.py", &python), ("bob/notes.txt", b"mine\n")],
    );
    let carol = runner("['--fault', 'merge-twice']");
    folder(
        &class,
        "carol",
        &[("power11.py", &python), ("main.py", carol.as_bytes())],
    );
    folder(
        &class,
        "dave",
        &[
            ("Makefile", b"game: game.c\n\tcc -o game game.c\n"),
            ("game.c", b"int main( { return 0; }\n"),
        ],
    );
    let erin = runner("['--fault', 'spin-on-save']");
    folder(
        &class,
        "erin",
        &[("power11.py", &python), ("main.py", erin.as_bytes())],
    );
    let gina = run.path("gina");
    folder(
        &gina,
        "gina",
        &[("power11.py", &python), ("README", b"hi\n")],
    );
    let tar = std::process::Command::new("tar")
        .args(["czf"])
        .arg(class.join("gina.tar.gz"))
        .args(["-C", gina.to_str().unwrap(), "gina"])
        .status()
        .unwrap();
    assert!(tar.success());
    zip(
        &class.join("mallory.zip"),
        &[
            ("main.py", b"print('hi')\n"),
            ("../../evil.txt", b"gotcha\n"),
        ],
    );
    if with_c {
        let c = program("c");
        folder(
            &class,
            "frank",
            &[
                ("Makefile", &std::fs::read(c.join("Makefile")).unwrap()),
                ("power11.c", &std::fs::read(c.join("power11.c")).unwrap()),
            ],
        );
    }
    std::fs::write(run.path("rubric.toml"), RUBRIC).unwrap();
    class
}

fn grade(run: &Run, extra: &[&str]) -> Ran {
    let mut args = vec!["grade", "class", "--out", "out", "--rubric", "rubric.toml"];
    args.extend(extra);
    run.run(&args, "")
}

/// `grades.csv` as a spreadsheet reads it: a row a student, by column name.
fn grades_csv(run: &Run) -> Vec<BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(run.path("out/grades.csv")).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// Points are whole or halves: equal as the files write them.
#[track_caller]
fn assert_same(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() < 1e-9, "{what}: {a} against {b}");
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The class graded whole: each student's row, points and first finding; the gradebook's
/// files agree with each other and with the formats the learning systems read.
#[test]
fn a_class_is_built_graded_and_written_into_the_gradebook() {
    if !have("python3") {
        return;
    }
    let with_c = have("cc") && have("make");
    let run = Run::new();
    class(&run, with_c);
    let ran = grade(&run, &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);

    let rows = grades_csv(&run);
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["student"] == name)
            .unwrap_or_else(|| panic!("{name} in {rows:?}"))
    };
    let mut names: Vec<&str> = rows.iter().map(|r| r["student"].as_str()).collect();
    names.sort_unstable();
    let mut expected = vec!["alice", "bob", "carol", "dave", "erin", "gina", "mallory"];
    if with_c {
        expected.push("frank");
        expected.sort_unstable();
    }
    assert_eq!(names, expected);
    let max = row("alice")["max"].clone();
    // Correct programs lose only the rules six scripts never reach (a win, a loss).
    let full: f64 = row("alice")["total"].parse().unwrap();
    assert!(full > 0.0 && full < max.parse::<f64>().unwrap(), "{rows:?}");
    for name in ["bob", "gina"].into_iter().chain(with_c.then_some("frank")) {
        assert_eq!(row(name)["status"], "graded", "{name}");
        assert_eq!(
            row(name)["total"],
            row("alice")["total"],
            "{name}: {rows:?}"
        );
        assert_eq!(row(name)["first finding"], "", "{name}");
    }
    assert_eq!(row("alice")["merge"], "1");
    assert_eq!(row("carol")["merged-twice"], "0");
    assert_eq!(row("carol")["status"], "graded");
    assert!(
        row("carol")["first finding"].contains("merged-twice"),
        "{rows:?}"
    );
    assert_eq!(row("erin")["runs"], "0");
    assert!(
        row("erin")["first finding"].contains("still running"),
        "{rows:?}"
    );
    for name in ["dave", "mallory"] {
        assert_eq!(row(name)["status"], "did-not-build", "{name}");
        assert_eq!(row(name)["total"], "0", "{name}");
        assert_eq!(row(name)["max"], max, "{name}");
    }
    assert!(row("dave")["first finding"].contains("make"), "{rows:?}");
    assert!(
        row("mallory")["first finding"].contains("archive was refused"),
        "{rows:?}"
    );
    for planted in [
        "evil.txt",
        "../evil.txt",
        "out/evil.txt",
        "out/work/evil.txt",
    ] {
        assert!(!run.path(planted).exists(), "{planted}");
    }
    // The table on standard output: a row a student, the same points.
    for r in &rows {
        let line = ran
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{} ", r["student"])))
            .unwrap_or_else(|| panic!("{}", ran.stdout));
        assert!(
            line.contains(&format!("{}/{}", r["total"], r["max"])),
            "{line}"
        );
    }
    // dave's build log is kept, and ends with the compiler's complaint.
    let log = std::fs::read_to_string(run.path("out/logs/dave.build.txt")).unwrap();
    assert!(log.contains("game.c"), "{log}");

    // class.json holds the same grades as the CSV.
    let class = json(&run.path("out/class.json"));
    let students = class["students"].as_array().unwrap();
    assert_eq!(students.len(), rows.len());
    for student in students {
        let r = row(student["student"].as_str().unwrap());
        if student["student"] == "alice" {
            // What alice lost, she lost only to rules her scripts never reached.
            for item in student["items"].as_array().unwrap() {
                if item["points"].as_f64() == Some(0.0) {
                    assert_eq!(item["outcome"], "not-checked", "{item}");
                    assert!(item["output"].as_str().unwrap().contains("not checked"));
                }
            }
        }
        assert_same(
            student["total"].as_f64().unwrap(),
            r["total"].parse::<f64>().unwrap(),
            "total",
        );
        for item in student["items"].as_array().unwrap() {
            let name = item["name"].as_str().unwrap();
            assert_same(
                item["points"].as_f64().unwrap(),
                r[name].parse::<f64>().unwrap(),
                name,
            );
        }
    }

    // Each student's results.json as Gradescope reads it: a score that is the sum of its
    // tests, each with a name, score, max_score and a status Gradescope knows.
    for r in &rows {
        let results = json(&run.path(&format!("out/results/{}.json", r["student"])));
        let tests = results["tests"].as_array().unwrap();
        let sum: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
        assert_same(results["score"].as_f64().unwrap(), sum, "score");
        assert_same(sum, r["total"].parse::<f64>().unwrap(), &r["student"]);
        let most: f64 = tests.iter().map(|t| t["max_score"].as_f64().unwrap()).sum();
        assert_same(most, max.parse::<f64>().unwrap(), "max_score");
        for test in tests {
            assert!(test["name"].as_str().is_some_and(|n| !n.is_empty()));
            let status = test["status"].as_str().unwrap();
            assert!(status == "passed" || status == "failed", "{status}");
        }
        assert!(results["output"].as_str().is_some());
    }

    // The feedback pages, as a browser parses them: the class's links every student's; carol's
    // shows her fault as two boards with the cells that differ marked, and nothing from
    // anywhere else.
    let index = scraper::Html::parse_document(
        &std::fs::read_to_string(run.path("out/index.html")).unwrap(),
    );
    let links = scraper::Selector::parse("a[href]").unwrap();
    let mut linked: Vec<String> = index
        .select(&links)
        .map(|a| a.value().attr("href").unwrap().to_string())
        .collect();
    linked.sort();
    let mut pages: Vec<String> = rows
        .iter()
        .map(|r| format!("feedback/{}.html", r["student"]))
        .collect();
    pages.sort();
    assert_eq!(linked, pages);
    for page in &pages {
        assert!(run.path(&format!("out/{page}")).is_file(), "{page}");
    }
    let carol = std::fs::read_to_string(run.path("out/feedback/carol.html")).unwrap();
    let html = scraper::Html::parse_document(&carol);
    let select = |css: &str| scraper::Selector::parse(css).unwrap();
    let findings: Vec<_> = html.select(&select("article.finding")).collect();
    assert!(!findings.is_empty(), "{carol}");
    let merge = findings
        .iter()
        .find(|f| {
            f.select(&select("span.rule"))
                .any(|r| r.text().any(|t| t.contains("merged-twice")))
        })
        .unwrap_or_else(|| panic!("{carol}"));
    let boards: Vec<_> = merge.select(&select("table.board")).collect();
    assert_eq!(boards.len(), 2, "printed and allowed");
    for board in &boards {
        assert!(
            board.select(&select("td.diff")).count() > 0,
            "{}",
            board.html()
        );
    }
    assert!(merge.select(&select("p.keys code")).count() == 1);
    assert!(html.select(&select("code.command")).next().is_some());
    assert!(
        html.select(&select("section.replay script.replay-data"))
            .next()
            .is_some()
    );
    for external in ["script[src]", "link", "img", "iframe", "object"] {
        assert_eq!(html.select(&select(external)).count(), 0, "{external}");
    }

    // The class's JUnit XML as CI systems read it: a suite a student, its counts true.
    let xml = std::fs::read_to_string(run.path("out/class.xml")).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    assert_eq!(suites.len(), rows.len());
    let mut failing = 0;
    for suite in suites {
        let cases: Vec<_> = suite
            .children()
            .filter(|n| n.has_tag_name("testcase"))
            .collect();
        let count = |what: &str| {
            cases
                .iter()
                .filter(|c| c.children().any(|n| n.has_tag_name(what)))
                .count()
        };
        let attr = |name: &str| suite.attribute(name).unwrap().parse::<usize>().unwrap();
        assert_eq!(attr("tests"), cases.len());
        assert_eq!(attr("failures"), count("failure"));
        assert_eq!(attr("errors"), count("error"));
        assert_eq!(attr("skipped"), count("skipped"));
        assert!(
            cases
                .iter()
                .all(|c| c.attribute("name").is_some() && c.attribute("classname").is_some())
        );
        failing += attr("failures") + attr("errors");
    }
    assert!(failing > 0);
    assert_eq!(
        root.attribute("tests").unwrap().parse::<usize>().unwrap(),
        root.descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .count()
    );
}

/// Run again, nothing is graded again; a submission changed is graded again, alone.
#[test]
fn a_class_graded_again_grades_only_what_changed() {
    if !have("python3") {
        return;
    }
    let run = Run::new();
    class(&run, false);
    let first = grade(&run, &[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    let csv = std::fs::read_to_string(run.path("out/grades.csv")).unwrap();

    let again = grade(&run, &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    let graded: Vec<&str> = again
        .stderr
        .lines()
        .filter(|l| l.starts_with('['))
        .collect();
    assert_eq!(graded.len(), 7, "{}", again.stderr);
    assert!(
        graded.iter().all(|l| l.ends_with("(kept: unchanged)")),
        "{}",
        again.stderr
    );
    assert_eq!(
        std::fs::read_to_string(run.path("out/grades.csv")).unwrap(),
        csv
    );

    // carol fixes her merge: she alone is graded again, and now has alice's points.
    std::fs::write(run.path("class/carol/main.py"), runner("[]")).unwrap();
    let fixed = grade(&run, &[]);
    assert_eq!(fixed.code, 0, "{}", fixed.stderr);
    let regraded: Vec<&str> = fixed
        .stderr
        .lines()
        .filter(|l| l.starts_with('[') && !l.ends_with("(kept: unchanged)"))
        .collect();
    assert_eq!(regraded.len(), 1, "{}", fixed.stderr);
    assert!(regraded[0].contains("carol"), "{}", fixed.stderr);
    let rows = grades_csv(&run);
    let total = |name: &str| rows.iter().find(|r| r["student"] == name).unwrap()["total"].clone();
    assert_eq!(total("carol"), total("alice"));

    // --fresh grades every one again.
    let fresh = grade(&run, &["--fresh"]);
    assert!(!fresh.stderr.contains("kept"), "{}", fresh.stderr);
}

/// Stopped by SIGTERM halfway, a grading writes what it graded and no grade for the rest
/// (empty, not zero), says how to go on, and exits as the signal would; run again, it
/// grades only the rest.
#[test]
fn a_grading_stopped_halfway_keeps_what_it_graded_and_goes_on_from_there() {
    if !have("python3") {
        return;
    }
    let run = Run::new();
    class(&run, false);
    std::fs::write(
        run.path("rubric.toml"),
        RUBRIC.replace("count = 6", "count = 12"),
    )
    .unwrap();
    let mut child = run
        .process(&["grade", "class", "--out", "out", "--rubric", "rubric.toml"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut said = String::new();
    // Two students graded (alice, bob): stop it in the third.
    while said.lines().filter(|l| l.starts_with('[')).count() < 2 {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "ended early: {said}"
        );
        said.push_str(&line);
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill sends a signal to the child started above; it touches no memory.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
    let status = child.wait_with_output().unwrap();
    assert_eq!(status.status.code(), Some(128 + 15), "{said}{rest}");
    assert!(rest.contains("run the same command to go on"), "{rest}");

    let rows = grades_csv(&run);
    assert_eq!(rows.len(), 7);
    let graded: Vec<&str> = rows
        .iter()
        .filter(|r| r["status"] != "not-graded")
        .map(|r| r["student"].as_str())
        .collect();
    assert!(graded.starts_with(&["alice", "bob"]), "{rows:?}");
    assert!(graded.len() < 7, "{rows:?}");
    for r in rows.iter().filter(|r| r["status"] == "not-graded") {
        assert_eq!(r["total"], "", "no grade, not a zero: {r:?}");
    }
    let class = json(&run.path("out/class.json"));
    assert_eq!(class["stopped_by"], "SIGTERM");

    let resumed = grade(&run, &[]);
    assert_eq!(resumed.code, 0, "{}", resumed.stderr);
    let lines: Vec<&str> = resumed
        .stderr
        .lines()
        .filter(|l| l.starts_with('['))
        .collect();
    for name in &graded {
        let line = lines
            .iter()
            .find(|l| l.contains(&format!(" {name}:")))
            .unwrap();
        assert!(line.ends_with("(kept: unchanged)"), "{line}");
    }
    assert_eq!(
        lines
            .iter()
            .filter(|l| !l.ends_with("(kept: unchanged)"))
            .count(),
        7 - graded.len(),
        "{}",
        resumed.stderr
    );
    assert!(grades_csv(&run).iter().all(|r| r["status"] != "not-graded"));
}

/// What the grader typed wrong is refused before any work: a rubric's unknown rule with
/// its `path:line`, an output folder inside the class, a class with nothing in it.
#[test]
fn a_wrong_rubric_or_folder_is_refused_before_any_work() {
    let run = Run::new();
    std::fs::create_dir(run.path("class")).unwrap();
    std::fs::write(run.path("bad.toml"), "[points]\nmerge = 1\nmerj = 2\n").unwrap();
    let ran = run.run(
        &["grade", "class", "--out", "out", "--rubric", "bad.toml"],
        "",
    );
    ran.assert_refused("bad.toml:3: ");
    assert!(ran.stderr.contains("merj"), "{}", ran.stderr);
    run.run(&["grade", "class", "--out", "class/out"], "")
        .assert_refused("inside the class folder");
    run.run(&["grade", "class", "--out", "out"], "")
        .assert_refused("no submission");
    assert!(!run.path("out").exists());
    let printed = run.run(&["grade", "--print-rubric"], "");
    assert_eq!(printed.code, 0);
    std::fs::write(run.path("default.toml"), &printed.stdout).unwrap();
    std::fs::create_dir(run.path("class/alice")).unwrap();
    let ran = run.run(
        &[
            "grade",
            "class",
            "--out",
            "out",
            "--rubric",
            "default.toml",
            "--scripts",
            "1",
        ],
        "",
    );
    // The printed rubric reads back; alice has no program, and says so.
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("cannot tell how to build it"),
        "{}",
        ran.stdout
    );
}
