//! The selection of a marked list: an index, none, or indices.

use super::*;

pub(super) const NULL: u8 = 0;
pub(super) const ONE: u8 = 1;
pub(super) const MANY: u8 = 2;

/// A marked list's selection: an index (`ONE`), null (`NULL`), or indices
/// (`MANY`).
pub(super) struct SelectionSer<'a> {
    pub(super) out: &'a mut Vec<usize>,
}

macro_rules! sel_uint {
    ($($method:ident $t:ty),*) => {$(
        fn $method(self, v: $t) -> R<u8> {
            self.out.push(usize::try_from(v).map_err(|_| GiveUp)?);
            Ok(ONE)
        }
    )*};
}

impl<'a> ser::Serializer for SelectionSer<'a> {
    type Ok = u8;
    type Error = GiveUp;
    type SerializeSeq = Self;
    type SerializeTuple = Impossible<u8, GiveUp>;
    type SerializeTupleStruct = Impossible<u8, GiveUp>;
    type SerializeTupleVariant = Impossible<u8, GiveUp>;
    type SerializeMap = Impossible<u8, GiveUp>;
    type SerializeStruct = Impossible<u8, GiveUp>;
    type SerializeStructVariant = Impossible<u8, GiveUp>;

    sel_uint!(serialize_u8 u8, serialize_u16 u16, serialize_u32 u32, serialize_u64 u64,
        serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64);

    refuse! {
        serialize_bool(bool) serialize_f32(f32) serialize_f64(f64) serialize_char(char)
        serialize_str(&str) serialize_bytes(&[u8]) serialize_unit_struct(&'static str)
        serialize_unit_variant(&'static str, u32, &'static str)
    }
    fn serialize_none(self) -> R<u8> {
        Ok(NULL)
    }
    fn serialize_unit(self) -> R<u8> {
        Ok(NULL)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R<u8> {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R<u8> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R<u8> {
        Err(GiveUp)
    }
    fn serialize_seq(self, _: Option<usize>) -> R<Self> {
        Ok(self)
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
    fn serialize_map(self, _: Option<usize>) -> R<Self::SerializeMap> {
        Err(GiveUp)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self::SerializeStruct> {
        Err(GiveUp)
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

impl ser::SerializeSeq for SelectionSer<'_> {
    type Ok = u8;
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        // an index inside the list: null is not one
        match v.serialize(SelectionSer {
            out: &mut *self.out,
        })? {
            ONE => Ok(()),
            _ => Err(GiveUp),
        }
    }
    fn end(self) -> R<u8> {
        Ok(MANY)
    }
}

// ---------------------------------------------------------------------------
// field values
// ---------------------------------------------------------------------------
