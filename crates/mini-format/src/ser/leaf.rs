//! One scalar: its canonical text, written escaped where it goes, and what
//! the engine says of the text the parser would read back.
//!
//! What the Rust type guarantees is trusted (ADR 0023): the digits of an
//! integer and of a finite float are a valid int or float, so they are
//! typed by [`check_atom`] only when a bound applies (or when their key is
//! `unique`); a `str` value needs only its outer whitespace checked and its
//! escaping. Everything else (enumerations, dates, decimals, text in a
//! number field) goes through [`check_atom`], the engine's own typing.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::check::{check_atom, Atom, Violation};
use crate::contract::{Scalar, ScalarType};
use crate::error::Code;
use crate::number::{self, Dec};
use crate::syntax::{escape_element_into, escape_scalar_sep_into, is_space};

use super::short_decimal::put_short_decimal;
use super::sink::Leaf;

/// A refusal: what the serializer cannot write, with the code the parser
/// gives the same violation.
pub(super) type Fail = (Code, String);

pub(super) fn e06(msg: impl Into<String>) -> Fail {
    (Code::E06, msg.into())
}

/// Where a scalar is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Pos {
    /// A scalar field or header value: escaped as a scalar.
    Field,
    /// A list element or tuple component: escaped as an element.
    Element,
}

/// A scalar written: whether its text is empty, and the engine's verdict
/// on the text the parser reads back (`None`: valid).
#[derive(Debug)]
pub(super) struct Wrote {
    pub(super) empty: bool,
    pub(super) found: Option<Violation>,
}

const VALID: Wrote = Wrote {
    empty: false,
    found: None,
};

/// Checks that a string survives parsing unchanged under list separator
/// `sep`: parsing trims unescaped outer whitespace (a line break is written
/// `\n`, so it stays; a whitespace separator, a TAB, is written `\<sep>`
/// wherever the value sits, §3.3, so it stays too).
pub(super) fn survives(s: &str, sep: char) -> Result<(), Fail> {
    // fast path: ASCII edges that are not whitespace
    let plain = |b: u8| b.is_ascii_graphic();
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (None, _) => return Ok(()),
        (Some(&f), Some(&l)) if plain(f) && plain(l) => return Ok(()),
        _ => {}
    }
    if s.starts_with(|c| trimmed(c, sep)) || s.ends_with(|c| trimmed(c, sep)) {
        return Err(e06(format!(
            "string {s:?} has outer whitespace, which parsing would trim"
        )));
    }
    Ok(())
}

/// Whether parsing trims `c` at the edge of a value under separator `sep`.
fn trimmed(c: char, sep: char) -> bool {
    is_space(c) && c != '\n' && c != '\r' && c != sep
}

/// Why a string with outer whitespace that parsing would trim is refused:
/// with the code the parser gives the text it would read (the value
/// trimmed) when it refuses that text (E10 outside an enumeration, E13 out
/// of range, E06 not a date or decimal), else E06, since the value would
/// change silently (ADR 0020).
fn refused_outer(t: &str, s: &Scalar, sep: char, ranged: bool, fail: Fail) -> Fail {
    let read = t.trim_matches(|c| trimmed(c, sep));
    if read.is_empty() {
        return fail;
    }
    match check_atom(Cow::Borrowed(read), s, ranged) {
        Err(v) => v,
        Ok(_) => fail,
    }
}

/// The text the parser reads back for `t`: a line break (CRLF or a lone
/// CR) is written `\n` and read as LF.
fn read_back(t: &str) -> Cow<'_, str> {
    if memchr::memchr(b'\r', t.as_bytes()).is_none() {
        return Cow::Borrowed(t);
    }
    Cow::Owned(t.replace("\r\n", "\n").replace('\r', "\n"))
}

#[inline]
pub(super) fn put_text(out: &mut String, t: &str, pos: Pos, sep: char) {
    match pos {
        Pos::Field => escape_scalar_sep_into(out, t, sep),
        Pos::Element => escape_element_into(out, t, sep),
    }
}

