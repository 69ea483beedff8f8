//! A sandbox of its own for each program under test (Linux user namespaces, no privilege
//! needed): its own process ids (it cannot see, signal or trace the referee or another run),
//! its own mounts (the view of `files::sandbox`: the system read-only, the grader's folders
//! covered, its run's folder the one it writes in, a private `/tmp`), its own IPC (`SysV`
//! segments end with it), no network, and, where a memory control group can be had, one
//! limit on the memory of the run as a whole, shared memory counted.
//!
//! Between `fork` and `exec` the child the runner starts (A, which the runner holds as "the
//! program") joins the run's control group, has a helper (D) that stays outside write its
//! user and group maps, unshares its namespaces and enters the view; then it starts the
//! namespace's first process (B), which mounts the namespace's own `/proc` and starts the
//! program (C, the second process of its namespace, so that signals and orphans behave as
//! they do anywhere). C takes the program's user (`nobody` when the referee is root: no
//! program of a stranger's runs as root), keeps no capability and can gain none
//! (`PR_SET_NO_NEW_PRIVS`), and `exec`s it. When C ends, B hands its status to A and
//! exits, which ends every process left in the namespace, and A ends as C did (its exit
//! code, or the signal that ended it), so the runner sees the program's own ending.
//!
//! Everything in the child is a system call on values prepared before the fork: a child of
//! a process with threads may take no lock and allocate nothing.

use crate::files::cgroup::MemoryGroup;
use crate::files::sandbox::{COVERED, Plan, View};

mod child;

pub(super) use child::Child;
use child::Failed;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The user and group a program runs as when the referee is root: `nobody` and `nogroup`.
pub const NOBODY: u32 = 65534;

/// The environment variables a program is given from the referee's own (all others are
/// left out: a grader's terminal multiplexer, agents, display, tokens): the program's
/// search path and language, and where its interpreters and toolchains are.
const KEPT_VARIABLES: &[&str] = &[
    "PATH",
    "LANG",
    "LANGUAGE",
    "TZ",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_HOME",
    "JAVA_HOME",
    "GOROOT",
];

/// Toolchains installed in a home, and the variable that tells each where it is once the
/// program's home is its run's folder.
const TOOLCHAINS: &[(&str, &str)] = &[
    (".cargo", "CARGO_HOME"),
    (".rustup", "RUSTUP_HOME"),
    (".pyenv", "PYENV_ROOT"),
];

/// Whether sandboxes can be had here: `None` until a run has tried, then the reason none
/// can be (a kernel without user namespaces, a system that refuses them).
static UNAVAILABLE: Mutex<Option<String>> = Mutex::new(None);

/// Removes the memory control groups this process keeps to use again for later runs: call
/// it when no more runs are to come (the referee does at its end). A process that ends
/// without it leaves them, empty, for the next referee to remove.
pub fn release_groups() {
    crate::files::cgroup::release_all();
}

/// Why sandboxes cannot be had on this machine, once a run found it.
pub(super) fn unavailable() -> Option<String> {
    UNAVAILABLE.lock().map_or(None, |why| why.clone())
}

fn mark_unavailable(why: &str) {
    if let Ok(mut slot) = UNAVAILABLE.lock() {
        slot.get_or_insert_with(|| why.to_string());
    }
}

/// The referee's side of a sandbox: its control group and the child's reports.
#[derive(Debug)]
pub(super) struct Parent {
    group: Option<MemoryGroup>,
    /// Why the run has no control group, when it has none.
    no_group: Option<String>,
    reports: OwnedFd,
    /// The ends the child uses, closed once it has started.
    child_ends: Vec<OwnedFd>,
    /// The user the program runs as, when not the referee's.
    pub(super) user: Option<u32>,
}

/// What a sandboxed start said: its notes, or the step that failed.
#[derive(Debug, Default)]
pub(super) struct Said {
    pub(super) failed: Option<String>,
    pub(super) notes: Vec<String>,
}

/// The folder of the grader's home, if it has one.
fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| home.is_absolute() && home != Path::new("/"))
}

/// The environment a program gets, whatever holds it: the kept variables, and where the
/// toolchains of the grader's home are (its home being its folder now).
pub(super) fn environment() -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    for (name, value) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if KEPT_VARIABLES.contains(&text.as_ref()) || text.starts_with("LC_") {
            env.push((name, value));
        }
    }
    if let Some(home) = home() {
        for (folder, variable) in TOOLCHAINS {
            let path = home.join(folder);
            if !env.iter().any(|(name, _)| name == variable) && path.is_dir() {
                env.push((variable.into(), path.into_os_string()));
            }
        }
    }
    env
}

