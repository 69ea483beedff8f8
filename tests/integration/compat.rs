//! Power-11 compatibility (issue: files and input the way other Power-11 programs write and read
//! them), through the real binary, asserted the way `assert_cmd` users do, with `predicates`.

use crate::common::{MENU, Run, fixture, power11, screens};
use power11::Board;
use predicates::prelude::*;

/// A save file read the way the other Power-11 programs read one: states one after the other,
/// each a score line and a framed board, oldest first; the game resumes at the last one. It
/// knows nothing of power11's parser.
fn reference_reader(text: &str) -> Vec<(i128, Vec<Vec<u64>>)> {
    let mut states = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(score) = lines.next() {
        let score: i128 = score.trim_start_matches("Score:").trim().parse().unwrap();
        assert!(lines.next().unwrap().starts_with('#'), "top frame");
        let mut rows = Vec::new();
        for line in lines.by_ref() {
            if !line.contains('|') {
                break;
            }
            let row = line
                .trim_matches('#')
                .split('|')
                .map(|cell| cell.trim().parse().unwrap_or(0))
                .collect();
            rows.push(row);
        }
        states.push((score, rows));
    }
    states
}

fn values(board: &Board) -> Vec<Vec<u64>> {
    board
        .values()
        .into_iter()
        .map(|row| row.into_iter().map(|v| v as u64).collect())
        .collect()
}

#[test]
fn our_save_resumes_in_a_reader_that_takes_the_last_state() {
    let run = Run::new();
    let moves = "l\nu\nr\nd\n".repeat(5);
    let ran = power11(&run, &["--seed", "3"], &format!("h\n{moves}s\nq\nq\n"))
        .assert()
        .success()
        .stdout(predicate::str::contains("Game saved to power11.saved."));
    let stdout = String::from_utf8(ran.get_output().stdout.clone()).unwrap();
    let shown = screens(&stdout);
    let text = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    assert!(!text.ends_with('\n'), "no newline after the last row");
    let states = reference_reader(&text);
    // The reader resumes at our current state and undoes back to our start.
    let (score, board) = shown[20];
    assert_eq!(states.last().unwrap(), &(score, values(&board)));
    let (score, board) = shown[0];
    assert_eq!(states.first().unwrap(), &(score, values(&board)));
    let mut changed: Vec<_> = shown[..=20].to_vec();
    changed.dedup();
    assert_eq!(
        states.len(),
        changed.len(),
        "one state per move that changed the game"
    );
}

#[test]
fn a_chronological_16_state_file_resumes_at_its_last_state_and_undoes_to_its_first() {
    let run = Run::new();
    std::fs::copy(
        fixture("compat/chronological_16.saved"),
        run.path("power11.saved"),
    )
    .unwrap();
    let ran = power11(&run, &[], &format!("r\n{}", "b\n".repeat(16)))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Nothing to undo: this is the start of the game.",
        ));
    let stdout = String::from_utf8(ran.get_output().stdout.clone()).unwrap();
    let scores: Vec<i128> = screens(&stdout).iter().map(|s| s.0).collect();
    let expected: Vec<i128> = (0..16).rev().map(|k| 4 * k).chain([0]).collect();
    assert_eq!(scores, expected);
}

/// Every shape of save file the other programs write: the same three-state game, each in
/// another shape, resumes at its last state (score 4) with its whole history.
#[test]
fn save_files_of_the_other_programs_resume_with_their_history() {
    let shapes = [
        "zeros_for_empty.saved",
        "bare_scores.saved",
        "short_frame.saved",
        "left_aligned.saved",
        "wide_cells.saved",
        "pipes_inside_frame.saved",
        "no_final_newline.saved",
        "final_newline.saved",
        "crlf.saved",
        "blank_lines_between.saved",
        "blank_after_score.saved",
        "indented_frames.saved",
        "newest_first.saved",
    ];
    let current = "Score: 4\n#####################\n#   4|    |    |    #\n#    |   2|    |    #\n#   2|    |    |    #\n#    |    |    |    #\n#####################\n";
    let start = "Score: 0\n#####################\n#    |    |    |   2#\n#    |    |    |    #\n#    |    |    |    #\n#    |    |    |   2#\n#####################\n";
    for shape in shapes {
        let run = Run::new();
        let path = fixture(&format!("compat/{shape}"));
        std::fs::copy(&path, run.path("power11.saved")).unwrap();
        let ran = power11(&run, &[], "r\nb\nb\nb\n")
            .assert()
            .success()
            .stdout(predicate::str::starts_with(format!("{MENU}{current}")))
            .stdout(predicate::str::contains(format!(
                "Nothing to undo: this is the start of the game.\n{start}"
            )));
        let stdout = String::from_utf8(ran.get_output().stdout.clone()).unwrap();
        let scores: Vec<i128> = screens(&stdout).iter().map(|s| s.0).collect();
        assert_eq!(scores, vec![4, 4, 0, 0], "{shape}");
        assert_eq!(
            std::fs::read(run.path("power11.saved")).unwrap(),
            std::fs::read(&path).unwrap(),
            "{shape}: reading never changes the file"
        );
    }
}

