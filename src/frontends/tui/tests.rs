//! The full-screen front end in memory: frames rendered for windows of every size, keys
//! handled without a terminal.

use super::render::KEY_LINES;
use super::*;
use crate::model::board::Board;
use crate::model::game::Game;
use crate::model::rules::Rules;

fn game(rows: &[Vec<u64>], rules: Rules) -> Game {
    Game::from_board(rules, Board::from_values(rows).unwrap())
}

fn view<'a>(screen: Screen<'a>, rules: &'a Rules, colors: ColorMode) -> View<'a> {
    View {
        screen,
        rules,
        menu: MenuStyle::OneSize,
        new_tile: None,
        status: "",
        advised: None,
        autoplay: false,
        counted: true,
        help: false,
        colors,
    }
}

/// The game screen of `g` without colour, for a `width` x `height` terminal.
fn render_plain_game(g: &Game, rules: &Rules, width: usize, height: usize) -> Frame {
    let screen = Screen::Game { game: g, best: 0 };
    render(&view(screen, rules, ColorMode::None), width, height)
}

/// The lines of the frame's board: from the line after the score line's blank to the last
/// line before the status (or end) lines, for a board of `n` rows.
fn tile_rows(frame: &Frame) -> Vec<String> {
    frame
        .to_text()
        .lines()
        .skip(3)
        .map(str::to_string)
        .collect()
}

#[test]
fn a_3x3_game_in_a_40x12_window_is_tiles_a_line_high_with_a_line_between_rows() {
    let rules = Rules::mini();
    let g = game(&[vec![2, 0, 4], vec![0, 8, 0], vec![0, 0, 2]], rules);
    let mut v = view(Screen::Game { game: &g, best: 12 }, &rules, ColorMode::None);
    v.new_tile = Some((2, 2));
    v.status = "Game saved to power11.saved.";
    // Each tile is 6 wide (4 digits + 2), its number centred, a column between tiles, a line
    // between rows; the new tile marked by a `*`; the short key line. The board is centred
    // under the text, the whole frame in the window.
    let expected = [
        "Power-11  mini 3x3, goal 512",
        "Score 0   Best 12   Moves 0",
        "        2      .      4   ",
        "",
        "        .      8      .      ",
        "",
        "        .      .      2*  ",
        "Game saved to power11.saved.",
        KEY_LINES[2],
    ]
    .map(|line| format!("{line}\n"))
    .concat();
    let frame = render(&v, 40, 12);
    assert_eq!(frame.to_text(), expected);
    // Centred: (40 - 36) / 2 columns in, (12 - 9) / 2 lines down; the board centred in the
    // frame with the place of the advice's arrow beside its middle row.
    assert_eq!((frame.left, frame.top), (2, 1));
}

#[test]
fn tiles_grow_with_the_window_up_to_the_web_games_square_shape() {
    let rules = Rules::classic();
    let g = game(
        &[
            vec![2, 0, 0, 0],
            vec![0, 2048, 0, 0],
            vec![0; 4],
            vec![0; 4],
        ],
        rules,
    );
    // The tile's height and width: the lines and the columns of the number `2`'s tile.
    let tile = |width: usize, height: usize| {
        let frame = render_plain_game(&g, &rules, width, height);
        assert!(!frame.cramped, "{width}x{height}");
        assert!(frame.width() <= width && frame.lines.len() <= height);
        let rows = tile_rows(&frame);
        let first_gap = rows.iter().position(String::is_empty).unwrap();
        // From the number of the first tile to the dot of the next: a tile and a gap of 2.
        let number = rows.iter().find(|l| l.contains('2')).unwrap();
        let columns = number.find('.').unwrap() - number.find('2').unwrap() - 2;
        (first_gap, columns, frame.left, frame.top)
    };
    let (lines_80, columns_80, ..) = tile(80, 24);
    let (lines_120, columns_120, left, top) = tile(120, 40);
    assert!(
        lines_120 > lines_80 && columns_120 > columns_80,
        "larger at 120x40"
    );
    assert_eq!((lines_120, columns_120), (7, 15), "the largest tile");
    assert_eq!((lines_80, columns_80), (4, 9));
    assert!(left > 20 && top > 0, "centred: {left}, {top}");
    // Between two rows of tiles, a line of the terminal's own background.
    let frame = render_plain_game(&g, &rules, 80, 24);
    let rows = tile_rows(&frame);
    assert_eq!(rows[4], "", "{}", frame.to_text());
}

