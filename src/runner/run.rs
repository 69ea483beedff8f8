//! A run: a program started in its terminal under its limits, fed its input a chunk at a
//! time, answered chunk by chunk, and ended with everything it started.

use super::RunError;
use super::outcome::{Answer, Answering, Ending, Held, Outcome, Seen, Status};
use super::sandbox;
use super::spec::{Limits, Spec};
use super::stderr::Drain;
use super::terminal::Terminal;
use super::tree::{self, Exit, Tree};
use super::watch::{Look, Watch};
use crate::files::cgroup::MemoryGroup;
use crate::files::processes;
use crate::files::programs::{ProgramError, Resolved, resolve};
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Resource, Rlimit};
use std::cell::Cell;
use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The shortest and longest pause between two looks at a program at work.
const FIRST_PAUSE: Duration = Duration::from_micros(50);
const LONGEST_PAUSE: Duration = Duration::from_millis(5);
/// How long standard error is read after the run's processes are ended, for a writer
/// outside the run to let go of it.
const STDERR_PATIENCE: Duration = Duration::from_secs(1);

/// A program running in a pseudo-terminal under its limits: fed with [`Run::send`], answered
/// with [`Run::wait_for_input`], ended with everything it started by [`Run::finish`] (or when
/// dropped).
#[derive(Debug)]
pub struct Run {
    terminal: Terminal,
    tree: Arc<Tree>,
    stderr: Option<Drain>,
    watch: Watch,
    started: Instant,
    time_limit: Duration,
    per_key: Duration,
    key_limit: Option<Duration>,
    /// When its last input was sent (its start, before any): one answer's limit runs from
    /// there, however many waits the caller makes for it.
    sent_at: Instant,
    /// When it had read all of its input, its end too, once it has (a program reading the
    /// end of its input has answered its last key: its grace runs from there).
    input_ended_at: Option<Cell<Option<Instant>>>,
    /// How long it may go on after the end of its input before it is ended.
    end_grace: Duration,
    /// The time the runner has waited on the program so far.
    waited: Duration,
    stdout_cap: usize,
    /// Its standard output, up to the cap.
    stdout: Vec<u8>,
    /// How much of it the answers have given.
    answered: usize,
    /// Bytes of input sent after each chunk (the program reads these bytes, whatever bytes
    /// the terminal is sent for them).
    chunk_ends: Vec<u64>,
    /// Bytes the terminal was never given: the run ended while they waited for room.
    unsent: u64,
    input_ended: bool,
    ending: Option<Ending>,
    answering: Answering,
    leftovers: usize,
    ended_at: Option<Instant>,
    /// The memory limit the runner watches itself (no control group holds it), if any.
    memory_watch: Option<u64>,
    /// The sandbox's side in the referee (its control group), if it has one.
    sandbox: Option<sandbox::Parent>,
    held: Held,
    /// The command it runs: the program as found, its arguments as typed.
    command: Vec<String>,
}

/// The limits as `setrlimit` takes them, each at most the referee's own hard limit (which a
/// process may not raise), for a program run as `user` (the referee's own when `None`).
fn rlimits(limits: &Limits, user: Option<u32>) -> Vec<(Resource, Rlimit)> {
    let capped = |resource: Resource, soft: u64, hard: u64| {
        let most = rustix::process::getrlimit(resource).maximum;
        let cap = |value: u64| Some(most.map_or(value, |most| value.min(most)));
        (
            resource,
            Rlimit {
                current: cap(soft),
                maximum: cap(hard),
            },
        )
    };
    let mut set = vec![capped(Resource::Core, 0, 0)];
    if let Some(bytes) = limits.memory {
        set.push(capped(Resource::Data, bytes, bytes));
    }
    if let Some(seconds) = limits.cpu {
        set.push(capped(Resource::Cpu, seconds, seconds + 1));
    }
    if let Some(bytes) = limits.file_size {
        set.push(capped(Resource::Fsize, bytes, bytes));
    }
    if let Some(more) = limits.processes {
        let user = user.unwrap_or_else(|| rustix::process::getuid().as_raw());
        let tasks = processes::tasks_of_user(user) + more;
        set.push(capped(Resource::Nproc, tasks, tasks));
    }
    set
}

