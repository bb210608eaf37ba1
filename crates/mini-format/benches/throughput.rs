//! Throughput of `mini` against `serde_json` on the same generated data
//! (issue 7). Three families of 100,000 records (`benches/support/data.rs`),
//! five operations each, side by side in one run:
//!
//! 1. `typed_decode`: `mini::from_str::<Doc>` vs `serde_json::from_str::<Doc>`
//!    of the canonical JSON of the same data, into the same structs;
//! 2. `dynamic_decode`: `mini::parse` + `into_canonical` vs
//!    `serde_json::from_str::<serde_json::Value>`;
//! 3. `validate`: `mini::validate` (no values built) vs
//!    `serde_json::from_str::<IgnoredAny>` (for context);
//! 4. `serialize`: `mini::to_string` vs `serde_json::to_string`;
//! 5. `stream`: the push `mini::PushParser` fed 4 KiB chunks, records not kept;
//! 6. `stream_typed`: `mini::stream::records` (the single-pass reader, one
//!    line at a time) into the record structs, from a `&[u8]` reader.
//!
//! 7. on quiz, `floor`: the hand-written reader and writer of
//!    `benches/support/floor.rs` (issue 21), every contract rule checked,
//!    into and from the same structs, as a third row of `typed_decode`,
//!    `validate` and `serialize`; on rubric and notes, the floors' readers
//!    of `benches/support/floor_rubric.rs` and `floor_notes.rs` as a third
//!    row of `typed_decode`.
//!
//! `benches/ratios.py` prints the table of `docs/performance.md` (mini ÷
//! serde_json in records/s, and MB/s) from criterion's estimates.
//!
//! Throughput is in bytes of each side's own text (`.mini` for `mini`, JSON
//! for `serde_json`); records/s = 100,000 / time. The defaults are set for a
//! small shared machine (10 samples, 1 s warm-up, 3 s measurement); the
//! usual criterion flags override them. `MINI_BENCH_RECORDS` changes the
//! record count.
//!
//! ```text
//! cargo bench --bench throughput
//! cargo bench --bench throughput -- quiz/typed_decode
//! ```

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde::de::IgnoredAny;
use serde::{de::DeserializeOwned, Serialize};

#[path = "support/data.rs"]
mod data;
#[path = "support/floor.rs"]
mod floor;

use data::{Notes, Quiz, Rubric};

