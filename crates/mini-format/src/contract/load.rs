//! Loading a contract from its JSON shape, with every problem reported as
//! E20 (SPEC 1.1 §10), and the serde impls of that shape.

use std::path::Path;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::*;
use crate::error::{Code, Diagnostic, Error, Result};
use crate::number::{self, Dec};

struct Loader {
    errors: Vec<String>,
}

impl Loader {
    fn err(&mut self, msg: impl Into<String>) {
        self.errors.push(msg.into());
    }

    fn opt_str(&mut self, obj: &Map<String, Value>, key: &str, ctx: &str) -> Option<String> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.err(format!("{ctx}: '{key}' must be a string"));
                None
            }
        }
    }

    fn opt_bool(&mut self, obj: &Map<String, Value>, key: &str, ctx: &str) -> bool {
        match obj.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.err(format!("{ctx}: '{key}' must be true or false"));
                false
            }
        }
    }

    fn count(&mut self, v: Option<&Value>, key: &str, ctx: &str) -> Option<u64> {
        match v {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match Dec::parse(&n.to_string()) {
                Some(d) if d.is_integral() && !n.to_string().starts_with('-') => {
                    n.as_u64().or_else(|| n.as_f64().map(|f| f as u64))
                }
                _ => {
                    self.err(format!("{ctx}: '{key}' must be a non-negative integer"));
                    None
                }
            },
            Some(_) => {
                self.err(format!("{ctx}: '{key}' must be a non-negative integer"));
                None
            }
        }
    }

    fn bound(&mut self, ty: ScalarType, v: Option<&Value>, key: &str, ctx: &str) -> Option<Bound> {
        let v = match v {
            None | Some(Value::Null) => return None,
            Some(v) => v,
        };
        match ty {
            ScalarType::Int | ScalarType::Float => match v {
                Value::Number(n) => {
                    let d = Dec::parse(&n.to_string()).map(Bound::Number);
                    if d.is_none() {
                        self.err(format!(
                            "{ctx}: '{key}' {n} is out of the exact number range"
                        ));
                    }
                    d
                }
                _ => {
                    self.err(format!("{ctx}: '{key}' must be a number"));
                    None
                }
            },
            ScalarType::Date => {
                match v {
                    Value::String(s) if number::is_date(s) => Some(Bound::Date(s.clone())),
                    _ => {
                        self.err(format!("{ctx}: '{key}' must be a date string YYYY-MM-DD naming an existing day"));
                        None
                    }
                }
            }
            ScalarType::Decimal => {
                let ok = match v {
                    Value::String(s) if number::is_decimal(s) => Dec::parse(s),
                    Value::Number(n) => Dec::parse(&n.to_string()).filter(|d| {
                        d.is_integral()
                            && *d < Dec::parse("9007199254740992").expect("literal")
                            && *d > Dec::parse("-9007199254740992").expect("literal")
                    }),
                    _ => None,
                };
                if ok.is_none() {
                    self.err(format!(
                        "{ctx}: '{key}' of a decimal must be a decimal string or an integer below 2^53"
                    ));
                }
                ok.map(Bound::Number)
            }
            _ => {
                self.err(format!(
                    "{ctx}: '{key}' is not allowed on type {}",
                    ty.name()
                ));
                None
            }
        }
    }

    fn enum_values(&mut self, v: Option<&Value>, key: &str, ctx: &str) -> Vec<String> {
        match v {
            Some(Value::Array(a)) if !a.is_empty() => {
                let mut out = Vec::with_capacity(a.len());
                for x in a {
                    match x {
                        Value::String(s) => out.push(s.clone()),
                        _ => self.err(format!("{ctx}: '{key}' must hold strings")),
                    }
                }
                out
            }
            _ => {
                self.err(format!("{ctx}: enum needs a non-empty '{key}' array"));
                Vec::new()
            }
        }
    }

    /// A scalar from an object whose `type` (or `item`) names a scalar type.
    fn scalar(
        &mut self,
        obj: &Map<String, Value>,
        ty: ScalarType,
        ranged: bool,
        values_key: &str,
        ctx: &str,
    ) -> Scalar {
        let mut s = Scalar::plain(ty);
        if ty == ScalarType::Enum {
            s.values = self.enum_values(obj.get(values_key), values_key, ctx);
        }
        if ranged {
            if ty.is_ranged() {
                s.min = self.bound(ty, obj.get("min"), "min", ctx);
                s.max = self.bound(ty, obj.get("max"), "max", ctx);
                if let (Some(a), Some(b)) = (&s.min, &s.max) {
                    let bad = match (a, b) {
                        (Bound::Number(a), Bound::Number(b)) => a > b,
                        (Bound::Date(a), Bound::Date(b)) => a > b,
                        _ => false,
                    };
                    if bad {
                        self.err(format!("{ctx}: min is greater than max"));
                    }
                }
            } else if obj.get("min").is_some_and(|v| !v.is_null())
                || obj.get("max").is_some_and(|v| !v.is_null())
            {
                self.err(format!(
                    "{ctx}: min/max are not allowed on type {}",
                    ty.name()
                ));
            }
        }
        s
    }

    fn kind(
        &mut self,
        obj: &Map<String, Value>,
        name: &str,
        ctx: &str,
        allow_mlist: bool,
    ) -> Option<Kind> {
        let ty = match obj.get("type") {
            Some(Value::String(t)) => t.as_str(),
            Some(_) => {
                self.err(format!("{ctx}: 'type' must be a string"));
                return None;
            }
            None => {
                self.err(format!("{ctx}: missing 'type'"));
                return None;
            }
        };
        if let Some(st) = ScalarType::from_name(ty) {
            return Some(Kind::Scalar(self.scalar(obj, st, true, "values", ctx)));
        }
        match ty {
            "list" | "mlist" => {
                if ty == "mlist" && !allow_mlist {
                    self.err(format!("{ctx}: a header key cannot be a marked list"));
                    return None;
                }
                let item_name = match obj.get("item") {
                    None | Some(Value::Null) => "str",
                    Some(Value::String(s)) => s.as_str(),
                    Some(_) => {
                        self.err(format!("{ctx}: 'item' must be a type name"));
                        return None;
                    }
                };
                let Some(item_ty) = ScalarType::from_name(item_name) else {
                    self.err(format!(
                        "{ctx}: list item type '{item_name}' must be a scalar type"
                    ));
                    return None;
                };
                // Enum items take `item_values`; a header list may also use
                // `values` (as the upstream oracle reads it).
                let values_key = if !allow_mlist && !obj.contains_key("item_values") {
                    "values"
                } else {
                    "item_values"
                };
                let item = self.scalar(obj, item_ty, false, values_key, ctx);
                let arity = Arity {
                    min: self.count(obj.get("min"), "min", ctx),
                    max: self.count(obj.get("max"), "max", ctx),
                    count_key: self.opt_str(obj, "count_key", ctx),
                };
                if let (Some(a), Some(b)) = (arity.min, arity.max) {
                    if a > b {
                        self.err(format!("{ctx}: min is greater than max"));
                    }
                }
                if ty == "list" {
                    return Some(Kind::List { item, arity });
                }
                let marker = match obj.get("marker") {
                    None | Some(Value::Null) => MarkerRule::ExactlyOne,
                    Some(Value::String(m)) => match MarkerRule::from_name(m) {
                        Some(r) => r,
                        None => {
                            self.err(format!("{ctx}: unknown marker rule '{m}'"));
                            return None;
                        }
                    },
                    Some(_) => {
                        self.err(format!("{ctx}: 'marker' must be a string"));
                        return None;
                    }
                };
                // Upstream defaults (contract.py): items "items", selection
                // "correct" for exactly_one and "selected" otherwise.
                let (mut items_key, mut selected_key) = (
                    "items".to_string(),
                    if marker == MarkerRule::ExactlyOne {
                        "correct"
                    } else {
                        "selected"
                    }
                    .to_string(),
                );
                let _ = name;
                match obj.get("json") {
                    None | Some(Value::Null) => {}
                    Some(Value::Object(j)) => {
                        if let Some(k) = self.opt_str(j, "items", ctx) {
                            items_key = k;
                        }
                        if let Some(k) = self.opt_str(j, "selected", ctx) {
                            selected_key = k;
                        }
                    }
                    Some(_) => self.err(format!("{ctx}: 'json' must be an object")),
                }
                if items_key == selected_key {
                    self.err(format!("{ctx}: json.items and json.selected must differ"));
                }
                Some(Kind::MList {
                    item,
                    arity,
                    marker,
                    items_key,
                    selected_key,
                })
            }
            "tuple" => {
                let comps = match obj.get("items") {
                    Some(Value::Array(a)) if !a.is_empty() => a,
                    _ => {
                        self.err(format!("{ctx}: tuple needs a non-empty 'items' array"));
                        return None;
                    }
                };
                let mut out: Vec<Component> = Vec::with_capacity(comps.len());
                for (i, c) in comps.iter().enumerate() {
                    let cctx = format!("{ctx}.items[{i}]");
                    let Value::Object(c) = c else {
                        self.err(format!("{cctx}: component must be an object"));
                        continue;
                    };
                    let Some(cname) = self.opt_str(c, "name", &cctx) else {
                        self.err(format!("{cctx}: component needs a 'name'"));
                        continue;
                    };
                    if out.iter().any(|o| o.name == cname) {
                        self.err(format!("{cctx}: duplicate component name '{cname}'"));
                    }
                    let ty = match c.get("type") {
                        Some(Value::String(t)) => t.as_str(),
                        _ => {
                            self.err(format!("{cctx}: missing 'type'"));
                            continue;
                        }
                    };
                    let Some(st) = ScalarType::from_name(ty) else {
                        self.err(format!(
                            "{cctx}: tuple component type '{ty}' must be a scalar type"
                        ));
                        continue;
                    };
                    let scalar = self.scalar(c, st, true, "values", &cctx);
                    let optional = self.opt_bool(c, "optional", &cctx);
                    let desc = self.opt_str(c, "desc", &cctx);
                    out.push(Component {
                        name: cname,
                        scalar,
                        optional,
                        desc,
                    });
                }
                Some(Kind::Tuple(out))
            }
            other => {
                self.err(format!("{ctx}: unknown type '{other}'"));
                None
            }
        }
    }
}

