//! The tiles' colours checked by their properties, each computed here: differences
//! (CIEDE2000), lightness, hues and contrast, in every colour mode.

use super::super::color::{PALETTES_8, Palette8, difference, hue, lab};
use super::*;
use std::collections::HashSet;

/// Every shade: the empty cell, 2 to 2048, and the values past it to 2^20.
const ALL: std::ops::RangeInclusive<u8> = 0..=20;

/// Two colours a board may put side by side must differ by this much (CIEDE2000).
const APART: f64 = 10.0;

/// No tile is darker than this lightness (L*): near-black tiles vanish on dark terminals.
const NOT_DARK: f64 = 25.0;

/// The colour a 256-colour style draws.
fn drawn_256(color: Option<Color>) -> Rgb {
    match color {
        Some(Color::AnsiValue(i)) => palette_256(i),
        other => panic!("not a palette entry: {other:?}"),
    }
}

fn drawn_true(color: Option<Color>) -> Rgb {
    match color {
        Some(Color::Rgb { r, g, b }) => (r, g, b),
        other => panic!("not 24-bit: {other:?}"),
    }
}

/// The smallest angle between two hues, in degrees.
fn hue_gap(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(360.0);
    d.min(360.0 - d)
}

/// Whether `entries` (the 256-colour background of each shade) keeps the rules at `shade`:
/// apart from every other shade's, not dark, near its colour's hue, and its hue moving the
/// family's way from the shade before and to the shade after.
fn keeps_the_rules(entries: &[u8; SHADES], shade: usize) -> bool {
    let color = |s: usize| palette_256(entries[s]);
    let apart = (0..SHADES).filter(|&other| other != shade).all(|other| {
        entries[other] != entries[shade] && difference(color(other), color(shade)) >= APART
    });
    let (target_hue, target_chroma) = hue(TRUE_BACKGROUNDS[shade]);
    let near_hue = target_chroma <= 15.0 || hue_gap(hue(color(shade)).0, target_hue) <= 30.0;
    let step = |s: usize| {
        let (before, after) = (hue(color(s - 1)).0, hue(color(s)).0);
        match s {
            // 2 to 64: toward red, a few degrees at least each step.
            2..=6 => after <= before - 3.0,
            // 128 to 2048: from lemon toward amber.
            8..=11 => after <= before + 2.0,
            // Past 2048: round the wheel.
            13..=20 => {
                let turn = (after - before).rem_euclid(360.0);
                turn > 5.0 && turn < 120.0
            }
            _ => true,
        }
    };
    let steps = [shade, shade + 1]
        .into_iter()
        .filter(|&s| (1..SHADES).contains(&s))
        .all(step);
    apart && lab(color(shade))[0] >= NOT_DARK && near_hue && steps
}

#[test]
fn in_256_colours_every_two_values_are_apart_and_none_is_dark() {
    let backgrounds: HashSet<_> = ALL.map(|e| ColorMode::Ansi256.tile(e).bg).collect();
    assert_eq!(backgrounds.len(), SHADES);
    for a in ALL {
        let one = drawn_256(ColorMode::Ansi256.tile(a).bg);
        assert!(lab(one)[0] >= NOT_DARK, "{a}: L* {}", lab(one)[0]);
        for b in ALL.filter(|&b| b > a) {
            let two = drawn_256(ColorMode::Ansi256.tile(b).bg);
            let d = difference(one, two);
            assert!(d >= APART, "2^{a} and 2^{b}: {d:.1} apart");
        }
    }
}

#[test]
fn in_256_colours_each_value_takes_the_nearest_entry_that_keeps_the_rules() {
    for shade in 0..SHADES {
        assert!(keeps_the_rules(&BACKGROUNDS_256, shade), "shade {shade}");
        let target = TRUE_BACKGROUNDS[shade];
        let chosen = difference(palette_256(BACKGROUNDS_256[shade]), target);
        // Within reach of the web game's colour.
        assert!(chosen < 13.0, "shade {shade}: {chosen:.1} from its colour");
        for entry in 16..=255u8 {
            if difference(palette_256(entry), target) < chosen {
                let mut other = BACKGROUNDS_256;
                other[shade] = entry;
                assert!(
                    !keeps_the_rules(&other, shade),
                    "shade {shade}: entry {entry} is nearer and keeps the rules"
                );
            }
        }
    }
}

#[test]
fn hues_keep_rising_past_2048() {
    for mode in [ColorMode::Ansi256, ColorMode::TrueColor] {
        let hues: Vec<f64> = (12..=20)
            .map(|e| {
                let style = mode.tile(e);
                let color = match mode {
                    ColorMode::Ansi256 => drawn_256(style.bg),
                    _ => drawn_true(style.bg),
                };
                hue(color).0
            })
            .collect();
        let mut total = 0.0;
        for pair in hues.windows(2) {
            let turn = (pair[1] - pair[0]).rem_euclid(360.0);
            assert!(turn > 5.0 && turn < 120.0, "{mode:?}: {hues:?}");
            total += turn;
        }
        assert!(total < 360.0, "once round at most: {hues:?}");
    }
}

