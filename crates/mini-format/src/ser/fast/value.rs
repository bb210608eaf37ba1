//! The straight-line writer's positions below the record: a field's value,
//! a list and its elements, a marked list's selection, a tuple and its
//! components, and the scalar writer they share (see the parent module).

use super::*;

/// Writes a scalar `leaf` of `s` at `pos`: its canonical text, escaped,
/// after the checks the Rust type does not guarantee; its unique key into
/// `key` when wanted. Bails on anything that needs a refusal, a
/// diagnostic, or the general path's care.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn scalar(
    out: &mut String,
    accepted: &mut Accepted,
    leaf: Leaf<'_>,
    s: &Scalar,
    pos: Pos,
    sep: char,
    ranged: bool,
    key: Option<&mut String>,
) -> F {
    // a number escaped in a list of separator `-`, `.` or `+`
    let plain_numbers = pos == Pos::Field || !matches!(sep, '-' | '.' | '+');
    let bounded = ranged && (s.min.is_some() || s.max.is_some());
    match (s.ty, leaf) {
        (ScalarType::Str | ScalarType::Enum, Leaf::Str(t) | Leaf::Name(t)) => {
            // printable edges: nothing parsing would trim; no CR (a line
            // break is read back as LF: its unique key differs)
            let b = t.as_bytes();
            let printable = matches!((b.first(), b.last()),
                (Some(f), Some(l)) if f.is_ascii_graphic() && l.is_ascii_graphic());
            if !printable {
                return Err(Bail);
            }
            if s.ty == ScalarType::Enum {
                let known = matches!(leaf, Leaf::Name(n) if accepted.name(s, n));
                if !known {
                    if check_atom(Cow::Borrowed(t), s, ranged).is_err() {
                        return Err(Bail);
                    }
                    if let Leaf::Name(n) = leaf {
                        accepted.add_name(s, n);
                    }
                }
            }
            if let Some(k) = key {
                if s.ty != ScalarType::Str || b.contains(&b'\r') {
                    return Err(Bail);
                }
                k.push(key_tag::STR);
                k.push_str(t);
            }
            match pos {
                // the writer is never used under a whitespace separator
                // (`Fast::usable`): a field's edges need no separator
                // escaped
                Pos::Field => {
                    debug_assert!(!is_space(sep));
                    escape_scalar_into(out, t)
                }
                Pos::Element => escape_element_into(out, t, sep),
            }
            Ok(())
        }
        (ScalarType::Int, Leaf::I64(_) | Leaf::U64(_)) if plain_numbers => {
            let at = out.len();
            put_int(out, &leaf);
            if bounded {
                let v = match leaf {
                    Leaf::I64(v) => i128::from(v),
                    Leaf::U64(v) => i128::from(v),
                    _ => return Err(Bail),
                };
                if !accepted.int(s, v) {
                    if !matches!(check_small_int(&out[at..], s, true), Some(Ok(_))) {
                        return Err(Bail);
                    }
                    accepted.add_int(s, v);
                }
            }
            if let Some(k) = key {
                k.push(key_tag::INT);
                k.push_str(&out[at..]);
            }
            Ok(())
        }
        (ScalarType::Float, Leaf::F64(x)) if plain_numbers && key.is_none() && x.is_finite() => {
            let at = out.len();
            put_f64(out, x);
            if bounded && !accepted.float(s, x) {
                if check_float(Cow::Borrowed(&out[at..]), s, true).is_err() {
                    return Err(Bail);
                }
                accepted.add_float(s, x);
            }
            Ok(())
        }
        (ScalarType::Bool, Leaf::Bool(b)) if key.is_none() => {
            out.push_str(if b { "true" } else { "false" });
            Ok(())
        }
        _ => Err(Bail),
    }
}

// ---------------------------------------------------------------------------
// a field's value
// ---------------------------------------------------------------------------

/// What a field's value needs of its step: its shape and rules, whether
/// it may be empty, whether it is a unique key.
#[derive(Clone, Copy)]
pub(super) struct StepFacts<'c> {
    pub(super) kind: StepKind<'c>,
    pub(super) optional: bool,
    pub(super) unique: bool,
}

impl<'c> StepFacts<'c> {
    #[inline(always)]
    pub(super) fn of(step: &Step<'c>) -> Self {
        StepFacts {
            kind: step.kind,
            optional: step.optional,
            unique: step.unique.is_some(),
        }
    }
}

