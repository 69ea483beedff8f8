//! Regressions from the third hostile-user pass: nothing another user plants (a FIFO at a
//! temporary file's or a lock's name) blocks a save or a run, one signal ends a run whatever it
//! waits on, a game's memory follows what its save can hold, and paths in messages show their
//! control characters.

use crate::common::{Ran, Run};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far longer than any run here takes on a loaded machine: a run still going then is hung
/// (and is killed, so that the test fails instead of hanging too).
const HANG: Duration = Duration::from_secs(120);

/// Makes a FIFO at `path`, as `mkfifo` does.
fn fifo(path: &Path) {
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path, which mkfifo only reads.
    assert_eq!(
        unsafe { libc::mkfifo(name.as_ptr(), 0o666) },
        0,
        "{}",
        path.display()
    );
}

/// `power11 args` in `run`'s directory with `input` on standard input, killed (and the test
/// failed) if it has not ended within [`HANG`].
#[track_caller]
fn run_within(run: &Run, args: &[&str], input: &str) -> Ran {
    let input_path = run.path(".input");
    std::fs::write(&input_path, input).unwrap();
    let (out, err) = (run.path(".stdout"), run.path(".stderr"));
    let mut child = run
        .process(args)
        .stdin(std::fs::File::open(&input_path).unwrap())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let status = wait_within(&mut child, HANG);
    let ran = Ran {
        stdout: String::from_utf8_lossy(&std::fs::read(&out).unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err).unwrap()).into_owned(),
        code: status.and_then(|s| s.code()).unwrap_or(-1),
    };
    assert!(status.is_some(), "{args:?} hung: {}", ran.stderr);
    ran
}

/// How `child` ended, or `None` (and it is killed) if it had not within `bound`.
fn wait_within(
    child: &mut std::process::Child,
    bound: Duration,
) -> Option<std::process::ExitStatus> {
    let started = Instant::now();
    while started.elapsed() < bound {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Item 1: a FIFO at the name of a temporary file an earlier save could have left froze the
/// save (the clean-up opened it and waited for a writer). It is left alone, and the game is
/// saved.
#[test]
fn a_fifo_at_a_temporary_file_s_name_does_not_stop_a_save() {
    let run = Run::new();
    let planted = run.path(".power11.saved.abcdef.tmp");
    fifo(&planted);
    let ran = run_within(&run, &["--seed", "1"], "h\nl\ns\nq\nq\n");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("Game saved to power11.saved."),
        "{}",
        ran.stdout
    );
    assert!(run.path("power11.saved").is_file());
    assert!(std::fs::symlink_metadata(&planted).is_ok(), "left alone");
}

/// Item 1, for training: a FIFO beside the weight file did the same to every checkpoint.
#[test]
fn a_fifo_at_a_temporary_file_s_name_does_not_stop_training() {
    let run = Run::new();
    fifo(&run.path(".w.p11w.abcdef.tmp"));
    fifo(&run.path(".w.p11w.coherence.abcdef.tmp"));
    let ran = run_within(
        &run,
        &[
            "train", "--games", "2", "--tuples", "2x4", "--out", "w.p11w",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("trained 2 games"), "{}", ran.stdout);
    let ran = run_within(
        &run,
        &[
            "bench",
            "--player",
            "learned",
            "--weights",
            "w.p11w",
            "--games",
            "1",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "the weights are whole: {}", ran.stderr);
}

/// Item 2: a FIFO at a lock's name hung with nothing said. Training refuses it (exit 2) and
/// says what is there; a game goes on and says why its best score is kept for the session.
#[test]
fn a_fifo_at_a_lock_s_name_is_refused_with_a_message() {
    let run = Run::new();
    fifo(&run.path(".f.p11w.lock"));
    let ran = run_within(
        &run,
        &[
            "train", "--games", "1", "--tuples", "2x4", "--out", "f.p11w",
        ],
        "",
    );
    ran.assert_refused("its lock .f.p11w.lock is a FIFO (named pipe), not a lock file: remove it");
    assert!(!run.path("f.p11w").exists());

    std::fs::create_dir_all(run.path("data")).unwrap();
    fifo(&run.path("data/.best-scores.lock"));
    let ran = run_within(&run, &["--seed", "1"], "h\nl\nq\nq\n");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let said = format!(
        "Could not save the best score: {}: cannot take its lock {}: a FIFO (named pipe), not a regular file; best scores are kept for this session only.\n",
        run.path("data/best-scores.txt").display(),
        run.path("data/.best-scores.lock").display()
    );
    assert!(ran.stdout.contains(&said), "{}", ran.stdout);
    assert!(!run.path("data/best-scores.txt").exists());
}

/// A lock another process holds and does not let go of (a session stopped with Ctrl-Z while
/// it saved) was waited for without end: a game gives up on the best score after a while.
#[test]
fn a_best_score_lock_held_elsewhere_is_not_waited_for_without_end() {
    let run = Run::new();
    std::fs::create_dir_all(run.path("data")).unwrap();
    let lock = std::fs::File::create(run.path("data/.best-scores.lock")).unwrap();
    lock.lock().unwrap();
    let ran = run_within(&run, &["--seed", "1"], "h\nl\nq\nq\n");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("another process has held it for more than 5 s; best scores are kept for this session only."),
        "{}",
        ran.stdout
    );
    drop(lock);
}

/// Item 1's second half: a run told to stop by one SIGTERM did not end while it was blocked
/// in a write (here its summary, to a pipe nobody reads). The first signal ends it once the
/// write has not ended in a few seconds, and the weight file keeps its last checkpoint.
#[cfg(target_os = "linux")]
#[test]
fn one_sigterm_ends_a_run_blocked_in_a_write() {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    let run = Run::new();
    let (reader, mut writer) = std::io::pipe().unwrap();
    // Filled to the brim, so that the program's first write to it blocks.
    let fd = writer.as_raw_fd();
    // SAFETY: fcntl on a descriptor this test owns.
    unsafe { libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK) };
    while writer.write(&[b'x'; 4096]).is_ok() {}
    // SAFETY: as above.
    unsafe { libc::fcntl(fd, libc::F_SETFL, 0) };
    let mut child = run
        .process(&[
            "train", "--games", "2", "--tuples", "2x4", "--out", "w.p11w",
        ])
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Blocked in its write, once its training is done.
    let started = Instant::now();
    let wchan = format!("/proc/{}/wchan", child.id());
    while !std::fs::read_to_string(&wchan).is_ok_and(|w| w.contains("pipe_write")) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "it ended before it wrote"
        );
        assert!(started.elapsed() < HANG, "it never wrote its summary");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: kill sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = wait_within(&mut child, HANG);
    drop(reader);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(128 + libc::SIGTERM),
        "one SIGTERM ends it: {stderr}"
    );
    assert!(
        stderr.contains(
            "still not stopped 10 s after the signal: ending now (w.p11w keeps its last checkpoint)"
        ),
        "{stderr}"
    );
    let ran = run_within(
        &run,
        &[
            "bench",
            "--player",
            "learned",
            "--weights",
            "w.p11w",
            "--games",
            "1",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "the weights are whole: {}", ran.stderr);
}