/// The folders to show a program besides the one it was typed in: its program's, each
/// absolute argument, and the toolchains on its `PATH` and in its environment (each folder of
/// `PATH` ending in `bin`, `sbin` or `shims` shown from the folder above it).
fn toolchains(env: &[(OsString, OsString)]) -> Vec<PathBuf> {
    let mut shown = Vec::new();
    for (name, value) in env {
        if name == "PATH" {
            for entry in std::env::split_paths(value) {
                let last = entry.file_name().map(|n| n.to_string_lossy().into_owned());
                let root = match last.as_deref() {
                    Some("bin" | "sbin" | "shims") => entry.parent().map(Path::to_path_buf),
                    _ => Some(entry.clone()),
                };
                shown.extend(root.filter(|r| r.is_absolute()));
            }
        } else if TOOLCHAINS.iter().any(|(_, v)| name == v)
            || ["JAVA_HOME", "GOROOT"].iter().any(|v| name == v)
        {
            shown.push(PathBuf::from(value));
        }
    }
    shown
}

/// What the arguments name: each absolute word (an argument, or a word of one that is a
/// shell's command line, `sh -c 'python3 /x/game.py'`) that exists, with the folder of a
/// file (a script's own modules sit beside it), unless that would undo a cover.
fn named_in(args: &[OsString]) -> Vec<PathBuf> {
    let mut named = Vec::new();
    for arg in args {
        let text = arg.to_string_lossy();
        let mut words = vec![PathBuf::from(arg)];
        if text.contains(char::is_whitespace) {
            words.extend(
                shlex::split(&text)
                    .unwrap_or_default()
                    .into_iter()
                    .map(PathBuf::from),
            );
        }
        for word in words.into_iter().filter(|w| w.is_absolute()) {
            let Some(is_folder) = crate::files::sandbox::kind_of(&word) else {
                continue;
            };
            if !is_folder && let Some(folder) = word.parent().filter(|f| !too_wide(f)) {
                named.push(folder.to_path_buf());
            }
            if !too_wide(&word) {
                named.push(word);
            }
        }
    }
    named
}

/// Whether showing `path` would undo a cover: it is `/`, a covered folder or holds one (the
/// grader's home, `/tmp`): then only the files a command names in it are shown.
pub(super) fn too_wide(path: &Path) -> bool {
    path == Path::new("/")
        || home().is_some_and(|home| home.starts_with(path))
        || COVERED
            .iter()
            .any(|covered| Path::new(covered).starts_with(path))
}

/// What a run needs to be sandboxed: the view planned from where its command was typed
/// (`origin`), its program and arguments, its folder, the folders to cover besides, and its
/// memory limit.
pub(super) struct Setup<'a> {
    pub(super) origin: &'a Path,
    pub(super) program: &'a Path,
    pub(super) args: &'a [OsString],
    pub(super) named: &'a [PathBuf],
    pub(super) folder: &'a Path,
    pub(super) covered: &'a [PathBuf],
    pub(super) shown: &'a [PathBuf],
    pub(super) env: &'a [(OsString, OsString)],
    pub(super) memory: Option<u64>,
    pub(super) scratch: u64,
}

