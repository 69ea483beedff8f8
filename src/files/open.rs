//! Opening a file at a name someone else could have planted something at (a save, a lock, a
//! temporary file left beside one, a weight file in the data directory): every such open is
//! here. None blocks, whatever is there: a FIFO or a device is refused before it is opened
//! where it can be told, and opened without waiting (`O_NONBLOCK`) where a swap in between
//! could put one there; what was opened is then checked (`fstat`), so the file read or locked
//! is the regular file that was looked at.

use std::fs::{File, FileType, Metadata, OpenOptions, TryLockError};
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// Why a file was not opened.
#[derive(Debug)]
pub enum OpenError {
    /// The system's error (`NotFound` for a missing file).
    Io(io::Error),
    /// Something that is not a regular file is there: what it is, in words
    /// ([`kind_words`]).
    NotRegular(&'static str),
}

impl OpenError {
    /// The error as an `io::Error`, its words for what is there as the message.
    pub fn into_io(self) -> io::Error {
        match self {
            OpenError::Io(error) => error,
            OpenError::NotRegular(what) => io::Error::other(format!("{what}, not a regular file")),
        }
    }
}

/// What a file of type `file_type` is, in words: `a directory`, `a FIFO (named pipe)`,
/// `a socket`, `a character device`, `a block device`, `a symbolic link`, `a regular file`.
pub fn kind_words(file_type: FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// The file at `path`, opened to read if it is a regular file, with its metadata: the one way
/// the program opens a user's file to read it (a save, best scores, weights, tables). Its
/// path is walked with the link rule at every name ([`crate::files::dir::resolve`]: a link
/// another user put in a shared folder is not followed), and the file is opened through its
/// folder's handle without following a link, then checked to be the file looked at
/// ([`crate::files::dir::Dir::open_to_read`]): a device or FIFO is refused unopened, and a
/// link swapped in after the look is refused, never followed.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), OpenError> {
    let (dir, name) = crate::files::dir::resolve(path, false).map_err(OpenError::Io)?;
    dir.open_to_read(&name, false)
}

/// As [`open_regular`], but a link at `path`'s last name is refused, never followed: for a
/// file another program made, in a folder of ours, which may point anywhere.
pub fn open_regular_not_link(path: &Path) -> Result<(File, Metadata), OpenError> {
    let (dir, name) = crate::files::dir::resolve_not_last(path).map_err(OpenError::Io)?;
    dir.open_to_read(&name, false)
}

/// The file at `path` opened to read as a stream (a regular file, a pipe such as `<(...)`):
/// opened without waiting for a FIFO's writer, then read as usual, so a FIFO nobody writes to
/// reads as empty rather than hanging the program at its open.
pub fn open_stream(path: &Path) -> io::Result<File> {
    let file = without_blocking(OpenOptions::new().read(true)).open(path)?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let fd = file.as_raw_fd();
        // SAFETY: fcntl reads and sets the flags of a descriptor this function owns.
        let ok = unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFL);
            flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) >= 0
        };
        if !ok {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(file)
}

/// The lock file at `path`, opened to be locked (made, empty, if it is not there): never a
/// link (a link at a lock's name was put there by someone else: refused, not followed, even one
/// swapped in between a look and the open), and never anything but a regular file. The folder
/// is reached by [`crate::files::dir::Dir::open`]'s walk.
pub fn open_lock(path: &Path) -> Result<File, OpenError> {
    let name = path
        .file_name()
        .ok_or(OpenError::NotRegular("a directory"))?;
    let dir = crate::files::dir::Dir::open(crate::files::save::directory_of(path), false)
        .map_err(OpenError::Io)?;
    dir.open_lock(name)
}

/// Takes the exclusive lock on `file`, waiting at most `patience` for another process to let
/// it go: false if it did not (a process stopped with the lock held, or someone who locked it
/// to stall this one), never a wait without end.
pub fn lock_within(file: &File, patience: Duration) -> io::Result<bool> {
    let deadline = Instant::now() + patience;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(true),
            Err(TryLockError::WouldBlock) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(TryLockError::WouldBlock) => return Ok(false),
            Err(TryLockError::Error(e)) => return Err(e),
        }
    }
}

/// How many other names (hard links) the file `meta` describes has: a file replaced by a
/// rename leaves them with its old contents (0 where there are no link counts).
pub fn other_names(meta: &Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink().saturating_sub(1)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

/// `options` that open without waiting for a FIFO's other end (`O_NONBLOCK`), nor through a
/// link at the last name for files that must not be links (set by the caller), so that no open
/// blocks. Reads and writes of a regular file are not affected by the flag.
fn without_blocking(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options
}

/// `file` and its metadata if what was opened is a regular file.
pub(crate) fn regular_file(file: File) -> Result<(File, Metadata), OpenError> {
    let meta = file.metadata().map_err(OpenError::Io)?;
    if meta.is_file() {
        Ok((file, meta))
    } else {
        Err(OpenError::NotRegular(kind_words(meta.file_type())))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn fifo(path: &Path) {
        let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: a NUL-terminated path; mkfifo reads it and nothing else.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o666) }, 0);
    }

    /// Regression (hostile users, round 3): a FIFO at a lock's or a temporary file's name
    /// blocked the open forever. Each open here returns at once, and says what is there.
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("planted");
        fifo(&path);
        assert!(matches!(
            open_regular(&path),
            Err(OpenError::NotRegular("a FIFO (named pipe)"))
        ));
        assert!(matches!(
            open_lock(&path),
            Err(OpenError::NotRegular("a FIFO (named pipe)"))
        ));
        let message = open_lock(&path).unwrap_err().into_io().to_string();
        assert_eq!(message, "a FIFO (named pipe), not a regular file");
    }

    #[test]
    fn a_lock_is_made_and_never_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join(".lock");
        open_lock(&lock).unwrap().try_lock().unwrap();
        assert!(lock.is_file());
        let link = dir.path().join(".link");
        std::os::unix::fs::symlink(&lock, &link).unwrap();
        assert!(matches!(
            open_lock(&link),
            Err(OpenError::NotRegular("a symbolic link"))
        ));
        assert!(matches!(
            open_lock(dir.path()),
            Err(OpenError::NotRegular("a directory"))
        ));
        // A lock another holder keeps is given up on, not waited for without end.
        let held = open_lock(&lock).unwrap();
        held.try_lock().unwrap();
        let other = open_lock(&lock).unwrap();
        assert!(!lock_within(&other, Duration::from_millis(50)).unwrap());
        drop(held);
        assert!(lock_within(&other, Duration::from_millis(50)).unwrap());
        assert!(matches!(
            open_regular(Path::new("/dev/null")),
            Err(OpenError::NotRegular("a character device"))
        ));
    }
}
