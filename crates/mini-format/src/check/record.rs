//! The rules of one record line (SPEC 1.1 §6–§8): field count, types,
//! list arity and count keys, markers, tuples, `unique`.

use super::unique::unique_key;
use super::*;

/// Types the elements of a list (drained from `pools.elements`) into a
/// recycled vector; the indices of marked elements go to `pools.marked`.
pub(super) fn typed_list<'a>(
    pools: &mut Pools<'a>,
    item: &Scalar,
    keep: bool,
) -> Result<Vec<Atom<'a>>, Violation> {
    if !keep {
        // check only: every element typed, nothing collected
        pools.marked.clear();
        for (i, e) in pools.elements.drain(..).enumerate() {
            if e.marked {
                pools.marked.push(i);
            }
            if item.ty == ScalarType::Str {
                continue;
            }
            if e.text.is_empty() {
                let code = if item.ty == ScalarType::Enum {
                    Code::E10
                } else {
                    Code::E06
                };
                return Err((code, format!("element {} is empty", i + 1)));
            }
            check_atom(e.text, item, false)
                .map_err(|(c, m)| (c, format!("element {}: {m}", i + 1)))?;
        }
        return Ok(Vec::new());
    }
    let mut atoms = pools.atoms.pop().unwrap_or_default();
    atoms.clear();
    pools.marked.clear();
    for (i, e) in pools.elements.drain(..).enumerate() {
        if e.marked {
            pools.marked.push(i);
        }
        if e.text.is_empty() && item.ty != ScalarType::Str {
            let code = if item.ty == ScalarType::Enum {
                Code::E10
            } else {
                Code::E06
            };
            pools.atoms.push(atoms);
            return Err((code, format!("element {} is empty", i + 1)));
        }
        if item.ty == ScalarType::Str {
            // a str element is its text: nothing to check
            atoms.push(Atom::Str(e.text));
            continue;
        }
        match check_atom(e.text, item, false) {
            Ok(a) => atoms.push(a),
            Err((c, m)) => {
                atoms.clear();
                pools.atoms.push(atoms);
                return Err((c, format!("element {}: {m}", i + 1)));
            }
        }
    }
    Ok(atoms)
}

/// Checks a list's element count against its arity: `min`, `max` and the
/// header's count key (E07).
pub(crate) fn check_arity(n: usize, arity: &Arity, header: &HeaderInfo) -> Result<(), Violation> {
    // the verdict, when the count key (if any) is cached as u64
    let cached = match &arity.count_key {
        None => Some(None),
        Some(key) => match header.counts.iter().find(|(k, _)| k == key) {
            Some((_, Some(k))) => Some(Some(*k)),
            _ => None,
        },
    };
    if cached.is_some_and(|count| arity_allows(n, arity, count)) {
        return Ok(());
    }
    let n64 = n as u64;
    if let Some(min) = arity.min.filter(|&m| n64 < m) {
        return Err((Code::E07, format!("list has {n} elements, min {min}")));
    }
    if let Some(max) = arity.max.filter(|&m| n64 > m) {
        return Err((Code::E07, format!("list has {n} elements, max {max}")));
    }
    if let Some(key) = &arity.count_key {
        // fast path: a count cached as u64 is compared without text
        let mismatch = match header.counts.iter().find(|(k, _)| k == key) {
            Some((_, Some(k))) => *k != n64,
            _ => header.count(key).is_some_and(|k| k != n.to_string()),
        };
        if mismatch {
            let k = header.count(key).unwrap_or_default();
            return Err((
                Code::E07,
                format!("list has {n} elements but header {key}={k}"),
            ));
        }
    }
    Ok(())
}

/// The arity rule's verdict (`min`, `max`, and the header's count key,
/// known as `count` when the list has one): whether a list of `n` elements
/// keeps it. [`check_arity`] builds the message when it does not; the
/// plan's walk (`super::fast`) calls this with the count key's slot.
#[inline]
pub(crate) fn arity_allows(n: usize, arity: &Arity, count: Option<u64>) -> bool {
    let n64 = n as u64;
    arity.min.is_none_or(|m| n64 >= m)
        && arity.max.is_none_or(|m| n64 <= m)
        && count.is_none_or(|k| k == n64)
}

