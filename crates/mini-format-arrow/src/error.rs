//! Errors and the diagnostics of a lenient conversion.

use std::fmt;

/// A conversion's result.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a conversion failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The contract has no Arrow schema: a field whose type no Arrow type
    /// holds exactly (an `int` bounded beyond 64 bits), or two columns
    /// with one name.
    #[error("schema: field '{field}': {message}")]
    Schema {
        /// The field (`name`, or `name.component` inside a tuple).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// A strict conversion met an invalid record, a value no column holds,
    /// or unreadable input: the diagnostics of the line where it stopped.
    #[error("{}", render(.0))]
    Invalid(Vec<Diagnostic>),
    /// Arrow refused a batch (a bug of this crate if it ever happens).
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
    /// The Parquet writer failed (usually an I/O error of its output).
    #[error("parquet: {0}")]
    Parquet(#[from] parquet::errors::ParquetError),
    /// An I/O error of the output.
    #[error("I/O: {0}")]
    Io(#[from] std::io::Error),
}

fn render(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

impl Error {
    /// The diagnostics of an [`Error::Invalid`] (empty otherwise).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Invalid(d) => d,
            _ => &[],
        }
    }
}

/// One problem found while converting, with the document it comes from.
///
/// Three kinds: an error of the format found by the core's engine
/// ([`code`](Diagnostic::code) is its SPEC 1.1 code: the record line is not
/// converted), a valid value that the column's Arrow type cannot hold (no
/// code: an int beyond `Int64`, a decimal with more fractional digits than
/// the column's scale; the record is not converted), and unreadable input
/// (no code, no field: invalid UTF-8, a line past the limit, an I/O error;
/// the rest of that document is not read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The document's id (a file's path, or the id given to [`crate::Input`]).
    pub source: String,
    /// The 1-based physical line (0: the whole document).
    pub line: usize,
    /// The field, when one is named.
    pub field: Option<String>,
    /// The SPEC 1.1 code of a format error.
    pub code: Option<mini::Code>,
    /// What is wrong.
    pub message: String,
    rendered: String,
}

impl Diagnostic {
    pub(crate) fn engine(source: &str, d: &mini::Diagnostic) -> Self {
        Diagnostic {
            source: source.to_string(),
            line: d.line(),
            field: d.field().map(str::to_string),
            code: Some(d.code()),
            message: d.message().to_string(),
            rendered: d.to_string(),
        }
    }

    pub(crate) fn column(source: &str, line: usize, field: &str, message: String) -> Self {
        Diagnostic {
            source: source.to_string(),
            line,
            field: Some(field.to_string()),
            code: None,
            rendered: format!("line {line} [{field}]: {message}"),
            message,
        }
    }

    pub(crate) fn input(source: &str, line: usize, e: &mini::Error) -> Self {
        Diagnostic {
            source: source.to_string(),
            line,
            field: None,
            code: e.code(),
            message: e.to_string(),
            rendered: e.to_string(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.source.is_empty() {
            f.write_str(&self.rendered)
        } else {
            write!(f, "{}: {}", self.source, self.rendered)
        }
    }
}
