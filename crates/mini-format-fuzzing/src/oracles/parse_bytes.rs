//! `parse_bytes`: arbitrary bytes through every parsing path.

use crate::*;
use std::collections::BTreeSet;

use serde_json::Value;

use mini::__private::syntax::{self};
use mini::contract::Contract;
use mini::value::{self, equivalent, Document};
use mini::Code;
use mini::Limits;

// ---------------------------------------------------------------------------
// parse_bytes
// ---------------------------------------------------------------------------

/// Record lines per contract checked one by one against the whole parse
/// (keeps the target linear in its input).
pub(crate) const ALONE_LINES: usize = 48;

/// Arbitrary bytes through strict and lenient parsing under every contract
/// of [`parse_contracts`].
///
/// Asserts, for each contract:
///
/// 1. nothing panics; `mini::from_utf8` fails exactly when the bytes are not
///    UTF-8 (invalid bytes are then parsed lossily);
/// 2. `parse` succeeds exactly when `parse_lenient` reports no error, and
///    then gives the same document; otherwise its error lists the same
///    diagnostics; `validate` (values not kept) reports the same
///    diagnostics as `parse_lenient`;
/// 3. `parse_lenient_with_limits` under the default limits equals `parse_lenient`,
///    and under tiny limits either equals it or fails with a limit that the
///    text really exceeds;
/// 4. the account is consistent: valid records + invalid record lines =
///    record lines, lines ascending, every error on line 0, the header line
///    or a record line;
/// 5. **lenient ⊆ line by line**: for each of the first record lines, the
///    one-record document made of the header line and that line
///    (`BOM + header + CRLF + line + CRLF`, which gives back both lines
///    byte for byte) reports the same header errors, and on the record line
///    the same diagnostics minus E11. So a record the lenient parse keeps is
///    accepted alone with the same value, and a rejected line is accepted
///    alone only when all its errors were E11 (uniqueness is the only
///    check that depends on other record lines; count keys and `v` come
///    from the same header; E04 and E01 are document-level, line 0);
/// 6. for a strictly valid document, `dumps` of its canonical object either
///    gives text that parses to an equivalent object and is a fixed point
///    of `dumps ∘ parse` (a raw CR in a value reads back as LF, ADR 0004),
///    or is one of the documented rejections: E06 (a
///    value with outer whitespace kept by quotes, or by `\<TAB>` under a
///    separator other than TAB, ADR 0004),
///    E12 (a header key that is not `[A-Za-z_][A-Za-z0-9_]*`); and the typed
///    serializer (`to_string_with_contract`, checked value by value) gives the same
///    text or the same error codes as `dumps`.
pub fn parse_bytes(data: &[u8]) {
    let owned;
    let text = match std::str::from_utf8(data) {
        Ok(t) => {
            if value::from_utf8(data).is_err() {
                fail("mini::from_utf8 rejected valid UTF-8");
            }
            t
        }
        Err(e) => {
            match value::from_utf8(data) {
                Ok(_) => fail("mini::from_utf8 accepted invalid UTF-8"),
                Err(m) if !m.is_utf8() => fail(format!("not a UTF-8 error: {m}")),
                Err(m) => {
                    // the line of the first invalid byte, and its offset
                    // counted from the start of that line
                    let before = &data[..e.valid_up_to()];
                    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
                    let start = before
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |p| p + 1);
                    let want = format!(
                        "invalid UTF-8 at line {line}, byte offset {} in the line",
                        e.valid_up_to() - start
                    );
                    if m.to_string() != want {
                        fail(format!("UTF-8 error '{m}', expected '{want}'"));
                    }
                }
            }
            owned = String::from_utf8_lossy(data).into_owned();
            &owned
        }
    };
    let _ = value::detect_prefix(text);
    for c in parse_contracts() {
        check_text(text, c);
    }
}

