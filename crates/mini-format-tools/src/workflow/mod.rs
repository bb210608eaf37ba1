//! From a model to typed data in one call: generate → extract → validate →
//! repair the broken lines → continue a cut answer → decode.
//!
//! The model is always the caller's: a function that takes a
//! [`ModelRequest`] and returns the answer text (a `String` is enough; a
//! [`ModelReply`] adds the provider's signals: whether it stopped at its
//! output limit, and token usage). [`Workflow::run`] drives it
//! synchronously, [`Workflow::run_async`] with a function that returns a
//! future (the caller's runtime drives it: this crate pulls in none).
//!
//! The rules (ADR 0025):
//! - every answer goes through [`crate::repair::extract`] (prose, fences,
//!   BOM, CRLF), and each fix is reported;
//! - invalid record lines are asked for **selectively**
//!   ([`crate::repair::repair_request`]) and merged with
//!   [`crate::repair::merge`]: the header and its `n` are never rewritten,
//!   valid lines are never replaced, and a reply that would touch a line
//!   that was not asked for is refused and reported;
//! - a **cut answer** (the provider said so, in which case its last line is
//!   dropped unless the answer ended right after a line break; or, without
//!   that signal, a last line short of fields, or fewer record lines than
//!   `n`) keeps its complete records, and only the missing ones are asked
//!   for, naming the kept ones so that they are not repeated; the
//!   continuation is appended after its own checks;
//! - an answer with no document (prose only, a refusal, an empty reply) or
//!   with a broken header, and a complete document of the wrong size, get a
//!   full regeneration request within the repair budget;
//! - the model is called at most `1 + repair rounds + continuation rounds`
//!   times;
//! - success means the final document has the declared `n`, exactly that
//!   many records, all valid (and, with an expected count, `n` is that
//!   count). Anything else is a [`WorkflowError`] that keeps the report,
//!   the last text, its diagnostics and the valid records marked
//!   [`Partial`]: never a partial value as a success.
//!
//! ```
//! use mini_tools::workflow::{ModelRequest, Workflow};
//!
//! let contract = mini::Contract::from_json(r#"{
//!     "prefix": "todo", "records_key": "tasks",
//!     "core": [{"name": "title", "type": "str", "unique": true},
//!              {"name": "done", "type": "bool"}]
//! }"#).unwrap();
//! let workflow = Workflow::new(contract).expected_records(2);
//!
//! // a scripted model: the first answer has a broken line, the repair fixes it
//! let mut answers = vec![
//!     "Sure!\n```\ntodo|n=2\nbuy milk|false\nwrite docs|maybe\n```".to_string(),
//!     "todo|n=1\nwrite docs|true".to_string(),
//! ]
//! .into_iter();
//! let run = workflow
//!     .run("Two chores for today", |_req: &ModelRequest| answers.next().unwrap_or_default())
//!     .unwrap();
//! assert_eq!(run.value["tasks"][1]["done"], true);
//! assert_eq!(run.text, "todo|n=2\nbuy milk|false\nwrite docs|true");
//! assert_eq!(run.report.calls, 2);
//! assert!(run.report.summary.starts_with("2 valid records"));
//! ```

mod error;
mod gate;
#[cfg(feature = "http")]
pub mod http;
mod model;
mod prompts;
mod report;
mod session;

use std::future::Future;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use error::{Failure, Partial, WorkflowError};
pub use gate::{gate_records, AnswerStream};
pub use model::{CallKind, IntoReply, ModelError, ModelReply, ModelRequest, Usage};
pub use report::{CutSignal, LeftItem, Report, Stage};

use crate::contract::Contract;
use crate::prompt::{spec_block, Lang};
use session::{Next, Session};

/// The most repair rounds a workflow may be given.
pub const MAX_REPAIR_ROUNDS: usize = 3;
/// The most continuation rounds a workflow may be given.
pub const MAX_CONTINUATION_ROUNDS: usize = 2;

/// What a successful run delivers: the value, the final `.mini` text and
/// the report.
#[derive(Debug, Clone)]
pub struct Outcome<T> {
    /// The typed value, or the canonical object of a dynamic run.
    pub value: T,
    /// The final `.mini` document: the header as the model wrote it and
    /// exactly `n` valid records, one per line.
    pub text: String,
    /// Every stage of the run.
    pub report: Report,
}

