//! Data-driven boundary tests through the real binary, with exact expected output: every
//! board-file format on every size, and the knobs' error messages.

use crate::common::{KEYS, MENU, Run, check_error, check_in, framed};

/// The test board of side `n`: the diagonal holds 2, 4, 8, ..., every other cell is empty.
fn diagonal(n: usize) -> Vec<Vec<u64>> {
    (0..n)
        .map(|r| (0..n).map(|c| if r == c { 2 << r } else { 0 }).collect())
        .collect()
}

fn grid(rows: &[Vec<u64>], separator: &str) -> String {
    rows.iter()
        .map(|row| {
            let cells: Vec<String> = row.iter().map(u64::to_string).collect();
            cells.join(separator) + "\n"
        })
        .collect()
}

#[test]
fn every_board_file_format_on_every_size() {
    for n in 3..=8 {
        let rows = diagonal(n);
        let formats: [(&str, String, i128); 6] = [
            ("blanks", grid(&rows, " "), 0),
            ("commas", grid(&rows, ", "), 0),
            ("size line", format!("{n}\n{}", grid(&rows, " ")), 0),
            ("framed", framed(&rows), 0),
            (
                "framed with score",
                format!("Score: 12\n{}", framed(&rows)),
                12,
            ),
            (
                "save of two states",
                format!(
                    "Score: 12\n{}Score: 0\n{}",
                    framed(&rows),
                    framed(&diagonal(n))
                ),
                12,
            ),
        ];
        for (name, text, score) in formats {
            let run = Run::new();
            std::fs::write(run.path("board.txt"), &text).unwrap();
            let expected = format!("Score: {score}\n{}{KEYS}{MENU}", framed(&rows));
            let args = ["--board", "board.txt", "--seed", "1"];
            // A panic message names the case through the assertion's own message.
            eprintln!("case: {name}, {n}x{n}");
            check_in(&run, &args, "q\nq\n", &expected);
        }
    }
}

#[test]
fn knob_errors_say_what_was_wrong() {
    let help = "\n\nFor more information, try '--help'.\n";
    let cases: [(&[&str], &str); 8] = [
        (
            &["--size", "9"],
            "error: invalid value '9' for '--size <N>': board size 9 is not between 3 and 8",
        ),
        (
            &["--size", "x"],
            "error: invalid value 'x' for '--size <N>': 'x' is not a board size (a whole number from 3 to 8)",
        ),
        (
            &["--goal", "3"],
            "error: invalid value '3' for '--goal <V>': goal 3 is not a power of two from 8 to 1048576",
        ),
        (
            &["--goal", "lots"],
            "error: invalid value 'lots' for '--goal <V>': 'lots' is not a number or 'none'",
        ),
        (
            &["--fill", "0"],
            "error: invalid value '0' for '--fill <P>': fill probability 0 is not in 0 < P <= 1",
        ),
        (
            &["--variant", "nope"],
            "error: invalid value 'nope' for '--variant <NAME>'\n  [possible values: power11, classic, mini, edge]",
        ),
        (
            &["--spawn", "sometimes"],
            "error: invalid value 'sometimes' for '--spawn <RULE>'\n  [possible values: random, twos, edge, none]",
        ),
        (
            &["--autoplay", "genius"],
            "error: invalid value 'genius' for '--autoplay [<PLAYER>]'\n  [possible values: random, expectimax, optimal, learned]",
        ),
    ];
    for (args, message) in cases {
        check_error(args, "", 2, &format!("{message}{help}"));
    }
}

/// Regression: a board file from a pipe (`--board <(generate-board)`, a FIFO) was refused as
/// "not a regular file"; it is read as a file is, within the same limit.
#[cfg(unix)]
#[test]
fn a_board_file_may_be_a_pipe() {
    use std::os::unix::fs::OpenOptionsExt;
    let run = Run::new();
    let fifo = run.path("board.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo failed");
    let rows = diagonal(4);
    let text = grid(&rows, " ");
    let path = fifo.clone();
    let writer = std::thread::spawn(move || std::fs::write(path, text));
    let ran = run.run(&["--board", "board.fifo", "--seed", "1"], "q\nq\n");
    // A program that never opened the pipe leaves the writer waiting for a reader: open it
    // without waiting, so that the writer ends and the assertions below report the failure.
    let _reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo);
    writer.join().unwrap().unwrap();
    assert_eq!(ran.stderr, "");
    assert_eq!(
        ran.stdout,
        format!("Score: 0\n{}{KEYS}{MENU}", framed(&rows))
    );
    assert_eq!(ran.code, 0);
}
