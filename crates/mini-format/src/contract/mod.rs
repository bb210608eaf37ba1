//! Contracts: the contract.json model, its validation (E20), the fork
//! invariants (E21) and the registry of families.
//!
//! A [`Contract`] is built from the JSON shape that every upstream family
//! uses (`forks/<prefix>/contract.json`). Every key is kept: serializing a
//! contract gives back the JSON it was read from, and keys this crate does not
//! interpret (`author`, `license`, `source`, …) survive the round trip.

mod fork;
mod load;
mod registry;

pub use fork::check_fork;
pub use registry::Registry;

use serde_json::Value;

use crate::number::Dec;

/// A scalar type (SPEC 1.1 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// Literal text.
    Str,
    /// `-?[0-9]+`, any length.
    Int,
    /// A finite JSON number.
    Float,
    /// `true`/`false` (and `1`/`0` on input).
    Bool,
    /// One of the declared values.
    Enum,
    /// `YYYY-MM-DD`, canonical JSON string.
    Date,
    /// Exact base-10 number, canonical JSON string.
    Decimal,
}

impl ScalarType {
    /// Parses a contract type name.
    pub fn from_name(s: &str) -> Option<ScalarType> {
        Some(match s {
            "str" => ScalarType::Str,
            "int" => ScalarType::Int,
            "float" => ScalarType::Float,
            "bool" => ScalarType::Bool,
            "enum" => ScalarType::Enum,
            "date" => ScalarType::Date,
            "decimal" => ScalarType::Decimal,
            _ => return None,
        })
    }

    /// The contract type name.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Str => "str",
            ScalarType::Int => "int",
            ScalarType::Float => "float",
            ScalarType::Bool => "bool",
            ScalarType::Enum => "enum",
            ScalarType::Date => "date",
            ScalarType::Decimal => "decimal",
        }
    }

    /// Whether `min`/`max` are value bounds for this type.
    pub fn is_ranged(self) -> bool {
        matches!(
            self,
            ScalarType::Int | ScalarType::Float | ScalarType::Date | ScalarType::Decimal
        )
    }
}

/// A value bound (`min`/`max`) of a scalar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bound {
    /// An exact number (int, float and decimal bounds).
    Number(Dec),
    /// A `YYYY-MM-DD` date (compared as text, which orders dates correctly).
    Date(String),
}

/// A scalar with its constraints: a scalar field, a list item or a tuple
/// component.
#[derive(Debug, Clone, PartialEq)]
pub struct Scalar {
    /// The type.
    pub ty: ScalarType,
    /// Enumeration values (for `enum`).
    pub values: Vec<String>,
    /// Lower bound (for ranged types).
    pub min: Option<Bound>,
    /// Upper bound (for ranged types).
    pub max: Option<Bound>,
}

impl Scalar {
    fn plain(ty: ScalarType) -> Scalar {
        Scalar {
            ty,
            values: Vec::new(),
            min: None,
            max: None,
        }
    }
}

/// The marked-list rule (SPEC 1.1 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MarkerRule {
    /// Exactly one element carries `*`; the selection is an index.
    ExactlyOne,
    /// At least one element carries `*`; the selection is a list of indices.
    AtLeastOne,
    /// At most one element carries `*`; the selection is an index or null.
    AtMostOne,
    /// Any number of elements carry `*`; the selection is a list of indices.
    Any,
}

impl MarkerRule {
    /// Parses a contract marker name.
    pub fn from_name(s: &str) -> Option<MarkerRule> {
        Some(match s {
            "exactly_one" => MarkerRule::ExactlyOne,
            "at_least_one" => MarkerRule::AtLeastOne,
            "at_most_one" => MarkerRule::AtMostOne,
            "any" => MarkerRule::Any,
            _ => return None,
        })
    }

    /// The contract marker name.
    pub fn name(self) -> &'static str {
        match self {
            MarkerRule::ExactlyOne => "exactly_one",
            MarkerRule::AtLeastOne => "at_least_one",
            MarkerRule::AtMostOne => "at_most_one",
            MarkerRule::Any => "any",
        }
    }

    /// Whether the canonical selection is a single index (or null).
    pub fn is_single(self) -> bool {
        matches!(self, MarkerRule::ExactlyOne | MarkerRule::AtMostOne)
    }

    /// Whether `n` marked elements meet the rule.
    pub fn allows(self, n: usize) -> bool {
        match self {
            MarkerRule::ExactlyOne => n == 1,
            MarkerRule::AtLeastOne => n > 0,
            MarkerRule::AtMostOne => n <= 1,
            MarkerRule::Any => true,
        }
    }
}

