//! The push reader equals the whole-text parse for any chunking
//! (`mini::fuzzing::stream_chunks`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mini::fuzzing::StreamInput;

fuzz_target!(|input: StreamInput| mini::fuzzing::stream_chunks(&input));
