//! `mini::check` on the compiled plan (issue 21, ADR 0031): each record
//! line is walked once over the plan's steps, every rule looked up by
//! index (the count key by its slot, resolved once from the header; the
//! unique field by its slot), with the engine's rule functions
//! (`check_atom`, `check_float`, `arity_allows`, `MarkerRule::allows`) and
//! verdicts only: no `FieldValue`, no `Place`, no text built except the
//! unique key, in one reused buffer, probed and inserted with one hash.
//!
//! A line the walk does not accept (any fault, an escape the byte-level
//! splitter leaves to `nom`, more fields than the contract has, a unique
//! clash) is handed to the engine ([`Engine::check_line`]), which reads it
//! again and reports the exact codes, lines, fields and messages, as ADR
//! 0024's single-pass reader does. The header is always the engine's.

use super::record::arity_allows;
use super::*;
use crate::contract::Component;
use crate::plan::{Plan, Step, StepKind};

/// What the walk hands on of a line, step by step, to its consumer: the
/// canonical-value builder takes every value; `mini::check` takes none
/// (`()`: verdicts only). Values are handed as the walk types them, before
/// it knows the whole line is valid: a consumer keeps them only when
/// [`Walk::line`] accepts the line.
pub(crate) trait Sink<'a> {
    /// Whether the consumer takes values. When false, the walk may give a
    /// verdict without typing a value (a `str` list counted from the block
    /// masks, a float read as a double, a `str` left escaped).
    const VALUES: bool;
    /// Whether the consumer takes a number as the value the walk read
    /// ([`Num`]: a short canonical int, a float's double) instead of its
    /// text, which it would read again. Only with `VALUES`.
    const NUMBERS: bool = false;
    /// Whether the walk may read a number without keeping its text: a
    /// consumer of verdicts only, or one that takes numbers.
    const TEXTLESS_NUMBERS: bool = Self::NUMBERS || !Self::VALUES;
    /// Step `i` has no value in the line (an empty optional field, an
    /// absent extension): its default.
    fn absent(&mut self, _i: usize, _step: &Step<'_>) {}
    /// The typed value of scalar step `i`.
    fn scalar(&mut self, _i: usize, _atom: Atom<'a>) {}
    /// The value of scalar step `i`, a number already read (`NUMBERS`).
    fn number(&mut self, _i: usize, _n: Num) {}
    /// List step `i` has `len` elements (its arity kept): they follow.
    fn begin_list(&mut self, _i: usize, _len: usize) {}
    /// The next element of the list being walked.
    fn element(&mut self, _atom: Atom<'a>, _marked: bool) {}
    /// The next element, a number already read (`NUMBERS`).
    fn element_number(&mut self, _n: Num, _marked: bool) {}
    /// The end of list step `i` (its elements and markers kept the rules).
    fn end_list(&mut self, _i: usize, _step: &Step<'_>) {}
    /// The next component of the tuple being walked (`None`: empty and
    /// optional).
    fn component(&mut self, _atom: Option<Atom<'a>>) {}
    /// The next component, a number already read (`NUMBERS`).
    fn component_number(&mut self, _n: Num) {}
    /// The end of tuple step `i`.
    fn end_tuple(&mut self, _i: usize) {}
}

/// Verdicts only.
impl Sink<'_> for () {
    const VALUES: bool = false;
}

/// A number the walk has read to its value for a consumer that takes
/// numbers ([`Sink::NUMBERS`]): its canonical JSON is this value, so the
/// consumer does not read the text again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    /// A canonical int of up to 18 digits (`check_small_int`).
    Int(i64),
    /// A float's double, as the canonical number has it (`check_float`:
    /// correctly rounded, a zero without sign).
    Float(f64),
}

/// What [`number_value`] hands its consumer: the number's value, or, for
/// an int the short path does not decide (long, or not canonical), the
/// atom `check_atom` gives.
enum NumberRead<'a> {
    /// Read to its value.
    Value(Num),
    /// Typed as text.
    Text(Atom<'a>),
}

/// Types the text of a number for a consumer that takes numbers: the
/// verdict, and what was read handed to `to_sink`. `None`: `spec` is not
/// a number type (the caller types the text as an atom). For a consumer
/// of verdicts only (`S`), an unbounded plain float is not read: nothing
/// is handed to `to_sink`.
#[inline(always)]
fn number_value<'a, S: Sink<'a>>(
    text: Cow<'a, str>,
    spec: &Scalar,
    ranged: bool,
    to_sink: impl FnOnce(NumberRead<'a>),
) -> Option<bool> {
    match spec.ty {
        // verdicts only, and no bound to compare the double with: a plain
        // float keeps its rules by its syntax alone, and its double is not
        // read (ADR 0041)
        ScalarType::Float
            if !S::VALUES
                && !(ranged && (spec.min.is_some() || spec.max.is_some()))
                && plain_finite_float(&text) =>
        {
            Some(true)
        }
        ScalarType::Float => Some(match check_float(text, spec, ranged) {
            Ok(v) => {
                to_sink(NumberRead::Value(Num::Float(v)));
                true
            }
            Err(_) => false,
        }),
        ScalarType::Int => Some(match check_small_int(&text, spec, ranged) {
            Some(Ok(v)) => {
                to_sink(NumberRead::Value(Num::Int(v)));
                true
            }
            Some(Err(_)) => false,
            None => match check_atom(text, spec, ranged) {
                Ok(a) => {
                    to_sink(NumberRead::Text(a));
                    true
                }
                Err(_) => false,
            },
        }),
        _ => None,
    }
}

/// The compiled walk of a document's record lines, shared by
/// `mini::check` ([`Validator`]) and the canonical-value builder
/// (`value::Builder`). The plan and the header's count keys by slot are the
/// engine's ([`Engine::plan`], [`Engine::slot_counts`]); the walk holds the
/// unique keys of the line being walked. The line's fields and list
/// elements go in the caller's [`Scratch`] (which has the line's lifetime).
#[derive(Debug)]
pub(crate) struct Walk {
    /// The unique key of each unique slot for the line being walked.
    keys: Vec<String>,
    /// Record lines the walk accepted (for the tests).
    pub(crate) walked: usize,
}

impl Walk {
    /// The walk of the records `engine` checks.
    pub(crate) fn new(engine: &Engine<'_>) -> Self {
        Walk {
            keys: vec![String::new(); engine.plan.uniques.len()],
            walked: 0,
        }
    }

    /// Walks one record line, handing its values to `sink`: true when the
    /// line keeps every rule and its unique keys were claimed; `engine`
    /// then counts it as a valid record (it has not read it). False: the
    /// caller hands the line to the engine (`Engine::check_line`), which
    /// reads it again and reports what it breaks (and reads the header);
    /// what `sink` was handed is to be dropped. The walk does not run
    /// before the header, nor for a document whose count keys are not all
    /// plain `u64`s or whose unique fields are not all scalars.
    pub(crate) fn line<'a, S: Sink<'a>>(
        &mut self,
        engine: &mut Engine<'_>,
        line: Line<'a>,
        scratch: &mut Scratch<'a>,
        sink: &mut S,
    ) -> bool {
        self.line_in_line(engine, line, scratch, sink)
    }

    /// [`Walk::line`] in line in its caller, and its steps in line when
    /// `sink` takes verdicts only: the validator's loop holds the whole
    /// walk, whatever the compiler decides elsewhere (left to it, the walk
    /// became calls in some builds of unrelated changes, ADR 0068).
    #[inline(always)]
    fn line_in_line<'a, S: Sink<'a>>(
        &mut self,
        engine: &mut Engine<'_>,
        line: Line<'a>,
        scratch: &mut Scratch<'a>,
        sink: &mut S,
    ) -> bool {
        let plan = &engine.plan;
        // the counts are resolved with the header: none before it
        let Some(counts) = engine.counts.as_deref() else {
            return false;
        };
        if !plan.scalar_uniques {
            return false;
        }
        let kept = if S::VALUES {
            steps(&mut self.keys, plan, counts, line, scratch, sink)
        } else {
            steps_in_line(&mut self.keys, plan, counts, line, scratch, sink)
        };
        if !kept {
            return false;
        }
        if !plan.uniques.is_empty() {
            // one probe per unique key (a clash: the engine reports it)
            let (uniques, keys, fields) = (&plan.uniques, &self.keys, &scratch.fields);
            let claims = uniques
                .iter()
                .zip(keys)
                .filter(|(&f, _)| fields.get(f).is_some_and(|r| !r.is_empty()))
                .map(|(&f, k)| (f, Key::Text(k.as_str())));
            if !engine.uniques.claim_all(claims) {
                return false;
            }
        }
        engine.accepted();
        self.walked += 1;
        true
    }
}

/// The steps of one line: true when every field keeps its rules; the
/// unique keys in `keys`, by slot. The canonical value's walk calls this,
/// and the compiler decides whether it goes in line there; the
/// validator's walk takes [`steps_in_line`].
fn steps<'a, S: Sink<'a>>(
    keys: &mut [String],
    plan: &Plan<'_>,
    counts: &[u64],
    line: Line<'a>,
    scratch: &mut Scratch<'a>,
    sink: &mut S,
) -> bool {
    steps_in_line(keys, plan, counts, line, scratch, sink)
}

/// [`steps`] in line in its caller (the validator's walk, ADR 0068).
#[inline(always)]
fn steps_in_line<'a, S: Sink<'a>>(
    keys: &mut [String],
    plan: &Plan<'_>,
    counts: &[u64],
    line: Line<'a>,
    scratch: &mut Scratch<'a>,
    sink: &mut S,
) -> bool {
    let sep = plan.sep;
    let fields = &mut scratch.fields;
    let elements = &mut scratch.pools.elements;
    if !syntax::split_fields_fast(line.text, sep, fields) {
        return false;
    }
    let nf = fields.len();
    if nf < plan.core || nf > plan.steps.len() {
        return false;
    }
    for (i, step) in plan.steps.iter().enumerate() {
        let Some(raw) = fields.get(i) else {
            // an absent extension: its default
            sink.absent(i, step);
            continue;
        };
        if raw.is_empty() {
            if step.optional {
                if let Some(u) = step.unique {
                    keys[usize::from(u)].clear();
                }
                sink.absent(i, step);
                continue;
            }
            if !matches!(step.kind, StepKind::List { .. }) {
                return false;
            }
        }
        let ok = match step.kind {
            StepKind::Str(_) => {
                // a str value is its text: nothing to check, nothing to
                // decode unless it is kept or is a unique key
                if step.unique.is_some() || S::VALUES {
                    let text = raw.text(sep);
                    if let Some(u) = step.unique {
                        let key = &mut keys[usize::from(u)];
                        key.clear();
                        key.push(key_tag::STR);
                        key.push_str(&text);
                    }
                    sink.scalar(i, Atom::Str(text));
                }
                true
            }
            StepKind::Scalar(s) => match step.unique {
                None if S::TEXTLESS_NUMBERS
                    && matches!(s.ty, ScalarType::Float | ScalarType::Int) =>
                {
                    number_value::<S>(raw.text(sep), s, true, |n| match n {
                        NumberRead::Value(n) => sink.number(i, n),
                        NumberRead::Text(a) => sink.scalar(i, a),
                    })
                    .unwrap_or(false)
                }
                None if !S::VALUES => check_atom(raw.text(sep), s, true).is_ok(),
                Some(u) if s.ty == ScalarType::Int => {
                    // a unique int: a short canonical one is its own key
                    let key = &mut keys[usize::from(u)];
                    let text = raw.text(sep);
                    match check_small_int(&text, s, true) {
                        Some(Ok(v)) => {
                            key.clear();
                            key.push(key_tag::INT);
                            key.push_str(&text);
                            if S::NUMBERS {
                                sink.number(i, Num::Int(v));
                            } else {
                                sink.scalar(i, Atom::Int(text));
                            }
                            true
                        }
                        Some(Err(_)) => false,
                        None => scalar_atom(sink, i, Some(key), text, s),
                    }
                }
                unique => {
                    let key = unique.map(|u| &mut keys[usize::from(u)]);
                    scalar_atom(sink, i, key, raw.text(sep), s)
                }
            },
            StepKind::List {
                item,
                arity,
                count,
                marker,
            } => {
                let text_items = item.ty == ScalarType::Str;
                if text_items && !S::VALUES {
                    // elements not read: counted, with their markers,
                    // from the masks when no element is quoted
                    if let Some((n, marked)) = syntax::count_plain_list(raw.raw, sep) {
                        let count = count.map(|c| counts[usize::from(c)]);
                        if !arity_allows(n, arity, count) {
                            return false;
                        }
                        let kept = match marker {
                            Some(rule) => rule.allows(marked),
                            None => marked == 0,
                        };
                        if !kept {
                            return false;
                        }
                        continue;
                    }
                }
                if item.ty == ScalarType::Int && S::TEXTLESS_NUMBERS {
                    // canonical ints in one byte walk (ADR 0052): every
                    // such element keeps its rules (an element has no
                    // bound); a consumer of values walks them again, its
                    // vector sized from the count
                    let bytes = raw.raw.as_bytes();
                    let sep_byte = u8::try_from(sep).ok().filter(u8::is_ascii);
                    let walked = sep_byte
                        .and_then(|b| crate::number::canonical_int_list(bytes, b, |_| true));
                    if let (Some(n), Some(b)) = (walked, sep_byte) {
                        let count = count.map(|c| counts[usize::from(c)]);
                        // no element is marked
                        if !arity_allows(n, arity, count)
                            || marker.is_some_and(|rule| !rule.allows(0))
                        {
                            return false;
                        }
                        if S::VALUES {
                            sink.begin_list(i, n);
                            crate::number::canonical_int_list(bytes, b, |v| {
                                sink.element_number(Num::Int(v), false);
                                true
                            });
                            sink.end_list(i, step);
                        }
                        continue;
                    }
                }
                if !text_items {
                    // numbers, bools, names with no quote, marker or
                    // escape: typed straight from the text
                    if let Some((n, pieces)) = syntax::plain_elements(raw.raw, sep) {
                        let count = count.map(|c| counts[usize::from(c)]);
                        if !arity_allows(n, arity, count) {
                            return false;
                        }
                        sink.begin_list(i, n);
                        for piece in pieces {
                            if piece.is_empty() || !element(sink, item, Cow::Borrowed(piece), false)
                            {
                                return false;
                            }
                        }
                        // no element is marked
                        if marker.is_some_and(|rule| !rule.allows(0)) {
                            return false;
                        }
                        sink.end_list(i, step);
                        continue;
                    }
                }
                let split = if text_items && !S::VALUES {
                    syntax::split_list_unread
                } else {
                    syntax::split_list
                };
                if split(raw.raw, sep, elements).is_err() {
                    return false;
                }
                let count = count.map(|c| counts[usize::from(c)]);
                if !arity_allows(elements.len(), arity, count) {
                    return false;
                }
                sink.begin_list(i, elements.len());
                let mut marked = 0;
                for e in elements.drain(..) {
                    marked += usize::from(e.marked);
                    if text_items {
                        if S::VALUES {
                            sink.element(Atom::Str(e.text), e.marked);
                        }
                    } else if e.text.is_empty() || !element(sink, item, e.text, e.marked) {
                        return false;
                    }
                }
                let kept = match marker {
                    Some(rule) => rule.allows(marked),
                    None => marked == 0,
                };
                if kept {
                    sink.end_list(i, step);
                }
                kept
            }
            StepKind::Tuple(comps) => {
                let kept = match syntax::plain_elements(raw.raw, sep) {
                    // components with no quote, marker or escape: typed
                    // straight from the text
                    Some((n, pieces)) => {
                        n == comps.len()
                            && comps
                                .iter()
                                .zip(pieces)
                                .all(|(c, piece)| component(sink, c, Cow::Borrowed(piece)))
                    }
                    None => {
                        syntax::split_list(raw.raw, sep, elements).is_ok()
                            && elements.len() == comps.len()
                            && comps
                                .iter()
                                .zip(elements.drain(..))
                                .all(|(c, e)| !e.marked && component(sink, c, e.text))
                    }
                };
                if kept {
                    sink.end_tuple(i);
                }
                kept
            }
        };
        if !ok {
            return false;
        }
    }
    true
}

/// One tuple component's (unmarked) text, typed and handed to `sink`:
/// whether it keeps its rules (an empty one: whether it is optional).
#[inline(always)]
fn component<'a, S: Sink<'a>>(sink: &mut S, c: &Component, text: Cow<'a, str>) -> bool {
    if text.is_empty() {
        sink.component(None);
        return c.optional;
    }
    if S::TEXTLESS_NUMBERS && matches!(c.scalar.ty, ScalarType::Float | ScalarType::Int) {
        return number_value::<S>(text, &c.scalar, true, |n| match n {
            NumberRead::Value(n) => sink.component_number(n),
            NumberRead::Text(a) => sink.component(Some(a)),
        })
        .unwrap_or(false);
    }
    match check_atom(text, &c.scalar, true) {
        Ok(a) => {
            sink.component(Some(a));
            true
        }
        Err(_) => false,
    }
}

/// A scalar's text typed as an atom by `check_atom` and handed to `sink`,
/// its unique key into `key` when it has one: whether it keeps its rules.
#[inline(always)]
fn scalar_atom<'a, S: Sink<'a>>(
    sink: &mut S,
    i: usize,
    key: Option<&mut String>,
    text: Cow<'a, str>,
    s: &Scalar,
) -> bool {
    match check_atom(text, s, true) {
        Ok(a) => {
            if let Some(key) = key {
                key.clear();
                a.unique_key(key);
            }
            sink.scalar(i, a);
            true
        }
        Err(_) => false,
    }
}

/// One (non-empty) list element's text, typed and handed to `sink`:
/// whether it keeps its rules.
#[inline(always)]
fn element<'a, S: Sink<'a>>(sink: &mut S, item: &Scalar, text: Cow<'a, str>, marked: bool) -> bool {
    if S::TEXTLESS_NUMBERS && matches!(item.ty, ScalarType::Float | ScalarType::Int) {
        return number_value::<S>(text, item, false, |n| match n {
            NumberRead::Value(n) => sink.element_number(n, marked),
            NumberRead::Text(a) => sink.element(a, marked),
        })
        .unwrap_or(false);
    }
    match check_atom(text, item, false) {
        Ok(a) => {
            sink.element(a, marked);
            true
        }
        Err(_) => false,
    }
}

/// Validation of one document: the engine, the walk, and the reused
/// buffers.
pub(crate) struct Validator<'c, 'a> {
    engine: Engine<'c>,
    walk: Walk,
    scratch: Scratch<'a>,
}

impl<'c, 'a> Validator<'c, 'a> {
    pub(crate) fn new(contract: &'c Contract) -> Self {
        let engine = Engine::new(contract);
        Validator {
            walk: Walk::new(&engine),
            engine,
            scratch: Scratch::check_only(),
        }
    }

    /// Asks for the table line that the unique key of `next`, the line
    /// after the one about to be checked, will probe (ADR 0072): a hint
    /// for a first field that is a `unique` `str` written plain (no
    /// escape, no quote); nothing is claimed or checked. Asked one record
    /// ahead, the line arrives while this record is walked.
    #[inline(always)]
    pub(crate) fn ask_ahead(&self, next: &Line<'a>) {
        if !self.engine.plan.leading_text_key {
            return;
        }
        if let Some(text) = unique::leading_text(next.text) {
            self.engine.uniques.prefetch_text(0, text);
        }
    }

    /// Checks one significant line (in line in the document's loop: left
    /// to the compiler, it stayed a call in some builds, ADR 0068).
    #[inline(always)]
    pub(crate) fn line(&mut self, line: Line<'a>) {
        if self
            .walk
            .line_in_line(&mut self.engine, line, &mut self.scratch, &mut ())
        {
            return;
        }
        self.engine.check_line(line, &mut self.scratch);
    }

    /// Every error of the document (the document-level one last).
    pub(crate) fn finish(self) -> Vec<Diagnostic> {
        self.engine.finish().errors
    }
}

/// A contract with plain lists of ints (ADR 0052): one with a count key,
/// one without, and a marked one; for the oracle tests of the two walks.
#[cfg(test)]
pub(crate) const INT_LISTS: &str = r#"{"prefix": "i", "header": {"keys": {"k": {"type": "int"}}},
    "core": [
      {"name": "c", "type": "list", "item": "int", "count_key": "k"},
      {"name": "p", "type": "list", "item": "int", "max": 3},
      {"name": "m", "type": "mlist", "item": "int", "marker": "at_most_one",
       "json": {"items": "m", "selected": "ms"}}]}"#;

/// [`INT_LISTS`] under the list separator `-`, which is also an int's
/// sign (the byte walk leaves such lists to the general path).
#[cfg(test)]
pub(crate) fn int_lists_dash() -> String {
    INT_LISTS.replacen('{', r#"{"list_separator": "-", "#, 1)
}

/// Documents of [`int_lists_dash`]: lists whose `-` is a separator, a
/// sign, or both.
#[cfg(test)]
pub(crate) fn int_list_dash_documents() -> Vec<String> {
    ["1-2-3", "-1-2", "1--2-3", "0-1-2", "1-2", "-1", "1-2-"]
        .iter()
        .map(|t| format!("i|n=1|k=3\n{t}|{t}|{t}"))
        .collect()
}

/// Documents of [`INT_LISTS`]: a valid one of two records, then each of
/// a set of list texts in the three fields (canonical ones the byte walk
/// reads, and ones it leaves to the general path: spaces, zeros, signs,
/// digits past 18, escapes, quotes, markers, empty elements, the wrong
/// count), then every one-byte edit of the valid one.
#[cfg(test)]
pub(crate) fn int_list_documents() -> (String, Vec<String>) {
    let good = "i|n=2|k=3\n9,7,5|1,2|3,4*\n-5,0,123456789012345678|7|8";
    let texts = [
        "1,2,3",
        "0,-1,2",
        " 1 , 2 ,3",
        "01,2,3",
        "-0,1,2",
        "+1,2,3",
        "1,2,3,",
        "1,,3",
        "1,2",
        "1,2,3,4",
        "",
        "-,1,2",
        "--1,2,3",
        "1,2,123456789012345678",
        "1,2,1234567890123456789",
        "1,2,-9223372036854775808",
        "1,2,99999999999999999999",
        r"1\,2,3",
        "\"1\",2,3",
        "1,2*,3",
        "1.0,2,3",
        "x,2,3",
    ];
    let mut docs: Vec<String> = texts
        .iter()
        .map(|t| format!("i|n=1|k=3\n{t}|{t}|{t}"))
        .collect();
    docs.extend(crate::one_byte_edits(
        good,
        &['|', ',', '*', '\\', '"', ' ', '-', '0', '9'],
    ));
    (good.to_string(), docs)
}

/// Runs `same` (an oracle test's comparison with the engine, giving the
/// number of lines the walk accepted) on every document of
/// [`int_list_documents`] and [`int_list_dash_documents`], and checks
/// that the valid one is walked whole: the cases of both walks' oracle
/// tests for the byte walk of ADR 0052.
#[cfg(test)]
pub(crate) fn int_list_cases(mut same: impl FnMut(&str, &Contract) -> usize) {
    let c = Contract::from_json(INT_LISTS).unwrap();
    let (good, others) = int_list_documents();
    assert_eq!(same(&good, &c), 2, "every valid line is walked");
    for doc in others {
        same(&doc, &c);
    }
    let dash = Contract::from_json(&int_lists_dash()).unwrap();
    for doc in int_list_dash_documents() {
        same(&doc, &dash);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle: the walk gives exactly the engine's diagnostics.
    fn same(text: &str, contract: &Contract) -> usize {
        let mut engine = Engine::new(contract);
        let mut scratch = Scratch::check_only();
        for line in crate::read::lines(text) {
            engine.check_line(line, &mut scratch);
        }
        let want = engine.finish().errors;
        let mut v = Validator::new(contract);
        for line in crate::read::lines(text) {
            v.line(line);
        }
        let walked = v.walk.walked;
        assert_eq!(v.finish(), want, "{text}");
        walked
    }

    #[test]
    fn the_walk_reports_what_the_engine_reports() {
        let c = Contract::from_json(
            r#"{"prefix": "q", "header": {"keys": {"k": {"type": "int"}}},
                "core": [
                  {"name": "id", "type": "str", "unique": true},
                  {"name": "o", "type": "mlist", "count_key": "k", "min": 2, "max": 4,
                   "json": {"items": "o", "selected": "a"}},
                  {"name": "l", "type": "int", "min": 1, "max": 5},
                  {"name": "e", "type": "enum", "values": ["x", "y"]},
                  {"name": "t", "type": "list", "item": "int", "max": 3},
                  {"name": "p", "type": "tuple", "items": [
                    {"name": "a", "type": "float"},
                    {"name": "b", "type": "float", "min": -4, "max": 4, "optional": true}]}
                ],
                "extensions": [{"name": "u", "type": "int", "unique": true}]}"#,
        )
        .unwrap();
        let good = "q|n=3|k=3\na|r,g*,b|1|x|1,2|0.5,1\nb\\|c|r*,g,b|5|y||1,\nc|r,g,b*|3|x|3|1,-4|7";
        assert_eq!(same(good, &c), 3, "every valid line is walked");
        for bad in [
            "q|n=2|k=3\na|r,g*,b|1|x|1,2|0.5,1\na|r*,g,b|5|y||1,",
            "q|n=2|k=3\na|r,g*,b|1|x|1,2|0.5,1|4\nb|r*,g,b|5|y||1,|4",
            "q|n=1|k=3\na|r,g*|1|x|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b*|1|x|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|6|x|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|z|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2*|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|0.5,9",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|0.5",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|0.5,1|1|extra",
            "q|n=1|k=3\na|r,g*,b|1|x",
            "q|n=1|k=3\n|r,g*,b|1|x|1,2|0.5,1",
            "q|n=1|k=3\na\\q|r,g*,b|1|x|1,2|0.5,1",
            "q|n=1|k=x\na|r,g*,b|1|x|1,2|0.5,1",
            "q|n=2|k=3\na|r,g*,b|1|x|1,2|0.5,1",
        ] {
            same(bad, &c);
        }
        // marked lists of ints: one with no marker is read plain, and
        // must still keep its marker rule
        let m = Contract::from_json(
            r#"{"prefix": "m", "core": [
                  {"name": "v", "type": "mlist", "item": "int", "marker": "exactly_one",
                   "json": {"items": "v", "selected": "vs"}},
                  {"name": "w", "type": "mlist", "item": "int", "marker": "at_most_one",
                   "json": {"items": "w", "selected": "ws"}}]}"#,
        )
        .unwrap();
        assert_eq!(same("m|n=2\n1,2*,3|4,5\n7*|8*", &m), 2);
        assert_eq!(same("m|n=1\n1,2,3|4", &m), 0);
        // unbounded floats, whose verdict the walk reads from their syntax
        // alone (a field, a component, an element): the engine's verdicts
        let f = Contract::from_json(
            r#"{"prefix": "f", "core": [
                  {"name": "x", "type": "float"},
                  {"name": "p", "type": "tuple", "items": [{"name": "a", "type": "float"}]},
                  {"name": "l", "type": "list", "item": "float"}]}"#,
        )
        .unwrap();
        let huge = format!("1{}.0", "0".repeat(400));
        let long = format!("0.{}1", "0".repeat(320));
        for t in [
            "0.5", "-0.5", "00.5", "-0", "-0.0", "7", "1e5", "1E-3", "1e999", "-1e999", "0.5e",
            ".5", "5.", "-", "1.5.2", "1,5", "nan", "inf", "+1", "0x10", &huge, &long,
        ] {
            let t = crate::syntax::escape_element(t, ',');
            same(&format!("f|n=1\n{t}|{t}|{t}"), &f);
        }
        // every one-byte edit of the valid document (a deletion, or one of
        // the structural characters in its place): the same diagnostics
        for edit in crate::one_byte_edits(
            good,
            &['|', ',', '*', '\\', '"', ' ', 'x', '0', '-', '9', '.', 'n'],
        ) {
            same(&edit, &c);
        }
    }

    /// Plain lists of ints, read by the byte walk when every element is
    /// canonical (ADR 0052), with a count key, without one, and marked:
    /// the engine's verdicts for texts the walk reads and texts it leaves
    /// to the general path, and for every one-byte edit.
    #[test]
    fn int_lists_in_one_byte_walk_report_what_the_engine_reports() {
        int_list_cases(same);
    }
}
