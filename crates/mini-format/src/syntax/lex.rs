//! The `nom` grammar of one line: fields, escapes, list elements, quotes and
//! markers (SPEC 1.1 §3–§4). It knows the list separator and nothing else of
//! the contract. Every production is linear in the length of the line: the
//! plain runs between structural characters are found with `memchr`.

use std::borrow::Cow;

use memchr::memchr2;
use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::character::complete::anychar;
use nom::combinator::{consumed, map, opt};
use nom::multi::fold_many0;
use nom::sequence::preceded;
use nom::{IResult, Parser};

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

#[inline(always)]
fn push_field<'a>(
    line: &'a str,
    start: usize,
    end: usize,
    escaped: bool,
    out: &mut Vec<RawField<'a>>,
) {
    let trimmed = trim_raw(&line[start..end]);
    out.push(RawField {
        raw: trimmed,
        escaped: escaped && find_backslash(trimmed.as_bytes()).is_some(),
        offset: offset_in(line, trimmed),
    });
}

/// The byte-level field splitter: `memchr2` finds each `|` and `\`; a
/// valid escape is skipped with the character it protects. Returns false,
/// with `out` cleared, at the first invalid or dangling escape (the `nom`
/// grammar then splits the line and reports it).
pub fn split_fields_fast<'a>(line: &'a str, sep: char, out: &mut Vec<RawField<'a>>) -> bool {
    use super::scan::{escaped_bits, Block};
    out.clear();
    let Ok(sep_byte) = u8::try_from(sep) else {
        return split_fields_memchr(line, sep, out);
    };
    if !sep.is_ascii() {
        return split_fields_memchr(line, sep, out);
    }
    let bytes = line.as_bytes();
    let (mut start, mut carry, mut base) = (0usize, 0u64, 0usize);
    // whether the field being read has a backslash so far
    let mut escaped = false;
    while base < bytes.len() {
        let [mut pipes, backslash] = Block::read(bytes, base, [b'|', b'\\']);
        if backslash != 0 || carry != 0 {
            let esc = escaped_bits(backslash, &mut carry);
            // an escape of anything else (a dangling one escapes the zero
            // past the end): the grammar reports it
            if esc & !Block::escapable(bytes, base, sep_byte) != 0 {
                out.clear();
                return false;
            }
            pipes &= !esc;
        }
        // bits of the block at or above the current field's start
        let mut from = start.saturating_sub(base);
        while pipes != 0 {
            let k = pipes.trailing_zeros() as usize;
            pipes &= pipes - 1;
            escaped |= backslash & bits_between(from, k) != 0;
            push_field_exact(line, start, base + k, escaped, out);
            start = base + k + 1;
            from = k + 1;
            escaped = false;
        }
        escaped |= backslash & bits_between(from, 64) != 0;
        base += 64;
    }
    if carry != 0 {
        // a dangling backslash at the end of a 64-byte block
        out.clear();
        return false;
    }
    push_field_exact(line, start, bytes.len(), escaped, out);
    true
}

/// The bits `lo..hi` of a block's mask (`lo <= hi <= 64`).
#[inline(always)]
fn bits_between(lo: usize, hi: usize) -> u64 {
    let below_hi = 1u64.checked_shl(hi as u32).map_or(u64::MAX, |b| b - 1);
    let below_lo = 1u64.checked_shl(lo as u32).map_or(u64::MAX, |b| b - 1);
    below_hi & !below_lo
}

/// [`push_field`] when `escaped` is exact: whether the field has a
/// backslash (trimming takes none away: a backslash is no whitespace).
#[inline(always)]
fn push_field_exact<'a>(
    line: &'a str,
    start: usize,
    end: usize,
    escaped: bool,
    out: &mut Vec<RawField<'a>>,
) {
    let trimmed = trim_raw(&line[start..end]);
    out.push(RawField {
        raw: trimmed,
        escaped,
        offset: offset_in(line, trimmed),
    });
}

