//! The keys a program was fed. The Power-11 programs read a key at a time (`cin >> c`): every
//! character that is not white space is one key, in order, whatever the lines, letters in
//! either case, and an arrow key's escape sequence (`ESC [ A`, or `ESC O A`) is one key, as
//! power11 reads them ([`crate::text::keys`], the one reader both use). The MIPS program reads a
//! line at a time: each line is one key (or one number of a start state).

use super::Assignment;
use crate::text::keys::{Typed, typed_keys};

/// One key and where it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key as typed (a line's first character, for the MIPS program; an arrow key as
    /// the move key it stands for).
    pub typed: char,
    /// The key lower-cased: what it means (as typed, for the MIPS program).
    pub key: char,
    /// Its position among the keys (1-based).
    pub index: usize,
    /// Its line in the keys file (1-based).
    pub line: usize,
    /// The whole line, for the MIPS program, which reads a line a key.
    word: Option<Box<str>>,
}

impl Key {
    /// The one character the key is: the MIPS program takes a line of exactly one character
    /// as a key, and any other line as no key it knows.
    pub fn whole(&self) -> Option<char> {
        match &self.word {
            None => Some(self.key),
            Some(word) => {
                let mut chars = word.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Some(c),
                    _ => None,
                }
            }
        }
    }

    /// The key's text: its line for the MIPS program, its character otherwise.
    pub fn text(&self) -> String {
        self.word
            .as_deref()
            .map_or_else(|| self.typed.to_string(), str::to_string)
    }

    /// Where the key is, as findings and reports name it.
    pub fn at(&self) -> super::KeyAt {
        super::KeyAt {
            key: self.typed,
            index: self.index,
            line: self.line,
        }
    }

    /// A Power-11 key: `typed`, the `index`-th, on line `line`.
    pub fn power11(typed: char, index: usize, line: usize) -> Key {
        Key {
            typed,
            key: typed.to_ascii_lowercase(),
            index,
            line,
            word: None,
        }
    }

    /// A MIPS key: the line `text` (its line ending left out), the `index`-th, on line `line`.
    pub fn mips(text: &str, index: usize, line: usize) -> Key {
        let typed = text.chars().next().unwrap_or(' ');
        Key {
            typed,
            key: typed,
            index,
            line,
            word: Some(text.into()),
        }
    }
}

/// Every Power-11 key of `text`, in order.
pub fn read_keys(text: &str) -> Vec<Key> {
    read(text, Assignment::Power11)
}

/// Every key of `text` as `assignment`'s program reads it.
pub fn read(text: &str, assignment: Assignment) -> Vec<Key> {
    match assignment {
        Assignment::Power11 => {
            let mut keys = Vec::new();
            let mut line = 1;
            for typed in typed_keys(text.as_bytes()) {
                match typed {
                    Typed::EndOfLine => line += 1,
                    Typed::Char(c) => keys.push(Key::power11(c, keys.len() + 1, line)),
                    Typed::Arrow(direction) => {
                        let c = direction.key();
                        keys.push(Key::power11(c, keys.len() + 1, line));
                    }
                }
            }
            keys
        }
        Assignment::Mips => {
            let text = text.strip_suffix('\n').unwrap_or(text);
            if text.is_empty() {
                return Vec::new();
            }
            text.split('\n')
                .enumerate()
                .map(|(i, line)| Key::mips(line.strip_suffix('\r').unwrap_or(line), i + 1, i + 1))
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_but_white_space_is_a_key_with_its_line() {
        let keys = read_keys("h\nlU \n\n\tq\r\n\u{1b}[Ax");
        let read: Vec<(char, char, usize, usize)> = keys
            .iter()
            .map(|k| (k.typed, k.key, k.index, k.line))
            .collect();
        assert_eq!(
            read,
            [
                ('h', 'h', 1, 1),
                ('l', 'l', 2, 2),
                ('U', 'u', 3, 2),
                ('q', 'q', 4, 4),
                ('u', 'u', 5, 5),
                ('x', 'x', 6, 5)
            ]
        );
    }

    #[test]
    fn the_mips_program_reads_a_line_a_key() {
        let keys = read("1\nW\r\nwa\n\n128\n", Assignment::Mips);
        let whole: Vec<Option<char>> = keys.iter().map(Key::whole).collect();
        assert_eq!(whole, [Some('1'), Some('W'), None, None, None]);
        assert_eq!(keys[4].text(), "128");
        assert_eq!(keys[4].line, 5);
    }
}
