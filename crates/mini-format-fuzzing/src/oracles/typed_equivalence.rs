//! `typed_equivalence`: the consumers of the engine agree on every
//! document, valid or not — the dynamic value (`mini::parse`), the typed
//! serde Deserializer (`mini::from_str_with_contract`, and the same
//! Deserializer driven through the entry points a derived type uses) and
//! validation (`mini::check`).

use crate::*;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, OnceLock};

use arbitrary::{Arbitrary, Unstructured};
use serde::de::{self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use serde_json::{Map, Number, Value};

use mini::contract::{Component, Contract, Field, Kind, Scalar, ScalarType};
use mini::Code;

// ---------------------------------------------------------------------------
// the input: a generated contract, a valid document, edits that garble it
// ---------------------------------------------------------------------------

/// The input of [`typed_equivalence`]: a generated contract (as in
/// `canonical_roundtrip`), edits applied in order to the text `dumps`
/// writes for a valid object drawn from `values` (no edit: the document
/// stays valid).
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct EquivalenceInput {
    /// The contract.
    pub contract: ContractSpec,
    /// What is done to the valid text (at most [`SEQ_MAX`] edits).
    pub edits: Seq<Edit>,
    /// Where the valid object's values come from.
    pub values: Entropy,
}

impl Encode for EquivalenceInput {
    fn encode(&self, w: &mut SeedWriter) {
        self.contract.encode(w);
        self.edits.encode(w);
        self.values.encode(w);
    }
}

/// One edit of a document's text. Lines, fields and elements are picked
/// modulo how many there are (an edit on a text without them does
/// nothing); byte positions are moved down to a character boundary.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub enum Edit {
    /// Keeps the first `at % (len + 1)` bytes: a truncated answer (a line
    /// cut in a field, an escape or a quoted element, or lines missing).
    Cut(u16),
    /// Keeps the fields of a line before field `keep` (too few fields).
    ShortLine {
        /// The line.
        line: u8,
        /// Fields kept.
        keep: u8,
    },
    /// Removes a line (a record or the header missing).
    DropLine(u8),
    /// Writes a line twice (a duplicate `unique` value, one record too
    /// many, a second header).
    RepeatLine(u8),
    /// Exchanges two lines (the header after a record).
    SwapLines(u8, u8),
    /// Replaces a field with one of [`TOKENS`] (a wrong type, a value out
    /// of range or outside the enumeration, a bad date, an int beyond 64
    /// bits, a non-finite float, a bad escape, an unclosed quote, a header
    /// entry).
    Token {
        /// The line.
        line: u8,
        /// The field.
        field: u8,
        /// Index into [`TOKENS`].
        token: u8,
    },
    /// Replaces a field with a fuzzed text.
    Field {
        /// The line.
        line: u8,
        /// The field.
        field: u8,
        /// The new text.
        text: Text,
    },
    /// Adds a field at the end of a line (an undeclared field, an
    /// extension, a header entry).
    ExtraField {
        /// The line.
        line: u8,
        /// The field's text.
        text: Text,
    },
    /// Inserts a fuzzed text at a byte.
    Insert {
        /// Where (modulo the length + 1).
        at: u16,
        /// What.
        text: Text,
    },
    /// Inserts `\` followed by a character of [`ESCAPED`] at a byte (bad
    /// and good escapes, a trailing backslash).
    Escape {
        /// Where (modulo the length + 1).
        at: u16,
        /// Index into [`ESCAPED`].
        c: u8,
    },
    /// An element of a field split at the contract's separator: `op % 3`
    /// is 0 to add or remove its marker `*`, 1 to remove it, 2 to write
    /// it twice (marker rules, arity, count keys, `unique` lists).
    Element {
        /// The line.
        line: u8,
        /// The field.
        field: u8,
        /// The element.
        elem: u8,
        /// The operation.
        op: u8,
    },
    /// Changes the header's `n`: `x % 8` is 0 to remove it, 1 to write
    /// `n=x`, 2 to write `n=-1`, 3 to repeat it; otherwise `n=x / 8 % 8`.
    SetN(u8),
}

const EDIT_VARIANTS: u32 = 12;

impl Encode for Edit {
    fn encode(&self, w: &mut SeedWriter) {
        let n = EDIT_VARIANTS;
        match self {
            Edit::Cut(at) => {
                w.variant(0, n).u16(*at);
            }
            Edit::ShortLine { line, keep } => {
                w.variant(1, n).u8(*line).u8(*keep);
            }
            Edit::DropLine(l) => {
                w.variant(2, n).u8(*l);
            }
            Edit::RepeatLine(l) => {
                w.variant(3, n).u8(*l);
            }
            Edit::SwapLines(a, b) => {
                w.variant(4, n).u8(*a).u8(*b);
            }
            Edit::Token { line, field, token } => {
                w.variant(5, n).u8(*line).u8(*field).u8(*token);
            }
            Edit::Field { line, field, text } => {
                w.variant(6, n).u8(*line).u8(*field);
                text.encode(w);
            }
            Edit::ExtraField { line, text } => {
                w.variant(7, n).u8(*line);
                text.encode(w);
            }
            Edit::Insert { at, text } => {
                w.variant(8, n).u16(*at);
                text.encode(w);
            }
            Edit::Escape { at, c } => {
                w.variant(9, n).u16(*at).u8(*c);
            }
            Edit::Element {
                line,
                field,
                elem,
                op,
            } => {
                w.variant(10, n).u8(*line).u8(*field).u8(*elem).u8(*op);
            }
            Edit::SetN(x) => {
                w.variant(11, n).u8(*x);
            }
        }
    }
}