/// `JAVA_TOOL_OPTIONS` that size a Java virtual machine's memory to `memory` bytes, before
/// any the program is given (which win).
fn java_options(memory: u64, given: Option<&OsStr>) -> OsString {
    let mut options = OsString::from(format!("-XX:MaxRAM={memory}"));
    if let Some(given) = given.filter(|given| !given.is_empty()) {
        options.push(" ");
        options.push(given);
    }
    options
}

/// The last value `env` gives `name`.
fn variable(env: &[(OsString, OsString)], name: &str) -> Option<OsString> {
    env.iter()
        .rev()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
}

impl Run {
    /// Starts `spec`'s program in a new pseudo-terminal of its own (its standard input and
    /// output; standard error on a pipe read to its end), in its folder, under its limits, in
    /// a session of its own (so the referee's terminal signals do not reach it), with
    /// `HOME` and `PWD` its folder, `TERM=dumb`, the run's marker and only the kept part of
    /// the referee's environment, and in a sandbox of its own where the system allows one
    /// (`spec.sandbox`): where it refuses one, the run goes on without, and says why.
    pub fn start(spec: &Spec) -> Result<Run, RunError> {
        tree::become_subreaper().map_err(RunError::Subreaper)?;
        let env = sandbox::environment();
        let path_var = spec
            .env
            .iter()
            .rev()
            .find(|(key, _)| key == "PATH")
            .map(|(_, value)| value.clone())
            .or_else(|| variable(&env, "PATH"));
        let resolved = resolve(&spec.words, &spec.origin, &spec.folder, path_var.as_deref())?;
        let no_sandbox = if spec.sandbox {
            sandbox::unavailable()
        } else {
            Some("not asked for".to_string())
        };
        if no_sandbox.is_none() {
            match Run::start_held(spec, &resolved, &env, None) {
                Err(RunError::Sandbox(why)) => {
                    return Run::start_held(spec, &resolved, &env, Some(&why));
                }
                other => return other,
            }
        }
        Run::start_held(spec, &resolved, &env, no_sandbox.as_deref())
    }

    /// What holds a run just started, from what its sandbox's child said (`parent`): a
    /// failure of the sandbox is [`RunError::Sandbox`], for the caller to start without one.
    fn held(
        no_sandbox: Option<&str>,
        user: Option<u32>,
        parent: Option<sandbox::Parent>,
    ) -> Result<(Held, Option<sandbox::Parent>), RunError> {
        let mut held = Held {
            no_sandbox: no_sandbox.map(str::to_string),
            user,
            ..Held::default()
        };
        let Some(mut parent) = parent else {
            return Ok((held, None));
        };
        let said = parent.said();
        if let Some(why) = said.failed {
            return Err(RunError::Sandbox(why));
        }
        held.notes = said.notes;
        held.memory_group = parent.group().is_some();
        Ok((held, Some(parent)))
    }

    /// The command that starts `resolved` with `env` (the kept part of the referee's), the
    /// run's own variables and `spec`'s, as `user` (when not the referee's).
    fn command(
        spec: &Spec,
        resolved: &Resolved,
        env: &[(OsString, OsString)],
        marker: &str,
        user: Option<u32>,
    ) -> Command {
        let (marker_name, marker_value) = marker.split_once('=').expect("NAME=value");
        let mut command = Command::new(&resolved.program);
        command
            .args(&resolved.args)
            .current_dir(&resolved.folder)
            .env_clear()
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("HOME", &resolved.folder)
            .env("PWD", &resolved.folder)
            .env("TERM", "dumb");
        if user.is_some() {
            command.env("USER", "nobody").env("LOGNAME", "nobody");
        }
        command.envs(spec.env.iter().map(|(k, v)| (k, v)));
        if let Some(memory) = spec.limits.memory {
            let given = variable(&spec.env, "JAVA_TOOL_OPTIONS");
            command.env("JAVA_TOOL_OPTIONS", java_options(memory, given.as_deref()));
        }
        command.env(marker_name, marker_value);
        command
    }

