//! Big numbers: each character a glyph of 3 x 5 pixels drawn in three lines of half blocks
//! (`▀`, `▄`, `█`), for tiles tall and wide enough; and the advice's arrows alike.

use crate::model::direction::Direction;

/// The lines a big number takes.
pub(super) const LINES: usize = 3;

/// The columns one glyph takes; glyphs stand a blank column apart.
const WIDTH: usize = 3;

/// Each character's pixels, five rows of three (`#` on): the digits and the short forms'
/// suffixes ([`super::tiles::number_text`]).
const FONT: [(char, [&str; 5]); 16] = [
    ('0', ["###", "#.#", "#.#", "#.#", "###"]),
    ('1', [".#.", "##.", ".#.", ".#.", "###"]),
    ('2', ["###", "..#", "###", "#..", "###"]),
    ('3', ["###", "..#", ".##", "..#", "###"]),
    ('4', ["#.#", "#.#", "###", "..#", "..#"]),
    ('5', ["###", "#..", "###", "..#", "###"]),
    ('6', ["###", "#..", "###", "#.#", "###"]),
    ('7', ["###", "..#", ".#.", ".#.", ".#."]),
    ('8', ["###", "#.#", "###", "#.#", "###"]),
    ('9', ["###", "#.#", "###", "..#", "###"]),
    ('k', ["#..", "#.#", "##.", "#.#", "#.#"]),
    ('M', ["#.#", "###", "###", "#.#", "#.#"]),
    ('G', ["###", "#..", "#.#", "#.#", "###"]),
    ('T', ["###", ".#.", ".#.", ".#.", ".#."]),
    ('P', ["###", "#.#", "###", "#..", "#.."]),
    ('E', ["###", "#..", "##.", "#..", "###"]),
];

/// The columns `text` takes in big glyphs.
pub(super) fn width(text: &str) -> usize {
    let n = text.chars().count();
    (n * (WIDTH + 1)).saturating_sub(1)
}

/// `text` in big glyphs, [`LINES`] strings of [`width`] characters, or `None` if a character
/// has no glyph (only numbers and their short forms have).
pub(super) fn big(text: &str) -> Option<[String; LINES]> {
    let mut lines: [String; LINES] = Default::default();
    for (k, ch) in text.chars().enumerate() {
        let (_, pixels) = FONT.iter().find(|(c, _)| *c == ch)?;
        for (out, line) in lines.iter_mut().zip(glyph(pixels)) {
            if k > 0 {
                out.push(' ');
            }
            out.push_str(&line);
        }
    }
    Some(lines)
}

/// The advice's arrow toward `to` in big glyphs: a triangle left and right, an arrow with
/// its shaft up and down (three columns have no room for a triangle that points up).
pub(super) fn arrow(to: Direction) -> [String; LINES] {
    glyph(match to {
        Direction::Left => &["..#", ".##", "###", ".##", "..#"],
        Direction::Right => &["#..", "##.", "###", "##.", "#.."],
        Direction::Up => &[".#.", "###", ".#.", ".#.", ".#."],
        Direction::Down => &[".#.", ".#.", ".#.", "###", ".#."],
    })
}

/// One glyph's pixels as three lines of half blocks, two rows of pixels a line.
fn glyph(pixels: &[&str; 5]) -> [String; LINES] {
    std::array::from_fn(|line| {
        let top = pixels[2 * line].as_bytes();
        let bottom = pixels.get(2 * line + 1).map(|r| r.as_bytes());
        (0..WIDTH)
            .map(|x| {
                let up = top[x] == b'#';
                let down = bottom.is_some_and(|b| b[x] == b'#');
                match (up, down) {
                    (true, true) => '█',
                    (true, false) => '▀',
                    (false, true) => '▄',
                    (false, false) => ' ',
                }
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_numbers_are_three_lines_of_half_blocks() {
        assert_eq!(
            big("2048").unwrap(),
            [
                "▀▀█ █▀█ █ █ █▀█".to_string(),
                "█▀▀ █ █ ▀▀█ █▀█".to_string(),
                "▀▀▀ ▀▀▀   ▀ ▀▀▀".to_string(),
            ]
        );
        assert_eq!(width("2048"), 15);
        assert!(big("2^9").is_none() && big("2.9").is_none());
        assert_eq!(arrow(Direction::Right)[1], "██▀");
        // Every glyph differs from every other, the arrows' too.
        let mut all: Vec<_> = FONT.iter().map(|(c, _)| big(&c.to_string())).collect();
        all.extend(
            [
                Direction::Up,
                Direction::Down,
                Direction::Left,
                Direction::Right,
            ]
            .map(|to| Some(arrow(to))),
        );
        for (k, one) in all.iter().enumerate() {
            assert!(all[k + 1..].iter().all(|other| other != one));
        }
    }
}
