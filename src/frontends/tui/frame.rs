//! A frame: the window's cells, each a character and how it is drawn. [`render`](super::render)
//! fills one for a view, [`Painter`](super::Painter) writes what changed from the frame before.

use super::palette::TileStyle;
use crossterm::style::Color;

/// How a cell is drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    /// The character's colour, if not the terminal's own.
    pub fg: Option<Color>,
    /// The cell's background, if not the terminal's own.
    pub bg: Option<Color>,
    /// Bold.
    pub bold: bool,
    /// Reverse video.
    pub reverse: bool,
}

impl Style {
    pub(super) const BOLD: Style = Style {
        fg: None,
        bg: None,
        bold: true,
        reverse: false,
    };
}

impl From<TileStyle> for Style {
    fn from(t: TileStyle) -> Style {
        Style {
            fg: t.fg,
            bg: t.bg,
            bold: t.bold,
            reverse: t.reverse,
        }
    }
}

/// One cell of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Its character (one column wide).
    pub ch: char,
    /// How it is drawn.
    pub style: Style,
}

impl Cell {
    const BLANK: Cell = Cell {
        ch: ' ',
        style: Style {
            fg: None,
            bg: None,
            bold: false,
            reverse: false,
        },
    };

    /// Whether the two cells look the same: a blank's colour and boldness do not show, only
    /// its background (and its colour in reverse video).
    pub fn looks_like(&self, other: &Cell) -> bool {
        if self.ch != other.ch || self.style.bg != other.style.bg {
            return false;
        }
        if self.style.reverse != other.style.reverse {
            return false;
        }
        if self.ch == ' ' && !self.style.reverse {
            return true;
        }
        self.style == other.style
    }
}

/// One screenful: the window's cells, row by row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The window's columns.
    pub width: usize,
    /// The window's lines.
    pub height: usize,
    cells: Vec<Cell>,
    /// The window was too small: the frame only says so (and game keys wait).
    pub cramped: bool,
    /// The place of the board's tiles (column, row, columns, lines: the board less its
    /// margin), where a game is shown.
    pub board: Option<(usize, usize, usize, usize)>,
    /// Each tile's size (columns, lines), where a game is shown.
    pub tile: Option<(usize, usize)>,
}

impl Frame {
    /// A blank frame of `width` x `height`.
    pub fn new(width: usize, height: usize) -> Frame {
        Frame {
            width,
            height,
            cells: vec![Cell::BLANK; width * height],
            cramped: false,
            board: None,
            tile: None,
        }
    }

    /// The cell at `row`, `col`.
    pub fn cell(&self, row: usize, col: usize) -> Cell {
        self.cells[row * self.width + col]
    }

    /// Row `row`'s text, blanks at its end left out.
    pub fn row_text(&self, row: usize) -> String {
        let text: String = self.cells[row * self.width..(row + 1) * self.width]
            .iter()
            .map(|c| c.ch)
            .collect();
        text.trim_end().to_string()
    }

    /// The frame's text without styles, a line a row (for tests and for reading it).
    pub fn to_text(&self) -> String {
        (0..self.height).map(|r| self.row_text(r) + "\n").collect()
    }

    /// Writes `text` from `col`, `row`, cut at the window's edge.
    pub(super) fn put(&mut self, col: usize, row: usize, text: &str, style: Style) {
        if row >= self.height {
            return;
        }
        for (k, ch) in text.chars().enumerate() {
            let c = col + k;
            if c >= self.width {
                break;
            }
            self.cells[row * self.width + c] = Cell { ch, style };
        }
    }

    /// Fills a rectangle with blanks of `style`, cut at the window's edges.
    pub(super) fn fill(
        &mut self,
        (col, row): (usize, usize),
        (w, h): (usize, usize),
        style: Style,
    ) {
        for r in row..(row + h).min(self.height) {
            for c in col..(col + w).min(self.width) {
                self.cells[r * self.width + c] = Cell { ch: ' ', style };
            }
        }
    }
}
