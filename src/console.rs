//! The interactive session: welcome menu, game screen, commands. Generic over `BufRead` and
//! `Write` so that tests can run whole sessions in memory.
//!
//! The console decides no rule: it maps keys to [`Game`] calls and prints what the game reports.
//! Output is buffered by the caller and flushed before every read.

use crate::ai::Expectimax;
use crate::best::BestScores;
use crate::board::tile_value;
use crate::direction::Direction;
use crate::game::{Game, Snapshot, Status};
use crate::random::GameRng;
use crate::rules::Rules;
use crate::save::{FileError, read_save, write_save};
use crate::text::{end_message, render_board};
use std::io::{self, BufRead, Write};
use std::path::PathBuf;

/// Input lines longer than this are cut (the rest of the line is read and dropped).
const MAX_LINE: usize = 256;

/// Which welcome menu the session shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuStyle {
    /// Power-11's menu: `e` (5x5), `h` (4x4), `r`, `q`.
    EasyHard,
    /// One board size: `n`, `r`, `q`.
    OneSize,
}

/// Everything a session needs besides its input, output and RNG.
#[derive(Debug)]
pub struct Settings {
    /// The rules new games use (the size is the menu's choice in [`MenuStyle::EasyHard`]).
    pub rules: Rules,
    /// The welcome menu.
    pub menu: MenuStyle,
    /// Where `s` saves and `r` resumes.
    pub save_path: PathBuf,
    /// A game to play before the first menu (from `--board`), in save-file order.
    pub first_game: Option<Vec<Snapshot>>,
    /// Best scores (used when the rules track them).
    pub best: BestScores,
}

enum After {
    Menu,
    Exit,
}

enum EndChoice {
    Menu,
    Exit,
    KeepPlaying,
    NewGame,
}

/// An interactive session.
pub struct Console<R, W> {
    input: R,
    output: W,
    rng: GameRng,
    settings: Settings,
    advisor: Expectimax,
}

impl<R: BufRead, W: Write> Console<R, W> {
    /// A session reading commands from `input` and printing to `output`.
    pub fn new(settings: Settings, rng: GameRng, input: R, output: W) -> Console<R, W> {
        Console {
            input,
            output,
            rng,
            settings,
            advisor: Expectimax::default(),
        }
    }

    /// Runs the session until `q` at the menu or the end of the input. Returns only I/O errors
    /// of the output (or input); everything the player types is handled.
    pub fn run(mut self) -> io::Result<()> {
        if let Some(states) = self.settings.first_game.take() {
            match Game::from_states(self.settings.rules, &states) {
                Ok(game) => {
                    if let After::Exit = self.play(game)? {
                        return self.output.flush();
                    }
                }
                Err(e) => writeln!(self.output, "Cannot start from the board: {e}")?,
            }
        }
        loop {
            self.show_menu()?;
            let Some(line) = self.read_line()? else {
                return self.output.flush();
            };
            let key = line.to_ascii_lowercase();
            let size = match (self.settings.menu, key.as_str()) {
                (MenuStyle::EasyHard, "e") => Some(5),
                (MenuStyle::EasyHard, "h") => Some(4),
                (MenuStyle::OneSize, "n") => Some(self.settings.rules.size()),
                _ => None,
            };
            let after = match (size, key.as_str()) {
                (Some(size), _) => {
                    let rules = self
                        .settings
                        .rules
                        .with_size(size)
                        .expect("menu sizes are valid");
                    let game = Game::new(rules, &mut self.rng);
                    self.play(game)?
                }
                (None, "r") => match self.load_saved_game()? {
                    Some(game) => self.play(game)?,
                    None => After::Menu,
                },
                (None, "q") => {
                    writeln!(self.output, "Goodbye!")?;
                    return self.output.flush();
                }
                _ => {
                    let keys = match self.settings.menu {
                        MenuStyle::EasyHard => "e, h, r or q",
                        MenuStyle::OneSize => "n, r or q",
                    };
                    writeln!(
                        self.output,
                        "Unknown choice '{}': type {keys}.",
                        shorten(&line)
                    )?;
                    After::Menu
                }
            };
            if let After::Exit = after {
                return self.output.flush();
            }
        }
    }

