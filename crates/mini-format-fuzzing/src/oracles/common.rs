//! What the bodies share: comparisons, renderings, the fixed contracts.

use crate::*;
use std::collections::BTreeSet;
use std::sync::OnceLock;

use serde_json::{json, Value};

use mini::__private::syntax::is_space;
use mini::contract::Contract;
use mini::value::{Document, Record};
use mini::{Code, Diagnostic};

// ---------------------------------------------------------------------------
// helpers shared by the bodies
// ---------------------------------------------------------------------------

/// Whether the serializer can carry `s` unchanged in a value (no outer
/// whitespace other than line breaks, which it escapes; ADR 0004).
pub(crate) fn survives(s: &str) -> bool {
    let trimmed = |c: char| is_space(c) && c != '\n' && c != '\r';
    !(s.starts_with(trimmed) || s.ends_with(trimmed))
}

/// Whether `dumps` writes `s` under list separator `sep`: it survives, or
/// its only outer whitespace is a whitespace separator (a TAB), which the
/// serializer writes `\<sep>` in every position (SPEC 1.1 §3.3).
pub(crate) fn writable(s: &str, sep: char) -> bool {
    let trimmed = |c: char| is_space(c) && c != '\n' && c != '\r' && c != sep;
    !(s.starts_with(trimmed) || s.ends_with(trimmed))
}

/// `s` without the outer whitespace the serializer refuses.
pub(crate) fn survivor(s: &str) -> String {
    s.trim_matches(|c: char| is_space(c) && c != '\n' && c != '\r')
        .to_string()
}

