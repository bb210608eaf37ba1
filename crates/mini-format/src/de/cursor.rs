//! The single-pass record reader (ADR 0024): serde asks for a record's
//! values one by one, and each is typed from the line's raw text by the
//! engine's rule functions (`check_atom`, `check_arity`, `check_marker`,
//! the list grammar) at the moment it is asked for, then visited at once.
//! Nothing is built between the line and serde: no record of typed values,
//! no list of atoms.
//!
//! A line is cut into its fields first by one structural scan
//! (`syntax::split_fields_fast`, the same splitter the engine uses): the
//! field count rules (E05) and escapes (E09) close before serde sees a
//! value, and absent optional values are known in advance (a struct can be
//! read positionally only when none is missing). Whole-record rules that
//! need every value (`unique`) close once serde is done with the record.
//!
//! On the first rule a line breaks, the reader gives up on it: it marks
//! the record failed and returns [`Error::stopped`]; the deserializer then
//! re-checks that line, and every later one, with the engine, which gives
//! the diagnostics (the same ones `mini::parse` gives), and serde's partial
//! value is dropped.

use super::field::FieldCur;
use super::typed::Typed;
use super::*;

use crate::check::{arity_allows, check_arity, check_field, relife, unique_key, Key, Uniques};
use crate::contract::{Arity, MarkerRule};
use crate::plan::{Plan, Step};
use crate::syntax::{self, Element, RawField};

/// The records of the document: a sequence read line by line.
pub(super) struct RecordsDe<'a, 'de, 'c> {
    pub(super) de: &'a mut Deserializer<'de, 'c>,
}

impl<'de> de::Deserializer<'de> for RecordsDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_seq(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

impl<'de> SeqAccess<'de> for RecordsDe<'_, 'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.de.next_record(seed)
    }

    /// The records still expected by the header's `n`, when it is known
    /// (serde caps what it reserves from a hint, so a huge `n` is harmless).
    fn size_hint(&self) -> Option<usize> {
        let n = self.de.engine.header()?.n?;
        usize::try_from(n)
            .ok()
            .map(|n| n.saturating_sub(self.de.engine.record_lines()))
    }
}

/// Reads one record `line` with the single-pass reader, handing it to
/// `seed`; `engine` has read the header. A valid record claims its unique
/// values and counts as a record line of the engine. Otherwise the engine
/// reads the line again, recording its diagnostics: the result is then
/// [`Error::stopped`] when the line breaks a rule (the diagnostics are the
/// engine's), or serde's own error (located) when the line is valid but
/// the Rust type refused a value.
pub(crate) fn read_record<'de, T: DeserializeSeed<'de>>(
    engine: &mut Engine<'_>,
    cursor: &mut Cursor<'de>,
    scratch: &mut Scratch<'de>,
    line: syntax::Line<'de>,
    seed: T,
) -> Result<T::Value> {
    read_record_with(engine, cursor, scratch, line, |de| seed.deserialize(de))
}

/// [`read_record`] with the record built by `read` from the line's
/// deserializer: serde's `Deserialize` (above), or a derived record's
/// direct reader (`direct.rs`, ADR 0044).
#[inline(always)]
pub(crate) fn read_record_with<'de, V>(
    engine: &mut Engine<'_>,
    cursor: &mut Cursor<'de>,
    scratch: &mut Scratch<'de>,
    line: syntax::Line<'de>,
    read: impl FnOnce(LineDe<'_, 'de, '_>) -> Result<V>,
) -> Result<V> {
    let contract = engine.contract();
    let index = engine.record_lines();
    let Some(header) = engine.header() else {
        return Err(Error::message("a record line before the header"));
    };
    let plan = engine.plan();
    let result = if cursor.start(line.text, plan, header) {
        let rec = Line {
            contract,
            header,
            plan,
            counts: engine.slot_counts(),
            uniques: engine.uniques(),
            cur: &mut *cursor,
            line: line.number,
            index,
        };
        read(LineDe(rec)).map_err(|e| {
            locate(e, line.number, None, || {
                format!("{}[{index}]", contract.records_key())
            })
        })
    } else {
        Err(Error::stopped())
    };
    let refused = match result {
        Ok(v) => {
            if cursor.finish(contract, plan, header) && engine.accept_record(cursor.unique_keys()) {
                return Ok(v);
            }
            Error::stopped()
        }
        Err(e) if cursor.failed => {
            drop(e);
            Error::stopped()
        }
        Err(e) => e,
    };
    // the engine reads the line again and records what it breaks
    engine.check_line(line, scratch);
    Err(refused)
}

