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
use crate::text::{advice_line, render_end_screen, render_game_screen, render_menu, visible};
use std::fmt::Display;
use std::io::{self, BufRead, Write};

/// Input lines longer than this are cut (the rest of the line is read and dropped). A whole
/// game typed on one line fits many times over.
const MAX_LINE: usize = 64 * 1024;

/// One key typed by the player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// A character (never a blank).
    Char(char),
    /// An arrow key's escape sequence.
    Arrow(Direction),
}

/// The keys of a line: each non-blank character, with arrow-key escape sequences (`ESC [ A`
/// or `ESC O A`, up to D) read as one key each.
fn keys(line: &str) -> Vec<Key> {
    let chars: Vec<char> = line.chars().collect();
    let mut keys = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c.is_whitespace() {
            continue;
        }
        if c == '\u{1b}' && matches!(chars.get(i), Some('[' | 'O')) {
            let arrow = match chars.get(i + 1) {
                Some('A') => Some(Direction::Up),
                Some('B') => Some(Direction::Down),
                Some('C') => Some(Direction::Right),
                Some('D') => Some(Direction::Left),
                _ => None,
            };
            if let Some(direction) = arrow {
                keys.push(Key::Arrow(direction));
                i += 2;
                continue;
            }
        }
        keys.push(Key::Char(c));
    }
    keys
}

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
            // Said so: the error alone ("Is a directory") does not tell which file it is about.
            let line = read_capped_line(&mut self.input)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot read the input: {e}")))?;
            let Some(line) = line else {
                let events = self.session.close();
                self.print_events(&events)?;
                return self.output.flush();
            };
            let keys = keys(&line);
            // A blank line is no key, but it answers the end-of-game prompt (Enter).
            if keys.is_empty() && matches!(self.session.screen(), Screen::End { .. }) {
                let command = self.end_reply(None);
                if !self.apply(command)? {
                    return self.output.flush();
                }
                continue;
            }
            for key in keys {
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

/// Reads one line, keeping at most its first 64 KiB (`MAX_LINE` bytes), decoded leniently
/// (bytes that are not UTF-8 become U+FFFD) and trimmed. `None` at the end of the input.
pub fn read_capped_line<R: BufRead>(input: &mut R) -> io::Result<Option<String>> {
    Ok(read_untrimmed_line(input)?.map(|line| line.trim().to_string()))
}

/// As [`read_capped_line`], but the line is kept as typed: only its `\n` is dropped (a final
/// line without one counts as a line). `None` at the end of the input.
pub fn read_untrimmed_line<R: BufRead>(input: &mut R) -> io::Result<Option<String>> {
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
    Ok(Some(String::from_utf8_lossy(&kept).into_owned()))
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
    fn every_non_blank_character_is_a_key_and_arrows_are_one_key() {
        use Key::{Arrow, Char};
        assert_eq!(keys("h l u"), vec![Char('h'), Char('l'), Char('u')]);
        assert_eq!(keys("hlu"), keys("h l u"));
        assert_eq!(keys(" \t "), vec![]);
        assert_eq!(
            keys("\u{1b}[A\u{1b}[B\u{1b}OC\u{1b}[D"),
            vec![
                Arrow(Direction::Up),
                Arrow(Direction::Down),
                Arrow(Direction::Right),
                Arrow(Direction::Left)
            ]
        );
        assert_eq!(keys("\u{1b}[Z"), vec![Char('\u{1b}'), Char('['), Char('Z')]);
    }

    #[test]
    fn control_characters_are_shown_in_caret_notation() {
        assert_eq!(visible('\u{1b}'), "^[");
        assert_eq!(visible('\u{0}'), "^@");
        assert_eq!(visible('\u{7f}'), "^?");
        assert_eq!(visible('\u{9b}'), "\\u{9b}");
        assert_eq!(visible('z'), "z");
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
