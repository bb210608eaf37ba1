//! Escapes and markers in every position round-trip
//! (`mini_fuzzing::escape_marker_roundtrip`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini_fuzzing::EscapeInput;

fuzz_target!(|input: EscapeInput| mini_fuzzing::escape_marker_roundtrip(&input));
