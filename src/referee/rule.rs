//! The rules a run can break, each by a stable name that scripts and grading systems match.

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
    /// With new tiles switched off (the MIPS program's 3), a move places none.
    NewTileWhileOff,
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
    /// The MIPS program's start state is the board its nine numbers give.
    StartState,
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
        Rule::NewTileWhileOff,
        Rule::NewTileValue,
        Rule::UnchangedMove,
        Rule::Score,
        Rule::Merge,
        Rule::MergedTwice,
        Rule::Undo,
        Rule::UndoPastStart,
        Rule::Save,
        Rule::Resume,
        Rule::StartState,
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
            Rule::NewTileWhileOff => "new-tile-while-off",
            Rule::NewTileValue => "new-tile-value",
            Rule::UnchangedMove => "unchanged-move",
            Rule::Score => "score",
            Rule::Merge => "merge",
            Rule::MergedTwice => "merged-twice",
            Rule::Undo => "undo",
            Rule::UndoPastStart => "undo-past-start",
            Rule::Save => "save",
            Rule::Resume => "resume",
            Rule::StartState => "start-state",
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
            Rule::NewTileWhileOff => "with new tiles switched off, a move places none",
            Rule::NewTileValue => "a new tile is a 2 or a 4 (a 2 in the MIPS program)",
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
            Rule::StartState => "a start state is the board its nine numbers give",
            Rule::WinNotAnnounced => {
                "the goal tile ends the game with its message (YOU WON WITH A SCORE OF N)"
            }
            Rule::WinScore => "YOU WON WITH A SCORE OF N gives the game's score",
            Rule::WinTooEarly => "a game is won only once the goal tile is on the board",
            Rule::LossNotAnnounced => {
                "a board no move changes ends the game with its message (YOU LOST!)"
            }
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

    /// The rule's place in [`Rule::ALL`].
    pub fn index(self) -> usize {
        self as usize
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
