//! `typed_roundtrip`: derived types through `to_string` and `from_str`.

use crate::*;

// ---------------------------------------------------------------------------
// typed_roundtrip (needs the `derive` feature)
// ---------------------------------------------------------------------------

pub use typed_target::{typed_roundtrip, TypedDoc, TypedHeader, TypedLevel, TypedPair, TypedRow};

mod typed_target {
    use std::collections::BTreeSet;

    use arbitrary::Arbitrary;
    use serde::{Deserialize, Serialize};

    use super::{breaks_normalized, codes, fail, render, survivor};
    use mini::Code;

    /// The document type of [`typed_roundtrip`] (`#[derive(mini::Mini)]`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    #[mini(prefix = "ty", records = "rows", separator = ';')]
    pub struct TypedDoc {
        /// The header.
        pub header: TypedHeader,
        /// The records.
        pub rows: Vec<TypedRow>,
    }

    /// The header of [`TypedDoc`].
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    pub struct TypedHeader {
        /// The record count (recomputed by the serializer).
        pub n: u32,
        /// Options per row (count key of `options`).
        pub k: u32,
        /// A free header value.
        pub topic: Option<String>,
    }

    /// A unit enum.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    #[serde(rename_all = "lowercase")]
    pub enum TypedLevel {
        /// `low`
        Low,
        /// `high`
        High,
        /// `critical`
        Critical,
    }

