//! Whole sessions run in memory through the library's console and session (no process, no
//! files).

use power11::console::Console;
use power11::players::{AnyPlayer, RandomPlayer};
use power11::random::seeded;
use power11::session::{MemoryStore, MenuStyle, Session, Settings};
use power11::{Rules, Variant};

fn session(rules: Rules, menu: MenuStyle, input: &str) -> String {
    let session = Session::new(
        Settings { rules, menu },
        seeded(5),
        MemoryStore::new(),
        AnyPlayer::Random(RandomPlayer),
    );
    let mut out = Vec::new();
    Console::new(session, input.as_bytes(), &mut out)
        .run()
        .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn in_memory_session_plays_saves_and_resumes() {
    let rules = Rules::power11(4).unwrap();
    let out = session(rules, MenuStyle::EasyHard, "e\nl\nu\ns\nq\nr\nb\nq\nq\n");
    assert!(out.contains("Game saved to memory.\n"));
    let played = crate::common::screens(&out);
    // e, l, u, s, then resume shows the saved state, and b goes back one move.
    assert_eq!(played[4], played[2]);
    assert_eq!(played[5], played[1]);
    assert!(out.ends_with("q - Quit the game\n"));
}

#[test]
fn one_size_menu_names_the_variant_and_size() {
    let out = session(Rules::preset(Variant::Mini), MenuStyle::OneSize, "x\nq\n");
    let menu = "Welcome to Power-11! (mini, 3-by-3, goal 512)\n  n - start a new 3-by-3 game\n  r - Resume the last saved game\n  q - Quit the game\n";
    assert_eq!(out, format!("{menu}{menu}"));
    let out = session(
        Rules::edge().with_size(6).unwrap(),
        MenuStyle::OneSize,
        "q\n",
    );
    assert!(out.starts_with("Welcome to Power-11! (edge, 6-by-6, no goal)\n"));
}

#[test]
fn a_line_of_any_length_plays_every_key_and_arrows_are_one_key_each() {
    let rules = Rules::power11(4).unwrap();
    // 70 KiB of blanks between the keys of one line: the keys after them are played.
    let long = format!("e{}\u{1b}[Cq\nq\n", " ".repeat(70 << 10));
    let out = session(rules, MenuStyle::EasyHard, &long);
    let arrows = session(rules, MenuStyle::EasyHard, "e\u{1b}[Cq\nq\n");
    let letters = session(rules, MenuStyle::EasyHard, "erq\nq\n");
    assert_eq!(out, letters);
    assert_eq!(arrows, letters);
    assert_eq!(crate::common::screens(&out).len(), 2);
    assert!(out.ends_with("q - Quit the game\n"));
    assert!(!out.contains("Unknown command"));
}

#[test]
fn a_blank_line_answers_the_end_of_a_game_and_is_no_key_elsewhere() {
    let rules = Rules::preset(Variant::Mini);
    let blanks = session(rules, MenuStyle::OneSize, "\n\nn\n\n\nq\n\nq\n");
    let keys = session(rules, MenuStyle::OneSize, "n\nq\nq\n");
    assert_eq!(blanks, keys);
}
