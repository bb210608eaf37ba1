//! A synthetic example document built from a contract's rules alone.

use serde_json::{Map, Number, Value};

use crate::check::number::{format_f64, Dec};
use crate::contract::{Arity, Bound, Contract, Field, Kind, MarkerRule, Scalar, ScalarType};

/// How many elements a list gets when nothing fixes it.
const DEFAULT_LIST_LEN: u64 = 2;
/// The value given to a count key when the lists allow it.
const DEFAULT_COUNT: u64 = 3;

fn bound_f64(b: &Option<Bound>) -> Option<f64> {
    match b {
        Some(Bound::Number(d)) => d.format(false).parse().ok(),
        _ => None,
    }
}

fn bound_date(b: &Option<Bound>) -> Option<&str> {
    match b {
        Some(Bound::Date(d)) => Some(d),
        _ => None,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// `date` plus `days`, as `YYYY-MM-DD` (None outside years 1..=9999).
fn add_days(date: &str, days: i64) -> Option<String> {
    let y: i64 = date.get(0..4)?.parse().ok()?;
    let m: i64 = date.get(5..7)?.parse().ok()?;
    let d: i64 = date.get(8..10)?.parse().ok()?;
    let (y, m, d) = civil_from_days(days_from_civil(y, m, d) + days);
    (1..=9999)
        .contains(&y)
        .then(|| format!("{y:04}-{m:02}-{d:02}"))
}

fn number(x: f64) -> Option<Value> {
    let text = format_f64(x)?;
    text.parse::<Number>().ok().map(Value::Number)
}

/// A value of scalar `s` satisfying its bounds; `offset` (0 for the first
/// record) makes values differ, for `unique` fields. `label` names str
/// values.
fn scalar_value(s: &Scalar, offset: u64, label: &str) -> Option<Value> {
    let off = offset as f64;
    match s.ty {
        ScalarType::Str => Some(Value::String(if offset == 0 {
            label.to_string()
        } else {
            format!("{label}-{}", offset + 1)
        })),
        ScalarType::Enum => s
            .values
            .get(usize::try_from(offset).ok()?)
            .map(|v| Value::String(v.clone())),
        ScalarType::Bool => match offset {
            0 => Some(Value::Bool(true)),
            1 => Some(Value::Bool(false)),
            _ => None,
        },
        ScalarType::Int | ScalarType::Float | ScalarType::Decimal => {
            let (lo, hi) = (bound_f64(&s.min), bound_f64(&s.max));
            let mut base = match (lo, hi) {
                (Some(lo), _) => lo,
                (None, Some(hi)) if hi < 0.0 => hi,
                _ => 0.0,
            };
            if s.ty == ScalarType::Int {
                base = base.ceil();
            }
            let x = base + off;
            if hi.is_some_and(|hi| x > hi) {
                return None;
            }
            match s.ty {
                ScalarType::Decimal => {
                    // the bound's exact text when it is the value
                    let exact = match (&s.min, offset) {
                        (Some(Bound::Number(d)), 0) => Some(d.format(false)),
                        _ => None,
                    };
                    exact
                        .or_else(|| format_f64(x))
                        .filter(|t| Dec::parse(t).is_some())
                        .map(Value::String)
                }
                _ => number(x),
            }
        }
        ScalarType::Date => {
            let base = match (bound_date(&s.min), bound_date(&s.max)) {
                (Some(lo), _) => lo.to_string(),
                (None, Some(hi)) if hi < "2024-01-01" => hi.to_string(),
                _ => "2024-01-01".to_string(),
            };
            let d = add_days(&base, i64::try_from(offset).ok()?)?;
            if bound_date(&s.max).is_some_and(|hi| d.as_str() > hi) {
                return None;
            }
            Some(Value::String(d))
        }
    }
}

/// An element of a list of `item`s: position `j`, record offset `offset`.
fn item_value(item: &Scalar, j: u64, offset: u64, label: &str) -> Option<Value> {
    match item.ty {
        ScalarType::Str if offset == 0 => Some(Value::String(format!("{label}-{}", j + 1))),
        ScalarType::Str => Some(Value::String(format!("{label}-{}.{}", offset + 1, j + 1))),
        ScalarType::Enum => {
            let n = item.values.len() as u64;
            (n > 0).then(|| Value::String(item.values[((j + offset) % n) as usize].clone()))
        }
        ScalarType::Bool => Some(Value::Bool((j + offset) % 2 == 0)),
        ScalarType::Int | ScalarType::Float => number((j + offset + 1) as f64),
        ScalarType::Decimal => Some(Value::String(format!("{}.5", j + offset + 1))),
        ScalarType::Date => {
            add_days("2024-01-01", i64::try_from(j + offset).ok()?).map(Value::String)
        }
    }
}

/// Every list (field or header key) whose length a count key fixes.
fn count_key_users<'c>(c: &'c Contract, key: &str) -> Vec<(&'c Arity, Option<MarkerRule>)> {
    let kinds = c
        .fields()
        .iter()
        .map(|f| &f.kind)
        .chain(c.header_keys().iter().map(|h| &h.kind));
    kinds
        .filter_map(|k| match k {
            Kind::List { arity, .. } => Some((arity, None)),
            Kind::MList { arity, marker, .. } => Some((arity, Some(*marker))),
            _ => None,
        })
        .filter(|(a, _)| a.count_key.as_deref() == Some(key))
        .collect()
}

/// The value of count key `key`: one that every list using it allows.
fn count_value(c: &Contract, key: &str) -> Option<u64> {
    let mut lo = 0;
    let mut hi = u64::MAX;
    for (arity, marker) in count_key_users(c, key) {
        lo = lo.max(arity.min.unwrap_or(0));
        if matches!(
            marker,
            Some(MarkerRule::ExactlyOne | MarkerRule::AtLeastOne)
        ) {
            lo = lo.max(1);
        }
        hi = hi.min(arity.max.unwrap_or(u64::MAX));
    }
    (lo <= hi).then(|| DEFAULT_COUNT.clamp(lo, hi))
}

struct Synth<'c> {
    c: &'c Contract,
    /// Count keys and their values.
    counts: Vec<(String, u64)>,
}

