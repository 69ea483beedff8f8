//! `--interface mips`: the MIPS 3x3 program's interface, checked against the transcripts of the
//! program's write-up.
//!
//! Each `fixtures/mips/NAME.txt` is a terminal transcript: `#` comment lines, the command
//! (`$ power11 ARGS`), then what the program prints, with each line typed shown as `> LINE` (`>`
//! alone for a blank line) where the program reads it. The cases that draw no random tile
//! (a start state, moves with new tiles off, the win at 512, invalid keys and integers) were
//! written by hand from the write-up. The ones that do are the write-up's own games replayed
//! with a seed whose tiles fall where the write-up's did; they were made with `POWER11_BLESS=1`
//! (which rewrites every case from the program's output) and read against the write-up, and
//! `the_seeded_replays_show_the_write_ups_boards` checks them against its boards.

use crate::common::{Run, fixture};
use power11::mips::{Mips, mips_session};
use power11::{Board, Direction, Grid};
use std::cell::RefCell;
use std::io::{self, BufRead, Read, Write};
use std::rc::Rc;

/// The transcripts in `fixtures/mips/`.
const CASES: &[&str] = &[
    "done_when",
    "menu_quit",
    "invalid_keys_and_integers",
    "win_at_512_new_tiles_off",
    "new_game_seed_8186",
    "start_state_to_512_seed_11",
    "loss_seed_3",
];

const MENU: &str = "Main Menu:\n[1] New Game\n[2] Start from a State\n[X] Quit\n";
const PROMPT: &str =
    "Enter a move (W=Up, A=Left, S=Down, D=Right, X=Quit, 3=Disable RNG, 4=Enable RNG):\n";

/// One transcript file, read.
struct Transcript {
    /// The comment lines, as written.
    comments: String,
    /// The arguments after `power11`.
    args: Vec<String>,
    /// What is typed: the `>` lines, each with its newline.
    input: String,
    /// What the program prints: every other line.
    stdout: String,
    /// The printed and typed lines together, as in the file (after the command).
    body: String,
}

