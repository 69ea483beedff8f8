//! Helpers shared by the end-to-end tests: run the real binary in a temporary directory, and
//! read the boards back out of what it printed.

use power11::text::parse_board_file;
use power11::{Board, Direction};
use std::path::{Path, PathBuf};

/// The path of a file in `fixtures/`.
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The path of a file in `fixtures/`, as a command-line argument.
pub(crate) fn fixture_arg(name: &str) -> String {
    fixture(name).to_str().unwrap().to_string()
}

/// What one run of the binary did.
pub(crate) struct Ran {
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) code: i32,
}

/// A run of `power11` in a fresh (or given) directory, with its data directory inside it.
pub(crate) struct Run {
    pub(crate) dir: tempfile::TempDir,
}

impl Run {
    pub(crate) fn new() -> Run {
        Run {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `power11 args` with `input` on stdin.
    pub(crate) fn run(&self, args: &[&str], input: impl Into<Vec<u8>>) -> Ran {
        let output = assert_cmd::Command::cargo_bin("power11")
            .unwrap()
            .args(args)
            .current_dir(self.dir.path())
            .env("POWER11_DATA_DIR", self.dir.path().join("data"))
            .write_stdin(input.into())
            .output()
            .unwrap();
        Ran {
            stdout: String::from_utf8(output.stdout).unwrap(),
            stderr: String::from_utf8(output.stderr).unwrap(),
            code: output.status.code().unwrap_or(-1),
        }
    }

    /// `power11 args` as a process to start, in the run's directory with its data directory:
    /// for the tests that signal it, kill it, or give it standard streams of their own.
    pub(crate) fn process(&self, args: &[&str]) -> std::process::Command {
        let mut command = std::process::Command::new(assert_cmd::cargo::cargo_bin("power11"));
        command
            .args(args)
            .current_dir(self.dir.path())
            .env("POWER11_DATA_DIR", self.dir.path().join("data"));
        command
    }

    /// Runs `power11 args` (no input) where no file may grow past `blocks` blocks of 512 bytes
    /// (`ulimit -f`, Unix): a write past it fails with "file too large", as on a full disk,
    /// instead of killing the program (SIGXFSZ is ignored).
    #[cfg(unix)]
    pub(crate) fn run_with_file_limit(&self, blocks: u32, args: &[&str]) -> Ran {
        self.run_under(&format!("trap '' XFSZ; ulimit -f {blocks}"), args)
    }

    /// Runs `power11 args` (no input) with at most `kib` KiB of address space (`ulimit -v`,
    /// Linux): an allocation past it fails, and an abort shows in the exit code.
    #[cfg(target_os = "linux")]
    pub(crate) fn run_with_memory_limit(&self, kib: u32, args: &[&str]) -> Ran {
        self.run_under(&format!("ulimit -v {kib}"), args)
    }

    /// Runs `power11 args` (no input) after the shell commands `limits`.
    #[cfg(unix)]
    fn run_under(&self, limits: &str, args: &[&str]) -> Ran {
        let script = format!("{limits}; exec \"$0\" \"$@\"");
        let output = std::process::Command::new("sh")
            .args(["-c", &script])
            .arg(assert_cmd::cargo::cargo_bin("power11"))
            .args(args)
            .current_dir(self.dir.path())
            .env("POWER11_DATA_DIR", self.dir.path().join("data"))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        Ran {
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            code: output.status.code().unwrap_or(-1),
        }
    }
}

impl Ran {
    /// Checks that the run was refused as a usage error (exit code 2) before any work (nothing
    /// on standard output), with a message that `says` something.
    #[track_caller]
    pub(crate) fn assert_refused(&self, says: &str) {
        assert_eq!(self.code, 2, "{}", self.stderr);
        assert!(self.stderr.contains(says), "{}", self.stderr);
        assert!(self.stdout.is_empty(), "nothing was done: {}", self.stdout);
    }
}

/// Runs `power11 args` with `input` in a fresh directory.
pub(crate) fn run(args: &[&str], input: &str) -> Ran {
    Run::new().run(args, input)
}

/// Every `Score:` line and the board printed after it, in order.
pub(crate) fn screens(stdout: &str) -> Vec<(i128, Board)> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(score) = line.strip_prefix("Score: ") else {
            continue;
        };
        let mut j = i + 1;
        if lines.get(j).is_some_and(|l| l.starts_with("Best: ")) {
            j += 1;
        }
        let end =
            (j + 1..lines.len()).find(|&k| lines[k].starts_with("##") && !lines[k].contains('|'));
        let Some(end) = end else { continue };
        let text = lines[j..=end].join("\n");
        let board = parse_board_file(&text)
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
            .current()
            .board;
        found.push((score.parse().unwrap(), board));
    }
    found
}

