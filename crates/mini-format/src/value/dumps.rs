//! The canonical serializer: canonical object + contract → `.mini` text
//! (SPEC 1.1 §9, ADR 0015 upstream).
//!
//! Two steps. Encoding rejects what text cannot carry (a JSON type that does
//! not fit the field, a selection that is not an index, a string whose outer
//! whitespace or emptiness would be lost) with the code the parser gives the
//! same violation. Then the text is verified by the strict parser, the one
//! validation engine, which reports everything else (ranges, enumerations,
//! arity, count keys, unique values, required header keys) with the
//! parser's own code and line. A document is returned only if it parses.

use serde_json::{Map, Value};

use crate::contract::{Contract, Field, HeaderKey, Kind, MarkerRule, Scalar, ScalarType};
use crate::error::{Code, Diagnostic, Error, Result};
use crate::number::{self, Dec};
use crate::syntax::{escape_element_into, escape_scalar_into, escape_scalar_sep_into};

type Fail = (Code, String);

fn e06(msg: impl Into<String>) -> Fail {
    (Code::E06, msg.into())
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks that a string survives parsing unchanged under list separator
/// `sep`: parsing trims unescaped outer whitespace (a line break is written
/// `\n`, so it stays; a whitespace separator, a TAB, is written `\<sep>`
/// wherever the value sits, §3.3, so it stays too).
pub(crate) fn survives(s: &str, sep: char) -> std::result::Result<(), Fail> {
    // fast path: ASCII edges that are not whitespace
    let plain = |b: u8| b.is_ascii_graphic();
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (None, _) => return Ok(()),
        (Some(&f), Some(&l)) if plain(f) && plain(l) => return Ok(()),
        _ => {}
    }
    let trimmed = |c: char| crate::syntax::is_space(c) && c != '\n' && c != '\r' && c != sep;
    if s.starts_with(trimmed) || s.ends_with(trimmed) {
        return Err(e06(format!(
            "string {s:?} has outer whitespace, which parsing would trim"
        )));
    }
    Ok(())
}

/// Why a string with outer whitespace that parsing would trim is refused:
/// with the code the parser gives the text it would read (the value
/// trimmed) when it refuses that text (E10 outside an enumeration, E13 out
/// of range, E06 not a date or decimal), else E06, since the value would
/// change silently. `ranged`: whether the scalar's bounds apply (not to
/// list elements, as in the parser).
fn refused_outer(t: &str, s: &Scalar, sep: char, ranged: bool, fail: Fail) -> Fail {
    let trim = |c: char| crate::syntax::is_space(c) && c != '\n' && c != '\r' && c != sep;
    let read = t.trim_matches(trim);
    if read.is_empty() {
        return fail;
    }
    match crate::check::check_atom(std::borrow::Cow::Borrowed(read), s, ranged) {
        Err((code, msg)) => (code, msg),
        Ok(_) => fail,
    }
}

