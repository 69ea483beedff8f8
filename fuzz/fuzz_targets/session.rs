//! A whole console session fed arbitrary bytes ends without a panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| power11::fuzzing::session(bytes));
