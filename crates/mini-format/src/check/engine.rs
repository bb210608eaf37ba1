//! The line driver: the header first, then each record line, then the
//! document-level checks.

use super::*;
use crate::plan::Plan;

/// The document-level checks once every line is read: E01 without a header
/// line, E04 when a known `n` differs from the number of record lines.
pub fn document_errors(header: Option<&HeaderInfo>, record_lines: usize) -> Option<Diagnostic> {
    let Some(h) = header else {
        return Some(Diagnostic::new(
            Code::E01,
            0,
            None,
            "no header line: the text is empty or blank",
        ));
    };
    if let Some(t) = &h.n_impossible {
        return Some(Diagnostic::new(
            Code::E04,
            0,
            None,
            format!(
                "header declares n={t} but the document has {record_lines} record line{}: \
                 n must be the number of record lines",
                if record_lines == 1 { "" } else { "s" }
            ),
        ));
    }
    let n = h.n?;
    (n != record_lines as u64).then(|| {
        Diagnostic::new(
            Code::E04,
            0,
            None,
            format!(
                "header declares n={n} but the document has {record_lines} record line{}",
                if record_lines == 1 { "" } else { "s" }
            ),
        )
    })
}

/// What a checked line was (see [`Engine::check_line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    /// The header line.
    Header,
    /// A valid record (its values are in the scratch).
    Valid,
    /// An invalid record line (its errors were recorded).
    Invalid,
}

/// The state of one document being checked, shared by every consumer (the
/// canonical value, the typed deserializer, both streaming readers and
/// validation): feed it complete lines, then ask for the document-level
/// error.
#[derive(Debug)]
pub struct Engine<'c> {
    pub(super) contract: &'c Contract,
    pub(super) header: Option<HeaderInfo>,
    pub(super) uniques: Uniques,
    pub(super) valid_records: usize,
    pub(super) errors: Vec<Diagnostic>,
    pub(super) record_lines: usize,
    pub(super) last_line_cut: bool,
    /// The index in `errors` of the error of the last record line that
    /// gets a note once the document ends, and the note: the E05 (too few
    /// fields) of a line that looks cut ([`super::TRUNCATION_NOTE`]), or
    /// the first error of a line that looks like a Markdown fence or prose
    /// ([`super::end_note`]).
    pub(super) last_short: Option<(usize, String)>,
    /// The contract compiled (ADR 0031): what every consumer's walk reads
    /// by index.
    pub(super) plan: Plan<'c>,
    /// The header's value of each count key of the plan, by slot, once the
    /// header is read; `None` while it is not, or when one is not a plain
    /// `u64` (a walk then leaves the arity to [`super::check_arity`]).
    pub(super) counts: Option<Box<[u64]>>,
}

impl<'c> Engine<'c> {
    /// A new document under `contract`.
    pub fn new(contract: &'c Contract) -> Self {
        Engine {
            contract,
            header: None,
            uniques: Uniques::new(contract),
            valid_records: 0,
            errors: Vec::new(),
            record_lines: 0,
            last_line_cut: false,
            last_short: None,
            plan: Plan::compile(contract),
            counts: None,
        }
    }

