//! The record writer `#[derive(Mini)]` generates (ADR 0047): for a record
//! struct serde writes the plain way, the derive writes `write_fields`, a
//! straight line of one call a field, each naming its plan step by index
//! ([`WriteBound::write_as`]); a marked list is written with its selection
//! given first ([`RecordWriter::select`]), so that the list writes its `*`
//! as it goes and nothing is inserted afterwards.
//!
//! Each value still goes through its `Serialize` into the straight-line
//! writer's [`Value`](super::Value), with the same checks; what the
//! derived writer takes away is serde's struct walk over the record: the
//! slot found and its key compared for every field, and the selections
//! kept aside until the record ends. Whether the struct's fields are the
//! plan's slots, in order, is checked once a document
//! ([`DirectWriteRecord::SLOTS`]); when they are not, serde writes the
//! records, as it does for every type without this writer. A record the
//! writer bails on is written by the general path, as with serde.
//!
//! The document's derive calls [`ViaDirectRecords::write_records`] on a
//! [`WriteProbe`] of its record type: a record type without this writer
//! (one serde writes another way, or not at all) resolves to
//! [`ViaSerdeRecords`], which leaves the records to serde.

use std::marker::PhantomData;

use serde::Serialize;

use super::super::enc::Enc;
use super::super::record::write_one;
use super::super::sink::R;
use super::{write_record_with, write_value, Bail, Index};

/// A field's value as the derived writer writes it: any `Serialize` type.
/// The trait has a type parameter so that the derive can bound a field's
/// type by it without the bound being a fixed fact the compiler checks
/// where the record is defined (and no `Serialize` supertrait, whose
/// elaboration would be one): a record with a field that is not
/// `Serialize` leaves its writer unimplemented instead of failing to
/// compile. The writer is asked for with `W = ()`.
pub trait WriteBound<W> {
    /// Writes the value as the value of plan step `i`.
    fn write_as(&self, w: &mut RecordWriter<'_, '_>, i: usize) -> Result<(), Bail>;

    /// The value as a marked list's selection: an index, or none.
    fn selection(&self) -> Result<Option<u64>, Bail>;
}

impl<T: Serialize + ?Sized, W> WriteBound<W> for T {
    #[inline(always)]
    fn write_as(&self, w: &mut RecordWriter<'_, '_>, i: usize) -> Result<(), Bail> {
        write_value(w.enc, i, self)
    }

    #[inline(always)]
    fn selection(&self) -> Result<Option<u64>, Bail> {
        self.serialize(Index)
    }
}

/// A record struct with a derived writer (asked for as
/// `DirectWriteRecord<()>`; see [`WriteBound`]).
pub trait DirectWriteRecord<W> {
    /// The struct's fields in serde's order: each key, and whether it is
    /// the selection of the marked list just before it.
    const SLOTS: &'static [(&'static str, bool)];

    /// Writes the record's fields, one call each: [`WriteBound::write_as`]
    /// for a value; for a marked list, [`RecordWriter::select`] with its
    /// selection, the list, then [`RecordWriter::selected`].
    fn write_fields(&self, w: &mut RecordWriter<'_, '_>) -> Result<(), Bail>;
}

/// Where a derived writer writes one record's fields.
pub struct RecordWriter<'a, 'c> {
    enc: &'a mut Enc<'c>,
}

impl RecordWriter<'_, '_> {
    /// Gives the selection of the marked list written next: the list
    /// writes its `*` as it goes and checks the selection at its end.
    #[inline(always)]
    pub fn select(&mut self, selection: Option<u64>) {
        self.enc.fast.inline_selection = Some(selection);
    }

    /// After a marked list: whether its selection was taken (a list not
    /// written as a list, an absent one say, goes to the general path).
    #[inline(always)]
    pub fn selected(&mut self) -> Result<(), Bail> {
        match self.enc.fast.inline_selection {
            Some(_) => Err(Bail),
            None => Ok(()),
        }
    }
}

