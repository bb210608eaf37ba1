//! The generated contracts and valid objects of `canonical_roundtrip`.

use crate::*;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{json, Map, Number, Value};

use mini::__private::number::Dec;
use mini::contract::Contract;
use mini::value::equivalent;

// ---------------------------------------------------------------------------
// canonical_roundtrip
// ---------------------------------------------------------------------------

/// A scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum ScalarKind {
    /// `str`
    Str,
    /// `int`
    Int,
    /// `float`
    Float,
    /// `bool`
    Bool,
    /// `enum`
    Enum,
    /// `date`
    Date,
    /// `decimal`
    Decimal,
}

impl ScalarKind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ScalarKind::Str => "str",
            ScalarKind::Int => "int",
            ScalarKind::Float => "float",
            ScalarKind::Bool => "bool",
            ScalarKind::Enum => "enum",
            ScalarKind::Date => "date",
            ScalarKind::Decimal => "decimal",
        }
    }

    pub(crate) fn ranged(self) -> bool {
        matches!(
            self,
            ScalarKind::Int | ScalarKind::Float | ScalarKind::Date | ScalarKind::Decimal
        )
    }
}

impl Encode for ScalarKind {
    fn encode(&self, w: &mut SeedWriter) {
        w.variant(*self as u32, 7);
    }
}

/// A scalar of a generated contract: type, optional bounds, enum values.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ScalarSpec {
    /// The type.
    pub kind: ScalarKind,
    /// Lower bound seed (ranged types; a year for dates).
    pub min: Option<i16>,
    /// Upper bound seed.
    pub max: Option<i16>,
    /// Enumeration values (outer whitespace and CR removed; `A` if none).
    pub values: Seq<Text>,
}

impl Encode for ScalarSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.kind.encode(w);
        self.min.encode(w);
        self.max.encode(w);
        self.values.encode(w);
    }
}

/// A list or marked list of a generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ListSpec {
    /// The element type (no bounds: `min`/`max` of a list are its arity).
    pub item: ScalarSpec,
    /// Minimum arity seed (`% 5`).
    pub min: Option<u8>,
    /// Maximum arity seed (`% 7`).
    pub max: Option<u8>,
    /// Whether the length is the header count key `k` (then no min/max).
    pub count_key: bool,
}

impl Encode for ListSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.item.encode(w);
        self.min.encode(w);
        self.max.encode(w);
        self.count_key.encode(w);
    }
}

/// A tuple component of a generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ComponentSpec {
    /// Its scalar.
    pub scalar: ScalarSpec,
    /// Whether it may be null.
    pub optional: bool,
}

impl Encode for ComponentSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.scalar.encode(w);
        self.optional.encode(w);
    }
}

/// The shape of a generated field or header key.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub enum ShapeSpec {
    /// A scalar.
    Scalar(ScalarSpec),
    /// `list<T>`.
    List(ListSpec),
    /// `mlist<T>` with a rule (a header key gets a plain list instead).
    MList(ListSpec, Rule),
    /// `tuple(…)` (at least one component).
    Tuple(Seq<ComponentSpec>),
}

impl Encode for ShapeSpec {
    fn encode(&self, w: &mut SeedWriter) {
        match self {
            ShapeSpec::Scalar(s) => {
                w.variant(0, 4);
                s.encode(w);
            }
            ShapeSpec::List(l) => {
                w.variant(1, 4);
                l.encode(w);
            }
            ShapeSpec::MList(l, r) => {
                w.variant(2, 4);
                l.encode(w);
                r.encode(w);
            }
            ShapeSpec::Tuple(c) => {
                w.variant(3, 4);
                c.encode(w);
            }
        }
    }
}

/// A field (or header key) of a generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct FieldSpec {
    /// Its shape.
    pub shape: ShapeSpec,
    /// `optional` (a header key: not required).
    pub optional: bool,
    /// `unique` (fields only).
    pub unique: bool,
    /// Whether it has a `default` (scalars of non-unique fields, header
    /// keys that are not required).
    pub default: bool,
    /// Picks the spelling of its name.
    pub name: u8,
}

impl Encode for FieldSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.shape.encode(w);
        self.optional.encode(w);
        self.unique.encode(w);
        self.default.encode(w);
        self.name.encode(w);
    }
}

/// A generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ContractSpec {
    /// The list separator.
    pub separator: Separator,
    /// `version` seed (1 or 2).
    pub version: u8,
    /// Picks `records_key`.
    pub records_key: u8,
    /// Typed header keys (at most 6).
    pub header: Seq<FieldSpec>,
    /// Core fields (at most 8; a `str` field if none).
    pub core: Seq<FieldSpec>,
    /// Extensions (at most 4; always optional).
    pub extensions: Seq<FieldSpec>,
}

