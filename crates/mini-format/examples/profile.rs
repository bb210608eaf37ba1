//! Runs one benchmarked operation once on generated data, for instruction
//! counting under callgrind (deterministic, unlike the clock on a shared
//! machine). See docs/performance.md.
//!
//! ```text
//! cargo build --release --example profile
//! valgrind --tool=callgrind --toggle-collect='*measured*' \
//!     target/release/examples/profile quiz validate 10000
//! ```
//!
//! With `MINI_PROFILE_REPEAT=R` it runs the operation `R` times and prints
//! the best wall time per record (a quick clock check between criterion
//! runs; the best of many runs is the least disturbed by a shared machine).
//! `OP` may name two or more operations, comma-separated
//! (`typed,typed_json`): they run in turn within each repetition, so that
//! both meet the same moments of a shared machine, and for two the ratio
//! of their records/s is printed (issue 21's ratios, mini's first).
//!
//! Diagnostic operations: `lex_lines` (the line reader alone), `lex_fields`
//! (lines cut into fields), `validate_no_unique` (validation under the
//! contract without its `unique` rules).
//!
//! Operations: `typed`, `typed_json`, `dynamic`, `dynamic_json`, `validate`,
//! `ignored_json`, `serialize`, `serialize_json`; on `quiz` also the
//! hand-written floor (`benches/support/floor.rs`): `floor_typed`,
//! `floor_validate`, `floor_serialize`; on `rubric` and `notes` the
//! floors' readers (`benches/support/floor_rubric.rs`, `floor_notes.rs`):
//! `floor_typed`.

use std::hint::black_box;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Serialize;

#[path = "../benches/support/data.rs"]
mod data;
#[path = "../benches/support/floor.rs"]
mod floor;

/// Runs the operations `ops` (comma-separated) on `doc` and its text;
/// `extra` runs the operations only one family has (the floor) and says
/// whether it knew `op`.
fn run<D>(doc: D, text: String, ops: &str, extra: impl Fn(&D, &str, &str) -> bool)
where
    D: Serialize + DeserializeOwned + mini::MiniDocument,
{
    let contract = D::contract();
    let json = mini::parse(&text, &contract)
        .expect("generated text is valid")
        .into_canonical()
        .to_string();
    settle_heap();
    let ops: Vec<&str> = ops.split(',').collect();
    repeat(text.lines().count() - 1, &ops, |op| {
        if !extra(&doc, &text, op) {
            measured(&doc, &text, &json, &contract, op);
        }
    });
}

/// Runs each of `ops` once, or `MINI_PROFILE_REPEAT` times printing the
/// best time per record of each. Several operations are run in turn within
/// each repetition, so that all of them meet the same moments of a shared
/// machine; for two, the ratio of their records/s (the first's ÷ the
/// second's) follows.
fn repeat(records: usize, ops: &[&str], mut op: impl FnMut(&str)) {
    let times: usize = std::env::var("MINI_PROFILE_REPEAT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if times == 0 {
        ops.iter().for_each(|o| op(o));
        return;
    }
    let mut best = vec![f64::INFINITY; ops.len()];
    for _ in 0..times {
        for (b, o) in best.iter_mut().zip(ops) {
            let start = std::time::Instant::now();
            op(o);
            *b = b.min(start.elapsed().as_secs_f64());
        }
    }
    let per_record = |t: f64| t * 1e9 / records as f64;
    if let [only] = best[..] {
        println!("{:.1} ns/record (best of {times})", per_record(only));
        return;
    }
    for (o, b) in ops.iter().zip(&best) {
        println!("{o}: {:.1} ns/record (best of {times})", per_record(*b));
    }
    if let [first, second] = best[..] {
        println!("records/s {} / {}: {:.2}x", ops[0], ops[1], second / first);
    }
}

/// Preparing the data leaves many small freed blocks in glibc's fast bins;
/// the first large request consolidates them (`malloc_consolidate`, millions
/// of instructions), and it would land inside the measured call of
/// whichever side ran first. One large allocation here settles the heap
/// before anything is counted, for every operation alike.
///
/// A second, of 16 MiB, is mapped and unmapped, which raises glibc's
/// dynamic mmap threshold to 16 MiB and its trim threshold to 32 MiB, as
/// the large buffers of criterion's setup do in `benches/throughput.rs`:
/// otherwise whether the heap is given back to the system after each
/// repetition (and faulted in again in the next) depends on whether the
/// measured code happened to free one block above 128 KiB, and a
/// repeated run measures page faults (ADR 0033).
#[inline(never)]
fn settle_heap() {
    drop(black_box(vec![0u8; 64 * 1024]));
    drop(black_box(vec![0u8; 16 << 20]));
}

