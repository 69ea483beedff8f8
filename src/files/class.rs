//! A class's folder as `power11 grade` reads it: each folder, `.zip`, `.tar.gz` or `.tgz`
//! directly in it is one submission, named by its file name; and a submission's fingerprint,
//! which says whether it changed since it was last graded.

use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// How a submission came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A folder of files.
    Folder,
    /// An archive, to unpack (`zip` or `tar.gz`).
    Archive(&'static str),
}

/// One submission of a class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// Its name: its file name, an archive's extension left out unless another submission
    /// has that name.
    pub name: String,
    /// Where it is.
    pub path: PathBuf,
    /// How it came.
    pub form: Form,
}

/// The submissions of the class folder `class`, by name (hidden names, links and other files
/// left out: a class's download holds folders and archives).
pub fn submissions(class: &Path) -> io::Result<Vec<Submission>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(class)? {
        let entry = entry?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with('.') {
            continue;
        }
        let kind = entry.file_type()?;
        let path = entry.path();
        let (name, form) = if kind.is_dir() {
            (file_name.clone(), Form::Folder)
        } else if let (true, Some(archive)) =
            (kind.is_file(), crate::files::archives::kind_of(&path))
        {
            let lower = file_name.to_ascii_lowercase();
            let cut = [".tar.gz", ".tgz", ".zip"]
                .iter()
                .find(|ext| lower.ends_with(*ext))
                .map_or(0, |ext| ext.len());
            (
                file_name[..file_name.len() - cut].to_string(),
                Form::Archive(archive),
            )
        } else {
            continue;
        };
        out.push(Submission { name, path, form });
    }
    // `alice/` beside `alice.zip` (or two archives of one name): each archive keeps its
    // whole file name, so no two submissions share a name and its files.
    let names: Vec<String> = out.iter().map(|s| s.name.clone()).collect();
    for submission in &mut out {
        let shared = names.iter().filter(|n| **n == submission.name).count() > 1;
        if shared && submission.form != Form::Folder {
            submission.name = submission
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A fingerprint of everything at `path` (a file, or a folder's files, their names and
/// contents, links and hidden names too, in a fixed order), mixed with `salt` (the rubric and
/// the version): equal when nothing changed. Not a defence against a forger: a submission
/// that keeps its fingerprint keeps its grade, nothing more.
pub fn fingerprint(path: &Path, salt: &[u8]) -> io::Result<u64> {
    let mut a = crc32fast::Hasher::new();
    let mut b = crc32fast::Hasher::new_with_initial(0x9e37_79b9);
    a.update(salt);
    b.update(salt);
    let mut files = Vec::new();
    walk(path, Path::new(""), &mut files)?;
    files.sort();
    for relative in files {
        let name = relative.to_string_lossy();
        for h in [&mut a, &mut b] {
            h.update(&(name.len() as u64).to_le_bytes());
            h.update(name.as_bytes());
        }
        let full = if relative.as_os_str().is_empty() {
            path.to_path_buf()
        } else {
            path.join(&relative)
        };
        let meta = std::fs::symlink_metadata(&full)?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&full)?;
            let target = target.to_string_lossy();
            for h in [&mut a, &mut b] {
                h.update(b"link");
                h.update(target.as_bytes());
            }
            continue;
        }
        let mut file = std::fs::File::open(&full)?;
        let mut buffer = vec![0u8; 1 << 16];
        for h in [&mut a, &mut b] {
            h.update(&meta.len().to_le_bytes());
        }
        loop {
            let n = file.read(&mut buffer)?;
            if n == 0 {
                break;
            }
            a.update(&buffer[..n]);
            b.update(&buffer[..n]);
        }
    }
    Ok(u64::from(a.finalize()) << 32 | u64::from(b.finalize()))
}

/// Every file below `root` (links as they are), as paths relative to it.
fn walk(root: &Path, at: &Path, out: &mut Vec<PathBuf>) -> io::Result<()> {
    // `root.join("")` would end in a `/`, which a file's name cannot.
    let here = if at.as_os_str().is_empty() {
        root.to_path_buf()
    } else {
        root.join(at)
    };
    let meta = std::fs::symlink_metadata(&here)?;
    if !meta.is_dir() {
        out.push(at.to_path_buf());
        return Ok(());
    }
    for entry in std::fs::read_dir(&here)? {
        let entry = entry?;
        walk(root, &at.join(entry.file_name()), out)?;
    }
    Ok(())
}

/// Copies the folder `from` into `to` (made here, and must not exist), files and folders only
/// (a link is left out: a submission's links lead outside it); each file keeps its exec bit.
pub fn copy_folder(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            copy_folder(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The names in the folder `folder` (not following links), and whether each is a folder.
pub fn listing(folder: &Path) -> io::Result<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        out.push((
            entry.file_name().to_string_lossy().into_owned(),
            entry.file_type()?.is_dir(),
        ));
    }
    out.sort();
    Ok(out)
}

/// Makes `work` (replacing what a past grading left there) the submission's own copy to build
/// and run: a folder's files copied (links left out), an archive unpacked within `caps`.
/// Returns the folder the submission is (an archive's one folder, if it has one), or why it
/// cannot be had, in a line.
pub fn make_work(
    submission: &Submission,
    work: &Path,
    caps: crate::files::archives::Caps,
) -> Result<PathBuf, String> {
    let shown = crate::files::shown(&submission.path);
    remove_folder(work).map_err(|e| {
        format!(
            "{}: {}",
            crate::files::shown(work),
            crate::files::system_words(&e)
        )
    })?;
    if let Some(parent) = work.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            format!(
                "{}: {}",
                crate::files::shown(parent),
                crate::files::system_words(&e)
            )
        })?;
    }
    match submission.form {
        Form::Folder => copy_folder(&submission.path, work)
            .map(|()| work.to_path_buf())
            .map_err(|e| {
                format!(
                    "{shown}: cannot copy it: {}",
                    crate::files::system_words(&e)
                )
            }),
        Form::Archive(_) => crate::files::archives::unpack(&submission.path, work, caps)
            .map_err(|e| format!("{shown}: its archive was refused: {e}")),
    }
}

