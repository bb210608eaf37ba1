//! The `mini` command-line tool (feature `cli`).
//!
//! Exit codes: 0 valid, 1 invalid, 2 usage or I/O error, 3 unverified (no
//! contract could be found for the document's prefix: neither valid nor
//! invalid).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use serde_json::Value;

use mini::{Contract, Diagnostic, Error, Registry};
use mini_tools::conformance::Runner;

use crate::lines::{utf8_failure, Failure, LineInput};

/// Exit code: the input is valid.
pub const EXIT_OK: i32 = 0;
/// Exit code: the input is invalid.
pub const EXIT_INVALID: i32 = 1;
/// Exit code: usage or I/O error.
pub const EXIT_USAGE: i32 = 2;
/// Exit code: no contract was found, so nothing could be verified.
pub const EXIT_UNVERIFIED: i32 = 3;

/// `mini`: validate, convert and diagnose `.mini` documents (SPEC 1.1).
#[derive(Debug, Parser)]
#[command(name = "mini", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Where the contract comes from.
#[derive(Debug, Args, Clone)]
pub struct ContractArgs {
    /// A contract.json file.
    #[arg(long, value_name = "PATH", conflicts_with = "prefix")]
    contract: Option<PathBuf>,
    /// The family prefix, looked up in the forks directory (default: the
    /// prefix written in the document's header).
    #[arg(short = 'p', long = "prefix", value_name = "PREFIX")]
    prefix: Option<String>,
    /// Directory of families (`DIR/<prefix>/contract.json`).
    #[arg(long, value_name = "DIR", env = "MINI_FORKS")]
    forks: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Validate a document: prints `OK: …` or every error and `INVALID: N error(s)`.
    /// Reads line by line: memory does not grow with the input size.
    Validate {
        /// The .mini file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
        /// Lenient validation: every error is still printed, but a document
        /// whose header was read and that keeps at least one valid record
        /// ends with `LENIENT: K valid record(s) kept, N error(s)` and exits
        /// 0 (what a lenient parse or `to-json --lenient` would keep); a
        /// document with no valid record left (or no header) is `INVALID`,
        /// exit 1.
        #[arg(long)]
        lenient: bool,
    },
    /// Print the diagnostics of a lenient parse as JSON (status, declared
    /// n, valid and invalid lines, missing records, truncation, errors).
    /// Always JSON: `"status"` is `valid` (exit 0), `invalid` (exit 1) or
    /// `unverified` (no contract found, or no header line to name one;
    /// exit 3); unreadable input (invalid UTF-8, a line past the limit)
    /// adds `"input_error"` to the diagnostics of the lines before it.
    /// Reads line by line: memory does not grow with the input size.
    Diagnose {
        /// The .mini file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
    },
    /// Convert a document to its canonical JSON object.
    ToJson {
        /// The .mini file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
        /// Keep the valid records of an invalid document (errors go to
        /// stderr; the exit code is still 1 if there were errors).
        #[arg(long)]
        lenient: bool,
        /// One-line JSON instead of pretty-printed.
        #[arg(long)]
        compact: bool,
        /// Stream: one JSON record per line (NDJSON) on stdout as soon as
        /// each input line closes; errors and a final `{"summary": …}`
        /// object go to stderr. Exit 0 only if the document is complete.
        #[arg(long, conflicts_with = "lenient")]
        stream: bool,
    },
    /// Serialize a canonical JSON object to canonical `.mini` text.
    FromJson {
        /// The JSON file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
    },
    /// Extract the document from a model's answer: skips prose and Markdown
    /// fences around it, strips a BOM, converts CRLF. Prints the document;
    /// each fix made is reported on stderr (never silently).
    Extract {
        /// The answer file (`-` for stdin).
        file: String,
        /// The expected prefix (helps find the header line).
        #[arg(short = 'p', long = "prefix")]
        prefix: Option<String>,
    },
    /// Print a prompt asking a model to fix only the invalid lines of a
    /// document (`[L<n>]` per line, `[Lx-Ly]` for a record split by a raw
    /// newline). Exit 0 with nothing printed when the document is valid.
    RepairPrompt {
        /// The .mini file (`-` for stdin); prose and fences are extracted first.
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
        /// Language of the prompt: `en` or `es`.
        #[arg(long, default_value = "en")]
        lang: String,
    },
    /// Merge a model's answer to `repair-prompt` into the document: prints the
    /// merged document; what was applied, dropped or left unresolved goes to
    /// stderr. The header `n` is never rewritten. Exit 0 only if the merged
    /// document is valid.
    Merge {
        /// The .mini file the prompt was made from.
        file: String,
        /// The model's answer (`-` for stdin).
        answer: String,
        #[command(flatten)]
        contract: ContractArgs,
    },
    /// List the families of a directory (prefix, version, arity, signature).
    Forks {
        /// Families directory (default: --forks or MINI_FORKS).
        dir: Option<PathBuf>,
        /// Families directory.
        #[arg(long, env = "MINI_FORKS", hide_env_values = true)]
        forks: Option<PathBuf>,
    },
    /// Check every family of a directory: contract (E20), fork invariants
    /// against its parent (E21), and its fixtures (valid ↔ canonical,
    /// byte-exact re-serialization, bad_*.mini rejected, escaping).
    /// Ends with `ALL FORKS PASS (N forks)`.
    CheckForks {
        /// Families directory (default: --forks or MINI_FORKS).
        dir: Option<PathBuf>,
        /// Families directory.
        #[arg(long, env = "MINI_FORKS", hide_env_values = true)]
        forks: Option<PathBuf>,
    },
    /// Create a new family: `DIR/<PREFIX>/contract.json` plus fixture
    /// skeletons that pass check-forks.
    NewFork {
        /// The new prefix.
        prefix: String,
        /// Parent family to inherit from (its fields stay first; new fields
        /// become optional extensions).
        #[arg(long)]
        from: Option<String>,
        /// New fields, `name:type` (str, int, float, bool, date, decimal,
        /// enum{a|b}, list<T>, mlist<T>, tuple(a:T,…), with optional
        /// `[lo..hi]` and a trailing `?`).
        #[arg(long = "add", value_name = "NAME:TYPE")]
        add: Vec<String>,
        /// Families directory.
        #[arg(long, env = "MINI_FORKS", hide_env_values = true)]
        forks: Option<PathBuf>,
    },
    /// Export a contract as JSON Schema (draft 2020-12) with `x-mini`
    /// annotations (lossless: from-schema gives the contract back).
    ToSchema {
        /// A prefix (looked up in --forks) or a contract.json path; or use
        /// -p PREFIX or --contract PATH.
        family: Option<String>,
        /// The family prefix (looked up in --forks).
        #[arg(short = 'p', long = "prefix", value_name = "PREFIX", conflicts_with_all = ["family", "contract"])]
        prefix: Option<String>,
        /// A contract.json file.
        #[arg(long, value_name = "PATH", conflicts_with = "family")]
        contract: Option<PathBuf>,
        /// The schema of one record instead of the whole canonical object.
        #[arg(long)]
        record: bool,
        /// Families directory.
        #[arg(long, env = "MINI_FORKS", hide_env_values = true)]
        forks: Option<PathBuf>,
    },
    /// Build a contract.json from a JSON Schema; unsupported keywords are
    /// warnings on stderr (errors with --strict).
    FromSchema {
        /// The schema file (`-` for stdin).
        file: String,
        /// The prefix of the new contract (overrides the schema's).
        #[arg(short = 'p', long = "prefix")]
        prefix: Option<String>,
        /// Unsupported keywords are errors (E20).
        #[arg(long)]
        strict: bool,
    },
    /// Count the tokens of a file with a real tokenizer (feature `tokens`).
    #[cfg(feature = "tokens")]
    Tokens {
        /// The file (`-` for stdin).
        file: String,
        /// Tokenizer vocabulary: o200k_base or cl100k_base.
        #[arg(long, default_value = "o200k_base")]
        enc: String,
    },
    /// Tokens and bytes of the same data as .mini, compact and pretty JSON,
    /// CSV and TOON, with savings against compact JSON (feature `tokens`).
    #[cfg(feature = "tokens")]
    Stats {
        /// The .mini file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
        /// Tokenizer vocabulary: o200k_base or cl100k_base.
        #[arg(long, default_value = "o200k_base")]
        enc: String,
        /// Output: table or json.
        #[arg(long, default_value = "table")]
        format: String,
    },
    /// Print the instruction block to paste into a system prompt so that a
    /// model writes this contract's .mini.
    Prompt {
        /// The family prefix (looked up in --forks); or use -p PREFIX or
        /// --contract.
        prefix: Option<String>,
        /// The family prefix (looked up in --forks), as the positional PREFIX.
        #[arg(short = 'p', long = "prefix", value_name = "PREFIX", conflicts_with_all = ["prefix", "contract"])]
        prefix_flag: Option<String>,
        /// A contract.json file.
        #[arg(long, value_name = "PATH", conflicts_with = "prefix")]
        contract: Option<PathBuf>,
        /// Families directory.
        #[arg(long, env = "MINI_FORKS", hide_env_values = true)]
        forks: Option<PathBuf>,
        /// Language: en or es.
        #[arg(long, default_value = "en")]
        lang: String,
        /// Leave out the example.
        #[arg(long)]
        no_example: bool,
        /// Records in the example.
        #[arg(long, default_value_t = 2)]
        example_records: usize,
    },
    /// Export a grammar for constrained decoding (GBNF for llama.cpp, Lark
    /// for llguidance, or a regular expression).
    Grammar {
        /// The family prefix (looked up in --forks); or use -p PREFIX or
        /// --contract.
        prefix: Option<String>,
        /// The family prefix (looked up in --forks), as the positional PREFIX.
        #[arg(short = 'p', long = "prefix", value_name = "PREFIX", conflicts_with_all = ["prefix", "contract"])]
        prefix_flag: Option<String>,
        /// A contract.json file.
        #[arg(long, value_name = "PATH", conflicts_with = "prefix")]
        contract: Option<PathBuf>,
        /// Families directory.
        #[arg(long, env = "MINI_FORKS", hide_env_values = true)]
        forks: Option<PathBuf>,
        /// gbnf, lark or regex.
        #[arg(long, default_value = "gbnf")]
        format: String,
        /// Fix the number of records (and the header n) to N.
        #[arg(long)]
        records: Option<usize>,
    },
    /// Run conformance cases (`DIR/cases/*.json`); ends with `N passed, M failed`.
    Conformance {
        /// Suite directories.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Extra directory where `family` contracts are looked up.
        #[arg(long, value_name = "DIR")]
        forks: Option<PathBuf>,
    },
}

