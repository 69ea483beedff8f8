//! Random key scripts to referee a program with: games of both sizes, runs of moves (some long
//! enough to end a game), undos (some back to the start and past it), saves, quitting and
//! resuming (a save just made, an older one, or none at all), and keys that mean nothing. One
//! key a line, no blank line, so that every program reads them alike; the script ends by
//! quitting the game and the program. For the MIPS program: a new game or a start state, runs
//! of W A S D, new tiles switched off and on, keys it refuses, and X.

use crate::model::random::{below, chance};
use rand::Rng;

/// The keys of one random script.
pub fn generate<R: Rng + ?Sized>(rng: &mut R) -> String {
    let mut keys: Vec<char> = Vec::new();
    let start = |rng: &mut R| if chance(rng, 0.5) { 'h' } else { 'e' };
    keys.push(start(rng));
    let segments = 3 + below(rng, 6);
    for _ in 0..segments {
        match below(rng, 10) {
            // Moves: mostly a few, sometimes enough to end a game.
            0..=4 => {
                let count = if chance(rng, 0.25) {
                    150 + below(rng, 450)
                } else {
                    1 + below(rng, 40)
                };
                for _ in 0..count {
                    keys.push(['u', 'd', 'l', 'r'][below(rng, 4)]);
                }
            }
            // Undo: a few, or back to the start and past it.
            5 | 6 => {
                let count = if chance(rng, 0.3) {
                    200
                } else {
                    1 + below(rng, 6)
                };
                keys.extend(std::iter::repeat_n('b', count));
            }
            7 => keys.push('s'),
            // Save, quit and resume at once: the resume is checked against that save.
            8 if chance(rng, 0.5) => keys.extend(['s', 'q', 'r']),
            // Quit to the menu, then resume or start again.
            8 => {
                keys.push('q');
                keys.push(if chance(rng, 0.6) { 'r' } else { start(rng) });
            }
            // Keys that mean nothing in a game.
            _ => keys.push(['x', '?', 'k', '1'][below(rng, 4)]),
        }
    }
    keys.extend(['q', 'q']);
    let mut text = String::with_capacity(keys.len() * 2);
    for key in keys {
        text.push(key);
        text.push('\n');
    }
    text
}

/// The keys of one random script for the MIPS program, a line a key: a new game (`1`) or a
/// start state (`2` and nine numbers, now and then one it refuses), runs of moves (some long
/// enough to end a game), new tiles switched off (`3`) and on (`4`), keys it refuses, and `X`.
pub fn generate_mips<R: Rng + ?Sized>(rng: &mut R) -> String {
    let mut keys: Vec<String> = Vec::new();
    if chance(rng, 0.2) {
        keys.push("x".to_string());
    }
    if chance(rng, 0.3) {
        keys.push("2".to_string());
        let values = [0, 0, 0, 0, 2, 2, 4, 8, 16, 32, 64, 128, 256];
        for i in 0..9 {
            if i == 4 && chance(rng, 0.15) {
                keys.push(["3", "1024", "x", "-2"][below(rng, 4)].to_string());
                break;
            }
            keys.push(values[below(rng, values.len())].to_string());
        }
        if keys.len() < 11 {
            keys.push("1".to_string());
        }
    } else {
        keys.push("1".to_string());
    }
    let segments = 2 + below(rng, 6);
    for _ in 0..segments {
        match below(rng, 10) {
            0..=5 => {
                let count = if chance(rng, 0.3) {
                    100 + below(rng, 300)
                } else {
                    1 + below(rng, 30)
                };
                for _ in 0..count {
                    keys.push(["W", "A", "S", "D"][below(rng, 4)].to_string());
                }
            }
            6 | 7 => {
                keys.push("3".to_string());
                for _ in 0..=below(rng, 8) {
                    keys.push(["W", "A", "S", "D"][below(rng, 4)].to_string());
                }
                keys.push("4".to_string());
            }
            _ => keys.push(["w", "q", "5", "WA"][below(rng, 4)].to_string()),
        }
    }
    keys.push("X".to_string());
    let mut text = keys.join("\n");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::random::seeded;

    #[test]
    fn a_script_is_one_key_a_line_and_quits() {
        let mut rng = seeded(3);
        for _ in 0..50 {
            let script = generate(&mut rng);
            assert!(script.ends_with("q\nq\n"), "{script}");
            assert!(script.lines().all(|l| l.chars().count() == 1), "{script}");
            assert!(matches!(script.chars().next(), Some('h' | 'e')));
        }
        // The same seed, the same scripts.
        assert_eq!(generate(&mut seeded(9)), generate(&mut seeded(9)));
    }

    #[test]
    fn a_mips_script_starts_a_game_and_ends_with_x() {
        let mut rng = seeded(4);
        for _ in 0..50 {
            let script = generate_mips(&mut rng);
            assert!(script.ends_with("X\n"), "{script}");
            assert!(script.lines().any(|l| l == "1" || l == "2"), "{script}");
        }
        assert_eq!(generate_mips(&mut seeded(9)), generate_mips(&mut seeded(9)));
    }
}
