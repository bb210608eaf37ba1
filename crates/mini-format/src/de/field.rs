//! One field of a record line, typed when serde asks for it (the
//! single-pass reader's values, ADR 0024): scalars, lists walked element
//! by element, tuples, and the typed value handed to serde (an atom, or a
//! float already read as a double).

use super::cursor::{KeyEnd, Line};
use super::*;

use de::Deserializer as _;

use super::parts::Parts;
use super::typed::{type_text, Typed, TypedDe};
use crate::check::{check_atom, check_float, check_marker, check_small_int, key_tag, read_float};
use crate::contract::{Component, Scalar, ScalarType};
use crate::plan::StepKind;
use crate::syntax::{self, RawField};

/// One field of the record line, typed when serde asks for it.
pub(super) struct FieldCur<'r, 'a, 'de, 'c> {
    pub(super) rec: &'r mut Line<'a, 'de, 'c>,
    pub(super) i: usize,
}

impl<'r, 'a, 'de, 'c> FieldCur<'r, 'a, 'de, 'c> {
    pub(super) fn raw(&self) -> RawField<'de> {
        self.rec.cur.fields[self.i]
    }

    /// The text of a present `str` field, its unique key recorded.
    #[inline(always)]
    pub(super) fn str_value(&mut self) -> Result<StrDe<'de>> {
        let raw = self.raw();
        if raw.is_empty() {
            return self.rec.fail();
        }
        let text = raw.text(self.rec.plan.sep);
        if self.rec.step(self.i).unique.is_some() {
            self.text_key(key_tag::STR, &text);
        }
        Ok(StrDe(text))
    }

    /// Records the unique key of a field whose text is its key after a
    /// tag (the key `Atom::unique_key` gives): a `str` (`s`), or an int
    /// read by the short path, whose text is canonical (`i`).
    #[inline(never)]
    fn text_key(&mut self, tag: char, text: &str) {
        let cur = &mut *self.rec.cur;
        let start = cur.keys.len();
        cur.keys.push(tag);
        cur.keys.push_str(text);
        cur.key_ends.push((self.i, KeyEnd::Text(cur.keys.len())));
        // claimed at the record's end, from the line asked for now
        self.rec.uniques.prefetch(self.i, &cur.keys[start..]);
    }

    /// The typed value of a present scalar field of type `ty` (a constant
    /// in each caller) in its common case: a bool, a non-unique float, or
    /// a short canonical int, written with no escape and keeping its rules;
    /// a unique int's key recorded as [`Self::scalar`] records it. `None`
    /// for anything else, which [`Self::scalar`] then types (and reports):
    /// no text is decoded and no `Result` is built on this path (round 24
    /// of issue 21).
    #[inline(always)]
    pub(super) fn plain_scalar(&mut self, s: &Scalar, ty: ScalarType) -> Option<Typed<'de>> {
        let raw = self.raw();
        if raw.escaped {
            return None;
        }
        match ty {
            ScalarType::Bool => match raw.raw {
                "true" | "1" => Some(Typed::Atom(Atom::Bool(true))),
                "false" | "0" => Some(Typed::Atom(Atom::Bool(false))),
                _ => None,
            },
            ScalarType::Float if self.rec.step(self.i).unique.is_none() => {
                read_float(Cow::Borrowed(raw.raw), s, true)
                    .ok()
                    .map(Typed::Float)
            }
            ScalarType::Int => {
                let v = check_small_int(raw.raw, s, true)?.ok()?;
                if self.rec.step(self.i).unique.is_some() {
                    // a short canonical int's key is its value (ADR 0053)
                    self.rec.cur.key_ends.push((self.i, KeyEnd::Int(v)));
                }
                Some(Typed::Int(v))
            }
            _ => None,
        }
    }

    /// The typed value of a scalar field (present: the caller handled
    /// absence).
    #[inline(never)]
    pub(super) fn scalar(&mut self, s: &Scalar) -> Result<Typed<'de>> {
        let raw = self.raw();
        if raw.is_empty() {
            return self.rec.fail();
        }
        let text = raw.text(self.rec.plan.sep);
        let unique = self.rec.step(self.i).unique.is_some();
        let typed = match s.ty {
            ScalarType::Str => Typed::Atom(Atom::Str(text)),
            ScalarType::Float if !unique => match check_float(text, s, true) {
                Ok(v) => Typed::Float(v),
                Err(_) => return self.rec.fail(),
            },
            ScalarType::Int => match check_small_int(&text, s, true) {
                Some(Ok(v)) => {
                    if unique {
                        // a short canonical int's key is its value (ADR 0053)
                        self.rec.cur.key_ends.push((self.i, KeyEnd::Int(v)));
                    }
                    return Ok(Typed::Int(v));
                }
                Some(Err(_)) => return self.rec.fail(),
                None => match check_atom(text, s, true) {
                    Ok(a) => Typed::Atom(a),
                    Err(_) => return self.rec.fail(),
                },
            },
            _ => match check_atom(text, s, true) {
                Ok(a) => Typed::Atom(a),
                Err(_) => return self.rec.fail(),
            },
        };
        if unique {
            if let Typed::Atom(a) = &typed {
                self.rec.cur.add_key(self.i, a);
            }
        }
        Ok(typed)
    }

    /// The rules of a list or marked list that need every element: the
    /// grammar (E09), the arity and count key (E07), markers (E08). The
    /// elements wait in the cursor, untyped; a marked list's selection too.
    #[inline(never)]
    pub(super) fn list_rules(&mut self) -> Result<()> {
        let raw = self.raw();
        let StepKind::List {
            arity,
            count,
            marker,
            ..
        } = self.rec.step(self.i).kind
        else {
            return self.rec.fail();
        };
        let cur = &mut *self.rec.cur;
        if syntax::split_list(raw.raw, self.rec.plan.sep, &mut cur.elements).is_err() {
            return self.rec.fail();
        }
        let n = cur.elements.len();
        if !self.rec.arity_holds(n, arity, count) {
            return self.rec.fail();
        }
        let cur = &mut *self.rec.cur;
        let Some(rule) = marker else {
            // a plain list: a marker is an error (E08)
            if cur.elements.iter().any(|e| e.marked) {
                return self.rec.fail();
            }
            return Ok(());
        };
        cur.marked.clear();
        cur.marked.extend(
            cur.elements
                .iter()
                .enumerate()
                .filter(|(_, e)| e.marked)
                .map(|(k, _)| k),
        );
        match check_marker(rule, &cur.marked) {
            Ok(sel) => cur.selection = Some(sel),
            Err(_) => return self.rec.fail(),
        }
        Ok(())
    }

    pub(super) fn ctx(&self) -> Ctx<'c> {
        self.rec.ctx(self.i)
    }

    /// A scalar `scalar` typed, handed to `T` as serde's path hands it (an
    /// enum value as a string nothing else can refuse): the direct
    /// reader's way back to serde for a value its fast case does not take
    /// (ADR 0044).
    #[inline(never)]
    pub(super) fn after_scalar<T: de::Deserialize<'de>>(&self, value: Typed<'de>) -> Result<T> {
        match value {
            Typed::Atom(Atom::Str(text)) => T::deserialize(StrDe(text)),
            value => T::deserialize(TypedDe {
                value,
                ctx: self.ctx(),
                part: Part::Whole,
            }),
        }
    }

    /// The elements of a present list field, its rules checked
    /// ([`Self::list_rules`]), for the direct reader to take one by one.
    #[inline(always)]
    pub(super) fn list_elements(mut self) -> Result<Elements<'r, 'a, 'de, 'c>> {
        self.list_rules()?;
        let StepKind::List { item, .. } = self.rec.step(self.i).kind else {
            return self.rec.fail();
        };
        let ctx = self.ctx();
        Ok(Elements {
            rec: self.rec,
            item,
            ctx,
            next: 0,
        })
    }

    /// A list of text read in one walk (ADR 0046): each element cut,
    /// trimmed and unescaped straight into its `String`, with no element
    /// vector between the line and the output; a list whose first element
    /// is quoted (CSV style) is read by the list grammar, each text taken
    /// as it is read (ADR 0061). A marked list's markers are checked (E08)
    /// and its selection kept for the selection's field, as
    /// [`Self::list_rules`] keeps it. `None` when the list needs the
    /// element path ([`Self::list_elements`]), which reads it from the
    /// start and gives any error: an element type other than `str`, a
    /// quote after an unquoted first element, a marker in a plain list, a
    /// broken marker rule, arity or grammar.
    #[inline(always)]
    pub(super) fn text_list(&mut self) -> Option<Vec<String>> {
        let StepKind::List {
            item,
            arity,
            count,
            marker,
        } = self.rec.step(self.i).kind
        else {
            return None;
        };
        let raw = self.raw().raw;
        if item.ty != ScalarType::Str {
            return None;
        }
        let sep = self.rec.plan.sep;
        let mut out = Vec::with_capacity(self.rec.text_list_capacity(count, raw.len()));
        let marks = &mut self.rec.cur.marked;
        marks.clear();
        let n = if raw.starts_with('"') {
            // a list in quotes (CSV style): the grammar's quoted path, each
            // text taken as it is read, with no vector of elements between
            // (ADR 0061); a marker in a plain list is refused after it
            let n = quoted_texts(raw, sep, &mut out, marks)?;
            if marker.is_none() && !marks.is_empty() {
                return None;
            }
            n
        } else {
            syntax::plain_text_list(raw, sep, |text, escapes, marked| {
                if marked {
                    if marker.is_none() {
                        return false;
                    }
                    marks.push(out.len());
                }
                out.push(match escapes.mapped() {
                    Some(0) => text.to_owned(),
                    // `syntax::unescape` written out: its call layer per
                    // element cost the typed reader 1.5% (round 24)
                    mapped => {
                        let mut decoded = String::with_capacity(text.len());
                        match mapped {
                            // the escapes where the list walk's masks put
                            // them: no search from one backslash to the
                            // next (ADR 0071)
                            Some(bits) => syntax::unescape_mapped(text, sep, bits, &mut decoded),
                            None => syntax::unescape_into(text, sep, &mut decoded),
                        }
                        decoded
                    }
                });
                true
            })?
        };
        if !self.rec.arity_holds(n, arity, count) {
            return None;
        }
        if let Some(rule) = marker {
            let cur = &mut *self.rec.cur;
            cur.selection = Some(check_marker(rule, &cur.marked).ok()?);
        }
        Some(out)
    }

    /// A plain list of numbers or bools read in one walk (ADR 0046): each
    /// element typed by the engine's rules as it is cut and taken by
    /// `take`. `None` when the list needs the element path (see
    /// [`Self::text_list`]); also for an element `take` refuses or the
    /// rules reject.
    #[inline(always)]
    pub(super) fn plain_typed<T>(
        &mut self,
        ty: ScalarType,
        mut take: impl FnMut(Typed<'de>) -> Option<T>,
    ) -> Option<Vec<T>> {
        let StepKind::List {
            item,
            arity,
            count,
            marker: None,
        } = self.rec.step(self.i).kind
        else {
            return None;
        };
        if item.ty != ty {
            return None;
        }
        if ty == ScalarType::Int {
            if let Some(out) = self.canonical_ints(arity, count, &mut take) {
                return Some(out);
            }
        }
        let (n, texts) = syntax::plain_elements(self.raw().raw, self.rec.plan.sep)?;
        if !self.rec.arity_holds(n, arity, count) {
            return None;
        }
        let mut out = Vec::with_capacity(n);
        for text in texts {
            if text.is_empty() {
                return None;
            }
            out.push(take(type_text(Cow::Borrowed(text), item, false)?)?);
        }
        Some(out)
    }

    /// A plain list of ints with a count key read in one byte walk (ADR
    /// 0052, [`number::canonical_int_list`]): each element typed as its
    /// digits end and taken by `take`, the vector sized from the count key
    /// (capped by the text, [`Line::count_hint`]). `None` for a list
    /// without a count key, and for any text the walk does not read, an
    /// element `take` refuses or an arity the count key refuses:
    /// [`Self::plain_typed`]'s walk then reads the list and decides.
    ///
    /// [`number::canonical_int_list`]: crate::number::canonical_int_list
    #[inline(always)]
    fn canonical_ints<T>(
        &mut self,
        arity: &crate::contract::Arity,
        count: Option<u16>,
        take: &mut impl FnMut(Typed<'de>) -> Option<T>,
    ) -> Option<Vec<T>> {
        let raw = self.raw().raw;
        let sep = u8::try_from(self.rec.plan.sep).ok().filter(u8::is_ascii)?;
        let hint = self.rec.count_hint(count, raw.len());
        if hint == 0 {
            return None;
        }
        let mut out = Vec::with_capacity(hint);
        let n = crate::number::canonical_int_list(raw.as_bytes(), sep, |v| {
            take(Typed::Int(v)).map(|t| out.push(t)).is_some()
        })?;
        self.rec.arity_holds(n, arity, count).then_some(out)
    }

    /// The elements of the list just checked, typed one by one as serde
    /// asks; the ones it leaves are typed after it (each must still be
    /// valid), and leaving any is serde's "invalid length".
    fn visit_list<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        self.list_rules()?;
        let StepKind::List { item, .. } = self.rec.step(self.i).kind else {
            return self.rec.fail();
        };
        let ctx = self.ctx();
        let mut access = Elements {
            rec: &mut *self.rec,
            item,
            ctx,
            next: 0,
        };
        let value = visitor.visit_seq(&mut access)?;
        let (read, total) = (access.next, access.rec.cur.elements.len());
        for k in read..total {
            if access.element(k).is_err() {
                return access.rec.fail();
            }
        }
        if read < total {
            return Err(de::Error::invalid_length(
                total,
                &"fewer elements in the list",
            ));
        }
        Ok(value)
    }

    /// A tuple as a map of its present components (as the canonical
    /// object has it).
    #[inline(never)]
    fn visit_tuple<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        let StepKind::Tuple(comps) = self.rec.step(self.i).kind else {
            return self.rec.fail();
        };
        self.tuple_rules(comps)?;
        self.visit_parts_as_map(comps, visitor)
    }

    /// The components `tuple_rules` typed, as the map of the present ones.
    fn visit_parts_as_map<V: Visitor<'de>>(
        self,
        comps: &'c [Component],
        visitor: V,
    ) -> Result<V::Value> {
        let ctx = self.ctx();
        visit_components(
            comps,
            self.rec.cur.parts.drain(..),
            |c, value| TypedDe {
                value,
                ctx,
                part: Part::Component(&c.name),
            },
            visitor,
        )
    }

    /// A tuple handed to a struct of a derived contract whose fields are
    /// the components' names in order, as a sequence (no key is matched by
    /// name), when every
    /// component has a value or the Rust type reads an absent one as `None`
    /// (ADR 0032); otherwise as the map of its present components.
    fn visit_tuple_struct<V: Visitor<'de>>(
        mut self,
        names: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let StepKind::Tuple(comps) = self.rec.step(self.i).kind else {
            return self.rec.fail();
        };
        // a hand-written `Deserialize` may read a struct from a map only:
        // a sequence is for a type serde derived
        let same_names = self.rec.cur.hint.derived
            && names.len() == comps.len()
            && names.iter().zip(comps.iter()).all(|(n, c)| *n == c.name);
        if !same_names {
            return self.visit_tuple(visitor);
        }
        self.tuple_rules(comps)?;
        let absent_is_none = self.rec.cur.hint.absent_is_none;
        if !absent_is_none && self.rec.cur.parts.iter().any(Option::is_none) {
            return self.visit_parts_as_map(comps, visitor);
        }
        let ctx = self.ctx();
        let mut parts = Parts::checked(self.rec.cur.parts.drain(..), comps, ctx);
        let v = visitor.visit_seq(&mut parts)?;
        if parts.left() > 0 {
            return Err(de::Error::invalid_length(
                comps.len(),
                &"fewer components in the tuple",
            ));
        }
        Ok(v)
    }

    /// A value asked for as a type its field is not (a list as a number,
    /// an absent value): the generic path, out of the hot line.
    #[inline(never)]
    fn any_other<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_any(self, visitor)
    }

    /// The field's default when it has no value (`None` without one).
    #[inline(never)]
    fn absent_value<V: Visitor<'de>>(&self, visitor: V) -> Result<V::Value> {
        match self.rec.step(self.i).default {
            Some(v) => ValueDe(v, self.rec.line).deserialize_any(visitor),
            None => visitor.visit_none(),
        }
    }
}

