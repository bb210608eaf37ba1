//! The typed path agrees with the dynamic path on every strict and lenient
//! case of the upstream suite (issue 13, proof of equivalence): decoding a
//! case's text with `from_str_with_contract` into a value-shaped type gives
//! the canonical object of `parse` when the document is valid, and exactly
//! the diagnostics of the strict parse when it is not.

use std::collections::BTreeSet;
use std::path::PathBuf;

use mini::Contract;
use serde_json::Value;

fn suite() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
    }
}

/// The canonical object without the keys whose value is `null` (the typed
/// reading leaves an absent value out so that serde applies `None`).
fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

type Diag = (String, usize, Option<String>);

fn diags(e: &mini::Error) -> BTreeSet<Diag> {
    e.diagnostics()
        .iter()
        .map(|d| {
            (
                d.code().to_string(),
                d.line(),
                d.field().map(str::to_string),
            )
        })
        .collect()
}

#[test]
fn typed_and_dynamic_paths_agree_on_the_upstream_cases() {
    let dir = suite();
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("cases"))
        .expect("the upstream suite (../shared/conformance or MINI_CONFORMANCE)")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut valid, mut invalid) = (0, 0);
    let mut failures = Vec::new();
    for file in files {
        let cases: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for case in cases["cases"].as_array().unwrap() {
            let mode = case["mode"].as_str().unwrap_or("");
            let Some(text) = case["input"].as_str() else {
                continue;
            };
            if mode != "strict" && mode != "lenient" {
                continue;
            }
            let contract = match (&case["contract"], case["family"].as_str()) {
                (Value::Object(_), _) => Contract::from_value(case["contract"].clone()),
                (_, Some(f)) => {
                    Contract::from_path(dir.join("forks").join(f).join("contract.json"))
                }
                _ => continue,
            };
            let Ok(c) = contract else { continue };
            let id = case["id"].as_str().unwrap_or("?");
            let typed = mini::from_str_with_contract::<Value>(text, &c);
            match (mini::parse(text, &c), typed) {
                (Ok(doc), Ok(v)) => {
                    valid += 1;
                    let want = without_nulls(&doc.to_canonical());
                    if !mini::value::equivalent(&without_nulls(&v), &want) {
                        failures.push(format!("{id}: typed {v} vs canonical {want}"));
                    }
                }
                (Err(a), Err(b)) => {
                    invalid += 1;
                    if diags(&a) != diags(&b) {
                        failures.push(format!(
                            "{id}: parse {:?} vs typed {:?}",
                            diags(&a),
                            diags(&b)
                        ));
                    }
                }
                (a, b) => failures.push(format!(
                    "{id}: parse {} but typed {}",
                    if a.is_ok() { "accepts" } else { "rejects" },
                    if b.is_ok() { "accepts" } else { "rejects" }
                )),
            }
        }
    }
    println!("typed = dynamic: {valid} valid and {invalid} invalid documents compared");
    assert!(
        valid > 50 && invalid > 50,
        "{valid} valid, {invalid} invalid"
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
