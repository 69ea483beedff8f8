//! Regressions from the second hostile- and new-user pass: files that are not ours are never
//! written, best scores are never lost without a word, and messages name what they are about.

use crate::common::{Run, fixture_arg};

/// The moves of a short Hard game that is saved, then left: `h`, Left, `s`, `q`, `q`.
const SAVE_AND_LEAVE: &str = "h\nl\ns\nq\nq\n";

/// Item 1: in a sticky, world-writable directory, a `power11.saved` link that another user
/// planted is not followed (the kernel's `protected_symlinks` rule): the file it names is left
/// as it was and the game goes on. The link can only be made another user's as root (as CI
/// runs); otherwise the link is the tester's own, which the rule follows.
#[cfg(unix)]
#[test]
fn a_link_another_user_planted_in_a_shared_directory_is_not_followed() {
    use std::os::unix::fs::PermissionsExt;
    let run = Run::new();
    let shared = run.path("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let notes = run.path("notes.txt");
    std::fs::write(&notes, "keep me\n").unwrap();
    let link = shared.join("power11.saved");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    // SAFETY: geteuid takes nothing and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::lchown(&link, Some(65534), Some(65534)).unwrap();
    }
    let output = assert_cmd::Command::cargo_bin("power11")
        .unwrap()
        .args(["--seed", "1"])
        .current_dir(&shared)
        .env("POWER11_DATA_DIR", run.path("data"))
        .write_stdin(SAVE_AND_LEAVE)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    if root {
        assert!(
            stdout.contains(
                "Could not save the game: power11.saved: a link that another user put in a \
                 shared directory (sticky and world-writable); it is not followed, as the \
                 kernel's protected_symlinks rule says: remove it to write here\n"
            ),
            "{stdout}"
        );
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "keep me\n");
        // Nor is it followed to read: `r` does not resume the file it names.
        let resumed = assert_cmd::Command::cargo_bin("power11")
            .unwrap()
            .current_dir(&shared)
            .env("POWER11_DATA_DIR", run.path("data"))
            .write_stdin("r\n")
            .output()
            .unwrap();
        let stdout = String::from_utf8(resumed.stdout).unwrap();
        assert!(
            stdout.contains(
                "Cannot resume: power11.saved: a link that another user put in a shared directory"
            ),
            "{stdout}"
        );
    } else {
        // The tester's own link is followed, and the file it names is no save: left alone.
        assert!(stdout.contains("not a save"), "{stdout}");
    }
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
}

/// Item 2: `s` never replaces a file that does not read as a save, and says what it is.
#[test]
fn a_file_that_is_not_a_save_is_never_replaced() {
    let run = Run::new();
    for (contents, what) in [
        (
            &b"keep me\n"[..],
            "line 1: expected a 'Score: N' line, found 'keep me'",
        ),
        (&b"Score: 4\n\xff\n"[..], "line 2: not text"),
        (&b"\xff\xfeS\0"[..], "UTF-16 text"),
    ] {
        std::fs::write(run.path("power11.saved"), contents).unwrap();
        let ran = run.run(&["--seed", "1"], SAVE_AND_LEAVE);
        assert_eq!(ran.code, 0);
        let expected = format!(
            "Could not save the game: power11.saved: not a save ({what}); it is left alone: \
             move it away to save here\n"
        );
        assert!(ran.stdout.contains(&expected), "{}", ran.stdout);
        assert_eq!(std::fs::read(run.path("power11.saved")).unwrap(), contents);
    }
    // A file past the size of any save says its size (a sparse file: nothing is read).
    let big = std::fs::File::create(run.path("power11.saved")).unwrap();
    big.set_len(300 << 20).unwrap();
    let ran = run.run(&["--seed", "1"], SAVE_AND_LEAVE);
    assert!(
        ran.stdout
            .contains("power11.saved: not a save (314572800 bytes); it is left alone"),
        "{}",
        ran.stdout
    );
    assert_eq!(big.metadata().unwrap().len(), 300 << 20);
    // A save of another game is replaced, as before.
    std::fs::copy(
        crate::common::fixture("good.saved"),
        run.path("power11.saved"),
    )
    .unwrap();
    let ran = run.run(&["--seed", "1"], SAVE_AND_LEAVE);
    assert!(ran.stdout.contains("Game saved to power11.saved.\n"));
}

/// An empty file (made by `touch`, or only blank lines) holds nothing to lose: `s` saves over
/// it, where a file with anything in it that is not a save is left alone.
#[test]
fn an_empty_file_is_saved_over() {
    let run = Run::new();
    for contents in ["", "\n \n\t\n"] {
        std::fs::write(run.path("power11.saved"), contents).unwrap();
        let ran = run.run(&["--seed", "1"], SAVE_AND_LEAVE);
        assert!(
            ran.stdout.contains("Game saved to power11.saved.\n"),
            "{:?}: {}",
            contents,
            ran.stdout
        );
        let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
        assert!(saved.starts_with("Score: "), "{saved}");
    }
}

