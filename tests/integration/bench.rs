//! `bench --first-game` and `bench merge`: a long run split into parts adds up to the run.

use crate::common::{Run, fixture_arg};

/// The fields of a report that depend on the machine's speed and threads, not on the games.
const TIMINGS: [&str; 7] = [
    "moves_per_second",
    "ms_per_move",
    "thread_seconds",
    "cpu_ms_per_move",
    "cpu_seconds",
    "seconds",
    "jobs",
];

fn without_timings(json: &str) -> serde_json::Value {
    let mut report: serde_json::Value = serde_json::from_str(json).unwrap();
    for key in TIMINGS {
        report.as_object_mut().unwrap().remove(key);
    }
    report
}

/// Runs `power11 args` in `run`, asserting success, and returns stdout.
fn ok(run: &Run, args: &[&str]) -> String {
    let ran = run.run(args, "");
    assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
    ran.stdout
}

/// The JSON report `name` in the run's directory.
fn read_report(run: &Run, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.path(name)).unwrap()).unwrap()
}

/// Writes `power11 bench --json ARGS` to `name` in the run's directory.
fn part(run: &Run, name: &str, args: &[&str]) {
    let mut all = vec!["bench", "--json"];
    all.extend_from_slice(args);
    std::fs::write(run.path(name), ok(run, &all)).unwrap();
}

const EXPECTIMAX: [&str; 8] = [
    "--player",
    "expectimax",
    "--depth",
    "1",
    "--goal",
    "256",
    "--seed",
    "11",
];

