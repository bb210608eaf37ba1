//! Record batches back into canonical JSON rows.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float64Type, Int32Type, Int64Type, UInt64Type,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use serde_json::{Map, Number, Value};

use crate::{Error, Result};

/// The rows of `batch` as JSON objects keyed by column name, in the
/// canonical JSON's spelling: a record's canonical keys hold its canonical
/// values (a `Date32` is `"YYYY-MM-DD"`, a `Decimal128` its decimal text
/// at the column's scale, a dictionary its value), `header` the typed
/// header, `header_extra` the undeclared keys. What a Parquet file read
/// back with the `parquet` crate's Arrow reader gives, row by row.
pub fn to_json_rows(batch: &RecordBatch) -> Result<Vec<Map<String, Value>>> {
    let schema = batch.schema();
    let mut rows = vec![Map::new(); batch.num_rows()];
    for (f, col) in schema.fields().iter().zip(batch.columns()) {
        for (i, row) in rows.iter_mut().enumerate() {
            let v = value_at(col.as_ref(), i).map_err(|message| Error::Schema {
                field: f.name().clone(),
                message,
            })?;
            row.insert(f.name().clone(), v);
        }
    }
    Ok(rows)
}

fn value_at(a: &dyn Array, i: usize) -> Result<Value, String> {
    if a.is_null(i) {
        return Ok(Value::Null);
    }
    Ok(match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(i).into(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(i).into(),
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt64 => a.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Int32 => a.as_primitive::<Int32Type>().value(i).into(),
        DataType::Float64 => Number::from_f64(a.as_primitive::<Float64Type>().value(i))
            .map_or(Value::Null, Value::Number),
        DataType::Boolean => a.as_boolean().value(i).into(),
        DataType::Date32 => {
            let days = i64::from(a.as_primitive::<Date32Type>().value(i));
            // a day outside 0001..=9999 cannot come from a .mini document
            mini::Date::from_days_since_epoch(days).map_or(Value::Null, |d| d.to_string().into())
        }
        DataType::Decimal128(_, s) => {
            let v = a.as_primitive::<Decimal128Type>().value(i);
            decimal_text(v, *s).into()
        }
        DataType::Dictionary(k, _) if **k == DataType::Int32 => {
            let d = a.as_dictionary::<Int32Type>();
            let key = usize::try_from(d.keys().value(i)).map_err(|e| e.to_string())?;
            value_at(d.values().as_ref(), key)?
        }
        DataType::List(_) => {
            let items = a.as_list::<i32>().value(i);
            Value::Array(
                (0..items.len())
                    .map(|j| value_at(items.as_ref(), j))
                    .collect::<Result<_, _>>()?,
            )
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let mut o = Map::new();
            for (f, c) in fields.iter().zip(s.columns()) {
                o.insert(f.name().clone(), value_at(c.as_ref(), i)?);
            }
            Value::Object(o)
        }
        DataType::Map(_, _) => {
            let m = a.as_map();
            let entries = m.value(i);
            let mut o = Map::new();
            for j in 0..entries.len() {
                let k = value_at(entries.column(0).as_ref(), j)?;
                let v = value_at(entries.column(1).as_ref(), j)?;
                o.insert(k.as_str().unwrap_or_default().to_string(), v);
            }
            Value::Object(o)
        }
        other => return Err(format!("no JSON form for {other}")),
    })
}

fn decimal_text(v: i128, scale: i8) -> String {
    let digits = v.unsigned_abs().to_string();
    let sign = if v < 0 { "-" } else { "" };
    let s = usize::try_from(scale).unwrap_or(0);
    if s == 0 {
        return format!("{sign}{digits}");
    }
    let padded = format!("{digits:0>width$}", width = s + 1);
    let (int, frac) = padded.split_at(padded.len() - s);
    format!("{sign}{int}.{frac}")
}
