//! A value the engine has already typed (a header value, in
//! [`crate::check::HeaderValue::Typed`]), as a deserializer, and where a
//! value sits (for the errors serde raises). Records are read by the
//! single-pass reader (`cursor.rs`), not from typed values.

use super::*;

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
                visit_components(
                    comps,
                    parts.drain(..),
                    |c, atom| AtomDe {
                        atom,
                        ctx,
                        part: Part::Component(&c.name),
                    },
                    visitor,
                )
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