impl Transcript {
    fn read(name: &str) -> Transcript {
        let path = fixture("mips").join(format!("{name}.txt"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut transcript = Transcript {
            comments: String::new(),
            args: Vec::new(),
            input: String::new(),
            stdout: String::new(),
            body: String::new(),
        };
        let mut lines = text.lines();
        for line in lines.by_ref() {
            if let Some(command) = line.strip_prefix("$ power11") {
                transcript.args = command.split_whitespace().map(String::from).collect();
                break;
            }
            assert!(line.starts_with('#'), "{name}: {line:?} before the command");
            transcript.comments.push_str(line);
            transcript.comments.push('\n');
        }
        assert!(!transcript.args.is_empty(), "{name}: no `$ power11` line");
        for line in lines {
            transcript.body.push_str(line);
            transcript.body.push('\n');
            let (text, to) = match typed(line) {
                Some(typed) => (typed, &mut transcript.input),
                None => (line, &mut transcript.stdout),
            };
            to.push_str(text);
            to.push('\n');
        }
        transcript
    }

    fn args(&self) -> Vec<&str> {
        self.args.iter().map(String::as_str).collect()
    }

    /// The `--seed`, or 0 (a transcript without one draws nothing at random).
    fn seed(&self) -> u64 {
        self.args
            .iter()
            .position(|a| a == "--seed")
            .map_or(0, |i| self.args[i + 1].parse().unwrap())
    }
}

/// The first `n` lines of `text`, each with its newline.
fn lines_with_ends(text: &str, n: usize) -> String {
    text.split_inclusive('\n').take(n).collect()
}

/// The line typed, if `line` of a transcript shows one (`> LINE`, or `>` for a blank line).
fn typed(line: &str) -> Option<&str> {
    if line == ">" {
        Some("")
    } else {
        line.strip_prefix("> ")
    }
}

/// A shared buffer: the program's output, and the lines it reads, in the order they happen.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Input that writes each line into the output as `> LINE` when the program reads it.
struct Echo {
    input: Vec<u8>,
    at: usize,
    out: Shared,
}

impl Read for Echo {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Echo {
    /// At most one line at a time, so that each is echoed when it is read.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let rest = &self.input[self.at..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        Ok(&rest[..end])
    }
    fn consume(&mut self, n: usize) {
        let consumed = &self.input[self.at..self.at + n];
        let mut out = self.out.0.borrow_mut();
        let line_start = self.at == 0 || self.input[self.at - 1] == b'\n';
        if line_start {
            out.extend_from_slice(if consumed == b"\n" { b">" } else { b"> " });
        }
        out.extend_from_slice(consumed);
        self.at += n;
    }
}

/// The program run in memory as `--interface mips --seed SEED` does, with each line typed shown
/// where it is read.
fn echoed(seed: u64, input: &str) -> String {
    let session = mips_session(seed);
    let out = Shared::default();
    let echo = Echo {
        input: input.as_bytes().to_vec(),
        at: 0,
        out: out.clone(),
    };
    Mips::new(session, echo, out.clone()).run().unwrap();
    String::from_utf8(out.0.borrow().clone()).unwrap()
}

#[test]
fn transcripts_are_what_the_binary_prints() {
    let run = Run::new();
    for name in CASES {
        let transcript = Transcript::read(name);
        let ran = run.run(&transcript.args(), transcript.input.as_str());
        assert_eq!(ran.stdout, transcript.stdout, "{name}");
        assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "{name}");
    }
}

#[test]
fn transcripts_read_each_line_where_they_show_it() {
    let bless = std::env::var_os("POWER11_BLESS").is_some();
    for name in CASES {
        let transcript = Transcript::read(name);
        let actual = echoed(transcript.seed(), &transcript.input);
        if bless {
            let command = format!("$ power11 {}\n", transcript.args.join(" "));
            let text = format!("{}{command}{actual}", transcript.comments);
            std::fs::write(fixture("mips").join(format!("{name}.txt")), text).unwrap();
            continue;
        }
        assert_eq!(actual, transcript.body, "{name}");
    }
}

#[test]
fn done_when_the_write_ups_state_new_tiles_off_and_left() {
    let board = |rows: [&str; 3]| {
        let line = "+---+---+---+\n";
        format!(
            "{line}{}\n{line}{}\n{line}{}\n{line}",
            rows[0], rows[1], rows[2]
        )
    };
    let expected = [
        MENU,
        "Enter a board configuration (Invalid integer = back to Main menu):\n",
        &board(["|128| 64| 64|", "| 32|256|128|", "|   |   |   |"]),
        PROMPT,
        "RNG Disabled.\n",
        PROMPT,
        &board(["|128|128|   |", "| 32|256|128|", "|   |   |   |"]),
        PROMPT,
        "Program Terminated.\n",
    ]
    .concat();
    let run = Run::new();
    crate::common::power11(
        &run,
        &["--interface", "mips"],
        "2\n128\n64\n64\n32\n256\n128\n0\n0\n0\n3\nA\nX\n",
    )
    .assert()
    .success()
    .stdout(expected)
    .stderr("");
    // It keeps nothing: no save, no best score.
    assert_eq!(std::fs::read_dir(run.dir.path()).unwrap().count(), 0);
}

/// The boards of the write-up's transcripts that depend on the new tiles, as it shows them:
/// each row as the numbers it holds, left to right (its tables of several boards side by side
/// lose where the empty cells are). The first is the board before the first move.
const WRITE_UP_BOARDS: &[(&str, &[[&[u64]; 3]])] = &[
    // "New Game": 1, then A, S, S, A ("the game play-through").
    (
        "new_game_seed_8186",
        &[
            [&[2, 2], &[], &[]],
            [&[4, 2], &[], &[]],
            [&[], &[2], &[4, 2]],
            [&[], &[2], &[4, 2, 2]],
            [&[], &[2, 2], &[4, 4]],
        ],
    ),
    // "Starting from a State": D, 3 (RNG Disabled.), A, 4 (RNG Enabled.), D, A, S: the win.
    (
        "start_state_to_512_seed_11",
        &[
            [&[128, 64, 64], &[32, 256, 128], &[]],
            [&[128, 128], &[32, 256, 128], &[2]],
            [&[256], &[32, 256, 128], &[2]],
            [&[2, 256], &[32, 256, 128], &[2]],
            [&[2, 256], &[32, 256, 128], &[2, 2]],
            [&[2, 2], &[32, 128], &[2, 512, 2]],
        ],
    ),
    // "Losing State": A, S, D, W: Game Over.
    (
        "loss_seed_3",
        &[
            [&[8, 16, 32], &[64], &[128]],
            [&[8, 16, 32], &[64], &[128, 2]],
            [&[8, 2], &[64, 32], &[128, 16, 2]],
            [&[8, 2], &[2, 64, 32], &[128, 16, 2]],
            [&[2, 8, 2], &[128, 64, 32], &[2, 16, 2]],
        ],
    ),
];

/// Every board printed in `stdout` (a MIPS board: 7 lines), in order.
fn boards(stdout: &str) -> Vec<Board> {
    let lines: Vec<&str> = stdout.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] != "+---+---+---+" {
            i += 1;
            continue;
        }
        let rows: Vec<Vec<u64>> = (0..3)
            .map(|r| {
                assert_eq!(lines[i + 2 + 2 * r], "+---+---+---+", "{stdout}");
                let row = lines[i + 1 + 2 * r];
                let cells: Vec<&str> = row.split('|').collect();
                assert_eq!((cells.len(), cells[0], cells[4]), (5, "", ""), "{row}");
                cells[1..4].iter().map(|&cell| cell_value(cell)).collect()
            })
            .collect();
        found.push(Board::from_values(&rows).unwrap());
        i += 7;
    }
    found
}

