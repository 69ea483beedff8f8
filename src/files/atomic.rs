//! Atomic writes: a file is written in full to a new temporary file beside its target, synced,
//! then renamed over it, so the target always holds its old contents or its new ones. Every act
//! goes through the target's directory as [`Dir`] walked it: the temporary file is new
//! (`O_EXCL | O_NOFOLLOW`), the rename replaces the name itself, and a link at the target's name
//! is followed (a save written through a link replaces the file it names) only where the
//! kernel's `protected_symlinks` rule would follow it, or not at all ([`Links::Replace`]).
//!
//! A temporary file is locked while it is written, so the next write can tell one left by a
//! killed process from one in use and removes it: after any number of kills at most one
//! remains.

use crate::files::dir::{Dir, Refusal, resolve};
use crate::files::error::FileError;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// What a write does with a link at the target's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Replaces the file it names, where the rule allows: a user's linked save or weights.
    Follow,
    /// Replaces the link itself: a file power11 makes for its own (a kept referee script), so
    /// no link anyone put there is ever written through.
    Replace,
    /// As [`Links::Replace`], the file given these permission bits whatever was there.
    ReplaceWithMode(u32),
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

/// [`write_atomic`] for a file power11 makes for its own in `dir` ([`Links::Replace`]): a link
/// at `name` is replaced, never followed.
pub fn write_atomic_in(dir: &Dir, name: &OsStr, contents: &[u8]) -> Result<(), FileError> {
    write_in(dir, name, contents, None)
}

/// [`write_atomic_in`] for a file only this user may read or write (mode 0600, whatever was
/// there): what a program under test printed or saved, which may hold anything.
pub fn write_private_in(dir: &Dir, name: &OsStr, contents: &[u8]) -> Result<(), FileError> {
    write_in(dir, name, contents, Some(0o600))
}

fn write_in(dir: &Dir, name: &OsStr, contents: &[u8], mode: Option<u32>) -> Result<(), FileError> {
    let path = dir.path().join(name);
    let dir = dir.try_clone().map_err(|error| FileError::Io {
        path: path.clone(),
        error,
    })?;
    let links = match mode {
        Some(mode) => Links::ReplaceWithMode(mode),
        None => Links::Replace,
    };
    prepare_in(&path, dir, name.to_os_string(), links, |file| {
        file.write_all(contents)
    })?
    .commit()
}

/// A file written in full and synced beside its target, not yet in its place: [`Self::commit`]
/// renames it over the target. Dropped uncommitted, it is removed and the target is as it was;
/// so files that go together (weights and their coherence sums) are all prepared before any
/// replaces its old one.
pub struct Prepared {
    /// The path asked for, which messages name.
    path: PathBuf,
    /// The target's directory.
    dir: Dir,
    /// The target's name in it.
    name: OsString,
    /// The temporary file's name in it; `None` once renamed.
    temporary: Option<OsString>,
    /// The temporary file, locked while it is written and until it is renamed or removed.
    file: File,
}

impl Prepared {
    /// Puts the file in its place (one rename: the target is the old file or the new one).
    pub fn commit(mut self) -> Result<(), FileError> {
        let temporary = self.temporary.take().expect("renamed once");
        self.dir.rename(&temporary, &self.name).map_err(|error| {
            let _ = self.dir.remove(&temporary);
            FileError::Io {
                path: self.path.clone(),
                error,
            }
        })?;
        self.dir.sync_entries();
        // Its own name now: no save takes it for one abandoned.
        let _ = self.file.unlock();
        Ok(())
    }
}

impl Drop for Prepared {
    fn drop(&mut self) {
        // Removed while still locked: another save never removes a file being written.
        if let Some(temporary) = &self.temporary {
            let _ = self.dir.remove(temporary);
        }
    }
}

