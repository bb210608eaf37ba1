//! A unit enum read by the derive's direct reader through its packed
//! names (ADR 0066): every variant comes back as itself, whatever the
//! length of its name (one of more than fifteen bytes leaves the packed
//! search to the name match), under the type's own contract and under one
//! whose values are the same names in another order, and the result is
//! the one serde's path gives.

use mini::__private::direct::{from_str_through_serde, Probe, ViaDirectDocument as _};
use mini::Mini;
use serde::{Deserialize, Serialize};

/// Names of one to fifteen bytes, renamed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Mini)]
#[serde(rename_all = "snake_case")]
enum Stage {
    A,
    Draft,
    InReview,
    #[serde(rename = "fifteen_bytes_x")]
    Fifteen,
    Done,
}

const STAGES: [Stage; 5] = [
    Stage::A,
    Stage::Draft,
    Stage::InReview,
    Stage::Fifteen,
    Stage::Done,
];

/// One name of more than fifteen bytes: no name is packed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Mini)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Open,
    UnderReviewByTheBoard,
    Closed,
}

const VERDICTS: [Verdict; 3] = [
    Verdict::Open,
    Verdict::UnderReviewByTheBoard,
    Verdict::Closed,
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct Head {
    n: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "st", records = "items")]
struct Doc {
    header: Head,
    items: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct Item {
    id: u32,
    stage: Stage,
    verdict: Verdict,
}

/// Every pair of a stage and a verdict, one record each.
fn every_pair() -> Doc {
    let items: Vec<Item> = STAGES
        .iter()
        .flat_map(|&stage| VERDICTS.iter().map(move |&verdict| (stage, verdict)))
        .enumerate()
        .map(|(k, (stage, verdict))| Item {
            id: k as u32,
            stage,
            verdict,
        })
        .collect();
    Doc {
        header: Head {
            n: items.len() as u64,
        },
        items,
    }
}

/// `text` read under `contract` by the derive's direct reader (which
/// `mini::from_str_with_contract` may leave for serde's path).
fn direct(text: &str, contract: &mini::Contract) -> mini::Result<Doc> {
    let mut de = mini::Deserializer::new(text, contract);
    let value = Probe::<Doc>::new()
        .read_document(&mut de)
        .expect("Doc has a direct reader");
    de.end(value)
}

/// `Doc`'s own contract with the `stage` field's values replaced by
/// `values`.
fn with_stages(values: serde_json::Value) -> mini::Contract {
    let mut json = Doc::contract().to_value().clone();
    let fields = json["core"].as_array_mut().expect("core fields");
    let stage = fields
        .iter_mut()
        .find(|f| f["name"] == "stage")
        .expect("a stage field");
    let own: Vec<String> = STAGES.iter().map(stage_name).collect();
    assert_eq!(
        stage["values"],
        serde_json::json!(own),
        "the type's own names"
    );
    stage["values"] = values;
    mini::Contract::from_json(&json.to_string()).expect("a contract")
}

/// The name serde writes for `stage`.
fn stage_name(stage: &Stage) -> String {
    serde_json::to_value(stage)
        .expect("a name")
        .as_str()
        .expect("a string")
        .to_owned()
}

#[test]
fn every_variant_reads_as_itself_under_its_own_contract() {
    let doc = every_pair();
    let text = mini::to_string(&doc).expect("valid");
    assert!(
        text.contains("|fifteen_bytes_x|under_review_by_the_board"),
        "{text}"
    );
    let direct: Doc = mini::from_str(&text).expect("valid");
    assert_eq!(direct, doc);
    let serde: Doc = from_str_through_serde(&text).expect("valid");
    assert_eq!(serde, doc);
}

/// Under a contract that lists the same names in reverse order, no name
/// stands at its variant's index (but the middle one): the packed index
/// must not be taken for the contract's, and every variant still reads as
/// itself.
#[test]
fn every_variant_reads_as_itself_under_a_reordered_contract() {
    let names: Vec<String> = STAGES.iter().rev().map(stage_name).collect();
    let reordered = with_stages(serde_json::json!(names));
    let doc = every_pair();
    let text = mini::to_string(&doc).expect("valid");
    assert_eq!(direct(&text, &reordered).expect("valid"), doc);
}

/// A name the contract lacks breaks E10 on its line, whichever place the
/// packed search finds it at.
#[test]
fn a_name_the_contract_lacks_breaks_e10() {
    // `draft` (index 1 of the type) left out: `in_review` now stands at 1
    let narrow = with_stages(serde_json::json!([
        "a",
        "in_review",
        "fifteen_bytes_x",
        "done"
    ]));
    let mut doc = every_pair();
    doc.items.truncate(2);
    doc.header.n = 2;
    doc.items[1].stage = Stage::Draft;
    let text = mini::to_string(&doc).expect("valid");
    let err = direct(&text, &narrow).expect_err("draft is not allowed");
    assert_eq!(err.code(), Some(mini::Code::E10), "{err}");
    let first = &err.diagnostics()[0];
    assert_eq!((first.line(), first.field()), (3, Some("stage")), "{err}");
    doc.items[1].stage = Stage::InReview;
    let text = mini::to_string(&doc).expect("valid");
    assert_eq!(direct(&text, &narrow).expect("valid"), doc);
}
