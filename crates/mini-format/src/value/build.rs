//! The canonical JSON value (SPEC 1.1 §7) built from the engine's output:
//! typed atoms, field values, selections, records and the header. This is
//! the only place that builds JSON from a document; the engine builds none.

use serde_json::{Map, Value};

use crate::check::{check_marker, Atom, FieldValue, HeaderInfo, HeaderValue, Num, Selection, Sink};
use crate::contract::{Component, Contract, Kind};
use crate::number;
use crate::plan::{Step, StepKind};

/// The canonical header object: the entries in the engine's order, typed
/// keys as JSON values (tuples as objects of the contract's components),
/// undeclared keys as strings, defaults as the contract gives them.
pub(crate) fn header_json(h: &HeaderInfo, contract: &Contract) -> Map<String, Value> {
    let mut m = Map::with_capacity(h.entries.len());
    for (k, v) in &h.entries {
        let json = match (v, contract.header_key(k)) {
            (HeaderValue::Text(t), _) => Value::String(t.clone()),
            (HeaderValue::Default(d), _) => d.clone(),
            (HeaderValue::Typed(v), Some(hk)) => field_json(&mut v.clone(), &hk.kind, None),
            (HeaderValue::Typed(_), None) => Value::Null,
        };
        m.insert(k.clone(), json);
    }
    m
}

/// Converts a typed atom to its canonical JSON value (a decoded string is
/// moved into the value, a borrowed one copied).
pub(crate) fn atom_to_json(a: Atom<'_>) -> Value {
    match a {
        Atom::Str(s) | Atom::Date(s) | Atom::Decimal(s) => Value::String(s.into_owned()),
        Atom::Bool(b) => Value::Bool(b),
        Atom::Int(s) => number_value(&s),
        Atom::Float(s) => match number::canonical_float(&s) {
            Some(text) => number_value(&text),
            None => number_value(&s),
        },
    }
}

/// The canonical JSON of a number the walk has read to its value: the
/// same value [`atom_to_json`] builds from its canonical text (an int as
/// `i64`; a float as the double of its canonical text, which is the
/// double the walk read: correctly rounded, a zero without sign). Only
/// without `arbitrary_precision`, which keeps a float's digits as written.
fn num_to_json(n: Num) -> Value {
    match n {
        Num::Int(v) => Value::from(v),
        // the walk refuses a float that is not finite (E06): `from_f64`
        // always has a number here
        Num::Float(v) => serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
    }
}

/// The values of a list, moved out (the emptied vector stays for reuse).
fn atoms_json(items: &mut Vec<Atom<'_>>) -> Value {
    Value::Array(items.drain(..).map(atom_to_json).collect())
}

/// The JSON number of canonical number text. An int is built from `i64` or
/// `u64` (the engine has refused, with E06, any int this build cannot hold:
/// ADR 0019); beyond that, and for floats, serde_json's own number reader
/// decides (with `arbitrary_precision` it keeps the digits as written;
/// without, a float is the nearest `f64`, as in the Python reference).
fn number_value(text: &str) -> Value {
    if !text.contains(['.', 'e', 'E']) {
        if let Ok(i) = text.parse::<i64>() {
            return Value::from(i);
        }
        if let Ok(u) = text.parse::<u64>() {
            return Value::from(u);
        }
    }
    float_value(text)
}

/// A float (or, with `arbitrary_precision`, a big int): the digits as
/// written with that feature; otherwise the nearest `f64` by the standard
/// library's correctly rounded reader (serde_json's own reader may be one
/// ulp off without its `float_roundtrip` feature, which we do not force).
#[cfg(feature = "arbitrary_precision")]
fn float_value(text: &str) -> Value {
    match text.parse::<serde_json::Number>() {
        Ok(n) => Value::Number(n),
        Err(_) => Value::String(text.to_string()),
    }
}

#[cfg(not(feature = "arbitrary_precision"))]
fn float_value(text: &str) -> Value {
    match text
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
    {
        Some(n) => Value::Number(n),
        None => Value::String(text.to_string()),
    }
}

/// Converts a checked field value to JSON (the mlist selection is not
/// included: see [`selection_json`]). The value's atoms are moved out, so
/// decoded strings are not copied; a list or tuple keeps its emptied vector
/// (for [`Scratch`] to reuse), a scalar becomes [`FieldValue::Default`].
pub(crate) fn field_json(v: &mut FieldValue<'_>, kind: &Kind, default: Option<&Value>) -> Value {
    match v {
        FieldValue::Default => default.cloned().unwrap_or(Value::Null),
        FieldValue::Atom(_) => match std::mem::replace(v, FieldValue::Default) {
            FieldValue::Atom(a) => atom_to_json(a),
            _ => Value::Null,
        },
        FieldValue::List(items) | FieldValue::MList(items, _) => atoms_json(items),
        FieldValue::Tuple(parts) => {
            let Kind::Tuple(comps) = kind else {
                return Value::Null;
            };
            Value::Object(tuple_json(parts, tuple_template(comps)))
        }
    }
}