/// The canonical text (unescaped) of a scalar given as canonical JSON.
/// `ranged`: whether the scalar's bounds apply (not to list elements).
pub(crate) fn scalar_text(
    v: &Value,
    s: &Scalar,
    sep: char,
    ranged: bool,
) -> std::result::Result<String, Fail> {
    match s.ty {
        ScalarType::Str | ScalarType::Enum | ScalarType::Date => match v {
            Value::String(t) => {
                survives(t, sep).map_err(|f| refused_outer(t, s, sep, ranged, f))?;
                Ok(t.clone())
            }
            other => Err(e06(format!(
                "expected a string for {}, got {}",
                s.ty.name(),
                json_type(other)
            ))),
        },
        ScalarType::Decimal => match v {
            Value::String(t) => {
                survives(t, sep).map_err(|f| refused_outer(t, s, sep, ranged, f))?;
                Ok(if number::is_decimal(t) {
                    number::canonical_decimal(t)
                } else {
                    t.clone()
                })
            }
            Value::Number(n) => match Dec::parse(&n.to_string()).and_then(|d| d.integer_text()) {
                Some(t) => Ok(t),
                None => Err(e06(format!(
                    "decimal values travel as strings; got the binary number {n}"
                ))),
            },
            other => Err(e06(format!(
                "expected a decimal string, got {}",
                json_type(other)
            ))),
        },
        ScalarType::Int => match v {
            Value::Number(n) => match Dec::parse(&n.to_string()).and_then(|d| d.integer_text()) {
                Some(t) => Ok(t),
                None => Err(e06(format!(
                    "expected int, got {n} (not integral, or more than {} digits)",
                    number::MAX_WRITTEN_DIGITS
                ))),
            },
            other => Err(e06(format!("expected int, got {}", json_type(other)))),
        },
        ScalarType::Float => match v {
            // an f64 is written with the standard library's shortest digits,
            // as the serializer writes a Rust f64 (on a tie between two
            // shortest spellings, serde_json's printer may pick the other)
            #[cfg(not(feature = "arbitrary_precision"))]
            Value::Number(n) if n.is_f64() => n
                .as_f64()
                .and_then(number::format_f64)
                .ok_or_else(|| e06(format!("expected a number, got {n}"))),
            Value::Number(n) => Dec::parse(&n.to_string())
                .map(|d| d.format(false))
                .ok_or_else(|| e06(format!("expected a number, got {n}"))),
            other => Err(e06(format!("expected a number, got {}", json_type(other)))),
        },
        ScalarType::Bool => match v {
            Value::Bool(b) => Ok(if *b { "true" } else { "false" }.to_string()),
            other => Err(e06(format!(
                "expected true or false, got {}",
                json_type(other)
            ))),
        },
    }
}

struct Encoder<'c> {
    contract: &'c Contract,
    sep: char,
    errors: Vec<Diagnostic>,
}

