//! The `nom` grammar of one line: fields, escapes, list elements, quotes and
//! markers (SPEC 1.1 §3–§4). It knows the list separator and nothing else of
//! the contract. Every production is linear in the length of the line. The
//! fast paths that read the line's structure on block masks are in
//! `lex/blocks.rs` (ADR 0033); this grammar is their reference.

use std::borrow::Cow;

use memchr::memchr2;
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::anychar;
use nom::combinator::{consumed, map, opt};
use nom::multi::fold_many0;
use nom::sequence::preceded;
use nom::{IResult, Parser};

mod blocks;
mod unescape;

pub use blocks::{count_plain_list, plain_text_list, quoted_text_list, split_fields_fast, Escapes};
use blocks::{find_close, push_field_exact, NoPieces, PieceMasks, TakeElements};
pub use unescape::{unescape, unescape_into, unescape_mapped};

/// The field separator.
pub const FIELD_SEP: char = '|';
/// The selection marker.
pub const MARKER: char = '*';
/// The escape character.
pub const ESCAPE: char = '\\';
/// The quote that opens a quoted list element.
pub const QUOTE: char = '"';

type Res<'a, O> = IResult<&'a str, O, ()>;

/// What went wrong lexically in a line (all reported as E09).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// `\` followed by a character that is not `| , <sep> * " \ n`.
    InvalidEscape(char),
    /// `\` at the end of the line.
    DanglingBackslash,
    /// A quoted list element whose closing quote is missing.
    UnclosedQuote,
    /// Text between a closing quote (and its marker) and the next separator.
    TextAfterQuote,
}

/// A lexical error with its byte offset in the line (or field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxError {
    /// What went wrong.
    pub kind: SyntaxErrorKind,
    /// Byte offset, relative to the text that was lexed.
    pub offset: usize,
}

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            SyntaxErrorKind::InvalidEscape(c) => {
                write!(f, "invalid escape sequence '\\{}'", c.escape_debug())
            }
            SyntaxErrorKind::DanglingBackslash => f.write_str("dangling backslash at end of line"),
            SyntaxErrorKind::UnclosedQuote => {
                f.write_str("unbalanced double quote in list element")
            }
            SyntaxErrorKind::TextAfterQuote => {
                f.write_str("text after closing quote in list element")
            }
        }
    }
}

/// One escape sequence as the grammar sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Escape {
    Valid,
    Invalid(char),
    Dangling,
}

/// True when `c` may follow a backslash under separator `sep`.
pub fn is_escapable(c: char, sep: char) -> bool {
    matches!(c, '|' | ',' | '*' | '"' | '\\' | 'n') || c == sep
}

/// `escape ::= "\" ( "|" | "," | SEP | "*" | '"' | "\" | "n" )`; anything else
/// after a backslash is recognised too, so that the caller can report it.
fn escape(sep: char) -> impl Fn(&str) -> Res<'_, Escape> {
    move |i| {
        let (i, _) = tag("\\").parse(i)?;
        match opt(anychar).parse(i)? {
            (i, Some(c)) if is_escapable(c, sep) => Ok((i, Escape::Valid)),
            (i, Some(c)) => Ok((i, Escape::Invalid(c))),
            (i, None) => Ok((i, Escape::Dangling)),
        }
    }
}

/// A non-empty run of characters other than `|` and `\`.
fn plain_run(i: &str) -> Res<'_, &str> {
    let n = memchr2(b'|', b'\\', i.as_bytes()).unwrap_or(i.len());
    if n == 0 {
        Err(nom::Err::Error(()))
    } else {
        Ok((&i[n..], &i[..n]))
    }
}

/// Accumulator for the pieces of one field.
#[derive(Default, Clone, Copy)]
struct FieldAcc {
    escaped: bool,
    first_error: Option<(usize, SyntaxErrorKind)>,
    errors: usize,
}

/// `value ::= ( char | escape )*` — one field, up to the next unescaped `|`.
fn field_value(sep: char, base: &str) -> impl Parser<&str, Output = (&str, FieldAcc), Error = ()> {
    consumed(fold_many0(
        alt((map(plain_run, |_| None), map(consumed(escape(sep)), Some))),
        FieldAcc::default,
        move |mut acc, piece: Option<(&str, Escape)>| {
            if let Some((text, esc)) = piece {
                acc.escaped = true;
                let kind = match esc {
                    Escape::Valid => None,
                    Escape::Invalid(c) => Some(SyntaxErrorKind::InvalidEscape(c)),
                    Escape::Dangling => Some(SyntaxErrorKind::DanglingBackslash),
                };
                if let Some(kind) = kind {
                    acc.errors += 1;
                    if acc.first_error.is_none() {
                        acc.first_error = Some((offset_in(base, text), kind));
                    }
                }
            }
            acc
        },
    ))
}

