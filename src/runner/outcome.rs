//! What a run gives back: each answer to its input, how it ended, and what it printed.

use std::fmt;
use std::time::Duration;

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The program exited with this code.
    Exited(i32),
    /// A signal ended the program: a crash (`SIGSEGV`, `SIGABRT`), a limit (`SIGXCPU`,
    /// `SIGXFSZ`), or a kill from outside.
    Signal(i32),
    /// It was still running when the runner had waited its time limit, and was ended.
    TimeLimit(Duration),
    /// It printed more than the cap on standard output (in bytes), and was ended.
    OutputCap(usize),
    /// It used more memory than its limit (bytes), the run as a whole where a control group
    /// counted it (shared memory and `/tmp` included), and was ended.
    MemoryLimit(u64),
    /// It was waiting for input again after the end of its input, and was ended at once.
    KeptReading,
    /// It was still running this long after the end of its input (busy, or asleep, not
    /// reading), and was ended: a program that loops for ever once its input fails.
    NoExit(Duration),
    /// The referee ended it before it ended: [`crate::runner::Run::finish`] while it ran, or
    /// [`crate::runner::stop_all`].
    Stopped,
    /// The runner could no longer use the terminal it runs in (the system's words): the run was
    /// ended. Not expected; said rather than hidden.
    Failed(String),
}

impl Ending {
    /// Whether the program ended on its own (exited, or a signal it raised or a limit sent),
    /// rather than being ended by the runner.
    pub fn on_its_own(&self) -> bool {
        matches!(self, Ending::Exited(_) | Ending::Signal(_))
    }
}

/// The name of signal `number` (`SIGSEGV`), if it has one.
pub fn signal_name(number: i32) -> Option<&'static str> {
    const NAMES: &[(i32, &str)] = &[
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGSTKFLT, "SIGSTKFLT"),
        (libc::SIGCHLD, "SIGCHLD"),
        (libc::SIGCONT, "SIGCONT"),
        (libc::SIGSTOP, "SIGSTOP"),
        (libc::SIGTSTP, "SIGTSTP"),
        (libc::SIGTTIN, "SIGTTIN"),
        (libc::SIGTTOU, "SIGTTOU"),
        (libc::SIGURG, "SIGURG"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGVTALRM, "SIGVTALRM"),
        (libc::SIGPROF, "SIGPROF"),
        (libc::SIGWINCH, "SIGWINCH"),
        (libc::SIGIO, "SIGIO"),
        (libc::SIGPWR, "SIGPWR"),
        (libc::SIGSYS, "SIGSYS"),
    ];
    NAMES
        .iter()
        .find(|(n, _)| *n == number)
        .map(|(_, name)| *name)
}

/// What a signal that ended a program most likely means, where it is not a plain crash.
fn signal_meaning(number: i32) -> &'static str {
    match number {
        libc::SIGXCPU => ": its CPU time limit",
        libc::SIGXFSZ => ": its file size limit",
        libc::SIGKILL => ": killed from outside, or by the system short of memory",
        libc::SIGPIPE => ": it wrote to a pipe nobody reads",
        _ => "",
    }
}

impl fmt::Display for Ending {
    /// The ending as the end of a sentence that starts with "the program": `exited with
    /// code 0`, `was ended by signal 11 (SIGSEGV)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Exited(code) => write!(f, "exited with code {code}"),
            Ending::Signal(number) => match signal_name(*number) {
                Some(name) => write!(
                    f,
                    "was ended by signal {number} ({name}{})",
                    signal_meaning(*number)
                ),
                None => write!(f, "was ended by signal {number}"),
            },
            Ending::TimeLimit(limit) => write!(
                f,
                "was still running after {:.1} s, its time limit, and was ended",
                limit.as_secs_f64()
            ),
            Ending::OutputCap(cap) => write!(
                f,
                "printed more than {} and was ended",
                in_bytes(*cap as u64)
            ),
            Ending::MemoryLimit(bytes) => write!(
                f,
                "used more than its memory limit of {} and was ended",
                in_bytes(*bytes)
            ),
            Ending::KeptReading => write!(f, "did not exit at the end of its input"),
            Ending::NoExit(grace) => write!(
                f,
                "was still running {:.1} s after the end of its input, and was ended",
                grace.as_secs_f64()
            ),
            Ending::Stopped => write!(f, "was stopped by the referee"),
            Ending::Failed(words) => {
                write!(
                    f,
                    "could not be run to its end: the terminal failed: {words}"
                )
            }
        }
    }
}

/// A size in words: `512 bytes`, `64 KiB`, `1.5 MiB`, `1 GiB`.
fn in_bytes(bytes: u64) -> String {
    match bytes {
        b if b < 1 << 10 => format!("{b} bytes"),
        b if b < 1 << 20 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b if b < 1 << 20 => format!("{:.1} KiB", b as f64 / 1024.0),
        b if b < 1 << 30 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b < 1 << 30 => format!("{:.1} MiB", b as f64 / f64::from(1 << 20)),
        b if b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b => format!("{:.1} GiB", b as f64 / f64::from(1 << 30)),
    }
}

