//! The runner end to end, with small real programs (`tests/programs/runner/`): key by key in a
//! pseudo-terminal, crashes named with their key, limits, the whole process tree ended
//! (`setsid` helpers, fork loops, `stop_all` from another thread), standard error drained,
//! programs that never exit at the end of their input, and relative words.
//!
//! Runs of one test binary share its registry of runs, and `stop_all` ends every one of them:
//! the test that calls it takes [`GATE`] for itself, every other takes it shared.

use power11::runner::{Answering, Ending, Limits, Run, Seen, Spec, Status, stop_all};
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// Taken shared by every test that runs programs, alone by the one that stops them all.
pub(crate) static GATE: RwLock<()> = RwLock::new(());

/// A time limit no correct test program comes near: the tests assert outcomes, not times.
const GENEROUS: Duration = Duration::from_secs(120);

/// The folder of the test programs.
fn programs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/runner")
}

/// Whether `tool` is on `PATH`; if not, says the test is skipped.
pub(crate) fn have(tool: &str, test: &str) -> bool {
    let found = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        println!("{test}: skipped, no {tool} on PATH");
    }
    found
}

/// A spec for `command` (typed in the test programs' folder), run in `folder`.
fn spec(command: &str, folder: &Path) -> Spec {
    let mut spec = Spec::new(
        command.split(' ').map(str::to_string).collect(),
        programs(),
        folder,
    );
    spec.time_limit = GENEROUS;
    spec
}

/// The processes on the machine whose environment holds `marker`.
fn marked(marker: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap() {
        let Ok(pid) = entry.unwrap().file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|entry| entry == marker.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_correct_program_is_answered_key_by_key() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("python3 echo.py", folder.path())).unwrap();
    let first = run.wait_for_input();
    assert_eq!(text(&first.output), "ready\n", "{:?}", first.status);
    assert_eq!(first.status, Status::Waiting(Seen::Reading));
    for (index, key) in ["l", "r", "u", "d", "\u{1b}[A", "a\rb\u{4}c"]
        .iter()
        .enumerate()
    {
        assert_eq!(run.send(format!("{key}\n").as_bytes()), index);
        let answer = run.wait_for_input();
        let shown: String = key.chars().take(10).collect();
        assert_eq!(
            text(&answer.output),
            format!("got {} {shown}\n", key.len()),
            "key {index}"
        );
        assert_eq!(answer.status, Status::Waiting(Seen::Reading));
    }
    // A line longer than a terminal holds (4095 bytes) reaches the program whole.
    let long = "u".repeat(70 << 10);
    run.send(format!("{long}\n").as_bytes());
    assert_eq!(
        text(&run.wait_for_input().output),
        format!("got {} uuuuuuuuuu\n", 70 << 10)
    );
    run.end_input();
    let last = run.wait_for_input();
    assert_eq!(text(&last.output), "bye\n");
    let outcome = run.finish();
    assert_eq!(
        last.status,
        Status::Ended(Ending::Exited(0)),
        "held {:?}, standard error {:?}",
        outcome.held,
        outcome.stderr.to_text()
    );
    assert_eq!(outcome.ending, Ending::Exited(0));
    assert_eq!(outcome.answering, Answering::EndOfInput);
    assert_eq!(outcome.leftovers, 0);
    assert!(text(&outcome.stdout).starts_with("ready\ngot 1 l\ngot 1 r\n"));
    assert!(text(&outcome.stdout).ends_with("bye\n"));
}

