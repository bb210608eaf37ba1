//! The single-pass typed reader (ADR 0024): each value is typed by the
//! engine's rules when serde asks for it, and every line from the first
//! broken one is checked by the engine, so that the typed path reports
//! exactly `mini::parse`'s diagnostics.

use mini::{Code, Contract};
use serde::{Deserialize, Deserializer};

fn contract() -> Contract {
    Contract::from_json(
        r#"{"prefix": "t", "records_key": "rows",
            "core": [
              {"name": "id", "type": "str", "unique": true},
              {"name": "level", "type": "int", "min": 1, "max": 5},
              {"name": "p", "type": "float", "min": 0, "max": 4},
              {"name": "opts", "type": "mlist", "item": "str", "marker": "exactly_one",
               "json": {"items": "opts", "selected": "answer"}}
            ],
            "extensions": [{"name": "note", "type": "str"}]}"#,
    )
    .unwrap()
}

#[derive(Debug, Deserialize, PartialEq)]
struct Row {
    id: String,
    level: u8,
    p: f64,
    opts: Vec<String>,
    answer: usize,
    note: Option<String>,
}

#[derive(Debug, Deserialize, PartialEq)]
struct Doc {
    rows: Vec<Row>,
}

/// A diagnostic as (code, line, field, message).
type Seen = (Code, usize, Option<String>, String);

fn seen(diags: &[mini::Diagnostic]) -> Vec<Seen> {
    diags
        .iter()
        .map(|d| {
            (
                d.code(),
                d.line(),
                d.field().map(str::to_string),
                d.message().to_string(),
            )
        })
        .collect()
}

/// The diagnostics of `parse`.
fn parse_errors(text: &str, c: &Contract) -> Vec<Seen> {
    seen(mini::parse_lenient(text, c).errors())
}

/// The diagnostics of the typed path into `T`.
fn typed_errors<T: for<'de> Deserialize<'de> + std::fmt::Debug>(
    text: &str,
    c: &Contract,
) -> Vec<Seen> {
    seen(
        mini::from_str_with_contract::<T>(text, c)
            .unwrap_err()
            .diagnostics(),
    )
}

#[test]
fn a_valid_document_reads_into_structs() {
    let c = contract();
    let doc: Doc = mini::from_str_with_contract("t|n=2\na|1|0.5|x,y*|hi\nb|5|4|u*,v", &c).unwrap();
    assert_eq!(doc.rows[0].answer, 1);
    assert_eq!(doc.rows[0].note.as_deref(), Some("hi"));
    assert_eq!((doc.rows[1].p, doc.rows[1].note.as_deref()), (4.0, None));
}

/// A duplicate unique value: the typed reader claims keys only for a
/// whole valid record, and the engine reports the clash (E11) as `parse`.
#[test]
fn a_unique_clash_is_the_engines_e11() {
    let c = contract();
    let text = "t|n=3\na|1|0.5|x*|\na|2|0.5|x*\nb|9|0.5|x*";
    let typed = typed_errors::<Doc>(text, &c);
    assert_eq!(typed, parse_errors(text, &c));
    assert_eq!(
        typed.iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
        [(Code::E11, 3), (Code::E13, 4)]
    );
}

/// A document of `rows` of `T` (the records key of these tests'
/// contracts).
#[derive(Debug, Deserialize)]
struct Rows<T> {
    rows: Vec<T>,
}

/// A unique int read by the short path (its canonical text is its key):
/// a clash is the engine's E11, on the line `parse` gives, whether the
/// other value was read by the typed reader or by the engine.
#[test]
fn a_unique_int_clash_is_the_engines_e11() {
    #[derive(Debug, Deserialize)]
    struct Item {
        #[allow(dead_code)]
        id: u64,
        #[allow(dead_code)]
        level: u8,
    }
    let c = Contract::from_json(
        r#"{"prefix": "t", "records_key": "rows", "core": [
              {"name": "id", "type": "int", "unique": true},
              {"name": "level", "type": "int", "min": 1, "max": 5}]}"#,
    )
    .unwrap();
    for (text, want) in [
        ("t|n=3\n7|1\n7|2\n8|1", vec![(Code::E11, 3)]),
        // a record that breaks a rule claims no key: no clash
        ("t|n=3\n7|9\n7|2\n8|1", vec![(Code::E13, 2)]),
        // the second 7 is read by the engine (the line after the first
        // broken one): its key meets the typed reader's
        (
            "t|n=4\n7|2\n8|9\n7|1\n9|1",
            vec![(Code::E13, 3), (Code::E11, 4)],
        ),
    ] {
        let typed = typed_errors::<Rows<Item>>(text, &c);
        assert_eq!(typed, parse_errors(text, &c), "{text}");
        let mut got: Vec<(Code, usize)> = typed.iter().map(|e| (e.0, e.1)).collect();
        got.sort_by_key(|&(code, line)| (line, format!("{code:?}")));
        let mut want = want;
        want.sort_by_key(|&(code, line)| (line, format!("{code:?}")));
        assert_eq!(got, want, "{text}");
    }
}

