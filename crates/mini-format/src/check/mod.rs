//! Typing and validation: the one engine every path goes through (strict,
//! lenient, streaming, the serializer's verification and the typed serde
//! path). It turns the syntax layer's fields into typed values and reports
//! every SPEC 1.1 violation with its code, line and field.

pub mod number;
mod scalar;

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Value};

pub use scalar::{bound_text, check_atom, Atom, Violation};

use crate::contract::{Arity, Component, Contract, Kind, MarkerRule, Scalar, ScalarType};
use crate::error::{Code, Diagnostic};
use crate::syntax::{self, Element, Line, RawField, SyntaxError};

/// The selection of a marked list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// `exactly_one` / `at_most_one`: an index or none.
    One(Option<usize>),
    /// `at_least_one` / `any`: ascending indices.
    Many(Vec<usize>),
}

/// The typed value of one field of a record.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue<'a> {
    /// An empty optional field, or an absent extension: the field's
    /// `default` (null when it has none).
    Default,
    /// A scalar.
    Atom(Atom<'a>),
    /// A list.
    List(Vec<Atom<'a>>),
    /// A marked list and its selection.
    MList(Vec<Atom<'a>>, Selection),
    /// A tuple; `None` for an empty optional component.
    Tuple(Vec<Option<Atom<'a>>>),
}

/// What the header told: the canonical header object and the facts records
/// are checked against.
#[derive(Debug, Clone, Default)]
pub struct HeaderInfo {
    /// The prefix as written.
    pub prefix: String,
    /// The canonical header (typed keys, unknown keys as strings, defaults).
    pub map: Map<String, Value>,
    /// `n` when present and well typed; `None` when absent or ill-typed
    /// (unknown, never 0).
    pub n: Option<u64>,
    /// Whether `n` appeared in the header at all.
    pub n_present: bool,
    /// The document version (`v`, 1 when absent or ill-typed).
    pub version: u64,
    /// The physical line of the header.
    pub line: usize,
    /// The numeric entries of `map` (`u64` when they fit), cached by
    /// [`check_header`] so that count keys are compared without a lookup
    /// in the map or a parse per record.
    counts: Vec<(String, Option<u64>)>,
}

impl HeaderInfo {
    /// The canonical digits of an int header key used as a count key, if
    /// known (it may be negative or huge: then no list matches it).
    pub fn count(&self, key: &str) -> Option<String> {
        match self.map.get(key) {
            Some(Value::Number(n)) => Some(n.to_string()).filter(|t| number::is_int(t)),
            _ => None,
        }
    }
}

fn diag(code: Code, line: usize, field: &str, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(code, line, Some(field.to_string()), msg)
}

fn syntax_diag(line: usize, field: Option<&str>, e: &SyntaxError) -> Diagnostic {
    Diagnostic::new(Code::E09, line, field.map(str::to_string), e.to_string())
}

/// Reusable buffers for checking records without per-line allocation.
///
/// A scratch kept across the records of a document makes the steady state
/// allocation-free for values without escapes: the field and element
/// buffers, the values of the last record ([`Scratch::values`]) and the
/// vectors of its lists and tuples are all reused.
#[derive(Debug, Default)]
pub struct Scratch<'a> {
    fields: Vec<RawField<'a>>,
    syntax: Vec<SyntaxError>,
    key: String,
    claimed: Vec<usize>,
    values: Vec<FieldValue<'a>>,
    pools: Pools<'a>,
    /// See [`Scratch::check_only`].
    check_only: bool,
}

/// The buffers `check_kind` fills: list elements, marked indices, and
/// recycled vectors for list and tuple values.
#[derive(Debug, Default)]
struct Pools<'a> {
    elements: Vec<Element<'a>>,
    marked: Vec<usize>,
    atoms: Vec<Vec<Atom<'a>>>,
    tuples: Vec<Vec<Option<Atom<'a>>>>,
    cut: bool,
}

/// Empties a vector and gives back its allocation for another lifetime
/// (an in-place collect of nothing: no unsafe code, no new allocation).
fn relife<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().map(|_| unreachable!()).collect()
}

impl<'a> Scratch<'a> {
    /// Empty buffers.
    pub fn new() -> Self {
        Scratch::default()
    }