/// The value of field `i` (its step's facts `f`).
pub(super) struct Value<'a, 'c> {
    pub(super) enc: &'a mut Enc<'c>,
    /// What the value's step says of it (not the whole step: the record
    /// writer copies this per field).
    pub(super) f: StepFacts<'c>,
    pub(super) i: usize,
}

impl<'a, 'c> Value<'a, 'c> {
    /// A scalar, or null: no value (an empty field, when the field is
    /// optional).
    #[inline(always)]
    fn leaf(self, leaf: Leaf<'_>) -> F {
        if matches!(leaf, Leaf::Null) {
            return if self.f.optional { Ok(()) } else { Err(Bail) };
        }
        let (StepKind::Str(s) | StepKind::Scalar(s)) = self.f.kind else {
            return Err(Bail);
        };
        let fast = &mut self.enc.fast;
        let key = if self.f.unique {
            Some(&mut fast.keys)
        } else {
            None
        };
        scalar(
            &mut self.enc.out.buf,
            &mut fast.accepted,
            leaf,
            s,
            Pos::Field,
            self.enc.sep,
            true,
            key,
        )
    }
}

impl<'a, 'c> ser::Serializer for Value<'a, 'c> {
    type Ok = ();
    type Error = Bail;
    type SerializeSeq = List<'a, 'c>;
    type SerializeTuple = Impossible<(), Bail>;
    type SerializeTupleStruct = Impossible<(), Bail>;
    type SerializeTupleVariant = Impossible<(), Bail>;
    type SerializeMap = Impossible<(), Bail>;
    type SerializeStruct = Tuple<'a, 'c>;
    type SerializeStructVariant = Impossible<(), Bail>;