/// [`split_fields_fast`] under a separator that is not ASCII: `memchr2`
/// finds each `|` and `\`; a valid escape is skipped with the character it
/// protects.
fn split_fields_memchr<'a>(line: &'a str, sep: char, out: &mut Vec<RawField<'a>>) -> bool {
    out.clear();
    let bytes = line.as_bytes();
    let (mut start, mut from, mut escaped) = (0, 0, false);
    while let Some(p) = memchr2(b'|', b'\\', &bytes[from..]) {
        let at = from + p;
        if bytes[at] == b'|' {
            push_field(line, start, at, escaped, out);
            start = at + 1;
            from = at + 1;
            escaped = false;
            continue;
        }
        // `\` is one byte: `at + 1` is a character boundary
        match line[at + 1..].chars().next() {
            Some(c) if is_escapable(c, sep) => {
                escaped = true;
                from = at + 1 + c.len_utf8();
            }
            _ => {
                out.clear();
                return false;
            }
        }
    }
    push_field(line, start, bytes.len(), escaped, out);
    true
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
#[inline]
pub fn trim_raw(s: &str) -> &str {
    // fast path: ASCII edges that are not whitespace (nothing to trim)
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (None, _) => return s,
        (Some(&f), Some(&l)) if !maybe_space(f) && !maybe_space(l) => return s,
        _ => {}
    }
    trim_raw_slow(s)
}

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

/// Resolves the escapes of raw text. Invalid escapes are kept literally (the
/// lexer has already reported them); a dangling backslash is kept too.
pub fn unescape(raw: &str, sep: char) -> String {
    let mut out = String::with_capacity(raw.len());
    unescape_into(raw, sep, &mut out);
    out
}