/// What a command produced: the exit code plus its stdout and stderr text.
#[derive(Debug, Default)]
pub struct Output {
    /// Exit code.
    pub code: i32,
    /// Text for stdout.
    pub stdout: String,
    /// Text for stderr.
    pub stderr: String,
}

impl Output {
    fn out(mut self, s: impl AsRef<str>) -> Self {
        self.stdout.push_str(s.as_ref());
        self.stdout.push('\n');
        self
    }
    fn err(mut self, s: impl AsRef<str>) -> Self {
        self.stderr.push_str(s.as_ref());
        self.stderr.push('\n');
        self
    }
    fn code(mut self, c: i32) -> Self {
        self.code = c;
        self
    }
}

fn read_input(file: &str) -> Result<Vec<u8>, String> {
    if file == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        Ok(buf)
    } else {
        std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))
    }
}

enum Resolved {
    Found(Contract),
    /// No contract for this prefix: unverified.
    Missing(String),
}

fn resolve(args: &ContractArgs, detected: Option<String>) -> Result<Resolved, Output> {
    if let Some(path) = &args.contract {
        return Contract::from_path(path).map(Resolved::Found).map_err(|e| {
            Output::default()
                .err(format!("error: contract {}: {e}", path.display()))
                .code(EXIT_USAGE)
        });
    }
    let Some(prefix) = args.prefix.clone().or(detected) else {
        return Ok(Resolved::Missing(
            "no prefix: the document has no header line and no -p PREFIX was given".to_string(),
        ));
    };
    let Some(dir) = &args.forks else {
        return Ok(Resolved::Missing(format!(
            "no contract for prefix '{prefix}': give --contract PATH, or --forks DIR (or MINI_FORKS)"
        )));
    };
    let path = dir.join(&prefix).join("contract.json");
    if path.is_file() {
        return Contract::from_path(&path)
            .map(Resolved::Found)
            .map_err(|e| {
                Output::default()
                    .err(format!("error: contract {}: {e}", path.display()))
                    .code(EXIT_USAGE)
            });
    }
    match Registry::load(dir) {
        Ok(reg) => match reg.get(&prefix) {
            Some(c) => Ok(Resolved::Found(c.clone())),
            None => Ok(Resolved::Missing(format!(
                "no contract for prefix '{prefix}' in {}",
                dir.display()
            ))),
        },
        Err(e) => Err(Output::default()
            .err(format!(
                "error: cannot load families from {}: {e}",
                dir.display()
            ))
            .code(EXIT_USAGE)),
    }
}

