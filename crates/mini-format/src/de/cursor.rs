//! The single-pass record reader (ADR 0024): serde asks for a record's
//! values one by one, and each is typed from the line's raw text by the
//! engine's rule functions (`check_atom`, `check_arity`, `check_marker`,
//! the list grammar) at the moment it is asked for, then visited at once.
//! Nothing is built between the line and serde: no record of typed values,
//! no list of atoms.
//!
//! A line is cut into its fields first by one structural scan
//! (`syntax::split_fields_fast`, the same splitter the engine uses): the
//! field count rules (E05) and escapes (E09) close before serde sees a
//! value, and absent optional values are known in advance (a struct can be
//! read positionally only when none is missing). Whole-record rules that
//! need every value (`unique`) close once serde is done with the record.
//!
//! On the first rule a line breaks, the reader gives up on it: it marks
//! the record failed and returns [`Error::stopped`]; the deserializer then
//! re-checks that line, and every later one, with the engine, which gives
//! the diagnostics (the same ones `mini::parse` gives), and serde's partial
//! value is dropped.

use super::*;

use de::Deserializer as _;

use crate::check::{
    check_arity, check_atom, check_field, check_float, check_marker, relife, unique_key,
};
use crate::contract::{Component, MarkerRule, Scalar, ScalarType};
use crate::syntax::{self, Element, RawField};

/// The records of the document: a sequence read line by line.
pub(super) struct RecordsDe<'a, 'de, 'c> {
    pub(super) de: &'a mut Deserializer<'de, 'c>,
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
        self.de.next_record(seed)
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

/// Reads one record `line` with the single-pass reader, handing it to
/// `seed`; `engine` has read the header. A valid record claims its unique
/// values and counts as a record line of the engine. Otherwise the engine
/// reads the line again, recording its diagnostics: the result is then
/// [`Error::stopped`] when the line breaks a rule (the diagnostics are the
/// engine's), or serde's own error (located) when the line is valid but
/// the Rust type refused a value.
pub(crate) fn read_record<'de, T: DeserializeSeed<'de>>(
    engine: &mut Engine<'_>,
    cursor: &mut Cursor<'de>,
    scratch: &mut Scratch<'de>,
    line: syntax::Line<'de>,
    seed: T,
) -> Result<T::Value> {
    let contract = engine.contract();
    let index = engine.record_lines();
    let Some(header) = engine.header() else {
        return Err(Error::message("a record line before the header"));
    };
    let result = if cursor.start(line.text, contract, header) {
        let rec = Line {
            contract,
            header,
            cur: &mut *cursor,
            line: line.number,
            index,
        };
        seed.deserialize(LineDe(rec)).map_err(|e| {
            locate(e, line.number, None, || {
                format!("{}[{index}]", contract.records_key())
            })
        })
    } else {
        Err(Error::stopped())
    };
    let refused = match result {
        Ok(v) => {
            if cursor.finish(contract, header) && engine.accept_record(cursor.unique_keys()) {
                return Ok(v);
            }
            Error::stopped()
        }
        Err(e) if cursor.failed => {
            drop(e);
            Error::stopped()
        }
        Err(e) => e,
    };
    // the engine reads the line again and records what it breaks
    engine.check_line(line, scratch);
    Err(refused)
}

/// The reader's buffers, kept across the records of a document (nothing is
/// allocated per record once they have grown).
#[derive(Default)]
pub(crate) struct Cursor<'de> {
    /// The fields of the current line.
    pub(super) fields: Vec<RawField<'de>>,
    /// The elements of the list being read.
    elements: Vec<Element<'de>>,
    /// Which fields serde has been handed (the rest are checked after).
    seen: Vec<bool>,
    /// The unique keys of the current record, back to back in `keys`, each
    /// `(field index, end)`.
    keys: String,
    key_ends: Vec<(usize, usize)>,
    /// The selection of the marked list just read.
    selection: Option<Selection>,
    /// The marked elements of the list just read.
    marked: Vec<usize>,
    /// The typed components of the tuple just read.
    parts: Vec<Option<Typed<'de>>>,
    /// Set when the current line broke a rule.
    pub(super) failed: bool,
    /// The last struct checked for positional reading (its field list's
    /// address) and whether its names match the contract's keys.
    names_match: Option<(usize, bool)>,
    /// Engine buffers for the check-only pass.
    check: Scratch<'de>,
}

