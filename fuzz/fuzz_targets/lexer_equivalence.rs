//! The lexer's byte-level fast paths against the `nom` grammar
//! (`mini_fuzzing::lexer_equivalence`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mini_fuzzing::lexer_equivalence(data));
