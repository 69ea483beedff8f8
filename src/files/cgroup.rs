//! A memory control group of a run's own (Linux): the one limit on memory that counts a run as
//! a whole, shared memory, `/tmp` and `/dev/shm` files and `SysV` segments included, which the
//! per-process limits (`RLIMIT_DATA`) do not. Made below the control group the referee is in,
//! where the referee may make one (root, or a delegated subtree); the runner holds a run by
//! per-process limits and a watch of its processes' memory where none can be had.
//!
//! Both hierarchies are read: cgroup v1's `memory` controller (`memory.limit_in_bytes`,
//! `memory.max_usage_in_bytes`, `memory.oom_control`'s `oom_kill`) and the unified v2
//! hierarchy (`memory.max`, `memory.peak`, `memory.events`'s `oom_kill`).

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// Which hierarchy a control group is in: their files are named differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    V1,
    V2,
}

/// A run's own memory control group: kept to be used again when dropped empty (making and
/// removing one costs a run more than all the rest of its sandbox), removed otherwise.
#[derive(Debug)]
pub struct MemoryGroup {
    path: PathBuf,
    version: Version,
    limit: u64,
    /// Its kills for want of memory before this run (a group used again keeps its count).
    kills_before: u64,
}

/// Numbers the groups this process makes.
static NEXT: AtomicU64 = AtomicU64::new(0);
/// Groups whose runs are over, empty, to be used again ([`release_all`] removes them).
static FREE: Mutex<Vec<(PathBuf, Version)>> = Mutex::new(Vec::new());
/// Whether this process has removed the groups referees that are gone left behind.
static SWEPT: Mutex<bool> = Mutex::new(false);

/// The name a group of this process gets: `power11-run-PID-N`.
const PREFIX: &str = "power11-run-";

/// Removes the groups this process keeps to use again: for the end of a referee's work (a
/// referee killed first leaves them, empty, for the next one to remove).
pub fn release_all() {
    let free = std::mem::take(&mut *FREE.lock().unwrap_or_else(PoisonError::into_inner));
    for (path, _) in free {
        let _ = std::fs::remove_dir(path);
    }
}

/// Removes the empty groups below `parent` that referees no longer running left behind.
fn sweep(parent: &Path) {
    let mut swept = SWEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if *swept {
        return;
    }
    *swept = true;
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if let Some(pid) = pid
            && !Path::new(&format!("/proc/{pid}")).exists()
        {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// The folder of this process's memory control group, and its hierarchy, from
/// `/proc/self/cgroup` and `/proc/self/mountinfo`.
fn own_group() -> Option<(PathBuf, Version)> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    // v1: `N:memory:/path` (the memory controller, perhaps with others on one line).
    let v1 = cgroups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "memory")
            .then(|| path.to_string())
    });
    if let Some(relative) = v1 {
        let root = mount_point(&mounts, "cgroup", Some("memory"))?;
        return Some((joined(&root, &relative), Version::V1));
    }
    let relative = cgroups
        .lines()
        .find_map(|line| line.strip_prefix("0::"))?
        .to_string();
    let root = mount_point(&mounts, "cgroup2", None)?;
    Some((joined(&root, &relative), Version::V2))
}

/// `root` joined with a control group's path (`/a/b`).
fn joined(root: &Path, relative: &str) -> PathBuf {
    root.join(relative.trim_start_matches('/'))
}

/// Where a file system of type `kind` is mounted (with super option `option` among its
/// options, for a v1 controller), from `/proc/self/mountinfo`'s text.
fn mount_point(mountinfo: &str, kind: &str, option: Option<&str>) -> Option<PathBuf> {
    mountinfo.lines().find_map(|line| {
        let (before, after) = line.split_once(" - ")?;
        let mut after = after.split(' ');
        let (fs_type, _source, options) = (after.next()?, after.next()?, after.next()?);
        if fs_type != kind {
            return None;
        }
        if let Some(option) = option
            && !options.split(',').any(|o| o == option)
        {
            return None;
        }
        before
            .split(' ')
            .nth(4)
            .map(|point| PathBuf::from(unescape(point)))
    })
}

/// A mountinfo field with its octal escapes (`\040` for a space) read.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'\\'
            && at + 3 < bytes.len()
            && let Ok(code) = u8::from_str_radix(&field[at + 1..at + 4], 8)
        {
            out.push(code);
            at += 4;
        } else {
            out.push(bytes[at]);
            at += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A number a control group's file holds on its first line (`max` reads as none).
fn number_in(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path)
        .ok()?
        .split_ascii_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The number after `key` on a line of a `key value` file.
fn keyed(path: &Path, key: &str) -> Option<u64> {
    std::fs::read_to_string(path)
        .ok()?
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(' ')?;
            (name == key).then(|| value.trim().parse().ok()).flatten()
        })
}

/// Writes `value` to the control group file `path`.
fn set(path: &Path, value: &str) -> io::Result<()> {
    OpenOptions::new()
        .write(true)
        .open(path)?
        .write_all(value.as_bytes())
}

