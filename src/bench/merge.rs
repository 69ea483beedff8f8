//! Merging bench reports: reading a `--json` report (bounded, checked), and adding up the
//! reports of a run's parts into the report of the whole.

use super::report::{depth_words, goal_words};
use super::{BenchReport, Run, RunIdentity, Tally, UNWON_SEEDS_SHOWN, reached_counts, summarise};
use crate::files::bounded::{BoundedReadError, Expect, read_standard_input, read_stream};
use crate::model::named::Named;
use std::path::{Path, PathBuf};

/// Why reports cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A file could not be read.
    #[error(
        "{}: {}",
        crate::files::shown(path),
        crate::files::system_words(source)
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A report named is not there.
    #[error("{}: no such file", crate::files::shown(path))]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A file is not a bench report (or one from a power11 too old to merge).
    #[error(
        "{}:{line}:{column}: not a power11 bench --json report: {message}",
        crate::files::shown(path)
    )]
    NotAReport {
        /// The file.
        path: PathBuf,
        /// Where the problem is.
        line: usize,
        /// Where on the line.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A report whose counts do not add up: damaged or edited by hand.
    #[error("{}: a damaged report: {problem}", crate::files::shown(path))]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What does not add up.
        problem: String,
    },
    /// Two reports of different runs.
    #[error(
        "{} and {} are not parts of one run: different {field} ({first} / {second})",
        crate::files::shown(first_path),
        crate::files::shown(second_path)
    )]
    DifferentRuns {
        /// The first report.
        first_path: PathBuf,
        /// The report that differs from it.
        second_path: PathBuf,
        /// Which field.
        field: &'static str,
        /// Its value in the first report.
        first: String,
        /// Its value in the second.
        second: String,
    },
    /// Two reports that both hold a game.
    #[error(
        "{} and {} both hold game {game}: each game may be counted once",
        crate::files::shown(first_path),
        crate::files::shown(second_path)
    )]
    Overlap {
        /// One report.
        first_path: PathBuf,
        /// The other.
        second_path: PathBuf,
        /// The first game they share.
        game: u64,
    },
    /// Nothing to merge.
    #[error("no reports to merge")]
    Nothing,
    /// Parts whose totals do not fit a report: edited by hand.
    #[error(
        "the reports add up to more moves or seconds than a report holds (at most {MAX_SECONDS:e} s)"
    )]
    TooLarge,
    /// A directory where a report was named (a shell glob of the wrong level, say).
    #[error(
        "{}: a directory, not a bench report (name the reports in it: {}/*.json)",
        crate::files::shown(path),
        crate::files::shown(path)
    )]
    Directory {
        /// The directory.
        path: PathBuf,
    },
    /// A file larger than any report: not one, and not read whole.
    #[error(
        "{}: larger than any bench report can be (64 MiB)",
        crate::files::shown(path)
    )]
    TooLargeFile {
        /// The file.
        path: PathBuf,
    },
    /// One file named twice: its games would count twice.
    #[error(
        "{} is given twice: each game may be counted once",
        crate::files::shown(path)
    )]
    GivenTwice {
        /// The file.
        path: PathBuf,
    },
}

/// The largest report read. A report's size grows with its distinct scores (about 20 bytes
/// each, at most one a game) and its first unwon games (at most a hundred): 64 MiB holds some
/// three million games, far above any real run, and stops a stream or a wrong file at once.
pub const MAX_REPORT_BYTES: u64 = 64 << 20;

/// The name that reads a report from standard input instead of a file, as in most
/// command-line programs: a part played on another machine can be piped in.
pub const STANDARD_INPUT: &str = "-";

/// How messages name `path`: [`STANDARD_INPUT`] says what it is.
pub fn shown(path: &Path) -> PathBuf {
    if path == Path::new(STANDARD_INPUT) {
        PathBuf::from("- (standard input)")
    } else {
        path.to_path_buf()
    }
}

