//! The line console: the Power-11 interface. It reads lines, maps each key to a session
//! [`Command`], and prints the events and the screen the session reports, through `text`.
//! Generic over `BufRead` and `Write` so that tests run whole sessions in memory.
//!
//! Keys are read the way the reference Power-11 programs read them (`cin >> c`): every
//! non-blank character of a line is one key, in order, so `h l u` and `hlu` are three keys and a
//! blank line is no key at all. An arrow key's escape sequence (`ESC [ A`, typed then Enter) is
//! one key. The key after the one that ends a game, on its line or the next, answers the
//! end-of-game prompt, as in the programs that read a key at a time; a blank line answers it
//! too (the prompt says to press Enter), and is no key anywhere else.
//!
//! The console decides no rule and no game flow: those are the session's. Output is buffered by
//! the caller and flushed before every read.

use crate::model::direction::Direction;
use crate::model::size::Size;
use crate::session::{Command, Event, MenuStyle, Screen, Session, Store};
use crate::text::keys::{KeyReader, Typed};
use crate::text::{advice_line, render_end_screen, render_game_screen, render_menu, visible};
use std::fmt::Display;
use std::io::{self, BufRead, Write};

/// One key typed by the player: a character (never a blank) or an arrow.
type Key = Typed;

/// What a key typed by the player amounts to.
enum Reply {
    /// A command for the session.
    Command(Command),
    /// A key the console answers itself (an unknown key in a game), before the screen again.
    Message(String),
    /// A key that only brings the screen back (an unknown key at the menu).
    Nothing,
}

/// An interactive line session over `input` and `output`.
pub struct Console<R, W, S> {
    input: KeyReader<R>,
    output: W,
    session: Session<S>,
}

impl<R: BufRead, W: Write, S: Store> Console<R, W, S> {
    /// A console that plays `session`, reading commands from `input` and printing to `output`.
    pub fn new(session: Session<S>, input: R, output: W) -> Console<R, W, S> {
        Console {
            input: KeyReader::new(input),
            output,
            session,
        }
    }

    /// Runs the session until `q` at the menu or the end of the input. Returns only I/O errors
    /// of the output (or input); everything the player types is handled.
    pub fn run(mut self) -> io::Result<()> {
        self.show_screen()?;
        self.output.flush()?;
        // Whether a key was typed on the line being read: a line with none is blank.
        let mut keyed = false;
        loop {
            // Said so: the error alone ("Is a directory") does not tell which file it is about.
            let typed = self
                .input
                .next_typed()
                .map_err(|e| io::Error::new(e.kind(), format!("cannot read the input: {e}")))?;
            let key = match typed {
                None => {
                    let events = self.session.close();
                    self.print_events(&events)?;
                    return self.output.flush();
                }
                Some(Typed::EndOfLine) => {
                    let blank = !std::mem::replace(&mut keyed, false);
                    // A blank line is no key, but it answers the end-of-game prompt (Enter).
                    if blank
                        && matches!(self.session.screen(), Screen::End { .. })
                        && !self.apply(self.end_reply(None))?
                    {
                        return self.output.flush();
                    }
                    // The line is played: what it printed is shown before the next is read.
                    self.output.flush()?;
                    continue;
                }
                Some(key) => key,
            };
            keyed = true;
            let reply = match self.session.screen() {
                Screen::Menu => self.menu_reply(key),
                Screen::Game { .. } => game_reply(key),
                // The key after the one that ended the game, on its line or the next.
                Screen::End { .. } => self.end_reply(Some(key)),
                Screen::Closed => return self.output.flush(),
            };
            if !self.apply(reply)? {
                return self.output.flush();
            }
        }
    }

    /// The reply to `key` (`None`: a blank line) at the end of a game.
    fn end_reply(&self, key: Option<Key>) -> Reply {
        match self.session.screen() {
            Screen::End {
                game, offers_more, ..
            } => Reply::Command(end_command(key, offers_more, game.board().side())),
            _ => Reply::Nothing,
        }
    }