/// Prepares a sandbox for a run: the child's part and the referee's.
pub(super) fn prepare(setup: &Setup<'_>) -> io::Result<(Child, Parent)> {
    let mut shown: Vec<PathBuf> = setup.shown.to_vec();
    // The folder it was typed in and its program's, unless one is the grader's home or
    // `/tmp` (or holds one): then the program alone. Each absolute argument (a relative one
    // naming a file there was made absolute), and the toolchains.
    let program_folder = setup.program.parent().unwrap_or(Path::new("/"));
    for folder in [setup.origin, program_folder] {
        if !too_wide(folder) {
            shown.push(folder.to_path_buf());
        }
    }
    shown.push(setup.program.to_path_buf());
    shown.extend(named_in(setup.args));
    shown.extend(setup.named.iter().filter(|p| !too_wide(p)).cloned());
    shown.extend(toolchains(setup.env).into_iter().filter(|p| !too_wide(p)));
    let mut covered = setup.covered.to_vec();
    covered.extend(home());
    let masked = setup
        .env
        .iter()
        .filter(|(name, _)| name == "CARGO_HOME")
        .flat_map(|(_, cargo)| {
            ["credentials", "credentials.toml"].map(|name| Path::new(cargo).join(name))
        })
        .collect();
    let root = rustix::process::getuid().is_root();
    let view = View::plan(&Plan {
        folder: setup.folder.to_path_buf(),
        shown,
        covered,
        masked,
        scratch: setup.scratch,
        root_seen_as: root.then_some(NOBODY),
    });
    let (group, no_group) = match setup.memory.map(MemoryGroup::create) {
        Some(Ok(group)) => (Some(group), None),
        Some(Err(e)) => (None, Some(crate::files::system_words(&e))),
        None => (None, None),
    };
    let procs = group.as_ref().map(MemoryGroup::procs).transpose()?;
    let (reports, report) = std::io::pipe()?;
    let reports = OwnedFd::from(reports);
    let report = OwnedFd::from(report);
    set_nonblocking(&reports)?;
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    let (uid_map, gid_map) = if root {
        (
            format!("0 0 1\n{NOBODY} {NOBODY} 1\n"),
            format!("0 0 1\n{NOBODY} {NOBODY} 1\n"),
        )
    } else {
        (format!("{uid} {uid} 1\n"), format!("{gid} {gid} 1\n"))
    };
    if root {
        crate::files::sandbox::hand_over(setup.folder, NOBODY, NOBODY)?;
    }
    let child = Child {
        view,
        procs: procs.as_ref().map_or(-1, AsRawFd::as_raw_fd),
        report: report.as_raw_fd(),
        uid_map: uid_map.into_bytes(),
        gid_map: gid_map.into_bytes(),
        deny_setgroups: !root,
        run_as: root.then_some(NOBODY),
    };
    let mut child_ends = vec![report];
    child_ends.extend(procs);
    let parent = Parent {
        group,
        no_group,
        reports,
        child_ends,
        user: root.then_some(NOBODY),
    };
    Ok((child, parent))
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(fd)?;
    rustix::fs::fcntl_setfl(fd, flags | rustix::fs::OFlags::NONBLOCK)?;
    Ok(())
}

impl Parent {
    /// What the child said while it started (read once it has `exec`ed or failed), its
    /// ends of the pipes closed. A failure of the sandbox marks sandboxes unavailable here.
    pub(super) fn said(&mut self) -> Said {
        self.child_ends.clear();
        let mut bytes = [0u8; 512];
        let n = rustix::io::read(&self.reports, &mut bytes).unwrap_or(0);
        let mut said = Said::default();
        for record in bytes[..n].chunks_exact(6) {
            let errno = i32::from_ne_bytes([record[2], record[3], record[4], record[5]]);
            let error = crate::files::system_words(&io::Error::from_raw_os_error(errno));
            match record[0] {
                b'S' => {
                    let why = format!("cannot {}: {error}", Failed::words(record[1]));
                    mark_unavailable(&why);
                    said.failed.get_or_insert(why);
                }
                b'P' => said.notes.push(format!(
                    "the system's /proc is shown (its own could not be mounted: {error})"
                )),
                _ => {}
            }
        }
        if let Some(why) = &self.no_group {
            said.notes.push(format!(
                "no memory control group ({why}): each process held to the memory limit, shared memory watched"
            ));
        }
        said
    }

    /// How many processes the namespace's first process found still running when the program
    /// ended (each ended with the namespace), as it reported them.
    pub(super) fn left_at_end(&mut self) -> usize {
        let mut bytes = [0u8; 64];
        let n = rustix::io::read(&self.reports, &mut bytes).unwrap_or(0);
        bytes[..n]
            .chunks_exact(6)
            .filter(|record| record[0] == b'L')
            .map(|record| u32::from_ne_bytes([record[2], record[3], record[4], record[5]]) as usize)
            .sum()
    }

    /// The run's memory control group, if it has one.
    pub(super) fn group(&self) -> Option<&MemoryGroup> {
        self.group.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_kept_variables_reach_a_program() {
        let env = environment();
        for (name, _) in &env {
            let name = name.to_string_lossy();
            assert!(
                KEPT_VARIABLES.contains(&name.as_ref())
                    || name.starts_with("LC_")
                    || TOOLCHAINS.iter().any(|(_, v)| *v == name),
                "{name}"
            );
        }
    }

    #[test]
    fn toolchains_are_shown_from_above_their_bin() {
        let env = vec![(
            OsString::from("PATH"),
            OsString::from("/opt/t/.cargo/bin:/opt/t/.pyenv/shims:/usr/bin:/opt/x"),
        )];
        let shown = toolchains(&env);
        assert_eq!(
            shown,
            [
                PathBuf::from("/opt/t/.cargo"),
                PathBuf::from("/opt/t/.pyenv"),
                PathBuf::from("/usr"),
                PathBuf::from("/opt/x")
            ]
        );
    }
}
