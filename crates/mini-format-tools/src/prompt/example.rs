//! The example of a prompt block: a [`crate::sample`] document as text.

use crate::contract::Contract;
use crate::sample::{canonical, Style};

/// A document of `records` synthetic records that parses strictly under
/// `contract`, or `None` when the contract's rules cannot be met by the
/// synthetic values (e.g. a `unique` bool over three records). Only
/// `unique` fields vary, so that the repeats show which values must not;
/// every second record leaves its optional fields empty, to show null.
/// A `str` field whose description gives an example (`e.g. IRT3PL`) shows
/// it; if those examples break a rule, the names are used instead.
pub(crate) fn example(contract: &Contract, records: usize) -> Option<String> {
    let style = Style {
        sparse: true,
        desc_examples: true,
        ..Style::default()
    };
    canonical(contract, records, style)
        .or_else(|_| {
            canonical(
                contract,
                records,
                Style {
                    desc_examples: false,
                    ..style
                },
            )
        })
        .ok()
        .and_then(|obj| mini::dumps(&obj, contract).ok())
}