/// [`unescape`] into an existing buffer (appends).
pub fn unescape_into(raw: &str, sep: char, out: &mut String) {
    let mut rest = raw;
    while let Some(pos) = find_backslash(rest.as_bytes()) {
        out.push_str(&rest[..pos]);
        let mut chars = rest[pos + 1..].chars();
        match chars.next() {
            Some('n') => out.push('\n'),
            Some(c) if is_escapable(c, sep) => out.push(c),
            Some(c) => {
                out.push('\\');
                out.push(c);
            }
            None => out.push('\\'),
        }
        rest = chars.as_str();
    }
    out.push_str(rest);
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
/// `memchr2` finds each `"` and `\`; a doubled `""` and a valid escape
/// are decoded, and the text is borrowed when it has neither. Gives the
/// same `(rest, text, marker before the closing quote)` as [`quoted`], and
/// `None` on anything it does not decide alone (a missing closing quote,
/// an invalid or dangling escape): the `nom` production then reads it.
///
/// When `decode` is false (validation: the text is not read), the body is
/// given as written, doubled quotes and escapes intact, without the second
/// pass.
fn quoted_fast(text: &str, sep: char, decode: bool) -> Option<(&str, Cow<'_, str>, bool)> {
    let body = text.strip_prefix('"')?;
    // first pass: where the element closes, and whether it has pieces to
    // decode; the second pass decodes into a string of the right size
    let (close, last_marker, plain) = match u8::try_from(sep) {
        Ok(b) if b.is_ascii() => find_close(body, b)?,
        _ => scan_quoted(body, sep, None)?,
    };
    let decoded = if plain || !decode {
        Cow::Borrowed(&body[..close])
    } else {
        let mut s = String::with_capacity(close);
        scan_quoted(body, sep, Some(&mut s))?;
        Cow::Owned(s)
    };
    Some((&body[close + 1..], decoded, last_marker))
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
        let at = from + memchr2(b'"', b'\\', &b[from..])?;
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

/// [`scan_quoted`]'s first pass under an ASCII separator, on the block
/// masks (64 bytes a step, escapes by the odd-run rule): the closing
/// quote's offset, whether the last piece is a plain run ending in `*`,
/// and whether the body before it has no `""` or escape. `None` when an
/// escape before the close is not one (or dangles), or nothing closes.
fn find_close(body: &str, sep: u8) -> Option<(usize, bool, bool)> {
    use super::scan::{escaped_bits, Block};
    let bytes = body.as_bytes();
    let (mut carry, mut base) = (0u64, 0usize);
    // quotes before `skip` are the second of a `""`; `plain`: no `""` or
    // backslash so far; whether the last byte of the previous block was
    // escaped
    let (mut skip, mut plain, mut last_escaped) = (0usize, true, false);
    loop {
        if base > bytes.len() {
            return None;
        }
        let [mut quotes, backslash] = Block::read(bytes, base, [b'"', b'\\']);
        let mut esc = 0;
        let mut invalid = 0;
        if backslash != 0 || carry != 0 {
            esc = escaped_bits(backslash, &mut carry);
            invalid = esc & !Block::escapable(bytes, base, sep);
            quotes &= !esc;
        }
        while quotes != 0 {
            let k = quotes.trailing_zeros() as usize;
            quotes &= quotes - 1;
            let at = base + k;
            if at < skip {
                continue;
            }
            if bytes.get(at + 1) == Some(&b'"') {
                plain = false;
                skip = at + 2;
                continue;
            }
            // the close: what came before it in this block counts
            let below = (1u64 << k) - 1;
            if invalid & below != 0 {
                return None;
            }
            plain &= backslash & below == 0;
            let before_escaped = match k {
                0 => last_escaped,
                _ => esc >> (k - 1) & 1 == 1,
            };
            let marker = at > 0 && bytes[at - 1] == b'*' && !before_escaped && at > skip;
            return Some((at, marker, plain));
        }
        if invalid != 0 {
            return None;
        }
        plain &= backslash == 0;
        last_escaped = esc >> 63 == 1;
        base += 64;
        if base >= bytes.len() {
            return None;
        }
    }
}

fn skip_ws(s: &str, sep: char) -> &str {
    if s.as_bytes().first().is_none_or(|&b| !maybe_space(b)) {
        return s;
    }
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

/// The list fast path: without a quote, every element is a run up to the
/// next unescaped separator, found 64 bytes at a time from the block's
/// masks (`scan::Block`; escapes resolved by the odd-run rule, no search
/// restarted at each backslash), decoded like the unquoted branch of
/// [`split_list`]. Returns false, having pushed nothing that
/// counts, when the text has a `"` (the quoted grammar decides).
#[inline(always)]
fn plain_list<'a>(raw: &'a str, sep: u8, out: &mut Vec<Element<'a>>, decode: bool) -> bool {
    use super::scan::{escaped_bits, Block};
    let bytes = raw.as_bytes();
    let (mut start, mut carry, mut base) = (0usize, 0u64, 0usize);
    // whether the element being read has a backslash so far
    let mut escaped = false;
    while base < bytes.len() {
        let [mut seps, backslash, quote] = Block::read(bytes, base, [sep, b'\\', b'"']);
        let mut quote = quote;
        if backslash != 0 || carry != 0 {
            // the byte after an escaping backslash is never structural (a
            // multi-byte character's continuation bytes never are)
            let esc = escaped_bits(backslash, &mut carry);
            seps &= !esc;
            quote &= !esc;
        }
        if quote != 0 {
            return false;
        }
        let mut from = start.saturating_sub(base);
        while seps != 0 {
            let k = seps.trailing_zeros() as usize;
            seps &= seps - 1;
            escaped |= backslash & bits_between(from, k) != 0;
            push_plain::<true>(&raw[start..base + k], escaped, char::from(sep), out, decode);
            start = base + k + 1;
            from = k + 1;
            escaped = false;
        }
        escaped |= backslash & bits_between(from, 64) != 0;
        base += 64;
    }
    push_plain::<true>(&raw[start..], escaped, char::from(sep), out, decode);
    true
}

/// The number of elements of a list whose elements are not read (the
/// plan's validation walk of a `str` list: count and markers only), from
/// the block masks alone: the unescaped separators plus one. `None` when
/// the text has an unescaped `"` or `*` (a quoted element or a marker: the
/// element path decides); an empty text is the empty list.
pub fn count_plain_list(raw: &str, sep: char) -> Option<usize> {
    use super::scan::{escaped_bits, Block};
    let sep = u8::try_from(sep)
        .ok()
        .filter(|b| b.is_ascii() && !matches!(b, b'*' | b'"'))?;
    let bytes = raw.as_bytes();
    match bytes.first() {
        None => return Some(0),
        // a quoted first element (`raw` is trimmed): not counted here
        Some(b'"') => return None,
        Some(_) => {}
    }
    let (mut count, mut carry, mut base) = (1, 0u64, 0);
    while base < bytes.len() {
        let [mut seps, backslash, quote, star] = Block::read(bytes, base, [sep, b'\\', b'"', b'*']);
        let mut other = quote | star;
        if backslash != 0 || carry != 0 {
            let esc = escaped_bits(backslash, &mut carry);
            seps &= !esc;
            other &= !esc;
        }
        if other != 0 {
            return None;
        }
        count += seps.count_ones() as usize;
        base += 64;
    }
    Some(count)
}

/// One unquoted element: trimmed, its marker read (a `*` not escaped by an
/// odd run of backslashes), its escapes resolved when `escaped` says the
/// text may have some.
#[inline(always)]
fn push_plain<'a, const SURE: bool>(
    part: &'a str,
    escaped: bool,
    sep: char,
    out: &mut Vec<Element<'a>>,
    decode: bool,
) {
    let mut part = trim_raw(part);
    let mut marked = false;
    if part.ends_with('*') {
        let backslashes = if escaped {
            part.as_bytes()[..part.len() - 1]
                .iter()
                .rev()
                .take_while(|&&b| b == b'\\')
                .count()
        } else {
            0
        };
        if backslashes % 2 == 0 {
            marked = true;
            part = trim_raw(&part[..part.len() - 1]);
        }
    }
    // `SURE`: `escaped` says the element has a backslash (the list fast
    // path saw one; trimming and the marker never take one away)
    let text = if decode && escaped && (SURE || find_backslash(part.as_bytes()).is_some()) {
        Cow::Owned(unescape(part, sep))
    } else {
        Cow::Borrowed(part)
    };
    out.push(Element {
        text,
        marked,
        quoted: false,
    });
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

fn list_with<'a>(
    raw: &'a str,
    sep: char,
    out: &mut Vec<Element<'a>>,
    fast: bool,
    what: Decode,
) -> Result<(), SyntaxError> {
    let decode = what == Decode::All;
    out.clear();
    if raw.is_empty() {
        return Ok(());
    }
    if fast && sep.is_ascii() && plain_list(raw, sep as u8, out, decode) {
        return Ok(());
    }
    out.clear();
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
            out.push(Element {
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
            push_plain::<false>(&rest[..end], true, sep, out, decode);
            if end == rest.len() {
                return Ok(());
            }
            rest = &rest[end + sep.len_utf8()..];
        }
        if rest.is_empty() {
            // trailing separator: an empty last element
            out.push(Element {
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
mod tests {
    use super::*;

    fn fields(line: &str, sep: char) -> (Vec<String>, usize) {
        let mut out = Vec::new();
        let mut errs = Vec::new();
        split_fields(line, sep, &mut out, &mut errs);
        (
            out.iter().map(|f| f.text(sep).into_owned()).collect(),
            errs.len(),
        )
    }

    fn list(raw: &str, sep: char) -> Result<Vec<(String, bool)>, SyntaxErrorKind> {
        let mut out = Vec::new();
        split_list(raw, sep, &mut out).map_err(|e| e.kind)?;
        Ok(out
            .into_iter()
            .map(|e| (e.text.into_owned(), e.marked))
            .collect())
    }

    #[test]
    fn fields_split_on_unescaped_pipes_and_trim() {
        assert_eq!(
            fields(" a | b\\|c |", ','),
            (vec!["a".into(), "b|c".into(), "".into()], 0)
        );
        assert_eq!(fields("", ','), (vec!["".into()], 0));
        assert_eq!(fields("a\\n x", ','), (vec!["a\n x".into()], 0));
    }

    #[test]
    fn bad_escapes_are_reported_and_kept_literally() {
        assert_eq!(
            fields("a\\qb|c", ','),
            (vec!["a\\qb".into(), "c".into()], 1)
        );
        assert_eq!(fields("a\\", ','), (vec!["a\\".into()], 1));
        assert_eq!(fields("a\\;", ','), (vec!["a\\;".into()], 1));
        assert_eq!(fields("a\\;", ';'), (vec!["a;".into()], 0));
        // `\,` is valid whatever the separator
        assert_eq!(fields("a\\,", ';'), (vec!["a,".into()], 0));
    }

    #[test]
    fn information_separators_are_whitespace() {
        assert_eq!(trim_raw("\u{1f}a\u{3000}"), "a");
    }

    #[test]
    fn escaped_whitespace_separator_survives_trimming() {
        assert_eq!(trim_raw("a\\\t"), "a\\\t");
        assert_eq!(trim_raw("a\\\\\t"), "a\\\\");
        assert_eq!(trim_raw("  a  "), "a");
    }

    #[test]
    fn lists_markers_and_quotes() {
        assert_eq!(list("", ','), Ok(vec![]));
        assert_eq!(
            list("a*, b ,c", ','),
            Ok(vec![
                ("a".into(), true),
                ("b".into(), false),
                ("c".into(), false)
            ])
        );
        assert_eq!(
            list("a,", ','),
            Ok(vec![("a".into(), false), ("".into(), false)])
        );
        assert_eq!(list("a\\*", ','), Ok(vec![("a*".into(), false)]));
        assert_eq!(
            list("\"x, y\"*,z", ','),
            Ok(vec![("x, y".into(), true), ("z".into(), false)])
        );
        assert_eq!(
            list("\"x*\",z", ','),
            Ok(vec![("x".into(), true), ("z".into(), false)])
        );
        assert_eq!(
            list("\"x\\*\",z", ','),
            Ok(vec![("x*".into(), false), ("z".into(), false)])
        );
        assert_eq!(
            list("\"say \"\"hi\"\"\"", ','),
            Ok(vec![("say \"hi\"".into(), false)])
        );
        assert_eq!(list("\"\"", ','), Ok(vec![("".into(), false)]));
        assert_eq!(
            list("\\\"a,b", ','),
            Ok(vec![("\"a".into(), false), ("b".into(), false)])
        );
        assert_eq!(list("a\"b", ','), Ok(vec![("a\"b".into(), false)]));
        assert_eq!(list("\"open", ','), Err(SyntaxErrorKind::UnclosedQuote));
        assert_eq!(list("\"a\"x,b", ','), Err(SyntaxErrorKind::TextAfterQuote));
        assert_eq!(
            list("a;b\\;c", ';'),
            Ok(vec![("a".into(), false), ("b;c".into(), false)])
        );
    }

    /// The block splitter (64 bytes a step, escapes resolved by the
    /// odd-run rule) against the grammar on long random lines: runs of
    /// backslashes across block edges, dangling and invalid escapes,
    /// non-ASCII text, every separator kind.
    #[test]
    fn the_block_splitter_agrees_with_the_grammar() {
        // escapes as pairs (valid under some separator), a lone backslash
        // now and then (dangling or invalid)
        let tokens = [
            "a", "|", r"\\", r"\|", r"\,", r"\;", r"\n", r"\*", "\\\t", r"\·", r#"\""#, ",", ";",
            "*", "\"", "n", " ", "\t", "é", "·", "xyz",
        ];
        let mut rng = crate::test_rng(0x5eed_b10c_4a11_0001);
        let mut fast = 0;
        for round in 0..20_000 {
            let len = (rng() % 120) as usize;
            let mut line: String = (0..len)
                .map(|_| tokens[(rng() % tokens.len() as u64) as usize])
                .collect();
            if round % 7 == 0 {
                let at = (rng() as usize % (line.len() + 1)..=line.len())
                    .find(|&i| line.is_char_boundary(i))
                    .unwrap_or(line.len());
                line.insert(at, '\\');
            }
            for sep in [',', ';', '\t', '·'] {
                let (mut a, mut b, mut ea, mut eb) = (vec![], vec![], vec![], vec![]);
                fast += usize::from(split_fields_fast(&line, sep, &mut a));
                split_fields(&line, sep, &mut a, &mut ea);
                split_fields_nom(&line, sep, &mut b, &mut eb);
                assert_eq!((&a, &ea), (&b, &eb), "{line:?} {sep:?}");
            }
        }
        assert!(fast > 3_000, "the block splitter took {fast} lines");
    }

    /// The element count from the masks is the element path's, on every
    /// list it takes (no unescaped quote or marker), and it declines the
    /// others.
    #[test]
    fn the_counted_list_is_the_split_list() {
        let tokens = [
            "a", ",", ";", r"\,", r"\\", r"\*", r#"\""#, " ", "é", "xyz", "\t",
        ];
        let mut rng = crate::test_rng(0xc0a7_1157_0000_0001);
        let (mut counted, mut declined, mut long) = (0, 0, 0);
        for _ in 0..20_000 {
            // up to three blocks; an unescaped marker or quote now and then
            let len = (rng() % 120) as usize;
            let raw: String = (0..len)
                .map(|_| match rng() % 80 {
                    0 => "*",
                    1 => "\"",
                    k => tokens[(k % tokens.len() as u64) as usize],
                })
                .collect();
            for sep in [',', ';', '\t', '·'] {
                let mut out = vec![];
                let split = split_list_unread(&raw, sep, &mut out);
                match count_plain_list(&raw, sep) {
                    Some(n) => {
                        counted += 1;
                        long += usize::from(raw.len() > 64);
                        assert!(split.is_ok(), "{raw:?} {sep:?}");
                        assert_eq!(n, out.len(), "{raw:?} {sep:?}");
                        assert!(out.iter().all(|e| !e.marked && !e.quoted), "{raw:?}");
                    }
                    None => declined += 1,
                }
            }
        }
        assert!(
            counted > 5_000 && declined > 5_000 && long > 1_000,
            "{counted} {declined} {long}"
        );
    }

    /// Quoted elements found on the block masks (`find_close`) read as the
    /// grammar reads them: texts, markers, errors; and the unread split
    /// (validation) has the grammar's count, markers and errors.
    #[test]
    fn quoted_lists_on_the_masks_read_as_the_grammar() {
        // inside quotes: doubled quotes, escapes (an invalid one rarely),
        // markers, long runs that carry the close into a later block
        let inside = [
            "\"\"",
            r#"\""#,
            "*",
            ",",
            ";",
            r"\\",
            r"\,",
            r"\*",
            r"\n",
            " ",
            "a",
            "é",
            "·",
            "xyz",
            "wwwwwwwwwwwwwwwwwwwwwwww",
        ];
        let outside = ["a", " ", "*", r"\,", "é", "\""];
        let mut rng = crate::test_rng(0x0b10_c0de_0000_0001);
        let mut quoted = 0;
        for _ in 0..30_000 {
            let mut raw = String::new();
            for e in 0..(rng() % 4) {
                if e > 0 {
                    raw.push(if rng() % 8 == 0 { ';' } else { ',' });
                }
                if rng() % 3 == 0 {
                    for _ in 0..(rng() % 4) {
                        raw.push_str(outside[(rng() % outside.len() as u64) as usize]);
                    }
                    continue;
                }
                raw.push_str(if rng() % 4 == 0 { " \"" } else { "\"" });
                for _ in 0..(rng() % 12) {
                    raw.push_str(inside[(rng() % inside.len() as u64) as usize]);
                }
                match rng() % 40 {
                    0 => raw.push_str(r"\q"),
                    1 => raw.push('\\'),
                    _ => {}
                }
                if rng() % 20 != 0 {
                    raw.push('"');
                }
                raw.push_str(["", "*", " *", " ", "x"][(rng() % 5) as usize]);
            }
            for sep in [',', ';', '·'] {
                let (mut fast, mut nom, mut unread) = (vec![], vec![], vec![]);
                let got = split_list(&raw, sep, &mut fast);
                let want = split_list_nom(&raw, sep, &mut nom);
                assert_eq!(got, want, "{raw:?} {sep:?}");
                let un = split_list_unread(&raw, sep, &mut unread);
                assert_eq!(un, want, "unread {raw:?} {sep:?}");
                if want.is_ok() {
                    assert_eq!(fast, nom, "{raw:?} {sep:?}");
                    let shape =
                        |v: &[Element]| v.iter().map(|e| (e.marked, e.quoted)).collect::<Vec<_>>();
                    assert_eq!(shape(&unread), shape(&nom), "unread {raw:?} {sep:?}");
                    quoted += nom.iter().filter(|e| e.quoted).count();
                }
            }
        }
        assert!(quoted > 10_000, "{quoted} quoted elements read");
    }

    #[test]
    fn fast_paths_agree_with_the_grammar() {
        let lines = [
            r#""a\nb","c""d"*,"e\*",x\,y*"#,
            r#""x\|y" , "*" ,"" ,"a*"*"#,
            r#""bad\q",b"#,
            r#""dangling\"#,
            r#""open,b"#,
            r"a\\|b\|c| d \\\	|",
            r"é\·x·\,",
        ];
        for line in lines {
            for sep in [',', ';', '\t', '·'] {
                let (mut a, mut b, mut ea, mut eb) = (vec![], vec![], vec![], vec![]);
                split_fields(line, sep, &mut a, &mut ea);
                split_fields_nom(line, sep, &mut b, &mut eb);
                assert_eq!((&a, &ea), (&b, &eb), "{line:?} {sep:?}");
                let (mut x, mut y) = (vec![], vec![]);
                let got = split_list(line, sep, &mut x);
                let want = split_list_nom(line, sep, &mut y);
                assert_eq!(got, want, "{line:?} {sep:?}");
                if want.is_ok() {
                    assert_eq!(x, y, "{line:?} {sep:?}");
                }
            }
        }
        let mut out = vec![];
        split_list(r#""a\nb"x"#, ',', &mut out).unwrap_err();
        split_list(r#""a\nb""c"*"#, ',', &mut out).unwrap();
        assert_eq!(out[0].text, "a\nb\"c");
        assert!(out[0].marked);
    }

    #[test]
    fn entries_split_at_first_unescaped_equals() {
        assert_eq!(split_entry(" k = a=b "), Some(("k", "a=b")));
        assert_eq!(split_entry("k\\=v"), None);
        assert_eq!(split_entry("noeq"), None);
    }
}
