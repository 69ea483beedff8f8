//! Where everything goes on a game screen, for a window's size and the board's side alone:
//! the title, score, message and key lines have fixed rows, and the board (its tiles, the
//! gaps between them and a margin round them, in the board's own colour) the largest tiles
//! that fit beside them. Nothing a game does (a merge to a wider number, a message, advice, a
//! flag) moves or resizes the board: numbers wider than their tile are written short
//! ([`crate::frontends::tui::tiles`]), so a game that fits at its start fits to its end.

/// The fixed lines of a game screen: the title, the score line, two message lines, the keys.
pub(super) const FIXED_LINES: usize = 5;

/// The lines the message takes (it is wrapped to them and shortened past them).
pub(super) const MESSAGE_LINES: usize = 2;

/// The narrowest text column: the shortest key line.
pub(super) const LEAST_TEXT: usize = 36;

/// The narrowest the title and score line are: the short title (`Power-11 3x3`) and a
/// score and best of six digits each, where the board is narrower.
const LEAST_TITLE: usize = 26;

/// The widest the message and key lines are, where the board is narrower.
const TEXT_WIDTH: usize = 80;

/// The narrowest tile: a number of four characters (any tile's short form, as `128k`) and a
/// column each side.
pub(super) const LEAST_TILE: usize = 6;

/// The widest a tile of `looks` lines is drawn: a little wider than the web game's square
/// tiles (a character is about twice as tall as wide), so that numbers have room and a move
/// at 80x24 stays under 1.2 KB; one-line tiles hold a 6-digit number (4x4's largest, 131072).
fn widest_tile(looks: usize) -> usize {
    if looks == 1 { 8 } else { 2 * looks + 3 }
}

/// Big numbers (block glyphs three lines high) are drawn on tiles at least this many lines
/// high and wide enough for four of them.
const BIG_LINES: usize = 5;

/// The columns four big glyphs take, with a blank column between them.
pub(super) const BIG_FOUR: usize = 4 * 4 - 1;

/// How the tiles of one candidate layout are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Tiles `lines` high (odd: the number on the middle line) with a gap and a margin.
    Full { lines: usize, margin: bool },
    /// Tiles `lines` high whose top and bottom are half rows (`▄`, `▀`): the gap between rows
    /// of tiles is their other halves, and the tiles look a line shorter.
    Half { lines: usize },
    /// Two-line tiles, the number on the upper line.
    Two,
    /// One-line tiles, with a blank line between rows of them or (`gap` false) none.
    One { gap: bool },
}

impl Kind {
    /// The rows a tile takes, and the lines it looks high.
    fn lines(self) -> (usize, usize) {
        match self {
            Kind::Full { lines, .. } => (lines, lines),
            Kind::Half { lines } => (lines, lines - 1),
            Kind::Two => (2, 2),
            Kind::One { .. } => (1, 1),
        }
    }

    /// The gap between tiles (columns, lines) and the margin round them.
    fn spacing(self) -> ((usize, usize), (usize, usize)) {
        match self {
            Kind::Full { lines, margin } => {
                let g = 1 + lines / 8;
                ((2 * g, g), (2 * g, if margin { g } else { 0 }))
            }
            Kind::Half { lines } => {
                let g = 1 + lines / 8;
                ((2 * g, 0), (2 * g, 0))
            }
            Kind::Two => ((2, 1), (2, 0)),
            Kind::One { gap } => ((1, usize::from(gap)), (1, 0)),
        }
    }

    /// Every kind of tiles up to `tallest` lines high (and three-line ones), best first where
    /// two look as large: the tiles that look tallest, then those with a margin, a whole line
    /// between rows, half rows, two lines, one line.
    fn all(tallest: usize) -> Vec<Kind> {
        let mut kinds = vec![Kind::Two, Kind::One { gap: true }, Kind::One { gap: false }];
        for lines in (3..=tallest.max(3)).step_by(2) {
            kinds.push(Kind::Full {
                lines,
                margin: true,
            });
            kinds.push(Kind::Full {
                lines,
                margin: false,
            });
            kinds.push(Kind::Half { lines });
        }
        let rank = |k: &Kind| match k {
            Kind::Full { margin: true, .. } => 0,
            Kind::Full { margin: false, .. } => 1,
            Kind::Half { .. } => 2,
            Kind::Two => 3,
            Kind::One { gap: true } => 4,
            Kind::One { gap: false } => 5,
        };
        kinds.sort_by_key(|k| (std::cmp::Reverse(k.lines().1), rank(k)));
        kinds
    }
}

