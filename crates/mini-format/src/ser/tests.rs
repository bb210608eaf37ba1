//! The serializer on typed values, against `dumps` of the same value as a
//! `serde_json::Value` (`serde_json::to_value`): two different serde inputs
//! (Rust types, and the dynamic `Value`) through the one serializer.

use serde_json::json;

use crate::contract::Contract;

fn contract() -> Contract {
    Contract::from_json(
        r#"{"prefix": "q", "records_key": "items",
        "header": {"keys": {"k": {"type": "int"}, "topic": {"type": "str"}}},
        "core": [
            {"name": "id", "type": "str", "unique": true},
            {"name": "options", "type": "mlist", "count_key": "k",
             "json": {"items": "options", "selected": "answer"}},
            {"name": "many", "type": "mlist", "marker": "any",
             "json": {"items": "many", "selected": "picked"}},
            {"name": "x", "type": "float"},
            {"name": "n", "type": "int", "min": -5},
            {"name": "d", "type": "decimal", "optional": true},
            {"name": "ok", "type": "bool"},
            {"name": "tags", "type": "list", "item": "str", "optional": true},
            {"name": "pt", "type": "tuple", "items": [
                {"name": "a", "type": "float"},
                {"name": "b", "type": "str", "optional": true}]}
        ],
        "extensions": [{"name": "note", "type": "str"}]}"#,
    )
    .unwrap()
}

#[derive(serde::Serialize)]
struct Doc {
    prefix: &'static str,
    header: Header,
    items: Vec<Rec>,
}

#[derive(serde::Serialize)]
struct Header {
    n: u32,
    k: u8,
    topic: Option<String>,
}

#[derive(serde::Serialize)]
struct Rec {
    id: String,
    options: Vec<String>,
    answer: usize,
    many: Vec<&'static str>,
    picked: Option<Vec<u8>>,
    x: f64,
    n: i64,
    d: Option<crate::typed::Decimal>,
    ok: bool,
    tags: Option<Vec<String>>,
    pt: Pt,
    note: Option<&'static str>,
}

#[derive(serde::Serialize)]
struct Pt {
    // f64: `to_value` (the reference side) widens an f32 to f64 digits
    // without `arbitrary_precision`, while the writer prints the f32's
    // own shortest digits (`f32_is_written_with_its_own_digits`).
    a: f64,
    b: Option<&'static str>,
}

/// A typed value is written as `dumps` writes the same value made a
/// `serde_json::Value` (floats, `Option`s, decimals, escapes, markers).
#[test]
fn typed_values_are_written_as_dumps_writes_their_json() {
    let c = contract();
    let floats = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        0.1,
        1e-7,
        1e-16,
        123456.789,
        1e15,
        1e20,
        1e40,
        -1e-40,
        f64::MAX,
        f64::MIN_POSITIVE,
        0.30000000000000004,
    ];
    for (i, &x) in floats.iter().enumerate() {
        let doc = Doc {
            prefix: "q",
            header: Header {
                n: 0,
                k: 3,
                topic: Some("a|b\\c".into()),
            },
            items: vec![
                Rec {
                    id: format!("q{i}|\\,*"),
                    options: vec!["a,b".into(), "\"q".into(), "c*".into()],
                    answer: 2,
                    many: vec!["x", "", "z"],
                    picked: Some(vec![2, 0]),
                    x,
                    n: -3,
                    d: Some("007.50".parse().unwrap()),
                    ok: true,
                    tags: Some(vec![]),
                    pt: Pt { a: 0.1, b: None },
                    note: Some("line\nbreak"),
                },
                Rec {
                    id: "second".into(),
                    options: vec!["a".into(), "b".into(), "c".into()],
                    answer: 0,
                    many: vec![],
                    picked: None,
                    x: x / 3.0,
                    n: 4,
                    d: None,
                    ok: false,
                    tags: None,
                    pt: Pt {
                        a: -1e-20,
                        b: Some("t"),
                    },
                    note: None,
                },
            ],
        };
        let typed = super::to_string_with_contract(&doc, &c).unwrap();
        let dumps = crate::dumps(&serde_json::to_value(&doc).unwrap(), &c).unwrap();
        assert_eq!(typed, dumps, "{x}");
        assert!(crate::value::check(&typed, &c).is_ok(), "{typed}");
    }
}

