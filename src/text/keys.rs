//! Keys as the Power-11 programs read them (`cin >> c`): every character that is not white
//! space is one key, in order, whatever the lines; an arrow key's escape sequence (`ESC [ A` or
//! `ESC O A`, up to D) is one key; a line ends at `\n` (a `\r` before it is white space, so CRLF
//! files read alike); bytes that are not UTF-8 read as U+FFFD, each a key. The referee counts
//! keys by it and the console plays by it. It reads a stream a block at a time, so a line of
//! any length costs no more memory than a block, and never waits for more than the line typed.

use crate::model::direction::Direction;
use std::collections::VecDeque;
use std::io::{self, BufRead};

/// What a key reader found next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Typed {
    /// A character that is not white space.
    Char(char),
    /// An arrow key's escape sequence.
    Arrow(Direction),
    /// The end of a line (the `\n`).
    EndOfLine,
}

/// The keys of a stream, read as they come.
pub struct KeyReader<R> {
    input: R,
    /// Characters decoded and not yet given out (an escape sequence is looked at whole).
    pending: VecDeque<char>,
    /// The start of a character split across two blocks.
    partial: Vec<u8>,
    ended: bool,
}

impl<R: BufRead> KeyReader<R> {
    /// A reader of the keys of `input`.
    pub fn new(input: R) -> KeyReader<R> {
        KeyReader {
            input,
            pending: VecDeque::new(),
            partial: Vec::new(),
            ended: false,
        }
    }

    /// The next key or line end; `None` at the end of the input.
    pub fn next_typed(&mut self) -> io::Result<Option<Typed>> {
        loop {
            // One character at a time, and the two after an escape only: a reader of a
            // terminal never waits for more than the line typed.
            self.fill(1)?;
            if self.pending.front() == Some(&'\u{1b}') {
                self.fill(2)?;
                if matches!(self.pending.get(1), Some('[' | 'O')) {
                    self.fill(3)?;
                }
            }
            let Some(c) = self.pending.pop_front() else {
                return Ok(None);
            };
            if c == '\n' {
                return Ok(Some(Typed::EndOfLine));
            }
            if c.is_whitespace() {
                continue;
            }
            if c == '\u{1b}' && matches!(self.pending.front(), Some('[' | 'O')) {
                let arrow = match self.pending.get(1) {
                    Some('A') => Some(Direction::Up),
                    Some('B') => Some(Direction::Down),
                    Some('C') => Some(Direction::Right),
                    Some('D') => Some(Direction::Left),
                    _ => None,
                };
                if let Some(direction) = arrow {
                    self.pending.drain(..2);
                    return Ok(Some(Typed::Arrow(direction)));
                }
            }
            return Ok(Some(Typed::Char(c)));
        }
    }

    /// Decodes blocks until `want` characters wait (or the input ends).
    fn fill(&mut self, want: usize) -> io::Result<()> {
        while self.pending.len() < want && !self.ended {
            let block = match self.input.fill_buf() {
                Ok(block) => block,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if block.is_empty() {
                self.ended = true;
                if !self.partial.is_empty() {
                    self.partial.clear();
                    self.pending.push_back(char::REPLACEMENT_CHARACTER);
                }
                break;
            }
            // Enough for the characters wanted, and never a whole long line at once.
            let take = block.len().min(4096);
            self.partial.extend_from_slice(&block[..take]);
            self.input.consume(take);
            self.decode();
        }
        Ok(())
    }

    /// Moves what `partial` holds of whole characters to `pending`.
    fn decode(&mut self) {
        let mut rest: &[u8] = &self.partial;
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    self.pending.extend(text.chars());
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    let valid = std::str::from_utf8(valid).expect("checked valid");
                    self.pending.extend(valid.chars());
                    // A character cut at the block's end is kept for the next block.
                    let Some(bad) = e.error_len() else {
                        rest = after;
                        break;
                    };
                    self.pending.push_back(char::REPLACEMENT_CHARACTER);
                    rest = &after[bad..];
                }
            }
        }
        self.partial = rest.to_vec();
    }
}

impl<R: BufRead> Iterator for KeyReader<R> {
    type Item = io::Result<Typed>;

    fn next(&mut self) -> Option<io::Result<Typed>> {
        self.next_typed().transpose()
    }
}

/// The keys of `bytes`, in order (a slice never fails to read).
pub fn typed_keys(bytes: &[u8]) -> impl Iterator<Item = Typed> + '_ {
    KeyReader::new(bytes).map_while(Result::ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_characters_that_are_not_blanks_and_arrows_are_one() {
        let typed: Vec<Typed> = typed_keys(b"h l\r\n\x1b[A\x1bOD x\n\n\x1b[Z").collect();
        assert_eq!(
            typed,
            [
                Typed::Char('h'),
                Typed::Char('l'),
                Typed::EndOfLine,
                Typed::Arrow(Direction::Up),
                Typed::Arrow(Direction::Left),
                Typed::Char('x'),
                Typed::EndOfLine,
                Typed::EndOfLine,
                Typed::Char('\u{1b}'),
                Typed::Char('['),
                Typed::Char('Z'),
            ]
        );
    }

    /// Input that has `text` and then would wait for more (a terminal with nothing typed).
    struct Typing(&'static [u8]);

    impl io::Read for Typing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.is_empty() {
                return Err(io::Error::new(io::ErrorKind::WouldBlock, "would wait"));
            }
            let n = self.0.len().min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn a_typed_line_is_read_to_its_end_without_waiting_for_more() {
        let mut reader = KeyReader::new(io::BufReader::new(Typing(b"h\x1b[A\x1b\n")));
        assert_eq!(reader.next_typed().unwrap(), Some(Typed::Char('h')));
        assert_eq!(
            reader.next_typed().unwrap(),
            Some(Typed::Arrow(Direction::Up))
        );
        assert_eq!(reader.next_typed().unwrap(), Some(Typed::Char('\u{1b}')));
        assert_eq!(reader.next_typed().unwrap(), Some(Typed::EndOfLine));
        assert!(reader.next_typed().is_err());
    }

    #[test]
    fn a_line_of_any_length_reads_whole_through_small_blocks() {
        let mut bytes = ("ul".repeat(40_000) + "\n\u{e9}\x1b[B").into_bytes();
        bytes.extend([0xff, 0xff]);
        // Blocks of 7 bytes: characters and escape sequences cut across blocks.
        let reader = KeyReader::new(io::BufReader::with_capacity(7, bytes.as_slice()));
        let typed: Vec<Typed> = reader.map(Result::unwrap).collect();
        assert_eq!(typed.len(), 80_000 + 1 + 2 + 2);
        assert_eq!(typed[80_000], Typed::EndOfLine);
        assert_eq!(typed[80_001], Typed::Char('\u{e9}'));
        assert_eq!(typed[80_002], Typed::Arrow(Direction::Down));
        assert_eq!(typed[80_003], Typed::Char(char::REPLACEMENT_CHARACTER));
    }
}
