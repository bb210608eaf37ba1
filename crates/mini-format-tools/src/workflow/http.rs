//! A model for the workflow over the OpenAI-compatible chat-completions
//! API (`POST {base}/chat/completions`), served by OpenAI, Azure-style
//! gateways, vLLM, llama.cpp's server, Ollama (`/v1`) and LM Studio.
//! Feature `http` (ADR 0029).
//!
//! Each workflow request becomes one chat completion with two messages: a
//! `system` message holding the format block (left out when the request
//! has none, as a repair) and a `user` message holding the task and what
//! the call asks for. JSON mode is never asked for. `finish_reason ==
//! "length"` marks the answer as cut; `usage` is passed on. A 429 or a 5xx
//! is retried a bounded number of times with exponential backoff (a retry
//! is not a workflow round); every HTTP attempt's status, latency and wait
//! go to the report. The API key is read from an environment variable,
//! sent only as `Authorization: Bearer …`, and never printed, reported or
//! put in an error.
//!
//! ```no_run
//! use mini_tools::workflow::http::{ChatConfig, ChatModel};
//! use mini_tools::workflow::{ModelRequest, Workflow};
//!
//! let contract = mini::Contract::from_path("forks/quiz/contract.json").unwrap();
//! let model = ChatModel::new(ChatConfig::new("http://127.0.0.1:11434/v1", "llama3.2")).unwrap();
//! let run = Workflow::new(contract)
//!     .run("Five questions on photosynthesis", |r: &ModelRequest| model.call(r))
//!     .unwrap();
//! println!("{}", run.report.summary);
//! ```

use std::fmt;
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use super::model::{ModelReply, ModelRequest, Usage};

/// The environment variable the API key is read from by default.
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";

/// Request fields the workflow owns or refuses (JSON mode, streaming,
/// several choices, tools): `extra` may not set them.
const RESERVED: [&str; 7] = [
    "model",
    "messages",
    "response_format",
    "stream",
    "n",
    "tools",
    "functions",
];

/// How to reach a chat-completions endpoint.
#[derive(Debug, Clone)]
pub struct ChatConfig {
    /// The base URL, up to and including the API version
    /// (`http://127.0.0.1:8080/v1`); `/chat/completions` is appended.
    pub base_url: String,
    /// The model name sent in each request.
    pub model: String,
    /// The environment variable holding the API key (`None`: no key, as
    /// for most local servers). Default [`DEFAULT_KEY_ENV`]; a variable
    /// that is not set means no key.
    pub api_key_env: Option<String>,
    /// Sampling temperature, when set.
    pub temperature: Option<f64>,
    /// The most tokens of an answer (`max_tokens`), when set.
    pub max_tokens: Option<u64>,
    /// Other JSON fields of the request body (`top_p`, `seed`, …); the
    /// reserved ones (`model`, `messages`, `response_format`, `stream`,
    /// `n`, `tools`, `functions`) are refused.
    pub extra: Map<String, Value>,
    /// Time for the whole of one HTTP attempt.
    pub timeout: Duration,
    /// Time to connect.
    pub connect_timeout: Duration,
    /// Retries of a 429 or 5xx answer (not counting the first attempt).
    pub retries: u32,
    /// The first wait before a retry; each later wait doubles it.
    pub backoff: Duration,
    /// The longest wait (also caps a server's `Retry-After`).
    pub max_backoff: Duration,
}

impl ChatConfig {
    /// A configuration with the defaults: key from `OPENAI_API_KEY` (if
    /// set), 120 s per attempt, 10 s to connect, 2 retries after 1 s and
    /// 2 s (at most 30 s).
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        ChatConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: Some(DEFAULT_KEY_ENV.to_string()),
            temperature: None,
            max_tokens: None,
            extra: Map::new(),
            timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            retries: 2,
            backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
        }
    }

    /// The endpoint: the base URL with `/chat/completions`.
    pub fn endpoint(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }
}