impl Encode for ContractSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.separator.encode(w);
        self.version.encode(w);
        self.records_key.encode(w);
        self.header.encode(w);
        self.core.encode(w);
        self.extensions.encode(w);
    }
}

/// The rest of the fuzzer's data, drawn from while the values are made.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entropy(pub Vec<u8>);

impl<'a> Arbitrary<'a> for Entropy {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Entropy(u.bytes(u.len())?.to_vec()))
    }

    fn arbitrary_take_rest(u: Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Entropy(u.take_rest().to_vec()))
    }
}

impl Encode for Entropy {
    fn encode(&self, w: &mut SeedWriter) {
        w.bytes(&self.0);
    }
}

/// The input of [`canonical_roundtrip`]: a contract and the data its
/// values are drawn from.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct CanonicalInput {
    /// The contract.
    pub contract: ContractSpec,
    /// Where the header and record values come from.
    pub values: Entropy,
}

impl Encode for CanonicalInput {
    fn encode(&self, w: &mut SeedWriter) {
        self.contract.encode(w);
        self.values.encode(w);
    }
}

impl ContractSpec {
    /// A spec shaped like `c` (types, rules, flags, separator; bounds and
    /// enum values are approximated): seeds made from upstream contracts.
    pub fn like(c: &Contract) -> ContractSpec {
        use mini::contract::{Bound, Kind, MarkerRule, Scalar, ScalarType};
        fn kind(t: ScalarType) -> ScalarKind {
            match t {
                ScalarType::Str => ScalarKind::Str,
                ScalarType::Int => ScalarKind::Int,
                ScalarType::Float => ScalarKind::Float,
                ScalarType::Bool => ScalarKind::Bool,
                ScalarType::Enum => ScalarKind::Enum,
                ScalarType::Date => ScalarKind::Date,
                ScalarType::Decimal => ScalarKind::Decimal,
            }
        }
        fn bound(b: Option<&Bound>) -> Option<i16> {
            match b? {
                Bound::Number(d) => d.format(false).parse::<f64>().ok().map(|f| f as i16),
                Bound::Date(s) => s.get(..4).and_then(|y| y.parse().ok()),
            }
        }
        fn scalar(s: &Scalar) -> ScalarSpec {
            ScalarSpec {
                kind: kind(s.ty),
                min: bound(s.min.as_ref()),
                max: bound(s.max.as_ref()),
                values: Seq(s.values.iter().take(6).map(|v| Text::of(v)).collect()),
            }
        }
        fn shape(k: &Kind) -> ShapeSpec {
            let list = |item: &Scalar, arity: &mini::contract::Arity| ListSpec {
                item: scalar(item),
                min: arity.min.map(|m| m.min(4) as u8),
                max: arity.max.map(|m| m.min(6) as u8),
                count_key: arity.count_key.is_some(),
            };
            match k {
                Kind::Scalar(s) => ShapeSpec::Scalar(scalar(s)),
                Kind::List { item, arity } => ShapeSpec::List(list(item, arity)),
                Kind::MList {
                    item,
                    arity,
                    marker,
                    ..
                } => ShapeSpec::MList(
                    list(item, arity),
                    match marker {
                        MarkerRule::ExactlyOne => Rule::ExactlyOne,
                        MarkerRule::AtLeastOne => Rule::AtLeastOne,
                        MarkerRule::AtMostOne => Rule::AtMostOne,
                        MarkerRule::Any => Rule::Any,
                    },
                ),
                Kind::Tuple(comps) => ShapeSpec::Tuple(Seq(comps
                    .iter()
                    .map(|c| ComponentSpec {
                        scalar: scalar(&c.scalar),
                        optional: c.optional,
                    })
                    .collect())),
            }
        }
        let field = |f: &mini::contract::Field, i: usize| FieldSpec {
            shape: shape(&f.kind),
            optional: f.optional,
            unique: f.unique,
            default: f.default.is_some(),
            name: i as u8,
        };
        ContractSpec {
            separator: Separator::of_char(c.separator()).unwrap_or(Separator::Comma),
            version: c.version() as u8,
            records_key: 0,
            header: Seq(c
                .header_keys()
                .iter()
                .filter(|h| h.name != "n" && h.name != "v")
                .take(6)
                .enumerate()
                .map(|(i, h)| FieldSpec {
                    shape: shape(&h.kind),
                    optional: !h.required,
                    unique: false,
                    default: h.default.is_some(),
                    name: i as u8,
                })
                .collect()),
            core: Seq(c
                .core()
                .iter()
                .take(8)
                .enumerate()
                .map(|(i, f)| field(f, i))
                .collect()),
            extensions: Seq(c
                .extensions()
                .iter()
                .take(4)
                .enumerate()
                .map(|(i, f)| field(f, i))
                .collect()),
        }
    }
}

