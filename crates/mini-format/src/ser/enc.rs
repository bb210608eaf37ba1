//! The state of one document being written, shared by the document's
//! walks (`doc.rs`), the header (`header.rs`) and the records
//! (`record.rs`): it sits below all three.

use crate::check::HeaderInfo;
use crate::contract::Contract;
use crate::error::{Code, Diagnostic};

use super::compound::{Cell, TupleScratch};
use super::leaf::Interval;
use super::out::Out;
use super::report::Claims;
use crate::plan::Plan;

/// The state of one document being written.
pub(super) struct Enc<'c> {
    pub(super) c: &'c Contract,
    pub(super) sep: char,
    pub(super) out: Out<'c>,
    /// Refusals, with their [`phase`].
    pub(super) refusals: Vec<(u8, Diagnostic)>,
    /// What the engine would report on the text, in its order.
    pub(super) found: Vec<Diagnostic>,
    /// The header's entries, as given (the probe walk).
    pub(super) head: Vec<HEntry>,
    /// The header as the engine reads it: the facts lists are checked
    /// against (count keys).
    pub(super) info: HeaderInfo,
    pub(super) header_written: bool,
    /// The records key was found (the probe walk) / written (the second).
    pub(super) records_seen: bool,
    pub(super) records_done: bool,
    /// The number of records (`n`).
    pub(super) n: usize,
    /// Records written so far, and those that are not blank lines.
    pub(super) records: usize,
    pub(super) record_lines: usize,
    /// The first error of the last record line written, when that line
    /// looks like a Markdown fence or prose, and the note the engine adds
    /// to it once the document ends (`found` index, note).
    pub(super) last_note: Option<(usize, String)>,
    pub(super) claims: Claims,
    /// Per field: the element counts `check_arity` accepted (an arity
    /// accepts an interval of counts, ADR 0048).
    pub(super) arity_ok: Vec<Interval<usize>>,
    pub(super) rec: Rec,
    pub(super) tup: TupleScratch,
    /// The straight-line record writer's plan and buffers (`fast/`).
    pub(super) fast: Fast<'c>,
}

/// One header entry as given.
#[derive(Debug, Default)]
pub(super) struct HEntry {
    pub(super) key: String,
    /// Its value, escaped.
    pub(super) text: String,
    /// The contract's header key it is (index), if declared.
    pub(super) decl: Option<usize>,
    pub(super) cell: Cell,
    /// A declared int: its canonical digits (count keys read them).
    pub(super) int: Option<String>,
}

/// The record being written.
pub(super) struct Rec {
    pub(super) cells: Vec<Cell>,
    /// Fields `0..cur` have their place in the line.
    pub(super) cur: usize,
    /// Where the record starts in the output (at its `\n`).
    pub(super) start: usize,
    /// A refusal of the whole record (a key that is no field, a record
    /// that is no object): its code, message and field.
    pub(super) whole: Option<(Code, String, Option<String>)>,
    /// Selected indices, per field (reused).
    pub(super) marks: Vec<Vec<usize>>,
    /// The fields whose values this record claimed (reused).
    pub(super) claimed: Vec<usize>,
    /// The `unique` fields and the marked lists.
    pub(super) uniques: Vec<usize>,
    pub(super) mlists: Vec<usize>,
    /// Whether the contract has extensions (trailing null ones are dropped).
    pub(super) extensions: bool,
    /// The `k`-th struct field name of the last record (its address and
    /// length) and the field it named: a struct's field names are
    /// `'static`, so the same name is the same key.
    pub(super) names: Vec<(usize, usize, usize, bool)>,
}

/// One canonical key of the record, in order: a field (for a marked list,
/// its items) or a marked list's selection.
#[derive(Debug, Clone, Copy)]
pub(super) struct Slot<'c> {
    pub(super) key: &'c str,
    pub(super) field: usize,
    pub(super) selection: bool,
}

/// The writer's plan of the contract and its buffers, kept across the
/// records of a document.
#[derive(Debug)]
pub(super) struct Fast<'c> {
    /// The contract compiled (ADR 0031): each field's step, by index.
    pub(super) plan: Plan<'c>,
    pub(super) slots: Vec<Slot<'c>>,
    /// The struct field names last seen at each slot (address, length):
    /// a derived struct's names are `'static`, so the same address is the
    /// same key and is not compared again.
    pub(super) names: Vec<(usize, usize)>,
    /// Where each field's text ends in the output.
    pub(super) ends: Vec<usize>,
    /// The element ends of the marked list being written, then of each
    /// marked list: `(field, end)`.
    pub(super) marks: Vec<(usize, usize)>,
    /// The element count of each marked list written.
    pub(super) counts: Vec<(usize, usize)>,
    /// The selection of each marked list: `(field, index)`.
    pub(super) selected: Vec<(usize, Option<u64>)>,
    /// The selection of the marked list about to be written, when the
    /// derived writer gives it before the list (ADR 0047): the list writes
    /// its `*` as it goes and checks the selection at its end.
    pub(super) inline_selection: Option<Option<u64>>,
    /// The unique keys of the record, back to back: `(field, end)`.
    pub(super) keys: String,
    pub(super) key_ends: Vec<(usize, usize)>,
    /// What the engine's rules accepted before (see [`Accepted`]).
    pub(super) accepted: Accepted,
    /// Whether the contract allows the writer at all (a whitespace list
    /// separator writes empty components as `""`: left to the general
    /// path).
    pub(super) usable: bool,
}

/// What the engine accepted before, so that it is not asked again (as the
/// general path's `Memo`, ADR 0023): an enumeration name given as a
/// `&'static str` (a unit variant) accepted once by a scalar is accepted
/// again by that scalar, and the values a float or int bound accepts are
/// an interval, so a value between two accepted ones is accepted (ints
/// since ADR 0048). All are kept per scalar: one Rust enum may serve two
/// enumerations of the contract with different names.
#[derive(Debug, Default)]
pub(super) struct Accepted {
    /// Names: the scalar's address, the name's address and length.
    pub(super) names: Vec<(usize, usize, usize)>,
    /// Per bounded float scalar (its address): the accepted interval.
    pub(super) floats: Vec<(usize, Interval<f64>)>,
    /// Per bounded int scalar (its address): the accepted interval (ADR
    /// 0048; before, every bounded int was read back from its text and
    /// its bounds compared).
    pub(super) ints: Vec<(usize, Interval<i128>)>,
}
