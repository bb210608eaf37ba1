//! The typed serializer: any `Serialize` value → canonical `.mini` text.
//!
//! The value is shaped like the canonical object (which is what
//! `#[derive(Serialize)]` on a document type produces). A direct serde
//! `Serializer` ([`direct`]) writes the text record by record, without
//! building a `serde_json::Value`, exactly as [`crate::dumps`] would write
//! it, and checks every value, list, selection, unique value and the header
//! with the validation engine's own functions as it writes (ADR 0004,
//! revised; when that is not possible the text is verified by
//! [`crate::check`], as `dumps` verifies its own). Whenever the direct encoder meets
//! something it does not handle, or its text does not validate, the value
//! goes through `serde_json::to_value` and [`crate::dumps`], which refuses
//! it with the parser's code and line. Either way nothing is emitted that
//! the parser would reject.

mod direct;

use std::io::Write;

use serde::Serialize;

use crate::contract::Contract;
use crate::error::Result;
use crate::typed::Mini;

/// Serializes a document type (deriving `Mini` with `#[mini(prefix = …)]`)
/// to canonical `.mini` text.
pub fn to_string<T: Serialize + Mini>(value: &T) -> Result<String> {
    let contract = T::cached_contract()?;
    to_string_with_contract(value, &contract)
}

/// [`to_string`] into a writer (a final newline is not added).
pub fn to_writer<W: Write, T: Serialize + Mini>(mut writer: W, value: &T) -> Result<()> {
    let text = to_string(value)?;
    writer.write_all(text.as_bytes())?;
    Ok(())
}

/// Serializes any `Serialize` value shaped like the canonical object under
/// a given contract.
pub fn to_string_with_contract<T: Serialize + ?Sized>(
    value: &T,
    contract: &Contract,
) -> Result<String> {
    if let Some(enc) = direct::encode(value, contract) {
        if enc.verified {
            // Checked value by value with the engine's functions (ADR 0004,
            // revised); debug builds (tests, fuzzing) also run the whole
            // engine and require the same verdict.
            debug_assert!(
                crate::value::diagnostics(&enc.text, contract).is_empty(),
                "the per-value checks accepted text that validate rejects:\n{}",
                enc.text
            );
            return Ok(enc.text);
        }
        if crate::value::diagnostics(&enc.text, contract).is_empty() {
            return Ok(enc.text);
        }
    }
    let json = serde_json::to_value(value)?;
    crate::value::dumps(&json, contract)
}

/// The old name of [`to_string_with_contract`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `to_string_with_contract` (ADR 0019: a suffix says what the variant adds)"
)]
pub fn to_string_with<T: Serialize + ?Sized>(value: &T, contract: &Contract) -> Result<String> {
    to_string_with_contract(value, contract)
}

#[cfg(test)]
mod tests {
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