    /// Empty buffers for checking only, when no value will be read: a
    /// `str` field that is not `unique` is then not unescaped, since its
    /// text needs no typing, and its value holds the raw (escaped) text.
    /// Every check runs as with [`Scratch::new`]; only what
    /// [`Scratch::values`] holds differs. Used by [`crate::validate`].
    pub fn check_only() -> Self {
        Scratch {
            check_only: true,
            ..Scratch::default()
        }
    }

    /// Whether the last record checked looked cut short (too few fields, a
    /// dangling backslash or an unclosed quote): evidence of truncation.
    pub fn looked_cut(&self) -> bool {
        self.pools.cut
    }

    /// The field values of the last record checked by
    /// [`check_record_into`] (valid only when it returned `true`).
    pub fn values(&self) -> &[FieldValue<'a>] {
        &self.values
    }

    /// [`Scratch::values`], mutable: a consumer may take the values out
    /// (the vectors left behind are reused by the next record).
    pub fn values_mut(&mut self) -> &mut [FieldValue<'a>] {
        &mut self.values
    }

    /// The same buffers (emptied) for text of another lifetime: a streaming
    /// reader keeps one scratch across lines that do not outlive each other.
    pub fn recycle<'b>(mut self) -> Scratch<'b> {
        self.recycle_values();
        Scratch {
            fields: relife(self.fields),
            syntax: self.syntax,
            key: self.key,
            claimed: self.claimed,
            values: relife(self.values),
            pools: Pools {
                elements: relife(self.pools.elements),
                marked: self.pools.marked,
                atoms: self.pools.atoms.into_iter().map(relife).collect(),
                tuples: self.pools.tuples.into_iter().map(relife).collect(),
                cut: false,
            },
            check_only: self.check_only,
        }
    }

    /// Moves the vectors of the last record's values back to the pools.
    fn recycle_values(&mut self) {
        for v in self.values.drain(..) {
            match v {
                FieldValue::List(mut a) | FieldValue::MList(mut a, _) => {
                    a.clear();
                    self.pools.atoms.push(a);
                }
                FieldValue::Tuple(mut t) => {
                    t.clear();
                    self.pools.tuples.push(t);
                }
                FieldValue::Default | FieldValue::Atom(_) => {}
            }
        }
    }
}

/// Converts a typed atom to its canonical JSON value (a decoded string is
/// moved into the value, a borrowed one copied).
pub fn atom_to_json(a: Atom<'_>) -> Value {
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

/// Types the elements of a list (drained from `pools.elements`) into a
/// recycled vector; the indices of marked elements go to `pools.marked`.
fn typed_list<'a>(pools: &mut Pools<'a>, item: &Scalar) -> Result<Vec<Atom<'a>>, Violation> {
    let mut atoms = pools.atoms.pop().unwrap_or_default();
    atoms.clear();
    pools.marked.clear();
    for (i, e) in pools.elements.drain(..).enumerate() {
        if e.marked {
            pools.marked.push(i);
        }
        if e.text.is_empty() && item.ty != ScalarType::Str {
            let code = if item.ty == ScalarType::Enum {
                Code::E10
            } else {
                Code::E06
            };
            pools.atoms.push(atoms);
            return Err((code, format!("element {} is empty", i + 1)));
        }
        if item.ty == ScalarType::Str {
            // a str element is its text: nothing to check
            atoms.push(Atom::Str(e.text));
            continue;
        }
        match check_atom(e.text, item, false) {
            Ok(a) => atoms.push(a),
            Err((c, m)) => {
                atoms.clear();
                pools.atoms.push(atoms);
                return Err((c, format!("element {}: {m}", i + 1)));
            }
        }
    }
    Ok(atoms)
}

