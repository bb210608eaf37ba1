//! Depending on mini-format must not change serde_json for the rest of a
//! user's build (ADR 0019): with the default features, serde_json's
//! `arbitrary_precision` stays off, so a user's `#[serde(untagged)]` and
//! `#[serde(flatten)]` types holding numbers still deserialize.
//!
//! Under `--features arbitrary_precision` these types break, as documented:
//! the test then checks nothing and says so by not existing.
#![cfg(not(feature = "arbitrary_precision"))]

use serde::Deserialize;

#[derive(Debug, PartialEq, Deserialize)]
#[serde(untagged)]
enum Amount {
    Number(f64),
    Text(String),
}

#[derive(Debug, PartialEq, Deserialize)]
struct Inner {
    ratio: f64,
}

#[derive(Debug, PartialEq, Deserialize)]
struct Outer {
    id: u32,
    #[serde(flatten)]
    inner: Inner,
}

#[test]
fn users_untagged_enum_with_an_f64_still_deserializes() {
    // the core is linked into this test binary: prove it by using it
    const { assert!(!mini::ARBITRARY_PRECISION) };
    let c =
        mini::Contract::from_json(r#"{"prefix": "p", "core": [{"name": "x", "type": "float"}]}"#)
            .unwrap();
    assert!(mini::parse("p|n=1\n1.5", &c).is_ok());

    let v: Vec<Amount> = serde_json::from_str(r#"[1.5, "two"]"#).unwrap();
    assert_eq!(v, [Amount::Number(1.5), Amount::Text("two".into())]);
}

#[test]
fn users_flattened_struct_with_an_f64_still_deserializes() {
    let o: Outer = serde_json::from_str(r#"{"id": 1, "ratio": 0.25}"#).unwrap();
    assert_eq!(
        o,
        Outer {
            id: 1,
            inner: Inner { ratio: 0.25 }
        }
    );
}
