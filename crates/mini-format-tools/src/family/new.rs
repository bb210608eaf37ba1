//! `new-fork`: scaffolding a family with a contract and fixtures that pass
//! [`super::check_forks`].

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::contract::{check_fork, Contract, Kind, ScalarType};
use crate::error::{Code, Diagnostic, Error, Result};
use crate::sample::{self, Style};
use crate::value::parse;
use mini::dumps;

/// The text put in the first `str` field of `escaping.mini`: every
/// character the format reserves.
pub const ESCAPING_TEXT: &str = "pipe | and back\\slash, comma, \"quotes\", star* and newline\nend";

/// The element put first in the first `str` list of `escaping.mini`.
pub const ESCAPING_ITEM: &str = "a, b | c \\ d*";

fn err(code: Code, msg: impl Into<String>) -> Error {
    Error::invalid(vec![Diagnostic::new(code, 0, None, msg)])
}

/// Splits a command-line `name:type` into its parts (`name` alone means
/// `name:str`).
pub fn parse_field_arg(arg: &str) -> Result<(String, String)> {
    let (name, ty) = arg.split_once(':').unwrap_or((arg, "str"));
    let (name, ty) = (name.trim(), ty.trim());
    if name.is_empty() {
        return Err(err(
            Code::E20,
            format!("'{arg}': a field needs a name (name:type)"),
        ));
    }
    Ok((
        name.to_string(),
        if ty.is_empty() { "str" } else { ty }.to_string(),
    ))
}

struct Cursor<'a> {
    s: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.at..]
    }

    fn eat(&mut self, t: &str) -> bool {
        if self.rest().starts_with(t) {
            self.at += t.len();
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> &'a str {
        let r = self.rest();
        let n = r
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(r.len());
        self.at += n;
        &r[..n]
    }

    /// The text up to `close` (not included), which is consumed.
    fn until(&mut self, close: char, ty: &str) -> Result<&'a str> {
        let r = self.rest();
        match r.find(close) {
            Some(n) => {
                self.at += n + close.len_utf8();
                Ok(&r[..n])
            }
            None => Err(err(Code::E20, format!("type '{ty}': missing '{close}'"))),
        }
    }
}

fn enum_values(body: &str, ty: &str) -> Result<Value> {
    let vals: Vec<&str> = body.split('|').collect();
    if vals.iter().any(|v| v.is_empty()) {
        return Err(err(
            Code::E20,
            format!("type '{ty}': enum values must be non-empty, separated by |"),
        ));
    }
    Ok(json!(vals))
}

/// A scalar type at the cursor: a scalar name, `enum{a|b}` or (for list
/// items) `{a|b}`. Returns (type name, values).
fn scalar_at(cur: &mut Cursor<'_>, ty: &str) -> Result<(String, Option<Value>)> {
    if cur.eat("{") {
        let body = cur.until('}', ty)?;
        return Ok(("enum".into(), Some(enum_values(body, ty)?)));
    }
    let name = cur.ident();
    if name == "enum" {
        if !cur.eat("{") {
            return Err(err(Code::E20, format!("type '{ty}': write enum{{a|b|c}}")));
        }
        let body = cur.until('}', ty)?;
        return Ok(("enum".into(), Some(enum_values(body, ty)?)));
    }
    match ScalarType::from_name(name) {
        Some(_) => Ok((name.to_string(), None)),
        None => Err(err(
            Code::E20,
            format!(
                "type '{ty}': '{name}' is not a type (str, int, float, bool, date, decimal, enum{{…}}, list<T>, mlist<T>, tuple(…))"
            ),
        )),
    }
}

