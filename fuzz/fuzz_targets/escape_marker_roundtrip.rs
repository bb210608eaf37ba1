//! Escapes and markers in every position round-trip
//! (`mini::fuzzing::escape_marker_roundtrip`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini::fuzzing::EscapeInput;

fuzz_target!(|input: EscapeInput| mini::fuzzing::escape_marker_roundtrip(&input));
