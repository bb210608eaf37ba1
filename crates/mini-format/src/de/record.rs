//! A record already checked by the engine (its typed values in the
//! engine's scratch), as a map of its canonical keys: the streaming typed
//! reader's record, each field through [`FieldDe`].

use super::*;

/// One valid record, as a map of canonical keys. Its values are taken out
/// of the slice they live in (the vectors stay there, to be reused).
pub(crate) struct RecordDe<'v, 'de, 'c> {
    pub(super) contract: &'c Contract,
    pub(super) values: &'v mut [FieldValue<'de>],
    pub(super) line: usize,
    pub(super) index: usize,
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

impl<'v, 'de, 'c> RecordDe<'v, 'de, 'c> {
    fn access(self) -> RecordAccess<'v, 'de, 'c> {
        RecordAccess {
            records_key: self.contract.records_key(),
            fields: self.contract.fields().iter(),
            values: self.values.iter_mut(),
            selection: None,
            pending: None,
            line: self.line,
            index: self.index,
        }
    }

    /// Whether a struct with serde's `fields` can be read positionally: its
    /// fields are the record's canonical keys in the contract's order, and
    /// every key has a value in this record (a map leaves an absent value
    /// out, so that serde applies `None` or `#[serde(default)]`; a sequence
    /// could not).
    fn positional(&self, fields: &[&str]) -> bool {
        let mut names = fields.iter();
        for (f, v) in self.contract.fields().iter().zip(self.values.iter()) {
            if matches!(v, FieldValue::Default) && f.default.is_none() {
                return false;
            }
            match &f.kind {
                Kind::MList {
                    items_key,
                    selected_key,
                    ..
                } => {
                    if matches!(v, FieldValue::MList(_, Selection::One(None)))
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

impl<'de> de::Deserializer<'de> for RecordDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self.access())
    }

    /// A struct whose fields are the record's keys in order is read as a
    /// sequence (as bincode, or csv without headers): no key is matched.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if self.positional(fields) {
            visitor.visit_seq(self.access())
        } else {
            visitor.visit_map(self.access())
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// A value waiting for `next_value_seed`, with its canonical key.
pub(super) enum Pending<'v, 'de, 'c> {
    Field(&'v mut FieldValue<'de>, &'c Field, &'c str),
    Selection(Selection, &'c Field, &'c str),
}

/// The entries of a record: each field under its canonical key, a marked
/// list as its items key then its selection key. Absent values (an empty
/// optional field without `default`, an absent extension, a `null`
/// selection) are left out, so that serde applies `None` or
/// `#[serde(default)]`.
pub(super) struct RecordAccess<'v, 'de, 'c> {
    pub(super) records_key: &'c str,
    pub(super) fields: std::slice::Iter<'c, Field>,
    pub(super) values: std::slice::IterMut<'v, FieldValue<'de>>,
    pub(super) selection: Option<(Selection, &'c Field, &'c str)>,
    pub(super) pending: Option<Pending<'v, 'de, 'c>>,
    pub(super) line: usize,
    pub(super) index: usize,
}

impl<'v, 'de, 'c> RecordAccess<'v, 'de, 'c> {
    /// Moves to the next present value (see the type's docs) and returns its
    /// canonical key; the value waits in `pending`.
    fn advance(&mut self) -> Option<&'c str> {
        if let Some((sel, f, key)) = self.selection.take() {
            self.pending = Some(Pending::Selection(sel, f, key));
            return Some(key);
        }
        loop {
            let (f, v) = (self.fields.next()?, self.values.next()?);
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
            return Some(key);
        }
    }
}

/// The record as a sequence of its values (see
/// [`RecordDe::deserialize_struct`]).
impl<'de> SeqAccess<'de> for RecordAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.advance() {
            Some(_) => MapAccess::next_value_seed(self, seed).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.values.len())
    }
}

impl<'de> MapAccess<'de> for RecordAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.advance() {
            Some(key) => seed.deserialize(key.into_deserializer()).map(Some),
            None => Ok(None),
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
pub(super) struct Ctx<'c> {
    pub(super) line: usize,
    /// A header value (paths `header.<key>`), not a record's.
    pub(super) in_header: bool,
    pub(super) records_key: &'c str,
    pub(super) index: usize,
    /// The canonical key of the field.
    pub(super) key: &'c str,
    /// The contract field name.
    pub(super) field: &'c str,
}

/// Which part of a field an atom is.
#[derive(Clone, Copy)]
pub(super) enum Part<'c> {
    Whole,
    Element(usize),
    Component(&'c str),
}

/// One field value of a record.
pub(super) struct FieldDe<'v, 'de, 'c> {
    pub(super) value: &'v mut FieldValue<'de>,
    pub(super) kind: &'c Kind,
    pub(super) default: Option<&'c Value>,
    pub(super) ctx: Ctx<'c>,
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
