//! A directory reached by walking its path a name at a time, and every act on a name in it that
//! creates or replaces something (a lock, a temporary file, a rename, a removal, a new
//! directory), done through that directory's handle.
//!
//! The walk is the kernel's own path walk, done here so that its one dangerous step can be
//! refused whatever the machine's settings: a symbolic link at any name of a path (not only the
//! last) is followed only where the kernel's `protected_symlinks` rule would follow it
//! ([`link_may_be_followed`]), and each directory is opened without following a link that may
//! have been swapped in since it was looked at (`O_NOFOLLOW`, then checked to be the directory
//! looked at). Files are created `O_EXCL | O_NOFOLLOW` (a new file) or `O_NOFOLLOW` (a lock),
//! then checked open (`fstat`): a link that appears at a name between a look and an act is
//! refused, never followed. A rename replaces the name itself, never what a link there names.

use crate::files::open::OpenError;
use crate::files::shown;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many links a walk follows before it gives up (the kernel's limit).
const MAX_LINKS: usize = 40;

/// How often a name that changes under the walk (a directory swapped for a link between its
/// look and its open) is looked at again before the walk gives up.
const MAX_RETRIES: usize = 8;

/// A directory, open, reached by [`Dir::open`] or [`resolve`]. Acts on its names go through its
/// handle, so they happen in the directory that was checked whatever is renamed meanwhile.
#[derive(Debug)]
pub struct Dir {
    #[cfg(unix)]
    fd: std::os::fd::OwnedFd,
    /// The directory's path as walked (links replaced by what they name), for messages.
    path: PathBuf,
}

/// The kernel's rule for following a link (`fs.protected_symlinks`): a link in a directory
/// that is both sticky and world-writable (`/tmp`, a shared lab folder) is followed only by
/// the link's owner or when the link's owner also owns the directory. Anywhere else, links are
/// followed. It holds for every user, root included.
pub fn link_may_be_followed(dir_mode: u32, dir_owner: u32, link_owner: u32, user: u32) -> bool {
    const STICKY: u32 = 0o1000;
    const WORLD_WRITABLE: u32 = 0o0002;
    let shared = dir_mode & STICKY != 0 && dir_mode & WORLD_WRITABLE != 0;
    !shared || link_owner == user || link_owner == dir_owner
}

/// The refusal of a link the rule does not follow: one on the way of a path is named (with its
/// owner); the path's own last name is named by the caller's message.
fn refused_link(link: &Path, owner: u32, last: bool) -> io::Error {
    const RULE: &str = "put in a shared directory (sticky and world-writable); it is not \
                        followed, as the kernel's protected_symlinks rule says";
    let message = if last {
        format!("a link that another user {RULE}: remove it to write here")
    } else {
        format!(
            "{} is a link that another user (uid {owner}) {RULE}: remove it, or use another path",
            shown(link)
        )
    };
    io::Error::new(io::ErrorKind::PermissionDenied, message)
}

/// What a walk does with a path's last name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Last {
    /// Enters it, as a directory.
    Enter,
    /// Keeps it, once a link there is followed where the rule allows.
    Keep,
    /// Keeps it as it is, a link too.
    KeepAsIs,
}

/// The directory that holds `path`'s last name and that name, once every link on the way (the
/// last name's too) is followed where the rule allows: what a write to `path` replaces. Missing
/// directories on the way are made (mode 0777 less the umask) if `make`. A path with no last
/// name (`/`, `..`) is refused.
pub fn resolve(path: &Path, make: bool) -> io::Result<(Dir, OsString)> {
    reached(path, walk(path, make, Last::Keep)?)
}

/// As [`resolve`], but a link at the last name is kept as it is, not followed: for a name
/// only a regular file may be at.
pub fn resolve_not_last(path: &Path) -> io::Result<(Dir, OsString)> {
    reached(path, walk(path, false, Last::KeepAsIs)?)
}

/// The directory and name a walk of `path` kept.
fn reached(path: &Path, walked: Walked) -> io::Result<(Dir, OsString)> {
    match walked {
        Walked::Reached(dir, Some(name)) => Ok((dir, name)),
        // The system's own words: `no such file or directory`.
        Walked::Missing(_) => Err(io::ErrorKind::NotFound.into()),
        Walked::Reached(_, None) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names a directory, not a file", shown(path)),
        )),
    }
}

/// `path` with its links followed where the rule allows ([`resolve`]), as a path: the file a
/// write would replace. Where a directory on the way is missing, the rest of the path is kept
/// as written (nothing is there to follow).
pub fn resolve_links(path: &Path) -> io::Result<PathBuf> {
    match walk(path, false, Last::Keep)? {
        Walked::Reached(dir, Some(name)) => Ok(dir.path.join(name)),
        Walked::Reached(dir, None) => Ok(dir.path),
        Walked::Missing(path) => Ok(path),
    }
}

