//! Unix: the walk and every act through `openat` and the directory's descriptor.

use super::{
    Dir, Last, MAX_LINKS, MAX_RETRIES, Walked, link_may_be_followed, names_of, refused_link,
    stepped,
};
use crate::files::open::{OpenError, regular_file};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, Stat};
use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// How many times a file replaced while it was being opened is looked at again.
const REOPENS: u32 = 16;

/// How a directory on the way is opened: for its name only where the system allows it
/// (`O_PATH`: a directory one may search but not list is walked too), never through a link.
#[cfg(any(target_os = "linux", target_os = "android"))]
const WALK: OFlags = OFlags::PATH
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const WALK: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

fn user() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// A walk in progress: the directory reached, its path as walked, and the names left.
struct Walk {
    fd: OwnedFd,
    at: PathBuf,
    names: VecDeque<OsString>,
    links: usize,
    retries: usize,
    /// Whether the last name is the caller's file (named in its message), not a directory.
    keep_last: bool,
}

impl Walk {
    /// Follows the link `name` (whose own look is `looked`) where the rule allows: its
    /// target's names go first among those left, from `/` if it is absolute.
    fn follow(&mut self, name: &OsStr, looked: &Stat, path: &Path) -> io::Result<()> {
        let link = self.at.join(name);
        let dir = rustix::fs::fstat(&self.fd)?;
        if !link_may_be_followed(dir.st_mode, dir.st_uid, looked.st_uid, user()) {
            let last = self.keep_last && self.names.is_empty();
            return Err(refused_link(&link, looked.st_uid, last));
        }
        self.links += 1;
        if self.links > MAX_LINKS {
            return Err(io::Error::other(format!(
                "{}: too many levels of symbolic links",
                crate::files::shown(path)
            )));
        }
        let target = rustix::fs::readlinkat(&self.fd, name, Vec::new())?;
        let target = PathBuf::from(OsStr::from_bytes(target.as_bytes()));
        if target.is_absolute() {
            self.fd = rustix::fs::openat(rustix::fs::CWD, "/", WALK, Mode::empty())?;
            self.at = PathBuf::from("/");
        }
        for (i, step) in names_of(&target).into_iter().enumerate() {
            self.names.insert(i, step);
        }
        Ok(())
    }

    /// Enters the directory `name` (whose look is `looked`), or, if it was swapped for
    /// something else since the look, looks at it again (a few times at most).
    fn enter(&mut self, name: OsString, looked: &Stat) -> io::Result<()> {
        let entered = rustix::fs::openat(&self.fd, &*name, WALK, Mode::empty())
            .ok()
            .filter(|next| {
                rustix::fs::fstat(next).is_ok_and(|s| {
                    s.st_dev == looked.st_dev
                        && s.st_ino == looked.st_ino
                        && FileType::from_raw_mode(s.st_mode) == FileType::Directory
                })
            });
        match entered {
            Some(next) => {
                self.fd = next;
                self.at.push(&name);
            }
            None if self.retries < MAX_RETRIES => {
                self.retries += 1;
                self.names.push_front(name);
            }
            None => {
                return Err(io::Error::other(format!(
                    "{} keeps changing while it is opened",
                    crate::files::shown(&self.at.join(&name))
                )));
            }
        }
        Ok(())
    }
}

