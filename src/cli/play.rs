//! `power11` without a command: a game by hand (line console, full screen, the MIPS
//! interface) or the computer's (`--autoplay`).

use super::args::Cli;
use super::os_seed;
use super::player::{Boards, Loading, Notes, PlayerSetup, player_for};
use super::values::Goal;
use super::{StandardOutput, UsageError};
use crate::files::best::{BestScores, data_dir};
use crate::files::save::{SAVE_FILE, read_board_file};
use crate::files::store::FileStore;
use crate::frontends::console::Console;
use crate::frontends::mips::{Mips, mips_session};
use crate::frontends::tui::{self, ColorMode};
use crate::model::game::Timeline;
use crate::model::named::Named;
use crate::model::random::seeded;
use crate::model::rules::{Rules, Variant};
use crate::players::playout::default_attempt_limit;
use crate::players::{AnyPlayer, PlayerKind, SearchConfig};
use crate::session::{MemoryStore, MenuStyle, Session, Settings};
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

/// A game: by hand in the console or full screen, or the computer's (`--autoplay`), under the
/// rules, board and player the arguments give.
pub(super) fn run_play(cli: &Cli) -> anyhow::Result<()> {
    let rules = cli.rules.rules()?;
    let rng = seeded(cli.seed.unwrap_or_else(os_seed));
    let first_game = first_game(cli)?;
    if cli.tui {
        check_terminal()?;
    }
    let menu = if rules.variant() == Variant::Power11 && cli.rules.size.is_none() {
        MenuStyle::EasyHard
    } else {
        MenuStyle::OneSize
    };
    let (player, advisor) = players(cli, &rules, menu, first_game.as_ref())?;
    let settings = Settings { rules, menu };
    let mut out = io::BufWriter::new(StandardOutput::lock());
    if cli.autoplay.is_some() {
        let store = MemoryStore::new().with_history_limit(crate::text::states_a_save_holds);
        let mut session = Session::new(settings, rng, store, player);
        match first_game {
            Some(timeline) => session.start_from(timeline),
            None => session.start_new(),
        }
        let delay = Duration::from_millis(cli.delay.unwrap_or(0));
        let limit = cli
            .max_moves
            .unwrap_or_else(|| default_attempt_limit(&rules));
        return Ok(crate::frontends::autoplay::run(
            &mut out,
            &mut session,
            delay,
            limit,
        )?);
    }
    let store = FileStore::new(PathBuf::from(SAVE_FILE), best_scores(), data_dir());
    let mut session = Session::new(settings, rng, store, player);
    if let Some(advisor) = advisor {
        session = session.with_advisor(advisor);
    }
    if let Some(timeline) = first_game {
        session.start_from(timeline);
    }
    if cli.tui {
        let colors = ColorMode::choose(
            &cli.color,
            std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            std::env::var("COLORTERM").ok().as_deref(),
            std::env::var("TERM").ok().as_deref(),
        );
        out.flush()?;
        let delay = cli.delay.map_or(tui::DEFAULT_DELAY, Duration::from_millis);
        return match tui::run(session, colors, delay, !cli.no_animation)? {
            Some(signal) => Err(super::Stopped(signal).into()),
            None => Ok(()),
        };
    }
    let stdin = io::stdin();
    Console::new(session, stdin.lock(), &mut out).run()?;
    Ok(())
}

