//! Power-11 and the 2048 family: rules, boards, games, the session that plays them, computer
//! players, and the text format of boards and save files.
//!
//! The model (boards, rules, games) never prints and never reads the clock; randomness always
//! comes from a generator passed in. Front ends drive a [`session::Session`] with commands and
//! draw what it reports. See `ARCHITECTURE.md` for the floors and their invariants.
//!
//! With the default feature `cli` the crate also holds the `power11` program: the line console,
//! autoplay, the save and best-score files, `bench` and the command line. Without it the library
//! builds with no command-line, thread-pool or file-system dependencies.
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

// Floor 1: values with no dependencies.
mod direction;
mod line;
mod named;
pub mod random;
mod size;
// Floor 2: boards.
mod board;
mod grid;
mod packed;
// Floor 3: rules and games.
mod game;
mod rules;
// Floor 4: computer players and headless games.
pub mod ai;
mod playout;
// Floor 5: the session state machine.
pub mod session;
// Floor 6: the text format.
pub mod text;
// Floors 7-9: the program (front ends, files, bench, command line).
#[cfg(feature = "cli")]
pub mod autoplay;
#[cfg(feature = "cli")]
pub mod bench;
#[cfg(feature = "cli")]
pub mod best;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub mod console;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "cli")]
pub mod mips;
#[cfg(feature = "cli")]
pub mod save;
#[cfg(feature = "cli")]
pub mod store;
#[cfg(feature = "cli")]
pub mod tables;
#[cfg(feature = "cli")]
pub mod train;
#[cfg(feature = "cli")]
pub mod tui;
#[cfg(feature = "cli")]
pub mod weights;

pub use board::{Board, BoardError, exponent_of, tile_value};
#[cfg(feature = "cli")]
pub use cli::main;
pub use direction::Direction;
pub use game::{Game, MixedSizes, Snapshot, Status, Timeline};
pub use grid::{Grid, OnGrid};
pub use line::{MAX_TILE_EXPONENT, slide_line, tile_points};
pub use named::Named;
pub use packed::{
    Bits, Board3, Board4, Board5, Layout, MAX_PACKED_EXPONENT, PACKED_SIZES, PackedBoard, Packing,
    on_fastest, warm_up,
};
pub use playout::{GameRecord, default_attempt_limit, play_game};
pub use rules::{
    FOUR_CHANCE, NewTile, Rules, RulesError, Score, Scoring, Spawn, SpawnSite, Start, Turn,
    Variant, edge_cell, spawn_random,
};
pub use size::{Size, SizeError};
