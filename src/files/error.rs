//! The error of every read and write of a file of game states (and of the atomic writes every
//! kind of file goes through): `path: problem`, the path first.

use crate::text::{MAX_SAVE_BYTES as MAX_FILE_BYTES, Problem};
use std::io;
use std::path::PathBuf;
use thiserror::Error;

/// Why a file of game states could not be read or written. Every message starts with the path.
#[derive(Debug, Error)]
pub enum FileError {
    /// The file does not exist.
    #[error("{}: no such file", crate::files::shown(.path))]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// Reading or writing failed. The system's error is part of the message, and so not an
    /// error `source` as well (a chain printed whole would say it twice).
    #[error("{}: {}", crate::files::shown(.path), super::system_words(.error))]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        error: io::Error,
    },
    /// The path is not a regular file (a directory, a device, a FIFO...).
    #[error("{}: not a regular file", crate::files::shown(.path))]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// The file is read-only: someone protected it, and it is not replaced.
    #[error("{}: the file is read-only; it is left alone", crate::files::shown(.path))]
    ReadOnly {
        /// The file.
        path: PathBuf,
    },
    /// The file is larger than any save or board file can be.
    #[error("{}: {}", crate::files::shown(.path), too_large(*.bytes))]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size, if it has one (a stream is refused once it passes the limit).
        bytes: Option<u64>,
    },
    /// The file is UTF-16 text (as some Windows editors save): text, but not the UTF-8 that
    /// saves and board files are written in, so the user is told what to do about it.
    #[error("{}: UTF-16 text; save it as UTF-8 (or plain ASCII) to use it", crate::files::shown(.path))]
    Utf16 {
        /// The file.
        path: PathBuf,
    },
    /// The file is not UTF-8 text.
    #[error("{}:{line}: not text (invalid UTF-8)", crate::files::shown(.path))]
    NotText {
        /// The file.
        path: PathBuf,
        /// 1-based line of the first invalid byte.
        line: usize,
    },
    /// The file at the save's path is not a save (it does not read as one), so saving there
    /// would destroy something that is not ours: it is left alone.
    #[error("{}: not a save ({what}); it is left alone: move it away to save here", crate::files::shown(.path))]
    NotASave {
        /// The file.
        path: PathBuf,
        /// What the file is, as far as reading it as a save told.
        what: String,
    },
    /// The text is not a valid board or save.
    #[error("{}:{line}: {problem}", crate::files::shown(.path))]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong there.
        problem: Problem,
    },
}

/// The words for a file past [`MAX_FILE_BYTES`]: its size, or for a stream that passed the
/// limit, that it did.
fn too_large(bytes: Option<u64>) -> String {
    // A stream's words already name the limit.
    let limit = bytes.map_or(String::new(), |_| {
        format!(" ({} MiB)", MAX_FILE_BYTES >> 20)
    });
    format!(
        "{}, larger than any save or board file can be{limit}",
        size_words(bytes)
    )
}

/// A file's size in words: its bytes, or "more than" the limit for a stream that passed it.
pub(crate) fn size_words(bytes: Option<u64>) -> String {
    match bytes {
        Some(bytes) => format!("{bytes} bytes"),
        None => format!("more than {} MiB", MAX_FILE_BYTES >> 20),
    }
}
