//! The typed serializer: any `Serialize` value → canonical `.mini` text.
//!
//! The value is serialized to its canonical JSON object (which is what
//! `#[derive(Serialize)]` on a document type produces) and written by
//! [`crate::dumps`], so the typed and dynamic paths share one encoder and one
//! verification: an invalid value is refused with the parser's code and
//! line, and nothing is emitted that the parser would reject.

use std::io::Write;

use serde::Serialize;

use crate::contract::Contract;
use crate::error::Result;
use crate::typed::Mini;

/// Serializes a document type (deriving `Mini` with `#[mini(prefix = …)]`)
/// to canonical `.mini` text.
pub fn to_string<T: Serialize + Mini>(value: &T) -> Result<String> {
    let contract = T::cached_contract()?;
    to_string_with(value, &contract)
}

/// [`to_string`] into a writer (a final newline is not added).
pub fn to_writer<W: Write, T: Serialize + Mini>(mut writer: W, value: &T) -> Result<()> {
    let text = to_string(value)?;
    writer.write_all(text.as_bytes())?;
    Ok(())
}

/// Serializes any `Serialize` value shaped like the canonical object under
/// a given contract.
pub fn to_string_with<T: Serialize + ?Sized>(value: &T, contract: &Contract) -> Result<String> {
    let json = serde_json::to_value(value)?;
    crate::dumps(&json, contract)
}
