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

use crate::check::{Atom, FieldValue, HeaderInfo, HeaderValue, Scratch, Selection};
use crate::check::{Checked, Engine};
use crate::contract::{Contract, Field, HeaderKey, Kind};
use crate::error::{Code, Diagnostic, Error, Result};
use crate::read::{Limits, SliceLines, StrLines};
use crate::syntax::Line;
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
    from_str_with_limits(s, Limits::default())
}

/// [`from_str`] for bytes: each line is checked as UTF-8 when it is read
/// (an error gives the line and the byte offset within it).
pub fn from_slice<'de, T>(bytes: &'de [u8]) -> Result<T>
where
    T: de::Deserialize<'de> + Mini,
{
    let contract = T::cached_contract()?;
    let mut de = Deserializer::from_source(
        Source::Slice(SliceLines::new(bytes, Limits::default())),
        &contract,
    );
    let value = T::deserialize(&mut de);
    de.end(value)
}

/// [`from_str`] for a reader, under the default [`Limits`]: the input is
/// read line by line with every limit applied as it arrives (an input past
/// `max_input_bytes` is refused without reading the rest), then
/// deserialized. To handle one record at a time in constant memory, use
/// [`crate::stream::records`].
pub fn from_reader<R, T>(reader: R) -> Result<T>
where
    R: std::io::Read,
    T: de::DeserializeOwned + Mini,
{
    from_reader_with_limits(reader, Limits::default())
}

/// [`from_reader`] under given [`Limits`].
pub fn from_reader_with_limits<R, T>(reader: R, limits: Limits) -> Result<T>
where
    R: std::io::Read,
    T: de::DeserializeOwned + Mini,
{
    use std::io::Read as _;
    let cap = limits.max_input_bytes.saturating_add(1);
    let mut buf = Vec::new();
    reader.take(cap as u64).read_to_end(&mut buf)?;
    let contract = T::cached_contract()?;
    let mut de = Deserializer::from_source(Source::Slice(SliceLines::new(&buf, limits)), &contract);
    let value = T::deserialize(&mut de);
    de.end(value)
}

/// [`from_str`] under given [`Limits`].
pub fn from_str_with_limits<'de, T>(s: &'de str, limits: Limits) -> Result<T>
where
    T: de::Deserialize<'de> + Mini,
{
    let contract = T::cached_contract()?;
    let mut de = Deserializer::with_limits(s, &contract, limits);
    let value = T::deserialize(&mut de);
    de.end(value)
}

/// Deserializes any `Deserialize` type from `.mini` text under a given
/// contract (no derive needed), under the default [`Limits`]: the value is
/// shaped like the canonical object (`prefix`, `header`, records).
pub fn from_str_with_contract<'de, T>(s: &'de str, contract: &Contract) -> Result<T>
where
    T: de::Deserialize<'de>,
{
    let mut de = Deserializer::new(s, contract);
    let value = T::deserialize(&mut de);
    de.end(value)
}

/// The old name of [`from_str_with_contract`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `from_str_with_contract` (ADR 0019: a suffix says what the variant adds)"
)]
pub fn from_str_with<'de, T>(s: &'de str, contract: &Contract) -> Result<T>
where
    T: de::Deserialize<'de>,
{
    from_str_with_contract(s, contract)
}

/// Where the deserializer's lines come from.
enum Source<'de> {
    Str(StrLines<'de>),
    Slice(SliceLines<'de>),
}

impl<'de> Source<'de> {
    fn next_line(&mut self) -> Result<Option<Line<'de>>> {
        match self {
            Source::Str(l) => l.next_line(),
            Source::Slice(l) => l.next_line(),
        }
    }
}

/// The `.mini` deserializer over a whole document.
pub struct Deserializer<'de, 'c> {
    contract: &'c Contract,
    lines: Source<'de>,
    /// A read error (a limit, invalid UTF-8): it ends the document.
    read_error: Option<Error>,
    /// The engine's line-by-line state (header, unique values, counts,
    /// errors), shared with `mini::parse` and the streaming reader.
    engine: Engine<'c>,
    scratch: Scratch<'de>,
}

impl<'de, 'c> Deserializer<'de, 'c> {
    /// A deserializer for `text` under `contract` and the default
    /// [`Limits`]; the header is read now.
    pub fn new(text: &'de str, contract: &'c Contract) -> Self {
        Deserializer::with_limits(text, contract, Limits::default())
    }

    /// A deserializer for `text` under `contract` and `limits`.
    pub fn with_limits(text: &'de str, contract: &'c Contract, limits: Limits) -> Self {
        Deserializer::from_source(Source::Str(StrLines::new(text, limits)), contract)
    }

