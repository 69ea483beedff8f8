//! The board in memory: its place and size for every window, kept through any message and
//! any merge; its tiles, gaps and numbers.

use super::*;

#[test]
fn the_board_stays_put_whatever_the_message_advice_or_flags() {
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
    let long = "Moves not saved: q again leaves without them, s saves them, other keys play on. And more words that go on past two lines of the window for sure, on and on, and on again until even the widest of the windows has no room left for them all.";
    for (width, height) in [(40, 12), (60, 20), (80, 24), (120, 40)] {
        let mut v = view(
            Screen::Game { game: &g, best: 0 },
            &rules,
            ColorMode::Ansi256,
        );
        let still = board_place(&render(&v, width, height));
        v.status = long;
        v.advised = Some(Direction::Left);
        v.counted = false;
        v.autoplay = true;
        let frame = render(&v, width, height);
        assert_eq!(board_place(&frame), still, "{width}x{height}");
        // The message is shortened to its two lines, never more.
        let text = frame.to_text();
        assert!(text.contains('…'), "{text}");
        assert!(text.contains("(not"), "{text}");
    }
}

#[test]
fn tiles_fill_the_window_and_digits_sit_in_their_middle() {
    let rules = Rules::classic();
    let g = game(
        &[
            vec![2, 0, 0, 0],
            vec![0; 4],
            vec![0; 4],
            vec![0, 0, 0, 2048],
        ],
        rules,
    );
    let v = view(
        Screen::Game { game: &g, best: 0 },
        &rules,
        ColorMode::TrueColor,
    );
    let board = ColorMode::TrueColor.board().unwrap().bg;
    for (width, height, least) in [(60, 20, 2), (80, 24, 3), (120, 40, 7), (200, 60, 11)] {
        let frame = render(&v, width, height);
        let ((left, top, w, h), (tile_w, tile_h)) = board_place(&frame);
        assert!(tile_h >= least, "{width}x{height}: {tile_h} lines");
        // Centred to the column, and most of the window's height.
        assert_eq!(left, (width - w) / 2, "{width}x{height}");
        assert!(3 * h >= 2 * height - 15, "{width}x{height}: {h} lines");
        // The 2 in the first tile: on its middle line, in its middle columns; in big
        // glyphs on the middle three where the tile is tall and wide enough.
        let middle = top + (tile_h - 1) / 2;
        if tile_h >= 5 && tile_w >= 17 {
            let big = super::glyphs::big("2").unwrap();
            let col = left + (tile_w - 3) / 2;
            for (k, line) in big.iter().enumerate() {
                let shown: String = (col..col + 3)
                    .map(|c| frame.cell(middle - 1 + k, c).ch)
                    .collect();
                assert_eq!(&shown, line, "{width}x{height}");
            }
        } else {
            let text = frame.row_text(middle);
            let col = text.find('2').unwrap();
            assert_eq!(col, left + (tile_w - 1) / 2, "{width}x{height}: {text:?}");
        }
        let bg = frame.cell(top, left).style.bg;
        assert!(bg.is_some() && frame.cell(top + tile_h - 1, left + tile_w - 1).style.bg == bg);
        // The gaps and the margin are the board's colour.
        assert_eq!(frame.cell(top, left + tile_w).style.bg, board, "a gap");
        assert_eq!(frame.cell(top, left - 1).style.bg, board, "the margin");
    }
}

/// Two-line tiles put their digits above the middle (on the upper of two lines): a 6x6 game
/// at 80x24 draws them as half a line, a line and half a line, the digits on the whole line,
/// in every colour mode.
#[test]
fn two_line_tiles_have_their_digits_in_the_middle() {
    let rules = Rules::classic().with_size(6).unwrap();
    let mut rows = vec![vec![0u64; 6]; 6];
    rows[0][0] = 16;
    let g = game(&rows, rules);
    for colors in [
        ColorMode::None,
        ColorMode::Basic,
        ColorMode::Ansi256,
        ColorMode::TrueColor,
    ] {
        let v = view(Screen::Game { game: &g, best: 0 }, &rules, colors);
        let frame = render(&v, 80, 24);
        let ((left, top, w, h), (tile_w, tile_h)) = board_place(&frame);
        assert_eq!((tile_w, tile_h, h), (7, 3, 18), "{colors:?}");
        let row =
            |r: usize| -> String { (left..left + tile_w).map(|c| frame.cell(r, c).ch).collect() };
        assert_eq!(row(top + 1).trim(), "16", "{colors:?}");
        let tile = frame.cell(top + 1, left).style;
        let edge = frame.cell(top, left).style;
        assert_eq!(tile.reverse, colors == ColorMode::None);
        if let Some(board) = colors.board() {
            // The half rows are half the tile's colour (the background) and half the
            // board's (the character's), and so is the gap between rows of tiles.
            assert_eq!(row(top), "▀".repeat(tile_w), "{colors:?}");
            assert_eq!(row(top + 2), "▄".repeat(tile_w), "{colors:?}");
            assert_eq!((edge.fg, edge.bg, edge.reverse), (board.bg, tile.bg, false));
            assert_eq!(frame.cell(top + 3, left).ch, '▀');
        } else {
            // Without colour, the half rows are the block's, in the text's colour.
            assert_eq!(row(top), "▄".repeat(tile_w));
            assert_eq!(row(top + 2), "▀".repeat(tile_w));
            assert_eq!((edge.fg, edge.bg, edge.reverse), (None, None, false));
            assert_eq!(frame.cell(top + 3, left).ch, ' ');
        }
        assert!(w <= 80 && top + h <= 24);
    }
}

