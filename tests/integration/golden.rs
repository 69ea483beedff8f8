//! Golden transcripts: whole runs of the real binary whose complete output (stdout, stderr, exit
//! code, and the save file left behind) must not change by a byte. They pin the interface that
//! graders compare against; `fixtures/golden/NAME.txt` holds each case's expected transcript.
//!
//! To add a case, add it to `CASES`, run with `POWER11_BLESS=1` once, and read the new file
//! before committing it: a blessed transcript is only as good as the review it gets.

use crate::common::{Run, fixture_arg};
use std::fmt::Write as _;
use std::path::PathBuf;

/// One step: the arguments (`{F}` stands for the fixtures folder) and what is typed.
type Step = (&'static [&'static str], &'static str);

const CASES: &[(&str, &[Step])] = &[
    ("menu_quit", &[(&["--seed", "1"], "q\n")]),
    (
        "hard_game_moves_undo_advice",
        &[(
            &["--seed", "3"],
            "h\nl\nu\nr\nd\nb\na\nx\n\nup\nl\nl\nq\nq\n",
        )],
    ),
    (
        "easy_game_save_resume",
        &[
            (&["--seed", "4"], "e\nl\nu\nr\nd\nl\ns\nq\nq\n"),
            (&["--seed", "9"], "r\nb\nb\nb\na\nq\nq\n"),
        ],
    ),
    (
        "win_and_loss_from_boards",
        &[
            (&["--seed", "1", "--board", "{F}/near_win.txt"], "l\n\nq\n"),
            (
                &["--seed", "1", "--board", "{F}/near_loss.txt"],
                "l\nx\nq\n",
            ),
        ],
    ),
    (
        // The key after the one that ends a game answers its prompt, on the same line or the
        // next, as in the programs that read a key at a time: `lh` wins and goes back to the
        // menu, and the next line's `h` starts a new game.
        "end_of_game_keys",
        &[(
            &["--seed", "1", "--board", "{F}/near_win.txt"],
            "lh\nh\nq\nq\n",
        )],
    ),
    (
        "classic_keep_playing_best_score",
        &[
            (
                &[
                    "--variant",
                    "classic",
                    "--seed",
                    "2",
                    "--board",
                    "{F}/near_win.txt",
                ],
                "l\nk\nl\nu\nr\nd\nq\nq\n",
            ),
            (
                &["--variant", "classic", "--seed", "5"],
                "n\nl\nu\nq\nn\nq\nq\n",
            ),
        ],
    ),
    (
        "mini_game",
        &[(
            &["--variant", "mini", "--seed", "8"],
            "z\nn\nl\nu\nr\nd\nl\nu\na\nq\nq\n",
        )],
    ),
    (
        "edge_game_from_board",
        &[(
            &["--variant", "edge", "--board", "{F}/edge.txt"],
            "u\nl\nd\nr\nr\nu\nl\nd\nq\nq\n",
        )],
    ),
    (
        "size_6_game",
        &[(
            &["--size", "6", "--seed", "2", "--goal", "64"],
            "n\nl\nu\nr\nd\na\nq\nq\n",
        )],
    ),
    (
        "autoplay_random_hard",
        &[(&["--autoplay", "random", "--seed", "5"], "")],
    ),
    (
        "autoplay_random_edge",
        &[(
            &["--autoplay", "random", "--variant", "edge", "--seed", "2"],
            "",
        )],
    ),
    (
        "autoplay_expectimax_hard_depth_2",
        &[(
            &["--autoplay", "expectimax", "--seed", "1", "--depth", "2"],
            "",
        )],
    ),
    (
        "autoplay_expectimax_mini",
        &[(
            &[
                "--autoplay",
                "expectimax",
                "--variant",
                "mini",
                "--seed",
                "3",
            ],
            "",
        )],
    ),
    (
        "autoplay_expectimax_easy_depth_1",
        &[(
            &[
                "--autoplay",
                "expectimax",
                "--size",
                "5",
                "--seed",
                "2",
                "--depth",
                "1",
                "--max-moves",
                "150",
            ],
            "",
        )],
    ),
    (
        "autoplay_expectimax_6x6_edge",
        &[(
            &[
                "--autoplay",
                "expectimax",
                "--variant",
                "edge",
                "--size",
                "6",
                "--seed",
                "2",
                "--max-moves",
                "60",
            ],
            "",
        )],
    ),
    (
        "autoplay_expectimax_classic_keeps_playing",
        &[(
            &[
                "--autoplay",
                "expectimax",
                "--variant",
                "classic",
                "--board",
                "{F}/near_win.txt",
                "--seed",
                "4",
                "--depth",
                "1",
                "--max-moves",
                "40",
            ],
            "",
        )],
    ),
    (
        "autoplay_expectimax_twos_spawn_5x5",
        &[(
            &[
                "--autoplay",
                "expectimax",
                "--size",
                "5",
                "--spawn",
                "twos",
                "--goal",
                "128",
                "--seed",
                "6",
                "--max-moves",
                "150",
            ],
            "",
        )],
    ),
    (
        "bench_json",
        &[
            (
                &[
                    "bench", "--json", "--player", "random", "--games", "300", "--seed", "3",
                ],
                "",
            ),
            (
                &[
                    "bench",
                    "--json",
                    "--player",
                    "expectimax",
                    "--depth",
                    "2",
                    "--games",
                    "2",
                    "--seed",
                    "5",
                    "--max-moves",
                    "250",
                ],
                "",
            ),
            (
                &[
                    "bench",
                    "--json",
                    "--player",
                    "expectimax",
                    "--variant",
                    "mini",
                    "--games",
                    "2",
                    "--seed",
                    "2",
                    "--max-moves",
                    "150",
                ],
                "",
            ),
            (
                &[
                    "bench",
                    "--json",
                    "--player",
                    "expectimax",
                    "--size",
                    "5",
                    "--depth",
                    "1",
                    "--games",
                    "2",
                    "--seed",
                    "2",
                    "--max-moves",
                    "300",
                ],
                "",
            ),
            (
                &[
                    "bench",
                    "--json",
                    "--player",
                    "random",
                    "--variant",
                    "edge",
                    "--games",
                    "3",
                    "--seed",
                    "2",
                ],
                "",
            ),
        ],
    ),
    (
        "bad_files_and_arguments",
        &[
            (&["--board", "{F}/bad_tile.saved"], ""),
            (&["--board", "{F}/B1.txt", "--size", "5"], ""),
            (&["--goal", "3"], ""),
        ],
    ),
];

