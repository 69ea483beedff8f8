//! Big numbers: each character a glyph of 3 x 5 pixels drawn in three lines of half blocks
//! (`▀`, `▄`, `█`), for tiles tall and wide enough.

/// The lines a big number takes.
pub(super) const LINES: usize = 3;

/// The columns one glyph takes; glyphs stand a blank column apart.
const WIDTH: usize = 3;

/// Each character's pixels, five rows of three (`#` on), for the digits, the short forms'
/// suffixes ([`super::tiles::number_text`]) and the advice's arrows.
const FONT: [(char, [&str; 5]); 20] = [
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
    ('<', ["..#", ".##", "###", ".##", "..#"]),
    ('>', ["#..", "##.", "###", "##.", "#.."]),
    ('^', [".#.", "###", ".#.", ".#.", ".#."]),
    ('v', [".#.", ".#.", ".#.", "###", ".#."]),
];

/// The columns `text` takes in big glyphs.
pub(super) fn width(text: &str) -> usize {
    let n = text.chars().count();
    (n * (WIDTH + 1)).saturating_sub(1)
}

/// `text` in big glyphs, [`LINES`] strings of [`width`] characters, or `None` if a character
/// has no glyph.
pub(super) fn big(text: &str) -> Option<[String; LINES]> {
    let mut lines: [String; LINES] = Default::default();
    for (k, ch) in text.chars().enumerate() {
        let (_, rows) = FONT.iter().find(|(c, _)| *c == ch)?;
        for (line, out) in lines.iter_mut().enumerate() {
            if k > 0 {
                out.push(' ');
            }
            let top = rows[2 * line].as_bytes();
            let bottom = rows.get(2 * line + 1).map(|r| r.as_bytes());
            for x in 0..WIDTH {
                let up = top[x] == b'#';
                let down = bottom.is_some_and(|b| b[x] == b'#');
                out.push(match (up, down) {
                    (true, true) => '█',
                    (true, false) => '▀',
                    (false, true) => '▄',
                    (false, false) => ' ',
                });
            }
        }
    }
    Some(lines)
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
        assert!(big("2.9").is_none());
        // Every glyph differs from every other.
        let all: Vec<_> = FONT.iter().map(|(c, _)| big(&c.to_string())).collect();
        for (k, one) in all.iter().enumerate() {
            assert!(all[k + 1..].iter().all(|other| other != one));
        }
    }
}
