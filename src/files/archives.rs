//! A submission's archive (`.zip`, `.tar.gz`, `.tgz`) unpacked into a fresh folder of the
//! grader's, safely: every entry's path is made of plain names (none absolute, none `..`, so
//! nothing lands outside the folder), only folders and regular files are made (a link, a
//! device or a FIFO in an archive is refused), and the number of entries, each file's size
//! and the total are capped as they are written, whatever the archive says of them (a zip
//! bomb is refused at its cap, its folder removed). An archive whose entries all sit in one
//! folder is unpacked from inside it: a student's `alice/` is the submission.

use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};

/// The most an archive may hold, unpacked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Entries (files and folders).
    pub entries: usize,
    /// Bytes in all.
    pub total: u64,
}

impl Default for Caps {
    /// 10,000 entries and 256 MiB: a course's submission with room to spare.
    fn default() -> Caps {
        Caps {
            entries: 10_000,
            total: 256 << 20,
        }
    }
}

/// Why an archive was not unpacked (its folder is then removed).
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// It is not an archive of a kind read here, or is damaged.
    #[error("not a readable {kind} archive: {why}")]
    Damaged {
        /// `zip` or `tar.gz`.
        kind: &'static str,
        /// What was wrong, in words.
        why: String,
    },
    /// An entry's path leaves the folder, or is not made of plain names.
    #[error("an entry's path leaves its folder or is not a plain path: {0}")]
    Escapes(String),
    /// An entry is a link, a device or a FIFO.
    #[error("an entry is {what}, not a file or folder: {name}")]
    NotAFile {
        /// The entry's name.
        name: String,
        /// What it is, in words.
        what: &'static str,
    },
    /// It holds more than its caps allow.
    #[error("it holds more than {0} (a zip bomb, or a submission far larger than any)")]
    TooLarge(String),
    /// The system's error while writing it out.
    #[error("cannot unpack it: {}", crate::files::system_words(.0))]
    Io(#[from] io::Error),
}

/// The kind of archive `path`'s name says it is, if it is one.
// The name is lower-cased first: `.ZIP` is a zip too.
#[allow(clippy::case_sensitive_file_extension_comparisons)]
pub fn kind_of(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".zip") {
        Some("zip")
    } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Some("tar.gz")
    } else {
        None
    }
}

/// `name` (an entry's path) as plain names below a folder, or why not.
fn plain(name: &str) -> Result<PathBuf, ArchiveError> {
    let path = Path::new(name);
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            _ => return Err(ArchiveError::Escapes(shown(name))),
        }
    }
    if out.as_os_str().is_empty() {
        return Err(ArchiveError::Escapes(shown(name)));
    }
    Ok(out)
}

/// A name as messages show it (control characters in caret notation).
fn shown(name: &str) -> String {
    crate::text::visible_text(name)
}

/// One entry to write: its path below the folder, and whether it is a folder or (with its
/// exec bit) a file.
enum Entry {
    Folder(PathBuf),
    File(PathBuf, bool),
}

/// What unpacking writes, counted against the caps as it goes.
struct Writer<'a> {
    into: &'a Path,
    caps: Caps,
    entries: usize,
    total: u64,
}

impl Writer<'_> {
    fn entry(&mut self) -> Result<(), ArchiveError> {
        self.entries += 1;
        if self.entries > self.caps.entries {
            return Err(ArchiveError::TooLarge(format!(
                "{} entries",
                self.caps.entries
            )));
        }
        Ok(())
    }

    /// Writes `entry`, its bytes read from `source` up to what the caps leave.
    fn write(&mut self, entry: Entry, source: &mut dyn Read) -> Result<(), ArchiveError> {
        self.entry()?;
        match entry {
            Entry::Folder(path) => {
                std::fs::create_dir_all(self.into.join(path))?;
            }
            Entry::File(path, executable) => {
                let target = self.into.join(&path);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let mut options = std::fs::OpenOptions::new();
                options.write(true).create_new(true);
                #[cfg(unix)]
                {
                    use std::os::unix::fs::OpenOptionsExt;
                    options
                        .mode(if executable { 0o755 } else { 0o644 })
                        .custom_flags(libc::O_NOFOLLOW);
                }
                let mut file = options.open(&target)?;
                let left = self.caps.total - self.total;
                let copied = io::copy(&mut source.take(left + 1), &mut file)?;
                self.total += copied;
                if copied > left {
                    return Err(ArchiveError::TooLarge(format!(
                        "{} MiB unpacked",
                        self.caps.total >> 20
                    )));
                }
                file.flush()?;
            }
        }
        Ok(())
    }
}

/// Unpacks the archive at `archive` into `into` (a folder that must not exist yet, made
/// here), within `caps`; returns the folder the submission is (`into`, or the one folder
/// all its entries sit in). On any error `into` is removed, so no half-unpacked submission
/// is ever graded.
pub fn unpack(archive: &Path, into: &Path, caps: Caps) -> Result<PathBuf, ArchiveError> {
    std::fs::create_dir(into)?;
    let result = match kind_of(archive) {
        Some("zip") => unpack_zip(archive, into, caps),
        _ => unpack_tar_gz(archive, into, caps),
    };
    match result {
        Ok(()) => Ok(sole_folder(into).unwrap_or_else(|| into.to_path_buf())),
        Err(e) => {
            let _ = std::fs::remove_dir_all(into);
            Err(e)
        }
    }
}

