//! The round-trip check of the reference (`roundtrip_ok`): a canonical
//! object written as text and read back is the same object, and that text
//! read and written again is the same text.

use serde_json::Value;

use crate::contract::Contract;
use crate::error::{Error, Result};
use crate::ser::dumps;
use crate::value::{equivalent, parse};

/// Checks both directions of the round trip for a canonical object:
///
/// 1. object → text → object: `parse(dumps(value))` is the same canonical
///    object as `value` ([`equivalent`]: keys as sets, numbers by value);
/// 2. text → object → text: `dumps(parse(text))` is `text` again, byte for
///    byte (the text is stable).
///
/// Returns the canonical text. An object the contract refuses is the
/// serializer's error (with the code and line the parser would report); a
/// round trip that changes something is an [`Error`] saying which
/// direction and what. `mini check-forks` runs it on every fixture pair.
///
/// ```
/// let c = mini::Contract::from_json(
///     r#"{"prefix": "t", "core": [{"name": "title", "type": "str"}]}"#).unwrap();
/// let obj = serde_json::json!({"prefix": "t", "header": {"n": 1, "v": 1}, "records": [{"title": "a|b"}]});
/// assert_eq!(mini::check_roundtrip(&obj, &c).unwrap(), "t|n=1\na\\|b");
/// assert!(mini::roundtrip_ok(&obj, &c));
/// // a key the contract does not have is lost on the way: no round trip
/// let extra = serde_json::json!({"prefix": "t", "header": {"n": 1, "v": 1}, "records": [{"title": "a", "note": "x"}]});
/// assert!(!mini::roundtrip_ok(&extra, &c));
/// ```
pub fn check_roundtrip(value: &Value, contract: &Contract) -> Result<String> {
    let text = dumps(value, contract)?;
    let back = parse(&text, contract).map_err(|e| {
        Error::message(format!(
            "object → text → object: the text dumps wrote does not parse: {e}"
        ))
    })?;
    let back = back.into_canonical();
    if !equivalent(value, &back) {
        return Err(Error::message(format!(
            "object → text → object changed the object: {value} became {back} \
             (a key the contract does not name, or a value written differently, is not kept)"
        )));
    }
    let again = dumps(&back, contract)?;
    if again != text {
        return Err(Error::message(format!(
            "text → object → text is not stable: {text:?} became {again:?}"
        )));
    }
    Ok(text)
}

/// Whether [`check_roundtrip`] passes (the reference's `roundtrip_ok`).
pub fn roundtrip_ok(value: &Value, contract: &Contract) -> bool {
    check_roundtrip(value, contract).is_ok()
}