/// What held a run besides its limits: its sandbox, and how its memory was counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Held {
    /// Why it had no sandbox, if it had none (user namespaces refused, or not asked for): it
    /// then read and wrote whatever its user may, and saw the referee's processes.
    pub no_sandbox: Option<String>,
    /// What its sandbox could not have (the system's `/proc` shown, no memory control group).
    pub notes: Vec<String>,
    /// Whether its memory was counted for the run as a whole by a control group (shared
    /// memory, `/tmp` and `/dev/shm` included), rather than per process.
    pub memory_group: bool,
    /// The most memory the run used at once, where its control group says.
    pub peak_memory: Option<u64>,
    /// The user it ran as, when not the referee's (`nobody` for a referee run as root).
    pub user: Option<u32>,
}

/// Which of its input a program was answering when it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answering {
    /// None yet: it ended before reading any.
    Nothing,
    /// The chunk of this index (the count of [`crate::runner::Run::send`]s before it, from
    /// 0): the last one it had started to read.
    Chunk(usize),
    /// The end of its input ([`crate::runner::Run::end_input`]), read after every chunk.
    EndOfInput,
}

/// What is kept of a stream that may be longer than its cap: its first part, its last part,
/// and how long it was.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kept {
    /// Its first bytes (all of it, when it fit in the cap).
    pub head: Vec<u8>,
    /// Its last bytes, after a gap of at least one byte (empty when it fit).
    pub tail: Vec<u8>,
    /// How many bytes it had in all.
    pub total: u64,
}

impl Kept {
    /// How many bytes between the head and the tail were counted but not kept.
    pub fn left_out(&self) -> u64 {
        self.total - self.head.len() as u64 - self.tail.len() as u64
    }

    /// Its end: the tail where there is one, else the end of the head, at most `bytes` long
    /// (for a report that shows what a program said last).
    pub fn end(&self, bytes: usize) -> &[u8] {
        let last = if self.tail.is_empty() {
            &self.head
        } else {
            &self.tail
        };
        &last[last.len().saturating_sub(bytes)..]
    }

    /// It as text, a gap marked with the bytes left out.
    pub fn to_text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        if self.left_out() > 0 {
            text.push_str("\n[... ");
            text.push_str(&in_bytes(self.left_out()));
            text.push_str(" left out ...]\n");
            text.push_str(&String::from_utf8_lossy(&self.tail));
        }
        text
    }
}

/// How a run ended, and what it printed: what [`crate::runner::Run::finish`] returns.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How it ended.
    pub ending: Ending,
    /// The input it was answering then.
    pub answering: Answering,
    /// Seconds from its start to its end (the caller's time between calls included).
    pub seconds: f64,
    /// Seconds it spent answering, as counted against its time limit.
    pub answering_seconds: f64,
    /// Its time limit at its end, in seconds: the spec's, and its time for each chunk sent.
    pub time_limit: f64,
    /// Its standard output, up to the cap.
    pub stdout: Vec<u8>,
    /// Its standard error: head, tail and total.
    pub stderr: Kept,
    /// How many processes it left (processes of the run other than the program, still
    /// there at its end), all ended.
    pub leftovers: usize,
    /// What held it besides its limits.
    pub held: Held,
    /// The command it ran: the program as found, its arguments as typed.
    pub command: Vec<String>,
}

/// How the runner saw that a program waits for its next input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// A thread of it was blocked reading its terminal, with nothing left to read.
    Reading,
    /// It printed nothing and used no CPU for the quiet period (a program that polls its
    /// terminal, or one `/proc` says nothing of).
    Settled,
}

/// Where a program stands after it answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It waits for its next input.
    Waiting(Seen),
    /// It ended: [`crate::runner::Run::finish`] tells the rest.
    Ended(Ending),
}

/// A program's answer to its input: what [`crate::runner::Run::wait_for_input`] returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// What it printed since the previous answer.
    pub output: Vec<u8>,
    /// Whether it waits for more, or ended.
    pub status: Status,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endings_read_as_the_end_of_a_sentence() {
        assert_eq!(Ending::Exited(3).to_string(), "exited with code 3");
        assert_eq!(
            Ending::Signal(11).to_string(),
            "was ended by signal 11 (SIGSEGV)"
        );
        assert_eq!(
            Ending::Signal(24).to_string(),
            "was ended by signal 24 (SIGXCPU: its CPU time limit)"
        );
        assert_eq!(Ending::Signal(77).to_string(), "was ended by signal 77");
        assert_eq!(
            Ending::TimeLimit(Duration::from_secs(5)).to_string(),
            "was still running after 5.0 s, its time limit, and was ended"
        );
        assert_eq!(
            Ending::OutputCap(64 << 20).to_string(),
            "printed more than 64 MiB and was ended"
        );
        assert_eq!(
            Ending::KeptReading.to_string(),
            "did not exit at the end of its input"
        );
    }

    #[test]
    fn kept_text_marks_its_gap() {
        let whole = Kept {
            head: b"all of it".to_vec(),
            tail: Vec::new(),
            total: 9,
        };
        assert_eq!(whole.to_text(), "all of it");
        assert_eq!(whole.end(4), b"f it");
        let cut = Kept {
            head: b"first".to_vec(),
            tail: b"last".to_vec(),
            total: 2048 + 9,
        };
        assert_eq!(cut.left_out(), 2048);
        assert_eq!(cut.to_text(), "first\n[... 2 KiB left out ...]\nlast");
        assert_eq!(cut.end(10), b"last");
    }
}