/// The player of a game (`--player`, `--autoplay`'s, else the one that suits its boards) and,
/// for a game by hand whose player does not search, the advisor (the player that plays when
/// none is named).
fn players(
    cli: &Cli,
    rules: &Rules,
    menu: MenuStyle,
    first_game: Option<&Timeline>,
) -> anyhow::Result<(AnyPlayer, Option<AnyPlayer>)> {
    // A game by hand may be played on 5x5 from the menu, or at a board file's size; the
    // learned player then hands other sizes to the hand-tuned search. Autoplay plays the rules
    // given (or the board file's size), which must suit it.
    let any_size = cli.autoplay.is_none() && (menu == MenuStyle::EasyHard || first_game.is_some());
    let named = cli.autoplay.flatten().or(cli.player);
    if let (Some(PlayerKind::Learned), Some(timeline)) = (cli.autoplay.flatten(), first_game)
        && timeline.size() != 4
    {
        let n = timeline.size();
        let message = format!(
            "the learned player plays 4x4 boards (classic, Power-11 Hard); {} holds a {n}x{n} board",
            cli.board
                .as_deref()
                .map_or(String::new(), crate::files::shown)
        );
        return Err(UsageError(message).into());
    }
    // Unnamed, the player suits the boards this session can play: a menu may offer 4x4 and
    // 5x5, autoplay plays the board file's size or the rules'.
    let sizes = match (first_game, any_size) {
        (_, true) => vec![4, 5],
        (Some(timeline), false) => vec![timeline.size()],
        (None, false) => vec![rules.size()],
    };
    let tuned = SearchConfig {
        depth: cli.depth,
        time_budget: cli.ms_per_move.map(Duration::from_millis),
        ..Default::default()
    };
    let kind = named.unwrap_or_else(|| PlayerKind::default_for(&sizes, &tuned));
    if named.is_none() && cli.weights.is_some() && kind != PlayerKind::Learned {
        return Err(UsageError(format!(
            "--weights is the learned player's network, but with these rules and flags the player is the {} one (the learned player plays 4x4 boards, without --ms-per-move and at most --depth 4; name it with --player learned)",
            kind.name()
        ))
        .into());
    }
    // A board file decides the size its game is played at, whatever the variant's.
    let board_rules =
        first_game.map_or(*rules, |timeline| rules.on(timeline.current().board.side()));
    let notes = if cli.tui { Notes::Kept } else { Notes::Stderr };
    let setup = PlayerSetup {
        kind,
        depth: cli.depth,
        ms_per_move: cli.ms_per_move,
        rules: &board_rules,
        weights: cli.weights.as_deref(),
        boards: if any_size { Boards::Any } else { Boards::Rules },
        loading: Loading::WhenNeeded(notes),
    };
    let (player, _) = player_for(&setup)?;
    // Advice comes from the player, or where it does not search, from the player that plays
    // when none is named.
    let advisor = match kind {
        _ if cli.autoplay.is_some() => None,
        PlayerKind::Random | PlayerKind::Optimal => {
            let default = PlayerSetup {
                kind: PlayerKind::default_for(&sizes, &SearchConfig::default()),
                depth: None,
                ms_per_move: None,
                weights: None,
                boards: Boards::Any,
                ..setup
            };
            Some(player_for(&default)?.0)
        }
        PlayerKind::Expectimax | PlayerKind::Learned => None,
    };
    Ok((player, advisor))
}

/// The game `--board` starts from, if given: a board file whose size agrees with `--size`.
/// A file that cannot be read or parsed, or a size that disagrees, is a usage error (exit 2).
fn first_game(cli: &Cli) -> anyhow::Result<Option<Timeline>> {
    Ok(match &cli.board {
        Some(path) if path.as_os_str() == crate::bench::STANDARD_INPUT => {
            let message = "--board -: standard input holds the moves; give the board as a file \
                           (or the output of a command: --board <(command))";
            return Err(UsageError(message.to_string()).into());
        }
        Some(path) => {
            let timeline = read_board_file(path).map_err(|e| UsageError(e.to_string()))?;
            let size = timeline.size();
            if let Some(wanted) = cli.rules.size.filter(|n| n.get() != size) {
                let message = format!(
                    "{} holds a {size}x{size} board, but --size is {wanted}",
                    crate::files::shown(path)
                );
                return Err(UsageError(message).into());
            }
            Some(timeline)
        }
        None => None,
    })
}

