//! The four directions a move can take.

use std::fmt;

/// A move direction; tiles slide toward that side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Toward row 0.
    Up,
    /// Toward the last row.
    Down,
    /// Toward column 0.
    Left,
    /// Toward the last column.
    Right,
}

impl Direction {
    /// All four directions, in the order players consider them (and ties are broken).
    pub const ALL: [Direction; 4] = [
        Direction::Up,
        Direction::Down,
        Direction::Left,
        Direction::Right,
    ];

    /// The console key for this move (`u`, `d`, `l`, `r`).
    pub fn key(self) -> char {
        match self {
            Direction::Up => 'u',
            Direction::Down => 'd',
            Direction::Left => 'l',
            Direction::Right => 'r',
        }
    }

    /// The direction for a console key, if it is one.
    pub fn from_key(key: char) -> Option<Direction> {
        Direction::ALL.into_iter().find(|d| d.key() == key)
    }

    /// The capitalised name, as the console prints it.
    pub fn name(self) -> &'static str {
        match self {
            Direction::Up => "Up",
            Direction::Down => "Down",
            Direction::Left => "Left",
            Direction::Right => "Right",
        }
    }

    /// The index of this direction in [`Direction::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The cell that is the `k`-th one of line `line` of an `n` x `n` board read in the
    /// direction of motion (k = 0 is the cell at the wall the tiles move toward).
    pub fn line_cell(self, n: usize, line: usize, k: usize) -> (usize, usize) {
        match self {
            Direction::Left => (line, k),
            Direction::Right => (line, n - 1 - k),
            Direction::Up => (k, line),
            Direction::Down => (n - 1 - k, line),
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
