//! The board drawn into a frame: its tiles at rest, or a frame of a move's motion (tiles
//! sliding, merged tiles popping, the new tile growing) on the board's colour, and the
//! advice's arrows on the board.

use super::frame::{Frame, Style};
use super::glyphs;
use super::layout::Layout;
use super::motion::{Motion, Stage};
use super::palette::ColorMode;
use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use std::time::Duration;

/// What the board shows besides its tiles.
#[derive(Clone, Copy, Debug)]
pub(super) struct Marks<'a> {
    /// How colours are drawn.
    pub(super) colors: ColorMode,
    /// The move in motion and the time since its key, if one is.
    pub(super) motion: Option<(&'a Motion, Duration)>,
    /// The cell of the tile that appeared last, marked `new` (or `*`).
    pub(super) new_tile: Option<(usize, usize)>,
    /// The advised direction, its arrows drawn on the board.
    pub(super) advised: Option<Direction>,
}

/// How one tile is drawn: its top left corner, its size, whether its top and bottom rows are
/// half rows ([`Layout::half`]), and whether it is marked as the new tile.
#[derive(Clone, Copy, Debug)]
struct Place {
    at: (usize, usize),
    size: (usize, usize),
    half: bool,
    mark: bool,
}

impl Place {
    /// The place of the merged tile in row `r`, column `c` while it pops: a column larger
    /// each side and a line larger above and below (into the gaps), never past the board.
    fn popped(layout: &Layout, (r, c): (usize, usize)) -> Place {
        let (col, row) = layout.cell(r, c);
        let (w, h) = layout.tile;
        let grow = (layout.gap.0.min(1), layout.gap.1.min(1));
        let start = (
            col.saturating_sub(grow.0).max(layout.board.0),
            row.saturating_sub(grow.1).max(layout.board.1),
        );
        let end = (
            (col + w + grow.0).min(layout.board.0 + layout.board_size.0),
            (row + h + grow.1).min(layout.board.1 + layout.board_size.1),
        );
        Place {
            at: start,
            size: (end.0 - start.0, end.1 - start.1),
            half: false,
            mark: false,
        }
    }

    /// The place of the tile in row `r`, column `c` of `layout`, at rest.
    fn of(layout: &Layout, (r, c): (usize, usize)) -> Place {
        Place {
            at: layout.cell(r, c),
            size: layout.tile,
            half: layout.half,
            mark: false,
        }
    }
}