fn unverified(why: String) -> Output {
    Output::default()
        .err(format!("UNVERIFIED: {why}"))
        .code(EXIT_UNVERIFIED)
}

fn text_input(file: &str) -> Result<String, Output> {
    let bytes = read_input(file).map_err(|e| {
        Output::default()
            .err(format!("error: {e}"))
            .code(EXIT_USAGE)
    })?;
    match utf8_failure(&bytes) {
        None => Ok(String::from_utf8(bytes).unwrap_or_default()),
        Some(e) => Err(Output::default()
            .out(format!("INVALID: {e}"))
            .code(EXIT_INVALID)),
    }
}

fn document_contract(file: &str, args: &ContractArgs) -> Result<(String, Contract), Output> {
    let text = text_input(file)?;
    if args.contract.is_none() && mini::__private::syntax::lines(&text).next().is_none() {
        // E01 needs no contract: an empty document is invalid under any.
        return Err(Output::default()
            .out("E01 line 0: empty document: header missing")
            .out("INVALID: 1 error(s)")
            .code(EXIT_INVALID));
    }
    match resolve(args, mini::detect_prefix(&text))? {
        Resolved::Found(c) => Ok((text, c)),
        Resolved::Missing(why) => Err(unverified(why)),
    }
}

fn errors_text(e: &Error) -> String {
    if e.diagnostics().is_empty() {
        return e.to_string();
    }
    e.diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

fn json_text(v: &Value, compact: bool) -> String {
    if compact {
        v.to_string()
    } else {
        serde_json::to_string_pretty(v).unwrap_or_default()
    }
}

/// Runs a parsed command line and returns what it printed and its exit code.
pub fn run(cli: Cli) -> Output {
    let r = match cli.command {
        Command::Validate {
            file,
            contract,
            lenient,
        } => validate(&file, &contract, lenient),
        Command::Diagnose { file, contract } => {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = diagnose_to(&file, &contract, &mut out, &mut err);
            return Output {
                code,
                stdout: String::from_utf8_lossy(&out).into_owned(),
                stderr: String::from_utf8_lossy(&err).into_owned(),
            };
        }
        Command::ToJson {
            file,
            contract,
            lenient,
            compact,
            stream,
        } => {
            if stream {
                let (mut out, mut err) = (Vec::new(), Vec::new());
                let code = stream_to_json(&file, &contract, &mut out, &mut err);
                return Output {
                    code,
                    stdout: String::from_utf8_lossy(&out).into_owned(),
                    stderr: String::from_utf8_lossy(&err).into_owned(),
                };
            }
            to_json(&file, &contract, lenient, compact)
        }
        Command::FromJson { file, contract } => from_json(&file, &contract),
        Command::Conformance { dirs, forks } => conformance(&dirs, forks.as_deref()),
        Command::Extract { file, prefix } => extract(&file, prefix.as_deref()),
        Command::Prompt {
            prefix,
            prefix_flag,
            contract,
            forks,
            lang,
            no_example,
            example_records,
        } => prompt(
            ContractArgs {
                contract,
                prefix: prefix.or(prefix_flag),
                forks,
            },
            &lang,
            (!no_example).then_some(example_records),
        ),
        Command::Grammar {
            prefix,
            prefix_flag,
            contract,
            forks,
            format,
            records,
        } => grammar(
            ContractArgs {
                contract,
                prefix: prefix.or(prefix_flag),
                forks,
            },
            &format,
            records,
        ),
        Command::Forks { dir, forks } => families_dir(dir, forks).and_then(|d| list_forks(&d)),
        Command::CheckForks { dir, forks } => {
            families_dir(dir, forks).and_then(|d| check_forks(&d))
        }
        Command::NewFork {
            prefix,
            from,
            add,
            forks,
        } => families_dir(None, forks).and_then(|d| new_fork(&d, &prefix, from.as_deref(), &add)),
        Command::ToSchema {
            family,
            prefix,
            contract,
            record,
            forks,
        } => to_schema(family.as_deref(), prefix, contract, record, forks),
        Command::FromSchema {
            file,
            prefix,
            strict,
        } => from_schema(&file, prefix.as_deref(), strict),
        #[cfg(feature = "tokens")]
        Command::Tokens { file, enc } => tokens(&file, &enc),
        #[cfg(feature = "tokens")]
        Command::Stats {
            file,
            contract,
            enc,
            format,
        } => stats(&file, &contract, &enc, &format),
        Command::RepairPrompt {
            file,
            contract,
            lang,
        } => repair_prompt(&file, &contract, &lang),
        Command::Merge {
            file,
            answer,
            contract,
        } => merge(&file, &answer, &contract),
    };
    r.unwrap_or_else(|o| o)
}

/// What the streaming reader reports as it reads.
enum Event<'a> {
    /// A valid record, the moment its line closes.
    Record(&'a mini::Record),
    /// An error, in line order.
    Error(&'a Diagnostic),
}

/// A document read line by line through [`mini::PushParser`].
enum Streamed {
    /// A usage or I/O error (the input cannot be opened or read, the
    /// contract cannot be loaded).
    Usage(Output),
    /// No significant line and no contract given: E01 under any contract.
    Empty,
    /// No contract could be found (or no header line names one).
    Unverified(String),
    /// The first significant line cannot be read (invalid UTF-8, too long):
    /// nothing was checked.
    Unread(Failure),
    /// Read through the reader: its account (of the lines before `failure`
    /// when reading stopped early) and the contract's prefix.
    Read {
        end: Box<mini::Result<mini::StreamEnd>>,
        failure: Option<Failure>,
        prefix: String,
    },
}

/// The prefix a first line names when it is a header (`PREFIX|…` with a
/// prefix `[A-Za-z][A-Za-z0-9_-]*`); a line of prose names none.
fn header_prefix(line: &str) -> Option<String> {
    let p = mini::detect_prefix(line)?;
    let mut chars = p.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    ok.then_some(p)
}

/// Reads `file` one line at a time through a lenient [`mini::PushParser`] that
/// keeps no records (bounded memory), calling `on` for every valid record
/// and every error as they are found.
fn stream_document(file: &str, args: &ContractArgs, on: &mut dyn FnMut(Event<'_>)) -> Streamed {
    let limit = mini::Limits::default().max_line_bytes;
    let mut input = match LineInput::open(file, limit) {
        Ok(i) => i,
        Err(f) => return Streamed::Usage(usage(f.to_string())),
    };
    let mut buf = Vec::new();
    let mut blank = 0usize;
    // the head: blank lines, then the first significant line
    let first = loop {
        match input.next_line(&mut buf) {
            Ok(false) => break None,
            Ok(true) => {
                let text = std::str::from_utf8(&buf).unwrap_or_default();
                if mini::__private::syntax::is_blank(text) {
                    blank += 1;
                    continue;
                }
                break Some(std::mem::take(&mut buf));
            }
            Err(f @ Failure::Io(_)) => return Streamed::Usage(usage(f.to_string())),
            Err(f) => return Streamed::Unread(f),
        }
    };
    if first.is_none() && args.contract.is_none() {
        return Streamed::Empty;
    }
    let first_text = first
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).trim_end().to_string());
    let detected = first_text.as_deref().and_then(header_prefix);
    if detected.is_none() && args.prefix.is_none() && args.contract.is_none() {
        if let Some(line) = &first_text {
            let shown: String = line.chars().take(60).collect();
            return Streamed::Unverified(format!(
                "no header: the first line ({shown:?}) is not a header `PREFIX|n=…`, and no \
                 -p PREFIX or --contract PATH was given"
            ));
        }
    }
    let contract = match resolve(args, detected) {
        Ok(Resolved::Found(c)) => c,
        Ok(Resolved::Missing(why)) => return Streamed::Unverified(why),
        Err(o) => return Streamed::Usage(o),
    };
    let mut reader = mini::PushParser::with_options(
        &contract,
        mini::PushOptions {
            keep_records: false,
            // a stream of any length in constant memory: only the line limit
            limits: mini::Limits {
                max_input_bytes: usize::MAX,
                max_records: usize::MAX,
                ..mini::Limits::default()
            },
            ..mini::PushOptions::default()
        },
    );
    let mut reported = 0;
    let mut feed = |reader: &mut mini::PushParser<'_>, bytes: &[u8]| -> Result<(), Failure> {
        let records = reader.push(bytes).map_err(|e| Failure::Io(e.to_string()))?;
        for r in &records {
            on(Event::Record(r));
        }
        for d in &reader.errors()[reported..] {
            on(Event::Error(d));
        }
        reported = reader.errors().len();
        Ok(())
    };
    let mut failure = None;
    for _ in 0..blank {
        if let Err(f) = feed(&mut reader, b"\n") {
            failure = Some(f);
            break;
        }
    }
    if let (None, Some(line)) = (&failure, &first) {
        failure = feed(&mut reader, line).err();
    }
    while failure.is_none() {
        match input.next_line(&mut buf) {
            Ok(false) => break,
            Ok(true) => failure = feed(&mut reader, &buf).err(),
            Err(f) => failure = Some(f),
        }
    }
    let end = reader.end();
    if failure.is_none() {
        // what the end found: the unterminated last line, the count
        if let Ok(end) = &end {
            let errors = end.document.errors();
            if let Some(r) = &end.last_record {
                on(Event::Record(r));
            }
            for d in &errors[reported.min(errors.len())..] {
                on(Event::Error(d));
            }
        }
    }
    Streamed::Read {
        end: Box::new(end),
        failure,
        prefix: contract.prefix().to_string(),
    }
}