/// What [`Edit::Token`] writes into a field.
pub const TOKENS: [&str; 40] = [
    "",
    "x",
    "-",
    "0",
    "-0",
    "-0.0",
    "00",
    "-1",
    "1.5",
    "1.",
    ".5",
    "1e3",
    "1e400",
    "-1e-400",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551616",
    "123456789012345678901234567890",
    "true",
    "false",
    "yes",
    "2024-02-29",
    "2023-02-29",
    "2024-13-01",
    "0001-01-01",
    "12.50",
    "-0.00",
    "a,b",
    "a*,b*",
    "*",
    "a;b;c;d;e;f;g;h",
    "\"open",
    "\"q\"\"x\"*",
    "x\\",
    "\\q",
    "A",
    "n=3",
    "k=2",
    "v=2",
];

/// The characters [`Edit::Escape`] puts after a backslash: the escapes of
/// SPEC 1.1 and some that are not.
pub const ESCAPED: [char; 12] = ['|', ',', ';', '*', '\\', '"', 'n', 't', 'q', ' ', '\t', '·'];

/// The largest index at or below `at` that is a character boundary of `s`.
fn boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Byte ranges of the parts of `s` separated by `sep` where it is not
/// escaped by a backslash (the split need not be the parser's: it only
/// chooses what to garble).
fn parts(s: &str, sep: char) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == sep {
            out.push((start, i));
            start = i + c.len_utf8();
        }
    }
    out.push((start, s.len()));
    out
}

fn pick(n: usize, i: u8) -> usize {
    usize::from(i) % n
}

/// Applies one edit to `text` (lines split at LF; `sep` is the contract's
/// list separator).
pub fn apply_edit(text: &mut String, edit: &Edit, sep: char) {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let nl = lines.len();
    let field_range = |line: &str, f: u8| {
        let p = parts(line, '|');
        p[pick(p.len(), f)]
    };
    match edit {
        Edit::Cut(at) => {
            let at = boundary(text, usize::from(*at) % (text.len() + 1));
            text.truncate(at);
            return;
        }
        Edit::Insert { at, text: t } => {
            let at = boundary(text, usize::from(*at) % (text.len() + 1));
            text.insert_str(at, &t.string());
            return;
        }
        Edit::Escape { at, c } => {
            let at = boundary(text, usize::from(*at) % (text.len() + 1));
            let e = format!("\\{}", ESCAPED[usize::from(*c) % ESCAPED.len()]);
            text.insert_str(at, &e);
            return;
        }
        Edit::ShortLine { line, keep } => {
            let l = &mut lines[pick(nl, *line)];
            let p = parts(l, '|');
            let keep = pick(p.len(), *keep);
            let end = if keep == 0 { 0 } else { p[keep - 1].1 };
            l.truncate(end);
        }
        Edit::DropLine(i) => {
            lines.remove(pick(nl, *i));
        }
        Edit::RepeatLine(i) => {
            let i = pick(nl, *i);
            let l = lines[i].clone();
            lines.insert(i, l);
        }
        Edit::SwapLines(a, b) => lines.swap(pick(nl, *a), pick(nl, *b)),
        Edit::Token { line, field, token } => {
            let l = &mut lines[pick(nl, *line)];
            let (a, b) = field_range(l, *field);
            l.replace_range(a..b, TOKENS[usize::from(*token) % TOKENS.len()]);
        }
        Edit::Field {
            line,
            field,
            text: t,
        } => {
            let l = &mut lines[pick(nl, *line)];
            let (a, b) = field_range(l, *field);
            l.replace_range(a..b, &t.string());
        }
        Edit::ExtraField { line, text: t } => {
            let l = &mut lines[pick(nl, *line)];
            l.push('|');
            l.push_str(&t.string());
        }
        Edit::Element {
            line,
            field,
            elem,
            op,
        } => {
            let l = &mut lines[pick(nl, *line)];
            let (a, b) = field_range(l, *field);
            let els = parts(&l[a..b], sep);
            let (x, y) = els[pick(els.len(), *elem)];
            let (x, y) = (a + x, a + y);
            match op % 3 {
                0 => {
                    let e = &l[x..y];
                    if e.ends_with('*') && !e.ends_with("\\*") {
                        l.remove(y - 1);
                    } else {
                        l.insert(y, '*');
                    }
                }
                1 => {
                    // the element and one separator next to it
                    let sl = sep.len_utf8();
                    let (x, y) = if y < b {
                        (x, y + sl)
                    } else if x > a {
                        (x - sl, y)
                    } else {
                        (x, y)
                    };
                    l.replace_range(x..y, "");
                }
                _ => {
                    let e = format!("{}{sep}", &l[x..y]);
                    l.insert_str(x, &e);
                }
            }
        }
        Edit::SetN(x) => {
            let l = &mut lines[0];
            let p = parts(l, '|');
            let n = p.iter().copied().find(|&(a, b)| l[a..b].starts_with("n="));
            let Some((a, b)) = n else {
                l.push_str(&format!("|n={}", x / 8 % 8));
                *text = lines.join("\n");
                return;
            };
            match x % 8 {
                0 => l.replace_range(a.saturating_sub(1)..b, ""),
                1 => l.replace_range(a..b, "n=x"),
                2 => l.replace_range(a..b, "n=-1"),
                3 => {
                    let entry = format!("|{}", &l[a..b]);
                    l.push_str(&entry);
                }
                _ => l.replace_range(a..b, &format!("n={}", x / 8 % 8)),
            }
        }
    }
    *text = lines.join("\n");
}

