//! The one line reader: every entry point (`parse*`, `from_str`,
//! `from_slice`, `from_reader`, the typed stream and the push [`PushParser`])
//! cuts its input into lines here, under one [`Limits`].
//!
//! [`LineCutter`] is the only place that skips a leading BOM, drops the CR
//! before a LF, skips blank lines (they still count as physical lines),
//! checks UTF-8 (the byte offset of an error is counted within its line)
//! and enforces the limits; [`lines`], for trusted text, applies the same
//! rules (`line_text`, `syntax::is_blank`) with no limit to count against
//! and no `Result` to unwrap. The sources feed it raw lines: [`StrLines`] and
//! [`SliceLines`] borrow from the input, [`IoLines`] reads a [`BufRead`]
//! one line at a time into a reused buffer, and the public [`LineSource`]
//! hands a program the physical lines of a [`BufRead`] (the `mini` binary
//! reads stdin and files through it, looking at the first line before it
//! picks a contract, then pushing every line into a [`PushParser`]).
//!
//! [`PushParser`]: crate::stream::PushParser

use std::io::BufRead;
#[cfg(test)]
use std::io::Read as _;

use memchr::memchr;

use crate::error::{Error, Limit, Result};
use crate::syntax::{self, Line};

/// Resource limits for untrusted input, one set for every entry point.
///
/// A breach is an [`Error`] that names the limit ([`Limit`] via
/// [`Error::limit_exceeded`]), not one of the SPEC's E-codes: SPEC 1.1
/// defines none for resource limits.
///
/// ```
/// let contract = mini::Contract::from_json(
///     r#"{"prefix": "t", "core": [{"name": "x", "type": "str"}]}"#).unwrap();
/// let limits = mini::Limits { max_records: 1, ..mini::Limits::default() };
/// let err = mini::parse_with_limits("t|n=2\na\nb", &contract, &limits).unwrap_err();
/// assert_eq!(err.limit_exceeded(), Some(mini::Limit::Records));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes read from the input (BOM and line breaks included).
    pub max_input_bytes: usize,
    /// Longest accepted physical line, in bytes, without its line break (LF
    /// and a CR before it) and without a BOM. Blank lines count too: a
    /// reader knows a line is blank only once it holds it.
    pub max_line_bytes: usize,
    /// Most record lines (significant lines after the header).
    pub max_records: usize,
}

impl Limits {
    /// No limits at all (for trusted input).
    pub const UNLIMITED: Limits = Limits {
        max_input_bytes: usize::MAX,
        max_line_bytes: usize::MAX,
        max_records: usize::MAX,
    };
}

impl Default for Limits {
    /// Limits a server can keep: 64 MiB of input, 1 MiB per line, one
    /// million records. A stream longer than 64 MiB needs a larger
    /// `max_input_bytes` (memory stays bounded by the line limit either way).
    fn default() -> Self {
        Limits {
            max_input_bytes: 64 << 20,
            max_line_bytes: 1 << 20,
            max_records: 1_000_000,
        }
    }
}

/// Turns raw lines into significant [`Line`]s under [`Limits`]; counts
/// physical lines, bytes and significant lines.
#[derive(Debug, Clone)]
pub(crate) struct LineCutter {
    limits: Limits,
    /// Physical lines seen.
    number: usize,
    /// Bytes seen (line breaks included).
    bytes: usize,
    /// Significant lines seen (the header and the record lines).
    significant: usize,
}

impl LineCutter {
    pub(crate) fn new(limits: Limits) -> Self {
        LineCutter {
            limits,
            number: 0,
            bytes: 0,
            significant: 0,
        }
    }

    /// Physical lines seen so far.
    pub(crate) fn line_number(&self) -> usize {
        self.number
    }

