//! Canonical JSON values into Arrow arrays, one column at a time.
//!
//! [`check`] runs on every record before it joins a batch (the conversions
//! that can fail: ints past the column's type, decimals past its scale,
//! dates), so that [`build`] never meets a value it cannot hold.

use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BooleanBuilder, Date32Builder, Decimal128Builder, Float64Builder, Int32Builder,
    Int64Builder, StringBuilder, StringDictionaryBuilder, UInt64Builder,
};
use arrow_array::types::Int32Type;
use arrow_array::{ArrayRef, ListArray, MapArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer};
use arrow_schema::{DataType, Fields};
use serde_json::Value;

/// A present, non-null value.
fn present(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

/// Whether `v` fits the column type `dt` (`Err` says why not).
pub(crate) fn check(dt: &DataType, v: Option<&Value>) -> Result<(), String> {
    let Some(v) = present(v) else { return Ok(()) };
    match dt {
        DataType::Int64 => v.as_i64().map(drop).ok_or_else(|| beyond(v, "Int64")),
        DataType::UInt64 => v.as_u64().map(drop).ok_or_else(|| beyond(v, "UInt64")),
        DataType::Int32 => v
            .as_i64()
            .and_then(|x| i32::try_from(x).ok())
            .map(drop)
            .ok_or_else(|| beyond(v, "Int32")),
        DataType::Date32 => date(v).map(drop),
        DataType::Decimal128(p, s) => decimal(v, *p, *s).map(drop),
        DataType::List(f) => match v {
            Value::Array(items) => items.iter().try_for_each(|i| check(f.data_type(), Some(i))),
            _ => Err(format!("expected a list, got {v}")),
        },
        DataType::Struct(fields) => match v {
            Value::Object(o) => fields.iter().try_for_each(|f| {
                check(f.data_type(), o.get(f.name())).map_err(|e| format!("{}: {e}", f.name()))
            }),
            _ => Err(format!("expected an object, got {v}")),
        },
        _ => Ok(()),
    }
}

fn beyond(v: &Value, ty: &str) -> String {
    format!("int {v} does not fit the column type {ty} (never cast: narrow the contract's bounds or use a decimal field)")
}

/// Days since 1970-01-01 of a canonical `YYYY-MM-DD` (`mini::Date`'s count).
fn date(v: &Value) -> Result<i32, String> {
    let s = v
        .as_str()
        .ok_or_else(|| format!("expected a date, got {v}"))?;
    let bad = || format!("expected a date YYYY-MM-DD, got '{s}'");
    let d: mini::Date = s.parse().map_err(|_| bad())?;
    i32::try_from(d.days_since_epoch()).map_err(|_| bad())
}

/// A canonical decimal text as the unscaled `i128` of `Decimal128(p, s)`:
/// exact or an error (more significant fractional digits than `s`, more
/// integer digits than `p - s`), never rounded.
fn decimal(v: &Value, p: u8, s: i8) -> Result<i128, String> {
    let text = match v {
        Value::String(t) => t.clone(),
        Value::Number(n) => n.to_string(),
        _ => return Err(format!("expected a decimal, got {v}")),
    };
    let bad = || format!("expected a decimal, got '{text}'");
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.as_str()),
    };
    let (int, frac) = body.split_once('.').unwrap_or((body, ""));
    if int.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let scale = usize::try_from(s).unwrap_or(0);
    let frac = frac.trim_end_matches('0');
    if frac.len() > scale {
        return Err(format!(
            "decimal {text} has {} fractional digits; the column is Decimal128({p}, {s}), whose scale \
             the contract's bounds give (never rounded)",
            frac.len()
        ));
    }
    let int = int.trim_start_matches('0');
    if int.len() + scale > usize::from(p) {
        return Err(format!("decimal {text} does not fit Decimal128({p}, {s})"));
    }
    let mut m: i128 = 0;
    for b in int
        .bytes()
        .chain(frac.bytes())
        .chain(std::iter::repeat_n(b'0', scale - frac.len()))
    {
        m = m
            .checked_mul(10)
            .and_then(|m| m.checked_add(i128::from(b - b'0')))
            .ok_or_else(bad)?;
    }
    Ok(if neg { -m } else { m })
}

