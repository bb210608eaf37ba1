//! Listing families: summaries and layout signatures.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::check::bound_text;
use crate::contract::{Bound, Contract, Field, Kind, MarkerRule, Registry, Scalar, ScalarType};
use crate::error::Result;

/// One family of a forks directory, as `mini forks` lists it.
///
/// Serializes to the entries of the upstream `forks/registry.json`
/// (`prefix`, `version`, `name`, `parent`, `domain`, `arity`, `extensions`,
/// `signature`, in that order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FamilySummary {
    /// The family prefix.
    pub prefix: String,
    /// The contract version.
    pub version: u64,
    /// The contract's `name` (empty when it has none).
    pub name: String,
    /// The parent family, for forks.
    pub parent: Option<String>,
    /// The contract's `domain` (empty when it has none).
    pub domain: String,
    /// The number of core fields.
    pub arity: usize,
    /// The number of extension fields.
    pub extensions: usize,
    /// The record layout, see [`signature`].
    pub signature: String,
}

impl FamilySummary {
    /// The summary of one contract.
    pub fn of(contract: &Contract) -> FamilySummary {
        FamilySummary {
            prefix: contract.prefix().to_string(),
            version: contract.version(),
            name: contract.meta("name").unwrap_or_default().to_string(),
            parent: contract.parent().map(str::to_string),
            domain: contract.meta("domain").unwrap_or_default().to_string(),
            arity: contract.core().len(),
            extensions: contract.extensions().len(),
            signature: signature(contract),
        }
    }
}

/// Summaries of every family under `dir` (`DIR/<folder>/contract.json`),
/// by prefix. An invalid contract is an error (E20, naming its file): use
/// [`super::check_forks`] to see every problem of a directory at once.
pub fn list_families(dir: impl AsRef<Path>) -> Result<Vec<FamilySummary>> {
    let reg = Registry::load(dir)?;
    Ok(reg.iter().map(FamilySummary::of).collect())
}

/// One line per family, as the upstream `mini forks` prints them:
/// `q      v1  parent=a      arity= 8+3  Formative quiz items …`.
pub fn render_families(families: &[FamilySummary]) -> String {
    let mut out = String::new();
    for f in families {
        let _ = writeln!(
            out,
            "{:6} v{}  parent={:6} arity={:2}+{}  {}",
            f.prefix,
            f.version,
            f.parent.as_deref().unwrap_or("-"),
            f.arity,
            f.extensions,
            f.name
        );
    }
    out
}

/// The raw JSON object of field `i` (core then extensions).
pub(crate) fn raw_field(c: &Contract, i: usize) -> Option<&Map<String, Value>> {
    let core = c.core().len();
    let (key, j) = if i < core {
        ("core", i)
    } else {
        ("extensions", i - core)
    };
    c.to_value().get(key)?.get(j)?.as_object()
}

/// A bound as the contract wrote it (`3.0` stays `3.0`).
fn bound_str(raw: Option<&Map<String, Value>>, key: &str, b: Option<&Bound>) -> String {
    match raw.and_then(|r| r.get(key)) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => b.map(bound_text).unwrap_or_default(),
    }
}

fn item_text(s: &Scalar) -> String {
    if s.ty == ScalarType::Enum {
        format!("{{{}}}", s.values.join("|"))
    } else {
        s.ty.name().to_string()
    }
}

/// The signature of one field: `name:type…`, `?` when optional.
pub fn field_signature(f: &Field, raw: Option<&Map<String, Value>>) -> String {
    let body = match &f.kind {
        Kind::Scalar(s) if s.ty == ScalarType::Enum => format!("enum{{{}}}", s.values.join("|")),
        Kind::Scalar(s) => {
            let mut b = s.ty.name().to_string();
            if s.min.is_some() || s.max.is_some() {
                let _ = write!(
                    b,
                    "[{}..{}]",
                    bound_str(raw, "min", s.min.as_ref()),
                    bound_str(raw, "max", s.max.as_ref())
                );
            }
            b
        }
        Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
            let mut b = format!("{}<{}>", f.kind.type_name(), item_text(item));
            if arity.min.is_some() || arity.max.is_some() {
                let show = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
                let _ = write!(b, "[{}..{}]", show(arity.min), show(arity.max));
            }
            if let Kind::MList { marker, .. } = &f.kind {
                b.push_str(match marker {
                    MarkerRule::ExactlyOne => "*1",
                    MarkerRule::AtLeastOne => "*1+",
                    MarkerRule::AtMostOne => "*0..1",
                    MarkerRule::Any => "*",
                });
            }
            b
        }
        Kind::Tuple(comps) => format!(
            "tuple({})",
            comps
                .iter()
                .map(|c| format!("{}:{}", c.name, c.scalar.ty.name()))
                .collect::<Vec<_>>()
                .join(",")
        ),
    };
    format!("{}:{body}{}", f.name, if f.optional { "?" } else { "" })
}

/// The compact record layout of a contract, as in the upstream
/// `registry.json`: core fields joined by ` | `, then ` || ` and the
/// extensions, e.g.
/// `id:str | bloom:enum{L1|L2} | options:mlist<str>[2..6]*1 | rating:float[0..5]? || hint:str?`.
///
/// Scalars show their bounds as written (`float[1.3..3.0]`, `int[0..]`),
/// lists their arity, marked lists their rule (`*1` exactly one, `*1+` at
/// least one, `*0..1` at most one, `*` any), tuples their component types;
/// `?` marks an optional field (every extension).
pub fn signature(contract: &Contract) -> String {
    let sig = |i: usize, f: &Field| field_signature(f, raw_field(contract, i));
    let core: Vec<String> = contract
        .core()
        .iter()
        .enumerate()
        .map(|(i, f)| sig(i, f))
        .collect();
    let n = contract.core().len();
    let ext: Vec<String> = contract
        .extensions()
        .iter()
        .enumerate()
        .map(|(i, f)| sig(n + i, f))
        .collect();
    let mut out = core.join(" | ");
    if !ext.is_empty() {
        out.push_str(" || ");
        out.push_str(&ext.join(" | "));
    }
    out
}
