//! The file system a program under test sees (Linux): the machine's, read-only, with the
//! places a grader keeps their own files covered by empty ones (homes, `/tmp`, `/run`, and
//! whatever the caller names, such as a class's other submissions), the folders it needs
//! shown again inside them read-only (the folder the command was typed in, its interpreter's),
//! its run's folder writable, and a `/tmp` and `/dev/shm` of its own, small and gone with it.
//!
//! [`View::plan`] decides all of it in the referee, where it may allocate and read the file
//! system; [`View::enter`] does it in the child, between `fork` and `exec`, in a mount
//! namespace of the program's own (`runner::sandbox` makes that and the rest of the
//! sandbox), with system calls only: no allocation, no lock. The mounts are made with the
//! kernel's mount API: each folder to show cloned (`open_tree`) before the machine's mounts
//! are made read-only (`mount_setattr`, recursive), covers mounted (`tmpfs`), the clones
//! moved into place (`move_mount`), and the covers made read-only in turn (all but the
//! writable ones). Everything is in the program's mount namespace: the referee's file
//! system does not change, and the mounts end with the program.

use rustix::fs::{AtFlags, CWD, Mode, OFlags};
use rustix::mount::{
    MountFlags, MountPropagationFlags, MoveMountFlags, OpenTreeFlags, mount, mount_change,
    move_mount, open_tree,
};
use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The folders covered unless they do not exist: every home, the temporary folders, and
/// `/run` (the grader's sessions' sockets: tmux, D-Bus, an agent).
pub const COVERED: &[&str] = &[
    "/home", "/root", "/tmp", "/var/tmp", "/run", "/mnt", "/media", "/dev/shm",
];

/// The covers the program may write in: each a file system of its own of at most the view's
/// `scratch` bytes.
pub const SCRATCH: &[&str] = &["/tmp", "/var/tmp", "/dev/shm"];

/// The step of entering a view that failed: the runner says which, with the system's error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Step {
    /// Making every mount private to the namespace.
    Private = 1,
    /// Cloning a folder to show.
    Clone = 2,
    /// Making the machine's mounts read-only.
    ReadOnly = 3,
    /// Making a folder to mount on.
    Folder = 4,
    /// Mounting a cover.
    Cover = 5,
    /// Moving a shown folder into place.
    Show = 6,
    /// Making a cover read-only.
    Seal = 7,
    /// Going into the run's folder.
    Enter = 8,
}

impl Step {
    /// The step numbered `n`, if one is.
    pub fn from_number(n: u8) -> Option<Step> {
        [
            Step::Private,
            Step::Clone,
            Step::ReadOnly,
            Step::Folder,
            Step::Cover,
            Step::Show,
            Step::Seal,
            Step::Enter,
        ]
        .into_iter()
        .find(|step| *step as u8 == n)
    }

    /// The step in words, after "cannot".
    pub fn words(self) -> &'static str {
        match self {
            Step::Private => "make its mounts private",
            Step::Clone => "take a copy of a folder to show it",
            Step::ReadOnly => "make the system read-only",
            Step::Folder => "make a folder to show another on",
            Step::Cover => "cover a folder",
            Step::Show => "show a folder",
            Step::Seal => "make a cover read-only",
            Step::Enter => "go into its folder",
        }
    }
}

/// One mount of a view.
#[derive(Clone, Debug)]
enum Act {
    /// An empty file system of its own over `path`: what was there is not seen.
    Cover {
        path: CString,
        options: CString,
        writable: bool,
    },
    /// `source` (a folder or file) shown at `path`, read-only unless `writable`.
    Show {
        source: CString,
        path: CString,
        folder: bool,
        writable: bool,
    },
}

impl Act {
    fn path(&self) -> &CStr {
        match self {
            Act::Cover { path, .. } | Act::Show { path, .. } => path,
        }
    }
}

/// A mount of a view with what must be made for it first.
#[derive(Debug)]
struct Mount {
    act: Act,
    /// Folders to make inside a cover, parents first, before it is mounted.
    folders: Vec<CString>,
    /// A file to make inside a cover as its mount point (a file shown).
    file: Option<CString>,
}

