//! The straight-line record writer (issue 21, ADR 0032): a record that
//! serde hands as a struct of the record's canonical keys in the
//! contract's order, each value one the Rust type already makes valid, is
//! written field after field with only the checks the type does not
//! guarantee (a bound, an enumeration name, an element count, a selection,
//! a `unique` value), each by the engine's own rule function. Nothing is
//! kept per field but where it ends.
//!
//! Anything else (a map, a key out of order, a value that needs a refusal
//! or a diagnostic, a type this writer does not take) *bails*: the record's
//! text is cut back and the record is written again by the general path
//! (`record.rs`), which gives the exact refusals and diagnostics. A
//! `Serialize` impl is a pure function of the value, so the second walk
//! sees what the first saw. The writer claims `unique` values only once
//! the whole record is written, and gives them back when one clashes.

use std::borrow::Cow;
use std::fmt;

use serde::ser::{self, Impossible, Serialize};

use crate::check::{check_arity, check_atom, check_float, check_small_int};
use crate::contract::{Arity, Component, Contract, Scalar, ScalarType};
use crate::plan::{Plan, Step, StepKind};
use crate::syntax::{is_blank, is_space};

use super::enc::Enc;
use super::leaf::{put_f64, put_int, put_text, Pos};
use super::sink::{Leaf, R};

/// Why the straight-line writer gives a record to the general path.
#[derive(Debug)]
pub(super) struct Bail;

impl fmt::Display for Bail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("left to the general writer")
    }
}

impl std::error::Error for Bail {}

impl ser::Error for Bail {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Bail
    }
}

type F<T = ()> = Result<T, Bail>;

/// One canonical key of the record, in order: a field (for a marked list,
/// its items) or a marked list's selection.
#[derive(Debug, Clone, Copy)]
struct Slot<'c> {
    key: &'c str,
    field: usize,
    selection: bool,
}

/// The writer's plan of the contract and its buffers, kept across the
/// records of a document.
#[derive(Debug)]
pub(super) struct Fast<'c> {
    /// The contract compiled (ADR 0031): each field's step, by index.
    plan: Plan<'c>,
    slots: Vec<Slot<'c>>,
    /// The struct field names last seen at each slot (address, length):
    /// a derived struct's names are `'static`, so the same address is the
    /// same key and is not compared again.
    names: Vec<(usize, usize)>,
    /// Where each field's text ends in the output.
    ends: Vec<usize>,
    /// The element ends of the marked list being written, then of each
    /// marked list: `(field, end)`.
    marks: Vec<(usize, usize)>,
    /// The element count of each marked list written.
    counts: Vec<(usize, usize)>,
    /// The selection of each marked list: `(field, index)`.
    selected: Vec<(usize, Option<u64>)>,
    /// The unique keys of the record, back to back: `(field, end)`.
    keys: String,
    key_ends: Vec<(usize, usize)>,
    /// What the engine's rules accepted before (see [`Accepted`]).
    accepted: Accepted,
    /// Whether the contract allows the writer at all (a whitespace list
    /// separator writes empty components as `""`: left to the general
    /// path).
    usable: bool,
}

impl<'c> Fast<'c> {
    pub(super) fn new(contract: &'c Contract) -> Self {
        let plan = Plan::compile(contract);
        let mut slots = Vec::new();
        for (i, step) in plan.steps.iter().enumerate() {
            slots.push(Slot {
                key: step.key,
                field: i,
                selection: false,
            });
            if let Some(key) = step.selected_key {
                slots.push(Slot {
                    key,
                    field: i,
                    selection: true,
                });
            }
        }
        Fast {
            names: vec![(0, 0); slots.len()],
            ends: vec![0; plan.steps.len()],
            usable: !is_space(plan.sep),
            plan,
            slots,
            marks: Vec::new(),
            counts: Vec::new(),
            selected: Vec::new(),
            keys: String::new(),
            key_ends: Vec::new(),
            accepted: Accepted::default(),
        }
    }
}

/// What the engine accepted before, so that it is not asked again (as the
/// general path's `Memo`, ADR 0023): an enumeration name given as a
/// `&'static str` (a unit variant) accepted once is accepted again, and the
/// values a float bound accepts are an interval, so a value between two
/// accepted ones is accepted.
#[derive(Debug, Default)]
struct Accepted {
    /// Names: address and length.
    names: Vec<(usize, usize)>,
    /// Per bounded float scalar (its address): the accepted interval.
    floats: Vec<(usize, f64, f64)>,
}

