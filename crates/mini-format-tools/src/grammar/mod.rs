//! Grammars for constrained decoding: a contract as GBNF (llama.cpp), Lark
//! (the llguidance dialect) or one regular expression.
//!
//! ```
//! use mini_tools::grammar::{grammar, GrammarFormat};
//! let contract = mini::Contract::from_json(r#"{
//!     "prefix": "q", "header": {"keys": {"k": {"type": "int"}}},
//!     "core": [
//!         {"name": "id", "type": "str", "unique": true},
//!         {"name": "options", "type": "mlist", "count_key": "k"}
//!     ]
//! }"#).unwrap();
//! let gbnf = grammar(&contract, GrammarFormat::Gbnf, Some(2));
//! assert!(gbnf.contains("root ::= header (\"\\n\" record){2} \"\\n\"?"));
//! let lark = grammar(&contract, GrammarFormat::Lark, None);
//! assert!(lark.contains("start: HEADER (\"\\n\" RECORD)* \"\\n\"?"));
//! ```
//!
//! Each grammar describes the documents of one contract that the strict
//! parser accepts *lexically and line by line*: a token sampler constrained
//! by it can only produce text whose every line parses and types. The three
//! formats describe the same language and are rendered from the same rules
//! (the GBNF rule `f5-options` is the Lark terminal `F5_OPTIONS`; the regex
//! inlines them all).
//!
//! # What the grammars enforce
//!
//! * **Layout.** The header line, then one record per line, lines separated
//!   by LF. The final LF is **optional** (the serializer writes none; models
//!   often add one). With `records = Some(N)` there are exactly `N` record
//!   lines (a `{N}` repetition) and the header must say `n=N` (leading zeros
//!   allowed, as the parser allows them).
//! * **Header.** The contract's prefix, then `|key=value` entries in any
//!   order. Every declared key is typed by its lexical form (`n` is a
//!   non-negative int). Every required key (`n` and `header.required`)
//!   appears exactly once; with more than three required keys they must
//!   come in the contract's order. Unknown keys are allowed, as SPEC §5
//!   allows them, when they are identifiers (`[A-Za-z_][A-Za-z0-9_]*`) other
//!   than the declared ones; their value is any text.
//! * **Records.** Exactly the core fields, then optionally a prefix of the
//!   extensions. Required fields are non-blank; optional fields may be
//!   empty. A record cannot be a blank line.
//! * **Values.** Escapes (`\| \, \<sep> \* \" \\ \n` only; a dangling
//!   backslash is impossible), the lexical forms of `int`, `float`, `bool`,
//!   `decimal` and `date` (a real calendar day, leap years included), enum
//!   values (in every spelling the parser decodes to the value), blanks
//!   around values (the parser trims them).
//! * **Lists.** Elements split by the separator, bare or CSV-quoted (`""`
//!   for a quote, the marker after the closing quote or just before it),
//!   `min`/`max` element counts, no `*` in plain lists and record tuples,
//!   the exact component count of tuples, and the marker rule of marked
//!   lists (`exactly_one`, `at_least_one`, `at_most_one`, `any`: all
//!   regular) together with their arity. Marked lists whose `min` or `max`
//!   exceeds 32 keep their marker rule but not their arity (the exact
//!   product grows quadratically with the bound).
//!
//! # What no grammar here can enforce
//!
//! These need memory across fields or lines, or arithmetic; the strict
//! parser ([`mini::parse`]) still checks them, so **always parse the
//! constrained output**:
//!
//! * `unique` fields (E11): values must differ across lines.
//! * `count_key` (E07): a list must have as many elements as the header's
//!   key says (`k=4`), whatever value the model chose for `k`.
//! * `n` equal to the number of record lines (E04), unless `records` fixes
//!   both.
//! * `min`/`max` value bounds (E13) and the finiteness of floats (`1e400`),
//!   `n` beyond `u64`.
//! * A repeated *optional* header key (E12).
//! * Records longer than the contract, which the parser accepts when the
//!   header's `v` is above the contract version: the grammar rejects them.
//!
//! It also accepts only a canonical layout, a subset of what the parser
//! reads: no BOM, no blank lines, no empty header entries (`||`). (A CR
//! before LF is accepted, as trailing blank of the last field.)
//!
//! `docs/grammar-export.md` says the same for users of the CLI.
//!
//! Constrained decoding removes the model's freedom to write anything else:
//! let the model reason *before* the constrained block (in an unconstrained
//! turn or segment) and apply the grammar to the document only.
//!
//! # Targets
//!
//! * [`GrammarFormat::Gbnf`]: llama.cpp's GBNF (`root ::= …`, `{m,n}`
//!   repetitions, `\xHH`/`\uHHHH` escapes in classes). Tested with
//!   `schoolmarm`, a Rust port of llama.cpp's grammar engine.
//! * [`GrammarFormat::Lark`]: Lark (`start:` rule, `x ~ m..n` repetitions,
//!   `/regex/` classes), the subset that both llguidance and the Python
//!   `lark` package read (neither-only `{m,n}` is not used). `start` is a
//!   rule over line lexemes; every other rule is an uppercase terminal
//!   compiled to a regular expression, so lexing is unambiguous. Tested with
//!   `llguidance` and with Python `lark`.
//! * [`GrammarFormat::Regex`]: one regular expression in Rust `regex` syntax
//!   (also valid Python `re`), **unanchored**: anchor it (`\A(?:…)\z`) or use
//!   a full-match API. Bounded repetitions are unrolled by most engines, so
//!   it grows with `records` and list bounds.

