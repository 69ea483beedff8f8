//! The sandbox's child side: everything between `fork` and `exec`, in the process the runner
//! starts (A), the helper that writes its maps (D), its namespace's first process (B) and the
//! program's (C), as system calls on values prepared before the fork (a child of a process
//! with threads may take no lock and allocate nothing).

use crate::files::sandbox::{Step, View};
use std::io;

/// The signals the sandbox's own processes (A and B) ignore, so that a program that signals
/// its process group ends itself, not the processes that report its ending; the program
/// starts with each at its default again.
const QUIET: &[i32] = &[
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTERM,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGTSTP,
    libc::SIGTTIN,
    libc::SIGTTOU,
    libc::SIGPIPE,
];

/// The namespaces a program gets of its own.
const NAMESPACES: i32 = libc::CLONE_NEWUSER
    | libc::CLONE_NEWNS
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWNET
    | libc::CLONE_NEWUTS;

/// What a sandbox step failed at, as the child reports it to the runner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Failed {
    Group = 20,
    Helper = 21,
    Unshare = 22,
    Maps = 23,
    Start = 24,
    User = 25,
}

impl Failed {
    pub(super) fn words(number: u8) -> &'static str {
        match number {
            20 => "join its memory control group",
            21 => "start the helper that writes its user map",
            22 => "make namespaces of its own (user namespaces refused?)",
            23 => "map its user into its namespace",
            24 => "start its namespace's first process",
            25 => "take the user it runs as",
            n => Step::from_number(n).map_or("set it up", Step::words),
        }
    }
}

/// What the child side of a sandbox needs: moved into the `pre_exec` closure.
#[derive(Debug)]
pub(crate) struct Child {
    pub(super) view: View,
    /// `cgroup.procs` of the run's memory group, or -1.
    pub(super) procs: i32,
    /// The writing end of the pipe the child reports on.
    pub(super) report: i32,
    pub(super) uid_map: Vec<u8>,
    pub(super) gid_map: Vec<u8>,
    pub(super) deny_setgroups: bool,
    /// The user and group it runs as, when not the referee's (the referee is root).
    pub(super) run_as: Option<u32>,
}

/// `SIGCHLD`: what a child made by a bare `clone` reports its end with.
fn fork_now() -> i64 {
    // SAFETY: a bare clone (fork's system call without the C library's bookkeeping, which
    // may take locks another thread of the parent held) on a single-threaded child; the new
    // child goes on with a copy of this stack.
    unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_ulong, 0, 0, 0, 0) }
}

fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

impl Child {
    /// Reports `what` (a failure `S` or a note `P`) of step `step` with `errno` to the runner.
    fn say(&self, what: u8, step: u8, errno: i32) {
        let e = errno.to_ne_bytes();
        let record = [what, step, e[0], e[1], e[2], e[3]];
        // SAFETY: a write of a local buffer to a descriptor this child holds.
        unsafe { libc::write(self.report, record.as_ptr().cast(), record.len()) };
    }

    fn fail(&self, step: u8, errno: i32) -> io::Error {
        self.say(b'S', step, errno);
        io::Error::from_raw_os_error(errno)
    }

