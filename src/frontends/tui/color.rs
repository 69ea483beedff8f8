//! Colour measures for choosing the tiles' colours: CIELAB and the CIEDE2000 difference (how
//! far apart two colours look), WCAG's contrast ratio (how well digits read on a tile), and
//! the colours terminals draw for their palettes' entries (xterm's, which most terminals copy
//! for the 256-colour cube and greys).

use crate::text::colours::linear;
pub(super) use crate::text::colours::{Rgb, contrast};

/// CIELAB (D65 white) of an sRGB colour: lightness L* (0 to 100), a*, b*.
#[allow(clippy::many_single_char_names)] // The standard's names.
pub(super) fn lab((r, g, b): Rgb) -> [f64; 3] {
    let (r, g, b) = (linear(r), linear(g), linear(b));
    let x = (0.412_456_4 * r + 0.357_576_1 * g + 0.180_437_5 * b) / 0.950_47;
    let y = 0.212_672_9 * r + 0.715_152_2 * g + 0.072_175_0 * b;
    let z = (0.019_333_9 * r + 0.119_192_0 * g + 0.950_304_1 * b) / 1.088_83;
    let f = |t: f64| {
        if t > 216.0 / 24389.0 {
            t.cbrt()
        } else {
            (24389.0 / 27.0 * t + 16.0) / 116.0
        }
    };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    [116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)]
}

#[cfg(test)]
/// The hue angle of a colour in CIELAB (degrees, 0 to 360) and its chroma (0 for greys).
pub(super) fn hue(color: Rgb) -> (f64, f64) {
    let [_, a, b] = lab(color);
    (b.atan2(a).to_degrees().rem_euclid(360.0), a.hypot(b))
}

/// The CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu and Dalal's
/// formulation): about 1 is the smallest difference people see side by side; tiles want 10.
#[allow(clippy::many_single_char_names)] // The formula's names.
pub(super) fn ciede2000(one: [f64; 3], two: [f64; 3]) -> f64 {
    let ([l1, a1, b1], [l2, a2, b2]) = (one, two);
    let pow7 = |v: f64| v.powi(7);
    let mean_c = f64::midpoint(a1.hypot(b1), a2.hypot(b2));
    let g = 0.5 * (1.0 - (pow7(mean_c) / (pow7(mean_c) + pow7(25.0))).sqrt());
    let (a1, a2) = ((1.0 + g) * a1, (1.0 + g) * a2);
    let (c1, c2) = (a1.hypot(b1), a2.hypot(b2));
    let angle = |b: f64, a: f64| {
        if a == 0.0 && b == 0.0 {
            0.0
        } else {
            b.atan2(a).to_degrees().rem_euclid(360.0)
        }
    };
    let (h1, h2) = (angle(b1, a1), angle(b2, a2));
    let delta_l = l2 - l1;
    let delta_c = c2 - c1;
    let chromatic = c1 * c2 != 0.0;
    let mut delta_h = h2 - h1;
    if !chromatic {
        delta_h = 0.0;
    } else if delta_h > 180.0 {
        delta_h -= 360.0;
    } else if delta_h < -180.0 {
        delta_h += 360.0;
    }
    let delta_big_h = 2.0 * (c1 * c2).sqrt() * (delta_h / 2.0).to_radians().sin();
    let mean_l = f64::midpoint(l1, l2);
    let mean_c = f64::midpoint(c1, c2);
    let mean_h = if !chromatic {
        h1 + h2
    } else if (h1 - h2).abs() <= 180.0 {
        f64::midpoint(h1, h2)
    } else if h1 + h2 < 360.0 {
        (h1 + h2 + 360.0) / 2.0
    } else {
        (h1 + h2 - 360.0) / 2.0
    };
    let cos = |degrees: f64| degrees.to_radians().cos();
    let t =
        1.0 - 0.17 * cos(mean_h - 30.0) + 0.24 * cos(2.0 * mean_h) + 0.32 * cos(3.0 * mean_h + 6.0)
            - 0.20 * cos(4.0 * mean_h - 63.0);
    let delta_theta = 30.0 * (-((mean_h - 275.0) / 25.0).powi(2)).exp();
    let r_c = 2.0 * (pow7(mean_c) / (pow7(mean_c) + pow7(25.0))).sqrt();
    let s_l = 1.0 + 0.015 * (mean_l - 50.0).powi(2) / (20.0 + (mean_l - 50.0).powi(2)).sqrt();
    let s_c = 1.0 + 0.045 * mean_c;
    let s_h = 1.0 + 0.015 * mean_c * t;
    let r_t = -(2.0 * delta_theta).to_radians().sin() * r_c;
    let (l, c, h) = (delta_l / s_l, delta_c / s_c, delta_big_h / s_h);
    (l * l + c * c + h * h + r_t * c * h).sqrt()
}

