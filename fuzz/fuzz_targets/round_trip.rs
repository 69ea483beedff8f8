//! A save that reads is written back and reads as the same game.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| power11::fuzzing::round_trip(bytes));