/// A configured workflow over one contract (see the module docs).
#[derive(Debug, Clone)]
pub struct Workflow {
    contract: Contract,
    lang: Lang,
    expected: Option<usize>,
    max_repairs: usize,
    max_continuations: usize,
    example_records: Option<usize>,
}

impl Workflow {
    /// A workflow over `contract`: English prompts, no expected count, one
    /// repair round, two continuation rounds, a two-record example in the
    /// format block.
    pub fn new(contract: Contract) -> Self {
        Workflow {
            contract,
            lang: Lang::En,
            expected: None,
            max_repairs: 1,
            max_continuations: 2,
            example_records: Some(2),
        }
    }

    /// A workflow over the contract of a document type
    /// (`#[derive(mini::Mini)]`), for [`Workflow::run_typed`].
    pub fn for_type<T: mini::Mini>() -> mini::Result<Self> {
        Ok(Workflow::new(T::try_contract()?))
    }

    /// The language of the prompts (English or Spanish).
    pub fn lang(mut self, lang: Lang) -> Self {
        self.lang = lang;
        self
    }

    /// The number of records required: a complete document with another
    /// number is not a success.
    pub fn expected_records(mut self, n: usize) -> Self {
        self.expected = Some(n);
        self
    }

    /// The most selective repair (and regeneration) rounds, 0 to 3
    /// (default 1). A value out of range makes every run fail with
    /// [`Failure::Config`].
    pub fn max_repairs(mut self, rounds: usize) -> Self {
        self.max_repairs = rounds;
        self
    }

    /// The most continuation rounds for a cut answer, 0 to 2 (default 2).
    /// A value out of range makes every run fail with [`Failure::Config`].
    pub fn max_continuations(mut self, rounds: usize) -> Self {
        self.max_continuations = rounds;
        self
    }

    /// Records in the format block's example (`None`: no example).
    pub fn example_records(mut self, records: Option<usize>) -> Self {
        self.example_records = records;
        self
    }

    /// The contract.
    pub fn contract(&self) -> &Contract {
        &self.contract
    }

    /// The most model calls a run makes: 1 + repair rounds + continuation
    /// rounds.
    pub fn max_calls(&self) -> usize {
        1 + self.max_repairs + self.max_continuations
    }

    fn check_config(&self) -> Result<(), String> {
        if self.max_repairs > MAX_REPAIR_ROUNDS {
            return Err(format!(
                "repair rounds must be 0 to {MAX_REPAIR_ROUNDS}, not {}",
                self.max_repairs
            ));
        }
        if self.max_continuations > MAX_CONTINUATION_ROUNDS {
            return Err(format!(
                "continuation rounds must be 0 to {MAX_CONTINUATION_ROUNDS}, not {}",
                self.max_continuations
            ));
        }
        Ok(())
    }

    fn format_block(&self) -> String {
        spec_block(&self.contract, self.lang, self.example_records)
    }

    /// The first request's prompt for `task`, in one text that can be sent
    /// as it is: the task, the required record count when one is expected,
    /// and the contract's format block.
    pub fn prompt(&self, task: &str) -> String {
        ModelRequest::new(
            1,
            CallKind::Generate,
            self.format_block(),
            prompts::task(self.lang, task, self.expected),
        )
        .prompt
    }

    /// Runs the workflow with a synchronous model; on success the value is
    /// the canonical object (`{"prefix", "header", "<records_key>": [...]}`).
    pub fn run<F, R>(&self, task: &str, model: F) -> Result<Outcome<Value>, Box<WorkflowError>>
    where
        F: FnMut(&ModelRequest) -> R,
        R: IntoReply,
    {
        let mut s = Session::new(self, task);
        let text = drive(&mut s, model)?;
        self.canonical(&mut s, text)
    }

