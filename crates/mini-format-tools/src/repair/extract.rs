//! Finding the `.mini` document inside a model's answer.

use std::fmt;

use serde::Serialize;

use crate::syntax;

/// One change [`extract`] made to a model's answer. Line numbers are the
/// 1-based physical lines of the answer as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "fix", rename_all = "snake_case")]
pub enum TransportFix {
    /// A byte-order mark at the start of the answer was removed.
    Bom,
    /// Lines of prose (or of other code blocks) before the document were
    /// skipped; `lines` counts the non-blank ones.
    SkippedProse {
        /// Non-blank lines skipped.
        lines: usize,
    },
    /// The Markdown fence opening the document's code block was removed.
    OpeningFence {
        /// Its line.
        line: usize,
        /// Its info string (`mini`, `text`, …), if any.
        lang: Option<String>,
    },
    /// The Markdown fence closing the document's code block was removed,
    /// with everything after it.
    ClosingFence {
        /// Its line.
        line: usize,
    },
    /// Non-blank lines after the closing fence were dropped.
    TrailingProse {
        /// Non-blank lines dropped.
        lines: usize,
    },
    /// CRLF line ends of the document were converted to LF.
    Crlf {
        /// How many.
        count: usize,
    },
}

impl fmt::Display for TransportFix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransportFix::Bom => f.write_str("removed the byte-order mark"),
            TransportFix::SkippedProse { lines } => {
                write!(f, "skipped {lines} line(s) of prose before the document")
            }
            TransportFix::OpeningFence { line, lang: None } => {
                write!(f, "removed the opening code fence at line {line}")
            }
            TransportFix::OpeningFence {
                line,
                lang: Some(lang),
            } => write!(
                f,
                "removed the opening code fence at line {line} (```{lang})"
            ),
            TransportFix::ClosingFence { line } => {
                write!(
                    f,
                    "removed the closing code fence at line {line} and what follows it"
                )
            }
            TransportFix::TrailingProse { lines } => {
                write!(f, "dropped {lines} line(s) after the closing code fence")
            }
            TransportFix::Crlf { count } => {
                write!(f, "converted {count} CRLF line end(s) to LF")
            }
        }
    }
}

/// The document found in a model's answer, and how it was cleaned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Extracted {
    /// The document text (from its header line on). When `fixes` is empty
    /// it is the answer unchanged.
    pub text: String,
    /// Every change made to the answer, in the order of the text (BOM first,
    /// CRLF last); empty when nothing was changed.
    pub fixes: Vec<TransportFix>,
}

/// One physical line of the answer: byte offset of its start and its text
/// without the LF nor a CR before it.
#[derive(Debug, Clone, Copy)]
struct Phys<'a> {
    start: usize,
    text: &'a str,
}

fn physical_lines(body: &str) -> Vec<Phys<'_>> {
    let mut out = Vec::new();
    let mut start = 0;
    for seg in body.split_inclusive('\n') {
        let text = seg.strip_suffix('\n').unwrap_or(seg);
        let text = text.strip_suffix('\r').unwrap_or(text);
        out.push(Phys { start, text });
        start += seg.len();
    }
    out
}

/// The info string of a Markdown fence line (```` ```mini ````, `~~~`), as
/// `Some(None)` for a bare fence; `None` when the line is not a fence.
pub(crate) fn fence(line: &str) -> Option<Option<String>> {
    let t = line.trim_start_matches(syntax::is_space);
    let marker = if t.starts_with("```") {
        '`'
    } else if t.starts_with("~~~") {
        '~'
    } else {
        return None;
    };
    let info = t.trim_start_matches(marker).trim_matches(syntax::is_space);
    Some((!info.is_empty()).then(|| info.to_string()))
}

/// Whether `line` is a header line: it starts with `<prefix>|` when the
/// prefix is known, else it looks like `[A-Za-z][A-Za-z0-9_-]*|…=…`.
pub(crate) fn is_header(line: &str, prefix: Option<&str>) -> bool {
    let t = line.trim_start_matches(syntax::is_space);
    match prefix {
        Some(p) => t.strip_prefix(p).is_some_and(|r| r.starts_with('|')),
        None => {
            let Some((name, rest)) = t.split_once('|') else {
                return false;
            };
            let mut chars = name.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                && rest.contains('=')
        }
    }
}

