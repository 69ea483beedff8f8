//! The learned player end to end: `power11 train` through the binary, the weight file, and
//! `--player learned` in bench, autoplay and advice. Networks here are the small 2x4 tuple set,
//! trained for a second; no trained weights are in the repository.

use crate::common::Run;
use power11::learning::ntuple::{Network, Stages, TupleSet};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Trains a small network into `name` in `run`'s directory: `games` games, one thread, seed 7.
fn train(run: &Run, name: &str, games: &str) -> crate::common::Ran {
    train_with(run, name, games, &[])
}

/// The arguments of plain TD(0) training, the method before λ, temporal coherence and rewinds.
const PLAIN_TD0: [&str; 4] = ["--lambda", "0", "--no-coherence", "--no-rewind"];

/// [`train`] with `more` arguments.
fn train_with(run: &Run, name: &str, games: &str, more: &[&str]) -> crate::common::Ran {
    let args = [
        "train",
        "--games",
        games,
        "--threads",
        "1",
        "--seed",
        "7",
        "--tuples",
        "2x4",
        "--out",
        name,
    ];
    succeeds(run, &args, more)
}

/// Runs `args` then `more`, which must succeed.
fn succeeds(run: &Run, args: &[&str], more: &[&str]) -> crate::common::Ran {
    let all = [args, more].concat();
    let ran = run.run(&all, "");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    ran
}

/// Goes on training the network in `name` for `games` more games (one thread, seed 8) with
/// `more` arguments; the run must succeed.
fn resume_with(run: &Run, name: &str, games: &str, more: &[&str]) -> crate::common::Ran {
    let args = [
        "train",
        "--games",
        games,
        "--threads",
        "1",
        "--seed",
        "8",
        "--out",
        name,
        "--resume",
    ];
    succeeds(run, &args, more)
}

fn bench_json(run: &Run, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["bench", "--variant", "classic", "--jobs", "1", "--json"];
    all.extend_from_slice(args);
    let ran = run.run(&all, "");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    serde_json::from_str(&ran.stdout).unwrap()
}

/// The arguments of a bench run of `games` classic games of the learned player with the
/// network in `weights` (more arguments go after them).
fn learned_bench_args<'a>(weights: &'a str, games: &'a str) -> Vec<&'a str> {
    vec![
        "bench",
        "--player",
        "learned",
        "--variant",
        "classic",
        "--weights",
        weights,
        "--games",
        games,
    ]
}

/// `games` classic games of the learned player at depth 1 with the network in `weights`.
fn bench_learned(run: &Run, weights: &str, games: &str) -> crate::common::Ran {
    let mut args = learned_bench_args(weights, games);
    args.extend_from_slice(&["--depth", "1"]);
    run.run(&args, "")
}

/// The report of 100 seeded classic games of the network in `weights` played greedily (depth 1):
/// what a short training run is judged by.
fn greedy_report(run: &Run, weights: &str) -> serde_json::Value {
    let args = ["--player", "learned", "--weights", weights, "--depth", "1"];
    bench_json(
        run,
        &[&args[..], &["--games", "100", "--seed", "3"]].concat(),
    )
}

/// The share of a report's games that reached `tile`.
fn reached(report: &serde_json::Value, tile: &str) -> f64 {
    let games = report["games"].as_f64().unwrap();
    report["reached_counts"]
        .as_object()
        .and_then(|r| r.get(tile))
        .map_or(0.0, |n| n.as_f64().unwrap() / games)
}

#[test]
fn a_short_seeded_training_run_learns_to_reach_256() {
    let run = Run::new();
    let ran = train(&run, "w.p11w", "1000");
    assert!(ran.stdout.contains("trained 1000 games"), "{}", ran.stdout);
    let learned = greedy_report(&run, "w.p11w");
    let random = bench_json(
        &run,
        &["--player", "random", "--games", "100", "--seed", "3"],
    );
    let (l, r) = (reached(&learned, "256"), reached(&random, "256"));
    // Measured: about 98% against 4%.
    assert!(l >= 0.6 && l >= r + 0.4, "learned {l}, random {r}");
    assert_eq!(learned["depth"], 1);
    let network = learned["network"].as_str().unwrap();
    assert!(network.contains("tuples 2x4") && network.contains("1000 games trained"));
}

#[test]
fn coherence_lambda_and_rewinds_learn_more_from_the_same_games() {
    let run = Run::new();
    let ran = train(&run, "tc.p11w", "1000");
    // The summary says how it learned; the rate stays at its whole step.
    assert!(
        ran.stdout.contains(
            "learning: TD(λ = 0.5), temporal coherence, rewinds, rate 0.25\nnetwork: tuples 2x4"
        ),
        "{}",
        ran.stdout
    );
    let plain = train_with(&run, "td0.p11w", "1000", &PLAIN_TD0);
    assert!(
        plain
            .stdout
            .contains("learning: TD(0), rate 0.1 falling to 0.01"),
        "{}",
        plain.stdout
    );
    // Measured: 1024 in 86 of 100 greedy games against 2 for TD(0) (each alone: coherence
    // 35, rewinds 55, λ 4).
    let (tc, td0) = (
        greedy_report(&run, "tc.p11w"),
        greedy_report(&run, "td0.p11w"),
    );
    let (t, z) = (reached(&tc, "1024"), reached(&td0, "1024"));
    assert!(t >= 0.6 && z <= 0.2, "coherence, λ, rewinds {t}; TD(0) {z}");
    // One thread and a seed learn the same network with them too (but for the training time
    // in the header, bytes 47..55, and so the checksum).
    train(&run, "once.p11w", "200");
    train(&run, "again.p11w", "200");
    let a = std::fs::read(run.path("once.p11w")).unwrap();
    let b = std::fs::read(run.path("again.p11w")).unwrap();
    assert!(a.len() == b.len() && a[..47] == b[..47] && a[55..a.len() - 4] == b[55..b.len() - 4]);
    // λ is a fraction.
    for lambda in ["1.5", "-0.1", "x"] {
        let refused = run.run(
            &[
                "train", "--games", "5", "--out", "l.p11w", "--lambda", lambda,
            ],
            "",
        );
        assert_eq!(refused.code, 2, "{lambda}: {}", refused.stderr);
        assert!(
            refused
                .stderr
                .contains(&format!("'{lambda}' is not a λ (from 0 to 1)")),
            "{}",
            refused.stderr
        );
        assert!(!run.path("l.p11w").exists());
    }
}