/// The fields of a line serde has been handed, one bit each: the first 64
/// in a word (every contract the benchmarks know), the rest in a vector.
/// Cleared for every record and asked once at its end whether all were
/// handed, which a word answers in one compare.
#[derive(Default)]
pub(crate) struct SeenFields {
    low: u64,
    high: Vec<bool>,
}

impl SeenFields {
    /// None handed, for a line of at most `fields` fields.
    #[inline(always)]
    pub(super) fn clear(&mut self, fields: usize) {
        self.low = 0;
        if fields > 64 || !self.high.is_empty() {
            self.high.clear();
            self.high.resize(fields.saturating_sub(64), false);
        }
    }

    /// Field `i` handed.
    #[inline(always)]
    pub(super) fn set(&mut self, i: usize) {
        match i.checked_sub(64) {
            None => self.low |= 1 << i,
            Some(k) => {
                if let Some(s) = self.high.get_mut(k) {
                    *s = true;
                }
            }
        }
    }

    /// Whether field `i` was handed.
    pub(super) fn has(&self, i: usize) -> bool {
        match i.checked_sub(64) {
            None => self.low >> i & 1 == 1,
            Some(k) => self.high.get(k).copied().unwrap_or(false),
        }
    }

    /// Whether every field below `n` was handed.
    #[inline(always)]
    pub(super) fn all_below(&self, n: usize) -> bool {
        match n.checked_sub(64) {
            None => {
                let want = 1u64.checked_shl(n as u32).map_or(u64::MAX, |b| b - 1);
                self.low & want == want
            }
            Some(k) => {
                self.low == u64::MAX && self.high.len() >= k && self.high[..k].iter().all(|&s| s)
            }
        }
    }
}

/// Where a record's unique key is (ADR 0053): a text key ends at this
/// byte of the cursor's `keys`; a short canonical int is kept as its value.
#[derive(Debug, Clone, Copy)]
pub(super) enum KeyEnd {
    Text(usize),
    Int(i64),
}

/// The reader's buffers, kept across the records of a document (nothing is
/// allocated per record once they have grown).
#[derive(Default)]
pub(crate) struct Cursor<'de> {
    /// The fields of the current line.
    pub(super) fields: Vec<RawField<'de>>,
    /// The elements of the list being read.
    pub(super) elements: Vec<Element<'de>>,
    /// Which fields serde has been handed (the rest are checked after).
    pub(super) seen: SeenFields,
    /// The unique keys of the current record: text ones back to back in
    /// `keys`; each key `(field index, where it is)` in `key_ends`.
    pub(super) keys: String,
    pub(super) key_ends: Vec<(usize, KeyEnd)>,
    /// The selection of the marked list just read.
    pub(super) selection: Option<Selection>,
    /// The marked elements of the list just read.
    pub(super) marked: Vec<usize>,
    /// The typed components of the tuple just read.
    pub(super) parts: Vec<Option<Typed<'de>>>,
    /// Set when the current line broke a rule.
    pub(super) failed: bool,
    /// The last struct checked for positional reading (its field list's
    /// address) and whether its names match the contract's keys.
    pub(super) names_match: Option<(usize, bool)>,
    /// The reading hint of the type being read, when the contract is its
    /// own (ADR 0032); none otherwise.
    pub(crate) hint: crate::contract::ReadHint,
    /// Engine buffers for the check-only pass.
    pub(super) check: Scratch<'de>,
}

impl<'de> Cursor<'de> {
    /// The same buffers (emptied) for text of another lifetime: a streaming
    /// reader keeps one cursor across lines that do not outlive each other.
    pub(crate) fn recycle<'b>(self) -> Cursor<'b> {
        Cursor {
            fields: relife(self.fields),
            elements: relife(self.elements),
            seen: self.seen,
            keys: self.keys,
            key_ends: self.key_ends,
            selection: None,
            marked: self.marked,
            parts: relife(self.parts),
            failed: false,
            names_match: self.names_match,
            hint: self.hint,
            check: self.check.recycle(),
        }
    }

