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

// Tests read better with the long functions they have; the code they test keeps to clippy's
// length.
#![cfg_attr(test, allow(clippy::too_many_lines))]

// The core library, bottom up: the model, then learning, players, the session, the text format.
pub mod learning;
mod model;
pub mod players;
pub mod referee;
pub mod session;
pub mod text;
// The program (feature `cli`): files, front ends, bench, training, the command line.
#[cfg(feature = "cli")]
pub mod bench;
#[cfg(feature = "cli")]
mod cli;
#[cfg(feature = "cli")]
pub mod files;
#[cfg(feature = "cli")]
pub mod frontends;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod fuzzing;
#[cfg(feature = "cli")]
pub mod grading;
#[cfg(feature = "cli")]
pub mod live;
#[cfg(feature = "cli")]
pub mod runner;
#[cfg(feature = "cli")]
pub mod train;

/// Computer players and the learned network at the paths of versions before 0.6.0
/// (`power11::ai::Expectimax`, `power11::ai::ntuple`): [`players`] and [`learning`] are
/// their one documented home; these stay for programs written against those versions.
#[doc(hidden)]
pub mod ai {
    pub use crate::learning::ntuple::{
        CoherenceError, Network, NetworkError, Stages, TupleSet, WeightUse,
    };
    pub use crate::learning::{ntuple, td};
    pub use crate::players::*;
}
// The program's modules at the paths of versions before 0.6.0 (`power11::save`): `files` and
// `frontends` are their one documented home.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub use files::solutions as tables;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub use files::{best, save, store, weights};
#[cfg(feature = "cli")]
#[doc(hidden)]
pub use frontends::{autoplay, console, mips, tui};
pub use model::random;

#[cfg(feature = "cli")]
pub use cli::main;
pub use model::board::{Board, BoardError, Slid, exponent_of, tile_value};
pub use model::direction::Direction;
pub use model::game::{Game, MixedSizes, Snapshot, Status, Timeline};
pub use model::grid::{Grid, OnGrid};
pub use model::history::{
    NewTileFault, first_unexplained, highest_score, lowest_score, new_tile_fault, new_tiles,
    start_fault, step_fault,
};
pub use model::line::{MAX_TILE_EXPONENT, Travel, slide_line, slide_line_traced, tile_points};
pub use model::named::Named;
pub use model::packed::{
    Bits, Board3, Board4, Board5, Layout, MAX_PACKED_EXPONENT, PACKED_SIZES, PackedBoard, Packing,
    on_fastest, warm_up,
};
pub use model::rules::{
    FOUR_CHANCE, NewTile, Rules, RulesError, Score, Scoring, Spawn, SpawnSite, Start, Turn,
    Variant, edge_cell, spawn_random,
};
pub use model::size::{Size, SizeError};
pub use players::playout::{GameRecord, default_attempt_limit, play_game};
