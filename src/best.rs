//! Best scores per variant and board size, kept across runs in the user's data directory.
//!
//! The file (`best-scores.txt`) holds one line per variant and size: `classic 4 20480`. A damaged
//! file is reported once and replaced on the next write; it never stops a game.

use crate::named::Named;
use crate::rules::Variant;
use crate::save::{FileError, write_atomic};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The file name inside the data directory.
pub const BEST_FILE: &str = "best-scores.txt";
/// The environment variable that overrides the data directory.
pub const DATA_DIR_VAR: &str = "POWER11_DATA_DIR";

/// The data directory: `$POWER11_DATA_DIR`, else the platform's convention
/// (`~/.local/share/power11` on Linux), if one can be found.
pub fn data_dir() -> Option<PathBuf> {
    match std::env::var_os(DATA_DIR_VAR) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => directories::ProjectDirs::from("", "", "power11").map(|d| d.data_dir().to_path_buf()),
    }
}

/// Best scores, loaded from and saved to one file (or kept in memory only, without a file).
#[derive(Debug, Default)]
pub struct BestScores {
    path: Option<PathBuf>,
    scores: BTreeMap<(String, usize), i64>,
}

impl BestScores {
    /// Best scores kept in memory only.
    pub fn in_memory() -> BestScores {
        BestScores::default()
    }

    /// Loads the scores from `dir/best-scores.txt`. A missing file is an empty table; a damaged
    /// one gives an empty table and a warning to show (the file is replaced on the next save).
    pub fn load(dir: &Path) -> (BestScores, Option<String>) {
        let path = dir.join(BEST_FILE);
        let mut best = BestScores {
            path: Some(path.clone()),
            scores: BTreeMap::new(),
        };
        let text = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (best, None),
            Err(e) => return (best, Some(format!("cannot read {}: {e}", path.display()))),
        };
        match parse(&text) {
            Ok(scores) => {
                best.scores = scores;
                (best, None)
            }
            Err((line, problem)) => {
                let warning = format!(
                    "{}:{line}: {problem}; the best scores start again from 0",
                    path.display()
                );
                (best, Some(warning))
            }
        }
    }

    /// The best score for `variant` at `size`, if one was recorded.
    pub fn get(&self, variant: Variant, size: usize) -> Option<i64> {
        self.scores
            .get(&(variant.name().to_string(), size))
            .copied()
    }

    /// Records `score` if it beats the best; returns whether it did.
    pub fn record(&mut self, variant: Variant, size: usize, score: i64) -> bool {
        let entry = self
            .scores
            .entry((variant.name().to_string(), size))
            .or_insert(i64::MIN);
        if score > *entry {
            *entry = score;
            true
        } else {
            false
        }
    }

    /// Writes the table to its file atomically, creating the directory if needed.
    pub fn save(&self) -> Result<(), FileError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| FileError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let mut text = String::new();
        for ((variant, size), score) in &self.scores {
            let _ = writeln!(text, "{variant} {size} {score}");
        }
        write_atomic(path, text.as_bytes())
    }
}

type Table = BTreeMap<(String, usize), i64>;

fn parse(bytes: &[u8]) -> Result<Table, (usize, String)> {
    let text = std::str::from_utf8(bytes).map_err(|_| (1, "not text".to_string()))?;
    let mut scores = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let bad = || {
            (
                i + 1,
                format!("expected 'VARIANT SIZE SCORE', found '{}'", line.trim()),
            )
        };
        let [variant, size, score] = fields.as_slice() else {
            return Err(bad());
        };
        let size: usize = size.parse().map_err(|_| bad())?;
        let score: i64 = score.parse().map_err(|_| bad())?;
        scores.insert((variant.to_string(), size), score);
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_survive_a_save_and_load() {
        let dir = tempfile::tempdir().unwrap();
        let (mut best, warning) = BestScores::load(dir.path());
        assert!(warning.is_none());
        assert!(best.record(Variant::Classic, 4, 100));
        assert!(!best.record(Variant::Classic, 4, 50));
        best.save().unwrap();
        let (loaded, _) = BestScores::load(dir.path());
        assert_eq!(loaded.get(Variant::Classic, 4), Some(100));
        assert_eq!(loaded.get(Variant::Classic, 5), None);
    }

    #[test]
    fn damaged_file_is_reported_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(BEST_FILE), "classic four 12\n").unwrap();
        let (mut best, warning) = BestScores::load(dir.path());
        assert!(
            warning
                .unwrap()
                .contains("best-scores.txt:1: expected 'VARIANT SIZE SCORE'")
        );
        best.record(Variant::Mini, 3, 7);
        best.save().unwrap();
        let text = std::fs::read_to_string(dir.path().join(BEST_FILE)).unwrap();
        assert_eq!(text, "mini 3 7\n");
    }
}
