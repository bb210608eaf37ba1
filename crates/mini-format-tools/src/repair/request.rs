//! The repair request: the invalid record lines of a document, their
//! errors, and the prompt asking a model for their corrections.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::ops::RangeInclusive;

use serde::Serialize;

use super::{check_line, document_header, field_count, render_diagnostic, DROP_MARK};
use crate::check::{HeaderInfo, Uniques};
use crate::contract::{Contract, Field, Kind, ScalarType};
use crate::error::Diagnostic;
use crate::syntax::{self, Line};
use crate::value::parse_lenient;

/// Most physical lines one split record is looked for across.
const MAX_FRAGMENTS: usize = 8;

pub use crate::prompt::Lang;

/// One thing to correct: an invalid record line, or several adjacent lines
/// that are one record split by a raw line break.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepairItem {
    /// The 1-based physical lines of the document it covers (one line, or
    /// the fragments of a split record).
    pub lines: RangeInclusive<usize>,
    /// The text of those lines, joined with a real line break (`\n`) when
    /// there are several.
    pub text: String,
    /// The errors the parser reported on those lines.
    pub errors: Vec<Diagnostic>,
}

impl RepairItem {
    /// Whether the item is a record split over several lines.
    pub fn is_split(&self) -> bool {
        self.lines.end() > self.lines.start()
    }

    /// `L3` or `L3-L4`, as the prompt names the item.
    pub fn tag(&self) -> String {
        if self.is_split() {
            format!("L{}-L{}", self.lines.start(), self.lines.end())
        } else {
            format!("L{}", self.lines.start())
        }
    }
}

/// A request to repair the invalid record lines of a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RepairRequest {
    /// The prompt to send to the model (one user message; it carries
    /// everything the model needs, including the answer format).
    pub prompt: String,
    /// The items to correct, in document order. The answer has one line per
    /// item, in this order; [`super::merge`] matches them by position.
    pub items: Vec<RepairItem>,
    /// Errors this repair does not fix: those of the header line and the
    /// document-level ones (E01, E04). The prompt mentions them; the header
    /// (and its `n`) is never rewritten.
    pub not_repaired: Vec<Diagnostic>,
}

impl RepairRequest {
    /// The header the answer must start with: `<prefix>|n=<k>`.
    pub fn answer_header(&self, contract: &Contract) -> String {
        format!("{}|n={}", contract.prefix(), self.items.len())
    }
}

/// Builds the repair request for a document, or `None` when it is valid.
///
/// `doc_text` is the document itself (run [`super::extract`] on a model's
/// answer first and pass its `text`): the line numbers of the request are
/// its 1-based physical lines, and [`super::merge`] must be given the same
/// text.
///
/// Every invalid record line (per [`mini::parse_lenient`]) becomes an item,
/// listed in the prompt as `[L<n>] <line text>` followed by its errors.
/// Adjacent invalid lines that are one record broken by a raw line break —
/// at least one of them has fewer fields than the core, and joining them
/// with the escape `\n` (the two characters) gives exactly one valid record
/// under the document's header — become one item, `[L<x>-L<y>]`.
///
/// Errors of the header line and the document-level errors (a missing
/// header E01, a count mismatch E04) are mentioned in the prompt and listed
/// in [`RepairRequest::not_repaired`], but not repaired. When they are the
/// only errors, the request has no item and the prompt asks for the bare
/// answer header `<prefix>|n=0`.
pub fn repair_request(doc_text: &str, contract: &Contract, lang: Lang) -> Option<RepairRequest> {
    let doc = parse_lenient(doc_text, contract);
    if doc.is_valid() {
        return None;
    }
    let lines: Vec<Line<'_>> = syntax::lines(doc_text).collect();
    let header_line = lines.first().map(|l| l.number);
    let mut by_line: BTreeMap<usize, Vec<Diagnostic>> = BTreeMap::new();
    let mut not_repaired = Vec::new();
    for d in doc.errors() {
        if d.line() == 0 || Some(d.line()) == header_line {
            not_repaired.push(d.clone());
        } else {
            by_line.entry(d.line()).or_default().push(d.clone());
        }
    }
    let header = document_header(doc_text, contract);
    let records = lines.get(1..).unwrap_or_default();
    let mut items = Vec::new();
    let mut i = 0;
    while i < records.len() {
        let first = records[i];
        if !by_line.contains_key(&first.number) {
            i += 1;
            continue;
        }
        let last = header
            .as_ref()
            .and_then(|h| split_record_end(records, i, &by_line, contract, h))
            .unwrap_or(i);
        let fragments = &records[i..=last];
        items.push(RepairItem {
            lines: first.number..=fragments[fragments.len() - 1].number,
            text: fragments
                .iter()
                .map(|l| l.text)
                .collect::<Vec<_>>()
                .join("\n"),
            errors: fragments
                .iter()
                .flat_map(|l| by_line.get(&l.number).into_iter().flatten().cloned())
                .collect(),
        });
        i = last + 1;
    }
    let header_text = lines.first().map_or("", |l| l.text);
    let prompt = Prompt {
        lang,
        contract,
        header_text,
        items: &items,
        not_repaired: &not_repaired,
    }
    .render();
    Some(RepairRequest {
        prompt,
        items,
        not_repaired,
    })
}

