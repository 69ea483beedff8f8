//! Saves edited by hand into a history no play could make: they resume (the file is the
//! user's), say once which state breaks a rule, and set no best score.

use crate::common::{Run, framed};

/// A state of a save, as the assignment writes it: `Score: N`, then the board (no newline
/// after it: a save's last state has none).
fn state(score: u64, rows: [[u64; 4]; 4]) -> String {
    let rows: Vec<Vec<u64>> = rows.iter().map(|row| row.to_vec()).collect();
    format!("Score: {score}\n{}", framed(&rows).trim_end())
}

/// The best score recorded for Power-11 4x4 games, if any.
fn best_4x4(run: &Run) -> Option<String> {
    let text = std::fs::read_to_string(run.path("data").join("best-scores.txt")).ok()?;
    text.lines()
        .find(|line| line.starts_with("power11 4 "))
        .map(str::to_string)
}

/// Item 3: a save edited to hold a start, then four 2048s scored 999999, then a small board
/// resumed as is; `b` stepped into the forged state, `YOU WON WITH A SCORE OF 999999` was
/// printed and recorded as the best score. It still resumes, but says so and records nothing.
#[test]
fn a_forged_history_resumes_but_sets_no_best_score() {
    let run = Run::new();
    let start = state(0, [[2, 0, 0, 0], [0; 4], [0; 4], [0, 0, 0, 2]]);
    let forged = state(
        999_999,
        [[2048, 2048, 0, 0], [2048, 2048, 0, 0], [0; 4], [0; 4]],
    );
    let small = state(4, [[4, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
    std::fs::write(
        run.path("power11.saved"),
        format!("{start}\n{forged}\n{small}"),
    )
    .unwrap();
    let ran = run.run(&["--seed", "1"], "r\nb\nq\nq\n");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains(
            "The saved game's state 2 of 3 is not one the rules can make (no move slides the \
             tiles to this board): it resumes as it is, and does not count for the best score.\n"
        ),
        "{}",
        ran.stdout
    );
    assert_eq!(
        ran.stdout.matches("is not one the rules can make").count(),
        1,
        "said once"
    );
    assert!(ran.stdout.contains("YOU WON WITH A SCORE OF 999999"));
    assert_eq!(best_4x4(&run), None);
}

/// Item 3: a one-state save of `Score: 20000` over two 2s recorded 20004 after a move.
#[test]
fn a_score_its_tiles_cannot_add_up_to_sets_no_best_score() {
    let run = Run::new();
    std::fs::write(
        run.path("power11.saved"),
        state(20_000, [[2, 0, 0, 0], [0; 4], [0; 4], [0, 0, 0, 2]]),
    )
    .unwrap();
    let ran = run.run(&["--seed", "1"], "r\nd\nl\nq\nq\n");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains(
            "The saved game's state 1 of 1 is not one the rules can make (a score of 20000, more \
             than its tiles can have earned: 0 at most)"
        ),
        "{}",
        ran.stdout
    );
    assert_eq!(best_4x4(&run), None);
    // A save power11 wrote itself resumes without a word and counts.
    let run = Run::new();
    let ran = run.run(&["--seed", "1"], "h\nl\nd\ns\nq\nq\n");
    assert_eq!(ran.code, 0);
    let ran = run.run(&["--seed", "2"], "r\nl\nu\nq\nq\n");
    assert!(
        !ran.stdout.contains("not one the rules can make"),
        "{}",
        ran.stdout
    );
    assert!(best_4x4(&run).is_some());
}

/// Regression (hostile users, round 5): a save of two 2^62 tiles at score 0 resumed without
/// a word (only a score too high was caught). A score too low for its tiles is caught too.
#[test]
fn a_score_too_low_for_its_tiles_is_said_and_sets_no_best_score() {
    let run = Run::new();
    let huge = 1u64 << 62;
    std::fs::write(
        run.path("power11.saved"),
        state(0, [[huge, huge, 0, 0], [0; 4], [0; 4], [0; 4]]),
    )
    .unwrap();
    let ran = run.run(&["--seed", "1"], "r\nd\nq\nq\n");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.contains(
            "The saved game's state 1 of 1 is not one the rules can make (a score of 0, less \
             than its tiles must have earned: "
        ),
        "{}",
        ran.stdout
    );
    assert_eq!(best_4x4(&run), None);
}
