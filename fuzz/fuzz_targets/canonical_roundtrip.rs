//! Generated contracts and canonical objects through `dumps` and `parse`
//! (`mini_fuzzing::canonical_roundtrip`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini_fuzzing::CanonicalInput;

fuzz_target!(|input: CanonicalInput| mini_fuzzing::canonical_roundtrip(&input));
