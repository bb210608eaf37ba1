//! The typed side: the [`Mini`] trait that `#[derive(mini::Mini)]`
//! implements, the description of Rust types it produces, and the contract
//! built from it.
//!
//! Every type that can appear in a `.mini` document implements [`Mini`]:
//! the std scalars (strings, integers, floats, `bool`), [`Date`],
//! [`Decimal`], `Option<T>`, `Vec<T>`, and the types deriving `Mini` (unit
//! enums → `enum`; structs → a document, a header, a record or a tuple,
//! depending on where they are used). [`Mini::contract`] turns the
//! description of a *document* type (one with `#[mini(prefix = "…")]`) into
//! a [`Contract`].

mod contract_of;
mod scalars;

use std::borrow::Cow;

pub use contract_of::contract_json;
pub use scalars::{Date, Decimal};

use crate::contract::{Contract, MarkerRule, ScalarType};
use crate::error::Result;

/// The description of a Rust type as `.mini` sees it.
#[derive(Debug, Clone, PartialEq)]
pub enum Describe {
    /// A scalar (`str`, `int`, `float`, `bool`, `date`, `decimal`).
    Scalar(ScalarType),
    /// A unit enum: its serialized variant names.
    Enum(Vec<String>),
    /// `Option<T>`.
    Optional(Box<Describe>),
    /// `Vec<T>` and other sequences.
    List(Box<Describe>),
    /// A struct deriving `Mini`.
    Struct(StructDesc),
    /// A type `.mini` cannot carry (maps, nested sequences, …), with why.
    Unsupported(&'static str),
}

/// A struct deriving `Mini`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StructDesc {
    /// The Rust type name (for messages).
    pub rust_name: &'static str,
    /// `#[mini(prefix = "…")]`: makes the struct a document.
    pub prefix: Option<&'static str>,
    /// `#[mini(records = "…")]`: the field holding the records (default
    /// `"records"`).
    pub records: Option<&'static str>,
    /// `#[mini(separator = ';')]`.
    pub separator: Option<char>,
    /// `#[mini(version = 2)]`.
    pub version: Option<u64>,
    /// `#[mini(name = "…")]` / `#[mini(description = "…")]`.
    pub name: Option<&'static str>,
    /// A description of the family.
    pub description: Option<&'static str>,
    /// The fields, in declaration order, with serde names.
    pub fields: Vec<FieldDesc>,
}

/// One field of a struct deriving `Mini`.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDesc {
    /// The serialized name (after `#[serde(rename)]` / `rename_all`).
    pub name: Cow<'static, str>,
    /// The field's type.
    pub ty: Describe,
    /// Its `#[mini(...)]` attributes.
    pub attrs: FieldAttrs,
}

/// The `#[mini(...)]` attributes of a field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldAttrs {
    /// `#[mini(unique)]`.
    pub unique: bool,
    /// `#[mini(extension)]`: an optional field after the core.
    pub extension: bool,
    /// `#[mini(mlist = "exactly_one")]`: a marked list.
    pub mlist: Option<MarkerRule>,
    /// `#[mini(selected = "answer")]`: the sibling field holding the selection.
    pub selected: Option<&'static str>,
    /// `#[mini(count_key = "k")]`.
    pub count_key: Option<&'static str>,
    /// `#[mini(min = …)]`: a value bound for scalars, an arity for lists
    /// (as written: a number, or a string for dates and decimals).
    pub min: Option<Bound>,
    /// `#[mini(max = …)]`.
    pub max: Option<Bound>,
    /// `#[mini(desc = "…")]`.
    pub desc: Option<&'static str>,
    /// `#[serde(default)]` (or `default = "path"`): the field may be absent.
    pub serde_default: bool,
}

