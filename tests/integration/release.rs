//! End-to-end tests of what a packager takes from the binary: shell completions
//! (`power11 completions SHELL`) and manual pages (`power11 man [COMMAND...]`).

use crate::common::{Run, run};
use std::process::Command;

/// Every subcommand and a few flags of each level, as a completion script must offer them.
const WORDS: &[&str] = &[
    "bench",
    "merge",
    "solve",
    "train",
    "completions",
    "man",
    "--variant",
    "--seed",
    "--tui",
    "--first-game",
    "--minutes",
    "--out",
];

#[test]
fn completions_of_every_shell_name_every_command_and_flag() {
    for shell in ["bash", "elvish", "fish", "powershell", "zsh"] {
        let ran = run(&["completions", shell], "");
        assert_eq!(ran.code, 0, "{shell}: {}", ran.stderr);
        assert_eq!(ran.stderr, "", "{shell}");
        for word in WORDS {
            // fish names a long flag `-l first-game`; the others write it whole.
            let bare = word.trim_start_matches('-');
            assert!(
                ran.stdout.contains(word)
                    || ran.stdout.contains(&format!("-l {bare}"))
                    || ran.stdout.contains(&format!("'{bare}'")),
                "{shell} completions lack {word}"
            );
        }
    }
}

#[test]
fn a_shell_name_is_read_in_any_case() {
    let lower = run(&["completions", "zsh"], "");
    let upper = run(&["completions", "ZSH"], "");
    assert_eq!(upper.code, 0);
    assert_eq!(upper.stdout, lower.stdout);
}

#[test]
fn the_bash_script_loads_and_registers_power11() {
    let run = Run::new();
    let script = run.path("power11.bash");
    let ran = run.run(&["completions", "bash"], "");
    std::fs::write(&script, ran.stdout).unwrap();
    // bash itself reads the script: no syntax error, and `complete` knows the command after.
    let output = Command::new("bash")
        .arg("-c")
        .arg("source \"$1\" && complete -p power11")
        .arg("bash")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("-F _power11 power11"), "{stdout}");
}

