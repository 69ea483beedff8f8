//! A submission built the way its files say (a `Makefile`, a `Cargo.toml`, a
//! `CMakeLists.txt`, one Python or Java program) or the rubric names, held as a program under
//! test is (its limits, its time limit, its whole process tree ended, its sandbox with the
//! network off), and the command its program runs with once built.

use crate::runner::{Ending, Limits, Run, Spec, Status};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How a submission is built and run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildPlan {
    /// What its files are (`make`, `cargo`, `cmake`, `python`, `java`, `rubric`), for the log.
    pub system: &'static str,
    /// The build's shell command, if it needs one.
    pub command: Option<String>,
    /// The program's command once built, as `--run` takes it; `None`: the one new
    /// executable the build made (searched below `made_in`).
    pub run: Option<String>,
    /// Where a build's program is looked for, relative to the submission.
    pub made_in: &'static str,
}

impl BuildPlan {
    /// The plan for a submission whose top folder holds `names` (each with whether it is a
    /// folder), the rubric's `command` and `run` taking the place of what the files say.
    /// `Err`: what to do, in a line, when nothing says how.
    pub fn detect(
        names: &[(String, bool)],
        command: Option<&str>,
        run: Option<&str>,
    ) -> Result<BuildPlan, String> {
        let has = |name: &str| names.iter().any(|(n, dir)| n == name && !dir);
        let with = |ext: &str| -> Vec<&str> {
            names
                .iter()
                .filter(|(n, dir)| !dir && n.ends_with(ext) && !n.starts_with('.'))
                .map(|(n, _)| n.as_str())
                .collect()
        };
        let mut plan = if has("Makefile") || has("makefile") || has("GNUmakefile") {
            BuildPlan::new("make", Some("make"), None, "")
        } else if has("Cargo.toml") {
            BuildPlan::new(
                "cargo",
                Some("cargo build --release --offline"),
                None,
                "target/release",
            )
        } else if has("CMakeLists.txt") {
            BuildPlan::new(
                "cmake",
                Some("cmake -S . -B build && cmake --build build"),
                None,
                "build",
            )
        } else if let Some(python) = one_of(&with(".py"), &["main.py", "power11.py", "game.py"]) {
            BuildPlan::new("python", None, Some(format!("python3 {python}")), "")
        } else if let [java] = with(".java").as_slice() {
            let class = java.trim_end_matches(".java");
            BuildPlan::new(
                "java",
                Some(&format!("javac {java}")),
                Some(format!("java -cp . {class}")),
                "",
            )
        } else if command.is_none() || run.is_none() {
            let found = if with(".py").len() > 1 {
                "several .py files and none named main.py"
            } else if with(".java").len() > 1 {
                "several .java files"
            } else {
                "no Makefile, Cargo.toml, CMakeLists.txt, .py or .java file"
            };
            return Err(format!(
                "cannot tell how to build it ({found}): name its build and run in the rubric's [build] section"
            ));
        } else {
            BuildPlan::new("rubric", None, None, "")
        };
        if let Some(command) = command {
            plan.command = Some(command.to_string());
            plan.system = "rubric";
        }
        if let Some(run) = run {
            plan.run = Some(run.to_string());
        }
        Ok(plan)
    }

    fn new(
        system: &'static str,
        command: Option<&str>,
        run: Option<String>,
        made_in: &'static str,
    ) -> BuildPlan {
        BuildPlan {
            system,
            command: command.map(str::to_string),
            run,
            made_in,
        }
    }
}

/// The one file of `files` that is a program, or the first of `preferred` among several.
fn one_of<'a>(files: &[&'a str], preferred: &[&str]) -> Option<&'a str> {
    match files {
        [one] => Some(one),
        _ => preferred
            .iter()
            .find_map(|p| files.iter().find(|f| *f == p).copied()),
    }
}

/// A build, done.
#[derive(Clone, Debug)]
pub struct Built {
    /// How it ended.
    pub ending: Ending,
    /// What it printed, standard output and error together.
    pub log: String,
    /// Seconds it took.
    pub seconds: f64,
}

impl Built {
    /// Whether it built: it exited with 0.
    pub fn ok(&self) -> bool {
        self.ending == Ending::Exited(0)
    }

    /// Its log's last `lines` lines that are not blank, control characters shown.
    pub fn log_end(&self, lines: usize) -> String {
        let kept: Vec<String> = self
            .log
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(crate::text::visible_text)
            .collect();
        kept[kept.len().saturating_sub(lines)..].join("\n")
    }
}

/// What holds a build: more than a program under test gets (a compiler's memory and
/// processes), but a build still ends.
pub fn build_limits() -> Limits {
    Limits {
        memory: Some(2 << 30),
        cpu: Some(600),
        file_size: Some(256 << 20),
        processes: Some(512),
    }
}