/// An optional `[lo..hi]` range into `f` (`min`/`max`).
fn range_at(cur: &mut Cursor<'_>, f: &mut Map<String, Value>, kind: &str, ty: &str) -> Result<()> {
    if !cur.eat("[") {
        return Ok(());
    }
    let body = cur.until(']', ty)?;
    let Some((lo, hi)) = body.split_once("..") else {
        return Err(err(
            Code::E20,
            format!("type '{ty}': write a range as [lo..hi]"),
        ));
    };
    for (key, text) in [("min", lo.trim()), ("max", hi.trim())] {
        if text.is_empty() {
            continue;
        }
        let v = match kind {
            "list" | "mlist" => text.parse::<u64>().ok().map(Value::from),
            "int" | "float" => serde_json::from_str::<Value>(text)
                .ok()
                .filter(Value::is_number),
            "date" | "decimal" => Some(Value::String(text.to_string())),
            _ => {
                return Err(err(
                    Code::E20,
                    format!("type '{ty}': a range applies to int, float, date, decimal and lists"),
                ))
            }
        };
        let Some(v) = v else {
            return Err(err(Code::E20, format!("type '{ty}': bad bound '{text}'")));
        };
        f.insert(key.to_string(), v);
    }
    Ok(())
}

/// The contract JSON of a field named `name` declared with the type
/// grammar of `mini new-fork --add name:TYPE` (the signature syntax of
/// [`super::signature`]):
///
/// ```text
/// TYPE  := BASE RANGE? MARK? "?"?
/// BASE  := str | int | float | bool | date | decimal | enum{a|b|…}
///        | list<ITEM> | mlist<ITEM> | tuple(c:SCALAR RANGE? "?"?, …)
/// ITEM  := str | int | float | bool | date | decimal | enum{a|b} | {a|b}
/// RANGE := [lo..hi]   value bounds of int/float/date/decimal, arity of lists
/// MARK  := *1 | *1+ | *0..1 | *   marker rule of an mlist (default *1)
/// ```
///
/// `?` makes the field optional (extensions always are). A marked list
/// `name` keeps its elements under `name` and its selection under
/// `name_selected`. Examples: `feedback:str`, `level:enum{easy|hard}`,
/// `score:int[0..100]?`, `tags:list<str>[0..8]`, `answer:mlist<str>[2..6]*1`,
/// `span:tuple(start:int,end:int)`.
pub fn field_spec(name: &str, ty: &str) -> Result<Value> {
    let mut cur = Cursor { s: ty, at: 0 };
    let mut f = Map::new();
    f.insert("name".into(), json!(name));
    let save = cur.at;
    let base = cur.ident();
    let kind: String = match base {
        "list" | "mlist" => {
            if !cur.eat("<") {
                return Err(err(Code::E20, format!("type '{ty}': write {base}<T>")));
            }
            let (item, values) = scalar_at(&mut cur, ty)?;
            if !cur.eat(">") {
                return Err(err(Code::E20, format!("type '{ty}': missing '>'")));
            }
            f.insert("type".into(), json!(base));
            f.insert("item".into(), json!(item));
            if let Some(v) = values {
                f.insert("item_values".into(), v);
            }
            base.to_string()
        }
        "tuple" => {
            if !cur.eat("(") {
                return Err(err(Code::E20, format!("type '{ty}': write tuple(a:T,b:U)")));
            }
            let body = cur.until(')', ty)?;
            let mut comps = Vec::new();
            for part in body.split(',') {
                let (cname, cty) = parse_field_arg(part)?;
                let mut cc = Cursor { s: &cty, at: 0 };
                let (ctype, values) = scalar_at(&mut cc, &cty)?;
                let mut comp = Map::new();
                comp.insert("name".into(), json!(cname));
                comp.insert("type".into(), json!(ctype));
                if let Some(v) = values {
                    comp.insert("values".into(), v);
                }
                range_at(&mut cc, &mut comp, &ctype, &cty)?;
                if cc.eat("?") {
                    comp.insert("optional".into(), json!(true));
                }
                if !cc.rest().is_empty() {
                    return Err(err(
                        Code::E20,
                        format!(
                            "type '{ty}': unexpected '{}' in component '{cname}'",
                            cc.rest()
                        ),
                    ));
                }
                comps.push(Value::Object(comp));
            }
            f.insert("type".into(), json!("tuple"));
            f.insert("items".into(), Value::Array(comps));
            "tuple".to_string()
        }
        _ => {
            cur.at = save;
            let (t, values) = scalar_at(&mut cur, ty)?;
            f.insert("type".into(), json!(t));
            if let Some(v) = values {
                f.insert("values".into(), v);
            }
            t
        }
    };
    range_at(&mut cur, &mut f, &kind, ty)?;
    if kind == "mlist" {
        let marker = if cur.eat("*1+") {
            "at_least_one"
        } else if cur.eat("*0..1") {
            "at_most_one"
        } else if cur.eat("*1") {
            "exactly_one"
        } else if cur.eat("*") {
            "any"
        } else {
            "exactly_one"
        };
        f.insert("marker".into(), json!(marker));
        f.insert(
            "json".into(),
            json!({"items": name, "selected": format!("{name}_selected")}),
        );
    }
    if cur.eat("?") {
        f.insert("optional".into(), json!(true));
    }
    if !cur.rest().is_empty() {
        return Err(err(
            Code::E20,
            format!("type '{ty}': unexpected '{}'", cur.rest()),
        ));
    }
    Ok(Value::Object(f))
}