    /// [`Run::start`] with `resolved`, `env` and a sandbox unless `no_sandbox` says why not.
    fn start_held(
        spec: &Spec,
        resolved: &Resolved,
        env: &[(OsString, OsString)],
        no_sandbox: Option<&str>,
    ) -> Result<Run, RunError> {
        let terminal = Terminal::open().map_err(RunError::Terminal)?;
        let (stderr_reader, stderr_writer) = std::io::pipe().map_err(RunError::Pipe)?;
        let marker = tree::new_marker();
        // The files of the folder the command was typed in, by the names typed (the grader's
        // home or `/tmp`: only those the command names).
        let only = sandbox::too_wide(&resolved.origin).then_some(resolved.named.as_slice());
        crate::files::programs::link_origin(&resolved.folder, &resolved.origin, only).map_err(
            |error| {
                RunError::Program(ProgramError::Folder {
                    path: resolved.folder.clone(),
                    problem: crate::files::system_words(&error),
                })
            },
        )?;
        let (mut child, parent) = match no_sandbox {
            None => {
                let (child, parent) = sandbox::prepare(&sandbox::Setup {
                    origin: &resolved.origin,
                    program: &resolved.program,
                    args: &resolved.args,
                    named: &resolved.named,
                    folder: &resolved.folder,
                    covered: &spec.covered,
                    shown: &spec.shown,
                    env,
                    memory: spec.limits.memory,
                    scratch: spec.limits.file_size.unwrap_or(256 << 20),
                })
                .map_err(RunError::Pipe)?;
                (Some(child), Some(parent))
            }
            Some(_) => (None, None),
        };
        let user = parent.as_ref().and_then(|parent| parent.user);
        let mut command = Run::command(spec, resolved, env, &marker, user);
        let side = || terminal.program_side().map_err(RunError::Terminal);
        command
            .stdin(Stdio::from(side()?))
            .stdout(Stdio::from(side()?))
            .stderr(Stdio::from(stderr_writer));
        let limits = rlimits(&spec.limits, user);
        // SAFETY: the closure runs in the child between fork and exec, where only
        // async-signal-safe calls are allowed: it makes system calls (rustix's, straight to
        // the kernel, and the sandbox's) on values prepared before the fork, and allocates
        // nothing.
        unsafe {
            command.pre_exec(move || {
                rustix::process::setsid()?;
                // Standard input is the terminal: make it the new session's own.
                rustix::process::ioctl_tiocsctty(std::os::fd::BorrowedFd::borrow_raw(0))?;
                for (resource, limit) in &limits {
                    rustix::process::setrlimit(*resource, *limit)?;
                }
                match child.as_mut() {
                    Some(child) => child.enter(),
                    None => Ok(()),
                }
            });
        }
        let refused = |error| RunError::Start {
            path: resolved.program.clone(),
            error,
            user,
        };
        let started = tree::start(
            &marker,
            parent.is_some(),
            || command.spawn().map(|child| child.id()).map_err(refused),
            refused,
        );
        // The referee's copies of the program's terminal side and of the pipe's writing end
        // close here: standard error ends when the run's processes have all closed it.
        drop(command);
        let (held, group) = Run::held(no_sandbox, user, parent)?;
        let tree = started?;
        let now = Instant::now();
        let memory_watch = spec.limits.memory.filter(|_| !held.memory_group);
        Ok(Run {
            terminal,
            tree,
            stderr: Some(Drain::start(stderr_reader, spec.stderr_cap)),
            watch: Watch::new(spec.settle, now, memory_watch.is_some()),
            memory_watch,
            sandbox: group,
            held,
            command: std::iter::once(resolved.program.as_os_str())
                .chain(resolved.args.iter().map(OsString::as_os_str))
                .map(|word| word.to_string_lossy().into_owned())
                .collect(),
            started: now,
            time_limit: spec.time_limit,
            per_key: spec.per_key,
            key_limit: spec.key_limit,
            sent_at: now,
            input_ended_at: None,
            end_grace: spec.end_grace,
            waited: Duration::ZERO,
            stdout_cap: spec.stdout_cap,
            stdout: Vec::new(),
            answered: 0,
            chunk_ends: Vec::new(),
            unsent: 0,
            input_ended: false,
            ending: None,
            answering: Answering::Nothing,
            leftovers: 0,
            ended_at: None,
        })
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.tree.program()
    }

    /// The entry (`POWER11_RUN=PID.N`) in the environment of every process of this run, which
    /// no process of another run carries.
    pub fn marker(&self) -> &str {
        std::str::from_utf8(self.tree.marker()).expect("made from a String")
    }