/// `solve` ends at once on SIGTERM at any point: it has nothing to keep until its table is
/// whole, and that is written atomically.
#[cfg(target_os = "linux")]
#[test]
fn sigterm_ends_a_solve_at_once() {
    use std::os::unix::process::ExitStatusExt;
    let run = Run::new();
    let mut child = run
        .process(&["solve", "--variant", "mini"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    // SAFETY: kill sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGTERM) }, 0);
    let status = wait_within(&mut child, HANG).expect("ended");
    assert_eq!(status.signal(), Some(libc::SIGTERM));
}

/// Item 3: the undo history grew without bound (4M moves held 380 MB, and `s` then peaked at
/// 1.3 GB). It keeps what a save can hold, says so once, and the save is written a state at a
/// time: 4M moves and a save fit in 500 MiB of address space.
#[cfg(target_os = "linux")]
#[test]
fn a_long_game_and_its_save_fit_in_a_bounded_memory() {
    let run = Run::new();
    let mut keys = String::from("h\n");
    keys.push_str(&"l\nr\n".repeat(2_000_000));
    keys.push_str("s\nq\nq\n");
    std::fs::write(run.path("keys"), keys).unwrap();
    // Its 1.2 GB of screens are not kept: the messages are.
    let script = "ulimit -v 512000; \"$0\" --seed 1 --spawn none < keys | grep -v -e '^#' -e '^Score' -e '^Moves' -e '^Other'";
    let output = Command::new("sh")
        .args(["-c", script])
        .arg(assert_cmd::cargo::cargo_bin("power11"))
        .current_dir(run.dir.path())
        .env("POWER11_DATA_DIR", run.path("data"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let held = power11::text::states_a_save_holds(4);
    let said = format!(
        "This game now keeps only its last {held} states, as many as a save can hold: undo no longer reaches its first moves.\n"
    );
    assert_eq!(stdout.matches(&said).count(), 1, "said once: {stdout}");
    assert!(
        stdout.contains("\nGame saved to power11.saved.\n"),
        "{stdout}"
    );
    let saved = std::fs::metadata(run.path("power11.saved")).unwrap().len();
    assert!(saved <= power11::text::MAX_SAVE_BYTES, "{saved}");
    // All it kept (its oldest states are let go a 64th of the limit at a time).
    assert!(
        saved > power11::text::MAX_SAVE_BYTES / 64 * 62,
        "the history kept: {saved}"
    );
}

/// Item 5: a path's control characters reached the terminal raw in a best-score message (an
/// escape sequence turned the line red, a line break split it). Every message shows them in
/// caret notation.
#[test]
fn control_characters_in_the_data_directory_are_shown_not_sent() {
    let run = Run::new();
    let data = run.path("data\u{1b}[31m\nred");
    // A directory at the lock's name: the best score cannot be saved, and the game says so.
    std::fs::create_dir_all(data.join(".best-scores.lock")).unwrap();
    let output = assert_cmd::Command::cargo_bin("power11")
        .unwrap()
        .args(["--seed", "1"])
        .current_dir(run.dir.path())
        .env("POWER11_DATA_DIR", &data)
        .write_stdin("h\nl\nq\nq\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.starts_with("Could not save the best score"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(!stdout.contains('\u{1b}'), "{stdout}");
    assert!(
        line.contains("data^[[31m^Jred/best-scores.txt: cannot take its lock "),
        "{line}"
    );
    assert!(
        line.ends_with("best scores are kept for this session only."),
        "{line}"
    );
}

/// Item 5: `--jobs` past the cores made a thousand threads spin for 200 games of a few
/// milliseconds. A run starts no more threads than it has games (here in 400 MB of address
/// space, which a thousand threads' stacks alone would pass).
#[cfg(target_os = "linux")]
#[test]
fn more_jobs_than_games_start_no_idle_threads() {
    let run = Run::new();
    let ran = run.run_with_memory_limit(
        400_000,
        &[
            "bench", "--player", "random", "--games", "20", "--jobs", "1000", "--seed", "1",
        ],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("games: 20 "), "{}", ran.stdout);
}

/// Item 5: `bench merge` summed a report of 1e308 seconds and printed a 309-digit time.
#[test]
fn bench_merge_refuses_an_absurd_time() {
    let run = Run::new();
    let ran = run.run(
        &[
            "bench", "--player", "random", "--games", "3", "--seed", "1", "--json",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let mut report: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    report["seconds"] = serde_json::json!(1e308);
    std::fs::write(run.path("r.json"), report.to_string()).unwrap();
    let ran = run.run(&["bench", "merge", "r.json"], "");
    ran.assert_refused(
        "r.json: a damaged report: a time of 1e308 s, longer than any run takes (at most 1e9 s, 31 years)",
    );
}

/// Item 5: two runs through two hard links to one weight file each took a lock of its own;
/// a checkpoint replaces the name, so the other name keeps the old network. A weight file with
/// other names is refused, and why is said.
#[cfg(unix)]
#[test]
fn a_weight_file_with_other_names_is_not_trained() {
    let run = Run::new();
    let train = [
        "train", "--games", "1", "--tuples", "2x4", "--out", "w.p11w",
    ];
    assert_eq!(run.run(&train, "").code, 0);
    std::fs::hard_link(run.path("w.p11w"), run.path("other.p11w")).unwrap();
    let before = std::fs::read(run.path("w.p11w")).unwrap();
    let ran = run.run(
        &["train", "--games", "1", "--out", "w.p11w", "--resume"],
        "",
    );
    ran.assert_refused(
        "w.p11w has 1 other name (hard links): a checkpoint replaces w.p11w with a new file, which the other name would not see, and a run through one of them would not know of this one; train a copy (cp) instead",
    );
    assert_eq!(std::fs::read(run.path("w.p11w")).unwrap(), before);
}

/// A bench run stopped with Ctrl-C waited for its games in flight, minutes each in classic
/// games of the search. They are given up between two moves, and the run ends at once with the
/// games played before them (here none).
#[cfg(target_os = "linux")]
#[test]
fn a_stopped_bench_gives_up_its_games_in_flight() {
    let run = Run::new();
    let mut child = run
        .process(&[
            "bench",
            "--player",
            "expectimax",
            "--variant",
            "classic",
            "--games",
            "2",
            "--jobs",
            "2",
            "--seed",
            "1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(2));
    // SAFETY: kill sends a signal to the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = wait_within(&mut child, HANG);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.and_then(|s| s.code()), Some(130), "{stderr}");
    assert_eq!(
        stderr,
        "power11: stopped before a game ended: nothing to report\n"
    );
}