/// The tile a cell shows: one of the program's eleven cells, and nothing else.
fn cell_value(cell: &str) -> u64 {
    let cells = [
        "   ", " 2 ", " 4 ", " 8 ", " 16", " 32", " 64", "128", "256", "512",
    ];
    let index = cells
        .iter()
        .position(|&c| c == cell)
        .unwrap_or_else(|| panic!("{cell:?} is not one of the program's cells"));
    if index == 0 { 0 } else { 1 << index }
}

/// A board's rows as the write-up's tables show them: the numbers each holds.
fn row_numbers(board: &Board) -> Vec<Vec<u64>> {
    board
        .values()
        .iter()
        .map(|row| row.iter().filter(|&&v| v != 0).map(|&v| v as u64).collect())
        .collect()
}

#[test]
fn the_seeded_replays_show_the_write_ups_boards() {
    for &(name, expected) in WRITE_UP_BOARDS {
        let transcript = Transcript::read(name);
        let shown: Vec<Vec<Vec<u64>>> =
            boards(&transcript.stdout).iter().map(row_numbers).collect();
        let expected: Vec<Vec<Vec<u64>>> = expected
            .iter()
            .map(|rows| rows.iter().map(|row| row.to_vec()).collect())
            .collect();
        assert_eq!(shown, expected, "{name}");
    }
}

/// Walks `stdout` of a game started from the menu with `input` (its first line `1`, or `2` and
/// nine tiles), checking it has the program's form whatever the random tiles: the menu, the
/// board, then for each line typed what the program answers. A move that changes the board
/// shows it slid, plus one new 2 on one of the empty cells while new tiles are on (none while
/// they are off); one that changes nothing, or any other key, is `Invalid move.`; the game ends
/// at 512 or when no move is left. Returns how many moves changed the board.
fn check_form(input: &str, stdout: &str) -> usize {
    let mut keys = input.lines();
    let mut rest = stdout
        .strip_prefix(MENU)
        .unwrap_or_else(|| panic!("the menu first:\n{stdout}"));
    let mut new_tiles = true;
    let mut moved = 0;
    let first = keys.next().unwrap();
    if first == "2" {
        rest = rest
            .strip_prefix("Enter a board configuration (Invalid integer = back to Main menu):\n")
            .unwrap();
        keys.by_ref().take(9).for_each(drop);
    } else {
        assert_eq!(first, "1");
    }
    let take_board = |rest: &mut &str| -> Board {
        let text = lines_with_ends(rest, 7);
        *rest = &rest[text.len()..];
        let found = boards(&text);
        assert_eq!(found.len(), 1, "a board:\n{text}");
        found[0]
    };
    let mut board = take_board(&mut rest);
    if first == "1" {
        assert_eq!(
            row_numbers(&board).concat(),
            vec![2, 2],
            "a new game starts with two 2s"
        );
    }
    loop {
        if board.max_exponent() >= 9 {
            assert_eq!(rest, "Congratulations! You have reached the 512 tile!\n");
            return moved;
        }
        if !board.can_move() {
            assert_eq!(rest, "Game Over.\n");
            return moved;
        }
        rest = rest
            .strip_prefix(PROMPT)
            .unwrap_or_else(|| panic!("the prompt: {rest}"));
        let Some(key) = keys.next() else {
            assert_eq!(rest, "", "the input ended");
            return moved;
        };
        let direction = match key {
            "W" => Direction::Up,
            "A" => Direction::Left,
            "S" => Direction::Down,
            "D" => Direction::Right,
            "X" => {
                assert_eq!(rest, "Program Terminated.\n");
                return moved;
            }
            "3" | "4" => {
                new_tiles = key == "4";
                let said = if new_tiles {
                    "RNG Enabled.\n"
                } else {
                    "RNG Disabled.\n"
                };
                rest = rest.strip_prefix(said).unwrap();
                continue;
            }
            _ => {
                rest = rest.strip_prefix("Invalid move.\n").unwrap();
                continue;
            }
        };
        let Some((slid, _)) = board.slide(direction) else {
            rest = rest.strip_prefix("Invalid move.\n").unwrap();
            continue;
        };
        let next = take_board(&mut rest);
        let cells: Vec<(usize, usize)> = (0..9)
            .map(|i| (i / 3, i % 3))
            .filter(|&(r, c)| next.get(r, c) != slid.get(r, c))
            .collect();
        if new_tiles {
            assert_eq!(cells.len(), 1, "one new tile: {slid:?} then {next:?}");
            let (r, c) = cells[0];
            assert_eq!(
                (slid.get(r, c), next.get(r, c)),
                (0, 1),
                "a 2 on an empty cell"
            );
        } else {
            assert_eq!(cells, vec![], "no new tile");
        }
        board = next;
        moved += 1;
    }
}

