//! # mini_arrow — `.mini` documents as Arrow record batches and Parquet files
//!
//! A contract gives every position of a `.mini` record a name and a type,
//! so a family maps onto a typed columnar schema with no guessing
//! ([`schema`]). A [`Converter`] reads one or many documents (a `&str`, an
//! [`io::Read`](std::io::Read), a file, any iterator of them) into
//! [`RecordBatch`](arrow_array::RecordBatch)es of a chosen size, one line
//! at a time through the core's [`mini::PushParser`] (memory bounded by the
//! batch size and the longest line, not by the input), strictly or
//! leniently; [`Converter::write_parquet`] and [`Converter::write_ipc`]
//! write the batches as they come.
//!
//! ```
//! use mini_arrow::{Converter, Input, Options};
//!
//! let contract = mini::Contract::from_json(r#"{
//!     "prefix": "todo", "records_key": "tasks",
//!     "core": [
//!         {"name": "title", "type": "str"},
//!         {"name": "done", "type": "bool"},
//!         {"name": "due", "type": "date", "optional": true}
//!     ]
//! }"#)?;
//! let converter = Converter::new(&contract, Options::default())?;
//! let text = "todo|n=2|model=m1\nbuy milk|false|2026-12-24\nwrite docs|true|";
//! let mut parquet = Vec::new();
//! let summary = converter.write_parquet([Input::text("a.mini", text)], &mut parquet)?;
//! assert_eq!((summary.documents, summary.records), (1, 2));
//! assert!(summary.diagnostics.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The mapping (ADR 0030): `str` → `Utf8`; `int` → `Int64` (`UInt64` when
//! the contract's bounds need it; bounds beyond 64 bits are a
//! [`Error::Schema`] naming the field, a value beyond the column's type an
//! error naming field and line); `float` → `Float64`; `bool` → `Boolean`;
//! `enum` → `Dictionary(Int32, Utf8)`; `date` → `Date32`; `decimal` →
//! `Decimal128(p, s)` when the contract bounds it on both sides (`p` and
//! `s` read from the bounds as written: `"max": "99999.99"` is
//! `Decimal128(7, 2)`), else `Utf8` holding the canonical text; `list` →
//! `List<item>`; `mlist` → `List<item>` under its `json.items` name plus
//! the selection under its `json.selected` name (`Int32`, or
//! `List<Int32>` for `at_least_one`/`any`); `tuple` → `Struct`; optional →
//! nullable. The document header is a `header` struct column (the typed
//! keys, `n` and `v`) plus `header_extra` (`Map<Utf8, Utf8>`, the
//! undeclared keys such as `model=`); the contract itself is schema
//! metadata (`mini.prefix`, `mini.version`, `mini.records_key`,
//! `mini.contract`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod back;
mod build;
mod error;
mod reader;
mod schema;
mod write;

pub use back::to_json_rows;
pub use error::{Diagnostic, Error, Result};
pub use reader::{Batches, Converter, Input, Options, Summary};
pub use schema::{
    schema, schema_with, HEADER_COLUMN, HEADER_EXTRA_COLUMN, LINE_COLUMN, SOURCE_COLUMN,
};
pub use write::default_writer_properties;

/// The Arrow and Parquet crates this one is built on, re-exported so that a
/// user's versions match.
pub use arrow_array;
pub use arrow_ipc;
pub use arrow_schema;
pub use parquet;

/// This crate's README, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