/// The texts of a list of text that starts with a quote, pushed onto
/// `out` as the list grammar reads them (ADR 0061), the marked ones'
/// indices onto `marks`: how many there were, `None` when the grammar
/// refuses the list. Out of line, so that [`FieldCur::text_list`]'s plain
/// path, inlined into each record reader, keeps its shape.
#[inline(never)]
fn quoted_texts(
    raw: &str,
    sep: char,
    out: &mut Vec<String>,
    marks: &mut Vec<usize>,
) -> Option<usize> {
    syntax::quoted_text_list(raw, sep, |text, marked| {
        if marked {
            marks.push(out.len());
        }
        out.push(text.into_owned());
    })
}

/// Forwards a primitive request to the atom's deserializer (which checks
/// integer ranges against the Rust type), anything else to
/// `deserialize_any`.
macro_rules! forward_to_scalar {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
            match self.rec.step(self.i).kind {
                StepKind::Str(_) if !self.rec.absent(self.i) => self.str_value()?.$method(visitor),
                StepKind::Scalar(s) if !self.rec.absent(self.i) => {
                    match self.scalar(s)? {
                        // an enum value: a string nothing else can refuse
                        Typed::Atom(Atom::Str(text)) => StrDe(text).$method(visitor),
                        value => TypedDe { value, ctx: self.ctx(), part: Part::Whole }.$method(visitor),
                    }
                }
                _ => self.any_other(visitor),
            }
        }
    )*};
}

