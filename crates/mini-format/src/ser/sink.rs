//! The serde plumbing every position shares: one `Serializer`, [`Ser`],
//! over a [`Sink`] that receives what serde hands it as a [`Leaf`], a
//! sequence or a map, as `serde_json::to_value` would see it (a unit
//! variant is a string, a newtype variant an object of one key, bytes an
//! array of numbers, a non-finite float null).

use std::fmt;

use serde::ser::{self, Serialize};

/// Why serialization stops before the end of the value. Refusals and
/// violations do not stop it (they are collected, as the parser collects
/// its errors); these do.
#[derive(Debug)]
pub(crate) enum Abort {
    /// A `Serialize` impl's own error (serde's `custom`), or a sequence
    /// whose announced length was not its length.
    Custom(String),
    /// The writer failed.
    Io(std::io::Error),
    /// The document is not an object: E06 at line 0, its only error.
    NotObject(&'static str),
    /// The probe pass read the records' length hint.
    Len(Option<usize>),
}

impl fmt::Display for Abort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Abort::Custom(m) => f.write_str(m),
            Abort::Io(e) => write!(f, "{e}"),
            Abort::NotObject(t) => write!(f, "a canonical object is a JSON object, got {t}"),
            Abort::Len(_) => f.write_str("length probe"),
        }
    }
}

impl std::error::Error for Abort {}

impl ser::Error for Abort {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Abort::Custom(msg.to_string())
    }
}

pub(super) type R<T = ()> = Result<T, Abort>;

