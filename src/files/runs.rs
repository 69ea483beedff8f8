//! Running a program under test (`power11 referee --run`): in a fresh temporary directory,
//! which is also its home and power11's data directory, the keys on its standard input, its
//! standard output collected up to a cap, stopped (with everything it started) once its time
//! is up; then the save it left there. And keeping a failing generated script with what the
//! program printed, for replay.

use crate::files::atomic::write_atomic_in;
use crate::files::bounded::{Expect, read_regular};
use crate::files::dir::Dir;
use crate::files::save::{FileError, SAVE_FILE};
use std::ffi::OsStr;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// It exited with this code.
    Exited(i32),
    /// A signal ended it (a crash: 11 is a segmentation fault, 6 an abort).
    Signal(i32),
    /// It was still running when its time was up, and was stopped.
    TimedOut,
    /// It printed more than the cap, and was stopped.
    OutputCapped,
}

/// What a program did with its keys.
#[derive(Debug)]
pub struct RunOutput {
    /// What it printed on standard output (up to the cap).
    pub stdout: Vec<u8>,
    /// The first lines it printed on standard error (up to 64 KiB).
    pub stderr: Vec<u8>,
    /// The save file it left (`power11.saved`), if a regular file of at most 256 MiB.
    pub save: Option<Vec<u8>>,
    /// How it ended.
    pub ended: Ended,
    /// How long it ran.
    pub seconds: f64,
}

/// The most of standard error kept.
const MAX_STDERR: usize = 64 << 10;

/// What a reader thread has read so far, and whether there was more than its cap.
type Collected = Arc<Mutex<(Vec<u8>, bool)>>;

/// Reads `source` into `into` up to `cap` bytes (noting if it had more), a block at a time, so
/// that what was read is there even if the reading never ends (a process the program left
/// behind holds the pipe open).
fn read_capped(mut source: impl Read, cap: usize, into: &Collected) {
    let mut block = vec![0u8; 64 << 10];
    loop {
        let n = match source.read(&mut block) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut collected = into.lock().unwrap_or_else(PoisonError::into_inner);
        let room = cap - collected.0.len();
        collected.0.extend_from_slice(&block[..n.min(room)]);
        if n > room {
            collected.1 = true;
            return;
        }
    }
}

/// Reads `source` on a thread of its own into what it returns.
fn collect(source: impl Read + Send + 'static, cap: usize) -> (Collected, JoinHandle<()>) {
    let collected: Collected = Arc::default();
    let into = Arc::clone(&collected);
    (
        collected,
        std::thread::spawn(move || read_capped(source, cap, &into)),
    )
}

/// What `collected` holds now.
fn taken(collected: &Collected) -> (Vec<u8>, bool) {
    std::mem::take(&mut *collected.lock().unwrap_or_else(PoisonError::into_inner))
}