/// A tuple of one null component is written as `dumps` writes it.
#[test]
fn single_null_component_tuple_as_dumps() {
    #[derive(serde::Serialize)]
    struct D {
        records: Vec<R>,
    }
    #[derive(serde::Serialize)]
    struct R {
        id: u8,
        t: T,
    }
    #[derive(serde::Serialize)]
    struct T {
        a: Option<i64>,
    }
    for optional in [false, true] {
        let c = Contract::from_json(&format!(
            r#"{{"prefix": "p", "core": [{{"name": "id", "type": "int"}},
            {{"name": "t", "type": "tuple", "optional": {optional},
              "items": [{{"name": "a", "type": "int", "optional": true}}]}}]}}"#
        ))
        .unwrap();
        let doc = D {
            records: vec![
                R {
                    id: 1,
                    t: T { a: None },
                },
                R {
                    id: 2,
                    t: T { a: Some(3) },
                },
            ],
        };
        let dumps = crate::dumps(&serde_json::to_value(&doc).unwrap(), &c);
        let got = super::to_string_with_contract(&doc, &c);
        assert_eq!(
            got.as_ref().map_err(ToString::to_string),
            dumps.as_ref().map_err(ToString::to_string)
        );
        // `""` reads back as the null component
        let text = got.unwrap();
        assert!(text.ends_with("\n1|\"\"\n2|3"), "{text}");
    }
}

/// Each refusal, and each violation the engine would find, with its code,
/// line and field; the serializer goes on after one, so a second record's
/// error is reported too.
#[test]
fn refusals_and_violations_have_the_parser_codes() {
    let c = contract();
    let base = json!({
        "id": "a", "options": ["a", "b", "c"], "answer": 1, "many": ["x"], "picked": [0],
        "x": 1.5, "n": 1, "ok": true, "pt": {"a": 1}
    });
    let e = |code: &str| crate::Code::parse(code).unwrap();
    for (k, v, code, field) in [
        ("answer", json!(3), "E08", "options"),
        ("answer", json!([1]), "E08", "options"),
        ("answer", json!(-1), "E08", "options"),
        ("picked", json!(0), "E08", "many"),
        ("picked", json!([0, 0]), "E08", "many"),
        ("picked", json!([null]), "E08", "many"),
        ("n", json!(1.5), "E06", "n"),
        ("n", json!(-9), "E13", "n"),
        ("x", json!("1"), "E06", "x"),
        ("id", json!(" a"), "E06", "id"),
        ("id", json!(""), "E06", "id"),
        ("id", json!(null), "E06", "id"),
        ("ok", json!(1), "E06", "ok"),
        ("pt", json!({"a": 1, "c": 2}), "E07", "pt"),
        ("pt", json!({"b": "x"}), "E06", "pt"),
        ("pt", json!([1]), "E06", "pt"),
        ("options", json!(["a", "b"]), "E07", "options"),
        ("options", json!("a"), "E06", "options"),
        ("d", json!(2.5), "E06", "d"),
        ("tags", json!(["a", 1]), "E06", "tags"),
        ("zzz", json!(1), "E05", "zzz"),
    ] {
        let mut rec = base.clone();
        rec[k] = v.clone();
        let obj = json!({"header": {"k": 3}, "items": [base.clone(), rec]});
        let err = super::to_string_with_contract(&obj, &c).expect_err(&format!("{k}: {v}"));
        let d = &err.diagnostics()[0];
        assert_eq!(
            (d.code(), d.line(), d.field()),
            (e(code), 3, Some(field)),
            "{k}: {v}: {err}"
        );
        // a third record with its own error is reported after it
        let mut third = base.clone();
        third["id"] = json!(5);
        let obj = json!({"header": {"k": 3}, "items": [base.clone(), rec, third]});
        let err = super::to_string_with_contract(&obj, &c).unwrap_err();
        let last = err.diagnostics().last().unwrap();
        assert_eq!((last.line(), last.field()), (4, Some("id")), "{err}");
    }
    let err = super::to_string_with_contract(
        &json!({"prefix": "other", "header": {"k": 3}, "items": [base.clone()]}),
        &c,
    )
    .unwrap_err();
    assert_eq!(
        (err.code(), err.diagnostics()[0].line()),
        (Some(e("E02")), 1)
    );
    let err = super::to_string_with_contract(
        &json!({"header": {"k": 3}, "items": [base.clone(), base.clone()]}),
        &c,
    )
    .unwrap_err();
    let d = &err.diagnostics()[0];
    assert_eq!((d.code(), d.line(), d.field()), (e("E11"), 3, Some("id")));
}

