//! The save and board-file parsers on arbitrary bytes: an answer, never a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| power11::fuzzing::parse(bytes));
