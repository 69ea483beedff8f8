//! The floors of `src/`: which top-level module (a folder, or a file at the top) may import
//! which, as data in one table ([`FLOORS`]), checked against every `crate::` path in the
//! sources. An import that breaks a floor fails the test with its file and line.
//!
//! `lib.rs` (which declares the modules and re-exports the public paths) and `main.rs` are the
//! wiring, not a floor, and are not checked. Comments are skipped, so documentation may link
//! anywhere. Paths are read in `use` statements, grouped ones (`crate::{a::x, b::y}`) included,
//! and inline in code; `super::super::x` from a file in a folder names the top-level `x`.

use std::fs;
use std::path::{Path, PathBuf};

/// Each top-level module and the other top-level modules it may import, bottom up. A module may
/// always import its own files. Every module of `src/` has a row (a test checks it).
const FLOORS: &[(&str, &[&str])] = &[
    // The core library: builds without the feature `cli`.
    ("model", &[]),
    ("learning", &["model"]),
    ("players", &["model", "learning"]),
    ("session", &["model", "players"]),
    ("text", &["model", "players", "session"]),
    ("referee", &["model", "text"]),
    // The program (feature `cli`).
    (
        "files",
        &["model", "learning", "players", "session", "text"],
    ),
    ("frontends", &["model", "players", "session", "text"]),
    ("bench", &["model", "players", "files"]),
    ("train", &["model", "learning", "players", "files"]),
    ("runner", &["files"]),
    (
        "live",
        &["model", "players", "text", "referee", "files", "runner"],
    ),
    (
        "grading",
        &[
            "model", "players", "text", "referee", "files", "runner", "live",
        ],
    ),
    (
        "fuzzing",
        &["model", "players", "session", "text", "frontends"],
    ),
    (
        "cli",
        &[
            "model",
            "learning",
            "players",
            "session",
            "text",
            "referee",
            "files",
            "frontends",
            "bench",
            "train",
            "runner",
            "live",
            "grading",
        ],
    ),
];

/// The core library's modules: they never import the program's, whatever [`FLOORS`] says.
const CORE: &[&str] = &["model", "learning", "players", "session", "text", "referee"];

/// The crate's source directory.
pub(crate) fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The top-level module a source file belongs to (`src/players/learned.rs` -> `players`,
/// `src/session.rs` -> `session`), or `None` for the wiring (`lib.rs`, `main.rs`).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" | "main.rs" => None,
        name => Some(name.trim_end_matches(".rs").to_string()),
    }
}

/// A `crate::{...}` group being read: its brace depth, and whether the next identifier at depth
/// 0 starts a path.
struct Group {
    depth: usize,
    at_start: bool,
}

impl Group {
    fn new() -> Group {
        Group {
            depth: 0,
            at_start: true,
        }
    }

    /// Reads `text` (code inside the group); the first segment of each path it starts, and
    /// whether the group's closing brace came.
    fn read(&mut self, text: &str) -> (Vec<String>, bool) {
        let mut heads = Vec::new();
        for (i, c) in text.char_indices() {
            match c {
                '{' => self.depth += 1,
                '}' if self.depth == 0 => return (heads, true),
                '}' => self.depth -= 1,
                ',' if self.depth == 0 => self.at_start = true,
                c if self.at_start && self.depth == 0 && !c.is_whitespace() => {
                    heads.push(identifier(&text[i..]));
                    self.at_start = false;
                }
                _ => {}
            }
        }
        (heads, false)
    }
}

/// The first identifier of `text`.
fn identifier(text: &str) -> String {
    text.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The code of a line: up to its comment, if it has one.
pub(crate) fn code_of(line: &str) -> &str {
    line.find("//").map_or(line, |at| &line[..at])
}

/// The top-level modules a line of code names, with `super::super::` read from a file one
/// folder deep (`in_folder`), and the `crate::{` group it leaves open, if any.
fn named_modules(code: &str, in_folder: bool) -> (Vec<String>, Option<Group>) {
    let mut names = Vec::new();
    let mut open = None;
    let mut prefixes = vec!["crate::"];
    if in_folder {
        prefixes.push("super::super::");
    }
    for prefix in prefixes {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            // `crate::` inside a longer name (`mycrate::`) is not the crate.
            let before = rest[..at].chars().next_back();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(inside) = rest.strip_prefix('{') {
                let mut group = Group::new();
                let (heads, closed) = group.read(inside);
                names.extend(heads);
                if !closed {
                    open = Some(group);
                }
            } else {
                names.push(identifier(rest));
            }
        }
    }
    (names, open)
}