#[test]
fn an_optimistic_network_starts_high_keeps_what_it_never_saw_and_learns() {
    let run = Run::new();
    // 1600 over 2x4's 16 features: 100 a weight, 0x5640 in f16. Measured with plain TD(0),
    // as it was chosen (rewinds visit more lines, and coherence takes whole first steps).
    let optimistic = [&PLAIN_TD0[..], &["--optimistic", "1600"]].concat();
    train_with(&run, "o.p11w", "1000", &optimistic);
    train_with(&run, "z.p11w", "1000", &PLAIN_TD0);
    let hundreds = |name: &str| {
        let file = std::fs::read(run.path(name)).unwrap();
        stage_bytes(&file, 3, 0)
            .iter()
            .filter(|&&w| (w - 100.0).abs() < 1e-3)
            .count()
    };
    // Most of the first stage's 2 x 16^4 weights belong to lines no game made: they keep the
    // initial value. A network of zeros has none of it.
    let (optimistic, zeros) = (hundreds("o.p11w"), hundreds("z.p11w"));
    assert!(optimistic > 100_000 && zeros == 0, "{optimistic} / {zeros}");
    // And it learns: measured, 1024 in 16 of 100 games, against 2 for the network of zeros.
    let (o, z) = (greedy_report(&run, "o.p11w"), greedy_report(&run, "z.p11w"));
    assert!(reached(&o, "256") >= 0.9, "{o}");
    assert!(reached(&o, "1024") > reached(&z, "1024"), "{o} / {z}");
    // It starts a network: resuming one with it, or a value past the limit, is refused.
    let before = std::fs::read(run.path("o.p11w")).unwrap();
    for (more, says) in [
        (vec!["--resume", "--optimistic", "5"], "cannot be used with"),
        (
            vec!["--restart", "--optimistic", "2e6"],
            "not an initial value",
        ),
    ] {
        let mut all = vec![
            "train", "--games", "5", "--tuples", "2x4", "--out", "o.p11w",
        ];
        all.extend(more.iter().copied());
        let ran = run.run(&all, "");
        assert_eq!(ran.code, 2, "{more:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(says), "{more:?}: {}", ran.stderr);
    }
    assert_eq!(std::fs::read(run.path("o.p11w")).unwrap(), before);
}

#[test]
fn one_thread_and_a_seed_train_the_same_weights() {
    let run = Run::new();
    train(&run, "a.p11w", "200");
    train(&run, "b.p11w", "200");
    let a = std::fs::read(run.path("a.p11w")).unwrap();
    let b = std::fs::read(run.path("b.p11w")).unwrap();
    // Equal but for the training time (bytes 47..55) and so the checksum.
    assert_eq!(a.len(), b.len());
    assert!(a[..47] == b[..47] && a[55..a.len() - 4] == b[55..b.len() - 4]);
    // And the weights did learn something: far more than 200 games' worth of bytes, compressed.
    let network = Network::from_bytes(&a).unwrap();
    let learned = network.nonzero_weights();
    assert!(learned > 1000, "{learned}");
}

#[test]
fn resume_goes_on_training_the_same_network() {
    let run = Run::new();
    train(&run, "w.p11w", "150");
    // Without --resume an existing network is not replaced.
    let before = std::fs::read(run.path("w.p11w")).unwrap();
    let refused = run.run(
        &[
            "train", "--games", "10", "--tuples", "2x4", "--out", "w.p11w",
        ],
        "",
    );
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("--resume"), "{}", refused.stderr);
    assert!(std::fs::read(run.path("w.p11w")).unwrap() == before);
    // A resumed run adds its games to the network's count.
    let resumed = resume_with(&run, "w.p11w", "50", &[]);
    assert!(
        resumed.stdout.contains("200 games trained"),
        "{}",
        resumed.stdout
    );
    // --resume keeps the file's tuples and stages: asking for others is refused.
    let other = run.run(
        &[
            "train", "--games", "5", "--out", "w.p11w", "--resume", "--tuples", "4x6",
        ],
        "",
    );
    assert_eq!(other.code, 2);
    assert!(
        other.stderr.contains("tuple set 2x4, not 4x6"),
        "{}",
        other.stderr
    );
    // --restart replaces it.
    let restarted = run.run(
        &[
            "train",
            "--games",
            "20",
            "--threads",
            "1",
            "--tuples",
            "2x4",
            "--stages",
            "none",
            "--out",
            "w.p11w",
            "--restart",
        ],
        "",
    );
    assert_eq!(restarted.code, 0, "{}", restarted.stderr);
    assert!(
        restarted
            .stdout
            .contains("tuples 2x4, one stage, 20 games trained"),
        "{}",
        restarted.stdout
    );
}

/// Regression (hostile-user review): a run whose sums started anew on a trained network goes on
/// at the low rate it chose; the next `--resume` found those young sums and went back to the
/// default 0.25, whose whole steps undo a trained network. The rate a run learned at is kept
/// with its sums, and a resume without `--rate` goes on at it.
#[test]
fn resume_goes_on_at_the_rate_the_sums_were_gathered_at() {
    let run = Run::new();
    train(&run, "w.p11w", "200");
    std::fs::remove_file(run.path("w.p11w.coherence")).unwrap();
    let anew = resume_with(&run, "w.p11w", "20", &[]);
    assert!(
        anew.stderr
            .contains("the coherence sums start anew, at rate 0.01")
            && anew
                .stdout
                .contains("temporal coherence, rewinds, rate 0.01\n"),
        "{}{}",
        anew.stderr,
        anew.stdout
    );
    let again = resume_with(&run, "w.p11w", "20", &[]);
    assert!(
        again.stderr.contains(
            "the coherence sums go on from w.p11w.coherence, at rate 0.01, the rate they were gathered at"
        ) && again.stdout.contains("temporal coherence, rewinds, rate 0.01\n"),
        "{}{}",
        again.stderr,
        again.stdout
    );
    // `--rate` still decides, and what it chose is what the next run goes on at.
    let told = resume_with(&run, "w.p11w", "20", &["--rate", "0.05"]);
    assert!(told.stdout.contains("rate 0.05\n"), "{}", told.stdout);
    let after = resume_with(&run, "w.p11w", "20", &[]);
    assert!(after.stdout.contains("rate 0.05\n"), "{}", after.stdout);
    // A run from scratch gathers its sums at the default rate, and goes on at it.
    train(&run, "fresh.p11w", "50");
    let fresh = resume_with(&run, "fresh.p11w", "20", &[]);
    assert!(fresh.stdout.contains("rate 0.25\n"), "{}", fresh.stdout);
}

#[test]
fn resume_goes_on_with_the_coherence_sums_kept_beside_the_weights() {
    let run = Run::new();
    train(&run, "w.p11w", "300");
    let sums = run.path("w.p11w.coherence");
    // Compressed: the sums of the weights learned, not 8 bytes for each of the table's.
    let written = std::fs::read(&sums).unwrap();
    assert!(
        written.starts_with(b"P11COHER") && written.len() < 8 * 2 * 65536,
        "{}",
        written.len()
    );
    let resume = |more: &[&str]| resume_with(&run, "w.p11w", "20", more).stderr;
    let went_on = "power11 train: the coherence sums go on from w.p11w.coherence";
    assert!(resume(&[]).contains(went_on));
    // Training without coherence leaves the sums alone; they no longer match the weights it
    // writes, and the next run with coherence says so and starts them anew.
    let before = std::fs::read(&sums).unwrap();
    resume(&["--no-coherence"]);
    assert!(std::fs::read(&sums).unwrap() == before);
    let stale = resume(&[]);
    assert!(
        stale.contains("w.p11w.coherence: its sums belong to other weights")
            && stale.contains("the coherence sums start anew"),
        "{stale}"
    );
    // That run wrote sums for its own weights: the next goes on from them.
    assert!(resume(&[]).contains(went_on));
    // A damaged file of sums is reported, and training starts the sums anew.
    let mut damaged = std::fs::read(&sums).unwrap();
    damaged[1000] ^= 0x40;
    std::fs::write(&sums, &damaged).unwrap();
    let said = resume(&[]);
    assert!(
        said.contains("w.p11w.coherence: the coherence file is damaged or cut short")
            && said.contains("start anew"),
        "{said}"
    );
    // Missing: the same.
    std::fs::remove_file(&sums).unwrap();
    assert!(resume(&[]).contains("w.p11w.coherence is not there: the coherence sums start anew"));
    assert!(sums.exists());
    // A file there that training could not replace, or should not, is refused before it
    // starts, in one line, and the weights are left as they are.
    let refused = || {
        let weights = std::fs::read(run.path("w.p11w")).unwrap();
        let ran = run.run(
            &["train", "--games", "5", "--out", "w.p11w", "--resume"],
            "",
        );
        assert_eq!(
            (ran.code, ran.stderr.lines().count()),
            (2, 1),
            "{}",
            ran.stderr
        );
        assert!(std::fs::read(run.path("w.p11w")).unwrap() == weights);
        ran.stderr
    };
    std::fs::write(&sums, "my notes").unwrap();
    let said = refused();
    assert!(
        said.contains("w.p11w.coherence is not a file of coherence sums; it is left alone"),
        "{said}"
    );
    assert!(std::fs::read(&sums).unwrap() == b"my notes");
    // Without coherence it is none of training's business.
    resume(&["--no-coherence"]);
    assert!(std::fs::read(&sums).unwrap() == b"my notes");
    // A link to where no file can be written is refused before the run, not at its first
    // checkpoint.
    std::fs::remove_file(&sums).unwrap();
    std::os::unix::fs::symlink("no-such-directory/sums", &sums).unwrap();
    let said = refused();
    assert!(
        said.starts_with("power11: cannot write w.p11w.coherence: "),
        "{said}"
    );
    assert!(!run.path("no-such-directory").exists());
}

