//! The writing side of the grammar: the canonical escaped spelling of
//! values (SPEC 1.1 §3.3–§3.4). The serializer never emits quotes except
//! `""` for an empty list element.

/// Appends `text` escaped for a scalar field or header value: `\` → `\\`,
/// `|` → `\|`, a line break (LF, CRLF or a lone CR) → `\n`.
#[inline(always)]
pub fn escape_scalar_into(out: &mut String, text: &str) {
    if text.len() >= LONG_TEXT {
        return escape_long(out, text);
    }
    escape_chars(out, text, None);
}

/// Appends `text` escaped for a scalar field or header value under the list
/// separator `sep`: as [`escape_scalar_into`], and when `sep` is whitespace
/// (a TAB), a separator at either edge is written `\<sep>`, which parsing
/// keeps where it would trim the bare character (SPEC 1.1 §3.3). Inner
/// separators stay bare, as in [`escape_scalar_into`].
#[inline(always)]
pub fn escape_scalar_sep_into(out: &mut String, text: &str, sep: char) {
    if !super::is_space(sep) {
        return escape_scalar_into(out, text);
    }
    let (lead, rest) = match text.strip_prefix(sep) {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (body, trail) = match rest.strip_suffix(sep) {
        Some(body) => (body, true),
        None => (rest, false),
    };
    if lead {
        out.push('\\');
        out.push(sep);
    }
    escape_scalar_into(out, body);
    if trail {
        out.push('\\');
        out.push(sep);
    }
}

#[inline(always)]
fn escape_chars(out: &mut String, text: &str, sep: Option<char>) {
    // One pass over the bytes: runs with nothing to escape are found
    // sixteen bytes at a time (`scan::find_escape_candidate`) and copied
    // whole; a separator is found by its first byte, which never occurs
    // inside another character.
    let mut buf = [0u8; 4];
    let sep: &[u8] = match sep {
        Some(c) if c.is_ascii() => {
            buf[0] = c as u8;
            &buf[..1]
        }
        Some(c) => c.encode_utf8(&mut buf).as_bytes(),
        None => &[],
    };
    match sep.first() {
        Some(&s) => escape_runs::<true>(out, text, sep, s),
        None => escape_runs::<false>(out, text, sep, 0),
    }
}

/// [`escape_chars`] once the separator is known: `SEP` says whether there
/// is one, `first` is its first byte.
#[inline(always)]
fn escape_runs<const SEP: bool>(out: &mut String, text: &str, sep: &[u8], first: u8) {
    let bytes = text.as_bytes();
    let (mut run, mut i) = (0, 0);
    loop {
        i = super::scan::find_escape_candidate::<SEP>(bytes, i, first);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        match b {
            // `\`, `|` and the separator are written after a backslash:
            // the character itself starts the next run
            b'\\' | b'|' => {}
            // an ASCII separator is its first byte (no slice compare:
            // `starts_with` on a slice of unknown length calls `memcmp`)
            _ if SEP && b == first && (sep.len() == 1 || bytes[i..].starts_with(sep)) => {}
            // a line break (LF, CRLF or a lone CR) is written `\n`
            b'\n' | b'\r' => {
                i = put_line_break(out, text, run, i, b);
                run = i;
                continue;
            }
            // another control byte below CR: nothing to escape
            _ => {
                i += 1;
                continue;
            }
        }
        // `i` is at an ASCII byte or at the first byte of the separator:
        // a character boundary
        out.push_str(&text[run..i]);
        out.push('\\');
        run = i;
        i += if b.is_ascii() { 1 } else { sep.len() };
    }
    out.push_str(&text[run..]);
}

/// Appends the run `text[run..i]` and `\n` for the line break `b` at
/// `i` (LF, CRLF or a lone CR: one `\n` each); returns the first byte past
/// it, where the next run starts. The search and the block walk both
/// write a line break through it.
#[inline(always)]
fn put_line_break(out: &mut String, text: &str, run: usize, i: usize, b: u8) -> usize {
    out.push_str(&text[run..i]);
    out.push_str("\\n");
    if b == b'\r' && text.as_bytes().get(i + 1) == Some(&b'\n') {
        i + 2
    } else {
        i + 1
    }
}

/// The length from which [`escape_scalar_into`] finds a text's escapes
/// on its 64-byte block masks in the machine's widest lanes
/// ([`escape_long`]) instead of searching sixteen bytes a step from one
/// escape to the next (ADR 0064). Notes' serializer took 0.91–0.93 the
/// time at 128; at 64, no less, and quiz's 1.008 (its shorter texts pay
/// for the walk's call). A list element keeps the search: with the
/// separator in the masks, rubric's took 1.12–1.13 the time.
const LONG_TEXT: usize = 128;

/// [`escape_scalar_into`] for a text of at least [`LONG_TEXT`] bytes, run
/// in the widest lanes the machine has
/// ([`widest`](super::scan::widest)): each 64-byte block's candidates
/// (LF, CR, `\` and `|`) found at once, taken bit by bit, and the runs
/// between them copied whole. The same text as the search. Out of line:
/// a short text's path keeps its registers.
#[inline(never)]
fn escape_long(out: &mut String, text: &str) {
    super::scan::widest(EscapeLong { out, text })
}

/// [`escape_long`]'s walk.
struct EscapeLong<'o, 'a> {
    out: &'o mut String,
    text: &'a str,
}

impl super::scan::LaneWalk for EscapeLong<'_, '_> {
    type Output = ();

    #[inline(always)]
    fn walk<L: super::scan::Lanes>(self, lanes: L) {
        let EscapeLong { out, text } = self;
        let bytes = text.as_bytes();
        // where the next run to copy starts, the first byte not yet
        // decided (past a CRLF's LF), the block's first byte
        let (mut run, mut next, mut base) = (0usize, 0usize, 0usize);
        while base < bytes.len() {
            let mut found = super::scan::Block::load_in(lanes, bytes, base)
                .mask_any([b'\\', b'|', b'\n', b'\r']);
            while found != 0 {
                let i = base + found.trailing_zeros() as usize;
                found &= found - 1;
                if i < next {
                    continue;
                }
                let b = bytes[i];
                if b == b'\n' || b == b'\r' {
                    // a line break is written `\n`
                    next = put_line_break(out, text, run, i, b);
                    run = next;
                } else {
                    // `\` and `|` are written after a backslash: the
                    // character itself starts the next run
                    out.push_str(&text[run..i]);
                    out.push('\\');
                    run = i;
                    next = i + 1;
                }
            }
            base += 64;
        }
        out.push_str(&text[run..]);
    }
}

/// The escaping rules written out one character at a time, as SPEC 1.1
/// §3.3 states them: the definition the one-pass escaper is tested against
/// (unit tests) and the fuzz oracles' escaped spelling (`mini::fuzzing`).
/// `sep`: the list separator, escaped too (elements and components).
#[cfg(test)]
pub(crate) fn escape_definition(text: &str, sep: Option<char>) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '\n' => out.push_str("\\n"),
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push_str("\\n");
            }
            c if Some(c) == sep => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Appends `text` escaped as a list element or tuple component: like a
