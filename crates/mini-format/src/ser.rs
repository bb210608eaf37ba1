//! The serializer: any `Serialize` value shaped like the canonical object
//! → canonical `.mini` text. One serializer (ADR 0023, amending 0004):
//! [`to_string`], [`to_writer`], [`to_string_with_contract`] and
//! [`crate::dumps`] (the same serializer driven by a `serde_json::Value`)
//! write straight to their output, checking each value once, as it is
//! written, with the validation engine's own rule functions
//! (`check_atom`, `check_arity`, `Uniques`, the marker rules), and trusting
//! what the Rust type already guarantees (an `i64` needs only its range
//! check, a `String` only its escaping and the whitespace rules). What the
//! text cannot carry is refused with the code the parser gives the same
//! violation; what the engine would find on the text is reported as the
//! parser reports it (code, line, field, message, order). Nothing is
//! emitted that the parser would reject, and nothing is parsed back.
//!
//! The value is walked twice at the top: a first walk reads the `prefix`,
//! the `header` (kept, checked and escaped, in a small buffer) and the
//! records' length, without visiting the records; the second writes the
//! header line once, then each record as it comes.

mod compound;
mod doc;
mod enc;
pub(crate) mod fast;
mod header;
mod leaf;
mod out;
mod record;
mod report;
mod short_decimal;
mod sink;
#[cfg(test)]
mod tests;

use std::io::Write;

use serde::Serialize;

use crate::contract::Contract;
use crate::error::Result;
use crate::typed::Mini;

/// Serializes a document type (deriving `Mini` with `#[mini(prefix = …)]`)
/// to canonical `.mini` text.
///
/// On error, the [`Error`](crate::Error) lists every diagnostic in the
/// parser's order, as [`crate::dumps`] gives them for the same value.
pub fn to_string<T: Serialize + Mini>(value: &T) -> Result<String> {
    let contract = T::cached_contract()?;
    doc::encode(value, &contract, None, Some(T::__write_records))
}

/// [`to_string`] without the records' derived writer (serde's walk only),
/// for the tests and benchmarks that hold the two to each other. Not
/// public API.
#[doc(hidden)]
pub fn to_string_through_serde<T: Serialize + Mini>(value: &T) -> Result<String> {
    let contract = T::cached_contract()?;
    doc::encode(value, &contract, None, None)
}

/// [`to_string`] into a writer, streamed: the header line, then each record
/// as it is serialized (a final newline is not added). At most a small
/// buffer of whole records (about 8 KiB) is held before it is handed to
/// the writer; the document is never built as a whole, and the writer is
/// flushed at the end.
///
/// # Errors
///
/// When the value is refused (the same errors as [`to_string`]), the writer
/// holds a **partial document**: a prefix of the text cut at a record
/// boundary (possibly empty), the header line and the records handed over
/// before the first record with an error; the rest, that record included,
/// is never written (serialization goes on only to collect every error;
/// a record that would write a blank line, E04, counts as one with an
/// error). Only a records sequence that gives fewer records than the
/// length it announced is found at its end, after the whole text has been
/// handed over. When the writer itself fails, the error is the I/O error
/// and the writer holds whatever it accepted.
pub fn to_writer<W: Write, T: Serialize + Mini>(mut writer: W, value: &T) -> Result<()> {
    let contract = T::cached_contract()?;
    doc::encode(
        value,
        &contract,
        Some(&mut writer),
        Some(T::__write_records),
    )
    .map(drop)
}

/// Serializes any `Serialize` value shaped like the canonical object under
/// a given contract (the same serializer as [`to_string`] and
/// [`crate::dumps`]).
pub fn to_string_with_contract<T: Serialize + ?Sized>(
    value: &T,
    contract: &Contract,
) -> Result<String> {
    doc::encode(value, contract, None, None)
}

/// The old name of [`to_string_with_contract`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `to_string_with_contract` (ADR 0019: a suffix says what the variant adds)"
)]
pub fn to_string_with<T: Serialize + ?Sized>(value: &T, contract: &Contract) -> Result<String> {
    to_string_with_contract(value, contract)
}

/// Serializes a canonical object under `contract` into canonical `.mini`
/// (the serializer driven by a `serde_json::Value`; the reference's name),
/// text (escaped form, `n` recomputed, `v` omitted when 1, trailing null
/// extensions omitted, no final newline).
///
/// An object that is not valid under the contract is refused with every
/// error, with the code and line the parser reports for the same violation
/// (1 for the header, `i + 2` for record `i`), in the parser's order.
pub fn dumps(obj: &serde_json::Value, contract: &Contract) -> Result<String> {
    to_string_with_contract(obj, contract)
}