#[test]
fn small_windows_still_play_every_3x3_4x4_and_5x5_game_and_8x8_in_80x24() {
    for (n, width, height) in [(3, 40, 12), (4, 40, 12), (5, 50, 14), (8, 80, 24)] {
        let rules = Rules::classic().with_size(n).unwrap();
        let mut rows = vec![vec![2u64; n]; n];
        rows[0][0] = 2048;
        let g = game(&rows, rules);
        let mut v = view(
            Screen::Game {
                game: &g,
                best: 99_999,
            },
            &rules,
            ColorMode::None,
        );
        v.status = "Game saved to power11.saved.";
        v.counted = false;
        let frame = render(&v, width, height);
        assert!(
            !frame.cramped,
            "{n}x{n} at {width}x{height}:\n{}",
            render(&v, 200, 60).to_text()
        );
        assert!(frame.to_text().contains("2048"), "{}", frame.to_text());
        // A 6-digit tile and the help still fit 80x24 on 8x8, a line a tile.
        if n == 8 {
            let mut rows = rows.clone();
            rows[0][0] = 131_072;
            let g = game(&rows, rules);
            let mut v = view(Screen::Game { game: &g, best: 1 }, &rules, ColorMode::None);
            v.help = true;
            v.new_tile = Some((7, 7));
            let frame = render(&v, 80, 24);
            assert!(!frame.cramped, "{}", render(&v, 200, 60).to_text());
            assert!(frame.to_text().contains(" 2* "), "{}", frame.to_text());
        }
    }
}

#[test]
fn a_narrow_window_draws_the_score_line_closer_or_on_two_lines() {
    let rules = Rules::mini();
    let g = game(&[vec![2, 0, 4], vec![0, 8, 0], vec![0, 0, 2]], rules);
    let mut v = view(Screen::Game { game: &g, best: 12 }, &rules, ColorMode::None);
    v.counted = false;
    let lines = |width| {
        let text = render(&v, width, 30).to_text();
        text.lines().skip(1).take(2).collect::<Vec<_>>().join("\n")
    };
    assert_eq!(lines(80), "Score 0   Best 12   (not counted)   Moves 0\n");
    assert_eq!(lines(40), "Score 0  Best 12  (not counted)  Moves 0\n");
    assert_eq!(lines(36), "Score 0   Best 12   (not counted)\nMoves 0");
}

#[test]
fn t_switches_new_tiles_off_and_on_and_the_screen_says_so() {
    use crate::session::MemoryStore;
    let mut session = mini_session(&[vec![128, 64, 64], vec![32, 256, 128], vec![0; 3]]);
    let mut ui = Ui::default();
    let mut press = |session: &mut Session<MemoryStore>, c: char| {
        assert!(on_key(
            session,
            &mut ui,
            KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
        ));
        render(&view_of(session, &ui, ColorMode::None), 40, 12).to_text()
    };
    let screen = press(&mut session, 't');
    assert!(
        screen.contains("\nScore 0   Best 0   (not counted)\nMoves 0   New tiles off\n"),
        "{screen}"
    );
    assert!(
        screen.contains("\nNew tiles off: moves place no tile until\nt again.\n"),
        "{screen}"
    );
    // Left: the slide alone, no new tile (and none marked).
    let screen = press(&mut session, 'l');
    assert_eq!(
        screen
            .lines()
            .skip(3)
            .take(5)
            .map(str::trim)
            .collect::<Vec<_>>()
            .join("\n"),
        [
            "128    128     .",
            "",
            "32    256    128",
            "",
            ".      .      ."
        ]
        .join("\n"),
        "{screen}"
    );
    assert!(
        screen.contains("\nScore 128   Best 0   (not counted)\nMoves 1   New tiles off\n"),
        "{screen}"
    );
    // The help names the key; t again turns new tiles back on.
    let screen = press(&mut session, '?');
    // The help alone where it does not fit beside the board: every key, in 40x12.
    assert!(
        screen.contains("\nn: new game   t: new tiles off / on\n") && !screen.contains("Score"),
        "{screen}"
    );
    let screen = press(&mut session, '?');
    assert!(!screen.contains("Window too small"), "{screen}");
    let screen = press(&mut session, 't');
    assert!(
        screen.contains("\nScore 128 Best 0 (not counted) Moves 1\n"),
        "{screen}"
    );
    assert!(screen.contains("\nNew tiles on again.\n"), "{screen}");
    let screen = press(&mut session, 'l');
    assert!(screen.contains('*'), "a new tile, marked: {screen}");
}

