//! One field: a scalar, a list, a marked list or a tuple.

use super::*;

/// One field value; `Ok(false)` for null.
pub(super) struct FieldSer<'a> {
    pub(super) kind: &'a Kind,
    pub(super) sep: char,
    pub(super) slot: &'a mut Slot,
    pub(super) comps: &'a mut Vec<Option<String>>,
}

/// Where a scalar is written.
#[derive(Clone, Copy)]
pub(super) enum Pos {
    /// A scalar field under the list separator: escaped as a scalar, never
    /// empty.
    Field(char),
    /// A list element or a tuple component: escaped as an element.
    Element(char),
}

/// A list's elements (a marked list records where each one ends).
pub(super) struct ListSer<'a> {
    pub(super) item: &'a Scalar,
    pub(super) sep: char,
    pub(super) slot: &'a mut Slot,
    pub(super) marked: bool,
    pub(super) first: bool,
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
pub(super) struct TupleSer<'a> {
    pub(super) comps: &'a [Component],
    pub(super) sep: char,
    pub(super) slot: &'a mut Slot,
    pub(super) parts: &'a mut Vec<Option<String>>,
    pub(super) key: Option<String>,
}

impl TupleSer<'_> {
    pub(super) fn entry<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) -> R {
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

    pub(super) fn finish(self) -> R<bool> {
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
    pub(super) fn tuple(self) -> R<TupleSer<'a>> {
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

    pub(super) fn scalar(self) -> R<ScalarSer<'a>> {
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
