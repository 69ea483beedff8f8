//! The two assignments the referee knows: Power-11 (4x4 and 5x5 to 2048, keys e h r q at the
//! menu and u d l r b s q in a game, a score, saves and undo) and the MIPS 3x3 program (to 512,
//! a line a key: 1 and 2 at its menu, W A S D in a game, 3 and 4 to switch new tiles off and
//! on, X to quit; no score, no save). What a key does by each one's rules ([`Effect`]), whether
//! a board is what a key makes ([`Assignment::judge`]), and what a key that changes nothing must
//! not do ([`Assignment::blamed`]). The rules themselves are the model's: the slide, the spawn
//! rule's sites, the one judge of a new tile.

use super::keys::Key;
use super::reading::{Before, Context, Judged, Phase, Reading, at, printed_state, shows};
use super::slides::{direction_of, merging_again};
use super::state::State;
use super::transcript::Printed;
use super::{Finding, Rule};
use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use crate::model::history::{NewTileFault, new_tile_fault, new_tiles};
use crate::model::rules::{Rules, Score, SpawnSite, Start};

/// Which program's rules and interface a transcript is refereed by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Assignment {
    /// The Power-11 assignment (`power11`'s line interface).
    #[default]
    Power11,
    /// The MIPS 3x3 program (`power11 --interface mips`).
    Mips,
}

/// What a key does by the rules, where it stands.
#[derive(Clone, Copy, Debug)]
pub(super) enum Effect {
    /// It changes the state to what the expectation says (a board must follow), and the game
    /// then stands in this phase.
    Change(Expect, Phase),
    /// It changes nothing (what it must not do, where a board shows it), and the game then
    /// stands in this phase.
    Nothing(Blame, Phase),
    /// New tiles switched on (`true`) or off: nothing else changes.
    Switch(bool),
    /// `s`: the game saved, nothing else changes.
    Save,
    /// A number of a start state taken: no board yet.
    Enter(Phase),
}

/// What the rules say a key makes of the state, when it changes it.
#[derive(Clone, Copy, Debug)]
pub(super) enum Expect {
    /// A new game on a board of this side.
    NewGame(usize),
    /// A move that changes the board: the board after its slide and the points it scored.
    Move {
        direction: Direction,
        slid: Board,
        points: u64,
    },
    /// `b`: the state before the last move.
    Undo(State),
    /// `b` into the states a resume read, which a program whose save keeps one state lacks:
    /// that state, or nothing at all.
    UndoIntoSave(State),
    /// `r`: the state last saved.
    Resume(State),
    /// `r` of a save made before the transcript, which the referee never saw: whatever board
    /// follows is taken as the saved state (and said so).
    ResumeUnseen,
    /// The MIPS program's start state: this board, at score 0.
    StartState(Board),
}

impl Expect {
    /// The state the rules make, where they tell it alone (no new tile to learn).
    pub(super) fn state(self) -> Option<State> {
        match self {
            Expect::Undo(state) | Expect::UndoIntoSave(state) | Expect::Resume(state) => {
                Some(state)
            }
            Expect::StartState(board) => Some(State { board, score: 0 }),
            Expect::NewGame(_) | Expect::Move { .. } | Expect::ResumeUnseen => None,
        }
    }
}

/// What a key that changes nothing must not do, where a board shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Blame {
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
    /// `r` in a run that started with no save: there is nothing to resume.
    ResumeNothing,
}

