//! The tiles' colours in each colour mode: the original web game's palette in 24-bit colour,
//! that palette mapped to 256 colours so that no two values share a background, and a scheme
//! of its own for the 8 basic colours in which every value differs in (foreground, background,
//! bold) and no digit is drawn in its background's colour.

use crossterm::style::Color;
use std::sync::OnceLock;

/// How colours are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ColorMode {
    /// No colour (`NO_COLOR`, `--color never`, a monochrome terminal such as a VT100): tiles
    /// are told apart by their numbers.
    None,
    /// The 8 colours every colour terminal has (`TERM=xterm`, `linux`, `screen`): a scheme of
    /// its own, in which every value differs in digits, background or bold.
    Basic,
    /// The 256-colour palette (`TERM=xterm-256color`, `tmux-256color`, ...).
    Ansi256,
    /// 24-bit colour (`COLORTERM=truecolor`).
    TrueColor,
}

/// How one tile is drawn: its digits' colour, its background, bold digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileStyle {
    /// The digits' colour, if any.
    pub fg: Option<Color>,
    /// The tile's background, if any.
    pub bg: Option<Color>,
    /// Bold digits.
    pub bold: bool,
}

impl ColorMode {
    /// The mode for `--color` (`auto`, `always`, `never`) and the environment's conventions:
    /// `NO_COLOR`, `COLORTERM`, and what `TERM` names. `always` draws in colour even where the
    /// terminal's name says it has none (at least [`ColorMode::Basic`]).
    pub fn choose(
        flag: &str,
        no_color: bool,
        colorterm: Option<&str>,
        term: Option<&str>,
    ) -> ColorMode {
        let best = ColorMode::of_terminal(colorterm, term);
        match flag {
            "never" => ColorMode::None,
            "always" => best.max(ColorMode::Basic),
            _ if no_color => ColorMode::None,
            _ => best,
        }
    }

    /// What a terminal draws, by the conventions programs share: `COLORTERM=truecolor` (or
    /// `24bit`) for 24-bit colour; a `TERM` naming 256 colours (`*256color*`, `*-direct`) or a
    /// terminal known to have them; none for `dumb` and the VT terminals (`vt100`, `vt220`);
    /// else the 8 basic colours. Windows consoles set no `TERM` and have 256 colours.
    fn of_terminal(colorterm: Option<&str>, term: Option<&str>) -> ColorMode {
        const WITH_256: &[&str] = &[
            "alacritty",
            "foot",
            "wezterm",
            "xterm-kitty",
            "xterm-ghostty",
        ];
        if matches!(colorterm, Some("truecolor" | "24bit")) {
            return ColorMode::TrueColor;
        }
        match term {
            None if cfg!(windows) => ColorMode::Ansi256,
            Some(t)
                if t.contains("256color") || t.ends_with("-direct") || WITH_256.contains(&t) =>
            {
                ColorMode::Ansi256
            }
            Some(t) if t == "dumb" || is_vt(t) => ColorMode::None,
            _ => ColorMode::Basic,
        }
    }

    /// How the tile of `exponent` (0 for an empty cell) is drawn. The digits are bold on
    /// every tile but in 8 colours, where bold is one of the scheme's three parts.
    pub fn tile(self, exponent: u8) -> TileStyle {
        let background = web_background(exponent);
        let bold = exponent > 0;
        match self {
            ColorMode::None => TileStyle {
                fg: None,
                bg: None,
                bold,
            },
            ColorMode::TrueColor => TileStyle {
                fg: Some(rgb(text_on(background))),
                bg: Some(rgb(background)),
                bold,
            },
            ColorMode::Ansi256 => {
                let entry = backgrounds_256()[shade(exponent)];
                let text = text_on(palette_256(entry));
                TileStyle {
                    fg: Some(Color::AnsiValue(nearest_256(text, &[]))),
                    bg: Some(Color::AnsiValue(entry)),
                    bold,
                }
            }
            ColorMode::Basic => basic_style(exponent),
        }
    }
}