/// The CIEDE2000 difference of two sRGB colours.
pub(super) fn difference(one: Rgb, two: Rgb) -> f64 {
    ciede2000(lab(one), lab(two))
}

/// The colour of entry `index` (16 to 255) of the 256-colour palette, as xterm draws it: a
/// 6x6x6 cube, then 24 greys. Entries 0-15 are left out: each terminal's theme sets them.
pub(super) fn palette_256(index: u8) -> Rgb {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    if index >= 232 {
        let grey = 8 + 10 * (index - 232);
        return (grey, grey, grey);
    }
    let i = index.max(16) - 16;
    (
        LEVELS[usize::from(i / 36)],
        LEVELS[usize::from(i / 6 % 6)],
        LEVELS[usize::from(i % 6)],
    )
}

/// An 8-colour palette: its name, its 8 colours (black, red, green, yellow, blue, magenta,
/// cyan, white) and the bright ones bold digits take in many terminals.
#[cfg(test)]
pub(super) type Palette8 = (&'static str, [Rgb; 8], [Rgb; 8]);

/// The common 8-colour palettes the basic scheme is checked under: xterm's, the VGA's (the
/// Linux console, `PuTTY`, Windows' old console), GNOME Terminal's, Tango's and Solarized's
/// (dark, as its terminal themes give it).
#[cfg(test)]
pub(super) const PALETTES_8: [Palette8; 5] = [
    (
        "xterm",
        [
            (0x00, 0x00, 0x00),
            (0xcd, 0x00, 0x00),
            (0x00, 0xcd, 0x00),
            (0xcd, 0xcd, 0x00),
            (0x00, 0x00, 0xee),
            (0xcd, 0x00, 0xcd),
            (0x00, 0xcd, 0xcd),
            (0xe5, 0xe5, 0xe5),
        ],
        [
            (0x7f, 0x7f, 0x7f),
            (0xff, 0x00, 0x00),
            (0x00, 0xff, 0x00),
            (0xff, 0xff, 0x00),
            (0x5c, 0x5c, 0xff),
            (0xff, 0x00, 0xff),
            (0x00, 0xff, 0xff),
            (0xff, 0xff, 0xff),
        ],
    ),
    (
        "VGA (Linux console)",
        [
            (0x00, 0x00, 0x00),
            (0xaa, 0x00, 0x00),
            (0x00, 0xaa, 0x00),
            (0xaa, 0x55, 0x00),
            (0x00, 0x00, 0xaa),
            (0xaa, 0x00, 0xaa),
            (0x00, 0xaa, 0xaa),
            (0xaa, 0xaa, 0xaa),
        ],
        [
            (0x55, 0x55, 0x55),
            (0xff, 0x55, 0x55),
            (0x55, 0xff, 0x55),
            (0xff, 0xff, 0x55),
            (0x55, 0x55, 0xff),
            (0xff, 0x55, 0xff),
            (0x55, 0xff, 0xff),
            (0xff, 0xff, 0xff),
        ],
    ),
    (
        "GNOME",
        [
            (0x17, 0x14, 0x21),
            (0xc0, 0x1c, 0x28),
            (0x26, 0xa2, 0x69),
            (0xa2, 0x73, 0x4c),
            (0x12, 0x48, 0x8b),
            (0xa3, 0x47, 0xba),
            (0x2a, 0xa1, 0xb3),
            (0xd0, 0xcf, 0xcc),
        ],
        [
            (0x5e, 0x5c, 0x64),
            (0xf6, 0x61, 0x51),
            (0x33, 0xd1, 0x7a),
            (0xe9, 0xad, 0x0c),
            (0x2a, 0x7b, 0xde),
            (0xc0, 0x61, 0xcb),
            (0x33, 0xc7, 0xde),
            (0xff, 0xff, 0xff),
        ],
    ),
    (
        "Tango",
        [
            (0x2e, 0x34, 0x36),
            (0xcc, 0x00, 0x00),
            (0x4e, 0x9a, 0x06),
            (0xc4, 0xa0, 0x00),
            (0x34, 0x65, 0xa4),
            (0x75, 0x50, 0x7b),
            (0x06, 0x98, 0x9a),
            (0xd3, 0xd7, 0xcf),
        ],
        [
            (0x55, 0x57, 0x53),
            (0xef, 0x29, 0x29),
            (0x8a, 0xe2, 0x34),
            (0xfc, 0xe9, 0x4f),
            (0x72, 0x9f, 0xcf),
            (0xad, 0x7f, 0xa8),
            (0x34, 0xe2, 0xe2),
            (0xee, 0xee, 0xec),
        ],
    ),
    (
        "Solarized",
        [
            (0x07, 0x36, 0x42),
            (0xdc, 0x32, 0x2f),
            (0x85, 0x99, 0x00),
            (0xb5, 0x89, 0x00),
            (0x26, 0x8b, 0xd2),
            (0xd3, 0x36, 0x82),
            (0x2a, 0xa1, 0x98),
            (0xee, 0xe8, 0xd5),
        ],
        [
            (0x00, 0x2b, 0x36),
            (0xcb, 0x4b, 0x16),
            (0x58, 0x6e, 0x75),
            (0x65, 0x7b, 0x83),
            (0x83, 0x94, 0x96),
            (0x6c, 0x71, 0xc4),
            (0x93, 0xa1, 0xa1),
            (0xfd, 0xf6, 0xe3),
        ],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Pairs from Sharma, Wu and Dalal's test data for CIEDE2000 (2005), with the difference
    /// they give to four decimals.
    #[test]
    fn ciede2000_agrees_with_the_published_test_data() {
        let pairs = [
            ([50.0, 2.6772, -79.7751], [50.0, 0.0, -82.7485], 2.0425),
            ([50.0, 3.1571, -77.2803], [50.0, 0.0, -82.7485], 2.8615),
            ([50.0, 2.8361, -74.0200], [50.0, 0.0, -82.7485], 3.4412),
            ([50.0, 0.0, 0.0], [50.0, -1.0, 2.0], 2.3669),
            ([50.0, 2.5, 0.0], [73.0, 25.0, -18.0], 27.1492),
            ([50.0, 2.5, 0.0], [61.0, -5.0, 29.0], 22.8977),
            ([50.0, 2.5, 0.0], [56.0, -27.0, -3.0], 31.9030),
            ([50.0, 2.5, 0.0], [58.0, 24.0, 15.0], 19.4535),
            (
                [60.2574, -34.0099, 36.2677],
                [60.4626, -34.1751, 39.4387],
                1.2644,
            ),
        ];
        for (one, two, expected) in pairs {
            let d = ciede2000(one, two);
            assert!((d - expected).abs() < 5e-5, "{one:?} {two:?}: {d}");
            assert!((ciede2000(two, one) - d).abs() < 1e-9, "symmetric");
        }
    }

    #[test]
    fn contrast_runs_from_1_to_21() {
        let (black, white) = ((0, 0, 0), (255, 255, 255));
        assert!((contrast(black, white) - 21.0).abs() < 1e-9);
        assert!((contrast(white, white) - 1.0).abs() < 1e-9);
        // A grey's lightness in CIELAB: white 100, black 0, #777777 about 50.
        assert!((lab(white)[0] - 100.0).abs() < 0.01 && lab(black)[0].abs() < 0.01);
        assert!((lab((0x77, 0x77, 0x77))[0] - 50.0).abs() < 1.0);
        assert_eq!(palette_256(16), black);
        assert_eq!(palette_256(231), white);
        assert_eq!(palette_256(244), (128, 128, 128));
    }
}