pub(crate) fn check_text(text: &str, c: &Contract) {
    let lenient = value::parse_lenient(text, c);
    match value::parse(text, c) {
        Ok(doc) => {
            if !lenient.is_valid() {
                fail("parse accepted a document in which parse_lenient found errors");
            }
            same_document(&doc, &lenient, "parse vs parse_lenient");
        }
        Err(e) => {
            if lenient.is_valid() {
                fail(format!(
                    "parse rejected ({e}) a document parse_lenient found valid"
                ));
            }
            if e.diagnostics() != lenient.errors() {
                fail("parse and parse_lenient report different errors");
            }
        }
    }
    if mini::check(text, c)
        .err()
        .map(|e| e.diagnostics().to_vec())
        .unwrap_or_default()
        != lenient.errors()
    {
        fail("validate and parse_lenient report different errors");
    }
    check_limits(text, c, &lenient);
    check_account(&lenient);
    check_line_by_line(text, c, &lenient);
    if lenient.is_valid() {
        check_redump(c, &lenient);
    }
}

pub(crate) fn check_limits(text: &str, c: &Contract, lenient: &Document) {
    if text.len() < 1 << 20 {
        match value::parse_lenient_with_limits(text, c, &Limits::default()) {
            Ok(d) => same_document(&d, lenient, "parse_lenient_with_limits(default)"),
            Err(e) => fail(format!("default limits hit by {} bytes: {e}", text.len())),
        }
    }
    let tiny = Limits {
        max_input_bytes: usize::MAX,
        max_line_bytes: 48,
        max_records: 2,
    };
    match value::parse_lenient_with_limits(text, c, &tiny) {
        Ok(d) => same_document(&d, lenient, "parse_lenient_with_limits(tiny)"),
        Err(e) => {
            let long = physical_line_lengths(text).any(|n| n > tiny.max_line_bytes);
            let many = lenient.record_lines() > tiny.max_records;
            match e.limit_exceeded() {
                Some(mini::Limit::LineBytes) if long => {}
                Some(mini::Limit::Records) if many => {}
                _ => fail(format!(
                    "parse_lenient_with_limits(tiny) failed with '{e}' (long line: {long}, too many records: {many})"
                )),
            }
        }
    }
}

/// The length of every physical line, as `Limits::max_line_bytes` counts
/// it: blank lines included (the limit bounds what a reader holds, and a
/// line is known blank only once it is held), without the LF, a CR before
/// it, or the first line's BOM.
fn physical_line_lengths(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.split('\n').enumerate().map(|(i, raw)| {
        let raw = if i == 0 {
            raw.strip_prefix('\u{feff}').unwrap_or(raw)
        } else {
            raw
        };
        raw.strip_suffix('\r').unwrap_or(raw).len()
    })
}

pub(crate) fn check_account(doc: &Document) {
    let d = doc.diagnostics();
    if d.ok != doc.is_valid() || d.valid_records != doc.records().len() {
        fail("diagnostics disagree with the document");
    }
    if d.valid_lines != doc.records().iter().map(|r| r.line).collect::<Vec<_>>() {
        fail("valid_lines are not the records' lines");
    }
    if !doc
        .records()
        .windows(2)
        .all(|w| w[0].line < w[1].line && w[0].index < w[1].index)
    {
        fail("records out of order");
    }
    if doc.records().iter().any(|r| r.index >= doc.record_lines()) {
        fail("record index past the record lines");
    }
    if doc.has_header() {
        if d.valid_records + d.invalid_lines.len() != d.record_lines {
            fail(format!(
                "valid records ({}) + invalid lines ({}) != record lines ({})",
                d.valid_records,
                d.invalid_lines.len(),
                d.record_lines
            ));
        }
        if d.invalid_lines.iter().any(|l| d.valid_lines.contains(l)) {
            fail("a line is both valid and invalid");
        }
    } else if !doc.records().is_empty() || doc.errors().iter().any(|e| e.code() != Code::E01) {
        fail("a document without header has records or errors other than E01");
    }
}

type Diag3 = (Code, Option<String>, String);

pub(crate) fn on_line(doc: &Document, line: usize) -> Vec<Diag3> {
    doc.errors()
        .iter()
        .filter(|d| d.line() == line)
        .map(|d| {
            (
                d.code(),
                d.field().map(str::to_string),
                // the last line's E05 notes the truncation in the document
                // only (ADR 0021)
                mini::__private::check::without_end_note(d.message()).to_string(),
            )
        })
        .collect()
}

