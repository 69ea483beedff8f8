//! The search's decisions, move by move (issue: search speed and strength).
//!
//! Speed work on the search must not change what it plays: `fixtures/search/moves.txt` holds
//! every move expectimax made in a set of seeded games (several rule sets, fixed depths and the
//! depth policy, packed and plain boards), recorded before the search was made faster. Each
//! case is replayed here and must make exactly the same moves and end at the same score.
//!
//! A deliberate change of the search's behaviour re-records the file with `POWER11_BLESS=1`,
//! and the diff is read before it is committed.

use crate::common::fixture;
use power11::bench::game_seed;
use power11::players::{Expectimax, Player, SearchConfig};
use power11::random::seeded;
use power11::{Board, Direction, Grid, Rules, Spawn, play_game};
use rand::Rng;
use std::fmt::Write as _;

/// An expectimax player that writes down each move it chooses.
struct Recorder {
    player: Expectimax,
    moves: String,
}

impl Player for Recorder {
    fn name(&self) -> &'static str {
        "recorder"
    }

    fn choose<G: Grid, R: Rng + ?Sized>(
        &mut self,
        grid: &G,
        rules: &Rules,
        rng: &mut R,
    ) -> Direction {
        let direction = self.player.choose(grid, rules, rng);
        self.moves.push(direction.key());
        direction
    }
}

/// One recorded case: rules, the search's fixed depth (or the policy), the game's seed, an
/// optional start board, and at most how many moves to play.
struct Case {
    name: &'static str,
    rules: fn() -> Rules,
    depth: Option<u32>,
    seed: u64,
    /// Which game of a bench run with that seed.
    game: u64,
    start: Option<fn() -> Board>,
    max_moves: u64,
}

/// A late classic position: the delicate end of a long game, where the policy searches deepest.
fn late_classic() -> Board {
    Board::from_values(&[
        vec![2, 4, 8, 16],
        vec![512, 256, 64, 32],
        vec![1024, 2048, 4096, 8192],
        vec![0, 2, 0, 4],
    ])
    .unwrap()
}

/// A crowded Power-11 Hard position (from the game search revision 2 lost, seed
/// 7513767510407731570): its searches' trees are small, so revisions 3 and later search them
/// deeper.
fn crowded_hard() -> Board {
    Board::from_values(&[
        vec![1024, 32, 8, 2],
        vec![32, 16, 32, 4],
        vec![8, 256, 128, 16],
        vec![2, 512, 0, 0],
    ])
    .unwrap()
}

const CASES: &[Case] = &[
    // The example: the three games of
    // `bench --player expectimax --depth 3 --games 3 --jobs 1 --seed 5`.
    Case {
        name: "hard_depth3_seed5_game0",
        rules: || Rules::power11(4).unwrap(),
        depth: Some(3),
        seed: 5,
        game: 0,
        start: None,
        max_moves: 60,
    },
    Case {
        name: "hard_depth3_seed5_game1",
        rules: || Rules::power11(4).unwrap(),
        depth: Some(3),
        seed: 5,
        game: 1,
        start: None,
        max_moves: 60,
    },
    Case {
        name: "hard_depth3_seed5_game2",
        rules: || Rules::power11(4).unwrap(),
        depth: Some(3),
        seed: 5,
        game: 2,
        start: None,
        max_moves: 60,
    },
    Case {
        name: "hard_policy_seed1",
        rules: || Rules::power11(4).unwrap(),
        depth: None,
        seed: 1,
        game: 0,
        start: None,
        max_moves: 150,
    },
    Case {
        name: "hard_policy_crowded",
        rules: || Rules::power11(4).unwrap(),
        depth: None,
        seed: 10,
        game: 0,
        start: Some(crowded_hard),
        max_moves: 40,
    },
    Case {
        name: "classic_policy_seed2",
        rules: Rules::classic,
        depth: None,
        seed: 2,
        game: 0,
        start: None,
        max_moves: 120,
    },
    Case {
        name: "classic_policy_late",
        rules: Rules::classic,
        depth: None,
        seed: 3,
        game: 0,
        start: Some(late_classic),
        max_moves: 8,
    },
    Case {
        name: "twos_depth2_seed4",
        rules: || Rules::classic().with_spawn(Spawn::Twos),
        depth: Some(2),
        seed: 4,
        game: 0,
        start: None,
        max_moves: 200,
    },
    Case {
        name: "edge_depth3_seed6",
        rules: || Rules::classic().with_spawn(Spawn::Edge),
        depth: Some(3),
        seed: 6,
        game: 0,
        start: None,
        max_moves: 300,
    },
    Case {
        name: "mini_policy_seed7",
        rules: Rules::mini,
        depth: None,
        seed: 7,
        game: 0,
        start: None,
        max_moves: u64::MAX,
    },
    Case {
        name: "easy_policy_seed8",
        rules: || Rules::power11(5).unwrap(),
        depth: None,
        seed: 8,
        game: 0,
        start: None,
        max_moves: 150,
    },
    Case {
        name: "size6_depth2_seed9",
        rules: || Rules::classic().with_size(6).unwrap(),
        depth: Some(2),
        seed: 9,
        game: 0,
        start: None,
        max_moves: 20,
    },
];

