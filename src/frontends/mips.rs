//! `--interface mips`: the interface of a 2048 written in MIPS assembly, a 3x3 game to 512, as
//! that program prints it, so that people who pipe the same input into both can compare what
//! they print.
//!
//! Its main menu (`[1] New Game`, `[2] Start from a State`, `[X] Quit`), the nine integers of a
//! start state, its `+---+---+---+` board of 3-character cells, and its keys: one per line, upper
//! case, `W` `A` `S` `D` (moves), `X` (quit), `3` and `4` (new tiles off and on). Anything else,
//! and a move that changes nothing, gets `Invalid move.`; an integer that is not a tile gets
//! `Invalid integer.` and the main menu again. A run plays one game: the win at 512, `Game Over.`
//! or `X` ends the program, and so does the end of the input (silently).
//!
//! Where the program's data section and its transcripts disagree, this follows the transcripts
//! (what the program printed): an empty cell is 3 blanks, not 2, and each of the last messages
//! ends its line. The input is not echoed (the transcripts show what was typed because the
//! terminal echoed it).
//!
//! Like the line console it decides no rule and no game flow: the game is the session's (its
//! rules, its end, the one switch of new tiles, [`Command::NewTiles`]); this maps each line to a
//! command and prints what the session reports in that program's words. Generic over `BufRead`
//! and `Write` so that tests run whole sessions in memory.

use crate::model::board::{Board, tile_value};
use crate::model::direction::Direction;
use crate::model::game::{Snapshot, Status, Timeline};
use crate::model::random::seeded;
use crate::model::rules::Rules;
use crate::players::{AnyPlayer, RandomPlayer};
use crate::session::{Command, Event, MemoryStore, MenuStyle, Screen, Session, Settings, Store};
use std::fmt::Write as _;
use std::io::{self, BufRead, Write};

/// The main menu.
const WELCOME: &str = "Main Menu:\n[1] New Game\n[2] Start from a State\n[X] Quit\n";
/// The prompt for the nine integers of a start state.
const BOARD_CONFIG: &str = "Enter a board configuration (Invalid integer = back to Main menu):\n";
/// The prompt for a key in a game.
const ENTER_MOVE: &str =
    "Enter a move (W=Up, A=Left, S=Down, D=Right, X=Quit, 3=Disable RNG, 4=Enable RNG):\n";
/// A key that is not one of the screen's, or a move that changes nothing.
const INVALID_MOVE: &str = "Invalid move.\n";
/// A start state's number that is not a tile.
const INVALID_INT: &str = "Invalid integer.\n";
/// Key 3.
const RNG_DISABLED: &str = "RNG Disabled.\n";
/// Key 4.
const RNG_ENABLED: &str = "RNG Enabled.\n";
/// The game is won.
const WIN: &str = "Congratulations! You have reached the 512 tile!\n";
/// No move changes the board.
const LOSE: &str = "Game Over.\n";
/// Key X, at the menu or in a game.
const QUIT: &str = "Program Terminated.\n";

/// The cell of each tile the program draws, by exponent: empty, then 2 to 512. These are also
/// the only numbers a start state takes.
const CELLS: [&str; 10] = [
    "   ", " 2 ", " 4 ", " 8 ", " 16", " 32", " 64", "128", "256", "512",
];

/// The board as the program prints it: a line of `+---` per column (`+---+---+---+`) above,
/// between and below the rows, each row's cells between `|`. Ends with a newline. (A tile past 512, which its game never makes,
/// would be printed right-aligned in its own width.)
pub fn render_board(board: &Board) -> String {
    let n = board.size();
    let line = format!("{}+\n", "+---".repeat(n));
    let mut text = String::new();
    for r in 0..n {
        text.push_str(&line);
        for c in 0..n {
            text.push('|');
            let e = board.get(r, c);
            match CELLS.get(usize::from(e)) {
                Some(cell) => text.push_str(cell),
                None => {
                    let _ = write!(text, "{:>3}", tile_value(e));
                }
            }
        }
        text.push_str("|\n");
    }
    text.push_str(&line);
    text
}

/// The exponent of a start state's number (`0` is an empty cell), if the program takes it: a
/// whole number (blanks around it are ignored) that the board can draw, 0 or 2 to 512.
fn tile_exponent(line: &str) -> Option<u8> {
    let value: i64 = line.trim().parse().ok()?;
    if value == 0 {
        return Some(0);
    }
    let exponent = u64::try_from(value)
        .ok()
        .filter(|v| v.is_power_of_two())?
        .trailing_zeros() as u8;
    (1..CELLS.len() as u8)
        .contains(&exponent)
        .then_some(exponent)
}

