//! End-to-end and property tests, compiled into one test binary.

// A test reads best as the whole story it tells; the code it tests keeps to clippy's length.
#![allow(clippy::too_many_lines)]

mod bench;
mod boundaries;
mod class_grading;
mod cli;
mod common;
mod compat;
mod docs;
mod feedback;
mod floors;
mod forged;
mod golden;
mod grading;
mod hostile;
mod learned;
mod library;
mod live;
mod mips;
mod optimal;
mod other_users;
mod planted;
mod players;
mod properties;
mod readme;
mod referee;
mod release;
mod reliability;
mod runner;
mod sandbox;
mod search;
mod session;
mod tidy;
mod tui;
mod tui_look;
mod variants;
mod verdicts;