#[test]
fn parts_of_a_run_merge_into_the_whole_run() {
    let run = Run::new();
    let with = |extra: &[&'static str]| [&EXPECTIMAX[..], extra].concat();
    part(&run, "whole.json", &with(&["--games", "9"]));
    part(&run, "a.json", &with(&["--games", "4", "--jobs", "1"]));
    part(
        &run,
        "b.json",
        &with(&["--first-game", "4", "--games", "5", "--jobs", "2"]),
    );
    // In either order, the merge is the whole run's report, to the last count and seed.
    for order in [["a.json", "b.json"], ["b.json", "a.json"]] {
        let merged = ok(&run, &["bench", "merge", "--json", order[0], order[1]]);
        let whole = std::fs::read_to_string(run.path("whole.json")).unwrap();
        assert_eq!(
            without_timings(&merged),
            without_timings(&whole),
            "{order:?}"
        );
    }
    // A merged report merges again, and the text summary says it is the whole run.
    std::fs::write(
        run.path("ab.json"),
        ok(&run, &["bench", "merge", "--json", "a.json", "b.json"]),
    )
    .unwrap();
    part(
        &run,
        "c.json",
        &with(&["--first-game", "9", "--games", "3"]),
    );
    let text = ok(&run, &["bench", "merge", "ab.json", "c.json"]);
    assert!(text.contains("\ngames: 12  wins: "), "{text}");
    assert!(!text.contains("(games "), "no gap to show: {text}");
}

/// `-` names standard input, as in most command-line programs: a part played elsewhere can be
/// piped in (`ssh host power11 bench --json ... | power11 bench merge - local.json`). It holds
/// one report, so it may be named once.
#[test]
fn a_report_can_come_from_standard_input() {
    let run = Run::new();
    let with = |extra: &[&'static str]| [&EXPECTIMAX[..], extra].concat();
    part(&run, "whole.json", &with(&["--games", "6"]));
    part(&run, "a.json", &with(&["--games", "2"]));
    part(
        &run,
        "b.json",
        &with(&["--first-game", "2", "--games", "4"]),
    );
    let piped = std::fs::read_to_string(run.path("b.json")).unwrap();
    let ran = run.run(&["bench", "merge", "--json", "a.json", "-"], piped.clone());
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    let whole = std::fs::read_to_string(run.path("whole.json")).unwrap();
    assert_eq!(without_timings(&ran.stdout), without_timings(&whole));
    let ran = run.run(&["bench", "merge", "-", "-"], piped);
    assert_eq!(
        (ran.code, ran.stderr.as_str()),
        (
            2,
            "power11: - (standard input) is given twice: each game may be counted once\n"
        )
    );
    let ran = run.run(&["bench", "merge", "a.json", "-"], "not json");
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr
            .starts_with("power11: - (standard input):1:2: not a power11 bench --json report"),
        "{}",
        ran.stderr
    );
}

#[test]
fn merged_parts_with_a_gap_say_which_games_they_hold() {
    let run = Run::new();
    let args = ["--player", "random", "--seed", "3", "--games", "5"];
    part(&run, "a.json", &args);
    part(
        &run,
        "c.json",
        &[&args[..], &["--first-game", "10"]].concat(),
    );
    let merged = ok(&run, &["bench", "merge", "--json", "a.json", "c.json"]);
    let report: serde_json::Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(report["games"], 10);
    assert_eq!(report["game_ranges"], serde_json::json!([[0, 5], [10, 15]]));
    let text = ok(&run, &["bench", "merge", "a.json", "c.json"]);
    assert!(
        text.contains("\ngames: 10 (games 0..5, 10..15)  wins: 0 (0.0%, 95% interval 0.0-27.8%)\n"),
        "{text}"
    );
}

#[test]
fn first_game_plays_the_same_games_as_the_whole_run() {
    // Game 7 alone is game 7 of the run: its score is among the whole run's, and its seed is
    // the one the whole run lists for it.
    let run = Run::new();
    let args = ["--player", "random", "--seed", "5"];
    part(&run, "whole.json", &[&args[..], &["--games", "8"]].concat());
    part(
        &run,
        "seventh.json",
        &[&args[..], &["--games", "1", "--first-game", "7"]].concat(),
    );
    let read = |name: &str| read_report(&run, name);
    let (whole, seventh) = (read("whole.json"), read("seventh.json"));
    assert_eq!(seventh["game_ranges"], serde_json::json!([[7, 8]]));
    assert_eq!(seventh["unwon_games"], serde_json::json!([7]));
    assert_eq!(whole["unwon_seeds"][7], seventh["unwon_seeds"][0]);
    let score = seventh["max_score"].to_string();
    assert!(whole["score_counts"].get(&score).is_some(), "{score}");
}

#[test]
fn reports_that_cannot_merge_are_refused_with_the_file_and_the_reason() {
    let run = Run::new();
    let args = ["--player", "random", "--games", "3"];
    part(&run, "s1.json", &[&args[..], &["--seed", "1"]].concat());
    part(&run, "s2.json", &[&args[..], &["--seed", "2"]].concat());
    part(
        &run,
        "mini.json",
        &[&args[..], &["--seed", "1", "--variant", "mini"]].concat(),
    );
    part(
        &run,
        "s1b.json",
        &[&args[..], &["--seed", "1", "--first-game", "2"]].concat(),
    );
    std::fs::write(run.path("text.json"), "player random\n").unwrap();
    let whole = std::fs::read_to_string(run.path("s1.json")).unwrap();
    std::fs::write(
        run.path("edited.json"),
        whole.replacen("\"games\":3", "\"games\":4", 1),
    )
    .unwrap();
    // Hand edits that keep the totals but break what the counts say about each other.
    let edit = |name: &str, from: &str, to: &str| {
        assert!(whole.contains(from), "{from}");
        std::fs::write(run.path(name), whole.replacen(from, to, 1)).unwrap();
    };
    edit(
        "unwon.json",
        "\"unwon_games\":[0,1,2]",
        "\"unwon_games\":[2,2,2]",
    );
    edit(
        "player.json",
        "\"player\":\"random\"",
        "\"player\":\"bogus\"",
    );
    edit("wins.json", "\"wins\":0", "\"wins\":2");
    // Regression (hostile-user trial): a learned player's report without its network was
    // said to have "a network for the learned player", as if it had one too many.
    edit(
        "learned.json",
        "\"player\":\"random\"",
        "\"player\":\"learned\"",
    );
    // Regression (hostile-user trial): settings that contradict each other were summed: a run
    // on 0 threads, rules in words for another board, more CPU time than the threads had.
    let jobs = whole
        .split("\"jobs\":")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap();
    edit("jobs.json", &format!("\"jobs\":{jobs}"), "\"jobs\":0");
    edit("size.json", "\"size\":4", "\"size\":5");

    // Figures a report derives from its counts, edited so that they no longer follow from them.
    let derived = |name: &str, field: &str, value: serde_json::Value| {
        let mut report: serde_json::Value = serde_json::from_str(&whole).unwrap();
        assert_ne!(report[field], value, "{field}");
        report[field] = value;
        std::fs::write(run.path(name), report.to_string()).unwrap();
    };
    let report: serde_json::Value = serde_json::from_str(&whole).unwrap();
    let top = report["max_score"].as_u64().unwrap();
    derived("top.json", "max_score", (top + 4).into());
    let mut reached = report["reached_counts"].clone();
    let (tile, count) = reached.as_object().unwrap().iter().next_back().unwrap();
    let (tile, count) = (tile.clone(), count.as_u64().unwrap());
    reached[&tile] = (count + 1).into();
    derived("reached.json", "reached_counts", reached);
    if report["cpu_seconds"].is_number() {
        derived("cpu.json", "cpu_seconds", 1e9.into());
        let ran = run.run(&["bench", "merge", "cpu.json"], "");
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(
            ran.stderr
                .starts_with("power11: cpu.json: a damaged report: 1000000000 s of CPU time in "),
            "{}",
            ran.stderr
        );
    }
    // A file larger than any report is refused before it is read.
    std::fs::File::create(run.path("huge.json"))
        .unwrap()
        .set_len(power11::bench::MAX_REPORT_BYTES + 1)
        .unwrap();
    std::fs::write(run.path("bom.json"), format!("\u{feff}{whole}")).unwrap();
    let good = fixture_arg("good.saved");
    let top_message = format!(
        "power11: top.json: a damaged report: max_score is {}, but the highest of score_counts is {top}\n",
        top + 4
    );
    for (files, message) in [
        (
            &["s1.json", "s2.json"][..],
            "power11: s1.json and s2.json are not parts of one run: different seed (1 / 2)\n",
        ),
        (
            &["s1.json", "mini.json"],
            "power11: s1.json and mini.json are not parts of one run: different variant (power11 / mini)\n",
        ),
        (
            &["s1.json", "s1b.json"],
            "power11: s1.json and s1b.json both hold game 2: each game may be counted once\n",
        ),
        (
            &["s1.json", "text.json"],
            "power11: text.json:1:1: not a power11 bench --json report: expected value\n",
        ),
        (
            &["edited.json"],
            "power11: edited.json: a damaged report: game_ranges hold 3 games, not 4\n",
        ),
        (
            &["s1.json", "s1.json"],
            "power11: s1.json is given twice: each game may be counted once\n",
        ),
        (
            &["unwon.json"],
            "power11: unwon.json: a damaged report: unwon_games should list the first 3 games not won, in order, within game_ranges\n",
        ),
        (
            &["player.json"],
            "power11: player.json: a damaged report: no player is called \"bogus\"\n",
        ),
        (
            &["wins.json"],
            "power11: wins.json: a damaged report: 2 wins, but 0 games reached the goal\n",
        ),
        (
            &["jobs.json"],
            "power11: jobs.json: a damaged report: a run on 0 threads\n",
        ),
        (
            &["size.json"],
            "power11: size.json: a damaged report: rules \"power11 4x4, goal 2048, spawn random, score merges, start 2 tile(s) of 2 or 4\" for a power11 game on 5x5\n",
        ),
        (
            &["learned.json"],
            "power11: learned.json: a damaged report: no network for the learned player (its reports always name one)\n",
        ),
        (&["top.json"], top_message.as_str()),
        (
            &["reached.json"],
            "power11: reached.json: a damaged report: reached_counts do not follow from max_tile_counts\n",
        ),
        (
            &["s1.json", "huge.json"],
            "power11: huge.json: larger than any bench report can be (64 MiB)\n",
        ),
        (
            &["s1.json", "missing.json"],
            "power11: missing.json: no such file\n",
        ),
    ] {
        let mut all = vec!["bench", "merge"];
        all.extend_from_slice(files);
        let ran = run.run(&all, "");
        assert_eq!((ran.code, ran.stdout.as_str()), (2, ""), "{files:?}");
        assert_eq!(ran.stderr, message, "{files:?}");
    }
    // Nor is an endless stream: it is read only as far as a report can go.
    if cfg!(unix) {
        let ran = run.run(&["bench", "merge", "/dev/zero"], "");
        assert_eq!(ran.code, 2);
        assert_eq!(
            ran.stderr,
            "power11: /dev/zero: larger than any bench report can be (64 MiB)\n"
        );
    }
    // Regression (hostile-user review): a directory said only "Is a directory (os error 21)".
    std::fs::create_dir(run.path("reports")).unwrap();
    let ran = run.run(&["bench", "merge", "reports"], "");
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        "power11: reports: a directory, not a bench report (name the reports in it: reports/*.json)\n"
    );
    // A save file is not a report either; the message names the file.
    let ran = run.run(&["bench", "merge", &good], "");
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.starts_with(&format!("power11: {good}:1:")),
        "{}",
        ran.stderr
    );
    // A byte-order mark is not damage.
    assert_eq!(
        ok(&run, &["bench", "merge", "bom.json"]),
        ok(&run, &["bench", "merge", "s1.json"])
    );
    // The refused files are left as they were.
    assert_eq!(std::fs::read_to_string(run.path("s1.json")).unwrap(), whole);
}

