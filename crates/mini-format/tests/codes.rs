//! Every SPEC 1.1 error code (§8), one test that makes it fire — with its
//! exact code, 1-based line and field — and at least one near miss where a
//! similar input is valid and the code does not fire. Also: lenient mode and
//! its [`mini::ParseReport`], the rendered form of a [`mini::Diagnostic`],
//! and the serializer's rejections (the parser's code and line).
//!
//! Lines: the header is line 1; record `i` (0-based) of a document without
//! blank lines is line `i + 2`. Document-level errors (E01, E04) and contract
//! errors (E20, E21) are on line 0 (see `Diagnostic::line`).

use mini::contract::check_fork;
use mini::{Code, Contract, Diagnostic, Document};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

/// The main test contract: one field of every shape, a unique id, a typed
/// header key with a range that is also a count key, a required header key.
const T: &str = r#"{
    "prefix": "t",
    "records_key": "rows",
    "header": {
        "required": ["src"],
        "keys": {
            "src": {"type": "str"},
            "k": {"type": "int", "min": 1, "max": 5}
        }
    },
    "core": [
        {"name": "id", "type": "str", "unique": true},
        {"name": "qty", "type": "int", "min": 0, "max": 100},
        {"name": "color", "type": "enum", "values": ["red", "green"]},
        {"name": "options", "type": "mlist", "item": "str", "count_key": "k",
         "marker": "exactly_one", "json": {"items": "options", "selected": "answer"}},
        {"name": "tags", "type": "list", "item": "str", "max": 3},
        {"name": "pt", "type": "tuple", "items": [
            {"name": "x", "type": "int"},
            {"name": "y", "type": "int", "optional": true}
        ]}
    ],
    "extensions": [
        {"name": "memo", "type": "str"}
    ]
}"#;

/// A valid header and record for [`T`].
const H: &str = "t|n=1|src=s|k=2";
const R: &str = "r1|5|red|a*,b|x,y|1,2";

fn t() -> Contract {
    Contract::from_json(T).expect("the test contract is valid")
}

fn contract(json: &str) -> Contract {
    Contract::from_json(json).unwrap_or_else(|e| panic!("test contract rejected: {e}"))
}

/// Every diagnostic `mini::check` reports (empty when it accepts).
fn checked(text: &str, c: &Contract) -> Vec<Diagnostic> {
    mini::check(text, c)
        .err()
        .map(|e| e.diagnostics().to_vec())
        .unwrap_or_default()
}

/// `(code, line, field)` of every error of a strict parse (empty if valid).
fn errors(text: &str, c: &Contract) -> Vec<(Code, usize, Option<String>)> {
    match mini::parse(text, c) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .diagnostics()
            .iter()
            .map(|d| (d.code(), d.line(), d.field().map(str::to_string)))
            .collect(),
    }
}

/// Asserts that strict parsing reports exactly one error and returns it.
/// `mini::validate`, which keeps no values, must report the same.
fn only(text: &str, c: &Contract) -> Diagnostic {
    let err = match mini::parse(text, c) {
        Ok(_) => panic!("accepted, expected exactly one error: {text:?}"),
        Err(e) => e,
    };
    assert_eq!(checked(text, c), err.diagnostics(), "validate {text:?}");
    assert_eq!(
        err.diagnostics().len(),
        1,
        "expected one error for {text:?}, got {err:?}"
    );
    err.diagnostics()[0].clone()
}

#[track_caller]
fn assert_one(
    text: &str,
    c: &Contract,
    code: Code,
    line: usize,
    field: Option<&str>,
) -> Diagnostic {
    let d = only(text, c);
    assert_eq!(
        (d.code(), d.line(), d.field()),
        (code, line, field),
        "input {text:?}: {d}"
    );
    d
}

#[track_caller]
fn valid(text: &str, c: &Contract) -> Document {
    assert_eq!(checked(text, c), [], "check {text:?}");
    assert!(mini::check(text, c).is_ok(), "check {text:?}");
    mini::parse(text, c)
        .unwrap_or_else(|e| panic!("rejected {text:?}: {e} ({:?})", e.diagnostics()))
}

#[track_caller]
fn assert_code_absent(text: &str, c: &Contract, code: Code) {
    let errs = errors(text, c);
    assert!(
        errs.iter().all(|(c, _, _)| *c != code),
        "{code} fired for {text:?}: {errs:?}"
    );
}

fn doc1(record: &str) -> String {
    format!("{H}\n{record}")
}

fn rows(doc: &Document) -> Vec<Value> {
    doc.records()
        .iter()
        .map(|r| Value::Object(r.value.clone()))
        .collect()
}

// ---------------------------------------------------------------------------
// E01 — header line missing
// ---------------------------------------------------------------------------

#[test]
fn e01_empty_document() {
    assert_one("", &t(), Code::E01, 0, None);
}

#[test]
fn e01_only_blank_lines_bom_and_crlf() {
    assert_one("\n\n  \t \r\n\r\n", &t(), Code::E01, 0, None);
    assert_one("\u{feff}", &t(), Code::E01, 0, None);
    assert_one("\u{feff}\n \n", &t(), Code::E01, 0, None);
}

#[test]
fn e01_near_miss_header_after_blank_lines_is_found_and_lines_are_counted() {
    let doc = valid("\n  \n\r\nt|n=0|src=s\n\n", &t());
    assert!(doc.has_header());
    assert_eq!(doc.prefix(), Some("t"));
    assert_eq!(doc.declared_n(), Some(0));
    // the header is on physical line 4: its errors say so
    assert_one("\n  \n\r\nt|n=0", &t(), Code::E12, 4, Some("src"));
}

#[test]
fn e01_lenient_builds_no_document() {
    let doc = mini::parse_lenient("   \n", &t());
    assert!(!doc.has_header());
    assert_eq!(doc.prefix(), None);
    let d = doc.diagnostics();
    assert!(!d.ok);
    assert_eq!(d.prefix, None);
    assert_eq!(d.declared_n, None);
    assert_eq!(d.missing_records, None);
    assert_eq!(d.truncated, None);
    assert_eq!(d.errors.len(), 1);
    assert_eq!(d.errors[0].code(), Code::E01);
    assert_eq!(
        doc.to_canonical(),
        json!({"prefix": null, "header": {}, "rows": []})
    );
}

// ---------------------------------------------------------------------------
// E02 — prefix does not match
// ---------------------------------------------------------------------------

#[test]
fn e02_other_prefix() {
    assert_one(&format!("x|n=1|src=s|k=2\n{R}"), &t(), Code::E02, 1, None);
}

#[test]
fn e02_prefix_is_case_sensitive() {
    assert_one(&format!("T|n=1|src=s|k=2\n{R}"), &t(), Code::E02, 1, None);
}