#[test]
fn a_crash_names_the_key_it_was_answering_and_its_signal() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut programs_run = vec![("python3 crash.py", libc::SIGABRT)];
    let compiled = tempfile::tempdir().unwrap();
    if have("cc", "a_crash_names_the_key") {
        let built = std::process::Command::new("cc")
            .arg("-o")
            .arg(compiled.path().join("segv"))
            .arg(programs().join("segv.c"))
            .status()
            .unwrap();
        assert!(built.success());
        programs_run.push(("SEGV", libc::SIGSEGV));
    }
    for (command, signal) in programs_run {
        let spec = if command == "SEGV" {
            let mut spec = spec("./segv", folder.path());
            spec.origin = compiled.path().to_path_buf();
            spec
        } else {
            spec(command, folder.path())
        };
        let mut run = Run::start(&spec).unwrap();
        assert_eq!(text(&run.wait_for_input().output), "menu\n");
        for key in ["e", "l"] {
            run.send(format!("{key}\n").as_bytes());
            assert_eq!(
                run.wait_for_input().status,
                Status::Waiting(Seen::Reading),
                "{command}"
            );
        }
        assert_eq!(run.send(b"r\n"), 2);
        let answer = run.wait_for_input();
        assert_eq!(
            answer.status,
            Status::Ended(Ending::Signal(signal)),
            "{command}"
        );
        let outcome = run.finish();
        assert_eq!(outcome.answering, Answering::Chunk(2), "{command}");
        assert_eq!(outcome.ending, Ending::Signal(signal));
        let name = if signal == libc::SIGABRT {
            "SIGABRT"
        } else {
            "SIGSEGV"
        };
        assert!(outcome.ending.to_string().contains(name));
    }
    // Keys sent ahead, not waited for: the one it was answering is the last it read, not the
    // last sent (it reads a line at a time from its terminal; the rest stay unread there).
    let mut run = Run::start(&spec("python3 crash.py", folder.path())).unwrap();
    run.wait_for_input();
    for key in ["e", "r", "l", "u"] {
        run.send(format!("{key}\n").as_bytes());
    }
    let answer = run.wait_for_input();
    assert_eq!(answer.status, Status::Ended(Ending::Signal(libc::SIGABRT)));
    assert_eq!(text(&answer.output), "key e\n");
    assert_eq!(run.finish().answering, Answering::Chunk(1));
}

#[test]
fn three_gib_are_refused_under_the_default_limit_and_unlimited_granted() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("python3 big.py", folder.path())).unwrap();
    let answer = run.wait_for_input();
    let outcome = run.finish();
    match outcome.ending {
        Ending::Exited(0) => assert_eq!(text(&answer.output), "refused: MemoryError\n"),
        Ending::Signal(_) => {}
        other => panic!("{other:?}: {}", text(&outcome.stdout)),
    }
    // The same program without the limit is granted them (the figure is reserved, not
    // touched): the limit is what refused them.
    let mut unlimited = spec("python3 big.py", folder.path());
    unlimited.limits = Limits::NONE;
    let mut run = Run::start(&unlimited).unwrap();
    let answer = run.wait_for_input();
    assert_eq!(text(&answer.output), format!("granted {}\n", 3u64 << 30));
    assert_eq!(run.finish().ending, Ending::Exited(0));
}

#[test]
fn the_limits_are_set_before_the_program_starts() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut limited = spec("python3 limits.py", folder.path());
    limited.limits = Limits {
        memory: Some(512 << 20),
        cpu: Some(7),
        file_size: Some(3 << 20),
        processes: None,
    };
    let mut run = Run::start(&limited).unwrap();
    let answer = run.wait_for_input();
    assert_eq!(
        text(&answer.output),
        format!(
            "RLIMIT_DATA {m} {m}\nRLIMIT_CPU 7 8\nRLIMIT_FSIZE {f} {f}\nRLIMIT_CORE 0 0\n",
            m = 512 << 20,
            f = 3 << 20
        )
    );
    assert_eq!(run.finish().ending, Ending::Exited(0));

    // A program past its CPU time is ended by the kernel, and the ending says why.
    let mut spin = spec("./spin.sh", folder.path());
    spin.limits.cpu = Some(1);
    let mut run = Run::start(&spin).unwrap();
    let answer = run.wait_for_input();
    assert_eq!(answer.status, Status::Ended(Ending::Signal(libc::SIGXCPU)));
    assert_eq!(
        run.finish().ending.to_string(),
        "was ended by signal 24 (SIGXCPU: its CPU time limit)"
    );
}

