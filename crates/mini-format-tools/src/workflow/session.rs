//! The run as a state machine with no I/O: it says which call to make
//! next, takes the reply, and ends with the final text or a failure. The
//! synchronous and the asynchronous runs drive the same machine, so they
//! cannot disagree.

use serde_json::Value;

use super::error::{Failure, Partial, WorkflowError};
use super::model::{CallKind, ModelError, ModelReply, ModelRequest};
use super::prompts;
use super::report::{CutSignal, LeftItem, Report, Stage};
use super::Workflow;
use crate::contract::Contract;
use crate::error::Diagnostic;
use crate::repair::{self, RepairRequest};
use crate::syntax;
use crate::value::parse_lenient;

/// Most characters of a kept record's name in a continuation request.
const NAME_CHARS: usize = 80;

/// The document being built: the header line as the model wrote it (never
/// rewritten) and the record lines kept so far.
#[derive(Debug, Clone)]
struct WorkDoc {
    header: String,
    records: Vec<String>,
    /// Records required: the expected count, else the header's `n`.
    target: usize,
}

impl WorkDoc {
    /// The working text: the header, then one record per line (LF).
    fn text(&self) -> String {
        let mut s = self.header.clone();
        for r in &self.records {
            s.push('\n');
            s.push_str(r);
        }
        s
    }
}

/// An answer after extraction: its header line, its record lines, the
/// header's `n`, and why the document cannot be used (if it cannot).
struct Answer {
    text: String,
    header: String,
    records: Vec<String>,
    declared: Option<usize>,
    problem: Option<String>,
}

/// What the pending call asked for, to read its reply.
#[derive(Debug)]
enum Pending {
    Document,
    Repair {
        request: RepairRequest,
        text: String,
    },
    Continue {
        missing: usize,
    },
}

/// A problem that only a full regeneration can fix.
#[derive(Debug, Clone)]
enum Problem {
    NoDocument(String),
    WrongCount(String),
}

/// What to do next.
pub(super) enum Next {
    /// Call the model with this request, then give the reply to
    /// [`Session::reply`].
    Call(ModelRequest),
    /// The run is over: the final valid text (to decode) or the failure.
    Done(Result<String, Box<WorkflowError>>),
}

/// One run of a [`Workflow`].
pub(super) struct Session<'w> {
    wf: &'w Workflow,
    task: String,
    /// The format block (the system part of each generation request).
    system: String,
    repairs_left: usize,
    continuations_left: usize,
    started: bool,
    pending: Option<Pending>,
    doc: Option<WorkDoc>,
    problem: Option<Problem>,
    failed: Option<Failure>,
    /// The last text read from an answer (kept for a failure's report).
    last_text: String,
    /// The kind and prompt size of the request awaiting its reply.
    asked: Option<(CallKind, usize)>,
    report: Report,
}

impl<'w> Session<'w> {
    pub(super) fn new(wf: &'w Workflow, task: &str) -> Self {
        let failed = wf.check_config().err().map(Failure::Config);
        Session {
            wf,
            task: task.to_string(),
            system: wf.format_block(),
            repairs_left: wf.max_repairs,
            continuations_left: wf.max_continuations,
            started: false,
            pending: None,
            doc: None,
            problem: None,
            failed,
            last_text: String::new(),
            asked: None,
            report: Report::new(wf.contract.prefix(), wf.max_calls()),
        }
    }

    /// A session with no model: the answer is given, nothing is asked.
    pub(super) fn offline(wf: &'w Workflow, answer: &str) -> Self {
        let mut s = Session::new(wf, "");
        s.started = true;
        s.repairs_left = 0;
        s.continuations_left = 0;
        s.report.max_calls = 0;
        if s.failed.is_none() {
            s.read_document(0, &ModelReply::text(answer));
        }
        s
    }

