//! The full-screen mode's look and pace through a real pseudo-terminal, read back by a
//! terminal emulator (`vt100`): the tiles' colours, the gap between rows, the board's size in
//! small and large windows, the `thinking` mark, and the best score kept honest.
#![cfg(unix)]

use crate::common::{Run, fixture_arg};
use crate::tui::{Step, contains, in_terminal_steps};
use std::collections::{BTreeMap, HashSet};

/// What the terminal of `rows` x `cols` showed just before the last frame that draws `marker`
/// (or at the end of the program's full screen, if `marker` is empty).
fn screen_before(bytes: &[u8], marker: &[u8], rows: u16, cols: u16) -> vt100::Parser {
    let leave = b"\x1b[?1049l";
    let end = if marker.is_empty() {
        bytes
            .windows(leave.len())
            .rposition(|w| w == leave)
            .unwrap_or(bytes.len())
    } else {
        bytes
            .windows(marker.len())
            .rposition(|w| w == marker)
            .expect("the marker was drawn")
    };
    let clear = b"\x1b[2J";
    let cut = bytes[..end]
        .windows(clear.len())
        .rposition(|w| w == clear)
        .unwrap_or(end);
    let size = |n: u16| std::num::NonZeroU16::new(n).expect("a screen has a size");
    let mut parser = vt100::Parser::new(size(rows), size(cols), 0);
    parser.process(&bytes[..cut]);
    parser
}

/// The screen's lines of text.
fn lines(parser: &vt100::Parser) -> Vec<String> {
    let (_, cols) = parser.screen().size();
    parser.screen().rows(0, cols.get()).collect()
}

/// How each number on the screen is drawn: its first digit's (foreground, background, bold),
/// by value.
fn tile_styles(parser: &vt100::Parser) -> BTreeMap<u64, (vt100::Color, vt100::Color, bool)> {
    let screen = parser.screen();
    let (rows, cols) = screen.size();
    let (rows, cols) = (rows.get(), cols.get());
    let mut styles = BTreeMap::new();
    for row in 0..rows {
        let mut col = 0;
        while col < cols {
            let digit = |c: u16| {
                screen
                    .cell(row, c)
                    .map(|cell| cell.contents().to_string())
                    .filter(|t| t.len() == 1 && t.chars().all(|ch| ch.is_ascii_digit()))
            };
            if digit(col).is_none() {
                col += 1;
                continue;
            }
            let start = col;
            let mut number = String::new();
            while let Some(d) = digit(col) {
                number.push_str(&d);
                col += 1;
            }
            let cell = screen.cell(row, start).expect("on the screen");
            if let Ok(value) = number.parse::<u64>() {
                styles.insert(value, (cell.fgcolor(), cell.bgcolor(), cell.bold()));
            }
        }
    }
    styles
}

/// A 4x4 board of the ten values 2 to 1024 (a board file).
const TEN_VALUES: &str = "2 4 8 16\n32 64 128 256\n512 1024 0 0\n0 0 0 0\n";

#[test]
fn ten_values_take_ten_backgrounds_in_256_colours_and_ten_styles_in_8() {
    let run = Run::new();
    std::fs::write(run.path("ten.txt"), TEN_VALUES).unwrap();
    let steps = [Step::Key(b"q"), Step::Key(b"q")];
    let values: Vec<u64> = (1..=10).map(|e| 1 << e).collect();
    for term in ["xterm-256color", "xterm"] {
        let prefix = format!("stty rows 24 cols 80; unset COLORTERM NO_COLOR; TERM={term}");
        let bytes = in_terminal_steps(&run, &prefix, "--board ten.txt", &steps);
        let shown = screen_before(&bytes, b"Resume the last saved game", 24, 80);
        let styles = tile_styles(&shown);
        let tiles: Vec<_> = values.iter().map(|v| styles.get(v).copied()).collect();
        assert!(
            tiles.iter().all(Option::is_some),
            "TERM={term}: {styles:?}\n{}",
            lines(&shown).join("\n")
        );
        let tiles: Vec<_> = tiles.into_iter().flatten().collect();
        let backgrounds: HashSet<_> = tiles.iter().map(|t| format!("{:?}", t.1)).collect();
        let whole: HashSet<_> = tiles.iter().map(|t| format!("{t:?}")).collect();
        if term == "xterm-256color" {
            assert_eq!(backgrounds.len(), 10, "{tiles:?}");
        } else {
            assert_eq!(whole.len(), 10, "{tiles:?}");
        }
        for (fg, bg, _) in &tiles {
            assert_ne!(fg, bg, "TERM={term}: a number in its tile's colour");
            assert_ne!(
                *bg,
                vt100::Color::Default,
                "TERM={term}: a tile without colour"
            );
        }
    }
}

