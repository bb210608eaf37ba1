//! The `mini` command-line tool (feature `cli`).
//!
//! Exit codes: 0 valid, 1 invalid, 2 usage or I/O error, 3 unverified (no
//! contract could be found for the document's prefix: neither valid nor
//! invalid).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use serde_json::Value;

use mini::{Contract, Error, Registry};
use mini_tools::conformance::Runner;

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
    Validate {
        /// The .mini file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
    },
    /// Print the diagnostics of a lenient parse as JSON (declared n, valid
    /// and invalid lines, missing records, truncation, errors).
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
        /// A prefix (looked up in --forks) or a contract.json path.
        contract: String,
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
        /// The family prefix (looked up in --forks); or use --contract.
        prefix: Option<String>,
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
        /// The family prefix (looked up in --forks); or use --contract.
        prefix: Option<String>,
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
    match mini::from_utf8(&bytes) {
        Ok(_) => Ok(String::from_utf8(bytes).unwrap_or_default()),
        Err(e) => Err(Output::default()
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
        Command::Validate { file, contract } => validate(&file, &contract),
        Command::Diagnose { file, contract } => diagnose(&file, &contract),
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
            contract,
            forks,
            lang,
            no_example,
            example_records,
        } => prompt(
            ContractArgs {
                contract,
                prefix,
                forks,
            },
            &lang,
            (!no_example).then_some(example_records),
        ),
        Command::Grammar {
            prefix,
            contract,
            forks,
            format,
            records,
        } => grammar(
            ContractArgs {
                contract,
                prefix,
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
            contract,
            record,
            forks,
        } => to_schema(&contract, record, forks),
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

fn validate(file: &str, args: &ContractArgs) -> Result<Output, Output> {
    let (text, c) = document_contract(file, args)?;
    let doc = mini::parse_lenient(&text, &c);
    if doc.is_valid() {
        let v = doc
            .header()
            .and_then(|h| h.get("v"))
            .and_then(Value::as_u64)
            .unwrap_or(1);
        let n = doc.declared_n().map_or("?".to_string(), |n| n.to_string());
        return Ok(Output::default().out(format!(
            "OK: prefix={} v{v} records={} n={n}",
            c.prefix(),
            doc.records().len()
        )));
    }
    let mut o = Output::default();
    for d in doc.errors() {
        o = o.out(d.to_string());
    }
    Ok(o.out(format!("INVALID: {} error(s)", doc.errors().len()))
        .code(EXIT_INVALID))
}

fn diagnose(file: &str, args: &ContractArgs) -> Result<Output, Output> {
    let (text, c) = document_contract(file, args)?;
    let doc = mini::parse_lenient(&text, &c);
    let d = doc.diagnostics();
    let json = serde_json::to_value(&d).unwrap_or(Value::Null);
    let code = if d.ok { EXIT_OK } else { EXIT_INVALID };
    Ok(Output::default().out(json_text(&json, false)).code(code))
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

fn to_schema(contract: &str, record: bool, forks: Option<PathBuf>) -> Result<Output, Output> {
    let c = if contract.ends_with(".json") || Path::new(contract).is_file() {
        Contract::from_path(contract).map_err(|e| usage(format!("contract {contract}: {e}")))?
    } else {
        let args = ContractArgs {
            contract: None,
            prefix: Some(contract.to_string()),
            forks,
        };
        match resolve(&args, None)? {
            Resolved::Found(c) => c,
            Resolved::Missing(why) => return Err(unverified(why)),
        }
    };
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

/// `to-json --stream`: reads the input in chunks, resolves the contract
/// once the header line is in, and writes each record as one JSON line the
/// moment its line closes (flushing each), errors to `err` as they are
/// found, and a final `{"summary": …}` object to `err`.
pub fn stream_to_json(
    file: &str,
    args: &ContractArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let mut input: Box<dyn Read> = if file == "-" {
        Box::new(std::io::stdin())
    } else {
        match std::fs::File::open(file) {
            Ok(f) => Box::new(f),
            Err(e) => {
                let _ = writeln!(err, "error: cannot read {file}: {e}");
                return EXIT_USAGE;
            }
        }
    };
    let mut chunk = vec![0u8; 4096];
    let mut head: Vec<u8> = Vec::new();
    // read until the first significant line is complete (or the input ends)
    let header_ready = |head: &[u8]| {
        let text = String::from_utf8_lossy(head);
        let mut lines = text.split('\n');
        let complete = text.matches('\n').count();
        lines
            .by_ref()
            .take(complete)
            .any(|l| !mini::__private::syntax::is_blank(l.trim_end_matches('\r')))
    };
    let mut eof = false;
    while !eof && !header_ready(&head) {
        match input.read(&mut chunk) {
            Ok(0) => eof = true,
            Ok(k) => head.extend_from_slice(&chunk[..k]),
            Err(e) => {
                let _ = writeln!(err, "error: cannot read {file}: {e}");
                return EXIT_USAGE;
            }
        }
    }
    let detected = mini::detect_prefix(&String::from_utf8_lossy(&head));
    let contract = match resolve(args, detected) {
        Ok(Resolved::Found(c)) => c,
        Ok(Resolved::Missing(why)) => {
            if head.iter().all(u8::is_ascii_whitespace) && args.contract.is_none() {
                let _ = writeln!(err, "E01 line 0: empty document: header missing");
                return EXIT_INVALID;
            }
            let _ = writeln!(err, "UNVERIFIED: {why}");
            return EXIT_UNVERIFIED;
        }
        Err(o) => {
            let _ = err.write_all(o.stderr.as_bytes());
            return o.code;
        }
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
    let mut emit = |records: Vec<mini::Record>,
                    reader: &mini::PushParser<'_>,
                    out: &mut dyn Write,
                    err: &mut dyn Write| {
        for r in records {
            let _ = writeln!(out, "{}", Value::Object(r.value));
        }
        let _ = out.flush();
        for d in &reader.errors()[reported..] {
            let _ = writeln!(err, "{d}");
        }
        reported = reader.errors().len();
    };
    let mut data = head;
    loop {
        match reader.push(&data) {
            Ok(records) => emit(records, &reader, out, err),
            Err(e) => {
                let _ = writeln!(err, "INVALID: {e}");
                return EXIT_INVALID;
            }
        }
        if eof {
            break;
        }
        match input.read(&mut chunk) {
            Ok(0) => eof = true,
            Ok(k) => data = chunk[..k].to_vec(),
            Err(e) => {
                let _ = writeln!(err, "error: cannot read {file}: {e}");
                return EXIT_USAGE;
            }
        }
        if eof {
            data.clear();
        }
    }
    match reader.end() {
        Ok(end) => {
            if let Some(r) = &end.last_record {
                let _ = writeln!(out, "{}", Value::Object(r.value.clone()));
                let _ = out.flush();
            }
            for d in &end.document.errors()[reported.min(end.document.errors().len())..] {
                let _ = writeln!(err, "{d}");
            }
            let summary = serde_json::json!({"summary": {
                "expected": end.expected,
                "received": end.received,
                "valid": end.valid,
                "missing": end.missing,
                "excess": end.excess,
                "last_line_terminated": end.last_line_terminated,
                "truncated": end.truncated,
                "complete": end.complete,
                "errors": end.document.errors().len(),
            }});
            let _ = writeln!(err, "{summary}");
            if end.complete {
                EXIT_OK
            } else {
                EXIT_INVALID
            }
        }
        Err(e) => {
            let _ = writeln!(err, "INVALID: {e}");
            EXIT_INVALID
        }
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
    let out = run(cli);
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    out.code
}
