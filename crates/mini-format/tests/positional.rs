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

// ---------------------------------------------------------------------------
// Derived types (ADR 0032): a record whose absent values are all `Option`s
// is read as a sequence even when some are absent (serde is handed `None`
// in their place); one with a `#[serde(default)]` value that is not an
// `Option` is read by key, so that serde applies the default.
// ---------------------------------------------------------------------------

#[derive(Debug, PartialEq, Deserialize, mini::Mini)]
#[mini(prefix = "t", records = "items")]
struct Tasks {
    items: Vec<Task>,
}

#[derive(Debug, PartialEq, Deserialize, mini::Mini)]
struct Task {
    #[mini(unique)]
    id: String,
    #[mini(mlist = "at_most_one", selected = "pick")]
    options: Vec<String>,
    pick: Option<usize>,
    span: Span,
    size: Option<u8>,
    #[mini(extension)]
    note: Option<String>,
}

#[derive(Debug, PartialEq, Deserialize, mini::Mini)]
struct Span {
    lo: f64,
    mid: Option<f64>,
    hi: f64,
}

#[test]
fn absent_options_of_a_derived_record_are_none() {
    let t: Tasks =
        mini::from_str("t|n=3\na|x,y*|1,2,3|4|first\nb|x,y|1,,3||\nc|z|0.5,,1.5|9|last").unwrap();
    assert_eq!(
        t.items[0],
        Task {
            id: "a".into(),
            options: vec!["x".into(), "y".into()],
            pick: Some(1),
            span: Span {
                lo: 1.0,
                mid: Some(2.0),
                hi: 3.0
            },
            size: Some(4),
            note: Some("first".into()),
        }
    );
    // no marker (at most one: no selection), an empty tuple component, an
    // empty optional field, an empty extension
    assert_eq!(
        t.items[1],
        Task {
            id: "b".into(),
            options: vec!["x".into(), "y".into()],
            pick: None,
            span: Span {
                lo: 1.0,
                mid: None,
                hi: 3.0
            },
            size: None,
            note: None,
        }
    );
    assert_eq!(t.items[2].note.as_deref(), Some("last"));
    assert_eq!(t.items[2].span.mid, None);
}

#[test]
fn a_derived_record_reads_the_same_as_by_key() {
    // the same text read by the derived type (a sequence) and by a contract
    // loaded from its JSON (by key, into the same struct shape)
    let text = "t|n=2\na|x*,y|1,2,3||\nb|x,y|1,,3|7|n";
    let derived: Tasks = mini::from_str(text).unwrap();
    let contract = <Tasks as mini::Mini>::contract();
    let loaded = mini::Contract::from_json(&serde_json::to_string(&contract).unwrap()).unwrap();
    let by_key: Tasks = mini::from_str_with_contract(text, &loaded).unwrap();
    assert_eq!(derived, by_key);
}

#[test]
fn an_out_of_range_value_of_a_derived_record_is_e13() {
    let e = mini::from_str::<Tasks>("t|n=1\na|x|1,2,3|300|").unwrap_err();
    let d = &e.diagnostics()[0];
    assert_eq!((d.code(), d.line()), (mini::Code::E13, 2));
    assert!(
        d.message().contains("out of range for the Rust type u8"),
        "{}",
        d.message()
    );
}

fn seven() -> u8 {
    7
}

#[derive(Debug, PartialEq, Deserialize, mini::Mini)]
#[mini(prefix = "d", records = "items")]
struct Defaults {
    items: Vec<Defaulted>,
}

#[derive(Debug, PartialEq, Deserialize, mini::Mini)]
struct Defaulted {
    id: String,
    #[serde(default = "seven")]
    level: u8,
    #[serde(default)]
    tags: Vec<String>,
    #[mini(extension)]
    note: Option<String>,
}

#[test]
fn a_serde_default_that_is_not_an_option_is_applied() {
    let d: Defaults = mini::from_str("d|n=2\na||\nb|2|x,y|hi").unwrap();
    assert_eq!(
        d.items,
        [
            Defaulted {
                id: "a".into(),
                level: 7,
                tags: vec![],
                note: None
            },
            Defaulted {
                id: "b".into(),
                level: 2,
                tags: vec!["x".into(), "y".into()],
                note: Some("hi".into())
            }
        ]
    );
}

/// The same keys as [`Task`], but `size` is not an `Option`.
#[derive(Debug, PartialEq, Deserialize)]
struct SizedTask {
    id: String,
    options: Vec<String>,
    pick: Option<usize>,
    span: Span,
    #[serde(default = "seven")]
    size: u8,
    note: Option<String>,
}

#[test]
fn a_derived_contract_handed_in_reads_another_type_by_key() {
    // the reading hint is `Task`'s: another type read under its contract
    // gets its own defaults (a record with an absent value is read by key)
    let contract = <Tasks as mini::Mini>::contract();
    let text = "t|n=1\nb|x,y|1,,3||";
    let d: Doc<SizedTask> = mini::from_str_with_contract(text, &contract).unwrap();
    assert_eq!(d.items[0].size, 7);
    let lenient = mini::from_str_lenient_with_contract::<Doc<SizedTask>>(text, &contract).unwrap();
    assert_eq!(lenient.value.unwrap().items[0].size, 7);
    let streamed: Vec<SizedTask> = mini::stream::records(text.as_bytes(), &contract)
        .collect::<mini::Result<_>>()
        .unwrap();
    assert_eq!(streamed[0].size, 7);
}
