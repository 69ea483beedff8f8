//! Hostile users, round 5: a student's program cannot touch its grade, the grader or the next
//! student. Each attack of `tests/programs/hostile.py` (a correct Power-11 game that first
//! attacks whoever runs it) is run under `power11 referee --run`, and what must hold is
//! checked: the grade is the one the same program gets without the attack, the referee is
//! neither stopped nor traced, the grader's files and variables stay out of sight, and what a
//! run takes (memory, `/tmp`, shared memory, processes) ends with it. The attacks that need the
//! sandbox are skipped, and say so, on a machine that refuses one.

use crate::common::Run;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The longest a referee run here may take before the test calls it hung (each takes a few
/// seconds; a stopped referee never ends).
const HUNG: Duration = Duration::from_secs(180);

/// The test programs' folder.
fn programs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs")
}

/// `python3 hostile.py ATTACKS ARGS`, as `--run` takes it.
fn hostile(attacks: &str, args: &str) -> String {
    format!(
        "python3 {} {attacks} {args}",
        programs().join("hostile.py").display()
    )
}

/// `python3 power11.py ARGS`, as `--run` takes it.
fn honest(args: &str) -> String {
    format!("python3 {} {args}", programs().join("power11.py").display())
}

fn have_python() -> bool {
    let found = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: python3 is not on PATH");
    }
    found
}

/// What a referee run gave.
struct Refereed {
    code: i32,
    stdout: String,
    json: Value,
}

/// `command` (its folder `dir`) run to its end, called hung (and killed) past [`HUNG`]. It
/// runs in a process group of its own, as a shell runs a job: the attacks signal the
/// referee's group, which must not be the tests'.
fn finished(mut command: Command, dir: &Path) -> Refereed {
    use std::os::unix::process::CommandExt;
    let started = Instant::now();
    let mut child = command
        .process_group(0)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HUNG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the referee did not end: stopped, or hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().unwrap();
    let json = stdout
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str(line).ok())
        .unwrap_or(Value::Null);
    Refereed {
        code: status.code().unwrap_or(-1),
        stdout,
        json,
    }
}

/// `power11 referee ARGS` in `run`'s folder.
fn referee(run: &Run, args: &[&str]) -> Refereed {
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("power11"));
    command.arg("referee").args(args);
    finished(command, run.dir.path())
}

/// Whether this machine gives programs a sandbox (it says why not, and the test is skipped).
fn sandboxed(run: &Run) -> bool {
    std::fs::write(run.path("probe.keys"), "q\n").unwrap();
    let probe = referee(
        run,
        &["--run", &honest(""), "--keys", "probe.keys", "--json"],
    );
    let held = &probe.json["run"]["held"];
    if held["sandbox"] != Value::Bool(true) {
        eprintln!("skipped: no sandbox here: {}", held["no_sandbox"]);
        return false;
    }
    true
}

/// Every line the program wrote on standard error that the JSON of a class kept (its failing
/// scripts') or of one run.
fn said(json: &Value) -> String {
    let mut text = String::new();
    if let Some(end) = json["run"]["stderr"]["end"].as_str() {
        text.push_str(end);
    }
    for program in json["programs"].as_array().into_iter().flatten() {
        for failure in program["failures"].as_array().into_iter().flatten() {
            text.push_str(failure["run"]["stderr"]["end"].as_str().unwrap_or(""));
        }
    }
    text
}

