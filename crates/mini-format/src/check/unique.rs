//! `unique` fields: the values claimed by accepted records (ADR 0008).

use super::*;

/// Tracks the values of `unique` fields claimed by accepted records.
///
/// Each unique field keeps its claimed keys back to back in one arena
/// `String`, indexed by a SwissTable of spans hashed with foldhash (seeded
/// per process, so the table stays minimally resistant to crafted
/// collisions): one hash and no allocation per claimed value, instead of a
/// SipHash and a `Box<str>` each (ADR 0008).
#[derive(Debug, Default)]
pub struct Uniques {
    pub(super) seen: Vec<KeySet>,
}

/// The claimed keys of one field.
#[derive(Debug, Default)]
pub(super) struct KeySet {
    pub(super) arena: String,
    pub(super) table: hashbrown::HashTable<(usize, usize)>,
    pub(super) hasher: foldhash::fast::RandomState,
}

impl KeySet {
    fn hash(&self, key: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, key)
    }

    pub(super) fn contains(&self, key: &str) -> bool {
        let arena = &self.arena;
        self.table
            .find(self.hash(key), |&(at, len)| &arena[at..at + len] == key)
            .is_some()
    }

    /// Claims `key` unless it is held (one hash): whether it was claimed.
    pub(super) fn try_insert(&mut self, key: &str) -> bool {
        let hash = self.hash(key);
        let arena = &self.arena;
        if self
            .table
            .find(hash, |&(at, len)| &arena[at..at + len] == key)
            .is_some()
        {
            return false;
        }
        self.insert_hashed(hash, key);
        true
    }

    /// Claims `key` (the caller checked it is not there).
    pub(super) fn insert(&mut self, key: &str) {
        let hash = self.hash(key);
        self.insert_hashed(hash, key);
    }

    fn insert_hashed(&mut self, hash: u64, key: &str) {
        let at = self.arena.len();
        self.arena.push_str(key);
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.table.insert_unique(hash, (at, key.len()), |&(a, l)| {
            std::hash::BuildHasher::hash_one(hasher, &arena[a..a + l])
        });
    }

    /// Gives back a key claimed by the record being rejected (the last
    /// claims, so the arena is cut back when the key is at its end).
    pub(super) fn remove(&mut self, key: &str) {
        let hash = self.hash(key);
        let arena = &self.arena;
        if let Ok(entry) = self
            .table
            .find_entry(hash, |&(at, len)| &arena[at..at + len] == key)
        {
            let ((at, len), _) = entry.remove();
            if at + len == self.arena.len() {
                self.arena.truncate(at);
            }
        }
    }
}

impl Uniques {
    /// Tracking for a contract.
    pub fn new(contract: &Contract) -> Uniques {
        Uniques {
            seen: contract
                .fields()
                .iter()
                .map(|_| KeySet::default())
                .collect(),
        }
    }

    /// Claims `key` for field `i` when no accepted record holds it; false
    /// (nothing claimed) when one does.
    pub(crate) fn claim(&mut self, i: usize, key: &str) -> bool {
        self.seen.get_mut(i).is_some_and(|set| set.try_insert(key))
    }

    /// Claims every key of one record (`(field index, key)`) when none is
    /// held yet; false, claiming nothing, when one is (E11: the engine
    /// then reports the clash).
    pub(crate) fn claim_all<'k>(
        &mut self,
        keys: impl Iterator<Item = (usize, &'k str)> + Clone,
    ) -> bool {
        let mut it = keys.clone();
        match (it.next(), it.next()) {
            (None, _) => return true,
            (Some((i, k)), None) => return self.seen.get_mut(i).is_some_and(|s| s.try_insert(k)),
            _ => {}
        }
        let held = keys
            .clone()
            .any(|(i, k)| self.seen.get(i).is_none_or(|s| s.contains(k)));
        if held {
            return false;
        }
        for (i, k) in keys {
            self.seen[i].insert(k);
        }
        true
    }

    /// Makes room for the values of `records` records (capped, since the
    /// count comes from the input), so that the sets do not grow step by
    /// step. Only the sets of `unique` fields are touched.
    pub fn reserve(&mut self, contract: &Contract, records: u64) {
        let n = usize::try_from(records.min(1 << 16)).unwrap_or(0);
        for (set, f) in self.seen.iter_mut().zip(contract.fields()) {
            if f.unique {
                let (arena, hasher) = (&set.arena, &set.hasher);
                set.table.reserve(n, |&(a, l)| {
                    std::hash::BuildHasher::hash_one(hasher, &arena[a..a + l])
                });
                set.arena.reserve(n.saturating_mul(8));
            }
        }
    }
}

pub(crate) fn unique_key(v: &FieldValue<'_>, out: &mut String) -> bool {
    out.clear();
    match v {
        FieldValue::Default => return false,
        FieldValue::Atom(a) => a.unique_key(out),
        FieldValue::List(items) | FieldValue::MList(items, _) => {
            out.push('[');
            for a in items {
                a.unique_key(out);
                out.push('\u{0}');
            }
            if let FieldValue::MList(_, s) = v {
                out.push_str(&format!("{s:?}"));
            }
        }
        FieldValue::Tuple(parts) => {
            out.push('(');
            for p in parts {
                match p {
                    Some(a) => a.unique_key(out),
                    None => out.push('~'),
                }
                out.push('\u{0}');
            }
        }
    }
    true
}