#[test]
fn e02_on_the_physical_line_of_the_header() {
    assert_one(
        &format!("\n\nt2|n=1|src=s|k=2\n{R}"),
        &t(),
        Code::E02,
        3,
        None,
    );
}

#[test]
fn e02_near_miss_prefix_with_outer_whitespace() {
    let doc = valid(&format!("  t \t|n=1|src=s|k=2\n{R}"), &t());
    assert_eq!(doc.prefix(), Some("t"));
}

#[test]
fn e02_lenient_still_checks_and_keeps_records() {
    let doc = mini::parse_lenient(&format!("x|n=1|src=s|k=2\n{R}"), &t());
    assert_eq!(doc.records().len(), 1);
    assert_eq!(doc.prefix(), Some("x"));
    let d = doc.diagnostics();
    assert_eq!(d.invalid_lines, Vec::<usize>::new());
    assert_eq!(d.valid_lines, vec![2]);
}

// ---------------------------------------------------------------------------
// E03 — header has no n
// ---------------------------------------------------------------------------

#[test]
fn e03_no_n() {
    // no E04: the count is unknown, so it cannot mismatch
    assert_one(&format!("t|src=s|k=2\n{R}"), &t(), Code::E03, 1, None);
}

#[test]
fn e03_header_is_only_the_prefix() {
    let errs = errors(&format!("t\n{R}"), &t());
    assert!(errs.contains(&(Code::E03, 1, None)), "{errs:?}");
    assert!(
        errs.contains(&(Code::E12, 1, Some("src".to_string()))),
        "{errs:?}"
    );
    assert_eq!(errs.len(), 2, "{errs:?}");
}

#[test]
fn e03_near_miss_n_with_spaces_and_any_position() {
    valid(&format!("t| src=s | k = 2 |  n = 1 \n{R}"), &t());
}

#[test]
fn e03_near_miss_ill_typed_n_is_e06_not_e03() {
    // n is present: the error is its type (upstream hdr-n-not-int)
    assert_one(
        &format!("t|n=abc|src=s|k=2\n{R}"),
        &t(),
        Code::E06,
        1,
        Some("n"),
    );
    assert_one(
        &format!("t|n=|src=s|k=2\n{R}"),
        &t(),
        Code::E06,
        1,
        Some("n"),
    );
    // an int no line count can equal is E04 (issue 14, SPEC 1.1 §5)
    assert_one(&format!("t|n=-1|src=s|k=2\n{R}"), &t(), Code::E04, 0, None);
    // an unknown n is not 0: no E04 either, whatever the number of lines
    let many = format!("t|n=x|src=s|k=2\n{R}\nr2|5|red|a*,b|x|1,");
    assert_code_absent(&many, &t(), Code::E03);
    assert_code_absent(&many, &t(), Code::E04);
}

// ---------------------------------------------------------------------------
// E04 — record count differs from n
// ---------------------------------------------------------------------------

#[test]
fn e04_more_lines_than_n() {
    let d = assert_one(
        &format!("{H}\n{R}\nr2|5|red|a*,b|x|1,"),
        &t(),
        Code::E04,
        0,
        None,
    );
    assert!(d.message().contains("n=1"), "{d}");
}

#[test]
fn e04_fewer_lines_than_n() {
    assert_one(&format!("t|n=3|src=s|k=2\n{R}"), &t(), Code::E04, 0, None);
    assert_one("t|n=2|src=s", &t(), Code::E04, 0, None);
}

#[test]
fn e04_counts_invalid_record_lines_too() {
    // two record lines, one invalid: n=2 is right, so only the E06 fires
    let text = format!("t|n=2|src=s|k=2\n{R}\nr2|x|red|a*,b|x|1,");
    assert_eq!(
        errors(&text, &t()),
        vec![(Code::E06, 3, Some("qty".to_string()))]
    );
}

#[test]
fn e04_near_miss_blank_lines_and_crlf_are_not_records() {
    let text = format!("t|n=2|src=s|k=2\r\n\r\n{R}\r\n   \t\r\nr2|6|green|c,d*|z|3,\r\n\r\n");
    let doc = valid(&text, &t());
    let lines: Vec<usize> = doc.records().iter().map(|r| r.line).collect();
    assert_eq!(lines, vec![3, 5]);
    assert_eq!(doc.record_lines(), 2);
}

// ---------------------------------------------------------------------------
// E05 — wrong number of fields
// ---------------------------------------------------------------------------

#[test]
fn e05_fewer_fields_than_the_core() {
    let d = assert_one(&doc1("r1|5|red"), &t(), Code::E05, 2, None);
    assert!(
        d.message().contains('3') && d.message().contains('6'),
        "{d}"
    );
}

#[test]
fn e05_escaped_pipe_does_not_separate() {
    assert_one(&doc1("r1|5|red|a*,b\\|x,y|1,2"), &t(), Code::E05, 2, None);
}

#[test]
fn e05_more_fields_than_core_plus_extensions() {
    assert_one(&doc1(&format!("{R}|memo|extra")), &t(), Code::E05, 2, None);
}

#[test]
fn e05_equal_version_rejects_excess_fields() {
    assert_one(
        &format!("t|n=1|v=1|src=s|k=2\n{R}|memo|extra"),
        &t(),
        Code::E05,
        2,
        None,
    );
}

#[test]
fn e05_near_miss_extension_present_empty_or_absent() {
    let doc = valid(&doc1(&format!("{R}|a note")), &t());
    assert_eq!(rows(&doc)[0]["memo"], "a note");
    let doc = valid(&doc1(&format!("{R}|")), &t());
    assert_eq!(rows(&doc)[0]["memo"], Value::Null);
    let doc = valid(&doc1(R), &t());
    assert_eq!(rows(&doc)[0]["memo"], Value::Null);
}

#[test]
fn e05_near_miss_later_version_accepts_unknown_trailing_fields() {
    // SPEC 1.1 §6: a header v above the contract version lets the parser
    // ignore the unknown tail (after validating the known prefix)
    let doc = valid(&format!("t|n=1|v=2|src=s|k=2\n{R}|memo|new1|new2"), &t());
    assert_eq!(doc.header().unwrap()["v"], 2);
    let row = &rows(&doc)[0];
    assert_eq!(row["memo"], "memo");
    assert_eq!(row.as_object().unwrap().len(), 8, "{row}");
    // ...but the tail is still lexically validated
    assert_one(
        &format!("t|n=1|v=2|src=s|k=2\n{R}|memo|bad\\q"),
        &t(),
        Code::E09,
        2,
        None,
    );
}

#[test]
#[cfg(feature = "arbitrary_precision")]
fn e05_near_miss_version_beyond_u64_is_still_later() {
    // SPEC 1.1 §6: a header v above the contract version accepts the unknown
    // tail; 10^20 is a well-formed int above 1
    valid(
        &format!("t|n=1|v=100000000000000000000|src=s|k=2\n{R}|memo|new"),
        &t(),
    );
}

