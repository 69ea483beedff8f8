//! The files of the runs of programs under test (`power11 referee --run`): the fresh folder
//! each runs in and the save it left there; the folder failing scripts are kept in, with what
//! the program printed, for replay; the referee's inputs.

use crate::files::atomic::{write_atomic_in, write_private_in};
use crate::files::bounded::{Expect, read_single_in};
use crate::files::dir::Dir;
use crate::files::save::{FileError, SAVE_FILE};
use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};

/// The most of a save a run may leave that is read: 64 MiB, eight times the history of the
/// longest play the referee feeds (50,000 keys of 4x4 states, about 8 MB).
pub const MAX_RUN_SAVE: u64 = 64 << 20;

/// The folder a run of a program under test runs in: fresh, empty but for the save it is
/// given (`--save-before`), removed with what the program left in it when dropped. It is
/// also the run's home and power11's data directory, so no run reads another's save or best
/// scores. It is held open from the start, and what the program left is read through that
/// handle: a program that renames the folder and puts a link in its place is not followed.
#[derive(Debug)]
pub struct RunFolder {
    dir: tempfile::TempDir,
    handle: Dir,
}

impl RunFolder {
    /// A fresh folder, with `save` in it as `power11.saved` if given.
    pub fn new(save: Option<&[u8]>) -> io::Result<RunFolder> {
        let dir = tempfile::tempdir()?;
        if let Some(save) = save {
            std::fs::write(dir.path().join(SAVE_FILE), save)?;
        }
        let handle = Dir::open(dir.path(), false)?;
        Ok(RunFolder { dir, handle })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The save the program left there (`power11.saved`), if a regular file with no other
    /// name of at most [`MAX_RUN_SAVE`] bytes, read through the folder's handle: a link it
    /// made there is not followed, nor a hard link read (either may lead to a file the
    /// referee can read and the program cannot, which the report and the kept files would
    /// then show), nor a FIFO or a device opened.
    pub fn saved(&self) -> Option<Vec<u8>> {
        read_single_in(
            &self.handle,
            OsStr::new(SAVE_FILE),
            MAX_RUN_SAVE,
            Expect::Bytes,
        )
        .ok()
    }
}

/// The folder failing generated scripts are kept in (`referee --keep`), checked before any
/// script runs by a real write, so a bad folder loses no report; made if it is not there, and
/// removed again at the end if it was made and nothing was kept in it.
#[derive(Debug)]
pub struct KeepDir {
    dir: Dir,
    /// The folder as the user named it (or the default), for messages.
    path: PathBuf,
    /// Whether this run made it.
    made: bool,
}

impl KeepDir {
    /// The folder at `path`, walked with the link rule on every name; `default` when the user
    /// named none: a default folder someone else owns is not used (another user could read
    /// what is kept there, or have planted names in it). The error is the whole message.
    pub fn prepare(path: &Path, default: bool) -> Result<KeepDir, String> {
        let flag = if default { "the keep folder" } else { "--keep" };
        let fail = |problem: String| format!("{flag} {}: {problem}", crate::files::shown(path));
        let made = match std::fs::symlink_metadata(path) {
            // The default name is power11's own: a link there was put by someone else.
            Ok(meta) if default && meta.file_type().is_symlink() => {
                return Err(fail(
                    "a symbolic link; power11 keeps scripts only in a folder it made: remove it, or name a folder with --keep"
                        .to_string(),
                ));
            }
            Ok(meta) if meta.is_dir() || meta.file_type().is_symlink() => false,
            Ok(meta) => {
                return Err(fail(format!(
                    "{}, not a folder to keep failing scripts in",
                    crate::files::open::kind_words(meta.file_type())
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => true,
            Err(e) => return Err(fail(crate::files::system_words(&e))),
        };
        let dir = Dir::open(path, true).map_err(|e| fail(crate::files::system_words(&e)))?;
        if default && dir.owned_by_another().unwrap_or(true) {
            return Err(fail(
                "another user's folder; power11 does not keep scripts in a folder it did not                  make: name one with --keep"
                    .to_string(),
            ));
        }
        let keep = KeepDir {
            dir,
            path: path.to_path_buf(),
            made,
        };
        // A real write: a read-only folder or a full disk is said now, not after the runs.
        write_atomic_in(&keep.dir, OsStr::new(".power11-referee-check"), b"")
            .and_then(|()| {
                keep.dir
                    .remove(OsStr::new(".power11-referee-check"))
                    .map_err(|error| FileError::Io {
                        path: path.to_path_buf(),
                        error,
                    })
            })
            .map_err(|e| {
                let words = match e {
                    FileError::Io { error, .. } => crate::files::system_words(&error),
                    other => other.to_string(),
                };
                fail(format!("cannot write in it: {words}"))
            })?;
        Ok(keep)
    }

    /// Keeps a failing script: `script-NNNN.keys`, what the program printed (`.out`) and its
    /// save (`.saved`), each written atomically under a name of its own that is replaced,
    /// never followed, if something is there, and readable by this user alone (mode 0600:
    /// what a program printed may hold anything it could read); in the folder `sub` (one a program of a class,
    /// made where missing) if given. Returns the keys file's path.
    pub fn keep(
        &self,
        sub: Option<&str>,
        index: u64,
        keys: &str,
        output: &[u8],
        save: Option<&[u8]>,
    ) -> Result<PathBuf, FileError> {
        let (dir, path) = match sub {
            None => (self.dir.try_clone(), self.path.clone()),
            Some(sub) => (
                Dir::open(&self.dir.path().join(sub), true),
                self.path.join(sub),
            ),
        };
        let dir = dir.map_err(|error| FileError::Io {
            path: path.clone(),
            error,
        })?;
        let stem = format!("script-{index:04}");
        let keys_name = format!("{stem}.keys");
        write_private_in(&dir, keys_name.as_ref(), keys.as_bytes())?;
        write_private_in(&dir, format!("{stem}.out").as_ref(), output)?;
        if let Some(save) = save {
            write_private_in(&dir, format!("{stem}.saved").as_ref(), save)?;
        }
        Ok(path.join(keys_name))
    }

    /// Removes the folder if this run made it and kept nothing in it.
    pub fn finish(&self) {
        if self.made && self.dir.names().is_ok_and(|names| names.is_empty()) {
            let _ = std::fs::remove_dir(&self.path);
        }
    }
}

/// A file the referee reads (the keys, a transcript, a save), whatever its bytes: a program
/// may print anything, so bytes that are not UTF-8 read as U+FFFD. A regular file or a stream
/// (`<(...)`, a FIFO: one nobody writes to reads as empty) of at most `limit` bytes, or standard
/// input for `-`; the error is the whole message, naming the file.
pub fn read_any_text(path: &Path, limit: u64) -> Result<String, String> {
    use crate::files::bounded::{BoundedReadError, read_standard_input, read_stream};
    let stdin = path == Path::new("-");
    let shown = if stdin {
        "standard input".to_string()
    } else {
        crate::files::shown(path)
    };
    let read = if stdin {
        read_standard_input(limit, Expect::Bytes)
    } else {
        read_stream(path, limit, Expect::Bytes)
    };
    match read {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
            Err(format!("{shown}: no such file"))
        }
        Err(BoundedReadError::Io(e)) => Err(format!("{shown}: {}", crate::files::system_words(&e))),
        Err(BoundedReadError::NotRegular(what)) => Err(format!("{shown}: {what}, not a file")),
        Err(BoundedReadError::TooLarge(_)) => Err(format!(
            "{shown}: larger than the {} MiB the referee reads",
            limit >> 20
        )),
    }
}
