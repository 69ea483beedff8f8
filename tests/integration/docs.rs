//! The documentation's promises: the README stays short and names the two commands, every
//! relative link in the README, the changelog, ARCHITECTURE.md, `docs/` and `measurements/`
//! reaches a file (and the heading it names, if it names one), and every page of `docs/` is
//! linked from the README.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The repository's root.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The markdown pages whose links are checked.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = ["README.md", "CHANGELOG.md", "ARCHITECTURE.md"]
        .iter()
        .map(|name| root().join(name))
        .collect();
    for dir in ["docs", "measurements"] {
        let mut found: Vec<PathBuf> = fs::read_dir(root().join(dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
            .collect();
        found.sort();
        pages.extend(found);
    }
    pages
}

/// The lines of a markdown text outside fenced code blocks.
fn prose_lines(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// A line without its code spans (`` `...` ``), which hold no links.
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The targets of the inline links (`[text](target)`) of a markdown text.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose_lines(text) {
        let prose = without_code_spans(line);
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            found.push(after[..end].to_string());
            rest = &after[end + 1..];
        }
    }
    found
}

/// The anchors of a page's headings, as GitHub makes them: lower case, punctuation other than
/// `-` and `_` dropped, blanks made `-`, and `-1`, `-2`, ... after a repeated one.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut found = Vec::new();
    for line in prose_lines(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let heading = heading.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let count = seen.entry(slug.clone()).or_insert(0);
        found.push(if *count == 0 {
            slug.clone()
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    found
}

#[test]
fn the_readme_is_at_most_200_lines() {
    let lines = read(&root().join("README.md")).lines().count();
    assert!(lines <= 200, "README.md has {lines} lines");
}

#[test]
fn the_readme_names_the_two_commands_and_ci_runs_its_test_command() {
    let readme = read(&root().join("README.md"));
    assert!(readme.contains("cargo run --release"));
    assert!(readme.contains("\ncargo test "));
    let ci = read(&root().join(".ci/run"));
    assert!(ci.lines().any(|line| line == "cargo test"), "{ci}");
}

#[test]
fn every_relative_link_reaches_its_file_and_heading() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = read(&page);
        for link in links(&text) {
            if link.contains("://") || link.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if path.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(path)
            };
            let name = page.strip_prefix(root()).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{name}: {link}: no such file"));
                continue;
            }
            if !anchor.is_empty() {
                let has = target.extension().is_some_and(|ext| ext == "md")
                    && anchors(&read(&target)).iter().any(|a| a == anchor);
                if !has {
                    broken.push(format!("{name}: {link}: no such heading"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(
        checked > 50,
        "only {checked} links found: is the link reader broken?"
    );
}

#[test]
fn every_page_of_docs_is_linked_from_the_readme() {
    let readme = links(&read(&root().join("README.md")));
    for page in pages() {
        let name = page.strip_prefix(root()).unwrap();
        if name.starts_with("docs") {
            let name = name.to_str().unwrap();
            assert!(
                readme.iter().any(|link| link == name),
                "{name} is not linked from README.md"
            );
        }
    }
}

#[test]
fn the_link_reader_finds_links_and_anchors_as_github_does() {
    let text = "# The save file `power11.saved`\n## Keys\n## Keys\n\
                see [a](docs/a.md#keys) and `[not](a link)`\n```\n[nor](this)\n```\n";
    assert_eq!(links(text), ["docs/a.md#keys"]);
    assert_eq!(
        anchors(text),
        ["the-save-file-power11saved", "keys", "keys-1"]
    );
}
