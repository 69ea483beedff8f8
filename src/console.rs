//! The line console: the Power-11 interface. It reads a line, maps it to a session
//! [`Command`], and prints the events and the screen the session reports, through `text`.
//! Generic over `BufRead` and `Write` so that tests run whole sessions in memory.
//!
//! The console decides no rule and no game flow: those are the session's. Output is buffered by
//! the caller and flushed before every read.

use crate::direction::Direction;
use crate::session::{Command, Event, MenuStyle, Screen, Session, Store};
use crate::size::Size;
use crate::text::{advice_line, render_end_screen, render_game_screen, render_menu};
use std::fmt::Display;
use std::io::{self, BufRead, Write};

/// Input lines longer than this are cut (the rest of the line is read and dropped).
const MAX_LINE: usize = 256;

/// What a line typed by the player amounts to.
enum Reply {
    /// A command for the session.
    Command(Command),
    /// A line the console answers itself (an unknown key), before showing the screen again.
    Message(String),
}

/// An interactive line session over `input` and `output`.
pub struct Console<R, W, S> {
    input: R,
    output: W,
    session: Session<S>,
}

impl<R: BufRead, W: Write, S: Store> Console<R, W, S> {
    /// A console that plays `session`, reading commands from `input` and printing to `output`.
    pub fn new(session: Session<S>, input: R, output: W) -> Console<R, W, S> {
        Console {
            input,
            output,
            session,
        }
    }

    /// Runs the session until `q` at the menu or the end of the input. Returns only I/O errors
    /// of the output (or input); everything the player types is handled.
    pub fn run(mut self) -> io::Result<()> {
        self.show_screen()?;
        loop {
            self.output.flush()?;
            let Some(line) = read_capped_line(&mut self.input)? else {
                let events = self.session.close();
                self.print_events(&events)?;
                return self.output.flush();
            };
            let reply = match self.session.screen() {
                Screen::Menu => self.menu_reply(&line),
                Screen::Game { .. } => game_reply(&line),
                Screen::End {
                    game, offers_more, ..
                } => end_reply(&line, offers_more, game.board().side()),
                Screen::Closed => return self.output.flush(),
            };
            match reply {
                Reply::Command(command) => {
                    let events = self.session.handle(command);
                    self.print_events(&events)?;
                }
                Reply::Message(message) => writeln!(self.output, "{message}")?,
            }
            if let Screen::Closed = self.session.screen() {
                return self.output.flush();
            }
            self.show_screen()?;
        }
    }

    fn menu_reply(&self, line: &str) -> Reply {
        let style = self.session.menu();
        let command = match (style, line.to_ascii_lowercase().as_str()) {
            (MenuStyle::EasyHard, "e") => Some(Command::NewGame(Size::EASY)),
            (MenuStyle::EasyHard, "h") => Some(Command::NewGame(Size::HARD)),
            (MenuStyle::OneSize, "n") => self
                .session
                .menu_sizes()
                .first()
                .map(|&s| Command::NewGame(s)),
            (_, "r") => Some(Command::Resume),
            (_, "q") => Some(Command::Quit),
            _ => None,
        };
        command.map_or_else(
            || {
                let keys = match style {
                    MenuStyle::EasyHard => "e, h, r or q",
                    MenuStyle::OneSize => "n, r or q",
                };
                Reply::Message(format!("Unknown choice '{}': type {keys}.", shorten(line)))
            },
            Reply::Command,
        )
    }

    fn show_screen(&mut self) -> io::Result<()> {
        let text = match self.session.screen() {
            Screen::Menu => render_menu(self.session.menu(), self.session.rules()),
            Screen::Game { game, best } => {
                render_game_screen(game, best, &self.session.store().location())
            }
            Screen::End {
                game,
                best,
                offers_more,
            } => render_end_screen(game, best, offers_more),
            Screen::Closed => String::new(),
        };
        self.output.write_all(text.as_bytes())
    }

    fn print_events(&mut self, events: &[Event<S::Error>]) -> io::Result<()> {
        for event in events {
            if let Some(line) = self.event_line(event) {
                writeln!(self.output, "{line}")?;
            }
        }
        Ok(())
    }

    /// The line the console prints for `event`, if any.
    fn event_line(&self, event: &Event<S::Error>) -> Option<String> {
        let location = || self.session.store().location();
        let failed = |what: &str, e: &dyn Display| format!("{what}: {e}");
        Some(match event {
            Event::Saved => format!("Game saved to {}.", location()),
            Event::SaveFailed(e) => failed("Could not save the game", e),
            Event::NothingToUndo => "Nothing to undo: this is the start of the game.".to_string(),
            Event::Advice(advice) => {
                let rules = match self.session.screen() {
                    Screen::Game { game, .. } | Screen::End { game, .. } => *game.rules(),
                    _ => *self.session.rules(),
                };
                advice_line(advice.as_ref(), &rules)
            }
            Event::NoSavedGame => {
                format!("No saved game to resume: {} does not exist.", location())
            }
            Event::ResumeFailed(e) => failed("Cannot resume", e),
            Event::BestNotSaved(e) => failed("Could not save the best score", e),
            Event::Goodbye => "Goodbye!".to_string(),
            Event::Moved { .. } | Event::Undone | Event::NotNow => return None,
        })
    }
}

/// The command for a line typed during a game: one key, case-insensitive.
fn game_reply(line: &str) -> Reply {
    let lower = line.to_ascii_lowercase();
    let mut chars = lower.chars();
    let key = match (chars.next(), chars.next()) {
        (Some(c), None) => c,
        _ => '?',
    };
    if let Some(direction) = Direction::from_key(key) {
        return Reply::Command(Command::Move(direction));
    }
    match key {
        's' => Reply::Command(Command::Save),
        'b' => Reply::Command(Command::Undo),
        'a' => Reply::Command(Command::Advice),
        'q' => Reply::Command(Command::Leave),
        _ if line.is_empty() => {
            Reply::Message("Please type a command: u, d, l, r, s, b, a or q.".to_string())
        }
        _ => Reply::Message(format!(
            "Unknown command '{}': type u, d, l, r, s, b, a or q.",
            shorten(line)
        )),
    }
}

/// The command for the line typed at the end of a game: `k` and `n` where the game offers
/// them, anything else back to the menu.
fn end_reply(line: &str, offers_more: bool, size: Size) -> Reply {
    Reply::Command(match line.to_ascii_lowercase().as_str() {
        "k" if offers_more => Command::KeepPlaying,
        "n" if offers_more => Command::NewGame(size),
        _ => Command::Leave,
    })
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
