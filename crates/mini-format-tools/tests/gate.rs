//! The streaming gate against the whole-text path: every fixture of the
//! upstream families, wrapped in prose and a Markdown fence, cut into
//! chunks at every split point, gives the same document text, the same
//! records and the same final diagnostics as `extract` + `parse_lenient` on
//! the whole answer.

use std::io::Read;
use std::path::PathBuf;

use mini::{Contract, PushParser};
use mini_tools::repair::extract;
use mini_tools::workflow::{gate_records, AnswerStream};

fn suite() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance"),
    }
}

/// (family, contract, answer) for every `.mini` fixture, wrapped as a model
/// would write it; some with CRLF line ends and a BOM.
fn answers() -> Vec<(String, Contract, String)> {
    let forks = suite().join("forks");
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&forks)
        .unwrap_or_else(|e| panic!("{}: {e} (set MINI_CONFORMANCE)", forks.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("contract.json").is_file())
        .collect();
    dirs.sort();
    for dir in dirs {
        let contract = Contract::from_path(dir.join("contract.json")).unwrap();
        let mut fixtures: Vec<_> = std::fs::read_dir(dir.join("fixtures"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "mini"))
            .collect();
        fixtures.sort();
        for (i, f) in fixtures.iter().enumerate() {
            let doc = std::fs::read_to_string(f).unwrap();
            let doc = doc.strip_suffix('\n').unwrap_or(&doc);
            let mut answer = format!(
                "Sure! Here is the document you asked for:\n\n```mini\n{doc}\n```\nLet me know if you need more."
            );
            if i % 3 == 1 {
                answer = format!("\u{feff}{}", answer.replace('\n', "\r\n"));
            }
            let name = format!(
                "{}/{}",
                dir.file_name().unwrap().to_string_lossy(),
                f.file_name().unwrap().to_string_lossy()
            );
            out.push((name, contract.clone(), answer));
        }
    }
    assert!(out.len() >= 14 * 5, "the suite's fixtures: {}", out.len());
    out
}

/// What the whole-text path gives: the document, its records and errors.
fn whole(answer: &str, contract: &Contract) -> (String, Vec<serde_json::Value>, Vec<String>) {
    let ex = extract(answer, Some(contract.prefix()));
    let doc = mini::parse_lenient(&ex.text, contract);
    (
        ex.text,
        doc.records()
            .iter()
            .map(|r| serde_json::Value::Object(r.value.clone()))
            .collect(),
        doc.errors().iter().map(ToString::to_string).collect(),
    )
}

/// What the gate gives on `chunks`, read through the push parser.
fn gated(chunks: &[&str], contract: &Contract) -> (String, Vec<serde_json::Value>, Vec<String>) {
    let mut text = String::new();
    AnswerStream::new(chunks.iter().copied(), Some(contract.prefix()))
        .read_to_string(&mut text)
        .unwrap();
    let mut stream = AnswerStream::new(chunks.iter().copied(), Some(contract.prefix()));
    let mut parser = PushParser::new(contract);
    let mut records = Vec::new();
    let mut buf = [0u8; 7];
    loop {
        let n = stream.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        for r in parser.push(&buf[..n]).unwrap() {
            records.push(serde_json::Value::Object(r.value));
        }
    }
    let end = parser.end().unwrap();
    if let Some(r) = end.last_record {
        records.push(serde_json::Value::Object(r.value));
    }
    let errors = end
        .document
        .errors()
        .iter()
        .map(ToString::to_string)
        .collect();
    (text, records, errors)
}

