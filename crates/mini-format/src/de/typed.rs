//! A value typed by the engine's rules (an atom, a double, a short int),
//! and its deserializer: what the record reader (`field.rs`) and the
//! direct reader (`direct.rs`) hand to serde for a value, an element or a
//! component.

use super::*;

use crate::check::{check_atom, check_small_int, read_float};
use crate::contract::{Scalar, ScalarType};

/// A value typed by the engine's rules: an atom, or a float already read
/// as a double (it is not parsed again).
pub(super) enum Typed<'de> {
    Atom(Atom<'de>),
    Float(f64),
    /// A canonical int of up to 18 digits, read once.
    Int(i64),
}

/// Types the (non-empty) text of a component or element.
#[inline(always)]
pub(super) fn type_text<'de>(
    text: Cow<'de, str>,
    spec: &Scalar,
    ranged: bool,
) -> Option<Typed<'de>> {
    if spec.ty == ScalarType::Int {
        if let Some(v) = check_small_int(&text, spec, ranged) {
            return v.ok().map(Typed::Int);
        }
    }
    if spec.ty == ScalarType::Float {
        read_float(text, spec, ranged).ok().map(Typed::Float)
    } else {
        check_atom(text, spec, ranged).ok().map(Typed::Atom)
    }
}

/// A typed value: an atom through [`AtomDe`], a double visited as one.
pub(super) struct TypedDe<'de, 'c> {
    pub(super) value: Typed<'de>,
    pub(super) ctx: Ctx<'c>,
    pub(super) part: Part<'c>,
}

macro_rules! typed_method {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.value {
                Typed::Atom(atom) => AtomDe { atom, ctx: self.ctx, part: self.part }.$method(visitor),
                Typed::Float(v) => visitor.visit_f64(v),
                Typed::Int(v) => self.int_as_atom(v).$method(visitor),
            }
        }
    )*};
}

/// An int read as its value, asked for as a Rust integer type: converted
/// (out of its range: E13, as [`AtomDe`] says it).
macro_rules! typed_int_method {
    ($($method:ident $t:ty => $visit:ident,)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            match self.value {
                Typed::Int(v) => match <$t>::try_from(v) {
                    Ok(x) => visitor.$visit(x),
                    Err(_) => self.int_as_atom(v).$method(visitor),
                },
                Typed::Atom(atom) => AtomDe { atom, ctx: self.ctx, part: self.part }.$method(visitor),
                Typed::Float(v) => visitor.visit_f64(v),
            }
        }
    )*};
}

impl<'de, 'c> TypedDe<'de, 'c> {
    /// The int as the atom of its (canonical) text, for the paths that
    /// read a text: other Rust types, and the errors.
    #[cold]
    fn int_as_atom(&self, v: i64) -> AtomDe<'de, 'c> {
        AtomDe {
            atom: Atom::Int(Cow::Owned(v.to_string())),
            ctx: self.ctx,
            part: self.part,
        }
    }
}

impl<'de> de::Deserializer<'de> for TypedDe<'de, '_> {
    type Error = Error;

    typed_int_method! {
        deserialize_i8 i8 => visit_i8,
        deserialize_i16 i16 => visit_i16,
        deserialize_i32 i32 => visit_i32,
        deserialize_i64 i64 => visit_i64,
        deserialize_u8 u8 => visit_u8,
        deserialize_u16 u16 => visit_u16,
        deserialize_u32 u32 => visit_u32,
        deserialize_u64 u64 => visit_u64,
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.value {
            Typed::Int(v) => visitor.visit_i64(v),
            Typed::Atom(atom) => AtomDe {
                atom,
                ctx: self.ctx,
                part: self.part,
            }
            .deserialize_any(visitor),
            Typed::Float(v) => visitor.visit_f64(v),
        }
    }

    typed_method! {
        deserialize_bool
        deserialize_i128 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
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
            Typed::Int(v) => visitor.visit_i64(v),
        }
    }
}

impl<'de, 'c> IntoDeserializer<'de, Error> for TypedDe<'de, 'c> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}
