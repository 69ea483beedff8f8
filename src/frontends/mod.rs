//! Front ends: each maps its input to `session::Command`s and draws the session's screens and
//! events on its reader, writer or terminal. A front end never opens a file: the session's
//! `Store` (`files::store`) does.

pub mod autoplay;
pub mod console;
pub mod mips;
pub mod tui;