    /// Counts `n` more input bytes (a line and its break), failing past
    /// `max_input_bytes`.
    #[inline(always)]
    fn count_bytes(&mut self, n: usize) -> Result<()> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.limits.max_input_bytes {
            return Err(past_limit(
                Limit::InputBytes,
                self.number.max(1),
                format_args!("input exceeds {} bytes", self.limits.max_input_bytes),
            ));
        }
        Ok(())
    }

    /// Whether a line still being received (`len` bytes so far, no LF yet)
    /// is already past the line limit, with room for a BOM and a CR that do
    /// not count: the push reader refuses a line that never ends before it
    /// holds it whole.
    pub(crate) fn check_partial(&self, len: usize) -> Result<()> {
        let slack = 1 + if self.number == 0 { 3 } else { 0 };
        if len > self.limits.max_line_bytes.saturating_add(slack) {
            return Err(Error::limit(
                Limit::LineBytes,
                self.number + 1,
                format!("line exceeds {} bytes", self.limits.max_line_bytes),
            ));
        }
        Ok(())
    }

    /// One raw physical line (without its LF; `had_lf` says whether one
    /// followed): `None` for a blank line, else the significant line.
    pub(crate) fn cut<'a>(&mut self, raw: &'a [u8], had_lf: bool) -> Result<Option<Line<'a>>> {
        self.number += 1;
        self.count_bytes(raw.len() + usize::from(had_lf))?;
        let mut bytes = raw;
        if self.number == 1 {
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        let bom = raw.len() - bytes.len();
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if bytes.len() > self.limits.max_line_bytes {
            return Err(past_limit(
                Limit::LineBytes,
                self.number,
                format_args!(
                    "line has {} bytes, limit {}",
                    bytes.len(),
                    self.limits.max_line_bytes
                ),
            ));
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::utf8(self.number, bom + e.valid_up_to()))?;
        self.significant_line(text)
    }

    /// [`LineCutter::cut`] for text already known to be UTF-8.
    #[inline(always)]
    pub(crate) fn cut_str<'a>(&mut self, raw: &'a str, had_lf: bool) -> Result<Option<Line<'a>>> {
        self.number += 1;
        self.count_bytes(raw.len() + usize::from(had_lf))?;
        let text = line_text(raw, self.number == 1);
        if text.len() > self.limits.max_line_bytes {
            return Err(past_limit(
                Limit::LineBytes,
                self.number,
                format_args!(
                    "line has {} bytes, limit {}",
                    text.len(),
                    self.limits.max_line_bytes
                ),
            ));
        }
        self.significant_line(text)
    }

    #[inline(always)]
    fn significant_line<'a>(&mut self, text: &'a str) -> Result<Option<Line<'a>>> {
        if syntax::is_blank(text) {
            return Ok(None);
        }
        // the first significant line is the header; the others are records
        if self.significant > self.limits.max_records {
            return Err(past_limit(
                Limit::Records,
                self.number,
                format_args!("more than {} record lines", self.limits.max_records),
            ));
        }
        self.significant += 1;
        Ok(Some(Line {
            number: self.number,
            text,
        }))
    }
}

/// A limit's breach, as the error naming it (out of line: the reader's
/// hot path keeps only the test).
#[cold]
#[inline(never)]
fn past_limit(limit: Limit, line: usize, message: std::fmt::Arguments<'_>) -> Error {
    Error::limit(limit, line, message.to_string())
}

/// Finds the LF that ends each line. On x86-64, the `memchr` crate's
/// AVX2 searcher, asked for once, when the CPU has AVX2: `memchr::memchr`
/// picks its searcher through a function pointer on every call, a chain
/// of four calls a line (round 24 of issue 21: validation 0.985–0.989
/// the time). Elsewhere, or without AVX2, `memchr::memchr`.
#[derive(Debug, Clone, Copy)]
struct NewlineFinder {
    #[cfg(target_arch = "x86_64")]
    avx2: Option<memchr::arch::x86_64::avx2::memchr::One>,
}

impl NewlineFinder {
    fn new() -> Self {
        NewlineFinder {
            #[cfg(target_arch = "x86_64")]
            avx2: memchr::arch::x86_64::avx2::memchr::One::new(b'\n'),
        }
    }

    /// The offset of the first LF in `haystack`.
    #[inline(always)]
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx2) = &self.avx2 {
            return avx2.find(haystack);
        }
        memchr(b'\n', haystack)
    }
}

/// The significant lines of a `&str`, borrowed.
#[derive(Debug, Clone)]
pub(crate) struct StrLines<'de> {
    rest: Option<&'de str>,
    cutter: LineCutter,
    newline: NewlineFinder,
}

impl<'de> StrLines<'de> {
    /// The bytes not yet read.
    pub(crate) fn left(&self) -> usize {
        self.rest.map_or(0, |r| r.len())
    }

