//! From a [`Describe`] tree to the contract.json of a document type.

use serde_json::{json, Map, Value};

use super::{Bound, Describe, FieldDesc, StructDesc};
use crate::contract::{MarkerRule, ScalarType};
use crate::error::{Code, Diagnostic, Error, Result};

fn e20(msg: String) -> Error {
    Error::invalid(vec![Diagnostic::new(Code::E20, 0, None, msg)])
}

fn bound_json(b: &Bound) -> Value {
    match b {
        Bound::Int(i) => i
            .to_string()
            .parse::<serde_json::Number>()
            .map_or(Value::Null, Value::Number),
        Bound::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Bound::Str(s) => Value::String((*s).to_string()),
    }
}

/// The contract type of a scalar-like description: `(type, enum values)`.
fn scalar_of(d: &Describe) -> Option<(&'static str, Option<&Vec<String>>)> {
    match d {
        Describe::Scalar(t) => Some((t.name(), None)),
        Describe::Enum(v) => Some(("enum", Some(v))),
        _ => None,
    }
}

fn unwrap_optional(d: &Describe) -> (bool, &Describe) {
    match d {
        Describe::Optional(inner) => (true, inner),
        other => (false, other),
    }
}

struct Ctx<'a> {
    owner: &'a str,
}

impl Ctx<'_> {
    fn err(&self, field: &str, msg: impl std::fmt::Display) -> Error {
        e20(format!("{}.{field}: {msg}", self.owner))
    }

    fn tuple_items(&self, field: &str, t: &StructDesc) -> Result<Value> {
        let mut items = Vec::new();
        for c in &t.fields {
            let (optional, inner) = unwrap_optional(&c.ty);
            let Some((ty, values)) = scalar_of(inner) else {
                return Err(self.err(
                    field,
                    format_args!(
                        "tuple component '{}' of {} must be a scalar or a unit enum (a tuple has one level)",
                        c.name, t.rust_name
                    ),
                ));
            };
            let mut m = Map::new();
            m.insert("name".into(), json!(c.name));
            m.insert("type".into(), json!(ty));
            if let Some(v) = values {
                m.insert("values".into(), json!(v));
            }
            if optional {
                m.insert("optional".into(), json!(true));
            }
            if let Some(b) = &c.attrs.min {
                m.insert("min".into(), bound_json(b));
            }
            if let Some(b) = &c.attrs.max {
                m.insert("max".into(), bound_json(b));
            }
            if let Some(d) = c.attrs.desc {
                m.insert("desc".into(), json!(d));
            }
            items.push(Value::Object(m));
        }
        Ok(Value::Array(items))
    }

    /// The contract entry of a field (record field or header key).
    fn entry(
        &self,
        f: &FieldDesc,
        selected: Option<&FieldDesc>,
        header: bool,
    ) -> Result<Map<String, Value>> {
        let name = f.name.as_ref();
        let (optional, inner) = unwrap_optional(&f.ty);
        let mut m = Map::new();
        m.insert("name".into(), json!(name));
        let a = &f.attrs;
        let mut arity = false;
        match (inner, a.mlist) {
            (Describe::List(item), Some(rule)) => {
                if header {
                    return Err(self.err(name, "a header key cannot be a marked list"));
                }
                let Some((ty, values)) = scalar_of(item) else {
                    return Err(self.err(name, "a marked list holds scalars or unit enums"));
                };
                m.insert("type".into(), json!("mlist"));
                m.insert("item".into(), json!(ty));
                if let Some(v) = values {
                    m.insert("item_values".into(), json!(v));
                }
                m.insert("marker".into(), json!(rule.name()));
                let Some(sel) = selected else {
                    return Err(self.err(
                        name,
                        "#[mini(mlist)] needs #[mini(selected = \"…\")] naming the sibling field that holds the selection",
                    ));
                };
                let (sel_opt, sel_ty) = unwrap_optional(&sel.ty);
                let ok = match rule {
                    MarkerRule::ExactlyOne => {
                        !sel_opt && matches!(sel_ty, Describe::Scalar(ScalarType::Int))
                    }
                    MarkerRule::AtMostOne => {
                        sel_opt && matches!(sel_ty, Describe::Scalar(ScalarType::Int))
                    }
                    MarkerRule::AtLeastOne | MarkerRule::Any => {
                        matches!(sel_ty, Describe::List(i) if **i == Describe::Scalar(ScalarType::Int))
                    }
                };
                if !ok {
                    let want = match rule {
                        MarkerRule::ExactlyOne => "usize",
                        MarkerRule::AtMostOne => "Option<usize>",
                        _ => "Vec<usize>",
                    };
                    return Err(self.err(
                        name,
                        format_args!(
                            "the selection '{}' of a {} list must be a {want}",
                            sel.name,
                            rule.name()
                        ),
                    ));
                }
                m.insert("json".into(), json!({"items": name, "selected": sel.name}));
                arity = true;
            }
            (_, Some(_)) => return Err(self.err(name, "#[mini(mlist)] goes on a Vec field")),
            (Describe::List(item), None) => {
                let Some((ty, values)) = scalar_of(item) else {
                    return Err(self.err(
                        name,
                        "a list holds scalars or unit enums (no nested lists, structs or options)",
                    ));
                };
                m.insert("type".into(), json!("list"));
                m.insert("item".into(), json!(ty));
                if let Some(v) = values {
                    m.insert("item_values".into(), json!(v));
                }
                arity = true;
            }
            (Describe::Struct(t), None) => {
                m.insert("type".into(), json!("tuple"));
                m.insert("items".into(), self.tuple_items(name, t)?);
            }
            (Describe::Optional(_), None) => {
                return Err(self.err(name, "Option<Option<T>> cannot be told apart"))
            }
            (Describe::Unsupported(why), None) => return Err(self.err(name, why)),
            (d, None) => {
                let Some((ty, values)) = scalar_of(d) else {
                    return Err(self.err(name, "unsupported type"));
                };
                m.insert("type".into(), json!(ty));
                if let Some(v) = values {
                    m.insert("values".into(), json!(v));
                }
            }
        }
        if let Some(b) = &a.min {
            m.insert("min".into(), bound_json(b));
        }
        if let Some(b) = &a.max {
            m.insert("max".into(), bound_json(b));
        }
        if let Some(k) = a.count_key {
            if !arity {
                return Err(self.err(name, "count_key goes on a list or marked list"));
            }
            m.insert("count_key".into(), json!(k));
        }
        if a.extension && !optional && !a.serde_default {
            return Err(self.err(
                name,
                "an extension may be absent: make it Option<T> or give it #[serde(default)]",
            ));
        }
        if !header && (optional || a.serde_default) && !a.extension {
            m.insert("optional".into(), json!(true));
        }
        if a.unique {
            m.insert("unique".into(), json!(true));
        }
        if let Some(d) = a.desc {
            m.insert("desc".into(), json!(d));
        }
        Ok(m)
    }
}

