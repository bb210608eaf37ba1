//! `mini::parse`, the typed Deserializer (`mini::from_str_with_contract`
//! and the entry points a derived type uses) and `mini::check` agree on
//! generated documents, valid and garbled (`mini_fuzzing::typed_equivalence`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini_fuzzing::EquivalenceInput;

fuzz_target!(|input: EquivalenceInput| mini_fuzzing::typed_equivalence(&input));
