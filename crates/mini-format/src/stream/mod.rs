//! Streaming: records as the model writes them.
//!
//! [`Reader`] is a push parser: feed it chunks of bytes as they arrive (a
//! chunk may end anywhere, inside a UTF-8 character, an escape or a quoted
//! element) and it returns each record as soon as its line is complete.
//! [`Reader::end`] gives the account: the same [`Document`] that
//! [`crate::parse_lenient`] gives for the whole text, plus what was expected,
//! received, missing and cut off. The count check (E04) happens only there.
//!
//! [`records`] reads typed records one line at a time from any
//! [`std::io::BufRead`], holding only the current line in memory.

mod typed;

pub use typed::{records, Records};

use memchr::memchr;

use crate::check::Scratch;
use crate::contract::Contract;
use crate::error::{Diagnostic, Error, Limit, Result};
use crate::syntax::{self, Line};
use crate::value::{Builder, Document, Fed, Record};

/// Options of a [`Reader`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderOptions {
    /// Strict: [`Reader::end`] fails if the document has any error (records
    /// are still returned as their lines close).
    pub strict: bool,
    /// Keep the valid records in the final [`Document`] (turn off to stream
    /// in constant memory).
    pub keep_records: bool,
    /// Longest accepted line in bytes, counted without its line break (LF
    /// and a CR before it) and without a BOM, as [`crate::ParseOptions`]
    /// counts it: a line that grows past it is an error (bounded memory
    /// against a line that never ends).
    pub max_line_bytes: usize,
    /// Most record lines accepted.
    pub max_records: usize,
}

impl Default for ReaderOptions {
    /// Lenient, keeping records, lines up to 1 MiB, any number of records.
    fn default() -> Self {
        ReaderOptions {
            strict: false,
            keep_records: true,
            max_line_bytes: 1 << 20,
            max_records: usize::MAX,
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
    /// [`crate::Diagnostics::truncated`]).
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
/// let mut reader = mini::Reader::new(&contract);
/// assert!(reader.push(b"t|n=2\nfirst ti").unwrap().is_empty());
/// let got = reader.push(b"tle\nsec").unwrap();
/// assert_eq!(got[0].value["title"], "first title");
/// let end = reader.end().unwrap();
/// assert_eq!((end.received, end.valid, end.last_line_terminated), (2, 2, false));
/// assert!(end.complete);
/// ```
#[derive(Debug)]
pub struct Reader<'c> {
    builder: Builder<'c>,
    opts: ReaderOptions,
    buf: Vec<u8>,
    line_no: usize,
    offset: usize,
    last_text: Option<(usize, String)>,
    /// Whether the line being read is the unterminated last one (its text
    /// is kept for [`IncompleteLine`]).
    at_end: bool,
    /// Buffers reused from line to line (emptied between lines).
    scratch: Scratch<'static>,
}

impl<'c> Reader<'c> {
    /// A lenient reader keeping records.
    pub fn new(contract: &'c Contract) -> Self {
        Reader::with_options(contract, ReaderOptions::default())
    }

    /// A reader with options.
    pub fn with_options(contract: &'c Contract, opts: ReaderOptions) -> Self {
        Reader {
            builder: Builder::new(contract),
            opts,
            buf: Vec::new(),
            line_no: 0,
            offset: 0,
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
    /// Fails only on invalid UTF-8 (with line and byte offset) or a limit.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while let Some(p) = memchr(b'\n', rest) {
            if self.buf.is_empty() {
                self.line(&rest[..p], &mut out)?;
            } else {
                let mut line = std::mem::take(&mut self.buf);
                line.extend_from_slice(&rest[..p]);
                self.line(&line, &mut out)?;
                line.clear();
                self.buf = line;
            }
            self.offset += 1;
            rest = &rest[p + 1..];
        }
        // the line so far may still end in a CR (and the first line starts
        // with a BOM): neither counts toward the limit, as in `parse_with`
        let slack = 1 + if self.line_no == 0 { 3 } else { 0 };
        if self.buf.len() + rest.len() > self.opts.max_line_bytes.saturating_add(slack) {
            return Err(Error::limit(
                Limit::LineBytes,
                self.line_no + 1,
                format!("line exceeds {} bytes", self.opts.max_line_bytes),
            ));
        }
        self.buf.extend_from_slice(rest);
        Ok(out)
    }

    fn line(&mut self, bytes: &[u8], out: &mut Vec<Record>) -> Result<()> {
        let start = self.offset;
        self.offset += bytes.len();
        self.line_no += 1;
        let mut bytes = bytes;
        let mut skipped = 0;
        if self.line_no == 1 {
            if let Some(b) = bytes.strip_prefix("\u{feff}".as_bytes()) {
                bytes = b;
                skipped = 3;
            }
        }
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        // the line's text, without BOM, CR and LF, as `parse_with` counts it
        if bytes.len() > self.opts.max_line_bytes {
            return Err(Error::limit(
                Limit::LineBytes,
                self.line_no,
                format!(
                    "line has {} bytes, limit {}",
                    bytes.len(),
                    self.opts.max_line_bytes
                ),
            ));
        }
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => return Err(Error::utf8(self.line_no, start + skipped + e.valid_up_to())),
        };
        if syntax::is_blank(text) {
            return Ok(());
        }
        if self.builder.engine().has_header()
            && self.builder.engine().record_lines() >= self.opts.max_records
        {
            return Err(Error::limit(
                Limit::Records,
                self.line_no,
                format!("more than {} record lines", self.opts.max_records),
            ));
        }
        if self.at_end {
            self.last_text = Some((self.line_no, text.to_string()));
        }
        let mut scratch = std::mem::take(&mut self.scratch).recycle();
        let fed = self.builder.line(
            Line {
                number: self.line_no,
                text,
            },
            &mut scratch,
        );
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
            self.line(&line, &mut last_records)?;
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