/// Checks a list's element count against its arity: `min`, `max` and the
/// header's count key (E07).
pub(crate) fn check_arity(n: usize, arity: &Arity, header: &HeaderInfo) -> Result<(), Violation> {
    let n64 = n as u64;
    if let Some(min) = arity.min.filter(|&m| n64 < m) {
        return Err((Code::E07, format!("list has {n} elements, min {min}")));
    }
    if let Some(max) = arity.max.filter(|&m| n64 > m) {
        return Err((Code::E07, format!("list has {n} elements, max {max}")));
    }
    if let Some(key) = &arity.count_key {
        // fast path: a count cached as u64 is compared without text
        let mismatch = match header.counts.iter().find(|(k, _)| k == key) {
            Some((_, Some(k))) => *k != n64,
            _ => header.count(key).is_some_and(|k| k != n.to_string()),
        };
        if mismatch {
            let k = header.count(key).unwrap_or_default();
            return Err((
                Code::E07,
                format!("list has {n} elements but header {key}={k}"),
            ));
        }
    }
    Ok(())
}

fn check_marker(rule: MarkerRule, marked: &[usize]) -> Result<Selection, Violation> {
    let n = marked.len();
    if !rule.allows(n) {
        let msg = match rule {
            MarkerRule::ExactlyOne => format!("exactly one element must carry *, found {n}"),
            MarkerRule::AtLeastOne => "at least one element must carry *".to_string(),
            MarkerRule::AtMostOne | MarkerRule::Any => {
                format!("at most one element may carry *, found {n}")
            }
        };
        return Err((Code::E08, msg));
    }
    Ok(if rule.is_single() {
        Selection::One(marked.first().copied())
    } else {
        Selection::Many(marked.to_vec())
    })
}

/// Where a value is checked: the separator, the header facts (count keys)
/// and whether the value is a header entry.
struct Place<'h> {
    sep: char,
    header: &'h HeaderInfo,
    in_header: bool,
    /// False when a `str` value may stay escaped (see
    /// [`Scratch::check_only`]).
    decode_str: bool,
}

/// Checks the raw text of a field of shape `kind`. Returns the value or
/// `(code, message, component)` (the component names a tuple part).
fn check_kind<'a>(
    raw: &RawField<'a>,
    kind: &Kind,
    optional: bool,
    place: &Place<'_>,
    pools: &mut Pools<'a>,
) -> Result<FieldValue<'a>, (Code, String, Option<String>)> {
    let (sep, header, in_header) = (place.sep, place.header, place.in_header);
    let split = |raw: &'a str, pools: &mut Pools<'a>| {
        syntax::split_list(raw, sep, &mut pools.elements).map_err(|e| {
            if e.kind == syntax::SyntaxErrorKind::UnclosedQuote {
                pools.cut = true;
            }
            (Code::E09, e.to_string(), None)
        })
    };
    let plain = |v: Violation| (v.0, v.1, None);
    match kind {
        Kind::Scalar(s) => {
            if raw.is_empty() {
                if optional {
                    return Ok(FieldValue::Default);
                }
                if in_header && s.ty == ScalarType::Str {
                    return Ok(FieldValue::Atom(Atom::Str(Cow::Borrowed(""))));
                }
                return Err((Code::E06, "required value is empty".to_string(), None));
            }
            if s.ty == ScalarType::Str {
                // the field splitter has already checked every escape
                let text = if place.decode_str {
                    raw.text(sep)
                } else {
                    Cow::Borrowed(raw.raw)
                };
                return Ok(FieldValue::Atom(Atom::Str(text)));
            }
            check_atom(raw.text(sep), s, true)
                .map(FieldValue::Atom)
                .map_err(plain)
        }
        Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
            if raw.is_empty() && optional {
                return Ok(FieldValue::Default);
            }
            split(raw.raw, pools)?;
            check_arity(pools.elements.len(), arity, header).map_err(plain)?;
            let atoms = typed_list(pools, item).map_err(plain)?;
            let result = match kind {
                Kind::MList { marker, .. } => {
                    check_marker(*marker, &pools.marked).map(|sel| FieldValue::MList(atoms, sel))
                }
                _ if in_header => return Ok(FieldValue::List(atoms)),
                _ if !pools.marked.is_empty() => {
                    pools.atoms.push(atoms);
                    return Err((
                        Code::E08,
                        "marker * not allowed in a plain list".to_string(),
                        None,
                    ));
                }
                _ => return Ok(FieldValue::List(atoms)),
            };
            result.map_err(plain)
        }
        Kind::Tuple(comps) => {
            if raw.is_empty() && optional {
                return Ok(FieldValue::Default);
            }
            split(raw.raw, pools)?;
            if pools.elements.len() != comps.len() {
                return Err((
                    Code::E07,
                    format!(
                        "tuple expects {} components, got {}",
                        comps.len(),
                        pools.elements.len()
                    ),
                    None,
                ));
            }
            let mut out = pools.tuples.pop().unwrap_or_default();
            out.clear();
            let mut failure = None;
            for (c, e) in comps.iter().zip(pools.elements.drain(..)) {
                if failure.is_some() {
                    continue;
                }
                if e.marked && !in_header {
                    failure = Some((
                        Code::E08,
                        "marker * not allowed inside a tuple".to_string(),
                        None,
                    ));
                    continue;
                }
                if e.text.is_empty() {
                    if c.optional {
                        out.push(None);
                        continue;
                    }
                    failure = Some((
                        Code::E06,
                        format!("tuple component '{}' is empty", c.name),
                        Some(c.name.clone()),
                    ));
                    continue;
                }
                match check_atom(e.text, &c.scalar, true) {
                    Ok(a) => out.push(Some(a)),
                    Err((code, m)) => failure = Some((code, m, Some(c.name.clone()))),
                }
            }
            match failure {
                None => Ok(FieldValue::Tuple(out)),
                Some(f) => {
                    out.clear();
                    pools.tuples.push(out);
                    Err(f)
                }
            }
        }
    }
}