/// The one folder `into` holds, if it holds nothing else.
fn sole_folder(into: &Path) -> Option<PathBuf> {
    let mut entries = std::fs::read_dir(into).ok()?;
    let only = entries.next()?.ok()?;
    if entries.next().is_some() {
        return None;
    }
    let kind = only.file_type().ok()?;
    kind.is_dir().then(|| only.path())
}

fn unpack_zip(archive: &Path, into: &Path, caps: Caps) -> Result<(), ArchiveError> {
    let damaged = |why: String| ArchiveError::Damaged { kind: "zip", why };
    let file = std::fs::File::open(archive)?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| damaged(e.to_string()))?;
    if zip.len() > caps.entries {
        return Err(ArchiveError::TooLarge(format!("{} entries", caps.entries)));
    }
    let mut writer = Writer {
        into,
        caps,
        entries: 0,
        total: 0,
    };
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(|e| damaged(e.to_string()))?;
        let name = entry.name().to_string();
        if entry.is_symlink() {
            return Err(ArchiveError::NotAFile {
                name: shown(&name),
                what: "a symbolic link",
            });
        }
        let path = plain(&name)?;
        let kind = if entry.is_dir() {
            Entry::Folder(path)
        } else {
            let executable = entry.unix_mode().is_some_and(|mode| mode & 0o111 != 0);
            Entry::File(path, executable)
        };
        writer.write(kind, &mut entry)?;
    }
    Ok(())
}

fn unpack_tar_gz(archive: &Path, into: &Path, caps: Caps) -> Result<(), ArchiveError> {
    let damaged = |why: String| ArchiveError::Damaged {
        kind: "tar.gz",
        why,
    };
    let file = std::fs::File::open(archive)?;
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut writer = Writer {
        into,
        caps,
        entries: 0,
        total: 0,
    };
    for entry in tar.entries().map_err(|e| damaged(e.to_string()))? {
        let mut entry = entry.map_err(|e| damaged(e.to_string()))?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        let what = match kind {
            tar::EntryType::Regular | tar::EntryType::Continuous | tar::EntryType::Directory => {
                None
            }
            tar::EntryType::Symlink => Some("a symbolic link"),
            tar::EntryType::Link => Some("a hard link"),
            tar::EntryType::Char | tar::EntryType::Block => Some("a device"),
            tar::EntryType::Fifo => Some("a FIFO (named pipe)"),
            // Metadata of the archive itself (PAX headers, GNU long names): nothing to write.
            tar::EntryType::XGlobalHeader
            | tar::EntryType::XHeader
            | tar::EntryType::GNULongName
            | tar::EntryType::GNULongLink => continue,
            _ => Some("an entry of another kind"),
        };
        if let Some(what) = what {
            return Err(ArchiveError::NotAFile {
                name: shown(&name),
                what,
            });
        }
        let path = plain(&name)?;
        let entry_kind = if kind == tar::EntryType::Directory {
            Entry::Folder(path)
        } else {
            let executable = entry.header().mode().is_ok_and(|mode| mode & 0o111 != 0);
            Entry::File(path, executable)
        };
        writer.write(entry_kind, &mut entry)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = io::Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut out);
            let options = zip::write::SimpleFileOptions::default();
            for (name, bytes) in entries {
                zip.start_file(*name, options).unwrap();
                zip.write_all(bytes).unwrap();
            }
            zip.finish().unwrap();
        }
        out.into_inner()
    }

    #[test]
    fn a_zip_of_one_folder_is_that_folder() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("alice.zip");
        std::fs::write(&archive, zip_of(&[("alice/game.py", b"print(1)\n")])).unwrap();
        let root = unpack(&archive, &dir.path().join("out"), Caps::default()).unwrap();
        assert_eq!(root, dir.path().join("out/alice"));
        assert_eq!(std::fs::read(root.join("game.py")).unwrap(), b"print(1)\n");
    }

    #[test]
    fn a_path_out_of_its_folder_is_refused_and_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("evil.zip");
        std::fs::write(
            &archive,
            zip_of(&[("ok.txt", b"x"), ("../escaped.txt", b"y")]),
        )
        .unwrap();
        let into = dir.path().join("out");
        let error = unpack(&archive, &into, Caps::default()).unwrap_err();
        assert!(matches!(error, ArchiveError::Escapes(_)), "{error}");
        assert!(!into.exists());
        assert!(!dir.path().join("escaped.txt").exists());
    }

    #[test]
    fn a_zip_bomb_is_refused_at_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("bomb.zip");
        // 4 MiB of zeros compress to a few KiB.
        std::fs::write(&archive, zip_of(&[("zeros", &vec![0u8; 4 << 20])])).unwrap();
        assert!(std::fs::metadata(&archive).unwrap().len() < 64 << 10);
        let caps = Caps {
            entries: 10,
            total: 1 << 20,
        };
        let into = dir.path().join("out");
        let error = unpack(&archive, &into, caps).unwrap_err();
        assert!(matches!(error, ArchiveError::TooLarge(_)), "{error}");
        assert!(!into.exists());
    }

    #[test]
    fn names_are_plain_paths_below_the_folder() {
        assert!(plain("a/b.txt").is_ok());
        assert!(plain("./a").is_ok());
        assert!(plain("/etc/passwd").is_err());
        assert!(plain("a/../../b").is_err());
        assert!(plain("").is_err());
        assert_eq!(kind_of(Path::new("x.TGZ")), Some("tar.gz"));
        assert_eq!(kind_of(Path::new("x.tar")), None);
    }
}
