//! The house rules that are not about imports (those are `floors.rs`), as tests that read the
//! sources: a source file holds at most [`MAX_LINES`] lines before its tests; only `files/`
//! (and `main.rs`, the wiring) touches the file system; the model names no clock. Each rule
//! is data here and a sentence in ARCHITECTURE.md, and a broken rule is named with its file
//! and line. Tests (`#[cfg(test)] mod tests` and everything after it) are not checked: they
//! make temporary folders and time nothing.

use crate::floors::{code_of, rust_files, src};

/// The most lines a source file holds before its tests (600 is the aim).
const MAX_LINES: usize = 700;

/// What touches the file system: the names of the standard library's and `tempfile`'s ways in.
const FILE_SYSTEM: &[&str] = &[
    "std::fs",
    "fs::",
    "File::open",
    "File::create",
    "OpenOptions",
    "tempfile",
    "read_dir",
    "canonicalize",
];

/// Where the file system may be touched: the files floor, and the binary's wiring.
const FILE_SYSTEM_ALLOWED: &[&str] = &["files/", "main.rs"];

/// What reads the clock.
const CLOCK: &[&str] = &["SystemTime", "Instant", "UNIX_EPOCH"];

/// Where no clock may be named: the model (rules as data; a game is a function of its seed and
/// its keys).
const NO_CLOCK: &[&str] = &["model/"];

/// A source file's text before its tests.
fn before_tests(source: &str) -> &str {
    source
        .find("#[cfg(test)]\nmod tests")
        .or_else(|| source.find("#[cfg(all(test"))
        .map_or(source, |at| &source[..at])
}

/// Whether `code` names `word`, not as part of a longer name or path (`std::fs` in
/// `mystd::fs`, `fs::` in `other::fs::`).
fn names(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(at, _)| {
        let before = code[..at].chars().next_back();
        // A module named in a path (`fs::`) is another's when a path leads to it.
        let longer =
            |c: char| c.is_alphanumeric() || c == '_' || (c == ':' && word.ends_with("::"));
        !before.is_some_and(longer)
    })
}

/// Each rule broken in `source` (the file `file`, relative to `src/`), as `src/FILE:LINE: what`.
fn broken(file: &str, source: &str) -> Vec<String> {
    let mut found = Vec::new();
    let checked = before_tests(source);
    let lines = checked.lines().count();
    if lines > MAX_LINES {
        found.push(format!(
            "src/{file}: {lines} lines before its tests, more than {MAX_LINES}: split it along its seams"
        ));
    }
    let may_touch_files = FILE_SYSTEM_ALLOWED.iter().any(|p| file.starts_with(p));
    let no_clock = NO_CLOCK.iter().any(|p| file.starts_with(p));
    for (index, line) in checked.lines().enumerate() {
        let code = code_of(line);
        if !may_touch_files && let Some(word) = FILE_SYSTEM.iter().find(|w| names(code, w)) {
            found.push(format!(
                "src/{file}:{}: {word}: only files/ touches the file system",
                index + 1
            ));
        }
        if no_clock && let Some(word) = CLOCK.iter().find(|w| names(code, w)) {
            found.push(format!(
                "src/{file}:{}: {word}: the model reads no clock",
                index + 1
            ));
        }
    }
    found
}

#[test]
fn the_sources_keep_the_house_rules() {
    let root = src();
    let mut found = Vec::new();
    for path in rust_files(&root) {
        let relative = path.strip_prefix(&root).unwrap();
        let file = relative.to_string_lossy().replace('\\', "/");
        let source = std::fs::read_to_string(&path).unwrap();
        found.extend(broken(&file, &source));
    }
    assert!(
        found.is_empty(),
        "house rules broken:\n{}",
        found.join("\n")
    );
}

/// Each rule fails where it should, and names the file and line: a file one line too long, a
/// file opened from the command line's folder, a clock in the model; and nothing in tests, in
/// comments, or in a longer name.
#[test]
fn a_broken_rule_is_named_with_its_file_and_line() {
    let long = "fn f() {}\n".repeat(MAX_LINES + 1);
    assert_eq!(
        broken("players/big.rs", &long),
        ["src/players/big.rs: 701 lines before its tests, more than 700: split it along its seams"]
    );
    let fine = format!(
        "{}#[cfg(test)]\nmod tests {{\n{long}}}\n",
        "fn f() {}\n".repeat(MAX_LINES)
    );
    assert!(broken("players/big.rs", &fine).is_empty());
    let source = "//! std::fs in a comment\n\
                  use std::io;\n\
                  fn f() { let _ = std::fs::read(\"x\"); } // File::open\n\
                  fn g() { mystd::fs::x(); }\n\
                  use std::time::Instant;\n\
                  #[cfg(test)]\nmod tests {\n    fn t() { tempfile::tempdir(); }\n}\n";
    assert_eq!(
        broken("cli/x.rs", source),
        ["src/cli/x.rs:3: std::fs: only files/ touches the file system"]
    );
    assert!(broken("files/x.rs", source).is_empty());
    assert_eq!(
        broken("model/x.rs", source),
        [
            "src/model/x.rs:3: std::fs: only files/ touches the file system",
            "src/model/x.rs:5: Instant: the model reads no clock",
        ]
    );
}