    fn from_source(lines: Source<'de>, contract: &'c Contract) -> Self {
        let mut de = Deserializer {
            contract,
            lines,
            read_error: None,
            engine: Engine::new(contract),
            scratch: Scratch::new(),
        };
        if let Some(line) = de.next_line() {
            de.engine.check_line(line, &mut de.scratch);
        }
        de
    }

    /// The next significant line; a read error is kept and ends the lines.
    fn next_line(&mut self) -> Option<Line<'de>> {
        if self.read_error.is_some() {
            return None;
        }
        match self.lines.next_line() {
            Ok(line) => line,
            Err(e) => {
                self.read_error = Some(e);
                None
            }
        }
    }

    /// The next valid record: its line and index (its values are left in
    /// the scratch). Invalid records are skipped, their errors kept.
    fn next_record(&mut self) -> Option<(usize, usize)> {
        if !self.engine.has_header() {
            return None;
        }
        while let Some(line) = self.next_line() {
            if let Checked::Valid = self.engine.check_line(line, &mut self.scratch) {
                return Some((line.number, self.engine.record_lines() - 1));
            }
        }
        None
    }

    /// Finishes: drains the lines left, checks the count (E04), and returns
    /// `value` only if the document had no error.
    pub fn end<T>(mut self, value: Result<T>) -> Result<T> {
        if let Some(e) = self.read_error.take() {
            return Err(e);
        }
        match value {
            Ok(v) => {
                while self.next_record().is_some() {}
                if let Some(e) = self.read_error.take() {
                    return Err(e);
                }
                let mut errors = self.engine.take_errors();
                errors.extend(self.engine.document_error());
                if errors.is_empty() {
                    Ok(v)
                } else {
                    Err(Error::invalid(errors))
                }
            }
            Err(e) => Err(e.prepend(self.engine.take_errors())),
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(e) = self.read_error.take() {
            return Err(e);
        }
        if !self.engine.has_header() {
            let mut errors = self.engine.take_errors();
            errors.extend(self.engine.document_error());
            return Err(Error::invalid(errors));
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
        let header = self.de.engine.header();
        match self.step {
            1 => {
                let prefix = header.map(|h| h.prefix.clone()).unwrap_or_default();
                seed.deserialize(de::value::StringDeserializer::<Error>::new(prefix))
            }
            2 => {
                let line = header.map_or(1, |h| h.line);
                let contract = self.de.contract;
                let entries = header.map_or_else(Vec::new, |h| header_items(h, contract));
                seed.deserialize(HeaderDe { entries, line })
                    .map_err(|e| locate(e, line, None, || "header".to_string()))
            }
            _ => seed.deserialize(RecordsDe { de: self.de }),
        }
    }
}

/// Turns an unlocated serde error into an E06 diagnostic at a line, field
/// and path; located errors pass through. The path is only built for an
/// error that needs it.
pub(crate) fn locate(
    e: Error,
    line: usize,
    field: Option<&str>,
    path: impl FnOnce() -> String,
) -> Error {
    match e.custom_message() {
        Some(m) => Error::invalid(vec![Diagnostic::new(
            Code::E06,
            line,
            field.map(str::to_string),
            m.to_string(),
        )
        .with_path(path())]),
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
        let Some((line, index)) = self.de.next_record() else {
            return Ok(None);
        };
        let contract = self.de.contract;
        let rec = RecordDe {
            contract,
            values: self.de.scratch.values_mut(),
            line,
            index,
        };
        seed.deserialize(rec).map(Some).map_err(|e| {
            locate(e, line, None, || {
                format!("{}[{index}]", contract.records_key())
            })
        })
    }

    /// The records still expected by the header's `n`, when it is known
    /// (serde caps what it reserves from a hint, so a huge `n` is harmless).
    fn size_hint(&self) -> Option<usize> {
        let n = self.de.engine.header()?.n?;
        usize::try_from(n)
            .ok()
            .map(|n| n.saturating_sub(self.de.engine.record_lines()))
    }
}

/// One valid record, as a map of canonical keys. Its values are taken out
/// of the slice they live in (the vectors stay there, to be reused).
pub(crate) struct RecordDe<'v, 'de, 'c> {
    contract: &'c Contract,
    values: &'v mut [FieldValue<'de>],
    line: usize,
    index: usize,
}

