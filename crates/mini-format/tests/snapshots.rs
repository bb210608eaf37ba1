//! Snapshots of rendered messages: for each case, every diagnostic as
//! `Display` renders it and as JSON (serde), in a plain file under
//! `tests/snapshots/<case>.txt`. A wording change is then a visible diff in
//! review. `MINI_BLESS=1 cargo test -p mini-format --test snapshots`
//! rewrites the files from what the code says now.

use std::path::PathBuf;

use mini::Contract;

/// A contract with a bit of everything the message rules need.
const C: &str = r#"{
    "prefix": "t", "records_key": "rows",
    "header": {"keys": {"k": {"type": "int"}}},
    "core": [
        {"name": "id", "type": "str", "unique": true},
        {"name": "qty", "type": "int", "min": 0},
        {"name": "price", "type": "decimal"},
        {"name": "options", "type": "mlist", "count_key": "k",
         "json": {"items": "options", "selected": "answer"}},
        {"name": "note", "type": "str"}
    ],
    "extensions": [{"name": "memo", "type": "str"}]
}"#;

/// `(case, document)`: each one message rule.
const CASES: &[(&str, &str)] = &[
    // E05: the last line stops early (the answer was cut)
    (
        "e05_truncated_last_line",
        "t|n=2|k=2\na|1|2.50|x*,y|fine\nb|2|3.5",
    ),
    // E05: a middle line lacks fields (not a cut)
    (
        "e05_missing_fields",
        "t|n=2|k=2\na|1|2.50\nb|2|3.5|x*,y|fine",
    ),
    // E05: more fields than core + extensions
    (
        "e05_extra_fields",
        "t|n=1|k=2\na|1|2.50|x*,y|fine|memo|more|again",
    ),
    // E09: an invalid escape, in a field and in a list element
    (
        "e09_escape",
        "t|n=2|k=2\na|1|2.50|x*,y|bad \\q escape\nb|2|3.5|x\\;*,y|fine",
    ),
    // E04: a document-level error (line 0)
    ("e04_count", "t|n=3|k=2\na|1|2.50|x*,y|fine"),
    // E01: the empty document
    ("e01_empty", ""),
    // E06: the quoted scalar trap
    ("e06_quoted_scalar", "t|n=1|k=2\na|1|\"12.50\"|x*,y|fine"),
    // E04: plural record lines
    (
        "e04_count_plural",
        "t|n=1|k=2\na|1|2.50|x*,y|fine\nb|2|3.5|x*,y|fine",
    ),
    // E04: an n no count can equal (negative; beyond 64 bits), singular
    ("e04_negative_n", "t|n=-1|k=2\na|1|2.50|x*,y|fine"),
    (
        "e04_n_beyond_64_bits",
        "t|n=99999999999999999999|k=2\na|1|2.50|x*,y|fine\nb|2|3.5|x*,y|fine",
    ),
    // a model's answer read without extract: prose before the header
    (
        "hint_prose_first_line",
        "Sure! Here is the list you asked for:\nt|n=1|k=2\na|1|2.50|x*,y|fine",
    ),
    // a fence before the header, and the closing fence as the last line
    (
        "hint_fenced_answer",
        "```mini\nt|n=1|k=2\na|1|2.50|x*,y|fine\n```",
    ),
    // prose after the last record
    (
        "hint_prose_last_line",
        "t|n=1|k=2\na|1|2.50|x*,y|fine\nLet me know if you need anything else!",
    ),
];

/// Contract errors (E20, line 0).
const CONTRACTS: &[(&str, &str)] = &[(
    "e20_contract",
    r#"{"prefix": "9", "core": [{"name": "a", "type": "money"}]}"#,
)];

fn render(diags: &[mini::Diagnostic]) -> String {
    let mut out = String::from("# Display\n");
    for d in diags {
        out.push_str(&d.to_string());
        out.push('\n');
    }
    out.push_str("# JSON\n");
    for d in diags {
        out.push_str(&serde_json::to_string(d).expect("a diagnostic serializes"));
        out.push('\n');
    }
    out
}

fn check(name: &str, got: &str, stale: &mut Vec<String>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("MINI_BLESS").is_some() {
        std::fs::write(&path, got).expect("write snapshot");
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if want != got {
        stale.push(format!(
            "{}:\n--- snapshot\n{want}--- now\n{got}",
            path.display()
        ));
    }
}

#[test]
fn rendered_messages_match_their_snapshots() {
    let contract = Contract::from_json(C).expect("test contract");
    let mut stale = Vec::new();
    for (name, text) in CASES {
        let err = mini::parse(text, &contract).expect_err(name);
        assert!(!err.diagnostics().is_empty(), "{name}");
        check(name, &render(err.diagnostics()), &mut stale);
    }
    for (name, json) in CONTRACTS {
        let err = Contract::from_json(json).expect_err(name);
        check(name, &render(err.diagnostics()), &mut stale);
    }
    assert!(
        stale.is_empty(),
        "messages changed (MINI_BLESS=1 rewrites the snapshots):\n{}",
        stale.join("\n")
    );
}

/// Every snapshot file belongs to a case (a renamed case leaves none behind).
#[test]
fn no_orphan_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let names: Vec<&str> = CASES.iter().chain(CONTRACTS).map(|(n, _)| *n).collect();
    for entry in std::fs::read_dir(dir).expect("tests/snapshots") {
        let path = entry.expect("entry").path();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        assert!(names.contains(&stem), "orphan snapshot {}", path.display());
    }
}
