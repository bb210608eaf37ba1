//! The streaming gate: a model's answer arriving as text chunks, cleaned
//! as [`crate::repair::extract`] cleans a whole answer, one line at a time.

use std::io::{self, BufRead, Read};

use serde::de::DeserializeOwned;

use crate::contract::Contract;
use crate::repair::extract::{fence, is_header};
use crate::repair::TransportFix;
use crate::syntax;

/// Where the gate is in the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the header line: prose, blank lines and fences are skipped.
    Before,
    /// Inside the document: lines pass through.
    Inside,
    /// After the closing fence (or the end of the answer): nothing passes.
    Done,
}

/// A model's streamed answer as the document inside it: a [`BufRead`]
/// over an iterator of text chunks (cut anywhere) that skips prose and an
/// opening fence before the header line, passes the document's lines
/// through as each one closes (CRLF as LF, a leading BOM removed), and
/// ends at the closing fence without reading further.
///
/// For an answer with a header line, the bytes it yields are exactly the
/// `text` of [`crate::repair::extract`] on the whole answer, whatever the
/// chunks, so any reader of the core sees the same records and
/// diagnostics ([`mini::stream::records`], [`mini::PushParser`]). Only the
/// current line is held in memory. (An answer with no header line yields
/// nothing: there is no document to stream.)
///
/// ```
/// use std::io::Read;
/// use mini_tools::workflow::AnswerStream;
/// let chunks = ["Here it is:\n``", "`mini\nt|n=1\nfir", "st\n```\nBye!"];
/// let mut doc = String::new();
/// AnswerStream::new(chunks, Some("t")).read_to_string(&mut doc).unwrap();
/// assert_eq!(doc, "t|n=1\nfirst\n");
/// ```
#[derive(Debug)]
pub struct AnswerStream<I: Iterator> {
    chunks: I,
    prefix: Option<String>,
    phase: Phase,
    /// The line being received (no LF yet).
    partial: String,
    /// Bytes ready for the reader, and how many it consumed.
    out: Vec<u8>,
    pos: usize,
    first_chunk: bool,
    /// Blank lines seen before the header while nothing else was.
    leading_blank: usize,
    /// Of those, the ones that ended in CRLF.
    leading_blank_cr: usize,
    /// Non-blank lines before the header that are not fences.
    prose: usize,
    fences_before: Vec<(usize, Option<String>)>,
    line_number: usize,
    crlf: usize,
    fixes: Vec<TransportFix>,
}

