//! Prints a script of console commands for timing the console:
//! `cargo run --release --example script -- 100000 > moves.txt`, then
//! `time ./power11 --seed 1 < moves.txt > /dev/null`.
//!
//! The script starts a Hard game, then mixes the four moves with an occasional undo, and every
//! 100 lines an `h`, which starts a new game whenever the last one ended (in a game it is just an
//! unknown command). It is deterministic: the same count gives the same script.

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    writeln!(out, "h")?;
    for i in 1..count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let command = if i % 100 == 0 {
            "h"
        } else {
            ["u", "d", "l", "r", "l", "d", "l", "d", "b"][(state % 9) as usize]
        };
        writeln!(out, "{command}")?;
    }
    out.flush()
}
