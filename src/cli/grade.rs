//! `power11 grade CLASS --out DIR`: a class folder graded by a rubric into the gradebook, its
//! progress on standard error (a line redrawn on a terminal, plain lines elsewhere), a table
//! of the class on standard output at the end. Run again, it goes on where it stopped.

use super::grading_args::GradeArgs;
use super::guard::{self, stopped, stopped_by};
use super::{StandardOutput, UsageError};
use crate::files::class::{make_folder, output_folder, read_small, real_folder, submissions};
use crate::files::save::write_atomic;
use crate::grading::rubric::{self, Rubric};
use crate::grading::scoring::{ItemSpec, Standing, StudentGrade};
use crate::grading::{Event, Grader, gradebook};
use crate::model::random::{mix, seeded};
use crate::model::rules::Rules;
use crate::players::AnyPlayer;
use crate::referee::scripts;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The most of a rubric read.
const MAX_RUBRIC: u64 = 1 << 20;

pub(super) fn run_grade(args: &GradeArgs) -> anyhow::Result<()> {
    if args.print_rubric {
        let mut out = StandardOutput::lock();
        out.write_all(rubric::default_text().as_bytes())?;
        out.flush()?;
        return Ok(());
    }
    let (Some(class), Some(out)) = (&args.class, &args.out) else {
        return Err(UsageError("give the class folder and --out DIR".to_string()).into());
    };
    let (mut rubric, mut rubric_text) = read_rubric(args.rubric.as_deref())?;
    if let Some(count) = args.scripts {
        rubric.scripts = count;
        let _ = write!(rubric_text, "\n# --scripts {count}\n");
    }
    if let Some(seed) = args.seed {
        rubric.seed = seed;
        let _ = write!(rubric_text, "\n# --seed {seed}\n");
    }
    let class = checked_class(class, out)?;
    let students = submissions(&class).map_err(|e| {
        UsageError(format!(
            "{}: cannot list the class: {}",
            crate::files::shown(&class),
            crate::files::system_words(&e)
        ))
    })?;
    if students.is_empty() {
        return Err(UsageError(format!(
            "{}: no submission in it (a folder, .zip, .tar.gz or .tgz a student)",
            crate::files::shown(&class)
        ))
        .into());
    }
    let out = output_folder(out).map_err(|e| {
        UsageError(format!(
            "--out {}: {}",
            crate::files::shown(out),
            crate::files::system_words(&e)
        ))
    })?;
    guard::stop_on_signals()?;
    let scripts = (0..rubric.scripts)
        .map(|index| {
            let mut rng = seeded(mix(rubric.seed ^ mix(index)));
            (index, scripts::generate(&mut rng))
        })
        .collect();
    let players = |size: usize| -> Result<AnyPlayer, String> { strongest(size) };
    let is_stopped = || stopped_by().is_some();
    let grading = Grader {
        rubric: &rubric,
        rubric_text: &rubric_text,
        out: out.clone(),
        covered: vec![class.clone(), out.clone()],
        jobs: args
            .jobs
            .map_or_else(crate::learning::cores, |j| usize::try_from(j).unwrap_or(1)),
        sandbox: !args.no_sandbox,
        memory: args.memory.0,
        fast: !args.key_by_key,
        scripts,
        players: &players,
        stopped: &is_stopped,
    };
    let started = Instant::now();
    let mut progress = Progress::new(students.len());
    let grades = grading.grade_class(&students, args.fresh, &mut |event| progress.show(event));
    progress.clear();
    crate::runner::release_groups();
    let specs = grading.items();
    let seconds = started.elapsed().as_secs_f64();
    write_gradebook(&out, &grades, &specs, &rubric, seconds)?;
    let mut stdout = StandardOutput::lock();
    stdout.write_all(table(&grades).as_bytes())?;
    writeln!(
        stdout,
        "gradebook: {} ({} students, {:.0} s)",
        crate::files::shown(&out.join("grades.csv")),
        grades.len(),
        seconds
    )?;
    stdout.flush()?;
    drop(stdout);
    if let Some(signal) = stopped_by() {
        let kept = grades
            .iter()
            .filter(|g| g.standing != Standing::NotGraded)
            .count();
        return Err(stopped(
            signal,
            &format!(
                "{kept} of {} submissions graded and kept (run the same command to go on)",
                grades.len()
            ),
        ));
    }
    Ok(())
}

