//! The full-screen front end in memory: frames rendered for windows of every size, keys
//! handled without a terminal.

use super::keys::{
    SLOWEST, Ui, answer_at_once, answered, autoplay_move, autoplay_status, on_key, paced,
    taken_by_the_computer,
};
use super::*;
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::game::Game;
use crate::model::rules::Rules;
use crate::session::Ask;
use crate::session::MenuStyle;
use crossterm::event::KeyEvent;

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
        motion: None,
        played: Duration::ZERO,
    }
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
        // Blank lines between the rows of tiles.
        let (_, top, _, lines) = frame.board.unwrap();
        assert_eq!(lines, 2 * n - 1, "{n}x{n} at {width}x{height}");
        assert!(frame.row_text(top + 1).is_empty());
        // A 6-digit tile and the help still fit 80x24 on 8x8, a line a tile.
        if n == 8 {
            let mut rows = rows.clone();
            rows[0][0] = 131_072;
            let g = game(&rows, rules);
            let mut v = view(Screen::Game { game: &g, best: 1 }, &rules, ColorMode::None);
            v.help = true;
            v.new_tile = Some((7, 7));
            let frame = render(&v, 80, 24);
            assert!(frame.to_text().contains("Power-11 keys"), "the help alone");
            v.help = false;
            let frame = render(&v, 80, 24);
            assert!(!frame.cramped, "{}", render(&v, 200, 60).to_text());
            assert!(frame.to_text().contains(" 2*"), "{}", frame.to_text());
        }
    }
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
    let frame = render(&view(screen, &rules, ColorMode::None), 100, 30);
    let text: Vec<String> = (0..30)
        .map(|r| frame.row_text(r).trim().to_string())
        .collect();
    let title = text.iter().position(|l| !l.is_empty()).unwrap();
    assert_eq!(text[title], "Power-11  4x4, goal 2048");
    assert!(text[title + 1].starts_with("Score 0   Best 96   "));
    assert!(text[title + 1].ends_with("   Moves 0"));
    // The title and the score line are the board's width: they start at its left edge and
    // end at its right edge.
    let (left, _, w, _) = frame.board.unwrap();
    let rows: Vec<String> = (0..30).map(|r| frame.row_text(r)).collect();
    let start = |l: &str| l.len() - l.trim_start().len();
    assert_eq!(start(&rows[title]), start(&rows[title + 1]));
    let margin = left - start(&rows[title]);
    assert_eq!(rows[title + 1].trim_end().len(), left + w + margin);
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
        text.contains("YOU LOST!\n")
            && text.contains("Largest tile 4   Moves 0   Time 0:00\n")
            && text.contains("Enter (or any key but a move) - the menu\n"),
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
    assert!(text.contains("YOU WON WITH A SCORE OF 0\n"), "{text}");
    assert!(text.contains("k - keep playing, n - new game"), "{text}");
    // Issue 74: at 40x12 the win screen said only "Enter - the menu".
    let v = view(
        Screen::End {
            game: &won,
            best: 0,
            offers_more: true,
        },
        &rules,
        ColorMode::None,
    );
    let text = render(&v, 40, 12).to_text();
    assert!(
        text.contains("k: keep playing  n: new  Enter: menu"),
        "{text}"
    );
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
    mini_session_of(
        rows,
        crate::players::AnyPlayer::Random(crate::players::RandomPlayer),
    )
}

/// [`mini_session`] whose computer player searches (its moves are thought of on a thread of
/// their own in the full screen).
fn searching_session(rows: &[Vec<u64>]) -> Session<crate::session::MemoryStore> {
    use crate::players::{AnyPlayer, Expectimax, SearchConfig};
    mini_session_of(
        rows,
        AnyPlayer::Expectimax(Expectimax::new(SearchConfig::default())),
    )
}

