//! Token counts: what the same data costs a language model in `.mini`, JSON,
//! CSV and TOON (feature `tokens`).
//!
//! [`count`] runs a real BPE tokenizer ([`tiktoken-rs`], whose OpenAI
//! vocabularies ship inside the crate: nothing is downloaded). [`stats`]
//! parses a document and renders the *same* canonical object in every format
//! of the upstream benchmark's method (`benchmark/formats.py` in the
//! reference repository), then counts each:
//!
//! | format | text |
//! | --- | --- |
//! | [`Format::Mini`] | the canonical `.mini` text ([`mini::dumps`]) |
//! | [`Format::JsonCompact`] | the canonical object, no whitespace (`json.dumps(obj, separators=(",", ":"), ensure_ascii=False)`) |
//! | [`Format::JsonPretty`] | the canonical object indented by 2 spaces (`indent=2`) |
//! | [`Format::Csv`] | the records flattened to one row each (see below), RFC 4180 quoting, header line dropped |
//! | [`Format::Toon`] | the canonical object as is, by the TOON encoder ([`toon-format`]) |
//! | [`Format::ToonFlat`] | `{"header", "<records_key>": <flattened rows>}` by the TOON encoder: its tabular best case |
//!
//! The flattening (CSV and flat TOON) follows the upstream method: a scalar
//! field is one column; a list of fixed length (an integer count key in the
//! header, or `min == max`) becomes numbered columns `name_1 … name_k`, any
//! other list one column with its elements joined by `;`; a marked list adds
//! its selection key as a column with the 1-based index (`;`-joined when
//! several); a tuple becomes one column per component, `field_component`.
//!
//! A saving is a relative token count, `(baseline − tokens) / baseline × 100`
//! ([`FormatStats::saving_pct`]): **positive** when a format needs fewer
//! tokens than the baseline, as the reference reports it.
//!
//! A document as written (`mini tokens FILE`, [`count_document`]) is counted
//! without one final line break, which ends a file but not a record; the
//! `.mini` row of [`stats`] counts the canonical text, which is the same
//! text for a document written by the serializer. When the two differ
//! (quotes, over-escaping, blank lines), [`Stats::written_tokens`] keeps
//! the count as written and the table shows both.
//!
//! ```
//! use mini_tools::tokens::{count, Encoding};
//! assert_eq!(count("hello world", Encoding::O200kBase), 2);
//! ```
//!
//! [`tiktoken-rs`]: https://docs.rs/tiktoken-rs
//! [`toon-format`]: https://docs.rs/toon-format

mod flatten;

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tiktoken_rs::CoreBPE;

use crate::contract::Contract;
use crate::error::{Error, Result};

/// A tokenizer vocabulary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// `o200k_base` (GPT-4o, GPT-4.1, o-series). The upstream benchmark's
    /// default.
    #[default]
    O200kBase,
    /// `cl100k_base` (GPT-4, GPT-3.5).
    Cl100kBase,
}

impl Encoding {
    /// Every encoding.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

