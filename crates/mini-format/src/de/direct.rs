//! The direct reader of a derived record (ADR 0044): the record type's
//! `#[derive(Mini)]` writes, besides its contract, a function that builds
//! the record from its line value by value in the contract's order, with
//! no serde visitor between the line and each field. It walks the same
//! cursor, the same plan steps and the same rule functions as serde's path
//! (`cursor.rs`, `field.rs`); a value its fast case does not take (a field
//! type without [`DirectValue`], an absent value, a value of another kind
//! than the Rust type's) goes through serde's path, so the two give the
//! same values and the same errors.
//!
//! Nothing here is public API: the derive's expansion reaches it through
//! `mini::__private::direct`.

use std::marker::PhantomData;

use super::cursor::{LineAccess, LineDe, Slot};
use super::field::{Elements, FieldCur};
use super::parts::Parts;
use super::typed::Typed;
use super::*;

use crate::check::Selection;
use crate::contract::ScalarType;
use crate::plan::StepKind;

/// A record type read by its derive's direct reader. Implemented by
/// `#[derive(Mini)]` for a struct without generics or `#[serde]`
/// attributes (a type whose `Deserialize` serde derived reads the same
/// values; `#[mini(through_serde)]` opts a type out).
pub trait DirectRecord<'de>: de::Deserialize<'de> {
    /// The struct's field names, as serde's derive names them: the record
    /// is read positionally only when they are the contract's keys.
    const FIELDS: &'static [&'static str];

    /// Reads the record's values in order, one `read_value` per field,
    /// and pushes the record onto `out`: the struct is put together where
    /// the vector keeps it, not returned in a `Result` and moved out of it
    /// again (round 25 of issue 21).
    fn push_fields(values: &mut RecordValues<'_, '_, 'de, '_>, out: &mut Vec<Self>) -> Result<()>;
}

/// A document type read with its records' direct reader: implemented by
/// `#[derive(Mini)]` for a document struct (`header` and the records)
/// whose record type is a [`DirectRecord`].
pub trait DirectDocument<'de>: Sized {
    /// Reads the header and the records.
    fn read_document(de: &mut Deserializer<'de, '_>) -> Result<Self>;
}

/// A field type read straight from its field (no serde visitor): the
/// std ints, floats, `bool`, `String`, derived unit enums, derived
/// structs from a tuple field, and `Option` and `Vec` of them.
pub trait DirectValue<'de>: de::Deserialize<'de> {
    /// The value of `field`.
    fn read_direct(field: DirectField<'_, '_, 'de, '_>) -> Result<Self>;

    /// A marked list's selected index as this type, when it is an int
    /// type that holds it (`None`: serde reads the selection).
    #[inline(always)]
    fn from_index(_index: usize) -> Option<Self> {
        None
    }
}

/// A tuple component type read straight from the component's typed value.
pub trait DirectPart<'de>: de::Deserialize<'de> {
    /// The next component of `parts`.
    fn read_part(parts: &mut TupleParts<'_, 'de, '_>) -> Result<Self>;
}

/// A list element type read straight from the list's elements.
pub trait DirectElement<'de>: de::Deserialize<'de> {
    /// Element `k` of `list`.
    fn read_element(list: &mut ListElements<'_, '_, 'de, '_>, k: usize) -> Result<Self>;

    /// The elements of a list field read in one walk, each taken as it is
    /// cut (ADR 0046: a plain list of numbers or bools, a plain or marked
    /// list of text); `None` (the default) when the type has no such
    /// reader or the list needs the element path, which then reads it
    /// from the start (and gives any error).
    #[inline(always)]
    fn read_plain_list(_field: &mut DirectField<'_, '_, 'de, '_>) -> Option<Vec<Self>> {
        None
    }
}

/// One field of the record line being read.
pub struct DirectField<'r, 'a, 'de, 'c>(FieldCur<'r, 'a, 'de, 'c>);

/// The elements of a list field, its rules checked.
pub struct ListElements<'r, 'a, 'de, 'c>(Elements<'r, 'a, 'de, 'c>);

/// The typed components of a tuple field, its rules checked.
pub struct TupleParts<'p, 'de, 'c>(Parts<'p, 'de, 'c>);

/// The values of one record line, handed in the contract's order.
pub struct RecordValues<'r, 'a, 'de, 'c>(&'r mut LineAccess<'a, 'de, 'c>);