/// What went wrong with a chat completion. No variant holds the API key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatError {
    /// The configuration cannot work (a bad URL, a reserved extra field).
    Config(String),
    /// No connection (refused, host not found, TLS).
    Connect(String),
    /// No answer in time.
    Timeout(String),
    /// 401 or 403: the key is missing, wrong or not allowed.
    Unauthorized {
        /// The HTTP status.
        status: u16,
        /// The server's message, if any.
        message: String,
    },
    /// 404: the model or the path does not exist.
    NotFound {
        /// The server's message, if any.
        message: String,
    },
    /// A 429 or 5xx on every attempt.
    Unavailable {
        /// The last HTTP status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The server's last message, if any.
        message: String,
    },
    /// Another HTTP error status.
    Status {
        /// The HTTP status.
        status: u16,
        /// The server's message, if any.
        message: String,
    },
    /// A 200 whose body is not a chat completion.
    Malformed(String),
}

impl fmt::Display for ChatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChatError::Config(m) => write!(f, "chat endpoint configuration: {m}"),
            ChatError::Connect(m) => write!(
                f,
                "cannot reach the chat endpoint: {m} (is the server running, and is --endpoint right?)"
            ),
            ChatError::Timeout(m) => write!(f, "the chat endpoint did not answer in time: {m}"),
            ChatError::Unauthorized { status, message } => write!(
                f,
                "the chat endpoint refused the key (HTTP {status}): {message} (set the API key variable, OPENAI_API_KEY by default)"
            ),
            ChatError::NotFound { message } => write!(
                f,
                "the chat endpoint has no such model or path (HTTP 404): {message} (check --model and that --endpoint ends in the API version, such as /v1)"
            ),
            ChatError::Unavailable {
                status,
                attempts,
                message,
            } => write!(
                f,
                "the chat endpoint kept failing (HTTP {status} after {attempts} attempt(s)): {message}"
            ),
            ChatError::Status { status, message } => {
                write!(f, "the chat endpoint answered HTTP {status}: {message}")
            }
            ChatError::Malformed(m) => write!(f, "the answer is not a chat completion: {m}"),
        }
    }
}

impl std::error::Error for ChatError {}

/// A model function over a chat-completions endpoint (see the module
/// docs). Its `Debug` output never shows the key.
pub struct ChatModel {
    config: ChatConfig,
    agent: ureq::Agent,
    api_key: Option<String>,
}

impl fmt::Debug for ChatModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChatModel")
            .field("config", &self.config)
            .field("api_key", &self.api_key.as_ref().map(|_| "<set>"))
            .finish()
    }
}

impl ChatModel {
    /// A model for `config`; the API key is read now from its variable.
    pub fn new(config: ChatConfig) -> Result<Self, ChatError> {
        if let Some(key) = config.extra.keys().find(|k| RESERVED.contains(&k.as_str())) {
            return Err(ChatError::Config(format!(
                "the extra field '{key}' is set by the workflow or refused (it never asks for JSON mode, streaming or tools)"
            )));
        }
        if !config.base_url.starts_with("http://") && !config.base_url.starts_with("https://") {
            return Err(ChatError::Config(format!(
                "the base URL must start with http:// or https://, not '{}'",
                config.base_url
            )));
        }
        let api_key = config
            .api_key_env
            .as_deref()
            .and_then(|var| std::env::var(var).ok())
            .filter(|k| !k.is_empty());
        let agent = ureq::Agent::new_with_config(
            ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(config.timeout))
                .timeout_connect(Some(config.connect_timeout))
                .build(),
        );
        Ok(ChatModel {
            config,
            agent,
            api_key,
        })
    }

    /// Whether a key was found (never the key itself).
    pub fn has_key(&self) -> bool {
        self.api_key.is_some()
    }

    /// The request body for a workflow request.
    pub fn body(&self, request: &ModelRequest) -> Value {
        let mut messages = Vec::new();
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        messages.push(json!({"role": "user", "content": request.user}));
        let mut body = Map::new();
        body.insert("model".into(), Value::String(self.config.model.clone()));
        body.insert("messages".into(), Value::Array(messages));
        if let Some(t) = self.config.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(m) = self.config.max_tokens {
            body.insert("max_tokens".into(), json!(m));
        }
        for (k, v) in &self.config.extra {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }

    /// One workflow call: a chat completion, retried on 429 and 5xx.
    /// The reply's `details` hold every HTTP attempt (status, latency,
    /// the wait before it) and the endpoint's model name.
    pub fn call(&self, request: &ModelRequest) -> Result<ModelReply, ChatError> {
        let body = self.body(request).to_string();
        let url = self.config.endpoint();
        let mut attempts = Vec::new();
        let mut wait = Duration::ZERO;
        let mut attempt = 0;
        loop {
            attempt += 1;
            if !wait.is_zero() {
                std::thread::sleep(wait);
            }
            let started = Instant::now();
            let (status, text, retry_after) = self.post(&url, &body)?;
            attempts.push(json!({
                "status": status,
                "latency_ms": started.elapsed().as_millis() as u64,
                "waited_ms": wait.as_millis() as u64,
            }));
            let retryable = status == 429 || (500..600).contains(&status);
            if retryable && attempt <= self.config.retries {
                let backoff = self
                    .config
                    .backoff
                    .saturating_mul(1 << (attempt - 1).min(16));
                wait = retry_after.unwrap_or(backoff).min(self.config.max_backoff);
                continue;
            }
            let message = server_message(&text);
            return match status {
                200..=299 => completion(&text, attempts),
                401 | 403 => Err(ChatError::Unauthorized { status, message }),
                404 => Err(ChatError::NotFound { message }),
                s if retryable => Err(ChatError::Unavailable {
                    status: s,
                    attempts: attempt,
                    message,
                }),
                s => Err(ChatError::Status { status: s, message }),
            };
        }
    }

    /// One HTTP attempt: status, body text, and a `Retry-After` in seconds.
    fn post(&self, url: &str, body: &str) -> Result<(u16, String, Option<Duration>), ChatError> {
        let mut req = self
            .agent
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json");
        if let Some(key) = &self.api_key {
            req = req.header("Authorization", format!("Bearer {key}"));
        }
        let mut resp = req.send(body).map_err(transport_error)?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let text = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| ChatError::Malformed(format!("cannot read the body: {e}")))?;
        Ok((status, text, retry_after))
    }
}