#[test]
fn seeded_games_have_the_programs_form() {
    // Every transcript, and long games of every key (new tiles off for a while) from a new game
    // and from the write-up's start state.
    let games = WRITE_UP_BOARDS.iter().map(|&(name, _)| name);
    for name in games.chain(["done_when", "win_at_512_new_tiles_off"]) {
        let transcript = Transcript::read(name);
        check_form(&transcript.input, &transcript.stdout);
    }
    let keys = "A\nS\nD\nW\nS\nA\nw\n3\nD\nS\n4\nA\nD\nS\nW\n".repeat(20);
    let starts = ["1\n", "2\n128\n64\n64\n32\n256\n128\n0\n0\n0\n"];
    let run = Run::new();
    let mut moved = 0;
    for seed in 1..=6 {
        for start in starts {
            let input = format!("{start}{keys}");
            let seed = seed.to_string();
            let ran = run.run(&["--interface", "mips", "--seed", &seed], input.as_str());
            assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
            moved += check_form(&input, &ran.stdout);
        }
    }
    assert!(moved > 100, "{moved} moves: the games went on");
}

#[test]
fn the_same_seed_plays_the_same_new_game_and_another_seed_another() {
    let input = "1\nA\nS\nD\nW\nA\nS\nX\n";
    let play = |seed: &str| {
        Run::new()
            .run(&["--interface", "mips", "--seed", seed], input)
            .stdout
    };
    assert_eq!(play("5"), play("5"));
    assert_ne!(play("5"), play("6"));
}

#[test]
fn the_end_of_the_input_ends_quietly_at_every_read() {
    // Cut after each line typed: the program has printed what comes before the next read, and
    // exits 0.
    let transcript = Transcript::read("done_when");
    let run = Run::new();
    let lines = transcript.input.lines().count();
    for cut in 0..=lines {
        let input = lines_with_ends(&transcript.input, cut);
        // What the transcript shows before the line after the cut is read.
        let mut reads = 0;
        let mut expected = String::new();
        for line in transcript.body.lines() {
            if typed(line).is_some() {
                reads += 1;
                if reads > cut {
                    break;
                }
                continue;
            }
            expected.push_str(line);
            expected.push('\n');
        }
        let ran = run.run(&transcript.args(), input.as_str());
        assert_eq!(ran.stdout, expected, "cut after {cut} lines");
        assert_eq!(
            (ran.code, ran.stderr.as_str()),
            (0, ""),
            "cut after {cut} lines"
        );
    }
}