fn validate(file: &str, args: &ContractArgs, lenient: bool) -> Result<Output, Output> {
    let mut o = Output::default();
    let mut errors = 0usize;
    let streamed = stream_document(file, args, &mut |ev| {
        if let Event::Error(d) = ev {
            errors += 1;
            o.stdout.push_str(&d.to_string());
            o.stdout.push('\n');
        }
    });
    let (end, failure, prefix) = match streamed {
        Streamed::Usage(u) => return Err(u),
        Streamed::Empty => {
            return Err(Output::default()
                .out("E01 line 0: empty document: header missing")
                .out("INVALID: 1 error(s)")
                .code(EXIT_INVALID))
        }
        Streamed::Unverified(why) => return Err(unverified(why)),
        Streamed::Unread(f) => return Ok(o.out(format!("INVALID: {f}")).code(EXIT_INVALID)),
        Streamed::Read {
            end,
            failure,
            prefix,
        } => (*end, failure, prefix),
    };
    if let Some(f) = failure {
        return Ok(o.out(format!("INVALID: {f}")).code(EXIT_INVALID));
    }
    let end = match end {
        Ok(end) => end,
        Err(e) => return Ok(o.out(format!("INVALID: {e}")).code(EXIT_INVALID)),
    };
    let doc = &end.document;
    if doc.is_valid() {
        let v = doc
            .header()
            .and_then(|h| h.get("v"))
            .and_then(Value::as_u64)
            .unwrap_or(1);
        let n = doc.declared_n().map_or("?".to_string(), |n| n.to_string());
        return Ok(o.out(format!(
            "OK: prefix={prefix} v{v} records={} n={n}",
            end.valid
        )));
    }
    if lenient && doc.has_header() && end.valid > 0 {
        return Ok(o.out(format!(
            "LENIENT: {} valid record(s) kept, {errors} error(s)",
            end.valid
        )));
    }
    Ok(o.out(format!("INVALID: {errors} error(s)"))
        .code(EXIT_INVALID))
}

