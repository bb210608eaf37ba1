//! The serializer's errors: refusals (what it cannot write) and what the
//! engine finds on what it writes, put in the parser's order; and the
//! `unique` claims.

use std::collections::HashSet;

use crate::check::Uniques;
use crate::contract::Contract;
use crate::error::{Code, Diagnostic};

/// When a refusal is found, for the order of refusals that do not come
/// from records: the prefix, the records array, the header object, its
/// keys (in the order they are written), then the records.
pub(super) mod phase {
    pub(in crate::ser) const PREFIX: u8 = 0;
    pub(in crate::ser) const RECORDS: u8 = 1;
    pub(in crate::ser) const HEADER: u8 = 2;
    pub(in crate::ser) const HEADER_KEY: u8 = 3;
    pub(in crate::ser) const RECORD: u8 = 4;
}

/// Every error of a document, as the parser would order them.
///
/// Without refusals, `found` is already in the parser's order (it is what
/// the parser reports on the text). With refusals on the header or the
/// document (line 0 or 1), the refusals are all there is (the header the
/// records are checked against is not the one asked for). Otherwise the
/// refusals and what the engine found on the other fields are sorted by
/// line, then field (E11 last), so that the first diagnostic is the one
/// the parser gives first whichever check found it (SPEC 1.1 §9): a
/// refused field is left empty, so what the engine says of it, of its
/// record as a whole and of the record count (line 0) is dropped.
pub(super) fn merge(
    mut refusals: Vec<(u8, Diagnostic)>,
    found: Vec<Diagnostic>,
    contract: &Contract,
) -> Vec<Diagnostic> {
    if refusals.is_empty() {
        return found;
    }
    refusals.sort_by_key(|(p, _)| *p);
    let enc: Vec<Diagnostic> = refusals.into_iter().map(|(_, d)| d).collect();
    if enc.iter().any(|d| d.line() <= 1) {
        return enc;
    }
    let fields = contract.fields();
    let index = |d: &Diagnostic| -> Option<usize> {
        let base = d.field()?;
        let base = base.split_once('.').map_or(base, |(b, _)| b);
        fields.iter().position(|f| f.name == base)
    };
    // (line, field index) refused; `None`: the whole record
    let refused: HashSet<(usize, Option<usize>)> =
        enc.iter().map(|d| (d.line(), index(d))).collect();
    let lines: HashSet<usize> = enc.iter().map(Diagnostic::line).collect();
    let kept = found
        .into_iter()
        .filter(|d| d.line() > 0 && !refused.contains(&(d.line(), None)))
        .filter(|d| match index(d) {
            Some(i) => !refused.contains(&(d.line(), Some(i))),
            None => !lines.contains(&d.line()),
        });
    let mut all: Vec<Diagnostic> = enc.into_iter().chain(kept).collect();
    let rank = |d: &Diagnostic| -> usize {
        if d.code() == Code::E11 {
            fields.len() + 1
        } else {
            index(d).map_or(0, |i| i + 1)
        }
    };
    all.sort_by_key(|d| (d.line(), rank(d)));
    all
}

/// The values claimed by the `unique` fields of accepted records: the
/// engine's [`Uniques`], plus the keys taken back from it (a record that
/// turns out invalid claims nothing, and checking a key for a clash
/// without claiming it goes through [`Uniques::claim`], the one entry
/// point the engine gives).
#[derive(Debug)]
pub(super) struct Claims {
    uniques: Uniques,
    /// Per field: keys in `uniques` that are not claimed.
    retracted: Vec<HashSet<String>>,
}

impl Claims {
    pub(super) fn new(contract: &Contract) -> Self {
        Claims {
            uniques: Uniques::new(contract),
            retracted: contract.fields().iter().map(|_| HashSet::new()).collect(),
        }
    }

    pub(super) fn reserve(&mut self, contract: &Contract, records: u64) {
        self.uniques.reserve(contract, records);
    }

    /// Asks for the cache line that claiming `key` for field `i` will
    /// probe (a hint, ADR 0069).
    #[inline]
    pub(super) fn prefetch(&self, i: usize, key: &str) {
        self.uniques.prefetch(i, key);
    }

    /// Claims `key` for field `i`; false (nothing claimed) when an accepted
    /// record holds it.
    pub(super) fn claim(&mut self, i: usize, key: &str) -> bool {
        if self.uniques.claim(i, key) {
            return true;
        }
        self.retracted.get_mut(i).is_some_and(|r| r.remove(key))
    }

    /// Whether an accepted record holds `key` in field `i` (nothing is
    /// claimed).
    pub(super) fn holds(&mut self, i: usize, key: &str) -> bool {
        if self.uniques.claim(i, key) {
            self.release(i, key);
            return false;
        }
        !self.retracted.get(i).is_some_and(|r| r.contains(key))
    }

    /// Takes back a claim of the record being rejected.
    pub(super) fn release(&mut self, i: usize, key: &str) {
        if let Some(r) = self.retracted.get_mut(i) {
            r.insert(key.to_string());
        }
    }
}
