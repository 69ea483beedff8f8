//! The program's [`Store`]: games saved to `power11.saved` (or another path), best scores in the
//! data directory's `best-scores.txt`.

use crate::best::BestScores;
use crate::game::Timeline;
use crate::rules::{Score, Variant};
use crate::save::{FileError, read_save, write_save};
use crate::session::Store;
use std::path::PathBuf;

/// Saves and best scores in files.
#[derive(Debug)]
pub struct FileStore {
    save_path: PathBuf,
    best: BestScores,
}

impl FileStore {
    /// A store that saves to `save_path` and keeps best scores in `best`.
    pub fn new(save_path: PathBuf, best: BestScores) -> FileStore {
        FileStore { save_path, best }
    }
}

impl Store for FileStore {
    type Error = FileError;

    fn location(&self) -> String {
        self.save_path.display().to_string()
    }

    fn save(&mut self, timeline: &Timeline) -> Result<(), FileError> {
        write_save(&self.save_path, timeline)
    }

    fn load(&mut self) -> Result<Option<Timeline>, FileError> {
        match read_save(&self.save_path) {
            Ok(timeline) => Ok(Some(timeline)),
            Err(FileError::Missing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn best(&self, variant: Variant, size: usize) -> Option<Score> {
        self.best.get(variant, size)
    }

    fn record_best(
        &mut self,
        variant: Variant,
        size: usize,
        score: Score,
    ) -> Result<(), FileError> {
        if self.best.record(variant, size, score) {
            self.best.save()?;
        }
        Ok(())
    }
}
