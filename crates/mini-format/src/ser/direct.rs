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
//! caller checks the text with [`crate::validate`], like `dumps`' own.

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

/// A map key (strings only).
struct KeySer;

impl ser::Serializer for KeySer {
    type Ok = String;
    type Error = GiveUp;
    type SerializeSeq = Impossible<String, GiveUp>;
    type SerializeTuple = Impossible<String, GiveUp>;
    type SerializeTupleStruct = Impossible<String, GiveUp>;
    type SerializeTupleVariant = Impossible<String, GiveUp>;
    type SerializeMap = Impossible<String, GiveUp>;
    type SerializeStruct = Impossible<String, GiveUp>;
    type SerializeStructVariant = Impossible<String, GiveUp>;

    fn serialize_str(self, v: &str) -> R<String> {
        Ok(v.to_string())
    }
    refuse! {
        serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32)
        serialize_i64(i64) serialize_u8(u8) serialize_u16(u16) serialize_u32(u32)
        serialize_u64(u64) serialize_f32(f32) serialize_f64(f64) serialize_char(char)
        serialize_bytes(&[u8]) serialize_none() serialize_unit()
        serialize_unit_struct(&'static str)
        serialize_unit_variant(&'static str, u32, &'static str)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> R<String> {
        Err(GiveUp)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R<String> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R<String> {
        Err(GiveUp)
    }
    fn serialize_seq(self, _: Option<usize>) -> R<Self::SerializeSeq> {
        Err(GiveUp)
    }
    fn serialize_tuple(self, _: usize) -> R<Self::SerializeTuple> {
        Err(GiveUp)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> R<Self::SerializeTupleStruct> {
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
    fn serialize_map(self, _: Option<usize>) -> R<Self::SerializeMap> {
        Err(GiveUp)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self::SerializeStruct> {
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
}

/// The document: a struct or map with `prefix`, `header` and the records.
struct DocMap<'a, 'c> {
    doc: &'a mut Doc<'c>,
    key: Option<String>,
}

impl<'a, 'c> ser::Serializer for &'a mut Doc<'c> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = DocMap<'a, 'c>;
    type SerializeStruct = DocMap<'a, 'c>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    refuse_all_but_structs!();

    fn serialize_seq(self, _: Option<usize>) -> R<Self::SerializeSeq> {
        Err(GiveUp)
    }
    fn serialize_map(self, _: Option<usize>) -> R<DocMap<'a, 'c>> {
        Ok(DocMap {
            doc: self,
            key: None,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<DocMap<'a, 'c>> {
        Ok(DocMap {
            doc: self,
            key: None,
        })
    }
}

impl DocMap<'_, '_> {
    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> R {
        self.doc.entry(key, value)
    }
    fn finish(self) -> R {
        Ok(())
    }
}

keyed!(DocMap<'_, '_> => (), struct);

/// The records array.
struct Records<'a, 'c> {
    doc: &'a mut Doc<'c>,
}

impl<'a, 'c> ser::Serializer for Records<'a, 'c> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Self;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Impossible<(), GiveUp>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    refuse_all_but_structs!();

    fn serialize_seq(self, _: Option<usize>) -> R<Self> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> R<Self::SerializeMap> {
        Err(GiveUp)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self::SerializeStruct> {
        Err(GiveUp)
    }
}

impl ser::SerializeSeq for Records<'_, '_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, rec: &T) -> R {
        for s in &mut self.doc.slots {
            s.clear();
        }
        rec.serialize(RecordSer {
            doc: &mut *self.doc,
            key: None,
            next: 0,
        })?;
        self.doc.finish_record()
    }
    fn end(self) -> R {
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// records
// ---------------------------------------------------------------------------

/// One record: a struct or map of canonical keys.
struct RecordSer<'a, 'c> {
    doc: &'a mut Doc<'c>,
    key: Option<String>,
    /// The field the next key most likely names.
    next: usize,
}

/// Which canonical key of a field a key is.
enum Role {
    Value,
    Selection,
}

/// Which field and canonical key `key` is, looking at field `hint` first
/// (keys usually come in contract order).
fn find_key(fields: &[Field], key: &str, hint: usize) -> Option<(usize, Role)> {
    let role = |f: &Field| match &f.kind {
        Kind::MList {
            items_key,
            selected_key,
            ..
        } => {
            if items_key == key {
                Some(Role::Value)
            } else if selected_key == key {
                Some(Role::Selection)
            } else {
                None
            }
        }
        _ => (f.name == key).then_some(Role::Value),
    };
    if let Some(r) = fields.get(hint).and_then(role) {
        return Some((hint, r));
    }
    fields
        .iter()
        .enumerate()
        .find_map(|(i, f)| role(f).map(|r| (i, r)))
}

impl RecordSer<'_, '_> {
    fn finish(self) -> R {
        Ok(())
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> R {
        let doc = &mut *self.doc;
        let (i, role) = find_key(doc.contract.fields(), key, self.next).ok_or(GiveUp)?;
        // the next key is most likely the next field (or the selection of
        // this marked list)
        self.next = match (&doc.contract.fields()[i].kind, &role) {
            (Kind::MList { .. }, Role::Value) => i,
            _ => i + 1,
        };
        let f: &Field = &doc.contract.fields()[i];
        let slot = &mut doc.slots[i];
        match role {
            Role::Selection => {
                slot.selected.clear();
                slot.sel_kind = value.serialize(SelectionSer {
                    out: &mut slot.selected,
                })?;
                Ok(())
            }
            Role::Value => {
                slot.text.clear();
                slot.ends.clear();
                slot.set = value.serialize(FieldSer {
                    kind: &f.kind,
                    sep: doc.sep,
                    slot,
                    comps: &mut doc.comps,
                })?;
                Ok(())
            }
        }
    }
}

impl ser::Serializer for RecordSer<'_, '_> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    refuse_all_but_structs!();

    fn serialize_seq(self, _: Option<usize>) -> R<Self::SerializeSeq> {
        Err(GiveUp)
    }
    fn serialize_map(self, _: Option<usize>) -> R<Self> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self> {
        Ok(self)
    }
}

keyed!(RecordSer<'_, '_> => (), struct);

const NULL: u8 = 0;
const ONE: u8 = 1;
const MANY: u8 = 2;

/// A marked list's selection: an index (`ONE`), null (`NULL`), or indices
/// (`MANY`).
struct SelectionSer<'a> {
    out: &'a mut Vec<usize>,
}

macro_rules! sel_uint {
    ($($method:ident $t:ty),*) => {$(
        fn $method(self, v: $t) -> R<u8> {
            self.out.push(usize::try_from(v).map_err(|_| GiveUp)?);
            Ok(ONE)
        }
    )*};
}

impl<'a> ser::Serializer for SelectionSer<'a> {
    type Ok = u8;
    type Error = GiveUp;
    type SerializeSeq = Self;
    type SerializeTuple = Impossible<u8, GiveUp>;
    type SerializeTupleStruct = Impossible<u8, GiveUp>;
    type SerializeTupleVariant = Impossible<u8, GiveUp>;
    type SerializeMap = Impossible<u8, GiveUp>;
    type SerializeStruct = Impossible<u8, GiveUp>;
    type SerializeStructVariant = Impossible<u8, GiveUp>;

    sel_uint!(serialize_u8 u8, serialize_u16 u16, serialize_u32 u32, serialize_u64 u64,
        serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64);

    refuse! {
        serialize_bool(bool) serialize_f32(f32) serialize_f64(f64) serialize_char(char)
        serialize_str(&str) serialize_bytes(&[u8]) serialize_unit_struct(&'static str)
        serialize_unit_variant(&'static str, u32, &'static str)
    }
    fn serialize_none(self) -> R<u8> {
        Ok(NULL)
    }
    fn serialize_unit(self) -> R<u8> {
        Ok(NULL)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R<u8> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R<u8> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R<u8> {
        Err(GiveUp)
    }
    fn serialize_seq(self, _: Option<usize>) -> R<Self> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> R<Self::SerializeTuple> {
        Err(GiveUp)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> R<Self::SerializeTupleStruct> {
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
    fn serialize_map(self, _: Option<usize>) -> R<Self::SerializeMap> {
        Err(GiveUp)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self::SerializeStruct> {
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
}

impl ser::SerializeSeq for SelectionSer<'_> {
    type Ok = u8;
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        // an index inside the list: null is not one
        match v.serialize(SelectionSer {
            out: &mut *self.out,
        })? {
            ONE => Ok(()),
            _ => Err(GiveUp),
        }
    }
    fn end(self) -> R<u8> {
        Ok(MANY)
    }
}

// ---------------------------------------------------------------------------
// field values
// ---------------------------------------------------------------------------

/// One field value; `Ok(false)` for null.
struct FieldSer<'a> {
    kind: &'a Kind,
    sep: char,
    slot: &'a mut Slot,
    comps: &'a mut Vec<Option<String>>,
}

/// Where a scalar is written.
#[derive(Clone, Copy)]
enum Pos {
    /// A scalar field under the list separator: escaped as a scalar, never
    /// empty.
    Field(char),
    /// A list element or a tuple component: escaped as an element.
    Element(char),
}

/// One scalar, written canonical and escaped into `out`; `Ok(false)` for
/// null (nothing written).
struct ScalarSer<'a> {
    scalar: &'a Scalar,
    pos: Pos,
    out: &'a mut String,
    /// Whether an empty string is refused (scalar fields, tuple components).
    no_empty: bool,
    /// Whether the scalar's bounds apply (scalar fields and tuple
    /// components; list elements are not range-checked, as in the engine).
    ranged: bool,
}

impl ScalarSer<'_> {
    /// The contract's list separator.
    fn sep(&self) -> char {
        match self.pos {
            Pos::Field(sep) | Pos::Element(sep) => sep,
        }
    }

    fn text(self, t: &str) -> R<bool> {
        if t.is_empty() && self.no_empty {
            return Err(GiveUp);
        }
        match self.pos {
            Pos::Field(sep) => escape_scalar_sep_into(self.out, t, sep),
            Pos::Element(sep) => escape_element_into(self.out, t, sep),
        }
        Ok(true)
    }

    /// Types the canonical text of a value as the engine does
    /// ([`check_atom`]: enumeration, date and number syntax, bounds).
    fn check(&self, t: &str) -> R {
        if self.scalar.ty == ScalarType::Str {
            return Ok(());
        }
        check_atom(std::borrow::Cow::Borrowed(t), self.scalar, self.ranged)
            .map(drop)
            .map_err(|_| GiveUp)
    }

    fn string(self, t: &str) -> R<bool> {
        match self.scalar.ty {
            ScalarType::Str | ScalarType::Enum | ScalarType::Date => {
                survives(t, self.sep()).map_err(|_| GiveUp)?;
                self.check(t)?;
                self.text(t)
            }
            ScalarType::Decimal => {
                survives(t, self.sep()).map_err(|_| GiveUp)?;
                if number::is_decimal(t) {
                    let canonical = number::canonical_decimal(t);
                    self.check(&canonical)?;
                    self.text(&canonical)
                } else {
                    self.check(t)?;
                    self.text(t)
                }
            }
            _ => Err(GiveUp),
        }
    }

    /// An integer: every numeric type takes its digits.
    fn int(self, digits: std::fmt::Arguments<'_>) -> R<bool> {
        match self.scalar.ty {
            ScalarType::Int | ScalarType::Float | ScalarType::Decimal => {
                // digits never need escaping
                let start = self.out.len();
                self.out.write_fmt(digits).map_err(|_| GiveUp)?;
                self.check(&self.out[start..])?;
                Ok(true)
            }
            _ => Err(GiveUp),
        }
    }

    /// A binary float: a float field only, in its shortest round-trip
    /// digits as `dumps` prints them (plain, with an exponent only past 30
    /// padding zeros).
    fn float<F>(self, v: F, x: f64) -> R<bool>
    where
        F: std::fmt::Display + std::fmt::LowerExp + Copy,
    {
        if self.scalar.ty != ScalarType::Float || !x.is_finite() {
            return Err(GiveUp);
        }
        let start = self.out.len();
        if x == 0.0 {
            self.out.push('0');
        } else if (1e-15..1e15).contains(&x.abs()) {
            if std::mem::size_of::<F>() == 8 {
                shortest_plain(self.out, x)
            } else {
                write!(self.out, "{v}")
            }
            .map_err(|_| GiveUp)?;
        } else {
            let d = Dec::parse(&format!("{v:e}")).ok_or(GiveUp)?;
            self.out.push_str(&d.format(false));
        }
        self.check(&self.out[start..])?;
        Ok(true)
    }
}

/// Writes `v` (finite, not zero, `1e-15 <= |v| < 1e15`) in its shortest
/// round-trip digits without an exponent, as `Display` writes it.
///
/// `zmij` (serde_json's float printer, far cheaper than `Display`) writes
/// `1e-5 <= |v| < 1e16` plainly, with a `.0` that `Display` does not
/// write. When its digits are at most 15 significant ones they are the
/// only shortest digits of `v` (any decimal of 15 significant digits
/// survives the trip through an `f64`), so `Display` writes the same; with
/// 16 or 17 the two may pick different last digits, and below `1e-5` zmij
/// writes an exponent: then `Display` writes the value. Checked against
/// `Display` by the test `shortest_plain_is_display`.
fn shortest_plain(out: &mut String, v: f64) -> std::fmt::Result {
    let mut buf = zmij::Buffer::new();
    let t = buf.format_finite(v);
    let t = t.strip_suffix(".0").unwrap_or(t);
    let significant = t
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .count();
    if significant > 15 || t.contains(['e', 'E']) {
        return write!(out, "{v}");
    }
    out.push_str(t);
    Ok(())
}

impl<'a> ser::Serializer for ScalarSer<'a> {
    type Ok = bool;
    type Error = GiveUp;
    type SerializeSeq = Impossible<bool, GiveUp>;
    type SerializeTuple = Impossible<bool, GiveUp>;
    type SerializeTupleStruct = Impossible<bool, GiveUp>;
    type SerializeTupleVariant = Impossible<bool, GiveUp>;
    type SerializeMap = Impossible<bool, GiveUp>;
    type SerializeStruct = Impossible<bool, GiveUp>;
    type SerializeStructVariant = Impossible<bool, GiveUp>;

    fn serialize_bool(self, v: bool) -> R<bool> {
        if self.scalar.ty != ScalarType::Bool {
            return Err(GiveUp);
        }
        self.out.push_str(if v { "true" } else { "false" });
        Ok(true)
    }
    fn serialize_i8(self, v: i8) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i16(self, v: i16) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i32(self, v: i32) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i64(self, v: i64) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i128(self, v: i128) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u8(self, v: u8) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u16(self, v: u16) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u32(self, v: u32) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u64(self, v: u64) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u128(self, v: u128) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_f32(self, v: f32) -> R<bool> {
        self.float(v, f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> R<bool> {
        self.float(v, v)
    }
    fn serialize_char(self, v: char) -> R<bool> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> R<bool> {
        self.string(v)
    }
    fn serialize_bytes(self, _: &[u8]) -> R<bool> {
        Err(GiveUp)
    }
    fn serialize_none(self) -> R<bool> {
        Ok(false)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R<bool> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> R<bool> {
        Ok(false)
    }
    fn serialize_unit_struct(self, _: &'static str) -> R<bool> {
        Ok(false)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R<bool> {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R<bool> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R<bool> {
        Err(GiveUp)
    }
    fn serialize_seq(self, _: Option<usize>) -> R<Self::SerializeSeq> {
        Err(GiveUp)
    }
    fn serialize_tuple(self, _: usize) -> R<Self::SerializeTuple> {
        Err(GiveUp)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> R<Self::SerializeTupleStruct> {
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
    fn serialize_map(self, _: Option<usize>) -> R<Self::SerializeMap> {
        Err(GiveUp)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self::SerializeStruct> {
        // a struct is no scalar (a `serde_json::Number` under
        // `arbitrary_precision` arrives as one: `dumps` writes it, ADR 0019)
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
}

/// A list's elements (a marked list records where each one ends).
struct ListSer<'a> {
    item: &'a Scalar,
    sep: char,
    slot: &'a mut Slot,
    marked: bool,
    first: bool,
}

impl ser::SerializeSeq for ListSer<'_> {
    type Ok = bool;
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        if !self.first {
            self.slot.text.push(self.sep);
        }
        self.first = false;
        let written = v.serialize(ScalarSer {
            scalar: self.item,
            pos: Pos::Element(self.sep),
            out: &mut self.slot.text,
            no_empty: false,
            ranged: false,
        })?;
        if !written {
            return Err(GiveUp);
        }
        self.slot.count += 1;
        if self.marked {
            self.slot.ends.push(self.slot.text.len());
        }
        Ok(())
    }
    fn end(self) -> R<bool> {
        Ok(true)
    }
}

/// A tuple's components, by name.
struct TupleSer<'a> {
    comps: &'a [Component],
    sep: char,
    slot: &'a mut Slot,
    parts: &'a mut Vec<Option<String>>,
    key: Option<String>,
}

impl TupleSer<'_> {
    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) -> R {
        let i = self
            .comps
            .iter()
            .position(|c| c.name == key)
            .ok_or(GiveUp)?;
        let mut text = self.parts[i].take().unwrap_or_default();
        text.clear();
        let written = v.serialize(ScalarSer {
            scalar: &self.comps[i].scalar,
            pos: Pos::Element(self.sep),
            out: &mut text,
            no_empty: true,
            ranged: true,
        })?;
        if written {
            self.parts[i] = Some(text);
        }
        Ok(())
    }

    fn finish(self) -> R<bool> {
        let out = &mut self.slot.text;
        for (i, c) in self.comps.iter().enumerate() {
            if i > 0 {
                out.push(self.sep);
            }
            match &self.parts[i] {
                Some(t) => out.push_str(t),
                None if c.optional => {
                    if is_space(self.sep) {
                        out.push_str("\"\"");
                    }
                }
                None => return Err(GiveUp),
            }
        }
        // as `dumps`: a tuple whose every component is null and empty (one
        // component) is written `""`, which reads back as null components
        if out.is_empty() {
            out.push_str("\"\"");
        }
        Ok(true)
    }
}

keyed!(TupleSer<'_> => bool, struct);

impl<'a> FieldSer<'a> {
    fn tuple(self) -> R<TupleSer<'a>> {
        let Kind::Tuple(comps) = self.kind else {
            return Err(GiveUp);
        };
        self.comps.clear();
        self.comps.resize(comps.len(), None);
        Ok(TupleSer {
            comps,
            sep: self.sep,
            slot: self.slot,
            parts: self.comps,
            key: None,
        })
    }

    fn scalar(self) -> R<ScalarSer<'a>> {
        match self.kind {
            Kind::Scalar(s) => Ok(ScalarSer {
                scalar: s,
                pos: Pos::Field(self.sep),
                out: &mut self.slot.text,
                no_empty: true,
                ranged: true,
            }),
            _ => Err(GiveUp),
        }
    }
}

macro_rules! to_scalar {
    ($($method:ident($($arg:ident: $t:ty),*))*) => {$(
        fn $method(self, $($arg: $t),*) -> R<bool> {
            self.scalar()?.$method($($arg),*)
        }
    )*};
}

impl<'a> ser::Serializer for FieldSer<'a> {
    type Ok = bool;
    type Error = GiveUp;
    type SerializeSeq = ListSer<'a>;
    type SerializeTuple = Impossible<bool, GiveUp>;
    type SerializeTupleStruct = Impossible<bool, GiveUp>;
    type SerializeTupleVariant = Impossible<bool, GiveUp>;
    type SerializeMap = TupleSer<'a>;
    type SerializeStruct = TupleSer<'a>;
    type SerializeStructVariant = Impossible<bool, GiveUp>;

    to_scalar! {
        serialize_bool(v: bool) serialize_i8(v: i8) serialize_i16(v: i16)
        serialize_i32(v: i32) serialize_i64(v: i64) serialize_i128(v: i128)
        serialize_u8(v: u8) serialize_u16(v: u16) serialize_u32(v: u32) serialize_u64(v: u64)
        serialize_u128(v: u128) serialize_f32(v: f32) serialize_f64(v: f64)
        serialize_char(v: char) serialize_str(v: &str)
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str)
    }

    fn serialize_bytes(self, _: &[u8]) -> R<bool> {
        Err(GiveUp)
    }
    fn serialize_none(self) -> R<bool> {
        Ok(false)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R<bool> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> R<bool> {
        Ok(false)
    }
    fn serialize_unit_struct(self, _: &'static str) -> R<bool> {
        Ok(false)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R<bool> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R<bool> {
        Err(GiveUp)
    }
    fn serialize_seq(self, _: Option<usize>) -> R<ListSer<'a>> {
        let (item, marked) = match self.kind {
            Kind::List { item, .. } => (item, false),
            Kind::MList { item, .. } => (item, true),
            _ => return Err(GiveUp),
        };
        Ok(ListSer {
            item,
            sep: self.sep,
            slot: self.slot,
            marked,
            first: true,
        })
    }
    fn serialize_tuple(self, _: usize) -> R<Self::SerializeTuple> {
        Err(GiveUp)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> R<Self::SerializeTupleStruct> {
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
    fn serialize_map(self, _: Option<usize>) -> R<TupleSer<'a>> {
        self.tuple()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<TupleSer<'a>> {
        self.tuple()
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
}

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
