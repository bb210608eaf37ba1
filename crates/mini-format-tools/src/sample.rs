//! Synthetic sample documents: a canonical object built from a contract's
//! rules alone, valid under that contract.
//!
//! The one generator behind [`crate::prompt::example`] (the example of a
//! prompt block) and [`crate::family::new_fork`] (the fixtures of a new
//! family). The values are placeholders that satisfy every rule:
//!
//! * `str`: the field's name (`id`), then `id-2`, `id-3`, … (with
//!   [`Style::desc_examples`], the example its `desc` gives, as the prompt
//!   block's example does: `e.g. T-100` → `T-100`, `T-100-2`); list elements
//!   `tags-1`, `tags-2` (`tags-2.1`, … in later values);
//! * `enum`: the first value, then the next ones in turn; `bool`: `true`,
//!   then `false`;
//! * numbers: the lower bound (its exact text for a `decimal`), or 0 (the
//!   upper bound when it is negative), then on away from that bound in
//!   steps of 1 and, where a range is too narrow for more, of ½, ¼, …;
//!   `date`: the lower bound, or `2024-01-01` (the upper bound when it is
//!   earlier), then the following (or preceding) days;
//! * lists: as many elements as their count key (one value per count key,
//!   3 when every list it counts allows it) or 2 within their arity, at
//!   least one when a marker rule wants a mark; the first element marked;
//! * `unique` fields take a different value in every record (the sample
//!   fails when their rules hold fewer values than records).
//!
//! The object is checked by serializing and parsing it, so what
//! [`canonical`] returns is exactly the parser's canonical object.
//!
//! ```
//! use mini_tools::sample::{canonical, Style};
//! let contract = mini::Contract::from_json(r#"{
//!     "prefix": "q", "header": {"keys": {"k": {"type": "int"}}},
//!     "core": [
//!         {"name": "id", "type": "str", "unique": true},
//!         {"name": "options", "type": "mlist", "count_key": "k"},
//!         {"name": "score", "type": "float", "min": 0, "max": 1, "optional": true}
//!     ]
//! }"#).unwrap();
//! let obj = canonical(&contract, 3, Style { sparse: true, ..Style::default() }).unwrap();
//! assert_eq!(
//!     mini::dumps(&obj, &contract).unwrap(),
//!     "q|n=3|k=3\n\
//!      id|options-1*,options-2,options-3|0\n\
//!      id-2|options-1*,options-2,options-3|\n\
//!      id-3|options-1*,options-2,options-3|0"
//! );
//! ```

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::contract::{Arity, Bound, Contract, Kind, MarkerRule, Scalar, ScalarType};
use crate::error::{Code, Diagnostic, Error, Result};
use crate::number::{canonical_decimal, format_f64, is_decimal, Dec};

/// The length of a list that nothing else fixes (within its arity).
const LIST_LEN: u64 = 2;
/// The value of a count key, when every list it counts allows it.
const COUNT: u64 = 3;
/// The longest list a sample holds.
const MAX_LEN: u64 = 64;
/// The first date of a date without a lower bound.
const EPOCH: &str = "2024-01-01";

/// How a sample varies from record to record. `Style::default()` is the
/// plainest sample: only `unique` fields vary, every field is filled and
/// the header holds the required keys and the count keys.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Style {
    /// Every field takes a new value in each record where its rules allow
    /// one (otherwise only `unique` fields do, and the others repeat).
    pub vary_all: bool,
    /// Every second record (the 2nd, 4th, …) leaves its optional fields
    /// that have no default, and optional tuple components, null.
    pub sparse: bool,
    /// The header fills its optional keys too (never `n`, which is the
    /// record count, nor `v`, which keeps its default version).
    pub full_header: bool,
    /// A `str` field or header key whose `desc` gives an example
    /// (`"psychometric model, e.g. IRT3PL"`) takes it as its value (`IRT3PL`,
    /// then `IRT3PL-2`, … where it varies) instead of its name.
    pub desc_examples: bool,
}

/// The example a description gives: the text after `e.g.`, `eg.`,
/// `p. ej.`, `for example` or `such as`, up to the next `,`, `;` or `)`,
/// without quotes; `None` when there is none.
pub fn desc_example(desc: &str) -> Option<String> {
    let lower = desc.to_lowercase();
    let at = ["e.g.", "eg.", "p. ej.", "p.ej.", "for example", "such as"]
        .iter()
        .filter_map(|m| lower.find(m).map(|i| i + m.len()))
        .min()?;
    // the markers are ASCII, so `at` is a char boundary of `desc` too
    let rest = desc.get(at..)?.trim_start_matches([' ', ':']);
    let end = rest.find([',', ';', ')']).unwrap_or(rest.len());
    let example = rest[..end]
        .trim()
        .trim_matches(['"', '\'', '`', '«', '»'])
        .trim();
    (!example.is_empty()).then(|| example.to_string())
}

