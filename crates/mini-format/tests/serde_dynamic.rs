//! The serde path with a contract loaded at run time (no derive):
//! `from_str_with_contract`, `to_string_with_contract`, and equality with the dynamic path.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

const QUIZ: &str = include_str!("../../../examples/forks/quiz/contract.json");
const QUIZ_DOC: &str = include_str!("../../../examples/quiz.mini");

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Quiz<'a> {
    #[serde(borrow)]
    header: Header<'a>,
    #[serde(borrow)]
    items: Vec<Question<'a>>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Header<'a> {
    n: u32,
    k: u8,
    #[serde(borrow)]
    topic: Option<Cow<'a, str>>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Question<'a> {
    id: &'a str,
    #[serde(borrow)]
    stem: Cow<'a, str>,
    options: Vec<String>,
    answer: usize,
    level: u8,
    level_name: Level,
    tags: Vec<String>,
    irt: Irt,
    note: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Level {
    Remember,
    Understand,
    Apply,
    Analyze,
    Evaluate,
    Create,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Irt {
    a: f64,
    b: f64,
    c: f64,
}

fn contract() -> mini::Contract {
    mini::Contract::from_json(QUIZ).unwrap()
}

#[test]
fn typed_equals_dynamic_then_json() {
    let c = contract();
    let typed: Quiz = mini::from_str_with_contract(QUIZ_DOC, &c).unwrap();
    let canonical = mini::parse(QUIZ_DOC, &c).unwrap().to_canonical();
    let json_text = canonical.to_string();
    let via_json: Quiz = serde_json::from_str(&json_text).unwrap();
    assert_eq!(typed.items.len(), 4);
    assert_eq!(typed.items[1].answer, 1);
    assert_eq!(typed.items[1].options[3], "hydrogen, as H2");
    assert_eq!(
        typed.items[2].note.as_deref(),
        Some("ask for the | notation too")
    );
    assert_eq!(
        typed.items[0].irt,
        Irt {
            a: 0.9,
            b: -1.0,
            c: 0.25
        }
    );
    assert_eq!(typed.items[0].level_name, Level::Remember);
    assert_eq!(typed.header.topic.as_deref(), Some("photosynthesis"));
    assert_eq!(typed.items.len(), via_json.items.len());
    for (a, b) in typed.items.iter().zip(&via_json.items) {
        assert_eq!(a.id, b.id);
        assert_eq!(a.options, b.options);
        assert_eq!(a.irt, b.irt);
    }
}

#[test]
fn unescaped_strings_borrow_and_escaped_ones_own() {
    let c = contract();
    let text = "quiz|n=1|k=2\nq1|plain stem|a*,b|1|apply||1,1,0\n";
    let q: Quiz = mini::from_str_with_contract(text, &c).unwrap();
    assert!(matches!(q.items[0].stem, Cow::Borrowed("plain stem")));
    let text = "quiz|n=1|k=2\nq1|pipe \\| stem|a*,b|1|apply||1,1,0\n";
    let q: Quiz = mini::from_str_with_contract(text, &c).unwrap();
    assert!(matches!(&q.items[0].stem, Cow::Owned(s) if s == "pipe | stem"));
}

#[test]
fn every_error_is_reported_with_line_field_and_path() {
    let c = contract();
    let text =
        "quiz|n=3|k=2\nq1|s|a*,b|9|apply||1,1,0\nq2|s|a,b|1|apply||1,1,0\nq3|s|a*,b|1|apply||1,1,0";
    let err = mini::from_str_with_contract::<Quiz>(text, &c).unwrap_err();
    let got: Vec<(String, usize, Option<&str>)> = err
        .diagnostics()
        .iter()
        .map(|d| (d.code().to_string(), d.line(), d.field()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("E13".to_string(), 2, Some("level")),
            ("E08".to_string(), 3, Some("options"))
        ]
    );
}

#[test]
fn rust_integer_ranges_are_e13_with_the_serde_path() {
    let c = contract();
    // k=300 does not fit the header's u8: E13 at the header line; level fits the
    // contract (1..5) and u8.
    let text = "quiz|n=1|k=300\nq1|s|a*,b|1|apply||1,1,0";
    let err = mini::from_str_with_contract::<Quiz>(text, &c).unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!(
        (d.code(), d.line(), d.field(), d.path()),
        (mini::Code::E13, 1, Some("k"), Some("header.k"))
    );
}

#[test]
fn serializer_matches_dumps() {
    let c = contract();
    let q: Quiz = mini::from_str_with_contract(QUIZ_DOC, &c).unwrap();
    let text = mini::to_string_with_contract(&q, &c).unwrap();
    let canonical = mini::parse(QUIZ_DOC, &c).unwrap().to_canonical();
    assert_eq!(text, mini::dumps(&canonical, &c).unwrap());
}

#[test]
fn into_json_value_without_any_struct() {
    let c = contract();
    let v: serde_json::Value = mini::from_str_with_contract(QUIZ_DOC, &c).unwrap();
    let canonical = mini::parse(QUIZ_DOC, &c).unwrap().to_canonical();
    assert!(mini::value::equivalent(&v, &canonical), "{v}");
}
