//! The pseudo-terminal a program runs in, the way `expect` runs one: its standard input and
//! output are the terminal's program side, so C and Python programs see a terminal and
//! flush each line, where on a pipe they would keep their output until they exit. The
//! terminal reads whole lines (canonical mode) and does not echo them; every byte sent is
//! the program's, with no byte turned into a signal or an edit, and a line of any length
//! reaches it whole.

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;
use rustix::pty::OpenptFlags;
use rustix::termios::{
    InputModes, LocalModes, OptionalActions, OutputModes, SpecialCodeIndex, Winsize,
};
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};

/// The end-of-file character: at the start of a line the program's read returns nothing (the
/// end of its input); after some of a line, it hands over that much without a newline.
const END_OF_FILE: u8 = 0x04;
/// The character that makes the next one plain data (`^V`).
const LITERAL_NEXT: u8 = 0x16;
/// The longest stretch of a line handed to the program at once. The terminal holds 4095
/// bytes of an unfinished line and drops the rest, so a longer line is handed over in
/// pieces (each ended by [`END_OF_FILE`], as a person typing `^D` mid-line would), which a
/// program reading a line reads on to its newline.
const PIECE: usize = 4000;
/// The window size programs see: 80 columns, 24 rows.
const WINDOW: Winsize = Winsize {
    ws_row: 24,
    ws_col: 80,
    ws_xpixel: 0,
    ws_ypixel: 0,
};

/// A pseudo-terminal: the runner's side (the master) and the program's (kept open here too,
/// so the runner can see what is left of the input, and the terminal lives on after the
/// program closes it).
#[derive(Debug)]
pub(super) struct Terminal {
    master: OwnedFd,
    program_side: OwnedFd,
    /// The program side's path (`/dev/pts/N`), as `/proc` shows a descriptor open on it.
    name: PathBuf,
    /// Bytes of the line being sent since its start or its last piece.
    line: usize,
}

/// `Errno` as the standard library's error.
fn system(errno: Errno) -> io::Error {
    io::Error::from(errno)
}

