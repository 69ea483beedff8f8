//! Whether a game's states follow one another by the rules: a move's slide, the new tile the
//! spawn rule may place, the points the scoring rule gives, and a first state whose score its
//! tiles can add up to. One implementation, with two users: a resumed save is checked with it
//! (a history no play could make does not count for a best score), and the referee checks the
//! new tile of each move a program prints with it ([`new_tile_fault`]).

use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use crate::model::game::Snapshot;
use crate::model::rules::{Rules, Score, Scoring, SpawnSite};

/// How a board after a move differs from the move's slide, where the spawn rule does not allow
/// it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NewTileFault {
    /// A cell the slide left with a tile holds another (the tiles did not slide as the move
    /// makes them): how many such cells.
    OtherCells(usize),
    /// No new tile, where the rule places one.
    Missing,
    /// More than one new tile: their exponents.
    Extra(Vec<u8>),
    /// One new tile of a value the rule does not place: its exponent.
    Value(u8),
    /// A new tile where the rule places none, or on another cell than the rule's.
    Site,
}

/// The cells where `board` holds a tile and `base` is empty (their exponents, in row-major
/// order), and how many other cells differ.
pub fn new_tiles(base: &Board, board: &Board) -> (Vec<u8>, usize) {
    let mut added = Vec::new();
    let mut other = 0;
    for (&b, &p) in base.exponents().iter().zip(board.exponents()) {
        if b == p {
            continue;
        }
        if b == 0 {
            added.push(p);
        } else {
            other += 1;
        }
    }
    (added, other)
}

/// Whether `after` is `slid` (the board a move made, before its new tile) with the new tile
/// `site` allows: `None` if so, else how it is not.
pub fn new_tile_fault(site: SpawnSite, slid: &Board, after: &Board) -> Option<NewTileFault> {
    let (added, other) = new_tiles(slid, after);
    if other > 0 {
        return Some(NewTileFault::OtherCells(other));
    }
    match (site, added.as_slice()) {
        (SpawnSite::Nowhere, []) => None,
        (SpawnSite::Nowhere, _) => Some(NewTileFault::Site),
        (SpawnSite::AnyEmpty(_) | SpawnSite::Cell { .. }, []) => Some(NewTileFault::Missing),
        (_, [_, _, ..]) => Some(NewTileFault::Extra(added)),
        (SpawnSite::AnyEmpty(tile), &[e]) => {
            (!tile.outcomes().iter().any(|&(_, o)| o == e)).then_some(NewTileFault::Value(e))
        }
        (SpawnSite::Cell { row, col, exponent }, &[e]) => {
            if after.get(row, col) != e {
                Some(NewTileFault::Site)
            } else if e != exponent {
                Some(NewTileFault::Value(e))
            } else {
                None
            }
        }
    }
}

/// The highest score the tiles of `board` can have earned when every point comes from merges:
/// a tile 2^k built from 2s earned (k-1) * 2^k, and a 4 placed as a new tile instead of two
/// merged 2s earns 4 less (so a reachable score is below this by a multiple of 4).
pub fn highest_score(board: &Board) -> Score {
    board
        .exponents()
        .iter()
        .filter(|&&e| e > 0)
        .map(|&e| (Score::from(e) - 1) * Score::try_from(tile_value(e)).unwrap_or(Score::MAX))
        .sum()
}

