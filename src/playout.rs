//! Headless games: no history, no text, as fast as the board representation allows.
//!
//! A playout runs on the packed [`Board4`] while the game is 4x4 and no tile has reached 2^15,
//! then (if ever) continues on the plain [`Board`], so its result is exactly the plain rules'.

use crate::ai::Player;
use crate::board::Board;
use crate::grid::Grid;
use crate::line::tile_points;
use crate::packed::{Board4, MAX_PACKED_EXPONENT};
use crate::rules::Rules;
use rand_core::Rng;

/// How one headless game went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The final score.
    pub score: i64,
    /// The largest tile's exponent at the end.
    pub max_exponent: u8,
    /// Moves that changed the board.
    pub moves: u64,
    /// Moves attempted (including ones that changed nothing).
    pub attempts: u64,
    /// Whether the goal tile was reached.
    pub won: bool,
    /// Whether the game was cut off by the attempt limit rather than ending by the rules.
    pub cut_off: bool,
}

/// The default limit on attempts per game: no real game comes near it, but a game with no new
/// tiles (`--spawn none`) could otherwise go on for ever.
pub fn default_attempt_limit(rules: &Rules) -> u64 {
    match rules.spawn() {
        crate::rules::Spawn::None => 10_000,
        _ => 10_000_000,
    }
}

struct State<G> {
    grid: G,
    record: GameRecord,
}

enum Stop {
    Finished,
    /// The packed board is about to overflow: continue on the plain board.
    Unpack,
}

/// Plays one game from `start` with `player` until the rules end it (or `max_attempts`).
/// A game that reaches its goal ends there unless the rules keep playing (classic).
pub fn play_game<P: Player, R: Rng + ?Sized>(
    rules: &Rules,
    start: Board,
    player: &mut P,
    rng: &mut R,
    max_attempts: u64,
) -> GameRecord {
    let record = GameRecord {
        score: 0,
        max_exponent: start.max_exponent(),
        moves: 0,
        attempts: 0,
        won: rules.goal_reached(&start),
        cut_off: false,
    };
    let record = match Board4::from_board(&start) {
        Some(packed) if start.max_exponent() < MAX_PACKED_EXPONENT => {
            let mut state = State {
                grid: packed,
                record,
            };
            match run(&mut state, rules, player, rng, max_attempts, true) {
                Stop::Finished => return finish(state),
                Stop::Unpack => {
                    let mut plain = State {
                        grid: state.grid.to_board(),
                        record: state.record,
                    };
                    run(&mut plain, rules, player, rng, max_attempts, false);
                    return finish(plain);
                }
            }
        }
        _ => record,
    };
    let mut state = State {
        grid: start,
        record,
    };
    run(&mut state, rules, player, rng, max_attempts, false);
    finish(state)
}

fn finish<G: Grid>(state: State<G>) -> GameRecord {
    GameRecord {
        max_exponent: state.grid.max_exponent(),
        ..state.record
    }
}

fn run<G: Grid, P: Player, R: Rng + ?Sized>(
    state: &mut State<G>,
    rules: &Rules,
    player: &mut P,
    rng: &mut R,
    max_attempts: u64,
    packed: bool,
) -> Stop {
    let goal_points = rules.goal().map_or(u64::MAX, tile_points);
    let record = &mut state.record;
    loop {
        if record.won && !rules.keep_playing() {
            return Stop::Finished;
        }
        if record.attempts >= max_attempts {
            record.cut_off = true;
            return Stop::Finished;
        }
        if !state.grid.can_move() {
            return Stop::Finished;
        }
        let direction = player.choose(&state.grid, rules, rng);
        let turn = rules.apply_move(&mut state.grid, direction, rng);
        record.attempts += 1;
        record.score = record.score.saturating_add(turn.score_delta);
        if turn.moved {
            record.moves += 1;
        }
        // Only a merge worth at least the goal (or 2^15) can create such a tile.
        if turn.points >= goal_points && rules.goal_reached(&state.grid) {
            record.won = true;
        }
        if packed
            && turn.points >= tile_points(MAX_PACKED_EXPONENT)
            && state.grid.max_exponent() >= MAX_PACKED_EXPONENT
        {
            return Stop::Unpack;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::RandomPlayer;
    use crate::random::seeded;

    #[test]
    fn packed_and_plain_playouts_agree() {
        // The same seed on the same start must give the same game on both engines: compare a
        // playout (packed) with a Game (plain) driven by the same random directions.
        for seed in 0..20 {
            let rules = Rules::power11(4).unwrap();
            let mut rng = seeded(seed);
            let start = rules.new_board(&mut rng);
            let mut replay = rng.clone();
            let record = play_game(&rules, start, &mut RandomPlayer, &mut rng, u64::MAX);
            let mut game = crate::game::Game::from_board(rules, start);
            let mut attempts = 0;
            while game.status() == crate::game::Status::Playing {
                let d = RandomPlayer.choose(game.board(), &rules, &mut replay);
                game.play(d, &mut replay);
                attempts += 1;
            }
            assert_eq!((record.score, record.attempts), (game.score(), attempts));
            assert_eq!(record.max_exponent, game.board().max_exponent());
        }
    }

    #[test]
    fn spawn_none_games_are_cut_off() {
        let rules = Rules::mini().with_spawn(crate::rules::Spawn::None);
        let start = rules.new_board(&mut seeded(1));
        let record = play_game(&rules, start, &mut RandomPlayer, &mut seeded(2), 500);
        assert!(record.cut_off);
        assert_eq!(record.attempts, 500);
    }
}
