//! Runs every example of `docs/contract.md`, so that the contract reference
//! cannot drift from the loader and the engine.
//!
//! The page's convention: a ` ```json ` block is a contract; a ` ```text `
//! block after it is a document parsed strictly with the last contract; a
//! line starting with `**Result:**` says what the block just above gives:
//! `valid` (optionally `, first record `{…}``: the first canonical record)
//! or every diagnostic, each in backticks, as `Display` renders it. A
//! `**Result:**` right after a `json` block is the contract's own load
//! (its E20 errors).

use mini::Contract;
use serde_json::Value;

const PAGE: &str = include_str!("../../../docs/contract.md");

enum Pending {
    None,
    Contract,
    Document(String),
}

/// The backticked items of a result line.
fn backticked(s: &str) -> Vec<String> {
    s.split('`')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, t)| t.to_string())
        .collect()
}

/// What the page claims, compared with what happened (`Ok(first record)` or
/// the rendered diagnostics).
fn judge(
    claim: &str,
    got: Result<Option<Value>, Vec<String>>,
    what: &str,
    fails: &mut Vec<String>,
) {
    let caught = std::panic::catch_unwind(|| judge_one(claim, got, what));
    if let Err(e) = caught {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        fails.push(msg);
    }
}

fn judge_one(claim: &str, got: Result<Option<Value>, Vec<String>>, what: &str) {
    let claim = claim.trim();
    if let Some(rest) = claim.strip_prefix("valid") {
        let first = match got {
            Ok(first) => first,
            Err(errors) => panic!("{what}: the page says valid, got {errors:#?}"),
        };
        if let Some(json) = rest.split("first record").nth(1) {
            let expected: Value = serde_json::from_str(&backticked(json)[0])
                .unwrap_or_else(|e| panic!("{what}: bad JSON in the page: {e}"));
            assert_eq!(first, Some(expected), "{what}: first record");
        }
    } else {
        let expected = backticked(claim);
        assert!(!expected.is_empty(), "{what}: result line without errors");
        match got {
            Ok(_) => panic!("{what}: the page says {expected:#?}, the text is valid"),
            Err(errors) => assert_eq!(errors, expected, "{what}"),
        }
    }
}

fn rendered(e: &mini::Error) -> Vec<String> {
    e.diagnostics().iter().map(ToString::to_string).collect()
}

#[test]
fn every_example_of_the_contract_reference_behaves_as_written() {
    let mut lines = PAGE.lines().enumerate();
    let mut json: Option<String> = None;
    let mut pending = Pending::None;
    let (mut contracts, mut documents) = (0, 0);
    let mut fails = Vec::new();
    while let Some((no, line)) = lines.next() {
        let what = format!("docs/contract.md:{}", no + 1);
        if line == "```json" || line == "```text" {
            let block: Vec<&str> = lines
                .by_ref()
                .map(|(_, l)| l)
                .take_while(|l| *l != "```")
                .collect();
            let block = block.join("\n");
            if line == "```json" {
                // a json block that no result line judges must still load
                if matches!(pending, Pending::Contract) {
                    let j = json.take().unwrap_or_default();
                    Contract::from_json(&j).unwrap_or_else(|e| panic!("{what}: {e}"));
                }
                json = Some(block);
                pending = Pending::Contract;
            } else {
                pending = Pending::Document(block);
            }
            continue;
        }
        let Some(claim) = line.strip_prefix("**Result:**") else {
            continue;
        };
        let source = json
            .as_deref()
            .unwrap_or_else(|| panic!("{what}: no contract above"));
        match std::mem::replace(&mut pending, Pending::None) {
            Pending::None => panic!("{what}: a result line with no block above"),
            Pending::Contract => {
                contracts += 1;
                let got = Contract::from_json(source)
                    .map(|_| None)
                    .map_err(|e| rendered(&e));
                judge(claim, got, &what, &mut fails);
            }
            Pending::Document(text) => {
                documents += 1;
                let contract =
                    Contract::from_json(source).unwrap_or_else(|e| panic!("{what}: {e}"));
                let got = mini::parse(&text, &contract)
                    .map(|doc| doc.to_canonical()[contract.records_key()].get(0).cloned())
                    .map_err(|e| rendered(&e));
                judge(claim, got, &what, &mut fails);
            }
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n\n"));
    // the page has one example per rule: a parser change that drops them
    // would otherwise pass silently
    assert!(
        contracts >= 1 && documents >= 25,
        "{contracts} contracts, {documents} documents"
    );
}