/// The reading hint of a document type (ADR 0032): whether every value of
/// its record struct that may be absent (an optional field, an extension,
/// an optional tuple component) is an `Option<T>` without
/// `#[serde(default)]`, so that serde reads an absent one as `None` when
/// the record is handed to it as a sequence.
pub(crate) fn read_hint(d: &Describe) -> crate::contract::ReadHint {
    fn absent_is_none(s: &StructDesc) -> bool {
        s.fields.iter().all(|f| {
            let may_be_absent =
                f.attrs.serde_default || f.attrs.extension || matches!(f.ty, Describe::Optional(_));
            let ok =
                !may_be_absent || (matches!(f.ty, Describe::Optional(_)) && !f.attrs.serde_default);
            let (_, inner) = unwrap_optional(&f.ty);
            ok && match inner {
                Describe::Struct(t) => absent_is_none(t),
                _ => true,
            }
        })
    }
    let record = match d {
        Describe::Struct(doc) => {
            let key = doc.records.unwrap_or("records");
            doc.fields
                .iter()
                .find(|f| f.name == key)
                .and_then(|f| match &f.ty {
                    Describe::List(inner) => match inner.as_ref() {
                        Describe::Struct(r) => Some(r),
                        _ => None,
                    },
                    _ => None,
                })
        }
        _ => None,
    };
    crate::contract::ReadHint {
        derived: true,
        absent_is_none: record.is_some_and(absent_is_none),
    }
}