/// Issue 74: the board widened when the first 5-digit tile appeared (4x4 at 40x12 from 27 to
/// 31 columns, 8x8 at 80x24 from 55 to 79), and an 8x8 game at 60x20 became "too small"
/// after a merge. Merges up to 131072 on 4x4 and 16384 on 8x8, played by the game's rules,
/// keep the board's size and place at every window size, and every number shows.
#[test]
fn merges_to_the_largest_tiles_never_move_or_resize_the_board() {
    use crate::model::random::seeded;
    for (n, top, windows) in [
        (
            4,
            17u8,
            &[(40, 12), (60, 20), (80, 24), (120, 40), (200, 60)][..],
        ),
        (8, 14, &[(60, 20), (80, 24), (120, 40), (200, 60)][..]),
    ] {
        let rules = Rules::classic().with_size(n).unwrap();
        for &(width, height) in windows {
            let start = {
                let mut rows = vec![vec![0u64; n]; n];
                rows[n - 1][n - 1] = 2;
                game(&rows, rules)
            };
            let place = |g: &Game| {
                let v = view(
                    Screen::Game { game: g, best: 0 },
                    &rules,
                    ColorMode::Ansi256,
                );
                let frame = render(&v, width, height);
                assert!(!frame.cramped, "{n}x{n} at {width}x{height}");
                (board_place(&frame), frame)
            };
            let (still, _) = place(&start);
            for e in 2..=top {
                // Two tiles of half the value, side by side, merged by a move left.
                let half = 1u64 << (e - 1);
                let mut rows = vec![vec![0u64; n]; n];
                rows[0][0] = half;
                rows[0][1] = half;
                let mut g = game(&rows, rules);
                g.play(Direction::Left, &mut seeded(u64::from(e)));
                assert_eq!(g.board().get(0, 0), e, "merged");
                let (now, frame) = place(&g);
                assert_eq!(now, still, "{n}x{n} at {width}x{height}, 2^{e}");
                // The merged tile shows its number: in full or short (16k), in small
                // characters or big glyphs.
                let ((left, top, _, _), (tile_w, tile_h)) = now;
                let tile: Vec<String> = (top..top + tile_h)
                    .map(|r| (left..left + tile_w).map(|c| frame.cell(r, c).ch).collect())
                    .collect();
                let value = (1u64 << e).to_string();
                let short = super::tiles::number_text(e, 4);
                let shows = |t: &str| {
                    tile.iter().any(|line| line.trim() == t)
                        || super::glyphs::big(t).is_some_and(|big| {
                            tile.windows(3).any(|three| {
                                three
                                    .iter()
                                    .zip(&big)
                                    .all(|(line, g)| line.trim() == g.trim())
                            })
                        })
                };
                assert!(
                    shows(&value) || shows(&short),
                    "2^{e} at {width}x{height}: {tile:?}"
                );
            }
        }
    }
}

#[test]
fn numbers_wider_than_their_tile_are_written_short() {
    let shown: Vec<String> = [10u8, 14, 17, 20, 26, 30, 65, 69, 70]
        .iter()
        .map(|&e| super::tiles::number_text(e, 4))
        .collect();
    assert_eq!(
        shown,
        [
            "1024", "16k", "128k", "1M", "64M", "1G", "32E", "512E", "2^70"
        ]
    );
    assert_eq!(super::tiles::number_text(17, 6), "131072");
    // Past the prefixes, a power; where even that is too wide, cut with a mark (never a
    // shorter number: 2^100 is not 2^10).
    assert_eq!(super::tiles::number_text(99, 4), "2^99");
    assert_eq!(super::tiles::number_text(100, 4), "2^1…");
    assert_eq!(super::tiles::number_text(127, 5), "2^127");
}

