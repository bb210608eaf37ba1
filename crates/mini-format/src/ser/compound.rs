//! Lists, tuples and selections: the values made of scalars, and the state
//! one field (or header value) keeps while it is written.

use serde::ser::{self, Serialize};

use crate::check::Violation;
use crate::contract::{Component, MarkerRule, Scalar, ScalarType};
use crate::error::Code;
use crate::syntax::is_space;

use super::leaf::{e06, write_scalar, write_trusted, At, Fail, Memo, Pos, Wrote};
use super::sink::{Abort, Keyed, Keys, Leaf, Or, Ser, Sink, Skip, R};

/// What the engine would report on a written value: the violation and, in
/// a tuple, the component it is in.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub(super) code: Code,
    pub(super) msg: String,
    pub(super) comp: Option<usize>,
}

impl Found {
    pub(super) fn new((code, msg): Violation) -> Self {
        Found {
            code,
            msg,
            comp: None,
        }
    }
}

/// The state of one field of the record being written (or of one header
/// value).
#[derive(Debug, Default)]
pub(super) struct Cell {
    /// A value that is not null was given.
    pub(super) set: bool,
    /// What the serializer refuses to write (the field is left empty).
    pub(super) refused: Option<Fail>,
    /// The refusal came from an element (a marked list's selection refusal
    /// comes first, as `dumps` checked the selection before the elements).
    pub(super) refused_elem: bool,
    /// What the engine would report on the value as written.
    pub(super) found: Option<Found>,
    /// A list: its number of elements.
    pub(super) count: usize,
    /// A marked list: where each element ends, from the field's start.
    pub(super) ends: Vec<usize>,
    /// A `unique` field: the value's key, as the engine builds it.
    pub(super) key: String,
    /// A marked list's selection as given.
    pub(super) sel: SelIn,
    /// Its indices, when it is an array.
    pub(super) sel_items: Vec<SelItem>,
    /// Where the field's text is in the line (absolute offsets).
    pub(super) start: usize,
    pub(super) end: usize,
    /// What the field's scalars (or list elements) accepted before.
    pub(super) memo: Memo,
    /// A tuple: what each component accepted before.
    pub(super) comp_memos: Vec<Memo>,
    /// A tuple given as a struct: the `k`-th field name of the last one
    /// (its address and length) and the component it named.
    pub(super) comp_names: Vec<(usize, usize, usize)>,
}

impl Cell {
    /// Forgets a value (the selection is kept: it is another key).
    #[inline]
    pub(super) fn clear_value(&mut self) {
        self.set = false;
        self.refused = None;
        self.refused_elem = false;
        self.found = None;
        self.count = 0;
        self.ends.clear();
        self.key.clear();
    }

    /// Refuses the value (the first refusal stands).
    pub(super) fn refuse(&mut self, fail: Fail) {
        if self.refused.is_none() {
            self.refused = Some(fail);
        }
    }

    /// The outcome of an element written at index `i`.
    fn element(&mut self, i: usize, item: &Scalar, result: Result<Wrote, Fail>) {
        match result {
            // the engine reports the first element it refuses
            Ok(w) if self.found.is_none() => {
                if w.empty && item.ty != ScalarType::Str {
                    // the engine's `typed_list`: an empty element
                    let code = if item.ty == ScalarType::Enum {
                        Code::E10
                    } else {
                        Code::E06
                    };
                    self.found = Some(Found::new((code, format!("element {} is empty", i + 1))));
                } else if let Some((code, m)) = w.found {
                    self.found = Some(Found::new((code, format!("element {}: {m}", i + 1))));
                }
            }
            Err((code, m)) => {
                self.refuse((code, format!("element {}: {m}", i + 1)));
                self.refused_elem = true;
            }
            Ok(_) => {}
        }
    }
}

// ---------------------------------------------------------------------------
// lists
// ---------------------------------------------------------------------------

/// A list's elements, written one after another as they come.
pub(super) struct ListSer<'a> {
    out: &'a mut String,
    item: &'a Scalar,
    sep: char,
    /// Where the elements are written.
    at: At<'a>,
    cell: &'a mut Cell,
    /// Where the field starts (a marked list records element ends from it).
    base: usize,
    marked: bool,
    unique: bool,
}