/// The contract and the document of an input: the valid text `dumps`
/// writes for an object drawn as in `canonical_roundtrip` (or the header
/// alone when `dumps` refuses it, a documented rejection), then the edits.
pub fn equivalence_document(input: &EquivalenceInput) -> (Contract, String) {
    let mut g = Gen {
        u: Unstructured::new(&input.values.0),
    };
    let b = build(&input.contract, &mut g);
    let drawn = draw_object(&b, &mut g);
    let c = b.contract;
    let mut text = mini::dumps(&drawn.obj, &c).unwrap_or_else(|_| format!("{}|n=0", c.prefix()));
    for e in &input.edits.0 {
        apply_edit(&mut text, e, c.separator());
    }
    (c, text)
}

/// The dynamic path, the typed Deserializer (twice) and validation agree on
/// a generated contract and a document made from a valid one by
/// [`Edit`]s: see [`typed_equivalence_text`].
pub fn typed_equivalence(input: &EquivalenceInput) {
    let (c, text) = equivalence_document(input);
    typed_equivalence_text(&text, &c);
}

// ---------------------------------------------------------------------------
// the property
// ---------------------------------------------------------------------------

/// One diagnostic as the three consumers must agree on it: code, line,
/// field, message (the serde path is the typed path's own addition).
pub type Diag = (Code, usize, Option<String>, String);

/// What one consumer said about a document.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Accepted, with the value read (validation reads none: `null`).
    Accepted(Value),
    /// Rejected with these diagnostics, in order.
    Rejected(Vec<Diag>),
    /// Failed without diagnostics (a limit, invalid UTF-8): the error's
    /// text.
    Failed(String),
}

impl Verdict {
    fn of<T>(r: mini::Result<T>, value: impl FnOnce(T) -> Value) -> Verdict {
        match r {
            Ok(v) => Verdict::Accepted(value(v)),
            Err(e) if e.diagnostics().is_empty() => Verdict::Failed(e.to_string()),
            Err(e) => Verdict::Rejected(
                e.diagnostics()
                    .iter()
                    .map(|d| {
                        (
                            d.code(),
                            d.line(),
                            d.field().map(str::to_string),
                            d.message().to_string(),
                        )
                    })
                    .collect(),
            ),
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Accepted(v) => write!(f, "accepted: {v}"),
            Verdict::Failed(m) => write!(f, "failed: {m}"),
            Verdict::Rejected(ds) => {
                write!(f, "rejected:")?;
                for (code, line, field, message) in ds {
                    write!(f, "\n    {code} line {line}")?;
                    if let Some(field) = field {
                        write!(f, " [{field}]")?;
                    }
                    write!(f, ": {message}")?;
                }
                Ok(())
            }
        }
    }
}

/// The dynamic path: `mini::parse` and the canonical object.
pub fn dynamic_verdict(text: &str, c: &Contract) -> Verdict {
    Verdict::of(mini::parse(text, c), |d| d.into_canonical())
}

/// The typed path into a value-shaped type:
/// `mini::from_str_with_contract::<serde_json::Value>` (every value through
/// `deserialize_any`).
pub fn typed_verdict(text: &str, c: &Contract) -> Verdict {
    Verdict::of(mini::from_str_with_contract::<Value>(text, c), |v| v)
}

/// The typed path through the entry points a derived type uses, chosen
/// from the contract ([`DocSeed`]): `deserialize_struct` (records read
/// positionally when every value is present), `deserialize_option`,
/// `deserialize_i128`, `deserialize_f64`, `deserialize_bool`,
/// `deserialize_str`/`string`, `deserialize_enum`, `deserialize_seq`,
/// `deserialize_map`, `deserialize_u64`. It builds the same value-shaped
/// JSON as `serde_json::Value` would.
pub fn shaped_verdict(text: &str, c: &Contract) -> Verdict {
    let mut de = mini::Deserializer::new(text, c);
    let v = DocSeed(c).deserialize(&mut de);
    Verdict::of(de.end(v), |v| v)
}

/// Validation: `mini::check`.
pub fn validation_verdict(text: &str, c: &Contract) -> Verdict {
    Verdict::of(mini::check(text, c), |()| Value::Null)
}

/// `v` without the object entries whose value is `null`, at every depth.
///
/// Why: the typed reading leaves an absent value out of its map (an empty
/// optional field without default, an absent extension or tuple
/// component, a `null` selection) so that serde applies `None` or
/// `#[serde(default)]`, while the canonical object writes the key with
/// `null`; and an empty optional header value is an explicit `null` on
/// both. For a value-shaped type a missing key and a `null` are the same
/// canonical value (`mini::value::equivalent` says so too). Nothing else
/// is normalised: numbers are compared as serde_json writes them (an int
/// is not a float, `-0.0` is not `0.0`), keys in their order.
pub fn without_nulls(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k.clone(), without_nulls(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// `v` with every float `-0.0` written `0.0`: only when
/// `MINI_FUZZ_TOLERATE` names `negative-zero-float` (see
/// [`KNOWN_FINDINGS`]), to explore past that finding.
fn unsigned_zeros(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.as_f64() == Some(0.0) && n.is_f64() => Value::from(0.0),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), unsigned_zeros(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(unsigned_zeros).collect()),
        other => other.clone(),
    }
}

