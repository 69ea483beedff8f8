//! Best scores per rule set and board size, kept across runs in the user's data directory.
//!
//! The file (`best-scores.txt`) holds one line per rule set and size: `classic 4 20480`, where
//! the rule set is the variant's name, followed by the rules that differ from its preset
//! (`classic/score-moves 4 130`, [`Rules::record_name`]). A best
//! score never goes down, whatever other sessions do at the same time: a save takes a lock
//! (`.best-scores.lock` beside the file, beside the file a link names: two data directories
//! linked to one file share it), reads the file again, keeps the higher of each score, and
//! replaces the file atomically. A line that cannot be read is reported and skipped, and
//! written back as it was (after the good lines), so nothing in the file is lost or "repaired";
//! a file that cannot be read at all, is not text, or holds text but not one score line (notes,
//! say, at that name) is never written.

use crate::files::bounded::{BoundedReadError, Expect, read_regular};
use crate::files::dir::resolve;
use crate::files::open::lock_within;
use crate::files::save::{FileError, write_atomic};
use crate::model::rules::{Rules, Score};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The file name inside the data directory.
pub const BEST_FILE: &str = "best-scores.txt";
/// The lock file saves take, beside [`BEST_FILE`].
const LOCK_FILE: &str = ".best-scores.lock";
/// The environment variable that overrides the data directory.
pub const DATA_DIR_VAR: &str = "POWER11_DATA_DIR";
/// How long a save of the best scores waits for another session's lock.
const LOCK_PATIENCE: Duration = Duration::from_secs(5);
/// The largest best-score file read (a real one is a few hundred bytes).
const MAX_BEST_FILE: u64 = 1 << 20;

/// The data directory: `$POWER11_DATA_DIR`, else the platform's convention
/// (`~/.local/share/power11` on Linux), if one can be found.
pub fn data_dir() -> Option<PathBuf> {
    match std::env::var_os(DATA_DIR_VAR) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => directories::ProjectDirs::from("", "", "power11").map(|d| d.data_dir().to_path_buf()),
    }
}

type Table = BTreeMap<(String, usize), Score>;

/// Best scores, loaded from and saved to one file (or kept in memory only, without a file).
#[derive(Debug, Default)]
pub struct BestScores {
    /// The file, or `None` for a table kept in memory, or for a file that could not be read
    /// (which is then never written).
    path: Option<PathBuf>,
    scores: Table,
}

impl BestScores {
    /// Best scores kept in memory only.
    pub fn in_memory() -> BestScores {
        BestScores::default()
    }

    /// Loads the scores from `dir/best-scores.txt`, with a warning to show for each line that
    /// was skipped, or for a file that could not be read at all (then the table is kept in
    /// memory and the file is never written). A missing file is an empty table.
    pub fn load(dir: &Path) -> (BestScores, Vec<String>) {
        let path = dir.join(BEST_FILE);
        match read_table(&path) {
            Ok((scores, skipped)) => {
                let warnings = skipped
                    .into_iter()
                    .map(|(line, text)| {
                        format!(
                            "{}:{line}: expected 'VARIANT SIZE SCORE', found '{}'; the line is skipped (and kept)",
                            crate::files::shown(&path),
                            crate::text::shorten(text.trim())
                        )
                    })
                    .collect();
                let best = BestScores {
                    path: Some(path),
                    scores,
                };
                (best, warnings)
            }
            Err(e) => {
                let warning = format!(
                    "cannot read {}: {e}; best scores are not saved in this session",
                    crate::files::shown(&path)
                );
                (BestScores::in_memory(), vec![warning])
            }
        }
    }

    /// The best score under `rules` (at their size), if one was recorded.
    pub fn get(&self, rules: &Rules) -> Option<Score> {
        self.scores
            .get(&(rules.record_name(), rules.size()))
            .copied()
    }

    /// Records `score` if it beats the best under `rules`; returns whether it did.
    pub fn record(&mut self, rules: &Rules, score: Score) -> bool {
        let entry = self
            .scores
            .entry((rules.record_name(), rules.size()))
            .or_insert(Score::MIN);
        if score > *entry {
            *entry = score;
            true
        } else {
            false
        }
    }

