//! One reader, one set of limits (ADR 0019): every entry point cuts lines
//! the same way and refuses the same breaches, naming the limit.

use std::io::Read;

use mini::{Contract, Limit, Limits};
use serde::Deserialize;

#[derive(Debug, Deserialize, mini::Mini)]
#[mini(prefix = "t", records = "items")]
struct Doc {
    header: Header,
    items: Vec<Item>,
}

#[derive(Debug, Deserialize, mini::Mini)]
struct Header {
    n: u32,
}

#[derive(Debug, Deserialize, mini::Mini)]
struct Item {
    title: String,
}

fn contract() -> Contract {
    Contract::from_json(
        r#"{"prefix": "t", "records_key": "items", "core": [{"name": "title", "type": "str"}]}"#,
    )
    .unwrap()
}

const THREE: &str = "t|n=3\na\nb\nc\n";

fn tight(f: impl FnOnce(&mut Limits)) -> Limits {
    let mut l = Limits::default();
    f(&mut l);
    l
}

#[test]
fn every_entry_point_refuses_too_many_records() {
    let limits = tight(|l| l.max_records = 2);
    let c = contract();
    let named = |e: mini::Error| e.limit_exceeded();
    assert_eq!(
        named(mini::parse_with_limits(THREE, &c, &limits).unwrap_err()),
        Some(Limit::Records)
    );
    assert_eq!(
        named(mini::from_str_with_limits::<Doc>(THREE, limits).unwrap_err()),
        Some(Limit::Records)
    );
    assert_eq!(
        named(mini::from_reader_with_limits::<_, Doc>(THREE.as_bytes(), limits).unwrap_err()),
        Some(Limit::Records)
    );
    let items: Vec<mini::Result<Item>> =
        mini::stream::records_with_limits(THREE.as_bytes(), &c, limits).collect();
    let last = items.last().unwrap().as_ref().unwrap_err();
    assert_eq!(last.limit_exceeded(), Some(Limit::Records));
    let mut r = mini::PushParser::with_options(
        &c,
        mini::PushOptions {
            limits,
            ..mini::PushOptions::default()
        },
    );
    assert_eq!(
        named(r.push(THREE.as_bytes()).unwrap_err()),
        Some(Limit::Records)
    );
    // two records are fine everywhere
    let two = "t|n=2\na\nb\n";
    assert!(mini::parse_with_limits(two, &c, &limits).is_ok());
    let doc = mini::from_str_with_limits::<Doc>(two, limits).unwrap();
    assert_eq!((doc.header.n, doc.items.len()), (2, 2));
}

#[test]
fn the_defaults_are_safe_for_a_server() {
    let d = Limits::default();
    assert_eq!(
        (d.max_input_bytes, d.max_line_bytes, d.max_records),
        (64 << 20, 1 << 20, 1_000_000)
    );
    // from_str applies them: a 2 MiB line is refused, naming the limit
    let text = format!("t|n=1\n{}", "x".repeat(2 << 20));
    let e = mini::from_str::<Doc>(&text).unwrap_err();
    assert_eq!(e.limit_exceeded(), Some(Limit::LineBytes));
    assert!(e.to_string().contains("max_line_bytes"), "{e}");
    let e = mini::parse(&text, &contract()).unwrap_err();
    assert_eq!(e.limit_exceeded(), Some(Limit::LineBytes));
}

/// `from_reader` reads with the limits applied as the input arrives: an
/// endless input is refused after `max_input_bytes`, not read to its end.
#[test]
fn from_reader_stops_at_the_input_limit_on_an_endless_reader() {
    let endless = "t|n=1\n".as_bytes().chain(std::io::repeat(b'x'));
    let limits = tight(|l| {
        l.max_input_bytes = 4096;
        l.max_line_bytes = usize::MAX;
    });
    let e = mini::from_reader_with_limits::<_, Doc>(endless, limits).unwrap_err();
    assert_eq!(e.limit_exceeded(), Some(Limit::InputBytes));
}

#[test]
fn from_slice_locates_invalid_utf8_within_its_line() {
    let e = mini::from_slice::<Doc>(b"t|n=1\nab\xffc\n").unwrap_err();
    assert!(e.is_utf8());
    assert!(e.to_string().contains("line 2, byte offset 2"), "{e}");
    let doc: Doc = mini::from_slice("t|n=1\n\u{e9}t\u{e9}".as_bytes()).unwrap();
    assert_eq!(doc.items[0].title, "\u{e9}t\u{e9}");
}