/// Regression (hostile-user review): a checkpoint replaced the weight file, then failed to write
/// its coherence sums (a full disk), and said "the files keep what was written before": the new
/// weights beside the old sums, which the next resume threw away (starting anew at rate 0.01).
/// Both files are written in full before either replaces its old one.
#[test]
fn a_checkpoint_replaces_both_files_or_neither() {
    let run = Run::new();
    let train = ["train", "--tuples", "2x4", "--threads", "1", "--seed", "1"];
    let out = ["--out", "t.p11w"];
    let first = run.run(&[&train[..], &["--games", "100"], &out].concat(), "");
    assert_eq!(first.code, 0, "{}", first.stderr);
    let read = |name: &str| std::fs::read(run.path(name)).unwrap();
    let (weights, sums) = (read("t.p11w"), read("t.p11w.coherence"));
    // 100 KB (200 blocks of 512 bytes): the next weight file (some 70 KB) fits, its sums (some
    // 125 KB) do not.
    let ran = run.run_with_file_limit(
        200,
        &[&train[..], &["--resume", "--games", "300"], &out].concat(),
    );
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("a checkpoint could not be written (t.p11w.coherence: file too large)"),
        "{}",
        ran.stderr
    );
    assert!(read("t.p11w") == weights, "the weight file was replaced");
    assert!(read("t.p11w.coherence") == sums);
    let mut names: Vec<String> = std::fs::read_dir(run.path(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != ".t.p11w.lock" && name != "data")
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["t.p11w", "t.p11w.coherence"],
        "no temporary file left"
    );
}

#[test]
fn a_checkpoint_that_cannot_be_written_stops_training_and_says_why_once() {
    let run = Run::new();
    // A file-size limit of 1 KiB (the small network's weights after 50 games are several
    // KiB, compressed): the first write fails with "file too large" instead of killing the
    // process.
    let ran = run.run_with_file_limit(
        2,
        &[
            "train",
            "--games",
            "50",
            "--threads",
            "1",
            "--tuples",
            "2x4",
            "--out",
            "w.p11w",
        ],
    );
    let stderr = &ran.stderr;
    assert_eq!(ran.code, 1, "{stderr}");
    let message = stderr.lines().last().unwrap();
    assert!(
        message.starts_with(
            "power11: training stopped: a checkpoint could not be written (w.p11w: file too large"
        ) && message.ends_with("the files keep what was written before"),
        "{stderr}"
    );
    assert_eq!(message.matches("file too large").count(), 1, "{stderr}");
    assert!(!run.path("w.p11w").exists());
}

#[test]
fn without_a_trained_network_the_shipped_one_plays() {
    let run = Run::new();
    let shipped = Network::from_bytes(power11::weights::SHIPPED_WEIGHTS).unwrap();
    let crc = format!("file crc32 {:08x}", shipped.file_checksum().unwrap());
    // An empty data directory: bench and autoplay play the shipped network.
    let bench = &["bench", "--player", "learned", "--variant", "classic"];
    let ran = run.run(
        &[&bench[..], &["--depth", "1", "--games", "1"]].concat(),
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains(&crc), "{}", ran.stdout);
    // Unnamed, the player of a 4x4 autoplay is the learned one: the same game, move for move.
    let game = |player: &[&str]| {
        let args = [
            &["--variant", "classic", "--seed", "5", "--max-moves", "300"],
            player,
        ]
        .concat();
        let ran = run.run(&args, "");
        assert_eq!(ran.code, 0, "{player:?}: {}", ran.stderr);
        ran.stdout
    };
    let unnamed = game(&["--autoplay"]);
    assert_eq!(unnamed, game(&["--autoplay", "learned"]));
    assert_ne!(unnamed, game(&["--autoplay", "expectimax"]));
    // Elsewhere it is the hand-tuned search.
    let easy = |player: &[&str]| {
        let args = [
            &["--size", "5", "--seed", "5", "--max-moves", "100"],
            player,
        ]
        .concat();
        run.run(&args, "").stdout
    };
    assert_eq!(easy(&["--autoplay"]), easy(&["--autoplay", "expectimax"]));
    // A weight file named but missing is refused, saying what to do.
    let ran = run.run(&[&bench[..], &["--weights", "nope.p11w"]].concat(), "");
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("nope.p11w: no such weight file")
            && ran.stderr.contains("power11 train --minutes 90"),
        "{}",
        ran.stderr
    );
    // The data directory's network, when there is one, comes first; one that cannot be used
    // is said, left alone, and the shipped network plays.
    std::fs::create_dir_all(run.path("data/weights")).unwrap();
    std::fs::write(run.path("data/weights/ntuple-4x4.p11w"), b"P11NTUPL junk").unwrap();
    let ran = run.run(
        &[&bench[..], &["--depth", "1", "--games", "1"]].concat(),
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains(&crc), "{}", ran.stdout);
    assert!(
        ran.stderr.contains("ntuple-4x4.p11w: ")
            && ran.stderr.contains("playing the shipped network instead"),
        "{}",
        ran.stderr
    );
    assert_eq!(
        std::fs::read(run.path("data/weights/ntuple-4x4.p11w")).unwrap(),
        b"P11NTUPL junk"
    );
    // What the note says to do works (`train --restart`, which it said once, never replaces
    // a damaged file): moved away, the file is no longer read and the note goes.
    assert!(ran.stderr.contains("move that file away"), "{}", ran.stderr);
    assert!(!ran.stderr.contains("--restart"), "{}", ran.stderr);
    std::fs::rename(
        run.path("data/weights/ntuple-4x4.p11w"),
        run.path("data/junk.p11w"),
    )
    .unwrap();
    let ran = run.run(
        &[&bench[..], &["--depth", "1", "--games", "1"]].concat(),
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        !ran.stderr.contains("shipped network instead"),
        "{}",
        ran.stderr
    );
}

