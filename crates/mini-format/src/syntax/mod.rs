//! Syntax: physical lines and the `nom` grammar of one line (SPEC 1.1 §3–§4).
//!
//! This layer knows the list separator and nothing else of a contract. It
//! never allocates for text without escapes: decoded values are
//! [`std::borrow::Cow`]s that borrow from the input.

mod lex;
mod scan;
pub(crate) use scan::{lanes_name, short_word};
mod write;

pub use lex::{
    count_plain_list, is_escapable, is_space, plain_elements, plain_text_list, quoted_text_list,
    split_entry, split_fields, split_fields_fast, split_fields_nom, split_list, split_list_nom,
    split_list_undecoded, split_list_unread, trim_raw, unescape, unescape_into, unescape_mapped,
    Element, Escapes, PlainElements, RawField, SyntaxError, SyntaxErrorKind, ESCAPE, FIELD_SEP,
    MARKER, QUOTE,
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

/// True for a line that holds only whitespace.
pub fn is_blank(line: &str) -> bool {
    line.chars().all(is_space)
}