/// A marker in a list without a marker rule is the engine's E08 in the
/// typed reader too, for a `str` list and an int list alike (an escaped
/// `*` is text).
#[test]
fn a_marker_in_a_plain_list_is_the_engines_e08() {
    #[derive(Debug, Deserialize)]
    struct Item {
        #[allow(dead_code)]
        tags: Vec<String>,
        #[allow(dead_code)]
        points: Vec<u32>,
    }
    let c = Contract::from_json(
        r#"{"prefix": "t", "records_key": "rows", "core": [
              {"name": "tags", "type": "list", "item": "str"},
              {"name": "points", "type": "list", "item": "int"}]}"#,
    )
    .unwrap();
    for (text, want) in [
        ("t|n=2\na,b|1,2\nc|3", vec![]),
        ("t|n=2\na*,b|1,2\nc|3", vec![(Code::E08, 2)]),
        ("t|n=2\na,b|1,2\nc|3*", vec![(Code::E08, 3)]),
        // an escaped star is text, not a marker
        ("t|n=2\na\\*,b|1,2\nc|3", vec![]),
    ] {
        if want.is_empty() {
            let doc: Rows<Item> = mini::from_str_with_contract(text, &c).unwrap();
            assert_eq!(doc.rows.len(), 2, "{text}");
            continue;
        }
        let typed = typed_errors::<Rows<Item>>(text, &c);
        assert_eq!(typed, parse_errors(text, &c), "{text}");
        let got: Vec<(Code, usize)> = typed.iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(got, want, "{text}");
    }
}

/// A field the Rust type does not ask for is still checked by the rules.
#[test]
fn a_field_serde_skips_is_still_checked() {
    #[derive(Debug, Deserialize)]
    struct Partial {
        #[allow(dead_code)]
        id: String,
    }
    #[derive(Debug, Deserialize)]
    struct PartialDoc {
        #[allow(dead_code)]
        rows: Vec<Partial>,
    }
    let c = contract();
    let text = "t|n=2\na|1|0.5|x*\nb|1|9.5|x*";
    let typed = typed_errors::<PartialDoc>(text, &c);
    assert_eq!(typed, parse_errors(text, &c));
    assert_eq!(typed[0].0, Code::E13);
    assert_eq!(typed[0].2.as_deref(), Some("p"));
}

/// A user's `deserialize_with` that swallows the reader's error does not
/// let a broken value through: the line is still the engine's error.
#[test]
fn a_swallowed_error_still_rejects_the_line() {
    fn lenient<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u8>, D::Error> {
        Ok(u8::deserialize(d).ok())
    }
    #[derive(Debug, Deserialize)]
    struct Loose {
        #[allow(dead_code)]
        id: String,
        #[serde(deserialize_with = "lenient")]
        #[allow(dead_code)]
        level: Option<u8>,
    }
    #[derive(Debug, Deserialize)]
    struct LooseDoc {
        #[allow(dead_code)]
        rows: Vec<Loose>,
    }
    let c = contract();
    let text = "t|n=1\na|x|0.5|x*";
    let typed = typed_errors::<LooseDoc>(text, &c);
    assert_eq!(typed, parse_errors(text, &c));
    assert_eq!(
        (typed[0].0, typed[0].2.as_deref()),
        (Code::E06, Some("level"))
    );
}

/// Bounds are compared exactly: a float whose double equals the bound but
/// whose text is above it is E13, as `parse` says.
#[test]
fn a_bound_tie_of_doubles_is_decided_on_the_text() {
    let c = contract();
    let text = "t|n=1\na|1|4.0000000000000000001|x*";
    let typed = typed_errors::<Doc>(text, &c);
    assert_eq!(typed, parse_errors(text, &c));
    assert_eq!(typed[0].0, Code::E13);
    // and exactly the bound is in
    let doc: Doc = mini::from_str_with_contract("t|n=1\na|1|4.000|x*", &c).unwrap();
    assert_eq!(doc.rows[0].p, 4.0);
}

/// A zero float written with a sign is the canonical `0.0` (finding 6).
#[test]
fn a_negative_zero_float_is_zero() {
    let c = contract();
    let doc: Doc = mini::from_str_with_contract("t|n=1\na|1|-0.0|x*", &c).unwrap();
    assert!(doc.rows[0].p == 0.0 && doc.rows[0].p.is_sign_positive());
    let value: serde_json::Value = mini::from_str_with_contract("t|n=1\na|1|-0|x*", &c).unwrap();
    assert_eq!(
        value["rows"][0]["p"].to_string(),
        mini::parse("t|n=1\na|1|-0|x*", &c)
            .unwrap()
            .into_canonical()["rows"][0]["p"]
            .to_string()
    );
}