impl<I> AnswerStream<I>
where
    I: Iterator,
    I::Item: AsRef<str>,
{
    /// A gate over `chunks`; `prefix` (the contract's) finds the header
    /// line, as in [`crate::repair::extract`].
    pub fn new<C: IntoIterator<IntoIter = I>>(chunks: C, prefix: Option<&str>) -> Self {
        AnswerStream {
            chunks: chunks.into_iter(),
            prefix: prefix.map(str::to_string),
            phase: Phase::Before,
            partial: String::new(),
            out: Vec::new(),
            pos: 0,
            first_chunk: true,
            leading_blank: 0,
            leading_blank_cr: 0,
            prose: 0,
            fences_before: Vec::new(),
            line_number: 0,
            crlf: 0,
            fixes: Vec::new(),
        }
    }

    /// What the gate cleaned so far, as [`crate::repair::extract`] reports
    /// it (prose before the header, the opening and closing fences, a BOM,
    /// CRLF line ends). Trailing prose after the closing fence is not read,
    /// so it is not counted.
    pub fn fixes(&self) -> Vec<TransportFix> {
        let mut fixes = self.fixes.clone();
        if self.crlf > 0 {
            fixes.push(TransportFix::Crlf { count: self.crlf });
        }
        fixes
    }

    /// Whether the header line was found.
    pub fn found_header(&self) -> bool {
        self.phase != Phase::Before
    }

    /// One complete physical line (`had_lf`: it ended with a line break).
    fn line(&mut self, raw: &str, had_lf: bool) {
        self.line_number += 1;
        let (text, cr) = match raw.strip_suffix('\r') {
            Some(t) if had_lf => (t, true),
            _ => (raw, false),
        };
        match self.phase {
            Phase::Done => {}
            Phase::Before => {
                if is_header(text, self.prefix.as_deref()) {
                    self.phase = Phase::Inside;
                    let opening = (self.fences_before.len() % 2 == 1)
                        .then(|| self.fences_before.last().cloned())
                        .flatten();
                    // fence lines before the header count as prose too,
                    // all but the one that opens the document's block
                    let prose =
                        self.prose + self.fences_before.len() - usize::from(opening.is_some());
                    if prose > 0 {
                        self.fixes.push(TransportFix::SkippedProse { lines: prose });
                    }
                    if let Some((line, lang)) = opening {
                        self.fixes.push(TransportFix::OpeningFence { line, lang });
                    } else if prose == 0 && self.fences_before.is_empty() {
                        // nothing but blank lines before: extract keeps them
                        for _ in 0..self.leading_blank {
                            self.out.push(b'\n');
                        }
                        self.crlf += self.leading_blank_cr;
                    }
                    self.emit(text, had_lf, cr);
                } else if let Some(lang) = fence(text) {
                    self.fences_before.push((self.line_number, lang));
                } else if syntax::is_blank(text) {
                    if self.prose == 0 && self.fences_before.is_empty() {
                        self.leading_blank += 1;
                        self.leading_blank_cr += usize::from(cr);
                    }
                } else {
                    self.prose += 1;
                }
            }
            Phase::Inside => {
                if fence(text).is_some() {
                    self.fixes.push(TransportFix::ClosingFence {
                        line: self.line_number,
                    });
                    self.phase = Phase::Done;
                } else {
                    self.emit(text, had_lf, cr);
                }
            }
        }
    }

    fn emit(&mut self, text: &str, had_lf: bool, cr: bool) {
        self.crlf += usize::from(cr);
        self.out.extend_from_slice(text.as_bytes());
        if had_lf {
            self.out.push(b'\n');
        }
    }

    /// Pulls chunks until a line is ready or the answer ends.
    fn fill(&mut self) {
        while self.pos == self.out.len() && self.phase != Phase::Done {
            self.out.clear();
            self.pos = 0;
            let Some(chunk) = self.chunks.next() else {
                if !self.partial.is_empty() {
                    let last = std::mem::take(&mut self.partial);
                    self.line(&last, false);
                }
                if self.phase == Phase::Before {
                    // an odd fence before and no header: nothing to stream
                    self.fixes.clear();
                }
                self.phase = Phase::Done;
                return;
            };
            let mut chunk = chunk.as_ref();
            if self.first_chunk && !chunk.is_empty() {
                self.first_chunk = false;
                if let Some(rest) = chunk.strip_prefix('\u{feff}') {
                    self.fixes.push(TransportFix::Bom);
                    chunk = rest;
                }
            }
            let mut rest = chunk;
            while let Some(p) = rest.find('\n') {
                if self.partial.is_empty() {
                    self.line(&rest[..p], true);
                } else {
                    let mut line = std::mem::take(&mut self.partial);
                    line.push_str(&rest[..p]);
                    self.line(&line, true);
                }
                rest = &rest[p + 1..];
                if self.phase == Phase::Done {
                    return;
                }
            }
            self.partial.push_str(rest);
        }
    }
}

impl<I> Read for AnswerStream<I>
where
    I: Iterator,
    I::Item: AsRef<str>,
{
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<I> BufRead for AnswerStream<I>
where
    I: Iterator,
    I::Item: AsRef<str>,
{
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.fill();
        Ok(&self.out[self.pos..])
    }

    fn consume(&mut self, amt: usize) {
        self.pos = (self.pos + amt).min(self.out.len());
    }
}

/// Typed records from a model's streamed answer: the [`AnswerStream`] gate
/// read by [`mini::stream::records`], so each record comes out as its line
/// closes, with the same records and diagnostics as the whole answer read
/// after [`crate::repair::extract`].
pub fn gate_records<'c, T, I>(
    chunks: I,
    contract: &'c Contract,
) -> mini::stream::Records<'c, T, AnswerStream<I::IntoIter>>
where
    T: DeserializeOwned,
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    mini::stream::records(AnswerStream::new(chunks, Some(contract.prefix())), contract)
}
