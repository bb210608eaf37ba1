//! JSON Schema → contract.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::{STRUCTURAL_KEYS, X_MINI};
use crate::contract::Contract;
use crate::error::{Code, Diagnostic, Error, Result};

type Obj = Map<String, Value>;

fn fail(msg: impl Into<String>) -> Error {
    Error::invalid(vec![Diagnostic::new(Code::E20, 0, None, msg)])
}

/// What every nesting error says after naming the shape (SPEC 1.1 §12).
const LIMIT: &str = "a .mini contract holds one level of nesting (a list or tuple of scalars, \
     SPEC 1.1 §12): flatten the inner value into separate fields or components";

/// Keywords that never change what a value may be: always accepted.
const ANNOTATIONS: [&str; 15] = [
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "readOnly",
    "writeOnly",
    "deprecated",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "$defs",
    "definitions",
];

fn is_annotation(k: &str) -> bool {
    ANNOTATIONS.contains(&k) || k.starts_with("x-")
}

/// The `x-mini` object of a node (empty when absent).
fn x_of(node: &Obj) -> Obj {
    node.get(X_MINI)
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn x_str(x: &Obj, key: &str) -> Option<String> {
    x.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The JSON type a node describes: its `type`, or what its keywords imply.
fn kind_of(node: &Obj) -> String {
    match node.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(_) => String::new(),
        None => {
            if node.contains_key("enum") || node.contains_key("const") {
                "string".to_string()
            } else if node.contains_key("properties") {
                "object".to_string()
            } else if node.contains_key("items") {
                "array".to_string()
            } else {
                String::new()
            }
        }
    }
}

fn is_null_schema(node: &Obj) -> bool {
    node.get("type").and_then(Value::as_str) == Some("null")
        || node.get("const").is_some_and(Value::is_null)
        || node
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|a| a.len() == 1 && a[0].is_null())
}

struct Ctx<'a> {
    root: &'a Value,
    strict: bool,
    warnings: Vec<String>,
}

