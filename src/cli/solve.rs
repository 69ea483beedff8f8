//! `power11 solve`: the exact 3x3 solver's table, read if it is there, else solved and written.

use super::StandardOutput;
use super::args::SolveArgs;
use super::tables::{TableUse, table_for};
use crate::files::best::data_dir;
use crate::files::solutions;
use crate::model::rules::Variant;
use crate::model::size::Size;
use anyhow::Context;
use std::io::Write;
use std::time::Instant;

/// Solves the rules asked for (or reads their table) and says the answer and where the table is.
/// With no board named (no `--size`, and the Power-11 variant, whose boards are 4x4 and 5x5),
/// it solves the 3x3 game to 512 with 2s and 4s, the one the README quotes.
pub(super) fn run_solve(args: &SolveArgs) -> anyhow::Result<()> {
    let unnamed = args.rules.size.is_none() && args.rules.variant == Variant::Power11;
    let rules = if unnamed {
        let three = Size::new(3).expect("3 is a board size");
        let rules = args.rules.rules()?.on(three);
        match args.rules.goal {
            Some(_) => rules,
            None => rules.with_goal(Some(512))?,
        }
    } else {
        args.rules.rules()?
    };
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