/// A game screen's places, in the window's rows and columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// Each tile's width and height, in the window's cells.
    pub(super) tile: (usize, usize),
    /// The tiles' top and bottom rows are half rows (`▄` and `▀`): a tile looks a line
    /// shorter than the rows it takes, and the gap between rows of tiles is their other
    /// halves.
    pub(super) half: bool,
    /// Columns between tiles, lines between rows of tiles.
    pub(super) gap: (usize, usize),
    /// Columns left and right of the tiles, lines above and below them, on the board.
    pub(super) margin: (usize, usize),
    /// Whether numbers are drawn in big glyphs.
    pub(super) big: bool,
    /// The board's top left corner (column, row) and its size (columns, lines), its margin
    /// included.
    pub(super) board: (usize, usize),
    /// See `board`.
    pub(super) board_size: (usize, usize),
    /// The title's and score line's first column and width: the board's, or a centred column
    /// where the board is narrower than the shortest key line.
    pub(super) text: (usize, usize),
    /// The message's and key line's first column and width: centred, up to 80 columns (or
    /// the board's width), so that the longest key line shows where the window has room.
    pub(super) lines: (usize, usize),
    /// The rows of the title, the score line, the first message line and the key line.
    pub(super) title: usize,
    /// See `title`.
    pub(super) score: usize,
    /// See `title`.
    pub(super) message: usize,
    /// See `title`.
    pub(super) keys: usize,
    /// The first row below the key line.
    pub(super) bottom: usize,
}

impl Layout {
    /// The place of the tiles (column, row, columns, lines): the board less its margin.
    pub(super) fn tiles(&self) -> (usize, usize, usize, usize) {
        (
            self.board.0 + self.margin.0,
            self.board.1 + self.margin.1,
            self.board_size.0 - 2 * self.margin.0,
            self.board_size.1 - 2 * self.margin.1,
        )
    }

    /// The top left corner of the tile in row `r`, column `c` (column, row).
    pub(super) fn cell(&self, r: usize, c: usize) -> (usize, usize) {
        (
            self.board.0 + self.margin.0 + c * (self.tile.0 + self.gap.0),
            self.board.1 + self.margin.1 + r * (self.tile.1 + self.gap.1),
        )
    }
}

/// The layout of an `n` x `n` board in a window of `width` x `height`, or `None` if even
/// one-line tiles do not fit. It depends on nothing else, so a game keeps its board's size
/// and place from start to end, whatever it shows.
pub(super) fn game_layout(n: usize, width: usize, height: usize) -> Option<Layout> {
    if width < LEAST_TEXT || height < FIXED_LINES + n {
        return None;
    }
    let room = height - FIXED_LINES;
    // The tiles that look largest (width by the lines they look high), never taller than
    // wide: the first of the best at that size.
    let mut best: Option<(usize, Layout)> = None;
    for kind in Kind::all(room / n) {
        let Some(layout) = layout_of(kind, n, width, room) else {
            continue;
        };
        let looks = layout.tile.0 * kind.lines().1;
        if best.as_ref().is_none_or(|(most, _)| looks > *most) {
            best = Some((looks, layout));
        }
    }
    best.map(|(_, layout)| layout)
}

/// The layout of tiles of `kind` on an `n` x `n` board in a window `width` wide with `room`
/// lines beside the fixed ones, if they fit and are no taller than wide.
fn layout_of(kind: Kind, n: usize, width: usize, room: usize) -> Option<Layout> {
    let ((rows, looks), (gap, margin)) = (kind.lines(), kind.spacing());
    let board_lines = n * rows + (n - 1) * gap.1 + 2 * margin.1;
    if board_lines > room {
        return None;
    }
    let spare_columns = width.checked_sub(2 * margin.0 + (n - 1) * gap.0)?;
    let tile_width = widest_tile(looks).min(spare_columns / n);
    if tile_width < LEAST_TILE.max(2 * looks - 1) {
        return None;
    }
    let board_size = (board_width(n, tile_width, gap.0, margin.0), board_lines);
    let spare = room - board_lines;
    // A blank line under the score line and one above the message, where there is room.
    let (above, below) = (usize::from(spare >= 1), usize::from(spare >= 2));
    let top = (spare - above - below) / 2;
    let board_row = top + 2 + above;
    let message = board_row + board_lines + below;
    let text_width = board_size.0.max(LEAST_TITLE);
    let lines_width = width.min(TEXT_WIDTH.max(board_size.0));
    Some(Layout {
        tile: (tile_width, rows),
        half: matches!(kind, Kind::Half { .. }),
        gap,
        margin,
        big: rows >= BIG_LINES && tile_width >= BIG_FOUR + 2,
        board: ((width - board_size.0) / 2, board_row),
        board_size,
        text: ((width - text_width) / 2, text_width),
        lines: ((width - lines_width) / 2, lines_width),
        title: top,
        score: top + 1,
        message,
        keys: message + MESSAGE_LINES,
        bottom: message + MESSAGE_LINES + 1,
    })
}

