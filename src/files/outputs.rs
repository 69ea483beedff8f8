//! The checks an output file passes before the work whose end writes it (a run of minutes or
//! hours must not be lost to a path that cannot take its file), and the lock that keeps a
//! second training run off a weight file. Every refusal says what is wrong and what to do;
//! the command line turns [`OutputError::Refused`] into exit code 2.

use crate::files::best::data_dir;
use crate::files::open::{OpenError, open_regular, other_names};
use crate::files::pictures::check_svg_target;
use crate::files::save::{
    check_writable_beside, directory_of, link_target, resolve_links, temporary_prefix,
};
use crate::files::weights::{WeightsFileError, coherence_path, default_path, read_weights};
use crate::files::{shown, system_words};
use crate::learning::ntuple::{COHERENCE_MAGIC, WEIGHTS_MAGIC, WeightUse};
use std::fs::{File, TryLockError};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why an output cannot be written where it was asked for.
#[derive(Debug, Error)]
pub enum OutputError {
    /// The path cannot take the output, for a reason the user can put right (another path,
    /// another flag): the whole message.
    #[error("{0}")]
    Refused(String),
    /// The system failed where nothing the user asked for was wrong.
    #[error("{0}")]
    Failed(String),
}

fn refused<T>(message: String) -> Result<T, OutputError> {
    Err(OutputError::Refused(message))
}

/// Refuses an `--out` that is there and is not a regular file (a device, a directory): it is
/// nothing to remove or replace, so it gets its own advice, to name a new file for `what`
/// (`the network`, `the table`).
pub fn refuse_out_not_regular(out: &Path, what: &str) -> Result<(), OutputError> {
    if std::fs::metadata(out).is_ok_and(|meta| !meta.is_file()) {
        return refused(format!(
            "--out {} is not a regular file: name a new file to write {what} to",
            shown(out)
        ));
    }
    Ok(())
}

/// Refuses an `--out` where anything is (a file, a link, even one to nothing): for outputs
/// that are only ever new files (`compact`).
pub fn refuse_out_existing(out: &Path) -> Result<(), OutputError> {
    if std::fs::symlink_metadata(out).is_ok() {
        return refused(format!(
            "--out {} already exists; it is left alone (remove it, or choose another --out)",
            shown(out)
        ));
    }
    Ok(())
}

/// An output file's directory must be there, and take a file, before the work whose end writes
/// it: power11 makes its own data directory, but a directory the user names that does not exist
/// is most likely a typo, and making it would hide the file where they will not look. Through a
/// link, the directory of the file it names. `flag` names the option (`--out`, `--plot`).
pub fn check_out_directory(out: &Path, flag: &str) -> Result<(), OutputError> {
    check_out_directory_is_there(out, flag)?;
    check_out_writable(out, flag)
}

/// The second half of [`check_out_directory`]: the directory takes the temporary file the
/// output is written through.
pub fn check_out_writable(out: &Path, flag: &str) -> Result<(), OutputError> {
    check_writable_beside(out, false).map_err(|reason| {
        OutputError::Refused(format!(
            "cannot write {flag} {}: {}",
            shown(out),
            system_words(&reason)
        ))
    })?;
    Ok(())
}

/// The first half of [`check_out_directory`]: the directory is there.
pub fn check_out_directory_is_there(out: &Path, flag: &str) -> Result<(), OutputError> {
    // `sub/` names a directory: the file's name would be `sub`, and a rename onto `sub/` fails
    // at the end of the work, not before it.
    if out
        .as_os_str()
        .to_string_lossy()
        .ends_with(std::path::is_separator)
    {
        return refused(format!(
            "cannot use {flag} {}: it names a directory (it ends with a '/'), not a file",
            shown(out)
        ));
    }
    let target = link_target(out);
    let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    let problem = match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => format!("{} is not a directory", shown(dir)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            format!("there is no directory {}", shown(dir))
        }
        Err(e) => format!("{}: {e}", shown(dir)),
    };
    refused(format!("cannot use {flag} {}: {problem}", shown(out)))
}

/// Whether a file the data directory keeps (a solved table) can be written at `path` once the
/// work is done, its directory made if need be: the words of why not.
pub fn check_data_file_writable(path: &Path) -> Result<(), String> {
    check_writable_beside(path, true)
        .map(drop)
        .map_err(|e| format!("cannot write {}: {}", shown(path), system_words(&e)))
}

/// Whether a report file (`--html`, `--gradescope`, `--junit`) can be written at the end of
/// a run, checked before it: its directory there and writable, and nothing at its name but a
/// regular file (which the report replaces).
pub fn check_report_file(path: &Path, flag: &str) -> Result<(), OutputError> {
    check_out_directory(path, flag)?;
    if std::fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
        return refused(format!(
            "cannot use {flag} {}: it is not a regular file; name a file to write the report to",
            shown(path)
        ));
    }
    Ok(())
}

