//! The writing side of the grammar: the canonical escaped spelling of
//! values (SPEC 1.1 §3.3–§3.4). The serializer never emits quotes except
//! `""` for an empty list element.

/// Appends `text` escaped for a scalar field or header value: `\` → `\\`,
/// `|` → `\|`, a line break (LF, CRLF or a lone CR) → `\n`.
pub fn escape_scalar_into(out: &mut String, text: &str) {
    escape_chars(out, text, None);
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
    // fast path: nothing to escape (a table lookup per byte)
    let sep_byte = match sep {
        None => Some(b'\\'),
        Some(c) if c.is_ascii() => Some(c as u8),
        Some(_) => None,
    };
    if let Some(sb) = sep_byte {
        if !text.bytes().any(|b| ESCAPED[usize::from(b)] || b == sb) {
            out.push_str(text);
            return;
        }
    }
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
    }
}