fn offset_in(base: &str, part: &str) -> usize {
    part.as_ptr() as usize - base.as_ptr() as usize
}

/// One field of a line, as written (escapes not yet resolved).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawField<'a> {
    /// The field text with unescaped outer whitespace removed; escapes intact.
    pub raw: &'a str,
    /// Whether `raw` contains a backslash (so decoding must allocate).
    pub escaped: bool,
    /// Byte offset of `raw` in the line.
    pub offset: usize,
}

impl<'a> RawField<'a> {
    /// The decoded value of a scalar field.
    #[inline]
    pub fn text(&self, sep: char) -> Cow<'a, str> {
        if self.escaped {
            Cow::Owned(unescape(self.raw, sep))
        } else {
            Cow::Borrowed(self.raw)
        }
    }

    /// True when the field is empty after trimming.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }
}

/// Splits a line into fields at unescaped `|` (`record ::= value ( "|" value )*`).
///
/// Fields are pushed to `out` (cleared first). Lexical errors (invalid or
/// dangling escapes) are pushed to `errors`; the fields are still produced,
/// with the offending sequences kept literally, so that header parsing can go
/// on and report the other errors of the line.
///
/// A line whose escapes are all valid is split by one `memchr2` scan
/// ([`split_fields_fast`]); any other line goes through the `nom` grammar
/// ([`split_fields_nom`]), which is the reference: the fuzz target
/// `lexer_equivalence` checks that both give the same fields on every line.
pub fn split_fields<'a>(
    line: &'a str,
    sep: char,
    out: &mut Vec<RawField<'a>>,
    errors: &mut Vec<SyntaxError>,
) {
    if !split_fields_fast(line, sep, out) {
        split_fields_nom(line, sep, out, errors);
    }
}

/// [`push_field_exact`] when `escaped` says only that the field may have
/// a backslash (a search tells).
#[inline(always)]
fn push_field<'a>(
    line: &'a str,
    start: usize,
    end: usize,
    escaped: bool,
    out: &mut Vec<RawField<'a>>,
) {
    let escaped = escaped && find_backslash(&line.as_bytes()[start..end]).is_some();
    push_field_exact(line, start, end, escaped, out);
}

/// [`split_fields`] by the `nom` grammar alone (`value ::= ( char | escape )*`
/// folded piece by piece): the reference the fast path is checked against,
/// and the splitter of every line with an invalid or dangling escape.
pub fn split_fields_nom<'a>(
    line: &'a str,
    sep: char,
    out: &mut Vec<RawField<'a>>,
    errors: &mut Vec<SyntaxError>,
) {
    out.clear();
    let mut rest = line;
    loop {
        // `field_value` never fails: fold_many0 accepts zero pieces.
        let (after, (text, acc)) = match field_value(sep, line).parse(rest) {
            Ok(ok) => ok,
            Err(_) => (rest, ("", FieldAcc::default())),
        };
        if let Some((offset, kind)) = acc.first_error {
            errors.push(SyntaxError { kind, offset });
        }
        let trimmed = trim_raw(text);
        out.push(RawField {
            raw: trimmed,
            escaped: acc.escaped && trimmed.contains('\\'),
            offset: offset_in(line, trimmed),
        });
        match preceded(tag::<&str, &str, ()>("|"), nom::combinator::rest).parse(after) {
            Ok((_, tail)) => rest = tail,
            Err(_) => break,
        }
    }
}

/// Whitespace as `.mini` trims it: Unicode `White_Space` plus the four
/// information separators U+001C–U+001F, which is exactly the set the
/// reference implementation (Python `str.isspace`) and its oracle use.
pub fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Trims unescaped outer whitespace from raw text (an escaped separator that
/// is itself whitespace, like `\<TAB>`, is kept).
///
/// Called on every field and list element: only the look at the two edges
/// goes in line, and the trimming itself is a cold call (ADR 0067).
#[inline(always)]
pub fn trim_raw(s: &str) -> &str {
    // fast path: ASCII edges that are not whitespace (nothing to trim)
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (None, _) => return s,
        (Some(&f), Some(&l)) if !maybe_space(f) && !maybe_space(l) => return s,
        _ => {}
    }
    trim_raw_slow(s)
}