impl<'de> Cursor<'de> {
    /// The same buffers (emptied) for text of another lifetime: a streaming
    /// reader keeps one cursor across lines that do not outlive each other.
    pub(crate) fn recycle<'b>(self) -> Cursor<'b> {
        Cursor {
            fields: relife(self.fields),
            elements: relife(self.elements),
            seen: self.seen,
            keys: self.keys,
            key_ends: self.key_ends,
            selection: None,
            marked: self.marked,
            parts: relife(self.parts),
            failed: false,
            names_match: self.names_match,
            check: self.check.recycle(),
        }
    }

    /// Cuts `line` into fields and checks the rules that need only the cut:
    /// escapes (E09) and the field count (E05). False when the line breaks
    /// one of them.
    pub(super) fn start(
        &mut self,
        text: &'de str,
        contract: &Contract,
        header: &HeaderInfo,
    ) -> bool {
        self.failed = false;
        self.keys.clear();
        self.key_ends.clear();
        self.selection = None;
        self.seen.clear();
        self.seen.resize(contract.fields().len(), false);
        if !syntax::split_fields_fast(text, contract.separator(), &mut self.fields) {
            return false;
        }
        let n = self.fields.len();
        n >= contract.core().len()
            && (n <= contract.fields().len() || header.version > contract.version())
    }

    /// After serde: checks the fields it was not handed, and records the
    /// unique keys of those that need one. False when a rule is broken.
    pub(super) fn finish(&mut self, contract: &Contract, header: &HeaderInfo) -> bool {
        if self.failed {
            return false;
        }
        for (i, f) in contract.fields().iter().enumerate() {
            let seen_key = self.key_ends.iter().any(|&(k, _)| k == i);
            if self.seen[i] && (!f.unique || seen_key) {
                continue;
            }
            let Some(raw) = self.fields.get(i) else {
                continue;
            };
            let Some(v) = check_field(raw, f, contract, header, &mut self.check) else {
                return false;
            };
            if f.unique && !seen_key {
                let mut key = std::mem::take(&mut self.keys);
                let start = key.len();
                let mut one = String::new();
                if unique_key(&v, &mut one) {
                    key.push_str(&one);
                    self.key_ends.push((i, key.len()));
                } else {
                    key.truncate(start);
                }
                self.keys = key;
            }
        }
        true
    }

    /// The unique keys of the record: `(field index, key)`.
    pub(super) fn unique_keys(&self) -> impl Iterator<Item = (usize, &str)> + Clone {
        let mut start = 0;
        self.key_ends.iter().map(move |&(i, end)| {
            let k = &self.keys[start..end];
            start = end;
            (i, k)
        })
    }

    fn add_key(&mut self, i: usize, atom: &Atom<'_>) {
        atom.unique_key(&mut self.keys);
        self.key_ends.push((i, self.keys.len()));
    }
}

/// One record line being read.
pub(super) struct Line<'a, 'de, 'c> {
    pub(super) contract: &'c Contract,
    pub(super) header: &'a HeaderInfo,
    pub(super) cur: &'a mut Cursor<'de>,
    pub(super) line: usize,
    pub(super) index: usize,
}