/// What a program's view of the file system is made of: [`View::plan`] in the referee,
/// [`View::enter`] in the child.
#[derive(Debug)]
pub struct View {
    steps: Vec<Mount>,
    /// The clones of the folders to show, by step (-1 where none), made in the child.
    clones: Vec<i32>,
    /// Clones made in the referee (idmapped: [`Plan::root_seen_as`]), by step: the child
    /// moves these into place instead of cloning.
    made: Vec<Option<OwnedFd>>,
    /// The run's folder, which the program starts in.
    folder: CString,
}

/// What a view is planned from.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// The run's folder: shown writable.
    pub folder: PathBuf,
    /// Folders and files shown read-only (made absolute; those not there are left out).
    pub shown: Vec<PathBuf>,
    /// Folders covered besides [`COVERED`] (the grader's home, a class's folder).
    pub covered: Vec<PathBuf>,
    /// Files covered by an empty one where they are seen (a toolchain's credentials).
    pub masked: Vec<PathBuf>,
    /// The most bytes each writable cover holds.
    pub scratch: u64,
    /// The user a program runs as when the referee is root: folders and files shown
    /// read-only are shown with the machine's root seen as this user (an idmapped mount),
    /// so the program reads through them what a grader who is not root would let it read,
    /// a clone in a folder only root may enter (`mktemp -d`) included.
    pub root_seen_as: Option<u32>,
}

/// What a path is, for a view: a folder (`Some(true)`), a file (`Some(false)`), or neither
/// (not there, or not to be looked at), links followed.
pub fn kind_of(path: &Path) -> Option<bool> {
    std::fs::metadata(path).ok().map(|meta| meta.is_dir())
}

/// `path` as the system spells it: absolute, links resolved.
fn real(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

fn c_string(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).unwrap_or_default()
}

/// How deep `path` is (`/` is 0).
fn depth(path: &Path) -> usize {
    path.components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count()
}

/// What a path is seen as under the acts chosen so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    /// The machine's own, read-only.
    Machine,
    /// Under a cover, which is at this path.
    Covered,
    /// Under a shown folder.
    Shown,
}

impl View {
    /// The view `plan` asks for, on this machine: each cover that exists, each folder shown
    /// that exists and would not be seen otherwise, in the order they are mounted (parents
    /// first).
    pub fn plan(plan: &Plan) -> View {
        let mut acts: Vec<(PathBuf, bool, Act)> = Vec::new();
        let scratch = format!("mode=1777,size={}", plan.scratch.max(1 << 20));
        let hiding = "mode=0755,size=1m,nr_inodes=4096";
        let covers = COVERED
            .iter()
            .map(PathBuf::from)
            .chain(plan.covered.iter().cloned());
        for cover in covers {
            let Some(path) = real(&cover).filter(|p| kind_of(p) == Some(true)) else {
                continue;
            };
            let writable = SCRATCH.iter().any(|s| Path::new(s) == path);
            let options = if writable { &scratch } else { hiding };
            let act = Act::Cover {
                path: c_string(&path),
                options: CString::new(options.as_bytes()).unwrap_or_default(),
                writable,
            };
            acts.push((path, true, act));
        }
        let folder = real(&plan.folder).unwrap_or_else(|| plan.folder.clone());
        let shows = plan
            .shown
            .iter()
            .filter_map(|p| real(p).map(|r| (r, false)))
            .chain(std::iter::once((folder.clone(), true)));
        for (path, writable) in shows {
            let Some(is_folder) = kind_of(&path) else {
                continue;
            };
            let act = Act::Show {
                source: c_string(&path),
                path: c_string(&path),
                folder: is_folder,
                writable,
            };
            acts.push((path, false, act));
        }
        for mask in &plan.masked {
            if let Some(path) = real(mask).filter(|p| kind_of(p) == Some(false)) {
                let act = Act::Show {
                    source: c"/dev/null".to_owned(),
                    path: c_string(&path),
                    folder: false,
                    writable: false,
                };
                acts.push((path, false, act));
            }
        }
        // Parents first; at one path, a cover before what is shown on it, and the run's
        // folder (writable) before a read-only show of the same path, which it replaces.
        let writable = |act: &Act| matches!(act, Act::Show { writable: true, .. });
        acts.sort_by(|a, b| {
            (depth(&a.0), &a.0, !a.1, !writable(&a.2)).cmp(&(
                depth(&b.0),
                &b.0,
                !b.1,
                !writable(&b.2),
            ))
        });
        acts.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        let mut kept: Vec<(PathBuf, Act)> = Vec::new();
        let mut steps = Vec::new();
        for (path, _, act) in acts {
            let (seen, under) = seen_at(&kept, &path);
            let keep = match &act {
                Act::Cover { writable, .. } => seen != Seen::Covered || *writable,
                // Seen anyway, it is shown again only to be idmapped.
                Act::Show {
                    writable, source, ..
                } => {
                    seen == Seen::Covered
                        || *writable
                        || source.as_bytes() == b"/dev/null"
                        || (seen == Seen::Machine && plan.root_seen_as.is_some())
                }
            };
            if !keep || (seen == Seen::Covered && source_is_null(&act)) {
                continue;
            }
            let (folders, file) = match (seen, &under) {
                (Seen::Covered, Some(cover)) => made_under(cover, &path, &act),
                _ => (Vec::new(), None),
            };
            steps.push(Mount {
                act: act.clone(),
                folders,
                file,
            });
            kept.push((path, act));
        }
        let made = match plan.root_seen_as.and_then(seen_as) {
            Some(users) => steps.iter().map(|s| idmapped(&s.act, users)).collect(),
            None => steps.iter().map(|_| None).collect(),
        };
        View {
            clones: vec![-1; steps.len()],
            made,
            steps,
            folder: c_string(&folder),
        }
    }