fn mini_session_of(
    rows: &[Vec<u64>],
    player: crate::players::AnyPlayer,
) -> Session<crate::session::MemoryStore> {
    use crate::model::game::{Snapshot, Timeline};
    use crate::model::random::seeded;
    use crate::session::{MemoryStore, Settings};
    let mut session = Session::new(
        Settings {
            rules: Rules::mini(),
            menu: MenuStyle::OneSize,
        },
        seeded(1),
        MemoryStore::new(),
        player,
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
        delay: Duration::from_secs(3600),
        ..Ui::default()
    };
    let moves = |session: &Session<crate::session::MemoryStore>| match session.screen() {
        Screen::Game { game, .. } => game.undo_depth(),
        _ => panic!("a game"),
    };
    assert!(!autoplay_move(&session, &mut ui));
    assert_eq!(
        ui.thinking, None,
        "no move asked while the board is not shown"
    );
    ui.cramped = false;
    autoplay_move(&session, &mut ui);
    assert_eq!(ui.thinking.map(|t| t.ask), Some(Ask::Move));
    think(&mut session, &mut ui);
    assert_eq!(moves(&session), 1);
    assert!(!session.counts_for_best(), "the computer's move");
    assert!(
        ui.autoplay > Some(Instant::now()) && ui.thinking.is_none(),
        "the next move is timed from this one"
    );
    assert!(ui.status.starts_with("The computer plays"), "{}", ui.status);
}

/// What the loop does with the question asked, here at once: sent to the player, answered,
/// and the answer carried out (or answered by the session itself).
fn think(session: &mut Session<crate::session::MemoryStore>, ui: &mut Ui) {
    let Some(thinking) = ui.thinking else {
        return;
    };
    if let Some(question) = session.question(thinking.ask) {
        let answer = question.answer();
        answered(session, ui, thinking.number, answer);
    } else {
        ui.thinking = None;
        answer_at_once(session, ui, thinking.ask);
    }
}

#[test]
fn a_key_during_the_autoplay_drops_the_move_being_thought_of() {
    let mut session = searching_session(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]);
    let mut ui = Ui {
        autoplay: Some(Instant::now()),
        ..Ui::default()
    };
    autoplay_move(&session, &mut ui);
    let thinking = ui.thinking.expect("a move asked for");
    let question = session
        .question(Ask::Move)
        .expect("the search player thinks");
    // A key comes while it thinks: the game is the player's at once.
    assert!(taken_by_the_computer(&mut ui, KeyCode::Char('x')));
    assert_eq!((ui.autoplay, ui.thinking), (None, None));
    assert_eq!(ui.status, "You have the game back.");
    // The answer, when it comes, is dropped.
    assert!(!answered(
        &mut session,
        &mut ui,
        thinking.number,
        question.answer()
    ));
    let Screen::Game { game, .. } = session.screen() else {
        panic!("a game");
    };
    assert_eq!(game.undo_depth(), 0, "no move was played");
}

#[test]
fn an_answer_for_a_board_that_changed_is_dropped() {
    let mut session = searching_session(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]);
    let question = session
        .question(Ask::Move)
        .expect("the search player thinks");
    let mut ui = Ui::default();
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    let events = session.answered(question.answer());
    assert!(matches!(events.as_slice(), [crate::session::Event::NotNow]));
    let Screen::Game { game, .. } = session.screen() else {
        panic!("a game");
    };
    assert_eq!(game.undo_depth(), 1, "the player's move alone");
}

#[test]
fn the_unsaved_moves_question_says_what_each_key_does() {
    let mut session = mini_session(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]);
    let mut ui = Ui::default();
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('q'))));
    assert_eq!(
        ui.status,
        "Moves not saved: q again leaves without them, s saves them, other keys play on."
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
                    assert_eq!((frame.width, frame.height), (width, height));
                    if let Some((left, top, w, h)) = frame.board {
                        assert!(
                            !frame.cramped && left + w <= width && top + h <= height,
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
    // Asked of the player, then its answer.
    assert_eq!(ui.thinking.map(|t| t.ask), Some(Ask::Advice));
    assert_eq!(ui.advised, None);
    think(&mut session, &mut ui);
    assert!(ui.advised.is_some(), "{}", ui.status);
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('q'))));
    assert!(matches!(session.screen(), Screen::Menu));
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('n'))));
    assert!(matches!(session.screen(), Screen::Game { .. }));
    assert_eq!(ui.advised, None, "no advice on the new game's board");
}