#[test]
fn first_game_needs_a_seed_and_room() {
    let run = Run::new();
    let ran = run.run(&["bench", "--player", "random", "--first-game", "3"], "");
    assert_eq!(ran.code, 2);
    assert!(ran.stderr.contains("--seed <N>"), "{}", ran.stderr);
    let ran = run.run(
        &[
            "bench",
            "--player",
            "random",
            "--seed",
            "1",
            "--first-game",
            "18446744073709551615",
            "--games",
            "2",
        ],
        "",
    );
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        "power11: --first-game 18446744073709551615 plus --games 2 is past the last game\n"
    );
}

#[test]
fn a_time_budget_is_part_of_what_a_report_measured() {
    let run = Run::new();
    let args = [
        "--player",
        "expectimax",
        "--seed",
        "4",
        "--games",
        "1",
        "--max-moves",
        "20",
    ];
    part(
        &run,
        "budget.json",
        &[&args[..], &["--ms-per-move", "3"]].concat(),
    );
    part(
        &run,
        "policy.json",
        &[&args[..], &["--first-game", "1"]].concat(),
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.path("budget.json")).unwrap()).unwrap();
    assert_eq!(report["time_budget_ms"], 3);
    assert_eq!(report["attempts"], 20);
    let ran = run.run(&["bench", "merge", "budget.json", "policy.json"], "");
    assert_eq!(ran.code, 2);
    assert_eq!(
        ran.stderr,
        "power11: budget.json and policy.json are not parts of one run: different time budget (3 ms / none)\n"
    );
    let text = ok(&run, &["bench", "merge", "budget.json"]);
    assert!(
        text.starts_with("player expectimax at 3 ms/move, variant power11"),
        "{text}"
    );
}