    /// The child's whole part, between `fork` and `exec`: returns (to `exec` the program) in
    /// the program's process only; the processes that hold it end with it.
    ///
    /// # Safety
    /// Called only in a child just forked, before `exec`.
    pub(crate) unsafe fn enter(&mut self) -> io::Result<()> {
        // SAFETY (all below): system calls on this process's own state and on buffers and
        // descriptors prepared before the fork.
        unsafe {
            // Handlers the referee's process had (a library's SIGCHLD handler, say) would run
            // in these processes, which never exec, on descriptors closed here.
            set_every_signal(libc::SIG_DFL, false);
            libc::prctl(libc::PR_SET_DUMPABLE, 1, 0, 0, 0);
            if self.procs >= 0 && libc::write(self.procs, b"0".as_ptr().cast(), 1) != 1 {
                return Err(self.fail(Failed::Group as u8, errno()));
            }
            for &signal in QUIET {
                libc::signal(signal, libc::SIG_IGN);
            }
            self.unshare()?;
            if let Err((step, error)) = self.view.enter() {
                return Err(self.fail(step as u8, error.raw_os_error().unwrap_or(libc::EIO)));
            }
            let mut status = [0i32; 2];
            if libc::pipe2(status.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(self.fail(Failed::Start as u8, errno()));
            }
            let first = fork_now();
            if first < 0 {
                return Err(self.fail(Failed::Start as u8, errno()));
            }
            if first == 0 {
                libc::close(status[0]);
                return self.first_process(status[1]);
            }
            close_all_but(&[status[0]]);
            end_as_told(first as i32, status[0])
        }
    }

    /// Unshares the namespaces, its user and group maps written by a helper outside them.
    unsafe fn unshare(&self) -> io::Result<()> {
        // SAFETY: as in `enter`.
        unsafe {
            let mut sync = [0i32; 2];
            if libc::pipe2(sync.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return Err(self.fail(Failed::Helper as u8, errno()));
            }
            let helper = fork_now();
            if helper < 0 {
                return Err(self.fail(Failed::Helper as u8, errno()));
            }
            if helper == 0 {
                libc::close(sync[1]);
                let mut byte = 0u8;
                if libc::read(sync[0], (&raw mut byte).cast(), 1) != 1 {
                    libc::_exit(0);
                }
                libc::_exit(self.write_maps(libc::getppid()));
            }
            libc::close(sync[0]);
            let unshared = libc::unshare(NAMESPACES);
            let unshare_errno = errno();
            if unshared == 0 {
                libc::write(sync[1], b"u".as_ptr().cast(), 1);
            }
            libc::close(sync[1]);
            let mut waited = 0;
            libc::waitpid(helper as i32, &raw mut waited, 0);
            if unshared != 0 {
                return Err(self.fail(Failed::Unshare as u8, unshare_errno));
            }
            if !libc::WIFEXITED(waited) || libc::WEXITSTATUS(waited) != 0 {
                let code = if libc::WIFEXITED(waited) {
                    libc::WEXITSTATUS(waited)
                } else {
                    libc::EPERM
                };
                return Err(self.fail(Failed::Maps as u8, code));
            }
            Ok(())
        }
    }

    /// In the helper: writes the user and group maps of process `pid`; 0, or the errno.
    unsafe fn write_maps(&self, pid: i32) -> i32 {
        let files: [(&[u8], &[u8]); 3] = [
            (
                b"setgroups",
                if self.deny_setgroups { b"deny" } else { b"" },
            ),
            (b"uid_map", &self.uid_map),
            (b"gid_map", &self.gid_map),
        ];
        for (name, text) in files {
            if text.is_empty() {
                continue;
            }
            let mut path = [0u8; 64];
            let length = proc_path(&mut path, pid, name);
            // SAFETY: a path in a local buffer, NUL-ended, and a local text.
            unsafe {
                let fd = libc::open(
                    path[..=length].as_ptr().cast(),
                    libc::O_WRONLY | libc::O_CLOEXEC,
                );
                if fd < 0 || libc::write(fd, text.as_ptr().cast(), text.len()) < 0 {
                    return errno();
                }
                libc::close(fd);
            }
        }
        0
    }

