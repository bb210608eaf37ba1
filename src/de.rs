//! The serde Deserializer: `.mini` text → any `Deserialize` type, through
//! the same validation engine as the dynamic path.
//!
//! Each record line is checked by [`crate::check::check_record`]; the typed
//! values it yields (borrowing from the input when a value holds no escape)
//! are handed to serde's visitors directly, without building JSON values. A
//! `&'de str` field borrows from the input; an escaped value comes from a
//! scratch buffer (an owned string). Like [`crate::parse`], deserialization
//! is strict: every error of the document is collected, and the result is
//! an error if there was any.

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::check::{
    self, Atom, FieldValue, HeaderInfo, RecordOutcome, Scratch, Selection, Uniques,
};
use crate::contract::{Contract, Kind};
use crate::error::{Code, Diagnostic, Error, Result};
use crate::syntax::{self, Lines};
use crate::typed::Mini;

/// Deserializes a document type (one deriving `Mini` with
/// `#[mini(prefix = …)]`) from `.mini` text, strictly.
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize, mini::Mini)]
/// #[mini(prefix = "todo", records = "items")]
/// struct Todos<'a> {
///     #[serde(borrow)]
///     items: Vec<Todo<'a>>,
/// }
///
/// #[derive(Deserialize, mini::Mini)]
/// struct Todo<'a> {
///     title: &'a str,
///     done: bool,
/// }
/// # // generic (lifetime) types are fine: the contract is cached per type
/// let t: Todos = mini::from_str("todo|n=2\nbuy milk|false\nwrite docs|1").unwrap();
/// assert_eq!((t.items[0].title, t.items[1].done), ("buy milk", true));
/// ```
pub fn from_str<'de, T>(s: &'de str) -> Result<T>
where
    T: de::Deserialize<'de> + Mini,
{
    let contract = T::cached_contract()?;
    from_str_with(s, &contract)
}

/// [`from_str`] for bytes: invalid UTF-8 is an error with line and offset.
pub fn from_slice<'de, T>(bytes: &'de [u8]) -> Result<T>
where
    T: de::Deserialize<'de> + Mini,
{
    from_str(crate::from_utf8(bytes)?)
}

/// [`from_str`] for a reader (the whole input is read first; see
/// `mini::stream` to read record by record).
pub fn from_reader<R, T>(mut reader: R) -> Result<T>
where
    R: std::io::Read,
    T: de::DeserializeOwned + Mini,
{
    let mut buf = Vec::new();
    reader.read_to_end(&mut buf)?;
    let text = crate::from_utf8(&buf)?;
    from_str(text)
}

/// Deserializes any `Deserialize` type from `.mini` text under a given
/// contract (no derive needed): the value is shaped like the canonical
/// object (`prefix`, `header`, records).
pub fn from_str_with<'de, T>(s: &'de str, contract: &Contract) -> Result<T>
where
    T: de::Deserialize<'de>,
{
    let mut de = Deserializer::new(s, contract);
    let value = T::deserialize(&mut de);
    de.end(value)
}

/// The `.mini` deserializer over a whole document.
pub struct Deserializer<'de, 'c> {
    contract: &'c Contract,
    lines: Lines<'de>,
    header: Option<HeaderInfo>,
    uniques: Uniques,
    scratch: Scratch<'de>,
    errors: Vec<Diagnostic>,
    record_lines: usize,
}

impl<'de, 'c> Deserializer<'de, 'c> {
    /// A deserializer for `text` under `contract`; the header is read now.
    pub fn new(text: &'de str, contract: &'c Contract) -> Self {
        let mut lines = syntax::lines(text);
        let mut errors = Vec::new();
        let header = lines
            .next()
            .map(|l| check::check_header(l, contract, &mut errors));
        if header.is_none() {
            errors.push(Diagnostic::new(
                Code::E01,
                0,
                None,
                "empty document: header missing",
            ));
        }
        Deserializer {
            contract,
            lines,
            header,
            uniques: Uniques::new(contract),
            scratch: Scratch::new(),
            errors,
            record_lines: 0,
        }
    }