/// `v` with every float read as the nearest `f64`: only in a build with
/// `arbitrary_precision` (as `cargo test --workspace`, where the `mini`
/// binary turns it on: ADR 0019), in which the canonical object keeps a
/// float's digits while the typed path goes through `f64`, a legitimate
/// difference. Ints are left exact, so a big int must still agree digit
/// for digit.
fn floats_as_f64(v: &Value) -> Value {
    match v {
        Value::Number(n) if n.to_string().contains(['.', 'e', 'E']) => {
            n.as_f64().map_or_else(|| v.clone(), Value::from)
        }
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), floats_as_f64(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(floats_as_f64).collect()),
        other => other.clone(),
    }
}

/// Whether two verdicts are the same: the same value (after
/// [`without_nulls`], written by serde_json, so key order and number
/// spelling count), or the same diagnostics in the same order, or the same
/// failure.
fn same(a: &Verdict, b: &Verdict) -> bool {
    match (a, b) {
        (Verdict::Accepted(x), Verdict::Accepted(y)) => {
            let zero = tolerated("negative-zero-float");
            let write = |v: &Value| {
                let v = without_nulls(v);
                let v = if zero { unsigned_zeros(&v) } else { v };
                let v = if mini::ARBITRARY_PRECISION {
                    floats_as_f64(&v)
                } else {
                    v
                };
                serde_json::to_string(&v).ok()
            };
            write(x).is_some() && write(x) == write(y)
        }
        _ => a == b,
    }
}

/// The first position at which two diagnostic lists differ, for the
/// failure message.
fn first_difference(a: &Verdict, b: &Verdict) -> String {
    match (a, b) {
        (Verdict::Rejected(x), Verdict::Rejected(y)) => {
            match (0..x.len().max(y.len())).find(|&i| x.get(i) != y.get(i)) {
                Some(i) => format!(
                    "\nfirst difference at diagnostic {i}: {:?} vs {:?}",
                    x.get(i),
                    y.get(i)
                ),
                None => String::new(),
            }
        }
        (Verdict::Accepted(x), Verdict::Accepted(y)) => format!(
            "\ncompared (nulls dropped):\n  {}\nvs\n  {}",
            without_nulls(x),
            without_nulls(y)
        ),
        _ => String::new(),
    }
}

/// Asserts that each consumer's verdict is the dynamic path's: the typed
/// ones give its canonical object (see [`without_nulls`]) or exactly its
/// diagnostics, validation accepts exactly when it does and otherwise
/// gives exactly its diagnostics.
pub fn agree(
    text: &str,
    c: &Contract,
    dynamic: &Verdict,
    typed: &Verdict,
    shaped: &Verdict,
    validation: &Verdict,
) {
    let checked = match dynamic {
        Verdict::Accepted(_) => Verdict::Accepted(Value::Null),
        other => other.clone(),
    };
    let sides = [
        ("from_str_with_contract::<Value>", typed, dynamic),
        ("the typed entry points (DocSeed)", shaped, dynamic),
        ("check", validation, &checked),
    ];
    for (what, got, want) in sides {
        if !same(got, want) {
            fail(format!(
                "{what} disagrees with parse\ncontract: {}\ntext: {text:?}\nparse: {dynamic}\n{what}: {got}{}",
                c.to_value(),
                first_difference(want, got)
            ));
        }
    }
}

/// The dynamic path (`mini::parse`), the typed Deserializer
/// (`mini::from_str_with_contract::<serde_json::Value>`, and the same
/// Deserializer through the entry points a derived type uses,
/// [`shaped_verdict`]) and validation (`mini::check`) agree on `text`:
///
/// 1. the typed paths accept exactly when `parse` does, with its canonical
///    object (object entries whose value is `null` dropped on both sides:
///    see [`without_nulls`]; nothing else normalised), and otherwise
///    report exactly its diagnostics: same order, code, line, field and
///    message (the E05 truncation note on the last line included: all
///    three read the whole document);
/// 2. `check` is `Ok` exactly when `parse` is, and otherwise reports
///    exactly its diagnostics.
///
/// With `serde_json::Value` as the target no typed-only error (E13, a
/// value out of range for a Rust type) can occur: an int beyond
/// `i64`/`u64` is already E06 in `parse` without `arbitrary_precision`,
/// floats are finite, and the entry points of [`shaped_verdict`] take every
/// 64-bit int (`deserialize_i128`). (This crate is built without
/// `arbitrary_precision` on its own; in a workspace build the `mini`
/// binary turns it on, the canonical object then keeps a float's digits
/// while the typed path goes through `f64`, and floats are compared as
/// `f64`: see `floats_as_f64`.) The inputs are
/// far below the default limits, under which `parse` and the typed path
/// read (`check` has none).
pub fn typed_equivalence_text(text: &str, c: &Contract) {
    agree(
        text,
        c,
        &dynamic_verdict(text, c),
        &typed_verdict(text, c),
        &shaped_verdict(text, c),
        &validation_verdict(text, c),
    );
}