// ---------------------------------------------------------------------------
// E06 — type mismatch or required value empty
// ---------------------------------------------------------------------------

#[test]
fn e06_int_field_not_an_int() {
    assert_one(
        &doc1("r1|five|red|a*,b|x|1,2"),
        &t(),
        Code::E06,
        2,
        Some("qty"),
    );
    assert_one(
        &doc1("r1|5.0|red|a*,b|x|1,2"),
        &t(),
        Code::E06,
        2,
        Some("qty"),
    );
    assert_one(
        &doc1("r1|+5|red|a*,b|x|1,2"),
        &t(),
        Code::E06,
        2,
        Some("qty"),
    );
}

#[test]
fn e06_required_value_empty() {
    assert_one(&doc1("r1||red|a*,b|x|1,2"), &t(), Code::E06, 2, Some("qty"));
    assert_one(&doc1("  |5|red|a*,b|x|1,2"), &t(), Code::E06, 2, Some("id"));
}

#[test]
fn e06_tuple_component_names_the_component() {
    assert_one(
        &doc1("r1|5|red|a*,b|x|one,2"),
        &t(),
        Code::E06,
        2,
        Some("pt.x"),
    );
    assert_one(
        &doc1("r1|5|red|a*,b|x|,2"),
        &t(),
        Code::E06,
        2,
        Some("pt.x"),
    );
    assert_one(
        &doc1("r1|5|red|a*,b|x|1,two"),
        &t(),
        Code::E06,
        2,
        Some("pt.y"),
    );
}

#[test]
fn e06_header_typed_value() {
    assert_one(
        &format!("t|n=1|src=s|k=two\n{R}"),
        &t(),
        Code::E06,
        1,
        Some("k"),
    );
}

#[test]
fn e06_near_miss_int_forms() {
    let doc = valid(&doc1("r1| 007 |red|a*,b|x|-0,"), &t());
    let row = &rows(&doc)[0];
    assert_eq!(row["qty"], 7);
    assert_eq!(row["pt"], json!({"x": 0, "y": null}));
}

// ---------------------------------------------------------------------------
// E07 — arity
// ---------------------------------------------------------------------------

#[test]
fn e07_list_differs_from_count_key() {
    let d = assert_one(
        &doc1("r1|5|red|a*,b,c|x|1,2"),
        &t(),
        Code::E07,
        2,
        Some("options"),
    );
    assert_eq!(d.message(), "list has 3 elements but header k=2");
}

#[test]
fn e07_list_above_max() {
    assert_one(
        &doc1("r1|5|red|a*,b|p,q,r,s|1,2"),
        &t(),
        Code::E07,
        2,
        Some("tags"),
    );
}

#[test]
fn e07_tuple_size() {
    assert_one(
        &doc1("r1|5|red|a*,b|x|1,2,3"),
        &t(),
        Code::E07,
        2,
        Some("pt"),
    );
    assert_one(&doc1("r1|5|red|a*,b|x|1"), &t(), Code::E07, 2, Some("pt"));
    // a required tuple written empty has zero components (upstream tuple-required-empty)
    assert_one(&doc1("r1|5|red|a*,b|x|"), &t(), Code::E07, 2, Some("pt"));
}

#[test]
fn e07_near_miss_escaped_or_quoted_separator_is_not_a_separator() {
    let doc = valid(&doc1("r1|5|red|a\\,b*,c|x|1,2"), &t());
    assert_eq!(rows(&doc)[0]["options"], json!(["a,b", "c"]));
    let doc = valid(&doc1("r1|5|red|\"a,b\"*,c|x|1,2"), &t());
    assert_eq!(rows(&doc)[0]["options"], json!(["a,b", "c"]));
    assert_eq!(rows(&doc)[0]["answer"], 0);
}

#[test]
fn e07_near_miss_no_count_key_in_header() {
    // without k the count is unknown; only the list's own bounds apply
    let doc = valid("t|n=1|src=s\nr1|5|red|a,b*,c,d|x|1,2", &t());
    assert_eq!(rows(&doc)[0]["answer"], 1);
}

/// A count key without a range of its own.
const FREE_K: &str = r#"{"prefix": "f", "header": {"keys": {"k": {"type": "int"}}},
    "core": [{"name": "id", "type": "str"}, {"name": "ls", "type": "list", "count_key": "k"}]}"#;

#[test]
fn e07_negative_count_key_matches_no_list() {
    // SPEC 1.1 §5: the list MUST have exactly k elements; no list has -1
    assert_one(
        "f|n=1|k=-1\nr1|a,b",
        &contract(FREE_K),
        Code::E07,
        2,
        Some("ls"),
    );
}

#[test]
#[cfg(feature = "arbitrary_precision")]
fn e07_count_key_beyond_u64_matches_no_list() {
    assert_one(
        "f|n=1|k=100000000000000000000\nr1|a,b",
        &contract(FREE_K),
        Code::E07,
        2,
        Some("ls"),
    );
}

#[test]
fn e07_near_miss_count_key_with_leading_zeros() {
    valid("f|n=1|k=002\nr1|a,b", &contract(FREE_K));
    assert_one(
        "f|n=1|k=002\nr1|a,b,c",
        &contract(FREE_K),
        Code::E07,
        2,
        Some("ls"),
    );
}

// ---------------------------------------------------------------------------
// E08 — marker rule
// ---------------------------------------------------------------------------

#[test]
fn e08_exactly_one_without_marker() {
    assert_one(
        &doc1("r1|5|red|a,b|x|1,2"),
        &t(),
        Code::E08,
        2,
        Some("options"),
    );
}

#[test]
fn e08_exactly_one_with_two_markers() {
    assert_one(
        &doc1("r1|5|red|a*,b*|x|1,2"),
        &t(),
        Code::E08,
        2,
        Some("options"),
    );
}

#[test]
fn e08_marker_in_plain_list_or_tuple() {
    assert_one(
        &doc1("r1|5|red|a*,b|x*|1,2"),
        &t(),
        Code::E08,
        2,
        Some("tags"),
    );
    assert_one(
        &doc1("r1|5|red|a*,b|x|1*,2"),
        &t(),
        Code::E08,
        2,
        Some("pt"),
    );
}

#[test]
fn e08_escaped_star_is_not_a_marker() {
    assert_one(
        &doc1("r1|5|red|a\\*,b|x|1,2"),
        &t(),
        Code::E08,
        2,
        Some("options"),
    );
}

#[test]
fn e08_near_miss_literal_stars() {
    let doc = valid(&doc1("r1|5|red|a\\**,b|x\\*,y*z|1,2"), &t());
    let row = &rows(&doc)[0];
    assert_eq!(row["options"], json!(["a*", "b"]));
    assert_eq!(row["answer"], 0);
    assert_eq!(row["tags"], json!(["x*", "y*z"]));
}

