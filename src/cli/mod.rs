//! The `mini` command-line tool (feature `cli`).
//!
//! Exit codes: 0 valid, 1 invalid, 2 usage or I/O error, 3 unverified (no
//! contract could be found for the document's prefix: neither valid nor
//! invalid).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand};
use serde_json::Value;

use crate::conformance::Runner;
use crate::{Contract, Error, Registry};

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
    },
    /// Serialize a canonical JSON object to canonical `.mini` text.
    FromJson {
        /// The JSON file (`-` for stdin).
        file: String,
        #[command(flatten)]
        contract: ContractArgs,
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
    match crate::from_utf8(&bytes) {
        Ok(_) => Ok(String::from_utf8(bytes).unwrap_or_default()),
        Err(e) => Err(Output::default()
            .out(format!("INVALID: {e}"))
            .code(EXIT_INVALID)),
    }
}

fn document_contract(file: &str, args: &ContractArgs) -> Result<(String, Contract), Output> {
    let text = text_input(file)?;
    if args.contract.is_none() && crate::syntax::lines(&text).next().is_none() {
        // E01 needs no contract: an empty document is invalid under any.
        return Err(Output::default()
            .out("E01 line 0: empty document: header missing")
            .out("INVALID: 1 error(s)")
            .code(EXIT_INVALID));
    }
    match resolve(args, crate::detect_prefix(&text))? {
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
        } => to_json(&file, &contract, lenient, compact),
        Command::FromJson { file, contract } => from_json(&file, &contract),
        Command::Conformance { dirs, forks } => conformance(&dirs, forks.as_deref()),
    };
    r.unwrap_or_else(|o| o)
}

fn validate(file: &str, args: &ContractArgs) -> Result<Output, Output> {
    let (text, c) = document_contract(file, args)?;
    let doc = crate::parse_lenient(&text, &c);
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
    let doc = crate::parse_lenient(&text, &c);
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
        let doc = crate::parse_lenient(&text, &c);
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
    match crate::parse(&text, &c) {
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
    match crate::dumps(&value, &c) {
        Ok(text) => Ok(Output::default().out(text)),
        Err(e) => Ok(Output::default()
            .err(errors_text(&e))
            .err(format!("INVALID: {} error(s)", e.diagnostics().len()))
            .code(EXIT_INVALID)),
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
    let out = run(cli);
    let _ = std::io::stdout().write_all(out.stdout.as_bytes());
    let _ = std::io::stderr().write_all(out.stderr.as_bytes());
    out.code
}