    /// The folders the view covers, in the order mounted.
    pub fn covers(&self) -> Vec<PathBuf> {
        self.paths(true)
    }

    /// The folders and files it shows (the run's folder last among them when it is under a
    /// cover), in the order mounted.
    pub fn shows(&self) -> Vec<PathBuf> {
        self.paths(false)
    }

    fn paths(&self, covers: bool) -> Vec<PathBuf> {
        self.steps
            .iter()
            .filter(|step| matches!(step.act, Act::Cover { .. }) == covers)
            .map(|step| PathBuf::from(std::ffi::OsStr::from_bytes(step.act.path().to_bytes())))
            .collect()
    }

    /// Makes the view, in a child between `fork` and `exec` that has a mount namespace of
    /// its own (and the right to mount in it), and goes into the run's folder. Only system
    /// calls: safe after `fork` in a process that had threads.
    pub fn enter(&mut self) -> Result<(), (Step, io::Error)> {
        let at = |step: Step| move |e: rustix::io::Errno| (step, io::Error::from(e));
        mount_change(
            c"/",
            MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
        )
        .map_err(at(Step::Private))?;
        for (index, step) in self.steps.iter().enumerate() {
            if let Act::Show {
                source,
                folder,
                writable,
                ..
            } = &step.act
            {
                if let Some(clone) = self.made[index].take() {
                    self.clones[index] = clone.as_raw_fd();
                    std::mem::forget(clone);
                    continue;
                }
                let mut flags = OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC;
                if *folder {
                    flags |= OpenTreeFlags::AT_RECURSIVE;
                }
                let clone = open_tree(CWD, source.as_c_str(), flags).map_err(at(Step::Clone))?;
                if !writable {
                    read_only(&clone, c"", true).map_err(|e| (Step::Clone, e))?;
                }
                // Kept open by number until moved: an OwnedFd would need a Vec's room.
                self.clones[index] = clone.as_raw_fd();
                std::mem::forget(clone);
            }
        }
        read_only(&CWD, c"/", true).map_err(|e| (Step::ReadOnly, e))?;
        for (index, step) in self.steps.iter().enumerate() {
            for folder in &step.folders {
                match rustix::fs::mkdir(folder.as_c_str(), Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err((Step::Folder, e.into())),
                }
            }
            if let Some(file) = &step.file {
                let flags = OFlags::CREATE | OFlags::WRONLY | OFlags::CLOEXEC;
                drop(
                    rustix::fs::open(file.as_c_str(), flags, Mode::from_raw_mode(0o644))
                        .map_err(at(Step::Folder))?,
                );
            }
            match &step.act {
                Act::Cover { path, options, .. } => mount(
                    c"tmpfs",
                    path.as_c_str(),
                    c"tmpfs",
                    MountFlags::NOSUID | MountFlags::NODEV,
                    options.as_c_str(),
                )
                .map_err(at(Step::Cover))?,
                Act::Show { path, .. } => {
                    // SAFETY: the clone was opened above and is owned here alone.
                    let clone = unsafe {
                        <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(self.clones[index])
                    };
                    self.clones[index] = -1;
                    move_mount(
                        &clone,
                        c"",
                        CWD,
                        path.as_c_str(),
                        MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
                    )
                    .map_err(at(Step::Show))?;
                }
            }
        }
        for step in &self.steps {
            if let Act::Cover {
                path,
                writable: false,
                ..
            } = &step.act
            {
                read_only(&CWD, path.as_c_str(), false).map_err(|e| (Step::Seal, e))?;
            }
        }
        rustix::process::chdir(self.folder.as_c_str()).map_err(at(Step::Enter))
    }
}

