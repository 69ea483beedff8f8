//! What Linux's `/proc` says about processes, for the runner (`crate::runner`): the machine's
//! processes with their parents, groups, sessions and start times, a process's threads and
//! the system call each is blocked in, where a file descriptor leads, and whether a process's
//! environment holds a run's marker. Every read is of a file the kernel makes up as it is
//! read: a process that ends between two reads is simply not there (`None`, or left out of a
//! list), never an error.

use std::io::Read;
use std::path::PathBuf;

/// One process as `/proc/PID/stat` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Process {
    /// Its process id.
    pub pid: u32,
    /// Its parent's process id (0 for the first process).
    pub ppid: u32,
    /// Its process group.
    pub group: u32,
    /// Its session.
    pub session: u32,
    /// Its state letter: `R` running, `S` asleep, `D` in an uninterruptible wait, `T` stopped,
    /// `Z` a zombie (ended, not yet waited for), ...
    pub state: u8,
    /// The CPU time it has used, all its threads together, and its children that ended and
    /// were collected, in clock ticks: it grows with any work done below it.
    pub cpu_ticks: u64,
    /// When it started, in clock ticks after the machine booted: with the pid, it names one
    /// process, as a pid alone does not once it has been reused.
    pub start_time: u64,
}

impl Process {
    /// Whether it has ended (a zombie, waiting for its parent to collect its status).
    pub fn ended(&self) -> bool {
        self.state == b'Z' || self.state == b'X'
    }
}

/// Reads a small file of `/proc` whole (they are at most a few KiB, but `environ` may be
/// larger: up to `limit` bytes are read).
fn read_proc(path: &str, limit: u64) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(limit).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// `stat`'s fields, read past the command name (which may hold spaces and parentheses: it
/// ends at the last `)`).
fn parse_stat(pid: u32, text: &[u8]) -> Option<Process> {
    let close = text.iter().rposition(|&b| b == b')')?;
    let rest = std::str::from_utf8(text.get(close + 2..)?).ok()?;
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    let number = |index: usize| fields.get(index)?.parse::<u64>().ok();
    Some(Process {
        pid,
        state: *fields.first()?.as_bytes().first()?,
        ppid: u32::try_from(number(1)?).ok()?,
        group: u32::try_from(number(2)?).ok()?,
        session: u32::try_from(number(3)?).ok()?,
        cpu_ticks: number(11)? + number(12)? + number(13)? + number(14)?,
        start_time: number(19)?,
    })
}

/// The process `pid`, if it is there.
pub fn process(pid: u32) -> Option<Process> {
    parse_stat(pid, &read_proc(&format!("/proc/{pid}/stat"), 4096)?)
}

/// The numbers that name entries of a `/proc` folder (processes, or a process's threads).
fn numbered(dir: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Every process on the machine now (those that end while the list is read are left out).
pub fn processes() -> Vec<Process> {
    numbered("/proc").into_iter().filter_map(process).collect()
}

/// The threads of process `pid` (its own id first among them).
pub fn threads(pid: u32) -> Vec<u32> {
    numbered(&format!("/proc/{pid}/task"))
}

/// What a thread is doing, as `/proc/PID/task/TID/syscall` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// It is running (or ready to run).
    Running,
    /// It is blocked in system call `number`, whose first argument is `first` (a file
    /// descriptor, for `read`).
    Blocked {
        /// The system call's number.
        number: i64,
        /// Its first argument.
        first: u64,
        /// Whether the call ends by itself after a time (a sleep, or a wait given a timeout):
        /// a thread in such a call may wake to work with nothing sent to it.
        timed: bool,
    },
    /// It is blocked outside a system call (a page fault), or ended.
    Other,
}

/// What thread `tid` of process `pid` is doing, or `None` where `/proc` does not say (the
/// thread ended, or the kernel keeps it from this process). A thread is
/// [`Call::Blocked`] only if it was asleep in that call the whole time it was looked at
/// (asleep before and after, and not once woken between): `syscall` also names the call
/// of a thread woken but not yet back on a CPU, or taken off one inside the call, and such
/// a thread is at work ([`Call::Running`]).
pub fn call(pid: u32, tid: u32) -> Option<Call> {
    let task = format!("/proc/{pid}/task/{tid}");
    let before = parse_sleep(&read_proc(&format!("{task}/status"), 4096)?)?;
    let bytes = read_proc(&format!("{task}/syscall"), 512)?;
    let call = parse_call(std::str::from_utf8(&bytes).ok()?)?;
    if matches!(call, Call::Blocked { .. }) {
        let after = parse_sleep(&read_proc(&format!("{task}/status"), 4096)?)?;
        if !before.asleep || after != before {
            return Some(Call::Running);
        }
    }
    Some(call)
}

