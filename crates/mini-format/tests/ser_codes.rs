//! The serializer reports the parser's code for the same violation (SPEC 1.1
//! §9; issue 14, item 3): whatever order its own checks run in, its first
//! diagnostic is the one the parser gives first on the text it would write.

use mini::{dumps, parse, to_string_with_contract, Code, Contract};
use serde_json::{json, Value};

fn contract() -> Contract {
    Contract::from_value(json!({
        "prefix": "sc",
        "header": {"keys": {"mode": {"type": "enum", "values": ["x", "y"]}}},
        "core": [
            {"name": "e", "type": "enum", "values": ["a", "b"]},
            {"name": "d", "type": "date", "min": "2020-01-01", "optional": true},
            {"name": "q", "type": "decimal", "max": "3", "optional": true},
            {"name": "es", "type": "list", "item": "enum", "item_values": ["u", "v"], "optional": true},
            {"name": "i", "type": "int", "max": 5, "optional": true}
        ]
    }))
    .expect("contract")
}

fn first(obj: &Value) -> (Code, usize, String) {
    let c = contract();
    let e = dumps(obj, &c).expect_err("refused");
    let d = &e.diagnostics()[0];
    let typed = to_string_with_contract(obj, &c).expect_err("typed refused");
    assert_eq!(
        typed.diagnostics()[0].code(),
        d.code(),
        "to_string_with_contract agrees"
    );
    (d.code(), d.line(), d.field().unwrap_or("").to_string())
}

/// The code the parser gives first on `text`.
fn parsed(text: &str) -> (Code, usize, String) {
    let e = parse(text, &contract()).expect_err("parser refuses");
    let d = &e.diagnostics()[0];
    (d.code(), d.line(), d.field().unwrap_or("").to_string())
}

fn doc(rec: Value) -> Value {
    json!({"prefix": "sc", "header": {}, "records": [rec]})
}

#[test]
fn outer_whitespace_on_a_value_the_parser_refuses_gets_the_parser_code() {
    // outside the enumeration, with outer whitespace: E10 (parser: " z" → "z")
    assert_eq!(first(&doc(json!({"e": " z"}))), parsed("sc|n=1\n z||||"));
    assert_eq!(first(&doc(json!({"e": " z"}))).0, Code::E10);
    // a list element outside the item enumeration
    assert_eq!(
        first(&doc(json!({"e": "a", "es": ["u", "w "]}))),
        parsed("sc|n=1\na|||u,w |")
    );
    // out of range, with outer whitespace: E13
    assert_eq!(
        first(&doc(json!({"e": "a", "d": " 2019-01-01"}))),
        parsed("sc|n=1\na| 2019-01-01|||")
    );
    assert_eq!(
        first(&doc(json!({"e": "a", "q": "7 "}))),
        parsed("sc|n=1\na||7 ||")
    );
    // a header value outside the enumeration
    let h = json!({"prefix": "sc", "header": {"mode": "z "}, "records": []});
    assert_eq!(first(&h), parsed("sc|n=0|mode=z "));
    // what the parser would accept changed stays E06 (nothing changes silently)
    assert_eq!(first(&doc(json!({"e": " a"}))).0, Code::E06);
    assert_eq!(
        first(&doc(json!({"e": "a", "d": " 2021-01-01"}))).0,
        Code::E06
    );
}

#[test]
fn the_first_diagnostic_is_the_parser_first_across_fields_and_lines() {
    // record 1 breaks a range (seen by the parser), record 2 holds a JSON
    // type the encoder refuses: the parser's first error is on line 2
    let two = json!({"prefix": "sc", "header": {}, "records": [
        {"e": "a", "i": 9}, {"e": "a", "i": "x"}]});
    assert_eq!(first(&two), (Code::E13, 2, "i".to_string()));
    // one record: the enumeration (field 1) before the encoder's refusal
    // of field 5
    let one = doc(json!({"e": "z", "i": "x"}));
    assert_eq!(first(&one), (Code::E10, 2, "e".to_string()));
}