/// Why `after` cannot follow `before` under `rules`: no move's slide, new tile and points make
/// it. `None` when one does.
pub fn step_fault(rules: &Rules, before: Snapshot, after: Snapshot) -> Option<String> {
    // A move that changes nothing still changes the score under some scoring rules.
    if after.board == before.board {
        let unmoved = before.score + rules.score_of(0, 0, 1);
        return (after.score != unmoved || unmoved == before.score)
            .then(|| "the board is the same, and no move changes the score so".to_string());
    }
    let mut closest = None;
    for direction in Direction::ALL {
        let Some((slid, points)) = before.board.slide(direction) else {
            continue;
        };
        let site = rules.spawn_site(&slid, direction);
        match new_tile_fault(site, &slid, &after.board) {
            None => {
                let score = before.score + rules.score_of(points, 1, 0);
                if after.score == score {
                    return None;
                }
                closest = Some(format!(
                    "the move {} makes a score of {score}, not {}",
                    direction.name(),
                    after.score
                ));
            }
            Some(fault) if closest.is_none() && !matches!(fault, NewTileFault::OtherCells(_)) => {
                closest = Some(format!(
                    "the move {} leaves {}",
                    direction.name(),
                    match fault {
                        NewTileFault::Missing => "no new tile".to_string(),
                        NewTileFault::Extra(tiles) => format!("{} new tiles", tiles.len()),
                        NewTileFault::Value(e) => format!("a new {}", tile_value(e)),
                        NewTileFault::Site | NewTileFault::OtherCells(_) => {
                            "a new tile where the rules place none".to_string()
                        }
                    }
                ));
            }
            Some(_) => {}
        }
    }
    Some(closest.unwrap_or_else(|| "no move slides the tiles to this board".to_string()))
}

/// The least score `board`'s tiles can have earned: each tile of 8 or more merged up from
/// 4s (a 4 may appear as it is), `(k - 2) * 2^k` for a tile of `2^k`.
pub fn lowest_score(board: &Board) -> Score {
    board
        .exponents()
        .iter()
        .filter(|&&e| e > 2)
        .map(|&e| (Score::from(e) - 2) * Score::try_from(tile_value(e)).unwrap_or(Score::MAX))
        .sum()
}

/// Why `state`, the first of a history, cannot be: a score its tiles cannot add up to, too
/// high or too low (under the merges scoring rule; any score can be the first of a history
/// the others keep).
pub fn start_fault(rules: &Rules, state: Snapshot) -> Option<String> {
    if rules.scoring() != Scoring::Merges {
        return None;
    }
    let highest = highest_score(&state.board);
    let lowest = lowest_score(&state.board);
    let score = state.score;
    if score < 0 {
        return Some(format!("a score of {score}, below 0"));
    }
    if score > highest {
        return Some(format!(
            "a score of {score}, more than its tiles can have earned: {highest} at most"
        ));
    }
    if score < lowest {
        return Some(format!(
            "a score of {score}, less than its tiles must have earned: {lowest} at least"
        ));
    }
    ((highest - score) % 4 != 0).then(|| {
        format!(
            "a score of {score}, which its tiles cannot have earned: {highest} less a multiple of 4"
        )
    })
}