fn records() -> usize {
    std::env::var("MINI_BENCH_RECORDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

/// One family's inputs: the document, its `.mini` text, its canonical JSON.
struct Family<D> {
    name: &'static str,
    doc: D,
    contract: mini::Contract,
    mini: String,
    json: String,
}

fn family<D>(name: &'static str, doc: D, mini_text: String) -> Family<D>
where
    D: Serialize + DeserializeOwned + mini::MiniDocument + PartialEq + std::fmt::Debug,
{
    let contract = D::contract();
    let parsed = mini::parse(&mini_text, &contract).expect("generated text is valid");
    let json = parsed.into_canonical().to_string();
    // the serializer driven by the Rust type writes what it writes when
    // driven by the canonical `Value` (`dumps`)
    let via_dumps = mini::dumps(&serde_json::to_value(&doc).unwrap(), &contract).unwrap();
    assert_eq!(
        mini::to_string(&doc).unwrap(),
        via_dumps,
        "{name}: to_string != dumps"
    );
    // both sides decode to the same value
    let via_mini: D = mini::from_str(&mini_text).expect("mini decode");
    let via_json: D = serde_json::from_str(&json).expect("json decode");
    assert!(via_mini == doc, "{name}: mini decode differs from the data");
    assert!(via_json == doc, "{name}: json decode differs from the data");
    let n = records() as f64;
    eprintln!(
        "{name}: {} records, .mini {} bytes ({:.0} B/record), JSON {} bytes ({:.0} B/record)",
        records(),
        mini_text.len(),
        mini_text.len() as f64 / n,
        json.len(),
        json.len() as f64 / n,
    );
    Family {
        name,
        doc,
        contract,
        mini: mini_text,
        json,
    }
}

fn bench_family<D, R>(c: &mut Criterion, f: &Family<D>)
where
    D: Serialize + DeserializeOwned + mini::MiniDocument,
    R: DeserializeOwned,
{
    let mini_bytes = Throughput::Bytes(f.mini.len() as u64);
    let json_bytes = Throughput::Bytes(f.json.len() as u64);

    let mut g = c.benchmark_group(format!("{}/typed_decode", f.name));
    g.throughput(mini_bytes.clone());
    g.bench_function("mini", |b| {
        b.iter(|| mini::from_str::<D>(black_box(&f.mini)).unwrap())
    });
    g.throughput(json_bytes.clone());
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_str::<D>(black_box(&f.json)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/dynamic_decode", f.name));
    g.throughput(mini_bytes.clone());
    g.bench_function("mini", |b| {
        b.iter(|| {
            mini::parse(black_box(&f.mini), &f.contract)
                .unwrap()
                .into_canonical()
        })
    });
    g.throughput(json_bytes.clone());
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_str::<serde_json::Value>(black_box(&f.json)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/validate", f.name));
    g.throughput(mini_bytes.clone());
    g.bench_function("mini", |b| {
        b.iter(|| {
            let checked = mini::check(black_box(&f.mini), &f.contract);
            assert!(checked.is_ok());
        })
    });
    g.throughput(json_bytes.clone());
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::from_str::<IgnoredAny>(black_box(&f.json)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/serialize", f.name));
    g.throughput(mini_bytes.clone());
    g.bench_function("mini", |b| {
        b.iter(|| mini::to_string(black_box(&f.doc)).unwrap())
    });
    g.throughput(json_bytes);
    g.bench_function("serde_json", |b| {
        b.iter(|| serde_json::to_string(black_box(&f.doc)).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/stream", f.name));
    g.throughput(mini_bytes);
    g.bench_function("mini", |b| {
        b.iter(|| {
            let opts = mini::PushOptions {
                keep_records: false,
                ..mini::PushOptions::default()
            };
            let mut reader = mini::PushParser::with_options(&f.contract, opts);
            for chunk in black_box(f.mini.as_bytes()).chunks(4096) {
                black_box(reader.push(chunk).unwrap());
            }
            let end = reader.end().unwrap();
            assert!(end.complete);
            end.valid
        })
    });
    g.finish();

    let mut g = c.benchmark_group(format!("{}/stream_typed", f.name));
    g.throughput(Throughput::Bytes(f.mini.len() as u64));
    g.bench_function("mini", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for r in mini::stream::records::<R, _>(black_box(f.mini.as_bytes()), &f.contract) {
                black_box(r.unwrap());
                n += 1;
            }
            n
        })
    });
    g.finish();
}

/// The quiz floor's rows, in the groups of the same operations.
fn bench_floor(c: &mut Criterion, f: &Family<Quiz>) {
    assert!(floor::decode(&f.mini).expect("floor decode") == f.doc);
    assert_eq!(floor::encode(&f.doc).expect("floor encode"), f.mini);
    assert!(floor::validate(&f.mini).is_ok());
    let bytes = Throughput::Bytes(f.mini.len() as u64);
    for (op, run) in [("typed_decode", 0u8), ("validate", 1), ("serialize", 2)] {
        let mut g = c.benchmark_group(format!("{}/{op}", f.name));
        g.throughput(bytes.clone());
        g.bench_function("floor", |b| {
            b.iter(|| match run {
                0 => drop(black_box(floor::decode(black_box(&f.mini)).unwrap())),
                1 => floor::validate(black_box(&f.mini)).unwrap(),
                _ => drop(black_box(floor::encode(black_box(&f.doc)).unwrap())),
            })
        });
        g.finish();
    }
}

/// The rubric floor's reader (decode only), in the group of the same
/// operation.
fn bench_floor_rubric(c: &mut Criterion, f: &Family<Rubric>) {
    assert!(floor::rubric::decode(&f.mini).expect("floor decode") == f.doc);
    let mut g = c.benchmark_group(format!("{}/typed_decode", f.name));
    g.throughput(Throughput::Bytes(f.mini.len() as u64));
    g.bench_function("floor", |b| {
        b.iter(|| {
            drop(black_box(
                floor::rubric::decode(black_box(&f.mini)).unwrap(),
            ))
        })
    });
    g.finish();
}

/// The notes floor's reader (decode only), in the group of the same
/// operation.
fn bench_floor_notes(c: &mut Criterion, f: &Family<Notes>) {
    assert!(floor::notes::decode(&f.mini).expect("floor decode") == f.doc);
    let mut g = c.benchmark_group(format!("{}/typed_decode", f.name));
    g.throughput(Throughput::Bytes(f.mini.len() as u64));
    g.bench_function("floor", |b| {
        b.iter(|| drop(black_box(floor::notes::decode(black_box(&f.mini)).unwrap())))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    data::contracts_match();
    let n = records();
    let quiz = data::quiz(n);
    let text = mini::to_string(&quiz).unwrap();
    let quiz = family::<Quiz>("quiz", quiz, text);
    bench_family::<_, data::Question>(c, &quiz);
    bench_floor(c, &quiz);
    drop(quiz);

    let rubric = data::rubric(n);
    let text = mini::to_string(&rubric).unwrap();
    let rubric = family::<Rubric>("rubric", rubric, text);
    bench_family::<_, data::Criterion>(c, &rubric);
    bench_floor_rubric(c, &rubric);
    drop(rubric);

    let notes = data::notes(n);
    let text = data::notes_text_quoted(&notes);
    let notes = family::<Notes>("notes", notes, text);
    bench_family::<_, data::Note>(c, &notes);
    bench_floor_notes(c, &notes);
}

criterion_group! {
    name = throughput;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = benches
}
criterion_main!(throughput);
