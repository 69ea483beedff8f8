//! Files of game states: the save file (`power11.saved`) and board files (`--board`).
//!
//! Writes are atomic (temporary file in the same directory, synced, renamed over the target), so a
//! crash or a full disk leaves the previous save intact. A symlinked save is written through to
//! its target, and the target keeps its mode. A temporary file is locked while it is written, so
//! the next save can tell one left by a killed process from one in use and removes it: after any
//! number of kills at most one remains. Reads never modify the file and are bounded to
//! [`MAX_FILE_BYTES`]: a save only when it is a regular file, a board file also from a pipe
//! (`--board <(...)`), whose limit holds as it is read.

pub use crate::files::atomic::{Prepared, prepare_atomic, write_atomic, write_atomic_with};
pub(crate) use crate::files::atomic::{
    check_replaceable, check_writable_beside, directory_of, link_target, temporary_prefix,
};
use crate::files::bounded::{BoundedReadError, Expect, read_regular, read_stream};
pub(crate) use crate::files::dir::resolve_links;
use crate::model::game::Timeline;
use crate::text::{
    MAX_SAVE_BYTES, ParseError, first_saved, parse_board_file, parse_save, write_save_to,
};
use std::io;
use std::path::Path;

/// The save file's name, in the current directory.
pub const SAVE_FILE: &str = "power11.saved";

/// The largest save or board file read (the text format's [`MAX_SAVE_BYTES`]).
pub const MAX_FILE_BYTES: u64 = MAX_SAVE_BYTES;

pub use crate::files::error::FileError;
use crate::files::error::size_words;

