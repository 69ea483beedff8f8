//! The processes of a run, held and ended together. The referee is the child subreaper of
//! everything it runs (`PR_SET_CHILD_SUBREAPER`): a process whose parent ends becomes the
//! referee's child, never init's, so it stays within reach, `setsid` helpers included.
//!
//! Runs may go on at once on threads of one referee, and their orphans all become its
//! children, so a run tells its processes from another's by what each carries: a process is
//! the run's if it is the program, or is in the program's session or process group (the
//! program starts its own session, and its id stays taken while the program is not
//! collected, which is only when the run ends), or its environment holds the run's marker
//! (`POWER11_RUN=PID.N`, inherited by everything the program starts), or it was seen below
//! the program while the run went on, or it descends from one of those. A process that
//! leaves all of these (a new session, a cleared environment, and its parent gone before
//! the runner looked) is not found: the guide says so.
//!
//! Ending a run stops every process of it first (`SIGSTOP`, again and again until a look
//! finds none running that is not held), so a fork loop cannot make new processes faster
//! than they are found, then kills them all and collects each by its pidfd: never
//! `waitpid(-1)`, which would take another run's.

use crate::files::processes::{self, Process};
use rustix::io::Errno;
use rustix::process::{
    PidfdFlags, Signal, WaitId, WaitIdOptions, WaitIdStatus, pidfd_open, pidfd_send_signal, waitid,
};
use std::collections::{HashMap, HashSet};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};
use std::time::{Duration, Instant};

/// The name of the environment variable that marks a run's processes.
pub const MARKER: &str = "POWER11_RUN";

/// How long ending a run may take to stop its processes before it kills what it holds.
const STOPPING: Duration = Duration::from_secs(2);
/// How long it waits for the killed processes to end, to collect them.
const COLLECTING: Duration = Duration::from_secs(5);
/// The most processes a run remembers having seen (a fork loop makes thousands).
const REMEMBERED: usize = 4096;

/// How the program ended, once it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Exit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
}

impl Exit {
    fn of(status: &WaitIdStatus) -> Option<Exit> {
        if let Some(code) = status.exit_status() {
            Some(Exit::Code(code))
        } else {
            status.terminating_signal().map(Exit::Signal)
        }
    }
}

/// What ending a run found and ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Swept {
    /// The program was still running.
    pub(super) program: bool,
    /// How many other processes of the run were still running.
    pub(super) others: usize,
}

/// A run's processes: the program, and how its others are told.
#[derive(Debug)]
pub(super) struct Tree {
    program: u32,
    program_start: u64,
    pidfd: OwnedFd,
    marker: Vec<u8>,
    seen: Mutex<HashSet<(u32, u64)>>,
    /// The program's status, once collected.
    status: Mutex<Option<Exit>>,
    /// Set when [`stop_all`] ended it.
    stopped: AtomicBool,
    /// Whether the program runs in a sandbox: then `program` is the sandbox's outer process,
    /// its one child the namespace's first process, and that one's first child the program.
    sandboxed: bool,
    /// Held while the run is being ended; what ending it swept, once it has been.
    swept: Mutex<Option<Swept>>,
}

/// Held while a run's program is being started, so that [`stop_all`] waits for it and then
/// finds it.
static STARTING: RwLock<()> = RwLock::new(());
/// Every run started and not finished.
static RUNS: Mutex<Vec<Weak<Tree>>> = Mutex::new(Vec::new());
/// Numbers the runs of this referee, for their markers.
static NEXT_RUN: AtomicU64 = AtomicU64::new(0);

/// A new run's marker: `POWER11_RUN=PID.N`, unique among the runs of every referee on the
/// machine while they run.
pub(super) fn new_marker() -> String {
    format!(
        "{MARKER}={}.{}",
        std::process::id(),
        NEXT_RUN.fetch_add(1, Ordering::Relaxed)
    )
}

/// Makes this process the child subreaper of everything it starts (once; it stays one).
pub(super) fn become_subreaper() -> std::io::Result<()> {
    static DONE: Mutex<bool> = Mutex::new(false);
    let mut done = DONE.lock().unwrap_or_else(PoisonError::into_inner);
    if !*done {
        rustix::process::set_child_subreaper(Some(rustix::process::getpid()))?;
        *done = true;
    }
    Ok(())
}