    fn show_menu(&mut self) -> io::Result<()> {
        let rules = self.settings.rules;
        let mut text = String::from("Welcome to Power-11!");
        match self.settings.menu {
            MenuStyle::EasyHard => text.push_str(
                "\n  e - start a new Easy (5-by-5) game\n  h - start a new Hard (4-by-4) game\n",
            ),
            MenuStyle::OneSize => {
                let n = rules.size();
                let goal = rules
                    .goal()
                    .map_or("no goal".to_string(), |g| format!("goal {}", tile_value(g)));
                text.push_str(&format!(
                    " ({}, {n}-by-{n}, {goal})\n  n - start a new {n}-by-{n} game\n",
                    rules.variant().name()
                ));
            }
        }
        text.push_str("  r - Resume the last saved game\n  q - Quit the game\n");
        self.output.write_all(text.as_bytes())
    }

    /// The next input line, trimmed, or `None` at the end of the input. Flushes the output first.
    fn read_line(&mut self) -> io::Result<Option<String>> {
        self.output.flush()?;
        read_capped_line(&mut self.input)
    }

    fn load_saved_game(&mut self) -> io::Result<Option<Game>> {
        let path = &self.settings.save_path;
        let message = match read_save(path) {
            Ok(states) => match Game::from_states(self.settings.rules, &states) {
                Ok(game) => return Ok(Some(game)),
                Err(e) => format!("Cannot resume: {}: {e}", path.display()),
            },
            Err(FileError::Missing { .. }) => {
                format!(
                    "No saved game to resume: {} does not exist.",
                    path.display()
                )
            }
            Err(e) => format!("Cannot resume: {e}"),
        };
        writeln!(self.output, "{message}")?;
        Ok(None)
    }

    /// The `Score:` line (and `Best:` line where the rules keep one) and the board.
    fn state_text(&self, game: &Game) -> String {
        let mut text = format!("Score: {}\n", game.score());
        let rules = game.rules();
        if rules.tracks_best() {
            let stored = self.settings.best.get(rules.variant(), rules.size());
            let best = stored.map_or(game.score(), |b| b.max(game.score()));
            text.push_str(&format!("Best: {best}\n"));
        }
        text.push_str(&render_board(game.board()));
        text
    }

    fn show_screen(&mut self, game: &Game) -> io::Result<()> {
        let mut text = self.state_text(game);
        text.push_str("Moves: u = Up, d = Down, l = Left, r = Right\n");
        text.push_str(&format!(
            "Other: s = Save to {}, b = Back (undo), a = Advice, q = Quit to the menu\n",
            self.settings.save_path.display()
        ));
        self.output.write_all(text.as_bytes())
    }

    fn play(&mut self, mut game: Game) -> io::Result<After> {
        if game.status() == Status::Playing {
            self.show_screen(&game)?;
        }
        loop {
            if game.status() != Status::Playing {
                match self.end_of_game(&mut game)? {
                    EndChoice::KeepPlaying => game.keep_playing(),
                    EndChoice::NewGame => {
                        self.record_best(&game)?;
                        game = Game::new(*game.rules(), &mut self.rng);
                    }
                    EndChoice::Menu => {
                        self.record_best(&game)?;
                        return Ok(After::Menu);
                    }
                    EndChoice::Exit => {
                        self.record_best(&game)?;
                        return Ok(After::Exit);
                    }
                }
                if game.status() == Status::Playing {
                    self.show_screen(&game)?;
                }
                continue;
            }
            let Some(line) = self.read_line()? else {
                self.record_best(&game)?;
                return Ok(After::Exit);
            };
            let command = line.to_ascii_lowercase();
            let mut chars = command.chars();
            let key = match (chars.next(), chars.next()) {
                (Some(c), None) => c,
                _ => '?',
            };
            if let Some(direction) = Direction::from_key(key) {
                game.play(direction, &mut self.rng);
                if game.status() == Status::Playing {
                    self.show_screen(&game)?;
                }
                continue;
            }
            match key {
                's' => {
                    let message = match write_save(&self.settings.save_path, &game) {
                        Ok(()) => format!("Game saved to {}.", self.settings.save_path.display()),
                        Err(e) => format!("Could not save the game: {e}"),
                    };
                    writeln!(self.output, "{message}")?;
                }
                'b' => {
                    if !game.undo() {
                        writeln!(
                            self.output,
                            "Nothing to undo: this is the start of the game."
                        )?;
                    }
                }
                'a' => {
                    let advice = self.advice(&game);
                    writeln!(self.output, "{advice}")?;
                }
                'q' => {
                    self.record_best(&game)?;
                    return Ok(After::Menu);
                }
                _ if line.is_empty() => {
                    writeln!(
                        self.output,
                        "Please type a command: u, d, l, r, s, b, a or q."
                    )?;
                }
                _ => writeln!(
                    self.output,
                    "Unknown command '{}': type u, d, l, r, s, b, a or q.",
                    shorten(&line)
                )?,
            }
            self.show_screen(&game)?;
        }
    }

