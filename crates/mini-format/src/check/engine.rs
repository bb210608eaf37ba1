//! The line driver: the header first, then each record line, then the
//! document-level checks.

use super::*;

/// The document-level checks once every line is read: E01 without a header
/// line, E04 when a known `n` differs from the number of record lines.
pub fn document_errors(header: Option<&HeaderInfo>, record_lines: usize) -> Option<Diagnostic> {
    let Some(h) = header else {
        return Some(Diagnostic::new(
            Code::E01,
            0,
            None,
            "empty document: header missing",
        ));
    };
    if let Some(t) = &h.n_impossible {
        return Some(Diagnostic::new(
            Code::E04,
            0,
            None,
            format!("header declares n={t} but document has {record_lines} record lines"),
        ));
    }
    let n = h.n?;
    (n != record_lines as u64).then(|| {
        Diagnostic::new(
            Code::E04,
            0,
            None,
            format!("header declares n={n} but document has {record_lines} record lines"),
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
        }
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
            self.header = Some(header);
            return Checked::Header;
        };
        self.record_lines += 1;
        let valid = check_record_into(
            line,
            self.contract,
            header,
            &mut self.uniques,
            scratch,
            &mut self.errors,
        );
        self.last_line_cut = scratch.looked_cut();
        if valid {
            self.valid_records += 1;
            Checked::Valid
        } else {
            Checked::Invalid
        }
    }

    /// Errors found so far.
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }

    /// Takes the errors found so far (a caller that reports them line by
    /// line keeps none).
    pub fn take_errors(&mut self) -> Vec<Diagnostic> {
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
