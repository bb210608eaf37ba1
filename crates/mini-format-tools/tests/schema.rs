//! Contracts ⇄ JSON Schema: losslessness on the 14 upstream families, and
//! the exported schemas checked by a real draft 2020-12 validator
//! (`jsonschema`) against every fixture.
//!
//! The families are read from `../shared/conformance/forks` (relative to
//! the crate root) or from `$MINI_CONFORMANCE/forks`.

use std::path::PathBuf;

use jsonschema::Validator;
use mini::{Code, Contract};
use mini_tools::schema::{from_schema, structurally_equal, to_schema, DIALECT, X_MINI};
use serde_json::{json, Value};

fn forks_dir() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join("../shared/conformance"),
    }
    .join("forks")
}

/// (folder, contract) of every upstream family, by folder.
fn families() -> Vec<(PathBuf, Contract)> {
    let mut out: Vec<(PathBuf, Contract)> = std::fs::read_dir(forks_dir())
        .expect("forks directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("contract.json").is_file())
        .map(|p| {
            let c = Contract::from_path(p.join("contract.json")).expect("contract loads");
            (p, c)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(out.len(), 14, "the 14 upstream families");
    out
}

fn fixture(dir: &std::path::Path, name: &str) -> Value {
    let text = std::fs::read_to_string(dir.join("fixtures").join(name)).expect("fixture");
    serde_json::from_str(&text).expect("fixture JSON")
}

fn validator(schema: &Value) -> Validator {
    assert!(
        jsonschema::draft202012::meta::is_valid(schema),
        "the schema itself is a valid draft 2020-12 schema"
    );
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("schema compiles")
}

fn errors(v: &Validator, instance: &Value) -> Vec<String> {
    v.iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

fn round_trip(c: &Contract, record_only: bool) -> Contract {
    let schema = to_schema(c, record_only);
    // through text, as a tool would store it
    let text = serde_json::to_string_pretty(&schema).expect("serialize");
    let schema: Value = serde_json::from_str(&text).expect("parse");
    let (back, warnings) = from_schema(&schema, None, true)
        .unwrap_or_else(|e| panic!("{}: from_schema failed: {e}", c.prefix()));
    assert!(warnings.is_empty(), "{}: {warnings:?}", c.prefix());
    back
}

#[test]
fn document_schema_round_trip_is_lossless_for_every_family() {
    for (_, c) in families() {
        let back = round_trip(&c, false);
        assert!(
            structurally_equal(&c, &back),
            "{}: contract → schema → contract changed it\nbefore: {}\nafter:  {}",
            c.prefix(),
            c.to_value(),
            back.to_value()
        );
        // the fields and header keys are equal as values, not just by the helper
        assert_eq!(c.fields(), back.fields(), "{}", c.prefix());
        assert_eq!(c.header_keys(), back.header_keys(), "{}", c.prefix());
        assert_eq!(c.meta("name"), back.meta("name"));
        assert_eq!(c.meta("description"), back.meta("description"));
        assert_eq!(c.meta("domain"), back.meta("domain"));
        assert_eq!(c.meta("author"), back.meta("author"));
        // and the rebuilt contract survives a second trip unchanged
        let again = round_trip(&back, false);
        assert_eq!(back, again, "{}: second trip is a fixed point", c.prefix());
    }
}

#[test]
fn record_only_schema_round_trip_is_lossless_for_every_family() {
    for (_, c) in families() {
        let back = round_trip(&c, true);
        assert!(
            structurally_equal(&c, &back),
            "{}: record-only trip changed the contract\nafter: {}",
            c.prefix(),
            back.to_value()
        );
    }
}

#[test]
fn structural_equality_sees_changes() {
    let fams = families();
    let a = &fams[0].1;
    assert_eq!(a.prefix(), "a");
    let mut raw = a.to_value().clone();
    raw["core"][6]["max"] = json!(6);
    let changed = Contract::from_value(raw).expect("valid");
    assert!(!structurally_equal(a, &changed));
    let mut raw = a.to_value().clone();
    raw["author"] = json!("someone else");
    let changed = Contract::from_value(raw).expect("valid");
    assert!(!structurally_equal(a, &changed));
    // key order and an explicit default do not count
    let mut raw = a.to_value().clone();
    raw["core"][2]["optional"] = json!(false);
    let same = Contract::from_value(raw).expect("valid");
    assert!(structurally_equal(a, &same));
}

#[test]
fn exported_schema_shape() {
    let fams = families();
    let (_, a) = &fams[0];
    let s = to_schema(a, false);
    assert_eq!(s["$schema"], DIALECT);
    assert_eq!(s["properties"]["prefix"]["const"], "a");
    assert_eq!(s["required"], json!(["prefix", "header", "items"]));
    assert_eq!(s[X_MINI]["records_key"], "items");
    let rec = &s["properties"]["items"]["items"];
    assert_eq!(rec["properties"]["bloom"]["enum"][0], "L1");
    assert_eq!(rec["properties"]["difficulty"]["type"], "integer");
    assert_eq!(rec["properties"]["difficulty"]["minimum"], 1);
    assert_eq!(rec["properties"]["options"]["minItems"], 2);
    assert_eq!(rec["properties"]["options"][X_MINI]["count_key"], "k");
    assert_eq!(
        rec["properties"]["options"][X_MINI]["marker"],
        "exactly_one"
    );
    assert_eq!(rec["properties"]["correct"]["type"], "integer");
    assert_eq!(rec["properties"]["irt"]["type"], "object");
    assert_eq!(rec["properties"]["id"][X_MINI]["unique"], true);
    assert_eq!(s["properties"]["header"]["required"], json!(["n"]));
    assert_eq!(
        s["properties"]["header"]["additionalProperties"],
        json!({"type": "string"})
    );
    let card = &fams
        .iter()
        .find(|(_, c)| c.prefix() == "card")
        .expect("card")
        .1;
    let s = to_schema(card, true);
    assert_eq!(s["type"], "object");
    assert_eq!(s["properties"]["ease"]["maximum"].to_string(), "3.0");
    assert_eq!(
        s["properties"]["hint"]["anyOf"][1],
        json!({"type": "null"}),
        "an optional field is nullable"
    );
    assert!(s[X_MINI]["header"]["properties"]["src"].is_object());
}

#[test]
fn every_fixture_validates_against_its_family_schema() {
    let mut checked = 0;
    for (dir, c) in families() {
        let doc = validator(&to_schema(&c, false));
        let rec = validator(&to_schema(&c, true));
        for name in ["canonical.json", "escaping.json"] {
            let obj = fixture(&dir, name);
            let errs = errors(&doc, &obj);
            assert!(errs.is_empty(), "{}/{name}: {errs:#?}", c.prefix());
            for r in obj[c.records_key()].as_array().expect("records") {
                let errs = errors(&rec, r);
                assert!(errs.is_empty(), "{}/{name} record: {errs:#?}", c.prefix());
            }
            checked += 1;
        }
        // the canonical object of valid.mini, as this crate builds it
        let text = std::fs::read_to_string(dir.join("fixtures/valid.mini")).expect("valid.mini");
        let canonical = mini::parse(&text, &c).expect("parses").to_canonical();
        assert!(doc.is_valid(&canonical), "{}", c.prefix());
    }
    assert_eq!(checked, 28);
}

/// Applies `edit` to a copy of a family's canonical.json and expects the
/// document schema to reject it (and `dumps` too, except for a missing `n`,
/// which dumps recomputes).
fn rejects(prefix: &str, what: &str, edit: impl FnOnce(&mut Value)) {
    let (dir, c) = families()
        .into_iter()
        .find(|(_, c)| c.prefix() == prefix)
        .expect("family");
    let v = validator(&to_schema(&c, false));
    let mut obj = fixture(&dir, "canonical.json");
    assert!(v.is_valid(&obj));
    edit(&mut obj);
    assert!(!v.is_valid(&obj), "{prefix}: {what} should be rejected");
    // and the parser's serializer agrees
    let n_missing = obj["header"].get("n").is_none();
    assert!(
        n_missing || mini::dumps(&obj, &c).is_err(),
        "{prefix}: dumps accepts {what}"
    );
}

#[test]
fn broken_objects_are_rejected() {
    rejects("a", "an enum value out of the enumeration", |o| {
        o["items"][0]["bloom"] = json!("L9")
    });
    rejects("a", "a missing required field", |o| {
        o["items"][1]
            .as_object_mut()
            .expect("record")
            .remove("statement");
    });
    rejects("a", "a string where an int goes", |o| {
        o["items"][2]["difficulty"] = json!("five")
    });
    rejects("a", "an int out of min/max", |o| {
        o["items"][2]["difficulty"] = json!(9)
    });
    rejects("a", "a selection that is not an index", |o| {
        o["items"][0]["correct"] = json!("0")
    });
    rejects("a", "a list longer than max", |o| {
        o["items"][0]["options"] = json!(["a", "b", "c", "d", "e", "f", "g"])
    });
    rejects("a", "a tuple with an unknown component", |o| {
        o["items"][0]["irt"]["d"] = json!(1.0)
    });
    rejects("a", "a record with an unknown key", |o| {
        o["items"][0]["extra"] = json!("x")
    });
    rejects("a", "another prefix", |o| o["prefix"] = json!("b"));
    rejects("a", "a header without n", |o| {
        o["header"].as_object_mut().expect("header").remove("n");
    });
    rejects("cls", "an empty at_least_one selection", |o| {
        o["messages"][0]["selected"] = json!([])
    });
    rejects("s", "a string where a bool goes", |o| {
        o["items"][0]["reverse"] = json!("yes")
    });
    rejects("card", "a float above max", |o| {
        o["cards"][0]["ease"] = json!(3.5)
    });
    rejects("tc", "a list below min", |o| {
        o["cases"][0]["steps"] = json!([])
    });
}

#[test]
fn dates_and_decimals_carry_their_constraints() {
    let c = Contract::from_value(json!({
        "prefix": "inv", "records_key": "lines",
        "core": [
            {"name": "day", "type": "date", "min": "2026-01-01", "desc": "booking day"},
            {"name": "amount", "type": "decimal", "min": "0.00", "max": 1000},
            {"name": "codes", "type": "list", "item": "enum", "item_values": ["x", "y"], "max": 3},
            {"name": "pick", "type": "mlist", "item": "int", "marker": "at_most_one",
             "json": {"items": "choices", "selected": "chosen"}, "optional": true}
        ],
        "extensions": [{"name": "memo", "type": "str", "default": "none"}]
    }))
    .expect("contract");
    let s = to_schema(&c, false);
    let day = &s["properties"]["lines"]["items"]["properties"]["day"];
    assert_eq!(day["format"], "date");
    assert_eq!(day[X_MINI]["min"], "2026-01-01");
    let (back, w) = from_schema(&s, None, true).expect("round trip");
    assert!(w.is_empty());
    assert!(structurally_equal(&c, &back), "{}", back.to_value());
    let v = validator(&s);
    let good = json!({"prefix": "inv", "header": {"n": 1, "v": 1}, "lines": [
        {"day": "2026-03-04", "amount": "12.50", "codes": ["x"], "choices": [1, 2], "chosen": null, "memo": "none"}
    ]});
    assert!(v.is_valid(&good), "{:?}", errors(&v, &good));
    assert!(mini::dumps(&good, &c).is_ok());
    for (k, bad) in [
        ("day", json!("04/03/2026")),
        ("amount", json!("1e3")),
        ("codes", json!(["z"])),
        ("chosen", json!([0])),
    ] {
        let mut o = good.clone();
        o["lines"][0][k] = bad;
        assert!(!v.is_valid(&o), "{k} should be rejected");
    }
}

fn hand_written() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Support tickets",
        "description": "One ticket per record.",
        "type": "object",
        "$defs": {"prio": {"type": "string", "enum": ["low", "high"]}},
        "properties": {
            "id": {"type": "string", "minLength": 1, "description": "ticket id"},
            "title": {"type": "string"},
            "priority": {"$ref": "#/$defs/prio"},
            "points": {"type": "integer", "exclusiveMinimum": 0, "maximum": 13},
            "score": {"type": ["number", "null"]},
            "labels": {"type": "array", "items": {"type": "string"}, "maxItems": 5, "uniqueItems": true},
            "due": {"type": "string", "format": "date"},
            "where": {"type": "object", "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}},
                      "required": ["lat"]},
            "email": {"type": "string", "format": "email"},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": "-"}
        },
        "required": ["id", "title", "priority", "points", "score", "labels", "due", "where"]
    })
}

#[test]
fn hand_written_schema_maps_with_warnings() {
    let (c, warnings) = from_schema(&hand_written(), Some("tk"), false).expect("maps");
    assert_eq!(c.prefix(), "tk");
    assert_eq!(c.records_key(), "records");
    assert_eq!(c.meta("name"), Some("Support tickets"));
    let names: Vec<&str> = c.fields().iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["id", "title", "priority", "points", "score", "labels", "due", "where", "email", "note"]
    );
    assert_eq!(c.core().len(), 8);
    assert_eq!(
        mini_tools::family::signature(&c),
        "id:str | title:str | priority:enum{low|high} | points:int[1..13] | score:float? | \
         labels:list<str>[..5] | due:date | where:tuple(lat:float,lon:float) || email:str? | note:str?"
    );
    assert_eq!(c.fields()[0].desc.as_deref(), Some("ticket id"));
    assert_eq!(c.fields()[9].default, Some(json!("-")));
    let joined = warnings.join("\n");
    assert_eq!(warnings.len(), 3, "{joined}");
    assert!(joined.contains("/id: ignored keyword(s) without contract equivalent: minLength"));
    assert!(joined.contains("uniqueItems"));
    assert!(joined.contains("/email") && joined.contains("format"));
    // the contract works
    let doc = mini::parse(
        "tk|n=1\nT-1|Printer down|high|3||paper,jam|2026-05-01|12.5,",
        &c,
    )
    .expect("parses");
    let rec = &doc.to_canonical()["records"][0];
    assert_eq!(rec["where"], json!({"lat": 12.5, "lon": null}));
    assert_eq!(rec["note"], json!("-"));
}

