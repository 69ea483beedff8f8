//! The full-screen mode through a real pseudo-terminal (`script` from util-linux gives the
//! program one), and without a terminal.
#![cfg(unix)]

use crate::common::{Run, run};
use power11::text::parse_save;

/// Runs `power11 --tui args` in a pseudo-terminal of 40x120 in `run`'s directory, types
/// `keys` once the program has taken the screen, and gives what it wrote to the terminal.
/// Fails (never hangs) if the program does not finish within 20 s.
fn in_terminal(run: &Run, args: &str, keys: &[&[u8]]) -> Vec<u8> {
    let steps: Vec<Step> = keys.iter().map(|key| Step::Key(key)).collect();
    in_terminal_steps(run, "stty rows 40 cols 120;", args, &steps)
}

/// What a test does to the terminal once the program has taken the screen.
pub(crate) enum Step<'a> {
    /// Types a key (an arrow's whole escape sequence is one key).
    Key(&'a [u8]),
    /// Resizes the terminal to rows x columns, as a window being dragged does.
    Resize(u16, u16),
    /// Waits this many milliseconds more before the next step.
    Wait(u64),
    /// Waits until the terminal has been sent these bytes (within the run's deadline): a
    /// step that follows work of unknown length (a network read) waits for it, not for a time.
    Until(&'a [u8]),
}

/// [`in_terminal`] with a shell prefix (`stty rows 20 cols 80; NO_COLOR=1`) and steps that
/// may resize the terminal.
pub(crate) fn in_terminal_steps(run: &Run, prefix: &str, args: &str, steps: &[Step]) -> Vec<u8> {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let command = format!(
        "{prefix} POWER11_DATA_DIR=data '{}' --tui {args}",
        bin.display()
    );
    let mut command_line = std::process::Command::new("script");
    command_line
        .args(["-qec", &command, "/dev/null"])
        .current_dir(run.dir.path());
    let (mut child, screen, reader) = in_pseudo_terminal(&mut command_line);
    let started = Instant::now();
    // Far more than any run here takes, on a machine as busy as CI's: a run still going then
    // is hung (and killed, so that the test fails instead of hanging too).
    let deadline = Duration::from_secs(120);
    // Typed before the program is in raw mode, keys would go through the terminal's line
    // discipline (Ctrl-C would be a signal to the shell): wait for the alternate screen.
    while !contains(&screen.lock().unwrap(), b"\x1b[?1049h") {
        assert!(
            started.elapsed() < deadline,
            "the program did not take the screen"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut stdin = child.stdin.take().unwrap();
    for step in steps {
        match step {
            Step::Key(key) => {
                stdin.write_all(key).unwrap();
                stdin.flush().unwrap();
            }
            Step::Resize(rows, columns) => {
                // The shell's standard input is the pseudo-terminal; resizing it signals the
                // program (SIGWINCH), which draws again for the new size.
                let shell = child_of(child.id()).expect("script runs a shell");
                let status = std::process::Command::new("stty")
                    .args(["-F", &format!("/proc/{shell}/fd/0")])
                    .args(["rows", &rows.to_string(), "cols", &columns.to_string()])
                    .status()
                    .unwrap();
                assert!(status.success());
            }
            Step::Wait(ms) => std::thread::sleep(Duration::from_millis(*ms)),
            Step::Until(bytes) => {
                while !contains(&screen.lock().unwrap(), bytes) {
                    if started.elapsed() > deadline {
                        // Not left running (it holds the test's output open).
                        let _ = child.kill();
                        panic!(
                            "never shown: {}\n{}",
                            String::from_utf8_lossy(bytes),
                            String::from_utf8_lossy(&screen.lock().unwrap())
                        );
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(60));
    }
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            drop(stdin);
            reader.join().unwrap();
            let screen = screen.lock().unwrap().clone();
            assert!(status.success(), "{}", String::from_utf8_lossy(&screen));
            return screen;
        }
        if started.elapsed() > deadline {
            child.kill().unwrap();
            panic!(
                "the program did not finish: {}",
                String::from_utf8_lossy(&screen.lock().unwrap())
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `command` (a `script` run) with its terminal's output collected on a thread: the
/// child, the collected bytes, and the thread that ends when the terminal closes.
fn in_pseudo_terminal(
    command: &mut std::process::Command,
) -> (
    std::process::Child,
    std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    std::thread::JoinHandle<()>,
) {
    use std::io::Read;
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs the program in a pseudo-terminal");
    let screen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let screen = std::sync::Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buffer) {
                if n == 0 {
                    break;
                }
                screen.lock().unwrap().extend_from_slice(&buffer[..n]);
            }
        })
    };
    (child, screen, reader)
}

/// What the screen shows after `marker` was last written: the text of the last frames.
fn after_last<'a>(screen: &'a [u8], marker: &[u8]) -> &'a [u8] {
    let at = screen
        .windows(marker.len())
        .rposition(|w| w == marker)
        .map_or(0, |i| i + marker.len());
    &screen[at..]
}

pub(crate) fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn arrow_keys_save_and_the_terminal_is_restored() {
    let run = Run::new();
    // h: a Hard game; Left and Up as the arrow keys send them; s: save; q: menu; q: quit.
    let screen = in_terminal(
        &run,
        "--seed 1",
        &[b"h", b"\x1b[D", b"\x1b[A", b"s", b"q", b"q"],
    );
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let timeline = parse_save(&saved).unwrap();
    assert_eq!(
        timeline.states().len(),
        3,
        "the start and two moves:\n{saved}"
    );
    // The same seed and keys in the line interface make the same game.
    let line = Run::new();
    line.run(&["--seed", "1"], "h\nl\nu\ns\n");
    assert_eq!(
        std::fs::read_to_string(line.path("power11.saved")).unwrap(),
        saved
    );
    // Entered the alternate screen and hid the cursor; left it and showed the cursor again.
    for sequence in [
        &b"\x1b[?1049h"[..],
        b"\x1b[?25l",
        b"\x1b[?1049l",
        b"\x1b[?25h",
    ] {
        assert!(
            contains(&screen, sequence),
            "{:?} missing",
            String::from_utf8_lossy(sequence)
        );
    }
    assert!(contains(&screen, b"Game saved to power11.saved."));
}

#[test]
fn a_game_saved_in_the_line_interface_resumes_full_screen() {
    let run = Run::new();
    run.run(&["--seed", "2"], "e\nl\nu\nr\ns\n");
    let before = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    // r: resume; b: undo; s: save; q q: leave.
    in_terminal(&run, "", &[b"r", b"b", b"s", b"q", b"q"]);
    let after = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let (before, after) = (parse_save(&before).unwrap(), parse_save(&after).unwrap());
    assert_eq!(
        after.states(),
        &before.states()[..before.states().len() - 1]
    );
}

#[test]
fn ctrl_c_leaves_at_once_and_restores_the_terminal() {
    let run = Run::new();
    let screen = in_terminal(&run, "--seed 1", &[b"h", b"l", b"\x03"]);
    assert!(contains(&screen, b"\x1b[?1049l") && contains(&screen, b"\x1b[?25h"));
    assert!(!run.path("power11.saved").exists(), "nothing saved");
}

#[test]
fn tui_without_a_terminal_exits_2_with_its_reason() {
    let ran = run(&["--tui"], "q\n");
    assert_eq!((ran.code, ran.stdout.as_str()), (2, ""));
    assert_eq!(
        ran.stderr,
        "power11: --tui needs a terminal on standard input and output; without one, play the line interface (power11 without --tui)\n"
    );
}

/// The pid of the first child of `parent`, if it has one (Linux `/proc`).
fn child_of(parent: u32) -> Option<u32> {
    std::fs::read_dir("/proc")
        .ok()?
        .flatten()
        .find_map(|entry| {
            let process: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (name) state ppid ...`: the name may hold blanks, so read after its `)`.
            let its_parent: u32 = stat
                .rsplit(')')
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (its_parent == parent).then_some(process)
        })
}

/// The pid of the program a `script` run started, once it has (at most 10 s).
fn program_of(script: &std::process::Child) -> u32 {
    let started = std::time::Instant::now();
    loop {
        if let Some(pid) = child_of(script.id()) {
            return pid;
        }
        assert!(
            started.elapsed().as_secs() < 10,
            "the program did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Regression: when its terminal went away (the terminal window closed), the program spun at
/// full speed forever, reading the end of the input, and never saw the SIGHUP.
#[cfg(target_os = "linux")]
#[test]
fn a_terminal_that_goes_away_ends_the_program() {
    let run = Run::new();
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let command = format!("exec '{}' --tui --seed 1", bin.display());
    let mut script = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(run.dir.path())
        .env("POWER11_DATA_DIR", run.path("data"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let program = program_of(&script);
    std::thread::sleep(std::time::Duration::from_millis(500));
    // Closing the terminal's other end, as a terminal window does when it closes.
    script.kill().unwrap();
    script.wait().unwrap();
    let gone = std::time::Instant::now();
    while std::path::Path::new(&format!("/proc/{program}")).exists() {
        let state = std::fs::read_to_string(format!("/proc/{program}/stat")).unwrap_or_default();
        if state
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        {
            break; // Exited, not yet reaped.
        }
        if gone.elapsed().as_secs() >= 5 {
            let _ = std::process::Command::new("kill")
                .args(["-9", &program.to_string()])
                .status();
            panic!("the program still runs 5 s after its terminal went away");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn the_full_screen_autoplay_and_advice_use_the_learned_player() {
    let run = Run::new();
    let trained = run.run(
        &[
            "train",
            "--games",
            "300",
            "--threads",
            "1",
            "--seed",
            "1",
            "--tuples",
            "2x4",
            "--out",
            "w.p11w",
        ],
        "",
    );
    assert_eq!(trained.code, 0, "{}", trained.stderr);
    // n: a new game; p: the computer plays (a move every 120 ms) while nothing is typed for
    // 750 ms; x: take it back; a: advice; s: save; q q: leave.
    let mut keys: Vec<&[u8]> = vec![b"n", b"p"];
    keys.extend(std::iter::repeat_n(&b""[..], 25));
    keys.extend([&b"x"[..], b"a", b"s", b"q", b"q"]);
    let screen = in_terminal(
        &run,
        "--player learned --weights w.p11w --depth 1 --variant classic --seed 5",
        &keys,
    );
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let states = parse_save(&saved).unwrap().states().len();
    assert!(states > 3, "the computer made moves: {states} states");
    assert!(
        contains(&screen, b"looking 1 move(s) ahead"),
        "{}",
        String::from_utf8_lossy(&screen)
    );
}

/// Regression (hostile-user trial): a weight file in the data directory that cannot be used
/// is passed over with a note, which went to stderr under the full screen and was wiped by the
/// next frame. It is drawn in the status line's place until the next key.
#[test]
fn a_weight_file_passed_over_is_said_in_the_full_screen() {
    let run = Run::new();
    std::fs::create_dir_all(run.path("data/weights")).unwrap();
    std::fs::write(run.path("data/weights/ntuple-4x4.p11w"), b"not weights").unwrap();
    // h: a Hard game; a: advice, which loads the network; then the frame is left to draw.
    // The network is read from the start, and its note drawn when it has been read.
    let note = b"data/weights/ntuple-4x4.p11w: not a power11 weight file; playing the shipped";
    let keys = [
        Step::Key(b"h"),
        Step::Key(b"a"),
        Step::Until(note),
        Step::Key(b"q"),
        Step::Key(b"q"),
    ];
    let screen = in_terminal_steps(&run, "stty rows 40 cols 120;", "--seed 1", &keys);
    // Drawn in a frame, not written as a line of standard error (`power11: data/...`).
    assert!(
        contains(&screen, note),
        "{}",
        String::from_utf8_lossy(&screen)
    );
    assert!(!contains(&screen, b"power11: data/weights"));
}

/// Regression (hostile-user trial): a status message wider than the window (a save that is
/// not ours, named with its problem) made the frame "too small" and the menu's keys wait, with
/// only `q` left. The message wraps; the menu still starts a game.
#[test]
fn a_message_wider_than_the_window_wraps_and_keys_still_work() {
    let run = Run::new();
    let notes = "keep me, these are my important notes about the game and more words";
    std::fs::write(run.path("power11.saved"), format!("{notes}\n")).unwrap();
    // r: resume (refused, a long message); h: a Hard game; q: the menu; q: leave.
    let screen = in_terminal_steps(
        &run,
        "stty rows 24 cols 80;",
        "--seed 1",
        &[
            Step::Key(b"r"),
            Step::Key(b"h"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let text = String::from_utf8_lossy(&screen);
    assert!(!text.contains("Window too small"), "{text}");
    assert!(text.contains("Cannot resume"), "{text}");
    assert!(text.contains("Score 0"), "the game started: {text}");
    assert_eq!(
        std::fs::read_to_string(run.path("power11.saved")).unwrap(),
        format!("{notes}\n")
    );
}

/// Hostile-user item 5: `--color always` overrides `NO_COLOR` in what reaches the terminal, not
/// only in the mode chosen (crossterm dropped the colours itself).
#[test]
fn color_always_draws_colour_even_under_no_color() {
    let run = Run::new();
    let screen = in_terminal_steps(
        &run,
        "stty rows 40 cols 120; unset COLORTERM; NO_COLOR=1 TERM=xterm-256color",
        "--color always --seed 1",
        &[Step::Key(b"h"), Step::Key(b"q"), Step::Key(b"q")],
    );
    assert!(contains(&screen, b"\x1b[48;5;"), "no 256-colour background");
    let plain = in_terminal_steps(
        &run,
        "stty rows 40 cols 120; unset COLORTERM; NO_COLOR=1 TERM=xterm-256color",
        "--seed 1",
        &[Step::Key(b"h"), Step::Key(b"q"), Step::Key(b"q")],
    );
    assert!(!contains(&plain, b"\x1b[48;5;"));
}

/// A terminal's name says which colours it has: a VT100 none, an xterm the 8 basic ones (as
/// `ESC [ 4N m`, which it reads; not the palette's `ESC [ 48;5;N m`, which it does not), an
/// xterm-256color the palette. (Found by a hostile user: every terminal got the palette.)
#[test]
fn colours_follow_what_term_names() {
    let run = Run::new();
    let keys = [Step::Key(b"h"), Step::Key(b"q"), Step::Key(b"q")];
    let screen = |term: &str, args: &str| {
        in_terminal_steps(
            &run,
            &format!("stty rows 40 cols 120; unset COLORTERM NO_COLOR; TERM={term}"),
            args,
            &keys,
        )
    };
    let basic_background =
        |screen: &[u8]| (0..8).any(|n| contains(screen, format!("\x1b[4{n}m").as_bytes()));
    let vt100 = screen("vt100", "--seed 1");
    // No palette or 24-bit colour (`ESC [ 38;5;N m`, `ESC [ 48;2;R;G;B m`; `ESC [ 38;22 H` is a
    // cursor move).
    let palette = |screen: &[u8]| {
        [
            &b"\x1b[38;5;"[..],
            b"\x1b[38;2;",
            b"\x1b[48;5;",
            b"\x1b[48;2;",
        ]
        .iter()
        .any(|code| contains(screen, code))
    };
    assert!(!palette(&vt100));
    assert!(!basic_background(&vt100), "a VT100 has no colour");
    for (term, args) in [("xterm", "--seed 1"), ("vt100", "--seed 1 --color always")] {
        let basic = screen(term, args);
        assert!(
            basic_background(&basic),
            "TERM={term} {args}: no basic colours"
        );
        assert!(!palette(&basic), "TERM={term} {args}: the palette");
    }
    assert!(contains(
        &screen("xterm-256color", "--seed 1"),
        b"\x1b[48;5;"
    ));
}

/// Hostile-user item 6: in a window too small for the help beside the board, the help shows
/// alone, and `?` and Esc close it again; in one too small even for that, the window says so
/// and they still close it. Item 12: the Power-11 game shows its best score.
#[test]
fn the_help_closes_in_a_window_too_small_for_it() {
    for (rows, columns, shown) in [
        (12, 80, &b"Power-11 keys"[..]),
        (7, 30, b"Enlarge it, or q."),
    ] {
        for close in [&b"?"[..], b"\x1b"] {
            let run = Run::new();
            let screen = in_terminal_steps(
                &run,
                "stty rows 24 cols 80;",
                "--seed 1",
                &[
                    Step::Key(b"h"),
                    Step::Resize(rows, columns),
                    Step::Key(b"?"),
                    Step::Key(close),
                    Step::Resize(24, 80),
                    Step::Wait(300),
                    Step::Key(b"q"),
                    Step::Key(b"q"),
                ],
            );
            assert!(
                contains(&screen, shown),
                "{rows}x{columns}: the help did not show"
            );
            assert!(contains(&screen, b"Score 0   Best 0") && contains(&screen, b"Moves 0"));
            let after = after_last(&screen, shown);
            assert!(
                contains(after, b"arrows hjk udlr: move"),
                "{rows}x{columns}: the game screen came back: {}",
                String::from_utf8_lossy(after)
            );
        }
    }
}

/// Hostile-user item 7: the question before unsaved moves are dropped is shown in a window
/// that became too small for the board, and a second `q` is not taken unseen.
#[test]
fn the_unsaved_moves_question_shows_in_a_window_too_small_for_the_board() {
    let run = Run::new();
    let screen = in_terminal_steps(
        &run,
        "stty rows 24 cols 90;",
        "--seed 1",
        &[
            Step::Key(b"h"),
            Step::Key(b"\x1b[D"),
            Step::Resize(10, 30),
            Step::Key(b"q"),
            Step::Key(b"s"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let after = after_last(&screen, b"has 30x10.");
    assert!(
        contains(&screen, b"Moves not saved: q again"),
        "no question"
    );
    assert!(
        !contains(after, b"Moves not saved"),
        "{}",
        String::from_utf8_lossy(after)
    );
    // `s` worked in the small window: the game was saved.
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    assert_eq!(parse_save(&saved).unwrap().states().len(), 2);
}

/// Hostile-user item 8: a dumb terminal is refused, as no terminal is, with exit code 2.
#[test]
fn a_dumb_terminal_is_refused() {
    let run = Run::new();
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let command = format!("TERM=dumb '{}' --tui", bin.display());
    // Bounded: a program that took the screen would wait for keys that never come.
    let output = std::process::Command::new("timeout")
        .args(["20", "script", "-qec", &command, "/dev/null"])
        .current_dir(run.dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("--tui needs a terminal that can move its cursor and TERM=dumb cannot"),
        "{text}"
    );
    assert!(!contains(&output.stdout, b"\x1b["));
}

/// Hostile-user item 9: a 7x7 and an 8x8 board are played in the standard 80x24 terminal.
#[test]
fn every_board_size_fits_an_80x24_terminal() {
    for size in ["7", "8"] {
        let run = Run::new();
        let screen = in_terminal_steps(
            &run,
            "stty rows 24 cols 80;",
            &format!("--variant classic --size {size} --seed 1"),
            &[
                Step::Key(b"n"),
                Step::Key(b"\x1b[D"),
                Step::Key(b"q"),
                Step::Key(b"q"),
                Step::Key(b"q"),
            ],
        );
        assert!(!contains(&screen, b"Window too small"), "{size}x{size}");
        assert!(contains(&screen, b"arrows hjk udlr: move"));
    }
}

/// Hostile-user item 10: Ctrl-Z suspends the program, with the terminal given back to the
/// shell, and `fg` brings it back, drawn again. Played in an interactive shell (job control)
/// as a user would.
#[cfg(target_os = "linux")]
#[test]
fn ctrl_z_suspends_and_fg_resumes() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let run = Run::new();
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let mut command = std::process::Command::new("script");
    command
        .args(["-qec", "bash --norc --noprofile -i", "/dev/null"])
        .current_dir(run.dir.path())
        .env("PS1", "$ ")
        // The shell's history and anything else it keeps go to the test's folder, never to
        // the user's home (regression: `cargo test` added lines to ~/.bash_history).
        .env("HOME", run.path("home"))
        .env("HISTFILE", run.path("bash_history"))
        .env("POWER11_DATA_DIR", run.path("data"));
    let (mut child, screen, reader) = in_pseudo_terminal(&mut command);
    let mut stdin = child.stdin.take().unwrap();
    let started = Instant::now();
    let wait_for = |needle: &[u8], count: usize| {
        while screen
            .lock()
            .unwrap()
            .windows(needle.len())
            .filter(|w| *w == needle)
            .count()
            < count
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "waited for {:?}: {}",
                String::from_utf8_lossy(needle),
                String::from_utf8_lossy(&screen.lock().unwrap())
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut type_keys = |keys: &[u8]| {
        stdin.write_all(keys).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(100));
    };
    type_keys(
        format!(
            "stty rows 30 cols 100; '{}' --tui --seed 1\n",
            bin.display()
        )
        .as_bytes(),
    );
    wait_for(b"\x1b[?1049h", 1);
    type_keys(b"h");
    type_keys(b"\x1a");
    // The terminal is given back (alternate screen left) and the shell has the job stopped.
    wait_for(b"\x1b[?1049l", 1);
    wait_for(b"Stopped", 1);
    type_keys(b"fg\n");
    wait_for(b"\x1b[?1049h", 2);
    type_keys(b"s");
    type_keys(b"q");
    type_keys(b"q");
    wait_for(b"\x1b[?1049l", 2);
    type_keys(b"exit\n");
    drop(stdin);
    let status = child.wait().unwrap();
    reader.join().unwrap();
    assert!(status.success());
    let screen = screen.lock().unwrap().clone();
    let after = after_last(&screen, b"fg");
    assert!(
        contains(after, b"arrows hjk udlr: move"),
        "drawn again after fg"
    );
    assert!(
        run.path("power11.saved").exists(),
        "the game went on after fg"
    );
    let history = std::fs::read_to_string(run.path("bash_history")).unwrap();
    assert!(history.contains("fg\n"), "{history}");
}

#[test]
fn t_switches_new_tiles_off_and_moves_then_place_none() {
    let run = Run::new();
    // n: a new 3x3 game; t: new tiles off; four moves; s: save; q q: leave.
    let screen = in_terminal(
        &run,
        "--variant mini --seed 1",
        &[b"n", b"t", b"l", b"u", b"r", b"d", b"s", b"q", b"q"],
    );
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let states = parse_save(&saved).unwrap();
    assert!(states.states().len() >= 3, "moves were made:\n{saved}");
    // Merges keep the tiles' sum and only a new tile adds to it: the start's two 2s stay 4.
    for state in states.states() {
        let sum: u128 = state.board.values().concat().iter().sum();
        assert_eq!(sum, 4, "no new tile:\n{saved}");
    }
    assert!(contains(
        &screen,
        b"New tiles off: moves place no tile until t again."
    ));
}

/// Regression (hostile-user review): SIGINT or SIGQUIT from outside (`kill -INT`; in raw mode
/// the Ctrl-C key is read as a key) killed the program with the terminal left raw, its cursor
/// hidden and the alternate screen on. Every signal that ends it restores the terminal first,
/// and the exit status says which signal it was (128 + its number), as a shell's would.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_from_outside_restores_the_terminal() {
    for (signal, number) in [("INT", 2), ("QUIT", 3), ("TERM", 15)] {
        let run = Run::new();
        let bin = assert_cmd::cargo::cargo_bin("power11");
        let command = format!("exec '{}' --tui --seed 7", bin.display());
        let (mut script, screen, reader) = in_pseudo_terminal(
            std::process::Command::new("script")
                .args(["-qec", &command, "/dev/null"])
                .current_dir(run.dir.path())
                .env("POWER11_DATA_DIR", run.path("data")),
        );
        let started = std::time::Instant::now();
        let program = program_of(&script);
        // Until the alternate screen is on, the signal would come before the terminal changed.
        while !contains(&screen.lock().unwrap(), b"\x1b[?1049h") {
            assert!(started.elapsed().as_secs() < 10, "no full screen");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let killed = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &program.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = script.wait().unwrap();
        reader.join().unwrap();
        let screen = screen.lock().unwrap();
        let after = after_last(&screen, b"\x1b[?1049h");
        assert!(
            contains(after, b"\x1b[?1049l") && contains(after, b"\x1b[?25h"),
            "SIG{signal}: the terminal was not restored"
        );
        assert_eq!(status.code(), Some(128 + number), "SIG{signal}");
    }
}

/// Regression (hostile-user review): a terminal that reports no size (0x0, as a pseudo-terminal
/// nobody sized does) got a frame of nothing but a lone `W`. Such a size is taken as unknown:
/// the frame is drawn for 80x24.
#[test]
fn a_terminal_of_no_size_is_drawn_as_80x24() {
    let run = Run::new();
    let screen = in_terminal_steps(&run, "stty rows 0 cols 0;", "--seed 1", &[Step::Key(b"q")]);
    let shown = String::from_utf8_lossy(after_last(&screen, b"\x1b[?1049h"));
    assert!(
        shown.contains("h - start a new Hard (4-by-4) game"),
        "{shown}"
    );
}

/// Regression (hostile users, round 5): after a paste of 4 KB or more, the full screen slept
/// with up to 2,880 bytes of it unread (its key reader read a block, then waited for the
/// terminal to say more had come), so Enter and `q` did nothing until more keys came. A
/// paste of 6 KB of keys that mean nothing at the menu, then `q`: the program reads it all
/// and leaves.
#[test]
fn a_long_paste_is_read_to_its_end_before_the_screen_sleeps() {
    let run = Run::new();
    let mut paste = vec![b'x'; 6 << 10];
    paste.push(b'q');
    let screen = in_terminal(&run, "", &[&paste]);
    assert!(
        contains(&screen, b"\x1b[?1049l"),
        "the terminal is restored"
    );
}

/// Issue 74: the computer player thinks on a thread of its own. Forced to think ten minutes a
/// move (`POWER11_TEST_THINK_MS`, read by test builds only), the autoplay says it is thinking,
/// a key takes the game back at once (the move being thought of is dropped), and the game goes
/// on by hand, all long before the first thought could end: keys that waited for the player
/// would miss the run's deadline.
#[test]
fn no_key_waits_while_the_computer_thinks() {
    let run = Run::new();
    let screen = in_terminal_steps(
        &run,
        "stty rows 40 cols 120; POWER11_TEST_THINK_MS=600000",
        "--player expectimax --seed 3",
        &[
            Step::Key(b"h"),
            Step::Key(b"p"),
            // The status line's "Th" is the one before it's: only what changed is drawn.
            Step::Until(b"inking ...: any key takes over."),
            Step::Key(b"x"),
            Step::Until(b"You have the game back."),
            Step::Key(b"\x1b[D"),
            Step::Key(b"s"),
            Step::Until(b"Game saved to"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let states = parse_save(&saved).unwrap().states().len();
    assert_eq!(
        states,
        2,
        "the start and the move by hand, none by the computer: {}",
        String::from_utf8_lossy(&screen)
    );
}
