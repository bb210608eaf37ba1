//! `stream_chunks`: the push parser equals the whole-text parse for any
//! chunking.

use crate::*;

use arbitrary::{Arbitrary, Unstructured};

use mini::__private::syntax::{self};
use mini::contract::Contract;
use mini::stream::{PushOptions, PushParser, StreamEnd};
use mini::value::{self, Record};
use mini::Diagnostic;
use mini::Limits;

// ---------------------------------------------------------------------------
// stream_chunks
// ---------------------------------------------------------------------------

/// Most chunk boundaries of a [`StreamInput`].
pub const MAX_CUTS: usize = 16;

/// The input of [`stream_chunks`]: a document (any bytes) and where to cut
/// it into chunks.
///
/// Layout: `contract: u8` (index into [`parse_contracts`]), `limits: u8`
/// (bits 0–2: `max_records`, bits 3–6: `max_line_bytes / 8 − 1`), `cuts: u8`
/// (count, `% (MAX_CUTS + 1)`), that many `u16` offsets (`% (len + 1)`),
/// then the document: the rest of the data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamInput {
    /// Index of the contract (modulo the number of contracts).
    pub contract: u8,
    /// Limits for the limited readers (see the layout).
    pub limits: u8,
    /// Chunk boundaries (offsets modulo `len + 1`, sorted, deduplicated).
    pub cuts: Vec<u16>,
    /// The document.
    pub text: Vec<u8>,
}

impl<'a> Arbitrary<'a> for StreamInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let contract = u8::arbitrary(u)?;
        let limits = u8::arbitrary(u)?;
        let n = usize::from(u8::arbitrary(u)?) % (MAX_CUTS + 1);
        let mut cuts = Vec::with_capacity(n);
        for _ in 0..n {
            cuts.push(u16::arbitrary(u)?);
        }
        let text = u.bytes(u.len())?.to_vec();
        Ok(StreamInput {
            contract,
            limits,
            cuts,
            text,
        })
    }

    fn arbitrary_take_rest(mut u: Unstructured<'a>) -> arbitrary::Result<Self> {
        Self::arbitrary(&mut u)
    }
}

impl Encode for StreamInput {
    fn encode(&self, w: &mut SeedWriter) {
        w.u8(self.contract).u8(self.limits);
        let cuts = &self.cuts[..self.cuts.len().min(MAX_CUTS)];
        w.u8(cuts.len() as u8);
        for &c in cuts {
            w.u16(c);
        }
        w.bytes(&self.text);
    }
}

pub(crate) struct Streamed {
    pub(crate) end: mini::Result<StreamEnd>,
    pub(crate) seen: Vec<Record>,
    pub(crate) push_error: Option<mini::Error>,
}

pub(crate) fn stream(c: &Contract, chunks: &[&[u8]], opts: PushOptions) -> Streamed {
    let mut r = PushParser::with_options(c, opts);
    let mut seen = Vec::new();
    for ch in chunks {
        match r.push(ch) {
            Ok(recs) => seen.extend(recs),
            Err(e) => {
                return Streamed {
                    end: Err(mini::Error::message("stopped")),
                    seen,
                    push_error: Some(e),
                }
            }
        }
    }
    Streamed {
        end: r.end(),
        seen,
        push_error: None,
    }
}