/// Runs `spawn` (which starts a program and returns its pid) so that [`stop_all`] either
/// waits for it or finds its run, and registers the run.
pub(super) fn start<E>(
    marker: &str,
    sandboxed: bool,
    spawn: impl FnOnce() -> Result<u32, E>,
    lost: impl FnOnce(std::io::Error) -> E,
) -> Result<Arc<Tree>, E> {
    let _starting = STARTING.read().unwrap_or_else(PoisonError::into_inner);
    let pid = spawn()?;
    let tree = match Tree::new(pid, marker, sandboxed) {
        Ok(tree) => Arc::new(tree),
        Err(error) => {
            // Not held (no pidfd: a kernel before 5.3): not left running either. It is this
            // process's child, not collected yet, so its pid is still its own.
            if let Some(raw) = rustix::process::Pid::from_raw(pid as i32) {
                let _ = rustix::process::kill_process(raw, Signal::KILL);
                let _ = rustix::process::waitpid(Some(raw), rustix::process::WaitOptions::empty());
            }
            return Err(lost(error));
        }
    };
    let mut runs = RUNS.lock().unwrap_or_else(PoisonError::into_inner);
    runs.retain(|run| run.strong_count() > 0);
    runs.push(Arc::downgrade(&tree));
    Ok(tree)
}

/// Ends every run of this process that has not ended, each with all its processes, and
/// returns how many processes were ended. Runs being started wait until it has returned, and
/// by then no process of a run started before is left. For a thread that handles the
/// referee's SIGINT, SIGTERM or SIGHUP (a thread that is told of them, such as
/// `signal-hook`'s iterator: it takes locks, so not the signal handler itself); each run it
/// ended ends as [`crate::runner::Ending::Stopped`].
pub fn stop_all() -> usize {
    let _no_start = STARTING.write().unwrap_or_else(PoisonError::into_inner);
    let runs: Vec<Arc<Tree>> = RUNS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .filter_map(Weak::upgrade)
        .collect();
    runs.iter()
        .map(|tree| {
            tree.stopped.store(true, Ordering::SeqCst);
            let swept = tree.end();
            usize::from(swept.program) + swept.others
        })
        .sum()
}

/// A process held while its run ends.
struct Held {
    pid: u32,
    ppid: u32,
    start: u64,
    fd: OwnedFd,
    alive: bool,
    collected: bool,
}

impl Tree {
    fn new(pid: u32, marker: &str, sandboxed: bool) -> std::io::Result<Tree> {
        let raw = rustix::process::Pid::from_raw(pid as i32)
            .ok_or_else(|| std::io::Error::other("no process id"))?;
        // The program cannot be collected before this (the runner collects only by pidfd),
        // so the pid is still its own.
        let pidfd = pidfd_open(raw, PidfdFlags::empty())?;
        let program_start = processes::process(pid).map_or(0, |p| p.start_time);
        Ok(Tree {
            program: pid,
            program_start,
            pidfd,
            marker: marker.as_bytes().to_vec(),
            seen: Mutex::new(HashSet::new()),
            status: Mutex::new(None),
            stopped: AtomicBool::new(false),
            sandboxed,
            swept: Mutex::new(None),
        })
    }

    /// The program's process id.
    pub(super) fn program(&self) -> u32 {
        self.program
    }