    fn contract(&self) -> &'w Contract {
        &self.wf.contract
    }

    fn request(&mut self, kind: CallKind, system: String, user: String) -> ModelRequest {
        let request = ModelRequest::new(self.report.calls + 1, kind, system, user);
        self.asked = Some((request.kind.clone(), request.prompt.chars().count()));
        request
    }

    /// The next step.
    pub(super) fn next(&mut self) -> Next {
        if let Some(f) = self.failed.take() {
            return Next::Done(Err(self.fail(f)));
        }
        if !self.started {
            self.started = true;
            self.pending = Some(Pending::Document);
            let user = prompts::task(self.wf.lang, &self.task, self.wf.expected);
            return Next::Call(self.request(CallKind::Generate, self.system.clone(), user));
        }
        if let Some(problem) = self.problem.take() {
            let reason = match &problem {
                Problem::NoDocument(r) | Problem::WrongCount(r) => r.clone(),
            };
            if self.repairs_left == 0 {
                let failure = match problem {
                    Problem::NoDocument(r) => Failure::NoDocument(r),
                    Problem::WrongCount(r) => Failure::WrongCount(r),
                };
                return Next::Done(Err(self.fail(failure)));
            }
            self.repairs_left -= 1;
            self.doc = None;
            self.pending = Some(Pending::Document);
            let user = format!(
                "{}\n\n{}",
                prompts::task(self.wf.lang, &self.task, self.wf.expected),
                prompts::regenerate(self.wf.lang, &reason)
            );
            return Next::Call(self.request(
                CallKind::Regenerate { reason },
                self.system.clone(),
                user,
            ));
        }
        let Some(doc) = self.doc.clone() else {
            // unreachable in practice: every reply sets a document or a problem
            return Next::Done(Err(
                self.fail(Failure::NoDocument("no document was read".to_string()))
            ));
        };
        let text = doc.text();
        let parsed = parse_lenient(&text, self.contract());
        let d = parsed.diagnostics();
        self.report.stages.push(Stage::Validate {
            record_lines: d.record_lines,
            valid_records: d.valid_records,
            invalid_lines: d.invalid_lines.clone(),
            errors: d.errors.clone(),
        });
        if !d.invalid_lines.is_empty() {
            if self.repairs_left > 0 {
                if let Some(request) = repair::repair_request(&text, self.contract(), self.wf.lang)
                    .filter(|r| !r.items.is_empty())
                {
                    self.repairs_left -= 1;
                    let lines = request.items.iter().flat_map(|i| i.lines.clone()).collect();
                    let user = format!(
                        "{}\n\n{}",
                        prompts::repair_context(self.wf.lang, &self.task),
                        request.prompt
                    );
                    let call = self.request(CallKind::Repair { lines }, String::new(), user);
                    self.pending = Some(Pending::Repair { request, text });
                    return Next::Call(call);
                }
            }
            return Next::Done(Err(self.fail(Failure::Invalid {
                lines: d.invalid_lines,
            })));
        }
        let have = doc.records.len();
        if have < doc.target {
            let missing = doc.target - have;
            if self.continuations_left == 0 {
                return Next::Done(Err(self.fail(Failure::Incomplete {
                    expected: doc.target,
                    received: have,
                })));
            }
            self.continuations_left -= 1;
            let names = kept_names(&parsed, self.contract());
            let header = header_with_n(&doc.header, missing);
            let user = format!(
                "{}\n\n{}",
                prompts::task(self.wf.lang, &self.task, Some(missing)),
                prompts::continuation(self.wf.lang, have, doc.target, missing, &names, &header)
            );
            self.pending = Some(Pending::Continue { missing });
            return Next::Call(self.request(
                CallKind::Continue {
                    missing,
                    kept: have,
                },
                self.system.clone(),
                user,
            ));
        }
        if have > doc.target {
            self.problem = Some(Problem::WrongCount(format!(
                "the header declares n={} but the document has {have} record lines",
                doc.target
            )));
            return self.next();
        }
        // every record line is valid and there are exactly `target` of them
        match crate::validate(&text, self.contract()) {
            errors if errors.is_empty() => Next::Done(Ok(text)),
            _ => Next::Done(Err(self.fail(Failure::Invalid {
                lines: d.invalid_lines,
            }))),
        }
    }

    /// Takes the reply to the request [`Session::next`] returned.
    pub(super) fn reply(&mut self, reply: Result<ModelReply, ModelError>) {
        let call = self.report.calls + 1;
        self.report.calls = call;
        let (kind, prompt_chars) = self.asked.take().unwrap_or((CallKind::Generate, 0));
        match reply {
            Err(e) => {
                self.report.stages.push(Stage::Call {
                    call,
                    kind,
                    prompt_chars,
                    answer_chars: None,
                    cut: None,
                    usage: None,
                    details: None,
                    error: Some(e.to_string()),
                });
                self.pending = None;
                self.failed = Some(Failure::Model(e));
            }
            Ok(reply) => {
                self.report.stages.push(Stage::Call {
                    call,
                    kind,
                    prompt_chars,
                    answer_chars: Some(reply.text.chars().count()),
                    cut: reply.cut,
                    usage: reply.usage,
                    details: reply.details.clone(),
                    error: None,
                });
                self.report.add_usage(reply.usage);
                match self.pending.take() {
                    Some(Pending::Repair { request, text }) => {
                        self.apply_repair(call, &request, &text, &reply)
                    }
                    Some(Pending::Continue { missing }) => {
                        self.append_continuation(call, missing, &reply)
                    }
                    Some(Pending::Document) | None => self.read_document(call, &reply),
                }
            }
        }
    }
}

