//! Three upstream families (`a`, `cls`, `r`) written as Rust structs deriving
//! `mini::Mini`: fixtures through `from_str` / `to_string`, the suite's
//! expected errors, and `T::contract()` equivalent to the family's contract.

use std::collections::BTreeSet;
use std::path::PathBuf;

use mini::contract::{Contract, Kind};
use mini::Mini;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------- family a
#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "a", records = "items")]
struct ADoc {
    header: AHeader,
    items: Vec<AItem>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct AHeader {
    n: u32,
    v: u32,
    m: Option<String>,
    d: Option<String>,
    l: Option<String>,
    t: Option<String>,
    bd: Option<Vec<i64>>,
    cat: Option<CatPolicy>,
    k: Option<u32>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct CatPolicy {
    theta_init: f64,
    theta_min: f64,
    theta_max: f64,
    se_stop: f64,
    max_items: i64,
    exposure_ctrl: String,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct AItem {
    #[mini(unique)]
    id: String,
    bloom: Bloom,
    topic: String,
    statement: String,
    #[mini(
        mlist = "exactly_one",
        selected = "correct",
        count_key = "k",
        min = 2,
        max = 6
    )]
    options: Vec<String>,
    correct: usize,
    irt: Irt,
    #[mini(min = 1, max = 5)]
    difficulty: u8,
    cat: ItemCat,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
enum Bloom {
    L1,
    L2,
    L3,
    L4,
    L5,
    L6,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct Irt {
    a: f64,
    b: f64,
    c: f64,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct ItemCat {
    area: String,
    exposure_cap: f64,
    demand: Demand,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
#[serde(rename_all = "lowercase")]
enum Demand {
    Low,
    Medium,
    High,
}

// -------------------------------------------------------------- family cls
#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "cls", records = "messages")]
struct ClsDoc {
    header: ClsHeader,
    messages: Vec<Message>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct ClsHeader {
    n: u32,
    v: u32,
    d: Option<String>,
    l: Option<String>,
    model: Option<String>,
    k: Option<u32>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct Message {
    #[mini(unique)]
    id: String,
    text: String,
    #[mini(mlist = "at_least_one", selected = "selected", count_key = "k")]
    labels: Vec<String>,
    selected: Vec<usize>,
    #[mini(min = 0, max = 1)]
    conf: f64,
    rationale: Option<String>,
}

// ---------------------------------------------------------------- family r
#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "r", records = "criteria")]
struct RDoc {
    header: RHeader,
    criteria: Vec<Criterion>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct RHeader {
    n: u32,
    v: u32,
    d: Option<String>,
    l: Option<String>,
    t: Option<String>,
    k: u32,
    scale: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
struct Criterion {
    #[mini(unique)]
    id: String,
    dimension: String,
    criterion: String,
    #[mini(count_key = "k")]
    levels: Vec<String>,
    #[mini(min = 0, max = 1)]
    weight: f64,
    evidence: String,
}

// ----------------------------------------------------------------- harness
fn suite() -> PathBuf {
    std::env::var_os("MINI_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join("../shared/conformance")
        })
}

fn fixture(family: &str, file: &str) -> String {
    let p = suite()
        .join("forks")
        .join(family)
        .join("fixtures")
        .join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The (code, line) pairs the suite expects for `fx-<family>-<bad>`.
fn expected_errors(family: &str, bad: &str) -> BTreeSet<(String, usize)> {
    let cases: Value = serde_json::from_str(
        &std::fs::read_to_string(suite().join("cases/fixtures.json")).unwrap(),
    )
    .unwrap();
    let id = format!("fx-{family}-{bad}");
    let case = cases["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id.as_str())
        .unwrap_or_else(|| panic!("no case {id}"));
    case["expected"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["code"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

/// A contract's structure without descriptions and cosmetic keys.
fn structure(c: &Contract) -> String {
    let strip = |k: &Kind| -> Kind {
        let mut k = k.clone();
        if let Kind::Tuple(comps) = &mut k {
            for c in comps {
                c.desc = None;
            }
        }
        k
    };
    let mut out = format!(
        "prefix={} records={} sep={:?} version={}\n",
        c.prefix(),
        c.records_key(),
        c.separator(),
        c.version()
    );
    for f in c.fields() {
        out += &format!(
            "field {} {:?} optional={} unique={} extension={}\n",
            f.name,
            strip(&f.kind),
            f.optional,
            f.unique,
            f.extension
        );
    }
    let mut keys: Vec<String> = c
        .header_keys()
        .iter()
        .map(|h| {
            format!(
                "key {} {:?} required={} default={:?}",
                h.name,
                strip(&h.kind),
                h.required,
                h.default
            )
        })
        .collect();
    keys.sort();
    out + &keys.join("\n")
}

fn check_family<D>(family: &str, bads: &[&str])
where
    D: mini::MiniDocument + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let valid = fixture(family, "valid.mini");
    let canonical = fixture(family, "canonical.json");

    // valid.mini → structs == canonical.json → structs
    let from_mini: D = mini::from_str(&valid).unwrap_or_else(|e| panic!("{family}: {e}"));
    let from_json: D = serde_json::from_str(&canonical).unwrap();
    assert_eq!(from_mini, from_json, "{family}: typed values differ");

    // structs → .mini, byte for byte
    assert_eq!(
        mini::to_string(&from_mini).unwrap(),
        valid.trim_end_matches('\n'),
        "{family}"
    );

    // each bad fixture fails with the suite's codes and lines
    for bad in bads {
        let text = fixture(family, &format!("{bad}.mini"));
        let err = mini::from_str::<D>(&text).expect_err(bad);
        let got: BTreeSet<(String, usize)> = err
            .diagnostics()
            .iter()
            .map(|d| (d.code().to_string(), d.line()))
            .collect();
        assert_eq!(got, expected_errors(family, bad), "{family}/{bad}: {err}");
    }

    // the derived contract is the family's contract
    let file =
        Contract::from_path(suite().join("forks").join(family).join("contract.json")).unwrap();
    assert_eq!(
        structure(&D::contract()),
        structure(&file),
        "{family}: contract differs"
    );
    // and its JSON is a contract the dynamic API accepts, with the same results
    let json = serde_json::to_string(&D::contract()).unwrap();
    let reloaded = Contract::from_json(&json).unwrap();
    let a = mini::parse(&valid, &reloaded).unwrap().to_canonical();
    let b = mini::parse(&valid, &file).unwrap().to_canonical();
    assert!(
        mini::value::equivalent(&a, &b),
        "{family}: dynamic results differ"
    );
}

#[test]
fn family_a_as_structs() {
    check_family::<ADoc>("a", &["bad_arity", "bad_count", "bad_marker", "bad_type"]);
}

#[test]
fn family_cls_as_structs() {
    check_family::<ClsDoc>("cls", &["bad_arity", "bad_count", "bad_marker", "bad_type"]);
}

#[test]
fn family_r_as_structs() {
    check_family::<RDoc>("r", &["bad_arity", "bad_count", "bad_type"]);
}

#[test]
fn escaping_fixture_round_trips_through_structs() {
    let text = fixture("a", "escaping.mini");
    let doc: ADoc = mini::from_str(&text).unwrap();
    assert_eq!(
        doc.items[0].topic,
        "pipe | and back\\slash, comma, \"quotes\", star* and newline\nend"
    );
    assert_eq!(doc.items[0].options[0], "a, b | c \\ d*");
    assert_eq!(mini::to_string(&doc).unwrap(), text.trim_end_matches('\n'));
}

#[test]
fn typed_errors_carry_code_line_field_and_path() {
    let mut text = fixture("a", "valid.mini");
    text = text.replacen("|0.9,-1,0.25|1|", "|0.9,-1,0.25|9|", 1);
    let err = mini::from_str::<ADoc>(&text).unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!(
        (d.code(), d.line(), d.field()),
        (mini::Code::E13, 2, Some("difficulty"))
    );
    assert_eq!(d.to_string(), "E13 line 2 [difficulty]: 9 > max 5");
}

#[test]
fn rust_integer_range_is_e13_with_the_serde_path() {
    // the contract has no max for `max_items` (i64), but a 30-digit value does
    // not fit the Rust type
    let text = fixture("a", "valid.mini").replacen(
        "cat=0,-3,3,0.3,12,SH",
        "cat=0,-3,3,0.3,123456789012345678901234567890,SH",
        1,
    );
    let err = mini::from_str::<ADoc>(&text).unwrap_err();
    let d = &err.diagnostics()[0];
    // ADR 0019: without `arbitrary_precision`, 30 digits are E06 for any type
    #[cfg(not(feature = "arbitrary_precision"))]
    assert_eq!((d.code(), d.line()), (mini::Code::E06, 1));
    #[cfg(feature = "arbitrary_precision")]
    {
        assert_eq!((d.code(), d.line()), (mini::Code::E13, 1));
        assert!(d.path().unwrap().starts_with("header.cat."), "{d:?}");
    }
    // a record field: `correct` is fine, `max_items`-like ints in records are
    // checked too (difficulty is u8 with a contract range, so use a bigger value)
    let text = fixture("a", "valid.mini").replacen("|0.9,-1,0.25|1|", "|0.9,-1,0.25|300|", 1);
    let err = mini::from_str::<ADoc>(&text).unwrap_err();
    assert_eq!(err.diagnostics()[0].code(), mini::Code::E13);
}

/// Strict decoding reports every error of the document: serde reads
/// records until the first line that breaks a rule (or whose value the Rust
/// type refuses); from there the engine checks every line left, as
/// `mini::parse` does (ADR 0024). A Rust type error on a line after the
/// first broken one is not seen (serde has stopped reading).
#[test]
fn every_error_of_the_document_is_reported_after_the_first() {
    #[derive(Debug, Deserialize)]
    struct Row {
        #[allow(dead_code)]
        id: u32,
        #[allow(dead_code)]
        v: u8,
    }
    #[derive(Debug, Deserialize)]
    struct Doc {
        #[allow(dead_code)]
        records: Vec<Row>,
    }
    let c = Contract::from_json(
        r#"{"prefix": "t", "core": [{"name": "id", "type": "int"}, {"name": "v", "type": "int"}]}"#,
    )
    .unwrap();
    // record lines 2..=101; line 41 and line 76 are invalid for the
    // contract; line 71 is valid for it but 300 does not fit a u8
    let mut text = String::from("t|n=100");
    for line in 2..=101 {
        let rec = match line {
            41 | 76 => format!("x{line}|1"),
            71 => format!("{line}|300"),
            _ => format!("{line}|1"),
        };
        text.push('\n');
        text.push_str(&rec);
    }
    let err = mini::from_str_with_contract::<Doc>(&text, &c).unwrap_err();
    let got: Vec<(mini::Code, usize)> = err
        .diagnostics()
        .iter()
        .map(|d| (d.code(), d.line()))
        .collect();
    assert_eq!(got, [(mini::Code::E06, 41), (mini::Code::E06, 76)], "{err}");

    // serde's refusal first, then the contract errors after it
    let later = text.replace("x41|1", "41|1");
    let err = mini::from_str_with_contract::<Doc>(&later, &c).unwrap_err();
    let got: Vec<(mini::Code, usize)> = err
        .diagnostics()
        .iter()
        .map(|d| (d.code(), d.line()))
        .collect();
    assert_eq!(got, [(mini::Code::E13, 71), (mini::Code::E06, 76)], "{err}");

    // without a serde failure, every line is checked and reported
    let text = text.replace("71|300", "71|3");
    let err = mini::from_str_with_contract::<Doc>(&text, &c).unwrap_err();
    let lines: Vec<usize> = err.diagnostics().iter().map(|d| d.line()).collect();
    assert_eq!(lines, [41, 76], "{err}");
}
