//! `--autoplay`: a computer player's game, printed move by move.

use crate::ai::{Player, choose_on_board};
use crate::game::{Game, Status};
use crate::text::{end_message, render_board};
use rand_core::Rng;
use std::io::{self, Write};
use std::time::Duration;

/// Plays `game` with `player` to its end, printing the start, then for each move the direction
/// and the `Score:` line and board, then the end message. In a game that offers to keep playing
/// past the goal (classic), the player keeps playing. Stops after `max_attempts` attempts.
pub fn run<P: Player, R: Rng + ?Sized, W: Write>(
    out: &mut W,
    mut game: Game,
    player: &mut P,
    rng: &mut R,
    delay: Duration,
    max_attempts: u64,
) -> io::Result<()> {
    let state = |game: &Game| format!("Score: {}\n{}", game.score(), render_board(game.board()));
    out.write_all(state(&game).as_bytes())?;
    let mut attempts = 0u64;
    loop {
        let status = game.status();
        if status != Status::Playing {
            if let Some(message) = end_message(status, game.score()) {
                writeln!(out, "{message}")?;
            }
            if status == Status::Won && game.rules().keep_playing() {
                writeln!(out, "Keeps playing.")?;
                game.keep_playing();
                continue;
            }
            break;
        }
        if attempts >= max_attempts {
            writeln!(
                out,
                "Stopped after {attempts} moves. Score: {}",
                game.score()
            )?;
            break;
        }
        let direction = choose_on_board(player, game.board(), game.rules(), rng);
        let turn = game.play(direction, rng);
        attempts += 1;
        let note = if turn.moved { "" } else { " (nothing moves)" };
        writeln!(out, "Move: {direction}{note}")?;
        out.write_all(state(&game).as_bytes())?;
        if !delay.is_zero() {
            out.flush()?;
            std::thread::sleep(delay);
        }
    }
    out.flush()
}
