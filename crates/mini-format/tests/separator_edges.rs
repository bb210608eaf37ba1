//! A whitespace list separator (TAB) at the edge of a value (issue 14,
//! item 1). Parsing trims bare outer whitespace but keeps an escaped
//! separator (`\<TAB>`, SPEC 1.1 §3.3), so the serializer writes such a
//! value escaped and succeeds (§2, §9), in every position: header values
//! (declared and undeclared), header lists and tuples, scalar fields, list
//! and marked-list elements, tuple components.

use mini::value::equivalent;
use mini::{dumps, parse, to_string_with_contract, Code, Contract};
use serde_json::{json, Value};

fn contract(sep: &str) -> Contract {
    let c = json!({
        "prefix": "tb", "list_separator": sep,
        "header": {"keys": {
            "h": {"type": "str"},
            "hl": {"type": "list"},
            "ht": {"type": "tuple", "items": [
                {"name": "a", "type": "str"}, {"name": "b", "type": "str", "optional": true}]}}},
        "core": [
            {"name": "s", "type": "str"},
            {"name": "l", "type": "list"},
            {"name": "m", "type": "mlist", "marker": "any",
             "json": {"items": "m", "selected": "sel"}},
            {"name": "t", "type": "tuple", "items": [
                {"name": "a", "type": "str"}, {"name": "b", "type": "str", "optional": true}]}],
        "extensions": [{"name": "x", "type": "str"}]
    });
    Contract::from_value(c).expect("contract")
}

/// Every position holds `v`.
fn object(v: &str) -> Value {
    json!({
        "prefix": "tb",
        "header": {"n": 1, "v": 1, "h": v, "hl": [v, "p"], "ht": {"a": v, "b": v}, "u": v},
        "records": [{
            "s": v, "l": [v, v, "w"], "m": [v, "q", v], "sel": [0, 2],
            "t": {"a": v, "b": v}, "x": v
        }]
    })
}

const EDGES: [&str; 8] = [
    "\tx", "x\t", "\tx\t", "\t", "\t\t", "\t\t\t", "a\tb\t", "\t|\\\t",
];

#[test]
fn a_tab_separator_at_any_edge_is_written_escaped() {
    let c = contract("\t");
    for v in EDGES {
        let obj = object(v);
        let text = dumps(&obj, &c).unwrap_or_else(|e| panic!("{v:?}: dumps refused: {e}"));
        let doc = parse(&text, &c).unwrap_or_else(|e| panic!("{v:?}: {e}\n{text}"));
        assert!(
            equivalent(&doc.to_canonical(), &obj),
            "{v:?}: read back {}\n{text}",
            doc.to_canonical()
        );
        // a fixed point, and the typed serializer writes the same text
        assert_eq!(dumps(&doc.to_canonical(), &c).ok().as_ref(), Some(&text));
        assert_eq!(
            to_string_with_contract(&obj, &c).ok().as_ref(),
            Some(&text),
            "{v:?}"
        );
    }
    // the escape is at the edges of a scalar only; elements escape every TAB
    let text = dumps(&object("\tx\ty\t"), &c).expect("dumps");
    let record = text.lines().nth(1).expect("record");
    assert!(record.starts_with("\\\tx\ty\\\t|"), "{record:?}");
}

/// Other outer whitespace is still refused (E06, ADR 0004), and so is a TAB
/// when the separator is not a TAB (`\<TAB>` is then no escape).
#[test]
fn other_outer_whitespace_is_still_refused() {
    for (sep, v) in [
        ("\t", " x"),
        ("\t", "\tx "),
        ("\t", "\u{3000}\t"),
        (",", "\tx"),
        (";", "x\t"),
    ] {
        let c = contract(sep);
        let e = dumps(&object(v), &c).expect_err(v);
        assert!(
            e.diagnostics().iter().all(|d| d.code() == Code::E06),
            "{sep:?} {v:?}: {e}"
        );
        assert_eq!(
            e.diagnostics().len(),
            9,
            "{sep:?} {v:?}: one per position: {e}"
        );
        assert!(to_string_with_contract(&object(v), &c).is_err());
    }
}

/// Of the separators the contract rules allow, TAB is the only one that
/// parsing would trim: every other whitespace character (and `is_space`'s
/// U+001C–U+001F) is refused as a separator, so no other edge needs this.
#[test]
fn tab_is_the_only_whitespace_separator_allowed() {
    let allowed: Vec<char> = (0u32..0x3001)
        .filter_map(char::from_u32)
        .filter(|c| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(c))
        .filter(|c| {
            Contract::from_value(json!({"prefix": "w", "list_separator": c.to_string(),
                "core": [{"name": "l", "type": "list"}]}))
            .is_ok()
        })
        .collect();
    assert_eq!(allowed, ['\t']);
}