/// The array of type `dt` holding `vals` (a missing or JSON null value is
/// an Arrow null).
pub(crate) fn build(dt: &DataType, vals: &[Option<&Value>]) -> Result<ArrayRef, String> {
    let n = vals.len();
    Ok(match dt {
        DataType::Utf8 => {
            let mut b = StringBuilder::with_capacity(n, n * 16);
            for v in vals {
                match present(*v) {
                    Some(Value::String(s)) => b.append_value(s),
                    Some(other) => b.append_value(other.to_string()),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Int64 => {
            let mut b = Int64Builder::with_capacity(n);
            for v in vals {
                match present(*v) {
                    Some(v) => b.append_value(v.as_i64().ok_or_else(|| beyond(v, "Int64"))?),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::UInt64 => {
            let mut b = UInt64Builder::with_capacity(n);
            for v in vals {
                match present(*v) {
                    Some(v) => b.append_value(v.as_u64().ok_or_else(|| beyond(v, "UInt64"))?),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Int32 => {
            let mut b = Int32Builder::with_capacity(n);
            for v in vals {
                match present(*v) {
                    Some(v) => b.append_value(
                        v.as_i64()
                            .and_then(|x| i32::try_from(x).ok())
                            .ok_or_else(|| beyond(v, "Int32"))?,
                    ),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Float64 => {
            let mut b = Float64Builder::with_capacity(n);
            for v in vals {
                match present(*v) {
                    Some(v) => b.append_value(
                        v.as_f64()
                            .ok_or_else(|| format!("expected a number, got {v}"))?,
                    ),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Boolean => {
            let mut b = BooleanBuilder::with_capacity(n);
            for v in vals {
                match present(*v) {
                    Some(v) => b.append_value(
                        v.as_bool()
                            .ok_or_else(|| format!("expected a bool, got {v}"))?,
                    ),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Date32 => {
            let mut b = Date32Builder::with_capacity(n);
            for v in vals {
                match present(*v) {
                    Some(v) => b.append_value(date(v)?),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Decimal128(p, s) => {
            let mut b = Decimal128Builder::with_capacity(n)
                .with_precision_and_scale(*p, *s)
                .map_err(|e| e.to_string())?;
            for v in vals {
                match present(*v) {
                    Some(v) => b.append_value(decimal(v, *p, *s)?),
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::Dictionary(_, _) => {
            let mut b = StringDictionaryBuilder::<Int32Type>::new();
            for v in vals {
                match present(*v) {
                    Some(Value::String(s)) => b.append(s).map(drop).map_err(|e| e.to_string())?,
                    Some(other) => b
                        .append(other.to_string())
                        .map(drop)
                        .map_err(|e| e.to_string())?,
                    None => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        DataType::List(field) => {
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0i32);
            let mut nulls = NullBufferBuilder::new(n);
            let mut children: Vec<Option<&Value>> = Vec::new();
            for v in vals {
                match present(*v) {
                    Some(Value::Array(items)) => {
                        children.extend(items.iter().map(Some));
                        nulls.append_non_null();
                    }
                    Some(other) => return Err(format!("expected a list, got {other}")),
                    None => nulls.append_null(),
                }
                offsets.push(
                    i32::try_from(children.len())
                        .map_err(|_| "list column past 2^31 elements in one batch".to_string())?,
                );
            }
            let values = build(field.data_type(), &children)?;
            Arc::new(
                ListArray::try_new(
                    field.clone(),
                    OffsetBuffer::new(offsets.into()),
                    values,
                    nulls.finish(),
                )
                .map_err(|e| e.to_string())?,
            )
        }
        DataType::Struct(fields) => struct_array(fields, vals)?,
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                return Err("a map column without a struct of entries".to_string());
            };
            let mut offsets = Vec::with_capacity(n + 1);
            offsets.push(0i32);
            let mut nulls = NullBufferBuilder::new(n);
            let (mut keys, mut values) = (StringBuilder::new(), StringBuilder::new());
            for v in vals {
                match present(*v) {
                    Some(Value::Object(o)) => {
                        for (k, x) in o {
                            keys.append_value(k);
                            match x {
                                Value::String(s) => values.append_value(s),
                                Value::Null => values.append_null(),
                                other => values.append_value(other.to_string()),
                            }
                        }
                        nulls.append_non_null();
                    }
                    Some(other) => return Err(format!("expected an object, got {other}")),
                    None => nulls.append_null(),
                }
                offsets.push(
                    i32::try_from(keys.len()).map_err(|_| "map column too large".to_string())?,
                );
            }
            let keys: ArrayRef = Arc::new(keys.finish());
            let values: ArrayRef = Arc::new(values.finish());
            let entries_array = StructArray::try_new(kv.clone(), vec![keys, values], None)
                .map_err(|e| e.to_string())?;
            Arc::new(
                MapArray::try_new(
                    entries.clone(),
                    OffsetBuffer::new(offsets.into()),
                    entries_array,
                    nulls.finish(),
                    false,
                )
                .map_err(|e| e.to_string())?,
            )
        }
        other => return Err(format!("no builder for {other}")),
    })
}

fn struct_array(fields: &Fields, vals: &[Option<&Value>]) -> Result<ArrayRef, String> {
    let mut nulls = NullBufferBuilder::new(vals.len());
    for v in vals {
        match present(*v) {
            Some(Value::Object(_)) => nulls.append_non_null(),
            Some(other) => return Err(format!("expected an object, got {other}")),
            None => nulls.append_null(),
        }
    }
    let mut children = Vec::with_capacity(fields.len());
    for f in fields {
        let child: Vec<Option<&Value>> = vals
            .iter()
            .map(|v| present(*v).and_then(|o| o.get(f.name())))
            .collect();
        children.push(build(f.data_type(), &child).map_err(|e| format!("{}: {e}", f.name()))?);
    }
    let nulls = nulls.finish();
    if fields.is_empty() {
        return Ok(Arc::new(StructArray::new_empty_fields(vals.len(), nulls)));
    }
    Ok(Arc::new(
        StructArray::try_new(fields.clone(), children, nulls).map_err(|e| e.to_string())?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_days_since_the_epoch() {
        let v = |s: &str| Value::String(s.to_string());
        assert_eq!(date(&v("1970-01-02")), Ok(1));
        assert_eq!(date(&v("1969-12-31")), Ok(-1));
        assert_eq!(date(&v("2000-03-01")), Ok(11_017));
        assert!(date(&v("2023-02-29")).is_err());
    }

    #[test]
    fn decimals_are_exact_or_refused() {
        let v = |s: &str| Value::String(s.to_string());
        assert_eq!(decimal(&v("7.5"), 7, 2), Ok(750));
        assert_eq!(decimal(&v("-0.05"), 7, 2), Ok(-5));
        assert_eq!(decimal(&v("7.500"), 7, 2), Ok(750));
        assert!(decimal(&v("7.505"), 7, 2)
            .unwrap_err()
            .contains("3 fractional digits"));
        assert!(decimal(&v("123456"), 7, 2).is_err());
    }
}
