//! The canonical builder on the compiled walk (ADR 0034) builds what the
//! engine builds: the same records (values, lines, indices) and the same
//! diagnostics, for valid documents and for every one-byte edit of one.

use super::*;
use crate::check::Scratch;

/// The oracle: every line through the engine, each valid record made by
/// the template from the engine's typed values (the path the walk
/// replaces).
fn by_the_engine(text: &str, contract: &Contract) -> (Vec<Record>, Vec<Diagnostic>) {
    let mut engine = Engine::new(contract);
    let mut scratch = Scratch::new();
    let template = RecordTemplate::new(contract);
    let mut records = Vec::new();
    for line in crate::read::lines(text) {
        if engine.check_line(line, &mut scratch) == Checked::Valid {
            records.push(Record {
                line: line.number,
                index: engine.record_lines() - 1,
                value: template.record_json(contract, scratch.values_mut()),
            });
        }
    }
    (records, engine.finish().errors)
}

/// The builder's document against the oracle; the number of record lines
/// the walk built.
fn same(text: &str, contract: &Contract) -> usize {
    let mut b = Builder::new(contract);
    let mut scratch = Scratch::new();
    for line in crate::read::lines(text) {
        if let Fed::Valid(r) = b.line(line, &mut scratch) {
            b.keep(r);
        }
    }
    let walked = b.walk.walked;
    let doc = b.finish();
    let (records, errors) = by_the_engine(text, contract);
    assert_eq!(doc.records, records, "{text}");
    assert_eq!(doc.errors, errors, "{text}");
    walked
}

fn contract() -> Contract {
    Contract::from_json(
        r#"{"prefix": "q", "header": {"keys": {"k": {"type": "int"}}},
            "core": [
              {"name": "id", "type": "str", "unique": true},
              {"name": "o", "type": "mlist", "count_key": "k", "min": 2, "max": 4,
               "json": {"items": "o", "selected": "a"}},
              {"name": "l", "type": "int", "min": 1, "max": 5, "optional": true, "default": 3},
              {"name": "e", "type": "enum", "values": ["x", "y"]},
              {"name": "t", "type": "list", "item": "float", "max": 3},
              {"name": "m", "type": "mlist", "marker": "any", "optional": true,
               "json": {"items": "m", "selected": "ms"}},
              {"name": "p", "type": "tuple", "items": [
                {"name": "a", "type": "float"},
                {"name": "b", "type": "float", "min": -4, "max": 4, "optional": true}]},
              {"name": "s", "type": "list", "item": "str", "optional": true, "default": ["z"]}
            ],
            "extensions": [
              {"name": "u", "type": "int", "unique": true},
              {"name": "w", "type": "str", "default": "none"},
              {"name": "x", "type": "mlist", "marker": "at_most_one",
               "json": {"items": "x", "selected": "xs"}}]}"#,
    )
    .unwrap()
}

#[test]
fn the_walk_builds_what_the_engine_builds() {
    let c = contract();
    let good = "q|n=4|k=3\n\
        a|r,g*,b|1|x|1.5,2e3|u*,v,w*|0.5,1|\"p,q\",r|4|hi|c,d*\n\
        b\\|c|r*,\"g,h\",b|5|y|||1,|\n\
        c|r,g,b*||x|3,-0.0||1,-4|s\\,t,\"\",u|7\n\
        \"d \"\"e\"\"\"|r,g,b*|2|y|1E2,0.25|u|-1.5e1,|";
    assert_eq!(same(good, &c), 4, "every valid line is walked");
    // every one-byte edit (a deletion, or a structural character in its
    // place): the same records and diagnostics
    for edit in crate::one_byte_edits(
        good,
        &['|', ',', '*', '\\', '"', ' ', 'x', '0', '-', '9', '.', 'e'],
    ) {
        same(&edit, &c);
    }
}

#[test]
fn a_line_the_walk_leaves_is_the_engines() {
    let c = contract();
    // a unique clash, a later version's extra field, a count key that is
    // not a plain u64 (the walk does not run), a document with no header
    for text in [
        "q|n=2|k=3\na|r,g*,b|1|x|1|u|0.5,1\na|r*,g,b|5|y|2|v|1,2",
        "q|n=1|k=3|v=2\na|r,g*,b|1|x|1|u|0.5,1|s|1|w|c|extra",
        "q|n=1|k=-3\na|r,g*,b|1|x|1|u|0.5,1",
        "a|r,g*,b|1|x|1|u|0.5,1",
    ] {
        same(text, &c);
    }
    assert_eq!(same("q|n=1|k=x\na|r,g*,b|1|x|1|u|0.5,1", &c), 0);
}