    /// The next valid record: its line, index and values. Invalid records
    /// are skipped, their errors kept.
    fn next_record(&mut self) -> Option<(usize, usize, Vec<FieldValue<'de>>)> {
        let header = self.header.as_ref()?;
        for line in self.lines.by_ref() {
            let index = self.record_lines;
            self.record_lines += 1;
            let outcome = check::check_record(
                line,
                self.contract,
                header,
                &mut self.uniques,
                &mut self.scratch,
                &mut self.errors,
            );
            if let RecordOutcome::Valid(values) = outcome {
                return Some((line.number, index, values));
            }
        }
        None
    }

    /// Finishes: drains the lines left, checks the count (E04), and returns
    /// `value` only if the document had no error.
    pub fn end<T>(mut self, value: Result<T>) -> Result<T> {
        match value {
            Ok(v) => {
                while self.next_record().is_some() {}
                if self.header.is_some() {
                    if let Some(d) = check::document_errors(self.header.as_ref(), self.record_lines)
                    {
                        self.errors.push(d);
                    }
                }
                if self.errors.is_empty() {
                    Ok(v)
                } else {
                    Err(Error::invalid(self.errors))
                }
            }
            Err(e) => Err(e.prepend(self.errors)),
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.header.is_none() {
            return Err(Error::invalid(std::mem::take(&mut self.errors)));
        }
        visitor.visit_map(DocAccess { de: self, step: 0 })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The document as a map: `prefix`, `header`, then the records key.
struct DocAccess<'a, 'de, 'c> {
    de: &'a mut Deserializer<'de, 'c>,
    step: u8,
}

impl<'de> MapAccess<'de> for DocAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let key = match self.step {
            0 => "prefix",
            1 => "header",
            2 => self.de.contract.records_key(),
            _ => return Ok(None),
        };
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.step += 1;
        let header = self.de.header.as_ref();
        match self.step {
            1 => {
                let prefix = header.map(|h| h.prefix.clone()).unwrap_or_default();
                seed.deserialize(de::value::StringDeserializer::<Error>::new(prefix))
            }
            2 => {
                let map = header.map(|h| h.map.clone()).unwrap_or_default();
                seed.deserialize(MapDe {
                    map: &map,
                    line: header.map_or(1, |h| h.line),
                })
                .map_err(|e| locate(e, header.map_or(1, |h| h.line), None, "header".to_string()))
            }
            _ => seed.deserialize(RecordsDe { de: self.de }),
        }
    }
}

/// Turns an unlocated serde error into an E06 diagnostic at a line, field
/// and path; located errors pass through.
pub(crate) fn locate(e: Error, line: usize, field: Option<&str>, path: String) -> Error {
    match e.custom_message() {
        Some(m) => Error::invalid(vec![Diagnostic::new(
            Code::E06,
            line,
            field.map(str::to_string),
            m.to_string(),
        )
        .with_path(path)]),
        None => e,
    }
}

struct RecordsDe<'a, 'de, 'c> {
    de: &'a mut Deserializer<'de, 'c>,
}

impl<'de> de::Deserializer<'de> for RecordsDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for RecordsDe<'_, 'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some((line, index, values)) = self.de.next_record() else {
            return Ok(None);
        };
        let rec = RecordDe {
            contract: self.de.contract,
            values,
            line,
            index,
        };
        let path = format!("{}[{index}]", self.de.contract.records_key());
        seed.deserialize(rec)
            .map(Some)
            .map_err(|e| locate(e, line, None, path))
    }
}

/// One valid record, as a map of canonical keys.
pub(crate) struct RecordDe<'de, 'c> {
    contract: &'c Contract,
    values: Vec<FieldValue<'de>>,
    line: usize,
    index: usize,
}

