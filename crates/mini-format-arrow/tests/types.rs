//! The types the upstream families do not use (date, decimal, UInt64,
//! every marker rule, enum items, optional tuple components, header keys),
//! null handling, and the errors that name their field.

mod common;

use common::*;
use mini::Contract;
use mini_arrow::arrow_schema::DataType;
use mini_arrow::{Converter, Error, Input, Options};
use serde_json::json;

const ALL: &str = r#"{
  "prefix": "all",
  "header": {"keys": {
    "day": {"type": "date"},
    "tags": {"type": "list", "item": "int"},
    "k": {"type": "int", "min": 0}
  }},
  "core": [
    {"name": "id", "type": "str"},
    {"name": "day", "type": "date"},
    {"name": "price", "type": "decimal", "min": "0", "max": "99999.99"},
    {"name": "ratio", "type": "decimal"},
    {"name": "big", "type": "int", "min": 0, "max": 18446744073709551615},
    {"name": "small", "type": "int", "min": -5, "max": 5},
    {"name": "ok", "type": "bool"},
    {"name": "color", "type": "enum", "values": ["red", "green"]},
    {"name": "pick", "type": "mlist", "marker": "at_most_one", "json": {"items": "choices", "selected": "chosen"}},
    {"name": "labels", "type": "mlist", "item": "enum", "item_values": ["a", "b", "c"], "marker": "any",
     "json": {"items": "labels", "selected": "marked"}},
    {"name": "days", "type": "list", "item": "date"},
    {"name": "at", "type": "tuple", "optional": true, "items": [
      {"name": "x", "type": "int"},
      {"name": "cost", "type": "decimal", "min": "-10.5", "max": "10.5"},
      {"name": "label", "type": "str", "optional": true}
    ]},
    {"name": "score", "type": "float", "optional": true},
    {"name": "prio", "type": "int", "optional": true, "default": 3}
  ],
  "extensions": [{"name": "note", "type": "str"}, {"name": "when", "type": "date"}]
}"#;

const DOC: &str = "all|n=3|day=2026-12-01|tags=1,2|k=2|model=m-1|lang=es
a|2024-02-29|7.5|-0.000|18446744073709551615|-5|1|red|x,y*|a*,b,c*|2024-01-01,1969-12-31|1,2.5,|0.5||fine|2026-01-02
b|0001-01-01|99999.99|12345678901234567890.123|0|5|false|green|x,y|a,b|||||
c|9999-12-31|0.01|1|1|0|true|red|z|c*|2000-03-01|0,-10.5,home|-1e3|7";

#[test]
fn schema_of_every_type() {
    let contract = Contract::from_json(ALL).unwrap();
    let s = mini_arrow::schema(&contract).unwrap();
    let t = |n: &str| s.field_with_name(n).unwrap().data_type().clone();
    assert_eq!(t("day"), DataType::Date32);
    assert_eq!(t("price"), DataType::Decimal128(7, 2));
    assert_eq!(
        t("ratio"),
        DataType::Utf8,
        "a decimal without both bounds is its canonical text"
    );
    assert_eq!(t("big"), DataType::UInt64, "bounds past i64::MAX, min 0");
    assert_eq!(t("small"), DataType::Int64);
    assert_eq!(t("chosen"), DataType::Int32);
    assert!(
        s.field_with_name("chosen").unwrap().is_nullable(),
        "at_most_one: null when none"
    );
    assert!(matches!(t("marked"), DataType::List(_)));
    let DataType::Struct(at) = t("at") else {
        panic!()
    };
    assert_eq!(at[1].data_type(), &DataType::Decimal128(3, 1));
    assert!(at[2].is_nullable() && !at[0].is_nullable());
    assert!(
        s.field_with_name("note").unwrap().is_nullable(),
        "extensions are optional"
    );
    assert!(!s.field_with_name("id").unwrap().is_nullable());
    let DataType::Struct(h) = t("header") else {
        panic!()
    };
    let names: Vec<_> = h.iter().map(|f| f.name().as_str()).collect();
    // the contract's keys in the core's order (`n` and `v` are implicit)
    assert_eq!(names, ["day", "tags", "k", "n", "v"]);
    assert_eq!(h[0].data_type(), &DataType::Date32);
}

