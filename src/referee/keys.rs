//! The keys a program was fed, read as the programs that read a key at a time (`cin >> c`)
//! read them: every character that is not white space is one key, in order, whatever the
//! lines. Letters count in either case, as the Power-11 programs read them.

/// One key and where it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// The key as typed.
    pub typed: char,
    /// The key lower-cased: what it means.
    pub key: char,
    /// Its position among the keys (1-based).
    pub index: usize,
    /// Its line in the keys file (1-based).
    pub line: usize,
}

/// Every key of `text`, in order.
pub fn read_keys(text: &str) -> Vec<Key> {
    let mut keys = Vec::new();
    for (number, line) in text.split('\n').enumerate() {
        for typed in line.chars().filter(|c| !c.is_whitespace()) {
            keys.push(Key {
                typed,
                key: typed.to_ascii_lowercase(),
                index: keys.len() + 1,
                line: number + 1,
            });
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_but_white_space_is_a_key_with_its_line() {
        let keys = read_keys("h\nlU \n\n\tq\r\n");
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
                ('q', 'q', 4, 4)
            ]
        );
    }
}