#[test]
fn colours_follow_the_mode() {
    let rules = Rules::classic();
    let g = game(
        &[
            vec![2048, 0, 0, 0],
            vec![0; 4],
            vec![0; 4],
            vec![0, 0, 0, 2],
        ],
        rules,
    );
    let screen = Screen::Game { game: &g, best: 0 };
    let ansi = |mode| {
        let mut out = Vec::new();
        render(&view(screen, &rules, mode), 100, 30)
            .write_to(&mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    };
    // 2048's background, #edc22e, in 24-bit colour.
    assert!(ansi(ColorMode::TrueColor).contains("\u{1b}[48;2;237;194;46m"));
    assert!(ansi(ColorMode::Ansi256).contains("\u{1b}[48;5;"));
    assert!(!ansi(ColorMode::None).contains("\u{1b}[48;"));
    let basic = ansi(ColorMode::Basic);
    assert!(basic.contains("\u{1b}[42m"), "2048 on the basic green");
    assert!(!basic.contains("\u{1b}[48;"), "no palette or 24-bit colour");
    let xterm = Some("xterm-256color");
    let cases = [
        (("auto", true, Some("truecolor"), xterm), ColorMode::None),
        (("always", true, None, xterm), ColorMode::Ansi256),
        (("never", false, None, xterm), ColorMode::None),
        (
            ("auto", false, Some("24bit"), Some("vt100")),
            ColorMode::TrueColor,
        ),
        (
            ("auto", false, None, Some("tmux-256color")),
            ColorMode::Ansi256,
        ),
        (
            ("auto", false, None, Some("xterm-kitty")),
            ColorMode::Ansi256,
        ),
        (("auto", false, None, Some("xterm")), ColorMode::Basic),
        (("auto", false, None, Some("linux")), ColorMode::Basic),
        (("auto", false, None, Some("vt100")), ColorMode::None),
        (("auto", false, None, Some("vte")), ColorMode::Basic),
        (("always", false, None, Some("vt220")), ColorMode::Basic),
    ];
    for ((flag, no_color, colorterm, term), mode) in cases {
        assert_eq!(
            ColorMode::choose(flag, no_color, colorterm, term),
            mode,
            "--color {flag}, NO_COLOR {no_color}, COLORTERM {colorterm:?}, TERM {term:?}"
        );
    }
}

#[test]
fn an_8x8_board_and_a_six_digit_tile_widen_the_screen() {
    let rules = Rules::classic().with_size(8).unwrap();
    let mut rows = vec![vec![0u64; 8]; 8];
    rows[0][0] = 131_072;
    let g = game(&rows, rules);
    let frame = render_plain_game(&g, &rules, 200, 60);
    let text = frame.to_text();
    // Tiles are at least 8 wide (6 digits + 2).
    assert!(text.contains(" 131072 "), "{text}");
    // In a window too small for it, the screen says what it needs: the smallest layout.
    let small = render_plain_game(&g, &rules, 40, 20);
    assert!(small.cramped);
    assert_eq!(
        small.to_text(),
        "Window too small:\nneeds 74x13,\nhas 40x20.\nEnlarge it, or q.\n"
    );
}

/// Hostile-user items 6 and 7: a window too small still shows the status line (a question
/// is never asked unseen), wrapped to the window, and the frame never outgrows it.
#[test]
fn a_cramped_frame_keeps_the_status_line() {
    let rules = Rules::power11(4).unwrap();
    let g = game(
        &[vec![2, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
        rules,
    );
    let mut v = view(Screen::Game { game: &g, best: 8 }, &rules, ColorMode::None);
    v.status = "Moves not saved: q again drops them.";
    let frame = render(&v, 30, 10);
    assert!(frame.cramped);
    assert_eq!(
        frame.to_text(),
        "Moves not saved: q again drops\nthem.\n\nWindow too small:\nneeds 36x9,\nhas 30x10.\nEnlarge it, or q.\n"
    );
    assert_eq!((frame.left, frame.top), (0, 0));
    let tiny = render(&v, 12, 3);
    assert!(
        tiny.width() <= 12 && tiny.lines.len() <= 3,
        "{}",
        tiny.to_text()
    );
    assert!(tiny.to_text().starts_with("Moves not\n"));
}

/// Hostile-user item 12: the Power-11 game shows its best score full-screen, and names its
/// rule set once.
#[test]
fn power11_games_show_their_best_score() {
    let rules = Rules::power11(4).unwrap();
    let g = game(
        &[vec![2, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
        rules,
    );
    let screen = Screen::Game { game: &g, best: 96 };
    let text = render(&view(screen, &rules, ColorMode::None), 100, 30).to_text();
    assert!(
        text.starts_with("Power-11  4x4, goal 2048\nScore 0   Best 96   Moves 0\n"),
        "{text}"
    );
}

#[test]
fn the_end_screens_say_what_the_line_game_says() {
    let rules = Rules::power11(3).unwrap();
    let lost = game(&[vec![2, 4, 2], vec![4, 2, 4], vec![2, 4, 2]], rules);
    let text = render(
        &view(
            Screen::End {
                game: &lost,
                best: 0,
                offers_more: false,
            },
            &rules,
            ColorMode::None,
        ),
        100,
        30,
    )
    .to_text();
    assert!(
        text.ends_with("YOU LOST!\nEnter (or any key but a move) - the menu\n"),
        "{text}"
    );
    let rules = Rules::classic();
    let won = game(
        &[vec![2048, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
        rules,
    );
    let text = render(
        &view(
            Screen::End {
                game: &won,
                best: 0,
                offers_more: true,
            },
            &rules,
            ColorMode::None,
        ),
        100,
        30,
    )
    .to_text();
    assert!(text.contains("YOU WON WITH A SCORE OF 0\nk - keep playing, n - new game"));
}

#[test]
fn the_autoplay_pace_halves_and_doubles_within_its_bounds() {
    let mut delay = DEFAULT_DELAY;
    let mut faster = Vec::new();
    for _ in 0..6 {
        delay = paced(delay, true);
        faster.push(delay.as_millis());
    }
    assert_eq!(faster, [60, 30, 15, 0, 0, 0]);
    assert_eq!(paced(Duration::ZERO, false), Duration::from_millis(15));
    assert_eq!(paced(SLOWEST, false), SLOWEST);
    assert!(autoplay_status(Duration::ZERO).contains("as fast as the screen draws"));
}

/// A session of mini games with the random player, its first game started from `rows`.
fn mini_session(rows: &[Vec<u64>]) -> Session<crate::session::MemoryStore> {
    use crate::model::game::{Snapshot, Timeline};
    use crate::model::random::seeded;
    use crate::players::{AnyPlayer, RandomPlayer};
    use crate::session::{MemoryStore, Settings};
    let mut session = Session::new(
        Settings {
            rules: Rules::mini(),
            menu: MenuStyle::OneSize,
        },
        seeded(1),
        MemoryStore::new(),
        AnyPlayer::Random(RandomPlayer),
    );
    let board = Board::from_values(rows).unwrap();
    session.start_from(Timeline::new(Snapshot { board, score: 0 }));
    session
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn the_end_screen_waits_for_a_key_that_is_not_a_move() {
    // One move from 512: Left wins.
    let mut session = mini_session(&[vec![256, 256, 0], vec![0; 3], vec![0; 3]]);
    let mut ui = Ui::default();
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    assert!(matches!(session.screen(), Screen::End { .. }));
    // The arrow held down, and the letters that move: the end stays on the screen.
    for code in [
        KeyCode::Left,
        KeyCode::Up,
        KeyCode::Char('l'),
        KeyCode::Char('j'),
    ] {
        assert!(on_key(&mut session, &mut ui, key(code)));
        assert!(matches!(session.screen(), Screen::End { .. }), "{code:?}");
    }
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Enter)));
    assert!(matches!(session.screen(), Screen::Menu));
}

#[test]
fn the_autoplay_waits_while_the_window_is_too_small() {
    let mut session = mini_session(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]);
    let mut ui = Ui {
        autoplay: Some(Instant::now()),
        cramped: true,
        ..Ui::default()
    };
    let moves = |session: &Session<crate::session::MemoryStore>| match session.screen() {
        Screen::Game { game, .. } => game.undo_depth(),
        _ => panic!("a game"),
    };
    assert!(!autoplay_move(&mut session, &mut ui));
    assert_eq!(moves(&session), 0, "no move while the board is not shown");
    ui.cramped = false;
    assert!(autoplay_move(&mut session, &mut ui));
    assert_eq!(moves(&session), 1);
    assert!(!session.counts_for_best(), "the computer's move");
}

#[test]
fn the_unsaved_moves_question_says_what_each_key_does() {
    let mut session = mini_session(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]);
    let mut ui = Ui::default();
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('q'))));
    assert_eq!(
        ui.status,
        "Moves not saved: q again leaves for the menu without them, s saves them and plays on, any other key plays on."
    );
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('s'))));
    assert!(
        matches!(session.screen(), Screen::Game { .. }),
        "s plays on"
    );
}

