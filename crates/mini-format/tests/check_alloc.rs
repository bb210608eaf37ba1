//! `mini::check` walks the compiled plan without allocating per record
//! (issue 21, ADR 0031, design rule 5): what it requests grows with the
//! `unique` values it must remember, not with the records. Bytes are
//! counted by a counting global allocator (`cap`); no wall clock. One test
//! function, so that no other test's allocations are counted.

use std::alloc::System;

use cap::Cap;
use mini::Contract;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// A quiz-like contract: a str id (`unique` or not), a marked list with a
/// count key, a bounded int, an enum, a plain list, a tuple of floats with
/// a bounded component.
fn contract(unique: bool) -> Contract {
    Contract::from_json(&format!(
        r#"{{"prefix": "q", "header": {{"keys": {{"k": {{"type": "int"}}}}}},
            "core": [{{"name": "id", "type": "str", "unique": {unique}}},
                     {{"name": "options", "type": "mlist", "count_key": "k", "marker": "exactly_one"}},
                     {{"name": "level", "type": "int", "min": 1, "max": 5}},
                     {{"name": "kind", "type": "enum", "values": ["a", "b", "c"]}},
                     {{"name": "tags", "type": "list", "max": 5}},
                     {{"name": "irt", "type": "tuple", "items": [{{"name": "a", "type": "float"}},
                         {{"name": "b", "type": "float", "min": -4, "max": 4}}]}}]}}"#
    ))
    .unwrap()
}

fn document(records: usize) -> String {
    let mut s = format!("q|n={records}|k=3\n");
    for i in 0..records {
        s.push_str(&format!(
            "id-{i}|red,green*,blue|{}|b|x,y|1.5,-0.{i}\n",
            1 + i % 5
        ));
    }
    s
}

/// A contract whose unique id is an int, and a document of ids numbered
/// from 1 (ADR 0045: such keys are bits, not text).
fn int_ids() -> Contract {
    Contract::from_json(
        r#"{"prefix": "r", "core": [{"name": "id", "type": "int", "unique": true},
                                    {"name": "name", "type": "str"}]}"#,
    )
    .unwrap()
}

fn int_document(records: usize) -> String {
    let mut s = format!("r|n={records}\n");
    for i in 1..=records {
        s.push_str(&format!("{i}|item {i}\n"));
    }
    s
}

/// Bytes requested per record beyond the first 1,000, over 100,000.
fn per_record(c: &Contract, document: fn(usize) -> String) -> f64 {
    let requested = |text: &str| {
        let before = ALLOC.total_allocated();
        mini::check(text, c).expect("the document is valid");
        ALLOC.total_allocated() - before
    };
    let (small, large) = (document(1_000), document(100_000));
    let (a, b) = (requested(&small), requested(&large));
    (b as f64 - a as f64) / 99_000.0
}

#[test]
fn check_allocates_per_record_only_for_the_unique_values_it_remembers() {
    // no unique field: the same few buffers whatever the records
    let plain = per_record(&contract(false), document);
    assert!(
        plain < 0.01,
        "{plain} bytes a record without a unique field"
    );
    // a unique id: each value remembered once (its text, a tag, the set's
    // slot), far below the record's own size
    let unique = per_record(&contract(true), document);
    assert!(
        unique > 1.0 && unique < 64.0,
        "{unique} bytes a record with a unique id"
    );
    // a unique int id numbered from 1: one bit each (ADR 0045), about
    // 0.25 bytes a record with the vector's doubling (kept as text, the
    // key took 54)
    let ints = per_record(&int_ids(), int_document);
    assert!(ints < 1.0, "{ints} bytes a record with a unique int id");
}