#[test]
fn e08_near_miss_marker_with_spaces_and_inside_quotes() {
    let doc = valid(&doc1("r1|5|red| a , b * |x|1,2"), &t());
    assert_eq!(rows(&doc)[0]["options"], json!(["a", "b"]));
    assert_eq!(rows(&doc)[0]["answer"], 1);
    let doc = valid(&doc1("r1|5|red|\"a*\",\"b\"|x|1,2"), &t());
    assert_eq!(rows(&doc)[0]["options"], json!(["a", "b"]));
    assert_eq!(rows(&doc)[0]["answer"], 0);
}

// ---------------------------------------------------------------------------
// E09 — escapes and quotes
// ---------------------------------------------------------------------------

#[test]
fn e09_invalid_escape() {
    // the error names the field the escape is in (issue 15)
    assert_one(
        &doc1("r\\q1|5|red|a*,b|x|1,2"),
        &t(),
        Code::E09,
        2,
        Some("id"),
    );
    assert_one(
        &doc1("r1|5|red|a*,b|x|1,2|tab\\there"),
        &t(),
        Code::E09,
        2,
        Some("memo"),
    );
}

#[test]
fn e09_other_separator_escape_is_invalid_under_comma() {
    assert_one(
        &doc1("r1|5|red|a*,b|x|1,2|a\\;b"),
        &t(),
        Code::E09,
        2,
        Some("memo"),
    );
}

#[test]
fn e09_dangling_backslash() {
    assert_one(
        &doc1("r1|5|red|a*,b|x|1,2|memo\\"),
        &t(),
        Code::E09,
        2,
        Some("memo"),
    );
}

#[test]
fn e09_unclosed_quote_and_text_after_quote_name_the_field() {
    assert_one(
        &doc1("r1|5|red|\"a*,b|x|1,2"),
        &t(),
        Code::E09,
        2,
        Some("options"),
    );
    assert_one(
        &doc1("r1|5|red|\"a\" x*,b|x|1,2"),
        &t(),
        Code::E09,
        2,
        Some("options"),
    );
}

#[test]
fn e09_in_the_header() {
    // the error names the entry's key (issue 15)
    assert_one(
        &format!("t|n=1|src=a\\qb|k=2\n{R}"),
        &t(),
        Code::E09,
        1,
        Some("src"),
    );
}

#[test]
fn e09_near_miss_every_valid_escape() {
    let doc = valid(
        &doc1("a\\|b|5|red|a*,b|x|1,2|c\\\\d\\ne\\,f\\*g\\\"h"),
        &t(),
    );
    let row = &rows(&doc)[0];
    assert_eq!(row["id"], "a|b");
    assert_eq!(row["memo"], "c\\d\ne,f*g\"h");
}

#[test]
fn e09_near_miss_quote_not_first_is_literal() {
    let doc = valid(
        &doc1("r1|5|red|say \"hi\"*,b|x|1,2|\"quoted scalar\""),
        &t(),
    );
    let row = &rows(&doc)[0];
    assert_eq!(row["options"], json!(["say \"hi\"", "b"]));
    assert_eq!(row["memo"], "\"quoted scalar\"");
}

// ---------------------------------------------------------------------------
// E10 — enumeration
// ---------------------------------------------------------------------------

#[test]
fn e10_value_outside_enum() {
    assert_one(
        &doc1("r1|5|blue|a*,b|x|1,2"),
        &t(),
        Code::E10,
        2,
        Some("color"),
    );
}

#[test]
fn e10_enum_is_case_sensitive() {
    assert_one(
        &doc1("r1|5|Red|a*,b|x|1,2"),
        &t(),
        Code::E10,
        2,
        Some("color"),
    );
}

#[test]
fn e10_empty_enum_list_element() {
    let c = contract(
        r#"{"prefix": "e", "core": [{"name": "id", "type": "str"},
            {"name": "ls", "type": "list", "item": "enum", "item_values": ["a", "b"]}]}"#,
    );
    assert_one("e|n=1\nr1|a,", &c, Code::E10, 2, Some("ls"));
    assert_one("e|n=1\nr1|a,c", &c, Code::E10, 2, Some("ls"));
    let doc = valid("e|n=1\nr1| b , a ", &c);
    assert_eq!(rows(&doc)[0]["ls"], json!(["b", "a"]));
}

#[test]
fn e10_near_miss_trimmed_value_matches() {
    let doc = valid(&doc1("r1|5|  green\t|a*,b|x|1,2"), &t());
    assert_eq!(rows(&doc)[0]["color"], "green");
}

// ---------------------------------------------------------------------------
// E11 — unique
// ---------------------------------------------------------------------------

#[test]
fn e11_duplicate_id() {
    let text = format!("t|n=2|src=s|k=2\n{R}\n{R}");
    assert_one(&text, &t(), Code::E11, 3, Some("id"));
}

#[test]
fn e11_compares_decoded_values() {
    let text = "t|n=2|src=s|k=2\na\\|b|5|red|a*,b|x|1,\n a\\|b |6|green|c*,d|y|2,";
    assert_one(text, &t(), Code::E11, 3, Some("id"));
}

#[test]
fn e11_compares_decoded_values_even_in_validate() {
    // two spellings of one value: `validate`, which leaves a plain `str`
    // escaped, must still decode a unique one (`only` compares it)
    let text = "t|n=2|src=s|k=2\na\\,b|5|red|a*,b|x|1,\na,b|6|green|c*,d|y|2,";
    assert_one(text, &t(), Code::E11, 3, Some("id"));
}

#[test]
fn e11_on_a_tuple_field() {
    let c = contract(
        r#"{"prefix": "u", "core": [{"name": "id", "type": "str"},
            {"name": "span", "type": "tuple", "unique": true, "items": [
                {"name": "lo", "type": "int"}, {"name": "hi", "type": "int"}]}]}"#,
    );
    assert_one("u|n=2\na|1,2\nb| 1 , 02 ", &c, Code::E11, 3, Some("span"));
    valid("u|n=2\na|1,2\nb|2,1", &c);
}

