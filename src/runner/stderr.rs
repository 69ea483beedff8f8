//! A program's standard error: a pipe read to its end by a thread of its own, so a program
//! that writes much of it never blocks and never finds the pipe closed (`SIGPIPE`). Its first
//! part and its last [`STDERR_TAIL`] bytes are kept, the rest counted.

use super::outcome::Kept;
use rustix::event::{PollFd, PollFlags, Timespec, poll};
use std::collections::VecDeque;
use std::io::{PipeReader, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The most of the end of standard error kept (less when the cap is under twice this).
pub const STDERR_TAIL: usize = 4 << 10;

/// How often the reading thread looks whether it is told to stop.
const LOOK: Timespec = Timespec {
    tv_sec: 0,
    tv_nsec: 50_000_000,
};

/// A stream's first `head_cap` bytes, its last `tail_cap`, and its length.
#[derive(Debug, Default)]
struct Keeper {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    head_cap: usize,
    tail_cap: usize,
}

impl Keeper {
    fn new(cap: usize) -> Keeper {
        let tail_cap = STDERR_TAIL.min(cap / 2);
        Keeper {
            head_cap: cap - tail_cap,
            tail_cap,
            ..Keeper::default()
        }
    }

    fn add(&mut self, mut bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.head_cap - self.head.len();
        let now = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..now]);
        bytes = &bytes[now..];
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&bytes[bytes.len() - self.tail_cap..]);
        } else {
            let over = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..over);
            self.tail.extend(bytes);
        }
    }

    /// What is kept: a tail with no gap before it is the head's end.
    fn kept(&self) -> Kept {
        let mut head = self.head.clone();
        let mut tail: Vec<u8> = self.tail.iter().copied().collect();
        if (head.len() + tail.len()) as u64 == self.total {
            head.append(&mut tail);
        }
        Kept {
            head,
            tail,
            total: self.total,
        }
    }
}

/// Standard error being read.
#[derive(Debug)]
pub(super) struct Drain {
    keeper: Arc<Mutex<Keeper>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drain {
    /// Reads `pipe` on a thread until every writer has closed it (or it is told to stop),
    /// keeping up to `cap` bytes.
    pub(super) fn start(pipe: PipeReader, cap: usize) -> Drain {
        let keeper = Arc::new(Mutex::new(Keeper::new(cap)));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let keeper = Arc::clone(&keeper);
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("runner-stderr".to_string())
                .spawn(move || read_all(pipe, &keeper, &stop))
                .ok()
        };
        Drain {
            keeper,
            stop,
            thread,
        }
    }

    /// What was kept, once the writers have closed the pipe or `patience` has passed (a
    /// process outside the run may hold it: then reading stops, and what it writes after is
    /// not the run's).
    pub(super) fn finish(mut self, patience: Duration) -> Kept {
        let until = Instant::now() + patience;
        if let Some(thread) = self.thread.take() {
            while !thread.is_finished() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
            self.stop.store(true, Ordering::Relaxed);
            let _ = thread.join();
        }
        self.keeper
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .kept()
    }
}

impl Drop for Drain {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn read_all(mut pipe: PipeReader, keeper: &Mutex<Keeper>, stop: &AtomicBool) {
    let mut block = vec![0u8; 64 << 10];
    while !stop.load(Ordering::Relaxed) {
        let mut fds = [PollFd::new(&pipe, PollFlags::IN)];
        match poll(&mut fds, Some(&LOOK)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => {}
            Err(_) => return,
        }
        match pipe.read(&mut block) {
            Ok(0) => return,
            Ok(n) => keeper
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .add(&block[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_and_last_bytes_are_kept_and_all_counted() {
        let mut keeper = Keeper::new(10);
        keeper.add(b"abc");
        assert_eq!(
            keeper.kept(),
            Kept {
                head: b"abc".to_vec(),
                tail: Vec::new(),
                total: 3
            }
        );
        keeper.add(b"defghij");
        assert_eq!(keeper.kept().head, b"abcdefghij");
        assert!(keeper.kept().tail.is_empty());
        keeper.add(b"klmnopqrstuvwxyz");
        let kept = keeper.kept();
        assert_eq!(kept.head, b"abcde");
        assert_eq!(kept.tail, b"vwxyz");
        assert_eq!(kept.total, 26);
        assert_eq!(kept.left_out(), 16);
        keeper.add(b"12");
        assert_eq!(keeper.kept().tail, b"xyz12");
    }

    #[test]
    fn a_pipe_is_read_to_its_end() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let drain = Drain::start(reader, 64 << 10);
        let line = vec![b'e'; 1000];
        for _ in 0..200 {
            std::io::Write::write_all(&mut writer, &line).unwrap();
        }
        drop(writer);
        let kept = drain.finish(Duration::from_secs(60));
        assert_eq!(kept.total, 200_000);
        assert_eq!(kept.head.len() + kept.tail.len(), 64 << 10);
        assert_eq!(kept.tail.len(), STDERR_TAIL);
    }
}