impl Accepted {
    fn name(&self, t: &'static str) -> bool {
        self.names.contains(&(t.as_ptr() as usize, t.len()))
    }

    fn add_name(&mut self, t: &'static str) {
        if self.names.len() < 32 {
            self.names.push((t.as_ptr() as usize, t.len()));
        }
    }

    fn float(&self, s: &Scalar, x: f64) -> bool {
        let at = s as *const Scalar as usize;
        self.floats
            .iter()
            .any(|&(a, lo, hi)| a == at && lo <= x && x <= hi)
    }

    fn add_float(&mut self, s: &Scalar, x: f64) {
        let at = s as *const Scalar as usize;
        if let Some((_, lo, hi)) = self.floats.iter_mut().find(|(a, _, _)| *a == at) {
            *lo = lo.min(x);
            *hi = hi.max(x);
        } else if self.floats.len() < 32 {
            self.floats.push((at, x, x));
        }
    }
}

/// Writes one record (its `\n` is written) with the straight-line writer;
/// `Ok(false)`: it bailed, the text is cut back to the `\n` and nothing is
/// claimed.
pub(super) fn write_record<T: Serialize + ?Sized>(enc: &mut Enc<'_>, rec: &T) -> R<bool> {
    if !enc.fast.usable || enc.out.failed {
        return Ok(false);
    }
    let start = enc.out.buf.len();
    enc.fast.marks.clear();
    enc.fast.counts.clear();
    enc.fast.selected.clear();
    enc.fast.keys.clear();
    enc.fast.key_ends.clear();
    let written = rec.serialize(RecordSer { enc: &mut *enc }).is_ok() && close(enc, start);
    if !written {
        enc.out.buf.truncate(start);
    }
    #[cfg(test)]
    if written {
        WRITTEN.with(|w| w.set(w.get() + 1));
    }
    Ok(written)
}

