//! The index of one `unique` field's text keys (ADR 0069): open
//! addressing over 8-byte slots, each a key's 32-bit tag (the high half of
//! its hash) beside its claim index, probed linearly from the slot the tag
//! names. The slot a key probes first is known from its hash alone, so a
//! reader that has a record's key long before the record is claimed can
//! ask for that slot's cache line ahead ([`KeyTable::prefetch`]); at
//! 100,000 claims the table no longer stays in a core's cache while the
//! document streams past it, and a SwissTable's probe waits on two lines
//! (its control bytes, then its bucket) that nothing can fetch ahead.
//!
//! The table holds indexes only; the keys stay where the caller keeps them
//! (the arena of [`super::unique::KeySet`]), compared through the `eq`
//! closure only when a slot's tag matches (one in 2^32 for another key).

/// An empty slot.
const EMPTY: u64 = 0;

/// The fewest slots of a table that holds any key.
const MIN_SLOTS: usize = 16;

/// Claim indexes of text keys by their hash, at most seven eighths full
/// (half full when sized ahead).
#[derive(Debug, Default)]
pub(super) struct KeyTable {
    /// `EMPTY`, or `(tag << 32) | (index + 1)`; a power of two long (or
    /// empty).
    slots: Vec<u64>,
    /// The slots in use.
    len: usize,
}

/// The tag of a hash: its high 32 bits, which also name the key's first
/// slot (a table of more than `2^32` slots, some four billion keys,
/// reaches the slots past them by probing only).
fn tag(hash: u64) -> u32 {
    (hash >> 32) as u32
}

impl KeyTable {
    /// How many keys the table holds.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    fn home(&self, tag: u32) -> usize {
        tag as usize & (self.slots.len() - 1)
    }

    /// Asks for the cache line of the slot a key of `hash` probes first, so
    /// that a claim made later finds it in the cache (a hint: nothing is
    /// read, and no answer depends on it).
    #[inline]
    pub(super) fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            prefetch(&self.slots[self.home(tag(hash))]);
        }
    }

    /// Makes room for `more` keys beyond those held, with the table at
    /// most half full once they are in: a table sized ahead (a document's
    /// `n`, capped) probes its first slot alone most of the time, and one
    /// that grows later keeps growing at seven eighths.
    pub(super) fn reserve(&mut self, more: usize) {
        let want = self.len.saturating_add(more);
        let slots = power_of_two(want.saturating_mul(2));
        if slots > self.slots.len() {
            self.resize(slots);
        }
    }

    /// The slot holding the key of `hash` that `eq` accepts (given its
    /// index), if any.
    pub(super) fn find(&self, hash: u64, eq: impl Fn(u32) -> bool) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        self.probe(tag(hash), eq).ok()
    }

    /// Inserts `index` for a key of `hash` unless `eq` accepts a held one
    /// (one probe finds the key or the slot it goes to): whether it was
    /// inserted. `index` is below `u32::MAX`.
    #[inline]
    pub(super) fn insert_unless(
        &mut self,
        hash: u64,
        index: u32,
        eq: impl Fn(u32) -> bool,
    ) -> bool {
        if !fits(self.len + 1, self.slots.len()) {
            self.grow();
        }
        let t = tag(hash);
        let Err(at) = self.probe(t, eq) else {
            return false;
        };
        self.slots[at] = (u64::from(t) << 32) | u64::from(index + 1);
        self.len += 1;
        true
    }

    /// The probe of a non-empty table from tag `t`'s first slot: `Ok` with
    /// the slot of the key `eq` accepts, or `Err` with the empty slot that
    /// ends the probe (where such a key goes).
    #[inline(always)]
    fn probe(&self, t: u32, eq: impl Fn(u32) -> bool) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(t);
        loop {
            let slot = self.slots[at];
            if slot == EMPTY {
                return Err(at);
            }
            if (slot >> 32) as u32 == t && eq(slot as u32 - 1) {
                return Ok(at);
            }
            at = (at + 1) & mask;
        }
    }

    /// Takes the key out of slot `at` (from [`KeyTable::find`]): its
    /// index. The keys probed past it move back, so that every key stays
    /// reachable from its first slot without a gap (no tombstones).
    pub(super) fn remove_at(&mut self, at: usize) -> u32 {
        let mask = self.slots.len() - 1;
        let index = self.slots[at] as u32 - 1;
        let mut hole = at;
        let mut next = (at + 1) & mask;
        loop {
            let slot = self.slots[next];
            if slot == EMPTY {
                break;
            }
            let home = self.home((slot >> 32) as u32);
            // the key at `next` may fill the hole when its first slot is
            // not within (hole, next] (cyclically)
            if (next.wrapping_sub(home) & mask) >= (next.wrapping_sub(hole) & mask) {
                self.slots[hole] = slot;
                hole = next;
            }
            next = (next + 1) & mask;
        }
        self.slots[hole] = EMPTY;
        self.len -= 1;
        index
    }

    /// Makes room for one more key (a table seven eighths full doubles).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.resize(slots_for(self.len + 1));
    }

    /// Moves every key to a table of `slots` slots (positions come from the
    /// tags: no key is read or hashed again).
    fn resize(&mut self, slots: usize) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; slots]);
        let mask = slots - 1;
        for slot in old.into_iter().filter(|&s| s != EMPTY) {
            let mut at = self.home((slot >> 32) as u32);
            while self.slots[at] != EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
        }
    }
}

