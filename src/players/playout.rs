//! Headless games: no history, no text, as fast as the board representation allows.
//!
//! A playout runs on a packed board ([`crate::PackedBoard`]) while one fits the game and no tile
//! has reached 2^15, then (if ever) continues on the plain [`Board`], so its result is exactly the
//! plain rules'.

use crate::model::board::Board;
use crate::model::grid::{Grid, OnGrid};
use crate::model::line::tile_points;
use crate::model::packed::{MAX_PACKED_EXPONENT, on_fastest};
use crate::model::rules::{Rules, Score, Spawn};
use crate::players::Player;
use rand::Rng;
use std::sync::atomic::{AtomicBool, Ordering};

/// How one headless game went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The final score.
    pub score: Score,
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
        Spawn::None => 10_000,
        _ => 10_000_000,
    }
}

/// One game in progress, whatever the board's representation.
struct Playout<'a, P, R: ?Sized> {
    rules: &'a Rules,
    player: &'a mut P,
    rng: &'a mut R,
    max_attempts: u64,
    /// Set from outside: the game is given up before its next move.
    stop: &'a AtomicBool,
    record: GameRecord,
}

enum Stop {
    Finished,
    /// Given up: `stop` was set.
    Stopped,
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
    let never = AtomicBool::new(false);
    play_game_until(rules, start, player, rng, max_attempts, &never)
        .expect("a game nobody stops ends by the rules")
}

/// [`play_game`], given up between two moves once `stop` is set (`None`): a run told to stop
/// does not wait for a long game in flight. The same draws in the same order as `play_game`
/// while it goes on.
pub(crate) fn play_game_until<P: Player, R: Rng + ?Sized>(
    rules: &Rules,
    start: Board,
    player: &mut P,
    rng: &mut R,
    max_attempts: u64,
    stop: &AtomicBool,
) -> Option<GameRecord> {
    let playout = Playout {
        rules,
        player,
        rng,
        max_attempts,
        stop,
        record: GameRecord {
            score: 0,
            max_exponent: start.max_exponent(),
            moves: 0,
            attempts: 0,
            won: rules.goal_reached(&start),
            cut_off: false,
        },
    };
    if start.max_exponent() < MAX_PACKED_EXPONENT {
        on_fastest(&start, playout)
    } else {
        playout.run(start)
    }
}

impl<P: Player, R: Rng + ?Sized> OnGrid for Playout<'_, P, R> {
    type Output = Option<GameRecord>;

    fn run<G: Grid>(mut self, mut grid: G) -> Option<GameRecord> {
        let max_exponent = match self.play(&mut grid) {
            Stop::Finished => grid.max_exponent(),
            Stop::Stopped => return None,
            Stop::Unpack => {
                let mut end = grid.to_board();
                if let Stop::Stopped = self.play(&mut end) {
                    return None;
                }
                end.max_exponent()
            }
        };
        Some(GameRecord {
            max_exponent,
            ..self.record
        })
    }
}

