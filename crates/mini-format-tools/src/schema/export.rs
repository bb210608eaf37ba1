//! Contract → JSON Schema.

use serde_json::{json, Map, Value};

use super::{DATE_PATTERN, DECIMAL_PATTERN, DIALECT, STRUCTURAL_KEYS, X_MINI};
use crate::contract::{Bound, Component, Contract, Field, Kind, MarkerRule, Scalar, ScalarType};

type Obj = Map<String, Value>;

/// The raw JSON object of field `i` (core then extensions).
fn raw_field(c: &Contract, i: usize) -> Option<&Obj> {
    let core = c.core().len();
    let (key, j) = if i < core {
        ("core", i)
    } else {
        ("extensions", i - core)
    };
    c.to_value().get(key)?.get(j)?.as_object()
}

/// The raw JSON object of header key `name`, when it is declared.
fn raw_header_key<'a>(c: &'a Contract, name: &str) -> Option<&'a Obj> {
    c.to_value()
        .get("header")?
        .get("keys")?
        .get(name)?
        .as_object()
}

fn raw_component(raw: Option<&Obj>, j: usize) -> Option<&Obj> {
    raw?.get("items")?.get(j)?.as_object()
}

/// A bound as JSON: the value the contract wrote (so `3.0` stays `3.0`),
/// else the bound's canonical text.
fn bound_value(raw: Option<&Obj>, key: &str, bound: Option<&Bound>) -> Option<Value> {
    let bound = bound?;
    if let Some(v) = raw.and_then(|r| r.get(key)).filter(|v| !v.is_null()) {
        return Some(v.clone());
    }
    Some(match bound {
        Bound::Number(d) => {
            let text = d.format(false);
            serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text))
        }
        Bound::Date(s) => Value::String(s.clone()),
    })
}

/// Adds `key: value` to the node's `x-mini` object.
fn annotate(node: &mut Obj, key: &str, value: Value) {
    let slot = node
        .entry(X_MINI.to_string())
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(m) = slot {
        m.insert(key.to_string(), value);
    }
}

/// `{"anyOf": [schema, {"type": "null"}]}`.
fn nullable(schema: Obj) -> Obj {
    let mut out = Map::new();
    out.insert(
        "anyOf".to_string(),
        Value::Array(vec![Value::Object(schema), json!({"type": "null"})]),
    );
    out
}

/// The schema of one scalar. `raw` is the contract object holding its
/// `min`/`max` (None for list items, which have no bounds).
fn scalar_schema(s: &Scalar, raw: Option<&Obj>) -> Obj {
    let mut out = Map::new();
    let lo = bound_value(raw, "min", s.min.as_ref());
    let hi = bound_value(raw, "max", s.max.as_ref());
    match s.ty {
        ScalarType::Str => {
            out.insert("type".into(), json!("string"));
        }
        ScalarType::Int | ScalarType::Float => {
            let t = if s.ty == ScalarType::Int {
                "integer"
            } else {
                "number"
            };
            out.insert("type".into(), json!(t));
            if let Some(v) = lo {
                out.insert("minimum".into(), v);
            }
            if let Some(v) = hi {
                out.insert("maximum".into(), v);
            }
        }
        ScalarType::Bool => {
            out.insert("type".into(), json!("boolean"));
        }
        ScalarType::Enum => {
            out.insert("type".into(), json!("string"));
            out.insert("enum".into(), json!(s.values));
        }
        ScalarType::Date | ScalarType::Decimal => {
            out.insert("type".into(), json!("string"));
            if s.ty == ScalarType::Date {
                out.insert("format".into(), json!("date"));
                out.insert("pattern".into(), json!(DATE_PATTERN));
            } else {
                out.insert("pattern".into(), json!(DECIMAL_PATTERN));
            }
            annotate(&mut out, "type", json!(s.ty.name()));
            if let Some(v) = lo {
                annotate(&mut out, "min", v);
            }
            if let Some(v) = hi {
                annotate(&mut out, "max", v);
            }
        }
    }
    out
}

fn describe(node: &mut Obj, desc: Option<&String>, default: Option<&Value>) {
    if let Some(d) = desc {
        node.insert("description".into(), Value::String(d.clone()));
    }
    if let Some(d) = default {
        node.insert("default".into(), d.clone());
    }
}