/// The header's place among the keys does not matter: the header line is
/// written first, once, with `n` the number of records, and the records
/// are checked against it (count keys) as they are written.
#[test]
fn the_header_may_come_after_the_records() {
    let c = Contract::from_json(
        r#"{"prefix": "e", "header": {"keys": {"k": {"type": "int"}}},
        "core": [
            {"name": "id", "type": "int", "unique": true, "min": 0},
            {"name": "lvl", "type": "enum", "values": ["lo", "hi"]},
            {"name": "day", "type": "date", "optional": true},
            {"name": "xs", "type": "list", "item": "int", "count_key": "k"}
        ]}"#,
    )
    .unwrap();
    let rec = |id: i64, lvl: &str, day: Option<&str>, xs: &[i64]| json!({"id": id, "lvl": lvl, "day": day, "xs": xs});
    #[derive(serde::Serialize)]
    struct Late {
        records: Vec<serde_json::Value>,
        header: serde_json::Value,
    }
    let records = vec![
        rec(1, "lo", Some("2026-11-30"), &[1, 2]),
        rec(2, "hi", None, &[3, 4]),
    ];
    let late = Late {
        records: records.clone(),
        header: json!({"k": 2, "n": 7}),
    };
    let first = json!({"header": {"k": 2}, "records": records});
    let text = super::to_string_with_contract(&late, &c).unwrap();
    assert_eq!(text, crate::dumps(&first, &c).unwrap());
    assert_eq!(text, "e|n=2|k=2\n1|lo|2026-11-30|1,2\n2|hi||3,4");
    for (records, code, line) in [
        (vec![rec(1, "lo", None, &[1, 2, 3])], "E07", 2),
        (vec![rec(1, "mid", None, &[1, 2])], "E10", 2),
        (vec![rec(1, "lo", Some("2026-02-30"), &[1, 2])], "E06", 2),
        (vec![rec(-1, "lo", None, &[1, 2])], "E13", 2),
        (
            vec![rec(7, "lo", None, &[1, 2]), rec(7, "hi", None, &[1, 2])],
            "E11",
            3,
        ),
    ] {
        let bad = Late {
            records,
            header: json!({"k": 2}),
        };
        let err = super::to_string_with_contract(&bad, &c).unwrap_err();
        let d = &err.diagnostics()[0];
        assert_eq!((d.code().as_str(), d.line()), (code, line), "{err}");
    }
}

/// An `f32` is written with its own shortest digits (`0.1`), not the
/// digits of its widening to `f64` (`0.10000000149011612`).
#[test]
fn f32_is_written_with_its_own_digits() {
    #[derive(serde::Serialize)]
    struct D {
        records: Vec<R>,
    }
    #[derive(serde::Serialize)]
    struct R {
        x: f32,
    }
    let c = crate::contract::Contract::from_json(
        r#"{"prefix": "f", "records_key": "records", "core": [{"name": "x", "type": "float"}]}"#,
    )
    .unwrap();
    let doc = D {
        records: vec![R { x: 0.1 }],
    };
    assert_eq!(
        super::to_string_with_contract(&doc, &c).unwrap(),
        "f|n=1\n0.1"
    );
}

