//! `--autoplay`: a computer player's game, printed move by move. It drives a [`Session`] with
//! [`Command::ComputerMove`] as the console drives one with the player's keys.

use crate::session::{Command, Event, Screen, Session, Store};
use crate::text::{end_message, render_scored};
use std::io::{self, Write};
use std::time::Duration;

/// Plays the session's current game with its computer player to the end, printing the start,
/// then for each move the direction and the `Score:` line and board, then the end message. In a
/// game that offers to keep playing past the goal (classic), the player keeps playing. Stops
/// after `max_attempts` attempts.
pub fn run<S: Store, W: Write>(
    out: &mut W,
    session: &mut Session<S>,
    delay: Duration,
    max_attempts: u64,
) -> io::Result<()> {
    let mut attempts = 0u64;
    if let Screen::Game { game, .. } | Screen::End { game, .. } = session.screen() {
        out.write_all(render_scored(game.score(), None, game.board()).as_bytes())?;
    }
    loop {
        match session.screen() {
            Screen::End {
                game, offers_more, ..
            } => {
                if let Some(message) = end_message(game.status(), game.score()) {
                    writeln!(out, "{message}")?;
                }
                if !offers_more {
                    break;
                }
                writeln!(out, "Keeps playing.")?;
                session.handle(Command::KeepPlaying);
            }
            Screen::Game { game, .. } => {
                if attempts >= max_attempts {
                    writeln!(
                        out,
                        "Stopped after {attempts} move{}. Score: {}",
                        if attempts == 1 { "" } else { "s" },
                        game.score()
                    )?;
                    break;
                }
                // The pause comes between moves: none before the first, none after the last.
                if attempts > 0 && !delay.is_zero() {
                    // What the last move wrote (its board, an end message) shows during it.
                    out.flush()?;
                    std::thread::sleep(delay);
                }
                for event in session.handle(Command::ComputerMove) {
                    if let Event::Moved { direction, turn } = event {
                        let note = if turn.moved { "" } else { " (nothing moves)" };
                        writeln!(out, "Move: {direction}{note}")?;
                    }
                }
                attempts += 1;
                if let Screen::Game { game, .. } | Screen::End { game, .. } = session.screen() {
                    out.write_all(render_scored(game.score(), None, game.board()).as_bytes())?;
                }
            }
            Screen::Menu | Screen::Closed => break,
        }
    }
    out.flush()
}