/// Removes the folder `folder` and all in it, if it is there (a link there is removed, never
/// followed).
pub fn remove_folder(folder: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(folder) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(folder),
        Ok(_) => std::fs::remove_file(folder),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Every regular file below `folder` that its owner may run (hidden folders left out), with
/// its size and time of change: what a build made is what is new among them.
pub fn executables(folder: &Path) -> io::Result<Vec<(PathBuf, u64, std::time::SystemTime)>> {
    use std::os::unix::fs::PermissionsExt;
    let mut out = Vec::new();
    let mut files = Vec::new();
    walk(folder, Path::new(""), &mut files)?;
    for relative in files {
        if relative
            .components()
            .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
        {
            continue;
        }
        let path = folder.join(&relative);
        let meta = std::fs::symlink_metadata(&path)?;
        if meta.is_file() && meta.permissions().mode() & 0o100 != 0 {
            out.push((relative, meta.len(), meta.modified()?));
        }
    }
    out.sort();
    Ok(out)
}

/// Reads the text of a small file of the grader's own (a kept grade, a rubric), up to
/// `limit` bytes; `None` where there is none.
pub fn read_small(path: &Path, limit: u64) -> Result<Option<String>, String> {
    use crate::files::bounded::{BoundedReadError, Expect, read_regular};
    match read_regular(path, limit, Expect::Text) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(BoundedReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(BoundedReadError::Io(e)) => Err(crate::files::system_words(&e)),
        Err(BoundedReadError::NotRegular(what)) => Err(format!("it is {what}, not a file")),
        Err(BoundedReadError::TooLarge(_)) => Err(format!("larger than {limit} bytes")),
    }
}

/// The folder `path` as the system spells it (absolute, links resolved); an error if it is
/// not a folder.
pub fn real_folder(path: &Path) -> io::Result<PathBuf> {
    let real = std::fs::canonicalize(path)?;
    if real.is_dir() {
        Ok(real)
    } else {
        Err(io::Error::new(io::ErrorKind::NotADirectory, "not a folder"))
    }
}

/// Makes the folder `folder` and those above it.
pub fn make_folder(folder: &Path) -> io::Result<()> {
    std::fs::create_dir_all(folder)
}

/// The output folder `folder`, made with those above it where missing, its links followed
/// only where the rule allows (never one another user planted in a shared folder): the
/// folder, as walked, that everything is written in.
pub fn output_folder(folder: &Path) -> io::Result<PathBuf> {
    crate::files::dir::Dir::open(folder, true).map(|dir| dir.path().to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_and_archives_are_submissions_named_by_their_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("alice")).unwrap();
        std::fs::write(dir.path().join("bob.zip"), b"").unwrap();
        std::fs::write(dir.path().join("carol.tar.gz"), b"").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"").unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let found = submissions(dir.path()).unwrap();
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alice", "bob", "carol"]);
        assert_eq!(found[1].form, Form::Archive("zip"));
        // Names shared: the archives keep their whole file names.
        std::fs::write(dir.path().join("alice.zip"), b"").unwrap();
        std::fs::write(dir.path().join("bob.tgz"), b"").unwrap();
        let found = submissions(dir.path()).unwrap();
        let names: Vec<&str> = found.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alice", "alice.zip", "bob.tgz", "bob.zip", "carol"]);
    }

    #[test]
    fn a_fingerprint_changes_with_any_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("s")).unwrap();
        std::fs::write(dir.path().join("s/a.py"), b"1").unwrap();
        let before = fingerprint(&dir.path().join("s"), b"rubric").unwrap();
        assert_eq!(
            before,
            fingerprint(&dir.path().join("s"), b"rubric").unwrap()
        );
        assert_ne!(
            before,
            fingerprint(&dir.path().join("s"), b"other").unwrap()
        );
        std::fs::write(dir.path().join("s/a.py"), b"2").unwrap();
        assert_ne!(
            before,
            fingerprint(&dir.path().join("s"), b"rubric").unwrap()
        );
        // Regression: an archive's fingerprint (a file, not a folder) could not be taken, so
        // an unchanged archive was graded again at every run.
        std::fs::write(dir.path().join("bob.zip"), b"PK").unwrap();
        let zip = fingerprint(&dir.path().join("bob.zip"), b"rubric").unwrap();
        assert_eq!(
            zip,
            fingerprint(&dir.path().join("bob.zip"), b"rubric").unwrap()
        );
    }
}