/// Regression (hostile users, round 5): a program that broke a rule, then sent SIGTERM to its
/// parent and TERM and INT to the referee's group, got Gradescope's full marks ("0 of 0
/// scripts failed"); one that stopped its referee hung the grading; one that traced it
/// rewrote its report. Now the same program gets the grade it gets without the attacks.
#[test]
fn a_program_that_signals_stops_or_traces_its_referee_gets_the_grade_it_earned() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    let graded = |program: &str, gradescope: &str, extra: &[&str]| {
        let mut args = vec![
            "--run",
            program,
            "--scripts",
            "3",
            "--seed",
            "11",
            "--jobs",
            "1",
            "--json",
            "--gradescope",
            gradescope,
        ];
        args.extend_from_slice(extra);
        let refereed = referee(&run, &args);
        let grades: Value =
            serde_json::from_str(&std::fs::read_to_string(run.path(gradescope)).unwrap()).unwrap();
        (refereed, grades)
    };
    let (plain, honest_grades) = graded(&honest("--fault merge-twice"), "plain.json", &[]);
    assert_eq!(plain.code, 1, "{}", plain.stdout);
    let full = honest_grades["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["max_score"].as_f64().unwrap())
        .sum::<f64>();
    assert!(honest_grades["score"].as_f64().unwrap() < full);
    let sandbox = sandboxed(&run);
    let attacks = if sandbox {
        "signal-parent,stop-parent,trace-parent"
    } else {
        // Without a sandbox a stop (SIGSTOP) cannot be refused, nor a trace by root.
        "signal-parent"
    };
    let (attacked, attacked_grades) = graded(
        &hostile(attacks, "--fault merge-twice"),
        "attacked.json",
        &[],
    );
    assert_eq!(attacked.code, 1, "{}", attacked.stdout);
    assert_eq!(attacked.json["stopped_by"], Value::Null);
    assert_eq!(
        attacked_grades["score"], honest_grades["score"],
        "{attacked_grades:#}"
    );
    assert_eq!(attacked_grades["output"], honest_grades["output"]);
    let words = said(&attacked.json);
    assert!(!words.contains("traced"), "{words}");
    // Without the sandbox the same signals reach the referee, which knows them for a run's
    // and goes on; with it they never leave the program's namespace.
    let (unsandboxed, unsandboxed_grades) = graded(
        &hostile("signal-parent", "--fault merge-twice"),
        "unsandboxed.json",
        &["--no-sandbox"],
    );
    assert_eq!(unsandboxed.code, 1, "{}", unsandboxed.stdout);
    assert_eq!(unsandboxed.json["stopped_by"], Value::Null);
    assert_eq!(unsandboxed_grades["score"], honest_grades["score"]);
    assert!(
        unsandboxed.json["stops_from_programs"].as_u64().unwrap() >= 1,
        "{}",
        unsandboxed.stdout
    );
}

/// The same as another user (as a grader who is not root runs it): the program runs as the
/// referee's own user, where tracing it would otherwise be allowed, and is refused.
#[test]
fn as_another_user_the_program_cannot_trace_its_referee() {
    if !have_python() {
        return;
    }
    // SAFETY: geteuid takes nothing and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: acting as another user needs root (setpriv)");
        return;
    }
    let run = Run::new();
    std::fs::set_permissions(run.dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    // The programs where the other user may read them (a clone may be in a folder only its
    // owner enters), in a folder of the home (which is covered, but not what it holds).
    std::fs::create_dir(run.path("programs")).unwrap();
    for name in ["hostile.py", "power11.py"] {
        std::fs::copy(programs().join(name), run.path("programs").join(name)).unwrap();
    }
    for extra in [None, Some("--no-sandbox")] {
        let program = format!(
            "python3 {} trace-parent,signal-parent",
            run.path("programs/hostile.py").display()
        );
        let mut command = Command::new("setpriv");
        command
            .args(["--reuid=54321", "--regid=54321", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("power11"))
            .args([
                "referee",
                "--run",
                &program,
                "--scripts",
                "2",
                "--seed",
                "3",
            ])
            .args(["--jobs", "1", "--json", "--keep", "kept"])
            .args(extra)
            .env("HOME", run.dir.path());
        let refereed = finished(command, run.dir.path());
        assert_eq!(refereed.code, 0, "{extra:?}: {}", refereed.stdout);
        assert_eq!(refereed.json["stopped_by"], Value::Null);
        let words = said(&refereed.json);
        assert!(!words.contains("traced"), "{extra:?}: {words}");
    }
}

/// Regression (hostile users, round 5): a grading stopped halfway wrote Gradescope's and
/// JUnit's files as if it were whole. Now what was not run is said, and counts for nothing.
#[test]
fn a_grading_stopped_halfway_gives_no_grade_for_what_it_did_not_run() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    let program = honest("");
    let child = Command::new(assert_cmd::cargo::cargo_bin("power11"))
        .args([
            "referee",
            "--run",
            &program,
            "--scripts",
            "400",
            "--seed",
            "2",
        ])
        .args([
            "--jobs",
            "1",
            "--gradescope",
            "gs.json",
            "--junit",
            "class.xml",
        ])
        .current_dir(run.dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Once a run has started (the referee made its folder and started the program).
    let started = Instant::now();
    while !programs_running(child.id()) {
        assert!(started.elapsed() < HUNG, "no run started");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill sends a signal to the referee this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(128 + libc::SIGTERM));
    let grades: Value =
        serde_json::from_str(&std::fs::read_to_string(run.path("gs.json")).unwrap()).unwrap();
    assert_eq!(grades["score"].as_f64(), Some(0.0), "{grades:#}");
    let output_words = grades["output"].as_str().unwrap();
    assert!(
        output_words.starts_with("not graded: the grading was stopped after "),
        "{output_words}"
    );
    assert!(output_words.contains(" of 400 scripts"), "{output_words}");
    let xml = std::fs::read_to_string(run.path("class.xml")).unwrap();
    let document = roxmltree::Document::parse(&xml).unwrap();
    let complete = document
        .descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some("complete"))
        .expect("a test case that says the grading is not whole");
    let error = complete.first_element_child().unwrap();
    assert_eq!(error.tag_name().name(), "error");
    assert_eq!(error.attribute("type"), Some("interrupted"));
    assert!(
        document
            .descendants()
            .filter(|n| n.has_tag_name("testcase"))
            .all(|n| n.children().any(|c| c.is_element())),
        "no test case passes: {xml}"
    );
}

