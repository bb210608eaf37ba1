//! `unique` fields: the values claimed by accepted records (ADR 0008).

use super::*;

/// Tracks the values of `unique` fields claimed by accepted records.
///
/// Each unique field keeps its claimed keys back to back in one arena
/// `String`, indexed by a table of claim indexes hashed with foldhash
/// (seeded per process, so the table stays minimally resistant to crafted
/// collisions; `check::key_table`, ADR 0069): one hash and no
/// allocation per claimed value, instead of a SipHash and a `Box<str>`
/// each (ADR 0008).
#[derive(Debug, Default)]
pub struct Uniques {
    pub(super) seen: Vec<KeySet>,
}

/// The keys of one field that the table indexes (the later ones go to
/// the overflow set); small under test, so that the overflow is tested.
const INDEXED: usize = if cfg!(test) { 64 } else { u32::MAX as usize };

/// The claimed keys of one field.
///
/// The table holds an 8-byte slot per key, its hash's 32-bit tag beside
/// its claim index, so that a reader can ask the cache for a key's slot
/// before it claims the key ([`KeySet::prefetch`], ADR 0069; before, a
/// SwissTable of 4-byte indexes, ADR 0033); the spans are kept in claim
/// order beside it and read only to compare a key whose tag matches.
/// Keys past index `u32::MAX` (four billion claims of one field) go to
/// `overflow`.
///
/// The key of an int that fits in 18 digits is kept as the int itself
/// (ADR 0045): an int in `0..SMALL_INTS` as one bit of `small` (ids
/// numbered from 1 are the common case: one load and one store a claim,
/// no hash, no probe), any other in `ints` (one hash of a word); neither
/// copies the key into the arena. Which set a key goes to depends on its
/// text alone, and no two keys share an int ([`int_key`]), so the claims
/// are those of one set.
#[derive(Debug, Default)]
pub(super) struct KeySet {
    pub(super) arena: String,
    pub(super) spans: Vec<(usize, usize)>,
    pub(super) table: super::key_table::KeyTable,
    pub(super) overflow: std::collections::HashSet<Box<str>>,
    pub(super) small: Vec<u64>,
    pub(super) ints: hashbrown::HashTable<i64>,
    pub(super) hasher: foldhash::fast::RandomState,
}

/// The ints kept as bits: `0..2^20`, at most 128 KiB a field, grown as
/// the claims need it (the input decides the ints, so the bound is ours).
const SMALL_INTS: i64 = 1 << 20;

/// The int an int key stands for, when the key is the canonical text of
/// one of at most 18 digits: the INT tag, then what
/// [`crate::number::small_canonical_int`] reads (an optional `-`, digits
/// with no leading zero, not `-0`). Exactly one key text maps to each
/// int, so keeping such keys as ints keeps them apart as their texts were.
fn int_key(key: &str) -> Option<i64> {
    crate::number::small_canonical_int(key.strip_prefix(key_tag::INT)?)
}

/// A record's unique key as a reader hands it to [`Uniques::claim_all`]:
/// a short canonical int by its value, which the sets keep as such (ADR
/// 0045), so that it is not written as text and read back (ADR 0053);
/// any other key as its text ([`Atom::unique_key`]'s form, where a short
/// canonical int is `i` and its digits: the same claim as `Int`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Key<'k> {
    /// A short canonical int's value.
    Int(i64),
    /// A key's text.
    Text(&'k str),
}

