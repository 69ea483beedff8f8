//! What a run is: the command, where it was typed and where it runs, its environment, and
//! the limits it runs under.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// The limits a program and every process it starts run under, each set in the process before
/// the program starts (`setrlimit`, inherited by its children, never raised: each is its hard
/// limit too). `None` leaves the referee's own limit. Each counts per process, not for the
/// run as a whole: a program that starts many processes may use each limit in each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of writable private memory a process may map (`RLIMIT_DATA`: its heap, `malloc`s
    /// and anonymous mappings): what it asks to use, not the address space it reserves, so a
    /// Java virtual machine's gigabytes of reserved heap do not count and a 3 GiB allocation
    /// is refused (Python's `MemoryError`, C's `malloc` returning `NULL`) when it is made.
    /// Java is told the same figure (`-XX:MaxRAM` in `JAVA_TOOL_OPTIONS`) so that it sizes
    /// its heap to it as it would in a container. Default 1 GiB.
    pub memory: Option<u64>,
    /// Seconds of CPU time a process may use (`RLIMIT_CPU`): `SIGXCPU` then, `SIGKILL` a second
    /// later. Default 300 s.
    pub cpu: Option<u64>,
    /// Bytes a process may write to one file (`RLIMIT_FSIZE`): `SIGXFSZ` past it. Default
    /// 256 MiB, the most of a save the referee reads.
    pub file_size: Option<u64>,
    /// Processes and threads the run may add to those its user has when it starts
    /// (`RLIMIT_NPROC` counts all of a user's; the kernel does not apply it to root). A brake
    /// on a fork loop, which the runner also outruns when it ends a run. Default 256.
    pub processes: Option<u64>,
}

impl Limits {
    /// No limit at all: the referee's own limits.
    pub const NONE: Limits = Limits {
        memory: None,
        cpu: None,
        file_size: None,
        processes: None,
    };
}

impl Default for Limits {
    /// The limits a Power-11 program needs with room to spare, and a program gone wrong does
    /// not get past: 1 GiB of memory (a Java virtual machine starts in half of it, measured in
    /// measurements/runner.md), 300 s of CPU time (ten times the longest play to a win the
    /// referee expects), files of 256 MiB and 256 more processes and threads.
    fn default() -> Limits {
        Limits {
            memory: Some(1 << 30),
            cpu: Some(300),
            file_size: Some(256 << 20),
            processes: Some(256),
        }
    }
}

/// A program to run: what [`crate::runner::Run::start`] takes.
#[derive(Clone, Debug)]
pub struct Spec {
    /// The command, split as a shell splits it. A relative path in it (the program `./theirs`,
    /// an argument `student.py`, the `.` of `java -cp . Main`) means the file or folder in
    /// `origin` and is made absolute when one is there; words starting with `-` stay.
    pub words: Vec<String>,
    /// The folder the command was typed in (the referee's own working folder).
    pub origin: PathBuf,
    /// The folder it runs in: its working folder and `HOME`. The caller makes it (fresh for
    /// each run) and keeps it for what the program leaves there.
    pub folder: PathBuf,
    /// Environment added to what a program gets of the referee's (its search path,
    /// language, and where its toolchains are: nothing else of the grader's), after `HOME`,
    /// `PWD` and `TERM=dumb`, which it may override.
    pub env: Vec<(OsString, OsString)>,
    /// Whether it runs in a sandbox of its own where the system allows one (the default): its
    /// own process ids, mounts, IPC and no network, the grader's files out of its sight
    /// (`runner::sandbox`). Where none can be had it runs held by its limits alone, and its
    /// [`crate::runner::Held`] says why.
    pub sandbox: bool,
    /// Folders its sandbox covers besides the homes, `/tmp` and `/run` (a class's folder, so
    /// that no program sees another's).
    pub covered: Vec<PathBuf>,
    /// Folders and files its sandbox shows it read-only besides `origin`, its program's
    /// folder and its toolchains (a submission's own folder inside a covered class).
    pub shown: Vec<PathBuf>,
    /// The limits it runs under.
    pub limits: Limits,
    /// The longest the runner waits on it, summed over the run (the caller's own time between
    /// calls is not counted): then it is ended ([`crate::runner::Ending::TimeLimit`]).
    pub time_limit: Duration,
    /// Time added to `time_limit` for each chunk of input sent: a long script allows a slow
    /// program more time in all (none unless set).
    pub per_key: Duration,
    /// The longest the runner waits for one answer, if less than the limit left: a program
    /// silent this long is hung however much of its time is left (no such limit unless set).
    pub key_limit: Option<Duration>,
    /// The most of its standard output kept: past it, it is ended
    /// ([`crate::runner::Ending::OutputCap`]).
    pub stdout_cap: usize,
    /// The most of its standard error kept (its first part and its last
    /// [`crate::runner::STDERR_TAIL`] bytes); the rest is read and counted.
    pub stderr_cap: usize,
    /// How long it may go on after the end of its input (to print its last words and exit)
    /// before it is ended ([`crate::runner::Ending::NoExit`]): many programs loop for ever
    /// once their input fails, and should not cost their whole time limit.
    pub end_grace: Duration,
    /// How long a program that cannot be seen reading its terminal (it polls, or `/proc` does
    /// not say) must print nothing and use no CPU to be taken as waiting for input.
    pub settle: Duration,
}

impl Spec {
    /// The time limit of a run unless set: the referee's `--timeout` default.
    pub const DEFAULT_TIME_LIMIT: Duration = Duration::from_secs(10);
    /// The standard output kept unless set: 64 MiB, a million boards.
    pub const DEFAULT_STDOUT_CAP: usize = 64 << 20;
    /// The standard error kept unless set: 64 KiB.
    pub const DEFAULT_STDERR_CAP: usize = 64 << 10;
    /// How long a program may go on after the end of its input unless set: 1 s.
    pub const DEFAULT_END_GRACE: Duration = Duration::from_secs(1);
    /// The quiet period unless set: 100 ms.
    pub const DEFAULT_SETTLE: Duration = Duration::from_millis(100);

    /// `words` typed in `origin`, to run in `folder`, with the default limits, time limit,
    /// caps and quiet period.
    pub fn new(words: Vec<String>, origin: impl Into<PathBuf>, folder: impl Into<PathBuf>) -> Spec {
        Spec {
            words,
            origin: origin.into(),
            folder: folder.into(),
            env: Vec::new(),
            sandbox: true,
            covered: Vec::new(),
            shown: Vec::new(),
            limits: Limits::default(),
            time_limit: Spec::DEFAULT_TIME_LIMIT,
            per_key: Duration::ZERO,
            key_limit: None,
            stdout_cap: Spec::DEFAULT_STDOUT_CAP,
            stderr_cap: Spec::DEFAULT_STDERR_CAP,
            settle: Spec::DEFAULT_SETTLE,
            end_grace: Spec::DEFAULT_END_GRACE,
        }
    }
}
