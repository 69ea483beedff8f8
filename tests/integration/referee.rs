//! `power11 referee` through the binary: power11's own transcripts pass; copies edited by hand
//! to break one rule each are reported at that board with that rule and nothing earlier; what
//! the assignment allows (cells of 0, a screen clear, a board printed twice) passes; programs
//! run with `--run` are refereed, and stopped when they hang or crash; generated scripts.

use crate::common::{Ran, Run, fixture};
use std::path::PathBuf;

/// The cases of `fixtures/referee/` (made by its `make.py`), and what the referee must say:
/// the rule broken and the board where, or `None` where every rule holds.
const CASES: &[(&str, Option<(&str, usize)>)] = &[
    ("power11", None),
    ("won", None),
    ("zero-cells", None),
    ("screen-clear", None),
    ("printed-twice", None),
    ("same-start", None),
    ("new-game-tiles", Some(("new-game-tiles", 1))),
    ("merge", Some(("merge", 2))),
    ("new-tiles-extra", Some(("new-tiles-extra", 3))),
    ("new-tile-missing", Some(("new-tile-missing", 3))),
    ("score", Some(("score", 3))),
    ("loss-too-early", Some(("loss-too-early", 4))),
    ("unchanged-move", Some(("unchanged-move", 7))),
    ("undo", Some(("undo", 9))),
    ("merged-twice", Some(("merged-twice", 20))),
    ("win-not-announced", Some(("win-not-announced", 937))),
];

fn case_dir(case: &str) -> PathBuf {
    fixture("referee").join(case)
}

/// `power11 referee` on a case's keys, transcript and save (if it has one), with `extra`.
fn referee(case: &str, extra: &[&str]) -> Ran {
    let dir = case_dir(case);
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let mut args = vec![
        "referee".to_string(),
        "--keys".to_string(),
        path("keys.txt"),
        path("out.txt"),
    ];
    if dir.join("power11.saved").exists() {
        args.extend(["--save".to_string(), path("power11.saved")]);
    }
    args.extend(extra.iter().map(ToString::to_string));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Run::new().run(&args, "")
}

#[test]
fn each_broken_rule_is_reported_at_its_board_and_nothing_earlier() {
    for &(case, expected) in CASES {
        let ran = referee(case, &["--json"]);
        let json: serde_json::Value = serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|e| panic!("{case}: {e}: {}", ran.stdout));
        let violations = json["report"]["violations"].as_array().unwrap();
        match expected {
            None => {
                assert_eq!(ran.code, 0, "{case}: {}", ran.stdout);
                assert!(violations.is_empty(), "{case}: {violations:?}");
            }
            Some((rule, board)) => {
                assert_eq!(ran.code, 1, "{case}: {}", ran.stderr);
                assert_eq!(violations.len(), 1, "{case}: {violations:?}");
                assert_eq!(violations[0]["rule"], rule, "{case}");
                assert_eq!(violations[0]["board"], board, "{case}");
                // One fault, found once: a board misprinted is no cascade of findings.
                assert_eq!(json["report"]["rules"][0]["count"], 1, "{case}");
            }
        }
    }
}

/// The report in words, whole, for each case (`POWER11_BLESS=1` writes them anew, to be
/// read before they are committed).
#[test]
fn the_reports_in_words_are_unchanged() {
    let bless = std::env::var_os("POWER11_BLESS").is_some();
    let mut changed = Vec::new();
    for &(case, _) in CASES {
        let ran = referee(case, &[]);
        let report = format!(
            "exit {}\n{}=== stderr\n{}",
            ran.code, ran.stdout, ran.stderr
        );
        let path = case_dir(case).join("report.txt");
        if bless {
            std::fs::write(&path, &report).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(report.as_str()) {
            changed.push(format!("{case}:\n{report}"));
        }
    }
    assert!(
        changed.is_empty(),
        "reports changed:\n{}",
        changed.join("\n")
    );
}

#[test]
fn the_save_is_checked_against_the_game() {
    let ran = referee("power11", &[]);
    assert!(
        ran.stdout
            .contains("save: the game's states, oldest first (with the undo bonus)\n"),
        "{}",
        ran.stdout
    );
    // A save of the last state only is the assignment's too; one of another board is not.
    let run = Run::new();
    let saved = std::fs::read_to_string(case_dir("power11").join("power11.saved")).unwrap();
    let last = &saved[saved.rfind("Score: ").unwrap()..];
    std::fs::write(run.path("one.saved"), last).unwrap();
    let dir = case_dir("power11");
    let keys = dir.join("keys.txt");
    let out = dir.join("out.txt");
    let args = |save: &str| {
        vec![
            "referee".to_string(),
            "--keys".to_string(),
            keys.to_str().unwrap().to_string(),
            out.to_str().unwrap().to_string(),
            "--save".to_string(),
            save.to_string(),
        ]
    };
    let one = args("one.saved");
    let ran = run.run(&one.iter().map(String::as_str).collect::<Vec<_>>(), "");
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("save: the current state alone (without the undo bonus)\n")
    );
    // The save's first state alone: up to the second score line.
    let second = saved[1..].find("Score: ").unwrap() + 1;
    let first = &saved[..second];
    std::fs::write(run.path("other.saved"), first.trim_end()).unwrap();
    let other = args("other.saved");
    let ran = run.run(&other.iter().map(String::as_str).collect::<Vec<_>>(), "");
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(ran.stdout.contains("[save-state]"), "{}", ran.stdout);
    assert!(
        ran.stdout.contains("save: breaks a rule (see above)\n"),
        "{}",
        ran.stdout
    );
    // An empty file is no save: a violation of the format, not a save left unchecked.
    std::fs::write(run.path("empty.saved"), "").unwrap();
    let empty = args("empty.saved");
    let ran = run.run(&empty.iter().map(String::as_str).collect::<Vec<_>>(), "");
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(ran.stdout.contains("[save-format]"), "{}", ran.stdout);
}