#[test]
fn strict_turns_warnings_into_e20() {
    let e = from_schema(&hand_written(), Some("tk"), true).expect_err("strict");
    assert_eq!(e.code(), Some(Code::E20));
    assert!(e.to_string().contains("minLength"), "{e}");
    // without a prefix anywhere
    let e = from_schema(&hand_written(), None, false).expect_err("no prefix");
    assert_eq!(e.code(), Some(Code::E20));
    assert!(e.to_string().contains("prefix"), "{e}");
}

#[test]
fn hand_written_document_schema() {
    let schema = json!({
        "type": "object",
        "properties": {
            "prefix": {"const": "ev"},
            "header": {"type": "object", "properties": {
                "src": {"type": "string"},
                "k": {"type": "integer", "minimum": 1}
            }, "required": ["src"]},
            "events": {"type": "array", "items": {"$ref": "#/$defs/event"}}
        },
        "$defs": {"event": {"type": "object", "properties": {
            "at": {"type": "string", "format": "date"},
            "kind": {"const": "click"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}}
        }, "required": ["at", "kind"]}}
    });
    let (c, w) = from_schema(&schema, None, true).expect("maps strictly");
    assert!(w.is_empty());
    assert_eq!(c.prefix(), "ev");
    assert_eq!(c.records_key(), "events");
    assert!(c.header_key("src").expect("src").required);
    assert!(c.header_key("n").expect("n").required);
    assert_eq!(c.extensions().len(), 1);
    assert_eq!(
        mini_tools::family::signature(&c),
        "at:date | kind:enum{click} || tags:list<{a|b}>?"
    );
}

