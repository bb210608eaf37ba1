//! The example of a prompt block: a [`crate::sample`] document as text.

use crate::contract::Contract;
use crate::sample::{canonical, Style};

/// A document of `records` synthetic records that parses strictly under
/// `contract`, or `None` when the contract's rules cannot be met by the
/// synthetic values (e.g. a `unique` bool over three records). Only
/// `unique` fields vary, so that the repeats show which values must not;
/// every second record leaves its optional fields empty, to show null.
pub(crate) fn example(contract: &Contract, records: usize) -> Option<String> {
    let style = Style {
        sparse: true,
        ..Style::default()
    };
    let obj = canonical(contract, records, style).ok()?;
    mini::dumps(&obj, contract).ok()
}