impl<'a> ListSer<'a> {
    pub(super) fn new(
        out: &'a mut String,
        item: &'a Scalar,
        sep: char,
        cell: &'a mut Cell,
        marked: bool,
        unique: bool,
    ) -> Self {
        if unique {
            cell.key.clear();
            cell.key.push('[');
        }
        ListSer {
            base: out.len(),
            out,
            item,
            sep,
            at: At {
                s: item,
                sep,
                pos: Pos::Element,
                ranged: false,
            },
            cell,
            marked,
            unique,
        }
    }
}

impl ser::SerializeSeq for ListSer<'_> {
    type Ok = ();
    type Error = Abort;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        let i = self.cell.count;
        self.cell.count += 1;
        if self.cell.refused.is_some() {
            // nothing more is written after an element that cannot be; the
            // count still tells a selection's range
            return Ok(());
        }
        if i > 0 {
            self.out.push(self.sep);
        }
        v.serialize(Ser(Element(self, i)))?;
        if self.unique {
            self.cell.key.push('\u{0}');
        }
        if self.marked {
            self.cell.ends.push(self.out.len() - self.base);
        }
        Ok(())
    }
    fn end(self) -> R {
        Ok(())
    }
}

/// Element `i` of a list (null is no element: a wrong type).
struct Element<'b, 'a>(&'b mut ListSer<'a>, usize);

impl Sink for Element<'_, '_> {
    type Seq = Skip;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        let Element(list, i) = self;
        let at = list.at;
        let cell = &mut *list.cell;
        if !list.unique && write_trusted(list.out, &leaf, &at, &cell.memo) {
            return Ok(());
        }
        let key = list.unique.then_some(&mut cell.key);
        let result = write_scalar(list.out, &leaf, &at, key, &mut cell.memo);
        cell.element(i, list.item, result);
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Skip> {
        self.leaf(Leaf::Other("an array"))?;
        Ok(Skip)
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        self.leaf(Leaf::Other("an object"))?;
        Ok(Skip)
    }
}

// ---------------------------------------------------------------------------
// tuples
// ---------------------------------------------------------------------------

/// The components of the tuple being written (reused).
#[derive(Debug, Default)]
pub(super) struct TupleScratch {
    /// Component texts, once they stop coming in order.
    text: String,
    parts: Vec<Part>,
    /// Component unique keys, back to back.
    keys: String,
    unknown: Option<String>,
}

/// One component as given.
#[derive(Debug, Default, Clone)]
struct Part {
    /// A value that is not null came.
    given: bool,
    /// Its text: from the tuple's start in the output while components come
    /// in order, in the scratch text after.
    span: (usize, usize),
    key: (usize, usize),
    empty: bool,
    refused: Option<Fail>,
    found: Option<Violation>,
}

/// A tuple's components, by name. While they come in the contract's order
/// they are written straight to the output; once one does not, they are
/// kept aside and written in order at the end.
pub(super) struct TupleSer<'a> {
    out: &'a mut String,
    comps: &'a [Component],
    sep: char,
    cell: &'a mut Cell,
    sc: &'a mut TupleScratch,
    unique: bool,
    /// Where the tuple starts in the output.
    start: usize,
    /// Components came in order so far (written in the output).
    direct: bool,
    /// The next component in order.
    next: usize,
    /// How many struct fields came before.
    k: usize,
}

impl<'a> TupleSer<'a> {
    pub(super) fn new(
        out: &'a mut String,
        comps: &'a [Component],
        sep: char,
        cell: &'a mut Cell,
        sc: &'a mut TupleScratch,
        unique: bool,
    ) -> Self {
        sc.keys.clear();
        sc.unknown = None;
        if sc.parts.len() < comps.len() {
            sc.parts.resize(comps.len(), Part::default());
        }
        for p in &mut sc.parts[..comps.len()] {
            p.given = false;
            p.refused = None;
            p.found = None;
        }
        if cell.comp_memos.len() != comps.len() {
            cell.comp_memos = vec![Memo::default(); comps.len()];
        }
        TupleSer {
            start: out.len(),
            out,
            comps,
            sep,
            cell,
            sc,
            unique,
            direct: true,
            next: 0,
            k: 0,
        }
    }