fn tuple_schema(comps: &[Component], raw: Option<&Obj>) -> Obj {
    let mut props = Map::new();
    for (j, c) in comps.iter().enumerate() {
        let s = scalar_schema(&c.scalar, raw_component(raw, j));
        let mut s = if c.optional { nullable(s) } else { s };
        describe(&mut s, c.desc.as_ref(), None);
        props.insert(c.name.clone(), Value::Object(s));
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    out.insert(
        "required".into(),
        json!(comps.iter().map(|c| c.name.as_str()).collect::<Vec<_>>()),
    );
    out.insert("additionalProperties".into(), json!(false));
    out
}

fn array_schema(item: &Scalar, min: Option<u64>, max: Option<u64>) -> Obj {
    let mut out = Map::new();
    out.insert("type".into(), json!("array"));
    out.insert("items".into(), Value::Object(scalar_schema(item, None)));
    if let Some(m) = min {
        out.insert("minItems".into(), json!(m));
    }
    if let Some(m) = max {
        out.insert("maxItems".into(), json!(m));
    }
    out
}

/// The schema of a non-mlist kind (field or header key).
fn kind_schema(kind: &Kind, raw: Option<&Obj>) -> Obj {
    match kind {
        Kind::Scalar(s) => scalar_schema(s, raw),
        Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
            let mut s = array_schema(item, arity.min, arity.max);
            if let Some(k) = &arity.count_key {
                annotate(&mut s, "count_key", json!(k));
            }
            s
        }
        Kind::Tuple(comps) => tuple_schema(comps, raw),
    }
}

/// Merges the `x-mini` annotations of `extra` into `node`'s.
fn merge_x(node: &mut Obj, extra: Obj) {
    for (k, v) in extra {
        annotate(node, &k, v);
    }
}

/// The properties of one field: `(key, schema)`, two for a marked list.
fn field_schemas(f: &Field, position: usize, raw: Option<&Obj>) -> Vec<(String, Value)> {
    let mut x = Map::new();
    x.insert("position".into(), json!(position));
    if f.extension {
        x.insert("extension".into(), json!(true));
    }
    if f.unique {
        x.insert("unique".into(), json!(true));
    }
    let null_ok = f.optional || f.extension;
    let mut main = kind_schema(&f.kind, raw);
    let mut out = Vec::with_capacity(2);
    if let Kind::MList {
        marker,
        items_key,
        selected_key,
        ..
    } = &f.kind
    {
        x.insert("type".into(), json!("mlist"));
        x.insert("field".into(), json!(f.name));
        x.insert("marker".into(), json!(marker.name()));
        x.insert("selected".into(), json!(selected_key));
        let mut sel = match marker {
            MarkerRule::ExactlyOne => json!({"type": "integer", "minimum": 0}),
            MarkerRule::AtMostOne => json!({"type": ["integer", "null"], "minimum": 0}),
            MarkerRule::AtLeastOne => json!({
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "minItems": 1,
                "uniqueItems": true
            }),
            MarkerRule::Any => json!({
                "type": "array",
                "items": {"type": "integer", "minimum": 0},
                "uniqueItems": true
            }),
        }
        .as_object()
        .cloned()
        .unwrap_or_default();
        if null_ok && *marker != MarkerRule::AtMostOne {
            sel = nullable(sel);
        }
        sel.insert(
            "description".into(),
            json!(format!(
                "index of the selected element(s) of '{items_key}' ({})",
                marker.name()
            )),
        );
        annotate(&mut sel, "selected_of", json!(f.name));
        let mut main = if null_ok { nullable(main) } else { main };
        describe(&mut main, f.desc.as_ref(), f.default.as_ref());
        merge_x(&mut main, x);
        out.push((items_key.clone(), Value::Object(main)));
        out.push((selected_key.clone(), Value::Object(sel)));
        return out;
    }
    if null_ok {
        main = nullable(main);
    }
    describe(&mut main, f.desc.as_ref(), f.default.as_ref());
    merge_x(&mut main, x);
    out.push((f.name.clone(), Value::Object(main)));
    out
}

