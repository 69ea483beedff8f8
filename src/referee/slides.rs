//! What the rules make of a board, apart from any replay: its tile values, and the slide a program makes when it lets a merged tile merge again (to name that
//! fault rather than a wrong slide).

use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;

/// A board's rows of tile values (0 for an empty cell).
pub(super) fn values(board: &Board) -> Vec<Vec<u64>> {
    let n = board.size();
    (0..n)
        .map(|r| {
            (0..n)
                .map(|c| u64::try_from(tile_value(board.get(r, c))).unwrap_or(u64::MAX))
                .collect()
        })
        .collect()
}

/// `board` moved in `direction` by a slide that lets a tile made by a merge merge again:
/// `cascade` merges each new tile into the one before as long as they are equal, otherwise a
/// tile merges once into the one placed before it, merged or not.
pub(super) fn merging_again(board: &Board, direction: Direction, cascade: bool) -> Board {
    let n = board.size();
    let mut out = *board;
    for line in 0..n {
        let cells: Vec<(usize, usize)> = (0..n)
            .map(|i| match direction {
                Direction::Left => (line, i),
                Direction::Right => (line, n - 1 - i),
                Direction::Up => (i, line),
                Direction::Down => (n - 1 - i, line),
            })
            .collect();
        let mut stack: Vec<u8> = Vec::new();
        for &(r, c) in &cells {
            let e = board.get(r, c);
            if e == 0 {
                continue;
            }
            if stack.last() == Some(&e) {
                *stack.last_mut().expect("a last tile") += 1;
                while cascade
                    && stack.len() >= 2
                    && stack[stack.len() - 1] == stack[stack.len() - 2]
                {
                    stack.pop();
                    *stack.last_mut().expect("a last tile") += 1;
                }
            } else {
                stack.push(e);
            }
        }
        for (i, &(r, c)) in cells.iter().enumerate() {
            out.set(r, c, stack.get(i).copied().unwrap_or(0));
        }
    }
    out
}

pub(super) fn direction_of(key: char) -> Option<Direction> {
    match key {
        'u' => Some(Direction::Up),
        'd' => Some(Direction::Down),
        'l' => Some(Direction::Left),
        'r' => Some(Direction::Right),
        _ => None,
    }
}

/// The characters a cell takes when `rows` (tile values) are printed as the assignment prints
/// them: the widest number's, 4 at least.
pub(super) fn cell_chars(rows: &[Vec<u64>]) -> usize {
    rows.iter()
        .flatten()
        .map(|v| v.to_string().len())
        .max()
        .unwrap_or(0)
        .max(4)
}
