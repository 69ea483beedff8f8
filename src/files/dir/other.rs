//! Systems without `openat` and links of this kind: the same acts, by path.

use super::{Dir, Last, Walked, names_of, stepped};
use crate::files::open::{OpenError, kind_words, regular_file};
use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

pub(super) fn walk(path: &Path, make: bool, last: Last) -> io::Result<Walked> {
    let keep_last = last != Last::Enter;
    let mut names = names_of(path);
    let last = if keep_last { names.pop_back() } else { None };
    let mut at = PathBuf::new();
    for name in names {
        at = stepped(&at, &name);
    }
    if make {
        std::fs::create_dir_all(&at)?;
    } else if !at.as_os_str().is_empty() && !at.is_dir() {
        let mut missing = at;
        missing.extend(last);
        return Ok(Walked::Missing(missing));
    }
    Ok(Walked::Reached(Dir { path: at }, last))
}

impl Dir {
    fn at(&self, name: &OsStr) -> PathBuf {
        self.path.join(name)
    }

    pub(super) fn look_at(&self, name: &OsStr) -> io::Result<Option<(&'static str, u32)>> {
        match std::fs::symlink_metadata(self.at(name)) {
            Ok(meta) => {
                let mode = if meta.permissions().readonly() {
                    0o444
                } else {
                    0o666
                };
                Ok(Some((kind_words(meta.file_type()), mode)))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub(super) fn make_file(&self, name: &OsStr, _mode: u32) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.at(name))
    }

    pub(super) fn lock_file(&self, name: &OsStr) -> Result<File, OpenError> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(self.at(name))
            .map_err(OpenError::Io)?;
        regular_file(file).map(|(file, _)| file)
    }

    pub(super) fn own_file(&self, name: &OsStr) -> Option<File> {
        let file = File::open(self.at(name)).ok()?;
        regular_file(file).ok().map(|(file, _)| file)
    }

    pub(super) fn read_file(
        &self,
        name: &OsStr,
        _one_name: bool,
    ) -> Result<(File, std::fs::Metadata), OpenError> {
        let looked = std::fs::symlink_metadata(self.at(name)).map_err(OpenError::Io)?;
        if !looked.is_file() {
            return Err(OpenError::NotRegular(kind_words(looked.file_type())));
        }
        regular_file(File::open(self.at(name)).map_err(OpenError::Io)?)
    }

    pub(super) fn make_directory(&self, name: &OsStr) -> io::Result<bool> {
        match std::fs::create_dir(self.at(name)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub(super) fn is_file_at(&self, name: &OsStr, _file: &File) -> bool {
        self.at(name).is_file()
    }

    pub(super) fn rename_within(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        std::fs::rename(self.at(from), self.at(to))
    }

    pub(super) fn remove_name(&self, name: &OsStr) -> io::Result<()> {
        std::fs::remove_file(self.at(name))
    }

    pub(super) fn list(&self) -> io::Result<Vec<OsString>> {
        let dir = if self.path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.path
        };
        std::fs::read_dir(dir)?
            .map(|entry| entry.map(|e| e.file_name()))
            .collect()
    }

    pub(super) fn sync(&self) {}

    pub(super) fn owner(&self) -> io::Result<u32> {
        Ok(0)
    }
}

pub(super) fn this_user() -> u32 {
    0
}