/// The values a rule accepted, kept as the interval from the least to the
/// greatest. Every rule it serves accepts an interval (a bound's values, an
/// arity's element counts, while the header does not change), so a value
/// between two accepted ones is accepted without asking the rule again.
/// `T` is never NaN (only finite floats are added).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Interval<T>(Option<(T, T)>);

impl<T> Default for Interval<T> {
    fn default() -> Self {
        Interval(None)
    }
}

impl<T: PartialOrd + Copy> Interval<T> {
    /// Nothing accepted yet.
    pub(super) const NONE: Interval<T> = Interval(None);

    /// Whether `v` lies between two accepted values (or is one).
    #[inline(always)]
    pub(super) fn holds(self, v: T) -> bool {
        self.0.is_some_and(|(lo, hi)| lo <= v && v <= hi)
    }

    /// Notes that the rule accepted `v`.
    #[inline]
    pub(super) fn add(&mut self, v: T) {
        self.0 = Some(match self.0 {
            None => (v, v),
            Some((lo, hi)) => (if v < lo { v } else { lo }, if v > hi { v } else { hi }),
        });
    }
}

/// What a position accepted before, so that the engine's verdict is not
/// asked again (ADR 0023). The engine types the digits of an integer or of
/// a binary float by where they fall against the bounds, and the values a
/// bound accepts are an interval: a value between two accepted ones is
/// accepted. An enumeration name given as a `&'static str` (a unit variant)
/// accepted once is accepted again (its text cannot change).
#[derive(Debug, Default, Clone)]
pub(super) struct Memo {
    ints: Interval<i128>,
    floats: Interval<f64>,
    /// Accepted names (at most [`NAMES`]): address, length, and whether
    /// they are written as they are (nothing to escape where they go).
    names: Vec<(usize, usize, bool)>,
    next_name: usize,
}

/// How many enumeration names a [`Memo`] keeps.
const NAMES: usize = 8;

impl Memo {
    fn has_int(&self, v: i128) -> bool {
        self.ints.holds(v)
    }
    fn add_int(&mut self, v: i128) {
        self.ints.add(v);
    }
    fn has_float(&self, x: f64) -> bool {
        self.floats.holds(x)
    }
    fn add_float(&mut self, x: f64) {
        self.floats.add(x);
    }
    /// Whether `t` was accepted: `Some(plain)`.
    fn name(&self, t: &'static str) -> Option<bool> {
        let k = (t.as_ptr() as usize, t.len());
        self.names.iter().find(|n| (n.0, n.1) == k).map(|n| n.2)
    }
    fn add_name(&mut self, t: &'static str, plain: bool) {
        let n = (t.as_ptr() as usize, t.len(), plain);
        if self.names.len() < NAMES {
            self.names.push(n);
        } else {
            self.names[self.next_name] = n;
            self.next_name = (self.next_name + 1) % NAMES;
        }
    }
}

/// Where and as what a scalar is written.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub(super) s: &'a Scalar,
    pub(super) sep: char,
    pub(super) pos: Pos,
    /// Whether the bounds apply (not to list elements, as in the engine).
    pub(super) ranged: bool,
}

impl At<'_> {
    /// Whether the scalar's bounds apply and it has one.
    fn bounded(&self) -> bool {
        self.ranged && (self.s.min.is_some() || self.s.max.is_some())
    }
}

fn int_value(leaf: &Leaf<'_>) -> i128 {
    match *leaf {
        Leaf::I64(v) => v.into(),
        Leaf::U64(v) => v.into(),
        _ => 0,
    }
}