impl<'de, 'c> RecordDe<'de, 'c> {
    /// The record checked on `line` (its `index` among record lines).
    pub(crate) fn new(
        contract: &'c Contract,
        values: Vec<FieldValue<'de>>,
        line: usize,
        index: usize,
    ) -> Self {
        RecordDe {
            contract,
            values,
            line,
            index,
        }
    }
}

impl<'de> de::Deserializer<'de> for RecordDe<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let mut entries = Vec::with_capacity(self.values.len() + 1);
        for (f, v) in self.contract.fields().iter().zip(self.values) {
            match (&f.kind, v) {
                (
                    Kind::MList {
                        items_key,
                        selected_key,
                        ..
                    },
                    FieldValue::MList(items, sel),
                ) => {
                    entries.push(Entry {
                        key: items_key,
                        field: &f.name,
                        pending: Pending::Field(FieldValue::List(items), &f.kind, None),
                    });
                    if sel != Selection::One(None) {
                        entries.push(Entry {
                            key: selected_key,
                            field: &f.name,
                            pending: Pending::Selection(sel),
                        });
                    }
                }
                // absent values are left out, so that serde applies `None`
                // or `#[serde(default)]`
                (_, FieldValue::Default) if f.default.is_none() => {}
                (Kind::MList { items_key, .. }, v) => entries.push(Entry {
                    key: items_key,
                    field: &f.name,
                    pending: Pending::Field(v, &f.kind, f.default.as_ref()),
                }),
                (kind, v) => entries.push(Entry {
                    key: &f.name,
                    field: &f.name,
                    pending: Pending::Field(v, kind, f.default.as_ref()),
                }),
            }
        }
        visitor.visit_map(RecordAccess {
            records_key: self.contract.records_key(),
            entries: entries.into_iter(),
            pending: None,
            line: self.line,
            index: self.index,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A value waiting for `next_value_seed`.
enum Pending<'de, 'c> {
    Field(FieldValue<'de>, &'c Kind, Option<&'c Value>),
    Selection(Selection),
}

struct Entry<'de, 'c> {
    key: &'c str,
    field: &'c str,
    pending: Pending<'de, 'c>,
}

struct RecordAccess<'de, 'c> {
    records_key: &'c str,
    entries: std::vec::IntoIter<Entry<'de, 'c>>,
    pending: Option<Entry<'de, 'c>>,
    line: usize,
    index: usize,
}

impl<'de> MapAccess<'de> for RecordAccess<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some(e) = self.entries.next() else {
            return Ok(None);
        };
        let key = e.key;
        self.pending = Some(e);
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some(e) = self.pending.take() else {
            return Err(Error::message(
                "next_value_seed called before next_key_seed",
            ));
        };
        let path = format!("{}[{}].{}", self.records_key, self.index, e.key);
        let line = self.line;
        let res = match e.pending {
            Pending::Field(value, kind, default) => seed.deserialize(FieldDe {
                value,
                kind,
                default,
                line,
                field: e.field,
                path: &path,
            }),
            Pending::Selection(sel) => seed.deserialize(SelectionDe(sel)),
        };
        res.map_err(|err| locate(err, line, Some(e.field), path))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// One field value of a record.
struct FieldDe<'a, 'de, 'c> {
    value: FieldValue<'de>,
    kind: &'c Kind,
    default: Option<&'c Value>,
    line: usize,
    field: &'c str,
    path: &'a str,
}

fn atom_de<'de>(atom: Atom<'de>, line: usize, field: &str, path: &str) -> AtomDe<'de> {
    AtomDe {
        atom,
        line,
        field: field.to_string(),
        path: path.to_string(),
    }
}