    /// A tuple (a struct used as a field).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    pub struct TypedPair {
        /// Required component.
        pub a: i32,
        /// Optional component.
        pub b: Option<String>,
    }

    /// A record of [`TypedDoc`]: every kind of field.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    pub struct TypedRow {
        /// A unique string.
        #[mini(unique)]
        pub id: String,
        /// An enum.
        pub level: TypedLevel,
        /// A float.
        pub score: f64,
        /// An optional int.
        pub count: Option<i64>,
        /// A list of strings.
        pub tags: Vec<String>,
        /// A marked list with one selection, its length the header `k`.
        #[mini(mlist = "exactly_one", selected = "answer", count_key = "k")]
        pub options: Vec<String>,
        /// The selected option.
        pub answer: usize,
        /// A marked list of ints with any number of selections.
        #[mini(mlist = "any", selected = "picked")]
        pub labels: Vec<i32>,
        /// The selected labels.
        pub picked: Vec<usize>,
        /// A tuple.
        pub pair: TypedPair,
        /// A bool.
        pub flag: bool,
        /// An extension.
        #[mini(extension)]
        pub note: Option<String>,
    }

    /// [`TypedDoc`] without the `any` list: records the straight writers
    /// take, so that the derived writer (ADR 0047) is held to serde's walk
    /// on whole records, not only up to the `any` selection it bails on.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini)]
    #[mini(prefix = "ty", records = "rows", separator = ';')]
    pub struct SingleDoc {
        /// The header.
        pub header: TypedHeader,
        /// The records.
        pub rows: Vec<SingleRow>,
    }

    /// A record of [`SingleDoc`]: [`TypedRow`] without `labels` and
    /// `picked`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini)]
    pub struct SingleRow {
        /// A unique string.
        #[mini(unique)]
        pub id: String,
        /// An enum.
        pub level: TypedLevel,
        /// A float.
        pub score: f64,
        /// An optional int.
        pub count: Option<i64>,
        /// A list of strings.
        pub tags: Vec<String>,
        /// A marked list with one selection, its length the header `k`.
        #[mini(mlist = "exactly_one", selected = "answer", count_key = "k")]
        pub options: Vec<String>,
        /// The selected option.
        pub answer: usize,
        /// A tuple.
        pub pair: TypedPair,
        /// A bool.
        pub flag: bool,
        /// An extension.
        #[mini(extension)]
        pub note: Option<String>,
    }

    fn single(doc: &TypedDoc) -> SingleDoc {
        SingleDoc {
            header: doc.header.clone(),
            rows: doc
                .rows
                .iter()
                .map(|r| SingleRow {
                    id: r.id.clone(),
                    level: r.level,
                    score: r.score,
                    count: r.count,
                    tags: r.tags.clone(),
                    options: r.options.clone(),
                    answer: r.answer,
                    pair: r.pair.clone(),
                    flag: r.flag,
                    note: r.note.clone(),
                })
                .collect(),
        }
    }

    /// The derived record writer (`mini::to_string`, ADR 0047) and serde's
    /// walk (`to_string_through_serde`) write `doc` alike: the same text,
    /// or the same error and diagnostics.
    fn same_writers<T: Serialize + mini::Mini + std::fmt::Debug>(doc: &T) {
        let derived = mini::to_string(doc);
        let serde = mini::__private::write::to_string_through_serde(doc);
        let same = match (&derived, &serde) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => {
                a.to_string() == b.to_string() && a.diagnostics() == b.diagnostics()
            }
            _ => false,
        };
        if !same {
            fail(format!(
                "the derived writer and serde's walk differ on:\n{doc:?}\nderived: {derived:?}\nserde: {serde:?}"
            ));
        }
    }

    fn strings(doc: &mut TypedDoc, f: &mut dyn FnMut(&mut String)) {
        if let Some(t) = &mut doc.header.topic {
            f(t);
        }
        for r in &mut doc.rows {
            f(&mut r.id);
            r.tags.iter_mut().for_each(&mut *f);
            r.options.iter_mut().for_each(&mut *f);
            if let Some(b) = &mut r.pair.b {
                f(b);
            }
            if let Some(n) = &mut r.note {
                f(n);
            }
        }
    }

    /// What a document reads back as: `n` recomputed, line breaks as LF,
    /// the `any` selection ascending.
    fn read_back(doc: &TypedDoc) -> TypedDoc {
        let mut d = doc.clone();
        d.header.n = d.rows.len() as u32;
        strings(&mut d, &mut |s| *s = breaks_normalized(s));
        for r in &mut d.rows {
            r.picked.sort_unstable();
        }
        d
    }

    /// A document every value of which can be written.
    fn writable(doc: &TypedDoc) -> TypedDoc {
        let mut d = doc.clone();
        d.rows.truncate(8);
        strings(&mut d, &mut |s| *s = survivor(s));
        let k = d.rows.first().map_or(1, |r| r.options.len().clamp(1, 6));
        d.header.k = k as u32;
        for (i, r) in d.rows.iter_mut().enumerate() {
            r.id = format!("{i}{}", r.id);
            if !r.score.is_finite() {
                r.score = 0.5;
            }
            r.options.resize(k, "o".to_string());
            r.answer %= k;
            r.labels.truncate(16);
            r.picked = r
                .picked
                .iter()
                .filter(|&&p| p < r.labels.len())
                .copied()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            for o in [&mut r.pair.b, &mut r.note] {
                if o.as_deref() == Some("") {
                    *o = None;
                }
            }
        }
        d
    }

    /// The derive's direct reader (`mini::from_str`, ADR 0044) and serde's
    /// path (`from_str_through_serde`) read `text` alike: the same value,
    /// or the same error and diagnostics.
    fn same_readers(text: &str) {
        let direct = mini::from_str::<TypedDoc>(text);
        let serde = mini::__private::direct::from_str_through_serde::<TypedDoc>(text);
        let same = match (&direct, &serde) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => {
                a.to_string() == b.to_string() && a.diagnostics() == b.diagnostics()
            }
            _ => false,
        };
        if !same {
            fail(format!(
                "the direct reader and serde's path differ on:\n{text}\ndirect: {direct:?}\nserde: {serde:?}"
            ));
        }
    }

    fn roundtrip(doc: &TypedDoc) -> Result<(), mini::Error> {
        let t = mini::to_string(doc)?;
        // the text, and the text cut (a truncated answer) in a record and
        // by one character
        same_readers(&t);
        for cut in [t.len() / 2, t.len().saturating_sub(1)] {
            if let Some(head) = t.get(..cut) {
                same_readers(head);
            }
        }
        let back: TypedDoc = match mini::from_str(&t) {
            Ok(b) => b,
            Err(e) => fail(format!("to_string gave text from_str rejects: {e}\n{t}")),
        };
        if back != read_back(doc) {
            fail(format!(
                "from_str(to_string(x)) != x:\n  {back:?}\nvs\n  {:?}\ntext:\n{t}",
                read_back(doc)
            ));
        }
        match mini::to_string(&back) {
            Ok(t2) if t2 == t => Ok(()),
            Ok(t2) => fail(format!(
                "to_string ∘ from_str is not idempotent:\n{t}\nvs\n{t2}"
            )),
            Err(e) => fail(format!("to_string refused what from_str read: {e}")),
        }
    }

    /// Values of `#[derive(mini::Mini)]` types through `mini::to_string`
    /// and `mini::from_str`.
    ///
    /// 1. As generated: `to_string` either writes text that `from_str` reads
    ///    back as the same value (`n` recomputed, line breaks as LF, the
    ///    `any` selection ascending), with `to_string ∘ from_str` a fixed
    ///    point, or refuses with E06 (outer whitespace, an empty scalar, a
    ///    non-finite float), E07 (a count-key or tuple mismatch), E08 (a
    ///    selection out of range or repeated) or E11 (a repeated `id`).
    /// 2. Made writable (whitespace trimmed, ids made unique, counts
    ///    aligned, selections in range, finite floats): it must round-trip.
    /// 3. Every text written, and that text cut in its middle and by its
    ///    last character, reads the same through the derive's direct
    ///    reader and through serde's path (ADR 0044).
    /// 4. The value as generated and made writable, and both without the
    ///    `any` list (records the straight writers take whole), are written
    ///    alike by the derive's record writer and by serde's walk (ADR
    ///    0047).
    pub fn typed_roundtrip(doc: &TypedDoc) {
        same_writers(doc);
        same_writers(&single(doc));
        if let Err(e) = roundtrip(doc) {
            let allowed: BTreeSet<Code> = [Code::E06, Code::E07, Code::E08, Code::E11].into();
            if e.diagnostics().is_empty() || !codes(e.diagnostics()).is_subset(&allowed) {
                fail(format!(
                    "to_string refused with {e} ({})",
                    render(e.diagnostics())
                ));
            }
        }
        let w = writable(doc);
        same_writers(&w);
        same_writers(&single(&w));
        if let Err(e) = roundtrip(&w) {
            fail(format!(
                "a writable value was refused: {e} ({})\n{w:?}",
                render(e.diagnostics())
            ));
        }
    }
}