/// Runs `command` (a shell command) in `folder` (the submission's own copy, which it may
/// write in), held: the runner's limits for a build, `timeout`, its sandbox unless
/// `sandbox` is false (the network off, `covered` out of sight).
pub fn build(
    command: &str,
    folder: &Path,
    covered: &[PathBuf],
    timeout: Duration,
    sandbox: bool,
) -> Result<Built, crate::runner::RunError> {
    let words = vec!["sh".to_string(), "-c".to_string(), command.to_string()];
    let mut spec = Spec::new(words, folder, folder);
    spec.limits = build_limits();
    spec.time_limit = timeout;
    spec.end_grace = timeout;
    spec.sandbox = sandbox;
    spec.covered = covered.to_vec();
    spec.stdout_cap = 4 << 20;
    // A build's own caches, in its folder: a toolchain's home is shown read-only.
    spec.env
        .push(("CARGO_HOME".into(), folder.join(".cargo-home").into()));
    let mut run = Run::start(&spec)?;
    let answer = run.wait_for_exit();
    let outcome = run.finish();
    let ending = match answer.status {
        Status::Ended(ending) => ending,
        Status::Waiting(_) => outcome.ending.clone(),
    };
    let mut log = String::from_utf8_lossy(&outcome.stdout).into_owned();
    let stderr = outcome.stderr.to_text();
    if !stderr.is_empty() {
        log.push_str(&stderr);
    }
    Ok(Built {
        ending,
        log,
        seconds: outcome.seconds,
    })
}

/// The program a build made: the one executable file below `made_in` that is new or changed
/// since `before` (the submission's executables before the build), as a command.
pub fn made_program(
    before: &[(PathBuf, u64, SystemTime)],
    after: &[(PathBuf, u64, SystemTime)],
    made_in: &str,
) -> Result<String, String> {
    let new: Vec<&PathBuf> = after
        .iter()
        .filter(|file| !before.contains(file))
        .map(|(path, ..)| path)
        .filter(|path| path.starts_with(made_in))
        .filter(|path| {
            let name = path.to_string_lossy();
            let rest = path.strip_prefix(made_in).unwrap_or(path);
            // A toolchain's own: objects, libraries, build scripts, compiler probes.
            let tools = rest.parent().is_some_and(|folders| {
                folders.components().any(|c| {
                    matches!(
                        c.as_os_str().to_str(),
                        Some("CMakeFiles" | "deps" | "build" | "incremental" | "examples")
                    )
                })
            });
            !tools
                && ![".o", ".so", ".a", ".d"]
                    .iter()
                    .any(|ext| name.ends_with(ext))
        })
        .collect();
    match new.as_slice() {
        [one] => Ok(format!("./{}", one.display())),
        [] => Err(
            "it built, but made no new program to run: name it in the rubric's [build] run"
                .to_string(),
        ),
        many => Err(format!(
            "it built {} programs ({}): name the one to run in the rubric's [build] run",
            many.len(),
            many.iter()
                .take(4)
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<(String, bool)> {
        list.iter()
            .map(|n| (n.trim_end_matches('/').to_string(), n.ends_with('/')))
            .collect()
    }

    #[test]
    fn the_files_say_how_a_submission_is_built() {
        let plan = BuildPlan::detect(&names(&["Makefile", "game.c"]), None, None).unwrap();
        assert_eq!(
            (plan.system, plan.command.as_deref()),
            ("make", Some("make"))
        );
        let plan = BuildPlan::detect(&names(&["Cargo.toml", "src/"]), None, None).unwrap();
        assert_eq!(plan.made_in, "target/release");
        let plan = BuildPlan::detect(&names(&["student.py", "notes.txt"]), None, None).unwrap();
        assert_eq!(
            (plan.command, plan.run.as_deref()),
            (None, Some("python3 student.py"))
        );
        let plan = BuildPlan::detect(&names(&["a.py", "main.py"]), None, None).unwrap();
        assert_eq!(plan.run.as_deref(), Some("python3 main.py"));
        let plan = BuildPlan::detect(&names(&["Game.java"]), None, None).unwrap();
        assert_eq!(plan.command.as_deref(), Some("javac Game.java"));
        assert_eq!(plan.run.as_deref(), Some("java -cp . Game"));
        let error = BuildPlan::detect(&names(&["a.py", "b.py"]), None, None).unwrap_err();
        assert!(error.contains("several .py files"), "{error}");
        let plan =
            BuildPlan::detect(&names(&["x.go"]), Some("go build -o game"), Some("./game")).unwrap();
        assert_eq!(plan.command.as_deref(), Some("go build -o game"));
        assert_eq!(plan.run.as_deref(), Some("./game"));
    }

    #[test]
    fn the_program_a_build_made_is_its_one_new_executable() {
        let t = SystemTime::UNIX_EPOCH;
        let script = (PathBuf::from("run.sh"), 10, t);
        let game = (PathBuf::from("game"), 900, t);
        let object = (PathBuf::from("game.o"), 90, t);
        assert_eq!(
            made_program(
                std::slice::from_ref(&script),
                &[script.clone(), game.clone(), object],
                ""
            ),
            Ok("./game".to_string())
        );
        let once = std::slice::from_ref(&script);
        assert!(made_program(once, once, "").is_err());
        let other = (PathBuf::from("tool"), 5, t);
        let error = made_program(&[], &[game, other], "").unwrap_err();
        assert!(error.contains("it built 2 programs"), "{error}");
    }
}