/// Writes `leaf` when it needs no check the Rust type does not already
/// guarantee and no unique key: text with printable edges in a `str`
/// position, a known enumeration name, an integer or a binary float in an
/// unbounded position (or one its memo covers), a boolean. False (nothing
/// written) for anything else, which [`write_scalar`] writes.
#[inline(always)]
pub(super) fn write_trusted(out: &mut String, leaf: &Leaf<'_>, at: &At<'_>, memo: &Memo) -> bool {
    // a number escaped in a list of separator `-`, `.` or `+` is not
    // written here
    let plain_numbers = at.pos == Pos::Field || !matches!(at.sep, '-' | '.' | '+');
    match (at.s.ty, *leaf) {
        (ScalarType::Str, Leaf::Str(t) | Leaf::Name(t)) => {
            let b = t.as_bytes();
            match (b.first(), b.last()) {
                (Some(f), Some(l)) if f.is_ascii_graphic() && l.is_ascii_graphic() => {
                    put_text(out, t, at.pos, at.sep);
                    true
                }
                _ => false,
            }
        }
        (ScalarType::Enum, Leaf::Name(t)) => match memo.name(t) {
            Some(true) => {
                out.push_str(t);
                true
            }
            Some(false) => {
                put_text(out, t, at.pos, at.sep);
                true
            }
            None => false,
        },
        (ScalarType::Int, Leaf::I64(_) | Leaf::U64(_)) if plain_numbers => {
            if at.bounded() && !memo.has_int(int_value(leaf)) {
                return false;
            }
            put_int(out, leaf);
            true
        }
        (ScalarType::Float, Leaf::F64(x)) if plain_numbers => {
            if at.bounded() && !memo.has_float(x) {
                return false;
            }
            put_f64(out, x);
            true
        }
        (ScalarType::Bool, Leaf::Bool(b)) => {
            out.push_str(if b { "true" } else { "false" });
            true
        }
        _ => false,
    }
}

/// Writes `leaf` as scalar `at.s` into `out`: its canonical text, escaped
/// for where it goes. `key`: where the value's `unique` key goes, if
/// wanted (only when it is valid). A refusal writes nothing.
pub(super) fn write_scalar(
    out: &mut String,
    leaf: &Leaf<'_>,
    at: &At<'_>,
    key: Option<&mut String>,
    memo: &mut Memo,
) -> Result<Wrote, Fail> {
    if key.is_none() && write_trusted(out, leaf, at, memo) {
        return Ok(VALID);
    }
    write_any(out, leaf, at, key, memo)
}