mod build;
mod ir;
mod render;

use std::fmt;
use std::str::FromStr;

use crate::contract::Contract;

/// The output format of [`grammar`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GrammarFormat {
    /// GBNF, the grammar format of llama.cpp.
    Gbnf,
    /// Lark, as read by llguidance.
    Lark,
    /// One regular expression (Rust `regex` / Python `re` syntax), unanchored.
    Regex,
}

impl GrammarFormat {
    /// Every format, in documentation order.
    pub const ALL: [GrammarFormat; 3] = [
        GrammarFormat::Gbnf,
        GrammarFormat::Lark,
        GrammarFormat::Regex,
    ];

    /// The format's name: `gbnf`, `lark` or `regex`.
    pub fn name(self) -> &'static str {
        match self {
            GrammarFormat::Gbnf => "gbnf",
            GrammarFormat::Lark => "lark",
            GrammarFormat::Regex => "regex",
        }
    }
}

impl fmt::Display for GrammarFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for GrammarFormat {
    type Err = String;

    /// Parses `gbnf`, `lark` or `regex` (case-insensitive).
    fn from_str(s: &str) -> Result<Self, String> {
        GrammarFormat::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown grammar format '{s}' (expected gbnf, lark or regex)"))
    }
}

/// The comment placed at the top of GBNF and Lark output.
fn banner(contract: &Contract, records: Option<usize>) -> String {
    let count = match records {
        Some(n) => format!("exactly {n} record line(s), header n={n}"),
        None => "any number of record lines (n is not tied to the count)".to_string(),
    };
    format!(
        ".mini grammar for family '{}' v{} (SPEC 1.1), list separator {:?}\n\
         {count}; final newline optional\n\
         not enforced: unique values, count keys, min/max bounds, float overflow, repeated optional header keys",
        contract.prefix(),
        contract.version(),
        contract.separator()
    )
}

/// The grammar of `contract`'s documents in `format`.
///
/// With `records = Some(n)` the document has exactly `n` record lines and
/// its header says `n=<n>`; with `None`, any number of record lines and any
/// `n` (the grammar cannot tie them). See the [module documentation](self)
/// for what the grammar enforces and what only the parser can check.
///
/// The regex form is unanchored; GBNF's start rule is `root`, Lark's is
/// `start`.
pub fn grammar(contract: &Contract, format: GrammarFormat, records: Option<usize>) -> String {
    let rules = build::Builder::new(contract).build(records);
    match format {
        GrammarFormat::Gbnf => render::gbnf(&rules, &banner(contract, records)),
        GrammarFormat::Lark => render::lark(&rules, &banner(contract, records)),
        GrammarFormat::Regex => render::regex(&rules),
    }
}