impl<'de> de::Deserializer<'de> for FieldCur<'_, '_, 'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value> {
        if self.rec.absent(self.i) {
            return self.absent_value(visitor);
        }
        match self.rec.step(self.i).kind {
            StepKind::Str(_) => self.str_value()?.deserialize_any(visitor),
            StepKind::Scalar(s) => {
                let value = self.scalar(s)?;
                TypedDe {
                    value,
                    ctx: self.ctx(),
                    part: Part::Whole,
                }
                .deserialize_any(visitor)
            }
            StepKind::List { .. } => self.visit_list(visitor),
            StepKind::Tuple(_) => self.visit_tuple(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.rec.absent(self.i) {
            match self.rec.step(self.i).default {
                None | Some(Value::Null) => return visitor.visit_none(),
                Some(_) => {}
            }
        }
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.rec.step(self.i).kind {
            StepKind::Str(_) if !self.rec.absent(self.i) => {
                self.str_value()?.deserialize_enum(name, variants, visitor)
            }
            StepKind::Scalar(s) if !self.rec.absent(self.i) => match self.scalar(s)? {
                Typed::Atom(Atom::Str(text)) => {
                    StrDe(text).deserialize_enum(name, variants, visitor)
                }
                value => TypedDe {
                    value,
                    ctx: self.ctx(),
                    part: Part::Whole,
                }
                .deserialize_enum(name, variants, visitor),
            },
            _ => self.any_other(visitor),
        }
    }

    forward_to_scalar! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.rec.step(self.i).kind {
            StepKind::Tuple(_) if !self.rec.absent(self.i) => {
                self.visit_tuple_struct(fields, visitor)
            }
            _ => self.any_other(visitor),
        }
    }

    forward_to_deserialize_any! {
        bytes byte_buf unit unit_struct seq tuple
        tuple_struct map identifier ignored_any
    }
}

