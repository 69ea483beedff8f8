//! A command's words as a grader types them, made into what the runner (`crate::runner`)
//! starts in a folder of its own: the program found as a shell finds it (a word with a `/` is
//! a path, relative to the folder the command was typed in; another is looked for on `PATH`),
//! and every relative argument that names a file or folder there made absolute, so that
//! `python3 student.py` or `java -cp . Main` mean the student's files wherever the program
//! runs. Words starting with `-` are options and stay as they are.

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
    /// The arguments, relative files and folders made absolute.
    pub args: Vec<OsString>,
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
    let args = rest
        .iter()
        .map(|word| {
            let relative = !word.starts_with('-') && !Path::new(word).is_absolute();
            let path = joined(&origin, word);
            if relative && !word.is_empty() && std::fs::symlink_metadata(&path).is_ok() {
                path.into_os_string()
            } else {
                OsString::from(word)
            }
        })
        .collect();
    Ok(Resolved {
        program,
        args,
        folder,
        origin,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn relative_words_mean_the_files_of_the_folder_the_command_was_typed_in() {
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
        assert_eq!(
            python.args,
            [
                o.join("student.py").into_os_string(),
                "-v".into(),
                "--file=student.py".into(),
                "missing.py".into()
            ]
        );
        let java = run("sh -cp . Main ./lib").unwrap();
        assert_eq!(
            java.args,
            [
                "-cp".into(),
                o.as_os_str().to_owned(),
                "Main".into(),
                o.join("lib").into_os_string()
            ]
        );
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