/// A resolved scalar of a built contract.
#[derive(Debug, Clone)]
pub(crate) struct Sc {
    pub(crate) kind: ScalarKind,
    pub(crate) min: Option<(Dec, String)>,
    pub(crate) max: Option<(Dec, String)>,
    pub(crate) values: Vec<String>,
}

#[derive(Debug, Clone)]
pub(crate) enum Shape {
    Scalar(Sc),
    List {
        item: Sc,
        min: usize,
        max: Option<usize>,
        count: bool,
    },
    MList {
        item: Sc,
        min: usize,
        max: Option<usize>,
        count: bool,
        rule: Rule,
    },
    Tuple(Vec<(String, Sc, bool)>),
}

#[derive(Debug, Clone)]
pub(crate) struct Fld {
    pub(crate) name: String,
    pub(crate) shape: Shape,
    pub(crate) optional: bool,
    pub(crate) unique: bool,
    pub(crate) default: Option<(Value, Value)>,
    pub(crate) items_key: String,
    pub(crate) selected_key: String,
}

/// `(key, value)` entries of a record object.
type Entries = Vec<(String, Value)>;

/// A header key of a built contract: name, shape, required, default
/// `(object, expected)`.
type HeaderEntry = (String, Shape, bool, Option<(Value, Value)>);

/// Draws values from the entropy bytes (zeros once they run out, which
/// still makes valid values).
pub(crate) struct Gen<'a> {
    pub(crate) u: Unstructured<'a>,
}

pub(crate) const FIELD_NAMES: [&str; 6] = ["f", "field ", "fé", "f|", "f*", "F_"];
pub(crate) const RECORDS_KEYS: [&str; 4] = ["records", "items", "rows", "data"];

