//! Peak memory of streaming validation: generates a quiz-like document of
//! about `SIZE` bytes on the fly (never held whole) and pushes it into
//! `mini::PushParser` in 64 KiB chunks with `keep_records: false`, under a
//! contract without `unique` fields (unique values must be remembered, so a
//! unique field grows memory with the document). Run under
//! `/usr/bin/time -v` to read the maximum resident set size:
//!
//! ```text
//! cargo build --release --example stream_rss
//! /usr/bin/time -v target/release/examples/stream_rss 1G
//! ```
//!
//! `SIZE` takes a `K`, `M` or `G` suffix (powers of 1000). A second
//! argument `unique` keeps the contract's unique `id`, for comparison: then
//! every id is remembered and memory grows with the document.

#[path = "../benches/support/data.rs"]
mod data;

use std::io::Write as _;
use std::time::Instant;

/// The bench quiz contract, without its `unique` id unless `unique`.
fn contract(unique: bool) -> mini::Contract {
    let mut json: serde_json::Value = serde_json::from_str(data::QUIZ_CONTRACT).unwrap();
    json["core"][0]["unique"] = serde_json::Value::Bool(unique);
    mini::Contract::from_value(json).unwrap()
}

/// One record line (with its line break) of the quiz family.
fn record(rng: &mut data::Rng, i: usize, contract: &mini::Contract, out: &mut String) {
    let q = data::question(rng, i);
    let doc = data::Quiz {
        header: data::QuizHeader {
            n: 1,
            k: 4,
            topic: None,
        },
        items: vec![q],
    };
    let text = mini::to_string_with_contract(&doc, contract).unwrap();
    // drop the header line: keep the record line
    let line = &text[text.find('\n').unwrap() + 1..];
    out.push_str(line);
    out.push('\n');
}

fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1_000),
        Some('M' | 'm') => (&s[..s.len() - 1], 1_000_000),
        Some('G' | 'g') => (&s[..s.len() - 1], 1_000_000_000),
        _ => (s, 1),
    };
    num.parse::<u64>().expect("SIZE") * mult
}

fn main() {
    let size = parse_size(&std::env::args().nth(1).unwrap_or_else(|| "10M".into()));
    let unique = std::env::args().nth(2).as_deref() == Some("unique");
    let contract = contract(unique);
    // the record count: the average record length of a first sample
    let mut rng = data::Rng::new(7);
    let mut sample = String::new();
    for i in 0..1000 {
        record(&mut rng, i, &contract, &mut sample);
    }
    let n = (size as f64 / (sample.len() as f64 / 1000.0)).round() as usize;

    let opts = mini::PushOptions {
        keep_records: false,
        // a stream of any length in constant memory: only the line limit
        limits: mini::Limits {
            max_input_bytes: usize::MAX,
            max_records: usize::MAX,
            ..mini::Limits::default()
        },
        ..mini::PushOptions::default()
    };
    let mut reader = mini::PushParser::with_options(&contract, opts);
    let start = Instant::now();
    let mut buf = format!("quiz|n={n}|k=4|topic=generated\n");
    let mut bytes = 0u64;
    let mut rng = data::Rng::new(7);
    for i in 0..n {
        record(&mut rng, i, &contract, &mut buf);
        if buf.len() >= 64 * 1024 || i + 1 == n {
            reader.push(buf.as_bytes()).unwrap();
            bytes += buf.len() as u64;
            buf.clear();
        }
    }
    let end = reader.end().unwrap();
    let secs = start.elapsed().as_secs_f64();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{bytes} bytes, {} records ({} valid), complete={}, {:.1} s (generation included)",
        end.received, end.valid, end.complete, secs
    )
    .unwrap();
    assert!(end.complete, "{:?}", end.document.errors().first());
}