/// Gives the run's folder, and everything in it (a save put there first, a submission's
/// files to build), to user `uid` and group `gid`: the user a program runs as when the
/// referee is root, which must be able to write there. Links in it are changed, never
/// followed.
pub fn hand_over(folder: &Path, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::lchown(folder, Some(uid), Some(gid))?;
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            hand_over(&entry.path(), uid, gid)?;
        } else {
            std::os::unix::fs::lchown(entry.path(), Some(uid), Some(gid))?;
        }
    }
    Ok(())
}

/// Whether `act` shows `/dev/null` (a mask): one under a cover masks nothing seen.
fn source_is_null(act: &Act) -> bool {
    matches!(act, Act::Show { source, .. } if source.as_bytes() == b"/dev/null")
}

/// Which act the path `path` is seen through (the deepest of `kept` at or above it), and
/// the cover it is under, if it is.
fn seen_at(kept: &[(PathBuf, Act)], path: &Path) -> (Seen, Option<PathBuf>) {
    let deepest = kept
        .iter()
        .filter(|(at, _)| path.starts_with(at))
        .max_by_key(|(at, _)| depth(at));
    match deepest {
        None => (Seen::Machine, None),
        Some((at, Act::Cover { .. })) => (Seen::Covered, Some(at.clone())),
        Some((_, Act::Show { .. })) => (Seen::Shown, None),
    }
}

/// The folders to make under `cover` for `act` at `path` (parents first), and the file to
/// make as its mount point when it shows a file.
fn made_under(cover: &Path, path: &Path, act: &Act) -> (Vec<CString>, Option<CString>) {
    let is_file = matches!(act, Act::Show { folder: false, .. });
    let mut folders = Vec::new();
    let mut at = cover.to_path_buf();
    let rest: Vec<_> = path
        .strip_prefix(cover)
        .map_or(Vec::new(), |rest| rest.components().collect());
    let last = rest.len();
    for (index, part) in rest.into_iter().enumerate() {
        at.push(part);
        if index + 1 == last && is_file {
            return (folders, Some(c_string(&at)));
        }
        folders.push(c_string(&at));
    }
    (folders, None)
}

/// `mount_attr`, as `mount_setattr` takes it.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// Makes the mount at `path` (relative to `dir`; `""` for `dir` itself) read-only, and every
/// mount below it when `recursive` (`mount_setattr`, Linux 5.12).
fn read_only(dir: &impl AsFd, path: &CStr, recursive: bool) -> io::Result<()> {
    set_attributes(dir, path, recursive, None)
}

/// A read-only clone of what `act` shows, made in the referee, with the machine's root seen
/// through it as the user `users` maps it to; `None` where it shows nothing (a cover, the
/// writable run's folder, a mask) or the file system cannot (the child clones it plainly).
fn idmapped(act: &Act, users: BorrowedFd<'_>) -> Option<OwnedFd> {
    let Act::Show {
        source,
        folder,
        writable: false,
        ..
    } = act
    else {
        return None;
    };
    if source.as_bytes() == b"/dev/null" {
        return None;
    }
    let mut flags = OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC;
    if *folder {
        flags |= OpenTreeFlags::AT_RECURSIVE;
    }
    let clone = open_tree(CWD, source.as_c_str(), flags).ok()?;
    set_attributes(&clone, c"", true, Some(users)).ok()?;
    Some(clone)
}