/// A *document* type: a struct deriving [`Mini`] with
/// `#[mini(prefix = "…")]`, whose contract [`Mini::contract`] builds.
///
/// [`from_str`](crate::from_str), [`from_slice`](crate::from_slice) and
/// [`from_reader`](crate::from_reader) read a whole document, so they take
/// only such types: reading a record or a header type with them is a
/// compile error, not an E20 at run time. To read with a contract loaded at
/// run time, use [`from_str_with_contract`](crate::from_str_with_contract), which takes any
/// serde type. `#[derive(mini::Mini)]` implements this trait; there is
/// nothing to implement by hand.
///
/// ```compile_fail
/// #[derive(serde::Deserialize, mini::Mini)]
/// struct Row { id: String }
/// // a record type, not a document: E0277 "`Row` is not a .mini document type"
/// let _ = mini::from_str::<Row>("r|n=1\na");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a .mini document type",
    label = "not a struct with #[mini(prefix = \"…\")]",
    note = "`mini::from_str` reads a whole document: derive `mini::Mini` on a struct with \
            #[mini(prefix = \"…\")] holding `header` and the records, or read with a contract \
            loaded at run time through `mini::from_str_with_contract`"
)]
pub trait MiniDocument: Mini {
    /// The document read by its records' direct reader, when its derive
    /// wrote one (ADR 0044); `None`: serde reads it. Not public API.
    #[doc(hidden)]
    fn __read_direct<'de>(_de: &mut crate::Deserializer<'de, '_>) -> Option<crate::Result<Self>>
    where
        Self: Sized,
    {
        None
    }
}

/// A bound written in an attribute.
#[derive(Debug, Clone, PartialEq)]
pub enum Bound {
    /// An integer literal.
    Int(i128),
    /// A float literal.
    Float(f64),
    /// A string literal (dates, decimals).
    Str(&'static str),
}

/// A type that can be read from and written to `.mini`.
///
/// Implemented for the std scalar types, [`Date`], [`Decimal`],
/// `Option<T>`, `Vec<T>`, and derived with `#[derive(mini::Mini)]` for
/// unit enums and structs of such types.
pub trait Mini {
    /// How `.mini` sees this type.
    fn describe() -> Describe;

    /// The contract of a document type (a struct with
    /// `#[mini(prefix = "…")]`), built once and cached by derived types.
    ///
    /// # Panics
    /// If `Self` is not a document type or its attributes do not make a
    /// valid contract; [`Mini::try_contract`] returns the error instead.
    fn contract() -> Contract
    where
        Self: Sized,
    {
        match Self::try_contract() {
            Ok(c) => c,
            Err(e) => panic!(
                "invalid mini contract for {}: {e}",
                std::any::type_name::<Self>()
            ),
        }
    }

    /// The contract of a document type, or why there is none (E20).
    fn try_contract() -> Result<Contract>
    where
        Self: Sized,
    {
        let describe = Self::describe();
        let hint = contract_of::read_hint(&describe);
        Ok(Contract::from_value(contract_json(&describe)?)?.with_read_hint(hint))
    }

    /// The cached contract used by [`crate::from_str`]; derived document types
    /// build it once. The default builds it on each call.
    #[doc(hidden)]
    fn cached_contract() -> Result<Cow<'static, Contract>>
    where
        Self: Sized,
    {
        Self::try_contract().map(Cow::Owned)
    }

    /// Writes a document's records by their derived writer, when its derive
    /// wrote one (ADR 0047); doing nothing leaves them to serde. Not public
    /// API.
    #[doc(hidden)]
    fn __write_records(&self, _out: &mut crate::ser::fast::derived::RecordsOut<'_, '_>) {}
}

macro_rules! scalar_impl {
    ($ty:expr => $($t:ty),*) => {$(
        impl Mini for $t {
            fn describe() -> Describe {
                Describe::Scalar($ty)
            }
        }
    )*};
}

scalar_impl!(ScalarType::Str => String, str, char);
scalar_impl!(ScalarType::Int => i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
scalar_impl!(ScalarType::Float => f32, f64);
scalar_impl!(ScalarType::Bool => bool);

impl Mini for Date {
    fn describe() -> Describe {
        Describe::Scalar(ScalarType::Date)
    }
}

impl Mini for Decimal {
    fn describe() -> Describe {
        Describe::Scalar(ScalarType::Decimal)
    }
}

impl<T: Mini + ?Sized> Mini for &T {
    fn describe() -> Describe {
        T::describe()
    }
}

impl<T: Mini + ?Sized> Mini for Box<T> {
    fn describe() -> Describe {
        T::describe()
    }
}

impl<T: Mini + ToOwned + ?Sized> Mini for Cow<'_, T> {
    fn describe() -> Describe {
        T::describe()
    }
}

impl<T: Mini> Mini for Option<T> {
    fn describe() -> Describe {
        Describe::Optional(Box::new(T::describe()))
    }
}

impl<T: Mini> Mini for Vec<T> {
    fn describe() -> Describe {
        Describe::List(Box::new(T::describe()))
    }
}

impl<T: Mini> Mini for [T] {
    fn describe() -> Describe {
        Describe::List(Box::new(T::describe()))
    }
}
