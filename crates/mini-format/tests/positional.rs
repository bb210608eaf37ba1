//! Records are read positionally when serde's field list is the record's
//! canonical keys in order, and by key otherwise: both give the same values
//! and the same errors.

use serde::Deserialize;

const CONTRACT: &str = r#"{"prefix": "q", "records_key": "items",
    "header": {"keys": {"k": {"type": "int"}}},
    "core": [
        {"name": "id", "type": "str", "unique": true},
        {"name": "options", "type": "mlist", "count_key": "k",
         "json": {"items": "options", "selected": "answer"}},
        {"name": "level", "type": "int", "min": 1, "max": 5}
    ],
    "extensions": [{"name": "note", "type": "str"}]}"#;

#[derive(Debug, PartialEq, Deserialize)]
struct Doc<R> {
    items: Vec<R>,
}

/// The contract's order: read as a sequence.
#[derive(Debug, PartialEq, Deserialize)]
struct InOrder {
    id: String,
    options: Vec<String>,
    answer: usize,
    level: u8,
    note: Option<String>,
}

/// Another order: read as a map.
#[derive(Debug, PartialEq, Deserialize)]
struct Shuffled {
    level: u8,
    note: Option<String>,
    answer: usize,
    id: String,
    options: Vec<String>,
}

fn read<R: for<'de> Deserialize<'de>>(text: &str) -> mini::Result<Doc<R>> {
    let c = mini::Contract::from_json(CONTRACT).unwrap();
    mini::from_str_with_contract(text, &c)
}

#[test]
fn both_orders_read_the_same_values() {
    // the second record has no note: the map leaves it out, so the
    // positional reading steps aside for that record
    let text = "q|n=2|k=2\nq1|a*,b|3|first\nq2|c,d*|5";
    let a: Doc<InOrder> = read(text).unwrap();
    let b: Doc<Shuffled> = read(text).unwrap();
    assert_eq!(a.items.len(), 2);
    for (x, y) in a.items.iter().zip(&b.items) {
        assert_eq!(
            (&x.id, &x.options, x.answer, x.level, &x.note),
            (&y.id, &y.options, y.answer, y.level, &y.note)
        );
    }
    assert_eq!(a.items[0].note.as_deref(), Some("first"));
    assert_eq!(a.items[1].note, None);
}

#[test]
fn both_orders_report_the_same_errors() {
    // 300 does not fit u8 (E13 with the serde path), in both readings
    let text = "q|n=1|k=2\nq1|a*,b|300|x";
    let c = mini::Contract::from_json(&CONTRACT.replace(r#""min": 1, "max": 5"#, r#""min": 1"#))
        .unwrap();
    let a = mini::from_str_with_contract::<Doc<InOrder>>(text, &c).unwrap_err();
    let b = mini::from_str_with_contract::<Doc<Shuffled>>(text, &c).unwrap_err();
    let show = |e: &mini::Error| {
        e.diagnostics()
            .iter()
            .map(|d| {
                (
                    d.code(),
                    d.line(),
                    d.field().map(str::to_string),
                    d.path().map(str::to_string),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(show(&a), show(&b));
    assert_eq!(a.diagnostics()[0].code(), mini::Code::E13);
    assert_eq!(a.diagnostics()[0].path(), Some("items[0].level"));
}

/// Which way a record was handed to serde.
#[derive(Debug, PartialEq)]
enum Way {
    Seq(usize),
    Map(usize),
}

impl<'de> Deserialize<'de> for Way {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Way;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a record")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Way, A::Error> {
                let mut n = 0;
                while a.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Way::Seq(n))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Way, A::Error> {
                let mut n = 0;
                while a.next_entry::<String, serde::de::IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Way::Map(n))
            }
        }
        d.deserialize_struct("Way", &["id", "options", "answer", "level", "note"], V)
    }
}

#[test]
fn a_record_with_every_key_in_order_is_a_sequence() {
    let ways: Doc<Way> = read("q|n=2|k=2\nq1|a*,b|3|first\nq2|c,d*|5").unwrap();
    // all five keys present: positional; the note absent: by key (four)
    assert_eq!(ways.items, [Way::Seq(5), Way::Map(4)]);
}