#[test]
fn e11_near_miss_distinct_floats_with_extreme_exponents() {
    // ADR 0008: the identity of a unique float is its exact value; these two
    // are different values that the same double (0.0) would confuse
    let c =
        contract(r#"{"prefix": "uf", "core": [{"name": "f", "type": "float", "unique": true}]}"#);
    valid("uf|n=2\n1e-400\n2e-400", &c);
    // beyond ±10000 the exponent is refused (ADR 0003), never silently equal
    assert_one(
        "uf|n=1\n1e-99999999999999999999",
        &c,
        Code::E06,
        2,
        Some("f"),
    );
    // near the near miss: same exact value, different spelling
    assert_one("uf|n=2\n1.50\n15e-1", &c, Code::E11, 3, Some("f"));
}

#[test]
fn e11_near_miss_case_differs() {
    valid(&format!("t|n=2|src=s|k=2\n{R}\nR1|5|red|a*,b|x|1,2"), &t());
}

#[test]
fn e11_near_miss_rejected_line_does_not_claim_its_value() {
    let text = format!("t|n=2|src=s|k=2\nr1|500|red|a*,b|x|1,2\n{R}");
    assert_eq!(
        errors(&text, &t()),
        vec![(Code::E13, 2, Some("qty".to_string()))]
    );
    let doc = mini::parse_lenient(&text, &t());
    assert_eq!(doc.records().len(), 1);
    assert_eq!(doc.records()[0].line, 3);
}

// ---------------------------------------------------------------------------
// E12 — header entries
// ---------------------------------------------------------------------------

#[test]
fn e12_entry_without_equals() {
    assert_one(
        &format!("t|n=1|src=s|k=2|garbage\n{R}"),
        &t(),
        Code::E12,
        1,
        None,
    );
}

#[test]
fn e12_required_key_missing() {
    assert_one(&format!("t|n=1|k=2\n{R}"), &t(), Code::E12, 1, Some("src"));
}

#[test]
fn e12_repeated_key_first_one_counts() {
    assert_one(
        &format!("t|n=1|src=a|k=2|src=b\n{R}"),
        &t(),
        Code::E12,
        1,
        Some("src"),
    );
    let doc = mini::parse_lenient(&format!("t|n=1|src=a|k=2|src=b\n{R}"), &t());
    assert_eq!(doc.header().unwrap()["src"], "a");
    assert_one(
        &format!("t|n=1|src=s|k=2|n=2\n{R}"),
        &t(),
        Code::E12,
        1,
        Some("n"),
    );
}

#[test]
fn e12_escaped_equals_is_not_a_separator() {
    let errs = errors(&format!("t|n=1|src=s|k=2|foo\\=bar\n{R}"), &t());
    assert!(errs.contains(&(Code::E12, 1, None)), "{errs:?}");
    assert!(errs.contains(&(Code::E09, 1, None)), "{errs:?}");
}

#[test]
fn e12_near_miss_empty_str_value_unknown_keys_and_equals_in_value() {
    let doc = valid(&format!("t|n=1|src=|k=2|model=m=1|temp=0.2\n{R}"), &t());
    let h = doc.header().unwrap();
    assert_eq!(h["src"], "");
    assert_eq!(h["model"], "m=1");
    assert_eq!(h["temp"], "0.2", "unknown keys are kept as strings");
    assert_eq!(h["v"], 1);
}

// ---------------------------------------------------------------------------
// E13 — range
// ---------------------------------------------------------------------------

#[test]
fn e13_int_above_max_and_below_min() {
    assert_one(
        &doc1("r1|101|red|a*,b|x|1,2"),
        &t(),
        Code::E13,
        2,
        Some("qty"),
    );
    assert_one(
        &doc1("r1|-1|red|a*,b|x|1,2"),
        &t(),
        Code::E13,
        2,
        Some("qty"),
    );
}

#[test]
#[cfg(feature = "arbitrary_precision")]
fn e13_huge_int_is_compared_exactly() {
    assert_one(
        &doc1("r1|100000000000000000000000000001|red|a*,b|x|1,2"),
        &t(),
        Code::E13,
        2,
        Some("qty"),
    );
}

#[test]
fn e13_typed_header_int() {
    // k is out of its range, so it is unknown as a count key: no E07 follows
    assert_one(
        &format!("t|n=1|src=s|k=9\n{R}"),
        &t(),
        Code::E13,
        1,
        Some("k"),
    );
    assert_one(
        &format!("t|n=1|src=s|k=0\n{R}"),
        &t(),
        Code::E13,
        1,
        Some("k"),
    );
}

#[test]
fn e13_decimal_and_date_bounds() {
    let c = contract(
        r#"{"prefix": "d", "core": [
            {"name": "day", "type": "date", "min": "2000-01-01", "max": "2099-12-31"},
            {"name": "amount", "type": "decimal", "min": "0", "max": "10.00"}]}"#,
    );
    assert_one("d|n=1\n1999-12-31|1", &c, Code::E13, 2, Some("day"));
    assert_one(
        "d|n=1\n2024-02-29|10.000000000000000000001",
        &c,
        Code::E13,
        2,
        Some("amount"),
    );
    valid("d|n=1\n2099-12-31|10.0000", &c);
}

#[test]
fn e13_float_with_extreme_exponent_is_still_range_checked() {
    // an exponent beyond ±10000 cannot be held exactly: E06, never a silent
    // pass of the range check (ADR 0003)
    let c = contract(
        r#"{"prefix": "fl", "core": [{"name": "lo", "type": "float", "min": 1},
            {"name": "hi", "type": "float", "min": 0, "max": 10}]}"#,
    );
    assert_one(
        "fl|n=1\n1e-99999999999999999999|5",
        &c,
        Code::E06,
        2,
        Some("lo"),
    );
    assert_one("fl|n=1\n5|-1e-300", &c, Code::E13, 2, Some("hi"));
    // near miss: an ordinary exponent is compared exactly
    assert_one("fl|n=1\n1e-400|5", &c, Code::E13, 2, Some("lo"));
    valid("fl|n=1\n1e0|1E+1", &c);
}

#[test]
fn e13_near_miss_bounds_are_inclusive() {
    valid(
        "t|n=2|src=s|k=5\nr1|0|red|a*,b,c,d,e|x|1,\nr2|100|red|a,b,c,d,e*|x|1,",
        &t(),
    );
    valid("t|n=1|src=s|k=1\nr1|0100|red|a*|x|1,", &t());
}

// ---------------------------------------------------------------------------
// E20 — invalid contract
// ---------------------------------------------------------------------------

#[track_caller]
fn assert_e20(json: &str) {
    match Contract::from_json(json) {
        Ok(_) => panic!("contract accepted, expected E20: {json}"),
        Err(e) => {
            assert!(!e.diagnostics().is_empty());
            for d in e.diagnostics() {
                assert_eq!((d.code(), d.line(), d.field()), (Code::E20, 0, None), "{d}");
            }
        }
    }
}

#[test]
fn e20_count_key_not_an_int_header_key() {
    // names a str header key
    assert_e20(
        r#"{"prefix": "x", "header": {"keys": {"k": {"type": "str"}}},
            "core": [{"name": "ls", "type": "list", "count_key": "k"}]}"#,
    );
    // names no header key at all
    assert_e20(r#"{"prefix": "x", "core": [{"name": "ls", "type": "list", "count_key": "k"}]}"#);
}

#[test]
fn e20_separator_letter_space_reserved_or_long() {
    for sep in [
        "a", "Z", "7", " ", "|", "\\\\", "*", "\\\"", "=", "\\n", ",,", "",
    ] {
        assert_e20(&format!(
            r#"{{"prefix": "x", "list_separator": "{sep}", "core": [{{"name": "id", "type": "str"}}]}}"#
        ));
    }
}