/// The first half of [`write_atomic_with`]: everything but the rename.
pub fn prepare_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Prepared, FileError> {
    let (dir, name) = resolve(path, false).map_err(|error| FileError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    prepare_in(path, dir, name, Links::Follow, write)
}

/// The temporary file for `name` in `dir`, written by `write`, synced, and locked until it is
/// renamed or removed; `path` is the path messages name. What is at `name` is refused if it is
/// not a regular file or is read-only ([`check_replaceable`]'s rules), but for a link under
/// [`Links::Replace`], which is replaced itself. (Under [`Links::Follow`] the caller followed the
/// link already: one found here was swapped in since, and is refused.)
fn prepare_in(
    path: &Path,
    dir: Dir,
    name: OsString,
    links: Links,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> Result<Prepared, FileError> {
    let io_error = |error| FileError::Io {
        path: path.to_path_buf(),
        error,
    };
    let replace_links = matches!(links, Links::Replace | Links::ReplaceWithMode(_));
    let refusal = match dir.refusal(&name).map_err(io_error)? {
        Some(Refusal::NotRegular("a symbolic link")) if replace_links => None,
        refusal => refusal,
    };
    let mode = match refusal {
        Some(Refusal::ReadOnly) => {
            return Err(FileError::ReadOnly {
                path: path.to_path_buf(),
            });
        }
        Some(Refusal::NotRegular(_)) => {
            return Err(FileError::NotRegular {
                path: path.to_path_buf(),
            });
        }
        None if matches!(links, Links::ReplaceWithMode(_)) => match links {
            Links::ReplaceWithMode(mode) => Some(mode),
            _ => None,
        },
        None => dir
            .look(&name)
            .ok()
            .flatten()
            .filter(|&(what, _)| what == "a regular file")
            .map(|(_, mode)| mode),
    };
    let prefix = temporary_prefix(&name.to_string_lossy());
    remove_abandoned(&dir, &prefix);
    let (temporary, file) = make_temporary(&dir, &prefix).map_err(io_error)?;
    let prepared = Prepared {
        path: path.to_path_buf(),
        dir,
        name,
        temporary: Some(temporary),
        file: file.try_clone().map_err(io_error)?,
    };
    // A new file is created as any is (0666 less the umask); one that replaces a file gets
    // that file's mode.
    if let Some(mode) = mode {
        set_mode(&file, mode).map_err(io_error)?;
    }
    let mut buffered = io::BufWriter::with_capacity(1 << 20, &file);
    write(&mut buffered)
        .and_then(|()| buffered.flush())
        .map_err(io_error)?;
    drop(buffered);
    file.sync_all().map_err(io_error)?;
    Ok(prepared)
}

/// Gives `file` the permission bits `mode`.
fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let mut permissions = file.metadata()?.permissions();
        permissions.set_readonly(mode & 0o222 == 0);
        file.set_permissions(permissions)
    }
}

/// A new temporary file in `dir` named `{prefix}` and random characters and `.tmp`, made
/// `O_EXCL | O_NOFOLLOW` (a name taken, by anything, is passed over for another), and locked
/// until it is renamed or removed: a file with such a name that can be locked was left by a
/// process that died while saving, which another save removes ([`remove_abandoned`]). Between
/// the file's making and its lock another save may take it for abandoned and remove it: then
/// its name no longer leads to it once locked, and another is made, so no save is lost.
fn make_temporary(dir: &Dir, prefix: &str) -> io::Result<(OsString, File)> {
    use std::hash::{BuildHasher, RandomState};
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    let mut last = None;
    for _ in 0..100 {
        // Keys drawn by the system for each `RandomState`: names no one can guess ahead.
        let random = RandomState::new().hash_one(MADE.fetch_add(1, Ordering::Relaxed));
        let name = OsString::from(format!("{prefix}{:010x}.tmp", random & 0xff_ffff_ffff));
        match dir.create_new(&name, 0o666) {
            // Never waited for: a file just made is locked by nobody but a save about to
            // remove it (then another is made) or someone who opened it to stall this one.
            Ok(file) if file.try_lock().is_ok() && dir.leads_to(&name, &file) => {
                return Ok((name, file));
            }
            Ok(_) => last = Some(io::Error::other("its temporary file was taken away")),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::ErrorKind::AlreadyExists.into()))
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

/// Removes the temporary files (`{prefix}*.tmp` in `dir`) that earlier writes abandoned when
/// their process was killed: regular files of this user's that nobody holds a lock on. Best
/// effort, and never blocking: a file in use, anything else at such a name (a FIFO someone
/// planted, another user's file), or one that cannot be removed, is left.
fn remove_abandoned(dir: &Dir, prefix: &str) {
    let Ok(names) = dir.names() else {
        return;
    };
    for name in names {
        let text = name.to_string_lossy();
        if !(text.starts_with(prefix) && text.ends_with(".tmp")) {
            continue;
        }
        if let Some(file) = dir.open_own(&name)
            && file.try_lock().is_ok()
        {
            let _ = dir.remove(&name);
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

/// The directory and name of the file `path` names (following links where the rule allows),
/// once that directory (made first if `make_dir`) has taken a temporary file named as
/// [`write_atomic`] names the one it writes `path` through: checked before hours of work depend
/// on it. The error is the system's.
pub(crate) fn check_writable_beside(path: &Path, make_dir: bool) -> io::Result<(Dir, String)> {
    let (dir, name) = resolve(path, make_dir)?;
    let name = name.to_string_lossy().into_owned();
    let (temporary, file) = make_temporary(&dir, &temporary_prefix(&name))?;
    drop(file);
    let _ = dir.remove(&temporary);
    Ok((dir, name))
}

/// Makes the directory that holds `path` (and those above it) where it is missing, through
/// the walk ([`Dir::open`]): no link another user planted on the way is followed.
pub fn make_directory_of(path: &Path) -> Result<(), FileError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        Dir::open(dir, true).map_err(|error| FileError::Io {
            path: dir.to_path_buf(),
            error,
        })?;
    }
    Ok(())
}

/// The file `path` names once its links are followed where the rule allows
/// ([`crate::files::dir::resolve_links`]), or `path` itself where they cannot be (a refused
/// link, a loop, an unreadable link): the file whose directory is checked, and beside which
/// related files are kept.
pub(crate) fn link_target(path: &Path) -> PathBuf {
    crate::files::dir::resolve_links(path).unwrap_or_else(|_| path.to_path_buf())
}
