//! The terminal in full-screen mode: raw input, the alternate screen, no cursor, given back as
//! it was on every way out and on Ctrl-Z.

use crossterm::style::ResetColor;
use crossterm::{cursor, execute, terminal};
use std::io::{self, Write};

/// The terminal in full-screen mode: raw input, the alternate screen, no cursor. Dropping it
/// restores the terminal, so every way out of [`run`](super::run) does.
pub(super) struct Terminal {
    pub(super) out: io::Stdout,
}

impl Terminal {
    pub(super) fn enter() -> io::Result<Terminal> {
        terminal::enable_raw_mode()?;
        let mut out = io::stdout();
        if let Err(e) = execute!(out, terminal::EnterAlternateScreen, cursor::Hide) {
            let _ = terminal::disable_raw_mode();
            return Err(e);
        }
        Ok(Terminal { out })
    }

    /// Ctrl-Z: gives the terminal back to the shell as it was and stops the program (as the
    /// terminal's own Ctrl-Z does outside raw mode); after `fg`, takes the screen again. Where
    /// nothing can stop it (no job control), it goes on at once, as `less` and `vim` do.
    pub(super) fn suspend(&mut self) -> io::Result<()> {
        let _ = self.out.flush();
        restore();
        #[cfg(unix)]
        // SAFETY: raise only sends a signal to this process; SIGTSTP's default action stops it.
        unsafe {
            libc::raise(libc::SIGTSTP);
        }
        terminal::enable_raw_mode()?;
        execute!(self.out, terminal::EnterAlternateScreen, cursor::Hide)
    }
}

/// Restores the terminal (cursor shown, alternate screen left, raw mode off).
pub(super) fn restore() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        ResetColor,
        cursor::Show,
        terminal::LeaveAlternateScreen
    );
    let _ = terminal::disable_raw_mode();
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.out.flush();
        restore();
    }
}