/// Reads one `bench --json` report from `path` ([`STANDARD_INPUT`]: from standard input),
/// checking that its counts add up. Its errors name the path as [`shown`] does.
pub fn read_report(path: &Path) -> Result<BenchReport, MergeError> {
    let stdin = path == Path::new(STANDARD_INPUT);
    let named = shown(path);
    let path = named.as_path();
    let read_error = |source| MergeError::Read {
        path: path.to_path_buf(),
        source,
    };
    let too_large = || MergeError::TooLargeFile {
        path: path.to_path_buf(),
    };
    // A report can be a pipe (`<(...)`), so the size is checked as it is read, and a regular
    // file's size before: `/dev/zero` or a huge file is refused without filling the memory.
    let bytes = if stdin {
        read_standard_input(MAX_REPORT_BYTES, Expect::Text)
    } else {
        read_stream(path, MAX_REPORT_BYTES, Expect::Text)
    };
    let bytes = bytes.map_err(|e| match e {
        BoundedReadError::Io(source) if source.kind() == std::io::ErrorKind::NotFound => {
            MergeError::Missing {
                path: path.to_path_buf(),
            }
        }
        BoundedReadError::Io(source) => read_error(source),
        BoundedReadError::NotRegular(_) => MergeError::Directory {
            path: path.to_path_buf(),
        },
        BoundedReadError::TooLarge(_) => too_large(),
    })?;
    // Editors on some systems start a file with a byte-order mark: it is not damage.
    let json = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let report: BenchReport = serde_json::from_slice(json).map_err(|e| {
        let message = e.to_string();
        let message = message.split(" at line ").next().unwrap_or("");
        let message = message.replace("struct BenchReport", "a bench report (a JSON object)");
        let message = if message.starts_with("trailing characters") {
            format!("{message} after the report (give each report as its own file)")
        } else {
            message
        };
        MergeError::NotAReport {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column().max(1),
            message,
        }
    })?;
    check_report(&report).map_err(|problem| MergeError::Damaged {
        path: path.to_path_buf(),
        problem,
    })?;
    Ok(report)
}

/// The longest time a report may hold, in seconds (a thread's or the run's): 31 years. A run's
/// parts add up below any figure a summary could not print.
const MAX_SECONDS: f64 = 1e9;

/// The counts a report carries must agree with each other and describe a run power11 can play:
/// a merge trusts them, so a report edited by hand or damaged is refused, not summed.
fn check_report(report: &BenchReport) -> Result<(), String> {
    check_identity(&report.identity)?;
    let ranges = &report.game_ranges;
    let increasing = ranges.windows(2).all(|pair| pair[0][1] <= pair[1][0]);
    if ranges.is_empty() || ranges.iter().any(|[a, b]| a >= b) || !increasing {
        return Err("game_ranges are not increasing, non-empty ranges".to_string());
    }
    for (what, count) in [
        (
            "game_ranges",
            total("game_ranges", ranges.iter().map(|[a, b]| b - a))?,
        ),
        (
            "score_counts",
            total("score_counts", report.score_counts.values().copied())?,
        ),
        (
            "max_tile_counts",
            total("max_tile_counts", report.max_tile_counts.values().copied())?,
        ),
    ] {
        if count != report.games {
            return Err(format!("{what} hold {count} games, not {}", report.games));
        }
    }
    if let Some(tile) = report
        .max_tile_counts
        .keys()
        .find(|&&tile| tile < 2 || !tile.is_power_of_two())
    {
        return Err(format!("max_tile_counts hold {tile}, which is not a tile"));
    }
    // What a report derives from its counts must be what they give: a merge keeps the counts
    // and derives these again, so a disagreement would change the figures silently.
    if report.reached_counts != reached_counts(&report.max_tile_counts) {
        return Err("reached_counts do not follow from max_tile_counts".to_string());
    }
    let top_score = report.score_counts.last_key_value().map_or(0, |(&s, _)| s);
    if report.max_score != top_score {
        return Err(format!(
            "max_score is {}, but the highest of score_counts is {top_score}",
            report.max_score
        ));
    }
    // A game is won exactly when its largest tile reached the goal (tiles never shrink).
    let reached_goal: u64 = match report.goal {
        Some(goal) => report.max_tile_counts.range(goal..).map(|(_, k)| k).sum(),
        None => 0,
    };
    if report.wins != reached_goal {
        return Err(format!(
            "{} wins, but {reached_goal} games reached the goal",
            report.wins
        ));
    }
    if report.cut_off > report.games || report.attempts < report.moves {
        return Err("more cut-off games than games, or fewer attempts than moves".to_string());
    }
    let unwon = &report.unwon_games;
    let listed = if report.goal.is_some() {
        (report.games - report.wins).min(UNWON_SEEDS_SHOWN as u64)
    } else {
        0
    };
    let in_ranges = |i: &u64| ranges.iter().any(|[a, b]| (a..b).contains(&i));
    if unwon.len() as u64 != listed
        || !unwon.windows(2).all(|pair| pair[0] < pair[1])
        || !unwon.iter().all(in_ranges)
    {
        return Err(format!(
            "unwon_games should list the first {listed} games not won, in order, within game_ranges"
        ));
    }
    let times = || {
        [report.seconds, report.thread_seconds]
            .into_iter()
            .chain(report.cpu_seconds)
    };
    if !times()
        .chain(report.cpu_ms_per_move)
        .all(|t| t.is_finite() && t >= 0.0)
    {
        return Err("a negative or infinite time".to_string());
    }
    if let Some(t) = times().find(|&t| t > MAX_SECONDS) {
        return Err(format!(
            "a time of {t:e} s, longer than any run takes (at most {MAX_SECONDS:e} s, 31 years)"
        ));
    }
    // A thread's CPU time never passes its wall-clock time (a little slack for the clocks'
    // rounding), and a run had at least one thread.
    if let Some(cpu) = report.cpu_seconds
        && cpu > report.thread_seconds * 1.01 + 1.0
    {
        return Err(format!(
            "{cpu} s of CPU time in {} s of the threads' time",
            report.thread_seconds
        ));
    }
    if report.jobs == 0 {
        return Err("a run on 0 threads".to_string());
    }
    Ok(())
}