    /// The tiktoken name (`o200k_base`).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The shared tokenizer, built once per process.
    fn bpe(self) -> std::result::Result<&'static CoreBPE, &'static str> {
        static O200K: OnceLock<std::result::Result<CoreBPE, String>> = OnceLock::new();
        static CL100K: OnceLock<std::result::Result<CoreBPE, String>> = OnceLock::new();
        let cell = match self {
            Encoding::O200kBase => O200K
                .get_or_init(|| tiktoken_rs::o200k_base().map_err(|e| format!("o200k_base: {e}"))),
            Encoding::Cl100kBase => CL100K.get_or_init(|| {
                tiktoken_rs::cl100k_base().map_err(|e| format!("cl100k_base: {e}"))
            }),
        };
        cell.as_ref().map_err(String::as_str)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = Error;

    /// Accepts `o200k_base`, `cl100k_base`, and the short `o200k`, `cl100k`.
    fn from_str(s: &str) -> Result<Encoding> {
        match s {
            "o200k_base" | "o200k" => Ok(Encoding::O200kBase),
            "cl100k_base" | "cl100k" => Ok(Encoding::Cl100kBase),
            other => Err(Error::message(format!(
                "unknown encoding '{other}' (expected o200k_base or cl100k_base)"
            ))),
        }
    }
}

/// The number of tokens of `text` under `enc`, as OpenAI's tiktoken counts
/// it with `encode(text, disallowed_special=())`: special-token text such as
/// `<|endoftext|>` is counted as ordinary text.
///
/// The tokenizer is built on first use (a few hundred milliseconds) and
/// cached for the process.
///
/// # Panics
///
/// Only if the vocabulary compiled into `tiktoken-rs` fails to load, which
/// is a build defect, never a property of the input.
pub fn count(text: &str, enc: Encoding) -> usize {
    match enc.bpe() {
        Ok(bpe) => bpe.encode_ordinary(text).len(),
        Err(e) => panic!("the tokenizer vocabulary shipped in tiktoken-rs failed to load: {e}"),
    }
}

/// A document's text as counted: without one final line break (`\n` or
/// `\r\n`), which ends the file but is not part of the last record (the
/// serializer never writes it).
pub fn document_text(text: &str) -> &str {
    text.strip_suffix('\n')
        .map_or(text, |t| t.strip_suffix('\r').unwrap_or(t))
}

/// The tokens of a document as written ([`document_text`]): what
/// `mini tokens FILE` prints, and what [`Stats::written_tokens`] holds.
pub fn count_document(text: &str, enc: Encoding) -> Result<usize> {
    try_count(document_text(text), enc)
}

/// [`count`] that reports a vocabulary that failed to load as an error
/// instead of panicking.
pub fn try_count(text: &str, enc: Encoding) -> Result<usize> {
    enc.bpe()
        .map(|bpe| bpe.encode_ordinary(text).len())
        .map_err(|e| Error::message(format!("tokenizer vocabulary failed to load: {e}")))
}

/// A rendering of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// The canonical `.mini` text.
    Mini,
    /// Compact JSON of the canonical object (the baseline).
    JsonCompact,
    /// JSON of the canonical object indented by 2 spaces.
    JsonPretty,
    /// CSV of the flattened records.
    Csv,
    /// TOON of the canonical object as is.
    Toon,
    /// TOON of the flattened object (tabular form).
    ToonFlat,
}

impl Format {
    /// Every format, in the order of [`Stats::formats`].
    pub const ALL: [Format; 6] = [
        Format::Mini,
        Format::JsonCompact,
        Format::JsonPretty,
        Format::Csv,
        Format::Toon,
        Format::ToonFlat,
    ];

