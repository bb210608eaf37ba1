//! The compiled plan (issue 21, ADR 0031): a contract compiled once, at the
//! start of a document, into a flat sequence of field steps, so that a hot
//! path finds what it checks for each field by index (kind, rules, bounds,
//! count-key slot, unique slot, marker rule), never by name.
//!
//! It sits above `contract` and below `check` and `ser`: it holds no rule.
//! Its consumers: `mini::check` (`check/fast.rs`) and the serializer's
//! straight-line record writer (`ser/fast/`). The rules
//! stay the engine's functions (`check_atom`, `check_float`, the arity and
//! marker verdicts); a walk that uses the plan calls them, and on any fault
//! hands the line to the engine for the exact diagnostics (as ADR 0024's
//! single-pass reader does).

use crate::contract::{Arity, Component, Contract, Kind, MarkerRule, Scalar, ScalarType};

/// One field of a record, compiled.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step<'c> {
    /// What the field is.
    pub(crate) kind: StepKind<'c>,
    /// Whether an empty (or absent) field is its default.
    pub(crate) optional: bool,
    /// Whether the field is an extension (after the core).
    pub(crate) extension: bool,
    /// The field's slot among the plan's unique fields, if it is `unique`.
    pub(crate) unique: Option<u16>,
    /// The field's name (diagnostics name a field by it).
    pub(crate) name: &'c str,
    /// The field's canonical key (a marked list's items key).
    pub(crate) key: &'c str,
    /// A marked list's selection key.
    pub(crate) selected_key: Option<&'c str>,
    /// The contract's default for an absent value (`None`: null).
    pub(crate) default: Option<&'c serde_json::Value>,
}

/// The shape of a step, with the contract's rules it needs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum StepKind<'c> {
    /// A `str` scalar: its escapes are checked by the field splitter, and
    /// it has no other rule.
    Str(&'c Scalar),
    /// Any other scalar (enum, int, float, bool, date, decimal).
    Scalar(&'c Scalar),
    /// A list or a marked list (`marker`).
    List {
        /// The element type.
        item: &'c Scalar,
        /// `min`, `max` (the count key is `count`).
        arity: &'c Arity,
        /// The slot of the header's count key in [`Plan::count_keys`].
        count: Option<u16>,
        /// The marker rule of a marked list; `None`: a plain list (no `*`).
        marker: Option<MarkerRule>,
    },
    /// A tuple: its components.
    Tuple(&'c [Component]),
}

/// A contract compiled for the hot paths.
#[derive(Debug)]
pub(crate) struct Plan<'c> {
    /// One step per field, contract order (core first, then extensions).
    pub(crate) steps: Box<[Step<'c>]>,
    /// The number of core fields.
    pub(crate) core: usize,
    /// The list separator.
    pub(crate) sep: char,
    /// The contract's version (a document of a later one may have more
    /// fields).
    pub(crate) version: u64,
    /// The field index of each unique slot.
    pub(crate) uniques: Box<[usize]>,
    /// The header keys used as count keys, one per slot.
    pub(crate) count_keys: Box<[&'c str]>,
    /// Whether every unique field is a scalar (a list or tuple `unique`
    /// key is left to the engine).
    pub(crate) scalar_uniques: bool,
    /// Whether the first field is a `unique` `str` (its key the text
    /// after the `s` tag): the validator then asks for the table line of
    /// the next record's key while it checks one record (ADR 0072).
    pub(crate) leading_text_key: bool,
}

impl<'c> Plan<'c> {
    /// Compiles `contract` (O(fields)).
    pub(crate) fn compile(contract: &'c Contract) -> Plan<'c> {
        let mut count_keys: Vec<&'c str> = Vec::new();
        let mut uniques = Vec::new();
        let mut scalar_uniques = true;
        let mut slot_of = |key: &'c Option<String>| -> Option<u16> {
            let key = key.as_deref()?;
            let at = match count_keys.iter().position(|k| *k == key) {
                Some(at) => at,
                None => {
                    count_keys.push(key);
                    count_keys.len() - 1
                }
            };
            u16::try_from(at).ok()
        };
        let steps = contract
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let kind = match &f.kind {
                    Kind::Scalar(s) if s.ty == ScalarType::Str => StepKind::Str(s),
                    Kind::Scalar(s) => StepKind::Scalar(s),
                    Kind::List { item, arity } => StepKind::List {
                        item,
                        arity,
                        count: slot_of(&arity.count_key),
                        marker: None,
                    },
                    Kind::MList {
                        item,
                        arity,
                        marker,
                        ..
                    } => StepKind::List {
                        item,
                        arity,
                        count: slot_of(&arity.count_key),
                        marker: Some(*marker),
                    },
                    Kind::Tuple(c) => StepKind::Tuple(c),
                };
                let unique = if f.unique {
                    scalar_uniques &= matches!(kind, StepKind::Str(_) | StepKind::Scalar(_));
                    uniques.push(i);
                    u16::try_from(uniques.len() - 1).ok()
                } else {
                    None
                };
                let (key, selected_key) = match &f.kind {
                    Kind::MList {
                        items_key,
                        selected_key,
                        ..
                    } => (items_key.as_str(), Some(selected_key.as_str())),
                    _ => (f.name.as_str(), None),
                };
                Step {
                    kind,
                    name: f.name.as_str(),
                    optional: f.optional,
                    extension: f.extension,
                    unique,
                    key,
                    selected_key,
                    default: f.default.as_ref(),
                }
            })
            .collect::<Box<[Step<'c>]>>();
        let leading_text_key = uniques.first() == Some(&0)
            && matches!(steps.first().map(|s| &s.kind), Some(StepKind::Str(_)));
        Plan {
            steps,
            core: contract.core().len(),
            sep: contract.separator(),
            version: contract.version(),
            uniques: uniques.into_boxed_slice(),
            count_keys: count_keys.into_boxed_slice(),
            scalar_uniques,
            leading_text_key,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Plan;
    use crate::Contract;

    fn plan_of(core: &str) -> bool {
        let c = Contract::from_json(&format!(r#"{{"prefix": "p", "core": [{core}]}}"#)).unwrap();
        Plan::compile(&c).leading_text_key
    }

    /// Only a first field that is a `unique` `str` is asked for ahead: its
    /// key is its text after the `s` tag.
    #[test]
    fn a_leading_text_key_is_a_first_unique_str() {
        let id = r#"{"name": "id", "type": "str", "unique": true}"#;
        let other = r#"{"name": "x", "type": "str"}"#;
        assert!(plan_of(&format!("{id}, {other}")));
        assert!(!plan_of(&format!("{other}, {id}")));
        assert!(!plan_of(r#"{"name": "id", "type": "int", "unique": true}"#));
        assert!(!plan_of(
            r#"{"name": "id", "type": "enum", "values": ["a"], "unique": true}"#
        ));
        assert!(!plan_of(r#"{"name": "id", "type": "str"}"#));
    }
}