/// What a string reads back as after `dumps`: every line break (CRLF or a
/// lone CR) becomes LF (ADR 0004).
pub(crate) fn breaks_normalized(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// `v` with [`breaks_normalized`] applied to every string value.
pub(crate) fn values_breaks_normalized(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(breaks_normalized(s)),
        Value::Array(a) => Value::Array(a.iter().map(values_breaks_normalized).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), values_breaks_normalized(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

pub(crate) fn codes(diags: &[Diagnostic]) -> BTreeSet<Code> {
    diags.iter().map(Diagnostic::code).collect()
}

pub(crate) fn render(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Asserts that two documents are the same parse (errors, canonical object,
/// diagnostics).
pub(crate) fn same_document(a: &Document, b: &Document, what: &str) {
    if a.errors() != b.errors() {
        fail(format!(
            "{what}: errors differ:\n  {}\nvs\n  {}",
            render(a.errors()),
            render(b.errors())
        ));
    }
    if a.to_canonical() != b.to_canonical() {
        fail(format!(
            "{what}: canonical objects differ:\n  {}\nvs\n  {}",
            a.to_canonical(),
            b.to_canonical()
        ));
    }
    if a.diagnostics() != b.diagnostics() {
        fail(format!(
            "{what}: diagnostics differ:\n  {:?}\nvs\n  {:?}",
            a.diagnostics(),
            b.diagnostics()
        ));
    }
}

pub(crate) fn same_records(a: &[Record], b: &[Record], what: &str) {
    if a != b {
        fail(format!(
            "{what}: records differ:\n  {:?}\nvs\n  {:?}",
            a.iter()
                .map(|r| (r.line, r.index, &r.value))
                .collect::<Vec<_>>(),
            b.iter()
                .map(|r| (r.line, r.index, &r.value))
                .collect::<Vec<_>>()
        ));
    }
}

pub(crate) fn contract(v: Value) -> Contract {
    match Contract::from_value(v) {
        Ok(c) => c,
        Err(e) => fail(format!("a fuzz contract must be valid: {e}")),
    }
}

// ---------------------------------------------------------------------------
// the contracts of parse_bytes and stream_chunks
// ---------------------------------------------------------------------------

/// The contracts [`parse_bytes`] parses every input under, and
/// [`stream_chunks`] chooses from: upstream-like families with `,`, `;`,
/// TAB and `·` separators that together use every field type (str, int,
/// float, bool, enum, date, decimal, list, mlist with each of the four
/// marker rules, tuple), optional fields and components, defaults, unique
/// fields, extensions, typed header keys and count keys.
pub fn parse_contracts() -> &'static [Contract] {
    static CONTRACTS: OnceLock<Vec<Contract>> = OnceLock::new();
    CONTRACTS.get_or_init(|| {
        vec![
            // `a`/`q`-like: the quiz family of the upstream suite.
            contract(json!({
                "prefix": "q", "records_key": "items",
                "header": {
                    "required": ["n", "k"],
                    "keys": {
                        "k": {"type": "int"},
                        "t": {"type": "str", "default": "none"},
                        "bd": {"type": "list", "item": "int", "min": 1, "max": 6},
                        "cat": {"type": "tuple", "items": [
                            {"name": "theta", "type": "float"},
                            {"name": "max_items", "type": "int", "min": 0, "max": 99},
                            {"name": "ctrl", "type": "str", "optional": true}]},
                        "day": {"type": "date", "min": "2000-01-01"},
                        "lvl": {"type": "enum", "values": ["lo", "hi"]}
                    }
                },
                "core": [
                    {"name": "id", "type": "str", "unique": true},
                    {"name": "bloom", "type": "enum", "values": ["L1", "L2", "L3", "L4", "L5", "L6"]},
                    {"name": "statement", "type": "str"},
                    {"name": "options", "type": "mlist", "item": "str", "min": 2, "max": 6,
                     "marker": "exactly_one", "count_key": "k",
                     "json": {"items": "options", "selected": "correct"}},
                    {"name": "irt", "type": "tuple", "items": [
                        {"name": "a", "type": "float"},
                        {"name": "b", "type": "float", "min": -4, "max": 4},
                        {"name": "c", "type": "float", "optional": true}]},
                    {"name": "difficulty", "type": "int", "min": 1, "max": 5},
                    {"name": "tags", "type": "list", "item": "str", "optional": true}
                ],
                "extensions": [
                    {"name": "feedback", "type": "str"},
                    {"name": "score", "type": "decimal", "min": "0", "max": "100.00"}
                ]
            })),
            // `tk`-like: tickets with `;`, dates, decimals, bools, `any` and
            // `at_least_one` marked lists, a unique enum list.
            contract(json!({
                "prefix": "tk", "list_separator": ";", "records_key": "tickets",
                "header": {
                    "required": ["queue"],
                    "keys": {
                        "queue": {"type": "str"},
                        "day": {"type": "date"},
                        "team": {"type": "list", "item": "enum", "values": ["ana", "luis", "eva"]},
                        "m": {"type": "int", "min": 0, "max": 9}
                    }
                },
                "core": [
                    {"name": "id", "type": "str", "unique": true},
                    {"name": "opened", "type": "date", "min": "2020-01-01", "max": "2030-12-31"},
                    {"name": "level", "type": "enum", "values": ["low", "high", "critical"]},
                    {"name": "title", "type": "str"},
                    {"name": "areas", "type": "list", "item": "str", "max": 5},
                    {"name": "amount", "type": "decimal", "optional": true, "min": "-1000", "max": "1000"},
                    {"name": "urgent", "type": "bool"}
                ],
                "extensions": [
                    {"name": "owner", "type": "str", "default": "nobody"},
                    {"name": "labels", "type": "mlist", "item": "str", "marker": "any",
                     "json": {"items": "labels", "selected": "primary"}},
                    {"name": "refs", "type": "mlist", "item": "int", "marker": "at_least_one", "min": 1,
                     "json": {"items": "refs", "selected": "main_refs"}},
                    {"name": "codes", "type": "list", "item": "enum",
                     "item_values": ["A1", "B2", "C3"], "unique": true}
                ]
            })),
            // TAB separator, version 2, `at_most_one` with a count key,
            // date and decimal lists, optional tuple components.
            contract(json!({
                "prefix": "tb", "version": 2, "list_separator": "\t", "records_key": "rows",
                "header": {
                    "keys": {
                        "cnt": {"type": "int", "min": 0, "max": 8},
                        "span": {"type": "tuple", "items": [
                            {"name": "from", "type": "date"},
                            {"name": "to", "type": "date", "optional": true}]}
                    }
                },
                "core": [
                    {"name": "a", "type": "int", "unique": true},
                    {"name": "b", "type": "float", "optional": true, "min": -1e6, "max": 1e6},
                    {"name": "pick", "type": "mlist", "item": "str", "marker": "at_most_one",
                     "count_key": "cnt", "json": {"items": "choices", "selected": "chosen"}},
                    {"name": "when", "type": "mlist", "item": "date", "marker": "exactly_one",
                     "optional": true, "json": {"items": "dates", "selected": "main_date"}},
                    {"name": "amounts", "type": "list", "item": "decimal", "min": 0, "max": 3},
                    {"name": "pair", "type": "tuple", "items": [
                        {"name": "x", "type": "int"},
                        {"name": "y", "type": "str", "optional": true},
                        {"name": "z", "type": "bool"}]},
                    {"name": "flag", "type": "bool", "optional": true, "default": false}
                ],
                "extensions": [
                    {"name": "e1", "type": "list", "item": "float"},
                    {"name": "e2", "type": "tuple", "unique": true, "items": [
                        {"name": "d", "type": "date", "optional": true},
                        {"name": "m", "type": "decimal"}]}
                ]
            })),
            // A non-ASCII separator and a unique marked list of enums.
            contract(json!({
                "prefix": "nx", "list_separator": "·",
                "core": [
                    {"name": "tag", "type": "mlist", "item": "enum",
                     "item_values": ["red", "green", "blue"], "marker": "exactly_one",
                     "unique": true, "json": {"items": "tags", "selected": "main"}},
                    {"name": "bits", "type": "list", "item": "bool", "min": 1},
                    {"name": "note", "type": "str", "optional": true}
                ]
            })),
        ]
    })
}

/// One valid document per contract of [`parse_contracts`] (same order),
/// touching every field: seed material, and a check that the contracts are
/// reachable.
pub fn sample_documents() -> [&'static str; 4] {
    [
        "q|n=2|k=3|t=bio|bd=1,2|cat=0.5,12,|day=2024-02-29|lvl=hi\n\
         q1|L1|What \\| why?\\nNext|a\\,b*,\"c, d\",e\\*|0.9,-1,|3|x,y|fb|12.50\n\
         q2|L2|S2|x,y*,\"z\"\"q\"|1,2,0.25|5||",
        "tk|n=2|queue=billing|day=2026-11-28|team=ana;eva|m=3\n\
         T-1|2026-11-27|high|Charged twice|payments;invoices|19.90|true|ana|refund*;dup|7*;8|A1;B2\n\
         T-2|2026-11-28|low|Export? \\| now|account\\;s||0",
        "tb|n=2|cnt=2|span=2026-01-01\t\"\"\n\
         7|1.5|x*\ty|2026-01-02*\t2026-01-03|1.0\t-2.50|3\tfoo\ttrue|1|0.5\t1e3|2026-02-01\t9.99\n\
         8||p\tq|||4\t\tfalse|",
        "nx|n=2\nred·green*|1·0·true|ok\n\"blue\"*|false|",
    ]
}