impl<'de> RecordValues<'_, '_, 'de, '_> {
    /// The next value, read by its [`DirectValue`] (a marked list's
    /// selection through serde).
    #[inline(always)]
    pub fn value<T: DirectValue<'de>>(&mut self) -> Result<T> {
        match self.0.positional_slot() {
            Some(Slot::Field(i)) => {
                self.0.rec.cur.seen.set(i);
                let field = DirectField(FieldCur {
                    rec: &mut self.0.rec,
                    i,
                });
                T::read_direct(field).map_err(|e| self.0.locate(e, Slot::Field(i), i))
            }
            Some(Slot::Selection(i)) => {
                if let Some(Selection::One(Some(k))) = self.0.rec.cur.selection {
                    if let Some(v) = T::from_index(k) {
                        self.0.rec.cur.selection = None;
                        return Ok(v);
                    }
                }
                self.serde_slot(Some(Slot::Selection(i)))
            }
            slot => self.serde_slot(slot),
        }
    }

    /// The next value, read through serde.
    #[inline(always)]
    pub fn value_serde<T: de::Deserialize<'de>>(&mut self) -> Result<T> {
        let slot = self.0.positional_slot();
        self.serde_slot(slot)
    }

    fn serde_slot<T: de::Deserialize<'de>>(&mut self, slot: Option<Slot>) -> Result<T> {
        match slot {
            Some(slot) => self.0.next_value(slot, PhantomData),
            // the positional check matched the struct's fields to the
            // contract's keys: the derive asks for no more values than that
            None => Err(Error::message("a record read past its last value")),
        }
    }
}

/// Picks a field type's [`DirectValue`] when it has one (the derive's
/// expansion calls `(&Probe::<T>::new()).read_value(values)`: method
/// resolution tries `Probe<T>` before `&Probe<T>`), serde otherwise.
pub struct Probe<T>(PhantomData<T>);

impl<T> Probe<T> {
    /// The probe of `T`.
    pub const fn new() -> Self {
        Probe(PhantomData)
    }
}

impl<T> Default for Probe<T> {
    fn default() -> Self {
        Probe::new()
    }
}

/// The direct side of [`Probe`] for a field.
pub trait ViaDirectValue<'de, T> {
    /// The next value of the record.
    fn read_value(&self, values: &mut RecordValues<'_, '_, 'de, '_>) -> Result<T>;
}

impl<'de, T: DirectValue<'de>> ViaDirectValue<'de, T> for Probe<T> {
    #[inline(always)]
    fn read_value(&self, values: &mut RecordValues<'_, '_, 'de, '_>) -> Result<T> {
        values.value::<T>()
    }
}

/// The serde side of [`Probe`] for a field.
pub trait ViaSerdeValue<'de, T> {
    /// The next value of the record.
    fn read_value(&self, values: &mut RecordValues<'_, '_, 'de, '_>) -> Result<T>;
}

impl<'de, T: de::Deserialize<'de>> ViaSerdeValue<'de, T> for &Probe<T> {
    #[inline(always)]
    fn read_value(&self, values: &mut RecordValues<'_, '_, 'de, '_>) -> Result<T> {
        values.value_serde::<T>()
    }
}

/// The direct side of [`Probe`] for a tuple component.
pub trait ViaDirectPart<'de, T> {
    /// The next component of the tuple.
    fn read_part(&self, parts: &mut TupleParts<'_, 'de, '_>) -> Result<T>;
}

impl<'de, T: DirectPart<'de>> ViaDirectPart<'de, T> for Probe<T> {
    #[inline(always)]
    fn read_part(&self, parts: &mut TupleParts<'_, 'de, '_>) -> Result<T> {
        T::read_part(parts)
    }
}

/// The serde side of [`Probe`] for a tuple component.
pub trait ViaSerdePart<'de, T> {
    /// The next component of the tuple.
    fn read_part(&self, parts: &mut TupleParts<'_, 'de, '_>) -> Result<T>;
}

impl<'de, T: de::Deserialize<'de>> ViaSerdePart<'de, T> for &Probe<T> {
    #[inline(always)]
    fn read_part(&self, parts: &mut TupleParts<'_, 'de, '_>) -> Result<T> {
        parts.with(Err)
    }
}

/// The direct side of [`Probe`] for a document.
pub trait ViaDirectDocument<'de, T> {
    /// The document, read by its records' direct reader.
    fn read_document(&self, de: &mut Deserializer<'de, '_>) -> Option<Result<T>>;
}