/// A user namespace mapping the machine's root, user and group, to `id` alone: what an
/// idmapped mount shows root's files as. Made once a process (a child unshares one and the
/// referee, root, writes its maps); `None` where the system refuses.
fn seen_as(id: u32) -> Option<BorrowedFd<'static>> {
    static USERS: std::sync::OnceLock<Option<(u32, OwnedFd)>> = std::sync::OnceLock::new();
    USERS
        .get_or_init(|| mapping_namespace(id).ok().map(|fd| (id, fd)))
        .as_ref()
        .filter(|(made_for, _)| *made_for == id)
        .map(|(_, fd)| fd.as_fd())
}

fn mapping_namespace(id: u32) -> io::Result<OwnedFd> {
    let (done_read, done_write) = std::io::pipe()?;
    let (go_read, go_write) = std::io::pipe()?;
    let (done_write, go_read, go_write_raw) = (
        OwnedFd::from(done_write),
        OwnedFd::from(go_read),
        go_write.as_raw_fd(),
    );
    // SAFETY: the child makes system calls only (it may have been forked from threads) and
    // ends with `_exit`; the buffers are its own copies.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: as above.
        unsafe {
            libc::close(go_write_raw);
            let byte: u8 = if libc::unshare(libc::CLONE_NEWUSER) == 0 {
                b'y'
            } else {
                b'n'
            };
            libc::write(done_write.as_raw_fd(), (&raw const byte).cast(), 1);
            let mut wait = 0u8;
            libc::read(go_read.as_raw_fd(), (&raw mut wait).cast(), 1);
            libc::_exit(0);
        }
    }
    drop((done_write, go_read));
    let mut byte = [0u8; 1];
    let unshared =
        io::Read::read(&mut &done_read, &mut byte).is_ok_and(|n| n == 1) && byte[0] == b'y';
    let made = if unshared {
        let map = format!("0 {id} 1\n");
        std::fs::write(format!("/proc/{pid}/uid_map"), &map)
            .and_then(|()| std::fs::write(format!("/proc/{pid}/gid_map"), &map))
            .and_then(|()| std::fs::File::open(format!("/proc/{pid}/ns/user")))
            .map(OwnedFd::from)
    } else {
        Err(io::Error::other("the system made no user namespace"))
    };
    drop(go_write);
    let mut status = 0;
    // SAFETY: waits for the child forked above, with a local status.
    unsafe { libc::waitpid(pid, &raw mut status, 0) };
    made
}