impl<'de, 'c> Line<'_, 'de, 'c> {
    fn field(&self, i: usize) -> &'c Field {
        &self.contract.fields()[i]
    }

    /// Whether field `i` has no value in this line (an empty optional
    /// field, an absent extension): its default, or nothing.
    fn absent(&self, i: usize) -> bool {
        match self.cur.fields.get(i) {
            None => true,
            Some(raw) => raw.is_empty() && self.field(i).optional,
        }
    }

    fn fail<T>(&mut self) -> Result<T> {
        self.cur.failed = true;
        Err(Error::stopped())
    }

    fn ctx(&self, i: usize) -> Ctx<'c> {
        let f = self.field(i);
        Ctx {
            line: self.line,
            in_header: false,
            records_key: self.contract.records_key(),
            index: self.index,
            key: match &f.kind {
                Kind::MList { items_key, .. } => items_key,
                _ => &f.name,
            },
            field: &f.name,
        }
    }

    /// Whether a struct with serde's `fields` can be read as a sequence: its
    /// fields are the record's canonical keys in order, every one has a
    /// value in this line (a map leaves an absent value out, so that serde
    /// applies `None` or `#[serde(default)]`; a sequence could not), and no
    /// marked list may leave its selection out (`at_most_one`).
    fn positional(&mut self, names: &'static [&'static str]) -> bool {
        let id = names.as_ptr() as usize;
        let matched = match self.cur.names_match {
            Some((at, m)) if at == id => m,
            _ => {
                let m = self.names_match(names);
                self.cur.names_match = Some((id, m));
                m
            }
        };
        matched
            && (0..self.contract.fields().len())
                .all(|i| !self.absent(i) || self.field(i).default.is_some())
    }

    /// Whether `names` are the record's canonical keys in order, and no
    /// marked list may leave its selection out.
    fn names_match(&self, names: &[&str]) -> bool {
        let mut names = names.iter();
        for f in self.contract.fields() {
            match &f.kind {
                Kind::MList {
                    items_key,
                    selected_key,
                    marker,
                    ..
                } => {
                    if *marker == MarkerRule::AtMostOne
                        || names.next() != Some(&items_key.as_str())
                        || names.next() != Some(&selected_key.as_str())
                    {
                        return false;
                    }
                }
                _ => {
                    if names.next() != Some(&f.name.as_str()) {
                        return false;
                    }
                }
            }
        }
        names.next().is_none()
    }
}

/// One record, as a map of its canonical keys or (see
/// [`Line::positional`]) a sequence of its values.
pub(super) struct LineDe<'a, 'de, 'c>(pub(super) Line<'a, 'de, 'c>);

impl<'a, 'de, 'c> LineDe<'a, 'de, 'c> {
    fn access(self) -> LineAccess<'a, 'de, 'c> {
        LineAccess {
            rec: self.0,
            next: 0,
            selection_of: None,
            pending: None,
        }
    }
}

impl<'de> de::Deserializer<'de> for LineDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self.access())
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let mut rec = self;
        if rec.0.positional(fields) {
            visitor.visit_seq(rec.access())
        } else {
            visitor.visit_map(rec.access())
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// What the next value of a record is.
#[derive(Clone, Copy)]
enum Slot {
    /// Field `i` (for a marked list, its items).
    Field(usize),
    /// The selection of the marked list `i`.
    Selection(usize),
}

struct LineAccess<'a, 'de, 'c> {
    rec: Line<'a, 'de, 'c>,
    /// The next field.
    next: usize,
    /// The marked list whose selection comes next, if any.
    selection_of: Option<usize>,
    pending: Option<Slot>,
}

impl<'c> LineAccess<'_, '_, 'c> {
    /// The next slot with a value and its canonical key: each field under
    /// its key, a marked list as its items key then its selection key.
    /// Absent values (an empty optional field without `default`, an absent
    /// extension, a `null` selection) are left out, so that serde applies
    /// `None` or `#[serde(default)]`.
    fn advance(&mut self) -> Option<(Slot, &'c str)> {
        let fields = self.rec.contract.fields();
        if let Some(i) = self.selection_of.take() {
            if self.rec.cur.selection.is_none() && !self.rec.cur.failed {
                // serde was not handed the items (a map of other keys)
                let _ = FieldCur {
                    rec: &mut self.rec,
                    i,
                }
                .list_rules();
            }
            if let Kind::MList { selected_key, .. } = &fields[i].kind {
                if !matches!(self.rec.cur.selection, Some(Selection::One(None))) {
                    return Some((Slot::Selection(i), selected_key));
                }
            }
        }
        loop {
            let i = self.next;
            let f = fields.get(i)?;
            self.next += 1;
            let absent = self.rec.absent(i);
            if absent && f.default.is_none() {
                continue;
            }
            return Some(match &f.kind {
                Kind::MList { items_key, .. } => {
                    if !absent {
                        self.selection_of = Some(i);
                    }
                    (Slot::Field(i), items_key.as_str())
                }
                _ => (Slot::Field(i), f.name.as_str()),
            });
        }
    }
}