impl<'de, T: DirectDocument<'de>> ViaDirectDocument<'de, T> for Probe<T> {
    fn read_document(&self, de: &mut Deserializer<'de, '_>) -> Option<Result<T>> {
        Some(T::read_document(de))
    }
}

/// The serde side of [`Probe`] for a document: none (serde reads it).
pub trait ViaSerdeDocument<'de, T> {
    /// `None`: the document is read by its `Deserialize`.
    fn read_document(&self, de: &mut Deserializer<'de, '_>) -> Option<Result<T>>;
}

impl<'de, T> ViaSerdeDocument<'de, T> for &Probe<T> {
    fn read_document(&self, _: &mut Deserializer<'de, '_>) -> Option<Result<T>> {
        None
    }
}

/// A record line read by `R`'s direct reader when its fields are the
/// contract's keys in order (the test serde's path makes to read it as a
/// sequence, [`super::cursor::Line::positional`]); by its `Deserialize`
/// otherwise. The record is pushed onto `out`.
#[inline(always)]
pub(super) fn push_direct_record<'de, R: DirectRecord<'de>>(
    de: LineDe<'_, 'de, '_>,
    out: &mut Vec<R>,
) -> Result<()> {
    let mut de = de;
    if !de.0.positional(R::FIELDS) {
        out.push(R::deserialize(de)?);
        return Ok(());
    }
    let mut access = de.access();
    access.seq = true;
    R::push_fields(&mut RecordValues(&mut access), out)
}

impl<'de> DirectField<'_, '_, 'de, '_> {
    /// Serde's path for this field.
    #[inline(never)]
    fn serde<T: de::Deserialize<'de>>(self) -> Result<T> {
        T::deserialize(self.0)
    }

    /// A unit enum's value. `names` holds the variants' names packed (the
    /// variant at index `k` named `names[k]`, each by [`pack_name`]; empty
    /// when a name is longer than fifteen bytes) and `by_index` gives the
    /// variant at an index: a name is found among them with no branch on
    /// which it is, and taken when the contract lists the same name at the
    /// same place (a derived type's own contract does), so that neither the
    /// rule (E10) nor the variant costs a branch the text decides (ADR
    /// 0066). Otherwise `pick` maps a name to its variant (the derive
    /// writes it from the names serde reads); a name it does not know, or
    /// a field of another kind, goes through serde.
    #[inline(always)]
    pub fn enum_value_named<T: de::Deserialize<'de>>(
        self,
        names: &[u128],
        by_index: impl FnOnce(usize) -> Option<T>,
        pick: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T> {
        let mut f = self.0;
        let step = f.rec.step(f.i);
        if let StepKind::Scalar(s) = step.kind {
            if !f.rec.absent(f.i) {
                // the common case, a name as written (no escape) of a field
                // that is no unique key: its rule (E10) checked here, with
                // no typed value built
                let raw = f.raw();
                let plain = s.ty == ScalarType::Enum
                    && step.unique.is_none()
                    && !raw.escaped
                    && !raw.raw.is_empty();
                if plain {
                    if let Some(k) = name_index(names, raw.raw) {
                        // the contract's value at the same place is the
                        // same name: the rule holds, and `k` is the variant
                        if s.values.get(k).is_some_and(|v| v.as_str() == raw.raw) {
                            if let Some(v) = by_index(k) {
                                return Ok(v);
                            }
                        }
                    }
                }
                if plain && crate::check::enum_has(&s.values, raw.raw) {
                    return match pick(raw.raw) {
                        Some(v) => Ok(v),
                        None => f.after_scalar(Typed::Atom(Atom::Str(Cow::Borrowed(raw.raw)))),
                    };
                }
                return match f.scalar(s)? {
                    Typed::Atom(Atom::Str(text)) => match pick(&text) {
                        Some(v) => Ok(v),
                        None => f.after_scalar(Typed::Atom(Atom::Str(text))),
                    },
                    other => f.after_scalar(other),
                };
            }
        }
        DirectField(f).serde()
    }

    /// A struct read from a tuple field: `read` takes its components in
    /// order when serde's path would hand them as a sequence to a struct
    /// whose fields are `names` (a struct serde derived, the components'
    /// names in order); serde reads the field otherwise.
    #[inline(always)]
    pub fn tuple_struct<T: de::Deserialize<'de>>(
        self,
        names: &'static [&'static str],
        read: impl FnOnce(&mut TupleParts<'_, 'de, '_>) -> Result<T>,
    ) -> Result<T> {
        let mut f = self.0;
        if let Some(parts) = f.plain_tuple(names) {
            return read(&mut TupleParts(parts));
        }
        if !f.tuple_as_seq(names)? {
            return DirectField(f).serde();
        }
        let mut parts = TupleParts(f.parts());
        let value = read(&mut parts);
        drop(parts);
        value
    }
}

