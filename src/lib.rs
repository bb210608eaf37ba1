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

pub mod check;
#[cfg(feature = "cli")]
pub mod cli;
pub mod conformance;
pub mod contract;
mod error;
pub mod syntax;
pub mod value;

pub use contract::{Contract, Registry};
pub use error::{Code, Diagnostic, Error, Limit, Result};
pub use value::{
    detect_prefix, dumps, from_utf8, parse, parse_lenient, parse_lenient_with, parse_with,
    Diagnostics, Document, ParseOptions, Record,
};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
