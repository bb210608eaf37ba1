//! The direct encoder: a serde `Serializer` that writes `.mini` text from
//! a value shaped like the canonical object, without building a
//! `serde_json::Value` per record.
//!
//! It writes exactly what [`crate::dumps`] writes for the same value (the
//! header goes through `dumps`' own header encoder). It knows only what the
//! text must look like; whenever it meets something `dumps` would refuse or
//! that it does not handle (a type that does not fit the field, a null
//! required value, an unknown key, a string whose outer whitespace would be
//! lost, a selection that is not a set of in-range indices, …) it gives up
//! (`None`), and the caller falls back to `dumps`, which reports the error
//! with its code and line.
//!
//! Its output is checked value by value as it is written, with the engine's
//! own functions (ADR 0004, revised): `check_atom` on every typed value,
//! `check_arity` on every list against the encoded header's facts, the
//! marker rule, `Uniques` for unique scalars, and `check_header` on the
//! header line. When those checks cannot all run ([`record_checks`]), the
//! caller checks the text with [`crate::check`], like `dumps`' own.

use std::fmt::Write as _;

use serde::ser::{self, Impossible, Serialize};
use serde_json::{Map, Value};

use crate::check::{self, check_atom, HeaderInfo, Uniques};
use crate::contract::{Component, Contract, Field, Kind, MarkerRule, Scalar, ScalarType};
use crate::number::{self, Dec};
use crate::syntax::{self, escape_element_into, escape_scalar_sep_into, is_space, Line};
use crate::value::dumps::{encode_header, survives};

/// Gave up: the caller falls back to `dumps`.
#[derive(Debug)]
pub(crate) struct GiveUp;

impl std::fmt::Display for GiveUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not encodable directly")
    }
}

impl std::error::Error for GiveUp {}

impl ser::Error for GiveUp {
    fn custom<T: std::fmt::Display>(_msg: T) -> Self {
        GiveUp
    }
}

type R<T = ()> = Result<T, GiveUp>;

/// The encoder's text, and whether it was verified value by value.
pub(crate) struct Encoded {
    /// The `.mini` text.
    pub text: String,
    /// True when every value, arity, selection, unique value and the header
    /// line were checked by the engine's functions as the text was written
    /// (ADR 0004, revised): the caller need not run `validate` on it. False
    /// when the checks could not all run (the header came after the records,
    /// a count key names `n`, a unique field is not a scalar): the caller
    /// validates the text.
    pub verified: bool,
}

/// Encodes `value` (shaped like the canonical object) under `contract`;
/// `None` when `dumps` must handle it.
pub(crate) fn encode<T: Serialize + ?Sized>(value: &T, contract: &Contract) -> Option<Encoded> {
    let mut doc = Doc {
        contract,
        sep: contract.separator(),
        header: None,
        records: String::new(),
        count: 0,
        seen_records: false,
        slots: contract.fields().iter().map(|_| Slot::default()).collect(),
        comps: Vec::new(),
        checks: None,
        uniques: Uniques::new(contract),
        key: String::new(),
    };
    value.serialize(&mut doc).ok()?;
    if !doc.seen_records {
        return None;
    }
    let empty = Map::new();
    let header = match &doc.header {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(h)) => h,
        Some(_) => return None,
    };
    let mut out = encode_header(contract, header, doc.count)?;
    let verified = doc.checks.is_some() && {
        // the header line itself, by the engine
        let mut diags = Vec::new();
        let line = Line {
            number: 1,
            text: &out,
        };
        check::check_header(line, contract, &mut diags);
        diags.is_empty()
    };
    out.reserve(doc.records.len());
    out.push_str(&doc.records);
    Some(Encoded {
        text: out,
        verified,
    })
}

/// Whether the records can be checked value by value, and the header facts
/// they are checked against: the header (with a provisional `n`) must be
/// known before the first record, no count key may name `n` (it is only
/// known at the end), and every unique field must be a scalar.
fn record_checks(contract: &Contract, header: Option<&Value>) -> Option<HeaderInfo> {
    let fields = contract.fields();
    let count_key_n = fields.iter().any(|f| match &f.kind {
        Kind::List { arity, .. } | Kind::MList { arity, .. } => {
            arity.count_key.as_deref() == Some("n")
        }
        _ => false,
    });
    let unique_compound = fields
        .iter()
        .any(|f| f.unique && !matches!(f.kind, Kind::Scalar(_)));
    if count_key_n || unique_compound {
        return None;
    }
    let empty = Map::new();
    let header = match header {
        Some(Value::Object(h)) => h,
        Some(Value::Null) => &empty,
        _ => return None,
    };
    let line = encode_header(contract, header, 0)?;
    let mut diags = Vec::new();
    let info = check::check_header(
        Line {
            number: 1,
            text: &line,
        },
        contract,
        &mut diags,
    );
    diags.is_empty().then_some(info)
}