/// What bash offers for the words `words` (the last one being completed), through the script
/// `power11 completions bash` prints.
fn bash_offers(words: &[&str]) -> Vec<String> {
    let run = Run::new();
    let script = run.path("power11.bash");
    std::fs::write(&script, run.run(&["completions", "bash"], "").stdout).unwrap();
    let output = Command::new("bash")
        .arg("-c")
        .arg(
            "source \"$1\"; shift; COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); \
             _power11 power11 \"${@: -1}\" \"${@: -2:1}\"; printf '%s\\n' \"${COMPREPLY[@]}\"",
        )
        .arg("bash")
        .arg(&script)
        .args(words)
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Regression (hostile-user trial): completion offered no shell after `completions` and no page
/// after `man`, though both take only a few names.
#[test]
fn bash_completes_the_shells_and_the_pages() {
    let shells = bash_offers(&["power11", "completions", ""]);
    for shell in ["bash", "elvish", "fish", "powershell", "zsh"] {
        assert!(
            shells.iter().any(|s| s == shell),
            "{shell} not in {shells:?}"
        );
    }
    assert_eq!(
        bash_offers(&["power11", "completions", "po"]),
        ["powershell"]
    );
    let pages = bash_offers(&["power11", "man", ""]);
    for page in ["bench", "bench-merge", "solve", "train", "compact"] {
        assert!(pages.iter().any(|p| p == page), "{page} not in {pages:?}");
    }
    // The variants, as before.
    assert_eq!(bash_offers(&["power11", "--variant", "cl"]), ["classic"]);
}

#[test]
fn an_unknown_shell_is_one_line_and_exit_code_2() {
    let ran = run(&["completions", "nosuch"], "");
    assert_eq!(ran.code, 2);
    assert_eq!(ran.stdout, "");
    assert_eq!(
        ran.stderr,
        "power11: unknown shell 'nosuch': completions are for bash, elvish, fish, powershell \
         and zsh\n"
    );
}

#[test]
fn completions_need_a_shell() {
    let ran = run(&["completions"], "");
    assert_eq!(ran.code, 2);
    assert!(ran.stderr.contains("<SHELL>"), "{}", ran.stderr);
}

#[test]
fn the_manual_page_is_roff_with_every_flag_and_command() {
    let ran = run(&["man"], "");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let page = ran.stdout;
    let version = env!("CARGO_PKG_VERSION");
    assert!(
        page.contains(&format!(
            "\n.TH POWER11 1 {} \"power11 {version}\" \"User Commands\"\n",
            release_date()
        )),
        "{page}"
    );
    for section in [
        "NAME",
        "SYNOPSIS",
        "DESCRIPTION",
        "OPTIONS",
        "SUBCOMMANDS",
        "\"KEYS, FILES AND EXAMPLES\"",
        "\"EXIT STATUS\"",
        "VERSION",
    ] {
        assert!(page.contains(&format!("\n.SH {section}\n")), "{section}");
    }
    // Regression (hostile-user review): no page said what the exit codes mean.
    assert!(page.contains("\n.TP\n2\nBad arguments"), "{page}");
    // roff writes a flag's hyphens as `\-`.
    for flag in [
        "variant", "size", "goal", "spawn", "score", "fill", "seed", "board", "autoplay", "player",
        "weights", "tui", "color", "depth",
    ] {
        assert!(page.contains(&format!("\\fB\\-\\-{flag}\\fR")), "--{flag}");
    }
    for command in ["bench", "solve", "train", "completions", "man"] {
        assert!(
            page.contains(&format!("power11\\-{command}(1)")),
            "{command}"
        );
    }
    // The examples keep their columns (no-fill) and no line starts a roff request by accident.
    assert!(page.contains("\n.nf\n") && page.contains("\n.fi\n"));
    assert!(page.contains("power11 solve \\-\\-variant mini "));
}

#[test]
fn each_command_has_its_page() {
    for (path, title, flag) in [
        (&["bench"][..], "POWER11-BENCH", "first\\-game"),
        (&["bench", "merge"][..], "POWER11-BENCH-MERGE", "json"),
        // As the page's own name reads, quoted (`man "bench merge"`) or with a dash.
        (&["bench merge"][..], "POWER11-BENCH-MERGE", "json"),
        (&["bench-merge"][..], "POWER11-BENCH-MERGE", "json"),
        (&["solve"][..], "POWER11-SOLVE", "out"),
        (&["train"][..], "POWER11-TRAIN", "minutes"),
        (&["completions"][..], "POWER11-COMPLETIONS", "help"),
    ] {
        let args: Vec<&str> = std::iter::once("man").chain(path.iter().copied()).collect();
        let ran = run(&args, "");
        assert_eq!(ran.code, 0, "{path:?}: {}", ran.stderr);
        assert!(ran.stdout.contains(&format!(".TH {title} 1 ")), "{path:?}");
        assert!(ran.stdout.contains("\n.SH \"EXIT STATUS\"\n"), "{path:?}");
        assert!(
            ran.stdout.contains(&format!("\\fB\\-\\-{flag}\\fR")),
            "{path:?}"
        );
    }
}

#[test]
fn a_synopsis_names_the_value_each_option_takes_as_the_usage_does() {
    // Regression (hostile-user review): clap_mangen's synopsis read `[--fill]`, as if the
    // option took nothing.
    let synopsis = |path: &[&str]| {
        let args: Vec<&str> = std::iter::once("man").chain(path.iter().copied()).collect();
        let page = run(&args, "").stdout;
        let start = page.find("\n.SH SYNOPSIS\n").expect("a synopsis") + 14;
        let end = page[start..].find("\n.ie ").expect("its end") + start;
        page[start..end].to_string()
    };
    let top = synopsis(&[]);
    assert!(
        top.starts_with("\\fBpower11\\fR [\\fB\\-\\-variant\\fR \\fINAME\\fR] ")
            && top.contains(" [\\fB\\-\\-fill\\fR \\fIP\\fR] ")
            && top.contains(" [\\fB\\-\\-tui\\fR] ")
            && top.ends_with("\n.br\n\\fBpower11\\fR \\fICOMMAND\\fR"),
        "{top}"
    );
    // What must be given goes unbracketed; arguments after the options; `...` what repeats.
    assert!(
        synopsis(&["bench"]).starts_with(
            "\\fBpower11 bench\\fR \\fB\\-\\-player\\fR \\fIPLAYER\\fR [\\fB\\-\\-games\\fR \\fIN\\fR] "
        ),
        "{}",
        synopsis(&["bench"])
    );
    assert_eq!(
        synopsis(&["bench", "merge"]),
        "\\fBpower11 bench merge\\fR [\\fB\\-\\-plot\\fR \\fIFILE\\fR] [\\fB\\-\\-json\\fR] \
         [\\fB\\-h\\fR|\\fB\\-\\-help\\fR] \\fIREPORT\\fR..."
    );
}

#[test]
fn a_page_of_no_command_is_one_line_and_exit_code_2() {
    let ran = run(&["man", "nosuch"], "");
    assert_eq!((ran.code, ran.stdout.as_str()), (2, ""));
    assert_eq!(
        ran.stderr,
        "power11: power11 has no command 'nosuch' (its commands: bench, solve, train, \
         referee, grade, compact, completions, man)\n"
    );
    let ran = run(&["man", "bench", "split"], "");
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        "power11: power11 bench has no command 'split' (its commands: merge)\n"
    );
}

#[test]
fn the_manual_page_renders_with_man_where_it_is_installed() {
    let Ok(status) = Command::new("man").arg("--version").output() else {
        return; // no man on this machine: the roff checks above stand
    };
    if !status.status.success() {
        return;
    }
    let run = Run::new();
    let page = run.path("power11.1");
    std::fs::write(&page, run.run(&["man"], "").stdout).unwrap();
    let output = Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANWIDTH", "100")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(text.contains("POWER11(1)"), "{text}");
    assert!(
        text.contains("--first-game") || text.contains("--variant"),
        "{text}"
    );
}

/// The date of this version in CHANGELOG.md (`## [0.2.0] - 2026-11-26`), which the manual
/// pages must give.
pub(crate) fn release_date() -> String {
    let changelog = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("CHANGELOG.md"),
    )
    .unwrap();
    let heading = format!("## [{}] - ", env!("CARGO_PKG_VERSION"));
    let line = changelog
        .lines()
        .find(|line| line.starts_with(&heading))
        .unwrap_or_else(|| panic!("CHANGELOG.md has no '{heading}DATE' entry"));
    line[heading.len()..].trim().to_string()
}
