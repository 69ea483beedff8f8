//! The referee: whether a Power-11 program's run follows the assignment's rules, from the keys
//! it was fed and what it printed. New tiles are random, so two correct programs print
//! different boards and a `diff` says nothing; the referee plays the rules alongside instead,
//! key by key, learning each new tile from the board printed once it is checked to be one.
//!
//! Strings in, a [`Report`] out: reading the files and running the program are the command
//! line's (`power11 referee`). Everything a report says has a stable [`Rule`] name.

mod keys;
mod replay;
mod report;
mod save;
pub mod scripts;
mod slides;
mod transcript;

pub use keys::{Key, read_keys};
pub use report::{boards_side_by_side, to_text};

/// A rule of the assignment, or of its text's format, that a run can break, by a stable name
/// ([`Rule::name`]) that scripts may match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "cli",
    derive(serde::Serialize),
    serde(into = "&'static str")
)]
pub enum Rule {
    /// A new game starts with exactly two tiles, each a 2 or a 4.
    NewGameTiles,
    /// A new game starts at score 0.
    NewGameScore,
    /// `e` starts a 5x5 game, `h` a 4x4 one.
    NewGameSize,
    /// A move that changes the board is followed by a new tile.
    NewTileMissing,
    /// A move that changes the board is followed by exactly one new tile.
    NewTilesExtra,
    /// A new tile is a 2 or a 4.
    NewTileValue,
    /// A move that changes nothing changes nothing: no new tile, the same score.
    UnchangedMove,
    /// The score rises by the sum of the merged tiles.
    Score,
    /// The tiles slide and merge as the move makes them.
    Merge,
    /// A tile made by a merge does not merge again in that move.
    MergedTwice,
    /// `b` restores the state before the last move.
    Undo,
    /// `b` goes back to the start of the game and no further.
    UndoPastStart,
    /// `s` leaves the board as it was.
    Save,
    /// `r` resumes the game last saved.
    Resume,
    /// A 2048 ends the game with `YOU WON WITH A SCORE OF N`.
    WinNotAnnounced,
    /// The win message gives the game's score.
    WinScore,
    /// `YOU WON` only once a 2048 is on the board.
    WinTooEarly,
    /// A board no move changes ends the game with `YOU LOST!`.
    LossNotAnnounced,
    /// `YOU LOST!` only once no move changes the board.
    LossTooEarly,
    /// The key after the end of a game goes back to the menu.
    EndReturnsToMenu,
    /// Every printed board follows from a key.
    Unexplained,
    /// A key that changes the state is followed by its board.
    MissingBoard,
    /// Every cell holds nothing or a tile: a power of two from 2.
    NotATile,
    /// The save file is a save of the assignment's format.
    SaveFormat,
    /// The save's last state is the board shown when `s` was pressed.
    SaveState,
    /// The save holds the game's states, oldest first, or only its last.
    SaveHistory,
    /// Format: empty cells are blank, not `0`.
    ZeroCells,
    /// Format: a board's frame is 5n+1 characters wide.
    FrameWidth,
    /// Format: cells are right-aligned in 4 characters.
    CellAlignment,
    /// Format: the score line reads `Score: N`.
    ScoreLine,
    /// Format: every board has a score line.
    NoScoreLine,
    /// Format: the end messages read `YOU WON WITH A SCORE OF N` and `YOU LOST!`.
    EndMessage,
    /// Format: something framed like a board that cannot be read as one.
    UnreadableBoard,
    /// Format: a save holds its states oldest first.
    SaveOrder,
}

