//! The document: its keys, the header map and the record sequence.

use super::*;

/// A map key (strings only).
pub(super) struct KeySer;

impl ser::Serializer for KeySer {
    type Ok = String;
    type Error = GiveUp;
    type SerializeSeq = Impossible<String, GiveUp>;
    type SerializeTuple = Impossible<String, GiveUp>;
    type SerializeTupleStruct = Impossible<String, GiveUp>;
    type SerializeTupleVariant = Impossible<String, GiveUp>;
    type SerializeMap = Impossible<String, GiveUp>;
    type SerializeStruct = Impossible<String, GiveUp>;
    type SerializeStructVariant = Impossible<String, GiveUp>;

    fn serialize_str(self, v: &str) -> R<String> {
        Ok(v.to_string())
    }
    refuse! {
        serialize_bool(bool) serialize_i8(i8) serialize_i16(i16) serialize_i32(i32)
        serialize_i64(i64) serialize_u8(u8) serialize_u16(u16) serialize_u32(u32)
        serialize_u64(u64) serialize_f32(f32) serialize_f64(f64) serialize_char(char)
        serialize_bytes(&[u8]) serialize_none() serialize_unit()
        serialize_unit_struct(&'static str)
        serialize_unit_variant(&'static str, u32, &'static str)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> R<String> {
        Err(GiveUp)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R<String> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R<String> {
        Err(GiveUp)
    }
    fn serialize_seq(self, _: Option<usize>) -> R<Self::SerializeSeq> {
        Err(GiveUp)
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

/// The document: a struct or map with `prefix`, `header` and the records.
pub(super) struct DocMap<'a, 'c> {
    pub(super) doc: &'a mut Doc<'c>,
    pub(super) key: Option<String>,
}

impl<'a, 'c> ser::Serializer for &'a mut Doc<'c> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = DocMap<'a, 'c>;
    type SerializeStruct = DocMap<'a, 'c>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    refuse_all_but_structs!();

    fn serialize_seq(self, _: Option<usize>) -> R<Self::SerializeSeq> {
        Err(GiveUp)
    }
    fn serialize_map(self, _: Option<usize>) -> R<DocMap<'a, 'c>> {
        Ok(DocMap {
            doc: self,
            key: None,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<DocMap<'a, 'c>> {
        Ok(DocMap {
            doc: self,
            key: None,
        })
    }
}

impl DocMap<'_, '_> {
    pub(super) fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> R {
        self.doc.entry(key, value)
    }
    pub(super) fn finish(self) -> R {
        Ok(())
    }
}

keyed!(DocMap<'_, '_> => (), struct);

/// The records array.
pub(super) struct Records<'a, 'c> {
    pub(super) doc: &'a mut Doc<'c>,
}

impl<'a, 'c> ser::Serializer for Records<'a, 'c> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Self;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Impossible<(), GiveUp>;
    type SerializeStruct = Impossible<(), GiveUp>;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    refuse_all_but_structs!();

    fn serialize_seq(self, _: Option<usize>) -> R<Self> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> R<Self::SerializeMap> {
        Err(GiveUp)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self::SerializeStruct> {
        Err(GiveUp)
    }
}

impl ser::SerializeSeq for Records<'_, '_> {
    type Ok = ();
    type Error = GiveUp;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, rec: &T) -> R {
        for s in &mut self.doc.slots {
            s.clear();
        }
        rec.serialize(RecordSer {
            doc: &mut *self.doc,
            key: None,
            next: 0,
        })?;
        self.doc.finish_record()
    }
    fn end(self) -> R {
        Ok(())
    }
}

// ---------------------------------------------------------------------------
// records
// ---------------------------------------------------------------------------
