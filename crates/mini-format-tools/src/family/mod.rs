//! Fork tooling: listing the families of a forks directory, checking them
//! (`check-forks`) and scaffolding new ones (`new-fork`).
//!
//! A forks directory holds one folder per family, named after its prefix:
//! `DIR/<prefix>/contract.json` plus `DIR/<prefix>/fixtures/` (`valid.mini`
//! and `canonical.json`, optionally `escaping.mini`/`escaping.json` and
//! negative `bad_*.mini` files), as in the upstream `forks/` folder and its
//! `FORKING.md` protocol.
//!
//! * [`list_families`] → [`FamilySummary`] per family (what `mini forks`
//!   prints with [`render_families`]; serialized, the entries of the
//!   upstream `registry.json`), with the layout [`signature`].
//! * [`check_forks`] → [`CheckReport`]: contracts (E20), fork invariants
//!   (E21) and fixtures of every family; [`CheckReport::render`] gives the
//!   text that ends with `ALL FORKS PASS (N forks)` or
//!   `K FORK(S) FAIL (N forks)`, [`CheckReport::ok`] the verdict.
//! * [`new_fork`] writes a new family (from a parent or from scratch) with
//!   fixtures that pass [`check_forks`]; [`parse_field_arg`] and
//!   [`field_spec`] read the `--add name:type` arguments.
//!
//! ```no_run
//! let report = mini_tools::family::check_forks("forks").unwrap();
//! print!("{}", report.render());
//! std::process::exit(if report.ok { 0 } else { 1 });
//! ```

mod check;
mod list;
mod new;

pub use check::{check_forks, CheckReport, FamilyCheck, Problem};
pub use list::{field_signature, list_families, render_families, signature, FamilySummary};
pub use new::{
    field_spec, new_fork, new_fork_named, parse_field_arg, ESCAPING_ITEM, ESCAPING_TEXT,
};