/// Plays `case` as bench plays a game (its seed, its packed engine) and returns the record line.
fn replay(case: &Case) -> String {
    let rules = (case.rules)();
    let mut rng = seeded(game_seed(case.seed, case.game));
    let start = match case.start {
        Some(board) => board(),
        None => rules.new_board(&mut rng),
    };
    let mut recorder = Recorder {
        player: Expectimax::new(SearchConfig {
            depth: case.depth,
            ..SearchConfig::default()
        }),
        moves: String::new(),
    };
    let record = play_game(&rules, start, &mut recorder, &mut rng, case.max_moves);
    format!(
        "{} score {} tile {} moves {}",
        case.name,
        record.score,
        1u64 << record.max_exponent,
        recorder.moves
    )
}

#[test]
fn expectimax_decisions_replay_move_for_move() {
    let path = fixture("search").join("moves.txt");
    let actual: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = CASES
            .iter()
            .map(|case| scope.spawn(move || replay(case)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    if std::env::var_os("POWER11_BLESS").is_some() {
        let mut text = String::new();
        for line in &actual {
            let _ = writeln!(text, "{line}");
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(expected.len(), CASES.len(), "one recorded line per case");
    for (want, got) in expected.iter().zip(&actual) {
        if *want != got {
            let first_difference = want
                .bytes()
                .zip(got.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(want.len().min(got.len()));
            panic!(
                "the search plays differently from byte {first_difference}:\nwant {}\ngot  {}",
                &want[..want.len().min(first_difference + 40)],
                &got[..got.len().min(first_difference + 40)]
            );
        }
    }
}

/// The recorded games above and the search revision they belong to, as
/// (`power11::players::SEARCH_REVISION`, FNV-1a hash of the file's lines). Revision 6 changed only
/// the learned player's classic depth policy, so these games stand as they were.
const RECORDED: (u32, u64) = (6, 0xa04f_f0d0_58ee_0643);

#[test]
fn the_recorded_games_belong_to_the_current_search_revision() {
    // Re-recording the games means the search now plays other moves: bench reports of the old
    // and new search must not merge, so the revision they record has to change with them.
    let text = std::fs::read_to_string(fixture("search").join("moves.txt")).unwrap();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.lines().flat_map(|line| line.bytes().chain([b'\n'])) {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    assert_eq!(
        (power11::players::SEARCH_REVISION, hash),
        RECORDED,
        "fixtures/search/moves.txt was re-recorded: raise power11::players::SEARCH_REVISION and set \
         RECORDED in tests/integration/search.rs to (the new revision, {hash:#x})"
    );
}