/// Whether `--plot` can be drawn at the end of a run, checked before it: a file (not `-`,
/// which elsewhere means a standard stream) whose name does not promise another format, in a
/// directory that takes a new file, and nothing there or a picture.
pub fn check_plot(plot: Option<&Path>) -> Result<(), OutputError> {
    let Some(path) = plot else {
        return Ok(());
    };
    if path == Path::new("-") {
        return refused(
            "--plot -: a picture goes to a file (standard output holds the report); name one, e.g. --plot bench.svg"
                .to_string(),
        );
    }
    // `--plot curve.png` would get an SVG document under a PNG's name.
    if let Some(extension) = path.extension()
        && !extension.eq_ignore_ascii_case("svg")
    {
        return refused(format!(
            "cannot use --plot {}: power11 draws SVG pictures; name the file .svg ({})",
            shown(path),
            shown(&path.with_extension("svg"))
        ));
    }
    check_out_directory(path, "--plot")?;
    check_svg_target(path).map_err(|e| OutputError::Refused(e.to_string()))
}

/// Refuses a `--plot` that is one of the files a run writes (`written`): the picture would
/// replace them. Compared where each is written: through its links, absolute.
pub fn check_plot_apart(plot: &Path, written: &[PathBuf]) -> Result<(), OutputError> {
    let absolute = |p: &Path| {
        let target = resolve_links(p).unwrap_or_else(|_| p.to_path_buf());
        // Links among the directories too: the directory is there by now.
        let dir = directory_of(&target);
        match (std::fs::canonicalize(dir), target.file_name()) {
            (Ok(dir), Some(name)) => dir.join(name),
            _ => std::path::absolute(&target).unwrap_or(target),
        }
    };
    if written.iter().any(|file| absolute(file) == absolute(plot)) {
        return refused(format!(
            "cannot use --plot {}: the run writes its weights there",
            shown(plot)
        ));
    }
    Ok(())
}

/// The weight file a training run writes: `out`, whose directory must be there, else the data
/// directory's, which must take it.
pub fn weights_out(out: Option<&Path>) -> Result<PathBuf, OutputError> {
    if let Some(path) = out {
        check_out_directory(path, "--out")?;
        return Ok(path.to_path_buf());
    }
    let Some(path) = default_path(data_dir().as_deref()) else {
        return refused(
            "no data directory for the weights (set POWER11_DATA_DIR or pass --out)".to_string(),
        );
    };
    // No --out was given: a data directory that cannot take the file is named as such.
    if let Err(reason) = check_writable_beside(&path, true) {
        let dir = data_dir().unwrap_or_default();
        return refused(format!(
            "cannot keep weights in the data directory {} ({}): {}; set POWER11_DATA_DIR to a directory you can write, or pass --out",
            shown(&dir),
            shown(&path),
            system_words(&reason)
        ));
    }
    Ok(path)
}

/// The lock a training run holds on its weight file for the whole run (two runs on one file
/// would each overwrite the other's work): let go when dropped.
#[derive(Debug)]
pub struct TrainLock {
    _file: File,
}

/// Whether training may write `out`, checked before it starts (a run that could not keep its
/// work would waste it): a new file in a directory that takes files, or an existing weight
/// file that `resume` continues or `restart` replaces. Any other file is never replaced, nor a
/// weight file with other names (a checkpoint replaces the name, not the file). Returns the
/// run's lock.
pub fn check_weights_out(
    out: &Path,
    resume: bool,
    restart: bool,
) -> Result<TrainLock, OutputError> {
    let shown = shown(out);
    match std::fs::metadata(out) {
        Ok(meta) if meta.is_dir() => {
            return refused(format!("--out {shown} is a directory, not a file"));
        }
        Ok(meta) if !meta.is_file() => {
            return refused(format!("--out {shown} is not a regular file"));
        }
        // Checkpoints would be refused (`save::write_atomic`): say so before the run, not after.
        Ok(meta) if meta.permissions().readonly() => {
            return refused(format!("{shown}: the file is read-only; it is left alone"));
        }
        // The other names would keep the old network, and a run through one of them would
        // take a lock of its own.
        Ok(meta) if other_names(&meta) > 0 => {
            let others = other_names(&meta);
            let names = if others == 1 { "name" } else { "names" };
            return refused(format!(
                "{shown} has {others} other {names} (hard links): a checkpoint replaces {shown} \
                 with a new file, which the other {names} would not see, and a run through one \
                 of them would not know of this one; train a copy (cp) instead"
            ));
        }
        Ok(_) => check_weights_to_replace(out, resume, restart)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return refused(format!("cannot use --out {shown}: {e}")),
    }
    lock_beside(out)
}