impl Session<'_> {
    /// Extracts the document of an answer and sees whether its header is
    /// usable (reporting the extraction).
    fn read_answer(&mut self, call: usize, reply: &ModelReply) -> Answer {
        let contract = self.contract();
        let ex = repair::extract(&reply.text, Some(contract.prefix()));
        let lines: Vec<syntax::Line<'_>> = syntax::lines(&ex.text).collect();
        self.report.stages.push(Stage::Extract {
            call,
            fixes: ex.fixes.clone(),
            blank_lines: blank_lines(&ex.text, lines.len()),
        });
        let mut answer = Answer {
            header: String::new(),
            records: Vec::new(),
            declared: None,
            problem: None,
            text: String::new(),
        };
        let header_like = |l: &syntax::Line<'_>| crate::repair::extract::is_header(l.text, None);
        let Some(first) = lines.first().filter(|l| header_like(l)) else {
            answer.problem = Some(if reply.text.trim().is_empty() {
                "the answer is empty".to_string()
            } else {
                format!(
                    "the answer has no header line '{}|n=…' (prose or a refusal only)",
                    contract.prefix()
                )
            });
            answer.text = ex.text;
            return answer;
        };
        let parsed = parse_lenient(&ex.text, contract);
        let header_errors: Vec<String> = parsed
            .errors()
            .iter()
            .filter(|e| e.line() == first.number)
            .map(ToString::to_string)
            .collect();
        answer.declared = parsed.declared_n().and_then(|n| usize::try_from(n).ok());
        if !header_errors.is_empty() {
            answer.problem = Some(format!(
                "its header line '{}' is broken: {}",
                clip(first.text),
                header_errors.join("; ")
            ));
        } else if answer.declared.is_none() {
            answer.problem = Some(format!(
                "its header line '{}' has no usable n",
                clip(first.text)
            ));
        }
        answer.header = first.text.to_string();
        answer.records = lines[1..].iter().map(|l| l.text.to_string()).collect();
        answer.text = ex.text;
        answer
    }

    /// Reads a generation's answer: the document, or the problem that
    /// asks for a regeneration.
    fn read_document(&mut self, call: usize, reply: &ModelReply) {
        let answer = self.read_answer(call, reply);
        self.last_text = answer.text;
        let n = match (answer.problem, answer.declared) {
            (None, Some(n)) => n,
            (problem, _) => {
                let reason = problem.unwrap_or_else(|| "its header has no usable n".to_string());
                return self.no_document(call, Problem::NoDocument(reason));
            }
        };
        if let Some(expected) = self.wf.expected.filter(|&e| e != n) {
            let reason = format!(
                "the header declares n={n} but {expected} records are required (n={expected})"
            );
            return self.no_document(call, Problem::WrongCount(reason));
        }
        let mut records = answer.records;
        if self.report.max_calls > 0 {
            // with no model (`process`) nothing can be asked again: no line
            // is dropped, so that the diagnostics show the answer as it is
            let text = self.last_text.clone();
            self.cut(
                call,
                reply.cut,
                &text,
                &answer.header,
                &mut records,
                Some(n),
            );
        }
        self.report.target = Some(n);
        self.doc = Some(WorkDoc {
            header: answer.header,
            records,
            target: n,
        });
    }

    fn no_document(&mut self, call: usize, problem: Problem) {
        let reason = match &problem {
            Problem::NoDocument(r) | Problem::WrongCount(r) => r.clone(),
        };
        self.report.stages.push(Stage::NoDocument { call, reason });
        self.doc = None;
        self.problem = Some(problem);
    }

    /// Sees whether an answer was cut; drops a cut last line from
    /// `records` and reports the cut.
    fn cut(
        &mut self,
        call: usize,
        provider: Option<bool>,
        text: &str,
        header: &str,
        records: &mut Vec<String>,
        declared: Option<usize>,
    ) {
        let signal = if provider == Some(true) {
            Some(CutSignal::Provider)
        } else if provider.is_none()
            && records
                .last()
                .is_some_and(|last| looks_cut(header, last, self.contract()))
        {
            Some(CutSignal::ShortLastLine)
        } else if declared.is_some_and(|n| records.len() < n) {
            Some(CutSignal::FewerLines)
        } else {
            None
        };
        let Some(signal) = signal else { return };
        let drop_last = match signal {
            // a cut field can still look valid: the last line goes unless
            // the answer stopped right after a line break
            CutSignal::Provider => !text.ends_with('\n'),
            CutSignal::ShortLastLine => true,
            // fewer lines than n: an invalid last line is the cut one (a
            // value cut short can still have every field)
            CutSignal::FewerLines => records
                .last()
                .is_some_and(|last| !one_record(header, last, self.contract()).is_valid()),
        };
        let dropped_line = if drop_last { records.pop() } else { None };
        self.report.stages.push(Stage::Cut {
            call,
            signal,
            declared: declared.map(|n| n as u64),
            kept: records.len(),
            dropped_line,
        });
    }

    /// Merges a repair answer into the working document.
    fn apply_repair(
        &mut self,
        call: usize,
        request: &RepairRequest,
        text: &str,
        reply: &ModelReply,
    ) {
        let m = repair::merge(text, request, &reply.text, self.contract());
        let tag = |i: &usize| request.items[*i].tag();
        self.report.stages.push(Stage::Repair {
            call,
            asked: request.items.iter().map(|i| i.tag()).collect(),
            applied: m.applied.iter().map(tag).collect(),
            dropped: m.dropped.iter().map(tag).collect(),
            left: m
                .unresolved
                .iter()
                .map(|u| LeftItem {
                    item: tag(&u.item),
                    reason: u.reason.clone(),
                })
                .collect(),
            refused: m.answer_problem.clone(),
            fixes: m.fixes.clone(),
        });
        if let Some(doc) = &mut self.doc {
            // the header is never rewritten by a merge: only record lines change
            doc.records = syntax::lines(&m.text)
                .skip(1)
                .map(|l| l.text.to_string())
                .collect();
        }
    }

    /// Appends a continuation's records to the working document.
    fn append_continuation(&mut self, call: usize, missing: usize, reply: &ModelReply) {
        let answer = self.read_answer(call, reply);
        let Some(doc_header) = self.doc.as_ref().map(|d| d.header.clone()) else {
            return;
        };
        if let Some(reason) = answer.problem {
            self.report
                .stages
                .push(Stage::ContinuationFailed { call, reason });
            return;
        }
        let mut records = answer.records;
        self.cut(
            call,
            reply.cut,
            &answer.text,
            &doc_header,
            &mut records,
            answer.declared,
        );
        let extra_dropped = records.len().saturating_sub(missing);
        records.truncate(missing);
        let appended = records.len();
        if let Some(doc) = &mut self.doc {
            doc.records.extend(records);
        }
        self.report.stages.push(Stage::Continuation {
            call,
            requested: missing,
            appended,
            extra_dropped,
        });
    }

    /// The error of a failed run, with its report, text and partial records.
    fn fail(&mut self, failure: Failure) -> Box<WorkflowError> {
        let text = self
            .doc
            .as_ref()
            .map_or_else(|| self.last_text.clone(), WorkDoc::text);
        let parsed = parse_lenient(&text, self.contract());
        let valid = parsed.records().len();
        let own_header = parsed.prefix() == Some(self.contract().prefix());
        let partial = own_header.then(|| Partial {
            records: valid,
            target: self
                .doc
                .as_ref()
                .map(|d| d.target)
                .or(self.wf.expected)
                .or_else(|| parsed.declared_n().and_then(|n| usize::try_from(n).ok())),
            value: parsed.to_canonical(),
        });
        let mut report = std::mem::replace(&mut self.report, Report::new("", 0));
        report.close(false, valid);
        Box::new(WorkflowError {
            failure,
            report,
            text,
            diagnostics: parsed.errors().to_vec(),
            partial,
        })
    }

    /// The report of a successful run, once decoded.
    pub(super) fn succeed(&mut self, records: usize) -> Report {
        self.report.stages.push(Stage::Decode { records });
        let mut report = std::mem::replace(&mut self.report, Report::new("", 0));
        report.close(true, records);
        report
    }

    /// The error of a typed decode that refused a valid document.
    pub(super) fn fail_decode(&mut self, errors: Vec<Diagnostic>) -> Box<WorkflowError> {
        let mut e = self.fail(Failure::Decode);
        if !errors.is_empty() {
            e.diagnostics = errors;
        }
        e
    }
}