/// `diagnose`, writing its JSON straight to `out` (the list of valid lines
/// is written from runs, never held whole) and usage errors to `err`;
/// returns the exit code.
pub fn diagnose_to(
    file: &str,
    args: &ContractArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let o = match diagnose(file, args, out) {
        Ok(o) | Err(o) => o,
    };
    let _ = out.write_all(o.stdout.as_bytes());
    let _ = err.write_all(o.stderr.as_bytes());
    let _ = out.flush();
    o.code
}

/// `diagnose`: every outcome but a usage error is JSON on stdout; the JSON
/// of a document read through the reader goes to `out` directly, the
/// others come back in the [`Output`].
fn diagnose(file: &str, args: &ContractArgs, out: &mut dyn Write) -> Result<Output, Output> {
    // valid lines are kept as runs: a valid document of any size is a few
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let streamed = stream_document(file, args, &mut |ev| {
        if let Event::Record(r) = ev {
            match runs.last_mut() {
                Some((_, last)) if *last + 1 == r.line => *last = r.line,
                _ => runs.push((r.line, r.line)),
            }
        }
    });
    let unverified_json = |why: String| {
        let json = serde_json::json!({
            "status": "unverified", "reason": why, "ok": false, "prefix": null,
        });
        Output::default()
            .out(json_text(&json, false))
            .code(EXIT_UNVERIFIED)
    };
    let (end, failure) = match streamed {
        Streamed::Usage(u) => return Err(u),
        Streamed::Unverified(why) => return Ok(unverified_json(why)),
        Streamed::Empty => {
            let json = serde_json::json!({
                "status": "invalid", "ok": false, "prefix": null, "declared_n": null,
                "record_lines": 0, "valid_records": 0, "valid_lines": [], "invalid_lines": [],
                "missing_records": null, "excess_records": null, "truncated": null,
                "errors": [{"code": "E01", "line": 0, "field": null,
                            "message": "empty document: header missing"}],
            });
            return Ok(Output::default()
                .out(json_text(&json, false))
                .code(EXIT_INVALID));
        }
        Streamed::Unread(f) => {
            let json = serde_json::json!({
                "status": "invalid", "ok": false, "input_error": f.to_string(),
            });
            return Ok(Output::default()
                .out(json_text(&json, false))
                .code(EXIT_INVALID));
        }
        Streamed::Read { end, failure, .. } => (*end, failure),
    };
    let end = match end {
        Ok(end) => end,
        Err(e) => {
            let json = serde_json::json!({
                "status": "invalid", "ok": false, "input_error": e.to_string(),
            });
            return Ok(Output::default()
                .out(json_text(&json, false))
                .code(EXIT_INVALID));
        }
    };
    let d = end.document.diagnostics();
    let ok = d.ok && failure.is_none();
    let mut map = match serde_json::to_value(&d) {
        Ok(Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    map.insert("ok".to_string(), Value::Bool(ok));
    let status = if ok { "valid" } else { "invalid" };
    let mut json = serde_json::Map::new();
    json.insert("status".to_string(), status.into());
    json.extend(map);
    if let Some(f) = failure {
        json.insert("input_error".to_string(), f.to_string().into());
    }
    let mut w = std::io::BufWriter::new(&mut *out);
    let _ = serde_json::to_writer_pretty(
        &mut w,
        &WithRuns {
            map: &json,
            runs: &runs,
        },
    );
    let _ = w.write_all(b"\n");
    let _ = w.flush();
    drop(w);
    Ok(Output::default().code(if ok { EXIT_OK } else { EXIT_INVALID }))
}

/// The diagnostics object with `valid_lines` written from runs of lines
/// (the reader keeps no records, so it has no list of them).
struct WithRuns<'a> {
    map: &'a serde_json::Map<String, Value>,
    runs: &'a [(usize, usize)],
}

impl serde::Serialize for WithRuns<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.map.len()))?;
        for (k, v) in self.map {
            if k == "valid_lines" {
                let lines = self.runs.iter().flat_map(|&(a, b)| a..=b);
                m.serialize_entry(k, &Lines(std::cell::RefCell::new(Some(lines))))?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// A sequence written from an iterator, once.
struct Lines<I>(std::cell::RefCell<Option<I>>);

impl<I: Iterator<Item = usize>> serde::Serialize for Lines<I> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.borrow_mut().take() {
            Some(it) => s.collect_seq(it),
            None => s.collect_seq(std::iter::empty::<usize>()),
        }
    }
}