/// Whether any process below `referee` runs.
fn programs_running(referee: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        after.split_whitespace().nth(1) == Some(&referee.to_string())
    })
}

/// Regression (hostile users, round 5): a 3 GiB `MAP_SHARED` mapping passed the 1 GiB limit
/// (`RLIMIT_DATA` counts only private memory). Now it ends the run at the limit, whether a
/// control group or the runner's own watch holds it.
#[test]
fn shared_memory_past_the_limit_ends_the_run() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    std::fs::write(run.path("keys"), "h\nl\nq\nq\n").unwrap();
    let refereed = referee(
        &run,
        &[
            "--run",
            &hostile("shared-memory", ""),
            "--keys",
            "keys",
            "--memory",
            "256M",
            "--json",
        ],
    );
    assert_eq!(refereed.code, 3, "{}", refereed.stdout);
    assert_eq!(
        refereed.json["run"]["ended"], "memory-limit",
        "{}",
        refereed.stdout
    );
    assert!(!said(&refereed.json).contains("mapped"));
}

/// The segments the machine's `SysV` shared memory holds now, by key and size.
fn segments() -> Vec<String> {
    std::fs::read_to_string("/proc/sysvipc/shm")
        .unwrap_or_default()
        .lines()
        .skip(1)
        .map(|line| {
            line.split_whitespace()
                .take(4)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// Regression (hostile users, round 5): `SysV` shared memory segments outlived the run (2 GiB
/// left until removed by hand). In its sandbox a program's segments end with it.
#[test]
fn a_sysv_segment_ends_with_its_run() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    if !sandboxed(&run) {
        return;
    }
    let before = segments();
    std::fs::write(run.path("keys"), "h\nl\nq\nq\n").unwrap();
    let refereed = referee(
        &run,
        &["--run", &hostile("sysv", ""), "--keys", "keys", "--json"],
    );
    assert_eq!(refereed.code, 0, "{}", refereed.stdout);
    assert!(
        said(&refereed.json).contains("segment"),
        "{}",
        refereed.stdout
    );
    let left: Vec<String> = segments()
        .into_iter()
        .filter(|s| !before.contains(s) && s.ends_with(&(64u64 << 20).to_string()))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// Regression (hostile users, round 5): a program that filled /tmp made the next, correct
/// program of the class fail every script. Each run has a /tmp of its own.
#[test]
fn a_full_tmp_does_not_reach_the_next_program_of_the_class() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    if !sandboxed(&run) {
        return;
    }
    let refereed = referee(
        &run,
        &[
            "--run",
            &hostile("fill-tmp", ""),
            "--run",
            &honest(""),
            "--scripts",
            "2",
            "--seed",
            "4",
            "--jobs",
            "1",
            "--json",
        ],
    );
    let programs = refereed.json["programs"].as_array().unwrap();
    assert_eq!(programs.len(), 2, "{}", refereed.stdout);
    assert_eq!(programs[1]["failed"], 0, "{}", refereed.stdout);
    assert_eq!(programs[1]["scripts"], 2);
}

/// Regression (hostile users, round 5): a program read the grader's variables (a helper
/// reached the grader's tmux through `TMUX` and outlived the run) and could read the grader's
/// home. Its environment is the kept variables alone, the grader's home and the other
/// folders of `/home` are empty to it, a helper it leaves is ended with it, and it has no
/// network.
#[test]
fn the_graders_variables_home_and_network_stay_out_of_reach() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    if !sandboxed(&run) {
        return;
    }
    let home = run.path("grader-home");
    std::fs::create_dir(&home).unwrap();
    std::fs::write(home.join("grades.csv"), "alice,27\n").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::fs::write(run.path("keys"), "h\nq\nq\n").unwrap();
    // An odd length of sleep, to find the helper by.
    let attacks = format!(
        "environment,list-home={},read-file={},helper=61.2345,network={port}",
        home.display(),
        home.join("grades.csv").display()
    );
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("power11"));
    command
        .args([
            "referee",
            "--run",
            &hostile(&attacks, ""),
            "--keys",
            "keys",
            "--json",
        ])
        .env("HOME", &home)
        .env("TMUX", "/tmp/tmux-1000/default,4242,0")
        .env("SSH_AUTH_SOCK", "/tmp/ssh-agent.sock")
        .env("DISPLAY", ":0")
        .env("GRADER_TOKEN", "secret");
    let refereed = finished(command, run.dir.path());
    assert_eq!(refereed.code, 0, "{}", refereed.stdout);
    let words = said(&refereed.json);
    let env_line = words
        .lines()
        .find(|l| l.starts_with("hostile: env: "))
        .unwrap();
    for name in ["TMUX", "SSH_AUTH_SOCK", "DISPLAY", "GRADER_TOKEN"] {
        assert!(
            !env_line.split_whitespace().any(|w| w == name),
            "{name} reached the program: {env_line}"
        );
    }
    assert!(
        words.contains("hostile: home: \n") || words.contains("hostile: home: unreadable"),
        "{words}"
    );
    assert!(words.contains("hostile: unreadable"), "{words}");
    assert!(words.contains("hostile: no network"), "{words}");
    assert_eq!(refereed.json["run"]["leftovers"], 1, "{}", refereed.stdout);
    assert!(!helper_running("61.2345"), "the helper outlived its run");
}

