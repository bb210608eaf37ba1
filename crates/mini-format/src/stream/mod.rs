//! Streaming: records as the model writes them.
//!
//! [`PushParser`] is a push parser: feed it chunks of bytes as they arrive (a
//! chunk may end anywhere, inside a UTF-8 character, an escape or a quoted
//! element) and it returns each record as soon as its line is complete.
//! [`PushParser::end`] gives the account: the same [`Document`] that
//! [`crate::parse_lenient`] gives for the whole text, plus what was expected,
//! received, missing and cut off. The count check (E04) happens only there.
//!
//! [`records`] reads typed records one line at a time from any
//! [`std::io::BufRead`], holding only the current line in memory.
//!
//! [`LineSource`] hands out the physical lines of a `BufRead` through the
//! same line reader (limits, UTF-8 errors), for a program that looks at a
//! line before it picks a contract and pushes the lines into a
//! [`PushParser`].

mod typed;

pub use typed::{records, records_with_limits, Records};

use memchr::memchr;

use crate::check::Scratch;
use crate::contract::Contract;
use crate::error::{Diagnostic, Error, Result};
use crate::read::{Limits, LineCutter};
pub use crate::read::{LineSource, PhysicalLine};
use crate::value::{Builder, Document, Fed, Record};

/// The old name of [`PushParser`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `PushParser` (it is pushed chunks; `from_reader` pulls)"
)]
pub type Reader<'c> = PushParser<'c>;

/// The old name of [`PushOptions`].
#[deprecated(since = "0.1.0", note = "renamed `PushOptions`")]
pub type ReaderOptions = PushOptions;

/// Options of a [`PushParser`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushOptions {
    /// Strict: [`PushParser::end`] fails if the document has any error (records
    /// are still returned as their lines close).
    pub strict: bool,
    /// Keep the valid records in the final [`Document`] (turn off to stream
    /// in constant memory).
    pub keep_records: bool,
    /// The resource limits, as for every entry point: a line that grows past
    /// `max_line_bytes` is refused before it is held whole (bounded memory
    /// against a line that never ends).
    pub limits: Limits,
}

impl Default for PushOptions {
    /// Lenient, keeping records, the default [`Limits`].
    fn default() -> Self {
        PushOptions {
            strict: false,
            keep_records: true,
            limits: Limits::default(),
        }
    }
}

/// The last line of a stream that ended without a line break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncompleteLine {
    /// Its physical line number.
    pub line: usize,
    /// Its text.
    pub text: String,
    /// The errors found on it (empty if it still made a valid record).
    pub errors: Vec<Diagnostic>,
}

/// The account of a finished stream.
#[derive(Debug, Clone)]
pub struct StreamEnd {
    /// The document: header, the valid records (if kept) and every error.
    pub document: Document,
    /// The header `n`; `None` when absent or ill-typed (unknown, not 0).
    pub expected: Option<u64>,
    /// Record lines received (valid or not).
    pub received: usize,
    /// Valid records.
    pub valid: usize,
    /// Records missing (`n − received` when positive); `None` when `n` is unknown.
    pub missing: Option<u64>,
    /// Records beyond `n`; `None` when `n` is unknown.
    pub excess: Option<u64>,
    /// Whether the input ended with a line break (or was empty).
    pub last_line_terminated: bool,
    /// The unterminated last line, with its errors.
    pub incomplete_line: Option<IncompleteLine>,
    /// `Some(true)` when records are missing or the last line looks cut;
    /// `None` when `n` is unknown and nothing looks cut (see
    /// [`crate::ParseReport::truncated`]).
    pub truncated: Option<bool>,
    /// True when the document is valid: every declared record arrived and
    /// nothing is wrong.
    pub complete: bool,
    /// The record made by the unterminated last line, if it was valid (it
    /// closed only at the end of the stream).
    pub last_record: Option<Record>,
}

