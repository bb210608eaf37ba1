//! The dynamic path: `.mini` text + [`Contract`] → [`Document`] → the
//! canonical JSON object (`serde_json::Value`, key order preserved), and
//! back with [`crate::dumps`] (the serializer, driven by a `Value`).

pub(crate) mod build;
mod compare;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use compare::equivalent;

use crate::check::{Checked, Engine, HeaderInfo, Scratch, Walk};
use crate::contract::Contract;
use crate::error::{Diagnostic, Error, Result};
use crate::read::{Limits, StrLines};
use crate::syntax::{self, Line};
use build::{RecordSink, RecordTemplate};

/// One valid record and where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based physical line.
    pub line: usize,
    /// 0-based position among the record lines (valid or not).
    pub index: usize,
    /// The canonical record object.
    pub value: Map<String, Value>,
}

/// A parsed document: the header read, the valid records, and every error.
///
/// [`crate::parse`] returns one only when there is no error;
/// [`crate::parse_lenient`] always returns one.
#[derive(Debug, Clone)]
pub struct Document {
    header: Option<HeaderInfo>,
    /// The canonical header object (built once, when the header is read).
    header_map: Map<String, Value>,
    records_key: String,
    records: Vec<Record>,
    valid_records: usize,
    errors: Vec<Diagnostic>,
    record_lines: usize,
    last_line_cut: bool,
}

/// The account of a parse: what was declared, received, valid and missing.
///
/// Unknown stays unknown: when `n` is absent or ill-typed, `declared_n`,
/// `missing_records` and `excess_records` are `None` (JSON `null`), never 0.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseReport {
    /// True when the document has no error at all.
    pub ok: bool,
    /// The header prefix as written (`None` without a header line).
    pub prefix: Option<String>,
    /// The header `n` when present, well typed and a count that fits `u64`
    /// (a negative `n` or one beyond 64 bits is E04, and stays in the
    /// canonical header as written).
    pub declared_n: Option<u64>,
    /// Significant lines after the header (valid or not).
    pub record_lines: usize,
    /// Records accepted.
    pub valid_records: usize,
    /// Physical lines of the accepted records (empty when a streaming
    /// reader did not keep its records).
    pub valid_lines: Vec<usize>,
    /// Physical lines with at least one error, ascending (header excluded).
    pub invalid_lines: Vec<usize>,
    /// `n − record_lines` when positive; 0 when none are missing; `None`
    /// when `n` is unknown or is no count (negative), and when `n` is an
    /// int beyond 64 bits (records are missing, `truncated` is
    /// `Some(true)`, but their number does not fit `u64`: the exact `n` is
    /// in the canonical header). ADR 0006.
    pub missing_records: Option<u64>,
    /// `record_lines − n` when positive; `None` when `declared_n` is.
    pub excess_records: Option<u64>,
    /// `Some(true)` when lines are missing (an `n` beyond 64 bits always
    /// says so) or the last record line looks cut (too few fields,
    /// dangling backslash, unclosed quote); `Some(false)`
    /// when `n` is known and nothing is missing or cut; `None` when `n` is
    /// unknown and the last line looks complete.
    pub truncated: Option<bool>,
    /// Every error.
    pub errors: Vec<Diagnostic>,
}

impl Document {
    /// Whether a header line was found (false only for E01).
    pub fn has_header(&self) -> bool {
        self.header.is_some()
    }

    /// The prefix written in the header.
    pub fn prefix(&self) -> Option<&str> {
        self.header.as_ref().map(|h| h.prefix.as_str())
    }

    /// The canonical header object (typed keys, unknown keys as strings,
    /// defaults applied).
    pub fn header(&self) -> Option<&Map<String, Value>> {
        self.header.as_ref().map(|_| &self.header_map)
    }

    /// The header `n`, when present and well typed.
    pub fn declared_n(&self) -> Option<u64> {
        self.header.as_ref().and_then(|h| h.n)
    }