impl Rule {
    /// Every rule: the game's, then the format's ([`Rule::is_format`]).
    pub const ALL: &'static [Rule] = &[
        Rule::NewGameTiles,
        Rule::NewGameScore,
        Rule::NewGameSize,
        Rule::NewTileMissing,
        Rule::NewTilesExtra,
        Rule::NewTileValue,
        Rule::UnchangedMove,
        Rule::Score,
        Rule::Merge,
        Rule::MergedTwice,
        Rule::Undo,
        Rule::UndoPastStart,
        Rule::Save,
        Rule::Resume,
        Rule::WinNotAnnounced,
        Rule::WinScore,
        Rule::WinTooEarly,
        Rule::LossNotAnnounced,
        Rule::LossTooEarly,
        Rule::EndReturnsToMenu,
        Rule::Unexplained,
        Rule::MissingBoard,
        Rule::NotATile,
        Rule::SaveFormat,
        Rule::SaveState,
        Rule::SaveHistory,
        Rule::ZeroCells,
        Rule::FrameWidth,
        Rule::CellAlignment,
        Rule::ScoreLine,
        Rule::NoScoreLine,
        Rule::EndMessage,
        Rule::UnreadableBoard,
        Rule::SaveOrder,
    ];

    /// The rule's stable name (`new-tiles-extra`), as the JSON report gives it.
    pub fn name(self) -> &'static str {
        match self {
            Rule::NewGameTiles => "new-game-tiles",
            Rule::NewGameScore => "new-game-score",
            Rule::NewGameSize => "new-game-size",
            Rule::NewTileMissing => "new-tile-missing",
            Rule::NewTilesExtra => "new-tiles-extra",
            Rule::NewTileValue => "new-tile-value",
            Rule::UnchangedMove => "unchanged-move",
            Rule::Score => "score",
            Rule::Merge => "merge",
            Rule::MergedTwice => "merged-twice",
            Rule::Undo => "undo",
            Rule::UndoPastStart => "undo-past-start",
            Rule::Save => "save",
            Rule::Resume => "resume",
            Rule::WinNotAnnounced => "win-not-announced",
            Rule::WinScore => "win-score",
            Rule::WinTooEarly => "win-too-early",
            Rule::LossNotAnnounced => "loss-not-announced",
            Rule::LossTooEarly => "loss-too-early",
            Rule::EndReturnsToMenu => "end-returns-to-menu",
            Rule::Unexplained => "unexplained",
            Rule::MissingBoard => "missing-board",
            Rule::NotATile => "not-a-tile",
            Rule::SaveFormat => "save-format",
            Rule::SaveState => "save-state",
            Rule::SaveHistory => "save-history",
            Rule::ZeroCells => "zero-cells",
            Rule::FrameWidth => "frame-width",
            Rule::CellAlignment => "cell-alignment",
            Rule::ScoreLine => "score-line",
            Rule::NoScoreLine => "no-score-line",
            Rule::EndMessage => "end-message",
            Rule::UnreadableBoard => "unreadable-board",
            Rule::SaveOrder => "save-order",
        }
    }

    /// The rule in words, as the assignment states it.
    pub fn words(self) -> &'static str {
        match self {
            Rule::NewGameTiles => "a new game starts with exactly two tiles, each a 2 or a 4",
            Rule::NewGameScore => "a new game starts at score 0",
            Rule::NewGameSize => "e starts a 5x5 game and h a 4x4 one",
            Rule::NewTileMissing => {
                "a move that changes the board is followed by one new tile, 2 or 4"
            }
            Rule::NewTilesExtra => {
                "a move that changes the board is followed by exactly one new tile"
            }
            Rule::NewTileValue => "a new tile is a 2 or a 4",
            Rule::UnchangedMove => {
                "a move that changes nothing changes nothing (no new tile, the same score)"
            }
            Rule::Score => "the score rises by the sum of the merged tiles",
            Rule::Merge => "the tiles slide and merge as the move makes them",
            Rule::MergedTwice => "a tile made by a merge does not merge again in that move",
            Rule::Undo => "b restores the state before the last move",
            Rule::UndoPastStart => "b goes back to the start of the game and no further",
            Rule::Save => "s leaves the board as it was",
            Rule::Resume => "r resumes the game last saved",
            Rule::WinNotAnnounced => "a 2048 ends the game with YOU WON WITH A SCORE OF N",
            Rule::WinScore => "YOU WON WITH A SCORE OF N gives the game's score",
            Rule::WinTooEarly => "a game is won only once a 2048 is on the board",
            Rule::LossNotAnnounced => "a board no move changes ends the game with YOU LOST!",
            Rule::LossTooEarly => "a game is lost only once no move changes the board",
            Rule::EndReturnsToMenu => "the key after the end of a game goes back to the menu",
            Rule::Unexplained => "every board printed follows from a key",
            Rule::MissingBoard => "a key that changes the game is followed by its board",
            Rule::NotATile => "a cell holds nothing or a tile (a power of two from 2)",
            Rule::SaveFormat => "the save file is in the assignment's format",
            Rule::SaveState => "the save's last state is the board shown when s was pressed",
            Rule::SaveHistory => {
                "the save holds the game's states oldest first, or only the last one"
            }
            Rule::ZeroCells => "empty cells are blank, not 0",
            Rule::FrameWidth => "a board's frame is 5n+1 characters wide",
            Rule::CellAlignment => "cells are right-aligned in 4 characters",
            Rule::ScoreLine => "the score line reads Score: N",
            Rule::NoScoreLine => "every board has its Score: N line",
            Rule::EndMessage => "the end messages read YOU WON WITH A SCORE OF N and YOU LOST!",
            Rule::UnreadableBoard => "a board is framed by lines of # and its cells split by |",
            Rule::SaveOrder => "a save holds its states oldest first",
        }
    }

    /// Whether the rule is about the text's format (a warning unless `--strict`), not the game.
    pub fn is_format(self) -> bool {
        matches!(
            self,
            Rule::ZeroCells
                | Rule::FrameWidth
                | Rule::CellAlignment
                | Rule::ScoreLine
                | Rule::NoScoreLine
                | Rule::EndMessage
                | Rule::UnreadableBoard
                | Rule::SaveOrder
        )
    }
}