/// A thread's sleep as its `status` shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sleep {
    /// Asleep, to be woken by what it waits for (state `S`).
    asleep: bool,
    /// The times it has left a CPU: it ran between two reads that differ.
    switches: u64,
}

fn parse_sleep(text: &[u8]) -> Option<Sleep> {
    let text = std::str::from_utf8(text).ok()?;
    let mut asleep = None;
    let mut switches = 0;
    let mut counts = 0;
    for line in text.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name {
            "State" => asleep = Some(value.starts_with('S')),
            "voluntary_ctxt_switches" | "nonvoluntary_ctxt_switches" => {
                switches += value.parse::<u64>().ok()?;
                counts += 1;
            }
            _ => {}
        }
    }
    (counts == 2).then_some(Sleep {
        asleep: asleep?,
        switches,
    })
}

fn parse_call(text: &str) -> Option<Call> {
    let mut words = text.split_ascii_whitespace();
    let first = words.next()?;
    if first == "running" {
        return Some(Call::Running);
    }
    let number: i64 = first.parse().ok()?;
    if number < 0 {
        return Some(Call::Other);
    }
    let mut args = [0u64; 6];
    for arg in &mut args {
        *arg = u64::from_str_radix(words.next()?.strip_prefix("0x")?, 16).ok()?;
    }
    Some(Call::Blocked {
        number,
        first: args[0],
        timed: timed(number, &args),
    })
}

/// Whether system call `number`, blocked with arguments `args`, ends by itself after a time.
/// Waits with no timeout (a `read`, a `futex` wait without one, `poll` with -1) end only by
/// an event.
fn timed(number: i64, args: &[u64; 6]) -> bool {
    /// `futex` operations that wait, after its private and clock flags are taken off.
    const FUTEX_WAITS: [u64; 5] = [0, 6, 9, 11, 13];
    // A negative `int` timeout (its sign bit set in the register's low half): -1 waits for
    // ever.
    let forever = |arg: u64| arg & 0x8000_0000 != 0;
    match number {
        libc::SYS_nanosleep | libc::SYS_clock_nanosleep => true,
        libc::SYS_futex => FUTEX_WAITS.contains(&(args[1] & 0x7f)) && args[3] != 0,
        libc::SYS_futex_waitv | libc::SYS_epoll_pwait2 => args[3] != 0,
        libc::SYS_ppoll | libc::SYS_rt_sigtimedwait => args[2] != 0,
        libc::SYS_pselect6 => args[4] != 0,
        libc::SYS_epoll_pwait => !forever(args[3]),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_poll => !forever(args[2]),
        #[cfg(target_arch = "x86_64")]
        libc::SYS_select => args[4] != 0,
        #[cfg(target_arch = "x86_64")]
        libc::SYS_epoll_wait => !forever(args[3]),
        _ => false,
    }
}

/// The process id the machine gave last (to a process or a thread), as `/proc/loadavg` says:
/// while it stays the same, no process has been started since.
pub fn last_created() -> Option<u32> {
    let bytes = read_proc("/proc/loadavg", 256)?;
    std::str::from_utf8(&bytes)
        .ok()?
        .split_ascii_whitespace()
        .nth(4)?
        .parse()
        .ok()
}

/// Where file descriptor `fd` of process `pid` leads (a path, or words such as
/// `pipe:[1234]`), if the kernel says.
pub fn descriptor_target(pid: u32, fd: u64) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()
}

/// Whether the environment process `pid` was started with holds the entry `marker`
/// (`NAME=value`, exactly). A process of another user, or one that has ended, reads as not.
pub fn has_marker(pid: u32, marker: &[u8]) -> bool {
    read_proc(&format!("/proc/{pid}/environ"), 1 << 20)
        .is_some_and(|environ| environ.split(|&b| b == 0).any(|entry| entry == marker))
}