    /// The direct encoder writes what `dumps` writes (of the same value as
    /// JSON), for typed values.
    #[test]
    fn direct_encoder_agrees_with_dumps() {
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
            let direct = super::direct::encode(&doc, &c).expect("written directly");
            let dumps = crate::value::dumps(&serde_json::to_value(&doc).unwrap(), &c).unwrap();
            assert!(direct.verified, "checked value by value");
            assert_eq!(direct.text, dumps, "{x}");
            assert_eq!(super::to_string_with_contract(&doc, &c).unwrap(), dumps);
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
            let dumps = crate::value::dumps(&serde_json::to_value(&doc).unwrap(), &c);
            let got = super::to_string_with_contract(&doc, &c);
            assert_eq!(
                got.as_ref().map_err(ToString::to_string),
                dumps.as_ref().map_err(ToString::to_string)
            );
            if let Some(direct) = super::direct::encode(&doc, &c) {
                if crate::value::check(&direct.text, &c).is_ok() {
                    assert_eq!(Some(direct.text), dumps.ok());
                }
            }
        }
    }

    /// What `dumps` refuses, `to_string_with_contract` refuses with the same errors.
    #[test]
    fn refusals_are_dumps_refusals() {
        let c = contract();
        let base = json!({
            "id": "a", "options": ["a", "b", "c"], "answer": 1, "many": ["x"], "picked": [0],
            "x": 1.5, "n": 1, "ok": true, "pt": {"a": 1}
        });
        let mut cases = Vec::new();
        for (k, v) in [
            ("answer", json!(3)),
            ("answer", json!([1])),
            ("picked", json!(0)),
            ("picked", json!([0, 0])),
            ("n", json!(1.5)),
            ("n", json!(-9)),
            ("x", json!("1")),
            ("id", json!(" a")),
            ("id", json!("")),
            ("ok", json!(1)),
            ("pt", json!({"a": 1, "c": 2})),
            ("pt", json!({"b": "x"})),
            ("options", json!(["a", "b"])),
            ("zzz", json!(1)),
        ] {
            let mut rec = base.clone();
            rec[k] = v;
            cases.push(json!({"header": {"k": 3}, "items": [rec]}));
        }
        cases.push(json!({"prefix": "other", "header": {"k": 3}, "items": [base.clone()]}));
        cases.push(json!({"header": {"k": 3}, "items": [base.clone(), base.clone()]}));
        for obj in cases {
            let want = crate::value::dumps(&obj, &c).map_err(|e| e.to_string());
            let got = super::to_string_with_contract(&obj, &c).map_err(|e| e.to_string());
            assert_eq!(got, want, "{obj}");
        }
    }

    /// The per-value checks run when the header comes first, and give way
    /// to a full `validate` when they cannot all run; either way the result
    /// is `dumps`' (text or errors).
    #[test]
    fn per_value_checks_or_validate() {
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
        let ok = rec(1, "lo", Some("2026-11-30"), &[1, 2]);
        let cases = [
            (json!({"header": {"k": 2}, "records": [ok.clone()]}), true),
            (
                json!({"header": {"k": 2}, "records": [ok, rec(2, "hi", None, &[3, 4])]}),
                true,
            ),
            (
                json!({"header": {"k": 2}, "records": [rec(1, "mid", None, &[1, 2])]}),
                false,
            ),
            (
                json!({"header": {"k": 2}, "records": [rec(1, "lo", Some("2026-02-30"), &[1, 2])]}),
                false,
            ),
            (
                json!({"header": {"k": 2}, "records": [rec(-1, "lo", None, &[1, 2])]}),
                false,
            ),
            (
                json!({"header": {"k": 3}, "records": [rec(1, "lo", None, &[1, 2])]}),
                false,
            ),
            (
                json!({"header": {"k": 2}, "records": [rec(7, "lo", None, &[1, 2]), rec(7, "hi", None, &[1, 2])]}),
                false,
            ),
        ];
        for (obj, valid) in cases {
            let want = crate::value::dumps(&obj, &c).map_err(|e| e.to_string());
            assert_eq!(want.is_ok(), valid, "{obj}");
            let got = super::to_string_with_contract(&obj, &c).map_err(|e| e.to_string());
            assert_eq!(got, want, "{obj}");
            // the checks ran value by value, and refused what dumps refuses
            // (with `arbitrary_precision` a `serde_json::Number` arrives as
            // serde_json's private struct, which the writer does not read:
            // it gives up and `dumps` writes the value, ADR 0019)
            let direct = super::direct::encode(&obj, &c);
            assert_eq!(
                direct.as_ref().map(|d| d.verified),
                (valid && !crate::number::ARBITRARY_PRECISION).then_some(true),
                "{obj}"
            );
        }

        // records before the header: written, then verified by `validate`
        #[derive(serde::Serialize)]
        struct Late {
            records: Vec<serde_json::Value>,
            header: serde_json::Value,
        }
        let late = Late {
            records: vec![rec(1, "lo", None, &[1, 2])],
            header: json!({"k": 2}),
        };
        let direct = super::direct::encode(&late, &c);
        if crate::number::ARBITRARY_PRECISION {
            assert!(direct.is_none(), "numbers are serde_json's private struct");
        } else {
            assert!(!direct.expect("written directly").verified);
        }
        assert_eq!(
            super::to_string_with_contract(&late, &c).unwrap(),
            crate::value::dumps(&serde_json::to_value(&late).unwrap(), &c).unwrap()
        );
        let bad = Late {
            records: vec![rec(1, "lo", None, &[1, 2, 3])],
            header: json!({"k": 2}),
        };
        assert!(super::to_string_with_contract(&bad, &c).is_err());
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
        let dumps = crate::value::dumps(&v, &c).unwrap();
        assert_eq!(super::to_string_with_contract(&v, &c).unwrap(), dumps);
        // (with `arbitrary_precision` a `Number` keeps the digits it was
        // made with, and those are what `dumps` writes)
        if !crate::number::ARBITRARY_PRECISION {
            assert_eq!(dumps, format!("f|n=1\n{x}"));
        }
    }
}