    /// In the namespace's first process (B): its own `/proc`, then the program (C), then
    /// waiting for it (collecting every orphan meanwhile) and handing its status on.
    unsafe fn first_process(&self, status: i32) -> io::Result<()> {
        // SAFETY: as in `enter`.
        unsafe {
            let proc_flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
            let own_proc = libc::mount(
                c"proc".as_ptr(),
                c"/proc".as_ptr(),
                c"proc".as_ptr(),
                proc_flags,
                std::ptr::null(),
            ) == 0;
            if !own_proc {
                self.say(b'P', 0, errno());
            }
            let program = fork_now();
            if program < 0 {
                libc::_exit(127);
            }
            if program == 0 {
                libc::close(status);
                return self.program();
            }
            close_all_but(&[status, self.report]);
            let mut waited = 0;
            loop {
                let pid = libc::waitpid(-1, &raw mut waited, 0);
                if pid == program as i32 {
                    break;
                }
                if pid < 0 && errno() != libc::EINTR {
                    waited = 0;
                    break;
                }
            }
            if own_proc {
                self.say(b'L', 0, running_in_namespace());
            }
            let bytes = waited.to_ne_bytes();
            libc::write(status, bytes.as_ptr().cast(), bytes.len());
            libc::_exit(0)
        }
    }

    /// In the program's process (C): the program's user, no capability, no way to gain one,
    /// its signals at their defaults.
    unsafe fn program(&self) -> io::Result<()> {
        // SAFETY: as in `enter`.
        unsafe {
            // Every signal at its default, as a program started afresh has it.
            set_every_signal(libc::SIG_DFL, true);
            if let Some(id) = self.run_as
                && (libc::setgroups(0, std::ptr::null()) != 0
                    || libc::setresgid(id, id, id) != 0
                    || libc::setresuid(id, id, id) != 0)
            {
                return Err(self.fail(Failed::User as u8, errno()));
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(self.fail(Failed::User as u8, errno()));
            }
        }
        Ok(())
    }
}

/// Sets every signal that has a handler (and, with `ignored_too`, every ignored one) to
/// `action`: system calls only.
unsafe fn set_every_signal(action: libc::sighandler_t, ignored_too: bool) {
    // SAFETY: sigaction on this process's own signals, with local structures.
    unsafe {
        for signal in 1..=libc::SIGRTMAX() {
            if signal == libc::SIGKILL || signal == libc::SIGSTOP {
                continue;
            }
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &raw mut old) != 0 {
                continue;
            }
            let handled = old.sa_sigaction != libc::SIG_DFL && old.sa_sigaction != libc::SIG_IGN;
            if handled || (ignored_too && old.sa_sigaction == libc::SIG_IGN) {
                let mut new: libc::sigaction = std::mem::zeroed();
                new.sa_sigaction = action;
                libc::sigaction(signal, &raw const new, std::ptr::null_mut());
            }
        }
    }
}

