//! The writing side of the grammar: the canonical escaped spelling of
//! values (SPEC 1.1 §3.3–§3.4). The serializer never emits quotes except
//! `""` for an empty list element.

/// Appends `text` escaped for a scalar field or header value: `\` → `\\`,
/// `|` → `\|`, a line break (LF, CRLF or a lone CR) → `\n`.
pub fn escape_scalar_into(out: &mut String, text: &str) {
    escape_chars(out, text, None);
}

/// Appends `text` escaped for a scalar field or header value under the list
/// separator `sep`: as [`escape_scalar_into`], and when `sep` is whitespace
/// (a TAB), a separator at either edge is written `\<sep>`, which parsing
/// keeps where it would trim the bare character (SPEC 1.1 §3.3). Inner
/// separators stay bare, as in [`escape_scalar_into`].
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

/// The bytes every value escapes: `\\`, `|`, LF and CR.
const ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    t[b'\\' as usize] = true;
    t[b'|' as usize] = true;
    t[b'\n' as usize] = true;
    t[b'\r' as usize] = true;
    t
};

fn escape_chars(out: &mut String, text: &str, sep: Option<char>) {
    // One pass over the bytes: runs with nothing to escape are found eight
    // bytes at a time and copied whole; a separator is found by its first
    // byte, which never occurs inside another character.
    let mut buf = [0u8; 4];
    let sep: &[u8] = match sep {
        Some(c) => c.encode_utf8(&mut buf).as_bytes(),
        None => &[],
    };
    // the separator's first byte (a backslash stands for "none": it is
    // escaped anyway)
    let sep_first = sep.first().copied().unwrap_or(b'\\');
    let bytes = text.as_bytes();
    let (mut run, mut i) = (0, 0);
    loop {
        i = super::scan::find_any(bytes, i, [b'\\', b'|', b'\n', b'\r', sep_first]);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        // (the escape written, the bytes it replaces); 0: the separator
        let (escape, len) = if ESCAPED[usize::from(b)] {
            match b {
                b'\\' => ("\\\\", 1),
                b'|' => ("\\|", 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => ("\\n", 2),
                _ => ("\\n", 1),
            }
        } else if b == sep_first && bytes[i..].starts_with(sep) {
            ("\\", 0)
        } else {
            i += 1;
            continue;
        };
        // `i` is at an ASCII byte or at the first byte of the separator:
        // a character boundary
        out.push_str(&text[run..i]);
        out.push_str(escape);
        if len == 0 {
            out.push_str(&text[i..i + sep.len()]);
            i += sep.len();
        } else {
            i += len;
        }
        run = i;
    }
    out.push_str(&text[run..]);
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
        ];
        let mut rng = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..20_000 {
            let state = rng();
            let len = (state % 12) as usize;
            let text: String = (0..len)
                .map(|k| alphabet[((state >> (4 * k)) % alphabet.len() as u64) as usize])
                .collect();
            for sep in [None, Some(','), Some(';'), Some('\t'), Some('·')] {
                let mut out = String::new();
                escape_chars(&mut out, &text, sep);
                assert_eq!(out, escape_definition(&text, sep), "{text:?} {sep:?}");
            }
        }
    }
}