#[test]
fn e20_other_contract_errors() {
    assert_e20("{not json");
    assert_e20(r#"{"prefix": "1x", "core": [{"name": "id", "type": "str"}]}"#);
    assert_e20(r#"{"prefix": "x", "core": []}"#);
    assert_e20(r#"{"prefix": "x", "core": [{"name": "q", "type": "int", "min": 5, "max": 1}]}"#);
    assert_e20(
        r#"{"prefix": "x", "header": {"keys": {"n": {"type": "str"}}}, "core": [{"name": "id", "type": "str"}]}"#,
    );
}

#[test]
fn e20_near_miss_semicolon_tab_and_int_count_key() {
    for sep in [";", "\\t", "/", "~"] {
        let c = contract(&format!(
            r#"{{"prefix": "x", "list_separator": "{sep}", "core": [{{"name": "id", "type": "str"}}]}}"#
        ));
        assert_ne!(c.separator(), ',');
    }
    let c = contract(
        r#"{"prefix": "x", "header": {"keys": {"k": {"type": "int"}}},
            "core": [{"name": "ls", "type": "list", "count_key": "k"}]}"#,
    );
    assert_eq!(c.header_key("k").map(|k| k.name.as_str()), Some("k"));
    // a count key may also name the implicit int `n`
    contract(r#"{"prefix": "x", "core": [{"name": "ls", "type": "list", "count_key": "n"}]}"#);
}

// ---------------------------------------------------------------------------
// E21 — fork invariants
// ---------------------------------------------------------------------------

const PARENT: &str = r#"{
    "prefix": "p",
    "header": {"required": ["src"], "keys": {"src": {"type": "str"}}},
    "core": [{"name": "id", "type": "str"}, {"name": "score", "type": "int"}],
    "extensions": [{"name": "note", "type": "str"}]
}"#;

fn child(fields: &str, required: &str) -> Contract {
    contract(&format!(
        r#"{{"prefix": "c", "parent": "p",
            "header": {{"required": [{required}], "keys": {{"src": {{"type": "str"}}}}}},
            "core": [{{"name": "id", "type": "str"}}, {{"name": "score", "type": "int"}}, {fields}]}}"#
    ))
}

#[test]
fn e21_new_required_core_field() {
    let c = child(
        r#"{"name": "note", "type": "str", "optional": true}, {"name": "extra", "type": "str"}"#,
        r#""src""#,
    );
    let diags = check_fork(&c, &contract(PARENT));
    assert_eq!(diags.len(), 1, "{diags:?}");
    let d = &diags[0];
    assert_eq!((d.code(), d.line(), d.field()), (Code::E21, 0, None));
    assert!(d.message().contains("I4"), "{d}");
}

#[test]
fn e21_parent_required_header_key_dropped() {
    let c = child(r#"{"name": "note", "type": "str", "optional": true}"#, "");
    let diags = check_fork(&c, &contract(PARENT));
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].code(), Code::E21);
    assert!(diags[0].message().contains("I2"), "{}", diags[0]);
}

#[test]
fn e21_inherited_field_retyped() {
    let c = contract(
        r#"{"prefix": "c", "header": {"required": ["src"]},
            "core": [{"name": "id", "type": "str"}, {"name": "score", "type": "float"}],
            "extensions": [{"name": "note", "type": "str"}]}"#,
    );
    let diags = check_fork(&c, &contract(PARENT));
    assert_eq!(
        diags
            .iter()
            .map(|d| (d.code(), d.line()))
            .collect::<Vec<_>>(),
        vec![(Code::E21, 0)]
    );
    assert!(diags[0].message().contains("I3"), "{}", diags[0]);
}

#[test]
fn e21_near_miss_new_optional_fields() {
    let c = child(
        r#"{"name": "note", "type": "str", "optional": true}, {"name": "extra", "type": "int", "optional": true}"#,
        r#""src""#,
    );
    assert_eq!(check_fork(&c, &contract(PARENT)), vec![]);
    // extensions are always optional
    let c = contract(
        r#"{"prefix": "c", "header": {"required": ["src", "lang"]},
            "core": [{"name": "id", "type": "str"}, {"name": "score", "type": "int", "min": 0}],
            "extensions": [{"name": "note", "type": "str"}, {"name": "hint", "type": "str"}]}"#,
    );
    assert_eq!(check_fork(&c, &contract(PARENT)), vec![]);
}

// ---------------------------------------------------------------------------
// several errors, one document
// ---------------------------------------------------------------------------

#[test]
fn several_errors_are_all_reported_in_line_order_per_field() {
    let text = "t|n=3|src=s|k=2\nr1|x|blue|a,b|p|1,2\nr2|5|red|a*,b|x|1,2\nr2|5|red|a*,b|x|1,2";
    let errs = errors(text, &t());
    assert_eq!(
        errs,
        vec![
            (Code::E06, 2, Some("qty".to_string())),
            (Code::E10, 2, Some("color".to_string())),
            (Code::E08, 2, Some("options".to_string())),
            (Code::E11, 4, Some("id".to_string())),
        ]
    );
}

// ---------------------------------------------------------------------------
// lenient mode and its diagnostics
// ---------------------------------------------------------------------------

#[test]
fn lenient_keeps_valid_records_and_reports_invalid_lines() {
    let text = format!(
        "t|n=4|src=s|k=2\n{R}\nr2|x|red|a*,b|x|1,\n\nr3|7|green|c,d*|z|3,\nr4|8|red|a,b|x|1,"
    );
    let doc = mini::parse_lenient(&text, &t());
    assert!(mini::parse(&text, &t()).is_err());
    let ids: Vec<&Value> = doc.records().iter().map(|r| &r.value["id"]).collect();
    assert_eq!(ids, vec!["r1", "r3"]);
    let d = doc.diagnostics();
    assert!(!d.ok);
    assert_eq!(d.prefix.as_deref(), Some("t"));
    assert_eq!(d.declared_n, Some(4));
    assert_eq!(d.record_lines, 4);
    assert_eq!(d.valid_records, 2);
    assert_eq!(d.valid_lines, vec![2, 5]);
    assert_eq!(d.invalid_lines, vec![3, 6]);
    assert_eq!(d.missing_records, Some(0));
    assert_eq!(d.excess_records, Some(0));
    assert_eq!(d.truncated, Some(false));
    let codes: Vec<(Code, usize)> = d.errors.iter().map(|e| (e.code(), e.line())).collect();
    assert_eq!(codes, vec![(Code::E06, 3), (Code::E08, 6)]);
    // the record index counts invalid lines too
    assert_eq!(doc.records()[1].index, 2);
    assert_eq!(doc.to_canonical()["rows"].as_array().unwrap().len(), 2);
}