    pub(crate) fn new(text: &'de str, limits: Limits) -> Self {
        StrLines {
            rest: Some(text),
            cutter: LineCutter::new(limits),
            newline: NewlineFinder::new(),
        }
    }

    /// The next significant line, `None` at the end.
    #[inline(always)]
    pub(crate) fn next_line(&mut self) -> Result<Option<Line<'de>>> {
        while let Some(rest) = self.rest {
            let (raw, tail) = match self.newline.find(rest.as_bytes()) {
                Some(p) => (&rest[..p], Some(&rest[p + 1..])),
                None => (rest, None),
            };
            self.rest = tail;
            if let Some(line) = self.cutter.cut_str(raw, tail.is_some())? {
                return Ok(Some(line));
            }
        }
        Ok(None)
    }
}

/// The significant lines of trusted text (no limits), as an iterator: the
/// whole-text paths that cannot fail (`parse_lenient`, `validate`) and the
/// tools read lines through it.
pub fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    TrustedLines {
        rest: Some(text),
        number: 0,
        newline: NewlineFinder::new(),
    }
}

/// A raw line of text already known to be UTF-8 (without its LF), as its
/// significant text: without a BOM on the first line and without the CR
/// before the LF. The one place both rules are written, for the cutter
/// and for [`TrustedLines`].
#[inline(always)]
fn line_text(raw: &str, first: bool) -> &str {
    let text = match first {
        true => raw.strip_prefix('\u{feff}').unwrap_or(raw),
        false => raw,
    };
    text.strip_suffix('\r').unwrap_or(text)
}

/// [`lines`]: the cutter's rules with no limit to count against (round
/// 24 of issue 21: the limits' bookkeeping and the `Result` each line was
/// handed through four calls in were 72 of the line reader's 245
/// instructions a line in validation, and 5% of its time).
struct TrustedLines<'a> {
    rest: Option<&'a str>,
    /// Physical lines seen.
    number: usize,
    newline: NewlineFinder,
}

impl<'a> Iterator for TrustedLines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        while let Some(rest) = self.rest {
            let (raw, tail) = match self.newline.find(rest.as_bytes()) {
                Some(p) => (&rest[..p], Some(&rest[p + 1..])),
                None => (rest, None),
            };
            self.rest = tail;
            self.number += 1;
            let text = line_text(raw, self.number == 1);
            if !syntax::is_blank(text) {
                return Some(Line {
                    number: self.number,
                    text,
                });
            }
        }
        None
    }
}

/// The significant lines of a `&[u8]`, borrowed (each line checked as
/// UTF-8 when it is cut).
#[derive(Debug, Clone)]
pub(crate) struct SliceLines<'de> {
    rest: Option<&'de [u8]>,
    cutter: LineCutter,
    newline: NewlineFinder,
}

impl<'de> SliceLines<'de> {
    /// The bytes not yet read.
    pub(crate) fn left(&self) -> usize {
        self.rest.map_or(0, |r| r.len())
    }

    pub(crate) fn new(bytes: &'de [u8], limits: Limits) -> Self {
        SliceLines {
            rest: Some(bytes),
            cutter: LineCutter::new(limits),
            newline: NewlineFinder::new(),
        }
    }

    /// The next significant line, `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<Line<'de>>> {
        while let Some(rest) = self.rest {
            let (raw, tail) = match self.newline.find(rest) {
                Some(p) => (&rest[..p], Some(&rest[p + 1..])),
                None => (rest, None),
            };
            self.rest = tail;
            if let Some(line) = self.cutter.cut(raw, tail.is_some())? {
                return Ok(Some(line));
            }
        }
        Ok(None)
    }
}

/// The significant lines of a [`BufRead`], one at a time in a reused
/// buffer (a line is never held longer than `max_line_bytes` plus one read
/// chunk).
#[derive(Debug)]
pub(crate) struct IoLines<R> {
    reader: R,
    /// The current raw line, once it is known to be UTF-8.
    text: String,
    cutter: LineCutter,
    done: bool,
}

impl<R: BufRead> IoLines<R> {
    pub(crate) fn new(reader: R, limits: Limits) -> Self {
        IoLines {
            reader,
            text: String::new(),
            cutter: LineCutter::new(limits),
            done: false,
        }
    }

