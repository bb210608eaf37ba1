//! A tuple field's components (SPEC 1.1 §5.4), read by serde's path as a
//! sequence and by the derive's direct reader as a struct: either checked
//! all at once by the rules and kept typed in the cursor
//! ([`FieldCur::tuple_rules`]), or, for a plain text, typed one by one
//! as they are taken ([`FieldCur::plain_tuple`], ADR 0049).

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, SeqAccess};

use super::field::FieldCur;
use super::typed::{type_text, Typed, TypedDe};
use super::{Ctx, Part};
use crate::contract::Component;
use crate::error::{Error, Result};
use crate::plan::StepKind;
use crate::syntax;

impl<'de, 'c> FieldCur<'_, '_, 'de, 'c> {
    /// The rules of a tuple: the grammar, the component count (E07), no
    /// marker (E08), and each component typed (its bounds included). The
    /// components wait in the cursor.
    #[inline(never)]
    pub(super) fn tuple_rules(&mut self, comps: &[Component]) -> Result<()> {
        let raw = self.raw();
        let sep = self.rec.plan.sep;
        let cur = &mut *self.rec.cur;
        if syntax::split_list(raw.raw, sep, &mut cur.elements).is_err()
            || cur.elements.len() != comps.len()
        {
            return self.rec.fail();
        }
        cur.parts.clear();
        for (c, e) in comps.iter().zip(cur.elements.iter_mut()) {
            if e.marked {
                return self.rec.fail();
            }
            if e.text.is_empty() {
                if c.optional {
                    cur.parts.push(None);
                    continue;
                }
                return self.rec.fail();
            }
            match type_text(std::mem::take(&mut e.text), &c.scalar, true) {
                Some(t) => cur.parts.push(Some(t)),
                None => return self.rec.fail(),
            }
        }
        Ok(())
    }

    /// Whether serde's path hands this field to a struct whose fields are
    /// `names` as the sequence of its typed components (the test of
    /// `visit_tuple_struct`); when it does, the tuple's rules are checked
    /// and its components wait in the cursor ([`Self::parts`]).
    #[inline(always)]
    pub(super) fn tuple_as_seq(&mut self, names: &'static [&'static str]) -> Result<bool> {
        let StepKind::Tuple(comps) = self.rec.step(self.i).kind else {
            return Ok(false);
        };
        let same_names = self.rec.cur.hint.derived
            && names.len() == comps.len()
            && names.iter().zip(comps.iter()).all(|(n, c)| *n == c.name);
        if self.rec.absent(self.i) || !same_names {
            return Ok(false);
        }
        self.tuple_rules(comps)?;
        Ok(self.rec.cur.hint.absent_is_none || self.rec.cur.parts.iter().all(Option::is_some))
    }

    /// The components [`Self::tuple_as_seq`] checked, in order.
    pub(super) fn parts(&mut self) -> Parts<'_, 'de, 'c> {
        let comps: &'c [Component] = match self.rec.step(self.i).kind {
            StepKind::Tuple(comps) => comps,
            _ => &[],
        };
        let ctx = self.ctx();
        Parts::checked(self.rec.cur.parts.drain(..), comps, ctx)
    }

    /// The components of a tuple the direct reader takes as a struct whose
    /// fields are `names` (as [`Self::tuple_as_seq`] decides), when its
    /// text needs no element grammar (no quote, marker or escape:
    /// `syntax::plain_elements`) and has as many components as the
    /// contract: each is typed by its rules as it is taken, with no
    /// element vector or typed parts between the text and the struct.
    /// `None` for any other tuple ([`Self::tuple_as_seq`] reads it).
    #[inline(always)]
    pub(super) fn plain_tuple(
        &mut self,
        names: &'static [&'static str],
    ) -> Option<Parts<'_, 'de, 'c>> {
        let StepKind::Tuple(comps) = self.rec.step(self.i).kind else {
            return None;
        };
        let hint = self.rec.cur.hint;
        // an absent optional component goes to serde's path unless the
        // type reads absent values as `None` (see `tuple_as_seq`)
        if !hint.derived
            || names.len() != comps.len()
            || self.rec.absent(self.i)
            || (!hint.absent_is_none && comps.iter().any(|c| c.optional))
            || !names.iter().zip(comps.iter()).all(|(n, c)| *n == c.name)
        {
            return None;
        }
        let (n, texts) = syntax::plain_elements(self.raw().raw, self.rec.plan.sep)?;
        if n != comps.len() {
            return None;
        }
        let ctx = self.ctx();
        Some(Parts {
            source: PartSource::Plain {
                texts,
                failed: &mut self.rec.cur.failed,
            },
            comps: comps.iter(),
            ctx,
        })
    }
}