/// A push parser (see the module docs).
///
/// ```
/// let contract = mini::Contract::from_json(
///     r#"{"prefix": "t", "core": [{"name": "title", "type": "str"}]}"#).unwrap();
/// let mut reader = mini::PushParser::new(&contract);
/// assert!(reader.push(b"t|n=2\nfirst ti").unwrap().is_empty());
/// let got = reader.push(b"tle\nsec").unwrap();
/// assert_eq!(got[0].value["title"], "first title");
/// let end = reader.end().unwrap();
/// assert_eq!((end.received, end.valid, end.last_line_terminated), (2, 2, false));
/// assert!(end.complete);
/// ```
#[derive(Debug)]
pub struct PushParser<'c> {
    builder: Builder<'c>,
    opts: PushOptions,
    /// The one line reader's state: line numbers, limits, BOM, CR, UTF-8.
    cutter: LineCutter,
    buf: Vec<u8>,
    last_text: Option<(usize, String)>,
    /// Whether the line being read is the unterminated last one (its text
    /// is kept for [`IncompleteLine`]).
    at_end: bool,
    /// Buffers reused from line to line (emptied between lines).
    scratch: Scratch<'static>,
}

impl<'c> PushParser<'c> {
    /// A lenient reader keeping records.
    pub fn new(contract: &'c Contract) -> Self {
        PushParser::with_options(contract, PushOptions::default())
    }

    /// A reader with options.
    pub fn with_options(contract: &'c Contract, opts: PushOptions) -> Self {
        PushParser {
            builder: Builder::new(contract),
            opts,
            cutter: LineCutter::new(opts.limits),
            buf: Vec::new(),
            last_text: None,
            at_end: false,
            scratch: Scratch::new(),
        }
    }

    /// The errors found so far (in line order).
    pub fn errors(&self) -> &[Diagnostic] {
        self.builder.engine().errors()
    }

    /// Feeds a chunk; returns the valid records whose lines closed in it.
    /// Fails only on invalid UTF-8 (with line and byte offset within it) or
    /// a limit.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while let Some(p) = memchr(b'\n', rest) {
            if self.buf.is_empty() {
                self.line(&rest[..p], true, &mut out)?;
            } else {
                let mut line = std::mem::take(&mut self.buf);
                line.extend_from_slice(&rest[..p]);
                self.line(&line, true, &mut out)?;
                line.clear();
                self.buf = line;
            }
            rest = &rest[p + 1..];
        }
        self.cutter.check_partial(self.buf.len() + rest.len())?;
        self.buf.extend_from_slice(rest);
        Ok(out)
    }

    fn line(&mut self, bytes: &[u8], had_lf: bool, out: &mut Vec<Record>) -> Result<()> {
        let Some(line) = self.cutter.cut(bytes, had_lf)? else {
            return Ok(());
        };
        if self.at_end {
            self.last_text = Some((line.number, line.text.to_string()));
        }
        let mut scratch = std::mem::take(&mut self.scratch).recycle();
        let fed = self.builder.line(line, &mut scratch);
        self.scratch = scratch.recycle();
        if let Fed::Valid(r) = fed {
            if self.opts.keep_records {
                self.builder.keep(r.clone());
            }
            out.push(r);
        }
        Ok(())
    }

    /// Ends the stream: the unterminated last line (if any) is parsed, the
    /// count is checked, and the account returned. In strict mode a document
    /// with errors is an `Err` listing them.
    pub fn end(mut self) -> Result<StreamEnd> {
        let terminated = self.buf.is_empty();
        let mut last_records = Vec::new();
        let mut incomplete = None;
        if !terminated {
            let line = std::mem::take(&mut self.buf);
            self.last_text = None;
            self.at_end = true;
            self.line(&line, false, &mut last_records)?;
            if let Some((n, text)) = self.last_text.take() {
                incomplete = Some(IncompleteLine {
                    line: n,
                    errors: self
                        .builder
                        .engine()
                        .errors()
                        .iter()
                        .filter(|d| d.line() == n)
                        .cloned()
                        .collect(),
                    text,
                });
            }
        }
        let document = self.builder.finish();
        let d = document.diagnostics();
        let end = StreamEnd {
            expected: d.declared_n,
            received: d.record_lines,
            valid: d.valid_records,
            last_record: last_records.pop(),
            missing: d.missing_records,
            excess: d.excess_records,
            last_line_terminated: terminated,
            incomplete_line: incomplete,
            truncated: d.truncated,
            complete: document.is_valid(),
            document,
        };
        if self.opts.strict && !end.complete {
            return Err(Error::invalid(end.document.errors().to_vec()));
        }
        Ok(end)
    }
}
