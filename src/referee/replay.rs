//! The assignment's rules played alongside the keys. Each key's effect is computed from the
//! rules alone (a slide and its points, an undo, a resume); a key that changes the state takes
//! the next printed board that is not a reprint of the current state, which must be what the
//! rules make of it (new tiles, which no referee can predict, are learned from it once checked
//! to be one new 2 or 4 on a cell the slide left empty). A key that changes nothing is blamed
//! for a board only when the board shows what that key must not do and no later key explains
//! it. The first violation ends the replay.

use super::keys::Key;
use super::slides::{direction_of, merging_again, values};
use super::transcript::{End, Printed};
use super::{Finding, KeyAt, Rule};
use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use crate::model::game::Snapshot;
use crate::model::grid::Grid;
use crate::model::history::{NewTileFault, new_tile_fault, new_tiles};
use crate::model::rules::{NewTile, Rules, Score, SpawnSite};

/// The exponent of the tile that wins (2048).
const GOAL: u8 = 11;

/// A game's state: what a save holds of it.
pub(super) type State = Snapshot;

/// What the replay found: the first violation, and the game's states at the last `s`.
pub(super) struct Outcome {
    pub violation: Option<Finding>,
    pub saved: Option<Vec<State>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Menu,
    Game,
    /// Won or lost: the next key goes back to the menu.
    Ended,
    Closed,
}

/// What the rules say a key does to the state, when it changes it.
#[derive(Clone, Copy, Debug)]
enum Expect {
    /// A new game on a board of this side.
    NewGame(usize),
    /// A move that changes the board: the board after its slide and the points it scored.
    Move {
        direction: Direction,
        slid: Board,
        points: u64,
    },
    /// Exactly this state (undo, resume); `rule` is what a different board breaks.
    Exact { state: State, rule: Rule },
    /// This state, or no change at all: an undo into a resumed game's saved states, which a
    /// program whose saves keep one state does not have.
    ExactOrNothing(State),
}

/// What a key that changes nothing must not do, where a board shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Blame {
    /// Nothing to blame it for: a later key explains any board.
    Nothing,
    /// A move that changes nothing: no new tile, the same score.
    UnchangedMove,
    /// `s`: the board as it was.
    Save,
    /// `b` at the start of the game.
    UndoPastStart,
    /// The key after the end of a game: back to the menu, no move.
    EndReturns,
}

#[derive(Clone)]
struct Replay<'a> {
    boards: &'a [Printed],
    /// The first board not yet explained.
    next: usize,
    phase: Phase,
    /// The game's states, oldest first; the last is the current one.
    history: Vec<State>,
    /// How many of `history`'s states a resume read from the save.
    resumed: usize,
    saved: Option<Vec<State>>,
    /// A replay looking ahead for another key's board (it blames no one).
    probing: bool,
    /// The last board taken as a reprint, while no board has been taken since.
    reprint_at: Option<usize>,
}

/// Replays `keys` against the `boards` printed.
pub(super) fn replay(keys: &[Key], boards: &[Printed]) -> Outcome {
    let mut replay = Replay {
        boards,
        next: 0,
        phase: Phase::Menu,
        history: Vec::new(),
        resumed: 0,
        saved: None,
        probing: false,
        reprint_at: None,
    };
    let mut violation = None;
    for (i, key) in keys.iter().enumerate() {
        if let Err(finding) = replay.step(key, &keys[i + 1..]) {
            violation = Some(*finding);
            break;
        }
    }
    if violation.is_none() {
        violation = replay.finish().err().map(|finding| *finding);
    }
    Outcome {
        violation,
        saved: replay.saved,
    }
}

/// Whether `printed` shows `state`: its board, and its score where a score line goes with it.
fn shows(printed: &Printed, state: State) -> bool {
    printed.board == state.board && printed.score.is_none_or(|s| s == state.score)
}

/// A violation, boxed: it ends the replay, which carries it up through every step.
type Fault = Box<Finding>;

/// A finding of `rule` at `printed` (the `index`-th board, 0-based) for `key`.
fn at(rule: Rule, index: usize, printed: &Printed, key: Option<&Key>, detail: String) -> Fault {
    let mut finding = Finding::new(rule, detail);
    finding.board = Some(index + 1);
    finding.line = Some(printed.line);
    finding.key = key.map(|k| KeyAt {
        key: k.typed,
        index: k.index,
        line: k.line,
    });
    finding.printed = Some(values(&printed.board));
    finding.printed_score = printed.score;
    Box::new(finding)
}

