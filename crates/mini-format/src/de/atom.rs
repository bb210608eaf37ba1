//! One typed scalar and one marked-list selection.

use super::*;

/// One typed scalar.
pub(super) struct AtomDe<'de, 'c> {
    pub(super) atom: Atom<'de>,
    pub(super) ctx: Ctx<'c>,
    pub(super) part: Part<'c>,
}

impl<'de, 'c> IntoDeserializer<'de, Error> for AtomDe<'de, 'c> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl AtomDe<'_, '_> {
    #[cold]
    #[inline(never)]
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
            Atom::Float(ref t) => match crate::number::float_value(t).ok_or(()) {
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
            Atom::Float(t) | Atom::Int(t) => match crate::number::float_value(t).ok_or(()) {
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
pub(super) struct SelectionDe(pub(super) Selection);

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

/// A `str` value (a field, an element): visited borrowed when it held no
/// escape, owned otherwise. Nothing about it can be out of range, so it
/// carries no location; the typed layers of other scalars are skipped.
pub(super) struct StrDe<'de>(pub(super) Cow<'de, str>);

impl<'de> de::Deserializer<'de> for StrDe<'de> {
    type Error = Error;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.0 {
            Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
            Cow::Owned(s) => visitor.visit_string(s),
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
        match self.0 {
            Cow::Borrowed(s) => visitor.visit_enum(de::value::BorrowedStrDeserializer::new(s)),
            Cow::Owned(s) => visitor.visit_enum(de::value::StringDeserializer::new(s)),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}