impl<'v, 'de, 'c> RecordDe<'v, 'de, 'c> {
    /// The record checked on `line` (its `index` among record lines).
    pub(crate) fn new(
        contract: &'c Contract,
        values: &'v mut [FieldValue<'de>],
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

impl<'de> de::Deserializer<'de> for RecordDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(RecordAccess {
            records_key: self.contract.records_key(),
            fields: self.contract.fields().iter(),
            values: self.values.iter_mut(),
            selection: None,
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

/// A value waiting for `next_value_seed`, with its canonical key.
enum Pending<'v, 'de, 'c> {
    Field(&'v mut FieldValue<'de>, &'c Field, &'c str),
    Selection(Selection, &'c Field, &'c str),
}

/// The entries of a record: each field under its canonical key, a marked
/// list as its items key then its selection key. Absent values (an empty
/// optional field without `default`, an absent extension, a `null`
/// selection) are left out, so that serde applies `None` or
/// `#[serde(default)]`.
struct RecordAccess<'v, 'de, 'c> {
    records_key: &'c str,
    fields: std::slice::Iter<'c, Field>,
    values: std::slice::IterMut<'v, FieldValue<'de>>,
    selection: Option<(Selection, &'c Field, &'c str)>,
    pending: Option<Pending<'v, 'de, 'c>>,
    line: usize,
    index: usize,
}

impl<'de> MapAccess<'de> for RecordAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if let Some((sel, f, key)) = self.selection.take() {
            self.pending = Some(Pending::Selection(sel, f, key));
            return seed.deserialize(key.into_deserializer()).map(Some);
        }
        loop {
            let (Some(f), Some(v)) = (self.fields.next(), self.values.next()) else {
                return Ok(None);
            };
            if matches!(v, FieldValue::Default) && f.default.is_none() {
                continue;
            }
            let key = match &f.kind {
                Kind::MList {
                    items_key,
                    selected_key,
                    ..
                } => {
                    if let FieldValue::MList(_, sel) = v {
                        let sel = std::mem::replace(sel, Selection::One(None));
                        if sel != Selection::One(None) {
                            self.selection = Some((sel, f, selected_key.as_str()));
                        }
                    }
                    items_key.as_str()
                }
                _ => f.name.as_str(),
            };
            self.pending = Some(Pending::Field(v, f, key));
            return seed.deserialize(key.into_deserializer()).map(Some);
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let Some(p) = self.pending.take() else {
            return Err(Error::message(
                "next_value_seed called before next_key_seed",
            ));
        };
        let (line, index, records_key) = (self.line, self.index, self.records_key);
        let (res, f, key) = match p {
            Pending::Field(value, f, key) => {
                let ctx = Ctx {
                    line,
                    in_header: false,
                    records_key,
                    index,
                    key,
                    field: &f.name,
                };
                let de = FieldDe {
                    value,
                    kind: &f.kind,
                    default: f.default.as_ref(),
                    ctx,
                };
                (seed.deserialize(de), f, key)
            }
            Pending::Selection(sel, f, key) => (seed.deserialize(SelectionDe(sel)), f, key),
        };
        res.map_err(|err| {
            locate(err, line, Some(&f.name), || {
                format!("{records_key}[{index}].{key}")
            })
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.values.len())
    }
}

/// Where a value sits, to locate its errors (the texts are only built for
/// an error).
#[derive(Clone, Copy)]
struct Ctx<'c> {
    line: usize,
    /// A header value (paths `header.<key>`), not a record's.
    in_header: bool,
    records_key: &'c str,
    index: usize,
    /// The canonical key of the field.
    key: &'c str,
    /// The contract field name.
    field: &'c str,
}

/// Which part of a field an atom is.
#[derive(Clone, Copy)]
enum Part<'c> {
    Whole,
    Element(usize),
    Component(&'c str),
}

/// One field value of a record.
struct FieldDe<'v, 'de, 'c> {
    value: &'v mut FieldValue<'de>,
    kind: &'c Kind,
    default: Option<&'c Value>,
    ctx: Ctx<'c>,
}

impl<'de> FieldDe<'_, 'de, '_> {
    /// The atom of a scalar field, taken out of the record.
    fn take_atom(&mut self) -> Option<Atom<'de>> {
        match std::mem::replace(self.value, FieldValue::Default) {
            FieldValue::Atom(a) => Some(a),
            other => {
                *self.value = other;
                None
            }
        }
    }
}

