//! What the referee and the grader do when they are themselves stopped (SIGINT, SIGTERM,
//! SIGHUP) while they run programs, and how they keep those programs off them.

use super::Verdict;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};

/// The signal that stopped the referee, 0 while none has.
static STOPPED_BY: AtomicI32 = AtomicI32::new(0);
/// How many stops a process of a run sent the referee (each ignored).
static STOPS_FROM_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Holds the referee against the programs it runs, from now on: its memory is not another
/// process's to read or write (not dumpable, so a program run as its user can neither trace
/// it nor rewrite it through `/proc/PID/mem`), and SIGINT, SIGTERM and SIGHUP from outside
/// the runs end every program it runs (with all they started) and mark the referee stopped
/// ([`stopped_by`]), so that it reports what it has and exits 128 + the signal, rather than
/// dying with the programs left running. The same signals sent by a process of a run (one
/// below the referee: a program signalling its parent, its group) are ignored.
pub(super) fn stop_on_signals() -> anyhow::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    use signal_hook::iterator::{SignalsInfo, exfiltrator::WithOrigin};
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(|e| anyhow::anyhow!("cannot keep the referee's memory its own: {e}"))?;
    let mut signals = SignalsInfo::<WithOrigin>::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| anyhow::anyhow!("cannot watch for signals: {e}"))?;
    std::thread::spawn(move || {
        let me = std::process::id();
        for origin in signals.forever() {
            let sender = origin.process.and_then(|p| u32::try_from(p.pid).ok());
            if sender
                .is_some_and(|pid| pid != me && crate::files::processes::descends_from(pid, me))
            {
                STOPS_FROM_RUNS.fetch_add(1, Ordering::SeqCst);
                continue;
            }
            STOPPED_BY.store(origin.signal, Ordering::SeqCst);
            crate::runner::stop_all();
        }
    });
    Ok(())
}

/// How many stops the programs run sent the referee, each ignored.
pub(super) fn stops_from_runs() -> usize {
    STOPS_FROM_RUNS.load(Ordering::SeqCst)
}

/// The signal that stopped the referee, if one did.
pub(super) fn stopped_by() -> Option<i32> {
    match STOPPED_BY.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// The verdict of a referee stopped by `signal`, having done `done` of its runs.
pub(super) fn stopped(signal: i32, done: &str) -> anyhow::Error {
    let name = crate::runner::signal_name(signal).unwrap_or("a signal");
    Verdict {
        code: u8::try_from(128 + signal).unwrap_or(143),
        words: format!("stopped by {name}: {done} reported, the programs it ran ended"),
    }
    .into()
}
