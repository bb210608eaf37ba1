//! Reusable buffers for checking records without per-line allocation.

use super::*;

/// Reusable buffers for checking records without per-line allocation.
///
/// A scratch kept across the records of a document makes the steady state
/// allocation-free for values without escapes: the field and element
/// buffers, the values of the last record ([`Scratch::values`]) and the
/// vectors of its lists and tuples are all reused.
#[derive(Debug, Default)]
pub struct Scratch<'a> {
    pub(super) fields: Vec<RawField<'a>>,
    pub(super) syntax: Vec<SyntaxError>,
    pub(super) key: String,
    pub(super) claimed: Vec<usize>,
    pub(super) values: Vec<FieldValue<'a>>,
    pub(super) pools: Pools<'a>,
    /// See [`Scratch::check_only`].
    pub(super) check_only: bool,
}

/// The buffers `check_kind` fills: list elements, marked indices, and
/// recycled vectors for list and tuple values.
#[derive(Debug, Default)]
pub(super) struct Pools<'a> {
    pub(super) elements: Vec<Element<'a>>,
    pub(super) marked: Vec<usize>,
    pub(super) atoms: Vec<Vec<Atom<'a>>>,
    pub(super) tuples: Vec<Vec<Option<Atom<'a>>>>,
    pub(super) cut: bool,
}

/// Empties a vector and gives back its allocation for another lifetime
/// (an in-place collect of nothing: no unsafe code, no new allocation).
pub(crate) fn relife<T, U>(mut v: Vec<T>) -> Vec<U> {
    v.clear();
    v.into_iter().map(|_| unreachable!()).collect()
}

impl<'a> Scratch<'a> {
    /// Empty buffers.
    pub fn new() -> Self {
        Scratch::default()
    }

    /// Empty buffers for checking only, when no value will be read: a
    /// `str` field that is not `unique` is then not unescaped, since its
    /// text needs no typing, and its value holds the raw (escaped) text.
    /// Every check runs as with [`Scratch::new`]; only what
    /// [`Scratch::values`] holds differs. Used by [`crate::check`].
    pub fn check_only() -> Self {
        Scratch {
            check_only: true,
            ..Scratch::default()
        }
    }

    /// Whether the last record checked looked cut short (too few fields, a
    /// dangling backslash or an unclosed quote): evidence of truncation.
    pub fn looked_cut(&self) -> bool {
        self.pools.cut
    }

    /// The field values of the last record checked by
    /// [`check_record_into`] (valid only when it returned `true`).
    pub fn values(&self) -> &[FieldValue<'a>] {
        &self.values
    }

    /// [`Scratch::values`], mutable: a consumer may take the values out
    /// (the vectors left behind are reused by the next record).
    pub fn values_mut(&mut self) -> &mut [FieldValue<'a>] {
        &mut self.values
    }

    /// The same buffers (emptied) for text of another lifetime: a streaming
    /// reader keeps one scratch across lines that do not outlive each other.
    pub fn recycle<'b>(mut self) -> Scratch<'b> {
        self.recycle_values();
        Scratch {
            fields: relife(self.fields),
            syntax: self.syntax,
            key: self.key,
            claimed: self.claimed,
            values: relife(self.values),
            pools: Pools {
                elements: relife(self.pools.elements),
                marked: self.pools.marked,
                atoms: self.pools.atoms.into_iter().map(relife).collect(),
                tuples: self.pools.tuples.into_iter().map(relife).collect(),
                cut: false,
            },
            check_only: self.check_only,
        }
    }

    /// Moves the vectors of the last record's values back to the pools.
    pub(super) fn recycle_values(&mut self) {
        for v in self.values.drain(..) {
            match v {
                FieldValue::List(mut a) | FieldValue::MList(mut a, _) => {
                    a.clear();
                    self.pools.atoms.push(a);
                }
                FieldValue::Tuple(mut t) => {
                    t.clear();
                    self.pools.tuples.push(t);
                }
                FieldValue::Default | FieldValue::Atom(_) => {}
            }
        }
    }
}