#[test]
fn a_time_budget_and_a_fixed_depth_exclude_each_other() {
    let run = Run::new();
    for args in [
        &[
            "bench",
            "--player",
            "expectimax",
            "--depth",
            "2",
            "--ms-per-move",
            "5",
        ][..],
        &[
            "--autoplay",
            "expectimax",
            "--depth",
            "2",
            "--ms-per-move",
            "5",
        ],
        &["--ms-per-move", "5"],
        &["bench", "--player", "expectimax", "--ms-per-move", "0"],
        &["bench", "--player", "random", "--ms-per-move", "5"],
        &["bench", "--player", "random", "--depth", "3"],
        &["--autoplay", "random", "--ms-per-move", "5"],
    ] {
        let ran = run.run(args, "");
        assert_eq!((ran.code, ran.stdout.as_str()), (2, ""), "{args:?}");
        // clap's own refusals start with "error: "; ours name the player.
        assert!(
            ran.stderr.starts_with("error: ") || ran.stderr.ends_with("player does not search\n"),
            "{args:?}: {}",
            ran.stderr
        );
    }
    // The message names every player that takes --depth (it named the expectimax one only).
    let ran = run.run(&["bench", "--player", "random", "--depth", "3"], "");
    assert_eq!(
        ran.stderr,
        "power11: --depth and --ms-per-move tune the expectimax player's search (--depth the learned player's too); the random player does not search\n"
    );
}