/// The rubric `path` names, or the built-in one; with its text.
fn read_rubric(path: Option<&Path>) -> anyhow::Result<(Rubric, String)> {
    let Some(path) = path else {
        let text = rubric::default_text();
        return Ok((Rubric::default(), text));
    };
    let shown = crate::files::shown(path);
    let text = match read_small(path, MAX_RUBRIC) {
        Ok(Some(text)) => text,
        Ok(None) => return Err(UsageError(format!("{shown}: no such rubric")).into()),
        Err(why) => return Err(UsageError(format!("{shown}: {why}")).into()),
    };
    let rubric = rubric::parse(&text)
        .map_err(|e| UsageError(format!("{shown}:{}: {}", e.line, e.problem)))?;
    Ok((rubric, text))
}

/// The class folder, refused when it is not one or holds the output folder (which would be
/// graded as a student).
fn checked_class(class: &Path, out: &Path) -> anyhow::Result<PathBuf> {
    let shown = crate::files::shown(class);
    let class = real_folder(class)
        .map_err(|e| UsageError(format!("{shown}: {}", crate::files::system_words(&e))))?;
    let out_parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let out_real = real_folder(out)
        .or_else(|_| real_folder(out_parent).map(|p| p.join(out.file_name().unwrap_or_default())));
    if let Ok(real) = out_real
        && real.starts_with(&class)
    {
        return Err(UsageError(format!(
            "--out {} is inside the class folder, where it would be graded as a student: put it beside it",
            crate::files::shown(out)
        ))
        .into());
    }
    Ok(class)
}

/// power11's strongest player for a board of `size`.
fn strongest(size: usize) -> Result<AnyPlayer, String> {
    let rules = Rules::power11(size).map_err(|e| e.to_string())?;
    super::player::strongest(&rules, size).map_err(|e| format!("{e:#}"))
}

/// The gradebook's files in `out`, each written whole or not at all.
fn write_gradebook(
    out: &Path,
    grades: &[StudentGrade],
    specs: &[ItemSpec],
    rubric: &Rubric,
    seconds: f64,
) -> anyhow::Result<()> {
    let names: Vec<String> = specs.iter().map(ItemSpec::name).collect();
    let csv = gradebook::csv(grades, &names)?;
    make_folder(&out.join("results"))?;
    for grade in grades {
        let text = serde_json::to_string_pretty(&gradebook::gradescope(grade))? + "\n";
        write_atomic(
            &out.join("results").join(format!("{}.json", grade.student)),
            text.as_bytes(),
        )?;
    }
    let xml = gradebook::junit(
        grades,
        "power11 grade",
        "power11.grade",
        |g| g.student.clone(),
        seconds,
    );
    write_atomic(&out.join("class.xml"), xml.as_bytes())?;
    let json = serde_json::json!({
        "power11": env!("CARGO_PKG_VERSION"),
        "rubric": {
            "scripts": rubric.scripts,
            "seed": rubric.seed,
            "items": specs.iter().map(|s| serde_json::json!({
                "name": s.name(),
                "title": s.title(),
                "max": s.max,
            })).collect::<Vec<_>>(),
            "max": specs.iter().map(|s| s.max).sum::<f64>(),
        },
        "seconds": seconds,
        "stopped_by": stopped_by().and_then(crate::runner::signal_name),
        "students": grades,
    });
    write_atomic(
        &out.join("class.json"),
        (serde_json::to_string_pretty(&json)? + "\n").as_bytes(),
    )?;
    let name = out
        .file_name()
        .map_or_else(|| "class".to_string(), |n| n.to_string_lossy().into_owned());
    let index = crate::grading::feedback::index(&name, grades);
    write_atomic(&out.join("index.html"), index.as_bytes())?;
    // Last: the file a grader imports is there only with the rest beside it.
    write_atomic(&out.join("grades.csv"), csv.as_bytes())?;
    Ok(())
}