fn write_any(
    out: &mut String,
    leaf: &Leaf<'_>,
    at: &At<'_>,
    key: Option<&mut String>,
    memo: &mut Memo,
) -> Result<Wrote, Fail> {
    let (s, sep, pos, ranged) = (at.s, at.sep, at.pos, at.ranged);
    let start = out.len();
    match s.ty {
        ScalarType::Str | ScalarType::Enum | ScalarType::Date => match *leaf {
            Leaf::Name(t) if s.ty != ScalarType::Date && memo.name(t).is_some() => {
                put_text(out, t, pos, sep);
                if let Some(k) = key {
                    Atom::Str(Cow::Borrowed(t)).unique_key(k);
                }
                Ok(VALID)
            }
            Leaf::Str(t) | Leaf::Name(t) => {
                survives(t, sep).map_err(|f| refused_outer(t, s, sep, ranged, f))?;
                put_text(out, t, pos, sep);
                let w = judge_text(t, s, ranged, key);
                if let (Leaf::Name(t), None, false) = (leaf, &w.found, w.empty) {
                    memo.add_name(t, out[start..] == **t);
                }
                Ok(w)
            }
            _ => Err(e06(format!(
                "expected a string for {}, got {}",
                s.ty.name(),
                leaf.json_type()
            ))),
        },
        ScalarType::Decimal => match *leaf {
            Leaf::Str(t) | Leaf::Name(t) => {
                survives(t, sep).map_err(|f| refused_outer(t, s, sep, ranged, f))?;
                if number::is_decimal(t) {
                    let c = number::canonical_decimal(t);
                    put_text(out, &c, pos, sep);
                    Ok(judge_text(&c, s, ranged, key))
                } else {
                    put_text(out, t, pos, sep);
                    Ok(judge_text(t, s, ranged, key))
                }
            }
            Leaf::I64(_) | Leaf::U64(_) | Leaf::I128(_) | Leaf::U128(_) => {
                put_int(out, leaf);
                Ok(judge_number(out, start, at, at.bounded(), key, false))
            }
            Leaf::F64(_) | Leaf::F32(_) | Leaf::Num(_) => {
                let n = number_text(leaf);
                match Dec::parse(&n).and_then(|d| d.integer_text()) {
                    Some(t) => {
                        out.push_str(&t);
                        Ok(judge_number(out, start, at, true, key, false))
                    }
                    None => Err(e06(format!(
                        "decimal values travel as strings; got the binary number {n}"
                    ))),
                }
            }
            _ => Err(e06(format!(
                "expected a decimal string, got {}",
                leaf.json_type()
            ))),
        },
        ScalarType::Int => match *leaf {
            Leaf::I64(_) | Leaf::U64(_) => {
                put_int(out, leaf);
                let v = int_value(leaf);
                let check = at.bounded() && !memo.has_int(v);
                let w = judge_number(out, start, at, check, key, true);
                if check && w.found.is_none() {
                    memo.add_int(v);
                }
                Ok(w)
            }
            Leaf::I128(_) | Leaf::U128(_) => {
                // beyond 64 bits the build may not hold it: the engine says
                put_int(out, leaf);
                Ok(judge_number(out, start, at, true, key, false))
            }
            Leaf::F64(_) | Leaf::F32(_) | Leaf::Num(_) => {
                let n = number_text(leaf);
                match Dec::parse(&n).and_then(|d| d.integer_text()) {
                    Some(t) => {
                        out.push_str(&t);
                        Ok(judge_number(out, start, at, true, key, false))
                    }
                    None => Err(e06(format!(
                        "expected int, got {n} (not integral, or more than {} digits)",
                        number::MAX_WRITTEN_DIGITS
                    ))),
                }
            }
            _ => Err(e06(format!("expected int, got {}", leaf.json_type()))),
        },
        ScalarType::Float => match *leaf {
            Leaf::F64(x) => {
                put_f64(out, x);
                let check = at.bounded() && !memo.has_float(x);
                let w = judge_number(out, start, at, check, key, true);
                if check && w.found.is_none() {
                    memo.add_float(x);
                }
                Ok(w)
            }
            Leaf::F32(v) => {
                put_f32(out, v);
                Ok(judge_number(out, start, at, at.bounded(), key, false))
            }
            Leaf::I64(_) | Leaf::U64(_) => {
                put_int(out, leaf);
                Ok(judge_number(out, start, at, at.bounded(), key, false))
            }
            Leaf::I128(_) | Leaf::U128(_) | Leaf::Num(_) => {
                let n = number_text(leaf);
                match Dec::parse(&n) {
                    Some(d) => {
                        out.push_str(&d.format(false));
                        Ok(judge_number(out, start, at, true, key, false))
                    }
                    None => Err(e06(format!("expected a number, got {n}"))),
                }
            }
            _ => Err(e06(format!("expected a number, got {}", leaf.json_type()))),
        },
        ScalarType::Bool => match *leaf {
            Leaf::Bool(b) => {
                out.push_str(if b { "true" } else { "false" });
                if let Some(k) = key {
                    Atom::Bool(b).unique_key(k);
                }
                Ok(VALID)
            }
            _ => Err(e06(format!(
                "expected true or false, got {}",
                leaf.json_type()
            ))),
        },
    }
}