/// The numbers the walk hands over as values (`Num`: a short canonical
/// int as `i64`, a float as its double) build the JSON the engine builds
/// from their canonical text: scalars, list elements (plain, quoted,
/// marked) and tuple components, over ints past 18 digits, zeros with a
/// sign, exponents, underflow, long fractions and floats written as ints.
#[test]
fn numbers_read_once_are_the_numbers_of_their_text() {
    let c = Contract::from_json(
        r#"{"prefix": "z",
            "core": [
              {"name": "i", "type": "int"},
              {"name": "f", "type": "float"},
              {"name": "r", "type": "float", "min": -1e308, "max": 1e308},
              {"name": "li", "type": "list", "item": "int"},
              {"name": "lf", "type": "list", "item": "float"},
              {"name": "m", "type": "mlist", "item": "int", "marker": "any",
               "json": {"items": "m", "selected": "ms"}},
              {"name": "t", "type": "tuple", "items": [
                {"name": "a", "type": "int"},
                {"name": "b", "type": "float"}]}
            ]}"#,
    )
    .unwrap();
    let ints = [
        "0",
        "-7",
        "42",
        "999999999999999999",
        "-999999999999999999",
        "1000000000000000000",
        "9223372036854775807",
        "-9223372036854775808",
        "18446744073709551615",
    ];
    let floats = [
        "0.0",
        "-0.0",
        "-0",
        "3",
        "-3",
        "0.1",
        "0.30000000000000004",
        "1.5e3",
        "1E2",
        "-2.5e-3",
        "1e-400",
        "-1e-400",
        "1e308",
        "123456789012345.6",
        "0.12345678901234567890123",
        "100",
        "2.50",
    ];
    let mut text = format!("z|n={}\n", ints.len() * floats.len());
    for (a, i) in ints.iter().enumerate() {
        for (b, f) in floats.iter().enumerate() {
            let g = floats[(a + b + 1) % floats.len()];
            let j = ints[(a + b + 1) % ints.len()];
            text.push_str(&format!(
                "{i}|{f}|{g}|{i},{j}|{f},{g}|{j}*,\"{i}\"|{j},{f}\n"
            ));
        }
    }
    let lines = ints.len() * floats.len();
    assert_eq!(same(&text, &c), lines, "every line is walked");
    same_json(&text, &c);
    // the same through the list grammar: a quoted element, a marker
    let quoted = "z|n=1\n-0|-0.0|1e-400|\"5\",6|\"0.1\",1e2|7,8*|9,-0\n";
    assert_eq!(same(quoted, &c), 1);
    same_json(quoted, &c);
}

/// The records as JSON text, the walk's against the engine's: `Value`'s
/// equality takes `0.0` and `-0.0` for the same number, their text does
/// not.
fn same_json(text: &str, contract: &Contract) {
    let mut b = Builder::new(contract);
    let mut scratch = Scratch::new();
    for line in crate::read::lines(text) {
        if let Fed::Valid(r) = b.line(line, &mut scratch) {
            b.keep(r);
        }
    }
    let walked: Vec<String> = b
        .finish()
        .records
        .iter()
        .map(|r| serde_json::to_string(&r.value).unwrap_or_default())
        .collect();
    let (records, _) = by_the_engine(text, contract);
    let engine: Vec<String> = records
        .iter()
        .map(|r| serde_json::to_string(&r.value).unwrap_or_default())
        .collect();
    assert_eq!(walked, engine, "{text}");
}

/// A unique int read by the short path (its canonical text is its key)
/// and one read by `check_atom` (a long one) clash exactly as the
/// engine's keys do: the same records and diagnostics.
#[test]
fn unique_ints_clash_as_the_engine_says() {
    let c = Contract::from_json(
        r#"{"prefix": "u", "core": [
              {"name": "id", "type": "int", "unique": true, "min": -5},
              {"name": "v", "type": "int", "optional": true}]}"#,
    )
    .unwrap();
    let long = "123456789012345678901234";
    for ids in [
        vec!["7", "8", "7"],
        vec!["7", "07", "+7", "7.0", "-0", "0"],
        vec![long, "1", long],
        vec![
            "999999999999999999",
            "1000000000000000000",
            "999999999999999999",
        ],
        vec!["-5", "-6", "-5"],
    ] {
        let mut text = format!("u|n={}\n", ids.len());
        for id in &ids {
            text.push_str(&format!("{id}|{id}\n"));
        }
        same(&text, &c);
        same_json(&text, &c);
    }
    // a line the walk leaves to the engine (a bad `v`) meets the walk's
    // keys in the engine's set
    for text in ["u|n=3\n7|1\n7|x\n8|2\n", "u|n=3\n7|x\n7|1\n8|2\n"] {
        same(text, &c);
    }
}

/// Plain lists of ints, read by the byte walk when every element is
/// canonical (ADR 0052): the engine's records and diagnostics, for texts
/// the walk reads and texts it leaves, and for every one-byte edit.
#[test]
fn int_lists_in_one_byte_walk_build_what_the_engine_builds() {
    crate::check::int_list_cases(same);
}