    /// The next significant line (borrowing the buffer), `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<Line<'_>>> {
        let mut raw = std::mem::take(&mut self.text).into_bytes();
        loop {
            if self.done {
                return Ok(None);
            }
            raw.clear();
            let had_lf = self.read_raw_line(&mut raw)?;
            if had_lf {
                raw.pop();
            } else {
                self.done = true;
                if raw.is_empty() {
                    return Ok(None);
                }
            }
            // UTF-8 is checked once, here; the offset is within the line
            let text = String::from_utf8(raw).map_err(|e| {
                Error::utf8(self.cutter.line_number() + 1, e.utf8_error().valid_up_to())
            })?;
            let span = self.cutter.cut_str(&text, had_lf)?.map(|line| {
                let start = line.text.as_ptr() as usize - text.as_ptr() as usize;
                (line.number, start, start + line.text.len())
            });
            match span {
                Some((number, start, end)) => {
                    self.text = text;
                    return Ok(Some(Line {
                        number,
                        text: &self.text[start..end],
                    }));
                }
                None => raw = text.into_bytes(),
            }
        }
    }

    fn read_raw_line(&mut self, raw: &mut Vec<u8>) -> Result<bool> {
        read_raw_line(&mut self.reader, &self.cutter, raw)
    }
}

/// Reads one raw line of `reader` into `raw` (its LF kept), refusing to
/// buffer more than the line limit allows; true when it ended with a LF.
fn read_raw_line<R: BufRead>(
    reader: &mut R,
    cutter: &LineCutter,
    raw: &mut Vec<u8>,
) -> Result<bool> {
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if available.is_empty() {
            return Ok(false);
        }
        let (take, found) = match memchr(b'\n', available) {
            Some(p) => (p + 1, true),
            None => (available.len(), false),
        };
        raw.extend_from_slice(&available[..take]);
        reader.consume(take);
        if found {
            return Ok(true);
        }
        cutter.check_partial(raw.len())?;
    }
}

/// One physical line read by a [`LineSource`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PhysicalLine<'a> {
    /// Its 1-based physical line number.
    pub number: usize,
    /// The bytes as read, with the LF when one followed (what to push into
    /// a [`PushParser`](crate::PushParser), which then numbers the line the
    /// same).
    pub raw: &'a [u8],
    /// The line's text without a leading BOM (first line), CR and LF;
    /// `None` for a blank line (it still counts as a physical line).
    pub text: Option<&'a str>,
}

/// The physical lines of a [`BufRead`], one at a time in a reused buffer,
/// through the same line reader as every entry point: the same limits (a
/// line that never ends is refused before it is held whole) and the same
/// UTF-8 errors (1-based line, byte offset within the line).
///
/// For a program that must see a line before it knows what to do with the
/// rest: the `mini` binary reads the first significant line of stdin to
/// pick a contract, then pushes every line into a
/// [`PushParser`](crate::PushParser), in memory bounded by the longest
/// line.
///
/// ```
/// use mini::stream::LineSource;
///
/// let input = "\u{feff}t|n=1\r\n\nhello";
/// let mut lines = LineSource::new(input.as_bytes(), mini::Limits::default());
/// let header = lines.next_line()?.expect("a first line");
/// assert_eq!((header.number, header.text), (1, Some("t|n=1")));
/// assert_eq!(header.raw, "\u{feff}t|n=1\r\n".as_bytes());
/// assert_eq!(lines.next_line()?.map(|l| (l.number, l.text)), Some((2, None)));
/// assert_eq!(lines.next_line()?.map(|l| l.raw), Some(&b"hello"[..]));
/// assert!(lines.next_line()?.is_none());
///
/// let mut bad = LineSource::new(&b"t|n=1\nab\xffc\n"[..], mini::Limits::default());
/// bad.next_line()?;
/// let e = bad.next_line().unwrap_err();
/// assert_eq!(e.to_string(), "invalid UTF-8 at line 2, byte offset 2 in the line");
/// # Ok::<(), mini::Error>(())
/// ```
#[derive(Debug)]
pub struct LineSource<R> {
    reader: R,
    cutter: LineCutter,
    raw: Vec<u8>,
    done: bool,
}

impl<R: BufRead> LineSource<R> {
    /// The lines of `reader` under `limits` (`max_input_bytes` counts every
    /// byte read, `max_records` the significant lines after the first).
    pub fn new(reader: R, limits: Limits) -> Self {
        LineSource {
            reader,
            cutter: LineCutter::new(limits),
            raw: Vec::new(),
            done: false,
        }
    }