impl Encoder<'_> {
    fn fail(&mut self, line: usize, field: Option<&str>, (code, msg): Fail) {
        self.errors
            .push(Diagnostic::new(code, line, field.map(str::to_string), msg));
    }

    /// A scalar field or header value.
    fn scalar(
        &self,
        out: &mut String,
        v: &Value,
        s: &Scalar,
        in_header: bool,
    ) -> std::result::Result<(), Fail> {
        let text = scalar_text(v, s, self.sep, true)?;
        if text.is_empty() && !in_header {
            return Err(e06("an empty string cannot be written in a scalar field (it reads back as null or as a missing value)"));
        }
        escape_scalar_sep_into(out, &text, self.sep);
        Ok(())
    }

    fn elements(
        &self,
        out: &mut String,
        items: &[Value],
        item: &Scalar,
        marked: &[usize],
    ) -> std::result::Result<(), Fail> {
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                out.push(self.sep);
            }
            let text = scalar_text(it, item, self.sep, false)
                .map_err(|(c, m)| (c, format!("element {}: {m}", i + 1)))?;
            escape_element_into(out, &text, self.sep);
            if marked.contains(&i) {
                out.push('*');
            }
        }
        Ok(())
    }

    fn tuple(
        &self,
        out: &mut String,
        v: &Value,
        comps: &[crate::contract::Component],
    ) -> std::result::Result<(), Fail> {
        let Value::Object(obj) = v else {
            return Err(e06(format!("a tuple is an object, got {}", json_type(v))));
        };
        if let Some(k) = obj.keys().find(|k| !comps.iter().any(|c| &c.name == *k)) {
            return Err((Code::E07, format!("'{k}' is not a component of the tuple")));
        }
        let start = out.len();
        self.components(out, obj, comps)?;
        // A tuple whose only component is null would be an empty field (zero
        // components): write that null component as `""`, which reads back
        // as null (found by the canonical_roundtrip fuzz target).
        if out.len() == start {
            out.push_str("\"\"");
        }
        Ok(())
    }

    fn components(
        &self,
        out: &mut String,
        obj: &Map<String, Value>,
        comps: &[crate::contract::Component],
    ) -> std::result::Result<(), Fail> {
        for (i, c) in comps.iter().enumerate() {
            if i > 0 {
                out.push(self.sep);
            }
            match obj.get(&c.name) {
                // a null component is empty; under a whitespace separator an
                // empty edge component would be trimmed away, so write `""`
                // (which reads back as null too)
                None | Some(Value::Null) if c.optional => {
                    if crate::syntax::is_space(self.sep) {
                        out.push_str("\"\"");
                    }
                }
                None | Some(Value::Null) => {
                    return Err(e06(format!(
                        "required tuple component '{}' is missing",
                        c.name
                    )))
                }
                Some(x) => {
                    let text = scalar_text(x, &c.scalar, self.sep, true)
                        .map_err(|(code, m)| (code, format!("{}: {m}", c.name)))?;
                    if text.is_empty() {
                        return Err(e06(format!(
                            "tuple component '{}' cannot be an empty string",
                            c.name
                        )));
                    }
                    escape_element_into(out, &text, self.sep);
                }
            }
        }
        Ok(())
    }

    fn list(&self, out: &mut String, v: &Value, item: &Scalar) -> std::result::Result<(), Fail> {
        match v {
            Value::Array(items) => self.elements(out, items, item, &[]),
            other => Err(e06(format!("a list is an array, got {}", json_type(other)))),
        }
    }

    fn selection(
        rule: MarkerRule,
        sel: &Value,
        len: usize,
    ) -> std::result::Result<Vec<usize>, Fail> {
        let index = |x: &Value| -> std::result::Result<usize, Fail> {
            match x {
                Value::Number(n) => match n.as_u64() {
                    Some(i) if (i as usize) < len => Ok(i as usize),
                    Some(i) => Err((
                        Code::E08,
                        format!("selected index {i} out of range (list has {len} elements)"),
                    )),
                    None => Err((Code::E08, format!("selection {n} is not an index"))),
                },
                other => Err((
                    Code::E08,
                    format!("selection must be an index, got {}", json_type(other)),
                )),
            }
        };
        let marked = match (rule.is_single(), sel) {
            (_, Value::Null) => Vec::new(),
            (true, x) => vec![index(x)?],
            (false, Value::Array(xs)) => {
                let mut v = xs
                    .iter()
                    .map(index)
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                v.sort_unstable();
                if v.windows(2).any(|w| w[0] == w[1]) {
                    return Err((Code::E08, "the selection repeats an index".to_string()));
                }
                v
            }
            (false, other) => {
                return Err((
                    Code::E08,
                    format!(
                        "selection must be a list of indices, got {}",
                        json_type(other)
                    ),
                ))
            }
        };
        let n = marked.len();
        if !rule.allows(n) {
            return Err((
                Code::E08,
                format!(
                    "marker rule {} is not met by {n} selected element(s)",
                    rule.name()
                ),
            ));
        }
        Ok(marked)
    }

    fn field(
        &self,
        out: &mut String,
        f: &Field,
        rec: &Map<String, Value>,
    ) -> std::result::Result<(), Fail> {
        if let Kind::MList {
            item,
            marker,
            items_key,
            selected_key,
            ..
        } = &f.kind
        {
            let items = rec.get(items_key).unwrap_or(&Value::Null);
            let sel = rec.get(selected_key).unwrap_or(&Value::Null);
            return match items {
                Value::Null if f.optional => Ok(()),
                Value::Null => Err(e06(format!("required marked list '{items_key}' is null"))),
                Value::Array(xs) => {
                    let marked = Self::selection(*marker, sel, xs.len())?;
                    self.elements(out, xs, item, &marked)
                }
                other => Err(e06(format!(
                    "a marked list is an array, got {}",
                    json_type(other)
                ))),
            };
        }
        let v = rec.get(&f.name).unwrap_or(&Value::Null);
        if v.is_null() {
            return if f.optional {
                Ok(())
            } else {
                Err(e06(format!("required field '{}' is null", f.name)))
            };
        }
        match &f.kind {
            Kind::Scalar(s) => self.scalar(out, v, s, false),
            Kind::List { item, .. } => self.list(out, v, item),
            Kind::Tuple(comps) => self.tuple(out, v, comps),
            Kind::MList { .. } => Ok(()),
        }
    }

    fn header_value(
        &self,
        out: &mut String,
        hk: Option<&HeaderKey>,
        v: &Value,
    ) -> std::result::Result<(), Fail> {
        match hk.map(|h| &h.kind) {
            None => match v {
                Value::String(s) => {
                    survives(s, self.sep)?;
                    escape_scalar_sep_into(out, s, self.sep);
                    Ok(())
                }
                Value::Number(n) => {
                    escape_scalar_into(out, &n.to_string());
                    Ok(())
                }
                Value::Bool(b) => {
                    out.push_str(if *b { "true" } else { "false" });
                    Ok(())
                }
                other => Err(e06(format!(
                    "an undeclared header key holds text, got {}",
                    json_type(other)
                ))),
            },
            Some(Kind::Scalar(s)) => self.scalar(out, v, s, true),
            Some(Kind::List { item, .. } | Kind::MList { item, .. }) => self.list(out, v, item),
            Some(Kind::Tuple(comps)) => self.tuple(out, v, comps),
        }
    }

    fn header(&mut self, out: &mut String, header: &Map<String, Value>, n: usize) {
        out.push_str(self.contract.prefix());
        out.push_str("|n=");
        out.push_str(&n.to_string());
        let declared = self.contract.header_keys().iter().map(|k| k.name.as_str());
        let extra = header
            .keys()
            .map(String::as_str)
            .filter(|k| self.contract.header_key(k).is_none());
        let keys: Vec<&str> = declared.chain(extra).filter(|k| *k != "n").collect();
        for k in keys {
            let Some(v) = header.get(k).filter(|v| !v.is_null()) else {
                continue;
            };
            if k == "v" && v.as_u64() == Some(1) {
                continue;
            }
            if !crate::contract::is_key(k) {
                self.fail(
                    1,
                    Some(k),
                    (Code::E12, format!("'{k}' is not a valid header key")),
                );
                continue;
            }
            let mut text = String::new();
            match self.header_value(&mut text, self.contract.header_key(k), v) {
                Ok(()) => {
                    out.push('|');
                    out.push_str(k);
                    out.push('=');
                    out.push_str(&text);
                }
                Err(f) => self.fail(1, Some(k), f),
            }
        }
    }

    fn record(&mut self, out: &mut String, rec: &Value, line: usize) {
        let Value::Object(rec) = rec else {
            self.fail(
                line,
                None,
                e06(format!("a record is an object, got {}", json_type(rec))),
            );
            return;
        };
        let fields = self.contract.fields();
        let known = |k: &str| {
            fields.iter().any(|f| match &f.kind {
                Kind::MList {
                    items_key,
                    selected_key,
                    ..
                } => k == items_key || k == selected_key,
                _ => k == f.name,
            })
        };
        if let Some(k) = rec.keys().find(|k| !known(k)) {
            self.fail(
                line,
                Some(k),
                (
                    Code::E05,
                    format!(
                        "'{k}' is not a field of contract '{}'",
                        self.contract.prefix()
                    ),
                ),
            );
            return;
        }
        let start = out.len();
        let mut last_non_empty = start;
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                out.push('|');
            }
            let before = out.len();
            if let Err(fail) = self.field(out, f, rec) {
                self.fail(line, Some(&f.name), fail);
            }
            if !f.extension || out.len() > before {
                last_non_empty = out.len();
            }
        }
        // trailing null extensions are omitted
        out.truncate(last_non_empty);
    }
}