/// A canonical object of `records` records valid under `contract`, built as
/// the [module documentation](self) describes.
///
/// Errors: E20 when the rules leave no value (a range without an integer, a
/// count key no length suits, a list longer than 64 elements), or the
/// parser's error when the values break a rule (a `unique` bool over three
/// records, a `unique` enum with fewer values than records).
pub fn canonical(contract: &Contract, records: usize, style: Style) -> Result<Value> {
    let s = Sampler::new(contract, style)?;
    let rows = (0..records as u64)
        .map(|r| s.record(r).map(Value::Object))
        .collect::<Result<Vec<_>>>()?;
    let mut obj = Map::new();
    obj.insert("prefix".into(), Value::from(contract.prefix()));
    obj.insert("header".into(), Value::Object(s.header()?));
    obj.insert(contract.records_key().into(), Value::Array(rows));
    let text = mini::dumps(&Value::Object(obj), contract)?;
    Ok(crate::value::parse(&text, contract)?.into_canonical())
}

fn unmet(msg: String) -> Error {
    Error::invalid(vec![Diagnostic::new(Code::E20, 0, None, msg)])
}

/// Whether `text` lies within the bounds of `s`.
fn within(s: &Scalar, text: &str) -> bool {
    let ok = |b: &Bound, lower: bool| match b {
        Bound::Date(d) => {
            s.ty == ScalarType::Date
                && if lower {
                    text >= d.as_str()
                } else {
                    text <= d.as_str()
                }
        }
        Bound::Number(d) => Dec::parse(text).is_some_and(|v| if lower { v >= *d } else { v <= *d }),
    };
    s.min.as_ref().is_none_or(|b| ok(b, true)) && s.max.as_ref().is_none_or(|b| ok(b, false))
}

/// `date` plus `days`, as `YYYY-MM-DD` (None outside years 1..=9999).
fn add_days(date: &str, days: i64) -> Option<String> {
    let date: mini::Date = date.parse().ok()?;
    mini::Date::from_days_since_epoch(date.days_since_epoch().checked_add(days)?)
        .map(|d| d.to_string())
}

/// The `k`-th of distinct offsets within `[0, w]`: 0, 1, … ⌊w⌋, then the
/// halves not listed yet, then the quarters, … (None past 2⁻⁴⁰ steps).
fn spread(w: f64, k: u64) -> Option<f64> {
    let mut k = k as f64;
    let whole = w.floor() + 1.0;
    if k < whole {
        return Some(k);
    }
    k -= whole;
    let mut step = 1.0;
    for _ in 0..40 {
        step /= 2.0;
        // the odd multiples of `step` up to `w`
        let odd = (((w / step).floor() + 1.0) / 2.0).floor();
        if k < odd {
            return Some((2.0 * k + 1.0) * step);
        }
        k -= odd;
    }
    None
}

fn bound_f64(b: &Option<Bound>) -> Option<f64> {
    match b {
        Some(Bound::Number(d)) => d.format(false).parse().ok(),
        _ => None,
    }
}

/// An int bound: the bound, rounded inward when it is a fraction.
fn int_bound(b: &Option<Bound>, lower: bool) -> Option<i128> {
    let Some(Bound::Number(d)) = b else {
        return None;
    };
    match d.integer_text() {
        Some(t) => t.parse().ok(),
        None => {
            let x: f64 = d.format(false).parse().ok()?;
            format_f64(if lower { x.ceil() } else { x.floor() })?
                .parse()
                .ok()
        }
    }
}

fn bound_date(b: &Option<Bound>) -> Option<&str> {
    match b {
        Some(Bound::Date(d)) => Some(d),
        _ => None,
    }
}

/// The `k`-th number of a numeric scalar (0 = the canonical one), or None
/// when its bounds hold fewer.
fn number(s: &Scalar, k: u64) -> Option<Value> {
    let text = if s.ty == ScalarType::Int {
        let (lo, hi) = (int_bound(&s.min, true), int_bound(&s.max, false));
        let k = i128::from(k);
        match (lo, hi) {
            (Some(lo), _) => lo.checked_add(k),
            (None, Some(hi)) => hi.min(0).checked_sub(k),
            (None, None) => Some(k),
        }?
        .to_string()
    } else {
        let (lo, hi) = (bound_f64(&s.min), bound_f64(&s.max));
        let kf = k as f64;
        let x = match (lo, hi) {
            (Some(lo), Some(hi)) => lo + spread(hi - lo, k)?,
            (Some(lo), None) => lo + kf,
            (None, Some(hi)) => hi.min(0.0) - kf,
            (None, None) => kf,
        };
        match (&s.min, k) {
            // a decimal's lower bound keeps its exact text
            (Some(Bound::Number(d)), 0) if s.ty == ScalarType::Decimal => d.format(false),
            _ => format_f64(x)?,
        }
    };
    if !within(s, &text) {
        return None;
    }
    match s.ty {
        ScalarType::Decimal => is_decimal(&text).then(|| Value::String(canonical_decimal(&text))),
        _ => text.parse().ok().map(Value::Number),
    }
}

