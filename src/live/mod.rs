//! A program under test run and refereed as it goes (`power11 referee --run`): fed a line of
//! keys at a time through the runner, each answer refereed when it comes, so a crash, a hang
//! or an exit names the key it was answering and the board before it, and a player can choose
//! the next key from the board the program just printed ([`play`]).
//!
//! The runner holds the program (its terminal, limits and processes); the referee judges what
//! it printed; this module only joins them: it decides no rule and runs no process itself.

pub mod play;

use crate::files::runs::RunFolder;
use crate::model::board::Board;
use crate::referee::grades::RunProblem;
use crate::referee::{Assignment, KeyAt, Options, Referee, Report, SaveBefore, Stage, keys_of};
use crate::runner::{Answering, Ending, Limits, Outcome, Run, RunError, Seen, Spec, Status};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// The time a run fed every key at once has, besides [`AT_ONCE_PER_LINE`] a line: past it,
/// it is run again key by key with its whole time limit, so its speed decides nothing.
pub const AT_ONCE_BASE: Duration = Duration::from_secs(2);
/// The time a run fed at once has for each line of keys.
pub const AT_ONCE_PER_LINE: Duration = Duration::from_millis(3);

/// How to run a program: the command, where it was typed, its limits, and how to referee it.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The command, split as a shell splits it.
    pub words: Vec<String>,
    /// The folder it was typed in (relative words name files there).
    pub origin: PathBuf,
    /// The limits it runs under.
    pub limits: Limits,
    /// The longest the runner waits on a run, summed over it.
    pub time_limit: Duration,
    /// Time added to the limit for each line sent ([`crate::runner::Spec::per_key`]).
    pub per_key: Duration,
    /// The longest one answer may take ([`crate::runner::Spec::key_limit`]).
    pub key_limit: Option<Duration>,
    /// How to referee it (`before` is set for each run from the save it is given).
    pub options: Options,
    /// Folders covered in its sandbox besides the grader's own ([`crate::runner::Spec::covered`]:
    /// a class's other submissions).
    pub covered: Vec<PathBuf>,
    /// Whether it runs in a sandbox of its own where one can be had
    /// ([`crate::runner::Spec::sandbox`]).
    pub sandbox: bool,
}

/// Why a run could not be made.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    /// The folder to run it in could not be made.
    #[error("cannot make a folder to run the program in: {}", crate::files::system_words(.0))]
    Folder(std::io::Error),
    /// The runner could not start it.
    #[error(transparent)]
    Run(#[from] RunError),
    /// A Power-11 play asked for a board the assignment has not (4x4 and 5x5 only).
    #[error("Power-11 is played on 4x4 (Hard) and 5x5 (Easy) boards, not {0}x{0}")]
    Size(usize),
}

/// A run, refereed, done.
#[derive(Debug)]
pub struct Ran {
    /// The keys it was fed, as a keys file holds them (a line a chunk fed).
    pub keys: String,
    /// What it printed on standard output.
    pub transcript: Vec<u8>,
    /// The save it left in its folder, if any.
    pub save: Option<Vec<u8>>,
    /// The referee's report.
    pub report: Report,
    /// How it ended, and its standard error.
    pub outcome: Outcome,
    /// The key it was answering when it ended, if one (a crash, a hang, an exit mid-game).
    pub answering: Option<KeyAt>,
    /// The board as the rules had it before that key, if a game was on.
    pub board_before: Option<Board>,
}

/// One run of a program under test, going on.
pub struct Live {
    run: Run,
    folder: RunFolder,
    referee: Referee,
    assignment: Assignment,
    keys: String,
    /// Keys fed so far, and lines.
    count: usize,
    lines: usize,
    /// The first key of each chunk sent (None: a line with no key), by chunk index.
    chunk_keys: Vec<Option<KeyAt>>,
    /// The board before each chunk, by chunk index.
    boards_before: Vec<Option<Board>>,
    ended: bool,
    /// The runner ended it mid-answer: the keys from there on are not refereed.
    cut: bool,
    /// It ended and the key after was refereed unanswered: no more keys are.
    after_end: bool,
}