/// Issue 74: the advice was one plain character beside the board. It is on the board, in
/// its colours: across the way the tiles go (between columns for left and right, between
/// rows for up and down), and a big arrow in every empty cell where numbers are big.
#[test]
fn the_advice_is_drawn_on_the_board() {
    let rules = Rules::classic();
    let g = game(
        &[vec![2, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0, 0, 0, 4]],
        rules,
    );
    let board = ColorMode::TrueColor.board().unwrap().bg;
    for (width, height) in [(80, 24), (120, 40)] {
        for (to, arrow) in [(Direction::Left, '<'), (Direction::Up, '^')] {
            let mut v = view(
                Screen::Game { game: &g, best: 0 },
                &rules,
                ColorMode::TrueColor,
            );
            v.advised = Some(to);
            let frame = render(&v, width, height);
            let ((left, top, w, h), (tile_w, tile_h)) = board_place(&frame);
            let marks: Vec<(usize, usize)> = (top - 1..=top + h)
                .flat_map(|r| (left - 2..=left + w + 1).map(move |c| (r, c)))
                .filter(|&(r, c)| frame.cell(r, c).ch == arrow)
                .collect();
            // Five strips of board a row (two margins, three gaps), on four rows or columns.
            assert_eq!(marks.len(), 20, "{to:?} at {width}x{height}");
            for &(r, c) in &marks {
                assert_eq!(frame.cell(r, c).style.bg, board, "on the board");
                let (dr, dc) = ((r + 1 - top) % (tile_h + 1), (c + 2 - left) % (tile_w + 2));
                if to == Direction::Left {
                    assert!(dc < 2, "between columns: {r},{c}");
                } else {
                    assert_eq!(dr, 0, "between rows: {r},{c}");
                }
            }
            // Big numbers (at 120x40), big arrows: one in each of the 14 empty cells.
            let big = super::glyphs::arrow(to);
            let text = frame.to_text();
            let count = text.matches(big[0].as_str()).count();
            assert_eq!(tile_h >= 5 && tile_w >= 17, width == 120);
            if width == 120 {
                assert!(count >= 14, "{to:?} at {width}x{height}:\n{text}");
            } else {
                assert_eq!(count, 0);
            }
        }
    }
}

/// The tile that appeared last is marked `new` on tiles with big numbers too, half rows or not.
#[test]
fn the_new_tile_is_marked_above_big_numbers() {
    let rules = Rules::classic();
    let g = game(
        &[vec![2, 0, 0, 0], vec![0; 4], vec![0; 4], vec![0, 0, 0, 4]],
        rules,
    );
    for (width, height) in [(120, 40), (200, 60)] {
        let mut v = view(
            Screen::Game { game: &g, best: 0 },
            &rules,
            ColorMode::TrueColor,
        );
        v.new_tile = Some((3, 3));
        let frame = render(&v, width, height);
        let ((left, top, w, h), (tile_w, tile_h)) = board_place(&frame);
        assert!(
            tile_h >= 5 && tile_w >= 17,
            "big numbers at {width}x{height}"
        );
        let half = super::layout::game_layout(4, width, height).unwrap().half;
        assert_eq!(half, width == 200, "half rows at 200x60 only");
        let (col, row) = (left + w - tile_w, top + h - tile_h);
        let middle = row + (tile_h - 1) / 2;
        let mark: String = (0..3)
            .map(|k| frame.cell(middle - 2, col + (tile_w - 3) / 2 + k).ch)
            .collect();
        assert_eq!(mark, "new", "{width}x{height}");
        assert_eq!(
            frame.cell(middle - 2, col).style.bg,
            frame.cell(middle, col).style.bg,
            "inside the tile's block"
        );
    }
}

/// No frame of a move's motion draws outside the board's rows: a merged tile pops into the
/// gaps and margin, never onto the score line or the message (at 40x12 the board has no
/// margin above or below).
#[test]
fn a_move_in_motion_stays_on_the_board() {
    use super::motion::{Motion, SCHEDULE};
    let rules = Rules::classic();
    for rows in [
        [vec![2, 2, 0, 0], vec![0; 4], vec![0; 4], vec![0; 4]],
        [vec![0; 4], vec![0; 4], vec![0; 4], vec![4, 4, 0, 0]],
    ] {
        let before = Board::from_values(&rows).unwrap();
        let mut after = before.slide(Direction::Left).unwrap().0;
        after.set(1, 3, 1);
        let g = Game::from_board(rules, after);
        let motion = Motion::new(&before, Direction::Left, &after, 4).unwrap();
        for (width, height) in [(40, 12), (60, 20), (80, 24)] {
            let mut v = view(
                Screen::Game { game: &g, best: 0 },
                &rules,
                ColorMode::TrueColor,
            );
            let rest = render(&v, width, height);
            let layout = super::layout::game_layout(4, width, height).unwrap();
            let board_rows = layout.board.1..layout.board.1 + layout.board_size.1;
            for &at in &SCHEDULE {
                v.motion = Some((&motion, at));
                let frame = render(&v, width, height);
                for r in (0..height).filter(|r| !board_rows.contains(r)) {
                    for c in 0..width {
                        assert_eq!(
                            frame.cell(r, c).style.bg,
                            rest.cell(r, c).style.bg,
                            "{width}x{height} at {at:?}: row {r}, column {c}"
                        );
                    }
                }
            }
        }
    }
}