    /// How the run ended, if it has.
    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    /// Sends `input` (a key and its newline, say) to the program as it would be typed, every
    /// byte as it is (a line longer than a terminal holds too), and returns the chunk's index
    /// (0 for the first). Waits only while the terminal is full (the program does not read),
    /// and at most until its time is up. After the run has ended, or its input was ended,
    /// nothing is sent (the index still counts).
    pub fn send(&mut self, input: &[u8]) -> usize {
        self.sent_at = Instant::now();
        let index = self.chunk_ends.len();
        let before = self.chunk_ends.last().copied().unwrap_or(0);
        if self.ending.is_none() && !self.input_ended {
            self.chunk_ends.push(before + input.len() as u64);
            let bytes = self.terminal.encode(input);
            self.feed(&bytes);
        } else {
            self.chunk_ends.push(before);
        }
        index
    }

    /// Ends the program's input, as `^D` at the start of a line does on a terminal: its next
    /// read returns nothing. A program that then waits for input again is ended at once
    /// ([`Ending::KeptReading`]) by the next [`Run::wait_for_input`].
    pub fn end_input(&mut self) {
        if self.ending.is_none() && !self.input_ended {
            self.input_ended = true;
            self.input_ended_at = Some(Cell::new(None));
            let bytes = self.terminal.end_of_input();
            self.feed(&bytes);
        }
    }

    /// Waits until the program waits for its next input (it has read everything sent, and is
    /// blocked reading its terminal, or has been quiet for the spec's `settle`), or has ended
    /// (exited, killed by a signal, past its time limit or output cap, waiting again after the
    /// end of its input, or stopped), and returns what it printed since the last answer.
    pub fn wait_for_input(&mut self) -> Answer {
        let begun = Instant::now();
        let mut pause = FIRST_PAUSE;
        let status = loop {
            if let Some(ending) = &self.ending {
                break Status::Ended(ending.clone());
            }
            let now = Instant::now();
            if self.pump() {
                self.watch.moved(now);
                pause = FIRST_PAUSE;
                continue;
            }
            if let Some(ending) = self.check_end(begun) {
                self.end_with(ending);
                continue;
            }
            if self.terminal.input_pending() {
                self.watch.moved(now);
            } else {
                let printed = self.stdout.len() > self.answered;
                let seen = match self
                    .watch
                    .look(&self.tree, self.terminal.name(), now, printed)
                {
                    Look::Reading => Some(Seen::Reading),
                    Look::Settled => Some(Seen::Settled),
                    Look::Busy => None,
                };
                if let Some(seen) = seen {
                    // What it printed before it began to wait is all there to read now.
                    self.pump();
                    if self.ending.is_some() {
                        continue;
                    }
                    if self.input_ended {
                        self.end_with(Ending::KeptReading);
                        continue;
                    }
                    break Status::Waiting(seen);
                }
            }
            self.pause(begun, pause, PollFlags::IN);
            pause = (pause * 2).min(LONGEST_PAUSE);
        };
        // A program seen waiting by its quiet period sat quiet for it: that is not answering.
        let quiet = match status {
            Status::Waiting(Seen::Settled) => self.watch.quiet(),
            _ => Duration::ZERO,
        };
        self.waited += begun.elapsed().saturating_sub(quiet);
        let output = self.stdout[self.answered..].to_vec();
        self.answered = self.stdout.len();
        Answer { output, status }
    }

    /// As [`Run::wait_for_input`], for a program seen waiting only by its quiet period that
    /// may still answer (its answer so far lacks what the caller expects): waits another
    /// quiet period from now, or until it prints, is seen reading, or ends. Each call counts
    /// against its time limits as any wait does, the limit on one answer from this call.
    pub fn wait_for_more(&mut self) -> Answer {
        self.watch.moved(Instant::now());
        self.wait_for_input()
    }

