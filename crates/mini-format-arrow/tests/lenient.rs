//! Strict and lenient conversion of damaged documents: strict stops at the
//! first problem with its code, line and field; lenient keeps every valid
//! record and returns every problem beside the batches, never silently.

mod common;

use common::*;
use mini_arrow::{Converter, Input, Options};

fn lenient() -> Options {
    Options {
        lenient: true,
        source: true,
        ..Options::default()
    }
}

#[test]
fn every_bad_fixture_keeps_its_valid_records_and_reports_the_rest() {
    let mut seen = 0;
    for (prefix, contract, dir) in families() {
        let conv = Converter::new(&contract, lenient()).unwrap();
        let strict = Converter::new(&contract, Options::default()).unwrap();
        for entry in std::fs::read_dir(dir.join("fixtures")).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("bad_") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // what the core keeps and reports is what the conversion keeps and reports
            let doc = mini::parse_lenient(&text, &contract);
            let mut batches = conv.batches([Input::text(name.clone(), &text)]);
            let rows: Vec<_> = batches
                .by_ref()
                .map(|b| b.unwrap())
                .flat_map(|b| mini_arrow::to_json_rows(&b).unwrap())
                .collect();
            let summary = batches.into_summary();
            assert_eq!(rows.len(), doc.records().len(), "{prefix}/{name}");
            for (row, rec) in rows.iter().zip(doc.records()) {
                assert_eq!(row["source_line"], rec.line as u64);
                assert_same(
                    &serde_json::Value::Object(rec.value.clone()),
                    &serde_json::Value::Object(record_of(row, &contract)),
                    &name,
                );
            }
            let codes: Vec<_> = summary
                .diagnostics
                .iter()
                .map(|d| (d.code, d.line))
                .collect();
            let want: Vec<_> = doc
                .errors()
                .iter()
                .map(|d| (Some(d.code()), d.line()))
                .collect();
            assert_eq!(codes, want, "{prefix}/{name}");
            assert!(!want.is_empty());
            assert!(summary
                .diagnostics
                .iter()
                .all(|d| d.source == name && d.to_string().starts_with(&name)));
            // strict: an error, the first problem with its code and line
            let err = strict.read_str(&text).unwrap_err();
            let first = &err.diagnostics()[0];
            assert_eq!((first.code, first.line), want[0], "{prefix}/{name}: {err}");
            seen += 1;
        }
    }
    assert!(seen >= 40, "bad fixtures seen: {seen}");
}

#[test]
fn damaged_documents_among_good_ones() {
    let families = families();
    let (_, contract, dir) = families.iter().find(|f| f.0 == "cat").unwrap();
    let good = std::fs::read_to_string(dir.join("fixtures/valid.mini")).unwrap();
    let n_good = mini::parse(&good, contract).unwrap().records().len();
    // a cut answer (the last line unterminated and broken), a wrong
    // prefix, invalid UTF-8, a missing file, an empty document
    let cut: String = good.lines().take(3).collect::<Vec<_>>().join("\n") + "|broken";
    let wrong = good.replacen("cat|", "dog|", 1);
    let mut bad_utf8 = good.clone().into_bytes();
    let at =
        good.find('\n').unwrap() + good[good.find('\n').unwrap() + 1..].find('\n').unwrap() + 2;
    bad_utf8.insert(at + 1, 0xff);
    let inputs = vec![
        Input::text("good.mini", &good),
        Input::text("cut.mini", &cut),
        Input::text("wrong.mini", &wrong),
        Input::reader("utf8.mini", &bad_utf8[..]),
        Input::file("/nonexistent/missing.mini"),
        Input::text("empty.mini", ""),
        Input::text("good2.mini", &good),
    ];
    let conv = Converter::new(
        contract,
        Options {
            batch_size: 4,
            ..lenient()
        },
    )
    .unwrap();
    let mut out = Vec::new();
    let summary = conv.write_parquet(inputs, &mut out).unwrap();
    let sources: std::collections::BTreeSet<_> = summary
        .diagnostics
        .iter()
        .map(|d| d.source.as_str())
        .collect();
    assert_eq!(
        sources.into_iter().collect::<Vec<_>>(),
        [
            "/nonexistent/missing.mini",
            "cut.mini",
            "empty.mini",
            "utf8.mini",
            "wrong.mini"
        ]
    );
    let utf8 = summary
        .diagnostics
        .iter()
        .find(|d| d.source == "utf8.mini")
        .unwrap();
    assert!(utf8.message.contains("invalid UTF-8 at line 3"), "{utf8}");
    assert_eq!(utf8.line, 3);
    // each document keeps what the core's lenient parse keeps (a wrong
    // prefix is E02, its records are still typed by the contract); the
    // UTF-8 error ends its document after the record before it
    let kept = |t: &str| mini::parse_lenient(t, contract).records().len();
    assert_eq!(kept(&cut), 1);
    assert_eq!(
        summary.records,
        2 * n_good + kept(&cut) + kept(&wrong) + 1,
        "{:#?}",
        summary.diagnostics
    );
    assert!(summary
        .diagnostics
        .iter()
        .any(|d| d.source == "wrong.mini" && d.code == Some(mini::Code::E02)));
    assert!(summary
        .diagnostics
        .iter()
        .any(|d| d.source == "empty.mini" && d.code == Some(mini::Code::E01)));
    let path = tmp("damaged.parquet");
    std::fs::write(&path, &out).unwrap();
    let (_, rows) = read_parquet(&path);
    assert_eq!(rows.len(), summary.records);
    assert!(rows.iter().any(|r| r["source"] == "cut.mini"));
    assert_eq!(
        rows.iter().filter(|r| r["source"] == "utf8.mini").count(),
        1
    );
}

#[test]
fn strict_fails_on_a_later_document_and_names_it() {
    let families = families();
    let (_, contract, dir) = families.iter().find(|f| f.0 == "cat").unwrap();
    let good = std::fs::read_to_string(dir.join("fixtures/valid.mini")).unwrap();
    let bad = std::fs::read_to_string(dir.join("fixtures/bad_type.mini")).unwrap();
    let conv = Converter::new(contract, Options::default()).unwrap();
    let mut out = Vec::new();
    let err = conv
        .write_parquet(
            [
                Input::text("good.mini", &good),
                Input::text("bad_type.mini", &bad),
            ],
            &mut out,
        )
        .unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!(d.source, "bad_type.mini");
    assert!(d.code.is_some() && d.line > 0, "{err}");
    assert!(err.to_string().starts_with("bad_type.mini: E"), "{err}");
}
