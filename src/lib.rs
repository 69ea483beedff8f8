//! Power-11 and the 2048 family: rules, boards, games, save files, computer players and the
//! console that plays them.
//!
//! The model (`line`, `board`, `packed`, `rules`, `game`) never prints and never reads the
//! clock; randomness always comes from a generator passed in. See `ARCHITECTURE.md`.
//!
//! Playing a 7x7 `edge` game from Rust:
//!
//! ```
//! use power11::{Direction, Game, Rules, Status, random::seeded};
//!
//! let mut rng = seeded(42);
//! let rules = Rules::edge().with_size(7).unwrap();
//! let mut game = Game::new(rules, &mut rng);
//! for direction in Direction::ALL.iter().cycle().take(40) {
//!     if game.status() != Status::Playing { break; }
//!     game.play(*direction, &mut rng);
//! }
//! assert!(game.score() != 0);
//! ```

#![warn(missing_docs)]

pub mod ai;
pub mod autoplay;
pub mod bench;
pub mod best;
pub mod board;
pub mod cli;
pub mod console;
pub mod direction;
pub mod game;
pub mod grid;
pub mod line;
pub mod packed;
pub mod packed128;
pub mod playout;
pub mod random;
pub mod rules;
pub mod save;
pub mod text;

pub use board::Board;
pub use direction::Direction;
pub use game::{Game, Snapshot, Status};
pub use grid::Grid;
pub use line::slide_line;
pub use packed::Board4;
pub use packed128::{Board3, Board5};
pub use rules::{Rules, Variant};
