//! The properties the fuzz targets (`fuzz/`, nightly) and the stable property tests check on
//! arbitrary bytes, written once so both exercise the same entry points. Each function panics
//! if and only if its property fails; that panic is what a fuzzer reports.

use crate::frontends::console::Console;
use crate::frontends::mips::Mips;
use crate::model::random::seeded;
use crate::model::rules::Rules;
use crate::players::{AnyPlayer, RandomPlayer};
use crate::session::{MemoryStore, MenuStyle, Session, Settings};
use crate::text::{lines_of, parse_board_file, parse_save, render_save};

/// Both file parsers on `bytes` (as the program reads a file: UTF-8 or refused): an answer,
/// never a panic; an error names a line of the text.
pub fn parse(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    // Lines as the parsers count them (a lone CR ends one too).
    let lines = lines_of(text).count().max(1);
    for result in [parse_save(text), parse_board_file(text)] {
        if let Err(e) = result {
            assert!(
                e.line >= 1 && e.line <= lines + 1,
                "line {} of {lines}",
                e.line
            );
        }
    }
}

/// A save that reads is written back and reads as the same game (render -> parse round trip).
pub fn round_trip(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if let Ok(timeline) = parse_save(text) {
        let written = render_save(&timeline);
        assert_eq!(parse_save(&written).as_ref(), Ok(&timeline), "{written}");
    }
}

/// A whole console session fed `bytes` as its input, on a small board so that games end, and
/// the MIPS interface's on its own rules: each ends (at the input's end at the latest) without a
/// panic.
pub fn session(bytes: &[u8]) {
    let rules = Rules::mini().with_goal(Some(64)).expect("64 is a goal");
    let session = |rules| {
        Session::new(
            Settings {
                rules,
                menu: MenuStyle::OneSize,
            },
            seeded(1),
            MemoryStore::new(),
            AnyPlayer::Random(RandomPlayer),
        )
    };
    let mut out = std::io::sink();
    Console::new(session(rules), bytes, &mut out)
        .run()
        .expect("writing to a sink never fails");
    Mips::new(session(Rules::mini()), bytes, &mut out)
        .run()
        .expect("writing to a sink never fails");
}