/// The first state of `states` (oldest first) that the rules cannot explain, by its position
/// (1-based), with why; `None` when every state can follow the one before it, and the first
/// can be.
pub fn first_unexplained(rules: &Rules, states: &[Snapshot]) -> Option<(usize, String)> {
    let first = states.first()?;
    if let Some(why) = start_fault(rules, *first) {
        return Some((1, why));
    }
    states
        .windows(2)
        .enumerate()
        .find_map(|(i, pair)| step_fault(rules, pair[0], pair[1]).map(|why| (i + 2, why)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::game::Game;
    use crate::model::random::seeded;
    use crate::model::rules::Spawn;

    fn board(rows: &[&[u64]]) -> Board {
        Board::from_values(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn a_score_too_low_for_its_tiles_is_not_explained() {
        let rules = Rules::power11(4).unwrap();
        let huge = Board::from_exponents(4, &{
            let mut cells = vec![0u8; 16];
            cells[0] = 62;
            cells[1] = 62;
            cells
        })
        .unwrap();
        let forged = Snapshot {
            board: huge,
            score: 0,
        };
        let why = start_fault(&rules, forged).unwrap();
        assert!(
            why.starts_with("a score of 0, less than its tiles must have earned: "),
            "{why}"
        );
        // A 2048 made of 4s alone scores 9 x 2048; of 2s alone, 10 x 2048.
        let one = board(&[&[2048, 0, 0, 0], &[0; 4], &[0; 4], &[0; 4]]);
        assert_eq!(lowest_score(&one), 9 * 2048);
        assert_eq!(highest_score(&one), 10 * 2048);
        for (score, fine) in [(9 * 2048, true), (10 * 2048, true), (9 * 2048 - 4, false)] {
            let state = Snapshot { board: one, score };
            assert_eq!(start_fault(&rules, state).is_none(), fine, "{score}");
        }
    }

    #[test]
    fn every_game_played_by_the_rules_is_explained() {
        for (seed, rules) in [
            (1, Rules::power11(4).unwrap()),
            (2, Rules::power11(5).unwrap()),
            (3, Rules::classic()),
            (4, Rules::mini()),
            (5, Rules::edge()),
            (6, Rules::classic().with_spawn(Spawn::None)),
            (7, Rules::classic().with_scoring(Scoring::Moves)),
        ] {
            let mut rng = seeded(seed);
            let mut game = Game::new(rules, &mut rng);
            for i in 0..400 {
                game.play(Direction::ALL[(i * 7 + i / 3) % 4], &mut rng);
            }
            let states = game.timeline().states();
            assert!(states.len() > 20, "{seed}");
            assert_eq!(first_unexplained(&rules, states), None, "{seed}");
        }
    }

    #[test]
    fn a_forged_history_is_named_at_its_first_bad_state() {
        let rules = Rules::power11(4).unwrap();
        let start = Snapshot {
            board: board(&[&[2, 0, 0, 0], &[0; 4], &[0; 4], &[0, 0, 0, 2]]),
            score: 0,
        };
        let forged = Snapshot {
            board: board(&[&[2048, 2048, 0, 0], &[2048, 2048, 0, 0], &[0; 4], &[0; 4]]),
            score: 999_999,
        };
        let (at, why) = first_unexplained(&rules, &[start, forged]).unwrap();
        assert_eq!(at, 2);
        assert_eq!(why, "no move slides the tiles to this board");
        // Two 2s scored 20000: no merge made those points.
        let lone = Snapshot {
            score: 20_000,
            ..start
        };
        let (at, why) = first_unexplained(&rules, &[lone]).unwrap();
        assert_eq!(at, 1);
        assert_eq!(
            why,
            "a score of 20000, more than its tiles can have earned: 0 at most"
        );
        // The right slide with a new 8, or the right board with too many points.
        let left = Snapshot {
            board: board(&[&[2, 0, 0, 0], &[0; 4], &[0; 4], &[2, 0, 0, 8]]),
            score: 0,
        };
        assert_eq!(
            step_fault(&rules, start, left).unwrap(),
            "the move Left leaves a new 8"
        );
        let left_scored = Snapshot {
            board: board(&[&[2, 0, 0, 0], &[0; 4], &[0; 4], &[2, 0, 0, 2]]),
            score: 8,
        };
        assert_eq!(
            step_fault(&rules, start, left_scored).unwrap(),
            "the move Left makes a score of 0, not 8"
        );
    }

    #[test]
    fn a_new_tile_is_judged_by_the_spawn_rule() {
        let slid = board(&[&[4, 0, 0], &[0; 3], &[0; 3]]);
        let with = |value: u64| board(&[&[4, 0, 0], &[0, value, 0], &[0; 3]]);
        let any = SpawnSite::AnyEmpty(crate::model::rules::NewTile::TwoOrFour);
        assert_eq!(new_tile_fault(any, &slid, &with(2)), None);
        assert_eq!(new_tile_fault(any, &slid, &with(4)), None);
        assert_eq!(
            new_tile_fault(any, &slid, &with(8)),
            Some(NewTileFault::Value(3))
        );
        assert_eq!(
            new_tile_fault(any, &slid, &slid),
            Some(NewTileFault::Missing)
        );
        assert_eq!(new_tile_fault(SpawnSite::Nowhere, &slid, &slid), None);
        let cell = SpawnSite::Cell {
            row: 2,
            col: 2,
            exponent: 1,
        };
        assert_eq!(
            new_tile_fault(cell, &slid, &with(2)),
            Some(NewTileFault::Site)
        );
        let moved = board(&[&[0, 4, 0], &[0; 3], &[0; 3]]);
        assert_eq!(
            new_tile_fault(any, &slid, &moved),
            Some(NewTileFault::OtherCells(1))
        );
    }
}