impl Gen<'_> {
    pub(crate) fn byte(&mut self) -> u8 {
        u8::arbitrary(&mut self.u).unwrap_or(0)
    }

    pub(crate) fn word(&mut self) -> u16 {
        u16::arbitrary(&mut self.u).unwrap_or(0)
    }

    pub(crate) fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.byte()) % n
        }
    }

    pub(crate) fn text(&mut self) -> String {
        Text::arbitrary(&mut self.u).unwrap_or_default().string()
    }

    pub(crate) fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.byte() % 10))
            .collect()
    }

    pub(crate) fn scalar_spec(&mut self, s: &ScalarSpec, ranged: bool) -> (Value, Sc) {
        let mut j = Map::new();
        j.insert("type".into(), json!(s.kind.name()));
        let mut sc = Sc {
            kind: s.kind,
            min: None,
            max: None,
            values: Vec::new(),
        };
        if s.kind == ScalarKind::Enum {
            let mut values: Vec<String> = s
                .values
                .0
                .iter()
                .take(6)
                .map(|t| survivor(&t.string().replace('\r', "")))
                .filter(|v| !v.is_empty())
                .collect();
            if values.is_empty() {
                values.push("A".to_string());
            }
            j.insert("values".into(), json!(values));
            sc.values = values;
        }
        if ranged && s.kind.ranged() {
            let mut bounds = Vec::new();
            for b in [s.min, s.max] {
                let Some(b) = b else {
                    bounds.push(None);
                    continue;
                };
                let (jv, text) = match s.kind {
                    ScalarKind::Int => (json!(b), b.to_string()),
                    ScalarKind::Float => {
                        let f = f64::from(b) / 8.0;
                        let n = Number::from_f64(f).unwrap_or_else(|| Number::from(0));
                        (Value::Number(n.clone()), n.to_string())
                    }
                    ScalarKind::Decimal => {
                        let t = format!(
                            "{}{}.{:02}",
                            if b < 0 { "-" } else { "" },
                            b.unsigned_abs() / 100,
                            b.unsigned_abs() % 100
                        );
                        (json!(t), t)
                    }
                    _ => {
                        let y = 1 + u32::from(b.unsigned_abs()) % 9999;
                        let t = format!("{y:04}-{:02}-01", 1 + b.unsigned_abs() % 12);
                        (json!(t), t)
                    }
                };
                let d = if s.kind == ScalarKind::Date {
                    Dec::parse("0")
                } else {
                    Dec::parse(&text)
                };
                let Some(d) = d else {
                    fail(format!("bound {text} is not a number"))
                };
                bounds.push(Some((jv, d, text)));
            }
            let mut hi = bounds.pop().flatten();
            let mut lo = bounds.pop().flatten();
            if let (Some(a), Some(b)) = (&lo, &hi) {
                let reversed = if s.kind == ScalarKind::Date {
                    a.2 > b.2
                } else {
                    a.1 > b.1
                };
                if reversed {
                    std::mem::swap(&mut lo, &mut hi);
                }
            }
            if let Some((jv, d, text)) = lo {
                j.insert("min".into(), jv);
                sc.min = Some((d, text));
            }
            if let Some((jv, d, text)) = hi {
                j.insert("max".into(), jv);
                sc.max = Some((d, text));
            }
        }
        (Value::Object(j), sc)
    }

    pub(crate) fn list_spec(
        &mut self,
        l: &ListSpec,
        rule: Option<Rule>,
    ) -> (Map<String, Value>, Sc, usize, Option<usize>) {
        let (item_json, item) = self.scalar_spec(&l.item, false);
        let mut j = Map::new();
        j.insert(
            "type".into(),
            json!(if rule.is_some() { "mlist" } else { "list" }),
        );
        j.insert("item".into(), json!(item.kind.name()));
        if let Some(v) = item_json.get("values") {
            j.insert("item_values".into(), v.clone());
        }
        let (mut min, mut max) = (
            l.min.map(|m| usize::from(m % 5)),
            l.max.map(|m| usize::from(m % 7)),
        );
        if let (Some(a), Some(b)) = (min, max) {
            if a > b {
                (min, max) = (Some(b), Some(a));
            }
        }
        if rule.is_some_and(Rule::needs_one) && max == Some(0) {
            max = Some(1);
        }
        if l.count_key {
            j.insert("count_key".into(), json!("k"));
            (min, max) = (None, None);
        }
        if let Some(m) = min {
            j.insert("min".into(), json!(m));
        }
        if let Some(m) = max {
            j.insert("max".into(), json!(m));
        }
        if let Some(r) = rule {
            j.insert("marker".into(), json!(r.name()));
        }
        (j, item, min.unwrap_or(0), max)
    }

    /// `(contract JSON, resolved shape)`; header keys get no marked lists.
    pub(crate) fn shape(&mut self, s: &ShapeSpec, header: bool) -> (Map<String, Value>, Shape) {
        match s {
            ShapeSpec::Scalar(sc) => {
                let (j, sc) = self.scalar_spec(sc, true);
                let Value::Object(j) = j else { unreachable!() };
                (j, Shape::Scalar(sc))
            }
            ShapeSpec::List(l) => {
                let (j, item, min, max) = self.list_spec(l, None);
                let count = l.count_key && !header;
                let mut j = j;
                if header {
                    j.remove("count_key");
                }
                (
                    j,
                    Shape::List {
                        item,
                        min,
                        max,
                        count,
                    },
                )
            }
            ShapeSpec::MList(l, _) if header => self.shape(&ShapeSpec::List(l.clone()), true),
            ShapeSpec::MList(l, rule) => {
                let (j, item, min, max) = self.list_spec(l, Some(*rule));
                (
                    j,
                    Shape::MList {
                        item,
                        min,
                        max,
                        count: l.count_key,
                        rule: *rule,
                    },
                )
            }
            ShapeSpec::Tuple(comps) => {
                let mut items = Vec::new();
                let mut resolved = Vec::new();
                for (i, c) in comps.0.iter().take(5).enumerate() {
                    let (j, sc) = self.scalar_spec(&c.scalar, true);
                    let Value::Object(mut j) = j else {
                        unreachable!()
                    };
                    let name = format!("c{i}");
                    j.insert("name".into(), json!(name));
                    if c.optional {
                        j.insert("optional".into(), json!(true));
                    }
                    items.push(Value::Object(j));
                    resolved.push((name, sc, c.optional));
                }
                if items.is_empty() {
                    items.push(json!({"name": "c0", "type": "str"}));
                    resolved.push((
                        "c0".to_string(),
                        Sc {
                            kind: ScalarKind::Str,
                            min: None,
                            max: None,
                            values: Vec::new(),
                        },
                        false,
                    ));
                }
                let mut j = Map::new();
                j.insert("type".into(), json!("tuple"));
                j.insert("items".into(), Value::Array(items));
                (j, Shape::Tuple(resolved))
            }
        }
    }

    /// A valid scalar: `(object value, expected parsed value)`. `empty_ok`:
    /// a `str` may be `""` (list elements, header values).
    pub(crate) fn scalar(&mut self, sc: &Sc, empty_ok: bool) -> (Value, Value) {
        let clamp = |t: String| -> String {
            let Some(d) = Dec::parse(&t) else { return t };
            if let Some((m, text)) = &sc.min {
                if d < *m {
                    return text.clone();
                }
            }
            if let Some((m, text)) = &sc.max {
                if d > *m {
                    return text.clone();
                }
            }
            t
        };
        match sc.kind {
            ScalarKind::Str => {
                let mut s = survivor(&self.text());
                if s.is_empty() && !empty_ok {
                    s = "x".to_string();
                }
                (json!(s), json!(breaks_normalized(&s)))
            }
            ScalarKind::Enum => {
                let v = sc.values[self.below(sc.values.len())].clone();
                (json!(v), json!(v))
            }
            ScalarKind::Bool => {
                let b = self.flag();
                (json!(b), json!(b))
            }
            ScalarKind::Int => {
                let raw = match self.byte() % 4 {
                    0 => (self.byte() as i8).to_string(),
                    1 => (i32::from(self.word() as i16) * 1000 + i32::from(self.word() as i16))
                        .to_string(),
                    2 => {
                        let neg = if self.flag() { "-" } else { "" };
                        // 18 digits always fit i64: beyond that only a build
                        // with `arbitrary_precision` holds the int (ADR 0019)
                        let most = if mini::ARBITRARY_PRECISION { 40 } else { 18 };
                        let n = 1 + self.below(most);
                        format!("{neg}{}", self.digits(n))
                    }
                    _ => "0".to_string(),
                };
                let t = clamp(canonical_int(&raw));
                let n = number(&t);
                (Value::Number(n.clone()), Value::Number(n))
            }
            ScalarKind::Float => {
                let raw = if self.flag() {
                    let bits = u64::from(self.word()) << 48
                        | u64::from(self.word()) << 16
                        | u64::from(self.word());
                    let f = f64::from_bits(bits);
                    if f.is_finite() {
                        Number::from_f64(f).map_or_else(|| "0".to_string(), |n| n.to_string())
                    } else {
                        "0.5".to_string()
                    }
                } else {
                    let neg = if self.flag() { "-" } else { "" };
                    let n = 1 + self.below(20);
                    let int = canonical_int(&self.digits(n));
                    let frac = if self.flag() {
                        let k = 1 + self.below(20);
                        format!(".{}", self.digits(k))
                    } else {
                        String::new()
                    };
                    let exp = if self.flag() {
                        format!("e{}", i32::from(self.byte() % 61) - 30)
                    } else {
                        String::new()
                    };
                    format!("{neg}{int}{frac}{exp}")
                };
                let t = clamp(raw);
                let n = float_number(&t);
                (Value::Number(n.clone()), Value::Number(n))
            }
            ScalarKind::Decimal => {
                let neg = if self.flag() { "-" } else { "" };
                let n = 1 + self.below(24);
                let int = self.digits(n);
                let frac = if self.flag() {
                    let k = 1 + self.below(12);
                    format!(".{}", self.digits(k))
                } else {
                    String::new()
                };
                let t = clamp(format!("{neg}{int}{frac}"));
                let canonical = canonical_decimal(&t);
                if !t.contains('.') && canonical.len() < 16 && self.flag() {
                    (Value::Number(number(&canonical)), json!(canonical))
                } else {
                    (json!(t), json!(canonical))
                }
            }
            ScalarKind::Date => {
                let y = 1 + u32::from(self.word()) % 9999;
                let m = 1 + u32::from(self.byte()) % 12;
                let dim = match m {
                    2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
                    2 => 28,
                    4 | 6 | 9 | 11 => 30,
                    _ => 31,
                };
                let d = 1 + u32::from(self.byte()) % dim;
                let mut t = format!("{y:04}-{m:02}-{d:02}");
                if let Some((_, lo)) = &sc.min {
                    if t < *lo {
                        t = lo.clone();
                    }
                }
                if let Some((_, hi)) = &sc.max {
                    if t > *hi {
                        t = hi.clone();
                    }
                }
                (json!(t), json!(t))
            }
        }
    }

    pub(crate) fn length(&mut self, min: usize, max: Option<usize>, count: Option<usize>) -> usize {
        if let Some(k) = count {
            return k;
        }
        let hi = max.unwrap_or(min + 4).min(min + 6);
        min + self.below(hi.saturating_sub(min) + 1)
    }

    /// A valid value of a field: `(object entries, expected entries)`.
    pub(crate) fn field(&mut self, f: &Fld, k: usize) -> (Entries, Entries) {
        let absent = f.optional && self.byte() % 4 == 0;
        let default = f.default.as_ref().map_or(Value::Null, |d| d.1.clone());
        match &f.shape {
            Shape::Scalar(sc) => {
                if absent {
                    return (
                        vec![(f.name.clone(), Value::Null)],
                        vec![(f.name.clone(), default)],
                    );
                }
                let (o, e) = self.scalar(sc, false);
                (vec![(f.name.clone(), o)], vec![(f.name.clone(), e)])
            }
            Shape::List {
                item,
                min,
                max,
                count,
            } => {
                if absent {
                    return (vec![], vec![(f.name.clone(), default)]);
                }
                let n = self.length(*min, *max, count.then_some(k));
                let (o, e): (Vec<Value>, Vec<Value>) =
                    (0..n).map(|_| self.scalar(item, true)).unzip();
                let e = if e.is_empty() && f.optional {
                    default
                } else {
                    Value::Array(e)
                };
                (
                    vec![(f.name.clone(), Value::Array(o))],
                    vec![(f.name.clone(), e)],
                )
            }
            Shape::MList {
                item,
                min,
                max,
                count,
                rule,
            } => {
                let (ik, sk) = (f.items_key.clone(), f.selected_key.clone());
                if absent {
                    return (vec![], vec![(ik, default), (sk, Value::Null)]);
                }
                let mut n = self.length(*min, *max, count.then_some(k));
                if rule.needs_one() && n == 0 {
                    n = 1;
                }
                let (o, e): (Vec<Value>, Vec<Value>) =
                    (0..n).map(|_| self.scalar(item, true)).unzip();
                let sel = match rule {
                    Rule::ExactlyOne => json!(self.below(n)),
                    Rule::AtMostOne if n > 0 && self.flag() => json!(self.below(n)),
                    Rule::AtMostOne => Value::Null,
                    Rule::AtLeastOne | Rule::Any => {
                        let mut v: Vec<usize> = (0..n).filter(|_| self.flag()).collect();
                        if v.is_empty() && *rule == Rule::AtLeastOne {
                            v.push(self.below(n));
                        }
                        json!(v)
                    }
                };
                if n == 0 && f.optional {
                    return (
                        vec![(ik.clone(), Value::Array(o)), (sk.clone(), sel)],
                        vec![(ik, default), (sk, Value::Null)],
                    );
                }
                (
                    vec![(ik.clone(), Value::Array(o)), (sk.clone(), sel.clone())],
                    vec![(ik, Value::Array(e)), (sk, sel)],
                )
            }
            Shape::Tuple(comps) => {
                if absent {
                    return (
                        vec![(f.name.clone(), Value::Null)],
                        vec![(f.name.clone(), default)],
                    );
                }
                let mut o = Map::new();
                let mut e = Map::new();
                for (name, sc, optional) in comps {
                    if *optional && self.byte() % 3 == 0 {
                        if self.flag() {
                            o.insert(name.clone(), Value::Null);
                        }
                        e.insert(name.clone(), Value::Null);
                    } else {
                        let (a, b) = self.scalar(sc, false);
                        o.insert(name.clone(), a);
                        e.insert(name.clone(), b);
                    }
                }
                (
                    vec![(f.name.clone(), Value::Object(o))],
                    vec![(f.name.clone(), Value::Object(e))],
                )
            }
        }
    }
}

