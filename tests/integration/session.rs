//! Whole sessions run in memory through the library's console (no process, no files but the
//! save in a temporary directory).

use power11::best::BestScores;
use power11::console::{Console, MenuStyle, Settings};
use power11::random::seeded;
use power11::{Rules, Variant};

fn session(rules: Rules, menu: MenuStyle, input: &str, dir: &std::path::Path) -> String {
    let settings = Settings {
        rules,
        menu,
        save_path: dir.join("power11.saved"),
        first_game: None,
        best: BestScores::in_memory(),
    };
    let mut out = Vec::new();
    Console::new(settings, seeded(5), input.as_bytes(), &mut out)
        .run()
        .unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn in_memory_session_plays_saves_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::power11(4).unwrap();
    let out = session(
        rules,
        MenuStyle::EasyHard,
        "e\nl\nu\ns\nq\nr\nb\nq\nq\n",
        dir.path(),
    );
    assert!(out.contains("Game saved to "));
    assert!(dir.path().join("power11.saved").exists());
    let played = crate::common::screens(&out);
    // e, l, u, s, then resume shows the saved state, and b goes back one move.
    assert_eq!(played[4], played[2]);
    assert_eq!(played[5], played[1]);
    assert!(out.ends_with("Goodbye!\n"));
}

#[test]
fn one_size_menu_names_the_variant_and_size() {
    let dir = tempfile::tempdir().unwrap();
    let out = session(
        Rules::preset(Variant::Mini),
        MenuStyle::OneSize,
        "x\nq\n",
        dir.path(),
    );
    let menu = "Welcome to Power-11! (mini, 3-by-3, goal 512)\n  n - start a new 3-by-3 game\n  r - Resume the last saved game\n  q - Quit the game\n";
    assert_eq!(
        out,
        format!("{menu}Unknown choice 'x': type n, r or q.\n{menu}Goodbye!\n")
    );
    let out = session(
        Rules::edge().with_size(6).unwrap(),
        MenuStyle::OneSize,
        "q\n",
        dir.path(),
    );
    assert!(out.starts_with("Welcome to Power-11! (edge, 6-by-6, no goal)\n"));
}