/// `mount_setattr` on the mount at `path` (relative to `dir`; `""` for `dir` itself), and
/// every mount below it when `recursive`: read-only, and idmapped through `users` if given.
fn set_attributes(
    dir: &impl AsFd,
    path: &CStr,
    recursive: bool,
    users: Option<BorrowedFd<'_>>,
) -> io::Result<()> {
    const MOUNT_ATTR_RDONLY: u64 = 1;
    const MOUNT_ATTR_IDMAP: u64 = 0x0010_0000;
    const AT_RECURSIVE: u32 = 0x8000;
    let attr = MountAttr {
        attr_set: MOUNT_ATTR_RDONLY | users.map_or(0, |_| MOUNT_ATTR_IDMAP),
        attr_clr: 0,
        propagation: 0,
        userns_fd: users.map_or(0, |fd| fd.as_raw_fd() as u64),
    };
    let mut flags = 0;
    if recursive {
        flags |= AT_RECURSIVE;
    }
    if path.is_empty() {
        flags |= AtFlags::EMPTY_PATH.bits();
    }
    // SAFETY: mount_setattr reads `attr` (its size given) and the path, both alive here.
    let result = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dir.as_fd().as_raw_fd(),
            path.as_ptr(),
            flags,
            std::ptr::from_ref(&attr),
            std::mem::size_of::<MountAttr>(),
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_in(root: &Path, shown: &[&str], covered: &[&str]) -> View {
        View::plan(&Plan {
            folder: root.join("run"),
            shown: shown.iter().map(|s| root.join(s)).collect(),
            covered: covered.iter().map(|s| root.join(s)).collect(),
            masked: Vec::new(),
            scratch: 64 << 20,
            root_seen_as: None,
        })
    }

    #[test]
    fn a_folder_shown_under_a_cover_has_its_mount_point_made() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path()).unwrap();
        for folder in ["run", "class/alice", "class/bob"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let view = plan_in(&root, &["class/alice"], &["class"]);
        // The class is covered (by a cover of its own, or by /tmp's when it is in /tmp).
        let cover = if root.starts_with("/tmp") {
            PathBuf::from("/tmp")
        } else {
            root.join("class")
        };
        assert!(view.covers().contains(&cover));
        assert!(view.shows().contains(&root.join("class/alice")));
        let step = view
            .steps
            .iter()
            .find(|s| s.act.path().to_bytes() == root.join("class/alice").as_os_str().as_bytes())
            .unwrap();
        // Every folder from below the cover down to alice's is made, parents first.
        let mut made = Vec::new();
        let mut at = cover.clone();
        for part in root
            .join("class/alice")
            .strip_prefix(&cover)
            .unwrap()
            .components()
        {
            at.push(part);
            made.push(c_string(&at));
        }
        assert_eq!(step.folders, made);
        // bob stays covered, and the run's folder is shown writable wherever it is.
        assert!(!view.shows().contains(&root.join("class/bob")));
        assert!(view.shows().contains(&root.join("run")));
    }

    #[test]
    fn what_is_seen_anyway_is_not_shown_again_and_a_cover_under_a_cover_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path()).unwrap();
        for folder in ["run", "seen", "class/alice/deeper"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let view = plan_in(&root, &["seen"], &["class", "class/alice"]);
        // Under /tmp (a cover) everything is shown that is asked for; outside it nothing.
        let under_tmp = root.starts_with("/tmp");
        assert_eq!(view.shows().contains(&root.join("seen")), under_tmp);
        assert_eq!(view.covers().contains(&root.join("class")), !under_tmp);
        assert!(!view.covers().contains(&root.join("class/alice")));
    }

    #[test]
    fn the_run_folder_is_writable_even_when_it_is_also_asked_shown() {
        let dir = tempfile::tempdir().unwrap();
        let root = real(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("run")).unwrap();
        // A build runs where it was "typed": its folder is shown read-only and is the run's.
        let view = plan_in(&root, &["run"], &["class"]);
        let at = root.join("run");
        let steps: Vec<&Act> = view
            .steps
            .iter()
            .map(|s| &s.act)
            .filter(|a| a.path().to_bytes() == at.as_os_str().as_bytes())
            .collect();
        assert!(
            steps
                .iter()
                .all(|a| matches!(a, Act::Show { writable: true, .. })),
            "{steps:?}"
        );
        assert_eq!(steps.len(), 1, "{steps:?}");
    }

    #[test]
    fn made_folders_run_from_the_cover_down() {
        let act = Act::Show {
            source: c"/x".to_owned(),
            path: c"/home/t/a/b".to_owned(),
            folder: true,
            writable: false,
        };
        let (folders, file) = made_under(Path::new("/home"), Path::new("/home/t/a/b"), &act);
        assert_eq!(
            folders,
            [
                c"/home/t".to_owned(),
                c"/home/t/a".to_owned(),
                c"/home/t/a/b".to_owned()
            ]
        );
        assert_eq!(file, None);
        let file_act = Act::Show {
            source: c"/x".to_owned(),
            path: c"/home/t/f".to_owned(),
            folder: false,
            writable: false,
        };
        let (folders, file) = made_under(Path::new("/home"), Path::new("/home/t/f"), &file_act);
        assert_eq!(folders, [c"/home/t".to_owned()]);
        assert_eq!(file, Some(c"/home/t/f".to_owned()));
    }

    #[test]
    fn steps_are_numbered_for_the_pipe() {
        for n in 1..=8 {
            assert_eq!(Step::from_number(n).map(|s| s as u8), Some(n));
        }
        assert_eq!(Step::from_number(0), None);
    }
}