pub(crate) fn number(text: &str) -> Number {
    match text.parse::<Number>() {
        Ok(n) => n,
        Err(e) => fail(format!("generated number {text:?} is not JSON: {e}")),
    }
}

/// A float field's JSON number: the digits as written with
/// `arbitrary_precision`; otherwise the correctly rounded `f64` (an
/// integral text must not become a JSON int: the float is what reads back).
pub(crate) fn float_number(text: &str) -> Number {
    if mini::ARBITRARY_PRECISION {
        return number(text);
    }
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) => n,
        None => fail(format!("generated float {text:?} is not a finite f64")),
    }
}

/// Canonical int text, written independently of `check::number`.
pub(crate) fn canonical_int(t: &str) -> String {
    let (neg, digits) = t.strip_prefix('-').map_or((false, t), |d| (true, d));
    let digits = digits.trim_start_matches('0');
    match (digits.is_empty(), neg) {
        (true, _) => "0".to_string(),
        (false, true) => format!("-{digits}"),
        (false, false) => digits.to_string(),
    }
}

/// Canonical decimal text (SPEC 1.1 §6), written independently of
/// `check::number`.
pub(crate) fn canonical_decimal(t: &str) -> String {
    let (neg, body) = t.strip_prefix('-').map_or((false, t), |b| (true, b));
    let (int, frac) = body
        .split_once('.')
        .map_or((body, None), |(i, f)| (i, Some(f)));
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let zero = int == "0" && frac.is_none_or(|f| f.bytes().all(|b| b == b'0'));
    let mut out = String::new();
    if neg && !zero {
        out.push('-');
    }
    out.push_str(int);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

pub(crate) struct Built {
    pub(crate) contract: Contract,
    pub(crate) records_key: String,
    pub(crate) header: Vec<HeaderEntry>,
    pub(crate) fields: Vec<Fld>,
    pub(crate) core: usize,
    pub(crate) defaults: bool,
    pub(crate) k_min: usize,
}

pub(crate) fn build(spec: &ContractSpec, g: &mut Gen<'_>) -> Built {
    let sep = spec.separator.char();
    let records_key = RECORDS_KEYS[usize::from(spec.records_key) % RECORDS_KEYS.len()].to_string();
    let mut header_json = Map::new();
    let mut required = Vec::new();
    let mut header = Vec::new();
    let mut defaults = false;
    for (i, h) in spec.header.0.iter().take(6).enumerate() {
        let name = format!("h{i}");
        let (mut j, shape) = g.shape(&h.shape, true);
        let mut default = None;
        if !h.optional {
            required.push(name.clone());
        } else if let (true, Shape::Scalar(sc)) = (h.default, &shape) {
            // a default is inserted verbatim: give it in canonical form
            let (_, e) = g.scalar(sc, true);
            j.insert("default".into(), e.clone());
            default = Some((e.clone(), e));
            defaults = true;
        }
        header_json.insert(name.clone(), Value::Object(j));
        header.push((name, shape, !h.optional, default));
    }
    let mut fields = Vec::new();
    let mut core_json = Vec::new();
    let mut ext_json = Vec::new();
    let mut uses_k = false;
    let mut k_needs_one = false;
    let core_specs: Vec<&FieldSpec> = spec.core.0.iter().take(8).collect();
    let fallback = FieldSpec {
        shape: ShapeSpec::Scalar(ScalarSpec {
            kind: ScalarKind::Str,
            min: None,
            max: None,
            values: Seq::default(),
        }),
        optional: false,
        unique: false,
        default: false,
        name: 0,
    };
    let core_specs = if core_specs.is_empty() {
        vec![&fallback]
    } else {
        core_specs
    };
    let core = core_specs.len();
    let all = core_specs
        .into_iter()
        .map(|f| (f, false))
        .chain(spec.extensions.0.iter().take(4).map(|f| (f, true)));
    for (i, (f, extension)) in all.enumerate() {
        let name = format!(
            "{}{i}",
            FIELD_NAMES[usize::from(f.name) % FIELD_NAMES.len()]
        );
        let (mut j, shape) = g.shape(&f.shape, false);
        j.insert("name".into(), json!(name));
        let optional = f.optional || extension;
        if f.optional {
            j.insert("optional".into(), json!(true));
        }
        if f.unique {
            j.insert("unique".into(), json!(true));
        }
        let (items_key, selected_key) = (format!("{name}.items"), format!("{name}.sel"));
        if let Shape::MList { count, rule, .. } = &shape {
            j.insert(
                "json".into(),
                json!({"items": items_key, "selected": selected_key}),
            );
            uses_k |= *count;
            k_needs_one |= *count && rule.needs_one();
        }
        if let Shape::List { count, .. } = &shape {
            uses_k |= *count;
        }
        let mut default = None;
        if let Shape::Scalar(sc) = &shape {
            if f.default && optional && !f.unique {
                // a default is inserted verbatim: give it in canonical form
                let (_, e) = g.scalar(sc, false);
                j.insert("default".into(), e.clone());
                default = Some((e.clone(), e));
                defaults = true;
            }
        }
        if extension {
            ext_json.push(Value::Object(j));
        } else {
            core_json.push(Value::Object(j));
        }
        fields.push(Fld {
            name,
            shape,
            optional,
            unique: f.unique,
            default,
            items_key,
            selected_key,
        });
    }
    if uses_k {
        header_json.insert("k".into(), json!({"type": "int"}));
        header.push((
            "k".to_string(),
            Shape::Scalar(Sc {
                kind: ScalarKind::Int,
                min: None,
                max: None,
                values: Vec::new(),
            }),
            true,
            None,
        ));
    }
    let mut j = json!({
        "prefix": "cx",
        "version": 1 + spec.version % 2,
        "list_separator": sep.to_string(),
        "records_key": records_key,
        "header": {"keys": header_json, "required": required},
        "core": core_json,
    });
    if !ext_json.is_empty() {
        j["extensions"] = Value::Array(ext_json);
    }
    let contract = match Contract::from_value(j.clone()) {
        Ok(c) => c,
        Err(e) => fail(format!("generated contract rejected: {e}\n{j}")),
    };
    Built {
        contract,
        records_key,
        header,
        fields,
        core,
        defaults,
        k_min: usize::from(k_needs_one),
    }
}

/// A valid header value of `shape`: `(object value, expected)`.
pub(crate) fn header_value(g: &mut Gen<'_>, shape: &Shape) -> (Value, Value) {
    match shape {
        Shape::Scalar(sc) => g.scalar(sc, true),
        Shape::List { item, min, max, .. } | Shape::MList { item, min, max, .. } => {
            let n = g.length(*min, *max, None);
            let (o, e): (Vec<Value>, Vec<Value>) = (0..n).map(|_| g.scalar(item, true)).unzip();
            (Value::Array(o), Value::Array(e))
        }
        Shape::Tuple(comps) => {
            let mut o = Map::new();
            let mut e = Map::new();
            for (name, sc, optional) in comps {
                if *optional && g.byte() % 3 == 0 {
                    e.insert(name.clone(), Value::Null);
                } else {
                    let (a, b) = g.scalar(sc, false);
                    o.insert(name.clone(), a);
                    e.insert(name.clone(), b);
                }
            }
            (Value::Object(o), Value::Object(e))
        }
    }
}

/// Whether a tuple value is a one-component tuple whose component is null,
/// which the serializer cannot write (see [`KNOWN_FINDINGS`]).
pub(crate) fn null_single(value: &Value, comps: usize) -> bool {
    let Value::Object(m) = value else {
        return false;
    };
    comps == 1 && m.get("c0").is_none_or(Value::is_null)
}

/// A valid canonical object drawn for a built contract (see
/// [`draw_object`]).
pub(crate) struct Drawn {
    /// The object given to `dumps`.
    pub(crate) obj: Value,
    /// What it reads back as (`n` recomputed, `v` and defaults added, line
    /// breaks as LF, decimals canonical, absent values null).
    pub(crate) want: Value,
    /// A record whose only core field writes nothing (a blank line).
    pub(crate) blank: bool,
    /// A one-component tuple whose component is null (see
    /// [`KNOWN_FINDINGS`]).
    pub(crate) null_singles: bool,
}

/// Draws a canonical object that is valid under `b` (types, bounds,
/// arity, count keys, marker rules, unique fields, no outer whitespace),
/// with undeclared header keys and sometimes a wrong `n`: the object of
/// `canonical_roundtrip`, and the valid document `typed_equivalence`
/// garbles.
pub(crate) fn draw_object(b: &Built, g: &mut Gen<'_>) -> Drawn {
    // header
    let mut header = Map::new();
    let mut want_header = Map::new();
    let records = g.below(7);
    let mut k = 0;
    let mut null_singles = false;
    for (name, shape, required, default) in &b.header {
        if name == "k" {
            k = g.below(4) + b.k_min;
            header.insert("k".into(), json!(k));
            want_header.insert("k".into(), json!(k));
            continue;
        }
        if *required || g.flag() {
            let (o, e) = header_value(g, shape);
            if let Shape::Tuple(comps) = shape {
                null_singles |= null_single(&o, comps.len());
            }
            header.insert(name.clone(), o);
            want_header.insert(name.clone(), e);
        } else if let Some((_, e)) = default {
            want_header.insert(name.clone(), e.clone());
        }
    }
    for i in 0..g.below(3) {
        let v = survivor(&g.text());
        header.insert(format!("x{i}"), json!(v));
        want_header.insert(format!("x{i}"), json!(breaks_normalized(&v)));
    }
    if g.flag() {
        header.insert("n".into(), json!(g.byte()));
    }
    let mut recs = Vec::new();
    let mut wants: Vec<Map<String, Value>> = Vec::new();
    let mut blank = false;
    for _ in 0..records {
        let mut rec = Map::new();
        let mut want = Map::new();
        let mut writes_nothing = Vec::new();
        for f in &b.fields {
            let (o, e) = g.field(f, k);
            let empty = o.iter().all(|(_, v)| match v {
                Value::Null => true,
                Value::Array(a) => a.is_empty(),
                _ => false,
            });
            writes_nothing.push(empty);
            if let Shape::Tuple(comps) = &f.shape {
                null_singles |= o.iter().any(|(_, v)| null_single(v, comps.len()));
            }
            for (key, v) in o {
                if !v.is_null() || g.flag() {
                    rec.insert(key, v);
                }
            }
            want.extend(e);
        }
        // unique fields: drop a record whose value repeats an earlier one
        let clash = b.fields.iter().filter(|f| f.unique).any(|f| {
            let key = |m: &Map<String, Value>| match &f.shape {
                Shape::MList { .. } => json!([m.get(&f.items_key), m.get(&f.selected_key)]),
                _ => m.get(&f.name).cloned().unwrap_or(Value::Null),
            };
            wants.iter().any(|w| equivalent(&key(w), &key(&want)))
        });
        if clash {
            continue;
        }
        if b.core == 1 && writes_nothing.iter().all(|&e| e) {
            blank = true;
        }
        recs.push(Value::Object(rec));
        wants.push(want);
    }
    want_header.insert("n".into(), json!(recs.len()));
    want_header.entry("v").or_insert(json!(1));
    let mut obj = Map::new();
    if g.flag() {
        obj.insert("prefix".into(), json!("cx"));
    }
    obj.insert("header".into(), Value::Object(header));
    obj.insert(b.records_key.clone(), Value::Array(recs));
    let obj = Value::Object(obj);
    let want = json!({
        "prefix": "cx",
        "header": want_header,
        b.records_key.as_str(): wants,
    });
    Drawn {
        obj,
        want,
        blank,
        null_singles,
    }
}