/// Whether a `sleep SECONDS` runs anywhere on the machine.
fn helper_running(seconds: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|cmdline| cmdline == format!("sleep\0{seconds}\0").as_bytes())
    })
}

/// Regression (hostile users, round 5): a save left as a hard link to a file only root may
/// read put its first line in the report, and `--scripts` kept a copy readable by everyone;
/// a run folder renamed and replaced by a link was read through. Neither is read now, with
/// or without a sandbox, and kept files are the grader's alone.
#[test]
fn a_save_left_as_a_link_or_through_a_swapped_folder_is_not_read() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    let secret_dir = run.path("secret");
    std::fs::create_dir(&secret_dir).unwrap();
    let secret = secret_dir.join("power11.saved");
    std::fs::write(&secret, "TOP SECRET LINE\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    for extra in [None, Some("--no-sandbox")] {
        for attack in ["link-save", "swap-folder"] {
            let target = if attack == "link-save" {
                &secret
            } else {
                &secret_dir
            };
            let program = hostile(
                &format!("{attack}={}", target.display()),
                "--fault merge-twice",
            );
            let mut args = vec![
                "--run",
                &program,
                "--scripts",
                "2",
                "--seed",
                "5",
                "--jobs",
                "1",
                "--json",
                "--keep",
                "kept",
            ];
            args.extend(extra);
            let refereed = referee(&run, &args);
            // Without a sandbox a program run as root reads what it likes and may print it:
            // what the referee itself reads (the save it keeps) must still not be the file.
            let sandboxed = extra.is_none() && refereed.stdout.contains("\"sandbox\":true");
            assert!(
                !sandboxed || !refereed.stdout.contains("TOP SECRET"),
                "{attack} {extra:?}: {}",
                refereed.stdout
            );
            for entry in std::fs::read_dir(run.path("kept")).unwrap() {
                let path = entry.unwrap().path();
                let mode = std::fs::metadata(&path).unwrap().permissions().mode();
                if path.is_file() {
                    assert_eq!(mode & 0o077, 0, "{} is readable by others", path.display());
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let read_by_referee = path.extension().is_some_and(|e| e == "saved");
                    assert!(
                        !(sandboxed || read_by_referee) || !text.contains("TOP SECRET"),
                        "{}",
                        path.display()
                    );
                }
            }
            std::fs::remove_dir_all(run.path("kept")).unwrap();
        }
    }
    assert_eq!(
        std::fs::read_to_string(&secret).unwrap(),
        "TOP SECRET LINE\n"
    );
}

/// Regression (found by CI in a `mktemp -d` clone): a program in a folder only root may enter
/// (mode 0700, as `mktemp -d` and every temporary folder make one) could not be started when
/// the referee was root and ran it as nobody: every run "failed" with Permission denied. The
/// folders it is shown are now seen with root's files as its own (read-only), as a grader
/// who is not root shows them.
#[test]
fn a_program_in_a_folder_only_root_may_enter_is_run_all_the_same() {
    if !have_python() {
        return;
    }
    let run = Run::new();
    if !sandboxed(&run) {
        return;
    }
    let private = run.path("private");
    std::fs::create_dir(&private).unwrap();
    std::fs::copy(programs().join("power11.py"), private.join("power11.py")).unwrap();
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(run.dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let refereed = referee(
        &run,
        &[
            "--run",
            "python3 private/power11.py",
            "--scripts",
            "3",
            "--seed",
            "5",
            "--json",
        ],
    );
    let program = &refereed.json["programs"][0];
    assert_eq!(program["failed"], 0, "{}", said(&refereed.json));
    assert_eq!(program["scripts"], 3, "{}", refereed.stdout);
    assert_eq!(refereed.code, 0, "{}", refereed.stdout);
}