#[cold]
#[inline(never)]
fn trim_raw_slow(s: &str) -> &str {
    let start = s.trim_start_matches(is_space);
    let mut end = start.trim_end_matches(is_space);
    if end.len() < start.len() {
        // Keep one whitespace char if it is escaped (odd run of backslashes).
        let backslashes = end.bytes().rev().take_while(|&b| b == b'\\').count();
        if backslashes % 2 == 1 {
            let next = start[end.len()..].chars().next().map_or(0, char::len_utf8);
            end = &start[..end.len() + next];
        }
    }
    end
}

/// False only for a byte that starts no whitespace character: an ASCII byte
/// that is not whitespace (non-ASCII bytes may start U+0085, U+3000, …).
#[inline]
fn maybe_space(b: u8) -> bool {
    MAYBE_SPACE[usize::from(b)]
}

const MAYBE_SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b >= 0x80
            || matches!(
                b as u8,
                b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ' | 0x1c..=0x1f
            );
        b += 1;
    }
    t
};

/// The first backslash of `bytes` (sixteen bytes a step: values and
/// elements are short, shorter than memchr's vector searches need to pay
/// off their setup).
#[inline]
fn find_backslash(bytes: &[u8]) -> Option<usize> {
    let at = super::scan::find_byte(bytes, 0, b'\\');
    (at < bytes.len()).then_some(at)
}

/// One element of a list-typed field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element<'a> {
    /// The decoded element text (borrowed when nothing had to be decoded).
    pub text: Cow<'a, str>,
    /// Whether the element carries the selection marker `*`.
    pub marked: bool,
    /// Whether the element was written in quotes.
    pub quoted: bool,
}

/// A run inside quotes: anything but `"` and `\`.
fn quoted_run(i: &str) -> Res<'_, &str> {
    let n = memchr2(b'"', b'\\', i.as_bytes()).unwrap_or(i.len());
    if n == 0 {
        Err(nom::Err::Error(()))
    } else {
        Ok((&i[n..], &i[..n]))
    }
}

#[derive(Clone, Copy)]
enum QPiece<'a> {
    Run(&'a str),
    Quote,
    Esc(&'a str),
}

/// `quoted ::= '"' ( qchar | '""' | escape )* '"'` — returns the decoded text
/// and whether its last character was an unescaped `*` (the marker written
/// before the closing quote).
fn quoted<'a>(sep: char) -> impl Parser<&'a str, Output = (Cow<'a, str>, bool), Error = ()> {
    move |i: &'a str| {
        let (i, _) = tag("\"").parse(i)?;
        let mut pieces: Vec<QPiece<'a>> = Vec::new();
        let (i, ()) = fold_many0(
            alt((
                map(quoted_run, QPiece::Run),
                map(tag("\"\""), |_| QPiece::Quote),
                map(consumed(escape(sep)), |(t, _)| QPiece::Esc(t)),
            )),
            || (),
            |(), p| pieces.push(p),
        )
        .parse(i)?;
        let (i, _) = tag("\"").parse(i)?;
        let last_is_marker = matches!(pieces.last(), Some(QPiece::Run(r)) if r.ends_with('*'));
        let text = match pieces.as_slice() {
            [] => Cow::Borrowed(""),
            [QPiece::Run(r)] => Cow::Borrowed(*r),
            _ => {
                let mut s = String::new();
                for p in &pieces {
                    match p {
                        QPiece::Run(r) => s.push_str(r),
                        QPiece::Quote => s.push('"'),
                        QPiece::Esc(e) => unescape_into(e, sep, &mut s),
                    }
                }
                Cow::Owned(s)
            }
        };
        Ok((i, (text, last_is_marker)))
    }
}

