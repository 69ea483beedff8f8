//! The text format: how the game prints boards, screens and messages, and how save files and
//! board files are read back. This module is the only one that knows what a board looks like on
//! screen; the line console and autoplay compose their output from it.

pub mod colours;
pub mod keys;
mod parse;
mod render;

/// The narrowest a cell is printed.
pub const MIN_CELL_WIDTH: usize = 4;

#[cfg(feature = "cli")]
pub(crate) use parse::lines_of;
pub use parse::{
    ParseError, Problem, newest_first, parse_board_file, parse_save, parse_save_as_listed,
};
pub use render::{
    MAX_SAVE_BYTES, advice_line, cell_width, end_message, first_saved, render_board,
    render_end_screen, render_game_screen, render_menu, render_save, render_scored, render_state,
    state_len, states_a_save_holds, write_save_to,
};

/// `c` as it can be shown on a terminal: control characters in caret notation (`^[` for ESC,
/// `^@` for NUL), so that echoing a key never sends the terminal a control sequence; other
/// control characters and the bidirectional controls (which would reorder the rest of the
/// line, as U+202E does) as `\u{...}`.
pub fn visible(c: char) -> String {
    match c {
        '\u{0}'..='\u{1f}' => format!("^{}", char::from(c as u8 + 64)),
        '\u{7f}' => "^?".to_string(),
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            c.escape_unicode().to_string()
        }
        c if c.is_control() => c.escape_unicode().to_string(),
        c => c.to_string(),
    }
}

/// `text` as it can be shown on a terminal or a page: each character as [`visible`] shows it.
pub fn visible_text(text: &str) -> String {
    text.chars().map(visible).collect()
}