    /// Cuts `line` into fields and checks the rules that need only the cut:
    /// escapes (E09) and the field count (E05). False when the line breaks
    /// one of them.
    #[inline(always)]
    pub(super) fn start(&mut self, text: &'de str, plan: &Plan<'_>, header: &HeaderInfo) -> bool {
        self.failed = false;
        self.keys.clear();
        self.key_ends.clear();
        self.selection = None;
        self.seen.clear(plan.steps.len());
        if !syntax::split_fields_fast(text, plan.sep, &mut self.fields) {
            return false;
        }
        let n = self.fields.len();
        n >= plan.core && (n <= plan.steps.len() || header.version > plan.version)
    }

    /// After serde: checks the fields it was not handed, and records the
    /// unique keys of those that need one. False when a rule is broken.
    #[inline(always)]
    pub(super) fn finish(
        &mut self,
        contract: &Contract,
        plan: &Plan<'_>,
        header: &HeaderInfo,
    ) -> bool {
        if self.failed {
            return false;
        }
        // the common case: serde was handed every value of the line, and
        // every unique field gave its key
        if self.key_ends.len() == plan.uniques.len() && self.seen.all_below(self.fields.len()) {
            return true;
        }
        self.finish_unseen(contract, header)
    }

    /// [`Self::finish`] for a line whose values serde was not all handed
    /// (or a unique field gave no key): out of the record's hot path.
    #[inline(never)]
    fn finish_unseen(&mut self, contract: &Contract, header: &HeaderInfo) -> bool {
        for (i, f) in contract.fields().iter().enumerate() {
            let seen_key = self.key_ends.iter().any(|&(k, _)| k == i);
            if self.seen.has(i) && (!f.unique || seen_key) {
                continue;
            }
            let Some(raw) = self.fields.get(i) else {
                continue;
            };
            let Some(v) = check_field(raw, f, contract, header, &mut self.check) else {
                return false;
            };
            if f.unique && !seen_key {
                let mut key = std::mem::take(&mut self.keys);
                let start = key.len();
                let mut one = String::new();
                if unique_key(&v, &mut one) {
                    key.push_str(&one);
                    self.key_ends.push((i, KeyEnd::Text(key.len())));
                } else {
                    key.truncate(start);
                }
                self.keys = key;
            }
        }
        true
    }

    /// The unique keys of the record: `(field index, key)`.
    pub(super) fn unique_keys(&self) -> impl Iterator<Item = (usize, Key<'_>)> + Clone {
        let mut start = 0;
        self.key_ends.iter().map(move |&(i, end)| match end {
            KeyEnd::Int(v) => (i, Key::Int(v)),
            KeyEnd::Text(end) => {
                let k = &self.keys[start..end];
                start = end;
                (i, Key::Text(k))
            }
        })
    }

    pub(super) fn add_key(&mut self, i: usize, atom: &Atom<'_>) {
        atom.unique_key(&mut self.keys);
        self.key_ends.push((i, KeyEnd::Text(self.keys.len())));
    }
}

/// One record line being read.
pub(super) struct Line<'a, 'de, 'c> {
    pub(super) contract: &'c Contract,
    pub(super) header: &'a HeaderInfo,
    /// The contract compiled: each value's rules by field index.
    pub(super) plan: &'a Plan<'c>,
    /// The header's count keys by plan slot (`None`: one is not a plain
    /// `u64`, and the arity rule reads the header).
    pub(super) counts: Option<&'a [u64]>,
    /// The claims so far (only asked for a key's table line).
    pub(super) uniques: &'a Uniques,
    pub(super) cur: &'a mut Cursor<'de>,
    pub(super) line: usize,
    pub(super) index: usize,
}

