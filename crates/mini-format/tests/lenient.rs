//! Issue 20: what a lenient read keeps.
//!
//! - An `n` no count can equal (negative, beyond 64 bits) is E04 in the
//!   strict parse and stays in the lenient canonical header as written;
//!   `missing_records` follows ADR 0006 (unknown is `None`, never 0).
//! - `mini::from_str_lenient::<T>`: the document type with its valid
//!   records, plus the account of every line.
//! - The typed strict path does not repeat the engine's header errors.

use mini::{Code, Contract, Mini};
use serde::Deserialize;
use serde_json::{json, Value};

fn one_int() -> Contract {
    Contract::from_json(r#"{"prefix": "x", "core": [{"name": "v", "type": "int"}]}"#)
        .expect("contract")
}

#[test]
fn a_negative_n_is_e04_and_stays_in_the_lenient_header() {
    let c = one_int();
    let err = mini::parse("x|n=-1\n7", &c).unwrap_err();
    let found: Vec<String> = err.diagnostics().iter().map(|d| d.to_string()).collect();
    assert_eq!(
        found,
        [
            "E04 document: header declares n=-1 but the document has 1 record line: \
          n must be the number of record lines"
        ]
    );
    let doc = mini::parse_lenient("x|n=-1\n7\n8", &c);
    assert_eq!(doc.to_canonical()["header"]["n"], json!(-1));
    assert_eq!(doc.records().len(), 2);
    let d = doc.diagnostics();
    // a negative n counts nothing: unknown, not 0 (ADR 0006)
    assert_eq!(d.declared_n, None);
    assert_eq!(d.missing_records, None);
    assert_eq!(d.excess_records, None);
    assert_eq!(d.truncated, None);
    assert!(
        d.errors[0].message().contains("2 record lines"),
        "{}",
        d.errors[0]
    );
    // ...unless the last line looks cut
    let d = mini::parse_lenient("x|n=-1\n7|", &c).diagnostics();
    assert_eq!(d.truncated, None, "one field too many is no cut");
}

#[test]
fn an_n_beyond_64_bits_is_e04_and_stays_exact_in_the_lenient_header() {
    let c = one_int();
    let text = "x|n=99999999999999999999\n7";
    let err = mini::parse(text, &c).unwrap_err();
    assert_eq!(err.diagnostics().len(), 1);
    assert_eq!(err.diagnostics()[0].code(), Code::E04);
    assert!(err.diagnostics()[0]
        .message()
        .starts_with("header declares n=99999999999999999999 but the document has 1 record line"));
    let doc = mini::parse_lenient(text, &c);
    let n = &doc.to_canonical()["header"]["n"];
    if mini::ARBITRARY_PRECISION {
        // the exact int
        assert!(n.is_number(), "{n}");
        assert_eq!(n.to_string(), "99999999999999999999");
    } else {
        // never rounded: the digits as written (ADR 0019)
        assert_eq!(n, &json!("99999999999999999999"));
    }
    let d = doc.diagnostics();
    assert_eq!(d.declared_n, None);
    // records are certainly missing, but how many does not fit u64
    assert_eq!(d.truncated, Some(true));
    assert_eq!(d.missing_records, None);
    assert_eq!(d.excess_records, None);
    // a u64 n is still a count: missing is exact
    let d = mini::parse_lenient("x|n=18446744073709551615\n7", &c).diagnostics();
    assert_eq!(d.declared_n, Some(u64::MAX));
    assert_eq!(d.missing_records, Some(u64::MAX - 1));
}

#[derive(Debug, Deserialize, Mini)]
#[mini(prefix = "triage", records = "tickets")]
struct Triage {
    header: TriageHeader,
    tickets: Vec<Ticket>,
}

#[derive(Debug, Deserialize, Mini)]
struct TriageHeader {
    n: u32,
}

#[derive(Debug, Deserialize, Mini)]
struct Ticket {
    #[mini(unique)]
    id: String,
    #[mini(min = 1, max = 5)]
    priority: u8,
    summary: String,
    /// the Rust type is narrower than the contract's int (a typed-only error)
    minutes: i8,
}

#[test]
fn from_str_lenient_keeps_the_valid_records_of_a_cut_answer() {
    let answer = "triage|n=5\nT1|2|login fails|10\nT2|9|refund|5\nT3|1|typo|1\nT4|3|slow pa";
    let got = mini::from_str_lenient::<Triage>(answer).expect("no limit, UTF-8");
    let doc = got.value.expect("the header was read");
    assert_eq!(doc.header.n, 5);
    let ids: Vec<&str> = doc.tickets.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["T1", "T3"]);
    let t3 = &doc.tickets[1];
    assert_eq!(
        (t3.priority, t3.summary.as_str(), t3.minutes),
        (1, "typo", 1)
    );
    let r = &got.report;
    assert!(!r.ok);
    assert_eq!(r.declared_n, Some(5));
    assert_eq!(r.valid_lines, [2, 4]);
    assert_eq!(r.invalid_lines, [3, 5]);
    assert_eq!(r.missing_records, Some(1));
    assert_eq!(r.truncated, Some(true));
    let codes: Vec<(Code, usize)> = r.errors.iter().map(|d| (d.code(), d.line())).collect();
    assert_eq!(codes, [(Code::E13, 3), (Code::E05, 5), (Code::E04, 0)]);
    // the strict read of the same text fails with the same diagnostics
    let strict = mini::from_str::<Triage>(answer).unwrap_err();
    assert_eq!(strict.diagnostics(), &r.errors[..]);
}