    /// The valid records.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Every error found (empty for a valid document).
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }

    /// True when there is no error.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// Number of record lines (valid or not).
    pub fn record_lines(&self) -> usize {
        self.record_lines
    }

    /// The key of the records array in the canonical object.
    pub fn records_key(&self) -> &str {
        &self.records_key
    }

    /// The canonical object: `{"prefix", "header", "<records_key>": [...]}`
    /// with the valid records. Without a header line (E01) the prefix is
    /// null and the header empty.
    pub fn to_canonical(&self) -> Value {
        let mut m = Map::with_capacity(3);
        m.insert(
            "prefix".to_string(),
            self.prefix()
                .map_or(Value::Null, |p| Value::String(p.to_string())),
        );
        m.insert(
            "header".to_string(),
            Value::Object(self.header().cloned().unwrap_or_default()),
        );
        m.insert(
            self.records_key.clone(),
            Value::Array(
                self.records
                    .iter()
                    .map(|r| Value::Object(r.value.clone()))
                    .collect(),
            ),
        );
        Value::Object(m)
    }

    /// Consumes the document into its canonical object.
    pub fn into_canonical(self) -> Value {
        let mut m = Map::with_capacity(3);
        let (prefix, header) = match self.header {
            Some(h) => (Value::String(h.prefix), self.header_map),
            None => (Value::Null, Map::new()),
        };
        m.insert("prefix".to_string(), prefix);
        m.insert("header".to_string(), Value::Object(header));
        m.insert(
            self.records_key,
            Value::Array(
                self.records
                    .into_iter()
                    .map(|r| Value::Object(r.value))
                    .collect(),
            ),
        );
        Value::Object(m)
    }

    /// The account of the parse (see [`ParseReport`]).
    pub fn diagnostics(&self) -> ParseReport {
        let header_line = self.header.as_ref().map_or(0, |h| h.line);
        let mut invalid: Vec<usize> = self
            .errors
            .iter()
            .map(Diagnostic::line)
            .filter(|&l| l > header_line && header_line > 0)
            .collect();
        invalid.sort_unstable();
        invalid.dedup();
        let n = self.declared_n();
        let lines = self.record_lines as u64;
        let missing = n.map(|n| n.saturating_sub(lines));
        let excess = n.map(|n| lines.saturating_sub(n));
        // ADR 0006: an n no line count can equal is no `declared_n`, so
        // missing and excess stay unknown. A negative one counts nothing;
        // one beyond 64 bits is a count larger than any document: records
        // are certainly missing (truncated), but their number does not fit
        // `u64` (the exact n is in the canonical header).
        let beyond_64_bits = self
            .header
            .as_ref()
            .and_then(|h| h.n_impossible.as_deref())
            .is_some_and(|t| !t.starts_with('-'));
        let cut = self.record_lines > 0 && self.last_line_cut;
        let truncated = match missing {
            _ if beyond_64_bits => Some(true),
            Some(m) if m > 0 => Some(true),
            _ if cut => Some(true),
            Some(_) => Some(false),
            None => None,
        };
        ParseReport {
            ok: self.errors.is_empty(),
            prefix: self.prefix().map(str::to_string),
            declared_n: n,
            record_lines: self.record_lines,
            valid_records: self.valid_records,
            valid_lines: self.records.iter().map(|r| r.line).collect(),
            invalid_lines: invalid,
            missing_records: missing,
            excess_records: excess,
            truncated,
            errors: self.errors.clone(),
        }
    }
}

/// What a fed line was.
#[derive(Debug)]
pub(crate) enum Fed {
    /// The header line.
    Header,
    /// A valid record.
    Valid(Record),
    /// An invalid record line (its errors were recorded).
    Invalid,
}

/// Builds a [`Document`] from the engine's output, line by line: the
/// canonical header object when the header is read, a canonical record
/// object for each valid record line. Used by the whole-text parse and the
/// push streaming reader.
#[derive(Debug)]
pub(crate) struct Builder<'c> {
    engine: Engine<'c>,
    /// The compiled walk of the record lines (ADR 0031, 0034): a line it
    /// accepts is built from its values as it walks; any other line goes
    /// to the engine.
    walk: Walk,
    /// Made with the header.
    template: Option<RecordTemplate>,
    header_map: Map<String, Value>,
    records: Vec<Record>,
    /// The walk's reused buffers: a record's values, marked indices, a
    /// tuple's components.
    values: Vec<Value>,
    marked: Vec<usize>,
    parts: Vec<Value>,
}

impl<'c> Builder<'c> {
    pub(crate) fn new(contract: &'c Contract) -> Self {
        let engine = Engine::new(contract);
        Builder {
            walk: Walk::new(&engine),
            engine,
            template: None,
            header_map: Map::new(),
            records: Vec::new(),
            values: Vec::new(),
            marked: Vec::new(),
            parts: Vec::new(),
        }
    }

