//! Engine benchmarks: `cargo bench`.
//!
//! - one move on a 4x4 board, packed (`Board4`) and plain (`Board`), and on packed 3x3 and 5x5;
//! - a batch of random-player games on 4x4 Power-11 rules, on our engine and on a hand-tuned
//!   baseline ([`baseline`]): the engine ratio;
//! - one expectimax decision on early, middle and late 4x4 boards, and on a 5x5 board (packed
//!   and plain);
//! - one learned-player decision at depths 1 to 3 on the middle 4x4 board, with a 4x6 network
//!   trained briefly in the setup (the time is the network's reads, not what it learned).

mod baseline;

use criterion::{Criterion, criterion_group, criterion_main};
use power11::learning::ntuple::{Network, Stages, TupleSet};
use power11::learning::td::{Learning, learn_game};
use power11::players::{Expectimax, LearnedPlayer, SearchConfig};
use power11::random::seeded;
use power11::{Board, Board3, Board4, Board5, Direction, Grid, Rules};
use std::hint::black_box;
use std::sync::Arc;

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
        b.iter(|| black_box(black_box(packed).slide(Direction::Left)));
    });
    c.bench_function("move_4x4_packed_up", |b| {
        b.iter(|| black_box(black_box(packed).slide(Direction::Up)));
    });
    c.bench_function("move_4x4_plain_left", |b| {
        b.iter(|| black_box(black_box(plain).slide(Direction::Left)));
    });
    let board3 = Board3::from_board(
        &Board::from_values(&[vec![2, 4, 8], vec![4, 4, 0], vec![2, 16, 2]])
            .expect("a valid board"),
    )
    .expect("fits");
    Board3::warm_up();
    c.bench_function("move_3x3_packed_up", |b| {
        b.iter(|| black_box(black_box(board3).slide(Direction::Up)));
    });
    let plain5 = board5();
    let packed5 = Board5::from_board(&plain5).expect("fits");
    Board5::warm_up();
    c.bench_function("move_5x5_packed_up", |b| {
        b.iter(|| black_box(black_box(packed5).slide(Direction::Up)));
    });
    c.bench_function("move_5x5_plain_up", |b| {
        b.iter(|| black_box(black_box(plain5).slide(Direction::Up)));
    });
}

fn board5() -> Board {
    let mut board = Board::empty(5).expect("5 is valid");
    for (i, e) in [1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 1, 9, 2]
        .into_iter()
        .enumerate()
    {
        board.set(i / 5, i % 5, e);
    }
    board
}

/// Random-player games on our engine (`play_game`) and on the hand-tuned baseline, the same
/// seeded games on both ([`baseline::Batch`]): `random_games_4x4_baseline / random_games_4x4`
/// is the engine ratio (above 1: ours is faster).
fn random_game(c: &mut Criterion) {
    let engine = baseline::TableEngine::new();
    Board4::warm_up();
    baseline::check_same_games(&engine, 200);
    let batch = baseline::Batch::new();
    let mut group = c.benchmark_group("engine_ratio");
    group.bench_function("random_games_4x4", |b| b.iter(|| batch.play_ours()));
    group.bench_function("random_games_4x4_baseline", |b| {
        b.iter(|| batch.play_baseline(&engine));
    });
    group.finish();
}

/// An early position: few tiles, so many places for the new tile (the search's widest nodes).
fn early_game() -> Board {
    Board::from_values(&[
        vec![0, 0, 2, 0],
        vec![0, 4, 0, 0],
        vec![2, 8, 16, 0],
        vec![32, 8, 4, 2],
    ])
    .expect("a valid board")
}

/// A late classic position: many distinct tiles, so the depth policy searches deepest.
fn late_game() -> Board {
    Board::from_values(&[
        vec![2, 0, 0, 0],
        vec![4, 8, 2, 0],
        vec![64, 32, 16, 8],
        vec![1024, 2048, 4096, 8192],
    ])
    .expect("a valid board")
}

/// One decision of the default search (its depth policy) on early, middle and late 4x4
/// positions, and at a fixed depth 3 on the early one.
fn expectimax_decision(c: &mut Criterion) {
    let rules = Rules::power11(4).expect("4 is valid");
    let classic = Rules::classic();
    let player = Expectimax::default();
    for (name, board, rules) in [
        ("expectimax_decision_4x4_early", early_game(), &classic),
        ("expectimax_decision_4x4", mid_game(), &rules),
        ("expectimax_decision_4x4_late", late_game(), &classic),
    ] {
        let packed = Board4::from_board(&board).expect("fits");
        c.bench_function(name, |b| {
            b.iter(|| black_box(player.advise(black_box(&packed), rules)));
        });
    }
    let depth3 = Expectimax::new(SearchConfig {
        depth: Some(3),
        ..SearchConfig::default()
    });
    let packed = Board4::from_board(&early_game()).expect("fits");
    c.bench_function("expectimax_decision_4x4_depth3", |b| {
        b.iter(|| black_box(depth3.advise(black_box(&packed), &classic)));
    });
    let rules5 = Rules::power11(5).expect("5 is valid");
    let plain5 = board5();
    let packed5 = Board5::from_board(&plain5).expect("fits");
    c.bench_function("expectimax_decision_5x5_packed", |b| {
        b.iter(|| black_box(player.advise(black_box(&packed5), &rules5)));
    });
    c.bench_function("expectimax_decision_5x5_plain", |b| {
        b.iter(|| black_box(player.advise(black_box(&plain5), &rules5)));
    });
}

/// One learned-player decision at depths 1-3 on the middle 4x4 position (classic rules).
fn learned_decision(c: &mut Criterion) {
    let network = Network::new(TupleSet::Sixes, Stages::single());
    let mut rng = seeded(1);
    let mut path = Vec::new();
    for _ in 0..500 {
        learn_game(&network, Learning::td0(0.1), &mut rng, &mut path);
    }
    let network = Arc::new(network);
    let classic = Rules::classic();
    let packed = Board4::from_board(&mid_game()).expect("fits");
    for depth in 1..=3 {
        let player = LearnedPlayer::new(Arc::clone(&network), Some(depth));
        c.bench_function(&format!("learned_decision_4x4_depth{depth}"), |b| {
            b.iter(|| black_box(player.advise(black_box(&packed), &classic)));
        });
    }
}

/// One full-screen frame of a 4x4 game: built ([`render`]) and written as terminal output into
/// a buffer, as `--tui` does for every redraw.
fn tui_frame(c: &mut Criterion) {
    use power11::session::{MenuStyle, Screen};
    use power11::tui::{ColorMode, Painter, View, render};
    let rules = Rules::classic();
    let game = power11::Game::from_board(rules, mid_game());
    c.bench_function("tui_frame_4x4_truecolor", |b| {
        b.iter(|| {
            let view = View {
                screen: Screen::Game {
                    game: &game,
                    best: 20_000,
                },
                rules: &rules,
                menu: MenuStyle::OneSize,
                new_tile: Some((3, 3)),
                status: "Game saved to power11.saved.",
                advised: None,
                autoplay: false,
                counted: true,
                help: false,
                colors: ColorMode::TrueColor,
                motion: None,
                played: std::time::Duration::ZERO,
            };
            // A whole frame: the painter has none before it, as on the first frame and after a
            // resize.
            let mut out = Vec::with_capacity(8192);
            Painter::new()
                .paint(&render(black_box(&view), 120, 40), &mut out)
                .expect("writing to memory");
            black_box(out)
        });
    });
}

criterion_group!(
    benches,
    moves,
    random_game,
    expectimax_decision,
    learned_decision,
    tui_frame
);
criterion_main!(benches);
