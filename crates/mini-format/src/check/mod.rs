//! The engine: typing and every SPEC 1.1 rule, the one set of rules every
//! path goes through (strict, lenient, streaming, the serializer's checks,
//! validation and the typed serde path). It turns the syntax layer's fields
//! into typed values and reports every violation with its code, line and
//! field. It builds no JSON: the canonical value is built from its output by
//! `crate::value` (ADR 0019).

mod engine;
mod fast;
mod header;
mod hint;
mod key_table;
mod record;
mod scalar;
mod scratch;
mod unique;

#[cfg(test)]
pub(crate) use fast::int_list_cases;

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value;

pub use engine::{document_errors, Checked, Engine, Finished};
pub(crate) use fast::{Num, Sink, Validator, Walk};
pub use header::check_header;
pub use hint::{
    end_note, fence_or_prose_note, header_hint, looks_like_fence, looks_like_prose, with_note,
    without_end_note, EXTRACT_REMEDY, TRUNCATION_NOTE,
};
pub(crate) use record::{arity_allows, check_arity, check_field, check_marker};
pub use record::{check_record, check_record_into, RecordOutcome};
pub use scalar::{bound_text, check_atom, check_float, Atom, Violation};
pub(crate) use scalar::{check_small_int, enum_has, key_tag, plain_finite_float, read_float};
pub(crate) use scratch::relife;
use scratch::Pools;
pub use scratch::Scratch;
pub use unique::Uniques;
pub(crate) use unique::{unique_key, Key};

use crate::contract::{Arity, Contract, Kind, MarkerRule, Scalar, ScalarType};
use crate::error::{Code, Diagnostic};
use crate::number;
use crate::syntax::{self, Element, Line, RawField, SyntaxError};

/// The selection of a marked list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// `exactly_one` / `at_most_one`: an index or none.
    One(Option<usize>),
    /// `at_least_one` / `any`: ascending indices.
    Many(Vec<usize>),
}

/// The typed value of one field of a record.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue<'a> {
    /// An empty optional field, or an absent extension: the field's
    /// `default` (null when it has none).
    Default,
    /// A scalar.
    Atom(Atom<'a>),
    /// A list.
    List(Vec<Atom<'a>>),
    /// A marked list and its selection.
    MList(Vec<Atom<'a>>, Selection),
    /// A tuple; `None` for an empty optional component.
    Tuple(Vec<Option<Atom<'a>>>),
}

/// One value of the header line, as the engine read it.
#[derive(Debug, Clone, PartialEq)]
pub enum HeaderValue {
    /// A declared key's checked value.
    Typed(FieldValue<'static>),
    /// An undeclared key: its decoded text.
    Text(String),
    /// A declared key the line does not write: the contract's default.
    Default(Value),
}

/// How many records of `record_size` bytes a reader reserves room for
/// before reading them, when the header's `n` says `expected` are coming
/// and `input_left` bytes of the document are still unread (0 when not
/// known): `expected`, capped at as many bytes of records as the input
/// has left (at 1 MiB of records when the input has less), so that a
/// header's count never sizes an allocation alone (issue 21), and a true
/// one sizes it once (ADR 0070: the vector grown from 1 MiB by doubling
/// left rubric's typed decode at 100,000 records about 1,600 page faults
/// a document over serde_json's).
/// The typed reader and the canonical value's builder both size their
/// records' vector by it.
#[inline]
pub(crate) fn records_to_reserve(expected: usize, record_size: usize, input_left: usize) -> usize {
    expected.min(input_left.max(1 << 20) / record_size.max(1))
}

/// What the header told: its entries and the facts records are checked
/// against.
#[derive(Debug, Clone, Default)]
pub struct HeaderInfo {
    /// The prefix as written.
    pub prefix: String,
    /// The entries in canonical order: the keys as written (first
    /// occurrence), then the defaults of declared keys not written.
    pub entries: Vec<(String, HeaderValue)>,
    /// `n` when present and well typed; `None` when absent or ill-typed
    /// (unknown, never 0).
    pub n: Option<u64>,
    /// Whether `n` appeared in the header at all.
    pub n_present: bool,
    /// A declared `n` that is an int no line count can equal (negative, or
    /// beyond 64 bits), in canonical digits: E04 once the lines are counted.
    pub n_impossible: Option<String>,
    /// The document version (`v`, 1 when absent or ill-typed).
    pub version: u64,
    /// The physical line of the header.
    pub line: usize,
    /// The int entries (`u64` when they fit), cached by [`check_header`] so
    /// that count keys are compared without a lookup or a parse per record.
    counts: Vec<(String, Option<u64>)>,
}

impl HeaderInfo {
    /// The value of a header key, if the header has it.
    pub fn get(&self, key: &str) -> Option<&HeaderValue> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The canonical digits of an int header key used as a count key, if
    /// known (it may be negative or huge: then no list matches it).
    pub fn count(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            HeaderValue::Typed(FieldValue::Atom(Atom::Int(d))) => Some(d.to_string()),
            HeaderValue::Default(Value::Number(n)) => {
                Some(n.to_string()).filter(|t| number::is_int(t))
            }
            _ => None,
        }
    }
}

impl FieldValue<'_> {
    /// The value with every text owned.
    pub fn into_owned(self) -> FieldValue<'static> {
        let own = |a: Atom<'_>| a.into_owned();
        match self {
            FieldValue::Default => FieldValue::Default,
            FieldValue::Atom(a) => FieldValue::Atom(own(a)),
            FieldValue::List(v) => FieldValue::List(v.into_iter().map(own).collect()),
            FieldValue::MList(v, s) => FieldValue::MList(v.into_iter().map(own).collect(), s),
            FieldValue::Tuple(v) => FieldValue::Tuple(v.into_iter().map(|p| p.map(own)).collect()),
        }
    }
}

fn diag(code: Code, line: usize, field: &str, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, line, Some(field.to_string()), msg)
}

fn syntax_diag(line: usize, field: Option<&str>, e: &SyntaxError) -> Diagnostic {
    Diagnostic::new(Code::E09, line, field.map(str::to_string), e.to_string())
}