// ------------------------------------------------------------ fixtures

/// `dumps` then `parse` then `dumps` again: the text and its canonical
/// object, which are each other's image.
fn round_trip(obj: &Value, c: &Contract) -> Result<(String, Value)> {
    let text = dumps(obj, c)?;
    let canonical = parse(&text, c)?.to_canonical();
    if dumps(&canonical, c)? != text {
        return Err(Error::message(
            "the generated fixture does not round-trip (please report this contract)",
        ));
    }
    Ok((text, canonical))
}

/// Generated fixture files: (file name, content).
fn fixtures(c: &Contract) -> Result<Vec<(&'static str, String)>> {
    // two records: the first fills every field, the second leaves the
    // optional ones empty; every field varies, the header is complete
    let style = Style {
        vary_all: true,
        sparse: true,
        full_header: true,
        desc_examples: false,
    };
    let (valid, canonical) = round_trip(&sample::canonical(c, 2, style)?, c)?;

    // escaping: the first record, with reserved characters in the first
    // str field and str list
    let records_key = c.records_key();
    let mut esc = canonical[records_key][0]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if let Some(f) = c
        .fields()
        .iter()
        .find(|f| matches!(&f.kind, Kind::Scalar(s) if s.ty == ScalarType::Str))
    {
        esc.insert(f.name.clone(), json!(ESCAPING_TEXT));
    }
    for f in c.fields() {
        let key = match &f.kind {
            Kind::List { item, .. } if item.ty == ScalarType::Str => &f.name,
            Kind::MList {
                item, items_key, ..
            } if item.ty == ScalarType::Str => items_key,
            _ => continue,
        };
        if let Some(Value::Array(a)) = esc.get_mut(key) {
            if let Some(first) = a.first_mut() {
                *first = json!(ESCAPING_ITEM);
                break;
            }
        }
    }
    let mut esc_doc = canonical.clone();
    if let Some(doc) = esc_doc.as_object_mut() {
        doc.insert(records_key.to_string(), json!([esc]));
    }
    let (esc_text, esc_canonical) = round_trip(&esc_doc, c)?;

    let lines: Vec<&str> = valid.split('\n').collect();
    let n = lines.len() - 1;
    let mut out = vec![
        ("valid.mini", format!("{valid}\n")),
        ("canonical.json", pretty(&canonical)?),
        ("escaping.mini", format!("{esc_text}\n")),
        ("escaping.json", pretty(&esc_canonical)?),
    ];
    let with_line = |i: usize, line: String| -> String {
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        l[i] = line;
        format!("{}\n", l.join("\n"))
    };
    // bad_count: n one more than the records
    out.push((
        "bad_count.mini",
        with_line(
            0,
            lines[0].replacen(&format!("|n={n}"), &format!("|n={}", n + 1), 1),
        ),
    ));
    // bad_arity: the first record loses its last core field (or, with a
    // one-field core, gains fields the contract does not declare)
    let fields: Vec<&str> = lines[1].split('|').collect();
    let core = c.core().len();
    let arity_line = if core >= 2 {
        fields[..core - 1].join("|")
    } else {
        format!("{}{}", lines[1], "|x".repeat(c.fields().len()))
    };
    out.push(("bad_arity.mini", with_line(1, arity_line)));
    // bad_type: a typed core scalar holds text
    let typed = |want: &[ScalarType]| {
        c.core()
            .iter()
            .position(|f| matches!(&f.kind, Kind::Scalar(s) if want.contains(&s.ty)))
    };
    let pos = typed(&[
        ScalarType::Int,
        ScalarType::Float,
        ScalarType::Bool,
        ScalarType::Date,
        ScalarType::Decimal,
    ])
    .or_else(|| typed(&[ScalarType::Enum]));
    if let Some(i) = pos {
        let mut f = fields.clone();
        f[i] = "not-a-value";
        out.push(("bad_type.mini", with_line(1, f.join("|"))));
    }
    for (name, text) in &out {
        if name.starts_with("bad_") && parse(text, c).is_ok() {
            return Err(Error::message(format!(
                "the generated {name} is not rejected (please report this contract)"
            )));
        }
    }
    Ok(out)
}

