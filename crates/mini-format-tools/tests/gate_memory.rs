//! The streaming gate holds constant memory on a long answer: a generated
//! answer of about 24 MB (prose, a fence, 400,000 record lines), streamed
//! in small chunks through the gate into typed records, never has more
//! than a small, fixed amount of heap live at once.
//!
//! Bytes are counted by a counting global allocator (`cap`): the peak of
//! live heap bytes during the run. No wall-clock assertion.

use std::alloc::System;

use cap::Cap;
use mini::Contract;
use mini_tools::workflow::gate_records;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

const RECORDS: usize = 400_000;

#[derive(serde::Deserialize)]
struct Row {
    title: String,
    done: bool,
    tags: Vec<String>,
}

/// The answer, made chunk by chunk as a model streams it (never whole).
fn answer() -> impl Iterator<Item = String> {
    let head = std::iter::once(format!(
        "Sure! Here are the rows:\n\n```mini\nrow|n={RECORDS}\n"
    ));
    let rows = (0..RECORDS).map(|i| {
        // a chunk boundary inside each line: two chunks per record
        let line = format!(
            "a fairly long title for row {i:>8}|{}|red,green,blue\n",
            i % 2 == 0
        );
        let (a, b) = line.split_at(17);
        [a.to_string(), b.to_string()]
    });
    head.chain(rows.flatten())
        .chain(std::iter::once("```\nThat is all.".to_string()))
}

#[test]
fn the_gate_streams_a_long_answer_in_constant_memory() {
    let contract = Contract::from_json(
        r#"{"prefix": "row", "core": [{"name": "title", "type": "str"},
            {"name": "done", "type": "bool"}, {"name": "tags", "type": "list", "item": "str"}]}"#,
    )
    .unwrap();
    let total: usize = answer().map(|c| c.len()).sum();
    assert!(total > 20 << 20, "{total} bytes");

    let base = ALLOC.allocated();
    let mut peak = 0;
    let (mut count, mut bytes) = (0usize, 0usize);
    for item in gate_records::<Row, _>(answer(), &contract) {
        let row = item.expect("every row is valid");
        count += 1;
        bytes += row.title.len() + row.tags.len() + usize::from(row.done);
        peak = peak.max(ALLOC.allocated().saturating_sub(base));
    }
    peak = peak.max(ALLOC.allocated().saturating_sub(base));
    assert_eq!(count, RECORDS);
    assert!(bytes > 0);
    // a line, a chunk, the reader's buffers: far below the answer's size
    println!("peak live heap: {peak} bytes for a {total}-byte answer");
    assert!(
        peak < 256 << 10,
        "peak live heap {peak} bytes for a {total}-byte answer"
    );
}