/// The class in words: a row a student, its points, how it fared, its first finding.
fn table(grades: &[StudentGrade]) -> String {
    let width = grades
        .iter()
        .map(|g| g.student.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(7, 32);
    let mut out = format!(
        "{:<width$}  {:>11}  {:<13}  first finding\n",
        "student", "points", "status"
    );
    for grade in grades {
        let name: String = grade
            .student
            .chars()
            .map(crate::text::visible)
            .take(width)
            .collect();
        let points = if grade.standing == Standing::NotGraded {
            format!("-/{}", gradebook::points(grade.max))
        } else {
            format!(
                "{}/{}",
                gradebook::points(grade.total),
                gradebook::points(grade.max)
            )
        };
        let first = grade.first_finding.as_deref().unwrap_or("");
        let first = cut(first, 100);
        let _ = writeln!(
            out,
            "{name:<width$}  {points:>11}  {:<13}  {first}",
            grade.standing.name()
        );
    }
    out
}

/// `text` in at most `width` characters, control characters shown, `…` where it is cut.
fn cut(text: &str, width: usize) -> String {
    let shown: String = crate::text::visible_text(text);
    match shown.char_indices().nth(width.saturating_sub(1)) {
        Some((at, _)) if shown.chars().count() > width => format!("{}…", &shown[..at]),
        _ => shown,
    }
}

/// The grading's progress on standard error: on a terminal one line redrawn (a bar of the
/// submissions done, the one being graded, time left); elsewhere a line a submission.
struct Progress {
    terminal: bool,
    of: usize,
    index: usize,
    name: String,
    started: Instant,
    /// Seconds spent on submissions graded now (not kept), and how many.
    spent: f64,
    graded: usize,
    drawn: bool,
}

impl Progress {
    fn new(of: usize) -> Progress {
        Progress {
            terminal: std::io::stderr().is_terminal(),
            of,
            index: 0,
            name: String::new(),
            started: Instant::now(),
            spent: 0.0,
            graded: 0,
            drawn: false,
        }
    }

    fn show(&mut self, event: Event<'_>) {
        let mut err = std::io::stderr().lock();
        match event {
            Event::Started { index, name, .. } => {
                self.index = index;
                self.name = crate::text::visible_text(name);
                self.started = Instant::now();
                self.draw(&mut err, "starting");
            }
            Event::Building => self.draw(&mut err, "building"),
            Event::Scripts { done, of } => self.draw(&mut err, &format!("scripts {done}/{of}")),
            Event::Playing(play) => self.draw(&mut err, &format!("playing {play}")),
            Event::Graded { grade, kept } => {
                if !kept {
                    self.spent += self.started.elapsed().as_secs_f64();
                    self.graded += 1;
                }
                let how = if kept { " (kept: unchanged)" } else { "" };
                let line = format!(
                    "[{}/{}] {}: {}/{} {}{how}",
                    self.index + 1,
                    self.of,
                    self.name,
                    gradebook::points(grade.total),
                    gradebook::points(grade.max),
                    grade.standing.name()
                );
                if self.terminal {
                    let _ = write!(err, "\r\x1b[2K{line}\n");
                    self.drawn = false;
                } else {
                    let _ = writeln!(err, "{line}");
                }
            }
        }
        let _ = err.flush();
    }

    /// The line redrawn on a terminal (nothing elsewhere): a bar, the submission, `doing`,
    /// and the time left at the pace so far.
    fn draw(&mut self, err: &mut impl Write, doing: &str) {
        const WIDTH: usize = 20;
        if !self.terminal {
            return;
        }
        let filled = (self.index * WIDTH) / self.of.max(1);
        let bar: String = "#".repeat(filled) + &"-".repeat(WIDTH - filled);
        let left = if self.graded > 0 {
            let each = self.spent / self.graded as f64;
            let seconds = each * (self.of - self.index) as f64;
            format!(
                ", about {} left",
                if seconds >= 90.0 {
                    format!("{:.0} min", seconds / 60.0)
                } else {
                    format!("{seconds:.0} s")
                }
            )
        } else {
            String::new()
        };
        let line = format!(
            "[{bar}] {}/{} {}: {doing}{left}",
            self.index + 1,
            self.of,
            self.name
        );
        let _ = write!(err, "\r\x1b[2K{}", cut(&line, 79));
        self.drawn = true;
    }

    fn clear(&mut self) {
        if self.drawn {
            let _ = write!(std::io::stderr(), "\r\x1b[2K");
            self.drawn = false;
        }
    }
}