/// The key a line holds: a line of exactly one character (its line ending dropped, `\r\n` as
/// well as `\n`), read as the program reads it, upper case only.
fn key(line: &str) -> Option<char> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut chars = line.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// What the nine integers of a start state came to.
enum StartState {
    /// The board they make.
    Board(Board),
    /// A number that is not a tile: back to the main menu.
    Invalid,
    /// The input ended.
    End,
}

/// The session the MIPS program plays, seeded with `seed`: 3x3 to 512 (the `mini` rules), one
/// size, no save and no best score (a [`MemoryStore`]); the random player stands in for advice
/// it never gives.
pub fn mips_session(seed: u64) -> Session<MemoryStore> {
    Session::new(
        Settings {
            rules: Rules::mini(),
            menu: MenuStyle::OneSize,
        },
        seeded(seed),
        MemoryStore::new().with_history_limit(crate::text::states_a_save_holds),
        AnyPlayer::Random(RandomPlayer),
    )
}

/// The MIPS program's interface over `input` and `output`, playing `session`.
pub struct Mips<R, W, S> {
    input: R,
    output: W,
    session: Session<S>,
}

impl<R: BufRead, W: Write, S: Store> Mips<R, W, S> {
    /// An interface that plays `session` (at its menu, with 3x3 rules), reading lines from
    /// `input` and printing to `output`.
    pub fn new(session: Session<S>, input: R, output: W) -> Mips<R, W, S> {
        Mips {
            input,
            output,
            session,
        }
    }

    /// Runs the program: the main menu, then one game, until it is won or lost, `X`, or the end
    /// of the input. Returns only I/O errors of the output (or input); everything typed is
    /// answered.
    pub fn run(mut self) -> io::Result<()> {
        let result = self.menu();
        self.session.close();
        result?;
        self.output.flush()
    }

    /// The main menu, until a game starts (then the game) or the program ends.
    fn menu(&mut self) -> io::Result<()> {
        loop {
            self.write(WELCOME)?;
            let Some(line) = self.read_line()? else {
                return Ok(());
            };
            match key(&line) {
                Some('1') => {
                    let Some(&size) = self.session.menu_sizes().first() else {
                        return Ok(());
                    };
                    self.command(Command::NewGame(size))?;
                }
                Some('2') => match self.start_state()? {
                    StartState::Board(board) => {
                        let state = Snapshot { board, score: 0 };
                        self.session.start_from(Timeline::new(state));
                    }
                    StartState::Invalid => {
                        self.write(INVALID_INT)?;
                        continue;
                    }
                    StartState::End => return Ok(()),
                },
                Some('X') => {
                    self.command(Command::Quit)?;
                    return Ok(());
                }
                _ => {
                    self.write(INVALID_MOVE)?;
                    continue;
                }
            }
            if let Screen::Game { .. } | Screen::End { .. } = self.session.screen() {
                return self.game();
            }
        }
    }

    /// Reads the nine numbers of a start state, row by row, stopping at the first that is not a
    /// tile.
    fn start_state(&mut self) -> io::Result<StartState> {
        self.write(BOARD_CONFIG)?;
        let mut exponents = [0u8; 9];
        for exponent in &mut exponents {
            let Some(line) = self.read_line()? else {
                return Ok(StartState::End);
            };
            match tile_exponent(&line) {
                Some(e) => *exponent = e,
                None => return Ok(StartState::Invalid),
            }
        }
        Ok(match Board::from_exponents(3, &exponents) {
            Ok(board) => StartState::Board(board),
            Err(_) => StartState::Invalid,
        })
    }