#[test]
fn every_type_and_null_round_trips_through_parquet() {
    let contract = Contract::from_json(ALL).unwrap();
    let canonical = mini::parse(DOC, &contract).unwrap().to_canonical();
    let conv = Converter::new(
        &contract,
        Options {
            batch_size: 2,
            ..Options::default()
        },
    )
    .unwrap();
    let path = tmp("all.parquet");
    conv.write_parquet(
        [Input::text("all", DOC)],
        std::fs::File::create(&path).unwrap(),
    )
    .unwrap();
    let (_, rows) = read_parquet(&path);
    assert_eq!(rows.len(), 3);
    let records = canonical["records"].as_array().unwrap();
    for (i, (row, want)) in rows.iter().zip(records).enumerate() {
        let mut want = want.clone();
        let got = serde_json::Value::Object(record_of(row, &contract));
        // a Decimal128 column keeps the column's scale: 7.5 reads 7.50
        let price = want["price"].as_str().unwrap().to_string();
        let (int, frac) = price.split_once('.').unwrap_or((&price, ""));
        want["price"] = json!(format!("{int}.{frac:0<2}"));
        if let Some(c) = want["at"]["cost"].as_str().map(str::to_string) {
            let (int, frac) = c.split_once('.').unwrap_or((&c, ""));
            want["at"]["cost"] = json!(format!("{int}.{frac:0<1}"));
        }
        assert_same(&want, &got, &format!("record {i}"));
    }
    // nulls: an empty optional, absent extensions, a default, an empty
    // at_most_one selection, an empty list
    assert_eq!(rows[1]["score"], serde_json::Value::Null);
    assert_eq!(rows[1]["prio"], 3);
    assert_eq!(rows[1]["note"], serde_json::Value::Null);
    assert_eq!(rows[1]["chosen"], serde_json::Value::Null);
    assert_eq!(rows[1]["at"], serde_json::Value::Null);
    assert_eq!(rows[2]["note"], serde_json::Value::Null);
    assert_eq!(rows[0]["big"], json!(18446744073709551615u64));
    assert_eq!(
        rows[0]["ratio"], "0.000",
        "canonical: the sign of zero dropped, the scale kept"
    );
    assert_eq!(
        rows[1]["ratio"], "12345678901234567890.123",
        "unbounded decimals stay exact text"
    );
    // the header: typed keys in the struct, the undeclared ones in the map
    assert_eq!(rows[0]["header"]["day"], "2026-12-01");
    assert_eq!(rows[0]["header"]["tags"], json!([1, 2]));
    assert_eq!(
        rows[0]["header_extra"],
        json!({"model": "m-1", "lang": "es"})
    );
}

#[test]
fn a_decimal_past_its_scale_is_refused_not_rounded() {
    let contract = Contract::from_json(ALL).unwrap();
    let doc = DOC.replacen("|7.5|", "|7.505|", 1);
    let conv = Converter::new(&contract, Options::default()).unwrap();
    let err = conv.read_str(&doc).unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!((d.line, d.field.as_deref()), (2, Some("price")));
    assert!(d.message.contains("Decimal128(7, 2)"), "{d}");
    // lenient: the other records are kept, the diagnostic returned
    let lenient = Converter::new(
        &contract,
        Options {
            lenient: true,
            ..Options::default()
        },
    )
    .unwrap();
    let (batches, summary) = lenient.read_str(&doc).unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
    assert_eq!(summary.diagnostics.len(), 1);
    assert_eq!(summary.diagnostics[0].line, 2);
}

#[test]
fn int_bounds_beyond_64_bits_are_a_schema_error_naming_the_field() {
    for (field, why) in [
        (
            r#"{"name": "huge", "type": "int", "max": 100000000000000000000000}"#,
            "max past u64",
        ),
        (
            r#"{"name": "huge", "type": "int", "min": -1, "max": 9223372036854775808}"#,
            "negative and past i64",
        ),
        (
            r#"{"name": "huge", "type": "int", "min": -9223372036854775809}"#,
            "min past i64",
        ),
    ] {
        let c = Contract::from_json(&format!(r#"{{"prefix": "b", "core": [{field}]}}"#)).unwrap();
        match mini_arrow::schema(&c) {
            Err(Error::Schema { field, message }) => {
                assert_eq!(field, "huge", "{why}");
                assert!(message.contains("64 bits"), "{why}: {message}");
            }
            other => panic!("{why}: {other:?}"),
        }
    }
    // in a tuple, the path names the component
    let c = Contract::from_json(
        r#"{"prefix": "b", "core": [{"name": "t", "type": "tuple", "items": [{"name": "z", "type": "int", "max": 1e30}]}]}"#,
    )
    .unwrap();
    let e = mini_arrow::schema(&c).unwrap_err();
    assert!(e.to_string().contains("field 't.z'"), "{e}");
}

#[test]
fn an_int_value_beyond_64_bits_is_an_error_naming_field_and_line() {
    let c = Contract::from_json(r#"{"prefix": "b", "core": [{"name": "id", "type": "str"}, {"name": "count", "type": "int"}]}"#).unwrap();
    let conv = Converter::new(&c, Options::default()).unwrap();
    let doc = "b|n=2\nx|1\ny|123456789012345678901234567890";
    // with `arbitrary_precision` the core reads the int and the column
    // refuses it; without, the core itself reports E06: never a cast
    let err = conv.read_str(doc).unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!((d.line, d.field.as_deref()), (3, Some("count")), "{err}");
    assert!(
        d.message.contains("Int64") || d.code == Some(mini::Code::E06),
        "{err}"
    );
}

#[test]
fn a_clash_with_an_added_column_is_a_schema_error() {
    let c = Contract::from_json(r#"{"prefix": "h", "core": [{"name": "header", "type": "str"}]}"#)
        .unwrap();
    let e = mini_arrow::schema(&c).unwrap_err();
    assert!(e.to_string().contains("'header'"), "{e}");
    let without = Options {
        header: false,
        ..Options::default()
    };
    assert!(mini_arrow::schema_with(&c, &without).is_ok());
}