/// The byte-level reading of a quoted element (`text` starts with `"`):
/// the block masks (or, under a separator that is not ASCII,
/// `scan::find_either`) find each `"` and `\`; a doubled `""` and a valid
/// escape are decoded, and the text is borrowed when it has neither.
/// Gives the same `(rest, text, marker before the closing quote)` as
/// [`quoted`], and `None` on anything it does not decide alone (a missing
/// closing quote, an invalid or dangling escape): the `nom` production
/// then reads it.
///
/// To decode under an ASCII separator, the pass that finds the close also
/// keeps where the pieces are ([`PieceMasks`], ADR 0050), and the text is
/// copied run by run from them (into a string of the body's length); a body
/// longer than the masks held is decoded by a second pass
/// ([`scan_quoted`]). When `decode` is false (validation: the text is not
/// read), the body is given as written, doubled quotes and escapes intact.
#[inline(always)]
fn quoted_fast(text: &str, sep: char, decode: bool) -> Option<(&str, Cow<'_, str>, bool)> {
    let body = text.strip_prefix('"')?;
    let (close, last_marker, decoded) = match u8::try_from(sep) {
        Ok(b) if b.is_ascii() && decode => {
            let mut pieces = PieceMasks::default();
            let (close, marker, plain) = find_close(body, b, &mut pieces)?;
            let decoded = if plain {
                Cow::Borrowed(&body[..close])
            } else if let Some(s) = pieces.decode(body, close) {
                Cow::Owned(s)
            } else {
                Cow::Owned(scan_quoted_owned(body, sep, close)?)
            };
            (close, marker, decoded)
        }
        Ok(b) if b.is_ascii() => {
            let (close, marker, _) = find_close(body, b, &mut NoPieces)?;
            (close, marker, Cow::Borrowed(&body[..close]))
        }
        _ => {
            // first pass: where the element closes, and whether it has
            // pieces to decode; the second decodes into a string of the
            // right size
            let (close, marker, plain) = scan_quoted(body, sep, None)?;
            let decoded = if plain || !decode {
                Cow::Borrowed(&body[..close])
            } else {
                Cow::Owned(scan_quoted_owned(body, sep, close)?)
            };
            (close, marker, decoded)
        }
    };
    Some((&body[close + 1..], decoded, last_marker))
}

/// [`scan_quoted`]'s decoding pass of a body known to close at `close`.
fn scan_quoted_owned(body: &str, sep: char, close: usize) -> Option<String> {
    let mut s = String::with_capacity(close);
    scan_quoted(body, sep, Some(&mut s))?;
    Some(s)
}

/// Reads the body of a quoted element (after its opening `"`) up to its
/// closing quote, appending the decoded text to `out` when given. Returns
/// the closing quote's offset, whether the last piece is a plain run ending
/// in `*`, and whether the body has no `""` or escape (it is its own text);
/// `None` on what [`quoted_fast`] leaves to `nom`.
fn scan_quoted(body: &str, sep: char, mut out: Option<&mut String>) -> Option<(usize, bool, bool)> {
    let b = body.as_bytes();
    let (mut from, mut run_start) = (0, 0);
    let (mut last_marker, mut plain) = (false, true);
    loop {
        let at = super::scan::find_either(b, from, b'"', b'\\');
        if at == b.len() {
            return None;
        }
        if at > from {
            last_marker = b[at - 1] == b'*';
        }
        let (decoded, next) = if b[at] == b'"' {
            if b.get(at + 1) != Some(&b'"') {
                if let Some(o) = out.as_deref_mut() {
                    o.push_str(&body[run_start..at]);
                }
                return Some((at, last_marker, plain));
            }
            ('"', at + 2)
        } else {
            let c = body[at + 1..].chars().next()?;
            if !is_escapable(c, sep) {
                return None;
            }
            (if c == 'n' { '\n' } else { c }, at + 1 + c.len_utf8())
        };
        if let Some(o) = out.as_deref_mut() {
            o.push_str(&body[run_start..at]);
            o.push(decoded);
        }
        plain = false;
        last_marker = false;
        from = next;
        run_start = next;
    }
}

/// `s` past its leading whitespace (the separator kept, when it is
/// whitespace). The common case, a first byte that starts no whitespace,
/// is decided in line; the rest out of line.
#[inline(always)]
fn skip_ws(s: &str, sep: char) -> &str {
    if s.as_bytes().first().is_none_or(|&b| !maybe_space(b)) {
        return s;
    }
    skip_ws_slow(s, sep)
}

#[inline(never)]
fn skip_ws_slow(s: &str, sep: char) -> &str {
    s.trim_start_matches(|c: char| is_space(c) && c != sep)
}