#[test]
fn autoplay_with_a_time_budget_plays_whole_moves() {
    let ran = Run::new().run(
        &[
            "--autoplay",
            "expectimax",
            "--seed",
            "2",
            "--ms-per-move",
            "2",
            "--max-moves",
            "15",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout.matches("\nMove: ").count() + usize::from(ran.stdout.starts_with("Move: ")),
        15
    );
}

#[test]
fn parts_of_other_searches_or_with_absurd_totals_do_not_merge() {
    let run = Run::new();
    let args = ["--player", "random", "--seed", "6", "--games", "2"];
    part(&run, "a.json", &args);
    part(
        &run,
        "b.json",
        &[&args[..], &["--first-game", "2"]].concat(),
    );
    part(
        &run,
        "limit.json",
        &[&args[..], &["--first-game", "4", "--max-moves", "50"]].concat(),
    );
    let edit = |from: &str, to: &str, change: &dyn Fn(&mut serde_json::Value)| {
        let text = std::fs::read_to_string(run.path(from)).unwrap();
        let mut report: serde_json::Value = serde_json::from_str(&text).unwrap();
        change(&mut report);
        std::fs::write(run.path(to), report.to_string()).unwrap();
    };
    // A report from before search revisions were recorded reads as revision 0.
    edit("b.json", "old.json", &|r| {
        r.as_object_mut().unwrap().remove("search_revision");
    });
    let huge = |r: &mut serde_json::Value| {
        r["moves"] = serde_json::json!(u64::MAX);
        r["attempts"] = serde_json::json!(u64::MAX);
    };
    edit("a.json", "huge_a.json", &huge);
    edit("b.json", "huge_b.json", &huge);
    // Regression (hostile users, round 4): two parts of 9e8 s each, each within a report's
    // limit, were merged into a report of 1.8e9 s that `bench merge` then refused as damaged.
    let long = |r: &mut serde_json::Value| r["seconds"] = serde_json::json!(9e8);
    edit("a.json", "long_a.json", &long);
    edit("b.json", "long_b.json", &long);
    let revision = power11::players::SEARCH_REVISION;
    for (files, message) in [
        (
            ["a.json", "old.json"],
            format!(
                "power11: a.json and old.json are not parts of one run: different search revision ({revision} / 0)\n"
            ),
        ),
        (
            ["a.json", "limit.json"],
            "power11: a.json and limit.json are not parts of one run: different max_moves (10000000 / 50)\n"
                .to_string(),
        ),
        (
            ["huge_a.json", "huge_b.json"],
            "power11: the reports add up to more moves or seconds than a report holds (at most 1e9 s)\n".to_string(),
        ),
        (
            ["long_a.json", "long_b.json"],
            "power11: the reports add up to more moves or seconds than a report holds (at most 1e9 s)\n".to_string(),
        ),
    ] {
        let ran = run.run(&["bench", "merge", files[0], files[1]], "");
        assert_eq!((ran.code, ran.stdout.as_str()), (2, ""), "{files:?}");
        assert_eq!(ran.stderr, message, "{files:?}");
    }
}

#[test]
fn a_move_limit_that_a_game_just_reaches_does_not_cut_it_off() {
    // A random game that ends by the rules after A attempts, replayed with a limit of exactly
    // A: the same game, over by the rules, not cut off by the limit.
    let run = Run::new();
    let args = ["--player", "random", "--seed", "3", "--games", "1"];
    let free: serde_json::Value =
        serde_json::from_str(&ok(&run, &[&["bench", "--json"][..], &args[..]].concat())).unwrap();
    assert_eq!(free["cut_off"], 0);
    let attempts = free["attempts"].as_u64().unwrap().to_string();
    let limited = ok(
        &run,
        &[
            &["bench", "--json"][..],
            &args[..],
            &["--max-moves", &attempts],
        ]
        .concat(),
    );
    // The same report but for the limit it names.
    let (mut limited, mut free_games) = (
        without_timings(&limited),
        without_timings(&free.to_string()),
    );
    for report in [&mut limited, &mut free_games] {
        report.as_object_mut().unwrap().remove("max_moves");
    }
    assert_eq!(limited, free_games);
    // One attempt fewer is a cut-off.
    let fewer = (free["attempts"].as_u64().unwrap() - 1).to_string();
    let cut: serde_json::Value = serde_json::from_str(&ok(
        &run,
        &[
            &["bench", "--json"][..],
            &args[..],
            &["--max-moves", &fewer],
        ]
        .concat(),
    ))
    .unwrap();
    assert_eq!(cut["cut_off"], 1);
}

#[test]
fn reports_give_cpu_time_per_move_and_a_merge_keeps_it_only_if_every_part_has_it() {
    let run = Run::new();
    let args = ["--player", "random", "--seed", "4", "--games", "20"];
    part(&run, "a.json", &args);
    part(
        &run,
        "b.json",
        &[&args[..], &["--first-game", "20"]].concat(),
    );
    let read = |name: &str| read_report(&run, name);
    let text = ok(&run, &["bench", "merge", "a.json", "b.json"]);
    if cfg!(target_os = "linux") {
        let (a, b) = (read("a.json"), read("b.json"));
        let cpu = |r: &serde_json::Value| r["cpu_seconds"].as_f64().unwrap();
        let merged: serde_json::Value =
            serde_json::from_str(&ok(&run, &["bench", "merge", "--json", "a.json", "b.json"]))
                .unwrap();
        assert!((cpu(&merged) - cpu(&a) - cpu(&b)).abs() < 1e-9, "{merged}");
        assert!(merged["cpu_ms_per_move"].as_f64().unwrap() > 0.0);
        assert!(text.contains(" ms/move of CPU time)\n"), "{text}");
    }
    // A report written before CPU time was measured merges, and the whole has none.
    let mut old = read("b.json");
    let fields = old.as_object_mut().unwrap();
    fields.remove("cpu_seconds");
    fields.remove("cpu_ms_per_move");
    std::fs::write(run.path("old.json"), old.to_string()).unwrap();
    let merged = ok(&run, &["bench", "merge", "--json", "a.json", "old.json"]);
    assert!(!merged.contains("cpu"), "{merged}");
    let text = ok(&run, &["bench", "merge", "a.json", "old.json"]);
    assert!(!text.contains("CPU"), "{text}");
    assert!(text.contains("\ngames: 40  wins: "), "{text}");
}

/// Shapes in `svg` filled with `color` (`#RRGGBB`): the bars of a chart.
fn filled(svg: &str, color: &str) -> usize {
    svg.split("<rect")
        .skip(1)
        .filter(|r| {
            r.split('>')
                .next()
                .unwrap_or("")
                .contains(&format!("fill=\"{color}\""))
        })
        .count()
}

#[test]
fn plot_draws_the_reach_rates_with_intervals_and_the_scores() {
    let run = Run::new();
    let report = ok(
        &run,
        &[
            "bench", "--player", "random", "--games", "40", "--seed", "2", "--json", "--plot",
            "r.svg",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    let svg = std::fs::read_to_string(run.path("r.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // A bar a tile reached, and a whisker for each (four strokes: the interval, its two caps,
    // the mark at its middle).
    let tiles = report["reached_counts"].as_object().unwrap().len();
    assert!(tiles >= 3, "{report}");
    assert_eq!(filled(&svg, "#4682B4"), tiles, "bars");
    let whiskers = svg.matches("stroke=\"#C81E1E\"").count();
    assert_eq!(whiskers, 4 * tiles, "whiskers");
    // A bar a band of scores that some game ended in, holding every game.
    let bands = filled(&svg, "#3CA05A");
    assert!((2..=30).contains(&bands), "{bands}");
    assert!(svg.contains("random on power11: 40 games"), "title");
    // Drawn again over its own picture; never over another file.
    std::fs::write(run.path("notes.svg"), "my notes").unwrap();
    let ran = run.run(
        &[
            "bench",
            "--player",
            "random",
            "--games",
            "2",
            "--plot",
            "notes.svg",
        ],
        "",
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("notes.svg: not an SVG picture; it is left alone")
    );
    assert_eq!(
        std::fs::read_to_string(run.path("notes.svg")).unwrap(),
        "my notes"
    );
    ok(
        &run,
        &[
            "bench", "--player", "random", "--games", "2", "--plot", "r.svg",
        ],
    );
    // `bench merge` draws the whole run.
    let random = [
        "--player",
        "random",
        "--seed",
        "2",
        "--games",
        "10",
        "--first-game",
    ];
    part(&run, "a.json", &[&random[..], &["0"]].concat());
    part(&run, "b.json", &[&random[..], &["10"]].concat());
    ok(
        &run,
        &["bench", "merge", "a.json", "b.json", "--plot", "m.svg"],
    );
    let merged = std::fs::read_to_string(run.path("m.svg")).unwrap();
    assert!(merged.contains("20 games"), "merged title");
}

#[test]
fn plot_never_draws_over_a_page_that_only_mentions_svg_and_says_what_it_cannot_use_up_front() {
    let run = Run::new();
    let plot = |name: &str| {
        run.run(
            &[
                "bench", "--player", "random", "--games", "2", "--seed", "1", "--plot", name,
            ],
            "",
        )
    };
    // A page or notes with an <svg> inside are not pictures of ours, whatever their name.
    let page = "<html><body><svg width=\"10\"></svg><p>my work</p></body></html>\n";
    let notes = "Remember: embed icons with <svg> tags.\n";
    for (name, text) in [("page.svg", page), ("notes.svg", notes)] {
        std::fs::write(run.path(name), text).unwrap();
        let ran = plot(name);
        assert_eq!(ran.code, 2, "{name}: {}", ran.stderr);
        assert!(ran.stderr.contains("not an SVG picture"), "{}", ran.stderr);
        assert_eq!(std::fs::read_to_string(run.path(name)).unwrap(), text);
    }
    // Regression (hostile-user trial, round 4): a device or a FIFO at the name was called
    // "not an SVG picture"; it is refused for what it is, as every other output is.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/dev/full", run.path("full.svg")).unwrap();
        let ran = plot("full.svg");
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(
            ran.stderr.contains(
                "full.svg: not a regular file; it is left alone (choose a file to draw in)"
            ),
            "{}",
            ran.stderr
        );
    }
    // Regression: someone's own SVG picture was drawn over. It is a picture (an XML
    // declaration, a comment or a doctype may come first) but not one of ours: left alone.
    let svg = "<?xml version=\"1.0\"?>\n<!-- drawn -->\n<!DOCTYPE svg>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"4\"/></svg>\n";
    std::fs::write(run.path("logo.svg"), svg).unwrap();
    let ran = plot("logo.svg");
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "power11: logo.svg: an SVG picture that power11 did not draw; it is left alone (choose \
         another file to draw in)\n"
    );
    assert_eq!(std::fs::read_to_string(run.path("logo.svg")).unwrap(), svg);
    // Ours, from this version (its mark) or an earlier one (its title), is drawn over.
    // A picture power11 0.3.1 drew, before the mark.
    let earlier = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("measurements/shipped4/classic-d2.svg"),
    )
    .unwrap();
    assert!(!earlier.contains("drawn by power11"));
    // Someone's figure made from it, with a declaration first (an editor's), is theirs.
    let figure = format!("<?xml version=\"1.0\"?>\n{earlier}");
    std::fs::write(run.path("figure.svg"), &figure).unwrap();
    assert_eq!(plot("figure.svg").code, 2);
    assert_eq!(
        std::fs::read_to_string(run.path("figure.svg")).unwrap(),
        figure
    );
    std::fs::write(run.path("old.svg"), earlier).unwrap();
    let ran = plot("old.svg");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let drawn = std::fs::read_to_string(run.path("old.svg")).unwrap();
    assert!(drawn.contains("2 games") && drawn.contains("<!-- drawn by power11 -->"));
    let ran = plot("old.svg");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Regression (hostile-user review): an empty file (`touch`, `mktemp --suffix .svg`) holds
    // nothing to lose, and is drawn in; a directory is named as one.
    for empty in ["", "\n \n"] {
        std::fs::write(run.path("empty.svg"), empty).unwrap();
        let ran = plot("empty.svg");
        assert_eq!((ran.code, ran.stderr.as_str()), (0, ""), "{empty:?}");
        let drawn = std::fs::read_to_string(run.path("empty.svg")).unwrap();
        assert!(drawn.contains("2 games"), "{empty:?}: {drawn}");
    }
    std::fs::create_dir(run.path("pictures")).unwrap();
    let ran = plot("pictures");
    ran.assert_refused("pictures: a directory; name a file in it to draw in (pictures/plot.svg)");
    // Regression (hostile-user review): `--plot r.png` wrote an SVG document under a PNG's
    // name. A name is refused when its extension promises another format.
    for (name, svg) in [("r.png", "r.svg"), ("r.pdf", "r.svg")] {
        let ran = plot(name);
        ran.assert_refused(&format!(
            "cannot use --plot {name}: power11 draws SVG pictures; name the file .svg ({svg})"
        ));
        assert!(!run.path(name).exists());
    }
    let ran = plot("R.SVG");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Regression (hostile-user trial): `--plot -` drew into a file named `-`.
    plot("-").assert_refused("--plot -: a picture goes to a file");
    assert!(!run.path("-").exists());
    // A missing directory is named for --plot, before any game.
    let ran = plot("nodir/b.svg");
    ran.assert_refused("cannot use --plot nodir/b.svg: there is no directory nodir");
    // A directory that takes no file (not even root's) is found before the games, not after.
    if cfg!(target_os = "linux") {
        let ran = plot("/proc/power11-test.svg");
        ran.assert_refused("cannot write --plot /proc/power11-test.svg");
    }
    // Regression (hostile-user review): a picture protected with `chmod a-w` was found only
    // after every game (exit 1); it is refused before them, and left as it is.
    let mut permissions = std::fs::metadata(run.path("old.svg"))
        .unwrap()
        .permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(run.path("old.svg"), permissions).unwrap();
    let before = std::fs::read(run.path("old.svg")).unwrap();
    let ran = plot("old.svg");
    ran.assert_refused("old.svg: the file is read-only; it is left alone");
    assert_eq!(std::fs::read(run.path("old.svg")).unwrap(), before);
    // A link to nothing yet is drawn through, as --out is written through (it was "not an SVG
    // picture").
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("drawn.svg", run.path("ghost.svg")).unwrap();
        let ran = plot("ghost.svg");
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert!(
            std::fs::read_to_string(run.path("drawn.svg"))
                .unwrap()
                .contains("<svg")
        );
    }
}

/// Regression (hostile-user trial): the picture was drawn after the report was printed, so a
/// standard output that failed (`> /dev/full`, a closed pipe) cost the whole run's picture.
/// It is drawn first; bench and train both still say the output failed (exit 1).
#[test]
#[cfg(target_os = "linux")] // /dev/full
fn the_picture_is_drawn_when_standard_output_fails() {
    let run = Run::new();
    let bin = assert_cmd::cargo::cargo_bin("power11");
    for (args, picture) in [
        (
            "bench --player random --games 5 --seed 1 --plot b.svg",
            "b.svg",
        ),
        (
            "train --games 50 --tuples 2x4 --threads 1 --seed 1 --out w.p11w --plot t.svg",
            "t.svg",
        ),
    ] {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("\"$0\" {args} > /dev/full"))
            .arg(&bin)
            .current_dir(run.dir.path())
            .env("POWER11_DATA_DIR", run.path("data"))
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args}: {stderr}");
        let svg = std::fs::read_to_string(run.path(picture)).unwrap_or_default();
        assert!(svg.starts_with("<svg"), "{args}: no picture ({stderr})");
    }
}