/// Asks the cache for the line holding `slot` (`prefetcht0` on x86-64,
/// through `pulp`'s SSE token, which keeps the `unsafe`; nothing
/// elsewhere).
#[inline(always)]
fn prefetch(slot: &u64) {
    #[cfg(target_arch = "x86_64")]
    if let Some(sse) = pulp::core_arch::x86::Sse::try_new() {
        sse._mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(std::ptr::from_ref(slot).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// Whether `keys` keys fit in `slots` slots: at most seven eighths full.
fn fits(keys: usize, slots: usize) -> bool {
    keys.saturating_add(keys / 7) < slots
}

/// The slots a table of `keys` keys needs: the fewest that [`fits`]
/// them.
fn slots_for(keys: usize) -> usize {
    power_of_two(keys.saturating_add(keys / 7).saturating_add(1))
}

/// The power of two at or above `slots` (at least [`MIN_SLOTS`]).
fn power_of_two(slots: usize) -> usize {
    slots
        .max(MIN_SLOTS)
        .checked_next_power_of_two()
        .unwrap_or(1 << (usize::BITS - 1))
}

#[cfg(test)]
mod tests {
    use super::KeyTable;

    /// The table answers as a map from hashes' keys to indexes through any
    /// sequence of inserts, finds and removals, with hashes chosen to
    /// collide on their first slot (and some on their whole tag), and
    /// across its growth.
    #[test]
    fn the_table_is_a_map_through_collisions_removals_and_growth() {
        let mut rng = crate::test_rng(0x7ab1_e000_0001);
        let mut table = KeyTable::default();
        // key k's hash: a few tags shared by many keys, so that probes
        // run long, some near `u32::MAX`, so that they wrap past the
        // table's end; its index: its position in `keys`
        let hash = |k: u64| {
            let t = ((k % 37) as u32).wrapping_sub((k % 3) as u32 * 17);
            (u64::from(t) << 32) | k
        };
        let mut keys: Vec<u64> = Vec::new();
        let mut model = std::collections::HashMap::new();
        for _ in 0..40_000 {
            let k = rng() % 3_000;
            let eq = |keys: &Vec<u64>, i: u32| keys[i as usize] == k;
            match rng() % 3 {
                0 => {
                    let index = keys.len() as u32;
                    let inserted = table.insert_unless(hash(k), index, |i| eq(&keys, i));
                    assert_eq!(inserted, !model.contains_key(&k), "{k}");
                    if inserted {
                        keys.push(k);
                        model.insert(k, index);
                    }
                }
                1 => {
                    let found = table.find(hash(k), |i| eq(&keys, i));
                    assert_eq!(found.is_some(), model.contains_key(&k), "{k}");
                }
                _ => {
                    if let Some(at) = table.find(hash(k), |i| eq(&keys, i)) {
                        assert_eq!(Some(table.remove_at(at)), model.remove(&k), "{k}");
                    }
                }
            }
            assert_eq!(table.len(), model.len());
        }
        for (&k, &index) in &model {
            let at = table.find(hash(k), |i| keys[i as usize] == k);
            assert_eq!(at.map(|at| table.slots[at] as u32 - 1), Some(index));
        }
        assert!(super::fits(table.len(), table.slots.len()));
        assert!(table.slots.len().is_power_of_two());
    }

    /// Room made ahead is kept: reserving for `n` keys means `n` inserts
    /// do not resize, and the table is then at most half full.
    #[test]
    fn a_reserved_table_does_not_grow() {
        let mut table = KeyTable::default();
        table.reserve(1_000);
        let slots = table.slots.len();
        for k in 0..1_000u64 {
            let h = k.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            assert!(table.insert_unless(h, k as u32, |_| false));
            table.prefetch(h);
        }
        assert_eq!(table.slots.len(), slots);
        assert!(table.len() * 2 <= slots && table.len() * 4 > slots);
        KeyTable::default().prefetch(7);
    }
}
