//! Regressions from the fourth hostile-user pass, as another user on the same machine would
//! try them: a link raced at a lock, links planted on the way of a path, a keep folder made or
//! filled by someone else, and names that hold escape sequences. Tests that need a second user
//! take one with `setpriv` when they run as root (as CI does), and say they were skipped
//! otherwise.

use crate::common::{Ran, Run};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The other user's ids: a uid with no passwd entry, so no home and no files of its own.
const OTHER: &str = "54321";

/// Whether the tests run as root, which can act as another user; if not, says the test is
/// skipped.
fn as_root(test: &str) -> bool {
    // SAFETY: geteuid takes nothing and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("{test}: skipped: acting as another user needs root (setpriv)");
    }
    root
}

/// A process that is killed when dropped: a failing test leaves nothing running.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sh -c script` as the other user.
fn as_other(script: &str) -> Command {
    let mut command = Command::new("setpriv");
    command
        .args([
            &format!("--reuid={OTHER}"),
            &format!("--regid={OTHER}"),
            "--clear-groups",
            "sh",
            "-c",
            script,
        ])
        .stdin(Stdio::null());
    command
}

/// A folder in `run` that every user may write and only owners may remove from (sticky and
/// world-writable, as /tmp or a class's shared folder), in a run folder others may enter.
fn shared_folder(run: &Run) -> std::path::PathBuf {
    std::fs::set_permissions(run.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let shared = run.path("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    shared
}

/// The shell word for `path`.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.to_str().unwrap())
}

/// Item 1: `train`'s lock was looked at (`lstat`) and then opened `O_CREAT` without
/// `O_NOFOLLOW`: another user flipping a link at `.w.p11w.lock` got root to create a file
/// wherever they chose. For more than 20 s a link flips there while `train` runs again and
/// again: each run trains or refuses the link, and nothing is ever made where it points.
#[test]
fn a_link_raced_at_a_lock_is_never_followed() {
    if !as_root("a_link_raced_at_a_lock_is_never_followed") {
        return;
    }
    let run = Run::new();
    let shared = shared_folder(&run);
    let victim = run.path("victim");
    std::fs::create_dir(&victim).unwrap();
    let target = victim.join("created-by-root");
    let lock = shared.join(".w.p11w.lock");
    // As fast as the system flips a name: a shell loop of `ln` and `rm` flips too slowly to
    // meet a window of microseconds.
    let flipper = as_other(&format!(
        "exec python3 -c 'import os, sys\nwhile True:\n  try: os.symlink(sys.argv[1], sys.argv[2])\n  except OSError: pass\n  try: os.unlink(sys.argv[2])\n  except OSError: pass' {} {}",
        quoted(&target),
        quoted(&lock)
    ))
    .spawn()
    .map(Killed)
    .unwrap();
    let started = Instant::now();
    let (mut trained, mut refused) = (0, 0);
    while started.elapsed() < Duration::from_secs(21) {
        let ran = run.run(
            &[
                "train",
                "--out",
                shared.join("w.p11w").to_str().unwrap(),
                "--games",
                "1",
                "--tuples",
                "2x4",
                "--threads",
                "1",
                "--no-coherence",
                "--seed",
                "1",
            ],
            "",
        );
        // Refused: the link seen (`a symbolic link, not a lock file`), or met by the open itself
        // (which the kernel refuses, `permission denied`, once the link is gone again).
        match ran.code {
            0 => trained += 1,
            2 if ran.stderr.contains("cannot use --out") && ran.stderr.contains("its lock") => {
                refused += 1;
            }
            _ => panic!("train: {} {}", ran.code, ran.stderr),
        }
        assert!(!target.exists(), "a file was made through the link");
        // The next run starts a new network, and the lock's name is free to race again.
        let _ = std::fs::remove_file(shared.join("w.p11w"));
        let _ = std::fs::remove_file(&lock);
    }
    drop(flipper);
    assert!(!target.exists());
    eprintln!("{trained} runs trained, {refused} refused the planted link");
    assert!(trained + refused > 20, "{trained} + {refused} runs");
}

/// Item 1's other half: a link another user planted on the way of a path (not only at its last
/// name) in a shared folder is refused, for root too, with its name: the best scores of a data
/// directory and a training run's `--out` are not written where it points.
#[test]
fn a_link_planted_on_the_way_of_a_path_is_refused_with_its_name() {
    if !as_root("a_link_planted_on_the_way_of_a_path_is_refused_with_its_name") {
        return;
    }
    let run = Run::new();
    let shared = shared_folder(&run);
    let victim = run.path("victim");
    std::fs::create_dir(&victim).unwrap();
    let link = shared.join("data");
    let made = as_other(&format!("ln -s {} {}", quoted(&victim), quoted(&link)))
        .status()
        .unwrap();
    assert!(made.success());
    // A game by hand records its best score in POWER11_DATA_DIR=shared/data/sub.
    let output = run
        .process(&["--seed", "1"])
        .env("POWER11_DATA_DIR", link.join("sub"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"h\nl\nd\nl\nq\nq\n")?;
            child.wait_with_output()
        })
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let said = format!(
        "{} is a link that another user (uid {OTHER}) put in a shared directory",
        link.display()
    );
    assert!(
        stdout.contains(&said) || stderr.contains(&said),
        "{stdout}{stderr}"
    );
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0);
    // `train --out shared/data/w.p11w`: refused before it starts.
    let ran = run.run(
        &[
            "train",
            "--out",
            link.join("w.p11w").to_str().unwrap(),
            "--games",
            "1",
            "--tuples",
            "2x4",
        ],
        "",
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains(&said), "{}", ran.stderr);
    assert_eq!(std::fs::read_dir(&victim).unwrap().count(), 0);
}

