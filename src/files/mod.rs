//! Files: the program's files and the rules every read and write follows. The one bounded
//! read (`bounded`); atomic writes, link rules and
//! the refusal of what is not a save (`save`), and each kind of file: saves and board files
//! (`save`), best scores (`best`), n-tuple weights (`weights`), pictures (`pictures`), solved 3x3 tables
//! (`solutions`), and the session's `Store` over all of them (`store`).

pub mod archives;
pub mod atomic;
pub mod best;
pub mod bounded;
pub mod cgroup;
pub mod class;
pub mod dir;
pub mod error;
pub mod open;
pub mod outputs;
pub mod pictures;
pub mod processes;
pub mod programs;
pub mod runs;
pub mod sandbox;
pub mod save;
pub mod solutions;
pub mod store;
pub mod weights;

/// `path` as messages show it: its control characters (an escape sequence, a line break in a
/// directory's name) in caret notation, as every message the program writes shows them, so
/// that no path sends the terminal a control sequence or breaks a message's line.
pub fn shown(path: &std::path::Path) -> String {
    crate::text::visible_text(&path.to_string_lossy())
}

/// The system's error as messages put it after a path: `no such file or directory`,
/// the rest as the system says it, in lower case and without Rust's `(os error N)`, so that
/// every file's message reads alike.
pub fn system_words(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    // A write's missing file is a missing directory.
    if error.kind() == ErrorKind::NotFound {
        return "no such file or directory".to_string();
    }
    let text = error.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => &text,
    };
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use std::io::{Error, ErrorKind};

    #[test]
    fn system_errors_read_alike() {
        let words = |e: Error| super::system_words(&e);
        assert_eq!(
            words(Error::from(ErrorKind::NotFound)),
            "no such file or directory"
        );
        assert_eq!(words(Error::from_raw_os_error(13)), "permission denied");
        assert_eq!(
            words(Error::from_raw_os_error(40)),
            "too many levels of symbolic links"
        );
        assert_eq!(
            words(Error::other("Disk quota (os error)")),
            "disk quota (os error)"
        );
    }
}