/// Every code the serializer itself raises, with its line and field:
/// refusals (what the text cannot carry) and what the engine would find on
/// the text (reported without writing it and parsing it back).
#[test]
fn every_code_the_serializer_raises() {
    let c = Contract::from_value(json!({
        "prefix": "ev",
        "header": {
            "keys": {"k": {"type": "int"}, "who": {"type": "str"}},
            "required": ["who"]
        },
        "core": [
            {"name": "id", "type": "int", "unique": true, "min": 0},
            {"name": "e", "type": "enum", "values": ["a", "b"]},
            {"name": "m", "type": "mlist", "count_key": "k",
             "json": {"items": "m", "selected": "sel"}},
            {"name": "t", "type": "tuple", "optional": true,
             "items": [{"name": "x", "type": "int"}, {"name": "y", "type": "int", "optional": true}]}
        ]
    }))
    .expect("contract");
    let rec = || json!({"id": 1, "e": "a", "m": ["p", "q"], "sel": 0});
    let doc = |recs: Vec<Value>| json!({"header": {"k": 2, "who": "me"}, "records": recs});
    let with = |k: &str, v: Value| {
        let mut r = rec();
        r[k] = v;
        doc(vec![rec_with_id(0), r])
    };
    fn rec_with_id(id: i64) -> Value {
        json!({"id": id, "e": "b", "m": ["p", "q"], "sel": 1})
    }
    let first = |obj: &Value| -> (Code, usize, String) {
        let e = dumps(obj, &c).expect_err("refused");
        let d = &e.diagnostics()[0];
        (d.code(), d.line(), d.field().unwrap_or("").to_string())
    };
    let at = |code: Code, line: usize, field: &str| (code, line, field.to_string());

    // E02: a prefix that is not the contract's
    let mut o = doc(vec![rec()]);
    o["prefix"] = json!("xx");
    assert_eq!(first(&o), at(Code::E02, 1, ""));
    // E04: a record whose line is blank (the reader skips it)
    let blank = Contract::from_value(json!({"prefix": "bl",
        "core": [{"name": "a", "type": "str", "optional": true}]}))
    .unwrap();
    let e = dumps(&json!({"records": [{"a": "x"}, {"a": null}]}), &blank).unwrap_err();
    assert_eq!((e.code(), e.diagnostics()[0].line()), (Some(Code::E04), 0));
    // E05: a record key that is no field
    assert_eq!(first(&with("zz", json!(1))), at(Code::E05, 3, "zz"));
    // E06: a wrong JSON type, a required null, outer whitespace, an empty
    // string, a missing records array
    assert_eq!(first(&with("id", json!("1"))), at(Code::E06, 3, "id"));
    assert_eq!(first(&with("e", json!(null))), at(Code::E06, 3, "e"));
    assert_eq!(first(&with("e", json!("a "))), at(Code::E06, 3, "e"));
    assert_eq!(first(&with("e", json!(""))), at(Code::E06, 3, "e"));
    assert_eq!(
        first(&json!({"header": {"k": 2, "who": "me"}})),
        at(Code::E06, 0, "records")
    );
    // E07: a tuple key that is no component; a list against its count key
    assert_eq!(
        first(&with("t", json!({"x": 1, "z": 2}))),
        at(Code::E07, 3, "t")
    );
    assert_eq!(
        first(&with("m", json!(["p", "q", "r"]))),
        at(Code::E07, 3, "m")
    );
    // E08: a selection out of range, not an index, of the wrong shape
    assert_eq!(first(&with("sel", json!(5))), at(Code::E08, 3, "m"));
    assert_eq!(first(&with("sel", json!(-1))), at(Code::E08, 3, "m"));
    assert_eq!(first(&with("sel", json!([0]))), at(Code::E08, 3, "m"));
    assert_eq!(first(&with("sel", json!(null))), at(Code::E08, 3, "m"));
    // E10: outside the enumeration (with or without outer whitespace)
    assert_eq!(first(&with("e", json!("c"))), at(Code::E10, 3, "e"));
    assert_eq!(first(&with("e", json!(" c"))), at(Code::E10, 3, "e"));
    // E11: a unique value repeated
    assert_eq!(first(&with("id", json!(0))), at(Code::E11, 3, "id"));
    // E12: a header key that is not a key; a required header key missing
    let mut o = doc(vec![rec()]);
    o["header"]["bad key"] = json!(1);
    assert_eq!(first(&o), at(Code::E12, 1, "bad key"));
    let o = json!({"header": {"k": 2}, "records": [rec()]});
    assert_eq!(first(&o), at(Code::E12, 1, "who"));
    // E13: out of range
    assert_eq!(first(&with("id", json!(-4))), at(Code::E13, 3, "id"));
}

/// A refused last record whose line looks like a Markdown fence gets the
/// note the parser gives that line (found by the `typed_roundtrip` fuzz
/// target: an id of backticks); a valid record after it takes the note
/// away, as in the parser. In debug builds the serializer also asserts
/// that its diagnostics are the parser's on the text it wrote.
#[test]
fn a_refused_last_record_that_looks_like_a_fence_gets_the_parsers_note() {
    let c = contract();
    let fence = json!({"e": "```a", "i": 9});
    let valid = json!({"e": "a"});
    let doc = |records: Vec<Value>| json!({"header": {"mode": "x"}, "records": records});

    let e = dumps(&doc(vec![valid.clone(), fence.clone()]), &c).expect_err("refused");
    let d = &e.diagnostics()[0];
    assert_eq!((d.code(), d.line()), (Code::E10, 3), "{e}");
    assert!(d.message().contains("looks like a Markdown fence"), "{e}");
    let typed = to_string_with_contract(&doc(vec![valid.clone(), fence.clone()]), &c)
        .expect_err("typed refused");
    assert_eq!(typed.diagnostics(), e.diagnostics());

    let e = dumps(&doc(vec![fence, valid]), &c).expect_err("refused");
    let d = &e.diagnostics()[0];
    assert_eq!((d.code(), d.line()), (Code::E10, 2), "{e}");
    assert!(!d.message().contains("fence"), "{e}");
}