    /// The game: the board, then keys until a move changes it (the board again), until the game
    /// ends, `X`, or the end of the input.
    fn game(&mut self) -> io::Result<()> {
        loop {
            let (board, status) = match self.session.screen() {
                Screen::Game { game, .. } | Screen::End { game, .. } => {
                    (*game.board(), game.status())
                }
                Screen::Menu | Screen::Closed => return Ok(()),
            };
            self.write(&render_board(&board))?;
            match status {
                Status::Playing => {}
                Status::Won => return self.write(WIN),
                Status::Lost | Status::Over => return self.write(LOSE),
            }
            loop {
                self.write(ENTER_MOVE)?;
                let Some(line) = self.read_line()? else {
                    return Ok(());
                };
                let command = match key(&line) {
                    Some('W') => Command::Move(Direction::Up),
                    Some('A') => Command::Move(Direction::Left),
                    Some('S') => Command::Move(Direction::Down),
                    Some('D') => Command::Move(Direction::Right),
                    Some('3') => Command::NewTiles(false),
                    Some('4') => Command::NewTiles(true),
                    Some('X') => {
                        self.command(Command::Leave)?;
                        self.command(Command::Quit)?;
                        return Ok(());
                    }
                    _ => {
                        self.write(INVALID_MOVE)?;
                        continue;
                    }
                };
                if self.command(command)? {
                    break;
                }
            }
        }
    }

    /// Carries out `command` and prints what the program says of it; true if a move changed the
    /// board (which is then shown).
    fn command(&mut self, command: Command) -> io::Result<bool> {
        let mut moved = false;
        for event in self.session.handle(command) {
            let text = match event {
                Event::Moved { turn, .. } if turn.moved => {
                    moved = true;
                    continue;
                }
                Event::Moved { .. } | Event::NotNow => INVALID_MOVE,
                Event::NewTiles { on: false } => RNG_DISABLED,
                Event::NewTiles { on: true } => RNG_ENABLED,
                Event::Goodbye => QUIT,
                // Nothing else happens here: no save, no undo, no advice, and the store is
                // the session's memory.
                _ => continue,
            };
            self.write(text)?;
        }
        Ok(moved)
    }

    fn write(&mut self, text: &str) -> io::Result<()> {
        self.output.write_all(text.as_bytes())
    }

    /// The next line as typed (output flushed first), or `None` at the end of the input.
    fn read_line(&mut self) -> io::Result<Option<String>> {
        self.output.flush()?;
        read_untrimmed_line(&mut self.input)
            .map_err(|e| io::Error::new(e.kind(), format!("cannot read the input: {e}")))
    }
}

/// Input lines longer than this are cut (the rest of the line is read and dropped): a MIPS key
/// is a line, and its first characters tell what it is.
const MAX_LINE: usize = 64 * 1024;