fn to_json(
    file: &str,
    args: &ContractArgs,
    lenient: bool,
    compact: bool,
) -> Result<Output, Output> {
    let (text, c) = document_contract(file, args)?;
    if lenient {
        let doc = mini::parse_lenient(&text, &c);
        let mut o = Output::default();
        for d in doc.errors() {
            o = o.err(d.to_string());
        }
        let code = if doc.is_valid() {
            EXIT_OK
        } else {
            EXIT_INVALID
        };
        return Ok(o.out(json_text(&doc.into_canonical(), compact)).code(code));
    }
    match mini::parse(&text, &c) {
        Ok(doc) => Ok(Output::default().out(json_text(&doc.into_canonical(), compact))),
        Err(e) => Ok(Output::default()
            .err(errors_text(&e))
            .err(format!("INVALID: {} error(s)", e.diagnostics().len()))
            .code(EXIT_INVALID)),
    }
}

fn from_json(file: &str, args: &ContractArgs) -> Result<Output, Output> {
    let bytes = read_input(file).map_err(|e| {
        Output::default()
            .err(format!("error: {e}"))
            .code(EXIT_USAGE)
    })?;
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => {
            return Ok(Output::default()
                .err(format!("INVALID: not a JSON document: {e}"))
                .code(EXIT_INVALID))
        }
    };
    let detected = value
        .get("prefix")
        .and_then(Value::as_str)
        .map(str::to_string);
    let c = match resolve(args, detected)? {
        Resolved::Found(c) => c,
        Resolved::Missing(why) => return Err(unverified(why)),
    };
    match mini::dumps(&value, &c) {
        Ok(text) => Ok(Output::default().out(text)),
        Err(e) => Ok(Output::default()
            .err(errors_text(&e))
            .err(format!("INVALID: {} error(s)", e.diagnostics().len()))
            .code(EXIT_INVALID)),
    }
}

fn extract(file: &str, prefix: Option<&str>) -> Result<Output, Output> {
    let text = text_input(file)?;
    let got = mini_tools::repair::extract(&text, prefix);
    let mut o = Output::default();
    for f in &got.fixes {
        o = o.err(format!("fixed: {f}"));
    }
    o.stdout.push_str(&got.text);
    if !got.text.ends_with('\n') {
        o.stdout.push('\n');
    }
    Ok(o)
}

/// Reads a document, extracts it from any surrounding prose (reporting the
/// fixes) and resolves its contract.
fn extracted_document(
    file: &str,
    args: &ContractArgs,
) -> Result<(String, Contract, Output), Output> {
    let raw = text_input(file)?;
    let got = mini_tools::repair::extract(&raw, args.prefix.as_deref());
    let mut o = Output::default();
    for f in &got.fixes {
        o = o.err(format!("fixed: {f}"));
    }
    match resolve(args, mini::detect_prefix(&got.text))? {
        Resolved::Found(c) => Ok((got.text, c, o)),
        Resolved::Missing(why) => Err(unverified(why)),
    }
}

fn repair_prompt(file: &str, args: &ContractArgs, lang: &str) -> Result<Output, Output> {
    let lang: mini_tools::repair::Lang = lang.parse().map_err(|_| {
        Output::default()
            .err(format!("error: --lang must be en or es, not '{lang}'"))
            .code(EXIT_USAGE)
    })?;
    let (text, c, o) = extracted_document(file, args)?;
    match mini_tools::repair::repair_request(&text, &c, lang) {
        None => Ok(o.err("valid: nothing to repair")),
        Some(req) => Ok(o.out(req.prompt.trim_end())),
    }
}