    /// The program's pidfd: readable once it has ended.
    pub(super) fn pidfd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.pidfd.as_fd()
    }

    /// The run's marker (`NAME=value`).
    pub(super) fn marker(&self) -> &[u8] {
        &self.marker
    }

    /// Whether [`stop_all`] ended it.
    pub(super) fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// How the program ended, if it has: looked at without collecting it, so its pid stays
    /// taken (and its session's and group's with it) until the run ends.
    pub(super) fn exit(&self) -> Option<Exit> {
        if let Some(exit) = *self.status.lock().unwrap_or_else(PoisonError::into_inner) {
            return Some(exit);
        }
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::PidFd(self.pidfd.as_fd()), options) {
            Ok(Some(status)) => Exit::of(&status),
            _ => None,
        }
    }

    /// Remembers `processes` as the run's (they were seen below the program).
    pub(super) fn remember(&self, seen: &[Process]) {
        let mut remembered = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        for process in seen {
            if remembered.len() < REMEMBERED {
                remembered.insert((process.pid, process.start_time));
            }
        }
    }

    /// The processes of `all` that are the program's descendants now (the program first
    /// where it is there), the sandbox's own processes left out: those only wait.
    pub(super) fn descendants(&self, all: &[Process]) -> Vec<Process> {
        let outer: Vec<Process> = all
            .iter()
            .filter(|p| p.pid == self.program && p.start_time == self.program_start)
            .copied()
            .collect();
        if !self.sandboxed {
            return below(outer, all);
        }
        // The namespace's first process, and its first child: the program.
        let first: Vec<u32> = all
            .iter()
            .filter(|p| outer.iter().any(|o| o.pid == p.ppid))
            .map(|p| p.pid)
            .collect();
        let program = all
            .iter()
            .filter(|p| first.contains(&p.ppid))
            .min_by_key(|p| p.start_time)
            .copied();
        let mut found = below(program.into_iter().collect(), all);
        // Orphans the namespace's first process took in are the run's too.
        let orphans: Vec<Process> = all
            .iter()
            .filter(|p| first.contains(&p.ppid) && !found.iter().any(|f| f.pid == p.pid))
            .copied()
            .collect();
        found.extend(below(orphans, all));
        found
    }

    /// The processes of `all` that are the run's.
    fn members(&self, all: &[Process]) -> Vec<Process> {
        let me = std::process::id();
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let seeds = all
            .iter()
            .filter(|p| {
                p.pid != me
                    && ((p.pid == self.program && p.start_time == self.program_start)
                        || p.session == self.program
                        || p.group == self.program
                        || seen.contains(&(p.pid, p.start_time))
                        || processes::has_marker(p.pid, &self.marker))
            })
            .copied()
            .collect();
        below(seeds, all)
    }

    /// Ends every process of the run and collects them; what it found. Once a run has
    /// been ended, ending it again finds what the first time found.
    pub(super) fn end(&self) -> Swept {
        let mut swept = self.swept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(swept) = *swept {
            return swept;
        }
        let mut held = self.stop_every_process();
        for process in &held {
            let _ = pidfd_send_signal(&process.fd, Signal::KILL);
        }
        self.collect(&mut held);
        // In a sandbox, the program is the first child of the namespace's first process, and
        // neither that one nor the outer process is the program's.
        let outer = |p: &Held| p.pid == self.program && p.start == self.program_start;
        let first = held.iter().find(|p| p.ppid == self.program).map(|p| p.pid);
        let program = if self.sandboxed {
            held.iter()
                .filter(|p| Some(p.ppid) == first)
                .min_by_key(|p| p.start)
                .map(|p| (p.pid, p.start))
        } else {
            Some((self.program, self.program_start))
        };
        let is_program = |p: &Held| program == Some((p.pid, p.start));
        let sandbox_own = |p: &Held| self.sandboxed && (outer(p) || Some(p.pid) == first);
        let result = Swept {
            program: held.iter().any(|p| is_program(p) && p.alive),
            others: held
                .iter()
                .filter(|p| p.alive && !is_program(p) && !outer(p) && !sandbox_own(p))
                .count(),
        };
        *swept = Some(result);
        result
    }

    /// Every process of the run, each stopped, held by a pidfd.
    fn stop_every_process(&self) -> Vec<Held> {
        let until = Instant::now() + STOPPING;
        let mut held: Vec<Held> = Vec::new();
        loop {
            let all = processes::processes();
            let mut found = false;
            for process in self.members(&all) {
                if held
                    .iter()
                    .any(|h| h.pid == process.pid && h.start == process.start_time)
                {
                    continue;
                }
                let Some(pid) = rustix::process::Pid::from_raw(process.pid as i32) else {
                    continue;
                };
                let Ok(fd) = pidfd_open(pid, PidfdFlags::empty()) else {
                    continue;
                };
                // The pid may have been taken by a new process between the list and the
                // open: the one opened is the one listed if it started at the same time.
                if processes::process(process.pid).map(|p| p.start_time) != Some(process.start_time)
                {
                    continue;
                }
                let _ = pidfd_send_signal(&fd, Signal::STOP);
                held.push(Held {
                    pid: process.pid,
                    ppid: process.ppid,
                    start: process.start_time,
                    fd,
                    alive: !process.ended(),
                    collected: false,
                });
                found = true;
            }
            // A process stops when it next runs: until every one held has, one may still
            // start another.
            let all_stopped = held.iter().all(|h| {
                processes::process(h.pid).is_none_or(|p| {
                    p.start_time != h.start || matches!(p.state, b'T' | b't') || p.ended()
                })
            });
            if (!found && all_stopped) || Instant::now() >= until {
                return held;
            }
            if !found {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }

    /// Collects the killed processes: each, once it has ended, is this process's child (its
    /// parent, or the subreaper its parent's end handed it to), collected by its pidfd.
    fn collect(&self, held: &mut [Held]) {
        let until = Instant::now() + COLLECTING;
        let me = std::process::id();
        loop {
            let mut waiting = false;
            for index in 0..held.len() {
                if held[index].collected {
                    continue;
                }
                let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG;
                match waitid(WaitId::PidFd(held[index].fd.as_fd()), options) {
                    Ok(Some(status)) => {
                        held[index].collected = true;
                        if held[index].pid == self.program {
                            let mut kept =
                                self.status.lock().unwrap_or_else(PoisonError::into_inner);
                            if kept.is_none() {
                                *kept = Exit::of(&status);
                            }
                        }
                    }
                    Err(Errno::CHILD) => {
                        // Not this process's child: its parent is still ending (then it
                        // becomes this process's), or is another's, which collects it.
                        let parent = processes::process(held[index].pid).map(|p| p.ppid);
                        let parent_held = parent
                            .is_some_and(|ppid| held.iter().any(|h| h.pid == ppid && !h.collected));
                        if parent.is_none() || (parent != Some(me) && !parent_held) {
                            held[index].collected = true;
                        } else {
                            waiting = true;
                        }
                    }
                    Ok(None) => waiting = true,
                    Err(_) => held[index].collected = true,
                }
            }
            if !waiting || Instant::now() >= until {
                return;
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

/// `seeds` and everything below them in `all`, each once.
fn below(seeds: Vec<Process>, all: &[Process]) -> Vec<Process> {
    let mut children: HashMap<u32, Vec<Process>> = HashMap::new();
    for process in all {
        children.entry(process.ppid).or_default().push(*process);
    }
    let mut found: HashSet<u32> = seeds.iter().map(|p| p.pid).collect();
    let mut result = seeds;
    let mut next = 0;
    while next < result.len() {
        let pid = result[next].pid;
        next += 1;
        for child in children.get(&pid).map_or(&[][..], Vec::as_slice) {
            if found.insert(child.pid) {
                result.push(*child);
            }
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn process(pid: u32, parent: u32, session: u32) -> Process {
        Process {
            pid,
            ppid: parent,
            group: session,
            session,
            state: b'S',
            cpu_ticks: 0,
            start_time: u64::from(pid),
        }
    }

    #[test]
    fn below_takes_every_descendant_once() {
        let all = [
            process(10, 1, 10),
            process(11, 10, 10),
            process(12, 11, 12),
            process(13, 1, 13),
            process(14, 12, 12),
        ];
        let pids: Vec<u32> = below(vec![all[0]], &all).iter().map(|p| p.pid).collect();
        assert_eq!(pids, [10, 11, 12, 14]);
        assert!(below(Vec::new(), &all).is_empty());
    }

    #[test]
    fn markers_differ_between_runs() {
        let first = new_marker();
        assert!(first.starts_with(&format!("{MARKER}={}.", std::process::id())));
        assert_ne!(first, new_marker());
    }
}
