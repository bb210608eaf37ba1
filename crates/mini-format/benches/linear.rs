//! Throughput of one 10 MB record line made of plain text, escapes, one
//! quoted element, marked elements, or quoted marked elements (issue 6: the
//! parser is linear whatever the line is made of).
//!
//! `cargo bench --bench linear`; compare the MiB/s of each line with
//! `plain`. Allocation is checked without a clock by `tests/linear.rs`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mini::Contract;

/// Line size: 10 MiB, or `MINI_BENCH_MB` MiB (to check that time scales
/// linearly: run with 1 and with 10 and compare the times).
fn size() -> usize {
    std::env::var("MINI_BENCH_MB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(10)
        << 20
}

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

/// The same lines as `tests/linear.rs`.
fn cases() -> Vec<(&'static str, Contract, String)> {
    let size = size();
    let str_field = r#"{"name": "s", "type": "str"}"#;
    let list_field = r#"{"name": "l", "type": "list", "item": "str"}"#;
    let mlist_field = r#"{"name": "m", "type": "mlist", "item": "str", "marker": "any"}"#;
    let doc = |line: String| format!("lin|n=1\n{line}");
    let escapes = fill(r#"\|\,\\\*\"\n"#, size);
    let quoted = format!("\"{}\"", fill(r#"ab""c\,d*e,f"#, size - 2));
    let markers = fill("ab*,", size - 1) + "x";
    let elements = fill(r#""a, b"*,"#, size - 1) + "x";
    vec![
        ("plain", contract(str_field), doc(fill("abcdefgh", size))),
        ("escapes", contract(str_field), doc(escapes)),
        ("quotes", contract(list_field), doc(quoted)),
        ("markers", contract(mlist_field), doc(markers)),
        ("quoted elements", contract(mlist_field), doc(elements)),
    ]
}

fn ten_megabyte_lines(c: &mut Criterion) {
    let mut group = c.benchmark_group("10MB line");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Bytes(size() as u64));
    for (name, contract, text) in cases() {
        assert!(
            mini::parse_with_limits(&text, &contract, &mini::Limits::UNLIMITED).is_ok(),
            "{name} must be valid"
        );
        group.bench_function(name, |b| {
            b.iter(|| {
                mini::parse_with_limits(black_box(&text), &contract, &mini::Limits::UNLIMITED)
                    .map(|d| d.records().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, ten_megabyte_lines);
criterion_main!(benches);