impl<'de, 'c> Line<'_, 'de, 'c> {
    pub(super) fn field(&self, i: usize) -> &'c Field {
        &self.contract.fields()[i]
    }

    /// Field `i`'s step of the plan.
    #[inline(always)]
    pub(super) fn step(&self, i: usize) -> &Step<'c> {
        &self.plan.steps[i]
    }

    /// Whether a list of `n` elements keeps its arity and its count key
    /// (E07): the cached count when the header's keys are plain `u64`s,
    /// the header's entry otherwise.
    #[inline(always)]
    pub(super) fn arity_holds(&self, n: usize, arity: &Arity, count: Option<u16>) -> bool {
        match (count, self.counts) {
            (None, _) => arity_allows(n, arity, None),
            (Some(c), Some(counts)) => arity_allows(n, arity, Some(counts[usize::from(c)])),
            (Some(_), None) => check_arity(n, arity, self.header).is_ok(),
        }
    }

    /// The capacity to give a list's vector: its count key's cached
    /// value, capped by what `len` bytes of text can hold (an element and
    /// its separator take two), so that a header's count never sizes an
    /// allocation alone; none without a count key.
    #[inline(always)]
    pub(super) fn count_hint(&self, count: Option<u16>, len: usize) -> usize {
        match (count, self.counts) {
            (Some(c), Some(counts)) => {
                usize::try_from(counts[usize::from(c)]).map_or(0, |k| k.min(most_elements(len)))
            }
            _ => 0,
        }
    }

    /// The capacity to give a list of text's vector: [`Self::count_hint`]
    /// with a count key; without one, for a text that is not empty, the
    /// first growth a `Vec<String>` makes on its first push (four), made
    /// at once and capped the same way, so that no list calls the
    /// out-of-line `grow_one` (ADR 0063); nothing for an empty text.
    #[inline(always)]
    pub(super) fn text_list_capacity(&self, count: Option<u16>, len: usize) -> usize {
        match count {
            None if len > 0 => most_elements(len).min(4),
            _ => self.count_hint(count, len),
        }
    }

    /// Whether field `i` has no value in this line (an empty optional
    /// field, an absent extension): its default, or nothing.
    #[inline(always)]
    pub(super) fn absent(&self, i: usize) -> bool {
        match self.cur.fields.get(i) {
            None => true,
            Some(raw) => raw.is_empty() && self.step(i).optional,
        }
    }

    pub(super) fn fail<T>(&mut self) -> Result<T> {
        self.cur.failed = true;
        Err(Error::stopped())
    }

    pub(super) fn ctx(&self, i: usize) -> Ctx<'c> {
        let step = self.step(i);
        Ctx {
            line: self.line,
            in_header: false,
            records_key: self.contract.records_key(),
            index: self.index,
            key: step.key,
            field: step.name,
        }
    }

    /// Whether a struct with serde's `fields` can be read as a sequence: its
    /// fields are the record's canonical keys in order, every one has a
    /// value in this line (a map leaves an absent value out, so that serde
    /// applies `None` or `#[serde(default)]`; a sequence could not), and no
    /// marked list may leave its selection out (`at_most_one`).
    #[inline(always)]
    pub(super) fn positional(&mut self, names: &'static [&'static str]) -> bool {
        let id = names.as_ptr() as usize;
        let matched = match self.cur.names_match {
            Some((at, m)) if at == id => m,
            _ => {
                let m = self.names_match(names);
                self.cur.names_match = Some((id, m));
                m
            }
        };
        matched
            && (self.cur.hint.absent_is_none
                || (0..self.plan.steps.len())
                    .all(|i| !self.absent(i) || self.step(i).default.is_some()))
    }

    /// Whether `names` are the record's canonical keys in order, and no
    /// marked list may leave its selection out (unless the Rust type reads
    /// an absent value as `None`, ADR 0032).
    fn names_match(&self, names: &[&str]) -> bool {
        let absent_is_none = self.cur.hint.absent_is_none;
        let mut names = names.iter();
        for f in self.contract.fields() {
            match &f.kind {
                Kind::MList {
                    items_key,
                    selected_key,
                    marker,
                    ..
                } => {
                    if (*marker == MarkerRule::AtMostOne && !absent_is_none)
                        || names.next() != Some(&items_key.as_str())
                        || names.next() != Some(&selected_key.as_str())
                    {
                        return false;
                    }
                }
                _ => {
                    if names.next() != Some(&f.name.as_str()) {
                        return false;
                    }
                }
            }
        }
        names.next().is_none()
    }
}

/// One record, as a map of its canonical keys or (see
/// [`Line::positional`]) a sequence of its values.
pub(super) struct LineDe<'a, 'de, 'c>(pub(super) Line<'a, 'de, 'c>);

