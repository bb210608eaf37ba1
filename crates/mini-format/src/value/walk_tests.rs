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
