//! `#[derive(Mini)]` for the [`mini-format`](https://docs.rs/mini-format) crate: the
//! contract of a `.mini` document, written as attributes on the Rust types
//! that hold it. Use it through the re-export `mini::Mini` (feature
//! `derive`, on by default).
//!
//! The derive implements `mini::Mini`: `describe()` tells how `.mini` sees
//! the type, and for a *document* type (a struct with
//! `#[mini(prefix = "…")]`) `Mini::contract()` / `Mini::try_contract()`
//! build the contract from it, once per type (the result is cached).
//!
//! - A **unit enum** is written as one of its variant names, as serde
//!   serializes them (`#[serde(rename)]`, `#[serde(rename_all)]`).
//! - A **struct with named fields** is, depending on where it is used:
//!   a document (with `#[mini(prefix)]`: a `header` field and a `Vec` of
//!   records), a header (its fields are `key=value` pairs), a record (its
//!   fields are the positions of a line) or a tuple (a field of a record
//!   whose components are scalars, written `a,b,c`). Field names are
//!   serde's (`#[serde(rename)]`, `#[serde(rename_all)]`), `#[serde(skip)]`
//!   fields are left out and `#[serde(default)]` fields may be absent.
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
//! # Struct attributes
//!
//! Only on a document type; `prefix` makes the struct one.
//!
//! | attribute | contract | meaning |
//! |---|---|---|
//! | `#[mini(prefix = "quiz")]` | `prefix` | the header's first field; makes the struct a document |
//! | `#[mini(records = "items")]` | `records_key` | the `Vec` field holding the records (default `"records"`) |
//! | `#[mini(separator = ';')]` | `list_separator` | the list element separator (default `,`) |
//! | `#[mini(version = 2)]` | `version` | the contract version |
//! | `#[mini(name = "…")]` | `name` | a name for the family |
//! | `#[mini(description = "…")]` | `description` | a description of the family |
//!
//! A document struct has a `Vec<Record>` field (named by `records`), an
//! optional `header` field (a struct whose `n` and `v` are the record count
//! and version, the other fields header keys) and optionally a
//! `prefix: String` field.
//!
//! # Field attributes
//!
//! On the fields of records, headers and tuples. Several may share one
//! `#[mini(...)]` or be split over several; each may appear once.
//!
//! | attribute | meaning |
//! |---|---|
//! | `#[mini(unique)]` | no two records have the same value |
//! | `#[mini(extension)]` | an optional field after the core fields (the field is `Option<T>` or `#[serde(default)]`) |
//! | `#[mini(mlist = "exactly_one")]` | a marked list (`Vec` of scalars or unit enums); the rule is one of `exactly_one`, `at_least_one`, `at_most_one`, `any` |
//! | `#[mini(selected = "answer")]` | with `mlist`: the sibling field holding the selection (`usize` for `exactly_one`, `Option<usize>` for `at_most_one`, `Vec<usize>` otherwise); it is not a position of its own |
//! | `#[mini(count_key = "k")]` | on a list: its length is the header key `k` |
//! | `#[mini(min = 2, max = 6)]` | a value bound on a scalar, a length bound on a list: an integer (`-3`), a float (`0.5`) or a string (`"2024-01-01"`, for dates and decimals) |
//! | `#[mini(desc = "…")]` | a description of the field |
//!
//! Rules that depend on the types (an extension that cannot be absent, a
//! marked list without `selected`, a `selected` field of the wrong type, …)
//! are checked when the contract is built: `Mini::try_contract()` returns
//! an `E20` error naming the field.
//!
//! # serde attributes
//!
//! `.mini` is positional: a line has positions, not keys. The derive reads
//! serde's attributes so that the contract matches what serde reads and
//! writes, and rejects at compile time the ones that cannot work
//! positionally:
//!
//! - honoured: `rename` (one name for both directions), `rename_all` (all of
//!   serde's rules), `skip` (or `skip_serializing` together with
//!   `skip_deserializing`), `default` / `default = "path"` on a field or
//!   on the struct, and anything that does not change the shape (`alias`,
//!   `with`, `deny_unknown_fields`, `bound`, …);
//! - rejected: `flatten`, `untagged`, `tag`, `content`,
//!   `skip_serializing_if`, `skip_serializing` or `skip_deserializing`
//!   alone, `transparent`, `from` / `try_from` / `into`, and a `rename`
//!   whose serialize and deserialize names differ.
//!
//! Enums must be unit enums and types cannot have type or const parameters
//! (the contract is cached per type); lifetime parameters are fine.

mod attr;
mod case;
mod expand;

use proc_macro::TokenStream;

/// Derives `mini::Mini`; see the [crate documentation](crate) for the
/// attributes.
#[proc_macro_derive(Mini, attributes(mini))]
pub fn derive_mini(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