/// The rows and columns of the board's tiles: where the colour of each cell's tile is.
fn board_place(frame: &Frame) -> ((usize, usize, usize, usize), (usize, usize)) {
    (frame.board.unwrap(), frame.tile.unwrap())
}

#[test]
fn a_window_too_small_keeps_the_status_line_and_says_what_it_needs() {
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
        "Moves not saved: q again drops\nthem.\n\nWindow too small:\nneeds 36x9,\nhas 30x10.\nEnlarge it, or q.\n\n\n\n"
    );
    // The needs it names do fit.
    assert!(!render(&v, 36, 9).cramped);
}

#[test]
fn a_move_in_motion_slides_pops_and_rests() {
    use crate::model::direction::Direction;
    let rules = Rules::classic();
    let before =
        Board::from_values(&[vec![2, 2, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]]).unwrap();
    let mut after = before.slide(Direction::Left).unwrap().0;
    after.set(3, 3, 1);
    let g = Game::from_board(rules, after);
    let motion = Motion::new(&before, Direction::Left, &after, 4).unwrap();
    let mut v = view(
        Screen::Game { game: &g, best: 0 },
        &rules,
        ColorMode::TrueColor,
    );
    let rest = render(&v, 80, 24);
    let mut frames = Vec::new();
    for &at in &SCHEDULE {
        v.motion = Some((&motion, at));
        frames.push(render(&v, 80, 24));
    }
    // Every frame differs from the one before; the last is the board at rest.
    assert!(frames.windows(2).all(|w| w[0] != w[1]));
    assert_eq!(frames.last().unwrap(), &rest);
    // The +4 beside the score while the tiles slide.
    assert!(
        frames[0].to_text().contains("+4"),
        "{}",
        frames[0].to_text()
    );
    assert!(!rest.to_text().contains("+4"));
}

#[test]
fn the_painter_writes_only_what_changed_in_one_synchronized_update() {
    let rules = Rules::classic();
    let g = game(
        &[
            vec![2, 4, 8, 16],
            vec![0; 4],
            vec![0; 4],
            vec![0, 0, 0, 2048],
        ],
        rules,
    );
    let mut v = view(
        Screen::Game { game: &g, best: 0 },
        &rules,
        ColorMode::Ansi256,
    );
    let mut painter = Painter::new();
    let mut out = Vec::new();
    let first = painter.paint(&render(&v, 80, 24), &mut out).unwrap();
    assert!(out.starts_with(BEGIN_UPDATE) && out.ends_with(END_UPDATE));
    assert!(
        out.windows(4).any(|w| w == b"\x1b[2J"),
        "the first frame clears"
    );
    // The same frame again writes nothing at all.
    let mut again = Vec::new();
    assert_eq!(painter.paint(&render(&v, 80, 24), &mut again).unwrap(), 0);
    assert!(again.is_empty());
    // A message: only its cells, no clear.
    v.status = "Game saved.";
    let mut message = Vec::new();
    let bytes = painter.paint(&render(&v, 80, 24), &mut message).unwrap();
    assert!(bytes < 60 && bytes < first / 10, "{bytes} of {first}");
    assert!(!message.windows(4).any(|w| w == b"\x1b[2J"));
    // A new size clears the screen again.
    let mut resized = Vec::new();
    painter.paint(&render(&v, 100, 30), &mut resized).unwrap();
    assert!(resized.windows(4).any(|w| w == b"\x1b[2J"));
    // What the painter wrote, read back by a terminal, is the frame.
    let frame = render(&v, 100, 30);
    let mut parser = vt100::Parser::new(
        std::num::NonZeroU16::new(30).unwrap(),
        std::num::NonZeroU16::new(100).unwrap(),
        0,
    );
    parser.process(&out);
    parser.process(&resized);
    for row in 0..30 {
        let shown: String = parser.screen().rows(0, 100).nth(row).unwrap();
        assert_eq!(shown.trim_end(), frame.row_text(row), "row {row}");
    }
}

