//! The exact solver's table for a player or for `power11 solve`: read if it is whole, else
//! solved (with a progress bar) and written where it goes, or kept in memory where it cannot.

use super::UsageError;
use crate::files::best::data_dir;
use crate::files::outputs::{
    check_data_file_writable, check_out_directory_is_there, check_out_writable,
    refuse_out_not_regular,
};
use crate::files::solutions::{self, Found};
use crate::model::rules::Rules;
use crate::players::Solution;
use crate::players::optimal::{Phase, SolvedRules};
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the table is solved for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TableUse {
    /// `power11 solve`: the table is what was asked for, so one that cannot be written is an
    /// error (after the answer, which is said).
    Kept,
    /// A player's (`--player optimal`): the data directory's file only saves solving again, so
    /// where it cannot be written or holds something else, the player plays from the table in
    /// memory, and a note says why it was not kept.
    Cache,
}

/// The solved table of `rules`: read from `out` (or the data directory's file for these rules)
/// if it is there and whole, else solved and written there. Also says whether it was solved
/// now. Rules the solver cannot solve, and an `out` that holds anything but a whole table of
/// these rules (another file, another rule set's table, a damaged table), are usage errors
/// (exit 2): the file is left as it is. In the data directory, a table of another version or a
/// damaged one is power11's own and solved again; any other file there is left alone (an error
/// for `solve`, a note for a player, whose table is then not kept).
pub(super) fn table_for(
    rules: &Rules,
    out: Option<&Path>,
    table_use: TableUse,
) -> anyhow::Result<(Arc<Solution>, bool)> {
    let solved = SolvedRules::of(rules).map_err(|e| UsageError(e.to_string()))?;
    let cache = table_use == TableUse::Cache;
    // Where the solved table goes: a path, or why it is kept in memory only.
    let place = match table_place(rules, solved, out, table_use)? {
        Place::Read(solution) => return Ok((Arc::new(solution), false)),
        Place::File(path) => Ok(path),
        Place::Memory(why) => Err(why),
    };
    if !io::stderr().is_terminal() {
        // No progress bar off a terminal: one line, so that a pause of seconds (or minutes,
        // for the largest rule sets) before the game or the benchmark is not a mystery.
        match &place {
            Ok(path) => super::note(format_args!(
                "solving exactly, once ({solved}): the table goes to {}",
                crate::files::shown(path)
            )),
            Err(_) => super::note(format_args!("solving exactly ({solved})")),
        }
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
    let not_kept = match place {
        Ok(path) => match solutions::write_table(&path, &solution) {
            Ok(()) => None,
            // The answer took the solving; a table that cannot be kept does not lose it.
            Err(e) if !cache => {
                return Err(anyhow::Error::new(e).context(format!(
                    "solved: the optimal win probability is {:.6}, but the table was not kept",
                    solution.start_probability()
                )));
            }
            Err(e) => Some(e.to_string()),
        },
        Err(why) => Some(why),
    };
    if let Some(why) = not_kept {
        super::note(format_args!(
            "the table was not kept ({why}); playing from the table in memory, solved again next time"
        ));
    }
    Ok((Arc::new(solution), true))
}

/// Where the table of `rules` comes from or goes.
enum Place {
    /// A whole table of these rules, read.
    Read(Solution),
    /// The file the table solved now is written to.
    File(PathBuf),
    /// Why the table solved now is kept in memory only ([`TableUse::Cache`]).
    Memory(String),
}

/// Reads the table at `out` or the data directory's path, or says where the table solved now
/// goes, checking before the solving that it can go there (see [`table_for`]).
fn table_place(
    rules: &Rules,
    solved: SolvedRules,
    out: Option<&Path>,
    table_use: TableUse,
) -> anyhow::Result<Place> {
    let cache = table_use == TableUse::Cache;
    let Some(path) = out else {
        let Some(dir) = data_dir() else {
            if cache {
                return Ok(Place::Memory(
                    "no data directory: set POWER11_DATA_DIR".to_string(),
                ));
            }
            anyhow::bail!(
                "no data directory for the table: set POWER11_DATA_DIR, or name its file with --out"
            );
        };
        let path = dir.join(solutions::default_name(&solved));
        return match solutions::read_table(&path, rules) {
            Ok(Some(solution)) => Ok(Place::Read(solution)),
            // The data directory's table is power11's own: a damaged one is solved again.
            Err(e) if e.found() == Found::Table => {
                super::note(format_args!("{e}; solving again"));
                writable(path, cache)
            }
            Ok(None) => writable(path, cache),
            Err(e) if cache => Ok(Place::Memory(match e.found() {
                Found::Other => format!("{e}; it is left alone"),
                _ => e.to_string(),
            })),
            Err(e) if e.found() == Found::Other => Err(UsageError(format!(
                "{e}; it is left alone (move it away, or solve into a file of your own with --out)"
            ))
            .into()),
            Err(e) => Err(anyhow::anyhow!("cannot keep a table there: {e}")),
        };
    };
    refuse_out_not_regular(path, "the table")?;
    // Only there: a whole table in a directory that takes no file is still read.
    check_out_directory_is_there(path, "--out")?;
    match solutions::read_table(path, rules) {
        Ok(Some(solution)) => Ok(Place::Read(solution)),
        Ok(None) => {
            // Where the table goes must take it before the solving, not after.
            check_out_writable(path, "--out")?;
            Ok(Place::File(path.to_path_buf()))
        }
        // A file the user named is theirs: never replaced by a table.
        Err(e) => Err(UsageError(format!(
            "{e}; it is left alone (choose another --out, or remove it to solve again)"
        ))
        .into()),
    }
}

/// `path` in the data directory if a table can be written there (checked before the solving),
/// else for a cache why not.
fn writable(path: PathBuf, cache: bool) -> anyhow::Result<Place> {
    match check_data_file_writable(&path) {
        Ok(()) => Ok(Place::File(path)),
        Err(why) => {
            if cache {
                Ok(Place::Memory(why))
            } else {
                Err(anyhow::anyhow!(why))
            }
        }
    }
}