impl Assignment {
    /// The assignment's name (`power11`, `mips`), as `--interface` and reports give it.
    pub fn name(self) -> &'static str {
        match self {
            Assignment::Power11 => "power11",
            Assignment::Mips => "mips",
        }
    }

    /// Whether a run under this assignment can break `rule`: the MIPS program keeps no score,
    /// no save and no undo, and plays one size; Power-11 has no switch of new tiles and no
    /// start states.
    pub fn has_rule(self, rule: Rule) -> bool {
        match self {
            Assignment::Power11 => !matches!(rule, Rule::NewTileWhileOff | Rule::StartState),
            Assignment::Mips => !matches!(
                rule,
                Rule::NewGameScore
                    | Rule::NewGameSize
                    | Rule::Score
                    | Rule::Undo
                    | Rule::UndoPastStart
                    | Rule::Save
                    | Rule::Resume
                    | Rule::WinScore
                    | Rule::EndReturnsToMenu
                    | Rule::SaveFormat
                    | Rule::SaveState
                    | Rule::SaveHistory
                    | Rule::ZeroCells
                    | Rule::FrameWidth
                    | Rule::ScoreLine
                    | Rule::NoScoreLine
                    | Rule::SaveOrder
            ),
        }
    }

    /// The rules of a game of side `size` under this assignment.
    pub(super) fn rules(self, size: usize) -> Rules {
        match self {
            Assignment::Power11 => Rules::power11(size).unwrap_or_else(|_| {
                Rules::power11(4)
                    .expect("4x4 Power-11")
                    .with_size(size)
                    .unwrap_or_else(|_| Rules::power11(4).expect("4x4 Power-11"))
            }),
            Assignment::Mips => Rules::mini()
                .with_size(size)
                .unwrap_or_else(|_| Rules::mini()),
        }
    }

    /// The goal's exponent (2048: 11; 512: 9).
    fn goal(self) -> u8 {
        match self {
            Assignment::Power11 => 11,
            Assignment::Mips => 9,
        }
    }

    /// The goal tile's value.
    pub(super) fn goal_value(self) -> u64 {
        1 << self.goal()
    }

    /// Whether `board` holds the goal.
    pub(super) fn won(self, board: &Board) -> bool {
        board.max_exponent() >= self.goal()
    }

    /// The phase once a game is won or lost: the Power-11 program goes back to its menu at the
    /// next key; the MIPS program ends.
    pub(super) fn over_phase(self) -> Phase {
        match self {
            Assignment::Power11 => Phase::Ended,
            Assignment::Mips => Phase::Closed,
        }
    }

    /// How many boards the assignment's program prints for a key that changes nothing, where
    /// its interface says: the MIPS program answers a move that changes nothing with
    /// `Invalid move.` and no board; a Power-11 program may print the board again or not.
    pub(super) fn unchanged_prints(self) -> Option<u8> {
        match self {
            Assignment::Power11 => None,
            Assignment::Mips => Some(0),
        }
    }

    /// Whether the program prints a score.
    pub(super) fn has_scores(self) -> bool {
        self == Assignment::Power11
    }

    /// The win message, as the rules' words name it.
    pub(super) fn win_words(self) -> &'static str {
        match self {
            Assignment::Power11 => "YOU WON",
            Assignment::Mips => "Congratulations! You have reached the 512 tile!",
        }
    }

    /// The loss message.
    pub(super) fn loss_words(self) -> &'static str {
        match self {
            Assignment::Power11 => "YOU LOST!",
            Assignment::Mips => "Game Over.",
        }
    }

    /// What `key` does in `reading`.
    pub(super) fn effect(self, reading: &Reading, key: &Key, before: &Before) -> Effect {
        match self {
            Assignment::Power11 => power11_effect(reading, key, before),
            Assignment::Mips => mips_effect(reading, key),
        }
    }

    /// Whether board `index` is what `expect` makes for `key` in `reading`.
    pub(super) fn judge(
        self,
        reading: &Reading,
        ctx: &Context<'_>,
        key: &Key,
        expect: Expect,
        index: usize,
    ) -> Judged {
        let printed = &ctx.boards[index];
        let fail = |rule: Rule, detail: String, expected: Option<State>| {
            let mut finding = at(rule, index, printed, Some(key), detail);
            if let Some(state) = expected {
                finding.expected = Some(state.board);
                finding.expected_score = Some(state.score);
            }
            Judged::Fault {
                finding: Box::new(finding),
                rules: expected.into_iter().collect(),
                printed: Some(printed_state(printed, expected.map_or(0, |s| s.score))),
            }
        };
        if let Some(cell) = &printed.not_a_tile {
            return fail(
                Rule::NotATile,
                format!("a cell holds '{cell}'"),
                expect.state(),
            );
        }
        match expect {
            Expect::NewGame(size) => self.judge_new_game(key, size, index, printed),
            Expect::Move {
                direction,
                slid,
                points,
            } => self.judge_move(reading, key, direction, slid, points, index, printed),
            Expect::ResumeUnseen => Judged::Fits(printed_state(printed, 0)),
            Expect::Undo(_)
            | Expect::UndoIntoSave(_)
            | Expect::Resume(_)
            | Expect::StartState(_) => {
                let state = expect.state().expect("these expect a state the rules tell");
                if shows(printed, state) {
                    return Judged::Fits(state);
                }
                let (rule, detail) = match expect {
                    Expect::Resume(_) => {
                        (Rule::Resume, "'r' resumed another state than the one saved")
                    }
                    Expect::StartState(_) => (
                        Rule::StartState,
                        "the board shown is not the start state the nine numbers give",
                    ),
                    _ => (
                        Rule::Undo,
                        "'b' restored another state than the one before the last move",
                    ),
                };
                fail(rule, detail.to_string(), Some(state))
            }
        }
    }

    /// Whether `printed` starts a new game of side `size`: the start's tiles, at score 0.
    fn judge_new_game(self, key: &Key, size: usize, index: usize, printed: &Printed) -> Judged {
        let fault = |rule: Rule, detail: String, rules: Option<State>| Judged::Fault {
            finding: Box::new(at(rule, index, printed, Some(key), detail)),
            rules: rules.into_iter().collect(),
            printed: Some(printed_state(printed, 0)),
        };
        let n = printed.board.size();
        if n != size {
            return fault(
                Rule::NewGameSize,
                format!("'{}' started a {n}x{n} game, not {size}x{size}", key.typed),
                None,
            );
        }
        let tiles: Vec<u8> = printed
            .board
            .exponents()
            .iter()
            .copied()
            .filter(|&e| e > 0)
            .collect();
        let fits = match self.rules(size).start() {
            Start::Tiles { count, tile } => {
                tiles.len() == count
                    && tiles
                        .iter()
                        .all(|&e| tile.outcomes().iter().any(|&(_, o)| o == e))
            }
            Start::Fill(_) => tiles.iter().all(|&e| e == 1),
        };
        if !fits {
            let shown: Vec<String> = tiles.iter().map(|&e| tile_value(e).to_string()).collect();
            return fault(
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
                None,
            );
        }
        let start = State {
            board: printed.board,
            score: 0,
        };
        if let Some(score) = printed.score.filter(|&s| s != 0) {
            return fault(
                Rule::NewGameScore,
                format!("the new game starts at score {score}"),
                Some(start),
            );
        }
        Judged::Fits(start)
    }

    /// Whether `printed` is `slid` (the board `direction` makes of the current one) with the
    /// new tile the spawn rule may place on a cell the slide left empty, and the score `points`
    /// more.
    #[allow(clippy::too_many_arguments)]
    fn judge_move(
        self,
        reading: &Reading,
        key: &Key,
        direction: Direction,
        slid: Board,
        points: u64,
        index: usize,
        printed: &Printed,
    ) -> Judged {
        let current = reading.current().expect("a game has a state");
        let score = current.score.saturating_add(Score::from(points));
        let program = printed_state(printed, score);
        // The states the board could have been, had the program only misprinted it: the slide
        // with each tile the spawn rule could have placed where the printed board has one.
        let site = if reading.new_tiles {
            self.rules(slid.size()).spawn_site(&slid, direction)
        } else {
            SpawnSite::Nowhere
        };
        let misprinted = rules_states(site, &slid, &printed.board, score);
        let fail = |rule: Rule, detail: String, rules: Option<State>| {
            let mut finding = at(rule, index, printed, Some(key), detail);
            finding.expected = Some(slid);
            finding.expected_score = Some(score);
            Judged::Fault {
                finding: Box::new(finding),
                rules: rules.map_or_else(|| misprinted.clone(), |state| vec![state]),
                printed: Some(program),
            }
        };
        let name = direction.name();
        if printed.board.size() != slid.size() {
            return fail(
                Rule::Unexplained,
                format!("a board of another size follows the move {name}"),
                None,
            );
        }
        // The one judge of a new tile, the model's: what the spawn rule places after a slide.
        match new_tile_fault(site, &slid, &printed.board) {
            None => {}
            Some(NewTileFault::OtherCells(other)) => {
                let (rule, detail) = slide_fault(&current.board, direction, &slid, printed, other);
                return fail(rule, detail, None);
            }
            Some(NewTileFault::Missing) => {
                return fail(
                    Rule::NewTileMissing,
                    format!("no new tile after the move {name}"),
                    None,
                );
            }
            Some(NewTileFault::Value(e)) => {
                return fail(
                    Rule::NewTileValue,
                    format!("the new tile after the move {name} is a {}", tile_value(e)),
                    None,
                );
            }
            Some(NewTileFault::Extra(tiles)) => {
                return fail(
                    Rule::NewTilesExtra,
                    format!("{} new tiles after the move {name}", tiles.len()),
                    None,
                );
            }
            Some(NewTileFault::Site) => {
                return fail(
                    Rule::NewTileWhileOff,
                    format!("a new tile after the move {name}, with new tiles switched off"),
                    Some(State { board: slid, score }),
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
                Some(State {
                    board: printed.board,
                    score,
                }),
            );
        }
        Judged::Fits(State {
            board: printed.board,
            score,
        })
    }

    /// The finding, where board `index` shows what `blame` says `key` (which changes nothing)
    /// must not do, and the state the program printed (to go on from).
    pub(super) fn blamed(
        reading: &Reading,
        ctx: &Context<'_>,
        key: &Key,
        blame: Blame,
        index: usize,
    ) -> Option<(Finding, Option<State>)> {
        let printed = ctx.boards[..ctx.limit].get(index)?;
        let current = reading.current();
        let (rule, detail) = match (blame, current) {
            (Blame::ResumeNothing, _) => (
                Rule::Resume,
                "'r' resumed a game, but none was saved in this run".to_string(),
            ),
            (Blame::Nothing, _) | (_, None) => return None,
            // A board of another size is a later key's (a new game), not one `s` or `b` made.
            (Blame::Save | Blame::UndoPastStart, Some(current))
                if printed.board.size() != current.board.size() =>
            {
                return None;
            }
            (Blame::UnchangedMove, Some(current)) => {
                let (added, other) = new_tiles(&current.board, &printed.board);
                let same_score = printed.score.is_none_or(|s| s == current.score);
                if other > 0 || (added.is_empty() && same_score) {
                    return None;
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
            (Blame::Save, Some(_)) => (Rule::Save, "'s' changed the board".to_string()),
            (Blame::UndoPastStart, Some(_)) => (
                Rule::UndoPastStart,
                "'b' at the start of the game changed the board".to_string(),
            ),
            (Blame::EndReturns, Some(current)) => {
                let moved = Direction::ALL.iter().any(|&d| {
                    current.board.slide(d).is_some_and(|(slid, _)| {
                        let (added, other) = new_tiles(&slid, &printed.board);
                        other == 0 && added.len() <= 1
                    })
                });
                if !moved {
                    return None;
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
        let mut finding = at(rule, index, printed, Some(key), detail);
        if let Some(current) = current {
            finding.expected = Some(current.board);
            finding.expected_score = Some(current.score);
        }
        let score = current.map_or(0, |c| c.score);
        Some((finding, Some(printed_state(printed, score))))
    }
}

/// The rule a move's board breaks when tiles the slide placed are not where it placed them:
/// a tile made by a merge merged again (the slide that lets it explains the board), tiles
/// moved wrong with one new tile (the sum of the tiles grew by a new tile's), or a board no
/// move explains.
fn slide_fault(
    before: &Board,
    direction: Direction,
    slid: &Board,
    printed: &Printed,
    other: usize,
) -> (Rule, String) {
    let name = direction.name();
    for cascade in [false, true] {
        let again = merging_again(before, direction, cascade);
        if again != *slid && new_tiles(&again, &printed.board).1 == 0 {
            return (
                Rule::MergedTwice,
                format!("the move {name} merged a tile that a merge had made"),
            );
        }
    }
    let sum = |b: &Board| b.exponents().iter().map(|&e| tile_value(e)).sum::<u128>();
    let grown = sum(&printed.board).checked_sub(sum(before));
    if matches!(grown, Some(2 | 4)) {
        return (
            Rule::Merge,
            format!(
                "the move {name} left {other} cell(s) other than it makes them (the expected board shows the slide, before the new tile)"
            ),
        );
    }
    (
        Rule::Unexplained,
        format!(
            "this board does not follow from the move {name} (the expected board shows the slide, before the new tile)"
        ),
    )
}

/// The states a move's board could have been if the program misprinted it: `slid` with a tile
/// `site` allows on a cell where the printed board shows a tile the slide left empty (where
/// the program put its new tile), or `slid` alone where the rule places none. Empty when the
/// printed board shows no such cell: the rules cannot tell where the tile went.
fn rules_states(site: SpawnSite, slid: &Board, printed: &Board, score: Score) -> Vec<State> {
    let tiles: &[(f32, u8)] = match site {
        SpawnSite::Nowhere => {
            return vec![State {
                board: *slid,
                score,
            }];
        }
        SpawnSite::AnyEmpty(tile) => tile.outcomes(),
        SpawnSite::Cell { .. } => &[(1.0, 0)],
    };
    let mut out = Vec::new();
    for (i, (&s, &p)) in slid.exponents().iter().zip(printed.exponents()).enumerate() {
        if s != 0 || p == 0 {
            continue;
        }
        for &(_, e) in tiles {
            let mut board = *slid;
            let value = if e == 0 { p } else { e };
            board.set(i / slid.size(), i % slid.size(), value);
            if new_tile_fault(site, slid, &board).is_none() {
                out.push(State { board, score });
            }
        }
    }
    out
}

/// What a Power-11 key does.
fn power11_effect(reading: &Reading, key: &Key, before: &Before) -> Effect {
    match (reading.phase, key.key) {
        (Phase::Menu, 'e' | 'h') => {
            let size = if key.key == 'e' { 5 } else { 4 };
            Effect::Change(Expect::NewGame(size), Phase::Game)
        }
        (Phase::Menu, 'r') => match (&reading.saved, before) {
            (Some(saved), _) => Effect::Change(
                Expect::Resume(saved.top().expect("a save holds a state")),
                Phase::Game,
            ),
            (None, Before::Nothing) => Effect::Nothing(Blame::ResumeNothing, Phase::Menu),
            // A transcript that begins by resuming a save made before it: the board printed is
            // taken as the saved state. Once a game was seen, a save the referee never saw is
            // unlikely enough that `r` takes no board (a later key's board is not a resume's).
            (None, _) if reading.history.len() == 0 => {
                Effect::Change(Expect::ResumeUnseen, Phase::Game)
            }
            (None, _) => Effect::Nothing(Blame::Nothing, Phase::Menu),
        },
        (Phase::Menu, 'q') => Effect::Nothing(Blame::Nothing, Phase::Closed),
        (Phase::Game, k) if direction_of(k).is_some() => {
            let direction = direction_of(k).expect("a move key");
            move_effect(reading, direction)
        }
        (Phase::Game, 'b') => match reading.history.second() {
            None => Effect::Nothing(Blame::UndoPastStart, Phase::Game),
            Some(state) if reading.history.len() <= reading.resumed => {
                Effect::Change(Expect::UndoIntoSave(state), Phase::Game)
            }
            Some(state) => Effect::Change(Expect::Undo(state), Phase::Game),
        },
        (Phase::Game, 's') => Effect::Save,
        (Phase::Game, 'q') => Effect::Nothing(Blame::Nothing, Phase::Menu),
        (Phase::Ended, _) => Effect::Nothing(Blame::EndReturns, Phase::Menu),
        (phase, _) => Effect::Nothing(Blame::Nothing, phase),
    }
}

/// What a move in `direction` does to `reading`'s game: a slide to judge, or nothing.
fn move_effect(reading: &Reading, direction: Direction) -> Effect {
    let current = reading.current().expect("a game has a state");
    match current.board.slide(direction) {
        None => Effect::Nothing(Blame::UnchangedMove, Phase::Game),
        Some((slid, points)) => Effect::Change(
            Expect::Move {
                direction,
                slid,
                points,
            },
            Phase::Game,
        ),
    }
}

/// What a MIPS key (a line) does.
fn mips_effect(reading: &Reading, key: &Key) -> Effect {
    match reading.phase {
        Phase::Menu => match key.whole() {
            Some('1') => Effect::Change(Expect::NewGame(3), Phase::Game),
            Some('2') => Effect::Enter(Phase::Entering(0, [0; 9])),
            Some('X') => Effect::Nothing(Blame::Nothing, Phase::Closed),
            _ => Effect::Nothing(Blame::Nothing, Phase::Menu),
        },
        Phase::Entering(have, mut cells) => match start_number(key) {
            None => Effect::Nothing(Blame::Nothing, Phase::Menu),
            Some(e) => {
                cells[usize::from(have)] = e;
                if have < 8 {
                    return Effect::Enter(Phase::Entering(have + 1, cells));
                }
                match Board::from_exponents(3, &cells) {
                    Ok(board) => Effect::Change(Expect::StartState(board), Phase::Game),
                    Err(_) => Effect::Nothing(Blame::Nothing, Phase::Menu),
                }
            }
        },
        Phase::Game => {
            let direction = match key.whole() {
                Some('W') => Direction::Up,
                Some('A') => Direction::Left,
                Some('S') => Direction::Down,
                Some('D') => Direction::Right,
                Some('3') => return Effect::Switch(false),
                Some('4') => return Effect::Switch(true),
                Some('X') => return Effect::Nothing(Blame::Nothing, Phase::Closed),
                _ => return Effect::Nothing(Blame::Nothing, Phase::Game),
            };
            move_effect(reading, direction)
        }
        Phase::Ended | Phase::Closed => Effect::Nothing(Blame::Nothing, Phase::Closed),
    }
}

/// The exponent of a start state's number, if the MIPS program takes it: 0 (empty) or a tile
/// from 2 to 512.
fn start_number(key: &Key) -> Option<u8> {
    let value: i64 = key.text().trim().parse().ok()?;
    if value == 0 {
        return Some(0);
    }
    let value = u64::try_from(value).ok().filter(|v| v.is_power_of_two())?;
    let e = value.trailing_zeros() as u8;
    (1..=9).contains(&e).then_some(e)
}
