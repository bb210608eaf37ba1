//! The records: each is written at the end of the output as its fields
//! come (in the contract's order, or moved into place when they come out
//! of it), then checked as a whole: required values, selections, arity and
//! count keys, `unique` values; trailing null extensions are dropped and
//! the selected elements get their `*`.

use serde::ser::{self, Serialize};

use crate::check::{check_arity, Selection};
use crate::contract::{Contract, Field, Kind};
use crate::error::{Code, Diagnostic};
use crate::syntax::is_blank;

use super::compound::{select, tuple_variant, Cell, ListSer, SelSink, TupleMap, TupleSer};
use super::enc::{Enc, Rec};
use super::leaf::{e06, write_scalar, write_trusted, At, Memo, Pos};
use super::report::phase;
use super::sink::{Abort, Keyed, Keys, Leaf, Or, Ser, Sink, Skip, R};

impl Rec {
    pub(super) fn new(contract: &Contract) -> Self {
        let fields = contract.fields();
        let n = fields.len();
        Rec {
            cells: (0..n).map(|_| Cell::default()).collect(),
            cur: 0,
            start: 0,
            whole: None,
            marks: vec![Vec::new(); n],
            claimed: Vec::new(),
            uniques: (0..n).filter(|&i| fields[i].unique).collect(),
            mlists: (0..n)
                .filter(|&i| matches!(fields[i].kind, Kind::MList { .. }))
                .collect(),
            names: Vec::new(),
            extensions: fields.iter().any(|f| f.extension),
        }
    }
}

/// The records value, in the second walk.
pub(super) struct RecordsSink<'a, 'c> {
    pub(super) enc: &'a mut Enc<'c>,
}

impl<'a, 'c> Sink for RecordsSink<'a, 'c> {
    type Seq = Or<Records<'a, 'c>>;
    type Map = Skip;
    fn leaf(self, _: Leaf<'_>) -> R {
        // refused by the first walk
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Self::Seq> {
        if !self.enc.header_written {
            self.enc.write_header()?;
        }
        Ok(Or::Go(Records { enc: self.enc }))
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        Ok(Skip)
    }
}

pub(super) struct Records<'a, 'c> {
    enc: &'a mut Enc<'c>,
}

impl ser::SerializeSeq for Records<'_, '_> {
    type Ok = ();
    type Error = Abort;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, rec: &T) -> R {
        write_one(self.enc, rec, |enc| super::fast::write_record(enc, rec))
    }
    fn end(self) -> R {
        Ok(())
    }
}

