//! A command's words as a grader types them, made into what the runner (`crate::runner`)
//! starts in a folder of its own: the program found as a shell finds it (a word with a `/` is
//! a path, relative to the folder the command was typed in; another is looked for on `PATH`),
//! its arguments exactly as typed. So that `python3 student.py` or `java -cp . Main` still mean
//! the student's files, the folder it runs in holds a link to each file of the folder the
//! command was typed in ([`link_origin`]): a word is never rewritten because a file of its
//! name is there (a `--fault nospawn` typed beside a folder `nospawn` stays `nospawn`).

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};

/// Why a command cannot be started.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    /// The command has no words.
    #[error("nothing to run: the command is empty")]
    Empty,
    /// Its program (a word without `/`) is on no folder of `PATH`.
    #[error("{word}: no such program on PATH{hint}")]
    NotOnPath {
        /// The word, as typed.
        word: String,
        /// A tip when a file of that name is in the folder the command was typed in.
        hint: &'static str,
    },
    /// Its program (a word with `/`) is not there.
    #[error("{}: no such file", crate::files::shown(path))]
    NotFound {
        /// The path the word resolved to.
        path: PathBuf,
    },
    /// Its program is there but cannot be run.
    #[error("{}: {what}, not a program it may run", crate::files::shown(path))]
    NotExecutable {
        /// The path the word resolved to.
        path: PathBuf,
        /// What is there instead, in words.
        what: &'static str,
    },
    /// The folder to run it in is not a folder.
    #[error("the folder to run it in, {}: {problem}", crate::files::shown(path))]
    Folder {
        /// The folder.
        path: PathBuf,
        /// What is wrong with it, in words.
        problem: String,
    },
}

/// A command ready to start: the program's path, its arguments and the folder it runs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The program: an absolute path, or one found on `PATH`.
    pub program: PathBuf,
    /// The arguments, as typed.
    pub args: Vec<OsString>,
    /// The files and folders of `origin` the relative arguments name (`student.py`, `.`),
    /// absolute: what a program run from elsewhere must still find.
    pub named: Vec<PathBuf>,
    /// The folder to run it in, absolute.
    pub folder: PathBuf,
    /// The folder the command was typed in, absolute.
    pub origin: PathBuf,
}

/// `base` joined with `word`, without the `.` components (`./theirs` -> `BASE/theirs`, `.` ->
/// `BASE`); `..` stays, as links make it mean what the system says.
fn joined(base: &Path, word: &str) -> PathBuf {
    base.components()
        .chain(Path::new(word).components())
        .filter(|component| *component != Component::CurDir)
        .collect()
}

/// Whether `path` is a file this process may run (any execute bit: the system has the last
/// word when it starts it), or else what is there in words.
fn runnable(path: &Path) -> Result<(), &'static str> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Err(_) => Err("not there"),
        Ok(meta) if meta.is_dir() => Err("a directory"),
        Ok(meta) if !meta.is_file() => Err(crate::files::open::kind_words(meta.file_type())),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => {
            Err("a file without permission to run it (chmod +x, or name its interpreter)")
        }
        Ok(_) => Ok(()),
    }
}

/// The program `word` names: a path (relative to `origin`) if it holds a `/`, else the first
/// runnable file of that name on `path_var` (`PATH`; an empty or relative entry is read
/// from `origin`, as the shell the command was typed in would).
fn find_program(
    word: &str,
    origin: &Path,
    path_var: Option<&OsStr>,
) -> Result<PathBuf, ProgramError> {
    if word.contains('/') {
        let path = joined(origin, word);
        return match runnable(&path) {
            Ok(()) => Ok(path),
            Err("not there") => Err(ProgramError::NotFound { path }),
            Err(what) => Err(ProgramError::NotExecutable { path, what }),
        };
    }
    for dir in std::env::split_paths(path_var.unwrap_or_default()) {
        let dir = if dir.as_os_str().is_empty() {
            origin.to_path_buf()
        } else {
            origin.join(dir)
        };
        let candidate = dir.join(word);
        if runnable(&candidate).is_ok() {
            return Ok(candidate);
        }
    }
    let hint = if std::fs::metadata(origin.join(word)).is_ok() {
        " (a file of that name is in the folder: run it as ./NAME, or name its interpreter)"
    } else {
        ""
    };
    Err(ProgramError::NotOnPath {
        word: word.to_string(),
        hint,
    })
}

