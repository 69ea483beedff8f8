//! The one bounded read: every file the program reads goes through it, so none can fill the
//! memory (a link to `/dev/zero`, a huge file) or block on a FIFO.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Why a bounded read gave no bytes. Each kind of file turns it into its own message.
#[derive(Debug)]
pub enum BoundedReadError {
    /// The system's error (`NotFound` for a missing file).
    Io(io::Error),
    /// The path is not a regular file (a directory, a device, a FIFO...).
    NotRegular,
    /// The file holds more than the limit: its size if it has one (a regular file), `None` for
    /// a read that passed the limit (a stream has no size, and a file may grow as it is read).
    TooLarge(Option<u64>),
}

/// The bytes of `path`, a regular file of at most `limit` bytes. Its kind and size are looked
/// at before it is opened (opening a FIFO would block, and a device has no end), and the limit
/// holds as it is read too (a file that grows meanwhile is refused, never cut).
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let meta = std::fs::metadata(path).map_err(BoundedReadError::Io)?;
    if !meta.is_file() {
        return Err(BoundedReadError::NotRegular);
    }
    if meta.len() > limit {
        return Err(BoundedReadError::TooLarge(Some(meta.len())));
    }
    let file = File::open(path).map_err(BoundedReadError::Io)?;
    read_at_most(file, limit, meta.len())
}

/// The bytes of `path`, which may be a stream (a pipe, `<(...)`), up to `limit`: a regular
/// file larger than that is refused before it is read, a stream as soon as it passes it, and a
/// directory ([`BoundedReadError::NotRegular`]) at once.
pub fn read_stream(path: &Path, limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    let file = File::open(path).map_err(BoundedReadError::Io)?;
    let size = match file.metadata() {
        // A directory opens, but has no bytes to read.
        Ok(meta) if meta.is_dir() => return Err(BoundedReadError::NotRegular),
        Ok(meta) if meta.is_file() && meta.len() > limit => {
            return Err(BoundedReadError::TooLarge(Some(meta.len())));
        }
        Ok(meta) if meta.is_file() => meta.len(),
        _ => 0,
    };
    read_at_most(file, limit, size)
}

/// Standard input, up to `limit` bytes: refused as soon as it passes it, as any stream.
pub fn read_standard_input(limit: u64) -> Result<Vec<u8>, BoundedReadError> {
    read_at_most(io::stdin().lock(), limit, 0)
}

fn read_at_most(source: impl Read, limit: u64, expected: u64) -> Result<Vec<u8>, BoundedReadError> {
    let mut bytes = Vec::with_capacity(expected.min(limit) as usize);
    source
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(BoundedReadError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(BoundedReadError::TooLarge(None));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_holds_for_files_and_streams() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"12345").unwrap();
        assert_eq!(read_regular(&path, 5).unwrap(), b"12345");
        assert!(matches!(
            read_regular(&path, 4),
            Err(BoundedReadError::TooLarge(Some(5)))
        ));
        assert!(matches!(
            read_stream(&path, 4),
            Err(BoundedReadError::TooLarge(Some(5)))
        ));
        assert!(matches!(
            read_regular(dir.path(), 4),
            Err(BoundedReadError::NotRegular)
        ));
        assert!(matches!(
            read_regular(&dir.path().join("none"), 4),
            Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound
        ));
        #[cfg(unix)]
        assert!(matches!(
            read_stream(Path::new("/dev/zero"), 1 << 10),
            Err(BoundedReadError::TooLarge(None))
        ));
    }
}