/// Writes an undeclared header value: text, a number or a boolean.
pub(super) fn write_undeclared(out: &mut String, leaf: &Leaf<'_>, sep: char) -> Result<(), Fail> {
    match *leaf {
        Leaf::Str(s) | Leaf::Name(s) => {
            survives(s, sep)?;
            escape_scalar_sep_into(out, s, sep);
        }
        Leaf::Bool(b) => out.push_str(if b { "true" } else { "false" }),
        Leaf::I64(_) | Leaf::U64(_) | Leaf::I128(_) | Leaf::U128(_) => put_int(out, leaf),
        Leaf::F64(_) | Leaf::F32(_) | Leaf::Num(_) => out.push_str(&number_text(leaf)),
        _ => {
            return Err(e06(format!(
                "an undeclared header key holds text, got {}",
                leaf.json_type()
            )))
        }
    }
    Ok(())
}

/// The engine's verdict on text `t` (canonical, unescaped) of scalar `s`,
/// and its unique key when wanted and valid.
fn judge_text(t: &str, s: &Scalar, ranged: bool, key: Option<&mut String>) -> Wrote {
    if t.is_empty() && s.ty != ScalarType::Str {
        // the caller says what an empty value is where it sits
        return Wrote {
            empty: true,
            found: None,
        };
    }
    if s.ty == ScalarType::Str && key.is_none() {
        return Wrote {
            empty: t.is_empty(),
            found: None,
        };
    }
    match check_atom(read_back(t), s, ranged) {
        Ok(atom) => {
            if let Some(k) = key {
                atom.unique_key(k);
            }
            Wrote {
                empty: t.is_empty(),
                found: None,
            }
        }
        Err(v) => Wrote {
            empty: false,
            found: Some(v),
        },
    }
}

/// The engine's verdict on the number text written at `out[start..]`,
/// typed by [`check_atom`] only when `check` (or for a unique key when its
/// `Atom` cannot be made from the digits as they are: `direct` says the
/// digits of an int or a float are their own canonical text), escaped
/// afterwards if the list separator occurs in it (a separator `-`, `.` or
/// `+`).
fn judge_number(
    out: &mut String,
    start: usize,
    at: &At<'_>,
    check: bool,
    key: Option<&mut String>,
    direct: bool,
) -> Wrote {
    let sep = at.sep;
    let moved =
        if at.pos == Pos::Element && matches!(sep, '-' | '.' | '+') && out[start..].contains(sep) {
            let t = out.split_off(start);
            escape_element_into(out, &t, sep);
            Some(t)
        } else {
            None
        };
    if !check && key.is_none() {
        return VALID;
    }
    let text = moved.as_deref().unwrap_or(&out[start..]);
    if !check && direct {
        if let Some(k) = key {
            let atom = if at.s.ty == ScalarType::Int {
                Atom::Int(Cow::Borrowed(text))
            } else {
                Atom::Float(Cow::Borrowed(text))
            };
            atom.unique_key(k);
        }
        return VALID;
    }
    match check_atom(Cow::Borrowed(text), at.s, at.ranged) {
        Ok(atom) => {
            if let Some(k) = key {
                atom.unique_key(k);
            }
            VALID
        }
        Err(v) => Wrote {
            empty: false,
            found: Some(v),
        },
    }
}

/// serde_json's spelling of a number leaf (as `Value::Number` displays).
pub(super) fn number_text(leaf: &Leaf<'_>) -> String {
    match *leaf {
        Leaf::I64(v) => v.to_string(),
        Leaf::U64(v) => v.to_string(),
        Leaf::I128(v) => v.to_string(),
        Leaf::U128(v) => v.to_string(),
        Leaf::F64(x) => json_f64(x),
        // `to_value` widens an f32 to f64
        Leaf::F32(v) => json_f64(f64::from(v)),
        Leaf::Num(t) => t.to_string(),
        _ => String::new(),
    }
}

fn json_f64(x: f64) -> String {
    serde_json::Number::from_f64(x).map_or_else(String::new, |n| n.to_string())
}

