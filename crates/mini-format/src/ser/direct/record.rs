//! One record: its fields by canonical key.

use super::*;

/// One record: a struct or map of canonical keys.
pub(super) struct RecordSer<'a, 'c> {
    pub(super) doc: &'a mut Doc<'c>,
    pub(super) key: Option<String>,
    /// The field the next key most likely names.
    pub(super) next: usize,
}

/// Which canonical key of a field a key is.
pub(super) enum Role {
    Value,
    Selection,
}

/// Which field and canonical key `key` is, looking at field `hint` first
/// (keys usually come in contract order).
pub(super) fn find_key(fields: &[Field], key: &str, hint: usize) -> Option<(usize, Role)> {
    let role = |f: &Field| match &f.kind {
        Kind::MList {
            items_key,
            selected_key,
            ..
        } => {
            if items_key == key {
                Some(Role::Value)
            } else if selected_key == key {
                Some(Role::Selection)
            } else {
                None
            }
        }
        _ => (f.name == key).then_some(Role::Value),
    };
    if let Some(r) = fields.get(hint).and_then(role) {
        return Some((hint, r));
    }
    fields
        .iter()
        .enumerate()
        .find_map(|(i, f)| role(f).map(|r| (i, r)))
}

impl RecordSer<'_, '_> {
    pub(super) fn finish(self) -> R {
        Ok(())
    }

    pub(super) fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> R {
        let doc = &mut *self.doc;
        let (i, role) = find_key(doc.contract.fields(), key, self.next).ok_or(GiveUp)?;
        // the next key is most likely the next field (or the selection of
        // this marked list)
        self.next = match (&doc.contract.fields()[i].kind, &role) {
            (Kind::MList { .. }, Role::Value) => i,
            _ => i + 1,
        };
        let f: &Field = &doc.contract.fields()[i];
        let slot = &mut doc.slots[i];
        match role {
            Role::Selection => {
                slot.selected.clear();
                slot.sel_kind = value.serialize(SelectionSer {
                    out: &mut slot.selected,
                })?;
                Ok(())
            }
            Role::Value => {
                slot.text.clear();
                slot.ends.clear();
                slot.set = value.serialize(FieldSer {
                    kind: &f.kind,
                    sep: doc.sep,
                    slot,
                    comps: &mut doc.comps,
                })?;
                Ok(())
            }
        }
    }
}

impl ser::Serializer for RecordSer<'_, '_> {
    type Ok = ();
    type Error = GiveUp;
    type SerializeSeq = Impossible<(), GiveUp>;
    type SerializeTuple = Impossible<(), GiveUp>;
    type SerializeTupleStruct = Impossible<(), GiveUp>;
    type SerializeTupleVariant = Impossible<(), GiveUp>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), GiveUp>;

    refuse_all_but_structs!();

    fn serialize_seq(self, _: Option<usize>) -> R<Self::SerializeSeq> {
        Err(GiveUp)
    }
    fn serialize_map(self, _: Option<usize>) -> R<Self> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Self> {
        Ok(self)
    }
}

keyed!(RecordSer<'_, '_> => (), struct);