/// The elements of a checked list, typed as serde asks for them.
pub(super) struct Elements<'r, 'a, 'de, 'c> {
    rec: &'r mut Line<'a, 'de, 'c>,
    pub(super) item: &'c Scalar,
    ctx: Ctx<'c>,
    next: usize,
}

impl<'de> Elements<'_, '_, 'de, '_> {
    /// How many elements the list has.
    pub(super) fn len(&self) -> usize {
        self.rec.cur.elements.len()
    }

    /// Element `k`'s text, taken out of the cursor.
    #[inline(always)]
    pub(super) fn take_text(&mut self, k: usize) -> Cow<'de, str> {
        std::mem::take(&mut self.rec.cur.elements[k].text)
    }

    /// Element `k` handed to `T` as serde's path hands it (the direct
    /// reader's way back to serde, ADR 0044).
    pub(super) fn element_serde<T: de::Deserialize<'de>>(&mut self, k: usize) -> Result<T> {
        self.next = k;
        match self.next_element_seed(std::marker::PhantomData::<T>)? {
            Some(v) => Ok(v),
            None => self.rec.fail(),
        }
    }

    /// Element `k`, typed, handed to `T` as serde's path hands it (an int
    /// `try_from` does not take, a long one: serde's path and its error).
    #[cold]
    pub(super) fn typed_serde<T: de::Deserialize<'de>>(
        &self,
        k: usize,
        value: Typed<'de>,
    ) -> Result<T> {
        T::deserialize(TypedDe {
            value,
            ctx: self.ctx,
            part: Part::Element(k),
        })
    }

    /// Element `k`, typed (its text is taken out of the cursor).
    pub(super) fn element(&mut self, k: usize) -> Result<Typed<'de>> {
        let text = std::mem::take(&mut self.rec.cur.elements[k].text);
        if self.item.ty == ScalarType::Str {
            // a str element is its text: nothing to check
            return Ok(Typed::Atom(Atom::Str(text)));
        }
        if text.is_empty() {
            return self.rec.fail();
        }
        match type_text(text, self.item, false) {
            Some(t) => Ok(t),
            None => self.rec.fail(),
        }
    }
}

impl<'de> SeqAccess<'de> for Elements<'_, '_, 'de, '_> {
    type Error = Error;

    // Inlined into `Vec`'s `visit_seq` loop: a call per element was glue
    // (ADR 0040).
    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        let k = self.next;
        if k >= self.rec.cur.elements.len() {
            return Ok(None);
        }
        self.next += 1;
        if self.item.ty == ScalarType::Str {
            let text = std::mem::take(&mut self.rec.cur.elements[k].text);
            return seed.deserialize(StrDe(text)).map(Some);
        }
        let value = self.element(k)?;
        seed.deserialize(TypedDe {
            value,
            ctx: self.ctx,
            part: Part::Element(k),
        })
        .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.rec.cur.elements.len() - self.next)
    }
}