/// Appends the decimal digits of `v`: one digit in line, more in a call
/// (ADR 0048: the call's entry and exit were most of a one-digit int's
/// cost, as in rubric's lists of points).
#[inline(always)]
pub(super) fn push_u64(out: &mut String, v: u64) {
    if v < 10 {
        out.push(char::from(b'0' + v as u8));
    } else {
        push_u64_digits(out, v);
    }
}

/// [`push_u64`] for `v >= 10`, by `itoa` (ADR 0048: the digits pushed
/// one by one cost a four-digit id 120 instructions).
fn push_u64_digits(out: &mut String, v: u64) {
    out.push_str(itoa::Buffer::new().format(v));
}

/// Appends an integer leaf's canonical digits: a 64-bit one in line (a
/// list of one-digit ints was mostly calls), a wider one in a call.
#[inline(always)]
pub(super) fn put_int(out: &mut String, leaf: &Leaf<'_>) {
    match *leaf {
        Leaf::U64(v) => push_u64(out, v),
        Leaf::I64(v) => {
            if v < 0 {
                out.push('-');
            }
            push_u64(out, v.unsigned_abs());
        }
        _ => put_wide_int(out, leaf),
    }
}

/// [`put_int`] for a 128-bit integer leaf.
fn put_wide_int(out: &mut String, leaf: &Leaf<'_>) {
    match *leaf {
        Leaf::I128(v) => out.push_str(itoa::Buffer::new().format(v)),
        Leaf::U128(v) => out.push_str(itoa::Buffer::new().format(v)),
        _ => {}
    }
}

/// Appends a finite `f64` in its shortest round-trip digits, plain, with an
/// exponent only past 30 padding zeros: what `dumps` always wrote
/// ([`number::format_f64`]), made faster in the common range and faster
/// still for a decimal of a few places ([`put_short_decimal`]).
pub(super) fn put_f64(out: &mut String, x: f64) {
    if x == 0.0 {
        out.push('0');
    } else if put_short_decimal(out, x) {
    } else if (1e-15..1e15).contains(&x.abs()) {
        shortest_plain(out, x);
    } else {
        out.push_str(&number::format_f64(x).unwrap_or_default());
    }
}