    /// Components stopped coming in order: what was written goes aside.
    fn aside(&mut self) {
        self.direct = false;
        self.sc.text.clear();
        self.sc.text.push_str(&self.out[self.start..]);
        self.out.truncate(self.start);
    }
}

impl TupleSer<'_> {
    /// The component `key` names, looking at the next one in order first.
    fn find(&mut self, key: &str) -> Option<usize> {
        match self.comps.get(self.next) {
            Some(c) if c.name == key => Some(self.next),
            _ => {
                let i = self.comps.iter().position(|c| c.name == key);
                if i.is_none() && self.sc.unknown.is_none() {
                    self.sc.unknown = Some(key.to_string());
                }
                i
            }
        }
    }

    /// Writes component `i`.
    fn put<V: Serialize + ?Sized>(&mut self, i: usize, v: &V) -> R {
        if self.direct && i != self.next {
            self.aside();
        }
        if self.direct {
            if i > 0 {
                self.out.push(self.sep);
            }
            self.next += 1;
        }
        v.serialize(Ser(Comp(self, i)))
    }

    /// The outcome of component `i`: `None` for null.
    fn part(&mut self, i: usize, leaf: Option<&Leaf<'_>>) {
        let direct = self.direct;
        let sc = &mut *self.sc;
        let out: &mut String = if direct { &mut *self.out } else { &mut sc.text };
        let base = if direct { self.start } else { 0 };
        let at = out.len();
        let key_at = sc.keys.len();
        let part = &mut sc.parts[i];
        part.refused = None;
        part.found = None;
        let Some(leaf) = leaf else {
            part.given = false;
            // a null component is empty; under a whitespace separator an
            // empty edge component would be trimmed away, so write `""`
            // (which reads back as null too)
            if direct && is_space(self.sep) {
                out.push_str("\"\"");
            }
            return;
        };
        let pos = At {
            s: &self.comps[i].scalar,
            sep: self.sep,
            pos: Pos::Element,
            ranged: true,
        };
        let memo = &mut self.cell.comp_memos[i];
        if !self.unique && write_trusted(out, leaf, &pos, memo) {
            part.given = true;
            part.span = (at - base, out.len() - base);
            part.empty = false;
            return;
        }
        let key = self.unique.then_some(&mut sc.keys);
        let result = write_scalar(out, leaf, &pos, key, memo);
        let part = &mut sc.parts[i];
        part.given = true;
        match result {
            Ok(w) => {
                part.span = (at - base, out.len() - base);
                part.key = (key_at, sc.keys.len());
                part.empty = w.empty;
                part.found = w.found;
            }
            Err(f) => {
                part.span = (at - base, at - base);
                part.refused = Some(f);
                out.truncate(at);
            }
        }
    }
}

/// Component `i` of a tuple (null: the component is empty).
struct Comp<'b, 'a>(&'b mut TupleSer<'a>, usize);

impl Sink for Comp<'_, '_> {
    type Seq = Skip;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        let Comp(t, i) = self;
        match leaf {
            Leaf::Null => t.part(i, None),
            other => t.part(i, Some(&other)),
        }
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Skip> {
        self.leaf(Leaf::Other("an array"))?;
        Ok(Skip)
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        self.leaf(Leaf::Other("an object"))?;
        Ok(Skip)
    }
}