/// The part of [`check_weights_out`] for a file that is there: a weight file, whole and of this
/// format if it is to be replaced, and only with the word that says so.
fn check_weights_to_replace(out: &Path, resume: bool, restart: bool) -> Result<(), OutputError> {
    let shown = shown(out);
    if starts_with(out, *WEIGHTS_MAGIC).ok() != Some(true) {
        return refused(format!(
            "{shown} is not a weight file; it is left alone (move it away, or choose another --out)"
        ));
    }
    if resume {
        // Read whole, and said what is wrong with it, where the network is read.
        return Ok(());
    }
    // --restart replaces a whole weight file, never a damaged one (what it held can only be
    // judged by the user) nor one of another format version (a network another power11
    // trained, hours of work).
    match read_weights(out, WeightUse::Play) {
        Err(
            WeightsFileError::Damaged { problem, .. }
            | WeightsFileError::OtherVersion { problem, .. },
        ) => refused(format!(
            "{shown}: {problem}; it is left alone (move it away, or choose another --out)"
        )),
        _ if restart => Ok(()),
        Ok(_) => refused(format!(
            "{shown} already holds weights: add --resume to go on training them, or --restart to replace them"
        )),
        Err(e) => refused(format!(
            "{shown} holds weights that cannot be used ({e}): --restart replaces them"
        )),
    }
}

/// Whether the regular file at `path` starts with `magic` (`Ok(false)` for a shorter file).
fn starts_with(path: &Path, magic: [u8; 8]) -> io::Result<bool> {
    let (mut file, _) = open_regular(path).map_err(OpenError::into_io)?;
    let mut start = [0u8; 8];
    match file.read_exact(&mut start) {
        Ok(()) => Ok(start == magic),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(false),
        Err(e) => Err(e),
    }
}

/// The lock that keeps a second `power11 train` off `out`, once its directory has taken the
/// temporary file a checkpoint is written to. Both go beside the file that a link names, as
/// the checkpoints do: two runs through two links to one file share a lock.
fn lock_beside(out: &Path) -> Result<TrainLock, OutputError> {
    let shown = shown(out);
    let (dir, name) = check_writable_beside(out, true).map_err(|reason| {
        OutputError::Refused(format!(
            "cannot write --out {shown}: {}",
            system_words(&reason)
        ))
    })?;
    // `.NAME.lock`, the name cut as a temporary file's is, so that any name has a lock.
    let lock_name = format!("{}lock", temporary_prefix(&name));
    let lock_path = dir.path().join(&lock_name);
    let file = dir.open_lock(lock_name.as_ref()).map_err(|e| {
        OutputError::Refused(format!(
            "cannot use --out {shown}: its lock {} is {}",
            crate::files::shown(&lock_path),
            match e {
                OpenError::NotRegular(what) => format!("{what}, not a lock file: remove it"),
                OpenError::Io(e) => format!("not usable: {}", system_words(&e)),
            }
        ))
    })?;
    match file.try_lock() {
        Ok(()) => Ok(TrainLock { _file: file }),
        Err(TryLockError::WouldBlock) => refused(format!(
            "another power11 train is writing {shown}: wait for it to finish or choose another --out"
        )),
        Err(TryLockError::Error(e)) => Err(OutputError::Failed(format!(
            "cannot lock {}: {}",
            crate::files::shown(&lock_path),
            system_words(&e)
        ))),
    }
}

/// Whether training may keep its coherence sums beside `out` ([`coherence_path`]), checked
/// before it starts, as `out` is: no file there, or a readable file of sums that is not
/// read-only, in a directory that takes the temporary file a checkpoint writes (through a link,
/// the directory of the file it names). Any other file is never replaced.
pub fn check_coherence_out(out: &Path) -> Result<(), OutputError> {
    let path = coherence_path(out);
    let shown = shown(&path);
    let refuse = |problem: &str| {
        refused(format!(
            "{shown} {problem}; it is left alone (training keeps its coherence sums there: move it away, or train with --no-coherence)"
        ))
    };
    match std::fs::metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return refused(format!("cannot use {shown}: {}", system_words(&e))),
        Ok(meta) if !meta.is_file() => return refuse("is not a regular file"),
        Ok(meta) if meta.permissions().readonly() => return refuse("is read-only"),
        Ok(_) => match starts_with(&path, *COHERENCE_MAGIC) {
            Err(e) => return refused(format!("cannot read {shown}: {e}")),
            Ok(true) => {}
            Ok(false) => return refuse("is not a file of coherence sums"),
        },
    }
    // Beside the file a link at `path` names (a link to nowhere fails here).
    check_writable_beside(&path, false)
        .map(drop)
        .map_err(|reason| {
            OutputError::Refused(format!("cannot write {shown}: {}", system_words(&reason)))
        })
}