#[test]
fn damaged_and_foreign_weight_files_are_refused_and_left_alone() {
    let run = Run::new();
    train(&run, "w.p11w", "20");
    let whole = std::fs::read(run.path("w.p11w")).unwrap();
    let cases: [(&str, Vec<u8>, &str); 5] = [
        ("cut.p11w", whole[..whole.len() / 2].to_vec(), "damaged"),
        (
            // Regression: --restart replaced a network of another format version (one a newer
            // power11 wrote), as a damaged file is.
            "newer.p11w",
            {
                let mut b = whole.clone();
                b[8..12].copy_from_slice(&[2; 4]);
                b
            },
            "weight file format 33686018, this program reads format",
        ),
        (
            "flipped.p11w",
            {
                let mut b = whole.clone();
                b[5000] ^= 0x40;
                b
            },
            "damaged",
        ),
        (
            "text.p11w",
            b"2 4 8 16\n".to_vec(),
            "not a power11 weight file",
        ),
        ("empty.p11w", Vec::new(), "not a power11 weight file"),
    ];
    for (name, bytes, problem) in cases {
        std::fs::write(run.path(name), &bytes).unwrap();
        let ran = run.run(
            &[
                "bench",
                "--player",
                "learned",
                "--variant",
                "classic",
                "--weights",
                name,
                "--games",
                "1",
            ],
            "",
        );
        assert_eq!(ran.code, 2, "{name}");
        assert!(
            ran.stderr.contains(name) && ran.stderr.contains(problem),
            "{name}: {}",
            ran.stderr
        );
        // A damaged file is not resumed either, and never rewritten: not even --restart
        // replaces it, and the message says so instead of suggesting it.
        let resumed = run.run(&["train", "--games", "5", "--out", name, "--resume"], "");
        assert_eq!(resumed.code, 2, "{name}");
        for extra in [&[][..], &["--restart"]] {
            let args = [
                &["train", "--games", "5", "--tuples", "2x4", "--out", name],
                extra,
            ];
            let trained = run.run(&args.concat(), "");
            assert_eq!(trained.code, 2, "{name} {extra:?}");
            assert!(
                trained.stderr.starts_with(&format!("power11: {name}"))
                    && (problem.starts_with("not a") || trained.stderr.contains(problem))
                    && trained.stderr.contains("it is left alone")
                    && !trained.stderr.contains("--restart"),
                "{name} {extra:?}: {}",
                trained.stderr
            );
        }
        assert!(std::fs::read(run.path(name)).unwrap() == bytes, "{name}");
    }
}