/// Issue 74: undo, save and quit work on a screen too small for the board; moves do not.
#[test]
fn undo_save_and_quit_work_on_a_screen_too_small_for_the_board() {
    let mut session = mini_session(&[vec![2, 0, 0], vec![0; 3], vec![0, 0, 2]]);
    let mut ui = Ui::default();
    let depth = |session: &Session<crate::session::MemoryStore>| match session.screen() {
        Screen::Game { game, .. } => game.undo_depth(),
        _ => panic!("a game"),
    };
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    assert_eq!(depth(&session), 1);
    ui.cramped = true;
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Right)));
    assert_eq!(depth(&session), 1, "no move played blind");
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('b'))));
    assert_eq!(depth(&session), 0, "undone");
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    assert_eq!(depth(&session), 0);
    ui.cramped = false;
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    assert_eq!(depth(&session), 1);
    ui.cramped = true;
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Backspace)));
    assert_eq!(depth(&session), 0, "undone with Backspace");
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('s'))));
    assert!(ui.status.contains("saved"), "{}", ui.status);
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('q'))));
    assert!(matches!(session.screen(), Screen::Menu));
}

mod board;

/// A game that ends while the window is too small for its board says so there, and Enter
/// leaves it for the menu, as on the end screen.
#[test]
fn a_game_s_end_is_said_and_left_on_a_screen_too_small_for_the_board() {
    let rules = Rules::power11(3).unwrap();
    let lost = game(&[vec![2, 4, 2], vec![4, 2, 4], vec![2, 4, 2]], rules);
    let v = view(
        Screen::End {
            game: &lost,
            best: 0,
            offers_more: false,
        },
        &rules,
        ColorMode::None,
    );
    let frame = render(&v, 30, 8);
    assert!(frame.cramped);
    let text = frame.to_text();
    assert!(text.starts_with("YOU LOST! Enter: the menu.\n"), "{text}");
    // One move from 512 wins the mini game; the window shrinks; Enter leaves the end.
    let mut session = mini_session(&[vec![256, 256, 0], vec![0; 3], vec![0; 3]]);
    let mut ui = Ui::default();
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Left)));
    assert!(matches!(session.screen(), Screen::End { .. }));
    ui.cramped = true;
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Char('b'))));
    assert!(
        matches!(session.screen(), Screen::End { .. }),
        "b is no undo here"
    );
    assert!(on_key(&mut session, &mut ui, key(KeyCode::Enter)));
    assert!(matches!(session.screen(), Screen::Menu));
}

/// The title and score line are the board's width wherever the board is wide enough for
/// them: a 3x3 board at 40x12 as much as a 4x4 at 100x30.
#[test]
fn the_title_and_score_line_span_the_board() {
    for (rules, width, height) in [
        (Rules::mini(), 40, 12),
        (Rules::power11(4).unwrap(), 36, 9),
        (Rules::power11(4).unwrap(), 100, 30),
    ] {
        let n = rules.size();
        let mut rows = vec![vec![0u64; n]; n];
        rows[0][0] = 2;
        let g = game(&rows, rules);
        let frame = render(
            &view(
                Screen::Game { game: &g, best: 96 },
                &rules,
                ColorMode::TrueColor,
            ),
            width,
            height,
        );
        let layout = super::layout::game_layout(n, width, height).unwrap();
        let (left, right) = (layout.board.0, layout.board.0 + layout.board_size.0);
        for row in [layout.title, layout.score] {
            let text = frame.row_text(row);
            let start = text.len() - text.trim_start().len();
            assert_eq!(start, left, "{n}x{n} at {width}x{height}: {text:?}");
            assert!(
                text.trim_end().len() <= right,
                "{n}x{n} at {width}x{height}: {text:?}"
            );
        }
    }
}
