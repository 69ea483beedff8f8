//! `power11 solve`: the exact 3x3 solver's table, read if it is there, else solved and written.

use super::args::SolveArgs;
use super::{StandardOutput, UsageError, check_out_directory_is_there, check_out_writable};
use crate::files::best::data_dir;
use crate::files::save::check_writable_beside;
use crate::files::solutions;
use crate::model::rules::Rules;
use crate::players::Solution;
use crate::players::optimal::{Phase, SolvedRules};
use anyhow::Context;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// The solved table of `rules`: read from `out` (or the data directory's file for these rules)
/// if it is there and whole, else solved and written there. Also says whether it was solved
/// now. Rules the solver cannot solve, and an `out` that holds anything but a whole table of
/// these rules (another file, another rule set's table, a damaged table), are usage errors
/// (exit 2): the file is left as it is.
pub(super) fn table_for(
    rules: &Rules,
    out: Option<&Path>,
) -> anyhow::Result<(Arc<Solution>, bool)> {
    let solved = SolvedRules::of(rules).map_err(|e| UsageError(e.to_string()))?;
    let path = match out {
        Some(path) => {
            // Only there: a whole table in a directory that takes no file is still read.
            check_out_directory_is_there(path, "--out")?;
            path.to_path_buf()
        }
        None => data_dir()
            .context("no data directory for the table (set POWER11_DATA_DIR)")?
            .join(solutions::default_name(&solved)),
    };
    match solutions::read_table(&path, rules) {
        Ok(Some(solution)) => return Ok((Arc::new(solution), false)),
        Ok(None) => {}
        // The data directory's table is power11's own: a damaged one is solved again.
        Err(e) if out.is_none() => eprintln!("power11: {e}; solving again"),
        // A file the user named is theirs: never replaced by a table.
        Err(e) => {
            return Err(UsageError(format!(
                "{e}; it is left alone (choose another --out, or remove it to solve again)"
            ))
            .into());
        }
    }
    // Where the table goes must take it before the solving, not after.
    match out {
        Some(path) => check_out_writable(path, "--out")?,
        None => {
            check_writable_beside(&path, true)
                .with_context(|| format!("cannot write {}", path.display()))?;
        }
    }
    if !io::stderr().is_terminal() {
        // No progress bar off a terminal: one line, so that a pause of seconds (or minutes,
        // for the largest rule sets) before the game or the benchmark is not a mystery.
        eprintln!(
            "power11: solving {solved} exactly, once: the table goes to {}",
            path.display()
        );
    }
    let bar = io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(1);
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg:>24} [{elapsed_precise}] {wide_bar} {pos}/{len} layers",
            )
            .expect("a valid template"),
        );
        bar
    });
    let progress = |phase: Phase, done: usize, total: usize| {
        if let Some(bar) = &bar {
            bar.set_message(match phase {
                Phase::Listing => format!("listing positions ({solved})"),
                Phase::Valuing => "valuing positions".to_string(),
            });
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        }
    };
    let solution = Solution::solve(rules, &progress).map_err(|e| UsageError(e.to_string()))?;
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    // The answer took the solving; a table that cannot be kept does not lose it.
    solutions::write_table(&path, &solution).with_context(|| {
        format!(
            "solved: the optimal win probability is {:.6}, but the table was not kept",
            solution.start_probability()
        )
    })?;
    Ok((Arc::new(solution), true))
}

pub(super) fn run_solve(args: &SolveArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let started = Instant::now();
    let (solution, solved) = table_for(&rules, args.out.as_deref())?;
    let seconds = started.elapsed().as_secs_f64();
    let path = match &args.out {
        Some(path) => path.clone(),
        None => data_dir()
            .context("no data directory")?
            .join(solutions::default_name(&solution.rules())),
    };
    let how = if solved {
        format!("solved in {seconds:.1} s")
    } else {
        "read from the table".to_string()
    };
    let mut out = StandardOutput::lock();
    writeln!(
        out,
        "optimal win probability: {:.6}\npositions: {} (8 symmetries folded), {how}\ntable: {}",
        solution.start_probability(),
        solution.positions(),
        path.display()
    )?;
    out.flush()?;
    Ok(())
}