impl Keyed for TupleSer<'_> {
    fn entry<V: Serialize + ?Sized>(&mut self, key: &str, v: &V) -> R {
        match self.find(key) {
            Some(i) => self.put(i, v),
            None => Ok(()),
        }
    }

    fn field<V: Serialize + ?Sized>(&mut self, key: &'static str, v: &V) -> R {
        let k = self.k;
        self.k += 1;
        let id = (key.as_ptr() as usize, key.len());
        if let Some(&(p, l, i)) = self.cell.comp_names.get(k) {
            if (p, l) == id {
                return self.put(i, v);
            }
        }
        let Some(i) = self.find(key) else {
            return Ok(());
        };
        let names = &mut self.cell.comp_names;
        if k < names.len() {
            names[k] = (id.0, id.1, i);
        } else if k == names.len() {
            names.push((id.0, id.1, i));
        }
        self.put(i, v)
    }

    fn finish(self) -> R {
        if let Some(k) = self.sc.unknown.take() {
            self.cell
                .refuse((Code::E07, format!("'{k}' is not a component of the tuple")));
            return Ok(());
        }
        let n = self.comps.len();
        // the first component `dumps` refuses, in the contract's order
        for (c, p) in self.comps.iter().zip(&self.sc.parts) {
            let fail = match (p.given, &p.refused) {
                (false, _) if c.optional => continue,
                (false, _) => e06(format!("required tuple component '{}' is missing", c.name)),
                (true, Some((code, m))) => (*code, format!("{}: {m}", c.name)),
                (true, None) if p.empty => e06(format!(
                    "tuple component '{}' cannot be an empty string",
                    c.name
                )),
                (true, None) => continue,
            };
            self.cell.refuse(fail);
            return Ok(());
        }
        let space = is_space(self.sep);
        if self.direct {
            // the components not given are null
            for i in self.next..n {
                if i > 0 {
                    self.out.push(self.sep);
                }
                if space {
                    self.out.push_str("\"\"");
                }
            }
        } else {
            for (i, p) in self.sc.parts[..n].iter().enumerate() {
                if i > 0 {
                    self.out.push(self.sep);
                }
                if p.given {
                    self.out.push_str(&self.sc.text[p.span.0..p.span.1]);
                } else if space {
                    self.out.push_str("\"\"");
                }
            }
        }
        // a tuple whose only component is null would be an empty field
        // (zero components): `""` reads back as that null component
        if self.out.len() == self.start {
            self.out.push_str("\"\"");
        }
        // the engine's verdict: the first component it refuses
        self.cell.found = self.sc.parts[..n].iter().enumerate().find_map(|(i, p)| {
            p.found.as_ref().map(|(code, msg)| Found {
                code: *code,
                msg: msg.clone(),
                comp: Some(i),
            })
        });
        if self.unique {
            let key = &mut self.cell.key;
            key.clear();
            key.push('(');
            for p in &self.sc.parts[..n] {
                if p.given {
                    key.push_str(&self.sc.keys[p.key.0..p.key.1]);
                } else {
                    key.push('~');
                }
                key.push('\u{0}');
            }
        }
        Ok(())
    }
}

/// Writes a tuple value given as a tuple or struct variant: `{variant:
/// [..]}` or `{variant: {..}}` in JSON, one key that names a component or
/// not.
pub(super) fn tuple_variant(mut t: TupleSer<'_>, variant: &str, json_type: &'static str) -> R {
    t.entry(variant, &Shape(json_type))?;
    t.finish()
}

/// A value of which only the JSON type matters (an empty array or object).
struct Shape(&'static str);

impl Serialize for Shape {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0 == "an array" {
            ser::SerializeSeq::end(s.serialize_seq(Some(0))?)
        } else {
            ser::SerializeMap::end(s.serialize_map(Some(0))?)
        }
    }
}

/// The map type of a tuple position.
pub(super) type TupleMap<'a> = Or<Keys<TupleSer<'a>>>;

// ---------------------------------------------------------------------------
// selections
// ---------------------------------------------------------------------------

/// One index of a selection, as given.
#[derive(Debug, Clone)]
pub(super) enum SelItem {
    Index(u64),
    /// A number that is no index (negative, fractional): its spelling.
    NotIndex(String),
    /// Not a number: its JSON type.
    Type(&'static str),
}

impl SelItem {
    fn json_type(&self) -> &'static str {
        match self {
            SelItem::Index(_) | SelItem::NotIndex(_) => "a number",
            SelItem::Type(t) => t,
        }
    }
}

/// A marked list's selection, as given: null (or absent), one value, or
/// an array of values (in [`Cell::sel_items`]).
#[derive(Debug, Default)]
pub(super) enum SelIn {
    #[default]
    Null,
    One(SelItem),
    Many,
}