/// The walk: from `/` or the current directory, a name at a time. Unless `last` is
/// [`Last::Enter`], the last name is not entered but returned (after its links are followed,
/// for [`Last::Keep`]).
pub(super) fn walk(path: &Path, make: bool, last: Last) -> io::Result<Walked> {
    let keep_last = last != Last::Enter;
    let root = path.is_absolute();
    let start = if root { "/" } else { "." };
    let mut walk = Walk {
        fd: rustix::fs::openat(rustix::fs::CWD, start, WALK, Mode::empty())?,
        at: PathBuf::from(if root { "/" } else { "" }),
        names: names_of(path),
        links: 0,
        retries: 0,
        keep_last,
    };
    while let Some(name) = walk.names.pop_front() {
        if name == ".." {
            walk.fd = rustix::fs::openat(&walk.fd, "..", WALK, Mode::empty())?;
            walk.at = stepped(&walk.at, &name);
            continue;
        }
        let looked = match rustix::fs::statat(&walk.fd, &*name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(looked) => Some(looked),
            Err(rustix::io::Errno::NOENT) => None,
            Err(e) => return Err(named(&e.into(), &walk.at.join(&name))),
        };
        let kind = looked.as_ref().map(|s| FileType::from_raw_mode(s.st_mode));
        let as_is = last == Last::KeepAsIs && walk.names.is_empty();
        match (kind, looked) {
            (Some(FileType::Symlink), Some(looked)) if !as_is => {
                walk.follow(&name, &looked, path)?;
            }
            _ if walk.names.is_empty() && keep_last => {
                let dir = Dir {
                    fd: walk.fd,
                    path: walk.at,
                };
                return Ok(Walked::Reached(dir, Some(name)));
            }
            (None, _) if make => {
                let mode = Mode::from_raw_mode(0o777);
                match rustix::fs::mkdirat(&walk.fd, &*name, mode) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(named(&e.into(), &walk.at.join(&name))),
                }
                walk.names.push_front(name);
            }
            (None, _) => {
                let mut missing = walk.at.join(&name);
                missing.extend(walk.names);
                return Ok(Walked::Missing(missing));
            }
            (Some(FileType::Directory), Some(looked)) => walk.enter(name, &looked)?,
            (Some(other), _) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!(
                        "{} is {}, not a directory",
                        crate::files::shown(&walk.at.join(&name)),
                        kind_of(other)
                    ),
                ));
            }
        }
    }
    let dir = Dir {
        fd: walk.fd,
        path: walk.at,
    };
    Ok(Walked::Reached(dir, None))
}

/// What a file of type `kind` is, in words.
fn kind_of(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "not a regular file",
    }
}

/// `error`, with the path it is about in its message.
fn named(error: &io::Error, path: &Path) -> io::Error {
    io::Error::new(
        error.kind(),
        format!(
            "{}: {}",
            crate::files::shown(path),
            crate::files::system_words(error)
        ),
    )
}