/// The encoder's refusals together with what the parser reports on the rest
/// of the text, in the parser's order (by line, then field, E11 last), so
/// that the first diagnostic is the one the parser gives first whichever
/// check found it (SPEC 1.1 §9): a record that breaks a range (seen only by
/// the parser) comes before a later record the encoder refused. A field the
/// encoder refused is left empty in `text`, so what the parser says of it
/// (and of the record count, line 0) is dropped; when the header or the
/// document itself was refused, the encoder's refusals are all there is.
fn in_parser_order(enc: Vec<Diagnostic>, text: &str, contract: &Contract) -> Vec<Diagnostic> {
    if enc.iter().any(|d| d.line() <= 1) {
        return enc;
    }
    let fields = contract.fields();
    let index = |d: &Diagnostic| -> Option<usize> {
        let base = d.field()?;
        let base = base.split_once('.').map_or(base, |(b, _)| b);
        fields.iter().position(|f| f.name == base)
    };
    // (line, field index) refused by the encoder; `None`: the whole record
    let refused: std::collections::HashSet<(usize, Option<usize>)> =
        enc.iter().map(|d| (d.line(), index(d))).collect();
    let lines: std::collections::HashSet<usize> = enc.iter().map(Diagnostic::line).collect();
    let kept = crate::value::diagnostics(text, contract)
        .into_iter()
        .filter(|d| d.line() > 0 && !refused.contains(&(d.line(), None)))
        .filter(|d| match index(d) {
            Some(i) => !refused.contains(&(d.line(), Some(i))),
            None => !lines.contains(&d.line()),
        })
        .collect::<Vec<_>>();
    let mut all: Vec<Diagnostic> = enc.into_iter().chain(kept).collect();
    let rank = |d: &Diagnostic| -> usize {
        if d.code() == Code::E11 {
            fields.len() + 1
        } else {
            index(d).map_or(0, |i| i + 1)
        }
    };
    all.sort_by_key(|d| (d.line(), rank(d)));
    all
}