/// Regression (hostile-user trial): a file name as long as the system allows (255 bytes) was
/// refused, "file name too long", as the temporary file it is written through added to it.
#[test]
fn a_picture_may_have_the_longest_name_a_file_can_have() {
    let run = Run::new();
    let name = format!("{}.svg", "a".repeat(251));
    let ran = run.run(
        &[
            "bench", "--player", "random", "--games", "2", "--seed", "1", "--plot", &name,
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        std::fs::read_to_string(run.path(&name))
            .unwrap()
            .starts_with("<svg")
    );
}

/// Waits until process `pid` handles `signal` (its bit in `SigCgt` of `/proc/PID/status`).
#[cfg(target_os = "linux")]
fn wait_until_handled(pid: u32, signal: i32) {
    let status = format!("/proc/{pid}/status");
    let started = std::time::Instant::now();
    loop {
        let text = std::fs::read_to_string(&status).unwrap_or_default();
        let caught = text
            .lines()
            .find_map(|l| l.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        if caught & (1 << (signal - 1)) != 0 {
            return;
        }
        assert!(
            started.elapsed().as_secs() < 60,
            "signal {signal} never handled"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Regression (hostile users, round 4): SIGTERM to a bench with no game finished exited 130,
/// SIGINT's code. The games in flight are given up (a search's game can take minutes), nothing
/// is reported, and the exit code is the one a shell expects of SIGTERM, 128 + 15.
#[test]
#[cfg(target_os = "linux")]
fn sigterm_before_a_game_ends_exits_as_sigterm_would() {
    let run = Run::new();
    let child = run
        .process(&["bench", "--player", "expectimax", "--games", "1"])
        .args([
            "--variant",
            "classic",
            "--size",
            "6",
            "--seed",
            "1",
            "--jobs",
            "1",
        ])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_until_handled(child.id(), libc::SIGTERM);
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill sends a signal to the child started above; it touches no memory.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + libc::SIGTERM), "{stderr}");
    assert!(
        stderr.ends_with("power11: stopped before a game ended: nothing to report\n"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// Regression (hostile-user trial): Ctrl-C during a bench lost every game played (exit 130,
/// nothing printed). The games started are finished, and the report is of the games played,
/// the first ones, so that the rest is a `--first-game` away and `bench merge` adds them up.
#[test]
#[cfg(target_os = "linux")] // /proc/PID/status
fn ctrl_c_reports_the_games_played() {
    let run = Run::new();
    let child = run
        .process(&["bench", "--player", "random", "--games", "100000000"])
        .args(["--seed", "1", "--jobs", "2", "--json"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The signal is sent once the program handles SIGINT, and a second later, so that games
    // have ended (a random game takes about a millisecond).
    wait_until_handled(child.id(), libc::SIGINT);
    std::thread::sleep(std::time::Duration::from_secs(1));
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: kill sends a signal to the child started above; it touches no memory.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("power11: stopped: the report is of games 0.."),
        "{stderr}"
    );
    std::fs::write(run.path("part.json"), &out.stdout).unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = report["games"].as_u64().unwrap();
    assert!(games > 0 && games < 100_000_000, "{games}");
    assert_eq!(report["game_ranges"], serde_json::json!([[0, games]]));
    assert!(
        stderr.contains(&format!("the rest is --first-game {games} --games ")),
        "{stderr}"
    );
    let merged = run.run(&["bench", "merge", "part.json"], "");
    assert_eq!(merged.code, 0, "{}", merged.stderr);
    assert!(
        merged.stdout.contains(&format!("games: {games} ")),
        "{}",
        merged.stdout
    );
}