/// Forwards a primitive request to the atom's deserializer (which checks
/// integer ranges), anything else to `deserialize_any`.
macro_rules! forward_to_atom {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.value {
                FieldValue::Atom(a) => atom_de(a, self.line, self.field, self.path).$method(visitor),
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for FieldDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            FieldValue::Default => match self.default {
                Some(v) => ValueDe(v, self.line).deserialize_any(visitor),
                None => visitor.visit_none(),
            },
            FieldValue::Atom(a) => {
                atom_de(a, self.line, self.field, self.path).deserialize_any(visitor)
            }
            FieldValue::List(items) | FieldValue::MList(items, _) => {
                let (line, field, path) = (self.line, self.field, self.path);
                let it = items.into_iter().enumerate().map(|(i, atom)| AtomDe {
                    atom,
                    line,
                    field: field.to_string(),
                    path: format!("{path}[{i}]"),
                });
                let mut seq = de::value::SeqDeserializer::new(it);
                let v = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(v)
            }
            FieldValue::Tuple(parts) => {
                let Kind::Tuple(comps) = self.kind else {
                    return Err(Error::message("tuple value for a non-tuple field"));
                };
                let (line, field, path) = (self.line, self.field, self.path);
                let it = comps.iter().zip(parts).filter_map(|(c, p)| {
                    p.map(|atom| {
                        (
                            c.name.as_str(),
                            AtomDe {
                                atom,
                                line,
                                field: format!("{field}.{}", c.name),
                                path: format!("{path}.{}", c.name),
                            },
                        )
                    })
                });
                let mut map = de::value::MapDeserializer::new(it);
                let v = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(v)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match (&self.value, self.default) {
            (FieldValue::Default, None | Some(Value::Null)) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            FieldValue::Atom(a) => atom_de(a, self.line, self.field, self.path)
                .deserialize_enum(name, variants, visitor),
            _ => self.deserialize_any(visitor),
        }
    }

    forward_to_atom! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string
    }

    forward_to_deserialize_any! {
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// One typed scalar.
struct AtomDe<'de> {
    atom: Atom<'de>,
    line: usize,
    field: String,
    path: String,
}

impl<'de> IntoDeserializer<'de, Error> for AtomDe<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl AtomDe<'_> {
    fn out_of_range(&self, text: &str, ty: &str) -> Error {
        Error::invalid(vec![Diagnostic::new(
            Code::E13,
            self.line,
            Some(self.field.clone()),
            format!("{text} is out of range for the Rust type {ty}"),
        )
        .with_path(self.path.clone())])
    }
}