impl Ctx<'_> {
    /// Follows local `$ref`s (sibling keywords win) and a one-element
    /// `allOf`; `true` and `{}` are the empty schema.
    fn resolve(&self, node: &Value, path: &str) -> Result<Obj> {
        let mut node = node.clone();
        for _ in 0..=32 {
            let mut m = match node {
                Value::Bool(true) => return Ok(Map::new()),
                Value::Object(m) => m,
                _ => return Err(fail(format!("{path}: a schema must be an object"))),
            };
            if let Some(r) = m.shift_remove("$ref") {
                let Value::String(r) = r else {
                    return Err(fail(format!("{path}: $ref must be a string")));
                };
                let Some(ptr) = r.strip_prefix('#') else {
                    return Err(fail(format!(
                        "{path}: only local $ref (#/...) are supported, got '{r}'"
                    )));
                };
                let target = self
                    .root
                    .pointer(ptr)
                    .ok_or_else(|| fail(format!("{path}: unresolvable $ref '{r}'")))?;
                let mut t = match target {
                    Value::Bool(true) => Map::new(),
                    Value::Object(t) => t.clone(),
                    _ => return Err(fail(format!("{path}: $ref '{r}' is not a schema"))),
                };
                t.extend(m);
                node = Value::Object(t);
                continue;
            }
            if let Some(all) = m.shift_remove("allOf") {
                let parts = all
                    .as_array()
                    .ok_or_else(|| fail(format!("{path}: allOf must be an array")))?;
                if parts.len() != 1 {
                    return Err(fail(format!(
                        "{path}: allOf with several schemas is not representable in a contract"
                    )));
                }
                let mut merged = self.resolve(&parts[0], path)?;
                merged.extend(m);
                node = Value::Object(merged);
                continue;
            }
            return Ok(m);
        }
        Err(fail(format!(
            "{path}: $ref chain too long (a recursive schema nests without end; {LIMIT})"
        )))
    }

    /// Reports keywords without a contract equivalent.
    fn unsupported(&mut self, path: &str, mut keywords: Vec<String>) -> Result<()> {
        if keywords.is_empty() {
            return Ok(());
        }
        keywords.sort();
        let msg = format!(
            "{path}: ignored keyword(s) without contract equivalent: {}",
            keywords.join(", ")
        );
        if self.strict {
            return Err(fail(msg));
        }
        self.warnings.push(msg);
        Ok(())
    }

    /// Splits a nullable schema into (the non-null schema, nullable).
    fn split_null(&self, node: &Value, path: &str) -> Result<(Obj, bool)> {
        let mut node = self.resolve(node, path)?;
        for key in ["anyOf", "oneOf"] {
            let Some(alts) = node.shift_remove(key) else {
                continue;
            };
            let alts = alts
                .as_array()
                .ok_or_else(|| fail(format!("{path}: {key} must be an array")))?;
            let mut non_null = Vec::new();
            let mut had_null = false;
            for a in alts {
                let a = self.resolve(a, path)?;
                if is_null_schema(&a) {
                    had_null = true;
                } else {
                    non_null.push(a);
                }
            }
            if non_null.len() != 1 {
                return Err(fail(format!(
                    "{path}: {key} with {} non-null alternatives is not representable in a contract",
                    non_null.len()
                )));
            }
            let mut inner = non_null.pop().unwrap_or_default();
            for (k, v) in node {
                if k == X_MINI {
                    let mut x = x_of(&inner);
                    if let Value::Object(outer) = v {
                        x.extend(outer);
                    }
                    inner.insert(k, Value::Object(x));
                } else {
                    inner.entry(k).or_insert(v);
                }
            }
            let (inner, nullable) = self.split_null(&Value::Object(inner), path)?;
            return Ok((inner, nullable || had_null));
        }
        let mut nullable = false;
        if let Some(Value::Array(types)) = node.get("type") {
            let rest: Vec<&Value> = types
                .iter()
                .filter(|t| t.as_str() != Some("null"))
                .collect();
            nullable = rest.len() != types.len();
            if rest.len() != 1 {
                return Err(fail(format!(
                    "{path}: union type {} is not representable in a contract",
                    Value::Array(types.clone())
                )));
            }
            let t = rest[0].clone();
            node.insert("type".into(), t);
        }
        if let Some(Value::Array(vals)) = node.get("enum") {
            if vals.iter().any(Value::is_null) {
                let rest: Vec<Value> = vals.iter().filter(|v| !v.is_null()).cloned().collect();
                node.insert("enum".into(), Value::Array(rest));
                nullable = true;
            }
        }
        Ok((node, nullable))
    }

    /// One scalar: `{"type", "values"?, "min"?, "max"?}` in contract form.
    /// `item` is true for list elements, which carry no bounds.
    fn scalar(&mut self, node: &Obj, path: &str, item: bool) -> Result<Obj> {
        let kind = kind_of(node);
        let x = x_of(node);
        let mut ignored: BTreeSet<String> = node
            .keys()
            .filter(|k| !is_annotation(k) && k.as_str() != "type")
            .cloned()
            .collect();
        let mut out = Map::new();
        let values = match (node.get("enum"), node.get("const")) {
            (Some(Value::Array(a)), _) => Some(a.clone()),
            (None, Some(c)) => Some(vec![c.clone()]),
            _ => None,
        };
        let string_enum = values.as_ref().is_some_and(|v| {
            !v.is_empty()
                && v.iter().all(Value::is_string)
                && matches!(kind.as_str(), "string" | "")
        });
        let ty = if string_enum {
            ignored.remove("enum");
            ignored.remove("const");
            out.insert("values".into(), Value::Array(values.unwrap_or_default()));
            "enum"
        } else {
            match kind.as_str() {
                "string" => {
                    let xt = x_str(&x, "type");
                    let format = node.get("format").and_then(Value::as_str);
                    if format == Some("date") || xt.as_deref() == Some("date") {
                        for k in ["format", "pattern", "formatMinimum", "formatMaximum"] {
                            ignored.remove(k);
                        }
                        "date"
                    } else if format == Some("decimal") || xt.as_deref() == Some("decimal") {
                        for k in ["format", "pattern"] {
                            ignored.remove(k);
                        }
                        "decimal"
                    } else {
                        "str"
                    }
                }
                "integer" => "int",
                "number" => "float",
                "boolean" => "bool",
                "array" | "object" => {
                    return Err(fail(format!(
                        "{path}: an {kind} inside {} nests two levels deep; {LIMIT}",
                        if item { "a list" } else { "a tuple" }
                    )))
                }
                "" if values.is_some() => {
                    return Err(fail(format!(
                        "{path}: only enumerations of strings are representable"
                    )))
                }
                other => {
                    return Err(fail(format!(
                        "{path}: unsupported or missing type '{other}'"
                    )))
                }
            }
        };
        out.insert("type".into(), json!(ty));
        let (mut lo, mut hi): (Option<Value>, Option<Value>) = (None, None);
        match ty {
            "int" | "float" => {
                for k in ["minimum", "maximum"] {
                    if ignored.remove(k) {
                        let v = node.get(k).cloned();
                        if k == "minimum" {
                            lo = v;
                        } else {
                            hi = v;
                        }
                    }
                }
                for (k, step) in [("exclusiveMinimum", 1i64), ("exclusiveMaximum", -1)] {
                    let Some(v) = node.get(k).and_then(Value::as_f64) else {
                        continue;
                    };
                    // an integral exclusive bound of an int is an inclusive one ±1
                    if ty != "int" || v.fract() != 0.0 || v.abs() >= 9.0e15 {
                        continue;
                    }
                    ignored.remove(k);
                    let b = json!(v as i64 + step);
                    let slot = if step > 0 { &mut lo } else { &mut hi };
                    let tighter = match slot.as_ref().and_then(Value::as_f64) {
                        None => true,
                        Some(cur) => {
                            let nb = (v as i64 + step) as f64;
                            if step > 0 {
                                nb > cur
                            } else {
                                nb < cur
                            }
                        }
                    };
                    if tighter {
                        *slot = Some(b);
                    }
                }
            }
            "date" | "decimal" => {
                lo = x.get("min").or_else(|| node.get("formatMinimum")).cloned();
                hi = x.get("max").or_else(|| node.get("formatMaximum")).cloned();
            }
            _ => {}
        }
        if item && (lo.is_some() || hi.is_some()) {
            ignored.insert("minimum/maximum of a list element".to_string());
        } else {
            if let Some(v) = lo {
                out.insert("min".into(), v);
            }
            if let Some(v) = hi {
                out.insert("max".into(), v);
            }
        }
        self.unsupported(path, ignored.into_iter().collect())?;
        Ok(out)
    }
}