/// The marker rule of a marked list is the engine's (E08), whether or not
/// serde reads the selection.
#[test]
fn markers_are_checked_before_the_elements_are_read() {
    let c = contract();
    for text in ["t|n=1\na|1|1|x,y", "t|n=1\na|1|1|x*,y*"] {
        let typed = typed_errors::<Doc>(text, &c);
        assert_eq!(typed, parse_errors(text, &c), "{text}");
        assert_eq!(typed[0].0, Code::E08, "{text}");
    }
}

/// The streaming typed reader goes through the same reader: one item per
/// line, an invalid line as the engine's errors, a value the Rust type
/// refuses as E13, and the good lines around them.
#[test]
fn the_stream_reads_through_the_same_reader() {
    let c = contract();
    let text = "t|n=4\na|1|0.5|x*\nb|1|0.5|x,y\nc|300|0.5|x*\nd|2|0.5|x*";
    // 300 breaks the contract's max (5): the engine's E13
    let items: Vec<mini::Result<Row>> = mini::stream::records(text.as_bytes(), &c).collect();
    assert_eq!(items.len(), 4);
    assert!(items[0].is_ok() && items[3].is_ok());
    let e1 = items[1].as_ref().unwrap_err();
    assert_eq!(
        (e1.diagnostics()[0].code(), e1.diagnostics()[0].line()),
        (Code::E08, 3)
    );
    let e2 = items[2].as_ref().unwrap_err();
    assert_eq!(
        (e2.diagnostics()[0].code(), e2.diagnostics()[0].line()),
        (Code::E13, 4)
    );

    // under a contract without bounds, 300 is valid: the Rust type (`u8`)
    // refuses it, E13 with its field
    let wide = Contract::from_json(
        r#"{"prefix": "t", "core": [{"name": "id", "type": "str"}, {"name": "level", "type": "int"}]}"#,
    )
    .unwrap();
    #[derive(Debug, Deserialize)]
    struct Small {
        #[allow(dead_code)]
        id: String,
        #[allow(dead_code)]
        level: u8,
    }
    let items: Vec<mini::Result<Small>> =
        mini::stream::records("t|n=2\na|300\nb|3".as_bytes(), &wide).collect();
    let e = items[0].as_ref().unwrap_err();
    let d = &e.diagnostics()[0];
    assert_eq!(
        (d.code(), d.line(), d.field()),
        (Code::E13, 2, Some("level"))
    );
    assert!(items[1].is_ok());
}

/// Unique int keys are kept as ints (ADR 0045): in `0..2^20` as bits,
/// others of up to 18 digits in a table of ints, longer ones as text, like
/// every other key. Whatever holds a key, a value seen again is the
/// engine's E11 on its line and field, for `parse`, `check` and the typed
/// reader alike, and no two different values clash (each boundary is
/// crossed: 2^20 − 1 and 2^20, 18 and 19 digits; texts short and long).
#[test]
fn unique_clashes_are_found_whatever_holds_the_key() {
    #[derive(Debug, Deserialize)]
    struct Item {
        #[allow(dead_code)]
        id: i64,
        #[allow(dead_code)]
        name: String,
    }
    let c = Contract::from_json(
        r#"{"prefix": "t", "records_key": "rows", "core": [
              {"name": "id", "type": "int", "unique": true},
              {"name": "name", "type": "str", "unique": true}]}"#,
    )
    .unwrap();
    let ids = [
        "0",
        "1",
        "1048575",
        "1048576",
        "-1",
        "-1048576",
        "999999999999999999",
        "-999999999999999999",
        "1000000000000000000",
        "9223372036854775807",
        "-9223372036854775808",
    ];
    let names = [
        "a",
        "b",
        "fourteen bytes",
        "fifteen bytes!!",
        "a name well past fifteen bytes",
        "é",
    ];
    let mut lines: Vec<String> = Vec::new();
    let mut want = Vec::new();
    // every value once: no clash among different values
    for (k, id) in ids.iter().enumerate() {
        lines.push(format!("{id}|first {k}"));
    }
    for (k, name) in names.iter().enumerate() {
        lines.push(format!("{}|{name}", 5_000 + k));
    }
    // every value again: a clash on its field
    for (k, id) in ids.iter().enumerate() {
        lines.push(format!("{id}|again {k}"));
        want.push((Code::E11, lines.len() + 1, Some("id".to_string())));
    }
    for (k, name) in names.iter().enumerate() {
        lines.push(format!("{}|{name}", 6_000 + k));
        want.push((Code::E11, lines.len() + 1, Some("name".to_string())));
    }
    let text = format!("t|n={}\n{}\n", lines.len(), lines.join("\n"));
    let parsed = parse_errors(&text, &c);
    let got: Vec<_> = parsed.iter().map(|e| (e.0, e.1, e.2.clone())).collect();
    assert_eq!(got, want, "{parsed:?}");
    let typed = typed_errors::<Rows<Item>>(&text, &c);
    assert_eq!(typed, parsed);
    let checked = mini::check(&text, &c).unwrap_err();
    assert_eq!(seen(checked.diagnostics()), parsed);
}
