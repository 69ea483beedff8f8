//! The full-screen mode through a real pseudo-terminal (`script` from util-linux gives the
//! program one), and without a terminal.
#![cfg(unix)]

use crate::common::{Run, run};
use power11::text::parse_save;

/// Runs `power11 --tui args` in a pseudo-terminal of 40x120 in `run`'s directory, types
/// `keys` once the program has taken the screen, and gives what it wrote to the terminal.
/// Fails (never hangs) if the program does not finish within 20 s.
fn in_terminal(run: &Run, args: &str, keys: &[&[u8]]) -> Vec<u8> {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let command = format!(
        "stty rows 40 cols 120; POWER11_DATA_DIR=data '{}' --tui {args}",
        bin.display()
    );
    let mut child = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(run.dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs the program in a pseudo-terminal");
    let screen = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let reader = {
        let screen = Arc::clone(&screen);
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
    let started = Instant::now();
    let deadline = Duration::from_secs(20);
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
    // One key (an arrow's whole escape sequence) per write, as a terminal sends them.
    for key in keys {
        stdin.write_all(key).unwrap();
        stdin.flush().unwrap();
        std::thread::sleep(Duration::from_millis(30));
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

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
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
    let started = std::time::Instant::now();
    let program = loop {
        if let Some(pid) = child_of(script.id()) {
            break pid;
        }
        assert!(
            started.elapsed().as_secs() < 10,
            "the program did not start"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
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
