//! The push reader equals the whole-text parse for any chunking
//! (`mini_fuzzing::stream_chunks`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini_fuzzing::StreamInput;

fuzz_target!(|input: StreamInput| mini_fuzzing::stream_chunks(&input));