/// Finds the next unescaped `sep` in raw text; returns its byte index.
fn find_sep(raw: &str, sep: char) -> Option<usize> {
    let bytes = raw.as_bytes();
    let mut from = 0;
    if sep.is_ascii() {
        let s = sep as u8;
        while let Some(p) = memchr2(s, b'\\', &bytes[from..]) {
            let at = from + p;
            if bytes[at] == s {
                return Some(at);
            }
            // skip the escape and the character it protects
            from = at + 1 + raw[at + 1..].chars().next().map_or(0, char::len_utf8);
            if from >= bytes.len() {
                return None;
            }
        }
        None
    } else {
        let mut chars = raw.char_indices();
        while let Some((idx, c)) = chars.next() {
            if c == '\\' {
                chars.next();
            } else if c == sep {
                return Some(idx);
            }
        }
        None
    }
}

/// One unquoted element: trimmed, its marker read (a `*` not escaped by an
/// odd run of backslashes), its escapes resolved, when `decode`, if it
/// has a backslash (`escaped` says whether it may). The list walk's
/// elements that hold one are resolved on the walk's masks instead
/// (`PushElements`, ADR 0073); it calls this only for the others.
#[inline(always)]
fn push_plain<'a>(
    part: &'a str,
    escaped: bool,
    sep: char,
    out: &mut impl TakeElements<'a>,
    decode: bool,
) {
    let (part, marked) = trim_marked(part, escaped);
    let text = if decode && escaped && find_backslash(part.as_bytes()).is_some() {
        Cow::Owned(unescape(part, sep))
    } else {
        Cow::Borrowed(part)
    };
    out.take(Element {
        text,
        marked,
        quoted: false,
    });
}

/// An unquoted element's raw text trimmed and its marker taken off (a `*`
/// not escaped by an odd run of backslashes; `escaped` says whether the
/// text may have a backslash): the text and whether it was marked.
#[inline(always)]
fn trim_marked(part: &str, escaped: bool) -> (&str, bool) {
    let part = trim_raw(part);
    if let Some(before) = part.strip_suffix('*') {
        let backslashes = if escaped {
            before.bytes().rev().take_while(|&b| b == b'\\').count()
        } else {
            0
        };
        if backslashes % 2 == 0 {
            return (trim_raw(before), true);
        }
    }
    (part, false)
}

/// The elements of a list text that needs no element grammar: no quote,
/// no marker, no escape, under an ASCII separator. Each is the trimmed
/// text between two separators, as [`split_list`] gives it (its marker
/// flag false, its text borrowed), and how many there are (an empty text
/// has none). `None` for any other text: the element path decides.
/// Byte loops, no search set up: such texts are a few numbers.
pub fn plain_elements(raw: &str, sep: char) -> Option<(usize, PlainElements<'_>)> {
    let sep = u8::try_from(sep).ok().filter(u8::is_ascii)?;
    let bytes = raw.as_bytes();
    // sixteen bytes a step, no branch per byte (ADR 0049)
    let count = usize::from(!bytes.is_empty()) + super::scan::plain_separators(bytes, sep)?;
    let rest = (!raw.is_empty()).then_some(raw);
    Some((count, PlainElements { rest, sep }))
}

/// The elements [`plain_elements`] found, in order.
#[derive(Debug, Clone)]
pub struct PlainElements<'a> {
    rest: Option<&'a str>,
    sep: u8,
}

impl<'a> Iterator for PlainElements<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match rest.bytes().position(|b| b == self.sep) {
            // the separator is ASCII: `p` and `p + 1` are boundaries
            Some(p) => {
                self.rest = rest.get(p + 1..);
                rest.get(..p).map(trim_raw)
            }
            None => {
                self.rest = None;
                Some(trim_raw(rest))
            }
        }
    }
}

/// Splits the raw text of a list-typed field (`list ::= ( element ( SEP
/// element )* )?`) into elements, pushed to `out` (cleared first).
///
/// An empty field is the empty list; a trailing separator adds an empty last
/// element. Offsets in errors are relative to `raw`.
///
/// Quoted elements are read by a byte-level fast path that falls back to
/// the `nom` production `quoted` on anything it does not decide alone;
/// [`split_list_nom`] reads them with `nom` only (the reference of the fuzz
/// target `lexer_equivalence`).
pub fn split_list<'a>(
    raw: &'a str,
    sep: char,
    out: &mut Vec<Element<'a>>,
) -> Result<(), SyntaxError> {
    list_with(raw, sep, out, true, Decode::All)
}

/// [`split_list`] for checking only: the same elements, markers and
/// errors, but an unquoted element keeps its escapes as written (its text
/// is not decoded, so nothing is allocated for it). For a list whose
/// elements are `str` and will not be read (validation): every escape is
/// still checked, by the field splitter.
pub fn split_list_undecoded<'a>(
    raw: &'a str,
    sep: char,
    out: &mut Vec<Element<'a>>,
) -> Result<(), SyntaxError> {
    list_with(raw, sep, out, true, Decode::Quoted)
}

