//! The report of a run: every stage in order, the calls, the usage, and a
//! one-line summary.

use serde::Serialize;

use super::model::{CallKind, Usage};
use crate::error::Diagnostic;
use crate::prompt::Lang;
use crate::repair::TransportFix;

/// Why a document was judged cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CutSignal {
    /// The provider said it stopped at its output limit.
    Provider,
    /// The last record line is short of fields (or ends in a dangling
    /// escape or an open quote).
    ShortLastLine,
    /// The document has fewer record lines than its header declares.
    FewerLines,
}

/// One step of a run, in the order it happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Stage {
    /// A call to the model and what came back.
    Call {
        /// 1-based number of the call.
        call: usize,
        /// What it asked for.
        #[serde(flatten)]
        kind: CallKind,
        /// Characters of the prompt sent.
        prompt_chars: usize,
        /// Characters of the answer (`None` when the call failed).
        answer_chars: Option<usize>,
        /// The provider's cut signal, when it gave one.
        cut: Option<bool>,
        /// The provider's token usage, when it gave one.
        usage: Option<Usage>,
        /// Provider details (an HTTP status and latency, say).
        #[serde(skip_serializing_if = "Option::is_none")]
        details: Option<serde_json::Value>,
        /// The model's error, when the call failed.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// What extraction cleaned from an answer (prose, fences, BOM, CRLF).
    Extract {
        /// The call whose answer it was.
        call: usize,
        /// Each fix, in the order of the text.
        fixes: Vec<TransportFix>,
        /// Blank lines left out of the working document.
        blank_lines: usize,
    },
    /// An answer that holds no usable document.
    NoDocument {
        /// The call whose answer it was.
        call: usize,
        /// What was wrong.
        reason: String,
    },
    /// A cut answer: the complete records were kept.
    Cut {
        /// The call whose answer was cut.
        call: usize,
        /// How the cut was seen.
        signal: CutSignal,
        /// Records the header declares.
        declared: Option<u64>,
        /// Complete record lines kept.
        kept: usize,
        /// The cut last line, dropped (when one was).
        dropped_line: Option<String>,
    },
    /// A validation of the working document.
    Validate {
        /// Record lines.
        record_lines: usize,
        /// Valid records.
        valid_records: usize,
        /// Lines with errors.
        invalid_lines: Vec<usize>,
        /// Every error (a count mismatch E04 while records are still
        /// missing included).
        errors: Vec<Diagnostic>,
    },
    /// A selective repair merged back.
    Repair {
        /// The call that answered it.
        call: usize,
        /// The items asked for (`L3`, `L5-L6`).
        asked: Vec<String>,
        /// Items replaced by their correction.
        applied: Vec<String>,
        /// Items the model dropped (`-`).
        dropped: Vec<String>,
        /// Items left as they were, with the reason.
        left: Vec<LeftItem>,
        /// Why the answer was refused as a whole (then nothing changed).
        refused: Option<String>,
        /// What extraction cleaned from the answer.
        fixes: Vec<TransportFix>,
    },
    /// A continuation appended to the working document.
    Continuation {
        /// The call that answered it.
        call: usize,
        /// Records asked for.
        requested: usize,
        /// Records appended.
        appended: usize,
        /// Records beyond those asked for, left out.
        extra_dropped: usize,
    },
    /// A continuation answer that could not be used.
    ContinuationFailed {
        /// The call that answered it.
        call: usize,
        /// What was wrong.
        reason: String,
    },
    /// The final decode (typed value or canonical object).
    Decode {
        /// Records delivered.
        records: usize,
    },
}

/// An item of a repair whose correction was not applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeftItem {
    /// `L3`, `L5-L6`.
    pub item: String,
    /// Why it was left.
    pub reason: String,
}

