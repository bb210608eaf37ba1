//! Shared by the tests: the upstream families, Parquet read back, and a
//! value-for-value comparison with the canonical JSON.
#![allow(dead_code)]

use std::fs::File;
use std::path::{Path, PathBuf};

use mini::Contract;
use mini_arrow::arrow_array::RecordBatch;
use mini_arrow::arrow_schema::{DataType, Schema, SchemaRef};
use mini_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value};

/// `../shared/conformance` relative to the repository root, or `MINI_CONFORMANCE`.
pub fn conformance_dir() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join("../shared/conformance"),
    }
}

/// Every upstream family: (prefix, contract, its directory).
pub fn families() -> Vec<(String, Contract, PathBuf)> {
    let forks = conformance_dir().join("forks");
    let mut out: Vec<_> = std::fs::read_dir(&forks)
        .unwrap_or_else(|e| {
            panic!(
                "cannot read {}: {e} (set MINI_CONFORMANCE)",
                forks.display()
            )
        })
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("contract.json").is_file())
        .map(|p| {
            let c = Contract::from_path(p.join("contract.json")).unwrap();
            (p.file_name().unwrap().to_string_lossy().into_owned(), c, p)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(out.len(), 14, "the 14 upstream families");
    out
}

/// The fixture pairs of a family: (.mini text, canonical JSON).
pub fn fixtures(dir: &Path) -> Vec<(String, String, Value)> {
    let f = dir.join("fixtures");
    [
        ("valid.mini", "canonical.json"),
        ("escaping.mini", "escaping.json"),
    ]
    .iter()
    .filter(|(m, _)| f.join(m).is_file())
    .map(|(m, j)| {
        let text = std::fs::read_to_string(f.join(m)).unwrap();
        let json: Value =
            serde_json::from_str(&std::fs::read_to_string(f.join(j)).unwrap()).unwrap();
        (m.to_string(), text, json)
    })
    .collect()
}

/// A scratch file path under cargo's per-target temporary directory.
pub fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mini-arrow");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Every row of a Parquet file, read back with the `parquet` crate's Arrow reader.
pub fn read_parquet(path: &Path) -> (SchemaRef, Vec<Map<String, Value>>) {
    let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(path).unwrap()).unwrap();
    let schema = builder.schema().clone();
    let reader = builder.build().unwrap();
    let batches: Vec<RecordBatch> = reader.map(|b| b.unwrap()).collect();
    let rows = batches
        .iter()
        .flat_map(|b| mini_arrow::to_json_rows(b).unwrap())
        .collect();
    for b in &batches {
        assert_eq!(columns_of(&b.schema()), columns_of(&schema));
    }
    (schema, rows)
}

/// Name, type and nullability of every column (what a reader sees).
pub fn columns_of(schema: &Schema) -> Vec<(String, DataType, bool)> {
    schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone(), f.is_nullable()))
        .collect()
}

/// Value for value: numbers by value (an int as an int, a float as an
/// f64: `0.0` and `0` are the same float), everything else exactly.
pub fn assert_same(expected: &Value, got: &Value, path: &str) {
    match (expected, got) {
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            assert!(same, "{path}: expected {a}, got {b}");
        }
        (Value::Array(a), Value::Array(b)) => {
            assert_eq!(a.len(), b.len(), "{path}: list length");
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert_same(x, y, &format!("{path}[{i}]"));
            }
        }
        (Value::Object(a), Value::Object(b)) => {
            assert_eq!(
                a.keys().collect::<Vec<_>>(),
                b.keys().collect::<Vec<_>>(),
                "{path}: keys"
            );
            for (k, x) in a {
                assert_same(x, &b[k], &format!("{path}.{k}"));
            }
        }
        _ => assert_eq!(expected, got, "{path}"),
    }
}

/// A row's record: its canonical keys, in the contract's order.
pub fn record_of(row: &Map<String, Value>, contract: &Contract) -> Map<String, Value> {
    let mut keys = Vec::new();
    for f in contract.fields() {
        match &f.kind {
            mini::contract::Kind::MList {
                items_key,
                selected_key,
                ..
            } => keys.extend([items_key.clone(), selected_key.clone()]),
            _ => keys.push(f.name.clone()),
        }
    }
    keys.into_iter()
        .map(|k| (k.clone(), row[&k].clone()))
        .collect()
}

/// A row's header: the typed keys that are present, then the undeclared ones.
pub fn header_of(row: &Map<String, Value>) -> Map<String, Value> {
    let mut h: Map<String, Value> = row["header"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if let Some(extra) = row.get("header_extra").and_then(Value::as_object) {
        h.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    h
}

/// Compares two header objects whatever their key order.
pub fn assert_same_header(expected: &Value, got: &Map<String, Value>, path: &str) {
    let e = expected.as_object().unwrap();
    let mut ek: Vec<_> = e.keys().collect();
    let mut gk: Vec<_> = got.keys().collect();
    ek.sort();
    gk.sort();
    assert_eq!(ek, gk, "{path}: header keys");
    for (k, v) in e {
        assert_same(v, &got[k], &format!("{path}.header.{k}"));
    }
}