#[test]
fn unrepresentable_shapes_are_e20_even_when_lenient() {
    let nested = json!({"type": "object", "properties": {
        "id": {"type": "string"},
        "rows": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}}
    }, "required": ["id", "rows"]});
    let union = json!({"type": "object", "properties": {
        "v": {"type": ["string", "integer"]}
    }, "required": ["v"]});
    let deep = json!({"type": "object", "properties": {
        "o": {"type": "object", "properties": {"p": {"type": "object", "properties": {"q": {"type": "string"}}}}}
    }, "required": ["o"]});
    let remote = json!({"type": "object", "properties": {
        "v": {"$ref": "https://example.com/s.json"}
    }, "required": ["v"]});
    for (what, s) in [
        ("nested", nested),
        ("union", union),
        ("deep", deep),
        ("remote", remote),
    ] {
        let e = from_schema(&s, Some("x"), false).expect_err(what);
        assert_eq!(e.code(), Some(Code::E20), "{what}: {e}");
    }
}

/// Issue 20: the two-level message reads as one sentence and names the remedy.
#[test]
fn nesting_two_levels_deep_says_what_to_do() {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "p": {"type": "object", "properties": {
                "inner": {"type": "object", "properties": {"x": {"type": "string"}}}
            }}
        }
    });
    let err = mini_tools::schema::from_schema(&schema, Some("t"), false).unwrap_err();
    let msg = err.diagnostics()[0].message().to_string();
    assert_eq!(
        msg,
        "#/properties/p/properties/inner: an object inside a tuple nests two levels deep; \
         a .mini contract holds one level of nesting (a list or tuple of scalars, SPEC 1.1 §12): \
         flatten the inner value into separate fields or components"
    );
}
