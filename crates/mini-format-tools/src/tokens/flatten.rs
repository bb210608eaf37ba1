//! The flattened, tabular view of a canonical object (the upstream
//! benchmark's `flatten_record`), and its CSV text.
//!
//! One row per record, one column per scalar field, in contract order:
//!
//! * a scalar field is one column named after the field;
//! * a list (or the elements of a marked list) whose length is fixed — by an
//!   integer count key in the header, or by `min == max` — becomes numbered
//!   columns `name_1 … name_k`; any other list is one column whose elements
//!   are joined with `;`;
//! * a marked list adds a column named after its selection key holding the
//!   1-based selected index (several indices joined with `;`, empty when
//!   nothing is selected);
//! * a tuple becomes one column per component, `field_component`.
//!
//! The header line is dropped: a CSV table cannot carry it.

use serde_json::{Map, Value};

use crate::contract::{Arity, Contract, Kind};
use crate::number::Dec;

/// The number of columns a list gets, when its length is fixed.
fn fixed_arity(arity: &Arity, header: &Map<String, Value>) -> Option<usize> {
    if let Some(k) = arity
        .count_key
        .as_deref()
        .and_then(|k| header.get(k))
        .and_then(Value::as_u64)
    {
        return usize::try_from(k).ok().filter(|&k| k > 0);
    }
    match (arity.min, arity.max) {
        (Some(a), Some(b)) if a == b => usize::try_from(a).ok().filter(|&k| k > 0),
        _ => None,
    }
}

/// A leaf value as CSV text: numbers as `.mini` writes them (`-1.0` → `-1`),
/// booleans `true`/`false`, null empty.
pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => if *b { "true" } else { "false" }.to_string(),
        Value::Number(n) => {
            let s = n.to_string();
            Dec::parse(&s).map_or(s, |d| d.format(false))
        }
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn joined(items: &[Value]) -> Value {
    Value::String(items.iter().map(text).collect::<Vec<_>>().join(";"))
}

/// The list as numbered columns (fixed length) or one joined column.
fn list_columns(
    out: &mut Map<String, Value>,
    key: &str,
    items: &[Value],
    arity: &Arity,
    header: &Map<String, Value>,
) {
    match fixed_arity(arity, header) {
        Some(k) => {
            for i in 0..k {
                out.insert(
                    format!("{key}_{}", i + 1),
                    items.get(i).cloned().unwrap_or(Value::Null),
                );
            }
        }
        None => {
            out.insert(key.to_string(), joined(items));
        }
    }
}

/// The 1-based selection: a number for a single index, `;`-joined text for
/// a list of indices, null for no selection.
fn selection(sel: Option<&Value>) -> Value {
    let one_based = |v: &Value| v.as_u64().map(|i| i + 1);
    match sel {
        Some(Value::Array(xs)) => Value::String(
            xs.iter()
                .map(|x| one_based(x).map_or_else(|| text(x), |i| i.to_string()))
                .collect::<Vec<_>>()
                .join(";"),
        ),
        Some(v) => one_based(v).map_or(Value::Null, Value::from),
        None => Value::Null,
    }
}

/// One flattened row.
pub(crate) fn record(
    rec: &Map<String, Value>,
    contract: &Contract,
    header: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    let empty: &[Value] = &[];
    for f in contract.fields() {
        match &f.kind {
            Kind::Scalar(_) => {
                out.insert(
                    f.name.clone(),
                    rec.get(&f.name).cloned().unwrap_or(Value::Null),
                );
            }
            Kind::List { arity, .. } => {
                let items = rec.get(&f.name).and_then(Value::as_array);
                list_columns(
                    &mut out,
                    &f.name,
                    items.map_or(empty, Vec::as_slice),
                    arity,
                    header,
                );
            }
            Kind::MList {
                arity,
                items_key,
                selected_key,
                ..
            } => {
                let items = rec.get(items_key).and_then(Value::as_array);
                list_columns(
                    &mut out,
                    items_key,
                    items.map_or(empty, Vec::as_slice),
                    arity,
                    header,
                );
                out.insert(selected_key.clone(), selection(rec.get(selected_key)));
            }
            Kind::Tuple(comps) => {
                let t = rec.get(&f.name).and_then(Value::as_object);
                for c in comps {
                    out.insert(
                        format!("{}_{}", f.name, c.name),
                        t.and_then(|t| t.get(&c.name))
                            .cloned()
                            .unwrap_or(Value::Null),
                    );
                }
            }
        }
    }
    out
}

/// The column names of the flattened table (they depend on the contract and
/// on the header's count keys, never on the records).
pub(crate) fn columns(contract: &Contract, header: &Map<String, Value>) -> Vec<String> {
    record(&Map::new(), contract, header)
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

/// One CSV field, quoted only when needed (RFC 4180, like Python's
/// `csv.QUOTE_MINIMAL`): a field holding a comma, a double quote or a line
/// break is wrapped in double quotes, inner quotes doubled.
fn push_field(out: &mut String, field: &str) {
    if field.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&field.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(field);
    }
}

fn push_row<'a>(out: &mut String, fields: impl ExactSizeIterator<Item = &'a str>) {
    let n = fields.len();
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if n == 1 && f.is_empty() {
            // a lone empty field would read back as an empty line
            out.push_str("\"\"");
        } else {
            push_field(out, f);
        }
    }
}

/// The CSV text: a row of column names, then one row per record; `\n`
/// between rows, no final line break.
pub(crate) fn csv(columns: &[String], rows: &[Map<String, Value>]) -> String {
    let mut out = String::new();
    push_row(&mut out, columns.iter().map(String::as_str));
    for r in rows {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| r.get(c).map(text).unwrap_or_default())
            .collect();
        out.push('\n');
        push_row(&mut out, cells.iter().map(String::as_str));
    }
    out
}
