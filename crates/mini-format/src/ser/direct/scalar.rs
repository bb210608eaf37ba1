//! One scalar value, checked and written once.

use super::*;

/// One scalar, written canonical and escaped into `out`; `Ok(false)` for
/// null (nothing written).
pub(super) struct ScalarSer<'a> {
    pub(super) scalar: &'a Scalar,
    pub(super) pos: Pos,
    pub(super) out: &'a mut String,
    /// Whether an empty string is refused (scalar fields, tuple components).
    pub(super) no_empty: bool,
    /// Whether the scalar's bounds apply (scalar fields and tuple
    /// components; list elements are not range-checked, as in the engine).
    pub(super) ranged: bool,
}

impl ScalarSer<'_> {
    /// The contract's list separator.
    pub(super) fn sep(&self) -> char {
        match self.pos {
            Pos::Field(sep) | Pos::Element(sep) => sep,
        }
    }

    pub(super) fn text(self, t: &str) -> R<bool> {
        if t.is_empty() && self.no_empty {
            return Err(GiveUp);
        }
        match self.pos {
            Pos::Field(sep) => escape_scalar_sep_into(self.out, t, sep),
            Pos::Element(sep) => escape_element_into(self.out, t, sep),
        }
        Ok(true)
    }

    /// Types the canonical text of a value as the engine does
    /// ([`check_atom`]: enumeration, date and number syntax, bounds).
    pub(super) fn check(&self, t: &str) -> R {
        if self.scalar.ty == ScalarType::Str {
            return Ok(());
        }
        check_atom(std::borrow::Cow::Borrowed(t), self.scalar, self.ranged)
            .map(drop)
            .map_err(|_| GiveUp)
    }

    pub(super) fn string(self, t: &str) -> R<bool> {
        match self.scalar.ty {
            ScalarType::Str | ScalarType::Enum | ScalarType::Date => {
                survives(t, self.sep()).map_err(|_| GiveUp)?;
                self.check(t)?;
                self.text(t)
            }
            ScalarType::Decimal => {
                survives(t, self.sep()).map_err(|_| GiveUp)?;
                if number::is_decimal(t) {
                    let canonical = number::canonical_decimal(t);
                    self.check(&canonical)?;
                    self.text(&canonical)
                } else {
                    self.check(t)?;
                    self.text(t)
                }
            }
            _ => Err(GiveUp),
        }
    }

    /// An integer: every numeric type takes its digits.
    pub(super) fn int(self, digits: std::fmt::Arguments<'_>) -> R<bool> {
        match self.scalar.ty {
            ScalarType::Int | ScalarType::Float | ScalarType::Decimal => {
                // digits never need escaping
                let start = self.out.len();
                self.out.write_fmt(digits).map_err(|_| GiveUp)?;
                self.check(&self.out[start..])?;
                Ok(true)
            }
            _ => Err(GiveUp),
        }
    }

    /// A binary float: a float field only, in its shortest round-trip
    /// digits as `dumps` prints them (plain, with an exponent only past 30
    /// padding zeros).
    pub(super) fn float<F>(self, v: F, x: f64) -> R<bool>
    where
        F: std::fmt::Display + std::fmt::LowerExp + Copy,
    {
        if self.scalar.ty != ScalarType::Float || !x.is_finite() {
            return Err(GiveUp);
        }
        let start = self.out.len();
        if x == 0.0 {
            self.out.push('0');
        } else if (1e-15..1e15).contains(&x.abs()) {
            if std::mem::size_of::<F>() == 8 {
                shortest_plain(self.out, x)
            } else {
                write!(self.out, "{v}")
            }
            .map_err(|_| GiveUp)?;
        } else {
            let d = Dec::parse(&format!("{v:e}")).ok_or(GiveUp)?;
            self.out.push_str(&d.format(false));
        }
        self.check(&self.out[start..])?;
        Ok(true)
    }
}

/// Writes `v` (finite, not zero, `1e-15 <= |v| < 1e15`) in its shortest
/// round-trip digits without an exponent, as `Display` writes it.
///
/// `zmij` (serde_json's float printer, far cheaper than `Display`) writes
/// `1e-5 <= |v| < 1e16` plainly, with a `.0` that `Display` does not
/// write. When its digits are at most 15 significant ones they are the
/// only shortest digits of `v` (any decimal of 15 significant digits
/// survives the trip through an `f64`), so `Display` writes the same; with
/// 16 or 17 the two may pick different last digits, and below `1e-5` zmij
/// writes an exponent: then `Display` writes the value. Checked against
/// `Display` by the test `shortest_plain_is_display`.
pub(super) fn shortest_plain(out: &mut String, v: f64) -> std::fmt::Result {
    let mut buf = zmij::Buffer::new();
    let t = buf.format_finite(v);
    let t = t.strip_suffix(".0").unwrap_or(t);
    let significant = t
        .bytes()
        .filter(u8::is_ascii_digit)
        .skip_while(|&b| b == b'0')
        .count();
    if significant > 15 || t.contains(['e', 'E']) {
        return write!(out, "{v}");
    }
    out.push_str(t);
    Ok(())
}

impl<'a> ser::Serializer for ScalarSer<'a> {
    type Ok = bool;
    type Error = GiveUp;
    type SerializeSeq = Impossible<bool, GiveUp>;
    type SerializeTuple = Impossible<bool, GiveUp>;
    type SerializeTupleStruct = Impossible<bool, GiveUp>;
    type SerializeTupleVariant = Impossible<bool, GiveUp>;
    type SerializeMap = Impossible<bool, GiveUp>;
    type SerializeStruct = Impossible<bool, GiveUp>;
    type SerializeStructVariant = Impossible<bool, GiveUp>;

    fn serialize_bool(self, v: bool) -> R<bool> {
        if self.scalar.ty != ScalarType::Bool {
            return Err(GiveUp);
        }
        self.out.push_str(if v { "true" } else { "false" });
        Ok(true)
    }
    fn serialize_i8(self, v: i8) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i16(self, v: i16) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i32(self, v: i32) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i64(self, v: i64) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_i128(self, v: i128) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u8(self, v: u8) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u16(self, v: u16) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u32(self, v: u32) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u64(self, v: u64) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_u128(self, v: u128) -> R<bool> {
        self.int(format_args!("{v}"))
    }
    fn serialize_f32(self, v: f32) -> R<bool> {
        self.float(v, f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> R<bool> {
        self.float(v, v)
    }
    fn serialize_char(self, v: char) -> R<bool> {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> R<bool> {
        self.string(v)
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
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> R<bool> {
        self.string(variant)
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
        // a struct is no scalar (a `serde_json::Number` under
        // `arbitrary_precision` arrives as one: `dumps` writes it, ADR 0019)
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