/// The account of a run: every stage in order, serializable as JSON.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// True when the run delivered every record, valid.
    pub ok: bool,
    /// The family prefix.
    pub prefix: String,
    /// Records asked for (the expected count, else the declared `n`;
    /// `None` until a header was read).
    pub target: Option<usize>,
    /// Records delivered (on success) or valid in the last document.
    pub records: usize,
    /// Model calls made.
    pub calls: usize,
    /// The most calls the run could make: 1 + repair rounds +
    /// continuation rounds.
    pub max_calls: usize,
    /// Token usage summed over the calls that reported it (`None` when
    /// none did; a count is `None` when some call did not give it).
    pub usage: Option<Usage>,
    /// Calls that reported usage.
    pub calls_with_usage: usize,
    /// Every stage, in order.
    pub stages: Vec<Stage>,
    /// The summary line in English.
    pub summary: String,
    /// The summary line in Spanish.
    pub summary_es: String,
}

impl Report {
    pub(crate) fn new(prefix: &str, max_calls: usize) -> Self {
        Report {
            ok: false,
            prefix: prefix.to_string(),
            target: None,
            records: 0,
            calls: 0,
            max_calls,
            usage: None,
            calls_with_usage: 0,
            stages: Vec::new(),
            summary: String::new(),
            summary_es: String::new(),
        }
    }

    pub(crate) fn add_usage(&mut self, usage: Option<Usage>) {
        if let Some(u) = usage {
            self.calls_with_usage += 1;
            self.usage = Some(match self.usage {
                Some(sum) => sum.add(u),
                None => u,
            });
        }
    }

    /// The one-line summary in `lang`, such as
    /// `12 valid records · cut answer: 7 kept, 5 asked again · 1 selective correction`.
    pub fn summary_line(&self, lang: Lang) -> String {
        let es = lang == Lang::Es;
        let mut parts = Vec::new();
        if self.ok {
            parts.push(if es {
                format!("{} registros válidos", self.records)
            } else {
                format!("{} valid records", self.records)
            });
        } else {
            parts.push(match (es, self.target) {
                (false, Some(t)) => format!("FAILED: {} of {t} records valid", self.records),
                (false, None) => "FAILED: no usable document".to_string(),
                (true, Some(t)) => format!("FALLO: {} de {t} registros válidos", self.records),
                (true, None) => "FALLO: ningún documento utilizable".to_string(),
            });
        }
        let cut_kept = self.stages.iter().find_map(|s| match s {
            Stage::Cut { kept, .. } => Some(*kept),
            _ => None,
        });
        let asked: usize = self
            .stages
            .iter()
            .filter_map(|s| match s {
                Stage::Call {
                    kind: CallKind::Continue { missing, .. },
                    ..
                } => Some(*missing),
                _ => None,
            })
            .sum();
        if let Some(kept) = cut_kept {
            parts.push(if es {
                format!("respuesta cortada: {kept} conservados, {asked} pedidos de nuevo")
            } else {
                format!("cut answer: {kept} kept, {asked} asked again")
            });
        }
        let count = |name: &str| {
            self.stages
                .iter()
                .filter(
                    |s| matches!(s, Stage::Call { kind, error: None, .. } if kind.name() == name),
                )
                .count()
        };
        let repairs = count("repair");
        if repairs > 0 {
            parts.push(if es {
                format!("{repairs} corrección(es) selectiva(s)")
            } else {
                format!("{repairs} selective correction(s)")
            });
        }
        let regenerations = count("regenerate");
        if regenerations > 0 {
            parts.push(if es {
                format!("{regenerations} regeneración(es)")
            } else {
                format!("{regenerations} regeneration(s)")
            });
        }
        let fixes: usize = self
            .stages
            .iter()
            .map(|s| match s {
                Stage::Extract { fixes, .. } => fixes.len(),
                _ => 0,
            })
            .sum();
        if fixes > 0 {
            parts.push(if es {
                format!("{fixes} ajuste(s) locales")
            } else {
                format!("{fixes} local fix(es)")
            });
        }
        parts.push(if es {
            format!("{} llamada(s) al modelo", self.calls)
        } else {
            format!("{} model call(s)", self.calls)
        });
        parts.join(" · ")
    }

    pub(crate) fn close(&mut self, ok: bool, records: usize) {
        self.ok = ok;
        self.records = records;
        self.summary = self.summary_line(Lang::En);
        self.summary_es = self.summary_line(Lang::Es);
    }

    /// The report as pretty JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