    /// The snake-case name used in JSON (`json_compact`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Mini => "mini",
            Format::JsonCompact => "json_compact",
            Format::JsonPretty => "json_pretty",
            Format::Csv => "csv",
            Format::Toon => "toon",
            Format::ToonFlat => "toon_flat",
        }
    }

    /// A human label (`JSON compact`).
    pub fn label(self) -> &'static str {
        match self {
            Format::Mini => ".mini",
            Format::JsonCompact => "JSON compact",
            Format::JsonPretty => "JSON pretty",
            Format::Csv => "CSV (flattened)",
            Format::Toon => "TOON",
            Format::ToonFlat => "TOON (flattened)",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The document rendered in every [`Format`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renderings {
    /// The canonical `.mini` text ([`mini::dumps`]).
    pub mini: String,
    /// Compact JSON of the canonical object.
    pub json_compact: String,
    /// JSON of the canonical object, 2-space indent.
    pub json_pretty: String,
    /// CSV of the flattened records (column names first).
    pub csv: String,
    /// TOON of the canonical object.
    pub toon: String,
    /// TOON of `{"header", "<records_key>": <flattened rows>}`.
    pub toon_flat: String,
}

impl Renderings {
    /// The text of one format.
    pub fn get(&self, format: Format) -> &str {
        match format {
            Format::Mini => &self.mini,
            Format::JsonCompact => &self.json_compact,
            Format::JsonPretty => &self.json_pretty,
            Format::Csv => &self.csv,
            Format::Toon => &self.toon,
            Format::ToonFlat => &self.toon_flat,
        }
    }
}

/// Renders a `.mini` document in every [`Format`]. The document must be
/// valid (strict [`mini::parse`]).
pub fn render(doc_text: &str, contract: &Contract) -> Result<Renderings> {
    let doc = crate::value::parse(doc_text, contract)?;
    render_canonical(&doc.into_canonical(), contract)
}

/// Renders a canonical object (`{"prefix", "header", "<records_key>"}`, as
/// [`mini::Document::to_canonical`] gives it) in every [`Format`].
pub fn render_canonical(canonical: &Value, contract: &Contract) -> Result<Renderings> {
    let mini = mini::dumps(canonical, contract)?;
    let empty = Map::new();
    let header = canonical
        .get("header")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let records: &[Value] = canonical
        .get(contract.records_key())
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let rows: Vec<Map<String, Value>> = records
        .iter()
        .map(|r| flatten::record(r.as_object().unwrap_or(&empty), contract, header))
        .collect();
    let csv = flatten::csv(&flatten::columns(contract, header), &rows);
    let mut flat = Map::with_capacity(2);
    flat.insert("header".to_string(), Value::Object(header.clone()));
    flat.insert(
        contract.records_key().to_string(),
        Value::Array(rows.into_iter().map(Value::Object).collect()),
    );
    Ok(Renderings {
        mini,
        json_compact: serde_json::to_string(canonical)?,
        json_pretty: serde_json::to_string_pretty(canonical)?,
        csv,
        toon: toon(canonical)?,
        toon_flat: toon(&Value::Object(flat))?,
    })
}

fn toon(v: &Value) -> Result<String> {
    toon_format::encode(v, &toon_format::EncodeOptions::default())
        .map_err(|e| Error::message(format!("TOON encoder: {e}")))
}

/// Size and cost of one format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormatStats {
    /// The format.
    pub format: Format,
    /// UTF-8 bytes of the text.
    pub bytes: usize,
    /// Tokens of the text.
    pub tokens: usize,
    /// Tokens saved against compact JSON, in percent of compact JSON's
    /// tokens: `(json − tokens) / json × 100`, **positive when this format
    /// needs fewer tokens** (as the reference reports it: "saving 39.7 %"),
    /// negative when it needs more.
    pub saving_pct: f64,
}

/// Tokens and bytes of one document in every [`Format`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// The contract's prefix.
    pub prefix: String,
    /// Number of records.
    pub records: usize,
    /// The tokenizer.
    pub encoding: Encoding,
    /// One entry per format, in the order of [`Format::ALL`].
    pub formats: Vec<FormatStats>,
    /// The tokens of the document as written ([`count_document`]), when
    /// [`stats`] was given its text; equal to the `.mini` row when the
    /// document is in canonical form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written_tokens: Option<usize>,
}

/// `(baseline − tokens) / baseline × 100`: positive when `tokens` is the
/// smaller; 0 for an empty baseline.
fn saving(tokens: usize, baseline: usize) -> f64 {
    if baseline == 0 {
        0.0
    } else {
        (baseline as f64 - tokens as f64) / baseline as f64 * 100.0
    }
}

/// "saves 39.7 %", "costs 12.0 % more" or "same" (one decimal).
pub fn describe_saving(pct: f64) -> String {
    let shown = format!("{:.1}", pct.abs());
    if shown == "0.0" {
        "same".to_string()
    } else if pct > 0.0 {
        format!("saves {shown} %")
    } else {
        format!("costs {shown} % more")
    }
}