fn merge(file: &str, answer: &str, args: &ContractArgs) -> Result<Output, Output> {
    let (text, c, mut o) = extracted_document(file, args)?;
    let answer_text = text_input(answer)?;
    let Some(req) = mini_tools::repair::repair_request(&text, &c, mini_tools::repair::Lang::En)
    else {
        o.stdout.push_str(&text);
        return Ok(o.err("valid: nothing to merge"));
    };
    let m = mini_tools::repair::merge(&text, &req, &answer_text, &c);
    for f in &m.fixes {
        o = o.err(format!("answer fixed: {f}"));
    }
    if let Some(p) = &m.answer_problem {
        o = o.err(format!("answer rejected: {p}"));
    }
    for i in &m.applied {
        o = o.err(format!("applied [{}]", req.items[*i].tag()));
    }
    for i in &m.dropped {
        o = o.err(format!("dropped [{}]", req.items[*i].tag()));
    }
    for u in &m.unresolved {
        o = o.err(format!(
            "unresolved [{}]: {}",
            req.items[u.item].tag(),
            u.reason
        ));
    }
    let doc = mini::parse_lenient(&m.text, &c);
    for d in doc.errors() {
        o = o.err(format!("remaining: {d}"));
    }
    o.stdout.push_str(&m.text);
    if !m.text.ends_with('\n') {
        o.stdout.push('\n');
    }
    Ok(o.code(if doc.is_valid() {
        EXIT_OK
    } else {
        EXIT_INVALID
    }))
}

/// The contract named by --contract or by a prefix in --forks.
fn named_contract(args: &ContractArgs) -> Result<Contract, Output> {
    if args.contract.is_none() && args.prefix.is_none() {
        return Err(usage(
            "name the contract: PREFIX (with --forks) or --contract PATH",
        ));
    }
    match resolve(args, None)? {
        Resolved::Found(c) => Ok(c),
        Resolved::Missing(why) => Err(unverified(why)),
    }
}

fn prompt(args: ContractArgs, lang: &str, example: Option<usize>) -> Result<Output, Output> {
    let lang: mini_tools::prompt::Lang = lang.parse().map_err(usage)?;
    let c = named_contract(&args)?;
    Ok(Output::default().out(mini_tools::prompt::spec_block(&c, lang, example).trim_end()))
}

fn grammar(args: ContractArgs, format: &str, records: Option<usize>) -> Result<Output, Output> {
    let format: mini_tools::grammar::GrammarFormat = format.parse().map_err(|_| {
        usage(format!(
            "--format must be gbnf, lark or regex, not '{format}'"
        ))
    })?;
    let c = named_contract(&args)?;
    Ok(Output::default().out(mini_tools::grammar::grammar(&c, format, records).trim_end()))
}

fn usage(msg: impl AsRef<str>) -> Output {
    Output::default()
        .err(format!("error: {}", msg.as_ref()))
        .code(EXIT_USAGE)
}

fn families_dir(dir: Option<PathBuf>, forks: Option<PathBuf>) -> Result<PathBuf, Output> {
    dir.or(forks)
        .ok_or_else(|| usage("give the families directory (DIR, --forks DIR or MINI_FORKS)"))
}

fn list_forks(dir: &Path) -> Result<Output, Output> {
    let fams = mini_tools::family::list_families(dir).map_err(|e| usage(e.to_string()))?;
    Ok(Output::default().out(mini_tools::family::render_families(&fams).trim_end()))
}

fn check_forks(dir: &Path) -> Result<Output, Output> {
    let report = mini_tools::family::check_forks(dir).map_err(|e| usage(e.to_string()))?;
    let code = if report.ok { EXIT_OK } else { EXIT_INVALID };
    Ok(Output::default().out(report.render().trim_end()).code(code))
}

fn new_fork(
    dir: &Path,
    prefix: &str,
    from: Option<&str>,
    add: &[String],
) -> Result<Output, Output> {
    let fields = add
        .iter()
        .map(|a| mini_tools::family::parse_field_arg(a))
        .collect::<mini::Result<Vec<(String, String)>>>()
        .map_err(|e| usage(e.to_string()))?;
    match mini_tools::family::new_fork(dir, prefix, from, &fields) {
        Ok(path) => Ok(Output::default().out(format!("created {}", path.display()))),
        Err(e) => Ok(Output::default().err(errors_text(&e)).code(EXIT_INVALID)),
    }
}

fn to_schema(
    family: Option<&str>,
    prefix: Option<String>,
    contract: Option<PathBuf>,
    record: bool,
    forks: Option<PathBuf>,
) -> Result<Output, Output> {
    // the positional FAMILY is a prefix, or a contract.json path
    let (prefix, contract) = match family {
        Some(f) if f.ends_with(".json") || Path::new(f).is_file() => (None, Some(PathBuf::from(f))),
        Some(f) => (Some(f.to_string()), contract),
        None => (prefix, contract),
    };
    let c = named_contract(&ContractArgs {
        contract,
        prefix,
        forks,
    })?;
    Ok(Output::default().out(json_text(&mini_tools::schema::to_schema(&c, record), false)))
}

fn from_schema(file: &str, prefix: Option<&str>, strict: bool) -> Result<Output, Output> {
    let bytes = read_input(file).map_err(usage)?;
    let schema: Value =
        serde_json::from_slice(&bytes).map_err(|e| usage(format!("{file}: not JSON: {e}")))?;
    match mini_tools::schema::from_schema(&schema, prefix, strict) {
        Ok((c, warnings)) => {
            let mut o = Output::default();
            for w in warnings {
                o = o.err(format!("warning: {w}"));
            }
            Ok(o.out(json_text(c.to_value(), false)))
        }
        Err(e) => Ok(Output::default().err(errors_text(&e)).code(EXIT_INVALID)),
    }
}

#[cfg(feature = "tokens")]
fn encoding(enc: &str) -> Result<mini_tools::tokens::Encoding, Output> {
    enc.parse().map_err(|_| {
        usage(format!(
            "--enc must be o200k_base or cl100k_base, not '{enc}'"
        ))
    })
}