/// Regression (hostile-user trial): the frame never outgrows its window, and drawing it never
/// panics, at sizes from 1x1 to 130x45, with advice beside the board, the help, messages
/// long and short, for every board size (centring the board with the advice's arrow
/// overflowed a subtraction once).
#[test]
fn every_frame_fits_its_window_at_every_size() {
    let long = "Advice: r (Right): looking 2 move(s) ahead, slightly better than u (Up).";
    for n in [3, 5, 8] {
        let rules = Rules::classic().with_size(n).unwrap();
        let mut rows = vec![vec![0u64; n]; n];
        rows[0][0] = 2048;
        rows[n - 1][n - 1] = 4;
        let g = game(&rows, rules);
        for (help, status, advised) in [
            (false, "", None),
            (false, long, Some(Direction::Right)),
            (true, "Game saved to power11.saved.", Some(Direction::Up)),
        ] {
            let mut v = view(
                Screen::Game { game: &g, best: 9 },
                &rules,
                ColorMode::TrueColor,
            );
            v.help = help;
            v.status = status;
            v.advised = advised;
            v.counted = false;
            // Every fourth width and third height: each layout's edge is met at some.
            for width in (1..=130).step_by(4) {
                for height in (1..=45).step_by(3) {
                    let frame = render(&v, width, height);
                    assert!(
                        frame.left + frame.width() <= width.max(frame.width())
                            && frame.top + frame.lines.len() <= height.max(1),
                        "{n}x{n} at {width}x{height}"
                    );
                    if !frame.cramped {
                        assert!(
                            frame.left + frame.width() <= width,
                            "{n}x{n} at {width}x{height}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_advice_marker_is_left_with_the_game_it_was_for() {
    let mut session = mini_session(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]);
    let mut ui = Ui::default();
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('a'))));
    assert!(ui.advised.is_some(), "{}", ui.status);
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('q'))));
    assert!(matches!(session.screen(), Screen::Menu));
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('n'))));
    assert!(matches!(session.screen(), Screen::Game { .. }));
    assert_eq!(ui.advised, None, "no advice on the new game's board");
}