/// The text of one field of the record being written.
#[derive(Default)]
struct Slot {
    /// The field text (a marked list: its elements, unmarked).
    text: String,
    /// Whether a non-null value was given.
    set: bool,
    /// A marked list: the end offset of each element in `text`.
    ends: Vec<usize>,
    /// A marked list: the selected indices (ascending once checked).
    selected: Vec<usize>,
    /// A marked list: the selection given (`NULL`, `ONE` index or `MANY`).
    sel_kind: u8,
    /// A list: the number of elements written.
    count: usize,
}

impl Slot {
    fn clear(&mut self) {
        self.text.clear();
        self.set = false;
        self.ends.clear();
        self.selected.clear();
        self.sel_kind = NULL;
        self.count = 0;
    }
}

struct Doc<'c> {
    contract: &'c Contract,
    sep: char,
    header: Option<Value>,
    records: String,
    count: usize,
    seen_records: bool,
    slots: Vec<Slot>,
    /// Tuple components being written (reused).
    comps: Vec<Option<String>>,
    /// The header facts records are checked against, when they can be
    /// checked value by value ([`record_checks`]).
    checks: Option<HeaderInfo>,
    /// The unique values claimed so far (when `checks` is set).
    uniques: Uniques,
    /// A unique key being built (reused).
    key: String,
}

impl Doc<'_> {
    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> R {
        if key == "prefix" {
            match serde_json::to_value(value).map_err(|_| GiveUp)? {
                Value::Null => {}
                Value::String(p) if p == self.contract.prefix() => {}
                _ => return Err(GiveUp),
            }
        } else if key == "header" {
            self.header = Some(serde_json::to_value(value).map_err(|_| GiveUp)?);
        } else if key == self.contract.records_key() {
            self.seen_records = true;
            self.checks = record_checks(self.contract, self.header.as_ref());
            value.serialize(Records { doc: self })?;
        }
        Ok(())
    }

    /// Writes the record whose fields are in the slots.
    fn finish_record(&mut self) -> R {
        let out = &mut self.records;
        out.push('\n');
        let start = out.len();
        let mut last_non_empty = start;
        for (i, (f, slot)) in self
            .contract
            .fields()
            .iter()
            .zip(&mut self.slots)
            .enumerate()
        {
            if i > 0 {
                out.push('|');
            }
            let before = out.len();
            if !slot.set {
                if !f.optional {
                    return Err(GiveUp);
                }
            } else if let Kind::MList { marker, .. } = &f.kind {
                marked_list(out, slot, *marker)?;
            } else {
                out.push_str(&slot.text);
            }
            if !f.extension || out.len() > before {
                last_non_empty = out.len();
            }
        }
        out.truncate(last_non_empty);
        if let Some(header) = &self.checks {
            // a line of whitespace is skipped by the reader, not a record
            if out[start..].chars().all(is_space) {
                return Err(GiveUp);
            }
            let fields = self.contract.fields();
            for (i, (f, slot)) in fields.iter().zip(&self.slots).enumerate() {
                if !slot.set {
                    continue;
                }
                match &f.kind {
                    Kind::List { arity, .. } | Kind::MList { arity, .. } => {
                        check::check_arity(slot.count, arity, header).map_err(|_| GiveUp)?;
                    }
                    Kind::Scalar(s) if f.unique => {
                        let text = if slot.text.contains('\\') {
                            std::borrow::Cow::Owned(syntax::unescape(&slot.text, self.sep))
                        } else {
                            std::borrow::Cow::Borrowed(slot.text.as_str())
                        };
                        let atom = check_atom(text, s, true).map_err(|_| GiveUp)?;
                        self.key.clear();
                        atom.unique_key(&mut self.key);
                        if !self.uniques.claim(i, &self.key) {
                            return Err(GiveUp);
                        }
                    }
                    _ => {}
                }
            }
        }
        self.count += 1;
        Ok(())
    }
}