/// scalar, plus the separator (`\<sep>`), a trailing `*` (`\*`) and a leading
/// `"` (`\"`); the empty string is written `""`.
#[inline(always)]
pub fn escape_element_into(out: &mut String, text: &str, sep: char) {
    if text.is_empty() {
        out.push_str("\"\"");
        return;
    }
    if text.starts_with('"') {
        out.push('\\');
    }
    let (body, star) = match text.strip_suffix('*') {
        Some(b) => (b, true),
        None => (text, false),
    };
    escape_chars(out, body, Some(sep));
    if star {
        out.push_str("\\*");
    }
}

/// [`escape_scalar_into`] into a new string.
pub fn escape_scalar(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    escape_scalar_into(&mut s, text);
    s
}

/// [`escape_element_into`] into a new string.
pub fn escape_element(text: &str, sep: char) -> String {
    let mut s = String::with_capacity(text.len() + 2);
    escape_element_into(&mut s, text, sep);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_escapes() {
        assert_eq!(escape_scalar("a|b\\c\r\nd\re"), "a\\|b\\\\c\\nd\\ne");
        assert_eq!(escape_element("\"a", ','), "\\\"a");
        assert_eq!(escape_element("b*", ','), "b\\*");
        assert_eq!(escape_element("c,d", ','), "c\\,d");
        assert_eq!(escape_element("c;d,e", ';'), "c\\;d,e");
        assert_eq!(escape_element("", ','), "\"\"");
        assert_eq!(escape_element("a\\*", ','), "a\\\\\\*");
        assert_eq!(escape_element("x·y\r", '·'), "x\\·y\\n");
        assert_eq!(escape_element("a\tb", '\t'), "a\\\tb");
        assert_eq!(escape_scalar("é|\r\r\n"), "é\\|\\n\\n");
    }

    #[test]
    fn a_whitespace_separator_at_a_scalar_edge_is_escaped() {
        let esc = |t: &str, sep: char| {
            let mut s = String::new();
            escape_scalar_sep_into(&mut s, t, sep);
            s
        };
        assert_eq!(esc("\tx\ty\t", '\t'), "\\\tx\ty\\\t");
        assert_eq!(esc("\t", '\t'), "\\\t");
        assert_eq!(esc("\t\t", '\t'), "\\\t\\\t");
        assert_eq!(esc("\t|\t", '\t'), "\\\t\\|\\\t");
        // a separator that is not whitespace is never trimmed: as a scalar
        assert_eq!(esc(";x;", ';'), ";x;");
        assert_eq!(esc("\tx", ','), "\tx");
    }

    /// The one-pass escaper against the character-by-character definition.
    #[test]
    fn one_pass_matches_the_definition() {
        let alphabet = [
            'a', '\\', '|', '\n', '\r', ',', ';', '\t', '·', 'é', '😀', '*', '"', ' ',
            // the separator `·` (C2 B7)'s first byte, in another character
            '§',
            // control bytes below CR (candidates that need no escape), the
            // first byte above them, and DEL
            '\u{1}', '\u{e}', '\u{7f}',
        ];
        let mut rng = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        for round in 0..20_000 {
            // short texts (one padded read), longer ones (sixteen-byte
            // steps, an overlapping tail), and long scalars (64-byte
            // blocks, escapes across a block's edge, an overlapping last
            // block)
            let len = (rng() % [12, 70, 300][round % 3]) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(rng() % alphabet.len() as u64) as usize])
                .collect();
            for sep in [None, Some(','), Some(';'), Some('\t'), Some('·')] {
                let want = escape_definition(&text, sep);
                let Some(_) = sep else {
                    // a scalar: a long one's blocks in every width of
                    // lanes the machine has (the only path that asks for
                    // lanes)
                    for bits in [128, 256, 512] {
                        crate::syntax::scan::tests::in_lanes_up_to(bits, || {
                            let mut out = String::new();
                            escape_scalar_into(&mut out, &text);
                            assert_eq!(out, want, "{text:?} lanes <= {bits}");
                        });
                    }
                    continue;
                };
                let mut out = String::new();
                escape_chars(&mut out, &text, sep);
                assert_eq!(out, want, "{text:?} {sep:?}");
            }
        }
    }
}
