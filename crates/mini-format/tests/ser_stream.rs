//! `to_writer` streams (ADR 0023): the header line, then each record as it
//! is serialized, through a buffer of whole records of about 8 KiB, never
//! the whole document. What a writer holds when serialization fails, and
//! the header's `n`, written once.

use std::cell::{Cell, RefCell};
use std::io::{self, Write};
use std::rc::Rc;

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

thread_local! {
    /// How many records serialized their `id` so far.
    static SEEN: Cell<usize> = const { Cell::new(0) };
}

fn seen() -> usize {
    SEEN.with(Cell::get)
}

fn count<S: Serializer>(id: &u32, s: S) -> Result<S::Ok, S::Error> {
    SEEN.with(|c| c.set(c.get() + 1));
    s.serialize_u32(*id)
}

#[derive(Serialize, mini::Mini)]
#[mini(prefix = "st", records = "rows")]
struct Doc {
    header: Header,
    rows: Vec<Row>,
}

#[derive(Serialize, mini::Mini)]
struct Header {
    n: u64,
    source: String,
}

#[derive(Clone, Serialize, mini::Mini)]
struct Row {
    #[serde(serialize_with = "count")]
    id: u32,
    text: String,
    tags: Vec<String>,
}

fn doc(rows: usize) -> Doc {
    Doc {
        header: Header {
            n: 0,
            source: "generated | by the test".to_string(),
        },
        rows: (0..rows)
            .map(|i| Row {
                id: i as u32,
                text: format!("row {i}: some text with a | bar and a \\ backslash"),
                tags: vec![format!("t{}", i % 7), "x,y".to_string()],
            })
            .collect(),
    }
}

/// A writer that records each call (the records serialized by then, and
/// the bytes handed over), and fails once `limit` bytes have arrived.
#[derive(Clone, Default)]
struct Recorder {
    calls: Rc<RefCell<Vec<(usize, usize)>>>,
    bytes: Rc<RefCell<Vec<u8>>>,
    limit: Option<usize>,
}

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut bytes = self.bytes.borrow_mut();
        let room = self
            .limit
            .map_or(buf.len(), |l| l.saturating_sub(bytes.len()));
        if room == 0 {
            return Err(io::Error::other("the disk is full"));
        }
        let n = buf.len().min(room);
        bytes.extend_from_slice(&buf[..n]);
        self.calls.borrow_mut().push((seen(), n));
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Recorder {
    fn text(&self) -> String {
        String::from_utf8(self.bytes.borrow().clone()).unwrap()
    }
}

#[test]
fn to_writer_hands_records_over_as_they_are_serialized() {
    let d = doc(3000);
    let want = mini::to_string(&d).unwrap();
    assert!(
        want.len() > 150_000,
        "a document far larger than the buffer"
    );
    SEEN.with(|c| c.set(0));
    let w = Recorder::default();
    mini::to_writer(w.clone(), &d).unwrap();
    assert_eq!(w.text(), want);
    let calls = w.calls.borrow();
    assert!(calls.len() > 10, "{} write calls", calls.len());
    // the first bytes arrive long before the last record is serialized
    let (first_seen, _) = calls[0];
    assert!(first_seen < 300, "first write after {first_seen} records");
    // and no call carries much more than the buffer: no whole document
    let longest = calls.iter().map(|&(_, n)| n).max().unwrap();
    assert!(longest < 16 * 1024, "a write of {longest} bytes");
}

#[test]
fn a_failing_writer_stops_the_serialization() {
    let d = doc(3000);
    let want = mini::to_string(&d).unwrap();
    SEEN.with(|c| c.set(0));
    let limit = 20_000;
    let w = Recorder {
        limit: Some(limit),
        ..Recorder::default()
    };
    let err = mini::to_writer(w.clone(), &d).unwrap_err();
    assert!(err.is_io(), "{err}");
    // the writer holds what it accepted: a prefix of the document
    let got = w.text();
    assert_eq!(got.len(), limit);
    assert!(want.starts_with(&got));
    // and the records after the failure were never serialized
    let done = seen();
    assert!(done < 1000, "{done} records serialized");
}

#[test]
fn an_error_midway_leaves_a_prefix_cut_at_a_record_boundary() {
    let mut d = doc(3000);
    let good = mini::to_string(&d).unwrap();
    let lines: Vec<&str> = good.split('\n').collect();
    // outer whitespace would be trimmed by the parser: refused (E06)
    d.rows[1500].text = " leading space".to_string();
    // an empty string in a scalar field would read back as null: E06
    d.rows[2500].text = String::new();
    let w = Recorder::default();
    let err = mini::to_writer(w.clone(), &d).unwrap_err();
    let at: Vec<(mini::Code, usize)> = err
        .diagnostics()
        .iter()
        .map(|e| (e.code(), e.line()))
        .collect();
    // every error is collected, with the parser's lines (record i: i + 2)
    assert_eq!(at, [(mini::Code::E06, 1502), (mini::Code::E06, 2502)]);
    let got = w.text();
    assert!(!got.is_empty(), "whole records were handed over before");
    let k = got.split('\n').count();
    assert!(k <= 1501, "{k} lines: the bad record or later ones written");
    assert_eq!(got, lines[..k].join("\n"), "not cut at a record boundary");
}

/// Records whose sequence has no length (`serialize_seq(None)`).
struct Unsized<'a>(&'a [Row]);

impl Serialize for Unsized<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().filter(|_| true))
    }
}

/// Records whose sequence announces a length it does not have.
struct Lying<'a>(&'a [Row], usize);

impl Serialize for Lying<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.1))?;
        for r in self.0 {
            seq.serialize_element(r)?;
        }
        seq.end()
    }
}

/// A document with its records in `rows` of any `Serialize` type.
struct Custom<R> {
    n: u64,
    rows: R,
}

impl<R: Serialize> Serialize for Custom<R> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Doc", 2)?;
        st.serialize_field("header", &serde_json::json!({"n": self.n, "source": "s"}))?;
        st.serialize_field("rows", &self.rows)?;
        st.end()
    }
}

#[test]
fn n_is_the_number_of_records_and_the_header_is_written_once() {
    let contract = <Doc as mini::Mini>::try_contract().unwrap();
    let rows = doc(5).rows;
    // the n given is ignored: n is the number of records
    let text = mini::to_string_with_contract(&Custom { n: 99, rows: &rows }, &contract).unwrap();
    assert!(text.starts_with("st|n=5|source=s\n"), "{text}");
    assert_eq!(text.matches("st|n=").count(), 1);
    mini::parse(&text, &contract).unwrap();
    // without a length, the records are counted first
    let counted = mini::to_string_with_contract(
        &Custom {
            n: 0,
            rows: Unsized(&rows),
        },
        &contract,
    )
    .unwrap();
    assert_eq!(counted, text);
    // with a length that is not theirs, the value is refused
    for lie in [3, 8] {
        let err = mini::to_string_with_contract(
            &Custom {
                n: 0,
                rows: Lying(&rows, lie),
            },
            &contract,
        )
        .unwrap_err();
        assert!(err.diagnostics().is_empty(), "not a .mini error: {err}");
        assert!(err.to_string().contains("records"), "{err}");
    }
    // no records: the header line alone
    let empty = mini::to_string_with_contract(
        &Custom {
            n: 4,
            rows: &rows[..0],
        },
        &contract,
    )
    .unwrap();
    assert_eq!(empty, "st|n=0|source=s");
}
