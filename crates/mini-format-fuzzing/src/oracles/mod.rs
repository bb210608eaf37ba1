//! Oracles: one module per fuzz target, each a body that panics (with a
//! message naming the property) when a property fails.

pub(crate) mod canonical_roundtrip;
pub(crate) mod common;
pub(crate) mod contract_json;
pub(crate) mod escape_marker_roundtrip;
pub(crate) mod lexer_equivalence;
pub(crate) mod parse_bytes;
pub(crate) mod stream_chunks;
pub(crate) mod typed_equivalence;
pub(crate) mod typed_roundtrip;
