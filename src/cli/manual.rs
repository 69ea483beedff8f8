//! `power11 completions` and `power11 man`: generated from the clap definition, so they
//! cannot drift from the flags.

use super::UsageError;
use super::args::Cli;
use clap::{CommandFactory, ValueEnum};
use clap_complete::Shell;
use std::io::Write;

/// `power11 completions SHELL`: the completion script of every command and flag, for a shell
/// named as `clap_complete` names it (any case). An unknown name is a one-line usage error.
pub(super) fn print_completions(name: &str) -> anyhow::Result<()> {
    let shell = Shell::value_variants()
        .iter()
        .copied()
        .find(|shell| {
            shell
                .to_possible_value()
                .is_some_and(|value| value.matches(name, true))
        })
        .ok_or_else(|| {
            UsageError(format!(
                "unknown shell '{}': completions are for bash, elvish, fish, powershell and zsh",
                name.escape_debug()
            ))
        })?;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "power11", &mut script);
    write_stdout(&script)
}

/// `power11 man [COMMAND...]`: the manual page of power11, or of one of its commands
/// (`power11-bench(1)`, `power11-bench-merge(1)`, ...), the pages power11's own page lists.
pub(super) fn print_man_page(path: &[String]) -> anyhow::Result<()> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    // `bench merge` may come as one word, quoted, or as the page's name has it (`bench-merge`).
    let names = path.iter().flat_map(|word| word.split([' ', '-']));
    for name in names.filter(|name| !name.is_empty()) {
        let parent = command
            .get_display_name()
            .unwrap_or(command.get_name())
            .replace('-', " ");
        let commands: Vec<&str> = command
            .get_subcommands()
            .filter(|sub| !sub.is_hide_set())
            .map(clap::Command::get_name)
            .collect();
        let Some(sub) = command
            .get_subcommands()
            .find(|sub| !sub.is_hide_set() && sub.get_name() == name)
            .cloned()
        else {
            let known = if commands.is_empty() {
                "it has none".to_string()
            } else {
                format!("its commands: {}", commands.join(", "))
            };
            let message = format!(
                "{parent} has no command '{}' ({known})",
                name.escape_debug()
            );
            return Err(UsageError(message).into());
        };
        command = sub;
    }
    let title = command
        .get_display_name()
        .unwrap_or(command.get_name())
        .to_uppercase();
    let extra = command.get_after_help().map(ToString::to_string);
    let has_version = command.get_version().is_some();
    let has_subcommands = command.get_subcommands().next().is_some();
    let synopsis = synopsis(&command);
    let man = clap_mangen::Man::new(command)
        .title(title)
        .date(RELEASE_DATE)
        .source(concat!("power11 ", env!("CARGO_PKG_VERSION")))
        .manual("User Commands");
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    page.extend_from_slice(synopsis.as_bytes());
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    if has_subcommands {
        man.render_subcommands_section(&mut page)?;
    }
    // The help's closing text is laid out by hand (columns of examples): no-fill, not the
    // filled paragraph clap_mangen makes of it.
    if let Some(extra) = extra {
        page.extend_from_slice(b".SH \"KEYS, FILES AND EXAMPLES\"\n.nf\n");
        for line in extra.lines() {
            page.extend_from_slice(roff_line(line).as_bytes());
            page.push(b'\n');
        }
        page.extend_from_slice(b".fi\n");
    }
    page.extend_from_slice(EXIT_STATUS.as_bytes());
    if has_version {
        man.render_version_section(&mut page)?;
    }
    write_stdout(&page)
}

/// The SYNOPSIS section of `command`'s page, as manual pages write one and as `--help`'s usage
/// lines read: each option with the value it takes (`[--fill P]`; `clap_mangen`'s own leaves the
/// value out), then arguments by name, `...` after what may repeat, brackets around what may
/// be left out, and a line of its own for a command's commands. It also defines the `Aq`
/// string (a straight quote) that `clap_mangen`'s later sections use, as its own does.
fn synopsis(command: &clap::Command) -> String {
    let name = format!(
        "\\fB{}\\fR",
        roff_line(command.get_bin_name().unwrap_or(command.get_name()))
    );
    let mut items = vec![name.clone()];
    let (options, arguments): (Vec<&clap::Arg>, Vec<&clap::Arg>) = command
        .get_arguments()
        .filter(|arg| !arg.is_hide_set())
        .partition(|arg| !arg.is_positional());
    for arg in options.into_iter().chain(arguments) {
        let value = || {
            let names: Vec<String> = arg.get_value_names().map_or_else(
                || vec![arg.get_id().as_str().to_uppercase()],
                |names| names.iter().map(ToString::to_string).collect(),
            );
            let words: Vec<String> = names
                .iter()
                .map(|name| format!("\\fI{}\\fR", roff_line(name)))
                .collect();
            let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
            format!("{}{}", words.join(" "), if many { "..." } else { "" })
        };
        let flag = match (arg.get_short(), arg.get_long()) {
            (Some(short), Some(long)) => Some(format!(
                "\\fB\\-{short}\\fR|\\fB\\-\\-{}\\fR",
                roff_line(long)
            )),
            (Some(short), None) => Some(format!("\\fB\\-{short}\\fR")),
            (None, Some(long)) => Some(format!("\\fB\\-\\-{}\\fR", roff_line(long))),
            (None, None) => None,
        };
        let item = match flag {
            Some(flag) if arg.get_action().takes_values() => format!("{flag} {}", value()),
            Some(flag) => flag,
            None => value(),
        };
        items.push(if arg.is_required_set() {
            item
        } else {
            format!("[{item}]")
        });
    }
    let mut lines = items.join(" ");
    if command.get_subcommands().any(|sub| !sub.is_hide_set()) {
        lines = format!("{lines}\n.br\n{name} \\fICOMMAND\\fR");
    }
    format!(".SH SYNOPSIS\n{lines}\n.ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n")
}

/// What every page says of the exit codes (as docs/guide.md's "Exit codes" does).
const EXIT_STATUS: &str = ".SH \"EXIT STATUS\"
.TP
0
Success; also the end of the input at any prompt, and standard output closed early.
.TP
1
A failure while working (a file that cannot be written, say).
.TP
2
Bad arguments, flags that contradict each other, or a file named on the command line that cannot be used (refused before any work).
.TP
130
A second interrupt (Ctrl-C, SIGTERM or SIGHUP) while training, which ends it at once (the first stops it after the games in flight and writes the weights).
.TP
128 + N
Signal N (SIGHUP 1, SIGINT 2, SIGQUIT 3, SIGTERM 15) ended the full-screen mode, after it restored the terminal.
";

/// The date of this version's release, as its manual pages give it (and CHANGELOG.md, which a
/// test compares).
const RELEASE_DATE: &str = "2026-11-28";

/// One line of text as roff prints it verbatim: backslashes and hyphens escaped, and a line
/// that would start with a control character (`.` or `'`) guarded.
fn roff_line(line: &str) -> String {
    let escaped = line.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// Writes generated text to standard output (a closed pipe ends the program quietly, as
/// everywhere; any other failure is an error).
fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = super::StandardOutput::lock();
    out.write_all(bytes).and_then(|()| out.flush())?;
    Ok(())
}