    /// Waits until the run ends (it exits or is killed, or passes its time limit or output
    /// cap), however long it is quiet or waits for input: a build, which is not answering
    /// keys. Returns what it printed since the last answer.
    pub fn wait_for_exit(&mut self) -> Answer {
        let begun = Instant::now();
        let mut pause = FIRST_PAUSE;
        let ending = loop {
            if let Some(ending) = &self.ending {
                break ending.clone();
            }
            if self.pump() {
                pause = FIRST_PAUSE;
                continue;
            }
            if let Some(ending) = self.check_end(begun) {
                self.end_with(ending);
                continue;
            }
            self.pause(begun, pause, PollFlags::IN);
            pause = (pause * 4).min(LONGEST_PAUSE * 10);
        };
        self.waited += begun.elapsed();
        let output = self.stdout[self.answered..].to_vec();
        self.answered = self.stdout.len();
        Answer {
            output,
            status: Status::Ended(ending),
        }
    }

    /// Ends the run, if it has not ended ([`Ending::Stopped`]), with every process of it, and
    /// returns how it went.
    pub fn finish(mut self) -> Outcome {
        if self.ending.is_none() {
            self.end_with(Ending::Stopped);
        }
        let stderr = self
            .stderr
            .take()
            .map(|drain| drain.finish(STDERR_PATIENCE))
            .unwrap_or_default();
        let ended_at = self.ended_at.unwrap_or_else(Instant::now);
        let mut held = self.held.clone();
        if let Some(sandbox) = &mut self.sandbox {
            // What its namespace's first process found still running when the program ended
            // (and the namespace's end ended).
            self.leftovers += sandbox.left_at_end();
            held.peak_memory = sandbox.group().and_then(MemoryGroup::peak);
        }
        Outcome {
            ending: self.ending.clone().expect("ended above"),
            answering: self.answering,
            seconds: ended_at.duration_since(self.started).as_secs_f64(),
            answering_seconds: self.waited.as_secs_f64(),
            time_limit: self.limit().as_secs_f64(),
            stdout: std::mem::take(&mut self.stdout),
            stderr,
            leftovers: self.leftovers,
            held,
            command: std::mem::take(&mut self.command),
        }
    }

    /// Writes `bytes` to the terminal, reading the program's output meanwhile (a program that
    /// prints while its input comes must not block the runner, nor the runner it).
    fn feed(&mut self, bytes: &[u8]) {
        let begun = Instant::now();
        let mut rest = bytes;
        self.watch.moved(begun);
        while self.ending.is_none() {
            match self.terminal.write(rest) {
                Ok(n) => rest = &rest[n..],
                Err(error) => {
                    self.end_with(Ending::Failed(crate::files::system_words(&error)));
                    break;
                }
            }
            if rest.is_empty() {
                break;
            }
            self.pump();
            if let Some(ending) = self.check_end(begun) {
                self.end_with(ending);
                break;
            }
            self.pause(begun, LONGEST_PAUSE, PollFlags::IN | PollFlags::OUT);
        }
        // What was encoded is about as long as what it stands for (a piece's end or an
        // escape is one byte in thousands).
        self.unsent += rest.len() as u64;
        self.waited += begun.elapsed();
    }

    /// Reads what the program printed; whether there was something. Past the cap, the run
    /// ends.
    fn pump(&mut self) -> bool {
        let before = self.stdout.len();
        match self.terminal.read_output(&mut self.stdout, self.stdout_cap) {
            Ok(false) => {}
            Ok(true) => self.end_with(Ending::OutputCap(self.stdout_cap)),
            Err(error) => self.end_with(Ending::Failed(crate::files::system_words(&error))),
        }
        self.stdout.len() > before
    }

    /// Whether the run is over: stopped, the program ended, or its time used up.
    fn check_end(&self, begun: Instant) -> Option<Ending> {
        if self.tree.stopped() {
            return Some(Ending::Stopped);
        }
        match self.tree.exit() {
            Some(Exit::Code(code)) => return Some(Ending::Exited(code)),
            Some(Exit::Signal(signal)) => {
                // The kernel's kill of a run past its control group's limit.
                let group = self.sandbox.as_ref().and_then(sandbox::Parent::group);
                if let (libc::SIGKILL, Some(group)) = (signal, group)
                    && group.out_of_memory_kills() > 0
                {
                    let limit = group.limit();
                    return Some(Ending::MemoryLimit(limit));
                }
                return Some(Ending::Signal(signal));
            }
            None => {}
        }
        if let Some(limit) = self.memory_watch
            && self.watch.memory() > limit
        {
            return Some(Ending::MemoryLimit(limit));
        }
        let limit = self.limit();
        if self.waited + begun.elapsed() >= limit {
            return Some(Ending::TimeLimit(limit));
        }
        if let Some(read) = self.all_read_at()
            && read.elapsed() >= self.end_grace
        {
            return Some(Ending::NoExit(self.end_grace));
        }
        self.key_limit
            .filter(|&one| self.sent_at.elapsed() >= one)
            .map(Ending::TimeLimit)
    }