#[test]
fn lenient_missing_records_and_truncation() {
    // two lines missing, the last present line complete
    let d = mini::parse_lenient(&format!("t|n=3|src=s|k=2\n{R}"), &t()).diagnostics();
    assert_eq!(d.missing_records, Some(2));
    assert_eq!(d.excess_records, Some(0));
    assert_eq!(d.truncated, Some(true));
    assert_eq!(d.invalid_lines, Vec::<usize>::new());

    // nothing missing, but the last line was cut short
    let d = mini::parse_lenient("t|n=2|src=s|k=2\nr1|5|red|a*,b|x|1,\nr2|5|re", &t()).diagnostics();
    assert_eq!(d.missing_records, Some(0));
    assert_eq!(d.truncated, Some(true));
    assert_eq!(d.invalid_lines, vec![3]);

    // a dangling backslash or an open quote also look cut
    for last in ["r2|5|red|a*,b|x|1,|memo\\", "r2|5|red|\"a*,b"] {
        let text = format!("t|n=2|src=s|k=2\n{R}\n{last}");
        let d = mini::parse_lenient(&text, &t()).diagnostics();
        assert_eq!(d.truncated, Some(true), "{last:?}");
        assert_eq!(d.invalid_lines, vec![3], "{last:?}");
    }

    // more lines than n
    let d = mini::parse_lenient(&format!("{H}\n{R}\nr2|5|red|a*,b|x|1,"), &t()).diagnostics();
    assert_eq!(d.missing_records, Some(0));
    assert_eq!(d.excess_records, Some(1));
    assert_eq!(d.truncated, Some(false));
    assert_eq!(d.valid_records, 2);
}

#[test]
fn lenient_unknown_n_is_not_zero() {
    // n absent (E03) or ill-typed (E06): unknown, so nothing is claimed missing
    for header in ["t|src=s|k=2", "t|n=many|src=s|k=2", "t|n=1.0|src=s|k=2"] {
        let doc = mini::parse_lenient(&format!("{header}\n{R}"), &t());
        assert_eq!(doc.records().len(), 1, "{header}");
        assert_eq!(doc.declared_n(), None, "{header}");
        let d = doc.diagnostics();
        assert_eq!(d.declared_n, None, "{header}");
        assert_eq!(d.missing_records, None, "{header}");
        assert_eq!(d.excess_records, None, "{header}");
        assert_eq!(d.truncated, None, "{header}: last line is complete");
        assert_eq!(
            d.invalid_lines,
            Vec::<usize>::new(),
            "{header}: header errors are not record lines"
        );
        assert_eq!(d.errors.len(), 1, "{header}");
        assert_eq!(d.errors[0].line(), 1, "{header}");
    }
    // unknown n, but the last line is visibly cut: truncated is known
    let d = mini::parse_lenient(&format!("t|src=s|k=2\n{R}\nr2|5"), &t()).diagnostics();
    assert_eq!(d.missing_records, None);
    assert_eq!(d.truncated, Some(true));
}

#[test]
fn lenient_diagnostics_serialize_unknown_as_null() {
    let d = mini::parse_lenient(&format!("t|src=s|k=2\n{R}"), &t()).diagnostics();
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["missing_records"], Value::Null);
    assert_eq!(v["declared_n"], Value::Null);
    assert_eq!(v["truncated"], Value::Null);
    assert_eq!(v["errors"][0]["code"], "E03");
    assert_eq!(v["errors"][0]["line"], 1);
}

#[test]
fn strict_and_lenient_agree() {
    let inputs = [
        doc1(R),
        doc1("r1|5|red|a,b|x|1,"),
        format!("t|n=2|src=s\n{R}"),
        String::new(),
        format!("x\n{R}\n\n{R}"),
    ];
    for text in &inputs {
        let lenient = mini::parse_lenient(text, &t());
        match mini::parse(text, &t()) {
            Ok(doc) => {
                assert!(lenient.is_valid());
                assert_eq!(doc.to_canonical(), lenient.to_canonical());
            }
            Err(e) => assert_eq!(e.diagnostics(), lenient.errors(), "{text:?}"),
        }
    }
}

// ---------------------------------------------------------------------------
// rendered diagnostics
// ---------------------------------------------------------------------------

#[test]
fn display_code_line_field_message() {
    let d = only(&doc1("r1|5|red|a*,b,c|x|1,2"), &t());
    assert_eq!(
        d.to_string(),
        "E07 line 2 [options]: list has 3 elements but header k=2"
    );
}

#[test]
fn display_shape_for_every_field_error() {
    let cases = [
        ("r1|5|red|a,b|x|1,", "E08 line 2 [options]: "),
        ("r1|500|red|a*,b|x|1,", "E13 line 2 [qty]: "),
        ("r1|5|blue|a*,b|x|1,", "E10 line 2 [color]: "),
        ("r1|5|red|a*,b|x|1,z", "E06 line 2 [pt.y]: "),
    ];
    for (record, prefix) in cases {
        let s = only(&doc1(record), &t()).to_string();
        assert!(s.starts_with(prefix), "{s:?} should start with {prefix:?}");
        assert!(s.len() > prefix.len(), "{s:?} has no message");
    }
}

#[test]
fn display_without_field() {
    let s = only(&doc1("r1|5"), &t()).to_string();
    assert!(s.starts_with("E05 line 2: "), "{s}");
    let s = only("", &t()).to_string();
    assert!(s.starts_with("E01 document: "), "{s}");
}

#[test]
fn error_display_is_first_diagnostic_and_a_count() {
    let e = mini::parse("t|n=3|src=s|k=2\nr1|x|red|a*,b|x|1,", &t()).unwrap_err();
    assert_eq!(e.code(), Some(Code::E06));
    assert_eq!(e.diagnostics().len(), 2);
    let s = e.to_string();
    assert!(s.starts_with("E06 line 2 [qty]: "), "{s}");
    assert!(s.ends_with("(and 1 more error(s))"), "{s}");
}

#[test]
fn codes_round_trip_through_text() {
    for c in Code::ALL {
        assert_eq!(Code::parse(c.as_str()), Some(c));
        assert_eq!(c.to_string(), c.as_str());
        assert!(!c.description().is_empty());
    }
    assert_eq!(Code::parse("E14"), None);
    assert_eq!(Code::parse("e07"), None);
}

// ---------------------------------------------------------------------------
// dumps rejections: the parser's code and line (1 header, i + 2 record i)
// ---------------------------------------------------------------------------

fn valid_obj() -> Value {
    json!({
        "prefix": "t",
        "header": {"n": 2, "src": "s", "k": 2},
        "rows": [
            {"id": "r1", "qty": 5, "color": "red", "options": ["a", "b"], "answer": 0,
             "tags": ["x", "y"], "pt": {"x": 1, "y": 2}, "memo": null},
            {"id": "r2", "qty": 6, "color": "green", "options": ["c", "d"], "answer": 1,
             "tags": [], "pt": {"x": 3, "y": null}, "memo": "m"}
        ]
    })
}