impl Dir {
    /// What is at `name` (not following a link): its type in words and its permission
    /// bits; `None` if nothing is there.
    pub(super) fn look_at(&self, name: &OsStr) -> io::Result<Option<(&'static str, u32)>> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(looked) => Ok(Some((
                kind_of(FileType::from_raw_mode(looked.st_mode)),
                looked.st_mode & 0o7777,
            ))),
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// A new file at `name` (`O_EXCL | O_NOFOLLOW`: nothing there, not even a link to
    /// nothing), open to write, with `mode` less the umask.
    pub(super) fn make_file(&self, name: &OsStr, mode: u32) -> io::Result<File> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode))?;
        Ok(File::from(fd))
    }

    /// The lock file at `name`, made (empty, mode 0666 less the umask) if nothing is there:
    /// never through a link, even one swapped in after a look, and never anything but a
    /// regular file; opened without waiting for a FIFO's other end.
    pub(super) fn lock_file(&self, name: &OsStr) -> Result<File, OpenError> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        match rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o666)) {
            Ok(fd) => regular_file(File::from(fd)).map(|(file, _)| file),
            // `O_NOFOLLOW` met a link (ELOOP), or `O_CREAT` one to a directory (EISDIR).
            Err(rustix::io::Errno::LOOP) => Err(OpenError::NotRegular("a symbolic link")),
            Err(e) => match self.look_at(name) {
                Ok(Some((what, _))) if what != "a regular file" => Err(OpenError::NotRegular(what)),
                _ => Err(OpenError::Io(e.into())),
            },
        }
    }

    /// The regular file of this user's at `name`, open to read (to lock, then remove), or
    /// `None` for anything else, which is left alone unopened where it can be told.
    pub(super) fn own_file(&self, name: &OsStr) -> Option<File> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).ok()?;
        let stat = rustix::fs::fstat(&fd).ok()?;
        let ours =
            FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile && stat.st_uid == user();
        ours.then(|| File::from(fd))
    }

    /// [`Dir::make_dir`].
    pub(super) fn make_directory(&self, name: &OsStr) -> io::Result<bool> {
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777)) {
            Ok(()) => Ok(true),
            Err(rustix::io::Errno::EXIST) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    /// [`Dir::leads_to`].
    pub(super) fn is_file_at(&self, name: &OsStr, file: &File) -> bool {
        let named = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW);
        let open = rustix::fs::fstat(file);
        matches!((named, open), (Ok(a), Ok(b)) if a.st_dev == b.st_dev && a.st_ino == b.st_ino)
    }

    /// [`Dir::open_to_read`].
    pub(super) fn read_file(
        &self,
        name: &OsStr,
        one_name: bool,
    ) -> Result<(File, std::fs::Metadata), OpenError> {
        // A file replaced between the look and the open is looked at again: a save renamed
        // over it by another game is an honest replacement, and so is the next look's file.
        let mut tries = 0;
        let (fd, opened) = loop {
            let looked = match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(looked) => looked,
                Err(e) => return Err(OpenError::Io(e.into())),
            };
            let kind = FileType::from_raw_mode(looked.st_mode);
            if kind != FileType::RegularFile {
                return Err(OpenError::NotRegular(kind_of(kind)));
            }
            let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
            let fd = match rustix::fs::openat(&self.fd, name, flags, Mode::empty()) {
                Ok(fd) => fd,
                Err(rustix::io::Errno::LOOP) => {
                    return Err(OpenError::NotRegular("a symbolic link"));
                }
                // Renamed away between the look and the open: look again.
                Err(rustix::io::Errno::NOENT) if tries < REOPENS => {
                    tries += 1;
                    continue;
                }
                Err(e) => return Err(OpenError::Io(e.into())),
            };
            let opened = rustix::fs::fstat(&fd).map_err(|e| OpenError::Io(e.into()))?;
            if opened.st_dev == looked.st_dev && opened.st_ino == looked.st_ino {
                break (fd, opened);
            }
            if tries == REOPENS {
                return Err(OpenError::Io(io::Error::other(
                    "it was replaced while it was opened, again and again",
                )));
            }
            tries += 1;
        };
        if one_name && opened.st_nlink > 1 {
            return Err(OpenError::NotRegular(
                "a file with another name too (a hard link)",
            ));
        }
        regular_file(File::from(fd))
    }

    /// Renames `from` to `to`, both in this directory: what is at `to` (a link too) is
    /// replaced, never followed.
    pub(super) fn rename_within(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        rustix::fs::renameat(&self.fd, from, &self.fd, to).map_err(Into::into)
    }

    /// Removes the name `name` (a file, or what a link is: the link).
    pub(super) fn remove_name(&self, name: &OsStr) -> io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(Into::into)
    }

    /// The names in the directory (but `.` and `..`).
    pub(super) fn list(&self) -> io::Result<Vec<OsString>> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let listing: OwnedFd = rustix::fs::openat(&self.fd, ".", flags, Mode::empty())?;
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::new(listing)? {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(names)
    }

    /// Flushes the directory's entries (a rename made in it) to the disk; best effort.
    pub(super) fn sync(&self) {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if let Ok(fd) = rustix::fs::openat(&self.fd, ".", flags, Mode::empty()) {
            let _ = rustix::fs::fsync(&fd);
        }
    }

    /// The user id that owns the directory.
    pub(super) fn owner(&self) -> io::Result<u32> {
        Ok(rustix::fs::fstat(&self.fd)?.st_uid)
    }
}

pub(super) fn this_user() -> u32 {
    user()
}