    /// Runs the workflow with a synchronous model and reads the final
    /// document into `T` (a `#[derive(mini::Mini)]` document type, or any
    /// `Deserialize` type shaped like the canonical object). A document the
    /// contract accepts but `T` refuses (a Rust integer range, say) is
    /// [`Failure::Decode`].
    pub fn run_typed<T, F, R>(&self, task: &str, model: F) -> Result<Outcome<T>, Box<WorkflowError>>
    where
        T: DeserializeOwned,
        F: FnMut(&ModelRequest) -> R,
        R: IntoReply,
    {
        let mut s = Session::new(self, task);
        let text = drive(&mut s, model)?;
        self.typed(&mut s, text)
    }

    /// [`Workflow::run`] with a model that returns a future. No runtime is
    /// needed by this crate: the caller's executor polls the returned
    /// future. Same results as the synchronous run on the same answers.
    pub async fn run_async<F, Fut, R>(
        &self,
        task: &str,
        model: F,
    ) -> Result<Outcome<Value>, Box<WorkflowError>>
    where
        F: FnMut(ModelRequest) -> Fut,
        Fut: Future<Output = R>,
        R: IntoReply,
    {
        let mut s = Session::new(self, task);
        let text = drive_async(&mut s, model).await?;
        self.canonical(&mut s, text)
    }

    /// [`Workflow::run_typed`] with a model that returns a future.
    pub async fn run_typed_async<T, F, Fut, R>(
        &self,
        task: &str,
        model: F,
    ) -> Result<Outcome<T>, Box<WorkflowError>>
    where
        T: DeserializeOwned,
        F: FnMut(ModelRequest) -> Fut,
        Fut: Future<Output = R>,
        R: IntoReply,
    {
        let mut s = Session::new(self, task);
        let text = drive_async(&mut s, model).await?;
        self.typed(&mut s, text)
    }

    /// The same pipeline on an answer already in hand, with no model:
    /// extract, validate, decode. A cut, broken or short answer is a
    /// [`WorkflowError`] (nothing can be asked again).
    pub fn process(&self, answer: &str) -> Result<Outcome<Value>, Box<WorkflowError>> {
        let mut s = Session::offline(self, answer);
        let text = drive(&mut s, |_: &ModelRequest| {
            Err::<String, _>("no model: nothing can be asked again")
        })?;
        self.canonical(&mut s, text)
    }

    fn canonical(
        &self,
        s: &mut Session<'_>,
        text: String,
    ) -> Result<Outcome<Value>, Box<WorkflowError>> {
        match mini::parse(&text, &self.contract) {
            Ok(doc) => {
                let records = doc.records().len();
                Ok(Outcome {
                    value: doc.into_canonical(),
                    text,
                    report: s.succeed(records),
                })
            }
            Err(e) => Err(s.fail_decode(e.diagnostics().to_vec())),
        }
    }

    fn typed<T: DeserializeOwned>(
        &self,
        s: &mut Session<'_>,
        text: String,
    ) -> Result<Outcome<T>, Box<WorkflowError>> {
        match mini::from_str_with_contract::<T>(&text, &self.contract) {
            Ok(value) => {
                let records = self.expected.unwrap_or_else(|| {
                    mini::__private::syntax::lines(&text)
                        .count()
                        .saturating_sub(1)
                });
                Ok(Outcome {
                    value,
                    text,
                    report: s.succeed(records),
                })
            }
            Err(e) => Err(s.fail_decode(e.diagnostics().to_vec())),
        }
    }
}

fn drive<F, R>(s: &mut Session<'_>, mut model: F) -> Result<String, Box<WorkflowError>>
where
    F: FnMut(&ModelRequest) -> R,
    R: IntoReply,
{
    loop {
        match s.next() {
            Next::Call(request) => {
                let reply = model(&request).into_reply();
                s.reply(reply);
            }
            Next::Done(done) => return done,
        }
    }
}

async fn drive_async<F, Fut, R>(
    s: &mut Session<'_>,
    mut model: F,
) -> Result<String, Box<WorkflowError>>
where
    F: FnMut(ModelRequest) -> Fut,
    Fut: Future<Output = R>,
    R: IntoReply,
{
    loop {
        match s.next() {
            Next::Call(request) => {
                let reply = model(request).await.into_reply();
                s.reply(reply);
            }
            Next::Done(done) => return done,
        }
    }
}
