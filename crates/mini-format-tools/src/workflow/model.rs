//! What the workflow sends to the caller's model, and what comes back.

use std::fmt;

use serde::Serialize;

/// What kind of call a [`ModelRequest`] is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CallKind {
    /// The first generation of the document.
    Generate,
    /// A full regeneration: the previous answer held no usable document
    /// (prose only, a refusal, an empty reply, a broken header, or a
    /// document of the wrong size); `reason` says what was wrong.
    Regenerate {
        /// What was wrong with the previous answer, in English.
        reason: String,
    },
    /// A selective repair: only the listed record lines are asked for.
    Repair {
        /// The 1-based lines of the working document that are asked for
        /// (a record split by a raw line break lists each of its lines).
        lines: Vec<usize>,
    },
    /// A continuation of a cut answer: only the missing records are asked
    /// for, with the kept ones named so that they are not repeated.
    Continue {
        /// Records asked for.
        missing: usize,
        /// Records already kept.
        kept: usize,
    },
}

impl CallKind {
    /// `generate`, `regenerate`, `repair` or `continue`.
    pub fn name(&self) -> &'static str {
        match self {
            CallKind::Generate => "generate",
            CallKind::Regenerate { .. } => "regenerate",
            CallKind::Repair { .. } => "repair",
            CallKind::Continue { .. } => "continue",
        }
    }
}

/// One call to the model.
///
/// `prompt` is the whole text to send when the model takes one message.
/// For chat APIs the same text comes split in two: `system` (the format
/// block: how to write the contract's `.mini`; empty for a repair, whose
/// request carries its own rules) and `user` (the task, the record count
/// and what this call asks for). `prompt` is `user`, a blank line and
/// `system` (or `user` alone when `system` is empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelRequest {
    /// 1-based number of the call in the run.
    pub call: usize,
    /// What the call asks for.
    pub kind: CallKind,
    /// The format block (a system message), possibly empty.
    pub system: String,
    /// The call's own text (a user message).
    pub user: String,
    /// The whole prompt in one text.
    pub prompt: String,
}

impl ModelRequest {
    /// A request: `prompt` is made from `user` and `system` (the workflow
    /// makes its own; this is for testing a model function by hand).
    pub fn new(call: usize, kind: CallKind, system: String, user: String) -> Self {
        let prompt = if system.is_empty() {
            user.clone()
        } else {
            format!("{user}\n\n{system}")
        };
        ModelRequest {
            call,
            kind,
            system,
            user,
            prompt,
        }
    }
}

/// Token usage of one call, as the provider reported it. A count the
/// provider did not give is `None`, never 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Tokens of the prompt.
    pub prompt_tokens: Option<u64>,
    /// Tokens of the answer.
    pub completion_tokens: Option<u64>,
    /// Total tokens.
    pub total_tokens: Option<u64>,
}

impl Usage {
    /// Usage with both counts known (the total is their sum).
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Usage {
            prompt_tokens: Some(prompt_tokens),
            completion_tokens: Some(completion_tokens),
            total_tokens: Some(prompt_tokens.saturating_add(completion_tokens)),
        }
    }

    /// Adds another call's usage: a count stays known only while every
    /// call added so far reported it.
    pub(crate) fn add(self, other: Usage) -> Usage {
        let sum = |a: Option<u64>, b: Option<u64>| Some(a?.saturating_add(b?));
        Usage {
            prompt_tokens: sum(self.prompt_tokens, other.prompt_tokens),
            completion_tokens: sum(self.completion_tokens, other.completion_tokens),
            total_tokens: sum(self.total_tokens, other.total_tokens),
        }
    }
}

/// A model's answer to one [`ModelRequest`]: its text and, when the
/// provider gave them, whether it stopped at its output limit and the
/// tokens it used.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ModelReply {
    /// The answer text, as the model wrote it.
    pub text: String,
    /// `Some(true)` when the provider stopped at its output limit
    /// (`finish_reason == "length"`), `Some(false)` when it said the
    /// answer ended normally, `None` when it did not say.
    pub cut: Option<bool>,
    /// Token usage, when reported.
    pub usage: Option<Usage>,
    /// Provider details the report keeps for this call (an HTTP status
    /// and latency, say); never credentials.
    pub details: Option<serde_json::Value>,
}

impl ModelReply {
    /// A reply with text only.
    pub fn text(text: impl Into<String>) -> Self {
        ModelReply {
            text: text.into(),
            ..ModelReply::default()
        }
    }

    /// Marks the reply as cut at the provider's output limit (or not).
    pub fn with_cut(mut self, cut: bool) -> Self {
        self.cut = Some(cut);
        self
    }

    /// Adds the token usage.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }
}

/// A model call that failed (the caller's function returned an error).
#[derive(Debug)]
pub struct ModelError {
    source: Box<dyn std::error::Error + Send + Sync>,
}

impl ModelError {
    /// Wraps any error of the caller's model.
    pub fn new(source: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        ModelError {
            source: source.into(),
        }
    }

    /// The caller's error.
    pub fn source_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
        &*self.source
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.source.fmt(f)
    }
}

impl std::error::Error for ModelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// What a model function may return: a `String` (or `&str`), a
/// [`ModelReply`] with the provider's signals, or a `Result` of either
/// whose error is any `std::error::Error` (or a `String`).
pub trait IntoReply {
    /// The reply, or the model's failure.
    fn into_reply(self) -> Result<ModelReply, ModelError>;
}

impl IntoReply for String {
    fn into_reply(self) -> Result<ModelReply, ModelError> {
        Ok(ModelReply::text(self))
    }
}

impl IntoReply for &str {
    fn into_reply(self) -> Result<ModelReply, ModelError> {
        Ok(ModelReply::text(self))
    }
}

impl IntoReply for ModelReply {
    fn into_reply(self) -> Result<ModelReply, ModelError> {
        Ok(self)
    }
}

impl<T: IntoReply, E: Into<Box<dyn std::error::Error + Send + Sync>>> IntoReply for Result<T, E> {
    fn into_reply(self) -> Result<ModelReply, ModelError> {
        self.map_err(ModelError::new)?.into_reply()
    }
}
