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

use power11::Board4;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (engine_name, batches) = match args.as_slice() {
        [name, batches] if name == "ours" || name == "baseline" => match batches.parse::<u32>() {
            Ok(b) if b > 0 => (name.as_str(), b),
            _ => return usage(),
        },
        _ => return usage(),
    };
    let engine = baseline::TableEngine::new();
    Board4::warm_up();
    // As the benchmark does: the two engines must play the same games (the check costs the
    // same in every run, so it cancels out of the difference of two counts).
    baseline::check_same_games(&engine, baseline::Batch::GAMES);
    let batch = baseline::Batch::new();
    let clock = Instant::now();
    for _ in 0..batches {
        if engine_name == "ours" {
            batch.play_ours();
        } else {
            batch.play_baseline(&engine);
        }
    }
    println!(
        "{engine_name}: {:?} per batch of {} games",
        clock.elapsed() / batches,
        baseline::Batch::GAMES
    );
    ExitCode::SUCCESS
}

fn usage() -> ExitCode {
    eprintln!("usage: engine_games ours|baseline BATCHES");
    ExitCode::from(2)
}