impl Replay<'_> {
    fn current(&self) -> Option<State> {
        self.history.last().copied()
    }

    /// Carries out `key` (`later`: the keys after it, to look ahead).
    fn step(&mut self, key: &Key, later: &[Key]) -> Result<(), Fault> {
        match (self.phase, key.key) {
            (Phase::Menu, 'e' | 'h') => {
                let size = if key.key == 'e' { 5 } else { 4 };
                self.expect(key, Expect::NewGame(size))?;
                self.phase = Phase::Game;
                Ok(())
            }
            (Phase::Menu, 'r') => match self.saved.clone() {
                Some(saved) => {
                    let state = *saved.last().expect("a save holds a state");
                    self.expect(
                        key,
                        Expect::Exact {
                            state,
                            rule: Rule::Resume,
                        },
                    )?;
                    self.history = saved;
                    self.resumed = self.history.len();
                    self.phase = Phase::Game;
                    Ok(())
                }
                None => self.unchanged(key, later, Blame::Nothing),
            },
            (Phase::Menu, 'q') => {
                self.phase = Phase::Closed;
                self.unchanged(key, later, Blame::Nothing)
            }
            (Phase::Game, k) if direction_of(k).is_some() => {
                let direction = direction_of(k).expect("a move key");
                let current = self.current().expect("a game has a state");
                match current.board.slide(direction) {
                    None => self.unchanged(key, later, Blame::UnchangedMove),
                    Some((slid, points)) => self.expect(
                        key,
                        Expect::Move {
                            direction,
                            slid,
                            points,
                        },
                    ),
                }
            }
            (Phase::Game, 'b') => {
                let n = self.history.len();
                if n < 2 {
                    return self.unchanged(key, later, Blame::UndoPastStart);
                }
                let state = self.history[n - 2];
                if n <= self.resumed {
                    return self.expect(key, Expect::ExactOrNothing(state));
                }
                self.expect(
                    key,
                    Expect::Exact {
                        state,
                        rule: Rule::Undo,
                    },
                )
            }
            (Phase::Game, 's') => {
                self.saved = Some(self.history.clone());
                self.unchanged(key, later, Blame::Save)
            }
            (Phase::Game, 'q') => {
                self.phase = Phase::Menu;
                self.unchanged(key, later, Blame::Nothing)
            }
            (Phase::Ended, _) => {
                self.phase = Phase::Menu;
                self.unchanged(key, later, Blame::EndReturns)
            }
            _ => self.unchanged(key, later, Blame::Nothing),
        }
    }

    /// Skips the boards that print the current state again; a loss or win said on one of them
    /// is checked as on any board.
    fn skip_reprints(&mut self, key: Option<&Key>) -> Result<(), Fault> {
        let Some(current) = self.current() else {
            return Ok(());
        };
        while let Some(printed) = self.boards.get(self.next) {
            let same = shows(printed, current) && printed.not_a_tile.is_none();
            if !same {
                break;
            }
            if self.phase == Phase::Game {
                self.check_ends(self.next, key, current)?;
            }
            self.reprint_at = Some(self.next);
            self.next += 1;
        }
        Ok(())
    }

    /// The board `key` must print, checked against `expect`; its state becomes the current
    /// one.
    fn expect(&mut self, key: &Key, expect: Expect) -> Result<(), Fault> {
        self.skip_reprints(Some(key))?;
        // A state the screen shows already (a game resumed as it was left) needs no board.
        if let Expect::Exact { state, .. } | Expect::ExactOrNothing(state) = expect
            && self.current() == Some(state)
        {
            if let Expect::ExactOrNothing(_)
            | Expect::Exact {
                rule: Rule::Undo, ..
            } = expect
            {
                self.history.pop();
            }
            return Ok(());
        }
        // A board taken as a reprint just before may be this key's own board: a new game
        // that happens to start as the last one stood.
        let index = self.next;
        let (index, found) = match (self.take(key, expect, index), self.reprint_at) {
            (Err(fault), Some(reprint)) if reprint + 1 == index => {
                match self.take(key, expect, reprint) {
                    Ok(found) => (reprint, found),
                    Err(_) => return Err(fault),
                }
            }
            (taken, _) => (index, taken?),
        };
        let Some(state) = found else {
            // An undo the program's save could not give: it keeps one state.
            let current = self.current().expect("a game has a state");
            self.history = vec![current];
            self.resumed = 0;
            return Ok(());
        };
        self.next = index + 1;
        self.reprint_at = None;
        match expect {
            Expect::NewGame(_) => self.history = vec![state],
            Expect::Move { .. } => self.history.push(state),
            // A resume's caller puts the saved history in place.
            Expect::Exact {
                rule: Rule::Resume, ..
            } => {}
            Expect::Exact { .. } | Expect::ExactOrNothing(_) => {
                self.history.pop();
            }
        }
        self.check_ends(index, Some(key), state)?;
        if state.board.max_exponent() >= GOAL || !state.board.can_move() {
            self.phase = Phase::Ended;
        }
        Ok(())
    }

    /// Board `index` checked as the one `key` must print; `Ok(None)`: an undo that is not
    /// there (for [`Expect::ExactOrNothing`]).
    fn take(&self, key: &Key, expect: Expect, index: usize) -> Result<Option<State>, Fault> {
        let Some(printed) = self.boards.get(index) else {
            if let Expect::ExactOrNothing(_) = expect {
                return Ok(None);
            }
            let mut finding = Finding::new(
                Rule::MissingBoard,
                format!(
                    "key {} '{}' changes the game, but no board follows it",
                    key.index, key.typed
                ),
            );
            finding.board = Some(index + 1);
            finding.key = Some(KeyAt {
                key: key.typed,
                index: key.index,
                line: key.line,
            });
            return Err(Box::new(finding));
        };
        if let Some(cell) = &printed.not_a_tile {
            return Err(at(
                Rule::NotATile,
                index,
                printed,
                Some(key),
                format!("a cell holds '{cell}'"),
            ));
        }
        self.check(key, expect, index, printed)
    }

    /// Whether `printed` is what `expect` makes; the state it shows if so (`None`: an undo
    /// that is not there, for [`Expect::ExactOrNothing`]).
    fn check(
        &self,
        key: &Key,
        expect: Expect,
        index: usize,
        printed: &Printed,
    ) -> Result<Option<State>, Fault> {
        let fail = |rule: Rule, detail: String| Err(at(rule, index, printed, Some(key), detail));
        match expect {
            Expect::NewGame(size) => {
                if printed.board.size() != size {
                    let n = printed.board.size();
                    return fail(
                        Rule::NewGameSize,
                        format!("'{}' started a {n}x{n} game, not {size}x{size}", key.typed),
                    );
                }
                let tiles: Vec<u8> = printed
                    .board
                    .exponents()
                    .iter()
                    .copied()
                    .filter(|&e| e > 0)
                    .collect();
                if tiles.len() != 2 || tiles.iter().any(|&e| e > 2) {
                    let shown: Vec<String> =
                        tiles.iter().map(|&e| tile_value(e).to_string()).collect();
                    return fail(
                        Rule::NewGameTiles,
                        format!(
                            "the new game starts with {} tile(s): {}",
                            tiles.len(),
                            if shown.is_empty() {
                                "none".to_string()
                            } else {
                                shown.join(", ")
                            }
                        ),
                    );
                }
                if let Some(score) = printed.score.filter(|&s| s != 0) {
                    return fail(
                        Rule::NewGameScore,
                        format!("the new game starts at score {score}"),
                    );
                }
                Ok(Some(State {
                    board: printed.board,
                    score: 0,
                }))
            }
            Expect::Move {
                direction,
                slid,
                points,
            } => self.check_move(key, direction, slid, points, index, printed),
            Expect::Exact { state, rule } => {
                if shows(printed, state) {
                    return Ok(Some(state));
                }
                let detail = match rule {
                    Rule::Resume => "'r' resumed another state than the one saved",
                    _ => "'b' restored another state than the one before the last move",
                };
                let mut finding = at(rule, index, printed, Some(key), detail.to_string());
                finding.expected = Some(values(&state.board));
                finding.expected_score = Some(state.score);
                Err(finding)
            }
            Expect::ExactOrNothing(state) => Ok(shows(printed, state).then_some(state)),
        }
    }

    /// Whether `printed` is `slid` (the board `direction` makes of the current one) with one
    /// new 2 or 4 on a cell the slide left empty, and the score `points` more.
    fn check_move(
        &self,
        key: &Key,
        direction: Direction,
        slid: Board,
        points: u64,
        index: usize,
        printed: &Printed,
    ) -> Result<Option<State>, Fault> {
        let current = self.current().expect("a game has a state");
        let score = current.score.saturating_add(Score::from(points));
        let fail = |rule: Rule, detail: String| {
            let mut finding = at(rule, index, printed, Some(key), detail);
            finding.expected = Some(values(&slid));
            finding.expected_score = Some(score);
            Err(finding)
        };
        let name = direction.name();
        if printed.board.size() != slid.size() {
            return fail(
                Rule::Unexplained,
                format!("a board of another size follows the move {name}"),
            );
        }
        // The one judge of a new tile, the model's: what the spawn rule places after a slide.
        let site = Rules::power11(slid.size())
            .map_or(SpawnSite::AnyEmpty(NewTile::TwoOrFour), |rules| {
                rules.spawn_site(&slid, direction)
            });
        match new_tile_fault(site, &slid, &printed.board) {
            None => {}
            Some(NewTileFault::OtherCells(other)) => {
                for cascade in [false, true] {
                    let again = merging_again(&current.board, direction, cascade);
                    if again != slid && new_tiles(&again, &printed.board).1 == 0 {
                        return fail(
                            Rule::MergedTwice,
                            format!("the move {name} merged a tile that a merge had made"),
                        );
                    }
                }
                let sum = |b: &Board| b.exponents().iter().map(|&e| tile_value(e)).sum::<u128>();
                let grown = sum(&printed.board).checked_sub(sum(&current.board));
                if matches!(grown, Some(2 | 4)) {
                    return fail(
                        Rule::Merge,
                        format!(
                            "the move {name} left {other} cell(s) other than it makes them (the expected board shows the slide, before the new tile)"
                        ),
                    );
                }
                return fail(
                    Rule::Unexplained,
                    format!(
                        "this board does not follow from the move {name} (the expected board shows the slide, before the new tile)"
                    ),
                );
            }
            Some(NewTileFault::Missing) => {
                return fail(
                    Rule::NewTileMissing,
                    format!("no new tile after the move {name}"),
                );
            }
            Some(NewTileFault::Value(e)) => {
                return fail(
                    Rule::NewTileValue,
                    format!("the new tile after the move {name} is a {}", tile_value(e)),
                );
            }
            Some(NewTileFault::Extra(tiles)) => {
                return fail(
                    Rule::NewTilesExtra,
                    format!("{} new tiles after the move {name}", tiles.len()),
                );
            }
            Some(NewTileFault::Site) => {
                return fail(
                    Rule::NewTilesExtra,
                    format!("a new tile after the move {name}, where the rules place none"),
                );
            }
        }
        if let Some(printed_score) = printed.score.filter(|&s| s != score) {
            return fail(
                Rule::Score,
                format!(
                    "the move {name} merged tiles worth {points}: the score goes from {} to {score}, not {printed_score}",
                    current.score
                ),
            );
        }
        Ok(Some(State {
            board: printed.board,
            score,
        }))
    }

    /// The end messages printed after the `index`-th board, which shows `state`: a game won
    /// or lost says so, and a game that goes on says neither.
    fn check_ends(&self, index: usize, key: Option<&Key>, state: State) -> Result<(), Fault> {
        let printed = &self.boards[index];
        let won = state.board.max_exponent() >= GOAL;
        let lost = !won && !state.board.can_move();
        let said_won = printed.ends.iter().find_map(|e| match e {
            End::Won(n) => Some(*n),
            End::Lost => None,
        });
        let said_lost = printed.ends.contains(&End::Lost);
        let fail =
            |rule: Rule, detail: &str| Err(at(rule, index, printed, key, detail.to_string()));
        if won {
            match said_won {
                None => {
                    return fail(
                        Rule::WinNotAnnounced,
                        "a 2048 is on the board, and no YOU WON follows",
                    );
                }
                Some(Some(n)) if n != state.score => {
                    let mut finding = at(
                        Rule::WinScore,
                        index,
                        printed,
                        key,
                        format!(
                            "YOU WON WITH A SCORE OF {n}, where the score is {}",
                            state.score
                        ),
                    );
                    finding.expected_score = Some(state.score);
                    return Err(finding);
                }
                Some(_) => {}
            }
        } else if said_won.is_some() {
            return fail(Rule::WinTooEarly, "YOU WON on a board without a 2048");
        }
        if lost && !said_lost {
            return fail(
                Rule::LossNotAnnounced,
                "no move changes this board, and no YOU LOST! follows",
            );
        }
        if !lost && said_lost {
            return fail(
                Rule::LossTooEarly,
                "YOU LOST! on a board that a move can still change",
            );
        }
        Ok(())
    }

    /// A key that changes nothing: a board after it that is not a reprint is blamed on it if
    /// it shows what `blame` says the key must not do and no later key explains it.
    fn unchanged(&mut self, key: &Key, later: &[Key], blame: Blame) -> Result<(), Fault> {
        self.skip_reprints(Some(key))?;
        if self.probing || blame == Blame::Nothing {
            return Ok(());
        }
        let (Some(printed), Some(current)) = (self.boards.get(self.next), self.current()) else {
            return Ok(());
        };
        let index = self.next;
        let (rule, detail) = match blame {
            Blame::Nothing => return Ok(()),
            Blame::UnchangedMove => {
                let (added, other) = new_tiles(&current.board, &printed.board);
                if other > 0 || (added.is_empty() && printed.score == Some(current.score)) {
                    return Ok(());
                }
                let what = if added.is_empty() {
                    "changed the score"
                } else {
                    "added a tile"
                };
                (
                    Rule::UnchangedMove,
                    format!("the move '{}' changes nothing, but {what}", key.typed),
                )
            }
            Blame::Save => (Rule::Save, "'s' changed the board".to_string()),
            Blame::UndoPastStart => (
                Rule::UndoPastStart,
                "'b' at the start of the game changed the board".to_string(),
            ),
            Blame::EndReturns => {
                let moved = Direction::ALL.iter().any(|&d| {
                    current.board.slide(d).is_some_and(|(slid, _)| {
                        let (added, other) = new_tiles(&slid, &printed.board);
                        other == 0 && added.len() <= 1
                    })
                });
                if !moved {
                    return Ok(());
                }
                (
                    Rule::EndReturnsToMenu,
                    format!(
                        "the game had ended, and the key '{}' after it moved the tiles",
                        key.typed
                    ),
                )
            }
        };
        if self.explained_later(later) {
            return Ok(());
        }
        let mut finding = at(rule, index, printed, Some(key), detail);
        finding.expected = Some(values(&current.board));
        finding.expected_score = Some(current.score);
        Err(finding)
    }

    /// Whether a later key takes the next board without a violation.
    fn explained_later(&self, later: &[Key]) -> bool {
        let mut probe = self.clone();
        probe.probing = true;
        let next = probe.next;
        for (i, key) in later.iter().enumerate() {
            if probe.step(key, &later[i + 1..]).is_err() {
                return false;
            }
            if probe.next > next {
                return true;
            }
        }
        false
    }

    /// After the last key: every board left is a reprint of the last state.
    fn finish(&mut self) -> Result<(), Fault> {
        self.skip_reprints(None)?;
        match self.boards.get(self.next) {
            None => Ok(()),
            Some(printed) => Err(at(
                Rule::Unexplained,
                self.next,
                printed,
                None,
                "a board after the last key's".to_string(),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&[u64]]) -> Board {
        Board::from_values(&rows.iter().map(|r| r.to_vec()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn a_slide_that_merges_again_is_told_from_the_rules() {
        let start = board(&[&[2, 2, 4, 0], &[4, 2, 2, 0], &[0; 4], &[0; 4]]);
        let (rules, _) = start.slide(Direction::Left).unwrap();
        assert_eq!(
            rules,
            board(&[&[4, 4, 0, 0], &[4, 4, 0, 0], &[0; 4], &[0; 4]])
        );
        assert_eq!(
            merging_again(&start, Direction::Left, false),
            board(&[&[8, 0, 0, 0], &[4, 4, 0, 0], &[0; 4], &[0; 4]])
        );
        assert_eq!(
            merging_again(&start, Direction::Left, true),
            board(&[&[8, 0, 0, 0], &[8, 0, 0, 0], &[0; 4], &[0; 4]])
        );
    }
}