/// The smallest window a board of `n` x `n` plays in (columns, lines): one-line tiles of
/// [`LEAST_TILE`] with no line between them, and the shortest key line.
pub(super) fn least_window(n: usize) -> (usize, usize) {
    let (gap, margin) = Kind::One { gap: false }.spacing();
    (
        board_width(n, LEAST_TILE, gap.0, margin.0).max(LEAST_TEXT),
        n + FIXED_LINES,
    )
}

/// The columns a board of `n` tiles a row takes, its gaps and margin included.
fn board_width(n: usize, tile: usize, gap: usize, margin: usize) -> usize {
    n * tile + (n - 1) * gap + 2 * margin
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_depends_on_the_window_alone_and_fills_it() {
        let at = |w, h| game_layout(4, w, h).unwrap();
        // 4x4: three-line tiles at 80x24, the board most of the window's height; at 200x60
        // tiles eleven lines high with big numbers; one-line tiles with a line between rows,
        // wide enough for 131072, at 40x12.
        assert_eq!((at(80, 24).tile, at(80, 24).board_size.1), ((9, 3), 17));
        assert!(at(200, 60).tile.1 >= 11 && at(200, 60).big);
        assert_eq!((at(40, 12).tile, at(40, 12).gap.1), ((8, 1), 1));
        assert_eq!(game_layout(3, 40, 12).unwrap().gap.1, 1);
        assert!(game_layout(5, 50, 14).is_some());
        assert!(game_layout(8, 60, 20).is_some());
        // Two-line tiles with their digits in the middle: 6x6 at 80x24 (three rows a tile,
        // half rows above and below).
        let six = game_layout(6, 80, 24).unwrap();
        assert_eq!((six.tile.1, six.half, six.gap.1), (3, true, 0));
        // Every layout of every window fits it, its board centred to the column.
        for n in 3..=8 {
            let (w, h) = least_window(n);
            assert!(game_layout(n, w, h).is_some(), "{n}: {w}x{h}");
            assert!(game_layout(n, w - 1, h).is_none() || w == LEAST_TEXT);
            assert!(game_layout(n, w, h - 1).is_none());
            for width in 10..=130 {
                for height in 5..=45 {
                    let Some(l) = game_layout(n, width, height) else {
                        continue;
                    };
                    assert!(l.bottom <= height && l.board.0 + l.board_size.0 <= width);
                    assert_eq!(l.board.0, (width - l.board_size.0) / 2);
                    assert!(l.text.0 + l.text.1 <= width && l.lines.0 + l.lines.1 <= width);
                    assert!(
                        l.text.0 <= l.board.0 && l.board.0 + l.board_size.0 <= l.text.0 + l.text.1
                    );
                    assert!(l.score < l.board.1 && l.board.1 + l.board_size.1 <= l.message);
                    let (left, top, w, h) = l.tiles();
                    assert_eq!((left, top), l.cell(0, 0));
                    let (last_col, last_row) = l.cell(n - 1, n - 1);
                    assert_eq!(
                        (last_col + l.tile.0, last_row + l.tile.1),
                        (left + w, top + h)
                    );
                    assert_eq!(last_col + l.tile.0 + l.margin.0, l.board.0 + l.board_size.0);
                    assert_eq!(last_row + l.tile.1 + l.margin.1, l.board.1 + l.board_size.1);
                    assert!(l.tile.0 >= LEAST_TILE);
                    // A larger window never gets smaller tiles (half rows look like one line
                    // between them).
                    let looks = |l: &Layout| l.tile.0 * (l.tile.1 - usize::from(l.half));
                    if let Some(m) = game_layout(n, width + 1, height + 1) {
                        assert!(looks(&m) >= looks(&l), "{n}: {width}x{height}");
                    }
                }
            }
        }
    }
}
