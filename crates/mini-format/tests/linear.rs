//! Hardening (issue 6): parsing a 10 MB line made of escapes, quotes or
//! markers allocates at most a small multiple of its size.
//!
//! Bytes are counted by a counting global allocator (`cap`, with `stats`):
//! `total` is every byte requested during the parse (a reallocation counts
//! its new size, so repeated regrowth shows up), `retained` what the
//! returned document still holds. The bounds are generous on purpose; a
//! quadratic (or per-byte boxed) regression would exceed them by orders of
//! magnitude. No wall-clock assertion: `benches/linear.rs` measures time.

use std::alloc::System;
use std::sync::Mutex;

use cap::Cap;
use mini::Contract;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// The counters are global: measure one parse at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Size of the record line.
const SIZE: usize = 10 << 20;

/// A fuse: no single test may hold more than this at once (a runaway parse
/// fails with an allocation error instead of exhausting the machine).
const FUSE: usize = 3 << 30;

fn contract(field: &str) -> Contract {
    Contract::from_json(&format!(r#"{{"prefix": "lin", "core": [{field}]}}"#)).unwrap()
}

/// `unit` repeated, padded with `x` to exactly `n` bytes (`unit` is ASCII;
/// the padding never splits an escape or a quote pair).
fn fill(unit: &str, n: usize) -> String {
    let mut s = unit.repeat(n / unit.len());
    s.push_str(&"x".repeat(n % unit.len()));
    s
}

/// The 10 MB lines: six escapes repeated in a scalar field, one quoted
/// element (doubled quotes, escapes, literal separators and stars), marked
/// elements, quoted marked elements, and plain text.
fn cases() -> Vec<(&'static str, Contract, String)> {
    let str_field = r#"{"name": "s", "type": "str"}"#;
    let list_field = r#"{"name": "l", "type": "list", "item": "str"}"#;
    let mlist_field = r#"{"name": "m", "type": "mlist", "item": "str", "marker": "any"}"#;
    let doc = |line: String| format!("lin|n=1\n{line}");
    let escapes = fill(r#"\|\,\\\*\"\n"#, SIZE);
    let quoted = format!("\"{}\"", fill(r#"ab""c\,d*e,f"#, SIZE - 2));
    let markers = fill("ab*,", SIZE - 1) + "x";
    let elements = fill(r#""a, b"*,"#, SIZE - 1) + "x";
    vec![
        ("plain", contract(str_field), doc(fill("abcdefgh", SIZE))),
        ("escapes", contract(str_field), doc(escapes)),
        ("quotes", contract(list_field), doc(quoted)),
        ("markers", contract(mlist_field), doc(markers)),
        ("quoted elements", contract(mlist_field), doc(elements)),
    ]
}

struct Measure {
    total: usize,
    retained: usize,
    records: usize,
}

/// Measures one parse (the caller holds `ONE_AT_A_TIME` for its whole
/// test, so no other test allocates meanwhile).
fn measure(text: &str, c: &Contract) -> Measure {
    let _ = ALLOC.set_limit(ALLOC.allocated() + FUSE);
    let (total0, live0) = (ALLOC.total_allocated(), ALLOC.allocated());
    let doc = mini::parse_with_limits(text, c, &mini::Limits::UNLIMITED)
        .expect("the 10 MB line is valid");
    let total = ALLOC.total_allocated() - total0;
    let retained = ALLOC.allocated().saturating_sub(live0);
    let records = doc.records().len();
    drop(doc);
    let _ = ALLOC.set_limit(usize::MAX);
    Measure {
        total,
        retained,
        records,
    }
}

/// Bounds, in multiples of the line's size: (total allocated, retained).
/// Measured (rustc 1.95, serde_json with `arbitrary_precision` and
/// `preserve_order`) at the end of 2026-11-29 (commit 438f55c): plain
/// 1.0/1.0, escapes 1.5/0.5, quotes 23.2/0.8, markers 97.7/38.1, quoted
/// elements 61.1/19.3; on 2026-11-30, with quoted elements read by
/// `quoted_fast` into a string of their size: plain 1.0/1.0, escapes
/// 1.5/0.5, quotes 1.8/0.8, markers 97.7/38.1, quoted elements 49.1/19.3.
fn bounds(name: &str) -> (f64, f64) {
    match name {
        // one field decoded once (`Cow` borrows plain text), then copied into
        // the canonical JSON string
        "plain" | "escapes" => (4.0, 2.0),
        // one element: decoded into one string of its size (the `nom`
        // production, used only for elements with an error, gathers its
        // pieces in a vector first: ~23x)
        "quotes" => (4.0, 2.0),
        // one element per 4 or 8 bytes: an `Element`, an `Atom`, a JSON
        // string value, and per marker an index and its JSON number (a heap
        // string with `arbitrary_precision`): ~150 retained bytes per element
        _ => (120.0, 60.0),
    }
}

#[test]
fn ten_megabyte_lines_allocate_a_bounded_multiple_of_their_size() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut report = Vec::new();
    let mut over = Vec::new();
    for (name, c, text) in cases() {
        let m = measure(&text, &c);
        assert_eq!(m.records, 1, "{name}");
        let (t, r) = (
            m.total as f64 / SIZE as f64,
            m.retained as f64 / SIZE as f64,
        );
        report.push(format!("{name}: total {t:.2}x, retained {r:.2}x"));
        let (bt, br) = bounds(name);
        if t > bt || r > br {
            over.push(format!(
                "{name}: total {t:.2}x (bound {bt}x), retained {r:.2}x (bound {br}x)"
            ));
        }
    }
    eprintln!(
        "allocation per byte of a 10 MB line:\n  {}",
        report.join("\n  ")
    );
    assert!(
        over.is_empty(),
        "allocation bounds exceeded:\n{}",
        over.join("\n")
    );
}

#[test]
fn a_long_line_is_refused_before_it_is_parsed_under_default_limits() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (name, c, text) = cases().swap_remove(1);
    let total0 = ALLOC.total_allocated();
    let err = mini::parse_with_limits(&text, &c, &mini::Limits::default()).unwrap_err();
    let total = ALLOC.total_allocated() - total0;
    assert_eq!(err.limit_exceeded(), Some(mini::Limit::LineBytes), "{name}");
    assert!(
        total < 64 << 10,
        "{name}: refusing the line allocated {total} bytes"
    );
}
