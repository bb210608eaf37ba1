//! `ask` (the workflow with a model command) and `process` (the same
//! pipeline on an answer in hand, with no model).

use std::process::{Command as Process, Stdio};

use mini_tools::workflow::{Failure, ModelReply, ModelRequest, Outcome, Workflow, WorkflowError};

use super::*;

/// The options of `mini ask` besides the contract.
#[derive(Debug, Args, Clone)]
pub struct AskArgs {
    /// The task for the model (what records to write).
    #[arg(
        long,
        value_name = "TEXT",
        required_unless_present = "task_file",
        conflicts_with = "task_file"
    )]
    task: Option<String>,
    /// A file holding the task (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    task_file: Option<String>,
    /// The model: a shell command run once per call (`sh -c CMD`), with
    /// the prompt on its standard input; its standard output is the
    /// answer. A non-zero exit is a model failure (exit 2, with its
    /// stderr). It sees MINI_CALL (1, 2, …) and MINI_CALL_KIND (generate,
    /// regenerate, repair, continue) in its environment.
    #[cfg_attr(
        feature = "http",
        arg(
            long,
            value_name = "CMD",
            required_unless_present = "endpoint",
            conflicts_with = "endpoint"
        )
    )]
    #[cfg_attr(not(feature = "http"), arg(long, value_name = "CMD", required = true))]
    model_cmd: Option<String>,
    /// The model: an OpenAI-compatible chat-completions endpoint, its base
    /// URL up to the API version (`http://127.0.0.1:11434/v1` for Ollama,
    /// `http://127.0.0.1:8080/v1` for llama.cpp's server); needs --model.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "URL", requires = "model")]
    endpoint: Option<String>,
    /// The model name sent to --endpoint.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "NAME", requires = "endpoint")]
    model: Option<String>,
    /// The environment variable holding the endpoint's API key, sent only
    /// as `Authorization: Bearer …` (never printed or reported). Unset or
    /// empty: no key, as for most local servers.
    #[cfg(feature = "http")]
    #[arg(
        long,
        value_name = "VAR",
        default_value = "OPENAI_API_KEY",
        requires = "endpoint"
    )]
    api_key_env: String,
    /// The most tokens of each answer (`max_tokens`).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", requires = "endpoint")]
    max_tokens: Option<u64>,
    /// Sampling temperature.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "T", requires = "endpoint")]
    temperature: Option<f64>,
    /// Retries of a 429 or 5xx answer (a retry is not a workflow round).
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N", default_value_t = 2, requires = "endpoint")]
    http_retries: u32,
    /// Seconds allowed for each HTTP attempt.
    #[cfg(feature = "http")]
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 120,
        requires = "endpoint"
    )]
    http_timeout: u64,
    /// The number of records required (a complete document with another
    /// number is not a success).
    #[arg(long, value_name = "N")]
    expected_records: Option<usize>,
    /// Most selective repair (and regeneration) rounds, 0 to 3.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=3))]
    max_repairs: u8,
    /// Most continuation rounds for a cut answer, 0 to 2.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=2))]
    max_continuations: u8,
    /// Write the run's report (every stage, the calls, the usage) as JSON
    /// to FILE, on success and on failure.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Language of the prompts and of the summary line: en or es.
    #[arg(long, default_value = "en")]
    lang: String,
    /// One-line JSON instead of pretty-printed.
    #[arg(long)]
    compact: bool,
}

/// Runs the model command for one request.
fn call_command(cmd: &str, request: &ModelRequest) -> Result<ModelReply, String> {
    let mut child = Process::new("sh")
        .arg("-c")
        .arg(cmd)
        .env("MINI_CALL", request.call.to_string())
        .env("MINI_CALL_KIND", request.kind.name())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run the model command: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        // a command that does not read its input closes the pipe early:
        // that is its choice, not a failure
        let _ = stdin.write_all(request.prompt.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("the model command failed: {e}"))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out
            .status
            .code()
            .map_or_else(|| "a signal".to_string(), |c| format!("status {c}"));
        return Err(format!(
            "the model command exited with {code}: {}",
            stderr.trim()
        ));
    }
    let text = String::from_utf8(out.stdout)
        .map_err(|e| format!("the model command's answer is not UTF-8: {e}"))?;
    Ok(ModelReply::text(text))
}