/// The contract.json (as a JSON value) of a document type: a struct with
/// `#[mini(prefix = "…")]`, a records field (`#[mini(records = "…")]`,
/// default `records`) holding a `Vec` of record structs, and optionally a
/// `header` field holding a header struct. E20 when the types do not make a
/// contract.
pub fn contract_json(d: &Describe) -> Result<Value> {
    let Describe::Struct(doc) = d else {
        return Err(e20(
            "only a struct deriving Mini with #[mini(prefix = \"…\")] has a contract".to_string(),
        ));
    };
    let Some(prefix) = doc.prefix else {
        return Err(e20(format!(
            "{} has no #[mini(prefix = \"…\")]: only a document type has a contract",
            doc.rust_name
        )));
    };
    let records_key = doc.records.unwrap_or("records");
    let cx = Ctx {
        owner: doc.rust_name,
    };
    let mut record: Option<&StructDesc> = None;
    let mut header: Option<&StructDesc> = None;
    for f in &doc.fields {
        match (f.name.as_ref(), &f.ty) {
            (k, Describe::List(inner)) if k == records_key => match inner.as_ref() {
                Describe::Struct(r) => record = Some(r),
                _ => return Err(cx.err(k, "the records field is a Vec of a struct deriving Mini")),
            },
            ("header", Describe::Struct(h)) => header = Some(h),
            ("prefix", Describe::Scalar(ScalarType::Str)) => {}
            (k, _) => {
                return Err(cx.err(
                    k,
                    format_args!(
                        "a document struct holds `header`, `{records_key}` and optionally \
                         `prefix`: if `{k}` holds the records, add #[mini(records = \"{k}\")] to \
                         the struct"
                    ),
                ))
            }
        }
    }
    let Some(record) = record else {
        return Err(cx.err(
            records_key,
            "missing: the document needs a Vec of records under this name (or the name of \
             its own records field in #[mini(records = \"…\")])",
        ));
    };
    let mut out = Map::new();
    out.insert("prefix".into(), json!(prefix));
    if let Some(v) = doc.version {
        out.insert("version".into(), json!(v));
    }
    if let Some(n) = doc.name {
        out.insert("name".into(), json!(n));
    }
    if let Some(n) = doc.description {
        out.insert("description".into(), json!(n));
    }
    if let Some(s) = doc.separator {
        out.insert("list_separator".into(), json!(s.to_string()));
    }
    out.insert("records_key".into(), json!(records_key));

    // header
    let mut required = vec![json!("n")];
    let mut keys = Map::new();
    if let Some(h) = header {
        let hx = Ctx { owner: h.rust_name };
        for f in &h.fields {
            let name = f.name.as_ref();
            let (optional, inner) = unwrap_optional(&f.ty);
            if name == "n" || name == "v" {
                if !matches!(inner, Describe::Scalar(ScalarType::Int)) {
                    return Err(hx.err(name, "the header's n and v are integers"));
                }
                continue;
            }
            let mut m = hx.entry(f, None, true)?;
            m.remove("name");
            keys.insert(name.to_string(), Value::Object(m));
            if !optional && !f.attrs.serde_default {
                required.push(json!(name));
            }
        }
    }
    out.insert("header".into(), json!({"required": required, "keys": keys}));

    // records
    let rx = Ctx {
        owner: record.rust_name,
    };
    if let Some(f) = record
        .fields
        .iter()
        .find(|f| f.attrs.selected.is_some() && f.attrs.mlist.is_none())
    {
        return Err(rx.err(
            f.name.as_ref(),
            "#[mini(selected)] goes with #[mini(mlist = …)]",
        ));
    }
    let selected: Vec<&str> = record
        .fields
        .iter()
        .filter_map(|f| f.attrs.selected)
        .collect();
    for s in &selected {
        if !record.fields.iter().any(|f| f.name == *s) {
            return Err(rx.err(
                s,
                "named by #[mini(selected)] but not a field of the record",
            ));
        }
    }
    let mut core = Vec::new();
    let mut ext = Vec::new();
    for f in &record.fields {
        if selected.contains(&f.name.as_ref()) {
            continue;
        }
        let sel = f
            .attrs
            .selected
            .and_then(|s| record.fields.iter().find(|g| g.name == s));
        let entry = rx.entry(f, sel, false)?;
        if f.attrs.extension {
            ext.push(Value::Object(entry));
        } else {
            if !ext.is_empty() {
                return Err(rx.err(
                    f.name.as_ref(),
                    "core fields come before every #[mini(extension)] field",
                ));
            }
            core.push(Value::Object(entry));
        }
    }
    out.insert("core".into(), Value::Array(core));
    out.insert("extensions".into(), Value::Array(ext));
    Ok(Value::Object(out))
}