/// Whether `fd` has something to read now. Asking also moves what was written to a
/// terminal on to where it is read (the kernel does that later on its own), so the answer is
/// about everything written before the question.
fn readable(fd: BorrowedFd<'_>) -> bool {
    let mut fds = [PollFd::from_borrowed_fd(fd, PollFlags::IN)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    loop {
        match poll(&mut fds, Some(&now)) {
            Ok(_) => return fds[0].revents().contains(PollFlags::IN),
            Err(Errno::INTR) => {}
            Err(_) => return false,
        }
    }
}

impl Terminal {
    /// A new terminal of 80x24, set up for a program: whole lines, no echo, no signals from
    /// typed characters, no translation of `\r` or `\n` either way.
    pub(super) fn open() -> io::Result<Terminal> {
        let flags = OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC;
        let master = rustix::pty::openpt(flags).map_err(system)?;
        rustix::pty::grantpt(&master).map_err(system)?;
        rustix::pty::unlockpt(&master).map_err(system)?;
        let name = rustix::pty::ptsname(&master, Vec::new()).map_err(system)?;
        let name = PathBuf::from(
            <std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(name.into_bytes()),
        );
        let program_side = rustix::pty::ioctl_tiocgptpeer(&master, flags).map_err(system)?;
        let mut modes = rustix::termios::tcgetattr(&program_side).map_err(system)?;
        modes.input_modes &= !(InputModes::ICRNL
            | InputModes::INLCR
            | InputModes::IGNCR
            | InputModes::IXON
            | InputModes::IXOFF
            | InputModes::ISTRIP
            | InputModes::BRKINT
            | InputModes::PARMRK);
        modes.output_modes &= !OutputModes::OPOST;
        modes.local_modes |= LocalModes::ICANON | LocalModes::IEXTEN;
        modes.local_modes &= !(LocalModes::ECHO
            | LocalModes::ECHOE
            | LocalModes::ECHOK
            | LocalModes::ECHONL
            | LocalModes::ECHOCTL
            | LocalModes::ECHOKE
            | LocalModes::ISIG);
        for index in [
            SpecialCodeIndex::VINTR,
            SpecialCodeIndex::VQUIT,
            SpecialCodeIndex::VERASE,
            SpecialCodeIndex::VKILL,
            SpecialCodeIndex::VEOL,
            SpecialCodeIndex::VEOL2,
            SpecialCodeIndex::VSTART,
            SpecialCodeIndex::VSTOP,
            SpecialCodeIndex::VSUSP,
            SpecialCodeIndex::VREPRINT,
            SpecialCodeIndex::VWERASE,
            SpecialCodeIndex::VDISCARD,
        ] {
            // 0 is "no character" (`_POSIX_VDISABLE`); a NUL byte sent is still data.
            modes.special_codes[index] = 0;
        }
        modes.special_codes[SpecialCodeIndex::VEOF] = END_OF_FILE;
        modes.special_codes[SpecialCodeIndex::VLNEXT] = LITERAL_NEXT;
        rustix::termios::tcsetattr(&program_side, OptionalActions::Now, &modes).map_err(system)?;
        rustix::termios::tcsetwinsize(&master, WINDOW).map_err(system)?;
        rustix::io::ioctl_fionbio(&master, true).map_err(system)?;
        Ok(Terminal {
            master,
            program_side,
            name,
            line: 0,
        })
    }

    /// The program side, for its standard input or output (a descriptor of its own).
    pub(super) fn program_side(&self) -> io::Result<OwnedFd> {
        self.program_side.try_clone()
    }

    /// The program side's path, as `/proc` shows a descriptor open on it.
    pub(super) fn name(&self) -> &Path {
        &self.name
    }

    /// The runner's side, to wait on.
    pub(super) fn master(&self) -> BorrowedFd<'_> {
        self.master.as_fd()
    }

    /// The terminal's line modes now (the program may change them): whether it reads whole
    /// lines, and whether `^V` makes the next character plain.
    fn modes(&self) -> (bool, bool) {
        rustix::termios::tcgetattr(&self.program_side).map_or((true, true), |modes| {
            (
                modes.local_modes.contains(LocalModes::ICANON),
                modes.local_modes.contains(LocalModes::IEXTEN),
            )
        })
    }

    /// `data` as the bytes to write so that the program reads exactly `data`: the terminal's
    /// two special characters made plain, and a long line handed over in pieces. A program
    /// that set its terminal to read characters as they come (not whole lines) gets `data`
    /// as it is: nothing is special to such a terminal.
    pub(super) fn encode(&mut self, data: &[u8]) -> Vec<u8> {
        let (lines, literal_next) = self.modes();
        if !lines {
            self.line = 0;
            return data.to_vec();
        }
        let mut out = Vec::with_capacity(data.len() + data.len() / PIECE + 2);
        for &byte in data {
            if literal_next && (byte == END_OF_FILE || byte == LITERAL_NEXT) {
                out.push(LITERAL_NEXT);
            }
            out.push(byte);
            if byte == b'\n' {
                self.line = 0;
            } else {
                self.line += 1;
                if self.line == PIECE {
                    out.push(END_OF_FILE);
                    self.line = 0;
                }
            }
        }
        out
    }

    /// The bytes that end the program's input: the end-of-file character at the start of a
    /// line (after an unfinished one, a first one hands that over).
    pub(super) fn end_of_input(&mut self) -> Vec<u8> {
        let ends = if self.line > 0 { 2 } else { 1 };
        self.line = 0;
        vec![END_OF_FILE; ends]
    }

    /// Writes what the terminal takes of `bytes` now, without waiting: how many it took.
    pub(super) fn write(&self, bytes: &[u8]) -> io::Result<usize> {
        loop {
            match rustix::io::write(&self.master, bytes) {
                Ok(n) => return Ok(n),
                Err(Errno::AGAIN) => return Ok(0),
                Err(Errno::INTR) => {}
                Err(errno) => return Err(system(errno)),
            }
        }
    }

    /// Reads everything the program has printed so far, without waiting, onto `into`, up to
    /// `cap` bytes in all; whether it printed more than that.
    pub(super) fn read_output(&self, into: &mut Vec<u8>, cap: usize) -> io::Result<bool> {
        let mut block = [0u8; 16 << 10];
        while readable(self.master.as_fd()) {
            match rustix::io::read(&self.master, &mut block) {
                Ok(0) | Err(Errno::AGAIN) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(into.len());
                    into.extend_from_slice(&block[..n.min(room)]);
                    if n > room {
                        return Ok(true);
                    }
                }
                Err(Errno::INTR) => {}
                Err(errno) => return Err(system(errno)),
            }
        }
        Ok(false)
    }

    /// Whether input sent is there for the program to read (a whole line, or the end of
    /// input), not yet read.
    pub(super) fn input_pending(&self) -> bool {
        readable(self.program_side.as_fd())
    }

    /// How many bytes of whole lines sent the program has not read.
    pub(super) fn unread_input(&self) -> u64 {
        let _ = readable(self.program_side.as_fd());
        rustix::io::ioctl_fionread(&self.program_side).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_characters_are_made_plain_and_long_lines_go_in_pieces() {
        let mut terminal = Terminal::open().unwrap();
        assert_eq!(terminal.encode(b"l\n"), b"l\n");
        assert_eq!(terminal.encode(b"a\x04b\x16\n"), b"a\x16\x04b\x16\x16\n");
        let long = vec![b'u'; PIECE * 2 + 10];
        let encoded = terminal.encode(&long);
        assert_eq!(encoded.len(), long.len() + 2);
        assert_eq!(encoded[PIECE], END_OF_FILE);
        assert_eq!(encoded[2 * PIECE + 1], END_OF_FILE);
        // An unfinished line needs a first end-of-file to hand it over.
        assert_eq!(terminal.end_of_input(), [END_OF_FILE, END_OF_FILE]);
        assert_eq!(terminal.end_of_input(), [END_OF_FILE]);
        assert!(terminal.name().starts_with("/dev/pts"));
        // A program that reads characters as they come gets the bytes as they are.
        let mut modes = rustix::termios::tcgetattr(&terminal.program_side).unwrap();
        modes.local_modes &= !LocalModes::ICANON;
        rustix::termios::tcsetattr(&terminal.program_side, OptionalActions::Now, &modes).unwrap();
        assert_eq!(terminal.encode(&long), long);
        assert_eq!(terminal.encode(b"a\x04\n"), b"a\x04\n");
    }

    #[test]
    fn what_is_sent_is_read_on_the_program_side_as_sent() {
        let mut terminal = Terminal::open().unwrap();
        assert!(!terminal.input_pending());
        let line = terminal.encode(b"a\rb\x04\x7f\x03\n");
        assert_eq!(terminal.write(&line).unwrap(), line.len());
        assert!(terminal.input_pending());
        assert_eq!(terminal.unread_input(), 7);
        let mut read = [0u8; 64];
        let n = rustix::io::read(&terminal.program_side, &mut read).unwrap();
        assert_eq!(&read[..n], b"a\rb\x04\x7f\x03\n");
        assert!(!terminal.input_pending());
        // No echo: nothing comes back on the runner's side; what the program writes does,
        // with `\n` as it is.
        let mut output = Vec::new();
        assert!(!terminal.read_output(&mut output, 100).unwrap());
        assert!(output.is_empty());
        rustix::io::write(&terminal.program_side, b"board\n").unwrap();
        assert!(!terminal.read_output(&mut output, 100).unwrap());
        assert_eq!(output, b"board\n");
        rustix::io::write(&terminal.program_side, b"0123456789").unwrap();
        assert!(terminal.read_output(&mut output, 10).unwrap());
        assert_eq!(output, b"board\n0123");
    }
}