/// `--tui` needs a terminal on stdin and stdout that can move its cursor; without one it is a
/// usage error (exit 2) that points to the line interface.
fn check_terminal() -> anyhow::Result<()> {
    if !(io::stdin().is_terminal() && io::stdout().is_terminal()) {
        let message = "--tui needs a terminal on standard input and output; \
                       without one, play the line interface (power11 without --tui)";
        return Err(UsageError(message.to_string()).into());
    }
    if std::env::var_os("TERM").is_some_and(|term| term == "dumb") {
        let message = "--tui needs a terminal that can move its cursor and TERM=dumb cannot; \
                       play the line interface (power11 without --tui)";
        return Err(UsageError(message.to_string()).into());
    }
    Ok(())
}

/// The best scores of games by hand, from the data directory, else kept for this session only.
fn best_scores() -> BestScores {
    // Notes about the best-score file go to standard error, before the game: its output stays
    // what the moves make it. (A best score that cannot be saved is said in the game.)
    if let Some(dir) = data_dir() {
        let (loaded, warnings) = BestScores::load(&dir);
        for warning in warnings {
            super::note(warning);
        }
        loaded
    } else {
        eprintln!(
            "power11: no data directory (POWER11_DATA_DIR is unset or empty and there is no home \
             directory); best scores are kept for this session only: set POWER11_DATA_DIR to keep them"
        );
        BestScores::in_memory()
    }
}

/// `--interface mips`: the MIPS program's interface on stdin and stdout. It plays the `mini`
/// rules (those of that program: 3x3, 2s, two at the start, goal 512) and keeps nothing: no
/// save, no best score.
pub(super) fn run_mips(cli: &Cli) -> anyhow::Result<()> {
    if let Some(flag) = mips_conflict(cli) {
        let message = format!(
            "--interface mips plays the MIPS program's own game (3x3 to 512, its menu and keys): it takes no {flag}"
        );
        return Err(UsageError(message).into());
    }
    let session = mips_session(cli.seed.unwrap_or_else(os_seed));
    let stdin = io::stdin();
    let mut out = io::BufWriter::new(StandardOutput::lock());
    Mips::new(session, stdin.lock(), &mut out).run()?;
    Ok(())
}

/// The first flag given with `--interface mips` that it cannot honour, as given: any flag of
/// another interface, a player's, `--board` (a start state is typed at its menu), and a rule
/// other than the MIPS program's (`--variant mini` and `--size 3` agree with it).
fn mips_conflict(cli: &Cli) -> Option<String> {
    let rules = &cli.rules;
    let mini = Rules::mini();
    let plain = |flag: &str| Some(flag.to_string());
    if cli.tui {
        return plain("--tui");
    }
    if let Some(player) = cli.autoplay {
        return Some(player.map_or("--autoplay".to_string(), |p| {
            format!("--autoplay {}", p.name())
        }));
    }
    if let Some(player) = cli.player {
        return Some(format!("--player {}", player.name()));
    }
    if cli.weights.is_some() {
        return plain("--weights");
    }
    if cli.board.is_some() {
        return plain("--board (its menu's 2 starts from a state)");
    }
    if cli.variant_given && rules.variant != Variant::Mini {
        return Some(format!("--variant {}", rules.variant.name()));
    }
    if let Some(size) = rules.size.filter(|s| s.get() != mini.size()) {
        return Some(format!("--size {size}"));
    }
    if let Some(Goal(goal)) = rules.goal {
        let exponent = goal.map(|v| v.trailing_zeros() as u8);
        if exponent != mini.goal() {
            return Some(format!(
                "--goal {}",
                goal.map_or("none".to_string(), |v| v.to_string())
            ));
        }
    }
    if let Some(spawn) = rules.spawn.filter(|&s| s != mini.spawn()) {
        return Some(format!("--spawn {}", spawn.name()));
    }
    if let Some(scoring) = rules.score.filter(|&s| s != mini.scoring()) {
        return Some(format!("--score {}", scoring.name()));
    }
    if let Some(p) = rules.fill {
        return Some(format!("--fill {p}"));
    }
    None
}
