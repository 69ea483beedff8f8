//! Engine benchmarks: `cargo bench`.
//!
//! - one move on a 4x4 board, packed (`Board4`) and plain (`Board`), and on packed 3x3 and 5x5;
//! - one whole random-player game on 4x4 Power-11 rules;
//! - one expectimax decision on a mid-game 4x4 board, and on a 5x5 board (packed and plain).

use criterion::{Criterion, criterion_group, criterion_main};
use power11::ai::{Expectimax, RandomPlayer};
use power11::random::seeded;
use power11::{Board, Board3, Board4, Board5, Direction, Grid, Rules, play_game};
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
        });
    });
}

fn expectimax_decision(c: &mut Criterion) {
    let rules = Rules::power11(4).expect("4 is valid");
    let packed = Board4::from_board(&mid_game()).expect("fits");
    let player = Expectimax::default();
    c.bench_function("expectimax_decision_4x4", |b| {
        b.iter(|| black_box(player.advise(black_box(&packed), &rules)));
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

/// One full-screen frame of a 4x4 game: built ([`render`]) and written as terminal output into
/// a buffer, as `--tui` does for every redraw.
fn tui_frame(c: &mut Criterion) {
    use power11::session::{MenuStyle, Screen};
    use power11::tui::{ColorMode, View, render};
    let rules = Rules::classic();
    let game = power11::Game::from_board(rules, mid_game());
    c.bench_function("tui_frame_4x4_truecolor", |b| {
        b.iter(|| {
            let view = View {
                screen: Screen::Game {
                    game: &game,
                    best: Some(20_000),
                },
                rules: &rules,
                menu: MenuStyle::OneSize,
                new_tile: Some((3, 3)),
                status: "Game saved to power11.saved.",
                advised: None,
                autoplay: false,
                help: false,
                colors: ColorMode::TrueColor,
            };
            let mut out = Vec::with_capacity(8192);
            render(black_box(&view), 120, 40)
                .write_to(&mut out)
                .expect("writing to memory");
            black_box(out)
        });
    });
}

criterion_group!(benches, moves, random_game, expectimax_decision, tui_frame);
criterion_main!(benches);
