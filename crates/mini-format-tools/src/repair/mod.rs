//! Selective repair of a `.mini` document written by a language model.
//!
//! Regenerating a whole document because a few lines are wrong re-spends
//! every output token and may break lines that were right. This module asks
//! the model for the broken lines only, then splices its answer back in,
//! accepting a correction only when it is a valid record:
//!
//! 1. [`extract`] finds the document inside a model's answer (prose, Markdown
//!    fences, BOM and CRLF around it), reporting every change it makes as a
//!    [`TransportFix`].
//! 2. [`repair_request`] lists the invalid record lines of a document with
//!    their errors and writes the prompt that asks for their corrections
//!    ([`RepairRequest`], in English or Spanish: [`Lang`]).
//! 3. [`merge`] reads the model's answer to that prompt and replaces each
//!    item whose correction is a valid record, drops those answered with
//!    `-`, and keeps the original line of every other item, saying why
//!    ([`MergeOutcome`]).
//!
//! The answer to a request with `k` items is a small `.mini` document: the
//! header `<prefix>|n=<k>`, then exactly `k` lines, one per item and in the
//! same order, each either the corrected record or `-` alone (drop it).
//!
//! The header line of the document is never rewritten, and neither is its
//! `n`: when records were lost (a truncated answer) or dropped, the count
//! mismatch (E04) stays visible in the merged document.
//!
//! ```
//! use mini_tools::repair::{extract, merge, repair_request, Lang};
//! let contract = mini::Contract::from_json(r#"{
//!     "prefix": "p",
//!     "core": [{"name": "id", "type": "str", "unique": true},
//!              {"name": "age", "type": "int"}]
//! }"#).unwrap();
//! let doc = "p|n=2\na|30\nb|thirty";
//! let request = repair_request(doc, &contract, Lang::En).expect("line 3 is invalid");
//! assert_eq!(request.items.len(), 1);
//! assert_eq!(request.items[0].lines, 3..=3);
//! assert!(request.prompt.contains("[L3] b|thirty"));
//!
//! // The model's answer, with the prose and fence models like to add.
//! let answer = "Here you go:\n```mini\np|n=1\nb|30\n```\n";
//! let outcome = merge(doc, &request, answer, &contract);
//! assert_eq!(outcome.text, "p|n=2\na|30\nb|30");
//! assert_eq!(outcome.applied, vec![0]);
//! assert_eq!(outcome.fixes.len(), 3); // prose, opening fence, closing fence
//! assert!(mini::parse(&outcome.text, &contract).is_ok());
//!
//! // `extract` alone: the document inside an answer.
//! let ex = extract("Sure!\n\np|n=0\n", Some("p"));
//! assert_eq!(ex.text, "p|n=0\n");
//! assert_eq!(ex.fixes.len(), 1);
//! ```

pub(crate) mod extract;
mod merge;
mod request;

pub use extract::{extract, Extracted, TransportFix};
pub use merge::{merge, MergeOutcome, Unresolved};
pub use request::{repair_request, Lang, RepairItem, RepairRequest};

use crate::check::{self, HeaderInfo, RecordOutcome, Scratch, Uniques};
use crate::contract::Contract;
use crate::error::Diagnostic;
use crate::syntax::{self, Line};

/// What a model writes, alone on a correction line, to drop the item.
pub const DROP_MARK: &str = "-";

/// Checks `text` as the record line `number` under `header`, claiming its
/// unique values in `uniques` when it is valid. Returns its errors (empty
/// when the record is valid).
fn check_line(
    text: &str,
    number: usize,
    contract: &Contract,
    header: &HeaderInfo,
    uniques: &mut Uniques,
) -> Vec<Diagnostic> {
    let mut scratch = Scratch::new();
    let mut diags = Vec::new();
    let outcome = check::check_record(
        Line { number, text },
        contract,
        header,
        uniques,
        &mut scratch,
        &mut diags,
    );
    if matches!(outcome, RecordOutcome::Invalid) && diags.is_empty() {
        // Defensive: an invalid record always carries a diagnostic.
        diags.push(Diagnostic::new(
            mini::Code::E05,
            number,
            None,
            "invalid record",
        ));
    }
    diags
}

/// The header of a document as the records are checked against it (its
/// own errors are not kept), or `None` without a header line.
fn document_header(doc_text: &str, contract: &Contract) -> Option<HeaderInfo> {
    let first = syntax::lines(doc_text).next()?;
    Some(check::check_header(first, contract, &mut Vec::new()))
}

/// The number of fields of a line, split as a record.
fn field_count(text: &str, sep: char) -> usize {
    let mut fields = Vec::new();
    let mut errors = Vec::new();
    syntax::split_fields(text, sep, &mut fields, &mut errors);
    fields.len()
}

/// Renders a diagnostic for a prompt: `E07 [options]: message`, with the
/// line when `with_line` and the diagnostic has one.
fn render_diagnostic(d: &Diagnostic, with_line: bool) -> String {
    let mut s = d.code().to_string();
    if with_line && d.line() > 0 {
        s.push_str(&format!(" line {}", d.line()));
    }
    if let Some(f) = d.field() {
        s.push_str(&format!(" [{f}]"));
    }
    s.push_str(": ");
    s.push_str(d.message());
    s
}
