//! Merging a model's repair answer back into the document.

use std::collections::HashMap;

use serde::Serialize;

use super::{check_line, document_header, extract, TransportFix, DROP_MARK};
use crate::check::Uniques;
use crate::contract::Contract;
use crate::error::{Code, Diagnostic};
use crate::syntax;
use crate::value::parse_lenient;

use super::RepairRequest;

/// An item whose correction was not applied: its original line(s) stay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unresolved {
    /// The index of the item in [`RepairRequest::items`].
    pub item: usize,
    /// Why, in English (`correction is not a valid record`, …).
    pub reason: String,
    /// The errors of the correction, when it was checked (empty when the
    /// answer as a whole was unusable or the item had no correction).
    pub errors: Vec<Diagnostic>,
}

/// The result of [`merge`]. Every item index appears in exactly one of
/// `applied`, `dropped` and `unresolved`, each in ascending order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MergeOutcome {
    /// The merged document: the original text with the applied corrections
    /// in place of their lines and the dropped lines removed; everything
    /// else byte for byte (header, `n`, blank lines, line ends).
    pub text: String,
    /// Items replaced by their correction.
    pub applied: Vec<usize>,
    /// Items answered with `-`: their lines were removed.
    pub dropped: Vec<usize>,
    /// Items left as they were, with the reason.
    pub unresolved: Vec<Unresolved>,
    /// What [`extract`] cleaned from the answer.
    pub fixes: Vec<TransportFix>,
    /// What was wrong with the answer as a whole (no or wrong header, wrong
    /// number of lines); when set, nothing was applied nor dropped.
    pub answer_problem: Option<String>,
}

impl MergeOutcome {
    /// Whether every item was applied or dropped.
    pub fn is_complete(&self) -> bool {
        self.unresolved.is_empty()
    }
}

/// The correction lines of an answer, or why they cannot be used.
struct Answer<'a> {
    /// The correction lines (header excluded when there was one).
    lines: Vec<&'a str>,
    /// Why the answer cannot be applied as a whole.
    problem: Option<String>,
}

fn read_answer<'a>(text: &'a str, contract: &Contract, k: usize) -> Answer<'a> {
    let prefix = contract.prefix();
    let expected = format!("{prefix}|n={k}");
    let mut lines: Vec<&str> = syntax::lines(text).map(|l| l.text).collect();
    if lines.is_empty() {
        return Answer {
            lines,
            problem: Some(format!(
                "the answer is empty (expected the header {expected})"
            )),
        };
    }
    let sep = contract.separator();
    let mut fields = Vec::new();
    let mut errors = Vec::new();
    syntax::split_fields(lines[0], sep, &mut fields, &mut errors);
    let mut problems = Vec::new();
    if fields.first().map(|f| f.text(sep)).as_deref() != Some(prefix) {
        problems.push(format!(
            "the answer does not start with the header {expected}"
        ));
    } else {
        let header = lines.remove(0);
        let ns: Vec<&str> = fields
            .iter()
            .skip(1)
            .filter_map(|f| syntax::split_entry(f.raw))
            .filter(|(key, _)| *key == "n")
            .map(|(_, value)| value)
            .collect();
        match ns.as_slice() {
            [n] if n.parse::<usize>().ok() == Some(k) => {}
            [n] => problems.push(format!(
                "the answer header declares n={n} but {k} correction(s) were requested"
            )),
            _ => problems.push(format!(
                "the answer header '{header}' has no single n (expected {expected})"
            )),
        }
    }
    if lines.len() != k {
        problems.push(format!(
            "the answer has {} correction line(s) but {k} were requested",
            lines.len()
        ));
    }
    Answer {
        lines,
        problem: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

/// One physical line of the document: its text and its line end.
struct Phys<'a> {
    text: &'a str,
    end: &'a str,
}

fn physical_lines(body: &str) -> Vec<Phys<'_>> {
    body.split_inclusive('\n')
        .map(|seg| {
            let text = seg.strip_suffix('\n').unwrap_or(seg);
            let text = text.strip_suffix('\r').unwrap_or(text);
            Phys {
                text,
                end: &seg[text.len()..],
            }
        })
        .collect()
}

/// What happens to an item.
enum Fate {
    Apply(String),
    Drop,
    Keep(String, Vec<Diagnostic>),
}