    // a number, a bool or a name inlined into the derived `serialize`; a
    // text keeps its call (its escaper inlined there made notes' writer
    // 5% longer: ADR 0040)
    leaf_methods!(texts: [] others: [#[inline(always)]]);

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> F {
        v.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> F {
        v.serialize(self)
    }

    fn serialize_seq(self, _: Option<usize>) -> F<List<'a, 'c>> {
        let StepKind::List {
            item,
            arity,
            marker,
            ..
        } = self.f.kind
        else {
            return Err(Bail);
        };
        if self.f.unique {
            return Err(Bail);
        }
        let inline = self.enc.fast.inline_selection.take();
        if inline.is_some() && marker.is_none() {
            return Err(Bail);
        }
        Ok(List {
            enc: self.enc,
            optional: self.f.optional,
            arity,
            i: self.i,
            item,
            marker,
            inline,
            count: 0,
        })
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> F<Tuple<'a, 'c>> {
        let StepKind::Tuple(comps) = self.f.kind else {
            return Err(Bail);
        };
        if self.f.unique {
            return Err(Bail);
        }
        let start = self.enc.out.buf.len();
        Ok(Tuple {
            enc: self.enc,
            comps,
            start,
            next: 0,
        })
    }

    bail! {
        serialize_bytes(&[u8]) -> ();
        serialize_tuple(usize) -> Impossible<(), Bail>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<(), Bail>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
        serialize_map(Option<usize>) -> Impossible<(), Bail>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<(), Bail>;
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> F {
        Err(Bail)
    }
}

// ---------------------------------------------------------------------------
// lists
// ---------------------------------------------------------------------------

/// A list's elements, written as they come.
pub(super) struct List<'a, 'c> {
    enc: &'a mut Enc<'c>,
    optional: bool,
    arity: &'c Arity,
    i: usize,
    item: &'c Scalar,
    marker: Option<MarkerRule>,
    /// The selection given before the list (the derived writer): the `*`
    /// is written after its element as the list goes.
    inline: Option<Option<u64>>,
    count: usize,
}

impl ser::SerializeSeq for List<'_, '_> {
    type Ok = ();
    type Error = Bail;

    // Inlined into `collect_seq`'s loop, and the element's leaf into it
    // (`scalar_position!`): a call per element was glue (ADR 0040).
    #[inline(always)]
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> F {
        let sep = self.enc.sep;
        if self.count > 0 {
            self.enc.out.buf.push(sep);
        }
        self.count += 1;
        v.serialize(Element {
            out: &mut self.enc.out.buf,
            accepted: &mut self.enc.fast.accepted,
            s: self.item,
            sep,
            ranged: false,
        })?;
        if self.marker.is_some() {
            match self.inline {
                Some(sel) => {
                    if sel == Some(self.count as u64 - 1) {
                        self.enc.out.buf.push('*');
                    }
                }
                None => {
                    let end = self.enc.out.buf.len();
                    self.enc.fast.marks.push((self.i, end));
                }
            }
        }
        Ok(())
    }

    fn end(self) -> F {
        let enc = self.enc;
        // an optional list with no element reads back as null
        if !(self.optional && self.count == 0 || enc.arity_ok[self.i].holds(self.count)) {
            if check_arity(self.count, self.arity, &enc.info).is_err() {
                return Err(Bail);
            }
            enc.arity_ok[self.i].add(self.count);
        }
        match (self.marker, self.inline) {
            (None, _) => {}
            (Some(_), None) => enc.fast.counts.push((self.i, self.count)),
            // the selection given first: in range, as the marker rule
            // allows (what `close` checks of a selection given after)
            (Some(marker), Some(sel)) => {
                let chosen = sel.is_some();
                let in_range = sel.is_none_or(|k| k < self.count as u64);
                if !in_range || !marker.is_single() || !marker.allows(usize::from(chosen)) {
                    return Err(Bail);
                }
            }
        }
        Ok(())
    }
}

/// A marked list's selection: one index, or none (`at_most_one`).
pub(super) struct Index;

impl ser::Serializer for Index {
    type Ok = Option<u64>;
    type Error = Bail;
    type SerializeSeq = Impossible<Option<u64>, Bail>;
    type SerializeTuple = Impossible<Option<u64>, Bail>;
    type SerializeTupleStruct = Impossible<Option<u64>, Bail>;
    type SerializeTupleVariant = Impossible<Option<u64>, Bail>;
    type SerializeMap = Impossible<Option<u64>, Bail>;
    type SerializeStruct = Impossible<Option<u64>, Bail>;
    type SerializeStructVariant = Impossible<Option<u64>, Bail>;

    fn serialize_u8(self, v: u8) -> F<Option<u64>> {
        Ok(Some(v.into()))
    }
    fn serialize_u16(self, v: u16) -> F<Option<u64>> {
        Ok(Some(v.into()))
    }
    fn serialize_u32(self, v: u32) -> F<Option<u64>> {
        Ok(Some(v.into()))
    }
    fn serialize_u64(self, v: u64) -> F<Option<u64>> {
        Ok(Some(v))
    }
    fn serialize_none(self) -> F<Option<u64>> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> F<Option<u64>> {
        v.serialize(self)
    }

    bail! {
        serialize_bool(bool) -> Option<u64>;
        serialize_i8(i8) -> Option<u64>; serialize_i16(i16) -> Option<u64>;
        serialize_i32(i32) -> Option<u64>; serialize_i64(i64) -> Option<u64>;
        serialize_f32(f32) -> Option<u64>; serialize_f64(f64) -> Option<u64>;
        serialize_char(char) -> Option<u64>; serialize_str(&str) -> Option<u64>;
        serialize_bytes(&[u8]) -> Option<u64>; serialize_unit() -> Option<u64>;
        serialize_unit_struct(&'static str) -> Option<u64>;
        serialize_unit_variant(&'static str, u32, &'static str) -> Option<u64>;
        serialize_seq(Option<usize>) -> Impossible<Option<u64>, Bail>;
        serialize_tuple(usize) -> Impossible<Option<u64>, Bail>;
        serialize_tuple_struct(&'static str, usize) -> Impossible<Option<u64>, Bail>;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Impossible<Option<u64>, Bail>;
        serialize_map(Option<usize>) -> Impossible<Option<u64>, Bail>;
        serialize_struct(&'static str, usize) -> Impossible<Option<u64>, Bail>;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Impossible<Option<u64>, Bail>;
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> F<Option<u64>> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> F<Option<u64>> {
        Err(Bail)
    }
}

// ---------------------------------------------------------------------------
// elements and tuple components
// ---------------------------------------------------------------------------

/// A list element or a tuple component: a scalar, escaped as an element.
struct Element<'a> {
    out: &'a mut String,
    accepted: &'a mut Accepted,
    s: &'a Scalar,
    sep: char,
    ranged: bool,
}

impl Element<'_> {
    #[inline(always)]
    fn leaf(self, leaf: Leaf<'_>) -> F {
        scalar(
            self.out,
            self.accepted,
            leaf,
            self.s,
            Pos::Element,
            self.sep,
            self.ranged,
            None,
        )
    }
}

/// The `Serializer` of a position that takes a scalar only (a list
/// element, a tuple component): its leaves go to its `leaf`, anything else
/// bails.
macro_rules! scalar_position {
    ($ty:ty) => {
        impl ser::Serializer for $ty {
            type Ok = ();
            type Error = Bail;
            type SerializeSeq = Impossible<(), Bail>;
            type SerializeTuple = Impossible<(), Bail>;
            type SerializeTupleStruct = Impossible<(), Bail>;
            type SerializeTupleVariant = Impossible<(), Bail>;
            type SerializeMap = Impossible<(), Bail>;
            type SerializeStruct = Impossible<(), Bail>;
            type SerializeStructVariant = Impossible<(), Bail>;

            // inlined into the list's and the tuple's loops (ADR 0040)
            leaf_methods!(#[inline(always)]);

            fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> F {
                v.serialize(self)
            }

            fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> F {
                v.serialize(self)
            }

            bail! {
                serialize_bytes(&[u8]) -> ();
                serialize_seq(Option<usize>) -> Impossible<(), Bail>;
                serialize_tuple(usize) -> Impossible<(), Bail>;
                serialize_tuple_struct(&'static str, usize) -> Impossible<(), Bail>;
                serialize_tuple_variant(&'static str, u32, &'static str, usize)
                    -> Impossible<(), Bail>;
                serialize_map(Option<usize>) -> Impossible<(), Bail>;
                serialize_struct(&'static str, usize) -> Impossible<(), Bail>;
                serialize_struct_variant(&'static str, u32, &'static str, usize)
                    -> Impossible<(), Bail>;
            }

            fn serialize_newtype_variant<T: Serialize + ?Sized>(
                self,
                _: &'static str,
                _: u32,
                _: &'static str,
                _: &T,
            ) -> F {
                Err(Bail)
            }
        }
    };
}

scalar_position!(Element<'_>);

/// A tuple given as a struct of its components, in order.
pub(super) struct Tuple<'a, 'c> {
    enc: &'a mut Enc<'c>,
    comps: &'c [Component],
    /// Where the tuple starts in the output.
    start: usize,
    next: usize,
}

impl ser::SerializeStruct for Tuple<'_, '_> {
    type Ok = ();
    type Error = Bail;

    // Inlined into the derived `serialize` of the tuple (ADR 0040).
    #[inline(always)]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> F {
        let i = self.next;
        self.next += 1;
        let Some(c) = self.comps.get(i) else {
            return Err(Bail);
        };
        if c.name != key {
            return Err(Bail);
        }
        let sep = self.enc.sep;
        let out = &mut self.enc.out.buf;
        if i > 0 {
            out.push(sep);
        }
        v.serialize(ComponentSer {
            out,
            accepted: &mut self.enc.fast.accepted,
            c,
            sep,
        })
    }

    fn end(self) -> F {
        // every component given, and not all of them null
        if self.next != self.comps.len() || self.enc.out.buf.len() == self.start {
            return Err(Bail);
        }
        Ok(())
    }
}

/// One tuple component: a scalar (its bounds apply), or null when it is
/// optional.
struct ComponentSer<'a> {
    out: &'a mut String,
    accepted: &'a mut Accepted,
    c: &'a Component,
    sep: char,
}

impl ComponentSer<'_> {
    /// A scalar (its bounds apply), or null: an empty component, when it
    /// is optional.
    #[inline(always)]
    fn leaf(self, leaf: Leaf<'_>) -> F {
        if matches!(leaf, Leaf::Null) {
            return if self.c.optional { Ok(()) } else { Err(Bail) };
        }
        Element {
            out: self.out,
            accepted: self.accepted,
            s: &self.c.scalar,
            sep: self.sep,
            ranged: true,
        }
        .leaf(leaf)
    }
}

scalar_position!(ComponentSer<'_>);