/// Parses the header line (SPEC 1.1 §5), pushing its errors to `diags`.
pub fn check_header(
    line: Line<'_>,
    contract: &Contract,
    diags: &mut Vec<Diagnostic>,
) -> HeaderInfo {
    let sep = contract.separator();
    let ln = line.number;
    let mut fields = Vec::new();
    let mut syntax_errors = Vec::new();
    syntax::split_fields(line.text, sep, &mut fields, &mut syntax_errors);
    for e in &syntax_errors {
        diags.push(syntax_diag(ln, None, e));
    }
    let prefix = fields
        .first()
        .map(|f| f.text(sep).into_owned())
        .unwrap_or_default();
    let mut info = HeaderInfo {
        prefix,
        line: ln,
        version: 1,
        ..HeaderInfo::default()
    };
    if info.prefix != contract.prefix() {
        diags.push(Diagnostic::new(
            Code::E02,
            ln,
            None,
            format!(
                "header prefix '{}' does not match contract '{}'",
                info.prefix,
                contract.prefix()
            ),
        ));
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut pools = Pools::default();
    for f in fields.iter().skip(1) {
        if f.is_empty() {
            continue;
        }
        let Some((key_raw, value_raw)) = syntax::split_entry(f.raw) else {
            diags.push(Diagnostic::new(
                Code::E12,
                ln,
                None,
                format!("header entry '{}' is not key=value", f.text(sep)),
            ));
            continue;
        };
        let key = syntax::unescape(key_raw, sep);
        if !crate::contract::is_key(&key) {
            // SPEC 1.1 §4: key ::= [A-Za-z_] [A-Za-z0-9_]* — a malformed entry (E12)
            diags.push(diag(
                Code::E12,
                ln,
                &key,
                format!("header key '{key}' is not a valid key ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
            continue;
        }
        if !seen.insert(key.clone()) {
            diags.push(diag(
                Code::E12,
                ln,
                &key,
                format!("header key '{key}' is repeated (the first one counts)"),
            ));
            continue;
        }
        if key == "n" {
            info.n_present = true;
        }
        let value = RawField {
            raw: value_raw,
            escaped: value_raw.contains('\\'),
            offset: 0,
        };
        let Some(hk) = contract.header_key(&key) else {
            info.map
                .insert(key, Value::String(value.text(sep).into_owned()));
            continue;
        };
        let place = Place {
            sep,
            header: &info,
            in_header: true,
            decode_str: true,
        };
        let res = check_kind(&value, &hk.kind, false, &place, &mut pools);
        match res {
            Ok(mut v) => {
                let json = field_json(&mut v, &hk.kind, None);
                if key == "n" {
                    info.n = json.as_u64();
                    if info.n.is_none() {
                        diags.push(diag(Code::E06, ln, "n", "n must be a non-negative int"));
                        continue;
                    }
                }
                if key == "v" {
                    // a positive v beyond u64 is still a later version
                    let t = json.to_string();
                    info.version = match json.as_u64() {
                        Some(0) | None if t.starts_with('-') || t == "0" => 1,
                        Some(v) => v,
                        None => u64::MAX,
                    };
                }
                info.map.insert(key, json);
            }
            Err((code, msg, comp)) => {
                let field = match comp {
                    Some(c) => format!("{key}.{c}"),
                    None => key.clone(),
                };
                diags.push(diag(code, ln, &field, msg));
            }
        }
    }
    for hk in contract.header_keys() {
        if seen.contains(&hk.name) {
            continue;
        }
        if hk.name == "n" {
            diags.push(Diagnostic::new(
                Code::E03,
                ln,
                None,
                "header must declare n=<record count>",
            ));
        } else if hk.required {
            diags.push(diag(
                Code::E12,
                ln,
                &hk.name,
                format!("required header key '{}' missing", hk.name),
            ));
        } else if let Some(d) = &hk.default {
            info.map.insert(hk.name.clone(), d.clone());
        }
    }
    info.counts = info
        .map
        .iter()
        .filter_map(|(k, v)| match v {
            Value::Number(n) => Some((k.clone(), n.as_u64())),
            _ => None,
        })
        .collect();
    info
}

/// Converts a checked field value to JSON (the mlist selection is not
/// included: see [`selection_json`]). The value's atoms are moved out, so
/// decoded strings are not copied; a list or tuple keeps its emptied vector
/// (for [`Scratch`] to reuse), a scalar becomes [`FieldValue::Default`].
pub fn field_json(v: &mut FieldValue<'_>, kind: &Kind, default: Option<&Value>) -> Value {
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
fn tuple_json(parts: &mut Vec<Option<Atom<'_>>>, mut m: Map<String, Value>) -> Map<String, Value> {
    for (slot, p) in m.values_mut().zip(parts.drain(..)) {
        *slot = p.map_or(Value::Null, atom_to_json);
    }
    m
}

/// The canonical selection of a marked list.
pub fn selection_json(s: &Selection) -> Value {
    match s {
        Selection::One(Some(i)) => Value::from(*i),
        Selection::One(None) => Value::Null,
        Selection::Many(v) => Value::Array(v.iter().map(|&i| Value::from(i)).collect()),
    }
}

/// Tracks the values of `unique` fields claimed by accepted records.
///
/// Each unique field keeps its claimed keys back to back in one arena
/// `String`, indexed by a SwissTable of spans hashed with foldhash (seeded
/// per process, so the table stays minimally resistant to crafted
/// collisions): one hash and no allocation per claimed value, instead of a
/// SipHash and a `Box<str>` each (ADR 0008).
#[derive(Debug, Default)]
pub struct Uniques {
    seen: Vec<KeySet>,
}

/// The claimed keys of one field.
#[derive(Debug, Default)]
struct KeySet {
    arena: String,
    table: hashbrown::HashTable<(usize, usize)>,
    hasher: foldhash::fast::RandomState,
}

impl KeySet {
    fn hash(&self, key: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, key)
    }

    fn contains(&self, key: &str) -> bool {
        let arena = &self.arena;
        self.table
            .find(self.hash(key), |&(at, len)| &arena[at..at + len] == key)
            .is_some()
    }

    /// Claims `key` (the caller checked it is not there).
    fn insert(&mut self, key: &str) {
        let hash = self.hash(key);
        let at = self.arena.len();
        self.arena.push_str(key);
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.table.insert_unique(hash, (at, key.len()), |&(a, l)| {
            std::hash::BuildHasher::hash_one(hasher, &arena[a..a + l])
        });
    }

    /// Gives back a key claimed by the record being rejected (the last
    /// claims, so the arena is cut back when the key is at its end).
    fn remove(&mut self, key: &str) {
        let hash = self.hash(key);
        let arena = &self.arena;
        if let Ok(entry) = self
            .table
            .find_entry(hash, |&(at, len)| &arena[at..at + len] == key)
        {
            let ((at, len), _) = entry.remove();
            if at + len == self.arena.len() {
                self.arena.truncate(at);
            }
        }
    }
}

impl Uniques {
    /// Tracking for a contract.
    pub fn new(contract: &Contract) -> Uniques {
        Uniques {
            seen: contract
                .fields()
                .iter()
                .map(|_| KeySet::default())
                .collect(),
        }
    }

    /// Claims `key` for field `i` when no accepted record holds it; false
    /// (nothing claimed) when one does.
    pub(crate) fn claim(&mut self, i: usize, key: &str) -> bool {
        let Some(set) = self.seen.get_mut(i) else {
            return false;
        };
        if set.contains(key) {
            return false;
        }
        set.insert(key);
        true
    }

    /// Makes room for the values of `records` records (capped, since the
    /// count comes from the input), so that the sets do not grow step by
    /// step. Only the sets of `unique` fields are touched.
    pub fn reserve(&mut self, contract: &Contract, records: u64) {
        let n = usize::try_from(records.min(1 << 16)).unwrap_or(0);
        for (set, f) in self.seen.iter_mut().zip(contract.fields()) {
            if f.unique {
                let (arena, hasher) = (&set.arena, &set.hasher);
                set.table.reserve(n, |&(a, l)| {
                    std::hash::BuildHasher::hash_one(hasher, &arena[a..a + l])
                });
                set.arena.reserve(n.saturating_mul(8));
            }
        }
    }
}

fn unique_key(v: &FieldValue<'_>, out: &mut String) -> bool {
    out.clear();
    match v {
        FieldValue::Default => return false,
        FieldValue::Atom(a) => a.unique_key(out),
        FieldValue::List(items) | FieldValue::MList(items, _) => {
            out.push('[');
            for a in items {
                a.unique_key(out);
                out.push('\u{0}');
            }
            if let FieldValue::MList(_, s) = v {
                out.push_str(&format!("{s:?}"));
            }
        }
        FieldValue::Tuple(parts) => {
            out.push('(');
            for p in parts {
                match p {
                    Some(a) => a.unique_key(out),
                    None => out.push('~'),
                }
                out.push('\u{0}');
            }
        }
    }
    true
}

/// The outcome of checking one record line.
#[derive(Debug)]
pub enum RecordOutcome<'a> {
    /// The record is valid; its field values, in contract order (absent
    /// extensions are [`FieldValue::Default`]).
    Valid(Vec<FieldValue<'a>>),
    /// The record is invalid; its errors were pushed.
    Invalid,
}

/// Checks one record line against the contract and the header, pushing every
/// error found (at most one per field, plus E11). A valid record claims its
/// unique values.
pub fn check_record<'a>(
    line: Line<'a>,
    contract: &Contract,
    header: &HeaderInfo,
    uniques: &mut Uniques,
    scratch: &mut Scratch<'a>,
    diags: &mut Vec<Diagnostic>,
) -> RecordOutcome<'a> {
    if check_record_into(line, contract, header, uniques, scratch, diags) {
        RecordOutcome::Valid(std::mem::take(&mut scratch.values))
    } else {
        RecordOutcome::Invalid
    }
}

/// [`check_record`] without handing the values out: they stay in
/// [`Scratch::values`] (until the next record), so that a caller that
/// keeps one scratch across records allocates nothing per record. Returns
/// whether the record is valid. The same engine: [`check_record`] is this
/// function plus a move.
pub fn check_record_into<'a>(
    line: Line<'a>,
    contract: &Contract,
    header: &HeaderInfo,
    uniques: &mut Uniques,
    scratch: &mut Scratch<'a>,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let sep = contract.separator();
    let ln = line.number;
    scratch.recycle_values();
    scratch.syntax.clear();
    scratch.pools.cut = false;
    syntax::split_fields(line.text, sep, &mut scratch.fields, &mut scratch.syntax);
    if let Some(e) = scratch.syntax.first() {
        scratch.pools.cut = scratch
            .syntax
            .iter()
            .any(|e| e.kind == syntax::SyntaxErrorKind::DanglingBackslash);
        let more = scratch.syntax.len() - 1;
        let mut d = syntax_diag(ln, None, e);
        if more > 0 {
            d = Diagnostic::new(
                Code::E09,
                ln,
                None,
                format!("{e} (and {more} more escape error(s))"),
            );
        }
        diags.push(d);
        return false;
    }
    let fields = contract.fields();
    let core = contract.core().len();
    let nf = scratch.fields.len();
    if nf < core {
        scratch.pools.cut = true;
        diags.push(Diagnostic::new(
            Code::E05,
            ln,
            None,
            format!("record has {nf} fields, core requires {core}"),
        ));
        return false;
    }
    if nf > fields.len() && header.version <= contract.version() {
        diags.push(Diagnostic::new(
            Code::E05,
            ln,
            None,
            format!(
                "record has {nf} fields, contract allows at most {} (header v={} does not declare a later version)",
                fields.len(),
                header.version
            ),
        ));
        return false;
    }
    let before = diags.len();
    let values = &mut scratch.values;
    for (i, f) in fields.iter().enumerate() {
        let Some(raw) = scratch.fields.get(i) else {
            values.push(FieldValue::Default);
            continue;
        };
        let place = Place {
            sep,
            header,
            in_header: false,
            decode_str: !scratch.check_only || f.unique,
        };
        match check_kind(raw, &f.kind, f.optional, &place, &mut scratch.pools) {
            Ok(v) => values.push(v),
            Err((code, msg, comp)) => {
                let name = match comp {
                    Some(c) => format!("{}.{c}", f.name),
                    None => f.name.clone(),
                };
                diags.push(diag(code, ln, &name, msg));
                values.push(FieldValue::Default);
            }
        }
    }
    // Claim the unique values of a valid record: one hash per value. A
    // clash gives back what this record claimed before it, so that a
    // rejected record claims nothing; an invalid record is still checked
    // for clashes (E11 is reported with its other errors).
    let invalid = diags.len() > before;
    let mut clashes = false;
    scratch.claimed.clear();
    for (i, f) in fields.iter().enumerate() {
        if !f.unique || !unique_key(&values[i], &mut scratch.key) {
            continue;
        }
        if uniques.seen[i].contains(scratch.key.as_str()) {
            clashes = true;
            diags.push(diag(
                Code::E11,
                ln,
                &f.name,
                format!("duplicate value in unique field '{}'", f.name),
            ));
        } else if !invalid && !clashes {
            uniques.seen[i].insert(&scratch.key);
            scratch.claimed.push(i);
        }
    }
    if clashes {
        for &i in &scratch.claimed {
            if unique_key(&values[i], &mut scratch.key) {
                uniques.seen[i].remove(scratch.key.as_str());
            }
        }
    }
    if clashes || invalid {
        return false;
    }
    true
}

/// The document-level checks once every line is read: E01 without a header
/// line, E04 when a known `n` differs from the number of record lines.
pub fn document_errors(header: Option<&HeaderInfo>, record_lines: usize) -> Option<Diagnostic> {
    let Some(h) = header else {
        return Some(Diagnostic::new(
            Code::E01,
            0,
            None,
            "empty document: header missing",
        ));
    };
    let n = h.n?;
    (n != record_lines as u64).then(|| {
        Diagnostic::new(
            Code::E04,
            0,
            None,
            format!("header declares n={n} but document has {record_lines} record lines"),
        )
    })
}

/// The canonical keys of a contract's records (and of its tuple fields),
/// in order, each with a null value. [`RecordTemplate::record_json`] clones
/// them: a clone copies a key table as it is, so no key is hashed per record
/// (ADR 0018). The contract guarantees the keys are distinct, so a template
/// has exactly one slot per key.
#[derive(Debug, Clone)]
pub struct RecordTemplate {
    keys: Map<String, Value>,
    /// The components of each field that is a tuple, by field index.
    tuples: Vec<Option<Map<String, Value>>>,
}

impl RecordTemplate {
    /// The template of `contract`'s records.
    pub fn new(contract: &Contract) -> Self {
        let mut keys = Map::with_capacity(contract.fields().len() + 2);
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
    pub fn record_json(
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
                assert!(!crate::check::number::is_finite_double(t), "{t}");
                continue;
            };
            // without `arbitrary_precision`, a float is the correctly
            // rounded f64 (serde_json's default reader may be an ulp off)
            if !crate::ARBITRARY_PRECISION && want.is_f64() {
                want = Value::from(t.parse::<f64>().unwrap());
            }
            assert_eq!(number_value(t), want, "{t}");
        }
    }
}