fn pretty(v: &Value) -> Result<String> {
    serde_json::to_string_pretty(v)
        .map(|s| s + "\n")
        .map_err(|e| Error::message(e.to_string()))
}

/// The prefixes declared under `dir` (unreadable contracts skipped).
fn prefixes(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.filter_map(|e| e.ok()) {
        let p = e.path().join("contract.json");
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        if let Some(prefix) = v.get("prefix").and_then(Value::as_str) {
            out.push((prefix.to_string(), p));
        }
    }
    out.sort();
    out
}

/// Scaffolds family `prefix` in `dir/<prefix>/`: a `contract.json` and
/// fixtures (`valid.mini`, `canonical.json`, `escaping.mini`,
/// `escaping.json`, `bad_count.mini`, `bad_arity.mini` and, when the core
/// has a typed scalar, `bad_type.mini`) such that [`super::check_forks`]
/// passes on it. Returns the path of the new `contract.json`.
///
/// * With `from` (a prefix found under `dir`), the contract is the
///   parent's with `prefix`, `parent`, `version: 1`, a new `name` and
///   `description` (the parent's `author` and `source` are dropped): the
///   parent's header, core and extensions are kept as they are, and the
///   `add`ed fields are appended to the extensions, so I2–I4 hold and every
///   document of the parent stays valid for the fork. (Upstream's
///   `new-fork` moves the parent's extensions into the child's core, which
///   makes them required; this keeps them optional.)
/// * Without `from`, the `add`ed fields form the core (at least one is
///   needed), the header has only `n`, and `records_key` is `records`.
///
/// `add` holds `(name, type)` pairs in the grammar of [`field_spec`]
/// ([`parse_field_arg`] splits a command-line `name:type`).
///
/// The fixtures are built from the synthetic values of
/// [`crate::sample::canonical`] (`id`, `id-2`, the enum values in turn,
/// numbers within the bounds, `count_key` lists of one agreed length, …),
/// every field varying: the first record fills every field, the second
/// leaves the optional fields without default empty; `escaping.mini` holds
/// [`ESCAPING_TEXT`] and [`ESCAPING_ITEM`]. Each text is written by
/// `dumps`, parsed back and checked to round-trip before anything is
/// written; the negative fixtures are checked to be rejected.
///
/// Errors: E20 for a bad prefix, a bad type or an invalid resulting
/// contract; E21 when `prefix` already exists under `dir` or `from` does
/// not; I/O errors when writing.
pub fn new_fork<S: AsRef<str>, T: AsRef<str>>(
    dir: impl AsRef<Path>,
    prefix: &str,
    from: Option<&str>,
    add: &[(S, T)],
) -> Result<PathBuf> {
    new_fork_named(dir, prefix, from, add, None)
}