// ---------------------------------------------------------------------------
// the typed entry points, driven by the contract
// ---------------------------------------------------------------------------

/// Most names [`intern`] keeps (a long run meets many generated
/// contracts; past this, records and tuples are read as maps and enums as
/// strings).
const INTERNED_MAX: usize = 1 << 16;

/// A `'static` list of names (serde's `deserialize_struct` and
/// `deserialize_enum` take `&'static [&'static str]`), leaked once per
/// distinct list; `None` once [`INTERNED_MAX`] names are kept.
fn intern<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'static [&'static str]> {
    type Lists = HashMap<Vec<String>, &'static [&'static str]>;
    static LISTS: OnceLock<Mutex<(Lists, usize)>> = OnceLock::new();
    let names: Vec<String> = names.map(str::to_string).collect();
    let mut lists = LISTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(l) = lists.0.get(&names) {
        return Some(l);
    }
    if lists.1 + names.len() > INTERNED_MAX {
        return None;
    }
    lists.1 += names.len();
    let leaked: Vec<&'static str> = names
        .iter()
        .map(|n| &*Box::leak(n.clone().into_boxed_str()))
        .collect();
    let leaked: &'static [&'static str] = Box::leak(leaked.into_boxed_slice());
    lists.0.insert(names, leaked);
    Some(leaked)
}

/// The canonical keys of a record, in order.
fn record_keys(c: &Contract) -> Vec<&str> {
    let mut keys = Vec::new();
    for f in c.fields() {
        match &f.kind {
            Kind::MList {
                items_key,
                selected_key,
                ..
            } => {
                keys.push(items_key.as_str());
                keys.push(selected_key.as_str());
            }
            _ => keys.push(f.name.as_str()),
        }
    }
    keys
}

/// Which part of a field a canonical key is.
#[derive(Clone, Copy)]
enum Part {
    Whole,
    Items,
    Selection,
}

/// The field and part of a canonical record key.
fn record_key<'c>(c: &'c Contract, key: &str) -> Option<(&'c Field, Part)> {
    c.fields().iter().find_map(|f| match &f.kind {
        Kind::MList {
            items_key,
            selected_key,
            ..
        } => {
            if items_key == key {
                Some((f, Part::Items))
            } else if selected_key == key {
                Some((f, Part::Selection))
            } else {
                None
            }
        }
        _ => (f.name == key).then_some((f, Part::Whole)),
    })
}

fn unexpected<E: de::Error>(what: impl fmt::Display) -> E {
    E::custom(format!("typed_equivalence: unexpected {what}"))
}

/// Builds a `serde_json::Value` from whatever the deserializer visits (as
/// serde_json's own visitor: an int in `i64` or `u64` as that int, a
/// finite float as a float).
struct AnyValue;

impl<'de> Visitor<'de> for AnyValue {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        if let Ok(i) = i64::try_from(v) {
            Ok(Value::from(i))
        } else if let Ok(u) = u64::try_from(v) {
            Ok(Value::from(u))
        } else {
            // only with `arbitrary_precision`, which keeps the digits
            v.to_string()
                .parse::<Number>()
                .map(Value::Number)
                .map_err(|_| unexpected(format_args!("int {v}")))
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        match u64::try_from(v) {
            Ok(u) => Ok(Value::from(u)),
            Err(_) => v
                .to_string()
                .parse::<Number>()
                .map(Value::Number)
                .map_err(|_| unexpected(format_args!("int {v}"))),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| unexpected(format_args!("float {v}")))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(AnyValue)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(AnySeed)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = map.next_value_seed(AnySeed)?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (name, variant) = data.variant::<String>()?;
        variant.unit_variant()?;
        Ok(Value::String(name))
    }
}

/// [`AnyValue`] through `deserialize_any`.
struct AnySeed;

impl<'de> DeserializeSeed<'de> for AnySeed {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(AnyValue)
    }
}

/// The document as a struct `{prefix, header, <records_key>}`.
pub struct DocSeed<'c>(pub &'c Contract);

impl<'de> DeserializeSeed<'de> for DocSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        let keys = ["prefix", "header", self.0.records_key()];
        match intern(keys.into_iter()) {
            Some(fields) => d.deserialize_struct("Document", fields, DocVisitor(self.0)),
            None => d.deserialize_map(DocVisitor(self.0)),
        }
    }
}

struct DocVisitor<'c>(&'c Contract);

impl<'de> Visitor<'de> for DocVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a document")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let c = self.0;
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = if k == c.records_key() {
                map.next_value_seed(RecordsSeed(c))?
            } else if k == "prefix" {
                Value::String(map.next_value::<String>()?)
            } else if k == "header" {
                map.next_value_seed(HeaderSeed(c))?
            } else {
                return Err(unexpected(format_args!("document key {k:?}")));
            };
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// The header as a map: declared keys by their kind, others as strings.
struct HeaderSeed<'c>(&'c Contract);

impl<'de> DeserializeSeed<'de> for HeaderSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for HeaderSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a header")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let v = match self.0.header_key(&k) {
                Some(hk) => map.next_value_seed(FieldSeed(&hk.kind, Part::Whole))?,
                None => Value::String(map.next_value::<String>()?),
            };
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// The records, a sequence.
struct RecordsSeed<'c>(&'c Contract);

impl<'de> DeserializeSeed<'de> for RecordsSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RecordsSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("records")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(r) = seq.next_element_seed(RecordSeed(self.0))? {
            out.push(r);
        }
        Ok(Value::Array(out))
    }
}