/// Writes record `rec`: by `straight` (the straight-line writer, through
/// serde or the derived writer), or, when it bails, by the general path.
#[inline(always)]
pub(super) fn write_one<T: Serialize + ?Sized>(
    enc: &mut Enc<'_>,
    rec: &T,
    straight: impl FnOnce(&mut Enc<'_>) -> R<bool>,
) -> R {
    if enc.records == enc.n {
        return Err(Abort::Custom(format!(
            "the records sequence gave more than the {} records it announced",
            enc.n
        )));
    }
    enc.begin_record();
    if straight(&mut *enc)? {
        // written straight (every check passed): the record is done
        enc.records += 1;
        enc.record_lines += 1;
        enc.last_note = None;
        let start = enc.rec.start;
        enc.out.end(start, false)?;
    } else {
        enc.begin_general();
        rec.serialize(Ser(RecordSink { enc: &mut *enc }))?;
        enc.finish_record()?;
    }
    if enc.records == 1 || enc.records == SECOND_ESTIMATE {
        expect_the_rest(enc);
    }
    Ok(())
}

/// The records whose length sizes the output's buffer (ADR 0070): the
/// first one sizes it for the next few, with a quarter to spare, and
/// these (the header counted in, a byte or so a record) size it for all
/// the rest, with an eighth to spare. A short first record sizing it for
/// all left notes' text growing its buffer once more, a copy of all of
/// it; a second reservation on a buffer already that large is a copy too
/// (`realloc` copies the whole allocation, not the text in it); and a
/// reservation past glibc's largest mmap threshold (32 MiB) is mapped
/// afresh for every document, each page a fault when written (rubric's
/// 30 MB of text at 100,000 records, sized a quarter over).
const SECOND_ESTIMATE: usize = 32;

/// Makes room for the records still to come, as long each as those
/// written so far and a little more: after the first record, for the
/// records up to the [`SECOND_ESTIMATE`]th; after that one, for all the
/// rest.
fn expect_the_rest(enc: &mut Enc<'_>) {
    let (per_record, rest) = if enc.records == 1 {
        let first = enc.out.buf.len().saturating_sub(enc.rec.start);
        let next = enc.n.saturating_sub(1).min(SECOND_ESTIMATE - 1);
        (first.saturating_add(first / 4), next)
    } else {
        let sampled = enc.out.buf.len() / enc.records;
        let rest = enc.n.saturating_sub(enc.records);
        (sampled.saturating_add(sampled / 8), rest)
    };
    enc.out.expect(per_record.saturating_mul(rest));
}

/// One record: a struct or map of canonical keys.
struct RecordSink<'a, 'c> {
    enc: &'a mut Enc<'c>,
}

impl<'a, 'c> Sink for RecordSink<'a, 'c> {
    type Seq = Skip;
    type Map = Keys<RecordKeys<'a, 'c>>;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        self.enc.rec.whole = Some((
            Code::E06,
            format!("a record is an object, got {}", leaf.json_type()),
            None,
        ));
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Skip> {
        self.leaf(Leaf::Other("an array"))?;
        Ok(Skip)
    }
    fn map(self, _: Option<usize>) -> R<Self::Map> {
        Ok(Keys::new(RecordKeys {
            enc: self.enc,
            next: 0,
            k: 0,
        }))
    }
}

struct RecordKeys<'a, 'c> {
    enc: &'a mut Enc<'c>,
    /// The field the next key most likely names.
    next: usize,
    /// How many struct fields came before.
    k: usize,
}

/// Which canonical key of a field a key is.
#[derive(PartialEq, Eq)]
enum Role {
    Value,
    Selection,
}

/// Which field and canonical key `key` is, looking at field `hint` first
/// (keys usually come in the contract's order).
fn find_key(fields: &[Field], key: &str, hint: usize) -> Option<(usize, Role)> {
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

impl RecordKeys<'_, '_> {
    /// Writes the value of field `i` (or its selection).
    fn put<V: Serialize + ?Sized>(&mut self, i: usize, role: Role, v: &V) -> R {
        let enc = &mut *self.enc;
        let mlist = enc.rec.mlists.contains(&i);
        // the next key is most likely the next field (or this marked
        // list's selection)
        self.next = if mlist && role == Role::Value {
            i
        } else {
            i + 1
        };
        if role == Role::Selection {
            let cell = &mut enc.rec.cells[i];
            return v.serialize(Ser(SelSink {
                sel: &mut cell.sel,
                items: &mut cell.sel_items,
            }));
        }
        enc.write_field(i, v)
    }

    fn unknown(&mut self, key: &str) {
        let enc = &mut *self.enc;
        enc.rec.whole = Some((
            Code::E05,
            format!("'{key}' is not a field of contract '{}'", enc.c.prefix()),
            Some(key.to_string()),
        ));
    }
}

impl Keyed for RecordKeys<'_, '_> {
    fn entry<V: Serialize + ?Sized>(&mut self, key: &str, v: &V) -> R {
        if self.enc.rec.whole.is_some() {
            return Ok(());
        }
        match find_key(self.enc.c.fields(), key, self.next) {
            Some((i, role)) => self.put(i, role, v),
            None => {
                self.unknown(key);
                Ok(())
            }
        }
    }
    fn field<V: Serialize + ?Sized>(&mut self, key: &'static str, v: &V) -> R {
        if self.enc.rec.whole.is_some() {
            return Ok(());
        }
        let k = self.k;
        self.k += 1;
        let id = (key.as_ptr() as usize, key.len());
        let names = &mut self.enc.rec.names;
        if let Some(&(p, l, i, sel)) = names.get(k) {
            if (p, l) == id {
                let role = if sel { Role::Selection } else { Role::Value };
                return self.put(i, role, v);
            }
        }
        match find_key(self.enc.c.fields(), key, self.next) {
            Some((i, role)) => {
                let names = &mut self.enc.rec.names;
                let entry = (id.0, id.1, i, role == Role::Selection);
                if k < names.len() {
                    names[k] = entry;
                } else if k == names.len() {
                    names.push(entry);
                }
                self.put(i, role, v)
            }
            None => {
                self.unknown(key);
                Ok(())
            }
        }
    }
    fn finish(self) -> R {
        Ok(())
    }
}

/// One field's value.
struct FieldSink<'a> {
    out: &'a mut String,
    f: &'a Field,
    sep: char,
    cell: &'a mut Cell,
    tup: &'a mut super::compound::TupleScratch,
}

impl FieldSink<'_> {
    /// Refuses a value of the wrong JSON type, as `dumps` words it.
    fn wrong(self, json_type: &'static str) {
        let fail = match &self.f.kind {
            Kind::Scalar(s) => {
                let at = At {
                    s,
                    sep: self.sep,
                    pos: Pos::Field,
                    ranged: true,
                };
                let (mut sink, mut memo) = (String::new(), Memo::default());
                match write_scalar(&mut sink, &Leaf::Other(json_type), &at, None, &mut memo) {
                    Err(f) => f,
                    Ok(_) => e06(format!("got {json_type}")),
                }
            }
            Kind::List { .. } => e06(format!("a list is an array, got {json_type}")),
            Kind::MList { .. } => e06(format!("a marked list is an array, got {json_type}")),
            Kind::Tuple(_) => e06(format!("a tuple is an object, got {json_type}")),
        };
        self.cell.refuse(fail);
    }
}

