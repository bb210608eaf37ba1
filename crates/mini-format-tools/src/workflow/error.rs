//! How a run fails: the reason, the report, the last text and its
//! diagnostics, and the valid records marked partial.

use std::fmt;

use serde_json::Value;

use super::model::ModelError;
use super::report::Report;
use crate::error::Diagnostic;

/// Why a run failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Failure {
    /// The configuration is out of range (repair rounds 0–3, continuation
    /// rounds 0–2).
    Config(String),
    /// The caller's model returned an error.
    Model(ModelError),
    /// The last answer held no usable document (prose, a refusal, an
    /// empty reply, a broken header) and no round was left to ask again.
    NoDocument(String),
    /// Record lines are still invalid after every allowed repair round.
    Invalid {
        /// Their 1-based lines in [`WorkflowError::text`].
        lines: Vec<usize>,
    },
    /// Fewer records than required after every allowed continuation.
    Incomplete {
        /// Records required.
        expected: usize,
        /// Valid records delivered.
        received: usize,
    },
    /// A complete document, but not of the required size (the header's
    /// `n` or the record count differs from the expected count, or there
    /// are more record lines than `n`).
    WrongCount(String),
    /// The document is valid under the contract but the Rust type refused
    /// it (a typed run only).
    Decode,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Config(why) => write!(f, "invalid workflow configuration: {why}"),
            Failure::Model(e) => write!(f, "the model call failed: {e}"),
            Failure::NoDocument(why) => write!(
                f,
                "no usable document in the model's answer ({why}); no round was left to ask again: raise the repair rounds or check the prompt"
            ),
            Failure::Invalid { lines } => write!(
                f,
                "{} record line(s) still invalid after every repair round (lines {}); see the diagnostics, or raise the repair rounds",
                lines.len(),
                lines
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Failure::Incomplete { expected, received } => write!(
                f,
                "only {received} of {expected} records after every continuation round; raise the model's output limit or the continuation rounds"
            ),
            Failure::WrongCount(why) => write!(f, "wrong number of records: {why}"),
            Failure::Decode => write!(
                f,
                "the document is valid under the contract but the Rust type refused it; see the diagnostics"
            ),
        }
    }
}

/// The valid records of a failed run, marked partial: never a success.
#[derive(Debug, Clone, PartialEq)]
pub struct Partial {
    /// The canonical object of the last document, with its valid records
    /// only (`{"prefix", "header", "<records_key>": [...]}`).
    pub value: Value,
    /// Valid records in it.
    pub records: usize,
    /// Records required (`None` when no header was ever read).
    pub target: Option<usize>,
}

/// A failed run. It keeps everything the run saw: the reason, the report,
/// the last working text and its diagnostics, and the valid records
/// (marked [`Partial`]).
#[derive(Debug)]
pub struct WorkflowError {
    pub(crate) failure: Failure,
    pub(crate) report: Report,
    pub(crate) text: String,
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) partial: Option<Partial>,
}

impl WorkflowError {
    /// Why the run failed.
    pub fn failure(&self) -> &Failure {
        &self.failure
    }

    /// The report of every stage up to the failure.
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The last working `.mini` text (empty when no document was read).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The diagnostics of the last validation.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The valid records of the last document, marked partial (`None`
    /// when no header was read).
    pub fn partial(&self) -> Option<&Partial> {
        self.partial.as_ref()
    }

    /// Whether the model failed (rather than its output).
    pub fn is_model_error(&self) -> bool {
        matches!(self.failure, Failure::Model(_) | Failure::Config(_))
    }
}

impl fmt::Display for WorkflowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{}]", self.failure, self.report.summary)
    }
}

impl std::error::Error for WorkflowError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.failure {
            Failure::Model(e) => Some(e),
            _ => None,
        }
    }
}