/// List arity constraints.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Arity {
    /// Minimum number of elements.
    pub min: Option<u64>,
    /// Maximum number of elements.
    pub max: Option<u64>,
    /// Header key whose value fixes the number of elements.
    pub count_key: Option<String>,
}

/// One component of a tuple.
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    /// Component name (key of the canonical object).
    pub name: String,
    /// Its scalar type and constraints.
    pub scalar: Scalar,
    /// Whether an empty component is null.
    pub optional: bool,
    /// Description from the contract.
    pub desc: Option<String>,
}

/// The shape of a field or header key.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A scalar.
    Scalar(Scalar),
    /// `list<T>`.
    List {
        /// The element type.
        item: Scalar,
        /// Arity constraints.
        arity: Arity,
    },
    /// `mlist<T>`: a list plus a selection.
    MList {
        /// The element type.
        item: Scalar,
        /// Arity constraints.
        arity: Arity,
        /// The marker rule.
        marker: MarkerRule,
        /// Canonical key of the elements.
        items_key: String,
        /// Canonical key of the selection.
        selected_key: String,
    },
    /// `tuple(a:T, b:U, …)`: a nested object.
    Tuple(Vec<Component>),
}

impl Kind {
    /// The contract type name (`str`, `list`, `mlist`, `tuple`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Kind::Scalar(s) => s.ty.name(),
            Kind::List { .. } => "list",
            Kind::MList { .. } => "mlist",
            Kind::Tuple(_) => "tuple",
        }
    }

    /// A compact signature, e.g. `mlist<str>[2..6]*exactly_one`.
    pub fn signature(&self) -> String {
        match self {
            Kind::Scalar(s) if s.ty == ScalarType::Enum => {
                format!("enum{{{}}}", s.values.join("|"))
            }
            Kind::Scalar(s) => s.ty.name().to_string(),
            Kind::List { item, .. } => format!("list<{}>", item.ty.name()),
            Kind::MList { item, marker, .. } => {
                format!("mlist<{}>*{}", item.ty.name(), marker.name())
            }
            Kind::Tuple(items) => format!(
                "tuple({})",
                items
                    .iter()
                    .map(|c| format!("{}:{}", c.name, c.scalar.ty.name()))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }
}

/// A record field (core or extension).
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Field name (canonical key; for an mlist, see [`Kind::MList`]).
    pub name: String,
    /// Its shape.
    pub kind: Kind,
    /// Whether an empty field is null. Extensions are always optional.
    pub optional: bool,
    /// Whether the value must not repeat within a document (E11).
    pub unique: bool,
    /// Whether the field is an extension (after the core).
    pub extension: bool,
    /// Value used when an optional field is empty or absent.
    pub default: Option<Value>,
    /// Description from the contract.
    pub desc: Option<String>,
}

/// A typed header key.
#[derive(Debug, Clone, PartialEq)]
pub struct HeaderKey {
    /// Key name.
    pub name: String,
    /// Its shape (scalar, list or tuple).
    pub kind: Kind,
    /// Whether the key must be present (E12; E03 for `n`).
    pub required: bool,
    /// Value used when the key is absent.
    pub default: Option<Value>,
    /// Description from the contract.
    pub desc: Option<String>,
}

/// A validated contract.
#[derive(Debug, Clone, PartialEq)]
pub struct Contract {
    raw: Value,
    prefix: String,
    version: u64,
    separator: char,
    records_key: String,
    parent: Option<String>,
    header_keys: Vec<HeaderKey>,
    fields: Vec<Field>,
    core_len: usize,
    /// What the Rust type a contract was derived from lets the typed reader
    /// do (ADR 0032); not part of the contract's meaning.
    read_hint: ReadHint,
}

