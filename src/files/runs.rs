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
/// removed again at the end if it was made and nothing was kept in it. Each run keeps its
/// failures in a folder of its own there, named by what it ran and when
/// (`seed-7-20261129-061502`), so a second run never mixes its files with a first's.
#[derive(Debug)]
pub struct KeepDir {
    /// The run's own folder.
    dir: Dir,
    /// The run's own folder as messages name it (below the folder the user named).
    path: PathBuf,
    /// The folder the user named (or the default).
    root: PathBuf,
    /// Whether this run made the folder the user named.
    made: bool,
}

/// `seconds` since 1970 as `YYYYMMDD-HHMMSS`, in UTC.
fn stamp(seconds: u64) -> String {
    let days = i64::try_from(seconds / 86_400).unwrap_or(0);
    let rest = seconds % 86_400;
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

impl KeepDir {
    /// The folder at `path`, walked with the link rule on every name; `default` when the user
    /// named none: a default folder someone else owns is not used (another user could read
    /// what is kept there, or have planted names in it). The error is the whole message.
    pub fn prepare(path: &Path, default: bool, label: &str) -> Result<KeepDir, String> {
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
                "another user's folder; power11 does not keep scripts in a folder it did not make: name one with --keep"
                    .to_string(),
            ));
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let base = format!("{label}-{}", stamp(now));
        let mut name = base.clone();
        let mut tries = 1;
        loop {
            match dir.make_dir(OsStr::new(&name)) {
                Ok(true) => break,
                Ok(false) if tries < 100 => {
                    tries += 1;
                    name = format!("{base}-{tries}");
                }
                Ok(false) => return Err(fail("no free name for this run's folder".to_string())),
                Err(e) => return Err(fail(crate::files::system_words(&e))),
            }
        }
        let own = Dir::open(&dir.path().join(&name), false)
            .map_err(|e| fail(crate::files::system_words(&e)))?;
        let keep = KeepDir {
            dir: own,
            path: path.join(&name),
            root: path.to_path_buf(),
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

    /// The run's own folder, as messages name it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the run's own folder if it kept nothing, and the folder the user named too if
    /// this run made it and it is empty then.
    pub fn finish(&self) {
        if self.dir.names().is_ok_and(|names| names.is_empty()) {
            let _ = std::fs::remove_dir(&self.path);
            if self.made {
                let _ = std::fs::remove_dir(&self.root);
            }
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

#[cfg(test)]
mod tests {
    use super::stamp;

    #[test]
    fn a_stamp_is_the_utc_date_and_time() {
        assert_eq!(stamp(0), "19700101-000000");
        assert_eq!(stamp(951_782_400), "20000229-000000");
        assert_eq!(stamp(1_795_929_302), "20261129-051502");
    }
}
