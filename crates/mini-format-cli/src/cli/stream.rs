//! The commands that read a document line by line in bounded memory:
//! `validate`, `diagnose` and `to-json --stream`.

use std::io::{BufRead, BufReader};

use super::*;

/// What the streaming reader reports as it reads.
pub(super) enum Event<'a> {
    /// A fix made by `--extract` before reading (prose, a fence, CRLF…).
    Fixed(&'a mini_tools::repair::TransportFix),
    /// A valid record, the moment its line closes.
    Record(&'a mini::Record),
    /// An error, in line order.
    Error(&'a Diagnostic),
}

/// A document read line by line through [`mini::PushParser`].
pub(super) enum Streamed {
    /// A usage or I/O error (the input cannot be opened or read, the
    /// contract cannot be loaded).
    Usage(Output),
    /// No significant line and no contract given: E01 under any contract.
    Empty,
    /// No contract could be found (or no header line names one).
    Unverified(String),
    /// The first significant line cannot be read (invalid UTF-8, too long):
    /// nothing was checked.
    Unread(Failure),
    /// Read through the reader: its account (of the lines before `failure`
    /// when reading stopped early) and the contract's prefix.
    Read {
        end: Box<mini::Result<mini::StreamEnd>>,
        failure: Option<Failure>,
        prefix: String,
    },
}

/// The prefix a first line names when it is a header (`PREFIX|…` with a
/// prefix `[A-Za-z][A-Za-z0-9_-]*`); a line of prose names none.
pub(super) fn header_prefix(line: &str) -> Option<String> {
    let p = mini::detect_prefix(line)?;
    let mut chars = p.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    ok.then_some(p)
}

/// Why reading stopped before the end of the input: the core's error
/// (I/O, invalid UTF-8 with its line and byte offset, a line past the
/// limit), rendered as it says.
pub(super) type Failure = mini::Error;

/// Opens `file` (`-` for stdin) as the core's line source, under the
/// default line limit and no limit on the input size or the records (a
/// stream of any length in constant memory).
fn open_lines(file: &str) -> Result<mini::stream::LineSource<Box<dyn BufRead>>, Output> {
    let input: Box<dyn BufRead> = if file == "-" {
        Box::new(BufReader::with_capacity(1 << 16, std::io::stdin()))
    } else {
        let f = std::fs::File::open(file).map_err(|e| usage(format!("cannot read {file}: {e}")))?;
        Box::new(BufReader::with_capacity(1 << 16, f))
    };
    Ok(mini::stream::LineSource::new(input, stream_limits()))
}

/// The limits of the streaming commands: only the line limit.
fn stream_limits() -> mini::Limits {
    mini::Limits {
        max_input_bytes: usize::MAX,
        max_records: usize::MAX,
        ..mini::Limits::default()
    }
}

/// Reads `file` one line at a time (the core's [`mini::stream::LineSource`])
/// through a lenient [`mini::PushParser`] that keeps no records (bounded
/// memory), calling `on` for every valid record and every error as they
/// are found. The first significant line names the contract; with
/// `extract`, a model's answer is extracted first (the whole input is then
/// read into memory, as `mini extract` does) and each fix is reported.
pub(super) fn stream_document(
    file: &str,
    args: &ContractArgs,
    extract: bool,
    on: &mut dyn FnMut(Event<'_>),
) -> Streamed {
    if extract {
        let text = match text_input(file) {
            Ok(t) => t,
            Err(o) => return Streamed::Usage(o),
        };
        let got = mini_tools::repair::extract(&text, args.prefix.as_deref());
        for f in &got.fixes {
            on(Event::Fixed(f));
        }
        let reader: Box<dyn BufRead> = Box::new(std::io::Cursor::new(got.text.into_bytes()));
        return stream_lines(
            mini::stream::LineSource::new(reader, stream_limits()),
            args,
            on,
        );
    }
    match open_lines(file) {
        Ok(input) => stream_lines(input, args, on),
        Err(o) => Streamed::Usage(o),
    }
}

fn stream_lines(
    mut input: mini::stream::LineSource<Box<dyn BufRead>>,
    args: &ContractArgs,
    on: &mut dyn FnMut(Event<'_>),
) -> Streamed {
    let mut blank = 0usize;
    // the head: blank lines, then the first significant line
    let first = loop {
        match input.next_line() {
            Ok(None) => break None,
            Ok(Some(line)) if line.text.is_none() => blank += 1,
            Ok(Some(line)) => {
                break Some((line.raw.to_vec(), line.text.unwrap_or_default().to_string()))
            }
            Err(e) if e.is_io() => return Streamed::Usage(usage(e.to_string())),
            Err(e) => return Streamed::Unread(e),
        }
    };
    if first.is_none() && args.contract.is_none() {
        return Streamed::Empty;
    }
    let first_text = first.as_ref().map(|(_, t)| t.trim_end().to_string());
    let detected = first_text.as_deref().and_then(header_prefix);
    if detected.is_none() && args.prefix.is_none() && args.contract.is_none() {
        if let Some(line) = &first_text {
            let shown: String = line.chars().take(60).collect();
            let hint = if mini::__private::check::looks_like_fence(line)
                || mini::__private::check::looks_like_prose(line)
                || line.contains(' ')
            {
                format!(
                    "; it looks like prose or a Markdown fence: {}",
                    mini::__private::check::EXTRACT_REMEDY
                )
            } else {
                String::new()
            };
            return Streamed::Unverified(format!(
                "no header: the first line ({shown:?}) is not a header `PREFIX|n=…`, and no \
                 -p PREFIX or --contract PATH was given{hint}"
            ));
        }
    }
    let contract = match resolve(args, detected) {
        Ok(Resolved::Found(c)) => c,
        Ok(Resolved::Missing(why)) => return Streamed::Unverified(why),
        Err(o) => return Streamed::Usage(o),
    };
    let mut reader = mini::PushParser::with_options(
        &contract,
        mini::PushOptions {
            keep_records: false,
            limits: stream_limits(),
            ..mini::PushOptions::default()
        },
    );
    let mut reported = 0;
    let mut feed = |reader: &mut mini::PushParser<'_>, bytes: &[u8]| -> Result<(), Failure> {
        let records = reader.push(bytes)?;
        for r in &records {
            on(Event::Record(r));
        }
        for d in &reader.errors()[reported..] {
            on(Event::Error(d));
        }
        reported = reader.errors().len();
        Ok(())
    };
    let mut failure = None;
    for _ in 0..blank {
        if let Err(f) = feed(&mut reader, b"\n") {
            failure = Some(f);
            break;
        }
    }
    if let (None, Some((raw, _))) = (&failure, &first) {
        failure = feed(&mut reader, raw).err();
    }
    while failure.is_none() {
        match input.next_line() {
            Ok(None) => break,
            Ok(Some(line)) => failure = feed(&mut reader, line.raw).err(),
            Err(f) => failure = Some(f),
        }
    }
    let end = reader.end();
    if failure.is_none() {
        // what the end found: the unterminated last line, the count
        if let Ok(end) = &end {
            let errors = end.document.errors();
            if let Some(r) = &end.last_record {
                on(Event::Record(r));
            }
            for d in &errors[reported.min(errors.len())..] {
                on(Event::Error(d));
            }
        }
    }
    Streamed::Read {
        end: Box::new(end),
        failure,
        prefix: contract.prefix().to_string(),
    }
}

pub(super) fn validate(
    file: &str,
    args: &ContractArgs,
    lenient: bool,
    extract: bool,
) -> Result<Output, Output> {
    let mut o = Output::default();
    let mut errors = 0usize;
    let streamed = stream_document(file, args, extract, &mut |ev| match ev {
        Event::Error(d) => {
            errors += 1;
            o.stdout.push_str(&d.to_string());
            o.stdout.push('\n');
        }
        Event::Fixed(f) => {
            o.stderr.push_str(&format!("fixed: {f}\n"));
        }
        Event::Record(_) => {}
    });
    let (end, failure, prefix) = match streamed {
        Streamed::Usage(u) => return Err(u),
        Streamed::Empty => {
            return Err(Output::default()
                .out("E01 document: no header line: the text is empty or blank")
                .out("INVALID: 1 error(s)")
                .code(EXIT_INVALID))
        }
        Streamed::Unverified(why) => return Err(unverified(why)),
        Streamed::Unread(f) => return Ok(o.out(format!("INVALID: {f}")).code(EXIT_INVALID)),
        Streamed::Read {
            end,
            failure,
            prefix,
        } => (*end, failure, prefix),
    };
    if let Some(f) = failure {
        return Ok(o.out(format!("INVALID: {f}")).code(EXIT_INVALID));
    }
    let end = match end {
        Ok(end) => end,
        Err(e) => return Ok(o.out(format!("INVALID: {e}")).code(EXIT_INVALID)),
    };
    let doc = &end.document;
    if doc.is_valid() {
        let v = doc
            .header()
            .and_then(|h| h.get("v"))
            .and_then(Value::as_u64)
            .unwrap_or(1);
        let n = doc.declared_n().map_or("?".to_string(), |n| n.to_string());
        return Ok(o.out(format!(
            "OK: prefix={prefix} v{v} records={} n={n}",
            end.valid
        )));
    }
    if lenient && doc.has_header() && end.valid > 0 {
        return Ok(o.out(format!(
            "LENIENT: {} valid record(s) kept, {errors} error(s)",
            end.valid
        )));
    }
    Ok(o.out(format!("INVALID: {errors} error(s)"))
        .code(EXIT_INVALID))
}

/// `diagnose`, writing its JSON straight to `out` (the list of valid lines
/// is written from runs, never held whole) and usage errors to `err`;
/// returns the exit code.
pub fn diagnose_to(
    file: &str,
    args: &ContractArgs,
    extract: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let o = match diagnose(file, args, extract, out, err) {
        Ok(o) | Err(o) => o,
    };
    let _ = out.write_all(o.stdout.as_bytes());
    let _ = err.write_all(o.stderr.as_bytes());
    let _ = out.flush();
    o.code
}

/// `diagnose`: every outcome but a usage error is JSON on stdout; the JSON
/// of a document read through the reader goes to `out` directly, the
/// others come back in the [`Output`].
pub(super) fn diagnose(
    file: &str,
    args: &ContractArgs,
    extract: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Output, Output> {
    // valid lines are kept as runs: a valid document of any size is a few
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let streamed = stream_document(file, args, extract, &mut |ev| match ev {
        Event::Record(r) => match runs.last_mut() {
            Some((_, last)) if *last + 1 == r.line => *last = r.line,
            _ => runs.push((r.line, r.line)),
        },
        Event::Fixed(f) => {
            let _ = writeln!(err, "fixed: {f}");
        }
        Event::Error(_) => {}
    });
    let unverified_json = |why: String| {
        let json = serde_json::json!({
            "status": "unverified", "reason": why, "ok": false, "prefix": null,
        });
        Output::default()
            .out(json_text(&json, false))
            .code(EXIT_UNVERIFIED)
    };
    let (end, failure) = match streamed {
        Streamed::Usage(u) => return Err(u),
        Streamed::Unverified(why) => return Ok(unverified_json(why)),
        Streamed::Empty => {
            let json = serde_json::json!({
                "status": "invalid", "ok": false, "prefix": null, "declared_n": null,
                "record_lines": 0, "valid_records": 0, "valid_lines": [], "invalid_lines": [],
                "missing_records": null, "excess_records": null, "truncated": null,
                "errors": [{"code": "E01", "line": 0, "field": null,
                            "message": "empty document: header missing"}],
            });
            return Ok(Output::default()
                .out(json_text(&json, false))
                .code(EXIT_INVALID));
        }
        Streamed::Unread(f) => {
            let json = serde_json::json!({
                "status": "invalid", "ok": false, "input_error": f.to_string(),
            });
            return Ok(Output::default()
                .out(json_text(&json, false))
                .code(EXIT_INVALID));
        }
        Streamed::Read { end, failure, .. } => (*end, failure),
    };
    let end = match end {
        Ok(end) => end,
        Err(e) => {
            let json = serde_json::json!({
                "status": "invalid", "ok": false, "input_error": e.to_string(),
            });
            return Ok(Output::default()
                .out(json_text(&json, false))
                .code(EXIT_INVALID));
        }
    };
    let d = end.document.diagnostics();
    let ok = d.ok && failure.is_none();
    let mut map = match serde_json::to_value(&d) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    map.insert("ok".to_string(), Value::Bool(ok));
    let status = if ok { "valid" } else { "invalid" };
    let mut json = serde_json::Map::new();
    json.insert("status".to_string(), status.into());
    json.extend(map);
    if let Some(f) = failure {
        json.insert("input_error".to_string(), f.to_string().into());
    }
    let mut w = std::io::BufWriter::new(&mut *out);
    let _ = serde_json::to_writer_pretty(
        &mut w,
        &WithRuns {
            map: &json,
            runs: &runs,
        },
    );
    let _ = w.write_all(b"\n");
    let _ = w.flush();
    drop(w);
    Ok(Output::default().code(if ok { EXIT_OK } else { EXIT_INVALID }))
}

/// The diagnostics object with `valid_lines` written from runs of lines
/// (the reader keeps no records, so it has no list of them).
pub(super) struct WithRuns<'a> {
    map: &'a serde_json::Map<String, Value>,
    runs: &'a [(usize, usize)],
}

impl serde::Serialize for WithRuns<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.map.len()))?;
        for (k, v) in self.map {
            if k == "valid_lines" {
                let lines = self.runs.iter().flat_map(|&(a, b)| a..=b);
                m.serialize_entry(k, &Lines(std::cell::RefCell::new(Some(lines))))?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// A sequence written from an iterator, once.
pub(super) struct Lines<I>(std::cell::RefCell<Option<I>>);

impl<I: Iterator<Item = usize>> serde::Serialize for Lines<I> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.borrow_mut().take() {
            Some(it) => s.collect_seq(it),
            None => s.collect_seq(std::iter::empty::<usize>()),
        }
    }
}

/// `to-json --stream`: reads the input line by line (bounded memory),
/// resolves the contract once the header line is in, and writes each record
/// as one JSON line the moment its line closes (flushing each), errors to
/// `err` as they are found, and a final `{"summary": …}` object to `err`,
/// also when reading stops early (invalid UTF-8, a line past the limit:
/// the summary then counts the lines before it and names the failure).
pub fn stream_to_json(
    file: &str,
    args: &ContractArgs,
    extract: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let streamed = {
        let err = &mut *err;
        stream_document(file, args, extract, &mut |ev| match ev {
            Event::Fixed(f) => {
                let _ = writeln!(err, "fixed: {f}");
            }
            Event::Record(r) => {
                let _ = writeln!(out, "{}", Value::Object(r.value.clone()));
                let _ = out.flush();
            }
            Event::Error(d) => {
                let _ = writeln!(err, "{d}");
            }
        })
    };
    let summary =
        |err: &mut dyn Write, end: Option<&mini::StreamEnd>, failure: Option<&Failure>| {
            let mut s = serde_json::json!({
                "expected": end.and_then(|e| e.expected),
                "received": end.map_or(0, |e| e.received),
                "valid": end.map_or(0, |e| e.valid),
                "missing": end.and_then(|e| e.missing),
                "excess": end.and_then(|e| e.excess),
                "last_line_terminated": end.is_some_and(|e| e.last_line_terminated),
                "truncated": end.and_then(|e| e.truncated),
                "complete": failure.is_none() && end.is_some_and(|e| e.complete),
                "errors": end.map_or(0, |e| e.document.errors().len()),
            });
            if let Some(f) = failure {
                s["input_error"] = f.to_string().into();
            }
            let _ = writeln!(err, "{}", serde_json::json!({ "summary": s }));
        };
    match streamed {
        Streamed::Usage(o) => {
            let _ = err.write_all(o.stderr.as_bytes());
            o.code
        }
        Streamed::Empty => {
            let _ = writeln!(
                err,
                "E01 document: no header line: the text is empty or blank"
            );
            EXIT_INVALID
        }
        Streamed::Unverified(why) => {
            let _ = writeln!(err, "UNVERIFIED: {why}");
            EXIT_UNVERIFIED
        }
        Streamed::Unread(f) => {
            let _ = writeln!(err, "INVALID: {f}");
            summary(err, None, Some(&f));
            EXIT_INVALID
        }
        Streamed::Read { end, failure, .. } => match *end {
            Ok(end) => {
                if let Some(f) = &failure {
                    let _ = writeln!(err, "INVALID: {f}");
                }
                summary(err, Some(&end), failure.as_ref());
                if end.complete && failure.is_none() {
                    EXIT_OK
                } else {
                    EXIT_INVALID
                }
            }
            Err(e) => {
                let _ = writeln!(err, "INVALID: {e}");
                let f = failure.unwrap_or(e);
                summary(err, None, Some(&f));
                EXIT_INVALID
            }
        },
    }
}