/// A record field read from a property.
struct FieldDef {
    /// The property name.
    key: String,
    position: Option<u64>,
    extension: bool,
    json: Obj,
}

fn description(node: &Obj) -> Option<Value> {
    node.get("description")
        .filter(|d| d.as_str().is_some_and(|s| !s.is_empty()))
        .cloned()
}

fn extra_keywords(node: &Obj, allowed: &[&str]) -> Vec<String> {
    node.keys()
        .filter(|k| !is_annotation(k) && !allowed.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// Converts one property. `None` for the selection property of a marked
/// list (its field is rebuilt from the items property).
fn field(
    ctx: &mut Ctx<'_>,
    key: &str,
    raw: &Value,
    required: bool,
    path: &str,
) -> Result<Option<FieldDef>> {
    let outer = ctx.resolve(raw, path)?;
    if x_of(&outer).contains_key("selected_of") {
        return Ok(None);
    }
    let (node, nullable) = ctx.split_null(&Value::Object(outer), path)?;
    let x = x_of(&node);
    if x.contains_key("selected_of") {
        return Ok(None);
    }
    let kind = kind_of(&node);
    let mut f = Map::new();
    f.insert(
        "name".into(),
        json!(x_str(&x, "field").unwrap_or_else(|| key.to_string())),
    );
    match kind.as_str() {
        "array" => {
            let ipath = format!("{path}/items");
            let items_raw = node
                .get("items")
                .cloned()
                .unwrap_or_else(|| json!({"type": "string"}));
            if !node.contains_key("items") {
                ctx.unsupported(
                    path,
                    vec!["array without items (elements read as str)".into()],
                )?;
            }
            let (items, item_null) = ctx.split_null(&items_raw, &ipath)?;
            if item_null {
                ctx.unsupported(&ipath, vec!["null elements".into()])?;
            }
            let sc = ctx.scalar(&items, &ipath, true)?;
            let mlist = x_str(&x, "type").as_deref() == Some("mlist");
            f.insert("type".into(), json!(if mlist { "mlist" } else { "list" }));
            let item_ty = sc.get("type").cloned().unwrap_or_else(|| json!("str"));
            f.insert("item".into(), item_ty);
            if let Some(v) = sc.get("values") {
                f.insert("item_values".into(), v.clone());
            }
            if let Some(v) = node.get("minItems") {
                f.insert("min".into(), v.clone());
            }
            if let Some(v) = node.get("maxItems") {
                f.insert("max".into(), v.clone());
            }
            if let Some(k) = x_str(&x, "count_key") {
                f.insert("count_key".into(), json!(k));
            }
            if mlist {
                let marker = x_str(&x, "marker").unwrap_or_else(|| "exactly_one".into());
                let selected = x_str(&x, "selected").unwrap_or_else(|| {
                    if marker == "exactly_one" {
                        "correct"
                    } else {
                        "selected"
                    }
                    .to_string()
                });
                f.insert("marker".into(), json!(marker));
                f.insert("json".into(), json!({"items": key, "selected": selected}));
            }
            let extra = extra_keywords(&node, &["type", "items", "minItems", "maxItems"]);
            ctx.unsupported(path, extra)?;
        }
        "object" => {
            let props = match node.get("properties") {
                Some(Value::Object(p)) if !p.is_empty() => p.clone(),
                _ => {
                    return Err(fail(format!(
                        "{path}: an object without properties is not representable"
                    )))
                }
            };
            let req: BTreeSet<&str> = node
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let mut comps = Vec::new();
            for (cname, craw) in &props {
                let cpath = format!("{path}/properties/{cname}");
                let (cnode, cnull) = ctx.split_null(craw, &cpath)?;
                if matches!(kind_of(&cnode).as_str(), "array" | "object") {
                    return Err(fail(format!(
                        "{cpath}: an {} inside a tuple nests two levels deep; {LIMIT}",
                        kind_of(&cnode)
                    )));
                }
                let mut comp = Map::new();
                comp.insert("name".into(), json!(cname));
                comp.extend(ctx.scalar(&cnode, &cpath, false)?);
                if cnull || !req.contains(cname.as_str()) {
                    comp.insert("optional".into(), json!(true));
                }
                if let Some(d) = description(&cnode) {
                    comp.insert("desc".into(), d);
                }
                comps.push(Value::Object(comp));
            }
            f.insert("type".into(), json!("tuple"));
            f.insert("items".into(), Value::Array(comps));
            let extra = extra_keywords(
                &node,
                &["type", "properties", "required", "additionalProperties"],
            );
            ctx.unsupported(path, extra)?;
        }
        _ => {
            f.extend(ctx.scalar(&node, path, false)?);
        }
    }
    let extension = x
        .get("extension")
        .and_then(Value::as_bool)
        .unwrap_or(!required);
    if x.get("unique").and_then(Value::as_bool) == Some(true) {
        f.insert("unique".into(), json!(true));
    }
    if nullable && !extension {
        f.insert("optional".into(), json!(true));
    }
    if let Some(d) = description(&node) {
        f.insert("desc".into(), d);
    }
    if let Some(d) = node.get("default").filter(|d| !d.is_null()) {
        f.insert("default".into(), d.clone());
    }
    Ok(Some(FieldDef {
        key: key.to_string(),
        position: x.get("position").and_then(Value::as_u64),
        extension,
        json: f,
    }))
}

fn required_of(node: &Obj) -> Vec<String> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Header keys (contract form) and the required ones, from the header
/// object schema.
fn header(ctx: &mut Ctx<'_>, raw: &Value, path: &str) -> Result<(Obj, Vec<String>)> {
    let (node, _) = ctx.split_null(raw, path)?;
    let required = required_of(&node);
    let mut keys = Map::new();
    if let Some(Value::Object(props)) = node.get("properties") {
        for (k, kraw) in props {
            let kpath = format!("{path}/properties/{k}");
            let Some(f) = field(ctx, k, kraw, true, &kpath)? else {
                continue;
            };
            let mut hk = f.json;
            if hk.get("type").and_then(Value::as_str) == Some("mlist") {
                return Err(fail(format!(
                    "{kpath}: a header key cannot be a marked list"
                )));
            }
            hk.shift_remove("name");
            hk.shift_remove("optional");
            if hk.shift_remove("unique").is_some() {
                ctx.unsupported(&kpath, vec!["x-mini.unique on a header key".into()])?;
            }
            keys.insert(k.clone(), Value::Object(hk));
        }
    }
    let extra = extra_keywords(
        &node,
        &["type", "properties", "required", "additionalProperties"],
    );
    ctx.unsupported(path, extra)?;
    Ok((keys, required))
}

fn is_record_array(ctx: &Ctx<'_>, raw: &Value, path: &str) -> bool {
    let Ok((node, _)) = ctx.split_null(raw, path) else {
        return false;
    };
    if kind_of(&node) != "array" {
        return false;
    }
    let Some(items) = node.get("items") else {
        return false;
    };
    ctx.split_null(items, path)
        .map(|(i, _)| kind_of(&i) == "object")
        .unwrap_or(false)
}

/// Builds a contract from a JSON Schema, with the warnings met on the way.
///
/// * A schema made by [`super::to_schema`] (document or record-only) gives
///   back the same contract (see [`super::structurally_equal`]).
/// * Otherwise the schema is read as a *document* when its root object has
///   exactly one property that is an array of objects and no other
///   properties than `prefix` and `header` (or when `x-mini.records_key`
///   names such a property); the array's name becomes `records_key`, a
///   `prefix` property with `const` gives the prefix and the `header`
///   object's properties the header keys. Any other root object is a
///   *record* schema (`records_key` = `records`).
/// * Record properties become fields in declaration order: the required
///   ones form the core (nullable ones are `optional`), the others the
///   extensions. `string` → `str` (`enum`/`const` of strings → `enum`,
///   `format: date` → `date`, `format: decimal` → `decimal`), `integer` →
///   `int`, `number` → `float`, `boolean` → `bool`, an array of scalars →
///   `list` (`minItems`/`maxItems` → arity), an object of scalars → `tuple`
///   (components not required or nullable are optional); `minimum`/`maximum`
///   → `min`/`max`, and an integral `exclusiveMinimum`/`exclusiveMaximum` of
///   an `int` becomes an inclusive bound. `title` → `name`, `description` →
///   `desc` (and the contract's `description` at the root), `default` →
///   `default`.
///
/// `prefix` overrides the prefix found in the schema; one is required.
/// Keywords without a contract equivalent are warnings, or an E20 error
/// when `strict`. Shapes no contract can hold are always E20 errors, and so
/// is a contract the result fails to validate as.
pub fn from_schema(
    schema: &Value,
    prefix: Option<&str>,
    strict: bool,
) -> Result<(Contract, Vec<String>)> {
    if !schema.is_object() {
        return Err(fail("a JSON Schema must be an object"));
    }
    let mut ctx = Ctx {
        root: schema,
        strict,
        warnings: Vec::new(),
    };
    let root = ctx.resolve(schema, "#")?;
    let meta = x_of(&root);
    let props =
        match root.get("properties") {
            Some(Value::Object(p)) if kind_of(&root) == "object" => p.clone(),
            _ => return Err(fail(
                "#: the schema must describe an object with properties (a record or a document)",
            )),
        };
    let arrays: Vec<String> = props
        .iter()
        .filter(|(k, v)| is_record_array(&ctx, v, &format!("#/properties/{k}")))
        .map(|(k, _)| k.clone())
        .collect();
    let others_ok = props
        .keys()
        .all(|k| arrays.contains(k) || k == "prefix" || k == "header");
    let named = x_str(&meta, "records_key").filter(|k| arrays.contains(k));
    let records = match named {
        Some(k) => Some(k),
        None if others_ok && arrays.len() == 1 => Some(arrays[0].clone()),
        None if others_ok && arrays.len() > 1 => {
            return Err(fail(format!(
            "#: several record arrays ({}) are not representable in one document (SPEC 1.1 §12)",
            arrays.join(", ")
        )))
        }
        None => None,
    };
    let mut found_prefix: Option<String> = None;
    let mut header_keys = Map::new();
    let mut header_required: Vec<String> = Vec::new();
    let (record, base, records_key) = match &records {
        Some(rkey) => {
            let rpath = format!("#/properties/{rkey}");
            let (arr, _) = ctx.split_null(&props[rkey.as_str()], &rpath)?;
            let extra = extra_keywords(&arr, &["type", "items"]);
            ctx.unsupported(&rpath, extra)?;
            let ipath = format!("{rpath}/items");
            let items = arr.get("items").cloned().unwrap_or(Value::Null);
            let (record, _) = ctx.split_null(&items, &ipath)?;
            for (k, raw) in &props {
                let p = format!("#/properties/{k}");
                if k == rkey {
                    continue;
                }
                if k == "prefix" {
                    let (node, _) = ctx.split_null(raw, &p)?;
                    let vals = match (node.get("const"), node.get("enum")) {
                        (Some(c), _) => vec![c.clone()],
                        (None, Some(Value::Array(a))) => a.clone(),
                        _ => Vec::new(),
                    };
                    if let [Value::String(s)] = vals.as_slice() {
                        found_prefix = Some(s.clone());
                    }
                } else if k == "header" {
                    let (keys, req) = header(&mut ctx, raw, &p)?;
                    header_keys = keys;
                    header_required = req;
                } else {
                    ctx.unsupported(&p, vec![format!("property '{k}' beside the records")])?;
                }
            }
            (record, ipath, rkey.clone())
        }
        None => {
            if let Some(h) = meta.get("header") {
                let (keys, req) = header(&mut ctx, h, "#/x-mini/header")?;
                header_keys = keys;
                header_required = req;
            }
            let rk = x_str(&meta, "records_key").unwrap_or_else(|| "records".to_string());
            (root.clone(), "#".to_string(), rk)
        }
    };
    let rprops = match record.get("properties") {
        Some(Value::Object(p)) if kind_of(&record) == "object" => p.clone(),
        _ => {
            return Err(fail(format!(
                "{base}: records must be objects with properties"
            )))
        }
    };
    let required = required_of(&record);
    let mut defs: Vec<FieldDef> = Vec::new();
    for (k, raw) in &rprops {
        let p = format!("{base}/properties/{k}");
        if let Some(f) = field(&mut ctx, k, raw, required.contains(k), &p)? {
            defs.push(f);
        }
    }
    // the selection keys of marked lists are not fields of their own
    let selections: BTreeSet<String> = defs
        .iter()
        .filter_map(|d| {
            d.json
                .get("json")?
                .get("selected")?
                .as_str()
                .map(str::to_string)
        })
        .collect();
    defs.retain(|d| !selections.contains(&d.key));
    if defs.iter().all(|d| d.position.is_some()) {
        defs.sort_by_key(|d| d.position);
    }
    const OBJECT_KEYWORDS: [&str; 4] = ["type", "properties", "required", "additionalProperties"];
    let extra = extra_keywords(&root, &OBJECT_KEYWORDS);
    ctx.unsupported("#", extra)?;
    if records.is_some() {
        let extra = extra_keywords(&record, &OBJECT_KEYWORDS);
        ctx.unsupported(&base, extra)?;
    }

    let prefix = prefix
        .map(str::to_string)
        .or_else(|| x_str(&meta, "prefix"))
        .or(found_prefix)
        .ok_or_else(|| fail("a prefix is required: the schema has none (pass one)"))?;
    if let Some(order) = meta.get("header_order").and_then(Value::as_array) {
        let mut sorted = Map::new();
        for k in order.iter().filter_map(Value::as_str) {
            if let Some(v) = header_keys.shift_remove(k) {
                sorted.insert(k.to_string(), v);
            }
        }
        sorted.extend(std::mem::take(&mut header_keys));
        header_keys = sorted;
    }
    if !header_required.iter().any(|k| k == "n") {
        header_required.insert(0, "n".to_string());
    }
    let mut c = Map::new();
    c.insert("prefix".into(), json!(prefix));
    c.insert(
        "version".into(),
        meta.get("version").cloned().unwrap_or_else(|| json!(1)),
    );
    if let Some(t) = root.get("title").filter(|t| t.is_string()) {
        c.insert("name".into(), t.clone());
    }
    if let Some(d) = root.get("description").filter(|d| d.is_string()) {
        c.insert("description".into(), d.clone());
    }
    c.insert(
        "parent".into(),
        meta.get("parent").cloned().unwrap_or(Value::Null),
    );
    if let Some(s) = meta.get("list_separator") {
        c.insert("list_separator".into(), s.clone());
    }
    c.insert("records_key".into(), json!(records_key));
    c.insert(
        "header".into(),
        json!({"required": header_required, "keys": Value::Object(header_keys)}),
    );
    let (core, ext): (Vec<FieldDef>, Vec<FieldDef>) = defs.into_iter().partition(|d| !d.extension);
    if core.is_empty() {
        return Err(fail(format!(
            "{base}: at least one required property is needed to form the contract core"
        )));
    }
    let list =
        |v: Vec<FieldDef>| Value::Array(v.into_iter().map(|d| Value::Object(d.json)).collect());
    c.insert("core".into(), list(core));
    c.insert("extensions".into(), list(ext));
    if let Some(Value::Object(m)) = meta.get("meta") {
        for (k, v) in m {
            if !STRUCTURAL_KEYS.contains(&k.as_str()) && !c.contains_key(k) {
                c.insert(k.clone(), v.clone());
            }
        }
    }
    let contract = Contract::from_value(Value::Object(c))?;
    Ok((contract, ctx.warnings))
}