/// One value that is not a sequence or a map, as serde gave it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Leaf<'a> {
    /// `None`, `()`, a unit struct, a non-finite float.
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    I128(i128),
    U128(u128),
    F64(f64),
    F32(f32),
    /// A string or a char.
    Str(&'a str),
    /// A unit variant's name.
    Name(&'static str),
    /// A `serde_json::Number` under `arbitrary_precision`: its digits.
    Num(&'a str),
    /// A sequence or map met where a leaf is expected: its JSON type.
    Other(&'static str),
}

impl Leaf<'_> {
    /// The JSON type of the value, for messages (`a number`, `null`).
    pub(super) fn json_type(&self) -> &'static str {
        match self {
            Leaf::Null => "null",
            Leaf::Bool(_) => "a boolean",
            Leaf::I64(_)
            | Leaf::U64(_)
            | Leaf::I128(_)
            | Leaf::U128(_)
            | Leaf::F64(_)
            | Leaf::F32(_)
            | Leaf::Num(_) => "a number",
            Leaf::Str(_) | Leaf::Name(_) => "a string",
            Leaf::Other(t) => t,
        }
    }

    /// Whether the value is the integer 1 (`v` is omitted when it is).
    pub(super) fn is_one(&self) -> bool {
        match *self {
            Leaf::I64(v) => v == 1,
            Leaf::U64(v) => v == 1,
            Leaf::I128(v) => v == 1,
            Leaf::U128(v) => v == 1,
            Leaf::Num(t) => t.parse::<u64>() == Ok(1),
            _ => false,
        }
    }
}

/// A position of the canonical object: what it does with a leaf, a
/// sequence and a map.
pub(super) trait Sink: Sized {
    /// What a sequence's elements go to.
    type Seq: ser::SerializeSeq<Ok = (), Error = Abort>;
    /// What a map's or struct's entries go to.
    type Map: ser::SerializeMap<Ok = (), Error = Abort>
        + ser::SerializeStruct<Ok = (), Error = Abort>;

    fn leaf(self, leaf: Leaf<'_>) -> R;
    fn seq(self, len: Option<usize>) -> R<Self::Seq>;
    fn map(self, len: Option<usize>) -> R<Self::Map>;

    /// A tuple or struct variant, `{variant: [..]}` / `{variant: {..}}` in
    /// JSON, of JSON type `json_type` inside: by default only its type
    /// (an object) matters.
    fn variant(self, variant: &'static str, json_type: &'static str) -> R {
        let _ = (variant, json_type);
        self.leaf(Leaf::Other("an object"))
    }
}

/// The `Serializer` methods of a value that is not a sequence or a map,
/// each handing `self.leaf(..)` the [`Leaf`] serde gave, as
/// `serde_json::to_value` would see it (a non-finite float is null, a char
/// a string, a unit variant its name, `None` and `()` null). Shared by the
/// general path's [`Ser`] and the straight-line writer's positions
/// (`fast/`), so that both see every value alike. Attributes given
/// (`leaf_methods!(#[inline(always)])`) are put on every method; with
/// `texts: [..] others: [..]`, the first go on `serialize_str` and
/// `serialize_char`, the second on the rest.
macro_rules! leaf_methods {
    ($(#[$attr:meta])*) => {
        leaf_methods!(texts: [$(#[$attr])*] others: [$(#[$attr])*]);
    };
    (texts: [$(#[$sattr:meta])*] others: [$(#[$attr:meta])*]) => {
        $(#[$attr])*
        fn serialize_bool(self, v: bool) -> Result<(), Self::Error> {
            self.leaf(Leaf::Bool(v))
        }
        $(#[$attr])*
        fn serialize_i8(self, v: i8) -> Result<(), Self::Error> {
            self.leaf(Leaf::I64(v.into()))
        }
        $(#[$attr])*
        fn serialize_i16(self, v: i16) -> Result<(), Self::Error> {
            self.leaf(Leaf::I64(v.into()))
        }
        $(#[$attr])*
        fn serialize_i32(self, v: i32) -> Result<(), Self::Error> {
            self.leaf(Leaf::I64(v.into()))
        }
        $(#[$attr])*
        fn serialize_i64(self, v: i64) -> Result<(), Self::Error> {
            self.leaf(Leaf::I64(v))
        }
        $(#[$attr])*
        fn serialize_i128(self, v: i128) -> Result<(), Self::Error> {
            self.leaf(Leaf::I128(v))
        }
        $(#[$attr])*
        fn serialize_u8(self, v: u8) -> Result<(), Self::Error> {
            self.leaf(Leaf::U64(v.into()))
        }
        $(#[$attr])*
        fn serialize_u16(self, v: u16) -> Result<(), Self::Error> {
            self.leaf(Leaf::U64(v.into()))
        }
        $(#[$attr])*
        fn serialize_u32(self, v: u32) -> Result<(), Self::Error> {
            self.leaf(Leaf::U64(v.into()))
        }
        $(#[$attr])*
        fn serialize_u64(self, v: u64) -> Result<(), Self::Error> {
            self.leaf(Leaf::U64(v))
        }
        $(#[$attr])*
        fn serialize_u128(self, v: u128) -> Result<(), Self::Error> {
            self.leaf(Leaf::U128(v))
        }
        $(#[$attr])*
        fn serialize_f32(self, v: f32) -> Result<(), Self::Error> {
            // serde_json holds no NaN or infinity: `to_value` makes them null
            self.leaf(if v.is_finite() {
                Leaf::F32(v)
            } else {
                Leaf::Null
            })
        }
        $(#[$attr])*
        fn serialize_f64(self, v: f64) -> Result<(), Self::Error> {
            self.leaf(if v.is_finite() {
                Leaf::F64(v)
            } else {
                Leaf::Null
            })
        }
        $(#[$sattr])*
        fn serialize_char(self, v: char) -> Result<(), Self::Error> {
            self.leaf(Leaf::Str(v.encode_utf8(&mut [0; 4])))
        }
        $(#[$sattr])*
        fn serialize_str(self, v: &str) -> Result<(), Self::Error> {
            self.leaf(Leaf::Str(v))
        }
        $(#[$attr])*
        fn serialize_none(self) -> Result<(), Self::Error> {
            self.leaf(Leaf::Null)
        }
        $(#[$attr])*
        fn serialize_unit(self) -> Result<(), Self::Error> {
            self.leaf(Leaf::Null)
        }
        $(#[$attr])*
        fn serialize_unit_struct(self, _: &'static str) -> Result<(), Self::Error> {
            self.leaf(Leaf::Null)
        }
        $(#[$attr])*
        fn serialize_unit_variant(
            self,
            _: &'static str,
            _: u32,
            variant: &'static str,
        ) -> Result<(), Self::Error> {
            self.leaf(Leaf::Name(variant))
        }
    };
}
pub(super) use leaf_methods;

/// The one `Serializer`, over a [`Sink`].
pub(super) struct Ser<S>(pub(super) S);

impl<S: Sink> Ser<S> {
    fn leaf(self, leaf: Leaf<'_>) -> R {
        self.0.leaf(leaf)
    }
}

/// serde_json's struct name for a `Number` under `arbitrary_precision`.
const NUMBER_TOKEN: &str = "$serde_json::private::Number";

impl<S: Sink> ser::Serializer for Ser<S> {
    type Ok = ();
    type Error = Abort;
    type SerializeSeq = S::Seq;
    type SerializeTuple = Tup<S::Seq>;
    type SerializeTupleStruct = Tup<S::Seq>;
    type SerializeTupleVariant = Skip;
    type SerializeMap = S::Map;
    type SerializeStruct = Struct<S>;
    type SerializeStructVariant = Skip;

    leaf_methods!();

    fn serialize_bytes(self, v: &[u8]) -> R {
        let mut seq = self.0.seq(Some(v.len()))?;
        for b in v {
            ser::SerializeSeq::serialize_element(&mut seq, b)?;
        }
        ser::SerializeSeq::end(seq)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> R {
        let mut map = self.0.map(Some(1))?;
        ser::SerializeMap::serialize_entry(&mut map, variant, v)?;
        ser::SerializeMap::end(map)
    }
    fn serialize_seq(self, len: Option<usize>) -> R<S::Seq> {
        self.0.seq(len)
    }
    fn serialize_tuple(self, len: usize) -> R<Tup<S::Seq>> {
        self.0.seq(Some(len)).map(Tup)
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> R<Tup<S::Seq>> {
        self.0.seq(Some(len)).map(Tup)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> R<Skip> {
        self.0.variant(variant, "an array")?;
        Ok(Skip)
    }
    fn serialize_map(self, len: Option<usize>) -> R<S::Map> {
        self.0.map(len)
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> R<Struct<S>> {
        if name == NUMBER_TOKEN {
            return Ok(Struct::Number(Some(self.0)));
        }
        self.0.map(Some(len)).map(Struct::Map)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> R<Skip> {
        self.0.variant(variant, "an object")?;
        Ok(Skip)
    }
}

/// A struct: entries, or a `serde_json::Number` under
/// `arbitrary_precision` (one field holding its digits).
pub(super) enum Struct<S: Sink> {
    Map(S::Map),
    Number(Option<S>),
}

impl<S: Sink> ser::SerializeStruct for Struct<S> {
    type Ok = ();
    type Error = Abort;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> R {
        match self {
            Struct::Map(m) => ser::SerializeStruct::serialize_field(m, key, v),
            Struct::Number(s) => match s.take() {
                Some(s) => v.serialize(Ser(Digits(s))),
                None => Ok(()),
            },
        }
    }
    fn end(self) -> R {
        match self {
            Struct::Map(m) => ser::SerializeStruct::end(m),
            Struct::Number(_) => Ok(()),
        }
    }
}

/// The digits of a `serde_json::Number` under `arbitrary_precision`.
struct Digits<S>(S);

impl<S: Sink> Sink for Digits<S> {
    type Seq = Skip;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        match leaf {
            Leaf::Str(t) => self.0.leaf(Leaf::Num(t)),
            other => self.0.leaf(other),
        }
    }
    fn seq(self, _: Option<usize>) -> R<Skip> {
        self.0.leaf(Leaf::Other("an array"))?;
        Ok(Skip)
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        self.0.leaf(Leaf::Other("an object"))?;
        Ok(Skip)
    }
}

/// A sequence's elements as a tuple's.
pub(super) struct Tup<T>(T);

impl<T: ser::SerializeSeq<Ok = (), Error = Abort>> ser::SerializeTuple for Tup<T> {
    type Ok = ();
    type Error = Abort;
    fn serialize_element<V: Serialize + ?Sized>(&mut self, v: &V) -> R {
        self.0.serialize_element(v)
    }
    fn end(self) -> R {
        self.0.end()
    }
}

impl<T: ser::SerializeSeq<Ok = (), Error = Abort>> ser::SerializeTupleStruct for Tup<T> {
    type Ok = ();
    type Error = Abort;
    fn serialize_field<V: Serialize + ?Sized>(&mut self, v: &V) -> R {
        self.0.serialize_element(v)
    }
    fn end(self) -> R {
        self.0.end()
    }
}

/// Ignores what it is given (a value already refused, or not looked at).
pub(super) struct Skip;

macro_rules! skip {
    ($($tr:ident :: $m:ident ($($arg:ty),*)),*) => {$(
        impl ser::$tr for Skip {
            type Ok = ();
            type Error = Abort;
            fn $m<T: Serialize + ?Sized>(&mut self, $(_: $arg,)* _: &T) -> R {
                Ok(())
            }
            fn end(self) -> R {
                Ok(())
            }
        }
    )*};
}

skip!(
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(&'static str),
    SerializeStructVariant::serialize_field(&'static str)
);

impl ser::SerializeMap for Skip {
    type Ok = ();
    type Error = Abort;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, _: &T) -> R {
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> R {
        Ok(())
    }
    fn end(self) -> R {
        Ok(())
    }
}

/// A compound that is written ([`Or::Go`]) or ignored ([`Or::Skip`]).
pub(super) enum Or<T> {
    Go(T),
    Skip,
}

impl<T: ser::SerializeSeq<Ok = (), Error = Abort>> ser::SerializeSeq for Or<T> {
    type Ok = ();
    type Error = Abort;
    fn serialize_element<V: Serialize + ?Sized>(&mut self, v: &V) -> R {
        match self {
            Or::Go(t) => t.serialize_element(v),
            Or::Skip => Ok(()),
        }
    }
    fn end(self) -> R {
        match self {
            Or::Go(t) => t.end(),
            Or::Skip => Ok(()),
        }
    }
}

impl<K: Keyed> ser::SerializeMap for Or<Keys<K>> {
    type Ok = ();
    type Error = Abort;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> R {
        match self {
            Or::Go(t) => t.serialize_key(key),
            Or::Skip => Ok(()),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        match self {
            Or::Go(t) => t.serialize_value(v),
            Or::Skip => Ok(()),
        }
    }
    fn serialize_entry<A: Serialize + ?Sized, B: Serialize + ?Sized>(
        &mut self,
        key: &A,
        v: &B,
    ) -> R {
        match self {
            Or::Go(t) => t.serialize_entry(key, v),
            Or::Skip => Ok(()),
        }
    }
    fn end(self) -> R {
        match self {
            Or::Go(t) => ser::SerializeMap::end(t),
            Or::Skip => Ok(()),
        }
    }
}

impl<K: Keyed> ser::SerializeStruct for Or<Keys<K>> {
    type Ok = ();
    type Error = Abort;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> R {
        match self {
            Or::Go(t) => t.k.field(key, v),
            Or::Skip => Ok(()),
        }
    }
    fn end(self) -> R {
        match self {
            Or::Go(t) => t.k.finish(),
            Or::Skip => Ok(()),
        }
    }
}

/// A map or struct of named entries.
pub(super) trait Keyed {
    fn entry<V: Serialize + ?Sized>(&mut self, key: &str, v: &V) -> R;
    /// A struct's field: its name is `'static` (its text never changes).
    fn field<V: Serialize + ?Sized>(&mut self, key: &'static str, v: &V) -> R {
        self.entry(key, v)
    }
    fn finish(self) -> R;
}

/// The entries of a [`Keyed`]: a struct's fields, or a map's entries
/// (whose keys are strings, or numbers and chars spelled as strings, as
/// serde_json spells them).
pub(super) struct Keys<K> {
    pub(super) k: K,
    pending: Option<String>,
}

impl<K> Keys<K> {
    pub(super) fn new(k: K) -> Self {
        Keys { k, pending: None }
    }
}

impl<K: Keyed> ser::SerializeMap for Keys<K> {
    type Ok = ();
    type Error = Abort;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> R {
        let mut owned = None;
        key.serialize(KeyText(&mut |k: &str| {
            owned = Some(k.to_string());
            Ok(())
        }))?;
        self.pending = owned;
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        let key = self.pending.take().unwrap_or_default();
        self.k.entry(&key, v)
    }
    fn serialize_entry<A: Serialize + ?Sized, B: Serialize + ?Sized>(
        &mut self,
        key: &A,
        v: &B,
    ) -> R {
        let k = &mut self.k;
        key.serialize(KeyText(&mut |key: &str| k.entry(key, v)))
    }
    fn end(self) -> R {
        self.k.finish()
    }
}

impl<K: Keyed> ser::SerializeStruct for Keys<K> {
    type Ok = ();
    type Error = Abort;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> R {
        self.k.field(key, v)
    }
    fn end(self) -> R {
        self.k.finish()
    }
}

/// A map key, handed to a callback as text.
struct KeyText<'f>(&'f mut dyn FnMut(&str) -> R);

fn key_error() -> Abort {
    Abort::Custom("key must be a string".to_string())
}

macro_rules! key_display {
    ($($m:ident $t:ty),*) => {$(
        fn $m(self, v: $t) -> R {
            (self.0)(&v.to_string())
        }
    )*};
}

impl ser::Serializer for KeyText<'_> {
    type Ok = ();
    type Error = Abort;
    type SerializeSeq = Skip;
    type SerializeTuple = Skip;
    type SerializeTupleStruct = Skip;
    type SerializeTupleVariant = Skip;
    type SerializeMap = Skip;
    type SerializeStruct = Skip;
    type SerializeStructVariant = Skip;

    key_display!(serialize_i8 i8, serialize_i16 i16, serialize_i32 i32, serialize_i64 i64,
        serialize_i128 i128, serialize_u8 u8, serialize_u16 u16, serialize_u32 u32,
        serialize_u64 u64, serialize_u128 u128, serialize_bool bool, serialize_char char);

    fn serialize_str(self, v: &str) -> R {
        (self.0)(v)
    }
    fn serialize_f32(self, v: f32) -> R {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> R {
        match serde_json::Number::from_f64(v) {
            Some(n) => (self.0)(&n.to_string()),
            None => Err(key_error()),
        }
    }
    fn serialize_bytes(self, _: &[u8]) -> R {
        Err(key_error())
    }
    fn serialize_none(self) -> R {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> R {
        Err(key_error())
    }
    fn serialize_unit(self) -> R {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _: &'static str) -> R {
        Err(key_error())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R {
        (self.0)(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> R {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> R {
        Err(key_error())
    }
    fn serialize_seq(self, _: Option<usize>) -> R<Skip> {
        Err(key_error())
    }
    fn serialize_tuple(self, _: usize) -> R<Skip> {
        Err(key_error())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> R<Skip> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> R<Skip> {
        Err(key_error())
    }
    fn serialize_map(self, _: Option<usize>) -> R<Skip> {
        Err(key_error())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> R<Skip> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> R<Skip> {
        Err(key_error())
    }
}