/// On a tie between two shortest spellings (-1287950157429410.25 is
/// exactly an f64: `.2` and `.3` both read back as it), `dumps` of a
/// `Value` and the writer of a Rust `f64` pick the same one.
#[test]
fn float_tie_is_written_alike_by_dumps_and_the_writer() {
    let c = crate::contract::Contract::from_json(
        r#"{"prefix": "f", "records_key": "records", "core": [{"name": "x", "type": "float"}]}"#,
    )
    .unwrap();
    let x = -5151800629717641.0_f64 / 4.0; // exactly -1287950157429410.25
    let v = serde_json::json!({"records": [{"x": x}]});
    let dumps = crate::dumps(&v, &c).unwrap();
    assert_eq!(super::to_string_with_contract(&v, &c).unwrap(), dumps);
    // (with `arbitrary_precision` a `Number` keeps the digits it was
    // made with, and those are what `dumps` writes)
    if !crate::number::ARBITRARY_PRECISION {
        assert_eq!(dumps, format!("f|n=1\n{x}"));
    }
}

/// The straight-line record writer (`fast/`) and the general path give
/// the same text, or the same errors, on records full of edge cases: a
/// typed record goes through the straight writer when it can (and to the
/// general path when it bails), the same record as a `serde_json::Value`
/// always through the general path.
#[test]
fn the_straight_writer_writes_what_the_general_path_writes() {
    let c = Contract::from_json(
        r#"{"prefix": "s", "records_key": "items",
        "header": {"keys": {"k": {"type": "int"}}},
        "core": [
            {"name": "id", "type": "str", "unique": true},
            {"name": "num", "type": "int", "unique": true, "optional": true},
            {"name": "options", "type": "mlist", "count_key": "k", "min": 2, "max": 4,
             "json": {"items": "options", "selected": "answer"}},
            {"name": "maybe", "type": "mlist", "marker": "at_most_one", "item": "int",
             "json": {"items": "maybe", "selected": "which"}},
            {"name": "level", "type": "int", "min": 1, "max": 5},
            {"name": "kind", "type": "enum", "values": ["a", "b|c", "d e"]},
            {"name": "tags", "type": "list", "item": "str", "max": 3},
            {"name": "flag", "type": "bool"},
            {"name": "irt", "type": "tuple", "items": [
                {"name": "a", "type": "float"},
                {"name": "b", "type": "float", "min": -4, "max": 4, "optional": true},
                {"name": "c", "type": "int", "min": 0}]}
        ],
        "extensions": [{"name": "note", "type": "str"}, {"name": "w", "type": "float", "max": 1}]}"#,
    )
    .unwrap();

    #[derive(serde::Serialize)]
    struct D {
        header: H,
        items: Vec<R>,
    }
    #[derive(serde::Serialize)]
    struct H {
        n: usize,
        k: u8,
    }
    #[derive(serde::Serialize)]
    struct R {
        id: String,
        num: Option<i64>,
        options: Vec<String>,
        answer: usize,
        maybe: Vec<i32>,
        which: Option<usize>,
        level: i64,
        kind: String,
        tags: Vec<String>,
        flag: bool,
        irt: Irt,
        note: Option<String>,
        w: Option<f64>,
    }
    #[derive(serde::Serialize)]
    struct Irt {
        a: f64,
        b: Option<f64>,
        c: u64,
    }

    // texts the straight writer takes (escapes included), and texts it
    // leaves to the general path (empty, outer whitespace, CR, non-ASCII
    // edges)
    let good = [
        "plain",
        "two words",
        "a|b",
        "a\\b",
        "a,b",
        "star*",
        "\"q",
        "x\ny",
        "-1",
        "*",
        "q0",
    ];
    let odd = ["", " lead", "trail ", "x\r\ny", "x\ry", "é", "a\u{3000}"];
    let floats = [0.0, 1.5, -4.0, 4.0, -7.25, 1e20, 0.1, 1e-7, 123.456];
    let odd_floats = [4.0000001, -4.5, f64::NAN];
    let mut rng = crate::test_rng(0x5eed_f00d_cafe_b0a7);
    let mut pick = |n: usize| (rng() % n as u64) as usize;
    let mut straight = 0;
    for round in 0..400 {
        let records = 1 + pick(4);
        let items: Vec<R> = (0..records)
            .map(|r| {
                // one record in three has one value the general path must
                // refuse or report (or that the straight writer leaves)
                let spoil = if pick(3) == 0 { pick(12) } else { usize::MAX };
                let text = |p: &mut dyn FnMut(usize) -> usize, which: usize| {
                    if which == spoil {
                        odd[p(odd.len())].to_string()
                    } else {
                        good[p(good.len())].to_string()
                    }
                };
                R {
                    id: if spoil == 0 {
                        ["q0-0", "", " x"][pick(3)].to_string()
                    } else {
                        format!("q{round}-{r}")
                    },
                    num: if spoil == 1 {
                        Some(7)
                    } else {
                        [None, Some(r as i64 * 10 + round)][pick(2)]
                    },
                    options: (0..if spoil == 2 { 5 } else { 3 })
                        .map(|_| text(&mut pick, 3))
                        .collect(),
                    answer: if spoil == 4 { 9 } else { pick(3) },
                    maybe: (0..pick(3) as i32).collect(),
                    which: if spoil == 5 {
                        Some(5)
                    } else {
                        [None, Some(0)][pick(2)]
                    },
                    level: if spoil == 6 {
                        [0, 6, -2][pick(3)]
                    } else {
                        1 + pick(5) as i64
                    },
                    kind: if spoil == 7 {
                        ["z", " a"][pick(2)]
                    } else {
                        ["a", "b|c", "d e"][pick(3)]
                    }
                    .to_string(),
                    tags: (0..if spoil == 8 { 4 } else { pick(4) })
                        .map(|_| text(&mut pick, 9))
                        .collect(),
                    flag: pick(2) == 0,
                    irt: Irt {
                        a: floats[pick(floats.len())],
                        b: if spoil == 10 {
                            Some(odd_floats[pick(odd_floats.len())])
                        } else {
                            [None, Some(floats[pick(4)])][pick(2)]
                        },
                        c: [0, 3, u64::MAX][pick(3)],
                    },
                    note: [None, Some(text(&mut pick, 11))][pick(2)].clone(),
                    w: [None, Some(0.5), Some(if spoil == 11 { 2.0 } else { 1.0 })][pick(3)],
                }
            })
            .collect();
        let doc = D {
            header: H { n: records, k: 3 },
            items,
        };
        let before = super::fast::WRITTEN.with(|w| w.get());
        let typed = super::to_string_with_contract(&doc, &c);
        straight += super::fast::WRITTEN.with(|w| w.get()) - before;
        let value = serde_json::to_value(&doc).unwrap();
        let dumps = crate::dumps(&value, &c);
        assert_eq!(
            typed.as_ref().map_err(ToString::to_string),
            dumps.as_ref().map_err(ToString::to_string),
            "round {round}: {value}"
        );
    }
    // most records are written straight; the rest bailed to the general path
    eprintln!("{straight} records written straight");
    assert!(
        straight > 200,
        "only {straight} records were written straight"
    );
}