/// Merges a model's answer to `request` into the document `doc_text`.
///
/// `doc_text` must be the text the request was built from. The answer goes
/// through [`extract`] first (its fixes are reported in
/// [`MergeOutcome::fixes`]); it must then be `<prefix>|n=<k>` (other header
/// keys are tolerated) followed by exactly `k` lines, `k` being the number
/// of items. Otherwise nothing is applied and every item is unresolved with
/// the reason ([`MergeOutcome::answer_problem`]); if the number of lines is
/// still `k`, each item's reason also says whether its line would have been
/// accepted, with its errors.
///
/// Line `i` of the answer is the correction of item `i`:
/// * `-` alone drops the item's line(s). The header `n` is not rewritten, so
///   the dropped record shows as a count mismatch (E04) in the merged text;
/// * a correction replaces the item's line(s) when it has no raw line break
///   and is exactly one valid record under the document's original header
///   (so its count keys still apply) that reuses no `unique` value owned by
///   a valid record of the document or by an earlier applied correction;
/// * anything else leaves the original line(s) in place, unresolved.
///
/// The header line is never rewritten.
pub fn merge(
    doc_text: &str,
    request: &RepairRequest,
    answer: &str,
    contract: &Contract,
) -> MergeOutcome {
    let extracted = extract(answer, Some(contract.prefix()));
    let items = &request.items;
    let k = items.len();
    let parsed = read_answer(&extracted.text, contract, k);

    let (bom, body) = match doc_text.strip_prefix('\u{feff}') {
        Some(rest) => (&doc_text[..doc_text.len() - rest.len()], rest),
        None => ("", doc_text),
    };
    let phys = physical_lines(body);
    let header_line = syntax::lines(doc_text).next().map(|l| l.number);
    let header = document_header(doc_text, contract);

    // The unique values of the valid records, which every item keeps.
    let mut uniques = Uniques::new(contract);
    let covered = |line: usize| items.iter().any(|it| it.lines.contains(&line));
    if let Some(h) = &header {
        for r in parse_lenient(doc_text, contract).records() {
            if let Some(p) = phys
                .get(r.line.wrapping_sub(1))
                .filter(|_| !covered(r.line))
            {
                check_line(p.text, r.line, contract, h, &mut uniques);
            }
        }
    }

    let fates: Vec<Fate> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let (start, end) = (*item.lines.start(), *item.lines.end());
            if start == 0
                || start > end
                || end > phys.len()
                || Some(start) <= header_line
                || items[..i].iter().any(|o| o.lines.contains(&start))
            {
                return Fate::Keep(
                    format!(
                        "item {} does not name record lines of this document",
                        item.tag()
                    ),
                    Vec::new(),
                );
            }
            let Some(line) = parsed.lines.get(i).filter(|_| parsed.lines.len() == k) else {
                let why = parsed
                    .problem
                    .clone()
                    .unwrap_or_else(|| "no correction for this item".to_string());
                return Fate::Keep(why, Vec::new());
            };
            let fate = judge(line, start, contract, header.as_ref(), &mut uniques);
            match (&parsed.problem, fate) {
                (None, fate) => fate,
                (Some(p), Fate::Keep(why, errors)) => Fate::Keep(format!("{p}; {why}"), errors),
                (Some(p), Fate::Apply(_)) => Fate::Keep(
                    format!("{p}; this line would have been a valid correction"),
                    Vec::new(),
                ),
                (Some(p), Fate::Drop) => {
                    Fate::Keep(format!("{p}; this line asked to drop the item"), Vec::new())
                }
            }
        })
        .collect();

    let mut applied = Vec::new();
    let mut dropped = Vec::new();
    let mut unresolved = Vec::new();
    // first line of an item → (item, its last line, its replacement)
    let mut edits: HashMap<usize, (usize, Option<&str>)> = HashMap::new();
    for (i, fate) in fates.iter().enumerate() {
        let (start, end) = (*items[i].lines.start(), *items[i].lines.end());
        match fate {
            Fate::Apply(text) => {
                applied.push(i);
                edits.insert(start, (end, Some(text)));
            }
            Fate::Drop => {
                dropped.push(i);
                edits.insert(start, (end, None));
            }
            Fate::Keep(reason, errors) => unresolved.push(Unresolved {
                item: i,
                reason: reason.clone(),
                errors: errors.clone(),
            }),
        }
    }

    let mut text = String::with_capacity(doc_text.len());
    text.push_str(bom);
    let mut n = 1;
    while n <= phys.len() {
        match edits.get(&n) {
            Some(&(end, replacement)) => {
                if let Some(r) = replacement {
                    text.push_str(r);
                    text.push_str(phys[end - 1].end);
                }
                n = end + 1;
            }
            None => {
                text.push_str(phys[n - 1].text);
                text.push_str(phys[n - 1].end);
                n += 1;
            }
        }
    }

    MergeOutcome {
        text,
        applied,
        dropped,
        unresolved,
        fixes: extracted.fixes,
        answer_problem: parsed.problem,
    }
}

/// Decides what one correction line does to its item (first line `start`).
fn judge(
    line: &str,
    start: usize,
    contract: &Contract,
    header: Option<&crate::check::HeaderInfo>,
    uniques: &mut Uniques,
) -> Fate {
    if line.trim_matches(syntax::is_space) == DROP_MARK {
        return Fate::Drop;
    }
    if line.contains(['\n', '\r']) {
        return Fate::Keep(
            "the correction contains a raw line break".to_string(),
            Vec::new(),
        );
    }
    let Some(header) = header else {
        return Fate::Keep("the document has no header".to_string(), Vec::new());
    };
    let errors = check_line(line, start, contract, header, uniques);
    if errors.is_empty() {
        return Fate::Apply(line.to_string());
    }
    let clashes: Vec<&str> = errors
        .iter()
        .filter(|e| e.code() == Code::E11)
        .filter_map(|e| e.field())
        .collect();
    let reason = if clashes.len() == errors.len() {
        format!(
            "the correction reuses a unique value ({}) owned by another record",
            clashes.join(", ")
        )
    } else {
        let codes: Vec<String> = errors.iter().map(|e| e.code().to_string()).collect();
        format!(
            "the correction is not a valid record ({})",
            codes.join(", ")
        )
    };
    Fate::Keep(reason, errors)
}