macro_rules! int_method {
    ($($method:ident $t:ty => $visit:ident,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match &self.atom {
                Atom::Int(text) => match text.parse::<$t>() {
                    Ok(v) => visitor.$visit(v),
                    Err(_) => Err(self.out_of_range(text, stringify!($t))),
                },
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for AtomDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.atom {
            Atom::Str(Cow::Borrowed(s))
            | Atom::Date(Cow::Borrowed(s))
            | Atom::Decimal(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
            Atom::Str(Cow::Owned(s)) | Atom::Date(Cow::Owned(s)) | Atom::Decimal(Cow::Owned(s)) => {
                visitor.visit_string(s)
            }
            Atom::Bool(b) => visitor.visit_bool(b),
            Atom::Float(ref t) => match t.parse::<f64>() {
                Ok(f) => visitor.visit_f64(f),
                Err(_) => Err(self.out_of_range(t, "f64")),
            },
            Atom::Int(ref t) => {
                if let Ok(v) = t.parse::<i64>() {
                    visitor.visit_i64(v)
                } else if let Ok(v) = t.parse::<u64>() {
                    visitor.visit_u64(v)
                } else if let Ok(v) = t.parse::<i128>() {
                    visitor.visit_i128(v)
                } else if let Ok(v) = t.parse::<u128>() {
                    visitor.visit_u128(v)
                } else {
                    Err(self.out_of_range(t, "i128/u128"))
                }
            }
        }
    }

    int_method! {
        deserialize_i8 i8 => visit_i8,
        deserialize_i16 i16 => visit_i16,
        deserialize_i32 i32 => visit_i32,
        deserialize_i64 i64 => visit_i64,
        deserialize_i128 i128 => visit_i128,
        deserialize_u8 u8 => visit_u8,
        deserialize_u16 u16 => visit_u16,
        deserialize_u32 u32 => visit_u32,
        deserialize_u64 u64 => visit_u64,
        deserialize_u128 u128 => visit_u128,
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match &self.atom {
            Atom::Float(t) | Atom::Int(t) => match t.parse::<f64>() {
                Ok(f) if f.is_finite() => visitor.visit_f64(f),
                _ => Err(self.out_of_range(t, "f64")),
            },
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.atom {
            Atom::Str(Cow::Borrowed(s)) => {
                visitor.visit_enum(de::value::BorrowedStrDeserializer::new(s))
            }
            Atom::Str(Cow::Owned(s)) => visitor.visit_enum(de::value::StringDeserializer::new(s)),
            _ => self.deserialize_any(visitor),
        }
    }

    forward_to_deserialize_any! {
        bool char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

/// The selection of a marked list: an index, none, or indices.
struct SelectionDe(Selection);

impl<'de> de::Deserializer<'de> for SelectionDe {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Selection::One(Some(i)) => visitor.visit_u64(i as u64),
            Selection::One(None) => visitor.visit_none(),
            Selection::Many(v) => {
                let mut seq =
                    de::value::SeqDeserializer::<_, Error>::new(v.into_iter().map(|i| i as u64));
                let out = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(out)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Selection::One(None) => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A JSON map (the canonical header) as a deserializer.
struct MapDe<'v> {
    map: &'v Map<String, Value>,
    line: usize,
}

impl<'de> de::Deserializer<'de> for MapDe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let line = self.line;
        let mut map = de::value::MapDeserializer::new(
            self.map.iter().map(|(k, v)| (k.as_str(), ValueDe(v, line))),
        );
        let out = visitor.visit_map(&mut map)?;
        map.end()?;
        Ok(out)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A JSON value (header entries, contract defaults) as a deserializer, with
/// the line it comes from (for E13 when an int does not fit the Rust type).
#[derive(Clone, Copy)]
struct ValueDe<'v>(&'v Value, usize);

macro_rules! value_int_method {
    ($($method:ident $t:ty => $visit:ident,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            if let Value::Number(n) = self.0 {
                let t = n.to_string();
                if crate::check::number::is_int(&t) {
                    return match t.parse::<$t>() {
                        Ok(v) => visitor.$visit(v),
                        Err(_) => Err(Error::invalid(vec![Diagnostic::new(
                            Code::E13,
                            self.1,
                            None,
                            format!("{t} is out of range for the Rust type {}", stringify!($t)),
                        )
                        .with_path("header")])),
                    };
                }
            }
            self.deserialize_any(visitor)
        }
    )*};
}

impl<'de> IntoDeserializer<'de, Error> for ValueDe<'_> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for ValueDe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                let t = n.to_string();
                if let Ok(v) = t.parse::<u64>() {
                    visitor.visit_u64(v)
                } else if let Ok(v) = t.parse::<i64>() {
                    visitor.visit_i64(v)
                } else if let Ok(v) = t.parse::<i128>() {
                    visitor.visit_i128(v)
                } else {
                    visitor.visit_f64(t.parse::<f64>().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_str(s),
            Value::Array(a) => {
                let line = self.1;
                let mut seq = de::value::SeqDeserializer::new(a.iter().map(|v| ValueDe(v, line)));
                let out = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(out)
            }
            Value::Object(m) => MapDe {
                map: m,
                line: self.1,
            }
            .deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    value_int_method! {
        deserialize_i8 i8 => visit_i8,
        deserialize_i16 i16 => visit_i16,
        deserialize_i32 i32 => visit_i32,
        deserialize_i64 i64 => visit_i64,
        deserialize_i128 i128 => visit_i128,
        deserialize_u8 u8 => visit_u8,
        deserialize_u16 u16 => visit_u16,
        deserialize_u32 u32 => visit_u32,
        deserialize_u64 u64 => visit_u64,
        deserialize_u128 u128 => visit_u128,
    }

    forward_to_deserialize_any! {
        bool f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}