fn lang_arg(lang: &str) -> Result<Lang, Output> {
    lang.parse()
        .map_err(|_| usage(format!("--lang must be en or es, not '{lang}'")))
}

use mini_tools::prompt::Lang;

pub(super) fn ask(contract: &ContractArgs, args: &AskArgs) -> Result<Output, Output> {
    let lang = lang_arg(&args.lang)?;
    let c = named_contract(contract)?;
    let task = match (&args.task, &args.task_file) {
        (Some(t), _) => t.clone(),
        (None, Some(file)) => text_input(file)?,
        (None, None) => return Err(usage("give the task: --task TEXT or --task-file FILE")),
    };
    let mut wf = Workflow::new(c)
        .lang(lang)
        .max_repairs(usize::from(args.max_repairs))
        .max_continuations(usize::from(args.max_continuations));
    if let Some(n) = args.expected_records {
        wf = wf.expected_records(n);
    }
    let result = match &args.model_cmd {
        Some(cmd) => wf.run(&task, |request: &ModelRequest| call_command(cmd, request)),
        None => {
            #[cfg(feature = "http")]
            {
                let model = chat_model(args)?;
                wf.run(&task, |request: &ModelRequest| model.call(request))
            }
            #[cfg(not(feature = "http"))]
            return Err(usage("give the model: --model-cmd CMD"));
        }
    };
    finish(result, lang, args.report.as_deref(), args.compact)
}

/// The chat-completions model of `--endpoint`.
#[cfg(feature = "http")]
fn chat_model(args: &AskArgs) -> Result<mini_tools::workflow::http::ChatModel, Output> {
    use mini_tools::workflow::http::{ChatConfig, ChatModel};
    let (Some(endpoint), Some(model)) = (&args.endpoint, &args.model) else {
        return Err(usage(
            "give the model: --model-cmd CMD, or --endpoint URL with --model NAME",
        ));
    };
    let mut config = ChatConfig::new(endpoint, model);
    config.api_key_env = Some(args.api_key_env.clone());
    config.max_tokens = args.max_tokens;
    config.temperature = args.temperature;
    config.retries = args.http_retries;
    config.timeout = std::time::Duration::from_secs(args.http_timeout);
    ChatModel::new(config).map_err(|e| usage(e.to_string()))
}

pub(super) fn process(
    file: &str,
    contract: &ContractArgs,
    report: Option<&Path>,
    compact: bool,
) -> Result<Output, Output> {
    let raw = text_input(file)?;
    let ex = mini_tools::repair::extract(&raw, contract.prefix.as_deref());
    let c = match resolve(contract, mini::detect_prefix(&ex.text))? {
        Resolved::Found(c) => c,
        Resolved::Missing(why) => return Err(unverified(why)),
    };
    let result = Workflow::new(c).process(&raw);
    finish(result, Lang::En, report, compact)
}

/// Prints a run's outcome: the canonical JSON on stdout and the summary on
/// stderr, or the failure with its diagnostics; writes the report.
fn finish(
    result: Result<Outcome<Value>, Box<WorkflowError>>,
    lang: Lang,
    report_file: Option<&Path>,
    compact: bool,
) -> Result<Output, Output> {
    let (report, out) = match result {
        Ok(run) => {
            let o = Output::default()
                .out(json_text(&run.value, compact))
                .err(run.report.summary_line(lang));
            (run.report, o)
        }
        Err(e) => {
            let mut o = Output::default();
            for d in e.diagnostics() {
                o = o.err(d.to_string());
            }
            let code = if e.is_model_error() {
                EXIT_USAGE
            } else {
                EXIT_INVALID
            };
            let o = o
                .err(format!("error: {}", e.failure()))
                .err(e.report().summary_line(lang))
                .code(code);
            if matches!(e.failure(), Failure::Model(_)) && e.report().calls == 0 {
                return Err(o);
            }
            (e.report().clone(), o)
        }
    };
    if let Some(path) = report_file {
        let mut json = report.to_json();
        json.push('\n');
        if let Err(e) = std::fs::write(path, json) {
            return Err(usage(format!(
                "cannot write the report to {}: {e}",
                path.display()
            )));
        }
    }
    Ok(out)
}
