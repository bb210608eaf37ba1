//! `#[derive(Mini)]` for the `mini-format` package (library `mini`): the
//! contract of a `.mini` document, written as attributes on the Rust types
//! that hold it. Use it through the re-export `mini::Mini` (feature
//! `derive`, on by default of `mini-format`), not as a dependency of its own.
//!
//! **The attribute reference is the module `mini::derive` of the
//! `mini-format` documentation** (`cargo doc -p mini-format --open`, then
//! `mini::derive`): struct and field attributes, the serde attributes
//! honoured and refused, and the compile errors. It lives there, in the
//! crate users depend on, so that its links to `mini`'s items work.
//!
//! # Example
//!
//! ```
//! use mini::Mini;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
//! #[mini(prefix = "quiz", records = "items", name = "Quiz", description = "Multiple-choice questions")]
//! struct Quiz {
//!     header: QuizHeader,
//!     items: Vec<Question>,
//! }
//!
//! /// `quiz|n=2|k=4|topic=photosynthesis`: `n` is the record count, `k` the
//! /// number of options (a count key), `topic` an optional key.
//! #[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
//! struct QuizHeader {
//!     n: u32,
//!     k: u32,
//!     topic: Option<String>,
//! }
//!
//! /// One line: `q1|Where…?|chloroplasts*,nucleus,mitochondria,ribosomes|1|remember|biology|0.9,-1,0.25`.
//! #[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
//! struct Question {
//!     #[mini(unique)]
//!     id: String,
//!     #[mini(desc = "The question")]
//!     stem: String,
//!     // A marked list: the selected option carries a `*`; its index goes to `answer`.
//!     #[mini(mlist = "exactly_one", selected = "answer", count_key = "k", min = 2, max = 6)]
//!     options: Vec<String>,
//!     answer: usize,
//!     level_name: Level,
//!     tags: Vec<String>,
//!     // A tuple: `0.9,-1,0.25`.
//!     irt: Irt,
//!     // After the core fields; may be absent.
//!     #[mini(extension)]
//!     note: Option<String>,
//! }
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
//! #[serde(rename_all = "lowercase")]
//! enum Level { Remember, Understand, Apply, Analyze, Evaluate, Create }
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize, Mini)]
//! struct Irt {
//!     a: f64,
//!     #[mini(min = -4.0, max = 4.0)]
//!     b: f64,
//!     c: f64,
//! }
//!
//! let contract = Quiz::contract();
//! assert_eq!(contract.prefix(), "quiz");
//! assert_eq!(contract.records_key(), "items");
//! let json = contract.to_value();
//! assert_eq!(json["core"][2]["type"], "mlist");
//! assert_eq!(json["core"][2]["json"]["selected"], "answer");
//! assert_eq!(json["core"][3]["values"][0], "remember");
//!
//! let text = "quiz|n=1|k=3|topic=arithmetic\nq1|2+2?|3,4*,5|understand|math|1,0,0.25";
//! let doc = mini::parse(text, &contract).unwrap();
//! assert_eq!(doc.to_canonical()["items"][0]["answer"], 1);
//! ```
//!
//! Expansions name the crate `::mini`; a crate that renames the dependency
//! or re-exports `mini` writes `#[mini(crate = "path::to::mini")]` on each
//! derived type, as with serde's `#[serde(crate = "…")]`.

mod attr;
mod case;
mod direct;
mod expand;
mod write;

use proc_macro::TokenStream;

/// Derives `mini::Mini` (and `mini::MiniDocument` for a struct with
/// `#[mini(prefix = "…")]`). The attributes are described in the module
/// `mini::derive` of the `mini-format` documentation.
#[proc_macro_derive(Mini, attributes(mini))]
pub fn derive_mini(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand(&input).into()
}