/// When `records[i]` starts a record split by raw line breaks, the index of
/// its last fragment.
fn split_record_end(
    records: &[Line<'_>],
    i: usize,
    invalid: &BTreeMap<usize, Vec<Diagnostic>>,
    contract: &Contract,
    header: &HeaderInfo,
) -> Option<usize> {
    let sep = contract.separator();
    let core = contract.core().len();
    let mut short = field_count(records[i].text, sep) < core;
    let mut joined = records[i].text.to_string();
    let mut j = i;
    while j + 1 - i < MAX_FRAGMENTS {
        let next = records.get(j + 1)?;
        if next.number != records[j].number + 1 || !invalid.contains_key(&next.number) {
            return None;
        }
        short |= field_count(next.text, sep) < core;
        joined.push_str("\\n");
        joined.push_str(next.text);
        j += 1;
        if short
            && check_line(
                &joined,
                records[i].number,
                contract,
                header,
                &mut Uniques::new(contract),
            )
            .is_empty()
        {
            return Some(j);
        }
    }
    None
}

/// The texts of the prompt, in one language.
struct Texts {
    intro: fn(&str, usize) -> String,
    intro_none: fn(&str) -> String,
    reminders: &'static str,
    escapes: &'static str,
    header_ctx: &'static str,
    fields: &'static str,
    optional: &'static str,
    items: &'static str,
    split_note: &'static str,
    not_repaired: &'static str,
    answer: fn(usize) -> String,
    answer_lines: fn(usize) -> String,
    answer_none: &'static str,
    nothing_else: &'static str,
}

const EN: Texts = Texts {
    intro: |prefix, k| {
        format!(
            "A .mini document of family '{prefix}' has {k} invalid record line(s). Correct only those lines; every other line is valid and stays as it is."
        )
    },
    intro_none: |prefix| {
        format!(
            "A .mini document of family '{prefix}' has errors, but none in a record line that can be corrected here."
        )
    },
    reminders: "Format: one record per line; fields separated by |; list elements separated by",
    escapes: "the marked element of a marked list ends in *. Inside a value, write these characters escaped:",
    header_ctx: "Document header (context only, do not repeat it):",
    fields: "Fields of a record, in order:",
    optional: "then, optional:",
    items: "Lines to correct, each followed by the validator's errors:",
    split_note: "these lines are ONE record broken by a raw line break: write it on one line, with \\n where the break was",
    not_repaired: "Also wrong, but not repaired here (do not add or remove lines to fix it):",
    answer: |k| format!("Answer with exactly {} line(s). First line:", k + 1),
    answer_lines: |k| {
        format!(
            "Then exactly {k} line(s), one per item above and in the same order: the corrected record on a single line, or {DROP_MARK} alone to drop a line that is not a record."
        )
    },
    answer_none: "Answer with this single line:",
    nothing_else: "Write nothing else: no explanations, no code fences, no valid lines.",
};

const ES: Texts = Texts {
    intro: |prefix, k| {
        format!(
            "Un documento .mini de la familia '{prefix}' tiene {k} línea(s) de registro inválida(s). Corrige solo esas líneas; las demás son válidas y se quedan como están."
        )
    },
    intro_none: |prefix| {
        format!(
            "Un documento .mini de la familia '{prefix}' tiene errores, pero ninguno en una línea de registro que se pueda corregir aquí."
        )
    },
    reminders: "Formato: un registro por línea; campos separados por |; elementos de lista separados por",
    escapes: "el elemento marcado de una lista marcada termina en *. Dentro de un valor, escribe estos caracteres escapados:",
    header_ctx: "Cabecera del documento (solo como contexto, no la repitas):",
    fields: "Campos de un registro, en orden:",
    optional: "después, opcionales:",
    items: "Líneas que corregir, cada una seguida de los errores del validador (código, campo y mensaje; los mensajes del validador están en inglés):",
    split_note: "estas líneas son UN registro partido por un salto de línea sin escapar: escríbelo en una sola línea, con \\n donde estaba el salto",
    not_repaired: "También incorrecto, pero no se repara aquí (no añadas ni quites líneas para arreglarlo):",
    answer: |k| format!("Responde con exactamente {} línea(s). Primera línea:", k + 1),
    answer_lines: |k| {
        format!(
            "Después, exactamente {k} línea(s), una por cada elemento de arriba y en el mismo orden: el registro corregido en una sola línea, o {DROP_MARK} solo para eliminar una línea que no es un registro."
        )
    },
    answer_none: "Responde solo con esta línea:",
    nothing_else: "No escribas nada más: ni explicaciones, ni bloques de código, ni las líneas válidas.",
};

struct Prompt<'a> {
    lang: Lang,
    contract: &'a Contract,
    header_text: &'a str,
    items: &'a [RepairItem],
    not_repaired: &'a [Diagnostic],
}

