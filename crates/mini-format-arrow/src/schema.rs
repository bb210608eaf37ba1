//! The Arrow schema of a contract (ADR 0030).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, FieldRef, Fields, Schema};
use mini::contract::{Bound, Kind, Scalar, ScalarType};
use mini::Contract;
use serde_json::Value;

use crate::reader::Options;
use crate::{Error, Result};

/// The struct column holding each record's document header (the typed
/// keys, `n` and `v`).
pub const HEADER_COLUMN: &str = "header";
/// The map column holding the header keys the contract does not declare
/// (provenance such as `model=`), as text.
pub const HEADER_EXTRA_COLUMN: &str = "header_extra";
/// The column holding the id of the document a record comes from
/// ([`Options::source`]).
pub const SOURCE_COLUMN: &str = "source";
/// The column holding a record's 1-based physical line in its document
/// ([`Options::source`]).
pub const LINE_COLUMN: &str = "source_line";

/// Where a column's values come from.
#[derive(Debug, Clone)]
pub(crate) enum From {
    /// A canonical key of the record.
    Record(String),
    /// The document's typed header.
    Header,
    /// The document's undeclared header keys.
    HeaderExtra(Vec<String>),
    /// The document id.
    Source,
    /// The record's line.
    Line,
}

/// A column of the schema and where its values come from.
#[derive(Debug, Clone)]
pub(crate) struct Column {
    pub(crate) field: FieldRef,
    pub(crate) from: From,
}

/// The Arrow schema of `contract` with the default [`Options`]: the record
/// columns, then `header` and `header_extra`.
///
/// ```
/// use mini_arrow::arrow_schema::DataType;
/// let contract = mini::Contract::from_json(r#"{"prefix": "q", "core": [
///     {"name": "id", "type": "str"},
///     {"name": "level", "type": "enum", "values": ["L1", "L2"]},
///     {"name": "options", "type": "mlist", "json": {"items": "options", "selected": "answer"}}
/// ]}"#)?;
/// let schema = mini_arrow::schema(&contract)?;
/// assert_eq!(schema.field_with_name("id")?.data_type(), &DataType::Utf8);
/// assert_eq!(schema.field_with_name("answer")?.data_type(), &DataType::Int32);
/// assert!(schema.field_with_name("header").is_ok());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn schema(contract: &Contract) -> Result<Schema> {
    schema_with(contract, &Options::default())
}

/// The Arrow schema of `contract` with the columns `options` asks for.
pub fn schema_with(contract: &Contract, options: &Options) -> Result<Schema> {
    let columns = columns(contract, options)?;
    Ok(
        Schema::new(columns.iter().map(|c| c.field.clone()).collect::<Vec<_>>())
            .with_metadata(metadata(contract)),
    )
}

fn metadata(contract: &Contract) -> HashMap<String, String> {
    HashMap::from([
        ("mini.prefix".to_string(), contract.prefix().to_string()),
        ("mini.version".to_string(), contract.version().to_string()),
        (
            "mini.records_key".to_string(),
            contract.records_key().to_string(),
        ),
        ("mini.contract".to_string(), contract.to_value().to_string()),
    ])
}

