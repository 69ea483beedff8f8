//! The referee playing programs live (`referee --run PROGRAM --play GOAL`) and running them key
//! by key, end to end: a correct program played to its win and its loss with no finding, the
//! faults only the win or the loss shows caught, explore's resume in a fresh run and undo back
//! to the start, a crash named with its key, programs held (memory, the referee's own signals,
//! standard error) and keys as power11 reads them.

use crate::common::{Run, python};

/// `referee --run program --play goal --json` and more, in `run`'s folder: its exit code and
/// JSON.
fn play(run: &Run, program: &str, goal: &str, more: &[&str]) -> (i32, serde_json::Value) {
    let mut args = vec!["referee", "--run", program, "--play", goal, "--json"];
    args.extend(more);
    let ran = run.run(&args, "");
    let json = serde_json::from_str(&ran.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} {}", ran.stdout, ran.stderr));
    (ran.code, json)
}

/// The names of the rules a play's runs broke.
fn rules_broken(json: &serde_json::Value) -> Vec<String> {
    json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["report"]["rules"].as_array().unwrap().clone())
        .map(|rule| rule["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_correct_program_is_played_to_its_win_and_its_loss_with_no_finding() {
    let Some(program) = python("--seed 1") else {
        return;
    };
    let run = Run::new();
    for (goal, size, reached) in [
        ("win", "4", "win"),
        ("lose", "5", "loss"),
        ("lose", "4", "loss"),
    ] {
        let (code, json) = play(&run, &program, goal, &["--size", size, "--seed", "3"]);
        assert_eq!(code, 0, "{goal} {size}: {json}");
        assert_eq!(json["play"]["goal"], goal);
        assert_eq!(json["play"]["reached"], reached, "{json}");
        assert_eq!(rules_broken(&json), Vec::<String>::new());
        // The key after the end of the game went back to the menu and `q` quit: it exited 0.
        assert_eq!(json["run"]["ended"], "exited", "{json}");
        assert_eq!(json["run"]["code"], 0);
        assert!(json["play"]["keys"].as_u64().unwrap() > 20);
    }
}

#[test]
fn the_win_and_the_loss_show_the_faults_random_keys_never_reach() {
    let Some(win_score) = python("--seed 1 --fault win-score") else {
        return;
    };
    let run = Run::new();
    let (code, json) = play(&run, &win_score, "win", &["--seed", "3"]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(rules_broken(&json), ["win-score"]);
    // The play went on past the fault to its end, its keys and transcript kept for replay.
    let kept = json["runs"][0]["keys"].as_str().unwrap();
    assert!(run.dir.path().join(kept).is_file(), "{kept}");
    let keys = std::fs::read_to_string(run.dir.path().join(kept)).unwrap();
    let transcript = run.dir.path().join(kept.replace(".keys", ".out"));
    let replayed = run.run(
        &[
            "referee",
            "--keys",
            kept,
            transcript.to_str().unwrap(),
            "--json",
        ],
        "",
    );
    assert_eq!(replayed.code, 1, "{}", replayed.stdout);
    assert!(replayed.stdout.contains("\"win-score\""));
    assert!(keys.lines().count() > 100);

    let early_loss = python("--seed 1 --fault early-loss").unwrap();
    let (code, json) = play(&run, &early_loss, "lose", &["--seed", "3"]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(rules_broken(&json), ["loss-too-early"]);
}

#[test]
fn power11_wins_loses_and_explore_resumes_in_a_fresh_run_and_undoes_to_the_start() {
    let run = Run::new();
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let program = format!("'{}'", power11.display());
    for seed in ["1", "2"] {
        let (code, json) = play(&run, &program, "explore", &["--seed", seed]);
        assert_eq!(code, 0, "{json}");
        let runs = json["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2, "{json}");
        // The first run quit with a save; the second was given it and resumed it.
        assert_eq!(runs[0]["run"]["saved"], true);
        assert_eq!(rules_broken(&json), Vec::<String>::new());
        assert!(json["play"]["reached"].is_string(), "{json}");
    }
    // power11 reaches its own win and loss, with no finding.
    for (goal, size, reached) in [("win", "4", "win"), ("lose", "5", "loss")] {
        let (code, json) = play(&run, &program, goal, &["--size", size, "--seed", "1"]);
        assert_eq!(code, 0, "{json}");
        assert_eq!(json["play"]["reached"], reached, "{json}");
    }
    // The same play through the library, to read the second run's transcript: `r`, then
    // undo until power11 says it is at the start.
    let _gate = crate::runner::GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let setup = power11::live::Setup {
        words: vec![power11.display().to_string()],
        origin: run.dir.path().to_path_buf(),
        limits: power11::runner::Limits::default(),
        time_limit: std::time::Duration::from_secs(120),
        per_key: std::time::Duration::ZERO,
        key_limit: None,
        options: power11::referee::Options::default(),
        sandbox: true,
        covered: Vec::new(),
    };
    let mut random = power11::players::AnyPlayer::Random(power11::players::RandomPlayer);
    let played = power11::live::play::play(
        &setup,
        power11::live::play::Plan {
            goal: power11::live::play::Goal::Explore,
            size: 4,
            player: &mut random,
            seed: 1,
            max_keys: 50_000,
            max_games: 3,
        },
    )
    .unwrap();
    assert_eq!(played.runs.len(), 2);
    let second = &played.runs[1];
    assert!(second.keys.starts_with("r\nb\n"), "{}", second.keys);
    let transcript = String::from_utf8_lossy(&second.transcript);
    assert!(
        transcript.contains("Nothing to undo: this is the start of the game."),
        "{transcript}"
    );
    assert!(second.report.passed(), "{:?}", second.report.rules);
}

#[test]
fn a_crash_names_the_key_it_answered() {
    let Some(program) = python("--seed 1 --fault crash-on-resume") else {
        return;
    };
    let run = Run::new();
    std::fs::write(run.path("keys.txt"), "h\nl\ns\nq\nr\nq\nq\n").unwrap();
    let ran = run.run(
        &["referee", "--run", &program, "--keys", "keys.txt", "--json"],
        "",
    );
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(ran.code, 3, "the crash alone: {json}");
    assert_eq!(json["report"]["rules"], serde_json::json!([]), "{json}");
    assert_eq!(json["run"]["ended"], "signal", "{json}");
    assert_eq!(json["run"]["signal"], "SIGABRT");
    assert_eq!(
        json["run"]["key"],
        serde_json::json!({ "key": "r", "index": 5, "line": 5 })
    );
    let ran = run.run(&["referee", "--run", &program, "--keys", "keys.txt"], "");
    assert!(
        ran.stdout
            .contains("signal 6 (SIGABRT), answering key 5 'r' (line 5)"),
        "{}",
        ran.stdout
    );
}

#[test]
fn programs_are_held_and_a_correct_one_passes_whatever_it_does_beside() {
    let Some(flood) = python("--seed 1 --fault stderr-flood") else {
        return;
    };
    let run = Run::new();
    // 200 KB of standard error: drained, counted, never closed on it.
    let (code, json) = play(&run, &flood, "explore", &["--seed", "4"]);
    assert_eq!(code, 0, "{json}");
    let stderr: u64 = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run"]["stderr"]["bytes"].as_u64().unwrap())
        .sum();
    assert!(stderr > 64 << 10, "{json}");
    // 3 GiB asked for under the default 1 GiB: refused, in the program's own words.
    let hog = python("--seed 1 --fault hog-memory").unwrap();
    let (code, json) = play(&run, &hog, "lose", &["--seed", "4"]);
    assert_eq!(code, 0, "{json}");
    let said = json["run"]["stderr"]["end"].as_str().unwrap();
    assert!(said.contains("could not allocate 3 GiB"), "{json}");
    // A program that does not exit at the end of its input is ended at once, no fault.
    let never = python("--seed 1 --fault never-exit").unwrap();
    std::fs::write(run.path("keys.txt"), "h\nl\nu\n").unwrap();
    let ran = run.run(
        &["referee", "--run", &never, "--keys", "keys.txt", "--json"],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["run"]["ended"], "kept-reading");
    // Answered when its answer is printed, not when a reader thread is back in `read` while
    // the main thread sleeps between looks for what it handed over and then works on it;
    // nor while its output goes through a child it started a moment before.
    for odd in ["reader-thread", "output-child"] {
        let program = python(&format!("--seed 1 --fault {odd}")).unwrap();
        let (code, json) = play(&run, &program, "lose", &["--seed", "4"]);
        assert_eq!(code, 0, "{odd}: {json}");
        let ran = run.run(
            &[
                "referee",
                "--run",
                &program,
                "--scripts",
                "3",
                "--seed",
                "3",
                "--json",
            ],
            "",
        );
        assert_eq!(ran.code, 0, "{odd}: {}", ran.stdout);
    }
}

#[cfg(target_os = "linux")]
#[test]
fn the_referee_stopped_ends_every_program_and_reports_what_it_has() {
    let Some(program) = python("--seed 1") else {
        return;
    };
    if !crate::runner::have("setsid", "the_referee_stopped") {
        return;
    }
    let run = Run::new();
    // A helper in a session of its own, named so that this test finds only its own.
    let command = format!("sh -c 'setsid sleep 6172 & exec {program}'");
    let child = run
        .process(&[
            "referee",
            "--run",
            &command,
            "--scripts",
            "400",
            "--seed",
            "1",
            "--jobs",
            "2",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once a helper runs, the runs are under way.
    let helpers = || {
        std::fs::read_dir("/proc").map_or(0, |entries| {
            entries
                .flatten()
                .filter(|e| {
                    std::fs::read(e.path().join("cmdline"))
                        .is_ok_and(|line| line == b"sleep\x006172\x00")
                })
                .count()
        })
    };
    let mut seen = false;
    for _ in 0..1000 {
        seen = helpers() > 0;
        if seen {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(seen, "no helper started");
    // SAFETY: kill signals the referee this test started.
    unsafe {
        libc::kill(i32::try_from(child.id()).unwrap(), libc::SIGTERM);
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(143));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("stopped by SIGTERM"), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("run with"));
    assert_eq!(helpers(), 0, "a helper was left running");
}

#[test]
fn power11_passes_its_referee_with_a_line_of_70_kib_and_arrow_escapes() {
    let run = Run::new();
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let line = format!("h{}\u{1b}[A\u{1b}[C l u\n", " ".repeat(70 << 10));
    std::fs::write(run.path("keys.txt"), format!("{line}\u{1b}[Bs\nq\nq\n")).unwrap();
    let program = format!("'{}' --seed 3", power11.display());
    let ran = run.run(
        &["referee", "--run", &program, "--keys", "keys.txt", "--json"],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["report"]["keys"], 9, "{json}");
    assert_eq!(json["run"]["saved"], true);
}

#[test]
fn a_run_has_10_s_and_50_ms_a_line_sent_unless_timeout_says_otherwise() {
    let run = Run::new();
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let program = format!("'{}' --seed 3", power11.display());
    std::fs::write(run.path("keys.txt"), "h\nl\nu\nq\nq\n").unwrap();
    let limit = |more: &[&str]| {
        let mut args = vec!["referee", "--run", &program, "--keys", "keys.txt", "--json"];
        args.extend_from_slice(more);
        let ran = run.run(&args, "");
        assert_eq!(ran.code, 0, "{}", ran.stdout);
        let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
        let answering = json["run"]["answering_seconds"].as_f64().unwrap();
        assert!(answering > 0.0 && answering <= json["run"]["seconds"].as_f64().unwrap());
        json["run"]["time_limit"].as_f64().unwrap()
    };
    assert!((limit(&[]) - 10.25).abs() < 1e-9);
    assert!((limit(&["--timeout", "5"]) - 5.0).abs() < 1e-9);
}

#[test]
fn referees_at_once_never_take_an_answer_before_the_program_has_read_its_keys() {
    // A program taken off its CPU inside a `read` looks blocked in it: on a busy machine the
    // answer to a long line was taken before the program had read the line (1 run in 10).
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let program = format!("'{}' --seed 3", power11.display());
    let line = format!("h{}\u{1b}[A\u{1b}[C l u\n", " ".repeat(70 << 10));
    let keys = format!("{line}\u{1b}[Bs\nq\nq\n");
    let workers: Vec<_> = (0..6)
        .map(|_| {
            let (program, keys) = (program.clone(), keys.clone());
            std::thread::spawn(move || {
                let run = Run::new();
                std::fs::write(run.path("keys.txt"), keys).unwrap();
                let args = ["referee", "--run", &program, "--keys", "keys.txt", "--json"];
                (0..10)
                    .map(|_| run.run(&args, ""))
                    .find(|ran| ran.code != 0)
                    .map(|ran| ran.stdout)
            })
        })
        .collect();
    for worker in workers {
        let failed = worker.join().unwrap();
        assert!(failed.is_none(), "{}", failed.unwrap_or_default());
    }
}

#[test]
fn a_run_that_leaves_no_save_after_s_breaks_save_state() {
    let Some(program) = python("--seed 1") else {
        return;
    };
    let run = Run::new();
    std::fs::write(run.path("keys.txt"), "h\nl\ns\nq\nq\n").unwrap();
    let keeps = run.run(
        &["referee", "--run", &program, "--keys", "keys.txt", "--json"],
        "",
    );
    assert_eq!(keeps.code, 0, "{}", keeps.stdout);
    // The same program, its save taken away after it ends.
    let loses = format!("sh -c '{program}; rm -f power11.saved'");
    let ran = run.run(
        &["referee", "--run", &loses, "--keys", "keys.txt", "--json"],
        "",
    );
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["report"]["rules"][0]["rule"], "save-state", "{json}");
}

#[test]
fn the_mips_program_is_played_to_its_win_and_its_loss() {
    let run = Run::new();
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let program = format!("'{}' --interface mips --seed 5", power11.display());
    for (goal, reached) in [("win", "win"), ("lose", "loss"), ("explore", "loss")] {
        let (code, json) = play(
            &run,
            &program,
            goal,
            &["--interface", "mips", "--seed", "2"],
        );
        assert_eq!(code, 0, "{goal}: {json}");
        assert_eq!(json["play"]["size"], 3);
        assert_eq!(json["play"]["reached"], reached, "{goal}: {json}");
        assert_eq!(rules_broken(&json), Vec::<String>::new());
    }
}

#[test]
fn a_program_that_ends_before_the_play_does_is_a_board_missing() {
    let run = Run::new();
    // `true` prints nothing and exits: the play's first key has no board.
    let (code, json) = play(&run, "true", "win", &["--seed", "1"]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(rules_broken(&json), ["missing-board"]);
    assert_eq!(json["play"]["reached"], serde_json::Value::Null);
    let ran = run.run(&["referee", "--run", "true", "--play", "lose"], "");
    assert!(
        ran.stdout.contains(
            "warning: the play did not reach its goal (lose): what comes after it is not checked\n"
        ),
        "{}",
        ran.stdout
    );
}

#[test]
fn a_run_ended_at_its_time_limit_is_refereed_up_to_that_key_only() {
    let Some(program) = python("--seed 1 --fault spin-on-save") else {
        return;
    };
    let run = Run::new();
    std::fs::write(run.path("keys.txt"), "h\nl\nu\ns\nq\nq\n").unwrap();
    let ran = run.run(
        &[
            "referee",
            "--run",
            &program,
            "--keys",
            "keys.txt",
            "--timeout",
            "2",
            "--json",
        ],
        "",
    );
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    // Its time ran out: a run problem, not the boards and the save it had no time for.
    assert_eq!(ran.code, 3, "{json}");
    assert_eq!(json["run"]["ended"], "timed-out");
    assert_eq!(json["report"]["rules"], serde_json::json!([]), "{json}");
    assert_eq!(json["run"]["key"]["index"], 4, "{json}");
    assert_eq!(json["run"]["key"]["key"], "s");
}

#[cfg(unix)]
#[test]
fn a_save_left_as_a_link_is_never_followed() {
    let Some(program) = python("--seed 1") else {
        return;
    };
    let run = Run::new();
    let secret = run.path("secret.txt");
    std::fs::write(&secret, "Score: 4\nPRIVATE KEY of the grader\n").unwrap();
    // The program plays, then leaves its save as a link to a file of the grader's.
    let linking = format!(
        "sh -c '{program}; rm -f power11.saved; ln -s \"{}\" power11.saved'",
        secret.display()
    );
    std::fs::write(run.path("keys.txt"), "h\nl\ns\nq\nq\n").unwrap();
    let ran = run.run(
        &["referee", "--run", &linking, "--keys", "keys.txt", "--json"],
        "",
    );
    assert!(!ran.stdout.contains("PRIVATE"), "{}", ran.stdout);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_eq!(json["run"]["saved"], false, "{json}");
    assert_eq!(json["report"]["rules"][0]["rule"], "save-state", "{json}");
}

#[test]
fn a_crash_is_one_fault_not_one_a_key_after_it() {
    let Some(program) = python("--seed 1 --fault crash-on-resume") else {
        return;
    };
    let run = Run::new();
    let ran = run.run(
        &[
            "referee",
            "--run",
            &program,
            "--scripts",
            "30",
            "--seed",
            "1",
            "--timeout",
            "60",
            "--json",
        ],
        "",
    );
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let failures = json["programs"][0]["failures"].as_array().unwrap();
    assert!(failures.len() > 5, "{json}");
    for failure in failures {
        // The crash alone, at the key it answered: no board it had no time to print is
        // missed, at that key or the next.
        assert_eq!(
            failure["report"]["rules"],
            serde_json::json!([]),
            "{failure}"
        );
        assert_eq!(failure["run"]["signal"], "SIGABRT");
        assert_eq!(failure["run"]["key"]["key"], "r");
    }
}

#[test]
fn arguments_refused_are_said_in_json_too_and_grades_need_scripts() {
    let run = Run::new();
    std::fs::write(run.path("keys.txt"), "h\nq\nq\n").unwrap();
    for args in [
        &[
            "referee", "--json", "--run", "true", "--play", "win", "--size", "6",
        ][..],
        &["referee", "--json", "--run", "true", "--play", "draw"][..],
        &[
            "referee",
            "--json",
            "--run",
            "true",
            "--scripts",
            "2",
            "--size",
            "5",
        ][..],
        &[
            "referee", "--json", "--run", "true", "--keys", "keys.txt", "--junit", "j.xml",
        ][..],
    ] {
        let ran = run.run(args, "");
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        let json: serde_json::Value = serde_json::from_str(&ran.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", ran.stdout));
        assert!(
            json["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{json}"
        );
    }
    assert!(!run.path("j.xml").exists());
}

#[test]
fn memory_sets_the_limit_each_process_runs_under() {
    if python("").is_none() {
        return;
    }
    let run = Run::new();
    std::fs::write(run.path("keys.txt"), "h\n").unwrap();
    let program =
        "python3 -c \"import sys; b = bytearray(200 << 20); sys.stderr.write('granted')\"";
    let said = |more: &[&str]| {
        let mut args = vec!["referee", "--run", program, "--keys", "keys.txt", "--json"];
        args.extend(more);
        let ran = run.run(&args, "");
        let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
        json["run"]["stderr"]["end"].as_str().unwrap().to_string()
    };
    assert!(said(&[]).contains("granted"));
    assert!(said(&["--memory", "none"]).contains("granted"));
    assert!(said(&["--memory", "64M"]).contains("MemoryError"));
    for refused in ["1", "15M", "2T", "lots"] {
        let ran = run.run(
            &[
                "referee", "--run", program, "--keys", "keys.txt", "--memory", refused,
            ],
            "",
        );
        assert_eq!(ran.code, 2, "{refused}");
        assert!(
            ran.stderr.contains("is not an amount of memory"),
            "{}",
            ran.stderr
        );
    }
}
