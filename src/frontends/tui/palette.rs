//! The tiles' colours in each colour mode: the original web game's palette in 24-bit colour,
//! that palette mapped to 256 colours so that no two values share a background, and a scheme
//! of its own for the 8 basic colours whose digits read under every common palette; and the
//! board's colour behind them in each.

use super::color::{Rgb, contrast, difference, palette_256};
use crate::text::colours::{BOARD, MIN_CONTRAST, SHADES, TRUE_BACKGROUNDS, digits_on, shade};
use crossterm::style::Color;
use std::sync::OnceLock;

/// How colours are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ColorMode {
    /// No colour (`NO_COLOR`, `--color never`, a monochrome terminal such as a VT100): tiles
    /// are told apart by their numbers.
    None,
    /// The 8 colours every colour terminal has (`TERM=xterm`, `linux`, `screen`): a scheme of
    /// its own whose digits read under every common palette, the goal a look of its own.
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
    /// Reverse video: a block in the text's colour with the digits in the background's (tiles
    /// without colour).
    pub reverse: bool,
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
    /// every tile but in 8 colours, where bold is one of the scheme's three parts; without
    /// colour, tiles are blocks in reverse video.
    pub fn tile(self, exponent: u8) -> TileStyle {
        let shade = shade(exponent);
        let bold = exponent > 0;
        match self {
            ColorMode::None => TileStyle {
                fg: None,
                bg: None,
                bold,
                reverse: exponent > 0,
            },
            ColorMode::TrueColor => {
                let background = TRUE_BACKGROUNDS[shade];
                TileStyle {
                    fg: Some(rgb(digits_on(background))),
                    bg: Some(rgb(background)),
                    bold,
                    reverse: false,
                }
            }
            ColorMode::Ansi256 => TileStyle {
                fg: Some(Color::AnsiValue(digits_256()[shade])),
                bg: Some(Color::AnsiValue(BACKGROUNDS_256[shade])),
                bold,
                reverse: false,
            },
            ColorMode::Basic => basic_style(shade),
        }
    }
}

/// Whether `term` names a DEC VT terminal (`vt100`, `vt220`), which has no colour; `vte`
/// (GNOME's terminals) has.
fn is_vt(term: &str) -> bool {
    term.strip_prefix("vt")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

fn rgb((r, g, b): Rgb) -> Color {
    Color::Rgb { r, g, b }
}

/// Each shade's background in 256 colours: the palette entries nearest (CIEDE2000) to
/// [`TRUE_BACKGROUNDS`] under the rules a board needs: every two at least 10 apart, none
/// near-black (L* 25 or more), each within 30 degrees of its colour's hue, and the hues moving
/// one way in each family (2 to 64 toward red, 128 to 2048 from lemon to amber, past 2048
/// round the wheel). Chosen by a search for the least sum of squared differences; the tests
/// check each rule, and that no entry nearer to a shade's colour keeps them.
pub(super) const BACKGROUNDS_256: [u8; SHADES] = [
    250, 255, 187, 180, 208, 209, 196, 185, 220, 178, 222, 214, 61, 96, 125, 124, 58, 22, 29, 23,
    24,
];

/// Each shade's digits in 256 colours: [`digits_256_on`] its background.
fn digits_256() -> &'static [u8; SHADES] {
    static TABLE: OnceLock<[u8; SHADES]> = OnceLock::new();
    TABLE.get_or_init(|| BACKGROUNDS_256.map(digits_256_on))
}

/// The digits on the 256-colour entry `background`: the entry nearest (CIEDE2000) to the
/// digits 24-bit colour would draw on it ([`digits_on`]) among those that reach
/// [`MIN_CONTRAST`] with it.
fn digits_256_on(entry: u8) -> u8 {
    let background = palette_256(entry);
    let wanted = digits_on(background);
    (16..=255)
        .filter(|&i| contrast(palette_256(i), background) >= MIN_CONTRAST)
        .min_by(|&a, &b| {
            difference(palette_256(a), wanted).total_cmp(&difference(palette_256(b), wanted))
        })
        .expect("black or white reads on any background")
}

/// The scheme of the 8 basic colours: (digits, background, bold) for 2 to 2048 and the values
/// past it. Only ten pairs of digits and tile keep 3:1 under every common palette (xterm,
/// VGA, GNOME, Tango, Solarized), bold digits bright or not, without black (the terminal's own
/// background) or yellow (the board's): light tiles for 2 to 8 and 64, red for 16 and 32,
/// cyan and blue from 128 (512 and 1024 alike, as the web game's golds nearly are), green
/// for the goal and no other value; past it the other looks come round again. The empty cell is a hole of the terminal's own background in the board, a
/// look no tile has.
fn basic_style(shade: usize) -> TileStyle {
    use Color::{Black, DarkBlue, DarkCyan, DarkGreen, DarkRed, Grey};
    const SCHEME: [(Color, Color, bool); SHADES - 1] = [
        (Black, Grey, false),
        (Black, Grey, true),
        (DarkRed, Grey, false),
        (Grey, DarkRed, false),
        (Grey, DarkRed, true),
        (DarkBlue, Grey, false),
        (Black, DarkCyan, false),
        (Grey, DarkBlue, false),
        (Grey, DarkBlue, true),
        (Grey, DarkBlue, true),
        (Black, DarkGreen, false),
        (Grey, DarkRed, true),
        (Grey, DarkBlue, false),
        (Black, DarkCyan, false),
        (Grey, DarkBlue, true),
        (Grey, DarkRed, false),
        (DarkRed, Grey, false),
        (DarkBlue, Grey, false),
        (Black, Grey, true),
        (Black, Grey, false),
    ];
    let Some(&(fg, bg, bold)) = shade.checked_sub(1).and_then(|s| SCHEME.get(s)) else {
        return TileStyle {
            fg: None,
            bg: None,
            bold: false,
            reverse: false,
        };
    };
    TileStyle {
        fg: Some(fg),
        bg: Some(bg),
        bold,
        reverse: false,
    }
}

/// The board's colour in 256 colours: the entry nearest (CIEDE2000) to the web game's board
/// ([`BOARD`]) that stands apart from every tile's background.
pub(super) const BOARD_256: u8 = 246;

impl ColorMode {
    /// How the board behind the tiles is drawn (the gaps between them, its margin), and marks
    /// on it (the advice's arrows): `None` without colour, where the board is the terminal's
    /// own background.
    pub fn board(self) -> Option<TileStyle> {
        let (fg, bg) = match self {
            ColorMode::None => return None,
            ColorMode::Basic => (Color::Black, Color::DarkYellow),
            ColorMode::Ansi256 => {
                static DIGITS: OnceLock<u8> = OnceLock::new();
                let digits = *DIGITS.get_or_init(|| digits_256_on(BOARD_256));
                (Color::AnsiValue(digits), Color::AnsiValue(BOARD_256))
            }
            ColorMode::TrueColor => (rgb(digits_on(BOARD)), rgb(BOARD)),
        };
        // Black is never bold on 8 colours: bright black is grey.
        Some(TileStyle {
            fg: Some(fg),
            bg: Some(bg),
            bold: self != ColorMode::Basic,
            reverse: false,
        })
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
mod tests;
