//! Syntax: physical lines and the `nom` grammar of one line (SPEC 1.1 §3–§4).
//!
//! This layer knows the list separator and nothing else of a contract. It
//! never allocates for text without escapes: decoded values are
//! [`std::borrow::Cow`]s that borrow from the input.

mod lex;
mod scan;
mod write;

pub use lex::{
    is_escapable, is_space, split_entry, split_fields, split_fields_fast, split_fields_nom,
    split_list, split_list_nom, trim_raw, unescape, unescape_into, Element, RawField, SyntaxError,
    SyntaxErrorKind, ESCAPE, FIELD_SEP, MARKER, QUOTE,
};
pub use write::{
    escape_element, escape_element_into, escape_scalar, escape_scalar_into, escape_scalar_sep_into,
};

/// One significant physical line of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based physical line number (blank lines are counted).
    pub number: usize,
    /// The line without its LF and without one CR before it.
    pub text: &'a str,
}

/// Iterator over the significant lines of a document: a leading BOM is
/// skipped, a CR before LF is dropped, blank (whitespace-only) lines are
/// skipped but counted.
#[derive(Debug, Clone)]
pub struct Lines<'a> {
    rest: Option<&'a str>,
    number: usize,
}

/// The significant lines of `text` (SPEC 1.1 §3.1).
pub fn lines(text: &str) -> Lines<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    Lines {
        rest: Some(text),
        number: 0,
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = Line<'a>;

    fn next(&mut self) -> Option<Line<'a>> {
        loop {
            let rest = self.rest?;
            self.number += 1;
            let (line, tail) = match memchr::memchr(b'\n', rest.as_bytes()) {
                Some(p) => (&rest[..p], Some(&rest[p + 1..])),
                None => (rest, None),
            };
            self.rest = tail;
            let line = line.strip_suffix('\r').unwrap_or(line);
            if is_blank(line) {
                continue;
            }
            return Some(Line {
                number: self.number,
                text: line,
            });
        }
    }
}

/// True for a line that holds only whitespace.
pub fn is_blank(line: &str) -> bool {
    line.chars().all(is_space)
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
}
