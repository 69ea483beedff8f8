//! Engine benchmarks: `cargo bench`.
//!
//! - one move on a 4x4 board, packed (`Board4`) and plain (`Board`);
//! - one whole random-player game on 4x4 Power-11 rules;
//! - one expectimax decision on a mid-game 4x4 board, and on a 5x5 board.

use criterion::{Criterion, criterion_group, criterion_main};
use power11::ai::{Expectimax, RandomPlayer};
use power11::playout::play_game;
use power11::random::seeded;
use power11::{Board, Board4, Direction, Grid, Rules};
use std::hint::black_box;

fn mid_game() -> Board {
    Board::from_values(&[
        vec![2, 4, 8, 2],
        vec![4, 32, 64, 16],
        vec![8, 128, 256, 0],
        vec![1024, 512, 4, 0],
    ])
    .expect("a valid board")
}

fn moves(c: &mut Criterion) {
    let plain = mid_game();
    let packed = Board4::from_board(&plain).expect("fits");
    Board4::warm_up();
    c.bench_function("move_4x4_packed_left", |b| {
        b.iter(|| black_box(black_box(packed).slide(Direction::Left)))
    });
    c.bench_function("move_4x4_packed_up", |b| {
        b.iter(|| black_box(black_box(packed).slide(Direction::Up)))
    });
    c.bench_function("move_4x4_plain_left", |b| {
        b.iter(|| black_box(black_box(plain).slide(Direction::Left)))
    });
}

fn random_game(c: &mut Criterion) {
    let rules = Rules::power11(4).expect("4 is valid");
    let mut seed = 0;
    c.bench_function("random_game_4x4", |b| {
        b.iter(|| {
            seed += 1;
            let mut rng = seeded(seed);
            let start = rules.new_board(&mut rng);
            black_box(play_game(
                &rules,
                start,
                &mut RandomPlayer,
                &mut rng,
                u64::MAX,
            ))
        })
    });
}

fn expectimax_decision(c: &mut Criterion) {
    let rules = Rules::power11(4).expect("4 is valid");
    let packed = Board4::from_board(&mid_game()).expect("fits");
    let player = Expectimax::default();
    c.bench_function("expectimax_decision_4x4", |b| {
        b.iter(|| black_box(player.advise(black_box(&packed), &rules)))
    });
    let rules5 = Rules::power11(5).expect("5 is valid");
    let mut board5 = Board::empty(5).expect("5 is valid");
    for (i, e) in [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 1, 9, 2]
        .into_iter()
        .enumerate()
    {
        board5.set(i / 5, i % 5, e);
    }
    c.bench_function("expectimax_decision_5x5", |b| {
        b.iter(|| black_box(player.advise(black_box(&board5), &rules5)))
    });
}

criterion_group!(benches, moves, random_game, expectimax_decision);
criterion_main!(benches);
