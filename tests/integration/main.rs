//! End-to-end and property tests, compiled into one test binary.

mod boundaries;
mod cli;
mod common;
mod golden;
mod library;
mod players;
mod properties;
mod session;
mod variants;