/// Writes a marked list: its elements, `*` after the selected ones, after
/// checking the selection as `dumps` does.
fn marked_list(out: &mut String, slot: &mut Slot, rule: MarkerRule) -> R {
    let len = slot.ends.len();
    let sel = &mut slot.selected;
    match (rule.is_single(), slot.sel_kind) {
        (_, NULL) => sel.clear(),
        (true, ONE) | (false, MANY) => {}
        _ => return Err(GiveUp),
    }
    sel.sort_unstable();
    if sel.iter().any(|&i| i >= len) || sel.windows(2).any(|w| w[0] == w[1]) {
        return Err(GiveUp);
    }
    let n = sel.len();
    if !rule.allows(n) {
        return Err(GiveUp);
    }
    let mut start = 0;
    let mut next = sel.iter().peekable();
    for (i, &end) in slot.ends.iter().enumerate() {
        out.push_str(&slot.text[start..end]);
        if next.peek() == Some(&&i) {
            next.next();
            out.push('*');
        }
        start = end;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// document level
// ---------------------------------------------------------------------------

/// Refuses every serde method not listed (the caller falls back).
macro_rules! refuse {
    ($($method:ident($($arg:ty),*))*) => {$(
        fn $method(self, $(_: $arg),*) -> R<Self::Ok> {
            Err(GiveUp)
        }
    )*};
}

macro_rules! refuse_all_but_structs {
    () => {
        refuse! {
            serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32)
            serialize_i64(i64) serialize_u8(u8) serialize_u16(u16) serialize_u32(u32)
            serialize_u64(u64) serialize_f32(f32) serialize_f64(f64) serialize_char(char)
            serialize_str(&str) serialize_bytes(&[u8]) serialize_none() serialize_unit()
            serialize_unit_struct(&'static str)
            serialize_unit_variant(&'static str, u32, &'static str)
        }
        fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R<Self::Ok> {
            v.serialize(self)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            v: &T,
        ) -> R<Self::Ok> {
            v.serialize(self)
        }
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> R<Self::Ok> {
            Err(GiveUp)
        }
        fn serialize_tuple(self, _: usize) -> R<Self::SerializeTuple> {
            Err(GiveUp)
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> R<Self::SerializeTupleStruct> {
            Err(GiveUp)
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> R<Self::SerializeTupleVariant> {
            Err(GiveUp)
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> R<Self::SerializeStructVariant> {
            Err(GiveUp)
        }
    };
}

/// `SerializeMap` (and with `struct`, `SerializeStruct`) for a type of
/// keyed entries: each key and value go to its `entry` (a map's key is
/// written by [`KeySer`] and kept in its `key` until the value comes), and
/// `end` to its `finish`.
macro_rules! keyed {
    ($t:ty => $ok:ty $(, $strukt:ident)?) => {
        impl ser::SerializeMap for $t {
            type Ok = $ok;
            type Error = GiveUp;
            fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> R {
                self.key = Some(key.serialize(KeySer)?);
                Ok(())
            }
            fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> R {
                let key = self.key.take().ok_or(GiveUp)?;
                self.entry(&key, value)
            }
            fn end(self) -> R<$ok> {
                self.finish()
            }
        }
        $(keyed!(@$strukt $t => $ok);)?
    };
    (@struct $t:ty => $ok:ty) => {
        impl ser::SerializeStruct for $t {
            type Ok = $ok;
            type Error = GiveUp;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> R {
                self.entry(key, value)
            }
            fn end(self) -> R<$ok> {
                self.finish()
            }
        }
    };
}

mod doc;
mod field;
mod record;
mod scalar;
mod selection;

use doc::*;
use field::*;
use record::*;
use scalar::*;
use selection::*;

#[cfg(test)]
mod tests {
    use super::shortest_plain;

    /// `zmij` + the `.0` rule writes exactly what `Display` writes, for
    /// f64 values of every magnitude in the plain range.
    #[test]
    fn shortest_plain_is_display() {
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
        let mut out = String::new();
        let mut checked = 0;
        let fixed = [
            1.0,
            0.1,
            0.5,
            2.5,
            1e-5,
            9.999e-6,
            1e-15,
            123456789012345.6,
            0.3,
        ];
        for i in 0..400_000u64 {
            let x = if (i as usize) < fixed.len() {
                fixed[i as usize]
            } else {
                let r = next();
                match i % 3 {
                    // any bit pattern
                    0 => f64::from_bits(r),
                    // short decimals, like money and scores
                    1 => (r % 2_000_001) as f64 / 10f64.powi((r >> 40) as i32 % 9) - 100.0,
                    // every magnitude of the range
                    _ => (r as f64 / u64::MAX as f64) * 10f64.powi((r >> 50) as i32 % 31 - 15),
                }
            };
            for v in [x, -x] {
                if !v.is_finite() || v == 0.0 || !(1e-15..1e15).contains(&v.abs()) {
                    continue;
                }
                out.clear();
                shortest_plain(&mut out, v).unwrap();
                assert_eq!(out, v.to_string(), "{v:e}");
                checked += 1;
            }
        }
        assert!(checked > 200_000, "only {checked} values in range");
    }
}