/// The rows of the screen where a tile row's numbers are (two or more numbers from 2), and
/// the column of the number `2`.
fn board_geometry(parser: &vt100::Parser) -> (Vec<usize>, usize) {
    let text = lines(parser);
    let rows: Vec<usize> = text
        .iter()
        .enumerate()
        .filter(|(_, l)| {
            let tiles = l.split_whitespace();
            tiles
                .filter(|w| w.parse::<u64>().is_ok_and(|v| v >= 2))
                .count()
                >= 2
        })
        .map(|(i, _)| i)
        .collect();
    let column = text[rows[0]].find('2').expect("the first row holds a 2");
    (rows, column)
}

#[test]
fn rows_of_tiles_have_a_line_between_them_and_grow_with_the_window() {
    let run = Run::new();
    std::fs::write(run.path("ten.txt"), TEN_VALUES).unwrap();
    let steps = [Step::Key(b"q"), Step::Key(b"q")];
    let mut heights = Vec::new();
    for (rows, cols) in [(24u16, 80u16), (40, 120)] {
        let prefix =
            format!("stty rows {rows} cols {cols}; unset COLORTERM NO_COLOR; TERM=xterm-256color");
        let bytes = in_terminal_steps(&run, &prefix, "--board ten.txt", &steps);
        let shown = screen_before(&bytes, b"Resume the last saved game", rows, cols);
        let (number_rows, column) = board_geometry(&shown);
        assert_eq!(number_rows.len(), 3, "{}", lines(&shown).join("\n"));
        let pitch = number_rows[1] - number_rows[0];
        heights.push((pitch, column));
        // The line just above the second row's tiles: the terminal's own background from
        // the board's left edge to its right.
        let screen = shown.screen();
        let tile_top = (number_rows[0]..number_rows[1])
            .rev()
            .find(|&r| {
                screen
                    .cell(u16::try_from(r).unwrap(), u16::try_from(column).unwrap())
                    .is_some_and(|c| c.bgcolor() == vt100::Color::Default)
            })
            .expect("a line between the rows");
        let gap_row = u16::try_from(tile_top).unwrap();
        let blank = (0..cols).all(|c| {
            screen
                .cell(gap_row, c)
                .is_some_and(|cell| cell.bgcolor() == vt100::Color::Default)
        });
        assert!(blank, "{rows}x{cols}: row {gap_row} is not a gap");
    }
    let ((small, small_left), (large, large_left)) = (heights[0], heights[1]);
    assert!(large > small, "a larger board at 120x40: {heights:?}");
    assert!(large_left > small_left, "centred further in: {heights:?}");
}

#[test]
fn a_3x3_and_a_4x4_game_are_played_in_a_40x12_window() {
    for (args, start) in [("--variant mini --seed 3", b"n"), ("--seed 3", b"h")] {
        let run = Run::new();
        let bytes = in_terminal_steps(
            &run,
            "stty rows 12 cols 40; NO_COLOR=1",
            args,
            &[
                Step::Key(start),
                Step::Key(b"\x1b[D"),
                Step::Key(b"\x1b[A"),
                Step::Key(b"\x1b[C"),
                Step::Key(b"\x1b[B"),
                Step::Key(b"s"),
                Step::Key(b"q"),
                Step::Key(b"q"),
            ],
        );
        assert!(!contains(&bytes, b"Window too small"), "{args}");
        let shown = screen_before(&bytes, b"Resume the last saved game", 12, 40);
        let text = lines(&shown).join("\n");
        assert!(
            text.contains("arrows: move  b undo  ? keys  q menu"),
            "{text}"
        );
        let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
        let states = power11::text::parse_save(&saved).unwrap().states().len();
        assert!(
            states >= 3,
            "{args}: the moves were played ({states} states)"
        );
    }
}