#[test]
fn a_resumed_game_saved_again_is_written_oldest_first() {
    let run = Run::new();
    std::fs::copy(
        fixture("compat/newest_first.saved"),
        run.path("power11.saved"),
    )
    .unwrap();
    power11(&run, &[], "r\ns\n").assert().success();
    let text = std::fs::read_to_string(run.path("power11.saved")).unwrap();
    let scores: Vec<i128> = reference_reader(&text).iter().map(|s| s.0).collect();
    assert_eq!(scores, vec![0, 4, 4]);
    let ours = std::fs::read_to_string(fixture("compat/no_final_newline.saved")).unwrap();
    assert_eq!(
        text, ours,
        "the file power11 writes is the other programs' format"
    );
}

#[test]
fn board_files_of_the_other_seeds() {
    let expected_3x3 = "Score: 0\n################\n#   2|    |    #\n#    |   4|    #\n#    |    |   8#\n################\n";
    for file in [
        "nine_lines_3x3.txt",
        "size_then_nine_lines.txt",
        "size_line_3.txt",
    ] {
        let board = fixture(&format!("compat/{file}"));
        power11(&Run::new(), &["--board", board.to_str().unwrap()], "")
            .assert()
            .success()
            .stdout(predicate::str::starts_with(expected_3x3));
    }
    let run = Run::new();
    std::fs::write(run.path("eight.txt"), "2\n0\n0\n0\n0\n0\n0\n0\n").unwrap();
    power11(&run, &["--board", "eight.txt"], "")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "eight.txt:8: 8 numbers, one per line",
        ));
}

#[test]
fn damaged_files_are_refused_with_their_line_and_left_untouched() {
    let good = std::fs::read_to_string(fixture("compat/no_final_newline.saved")).unwrap();
    let cases = [
        (
            good.replacen("#   2|    |    |    #", "#   2|    |    #", 1),
            "power11.saved:12: expected 4 cells, found 3",
        ),
        (
            good.replacen("   4|", "   6|", 1),
            "power11.saved:17: 6 is not a power of two >= 2",
        ),
        (
            good.replacen("Score: 4", "Score: \u{1b}[2J4", 1),
            "power11.saved:8: bad score '^[[2J4': expected a whole number",
        ),
        (
            good.replacen("Score: 4", "Score: 4x", 1),
            "power11.saved:8: bad score '4x': expected a whole number",
        ),
        (
            format!("{good}\nhello"),
            "power11.saved:22: expected a 'Score: N' line, found 'hello'",
        ),
        (
            format!(
                "{good}\nScore: 8\n################\n#   2|    |    #\n#    |    |    #\n#    |    |    #\n################"
            ),
            "power11.saved:23: this board is 3x3, the first one is 4x4",
        ),
        (
            // Regression: this said "power11.saved:23: the board is not closed", a line past
            // the end of the file, about a board that is not there.
            format!("{good}\nScore: 8"),
            "power11.saved:22: a score with no board after it",
        ),
    ];
    for (text, message) in cases {
        let run = Run::new();
        std::fs::write(run.path("power11.saved"), &text).unwrap();
        power11(&run, &[], "r\nq\n")
            .assert()
            .success()
            .stdout(predicate::str::contains(format!(
                "Cannot resume: {message}\n"
            )));
        assert_eq!(
            std::fs::read_to_string(run.path("power11.saved")).unwrap(),
            text
        );
    }
}

#[test]
fn the_end_of_game_prompt_takes_any_line_a_blank_one_too() {
    let win = fixture("near_win.txt");
    power11(
        &Run::new(),
        &["--board", win.to_str().unwrap(), "--seed", "1"],
        "l\n\nq\n",
    )
    .assert()
    .success()
    .stdout(predicate::str::contains(
        "Press Enter to return to the menu.\nWelcome to Power-11!",
    ))
    .stdout(predicate::str::ends_with(MENU));
}

#[test]
fn newest_first_is_told_by_tile_sums_then_scores() {
    let board = |cells: &[u8]| Board::from_exponents(3, cells).unwrap();
    let state = |score, cells: &[u8]| power11::Snapshot {
        board: board(cells),
        score,
    };
    let growing = [
        state(0, &[1, 0, 0, 0, 0, 0, 0, 0, 1]),
        state(4, &[2, 1, 0, 0, 0, 0, 0, 0, 0]),
    ];
    assert!(!power11::text::newest_first(&growing));
    let mut shrinking = growing;
    shrinking.reverse();
    assert!(power11::text::newest_first(&shrinking));
    // No spawns and +1/-1 scoring: equal sums, and scores that tell nothing either way.
    let flat = [
        state(1, &[1, 0, 0, 0, 0, 0, 0, 0, 0]),
        state(1, &[0, 0, 1, 0, 0, 0, 0, 0, 0]),
    ];
    assert!(
        !power11::text::newest_first(&flat),
        "undecided files are oldest first"
    );
    // A stuck board under +1/-1 scoring: each try costs a point, which tells nothing.
    let stuck_board = [1, 2, 1, 2, 1, 2, 1, 2, 1];
    let stuck = [state(0, &stuck_board), state(-1, &stuck_board)];
    assert!(!power11::text::newest_first(&stuck));
}