impl Contract {
    /// Parses and validates a contract from its JSON text (E20 on failure).
    pub fn from_json(text: &str) -> Result<Contract> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            Error::invalid(vec![Diagnostic::new(
                Code::E20,
                0,
                None,
                format!("contract is not valid JSON: {e}"),
            )])
        })?;
        Contract::from_value(value)
    }

    /// Reads, parses and validates a contract file.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Contract> {
        let text = std::fs::read_to_string(path.as_ref())?;
        Contract::from_json(&text)
    }

    /// Validates a contract given as a JSON value (E20 on failure, with every
    /// problem found).
    pub fn from_value(raw: Value) -> Result<Contract> {
        let mut l = Loader { errors: Vec::new() };
        let contract = Contract::load(&raw, &mut l);
        if l.errors.is_empty() {
            if let Some(mut c) = contract {
                c.raw = raw;
                return Ok(c);
            }
        }
        let diags = l
            .errors
            .into_iter()
            .map(|m| Diagnostic::new(Code::E20, 0, None, m))
            .collect::<Vec<_>>();
        let diags = if diags.is_empty() {
            vec![Diagnostic::new(Code::E20, 0, None, "invalid contract")]
        } else {
            diags
        };
        Err(Error::invalid(diags))
    }

    fn load(raw: &Value, l: &mut Loader) -> Option<Contract> {
        let Value::Object(obj) = raw else {
            l.err("a contract must be a JSON object");
            return None;
        };
        let prefix = match obj.get("prefix") {
            Some(Value::String(p)) if is_prefix(p) => p.clone(),
            Some(Value::String(p)) => {
                l.err(format!("prefix '{p}' must match [A-Za-z][A-Za-z0-9_-]*"));
                String::new()
            }
            _ => {
                l.err("missing 'prefix'");
                String::new()
            }
        };
        let version = match obj.get("version") {
            None | Some(Value::Null) => 1,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|v| v >= 1) => n.as_u64().unwrap_or(1),
            Some(_) => {
                l.err("'version' must be a positive integer");
                1
            }
        };
        let separator = match obj.get("list_separator") {
            None | Some(Value::Null) => ',',
            Some(Value::String(s)) => {
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) if is_valid_separator(c) => c,
                    _ => {
                        l.err(format!(
                            "list_separator {s:?} must be one character other than | \\ * \" =, a letter, a digit, a space or a line break"
                        ));
                        ','
                    }
                }
            }
            Some(_) => {
                l.err("'list_separator' must be a string");
                ','
            }
        };
        let records_key = l
            .opt_str(obj, "records_key", "contract")
            .unwrap_or_else(|| "records".to_string());
        if matches!(records_key.as_str(), "prefix" | "header") || records_key.is_empty() {
            l.err(format!(
                "records_key '{records_key}' collides with the canonical object's own keys"
            ));
        }
        let parent = l.opt_str(obj, "parent", "contract");

        // header
        let mut header_keys: Vec<HeaderKey> = Vec::new();
        let mut required: Vec<String> = vec!["n".to_string()];
        match obj.get("header") {
            None | Some(Value::Null) => {}
            Some(Value::Object(h)) => {
                match h.get("required") {
                    None | Some(Value::Null) => {}
                    Some(Value::Array(a)) => {
                        for r in a {
                            match r {
                                Value::String(s) if !required.contains(s) => {
                                    required.push(s.clone())
                                }
                                Value::String(_) => {}
                                _ => l.err("header.required must hold key names"),
                            }
                        }
                    }
                    Some(_) => l.err("header.required must be an array"),
                }
                match h.get("keys") {
                    None | Some(Value::Null) => {}
                    Some(Value::Object(keys)) => {
                        for (k, spec) in keys {
                            let ctx = format!("header.keys.{k}");
                            if !is_key(k) {
                                l.err(format!(
                                    "{ctx}: header key must match [A-Za-z_][A-Za-z0-9_]*"
                                ));
                            }
                            let Value::Object(spec) = spec else {
                                l.err(format!("{ctx}: must be an object"));
                                continue;
                            };
                            let Some(kind) = l.kind(spec, k, &ctx, false) else {
                                continue;
                            };
                            let default = spec.get("default").filter(|v| !v.is_null()).cloned();
                            let desc = l.opt_str(spec, "desc", &ctx);
                            header_keys.push(HeaderKey {
                                name: k.clone(),
                                kind,
                                required: false,
                                default,
                                desc,
                            });
                        }
                    }
                    Some(_) => l.err("header.keys must be an object"),
                }
            }
            Some(_) => l.err("'header' must be an object"),
        }
        // implicit n and v
        for (name, default) in [("n", None), ("v", Some(Value::from(1)))] {
            match header_keys.iter_mut().find(|k| k.name == name) {
                Some(k) => {
                    if !matches!(&k.kind, Kind::Scalar(s) if s.ty == ScalarType::Int) {
                        l.err(format!("header key '{name}' must be an int"));
                    }
                    if k.default.is_none() {
                        k.default = default;
                    }
                }
                None => header_keys.push(HeaderKey {
                    name: name.to_string(),
                    kind: Kind::Scalar(Scalar::plain(ScalarType::Int)),
                    required: false,
                    default,
                    desc: None,
                }),
            }
        }
        for r in &required {
            match header_keys.iter_mut().find(|k| &k.name == r) {
                Some(k) => k.required = true,
                None => {
                    if !is_key(r) {
                        l.err(format!("header.required: '{r}' is not a valid key"));
                    }
                    header_keys.push(HeaderKey {
                        name: r.clone(),
                        kind: Kind::Scalar(Scalar::plain(ScalarType::Str)),
                        required: true,
                        default: None,
                        desc: None,
                    });
                }
            }
        }

        // fields
        let mut fields: Vec<Field> = Vec::new();
        let core = match obj.get("core") {
            Some(Value::Array(a)) if !a.is_empty() => a.as_slice(),
            Some(Value::Array(_)) => {
                l.err("'core' must declare at least one field");
                &[]
            }
            _ => {
                l.err("missing 'core' field list");
                &[]
            }
        };
        let ext = match obj.get("extensions") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(a)) => a.as_slice(),
            Some(_) => {
                l.err("'extensions' must be an array");
                &[]
            }
        };
        for (extension, list) in [(false, core), (true, ext)] {
            for (i, f) in list.iter().enumerate() {
                let ctx = format!("{}[{i}]", if extension { "extensions" } else { "core" });
                let Value::Object(f) = f else {
                    l.err(format!("{ctx}: field must be an object"));
                    continue;
                };
                let Some(name) = l.opt_str(f, "name", &ctx) else {
                    l.err(format!("{ctx}: field needs a 'name'"));
                    continue;
                };
                let ctx = format!("{ctx} '{name}'");
                let Some(kind) = l.kind(f, &name, &ctx, true) else {
                    continue;
                };
                let optional = l.opt_bool(f, "optional", &ctx) || extension;
                let unique = l.opt_bool(f, "unique", &ctx);
                let default = f.get("default").filter(|v| !v.is_null()).cloned();
                let desc = l.opt_str(f, "desc", &ctx);
                if let Kind::List { arity, .. } | Kind::MList { arity, .. } = &kind {
                    if let Some(ck) = &arity.count_key {
                        let ok = header_keys.iter().any(|h| {
                            &h.name == ck
                                && matches!(&h.kind, Kind::Scalar(s) if s.ty == ScalarType::Int)
                        });
                        if !ok {
                            l.err(format!(
                                "{ctx}: count_key '{ck}' must name an int header key"
                            ));
                        }
                    }
                }
                fields.push(Field {
                    name,
                    kind,
                    optional,
                    unique,
                    extension,
                    default,
                    desc,
                });
            }
        }
        let core_len = fields.iter().filter(|f| !f.extension).count();
        // canonical keys must be distinct
        let mut seen: Vec<&str> = Vec::new();
        for f in &fields {
            let keys: Vec<&str> = match &f.kind {
                Kind::MList {
                    items_key,
                    selected_key,
                    ..
                } => {
                    if seen.contains(&f.name.as_str()) {
                        l.errors.push(format!("duplicate field name '{}'", f.name));
                    }
                    vec![items_key.as_str(), selected_key.as_str()]
                }
                _ => vec![f.name.as_str()],
            };
            for k in keys {
                if seen.contains(&k) {
                    l.errors
                        .push(format!("duplicate field name or canonical key '{k}'"));
                }
                seen.push(k);
            }
        }
        if !l.errors.is_empty() {
            return None;
        }
        Some(Contract {
            raw: Value::Null,
            prefix,
            version,
            separator,
            records_key,
            parent,
            header_keys,
            fields,
            core_len,
            read_hint: super::ReadHint::default(),
        })
    }
}

impl Serialize for Contract {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Contract {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Contract, D::Error> {
        let v = Value::deserialize(d)?;
        Contract::from_value(v).map_err(serde::de::Error::custom)
    }
}

impl std::str::FromStr for Contract {
    type Err = Error;
    fn from_str(s: &str) -> Result<Contract> {
        Contract::from_json(s)
    }
}
