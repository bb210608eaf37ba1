//! Contracts ⇄ JSON Schema (draft 2020-12).
//!
//! [`to_schema`] describes the *canonical object* of a contract (SPEC 1.1
//! §7: `{"prefix", "header", "<records_key>": [...]}`) as a JSON Schema that
//! any draft 2020-12 validator can check canonical JSON against;
//! [`from_schema`] builds a contract back from such a schema, or from a plain
//! hand-written JSON Schema.
//!
//! # Mapping
//!
//! | contract | JSON Schema |
//! | --- | --- |
//! | `str` | `{"type": "string"}` |
//! | `int` | `{"type": "integer"}` + `minimum`/`maximum` |
//! | `float` | `{"type": "number"}` + `minimum`/`maximum` |
//! | `bool` | `{"type": "boolean"}` |
//! | `enum` | `{"type": "string", "enum": [...]}` |
//! | `date` | `{"type": "string", "format": "date", "pattern": DATE_PATTERN}` (bounds in `x-mini`) |
//! | `decimal` | `{"type": "string", "pattern": DECIMAL_PATTERN}` (bounds in `x-mini`) |
//! | `list<T>` | `{"type": "array", "items": T, "minItems", "maxItems"}` |
//! | `mlist<T>` | two properties: the items array and the selection (`integer` for `exactly_one`, `integer`/`null` for `at_most_one`, array of integers for `at_least_one`/`any`) |
//! | `tuple(...)` | `{"type": "object", "properties": {...}, "required": [every component], "additionalProperties": false}` |
//! | optional field / component | `{"anyOf": [T, {"type": "null"}]}` |
//! | `desc` / `default` | `description` / `default` |
//!
//! The record object lists every canonical key in `properties` (in field
//! order), requires the core keys and forbids other keys. The header object
//! types the declared keys, requires the required ones, and lets undeclared
//! keys through as strings (`additionalProperties: {"type": "string"}`), as
//! the parser keeps them.
//!
//! # `x-mini` annotations
//!
//! What JSON Schema cannot say is kept in `x-mini` objects, which validators
//! ignore:
//!
//! * on the root: `prefix`, `version`, `list_separator`, `records_key`,
//!   `parent`, `header_order`, `meta` (every other top-level key of the
//!   contract: `domain`, `author`, `license`, `source`, …) and, for a
//!   record-only schema, `header` (the header object schema);
//! * on a field: `position` (its index among all fields), `extension`,
//!   `unique`, `count_key`; on a marked list's items property also `type:
//!   "mlist"`, `field` (the field name), `marker` and `selected` (the
//!   selection key); the selection property carries `selected_of`;
//! * on a `date`/`decimal` scalar: `type` and its `min`/`max`.
//!
//! # What "lossless" means
//!
//! For every contract `c`, `from_schema(&to_schema(&c, r), None, true)` (with
//! `r` either way) gives back a contract for which [`structurally_equal`]
//! holds: the same prefix, version, list separator, records key, parent,
//! header keys (name, type, enumeration, bounds, arity, count key, required,
//! default, `desc`, order), fields (name, type, item type, enumeration,
//! bounds, arity, count key, marker rule, canonical keys, tuple components
//! with their own `optional`/`desc`, `optional`, `unique`, extension or core,
//! default, `desc`, order) and the same value for every other top-level key
//! (`name` and `description` travel as the schema's `title` and
//! `description`, the rest in `x-mini.meta`). Bounds keep the JSON text they
//! were written with (`3.0` stays `3.0`).
//!
//! Not kept: key order inside the contract JSON, keys a contract writes with
//! their default value (`"parent": null`, `"item": "str"`, `"extensions": []`,
//! `"list_separator": ","`, explicit `n`/`v` declarations equal to the
//! implicit ones), and keys inside a field object that the parser does not
//! read. The rebuilt contract declares every header key explicitly, so its
//! JSON may differ from the original while [`structurally_equal`] holds.
//!
//! # Plain JSON Schemas
//!
//! Without `x-mini`, [`from_schema`] maps what it can (see its docs): a
//! record schema or a document schema (one array-of-objects property, plus
//! optional `prefix` and `header`), local `$ref`s, nullable forms (`anyOf` /
//! `oneOf` with `{"type": "null"}`, `type: [T, "null"]`, `enum` with
//! `null`). Keywords with no contract equivalent (`pattern`, `minLength`,
//! `format: email`, `uniqueItems`, …) are returned as warnings, or are an
//! E20 error with `strict`. Shapes a contract cannot hold (nesting deeper
//! than one level, unions of several types, non-local references) are always
//! E20 errors.

mod export;
mod import;

pub use export::to_schema;
pub use import::from_schema;

use serde_json::Value;

use crate::contract::Contract;

/// The `$schema` of every exported schema.
pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The annotation keyword that carries what JSON Schema cannot express.
pub const X_MINI: &str = "x-mini";

/// The `pattern` of a canonical `date` (`YYYY-MM-DD`).
pub const DATE_PATTERN: &str = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";

/// The `pattern` of a canonical `decimal` (SPEC 1.1 §6).
pub const DECIMAL_PATTERN: &str = "^-?[0-9]+(\\.[0-9]+)?$";

/// Top-level contract keys the parser interprets (everything else is
/// metadata carried as is).
pub(crate) const STRUCTURAL_KEYS: [&str; 8] = [
    "prefix",
    "version",
    "list_separator",
    "records_key",
    "parent",
    "header",
    "core",
    "extensions",
];

/// Whether two contracts are the same contract in the sense of the module
/// docs ("What lossless means"): every setting the parser uses is equal
/// (prefix, version, separator, records key, parent, header keys and fields
/// with their types, constraints, flags, defaults, descriptions and order),
/// and every other top-level key (`name`, `description`, `domain`, …) has the
/// same value, a `null` counting as absent. Key order and keys written with
/// their default value are not compared.
pub fn structurally_equal(a: &Contract, b: &Contract) -> bool {
    if a.prefix() != b.prefix()
        || a.version() != b.version()
        || a.separator() != b.separator()
        || a.records_key() != b.records_key()
        || a.parent() != b.parent()
        || a.header_keys() != b.header_keys()
        || a.fields() != b.fields()
        || a.core().len() != b.core().len()
    {
        return false;
    }
    let meta = |c: &Contract, k: &str| -> Option<Value> {
        c.to_value().get(k).filter(|v| !v.is_null()).cloned()
    };
    let keys = |c: &Contract| -> Vec<String> {
        c.to_value()
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    keys(a)
        .into_iter()
        .chain(keys(b))
        .filter(|k| !STRUCTURAL_KEYS.contains(&k.as_str()))
        .all(|k| meta(a, &k) == meta(b, &k))
}
