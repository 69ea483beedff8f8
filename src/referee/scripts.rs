//! Random key scripts to referee a program with: games of both sizes, runs of moves (some long
//! enough to end a game), undos (some back to the start and past it), saves, quitting and
//! resuming, and keys that mean nothing. One key a line, no blank line, so that every program
//! reads them alike; the script ends by quitting the game and the program.

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
}