/// The components of a tuple, in order, each with a null value (see
/// [`RecordTemplate`]).
fn tuple_template(comps: &[Component]) -> Map<String, Value> {
    comps
        .iter()
        .map(|c| (c.name.clone(), Value::Null))
        .collect()
}

/// A tuple's object: its template (see [`tuple_template`]) with the parts
/// moved in.
fn tuple_json(parts: &mut Vec<Option<Atom<'_>>>, m: Map<String, Value>) -> Map<String, Value> {
    fill_slots(
        m,
        parts.drain(..).map(|p| p.map_or(Value::Null, atom_to_json)),
    )
}

/// A template's keys (a record's or a tuple's) with `values` moved into
/// their slots, in order.
fn fill_slots(
    mut m: Map<String, Value>,
    values: impl Iterator<Item = Value>,
) -> Map<String, Value> {
    for (slot, v) in m.values_mut().zip(values) {
        // a template's slot is null (nothing to drop): no call to drop
        // it per value
        debug_assert!(slot.is_null());
        std::mem::forget(std::mem::replace(slot, v));
    }
    m
}

/// The canonical selection of a marked list.
pub(crate) fn selection_json(s: &Selection) -> Value {
    match s {
        Selection::One(Some(i)) => Value::from(*i),
        Selection::One(None) => Value::Null,
        Selection::Many(v) => Value::Array(v.iter().map(|&i| Value::from(i)).collect()),
    }
}

/// The canonical keys of a contract's records (and of its tuple fields),
/// in order, each with a null value. [`RecordTemplate::record_json`] clones
/// them: a clone copies a key table as it is, so no key is hashed per record
/// (ADR 0018). The contract guarantees the keys are distinct, so a template
/// has exactly one slot per key.
#[derive(Debug, Clone)]
pub(crate) struct RecordTemplate {
    keys: Map<String, Value>,
    /// The components of each field that is a tuple, by field index.
    tuples: Vec<Option<Map<String, Value>>>,
}

impl RecordTemplate {
    /// The template of `contract`'s records.
    pub(crate) fn new(contract: &Contract) -> Self {
        // exactly as many slots as keys: a clone's entries take the
        // capacity of the template's index table (indexmap's `clone_from`),
        // and every record is a clone; with two slots to spare, rubric's
        // six keys took 14 entries, 1,568 bytes a record, past glibc's
        // per-thread cache (ADR 0056)
        let slots = contract
            .fields()
            .iter()
            .map(|f| match f.kind {
                Kind::MList { .. } => 2,
                _ => 1,
            })
            .sum();
        let mut keys = Map::with_capacity(slots);
        let mut tuples = Vec::with_capacity(contract.fields().len());
        for f in contract.fields() {
            match &f.kind {
                Kind::MList {
                    items_key,
                    selected_key,
                    ..
                } => {
                    keys.insert(items_key.clone(), Value::Null);
                    keys.insert(selected_key.clone(), Value::Null);
                }
                _ => {
                    keys.insert(f.name.clone(), Value::Null);
                }
            }
            tuples.push(match &f.kind {
                Kind::Tuple(comps) => Some(tuple_template(comps)),
                _ => None,
            });
        }
        RecordTemplate { keys, tuples }
    }

    /// Builds the canonical JSON object of a valid record of the contract
    /// the template was made from, moving the values' atoms out (see
    /// [`field_json`]).
    pub(crate) fn record_json(
        &self,
        contract: &Contract,
        values: &mut [FieldValue<'_>],
    ) -> Map<String, Value> {
        let mut m = self.keys.clone();
        let mut slots = m.values_mut();
        let mut put = |value: Value| {
            if let Some(slot) = slots.next() {
                *slot = value;
            }
        };
        for ((f, v), tuple) in contract.fields().iter().zip(values).zip(&self.tuples) {
            match (&f.kind, v, tuple) {
                (Kind::MList { .. }, v, _) => {
                    let (items, sel) = match v {
                        FieldValue::MList(items, s) => (atoms_json(items), selection_json(s)),
                        _ => (f.default.clone().unwrap_or(Value::Null), Value::Null),
                    };
                    put(items);
                    put(sel);
                }
                (Kind::Tuple(_), FieldValue::Tuple(parts), Some(t)) => {
                    put(Value::Object(tuple_json(parts, t.clone())));
                }
                (kind, v, _) => put(field_json(v, kind, f.default.as_ref())),
            }
        }
        m
    }
}

/// The canonical record of a line, built as the compiled walk
/// (`check::Walk`) hands its values, step by step: each value goes
/// straight to JSON, in the template's slot order, with no typed record in
/// between (ADR 0034). The values are kept only when the walk accepts the
/// line ([`RecordTemplate::fill`]); otherwise the caller drops them.
pub(crate) struct RecordSink<'b> {
    pub(crate) template: &'b RecordTemplate,
    /// The record's values, one per template slot, in order.
    pub(crate) values: &'b mut Vec<Value>,
    /// The elements of the list being walked (the array it becomes).
    pub(crate) items: Vec<Value>,
    /// The list's marked elements and the tuple's components (buffers
    /// reused across lines).
    pub(crate) marked: &'b mut Vec<usize>,
    pub(crate) parts: &'b mut Vec<Value>,
}