/// [`new_fork`] with the new contract's `name` (its one-line description,
/// which `mini forks` lists) given instead of the generated one
/// (`"<prefix> family"`, or `"<prefix> (fork of <parent>)"`).
pub fn new_fork_named<S: AsRef<str>, T: AsRef<str>>(
    dir: impl AsRef<Path>,
    prefix: &str,
    from: Option<&str>,
    add: &[(S, T)],
    name: Option<&str>,
) -> Result<PathBuf> {
    let dir = dir.as_ref();
    let existing = prefixes(dir);
    if existing.iter().any(|(p, _)| p == prefix) || dir.join(prefix).exists() {
        return Err(err(
            Code::E21,
            format!("family '{prefix}' already exists in {}", dir.display()),
        ));
    }
    let mut added = Vec::with_capacity(add.len());
    for (name, ty) in add {
        let mut f = field_spec(name.as_ref(), ty.as_ref())?;
        if from.is_some() {
            if let Value::Object(m) = &mut f {
                m.shift_remove("optional");
            }
        }
        added.push(f);
    }
    let names: Vec<&str> = add.iter().map(|(n, _)| n.as_ref()).collect();
    let (raw, parent) = match from {
        Some(pp) => {
            let path = existing
                .iter()
                .find(|(p, _)| p == pp)
                .map(|(_, path)| path.clone())
                .ok_or_else(|| {
                    err(
                        Code::E21,
                        format!("parent family '{pp}' is not in {}", dir.display()),
                    )
                })?;
            let parent = Contract::from_path(&path)?;
            let mut m = parent.to_value().as_object().cloned().unwrap_or_default();
            m.insert("prefix".into(), json!(prefix));
            m.insert("version".into(), json!(1));
            let pname = parent.meta("name").unwrap_or(pp);
            m.insert("name".into(), json!(format!("{prefix} (fork of {pp})")));
            m.insert(
                "description".into(),
                json!(if names.is_empty() {
                    format!("Fork of '{pp}' ({pname}).")
                } else {
                    format!("Fork of '{pp}' ({pname}) adding {}.", names.join(", "))
                }),
            );
            m.insert("parent".into(), json!(pp));
            m.shift_remove("author");
            m.shift_remove("source");
            match m.get_mut("extensions") {
                Some(Value::Array(ext)) => ext.extend(added),
                _ => {
                    m.insert("extensions".into(), Value::Array(added));
                }
            }
            (Value::Object(m), Some(parent))
        }
        None => {
            if added.is_empty() {
                return Err(err(
                    Code::E20,
                    "a family without parent needs at least one field (name:type)",
                ));
            }
            let raw = json!({
                "prefix": prefix,
                "version": 1,
                "name": format!("{prefix} family"),
                "description": format!("Records of {}.", names.join(", ")),
                "parent": null,
                "records_key": "records",
                "header": {"required": ["n"], "keys": {}},
                "core": added,
                "extensions": []
            });
            (raw, None)
        }
    };
    let mut raw = raw;
    if let (Some(n), Value::Object(m)) = (name, &mut raw) {
        m.insert("name".into(), json!(n));
    }
    let contract = Contract::from_value(raw.clone())?;
    if let Some(p) = &parent {
        let diags = check_fork(&contract, p);
        if !diags.is_empty() {
            return Err(Error::invalid(diags));
        }
    }
    let files = fixtures(&contract)?;
    let family = dir.join(prefix);
    let fx = family.join("fixtures");
    std::fs::create_dir_all(&fx)?;
    let contract_path = family.join("contract.json");
    std::fs::write(&contract_path, pretty(&raw)?)?;
    for (name, text) in files {
        std::fs::write(fx.join(name), text)?;
    }
    Ok(contract_path)
}