#[test]
fn the_first_advice_shows_a_mark_at_once_and_keys_pressed_meanwhile_are_played() {
    let run = Run::new();
    // h, then a and a move at once, while the shipped network may still be loading.
    let bytes = in_terminal_steps(
        &run,
        "stty rows 24 cols 80; NO_COLOR=1",
        "--seed 3",
        &[
            Step::Key(b"h"),
            Step::Key(b"a\x1b[D"),
            Step::Wait(300),
            Step::Key(b"s"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let frames: Vec<&[u8]> = split_frames(&bytes);
    let game = frames
        .iter()
        .position(|f| contains(f, b"Moves 0"))
        .expect("the game's first frame");
    let next = frames[game + 1];
    assert!(
        contains(next, b"Thinking") || contains(next, b"Advice: "),
        "the frame after a: {}",
        String::from_utf8_lossy(next)
    );
    // The move typed while it thought was played on the board shown, and saved.
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let states = power11::text::parse_save(&saved).unwrap().states().len();
    assert_eq!(states, 2, "one move");
}

/// The frames written to the terminal: each starts with a clear of the screen.
fn split_frames(bytes: &[u8]) -> Vec<&[u8]> {
    let clear = b"\x1b[2J";
    let starts: Vec<usize> = bytes
        .windows(clear.len())
        .enumerate()
        .filter(|(_, w)| *w == clear)
        .map(|(i, _)| i)
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &start)| &bytes[start..starts.get(k + 1).copied().unwrap_or(bytes.len())])
        .collect()
}

/// The number after `label` in the last frame that shows it.
fn last_number(bytes: &[u8], label: &str) -> Vec<u64> {
    let text = String::from_utf8_lossy(bytes);
    text.match_indices(label)
        .filter_map(|(at, _)| {
            text[at + label.len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
        })
        .collect()
}

#[test]
fn best_never_drops_on_undo_and_games_not_played_by_hand_from_a_start_are_not_kept() {
    // By hand: moves until the score rises, then undo: the best shown stays.
    let run = Run::new();
    let mut steps = vec![Step::Key(b"h")];
    for _ in 0..6 {
        steps.extend([Step::Key(b"\x1b[D"), Step::Key(b"\x1b[B")]);
    }
    steps.extend([Step::Key(b"b"), Step::Key(b"b"), Step::Key(b"b")]);
    steps.extend([Step::Key(b"q"), Step::Key(b"q"), Step::Key(b"q")]);
    let bytes = in_terminal_steps(&run, "stty rows 24 cols 80; NO_COLOR=1", "--seed 3", &steps);
    let bests = last_number(&bytes, "Best ");
    let scores = last_number(&bytes, "Score ");
    assert!(scores.iter().any(|&s| s > 0), "the game scored: {scores:?}");
    assert!(
        bests.windows(2).all(|w| w[1] >= w[0]),
        "best dropped: {bests:?}"
    );
    assert!(
        scores.windows(2).any(|w| w[1] < w[0]),
        "undo lowered the score: {scores:?}"
    );
    let kept = std::fs::read_to_string(run.path("data/best-scores.txt")).unwrap();
    assert_eq!(kept, format!("power11 4 {}\n", bests.last().unwrap()));

    // The computer's game, a game with new tiles off for a while, and a game from a board file
    // (one move from 2048) leave the best scores as they were.
    let before = "power11 4 0\n";
    let arrows = || {
        [
            Step::Key(b"\x1b[D"),
            Step::Key(b"\x1b[B"),
            Step::Key(b"\x1b[C"),
        ]
    };
    let mut computer = vec![
        Step::Key(b"h"),
        Step::Key(b"p"),
        Step::Wait(1500),
        Step::Key(b"x"),
    ];
    computer.extend([Step::Key(b"q"), Step::Key(b"q"), Step::Key(b"q")]);
    let mut tiles_off = vec![Step::Key(b"h"), Step::Key(b"t")];
    tiles_off.extend(arrows());
    tiles_off.push(Step::Key(b"t"));
    tiles_off.extend(arrows());
    tiles_off.extend([Step::Key(b"q"), Step::Key(b"q"), Step::Key(b"q")]);
    let near_win = format!("--board {}", fixture_arg("near_win.txt"));
    let board = vec![Step::Key(b"\x1b[D"), Step::Key(b"\r"), Step::Key(b"q")];
    for (how, args, steps) in [
        ("p", "--seed 3 --player expectimax --delay 20", computer),
        ("t", "--seed 3", tiles_off),
        ("--board", near_win.as_str(), board),
    ] {
        let run = Run::new();
        std::fs::create_dir(run.path("data")).unwrap();
        std::fs::write(run.path("data/best-scores.txt"), before).unwrap();
        let bytes = in_terminal_steps(&run, "stty rows 24 cols 80; NO_COLOR=1", args, &steps);
        assert!(
            contains(&bytes, b"(not counted)"),
            "{how}: the screen says so"
        );
        let scores = last_number(&bytes, "Score ");
        assert!(
            scores.iter().any(|&s| s > 0),
            "{how}: it scored: {scores:?}"
        );
        let after = std::fs::read_to_string(run.path("data/best-scores.txt")).unwrap();
        assert_eq!(after, before, "{how}");
    }
}