#[track_caller]
fn dumps_rejects(obj: &Value, code: Code, line: usize, field: Option<&str>) {
    let err = match mini::dumps(obj, &t()) {
        Ok(text) => panic!("serialized {text:?}, expected {code} on line {line}"),
        Err(e) => e,
    };
    let got: Vec<(Code, usize, Option<&str>)> = err
        .diagnostics()
        .iter()
        .map(|d| (d.code(), d.line(), d.field()))
        .collect();
    assert_eq!(got, vec![(code, line, field)], "{err}");
}

#[test]
fn dumps_near_miss_valid_object_round_trips() {
    let text = mini::dumps(&valid_obj(), &t()).unwrap();
    assert_eq!(
        text,
        "t|n=2|src=s|k=2\nr1|5|red|a*,b|x,y|1,2\nr2|6|green|c,d*||3,|m"
    );
    let again = valid(&text, &t()).to_canonical();
    assert_eq!(mini::dumps(&again, &t()).unwrap(), text);
}

#[test]
fn dumps_header_errors_are_line_1() {
    let mut o = valid_obj();
    o["header"]["k"] = json!(9);
    dumps_rejects(&o, Code::E13, 1, Some("k"));

    let mut o = valid_obj();
    o["header"].as_object_mut().unwrap().remove("src");
    dumps_rejects(&o, Code::E12, 1, Some("src"));

    let mut o = valid_obj();
    o["prefix"] = json!("x");
    dumps_rejects(&o, Code::E02, 1, None);
}

#[test]
fn dumps_record_errors_are_line_i_plus_2() {
    let mut o = valid_obj();
    o["rows"][0]["qty"] = json!(500);
    dumps_rejects(&o, Code::E13, 2, Some("qty"));

    let mut o = valid_obj();
    o["rows"][1]["color"] = json!("pink");
    dumps_rejects(&o, Code::E10, 3, Some("color"));

    let mut o = valid_obj();
    o["rows"][1]["id"] = json!("r1");
    dumps_rejects(&o, Code::E11, 3, Some("id"));

    let mut o = valid_obj();
    o["rows"][1]["options"] = json!(["c", "d", "e"]);
    dumps_rejects(&o, Code::E07, 3, Some("options"));

    let mut o = valid_obj();
    o["rows"][0]["answer"] = Value::Null;
    dumps_rejects(&o, Code::E08, 2, Some("options"));

    let mut o = valid_obj();
    o["rows"][1]["qty"] = json!("six");
    dumps_rejects(&o, Code::E06, 3, Some("qty"));
}

#[test]
fn dumps_rejects_outer_whitespace_with_e06() {
    // deliberate (src/value/dumps.rs): parsing would trim it, so the object
    // could not round-trip
    let mut o = valid_obj();
    o["rows"][0]["id"] = json!(" r1");
    dumps_rejects(&o, Code::E06, 2, Some("id"));
    let mut o = valid_obj();
    o["rows"][1]["memo"] = json!("m\t");
    dumps_rejects(&o, Code::E06, 3, Some("memo"));
    let mut o = valid_obj();
    o["header"]["src"] = json!("s ");
    dumps_rejects(&o, Code::E06, 1, Some("src"));
    // near miss: a line break at the edge is written \n and survives
    let mut o = valid_obj();
    o["rows"][1]["memo"] = json!("\nm\n");
    let text = mini::dumps(&o, &t()).unwrap();
    assert!(text.ends_with("|\\nm\\n"), "{text}");
    assert_eq!(rows(&valid(&text, &t()))[1]["memo"], "\nm\n");
}

#[test]
fn dumps_rejects_unknown_record_key_with_e05() {
    let mut o = valid_obj();
    o["rows"][1]["bogus"] = json!(1);
    dumps_rejects(&o, Code::E05, 3, Some("bogus"));
}

/// ADR 0019: without `arbitrary_precision`, an int beyond i64/u64 is E06 and
/// the message names the feature, in a record as in the header.
#[test]
#[cfg(not(feature = "arbitrary_precision"))]
fn e06_int_beyond_64_bits_names_the_feature() {
    assert_one(
        &doc1("r1|100000000000000000000000000001|red|a*,b|x|1,2"),
        &t(),
        Code::E06,
        2,
        Some("qty"),
    );
    let err = mini::parse(
        &doc1("r1|100000000000000000000000000001|red|a*,b|x|1,2"),
        &t(),
    )
    .unwrap_err();
    assert!(
        err.diagnostics()[0]
            .message()
            .contains("`arbitrary_precision` feature"),
        "{err}"
    );
    // i64::MIN and u64::MAX are held exactly
    let free = contract(r#"{"prefix": "b", "core": [{"name": "x", "type": "int"}]}"#);
    valid("b|n=2\n-9223372036854775808\n18446744073709551615", &free);
    assert_one(
        "b|n=1\n18446744073709551616",
        &free,
        Code::E06,
        2,
        Some("x"),
    );
    assert_one(
        "b|n=1\n-9223372036854775809",
        &free,
        Code::E06,
        2,
        Some("x"),
    );
    assert_one(
        "f|n=1|k=100000000000000000000\nr1|a,b",
        &contract(FREE_K),
        Code::E06,
        1,
        Some("k"),
    );
}

/// Issue 14 item 2: `n` is an int with no bound. An int that can never
/// equal a line count (negative, beyond 64 bits) is E04 at line 0, whatever
/// the build's number policy; `n=abc` stays E06.
#[test]
fn e04_for_an_n_no_line_count_can_equal() {
    for n in [
        "-1",
        "-0000",
        "100000000000000000000",
        "18446744073709551616",
    ] {
        let text = format!("t|n={n}|src=s|k=2\n{R}");
        let d = assert_one(&text, &t(), Code::E04, 0, None);
        let canonical = if n == "-0000" { "0" } else { n };
        assert!(d.message().contains(&format!("n={canonical}")), "{d}");
    }
    // -0000 is 0, a count a document can have: valid with no record line
    valid("t|n=-0000|src=s|k=2", &t());
    assert_one(
        &format!("t|n=abc|src=s|k=2\n{R}"),
        &t(),
        Code::E06,
        1,
        Some("n"),
    );
}

/// Issue 14 item 4: a typed header value ending in a dangling backslash is
/// one defect, one error (E09 naming the key), and a lenient parse keeps
/// the value without the backslash.
#[test]
fn e09_dangling_backslash_in_a_typed_header_value_is_one_error() {
    let text = format!("t|n=1|src=s|k=2\\\n{R}");
    let d = assert_one(&text, &t(), Code::E09, 1, Some("k"));
    assert!(d.message().contains("dangling backslash"), "{d}");
    let doc = mini::parse_lenient(&text, &t());
    assert_eq!(doc.header().unwrap()["k"], 2);
}
