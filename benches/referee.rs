//! Referee benchmark: `cargo bench --bench referee`.
//!
//! One transcript of at least 10,000 boards (power11's own console, in memory, fed random
//! games of moves on 4x4 Power-11 rules), refereed whole: reading the keys, finding the boards,
//! replaying the rules. The figure to hold is under 1 s.

use criterion::{Criterion, criterion_group, criterion_main};
use power11::Rules;
use power11::console::Console;
use power11::players::{AnyPlayer, RandomPlayer};
use power11::random::{below, seeded};
use power11::referee::{Options, referee};
use power11::session::{MemoryStore, MenuStyle, Session, Settings};
use std::hint::black_box;

/// Boards the transcript must hold at least.
const BOARDS: usize = 10_000;

/// Keys of Hard games of random moves (300 keys each, which end most games: the keys after
/// the end go to the menu, where they change nothing), and what power11 printed for them.
fn transcript() -> (String, String) {
    let mut rng = seeded(9);
    let mut keys = String::new();
    for games in 1.. {
        keys.push_str("h\n");
        for _ in 0..300 {
            keys.push(['u', 'd', 'l', 'r'][below(&mut rng, 4)]);
            keys.push('\n');
        }
        if games % 10 == 0 {
            let all = format!("{keys}q\nq\n");
            let out = run(&all);
            if out.matches("Score: ").count() >= BOARDS {
                return (all, out);
            }
        }
    }
    unreachable!("games go on until the boards are enough")
}

fn run(keys: &str) -> String {
    let session = Session::new(
        Settings {
            rules: Rules::power11(4).expect("4x4 Power-11"),
            menu: MenuStyle::EasyHard,
        },
        seeded(3),
        MemoryStore::new(),
        AnyPlayer::Random(RandomPlayer),
    );
    let mut out = Vec::new();
    Console::new(session, keys.as_bytes(), &mut out)
        .run()
        .expect("writing to memory never fails");
    String::from_utf8(out).expect("the console prints UTF-8")
}

fn refereeing(c: &mut Criterion) {
    let (keys, out) = transcript();
    let report = referee(&keys, &out, None, &Options::default());
    assert!(
        report.passed(),
        "power11's own transcript passes: {}",
        power11::referee::to_text(&report)
    );
    assert!(report.boards >= BOARDS, "{} boards", report.boards);
    eprintln!("{} keys, {} boards", report.keys, report.boards);
    let mut group = c.benchmark_group("referee");
    group.sample_size(10);
    group.bench_function("transcript_10000_boards", |b| {
        b.iter(|| {
            black_box(referee(
                black_box(&keys),
                black_box(&out),
                None,
                &Options::default(),
            ))
        });
    });
    group.finish();
}

criterion_group!(benches, refereeing);
criterion_main!(benches);