/// A new file gets the mode the user's umask gives new files, as `touch` would: a user with
/// umask 077 keeps their saves, networks and pictures to themselves.
#[cfg(unix)]
#[test]
fn a_new_file_follows_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    for (umask, mode) in [("077", 0o600), ("022", 0o644), ("002", 0o664)] {
        let run = Run::new();
        let binary = assert_cmd::cargo::cargo_bin("power11");
        let output = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask {umask} && exec \"$0\" --seed 1 <<'EOF'\n{SAVE_AND_LEAVE}EOF"
            ))
            .arg(&binary)
            .current_dir(run.dir.path())
            .env("POWER11_DATA_DIR", run.path("data"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("Game saved to power11.saved.\n"),
            "{stdout}"
        );
        let meta = std::fs::metadata(run.path("power11.saved")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, mode, "umask {umask}");
    }
}

/// Item 3: where no data directory can be found (no `POWER11_DATA_DIR`, no home directory),
/// best scores cannot be kept, and the player is told once. An empty `POWER11_DATA_DIR`
/// counts as unset. A user with no home directory needs a uid without a passwd entry, which
/// only root can take (as CI runs); otherwise the test checks what `--help` says of it.
#[cfg(unix)]
#[test]
fn without_a_data_directory_best_scores_are_said_to_be_kept_for_the_session_only() {
    let help = Run::new().run(&["--help"], "");
    assert!(help.stdout.contains("an empty value counts as unset"));
    // SAFETY: geteuid takes nothing and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return;
    }
    let run = Run::new();
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let output = std::process::Command::new("setpriv")
        .args(["--reuid=54321", "--regid=54321", "--clear-groups"])
        .arg(bin)
        .args(["--seed", "1"])
        .env_remove("HOME")
        .env("POWER11_DATA_DIR", "")
        .current_dir(run.dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "power11: no data directory (POWER11_DATA_DIR is unset or empty and there is no home \
         directory); best scores are kept for this session only: set POWER11_DATA_DIR to keep \
         them\n"
    );
}

/// Item 4: games the computer plays (`--autoplay`, `bench`) are not the player's best scores;
/// `--help` says so, and nothing is written.
#[test]
fn computer_games_record_no_best_score_and_help_says_so() {
    let run = Run::new();
    let help = run.run(&["--help"], "");
    assert!(
        help.stdout
            .contains("resume: not --autoplay, bench or\n  --tui's p games, not games with new tiles switched off"),
        "{}",
        help.stdout
    );
    let ran = run.run(
        &["--autoplay", "random", "--variant", "mini", "--seed", "1"],
        "",
    );
    assert_eq!(ran.code, 0);
    let ran = run.run(
        &["bench", "--player", "random", "--games", "3", "--seed", "1"],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(!run.path("data").join("best-scores.txt").exists());
}

/// Item 12: a Power-11 game by hand keeps its best score like every other rule set, while
/// its line screens stay the assignment's (no `Best:` line).
#[test]
fn power11_games_keep_a_best_score_without_a_best_line() {
    let run = Run::new();
    let ran = run.run(&["--seed", "1"], "h\nl\nd\nl\nd\nq\nq\n");
    assert!(!ran.stdout.contains("Best"), "{}", ran.stdout);
    let scores = std::fs::read_to_string(run.path("data").join("best-scores.txt")).unwrap();
    let last_score = ran
        .stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("Score: "))
        .unwrap();
    assert_eq!(scores, format!("power11 4 {last_score}\n"));
    // Easy games are kept apart from Hard ones.
    run.run(&["--seed", "1"], "e\nl\nq\nq\n");
    let scores = std::fs::read_to_string(run.path("data").join("best-scores.txt")).unwrap();
    assert!(scores.contains("power11 5 "), "{scores}");
}

/// Item 13: a seed that is not one says what a seed is.
#[test]
fn a_bad_seed_says_what_a_seed_is() {
    for (args, seed) in [
        (&["--seed"][..], "-1"),
        (&["--seed"][..], "18446744073709551616"),
        (&["bench", "--player", "random", "--seed"][..], "x"),
        (&["train", "--games", "1", "--seed"][..], "-5"),
    ] {
        let mut args = args.to_vec();
        args.push(seed);
        let ran = Run::new().run(&args, "");
        assert_eq!(ran.code, 2);
        assert!(
            ran.stderr.contains(&format!(
                "invalid value '{seed}' for '--seed <N>': a seed is a whole number from 0 to \
                 18446744073709551615 (2^64-1)"
            )),
            "{}",
            ran.stderr
        );
    }
}

/// Item 14: a full standard output is named as such.
#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_output_is_named() {
    let run = Run::new();
    for args in [
        &["--seed", "1"][..],
        &["--board", &fixture_arg("B1.txt"), "--autoplay", "random"][..],
        &["bench", "--player", "random", "--games", "2", "--seed", "1"][..],
        &["--interface", "mips", "--seed", "1"][..],
    ] {
        let output = run
            .process(args)
            .stdin(std::process::Stdio::null())
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.starts_with("power11: cannot write to standard output: no space left on device"),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
}

/// Regression (hostile-user trial): a file name holding an escape sequence and a line break
/// reached the terminal as they were (the message turned red, on two lines). Messages show
/// control characters in caret notation, as typed keys and file contents already were.
#[test]
fn control_characters_in_a_file_name_are_shown_not_sent() {
    let run = Run::new();
    let ran = run.run(&["--board", "a\u{1b}[31mb\nc"], "");
    assert_eq!(ran.code, 2);
    assert_eq!(ran.stderr, "power11: a^[[31mb^Jc: no such file\n");
}
