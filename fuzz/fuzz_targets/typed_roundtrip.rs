//! `#[derive(mini::Mini)]` values through `mini::to_string` and
//! `mini::from_str` (`mini_fuzzing::typed_roundtrip`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini_fuzzing::TypedDoc;

fuzz_target!(|doc: TypedDoc| mini_fuzzing::typed_roundtrip(&doc));