impl<'a, 'de, 'c> LineDe<'a, 'de, 'c> {
    /// The record as a map of its present values (out of the positional
    /// reader's line: a type read by name is the less common case).
    #[inline(never)]
    fn visit_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self.access())
    }

    pub(super) fn access(self) -> LineAccess<'a, 'de, 'c> {
        LineAccess {
            rec: self.0,
            next: 0,
            selection_of: None,
            pending: None,
            seq: false,
        }
    }
}

impl<'de> de::Deserializer<'de> for LineDe<'_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_map(self.access())
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let mut rec = self;
        if rec.0.positional(fields) {
            let mut access = rec.access();
            access.seq = true;
            visitor.visit_seq(access)
        } else {
            rec.visit_map(visitor)
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// What the next value of a record is.
#[derive(Clone, Copy)]
pub(super) enum Slot {
    /// Field `i` (for a marked list, its items).
    Field(usize),
    /// The selection of the marked list `i`.
    Selection(usize),
    /// The selection of the absent marked list `i` (a sequence has a
    /// place for it: `None`).
    NoSelection(usize),
}

pub(super) struct LineAccess<'a, 'de, 'c> {
    pub(super) rec: Line<'a, 'de, 'c>,
    /// The next field.
    next: usize,
    /// The marked list whose selection comes next, if any.
    selection_of: Option<usize>,
    pending: Option<Slot>,
    /// Whether the record is read as a sequence: every value has a place,
    /// an absent one is visited as `None` (ADR 0032).
    pub(super) seq: bool,
}

impl<'c> LineAccess<'_, '_, 'c> {
    /// The next slot with a value and its canonical key: each field under
    /// its key, a marked list as its items key then its selection key.
    /// Absent values (an empty optional field without `default`, an absent
    /// extension, a `null` selection) are left out, so that serde applies
    /// `None` or `#[serde(default)]`.
    fn advance(&mut self) -> Option<(Slot, &'c str)> {
        let fields = self.rec.contract.fields();
        if let Some(i) = self.selection_of.take() {
            if self.rec.absent(i) {
                // a sequence's place for the selection of an absent list
                let Kind::MList { selected_key, .. } = &fields[i].kind else {
                    return None;
                };
                return Some((Slot::NoSelection(i), selected_key));
            }
            if self.rec.cur.selection.is_none() && !self.rec.cur.failed {
                // serde was not handed the items (a map of other keys)
                let _ = FieldCur {
                    rec: &mut self.rec,
                    i,
                }
                .list_rules();
            }
            if let Kind::MList { selected_key, .. } = &fields[i].kind {
                if self.seq || !matches!(self.rec.cur.selection, Some(Selection::One(None))) {
                    return Some((Slot::Selection(i), selected_key));
                }
            }
        }
        loop {
            let i = self.next;
            let f = fields.get(i)?;
            self.next += 1;
            let absent = self.rec.absent(i);
            if absent && f.default.is_none() && !self.seq {
                continue;
            }
            return Some(match &f.kind {
                Kind::MList { items_key, .. } => {
                    if !absent || self.seq {
                        self.selection_of = Some(i);
                    }
                    (Slot::Field(i), items_key.as_str())
                }
                _ => (Slot::Field(i), f.name.as_str()),
            });
        }
    }
}

impl<'de> LineAccess<'_, 'de, '_> {
    #[inline(always)]
    pub(super) fn next_value<V: DeserializeSeed<'de>>(
        &mut self,
        slot: Slot,
        seed: V,
    ) -> Result<V::Value> {
        let (i, result) = match slot {
            Slot::Field(i) => {
                self.rec.cur.seen.set(i);
                (
                    i,
                    seed.deserialize(FieldCur {
                        rec: &mut self.rec,
                        i,
                    }),
                )
            }
            Slot::Selection(i) => match self.rec.cur.selection.take() {
                Some(sel) => (i, seed.deserialize(SelectionDe(sel))),
                // `advance` read the items' rules: no selection means they
                // failed
                None => return self.rec.fail(),
            },
            Slot::NoSelection(i) => (i, seed.deserialize(SelectionDe(Selection::One(None)))),
        };
        result.map_err(|err| self.locate(err, slot, i))
    }

    /// Serde's error on value `i` of the record, located (out of line: the
    /// hot path keeps only the call).
    #[cold]
    #[inline(never)]
    pub(super) fn locate(&self, err: Error, slot: Slot, i: usize) -> Error {
        let rec = &self.rec;
        let f = rec.field(i);
        let key = match (&f.kind, slot) {
            (Kind::MList { selected_key, .. }, Slot::Selection(_) | Slot::NoSelection(_)) => {
                selected_key
            }
            (Kind::MList { items_key, .. }, _) => items_key,
            _ => &f.name,
        };
        locate(err, rec.line, Some(&f.name), || {
            format!("{}[{}].{key}", rec.contract.records_key(), rec.index)
        })
    }
}