fn sel_item(leaf: &Leaf<'_>) -> SelItem {
    let not = |t: String| SelItem::NotIndex(t);
    match *leaf {
        Leaf::U64(v) => SelItem::Index(v),
        Leaf::I64(v) => u64::try_from(v).map_or_else(|_| not(v.to_string()), SelItem::Index),
        Leaf::U128(v) => u64::try_from(v).map_or_else(|_| not(v.to_string()), SelItem::Index),
        Leaf::I128(v) => u64::try_from(v).map_or_else(|_| not(v.to_string()), SelItem::Index),
        Leaf::Num(t) => t
            .parse()
            .map_or_else(|_| not(t.to_string()), SelItem::Index),
        Leaf::F64(_) | Leaf::F32(_) => not(super::leaf::number_text(leaf)),
        ref other => SelItem::Type(other.json_type()),
    }
}

/// A selection value.
pub(super) struct SelSink<'a> {
    pub(super) sel: &'a mut SelIn,
    pub(super) items: &'a mut Vec<SelItem>,
}

impl<'a> Sink for SelSink<'a> {
    type Seq = SelSeq<'a>;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        *self.sel = match leaf {
            Leaf::Null => SelIn::Null,
            other => SelIn::One(sel_item(&other)),
        };
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<SelSeq<'a>> {
        *self.sel = SelIn::Many;
        self.items.clear();
        Ok(SelSeq(self.items))
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        *self.sel = SelIn::One(SelItem::Type("an object"));
        Ok(Skip)
    }
}

/// The indices of a selection array.
pub(super) struct SelSeq<'a>(&'a mut Vec<SelItem>);

impl ser::SerializeSeq for SelSeq<'_> {
    type Ok = ();
    type Error = Abort;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> R {
        let mut item = SelItem::Type("null");
        v.serialize(Ser(ItemSink(&mut item)))?;
        self.0.push(item);
        Ok(())
    }
    fn end(self) -> R {
        Ok(())
    }
}

/// One index inside a selection array (null is not one).
struct ItemSink<'a>(&'a mut SelItem);

impl Sink for ItemSink<'_> {
    type Seq = Skip;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        *self.0 = sel_item(&leaf);
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Skip> {
        *self.0 = SelItem::Type("an array");
        Ok(Skip)
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        *self.0 = SelItem::Type("an object");
        Ok(Skip)
    }
}

/// The selected indices of a list of `len` elements, ascending, into
/// `marks`, refused as `dumps` refused them (E08): an index that is not
/// one or is out of range, a repeated index, a selection of the wrong
/// shape for the rule, a count the marker rule does not allow.
pub(super) fn select(
    rule: MarkerRule,
    sel: &SelIn,
    items: &[SelItem],
    len: usize,
    marks: &mut Vec<usize>,
) -> Result<(), Fail> {
    let index = |x: &SelItem| -> Result<usize, Fail> {
        match x {
            SelItem::Index(i) => match usize::try_from(*i) {
                Ok(k) if k < len => Ok(k),
                _ => Err((
                    Code::E08,
                    format!("selected index {i} out of range (list has {len} elements)"),
                )),
            },
            SelItem::NotIndex(t) => Err((Code::E08, format!("selection {t} is not an index"))),
            SelItem::Type(t) => Err((Code::E08, format!("selection must be an index, got {t}"))),
        }
    };
    marks.clear();
    match (rule.is_single(), sel) {
        (_, SelIn::Null) => {}
        (true, SelIn::One(x)) => marks.push(index(x)?),
        (true, SelIn::Many) => {
            return Err((
                Code::E08,
                "selection must be an index, got an array".to_string(),
            ))
        }
        (false, SelIn::Many) => {
            for x in items {
                marks.push(index(x)?);
            }
            marks.sort_unstable();
            if marks.windows(2).any(|w| w[0] == w[1]) {
                return Err((Code::E08, "the selection repeats an index".to_string()));
            }
        }
        (false, SelIn::One(x)) => {
            return Err((
                Code::E08,
                format!("selection must be a list of indices, got {}", x.json_type()),
            ))
        }
    }
    let n = marks.len();
    if !rule.allows(n) {
        return Err((
            Code::E08,
            format!(
                "marker rule {} is not met by {n} selected element(s)",
                rule.name()
            ),
        ));
    }
    Ok(())
}