/// The operation alone (`--toggle-collect='*measured*'` counts only this).
#[inline(never)]
fn measured<D>(doc: &D, text: &str, json: &str, contract: &mini::Contract, op: &str)
where
    D: Serialize + DeserializeOwned + mini::MiniDocument,
{
    match op {
        "typed" => drop(black_box(mini::from_str::<D>(text).expect("decode"))),
        // the same read through the type's `Deserialize` (no direct
        // reader, ADR 0044)
        "typed_serde" => drop(black_box(
            mini::__private::direct::from_str_through_serde::<D>(text).expect("decode"),
        )),
        "typed_json" => drop(black_box(serde_json::from_str::<D>(json).expect("decode"))),
        "dynamic" => drop(black_box(
            mini::parse(text, contract).expect("parse").into_canonical(),
        )),
        "dynamic_json" => drop(black_box(
            serde_json::from_str::<serde_json::Value>(json).expect("parse"),
        )),
        "lex_lines" => {
            let mut total = 0usize;
            for line in mini::__private::syntax::lines(text).skip(1) {
                total += line.text.len();
            }
            black_box(total);
        }
        "lex_fields" => {
            use mini::__private::syntax as sx;
            let mut fields = Vec::new();
            let mut total = 0usize;
            for line in sx::lines(text).skip(1) {
                assert!(sx::split_fields_fast(line.text, '|', &mut fields));
                total += fields.len();
            }
            black_box(total);
        }
        "validate_no_unique" => {
            let json = contract
                .to_value()
                .to_string()
                .replace("\"unique\":true", "\"unique\":false");
            let c = mini::Contract::from_json(&json).expect("contract");
            let t = std::time::Instant::now();
            assert!(mini::check(text, &c).is_ok());
            black_box(t);
        }
        "validate" => assert!(mini::check(text, contract).is_ok()),
        "dynamic_typed" => drop(black_box(
            mini::from_str_with_contract::<serde_json::Value>(text, contract).expect("valid"),
        )),
        "validate_cursor" => drop(black_box(
            mini::from_str_with_contract::<IgnoredAny>(text, contract).expect("valid"),
        )),
        "ignored_json" => drop(black_box(
            serde_json::from_str::<IgnoredAny>(json).expect("parse"),
        )),
        "serialize" => drop(black_box(mini::to_string(doc).expect("serialize"))),
        "serialize_json" => drop(black_box(serde_json::to_string(doc).expect("serialize"))),
        other => panic!("unknown operation {other}"),
    }
}

/// The floor's operations alone (quiz only).
#[inline(never)]
fn measured_floor(doc: &data::Quiz, text: &str, op: &str) {
    match op {
        "floor_typed" => drop(black_box(floor::decode(text).expect("decode"))),
        "floor_validate" => assert!(floor::validate(text).is_ok()),
        "floor_serialize" => drop(black_box(floor::encode(doc).expect("serialize"))),
        other => panic!("unknown operation {other}"),
    }
}

/// The rubric floor's reader alone (`floor_typed` on rubric).
#[inline(never)]
fn measured_floor_rubric(text: &str) {
    drop(black_box(floor::rubric::decode(text).expect("decode")));
}

/// The notes floor's reader alone (`floor_typed` on notes).
#[inline(never)]
fn measured_floor_notes(text: &str) {
    drop(black_box(floor::notes::decode(text).expect("decode")));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let family = args.get(1).map_or("quiz", String::as_str);
    let op = args.get(2).map_or("validate", String::as_str);
    let n: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(10_000);
    eprintln!("lanes: {}", mini::simd_lanes());
    match family {
        "quiz" => {
            let d = data::quiz(n);
            let t = mini::to_string(&d).expect("serialize");
            if op.contains("floor_") {
                assert_eq!(floor::decode(&t).expect("floor decode"), d);
                assert_eq!(floor::encode(&d).expect("floor encode"), t);
            }
            run(d, t, op, |d, t, op| {
                let floor = op.starts_with("floor_");
                if floor {
                    measured_floor(d, t, op);
                }
                floor
            });
        }
        "rubric" => {
            let d = data::rubric(n);
            let t = mini::to_string(&d).expect("serialize");
            if op.contains("floor_") {
                assert_eq!(floor::rubric::decode(&t).expect("floor decode"), d);
            }
            run(d, t, op, |_, t, op| {
                let floor = op == "floor_typed";
                if floor {
                    measured_floor_rubric(t);
                }
                floor
            });
        }
        "notes" => {
            let d = data::notes(n);
            let t = data::notes_text_quoted(&d);
            if op.contains("floor_") {
                assert!(floor::notes::decode(&t).expect("floor decode") == d);
            }
            run(d, t, op, |_, t, op| {
                let floor = op == "floor_typed";
                if floor {
                    measured_floor_notes(t);
                }
                floor
            });
        }
        other => panic!("unknown family {other}"),
    }
}