impl Live {
    /// Starts `setup`'s program in a fresh folder holding `save` (as `power11.saved`) if given,
    /// refereed knowing `before` of the save it may resume, and reads its opening (the menu).
    pub fn start(
        setup: &Setup,
        before: SaveBefore,
        save: Option<&[u8]>,
    ) -> Result<Live, LiveError> {
        let folder = RunFolder::new(save).map_err(LiveError::Folder)?;
        let mut run = Run::start(&spec_of(setup, &folder))?;
        let mut options = setup.options.clone();
        options.before = before;
        let mut referee = Referee::new(options);
        let opening = run.wait_for_input();
        referee.opening(&String::from_utf8_lossy(&opening.output));
        Ok(Live {
            ended: matches!(opening.status, Status::Ended(_)),
            cut: matches!(&opening.status, Status::Ended(e) if !e.on_its_own()),
            after_end: false,
            run,
            folder,
            referee,
            assignment: setup.options.assignment,
            keys: String::new(),
            count: 0,
            lines: 0,
            chunk_keys: Vec::new(),
            boards_before: Vec::new(),
        })
    }

    /// The referee, as it sees the run so far: what a player reads the game from.
    pub fn referee(&self) -> &Referee {
        &self.referee
    }

    /// Whether the program has ended (after which lines are refereed unanswered).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// How many keys were fed.
    pub fn keys_fed(&self) -> usize {
        self.count
    }

    /// Feeds `line` (without its newline) to the program as typed, waits for its answer and
    /// referees it. After the program ended, the line's keys are refereed with no answer (the
    /// boards they should have had are missing).
    pub fn send_line(&mut self, line: &str) {
        self.lines += 1;
        let mut keys = match self.assignment {
            // A MIPS key is a line, a blank one too.
            Assignment::Mips => vec![crate::referee::Key::mips(
                line.strip_suffix('\r').unwrap_or(line),
                1,
                1,
            )],
            Assignment::Power11 => keys_of(line, self.assignment),
        };
        for key in &mut keys {
            key.index += self.count;
            key.line = self.lines;
        }
        self.count += keys.len();
        self.keys.push_str(line);
        self.keys.push('\n');
        if self.cut || self.after_end {
            return;
        }
        let printed = if self.ended {
            // The first key after it ended is refereed unanswered (a program that quit too
            // soon misses that key's board); the keys after that are the same fault again.
            self.after_end = true;
            String::new()
        } else {
            self.chunk_keys
                .push(keys.first().map(crate::referee::Key::at));
            let in_game = matches!(self.referee.stage(), Stage::Game | Stage::Over);
            let board = self.referee.state().filter(|_| in_game);
            self.boards_before.push(board.map(|state| state.board));
            self.run.send(format!("{line}\n").as_bytes());
            let (printed, status) = self.answer_to(&keys);
            if let Status::Ended(ending) = &status {
                self.ended = true;
                // Ended by the runner (its time limit, its output cap): what it had no time
                // to print is the run's problem, not a rule's, so refereeing stops here.
                if !ending.on_its_own() {
                    self.cut = true;
                    return;
                }
                // A crash (or a failing exit) is the run's problem, once: what it printed
                // before is judged, but no board it had no time to print is missed, here or
                // at the next key.
                if *ending != Ending::Exited(0) {
                    self.cut = true;
                    if printed.trim().is_empty() {
                        return;
                    }
                }
            }
            printed
        };
        self.referee.keys(&keys, &printed);
    }