#[test]
fn a_program_that_polls_its_terminal_is_answered_once_it_is_quiet() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("python3 polls.py", folder.path())).unwrap();
    let first = run.wait_for_input();
    assert_eq!(text(&first.output), "ready\n");
    assert_eq!(first.status, Status::Waiting(Seen::Settled));
    for key in ["l", "r", "u"] {
        run.send(format!("{key}\n").as_bytes());
        let answer = run.wait_for_input();
        assert_eq!(text(&answer.output), format!("got {key}\n"));
        assert_eq!(answer.status, Status::Waiting(Seen::Settled));
    }
    run.end_input();
    assert_eq!(
        run.wait_for_input().status,
        Status::Ended(Ending::Exited(0))
    );
    // Its quiet periods are not answering: 100 keys, a quiet period each (10 s of them), fit
    // a time limit of 5 s (its work takes a fraction of that, on a machine however busy).
    let mut short = spec("python3 polls.py", folder.path());
    short.time_limit = Duration::from_secs(5);
    let mut run = Run::start(&short).unwrap();
    run.wait_for_input();
    for _ in 0..100 {
        run.send(b"l\n");
        let answer = run.wait_for_input();
        assert_eq!(answer.status, Status::Waiting(Seen::Settled));
    }
}

#[test]
fn a_java_program_runs_under_the_default_memory_limit() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !(have("java", "a_java_program_runs") && have("javac", "a_java_program_runs")) {
        return;
    }
    let origin = tempfile::tempdir().unwrap();
    let built = std::process::Command::new("javac")
        .arg("-d")
        .arg(origin.path())
        .arg(programs().join("Hello.java"))
        .status()
        .unwrap();
    assert!(built.success());
    let folder = tempfile::tempdir().unwrap();
    let mut spec = spec("java -cp . Hello", folder.path());
    spec.origin = origin.path().to_path_buf();
    assert_eq!(spec.limits.memory, Some(1 << 30));
    let mut run = Run::start(&spec).unwrap();
    let first = run.wait_for_input();
    assert_eq!(text(&first.output), "hello from Java\n");
    // Its main thread is seen reading the terminal, among the virtual machine's others.
    assert_eq!(first.status, Status::Waiting(Seen::Reading));
    run.send(b"l\n");
    let answer = run.wait_for_input();
    assert_eq!(text(&answer.output), "got l\n");
    assert_eq!(answer.status, Status::Ended(Ending::Exited(0)));
    let outcome = run.finish();
    assert!(
        text(&outcome.stderr.head).contains("JAVA_TOOL_OPTIONS: -XX:MaxRAM=1073741824"),
        "{}",
        outcome.stderr.to_text()
    );
}

#[test]
fn a_setsid_helper_holding_the_output_is_ended_and_the_run_is_not_hung() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("./helper.sh", folder.path())).unwrap();
    let marker = run.marker().to_string();
    assert_eq!(text(&run.wait_for_input().output), "started a helper\n");
    assert!(marked(&marker).len() >= 2, "the helper runs beside it");
    run.send(b"q\n");
    let answer = run.wait_for_input();
    assert_eq!(text(&answer.output), "got q\n");
    assert_eq!(answer.status, Status::Ended(Ending::Exited(0)));
    let outcome = run.finish();
    assert_eq!(outcome.ending, Ending::Exited(0));
    assert_eq!(outcome.leftovers, 1, "the helper");
    assert_eq!(marked(&marker), Vec::<u32>::new());
}