impl<'de> SeqAccess<'de> for LineAccess<'_, 'de, '_> {
    type Error = Error;

    // This and `next_element` are inlined into the derived `visit_seq`:
    // serde's provided `next_element` was one call per field type that
    // only forwarded (ADR 0040).
    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.seq {
            return self.next_positional(seed);
        }
        match self.advance() {
            Some((slot, _)) => self.next_value(slot, seed).map(Some),
            None => Ok(None),
        }
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>> {
        self.next_element_seed(std::marker::PhantomData)
    }
}

impl<'de> LineAccess<'_, 'de, '_> {
    /// The next value of a record read as a sequence: every field in the
    /// contract's order, a marked list followed by its selection, an absent
    /// value in its place (ADR 0032). No key, no absence to skip.
    #[inline(always)]
    fn next_positional<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        match self.positional_slot() {
            Some(slot) => self.next_value(slot, seed).map(Some),
            None => Ok(None),
        }
    }

    /// The slot of the next value of a record read as a sequence (`None`
    /// after the last).
    #[inline(always)]
    pub(super) fn positional_slot(&mut self) -> Option<Slot> {
        Some(match self.selection_of.take() {
            Some(i) if self.rec.absent(i) => Slot::NoSelection(i),
            Some(i) => {
                if self.rec.cur.selection.is_none() && !self.rec.cur.failed {
                    // the items were not read through their rules
                    let _ = FieldCur {
                        rec: &mut self.rec,
                        i,
                    }
                    .list_rules();
                }
                Slot::Selection(i)
            }
            None => {
                let i = self.next;
                let step = self.rec.plan.steps.get(i)?;
                self.next += 1;
                if step.selected_key.is_some() {
                    self.selection_of = Some(i);
                }
                Slot::Field(i)
            }
        })
    }
}

impl<'de> MapAccess<'de> for LineAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        match self.advance() {
            Some((slot, key)) => {
                self.pending = Some(slot);
                seed.deserialize(key.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        match self.pending.take() {
            Some(slot) => self.next_value(slot, seed),
            None => Err(Error::message(
                "next_value_seed called before next_key_seed",
            )),
        }
    }
}

/// The most elements `len` bytes of list text can hold: an element and
/// its separator take two bytes, the last element one.
#[inline(always)]
fn most_elements(len: usize) -> usize {
    len / 2 + 1
}

#[cfg(test)]
mod tests {
    use super::SeenFields;

    /// The fields handed are the ones set, below and past the first 64,
    /// and a new record forgets the last one's.
    #[test]
    fn seen_fields_are_the_ones_set() {
        let mut seen = SeenFields::default();
        for fields in [0, 1, 9, 63, 64, 65, 70, 130] {
            seen.clear(fields);
            assert!(seen.all_below(0));
            assert_eq!(seen.all_below(fields), fields == 0, "{fields}");
            for i in 0..fields {
                assert!(!seen.has(i), "{i} of {fields} before it was set");
                seen.set(i);
                assert!(seen.has(i), "{i} of {fields}");
                assert!(seen.all_below(i + 1), "{i} of {fields}");
                assert!(!seen.all_below(i + 2) || i + 1 == fields, "{i} of {fields}");
            }
            assert!(seen.all_below(fields), "{fields}");
            // one missing field, below and past 64
            for gap in [0, 40, 63, 64, 69, 129] {
                if gap < fields {
                    seen.clear(fields);
                    (0..fields).filter(|&i| i != gap).for_each(|i| seen.set(i));
                    assert!(!seen.all_below(fields), "gap {gap} of {fields}");
                    assert!(seen.all_below(gap), "gap {gap} of {fields}");
                }
            }
        }
    }
}