pub(crate) fn check_marker(rule: MarkerRule, marked: &[usize]) -> Result<Selection, Violation> {
    let n = marked.len();
    if !rule.allows(n) {
        let msg = match rule {
            MarkerRule::ExactlyOne => format!("exactly one element must carry *, found {n}"),
            MarkerRule::AtLeastOne => "at least one element must carry *".to_string(),
            MarkerRule::AtMostOne | MarkerRule::Any => {
                format!("at most one element may carry *, found {n}")
            }
        };
        return Err((Code::E08, msg));
    }
    Ok(if rule.is_single() {
        Selection::One(marked.first().copied())
    } else {
        Selection::Many(marked.to_vec())
    })
}

/// Where a value is checked: the separator, the header facts (count keys)
/// and whether the value is a header entry.
pub(super) struct Place<'h> {
    pub(super) sep: char,
    pub(super) header: &'h HeaderInfo,
    pub(super) in_header: bool,
    /// False when the value will not be read (see [`Scratch::check_only`]):
    /// a `str` value may stay escaped, and the atoms of a list or tuple are
    /// typed without being kept.
    pub(super) decode_str: bool,
}

/// Checks the raw text of a field of shape `kind`. Returns the value or
/// `(code, message, component)` (the component names a tuple part).
pub(super) fn check_kind<'a>(
    raw: &RawField<'a>,
    kind: &Kind,
    optional: bool,
    place: &Place<'_>,
    pools: &mut Pools<'a>,
) -> Result<FieldValue<'a>, (Code, String, Option<String>)> {
    let (sep, header, in_header) = (place.sep, place.header, place.in_header);
    // a list of `str` that will not be read needs no decoding
    let undecoded = match kind {
        Kind::List { item, .. } | Kind::MList { item, .. } => {
            !place.decode_str && item.ty == ScalarType::Str
        }
        _ => false,
    };
    let split = |raw: &'a str, pools: &mut Pools<'a>| {
        let split = if undecoded {
            syntax::split_list_undecoded
        } else {
            syntax::split_list
        };
        split(raw, sep, &mut pools.elements).map_err(|e| {
            if e.kind == syntax::SyntaxErrorKind::UnclosedQuote {
                pools.cut = true;
            }
            (Code::E09, e.to_string(), None)
        })
    };
    let plain = |v: Violation| (v.0, v.1, None);
    match kind {
        Kind::Scalar(s) => {
            if raw.is_empty() {
                if optional {
                    return Ok(FieldValue::Default);
                }
                if in_header && s.ty == ScalarType::Str {
                    return Ok(FieldValue::Atom(Atom::Str(Cow::Borrowed(""))));
                }
                return Err((Code::E06, "required value is empty".to_string(), None));
            }
            if s.ty == ScalarType::Str {
                // the field splitter has already checked every escape
                let text = if place.decode_str {
                    raw.text(sep)
                } else {
                    Cow::Borrowed(raw.raw)
                };
                return Ok(FieldValue::Atom(Atom::Str(text)));
            }
            check_atom(raw.text(sep), s, true)
                .map(FieldValue::Atom)
                .map_err(plain)
        }
        Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
            if raw.is_empty() && optional {
                return Ok(FieldValue::Default);
            }
            split(raw.raw, pools)?;
            check_arity(pools.elements.len(), arity, header).map_err(plain)?;
            let keep = place.decode_str;
            let atoms = typed_list(pools, item, keep).map_err(plain)?;
            let result = match kind {
                Kind::MList { marker, .. } if !keep => {
                    // checked, not kept (nothing goes back to the pools)
                    let n = pools.marked.len();
                    return if marker.allows(n) {
                        Ok(FieldValue::Default)
                    } else {
                        check_marker(*marker, &pools.marked)
                            .map(|_| FieldValue::Default)
                            .map_err(plain)
                    };
                }
                Kind::MList { marker, .. } => {
                    check_marker(*marker, &pools.marked).map(|sel| FieldValue::MList(atoms, sel))
                }
                _ if in_header => return Ok(FieldValue::List(atoms)),
                _ if !pools.marked.is_empty() => {
                    if keep {
                        pools.atoms.push(atoms);
                    }
                    return Err((
                        Code::E08,
                        "marker * not allowed in a plain list".to_string(),
                        None,
                    ));
                }
                _ if !keep => return Ok(FieldValue::Default),
                _ => return Ok(FieldValue::List(atoms)),
            };
            result.map_err(plain)
        }
        Kind::Tuple(comps) => {
            if raw.is_empty() && optional {
                return Ok(FieldValue::Default);
            }
            split(raw.raw, pools)?;
            if pools.elements.len() != comps.len() {
                return Err((
                    Code::E07,
                    format!(
                        "tuple expects {} components, got {}",
                        comps.len(),
                        pools.elements.len()
                    ),
                    None,
                ));
            }
            let mut out = pools.tuples.pop().unwrap_or_default();
            out.clear();
            let mut failure = None;
            for (c, e) in comps.iter().zip(pools.elements.drain(..)) {
                if failure.is_some() {
                    continue;
                }
                if e.marked && !in_header {
                    failure = Some((
                        Code::E08,
                        "marker * not allowed inside a tuple".to_string(),
                        None,
                    ));
                    continue;
                }
                if e.text.is_empty() {
                    if c.optional {
                        out.push(None);
                        continue;
                    }
                    failure = Some((
                        Code::E06,
                        format!("tuple component '{}' is empty", c.name),
                        Some(c.name.clone()),
                    ));
                    continue;
                }
                match check_atom(e.text, &c.scalar, true) {
                    Ok(a) => out.push(Some(a)),
                    Err((code, m)) => failure = Some((code, m, Some(c.name.clone()))),
                }
            }
            match failure {
                None if place.decode_str => Ok(FieldValue::Tuple(out)),
                None => {
                    // checked, not kept
                    out.clear();
                    pools.tuples.push(out);
                    Ok(FieldValue::Default)
                }
                Some(f) => {
                    out.clear();
                    pools.tuples.push(out);
                    Err(f)
                }
            }
        }
    }
}