    /// What the program printed in answer to `keys`, and where it stands then. A program
    /// seen asking for its next key has answered; one only seen quiet for a while may not
    /// have (it pauses, or computes, before it prints), so while what it printed would be a
    /// fault (a board missing), it is waited for again, a quiet period at a time, for as long
    /// as its time limits allow: how fast a program answers never decides a rule.
    fn answer_to(&mut self, keys: &[crate::referee::Key]) -> (String, Status) {
        let mut answer = self.run.wait_for_input();
        let mut printed = answer.output;
        while answer.status == Status::Waiting(Seen::Settled)
            && self
                .referee
                .would_fault(keys, &String::from_utf8_lossy(&printed))
        {
            answer = self.run.wait_for_more();
            printed.extend_from_slice(&answer.output);
        }
        (
            String::from_utf8_lossy(&printed).into_owned(),
            answer.status,
        )
    }

    /// Ends the program's input, referees what it printed then, ends the run (and everything
    /// it started), and reports.
    pub fn finish(mut self) -> Ran {
        let in_game = matches!(self.referee.stage(), Stage::Game | Stage::Over);
        let board_at_end = self
            .referee
            .state()
            .filter(|_| in_game)
            .map(|state| state.board);
        if !self.ended {
            self.run.end_input();
            let answer = self.run.wait_for_input();
            self.referee
                .keys(&[], &String::from_utf8_lossy(&answer.output));
        }
        let outcome = self.run.finish();
        let save = self.folder.saved();
        let saved_text = save.as_deref().map(String::from_utf8_lossy);
        let report = if self.cut {
            self.referee.finish(saved_text.as_deref())
        } else {
            self.referee.finish_in_folder(saved_text.as_deref())
        };
        let (answering, board_before) = match outcome.answering {
            // A program that exits at the end of its input, or when it read `q`, answered as
            // it should: only an ending that is not its own is a key's to answer for.
            _ if matches!(outcome.ending, Ending::Exited(0) | Ending::KeptReading) => (None, None),
            Answering::Chunk(i) => (
                self.chunk_keys.get(i).copied().flatten(),
                self.boards_before.get(i).copied().flatten(),
            ),
            Answering::EndOfInput => (None, board_at_end),
            Answering::Nothing => (None, None),
        };
        Ran {
            keys: self.keys,
            transcript: outcome.stdout.clone(),
            save,
            report,
            outcome,
            answering,
            board_before,
        }
    }
}

/// The runner's spec of a run of `setup`'s program in `folder`.
fn spec_of(setup: &Setup, folder: &RunFolder) -> Spec {
    let mut spec = Spec::new(setup.words.clone(), &setup.origin, folder.path());
    spec.limits = setup.limits;
    spec.time_limit = setup.time_limit;
    spec.per_key = setup.per_key;
    spec.key_limit = setup.key_limit;
    spec.sandbox = setup.sandbox;
    spec.covered.clone_from(&setup.covered);
    spec
}

impl Ran {
    /// What went wrong with the run itself, apart from the rules.
    pub fn problem(&self) -> Option<RunProblem> {
        problem_of(self)
    }

    /// Whether it passed: every rule held and the run itself went well.
    pub fn passed(&self) -> bool {
        self.report.passed() && self.problem().is_none()
    }
}

/// What went wrong with a run itself, apart from the rules: a crash, a hang, output without
/// end, a failing exit. A program that kept reading after the end of its input is noted, not
/// failed: the other Power-11 programs do, and the runner ends it at once.
fn problem_of(run: &Ran) -> Option<RunProblem> {
    let outcome = &run.outcome;
    let (kind, words) = match &outcome.ending {
        Ending::Exited(0) | Ending::KeptReading | Ending::Stopped => return None,
        Ending::Exited(code) => (
            "failed",
            format!(
                "the program exited with code {code} (a Power-11 program ends with 0 at the end of its input)"
            ),
        ),
        Ending::Signal(_) => ("crashed", format!("the program {}", outcome.ending)),
        Ending::TimeLimit(_) => ("hung", format!("the program {}", outcome.ending)),
        Ending::OutputCap(_) => ("flooded", format!("the program {}", outcome.ending)),
        Ending::MemoryLimit(_) => ("memory", format!("the program {}", outcome.ending)),
        Ending::NoExit(_) => ("left-running", format!("the program {}", outcome.ending)),
        Ending::Failed(_) => ("failed", format!("the run {}", outcome.ending)),
    };
    let mut words = words;
    if let Some(key) = run.answering {
        let _ = write!(
            words,
            ", answering key {} '{}' (line {})",
            key.index,
            crate::text::visible(key.key),
            key.line
        );
    }
    if let Some(line) = last_said(outcome.stderr.end(4096)) {
        let _ = write!(words, "; its last words on standard error: {line}");
    }
    Some(RunProblem { kind, words })
}

