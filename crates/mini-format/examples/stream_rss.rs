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
//! `SIZE` takes a `K`, `M` or `G` suffix (powers of 1000). An argument
//! `unique` keeps the contract's unique `id`, for comparison: then every id
//! is remembered and memory grows with the document. An argument `typed`
//! reads the records into Rust structs with `mini::stream::records` (the
//! single-pass reader) from an `io::Read` that generates the document,
//! instead of pushing chunks into `PushParser`.

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

/// The document as an `io::Read`, generated as it is read.
struct Generated<'c> {
    rng: data::Rng,
    next: usize,
    n: usize,
    contract: &'c mini::Contract,
    buf: String,
    at: usize,
}

impl std::io::Read for Generated<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.buf.len() {
            if self.next == self.n {
                return Ok(0);
            }
            self.buf.clear();
            self.at = 0;
            while self.buf.len() < 64 * 1024 && self.next < self.n {
                record(&mut self.rng, self.next, self.contract, &mut self.buf);
                self.next += 1;
            }
        }
        let k = out.len().min(self.buf.len() - self.at);
        out[..k].copy_from_slice(&self.buf.as_bytes()[self.at..self.at + k]);
        self.at += k;
        Ok(k)
    }
}

/// `typed`: every record into a `data::Question`, one line at a time.
fn typed(contract: &mini::Contract, n: usize, limits: mini::Limits) {
    let start = Instant::now();
    let source = Generated {
        rng: data::Rng::new(7),
        next: 0,
        n,
        contract,
        buf: format!("quiz|n={n}|k=4|topic=generated\n"),
        at: 0,
    };
    let reader = std::io::BufReader::with_capacity(64 * 1024, source);
    let (mut ok, mut bad) = (0usize, 0usize);
    for item in mini::stream::records_with_limits::<data::Question, _>(reader, contract, limits) {
        match item {
            Ok(q) => {
                ok += 1;
                std::hint::black_box(q);
            }
            Err(e) => {
                bad += 1;
                eprintln!("{e}");
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{n} records: {ok} read into structs, {bad} errors, {secs:.1} s (generation included)"
    );
    assert_eq!((ok, bad), (n, 0));
}

fn main() {
    let size = parse_size(&std::env::args().nth(1).unwrap_or_else(|| "10M".into()));
    let unique = std::env::args().any(|a| a == "unique");
    let typed_mode = std::env::args().any(|a| a == "typed");
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
    if typed_mode {
        typed(&contract, n, opts.limits);
        return;
    }
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
