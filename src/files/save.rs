//! Files of game states: the save file (`power11.saved`) and board files (`--board`).
//!
//! Writes are atomic (temporary file in the same directory, synced, renamed over the target), so a
//! crash or a full disk leaves the previous save intact. A symlinked save is written through to
//! its target, and the target keeps its mode. A temporary file is locked while it is written, so
//! the next save can tell one left by a killed process from one in use and removes it: after any
//! number of kills at most one remains. Reads never modify the file and are bounded to
//! [`MAX_FILE_BYTES`]: a save only when it is a regular file, a board file also from a pipe
//! (`--board <(...)`), whose limit holds as it is read.

use crate::files::bounded::{BoundedReadError, Expect, read_regular, read_stream};
use crate::files::open::open_own_temporary;
use crate::model::game::Timeline;
use crate::text::{
    MAX_SAVE_BYTES, ParseError, Problem, first_saved, parse_board_file, parse_save, write_save_to,
};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The save file's name, in the current directory.
pub const SAVE_FILE: &str = "power11.saved";

/// The largest save or board file read (the text format's [`MAX_SAVE_BYTES`]).
pub const MAX_FILE_BYTES: u64 = MAX_SAVE_BYTES;

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
fn size_words(bytes: Option<u64>) -> String {
    match bytes {
        Some(bytes) => format!("{bytes} bytes"),
        None => format!("more than {} MiB", MAX_FILE_BYTES >> 20),
    }
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

/// Replaces `path` with `contents` atomically: a temporary file in the same directory is
/// written, synced and renamed over it, so `path` always holds either the old or the new text.
///
/// A symlink at `path` is followed: its target is replaced, in the target's directory, and the
/// link stays. An existing file keeps its mode. Errors name `path`, never the temporary file.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<(), FileError> {
    write_atomic_with(path, |file| file.write_all(contents))
}

/// [`write_atomic`] with contents that `write` streams to the temporary file, for files too
/// large to hold twice in memory (a network's coherence sums are 1.6 GB).
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<(), FileError> {
    prepare_atomic(path, write)?.commit()
}

/// A file written in full and synced beside its target, not yet in its place: [`Self::commit`]
/// renames it over the target. Dropped uncommitted, it is removed and the target is as it was;
/// so files that go together (weights and their coherence sums) are all prepared before any
/// replaces its old one.
pub struct Prepared {
    /// The path asked for, which messages name.
    path: PathBuf,
    /// The file it resolves to, which the rename replaces.
    target: PathBuf,
    file: tempfile::NamedTempFile,
}

impl Prepared {
    /// Puts the file in its place (one rename: the target is the old file or the new one).
    pub fn commit(self) -> Result<(), FileError> {
        let Prepared { path, target, file } = self;
        file.persist(&target).map_err(|e| FileError::Io {
            path,
            error: without_temporary_path(e.error),
        })?;
        Ok(())
    }
}

/// The first half of [`write_atomic_with`]: everything but the rename.
pub fn prepare_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Prepared, FileError> {
    let io_error = |source| FileError::Io {
        path: path.to_path_buf(),
        error: source,
    };
    let target = resolve_links(path).map_err(io_error)?;
    check_replaceable(path, &target)?;
    let dir = directory_of(&target);
    let name = target
        .file_name()
        .map_or_else(|| "save".into(), |n| n.to_string_lossy().into_owned());
    let prefix = temporary_prefix(&name);
    remove_abandoned(dir, &prefix);
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // Created as any new file is (0666 less the user's umask), not tempfile's private 0600: a
    // new file keeps that mode, an existing one gets its own back below.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let file = builder
        .tempfile_in(dir)
        .map_err(|e| io_error(without_temporary_path(e)))?;
    // Held until the rename: a file with this prefix that can be locked was left by a process
    // that died while saving. Never waited for: a file just made is locked by nobody but
    // someone who opened it to stall this write, and it is written all the same.
    let _ = file.as_file().try_lock();
    if let Ok(meta) = std::fs::metadata(&target) {
        file.as_file()
            .set_permissions(meta.permissions())
            .map_err(io_error)?;
    }
    let mut buffered = io::BufWriter::with_capacity(1 << 20, file.as_file());
    write(&mut buffered)
        .and_then(|()| buffered.flush())
        .map_err(io_error)?;
    drop(buffered);
    file.as_file().sync_all().map_err(io_error)?;
    Ok(Prepared {
        path: path.to_path_buf(),
        target,
        file,
    })
}

/// The error the system gave, without the temporary file's path that `tempfile` adds to it
/// ("... at path \".../.power11.saved.4hDqM0.tmp\""): the message names the file the user asked
/// for. (`tempfile` keeps the system's error only inside its message.)
pub(crate) fn without_temporary_path(error: io::Error) -> io::Error {
    let message = error.to_string();
    match message.split_once(" at path ") {
        Some((cause, _)) if error.get_ref().is_some() => io::Error::new(error.kind(), cause),
        _ => error,
    }
}

