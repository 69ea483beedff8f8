//! `power11 bench` and `power11 bench merge`: headless runs and the sum of their reports.

use super::args::{BenchArgs, BenchCommand, MergeArgs};
use super::player::{Boards, Loading, PlayerSetup, player_for};
use super::{StandardOutput, UsageError};
use crate::bench::{self, BenchConfig};
use crate::files::outputs::check_plot;
use crate::files::pictures::write_svg;
use crate::model::named::Named;
use crate::players::playout::default_attempt_limit;
use anyhow::Context;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

pub(super) fn run_bench(args: &BenchArgs) -> anyhow::Result<()> {
    if let Some(BenchCommand::Merge(merge)) = &args.command {
        return run_merge(merge);
    }
    let kind = args.player.context("bench needs --player")?;
    let rules = args.rules.rules()?;
    check_plot(args.plot.as_deref())?;
    if args.first_game.checked_add(args.games).is_none() {
        let message = format!(
            "--first-game {} plus --games {} is past the last game",
            args.first_game, args.games
        );
        return Err(UsageError(message).into());
    }
    let jobs = args
        .jobs
        .map_or_else(crate::learning::cores, |j| j as usize);
    let (player, network) = player_for(&PlayerSetup {
        kind,
        depth: args.depth,
        ms_per_move: args.ms_per_move,
        rules: &rules,
        weights: args.weights.as_deref(),
        boards: Boards::Rules,
        loading: Loading::Now,
    })?;
    let config = BenchConfig {
        rules,
        player,
        depth: args.depth,
        network: network.map(|n| n.fingerprint()),
        time_budget_ms: args.ms_per_move,
        first_game: args.first_game,
        games: args.games,
        jobs,
        seed: args.seed.unwrap_or_else(super::os_seed),
        max_attempts: args
            .max_moves
            .unwrap_or_else(|| default_attempt_limit(&rules)),
    };
    let bar = io::stderr().is_terminal().then(|| {
        let label = format!("{} on {}", kind.name(), rules.variant().name());
        // One game shows a spinner; more show a bar. Both tick from the start, so the clock
        // runs before the first (possibly long) game ends.
        let (bar, template) = if args.games == 1 {
            (
                indicatif::ProgressBar::new_spinner(),
                "{spinner} {msg} [{elapsed_precise}] playing one game",
            )
        } else {
            (
                indicatif::ProgressBar::new(args.games),
                "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} games, ETA {eta}",
            )
        };
        bar.set_style(indicatif::ProgressStyle::with_template(template).expect("a valid template"));
        bar.set_message(label);
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    });
    let tick = || {
        if let Some(bar) = &bar {
            bar.inc(1);
        }
    };
    let stop = super::stop_on_signals(
        "power11 bench",
        "the games in flight did not end, and nothing is reported".to_string(),
    )?;
    let report = bench::run(&config, &tick, &stop).context("cannot start the worker threads")?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        if report.games == 0 {
            super::note("stopped before a game ended: nothing to report");
            return Err(super::Stopped(super::stop_signal()).into());
        }
        // The report is of the games played; `bench merge` adds up the rest, played later.
        let resume = args.first_game + report.games;
        super::note(format_args!(
            "stopped: the report is of games {}..{resume}, {} of {}; the rest is \
             --first-game {resume} --games {}, and bench merge adds the two reports up",
            args.first_game,
            report.games,
            args.games,
            args.games - report.games,
        ));
    }
    // The picture first: a standard output that fails (closed, full) must not cost it.
    let drawn = draw_report(&report, args.plot.as_deref());
    print_report(&report, args.json)?;
    drawn
}

/// `--plot`'s picture of `report`, if asked for.
fn draw_report(report: &bench::BenchReport, plot: Option<&Path>) -> anyhow::Result<()> {
    let Some(path) = plot else {
        return Ok(());
    };
    let svg = bench::plot::bench_chart(report)
        .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", crate::files::shown(path)))?;
    write_svg(path, &svg)?;
    Ok(())
}

/// Merges bench reports; a file that cannot be merged is a usage error (exit 2).
fn run_merge(args: &MergeArgs) -> anyhow::Result<()> {
    check_plot(args.plot.as_deref())?;
    // Standard input holds one report and is read once: a second `-` would read nothing.
    let stdin = std::path::Path::new(bench::STANDARD_INPUT);
    if args.reports.iter().filter(|&p| p == stdin).count() > 1 {
        let twice = bench::MergeError::GivenTwice {
            path: bench::shown(stdin),
        };
        return Err(UsageError(twice.to_string()).into());
    }
    let mut reports = Vec::with_capacity(args.reports.len());
    for path in &args.reports {
        let report = bench::read_report(path).map_err(|e| UsageError(e.to_string()))?;
        reports.push((bench::shown(path), report));
    }
    let merged = bench::merge(&reports).map_err(|e| UsageError(e.to_string()))?;
    let drawn = draw_report(&merged, args.plot.as_deref());
    print_report(&merged, args.json)?;
    drawn
}

fn print_report(report: &bench::BenchReport, json: bool) -> anyhow::Result<()> {
    let text = if json {
        format!("{}\n", serde_json::to_string(report)?)
    } else {
        report.to_text()
    };
    let mut out = StandardOutput::lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}
