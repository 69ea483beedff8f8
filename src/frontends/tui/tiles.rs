//! The board drawn into a frame: its tiles at rest, or a frame of a move's motion (tiles
//! sliding, merged tiles popping, the new tile growing), and the advice's arrow beside it.

use super::frame::{Frame, Style};
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
    /// The advised direction, an arrow beside the board's middle row.
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

/// Draws one tile of exponent `e` (0: an empty cell) at `place`: a block of its colour with
/// its number on the middle row, centred (half rows above and below it on a three-row tile
/// of [`Layout::half`]; the upper of the two middle rows on a plain two-line tile).
fn draw_tile(frame: &mut Frame, colors: ColorMode, e: u8, place: Place) {
    let Place {
        at,
        size,
        half,
        mark,
    } = place;
    let style = Style::from(colors.tile(e));
    let block = Style {
        fg: None,
        bold: false,
        ..style
    };
    let half = half && size.1 >= 3;
    if half {
        // The half rows are the block's colour drawn as a character's: its background where
        // there is one, else (reverse video) the text's colour.
        let edge = Style {
            fg: style.bg,
            bg: None,
            bold: false,
            reverse: false,
        };
        let shows = style.bg.is_some() || style.reverse;
        for (row, ch) in [(at.1, '▄'), (at.1 + size.1 - 1, '▀')] {
            if shows {
                frame.put(at.0, row, &ch.to_string().repeat(size.0), edge);
            } else {
                frame.fill((at.0, row), (size.0, 1), Style::default());
            }
        }
        frame.fill((at.0, at.1 + 1), (size.0, size.1 - 2), block);
    } else {
        frame.fill(at, size, block);
    }
    let middle = at.1 + (size.1 - 1) / 2;
    let text = match e {
        0 if colors == ColorMode::None => ".".to_string(),
        0 => return,
        _ => tile_value(e).to_string(),
    };
    let len = text.chars().count();
    let col = at.0 + size.0.saturating_sub(len) / 2;
    frame.put(col, middle, &text, style);
    if mark {
        if size.1 >= 3 && !half {
            let col = at.0 + (size.0 - 3) / 2;
            frame.put(
                col,
                middle - 1,
                "new",
                Style {
                    bold: false,
                    ..style
                },
            );
        } else if col + len < at.0 + size.0 {
            frame.put(col + len, middle, "*", style);
        }
    }
}

/// Draws `board` in its place of `layout`: at rest, or the frame of a move in motion that
/// `marks` names; then the advice's arrow.
pub(super) fn draw_board(frame: &mut Frame, board: &Board, layout: &Layout, marks: Marks<'_>) {
    let n = board.size();
    let colors = marks.colors;
    let stage = marks
        .motion
        .map_or(Stage::Done, |(_, at)| Motion::stage(at));
    // The empty board under what moves.
    for r in 0..n {
        for c in 0..n {
            draw_tile(frame, colors, 0, Place::of(layout, (r, c)));
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
                draw_tile(frame, colors, t.exponent, place);
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
                    draw_tile(frame, colors, e, Place::of(layout, (r, c)));
                }
            }
            // Merged tiles a size larger (into the gaps around them), while it pops: a
            // column each side, and a line each side (half rows drawn whole: half a line).
            for (r, c) in merged {
                let (col, row) = layout.cell(r, c);
                let (w, h) = layout.tile;
                let grow = (layout.gap.0.min(1), layout.gap.1.min(1));
                let place = Place {
                    at: (col.saturating_sub(grow.0), row.saturating_sub(grow.1)),
                    size: (w + 2 * grow.0, h + 2 * grow.1),
                    half: false,
                    mark: false,
                };
                draw_tile(frame, colors, board.get(r, c), place);
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
                let size = (part(w).max(cell_width_of(e).min(w)), tall);
                let place = Place {
                    at: (col + (w - size.0) / 2, row + (h - size.1) / 2),
                    size,
                    half: layout.half,
                    mark: false,
                };
                draw_tile(frame, colors, e, place);
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
                        draw_tile(frame, colors, e, place);
                    }
                }
            }
        }
    }
    // The advised direction beside the middle row, where there is room.
    if let Some(direction) = marks.advised {
        let arrow = match direction {
            Direction::Up => "^",
            Direction::Down => "v",
            Direction::Left => "<",
            Direction::Right => ">",
        };
        let (_, row) = layout.cell(n / 2, 0);
        let col = layout.board.0 + layout.board_size.0 + 2;
        if col < frame.width {
            frame.put(col, row + (layout.tile.1 - 1) / 2, arrow, Style::BOLD);
        }
    }
}

/// The width of a tile's number.
fn cell_width_of(e: u8) -> usize {
    tile_value(e).to_string().len()
}