    /// Merges the table into its file: under the lock, the file is read again, each score is
    /// the higher of the two, and the file is replaced atomically. A file that cannot be read
    /// is not written. After an error the scores are kept in memory only, so that a full or
    /// read-only data directory is said once, not after every game.
    pub fn save(&mut self) -> Result<(), FileError> {
        let Some(path) = self.path.clone() else {
            return Ok(());
        };
        let saved = self.save_to(&path);
        if saved.is_err() {
            self.path = None;
        }
        saved
    }

    fn save_to(&mut self, path: &Path) -> Result<(), FileError> {
        // Beside the file a link names, as the file is written there; the directory made
        // where missing, and no link another user planted on the way followed.
        let (dir, _) = resolve(path, true).map_err(|error| FileError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let lock_path = dir.path().join(LOCK_FILE);
        let io_error = |source| FileError::Io {
            path: path.to_path_buf(),
            error: source,
        };
        // Named by the file the user knows of, the lock's own name in the reason.
        let lock_error = |source: io::Error| FileError::Io {
            path: path.to_path_buf(),
            error: io::Error::new(
                source.kind(),
                format!(
                    "cannot take its lock {}: {}",
                    crate::files::shown(&lock_path),
                    crate::files::system_words(&source)
                ),
            ),
        };
        let lock = dir
            .open_lock(LOCK_FILE.as_ref())
            .map_err(|e| lock_error(e.into_io()))?;
        // Held for milliseconds by another session: a lock held longer is a session stopped
        // (Ctrl-Z) or someone's, and this one goes on without the file rather than wait.
        if !lock_within(&lock, LOCK_PATIENCE).map_err(lock_error)? {
            return Err(lock_error(io::Error::new(
                io::ErrorKind::WouldBlock,
                format!(
                    "another process has held it for more than {} s",
                    LOCK_PATIENCE.as_secs()
                ),
            )));
        }
        let (on_disk, unread) = read_table(path).map_err(io_error)?;
        for (key, score) in on_disk {
            let ours = self.scores.entry(key).or_insert(score);
            *ours = (*ours).max(score);
        }
        let mut text = String::new();
        for ((variant, size), score) in &self.scores {
            let _ = writeln!(text, "{variant} {size} {score}");
        }
        for (_, line) in unread {
            let _ = writeln!(text, "{line}");
        }
        let written = write_atomic(path, text.as_bytes());
        drop(lock);
        written
    }
}

/// The table in `path` (empty if there is no file) and the lines that were skipped, as they
/// are, with their numbers. Fails only if the file cannot be read at all.
fn read_table(path: &Path) -> io::Result<(Table, Vec<(usize, String)>)> {
    let bytes = match read_small(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((Table::new(), Vec::new())),
        Err(e) => return Err(e),
    };
    // A file that is not text is not one this program wrote: never rewritten.
    let text = String::from_utf8(bytes)
        .map_err(|_| io::Error::other("not text, so not a best-score file (it is left alone)"))?;
    let mut scores = Table::new();
    let mut skipped = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let parsed = match fields.as_slice() {
            [] => continue,
            [variant, size, score] => size
                .parse::<usize>()
                .ok()
                .zip(score.parse::<Score>().ok())
                .map(|(size, score)| ((variant.to_string(), size), score)),
            _ => None,
        };
        match parsed {
            Some((key, score)) => {
                let best = scores.entry(key).or_insert(score);
                *best = (*best).max(score);
            }
            None => skipped.push((i + 1, line.to_string())),
        }
    }
    // Text with not one score in it is some other file at this name: never rewritten.
    if scores.is_empty() && !skipped.is_empty() {
        return Err(io::Error::other(
            "not a best-score file (no line reads 'VARIANT SIZE SCORE'; it is left alone)",
        ));
    }
    Ok((scores, skipped))
}

