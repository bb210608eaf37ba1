//! Error codes, diagnostics and the one error type of the crate.
//!
//! Every failure in `mini` is a [`Error`]. Validation failures carry the list
//! of [`Diagnostic`]s the parser (or serializer) found, each with its SPEC 1.1
//! [`Code`], the 1-based physical line (0 for document-level errors such as
//! E01/E04 and for contract errors E20/E21), the field when one applies, and a
//! human message. Positions are only computed when an error happens.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The error codes of SPEC 1.1 §8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Code {
    /// The header line is missing (empty document).
    E01,
    /// The header prefix does not match the contract.
    E02,
    /// The header has no `n`.
    E03,
    /// The number of record lines differs from `n`.
    E04,
    /// The record has fewer fields than the core, or undeclared excess fields.
    E05,
    /// A scalar does not match its type, or a required value is empty.
    E06,
    /// List or tuple arity out of `min`/`max`, different from the count key or
    /// from the tuple size.
    E07,
    /// The marker count violates the marked-list rule.
    E08,
    /// Invalid escape sequence, trailing backslash, or malformed quoted element.
    E09,
    /// Value outside the enumeration.
    E10,
    /// Duplicate value in a `unique` field.
    E11,
    /// Header entry without `=`, required header key missing, or repeated key.
    E12,
    /// Numeric, decimal or date value outside `min`/`max`.
    E13,
    /// The contract itself is invalid.
    E20,
    /// A family (fork) invariant is violated.
    E21,
}

impl Code {
    /// All codes, in order.
    pub const ALL: [Code; 15] = [
        Code::E01,
        Code::E02,
        Code::E03,
        Code::E04,
        Code::E05,
        Code::E06,
        Code::E07,
        Code::E08,
        Code::E09,
        Code::E10,
        Code::E11,
        Code::E12,
        Code::E13,
        Code::E20,
        Code::E21,
    ];

    /// The code as written in SPEC 1.1 (`"E07"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Code::E01 => "E01",
            Code::E02 => "E02",
            Code::E03 => "E03",
            Code::E04 => "E04",
            Code::E05 => "E05",
            Code::E06 => "E06",
            Code::E07 => "E07",
            Code::E08 => "E08",
            Code::E09 => "E09",
            Code::E10 => "E10",
            Code::E11 => "E11",
            Code::E12 => "E12",
            Code::E13 => "E13",
            Code::E20 => "E20",
            Code::E21 => "E21",
        }
    }

    /// Parses `"E07"` into [`Code::E07`].
    pub fn parse(s: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.as_str() == s)
    }

    /// A short description of the condition (SPEC 1.1 §8).
    pub fn description(self) -> &'static str {
        match self {
            Code::E01 => "header line missing",
            Code::E02 => "header prefix does not match the contract",
            Code::E03 => "header has no n",
            Code::E04 => "number of record lines differs from n",
            Code::E05 => "wrong number of fields in a record",
            Code::E06 => "value does not match its type, or a required value is empty",
            Code::E07 => "list or tuple arity out of range",
            Code::E08 => "marker count violates the marked-list rule",
            Code::E09 => "invalid escape sequence or malformed quoted element",
            Code::E10 => "value outside the enumeration",
            Code::E11 => "duplicate value in a unique field",
            Code::E12 => "bad, missing or repeated header key",
            Code::E13 => "value outside min/max",
            Code::E20 => "invalid contract",
            Code::E21 => "family invariant violated",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One error found in a document, an object or a contract.
///
/// Displayed as `E07 line 12 [options]: list has 5 elements but header k=4`;
/// a document-level error (line 0) as `E04 document: …`, a contract error
/// as `E20 contract: …`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    code: Code,
    line: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    field: Option<String>,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
}

impl Diagnostic {
    /// Builds a diagnostic.
    pub fn new(code: Code, line: usize, field: Option<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            line,
            field,
            message: message.into(),
            path: None,
        }
    }

    /// The SPEC 1.1 error code.
    pub fn code(&self) -> Code {
        self.code
    }

    /// The 1-based physical line; 0 for document-level (E01, E04) and contract
    /// (E20, E21) errors.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The field (or header key, `name.component` for tuple parts) concerned.
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// The human-readable message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The serde path of the value (`items[3].options`), on errors from the
    /// typed path ([`crate::from_str`]).
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    /// This diagnostic with a serde path.
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    /// `E07 line 12 [options]: …`; a diagnostic on line 0 is not on a line:
    /// `E04 document: …` (`E20 contract: …` for contract and family
    /// errors), as the reference prints it. [`Diagnostic::line`] and the
    /// JSON form keep `0`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.code) {
            (0, Code::E20 | Code::E21) => write!(f, "{} contract", self.code)?,
            (0, _) => write!(f, "{} document", self.code)?,
            (line, _) => write!(f, "{} line {line}", self.code)?,
        }
        if let Some(field) = &self.field {
            write!(f, " [{field}]")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(p) = &self.path {
            write!(f, " (at {p})")?;
        }
        Ok(())
    }
}