/// A transport failure, in words that name no header and no key.
fn transport_error(e: ureq::Error) -> ChatError {
    match e {
        ureq::Error::Timeout(t) => ChatError::Timeout(t.to_string()),
        ureq::Error::BadUri(u) => ChatError::Config(format!("bad URL: {u}")),
        other => ChatError::Connect(other.to_string()),
    }
}

/// The `error.message` of an OpenAI-style error body, else the body's
/// start.
fn server_message(text: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(text).ok();
    let message = parsed.as_ref().and_then(|v| {
        v["error"]["message"]
            .as_str()
            .or_else(|| v["error"].as_str())
            .or_else(|| v["message"].as_str())
    });
    match message {
        Some(m) => m.to_string(),
        None => text.chars().take(200).collect(),
    }
}

/// The reply of a chat-completion body.
fn completion(text: &str, attempts: Vec<Value>) -> Result<ModelReply, ChatError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| ChatError::Malformed(format!("the body is not JSON: {e}")))?;
    let choice = v["choices"]
        .get(0)
        .ok_or_else(|| ChatError::Malformed("it has no choices[0]".to_string()))?;
    let content = match &choice["message"]["content"] {
        Value::String(s) => s.clone(),
        // some servers send null content for an empty answer
        Value::Null if choice["message"].is_object() => String::new(),
        _ => {
            return Err(ChatError::Malformed(
                "choices[0].message.content is not a string".to_string(),
            ))
        }
    };
    let cut = match choice["finish_reason"].as_str() {
        Some("length") => Some(true),
        Some(_) => Some(false),
        None => None,
    };
    let usage = v.get("usage").filter(|u| u.is_object()).map(|u| Usage {
        prompt_tokens: u["prompt_tokens"].as_u64(),
        completion_tokens: u["completion_tokens"].as_u64(),
        total_tokens: u["total_tokens"].as_u64(),
    });
    let mut details = Map::new();
    details.insert("http".into(), Value::Array(attempts));
    if let Some(m) = v["model"].as_str() {
        details.insert("model".into(), Value::String(m.to_string()));
    }
    if let Some(r) = choice["finish_reason"].as_str() {
        details.insert("finish_reason".into(), Value::String(r.to_string()));
    }
    Ok(ModelReply {
        text: content,
        cut,
        usage,
        details: Some(Value::Object(details)),
    })
}
