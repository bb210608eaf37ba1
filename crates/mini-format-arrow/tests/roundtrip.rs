//! Every type of the 14 upstream families round-trips: each valid and
//! escaping fixture written to Parquet, read back with the `parquet`
//! crate's Arrow reader, equals its canonical JSON value for value (records
//! and header); the Arrow IPC stream gives the same rows.

mod common;

use common::*;
use mini::contract::{Kind, MarkerRule, ScalarType};
use mini_arrow::arrow_schema::DataType;
use mini_arrow::{Converter, Input, Options};

#[test]
fn every_family_round_trips_through_parquet() {
    let mut checked = 0;
    for (prefix, contract, dir) in families() {
        // small batches: every fixture spans several batches
        let options = Options {
            batch_size: 5,
            ..Options::default()
        };
        let conv = Converter::new(&contract, options).unwrap();
        for (name, text, canonical) in fixtures(&dir) {
            let path = tmp(&format!("{prefix}-{name}.parquet"));
            let file = std::fs::File::create(&path).unwrap();
            let summary = conv
                .write_parquet([Input::text(&name, &text)], file)
                .unwrap();
            let records = canonical[contract.records_key()].as_array().unwrap();
            assert_eq!(summary.records, records.len(), "{prefix}/{name}");
            assert!(summary.diagnostics.is_empty());
            let (schema, rows) = read_parquet(&path);
            assert_eq!(
                columns_of(&schema),
                columns_of(&conv.schema()),
                "{prefix}/{name}: schema read back"
            );
            assert_eq!(schema.metadata(), conv.schema().metadata());
            assert_eq!(rows.len(), records.len());
            for (i, (row, want)) in rows.iter().zip(records).enumerate() {
                let at = format!("{prefix}/{name} record {i}");
                assert_same(
                    want,
                    &serde_json::Value::Object(record_of(row, &contract)),
                    &at,
                );
                assert_same_header(&canonical["header"], &header_of(row), &at);
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 28,
        "valid and escaping fixtures of 14 families: {checked}"
    );
}

#[test]
fn every_family_round_trips_through_arrow_ipc() {
    for (prefix, contract, dir) in families() {
        let conv = Converter::new(
            &contract,
            Options {
                batch_size: 3,
                ..Options::default()
            },
        )
        .unwrap();
        for (name, text, canonical) in fixtures(&dir) {
            let mut ipc = Vec::new();
            conv.write_ipc([Input::text(&name, &text)], &mut ipc)
                .unwrap();
            let reader =
                mini_arrow::arrow_ipc::reader::StreamReader::try_new(&ipc[..], None).unwrap();
            let rows: Vec<_> = reader
                .flat_map(|b| mini_arrow::to_json_rows(&b.unwrap()).unwrap())
                .collect();
            let records = canonical[contract.records_key()].as_array().unwrap();
            assert_eq!(rows.len(), records.len(), "{prefix}/{name}");
            for (row, want) in rows.iter().zip(records) {
                assert_same(
                    want,
                    &serde_json::Value::Object(record_of(row, &contract)),
                    &prefix,
                );
            }
        }
    }
}

/// The type of every field of every family, as ADR 0030 says.
#[test]
fn every_family_field_has_its_arrow_type() {
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let mut kinds = std::collections::BTreeSet::new();
    for (prefix, contract, _) in families() {
        let schema = mini_arrow::schema(&contract).unwrap();
        for f in contract.fields() {
            kinds.insert(f.kind.type_name());
            let scalar = |ty: ScalarType| match ty {
                ScalarType::Str | ScalarType::Decimal => DataType::Utf8,
                ScalarType::Int => DataType::Int64,
                ScalarType::Float => DataType::Float64,
                ScalarType::Bool => DataType::Boolean,
                ScalarType::Enum => dict.clone(),
                ScalarType::Date => DataType::Date32,
            };
            let at = format!("{prefix}.{}", f.name);
            match &f.kind {
                Kind::Scalar(s) => {
                    let col = schema.field_with_name(&f.name).unwrap();
                    assert_eq!(col.data_type(), &scalar(s.ty), "{at}");
                    assert_eq!(col.is_nullable(), f.optional, "{at}");
                }
                Kind::List { item, .. } => {
                    let DataType::List(i) = schema.field_with_name(&f.name).unwrap().data_type()
                    else {
                        panic!("{at}: not a list")
                    };
                    assert_eq!(i.data_type(), &scalar(item.ty), "{at}");
                }
                Kind::MList {
                    item,
                    marker,
                    items_key,
                    selected_key,
                    ..
                } => {
                    let DataType::List(i) = schema.field_with_name(items_key).unwrap().data_type()
                    else {
                        panic!("{at}: not a list")
                    };
                    assert_eq!(i.data_type(), &scalar(item.ty), "{at}");
                    let sel = schema.field_with_name(selected_key).unwrap();
                    match marker {
                        MarkerRule::ExactlyOne | MarkerRule::AtMostOne => {
                            assert_eq!(sel.data_type(), &DataType::Int32)
                        }
                        _ => assert!(matches!(sel.data_type(), DataType::List(_)), "{at}"),
                    }
                }
                Kind::Tuple(items) => {
                    let DataType::Struct(fields) =
                        schema.field_with_name(&f.name).unwrap().data_type()
                    else {
                        panic!("{at}: not a struct")
                    };
                    let names: Vec<_> = fields.iter().map(|f| f.name().as_str()).collect();
                    let want: Vec<_> = items.iter().map(|c| c.name.as_str()).collect();
                    assert_eq!(names, want, "{at}");
                    for (c, f) in items.iter().zip(fields.iter()) {
                        assert_eq!(f.data_type(), &scalar(c.scalar.ty), "{at}.{}", c.name);
                        assert_eq!(f.is_nullable(), c.optional);
                    }
                }
            }
        }
        assert_eq!(schema.metadata()["mini.prefix"], prefix);
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["bool", "enum", "float", "int", "list", "mlist", "str", "tuple"]
    );
}

/// Many documents of one family, one file: `source` and `source_line`
/// say where each row comes from.
#[test]
fn many_documents_with_source_columns() {
    let families = families();
    let (_, contract, dir) = families.iter().find(|f| f.0 == "q").unwrap();
    let fx = fixtures(dir);
    let options = Options {
        source: true,
        batch_size: 4,
        ..Options::default()
    };
    let conv = Converter::new(contract, options).unwrap();
    let inputs = fx
        .iter()
        .map(|(name, text, _)| Input::text(name.clone(), text));
    let mut out = Vec::new();
    let summary = conv.write_ipc(inputs, &mut out).unwrap();
    assert_eq!(summary.documents, 2);
    let reader = mini_arrow::arrow_ipc::reader::StreamReader::try_new(&out[..], None).unwrap();
    let rows: Vec<_> = reader
        .flat_map(|b| mini_arrow::to_json_rows(&b.unwrap()).unwrap())
        .collect();
    let n_valid = fx[0].2["items"].as_array().unwrap().len();
    assert_eq!(rows.len(), summary.records);
    assert_eq!(rows[0]["source"], "valid.mini");
    assert_eq!(rows[0]["source_line"], 2);
    assert_eq!(rows[n_valid]["source"], "escaping.mini");
    assert_eq!(rows[n_valid]["header"]["n"], fx[1].2["header"]["n"]);
}