/// The `k`-th value of scalar `s` (0 = the canonical one), or None when its
/// rules hold fewer; `label` names `str` values.
fn nth(s: &Scalar, label: &str, k: u64) -> Option<Value> {
    match s.ty {
        ScalarType::Str if k == 0 => Some(Value::from(label)),
        ScalarType::Str => Some(Value::String(format!("{label}-{}", k + 1))),
        ScalarType::Enum => {
            let n = s.values.len() as u64;
            let i = usize::try_from(k.checked_rem(n)?).ok()?;
            s.values.get(i).map(|v| Value::String(v.clone()))
        }
        ScalarType::Bool => Some(Value::Bool(k % 2 == 0)),
        ScalarType::Int | ScalarType::Float | ScalarType::Decimal => number(s, k),
        ScalarType::Date => {
            let (lo, hi) = (bound_date(&s.min), bound_date(&s.max));
            let k = i64::try_from(k).ok()?;
            let d = match (lo, hi) {
                (Some(lo), _) => add_days(lo, k),
                (None, Some(hi)) => add_days(hi.min(EPOCH), -k),
                (None, None) => add_days(EPOCH, k),
            }?;
            within(s, &d).then_some(Value::String(d))
        }
    }
}

/// The `k`-th value of `s`, or its canonical value when the rules hold no
/// `k`-th (a repeat that the parser refuses in a `unique` field).
fn scalar(s: &Scalar, label: &str, k: u64) -> Result<Value> {
    nth(s, label, k)
        .or_else(|| nth(s, label, 0))
        .ok_or_else(|| {
            unmet(format!(
                "cannot make a sample value of '{label}' within its bounds"
            ))
        })
}

/// Element `j` of the `k`-th value of a list of `item`s named `label`.
fn element(item: &Scalar, label: &str, k: u64, j: u64) -> Result<Value> {
    match item.ty {
        ScalarType::Str if k == 0 => Ok(Value::String(format!("{label}-{}", j + 1))),
        ScalarType::Str => Ok(Value::String(format!("{label}-{}.{}", k + 1, j + 1))),
        _ => scalar(item, label, j + k),
    }
}

/// The lengths a list of shape `kind` may take: its arity, and at least one
/// element when its marker rule wants a mark.
fn lengths(kind: &Kind, arity: &Arity) -> (u64, u64) {
    let mark = matches!(
        kind,
        Kind::MList {
            marker: MarkerRule::ExactlyOne | MarkerRule::AtLeastOne,
            ..
        }
    );
    let lo = arity.min.unwrap_or(0).max(u64::from(mark));
    (lo, arity.max.unwrap_or(u64::MAX))
}

/// The selection of a marked list of `len` elements: the first one marked.
fn selection(marker: MarkerRule, len: usize) -> Value {
    match (marker.is_single(), len) {
        (true, 0) => Value::Null,
        (true, _) => Value::from(0),
        (false, 0) => Value::Array(Vec::new()),
        (false, _) => Value::Array(vec![Value::from(0)]),
    }
}

struct Sampler<'c> {
    c: &'c Contract,
    style: Style,
    /// The value chosen for each count key.
    counts: BTreeMap<String, u64>,
}