/// The sum of `counts`, or why it does not fit.
fn total(what: &str, mut counts: impl Iterator<Item = u64>) -> Result<u64, String> {
    counts
        .try_fold(0u64, u64::checked_add)
        .ok_or_else(|| format!("{what} add up to more than 2^64 games"))
}

/// What a report says it measured must be something `bench` can measure.
fn check_identity(identity: &RunIdentity) -> Result<(), String> {
    use crate::model::rules::Variant;
    use crate::players::{MAX_BUDGET_MS, MAX_FIXED_DEPTH, MAX_LEARNED_DEPTH, PlayerKind};
    let player = PlayerKind::from_name(&identity.player)
        .ok_or_else(|| format!("no player is called {:?}", identity.player))?;
    if Variant::from_name(&identity.variant).is_none() {
        return Err(format!("no variant is called {:?}", identity.variant));
    }
    if !(crate::model::size::Size::MIN..=crate::model::size::Size::MAX).contains(&identity.size) {
        return Err(format!("a {0}x{0} board", identity.size));
    }
    // The rules in words name the variant and the board (`power11 4x4, goal 2048, ...`).
    let named = format!("{0} {1}x{1},", identity.variant, identity.size);
    if !identity.rules.starts_with(&named) {
        return Err(format!(
            "rules {:?} for a {} game on {}x{}",
            identity.rules, identity.variant, identity.size, identity.size
        ));
    }
    let searches = player == PlayerKind::Expectimax;
    let max_depth = match player {
        PlayerKind::Expectimax => MAX_FIXED_DEPTH,
        PlayerKind::Learned => MAX_LEARNED_DEPTH,
        _ => 0,
    };
    match (player == PlayerKind::Learned, identity.network.is_some()) {
        (true, false) => {
            return Err(
                "no network for the learned player (its reports always name one)".to_string(),
            );
        }
        (false, true) => {
            return Err(format!(
                "a network for the {} player (only the learned player has one)",
                identity.player
            ));
        }
        _ => {}
    }
    match (identity.depth, identity.time_budget_ms) {
        (Some(_), Some(_)) => return Err("both a depth and a time budget".to_string()),
        (Some(d), None) if !(1..=max_depth).contains(&d) => {
            return Err(format!("depth {d} for the {} player", identity.player));
        }
        (None, Some(ms)) if !searches || !(1..=MAX_BUDGET_MS).contains(&ms) => {
            return Err(format!(
                "a {ms} ms budget for the {} player",
                identity.player
            ));
        }
        _ => {}
    }
    if identity.max_moves == 0 {
        return Err("max_moves is 0".to_string());
    }
    Ok(())
}

