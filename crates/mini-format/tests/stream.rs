//! Streaming: the push reader equals the whole-text parse for every way of
//! cutting a document into chunks; typed records; the NDJSON CLI is
//! incremental.

use std::path::PathBuf;

use mini::{Contract, Document, PushOptions, PushParser};
use serde_json::Value;

fn suite() -> PathBuf {
    std::env::var_os("MINI_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join("../shared/conformance")
        })
}

/// Every upstream family fixture (.mini) with its contract.
fn fixtures() -> Vec<(String, Contract, String)> {
    let forks = suite().join("forks");
    assert!(
        forks.is_dir(),
        "upstream suite missing at {}",
        forks.display()
    );
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&forks)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for dir in dirs
        .into_iter()
        .filter(|d| d.join("contract.json").is_file())
    {
        let c = Contract::from_path(dir.join("contract.json")).unwrap();
        let mut files: Vec<_> = std::fs::read_dir(dir.join("fixtures"))
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "mini"))
            .collect();
        files.sort();
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            out.push((f.display().to_string(), c.clone(), text));
        }
    }
    assert!(
        out.len() >= 60,
        "expected the 14 families' fixtures, got {}",
        out.len()
    );
    out
}

fn same(a: &Document, b: &Document, what: &str) {
    assert_eq!(a.errors(), b.errors(), "{what}: errors differ");
    assert_eq!(
        a.to_canonical(),
        b.to_canonical(),
        "{what}: canonical differs"
    );
    assert_eq!(
        a.diagnostics(),
        b.diagnostics(),
        "{what}: diagnostics differ"
    );
}

fn streamed(c: &Contract, chunks: &[&[u8]]) -> (Document, Vec<Value>) {
    let mut r = PushParser::new(c);
    let mut seen = Vec::new();
    for ch in chunks {
        for rec in r.push(ch).unwrap() {
            seen.push(Value::Object(rec.value));
        }
    }
    let end = r.end().unwrap();
    if let Some(rec) = end.last_record {
        seen.push(Value::Object(rec.value));
    }
    (end.document, seen)
}

#[test]
fn every_split_point_of_every_fixture_equals_the_whole_parse() {
    for (name, c, text) in fixtures() {
        let whole = mini::parse_lenient(&text, &c);
        let bytes = text.as_bytes();
        for k in 0..=bytes.len() {
            let (doc, seen) = streamed(&c, &[&bytes[..k], &bytes[k..]]);
            same(&doc, &whole, &format!("{name} split at {k}"));
            let expected: Vec<Value> = whole
                .records()
                .iter()
                .map(|r| Value::Object(r.value.clone()))
                .collect();
            assert_eq!(seen, expected, "{name} split at {k}: records yielded");
        }
    }
}

#[test]
fn one_byte_at_a_time_gives_identical_results() {
    for (name, c, text) in fixtures() {
        let whole = mini::parse_lenient(&text, &c);
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        let (doc, _) = streamed(&c, &chunks);
        same(&doc, &whole, &name);
    }
}