/// Whether `term` names a DEC VT terminal (`vt100`, `vt220`), which has no colour; `vte`
/// (GNOME's terminals) has.
fn is_vt(term: &str) -> bool {
    term.strip_prefix("vt")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

fn rgb((r, g, b): (u8, u8, u8)) -> Color {
    Color::Rgb { r, g, b }
}

/// The exponents told apart by colour: the empty cell, 2 to 2048, and nine past it (to
/// 1,048,576); higher values take the colours of those past 2048 again, in turn.
const SHADES: usize = 21;

/// The colour index of `exponent` (below [`SHADES`]).
fn shade(exponent: u8) -> usize {
    let e = usize::from(exponent);
    if e < SHADES {
        e
    } else {
        12 + (e - 12) % (SHADES - 12)
    }
}

/// The web game's dark and light digits.
const DARK: (u8, u8, u8) = (0x77, 0x6e, 0x65);
const LIGHT: (u8, u8, u8) = (0xf9, 0xf6, 0xf2);

/// The web game's digits that read better on `background`: of its dark and light ones, the one
/// of the higher contrast (WCAG's ratio of relative luminances). The web game draws light digits
/// on its pale yellows (128 to 2048), which read poorly; they get the dark ones.
fn text_on(background: (u8, u8, u8)) -> (u8, u8, u8) {
    let luminance = |(r, g, b): (u8, u8, u8)| {
        let linear = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.039_28 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
    };
    let contrast = |a: (u8, u8, u8), b: (u8, u8, u8)| {
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    };
    if contrast(DARK, background) >= contrast(LIGHT, background) {
        DARK
    } else {
        LIGHT
    }
}

/// The web game's background of a tile, and dark ones of our own past 2048 (where the web game
/// draws every tile alike).
fn web_background(exponent: u8) -> (u8, u8, u8) {
    const BACKGROUNDS: [(u8, u8, u8); SHADES] = [
        (0xcd, 0xc1, 0xb4),
        (0xee, 0xe4, 0xda),
        (0xed, 0xe0, 0xc8),
        (0xf2, 0xb1, 0x79),
        (0xf5, 0x95, 0x63),
        (0xf6, 0x7c, 0x5f),
        (0xf6, 0x5e, 0x3b),
        (0xed, 0xcf, 0x72),
        (0xed, 0xcc, 0x61),
        (0xed, 0xc8, 0x50),
        (0xed, 0xc5, 0x3f),
        (0xed, 0xc2, 0x2e),
        (0x3c, 0x3a, 0x32),
        (0x5a, 0x3f, 0x6e),
        (0x2f, 0x5b, 0x8a),
        (0x1f, 0x6f, 0x5c),
        (0x7a, 0x2e, 0x2e),
        (0x4a, 0x5a, 0x23),
        (0x6b, 0x3a, 0x5a),
        (0x2a, 0x2a, 0x6a),
        (0x11, 0x11, 0x11),
    ];
    BACKGROUNDS[shade(exponent)]
}

/// The colour of entry `index` (16 to 255) of the 256-colour palette, as xterm draws it: a
/// 6x6x6 cube, then 24 greys. Entries 0-15 are left out: each terminal's theme sets them.
fn palette_256(index: u8) -> (u8, u8, u8) {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    if index >= 232 {
        let grey = 8 + 10 * (index - 232);
        return (grey, grey, grey);
    }
    let i = index - 16;
    (
        LEVELS[usize::from(i / 36)],
        LEVELS[usize::from(i / 6 % 6)],
        LEVELS[usize::from(i % 6)],
    )
}

/// The entry of the 256-colour palette nearest `color` that is not in `taken`, by the
/// "redmean" distance (RGB weighted as the eye weighs it, more than plain RGB distance does).
fn nearest_256(color: (u8, u8, u8), taken: &[u8]) -> u8 {
    let distance = |(r, g, b): (u8, u8, u8)| {
        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
        let mean = i32::midpoint(i32::from(r), i32::from(color.0));
        (512 + mean) * d(r, color.0) + 1024 * d(g, color.1) + (767 - mean) * d(b, color.2)
    };
    (16..=255)
        .filter(|index| !taken.contains(index))
        .min_by_key(|&index| distance(palette_256(index)))
        .expect("more entries than shades")
}

/// Each shade's background in 256 colours: the nearest entry to its web colour that no shade
/// before it took (the empty cell first, then from 2 up), so no two share one.
fn backgrounds_256() -> &'static [u8; SHADES] {
    static TABLE: OnceLock<[u8; SHADES]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [0; SHADES];
        for shade in 0..SHADES {
            let exponent = u8::try_from(shade).expect("a few shades");
            table[shade] = nearest_256(web_background(exponent), &table[..shade]);
        }
        table
    })
}