    /// Carries out `reply` and shows the screen again; false once the session is over.
    fn apply(&mut self, reply: Reply) -> io::Result<bool> {
        match reply {
            Reply::Command(command) => {
                let events = self.session.handle(command);
                self.print_events(&events)?;
            }
            Reply::Message(message) => writeln!(self.output, "{message}")?,
            Reply::Nothing => {}
        }
        if let Screen::Closed = self.session.screen() {
            return Ok(false);
        }
        self.show_screen()?;
        Ok(true)
    }

    fn menu_reply(&self, key: Key) -> Reply {
        let Key::Char(c) = key else {
            return Reply::Nothing;
        };
        let command = match (self.session.menu(), c.to_ascii_lowercase()) {
            (MenuStyle::EasyHard, 'e') => Some(Command::NewGame(Size::EASY)),
            (MenuStyle::EasyHard, 'h') => Some(Command::NewGame(Size::HARD)),
            (MenuStyle::OneSize, 'n') => self
                .session
                .menu_sizes()
                .first()
                .map(|&s| Command::NewGame(s)),
            (_, 'r') => Some(Command::Resume),
            (_, 'q') => Some(Command::Quit),
            // A wrong key at the menu "just repeats the menu" (the assignment's words).
            _ => None,
        };
        command.map_or(Reply::Nothing, Reply::Command)
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
            Event::Saved { left_out: 0 } => format!("Game saved to {}.", location()),
            Event::Saved { left_out } => super::saved_without(&location(), *left_out),
            Event::SaveFailed(e) => failed("Could not save the game", e),
            Event::NothingToUndo => "Nothing to undo: this is the start of the game.".to_string(),
            Event::Advice(advice) => {
                let rules = match self.session.screen() {
                    Screen::Game { game, .. } | Screen::End { game, .. } => *game.rules(),
                    _ => *self.session.rules(),
                };
                advice_line(advice, &rules)
            }
            Event::NoSavedGame => {
                format!("No saved game to resume: {} does not exist.", location())
            }
            Event::ResumeFailed(e) => failed("Cannot resume", e),
            Event::BestNotSaved(e) => super::best_not_saved(e),
            Event::HistoryForgotten { kept } => super::history_forgotten(*kept),
            Event::ResumedUnexplained { state, states, why } => {
                super::resumed_unexplained(*state, *states, why)
            }
            Event::ResumedUnder(rules) => super::resumed_under(rules),
            // The Power-11 interface has no key that switches new tiles.
            Event::Moved { .. }
            | Event::Undone
            | Event::NotNow
            | Event::Goodbye
            | Event::NewTiles { .. } => return None,
        })
    }
}

/// The command for a key typed during a game (case-insensitive; an unknown key is quoted as
/// typed).
fn game_reply(key: Key) -> Reply {
    let (typed, c) = match key {
        Key::Arrow(direction) => return Reply::Command(Command::Move(direction)),
        Key::Char(c) => (c, c.to_ascii_lowercase()),
        Key::EndOfLine => return Reply::Nothing,
    };
    if let Some(direction) = Direction::from_key(c) {
        return Reply::Command(Command::Move(direction));
    }
    match c {
        's' => Reply::Command(Command::Save),
        'b' => Reply::Command(Command::Undo),
        'a' => Reply::Command(Command::Advice),
        'q' => Reply::Command(Command::Leave),
        _ => Reply::Message(format!(
            "Unknown command '{}': type u, d, l, r, s, b, a or q.",
            visible(typed)
        )),
    }
}

/// The command for the key typed at the end of a game (`None`: a blank line): `k` and `n`
/// where the game offers them, anything else back to the menu.
fn end_command(first: Option<Key>, offers_more: bool, size: Size) -> Command {
    match first {
        Some(Key::Char('k' | 'K')) if offers_more => Command::KeepPlaying,
        Some(Key::Char('n' | 'N')) if offers_more => Command::NewGame(size),
        _ => Command::Leave,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_in_caret_notation() {
        assert_eq!(visible('\u{1b}'), "^[");
        assert_eq!(visible('\u{0}'), "^@");
        assert_eq!(visible('\u{7f}'), "^?");
        assert_eq!(visible('\u{9b}'), "\\u{9b}");
        assert_eq!(visible('z'), "z");
    }
}