/// One record, a struct of its canonical keys (read as a sequence when
/// the deserializer chooses to, as for a derived struct).
struct RecordSeed<'c>(&'c Contract);

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match intern(record_keys(self.0).into_iter()) {
            Some(fields) => d.deserialize_struct("Record", fields, self),
            None => d.deserialize_map(self),
        }
    }
}

impl<'de> Visitor<'de> for RecordSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let Some((f, part)) = record_key(self.0, &k) else {
                return Err(unexpected(format_args!("record key {k:?}")));
            };
            let v = map.next_value_seed(FieldSeed(&f.kind, part))?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        for k in record_keys(self.0) {
            let Some((f, part)) = record_key(self.0, k) else {
                return Err(unexpected(format_args!("record key {k:?}")));
            };
            match seq.next_element_seed(FieldSeed(&f.kind, part))? {
                Some(v) => out.insert(k.to_string(), v),
                None => return Err(unexpected(format_args!("end of record before {k:?}"))),
            };
        }
        if seq.next_element_seed(AnySeed)?.is_some() {
            return Err(unexpected("value after the record's last key"));
        }
        Ok(Value::Object(out))
    }
}

/// A field value (or a header value) as an `Option` of its kind.
struct FieldSeed<'c>(&'c Kind, Part);

impl<'de> DeserializeSeed<'de> for FieldSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for FieldSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an optional field value")
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match (self.0, self.1) {
            (Kind::Scalar(s), _) => ScalarSeed(s).deserialize(d),
            (Kind::List { item, .. }, _) | (Kind::MList { item, .. }, Part::Items) => {
                d.deserialize_seq(ListSeed(item))
            }
            (Kind::MList { marker, .. }, Part::Selection) if marker.is_single() => {
                d.deserialize_u64(AnyValue)
            }
            (Kind::MList { .. }, _) => d.deserialize_seq(AnyValue),
            (Kind::Tuple(comps), _) => {
                let names = comps.iter().map(|c| c.name.as_str());
                match intern(names) {
                    Some(fields) => d.deserialize_struct("Tuple", fields, TupleSeed(comps)),
                    None => d.deserialize_map(TupleSeed(comps)),
                }
            }
        }
    }
}

/// The elements of a list.
struct ListSeed<'c>(&'c Scalar);

impl<'de> Visitor<'de> for ListSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(ScalarSeed(self.0))? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
}

/// The components of a tuple, each an `Option` of its scalar.
struct TupleSeed<'c>(&'c [Component]);

impl<'de> Visitor<'de> for TupleSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a tuple")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            let Some(comp) = self.0.iter().find(|c| c.name == k) else {
                return Err(unexpected(format_args!("tuple component {k:?}")));
            };
            let v = map.next_value_seed(OptionalScalar(&comp.scalar))?;
            out.insert(k, v);
        }
        Ok(Value::Object(out))
    }
}

/// An `Option` of a scalar (a tuple component).
struct OptionalScalar<'c>(&'c Scalar);

impl<'de> DeserializeSeed<'de> for OptionalScalar<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for OptionalScalar<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an optional scalar")
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        ScalarSeed(self.0).deserialize(d)
    }
}

/// A scalar through the entry point a Rust type of its contract type
/// calls: `i128` for an int (every 64-bit int fits), `f64`, `bool`,
/// `String` for a string, `&str` for a date or a decimal, a unit enum for
/// an enumeration.
struct ScalarSeed<'c>(&'c Scalar);