/// The text of `path`, read by `read` ([`read_regular`] or [`read_stream`]).
fn read_text(
    path: &Path,
    read: fn(&Path, u64, Expect) -> Result<Vec<u8>, BoundedReadError>,
) -> Result<String, FileError> {
    let io_error = |source: io::Error| match source.kind() {
        io::ErrorKind::NotFound => FileError::Missing {
            path: path.to_path_buf(),
        },
        _ => FileError::Io {
            path: path.to_path_buf(),
            error: source,
        },
    };
    let bytes = read(path, MAX_FILE_BYTES, Expect::Text).map_err(|e| match e {
        BoundedReadError::Io(source) => io_error(source),
        BoundedReadError::NotRegular(_) => FileError::NotRegular {
            path: path.to_path_buf(),
        },
        BoundedReadError::TooLarge(bytes) => FileError::TooLarge {
            path: path.to_path_buf(),
            bytes,
        },
    })?;
    // A UTF-16 byte-order mark, either way round.
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(FileError::Utf16 {
            path: path.to_path_buf(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        // Lines counted as the parsers count them (`text::lines_of`): by LF, or by CR in a
        // file with no LF at all.
        let end = if e.as_bytes().contains(&b'\n') {
            b'\n'
        } else {
            b'\r'
        };
        let line = 1 + e.as_bytes()[..valid].iter().filter(|&&b| b == end).count();
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

/// Reads a save file strictly (see [`parse_save`]). A link another user planted in a shared
/// directory is not followed (the kernel's `protected_symlinks` rule), for reading as for writing.
pub fn read_save(path: &Path) -> Result<Timeline, FileError> {
    resolve_links(path).map_err(|error| FileError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    parse_save(&read_text(path, read_regular)?).map_err(|e| located(path, e))
}

/// Reads a board file in any accepted format (see [`parse_board_file`]). It may be a pipe
/// (`--board <(generate-board)`), as a file a user names only to be read often is.
pub fn read_board_file(path: &Path) -> Result<Timeline, FileError> {
    parse_board_file(&read_text(path, read_stream)?).map_err(|e| located(path, e))
}

/// Writes `timeline` as a save file (see [`crate::text::render_save`]) to `path` atomically; returns how many
/// of its oldest states were left out to keep the file within [`MAX_FILE_BYTES`] (0 but for a
/// history of millions of moves), so that every save written reads back. The file is written a
/// state at a time: a save of the longest history holds no second copy of it in memory.
pub fn write_save(path: &Path, timeline: &Timeline) -> Result<usize, FileError> {
    let states = timeline.states();
    let first = first_saved(states, MAX_FILE_BYTES as usize);
    write_atomic_with(path, |out| write_save_to(out, &states[first..]))?;
    Ok(first)
}

/// Replaces the save at `path` with `timeline` ([`write_save`]), but only where nothing, an
/// empty file or a save is there: a file that does not read as a save (a damaged save,
/// somebody's notes) is never overwritten ([`FileError::NotASave`]).
pub fn replace_save(path: &Path, timeline: &Timeline) -> Result<usize, FileError> {
    // A planted link is refused for what it is (by `read_save`), before the file is read.
    let what = match read_save(path) {
        Ok(_) | Err(FileError::Missing { .. }) => return write_save(path, timeline),
        Err(FileError::Parse { line, problem, .. }) => {
            // A file with nothing in it (made by `touch`) holds nothing to lose.
            if read_text(path, read_regular).is_ok_and(|text| text.trim().is_empty()) {
                return write_save(path, timeline);
            }
            format!("line {line}: {problem}")
        }
        Err(FileError::NotText { line, .. }) => format!("line {line}: not text"),
        Err(FileError::Utf16 { .. }) => "UTF-16 text".to_string(),
        Err(FileError::TooLarge { bytes, .. }) => size_words(bytes),
        Err(e) => return Err(e),
    };
    Err(FileError::NotASave {
        path: path.to_path_buf(),
        what,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::direction::Direction;
    use crate::model::game::Game;
    use crate::model::random::seeded;
    use crate::model::rules::Rules;
    use crate::text::render_save;

    /// Regression (hostile-user review): a save protected with `chmod a-w` was replaced, since
    /// renaming over a file needs only the directory's permission.
    #[test]
    fn a_read_only_file_is_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SAVE_FILE);
        std::fs::write(&path, "Score: 4\n").unwrap();
        let mut permissions = std::fs::metadata(&path).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&path, permissions).unwrap();
        let error = write_atomic(&path, b"Score: 8\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "{}: the file is read-only; it is left alone",
                path.display()
            )
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "Score: 4\n");
    }

    #[test]
    fn a_failed_save_names_the_file_asked_for_not_the_temporary_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no-such-dir").join(SAVE_FILE);
        let error = write_atomic(&path, b"Score: 0\n").unwrap_err().to_string();
        assert_eq!(
            error,
            format!("{}: no such file or directory", path.display())
        );
    }

    /// The save file of `timeline` within `limit` bytes, as `write_save` writes it, and how
    /// many states it left out.
    fn save_text(timeline: &Timeline, limit: usize) -> (String, usize) {
        let first = first_saved(timeline.states(), limit);
        let mut out = Vec::new();
        write_save_to(&mut out, &timeline.states()[first..]).unwrap();
        (String::from_utf8(out).unwrap(), first)
    }

    #[test]
    /// Regression: a history read in a narrower format than power11 writes (or grown by the
    /// moves since) was saved past the read limit, replacing a save that read with one that
    /// did not. A save keeps the newest states that fit, and says how many it left out.
    fn a_history_past_the_limit_keeps_its_newest_states() {
        let mut rng = seeded(5);
        let mut game = Game::new(Rules::power11(4).unwrap(), &mut rng);
        for d in Direction::ALL.iter().cycle().take(40) {
            game.play(*d, &mut rng);
        }
        let timeline = game.timeline();
        let states = timeline.states();
        let whole = render_save(timeline);
        assert_eq!(save_text(timeline, whole.len()), (whole.clone(), 0));
        for limit in [whole.len() - 1, whole.len() / 2, 300, 200, 1] {
            let (text, left_out) = save_text(timeline, limit);
            let kept = parse_save(&text).unwrap();
            assert_eq!(kept.states(), &states[left_out..], "limit {limit}");
            assert!(left_out > 0, "limit {limit}");
            // As many states as fit: the one before the first kept would not.
            if left_out < states.len() - 1 {
                assert!(text.len() <= limit, "limit {limit}: {} bytes", text.len());
                let one_more = render_save(&Timeline::new(states[left_out - 1])).len() + 1;
                assert!(text.len() + one_more > limit, "limit {limit}");
            } else {
                // Even a limit below one state keeps the current state.
                assert_eq!(kept.current(), timeline.current());
            }
        }
        // A single state past the limit is kept whole, and nothing is said left out.
        let one = Timeline::new(*timeline.current());
        let (text, left_out) = save_text(&one, 10);
        assert_eq!((text, left_out), (render_save(&one), 0));
    }

    /// The save's size is known before it is written: each state's length is its text's,
    /// whatever its tiles and score (wide cells, negative scores), and no game keeps more
    /// states than the smallest ones a save holds.
    #[test]
    fn a_state_s_length_is_known_without_drawing_it() {
        use crate::model::board::Board;
        use crate::text::{render_state, state_len, states_a_save_holds};
        for (rows, score) in [
            (vec![vec![2u64, 0, 0], vec![0; 3], vec![0; 3]], 0),
            (
                vec![vec![65536u64, 2, 0, 4], vec![0; 4], vec![0; 4], vec![0; 4]],
                -12,
            ),
            (vec![vec![0u64; 8]; 8], i128::MAX),
            (vec![vec![1024u64; 5]; 5], i128::MIN),
            (vec![vec![0u64; 6]; 6], 9),
            (vec![vec![0u64; 6]; 6], 10),
        ] {
            let state = crate::model::game::Snapshot {
                board: Board::from_values(&rows).unwrap(),
                score,
            };
            assert_eq!(state_len(&state), render_state(&state).len(), "{rows:?}");
        }
        for size in 3..=8 {
            let empty = crate::model::game::Snapshot {
                board: Board::empty(size).unwrap(),
                score: 0,
            };
            let held = states_a_save_holds(size);
            let bytes = (held * state_len(&empty) - 1) as u64;
            assert!(bytes <= MAX_FILE_BYTES, "size {size}");
            assert!(
                bytes + state_len(&empty) as u64 > MAX_FILE_BYTES,
                "size {size}"
            );
        }
    }

    #[test]
    fn save_then_read_gives_the_same_states() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(SAVE_FILE);
        let mut rng = seeded(5);
        let mut game = Game::new(Rules::power11(4).unwrap(), &mut rng);
        for d in Direction::ALL.iter().cycle().take(12) {
            game.play(*d, &mut rng);
        }
        write_save(&path, game.timeline()).unwrap();
        assert_eq!(&read_save(&path).unwrap(), game.timeline());
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
            msg.ends_with("bad.saved:2: the board that starts here is not closed by a line of '#'"),
            "{msg}"
        );
        std::fs::write(&path, b"Score: 1\n\xff\n").unwrap();
        assert!(
            read_save(&path)
                .unwrap_err()
                .to_string()
                .ends_with("bad.saved:2: not text (invalid UTF-8)")
        );
        // Regression: UTF-16 was "not text (invalid UTF-8)", with no hint of what to do.
        let utf16 = "\u{feff}Score: 1\n".encode_utf16();
        let little: Vec<u8> = utf16.clone().flat_map(u16::to_le_bytes).collect();
        let big: Vec<u8> = utf16.flat_map(u16::to_be_bytes).collect();
        for bytes in [little, big] {
            std::fs::write(&path, bytes).unwrap();
            let msg = read_save(&path).unwrap_err().to_string();
            assert!(
                msg.ends_with(
                    "bad.saved: UTF-16 text; save it as UTF-8 (or plain ASCII) to use it"
                ),
                "{msg}"
            );
        }
        // A file with no LF counts its lines by CR, as the parsers read it.
        std::fs::write(&path, b"Score: 1\r#####\r#\xff\r").unwrap();
        let msg = read_save(&path).unwrap_err().to_string();
        assert!(
            msg.ends_with("bad.saved:3: not text (invalid UTF-8)"),
            "{msg}"
        );
        let missing = dir.path().join("nope");
        assert!(matches!(
            read_save(&missing),
            Err(FileError::Missing { .. })
        ));
    }
}
