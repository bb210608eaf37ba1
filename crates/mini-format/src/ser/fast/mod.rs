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

use crate::check::{check_arity, check_atom, check_float, check_small_int, key_tag};
use crate::contract::{Arity, Component, Contract, MarkerRule, Scalar, ScalarType};
use crate::plan::{Plan, Step, StepKind};
use crate::syntax::{escape_element_into, escape_scalar_into, is_blank, is_space};

use super::enc::{Accepted, Enc, Fast, Slot};
use super::leaf::{put_f64, put_int, Interval, Pos};
use super::sink::{leaf_methods, Leaf, R};

/// Why the straight-line writer gives a record to the general path (public
/// only for the writer `#[derive(Mini)]` generates, ADR 0047).
#[derive(Debug)]
pub struct Bail;

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
            inline_selection: None,
            keys: String::new(),
            key_ends: Vec::new(),
            accepted: Accepted::default(),
        }
    }
}

/// A scalar of the plan by its address (the plan borrows the contract for
/// the whole document, so the address names one scalar), and a `'static`
/// name by its address and length: the keys of [`Accepted`].
fn scalar_id(s: &Scalar) -> usize {
    s as *const Scalar as usize
}

fn name_id(s: &Scalar, t: &'static str) -> (usize, usize, usize) {
    (scalar_id(s), t.as_ptr() as usize, t.len())
}

impl Accepted {
    /// Whether scalar `s` accepted the name `t` before.
    fn name(&self, s: &Scalar, t: &'static str) -> bool {
        self.names.contains(&name_id(s, t))
    }

    fn add_name(&mut self, s: &Scalar, t: &'static str) {
        if self.names.len() < 32 {
            self.names.push(name_id(s, t));
        }
    }

    fn float(&self, s: &Scalar, x: f64) -> bool {
        interval_holds(&self.floats, s, x)
    }

    fn add_float(&mut self, s: &Scalar, x: f64) {
        interval_add(&mut self.floats, s, x);
    }

    fn int(&self, s: &Scalar, v: i128) -> bool {
        interval_holds(&self.ints, s, v)
    }

    fn add_int(&mut self, s: &Scalar, v: i128) {
        interval_add(&mut self.ints, s, v);
    }
}

/// Whether scalar `s`'s accepted interval in `kept` holds `v`.
fn interval_holds<T: PartialOrd + Copy>(kept: &[(usize, Interval<T>)], s: &Scalar, v: T) -> bool {
    let at = scalar_id(s);
    kept.iter().any(|&(a, seen)| a == at && seen.holds(v))
}

/// Notes that scalar `s` accepted `v` (at most 32 scalars are kept).
fn interval_add<T: PartialOrd + Copy>(kept: &mut Vec<(usize, Interval<T>)>, s: &Scalar, v: T) {
    let at = scalar_id(s);
    if let Some((_, seen)) = kept.iter_mut().find(|(a, _)| *a == at) {
        seen.add(v);
    } else if kept.len() < 32 {
        let mut seen = Interval::NONE;
        seen.add(v);
        kept.push((at, seen));
    }
}

/// Writes one record (its `\n` is written) with the straight-line writer;
/// `Ok(false)`: it bailed, the text is cut back to the `\n` and nothing is
/// claimed.
pub(super) fn write_record<T: Serialize + ?Sized>(enc: &mut Enc<'_>, rec: &T) -> R<bool> {
    write_record_with(enc, |enc| rec.serialize(RecordSer { enc }))
}

/// [`write_record`] with the record's fields written by `fields` (serde's
/// `Serialize` through [`RecordSer`], or a derived writer).
#[inline(always)]
pub(super) fn write_record_with(
    enc: &mut Enc<'_>,
    fields: impl FnOnce(&mut Enc<'_>) -> F,
) -> R<bool> {
    if !enc.fast.usable || enc.out.failed {
        return Ok(false);
    }
    let start = enc.out.buf.len();
    enc.fast.marks.clear();
    enc.fast.counts.clear();
    enc.fast.selected.clear();
    enc.fast.keys.clear();
    enc.fast.key_ends.clear();
    enc.fast.inline_selection = None;
    let written = fields(&mut *enc).is_ok() && close(enc, start);
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

/// Writes the value `v` of field `i` (its `|` before it): the body of a
/// field, shared by serde's path ([`Fields`]) and the derived writer.
#[inline(always)]
fn write_value<T: Serialize + ?Sized>(enc: &mut Enc<'_>, i: usize, v: &T) -> F {
    let f = StepFacts::of(&enc.fast.plan.steps[i]);
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
    if f.unique && enc.out.buf.len() > at {
        if enc.fast.keys.len() == key_at {
            // a unique value the writer made no key for
            return Err(Bail);
        }
        let end = enc.fast.keys.len();
        enc.fast.key_ends.push((i, end));
        // claimed at the record's end, from the line asked for now
        enc.claims.prefetch(i, &enc.fast.keys[key_at..end]);
    }
    enc.fast.ends[i] = enc.out.buf.len();
    Ok(())
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

    // Inlined into the derived `serialize`: one instance per field type
    // was a call whose entry and exit saved and restored half the
    // registers, for a dozen instructions of work (ADR 0040).
    #[inline(always)]
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
        if slot.selection {
            let sel = v.serialize(Index)?;
            self.enc.fast.selected.push((i, sel));
            return Ok(());
        }
        write_value(self.enc, i, v)
    }

    fn end(self) -> F {
        if self.k == self.enc.fast.slots.len() {
            Ok(())
        } else {
            Err(Bail)
        }
    }
}

pub mod derived;
mod value;

use value::{Index, StepFacts, Value};
