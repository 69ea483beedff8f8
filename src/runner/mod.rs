//! Running other people's programs, held (Linux): a program runs in a pseudo-terminal of
//! its own, the way `expect` runs one, under limits on its memory, CPU time, file size and
//! processes; it is fed its input a chunk at a time and answered when it waits for the next
//! one, so a crash, a hang or an exit names the input it was answering; and when it ends,
//! everything it started ends with it, `setsid` helpers included, as it does when the referee
//! itself is stopped ([`stop_all`]).
//!
//! ```no_run
//! use power11::runner::{Run, Spec, Status};
//!
//! let folder = std::env::temp_dir(); // a fresh folder for each run, in a real referee
//! let spec = Spec::new(vec!["python3".into(), "student.py".into()], ".", folder);
//! let mut run = Run::start(&spec)?;
//! let first = run.wait_for_input(); // the menu
//! for key in ["e\n", "l\n", "q\n"] {
//!     let chunk = run.send(key.as_bytes());
//!     let answer = run.wait_for_input();
//!     if let Status::Ended(ending) = &answer.status {
//!         println!("after key {chunk}, the program {ending}");
//!         break;
//!     }
//! }
//! run.end_input();
//! run.wait_for_input();
//! let outcome = run.finish();
//! println!("the program {} after {:.2} s", outcome.ending, outcome.seconds);
//! # Ok::<(), power11::runner::RunError>(())
//! ```
//!
//! What it does not hold: the file system (a program reads and writes wherever its user
//! may), the network, other users' processes, and a process that leaves its run on purpose
//! (a new session and a cleared environment, its parent gone before the runner looked); the
//! limits count per process. ARCHITECTURE.md ("Programs run by the referee are held").

mod outcome;
mod run;
mod sandbox;
mod spec;
mod stderr;
mod terminal;
mod tree;
mod watch;

pub use outcome::{Answer, Answering, Ending, Held, Kept, Outcome, Seen, Status, signal_name};
pub use run::Run;
pub use sandbox::{NOBODY, release_groups};
pub use spec::{Limits, Spec};
pub use stderr::STDERR_TAIL;
pub use tree::{MARKER, stop_all};

use crate::files::programs::ProgramError;
use std::path::PathBuf;

/// Why a program could not be started.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The command names no program that can be run, or the folder to run it in is not one.
    #[error(transparent)]
    Program(#[from] ProgramError),
    /// No pseudo-terminal could be made (the system has none free, say).
    #[error("cannot make a pseudo-terminal to run the program in: {}", crate::files::system_words(.0))]
    Terminal(std::io::Error),
    /// No pipe could be made for its standard error.
    #[error("cannot make a pipe for the program's standard error: {}", crate::files::system_words(.0))]
    Pipe(std::io::Error),
    /// The referee could not become the subreaper of what it runs (a kernel before 3.4).
    #[error("cannot hold the processes the program starts (PR_SET_CHILD_SUBREAPER): {}", crate::files::system_words(.0))]
    Subreaper(std::io::Error),
    /// The system refused to start it.
    #[error(
        "cannot start {}: {}{}",
        crate::files::shown(path),
        crate::files::system_words(error),
        start_hint(error, *user)
    )]
    Start {
        /// The program, as resolved.
        path: PathBuf,
        /// The system's error.
        error: std::io::Error,
        /// The user it was to run as, when not the referee's.
        user: Option<u32>,
    },
    /// Its sandbox could not be made (the runner then runs it without one: not seen by
    /// callers of [`Run::start`]).
    #[error("cannot make its sandbox: {0}")]
    Sandbox(String),
}

/// What a refusal to start a program most likely means.
fn start_hint(error: &std::io::Error, user: Option<u32>) -> &'static str {
    match error.raw_os_error() {
        Some(libc::ENOEXEC) => " (a script without a #! line? name its interpreter first)",
        Some(libc::EAGAIN) => " (too many processes: the processes limit)",
        Some(libc::EACCES | libc::ENOENT) if user.is_some() => {
            " (a referee run as root runs programs as nobody: their files and folders must be readable by others)"
        }
        _ => "",
    }
}
