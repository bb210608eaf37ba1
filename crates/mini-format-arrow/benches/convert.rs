//! Records per second from `.mini` text to Arrow batches and to Parquet,
//! beside `arrow-json`'s reader on the same records as JSON lines (the
//! canonical JSON of each record, one per line) with the same schema, in
//! one process. `cargo bench -p mini-format-arrow --bench convert`.

use std::io::Cursor;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mini::Contract;
use mini_arrow::arrow_schema::{DataType, Field, Schema};
use mini_arrow::{Converter, Input, Options};

const N: usize = 20_000;

const CONTRACT: &str = r#"{"prefix": "gen", "header": {"keys": {"k": {"type": "int"}}}, "core": [
  {"name": "id", "type": "str"},
  {"name": "name", "type": "str"},
  {"name": "category", "type": "enum", "values": ["a", "b", "c", "d", "e", "f", "g"]},
  {"name": "price", "type": "decimal", "min": "0", "max": "9999.99"},
  {"name": "stock", "type": "int", "min": 0},
  {"name": "tags", "type": "list"},
  {"name": "options", "type": "mlist", "count_key": "k"},
  {"name": "at", "type": "tuple", "items": [{"name": "x", "type": "float"}, {"name": "day", "type": "date"}]},
  {"name": "note", "type": "str", "optional": true}
]}"#;

fn document() -> String {
    let mut s = format!("gen|n={N}|k=3\n");
    for i in 0..N {
        let note = if i % 3 == 0 {
            ""
        } else {
            "a note about this record"
        };
        let cat = ["a", "b", "c", "d", "e", "f", "g"][i % 7];
        s.push_str(&format!(
            "ID-{i:08}|Product number {i} of the catalogue|{cat}|{}.{:02}|{}|red,green,blue|x,y*,z|{}.25,2026-{:02}-{:02}|{note}\n",
            i % 10_000,
            i % 100,
            i % 500,
            i % 90,
            i % 12 + 1,
            i % 28 + 1
        ));
    }
    s
}

fn bench(c: &mut Criterion) {
    let contract = Contract::from_json(CONTRACT).unwrap();
    let text = document();
    let options = Options {
        header: false,
        ..Options::default()
    };
    let conv = Converter::new(&contract, options).unwrap();
    let jsonl: String = mini::parse(&text, &contract)
        .unwrap()
        .records()
        .iter()
        .map(|r| serde_json::to_string(&r.value).unwrap() + "\n")
        .collect();
    // arrow-json reads no dictionary columns: the enum is Utf8 for it
    // (the only difference between the two schemas)
    let schema = Arc::new(Schema::new(
        conv.schema()
            .fields()
            .iter()
            .map(|f| match f.data_type() {
                DataType::Dictionary(_, _) => {
                    Arc::new(Field::new(f.name(), DataType::Utf8, f.is_nullable()))
                }
                _ => Arc::clone(f),
            })
            .collect::<Vec<_>>(),
    ));
    let mut g = c.benchmark_group("to_arrow");
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("mini_to_batches", |b| {
        b.iter(|| {
            let rows: usize = conv
                .batches([Input::text("", &text)])
                .map(|b| b.unwrap().num_rows())
                .sum();
            assert_eq!(rows, N);
        })
    });
    g.bench_function("arrow_json_to_batches", |b| {
        b.iter(|| {
            let reader = arrow_json::ReaderBuilder::new(Arc::clone(&schema))
                .with_batch_size(8192)
                .build(Cursor::new(jsonl.as_bytes()))
                .unwrap();
            let rows: usize = reader.map(|b| b.unwrap().num_rows()).sum();
            assert_eq!(rows, N);
        })
    });
    g.bench_function("mini_to_parquet", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(1 << 20);
            let s = conv
                .write_parquet([Input::text("", &text)], &mut out)
                .unwrap();
            assert_eq!(s.records, N);
        })
    });
    g.bench_function("arrow_json_to_parquet", |b| {
        b.iter(|| {
            let reader = arrow_json::ReaderBuilder::new(Arc::clone(&schema))
                .with_batch_size(8192)
                .build(Cursor::new(jsonl.as_bytes()))
                .unwrap();
            let mut out = Vec::with_capacity(1 << 20);
            let mut w = mini_arrow::parquet::arrow::ArrowWriter::try_new(
                &mut out,
                Arc::clone(&schema),
                Some(mini_arrow::default_writer_properties()),
            )
            .unwrap();
            for b in reader {
                w.write(&b.unwrap()).unwrap();
            }
            w.close().unwrap();
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(3)).warm_up_time(std::time::Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
