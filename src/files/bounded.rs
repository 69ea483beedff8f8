//! The one bounded read: every file the program reads goes through it, so none can fill the
//! memory (a link to `/dev/zero`, a huge file) or block on a FIFO.

use crate::files::open::{OpenError, open_regular};
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

/// Why a bounded read gave no bytes. Each kind of file turns it into its own message.
#[derive(Debug)]
pub enum BoundedReadError {
    /// The system's error (`NotFound` for a missing file).
    Io(io::Error),
    /// The path is not a regular file: what it is ([`crate::files::open::kind_words`]: a directory, a device, a
    /// FIFO...).
    NotRegular(&'static str),
    /// The file holds more than the limit: its size if it has one (a regular file), `None` for
    /// a read that passed the limit (a stream has no size, and a file may grow as it is read).
    TooLarge(Option<u64>),
}

/// What a file read must hold for its reading to go on: a file that cannot be what its
/// reader wants is refused after its first block, not read to the limit (`/dev/urandom` named
/// as a board file, a large file of something else named as a weight file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Any bytes.
    Bytes,
    /// Text: reading stops at the first block that holds bytes that are not UTF-8 (the bytes
    /// returned hold that block, for the caller to say where).
    Text,
    /// Bytes that start with these (a format's magic number): reading stops at the first block
    /// that does not (the bytes returned hold it, for the caller to say what it is not).
    Starting(&'static [u8]),
}

/// The bytes of `path`, a regular file of at most `limit` bytes. Its kind is looked at before
/// it is opened and again once open, without blocking ([`open_regular`]: a FIFO would block,
/// and a device has no end), its size once open, and the limit holds as it is read too (a file
/// that grows meanwhile is refused, never cut).
pub fn read_regular(path: &Path, limit: u64, expect: Expect) -> Result<Vec<u8>, BoundedReadError> {
    read_opened(open_regular(path), limit, expect)
}

/// As [`read_regular`], but a link at `path`'s last name is refused, never followed
/// ([`crate::files::open::open_regular_not_link`]).
pub fn read_regular_not_link(
    path: &Path,
    limit: u64,
    expect: Expect,
) -> Result<Vec<u8>, BoundedReadError> {
    read_opened(
        crate::files::open::open_regular_not_link(path),
        limit,
        expect,
    )
}

/// The bytes of the file `name` in `dir`, a regular file with no other name, of at most
/// `limit` bytes: for a file a program under test left in a folder of the referee's, which
/// may have renamed things or made a hard link to a file it may not read itself.
pub fn read_single_in(
    dir: &crate::files::dir::Dir,
    name: &std::ffi::OsStr,
    limit: u64,
    expect: Expect,
) -> Result<Vec<u8>, BoundedReadError> {
    read_opened(dir.open_to_read(name, true), limit, expect)
}

/// The bytes of a regular file just opened, if it holds at most `limit`.
fn read_opened(
    opened: Result<(File, Metadata), OpenError>,
    limit: u64,
    expect: Expect,
) -> Result<Vec<u8>, BoundedReadError> {
    let (file, meta) = opened.map_err(|e| match e {
        OpenError::Io(e) => BoundedReadError::Io(e),
        OpenError::NotRegular(what) => BoundedReadError::NotRegular(what),
    })?;
    if meta.len() > limit {
        return Err(BoundedReadError::TooLarge(Some(meta.len())));
    }
    read_at_most(file, limit, meta.len(), expect)
}

/// The bytes of `path`, which may be a stream (a pipe, `<(...)`), up to `limit`: a regular
/// file larger than that is refused before it is read, a stream as soon as it passes it, and a
/// directory ([`BoundedReadError::NotRegular`]) at once.
pub fn read_stream(path: &Path, limit: u64, expect: Expect) -> Result<Vec<u8>, BoundedReadError> {
    let file = crate::files::open::open_stream(path).map_err(BoundedReadError::Io)?;
    let size = match file.metadata() {
        // A directory opens, but has no bytes to read.
        Ok(meta) if meta.is_dir() => return Err(BoundedReadError::NotRegular("a directory")),
        Ok(meta) if meta.is_file() && meta.len() > limit => {
            return Err(BoundedReadError::TooLarge(Some(meta.len())));
        }
        Ok(meta) if meta.is_file() => meta.len(),
        _ => 0,
    };
    read_at_most(file, limit, size, expect)
}

/// Standard input, up to `limit` bytes: refused as soon as it passes it, as any stream.
pub fn read_standard_input(limit: u64, expect: Expect) -> Result<Vec<u8>, BoundedReadError> {
    read_at_most(io::stdin().lock(), limit, 0, expect)
}

/// Reads `source` in blocks until its end, `limit` or (as `expect` says) bytes that cannot be
/// what is wanted. `expected` is the size a regular file says it has: reserved once its first
/// block is as expected, so that a file is read into one allocation, and memory that cannot
/// be had is an error, never an abort.
fn read_at_most(
    mut source: impl Read,
    limit: u64,
    expected: u64,
    expect: Expect,
) -> Result<Vec<u8>, BoundedReadError> {
    let out_of_memory = |_| BoundedReadError::Io(io::ErrorKind::OutOfMemory.into());
    let expected = expected.min(limit) as usize;
    let mut bytes: Vec<u8> = Vec::new();
    // Invariant (text): bytes[..valid] is UTF-8; what follows is at most the start of a
    // character cut by the block's end.
    let mut valid = 0;
    let mut block = vec![0u8; 64 * 1024];
    loop {
        let n = match source.read(&mut block) {
            Ok(0) => return Ok(bytes),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(BoundedReadError::Io(e)),
        };
        let first = bytes.is_empty();
        let wanted = if first {
            n
        } else {
            n.max(expected.saturating_sub(bytes.len()))
        };
        bytes.try_reserve(wanted).map_err(out_of_memory)?;
        bytes.extend_from_slice(&block[..n]);
        if bytes.len() as u64 > limit {
            return Err(BoundedReadError::TooLarge(None));
        }
        let wrong = match expect {
            Expect::Bytes => false,
            Expect::Text => match std::str::from_utf8(&bytes[valid..]) {
                Ok(_) => {
                    valid = bytes.len();
                    false
                }
                Err(e) => {
                    valid += e.valid_up_to();
                    e.error_len().is_some()
                }
            },
            Expect::Starting(magic) => {
                let common = magic.len().min(bytes.len());
                bytes[..common] != magic[..common]
            }
        };
        if wrong {
            return Ok(bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_holds_for_files_and_streams() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_regular(&path, 5, Expect::Bytes).unwrap(), b"12345");
        assert!(matches!(
            read_regular(&path, 4, Expect::Bytes),
            Err(BoundedReadError::TooLarge(Some(5)))
        ));
        assert!(matches!(
            read_stream(&path, 4, Expect::Bytes),
            Err(BoundedReadError::TooLarge(Some(5)))
        ));
        assert!(matches!(
            read_regular(dir.path(), 4, Expect::Bytes),
            Err(BoundedReadError::NotRegular("a directory"))
        ));
        assert!(matches!(
            read_regular(&dir.path().join("none"), 4, Expect::Bytes),
            Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound
        ));
        #[cfg(unix)]
        assert!(matches!(
            read_stream(Path::new("/dev/zero"), 1 << 10, Expect::Bytes),
            Err(BoundedReadError::TooLarge(None))
        ));
    }

    /// A stream that is not text is given back after its first block, not read to the limit;
    /// a character cut by a block's end is still text.
    #[test]
    fn reading_text_stops_at_the_first_bytes_that_are_not_utf8() {
        let random = io::repeat(0xFF).take(1 << 30);
        let bytes = read_at_most(random, 1 << 29, 0, Expect::Text).unwrap();
        assert_eq!(bytes.len(), 64 * 1024);
        let mut text = vec![b'a'; 64 * 1024 - 1];
        text.extend("é\n".repeat(100_000).bytes());
        let read = read_at_most(text.as_slice(), 1 << 29, 0, Expect::Text).unwrap();
        assert_eq!(read, text);
        assert!(matches!(
            read_at_most(io::repeat(b'a').take(1 << 20), 1000, 0, Expect::Text),
            Err(BoundedReadError::TooLarge(None))
        ));
    }
}