/// Whether process `pid` is below process `ancestor` (its child, or a child's, and so on), as
/// the system has their parents now; a process that has ended and been collected is not.
pub fn descends_from(pid: u32, ancestor: u32) -> bool {
    let mut at = pid;
    // A chain of parents is short; a loop of them (impossible) would end here.
    for _ in 0..4096 {
        match process(at) {
            Some(p) if p.ppid == ancestor => return true,
            Some(p) if p.ppid > 1 && p.ppid != at => at = p.ppid,
            _ => return false,
        }
    }
    false
}

/// The memory process `pid` uses now, in bytes: its own (`RssAnon`) and the shared memory it
/// maps (`RssShmem`: a `MAP_SHARED` mapping, a `SysV` segment, a file of `/dev/shm`), which
/// `RLIMIT_DATA` does not count. Shared memory two processes map is counted in each.
pub fn memory_in_use(pid: u32) -> Option<u64> {
    let status = read_proc(&format!("/proc/{pid}/status"), 8192)?;
    let status = String::from_utf8_lossy(&status);
    let kib = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_ascii_whitespace().next())
            .and_then(|word| word.parse::<u64>().ok())
            .unwrap_or(0)
    };
    Some((kib("RssAnon:") + kib("RssShmem:")) * 1024)
}