/// The scheme of the 8 basic colours: (digits, background, bold) for the empty cell, 2 to
/// 2048 and the values past it, each different, no digit in its background's colour, and
/// only pairs that read on xterm's colours and on the usual themes' (bold brightens the digits
/// in most terminals). Values past 2048 take the dark blue and black backgrounds in turn.
fn basic_style(exponent: u8) -> TileStyle {
    use Color::{Black, DarkBlue, DarkCyan, DarkGreen, DarkMagenta, DarkRed, DarkYellow, Grey};
    const SCHEME: [(Color, Color, bool); SHADES] = [
        (Black, Grey, false),
        (Black, Grey, true),
        (DarkBlue, Grey, true),
        (Black, DarkYellow, false),
        (DarkRed, DarkYellow, true),
        (Grey, DarkRed, false),
        (DarkYellow, DarkRed, true),
        (Black, DarkCyan, false),
        (DarkBlue, DarkCyan, true),
        (Grey, DarkMagenta, false),
        (DarkYellow, DarkMagenta, true),
        (Grey, DarkGreen, true),
        (Grey, DarkBlue, true),
        (DarkYellow, DarkBlue, true),
        (DarkCyan, DarkBlue, true),
        (Grey, Black, true),
        (DarkYellow, Black, true),
        (DarkCyan, Black, true),
        (DarkGreen, Black, true),
        (DarkMagenta, Black, true),
        (DarkRed, Black, true),
    ];
    let (fg, bg, bold) = SCHEME[shade(exponent)];
    TileStyle {
        fg: Some(fg),
        bg: Some(bg),
        bold,
    }
}

/// The number (0 to 7) of one of the 8 basic colours, written as the plain codes (`ESC [ 3N m`,
/// `ESC [ 4N m`) every colour terminal reads; crossterm writes them as palette entries
/// (`ESC [ 38;5;N m`), which a terminal of 8 colours does not.
pub(super) fn basic_code(color: Color) -> Option<u8> {
    match color {
        Color::Black => Some(0),
        Color::DarkRed => Some(1),
        Color::DarkGreen => Some(2),
        Color::DarkYellow => Some(3),
        Color::DarkBlue => Some(4),
        Color::DarkMagenta => Some(5),
        Color::DarkCyan => Some(6),
        Color::Grey | Color::White => Some(7),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// The values up to 2048 and the empty cell, then those past 2048 a board can hold.
    const UP_TO_2048: std::ops::RangeInclusive<u8> = 0..=11;
    const PAST_2048: std::ops::RangeInclusive<u8> = 12..=20;

    #[test]
    fn in_256_colours_no_two_values_share_a_background() {
        let backgrounds: HashSet<_> = (0..=20).map(|e| ColorMode::Ansi256.tile(e).bg).collect();
        assert_eq!(backgrounds.len(), 21);
        for e in 0..=20 {
            let style = ColorMode::Ansi256.tile(e);
            assert_ne!(style.fg, style.bg, "the digits of {e} in their background");
        }
        // The first shades take the nearest entry outright.
        assert_eq!(backgrounds_256()[0], nearest_256(web_background(0), &[]));
    }

    #[test]
    fn in_8_colours_every_value_has_a_style_of_its_own_and_readable_digits() {
        let up_to: HashSet<_> = UP_TO_2048.map(|e| ColorMode::Basic.tile(e)).collect();
        assert_eq!(up_to.len(), 12);
        let past: HashSet<_> = PAST_2048.map(|e| ColorMode::Basic.tile(e)).collect();
        assert_eq!(past.len(), 9);
        assert!(up_to.is_disjoint(&past));
        for e in 0..=40 {
            let style = ColorMode::Basic.tile(e);
            let (fg, bg) = (style.fg.and_then(basic_code), style.bg.and_then(basic_code));
            assert!(fg.is_some() && bg.is_some(), "{e}");
            assert_ne!(fg, bg, "the digits of {e} in their background");
        }
    }

    #[test]
    fn truecolor_draws_the_web_games_palette_and_tells_the_values_past_2048_apart() {
        assert_eq!(
            ColorMode::TrueColor.tile(11).bg,
            Some(Color::Rgb {
                r: 0xed,
                g: 0xc2,
                b: 0x2e
            })
        );
        let past: HashSet<_> = PAST_2048.map(|e| ColorMode::TrueColor.tile(e).bg).collect();
        assert_eq!(past.len(), 9);
        assert_eq!(ColorMode::None.tile(3).bg, None);
    }
}