/// The outcome of checking one record line.
#[derive(Debug)]
pub enum RecordOutcome<'a> {
    /// The record is valid; its field values, in contract order (absent
    /// extensions are [`FieldValue::Default`]).
    Valid(Vec<FieldValue<'a>>),
    /// The record is invalid; its errors were pushed.
    Invalid,
}

/// Checks one record line against the contract and the header, pushing every
/// error found (at most one per field, plus E11). A valid record claims its
/// unique values.
pub fn check_record<'a>(
    line: Line<'a>,
    contract: &Contract,
    header: &HeaderInfo,
    uniques: &mut Uniques,
    scratch: &mut Scratch<'a>,
    diags: &mut Vec<Diagnostic>,
) -> RecordOutcome<'a> {
    if check_record_into(line, contract, header, uniques, scratch, diags) {
        RecordOutcome::Valid(std::mem::take(&mut scratch.values))
    } else {
        RecordOutcome::Invalid
    }
}

/// [`check_record`] without handing the values out: they stay in
/// [`Scratch::values`] (until the next record), so that a caller that
/// keeps one scratch across records allocates nothing per record. Returns
/// whether the record is valid. The same engine: [`check_record`] is this
/// function plus a move.
pub fn check_record_into<'a>(
    line: Line<'a>,
    contract: &Contract,
    header: &HeaderInfo,
    uniques: &mut Uniques,
    scratch: &mut Scratch<'a>,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let sep = contract.separator();
    let ln = line.number;
    scratch.recycle_values();
    scratch.syntax.clear();
    scratch.pools.cut = false;
    syntax::split_fields(line.text, sep, &mut scratch.fields, &mut scratch.syntax);
    if let Some(e) = scratch.syntax.first() {
        scratch.pools.cut = scratch
            .syntax
            .iter()
            .any(|e| e.kind == syntax::SyntaxErrorKind::DanglingBackslash);
        let more = scratch.syntax.len() - 1;
        // the field the (first) bad escape is in: the last one starting at
        // or before it
        let field = scratch
            .fields
            .iter()
            .rposition(|f| f.offset <= e.offset)
            .and_then(|i| contract.fields().get(i))
            .map(|f| f.name.as_str());
        let mut d = syntax_diag(ln, field, e);
        if more > 0 {
            d = Diagnostic::new(
                Code::E09,
                ln,
                field.map(str::to_string),
                format!("{e} (and {more} more escape error(s))"),
            );
        }
        diags.push(d);
        return false;
    }
    let fields = contract.fields();
    let core = contract.core().len();
    let nf = scratch.fields.len();
    if nf < core {
        scratch.pools.cut = true;
        let missing: Vec<&str> = fields[nf..core].iter().map(|f| f.name.as_str()).collect();
        diags.push(Diagnostic::new(
            Code::E05,
            ln,
            None,
            format!(
                "record has {nf} fields, core requires {core}: missing {}",
                missing.join(", ")
            ),
        ));
        return false;
    }
    if nf > fields.len() && header.version <= contract.version() {
        diags.push(Diagnostic::new(
            Code::E05,
            ln,
            None,
            format!(
                "record has {nf} fields, contract allows at most {} (the last is '{}'): extra {} \
                 (header v={} does not declare a later version; remove them or escape a literal | as \\|)",
                fields.len(),
                fields.last().map_or("", |f| f.name.as_str()),
                scratch.fields[fields.len()..]
                    .iter()
                    .map(|f| format!("'{}'", scalar::shorten(&f.text(sep))))
                    .collect::<Vec<_>>()
                    .join(", "),
                header.version
            ),
        ));
        return false;
    }
    let before = diags.len();
    let values = &mut scratch.values;
    for (i, f) in fields.iter().enumerate() {
        let Some(raw) = scratch.fields.get(i) else {
            values.push(FieldValue::Default);
            continue;
        };
        let place = Place {
            sep,
            header,
            in_header: false,
            decode_str: !scratch.check_only || f.unique,
        };
        match check_kind(raw, &f.kind, f.optional, &place, &mut scratch.pools) {
            Ok(v) => values.push(v),
            Err((code, msg, comp)) => {
                let name = match comp {
                    Some(c) => format!("{}.{c}", f.name),
                    None => f.name.clone(),
                };
                diags.push(diag(code, ln, &name, msg));
                values.push(FieldValue::Default);
            }
        }
    }
    // Claim the unique values of a valid record: one hash per value. A
    // clash gives back what this record claimed before it, so that a
    // rejected record claims nothing; an invalid record is still checked
    // for clashes (E11 is reported with its other errors).
    let invalid = diags.len() > before;
    let mut clashes = false;
    scratch.claimed.clear();
    for (i, f) in fields.iter().enumerate() {
        if !f.unique || !unique_key(&values[i], &mut scratch.key) {
            continue;
        }
        if uniques.seen[i].contains(scratch.key.as_str()) {
            clashes = true;
            diags.push(diag(
                Code::E11,
                ln,
                &f.name,
                format!("duplicate value in unique field '{}'", f.name),
            ));
        } else if !invalid && !clashes {
            uniques.seen[i].insert(&scratch.key);
            scratch.claimed.push(i);
        }
    }
    if clashes {
        for &i in &scratch.claimed {
            if unique_key(&values[i], &mut scratch.key) {
                uniques.seen[i].remove(scratch.key.as_str());
            }
        }
    }
    if clashes || invalid {
        return false;
    }
    true
}

/// Checks one field of a record line alone, with the same rules as
/// [`check_record_into`] (the single-pass deserializer's check-only pass
/// over the fields serde did not ask for, and the unique key of a list or
/// tuple field): the value, or `None` when the field breaks a rule.
pub(crate) fn check_field<'a>(
    raw: &RawField<'a>,
    field: &crate::contract::Field,
    contract: &Contract,
    header: &HeaderInfo,
    scratch: &mut Scratch<'a>,
) -> Option<FieldValue<'a>> {
    let place = Place {
        sep: contract.separator(),
        header,
        in_header: false,
        decode_str: true,
    };
    check_kind(raw, &field.kind, field.optional, &place, &mut scratch.pools).ok()
}