#[test]
fn odd_input_gets_the_programs_answers_never_a_panic() {
    let mut input: Vec<u8> = b"\xff\n2\r\n2\r\n 0\n0 \n0\n0\n0\n0\n0\n0\n\x00\n".to_vec();
    input.extend(std::iter::repeat_n(b'A', 1 << 20));
    input.extend(b"\nD\r\nX");
    let ran = Run::new().run(&["--interface", "mips", "--seed", "1"], input);
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    // The byte that is not UTF-8 is an invalid key; `2\r` (a line ending of \r\n) starts from a
    // state whose numbers may have blanks around them; NUL and the line of a million A's are
    // invalid; `D\r` moves, and `X` without a newline quits.
    assert!(
        ran.stdout.starts_with(&format!(
            "{MENU}Invalid move.\n{MENU}\
             Enter a board configuration (Invalid integer = back to Main menu):\n\
             +---+---+---+\n| 2 |   |   |\n"
        )),
        "{}",
        ran.stdout
    );
    assert_eq!(ran.stdout.matches("Invalid move.\n").count(), 3);
    assert_eq!(boards(&ran.stdout).len(), 2);
    assert!(
        ran.stdout
            .ends_with(&format!("{PROMPT}Program Terminated.\n"))
    );
}

#[test]
fn a_closed_stdout_ends_quietly() {
    // `yes A`: once Left changes nothing, every line is an invalid move, for ever, until `head`
    // stops reading.
    let (status, stderr) =
        crate::common::run_into_closed_pipe("--interface mips --seed 1", "1", "A");
    assert_eq!((status.as_str(), stderr.as_str()), ("status=0\n", ""));
}

#[test]
fn flags_it_cannot_honour_exit_2_with_one_line() {
    let refused = "power11: --interface mips plays the MIPS program's own game (3x3 to 512, its menu and keys): it takes no";
    for (args, flag) in [
        (&["--tui"][..], "--tui"),
        (&["--autoplay", "random"], "--autoplay random"),
        (&["--player", "expectimax"], "--player expectimax"),
        (&["--variant", "classic"], "--variant classic"),
        (&["--variant", "power11"], "--variant power11"),
        (&["--size", "4"], "--size 4"),
        (&["--goal", "none"], "--goal none"),
        (&["--goal", "2048"], "--goal 2048"),
        (&["--spawn", "random"], "--spawn random"),
        (&["--score", "moves"], "--score moves"),
        (&["--fill", "0.5"], "--fill 0.5"),
        (
            &["--board", "b.txt"],
            "--board (its menu's 2 starts from a state)",
        ),
    ] {
        let args = [&["--interface", "mips"][..], args].concat();
        crate::common::check_error(&args, "X\n", 2, &format!("{refused} {flag}\n"));
    }
    // The flags that say what it plays anyway are taken, and the Power-11 interface by name.
    for args in [
        &[
            "--variant",
            "mini",
            "--size",
            "3",
            "--goal",
            "512",
            "--spawn",
            "twos",
        ][..],
        &["--score", "merges", "--seed", "4"],
    ] {
        let args = [&["--interface", "mips"][..], args].concat();
        crate::common::check_in(
            &Run::new(),
            &args,
            "X\n",
            &format!("{MENU}Program Terminated.\n"),
        );
    }
    let ran = Run::new().run(&["--interface", "power11", "--seed", "1"], "q\n");
    assert_eq!((ran.code, ran.stdout.as_str()), (0, crate::common::MENU));
    let ran = Run::new().run(&["--interface", "spim"], "");
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .starts_with("error: invalid value 'spim' for '--interface <NAME>'"),
        "{}",
        ran.stderr
    );
}

#[test]
fn help_names_the_interface() {
    let ran = Run::new().run(&["--help"], "");
    assert_eq!(ran.code, 0);
    for text in ["--interface <NAME>", "mips:", "power11 --interface mips"] {
        assert!(ran.stdout.contains(text), "--help mentions {text}");
    }
}

/// A board the MIPS interface prints, copied into a file, starts a game (`--board`): power11
/// reads what it writes. Regression (hostile-user review): it was refused, "'+---+---+---+' is
/// not a number".
#[test]
fn a_board_the_mips_interface_prints_is_a_board_file() {
    let run = Run::new();
    let ran = run.run(&["--interface", "mips", "--seed", "8186"], "1\nD\nW\nX\n");
    let printed = ran.stdout.lines().collect::<Vec<_>>();
    let last_board = printed
        .iter()
        .rposition(|&l| l == "+---+---+---+")
        .expect("a board was printed");
    let drawn = printed[last_board - 6..=last_board].join("\n") + "\n";
    let expected = *boards(&drawn).last().unwrap();
    std::fs::write(run.path("copied.txt"), &drawn).unwrap();
    let ran = run.run(&["--board", "copied.txt", "--seed", "1"], "q\n");
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "{drawn}");
    let (_, shown) = crate::common::screens(&ran.stdout)[0];
    assert_eq!(shown, expected, "{drawn}");
}
