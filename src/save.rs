//! Files of game states: the save file (`power11.saved`) and board files (`--board`).
//!
//! Writes are atomic (temporary file in the same directory, synced, renamed over the target), so a
//! crash or a full disk leaves the previous save intact. Reads never modify the file.

use crate::game::Timeline;
use crate::text::{ParseError, Problem, parse_board_file, parse_save, render_save};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The save file's name, in the current directory.
pub const SAVE_FILE: &str = "power11.saved";

/// Why a file of game states could not be read or written. Every message starts with the path.
#[derive(Debug, Error)]
pub enum FileError {
    /// The file does not exist.
    #[error("{}: no such file", .path.display())]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The file is not UTF-8 text.
    #[error("{}:{line}: not text (invalid UTF-8)", .path.display())]
    NotText {
        /// The file.
        path: PathBuf,
        /// 1-based line of the first invalid byte.
        line: usize,
    },
    /// The text is not a valid board or save.
    #[error("{}:{line}: {problem}", .path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong there.
        problem: Problem,
    },
}

fn read_text(path: &Path) -> Result<String, FileError> {
    let bytes = std::fs::read(path).map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => FileError::Missing {
            path: path.to_path_buf(),
        },
        _ => FileError::Io {
            path: path.to_path_buf(),
            source,
        },
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..valid]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        FileError::NotText {
            path: path.to_path_buf(),
            line,
        }
    })
}

fn located(path: &Path, error: ParseError) -> FileError {
    FileError::Parse {
        path: path.to_path_buf(),
        line: error.line,
        problem: error.problem,
    }
}

/// Reads a save file strictly (see [`parse_save`]).
pub fn read_save(path: &Path) -> Result<Timeline, FileError> {
    parse_save(&read_text(path)?).map_err(|e| located(path, e))
}

/// Reads a board file in any accepted format (see [`parse_board_file`]).
pub fn read_board_file(path: &Path) -> Result<Timeline, FileError> {
    parse_board_file(&read_text(path)?).map_err(|e| located(path, e))
}

/// Writes `timeline` as a save file (see [`render_save`]) to `path` atomically.
pub fn write_save(path: &Path, timeline: &Timeline) -> Result<(), FileError> {
    write_atomic(path, render_save(timeline).as_bytes())
}

/// Replaces `path` with `contents` atomically: a temporary file in the same directory is
/// written, synced and renamed over it, so `path` always holds either the old or the new text.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), FileError> {
    let io_error = |source| FileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".power11-")
        .tempfile_in(dir)
        .map_err(io_error)?;
    file.write_all(contents)
        .and_then(|()| file.as_file().sync_all())
        .map_err(io_error)?;
    file.persist(path).map_err(|e| io_error(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direction::Direction;
    use crate::game::Game;
    use crate::random::seeded;
    use crate::rules::Rules;

    #[test]
    fn save_then_read_gives_the_same_states() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SAVE_FILE);
        let mut rng = seeded(5);
        let mut game = Game::new(Rules::power11(4).unwrap(), &mut rng);
        for d in Direction::ALL.iter().cycle().take(12) {
            game.play(*d, &mut rng);
        }
        write_save(&path, &game.timeline()).unwrap();
        assert_eq!(read_save(&path).unwrap(), game.timeline());
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.saved");
        std::fs::write(&path, "Score: 1\n###\n").unwrap();
        let msg = read_save(&path).unwrap_err().to_string();
        assert!(
            msg.ends_with("bad.saved:3: the board is not closed by a line of '#'"),
            "{msg}"
        );
        std::fs::write(&path, b"Score: 1\n\xff\n").unwrap();
        assert!(
            read_save(&path)
                .unwrap_err()
                .to_string()
                .ends_with("bad.saved:2: not text (invalid UTF-8)")
        );
        let missing = dir.path().join("nope");
        assert!(matches!(
            read_save(&missing),
            Err(FileError::Missing { .. })
        ));
    }
}