/// The records of a document, handed to its derived writer.
pub struct RecordsOut<'a, 'c> {
    enc: &'a mut Enc<'c>,
    /// Set when the derived writer wrote the records: how it ended.
    done: Option<R>,
}

impl<'a, 'c> RecordsOut<'a, 'c> {
    pub(in crate::ser) fn new(enc: &'a mut Enc<'c>) -> Self {
        RecordsOut { enc, done: None }
    }

    /// `None`: the derived writer did not run (serde writes the records).
    pub(in crate::ser) fn done(self) -> Option<R> {
        self.done
    }
}

/// Whether the struct's fields `slots` are the plan's slots, in order,
/// each selection right after its list.
fn slots_match(slots: &[(&str, bool)], enc: &Enc<'_>) -> bool {
    let plan = &enc.fast.slots;
    let mut step = 0usize;
    slots.len() == plan.len()
        && slots.iter().zip(plan).all(|(&(key, selection), slot)| {
            let field = if selection {
                step.checked_sub(1)
            } else {
                step += 1;
                Some(step - 1)
            };
            key == slot.key && selection == slot.selection && field == Some(slot.field)
        })
}

/// Writes `items` by their derived writer, when their fields are the
/// plan's slots.
pub fn write_records<T: DirectWriteRecord<()> + Serialize>(
    out: &mut RecordsOut<'_, '_>,
    items: &[T],
) {
    if slots_match(T::SLOTS, out.enc) {
        out.done = Some(write_all(out.enc, items));
    }
}

fn write_all<T: DirectWriteRecord<()> + Serialize>(enc: &mut Enc<'_>, items: &[T]) -> R {
    if !enc.header_written {
        enc.write_header()?;
    }
    for rec in items {
        write_one(enc, rec, |enc| {
            let written =
                write_record_with(enc, |enc| rec.write_fields(&mut RecordWriter { enc }))?;
            #[cfg(debug_assertions)]
            if written {
                DERIVED.with(|d| d.set(d.get() + 1));
            }
            Ok(written)
        })?;
    }
    Ok(())
}

#[cfg(debug_assertions)]
thread_local! {
    static DERIVED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many records this thread's derived writers wrote straight (debug
/// builds: the tests check that the writer ran).
#[cfg(debug_assertions)]
pub fn derived_records_written() -> usize {
    DERIVED.with(std::cell::Cell::get)
}

/// The derive's probe for a record type: [`ViaDirectRecords`] when the
/// type has a derived writer, [`ViaSerdeRecords`] otherwise (the
/// expansion calls `(&WriteProbe::<T>::new()).write_records(…)`: method
/// resolution tries `WriteProbe<T>` before `&WriteProbe<T>`).
pub struct WriteProbe<T>(PhantomData<T>);

impl<T> WriteProbe<T> {
    /// The probe.
    pub fn new() -> Self {
        WriteProbe(PhantomData)
    }
}

impl<T> Default for WriteProbe<T> {
    fn default() -> Self {
        WriteProbe::new()
    }
}

/// The derived side of [`WriteProbe`].
pub trait ViaDirectRecords<T> {
    /// Writes the records by their derived writer.
    fn write_records(&self, items: &[T], out: &mut RecordsOut<'_, '_>);
}

impl<T: DirectWriteRecord<()> + Serialize> ViaDirectRecords<T> for WriteProbe<T> {
    #[inline]
    fn write_records(&self, items: &[T], out: &mut RecordsOut<'_, '_>) {
        write_records(out, items);
    }
}

/// The serde side of [`WriteProbe`]: nothing (serde writes the records).
pub trait ViaSerdeRecords<T> {
    /// Leaves the records to serde.
    fn write_records(&self, items: &[T], out: &mut RecordsOut<'_, '_>);
}

impl<T> ViaSerdeRecords<T> for &WriteProbe<T> {
    #[inline]
    fn write_records(&self, _: &[T], _: &mut RecordsOut<'_, '_>) {}
}