    fn advice(&self, game: &Game) -> String {
        let rules = game.rules();
        let Some(advice) = self.advisor.advise_board(game.board(), rules) else {
            return "Advice: no move changes the board.".to_string();
        };
        let name = |d: Direction| format!("{} ({})", d.key(), d.name());
        let best = name(advice.direction);
        if advice.wins {
            let goal = rules.goal().map_or(0, tile_value);
            return format!("Advice: {best}: it makes {goal} now.");
        }
        match advice.runner_up {
            None => format!("Advice: {best}: the only move that changes the board."),
            Some((_, 0.0)) if advice.value > 0.0 => {
                format!(
                    "Advice: {best}: every other move loses within {} moves.",
                    advice.depth
                )
            }
            // Ratings that print the same are presented as a tie, not as "X against X".
            Some((other, value)) if format!("{value:.0}") == format!("{:.0}", advice.value) => {
                format!(
                    "Advice: {best}: looking {} move(s) ahead it rates {:.0}, as high as {}.",
                    advice.depth,
                    advice.value,
                    name(other)
                )
            }
            Some((other, value)) => format!(
                "Advice: {best}: looking {} move(s) ahead it rates {:.0}, against {:.0} for {}.",
                advice.depth,
                advice.value,
                value,
                name(other)
            ),
        }
    }

    fn end_of_game(&mut self, game: &mut Game) -> io::Result<EndChoice> {
        let mut text = self.state_text(game);
        let status = game.status();
        if let Some(message) = end_message(status, game.score()) {
            text.push_str(&message);
            text.push('\n');
        }
        let offers_more = status == Status::Won && game.rules().keep_playing();
        if offers_more {
            text.push_str(
                "k - keep playing, n - start a new game, anything else - back to the menu\n",
            );
        } else {
            text.push_str("Press Enter to return to the menu.\n");
        }
        self.output.write_all(text.as_bytes())?;
        let Some(line) = self.read_line()? else {
            return Ok(EndChoice::Exit);
        };
        Ok(match line.to_ascii_lowercase().as_str() {
            "k" if offers_more => EndChoice::KeepPlaying,
            "n" if offers_more => EndChoice::NewGame,
            _ => EndChoice::Menu,
        })
    }

    fn record_best(&mut self, game: &Game) -> io::Result<()> {
        let rules = game.rules();
        if rules.tracks_best()
            && self
                .settings
                .best
                .record(rules.variant(), rules.size(), game.score())
            && let Err(e) = self.settings.best.save()
        {
            writeln!(self.output, "Could not save the best score: {e}")?;
        }
        Ok(())
    }
}

/// At most 20 characters of `text`, for messages that quote input.
fn shorten(text: &str) -> String {
    if text.chars().count() <= 20 {
        text.to_string()
    } else {
        text.chars().take(20).chain("...".chars()).collect()
    }
}

/// Reads one line, keeping at most [`MAX_LINE`] bytes of it, decoded leniently (bytes that are
/// not UTF-8 become U+FFFD) and trimmed. `None` at the end of the input.
pub fn read_capped_line<R: BufRead>(input: &mut R) -> io::Result<Option<String>> {
    let mut kept: Vec<u8> = Vec::new();
    let mut read_any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        read_any = true;
        let (line_part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        let room = MAX_LINE.saturating_sub(kept.len());
        kept.extend_from_slice(&line_part[..line_part.len().min(room)]);
        let used = line_part.len() + usize::from(done);
        input.consume(used);
        if done {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&kept).trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_and_the_next_line_survives() {
        let mut input = format!("{}\nq\n", "x".repeat(1 << 20));
        input.insert_str(0, "  U\r\n");
        let mut reader = io::BufReader::with_capacity(64, input.as_bytes());
        assert_eq!(read_capped_line(&mut reader).unwrap().as_deref(), Some("U"));
        assert_eq!(
            read_capped_line(&mut reader).unwrap().unwrap().len(),
            MAX_LINE
        );
        assert_eq!(read_capped_line(&mut reader).unwrap().as_deref(), Some("q"));
        assert_eq!(read_capped_line(&mut reader).unwrap(), None);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_fatal() {
        let mut reader: &[u8] = b"\xff\xfe u\n";
        assert_eq!(
            read_capped_line(&mut reader).unwrap().as_deref(),
            Some("\u{fffd}\u{fffd} u")
        );
    }
}
