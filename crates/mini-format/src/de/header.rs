//! The header: its entries, typed by the engine, through the same field
//! deserializers as the records.

use super::*;

/// One header entry, ready to be deserialized.
pub(super) enum HeaderItem<'de, 'c> {
    /// A declared key's value, typed by the engine.
    Typed(FieldValue<'de>, &'c HeaderKey),
    /// An undeclared key's text.
    Text(String),
    /// A declared key the line does not write: the contract's default.
    Default(&'c Value),
}

/// The header's entries in the engine's order (its values are cloned: one
/// header per document).
pub(super) fn header_items<'de, 'c>(
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
pub(super) struct HeaderDe<'de, 'c> {
    pub(super) entries: Vec<(String, HeaderItem<'de, 'c>)>,
    pub(super) line: usize,
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

pub(super) struct HeaderAccess<'de, 'c> {
    pub(super) entries: std::vec::IntoIter<(String, HeaderItem<'de, 'c>)>,
    pub(super) pending: Option<HeaderItem<'de, 'c>>,
    pub(super) line: usize,
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