    /// Feeds one significant line: the first is the header; each later one
    /// is a record line, checked, and returned when valid (the caller keeps
    /// it with [`Builder::keep`] or not).
    pub(crate) fn line<'a>(&mut self, line: Line<'a>, scratch: &mut Scratch<'a>) -> Fed {
        if let Some(template) = &self.template {
            let mut sink = RecordSink {
                template,
                values: &mut self.values,
                items: Vec::new(),
                marked: &mut self.marked,
                parts: &mut self.parts,
            };
            if self.walk.line(&mut self.engine, line, scratch, &mut sink) {
                return Fed::Valid(Record {
                    line: line.number,
                    index: self.engine.record_lines() - 1,
                    value: template.fill(&mut self.values),
                });
            }
            self.values.clear();
            self.parts.clear();
        }
        match self.engine.check_line(line, scratch) {
            Checked::Header => {
                if let Some(h) = self.engine.header() {
                    self.header_map = build::header_json(h, self.engine.contract());
                    self.template = Some(RecordTemplate::new(self.engine.contract()));
                    // the records' vector sized from the header's `n`, as
                    // the typed reader sizes its own (round 24 of issue 21:
                    // no growth copied 5,000 records again)
                    let n = h.n.and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
                    self.records.reserve(crate::check::records_to_reserve(
                        n,
                        std::mem::size_of::<Record>(),
                        0,
                    ));
                }
                Fed::Header
            }
            Checked::Invalid => Fed::Invalid,
            Checked::Valid => {
                let contract = self.engine.contract();
                Fed::Valid(Record {
                    line: line.number,
                    index: self.engine.record_lines() - 1,
                    value: self
                        .template
                        .get_or_insert_with(|| RecordTemplate::new(contract))
                        .record_json(contract, scratch.values_mut()),
                })
            }
        }
    }

    /// Keeps a record in the document being built.
    pub(crate) fn keep(&mut self, r: Record) {
        self.records.push(r);
    }

    /// The engine underneath (errors, header, counts so far).
    pub(crate) fn engine(&self) -> &Engine<'c> {
        &self.engine
    }

    pub(crate) fn finish(self) -> Document {
        let records_key = self.engine.contract().records_key().to_string();
        let f = self.engine.finish();
        Document {
            header: f.header,
            header_map: self.header_map,
            records_key,
            records: self.records,
            valid_records: f.valid_records,
            errors: f.errors,
            record_lines: f.record_lines,
            last_line_cut: f.last_line_cut,
        }
    }
}

/// The resource limits of [`parse_with_limits`], by their old name.
#[deprecated(
    since = "0.1.0",
    note = "use `mini::Limits`: one set of limits for every entry point"
)]
pub type ParseOptions = Limits;

/// [`parse_lenient`] under resource limits: `Err` only when a limit is
/// exceeded.
pub fn parse_lenient_with_limits(
    text: &str,
    contract: &Contract,
    limits: &Limits,
) -> Result<Document> {
    let mut p = Builder::new(contract);
    let mut scratch = Scratch::new();
    let mut lines = StrLines::new(text, *limits);
    while let Some(line) = lines.next_line()? {
        if let Fed::Valid(r) = p.line(line, &mut scratch) {
            p.keep(r);
        }
    }
    Ok(p.finish())
}

/// [`parse`] under resource limits.
pub fn parse_with_limits(text: &str, contract: &Contract, limits: &Limits) -> Result<Document> {
    let doc = parse_lenient_with_limits(text, contract, limits)?;
    if doc.errors.is_empty() {
        Ok(doc)
    } else {
        Err(Error::invalid(doc.errors))
    }
}

/// Parses `text` leniently: never fails. The document holds the valid
/// records and every error (an empty text gives a document carrying E01).
/// No limit applies (the text is already in memory, and a lenient parse
/// has no error to report a breach with): for untrusted input, use
/// [`parse_lenient_with_limits`].
pub fn parse_lenient(text: &str, contract: &Contract) -> Document {
    let mut p = Builder::new(contract);
    let mut scratch = Scratch::new();
    for line in crate::read::lines(text) {
        if let Fed::Valid(r) = p.line(line, &mut scratch) {
            p.keep(r);
        }
    }
    p.finish()
}

/// Parses `text` strictly under the default [`Limits`]: the document if it
/// is valid, otherwise an [`Error`] listing every error found (or the limit
/// breached).
pub fn parse(text: &str, contract: &Contract) -> Result<Document> {
    parse_with_limits(text, contract, &Limits::default())
}

