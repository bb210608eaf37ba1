//! Lists, tuples and selections: the values made of scalars, and the state
//! one field (or header value) keeps while it is written.

use serde::ser::{self, Serialize};

use crate::check::Violation;
use crate::contract::{Component, MarkerRule, Scalar, ScalarType};
use crate::error::Code;
use crate::syntax::is_space;

use super::leaf::{e06, write_scalar, Fail, Pos};
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
}

impl Cell {
    /// Forgets a value (the selection is kept: it is another key).
    pub(super) fn clear_value(&mut self) {
        self.set = false;
        self.refused = None;
        self.refused_elem = false;
        self.found = None;
        self.count = 0;
        self.ends.clear();
        self.key.clear();
    }

    /// Forgets the value and the selection.
    pub(super) fn clear(&mut self) {
        self.clear_value();
        self.sel = SelIn::Null;
        self.sel_items.clear();
    }

    /// Refuses the value (the first refusal stands).
    pub(super) fn refuse(&mut self, fail: Fail) {
        if self.refused.is_none() {
            self.refused = Some(fail);
        }
    }
}

// ---------------------------------------------------------------------------
// lists
// ---------------------------------------------------------------------------

/// A list's elements, written one after another as they come.
pub(super) struct ListSer<'a> {
    pub(super) out: &'a mut String,
    pub(super) item: &'a Scalar,
    pub(super) sep: char,
    pub(super) cell: &'a mut Cell,
    /// Where the field starts (a marked list records element ends from it).
    pub(super) base: usize,
    pub(super) marked: bool,
    pub(super) unique: bool,
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
        let cell = &mut *self.cell;
        if cell.refused.is_some() {
            // nothing more is written after an element that cannot be; the
            // count still tells a selection's range
            cell.count += 1;
            return Ok(());
        }
        if cell.count > 0 {
            self.out.push(self.sep);
        }
        let i = cell.count;
        let mut result = None;
        v.serialize(Ser(ScalarSink {
            out: &mut *self.out,
            scalar: self.item,
            sep: self.sep,
            pos: Pos::Element,
            ranged: false,
            key: self.unique.then_some(&mut cell.key),
            result: &mut result,
        }))?;
        cell.count += 1;
        match result {
            // the engine reports the first element it refuses
            Some(Ok(w)) if cell.found.is_none() => {
                if w.empty && self.item.ty != ScalarType::Str {
                    // the engine's `typed_list`: an empty element
                    let code = if self.item.ty == ScalarType::Enum {
                        Code::E10
                    } else {
                        Code::E06
                    };
                    cell.found = Some(Found::new((code, format!("element {} is empty", i + 1))));
                } else if let Some((code, m)) = w.found {
                    cell.found = Some(Found::new((code, format!("element {}: {m}", i + 1))));
                }
            }
            Some(Err((code, m))) => {
                cell.refuse((code, format!("element {}: {m}", i + 1)));
                cell.refused_elem = true;
            }
            _ => {}
        }
        if self.unique {
            cell.key.push('\u{0}');
        }
        if self.marked {
            cell.ends.push(self.out.len() - self.base);
        }
        Ok(())
    }
    fn end(self) -> R {
        Ok(())
    }
}

/// One scalar at a position: its result goes to `result`. Null is a value
/// here (a list element cannot be null: it is refused as a wrong type).
pub(super) struct ScalarSink<'a> {
    pub(super) out: &'a mut String,
    pub(super) scalar: &'a Scalar,
    pub(super) sep: char,
    pub(super) pos: Pos,
    pub(super) ranged: bool,
    pub(super) key: Option<&'a mut String>,
    pub(super) result: &'a mut Option<Result<super::leaf::Wrote, Fail>>,
}

impl Sink for ScalarSink<'_> {
    type Seq = Skip;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        *self.result = Some(write_scalar(
            self.out,
            &leaf,
            self.scalar,
            self.sep,
            self.pos,
            self.ranged,
            self.key,
        ));
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

/// The components of the tuple being written (reused): their texts, back
/// to back, and per component its span, refusal, verdict and unique key.
#[derive(Debug, Default)]
pub(super) struct TupleScratch {
    text: String,
    parts: Vec<Part>,
    keys: String,
    unknown: Option<String>,
}

#[derive(Debug, Default, Clone)]
struct Part {
    /// `None`: null or absent.
    span: Option<(usize, usize)>,
    key: (usize, usize),
    empty: bool,
    refused: Option<Fail>,
    found: Option<Violation>,
}