impl KeySet {
    fn hash_int(&self, v: i64) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, v)
    }

    /// The word and bit of a small int (`None` for another int).
    fn small_bit(v: i64) -> Option<(usize, u64)> {
        let v = usize::try_from(v)
            .ok()
            .filter(|&v| (v as i64) < SMALL_INTS)?;
        Some((v / 64, 1 << (v % 64)))
    }

    fn contains_int(&self, v: i64) -> bool {
        match KeySet::small_bit(v) {
            Some((w, bit)) => self.small.get(w).is_some_and(|&word| word & bit != 0),
            None => self.ints.find(self.hash_int(v), |&x| x == v).is_some(),
        }
    }

    fn remove_int(&mut self, v: i64) {
        match KeySet::small_bit(v) {
            Some((w, bit)) => {
                if let Some(word) = self.small.get_mut(w) {
                    *word &= !bit;
                }
            }
            None => {
                if let Ok(entry) = self.ints.find_entry(self.hash_int(v), |&x| x == v) {
                    entry.remove();
                }
            }
        }
    }

    /// Claims the int key `v` unless it is held.
    fn try_insert_int(&mut self, v: i64) -> bool {
        if let Some((w, bit)) = KeySet::small_bit(v) {
            if w >= self.small.len() {
                // doubled, so that ints claimed in order grow it in steps
                let words = (w + 1).max(2 * self.small.len());
                self.small.resize(words.min((SMALL_INTS / 64) as usize), 0);
            }
            let word = &mut self.small[w];
            let held = *word & bit != 0;
            *word |= bit;
            return !held;
        }
        let (hash, hasher) = (self.hash_int(v), &self.hasher);
        match self.ints.entry(
            hash,
            |&x| x == v,
            |&x| std::hash::BuildHasher::hash_one(hasher, x),
        ) {
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(v);
                true
            }
            hashbrown::hash_table::Entry::Occupied(_) => false,
        }
    }

    /// A key's hash: its text's, after the one-byte tag (ADR 0072), so
    /// that a key's hash can be had from its text before the key is made.
    /// A scalar field's keys share their tag; keys of one text under two
    /// tags share a hash and are told apart by `eq`, which compares the
    /// whole key.
    fn hash(&self, key: &str) -> u64 {
        self.hash_text(key.get(1..).unwrap_or(key))
    }

    fn hash_text(&self, text: &str) -> u64 {
        std::hash::BuildHasher::hash_one(&self.hasher, text)
    }

    fn key_at(&self, i: u32) -> &str {
        let (at, len) = self.spans[i as usize];
        &self.arena[at..at + len]
    }

    fn find(&self, hash: u64, key: &str) -> bool {
        self.table.find(hash, |i| self.key_at(i) == key).is_some()
            || (!self.overflow.is_empty() && self.overflow.contains(key))
    }

    pub(super) fn contains(&self, key: &str) -> bool {
        if let Some(v) = int_key(key) {
            return self.contains_int(v);
        }
        self.find(self.hash(key), key)
    }

    /// Claims `key` unless it is held (one hash, and one probe of the table
    /// that finds the key or its slot, ADR 0038): whether it was claimed.
    /// With keys in the overflow set, a search then an insertion.
    pub(super) fn try_insert(&mut self, key: &str) -> bool {
        if let Some(v) = int_key(key) {
            return self.try_insert_int(v);
        }
        let hash = self.hash(key);
        let i = self.spans.len();
        if i >= INDEXED || !self.overflow.is_empty() {
            if self.find(hash, key) {
                return false;
            }
            self.insert_hashed(hash, key);
            return true;
        }
        // one probe finds the key or the slot it goes to
        let (arena, spans) = (&self.arena, &self.spans);
        let held = |j: u32| {
            let (a, l) = spans[j as usize];
            &arena[a..a + l] == key
        };
        if !self.table.insert_unless(hash, i as u32, held) {
            return false;
        }
        let at = self.arena.len();
        self.arena.push_str(key);
        self.spans.push((at, key.len()));
        true
    }

    /// Asks for the cache line that claiming the text `key` will probe
    /// first (ADR 0069): a hint, nothing is claimed. An int's key has no
    /// table line to ask for (a bit, or a table of its own), and is told
    /// by its tag alone (reading its digits would cost more than the hint
    /// saves; an int key that is not canonical goes unhinted).
    #[inline]
    pub(super) fn prefetch(&self, key: &str) {
        if !key.starts_with(key_tag::INT) {
            self.table.prefetch(self.hash(key));
        }
    }

    fn contains_key(&self, key: Key<'_>) -> bool {
        match key {
            Key::Int(v) => self.contains_int(v),
            Key::Text(t) => self.contains(t),
        }
    }

    fn try_insert_key(&mut self, key: Key<'_>) -> bool {
        match key {
            Key::Int(v) => self.try_insert_int(v),
            Key::Text(t) => self.try_insert(t),
        }
    }

    fn insert_key(&mut self, key: Key<'_>) {
        match key {
            Key::Int(v) => {
                self.try_insert_int(v);
            }
            Key::Text(t) => self.insert(t),
        }
    }

    /// Claims `key` (the caller checked it is not there).
    pub(super) fn insert(&mut self, key: &str) {
        if let Some(v) = int_key(key) {
            self.try_insert_int(v);
            return;
        }
        let hash = self.hash(key);
        self.insert_hashed(hash, key);
    }

    fn insert_hashed(&mut self, hash: u64, key: &str) {
        let i = self.spans.len();
        if i >= INDEXED {
            self.overflow.insert(key.into());
            return;
        }
        let at = self.arena.len();
        self.arena.push_str(key);
        self.spans.push((at, key.len()));
        self.table.insert_unless(hash, i as u32, |_| false);
    }

    /// Gives back a key claimed by the record being rejected (the last
    /// claims, so the arena and the spans are cut back when the key is at
    /// their end).
    pub(super) fn remove(&mut self, key: &str) {
        if let Some(v) = int_key(key) {
            self.remove_int(v);
            return;
        }
        if self.overflow.remove(key) {
            return;
        }
        let hash = self.hash(key);
        if let Some(at) = self.table.find(hash, |i| self.key_at(i) == key) {
            let i = self.table.remove_at(at);
            if i as usize + 1 == self.spans.len() {
                let (at, _) = self.spans[i as usize];
                self.spans.pop();
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

    /// Asks for the cache line that claiming `key` for field `i` will
    /// probe first, so that the claim at the record's end finds it in the
    /// cache (ADR 0069): a reader calls it as soon as it has the key.
    #[inline]
    pub(crate) fn prefetch(&self, i: usize, key: &str) {
        if let Some(set) = self.seen.get(i) {
            set.prefetch(key);
        }
    }

    /// [`Uniques::prefetch`] for the key of a `str` field `i` whose text
    /// is `text` (the key not made: no copy).
    #[inline]
    pub(crate) fn prefetch_text(&self, i: usize, text: &str) {
        if let Some(set) = self.seen.get(i) {
            set.table.prefetch(set.hash_text(text));
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
    #[inline(always)]
    pub(crate) fn claim_all<'k>(
        &mut self,
        keys: impl Iterator<Item = (usize, Key<'k>)> + Clone,
    ) -> bool {
        let mut it = keys.clone();
        match (it.next(), it.next()) {
            (None, _) => return true,
            (Some((i, k)), None) => {
                return self.seen.get_mut(i).is_some_and(|s| s.try_insert_key(k))
            }
            _ => {}
        }
        let held = keys
            .clone()
            .any(|(i, k)| self.seen.get(i).is_none_or(|s| s.contains_key(k)));
        if held {
            return false;
        }
        for (i, k) in keys {
            self.seen[i].insert_key(k);
        }
        true
    }

    /// Makes room for the values of `records` records (capped, since the
    /// count comes from the input), so that the sets do not grow step by
    /// step. Only the sets of `unique` fields are touched.
    pub fn reserve(&mut self, contract: &Contract, records: u64) {
        let n = usize::try_from(records.min(1 << 16)).unwrap_or(0);
        for (set, f) in self.seen.iter_mut().zip(contract.fields()) {
            if !f.unique {
                continue;
            }
            match &f.kind {
                // ints as bits, for ids numbered from 1 up to `n` (other
                // ints go to a table grown as they come)
                Kind::Scalar(s) if s.ty == ScalarType::Int => {
                    set.small
                        .reserve((n / 64 + 1).min((SMALL_INTS / 64) as usize));
                }
                // any other value: its key text, in the arena
                _ => {
                    set.table.reserve(n);
                    set.spans.reserve(n);
                    set.arena.reserve(n.saturating_mul(8));
                }
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

/// The bytes of a line [`leading_text`] looks through for the end of its
/// first field: the scan is the whole cost of the hint it serves.
const LEADING_SCAN: usize = 32;

/// The text of a record line's first field when it is written plain (no
/// escape, no quote: its text is its key's) and ends within the line's
/// first [`LEADING_SCAN`] bytes; `None` otherwise. The validator asks for
/// the table line of the next record's key with it (ADR 0072): only a hint,
/// so a first field with edge spaces (whose key is trimmed) merely asks for
/// another line.
#[inline(always)]
pub(super) fn leading_text(line: &str) -> Option<&str> {
    let head = &line.as_bytes()[..line.len().min(LEADING_SCAN)];
    let end = head
        .iter()
        .position(|&b| matches!(b, b'|' | b'\\' | b'"'))?;
    (head[end] == b'|').then(|| &line[..end])
}

#[cfg(test)]
mod tests {
    use super::{int_key, leading_text, KeySet, Uniques};
    use crate::check::scalar::key_tag;

    /// A plain first field is the text before the first `|`; an escaped or
    /// quoted one, or one not ended within the scan, gives no text.
    #[test]
    fn the_leading_text_is_a_plain_first_field() {
        assert_eq!(leading_text("q17|stem|x"), Some("q17"));
        assert_eq!(leading_text("|stem"), Some(""));
        assert_eq!(leading_text("é1|x"), Some("é1"));
        assert_eq!(
            leading_text(&format!("{}|x", "a".repeat(31))).map(str::len),
            Some(31)
        );
        assert_eq!(leading_text(&format!("{}|x", "a".repeat(32))), None);
        assert_eq!(leading_text("q\\|1|x"), None);
        assert_eq!(leading_text("\"q|1\"|x"), None);
        assert_eq!(leading_text("q17"), None);
        assert_eq!(leading_text(""), None);
    }

    /// The hash the hint asks with is the one the claim probes with: a
    /// text's hash is its `str` key's, and keys of one text under two tags
    /// share a hash but stay two keys.
    #[test]
    fn a_texts_hash_is_its_keys() {
        let set = KeySet::default();
        for text in ["", "q0", "q99999", "é", "a longer id with spaces"] {
            let key = format!("{}{text}", key_tag::STR);
            assert_eq!(set.hash_text(text), set.hash(&key), "{text:?}");
        }
        let mut set = KeySet::default();
        assert!(set.try_insert("sx7"));
        assert!(set.try_insert("dx7"));
        assert!(!set.try_insert("sx7"));
        assert!(set.contains("dx7") && !set.contains("bx7"));
        // a hint for a field with no set asks for nothing (and does not
        // panic)
        let u = Uniques {
            seen: vec![KeySet::default()],
        };
        u.prefetch_text(0, "q1");
        u.prefetch_text(5, "q1");
    }

    /// An int key is read as its int exactly when it is the canonical text
    /// of one of at most 18 digits; any other key stays text.
    #[test]
    fn int_keys_are_the_canonical_texts_of_18_digits() {
        for v in [
            0,
            1,
            -1,
            9,
            10,
            -10,
            999_999_999_999_999_999,
            -999_999_999_999_999_999,
        ] {
            assert_eq!(int_key(&format!("i{v}")), Some(v), "{v}");
        }
        let texts = [
            "i",
            "i-",
            "i-0",
            "i00",
            "i007",
            "i-07",
            "i1000000000000000000",
            "i+5",
            "i5x",
            "i 5",
            "s5",
            "5",
            "[i5\u{0}",
            "i\u{661}",
        ];
        for text in texts {
            assert_eq!(int_key(text), None, "{text:?}");
        }
        let mut rng = crate::test_rng(0x1e7_0000_0001);
        for _ in 0..20_000 {
            let v = (rng() as i64) % 1_000_000_000_000_000_000;
            let text = format!("i{v}");
            assert_eq!(int_key(&text), Some(v), "{text}");
            assert_eq!(int_key(&format!("i0{}", v.unsigned_abs())), None);
        }
    }

    /// A key set holds what a set of the key texts holds, through any
    /// sequence of claims, checks and give-backs of int keys (small and
    /// long), texts, and int-like texts that are not canonical.
    #[test]
    fn a_key_set_is_a_set_of_its_key_texts() {
        let mut rng = crate::test_rng(0x5e75_0000_0002);
        let mut set = KeySet::default();
        let mut model = std::collections::HashSet::new();
        for _ in 0..50_000 {
            let key = match rng() % 6 {
                0 => format!("i{}", (rng() % 400) as i64 - 200),
                5 if rng() % 2 == 0 => format!("i{}", (1 << 20) - 100 + (rng() % 200) as i64),
                1 => format!("i{}", 999_999_999_999_999_000 + (rng() % 2_000) as i64),
                2 => format!("i0{}", rng() % 50),
                3 => format!("i-0{}", rng() % 3),
                4 => format!("s{}", rng() % 200),
                _ => format!("i{}", rng() % 50),
            };
            match rng() % 4 {
                0 => assert_eq!(set.try_insert(&key), model.insert(key.clone()), "{key}"),
                1 => assert_eq!(set.contains(&key), model.contains(&key), "{key}"),
                2 => {
                    if !model.contains(&key) {
                        set.insert(&key);
                        model.insert(key);
                    }
                }
                _ => {
                    set.remove(&key);
                    model.remove(&key);
                }
            }
        }
        assert!(!set.ints.is_empty() && !set.small.is_empty() && !set.spans.is_empty());
        assert!(set.small.len() <= (super::SMALL_INTS / 64) as usize);
    }

    /// Claims past the indexed ones (the overflow set) behave as the
    /// indexed: held keys refused, given-back keys claimable again, the
    /// arena cut back when the last claim is given back.
    #[test]
    fn claims_past_the_index_are_held_and_given_back() {
        let mut set = KeySet::default();
        let keys: Vec<String> = (0..200).map(|k| format!("s{k}")).collect();
        for k in &keys {
            assert!(set.try_insert(k), "{k}");
        }
        assert!(!set.overflow.is_empty());
        for k in &keys {
            assert!(set.contains(k) && !set.try_insert(k), "{k}");
        }
        assert!(!set.contains("s200"));
        // the last indexed key and an overflow key given back
        set.remove("s63");
        set.remove("s150");
        assert!(!set.contains("s63") && !set.contains("s150"));
        assert!(set.contains("s62") && set.contains("s151"));
        assert!(set.try_insert("s150") && set.try_insert("s63"));
        // a last claim given back cuts the arena
        let mut small = KeySet::default();
        small.insert("ab");
        small.insert("cd");
        small.remove("cd");
        assert_eq!((small.arena.as_str(), small.spans.len()), ("ab", 1));
        assert!(small.try_insert("cd"));
    }
}