/// The header line of a document of `n` records with canonical header
/// `header`, exactly as [`dumps`] writes it; `None` if it cannot be encoded
/// (then [`dumps`] reports why).
pub(crate) fn encode_header(
    contract: &Contract,
    header: &Map<String, Value>,
    n: usize,
) -> Option<String> {
    let mut enc = Encoder {
        contract,
        sep: contract.separator(),
        errors: Vec::new(),
    };
    let mut out = String::new();
    enc.header(&mut out, header, n);
    enc.errors.is_empty().then_some(out)
}

/// Serializes a canonical object under `contract` into canonical `.mini`
/// text (escaped form, `n` recomputed, `v` omitted when 1, trailing null
/// extensions omitted, no final newline).
///
/// An object that is not valid under the contract is refused with the code
/// and line the parser reports for the same violation (1 for the header,
/// `i + 2` for record `i`).
pub fn dumps(obj: &Value, contract: &Contract) -> Result<String> {
    let mut enc = Encoder {
        contract,
        sep: contract.separator(),
        errors: Vec::new(),
    };
    let Value::Object(obj) = obj else {
        return Err(Error::invalid(vec![Diagnostic::new(
            Code::E06,
            0,
            None,
            format!(
                "a canonical object is a JSON object, got {}",
                json_type(obj)
            ),
        )]));
    };
    if let Some(p) = obj.get("prefix").filter(|p| !p.is_null()) {
        if p.as_str() != Some(contract.prefix()) {
            enc.fail(
                1,
                None,
                (
                    Code::E02,
                    format!("prefix {p} does not match contract '{}'", contract.prefix()),
                ),
            );
        }
    }
    let records = match obj.get(contract.records_key()) {
        Some(Value::Array(r)) => r.as_slice(),
        Some(other) => {
            enc.fail(
                0,
                Some(contract.records_key()),
                e06(format!(
                    "'{}' must be an array, got {}",
                    contract.records_key(),
                    json_type(other)
                )),
            );
            &[]
        }
        None => {
            enc.fail(
                0,
                Some(contract.records_key()),
                e06(format!(
                    "the object has no '{}' array",
                    contract.records_key()
                )),
            );
            &[]
        }
    };
    let empty = Map::new();
    let header = match obj.get("header") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(h)) => h,
        Some(other) => {
            enc.fail(
                1,
                None,
                e06(format!("the header is an object, got {}", json_type(other))),
            );
            &empty
        }
    };
    let mut out = String::with_capacity(64 + records.len() * 64);
    enc.header(&mut out, header, records.len());
    for (i, rec) in records.iter().enumerate() {
        out.push('\n');
        enc.record(&mut out, rec, i + 2);
    }
    if !enc.errors.is_empty() {
        return Err(Error::invalid(in_parser_order(enc.errors, &out, contract)));
    }
    let errors = crate::value::diagnostics(&out, contract);
    if !errors.is_empty() {
        return Err(Error::invalid(errors));
    }
    Ok(out)
}