    /// When the program had read all its input and its end, once it has (noted at the first
    /// look that finds it so).
    fn all_read_at(&self) -> Option<Instant> {
        let noted = self.input_ended_at.as_ref()?;
        if noted.get().is_none()
            && self.terminal.unread_input() == 0
            && !self.terminal.input_pending()
        {
            noted.set(Some(Instant::now()));
        }
        noted.get()
    }

    /// The time the run may be waited on in all, given the input sent so far.
    fn limit(&self) -> Duration {
        let chunks = u32::try_from(self.chunk_ends.len()).unwrap_or(u32::MAX);
        self.time_limit
            .saturating_add(self.per_key.saturating_mul(chunks))
    }

    /// How much longer the runner may wait now, on a wait begun at `begun`.
    fn time_left(&self, begun: Instant) -> Duration {
        let left = self.limit().saturating_sub(self.waited + begun.elapsed());
        let left = self.all_read_at().map_or(left, |read| {
            left.min(self.end_grace.saturating_sub(read.elapsed()))
        });
        self.key_limit.map_or(left, |one| {
            left.min(one.saturating_sub(self.sent_at.elapsed()))
        })
    }

    /// Waits up to `pause` (and no later than the time limit) for the terminal (`events`) or
    /// the program's end.
    fn pause(&self, begun: Instant, pause: Duration, events: PollFlags) {
        let pause = pause.min(self.time_left(begun));
        let timeout = Timespec {
            tv_sec: 0,
            tv_nsec: i64::from(pause.subsec_nanos()),
        };
        let mut fds = [
            PollFd::from_borrowed_fd(self.terminal.master(), events),
            PollFd::from_borrowed_fd(self.tree.pidfd(), PollFlags::IN),
        ];
        let _ = poll(&mut fds, Some(&timeout));
    }

    /// Ends the run as `ending` says: what it printed read, which input it was answering
    /// noted, every process of it ended.
    fn end_with(&mut self, ending: Ending) {
        if self.ending.is_some() {
            return;
        }
        let _ = self.terminal.read_output(&mut self.stdout, self.stdout_cap);
        self.answering = self.answering_now();
        self.leftovers = self.tree.end().others;
        let _ = self.terminal.read_output(&mut self.stdout, self.stdout_cap);
        self.ended_at = Some(Instant::now());
        self.ending = Some(ending);
    }

    /// The input the program is answering: the chunk holding the last byte it read, or the
    /// end of its input once it has read that.
    fn answering_now(&self) -> Answering {
        let unread = self.terminal.unread_input();
        if self.input_ended && unread == 0 && !self.terminal.input_pending() {
            return Answering::EndOfInput;
        }
        let sent = self.chunk_ends.last().copied().unwrap_or(0);
        let read = sent.saturating_sub(self.unsent + unread);
        if read == 0 {
            return Answering::Nothing;
        }
        Answering::Chunk(self.chunk_ends.partition_point(|&end| end < read))
    }
}

impl Drop for Run {
    /// A run let go without [`Run::finish`] still ends every process of it.
    fn drop(&mut self) {
        if self.ending.is_none() {
            self.tree.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_is_told_the_memory_limit_before_its_own_options() {
        assert_eq!(java_options(1 << 30, None), "-XX:MaxRAM=1073741824");
        assert_eq!(
            java_options(1 << 30, Some(OsStr::new("-Xmx64m"))),
            "-XX:MaxRAM=1073741824 -Xmx64m"
        );
    }

    #[test]
    fn limits_are_capped_by_the_referees_own() {
        let set = rlimits(&Limits::default(), None);
        let data = set
            .iter()
            .find(|(resource, _)| *resource == Resource::Data)
            .unwrap();
        assert!(data.1.current.unwrap() <= 1 << 30);
        assert!(
            set.iter()
                .any(|(r, l)| *r == Resource::Core && l.current == Some(0))
        );
        assert_eq!(rlimits(&Limits::NONE, None).len(), 1);
    }
}
