//! A move's motion, as the web game shows it: tiles slide to their places, merged tiles pop,
//! the new tile grows in, and the points earned (`+N`) rise beside the score. Computed from
//! what the session reported (the board before, the direction, the board after) through the
//! model's one merge loop ([`Board::travels`]): the front end decides no rule.

use crate::model::board::{Board, Slid};
use crate::model::direction::Direction;
use std::time::Duration;

/// When each frame of a move is drawn, from the key: three frames of sliding, the pop and the
/// new tile growing, and the board at rest 150 ms after the key.
pub const SCHEDULE: [Duration; 6] = [
    Duration::from_millis(0),
    Duration::from_millis(30),
    Duration::from_millis(60),
    Duration::from_millis(90),
    Duration::from_millis(120),
    Duration::from_millis(150),
];

/// The frames that slide the tiles (the first [`SLIDING`] of [`SCHEDULE`]).
const SLIDING: usize = 3;

/// One move's motion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Motion {
    /// Where each tile of the board before went.
    pub(super) travels: Vec<Slid>,
    /// The tile that appeared after the slide (its cell and exponent), if one did.
    pub(super) new_tile: Option<((usize, usize), u8)>,
    /// The points the move earned (shown rising as `+N`), 0 for none.
    pub(super) points: i128,
}

/// What a frame of a move shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Stage {
    /// The tiles of the board before, this far (0 to 1) on their way; no new tile yet.
    Slide(f64),
    /// The board after, merged tiles a size larger, the new tile this far grown (0 to 1).
    Pop(f64),
    /// The board at rest.
    Done,
}

impl Motion {
    /// The motion of a move toward `direction` that took `before` to `after` (the new tile
    /// placed) and earned `points`; `None` if it moved nothing.
    pub fn new(
        before: &Board,
        direction: Direction,
        after: &Board,
        points: i128,
    ) -> Option<Motion> {
        let (slid, _) = before.slide(direction)?;
        let n = slid.size();
        let new_tile = (0..n * n)
            .map(|i| (i / n, i % n))
            .find(|&(r, c)| slid.get(r, c) == 0 && after.get(r, c) != 0)
            .map(|(r, c)| ((r, c), after.get(r, c)));
        Some(Motion {
            travels: before.travels(direction),
            new_tile,
            points,
        })
    }

    /// The cell the new tile appeared in.
    pub fn new_cell(&self) -> Option<(usize, usize)> {
        self.new_tile.map(|(cell, _)| cell)
    }

    /// The cells where tiles merged.
    pub(super) fn merged(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.travels.iter().filter(|t| t.merged).map(|t| t.to)
    }

    /// What the frame drawn `elapsed` after the key shows: the frame of [`SCHEDULE`] due last.
    pub(super) fn stage(elapsed: Duration) -> Stage {
        let frame = SCHEDULE.iter().rposition(|&at| at <= elapsed).unwrap_or(0);
        if frame < SLIDING {
            Stage::Slide((frame + 1) as f64 / SLIDING as f64)
        } else if frame + 1 < SCHEDULE.len() {
            let grown = (frame + 1 - SLIDING) as f64 / (SCHEDULE.len() - SLIDING) as f64;
            Stage::Pop(grown)
        } else {
            Stage::Done
        }
    }

    /// When the next frame after one drawn `elapsed` after the key is due, if the motion is
    /// not over.
    pub fn next_frame(elapsed: Duration) -> Option<Duration> {
        SCHEDULE.iter().copied().find(|&at| at > elapsed)
    }

    /// The row above the score line the `+N` has risen to (0: on it, 1: the line above), or
    /// `None` once it is gone.
    pub(super) fn rise(&self, elapsed: Duration) -> Option<usize> {
        if self.points <= 0 {
            return None;
        }
        match Motion::stage(elapsed) {
            Stage::Slide(_) => Some(0),
            Stage::Pop(_) => Some(1),
            Stage::Done => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_at_least_three_frames_and_at_rest_within_250_ms() {
        assert!(SCHEDULE.len() >= 3);
        let last = *SCHEDULE.last().unwrap();
        assert!(last <= Duration::from_millis(250), "{last:?}");
        assert!(SCHEDULE.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Motion::stage(last), Stage::Done);
        assert_eq!(Motion::stage(Duration::ZERO), Stage::Slide(1.0 / 3.0));
        // Each frame of the schedule shows something the one before did not.
        let stages: Vec<Stage> = SCHEDULE.iter().map(|&at| Motion::stage(at)).collect();
        assert!(stages.windows(2).all(|w| w[0] != w[1]), "{stages:?}");
        // Frames are asked for in turn, and none after the last.
        let mut at = Duration::ZERO;
        let mut frames = 1;
        while let Some(next) = Motion::next_frame(at) {
            at = next;
            frames += 1;
        }
        assert_eq!((frames, at), (SCHEDULE.len(), last));
    }

    #[test]
    fn the_motion_follows_the_rules_slide() {
        let before = Board::from_values(&[vec![2, 2, 0], vec![0, 4, 4], vec![8, 0, 0]]).unwrap();
        let mut after = before.slide(Direction::Left).unwrap().0;
        after.set(2, 2, 1);
        let motion = Motion::new(&before, Direction::Left, &after, 12).unwrap();
        assert_eq!(motion.new_tile, Some(((2, 2), 1)));
        assert_eq!(motion.merged().collect::<Vec<_>>(), [(0, 0), (1, 0)]);
        assert_eq!(motion.travels.len(), 5);
        assert!(Motion::new(&before, Direction::Right, &before, 0).is_some());
        let still = Board::from_values(&[vec![2, 4, 8], vec![0; 3], vec![0; 3]]).unwrap();
        assert_eq!(Motion::new(&still, Direction::Left, &still, 0), None);
        assert_eq!(motion.rise(Duration::ZERO), Some(0));
        assert_eq!(motion.rise(SCHEDULE[5]), None);
    }
}