/// `path` with its symlinks followed (at most 40, as the kernel does), so that a save replaces
/// the file the link points to instead of the link.
///
/// A link is followed only where the kernel would follow it under `fs.protected_symlinks`
/// (see [`link_may_be_followed`]): a link another user planted in a shared directory such as
/// `/tmp` is refused, so nobody can make this program replace a file of its user's.
pub(crate) fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                check_link(&current, &meta)?;
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// The kernel's rule for following a link (`fs.protected_symlinks`): a link in a directory
/// that is both sticky and world-writable (`/tmp`, a shared lab folder) is followed only by
/// the link's owner or when the link's owner also owns the directory. Anywhere else, links are
/// followed.
pub(crate) fn link_may_be_followed(
    dir_mode: u32,
    dir_owner: u32,
    link_owner: u32,
    user: u32,
) -> bool {
    const STICKY: u32 = 0o1000;
    const WORLD_WRITABLE: u32 = 0o0002;
    let shared = dir_mode & STICKY != 0 && dir_mode & WORLD_WRITABLE != 0;
    !shared || link_owner == user || link_owner == dir_owner
}

/// Refuses to follow the link at `link` (whose own metadata is `meta`) where the kernel would
/// not ([`link_may_be_followed`]), whatever `fs.protected_symlinks` is set to on this machine.
#[cfg(unix)]
fn check_link(link: &Path, meta: &std::fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let dir = std::fs::metadata(directory_of(link))?;
    // SAFETY: geteuid takes nothing, cannot fail and touches no memory of ours.
    let user = unsafe { libc::geteuid() };
    if link_may_be_followed(dir.mode(), dir.uid(), meta.uid(), user) {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "a link that another user put in a shared directory (sticky and world-writable); \
             it is not followed, as the kernel's protected_symlinks rule says: remove it to write here",
        ))
    }
}

#[cfg(not(unix))]
fn check_link(_link: &Path, _meta: &std::fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// The file `path` names once its links are followed ([`resolve_links`]), or `path` itself
/// where they cannot be (a refused link, a loop, an unreadable link): the file whose directory
/// is checked, and beside which related files are kept.
pub(crate) fn link_target(path: &Path) -> PathBuf {
    resolve_links(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The start of the name of the temporary file a file `name` is written through:
/// `.{name}.`, then random characters and `.tmp`. A name is cut to its first 200 bytes there,
/// so that a name as long as a file system allows (255 bytes) still has a temporary file.
pub(crate) fn temporary_prefix(name: &str) -> String {
    let mut end = name.len().min(200);
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    format!(".{}.", &name[..end])
}

/// The directory that holds `path` (`.` for a bare file name).
pub(crate) fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Removes the temporary files (`{prefix}*.tmp` in `dir`) that earlier saves abandoned when
/// their process was killed: regular files of this user's that nobody holds a lock on. Best
/// effort, and never blocking: a file in use, anything else at such a name (a FIFO someone
/// planted, another user's file), or one that cannot be removed, is left.
fn remove_abandoned(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !(name.starts_with(prefix) && name.ends_with(".tmp")) {
            continue;
        }
        let path = entry.path();
        if let Some(file) = open_own_temporary(&path)
            && file.try_lock().is_ok()
        {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Whether [`write_atomic`] may replace what `path` (whose links lead to `target`) names:
/// nothing there, or a regular file that is not read-only. A device or a FIFO (a link to
/// /dev/null, say) is not a file to replace; a read-only file was protected on purpose
/// (renaming over it would succeed, as the directory decides). Checked again before a long run
/// whose end writes the file.
pub(crate) fn check_replaceable(path: &Path, target: &Path) -> Result<(), FileError> {
    match std::fs::metadata(target) {
        Ok(meta) if !meta.is_file() => Err(FileError::NotRegular {
            path: path.to_path_buf(),
        }),
        Ok(meta) if meta.permissions().readonly() => Err(FileError::ReadOnly {
            path: path.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// The directory and name of the file `path` names (following links), once that directory (made
/// first if `make_dir`) has taken a temporary file named as `save::write_atomic` names the one it
/// writes `path` through: checked before hours of work depend on it. The error is the system's,
/// without the temporary file's (perhaps very long) path.
pub(crate) fn check_writable_beside(path: &Path, make_dir: bool) -> io::Result<(PathBuf, String)> {
    let target = resolve_links(path)?;
    let dir = directory_of(&target).to_path_buf();
    let name = target
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    if make_dir {
        std::fs::create_dir_all(&dir)?;
    }
    tempfile::Builder::new()
        .prefix(&temporary_prefix(&name))
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(without_temporary_path)?;
    Ok((dir, name))
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
    fn links_are_followed_where_the_kernel_would_follow_them() {
        let (me, other, shared, private) = (1000, 2000, 0o1777, 0o755);
        // In a sticky, world-writable directory: the link's owner, or the directory's.
        assert!(link_may_be_followed(shared, 0, me, me));
        assert!(link_may_be_followed(shared, other, other, me));
        assert!(!link_may_be_followed(shared, 0, other, me));
        assert!(!link_may_be_followed(shared, 0, other, 0));
        // Sticky but not world-writable, or world-writable but not sticky: any link.
        assert!(link_may_be_followed(0o1775, 0, other, me));
        assert!(link_may_be_followed(0o0777, 0, other, me));
        assert!(link_may_be_followed(private, me, other, me));
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
