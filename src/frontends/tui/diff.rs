//! Frames written as a terminal game writes them: the last frame kept, only the cells that
//! changed written, each frame one synchronized update (DEC private mode 2026: the terminal
//! shows it whole, never half drawn; terminals without it ignore the two sequences), and the
//! screen cleared only when its size changed (or it was given back and taken again).

use super::frame::{Cell, Frame, Style};
use super::palette::basic_code;
use crossterm::style::Color;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The sequences that open and close a synchronized update.
pub const BEGIN_UPDATE: &[u8] = b"\x1b[?2026h";
/// See [`BEGIN_UPDATE`].
pub const END_UPDATE: &[u8] = b"\x1b[?2026l";

/// Writes frames, each as the difference from the one before.
#[derive(Debug, Default)]
pub struct Painter {
    last: Option<Frame>,
}

impl Painter {
    /// A painter that draws its first frame whole.
    pub fn new() -> Painter {
        Painter::default()
    }

    /// Forgets the last frame: the next is drawn whole, on a cleared screen (after the screen
    /// was given back, on Ctrl-Z).
    pub fn forget(&mut self) {
        self.last = None;
    }

    /// Writes `frame` as one synchronized update: the cells that differ from the last frame's,
    /// or, for the first frame and a window of a new size, a cleared screen and every cell
    /// that is not blank; nothing at all when no cell changed. Returns the bytes written.
    pub fn paint(&mut self, frame: &Frame, out: &mut impl Write) -> io::Result<usize> {
        let mut bytes = Vec::with_capacity(2048);
        bytes.extend_from_slice(BEGIN_UPDATE);
        let last = self
            .last
            .as_ref()
            .filter(|l| (l.width, l.height) == (frame.width, frame.height));
        let blank = Cell {
            ch: ' ',
            style: Style::default(),
        };
        if last.is_none() {
            bytes.extend_from_slice(b"\x1b[0m\x1b[2J");
        }
        let mut pen = Style::default();
        // Where the cursor is, if known.
        let mut cursor: Option<(usize, usize)> = None;
        for row in 0..frame.height {
            let changed = |col: usize| {
                let cell = frame.cell(row, col);
                let before = last.map_or(blank, |l| l.cell(row, col));
                !cell.looks_like(&before)
            };
            let mut col = 0;
            while col < frame.width {
                if !changed(col) {
                    col += 1;
                    continue;
                }
                move_to(&mut bytes, &mut cursor, row, col);
                // The run of changed cells, and the unchanged ones between them that the pen
                // draws as it is (written again, the same): cheaper than a cursor move.
                let mut end = col + 1;
                let mut k = end;
                while k < frame.width && k - end <= 4 {
                    if changed(k) {
                        end = k + 1;
                    } else if !drawn_as_is(&frame.cell(row, end - 1).style, frame.cell(row, k)) {
                        break;
                    }
                    k += 1;
                }
                for c in col..end {
                    let cell = frame.cell(row, c);
                    set_style(&mut bytes, &mut pen, cell);
                    let mut utf8 = [0; 4];
                    bytes.extend_from_slice(cell.ch.encode_utf8(&mut utf8).as_bytes());
                }
                // The cursor waits past the last column of a row; move it before writing.
                cursor = (end < frame.width).then_some((row, end));
                col = end;
            }
        }
        if last.is_some() && bytes.len() == BEGIN_UPDATE.len() {
            // Nothing changed: no update at all.
            self.last = Some(frame.clone());
            return Ok(0);
        }
        if pen != Style::default() {
            bytes.extend_from_slice(b"\x1b[0m");
        }
        bytes.extend_from_slice(END_UPDATE);
        out.write_all(&bytes)?;
        self.last = Some(frame.clone());
        Ok(bytes.len())
    }
}

/// Moves the cursor to `row`, `col`: forward on its row where it is there, else to the place
/// (a move changes no cell, whatever the pen).
fn move_to(bytes: &mut Vec<u8>, cursor: &mut Option<(usize, usize)>, row: usize, col: usize) {
    match *cursor {
        Some((r, c)) if r == row && c == col => {}
        Some((r, c)) if r == row && c < col => {
            let _ = write!(Bytes(bytes), "\x1b[{}C", col - c);
        }
        _ => {
            let _ = write!(Bytes(bytes), "\x1b[{};{}H", row + 1, col + 1);
        }
    }
    *cursor = Some((row, col));
}

/// Whether `cell` is drawn with `pen` (the style of the changed cell before it) as it is: no
/// change of style.
fn drawn_as_is(pen: &Style, cell: Cell) -> bool {
    let want = cell.style;
    let blank = cell.ch == ' ' && !want.reverse;
    want.bg == pen.bg
        && want.reverse == pen.reverse
        && (blank || (want.fg == pen.fg && want.bold == pen.bold))
}

/// Sets the pen for `cell`, writing only what changes: a blank needs only its background
/// (and its colour in reverse video).
fn set_style(bytes: &mut Vec<u8>, pen: &mut Style, cell: Cell) {
    let want = cell.style;
    let blank = cell.ch == ' ' && !want.reverse;
    let mut params: Vec<String> = Vec::new();
    if !blank && want.bold != pen.bold {
        params.push(if want.bold { "1" } else { "22" }.to_string());
        pen.bold = want.bold;
    }
    if want.reverse != pen.reverse {
        params.push(if want.reverse { "7" } else { "27" }.to_string());
        pen.reverse = want.reverse;
    }
    if (!blank || want.reverse) && want.fg != pen.fg {
        params.push(color_param(want.fg, true));
        pen.fg = want.fg;
    }
    if want.bg != pen.bg {
        params.push(color_param(want.bg, false));
        pen.bg = want.bg;
    }
    if !params.is_empty() {
        let _ = write!(Bytes(bytes), "\x1b[{}m", params.join(";"));
    }
}

/// The SGR parameters of a colour: the plain codes for the 8 basic colours (which a terminal
/// of 8 colours reads), palette entries, 24-bit colour, or the terminal's own (`None`).
fn color_param(color: Option<Color>, fg: bool) -> String {
    let base = if fg { 30 } else { 40 };
    match color {
        None => (base + 9).to_string(),
        Some(c) => match (basic_code(c), c) {
            (Some(code), _) => (base + u32::from(code)).to_string(),
            (None, Color::AnsiValue(i)) => format!("{};5;{i}", base + 8),
            (None, Color::Rgb { r, g, b }) => format!("{};2;{r};{g};{b}", base + 8),
            _ => (base + 9).to_string(),
        },
    }
}

/// A `fmt::Write` into bytes.
struct Bytes<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