impl Dir {
    /// The directory at `path`, walked a name at a time; missing directories are made if
    /// `make`.
    pub fn open(path: &Path, make: bool) -> io::Result<Dir> {
        match walk(path, make, Last::Enter)? {
            Walked::Reached(dir, _) => Ok(dir),
            Walked::Missing(path) => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{}: no such directory", shown(&path)),
            )),
        }
    }

    /// The directory's path as walked.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A second handle on the same directory.
    pub fn try_clone(&self) -> io::Result<Dir> {
        Ok(Dir {
            #[cfg(unix)]
            fd: self.fd.try_clone()?,
            path: self.path.clone(),
        })
    }
}

/// Where a walk ended.
enum Walked {
    /// At this directory, and the last name in it if one was kept.
    Reached(Dir, Option<OsString>),
    /// At a directory that is not there (the path as far as it was walked, then the rest).
    Missing(PathBuf),
}

/// The names of `path` to walk, in order (`.` left out, `..` kept).
fn names_of(path: &Path) -> std::collections::VecDeque<OsString> {
    path.components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

/// `path` with `name` walked into it, as messages show the walk (`..` goes up a name where it
/// can).
fn stepped(path: &Path, name: &OsStr) -> PathBuf {
    if name == ".."
        && let Some(Component::Normal(_)) = path.components().next_back()
    {
        return path.parent().map(Path::to_path_buf).unwrap_or_default();
    }
    path.join(name)
}

#[cfg(not(unix))]
mod other;
#[cfg(unix)]
mod unix;

#[cfg(not(unix))]
use other::{this_user, walk};
#[cfg(unix)]
use unix::{this_user, walk};

impl Dir {
    /// What is at `name` in this directory, not following a link: its type in words (as
    /// [`kind_words`](crate::files::open::kind_words) gives it) and its permission bits;
    /// `None` if nothing is there.
    pub fn look(&self, name: &OsStr) -> io::Result<Option<(&'static str, u32)>> {
        self.look_at(name)
    }

    /// A new file at `name`: nothing may be there, not even a link to nothing
    /// (`O_CREAT | O_EXCL | O_NOFOLLOW`), so no one can make this program write through a link.
    pub fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
        self.make_file(name, mode)
    }

    /// The lock file at `name` ([`crate::files::open::open_lock`]'s rules).
    pub fn open_lock(&self, name: &OsStr) -> Result<File, OpenError> {
        self.lock_file(name)
    }

    /// The regular file of this user's at `name`, to lock and remove; `None` for anything else.
    pub fn open_own(&self, name: &OsStr) -> Option<File> {
        self.own_file(name)
    }

    /// The regular file at `name`, open to read, with its metadata: looked at first (a FIFO
    /// or a device is refused unopened), opened without following a link (one swapped in
    /// since the look is refused) and without waiting, and checked once open to be the file
    /// looked at. With `one_name`, a file with other names (a hard link to a file elsewhere,
    /// which may be someone else's) is refused too.
    pub fn open_to_read(
        &self,
        name: &OsStr,
        one_name: bool,
    ) -> Result<(File, std::fs::Metadata), OpenError> {
        self.read_file(name, one_name)
    }

    /// Whether `name` here is the file `file` is open on (the same file, not another put at
    /// its name since).
    pub fn leads_to(&self, name: &OsStr, file: &File) -> bool {
        self.is_file_at(name, file)
    }

    /// A new directory at `name` (mode 0777 less the umask): true if this call made it,
    /// false if something was there already (nothing is replaced or followed).
    pub fn make_dir(&self, name: &OsStr) -> io::Result<bool> {
        self.make_directory(name)
    }

    /// Renames `from` over `to` within this directory (a link at `to` is replaced itself).
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> io::Result<()> {
        self.rename_within(from, to)
    }

    /// Removes the name `name`.
    pub fn remove(&self, name: &OsStr) -> io::Result<()> {
        self.remove_name(name)
    }

    /// The names in this directory.
    pub fn names(&self) -> io::Result<Vec<OsString>> {
        self.list()
    }

    /// Flushes a rename made here to the disk (best effort).
    pub fn sync_entries(&self) {
        self.sync();
    }

    /// Whether another user owns this directory: a folder power11 would make for itself
    /// (`referee-failures`) is not used when someone else made it first.
    pub fn owned_by_another(&self) -> io::Result<bool> {
        Ok(self.owner()? != this_user())
    }

    /// Whether `name` here is a regular file that is read-only, or is not a regular file at
    /// all (a directory, a device, a FIFO): what `check_replaceable` (in `files::save`)
    /// refuses. `Ok(None)` when a write may replace it (nothing there, or a writable file).
    pub fn refusal(&self, name: &OsStr) -> io::Result<Option<Refusal>> {
        Ok(match self.look(name)? {
            Some(("a regular file", mode)) if mode & 0o222 == 0 => Some(Refusal::ReadOnly),
            Some(("a regular file", _)) | None => None,
            Some((what, _)) => Some(Refusal::NotRegular(what)),
        })
    }
}

