//! A 7x7 `edge` game played from Rust: `cargo run --example edge7`.

use power11::{Direction, Game, Rules, Status, random::seeded, text::render_board};

fn main() {
    let mut rng = seeded(7);
    let mut game = Game::new(
        Rules::edge().with_size(7).expect("7 is a valid size"),
        &mut rng,
    );
    for direction in Direction::ALL.iter().cycle() {
        if game.status() != Status::Playing {
            break;
        }
        game.play(*direction, &mut rng);
    }
    print!("{}", render_board(game.board()));
    println!("Game over with a score of {}", game.score());
}