/// The last line a program wrote on standard error that is not blank, control characters
/// shown, cut to 200 characters: why a run went wrong, in the program's words.
fn last_said(stderr: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stderr);
    let line = text.lines().rev().find(|line| !line.trim().is_empty())?;
    let shown: String = crate::text::visible_text(line.trim());
    Some(match shown.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &shown[..at]),
        None => shown,
    })
}

/// Runs `setup`'s program on `keys` as [`run_keys`] does, but first with every key sent at
/// once, as `program < keys` would: a run that passes so (every board the rules ask for, in
/// order, and a clean end) passes, in a fraction of the time; any other is run again a line
/// at a time, so that every finding names the key [`run_keys`] names. The second return is
/// whether the run at once was enough.
pub fn run_script(
    setup: &Setup,
    keys: &str,
    before: SaveBefore,
    save: Option<&[u8]>,
) -> Result<(Ran, bool), LiveError> {
    let at_once = run_at_once(setup, keys, before.clone(), save)?;
    if at_once.passed() || at_once.outcome.ending == Ending::Stopped {
        return Ok((at_once, true));
    }
    Ok((run_keys(setup, keys, before, save)?, false))
}

/// `setup`'s program fed every key of `keys` at once, then the end of its input, waited for
/// to its end, and its whole transcript refereed.
pub fn run_at_once(
    setup: &Setup,
    keys: &str,
    before: SaveBefore,
    save: Option<&[u8]>,
) -> Result<Ran, LiveError> {
    let folder = RunFolder::new(save).map_err(LiveError::Folder)?;
    let mut spec = spec_of(setup, &folder);
    // Short: a run at once that takes longer is run again key by key, with all its time.
    let lines = u32::try_from(keys.lines().count()).unwrap_or(u32::MAX);
    spec.time_limit = (AT_ONCE_BASE + AT_ONCE_PER_LINE.saturating_mul(lines)).min(spec.time_limit);
    spec.per_key = Duration::ZERO;
    spec.key_limit = None;
    let mut run = Run::start(&spec)?;
    let mut text = keys.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    run.send(text.as_bytes());
    run.end_input();
    // Nothing to answer: only its end is waited for (no look at whether it waits for input).
    run.wait_for_exit();
    let outcome = run.finish();
    let save = folder.saved();
    let mut options = setup.options.clone();
    options.before = before;
    let transcript = String::from_utf8_lossy(&outcome.stdout).into_owned();
    let saved_text = save.as_deref().map(String::from_utf8_lossy);
    let report =
        crate::referee::referee_in_folder(keys, &transcript, saved_text.as_deref(), &options);
    Ok(Ran {
        keys: text,
        transcript: outcome.stdout.clone(),
        save,
        report,
        outcome,
        answering: None,
        board_before: None,
    })
}

/// Runs `setup`'s program on `keys` (a keys file's text), a line at a time, in a fresh folder
/// holding `save` if given, and referees it.
pub fn run_keys(
    setup: &Setup,
    keys: &str,
    before: SaveBefore,
    save: Option<&[u8]>,
) -> Result<Ran, LiveError> {
    let mut live = Live::start(setup, before, save)?;
    let body = keys.strip_suffix('\n').unwrap_or(keys);
    if !keys.is_empty() {
        for line in body.split('\n') {
            live.send_line(line);
        }
    }
    Ok(live.finish())
}