/// The schema of one record.
fn record_schema(c: &Contract) -> Obj {
    let mut props = Map::new();
    let mut required = Vec::new();
    for (i, f) in c.fields().iter().enumerate() {
        for (key, s) in field_schemas(f, i, raw_field(c, i)) {
            if !f.extension {
                required.push(Value::String(key.clone()));
            }
            props.insert(key, s);
        }
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    out.insert("required".into(), Value::Array(required));
    out.insert("additionalProperties".into(), json!(false));
    out
}

/// The schema of the canonical header object.
fn header_schema(c: &Contract) -> Obj {
    let mut props = Map::new();
    let mut required = Vec::new();
    for k in c.header_keys() {
        let mut s = kind_schema(&k.kind, raw_header_key(c, &k.name));
        describe(&mut s, k.desc.as_ref(), k.default.as_ref());
        if k.required {
            required.push(json!(k.name));
        }
        props.insert(k.name.clone(), Value::Object(s));
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    out.insert("required".into(), Value::Array(required));
    out.insert("additionalProperties".into(), json!({"type": "string"}));
    out
}

/// The root `x-mini` object.
fn root_meta(c: &Contract) -> Obj {
    let mut m = Map::new();
    m.insert("prefix".into(), json!(c.prefix()));
    m.insert("version".into(), json!(c.version()));
    m.insert("list_separator".into(), json!(c.separator().to_string()));
    m.insert("records_key".into(), json!(c.records_key()));
    if let Some(p) = c.parent() {
        m.insert("parent".into(), json!(p));
    }
    m.insert(
        "header_order".into(),
        json!(c
            .header_keys()
            .iter()
            .map(|k| k.name.as_str())
            .collect::<Vec<_>>()),
    );
    let mut meta = Map::new();
    if let Some(raw) = c.to_value().as_object() {
        for (k, v) in raw {
            if STRUCTURAL_KEYS.contains(&k.as_str()) || v.is_null() {
                continue;
            }
            // a string name/description travels as title/description
            if (k == "name" || k == "description") && v.is_string() {
                continue;
            }
            meta.insert(k.clone(), v.clone());
        }
    }
    if !meta.is_empty() {
        m.insert("meta".into(), Value::Object(meta));
    }
    m
}

/// The JSON Schema (draft 2020-12) of the canonical object of `contract`,
/// or of one record with `record_only`.
///
/// The document schema is
/// `{"type": "object", "properties": {"prefix": {"const": …}, "header": {…},
/// "<records_key>": {"type": "array", "items": <record>}}, "required": [all
/// three], "additionalProperties": false}`; the record-only schema is the
/// record object itself. Both carry `$schema`, the contract's `name` as
/// `title` and its `description`, and the `x-mini` annotations described in
/// the [module docs](crate::schema) (a record-only schema keeps the header
/// schema in `x-mini.header`), so that [`super::from_schema`] rebuilds the
/// contract losslessly.
pub fn to_schema(contract: &Contract, record_only: bool) -> Value {
    let c = contract;
    let mut out = Map::new();
    out.insert("$schema".into(), json!(DIALECT));
    if let Some(name) = c.meta("name") {
        out.insert("title".into(), json!(name));
    }
    if let Some(d) = c.meta("description") {
        out.insert("description".into(), json!(d));
    }
    let mut meta = root_meta(c);
    let record = record_schema(c);
    if record_only {
        meta.insert("header".into(), Value::Object(header_schema(c)));
        out.extend(record);
    } else {
        let mut props = Map::new();
        props.insert("prefix".into(), json!({"const": c.prefix()}));
        props.insert("header".into(), Value::Object(header_schema(c)));
        props.insert(
            c.records_key().to_string(),
            json!({"type": "array", "items": Value::Object(record)}),
        );
        out.insert("type".into(), json!("object"));
        out.insert("properties".into(), Value::Object(props));
        out.insert(
            "required".into(),
            json!(["prefix", "header", c.records_key()]),
        );
        out.insert("additionalProperties".into(), json!(false));
    }
    out.insert(X_MINI.into(), Value::Object(meta));
    Value::Object(out)
}