/// The cells where `after` differs from `before`.
pub(crate) fn differences(before: &Board, after: &Board) -> Vec<(usize, usize)> {
    let n = before.size();
    (0..n * n)
        .map(|i| (i / n, i % n))
        .filter(|&(r, c)| before.get(r, c) != after.get(r, c))
        .collect()
}

/// The directions printed by `--autoplay` (`Move: Left`), in order.
pub(crate) fn autoplay_moves(stdout: &str) -> Vec<Direction> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("Move: "))
        .map(|m| {
            let name = m.split(' ').next().unwrap();
            Direction::ALL
                .into_iter()
                .find(|d| d.name() == name)
                .unwrap()
        })
        .collect()
}

/// `n` lines of the given command, each followed by a newline.
pub(crate) fn repeat(command: &str, n: usize) -> String {
    format!("{command}\n").repeat(n)
}

/// The Power-11 welcome menu.
pub(crate) const MENU: &str = "\
Welcome to Power-11!
  e - start a new Easy (5-by-5) game
  h - start a new Hard (4-by-4) game
  r - Resume the last saved game
  q - Quit the game
";

/// The two lines under the board on the game screen.
pub(crate) const KEYS: &str = "\
Moves: u = Up, d = Down, l = Left, r = Right
Other: s = Save to power11.saved, b = Back (undo), a = Advice, q = Quit to the menu (unsaved moves are lost)
";

/// Runs `power11 args` with `stdin` in `run`'s directory and checks the whole stdout, an empty
/// stderr and exit code 0.
#[track_caller]
pub(crate) fn check_in(run: &Run, args: &[&str], stdin: &str, expected_stdout: &str) {
    let ran = run.run(args, stdin);
    assert_eq!(ran.stdout, expected_stdout, "stdout of {args:?}");
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "{args:?}");
}

/// Runs `power11 args` with `stdin` in a fresh directory and checks the exit code and the whole
/// stderr (and that nothing went to stdout).
#[track_caller]
pub(crate) fn check_error(args: &[&str], stdin: &str, code: i32, expected_stderr: &str) {
    let ran = run(args, stdin);
    assert_eq!(ran.stderr, expected_stderr, "stderr of {args:?}");
    assert_eq!((ran.code, ran.stdout.as_str()), (code, ""), "{args:?}");
}

/// `power11 args` in `run`'s directory (its data directory inside), with `stdin` typed, ready
/// for `assert_cmd`'s `.assert()`; it may take 60 s at most.
pub(crate) fn power11(run: &Run, args: &[&str], stdin: &str) -> assert_cmd::Command {
    let mut command = assert_cmd::Command::cargo_bin("power11").unwrap();
    command
        .args(args)
        .current_dir(run.dir.path())
        .env("POWER11_DATA_DIR", run.path("data"))
        .write_stdin(stdin.to_string())
        .timeout(std::time::Duration::from_secs(60));
    command
}

/// Runs `power11 args` on `first` then `repeated` for ever, its output read by `head -3` that
/// then closes the pipe: the program's exit status and what it wrote on standard error.
pub(crate) fn run_into_closed_pipe(args: &str, first: &str, repeated: &str) -> (String, String) {
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let script = format!(
        "yes {repeated} | (echo {first}; cat) | '{}' {args} | head -3 >/dev/null; echo \"status=${{PIPESTATUS[2]}}\"",
        bin.display()
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .output()
        .unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The Python Power-11 program, as `--run` takes it, with `args`; `None` (and the test says it
/// is skipped) where there is no python3.
pub(crate) fn python(args: &str) -> Option<String> {
    let found = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipped: python3 is not on PATH");
        return None;
    }
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/programs/power11.py");
    Some(format!("python3 {} {args}", path.display()))
}

/// The board as the assignment draws it, written out from the spec (not by the program's
/// renderer): a `#` frame, cells right-aligned in 4 characters joined by `|`.
pub(crate) fn framed(rows: &[Vec<u64>]) -> String {
    let n = rows.len();
    let frame = "#".repeat(2 + 4 * n + (n - 1));
    let mut text = format!("{frame}\n");
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .map(|&v| {
                if v == 0 {
                    "    ".to_string()
                } else {
                    format!("{v:>4}")
                }
            })
            .collect();
        text = text + "#" + &cells.join("|") + "#\n";
    }
    text + &frame + "\n"
}
