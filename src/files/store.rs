//! The program's [`Store`]: games saved to `power11.saved` (or another path), best scores in the
//! data directory's `best-scores.txt`.

use crate::files::best::BestScores;
use crate::files::save::{FileError, read_save, replace_save};
use crate::files::solutions::{default_name, read_table};
use crate::model::game::Timeline;
use crate::model::rules::{Rules, Score};
use crate::players::Solution;
use crate::players::optimal::SolvedRules;
use crate::session::Store;
use crate::text::states_a_save_holds;
use std::path::PathBuf;
use std::sync::Arc;

/// Saves and best scores in files.
#[derive(Debug)]
pub struct FileStore {
    save_path: PathBuf,
    best: BestScores,
    /// Where solved tables are looked for (the data directory), if anywhere.
    tables: Option<PathBuf>,
    /// The table read last, for the rules it answers (read once, on the first advice).
    table: Option<(SolvedRules, Option<Arc<Solution>>)>,
}

impl FileStore {
    /// A store that saves to `save_path`, keeps best scores in `best`, and finds solved tables
    /// in `tables` (the data directory).
    pub fn new(save_path: PathBuf, best: BestScores, tables: Option<PathBuf>) -> FileStore {
        FileStore {
            save_path,
            best,
            tables,
            table: None,
        }
    }
}

impl Store for FileStore {
    type Error = FileError;

    fn location(&self) -> String {
        crate::files::shown(&self.save_path).clone()
    }

    fn save(&mut self, timeline: &Timeline) -> Result<usize, FileError> {
        replace_save(&self.save_path, timeline)
    }

    fn load(&mut self) -> Result<Option<Timeline>, FileError> {
        match read_save(&self.save_path) {
            Ok(timeline) => Ok(Some(timeline)),
            Err(FileError::Missing { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn best(&self, rules: &Rules) -> Option<Score> {
        self.best.get(rules)
    }

    fn history_limit(&self, size: usize) -> usize {
        states_a_save_holds(size)
    }

    fn table(&mut self, rules: &Rules) -> Option<Arc<Solution>> {
        let solved = SolvedRules::of(rules).ok()?;
        match &self.table {
            Some((cached, table)) if *cached == solved => table.clone(),
            _ => {
                // A missing or damaged table means search advice; `power11 solve` makes one.
                let path = self.tables.as_ref()?.join(default_name(&solved));
                let table = read_table(&path, rules).ok().flatten().map(Arc::new);
                self.table = Some((solved, table.clone()));
                table
            }
        }
    }

    fn record_best(&mut self, rules: &Rules, score: Score) -> Result<(), FileError> {
        if self.best.record(rules, score) {
            self.best.save()?;
        }
        Ok(())
    }
}