/// Why a name is not replaced ([`Dir::refusal`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A regular file with no write permission: protected on purpose.
    ReadOnly,
    /// Not a regular file: what it is, in words.
    NotRegular(&'static str),
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    #[test]
    fn the_rule_holds_for_every_user_and_only_in_shared_folders() {
        // /tmp: sticky, world-writable, root's. A link of user 1000 in it.
        assert!(!link_may_be_followed(0o41777, 0, 1000, 0));
        assert!(!link_may_be_followed(0o41777, 0, 1000, 1001));
        assert!(link_may_be_followed(0o41777, 0, 1000, 1000));
        assert!(link_may_be_followed(0o41777, 1000, 1000, 0));
        // Not sticky, or not world-writable: followed.
        assert!(link_may_be_followed(0o40777, 0, 1000, 0));
        assert!(link_may_be_followed(0o41775, 0, 1000, 0));
    }

    /// Regression: two games saving in one folder lost a save now and then ("it was replaced
    /// while it was opened"): a save renamed over the one being read is read, not refused.
    #[test]
    fn a_file_renamed_over_while_it_is_opened_is_read_all_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("save");
        std::fs::write(&path, "0").unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut n = 0u64;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let new = dir.path().join("new");
                    std::fs::write(&new, n.to_string()).unwrap();
                    std::fs::rename(&new, &path).unwrap();
                    n += 1;
                }
            });
            let (at, name) = resolve(&path, false).unwrap();
            let failed = (0..5000)
                .filter(|_| at.open_to_read(&name, true).is_err())
                .count();
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(failed, 0);
        });
    }

    #[test]
    fn a_walk_follows_links_on_the_way_and_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        symlink(&real, dir.path().join("via")).unwrap();
        symlink("real/file", dir.path().join("last")).unwrap();
        let (at, name) = resolve(&dir.path().join("via/file"), false).unwrap();
        assert_eq!(
            (at.path(), name.as_os_str()),
            (real.as_path(), OsStr::new("file"))
        );
        let (at, name) = resolve(&dir.path().join("last"), false).unwrap();
        assert_eq!(
            (at.path(), name.as_os_str()),
            (real.as_path(), OsStr::new("file"))
        );
        // Missing directories are made on request, else the rest of the path is kept.
        let deep = dir.path().join("via/a/b/file");
        assert_eq!(resolve_links(&deep).unwrap(), real.join("a/b/file"));
        let (at, _) = resolve(&deep, true).unwrap();
        assert!(real.join("a/b").is_dir());
        assert_eq!(at.path(), real.join("a/b"));
        // A file on the way is no directory.
        std::fs::write(real.join("plain"), "x").unwrap();
        let error = resolve(&real.join("plain/file"), false).unwrap_err();
        assert!(
            error
                .to_string()
                .ends_with("is a regular file, not a directory")
        );
    }

    #[test]
    fn a_lock_is_never_a_link_and_a_new_file_is_never_through_one() {
        let dir = tempfile::tempdir().unwrap();
        let at = Dir::open(dir.path(), false).unwrap();
        let target = dir.path().join("target");
        symlink(&target, dir.path().join("lock")).unwrap();
        assert!(matches!(
            at.open_lock(OsStr::new("lock")),
            Err(OpenError::NotRegular("a symbolic link"))
        ));
        assert!(at.create_new(OsStr::new("lock"), 0o666).is_err());
        assert!(!target.exists(), "nothing made where the link points");
        let file = at.open_lock(OsStr::new("real-lock")).unwrap();
        drop(file);
        assert!(dir.path().join("real-lock").is_file());
        assert!(at.open_own(OsStr::new("lock")).is_none());
        assert!(at.open_own(OsStr::new("real-lock")).is_some());
        // A rename replaces a link at its target name, and not what it names.
        std::fs::write(&target, "mine").unwrap();
        at.rename(OsStr::new("real-lock"), OsStr::new("lock"))
            .unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "mine");
        assert!(dir.path().join("lock").is_file());
        let mut names = at.names().unwrap();
        names.sort();
        assert_eq!(names, [OsString::from("lock"), OsString::from("target")]);
    }

    #[test]
    fn read_only_and_other_kinds_are_told() {
        let dir = tempfile::tempdir().unwrap();
        let at = Dir::open(dir.path(), false).unwrap();
        let file = dir.path().join("kept");
        std::fs::write(&file, "x").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
        assert_eq!(
            at.refusal(OsStr::new("kept")).unwrap(),
            Some(Refusal::ReadOnly)
        );
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert_eq!(
            at.refusal(OsStr::new("sub")).unwrap(),
            Some(Refusal::NotRegular("a directory"))
        );
        assert_eq!(at.refusal(OsStr::new("none")).unwrap(), None);
        assert!(!at.owned_by_another().unwrap());
    }
}
