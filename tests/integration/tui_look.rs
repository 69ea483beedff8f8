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
    // Frames are differences from the one before: the screen before a frame is everything
    // written up to that frame's update.
    let begin = power11::tui::BEGIN_UPDATE;
    let cut = bytes[..end]
        .windows(begin.len())
        .rposition(|w| w == begin)
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
                // The board's: one on a background of its own where the number also shows in
                // the text around the board (the title's goal, the end screen's largest tile).
                let style = (cell.fgcolor(), cell.bgcolor(), cell.bold());
                let kept = styles.entry(value).or_insert(style);
                if kept.1 == vt100::Color::Default {
                    *kept = style;
                }
            }
        }
    }
    styles
}

/// A 4x4 board of the ten values 2 to 1024 (a board file).
const TEN_VALUES: &str = "2 4 8 16\n32 64 128 256\n512 1024 0 0\n0 0 0 0\n";

#[test]
fn ten_values_take_ten_backgrounds_in_256_colours_and_nine_styles_in_8() {
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
            // Ten pairs keep 3:1 under every common palette: 512 and 1024 share one.
            assert_eq!(whole.len(), 9, "{tiles:?}");
            assert_eq!(tiles[8], tiles[9], "512 and 1024");
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
    for (rows, cols) in [(24u16, 80u16), (30, 100)] {
        let prefix =
            format!("stty rows {rows} cols {cols}; unset COLORTERM NO_COLOR; TERM=xterm-256color");
        let bytes = in_terminal_steps(&run, &prefix, "--board ten.txt", &steps);
        let shown = screen_before(&bytes, b"Resume the last saved game", rows, cols);
        let (number_rows, column) = board_geometry(&shown);
        assert_eq!(number_rows.len(), 3, "{}", lines(&shown).join("\n"));
        let pitch = number_rows[1] - number_rows[0];
        heights.push((pitch, column));
        // The line just above the second row's tiles: the board's colour across the tiles'
        // columns, no tile in it.
        let screen = shown.screen();
        let tile_top = (number_rows[0]..number_rows[1])
            .rev()
            .find(|&r| {
                screen
                    .cell(u16::try_from(r).unwrap(), u16::try_from(column).unwrap())
                    .is_some_and(|c| c.bgcolor() == BOARD_256)
            })
            .expect("a line between the rows");
        let gap_row = u16::try_from(tile_top).unwrap();
        let (_, _, first, last) = tile_box(screen);
        let blank = (first..=last).all(|c| {
            screen
                .cell(gap_row, c)
                .is_some_and(|cell| cell.bgcolor() == BOARD_256)
        });
        assert!(blank, "{rows}x{cols}: row {gap_row} is not a gap");
    }
    let ((small, small_left), (large, large_left)) = (heights[0], heights[1]);
    assert!(large > small, "a larger board at 100x30: {heights:?}");
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

/// Issue 74: advice is thought of off the thread that reads keys, so a key typed while it is
/// thought of is played on the board shown, and the advice for the board it left is dropped.
/// The player is forced to think ten minutes (`POWER11_TEST_THINK_MS`, test builds only), so
/// the order of what happens does not depend on how busy the machine is.
#[test]
fn a_key_typed_while_the_first_advice_is_thought_of_is_played_at_once() {
    let run = Run::new();
    let bytes = in_terminal_steps(
        &run,
        "stty rows 24 cols 80; NO_COLOR=1 POWER11_TEST_THINK_MS=600000",
        "--seed 3",
        &[
            Step::Key(b"h"),
            Step::Key(b"a\x1b[D"),
            Step::Key(b"s"),
            Step::Until(b"Game saved"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    assert!(
        !contains(&bytes, b"Advice: "),
        "no advice for a board no longer shown"
    );
    // The move typed while it thought was played on the board shown, and saved.
    let saved = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let states = power11::text::parse_save(&saved).unwrap().states().len();
    assert_eq!(states, 2, "one move");
}

/// The frames written to the terminal: each a synchronized update.
fn split_frames(bytes: &[u8]) -> Vec<&[u8]> {
    let clear = power11::tui::BEGIN_UPDATE;
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

/// The screen after each frame, as a terminal of `rows` x `cols` shows it.
fn screens(bytes: &[u8], rows: u16, cols: u16) -> Vec<vt100::Screen> {
    let size = |n: u16| std::num::NonZeroU16::new(n).expect("a screen has a size");
    let mut parser = vt100::Parser::new(size(rows), size(cols), 0);
    let mut shown = Vec::new();
    let end = power11::tui::END_UPDATE;
    let mut from = 0;
    for at in (0..bytes.len()).filter(|&i| bytes[i..].starts_with(end)) {
        parser.process(&bytes[from..at + end.len()]);
        from = at + end.len();
        shown.push(parser.screen().clone());
    }
    shown
}

/// The number after `label` on each screen (80x24) that shows one, in turn.
fn last_number(bytes: &[u8], label: &str) -> Vec<u64> {
    screens(bytes, 24, 80)
        .iter()
        .filter_map(|screen| {
            let text = screen.contents();
            let at = text.find(label)?;
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

/// The board's own colour behind the tiles, in 256 colours.
const BOARD_256: vt100::Color = vt100::Color::Idx(246);

/// Whether `cell` is part of a tile (in 256 colours an empty cell's too): a background of its
/// own, not the terminal's and not the board's (in 256 colours or 8).
fn on_a_tile(cell: &vt100::Cell) -> bool {
    !matches!(
        cell.bgcolor(),
        vt100::Color::Default | BOARD_256 | vt100::Color::Idx(3)
    )
}

/// The rows and columns the board's tiles cover on `screen`: (first row, last row, first
/// column, last column) of the cells with a background of their own.
fn tile_box(screen: &vt100::Screen) -> (u16, u16, u16, u16) {
    let (rows, cols) = screen.size();
    let mut found = (u16::MAX, 0, u16::MAX, 0);
    for r in 0..rows.get() {
        for c in 0..cols.get() {
            if screen.cell(r, c).is_some_and(on_a_tile) {
                found = (
                    found.0.min(r),
                    found.1.max(r),
                    found.2.min(c),
                    found.3.max(c),
                );
            }
        }
    }
    found
}

/// The rows of `screen` with a tile's colour in them.
fn tile_rows(screen: &vt100::Screen) -> Vec<u16> {
    let (rows, cols) = screen.size();
    (0..rows.get())
        .filter(|&r| (0..cols.get()).any(|c| screen.cell(r, c).is_some_and(on_a_tile)))
        .collect()
}

const COLOURS_256: &str = "unset COLORTERM NO_COLOR; TERM=xterm-256color";

/// Issue 66: the board kept its rows and columns when the unsaved-moves question came (at
/// 80x24 it dropped to smaller tiles while the question wrapped).
#[test]
fn the_board_stays_put_when_the_unsaved_moves_question_comes() {
    let run = Run::new();
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 24 cols 80; {COLOURS_256}"),
        "--seed 1 --no-animation",
        &[
            Step::Key(b"h"),
            Step::Key(b"\x1b[D"),
            Step::Key(b"q"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let shown = screens(&bytes, 24, 80);
    let asked = shown
        .iter()
        .position(|s| s.contents().contains("Moves not saved"))
        .expect("the question");
    assert_eq!(tile_box(&shown[asked - 1]), tile_box(&shown[asked]));
    assert_eq!(tile_rows(&shown[asked - 1]), tile_rows(&shown[asked]));
}

/// Issue 66: at 40x12, `t` wrapped the score line and the board lost the blank lines between
/// its rows, so that tiles of one colour merged into columns.
#[test]
fn blank_lines_stay_between_tile_rows_at_40x12_after_t() {
    let run = Run::new();
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 12 cols 40; {COLOURS_256}"),
        "--seed 1 --no-animation",
        &[
            Step::Key(b"h"),
            Step::Key(b"t"),
            Step::Key(b"\x1b[D"),
            Step::Key(b"q"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let shown = screens(&bytes, 12, 40);
    let off = shown
        .iter()
        .rposition(|s| s.contents().contains("[no new tiles]"))
        .expect("new tiles off said");
    let rows = tile_rows(&shown[off]);
    assert_eq!(rows.len(), 4, "{}", shown[off].contents());
    assert!(rows.windows(2).all(|w| w[1] == w[0] + 2), "{rows:?}");
}

/// Issue 66: every frame is one synchronized update (DEC private mode 2026), and only a new
/// window size clears the screen.
#[test]
fn every_frame_is_a_synchronized_update_and_only_a_resize_clears() {
    let run = Run::new();
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 24 cols 80; {COLOURS_256}"),
        "--seed 1 --player expectimax",
        &[
            Step::Key(b"h"),
            Step::Key(b"\x1b[D"),
            Step::Key(b"\x1b[B"),
            Step::Key(b"a"),
            Step::Wait(300),
            Step::Resize(30, 100),
            Step::Key(b"\x1b[C"),
            Step::Key(b"q"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let (begin, end) = (power11::tui::BEGIN_UPDATE, power11::tui::END_UPDATE);
    let first = bytes.windows(begin.len()).position(|w| w == begin).unwrap();
    let last = bytes.windows(end.len()).rposition(|w| w == end).unwrap() + end.len();
    let frames = split_frames(&bytes[first..last]);
    assert!(frames.len() > 5);
    for frame in &frames {
        assert!(frame.ends_with(end), "{}", String::from_utf8_lossy(frame));
        assert_eq!(frame.windows(end.len()).filter(|w| *w == end).count(), 1);
    }
    // The first frame clears the screen, and then only the resize (which the terminal may
    // report in two steps, rows then columns): none of the frames of moves and advice.
    assert!(contains(frames[0], b"\x1b[2J"));
    let advised = frames
        .iter()
        .position(|f| contains(f, b"Advice: "))
        .expect("the advice");
    let cleared: Vec<usize> = (1..frames.len())
        .filter(|&k| contains(frames[k], b"\x1b[2J"))
        .collect();
    assert!(!cleared.is_empty(), "the resize cleared the screen");
    assert!(
        cleared.iter().all(|&k| k > advised),
        "{cleared:?}, advice at {advised}"
    );
}

/// Issue 66: with `--no-animation` a move at 80x24 in 256 colours writes at most 1,200 bytes
/// (every frame was the whole screen, 3.2 KB).
#[test]
fn a_move_without_motion_writes_at_most_1200_bytes() {
    let run = Run::new();
    let mut steps = vec![Step::Key(b"h")];
    for _ in 0..8 {
        steps.extend([
            Step::Key(b"\x1b[D"),
            Step::Key(b"\x1b[B"),
            Step::Key(b"\x1b[C"),
        ]);
    }
    steps.extend([Step::Key(b"s"), Step::Key(b"q"), Step::Key(b"q")]);
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 24 cols 80; {COLOURS_256}"),
        "--seed 1 --no-animation",
        &steps,
    );
    let frames = split_frames(&bytes);
    let game = frames
        .iter()
        .position(|f| contains(f, b"Moves 0"))
        .expect("the game's first frame");
    let saved = frames
        .iter()
        .position(|f| contains(f, b"Game saved"))
        .expect("the save");
    let moves = &frames[game + 1..saved];
    assert!(moves.len() >= 10, "{} frames", moves.len());
    for (k, frame) in moves.iter().enumerate() {
        assert!(frame.len() <= 1200, "move {k}: {} bytes", frame.len());
    }
}

/// Issue 66: with motion, a move is drawn in three frames or more (the schedule's last frame
/// comes 150 ms after the key: `SCHEDULE`, checked in the unit tests, never timed here).
#[test]
fn a_move_in_motion_draws_at_least_three_frames() {
    let run = Run::new();
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 24 cols 80; {COLOURS_256}"),
        "--seed 1",
        &[
            Step::Key(b"h"),
            Step::Wait(300),
            Step::Key(b"\x1b[D"),
            Step::Wait(500),
            Step::Key(b"s"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let frames = split_frames(&bytes);
    let game = frames.iter().position(|f| contains(f, b"Moves 0")).unwrap();
    let saved = frames
        .iter()
        .position(|f| contains(f, b"Game saved"))
        .unwrap();
    let drawn = saved - game - 1;
    assert!(
        (3..=power11::tui::SCHEDULE.len()).contains(&drawn),
        "{drawn} frames"
    );
    assert!(power11::tui::SCHEDULE.last().unwrap().as_millis() <= 250);
}

/// Issue 66: the first `a` on 5x5 froze the screen for up to a second with no mark. Now
/// (issue 74) the advice is thought of off the key thread: the frame after the key is the
/// advice, or the mark that says it is being thought of (drawn once it takes 100 ms).
#[test]
fn the_first_advice_on_5x5_shows_in_the_next_frame() {
    let run = Run::new();
    let bytes = in_terminal_steps(
        &run,
        "stty rows 24 cols 80; NO_COLOR=1",
        "--seed 3 --player expectimax",
        &[
            Step::Key(b"e"),
            Step::Wait(200),
            Step::Key(b"a"),
            Step::Wait(1500),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    let frames = split_frames(&bytes);
    let game = frames.iter().position(|f| contains(f, b"Moves 0")).unwrap();
    assert!(
        contains(frames[game + 1], b"Thinking") || contains(frames[game + 1], b"Advice: "),
        "{}",
        String::from_utf8_lossy(frames[game + 1])
    );
    assert!(contains(&bytes, b"Advice: "), "the advice came");
}

/// A board file of the values 2 to 131072, 5x5.
const TO_131072: &str =
    "2 4 8 16 32\n64 128 256 512 1024\n2048 4096 8192 16384 32768\n65536 131072 0 0 0\n0 0 0 0 0\n";

/// Issue 66: in 8 colours, 32768 and up had a black background: no block on a black
/// terminal. No tile to 131072 has the terminal's own or a black background.
#[test]
fn in_8_colours_every_tile_to_131072_is_a_block() {
    let run = Run::new();
    std::fs::write(run.path("big.txt"), TO_131072).unwrap();
    let bytes = in_terminal_steps(
        &run,
        "stty rows 30 cols 100; unset COLORTERM NO_COLOR; TERM=xterm",
        "--board big.txt",
        &[Step::Key(b"q"), Step::Key(b"q")],
    );
    let shown = screen_before(&bytes, b"Resume the last saved game", 30, 100);
    let styles = tile_styles(&shown);
    for e in 1..=17 {
        let (_, bg, _) = styles
            .get(&(1u64 << e))
            .unwrap_or_else(|| panic!("{} not shown: {styles:?}", 1u64 << e));
        assert!(
            !matches!(bg, vt100::Color::Default | vt100::Color::Idx(0)),
            "{}: {bg:?}",
            1u64 << e
        );
    }
}

/// xterm's colour of a cell colour (the terminal's own: `own`).
fn xterm_rgb(color: vt100::Color, own: (u8, u8, u8)) -> (u8, u8, u8) {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match color {
        vt100::Color::Default => own,
        vt100::Color::Rgb(r, g, b) => (r, g, b),
        vt100::Color::Idx(i) if i >= 232 => {
            let v = 8 + 10 * (i - 232);
            (v, v, v)
        }
        vt100::Color::Idx(i) if i >= 16 => {
            let i = i - 16;
            (
                LEVELS[usize::from(i / 36)],
                LEVELS[usize::from(i / 6 % 6)],
                LEVELS[usize::from(i % 6)],
            )
        }
        vt100::Color::Idx(i) => panic!("a system colour: {i}"),
    }
}

/// WCAG's contrast ratio, computed here.
fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let lum = |(r, g, b): (u8, u8, u8)| {
        let lin = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.040_45 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// Issue 66: digits fell below 3:1 (16 at 2.04:1 in 256 colours, 2.23:1 in 24-bit).
#[test]
fn digits_reach_3_to_1_for_2_to_2048_in_256_colours_and_24_bit() {
    let run = Run::new();
    std::fs::write(
        run.path("eleven.txt"),
        "2 4 8 16\n32 64 128 256\n512 1024 2048 0\n0 0 0 0\n",
    )
    .unwrap();
    for env in [
        "unset COLORTERM NO_COLOR; TERM=xterm-256color",
        "unset NO_COLOR; COLORTERM=truecolor TERM=xterm-256color",
    ] {
        let bytes = in_terminal_steps(
            &run,
            &format!("stty rows 24 cols 80; {env}"),
            "--board eleven.txt",
            &[Step::Key(b"q"), Step::Key(b"q")],
        );
        let shown = screen_before(&bytes, b"Resume the last saved game", 24, 80);
        let styles = tile_styles(&shown);
        for e in 1..=11 {
            let (fg, bg, _) = styles[&(1u64 << e)];
            let ratio = contrast(xterm_rgb(fg, (255, 255, 255)), xterm_rgb(bg, (0, 0, 0)));
            assert!(ratio >= 3.0, "{env}: {}: {ratio:.2}", 1u64 << e);
        }
    }
}

/// Issue 66: a 4x4 game at 60x20 was a 27x7 board of one-line tiles with 13 blank rows.
#[test]
fn a_4x4_board_at_60x20_has_tiles_at_least_two_lines_tall() {
    let run = Run::new();
    std::fs::write(run.path("ten.txt"), TEN_VALUES).unwrap();
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 20 cols 60; {COLOURS_256}"),
        "--board ten.txt",
        &[Step::Key(b"q"), Step::Key(b"q")],
    );
    let shown = screen_before(&bytes, b"Resume the last saved game", 20, 60);
    let rows = tile_rows(shown.screen());
    // Four rows of tiles, each at least two lines.
    let mut bands = 1;
    for pair in rows.windows(2) {
        if pair[1] != pair[0] + 1 {
            bands += 1;
        }
    }
    assert_eq!(bands, 4, "{rows:?}");
    assert!(rows.len() >= 8, "{rows:?}");
}

/// Issue 66 (regression, seen failing first): a hand game showing Best 60 showed
/// "Best 0 (not counted)" after `p` or `t`. Across `t`, `b` and `p` the best shown never drops.
#[test]
fn best_on_screen_never_drops_across_p_t_and_b() {
    let run = Run::new();
    let mut steps = vec![Step::Key(b"h")];
    for _ in 0..6 {
        steps.extend([Step::Key(b"\x1b[D"), Step::Key(b"\x1b[B")]);
    }
    steps.extend([
        Step::Key(b"t"),
        Step::Key(b"\x1b[D"),
        Step::Key(b"b"),
        Step::Key(b"b"),
        Step::Key(b"t"),
        Step::Key(b"p"),
        Step::Wait(800),
        Step::Key(b"x"),
        Step::Key(b"b"),
        Step::Key(b"q"),
        Step::Key(b"q"),
        Step::Key(b"q"),
    ]);
    let bytes = in_terminal_steps(
        &run,
        "stty rows 24 cols 80; NO_COLOR=1",
        "--seed 3 --player expectimax --delay 20 --no-animation",
        &steps,
    );
    let bests = last_number(&bytes, "Best ");
    assert!(bests.iter().any(|&b| b > 0), "the game scored: {bests:?}");
    assert!(
        bests.windows(2).all(|w| w[1] >= w[0]),
        "best dropped: {bests:?}"
    );
    // The screens that say the game no longer counts show the best it reached by hand.
    let uncounted: Vec<u64> = screens(&bytes, 24, 80)
        .iter()
        .map(vt100::Screen::contents)
        .filter(|text| text.contains("(not counted)"))
        .filter_map(|text| {
            let at = text.find("Best ")? + "Best ".len();
            text[at..].split(' ').next()?.parse().ok()
        })
        .collect();
    assert!(!uncounted.is_empty(), "the screen says so");
    assert!(uncounted.iter().all(|&b| b > 0), "{uncounted:?}");
    // What the game reached by hand is what is recorded.
    let kept = std::fs::read_to_string(run.path("data/best-scores.txt")).unwrap();
    assert_eq!(kept, format!("power11 4 {}\n", bests.last().unwrap()));
}

/// Issue 66: digits sat above the middle of two-line tiles (a 6x6 game at 80x24 had 8x2
/// tiles, the number on the upper line). They are drawn as half a line, the number's line and
/// half a line, the half rows half the tile's colour and half the board's.
#[test]
fn two_line_tiles_have_their_digits_between_half_rows_of_their_colour() {
    let run = Run::new();
    std::fs::write(
        run.path("six.txt"),
        "2 4 8 16 32 64\n0 0 0 0 0 0\n0 0 0 0 0 0\n0 0 0 0 0 0\n0 0 0 0 0 0\n0 0 0 0 0 128\n",
    )
    .unwrap();
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 24 cols 80; {COLOURS_256}"),
        "--board six.txt --variant classic --size 6",
        &[Step::Key(b"q"), Step::Key(b"q")],
    );
    let shown = screen_before(&bytes, b"Resume the last saved game", 24, 80);
    let screen = shown.screen();
    let text = lines(&shown);
    for value in ["2", "16", "128"] {
        let (row, line) = text
            .iter()
            .enumerate()
            .find(|(_, l)| l.split_whitespace().any(|w| w == value))
            .unwrap_or_else(|| panic!("{value} shown: {}", text.join("\n")));
        let col = line
            .find(&format!(" {value} "))
            .expect("a number between blanks")
            + 1;
        let (row, col) = (u16::try_from(row).unwrap(), u16::try_from(col).unwrap());
        let tile = screen.cell(row, col).unwrap().bgcolor();
        assert_ne!(tile, vt100::Color::Default, "{value}: a block");
        // Half the board's colour (the character's) and half the tile's (the background).
        for (r, half) in [(row - 1, "▀"), (row + 1, "▄")] {
            let cell = screen.cell(r, col).unwrap();
            assert_eq!(
                (cell.contents(), cell.fgcolor(), cell.bgcolor()),
                (half, BOARD_256, tile),
                "{value}: row {r}\n{}",
                text.join("\n")
            );
        }
    }
}

/// Issue 74: an 8x8 game at 60x20 became "Window too small: needs 63x13" after a merge to a
/// 5-digit tile, and undo no longer worked. The board keeps its place through the merge (the
/// number written short) and the undo.
#[test]
fn an_8x8_game_at_60x20_stays_playable_through_a_merge_and_undo() {
    let run = Run::new();
    let mut rows = vec![vec!["0"; 8]; 8];
    rows[0][0] = "8192";
    rows[0][1] = "8192";
    rows[7][7] = "2";
    let board: String = rows.iter().map(|r| r.join(" ") + "\n").collect();
    std::fs::write(run.path("eight.txt"), board).unwrap();
    let bytes = in_terminal_steps(
        &run,
        &format!("stty rows 20 cols 60; {COLOURS_256}"),
        "--board eight.txt --variant classic --size 8 --goal none --no-animation",
        &[
            Step::Key(b"\x1b[D"),
            Step::Until(b"16k"),
            Step::Key(b"b"),
            Step::Until(b"Moves 0"),
            Step::Key(b"q"),
            Step::Key(b"q"),
            Step::Key(b"q"),
        ],
    );
    assert!(
        !contains(&bytes, b"too small"),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    let shown = screens(&bytes, 20, 60);
    let merged = shown
        .iter()
        .position(|s| s.contents().contains("16k"))
        .expect("the merged tile, written short");
    let undone = shown[merged..]
        .iter()
        .position(|s| s.contents().contains("8192"))
        .map(|k| merged + k)
        .expect("the undo drawn");
    assert!(shown[undone].contents().contains("Moves 0"));
    let first = shown
        .iter()
        .position(|s| s.contents().contains("8192"))
        .expect("the start");
    assert_eq!(tile_box(&shown[first]), tile_box(&shown[merged]));
    assert_eq!(tile_box(&shown[first]), tile_box(&shown[undone]));
    assert_eq!(tile_rows(&shown[first]), tile_rows(&shown[merged]));
}
