//! Solved tables on disk: one file per rule set in the data directory's `solutions/`, written
//! atomically and read only when whole (see [`Solution::from_bytes`]).

use crate::files::bounded::{BoundedReadError, Expect, read_regular};
use crate::files::save::{FileError, write_atomic};
use crate::model::rules::Rules;
use crate::players::Solution;
use crate::players::optimal::{SolvedRules, TableError};
use std::io;
use std::path::Path;
use thiserror::Error;

/// The largest table read (a 3x3 table to 1024 with 2s and 4s is far smaller).
const MAX_TABLE_BYTES: u64 = 1 << 31;

/// Why a table file could not be used.
#[derive(Debug, Error)]
#[error("{}: {problem}", crate::files::shown(.path))]
pub struct TableFileError {
    path: std::path::PathBuf,
    problem: String,
    found: Found,
}

/// What lies where a table was looked for, when it is not a table of the rules asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Nothing that could be read (the system's error: a path through a file, no permission).
    Unreadable,
    /// Something that is not a table (another file, a directory, a device): never replaced.
    Other,
    /// A table of another version, damaged, or of other rules: power11's, and replaced by the
    /// table solved again.
    Table,
}

impl TableFileError {
    /// What lies at the path.
    pub fn found(&self) -> Found {
        self.found
    }
}

/// The file name of the table of `rules` in the data directory.
pub fn default_name(rules: &SolvedRules) -> String {
    format!(
        "solutions/3x3-goal{}-{}-start{}{}.table",
        1u64 << rules.goal,
        if rules.fours { "twos-fours" } else { "twos" },
        rules.start_tiles,
        if rules.start_fours {
            "twos-fours"
        } else {
            "twos"
        },
    )
}

/// The table in `path` for `rules`, `None` if there is no file; an error for a file that is
/// not a whole table of these rules.
pub fn read_table(path: &Path, rules: &Rules) -> Result<Option<Solution>, TableFileError> {
    let fail = |problem: String| TableFileError {
        path: path.to_path_buf(),
        problem,
        found: Found::Other,
    };
    let bytes = match read_regular(path, MAX_TABLE_BYTES, Expect::Bytes) {
        Ok(bytes) => bytes,
        Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(BoundedReadError::Io(e)) => {
            return Err(TableFileError {
                found: Found::Unreadable,
                ..fail(super::system_words(&e))
            });
        }
        Err(BoundedReadError::NotRegular(_) | BoundedReadError::TooLarge(_)) => {
            return Err(fail("not a solution table".to_string()));
        }
    };
    Solution::from_bytes(&bytes, rules)
        .map(Some)
        .map_err(|e| TableFileError {
            found: if e == TableError::NotATable {
                Found::Other
            } else {
                Found::Table
            },
            ..fail(e.to_string())
        })
}

/// Writes `solution` to `path` atomically, making its directory if needed.
pub fn write_table(path: &Path, solution: &Solution) -> Result<(), FileError> {
    crate::files::atomic::make_directory_of(path)?;
    write_atomic(path, &solution.to_bytes())
}