impl<'a> Sink<'a> for RecordSink<'_> {
    const VALUES: bool = true;
    const NUMBERS: bool = !number::ARBITRARY_PRECISION;

    fn absent(&mut self, _i: usize, step: &Step<'_>) {
        self.values
            .push(step.default.cloned().unwrap_or(Value::Null));
        if step.selected_key.is_some() {
            self.values.push(Value::Null);
        }
    }

    // `scalar`, `number`, `element` and `element_number` are pinned in
    // line: the compiler took them out of the walk's loop when other
    // code changed (ADR 0068); `component` and `component_number` are
    // left to it (pinned, the tuple's closure came out instead)
    #[inline(always)]
    fn scalar(&mut self, _i: usize, atom: Atom<'a>) {
        self.values.push(atom_to_json(atom));
    }

    #[inline(always)]
    fn number(&mut self, _i: usize, n: Num) {
        self.values.push(num_to_json(n));
    }

    fn begin_list(&mut self, _i: usize, len: usize) {
        self.items = Vec::with_capacity(len);
        self.marked.clear();
    }

    #[inline(always)]
    fn element(&mut self, atom: Atom<'a>, marked: bool) {
        if marked {
            self.marked.push(self.items.len());
        }
        self.items.push(atom_to_json(atom));
    }

    #[inline(always)]
    fn element_number(&mut self, n: Num, marked: bool) {
        if marked {
            self.marked.push(self.items.len());
        }
        self.items.push(num_to_json(n));
    }

    fn end_list(&mut self, _i: usize, step: &Step<'_>) {
        self.values
            .push(Value::Array(std::mem::take(&mut self.items)));
        if let StepKind::List {
            marker: Some(rule), ..
        } = step.kind
        {
            // the walk kept the rule: the selection is the engine's
            let sel = check_marker(rule, self.marked).map_or(Value::Null, |s| selection_json(&s));
            self.values.push(sel);
        }
    }

    fn component(&mut self, atom: Option<Atom<'a>>) {
        self.parts.push(atom.map_or(Value::Null, atom_to_json));
    }

    fn component_number(&mut self, n: Num) {
        self.parts.push(num_to_json(n));
    }

    fn end_tuple(&mut self, i: usize) {
        let m = self.template.tuples[i].clone().unwrap_or_default();
        self.values
            .push(Value::Object(fill_slots(m, self.parts.drain(..))));
    }
}

impl RecordTemplate {
    /// The record object of the values a [`RecordSink`] built, moved in
    /// (the emptied vector stays for reuse).
    pub(crate) fn fill(&self, values: &mut Vec<Value>) -> Map<String, Value> {
        fill_slots(self.keys.clone(), values.drain(..))
    }
}

#[cfg(test)]
mod tests {
    use super::number_value;
    use serde_json::Value;

    /// The number built for a canonical text is the one serde_json reads
    /// from that text, digit for digit (`arbitrary_precision` compares the
    /// digits), whichever way `number_value` builds it.
    #[test]
    fn number_value_is_what_serde_json_reads() {
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "7",
            "-7",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551615",
            "18446744073709551616",
            "0.5",
            "-1.25",
            "0.1",
            "1.0",
            "-0.0",
            "1e5",
            "1E5",
            "1e+5",
            "1.5e-7",
            "2.5E+300",
            "1e400",
            "123456789012345678901234567890.5",
            "0.30000000000000004",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut rng = crate::test_rng(0x6e75_6d62_6572_7321);
        for _ in 0..20_000 {
            let r = rng();
            texts.push(match r % 4 {
                0 => ((r >> 8) as i64).to_string(),
                1 => (r >> 3).to_string(),
                2 => f64::from_bits(r).to_string(),
                _ => format!("{}", (r >> 40) as f64 / 100.0 - 5000.0),
            });
        }
        // The engine hands over canonical text only: never `-0` (an int's
        // canonical zero is `0`) and never a float beyond f64 (E06).
        for t in texts
            .iter()
            .filter(|t| !t.contains(['N', 'i']) && *t != "-0")
        {
            let Ok(mut want) = serde_json::from_str::<Value>(t) else {
                assert!(!crate::number::is_finite_double(t), "{t}");
                continue;
            };
            // without `arbitrary_precision`, a float is the correctly
            // rounded f64 (serde_json's default reader may be an ulp off)
            if !crate::number::ARBITRARY_PRECISION && want.is_f64() {
                want = Value::from(t.parse::<f64>().unwrap());
            }
            assert_eq!(number_value(t), want, "{t}");
        }
    }
}
