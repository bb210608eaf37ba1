//! Arbitrary bytes through strict and lenient parsing (`mini_fuzzing::parse_bytes`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mini_fuzzing::parse_bytes(data));