/// Every column, in order: the record's canonical keys, the header
/// columns, the source columns.
pub(crate) fn columns(contract: &Contract, options: &Options) -> Result<Vec<Column>> {
    let raw = contract.to_value();
    let mut out: Vec<Column> = Vec::new();
    for f in contract.fields() {
        let spec = raw_field(raw, &f.name);
        let meta = |sig: String| HashMap::from([("mini.type".to_string(), sig)]);
        match &f.kind {
            Kind::MList {
                item,
                marker,
                items_key,
                selected_key,
                ..
            } => {
                let items = list_of(scalar_type(item, None, &f.name)?);
                out.push(record_col(
                    Field::new(items_key, items, f.optional)
                        .with_metadata(meta(f.kind.signature())),
                ));
                let selected = if marker.is_single() {
                    DataType::Int32
                } else {
                    list_of(DataType::Int32)
                };
                let nullable =
                    f.optional || !matches!(marker, mini::contract::MarkerRule::ExactlyOne);
                out.push(record_col(
                    Field::new(selected_key, selected, nullable)
                        .with_metadata(meta(format!("selected of {}", f.name))),
                ));
            }
            kind => {
                let dt = kind_type(kind, spec, &f.name)?;
                out.push(record_col(
                    Field::new(&f.name, dt, f.optional).with_metadata(meta(kind.signature())),
                ));
            }
        }
    }
    if options.header {
        let mut children = Vec::new();
        let mut declared = Vec::new();
        let raw_keys = raw.get("header").and_then(|h| h.get("keys"));
        for name in ["n", "v"] {
            if contract.header_key(name).is_none() {
                children.push(Field::new(name, DataType::Int64, true));
                declared.push(name.to_string());
            }
        }
        for k in contract.header_keys() {
            let spec = raw_keys.and_then(|keys| keys.get(&k.name));
            let path = format!("{HEADER_COLUMN}.{}", k.name);
            children.push(Field::new(&k.name, kind_type(&k.kind, spec, &path)?, true));
            declared.push(k.name.clone());
        }
        out.push(Column {
            field: Arc::new(Field::new(
                HEADER_COLUMN,
                DataType::Struct(Fields::from(children)),
                true,
            )),
            from: From::Header,
        });
        out.push(Column {
            field: Arc::new(Field::new(HEADER_EXTRA_COLUMN, map_type(), true)),
            from: From::HeaderExtra(declared),
        });
    }
    if options.source {
        out.push(Column {
            field: Arc::new(Field::new(SOURCE_COLUMN, DataType::Utf8, false)),
            from: From::Source,
        });
        out.push(Column {
            field: Arc::new(Field::new(LINE_COLUMN, DataType::UInt64, false)),
            from: From::Line,
        });
    }
    let mut seen = std::collections::HashSet::new();
    for c in &out {
        if !seen.insert(c.field.name().as_str()) {
            return Err(Error::Schema {
                field: c.field.name().clone(),
                message: format!(
                    "the column '{}' is both a record key and a column this crate adds (turn off \
                     Options::header or Options::source, or rename the field)",
                    c.field.name()
                ),
            });
        }
    }
    Ok(out)
}

fn record_col(field: Field) -> Column {
    let from = From::Record(field.name().clone());
    Column {
        field: Arc::new(field),
        from,
    }
}

/// `Map<Utf8, Utf8>` with the entry names arrow-rs uses.
pub(crate) fn map_type() -> DataType {
    DataType::Map(
        Arc::new(Field::new(
            "entries",
            DataType::Struct(Fields::from(vec![
                Field::new("keys", DataType::Utf8, false),
                Field::new("values", DataType::Utf8, true),
            ])),
            false,
        )),
        false,
    )
}

pub(crate) fn list_of(item: DataType) -> DataType {
    DataType::List(Arc::new(Field::new("item", item, false)))
}

/// The raw JSON of a record field, for the bounds as they were written.
fn raw_field<'a>(raw: &'a Value, name: &str) -> Option<&'a Value> {
    ["core", "extensions"]
        .iter()
        .filter_map(|k| raw.get(k)?.as_array())
        .flatten()
        .find(|f| f.get("name").and_then(Value::as_str) == Some(name))
}

fn kind_type(kind: &Kind, spec: Option<&Value>, path: &str) -> Result<DataType> {
    Ok(match kind {
        Kind::Scalar(s) => scalar_type(s, spec, path)?,
        // list bounds count elements: a list<decimal> has no value bounds
        Kind::List { item, .. } | Kind::MList { item, .. } => {
            list_of(scalar_type(item, None, path)?)
        }
        Kind::Tuple(components) => {
            let items = spec.and_then(|s| s.get("items")).and_then(Value::as_array);
            let mut fields = Vec::new();
            for c in components {
                let cspec = items.and_then(|items| {
                    items
                        .iter()
                        .find(|i| i.get("name").and_then(Value::as_str) == Some(c.name.as_str()))
                });
                let cpath = format!("{path}.{}", c.name);
                fields.push(Field::new(
                    &c.name,
                    scalar_type(&c.scalar, cspec, &cpath)?,
                    c.optional,
                ));
            }
            DataType::Struct(Fields::from(fields))
        }
    })
}

