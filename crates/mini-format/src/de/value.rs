//! A JSON value (a contract default) as a deserializer.

use super::*;

/// A JSON map (the canonical header) as a deserializer.
pub(super) struct MapDe<'v> {
    pub(super) map: &'v Map<String, Value>,
    pub(super) line: usize,
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
pub(super) struct ValueDe<'v>(pub(super) &'v Value, pub(super) usize);

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