/// Blank lines of `text` besides its `significant` ones.
fn blank_lines(text: &str, significant: usize) -> usize {
    text.lines().count().saturating_sub(significant)
}

/// At most 80 characters of a line, for a message.
fn clip(s: &str) -> String {
    match s.char_indices().nth(NAME_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Whether a record line looks cut short under `header` (too few fields, a
/// dangling backslash, an open quote): the engine's own judgement, on a
/// one-record document.
fn looks_cut(header: &str, line: &str, contract: &Contract) -> bool {
    let d = one_record(header, line, contract).diagnostics();
    d.truncated == Some(true) && d.missing_records == Some(0)
}

/// `line` read as the only record under `header` (its `n` set to 1).
fn one_record(header: &str, line: &str, contract: &Contract) -> crate::value::Document {
    parse_lenient(&format!("{}\n{line}", header_with_n(header, 1)), contract)
}

/// The header line with its `n` entry set to `n` (every other entry kept
/// byte for byte); `n=…` is appended when the line has none.
pub(super) fn header_with_n(header: &str, n: usize) -> String {
    let mut fields = Vec::new();
    let mut errors = Vec::new();
    syntax::split_fields(header, ',', &mut fields, &mut errors);
    let mut found = false;
    let parts: Vec<String> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match syntax::split_entry(f.raw) {
            Some(("n", _)) if i > 0 && !found => {
                found = true;
                format!("n={n}")
            }
            _ => f.raw.to_string(),
        })
        .collect();
    let mut line = parts.join("|");
    if !found {
        line.push_str(&format!("|n={n}"));
    }
    line
}

/// The kept records, named by their first `unique` field (else their first
/// field), as a JSON array for a continuation request.
fn kept_names(parsed: &crate::value::Document, contract: &Contract) -> String {
    let key = contract
        .core()
        .iter()
        .find(|f| f.unique)
        .or_else(|| contract.core().first())
        .map(|f| f.name.clone());
    let names: Vec<String> = parsed
        .records()
        .iter()
        .map(|r| {
            let v = key.as_ref().and_then(|k| r.value.get(k));
            clip(&match v {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => String::new(),
            })
        })
        .collect();
    serde_json::to_string(&names).unwrap_or_default()
}