/// Checks `text` under `contract` without building any value: `Ok(())`
/// when the document is valid, otherwise an [`Error`] listing every error
/// [`parse`] would report (same engine, same codes, lines, fields and
/// messages, E04 included) in [`Error::diagnostics`]. The `Result` form of
/// validation, as [`parse`] and [`crate::from_str`] (ADR 0021).
///
/// This is the fast check: the canonical objects are never built, the
/// buffers are reused from one record to the next, text without escapes is
/// never copied, and a `str` field that is not `unique` is not even
/// unescaped.
///
/// ```
/// let contract = mini::Contract::from_json(
///     r#"{"prefix": "t", "core": [{"name": "n", "type": "int", "min": 1}]}"#).unwrap();
/// assert!(mini::check("t|n=2\n1\n2", &contract).is_ok());
/// let err = mini::check("t|n=2\n1\n0", &contract).unwrap_err();
/// let d = &err.diagnostics()[0];
/// assert_eq!((d.code(), d.line(), d.field()), (mini::Code::E13, 3, Some("n")));
/// ```
pub fn check(text: &str, contract: &Contract) -> Result<()> {
    let errors = diagnostics(text, contract);
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid(errors))
    }
}

/// Every error of `text` under `contract`, empty when it is valid: the
/// engine under [`check`], for the crate's own checks of what it writes.
///
/// Record lines are walked on the compiled plan (`check::Validator`, ADR
/// 0031); a line the walk does not accept goes to the engine, which reports
/// its exact diagnostics.
pub(crate) fn diagnostics(text: &str, contract: &Contract) -> Vec<Diagnostic> {
    let mut v = crate::check::Validator::new(contract);
    let mut lines = crate::read::lines(text);
    let mut next = lines.next();
    // the next line taken by hand: `Peekable`'s cache (an option of an
    // option) cost quiz's validation 23 instructions a record and 1.007
    // of the time (ADR 0073)
    while let Some(line) = next {
        next = lines.next();
        if let Some(ahead) = &next {
            v.ask_ahead(ahead);
        }
        v.line(line);
    }
    v.finish()
}

/// Validates `text` under `contract` without building any value: every
/// error [`parse`] would report (same engine — `check_header` and
/// `check_record` — same codes, lines and fields, E04 included), and
/// nothing else. Empty when the document is valid.
///
/// This is the fast check: the canonical objects are never built, the
/// buffers are reused from one record to the next, text without escapes is
/// never copied, and a `str` field that is not `unique` is not even
/// unescaped (its escapes are checked when the line is split; see
/// [`Scratch::check_only`]). Debug builds of the serializer verify their output with it.
///
/// ```
/// # #![allow(deprecated)]
/// let contract = mini::Contract::from_json(
///     r#"{"prefix": "t", "core": [{"name": "n", "type": "int", "min": 1}]}"#).unwrap();
/// assert!(mini::validate("t|n=2\n1\n2", &contract).is_empty());
/// let errors = mini::validate("t|n=2\n1\n0", &contract);
/// assert_eq!((errors[0].code(), errors[0].line()), (mini::Code::E13, 3));
/// ```
#[deprecated(
    since = "0.1.1",
    note = "use `mini::check`, which returns a `Result` like `parse` (ADR 0021)"
)]
pub fn validate(text: &str, contract: &Contract) -> Vec<Diagnostic> {
    diagnostics(text, contract)
}

/// The prefix named by the first significant line of `text`, if any.
pub fn detect_prefix(text: &str) -> Option<String> {
    let line = crate::read::lines(text).next()?;
    let mut fields = Vec::new();
    let mut errs = Vec::new();
    syntax::split_fields(line.text, ',', &mut fields, &mut errs);
    let p = fields.first()?.text(',').into_owned();
    (!p.is_empty()).then_some(p)
}

/// Checks that `bytes` are UTF-8; on failure the error gives the 1-based
/// line of the first invalid sequence and its byte offset within that line,
/// as every reader counts it (ADR 0019).
pub fn from_utf8(bytes: &[u8]) -> Result<&str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let before = &bytes[..at];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let start = memchr::memrchr(b'\n', before).map_or(0, |p| p + 1);
        Error::utf8(line, at - start)
    })
}

/// The old name of [`ParseReport`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `ParseReport` (a report, next to `Diagnostic`, one error)"
)]
pub type Diagnostics = ParseReport;

/// The old name of [`parse_with_limits`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `parse_with_limits` (ADR 0019: a suffix says what the variant adds)"
)]
pub fn parse_with(text: &str, contract: &Contract, limits: &Limits) -> Result<Document> {
    parse_with_limits(text, contract, limits)
}

/// The old name of [`parse_lenient_with_limits`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `parse_lenient_with_limits` (ADR 0019: a suffix says what the variant adds)"
)]
pub fn parse_lenient_with(text: &str, contract: &Contract, limits: &Limits) -> Result<Document> {
    parse_lenient_with_limits(text, contract, limits)
}

#[cfg(test)]
mod walk_tests;