/// The bytes of a regular file of at most [`MAX_BEST_FILE`] bytes.
fn read_small(path: &Path) -> io::Result<Vec<u8>> {
    read_regular(path, MAX_BEST_FILE, Expect::Bytes).map_err(|e| match e {
        BoundedReadError::Io(e) => e,
        BoundedReadError::NotRegular(_) => io::Error::other("not a regular file"),
        BoundedReadError::TooLarge(_) => {
            io::Error::other("larger than a best-score file can be (1 MiB)")
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_survive_a_save_and_load() {
        let dir = tempfile::tempdir().unwrap();
        let (mut best, warnings) = BestScores::load(dir.path());
        assert!(warnings.is_empty());
        assert!(best.record(&Rules::classic(), 100));
        assert!(!best.record(&Rules::classic(), 50));
        best.save().unwrap();
        let (loaded, _) = BestScores::load(dir.path());
        assert_eq!(loaded.get(&Rules::classic()), Some(100));
        assert_eq!(loaded.get(&Rules::classic().with_size(5).unwrap()), None);
    }

    /// Regression (reliability issue, item 1): a session that started before another one won
    /// wrote its own, older table back, and the best score went down.
    #[test]
    fn concurrent_sessions_never_lower_a_best_score() {
        let dir = tempfile::tempdir().unwrap();
        let (mut early, _) = BestScores::load(dir.path());
        let (mut winner, _) = BestScores::load(dir.path());
        winner.record(&Rules::classic(), 2048);
        winner.save().unwrap();
        early.record(&Rules::classic(), 4);
        early.record(&Rules::mini(), 64);
        early.save().unwrap();
        let text = std::fs::read_to_string(dir.path().join(BEST_FILE)).unwrap();
        assert_eq!(text, "classic 4 2048\nmini 3 64\n");
    }

    /// Regression (hostile-user trial, round 4): two data directories whose score files were
    /// links to one file each took a lock of their own, so sessions of the two lost each
    /// other's scores. The lock goes beside the file the links name.
    #[cfg(unix)]
    #[test]
    fn the_lock_is_beside_the_file_a_link_names() {
        let dir = tempfile::tempdir().unwrap();
        let shared = dir.path().join("shared");
        std::fs::create_dir_all(&shared).unwrap();
        for data in ["one", "two"] {
            let data = dir.path().join(data);
            std::fs::create_dir_all(&data).unwrap();
            std::os::unix::fs::symlink(shared.join("scores.txt"), data.join(BEST_FILE)).unwrap();
        }
        let (mut one, _) = BestScores::load(&dir.path().join("one"));
        let (mut two, _) = BestScores::load(&dir.path().join("two"));
        one.record(&Rules::classic(), 100);
        two.record(&Rules::mini(), 64);
        one.save().unwrap();
        two.save().unwrap();
        assert!(shared.join(LOCK_FILE).is_file());
        for data in ["one", "two"] {
            assert!(!dir.path().join(data).join(LOCK_FILE).exists(), "{data}");
            assert!(dir.path().join(data).join(BEST_FILE).is_symlink(), "{data}");
        }
        let text = std::fs::read_to_string(shared.join("scores.txt")).unwrap();
        assert_eq!(text, "classic 4 100\nmini 3 64\n");
    }

    /// Regression (reliability issue, item 2): one bad line cost every good one.
    #[test]
    fn a_bad_line_is_reported_and_skipped_and_the_good_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(BEST_FILE), "mini 3 100\nclassic four 12\n").unwrap();
        let (mut best, warnings) = BestScores::load(dir.path());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].ends_with(
                "best-scores.txt:2: expected 'VARIANT SIZE SCORE', found 'classic four 12'; the line is skipped (and kept)"
            ),
            "{warnings:?}"
        );
        assert_eq!(best.get(&Rules::mini()), Some(100));
        best.record(&Rules::classic(), 7);
        best.save().unwrap();
        let text = std::fs::read_to_string(dir.path().join(BEST_FILE)).unwrap();
        // The line it could not read is written back as it was.
        assert_eq!(text, "classic 4 7\nmini 3 100\nclassic four 12\n");
    }
}