impl<'de> LineAccess<'_, 'de, '_> {
    fn next_value<V: DeserializeSeed<'de>>(&mut self, slot: Slot, seed: V) -> Result<V::Value> {
        let (i, result) = match slot {
            Slot::Field(i) => {
                self.rec.cur.seen[i] = true;
                (
                    i,
                    seed.deserialize(FieldCur {
                        rec: &mut self.rec,
                        i,
                    }),
                )
            }
            Slot::Selection(i) => match self.rec.cur.selection.take() {
                Some(sel) => (i, seed.deserialize(SelectionDe(sel))),
                // `advance` read the items' rules: no selection means they
                // failed
                None => return self.rec.fail(),
            },
        };
        result.map_err(|err| {
            let rec = &self.rec;
            let f = rec.field(i);
            let key = match (&f.kind, slot) {
                (Kind::MList { selected_key, .. }, Slot::Selection(_)) => selected_key,
                (Kind::MList { items_key, .. }, _) => items_key,
                _ => &f.name,
            };
            locate(err, rec.line, Some(&f.name), || {
                format!("{}[{}].{key}", rec.contract.records_key(), rec.index)
            })
        })
    }
}

impl<'de> SeqAccess<'de> for LineAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.advance() {
            Some((slot, _)) => self.next_value(slot, seed).map(Some),
            None => Ok(None),
        }
    }
}

impl<'de> MapAccess<'de> for LineAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.advance() {
            Some((slot, key)) => {
                self.pending = Some(slot);
                seed.deserialize(key.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.pending.take() {
            Some(slot) => self.next_value(slot, seed),
            None => Err(Error::message(
                "next_value_seed called before next_key_seed",
            )),
        }
    }
}

/// One field of the record line, typed when serde asks for it.
struct FieldCur<'r, 'a, 'de, 'c> {
    rec: &'r mut Line<'a, 'de, 'c>,
    i: usize,
}

impl<'de, 'c> FieldCur<'_, '_, 'de, 'c> {
    fn raw(&self) -> RawField<'de> {
        self.rec.cur.fields[self.i]
    }