impl<'c> Sampler<'c> {
    /// Chooses the count keys: a value every list it counts allows (and its
    /// header key's bounds).
    fn new(c: &'c Contract, style: Style) -> Result<Sampler<'c>> {
        let mut ranges: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        let kinds = c.fields().iter().map(|f| &f.kind);
        for kind in kinds.chain(c.header_keys().iter().map(|h| &h.kind)) {
            if let Kind::List { arity, .. } | Kind::MList { arity, .. } = kind {
                if let Some(key) = &arity.count_key {
                    let (lo, hi) = lengths(kind, arity);
                    let r = ranges.entry(key).or_insert((0, u64::MAX));
                    *r = (r.0.max(lo), r.1.min(hi));
                }
            }
        }
        let mut counts = BTreeMap::new();
        for (key, (lo, hi)) in ranges {
            let own = c.header_key(key).and_then(|h| match &h.kind {
                Kind::Scalar(s) => Some(s),
                _ => None,
            });
            let chosen = [COUNT.clamp(lo, hi.max(lo)), lo, hi]
                .into_iter()
                .filter(|v| (lo..=hi.min(MAX_LEN)).contains(v))
                .find(|v| own.is_none_or(|s| within(s, &v.to_string())));
            let Some(v) = chosen else {
                return Err(unmet(format!(
                    "no value of count key '{key}' suits every list it counts"
                )));
            };
            counts.insert(key.to_string(), v);
        }
        Ok(Sampler { c, style, counts })
    }

    fn list_len(&self, name: &str, kind: &Kind, arity: &Arity) -> Result<u64> {
        if let Some(key) = &arity.count_key {
            return self
                .counts
                .get(key)
                .copied()
                .ok_or_else(|| unmet(format!("count key '{key}' of '{name}' unknown")));
        }
        let (lo, hi) = lengths(kind, arity);
        if lo > hi || lo > MAX_LEN {
            return Err(unmet(format!("cannot make a sample list for '{name}'")));
        }
        Ok(LIST_LEN.clamp(lo, hi))
    }

    /// The `k`-th value of a field or header key of shape `kind` (for an
    /// mlist, its elements); `sparse` leaves optional tuple components null.
    fn value(&self, name: &str, kind: &Kind, k: u64, sparse: bool) -> Result<Value> {
        match kind {
            Kind::Scalar(s) => scalar(s, name, k),
            Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
                let n = self.list_len(name, kind, arity)?;
                (0..n)
                    .map(|j| element(item, name, k, j))
                    .collect::<Result<_>>()
                    .map(Value::Array)
            }
            Kind::Tuple(comps) => comps
                .iter()
                .map(|comp| {
                    let v = if sparse && comp.optional {
                        Value::Null
                    } else {
                        scalar(&comp.scalar, &comp.name, k)?
                    };
                    Ok((comp.name.clone(), v))
                })
                .collect::<Result<_>>()
                .map(Value::Object),
        }
    }

    /// The `k`-th value of a `str` scalar from its description's example
    /// (with [`Style::desc_examples`]), or `None`.
    fn described(&self, kind: &Kind, desc: Option<&str>, k: u64) -> Option<Value> {
        if !self.style.desc_examples {
            return None;
        }
        match kind {
            Kind::Scalar(s) if s.ty == ScalarType::Str => {
                let example = desc_example(desc?)?;
                Some(Value::String(if k == 0 {
                    example
                } else {
                    format!("{example}-{}", k + 1)
                }))
            }
            _ => None,
        }
    }

    fn header(&self) -> Result<Map<String, Value>> {
        let mut h = Map::new();
        for key in self.c.header_keys() {
            if key.name == "n" || key.name == "v" {
                continue;
            }
            let v = match self.counts.get(&key.name) {
                Some(n) => Value::from(*n),
                None if key.required || self.style.full_header => self
                    .described(&key.kind, key.desc.as_deref(), 0)
                    .map_or_else(|| self.value(&key.name, &key.kind, 0, false), Ok)?,
                None => continue,
            };
            h.insert(key.name.clone(), v);
        }
        Ok(h)
    }