/// `/proc/PID/NAME` into `buffer`, NUL-ended; its length before the NUL.
fn proc_path(buffer: &mut [u8; 64], pid: i32, name: &[u8]) -> usize {
    let mut at = 0;
    for &b in b"/proc/" {
        buffer[at] = b;
        at += 1;
    }
    let mut digits = [0u8; 12];
    let mut n = pid.unsigned_abs();
    let mut count = 0;
    loop {
        digits[count] = b'0' + (n % 10) as u8;
        count += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for index in (0..count).rev() {
        buffer[at] = digits[index];
        at += 1;
    }
    buffer[at] = b'/';
    at += 1;
    for &b in name.iter().take(buffer.len() - at - 1) {
        buffer[at] = b;
        at += 1;
    }
    buffer[at] = 0;
    at
}

/// Closes every descriptor but those in `keep` (standard input, output and error too: the
/// processes that only wait must not hold the program's terminal or the runner's pipes open).
unsafe fn close_all_but(keep: &[i32]) {
    // SAFETY: closing descriptors of this process, which nothing else uses now.
    unsafe {
        let mut first = 0u32;
        loop {
            // The next kept descriptor at or after `first`, if any.
            let next = keep
                .iter()
                .filter_map(|&k| u32::try_from(k).ok())
                .filter(|&k| k >= first)
                .min();
            let last = next.map_or(u32::MAX, |k| k.saturating_sub(1));
            if next != Some(first) && libc::syscall(libc::SYS_close_range, first, last, 0) != 0 {
                for fd in first..=last.min(65_535) {
                    libc::close(fd as i32);
                }
            }
            match next {
                Some(k) if k < u32::MAX => first = k + 1,
                _ => return,
            }
        }
    }
}

/// How many processes of the namespace are running, the calling one (its first) left out:
/// read from its own `/proc` with system calls only.
unsafe fn running_in_namespace() -> i32 {
    // SAFETY: reads of this process's own namespace's /proc into local buffers.
    unsafe {
        let dir = libc::open(
            c"/proc".as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        );
        if dir < 0 {
            return 0;
        }
        let mut count = 0;
        let mut buffer = [0u8; 4096];
        loop {
            let n = libc::syscall(libc::SYS_getdents64, dir, buffer.as_mut_ptr(), buffer.len());
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            while at < n as usize {
                // linux_dirent64: u64 inode, i64 offset, u16 length, u8 type, then the name.
                let length = u16::from_ne_bytes([buffer[at + 16], buffer[at + 17]]) as usize;
                let name = &buffer[at + 19..at + length];
                let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
                let name = &name[..end];
                if !name.is_empty() && name.iter().all(u8::is_ascii_digit) && name != b"1" {
                    count += i32::from(running(dir, name));
                }
                at += length;
            }
        }
        libc::close(dir);
        count
    }
}

/// Whether the process `name` (its number, in `/proc`, open as `dir`) is running, not a
/// zombie: the state in its `stat` after the command's closing parenthesis.
unsafe fn running(dir: i32, name: &[u8]) -> bool {
    let mut path = [0u8; 32];
    if name.len() + 6 > path.len() {
        return false;
    }
    path[..name.len()].copy_from_slice(name);
    path[name.len()..name.len() + 5].copy_from_slice(b"/stat");
    // SAFETY: a NUL-ended path in a local buffer, read into another.
    unsafe {
        let fd = libc::openat(dir, path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let mut stat = [0u8; 512];
        let n = libc::read(fd, stat.as_mut_ptr().cast(), stat.len());
        libc::close(fd);
        let stat = &stat[..usize::try_from(n).unwrap_or(0)];
        match stat.iter().rposition(|&b| b == b')') {
            Some(close) if close + 2 < stat.len() => stat[close + 2] != b'Z',
            _ => false,
        }
    }
}

/// In A: waits for the namespace's first process, reads the program's status from it, and
/// ends the same way (the runner holds A as the program).
unsafe fn end_as_told(first: i32, status: i32) -> io::Result<()> {
    // SAFETY: as in `Child::enter`.
    unsafe {
        let mut waited = 0;
        libc::waitpid(first, &raw mut waited, 0);
        let mut bytes = [0u8; 4];
        let read = libc::read(status, bytes.as_mut_ptr().cast(), 4);
        if read == 4 {
            let program = i32::from_ne_bytes(bytes);
            if libc::WIFEXITED(program) {
                libc::_exit(libc::WEXITSTATUS(program));
            }
            if libc::WIFSIGNALED(program) {
                let signal = libc::WTERMSIG(program);
                libc::signal(signal, libc::SIG_DFL);
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&raw mut set);
                libc::sigaddset(&raw mut set, signal);
                libc::sigprocmask(libc::SIG_UNBLOCK, &raw const set, std::ptr::null_mut());
                libc::kill(libc::getpid(), signal);
                libc::_exit(128 + signal);
            }
        }
        libc::kill(libc::getpid(), libc::SIGKILL);
        libc::_exit(137)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proc_path_is_written_without_allocating() {
        let mut buffer = [0u8; 64];
        let length = proc_path(&mut buffer, 40213, b"uid_map");
        assert_eq!(&buffer[..length], b"/proc/40213/uid_map");
        assert_eq!(buffer[length], 0);
        let length = proc_path(&mut buffer, 7, b"setgroups");
        assert_eq!(&buffer[..length], b"/proc/7/setgroups");
    }
}