impl Synth<'_> {
    fn list_len(&self, arity: &Arity, marker: Option<MarkerRule>) -> Option<u64> {
        if let Some(k) = &arity.count_key {
            return self.counts.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
        }
        let lo = arity.min.unwrap_or(0);
        let hi = arity.max.unwrap_or(u64::MAX);
        let want = DEFAULT_LIST_LEN.max(lo).min(hi);
        let need_mark = matches!(
            marker,
            Some(MarkerRule::ExactlyOne | MarkerRule::AtLeastOne)
        );
        (!(need_mark && want == 0)).then_some(want)
    }

    fn items(&self, item: &Scalar, len: u64, offset: u64, label: &str) -> Option<Vec<Value>> {
        (0..len)
            .map(|j| item_value(item, j, offset, label))
            .collect()
    }

    /// The canonical value of a field or header key of shape `kind`.
    fn value(&self, kind: &Kind, offset: u64, label: &str) -> Option<Value> {
        match kind {
            Kind::Scalar(s) => scalar_value(s, offset, label),
            Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
                let len = self.list_len(arity, None)?;
                self.items(item, len, offset, label).map(Value::Array)
            }
            Kind::Tuple(comps) => {
                let mut m = Map::new();
                for (i, comp) in comps.iter().enumerate() {
                    // only the first component varies for unique tuples
                    let off = if i == 0 { offset } else { 0 };
                    m.insert(
                        comp.name.clone(),
                        scalar_value(&comp.scalar, off, &comp.name)?,
                    );
                }
                Some(Value::Object(m))
            }
        }
    }

    fn field(&self, f: &Field, record: u64, out: &mut Map<String, Value>) -> Option<()> {
        let offset = if f.unique { record } else { 0 };
        // optional fields stay empty on every second record, to show null
        let skip = f.optional && record % 2 == 1;
        match &f.kind {
            Kind::MList {
                item,
                arity,
                marker,
                items_key,
                selected_key,
            } => {
                if skip {
                    return Some(());
                }
                let len = self.list_len(arity, Some(*marker))?;
                let items = self.items(item, len, offset, &f.name)?;
                let selected = match (marker.is_single(), len) {
                    (true, 0) => Value::Null,
                    (true, _) => Value::from(0),
                    (false, 0) => Value::Array(Vec::new()),
                    (false, _) => Value::Array(vec![Value::from(0)]),
                };
                out.insert(items_key.clone(), Value::Array(items));
                out.insert(selected_key.clone(), selected);
            }
            kind => {
                if !skip {
                    out.insert(f.name.clone(), self.value(kind, offset, &f.name)?);
                }
            }
        }
        Some(())
    }
}

/// A document of `records` synthetic records that parses strictly under
/// `contract`, or `None` when the contract's rules cannot be met by the
/// synthetic values (e.g. a `unique` bool over three records).
pub(crate) fn example(contract: &Contract, records: usize) -> Option<String> {
    let mut counts = Vec::new();
    for hk in contract.header_keys() {
        if !count_key_users(contract, &hk.name).is_empty() {
            counts.push((hk.name.clone(), count_value(contract, &hk.name)?));
        }
    }
    let synth = Synth {
        c: contract,
        counts,
    };
    let mut header = Map::new();
    for hk in synth.c.header_keys() {
        if hk.name == "n" {
            continue;
        }
        if let Some((_, v)) = synth.counts.iter().find(|(n, _)| *n == hk.name) {
            header.insert(hk.name.clone(), Value::from(*v));
        } else if hk.required {
            header.insert(hk.name.clone(), synth.value(&hk.kind, 0, &hk.name)?);
        }
    }
    let mut rows = Vec::with_capacity(records);
    for r in 0..records as u64 {
        let mut rec = Map::new();
        for f in synth.c.fields() {
            synth.field(f, r, &mut rec)?;
        }
        rows.push(Value::Object(rec));
    }
    let mut obj = Map::new();
    obj.insert(
        "prefix".into(),
        Value::String(contract.prefix().to_string()),
    );
    obj.insert("header".into(), Value::Object(header));
    obj.insert(contract.records_key().to_string(), Value::Array(rows));
    crate::value::dumps(&Value::Object(obj), contract).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_arithmetic() {
        assert_eq!(add_days("2024-02-28", 1).as_deref(), Some("2024-02-29"));
        assert_eq!(add_days("2023-02-28", 1).as_deref(), Some("2023-03-01"));
        assert_eq!(add_days("1999-12-31", 1).as_deref(), Some("2000-01-01"));
        assert_eq!(add_days("9999-12-31", 1), None);
    }

    #[test]
    fn unique_bools_run_out() {
        let c = Contract::from_json(
            r#"{"prefix": "b", "core": [{"name": "x", "type": "bool", "unique": true}]}"#,
        )
        .unwrap();
        assert!(example(&c, 2).is_some());
        assert!(example(&c, 3).is_none());
    }
}