    /// The next physical line, `None` at the end of the input. An error
    /// (I/O, invalid UTF-8, a limit) ends the lines; the lines before it
    /// were whole.
    pub fn next_line(&mut self) -> Result<Option<PhysicalLine<'_>>> {
        if self.done {
            return Ok(None);
        }
        self.raw.clear();
        let had_lf = match read_raw_line(&mut self.reader, &self.cutter, &mut self.raw) {
            Ok(lf) => lf,
            Err(e) => {
                self.done = true;
                return Err(e);
            }
        };
        if !had_lf {
            self.done = true;
            if self.raw.is_empty() {
                return Ok(None);
            }
        }
        let body = &self.raw[..self.raw.len() - usize::from(had_lf)];
        match self.cutter.cut(body, had_lf) {
            Ok(line) => Ok(Some(PhysicalLine {
                number: self.cutter.line_number(),
                raw: &self.raw,
                text: line.map(|l| l.text),
            })),
            Err(e) => {
                self.done = true;
                Err(e)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_skip_bom_cr_and_blank_lines_but_count_them() {
        let got: Vec<(usize, &str)> = lines("\u{feff}h|n=1\r\n\n  \r\nx\n")
            .map(|l| (l.number, l.text))
            .collect();
        assert_eq!(got, vec![(1, "h|n=1"), (4, "x")]);
        assert_eq!(lines("").count(), 0);
        assert_eq!(lines("\n\n").count(), 0);
    }

    /// The three sources cut the same lines, and a BufRead that hands out
    /// one byte at a time changes nothing.
    #[test]
    fn str_slice_and_io_sources_agree() {
        let text = "\u{feff}h|n=2\r\n\n  \r\nx|\u{e9}\n\ny\r";
        let mut a = StrLines::new(text, Limits::UNLIMITED);
        let mut b = SliceLines::new(text.as_bytes(), Limits::UNLIMITED);
        let one_byte = std::io::BufReader::with_capacity(1, text.as_bytes());
        let mut c = IoLines::new(one_byte, Limits::UNLIMITED);
        let one_byte = std::io::BufReader::with_capacity(1, text.as_bytes());
        let mut d = LineSource::new(one_byte, Limits::UNLIMITED);
        let mut pushed = Vec::new();
        loop {
            let x = a.next_line().unwrap();
            let y = b.next_line().unwrap();
            assert_eq!(x, y);
            let z = c.next_line().unwrap();
            assert_eq!(x, z);
            // the public source gives the same significant lines, blank
            // ones in between, and its raw bytes are the input again
            let w = loop {
                match d.next_line().unwrap() {
                    Some(p) => {
                        pushed.extend_from_slice(p.raw);
                        if let Some(text) = p.text {
                            break Some(Line {
                                number: p.number,
                                text,
                            });
                        }
                    }
                    None => break None,
                }
            };
            let w = w.map(|l| (l.number, l.text.to_string()));
            assert_eq!(x.map(|l| (l.number, l.text.to_string())), w);
            if x.is_none() {
                break;
            }
        }
        assert_eq!(pushed, text.as_bytes());
    }

    /// The LF finder gives `memchr`'s answer with and without the AVX2
    /// searcher, at every length around its 32-byte vectors.
    #[test]
    fn the_newline_finder_agrees_with_memchr() {
        let found = NewlineFinder::new();
        #[cfg(target_arch = "x86_64")]
        let fallback = NewlineFinder { avx2: None };
        #[cfg(not(target_arch = "x86_64"))]
        let fallback = NewlineFinder {};
        for len in 0..140 {
            for at in (0..len).step_by(7).map(Some).chain([None]) {
                let mut hay = vec![b'x'; len];
                if let Some(at) = at {
                    hay[at] = b'\n';
                    if at + 3 < len {
                        hay[at + 3] = b'\n';
                    }
                }
                assert_eq!(found.find(&hay), at, "{len} {at:?}");
                assert_eq!(fallback.find(&hay), at, "{len} {at:?}");
            }
        }
    }

    /// [`lines`] (no limits, no `Result`) cuts what the limited cutter
    /// cuts: BOMs only on the first line, a CR only before the break,
    /// blank lines skipped but counted, a last line with or without a break.
    #[test]
    fn trusted_lines_agree_with_the_cutter() {
        let texts = [
            "",
            "\n",
            "\u{feff}",
            "\u{feff}h|n=1\r\nx\r\n",
            "h\n\u{feff}x\n",
            "\r\n \t\r\nh\n\n\nx",
            "h\r\rx\r",
            "\u{feff}\r\n\u{feff}\r\n",
            "a\n \u{a0}\nb\r \n",
        ];
        for text in texts {
            let mut cutter = StrLines::new(text, Limits::UNLIMITED);
            let want: Vec<Line<'_>> = std::iter::from_fn(|| cutter.next_line().unwrap()).collect();
            let got: Vec<Line<'_>> = lines(text).collect();
            assert_eq!(got, want, "{text:?}");
        }
        let got: Vec<usize> = lines("\u{feff}h\n\n \nx\r\n").map(|l| l.number).collect();
        assert_eq!(got, vec![1, 4]);
    }

    #[test]
    fn each_limit_is_named() {
        let tight = |f: fn(&mut Limits)| {
            let mut l = Limits::UNLIMITED;
            f(&mut l);
            l
        };
        let text = "h|n=2\nabcdef\nx\n";
        let run = |limits: Limits| -> Result<()> {
            let mut lines = StrLines::new(text, limits);
            while lines.next_line()?.is_some() {}
            Ok(())
        };
        let e = run(tight(|l| l.max_input_bytes = 10)).unwrap_err();
        assert_eq!(e.limit_exceeded(), Some(Limit::InputBytes));
        let e = run(tight(|l| l.max_line_bytes = 5)).unwrap_err();
        assert_eq!(e.limit_exceeded(), Some(Limit::LineBytes));
        let e = run(tight(|l| l.max_records = 1)).unwrap_err();
        assert_eq!(e.limit_exceeded(), Some(Limit::Records));
        assert!(run(tight(|l| l.max_records = 2)).is_ok());
        // a line that never ends is refused before it is held whole
        let endless = std::io::repeat(b'a').take(1 << 20);
        let mut io = IoLines::new(
            std::io::BufReader::new(endless),
            tight(|l| l.max_line_bytes = 100),
        );
        let e = io.next_line().unwrap_err();
        assert_eq!(e.limit_exceeded(), Some(Limit::LineBytes));
        let endless = std::io::repeat(b'a').take(1 << 20);
        let mut source = LineSource::new(
            std::io::BufReader::new(endless),
            tight(|l| l.max_line_bytes = 100),
        );
        let e = source.next_line().unwrap_err();
        assert_eq!(e.limit_exceeded(), Some(Limit::LineBytes));
        assert!(
            source.next_line().unwrap().is_none(),
            "an error ends the lines"
        );
        // a whole line past the limit is named with its line number
        let mut source = LineSource::new(&b"h|n=1\nabcdef\n"[..], tight(|l| l.max_line_bytes = 5));
        assert!(source.next_line().unwrap().is_some());
        let e = source.next_line().unwrap_err();
        assert_eq!(e.limit_exceeded(), Some(Limit::LineBytes));
        assert!(e.to_string().contains("line 2"), "{e}");
        // a blank line counts too: it is known blank only once it is held
        let blank = format!("h|n=1\n{}\nx\n", " ".repeat(6));
        let mut lines = StrLines::new(&blank, tight(|l| l.max_line_bytes = 5));
        assert!(lines.next_line().unwrap().is_some());
        let e = lines.next_line().unwrap_err();
        assert_eq!(e.limit_exceeded(), Some(Limit::LineBytes));
        assert!(e.to_string().contains("line 2: line has 6 bytes"), "{e}");
    }

    #[test]
    fn utf8_offset_is_counted_within_the_line() {
        let bytes = b"h|n=1\nab\xffc\n";
        let mut lines = SliceLines::new(bytes, Limits::UNLIMITED);
        assert!(lines.next_line().unwrap().is_some());
        let e = lines.next_line().unwrap_err();
        assert!(e.is_utf8());
        assert!(e.to_string().contains("line 2, byte offset 2"), "{e}");
        let mut io = IoLines::new(&bytes[..], Limits::UNLIMITED);
        assert!(io.next_line().unwrap().is_some());
        let e = io.next_line().unwrap_err();
        assert!(e.to_string().contains("line 2, byte offset 2"), "{e}");
    }
}
