//! The model: tile values, boards, rules and games, as data and pure functions. It never prints,
//! never reads the clock, stdin or a file; randomness comes only from the generator passed in.
//!
//! Its files, bottom up: values with no dependencies (`size`, `direction`, `line`, `named`,
//! `random`), boards (`board`, `grid`, `packed`), then rules and games (`rules`, `game`), and whether a game's states follow one
//! another by the rules (`history`).

pub(crate) mod direction;
pub(crate) mod line;
pub(crate) mod named;
pub mod random;
pub(crate) mod size;

pub(crate) mod board;
pub(crate) mod grid;
pub(crate) mod packed;

pub(crate) mod game;
pub(crate) mod history;
pub(crate) mod rules;