impl<'de> TupleParts<'_, 'de, '_> {
    /// The next component, taken by `take` from its typed value (or given
    /// back for serde's path, as an absent one is).
    #[inline(always)]
    fn with<T: de::Deserialize<'de>>(
        &mut self,
        take: impl FnOnce(Typed<'de>) -> std::result::Result<T, Typed<'de>>,
    ) -> Result<T> {
        let Some((value, c)) = self.0.next_part()? else {
            return Err(Error::message("a tuple read past its last component"));
        };
        let read = match value.map(take) {
            Some(Ok(v)) => return Ok(v),
            Some(Err(value)) => self.0.serde_part(Some(value), c),
            None => self.0.serde_part(None, c),
        };
        read.map_err(|refused| self.0.after_refusal(refused))
    }
}

/// A unit enum variant's name packed for [`DirectField::enum_value_named`]:
/// its bytes in the low fifteen bytes of the word (the first lowest), its
/// length in the top byte. A name of more than fifteen bytes does not
/// pack (a compile-time error where the derive's constants call it; the
/// derive packs no name list with such a name).
pub const fn pack_name(name: &str) -> u128 {
    let bytes = name.as_bytes();
    assert!(bytes.len() <= 15, "a packed name has at most 15 bytes");
    let mut word = (bytes.len() as u128) << 120;
    let mut k = 0;
    while k < bytes.len() {
        word |= (bytes[k] as u128) << (8 * k);
        k += 1;
    }
    word
}

/// The index of `text` among the packed `names` ([`pack_name`]), with no
/// branch on which one it is (the names are distinct: at most one is
/// equal). `None` when none is, or `text` has more than fifteen bytes.
#[inline(always)]
fn name_index(names: &[u128], text: &str) -> Option<usize> {
    let word = crate::syntax::short_word(text.as_bytes())?;
    // the names read from memory, not known to the compiler: as constants
    // it turned "is any equal" into a tree of branches on the text, and
    // with their number known it unrolled the loop with a branch a name
    // (ADR 0066)
    let names = std::hint::black_box(names);
    let (mut hit, mut at) = (false, 0usize);
    for (k, &name) in names.iter().enumerate() {
        let equal = name == word;
        hit |= equal;
        at |= usize::from(equal).wrapping_neg() & k;
    }
    hit.then_some(at)
}

impl<'de> ListElements<'_, '_, 'de, '_> {
    /// Element `k` of a list of a unit enum (see
    /// [`DirectField::enum_value_named`]).
    #[inline(always)]
    pub fn enum_element<T: de::Deserialize<'de>>(
        &mut self,
        k: usize,
        pick: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T> {
        let l = &mut self.0;
        if l.item.ty == ScalarType::Str {
            return l.element_serde(k);
        }
        match l.element(k)? {
            Typed::Atom(Atom::Str(text)) => match pick(&text) {
                Some(v) => Ok(v),
                None => l.typed_serde(k, Typed::Atom(Atom::Str(text))),
            },
            other => l.typed_serde(k, other),
        }
    }
}

/// A scalar type read from its typed value: the fast case of a field, a
/// list element and a tuple component alike (`Err` gives the value back
/// for serde's path).
trait FromTyped<'de>: de::Deserialize<'de> {
    /// The contract type whose values it reads.
    const TY: ScalarType;

    fn from_typed(value: Typed<'de>) -> std::result::Result<Self, Typed<'de>>;

    /// A selected index as this type (ints only).
    fn from_index(_index: usize) -> Option<Self> {
        None
    }
}

impl<'de> DirectField<'_, '_, 'de, '_> {
    /// A present scalar of `T`'s type, typed by the engine's rules and
    /// taken by `T`; serde's path for anything else.
    #[inline(always)]
    fn scalar_typed<T: FromTyped<'de>>(self) -> Result<T> {
        let mut f = self.0;
        if let StepKind::Scalar(s) = f.rec.step(f.i).kind {
            if s.ty == T::TY && !f.rec.absent(f.i) {
                if let Some(typed) = f.plain_scalar(s, T::TY) {
                    return match T::from_typed(typed) {
                        Ok(v) => Ok(v),
                        Err(value) => f.after_scalar(value),
                    };
                }
                return match T::from_typed(f.scalar(s)?) {
                    Ok(v) => Ok(v),
                    Err(value) => f.after_scalar(value),
                };
            }
        }
        DirectField(f).serde()
    }
}