/// The number on a tile of exponent `e` in `room` columns: in full where it fits, else short
/// (`16k`, `128M`: a power of 1024 and its prefix, at most four characters below 2^70, as
/// `2^70` to `2^99` past it), else cut to the room with `…` (never a shorter number).
pub(super) fn number_text(e: u8, room: usize) -> String {
    const PREFIXES: [&str; 6] = ["k", "M", "G", "T", "P", "E"];
    let full = tile_value(e).to_string();
    if full.len() <= room {
        return full;
    }
    let unit = usize::from(e / 10);
    let short = match PREFIXES.get(unit.wrapping_sub(1)) {
        Some(prefix) => format!("{}{prefix}", 1u32 << (e % 10)),
        None => format!("2^{e}"),
    };
    if short.chars().count() <= room {
        return short;
    }
    let mut cut: String = short.chars().take(room.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Draws one tile of exponent `e` (0: an empty cell) at `place`: its block, then its number
/// on the middle row, centred (the upper of the two middle rows on a plain two-line tile), in
/// big glyphs on the middle three where `big` and they fit, `new` on the line above it where
/// that line is inside the block (else `*` after it).
fn draw_tile(frame: &mut Frame, colors: ColorMode, e: u8, place: Place, big: bool) {
    let style = Style::from(colors.tile(e));
    let half = draw_block(frame, colors, style, place);
    let Place { at, size, mark, .. } = place;
    let room = size.0.saturating_sub(2);
    let middle = at.1 + (size.1 - 1) / 2;
    let lines: Vec<String> = match e {
        0 if colors == ColorMode::None => vec![".".to_string()],
        0 => return,
        _ => big
            .then(|| big_number(e, room))
            .flatten()
            .filter(|_| size.1 - 2 * usize::from(half) >= glyphs::LINES)
            .map_or_else(|| vec![number_text(e, room)], Vec::from),
    };
    let top = middle + 1 - lines.len().div_ceil(2);
    let len = lines[0].chars().count();
    let col = at.0 + size.0.saturating_sub(len) / 2;
    for (k, line) in lines.iter().enumerate() {
        frame.put(col, top + k, line, style);
    }
    if mark {
        if top > at.1 + usize::from(half) {
            let plain = Style {
                bold: false,
                ..style
            };
            frame.put(at.0 + (size.0 - 3) / 2, top - 1, "new", plain);
        } else if col + len < at.0 + size.0 {
            frame.put(col + len, middle, "*", style);
        }
    }
}

/// The number of `e` in big glyphs within `room` columns: in full, else short, if either fits.
fn big_number(e: u8, room: usize) -> Option<[String; glyphs::LINES]> {
    [tile_value(e).to_string(), number_text(e, 4)]
        .into_iter()
        .find(|t| glyphs::width(t) <= room)
        .and_then(|t| glyphs::big(&t))
}

/// Draws the block of a tile drawn in `style` at `place`; returns whether its top and bottom
/// rows are half rows ([`Layout::half`], on tiles of three rows or more). On a board of its
/// own colour a half row is half the tile's colour and half the board's.
fn draw_block(frame: &mut Frame, colors: ColorMode, style: Style, place: Place) -> bool {
    let Place { at, size, .. } = place;
    let block = Style {
        fg: None,
        bold: false,
        ..style
    };
    let half = place.half && size.1 >= 3;
    if !half {
        frame.fill(at, size, block);
        return false;
    }
    let plain = Style::default();
    for (row, ch) in [(at.1, '▄'), (at.1 + size.1 - 1, '▀')] {
        match colors.board() {
            // The board's half drawn as a character's colour, the tile's as the background:
            // this works for a tile of the terminal's own background too.
            Some(board) => {
                let other = if ch == '▄' { '▀' } else { '▄' };
                let edge = Style {
                    fg: board.bg,
                    bg: style.bg,
                    ..plain
                };
                frame.put(at.0, row, &other.to_string().repeat(size.0), edge);
            }
            // Without colour the block's half is the text's colour, where it is a block.
            None if style.reverse => frame.put(at.0, row, &ch.to_string().repeat(size.0), plain),
            None => frame.fill((at.0, row), (size.0, 1), plain),
        }
    }
    frame.fill((at.0, at.1 + 1), (size.0, size.1 - 2), block);
    true
}

/// Draws `board` in its place of `layout`: at rest, or the frame of a move in motion that
/// `marks` names; then the advice's arrow.
pub(super) fn draw_board(frame: &mut Frame, board: &Board, layout: &Layout, marks: Marks<'_>) {
    let n = board.size();
    let colors = marks.colors;
    let big = layout.big;
    let stage = marks
        .motion
        .map_or(Stage::Done, |(_, at)| Motion::stage(at));
    // The board's colour, then the empty cells on it, under what moves.
    if let Some(board) = colors.board() {
        frame.fill(
            layout.board,
            layout.board_size,
            Style {
                fg: None,
                bold: false,
                ..Style::from(board)
            },
        );
    }
    for r in 0..n {
        for c in 0..n {
            draw_tile(frame, colors, 0, Place::of(layout, (r, c)), false);
        }
    }
    match (stage, marks.motion) {
        (Stage::Slide(p), Some((motion, _))) => {
            // Tiles that stay first, those that move over them after.
            let mut travels = motion.travels.clone();
            travels.sort_by_key(|t| t.from != t.to);
            for t in travels {
                let (from, to) = (layout.cell(t.from.0, t.from.1), layout.cell(t.to.0, t.to.1));
                let between = |a: usize, b: usize| {
                    let (a, b) = (a as f64, b as f64);
                    (a + (b - a) * p).round() as usize
                };
                let place = Place {
                    at: (between(from.0, to.0), between(from.1, to.1)),
                    ..Place::of(layout, t.from)
                };
                draw_tile(frame, colors, t.exponent, place, big);
            }
        }
        (Stage::Pop(grown), Some((motion, _))) => {
            let merged: Vec<_> = motion.merged().collect();
            for r in 0..n {
                for c in 0..n {
                    let e = board.get(r, c);
                    if e == 0 || motion.new_cell() == Some((r, c)) || merged.contains(&(r, c)) {
                        continue;
                    }
                    draw_tile(frame, colors, e, Place::of(layout, (r, c)), big);
                }
            }
            // Merged tiles a size larger (into the gaps around them), while it pops: a
            // column each side, and a line each side (half rows drawn whole: half a line),
            // never past the board's edge.
            for (r, c) in merged {
                draw_tile(
                    frame,
                    colors,
                    board.get(r, c),
                    Place::popped(layout, (r, c)),
                    big,
                );
            }
            // The new tile grows from its middle (its middle row alone until it is whole,
            // where its top and bottom are half rows).
            if let Some(((r, c), e)) = motion.new_tile {
                let (col, row) = layout.cell(r, c);
                let (w, h) = layout.tile;
                let part = |v: usize| ((v as f64 * grown).ceil() as usize).clamp(1, v);
                let tall = if layout.half && grown < 1.0 {
                    1
                } else {
                    part(h)
                };
                let size = (
                    part(w).max(number_text(e, w.saturating_sub(2)).chars().count().min(w)),
                    tall,
                );
                let place = Place {
                    at: (col + (w - size.0) / 2, row + (h - size.1) / 2),
                    size,
                    half: layout.half,
                    mark: false,
                };
                draw_tile(frame, colors, e, place, big);
            }
        }
        _ => {
            for r in 0..n {
                for c in 0..n {
                    let e = board.get(r, c);
                    if e != 0 {
                        let place = Place {
                            mark: marks.new_tile == Some((r, c)),
                            ..Place::of(layout, (r, c))
                        };
                        draw_tile(frame, colors, e, place, big);
                    }
                }
            }
        }
    }
    if let Some(direction) = marks.advised {
        draw_arrows(frame, layout, board, colors, direction);
    }
}

/// The advice on the board, in the board's colours: its arrow in the gaps and margins across
/// the way the tiles go (between the columns for left and right, between the rows for up and
/// down, where there are lines between them); and, where numbers are big, a big arrow in
/// every empty cell.
fn draw_arrows(
    frame: &mut Frame,
    layout: &Layout,
    board: &Board,
    colors: ColorMode,
    to: Direction,
) {
    let n = board.size();
    let arrow = match to {
        Direction::Up => "^",
        Direction::Down => "v",
        Direction::Left => "<",
        Direction::Right => ">",
    };
    let style = colors.board().map_or(Style::BOLD, Style::from);
    let (tile, gap, margin) = (layout.tile, layout.gap, layout.margin);
    // The middle of each strip of board between (and beside) the tiles, along one axis.
    let strips = |start: usize, size: usize, tile: usize, gap: usize, margin: usize| {
        let mut at = Vec::new();
        if margin > 0 {
            at.push(start + (margin - 1) / 2);
            at.push(start + size - 1 - (margin - 1) / 2);
        }
        if gap > 0 {
            at.extend((0..n - 1).map(|k| start + margin + k * (tile + gap) + tile + (gap - 1) / 2));
        }
        at
    };
    let middles = |start: usize, tile: usize, gap: usize, margin: usize| -> Vec<usize> {
        (0..n)
            .map(|k| start + margin + k * (tile + gap) + (tile - 1) / 2)
            .collect()
    };
    let across_rows = matches!(to, Direction::Up | Direction::Down) && (gap.1 > 0 || margin.1 > 0);
    let (rows, columns) = if across_rows {
        (
            strips(layout.board.1, layout.board_size.1, tile.1, gap.1, margin.1),
            middles(layout.board.0, tile.0, gap.0, margin.0),
        )
    } else {
        (
            middles(layout.board.1, tile.1, gap.1, margin.1),
            strips(layout.board.0, layout.board_size.0, tile.0, gap.0, margin.0),
        )
    };
    for &row in &rows {
        for &col in &columns {
            frame.put(col, row, arrow, style);
        }
    }
    if !layout.big {
        return;
    }
    let lines = glyphs::arrow(to);
    let empty = Style {
        bold: false,
        ..Style::from(colors.tile(0))
    };
    for r in 0..n {
        for c in 0..n {
            if board.get(r, c) != 0 {
                continue;
            }
            let (col, row) = layout.cell(r, c);
            let (col, middle) = (col + (tile.0 - 3) / 2, row + (tile.1 - 1) / 2);
            for (k, line) in lines.iter().enumerate() {
                frame.put(col, middle - 1 + k, line, empty);
            }
        }
    }
}