/// A program that fails every script the referee gives it: it prints no board.
fn failing_program(run: &Run) -> String {
    let path = run.path("fails");
    std::fs::write(&path, "#!/bin/sh\nexec cat >/dev/null\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.to_str().unwrap().to_string()
}

/// `power11 referee --run PROGRAM --scripts N --seed 1` and `extra`, in `run`'s folder.
fn referee_scripts(run: &Run, program: &str, scripts: &str, extra: &[&str]) -> Ran {
    let mut args = vec![
        "referee",
        "--run",
        program,
        "--scripts",
        scripts,
        "--timeout",
        "60",
        "--seed",
        "1",
    ];
    args.extend(extra);
    run.run(&args, "")
}

/// Item 2: `referee --scripts` wrote its failing scripts through links planted in its keep
/// folder (emptying the file they named) and into a folder another user made at the default
/// name. Kept files replace a link at their name, never what it names; the default folder is
/// not used when it is a link, or another user's.
#[test]
fn kept_scripts_never_go_through_a_planted_link() {
    let run = Run::new();
    let program = failing_program(&run);
    let mine = run.path("my-notes.txt");
    std::fs::write(&mine, "my notes\n").unwrap();
    let keep = run.path("kept");
    std::fs::create_dir(&keep).unwrap();
    for name in ["script-0000.keys", "script-0001.out"] {
        std::os::unix::fs::symlink(&mine, keep.join(name)).unwrap();
    }
    let ran = referee_scripts(&run, &program, "2", &["--keep", keep.to_str().unwrap()]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "my notes\n");
    // The run kept its scripts in a folder of its own, made by it (no name in it can have
    // been planted), and left the links where they were.
    let own = run_folder(&keep);
    for name in ["script-0000.keys", "script-0001.out"] {
        let meta = std::fs::symlink_metadata(own.join(name)).unwrap();
        assert!(meta.is_file(), "{name} is a file of its own");
        assert!(
            std::fs::symlink_metadata(keep.join(name))
                .unwrap()
                .is_symlink()
        );
    }
    // The default name planted as a link to one of the user's folders: not used.
    let elsewhere = run.path("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, run.path("referee-failures")).unwrap();
    let ran = referee_scripts(&run, &program, "2", &[]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("the keep folder referee-failures: a symbolic link; power11 keeps scripts only in a folder it made: remove it, or name a folder with --keep\n"),
        "{}",
        ran.stderr
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    std::fs::remove_file(run.path("referee-failures")).unwrap();
    if !as_root("kept_scripts_never_go_through_a_planted_link (another user's folder)") {
        return;
    }
    // Another user made the default folder first.
    std::fs::set_permissions(run.dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let made = as_other(&format!("mkdir {}", quoted(&run.path("referee-failures"))))
        .status()
        .unwrap();
    assert!(made.success());
    let ran = referee_scripts(&run, &program, "2", &[]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("another user's folder"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        std::fs::read_dir(run.path("referee-failures"))
            .unwrap()
            .count(),
        0
    );
}

/// The one folder a run made in keep folder `keep`: its own.
fn run_folder(keep: &Path) -> std::path::PathBuf {
    let folders: Vec<_> = std::fs::read_dir(keep)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.is_symlink())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders[0].clone()
}

/// Item 4: one name in the keep folder that is not a file (a FIFO) ended the whole run at that
/// script, with no report and exit 1. Each run keeps its scripts in a folder of its own, which
/// it makes (no name in it planted): a FIFO beside it costs nothing, and two runs in one keep
/// folder keep two sets of scripts, never mixed (issue: kept failures mixed between runs). A
/// keep folder that cannot take a file is refused before any script runs.
#[test]
fn a_script_that_cannot_be_kept_costs_that_file_not_the_run() {
    let run = Run::new();
    let program = failing_program(&run);
    let keep = run.path("kept");
    std::fs::create_dir(&keep).unwrap();
    let name = std::ffi::CString::new(keep.join("script-0003.keys").as_os_str().as_encoded_bytes())
        .unwrap();
    // SAFETY: a NUL-terminated path, which mkfifo only reads.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o666) }, 0);
    let keep_arg = keep.to_str().unwrap();
    let ran = referee_scripts(&run, &program, "5", &["--keep", keep_arg]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stdout.contains("5 scripts (seed 1) run with "),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stdout
            .ends_with(": 5 failed\nrules broken:\n  missing-board        broken in 5 of 5 scripts, first script 0\n"),
        "{}",
        ran.stdout
    );
    let first = run_folder(&keep);
    assert!(first.join("script-0003.keys").is_file());
    assert!(first.join("script-0004.keys").is_file());
    let ran = referee_scripts(&run, &program, "2", &["--keep", keep_arg, "--json"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let json: serde_json::Value = serde_json::from_str(&ran.stdout).unwrap();
    let failed = json["failed"].as_array().unwrap();
    assert_eq!(failed.len(), 2);
    let second = std::path::PathBuf::from(failed[0]["keys"].as_str().unwrap());
    let second = second.parent().unwrap();
    assert_ne!(second, first, "two runs, two folders");
    assert!(
        !second.join("script-0004.keys").exists(),
        "nothing of the first run's"
    );
    assert_eq!(
        std::fs::read_dir(&first).unwrap().count(),
        10,
        "the first run's untouched"
    );
    // A folder no file can be made in: said before any script runs.
    let ran = referee_scripts(&run, &program, "5", &["--keep", "/proc/power11-keep"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .starts_with("power11: --keep /proc/power11-keep: "),
        "{}",
        ran.stderr
    );
    assert_eq!(ran.stdout, "");
    // The default folder is made for the run (a real write checks it) and removed again if
    // nothing was kept in it.
    let power11 = assert_cmd::cargo::cargo_bin("power11");
    let command = format!("{} --seed 1", power11.to_str().unwrap());
    let ran = referee_scripts(&run, &command, "2", &[]);
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(!run.path("referee-failures").exists());
}

/// Item 5: the `--scripts` summary printed the `--run` command as given, so a program whose
/// name holds `ESC ] 0 ; ... BEL ESC [ 2 J` retitled and cleared the grader's terminal. It is
/// shown in caret notation, as every other message shows control characters.
#[test]
fn a_command_s_control_characters_never_reach_the_terminal() {
    let run = Run::new();
    let program = failing_program(&run);
    let odd = run.path("prog\x1b]0;owned\x07\x1b[2J");
    std::fs::copy(&program, &odd).unwrap();
    let ran = referee_scripts(&run, odd.to_str().unwrap(), "1", &["--keep", "k"]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(!ran.stdout.contains('\x1b'), "{:?}", ran.stdout);
    assert!(!ran.stdout.contains('\x07'), "{:?}", ran.stdout);
    assert!(
        ran.stdout.contains("prog^[]0;owned^G^[[2J: 1 failed"),
        "{}",
        ran.stdout
    );
}

/// Runs `power11 args` in `folder` with `input`, its data directory `data`: what it printed
/// on both streams.
fn printed(folder: &Path, data: &Path, args: &[&str], input: &str) -> String {
    let output = assert_cmd::Command::cargo_bin("power11")
        .unwrap()
        .args(args)
        .current_dir(folder)
        .env("POWER11_DATA_DIR", data)
        .write_stdin(input)
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

/// A read raced: the name in the shared folder, power11's arguments, its keys, how many
/// runs, the attacker's own file, the root-only file, and what of it must never be shown.
type RaceCase<'a> = (
    &'a str,
    &'a [&'a str],
    &'a str,
    usize,
    String,
    String,
    &'a str,
);

/// Regression (hostile users, round 5): reads followed another user's links where writes
/// did not. A name was looked at, then opened by its path: a link swapped in between was
/// followed (resume showed another user's game in 26 of 837 races), and the best scores, the
/// learned weights and the solved tables were read through such a link (a forged best shown,
/// another user's network played, a line of a root-only file printed). Each is now opened
/// through its folder's handle without following a link, then checked. Here another user
/// swaps, as fast as the system allows, a file of their own and a link to a root-only file
/// at each name, while power11 reads it again and again: the root-only file's score or words
/// never appear.
#[test]
fn reads_never_follow_a_link_another_user_races_in() {
    if !as_root("reads_never_follow_a_link_another_user_races_in") {
        return;
    }
    let run = Run::new();
    let shared = shared_folder(&run);
    for folder in ["weights", "solutions"] {
        std::fs::create_dir(shared.join(folder)).unwrap();
        std::fs::set_permissions(shared.join(folder), std::fs::Permissions::from_mode(0o1777))
            .unwrap();
    }
    let victim = run.path("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o700)).unwrap();
    let save = |score: u64| {
        format!(
            "Score: {score}\n#####################\n#   2|    |    |    #\n#    |    |    |    #\n\
             #    |    |    |    #\n#    |    |    |   2#\n#####################\n"
        )
    };
    // (name in the shared folder, arguments, keys, runs, the attacker's own file, the
    // root-only file, what of it must never be shown): a resume, a classic game's best
    // score, the learned player's advice (its network read from the data directory first),
    // the exact player's table.
    let table = "solutions/3x3-goal32-twos-fours-start2twos-fours.table";
    let cases: [RaceCase; 4] = [
        (
            "power11.saved",
            &[],
            "r\nq\nq\n",
            300,
            save(4),
            save(424_240),
            "424240",
        ),
        (
            "best-scores.txt",
            &["--variant", "classic"],
            "h\nq\nq\n",
            300,
            "classic 4 8\n".to_string(),
            "classic 4 424240\n".to_string(),
            "424240",
        ),
        (
            "weights/ntuple-4x4.p11w",
            &[],
            "h\na\nq\nq\n",
            20,
            "not a network\n".to_string(),
            "TOP SECRET LINE\n".to_string(),
            "TOP SECRET",
        ),
        (
            table,
            &["--player", "optimal", "--size", "3", "--goal", "32"],
            "h\na\nq\nq\n",
            100,
            "not a table\n".to_string(),
            "TOP SECRET LINE\n".to_string(),
            "TOP SECRET",
        ),
    ];
    for (name, args, keys, runs, own, secret_text, never) in cases {
        let secret = victim.join("secret");
        std::fs::write(&secret, &secret_text).unwrap();
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
        let at = shared.join(name);
        // The attacker's own file and a link to the secret, each made beside the name and
        // renamed over it in turn: the name is always there, a file or a link.
        let flipper = as_other(&format!(
            "exec python3 -c 'import os, sys\nsecret, name, own = sys.argv[1:4]\nd = os.path.dirname(name)\nf, l = os.path.join(d, \".own\"), os.path.join(d, \".lnk\")\nwhile True:\n  try:\n    with open(f, \"w\") as h: h.write(own)\n    os.rename(f, name)\n    os.symlink(secret, l)\n    os.rename(l, name)\n  except OSError: pass' {} {} '{}'",
            quoted(&secret),
            quoted(&at),
            own
        ))
        .spawn()
        .map(Killed)
        .unwrap();
        for _ in 0..runs {
            let said = printed(&shared, &shared, args, keys);
            assert!(!said.contains(never), "{name}: {said}");
        }
        drop(flipper);
        let _ = std::fs::remove_file(&at);
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), secret_text);
    }
}

/// Regression (hostile users, round 5): two games saving in one folder lost 0.6% of their
/// saves ("no such file or directory"): one removed the other's new temporary file, taken
/// for one a killed save left, before it was locked. Two games saving 5,000 times each in
/// one folder now lose none.
#[test]
fn two_games_saving_in_one_folder_lose_no_save() {
    let run = Run::new();
    let keys = format!("h\n{}q\nq\n", "s\n".repeat(5000));
    let game = || {
        let mut child = run
            .process(&["--seed", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let keys = keys.clone();
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let _ = stdin.write_all(keys.as_bytes());
        });
        (child, writer)
    };
    let games = [game(), game()];
    for (child, writer) in games {
        let output = child.wait_with_output().unwrap();
        writer.join().unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0));
        assert_eq!(stdout.matches("Game saved").count(), 5000, "{}", {
            let lost: Vec<&str> = stdout
                .lines()
                .filter(|l| l.contains("save"))
                .take(3)
                .collect();
            lost.join("\n")
        });
    }
}

/// Regression (found trying `power11 grade` as a hostile user would): `--out` through a link
/// another user planted in a shared folder was followed, and the grader's gradebook (as root,
/// anywhere: `/etc`) written where the link led. It is refused, and nothing is written there.
#[test]
fn a_gradebook_is_never_written_through_a_planted_link() {
    if !as_root("a_gradebook_is_never_written_through_a_planted_link") {
        return;
    }
    let run = Run::new();
    let shared = shared_folder(&run);
    let target = run.path("target");
    std::fs::create_dir(&target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o777)).unwrap();
    let planted = as_other(&format!(
        "ln -s '{}' '{}/grades'",
        target.display(),
        shared.display()
    ))
    .status()
    .unwrap();
    assert!(planted.success());
    std::fs::create_dir_all(run.path("class/alice")).unwrap();
    let out = shared.join("grades");
    let ran = run.run(
        &[
            "grade",
            "class",
            "--out",
            out.to_str().unwrap(),
            "--scripts",
            "1",
        ],
        "",
    );
    assert_eq!(ran.code, 2, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stderr.contains("--out"), "{}", ran.stderr);
    assert_eq!(
        std::fs::read_dir(&target).unwrap().count(),
        0,
        "nothing written through it"
    );
}