/// [`split_list_undecoded`] for a walk that reads only the element count,
/// the markers and the errors (the plan's validation walk, ADR 0031): the
/// same elements, markers and errors, but no element is decoded, quoted
/// ones included (a quoted element's text is its body as written, doubled
/// quotes and escapes intact), so nothing is allocated.
pub fn split_list_unread<'a>(
    raw: &'a str,
    sep: char,
    out: &mut Vec<Element<'a>>,
) -> Result<(), SyntaxError> {
    list_with(raw, sep, out, true, Decode::Nothing)
}

/// What [`list_with`] decodes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Decode {
    /// Every element.
    All,
    /// Quoted elements only.
    Quoted,
    /// Nothing.
    Nothing,
}

/// [`split_list`] with every quoted element read by the `nom` production
/// and no byte-level fast path for lists without quotes.
pub fn split_list_nom<'a>(
    raw: &'a str,
    sep: char,
    out: &mut Vec<Element<'a>>,
) -> Result<(), SyntaxError> {
    list_with(raw, sep, out, false, Decode::All)
}

/// The list grammar: each element read into `out` (the grammar's
/// `Element`s, or the direct reader's texts, [`quoted_text_list`]).
fn list_with<'a, O: TakeElements<'a>>(
    raw: &'a str,
    sep: char,
    out: &mut O,
    fast: bool,
    what: Decode,
) -> Result<(), SyntaxError> {
    let decode = what == Decode::All;
    out.restart();
    if raw.is_empty() {
        return Ok(());
    }
    if fast && sep.is_ascii() && out.plain(raw, sep as u8, decode) {
        return Ok(());
    }
    out.restart();
    let mut rest = raw;
    loop {
        rest = skip_ws(rest, sep);
        if rest.starts_with('"') {
            let start = offset_in(raw, rest);
            let read = match fast
                .then(|| quoted_fast(rest, sep, what != Decode::Nothing))
                .flatten()
            {
                Some(r) => r,
                None => {
                    let (after, (text, marker)) =
                        quoted(sep).parse(rest).map_err(|_| SyntaxError {
                            kind: SyntaxErrorKind::UnclosedQuote,
                            offset: start,
                        })?;
                    (after, text, marker)
                }
            };
            let (after, text, inner_marker) = read;
            let mut marked = inner_marker;
            let text = if inner_marker {
                match text {
                    Cow::Borrowed(t) => Cow::Borrowed(&t[..t.len() - 1]),
                    Cow::Owned(mut t) => {
                        t.pop();
                        Cow::Owned(t)
                    }
                }
            } else {
                text
            };
            let mut after = skip_ws(after, sep);
            if let Some(a) = after.strip_prefix('*') {
                marked = true;
                after = skip_ws(a, sep);
            }
            out.take(Element {
                text,
                marked,
                quoted: true,
            });
            if after.is_empty() {
                return Ok(());
            }
            if !after.starts_with(sep) {
                return Err(SyntaxError {
                    kind: SyntaxErrorKind::TextAfterQuote,
                    offset: offset_in(raw, after),
                });
            }
            rest = &after[sep.len_utf8()..];
        } else {
            let end = find_sep(rest, sep).unwrap_or(rest.len());
            push_plain(&rest[..end], true, sep, out, decode);
            if end == rest.len() {
                return Ok(());
            }
            rest = &rest[end + sep.len_utf8()..];
        }
        if rest.is_empty() {
            // trailing separator: an empty last element
            out.take(Element {
                text: Cow::Borrowed(""),
                marked: false,
                quoted: false,
            });
            return Ok(());
        }
    }
}

/// Splits a header entry at its first unescaped `=`: `(key_raw, value_raw)`,
/// both trimmed, or `None` when there is no unescaped `=`.
pub fn split_entry(raw: &str) -> Option<(&str, &str)> {
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let p = memchr2(b'=', b'\\', &bytes[i..])? + i;
        if bytes[p] == b'=' {
            return Some((trim_raw(&raw[..p]), trim_raw(&raw[p + 1..])));
        }
        i = p + 1 + raw[p + 1..].chars().next().map_or(0, char::len_utf8);
    }
    None
}

#[cfg(test)]
mod tests;
