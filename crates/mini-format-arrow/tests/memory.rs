//! Memory stays bounded: converting a generated document of 40,000 records
//! and one of 160,000 (four times the text, about 19 MB, never held whole:
//! it is generated as it is read) to Parquet needs about the same peak,
//! and that peak (one batch, one row group) is below half the input.
//!
//! Bytes are counted by a counting global allocator (`cap`, with `stats`);
//! no wall clock. One test in this binary: the counters are global.
//! (A `unique` field would make the core keep every claimed value of a
//! document, by the rule's nature; the contract here has none.)

use std::alloc::System;
use std::io::Read;

use cap::Cap;
use mini::Contract;
use mini_arrow::{Converter, Input, Options};

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

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

/// A `.mini` document of `n` records, produced as it is read.
struct Generated {
    n: usize,
    i: usize,
    line: Vec<u8>,
    pos: usize,
    bytes: usize,
}

impl Generated {
    fn new(n: usize) -> Self {
        Generated {
            n,
            i: 0,
            line: format!("gen|n={n}|k=3|model=gen-1\n").into_bytes(),
            pos: 0,
            bytes: 0,
        }
    }
}

impl Read for Generated {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.line.len() {
            if self.i == self.n {
                return Ok(0);
            }
            let i = self.i;
            self.i += 1;
            self.line.clear();
            self.pos = 0;
            let note = if i % 3 == 0 {
                ""
            } else {
                "a note about this record"
            };
            let cat = ["a", "b", "c", "d", "e", "f", "g"][i % 7];
            self.line.extend_from_slice(
                format!(
                    "ID-{i:08}|Product number {i} of the catalogue|{cat}|{}.{:02}|{}|red,green,blue|x,y*,z|{}.25,2026-{:02}-{:02}|{note}\n",
                    i % 10_000,
                    i % 100,
                    i % 500,
                    i % 90,
                    i % 12 + 1,
                    i % 28 + 1
                )
                .as_bytes(),
            );
        }
        let k = out.len().min(self.line.len() - self.pos);
        out[..k].copy_from_slice(&self.line[self.pos..self.pos + k]);
        self.pos += k;
        self.bytes += k;
        Ok(k)
    }
}

/// Converts `n` generated records to Parquet into a sink: (input bytes,
/// peak bytes held during the conversion above what was held before).
fn convert(n: usize) -> (usize, usize, usize) {
    let contract = Contract::from_json(CONTRACT).unwrap();
    let conv = Converter::new(
        &contract,
        Options {
            batch_size: 1024,
            ..Options::default()
        },
    )
    .unwrap();
    let props = mini_arrow::parquet::file::properties::WriterProperties::builder()
        .set_max_row_group_row_count(Some(8192))
        .build();
    let before = ALLOC.allocated();
    let mut input = Generated::new(n);
    let summary = conv
        .write_parquet_with([Input::reader("gen", &mut input)], std::io::sink(), props)
        .unwrap();
    assert_eq!(summary.records, n);
    assert!(summary.diagnostics.is_empty());
    (
        input.bytes,
        ALLOC.max_allocated().saturating_sub(before),
        ALLOC.allocated().saturating_sub(before),
    )
}

#[test]
fn peak_memory_does_not_grow_with_the_input() {
    let (small_bytes, small_peak, small_left) = convert(40_000);
    let (big_bytes, big_peak, big_left) = convert(160_000);
    eprintln!(
        "40k records: {small_bytes} bytes in, peak {small_peak} B, left {small_left} B; \
         160k records: {big_bytes} bytes in, peak {big_peak} B, left {big_left} B"
    );
    assert!(big_bytes > 15 << 20, "a large input: {big_bytes}");
    // the peak is monotonic over the process: 4x the input may raise it by
    // a little (a larger footer), never in proportion
    assert!(
        big_peak < small_peak + (2 << 20),
        "peak grew with the input: {small_peak} -> {big_peak}"
    );
    // one batch of 1024 records, one row group of 8192 in encoded pages
    assert!(
        big_peak < 16 << 20 && big_peak < big_bytes / 2,
        "peak {big_peak} for {big_bytes} bytes of input"
    );
    assert!(
        big_left < 1 << 20,
        "nothing kept after the conversion: {big_left}"
    );
}