impl Stats {
    /// Counts the tokens of every rendering.
    pub fn from_renderings(
        r: &Renderings,
        prefix: &str,
        records: usize,
        enc: Encoding,
    ) -> Result<Stats> {
        let base = try_count(&r.json_compact, enc)?;
        let formats = Format::ALL
            .iter()
            .map(|&f| {
                let text = r.get(f);
                let tokens = try_count(text, enc)?;
                Ok(FormatStats {
                    format: f,
                    bytes: text.len(),
                    tokens,
                    saving_pct: saving(tokens, base),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Stats {
            prefix: prefix.to_string(),
            records,
            encoding: enc,
            formats,
            written_tokens: None,
        })
    }

    /// The entry of one format.
    pub fn get(&self, format: Format) -> Option<&FormatStats> {
        self.formats.iter().find(|f| f.format == format)
    }

    /// Tokens of one format (0 if absent).
    pub fn tokens(&self, format: Format) -> usize {
        self.get(format).map_or(0, |f| f.tokens)
    }

    /// Tokens `format` saves against `baseline`, in percent of the
    /// baseline: positive when `format` needs fewer tokens.
    pub fn saving_pct(&self, format: Format, baseline: Format) -> f64 {
        saving(self.tokens(format), self.tokens(baseline))
    }

    /// The signed token difference of `format` from `baseline` in percent
    /// (negative when `format` needs fewer tokens): `-saving_pct`.
    #[deprecated(note = "use `saving_pct`, positive when a format needs fewer tokens")]
    pub fn savings(&self, format: Format, baseline: Format) -> f64 {
        -self.saving_pct(format, baseline)
    }

    /// A plain-text table: one line per format with tokens, bytes and what
    /// it saves against compact JSON ("saves 39.7 %", "costs 12.0 % more").
    pub fn render_table(&self) -> String {
        let mut out = format!(
            "{}: {} record(s), {}\n{:<18} {:>8} {:>8}  {}",
            self.prefix,
            self.records,
            self.encoding,
            "format",
            "tokens",
            "bytes",
            "vs JSON compact"
        );
        for f in &self.formats {
            let vs = if f.format == Format::JsonCompact {
                "baseline".to_string()
            } else {
                describe_saving(f.saving_pct)
            };
            out.push_str(&format!(
                "\n{:<18} {:>8} {:>8}  {vs}",
                f.format.label(),
                f.tokens,
                f.bytes,
            ));
        }
        if let Some(w) = self
            .written_tokens
            .filter(|&w| w != self.tokens(Format::Mini))
        {
            out.push_str(&format!(
                "\n(.mini as written: {w} tokens; the table counts its canonical form)"
            ));
        }
        out
    }
}

/// Parses `doc_text` under `contract` (strictly) and counts its tokens in
/// every [`Format`] (see the module documentation for how each is written).
///
/// ```
/// let contract = mini::Contract::from_json(r#"{
///     "prefix": "q", "records_key": "items",
///     "core": [{"name": "id", "type": "str"}, {"name": "score", "type": "int"}]
/// }"#).unwrap();
/// let s = mini_tools::tokens::stats("q|n=2\nq1|7\nq2|9", &contract,
///                             mini_tools::tokens::Encoding::O200kBase).unwrap();
/// assert!(s.saving_pct(mini_tools::tokens::Format::Mini, mini_tools::tokens::Format::JsonCompact) > 0.0);
/// assert!(s.render_table().contains("saves"));
/// ```
pub fn stats(doc_text: &str, contract: &Contract, enc: Encoding) -> Result<Stats> {
    let doc = crate::value::parse(doc_text, contract)?;
    let records = doc.records().len();
    let renderings = render_canonical(&doc.into_canonical(), contract)?;
    let mut s = Stats::from_renderings(&renderings, contract.prefix(), records, enc)?;
    s.written_tokens = Some(count_document(doc_text, enc)?);
    Ok(s)
}
