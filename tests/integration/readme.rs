//! Every command of the README's `sh` code blocks, run as written (power11 on `PATH`, a home
//! and a folder of the test's own), with small bounds where it trains, benches or plays a
//! whole game: each must exit 0. A command that builds or tests the crate itself is named
//! here, not run (the test suite is its run).

use crate::common::Run;
use std::path::Path;

/// The README's commands that this test does not run, and why.
const NOT_RUN: &[(&str, &str)] = &[
    ("cargo run --release", "plays by hand"),
    ("cargo test", "is this test suite"),
    (
        "cargo install --path . --locked",
        "installs the crate being tested",
    ),
    ("make", "builds the crate being tested"),
];

/// Bounds put on commands that would take minutes: each (what, what instead).
const BOUNDS: &[(&str, &str)] = &[
    ("--games 40000", "--games 20"),
    ("--games 100", "--games 2"),
    ("--autoplay", "--max-moves 40 --autoplay"),
    ("power11 solve", "power11 solve --goal 64"),
    ("optimal --size 3 --goal 512", "optimal --size 3 --goal 64"),
];

/// The commands of the `sh` code blocks of `text`, comments and blank lines left out.
fn commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let command = match trimmed.find(" #") {
            Some(at) => trimmed[..at].trim(),
            None => trimmed,
        };
        if !command.is_empty() && !command.starts_with('#') {
            out.push(command.to_string());
        }
    }
    out
}

#[test]
fn every_command_of_the_readme_runs_as_written() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let commands = commands(&readme);
    assert!(commands.len() > 8, "{commands:?}");
    let run = Run::new();
    let home = run.path("home");
    std::fs::create_dir(&home).unwrap();
    let binary = assert_cmd::cargo::cargo_bin("power11");
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let has_man = std::process::Command::new("sh")
        .args(["-c", "command -v man"])
        .output()
        .is_ok_and(|o| o.status.success());
    let mut ran = 0;
    for command in &commands {
        if let Some((_, why)) = NOT_RUN.iter().find(|(c, _)| command == c) {
            eprintln!("not run: {command} ({why})");
            continue;
        }
        assert!(
            !command.starts_with("cargo") && !command.starts_with("make"),
            "a command this test neither runs nor names: {command}"
        );
        if command.contains("man -l") && !has_man {
            eprintln!("not run: {command} (no man here)");
            continue;
        }
        let mut bounded = command.clone();
        for (what, instead) in BOUNDS {
            bounded = bounded.replace(what, instead);
        }
        let output = std::process::Command::new("bash")
            .args(["-c", &format!("set -o pipefail; {bounded}")])
            .current_dir(run.dir.path())
            .env("PATH", &path)
            .env("HOME", &home)
            .env("POWER11_DATA_DIR", run.path("data"))
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{bounded}: {:?}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        ran += 1;
    }
    assert!(ran >= 6, "{ran} commands run");
}