/// The typed components of a tuple, handed in order (an absent optional
/// one as `None`).
pub(super) struct Parts<'p, 'de, 'c> {
    source: PartSource<'p, 'de>,
    comps: std::slice::Iter<'c, Component>,
    ctx: Ctx<'c>,
}

/// Where a tuple's components come from.
enum PartSource<'p, 'de> {
    /// Typed by [`FieldCur::tuple_rules`], waiting in the cursor.
    Checked(std::vec::Drain<'p, Option<Typed<'de>>>),
    /// The texts of a tuple [`FieldCur::plain_tuple`] found plain, each
    /// typed by the rules as it is taken; `failed` is the cursor's flag,
    /// set when one breaks a rule.
    Plain {
        texts: syntax::PlainElements<'de>,
        failed: &'p mut bool,
    },
}

impl<'p, 'de, 'c> Parts<'p, 'de, 'c> {
    /// The components [`FieldCur::tuple_rules`] typed, with their contract
    /// components.
    pub(super) fn checked(
        parts: std::vec::Drain<'p, Option<Typed<'de>>>,
        comps: &'c [Component],
        ctx: Ctx<'c>,
    ) -> Self {
        Parts {
            source: PartSource::Checked(parts),
            comps: comps.iter(),
            ctx,
        }
    }

    /// How many components are left.
    pub(super) fn left(&self) -> usize {
        self.comps.len()
    }

    /// The next component's typed value (`None`: an absent optional one)
    /// and its contract component; `None` after the last. A plain tuple's
    /// component that breaks a rule stops the line (E10, E07: the engine
    /// reads it again for the diagnostic).
    #[inline(always)]
    pub(super) fn next_part(&mut self) -> Result<Option<(Option<Typed<'de>>, &'c Component)>> {
        let Some(c) = self.comps.next() else {
            return Ok(None);
        };
        match &mut self.source {
            PartSource::Checked(parts) => Ok(parts.next().map(|p| (p, c))),
            PartSource::Plain { texts, failed } => {
                // as many texts as components: `plain_tuple` counted them
                let text = texts.next().unwrap_or_default();
                if text.is_empty() {
                    if c.optional {
                        return Ok(Some((None, c)));
                    }
                } else if let Some(t) = type_text(Cow::Borrowed(text), &c.scalar, true) {
                    return Ok(Some((Some(t), c)));
                }
                **failed = true;
                Err(Error::stopped())
            }
        }
    }

    /// `refused`, the error a component's type gave, unless a component
    /// after it breaks a rule (a plain tuple's are checked as they are
    /// taken; the rules' error comes first, as when all were checked
    /// before any was read).
    #[cold]
    pub(super) fn after_refusal(&mut self, refused: Error) -> Error {
        loop {
            match self.next_part() {
                Ok(Some(_)) => {}
                Ok(None) => return refused,
                Err(stopped) => return stopped,
            }
        }
    }

    /// A component handed to `T` as serde's path hands it (the direct
    /// reader's way back to serde, ADR 0044).
    #[inline(never)]
    pub(super) fn serde_part<T: de::Deserialize<'de>>(
        &self,
        value: Option<Typed<'de>>,
        c: &Component,
    ) -> Result<T> {
        match value {
            Some(value) => T::deserialize(TypedDe {
                value,
                ctx: self.ctx,
                part: Part::Component(&c.name),
            }),
            None => T::deserialize(de::value::UnitDeserializer::<Error>::new()),
        }
    }
}

impl<'de> SeqAccess<'de> for Parts<'_, 'de, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let Some((part, c)) = self.next_part()? else {
            return Ok(None);
        };
        match part {
            Some(value) => seed
                .deserialize(TypedDe {
                    value,
                    ctx: self.ctx,
                    part: Part::Component(&c.name),
                })
                .map(Some),
            None => seed
                .deserialize(de::value::UnitDeserializer::<Error>::new())
                .map(Some),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.comps.len())
    }
}