/// Finds the `.mini` document in a model's answer.
///
/// The document starts at its header line: the first line that starts with
/// `<prefix>|` when `prefix` is given, else the first line that looks like
/// a header (`[A-Za-z][A-Za-z0-9_-]*|…=…`). Leading whitespace on that line
/// is allowed. What comes before it is skipped ([`TransportFix::SkippedProse`];
/// when the header sits inside a Markdown code block, the fence that opens
/// it is reported as [`TransportFix::OpeningFence`]). The first fence line
/// after the header closes the document: it is dropped with everything
/// after it ([`TransportFix::ClosingFence`], [`TransportFix::TrailingProse`]).
/// Prose after the document *without* a closing fence is kept, so that the
/// parser reports it as invalid lines instead of it vanishing silently.
///
/// When no header line is found, the content of the first code block is
/// taken if there is one; otherwise the text is kept whole. In every case a
/// leading BOM is removed ([`TransportFix::Bom`]) and CRLF line ends are
/// converted to LF ([`TransportFix::Crlf`]).
///
/// Blank lines before the header are kept when nothing else precedes it,
/// so an answer that needs no fix comes back unchanged with no fixes.
pub fn extract(answer: &str, prefix: Option<&str>) -> Extracted {
    let mut fixes = Vec::new();
    let body = match answer.strip_prefix('\u{feff}') {
        Some(rest) => {
            fixes.push(TransportFix::Bom);
            rest
        }
        None => answer,
    };
    let lines = physical_lines(body);
    let nonblank = |range: std::ops::Range<usize>| {
        lines[range]
            .iter()
            .filter(|l| !syntax::is_blank(l.text))
            .count()
    };
    let fences: Vec<usize> = (0..lines.len())
        .filter(|&i| fence(lines[i].text).is_some())
        .collect();

    // (index of the first kept line, the opening fence, where to look for
    // the closing fence), or None to keep the whole text.
    let plan = match lines.iter().position(|l| is_header(l.text, prefix)) {
        Some(h) => {
            let before: Vec<usize> = fences.iter().copied().filter(|&i| i < h).collect();
            // An odd number of fences before the header: it is inside a block.
            let opening = (before.len() % 2 == 1).then(|| before[before.len() - 1]);
            let prose = nonblank(0..h) - usize::from(opening.is_some());
            let first = if prose > 0 || opening.is_some() { h } else { 0 };
            Some((first, prose, opening, h + 1))
        }
        None => fences
            .first()
            .map(|&o| (o + 1, nonblank(0..o), Some(o), o + 1)),
    };

    let (start, end) = match plan {
        None => (0, body.len()),
        Some((first, prose, opening, search_from)) => {
            if prose > 0 {
                fixes.push(TransportFix::SkippedProse { lines: prose });
            }
            if let Some(o) = opening {
                fixes.push(TransportFix::OpeningFence {
                    line: o + 1,
                    lang: fence(lines[o].text).flatten(),
                });
            }
            let start = lines.get(first).map_or(body.len(), |l| l.start);
            let end = match fences.iter().copied().find(|&i| i >= search_from) {
                Some(c) => {
                    fixes.push(TransportFix::ClosingFence { line: c + 1 });
                    let trailing = nonblank(c + 1..lines.len());
                    if trailing > 0 {
                        fixes.push(TransportFix::TrailingProse { lines: trailing });
                    }
                    lines[c].start
                }
                None => body.len(),
            };
            (start, end.max(start))
        }
    };

    let kept = &body[start..end];
    let crlf = kept.matches("\r\n").count();
    let text = if crlf > 0 {
        fixes.push(TransportFix::Crlf { count: crlf });
        kept.replace("\r\n", "\n")
    } else {
        kept.to_string()
    };
    Extracted { text, fixes }
}