    /// The typed value of a scalar field (present: the caller handled
    /// absence).
    fn scalar(&mut self, s: &Scalar) -> Result<Typed<'de>> {
        let raw = self.raw();
        if raw.is_empty() {
            return self.rec.fail();
        }
        let text = raw.text(self.rec.contract.separator());
        let unique = self.rec.field(self.i).unique;
        let typed = match s.ty {
            ScalarType::Str => Typed::Atom(Atom::Str(text)),
            ScalarType::Float if !unique => match check_float(text, s, true) {
                Ok(v) => Typed::Float(v),
                Err(_) => return self.rec.fail(),
            },
            _ => match check_atom(text, s, true) {
                Ok(a) => Typed::Atom(a),
                Err(_) => return self.rec.fail(),
            },
        };
        if unique {
            if let Typed::Atom(a) = &typed {
                self.rec.cur.add_key(self.i, a);
            }
        }
        Ok(typed)
    }

    /// The rules of a list or marked list that need every element: the
    /// grammar (E09), the arity and count key (E07), markers (E08). The
    /// elements wait in the cursor, untyped; a marked list's selection too.
    fn list_rules(&mut self) -> Result<()> {
        let raw = self.raw();
        let f = self.rec.field(self.i);
        let (arity, marker) = match &f.kind {
            Kind::List { arity, .. } => (arity, None),
            Kind::MList { arity, marker, .. } => (arity, Some(*marker)),
            _ => return self.rec.fail(),
        };
        let cur = &mut *self.rec.cur;
        if syntax::split_list(raw.raw, self.rec.contract.separator(), &mut cur.elements).is_err()
            || check_arity(cur.elements.len(), arity, self.rec.header).is_err()
        {
            return self.rec.fail();
        }
        cur.marked.clear();
        cur.marked.extend(
            cur.elements
                .iter()
                .enumerate()
                .filter(|(_, e)| e.marked)
                .map(|(k, _)| k),
        );
        match marker {
            None if !cur.marked.is_empty() => return self.rec.fail(),
            None => {}
            Some(rule) => match check_marker(rule, &cur.marked) {
                Ok(sel) => cur.selection = Some(sel),
                Err(_) => return self.rec.fail(),
            },
        }
        Ok(())
    }

    /// The rules of a tuple: the grammar, the component count (E07), no
    /// marker (E08), and each component typed (its bounds included). The
    /// components wait in the cursor.
    fn tuple_rules(&mut self, comps: &[Component]) -> Result<()> {
        let raw = self.raw();
        let sep = self.rec.contract.separator();
        let cur = &mut *self.rec.cur;
        if syntax::split_list(raw.raw, sep, &mut cur.elements).is_err()
            || cur.elements.len() != comps.len()
        {
            return self.rec.fail();
        }
        cur.parts.clear();
        for (c, e) in comps.iter().zip(cur.elements.iter_mut()) {
            if e.marked {
                return self.rec.fail();
            }
            if e.text.is_empty() {
                if c.optional {
                    cur.parts.push(None);
                    continue;
                }
                return self.rec.fail();
            }
            match type_text(std::mem::take(&mut e.text), &c.scalar, true) {
                Some(t) => cur.parts.push(Some(t)),
                None => return self.rec.fail(),
            }
        }
        Ok(())
    }

    fn ctx(&self) -> Ctx<'c> {
        self.rec.ctx(self.i)
    }

    /// The elements of the list just checked, typed one by one as serde
    /// asks; the ones it leaves are typed after it (each must still be
    /// valid), and leaving any is serde's "invalid length".
    fn visit_list<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.list_rules()?;
        let (Kind::List { item, .. } | Kind::MList { item, .. }) = &self.rec.field(self.i).kind
        else {
            return self.rec.fail();
        };
        let ctx = self.ctx();
        let mut access = Elements {
            rec: &mut *self.rec,
            item,
            ctx,
            next: 0,
        };
        let value = visitor.visit_seq(&mut access)?;
        let (read, total) = (access.next, access.rec.cur.elements.len());
        for k in read..total {
            if access.element(k).is_err() {
                return access.rec.fail();
            }
        }
        if read < total {
            return Err(de::Error::invalid_length(
                total,
                &"fewer elements in the list",
            ));
        }
        Ok(value)
    }

    /// A tuple as a map of its present components (as the canonical
    /// object has it).
    fn visit_tuple<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let Kind::Tuple(comps) = &self.rec.field(self.i).kind else {
            return self.rec.fail();
        };
        self.tuple_rules(comps)?;
        let ctx = self.ctx();
        let parts = &mut self.rec.cur.parts;
        let atoms = comps.iter().zip(parts.drain(..)).filter_map(|(c, p)| {
            p.map(|value| {
                (
                    c.name.as_str(),
                    TypedDe {
                        value,
                        ctx,
                        part: Part::Component(&c.name),
                    },
                )
            })
        });
        let mut map = de::value::MapDeserializer::new(atoms);
        let v = visitor.visit_map(&mut map)?;
        map.end()?;
        Ok(v)
    }

    /// The field's default when it has no value (`None` without one).
    fn absent_value<V: Visitor<'de>>(&self, visitor: V) -> Result<V::Value> {
        match &self.rec.field(self.i).default {
            Some(v) => ValueDe(v, self.rec.line).deserialize_any(visitor),
            None => visitor.visit_none(),
        }
    }
}