    /// Record `r` (0 for the first).
    fn record(&self, r: u64) -> Result<Map<String, Value>> {
        let sparse = self.style.sparse && r % 2 == 1;
        let mut out = Map::new();
        for f in self.c.fields() {
            let k = if f.unique || self.style.vary_all {
                r
            } else {
                0
            };
            let blank = sparse && f.optional && f.default.is_none();
            let value = if blank {
                Value::Null
            } else {
                self.described(&f.kind, f.desc.as_deref(), k)
                    .map_or_else(|| self.value(&f.name, &f.kind, k, sparse), Ok)?
            };
            match &f.kind {
                Kind::MList {
                    marker,
                    items_key,
                    selected_key,
                    ..
                } => {
                    let sel = match &value {
                        Value::Array(items) => selection(*marker, items.len()),
                        _ => Value::Null,
                    };
                    out.insert(items_key.clone(), value);
                    out.insert(selected_key.clone(), sel);
                }
                _ => {
                    out.insert(f.name.clone(), value);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contract(core: &str) -> Contract {
        Contract::from_json(&format!(r#"{{"prefix": "t", "core": [{core}]}}"#)).unwrap()
    }

    /// The values of `field` in a sample, as JSON text.
    fn column(c: &Contract, records: usize, field: &str) -> Vec<String> {
        let obj = canonical(c, records, Style::default()).unwrap();
        obj["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r[field].to_string())
            .collect()
    }

    #[test]
    fn calendar_arithmetic() {
        assert_eq!(add_days("2024-02-28", 1).as_deref(), Some("2024-02-29"));
        assert_eq!(add_days("2023-02-28", 1).as_deref(), Some("2023-03-01"));
        assert_eq!(add_days("1999-12-31", 1).as_deref(), Some("2000-01-01"));
        assert_eq!(add_days("2000-01-01", -1).as_deref(), Some("1999-12-31"));
        assert_eq!(add_days("9999-12-31", 1), None);
        assert_eq!(add_days("0001-01-01", -1), None);
    }

    #[test]
    fn spread_lists_distinct_offsets_within_the_width() {
        let got: Vec<f64> = (0..6).filter_map(|k| spread(1.0, k)).collect();
        assert_eq!(got, [0.0, 1.0, 0.5, 0.25, 0.75, 0.125]);
        assert_eq!(spread(0.0, 0), Some(0.0));
        assert_eq!(spread(0.0, 1), None);
        assert_eq!(spread(2.5, 3), Some(0.5));
    }

    #[test]
    fn unique_values_stay_within_narrow_ranges() {
        let c = contract(
            r#"{"name": "x", "type": "float", "min": 0, "max": 1, "unique": true},
               {"name": "d", "type": "decimal", "min": "0.10", "max": "0.2", "unique": true},
               {"name": "i", "type": "int", "max": -3, "unique": true},
               {"name": "day", "type": "date", "max": "2000-01-01", "unique": true}"#,
        );
        assert_eq!(column(&c, 4, "x"), ["0.0", "1.0", "0.5", "0.25"]);
        assert_eq!(column(&c, 2, "d"), ["\"0.1\"", "\"0.1625\""]);
        assert_eq!(column(&c, 3, "i"), ["-3", "-4", "-5"]);
        assert_eq!(column(&c, 2, "day"), ["\"2000-01-01\"", "\"1999-12-31\""]);
    }

    #[test]
    fn rules_that_cannot_be_met_are_errors() {
        let c = contract(r#"{"name": "x", "type": "bool", "unique": true}"#);
        assert!(canonical(&c, 2, Style::default()).is_ok());
        assert!(canonical(&c, 3, Style::default()).is_err());
        let c = contract(r#"{"name": "x", "type": "int", "min": 0.2, "max": 0.8}"#);
        let e = canonical(&c, 1, Style::default()).unwrap_err();
        assert_eq!(e.code(), Some(Code::E20));
    }

    #[test]
    fn count_keys_suit_every_list_and_their_bounds() {
        let c = Contract::from_json(
            r#"{"prefix": "t", "header": {"keys": {"k": {"type": "int", "max": 2}}},
                "core": [
                  {"name": "a", "type": "list", "item": "int", "count_key": "k"},
                  {"name": "b", "type": "mlist", "count_key": "k", "marker": "at_least_one"}
                ]}"#,
        )
        .unwrap();
        let obj = canonical(&c, 1, Style::default()).unwrap();
        assert_eq!(obj["header"]["k"], 1);
        assert_eq!(obj["records"][0]["a"], serde_json::json!([0]));
        assert_eq!(obj["records"][0]["selected"], serde_json::json!([0]));
    }

    #[test]
    fn styles_vary_blank_and_fill() {
        let c = Contract::from_json(
            r#"{"prefix": "t", "header": {"keys": {"src": {"type": "str"}}},
                "core": [
                  {"name": "level", "type": "enum", "values": ["lo", "hi"]},
                  {"name": "note", "type": "str", "optional": true},
                  {"name": "span", "type": "tuple", "items": [
                    {"name": "a", "type": "int"}, {"name": "b", "type": "int", "optional": true}]}
                ]}"#,
        )
        .unwrap();
        let plain = canonical(&c, 2, Style::default()).unwrap();
        assert_eq!(plain["header"].get("src"), None);
        assert_eq!(plain["records"][1]["level"], "lo");
        assert_eq!(plain["records"][1]["note"], "note");
        let all = Style {
            vary_all: true,
            sparse: true,
            full_header: true,
            desc_examples: false,
        };
        let rich = canonical(&c, 2, all).unwrap();
        assert_eq!(rich["header"]["src"], "src");
        assert_eq!(rich["records"][1]["level"], "hi");
        assert_eq!(rich["records"][1]["note"], Value::Null);
        assert_eq!(
            rich["records"][1]["span"],
            serde_json::json!({"a": 1, "b": null})
        );
    }
}