#[test]
fn runs_at_once_each_end_only_their_own_processes() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folders = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let mut first = Run::start(&spec("./helper.sh", folders[0].path())).unwrap();
    let mut second = Run::start(&spec("./helper.sh", folders[1].path())).unwrap();
    let markers = [first.marker().to_string(), second.marker().to_string()];
    assert_ne!(markers[0], markers[1]);
    for run in [&mut first, &mut second] {
        assert_eq!(text(&run.wait_for_input().output), "started a helper\n");
    }
    // Both helpers are orphans, the referee's own children: the first run's end must take
    // its own and leave the second's.
    assert_eq!(marked(&markers[1]).len(), 2, "the program and its helper");
    first.send(b"q\n");
    assert_eq!(
        first.wait_for_input().status,
        Status::Ended(Ending::Exited(0))
    );
    assert_eq!(first.finish().leftovers, 1);
    assert_eq!(marked(&markers[0]), Vec::<u32>::new());
    assert_eq!(marked(&markers[1]).len(), 2, "the second run is whole");
    second.send(b"q\n");
    assert_eq!(
        second.wait_for_input().status,
        Status::Ended(Ending::Exited(0))
    );
    assert_eq!(second.finish().leftovers, 1);
    assert_eq!(marked(&markers[1]), Vec::<u32>::new());
}

#[test]
fn a_run_let_go_without_finish_ends_its_processes() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("./helper.sh", folder.path())).unwrap();
    let marker = run.marker().to_string();
    assert_eq!(text(&run.wait_for_input().output), "started a helper\n");
    assert_eq!(marked(&marker).len(), 2);
    drop(run);
    assert_eq!(marked(&marker), Vec::<u32>::new());
}

#[test]
fn two_hundred_kb_of_standard_error_are_drained_counted_and_kept_head_and_tail() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("python3 noisy.py", folder.path())).unwrap();
    let answer = run.wait_for_input();
    assert_eq!(text(&answer.output), "done\n");
    let outcome = run.finish();
    assert_eq!(outcome.ending, Ending::Exited(0));
    assert_eq!(outcome.stderr.total, 2000 * 100);
    assert!(text(&outcome.stderr.head).starts_with("debug line 00000 "));
    assert!(
        text(&outcome.stderr.tail).ends_with(&format!("debug line 01999 {}\n", "x".repeat(82)))
    );
    assert_eq!(
        outcome.stderr.head.len() + outcome.stderr.tail.len(),
        Spec::DEFAULT_STDERR_CAP
    );
    assert_eq!(
        outcome.stderr.left_out(),
        200_000 - Spec::DEFAULT_STDERR_CAP as u64
    );
}