/// A document of records `R` under the default records key, its header
/// the record count alone.
#[derive(serde::Serialize)]
struct Records<R> {
    header: Count,
    records: Vec<R>,
}

#[derive(serde::Serialize)]
struct Count {
    n: usize,
}

/// A Rust enum's variant names (`&'static str`, remembered by the
/// straight writer once accepted) serve enumerations of the contract with
/// different names: a name one of them accepted is not taken for another.
#[test]
fn a_name_one_enumeration_accepted_is_checked_again_for_another() {
    let c = Contract::from_json(
        r#"{"prefix": "e", "core": [
            {"name": "a", "type": "enum", "values": ["red", "green", "blue"]},
            {"name": "b", "type": "enum", "values": ["blue"]},
            {"name": "cs", "type": "list", "item": "enum", "item_values": ["green", "blue"]}]}"#,
    )
    .unwrap();

    #[derive(serde::Serialize, Clone, Copy)]
    #[serde(rename_all = "lowercase")]
    enum Color {
        Red,
        Green,
        Blue,
    }
    #[derive(serde::Serialize)]
    struct R {
        a: Color,
        b: Color,
        cs: Vec<Color>,
    }

    // `red` accepted for `a`, then given to `b` and to `cs`
    let doc = |b: Color, cs: Vec<Color>| Records {
        header: Count { n: 2 },
        records: vec![
            R {
                a: Color::Red,
                b: Color::Blue,
                cs: vec![Color::Green],
            },
            R {
                a: Color::Green,
                b,
                cs,
            },
        ],
    };
    for (d, field) in [
        (doc(Color::Red, vec![Color::Blue]), "b"),
        (doc(Color::Blue, vec![Color::Red]), "cs"),
    ] {
        let e = super::to_string_with_contract(&d, &c).expect_err("red is refused");
        let first = &e.diagnostics()[0];
        assert_eq!(
            (first.code(), first.line(), first.field()),
            (crate::Code::E10, 3, Some(field))
        );
    }
    let before = super::fast::WRITTEN.with(|w| w.get());
    let good = doc(Color::Blue, vec![Color::Blue, Color::Green]);
    assert_eq!(
        super::to_string_with_contract(&good, &c).unwrap(),
        "e|n=2\nred|blue|green\ngreen|blue|blue,green"
    );
    assert_eq!(super::fast::WRITTEN.with(|w| w.get()) - before, 2);
}