#[test]
fn the_gate_equals_the_whole_text_path_at_every_split_point() {
    let mut checked = 0;
    for (name, contract, answer) in answers() {
        let expected = whole(&answer, &contract);
        assert!(!expected.0.is_empty(), "{name}");
        let points: Vec<usize> = (0..=answer.len())
            .filter(|&p| answer.is_char_boundary(p))
            .collect();
        for &p in &points {
            let got = gated(&[&answer[..p], &answer[p..]], &contract);
            assert_eq!(got, expected, "{name}, split at byte {p}");
            checked += 1;
        }
        // three chunks, the second one short (a step over the split points)
        for w in points.windows(3).step_by(5) {
            let got = gated(
                &[&answer[..w[0]], &answer[w[0]..w[2]], &answer[w[2]..]],
                &contract,
            );
            assert_eq!(
                got, expected,
                "{name}, split at bytes {} and {}",
                w[0], w[2]
            );
        }
        // one character a chunk
        let chars: Vec<String> = answer.chars().map(String::from).collect();
        let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(
            gated(&refs, &contract),
            expected,
            "{name}, one char a chunk"
        );
    }
    assert!(checked > 50_000, "{checked} split points");
}

#[test]
fn the_gate_reports_what_extract_reports() {
    for (name, contract, answer) in answers() {
        let ex = extract(&answer, Some(contract.prefix()));
        let mut stream = AnswerStream::new([answer.as_str()], Some(contract.prefix()));
        std::io::copy(&mut stream, &mut std::io::sink()).unwrap();
        // the gate does not read past the closing fence: no trailing prose
        let expected: Vec<_> = ex
            .fixes
            .into_iter()
            .filter(|f| !matches!(f, mini_tools::repair::TransportFix::TrailingProse { .. }))
            .collect();
        assert_eq!(stream.fixes(), expected, "{name}");
        assert!(stream.found_header());
    }
}

#[test]
fn the_gate_stops_at_the_closing_fence_without_reading_further() {
    let contract =
        Contract::from_json(r#"{"prefix": "t", "core": [{"name": "s", "type": "str"}]}"#).unwrap();
    let mut pulled = 0;
    let chunks = ["```\nt|n=1\nx\n```\n", "more prose", "and more"]
        .into_iter()
        .inspect(|_| pulled += 1);
    let items: Vec<mini::Result<serde_json::Value>> = gate_records(chunks, &contract).collect();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap()["s"], "x");
    assert_eq!(pulled, 1);
}

#[derive(Debug, serde::Deserialize, PartialEq)]
struct Question {
    id: String,
    options: Vec<String>,
    answer: usize,
    level: u8,
}

#[test]
fn typed_records_come_out_of_the_gate_as_their_lines_close() {
    let contract = Contract::from_path(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/forks/quiz/contract.json"),
    )
    .unwrap();
    let answer = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/model/answers/1.txt"),
    )
    .unwrap();
    // one chunk per few characters, as a model streams
    let chars: Vec<char> = answer.chars().collect();
    let chunks: Vec<String> = chars.chunks(5).map(|c| c.iter().collect()).collect();
    let items: Vec<mini::Result<Question>> = gate_records(chunks, &contract).collect();
    let ok: Vec<&Question> = items.iter().filter_map(|i| i.as_ref().ok()).collect();
    assert_eq!(
        ok.iter().map(|q| q.id.as_str()).collect::<Vec<_>>(),
        ["q1", "q3"]
    );
    assert_eq!((ok[0].answer, ok[0].level), (0, 1));
    assert_eq!(ok[0].options.len(), 4);
    // the broken line, the cut one and the count, as the same typed reader
    // says on the whole extracted text
    let errors = |items: &[mini::Result<Question>]| -> Vec<String> {
        items
            .iter()
            .filter_map(|i| i.as_ref().err())
            .flat_map(|e| e.diagnostics().iter().map(ToString::to_string))
            .collect()
    };
    let ex = extract(&answer, Some("quiz"));
    let whole: Vec<mini::Result<Question>> =
        mini::stream::records(ex.text.as_bytes(), &contract).collect();
    let whole_ok: Vec<&Question> = whole.iter().filter_map(|i| i.as_ref().ok()).collect();
    assert_eq!(ok, whole_ok);
    assert_eq!(errors(&items), errors(&whole));
    let codes: Vec<String> = errors(&items).iter().map(|e| e[..3].to_string()).collect();
    assert_eq!(codes, ["E13", "E05", "E04"]);
}