#[test]
fn a_program_that_never_exits_at_the_end_of_its_input_is_ended_at_once() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let started = Instant::now();
    for round in 0..100 {
        let mut run = Run::start(&spec("./forever.sh", folder.path())).unwrap();
        assert_eq!(text(&run.wait_for_input().output), "ready\n");
        run.send(b"l\n");
        assert_eq!(text(&run.wait_for_input().output), "got l\n");
        run.end_input();
        let answer = run.wait_for_input();
        assert_eq!(text(&answer.output), "got \n", "round {round}");
        assert_eq!(answer.status, Status::Ended(Ending::KeptReading));
        let outcome = run.finish();
        assert_eq!(outcome.ending, Ending::KeptReading);
        assert_eq!(outcome.answering, Answering::EndOfInput);
        assert_eq!(
            outcome.ending.to_string(),
            "did not exit at the end of its input"
        );
    }
    println!(
        "100 runs of a program that never exits at the end of its input: {:.2} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn stop_all_from_another_thread_ends_a_busy_run_and_its_children() {
    let _gate = GATE
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("./busy.sh", folder.path())).unwrap();
    let marker = run.marker().to_string();
    // Until its children run beside it (the program, two sleeps, one shell).
    let mut looks = 0;
    while marked(&marker).len() < 4 {
        looks += 1;
        assert!(
            looks < 10_000,
            "its children never came: {:?}",
            marked(&marker)
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let stopper = std::thread::spawn(stop_all);
    let answer = run.wait_for_input();
    assert_eq!(answer.status, Status::Ended(Ending::Stopped));
    assert_eq!(stopper.join().unwrap(), 4);
    assert_eq!(marked(&marker), Vec::<u32>::new());
    let outcome = run.finish();
    assert_eq!(outcome.ending, Ending::Stopped);
    assert_eq!(outcome.leftovers, 3);
    assert_eq!(text(&outcome.stdout), "busy\n");
}

#[test]
fn a_fork_loop_is_stopped_before_it_is_killed_and_nothing_is_left() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut spec = spec("./forks.sh", folder.path());
    spec.time_limit = Duration::from_secs(1);
    let mut run = Run::start(&spec).unwrap();
    let marker = run.marker().to_string();
    let answer = run.wait_for_input();
    // It forks until its time is up, or until its processes limit makes `sh` give up (the
    // limit holds for every user but root, and a referee run as root runs programs as
    // nobody in their sandbox).
    assert!(
        matches!(
            answer.status,
            Status::Ended(Ending::TimeLimit(limit)) if limit == spec.time_limit
        ) || matches!(answer.status, Status::Ended(Ending::Exited(code)) if code != 0),
        "{:?}",
        answer.status
    );
    let outcome = run.finish();
    println!(
        "a fork loop at its 1 s time limit: {} processes stopped and ended, {:.2} s in all",
        outcome.leftovers, outcome.seconds
    );
    assert!(outcome.leftovers > 10, "{} left", outcome.leftovers);
    assert_eq!(marked(&marker), Vec::<u32>::new());
}

#[test]
fn each_key_sent_adds_its_time_and_one_answer_has_a_limit_of_its_own() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    // 0.4 s a key, four keys: 1.6 s, past 1 s (its start may take that already, on a busy
    // machine), well within 1 s and 10 s a key.
    let answered = |per_key: Duration| {
        let mut spec = spec("python3 slow.py 0.4", folder.path());
        spec.time_limit = Duration::from_secs(1);
        spec.per_key = per_key;
        let mut run = Run::start(&spec).unwrap();
        let opening = run.wait_for_input();
        if !matches!(opening.status, Status::Waiting(_)) {
            return (0, opening.status);
        }
        let mut done = 0;
        for key in ["a", "b", "c", "d"] {
            run.send(format!("{key}\n").as_bytes());
            let answer = run.wait_for_input();
            if !matches!(answer.status, Status::Waiting(_)) {
                return (done, answer.status);
            }
            assert_eq!(text(&answer.output), format!("done {key}\n"));
            done += 1;
        }
        (done, run.wait_for_input().status)
    };
    let limit = Status::Ended(Ending::TimeLimit(Duration::from_secs(1)));
    let (done, status) = answered(Duration::ZERO);
    assert!(done < 4);
    assert_eq!(status, limit);
    assert_eq!(answered(Duration::from_secs(10)).0, 4);
    // Time left in all, but one answer may not take it.
    let mut spec = spec("python3 slow.py 5", folder.path());
    spec.key_limit = Some(Duration::from_millis(500));
    let mut run = Run::start(&spec).unwrap();
    run.wait_for_input();
    run.send(b"a\n");
    let hung = Status::Ended(Ending::TimeLimit(Duration::from_millis(500)));
    assert_eq!(run.wait_for_input().status, hung);
    assert_eq!(run.finish().answering, Answering::Chunk(0));
}

#[test]
fn a_program_that_pauses_before_it_answers_is_waited_for() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    // Asleep 0.3 s, past the 100 ms a program that polls is given: it has not answered.
    let mut run = Run::start(&spec("python3 slow.py 0.3 sleep", folder.path())).unwrap();
    assert_eq!(text(&run.wait_for_input().output), "ready\n");
    for key in ["a", "b"] {
        run.send(format!("{key}\n").as_bytes());
        let answer = run.wait_for_input();
        assert_eq!(text(&answer.output), format!("done {key}\n"));
        // Seen in `read` as a rule; on a loaded machine perhaps by its quiet period.
        assert!(
            matches!(answer.status, Status::Waiting(_)),
            "{:?}",
            answer.status
        );
    }
}

