//! Property tests: the move invariants, the symmetry of the four directions, the packed engine
//! against the plain rules, and every variant's turn on every size.

use power11::players::heuristic::{evaluate, line_score};
use power11::players::{Expectimax, Player, SearchConfig};
use power11::random::seeded;
use power11::{
    Board, Board3, Board4, Board5, Direction, Grid, Rules, Spawn, edge_cell, slide_line,
    tile_points,
};
use proptest::prelude::*;

/// A reference slide written the other way round: compact, then merge pairs left to right.
fn reference_slide(line: &[u8]) -> (Vec<u8>, u64) {
    let tiles: Vec<u8> = line.iter().copied().filter(|&e| e > 0).collect();
    let mut out = Vec::new();
    let mut points = 0;
    let mut i = 0;
    while i < tiles.len() {
        if i + 1 < tiles.len() && tiles[i] == tiles[i + 1] {
            out.push(tiles[i] + 1);
            points += tile_points(tiles[i] + 1);
            i += 2;
        } else {
            out.push(tiles[i]);
            i += 1;
        }
    }
    out.resize(line.len(), 0);
    (out, points)
}

fn line_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![3 => Just(0u8), 5 => 1u8..6, 1 => 1u8..20],
        0..=8,
    )
}

fn board_strategy(max_exponent: u8) -> impl Strategy<Value = Board> {
    (3usize..=8).prop_flat_map(move |n| {
        prop::collection::vec(prop_oneof![2 => Just(0u8), 3 => 1..=max_exponent], n * n)
            .prop_map(move |cells| Board::from_exponents(n, &cells).unwrap())
    })
}

/// Full boards (a tile in every cell) of sizes 3 to 8, with few different tiles so that some
/// can still move and some (mostly the small ones) are stuck.
fn full_board_strategy() -> impl Strategy<Value = Board> {
    (3usize..=8).prop_flat_map(|n| {
        prop::collection::vec(1u8..=6, n * n)
            .prop_map(move |cells| Board::from_exponents(n, &cells).unwrap())
    })
}

/// Boards of size `n` with every exponent a packed board takes (1..=14), small ones more often
/// so that merges happen.
fn packable_strategy(n: usize) -> impl Strategy<Value = Board> {
    prop::collection::vec(
        prop_oneof![2 => Just(0u8), 3 => 1u8..=4, 3 => 1u8..=14],
        n * n,
    )
    .prop_map(move |cells| Board::from_exponents(n, &cells).unwrap())
}

/// Checks a packed board against the plain one it was made from, in every direction.
fn check_packed<G: Grid>(packed: G, board: Board) -> Result<(), TestCaseError> {
    prop_assert_eq!(packed.to_board(), board);
    prop_assert_eq!(packed.empty_count(), board.empty_count());
    prop_assert_eq!(packed.max_exponent(), board.max_exponent());
    prop_assert_eq!(packed.can_move(), board.can_move());
    for direction in Direction::ALL {
        let plain = board.slide(direction);
        // The one documented difference: two 32768s cannot merge into 65536 when packed.
        if plain.is_some_and(|(b, _)| b.max_exponent() > 15) {
            continue;
        }
        let fast = packed.slide(direction).map(|(b, p)| (b.to_board(), p));
        prop_assert_eq!(fast, plain, "direction {}", direction);
    }
    for k in 0..=board.size() * board.size() {
        prop_assert_eq!(packed.nth_empty(k), board.nth_empty(k));
    }
    Ok(())
}

fn mirror(board: &Board) -> Board {
    let n = board.size();
    let mut out = *board;
    for r in 0..n {
        for c in 0..n {
            out.set(r, c, board.get(r, n - 1 - c));
        }
    }
    out
}

fn transpose(board: &Board) -> Board {
    let n = board.size();
    let mut out = *board;
    for r in 0..n {
        for c in 0..n {
            out.set(r, c, board.get(c, r));
        }
    }
    out
}

/// Whether line `k` of `board`, read in the direction of motion, has an empty cell before a tile.
fn has_hole(board: &Board, direction: Direction) -> bool {
    let n = board.size();
    (0..n).any(|line| {
        let cells: Vec<u8> = (0..n)
            .map(|k| {
                let (r, c) = direction.line_cell(n, line, k);
                board.get(r, c)
            })
            .collect();
        cells.windows(2).any(|w| w[0] == 0 && w[1] != 0)
    })
}

