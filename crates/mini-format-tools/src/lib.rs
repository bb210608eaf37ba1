//! # mini-format-tools — the model side of the `.mini` format
//!
//! Everything around the format that is not the format itself: prompt
//! blocks for a model ([`prompt`]), grammars for constrained decoding
//! ([`grammar`]), JSON Schema export and import ([`schema`]), extraction and
//! repair of model output ([`repair`]), fork families on disk ([`family`]),
//! sample documents ([`sample`]), token statistics ([`tokens`], feature
//! `tokens`) and the conformance-suite runner ([`conformance`]).
//!
//! It is built on the core crate, `mini-format` (`mini`), and on nothing
//! else of this workspace.
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod conformance;
pub mod family;
pub mod grammar;
pub mod prompt;
pub mod repair;
pub mod sample;
pub mod schema;
#[cfg(feature = "tokens")]
pub mod tokens;
pub mod workflow;

// The core's engine, shared within the workspace (its `__private` items are
// pinned to this exact version; ADR 0019).
use mini::__private::{check, number, syntax};

/// Every error of a document, empty when it is valid (`mini::check`'s).
fn validate(text: &str, contract: &mini::Contract) -> Vec<mini::Diagnostic> {
    mini::check(text, contract)
        .err()
        .map(|e| e.diagnostics().to_vec())
        .unwrap_or_default()
}
use mini::{contract, value};

/// The core's error types, under the name the modules use.
mod error {
    pub use mini::{Code, Diagnostic, Error, Result};
}

/// The workspace README's examples (core and tools together), compiled and
/// run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct WorkspaceReadmeDoctests;
