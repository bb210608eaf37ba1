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