#[cfg(feature = "tokens")]
fn tokens(file: &str, enc: &str) -> Result<Output, Output> {
    let enc = encoding(enc)?;
    let text = text_input(file)?;
    let n = mini_tools::tokens::try_count(&text, enc).map_err(|e| usage(e.to_string()))?;
    Ok(Output::default().out(format!("{n} tokens ({}), {} bytes", enc.name(), text.len())))
}

#[cfg(feature = "tokens")]
fn stats(file: &str, args: &ContractArgs, enc: &str, format: &str) -> Result<Output, Output> {
    let enc = encoding(enc)?;
    if format != "table" && format != "json" {
        return Err(usage(format!(
            "--format must be table or json, not '{format}'"
        )));
    }
    let (text, c) = document_contract(file, args)?;
    match mini_tools::tokens::stats(&text, &c, enc) {
        Ok(st) if format == "json" => Ok(Output::default().out(json_text(
            &serde_json::to_value(&st).unwrap_or(Value::Null),
            false,
        ))),
        Ok(st) => Ok(Output::default().out(st.render_table().trim_end())),
        Err(e) => Ok(Output::default().err(errors_text(&e)).code(EXIT_INVALID)),
    }
}

fn conformance(dirs: &[PathBuf], forks: Option<&Path>) -> Result<Output, Output> {
    let runner = Runner::new(forks.map(Path::to_path_buf));
    let mut o = Output::default();
    let (mut passed, mut failed) = (0, 0);
    for dir in dirs {
        let report = runner.run_dir(dir).map_err(|e| {
            Output::default()
                .err(format!("error: {e}"))
                .code(EXIT_USAGE)
        })?;
        for f in report.outcomes.iter().filter(|f| f.failure.is_some()) {
            o = o.out(format!(
                "FAIL {}: {}",
                f.id,
                f.failure.as_deref().unwrap_or("")
            ));
        }
        passed += report.passed();
        failed += report.failed();
    }
    let code = if failed > 0 { EXIT_INVALID } else { EXIT_OK };
    Ok(o.out(format!("{passed} passed, {failed} failed"))
        .code(code))
}

/// `to-json --stream`: reads the input line by line (bounded memory),
/// resolves the contract once the header line is in, and writes each record
/// as one JSON line the moment its line closes (flushing each), errors to
/// `err` as they are found, and a final `{"summary": …}` object to `err`,
/// also when reading stops early (invalid UTF-8, a line past the limit:
/// the summary then counts the lines before it and names the failure).
pub fn stream_to_json(
    file: &str,
    args: &ContractArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let streamed = {
        let err = &mut *err;
        stream_document(file, args, &mut |ev| match ev {
            Event::Record(r) => {
                let _ = writeln!(out, "{}", Value::Object(r.value.clone()));
                let _ = out.flush();
            }
            Event::Error(d) => {
                let _ = writeln!(err, "{d}");
            }
        })
    };
    let summary =
        |err: &mut dyn Write, end: Option<&mini::StreamEnd>, failure: Option<&Failure>| {
            let mut s = serde_json::json!({
                "expected": end.and_then(|e| e.expected),
                "received": end.map_or(0, |e| e.received),
                "valid": end.map_or(0, |e| e.valid),
                "missing": end.and_then(|e| e.missing),
                "excess": end.and_then(|e| e.excess),
                "last_line_terminated": end.is_some_and(|e| e.last_line_terminated),
                "truncated": end.and_then(|e| e.truncated),
                "complete": failure.is_none() && end.is_some_and(|e| e.complete),
                "errors": end.map_or(0, |e| e.document.errors().len()),
            });
            if let Some(f) = failure {
                s["input_error"] = f.to_string().into();
            }
            let _ = writeln!(err, "{}", serde_json::json!({ "summary": s }));
        };
    match streamed {
        Streamed::Usage(o) => {
            let _ = err.write_all(o.stderr.as_bytes());
            o.code
        }
        Streamed::Empty => {
            let _ = writeln!(err, "E01 line 0: empty document: header missing");
            EXIT_INVALID
        }
        Streamed::Unverified(why) => {
            let _ = writeln!(err, "UNVERIFIED: {why}");
            EXIT_UNVERIFIED
        }
        Streamed::Unread(f) => {
            let _ = writeln!(err, "INVALID: {f}");
            summary(err, None, Some(&f));
            EXIT_INVALID
        }
        Streamed::Read { end, failure, .. } => match *end {
            Ok(end) => {
                if let Some(f) = &failure {
                    let _ = writeln!(err, "INVALID: {f}");
                }
                summary(err, Some(&end), failure.as_ref());
                if end.complete && failure.is_none() {
                    EXIT_OK
                } else {
                    EXIT_INVALID
                }
            }
            Err(e) => {
                let _ = writeln!(err, "INVALID: {e}");
                let f = failure.unwrap_or(Failure::Io(e.to_string()));
                summary(err, None, Some(&f));
                EXIT_INVALID
            }
        },
    }
}

/// Entry point of the binary: parses `std::env::args`, runs, prints, and
/// returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { EXIT_OK };
        }
    };
    if let Command::ToJson {
        file,
        contract,
        stream: true,
        ..
    } = &cli.command
    {
        let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
        return stream_to_json(file, contract, &mut stdout.lock(), &mut stderr.lock());
    }
    if let Command::Diagnose { file, contract } = &cli.command {
        let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
        return diagnose_to(file, contract, &mut stdout.lock(), &mut stderr.lock());
    }
    let out = run(cli);
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    out.code
}
