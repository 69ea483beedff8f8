//! The engine ratio's random games, for counting instructions instead of timing them: on a
//! shared machine whose speed varies between runs, an instruction count does not.
//!
//! ```text
//! cargo build --release --example engine_games
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/engine_games ours 21
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/engine_games ours 1
//! ```
//!
//! The difference of the two `refs` totals is 20 batches of the benchmark's 64 seeded games
//! (building the tables cancels out); `baseline` instead of `ours` plays the same games on the
//! hand-tuned table engine of `benches/baseline/`. It also prints the time per batch.

#[path = "../benches/baseline/mod.rs"]
#[allow(dead_code, unreachable_pub)]
mod baseline;

use power11::ai::RandomPlayer;
use power11::random::seeded;
use power11::{Board4, Rules, play_game};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

/// As in the benchmark: the games of one batch.
const GAMES_PER_BATCH: u64 = 64;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (engine_name, batches) = match args.as_slice() {
        [name, batches] if name == "ours" || name == "baseline" => match batches.parse::<u32>() {
            Ok(b) if b > 0 => (name.as_str(), b),
            _ => return usage(),
        },
        _ => return usage(),
    };
    let rules = Rules::power11(4).expect("4 is a valid size");
    let engine = baseline::TableEngine::new();
    Board4::warm_up();
    // As the benchmark does: the two engines must play the same games (the check costs the
    // same in every run, so it cancels out of the difference of two counts).
    baseline::check_same_games(&engine, GAMES_PER_BATCH);
    let starts: Vec<_> = (0..GAMES_PER_BATCH)
        .map(|seed| {
            let mut rng = seeded(seed);
            (rules.new_board(&mut rng), rng)
        })
        .collect();
    let clock = Instant::now();
    for _ in 0..batches {
        for (start, rng) in &starts {
            let mut rng = rng.clone();
            if engine_name == "ours" {
                black_box(play_game(
                    &rules,
                    *start,
                    &mut RandomPlayer,
                    &mut rng,
                    u64::MAX,
                ));
            } else {
                black_box(engine.random_game(baseline::pack(start), &mut rng));
            }
        }
    }
    println!(
        "{engine_name}: {:?} per batch of {GAMES_PER_BATCH} games",
        clock.elapsed() / batches
    );
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: engine_games ours|baseline BATCHES");
    ExitCode::from(2)
}