impl MemoryGroup {
    /// A new control group below this process's own, limited to `bytes` of memory (and no
    /// swap beyond it), or why none could be made (not root, no delegated subtree, no memory
    /// controller).
    pub fn create(bytes: u64) -> io::Result<MemoryGroup> {
        let reused = FREE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let (path, version) = if let Some(free) = reused {
            free
        } else {
            let (parent, version) = own_group()
                .ok_or_else(|| io::Error::other("no memory control group to make one in"))?;
            sweep(&parent);
            let name = format!(
                "{PREFIX}{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            );
            let path = parent.join(name);
            std::fs::create_dir(&path)?;
            (path, version)
        };
        let mut group = MemoryGroup {
            path,
            version,
            limit: bytes,
            kills_before: 0,
        };
        group.kills_before = group.out_of_memory_kills();
        // Its most used so far starts again from now (best effort: not every kernel lets it).
        let _ = match version {
            Version::V1 => set(&group.file("memory.max_usage_in_bytes"), "0"),
            Version::V2 => set(&group.file("memory.peak"), "0"),
        };
        let limited = match version {
            Version::V1 => {
                set(&group.file("memory.limit_in_bytes"), &bytes.to_string()).and_then(|()| {
                    // Memory and swap together, where swap is counted: no swapping past it.
                    let both = group.file("memory.memsw.limit_in_bytes");
                    if both.exists() {
                        set(&both, &bytes.to_string())
                    } else {
                        Ok(())
                    }
                })
            }
            Version::V2 => set(&group.file("memory.max"), &bytes.to_string()).and_then(|()| {
                let swap = group.file("memory.swap.max");
                if swap.exists() {
                    set(&swap, "0")
                } else {
                    Ok(())
                }
            }),
        };
        limited.map(|()| group)
    }

    /// Its limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The group's file `name`.
    fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Its `cgroup.procs`, opened to write: a process that writes `0` to it joins the group
    /// (a child between fork and exec, before it starts anything).
    pub fn procs(&self) -> io::Result<OwnedFd> {
        let file = OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_CLOEXEC)
            .open(self.file("cgroup.procs"))?;
        Ok(OwnedFd::from(file))
    }

    /// The most memory its processes used at once, where the kernel says.
    pub fn peak(&self) -> Option<u64> {
        match self.version {
            Version::V1 => number_in(&self.file("memory.max_usage_in_bytes")),
            Version::V2 => number_in(&self.file("memory.peak")),
        }
    }

    /// How many of its processes the kernel killed for want of memory within the limit,
    /// in this run.
    pub fn out_of_memory_kills(&self) -> u64 {
        match self.version {
            Version::V1 => keyed(&self.file("memory.oom_control"), "oom_kill"),
            Version::V2 => keyed(&self.file("memory.events"), "oom_kill"),
        }
        .unwrap_or(0)
        .saturating_sub(self.kills_before)
    }

    /// Whether no process is in it.
    fn empty(&self) -> bool {
        std::fs::read_to_string(self.file("cgroup.procs"))
            .is_ok_and(|procs| procs.trim().is_empty())
    }
}

impl Drop for MemoryGroup {
    /// Keeps the group to be used again once its processes are gone, or removes it; one
    /// with processes still in it cannot be removed, and stays.
    fn drop(&mut self) {
        for _ in 0..50 {
            if self.empty() {
                let free = (std::mem::take(&mut self.path), self.version);
                FREE.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(free);
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        for _ in 0..50 {
            match std::fs::remove_dir(&self.path) {
                // Its last processes may still be on their way out.
                Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
25 30 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
30 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
31 25 0:28 / /sys/fs/cgroup/cpu\\040set rw,relatime - cgroup cgroup rw,cpu
";

    #[test]
    fn a_controller_is_found_by_its_type_and_option() {
        assert_eq!(
            mount_point(MOUNTINFO, "cgroup", Some("memory")),
            Some(PathBuf::from("/sys/fs/cgroup/memory"))
        );
        assert_eq!(
            mount_point(MOUNTINFO, "cgroup2", None),
            Some(PathBuf::from("/sys/fs/cgroup/unified"))
        );
        assert_eq!(
            mount_point(MOUNTINFO, "cgroup", Some("cpu")),
            Some(PathBuf::from("/sys/fs/cgroup/cpu set"))
        );
        assert_eq!(mount_point(MOUNTINFO, "cgroup", Some("pids")), None);
    }

    #[test]
    fn a_groups_path_joins_its_root() {
        assert_eq!(
            joined(Path::new("/sys/fs/cgroup/memory"), "/a/b"),
            PathBuf::from("/sys/fs/cgroup/memory/a/b")
        );
        assert_eq!(
            joined(Path::new("/sys/fs/cgroup"), "/"),
            PathBuf::from("/sys/fs/cgroup/")
        );
    }
}
