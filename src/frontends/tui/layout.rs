//! Where everything goes on a game screen, for a window's size alone: the title, score,
//! message and key lines have fixed rows, and the board's tiles the largest size that fits
//! beside them. Nothing a frame shows (a long message, advice, a flag) moves or resizes the
//! board: only the window, or a tile wider than the board was drawn for, does.

/// The tile sizes tried, largest first (columns, lines, half): about the web game's square
/// tiles (a character is about twice as tall as wide) in small steps, odd heights so that the
/// digits sit on the middle line; then two-line tiles drawn as half a line, a line and half a
/// line (`▄`, the digits, `▀`: three rows, the half rows' other halves the gap between rows of
/// tiles), so that their digits are in the middle too; where one row is missing for those,
/// plain two-line tiles (digits on the upper line); then one line a tile.
const TILE_SIZES: [(usize, usize, bool); 11] = [
    (15, 7, false),
    (13, 5, false),
    (11, 5, false),
    (9, 3, false),
    (7, 3, false),
    (8, 3, true),
    (8, 2, false),
    (6, 3, true),
    (6, 2, false),
    (0, 1, false),
    (0, 1, false),
];

/// The fixed lines of a game screen: the title, the score line, two message lines, the keys.
pub(super) const FIXED_LINES: usize = 5;

/// The lines the message takes (it is wrapped to them and shortened past them).
pub(super) const MESSAGE_LINES: usize = 2;

/// The columns kept right of the board for the advice's arrow.
const ARROW: usize = 3;

/// The narrowest text column: the shortest key line.
pub(super) const LEAST_TEXT: usize = 36;

/// The widest text column: text lines are at most this wide, centred with the board.
const TEXT_WIDTH: usize = 80;

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
    /// The board's top left corner (column, row) and its size (columns, lines).
    pub(super) board: (usize, usize),
    /// See `board`.
    pub(super) board_size: (usize, usize),
    /// The text lines' first column and width.
    pub(super) text: (usize, usize),
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
    /// The top left corner of the tile in row `r`, column `c` (column, row).
    pub(super) fn cell(&self, r: usize, c: usize) -> (usize, usize) {
        (
            self.board.0 + c * (self.tile.0 + self.gap.0),
            self.board.1 + r * (self.tile.1 + self.gap.1),
        )
    }
}

/// The layout of an `n` x `n` board whose numbers are up to `digits` wide in a window of
/// `width` x `height`, or `None` if even one-line tiles do not fit. It depends on nothing
/// else, so messages and advice never move the board.
pub(super) fn game_layout(n: usize, digits: usize, width: usize, height: usize) -> Option<Layout> {
    let least = digits + 2;
    let no_gap = TILE_SIZES.len() - 1;
    TILE_SIZES
        .iter()
        .enumerate()
        .find_map(|(k, &(w, h, half))| {
            let tile = (w.max(least), h);
            let gap = match (half, h) {
                (true, _) => (2, 0),
                (false, 1) => (1, usize::from(k != no_gap)),
                (false, _) => (2, 1),
            };
            let board_size = (n * tile.0 + (n - 1) * gap.0, n * tile.1 + (n - 1) * gap.1);
            // Room for the advice's arrow on both sides (the board is centred), but where tiles
            // are a line high and every column counts.
            let wide = if h > 1 {
                board_size.0 + 2 * ARROW
            } else {
                board_size.0
            };
            if wide.max(LEAST_TEXT) > width || board_size.1 + FIXED_LINES > height {
                return None;
            }
            let spare = height - board_size.1 - FIXED_LINES;
            // A blank line under the score line and one above the message, where there is room.
            let (above, below) = (usize::from(spare >= 1), usize::from(spare >= 2));
            let top = (spare - above - below) / 2;
            let text_width = width.min(TEXT_WIDTH.max(board_size.0));
            let board_row = top + 2 + above;
            let message = board_row + board_size.1 + below;
            Some(Layout {
                tile,
                half,
                gap,
                board: ((width - board_size.0) / 2, board_row),
                board_size,
                text: ((width - text_width) / 2, text_width),
                title: top,
                score: top + 1,
                message,
                keys: message + MESSAGE_LINES,
                bottom: message + MESSAGE_LINES + 1,
            })
        })
}

/// The smallest window a board of `n` x `n` with numbers `digits` wide plays in (columns,
/// lines), with the shortest key line.
pub(super) fn least_window(n: usize, digits: usize) -> (usize, usize) {
    let least = digits + 2;
    ((n * least + n - 1).max(LEAST_TEXT), n + FIXED_LINES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_board_depends_on_the_window_alone_and_fills_it() {
        // 4x4 at 60x20: tiles of three lines; at 79x20 the same as at 80x20.
        let at = |w, h| game_layout(4, 4, w, h).unwrap();
        assert_eq!(at(60, 20).tile.1, 3);
        assert_eq!(at(79, 20).tile, at(80, 20).tile);
        assert_eq!(at(120, 40).tile, (15, 7));
        // Blank lines between rows of one-line tiles at 40x12, 3x3 and 4x4.
        assert_eq!((at(40, 12).tile.1, at(40, 12).gap.1), (1, 1));
        assert_eq!(game_layout(3, 4, 40, 12).unwrap().gap.1, 1);
        assert!(game_layout(5, 4, 50, 14).is_some());
        assert!(game_layout(8, 4, 80, 24).is_some());
        // Two-line tiles with their digits in the middle: 6x6 at 80x24 (three rows a tile,
        // half rows above and below); a row short of that, plain two-line tiles.
        let six = game_layout(6, 4, 80, 24).unwrap();
        assert_eq!((six.tile, six.half, six.gap.1), ((8, 3), true, 0));
        let short = game_layout(6, 4, 80, 22).unwrap();
        assert_eq!((short.tile, short.half, short.gap.1), ((8, 2), false, 1));
        // Every layout of every window fits it, its board centred to the column.
        for n in 3..=8 {
            for width in 10..=130 {
                for height in 5..=45 {
                    let Some(l) = game_layout(n, 4, width, height) else {
                        continue;
                    };
                    assert!(l.bottom <= height && l.board.0 + l.board_size.0 <= width);
                    assert_eq!(l.board.0, (width - l.board_size.0) / 2);
                    assert!(l.text.0 + l.text.1 <= width);
                    assert!(l.score < l.board.1 && l.board.1 + l.board_size.1 <= l.message);
                    // A larger window never gets smaller tiles (half rows look like one line
                    // between them).
                    let looks = |l: &Layout| l.tile.0 * (l.tile.1 - usize::from(l.half));
                    if let Some(m) = game_layout(n, 4, width + 1, height + 1) {
                        assert!(looks(&m) >= looks(&l));
                    }
                    // Half rows only on three-row tiles, whose gap they are.
                    assert!(!l.half || (l.tile.1 == 3 && l.gap.1 == 0));
                }
            }
        }
    }
}