#[test]
fn strict_reader_fails_exactly_when_parse_fails() {
    for (name, c, text) in fixtures() {
        let mut r = PushParser::with_options(
            &c,
            PushOptions {
                strict: true,
                ..PushOptions::default()
            },
        );
        r.push(text.as_bytes()).unwrap();
        match (r.end(), mini::parse(&text, &c)) {
            (Ok(a), Ok(b)) => same(&a.document, &b, &name),
            (Err(a), Err(b)) => assert_eq!(a.diagnostics(), b.diagnostics(), "{name}"),
            (a, b) => panic!("{name}: reader {:?} vs parse {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

#[test]
fn upstream_lenient_and_strict_cases_stream_identically() {
    let mut n = 0;
    for file in [
        "lenient",
        "truncation",
        "header",
        "escapes",
        "quotes",
        "unique",
        "optionals",
    ] {
        let path = suite().join("cases").join(format!("{file}.json"));
        let cases: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for case in cases["cases"].as_array().unwrap() {
            let Some(text) = case["input"].as_str() else {
                continue;
            };
            let contract = match (&case["family"], &case["contract"]) {
                (Value::String(f), _) => {
                    Contract::from_path(suite().join("forks").join(f).join("contract.json"))
                        .unwrap()
                }
                (_, c @ Value::Object(_)) => Contract::from_value(c.clone()).unwrap(),
                _ => continue,
            };
            let whole = mini::parse_lenient(text, &contract);
            // chunk sizes 1, 2, 3, 5, 7 and 64
            for size in [1, 2, 3, 5, 7, 64] {
                let chunks: Vec<&[u8]> = text.as_bytes().chunks(size).collect();
                let (doc, _) = streamed(&contract, &chunks);
                same(&doc, &whole, &format!("{} chunks of {size}", case["id"]));
            }
            n += 1;
        }
    }
    assert!(n > 100, "only {n} cases streamed");
}

#[test]
fn utf8_split_across_chunks_is_fine_and_invalid_utf8_is_located() {
    let c =
        Contract::from_json(r#"{"prefix": "t", "core": [{"name": "s", "type": "str"}]}"#).unwrap();
    let text = "t|n=1\nñandú 🦀\n".as_bytes();
    for k in 0..text.len() {
        let (doc, seen) = streamed(&c, &[&text[..k], &text[k..]]);
        assert!(doc.is_valid());
        assert_eq!(seen[0]["s"], "ñandú 🦀");
    }
    let mut r = PushParser::new(&c);
    r.push(b"t|n=1\nab").unwrap();
    let e = r.push(b"c\xff\n").unwrap_err();
    assert!(e.is_utf8());
    // the offset is counted within the line it names (ADR 0019)
    assert!(e.to_string().contains("line 2, byte offset 3"), "{e}");
}

#[test]
fn the_end_account_keeps_unknown_apart_from_zero() {
    let c = Contract::from_json(
        r#"{"prefix": "t", "core": [{"name": "a", "type": "int"}, {"name": "b", "type": "str"}]}"#,
    )
    .unwrap();
    let mut r = PushParser::new(&c);
    r.push(b"t|n=4\n1|x\n2|y\n3").unwrap();
    let end = r.end().unwrap();
    assert_eq!(end.expected, Some(4));
    assert_eq!((end.received, end.valid), (3, 2));
    assert_eq!(end.missing, Some(1));
    assert!(!end.last_line_terminated);
    let inc = end.incomplete_line.unwrap();
    assert_eq!((inc.line, inc.text.as_str()), (4, "3"));
    assert_eq!(inc.errors[0].code(), mini::Code::E05);
    assert_eq!(end.truncated, Some(true));
    assert!(!end.complete);

    let mut r = PushParser::new(&c);
    r.push(b"t|n=lots\n1|x\n").unwrap();
    let end = r.end().unwrap();
    assert_eq!(
        (end.expected, end.missing, end.excess, end.truncated),
        (None, None, None, None)
    );
    assert!(end.last_line_terminated);
}

#[test]
fn records_can_be_dropped_for_constant_memory() {
    let c =
        Contract::from_json(r#"{"prefix": "t", "core": [{"name": "a", "type": "int"}]}"#).unwrap();
    let mut r = PushParser::with_options(
        &c,
        PushOptions {
            keep_records: false,
            ..PushOptions::default()
        },
    );
    let got = r.push(b"t|n=3\n1\n2\n3\n").unwrap();
    assert_eq!(got.len(), 3);
    let end = r.end().unwrap();
    assert!(end.document.records().is_empty());
    assert_eq!(end.valid, 3);
    assert!(end.complete);
}

#[test]
fn a_line_that_never_ends_hits_the_limit() {
    let c =
        Contract::from_json(r#"{"prefix": "t", "core": [{"name": "a", "type": "str"}]}"#).unwrap();
    let mut r = PushParser::with_options(
        &c,
        PushOptions {
            limits: mini::Limits {
                max_line_bytes: 1000,
                ..mini::Limits::default()
            },
            ..PushOptions::default()
        },
    );
    r.push(b"t|n=1\n").unwrap();
    let mut failed = None;
    for _ in 0..100 {
        if let Err(e) = r.push(&[b'x'; 100]) {
            failed = Some(e);
            break;
        }
    }
    let e = failed.expect("limit hit");
    assert_eq!(e.limit_exceeded(), Some(mini::Limit::LineBytes));
    assert!(e.to_string().contains("max_line_bytes"), "{e}");
}

/// `max_line_bytes` counts a line's text without BOM, CR and LF, in the
/// streaming reader as in `parse_with_limits`: both accept a line of exactly the
/// limit written with a BOM and CRLF, and both refuse one byte more, at the
/// same line.
#[test]
fn the_line_limit_is_counted_alike_with_bom_and_crlf() {
    let c =
        Contract::from_json(r#"{"prefix": "t", "core": [{"name": "a", "type": "str"}]}"#).unwrap();
    let limit = 12;
    for extra in [0, 1] {
        let header = "t|n=1|x=".to_string() + &"h".repeat(limit - 8);
        let record = "r".repeat(limit + extra);
        let text = format!("\u{feff}{header}\r\n{record}\r\n");
        let opts = mini::Limits {
            max_line_bytes: limit,
            ..mini::Limits::default()
        };
        let whole = mini::parse_lenient_with_limits(&text, &c, &opts);
        for chunk in [1, 3, text.len()] {
            let mut r = PushParser::with_options(
                &c,
                PushOptions {
                    limits: opts,
                    ..PushOptions::default()
                },
            );
            let mut res = Ok(());
            for part in text.as_bytes().chunks(chunk) {
                if let Err(e) = r.push(part) {
                    res = Err(e);
                    break;
                }
            }
            let res = res.and_then(|()| r.end().map(drop));
            match (&whole, &res) {
                (Ok(doc), Ok(())) => {
                    assert_eq!(extra, 0);
                    assert!(doc.is_valid(), "{:?}", doc.errors());
                }
                (Err(a), Err(b)) => {
                    assert_eq!(extra, 1);
                    assert_eq!(a.limit_exceeded(), Some(mini::Limit::LineBytes));
                    assert_eq!(b.limit_exceeded(), Some(mini::Limit::LineBytes));
                    // the same line (the reader may refuse a line while it
                    // is still growing, with its own wording)
                    assert!(a.to_string().contains("at line 2:"), "{a}");
                    assert!(b.to_string().contains("at line 2:"), "chunk {chunk}: {b}");
                }
                _ => panic!(
                    "extra {extra}, chunk {chunk}: parse_with_limits {whole:?} vs reader {res:?}"
                ),
            }
        }
    }
}

#[derive(Debug, serde::Deserialize, PartialEq)]
struct Row {
    id: String,
    qty: u8,
}

#[test]
fn typed_records_from_a_reader() {
    let c = Contract::from_json(
        r#"{"prefix": "r", "core": [{"name": "id", "type": "str", "unique": true}, {"name": "qty", "type": "int", "min": 0}]}"#,
    )
    .unwrap();
    let input = "r|n=5\na|1\nb|x\na|2\nc|300\nd|4\n";
    let items: Vec<mini::Result<Row>> = mini::stream::records(input.as_bytes(), &c).collect();
    assert_eq!(items.len(), 5, "{items:?}");
    assert_eq!(
        items[0].as_ref().unwrap(),
        &Row {
            id: "a".into(),
            qty: 1
        }
    );
    assert_eq!(items[1].as_ref().unwrap_err().code(), Some(mini::Code::E06));
    assert_eq!(items[2].as_ref().unwrap_err().code(), Some(mini::Code::E11));
    let e = items[3].as_ref().unwrap_err();
    assert_eq!(
        (e.code(), e.diagnostics()[0].line()),
        (Some(mini::Code::E13), 5)
    );
    assert_eq!(e.diagnostics()[0].path(), Some("records[3].qty"));
    assert_eq!(items[4].as_ref().unwrap().id, "d");
    // n=5 and 5 record lines: the last item is the fifth record, no E04
    let short = "r|n=3\na|1\n";
    let items: Vec<mini::Result<Row>> = mini::stream::records(short.as_bytes(), &c).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[1].as_ref().unwrap_err().code(), Some(mini::Code::E04));
}