    /// The contract compiled: its field steps (ADR 0031).
    pub(crate) fn plan(&self) -> &Plan<'c> {
        &self.plan
    }

    /// The values claimed so far by the `unique` fields (a reader asks for
    /// a key's table line through it, ADR 0069).
    pub(crate) fn uniques(&self) -> &Uniques {
        &self.uniques
    }

    /// The header's count keys by plan slot (see [`Engine::check_line`]):
    /// `None` before the header, or when one is not a plain `u64`.
    pub(crate) fn slot_counts(&self) -> Option<&[u64]> {
        self.counts.as_deref()
    }

    /// The contract.
    pub fn contract(&self) -> &'c Contract {
        self.contract
    }

    /// Checks one significant line: the first is the header; each later one
    /// is a record line, whose values stay in `scratch`
    /// ([`Scratch::values`]) when it is valid.
    pub fn check_line<'a>(&mut self, line: Line<'a>, scratch: &mut Scratch<'a>) -> Checked {
        let Some(header) = &self.header else {
            let header = check_header(line, self.contract, &mut self.errors);
            self.uniques.reserve(self.contract, header.n.unwrap_or(0));
            self.counts = self
                .plan
                .count_keys
                .iter()
                .map(|key| {
                    header
                        .counts
                        .iter()
                        .find(|(k, _)| k == key)
                        .and_then(|(_, v)| *v)
                })
                .collect();
            self.header = Some(header);
            return Checked::Header;
        };
        self.record_lines += 1;
        let before = self.errors.len();
        let valid = check_record_into(
            line,
            self.contract,
            header,
            &mut self.uniques,
            scratch,
            &mut self.errors,
        );
        self.last_line_cut = scratch.looked_cut();
        // the note the last line's error gets once no line can follow: a
        // fence or prose is named on its first error; a line that lacks
        // fields looks cut (ADR 0021)
        self.last_short = if valid {
            None
        } else if let Some(note) = super::fence_or_prose_note(line.text) {
            Some((before, note))
        } else {
            (before..self.errors.len())
                .find(|&i| {
                    self.errors[i].code() == Code::E05
                        && self.errors[i].message().contains("missing")
                })
                .map(|i| (i, super::TRUNCATION_NOTE.to_string()))
        };
        if valid {
            self.valid_records += 1;
            Checked::Valid
        } else {
            Checked::Invalid
        }
    }

    /// Records a valid record line read by a consumer that typed it itself
    /// with the engine's rule functions (the single-pass deserializer),
    /// claiming its unique keys (`(field index, key)`); false, recording
    /// nothing, when a key is already held: the caller then passes the
    /// line to [`Engine::check_line`], which reports the clash.
    pub(crate) fn accept_record<'k>(
        &mut self,
        unique_keys: impl Iterator<Item = (usize, super::unique::Key<'k>)> + Clone,
    ) -> bool {
        if !self.uniques.claim_all(unique_keys) {
            return false;
        }
        self.accepted();
        true
    }

    /// Counts a valid record line whose unique keys are already claimed.
    #[inline]
    pub(super) fn accepted(&mut self) {
        self.record_lines += 1;
        self.valid_records += 1;
        self.last_line_cut = false;
        self.last_short = None;
    }

    /// Errors found so far.
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }

    /// The E05 of the last record line, when it lacks fields, says that
    /// the document looks truncated there: called once no line can follow.
    fn note_truncation(&mut self) {
        if let Some((i, note)) = self.last_short.take() {
            if let Some(d) = self.errors.get_mut(i) {
                *d = super::with_note(d, &note);
            }
        }
    }

    /// Ends the document for a caller that keeps the engine: every error
    /// not taken yet (the last line's truncation noted), then the
    /// document-level one.
    pub fn end_errors(&mut self) -> Vec<Diagnostic> {
        self.note_truncation();
        let mut errors = std::mem::take(&mut self.errors);
        errors.extend(self.document_error());
        errors
    }

    /// Takes the errors found so far (a caller that reports them line by
    /// line keeps none).
    pub fn take_errors(&mut self) -> Vec<Diagnostic> {
        self.last_short = None;
        std::mem::take(&mut self.errors)
    }

    /// The header, once read.
    pub fn header(&self) -> Option<&HeaderInfo> {
        self.header.as_ref()
    }

    /// Whether the header line has been read.
    pub fn has_header(&self) -> bool {
        self.header.is_some()
    }

    /// Record lines seen so far.
    pub fn record_lines(&self) -> usize {
        self.record_lines
    }

    /// The document-level error once every line is read (E01, E04), if any.
    pub fn document_error(&self) -> Option<Diagnostic> {
        document_errors(self.header.as_ref(), self.record_lines)
    }

    /// Ends the document: the header, every error (the document-level one
    /// last), the record lines, the valid ones, and whether the last line
    /// looked cut.
    pub fn finish(mut self) -> Finished {
        self.note_truncation();
        if let Some(d) = self.document_error() {
            self.errors.push(d);
        }
        Finished {
            header: self.header,
            errors: self.errors,
            record_lines: self.record_lines,
            valid_records: self.valid_records,
            last_line_cut: self.last_line_cut,
        }
    }
}

/// What [`Engine::finish`] gives back.
#[derive(Debug)]
pub struct Finished {
    /// The header, if the document had one.
    pub header: Option<HeaderInfo>,
    /// Every error, in order.
    pub errors: Vec<Diagnostic>,
    /// Significant lines after the header.
    pub record_lines: usize,
    /// Valid records among them.
    pub valid_records: usize,
    /// Whether the last record line looked cut.
    pub last_line_cut: bool,
}