/// How many processes and threads user `uid` (a real user id) has now: what the kernel
/// counts against `RLIMIT_NPROC`.
pub fn tasks_of_user(uid: u32) -> u64 {
    let mut count = 0;
    for pid in numbered("/proc") {
        let Some(status) = read_proc(&format!("/proc/{pid}/status"), 8192) else {
            continue;
        };
        let status = String::from_utf8_lossy(&status);
        let field = |name: &str| {
            status
                .lines()
                .find_map(|line| line.strip_prefix(name))
                .and_then(|rest| rest.split_ascii_whitespace().next())
                .and_then(|word| word.parse::<u64>().ok())
        };
        if field("Uid:") == Some(u64::from(uid)) {
            count += field("Threads:").unwrap_or(1);
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_is_read_past_a_command_name_with_parentheses_and_spaces() {
        let line = b"4242 (a (b) c) S 1 4242 4200 34816 4242 4194560 100 0 0 0 7 5 2 1 20 0 1 0 \
                     98765 1000 200 18446744073709551615";
        let process = parse_stat(4242, line).unwrap();
        assert_eq!(
            process,
            Process {
                pid: 4242,
                ppid: 1,
                group: 4242,
                session: 4200,
                state: b'S',
                cpu_ticks: 15,
                start_time: 98765,
            }
        );
        assert!(parse_stat(1, b"1 (cut").is_none());
    }

    #[test]
    fn a_blocked_call_names_its_number_and_first_argument() {
        assert_eq!(parse_call("running\n"), Some(Call::Running));
        assert_eq!(
            parse_call("0 0x3 0x7f0d 0x20000 0x0 0x0 0x0 0x7fff 0x7f0d\n"),
            Some(Call::Blocked {
                number: 0,
                first: 3,
                timed: false,
            })
        );
        let futex = |op: u64, timeout: u64| {
            let text = format!(
                "{} 0x7f 0x{op:x} 0x0 0x{timeout:x} 0x0 0x0 0x7fff 0x7f0d",
                libc::SYS_futex
            );
            parse_call(&text)
        };
        // Java's timed waits and a lock waited for without end.
        assert!(matches!(
            futex(0x89, 0x7f26),
            Some(Call::Blocked { timed: true, .. })
        ));
        assert!(matches!(
            futex(0x189, 0),
            Some(Call::Blocked { timed: false, .. })
        ));
        // A wake is no wait.
        assert!(matches!(
            futex(0x81, 0x7f26),
            Some(Call::Blocked { timed: false, .. })
        ));
        let sleep = format!(
            "{} 0x1 0x1 0x7fff 0x0 0x0 0x0 0x7fff 0x7f0d",
            libc::SYS_clock_nanosleep
        );
        assert!(matches!(
            parse_call(&sleep),
            Some(Call::Blocked { timed: true, .. })
        ));
        let ppoll = |tsp: u64| {
            parse_call(&format!(
                "{} 0x7fff 0x1 0x{tsp:x} 0x0 0x8 0x0 0x7fff 0x7f0d",
                libc::SYS_ppoll
            ))
        };
        assert!(matches!(ppoll(0), Some(Call::Blocked { timed: false, .. })));
        assert!(matches!(
            ppoll(0x7ffe),
            Some(Call::Blocked { timed: true, .. })
        ));
        #[cfg(target_arch = "x86_64")]
        {
            let poll_ms = |ms: u64| {
                parse_call(&format!(
                    "{} 0x7fff 0x1 0x{ms:x} 0x0 0x0 0x0 0x7fff 0x7f0d",
                    libc::SYS_poll
                ))
            };
            assert!(matches!(
                poll_ms(0xffff_ffff),
                Some(Call::Blocked { timed: false, .. })
            ));
            assert!(matches!(
                poll_ms(20),
                Some(Call::Blocked { timed: true, .. })
            ));
        }
        // Cut short: not read as a call.
        assert_eq!(parse_call("0 0x3 0x7f0d\n"), None);
        assert_eq!(parse_call("-1 0x7fff 0x7f0d\n"), Some(Call::Other));
        assert_eq!(parse_call(""), None);
    }

    #[test]
    fn a_sleep_is_its_state_and_its_switches() {
        let status = b"Name:\tsh\nState:\tS (sleeping)\nTgid:\t7\n\
                       voluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n";
        assert_eq!(
            parse_sleep(status),
            Some(Sleep {
                asleep: true,
                switches: 15
            })
        );
        let running = b"State:\tR (running)\nvoluntary_ctxt_switches:\t1\n\
                        nonvoluntary_ctxt_switches:\t0\n";
        assert_eq!(parse_sleep(running).map(|s| s.asleep), Some(false));
        assert_eq!(parse_sleep(b"State:\tS (sleeping)\n"), None);
    }

    #[test]
    fn a_thread_stopped_inside_a_read_is_not_blocked_in_it() {
        /// Ends the child however the test ends (a stopped child would outlive it).
        struct Reaped(std::process::Child);
        impl Drop for Reaped {
            fn drop(&mut self) {
                let _ = self.0.kill();
                let _ = self.0.wait();
            }
        }
        let child = Reaped(
            std::process::Command::new("sh")
                .args(["-c", "read line"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        );
        let pid = child.0.id();
        let blocked = Call::Blocked {
            number: libc::SYS_read,
            first: 0,
            timed: false,
        };
        for _ in 0..10_000 {
            if call(pid, pid) == Some(blocked) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(call(pid, pid), Some(blocked));
        // SAFETY: kill signals the child this test started.
        unsafe { libc::kill(pid as i32, libc::SIGSTOP) };
        for _ in 0..10_000 {
            if process(pid).is_some_and(|p| p.state == b'T') {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // Its read is not what holds it now: no input would wake it.
        assert_eq!(call(pid, pid), Some(Call::Running));
        drop(child);
    }

    #[test]
    fn this_process_is_listed_and_its_thread_reads_as_running() {
        let me = std::process::id();
        let listed = processes();
        assert!(listed.iter().any(|p| p.pid == me));
        let mine = process(me).unwrap();
        // A process started outside any session (some CI containers) is in session 0, which
        // `rustix::process::getsid` cannot represent: ask the kernel directly.
        // SAFETY: getsid(0) only reads this process's session id.
        let session = unsafe { libc::getsid(0) };
        assert_eq!(mine.session, u32::try_from(session).unwrap());
        assert!(threads(me).contains(&me));
        // A child blocked reading its standard input (a pipe) is seen in `read` on fd 0.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "read line"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let blocked = Call::Blocked {
            number: libc::SYS_read,
            first: 0,
            timed: false,
        };
        let mut seen = None;
        for _ in 0..10_000 {
            seen = call(pid, pid);
            if seen == Some(blocked) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(seen, Some(blocked));
        assert!(
            descriptor_target(pid, 0)
                .unwrap()
                .to_string_lossy()
                .starts_with("pipe:")
        );
        assert!(has_marker(
            pid,
            format!("PATH={}", std::env::var("PATH").unwrap()).as_bytes()
        ));
        assert!(!has_marker(pid, b"PATH"));
        drop(child.stdin.take());
        child.wait().unwrap();
        assert!(tasks_of_user(rustix::process::getuid().as_raw()) >= 1);
        // The child was made after any process this test started before it.
        let last = last_created().unwrap();
        assert!(last >= pid, "{last} < {pid}");
    }
}