/// An enumeration name that needs escaping where it goes is escaped every
/// time, also once the straight writer remembers it as accepted.
#[test]
fn a_remembered_name_is_escaped_as_the_first_time() {
    let c = Contract::from_json(
        r#"{"prefix": "e", "core": [
            {"name": "k", "type": "enum", "values": ["a|b", "c"]},
            {"name": "ks", "type": "list", "item": "enum", "item_values": ["a,b", "c"]}]}"#,
    )
    .unwrap();

    #[derive(serde::Serialize)]
    enum K {
        #[serde(rename = "a|b")]
        Bar,
        #[serde(rename = "c")]
        C,
    }
    #[derive(serde::Serialize)]
    enum Ks {
        #[serde(rename = "a,b")]
        Comma,
        #[serde(rename = "c")]
        C,
    }
    #[derive(serde::Serialize)]
    struct R {
        k: K,
        ks: Vec<Ks>,
    }

    let doc = Records {
        header: Count { n: 3 },
        records: vec![
            R {
                k: K::Bar,
                ks: vec![Ks::Comma, Ks::C],
            },
            R {
                k: K::C,
                ks: vec![Ks::C, Ks::Comma],
            },
            R {
                k: K::Bar,
                ks: vec![Ks::Comma],
            },
        ],
    };
    let before = super::fast::WRITTEN.with(|w| w.get());
    assert_eq!(
        super::to_string_with_contract(&doc, &c).unwrap(),
        "e|n=3\na\\|b|a\\,b,c\nc|c,a\\,b\na\\|b|a\\,b"
    );
    assert_eq!(super::fast::WRITTEN.with(|w| w.get()) - before, 3);
}
