//! The referee as a grader uses it (issue 64): every fault of a run once, at the board that
//! shows it and the key that board answers; no finding on what a correct program does; a
//! class of programs graded in one command, in words, JSON, Gradescope's `results.json` and
//! JUnit XML; the MIPS program's rules. The programs graded are power11 itself and
//! `tests/programs/power11.py`, an independent Power-11 program whose faults can be switched on
//! one at a time.

use crate::common::{Ran, Run, fixture, python};
use std::path::PathBuf;

/// What `program` (a command line) prints for `keys` in `run`'s folder, and the save it left.
fn transcript(run: &Run, program: &str, keys: &str) -> (String, Option<String>) {
    let words = shlex::split(program).unwrap();
    let output = std::process::Command::new(&words[0])
        .args(&words[1..])
        .current_dir(run.dir.path())
        .env("POWER11_DATA_DIR", run.path("data"))
        .stdin(std::fs::File::open(write(run, "in.keys", keys)).unwrap())
        .output()
        .unwrap();
    let save = std::fs::read_to_string(run.path("power11.saved")).ok();
    (String::from_utf8_lossy(&output.stdout).into_owned(), save)
}

/// Writes `text` to `name` in `run`'s folder; its path.
fn write(run: &Run, name: &str, text: &str) -> PathBuf {
    let path = run.path(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `power11 referee --json` on `keys` and `out` (and `extra`) in `run`'s folder: its exit code
/// and the report.
fn judged(run: &Run, keys: &str, out: &str, extra: &[&str]) -> (i32, serde_json::Value) {
    write(run, "k.txt", keys);
    write(run, "o.txt", out);
    let mut args = vec!["referee", "--json", "--keys", "k.txt", "o.txt"];
    args.extend(extra);
    let ran = run.run(&args, "");
    let json: serde_json::Value = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", ran.stdout, ran.stderr));
    (ran.code, json)
}

/// Each rule broken as (name, count, first board, first key's index).
fn rules(json: &serde_json::Value) -> Vec<(String, u64, u64, u64)> {
    json["report"]["rules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["rule"].as_str().unwrap().to_string(),
                b["count"].as_u64().unwrap(),
                b["board"].as_u64().unwrap_or(0),
                b["key"]["index"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn rule(name: &str, count: u64, board: u64, key: u64) -> (String, u64, u64, u64) {
    (name.to_string(), count, board, key)
}

/// Two faults far apart in one transcript (a score printed wrong at board 3, an undo that
/// restored another state at board 9) are two findings at their boards: the referee goes on
/// after the first, and the misprinted score causes nothing after it.
#[test]
fn two_independent_faults_are_two_findings_at_their_boards() {
    let read = |case: &str| {
        std::fs::read_to_string(fixture("referee").join(case).join("out.txt")).unwrap()
    };
    let (base, score, undo) = (read("power11"), read("score"), read("undo"));
    let merged: Vec<&str> = base
        .lines()
        .zip(score.lines().zip(undo.lines()))
        .map(|(b, (s, u))| if s == b { u } else { s })
        .collect();
    let keys = std::fs::read_to_string(fixture("referee").join("power11/keys.txt")).unwrap();
    let run = Run::new();
    let (code, json) = judged(&run, &keys, &(merged.join("\n") + "\n"), &[]);
    assert_eq!(code, 1);
    assert_eq!(
        rules(&json),
        [rule("score", 1, 3, 3), rule("undo", 1, 9, 9)],
        "{json}"
    );
}

/// A program that starts every game with one tile breaks that rule once a game, and nothing
/// else: its games go on from the boards it printed.
#[test]
fn a_program_that_starts_with_one_tile_breaks_that_rule_once_a_game() {
    let Some(program) = python("--seed 3 --fault one-tile-start") else {
        return;
    };
    let run = Run::new();
    let keys = "h\nl\nu\nr\nd\nq\ne\nu\nl\nb\nq\nh\nd\nd\nr\nq\nq\n";
    let (out, _) = transcript(&run, &program, keys);
    let (code, json) = judged(&run, keys, &out, &[]);
    assert_eq!(code, 1);
    assert_eq!(rules(&json), [rule("new-game-tiles", 3, 1, 1)], "{json}");
}

/// Issue 64, point 2: a `b` that prints the board unchanged is an `undo` fault at that board,
/// and a resume that shows another state than the one saved is a `resume` fault at `r`.
#[test]
fn an_unchanged_undo_and_a_wrong_resume_are_blamed_on_their_keys() {
    let Some(program) = python("--seed 1 --fault undo-unchanged") else {
        return;
    };
    let run = Run::new();
    // Every third undo does nothing: the third `b`, key 7.
    let keys = "h\nl\nu\nr\nb\nb\nb\nb\nq\nq\n";
    let (out, _) = transcript(&run, &program, keys);
    let (_, json) = judged(&run, keys, &out, &[]);
    assert_eq!(rules(&json), [rule("undo", 1, 7, 7)], "{json}");
    let program = python("--seed 1 --fault resume-wrong").unwrap();
    let run = Run::new();
    let keys = "h\nl\nu\nr\ns\nq\nr\nb\nb\nb\nb\nq\nq\n";
    let (out, save) = transcript(&run, &program, keys);
    write(&run, "s.saved", &save.unwrap());
    let (_, json) = judged(&run, keys, &out, &["--save", "s.saved"]);
    assert_eq!(rules(&json), [rule("resume", 1, 6, 7)], "{json}");
    assert_eq!(json["report"]["save"], "history");
}

/// Issue 64, point 3: what correct programs do is no finding. A transcript that begins with
/// `r` of a save made before it takes the board printed as the saved state (and notes it);
/// `--save-before` checks that board against the save. A final board printed twice with the
/// end message after the second copy has its message.
#[test]
fn no_finding_on_a_resume_of_an_earlier_save_or_a_message_after_a_reprint() {
    let run = Run::new();
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let power11 = power11.to_str().unwrap();
    transcript(&run, &format!("{power11} --seed 1"), "h\nl\nu\ns\nq\nq\n");
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let keys = "r\nl\nb\nq\nq\n";
    let (out, _) = transcript(&run, &format!("{power11} --seed 2"), keys);
    let (code, json) = judged(&run, keys, &out, &[]);
    assert_eq!(code, 0, "{json}");
    assert!(
        json["report"]["notes"][0]
            .as_str()
            .unwrap()
            .contains("--save-before FILE checks it"),
        "{json}"
    );
    write(&run, "before.saved", &saved);
    let (code, json) = judged(&run, keys, &out, &["--save-before", "before.saved"]);
    assert_eq!(
        (code, json["report"]["notes"].as_array().unwrap().len()),
        (0, 0)
    );
    // Another save than the one resumed: `r` is blamed.
    let other = transcript(
        &Run::new(),
        &format!("{power11} --seed 5"),
        "h\nd\ns\nq\nq\n",
    );
    write(&run, "other.saved", &other.1.unwrap());
    let (code, json) = judged(&run, keys, &out, &["--save-before", "other.saved"]);
    assert_eq!(code, 1);
    assert_eq!(rules(&json)[0].0, "resume", "{json}");
    // The won game's last board printed again, its message after the copy only.
    let won = fixture("referee").join("won");
    let out = std::fs::read_to_string(won.join("out.txt")).unwrap();
    let message = out.find("YOU WON WITH A SCORE OF").unwrap();
    let board_start = out[..message].rfind("Score: ").unwrap();
    let last = &out[board_start..message];
    let reprinted = format!("{}{last}{}", &out[..message], &out[message..]);
    let keys = std::fs::read_to_string(won.join("keys.txt")).unwrap();
    let (code, json) = judged(&run, &keys, &reprinted, &[]);
    assert_eq!(code, 0, "{json}");
}

/// Issue 64, point 4: a save written newest first is reported (`save-order`: a warning, a
/// violation under `--strict`), and still checked against the game.
#[test]
fn a_save_written_newest_first_is_reported() {
    let Some(program) = python("--seed 2 --fault save-newest-first") else {
        return;
    };
    let run = Run::new();
    let keys = "h\nl\nu\nd\ns\nq\nq\n";
    let (out, save) = transcript(&run, &program, keys);
    write(&run, "s.saved", &save.unwrap());
    let (code, json) = judged(&run, keys, &out, &["--save", "s.saved"]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["report"]["warnings"][0]["rule"], "save-order");
    assert_eq!(json["report"]["save"], "history");
    let (code, json) = judged(&run, keys, &out, &["--save", "s.saved", "--strict"]);
    assert_eq!(code, 1);
    assert_eq!(rules(&json), [rule("save-order", 1, 0, 0)], "{json}");
}

/// The class of the issue in one command: three programs on the same scripts, in parallel,
/// one JSON with an entry a program and the rules each broke; the table in words.
#[test]
fn three_programs_in_one_command_are_graded_together() {
    let (Some(good), Some(one_tile), Some(twice)) = (
        python("--seed 1"),
        python("--seed 1 --fault one-tile-start"),
        python("--seed 1 --fault score-twice"),
    ) else {
        return;
    };
    let run = Run::new();
    let args = [
        "referee",
        "--run",
        &good,
        "--run",
        &one_tile,
        "--run",
        &twice,
        "--scripts",
        "8",
        "--timeout",
        "60",
        "--seed",
        "4",
        "--jobs",
        "3",
        "--keep",
        "k",
    ];
    let ran = run.run(&[&args[..], &["--json"]].concat(), "");
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let programs = json["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 3);
    let broken = |p: &serde_json::Value| -> Vec<String> {
        p["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["rule"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(broken(&programs[0]), Vec::<String>::new());
    assert_eq!(programs[0]["failed"], 0);
    assert_eq!(broken(&programs[1]), ["new-game-tiles"]);
    assert_eq!(programs[1]["failed"], 8);
    assert_eq!(broken(&programs[2]), ["score"]);
    // Regression (referee, round 3): `failed` was there for one program and missing for
    // several; it lists every failing run of the class, each with its command.
    let failed = json["failed"].as_array().unwrap();
    let of_program = |p: usize| {
        failed
            .iter()
            .filter(|f| f["command"] == programs[p]["command"])
            .count() as u64
    };
    assert_eq!(of_program(1), 8);
    assert_eq!(of_program(2), programs[2]["failed"].as_u64().unwrap());
    assert_eq!(of_program(0), 0);
    let own: Vec<_> = std::fs::read_dir(run.path("k"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(own.len(), 1, "{own:?}");
    assert!(own[0].join("program-2/script-0000.keys").is_file());
    assert!(!own[0].join("program-1").exists());
    let ran = run.run(&args, "");
    assert!(
        ran.stdout.starts_with("program") && ran.stdout.contains("new-game-tiles"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout.contains("--fault one-tile-start: 8 failed\n"),
        "{}",
        ran.stdout
    );
}

/// Each fault the Python program can plant, graded over 30 scripts: the rule it breaks is the
/// only one reported, in every script that shows it, and nothing else is blamed around it
/// (an undo that did nothing, a save read backwards and a doubled score each once drew
/// findings of other rules a few keys later).
#[test]
fn each_planted_fault_is_the_only_rule_broken() {
    let planted = [
        ("score-twice", "score"),
        ("undo-unchanged", "undo"),
        ("save-newest-first", "resume"),
        ("resume-wrong", "resume"),
        ("merge-twice", "merged-twice"),
        ("no-new-tile", "new-tile-missing"),
        ("early-loss", "loss-too-early"),
        ("one-tile-start", "new-game-tiles"),
    ];
    let mut programs = Vec::new();
    for (fault, _) in planted {
        let Some(program) = python(&format!("--seed 1 --fault {fault}")) else {
            return;
        };
        programs.push(program);
    }
    let run = Run::new();
    let mut args = vec![
        "referee",
        "--json",
        "--scripts",
        "30",
        "--timeout",
        "60",
        "--seed",
        "7",
        "--jobs",
        "2",
    ];
    for program in &programs {
        args.extend(["--run", program.as_str()]);
    }
    let ran = run.run(&args, "");
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    for ((fault, rule), graded) in planted.iter().zip(json["programs"].as_array().unwrap()) {
        let broken: Vec<(&str, u64)> = graded["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["rule"].as_str().unwrap(), r["scripts"].as_u64().unwrap()))
            .collect();
        let failed = graded["failed"].as_u64().unwrap();
        assert!(failed > 0, "{fault}: no script failed");
        assert_eq!(broken, [(*rule, failed)], "{fault}");
        assert_eq!(graded["run_problems"], 0, "{fault}");
    }
}

/// A command typed where its files are (`sh wrap.sh game.py`) runs them, though each run is in
/// a folder of its own (they were not found there: every board was missing); a program that
/// plays by the rules but exits with another code than 0 is a run problem (exit 3), with the
/// last line it wrote on standard error.
#[test]
fn relative_files_are_found_and_a_failing_exit_is_a_run_problem() {
    if python("").is_none() {
        return;
    }
    let run = Run::new();
    let game = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs/power11.py");
    std::fs::copy(game, run.path("game.py")).unwrap();
    write(
        &run,
        "wrap.sh",
        "python3 \"$1\" --seed 1\necho 'wrap: the game is over' >&2\nexit 5\n",
    );
    let ran = run.run(
        &[
            "referee",
            "--run",
            "python3 game.py --seed 1",
            "--scripts",
            "3",
            "--timeout",
            "60",
            "--seed",
            "2",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    let ran = run.run(
        &[
            "referee",
            "--run",
            "sh wrap.sh game.py",
            "--scripts",
            "3",
            "--timeout",
            "60",
            "--seed",
            "2",
            "--json",
        ],
        "",
    );
    assert_eq!(ran.code, 3, "{}{}", ran.stdout, ran.stderr);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let program = &json["programs"][0];
    assert_eq!(program["rules"], serde_json::json!([]), "{}", ran.stdout);
    assert_eq!(program["run_problems"], 3, "{}", ran.stdout);
    let ran = run.run(
        &[
            "referee",
            "--run",
            "sh wrap.sh game.py",
            "--scripts",
            "1",
            "--timeout",
            "60",
            "--seed",
            "2",
        ],
        "",
    );
    assert!(
        ran.stdout.contains(
            "run: the program exited with code 5 (a Power-11 program ends with 0 at the end of \
             its input), answering key "
        ) && ran
            .stdout
            .contains("; its last words on standard error: wrap: the game is over\n"),
        "{}",
        ran.stdout
    );
}

/// A MIPS run whose first move that changes nothing (`Invalid move.`, no board) comes late:
/// its key takes no board, as the MIPS program prints none, and the next move's board is the
/// next move's (it was read as the unchanged move's with a tile added, an `unchanged-move`
/// fault, in about one run of 3,000).
#[test]
fn the_first_invalid_move_of_a_mips_run_takes_no_board() {
    let case = fixture("referee/mips-first-invalid-move");
    let (keys, out) = (case.join("keys.txt"), case.join("out.txt"));
    let ran = Run::new().run(
        &[
            "referee",
            "--interface",
            "mips",
            "--keys",
            keys.to_str().unwrap(),
            out.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(ran.stdout.ends_with("every rule holds\n"), "{}", ran.stdout);
}

/// Gradescope's `results.json` and JUnit XML, as their published forms have them: the faulty
/// program's name the broken rule failed, the correct program's pass every test.
#[test]
fn gradescope_and_junit_files_name_the_broken_rule() {
    let (Some(good), Some(twice)) = (python("--seed 1"), python("--seed 1 --fault score-twice"))
    else {
        return;
    };
    let run = Run::new();
    let grade = |program: &str, name: &str| -> Ran {
        run.run(
            &[
                "referee",
                "--run",
                program,
                "--scripts",
                "5",
                "--timeout",
                "60",
                "--seed",
                "2",
                "--keep",
                "k",
                "--gradescope",
                &format!("{name}.json"),
                "--junit",
                &format!("{name}.xml"),
            ],
            "",
        )
    };
    assert_eq!(grade(&twice, "twice").code, 1);
    assert_eq!(grade(&good, "good").code, 0);
    let results = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(run.path(name)).unwrap()).unwrap()
    };
    let (bad, fine) = (results("twice.json"), results("good.json"));
    for json in [&bad, &fine] {
        let tests = json["tests"].as_array().unwrap();
        assert!(tests.len() > 20);
        for test in tests {
            for field in ["name", "number", "score", "max_score", "status", "output"] {
                assert!(!test[field].is_null(), "{field}: {test}");
            }
        }
        assert!(json["score"].as_f64().is_some() && json["execution_time"].is_u64());
    }
    let failed: Vec<&str> = bad["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "failed")
        .filter(|t| !t["output"].as_str().unwrap().starts_with("not checked: "))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed,
        ["the score rises by the sum of the merged tiles [score]"]
    );
    // Every rule the good program's scripts reached held; the others were not checked.
    assert!(
        fine["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "passed"
                || t["output"].as_str().unwrap().starts_with("not checked: "))
    );
    assert!(fine["score"].as_f64().unwrap() > bad["score"].as_f64().unwrap());
    // JUnit: a test suite, a test case a rule, a failure for the broken one, with the
    // attributes Jenkins' schema requires.
    for (name, failures) in [("twice.xml", 1), ("good.xml", 0)] {
        let text = std::fs::read_to_string(run.path(name)).unwrap();
        let xml = roxmltree::Document::parse(&text).unwrap();
        let suite = xml
            .descendants()
            .find(|n| n.has_tag_name("testsuite"))
            .unwrap();
        for attribute in ["name", "tests", "failures", "errors"] {
            assert!(suite.attribute(attribute).is_some(), "{attribute}");
        }
        assert_eq!(suite.attribute("failures"), Some(&*failures.to_string()));
        let failed: Vec<&str> = xml
            .descendants()
            .filter(|n| n.has_tag_name("failure"))
            .map(|n| n.attribute("type").unwrap())
            .collect();
        assert_eq!(failed.len(), failures, "{text}");
        if failures == 1 {
            assert_eq!(failed, ["score"]);
        }
        assert!(
            xml.descendants()
                .filter(|n| n.has_tag_name("testcase"))
                .all(|n| n.attribute("name").is_some())
        );
    }
    // Gradescope grades one submission.
    let ran = run.run(
        &[
            "referee",
            "--run",
            &good,
            "--run",
            &twice,
            "--scripts",
            "1",
            "--timeout",
            "60",
            "--gradescope",
            "x.json",
        ],
        "",
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
}

/// JSON for every outcome, an error too.
#[test]
fn an_error_is_json_too() {
    let run = Run::new();
    let ran = run.run(&["referee", "--json", "--keys", "none.txt", "o.txt"], "");
    assert_eq!(ran.code, 2);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["error"], "none.txt: no such file");
}

/// The MIPS program's rules: power11's `--interface mips` passes its referee on 1000
/// generated scripts, and copies of its transcripts edited to break a rule are caught at the
/// board edited.
#[test]
fn the_mips_program_is_refereed_by_its_own_rules() {
    let run = Run::new();
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let mips = format!("{} --interface mips", power11.to_str().unwrap());
    let ran = run.run(
        &[
            "referee",
            "--interface",
            "mips",
            "--run",
            &mips,
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
    assert!(ran.stdout.ends_with(": 0 failed\n"), "{}", ran.stdout);
    let keys = "1\nA\nS\nD\nW\nA\nS\n3\nD\nW\n4\nA\nX\n";
    let (out, _) = transcript(&run, &format!("{mips} --seed 7"), keys);
    let (code, json) = judged(&run, keys, &out, &["--interface", "mips"]);
    assert_eq!(code, 0, "{json}");
    // A 2 of the fourth board printed as a 4: one fault, at that board.
    let mut tops = Vec::new();
    let mut offset = 0;
    let mut before = "";
    for line in out.split_inclusive('\n') {
        if line == "+---+---+---+\n" && !before.starts_with('|') {
            tops.push(offset);
        }
        before = line;
        offset += line.len();
    }
    let board = 4;
    let (at, end) = (tops[board - 1], tops[board]);
    let edited_board = out[at..end].replacen(" 2 ", " 4 ", 1);
    assert_ne!(edited_board, out[at..end]);
    let edited = format!("{}{edited_board}{}", &out[..at], &out[end..]);
    let (code, json) = judged(&run, keys, &edited, &["--interface", "mips"]);
    assert_eq!(code, 1, "{json}");
    let found = rules(&json);
    assert_eq!((found[0].2, found.len()), (board as u64, 1), "{json}");
}

/// Regression (new users, round 3): `--run 'python3 student.py --fault nospawn'`, typed in a
/// folder that also held a folder `nospawn`, ran the program with that folder's absolute path
/// for an argument (a word that named a file there was made absolute), and graded a program
/// that never adds a tile "every rule holds". Every word reaches the program as typed; its
/// files are found by the names typed (its run's folder links to them); the report and the
/// JSON show the command run.
#[test]
fn an_argument_named_like_a_folder_reaches_the_program_unchanged() {
    if python("").is_none() {
        return;
    }
    let run = Run::new();
    let game = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs/power11.py");
    std::fs::copy(game, run.path("student.py")).unwrap();
    std::fs::create_dir(run.path("one-tile-start")).unwrap();
    std::fs::write(run.path("keys"), "h\nl\nq\nq\n").unwrap();
    let command = "python3 student.py --seed 1 --fault one-tile-start";
    let ran = run.run(
        &["referee", "--run", command, "--keys", "keys", "--json"],
        "",
    );
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert_eq!(
        json["report"]["rules"][0]["rule"], "new-game-tiles",
        "{json}"
    );
    let words: Vec<&str> = json["run"]["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(words[0].ends_with("python3"), "{words:?}");
    assert_eq!(
        words[1..],
        ["student.py", "--seed", "1", "--fault", "one-tile-start"]
    );
    let ran = run.run(&["referee", "--run", command, "--keys", "keys"], "");
    assert!(ran.stdout.contains("\ncommand: "), "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains(" student.py --seed 1 --fault one-tile-start\n"),
        "{}",
        ran.stdout
    );
}

/// Regression (new users, round 3): a program that never adds a new tile scored 26 of 27 in
/// Gradescope: the win and loss rules, which no script reached, each gave their point. A rule
/// is held (checked N times), broken, or not checked: one never checked gets no point, and
/// says why; `--play` writes Gradescope's file too, from its runs.
#[test]
fn a_rule_never_checked_gets_no_point() {
    let Some(program) = python("--seed 1 --fault no-tiles") else {
        return;
    };
    let run = Run::new();
    let ran = run.run(
        &[
            "referee",
            "--run",
            &program,
            "--scripts",
            "4",
            "--seed",
            "3",
            "--timeout",
            "60",
            "--gradescope",
            "gs.json",
            "--junit",
            "j.xml",
        ],
        "",
    );
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    let grades: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.path("gs.json")).unwrap()).unwrap();
    let test = |rule: &str| {
        grades["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"].as_str().unwrap().ends_with(&format!("[{rule}]")))
            .unwrap()
            .clone()
    };
    for rule in ["win-not-announced", "win-score", "loss-not-announced"] {
        let t = test(rule);
        assert_eq!(t["score"], 0.0, "{t}");
        assert!(
            t["output"].as_str().unwrap().starts_with("not checked: "),
            "{t}"
        );
    }
    let held = test("merge");
    assert_eq!(held["score"], 1.0, "{held}");
    assert!(
        held["output"]
            .as_str()
            .unwrap()
            .starts_with("held: checked "),
        "{held}"
    );
    let xml = std::fs::read_to_string(run.path("j.xml")).unwrap();
    assert!(xml.contains("<testcase name=\"win-score\""), "{xml}");
    assert!(xml.contains("<skipped message=\"not checked: "), "{xml}");
    // A play to the win checks the win (and feeds Gradescope): its rules hold, the loss's
    // are not checked.
    let Some(correct) = python("--seed 1") else {
        return;
    };
    let ran = run.run(
        &[
            "referee",
            "--run",
            &correct,
            "--play",
            "win",
            "--seed",
            "3",
            "--gradescope",
            "play.json",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    let grades: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.path("play.json")).unwrap()).unwrap();
    let of = |rule: &str| {
        grades["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"].as_str().unwrap().ends_with(&format!("[{rule}]")))
            .unwrap()["score"]
            .clone()
    };
    assert_eq!(of("win-not-announced"), 1.0, "{grades}");
    assert_eq!(of("loss-not-announced"), 0.0, "{grades}");
}
