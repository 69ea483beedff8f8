//! End-to-end and property tests, compiled into one test binary.

mod bench;
mod boundaries;
mod cli;
mod common;
mod compat;
mod docs;
mod floors;
mod golden;
mod hostile;
mod learned;
mod library;
mod mips;
mod optimal;
mod planted;
mod players;
mod properties;
mod release;
mod reliability;
mod search;
mod session;
mod tui;
mod variants;
