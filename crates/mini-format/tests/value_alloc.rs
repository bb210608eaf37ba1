//! The canonical value (`mini::parse(..).into_canonical()`) holds no more
//! memory than serde_json's `Value` of the same canonical JSON (round 25
//! of issue 21, ADR 0056). Every record object is a clone of one template
//! of keys, and indexmap gives a clone's entries the capacity of the
//! template's index table: a template sized with room to spare made every
//! record carry it (rubric's six keys took a 14-entry vector, 1,568 bytes,
//! where serde_json's reading keeps 8). Bytes are counted by a counting
//! global allocator (`cap`); no wall clock. One test function, so that no
//! other test's allocations are counted.

use std::alloc::System;

use cap::Cap;
use mini::Contract;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// The bytes `build` keeps alive in what it returns.
fn held<T>(build: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOC.allocated();
    let value = build();
    (ALLOC.allocated() - before, value)
}

/// Bytes held per record beyond the first 100, over 2,000, by mini's
/// canonical value and by serde_json's `Value` of its JSON text.
fn per_record(contract: &Contract, document: impl Fn(usize) -> String) -> (f64, f64) {
    let both = |records: usize| {
        let text = document(records);
        let (mini_bytes, canonical) = held(|| {
            mini::parse(&text, contract)
                .expect("the document is valid")
                .into_canonical()
        });
        let json = canonical.to_string();
        let (json_bytes, reread) =
            held(|| serde_json::from_str::<serde_json::Value>(&json).expect("canonical JSON"));
        assert_eq!(reread, canonical, "the same value both ways");
        (mini_bytes as f64, json_bytes as f64)
    };
    let (small, large) = (both(100), both(2_100));
    ((large.0 - small.0) / 2_000.0, (large.1 - small.1) / 2_000.0)
}

/// Six plain fields, as the bench's rubric.
fn rubric() -> Contract {
    Contract::from_json(
        r#"{"prefix": "r", "header": {"keys": {"levels": {"type": "int"}}},
            "core": [{"name": "id", "type": "int", "unique": true},
                     {"name": "name", "type": "str"},
                     {"name": "descriptors", "type": "list", "count_key": "levels"},
                     {"name": "points", "type": "list", "item": "int", "count_key": "levels"},
                     {"name": "weight", "type": "float", "min": 0, "max": 1},
                     {"name": "required", "type": "bool"}]}"#,
    )
    .unwrap()
}

fn rubric_document(records: usize) -> String {
    let mut s = format!("r|n={records}|levels=2\n");
    for i in 1..=records {
        s.push_str(&format!(
            "{i}|criterion {i}|clear\\, concise,vague|4,2|0.{}|{}\n",
            i % 10,
            i % 2 == 0
        ));
    }
    s
}

/// A marked list (two keys in the record), a tuple (an object of its own)
/// and an optional field.
fn quiz() -> Contract {
    Contract::from_json(
        r#"{"prefix": "q",
            "core": [{"name": "id", "type": "str"},
                     {"name": "options", "type": "mlist", "marker": "exactly_one"},
                     {"name": "irt", "type": "tuple", "items": [{"name": "a", "type": "float"},
                         {"name": "b", "type": "float"}]},
                     {"name": "note", "type": "str", "optional": true}]}"#,
    )
    .unwrap()
}

fn quiz_document(records: usize) -> String {
    let mut s = format!("q|n={records}\n");
    for i in 0..records {
        s.push_str(&format!("q{i}|red,green*,blue|1.5,-0.{i}|\n"));
    }
    s
}

#[test]
fn the_canonical_value_holds_no_more_than_serde_jsons() {
    for (name, contract, document) in [
        ("rubric", rubric(), rubric_document as fn(usize) -> String),
        ("quiz", quiz(), quiz_document),
    ] {
        let (mini_bytes, json_bytes) = per_record(&contract, document);
        assert!(
            mini_bytes <= json_bytes,
            "{name}: the canonical value holds {mini_bytes} bytes a record, \
             serde_json's {json_bytes}"
        );
        // and not far below: the same strings, arrays and objects
        assert!(
            mini_bytes > 0.5 * json_bytes,
            "{name}: {mini_bytes} bytes a record against serde_json's {json_bytes}"
        );
    }
}