#[test]
fn strict_makes_a_format_deviation_a_violation() {
    let ran = referee("zero-cells", &[]);
    assert_eq!(ran.code, 0);
    assert!(
        ran.stdout
            .contains("warning: empty cells are blank, not 0 [zero-cells]")
    );
    let ran = referee("zero-cells", &["--strict"]);
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("broken: empty cells are blank, not 0 [zero-cells], 18 times\n  at board 1"),
        "{}",
        ran.stdout
    );
    // Regression (referee, round 3): the last line said "1 rule(s) broken, 0 fault(s) in
    // all": a format rule broken under --strict counts among the faults.
    assert!(
        ran.stdout
            .contains("1 rule(s) broken, 18 fault(s) in all, 0 format warning(s)"),
        "{}",
        ran.stdout
    );
}

#[test]
fn files_that_cannot_be_read_exit_2() {
    let ran = Run::new().run(&["referee", "--keys", "none.txt", "out.txt"], "");
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (2, "power11: none.txt: no such file\n")
    );
    let ran = Run::new().run(&["referee", "out.txt"], "");
    assert_eq!(ran.code, 2, "{}", ran.stderr);
}

/// The binary of power11, as `--run` takes it.
fn power11() -> String {
    assert_cmd::cargo::cargo_bin("power11")
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn run_referees_the_program_it_runs() {
    let keys = case_dir("power11").join("keys.txt");
    let run = format!("'{}' --seed 11", power11());
    let ran = Run::new().run(
        &["referee", "--run", &run, "--keys", keys.to_str().unwrap()],
        "",
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout
            .contains("21 keys, 18 boards: every rule holds\n"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .contains("run: the program exited with code 0 after ")
    );
    assert!(ran.stdout.contains("; it left power11.saved\n"));
}

/// A program that hangs at the end of its input, or crashes, is stopped and said to, apart
/// from the rules it kept: a run that only hung exits 3, one that also broke a rule 1.
#[cfg(unix)]
#[test]
fn a_program_that_hangs_or_crashes_is_stopped_and_said_to() {
    let keys = case_dir("power11").join("keys.txt");
    let keys = keys.to_str().unwrap();
    // After `q` it never reads the end of its input, nor exits: it hangs.
    let hangs = format!("sh -c \"'{}' --seed 2; sleep 600\"", power11());
    let ran = Run::new().run(
        &["referee", "--run", &hangs, "--keys", keys, "--timeout", "2"],
        "",
    );
    // No rule broken, but the run hung: exit 3, not 1.
    assert_eq!(ran.code, 3, "{}", ran.stdout);
    assert!(ran.stdout.contains("every rule holds"), "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("run: the program was still running after 2."),
        "{}",
        ran.stdout
    );
    let crashes = "sh -c 'kill -SEGV $$'";
    let ran = Run::new().run(&["referee", "--run", crashes, "--keys", keys], "");
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("run: the program was ended by signal 11 (SIGSEGV)"),
        "{}",
        ran.stdout
    );
}

/// power11 referees itself: a thousand generated scripts, both sizes, undo to the start,
/// saves and resumes, through `--run` on the binary, without a violation.
#[test]
fn power11_passes_a_thousand_generated_scripts() {
    let run = Run::new();
    let ran = run.run(
        &[
            "referee",
            "--run",
            &power11(),
            "--scripts",
            "1000",
            "--timeout",
            "60",
            "--seed",
            "1",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(
        ran.stdout.ends_with(" failed\n") && ran.stdout.contains(": 0 failed"),
        "{}",
        ran.stdout
    );
    assert!(!run.path("referee-failures").exists());
}

/// A program that breaks a rule in every game fails each script, and each is kept with what
/// the program printed, for replay.
#[cfg(unix)]
#[test]
fn failing_scripts_are_kept_for_replay() {
    let run = Run::new();
    // Every score printed is 10 more than it is.
    let program = format!("sh -c \"'{}' | sed 's/^Score: /Score: 1/'\"", power11());
    let ran = run.run(
        &[
            "referee",
            "--run",
            &program,
            "--scripts",
            "3",
            "--timeout",
            "60",
            "--seed",
            "5",
            "--keep",
            "kept",
        ],
        "",
    );
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    // Regression (new users, round 3): a long run printed no summary of which rules broke
    // how often; it ends with one, a rule a line.
    let (_, summary) = ran
        .stdout
        .rsplit_once(": 3 failed\nrules broken:\n")
        .unwrap();
    assert!(summary.lines().count() >= 1, "{}", ran.stdout);
    assert!(
        summary
            .lines()
            .all(|l| l.contains(" broken in ") && l.contains(" of 3 scripts, first script ")),
        "{}",
        ran.stdout
    );
    // The run's own folder, named by its seed and time.
    let own: Vec<_> = std::fs::read_dir(run.path("kept"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(own.len(), 1, "{own:?}");
    assert!(own[0].starts_with("seed-5-"), "{own:?}");
    let own = format!("kept/{}", own[0]);
    for i in 0..3 {
        for ext in ["keys", "out"] {
            let kept = run.path(&format!("{own}/script-{i:04}.{ext}"));
            assert!(kept.is_file(), "{}", kept.display());
        }
    }
    // A kept script replays: its transcript and keys give the same report.
    let keys = format!("{own}/script-0000.keys");
    let out = format!("{own}/script-0000.out");
    let replay = run.run(&["referee", "--keys", &keys, &out], "");
    assert_eq!(replay.code, 1);
    assert!(
        replay.stdout.contains("[new-game-score]"),
        "{}",
        replay.stdout
    );
}

/// `power11 args` in `run`'s directory, stopped by `timeout` if it takes 20 s: its exit code
/// (124 if it hung) and what it printed.
#[cfg(unix)]
fn bounded(run: &Run, args: &[&str]) -> (i32, String, String) {
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let output = std::process::Command::new("timeout")
        .arg("20")
        .arg(bin)
        .args(args)
        .current_dir(run.dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Regression (hostile-user trial): a FIFO named as the transcript, the keys or the save hung
/// the referee at its open; a program that left a process holding its output open kept the
/// referee waiting past `--timeout`, for as long as that process lived.
#[cfg(unix)]
#[test]
fn no_fifo_and_no_process_left_behind_hangs_the_referee() {
    let run = Run::new();
    std::fs::write(run.path("keys.txt"), "h\nq\nq\n").unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(run.path("fifo"))
        .status()
        .unwrap();
    assert!(made.success());
    for args in [
        &["referee", "--keys", "keys.txt", "fifo"][..],
        &["referee", "--keys", "fifo", "keys.txt"],
    ] {
        let (code, stdout, stderr) = bounded(&run, args);
        assert_ne!(code, 124, "{args:?} hung");
        assert!(code == 1 || code == 2, "{args:?}: {code} {stdout} {stderr}");
    }
    // The shell exits at once; the sleep it left in its group is stopped with it.
    let (code, stdout, _) = bounded(
        &run,
        &[
            "referee",
            "--keys",
            "keys.txt",
            "--run",
            "sh -c 'sleep 60 & echo hi'",
        ],
    );
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.starts_with("run: the program exited with code 0 after 0."),
        "{stdout}"
    );
    // A process that left the group (setsid) is not waited for past the time limit; the key
    // the program hung on is the run's problem (exit 3), not a board missing.
    let (code, stdout, _) = bounded(
        &run,
        &[
            "referee",
            "--keys",
            "keys.txt",
            "--timeout",
            "1",
            "--run",
            "sh -c 'setsid sleep 60 & sleep 60'",
        ],
    );
    assert_eq!(code, 3, "{stdout}");
    assert!(
        stdout.starts_with("run: the program was still running after 1."),
        "{stdout}"
    );
}

/// Hostile-user trial: arguments that cannot work are refused before anything runs, with one
/// line and exit code 2: an empty keys file, `--keep` naming a file, a program not on PATH.
#[test]
fn bad_inputs_are_refused_before_anything_runs() {
    let run = Run::new();
    std::fs::write(run.path("keys.txt"), "h\nq\nq\n").unwrap();
    std::fs::write(run.path("empty.txt"), " \n").unwrap();
    let cases: [(&[&str], &str); 3] = [
        (
            &["referee", "--keys", "empty.txt", "keys.txt"],
            "power11: empty.txt: no keys in it (each character that is not a blank is a key)\n",
        ),
        (
            &[
                "referee",
                "--run",
                "false",
                "--scripts",
                "2",
                "--keep",
                "keys.txt",
            ],
            "power11: --keep keys.txt: a regular file, not a folder to keep failing scripts in\n",
        ),
        (
            &[
                "referee",
                "--run",
                "no-such-program-p11",
                "--keys",
                "keys.txt",
            ],
            "power11: --run: no-such-program-p11: no such program on PATH\n",
        ),
    ];
    for (args, says) in cases {
        let ran = run.run(args, "");
        assert_eq!((ran.code, ran.stderr.as_str()), (2, says), "{args:?}");
        assert!(ran.stdout.is_empty(), "{args:?}: {}", ran.stdout);
    }
    // `-` reads the transcript from standard input.
    let transcript = run.run(&["--seed", "1"], "h\nq\nq\n").stdout;
    let ran = run.run(&["referee", "--keys", "keys.txt", "-"], transcript);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(ran.stdout.ends_with("3 keys, 1 boards: every rule holds\n"));
}