/// A resource limit that input exceeded (see [`crate::Limits`]).
///
/// Limits are not SPEC error codes: SPEC 1.1 defines none for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The input is larger than `max_input_bytes`.
    InputBytes,
    /// A physical line is longer than `max_line_bytes`.
    LineBytes,
    /// The document has more record lines than `max_records`.
    Records,
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Limit::InputBytes => "max_input_bytes",
            Limit::LineBytes => "max_line_bytes",
            Limit::Records => "max_records",
        })
    }
}

#[derive(Debug, thiserror::Error)]
enum ErrorKind {
    #[error("{}", render_invalid(.0))]
    Invalid(Vec<Diagnostic>),
    #[error("invalid UTF-8 at line {line}, byte offset {offset} in the line")]
    Utf8 { line: usize, offset: usize },
    #[error("limit {limit} exceeded at line {line}: {detail}")]
    Limit {
        limit: Limit,
        line: usize,
        detail: String,
    },
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("JSON error: {0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Message(String),
    /// A record line broke a rule while serde was reading it: the
    /// deserializer re-checks the line with the engine, which gives the
    /// diagnostics (never seen by users).
    #[error("the record line breaks a rule of the contract")]
    Stopped,
}

fn render_invalid(diags: &[Diagnostic]) -> String {
    match diags {
        [] => "invalid".to_string(),
        [one] => one.to_string(),
        [first, rest @ ..] => format!("{first} (and {} more error(s))", rest.len()),
    }
}

/// The error type of every fallible operation in `mini`.
///
/// It is one pointer wide (boxed). [`Error::diagnostics`] lists every
/// validation error found; I/O, JSON, UTF-8 and limit errors have none.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Error(Box<ErrorKind>);

impl Error {
    /// An error made of validation diagnostics.
    pub fn invalid(diagnostics: Vec<Diagnostic>) -> Self {
        Error(Box::new(ErrorKind::Invalid(diagnostics)))
    }

    /// A free-form error (used by serde's `custom`).
    pub fn message(msg: impl Into<String>) -> Self {
        Error(Box::new(ErrorKind::Message(msg.into())))
    }

    /// See `ErrorKind::Stopped`.
    pub(crate) fn stopped() -> Self {
        Error(Box::new(ErrorKind::Stopped))
    }

    /// Whether this is the deserializer's internal [`Error::stopped`].
    pub(crate) fn is_stopped(&self) -> bool {
        matches!(&*self.0, ErrorKind::Stopped)
    }

    pub(crate) fn utf8(line: usize, offset: usize) -> Self {
        Error(Box::new(ErrorKind::Utf8 { line, offset }))
    }

    pub(crate) fn limit(limit: Limit, line: usize, detail: impl Into<String>) -> Self {
        Error(Box::new(ErrorKind::Limit {
            limit,
            line,
            detail: detail.into(),
        }))
    }

    /// Every validation error found (empty for I/O, JSON, UTF-8 and limit errors).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match &*self.0 {
            ErrorKind::Invalid(d) => d,
            _ => &[],
        }
    }

    /// The first error code, if this is a validation error.
    pub fn code(&self) -> Option<Code> {
        self.diagnostics().first().map(Diagnostic::code)
    }

    /// The limit exceeded, if this is a limit error.
    pub fn limit_exceeded(&self) -> Option<Limit> {
        match &*self.0 {
            ErrorKind::Limit { limit, .. } => Some(*limit),
            _ => None,
        }
    }

    /// Adds diagnostics found before this error (the typed path reports
    /// every error of the document, not only the one that stopped it).
    pub(crate) fn prepend(self, mut before: Vec<Diagnostic>) -> Self {
        if before.is_empty() {
            return self;
        }
        match *self.0 {
            ErrorKind::Invalid(d) => {
                before.extend(d);
                Error::invalid(before)
            }
            other => {
                before.push(Diagnostic::new(
                    Code::E06,
                    0,
                    None,
                    Error(Box::new(other)).to_string(),
                ));
                Error::invalid(before)
            }
        }
    }

    /// The free-form message of an error raised through serde's `custom`.
    pub(crate) fn custom_message(&self) -> Option<&str> {
        match &*self.0 {
            ErrorKind::Message(m) => Some(m),
            _ => None,
        }
    }

    /// True for I/O errors (the CLI maps them to exit code 2).
    pub fn is_io(&self) -> bool {
        matches!(&*self.0, ErrorKind::Io(_))
    }

    /// True when the input was not valid UTF-8.
    pub fn is_utf8(&self) -> bool {
        matches!(&*self.0, ErrorKind::Utf8 { .. })
    }
}

impl serde::de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::message(msg.to_string())
    }
}

impl serde::ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error::message(msg.to_string())
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error(Box::new(ErrorKind::Io(e)))
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error(Box::new(ErrorKind::Json(e)))
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