/// Runs `program` (its path and arguments) in a fresh temporary directory with `input` on its
/// standard input, for at most `timeout`, keeping at most `cap` bytes of its output; `save`,
/// if given, is put there first as `power11.saved`. A program path with a `/` is taken from
/// the current directory, as a shell would, and so is an argument that names a file there.
pub fn run_fresh(
    program: &[String],
    input: &[u8],
    save: Option<&[u8]>,
    timeout: Duration,
    cap: usize,
) -> io::Result<RunOutput> {
    let (name, args) = program
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no program to run"))?;
    let dir = tempfile::tempdir()?;
    if let Some(save) = save {
        std::fs::write(dir.path().join(SAVE_FILE), save)?;
    }
    let path = if name.contains('/') {
        std::path::absolute(name)?
    } else {
        PathBuf::from(name)
    };
    // The run's folder is not the one the command was typed in: an argument that names a
    // file or folder there (`game.py`, `-cp carol`'s `carol`) is given as its full path.
    let args: Vec<PathBuf> = args
        .iter()
        .map(|arg| {
            let named = Path::new(arg);
            if !arg.starts_with('-') && !named.is_absolute() && named.exists() {
                std::path::absolute(named).unwrap_or_else(|_| named.to_path_buf())
            } else {
                named.to_path_buf()
            }
        })
        .collect();
    let mut command = Command::new(&path);
    command
        .args(&args)
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("POWER11_DATA_DIR", dir.path().join("data"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| {
        io::Error::new(
            e.kind(),
            format!(
                "cannot run {}: {}",
                crate::files::shown(&path),
                crate::files::system_words(&e)
            ),
        )
    })?;
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let input = input.to_vec();
    // A program that stops reading (it quit) closes the pipe: the rest is not its.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let (out, out_reader) = collect(stdout, cap);
    let (err, err_reader) = collect(stderr, MAX_STDERR);
    let capped = || out.lock().unwrap_or_else(PoisonError::into_inner).1;
    let mut ended = None;
    while ended.is_none() {
        if capped() {
            ended = Some(Ended::OutputCapped);
        } else if let Some(status) = child.try_wait()? {
            ended = Some(status_of(status));
        } else if started.elapsed() >= timeout {
            ended = Some(Ended::TimedOut);
        } else {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    // Whatever it started in its group is stopped with it; a process that left the group
    // (`setsid`) and holds its output open is not waited for past the time limit.
    stop(&mut child);
    while !(out_reader.is_finished() && err_reader.is_finished()) {
        if started.elapsed() >= timeout {
            if ended.is_some_and(|e| matches!(e, Ended::Exited(_) | Ended::Signal(_))) {
                ended = Some(Ended::TimedOut);
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let (stdout, more) = taken(&out);
    if more {
        ended = Some(Ended::OutputCapped);
    }
    let (stderr, _) = taken(&err);
    if writer.is_finished() {
        let _ = writer.join();
    }
    let save = read_regular(&dir.path().join(SAVE_FILE), 256 << 20, Expect::Bytes).ok();
    Ok(RunOutput {
        stdout,
        stderr,
        save,
        ended: ended.expect("set above"),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Stops `child` and every process of its group.
fn stop(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        // SAFETY: kill sends a signal to the process group this run started; it touches no
        // memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn status_of(status: std::process::ExitStatus) -> Ended {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return Ended::Signal(signal);
        }
    }
    Ended::Exited(status.code().unwrap_or(-1))
}

/// The folder failing generated scripts are kept in (`referee --keep`), checked before any
/// script runs by a real write, so a bad folder loses no report; made if it is not there, and
/// removed again at the end if it was made and nothing was kept in it.
#[derive(Debug)]
pub struct KeepDir {
    dir: Dir,
    /// The folder as the user named it (or the default), for messages.
    path: PathBuf,
    /// Whether this run made it.
    made: bool,
}

impl KeepDir {
    /// The folder at `path`, walked with the link rule on every name; `default` when the user
    /// named none: a default folder someone else owns is not used (another user could read
    /// what is kept there, or have planted names in it). The error is the whole message.
    pub fn prepare(path: &Path, default: bool) -> Result<KeepDir, String> {
        let flag = if default { "the keep folder" } else { "--keep" };
        let fail = |problem: String| format!("{flag} {}: {problem}", crate::files::shown(path));
        let made = match std::fs::symlink_metadata(path) {
            // The default name is power11's own: a link there was put by someone else.
            Ok(meta) if default && meta.file_type().is_symlink() => {
                return Err(fail(
                    "a symbolic link; power11 keeps scripts only in a folder it made: remove                      it, or name a folder with --keep"
                        .to_string(),
                ));
            }
            Ok(meta) if meta.is_dir() || meta.file_type().is_symlink() => false,
            Ok(meta) => {
                return Err(fail(format!(
                    "{}, not a folder to keep failing scripts in",
                    crate::files::open::kind_words(meta.file_type())
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => true,
            Err(e) => return Err(fail(crate::files::system_words(&e))),
        };
        let dir = Dir::open(path, true).map_err(|e| fail(crate::files::system_words(&e)))?;
        if default && dir.owned_by_another().unwrap_or(true) {
            return Err(fail(
                "another user's folder; power11 does not keep scripts in a folder it did not                  make: name one with --keep"
                    .to_string(),
            ));
        }
        let keep = KeepDir {
            dir,
            path: path.to_path_buf(),
            made,
        };
        // A real write: a read-only folder or a full disk is said now, not after the runs.
        write_atomic_in(&keep.dir, OsStr::new(".power11-referee-check"), b"")
            .and_then(|()| {
                keep.dir
                    .remove(OsStr::new(".power11-referee-check"))
                    .map_err(|error| FileError::Io {
                        path: path.to_path_buf(),
                        error,
                    })
            })
            .map_err(|e| {
                let words = match e {
                    FileError::Io { error, .. } => crate::files::system_words(&error),
                    other => other.to_string(),
                };
                fail(format!("cannot write in it: {words}"))
            })?;
        Ok(keep)
    }

    /// Keeps a failing script: `script-NNNN.keys`, what the program printed (`.out`) and its
    /// save (`.saved`), each written atomically under a name of its own that is replaced,
    /// never followed, if something is there; in the folder `sub` (one a program of a class,
    /// made where missing) if given. Returns the keys file's path.
    pub fn keep(
        &self,
        sub: Option<&str>,
        index: u64,
        keys: &str,
        output: &RunOutput,
    ) -> Result<PathBuf, FileError> {
        let (dir, path) = match sub {
            None => (self.dir.try_clone(), self.path.clone()),
            Some(sub) => (
                Dir::open(&self.dir.path().join(sub), true),
                self.path.join(sub),
            ),
        };
        let dir = dir.map_err(|error| FileError::Io {
            path: path.clone(),
            error,
        })?;
        let stem = format!("script-{index:04}");
        let keys_name = format!("{stem}.keys");
        write_atomic_in(&dir, keys_name.as_ref(), keys.as_bytes())?;
        write_atomic_in(&dir, format!("{stem}.out").as_ref(), &output.stdout)?;
        if let Some(save) = &output.save {
            write_atomic_in(&dir, format!("{stem}.saved").as_ref(), save)?;
        }
        Ok(path.join(keys_name))
    }

    /// Removes the folder if this run made it and kept nothing in it.
    pub fn finish(&self) {
        if self.made && self.dir.names().is_ok_and(|names| names.is_empty()) {
            let _ = std::fs::remove_dir(&self.path);
        }
    }
}

/// A file the referee reads (the keys, a transcript, a save), whatever its bytes: a program
/// may print anything, so bytes that are not UTF-8 read as U+FFFD. A regular file or a stream
/// (`<(...)`, a FIFO: one nobody writes to reads as empty) of at most `limit` bytes, or standard
/// input for `-`; the error is the whole message, naming the file.
pub fn read_any_text(path: &Path, limit: u64) -> Result<String, String> {
    use crate::files::bounded::{BoundedReadError, read_standard_input, read_stream};
    let stdin = path == Path::new("-");
    let shown = if stdin {
        "standard input".to_string()
    } else {
        crate::files::shown(path)
    };
    let read = if stdin {
        read_standard_input(limit, Expect::Bytes)
    } else {
        read_stream(path, limit, Expect::Bytes)
    };
    match read {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
            Err(format!("{shown}: no such file"))
        }
        Err(BoundedReadError::Io(e)) => Err(format!("{shown}: {}", crate::files::system_words(&e))),
        Err(BoundedReadError::NotRegular(what)) => Err(format!("{shown}: {what}, not a file")),
        Err(BoundedReadError::TooLarge(_)) => Err(format!(
            "{shown}: larger than the {} MiB the referee reads",
            limit >> 20
        )),
    }
}
