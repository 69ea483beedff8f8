//! `power11 solve`: the exact 3x3 solver's table, read if it is there, else solved and written.

use super::StandardOutput;
use super::args::SolveArgs;
use super::tables::{TableUse, table_for};
use crate::files::best::data_dir;
use crate::files::solutions;
use anyhow::Context;
use std::io::Write;
use std::time::Instant;

/// Solves the rules asked for (or reads their table) and says the answer and where the table is.
pub(super) fn run_solve(args: &SolveArgs) -> anyhow::Result<()> {
    let rules = args.rules.rules()?;
    let started = Instant::now();
    let (solution, solved) = table_for(&rules, args.out.as_deref(), TableUse::Kept)?;
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
        crate::files::shown(&path)
    )?;
    out.flush()?;
    Ok(())
}