/// A document cut into arbitrary chunks through the push [`PushParser`].
///
/// Asserts that:
///
/// 1. for bytes that are not UTF-8, the reader fails with the same error
///    (line and byte offset) as `mini::from_utf8` on the whole text;
/// 2. otherwise the lenient reader's document equals `parse_lenient` of the
///    whole text (errors, canonical object, diagnostics); the records it
///    returned while reading (plus `last_record`) are the document's, in
///    order; the [`StreamEnd`] account agrees with the diagnostics, and
///    `last_line_terminated` / `incomplete_line` describe the text's end;
/// 3. a strict reader fails exactly when the text has errors, with them;
///    a reader that keeps no records reports the same errors and counts;
/// 4. with `max_records`, the reader and `parse_lenient_with_limits` fail alike
///    (same message) or give the same document; with `max_line_bytes`, the
///    reader is at least as strict as `parse_lenient_with_limits` and gives the
///    same document when it accepts.
pub fn stream_chunks(input: &StreamInput) {
    let contracts = parse_contracts();
    let c = &contracts[usize::from(input.contract) % contracts.len()];
    let bytes = input.text.as_slice();
    let mut cuts: Vec<usize> = input
        .cuts
        .iter()
        .map(|&x| usize::from(x) % (bytes.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for &cut in &cuts {
        chunks.push(&bytes[from..cut]);
        from = cut;
    }
    chunks.push(&bytes[from..]);
    let unlimited = PushOptions {
        limits: Limits::UNLIMITED,
        ..PushOptions::default()
    };

    let text = match value::from_utf8(bytes) {
        Ok(t) => t,
        Err(whole) => {
            let s = stream(c, &chunks, unlimited);
            let err = match (s.push_error, s.end) {
                (Some(e), _) | (None, Err(e)) => e,
                (None, Ok(_)) => fail(format!("reader accepted invalid UTF-8 ({whole})")),
            };
            if !err.is_utf8() || err.to_string() != whole.to_string() {
                fail(format!(
                    "reader failed with '{err}', whole text with '{whole}'"
                ));
            }
            return;
        }
    };
    let whole = value::parse_lenient(text, c);

    // 2. the lenient reader
    let s = stream(c, &chunks, unlimited);
    if let Some(e) = s.push_error {
        fail(format!("push failed on UTF-8 text: {e}"));
    }
    let end = match s.end {
        Ok(e) => e,
        Err(e) => fail(format!("a lenient reader's end failed: {e}")),
    };
    same_document(&end.document, &whole, "reader vs parse_lenient");
    let mut seen = s.seen;
    seen.extend(end.last_record.clone());
    same_records(&seen, whole.records(), "records returned by the reader");
    let d = whole.diagnostics();
    if end.expected != d.declared_n
        || end.received != d.record_lines
        || end.valid != d.valid_records
        || end.missing != d.missing_records
        || end.excess != d.excess_records
        || end.truncated != d.truncated
        || end.complete != whole.is_valid()
    {
        fail(format!(
            "StreamEnd disagrees with the diagnostics: {end:?} vs {d:?}"
        ));
    }
    let terminated = bytes.is_empty() || bytes.ends_with(b"\n");
    if end.last_line_terminated != terminated {
        fail("last_line_terminated is wrong");
    }
    let tail_start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let tail_line = bytes[..tail_start].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut tail = &text[tail_start..];
    if tail_line == 1 {
        tail = tail.strip_prefix('\u{feff}').unwrap_or(tail);
    }
    let tail = tail.strip_suffix('\r').unwrap_or(tail);
    let want_incomplete = (!terminated && !syntax::is_blank(tail)).then_some((tail_line, tail));
    let got_incomplete = end
        .incomplete_line
        .as_ref()
        .map(|l| (l.line, l.text.as_str()));
    if got_incomplete != want_incomplete {
        fail(format!(
            "incomplete_line is {got_incomplete:?}, expected {want_incomplete:?}"
        ));
    }
    if let Some(l) = &end.incomplete_line {
        let errs: Vec<&Diagnostic> = whole
            .errors()
            .iter()
            .filter(|d| d.line() == l.line)
            .collect();
        // the document's E05 of its last line adds the truncation note,
        // which a line read as it streams in cannot know (ADR 0021)
        let plain = |d: &Diagnostic| {
            let m = d.message();
            let m = mini::__private::check::without_end_note(m);
            (
                d.code(),
                d.line(),
                d.field().map(str::to_string),
                m.to_string(),
            )
        };
        if l.errors.iter().map(plain).collect::<Vec<_>>()
            != errs.iter().map(|d| plain(d)).collect::<Vec<_>>()
        {
            fail("incomplete_line errors are not its line's errors");
        }
    }
    if let Some(r) = &end.last_record {
        if Some(r.line) != want_incomplete.map(|w| w.0) {
            fail("last_record does not come from the unterminated last line");
        }
    }

    // 3. strict, and without keeping records
    let strict = stream(
        c,
        &chunks,
        PushOptions {
            strict: true,
            ..unlimited
        },
    );
    match strict.end {
        Ok(e) if whole.is_valid() => same_document(&e.document, &whole, "strict reader"),
        Err(e) if !whole.is_valid() && strict.push_error.is_none() => {
            if e.diagnostics() != whole.errors() {
                fail("strict reader reports other errors");
            }
        }
        Ok(_) => fail("strict reader accepted a document with errors"),
        Err(e) => fail(format!("strict reader failed on a valid document: {e}")),
    }
    let light = stream(
        c,
        &chunks,
        PushOptions {
            keep_records: false,
            ..unlimited
        },
    );
    match light.end {
        Ok(e) => {
            if !e.document.records().is_empty()
                || e.document.errors() != whole.errors()
                || e.valid != whole.diagnostics().valid_records
                || e.received != whole.record_lines()
            {
                fail("a reader that keeps no records disagrees with the whole parse");
            }
        }
        Err(e) => fail(format!("keep_records=false reader failed: {e}")),
    }

    // 4. limits
    let max_records = usize::from(input.limits & 7);
    let opts = Limits {
        max_records,
        ..Limits::UNLIMITED
    };
    let limited = stream(
        c,
        &chunks,
        PushOptions {
            limits: opts,
            ..unlimited
        },
    );
    match (
        limited.push_error.map(Err).unwrap_or(limited.end),
        value::parse_lenient_with_limits(text, c, &opts),
    ) {
        (Ok(a), Ok(b)) => same_document(
            &a.document,
            &b,
            "max_records reader vs parse_lenient_with_limits",
        ),
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        (a, b) => fail(format!(
            "max_records={max_records}: reader {:?}, parse_lenient_with_limits {:?}",
            a.map(|e| e.valid).map_err(|e| e.to_string()),
            b.map(|d| d.records().len()).map_err(|e| e.to_string())
        )),
    }
    let max_line_bytes = 8 * (1 + usize::from(input.limits >> 3 & 15));
    let opts = Limits {
        max_line_bytes,
        ..Limits::UNLIMITED
    };
    let limited = stream(
        c,
        &chunks,
        PushOptions {
            limits: opts,
            ..PushOptions::default()
        },
    );
    match (
        limited.push_error.map(Err).unwrap_or(limited.end),
        value::parse_lenient_with_limits(text, c, &opts),
    ) {
        (Ok(a), Ok(b)) => same_document(
            &a.document,
            &b,
            "max_line_bytes reader vs parse_lenient_with_limits",
        ),
        (Err(a), _) if a.limit_exceeded() == Some(mini::Limit::LineBytes) => {}
        (a, b) => fail(format!(
            "max_line_bytes={max_line_bytes}: reader {:?}, parse_lenient_with_limits {:?}",
            a.map(|e| e.valid).map_err(|e| e.to_string()),
            b.map(|d| d.records().len()).map_err(|e| e.to_string())
        )),
    }
}