#[test]
fn digits_read_at_3_to_1_in_256_colours_and_24_bit() {
    for e in ALL {
        let style = ColorMode::Ansi256.tile(e);
        let ratio = contrast(drawn_256(style.fg), drawn_256(style.bg));
        assert!(ratio >= 3.0, "256 colours, 2^{e}: {ratio:.2}");
        let style = ColorMode::TrueColor.tile(e);
        let ratio = contrast(drawn_true(style.fg), drawn_true(style.bg));
        assert!(ratio >= 3.0, "24-bit, 2^{e}: {ratio:.2}");
    }
}

#[test]
fn truecolor_draws_the_web_games_palette_and_its_own_past_2048_apart_and_not_dark() {
    assert_eq!(
        ColorMode::TrueColor.tile(11).bg,
        Some(Color::Rgb {
            r: 0xed,
            g: 0xc2,
            b: 0x2e
        })
    );
    for a in 12..=20 {
        let one = drawn_true(ColorMode::TrueColor.tile(a).bg);
        assert!(lab(one)[0] >= NOT_DARK, "{a}");
        for b in ALL.filter(|&b| b != a) {
            let two = drawn_true(ColorMode::TrueColor.tile(b).bg);
            assert!(difference(one, two) >= APART, "2^{a} and 2^{b}");
        }
    }
    // Values past 2^20 take the colours past 2048 again.
    assert_eq!(ColorMode::TrueColor.tile(21), ColorMode::TrueColor.tile(12));
}

/// The colour one of the 8 basic colours takes under `palette`; bold digits in the bright one.
fn basic_rgb(palette: &Palette8, color: Option<Color>, bright: bool) -> Rgb {
    let code = usize::from(color.and_then(basic_code).expect("a basic colour"));
    if bright {
        palette.2[code]
    } else {
        palette.1[code]
    }
}

/// The least contrast of `style`'s digits on its background under any common palette, bold
/// digits drawn bright or not (many terminals only bolden).
fn least_contrast_8(style: TileStyle) -> (f64, &'static str) {
    PALETTES_8
        .iter()
        .flat_map(|palette| {
            [style.bold, false].map(|bright| {
                let ratio = contrast(
                    basic_rgb(palette, style.fg, bright),
                    basic_rgb(palette, style.bg, false),
                );
                (ratio, palette.0)
            })
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .expect("palettes")
}

#[test]
fn in_8_colours_digits_read_at_3_to_1_under_every_common_palette() {
    let board = ColorMode::Basic.board().expect("a board colour");
    for e in 1..=40 {
        let style = ColorMode::Basic.tile(e);
        // A block on a dark terminal: never black, never the terminal's own background,
        // never the board's colour.
        assert!(
            style.bg.is_some() && style.bg != Some(Color::Black) && style.bg != board.bg,
            "2^{e} has no block of its own"
        );
        let (ratio, palette) = least_contrast_8(style);
        assert!(ratio >= MIN_CONTRAST, "2^{e} under {palette}: {ratio:.2}");
    }
    // The advice's arrows on the board read too.
    let (ratio, palette) = least_contrast_8(board);
    assert!(
        ratio >= MIN_CONTRAST,
        "the board under {palette}: {ratio:.2}"
    );
}

#[test]
fn in_8_colours_the_empty_cell_the_board_and_the_goal_have_looks_of_their_own() {
    let empty = ColorMode::Basic.tile(0);
    let board = ColorMode::Basic.board().expect("a board colour");
    for e in 1..=40 {
        let tile = ColorMode::Basic.tile(e);
        assert_ne!(tile.bg, empty.bg, "2^{e} looks like an empty cell");
        assert_ne!(tile.bg, board.bg, "2^{e} looks like the board");
    }
    assert_ne!(empty.bg, board.bg);
    // 2 to 2048: ten looks (512 and 1024 alike), the goal's its own among every value.
    let looks: HashSet<_> = (1..=11).map(|e| ColorMode::Basic.tile(e)).collect();
    assert_eq!(looks.len(), 10);
    let goal = ColorMode::Basic.tile(11);
    assert!((1..=63).all(|e| e == 11 || ColorMode::Basic.tile(e) != goal));
}

#[test]
fn the_board_has_a_colour_of_its_own_in_every_colour_mode() {
    assert_eq!(ColorMode::None.board(), None);
    // 24-bit: the web game's board, its marks readable.
    let board = ColorMode::TrueColor.board().unwrap();
    assert_eq!(drawn_true(board.bg), BOARD);
    assert!(contrast(drawn_true(board.fg), BOARD) >= MIN_CONTRAST);
    // 256 colours: the entry nearest the web game's board apart from every tile.
    let apart = |entry: u8| {
        ALL.into_iter().all(|e| {
            difference(palette_256(entry), drawn_256(ColorMode::Ansi256.tile(e).bg)) >= APART
        })
    };
    assert!(apart(BOARD_256));
    let chosen = difference(palette_256(BOARD_256), BOARD);
    for entry in 16..=255u8 {
        assert!(
            difference(palette_256(entry), BOARD) >= chosen || !apart(entry),
            "entry {entry} is nearer and apart"
        );
    }
    let board = ColorMode::Ansi256.board().unwrap();
    assert!(contrast(drawn_256(board.fg), drawn_256(board.bg)) >= MIN_CONTRAST);
}

#[test]
fn without_colour_tiles_are_blocks_in_reverse_video() {
    assert!(ColorMode::None.tile(3).reverse && ColorMode::None.tile(3).bg.is_none());
    assert!(
        !ColorMode::None.tile(0).reverse,
        "an empty cell stays blank"
    );
}