/// `words` (a command split as a shell splits it, typed in `origin`) made ready to start in
/// another folder, `PATH` being `path_var`. Checks that `folder` (where it will run) is a
/// folder.
pub fn resolve(
    words: &[String],
    origin: &Path,
    folder: &Path,
    path_var: Option<&OsStr>,
) -> Result<Resolved, ProgramError> {
    match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => {}
        Ok(meta) => {
            return Err(ProgramError::Folder {
                path: folder.to_path_buf(),
                problem: format!(
                    "{}, not a folder",
                    crate::files::open::kind_words(meta.file_type())
                ),
            });
        }
        Err(error) => {
            return Err(ProgramError::Folder {
                path: folder.to_path_buf(),
                problem: crate::files::system_words(&error),
            });
        }
    }
    let absolute = |path: &Path| {
        std::path::absolute(path).map_err(|error| ProgramError::Folder {
            path: path.to_path_buf(),
            problem: crate::files::system_words(&error),
        })
    };
    let origin = absolute(origin)?;
    let folder = absolute(folder)?;
    let (first, rest) = words.split_first().ok_or(ProgramError::Empty)?;
    let program = find_program(first, &origin, path_var)?;
    let named = rest
        .iter()
        .filter(|word| !word.is_empty() && !word.starts_with('-') && !Path::new(word).is_absolute())
        .map(|word| joined(&origin, word))
        .filter(|path| std::fs::symlink_metadata(path).is_ok())
        .collect();
    Ok(Resolved {
        program,
        args: rest.iter().map(OsString::from).collect(),
        named,
        folder,
        origin,
    })
}

/// The most links [`link_origin`] makes: a folder of more entries links its first ones.
pub const MAX_LINKS: usize = 10_000;

/// Links in `folder` (a run's fresh folder) to each entry of `origin` (the folder the
/// command was typed in), or only to `only` when given (the entries a command names, where
/// the folder typed in is the grader's home: its other names are not shown), each named as
/// its entry: a program run in `folder` finds its files by the names typed. A save
/// (`power11.saved`) is never linked (the run's own is the one it writes and the referee
/// reads), nor a name `folder` already holds; at most [`MAX_LINKS`].
pub fn link_origin(folder: &Path, origin: &Path, only: Option<&[PathBuf]>) -> std::io::Result<()> {
    let entries: Vec<PathBuf> = match only {
        Some(named) => named
            .iter()
            .filter(|p| p.parent() == Some(origin))
            .cloned()
            .collect(),
        None => std::fs::read_dir(origin)?
            .take(MAX_LINKS)
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect(),
    };
    for entry in entries {
        let Some(name) = entry.file_name() else {
            continue;
        };
        if name == crate::files::save::SAVE_FILE {
            continue;
        }
        match std::os::unix::fs::symlink(&entry, folder.join(name)) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn words_stay_as_typed_and_the_files_they_name_are_found() {
        let origin = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let o = origin.path();
        std::fs::write(o.join("student.py"), "print(1)\n").unwrap();
        std::fs::write(o.join("theirs"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(o.join("theirs"), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::create_dir(o.join("lib")).unwrap();
        let path_var = std::env::var_os("PATH");
        let run = |text: &str| resolve(&words(text), o, elsewhere.path(), path_var.as_deref());

        let python = run("sh student.py -v --file=student.py missing.py").unwrap();
        assert!(python.program.is_absolute() && python.program.ends_with("sh"));
        let python_args: Vec<OsString> = ["student.py", "-v", "--file=student.py", "missing.py"]
            .map(OsString::from)
            .into();
        assert_eq!(python.args, python_args);
        assert_eq!(python.named, [o.join("student.py")]);
        let java = run("sh -cp . Main ./lib").unwrap();
        let java_args: Vec<OsString> = ["-cp", ".", "Main", "./lib"].map(OsString::from).into();
        assert_eq!(java.args, java_args);
        assert_eq!(java.named, [o.to_path_buf(), o.join("lib")]);
        assert_eq!(run("./theirs").unwrap().program, o.join("theirs"));

        match run("./student.py").unwrap_err() {
            error @ ProgramError::NotExecutable { .. } => {
                assert!(error.to_string().contains("without permission to run it"));
                assert!(error.to_string().contains("student.py"));
            }
            other => panic!("{other:?}"),
        }
        match run("./lib").unwrap_err() {
            ProgramError::NotExecutable { what, .. } => assert_eq!(what, "a directory"),
            other => panic!("{other:?}"),
        }
        let missing = run("./gone").unwrap_err();
        assert_eq!(
            missing.to_string(),
            format!("{}: no such file", o.join("gone").display())
        );
        let not_on_path = run("theirs").unwrap_err().to_string();
        assert!(
            not_on_path.starts_with("theirs: no such program on PATH (a file of that name"),
            "{not_on_path}"
        );
        assert!(matches!(
            resolve(&[], o, elsewhere.path(), None),
            Err(ProgramError::Empty)
        ));
        assert!(matches!(
            resolve(&words("sh"), o, &o.join("student.py"), path_var.as_deref()),
            Err(ProgramError::Folder { .. })
        ));
    }
}