#[cfg(test)]
thread_local! {
    /// Records this thread wrote straight (tests check the writer ran).
    pub(super) static WRITTEN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The record-level checks once every field is written: trailing absent
/// extensions cut, selections marked, a blank line refused, `unique`
/// values claimed.
fn close(enc: &mut Enc<'_>, start: usize) -> bool {
    // trailing extensions with no value are not written
    let last = enc
        .fast
        .plan
        .steps
        .iter()
        .enumerate()
        .rposition(|(i, f)| !f.extension || enc.fast.ends[i] > field_start(enc, i, start));
    let end = last.map_or(start, |j| enc.fast.ends[j]);
    enc.out.buf.truncate(end);
    // the selections: in range, as the marker rule allows; the `*` goes
    // after the selected element (the last list first, so that the places
    // before stay where they are)
    for s in (0..enc.fast.selected.len()).rev() {
        let (i, sel) = enc.fast.selected[s];
        let StepKind::List {
            marker: Some(marker),
            ..
        } = enc.fast.plan.steps[i].kind
        else {
            return false;
        };
        let count = enc
            .fast
            .counts
            .iter()
            .find(|(f, _)| *f == i)
            .map_or(0, |c| c.1);
        let chosen = match sel {
            Some(k) => match usize::try_from(k) {
                Ok(k) if k < count => Some(k),
                _ => return false,
            },
            None => None,
        };
        if !marker.is_single() || !marker.allows(usize::from(chosen.is_some())) {
            return false;
        }
        if let Some(k) = chosen {
            let Some(&(_, at)) = enc.fast.marks.iter().filter(|(f, _)| *f == i).nth(k) else {
                return false;
            };
            enc.out.buf.insert(at, '*');
        }
    }
    // a blank line is no record: the general path reports it
    let buf = &enc.out.buf;
    if !buf.as_bytes().get(start).is_some_and(u8::is_ascii_graphic) && is_blank(&buf[start..]) {
        return false;
    }
    // the unique values, claimed together (a clash: none is claimed)
    let mut from = 0;
    let mut claimed = 0;
    let mut clash = false;
    for &(i, to) in &enc.fast.key_ends {
        if !enc.claims.claim(i, &enc.fast.keys[from..to]) {
            clash = true;
            break;
        }
        claimed += 1;
        from = to;
    }
    if clash {
        let mut from = 0;
        for &(i, to) in &enc.fast.key_ends[..claimed] {
            enc.claims.release(i, &enc.fast.keys[from..to]);
            from = to;
        }
        return false;
    }
    true
}

/// Where field `i`'s value starts (after its `|`).
fn field_start(enc: &Enc<'_>, i: usize, start: usize) -> usize {
    if i == 0 {
        start
    } else {
        enc.fast.ends[i - 1] + 1
    }
}

/// Writes a scalar `leaf` of `s` at `pos`: its canonical text, escaped,
/// after the checks the Rust type does not guarantee; its unique key into
/// `key` when wanted. Bails on anything that needs a refusal, a
/// diagnostic, or the general path's care.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn scalar(
    out: &mut String,
    accepted: &mut Accepted,
    leaf: Leaf<'_>,
    s: &Scalar,
    pos: Pos,
    sep: char,
    ranged: bool,
    key: Option<&mut String>,
) -> F {
    // a number escaped in a list of separator `-`, `.` or `+`
    let plain_numbers = pos == Pos::Field || !matches!(sep, '-' | '.' | '+');
    let bounded = ranged && (s.min.is_some() || s.max.is_some());
    match (s.ty, leaf) {
        (ScalarType::Str | ScalarType::Enum, Leaf::Str(t) | Leaf::Name(t)) => {
            // printable edges: nothing parsing would trim; no CR (a line
            // break is read back as LF: its unique key differs)
            let b = t.as_bytes();
            let printable = matches!((b.first(), b.last()),
                (Some(f), Some(l)) if f.is_ascii_graphic() && l.is_ascii_graphic());
            if !printable {
                return Err(Bail);
            }
            if s.ty == ScalarType::Enum {
                let known = matches!(leaf, Leaf::Name(n) if accepted.name(n));
                if !known {
                    if check_atom(Cow::Borrowed(t), s, ranged).is_err() {
                        return Err(Bail);
                    }
                    if let Leaf::Name(n) = leaf {
                        accepted.add_name(n);
                    }
                }
            }
            if let Some(k) = key {
                if s.ty != ScalarType::Str || memchr::memchr(b'\r', b).is_some() {
                    return Err(Bail);
                }
                k.push('s');
                k.push_str(t);
            }
            put_text(out, t, pos, sep);
            Ok(())
        }
        (ScalarType::Int, Leaf::I64(_) | Leaf::U64(_)) if plain_numbers => {
            let at = out.len();
            put_int(out, &leaf);
            if bounded && !matches!(check_small_int(&out[at..], s, true), Some(Ok(_))) {
                return Err(Bail);
            }
            if let Some(k) = key {
                k.push('i');
                k.push_str(&out[at..]);
            }
            Ok(())
        }
        (ScalarType::Float, Leaf::F64(x)) if plain_numbers && key.is_none() && x.is_finite() => {
            let at = out.len();
            put_f64(out, x);
            if bounded && !accepted.float(s, x) {
                if check_float(Cow::Borrowed(&out[at..]), s, true).is_err() {
                    return Err(Bail);
                }
                accepted.add_float(s, x);
            }
            Ok(())
        }
        (ScalarType::Bool, Leaf::Bool(b)) if key.is_none() => {
            out.push_str(if b { "true" } else { "false" });
            Ok(())
        }
        _ => Err(Bail),
    }
}

/// Every `Serializer` method a position does not take: a bail.
macro_rules! bail {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {$(
        fn $method(self, $(_: $arg),*) -> F<$ret> {
            Err(Bail)
        }
    )*};
}

// ---------------------------------------------------------------------------
// the record
// ---------------------------------------------------------------------------

/// One record: a struct of the canonical keys, in order.
struct RecordSer<'a, 'c> {
    enc: &'a mut Enc<'c>,
}

impl<'a, 'c> ser::Serializer for RecordSer<'a, 'c> {
    type Ok = ();
    type Error = Bail;
    type SerializeSeq = Impossible<(), Bail>;
    type SerializeTuple = Impossible<(), Bail>;
    type SerializeTupleStruct = Impossible<(), Bail>;
    type SerializeTupleVariant = Impossible<(), Bail>;
    type SerializeMap = Impossible<(), Bail>;
    type SerializeStruct = Fields<'a, 'c>;
    type SerializeStructVariant = Impossible<(), Bail>;