proptest! {
    /// The fuzz targets' properties on stable, so a regression fails CI without nightly: the
    /// parsers, the save round trip and whole sessions (the console's and the MIPS interface's)
    /// on arbitrary bytes.
    #[test]
    fn arbitrary_bytes_never_panic_the_parsers_or_a_session(
        bytes in prop_oneof![
            prop::collection::vec(any::<u8>(), 0..400),
            // Mostly file-like text: frames, cells, scores and keys.
            prop::collection::vec(
                prop::sample::select(b"#|# 0248\n\nScore: -1lurdbsaqkn\r\x1b[A".to_vec()),
                0..400,
            ),
            // The MIPS interface's keys and start-state numbers, one a line.
            prop::collection::vec(
                prop::sample::select(
                    ["1", "2", "X", "W", "A", "S", "D", "3", "4", "0", "256", "512", "w", ""]
                        .map(|key| format!("{key}\n"))
                        .to_vec(),
                ),
                0..200,
            )
            .prop_map(|lines| lines.concat().into_bytes()),
        ],
    ) {
        power11::fuzzing::parse(&bytes);
        power11::fuzzing::round_trip(&bytes);
        power11::fuzzing::session(&bytes);
    }

    /// Every state a game can reach saves and reads back: boards with tiles up to 2^63, any
    /// size and rule set, a random walk of moves, the whole timeline through the save format.
    #[test]
    fn every_reachable_game_saves_and_reads_back(
        board in board_strategy(power11::MAX_TILE_EXPONENT),
        variant in prop_oneof![Just(power11::Variant::Power11), Just(power11::Variant::Classic), Just(power11::Variant::Mini), Just(power11::Variant::Edge)],
        moves in prop::collection::vec(0usize..4, 0..60),
        seed in any::<u64>(),
    ) {
        prop_assume!(board.max_exponent() > 0);
        let rules = Rules::preset(variant).with_goal(None).unwrap();
        let mut game = power11::Game::from_board(rules, board);
        let mut rng = seeded(seed);
        for m in moves {
            game.play(Direction::ALL[m], &mut rng);
        }
        let timeline = game.timeline();
        let text = power11::text::render_save(timeline);
        let read = power11::text::parse_save(&text);
        prop_assert_eq!(read.as_ref(), Ok(timeline), "{}", text);
        let resumed = power11::Game::from_timeline(rules, read.unwrap());
        prop_assert_eq!(resumed.score(), game.score());
        prop_assert_eq!(resumed.board(), game.board());
    }

    #[test]
    fn slide_line_matches_the_reference_and_claims_its_score(line in line_strategy()) {
        let mut slid = line.clone();
        let result = slide_line(&mut slid);
        let (expected, points) = reference_slide(&line);
        prop_assert_eq!(&slid, &expected);
        if expected == line {
            prop_assert_eq!(result, None);
        } else {
            prop_assert_eq!(result, Some(points));
        }
    }

    #[test]
    fn a_move_keeps_the_tile_sum_and_leaves_no_hole(board in board_strategy(12)) {
        for direction in Direction::ALL {
            if let Some((after, points)) = board.slide(direction) {
                prop_assert_eq!(after.tile_sum(), board.tile_sum());
                prop_assert!(!has_hole(&after, direction));
                // The points are the values of the merged tiles: tiles lost = merges.
                let tiles = |b: &Board| b.exponents().iter().filter(|&&e| e > 0).count();
                prop_assert_eq!(tiles(&after) < tiles(&board), points > 0);
            } else {
                prop_assert!(!has_hole(&board, direction));
            }
        }
    }

    #[test]
    fn the_four_directions_agree_under_reflection_and_transposition(board in board_strategy(12)) {
        let left = board.slide(Direction::Left);
        let right = mirror(&board).slide(Direction::Right).map(|(b, p)| (mirror(&b), p));
        prop_assert_eq!(left, right);
        let up = board.slide(Direction::Up);
        let via_left = transpose(&board).slide(Direction::Left).map(|(b, p)| (transpose(&b), p));
        prop_assert_eq!(up, via_left);
        let down = board.slide(Direction::Down);
        let via_right = transpose(&board).slide(Direction::Right).map(|(b, p)| (transpose(&b), p));
        prop_assert_eq!(down, via_right);
    }

    #[test]
    fn can_move_says_whether_some_direction_changes_the_board(
        board in prop_oneof![board_strategy(6), full_board_strategy()],
    ) {
        // `can_move` only tries Left and Up on a full board; this checks that shortcut.
        let any = Direction::ALL.iter().any(|&d| board.slide(d).is_some());
        prop_assert_eq!(board.can_move(), any);
    }

    #[test]
    fn packed_engine_equals_the_plain_rules(board in packable_strategy(4)) {
        let packed = Board4::from_board(&board).unwrap();
        check_packed(packed, board)?;
        // The packed 4x4 evaluation adds its 8 line scores in another order: equal up to the
        // rounding of 8 f32 additions, which is relative to the scores' sizes, not to their
        // sum (scores of -764,299 and +201,080 can sum to -12.2).
        let scores: f32 = (0..4)
            .flat_map(|i| {
                let row: Vec<u8> = (0..4).map(|k| board.get(i, k)).collect();
                let column: Vec<u8> = (0..4).map(|k| board.get(k, i)).collect();
                [line_score(&row).abs(), line_score(&column).abs()]
            })
            .sum();
        prop_assert!((evaluate(&packed) - evaluate(&board)).abs() <= 1e-6 * scores.max(1.0));
    }

    #[test]
    fn packed_boards_can_move_exactly_when_a_plain_full_board_can(
        cells in prop::collection::vec(1u8..=6, 25),
    ) {
        // Full boards take the packed `can_move`'s only slow path (Left, then Up); random
        // packable boards are rarely full.
        for n in 3..=5 {
            let board = Board::from_exponents(n, &cells[..n * n]).unwrap();
            let any = Direction::ALL.iter().any(|&d| board.slide(d).is_some());
            let packed = match n {
                3 => Board3::from_board(&board).unwrap().can_move(),
                4 => Board4::from_board(&board).unwrap().can_move(),
                _ => Board5::from_board(&board).unwrap().can_move(),
            };
            prop_assert_eq!(packed, any, "{}x{}", n, n);
        }
    }

    #[test]
    fn packed_3x3_and_5x5_equal_the_plain_rules(
        board3 in packable_strategy(3),
        board5 in packable_strategy(5),
    ) {
        let packed3 = Board3::from_board(&board3).unwrap();
        check_packed(packed3, board3)?;
        let packed5 = Board5::from_board(&board5).unwrap();
        check_packed(packed5, board5)?;
        // The same evaluation to the bit, so a search decides exactly as on the plain board.
        prop_assert_eq!(evaluate(&packed3).to_bits(), evaluate(&board3).to_bits());
        prop_assert_eq!(evaluate(&packed5).to_bits(), evaluate(&board5).to_bits());
    }

    #[test]
    fn every_variant_keeps_the_move_invariants_on_every_size(
        board in board_strategy(9),
        variant in prop_oneof![Just(power11::Variant::Power11), Just(power11::Variant::Classic), Just(power11::Variant::Mini), Just(power11::Variant::Edge)],
        seed in any::<u64>(),
    ) {
        let rules = Rules::preset(variant).with_size(board.size()).unwrap();
        let mut rng = seeded(seed);
        for direction in Direction::ALL {
            let mut after = board;
            let turn = rules.apply_move(&mut after, direction, &mut rng);
            match board.slide(direction) {
                None => {
                    prop_assert!(!turn.moved);
                    prop_assert_eq!(after, board);
                }
                Some((slid, points)) => {
                    prop_assert!(turn.moved);
                    prop_assert_eq!(turn.points, points);
                    let new: Vec<_> = (0..board.size() * board.size())
                        .map(|i| (i / board.size(), i % board.size()))
                        .filter(|&(r, c)| slid.get(r, c) != after.get(r, c))
                        .collect();
                    prop_assert_eq!(new.len(), 1, "one new tile");
                    let (r, c) = new[0];
                    prop_assert_eq!(slid.get(r, c), 0);
                    match rules.spawn() {
                        Spawn::Twos | Spawn::Edge => prop_assert_eq!(after.get(r, c), 1),
                        _ => prop_assert!(matches!(after.get(r, c), 1 | 2)),
                    }
                    if rules.spawn() == Spawn::Edge {
                        prop_assert_eq!(Some((r, c)), edge_cell(&slid, direction));
                    }
                    prop_assert!(!has_hole(&slid, direction));
                    prop_assert_eq!(slid.tile_sum(), board.tile_sum());
                }
            }
        }
    }

    #[test]
    fn search_never_picks_a_move_that_changes_nothing(board in board_strategy(10), seed in any::<u64>()) {
        let rules = Rules::classic().with_size(board.size()).unwrap();
        prop_assume!(board.can_move());
        let mut player = Expectimax::new(SearchConfig { depth: Some(1), ..Default::default() });
        let direction = player.choose(&board, &rules, &mut seeded(seed));
        prop_assert!(board.slide(direction).is_some());
    }
}

#[test]
fn search_takes_a_winning_merge() {
    // Two 1024s side by side in a crowded board: Left (or Right) wins at once.
    let board = Board::from_values(&[
        vec![2, 4, 1024, 1024],
        vec![4, 8, 16, 32],
        vec![8, 16, 32, 64],
        vec![2, 4, 8, 2],
    ])
    .unwrap();
    let rules = Rules::power11(4).unwrap();
    let advice = Expectimax::default().advise_board(&board, &rules).unwrap();
    assert!(advice.wins);
    assert!(matches!(
        advice.direction,
        Direction::Left | Direction::Right
    ));
    // Also on the plain engine (5x5).
    let mut big = Board::empty(5).unwrap();
    big.set(4, 0, 8);
    big.set(4, 1, 8);
    let rules = Rules::mini().with_size(5).unwrap();
    let advice = Expectimax::default().advise(&big, &rules).unwrap();
    assert!(advice.wins && matches!(advice.direction, Direction::Left | Direction::Right));
}