impl<'de> DeserializeSeed<'de> for ScalarSeed<'_> {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0.ty {
            ScalarType::Int => d.deserialize_i128(AnyValue),
            ScalarType::Float => d.deserialize_f64(AnyValue),
            ScalarType::Bool => d.deserialize_bool(AnyValue),
            ScalarType::Str => d.deserialize_string(AnyValue),
            ScalarType::Date | ScalarType::Decimal => d.deserialize_str(AnyValue),
            ScalarType::Enum => match intern(self.0.values.iter().map(String::as_str)) {
                Some(variants) => d.deserialize_enum("Enum", variants, AnyValue),
                None => d.deserialize_str(AnyValue),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    fn codes_of(v: &Verdict) -> Vec<Code> {
        match v {
            Verdict::Rejected(ds) => ds.iter().map(|d| d.0).collect(),
            _ => Vec::new(),
        }
    }

    /// Hand-written documents under the fixed contracts: the samples (valid)
    /// and garbled copies, each with the errors `parse` must report, run
    /// through the oracle.
    #[test]
    fn the_consumers_agree_on_hand_written_documents() {
        let contracts = parse_contracts();
        let samples = sample_documents();
        let (q, tk, tb, nx) = (&contracts[0], &contracts[1], &contracts[2], &contracts[3]);
        let cases: Vec<(&Contract, String, Vec<Code>)> = vec![
            (q, samples[0].to_string(), vec![]),
            (tk, samples[1].to_string(), vec![]),
            (tb, samples[2].to_string(), vec![]),
            (nx, samples[3].to_string(), vec![]),
            // the last line cut after its third field: E05 with the note
            (
                q,
                "q|n=2|k=3\nq1|L1|S|a,b*,c|0.9,-1,|3||\nq2|L2|S2".to_string(),
                vec![Code::E05],
            ),
            // a bad escape, and a wrong type in an int field
            (
                q,
                "q|n=2|k=3\nq1|L1|S\\q|a,b*,c|0.9,-1,|3||\nq2|L2|S2|x,y*,z|1,2,|five||".to_string(),
                vec![Code::E09, Code::E06],
            ),
            // a duplicate unique id, one record more than n
            (
                q,
                "q|n=1|k=3\nq1|L1|S|a,b*,c|0.9,-1,|3||\nq1|L1|S|a,b*,c|0.9,-1,|3||".to_string(),
                vec![Code::E11, Code::E04],
            ),
            // a missing marker, a count key not met
            (
                q,
                "q|n=2|k=3\nq1|L1|S|a,b,c|0.9,-1,|3||\nq2|L2|S|a,b*|0.9,-1,|3||".to_string(),
                vec![Code::E08, Code::E07],
            ),
            // no header line; a header without n
            (q, String::new(), vec![Code::E01]),
            (tk, "tk|queue=billing\n".to_string(), vec![Code::E03]),
            // a wrong prefix, an unclosed quote in a marked list
            (nx, "zz|n=1\nred*|1|".to_string(), vec![Code::E02]),
            (nx, "nx|n=1\n\"red*|1|".to_string(), vec![Code::E09]),
            // the CRLF and BOM of a valid document
            (nx, "\u{feff}nx|n=1\r\nred*·blue|1|\r\n".to_string(), vec![]),
        ];
        for (c, text, want) in &cases {
            let d = dynamic_verdict(text, c);
            let got = codes_of(&d);
            for code in want {
                assert!(got.contains(code), "{text:?}: {code} not in {d}");
            }
            if want.is_empty() {
                assert!(matches!(d, Verdict::Accepted(_)), "{text:?}: {d}");
            }
            typed_equivalence_text(text, c);
        }
        // the truncation note is there, and all three consumers carry it
        let d = dynamic_verdict(&cases[4].1, q);
        assert!(
            matches!(&d, Verdict::Rejected(ds) if ds.iter().any(|x| x.3.contains("truncated"))),
            "{d}"
        );
    }

    fn fires(f: impl FnOnce()) -> bool {
        catch_unwind(AssertUnwindSafe(f)).is_err()
    }

    /// The oracle fails on a wrong comparison: a value, a number's
    /// spelling, key order, a message, the order of diagnostics, and a
    /// validation that accepts an invalid document; it does not on a
    /// `null` left out (the one normalisation).
    #[test]
    fn the_oracle_fires_on_a_disagreement() {
        let c = &parse_contracts()[0];
        let valid = sample_documents()[0];
        let invalid = "q|n=2|k=3\nq1|L1|S\\q|a,b*,c|0.9,-1,|3||\nq2|L2|S2|x,y*,z|1,2,|five||";
        let dv = dynamic_verdict(valid, c);
        let di = dynamic_verdict(invalid, c);
        let ok = Verdict::Accepted(Value::Null);
        let run = |text: &str, d: &Verdict, t: &Verdict, v: &Verdict| {
            fires(|| agree(text, c, d, t, t, v))
        };
        assert!(!run(valid, &dv, &dv, &ok));
        assert!(!run(invalid, &di, &di, &di));

        let Verdict::Accepted(canonical) = &dv else {
            panic!("{dv}")
        };
        let edit = |f: &dyn Fn(&mut Value)| {
            let mut v = canonical.clone();
            f(&mut v);
            Verdict::Accepted(v)
        };
        // a value changed
        assert!(run(
            valid,
            &dv,
            &edit(&|v| v["items"][0]["difficulty"] = 4.into()),
            &ok
        ));
        // an int written as a float: the same number, not the same value
        assert!(run(
            valid,
            &dv,
            &edit(&|v| v["items"][0]["difficulty"] = 3.0.into()),
            &ok
        ));
        // the keys of a record in another order
        assert!(run(
            valid,
            &dv,
            &edit(&|v| {
                let r = v["items"][0].as_object_mut().unwrap();
                let (k, x) = r.shift_remove_entry("statement").unwrap();
                r.insert(k, x);
            }),
            &ok
        ));
        // a null left out is the same value
        assert!(!run(
            valid,
            &dv,
            &edit(&|v| {
                v["items"][1].as_object_mut().unwrap().remove("tags");
                v["items"][0]["irt"].as_object_mut().unwrap().remove("c");
            }),
            &ok
        ));
        // but not a value left out
        assert!(run(
            valid,
            &dv,
            &edit(&|v| {
                v["items"][0].as_object_mut().unwrap().remove("tags");
            }),
            &ok
        ));
        // validation rejecting a valid document, accepting an invalid one
        assert!(run(valid, &dv, &dv, &di));
        assert!(run(invalid, &di, &di, &ok));

        let Verdict::Rejected(ds) = &di else {
            panic!("{di}")
        };
        assert!(ds.len() >= 2, "{di}");
        let mut message = ds.clone();
        message[0].3.push('!');
        assert!(run(invalid, &di, &Verdict::Rejected(message), &di));
        let mut line = ds.clone();
        line[1].1 += 1;
        assert!(run(invalid, &di, &Verdict::Rejected(line), &di));
        let mut field = ds.clone();
        field[0].2 = None;
        assert!(run(invalid, &di, &Verdict::Rejected(field), &di));
        let mut order = ds.clone();
        order.swap(0, 1);
        assert!(run(invalid, &di, &Verdict::Rejected(order.clone()), &di));
        assert!(run(invalid, &di, &di, &Verdict::Rejected(order)));
        // rejecting a valid document, or with a failure instead
        assert!(run(valid, &dv, &di, &ok));
        assert!(run(invalid, &di, &Verdict::Failed("x".into()), &di));
    }

    #[test]
    fn edits_garble_as_documented() {
        let edit = |text: &str, e: Edit, sep: char| {
            let mut t = text.to_string();
            apply_edit(&mut t, &e, sep);
            t
        };
        let t = "q|n=2|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v*,w";
        assert_eq!(edit(t, Edit::Cut(12), ','), "q|n=2|k=3\nq1");
        assert_eq!(
            edit(t, Edit::Cut(u16::MAX), ','),
            &t[..u16::MAX as usize % (t.len() + 1)]
        );
        assert_eq!(
            edit(t, Edit::ShortLine { line: 1, keep: 2 }, ','),
            "q|n=2|k=3\nq1|a\\|b\nq2|c|u,v*,w"
        );
        assert_eq!(edit(t, Edit::DropLine(4), ','), "q|n=2|k=3\nq2|c|u,v*,w");
        assert_eq!(
            edit(t, Edit::RepeatLine(2), ','),
            "q|n=2|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v*,w\nq2|c|u,v*,w"
        );
        assert_eq!(
            edit(t, Edit::SwapLines(0, 2), ','),
            "q2|c|u,v*,w\nq1|a\\|b|x,y*,z\nq|n=2|k=3"
        );
        assert_eq!(
            edit(
                t,
                Edit::Token {
                    line: 1,
                    field: 1,
                    token: 12
                },
                ','
            ),
            "q|n=2|k=3\nq1|1e400|x,y*,z\nq2|c|u,v*,w"
        );
        let element = |elem, op| Edit::Element {
            line: 2,
            field: 2,
            elem,
            op,
        };
        assert_eq!(
            edit(t, element(1, 0), ','),
            "q|n=2|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v,w"
        );
        assert_eq!(
            edit(t, element(2, 0), ','),
            "q|n=2|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v*,w*"
        );
        assert_eq!(
            edit(t, element(2, 1), ','),
            "q|n=2|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v*"
        );
        assert_eq!(
            edit(t, element(0, 1), ','),
            "q|n=2|k=3\nq1|a\\|b|x,y*,z\nq2|c|v*,w"
        );
        assert_eq!(
            edit(t, element(1, 2), ','),
            "q|n=2|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v*,v*,w"
        );
        assert_eq!(
            edit(
                "nx|n=1\nred·blue*|1|",
                Edit::Element {
                    line: 1,
                    field: 0,
                    elem: 0,
                    op: 1
                },
                '·'
            ),
            "nx|n=1\nblue*|1|"
        );
        assert_eq!(
            edit(t, Edit::SetN(0), ','),
            "q|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v*,w"
        );
        assert_eq!(
            edit(t, Edit::SetN(3), ','),
            "q|n=2|k=3|n=2\nq1|a\\|b|x,y*,z\nq2|c|u,v*,w"
        );
        assert_eq!(
            edit(t, Edit::SetN(8 * 5 + 4), ','),
            "q|n=5|k=3\nq1|a\\|b|x,y*,z\nq2|c|u,v*,w"
        );
        assert_eq!(
            edit("é|n=1", Edit::Escape { at: 1, c: 8 }, ','),
            "\\qé|n=1",
            "a position inside a character moves down to its start"
        );
    }

    #[test]
    fn an_input_encodes_to_itself_and_builds_its_document() {
        let input = EquivalenceInput {
            contract: ContractSpec::like(&parse_contracts()[0]),
            edits: Seq(vec![
                Edit::Cut(300),
                Edit::Token {
                    line: 1,
                    field: 2,
                    token: 17,
                },
                Edit::Field {
                    line: 2,
                    field: 0,
                    text: Text::of("a\\|b"),
                },
                Edit::ExtraField {
                    line: 0,
                    text: Text::of("x=1"),
                },
                Edit::Insert {
                    at: 7,
                    text: Text::of("\r\n"),
                },
                Edit::Escape { at: 40, c: 3 },
                Edit::Element {
                    line: 1,
                    field: 3,
                    elem: 1,
                    op: 2,
                },
                Edit::SetN(13),
                Edit::ShortLine { line: 2, keep: 3 },
                Edit::DropLine(1),
                Edit::RepeatLine(0),
                Edit::SwapLines(1, 2),
            ]),
            values: Entropy(b"q|n=1\nentropy for the values".to_vec()),
        };
        let seed = input.to_seed();
        assert_eq!(decode::<EquivalenceInput>(&seed), Some(input.clone()));
        // without edits the document is valid; with them, it is the same
        // document edited
        let valid = EquivalenceInput {
            edits: Seq(Vec::new()),
            ..input.clone()
        };
        let (c, text) = equivalence_document(&valid);
        assert!(mini::parse(&text, &c).is_ok(), "{text}");
        let (_, edited) = equivalence_document(&input);
        let mut want = text;
        for e in &input.edits.0 {
            apply_edit(&mut want, e, c.separator());
        }
        assert_eq!(edited, want);
        typed_equivalence(&input);
        typed_equivalence(&valid);
    }
}