pub(crate) fn check_line_by_line(text: &str, c: &Contract, doc: &Document) {
    let mut lines = syntax::lines(text);
    let Some(header) = lines.next() else {
        return;
    };
    let header_errors = on_line(doc, header.number);
    let mut kept = doc.records().iter().peekable();
    for (index, line) in lines.enumerate().take(ALONE_LINES) {
        let one = format!("\u{feff}{}\r\n{}\r\n", header.text, line.text);
        let alone = value::parse_lenient(&one, c);
        if alone.record_lines() != 1 {
            fail(format!(
                "line {} alone under its header is not one record line",
                line.number
            ));
        }
        if on_line(&alone, 1) != header_errors {
            fail(format!(
                "the header reports other errors in a one-record document: {:?} vs {:?}",
                on_line(&alone, 1),
                header_errors
            ));
        }
        let mut full = on_line(doc, line.number);
        full.retain(|d| d.0 != Code::E11);
        let mine = on_line(&alone, 2);
        if mine != full {
            fail(format!(
                "line {} alone reports {mine:?}, in the document {full:?} (E11 aside)",
                line.number
            ));
        }
        let record = kept.next_if(|r| r.index == index);
        match (record, alone.records()) {
            (Some(r), [a]) if a.value == r.value => {}
            (Some(r), other) => fail(format!(
                "record of line {} kept by the lenient parse is not accepted alone with the same value: {:?} vs {:?}",
                line.number,
                r.value,
                other.iter().map(|a| &a.value).collect::<Vec<_>>()
            )),
            (None, []) => {}
            (None, [_]) if !on_line(doc, line.number).is_empty() => {
                // rejected only for E11, accepted alone: consistent
            }
            (None, _) => fail(format!(
                "line {} is accepted alone but neither kept nor reported",
                line.number
            )),
        }
    }
}

/// `to_string_with_contract` writes what `dumps` wrote for `obj`, or
/// refuses it with the same error codes. Since ADR 0023 both are the one
/// serializer (`dumps` drives it with a `Value`): this keeps them one entry
/// point apart, and no more.
#[track_caller]
pub(crate) fn typed_writes_as_dumps(obj: &Value, c: &Contract, dumped: &mini::Result<String>) {
    let typed = mini::to_string_with_contract(obj, c);
    let same = match (dumped, &typed) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => codes(a.diagnostics()) == codes(b.diagnostics()),
        _ => false,
    };
    if !same {
        fail(format!(
            "to_string_with_contract {typed:?} differs from dumps {dumped:?}\ncontract: {}\nobject: {obj}",
            serde_json::to_string(c).unwrap_or_default()
        ));
    }
}

pub(crate) fn check_redump(c: &Contract, doc: &Document) {
    let canonical = doc.to_canonical();
    let dumped = mini::dumps(&canonical, c);
    typed_writes_as_dumps(&canonical, c, &dumped);
    match dumped {
        Ok(t) => {
            let again = match value::parse(&t, c) {
                Ok(d) => d,
                Err(e) => fail(format!("dumps gave text that does not parse: {e}\n{t}")),
            };
            // a raw CR (inside quotes, or mid-field) is written `\n`
            let want = values_breaks_normalized(&canonical);
            if !equivalent(&again.to_canonical(), &want) {
                fail(format!(
                    "parse(dumps(o)) differs from o (line breaks as LF):\n  {}\nvs\n  {want}",
                    again.to_canonical()
                ));
            }
            match mini::dumps(&again.to_canonical(), c) {
                Ok(t2) if t2 == t => {}
                Ok(t2) => fail(format!("dumps ∘ parse is not idempotent:\n{t}\nvs\n{t2}")),
                Err(e) => fail(format!("dumps refused its own parsed output: {e}")),
            }
        }
        Err(e) => {
            let allowed: BTreeSet<Code> = [Code::E06, Code::E12].into();
            if !codes(e.diagnostics()).is_subset(&allowed) {
                fail(format!(
                    "dumps refused the canonical object of a valid document: {}",
                    render(e.diagnostics())
                ));
            }
        }
    }
}