/// Every import in `source` (a file of module `from`) that breaks the floors, as
/// `file:line: from may not import to`. A `crate::{` group whose paths continue on the
/// following lines is read on to its closing brace.
fn violations(file: &str, from: &str, in_folder: bool, source: &str) -> Vec<String> {
    let Some(&(_, allowed)) = FLOORS.iter().find(|(name, _)| *name == from) else {
        panic!("{file}: module `{from}` has no row in FLOORS");
    };
    let mut found = Vec::new();
    let mut open: Option<Group> = None;
    for (index, line) in source.lines().enumerate() {
        let code = code_of(line);
        let names = if let Some(group) = open.as_mut() {
            let (heads, closed) = group.read(code);
            if closed {
                open = None;
            }
            heads
        } else {
            let (names, left_open) = named_modules(code, in_folder);
            open = left_open;
            names
        };
        for to in names {
            if to == from || !FLOORS.iter().any(|(name, _)| *name == to) {
                continue;
            }
            let core_to_program = CORE.contains(&from) && !CORE.contains(&to.as_str());
            if core_to_program || !allowed.contains(&to.as_str()) {
                found.push(format!("{file}:{}: {from} may not import {to}", index + 1));
            }
        }
    }
    found
}

#[test]
fn no_module_imports_above_its_floor() {
    let root = src();
    let mut found = Vec::new();
    for path in rust_files(&root) {
        let relative = path.strip_prefix(&root).unwrap();
        let Some(from) = module_of(relative) else {
            continue;
        };
        let in_folder = relative.components().count() > 1;
        let source = fs::read_to_string(&path).unwrap();
        let file = Path::new("src").join(relative);
        found.extend(violations(
            &file.display().to_string(),
            &from,
            in_folder,
            &source,
        ));
    }
    assert!(
        found.is_empty(),
        "imports across floors:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_module_has_a_floor_and_the_table_looks_down() {
    let root = src();
    for path in rust_files(&root) {
        if let Some(module) = module_of(path.strip_prefix(&root).unwrap()) {
            assert!(
                FLOORS.iter().any(|(name, _)| *name == module),
                "src/{module}: no row in FLOORS"
            );
        }
    }
    for (row, (name, allowed)) in FLOORS.iter().enumerate() {
        for below in *allowed {
            let at = FLOORS.iter().position(|(other, _)| other == below);
            assert!(
                at.is_some_and(|at| at < row),
                "{name} may import {below}, which is not a row above it"
            );
        }
    }
    for core in CORE {
        let (_, allowed) = FLOORS.iter().find(|(name, _)| name == core).unwrap();
        assert!(
            allowed.iter().all(|below| CORE.contains(below)),
            "the core module {core} is allowed a program module"
        );
    }
}

#[test]
fn a_planted_upward_import_is_named_with_its_file_and_line() {
    let source = "//! crate::cli in a comment is no import\n\
                  use crate::model::board::Board;\n\
                  use crate::frontends::console::Console;\n\
                  fn f() { crate::files::save::read_save(); }\n\
                  use crate::{model::size::Size, bench::game_seed};\n\
                  use crate::{\n    model::{\n        board::Board,\n    },\n    text::render,\n    cli::main,\n};\n";
    assert_eq!(
        violations("src/players/x.rs", "players", true, source),
        [
            "src/players/x.rs:3: players may not import frontends",
            "src/players/x.rs:4: players may not import files",
            "src/players/x.rs:5: players may not import bench",
            "src/players/x.rs:10: players may not import text",
            "src/players/x.rs:11: players may not import cli",
        ]
    );
    assert_eq!(
        violations(
            "src/model/x.rs",
            "model",
            true,
            "use super::super::session;\n"
        ),
        ["src/model/x.rs:1: model may not import session"]
    );
}
