//! The header line (SPEC 1.1 §5): prefix, `n`, `v`, typed and undeclared keys.

use super::record::{check_kind, Place};
use super::*;

/// Parses the header line (SPEC 1.1 §5), pushing its errors to `diags`.
pub fn check_header(
    line: Line<'_>,
    contract: &Contract,
    diags: &mut Vec<Diagnostic>,
) -> HeaderInfo {
    let sep = contract.separator();
    let ln = line.number;
    let mut fields = Vec::new();
    let mut syntax_errors = Vec::new();
    syntax::split_fields(line.text, sep, &mut fields, &mut syntax_errors);
    // each lexical error belongs to the field it lies in: the prefix's are
    // reported now, an entry's under its key (one defect, one error)
    let field_of = |e: &SyntaxError| fields.iter().rposition(|f| f.offset <= e.offset);
    for e in syntax_errors
        .iter()
        .filter(|e| field_of(e).is_none_or(|i| i == 0))
    {
        diags.push(syntax_diag(ln, None, e));
    }
    let prefix = fields
        .first()
        .map(|f| f.text(sep).into_owned())
        .unwrap_or_default();
    let mut info = HeaderInfo {
        prefix,
        line: ln,
        version: 1,
        ..HeaderInfo::default()
    };
    if info.prefix != contract.prefix() {
        diags.push(Diagnostic::new(
            Code::E02,
            ln,
            None,
            format!(
                "header prefix '{}' does not match contract '{}'{}",
                info.prefix,
                contract.prefix(),
                super::header_hint(line.text).unwrap_or_default()
            ),
        ));
    }
    let mut seen: HashSet<String> = HashSet::new();
    let mut pools = Pools::default();
    for (i, f) in fields.iter().enumerate().skip(1) {
        let mut lexical = syntax_errors
            .iter()
            .filter(|e| field_of(e) == Some(i))
            .peekable();
        if f.is_empty() {
            continue;
        }
        let Some((key_raw, mut value_raw)) = syntax::split_entry(f.raw) else {
            for e in lexical {
                diags.push(syntax_diag(ln, None, e));
            }
            diags.push(Diagnostic::new(
                Code::E12,
                ln,
                None,
                format!("header entry '{}' is not key=value", f.text(sep)),
            ));
            continue;
        };
        let key = syntax::unescape(key_raw, sep);
        if lexical.peek().is_some() {
            let field = crate::contract::is_key(&key).then_some(key.as_str());
            for e in lexical {
                diags.push(syntax_diag(ln, field, e));
                if e.kind == syntax::SyntaxErrorKind::DanglingBackslash {
                    // reported once (E09); the value is read without it, so
                    // the same byte is no type error too (ADR 0022)
                    value_raw = value_raw.strip_suffix('\\').unwrap_or(value_raw);
                }
            }
        }
        if !crate::contract::is_key(&key) {
            // SPEC 1.1 §4: key ::= [A-Za-z_] [A-Za-z0-9_]* — a malformed entry (E12)
            diags.push(diag(
                Code::E12,
                ln,
                &key,
                format!("header key '{key}' is not a valid key ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
            continue;
        }
        if !seen.insert(key.clone()) {
            diags.push(diag(
                Code::E12,
                ln,
                &key,
                format!("header key '{key}' is repeated (the first one counts)"),
            ));
            continue;
        }
        if key == "n" {
            info.n_present = true;
        }
        let value = RawField {
            raw: value_raw,
            escaped: value_raw.contains('\\'),
            offset: 0,
        };
        let Some(hk) = contract.header_key(&key) else {
            let text = value.text(sep).into_owned();
            info.entries.push((key, HeaderValue::Text(text)));
            continue;
        };
        let place = Place {
            sep,
            header: &info,
            in_header: true,
            decode_str: true,
        };
        let res = check_kind(&value, &hk.kind, false, &place, &mut pools);
        if key == "n" {
            // SPEC 1.1 §5: n is present (E03), an int (E06) and the number of
            // record lines (E04). An int that no line count can equal
            // (negative, or beyond 64 bits) is E04 at the end, not E06.
            let digits = value.text(sep);
            let digits = digits.trim_matches(syntax::is_space);
            if number::is_int(digits) {
                let canonical = number::canonical_int(digits);
                if canonical.parse::<u64>().is_err() {
                    // the canonical header keeps the n the model wrote
                    // (ADR 0006): the exact int this build holds, else
                    // (beyond 64 bits without `arbitrary_precision`) its
                    // digits, never a rounded number
                    let kept = match res {
                        Ok(v) => HeaderValue::Typed(v.into_owned()),
                        Err(_) => HeaderValue::Text(canonical.clone()),
                    };
                    info.entries.push((key, kept));
                    info.n_impossible = Some(canonical);
                    continue;
                }
            }
        }
        match res {
            Ok(v) => {
                let int = match &v {
                    FieldValue::Atom(Atom::Int(d)) => Some(d.as_ref()),
                    _ => None,
                };
                if key == "n" {
                    info.n = int.and_then(|d| d.parse::<u64>().ok());
                    if info.n.is_none() {
                        diags.push(diag(Code::E06, ln, "n", "n must be a non-negative int"));
                        continue;
                    }
                }
                if key == "v" {
                    // a positive v beyond u64 is still a later version
                    info.version = match int {
                        Some(d) if d.starts_with('-') || d == "0" => 1,
                        Some(d) => d.parse::<u64>().unwrap_or(u64::MAX),
                        None => 1,
                    };
                }
                info.entries.push((key, HeaderValue::Typed(v.into_owned())));
            }
            Err((code, msg, comp)) => {
                let field = match comp {
                    Some(c) => format!("{key}.{c}"),
                    None => key.clone(),
                };
                diags.push(diag(code, ln, &field, msg));
            }
        }
    }
    for hk in contract.header_keys() {
        if seen.contains(&hk.name) {
            continue;
        }
        if hk.name == "n" {
            diags.push(Diagnostic::new(
                Code::E03,
                ln,
                None,
                "header must declare n=<record count>",
            ));
        } else if hk.required {
            diags.push(diag(
                Code::E12,
                ln,
                &hk.name,
                format!("required header key '{}' missing", hk.name),
            ));
        } else if let Some(d) = &hk.default {
            info.entries
                .push((hk.name.clone(), HeaderValue::Default(d.clone())));
        }
    }
    info.counts = info
        .entries
        .iter()
        .filter_map(|(k, v)| match v {
            HeaderValue::Typed(FieldValue::Atom(Atom::Int(d))) => {
                Some((k.clone(), d.parse::<u64>().ok()))
            }
            HeaderValue::Default(Value::Number(n)) => Some((k.clone(), n.as_u64())),
            _ => None,
        })
        .collect();
    info
}