impl<'a> Sink for FieldSink<'a> {
    type Seq = Or<ListSer<'a>>;
    type Map = TupleMap<'a>;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        if matches!(leaf, Leaf::Null) {
            return Ok(());
        }
        self.cell.set = true;
        let Kind::Scalar(s) = &self.f.kind else {
            self.wrong(leaf.json_type());
            return Ok(());
        };
        let at = At {
            s,
            sep: self.sep,
            pos: Pos::Field,
            ranged: true,
        };
        let cell = &mut *self.cell;
        if !self.f.unique && write_trusted(self.out, &leaf, &at, &cell.memo) {
            return Ok(());
        }
        let key = self.f.unique.then_some(&mut cell.key);
        match write_scalar(self.out, &leaf, &at, key, &mut cell.memo) {
            Err(f) => self.cell.refuse(f),
            Ok(w) if w.empty => self
                .cell
                .refuse(e06("an empty string cannot be written in a scalar field \
                 (it reads back as null or as a missing value)")),
            Ok(w) => self.cell.found = w.found.map(super::compound::Found::new),
        }
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Self::Seq> {
        self.cell.set = true;
        match &self.f.kind {
            Kind::List { item, .. } => Ok(Or::Go(ListSer::new(
                self.out,
                item,
                self.sep,
                self.cell,
                false,
                self.f.unique,
            ))),
            Kind::MList { item, .. } => Ok(Or::Go(ListSer::new(
                self.out,
                item,
                self.sep,
                self.cell,
                true,
                self.f.unique,
            ))),
            _ => {
                self.wrong("an array");
                Ok(Or::Skip)
            }
        }
    }
    fn map(self, _: Option<usize>) -> R<Self::Map> {
        self.cell.set = true;
        match &self.f.kind {
            Kind::Tuple(comps) => Ok(Or::Go(Keys::new(TupleSer::new(
                self.out,
                comps,
                self.sep,
                self.cell,
                self.tup,
                self.f.unique,
            )))),
            _ => {
                self.wrong("an object");
                Ok(Or::Skip)
            }
        }
    }
    fn variant(self, variant: &'static str, json_type: &'static str) -> R {
        self.cell.set = true;
        match &self.f.kind {
            Kind::Tuple(comps) => {
                let t = TupleSer::new(
                    self.out,
                    comps,
                    self.sep,
                    self.cell,
                    self.tup,
                    self.f.unique,
                );
                tuple_variant(t, variant, json_type)
            }
            _ => {
                self.wrong("an object");
                Ok(())
            }
        }
    }
}