fn scalar_type(s: &Scalar, spec: Option<&Value>, path: &str) -> Result<DataType> {
    Ok(match s.ty {
        ScalarType::Str => DataType::Utf8,
        ScalarType::Int => int_type(s, path)?,
        ScalarType::Float => DataType::Float64,
        ScalarType::Bool => DataType::Boolean,
        ScalarType::Enum => {
            DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
        }
        ScalarType::Date => DataType::Date32,
        ScalarType::Decimal => decimal_type(s, spec),
    })
}

/// An integral bound as an `i128`: `None` when beyond `i128` (far beyond
/// 64 bits either way). A fractional bound of an int field is rounded
/// inwards (`max: 2.5` admits at most 2).
fn bound_int(b: &Bound, upper: bool) -> Option<i128> {
    let Bound::Number(d) = b else { return None };
    if let Some(t) = d.integer_text() {
        return t.parse::<i128>().ok();
    }
    let x = d.as_f64();
    let x = if upper { x.floor() } else { x.ceil() };
    (x.is_finite() && x.abs() < 1e30).then_some(x as i128)
}

fn int_type(s: &Scalar, path: &str) -> Result<DataType> {
    let lo = s.min.as_ref().map(|b| (bound_int(b, false), b));
    let hi = s.max.as_ref().map(|b| (bound_int(b, true), b));
    let (i64_lo, i64_hi, u64_hi) = (
        i128::from(i64::MIN),
        i128::from(i64::MAX),
        i128::from(u64::MAX),
    );
    let beyond = |what: &str| Error::Schema {
        field: path.to_string(),
        message: format!(
            "int bounds {what} reach beyond 64 bits: no Arrow integer type holds every value \
             (narrow min/max, or use a decimal or str field)"
        ),
    };
    let lo_v = match lo {
        Some((Some(v), _)) => Some(v),
        Some((None, _)) => return Err(beyond(&format!("[min {:?}]", s.min))),
        None => None,
    };
    let hi_v = match hi {
        Some((Some(v), _)) => Some(v),
        Some((None, _)) => return Err(beyond(&format!("[max {:?}]", s.max))),
        None => None,
    };
    let text = || {
        format!(
            "[{}, {}]",
            lo_v.map_or("-inf".to_string(), |v| v.to_string()),
            hi_v.map_or("+inf".to_string(), |v| v.to_string())
        )
    };
    if lo_v.is_some_and(|v| v < i64_lo) || hi_v.is_some_and(|v| v > u64_hi) {
        return Err(beyond(&text()));
    }
    if hi_v.is_some_and(|v| v > i64_hi) {
        // only an unsigned column holds values past i64::MAX
        return if lo_v.is_some_and(|v| v >= 0) {
            Ok(DataType::UInt64)
        } else {
            Err(beyond(&text()))
        };
    }
    Ok(DataType::Int64)
}

/// `Decimal128(p, s)` when both bounds are given and `p ≤ 38`: `s` is the
/// most fractional digits either bound is written with, `p` the most
/// integer digits plus `s`. Else `Utf8` (the canonical text, exact).
fn decimal_type(s: &Scalar, spec: Option<&Value>) -> DataType {
    let (Some(Bound::Number(min)), Some(Bound::Number(max))) = (&s.min, &s.max) else {
        return DataType::Utf8;
    };
    let written = |key: &str, parsed: String| -> String {
        match spec.and_then(|s| s.get(key)) {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => parsed,
        }
    };
    let texts = [
        written("min", min.format(false)),
        written("max", max.format(false)),
    ];
    let mut int_digits = 0usize;
    let mut scale = 0usize;
    for t in &texts {
        if t.contains(['e', 'E']) {
            return DataType::Utf8;
        }
        let t = t.trim_start_matches('-');
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        int_digits = int_digits.max(int.trim_start_matches('0').len());
        scale = scale.max(frac.len());
    }
    let precision = (int_digits + scale).max(1);
    if precision > 38 {
        return DataType::Utf8;
    }
    DataType::Decimal128(precision as u8, scale as i8)
}