/// Forwards a primitive request to the atom's deserializer (which checks
/// integer ranges), anything else to `deserialize_any`.
macro_rules! forward_to_atom {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
            match self.take_atom() {
                Some(atom) => AtomDe { atom, ctx: self.ctx, part: Part::Whole }.$method(visitor),
                None => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for FieldDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        let ctx = self.ctx;
        match self.value {
            FieldValue::Default => match self.default {
                Some(v) => ValueDe(v, self.ctx.line).deserialize_any(visitor),
                None => visitor.visit_none(),
            },
            FieldValue::Atom(a) => {
                let atom = std::mem::replace(a, Atom::Bool(false));
                AtomDe {
                    atom,
                    ctx,
                    part: Part::Whole,
                }
                .deserialize_any(visitor)
            }
            FieldValue::List(items) | FieldValue::MList(items, _) => {
                let it = items.drain(..).enumerate().map(|(i, atom)| AtomDe {
                    atom,
                    ctx,
                    part: Part::Element(i),
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
                let it = comps.iter().zip(parts.drain(..)).filter_map(|(c, p)| {
                    p.map(|atom| {
                        (
                            c.name.as_str(),
                            AtomDe {
                                atom,
                                ctx,
                                part: Part::Component(&c.name),
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
        match (&*self.value, self.default) {
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
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.take_atom() {
            Some(atom) => AtomDe {
                atom,
                ctx: self.ctx,
                part: Part::Whole,
            }
            .deserialize_enum(name, variants, visitor),
            None => self.deserialize_any(visitor),
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
struct AtomDe<'de, 'c> {
    atom: Atom<'de>,
    ctx: Ctx<'c>,
    part: Part<'c>,
}

impl<'de, 'c> IntoDeserializer<'de, Error> for AtomDe<'de, 'c> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl AtomDe<'_, '_> {
    fn out_of_range(&self, text: &str, ty: &str) -> Error {
        let c = &self.ctx;
        let base = if c.in_header {
            format!("header.{}", c.key)
        } else {
            format!("{}[{}].{}", c.records_key, c.index, c.key)
        };
        let (field, path) = match self.part {
            Part::Whole => (c.field.to_string(), base),
            Part::Element(i) => (c.field.to_string(), format!("{base}[{i}]")),
            Part::Component(n) => (format!("{}.{n}", c.field), format!("{base}.{n}")),
        };
        Error::invalid(vec![Diagnostic::new(
            Code::E13,
            c.line,
            Some(field),
            format!("{text} is out of range for the Rust type {ty}"),
        )
        .with_path(path)])
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

impl<'de> de::Deserializer<'de> for AtomDe<'de, '_> {
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

/// One header entry, ready to be deserialized.
enum HeaderItem<'de, 'c> {
    /// A declared key's value, typed by the engine.
    Typed(FieldValue<'de>, &'c HeaderKey),
    /// An undeclared key's text.
    Text(String),
    /// A declared key the line does not write: the contract's default.
    Default(&'c Value),
}

/// The header's entries in the engine's order (its values are cloned: one
/// header per document).
fn header_items<'de, 'c>(
    h: &HeaderInfo,
    contract: &'c Contract,
) -> Vec<(String, HeaderItem<'de, 'c>)> {
    h.entries
        .iter()
        .filter_map(|(k, v)| {
            let hk = contract.header_key(k);
            let item = match (v, hk) {
                (HeaderValue::Text(t), _) => HeaderItem::Text(t.clone()),
                (HeaderValue::Typed(v), Some(hk)) => HeaderItem::Typed(v.clone(), hk),
                (HeaderValue::Default(_), Some(hk)) => HeaderItem::Default(hk.default.as_ref()?),
                _ => return None,
            };
            Some((k.clone(), item))
        })
        .collect()
}

/// The header as a map: each value through the same deserializers as a
/// record's fields.
struct HeaderDe<'de, 'c> {
    entries: Vec<(String, HeaderItem<'de, 'c>)>,
    line: usize,
}

impl<'de> de::Deserializer<'de> for HeaderDe<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(HeaderAccess {
            entries: self.entries.into_iter(),
            pending: None,
            line: self.line,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct HeaderAccess<'de, 'c> {
    entries: std::vec::IntoIter<(String, HeaderItem<'de, 'c>)>,
    pending: Option<HeaderItem<'de, 'c>>,
    line: usize,
}

impl<'de> MapAccess<'de> for HeaderAccess<'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let Some((key, item)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some(item);
        seed.deserialize(de::value::StringDeserializer::<Error>::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let line = self.line;
        match self.pending.take() {
            Some(HeaderItem::Typed(mut value, hk)) => {
                let ctx = Ctx {
                    line,
                    in_header: true,
                    records_key: "header",
                    index: 0,
                    key: &hk.name,
                    field: &hk.name,
                };
                seed.deserialize(FieldDe {
                    value: &mut value,
                    kind: &hk.kind,
                    default: None,
                    ctx,
                })
                .map_err(|e| locate(e, line, Some(&hk.name), || format!("header.{}", hk.name)))
            }
            Some(HeaderItem::Text(t)) => {
                seed.deserialize(de::value::StringDeserializer::<Error>::new(t))
            }
            Some(HeaderItem::Default(v)) => seed.deserialize(ValueDe(v, line)),
            None => Err(Error::message(
                "next_value_seed called before next_key_seed",
            )),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
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
                if crate::number::is_int(&t) {
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