impl Enc<'_> {
    /// Starts a record: its `\n`, and where it starts.
    fn begin_record(&mut self) {
        self.rec.start = self.out.buf.len();
        self.out.buf.push('\n');
    }

    /// Readies the general path's cells for a record (the straight writer
    /// does not use them: ADR 0047 moved this out of every record).
    fn begin_general(&mut self) {
        let rec = &mut self.rec;
        rec.cur = 0;
        rec.whole = None;
        for c in &mut rec.cells {
            // the rest of a cell is reset when its field is written
            c.set = false;
        }
        for &i in &rec.mlists {
            rec.cells[i].sel = super::compound::SelIn::Null;
        }
    }

    /// Writes field `i` in its place: after the fields before it (those not
    /// given yet are left empty), or moved into its place when it comes
    /// after a later field (or again).
    fn write_field<V: Serialize + ?Sized>(&mut self, i: usize, v: &V) -> R {
        let fields = self.c.fields();
        let rec = &mut self.rec;
        let buf = &mut self.out.buf;
        let in_order = i >= rec.cur;
        if in_order {
            for j in rec.cur..i {
                if j > 0 {
                    buf.push('|');
                }
                rec.cells[j].start = buf.len();
                rec.cells[j].end = buf.len();
            }
            if i > 0 {
                buf.push('|');
            }
            rec.cur = i + 1;
        }
        let start = buf.len();
        let cell = &mut rec.cells[i];
        cell.clear_value();
        v.serialize(Ser(FieldSink {
            out: &mut *buf,
            f: &fields[i],
            sep: self.sep,
            cell: &mut *cell,
            tup: &mut self.tup,
        }))?;
        if cell.refused.is_some() {
            buf.truncate(start);
        }
        if in_order {
            cell.start = start;
            cell.end = buf.len();
            return Ok(());
        }
        // out of order: move the text into the field's place
        let text = buf.split_off(start);
        let (s, e) = (cell.start, cell.end);
        buf.replace_range(s..e, &text);
        cell.end = s + text.len();
        let grown = text.len() as isize - (e - s) as isize;
        for c in &mut rec.cells[i + 1..rec.cur] {
            c.start = c.start.wrapping_add_signed(grown);
            c.end = c.end.wrapping_add_signed(grown);
        }
        Ok(())
    }

    /// Checks and ends the record whose fields were written.
    fn finish_record(&mut self) -> R {
        let line = self.records + 2;
        self.records += 1;
        let fields = self.c.fields();
        let rec = &mut self.rec;
        let buf = &mut self.out.buf;
        if let Some((code, msg, field)) = rec.whole.take() {
            buf.truncate(rec.start);
            let d = Diagnostic::new(code, line, field, msg);
            self.refusals.push((phase::RECORD, d));
            let start = rec.start;
            return self.out.end(start, true);
        }
        for j in rec.cur..fields.len() {
            if j > 0 {
                buf.push('|');
            }
            rec.cells[j].start = buf.len();
            rec.cells[j].end = buf.len();
        }
        rec.cur = fields.len();
        let (refusals, found) = (self.refusals.len(), self.found.len());
        for (i, f) in fields.iter().enumerate() {
            let cell = &mut rec.cells[i];
            let name = || Some(f.name.clone());
            if !cell.set {
                if !f.optional {
                    let msg = match &f.kind {
                        Kind::MList { items_key, .. } => {
                            format!("required marked list '{items_key}' is null")
                        }
                        _ => format!("required field '{}' is null", f.name),
                    };
                    self.refusals
                        .push((phase::RECORD, Diagnostic::new(Code::E06, line, name(), msg)));
                }
                continue;
            }
            if let Kind::MList { marker, .. } = &f.kind {
                if cell.refused.is_none() || cell.refused_elem {
                    if let Err(fail) = select(
                        *marker,
                        &cell.sel,
                        &cell.sel_items,
                        cell.count,
                        &mut rec.marks[i],
                    ) {
                        cell.refused = Some(fail);
                    }
                }
            }
            if let Some((code, msg)) = &cell.refused {
                let d = Diagnostic::new(*code, line, name(), msg.clone());
                self.refusals.push((phase::RECORD, d));
                // a selection refused at the end: its elements are written
                let (s, e) = (cell.start, cell.end);
                if e > s {
                    buf.replace_range(s..e, "");
                    rec.cells[i].end = s;
                    for c in &mut rec.cells[i + 1..] {
                        c.start -= e - s;
                        c.end -= e - s;
                    }
                }
                continue;
            }
            if let Kind::List { arity, .. } | Kind::MList { arity, .. } = &f.kind {
                // an optional list with no element reads back as null
                if !(f.optional && cell.count == 0 || self.arity_ok[i].holds(cell.count)) {
                    match check_arity(cell.count, arity, &self.info) {
                        Ok(()) => self.arity_ok[i].add(cell.count),
                        Err(v) => cell.found = Some(super::compound::Found::new(v)),
                    }
                }
            }
            if let Some(fd) = &cell.found {
                let field = match (fd.comp, &f.kind) {
                    (Some(k), Kind::Tuple(comps)) => format!("{}.{}", f.name, comps[k].name),
                    _ => f.name.clone(),
                };
                self.found
                    .push(Diagnostic::new(fd.code, line, Some(field), fd.msg.clone()));
            }
        }
        // trailing null extensions are not written
        if rec.extensions {
            let last = fields
                .iter()
                .zip(&rec.cells)
                .rposition(|(f, c)| !f.extension || c.end > c.start);
            buf.truncate(last.map_or(rec.start + 1, |j| rec.cells[j].end));
        }
        // (a line that starts with a printable character is not blank)
        let blank = !buf
            .as_bytes()
            .get(rec.start + 1)
            .is_some_and(u8::is_ascii_graphic)
            && is_blank(&buf[rec.start + 1..]);
        let invalid = self.refusals.len() > refusals || self.found.len() > found;
        if blank {
            // the reader skips a blank line: no record there (E04 at the end)
            self.found.truncate(found);
        } else {
            self.record_lines += 1;
            if !self.rec.uniques.is_empty() {
                self.claim(line, invalid);
            }
        }
        if !self.rec.mlists.is_empty() {
            self.mark();
        }
        if !blank {
            // the engine's note on the last record line's first error (a
            // line that looks like a fence or prose), as it reads the text
            self.last_note = (self.found.len() > found)
                .then(|| crate::check::fence_or_prose_note(&self.out.buf[self.rec.start + 1..]))
                .flatten()
                .map(|note| (found, note));
        }
        let bad = blank || self.refusals.len() > refusals || self.found.len() > found;
        let start = self.rec.start;
        self.out.end(start, bad)
    }

    /// The engine's `unique` rule on a record: a value an accepted record
    /// holds is E11; a valid record without clashes claims its values.
    fn claim(&mut self, line: usize, invalid: bool) {
        let fields = self.c.fields();
        let mut clashes = false;
        self.rec.claimed.clear();
        for u in 0..self.rec.uniques.len() {
            let i = self.rec.uniques[u];
            let f = &fields[i];
            let cell = &mut self.rec.cells[i];
            let empty_list =
                matches!(f.kind, Kind::List { .. } | Kind::MList { .. }) && cell.count == 0;
            if !cell.set
                || cell.refused.is_some()
                || cell.found.is_some()
                || (f.optional && empty_list)
            {
                continue;
            }
            if let Kind::MList { marker, .. } = &f.kind {
                let marks = &self.rec.marks[i];
                let sel = if marker.is_single() {
                    Selection::One(marks.first().copied())
                } else {
                    Selection::Many(marks.clone())
                };
                cell.key.push_str(&format!("{sel:?}"));
            }
            let key = &cell.key;
            let clash = if !invalid && !clashes {
                let new = self.claims.claim(i, key);
                if new {
                    self.rec.claimed.push(i);
                }
                !new
            } else {
                self.claims.holds(i, key)
            };
            if clash {
                clashes = true;
                self.found.push(Diagnostic::new(
                    Code::E11,
                    line,
                    Some(f.name.clone()),
                    format!("duplicate value in unique field '{}'", f.name),
                ));
            }
        }
        if clashes {
            for &i in &self.rec.claimed {
                self.claims.release(i, &self.rec.cells[i].key);
            }
        }
    }

    /// Writes the `*` after the selected elements of each marked list
    /// (the last list first, so that the places before stay where they are).
    fn mark(&mut self) {
        let rec = &mut self.rec;
        for &i in rec.mlists.iter().rev() {
            let cell = &rec.cells[i];
            if !cell.set || cell.refused.is_some() || cell.end == cell.start {
                continue;
            }
            for &k in rec.marks[i].iter().rev() {
                self.out.buf.insert(cell.start + cell.ends[k], '*');
            }
        }
    }
}