/// A tuple's components, by name, in any order; written in the
/// contract's order once all have come.
pub(super) struct TupleSer<'a> {
    pub(super) out: &'a mut String,
    pub(super) comps: &'a [Component],
    pub(super) sep: char,
    pub(super) cell: &'a mut Cell,
    pub(super) scratch: &'a mut TupleScratch,
    pub(super) unique: bool,
}

impl<'a> TupleSer<'a> {
    pub(super) fn new(
        out: &'a mut String,
        comps: &'a [Component],
        sep: char,
        cell: &'a mut Cell,
        scratch: &'a mut TupleScratch,
        unique: bool,
    ) -> Self {
        scratch.text.clear();
        scratch.keys.clear();
        scratch.unknown = None;
        scratch.parts.clear();
        scratch.parts.resize(comps.len(), Part::default());
        TupleSer {
            out,
            comps,
            sep,
            cell,
            scratch,
            unique,
        }
    }
}

impl Keyed for TupleSer<'_> {
    fn entry<V: Serialize + ?Sized>(&mut self, key: &str, v: &V) -> R {
        let Some(i) = self.comps.iter().position(|c| c.name == key) else {
            if self.scratch.unknown.is_none() {
                self.scratch.unknown = Some(key.to_string());
            }
            return Ok(());
        };
        let sc = &mut *self.scratch;
        let start = sc.text.len();
        let key_start = sc.keys.len();
        let mut result = None;
        v.serialize(Ser(NullableSink(ScalarSink {
            out: &mut sc.text,
            scalar: &self.comps[i].scalar,
            sep: self.sep,
            pos: Pos::Element,
            ranged: true,
            key: self.unique.then_some(&mut sc.keys),
            result: &mut result,
        })))?;
        let part = &mut sc.parts[i];
        *part = Part::default();
        match result {
            None => {}
            Some(Ok(w)) => {
                part.span = Some((start, sc.text.len()));
                part.key = (key_start, sc.keys.len());
                part.empty = w.empty;
                part.found = w.found;
            }
            Some(Err(f)) => {
                part.span = Some((start, start));
                part.refused = Some(f);
            }
        }
        Ok(())
    }

    fn finish(self) -> R {
        let sc = &*self.scratch;
        if let Some(k) = &sc.unknown {
            self.cell
                .refuse((Code::E07, format!("'{k}' is not a component of the tuple")));
            return Ok(());
        }
        // the first component `dumps` refuses, in the contract's order
        for (c, p) in self.comps.iter().zip(&sc.parts) {
            let fail = match (&p.span, &p.refused) {
                (None, _) if c.optional => continue,
                (None, _) => e06(format!("required tuple component '{}' is missing", c.name)),
                (Some(_), Some((code, m))) => (*code, format!("{}: {m}", c.name)),
                (Some(_), None) if p.empty => e06(format!(
                    "tuple component '{}' cannot be an empty string",
                    c.name
                )),
                (Some(_), None) => continue,
            };
            self.cell.refuse(fail);
            return Ok(());
        }
        let out = self.out;
        let start = out.len();
        for (i, p) in sc.parts.iter().enumerate() {
            if i > 0 {
                out.push(self.sep);
            }
            match p.span {
                Some((a, b)) => out.push_str(&sc.text[a..b]),
                // a null component is empty; under a whitespace separator an
                // empty edge component would be trimmed away, so write `""`
                // (which reads back as null too)
                None if is_space(self.sep) => out.push_str("\"\""),
                None => {}
            }
        }
        // a tuple whose only component is null would be an empty field
        // (zero components): `""` reads back as that null component
        if out.len() == start {
            out.push_str("\"\"");
        }
        // the engine's verdict: the first component it refuses
        self.cell.found = self
            .comps
            .iter()
            .zip(&sc.parts)
            .enumerate()
            .find_map(|(i, (_, p))| {
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
            for p in &sc.parts {
                match p.span {
                    Some(_) => key.push_str(&sc.keys[p.key.0..p.key.1]),
                    None => key.push('~'),
                }
                key.push('\u{0}');
            }
        }
        Ok(())
    }
}

/// A scalar that may be null (a tuple component): null writes nothing.
struct NullableSink<'a>(ScalarSink<'a>);

impl Sink for NullableSink<'_> {
    type Seq = Skip;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        match leaf {
            Leaf::Null => Ok(()),
            other => self.0.leaf(other),
        }
    }
    fn seq(self, len: Option<usize>) -> R<Skip> {
        self.0.seq(len)
    }
    fn map(self, len: Option<usize>) -> R<Skip> {
        self.0.map(len)
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
