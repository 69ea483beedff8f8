//! The tiles' colours as the game draws them in 24-bit colour (the full screen, a feedback
//! page): the original web game's palette to 2048 and colours of our own past it, each with
//! digits that read on it at [`MIN_CONTRAST`] or more, and WCAG's measure of that contrast.
//! The full screen maps these to the 256 and 8 colours terminals have.

/// A colour as sRGB bytes.
pub type Rgb = (u8, u8, u8);

/// The linear-light value of an sRGB byte.
pub fn linear(v: u8) -> f64 {
    let v = f64::from(v) / 255.0;
    if v <= 0.040_45 {
        v / 12.92
    } else {
        ((v + 0.055) / 1.055).powf(2.4)
    }
}

/// WCAG's relative luminance (0 for black, 1 for white).
pub fn luminance((r, g, b): Rgb) -> f64 {
    0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)
}

/// WCAG's contrast ratio of two colours: 1 (the same) to 21 (black on white). Text of 3:1
/// reads as large text; tiles' digits are bold and large.
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// The exponents told apart by colour: the empty cell, 2 to 2048, and nine past it (to
/// 1,048,576); higher values take the colours of those past 2048 again, in turn.
pub const SHADES: usize = 21;

/// The colour index of `exponent` (below [`SHADES`]).
pub fn shade(exponent: u8) -> usize {
    let e = usize::from(exponent);
    if e < SHADES {
        e
    } else {
        12 + (e - 12) % (SHADES - 12)
    }
}

/// The least contrast (WCAG) of a tile's digits with its background, in every colour mode.
pub const MIN_CONTRAST: f64 = 3.0;

/// The web game's dark and light digits.
const DARK: Rgb = (0x77, 0x6e, 0x65);
const LIGHT: Rgb = (0xf9, 0xf6, 0xf2);

/// The digits drawn on `background`: the web game's dark or light ones, whichever contrasts
/// more, taken toward black or white (a tenth at a time, the way that gets there first) until
/// they reach [`MIN_CONTRAST`]: the web game's own read at 2:1 on 16 and 32, and its light
/// digits on its pale yellows (128 to 2048) worse.
pub fn digits_on(background: Rgb) -> Rgb {
    let mix = |(r, g, b): Rgb, to: u8, tenths: u16| {
        let m = |v: u8| {
            let (v, to) = (u16::from(v), u16::from(to));
            u8::try_from((v * (10 - tenths) + to * tenths) / 10).expect("a byte")
        };
        (m(r), m(g), m(b))
    };
    let start = if contrast(DARK, background) >= contrast(LIGHT, background) {
        DARK
    } else {
        LIGHT
    };
    (0..=10)
        .flat_map(|tenths| [mix(start, 0, tenths), mix(start, 255, tenths)])
        .find(|&digits| contrast(digits, background) >= MIN_CONTRAST)
        .expect("black or white reads on any background")
}

/// Each shade's background in 24-bit colour: the web game's palette to 2048, then nine colours
/// of our own (the web game draws every tile past 2048 alike), the xterm cube's entries that
/// 256 colours draw too, their hue rising around the wheel from violet to blue, none dark.
pub const TRUE_BACKGROUNDS: [Rgb; SHADES] = [
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
    (0x5f, 0x5f, 0xaf),
    (0x87, 0x5f, 0x87),
    (0xaf, 0x00, 0x5f),
    (0xaf, 0x00, 0x00),
    (0x5f, 0x5f, 0x00),
    (0x00, 0x5f, 0x00),
    (0x00, 0x87, 0x5f),
    (0x00, 0x5f, 0x5f),
    (0x00, 0x5f, 0x87),
];

/// The board behind the tiles, as the web game draws it: the gaps between tiles.
pub const BOARD: Rgb = (0xbb, 0xad, 0xa0);

/// The background and the digits' colour of the tile of `exponent` (0: an empty cell).
pub fn tile_colours(exponent: u8) -> (Rgb, Rgb) {
    let background = TRUE_BACKGROUNDS[shade(exponent)];
    (background, digits_on(background))
}

/// `colour` as CSS writes it: `#rrggbb`.
pub fn hex((r, g, b): Rgb) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tile_reads_at_the_least_contrast_and_differs_from_the_board() {
        for exponent in 0..=63 {
            let (background, digits) = tile_colours(exponent);
            assert!(contrast(digits, background) >= MIN_CONTRAST, "{exponent}");
            assert_ne!(background, BOARD, "{exponent}");
        }
        assert_eq!(hex((0xee, 0xe4, 0xda)), "#eee4da");
        assert_eq!(tile_colours(1).0, (0xee, 0xe4, 0xda));
    }
}