impl<'de> ListElements<'_, '_, 'de, '_> {
    /// Element `k` of a list of `T`'s type, typed by the engine's rules
    /// and taken by `T`; serde's path for anything else.
    #[inline(always)]
    fn typed_element<T: FromTyped<'de>>(&mut self, k: usize) -> Result<T> {
        let l = &mut self.0;
        if l.item.ty != T::TY {
            return l.element_serde(k);
        }
        match T::from_typed(l.element(k)?) {
            Ok(v) => Ok(v),
            // an int `T` does not hold, a long one: serde's path
            Err(value) => l.typed_serde(k, value),
        }
    }
}

macro_rules! direct_scalar {
    ($($t:ty)*) => {$(
        impl<'de> DirectValue<'de> for $t {
            #[inline(always)]
            fn read_direct(field: DirectField<'_, '_, 'de, '_>) -> Result<Self> {
                field.scalar_typed()
            }

            #[inline(always)]
            fn from_index(index: usize) -> Option<Self> {
                <$t as FromTyped<'de>>::from_index(index)
            }
        }

        impl<'de> DirectPart<'de> for $t {
            #[inline(always)]
            fn read_part(parts: &mut TupleParts<'_, 'de, '_>) -> Result<Self> {
                parts.with(<$t as FromTyped<'de>>::from_typed)
            }
        }

        impl<'de> DirectElement<'de> for $t {
            #[inline(always)]
            fn read_element(list: &mut ListElements<'_, '_, 'de, '_>, k: usize) -> Result<Self> {
                list.typed_element(k)
            }

            #[inline(always)]
            fn read_plain_list(field: &mut DirectField<'_, '_, 'de, '_>) -> Option<Vec<Self>> {
                field
                    .0
                    .plain_typed(<$t as FromTyped<'de>>::TY, |v| <$t as FromTyped<'de>>::from_typed(v).ok())
            }
        }
    )*};
}

macro_rules! from_typed_int {
    ($($t:ty)*) => {$(
        impl<'de> FromTyped<'de> for $t {
            const TY: ScalarType = ScalarType::Int;

            #[inline(always)]
            fn from_typed(value: Typed<'de>) -> std::result::Result<Self, Typed<'de>> {
                match value {
                    Typed::Int(v) => <$t>::try_from(v).map_err(|_| Typed::Int(v)),
                    other => Err(other),
                }
            }

            #[inline(always)]
            fn from_index(index: usize) -> Option<Self> {
                <$t>::try_from(index).ok()
            }
        }
    )*};
}

from_typed_int! { i8 i16 i32 i64 u8 u16 u32 u64 usize isize }

macro_rules! from_typed_float {
    ($($t:ty)*) => {$(
        impl<'de> FromTyped<'de> for $t {
            const TY: ScalarType = ScalarType::Float;

            #[inline(always)]
            fn from_typed(value: Typed<'de>) -> std::result::Result<Self, Typed<'de>> {
                match value {
                    // serde's float visitors: `v as` the type
                    Typed::Float(v) => Ok(v as $t),
                    other => Err(other),
                }
            }
        }
    )*};
}

from_typed_float! { f32 f64 }

impl<'de> FromTyped<'de> for bool {
    const TY: ScalarType = ScalarType::Bool;

    #[inline(always)]
    fn from_typed(value: Typed<'de>) -> std::result::Result<Self, Typed<'de>> {
        match value {
            Typed::Atom(Atom::Bool(b)) => Ok(b),
            other => Err(other),
        }
    }
}

direct_scalar! { i8 i16 i32 i64 u8 u16 u32 u64 usize isize f32 f64 bool }

impl<'de> DirectPart<'de> for String {
    #[inline(always)]
    fn read_part(parts: &mut TupleParts<'_, 'de, '_>) -> Result<Self> {
        parts.with(|value| match value {
            Typed::Atom(Atom::Str(text)) => Ok(text.into_owned()),
            other => Err(other),
        })
    }
}

impl<'de> DirectValue<'de> for String {
    #[inline(always)]
    fn read_direct(field: DirectField<'_, '_, 'de, '_>) -> Result<Self> {
        let mut f = field.0;
        if matches!(f.rec.step(f.i).kind, StepKind::Str(_)) && !f.rec.absent(f.i) {
            return Ok(f.str_value()?.0.into_owned());
        }
        DirectField(f).serde()
    }
}

impl<'de> DirectElement<'de> for String {
    #[inline(always)]
    fn read_element(list: &mut ListElements<'_, '_, 'de, '_>, k: usize) -> Result<Self> {
        let l = &mut list.0;
        if l.item.ty == ScalarType::Str {
            return Ok(l.take_text(k).into_owned());
        }
        l.element_serde(k)
    }

    #[inline(always)]
    fn read_plain_list(field: &mut DirectField<'_, '_, 'de, '_>) -> Option<Vec<Self>> {
        field.0.text_list()
    }
}

impl<'de, T: DirectValue<'de>> DirectValue<'de> for Option<T> {
    #[inline(always)]
    fn read_direct(field: DirectField<'_, '_, 'de, '_>) -> Result<Self> {
        if field.0.rec.absent(field.0.i) {
            return field.serde();
        }
        T::read_direct(field).map(Some)
    }
}

impl<'de, T: DirectElement<'de>> DirectValue<'de> for Vec<T> {
    #[inline(always)]
    fn read_direct(mut field: DirectField<'_, '_, 'de, '_>) -> Result<Self> {
        let f = &field.0;
        if f.rec.absent(f.i) || !matches!(f.rec.step(f.i).kind, StepKind::List { .. }) {
            return field.serde();
        }
        if let Some(out) = T::read_plain_list(&mut field) {
            return Ok(out);
        }
        let mut list = ListElements(field.0.list_elements()?);
        let n = list.0.len();
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            out.push(T::read_element(&mut list, k)?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::{name_index, pack_name};

    /// `pack_name` (at compile time, in the derive's constants) and the
    /// reader's word of a text (`syntax::short_word`) are the same packing:
    /// equal words for equal texts of every length a word holds, and
    /// different words for a text and its prefix, its extension by a NUL,
    /// or one changed byte.
    #[test]
    fn a_name_and_a_text_pack_alike_and_apart() {
        let alphabet = "ab\0z~é";
        let mut texts = vec![String::new()];
        for len in 1..=15 {
            let text: String = alphabet.chars().cycle().skip(len).take(len).collect();
            if text.len() <= 15 {
                texts.push(text);
            }
        }
        // the full word: fifteen bytes, one text ending in a multibyte
        // character and one in a NUL
        texts.extend(["abcdefghijklmno", "abcdefghijklmé", "abcdefghijklmn\0"].map(String::from));
        assert!(texts.iter().filter(|t| t.len() == 15).count() >= 3);
        for text in &texts {
            let word = crate::syntax::short_word(text.as_bytes()).expect("fits");
            assert_eq!(word, pack_name(text), "{text:?}");
            let mut longer = text.clone();
            longer.push('\0');
            if longer.len() <= 15 {
                assert_ne!(pack_name(&longer), word, "{text:?} and a NUL");
            }
            if let Some(last) = text.chars().last() {
                let shorter = &text[..text.len() - last.len_utf8()];
                assert_ne!(pack_name(shorter), word, "{text:?} and its prefix");
                let changed = format!("{shorter}{}", if last == 'a' { 'b' } else { 'a' });
                if changed.len() <= 15 {
                    assert_ne!(pack_name(&changed), word, "{text:?} changed");
                }
            }
        }
        assert_eq!(crate::syntax::short_word(&[b'x'; 16]), None);
    }

    /// Each name is found at its own index, and only a name is found.
    #[test]
    fn a_name_is_found_at_its_index_and_nothing_else_is() {
        let names = [
            pack_name("en"),
            pack_name("es"),
            pack_name("fifteen_bytes_x"),
            pack_name("e"),
        ];
        for (k, text) in ["en", "es", "fifteen_bytes_x", "e"].into_iter().enumerate() {
            assert_eq!(name_index(&names, text), Some(k), "{text}");
        }
        for text in [
            "",
            "n",
            "en\0",
            "ne",
            "EN",
            "fifteen_bytes_",
            "fifteen_bytes_xy",
        ] {
            assert_eq!(name_index(&names, text), None, "{text:?}");
        }
        assert_eq!(name_index(&[], "en"), None);
    }
}