/// Adds up reports of parts of one run (read with [`read_report`]) into the report of the
/// whole: the same numbers one invocation playing every game would have printed, except the
/// wall-clock figures (summed) and `jobs` (the largest).
pub fn merge(reports: &[(PathBuf, BenchReport)]) -> Result<BenchReport, MergeError> {
    let ((first_path, first), rest) = reports.split_first().ok_or(MergeError::Nothing)?;
    for (i, (path, _)) in reports.iter().enumerate() {
        if reports[..i].iter().any(|(earlier, _)| earlier == path) {
            return Err(MergeError::GivenTwice { path: path.clone() });
        }
    }
    for (path, report) in rest {
        if let Some((field, a, b)) = identity_difference(first, report) {
            return Err(MergeError::DifferentRuns {
                first_path: first_path.clone(),
                second_path: path.clone(),
                field,
                first: a,
                second: b,
            });
        }
    }
    // Every range with its report, in game order: neighbours must not overlap.
    let mut ranges: Vec<([u64; 2], &PathBuf)> = reports
        .iter()
        .flat_map(|(path, report)| report.game_ranges.iter().map(move |&r| (r, path)))
        .collect();
    ranges.sort_unstable_by_key(|&(range, _)| range);
    for pair in ranges.windows(2) {
        let ([_, end], first_path) = pair[0];
        let ([start, _], second_path) = pair[1];
        if start < end {
            return Err(MergeError::Overlap {
                first_path: first_path.clone(),
                second_path: second_path.clone(),
                game: start,
            });
        }
    }
    let mut game_ranges: Vec<[u64; 2]> = Vec::new();
    for ([start, end], _) in ranges {
        match game_ranges.last_mut() {
            Some(last) if last[1] == start => last[1] = end,
            _ => game_ranges.push([start, end]),
        }
    }
    let sum = |count: fn(&BenchReport) -> u64| {
        reports
            .iter()
            .try_fold(0u64, |total, (_, r)| total.checked_add(count(r)))
    };
    let seconds: f64 = reports.iter().map(|(_, r)| r.seconds).sum();
    let thread_seconds: f64 = reports.iter().map(|(_, r)| r.thread_seconds).sum();
    let cpu_seconds: f64 = reports.iter().filter_map(|(_, r)| r.cpu_seconds).sum();
    // One limit, the one a report is read with: a merge never writes what it would refuse.
    let within = |t: f64| t.is_finite() && t <= MAX_SECONDS;
    if sum(|r| r.moves).is_none()
        || sum(|r| r.attempts).is_none()
        || !(within(seconds) && within(thread_seconds) && within(cpu_seconds))
    {
        return Err(MergeError::TooLarge);
    }
    let tally = reports
        .iter()
        .map(|(_, report)| Tally::of_report(report))
        .fold(Tally::default(), Tally::merge);
    let run = Run {
        goal: first.goal,
        game_ranges,
        seconds,
        jobs: reports.iter().map(|(_, r)| r.jobs).max().unwrap_or(1),
        identity: first.identity.clone(),
    };
    Ok(summarise(run, &tally))
}

/// The first field in which two reports' runs differ, with both values.
fn identity_difference(a: &BenchReport, b: &BenchReport) -> Option<(&'static str, String, String)> {
    let (x, y) = (&a.identity, &b.identity);
    let budget = |ms: Option<u64>| ms.map_or_else(|| "none".to_string(), |ms| format!("{ms} ms"));
    let network = |n: &Option<String>| n.clone().unwrap_or_else(|| "none".to_string());
    let fields: [(&'static str, String, String); 12] = [
        ("seed", x.seed.to_string(), y.seed.to_string()),
        ("player", x.player.clone(), y.player.clone()),
        ("network", network(&x.network), network(&y.network)),
        ("depth", depth_words(x.depth), depth_words(y.depth)),
        (
            "time budget",
            budget(x.time_budget_ms),
            budget(y.time_budget_ms),
        ),
        ("variant", x.variant.clone(), y.variant.clone()),
        ("size", x.size.to_string(), y.size.to_string()),
        ("rules", x.rules.clone(), y.rules.clone()),
        (
            "max_moves",
            x.max_moves.to_string(),
            y.max_moves.to_string(),
        ),
        ("version", x.version.clone(), y.version.clone()),
        (
            "search revision",
            x.search_revision.to_string(),
            y.search_revision.to_string(),
        ),
        ("goal", goal_words(a.goal), goal_words(b.goal)),
    ];
    fields.into_iter().find(|(_, p, q)| p != q)
}