impl Prompt<'_> {
    fn render(&self) -> String {
        let t = match self.lang {
            Lang::En => &EN,
            Lang::Es => &ES,
        };
        let c = self.contract;
        let prefix = c.prefix();
        let k = self.items.len();
        let sep = c.separator();
        let mut p = String::new();
        // `write!` into a String cannot fail.
        if k == 0 {
            let _ = writeln!(p, "{}", (t.intro_none)(prefix));
        } else {
            let _ = writeln!(p, "{}", (t.intro)(prefix, k));
            let _ = writeln!(p);
            let mut escapes = String::from("\\| \\,");
            if sep != ',' {
                let _ = write!(escapes, " \\{sep}");
            }
            escapes.push_str(" \\* \\\" \\\\ \\n");
            let _ = writeln!(p, "{} '{sep}'; {} {escapes}", t.reminders, t.escapes);
            let _ = writeln!(p, "{} {}", t.fields, field_list(c.core()));
            if !c.extensions().is_empty() {
                let _ = writeln!(p, "  {} {}", t.optional, field_list(c.extensions()));
            }
            if !self.header_text.is_empty() {
                let _ = writeln!(p, "{} {}", t.header_ctx, self.header_text);
            }
            let _ = writeln!(p);
            let _ = writeln!(p, "{}", t.items);
            for item in self.items {
                let tag = format!("[{}] ", item.tag());
                let indent = " ".repeat(tag.chars().count());
                for (n, fragment) in item.text.split('\n').enumerate() {
                    let lead = if n == 0 {
                        tag.as_str()
                    } else {
                        indent.as_str()
                    };
                    let _ = writeln!(p, "{lead}{fragment}");
                }
                for e in &item.errors {
                    let _ = writeln!(p, "  - {}", render_diagnostic(e, item.is_split()));
                }
                if item.is_split() {
                    let _ = writeln!(p, "  - {}", t.split_note);
                }
            }
        }
        if !self.not_repaired.is_empty() {
            let _ = writeln!(p);
            let _ = writeln!(p, "{}", t.not_repaired);
            for e in self.not_repaired {
                let _ = writeln!(p, "  - {}", render_diagnostic(e, true));
            }
        }
        let _ = writeln!(p);
        if k == 0 {
            let _ = writeln!(p, "{}", t.answer_none);
            let _ = writeln!(p, "{prefix}|n=0");
        } else {
            let _ = writeln!(p, "{}", (t.answer)(k));
            let _ = writeln!(p, "{prefix}|n={k}");
            let _ = writeln!(p, "{}", (t.answer_lines)(k));
        }
        let _ = write!(p, "{}", t.nothing_else);
        p
    }
}

/// `id:str; stem:str; options:mlist<str>*exactly_one; level:enum{a/b}; …`
/// (not `|`, which the reader would take for the field separator).
fn field_list(fields: &[Field]) -> String {
    fields
        .iter()
        .map(|f| {
            let sig = match &f.kind {
                Kind::Scalar(s) if s.ty == ScalarType::Enum => {
                    format!("enum{{{}}}", s.values.join("/"))
                }
                kind => kind.signature(),
            };
            format!("{}:{sig}", f.name)
        })
        .collect::<Vec<_>>()
        .join("; ")
}
