//! # mini — the `.mini` format (SPEC 1.1) for Rust
//!
//! `.mini` is a line-oriented, positional text format in which language
//! models write structured output for closed domains. A header line names a
//! *contract* and declares the record count; each following line is one
//! record whose fields are split by `|`.
//!
//! ```
//! let contract = mini::Contract::from_json(r#"{
//!     "prefix": "q", "records_key": "items",
//!     "header": {"keys": {"k": {"type": "int"}}},
//!     "core": [
//!         {"name": "id", "type": "str", "unique": true},
//!         {"name": "options", "type": "mlist", "count_key": "k",
//!          "json": {"items": "options", "selected": "answer"}}
//!     ]
//! }"#).unwrap();
//! let doc = mini::parse("q|n=1|k=3\nq1|red,green*,blue", &contract).unwrap();
//! let canonical = doc.to_canonical();
//! assert_eq!(canonical["items"][0]["answer"], 1);
//! assert_eq!(mini::dumps(&canonical, &contract).unwrap(), "q|n=1|k=3\nq1|red,green*,blue");
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// No `unwrap()` in library code: every failure is an `Error` (tests may unwrap).
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

// Lets the derive's `::mini::…` paths resolve inside this crate's own tests.
extern crate self as mini;

mod check;
pub mod contract;
mod de;
mod error;
mod number;
mod plan;
mod read;
mod roundtrip;
mod ser;
pub mod stream;
mod syntax;
mod typed;
pub mod value;

pub use contract::{Contract, Registry};
pub use de::{
    from_reader, from_reader_with_limits, from_slice, from_str, from_str_lenient,
    from_str_lenient_with_contract, from_str_with_contract, from_str_with_limits, Deserializer,
    Lenient,
};
pub use error::{Code, Diagnostic, Error, Limit, Result};
/// The attribute reference is the module [`mini::derive`](crate::derive);
/// the trait implemented is [`Mini`](trait@crate::Mini).
#[cfg(feature = "derive")]
pub use mini_format_derive::Mini;
pub use read::Limits;
pub use roundtrip::{check_roundtrip, roundtrip_ok};
pub use ser::{dumps, to_string, to_string_with_contract, to_writer};
pub use stream::{PushOptions, PushParser, StreamEnd};
pub use typed::{Date, Decimal, Mini, MiniDocument};
// the old names, kept as deprecated aliases (ADR 0019)
#[allow(deprecated)]
pub use de::from_str_with;
#[allow(deprecated)]
pub use ser::to_string_with;
#[allow(deprecated)]
pub use stream::{Reader, ReaderOptions};
#[allow(deprecated)]
pub use value::validate;
pub use value::{
    check, detect_prefix, from_utf8, parse, parse_lenient, parse_lenient_with_limits,
    parse_with_limits, Document, ParseReport, Record,
};
#[allow(deprecated)]
pub use value::{parse_lenient_with, parse_with, Diagnostics, ParseOptions};

/// `#[derive(mini::Mini)]`: the attribute reference (a module of
/// documentation only; the derive itself is [`Mini`](macro@crate::Mini)).
#[cfg(feature = "derive")]
#[doc = include_str!("derive.md")]
pub mod derive {}

pub use number::ARBITRARY_PRECISION;

/// The vector lanes this machine's line reader uses, chosen once at run
/// time: `"avx512 (1 × 64 bytes)"` on an x86-64 machine with AVX-512 of
/// the Ice Lake generation or later, `"avx2 (2 × 32 bytes)"` on another
/// with AVX2 and the rest of x86-64-v3, `"narrow (4 × 16 bytes)"`
/// elsewhere (SSE2 on x86-64, NEON on aarch64, scalar code otherwise).
/// Every lane set reads the same text the same way; only the speed
/// differs. Worth reporting beside a benchmark.
///
/// ```
/// let lanes = mini::simd_lanes();
/// assert!(["avx512", "avx2", "narrow"].iter().any(|l| lanes.starts_with(l)));
/// ```
pub fn simd_lanes() -> &'static str {
    syntax::lanes_name()
}

/// Items shared with the derive's expansion and the sibling crates of this
/// workspace (`mini-format-tools`, `mini-format-fuzzing`), which pin this
/// crate's exact version. **Not public API**: nothing here follows semver
/// (ADR 0019), as with serde's `__private`.
#[doc(hidden)]
pub mod __private {
    /// The serde the derive's direct reader names in its bounds.
    pub use serde;
    /// The engine's rule functions and per-line state.
    pub mod check {
        pub use crate::check::*;
    }
    /// Lexical numbers: canonical ints, floats, decimals, exact comparison.
    pub mod number {
        pub use crate::number::*;
    }
    /// The line syntax: lines, fields, list elements, escapes.
    pub mod syntax {
        pub use crate::read::lines;
        pub use crate::syntax::*;
    }
    /// What `#[derive(Mini)]` expands to.
    pub mod typed {
        pub use crate::typed::*;
    }
    /// The direct reader of derived records (ADR 0044).
    pub mod direct {
        pub use crate::de::direct::*;
        pub use crate::de::from_str_through_serde;
    }
    /// The record writer `#[derive(Mini)]` generates (ADR 0047).
    pub mod write {
        pub use crate::ser::fast::derived::*;
        pub use crate::ser::fast::Bail;
        pub use crate::ser::to_string_through_serde;
    }
}

/// This crate's README, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// A tiny deterministic generator (xorshift64) for the unit tests that
/// compare a fast path with its definition on generated inputs.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Every one-byte edit of `text` (ASCII): each character deleted, and each
/// replaced by each of `chars`, for the unit tests that hold a fast walk to
/// the engine on damaged documents.
#[cfg(test)]
pub(crate) fn one_byte_edits(text: &str, chars: &[char]) -> Vec<String> {
    let mut edits = Vec::new();
    for (at, c) in text.char_indices() {
        let mut cut = text.to_string();
        cut.remove(at);
        edits.push(cut);
        for ch in chars {
            let mut edit = text.to_string();
            edit.replace_range(at..at + c.len_utf8(), ch.encode_utf8(&mut [0; 4]));
            edits.push(edit);
        }
    }
    edits
}