    fn serialize_struct(self, _: &'static str, _: usize) -> F<Fields<'a, 'c>> {
        Ok(Fields {
            enc: self.enc,
            k: 0,
        })
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> F {
        v.serialize(self)
    }

    bail! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> (); serialize_i16(i16) -> (); serialize_i32(i32) -> ();
        serialize_i64(i64) -> (); serialize_u8(u8) -> (); serialize_u16(u16) -> ();
        serialize_u32(u32) -> (); serialize_u64(u64) -> (); serialize_f32(f32) -> ();
        serialize_f64(f64) -> (); serialize_char(char) -> (); serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> (); serialize_none() -> (); serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Bail>;
        serialize_tuple(usize) -> Impossible<(), Bail>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Bail>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
        serialize_map(Option<usize>) -> Impossible<(), Bail>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> F {
        Err(Bail)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> F {
        Err(Bail)
    }
}

/// The record's fields, one slot after another.
struct Fields<'a, 'c> {
    enc: &'a mut Enc<'c>,
    /// The next slot.
    k: usize,
}

impl ser::SerializeStruct for Fields<'_, '_> {
    type Ok = ();
    type Error = Bail;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> F {
        let k = self.k;
        self.k += 1;
        let fast = &mut self.enc.fast;
        let Some(&slot) = fast.slots.get(k) else {
            return Err(Bail);
        };
        let id = (key.as_ptr() as usize, key.len());
        if fast.names[k] != id {
            if slot.key != key {
                return Err(Bail);
            }
            fast.names[k] = id;
        }
        let i = slot.field;
        let enc = &mut *self.enc;
        let f = enc.fast.plan.steps[i];
        if slot.selection {
            let sel = v.serialize(Index)?;
            enc.fast.selected.push((i, sel));
            return Ok(());
        }
        let out = &mut enc.out.buf;
        if i > 0 {
            out.push('|');
        }
        let at = out.len();
        let key_at = enc.fast.keys.len();
        v.serialize(Value {
            enc: &mut *enc,
            f,
            i,
        })?;
        if f.unique.is_some() && enc.out.buf.len() > at {
            if enc.fast.keys.len() == key_at {
                // a unique value the writer made no key for
                return Err(Bail);
            }
            let end = enc.fast.keys.len();
            enc.fast.key_ends.push((i, end));
        }
        enc.fast.ends[i] = enc.out.buf.len();
        Ok(())
    }

    fn end(self) -> F {
        if self.k == self.enc.fast.slots.len() {
            Ok(())
        } else {
            Err(Bail)
        }
    }
}

// ---------------------------------------------------------------------------
// a field's value
// ---------------------------------------------------------------------------

/// The value of field `i` (its step `f`).
struct Value<'a, 'c> {
    enc: &'a mut Enc<'c>,
    f: Step<'c>,
    i: usize,
}

impl<'a, 'c> Value<'a, 'c> {
    #[inline(always)]
    fn leaf(self, leaf: Leaf<'_>) -> F {
        let (StepKind::Str(s) | StepKind::Scalar(s)) = self.f.kind else {
            return Err(Bail);
        };
        let fast = &mut self.enc.fast;
        let key = if self.f.unique.is_some() {
            Some(&mut fast.keys)
        } else {
            None
        };
        scalar(
            &mut self.enc.out.buf,
            &mut fast.accepted,
            leaf,
            s,
            Pos::Field,
            self.enc.sep,
            true,
            key,
        )
    }
}

impl<'a, 'c> ser::Serializer for Value<'a, 'c> {
    type Ok = ();
    type Error = Bail;
    type SerializeSeq = List<'a, 'c>;
    type SerializeTuple = Impossible<(), Bail>;
    type SerializeTupleStruct = Impossible<(), Bail>;
    type SerializeTupleVariant = Impossible<(), Bail>;
    type SerializeMap = Impossible<(), Bail>;
    type SerializeStruct = Tuple<'a, 'c>;
    type SerializeStructVariant = Impossible<(), Bail>;

    fn serialize_bool(self, v: bool) -> F {
        self.leaf(Leaf::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> F {
        self.leaf(Leaf::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> F {
        self.leaf(Leaf::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> F {
        self.leaf(Leaf::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> F {
        self.leaf(Leaf::I64(v))
    }
    fn serialize_u8(self, v: u8) -> F {
        self.leaf(Leaf::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> F {
        self.leaf(Leaf::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> F {
        self.leaf(Leaf::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> F {
        self.leaf(Leaf::U64(v))
    }
    fn serialize_f64(self, v: f64) -> F {
        self.leaf(Leaf::F64(v))
    }
    fn serialize_str(self, v: &str) -> F {
        self.leaf(Leaf::Str(v))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> F {
        self.leaf(Leaf::Name(variant))
    }
    /// No value: an empty field, when the field is optional.
    fn serialize_none(self) -> F {
        if self.f.optional {
            Ok(())
        } else {
            Err(Bail)
        }
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> F {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> F {
        v.serialize(self)
    }

    fn serialize_seq(self, _: Option<usize>) -> F<List<'a, 'c>> {
        let StepKind::List {
            item,
            arity,
            marker,
            ..
        } = self.f.kind
        else {
            return Err(Bail);
        };
        if self.f.unique.is_some() {
            return Err(Bail);
        }
        Ok(List {
            enc: self.enc,
            optional: self.f.optional,
            arity,
            i: self.i,
            item,
            marked: marker.is_some(),
            count: 0,
        })
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> F<Tuple<'a, 'c>> {
        let StepKind::Tuple(comps) = self.f.kind else {
            return Err(Bail);
        };
        if self.f.unique.is_some() {
            return Err(Bail);
        }
        let start = self.enc.out.buf.len();
        Ok(Tuple {
            enc: self.enc,
            comps,
            start,
            next: 0,
        })
    }

    bail! {
        serialize_f32(f32) -> (); serialize_char(char) -> (); serialize_bytes(&[u8]) -> ();
        serialize_unit() -> (); serialize_unit_struct(&'static str) -> ();
        serialize_tuple(usize) -> Impossible<(), Bail>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Bail>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
        serialize_map(Option<usize>) -> Impossible<(), Bail>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> F {
        Err(Bail)
    }
}

// ---------------------------------------------------------------------------
// lists
// ---------------------------------------------------------------------------

/// A list's elements, written as they come.
struct List<'a, 'c> {
    enc: &'a mut Enc<'c>,
    optional: bool,
    arity: &'c Arity,
    i: usize,
    item: &'c Scalar,
    marked: bool,
    count: usize,
}

impl ser::SerializeSeq for List<'_, '_> {
    type Ok = ();
    type Error = Bail;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> F {
        let sep = self.enc.sep;
        if self.count > 0 {
            self.enc.out.buf.push(sep);
        }
        self.count += 1;
        v.serialize(Element {
            out: &mut self.enc.out.buf,
            accepted: &mut self.enc.fast.accepted,
            s: self.item,
            sep,
            ranged: false,
        })?;
        if self.marked {
            let end = self.enc.out.buf.len();
            self.enc.fast.marks.push((self.i, end));
        }
        Ok(())
    }

    fn end(self) -> F {
        let enc = self.enc;
        // an optional list with no element reads back as null
        if !(self.optional && self.count == 0) && enc.arity_ok[self.i] != Some(self.count) {
            if check_arity(self.count, self.arity, &enc.info).is_err() {
                return Err(Bail);
            }
            enc.arity_ok[self.i] = Some(self.count);
        }
        if self.marked {
            enc.fast.counts.push((self.i, self.count));
        }
        Ok(())
    }
}

/// A marked list's selection: one index, or none (`at_most_one`).
struct Index;

impl ser::Serializer for Index {
    type Ok = Option<u64>;
    type Error = Bail;
    type SerializeSeq = Impossible<Option<u64>, Bail>;
    type SerializeTuple = Impossible<Option<u64>, Bail>;
    type SerializeTupleStruct = Impossible<Option<u64>, Bail>;
    type SerializeTupleVariant = Impossible<Option<u64>, Bail>;
    type SerializeMap = Impossible<Option<u64>, Bail>;
    type SerializeStruct = Impossible<Option<u64>, Bail>;
    type SerializeStructVariant = Impossible<Option<u64>, Bail>;

    fn serialize_u8(self, v: u8) -> F<Option<u64>> {
        Ok(Some(v.into()))
    }
    fn serialize_u16(self, v: u16) -> F<Option<u64>> {
        Ok(Some(v.into()))
    }
    fn serialize_u32(self, v: u32) -> F<Option<u64>> {
        Ok(Some(v.into()))
    }
    fn serialize_u64(self, v: u64) -> F<Option<u64>> {
        Ok(Some(v))
    }
    fn serialize_none(self) -> F<Option<u64>> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> F<Option<u64>> {
        v.serialize(self)
    }

    bail! {
        serialize_bool(bool) -> Option<u64>;
        serialize_i8(i8) -> Option<u64>; serialize_i16(i16) -> Option<u64>;
        serialize_i32(i32) -> Option<u64>; serialize_i64(i64) -> Option<u64>;
        serialize_f32(f32) -> Option<u64>; serialize_f64(f64) -> Option<u64>;
        serialize_char(char) -> Option<u64>; serialize_str(&str) -> Option<u64>;
        serialize_bytes(&[u8]) -> Option<u64>; serialize_unit() -> Option<u64>;
        serialize_unit_struct(&'static str) -> Option<u64>;
        serialize_unit_variant(&'static str, u32, &'static str) -> Option<u64>;
        serialize_seq(Option<usize>) -> Impossible<Option<u64>, Bail>;
        serialize_tuple(usize) -> Impossible<Option<u64>, Bail>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<Option<u64>, Bail>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<Option<u64>, Bail>;
        serialize_map(Option<usize>) -> Impossible<Option<u64>, Bail>;
        serialize_struct(&'static str, usize) -> Impossible<Option<u64>, Bail>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<Option<u64>, Bail>;
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> F<Option<u64>> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> F<Option<u64>> {
        Err(Bail)
    }
}

// ---------------------------------------------------------------------------
// elements and tuple components
// ---------------------------------------------------------------------------

/// A list element or a tuple component: a scalar, escaped as an element.
struct Element<'a> {
    out: &'a mut String,
    accepted: &'a mut Accepted,
    s: &'a Scalar,
    sep: char,
    ranged: bool,
}

impl Element<'_> {
    #[inline(always)]
    fn leaf(self, leaf: Leaf<'_>) -> F {
        scalar(
            self.out,
            self.accepted,
            leaf,
            self.s,
            Pos::Element,
            self.sep,
            self.ranged,
            None,
        )
    }
}

impl ser::Serializer for Element<'_> {
    type Ok = ();
    type Error = Bail;
    type SerializeSeq = Impossible<(), Bail>;
    type SerializeTuple = Impossible<(), Bail>;
    type SerializeTupleStruct = Impossible<(), Bail>;
    type SerializeTupleVariant = Impossible<(), Bail>;
    type SerializeMap = Impossible<(), Bail>;
    type SerializeStruct = Impossible<(), Bail>;
    type SerializeStructVariant = Impossible<(), Bail>;

    fn serialize_bool(self, v: bool) -> F {
        self.leaf(Leaf::Bool(v))
    }
    fn serialize_i8(self, v: i8) -> F {
        self.leaf(Leaf::I64(v.into()))
    }
    fn serialize_i16(self, v: i16) -> F {
        self.leaf(Leaf::I64(v.into()))
    }
    fn serialize_i32(self, v: i32) -> F {
        self.leaf(Leaf::I64(v.into()))
    }
    fn serialize_i64(self, v: i64) -> F {
        self.leaf(Leaf::I64(v))
    }
    fn serialize_u8(self, v: u8) -> F {
        self.leaf(Leaf::U64(v.into()))
    }
    fn serialize_u16(self, v: u16) -> F {
        self.leaf(Leaf::U64(v.into()))
    }
    fn serialize_u32(self, v: u32) -> F {
        self.leaf(Leaf::U64(v.into()))
    }
    fn serialize_u64(self, v: u64) -> F {
        self.leaf(Leaf::U64(v))
    }
    fn serialize_f64(self, v: f64) -> F {
        self.leaf(Leaf::F64(v))
    }
    fn serialize_str(self, v: &str) -> F {
        self.leaf(Leaf::Str(v))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> F {
        self.leaf(Leaf::Name(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> F {
        v.serialize(self)
    }

    bail! {
        serialize_f32(f32) -> (); serialize_char(char) -> (); serialize_bytes(&[u8]) -> ();
        serialize_none() -> (); serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Bail>;
        serialize_tuple(usize) -> Impossible<(), Bail>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Bail>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
        serialize_map(Option<usize>) -> Impossible<(), Bail>;
        serialize_struct(&'static str, usize) -> Impossible<(), Bail>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> F {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> F {
        Err(Bail)
    }
}

/// A tuple given as a struct of its components, in order.
struct Tuple<'a, 'c> {
    enc: &'a mut Enc<'c>,
    comps: &'c [Component],
    /// Where the tuple starts in the output.
    start: usize,
    next: usize,
}

impl ser::SerializeStruct for Tuple<'_, '_> {
    type Ok = ();
    type Error = Bail;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> F {
        let i = self.next;
        self.next += 1;
        let Some(c) = self.comps.get(i) else {
            return Err(Bail);
        };
        if c.name != key {
            return Err(Bail);
        }
        let sep = self.enc.sep;
        let out = &mut self.enc.out.buf;
        if i > 0 {
            out.push(sep);
        }
        v.serialize(ComponentSer {
            out,
            accepted: &mut self.enc.fast.accepted,
            c,
            sep,
        })
    }

    fn end(self) -> F {
        // every component given, and not all of them null
        if self.next != self.comps.len() || self.enc.out.buf.len() == self.start {
            return Err(Bail);
        }
        Ok(())
    }
}

/// One tuple component: a scalar (its bounds apply), or null when it is
/// optional.
struct ComponentSer<'a> {
    out: &'a mut String,
    accepted: &'a mut Accepted,
    c: &'a Component,
    sep: char,
}

impl<'a> ComponentSer<'a> {
    fn element(self) -> Element<'a> {
        Element {
            out: self.out,
            accepted: self.accepted,
            s: &self.c.scalar,
            sep: self.sep,
            ranged: true,
        }
    }
}

impl ser::Serializer for ComponentSer<'_> {
    type Ok = ();
    type Error = Bail;
    type SerializeSeq = Impossible<(), Bail>;
    type SerializeTuple = Impossible<(), Bail>;
    type SerializeTupleStruct = Impossible<(), Bail>;
    type SerializeTupleVariant = Impossible<(), Bail>;
    type SerializeMap = Impossible<(), Bail>;
    type SerializeStruct = Impossible<(), Bail>;
    type SerializeStructVariant = Impossible<(), Bail>;

    fn serialize_bool(self, v: bool) -> F {
        self.element().serialize_bool(v)
    }
    fn serialize_i8(self, v: i8) -> F {
        self.element().serialize_i8(v)
    }
    fn serialize_i16(self, v: i16) -> F {
        self.element().serialize_i16(v)
    }
    fn serialize_i32(self, v: i32) -> F {
        self.element().serialize_i32(v)
    }
    fn serialize_i64(self, v: i64) -> F {
        self.element().serialize_i64(v)
    }
    fn serialize_u8(self, v: u8) -> F {
        self.element().serialize_u8(v)
    }
    fn serialize_u16(self, v: u16) -> F {
        self.element().serialize_u16(v)
    }
    fn serialize_u32(self, v: u32) -> F {
        self.element().serialize_u32(v)
    }
    fn serialize_u64(self, v: u64) -> F {
        self.element().serialize_u64(v)
    }
    fn serialize_f64(self, v: f64) -> F {
        self.element().serialize_f64(v)
    }
    fn serialize_str(self, v: &str) -> F {
        self.element().serialize_str(v)
    }
    fn serialize_unit_variant(self, n: &'static str, k: u32, variant: &'static str) -> F {
        self.element().serialize_unit_variant(n, k, variant)
    }
    /// A null component: empty (required ones are the general path's).
    fn serialize_none(self) -> F {
        if self.c.optional {
            Ok(())
        } else {
            Err(Bail)
        }
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> F {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> F {
        v.serialize(self)
    }

    bail! {
        serialize_f32(f32) -> (); serialize_char(char) -> (); serialize_bytes(&[u8]) -> ();
        serialize_unit() -> (); serialize_unit_struct(&'static str) -> ();
        serialize_seq(Option<usize>) -> Impossible<(), Bail>;
        serialize_tuple(usize) -> Impossible<(), Bail>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Bail>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
        serialize_map(Option<usize>) -> Impossible<(), Bail>;
        serialize_struct(&'static str, usize) -> Impossible<(), Bail>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> F {
        Err(Bail)
    }
}