impl<P: Player, R: Rng + ?Sized> Playout<'_, P, R> {
    /// Plays on `grid` until the game ends or (on a packed board) a tile reaches the largest
    /// exponent the representation holds, when the caller goes on with the plain board.
    fn play<G: Grid>(&mut self, grid: &mut G) -> Stop {
        let rules = self.rules;
        let goal_points = rules.goal().map_or(u64::MAX, tile_points);
        let limited = G::MAX_EXPONENT <= MAX_PACKED_EXPONENT;
        // This stretch's turns, scored when it ends (`Rules::score_of`).
        let (mut points, mut moved, mut attempts) = (0u64, 0u64, 0u64);
        let stop = loop {
            if self.record.won && !rules.keep_playing() {
                break Stop::Finished;
            }
            // A game that the rules end on its last allowed attempt ended by the rules.
            if !grid.can_move() {
                break Stop::Finished;
            }
            if self.record.attempts + attempts >= self.max_attempts {
                self.record.cut_off = true;
                break Stop::Finished;
            }
            if self.stop.load(Ordering::Relaxed) {
                break Stop::Stopped;
            }
            let direction = self.player.choose(grid, rules, self.rng);
            let turn = rules.apply_move(grid, direction, self.rng);
            attempts += 1;
            points = points.saturating_add(turn.points);
            moved += u64::from(turn.moved);
            // Only a merge worth at least the goal (or the representation's limit) can create
            // such a tile.
            if turn.points >= goal_points && rules.goal_reached(grid) {
                self.record.won = true;
            }
            if limited
                && turn.points >= tile_points(G::MAX_EXPONENT)
                && grid.max_exponent() >= G::MAX_EXPONENT
            {
                break Stop::Unpack;
            }
        };
        let record = &mut self.record;
        record.score = record
            .score
            .saturating_add(rules.score_of(points, moved, attempts - moved));
        record.moves += moved;
        record.attempts += attempts;
        stop
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::direction::Direction;
    use crate::model::random::seeded;
    use crate::players::RandomPlayer;

    #[test]
    fn packed_and_plain_playouts_agree() {
        // The same seed on the same start must give the same game, score and all, whether a
        // playout plays it (packed, its turns scored once at the end) or a Game does (plain
        // board, each turn scored as it is played), under every scoring and spawn rule.
        let classic = Rules::classic();
        let rule_sets = [
            Rules::power11(4).unwrap(),
            Rules::power11(5).unwrap(),
            Rules::mini(),
            Rules::mini().with_goal(Some(16)).unwrap(),
            classic,
            classic.with_spawn(Spawn::Twos),
            classic.with_spawn(Spawn::Edge),
            classic.with_scoring(crate::model::rules::Scoring::Moves),
            classic.with_fill(0.5).unwrap(),
            Rules::power11(6).unwrap(),
        ];
        for rules in rule_sets {
            for seed in 0..20 {
                let mut rng = seeded(seed);
                let start = rules.new_board(&mut rng);
                assert_same_game(rules, start, rng, &format!("{rules:?}, seed {seed}"));
            }
        }
    }

    /// Plays `start` with the random player as a playout and as a [`Game`] from the same
    /// random stream, and checks that they are the same game.
    fn assert_same_game(
        rules: Rules,
        start: Board,
        rng: crate::model::random::GameRng,
        what: &str,
    ) {
        assert_same_game_within(rules, start, rng, 100_000, what);
    }

    /// [`assert_same_game`] with at most `limit` attempts: the same cut-off too.
    fn assert_same_game_within(
        rules: Rules,
        start: Board,
        mut rng: crate::model::random::GameRng,
        limit: u64,
        what: &str,
    ) {
        let mut replay = rng.clone();
        let record = play_game(&rules, start, &mut RandomPlayer, &mut rng, limit);
        let mut game = crate::model::game::Game::from_board(rules, start);
        let (mut attempts, mut moves) = (0, 0);
        while game.status() == crate::model::game::Status::Playing && attempts < limit {
            let d = RandomPlayer.choose(game.board(), &rules, &mut replay);
            moves += u64::from(game.play(d, &mut replay).moved);
            attempts += 1;
        }
        assert_eq!(
            (record.score, record.attempts, record.moves),
            (game.score(), attempts, moves),
            "{what}"
        );
        assert_eq!(record.max_exponent, game.board().max_exponent(), "{what}");
        let goal = rules.goal().unwrap_or(u8::MAX);
        assert_eq!(record.won, game.board().max_exponent() >= goal, "{what}");
        let playing = game.status() == crate::model::game::Status::Playing;
        assert_eq!(record.cut_off, playing, "{what}");
    }

    #[test]
    fn a_playout_that_makes_32768_goes_on_on_the_plain_board_with_the_same_score() {
        // Four 16384s: the playout starts packed, moves to the plain board when they make
        // 32768s, which merge into 65536 there; the score, moves and attempts add up the turns
        // of both boards, under either scoring rule and whichever board the cut-off falls on.
        let start = Board::from_values(&[
            vec![16384, 16384, 16384, 16384],
            vec![0, 0, 0, 0],
            vec![0, 0, 0, 0],
            vec![0, 0, 0, 4],
        ])
        .unwrap();
        let mut reached_65536 = false;
        let merges = Rules::classic().with_goal(None).unwrap();
        let moves = merges.with_scoring(crate::model::rules::Scoring::Moves);
        for rules in [merges, moves] {
            for seed in 0..20 {
                let rng = seeded(seed);
                let what = format!("{:?}, seed {seed}", rules.scoring());
                assert_same_game(rules, start, rng.clone(), &what);
                for limit in [0, 1, 2, 3, 5, 50] {
                    let what = format!("{what}, at most {limit} attempts");
                    assert_same_game_within(rules, start, rng.clone(), limit, &what);
                }
                let record = play_game(&rules, start, &mut RandomPlayer, &mut rng.clone(), 100_000);
                reached_65536 |= record.max_exponent >= 16;
            }
        }
        assert!(reached_65536, "some game merged the 32768s");
    }

    #[test]
    fn a_game_the_rules_end_on_its_last_allowed_attempt_is_not_cut_off() {
        // A board with no move left, and no attempt allowed: over by the rules, not cut off.
        let dead = Board::from_values(&[
            vec![2, 4, 2, 4],
            vec![4, 2, 4, 2],
            vec![2, 4, 2, 4],
            vec![4, 2, 4, 2],
        ])
        .unwrap();
        let rules = Rules::classic();
        let record = play_game(&rules, dead, &mut RandomPlayer, &mut seeded(1), 0);
        assert!(!record.cut_off);
        assert_eq!(record.attempts, 0);
        // A board one move from the end (Left merges the two 2s, and the new tile fills the
        // hole): over after the one attempt allowed, whichever tile comes.
        let last = Board::from_values(&[
            vec![2, 2, 8, 16],
            vec![32, 64, 128, 256],
            vec![16, 8, 4, 2],
            vec![64, 32, 16, 8],
        ])
        .unwrap();
        let rules = Rules::classic().with_spawn(Spawn::Twos);
        let left_only = (0..64)
            .map(seeded)
            .find(|rng| RandomPlayer.choose(&last, &rules, &mut rng.clone()) == Direction::Left)
            .expect("some seed moves Left first");
        let record = play_game(&rules, last, &mut RandomPlayer, &mut left_only.clone(), 1);
        assert_eq!(
            (record.attempts, record.moves, record.cut_off),
            (1, 1, false)
        );
    }

    #[test]
    fn spawn_none_games_are_cut_off() {
        let rules = Rules::mini().with_spawn(Spawn::None);
        let start = rules.new_board(&mut seeded(1));
        let record = play_game(&rules, start, &mut RandomPlayer, &mut seeded(2), 500);
        assert!(record.cut_off);
        assert_eq!(record.attempts, 500);
    }
}