/// At most 30 characters of `text`, for messages that quote input, control characters shown
/// in caret notation (a damaged file must not send the terminal escape sequences).
pub(crate) fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(30).map(visible).collect();
    if text.chars().count() > 30 {
        out.push_str("...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::board::Board;
    use crate::model::direction::Direction;
    use crate::model::game::{Snapshot, Timeline};
    use crate::model::rules::Rules;
    use crate::session::AdviceReport;

    /// Hostile-user item 11: the advice line gives a margin in a player's words, never the
    /// search's ratings.
    #[test]
    fn advice_gives_a_margin_in_words() {
        let rules = Rules::classic();
        let line = |value: f32, other: f32| {
            let advice = crate::players::Advice {
                direction: Direction::Left,
                value,
                runner_up: Some((Direction::Up, other)),
                wins: false,
                depth: 3,
            };
            advice_line(&AdviceReport::Search(Some(advice)), &rules)
        };
        let ahead = "Advice: l (Left): looking 3 move(s) ahead,";
        for ((value, other), words) in [
            ((1_000_000.2, 1_000_000.0), "as good as"),
            ((1_000_000.0, 999_000.0), "slightly better than"),
            ((1_000_000.0, 950_000.0), "better than"),
            ((1_000_000.0, 500_000.0), "clearly better than"),
        ] {
            assert_eq!(line(value, other), format!("{ahead} {words} u (Up)."));
        }
    }

    const EXAMPLE: &str = "\
Score: 4
#####################
#    |    |    |    #
#    |    |   2|    #
#    |    |    |    #
#   4|   4|    |    #
#####################
";

    fn example_board() -> Board {
        Board::from_values(&[
            vec![0, 0, 0, 0],
            vec![0, 0, 2, 0],
            vec![0; 4],
            vec![4, 4, 0, 0],
        ])
        .unwrap()
    }

    #[test]
    fn advice_when_every_other_move_loses_counts_moves_as_its_siblings_do() {
        use crate::players::Advice;
        let advice = |depth| {
            advice_line(
                &AdviceReport::Search(Some(Advice {
                    direction: Direction::Left,
                    value: 5.0,
                    runner_up: Some((Direction::Up, 0.0)),
                    wins: false,
                    depth,
                })),
                &Rules::classic(),
            )
        };
        assert_eq!(
            advice(1),
            "Advice: l (Left): every other move loses within 1 move(s)."
        );
        assert_eq!(
            advice(3),
            "Advice: l (Left): every other move loses within 3 move(s)."
        );
    }

    #[test]
    fn renders_the_issue_example_exactly() {
        let state = Snapshot {
            board: example_board(),
            score: 4,
        };
        assert_eq!(render_state(&state), EXAMPLE);
    }

    #[test]
    fn wide_tiles_widen_every_cell() {
        let b = Board::from_values(&[vec![131_072, 0, 0], vec![0; 3], vec![0, 0, 2]]).unwrap();
        let text = render_board(&b);
        assert!(
            text.starts_with("######################\n#131072|      |      #\n"),
            "{text}"
        );
        assert_eq!(parse_board_file(&text).unwrap().current().board, b);
    }

    #[test]
    fn save_round_trips() {
        let a = Snapshot {
            board: example_board(),
            score: 4,
        };
        let mut start = Board::empty(4).unwrap();
        start.set(3, 0, 2);
        start.set(3, 1, 2);
        let b = Snapshot {
            board: start,
            score: 0,
        };
        let mut timeline = Timeline::new(b);
        timeline.push(a).unwrap();
        let text = render_save(&timeline);
        assert!(text.starts_with("Score: 0\n"), "the start comes first");
        assert!(
            text.ends_with(EXAMPLE.trim_end()),
            "the current state last, with no final newline"
        );
        assert_eq!(parse_save(&text).unwrap(), timeline);
        assert_eq!(parse_save(&text.replace('\n', "\r\n")).unwrap(), timeline);
        assert_eq!(parse_save(&text.replace('\n', "\r")).unwrap(), timeline);
        // Regression (review): CR CR LF (a CRLF file converted twice) reads as before.
        assert_eq!(parse_save(&text.replace('\n', "\r\r\n")).unwrap(), timeline);
    }

    fn save_error(text: &str) -> ParseError {
        parse_save(text).unwrap_err()
    }

    #[test]
    fn save_errors_name_line_and_problem() {
        let five = EXAMPLE.replace("#    |    |   2|    #", "#    |    |   2|    |    #");
        assert_eq!(
            save_error(&five).to_string(),
            "line 4: expected 4 cells, found 5"
        );
        let three = EXAMPLE.replace("#    |    |   2|    #", "#    |    |   2     #");
        assert_eq!(
            save_error(&three).to_string(),
            "line 4: expected 4 cells, found 3"
        );
        let bad_cell = EXAMPLE.replace("   2|", "   3|");
        assert_eq!(
            save_error(&bad_cell).to_string(),
            "line 4: 3 is not a power of two >= 2"
        );
        let bad_score = EXAMPLE.replace("Score: 4", "Score: four");
        assert_eq!(
            save_error(&bad_score).to_string(),
            "line 1: bad score 'four': expected a whole number"
        );
        // Regression (hostile-user review): a whole number too large was "not a whole number".
        let huge = EXAMPLE.replace("Score: 4", &format!("Score: {}", "9".repeat(45)));
        assert_eq!(
            save_error(&huge).to_string(),
            format!(
                "line 1: bad score '{}...': a whole number out of a score's range (-2^127 to 2^127 - 1)",
                "9".repeat(30)
            )
        );
        let no_score = EXAMPLE.replace("Score: 4\n", "");
        assert!(matches!(
            save_error(&no_score).problem,
            Problem::ExpectedScore(_)
        ));
        let garbage = format!("{EXAMPLE}hello\n");
        assert_eq!(save_error(&garbage).line, 8);
        let truncated = EXAMPLE.lines().take(4).collect::<Vec<_>>().join("\n") + "\n";
        assert_eq!(save_error(&truncated).problem, Problem::MissingBottomFrame);
        // At the board's top frame, not a line past the end of the file.
        assert_eq!(save_error(&truncated).line, 2);
        // A score with no board is said to be one, at its own line; blank lines between a
        // score and its board, and an indented board, are read.
        let last_alone = format!("{EXAMPLE}Score: 8\n\n");
        assert_eq!(
            save_error(&last_alone).to_string(),
            "line 8: a score with no board after it"
        );
        let spaced = EXAMPLE.replace("Score: 4\n", "Score: 4\n\n\n");
        let indented = EXAMPLE.replace("\n#", "\n   #");
        for text in [spaced, indented] {
            assert_eq!(parse_save(&text).unwrap().current().board, example_board());
        }
        assert_eq!(save_error("").problem, Problem::Empty);
    }

    #[test]
    fn a_nine_by_nine_board_is_a_size_not_a_miscount() {
        let row = format!("#{}#", ["   2"; 9].join("|"));
        let frame = "#".repeat(row.len());
        let text = format!(
            "Score: 0\n{frame}\n{}{frame}\n",
            format!("{row}\n").repeat(9)
        );
        assert_eq!(
            save_error(&text).to_string(),
            "line 11: board size 9 is not between 3 and 8"
        );
    }

    #[test]
    fn mixed_sizes_in_a_save_are_refused() {
        let small = Snapshot {
            board: Board::from_values(&[vec![2, 0, 0], vec![0; 3], vec![0; 3]]).unwrap(),
            score: 0,
        };
        let big = Snapshot {
            board: example_board(),
            score: 4,
        };
        let err = save_error(&format!("{}{}", render_state(&big), render_state(&small)));
        assert_eq!(
            (err.line, err.problem),
            (
                9,
                Problem::MixedSizes {
                    expected: 4,
                    found: 3
                }
            )
        );
    }

    #[test]
    fn board_file_number_grid_with_blanks_or_commas() {
        let b = parse_board_file("0 0 0 0\n0 0 2 0\n0,0,0,0\n4, 4, 0, 0\n").unwrap();
        assert_eq!(
            b,
            Timeline::new(Snapshot {
                board: example_board(),
                score: 0
            })
        );
        let sized = parse_board_file("4\n0 0 0 0\n0 0 2 0\n0 0 0 0\n4 4 0 0\n").unwrap();
        assert_eq!(sized.current().board, example_board());
        // Regression: a size line of 3 (or 5, 6, 7) was read as a tile and refused.
        let three = parse_board_file("3\n2 0 0\n0 0 0\n0 0 4\n").unwrap();
        assert_eq!(three.current().board.values()[2], vec![0, 0, 4]);
        let err = parse_board_file("5\n2 0 0\n0 0 0\n0 0 4\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: expected 5 rows of 5 cells, found 3 rows"
        );
        // n*n numbers on one line, and lines that end in a lone CR (old Mac files).
        let one_line = parse_board_file("2 0 0 0 4 0 0 0 8\n").unwrap();
        assert_eq!(
            one_line.current().board.values(),
            vec![vec![2, 0, 0], vec![0, 4, 0], vec![0, 0, 8]]
        );
        let sized_line = parse_board_file("3\n2 0 0 0 4 0 0 0 8").unwrap();
        assert_eq!(sized_line, one_line);
        let cr = parse_board_file("0 0 0 0\r0 0 2 0\r0 0 0 0\r4 4 0 0\r").unwrap();
        assert_eq!(cr.current().board, example_board());
        let err = parse_board_file("1\n2 0 0\n0 0 0\n0 0 4\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: board size 1 is not between 3 and 8"
        );
    }

    #[test]
    fn board_file_framed_with_or_without_score() {
        assert_eq!(parse_board_file(EXAMPLE).unwrap().current().score, 4);
        let bare = EXAMPLE.replace("Score: 4\n", "");
        assert_eq!(
            parse_board_file(&bare).unwrap().current().board,
            example_board()
        );
    }

    #[test]
    fn echoed_text_cannot_reorder_or_control_the_terminal() {
        assert_eq!(visible('\u{1b}'), "^[");
        assert_eq!(visible('\u{202e}'), "\\u{202e}");
        assert_eq!(visible('\u{2067}'), "\\u{2067}");
        assert_eq!(visible('\u{61c}'), "\\u{61c}");
        assert_eq!(visible('\u{85}'), "\\u{85}");
        assert_eq!(visible('é'), "é");
    }

    #[test]
    fn board_file_errors() {
        let err = parse_board_file("0 0 0\n0 0\n0 0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 2: expected 3 cells, found 2");
        let err = parse_board_file("0 0 0\n0 0 0\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: expected 3 rows of 3 cells, found 2 rows"
        );
        let err = parse_board_file("0 x\n0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1: 'x' is not a number");
        let err = parse_board_file("2 0\n0 0\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: board size 2 is not between 3 and 8"
        );
        let err = parse_board_file("0 0 0\n0 -2 0\n0 0 0\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: '-2' is not a tile: tiles are powers of two from 2 to 2^63, and 0 is an empty cell"
        );
        let err = parse_board_file("0 0 0\n0 18446744073709551616 0\n0 0 0\n").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("line 2: '18446744073709551616' is not a tile")
        );
        // The odd row out is named, even when it is the first.
        let err = parse_board_file("2 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1: expected 4 cells, found 3");
        let err = parse_board_file("2 0 0 0 4 0 0 0 8 0").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: 10 numbers on one line: a board needs n*n of them (9, 16, 25, 36, 49 or 64), or n lines of n"
        );
        let err = parse_board_file("2 0 0 0").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 1: expected 4 rows of 4 cells, found 1 row"
        );
        // On a tie the length that comes first wins: the first row is the odd one.
        let err = parse_board_file("2 0 0\n0 0 0 0\n0 0 0 0\n0 0 0 0 0\n0 0 0 0 0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1: expected 4 cells, found 3");
        // Regression (review): rows were compared with every other row, so a file of many
        // rows took time growing with their square before any message. Many rows are now
        // refused where their numbers pass any board's by far, before the rest is read.
        let many = "2 2\n".repeat(200_000);
        let err = parse_board_file(&many).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2049: more than 4096 numbers, and a board holds at most 64 (n lines of n, optionally after a line holding n)"
        );
        let err = parse_board_file(&"2 2\n".repeat(100)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 100: expected 2 rows of 2 cells, found 100 rows"
        );
        assert_eq!(
            parse_board_file("\n\n").unwrap_err().problem,
            Problem::Empty
        );
        // Regression (hostile-user review): rows with another separator were counted as one
        // number each, and a lone number was read as a board of size 1 or a bad tile.
        let err = parse_board_file("2;0;0;0\n0;0;0;0\n0;0;0;0\n0;0;0;0\n").unwrap_err();
        assert_eq!(err.to_string(), "line 1: '2;0;0;0' is not a number");
        // A word is named as no number wherever it stands, before any count.
        for (text, word) in [
            ("hello", "hello"),
            ("2;0;0;0;0;0;0;0;2\n", "2;0;0;0;0;0;0;0;2"),
            (&"2;0;0;0\n".repeat(5000), "2;0;0;0"),
        ] {
            let err = parse_board_file(text).unwrap_err();
            assert_eq!(
                (err.line, err.problem),
                (1, Problem::NotNumber(word.into()))
            );
        }
        let prose = "the quick brown fox ".repeat(2000);
        let err = parse_board_file(&prose).unwrap_err();
        assert_eq!(err.problem, Problem::NotNumber("the".into()));
        for lone in ["4\n", "3", "\n 2 \n\n"] {
            let err = parse_board_file(lone).unwrap_err();
            assert_eq!(err.problem, Problem::SingleNumber, "{lone:?}");
        }
        // The MIPS program's board (`--interface mips` prints it): rules of `+---+`, rows of `|`.
        let mips = "+---+---+---+\n|   | 2 |   |\n+---+---+---+\n|   |   |   |\n+---+---+---+\n|128|   | 4 |\n+---+---+---+\n";
        let board = parse_board_file(mips).unwrap().current().board;
        assert_eq!(board.exponents(), &[0, 1, 0, 0, 0, 0, 7, 0, 2][..]);
        for (text, message) in [
            (
                "+---+---+---+\n|   | 2 |   |\n| 2 |   |\n",
                "line 3: expected 3 cells, found 2",
            ),
            (
                "+---+\n| 2 |\n2 0\n",
                "line 3: a row of a board drawn with '+---+' must start and end with '|'",
            ),
            (
                "+---+---+\n| 2 |   |\n|   |   |\n+---+---+\n",
                "line 3: board size 2 is not between 3 and 8",
            ),
        ] {
            let err = parse_board_file(text).unwrap_err();
            assert_eq!(err.to_string(), message, "{text:?}");
        }
        // A size line stays a size line.
        assert!(parse_board_file("3\n2\n0\n0\n0\n0\n0\n0\n0\n2\n").is_ok());
    }
}
