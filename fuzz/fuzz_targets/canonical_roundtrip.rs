//! Generated contracts and canonical objects through `dumps` and `parse`
//! (`mini::fuzzing::canonical_roundtrip`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini::fuzzing::CanonicalInput;

fuzz_target!(|input: CanonicalInput| mini::fuzzing::canonical_roundtrip(&input));