/// Forwards a primitive request to the atom's deserializer (which checks
/// integer ranges against the Rust type), anything else to
/// `deserialize_any`.
macro_rules! forward_to_scalar {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
            match &self.rec.field(self.i).kind {
                Kind::Scalar(s) if !self.rec.absent(self.i) => {
                    let value = self.scalar(s)?;
                    TypedDe { value, ctx: self.ctx(), part: Part::Whole }.$method(visitor)
                }
                _ => self.deserialize_any(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for FieldCur<'_, '_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if self.rec.absent(self.i) {
            return self.absent_value(visitor);
        }
        match &self.rec.field(self.i).kind {
            Kind::Scalar(s) => {
                let value = self.scalar(s)?;
                TypedDe {
                    value,
                    ctx: self.ctx(),
                    part: Part::Whole,
                }
                .deserialize_any(visitor)
            }
            Kind::List { .. } | Kind::MList { .. } => self.visit_list(visitor),
            Kind::Tuple(_) => self.visit_tuple(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.rec.absent(self.i) {
            match &self.rec.field(self.i).default {
                None | Some(Value::Null) => return visitor.visit_none(),
                Some(_) => {}
            }
        }
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
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match &self.rec.field(self.i).kind {
            Kind::Scalar(s) if !self.rec.absent(self.i) => {
                let value = self.scalar(s)?;
                TypedDe {
                    value,
                    ctx: self.ctx(),
                    part: Part::Whole,
                }
                .deserialize_enum(name, variants, visitor)
            }
            _ => self.deserialize_any(visitor),
        }
    }

    forward_to_scalar! {
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

/// The elements of a checked list, typed as serde asks for them.
struct Elements<'r, 'a, 'de, 'c> {
    rec: &'r mut Line<'a, 'de, 'c>,
    item: &'c Scalar,
    ctx: Ctx<'c>,
    next: usize,
}

impl<'de> Elements<'_, '_, 'de, '_> {
    /// Element `k`, typed (its text is taken out of the cursor).
    fn element(&mut self, k: usize) -> Result<Typed<'de>> {
        let text = std::mem::take(&mut self.rec.cur.elements[k].text);
        if self.item.ty == ScalarType::Str {
            // a str element is its text: nothing to check
            return Ok(Typed::Atom(Atom::Str(text)));
        }
        if text.is_empty() {
            return self.rec.fail();
        }
        match type_text(text, self.item, false) {
            Some(t) => Ok(t),
            None => self.rec.fail(),
        }
    }
}

impl<'de> SeqAccess<'de> for Elements<'_, '_, 'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let k = self.next;
        if k >= self.rec.cur.elements.len() {
            return Ok(None);
        }
        self.next += 1;
        let value = self.element(k)?;
        seed.deserialize(TypedDe {
            value,
            ctx: self.ctx,
            part: Part::Element(k),
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rec.cur.elements.len() - self.next)
    }
}

/// A value typed by the engine's rules: an atom, or a float already read
/// as a double (it is not parsed again).
enum Typed<'de> {
    Atom(Atom<'de>),
    Float(f64),
}

/// Types the (non-empty) text of a component or element.
fn type_text<'de>(text: Cow<'de, str>, spec: &Scalar, ranged: bool) -> Option<Typed<'de>> {
    if spec.ty == ScalarType::Float {
        check_float(text, spec, ranged).ok().map(Typed::Float)
    } else {
        check_atom(text, spec, ranged).ok().map(Typed::Atom)
    }
}

/// A typed value: an atom through [`AtomDe`], a double visited as one.
struct TypedDe<'de, 'c> {
    value: Typed<'de>,
    ctx: Ctx<'c>,
    part: Part<'c>,
}

macro_rules! typed_method {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.value {
                Typed::Atom(atom) => AtomDe { atom, ctx: self.ctx, part: self.part }.$method(visitor),
                Typed::Float(v) => visitor.visit_f64(v),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for TypedDe<'de, '_> {
    type Error = Error;

    typed_method! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_unit deserialize_seq deserialize_map deserialize_identifier
        deserialize_ignored_any
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

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.value {
            Typed::Atom(atom) => AtomDe {
                atom,
                ctx: self.ctx,
                part: self.part,
            }
            .deserialize_enum(name, variants, visitor),
            Typed::Float(v) => visitor.visit_f64(v),
        }
    }
}

impl<'de, 'c> IntoDeserializer<'de, Error> for TypedDe<'de, 'c> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}
