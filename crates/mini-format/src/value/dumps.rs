//! The canonical serializer's `Value` entry point: canonical object +
//! contract → `.mini` text (SPEC 1.1 §9). It is the one serializer of
//! [`crate::to_string`] driven by a `serde_json::Value` (ADR 0023).

use serde_json::Value;

use crate::contract::Contract;
use crate::error::Result;

/// Serializes a canonical object under `contract` into canonical `.mini`
/// text (escaped form, `n` recomputed, `v` omitted when 1, trailing null
/// extensions omitted, no final newline).
///
/// An object that is not valid under the contract is refused with every
/// error, with the code and line the parser reports for the same violation
/// (1 for the header, `i + 2` for record `i`), in the parser's order.
pub fn dumps(obj: &Value, contract: &Contract) -> Result<String> {
    crate::ser::to_string_with_contract(obj, contract)
}