/// A reading hint carried beside a contract: whether every value of a
/// record that may be absent is an `Option<T>` (without
/// `#[serde(default)]`) in the Rust type the contract was derived from, so
/// that the typed reader may hand such a record to serde as a sequence,
/// absent values as `None` (ADR 0032). A contract loaded from JSON has no
/// Rust type: `false`, and its records with absent values are read as
/// maps. It is not part of the contract: two contracts that differ only in
/// it are equal.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ReadHint {
    /// The contract was derived from a Rust type (whose `Deserialize`
    /// serde derived too: it reads a struct from a sequence as well as
    /// from a map).
    pub(crate) derived: bool,
    /// Every value of a record that may be absent is an `Option`.
    pub(crate) absent_is_none: bool,
}

impl PartialEq for ReadHint {
    fn eq(&self, _: &ReadHint) -> bool {
        true
    }
}

const RESERVED_SEPARATORS: [char; 7] = ['|', '\\', '*', '"', '=', '\n', '\r'];

/// Whether `c` may be a contract's list separator: one character that is not
/// structural (`| \\ * " =`), not a letter or digit (`\n` would be ambiguous
/// with separator `n`), not a space and not a line break. A tab is allowed.
pub fn is_valid_separator(c: char) -> bool {
    !RESERVED_SEPARATORS.contains(&c)
        && !c.is_alphanumeric()
        && (c == '\t' || !crate::syntax::is_space(c))
}

fn is_prefix(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic())
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '-')
}

/// Whether `s` is a valid header key (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn is_key(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

impl Contract {
    /// The family prefix (first field of the header line).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The contract version (`version`, default 1).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The list separator (`,` by default).
    pub fn separator(&self) -> char {
        self.separator
    }

    /// The key of the record array in the canonical object.
    pub fn records_key(&self) -> &str {
        &self.records_key
    }

    /// The parent family, for forks.
    pub fn parent(&self) -> Option<&str> {
        self.parent.as_deref()
    }

    /// A string entry of the contract JSON (`name`, `description`, `domain`, …).
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.raw.get(key).and_then(Value::as_str)
    }

    /// Header keys: the declared ones, then implicit `n` and `v` if not declared.
    pub fn header_keys(&self) -> &[HeaderKey] {
        &self.header_keys
    }

    /// The header key named `name`.
    pub fn header_key(&self, name: &str) -> Option<&HeaderKey> {
        self.header_keys.iter().find(|k| k.name == name)
    }

    /// All fields: core, then extensions.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The core fields.
    pub fn core(&self) -> &[Field] {
        &self.fields[..self.core_len]
    }

    /// The reading hint (see [`ReadHint`]).
    pub(crate) fn read_hint(&self) -> ReadHint {
        self.read_hint
    }

    /// This contract with a reading hint from its Rust type.
    pub(crate) fn with_read_hint(mut self, hint: ReadHint) -> Contract {
        self.read_hint = hint;
        self
    }

    /// The extension fields.
    pub fn extensions(&self) -> &[Field] {
        &self.fields[self.core_len..]
    }

    /// The contract as JSON, exactly as it was read.
    pub fn to_value(&self) -> &Value {
        &self.raw
    }

    /// The `list` and `mlist` fields whose elements are free text (`str`)
    /// and whose length no `count_key` fixes. In them an unescaped
    /// separator inside an element splits it in two and the line still
    /// validates (`Billing, EU*,Docs` reads three elements and selects
    /// `EU`); a count key turns that into E07 (ADR 0004). The prompt block
    /// stresses escaping for exactly these fields.
    pub fn unguarded_text_lists(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| match &f.kind {
            Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
                item.ty == ScalarType::Str && arity.count_key.is_none()
            }
            _ => false,
        })
    }

    /// One warning per [`Contract::unguarded_text_lists`] field, saying
    /// what can pass silently and the two remedies (shown by the `mini`
    /// binary when it loads a contract, and by `mini check-forks`).
    pub fn delimiter_warnings(&self) -> Vec<String> {
        let sep = self.separator();
        self.unguarded_text_lists()
            .map(|f| {
                format!(
                    "field '{}' ({}) is a list of free text with no count_key: an unescaped \
                     '{sep}' inside an element splits it silently (\"Billing{sep} EU\" reads \
                     as two elements and the line still validates); give the field a \
                     count_key (a header int the element count must equal, E07), or make \
                     sure the model escapes it as '\\{sep}' (ADR 0004)",
                    f.name,
                    f.kind.signature()
                )
            })
            .collect()
    }
}
