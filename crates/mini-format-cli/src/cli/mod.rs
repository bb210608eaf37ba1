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

mod ask;
#[cfg(feature = "arrow")]
mod columnar;
mod conformance;
mod convert;
mod family;
mod model;
mod repair;
mod stream;

use ask::*;
#[cfg(feature = "arrow")]
use columnar::*;
use conformance::*;
use convert::*;
use family::*;
use model::*;
use repair::*;
use stream::*;
pub use stream::{diagnose_to, stream_to_json};

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
        /// The input is a model's answer: extract the document first (as
        /// `mini extract`: prose, Markdown fences, BOM, CRLF), each fix
        /// reported on stderr. The input is then read whole.
        #[arg(long)]
        extract: bool,
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
        /// The input is a model's answer: extract the document first (as
        /// `mini extract`), each fix reported on stderr.
        #[arg(long)]
        extract: bool,
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
        #[arg(long, conflicts_with_all = ["lenient", "out"])]
        stream: bool,
        /// The input is a model's answer: extract the document first (as
        /// `mini extract`), each fix reported on stderr.
        #[arg(long)]
        extract: bool,
        /// Write the JSON to FILE (LF line ends) instead of stdout; the
        /// file is replaced only when the command succeeds (exit 0).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Serialize a canonical JSON object to canonical `.mini` text.
    FromJson {
        /// The JSON file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
        /// Write the text to FILE (LF line ends) instead of stdout; the
        /// file is replaced only when the command succeeds (exit 0).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
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
    /// List the families of a directory, one line each: prefix, version,
    /// parent, arity (core+extensions) and the contract's name (its
    /// description); `mini to-schema` or the contract.json gives the fields.
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
        /// `enum{a|b}`, `list<T>`, `mlist<T>`, `tuple(a:T,…)`, with optional
        /// `[lo..hi]` and a trailing `?`).
        #[arg(long = "add", value_name = "NAME:TYPE")]
        add: Vec<String>,
        /// The new contract's `name` (its one-line description, shown by
        /// `mini forks`).
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
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
        /// Write the schema to FILE (LF line ends) instead of stdout; the
        /// file is replaced only when the command succeeds (exit 0).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
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
        /// The new contract's `name` (its one-line description; overrides
        /// the schema's title).
        #[arg(long, value_name = "NAME")]
        name: Option<String>,
        /// The key of the records array in the canonical object (overrides
        /// the schema's).
        #[arg(long, value_name = "KEY")]
        records_key: Option<String>,
        /// Write the contract to FILE (LF line ends) instead of stdout; the
        /// file is replaced only when the command succeeds (exit 0).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
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
    /// The input is a .mini document, or its canonical JSON object (a file
    /// ending in `.json`, or any input starting with `{`): the same data
    /// measured from its JSON side.
    #[cfg(feature = "tokens")]
    Stats {
        /// The .mini or canonical .json file (`-` for stdin).
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
    /// Ask a model for the contract's records and get validated JSON back:
    /// the prompt is sent to the model command, the answer extracted,
    /// validated, its broken lines repaired selectively and a cut answer
    /// continued (at most 1 + repairs + continuations calls). Prints the
    /// canonical JSON on stdout and a summary line on stderr. Exit 0 valid,
    /// 1 invalid after every allowed call, 2 usage, model or I/O failure,
    /// 3 unverified (no contract found).
    Ask {
        #[command(flatten)]
        contract: ContractArgs,
        #[command(flatten)]
        ask: AskArgs,
    },
    /// The pipeline of `ask` on an answer in hand, with no model: extract
    /// (prose, fences, BOM, CRLF), validate, decode. Prints the canonical
    /// JSON, or the diagnostics and exit 1 (a cut or short answer is
    /// invalid: nothing can be asked again).
    Process {
        /// The model's answer (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
        /// Write the report as JSON to FILE.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// One-line JSON instead of pretty-printed.
        #[arg(long)]
        compact: bool,
    },
    /// Convert documents to one Parquet file, typed by the contract (a
    /// directory: every `.mini` file in it, with a `source` column). Reads
    /// line by line: memory holds one batch, not the input.
    #[cfg(feature = "arrow")]
    ToParquet(ColumnarArgs),
    /// Convert documents to an Arrow IPC stream (`.arrows`), as `to-parquet`.
    #[cfg(feature = "arrow")]
    ToArrow(ColumnarArgs),
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

/// The contract named by the arguments (or by the document's prefix,
/// `detected`). A contract with lists of free text and no count key is
/// warned about on stderr as it is loaded ([`Contract::delimiter_warnings`]).
fn resolve(args: &ContractArgs, detected: Option<String>) -> Result<Resolved, Output> {
    let r = resolve_contract(args, detected)?;
    if let Resolved::Found(c) = &r {
        for w in c.delimiter_warnings() {
            eprintln!("warning: {}: {w}", c.prefix());
        }
    }
    Ok(r)
}

fn resolve_contract(args: &ContractArgs, detected: Option<String>) -> Result<Resolved, Output> {
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
    if let Err(e) = mini::from_utf8(&bytes) {
        return Err(Output::default()
            .out(format!("INVALID: {e}"))
            .code(EXIT_INVALID));
    }
    Ok(String::from_utf8(bytes).unwrap_or_default())
}

fn document_contract(file: &str, args: &ContractArgs) -> Result<(String, Contract), Output> {
    let text = text_input(file)?;
    if args.contract.is_none() && mini::__private::syntax::lines(&text).next().is_none() {
        // E01 needs no contract: an empty document is invalid under any.
        return Err(Output::default()
            .out("E01 document: no header line: the text is empty or blank")
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
            extract,
        } => validate(&file, &contract, lenient, extract),
        Command::Diagnose {
            file,
            contract,
            extract,
        } => {
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let code = diagnose_to(&file, &contract, extract, &mut out, &mut err);
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
            extract,
            out,
        } => {
            if stream {
                let (mut out, mut err) = (Vec::new(), Vec::new());
                let code = stream_to_json(&file, &contract, extract, &mut out, &mut err);
                return Output {
                    code,
                    stdout: String::from_utf8_lossy(&out).into_owned(),
                    stderr: String::from_utf8_lossy(&err).into_owned(),
                };
            }
            to_json(&file, &contract, lenient, compact, extract)
                .map(|o| write_out(o, out.as_deref()))
        }
        Command::FromJson {
            file,
            contract,
            out,
        } => from_json(&file, &contract).map(|o| write_out(o, out.as_deref())),
        Command::Conformance { dirs, forks } => conformance(&dirs, forks.as_deref()),
        Command::Ask { contract, ask: a } => ask(&contract, &a),
        Command::Process {
            file,
            contract,
            report,
            compact,
        } => process(&file, &contract, report.as_deref(), compact),
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
            name,
            forks,
        } => families_dir(None, forks)
            .and_then(|d| new_fork(&d, &prefix, from.as_deref(), &add, name.as_deref())),
        Command::ToSchema {
            family,
            prefix,
            contract,
            record,
            forks,
            out,
        } => to_schema(family.as_deref(), prefix, contract, record, forks)
            .map(|o| write_out(o, out.as_deref())),
        Command::FromSchema {
            file,
            prefix,
            strict,
            name,
            records_key,
            out,
        } => from_schema(
            &file,
            prefix.as_deref(),
            strict,
            name.as_deref(),
            records_key.as_deref(),
        )
        .map(|o| write_out(o, out.as_deref())),
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
        #[cfg(feature = "arrow")]
        Command::ToParquet(a) => to_columnar(&a, Columnar::Parquet),
        #[cfg(feature = "arrow")]
        Command::ToArrow(a) => to_columnar(&a, Columnar::ArrowIpc),
    };
    r.unwrap_or_else(|o| o)
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

fn usage(msg: impl AsRef<str>) -> Output {
    Output::default()
        .err(format!("error: {}", msg.as_ref()))
        .code(EXIT_USAGE)
}

/// `--out FILE`: a successful command's stdout goes to `path` instead, with
/// LF line ends, written to a temporary file beside it and renamed over it
/// (the file is replaced whole, or not at all). A failed command leaves the
/// file as it was and prints nothing on stdout; stderr says why.
fn write_out(o: Output, path: Option<&Path>) -> Output {
    let Some(path) = path else {
        return o;
    };
    if o.code != EXIT_OK {
        let why = format!("not written: {} (the command failed)", path.display());
        return Output {
            stdout: String::new(),
            ..o
        }
        .err(why);
    }
    let text = o.stdout.replace("\r\n", "\n");
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, text.as_bytes()).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Output {
            stdout: String::new(),
            ..o
        }
        .err(format!("error: cannot write {}: {e}", path.display()))
        .code(EXIT_USAGE);
    }
    Output {
        stdout: String::new(),
        ..o
    }
}

fn families_dir(dir: Option<PathBuf>, forks: Option<PathBuf>) -> Result<PathBuf, Output> {
    dir.or(forks)
        .ok_or_else(|| usage("give the families directory (DIR, --forks DIR or MINI_FORKS)"))
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
        extract,
        ..
    } = &cli.command
    {
        let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
        return stream_to_json(
            file,
            contract,
            *extract,
            &mut stdout.lock(),
            &mut stderr.lock(),
        );
    }
    if let Command::Diagnose {
        file,
        contract,
        extract,
    } = &cli.command
    {
        let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
        return diagnose_to(
            file,
            contract,
            *extract,
            &mut stdout.lock(),
            &mut stderr.lock(),
        );
    }
    let out = run(cli);
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    out.code
}