impl From<Rule> for &'static str {
    fn from(rule: Rule) -> &'static str {
        rule.name()
    }
}

/// The key a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct KeyAt {
    /// The key, as typed.
    pub key: char,
    /// Its position among the keys (1-based).
    pub index: usize,
    /// The line of the keys file it is on (1-based).
    pub line: usize,
}

/// What a run broke (or, for a format rule, where its text differs from the assignment's).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Finding {
    /// The rule.
    pub rule: Rule,
    /// The board's position among the printed boards (1-based), if the finding is at one.
    pub board: Option<usize>,
    /// The transcript's line where that board starts (1-based).
    pub line: Option<usize>,
    /// The key the finding is about, if any.
    pub key: Option<KeyAt>,
    /// What was wrong, in words.
    pub detail: String,
    /// The board the rules make (for a move that changes the board: after its slide, before
    /// the new tile), rows of tile values, 0 for an empty cell.
    pub expected: Option<Vec<Vec<u64>>>,
    /// The score the rules make.
    pub expected_score: Option<i128>,
    /// The board printed.
    pub printed: Option<Vec<Vec<u64>>>,
    /// The score printed.
    pub printed_score: Option<i128>,
    /// How many times a format finding was seen (1 for the others).
    pub count: usize,
}

impl Finding {
    /// A finding of `rule` with `detail`, at no board yet.
    pub(crate) fn new(rule: Rule, detail: impl Into<String>) -> Finding {
        Finding {
            rule,
            board: None,
            line: None,
            key: None,
            detail: detail.into(),
            expected: None,
            expected_score: None,
            printed: None,
            printed_score: None,
            count: 1,
        }
    }
}

/// What the save file held, as far as the referee could tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "cli",
    derive(serde::Serialize),
    serde(rename_all = "kebab-case")
)]
pub enum SaveKind {
    /// The game's states, oldest first (the undo bonus).
    History,
    /// The current state only.
    OneState,
    /// Not checked against the game: no `s` among the keys.
    Unchecked,
    /// It breaks a rule: not in the assignment's format, or not the game as saved (the
    /// violation says which).
    Faulty,
}

/// How to referee.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Format deviations are violations too.
    pub strict: bool,
}

/// What the referee found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(serde::Serialize))]
pub struct Report {
    /// Keys read from the keys file.
    pub keys: usize,
    /// Boards found in the transcript.
    pub boards: usize,
    /// Broken rules: the first fault of the game (refereeing stops there), then the save's,
    /// and under `--strict` the format's.
    pub violations: Vec<Finding>,
    /// Format deviations, each rule once with its count (violations under `--strict`).
    pub warnings: Vec<Finding>,
    /// What the save file held, if one was given.
    pub save: Option<SaveKind>,
    /// The board where refereeing stopped at a violation, if it did.
    pub stopped_at: Option<usize>,
}

impl Report {
    /// Whether every rule held (and, under `--strict`, every format).
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }
}

/// Referees a run: `keys`, the text piped into the program; `transcript`, what it printed on
/// standard output; `save`, the save file it wrote, if any.
pub fn referee(keys: &str, transcript: &str, save: Option<&str>, options: Options) -> Report {
    let keys = read_keys(keys);
    let scanned = transcript::scan(transcript);
    let game = replay::replay(&keys, &scanned.boards);
    let mut violations: Vec<Finding> = game.violation.into_iter().collect();
    let stopped_at = violations.first().and_then(|v| v.board);
    let mut warnings = scanned.warnings;
    let save_kind = save.map(|text| {
        let checked = save::check(text, game.saved.as_deref());
        violations.extend(checked.violation);
        warnings.extend(checked.warning);
        checked.kind
    });
    // Under `--strict` the format's deviations are violations, and no longer warnings.
    if options.strict {
        violations.append(&mut warnings);
    }
    Report {
        keys: keys.len(),
        boards: scanned.boards.len(),
        violations,
        warnings,
        save: save_kind,
        stopped_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names scripts match are distinct and in kebab case, and the format's rules come
    /// after the game's.
    #[test]
    fn every_rule_has_a_name_of_its_own() {
        let names: std::collections::BTreeSet<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
        assert_eq!(names.len(), Rule::ALL.len());
        for name in &names {
            assert!(
                name.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{name}"
            );
        }
        let first_format = Rule::ALL.iter().position(|r| r.is_format()).unwrap();
        assert!(Rule::ALL[first_format..].iter().all(|r| r.is_format()));
    }
}