#[test]
fn a_value_the_rust_type_refuses_leaves_its_record_out() {
    // 300 is a valid int for the contract, not for an i8
    let text = "triage|n=3\nT1|2|a|10\nT2|3|b|300\nT3|1|c|1";
    let got = mini::from_str_lenient::<Triage>(text).unwrap();
    let doc = got.value.expect("built");
    let ids: Vec<&str> = doc.tickets.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["T1", "T3"]);
    let r = &got.report;
    assert!(!r.ok);
    assert_eq!(r.valid_records, 2);
    assert_eq!(r.valid_lines, [2, 4]);
    assert_eq!(r.invalid_lines, [3]);
    assert_eq!(r.errors.len(), 1, "{:?}", r.errors);
    assert_eq!(r.errors[0].line(), 3);
    // a valid document is the strict read
    let got = mini::from_str_lenient::<Triage>("triage|n=1\nT1|2|a|10").unwrap();
    assert!(got.report.ok);
    assert_eq!(got.value.map(|d| d.tickets.len()), Some(1));
}

#[test]
fn from_str_lenient_without_a_usable_header_has_no_value() {
    let got = mini::from_str_lenient::<Triage>("").unwrap();
    assert!(got.value.is_none());
    assert_eq!(got.report.errors[0].code(), Code::E01);
    // no n: E03, and the header type needs n
    let got = mini::from_str_lenient::<Triage>("triage\nT1|2|a|10").unwrap();
    assert!(got.value.is_none());
    let codes: Vec<Code> = got.report.errors.iter().map(|d| d.code()).collect();
    assert_eq!(codes, [Code::E03]);
    // a limit is the Err
    let long = format!("triage|n=1\nT1|2|{}|1", "a".repeat(2 << 20));
    let e = mini::from_str_lenient::<Triage>(&long).unwrap_err();
    assert_eq!(e.limit_exceeded(), Some(mini::Limit::LineBytes));
}

#[test]
fn from_str_lenient_with_a_run_time_contract() {
    let c = one_int();
    let got = mini::from_str_lenient_with_contract::<Value>("x|n=3\n1\nzz\n3", &c).unwrap();
    let v = got.value.expect("built");
    assert_eq!(v["records"], json!([{"v": 1}, {"v": 3}]));
    assert_eq!(got.report.invalid_lines, [3]);
    assert_eq!(got.report.missing_records, Some(0));
}

#[test]
fn the_typed_path_does_not_repeat_the_engines_header_errors() {
    // E03 alone: no serde "missing field n" after it
    let e = mini::from_str::<Triage>("triage\nT1|2|a|10").unwrap_err();
    let found: Vec<String> = e.diagnostics().iter().map(|d| d.to_string()).collect();
    assert_eq!(found, ["E03 line 1: header must declare n=<record count>"]);
    // an impossible n: the E04 alone, not a serde error for -1 in a u32
    let e = mini::from_str::<Triage>("triage|n=-1\nT1|2|a|10").unwrap_err();
    let codes: Vec<Code> = e.diagnostics().iter().map(|d| d.code()).collect();
    assert_eq!(codes, [Code::E04]);
}

/// A header's `n` sizes the records' vector only up to a cap (1 MiB): an
/// `n` of a quadrillion, or of `u64::MAX`, with one record line reads that
/// line and reports E04, with no allocation that `n` alone would ask for.
#[test]
fn a_huge_n_sizes_no_allocation_alone() {
    let c = one_int();
    for n in ["1000000000000000", "18446744073709551615"] {
        let text = format!("x|n={n}\n7");
        let doc = mini::parse_lenient(&text, &c);
        assert_eq!(doc.records().len(), 1, "{n}");
        let err = mini::parse(&text, &c).unwrap_err();
        assert_eq!(err.diagnostics()[0].code(), Code::E04, "{n}");
    }
}