#[test]
fn relative_words_mean_the_files_of_the_folder_the_referee_was_started_in() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let mut run = Run::start(&spec("python3 student.py", folder.path())).unwrap();
    let answer = run.wait_for_input();
    let folder = folder.path().display();
    assert_eq!(
        text(&answer.output),
        format!("cwd {folder}\nhome {folder}\nterm dumb\n")
    );
    assert_eq!(answer.status, Status::Ended(Ending::Exited(0)));
    assert_eq!(run.finish().answering, Answering::Nothing);
}

#[test]
fn a_program_that_cannot_be_started_is_named_with_its_path() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let folder = tempfile::tempdir().unwrap();
    let error = Run::start(&spec("./absent.sh", folder.path())).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{}: no such file", programs().join("absent.sh").display())
    );
    let error = Run::start(&spec("./echo.py", folder.path())).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("echo.py: a file without permission to run it"),
        "{error}"
    );
    // A script without a `#!` line runs as a shell runs it: with `sh`.
    let script = folder.path().join("no-interpreter");
    std::fs::write(&script, "echo hi from sh\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut no_line = spec("./no-interpreter", folder.path());
    no_line.origin = folder.path().to_path_buf();
    let mut run = Run::start(&no_line).unwrap();
    assert_eq!(text(&run.wait_for_input().output), "hi from sh\n");
    assert_eq!(run.finish().ending, Ending::Exited(0));
    let error = Run::start(&spec("no-such-program-here", folder.path())).unwrap_err();
    assert_eq!(
        error.to_string(),
        "no-such-program-here: no such program on PATH"
    );
}

/// power11 itself through the pseudo-terminal: each key's answer is exactly the one board it
/// printed for that key (moves, each undone, so the game never ends), and the rate is printed.
/// `POWER11_KEYS=N` sends N keys, `POWER11_BINARY=PATH` runs another build (the figure in
/// measurements/runner.md is a release build's).
#[test]
fn power11_answers_one_board_per_key() {
    let _gate = GATE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let binary = std::env::var("POWER11_BINARY")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_power11").to_string());
    let keys: usize = std::env::var("POWER11_KEYS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(400);
    let folder = tempfile::tempdir().unwrap();
    let mut spec = Spec::new(
        vec![binary, "--seed".into(), "7".into()],
        folder.path(),
        folder.path(),
    );
    spec.time_limit = GENEROUS;
    spec.env
        .push(("POWER11_DATA_DIR".into(), folder.path().join("data").into()));
    let mut run = Run::start(&spec).unwrap();
    assert!(text(&run.wait_for_input().output).starts_with("Welcome to Power-11!"));
    run.send(b"h\n");
    assert_eq!(
        text(&run.wait_for_input().output).matches("Score:").count(),
        1
    );
    let started = Instant::now();
    for (index, key) in ["l", "b", "u", "b", "r", "b", "d", "b"]
        .iter()
        .cycle()
        .take(keys)
        .enumerate()
    {
        run.send(format!("{key}\n").as_bytes());
        let answer = run.wait_for_input();
        assert_eq!(answer.status, Status::Waiting(Seen::Reading), "key {index}");
        assert_eq!(
            text(&answer.output).matches("Score:").count(),
            1,
            "key {index} ({key}): {}",
            text(&answer.output)
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{keys} keys to power11 through the pseudo-terminal in {seconds:.2} s: {:.0} keys/s, \
         {:.0} µs a round trip",
        keys as f64 / seconds,
        seconds * 1e6 / keys as f64
    );
    run.send(b"q\n");
    run.send(b"q\n");
    assert_eq!(
        run.wait_for_input().status,
        Status::Ended(Ending::Exited(0))
    );
}