/// The transcript of one case: each step's exit code, stdout and stderr, then the save file.
fn transcript(steps: &[Step]) -> String {
    let run = Run::new();
    let fixtures = fixture_arg("");
    let fixtures = fixtures.trim_end_matches('/');
    let mut text = String::new();
    for (i, (args, input)) in steps.iter().enumerate() {
        let args: Vec<String> = args.iter().map(|a| a.replace("{F}", fixtures)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run.run(&args, *input);
        let stderr = ran.stderr.replace(fixtures, "{F}");
        let stdout = if args.first() == Some(&"bench") {
            without_timings(&ran.stdout)
        } else {
            ran.stdout
        };
        let _ = write!(
            text,
            "=== step {} exit {}\n{stdout}=== stderr\n{stderr}",
            i + 1,
            ran.code
        );
    }
    if let Ok(saved) = std::fs::read_to_string(run.path("power11.saved")) {
        let _ = write!(text, "=== power11.saved\n{saved}");
    }
    if let Ok(best) = std::fs::read_to_string(run.path("data/best-scores.txt")) {
        let _ = write!(text, "=== best-scores.txt\n{best}");
    }
    text
}

/// A bench JSON report without the figures that depend on the machine's speed and threads.
fn without_timings(json: &str) -> String {
    let mut report: serde_json::Value = serde_json::from_str(json).unwrap();
    let fields = report.as_object_mut().unwrap();
    for key in [
        "moves_per_second",
        "ms_per_move",
        "thread_seconds",
        "cpu_ms_per_move",
        "cpu_seconds",
        "seconds",
        "jobs",
    ] {
        fields.remove(key);
    }
    format!("{report}\n")
}

fn golden_path(name: &str) -> PathBuf {
    crate::common::fixture("golden").join(format!("{name}.txt"))
}

#[test]
fn golden_transcripts_are_unchanged() {
    let bless = std::env::var_os("POWER11_BLESS").is_some();
    // The cases run side by side: each is a few runs of the (unoptimised) binary.
    let results: Vec<(&str, String)> = std::thread::scope(|scope| {
        let handles: Vec<_> = CASES
            .iter()
            .map(|&(name, steps)| scope.spawn(move || (name, transcript(steps))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut changed = Vec::new();
    for (name, actual) in results {
        let path = golden_path(name);
        if bless {
            std::fs::write(&path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with POWER11_BLESS=1)", path.display()));
        if actual != expected {
            let line = actual
                .lines()
                .zip(expected.lines())
                .position(|(a, e)| a != e)
                .unwrap_or_else(|| actual.lines().count().min(expected.lines().count()));
            changed.push(format!("{name}: first difference at line {}", line + 1));
        }
    }
    assert!(
        changed.is_empty(),
        "transcripts changed:\n{}",
        changed.join("\n")
    );
}