/// Appends a finite `f32` in its own shortest digits (`0.1`, not the
/// digits of its widening to `f64`).
fn put_f32(out: &mut String, v: f32) {
    let x = f64::from(v);
    if x == 0.0 {
        out.push('0');
    } else if (1e-15..1e15).contains(&x.abs()) {
        let _ = write!(out, "{v}");
    } else if let Some(d) = Dec::parse(&format!("{v:e}")) {
        out.push_str(&d.format(false));
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
/// `Display` by the test `shortest_plain_is_display` (ADR 0017).
pub(super) fn shortest_plain(out: &mut String, v: f64) {
    let mut buf = zmij::Buffer::new();
    let t = buf.format_finite(v);
    let t = t.strip_suffix(".0").unwrap_or(t);
    // at most 16 characters hold at most 15 digits after a sign or a point
    // (zmij writes no exponent from 1e-5 on)
    if t.len() <= 16 && v.abs() >= 1e-5 {
        out.push_str(t);
        return;
    }
    let mut significant = 0;
    let mut leading = true;
    for b in t.bytes() {
        match b {
            b'0' if leading => {}
            b'0'..=b'9' => {
                leading = false;
                significant += 1;
            }
            b'e' | b'E' => {
                significant = usize::MAX;
                break;
            }
            _ => {}
        }
    }
    if significant > 15 {
        let _ = write!(out, "{v}");
        return;
    }
    out.push_str(t);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `zmij` + the `.0` rule writes exactly what `Display` writes, for
    /// f64 values of every magnitude in the plain range.
    #[test]
    fn shortest_plain_is_display() {
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
        let mut out = String::new();
        let mut checked = 0;
        let fixed = [
            1.0,
            0.1,
            0.5,
            2.5,
            1e-5,
            9.999e-6,
            1e-15,
            123456789012345.6,
            0.3,
        ];
        for i in 0..400_000u64 {
            let x = if (i as usize) < fixed.len() {
                fixed[i as usize]
            } else {
                let r = next();
                match i % 3 {
                    // any bit pattern
                    0 => f64::from_bits(r),
                    // short decimals, like money and scores
                    1 => (r % 2_000_001) as f64 / 10f64.powi((r >> 40) as i32 % 9) - 100.0,
                    // every magnitude of the range
                    _ => (r as f64 / u64::MAX as f64) * 10f64.powi((r >> 50) as i32 % 31 - 15),
                }
            };
            for v in [x, -x] {
                if !v.is_finite() || v == 0.0 || !(1e-15..1e15).contains(&v.abs()) {
                    continue;
                }
                out.clear();
                shortest_plain(&mut out, v);
                assert_eq!(out, v.to_string(), "{v:e}");
                checked += 1;
            }
        }
        assert!(checked > 200_000, "only {checked} values in range");
    }

    /// Every f64 is written as `dumps` always wrote it
    /// ([`number::format_f64`]), in and out of the plain range.
    #[test]
    fn put_f64_is_format_f64() {
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        let mut out = String::new();
        for i in 0..100_000u64 {
            let r = next();
            let x = if i % 2 == 0 {
                f64::from_bits(r)
            } else {
                (r as f64 / u64::MAX as f64) * 10f64.powi((r >> 50) as i32 % 61 - 30)
            };
            if !x.is_finite() {
                continue;
            }
            out.clear();
            put_f64(&mut out, x);
            assert_eq!(
                Some(out.as_str()),
                number::format_f64(x).as_deref(),
                "{x:e}"
            );
        }
    }

    /// The integer writer spells what `Display` spells.
    #[test]
    fn push_u64_is_display() {
        let mut next = crate::test_rng(0x1234_5678_9abc_def1);
        let mut out = String::new();
        for i in 0..100_000u64 {
            let v = match i % 4 {
                0 => i,
                1 => next(),
                2 => next() >> (next() % 64),
                _ => 10u64.saturating_pow((i % 21) as u32).wrapping_sub(i % 3),
            };
            out.clear();
            push_u64(&mut out, v);
            assert_eq!(out, v.to_string());
        }
        for v in [0, 9, 10, 99, 100, u64::MAX] {
            out.clear();
            push_u64(&mut out, v);
            assert_eq!(out, v.to_string());
        }
    }

    /// Every integer leaf is written as `Display` writes it: signed and
    /// unsigned, 64 and 128 bits, at their edges and at random.
    #[test]
    fn put_int_is_display() {
        let mut next = crate::test_rng(0x0048_1280_1280_0048);
        let mut out = String::new();
        let mut check = |leaf: Leaf<'_>, want: String| {
            out.clear();
            put_int(&mut out, &leaf);
            assert_eq!(out, want);
        };
        for v in [i64::MIN, -10, -9, -1, 0, 9, 10, i64::MAX] {
            check(Leaf::I64(v), v.to_string());
        }
        for v in [i128::MIN, i128::from(i64::MIN) - 1, -1, 0, i128::MAX] {
            check(Leaf::I128(v), v.to_string());
        }
        for v in [0, u128::from(u64::MAX) + 1, u128::MAX] {
            check(Leaf::U128(v), v.to_string());
        }
        for _ in 0..20_000 {
            let (a, b) = (next(), next());
            let shift = (b % 64) as u32;
            check(
                Leaf::I64((a as i64) >> shift),
                ((a as i64) >> shift).to_string(),
            );
            let wide = (u128::from(a) << 64 | u128::from(b)) >> shift;
            check(Leaf::U128(wide), wide.to_string());
            check(Leaf::I128(wide as i128), (wide as i128).to_string());
        }
    }
}
