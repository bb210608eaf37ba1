//! Arbitrary JSON as a contract.json (`mini_fuzzing::contract_json`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mini_fuzzing::contract_json(data));
