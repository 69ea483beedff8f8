//! Whether a program waits for its next input. A program waits when one of its threads is
//! blocked reading its terminal with nothing left to read there, none of its threads is at
//! work (a reader back in `read` while another thread works on what it read has not
//! answered), no process of it started unseen, and, unless it has printed since its input,
//! none of its threads is in a timed wait (it may wake to do the work). `/proc/PID/task/TID/
//! syscall` names the call (`read`, `readv`, `pread64`, ...) and its descriptor (of a thread
//! asleep in it throughout the look: a thread taken off its CPU inside the call has input to
//! handle), and `/proc/PID/fd/N` says where that leads. A program that waits otherwise (it
//! polls its terminal, or `/proc` does not say) is taken as waiting once it has printed
//! nothing, run no thread and used no CPU for a quiet period (ten of them if it sleeps having
//! printed nothing since its input: it may be pausing before it answers).

use super::tree::Tree;
use crate::files::processes::{self, Call, Process};
use std::path::Path;
use std::time::{Duration, Instant};

/// How often the program's descendants are looked for again (a look reads every process's
/// `stat`): a program that has its child read the terminal is seen waiting at most this late.
const LOOK_AGAIN: Duration = Duration::from_millis(10);

/// The system calls that read a descriptor named by their first argument.
const READS: &[i64] = &[
    libc::SYS_read,
    libc::SYS_readv,
    libc::SYS_pread64,
    libc::SYS_preadv,
    libc::SYS_preadv2,
];

/// The sleep calls: a program asleep in one will wake by itself, most likely to go on.
const SLEEPS: &[i64] = &[libc::SYS_nanosleep, libc::SYS_clock_nanosleep];

/// How many quiet periods a program that sleeps, having printed nothing since its input, must
/// be quiet for: one that pauses before it answers (for effect) is waited for up to this many.
const SLEEPER_PERIODS: u32 = 10;

/// What a look at the program found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Look {
    /// A thread of it is blocked reading its terminal.
    Reading,
    /// Nothing of it has moved for the quiet period.
    Settled,
    /// It is at work (or has not been quiet long enough).
    Busy,
}

/// What the runner knows of the program between looks.
#[derive(Debug)]
pub(super) struct Watch {
    settle: Duration,
    /// The quiet period asked of it at the last look (`settle`, or longer for a sleeper).
    quiet: Duration,
    /// The program and its descendants at the last look for them.
    known: Vec<u32>,
    looked: Option<Instant>,
    /// The process id the machine gave last, at the last look for descendants: a process
    /// started since (a child doing the work) is looked for before a wait is believed.
    last_created: Option<u32>,
    /// When the program last printed, ran or used CPU.
    moved: Instant,
    cpu: u64,
    /// Whether its memory is counted at each look for descendants (no control group does).
    count_memory: bool,
    /// The memory its processes used at the last count: their own and the shared memory they
    /// map, in bytes.
    memory: u64,
}

impl Watch {
    /// A watch over a program just started, quiet after `settle`, counting its memory if
    /// `count_memory`.
    pub(super) fn new(settle: Duration, now: Instant, count_memory: bool) -> Watch {
        Watch {
            count_memory,
            memory: 0,
            settle,
            quiet: settle,
            known: Vec::new(),
            looked: None,
            last_created: None,
            moved: now,
            cpu: 0,
        }
    }

    /// The memory the program's processes used at the last count (0 where not counted).
    pub(super) fn memory(&self) -> u64 {
        self.memory
    }

    /// How long the program had to be quiet, at the last look, to be taken as waiting.
    pub(super) fn quiet(&self) -> Duration {
        self.quiet
    }

    /// Notes that the program printed (or was given input) at `now`.
    pub(super) fn moved(&mut self, now: Instant) {
        self.moved = now;
    }

    /// Looks whether the program (its input all read) waits for input, its terminal being
    /// `terminal`; `printed` says whether it has printed since it was given its input.
    pub(super) fn look(
        &mut self,
        tree: &Tree,
        terminal: &Path,
        now: Instant,
        printed: bool,
    ) -> Look {
        let created = processes::last_created();
        if created != self.last_created
            || self
                .looked
                .is_none_or(|at| now.duration_since(at) >= LOOK_AGAIN)
        {
            self.last_created = created;
            self.look_for_descendants(tree, now);
        }
        let mut running = false;
        let mut reading = false;
        let mut timed = false;
        let mut sleeping = false;
        for &pid in &self.known {
            for tid in processes::threads(pid) {
                match processes::call(pid, tid) {
                    Some(Call::Running) => running = true,
                    Some(Call::Blocked { number, first, .. })
                        if READS.contains(&number) && reads_terminal(pid, first, terminal) =>
                    {
                        reading = true;
                    }
                    Some(Call::Blocked {
                        number,
                        timed: true,
                        ..
                    }) => {
                        timed = true;
                        sleeping |= SLEEPS.contains(&number);
                    }
                    _ => {}
                }
            }
        }
        // A reader waiting while another thread works on what it read has not answered yet,
        // nor has one whose other thread may wake to do that work (it sleeps, or polls a
        // queue) while nothing is printed; a process started during the look is looked for.
        if reading && !running && (printed || !timed) {
            let created = processes::last_created();
            if created == self.last_created {
                return Look::Reading;
            }
            // Processes were started meanwhile, most likely not the program's: look again.
            let looked = self.known.clone();
            self.last_created = created;
            self.look_for_descendants(tree, now);
            if self.known == looked {
                return Look::Reading;
            }
        }
        if running {
            self.moved = now;
        }
        // A program asleep with nothing printed yet is more likely to wake and answer than
        // to be polling its terminal: it gets longer.
        self.quiet = if sleeping && !printed {
            self.settle * SLEEPER_PERIODS
        } else {
            self.settle
        };
        if now.duration_since(self.moved) >= self.quiet {
            Look::Settled
        } else {
            Look::Busy
        }
    }

    /// Finds the program's descendants (and remembers them as the run's), and notes whether
    /// any of them is running or waiting on the disk, came or went, or used CPU since the
    /// last look.
    fn look_for_descendants(&mut self, tree: &Tree, now: Instant) {
        let all = processes::processes();
        let tree_now: Vec<Process> = tree.descendants(&all);
        if tree_now.len() > 1 {
            tree.remember(&tree_now[1..]);
        }
        let cpu = tree_now.iter().map(|p| p.cpu_ticks).sum();
        let known: Vec<u32> = tree_now.iter().map(|p| p.pid).collect();
        if cpu != self.cpu
            || known != self.known
            || tree_now.iter().any(|p| matches!(p.state, b'R' | b'D'))
        {
            self.moved = now;
        }
        self.cpu = cpu;
        if self.count_memory {
            self.memory = tree_now
                .iter()
                .filter_map(|p| processes::memory_in_use(p.pid))
                .sum();
        }
        self.known = known;
        if self.known.is_empty() {
            self.known.push(tree.program());
        }
        self.looked = Some(now);
    }
}

/// Whether descriptor `fd` of process `pid` is the terminal `terminal` (or `/dev/tty`, a
/// process's own terminal, which in a run is that one).
fn reads_terminal(pid: u32, fd: u64, terminal: &Path) -> bool {
    processes::descriptor_target(pid, fd)
        .is_some_and(|target| target == terminal || target == Path::new("/dev/tty"))
}
