//! `Size`: the side of a board, always 3 to 8. Validated once, here, so that boards, rules,
//! parsers and the command line never check a size again.

use std::fmt;
use std::str::FromStr;
use thiserror::Error;

/// The side of a square board: 3 <= n <= 8 by construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Size(u8);

/// A size outside 3..=8 (or not a number, when parsed from text).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SizeError {
    /// The number is outside 3..=8.
    #[error("board size {0} is not between {min} and {max}", min = Size::MIN, max = Size::MAX)]
    OutOfRange(usize),
    /// The text is not a whole number.
    #[error("'{0}' is not a board size (a whole number from {min} to {max})", min = Size::MIN, max = Size::MAX)]
    NotANumber(String),
}

impl Size {
    /// The smallest side (the 3x3 `mini` board).
    pub const MIN: usize = 3;
    /// The largest side.
    pub const MAX: usize = 8;
    /// Power-11 Hard.
    pub const HARD: Size = Size(4);
    /// Power-11 Easy.
    pub const EASY: Size = Size(5);

    /// The size `n`, if it is between [`Size::MIN`] and [`Size::MAX`].
    pub fn new(n: usize) -> Result<Size, SizeError> {
        if (Size::MIN..=Size::MAX).contains(&n) {
            Ok(Size(n as u8))
        } else {
            Err(SizeError::OutOfRange(n))
        }
    }

    /// The side as a number.
    pub fn get(self) -> usize {
        usize::from(self.0)
    }

    /// How many cells a board of this size has.
    pub fn cells(self) -> usize {
        self.get() * self.get()
    }
}

impl FromStr for Size {
    type Err = SizeError;

    fn from_str(text: &str) -> Result<Size, SizeError> {
        let n: usize = text
            .trim()
            .parse()
            .map_err(|_| SizeError::NotANumber(text.to_string()))?;
        Size::new(n)
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_3_to_8_are_sizes() {
        assert_eq!(Size::new(2), Err(SizeError::OutOfRange(2)));
        assert_eq!(Size::new(9), Err(SizeError::OutOfRange(9)));
        assert_eq!(Size::new(3).map(Size::get), Ok(3));
        assert_eq!(Size::new(8).map(Size::get), Ok(8));
        assert_eq!("5".parse::<Size>(), Ok(Size::EASY));
        assert_eq!(
            "x".parse::<Size>().unwrap_err().to_string(),
            "'x' is not a board size (a whole number from 3 to 8)"
        );
        assert_eq!(
            Size::new(9).unwrap_err().to_string(),
            "board size 9 is not between 3 and 8"
        );
    }
}