#[test]
fn the_learned_player_refuses_other_sizes_and_timed_search() {
    let run = Run::new();
    train(&run, "w.p11w", "20");
    for (args, says) in [
        (
            vec![
                "bench",
                "--player",
                "learned",
                "--weights",
                "w.p11w",
                "--size",
                "5",
            ],
            "plays 4x4 boards",
        ),
        (
            vec![
                "--autoplay",
                "learned",
                "--weights",
                "w.p11w",
                "--variant",
                "mini",
            ],
            "plays 4x4 boards",
        ),
        (
            vec![
                "bench",
                "--player",
                "learned",
                "--weights",
                "w.p11w",
                "--ms-per-move",
                "5",
            ],
            "searches 2 moves deep",
        ),
        (
            vec![
                "bench",
                "--player",
                "learned",
                "--weights",
                "w.p11w",
                "--depth",
                "5",
            ],
            "1 to 4 moves deep",
        ),
    ] {
        let ran = run.run(&args, "");
        assert_eq!(ran.code, 2, "{args:?}");
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn autoplay_and_advice_use_the_learned_player() {
    let run = Run::new();
    train(&run, "w.p11w", "300");
    let ran = run.run(
        &[
            "--autoplay",
            "learned",
            "--weights",
            "w.p11w",
            "--variant",
            "classic",
            "--seed",
            "4",
            "--max-moves",
            "200",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.matches("Score: ").count() > 100);
    // Advice in a game by hand comes from the chosen player, at its depth (the hand-tuned
    // search never looks fewer than 2 moves ahead on 4x4).
    let advice = run.run(
        &[
            "--player",
            "learned",
            "--weights",
            "w.p11w",
            "--depth",
            "1",
            "--variant",
            "classic",
            "--seed",
            "4",
        ],
        "n\na\n",
    );
    assert_eq!(advice.code, 0, "{}", advice.stderr);
    assert!(
        advice.stdout.contains("Advice: ") && advice.stdout.contains("looking 1 move(s) ahead"),
        "{}",
        advice.stdout
    );
}

/// Search revision 5: without --depth the learned player searches games that go on past their
/// goal (classic) a move deeper than games that end at it (Power-11 Hard), and says so.
/// Revision 6: a move deeper still on boards with at most 1 empty cell in classic games, 3 in
/// Hard ones.
#[test]
fn the_learned_players_policy_looks_deeper_in_keep_playing_games() {
    let run = Run::new();
    train(&run, "w.p11w", "50");
    // Three empty cells, then one.
    std::fs::write(
        run.path("three.txt"),
        "2 4 8 16\n4 8 16 32\n8 16 32 64\n2 0 0 0\n",
    )
    .unwrap();
    std::fs::write(
        run.path("one.txt"),
        "2 4 8 16\n4 8 16 32\n8 16 32 64\n2 4 2 0\n",
    )
    .unwrap();
    for (variant, board, looking) in [
        ("classic", None, "looking 3 move(s) ahead"),
        ("power11", None, "looking 2 move(s) ahead"),
        ("classic", Some("three.txt"), "looking 3 move(s) ahead"),
        ("power11", Some("three.txt"), "looking 3 move(s) ahead"),
        ("classic", Some("one.txt"), "looking 4 move(s) ahead"),
        ("power11", Some("one.txt"), "looking 3 move(s) ahead"),
    ] {
        let mut args = vec![
            "--player",
            "learned",
            "--weights",
            "w.p11w",
            "--variant",
            variant,
            "--size",
            "4",
            "--seed",
            "4",
        ];
        // A board file skips the menu: the first line asks for advice.
        let input = match board {
            Some(file) => {
                args.extend(["--board", file]);
                "a\n"
            }
            None => "n\na\n",
        };
        let advice = run.run(&args, input);
        assert_eq!(advice.code, 0, "{}", advice.stderr);
        assert!(
            advice.stdout.contains("Advice: ") && advice.stdout.contains(looking),
            "{variant}: {}",
            advice.stdout
        );
    }
}

#[test]
fn a_training_run_killed_at_any_moment_leaves_a_whole_weight_file() {
    // A checkpoint every 6 ms (the 0.8 MB file takes about 1 ms to write), killed at many
    // moments: the file is always a whole network, and each run did replace it.
    let run = Run::new();
    let binary = assert_cmd::cargo::cargo_bin("power11");
    let mut previous = Vec::new();
    for wait in (0..=300).step_by(20) {
        let mut child = Command::new(&binary)
            .args([
                "train",
                "--minutes",
                "1",
                "--threads",
                "1",
                "--tuples",
                "2x4",
                "--checkpoint-minutes",
                "0.0001",
                "--out",
                "w.p11w",
                "--restart",
            ])
            .current_dir(run.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Once this run has replaced the file, let it go on for `wait` ms more.
        let started = Instant::now();
        while std::fs::read(run.path("w.p11w")).unwrap_or_default() == previous {
            assert!(started.elapsed() < Duration::from_secs(20), "no checkpoint");
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(Duration::from_millis(wait));
        child.kill().unwrap(); // SIGKILL: no chance to clean up
        child.wait().unwrap();
        let ran = bench_learned(&run, "w.p11w", "2");
        assert_eq!(ran.code, 0, "killed after {wait} ms: {}", ran.stderr);
        let now = std::fs::read(run.path("w.p11w")).unwrap();
        assert!(
            now != previous,
            "the run killed after {wait} ms wrote nothing"
        );
        previous = now;
    }
}

#[test]
fn training_refuses_what_it_could_not_keep_before_it_starts() {
    let run = Run::new();
    std::fs::create_dir(run.path("dir")).unwrap();
    std::fs::write(run.path("notes.txt"), "my notes\n").unwrap();
    // A weight file protected with `chmod a-w`: its checkpoints would be refused.
    train(&run, "kept.p11w", "5");
    let mut permissions = std::fs::metadata(run.path("kept.p11w"))
        .unwrap()
        .permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(run.path("kept.p11w"), permissions).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("gone/w.p11w", run.path("ghost.p11w")).unwrap();
    // A legal name whose checkpoint's temporary file name would be too long.
    let long = "w".repeat(250);
    for (args, says) in [
        (vec!["--out", "kept.p11w", "--resume"], "is read-only"),
        (vec!["--out", "kept.p11w", "--restart"], "is read-only"),
        (vec!["--out", "dir"], "is a directory"),
        (vec!["--out", "notes.txt"], "is not a weight file"),
        (
            vec!["--out", "notes.txt", "--restart"],
            "is not a weight file",
        ),
        (
            vec!["--out", "w.p11w", "--rate", "0.5"],
            "'0.5' is not a learning rate (from 0.000001 to 0.25)",
        ),
        (
            vec!["--out", "w.p11w", "--rate", "1e-300"],
            "'1e-300' is not a learning rate (from 0.000001 to 0.25)",
        ),
        (
            vec!["--out", "sub/"],
            "cannot use --out sub/: it names a directory (it ends with a '/'), not a file",
        ),
        (
            vec!["--out", "/dev/null", "--restart"],
            "not a regular file",
        ),
        // A name too long for its coherence sums beside it (the lock and the temporary
        // files are named with the name cut, so those are not what refuses it).
        (vec!["--out", &long], ".coherence: file name too long"),
        // Regression: a directory that is not there (a typo) was made.
        (
            vec!["--out", "typo/deep/w.p11w"],
            "cannot use --out typo/deep/w.p11w: there is no directory typo/deep",
        ),
        (
            vec!["--out", "notes.txt/w.p11w"],
            "cannot use --out notes.txt/w.p11w: notes.txt is not a directory",
        ),
        // A link into a directory that is not there is the same typo.
        (
            vec!["--out", "ghost.p11w"],
            "cannot use --out ghost.p11w: there is no directory gone",
        ),
    ] {
        let mut all = vec!["train", "--games", "5", "--tuples", "2x4"];
        all.extend(args.iter().copied());
        let ran = run.run(&all, "");
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
        assert!(ran.stderr.contains(says), "{args:?}: {}", ran.stderr);
    }
    assert_eq!(
        std::fs::read_to_string(run.path("notes.txt")).unwrap(),
        "my notes\n"
    );
    assert!(!run.path("typo").exists() && !run.path("gone").exists());
    // --weights belongs to the learned player.
    let ran = run.run(&["--autoplay", "random", "--weights", "w.p11w"], "");
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("--weights is the learned player's"),
        "{}",
        ran.stderr
    );
}

#[cfg(unix)]
#[test]
fn an_interrupted_training_run_keeps_what_it_learned() {
    let run = Run::new();
    let binary = assert_cmd::cargo::cargo_bin("power11");
    let started = Instant::now();
    let child = Command::new(&binary)
        .args([
            "train",
            "--minutes",
            "10",
            "--threads",
            "2",
            "--tuples",
            "2x4",
            "--out",
            "w.p11w",
        ])
        .current_dir(run.dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    // A second run on the same file would overwrite the first one's work: refused; so is one
    // through a link to it (regression: the lock was named after the link).
    std::os::unix::fs::symlink("w.p11w", run.path("link.p11w")).unwrap();
    for out in ["w.p11w", "link.p11w"] {
        let args = [
            "train", "--games", "5", "--tuples", "2x4", "--out", out, "--resume",
        ];
        let second = run.run(&args, "");
        assert_eq!(second.code, 2, "{out}: {}", second.stderr);
        assert!(
            second
                .stderr
                .contains(&format!("another power11 train is writing {out}")),
            "{}",
            second.stderr
        );
    }
    // SIGINT, as Ctrl-C sends.
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    assert!(started.elapsed() < Duration::from_secs(120));
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("(stopped early)"), "{stdout}");
    // Regression (hostile-user review): nothing answered the first Ctrl-C while the last
    // checkpoint was written, which invited a second one that ends the run at once.
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains(
            "power11 train: stopping: the games in flight finish, then the weights are written \
             (Ctrl-C again ends at once, and the files keep the last checkpoint)\n"
        ),
        "{stderr}"
    );
    let ran = bench_learned(&run, "w.p11w", "1");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

#[test]
fn games_of_different_networks_are_not_merged() {
    let run = Run::new();
    train(&run, "a.p11w", "50");
    train(&run, "b.p11w", "60");
    for (name, weights, first) in [("a.json", "a.p11w", "0"), ("b.json", "b.p11w", "2")] {
        let mut args = learned_bench_args(weights, "2");
        args.extend_from_slice(&["--seed", "1", "--first-game", first, "--json"]);
        let ran = run.run(&args, "");
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        std::fs::write(run.path(name), ran.stdout).unwrap();
    }
    let merged = run.run(&["bench", "merge", "a.json", "b.json"], "");
    assert_eq!(merged.code, 2);
    assert!(
        merged.stderr.contains("different network"),
        "{}",
        merged.stderr
    );
}

#[test]
fn the_learned_players_depth_policy_is_a_run_of_its_own() {
    let run = Run::new();
    train(&run, "w.p11w", "50");
    let bench = |depth: &[&str], first: &str, json: bool| {
        let mut args = learned_bench_args("w.p11w", "2");
        args.extend_from_slice(&["--seed", "1", "--first-game", first]);
        args.extend_from_slice(depth);
        if json {
            args.push("--json");
        }
        let ran = run.run(&args, "");
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        ran.stdout
    };
    // Without --depth the player follows its depth policy, and says so by naming no depth.
    let text = bench(&[], "0", false);
    assert!(
        text.starts_with("player learned, variant classic"),
        "{text}"
    );
    let policy: serde_json::Value = serde_json::from_str(&bench(&[], "0", true)).unwrap();
    assert!(policy["depth"].is_null(), "{policy}");
    std::fs::write(
        run.path("policy.json"),
        serde_json::to_string(&policy).unwrap(),
    )
    .unwrap();
    std::fs::write(run.path("two.json"), bench(&["--depth", "2"], "2", true)).unwrap();
    let merged = run.run(&["bench", "merge", "policy.json", "two.json"], "");
    assert_eq!(merged.code, 2);
    assert!(merged.stderr.contains("depth policy"), "{}", merged.stderr);
}

/// Stage `k`'s weights in a weight file (empty if the stage has none of its own).
fn stage_bytes(file: &[u8], _stages: usize, k: usize) -> Vec<f32> {
    let network = Network::from_bytes(file).unwrap();
    network.stage_values(k).unwrap_or_default()
}

#[test]
fn late_stage_training_starts_at_the_tile_and_leaves_the_early_stage_alone() {
    let run = Run::new();
    train_with(&run, "w.p11w", "1000", &["--stages", "256,32768"]);
    let before = std::fs::read(run.path("w.p11w")).unwrap();
    let late = |tile: &str| {
        run.run(
            &[
                "train",
                "--games",
                "100",
                "--threads",
                "1",
                "--seed",
                "8",
                "--out",
                "w.p11w",
                "--resume",
                "--start-at",
                tile,
            ],
            "",
        )
    };
    let ran = late("256");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains("1000 start positions from"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stdout.contains("trained 100 games") && ran.stdout.contains("1100 games trained"),
        "{}",
        ran.stdout
    );
    // Every game started with a 256 on the board: only the stage from 256 on learned.
    let after = std::fs::read(run.path("w.p11w")).unwrap();
    assert!(stage_bytes(&after, 3, 0) == stage_bytes(&before, 3, 0));
    assert!(stage_bytes(&after, 3, 1) != stage_bytes(&before, 3, 1));

    // Refused with exit code 2, the file untouched.
    let refused = |tile: &str, message: &str| {
        let ran = late(tile);
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(ran.stderr.contains(message), "{}", ran.stderr);
        assert!(std::fs::read(run.path("w.p11w")).unwrap() == after);
    };
    // A tile the network never makes, after a bounded search.
    refused(
        "32768",
        "the network made a 32768 in 0 of 2000 greedy games",
    );
    // A tile that does not start a stage: its games would retrain the stage below on late
    // boards only.
    refused(
        "128",
        "has stages split at 256, 32768, and late-stage training must start at one of its splits",
    );
    // Refused before the run starts: the message is all it says.
    let ran = run.run(
        &[
            "train",
            "--games",
            "5",
            "--out",
            "w.p11w",
            "--resume",
            "--start-at",
            "128",
        ],
        "",
    );
    assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
    refused("100", "'100' is not a tile");
    // A new network has nothing to start from: --start-at needs --resume.
    let new = run.run(
        &[
            "train",
            "--games",
            "5",
            "--out",
            "n.p11w",
            "--start-at",
            "256",
        ],
        "",
    );
    assert_eq!(new.code, 2);
    assert!(new.stderr.contains("--resume"), "{}", new.stderr);
    assert!(!run.path("n.p11w").exists());
}

#[test]
fn early_stage_training_splits_the_stages_and_leaves_the_late_ones_alone() {
    let run = Run::new();
    train_with(&run, "w.p11w", "1000", &["--stages", "256,32768"]);
    let before = std::fs::read(run.path("w.p11w")).unwrap();
    let early = |more: &[&str]| {
        let args = [
            "train",
            "--games",
            "100",
            "--threads",
            "1",
            "--seed",
            "8",
            "--out",
            "w.p11w",
            "--resume",
        ];
        run.run(&[&args[..], more].concat(), "")
    };
    // Refused with exit code 2, in one line, the file untouched.
    let refused = |more: &[&str], message: &str| {
        let file = std::fs::read(run.path("w.p11w")).unwrap();
        let ran = early(more);
        assert_eq!(ran.code, 2, "{}", ran.stderr);
        assert!(ran.stderr.contains(message), "{}", ran.stderr);
        assert_eq!(ran.stderr.lines().count(), 1, "{}", ran.stderr);
        assert!(std::fs::read(run.path("w.p11w")).unwrap() == file);
    };
    refused(
        &["--end-at", "64"],
        "--end-at 64: w.p11w has stages split at 256, 32768, and early-stage training must end \
         at one of its splits (a stage that starts at 64): add it with --stages 64,256,32768",
    );
    refused(
        &["--stages", "64,512,32768", "--end-at", "64"],
        "--stages: w.p11w: a network with stages split at 256, 32768 cannot become one with \
         stages split at 64, 512, 32768: splits may be added, never moved or removed",
    );
    refused(
        &["--start-at", "256", "--end-at", "256"],
        "--end-at 256 must be above --start-at 256",
    );

    let ran = early(&["--stages", "64,256,32768", "--end-at", "256"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "splitting the network (stages split at 256, 32768) into stages split at 64, 256, \
             32768: each new stage starts as a copy of the one it was part of"
        ),
        "{}",
        ran.stderr
    );
    // The sums go with the weights they were gathered on.
    assert!(
        ran.stderr
            .contains("the coherence sums go on from w.p11w.coherence"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stdout.contains("games ending at 256") && ran.stdout.contains("1100 games trained"),
        "{}",
        ran.stdout
    );
    // Games ended at 256: the stages below it learned, the one from 256 kept its weights.
    let after = std::fs::read(run.path("w.p11w")).unwrap();
    assert!(
        !stage_bytes(&before, 3, 1).is_empty(),
        "the stage from 256 was trained"
    );
    assert!(stage_bytes(&after, 4, 2) == stage_bytes(&before, 3, 1));
    assert!(stage_bytes(&after, 4, 0) != stage_bytes(&before, 3, 0));
    assert!(stage_bytes(&after, 4, 1) != stage_bytes(&before, 3, 0));
    // The split is the file's now: resumed as it is. No fourth split; no end where no game
    // has been (the stage from 32768 has no weights of its own); no end on a new network.
    let ran = early(&["--end-at", "64"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // The sums written after the split are the split network's: they go on.
    assert!(
        ran.stderr
            .contains("the coherence sums go on from w.p11w.coherence"),
        "{}",
        ran.stderr
    );
    refused(
        &["--end-at", "128"],
        "early-stage training must end at one of its splits (a stage that starts at 128): it \
         cannot be added, as a network has at most 3 splits",
    );
    refused(
        &["--end-at", "32768"],
        "--end-at 32768: w.p11w has no weights of its own from 32768 on (no training game has \
         made a 32768)",
    );
    let ran = run.run(
        &[
            "train", "--games", "5", "--tuples", "2x4", "--stages", "128", "--end-at", "128",
            "--out", "n.p11w",
        ],
        "",
    );
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains("--resume"), "{}", ran.stderr);
    assert!(!run.path("n.p11w").exists());
}

#[test]
fn resume_without_a_network_goes_on_from_the_shipped_one() {
    let run = Run::new();
    let shipped = Network::from_bytes(power11::weights::SHIPPED_WEIGHTS).unwrap();
    let ran = run.run(
        &[
            "train",
            "--resume",
            "--games",
            "5",
            "--threads",
            "1",
            "--seed",
            "3",
            "--out",
            "mine.p11w",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("mine.p11w does not exist yet: going on from the network shipped in power11"),
        "{}",
        ran.stderr
    );
    // Its coherence sums start anew, at a low rate (whole steps at 0.25 undo it).
    assert!(
        ran.stderr.contains(
            "mine.p11w.coherence is not there: the coherence sums start anew, at rate 0.01 (the file is written at the first checkpoint)"
        ) && ran.stderr.contains("rate 0.01, seed 3"),
        "{}",
        ran.stderr
    );
    // Other tuples than the shipped network's are refused naming it, not a file that is not
    // there (regression: "new.p11w holds a network of tuple set 4x6").
    let other = run.run(
        &[
            "train", "--resume", "--games", "5", "--tuples", "2x4", "--out", "new.p11w",
        ],
        "",
    );
    other.assert_refused("the network shipped in power11 (resumed as new.p11w does not exist yet) holds a network of tuple set 4x6, not 2x4");
    // One line: a refused run goes on from nothing (regression, hostile-user trial round 4:
    // "going on from the network shipped" came first).
    assert_eq!(other.stderr.lines().count(), 1, "{}", other.stderr);
    let mine = Network::from_bytes(&std::fs::read(run.path("mine.p11w")).unwrap()).unwrap();
    assert_eq!(mine.training().games, shipped.training().games + 5);
    assert_eq!(mine.tuple_set(), shipped.tuple_set());
    assert_eq!(mine.stages(), shipped.stages());
}

#[test]
fn train_plot_draws_the_learning_curve_with_its_checkpoints() {
    let run = Run::new();
    let ran = run.run(
        &[
            "train",
            "--games",
            "300",
            "--tuples",
            "2x4",
            "--threads",
            "1",
            "--seed",
            "4",
            "--out",
            "w.p11w",
            "--plot",
            "curve.svg",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let svg = std::fs::read_to_string(run.path("curve.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // The score line (blue) runs through points from the first games to the last.
    let score: Vec<&str> = svg
        .split("<polyline")
        .filter(|p| p.contains("stroke=\"#0000FF\""))
        .collect();
    assert_eq!(score.len(), 1, "one score line");
    let points = score[0]
        .split("points=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(points.split_whitespace().count() >= 2, "{points}");
    // The checkpoint at the end, a grey line in each chart; a line for each tile shown.
    assert_eq!(svg.matches("stroke=\"#969696\"").count(), 2, "checkpoints");
    for label in ["2048", "4096", "8192", "16384", "32768", "mean score"] {
        assert!(svg.contains(label), "{label}");
    }
    // A --plot file that is not a picture is refused before any training.
    std::fs::write(run.path("notes.txt"), "mine").unwrap();
    let train = |extra: &[&str]| {
        let mut args = vec!["train", "--games", "5", "--tuples", "2x4"];
        args.extend_from_slice(extra);
        run.run(&args, "")
    };
    let ran = train(&["--out", "v.p11w", "--plot", "notes.txt"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(!run.path("v.p11w").exists());
    assert_eq!(
        std::fs::read_to_string(run.path("notes.txt")).unwrap(),
        "mine"
    );
    // Nor may the picture be the weight file or its sums, found only after the run before (the
    // sums' name, `.coherence`, is no picture's name either).
    for (plot, says) in [
        ("same", "the run writes its weights there"),
        ("same.coherence", "power11 draws SVG pictures"),
    ] {
        let ran = train(&["--out", "same", "--plot", plot]);
        assert_eq!(ran.code, 2, "{plot}: {}", ran.stderr);
        assert!(ran.stderr.contains(says), "{}", ran.stderr);
        assert!(!run.path("same").exists());
    }
    // Regression (hostile-user trial): a link as --out to the --plot file was found only after
    // the run (the picture's check met the weights just written).
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("pic.svg", run.path("link.p11w")).unwrap();
        let ran = train(&["--out", "link.p11w", "--plot", "pic.svg"]);
        ran.assert_refused("cannot use --plot pic.svg: the run writes its weights there");
        assert!(!run.path("pic.svg").exists());
        // And through a link among the directories.
        std::os::unix::fs::symlink(".", run.path("here")).unwrap();
        let ran = train(&["--out", "here/pic.svg", "--plot", "pic.svg"]);
        ran.assert_refused("cannot use --plot pic.svg: the run writes its weights there");
    }
    // A file that is not a network, with --resume, is refused without a lock file beside it.
    let ran = train(&["--out", "notes.txt", "--resume"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains("not a weight file"), "{}", ran.stderr);
    assert!(!run.path(".notes.txt.lock").exists());
    assert_eq!(
        std::fs::read_to_string(run.path("notes.txt")).unwrap(),
        "mine"
    );
}

#[test]
fn compact_writes_a_smaller_network_that_plays_and_never_replaces_a_file() {
    let run = Run::new();
    train(&run, "w.p11w", "300");
    let compact = |from: &str, out: &str, more: &[&str]| {
        run.run(
            &[&["compact", "--weights", from, "--out", out], more].concat(),
            "",
        )
    };
    let not_a_step = |value: &str| {
        format!(
            "a step is 0 (none) or a power of two from 2^-10 (0.0009765625) to 1024, e.g. 0.5, 1, 2, 32; not '{value}'"
        )
    };
    // Regression (hostile-user review): keeping no weight at all wrote a network of zeros.
    let ran = compact("w.p11w", "none.p11w", &["--keep", "0"]);
    ran.assert_refused("a share is a number above 0, at most 1, not '0'");
    assert!(!run.path("none.p11w").exists());
    // Regression (hostile-user trial): a share so small that it keeps no weight (1e-9 of a
    // few thousand) wrote a network of zeros all the same, said only in its count.
    let ran = compact("w.p11w", "none.p11w", &["--keep", "1e-9"]);
    ran.assert_refused("--keep 0.000000001 keeps none of the ");
    assert!(
        ran.stderr
            .contains("nonzero weights of w.p11w: nothing written")
    );
    // With a grain as well, it is still --keep that left none.
    let ran = compact("w.p11w", "none.p11w", &["--keep", "1e-9", "--step", "4"]);
    ran.assert_refused("--keep 0.000000001 keeps none of the ");
    // A grain coarser than every weight leaves none either, and says it is the grain.
    let tiny = Network::new(TupleSet::Rows, Stages::single());
    tiny.adjust(0x1234_0021, 3.0);
    std::fs::write(run.path("tiny.p11w"), tiny.to_bytes()).unwrap();
    let ran = compact("tiny.p11w", "none.p11w", &["--step", "2"]);
    ran.assert_refused("--step 2 rounds all ");
    assert!(
        ran.stderr.contains(
            "nonzero weights of tiny.p11w to zero: nothing written (choose a smaller --step)"
        ),
        "{}",
        ran.stderr
    );
    // Regression (hostile-user trial): a negative number was "unexpected argument '-5'" for
    // compact's numbers, where every other command says what the value should be.
    for (flag, value, says) in [
        (
            "--level",
            "-5",
            "'-5' is not a zstd level (a whole number from 1 to 22)".to_string(),
        ),
        (
            "--keep",
            "-0",
            "a share is a number above 0, at most 1, not '-0'".to_string(),
        ),
        (
            "--stages",
            "-1",
            "'-1' is not a number of stages".to_string(),
        ),
        (
            "--mantissa-bits",
            "-2",
            "'-2' is not a number of bits".to_string(),
        ),
        ("--step", "-1", not_a_step("-1")),
        ("--step", "48", not_a_step("48")),
        ("--step", "2048", not_a_step("2048")),
        ("--step", "1e-4", not_a_step("1e-4")),
        ("--step", "inf", not_a_step("inf")),
    ] {
        compact("w.p11w", "n.p11w", &[flag, value]).assert_refused(&says);
    }
    assert!(!run.path("none.p11w").exists());
    // Regression (hostile-user review): a directory that takes no file (not even root's) was
    // found after the work (exit 1); it is refused before it, naming the flag.
    if cfg!(target_os = "linux") {
        let ran = compact("w.p11w", "/proc/c.p11w", &[]);
        ran.assert_refused("cannot write --out /proc/c.p11w");
    }
    let ran = compact(
        "w.p11w",
        "small.p11w",
        &["--keep", "0.3", "--mantissa-bits", "6", "--stages", "1"],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("small.p11w: ") && ran.stdout.contains("6 significant bits"));
    let full = std::fs::read(run.path("w.p11w")).unwrap();
    let small = std::fs::read(run.path("small.p11w")).unwrap();
    assert!(
        small.len() < full.len(),
        "{} vs {}",
        small.len(),
        full.len()
    );
    let (full, small) = (
        Network::from_bytes(&full).unwrap(),
        Network::from_bytes(&small).unwrap(),
    );
    assert_eq!(small.training(), full.training());
    assert_eq!(small.stages_trained(), 1);
    let kept = small.nonzero_weights() as f64
        / full
            .stage_values(0)
            .unwrap()
            .iter()
            .filter(|w| **w != 0.0)
            .count() as f64;
    assert!((0.15..=0.31).contains(&kept), "{kept}");
    // A grain: every weight a multiple of it, the file smaller than without one.
    let ran = compact("w.p11w", "grain.p11w", &["--step", "4"]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout
            .contains("10 significant bits, each a multiple of 4\n"),
        "{}",
        ran.stdout
    );
    let ran = compact("w.p11w", "no-grain.p11w", &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let grain = std::fs::read(run.path("grain.p11w")).unwrap();
    let grained = Network::from_bytes(&grain).unwrap();
    let values = grained.stage_values(0).unwrap();
    assert!(values.iter().all(|w| w % 4.0 == 0.0));
    assert!(values.iter().any(|w| *w != 0.0));
    let no_grain = std::fs::read(run.path("no-grain.p11w")).unwrap();
    assert!(
        grain.len() < no_grain.len(),
        "{} vs {}",
        grain.len(),
        no_grain.len()
    );
    // It plays.
    let ran = run.run(
        &[
            "bench",
            "--player",
            "learned",
            "--weights",
            "small.p11w",
            "--depth",
            "1",
            "--games",
            "2",
        ],
        "",
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // An existing --out is never replaced.
    let ran = compact("w.p11w", "small.p11w", &[]);
    assert_eq!(ran.code, 2);
    assert!(
        ran.stderr.contains("already exists; it is left alone"),
        "{}",
        ran.stderr
    );
    // Regression (hostile-user review): a device or a directory was "already there; remove
    // it".
    std::fs::create_dir(run.path("nets")).unwrap();
    for out in ["/dev/null", "nets"] {
        let ran = compact("w.p11w", out, &[]);
        assert_eq!(ran.code, 2);
        assert_eq!(
            ran.stderr,
            format!(
                "power11: --out {out} is not a regular file: name a new file to write the network to\n"
            )
        );
    }
}

#[test]
fn a_search_tuned_on_the_command_line_keeps_the_search_as_the_default_player() {
    // --ms-per-move and a depth past the learned player's are the search's: unnamed, the
    // player is then the search, as before the learned player was the default.
    let run = Run::new();
    let game = |args: &[&str]| {
        let args = [args, &["--seed", "1", "--max-moves", "40"]].concat();
        let ran = run.run(&args, "");
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
        ran.stdout
    };
    // A depth of 6: the search's game, move for move.
    let deep = game(&["--autoplay", "--depth", "6"]);
    assert!(deep == game(&["--autoplay", "expectimax", "--depth", "6"]));
    // A time per move (its games depend on the clock): played, not refused.
    assert!(game(&["--autoplay", "--ms-per-move", "5"]).contains("Stopped after 40 moves"));
    // Named, the learned player still refuses them.
    let ran = run.run(&["--player", "learned", "--ms-per-move", "5"], "q\n");
    assert_eq!(ran.code, 2);
}

#[test]
fn a_game_by_hand_reads_the_network_only_when_it_asks_the_player() {
    // A data directory's weight file that cannot be read is said when the network is read:
    // so the warning shows when the network was read, and only then.
    let run = Run::new();
    std::fs::create_dir_all(run.path("data/weights")).unwrap();
    std::fs::write(run.path("data/weights/ntuple-4x4.p11w"), b"P11NTUPL junk").unwrap();
    let moves = run.run(&["--seed", "1"], "h\nl\nu\nq\nq\n");
    assert_eq!(moves.code, 0, "{}", moves.stderr);
    assert!(
        !moves.stderr.contains("ntuple-4x4.p11w"),
        "{}",
        moves.stderr
    );
    let advised = run.run(&["--seed", "1"], "h\na\na\nq\nq\n");
    assert_eq!(advised.code, 0, "{}", advised.stderr);
    assert_eq!(
        advised
            .stderr
            .matches("playing the shipped network instead")
            .count(),
        1,
        "read once: {}",
        advised.stderr
    );
    assert_eq!(advised.stdout.matches("Advice: ").count(), 2);
}

/// Regression (hostile-user review): `--weights` with 3x3 rules said "the expectimax player has
/// none", naming a player the user never chose.
#[test]
fn weights_with_rules_the_learned_player_does_not_play_say_why() {
    let run = Run::new();
    train(&run, "w.p11w", "20");
    let ran = run.run(&["--weights", "w.p11w", "--variant", "mini"], "");
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        "power11: --weights is the learned player's network, but with these rules and flags the player is the expectimax one (the learned player plays 4x4 boards, without --ms-per-move and at most --depth 4; name it with --player learned)\n"
    );
    // Naming another player is refused as before.
    let ran = run.run(&["--weights", "w.p11w", "--player", "expectimax"], "");
    ran.assert_refused("the expectimax player has none");
}

/// Regression (hostile-user trial): `--weights` through a pipe (`<(zstdcat net.p11w.zst)`,
/// `/dev/stdin`) was "not a file". A stream is read as a file is; one that is no weight file
/// is refused after its first block (`/dev/zero` was read to the 1 GiB limit).
#[test]
#[cfg(unix)]
fn weights_may_come_through_a_pipe() {
    let run = Run::new();
    train(&run, "w.p11w", "200");
    let bin = assert_cmd::cargo::cargo_bin("power11");
    let piped = |source: &str, command: &str| {
        std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{source} | \"$0\" {command} --weights /dev/stdin"))
            .arg(&bin)
            .current_dir(run.dir.path())
            .env("POWER11_DATA_DIR", run.path("data"))
            .output()
            .unwrap()
    };
    let bench = "bench --player learned --depth 1 --games 2 --seed 1";
    let out = piped("cat w.p11w", bench);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(stdout.contains("network: tuples 2x4"), "{stdout}");
    let out = piped("cat w.p11w", "compact --out small.p11w --keep 0.5");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(run.path("small.p11w").exists());
    let out = piped("head -c 100000000 /dev/zero", bench);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "power11: /dev/stdin: not a power11 weight file\n"
    );
}

/// Regression (hostile-user trial): with the data directory a regular file and no `--out`,
/// training said "cannot use --out .../weights/ntuple-4x4.p11w", a flag nobody gave. It names
/// the data directory and what to do.
#[test]
fn a_data_directory_that_is_a_file_is_named_by_train() {
    let run = Run::new();
    std::fs::write(run.path("data"), "my notes\n").unwrap();
    let ran = run.run(&["train", "--games", "5", "--tuples", "2x4"], "");
    ran.assert_refused("cannot keep weights in the data directory ");
    assert!(ran.stderr.contains(
        "not a directory; set POWER11_DATA_DIR to a directory you can write, or pass --out"
    ));
    assert!(!ran.stderr.contains("--out "), "{}", ran.stderr);
    assert_eq!(
        std::fs::read_to_string(run.path("data")).unwrap(),
        "my notes\n"
    );
}