/// Reads one line as typed, keeping at most its first 64 KiB (`MAX_LINE` bytes), decoded
/// leniently (bytes that are not UTF-8 become U+FFFD): only its `\n` is dropped (a final line
/// without one counts as a line). `None` at the end of the input.
fn read_untrimmed_line<R: BufRead>(input: &mut R) -> io::Result<Option<String>> {
    let mut kept: Vec<u8> = Vec::new();
    let mut read_any = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            break;
        }
        read_any = true;
        let (line_part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        let room = MAX_LINE.saturating_sub(kept.len());
        kept.extend_from_slice(&line_part[..line_part.len().min(room)]);
        let used = line_part.len() + usize::from(done);
        input.consume(used);
        if done {
            break;
        }
    }
    if !read_any {
        return Ok(None);
    }
    Ok(Some(String::from_utf8_lossy(&kept).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the interface prints for `input`, with seed `seed`.
    fn transcript(seed: u64, input: &str) -> String {
        let session = mips_session(seed);
        let mut out = Vec::new();
        Mips::new(session, input.as_bytes(), &mut out)
            .run()
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    const MENU: &str = "Main Menu:\n[1] New Game\n[2] Start from a State\n[X] Quit\n";
    const PROMPT: &str =
        "Enter a move (W=Up, A=Left, S=Down, D=Right, X=Quit, 3=Disable RNG, 4=Enable RNG):\n";

    #[test]
    fn every_tile_has_its_three_character_cell() {
        let board =
            Board::from_values(&[vec![0, 2, 4], vec![8, 16, 32], vec![64, 128, 256]]).unwrap();
        assert_eq!(
            render_board(&board),
            "+---+---+---+\n\
             |   | 2 | 4 |\n\
             +---+---+---+\n\
             | 8 | 16| 32|\n\
             +---+---+---+\n\
             | 64|128|256|\n\
             +---+---+---+\n"
        );
        let board = Board::from_values(&[vec![512, 0, 0], vec![0; 3], vec![0, 0, 1024]]).unwrap();
        assert!(render_board(&board).contains("\n|512|   |   |\n"));
        assert!(render_board(&board).contains("\n|   |   |1024|\n"));
    }

    #[test]
    fn start_state_numbers_are_the_tiles_the_board_draws() {
        for (line, exponent) in [("0", 0), ("2", 1), (" 512 ", 9), ("+4", 2), ("064", 6)] {
            assert_eq!(tile_exponent(line), Some(exponent), "{line:?}");
        }
        for line in [
            "",
            "1",
            "3",
            "1024",
            "-2",
            "X",
            "2.0",
            "99999999999999999999",
        ] {
            assert_eq!(tile_exponent(line), None, "{line:?}");
        }
    }

    #[test]
    fn a_key_is_a_line_of_one_character() {
        assert_eq!(key("W"), Some('W'));
        assert_eq!(key("W\r"), Some('W'));
        assert_eq!(key("w"), Some('w'));
        for line in ["", "WW", " W", "W ", "\r"] {
            assert_eq!(key(line), None, "{line:?}");
        }
    }

    #[test]
    fn menu_keys_other_than_1_2_x_are_invalid_and_x_terminates() {
        assert_eq!(
            transcript(1, "x\n\n11\n3\nX\n"),
            format!(
                "{MENU}Invalid move.\n{MENU}Invalid move.\n{MENU}Invalid move.\n{MENU}\
                 Invalid move.\n{MENU}Program Terminated.\n"
            )
        );
    }

    #[test]
    fn keys_that_do_nothing_and_moves_that_change_nothing_are_invalid() {
        // 2 in the top left corner: Up and Left change nothing.
        let input = "2\n2\n0\n0\n0\n0\n0\n0\n0\n0\nW\nA\nw\nq\nAA\n\nX\n";
        let board = "+---+---+---+\n| 2 |   |   |\n+---+---+---+\n|   |   |   |\n\
                     +---+---+---+\n|   |   |   |\n+---+---+---+\n";
        let invalid = format!("Invalid move.\n{PROMPT}");
        assert_eq!(
            transcript(1, input),
            format!(
                "{MENU}Enter a board configuration (Invalid integer = back to Main menu):\n\
                 {board}{PROMPT}{}Program Terminated.\n",
                invalid.repeat(6)
            )
        );
    }

    #[test]
    fn an_invalid_integer_goes_back_to_the_main_menu_at_once() {
        // The numbers after the invalid one are read as menu keys.
        let out = transcript(1, "2\n2\n4\nX\n2\n8\n");
        let config = "Enter a board configuration (Invalid integer = back to Main menu):\n";
        assert_eq!(
            out,
            format!("{MENU}{config}Invalid integer.\n{MENU}{config}")
        );
    }

    #[test]
    fn new_tiles_off_and_on_and_the_win_at_512() {
        let input = "2\n256\n256\n0\n0\n0\n0\n0\n0\n0\n3\n3\n4\nA\n";
        let out = transcript(7, input);
        let (before, after) = out.split_once("|512|").expect("the board after Left");
        assert!(
            before.ends_with(&format!(
                "{PROMPT}RNG Disabled.\n{PROMPT}RNG Disabled.\n{PROMPT}RNG Enabled.\n{PROMPT}\
                 +---+---+---+\n"
            )),
            "{out}"
        );
        // New tiles back on: one 2 appeared, and the program ends with the win.
        assert_eq!(after.matches(" 2 ").count(), 1, "{out}");
        assert!(
            after.ends_with("Congratulations! You have reached the 512 tile!\n"),
            "{out}"
        );
    }

    #[test]
    fn a_stuck_start_state_is_game_over_and_a_512_is_won() {
        let stuck = "2\n2\n4\n2\n4\n2\n4\n2\n4\n2\n";
        let out = transcript(1, stuck);
        assert!(
            out.ends_with("| 2 | 4 | 2 |\n+---+---+---+\nGame Over.\n"),
            "{out}"
        );
        let won = transcript(1, "2\n512\n0\n0\n0\n0\n0\n0\n0\n0\nA\n");
        assert!(
            won.ends_with("+---+---+---+\nCongratulations! You have reached the 512 tile!\n"),
            "{won}"
        );
    }

    #[test]
    fn the_end_of_the_input_ends_the_program_anywhere() {
        for input in ["", "1\n", "1\nA\n", "2\n", "2\n2\n0\n", "x\n", "2\n4\n2"] {
            let out = transcript(3, input);
            assert!(out.starts_with(MENU), "{input:?}: {out}");
            assert!(!out.contains("Terminated"), "{input:?}: {out}");
        }
    }
}
