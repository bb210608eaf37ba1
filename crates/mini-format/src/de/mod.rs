//! The serde Deserializer: `.mini` text → any `Deserialize` type, through
//! the same validation engine as the dynamic path.
//!
//! Each record line is checked by [`crate::check::check_record`]; the typed
//! values it yields (borrowing from the input when a value holds no escape)
//! are handed to serde's visitors directly, without building JSON values. A
//! `&'de str` field borrows from the input; an escaped value comes from a
//! scratch buffer (an owned string). Like [`crate::parse`], deserialization
//! is strict: every error of the document is collected, and the result is
//! an error if there was any; [`from_str_lenient`] keeps the valid records
//! instead.

use std::borrow::Cow;

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use crate::check::Engine;
use crate::check::{Atom, FieldValue, HeaderInfo, HeaderValue, Scratch, Selection};
use crate::contract::{Contract, Field, HeaderKey, Kind};
use crate::error::{Code, Diagnostic, Error, Result};
use crate::read::{Limits, SliceLines, StrLines};
use crate::syntax::Line;
use crate::typed::MiniDocument;
use crate::value::ParseReport;

mod atom;
mod checked;
mod cursor;
pub(crate) mod direct;
mod field;
mod header;
mod parts;
mod typed;
mod value;

use atom::{AtomDe, SelectionDe, StrDe};
use checked::{Ctx, FieldDe, Part};
use cursor::RecordsDe;
pub(crate) use cursor::{read_record, Cursor};
use header::{header_items, HeaderDe};
use value::ValueDe;

/// Deserializes a document type (one deriving `Mini` with
/// `#[mini(prefix = …)]`) from `.mini` text, strictly: the value, or every
/// error of the document. To keep the valid records of an invalid document
/// (a model's answer that was cut or has a broken line), with the
/// diagnostics beside them, use [`from_str_lenient`].
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Deserialize, mini::Mini)]
/// #[mini(prefix = "todo", records = "items")]
/// struct Todos<'a> {
///     #[serde(borrow)]
///     items: Vec<Todo<'a>>,
/// }
///
/// #[derive(Deserialize, mini::Mini)]
/// struct Todo<'a> {
///     title: &'a str,
///     done: bool,
/// }
/// # // generic (lifetime) types are fine: the contract is cached per type
/// let t: Todos = mini::from_str("todo|n=2\nbuy milk|false\nwrite docs|1").unwrap();
/// assert_eq!((t.items[0].title, t.items[1].done), ("buy milk", true));
/// ```
pub fn from_str<'de, T>(s: &'de str) -> Result<T>
where
    T: de::Deserialize<'de> + MiniDocument,
{
    from_str_with_limits(s, Limits::default())
}

/// [`from_str`] for bytes: each line is checked as UTF-8 when it is read
/// (an error gives the line and the byte offset within it).
pub fn from_slice<'de, T>(bytes: &'de [u8]) -> Result<T>
where
    T: de::Deserialize<'de> + MiniDocument,
{
    let contract = T::cached_contract()?;
    let mut de = Deserializer::from_source(
        Source::Slice(SliceLines::new(bytes, Limits::default())),
        &contract,
    );
    let value = read_own::<T>(&mut de);
    de.end(value)
}

/// [`from_str`] for a reader, under the default [`Limits`]: the input is
/// read line by line with every limit applied as it arrives (an input past
/// `max_input_bytes` is refused without reading the rest), then
/// deserialized. To handle one record at a time in constant memory, use
/// [`crate::stream::records`].
pub fn from_reader<R, T>(reader: R) -> Result<T>
where
    R: std::io::Read,
    T: de::DeserializeOwned + MiniDocument,
{
    from_reader_with_limits(reader, Limits::default())
}

/// [`from_reader`] under given [`Limits`].
pub fn from_reader_with_limits<R, T>(reader: R, limits: Limits) -> Result<T>
where
    R: std::io::Read,
    T: de::DeserializeOwned + MiniDocument,
{
    use std::io::Read as _;
    let cap = limits.max_input_bytes.saturating_add(1);
    let mut buf = Vec::new();
    reader.take(cap as u64).read_to_end(&mut buf)?;
    let contract = T::cached_contract()?;
    let mut de = Deserializer::from_source(Source::Slice(SliceLines::new(&buf, limits)), &contract);
    let value = read_own::<T>(&mut de);
    de.end(value)
}

/// A document type read under its own contract: by its records' direct
/// reader when its derive wrote one (ADR 0044), by its `Deserialize`
/// otherwise.
fn read_own<'de, T>(de: &mut Deserializer<'de, '_>) -> Result<T>
where
    T: de::Deserialize<'de> + MiniDocument,
{
    de.own_type();
    match T::__read_direct(de) {
        Some(value) => value,
        None => T::deserialize(de),
    }
}

/// [`from_str`] without the direct reader (serde's path only), for the
/// tests and benchmarks that hold the two to each other. Not public API.
#[doc(hidden)]
pub fn from_str_through_serde<'de, T>(s: &'de str) -> Result<T>
where
    T: de::Deserialize<'de> + MiniDocument,
{
    let contract = T::cached_contract()?;
    let mut de = Deserializer::with_limits(s, &contract, Limits::default());
    de.own_type();
    let value = T::deserialize(&mut de);
    de.end(value)
}

/// [`from_str`] under given [`Limits`].
pub fn from_str_with_limits<'de, T>(s: &'de str, limits: Limits) -> Result<T>
where
    T: de::Deserialize<'de> + MiniDocument,
{
    let contract = T::cached_contract()?;
    let mut de = Deserializer::with_limits(s, &contract, limits);
    let value = read_own::<T>(&mut de);
    de.end(value)
}

/// Deserializes any `Deserialize` type from `.mini` text under a given
/// contract (no derive needed), under the default [`Limits`]: the value is
/// shaped like the canonical object (`prefix`, `header`, records).
pub fn from_str_with_contract<'de, T>(s: &'de str, contract: &Contract) -> Result<T>
where
    T: de::Deserialize<'de>,
{
    let mut de = Deserializer::new(s, contract);
    let value = T::deserialize(&mut de);
    de.end(value)
}

/// What a lenient typed read gives: the document type built from the valid
/// records, and the account of every line (see [`from_str_lenient`]).
#[derive(Debug, Clone)]
pub struct Lenient<T> {
    /// The document with its valid records, in line order; `None` when no
    /// value could be built: no header line (E01), a header the engine
    /// found broken (E03, E12, an `n` that no count can equal) whose
    /// values the type needs, or a header value the Rust type refuses.
    pub value: Option<T>,
    /// The account of the read, as [`crate::parse_lenient`] gives it
    /// (`declared_n`, `valid_lines`, `invalid_lines`, `missing_records`,
    /// `truncated`, every error), plus any value of a valid line that the
    /// Rust type refused (E06/E13 with its serde path): that line is then
    /// counted invalid and its record left out.
    pub report: ParseReport,
}

/// The lenient form of [`from_str`]: instead of all or nothing, the
/// document type with its valid records, plus every diagnostic. A model's
/// answer cut after three good records gives those three records and the
/// account of what is missing (`missing_records`, `truncated`).
///
/// The document is checked once by the engine, as [`crate::parse_lenient`]
/// does, and then read into `T` with its invalid lines skipped (so `T`
/// sees a document of valid records only; the header's `n` still counts
/// the lines the model wrote). Default [`Limits`] apply: a breach, or
/// invalid UTF-8, is the `Err`. Reading costs about two passes over the
/// text.
///
/// ```
/// use serde::Deserialize;
///
/// #[derive(Debug, Deserialize, mini::Mini)]
/// #[mini(prefix = "todo", records = "tasks")]
/// struct Todos {
///     tasks: Vec<Task>,
/// }
///
/// #[derive(Debug, Deserialize, mini::Mini)]
/// struct Task {
///     title: String,
///     done: bool,
/// }
///
/// // the answer was cut: n=4, two good lines, one broken, one missing
/// let got = mini::from_str_lenient::<Todos>("todo|n=4\nbuy milk|false\nwrite docs|maybe\ncall mom|true").unwrap();
/// let todos = got.value.expect("the header was read");
/// assert_eq!(todos.tasks.len(), 2);
/// assert_eq!(todos.tasks[1].title, "call mom");
/// assert_eq!(got.report.invalid_lines, [3]);
/// assert_eq!(got.report.missing_records, Some(1));
/// assert_eq!(got.report.truncated, Some(true));
/// ```
pub fn from_str_lenient<'de, T>(s: &'de str) -> Result<Lenient<T>>
where
    T: de::Deserialize<'de> + MiniDocument,
{
    let contract = T::cached_contract()?;
    read_lenient(s, &contract, Limits::default(), true)
}

/// [`from_str_lenient`] under a contract loaded at run time (any
/// `Deserialize` type shaped like the canonical object, as
/// [`from_str_with_contract`]).
pub fn from_str_lenient_with_contract<'de, T>(
    s: &'de str,
    contract: &Contract,
) -> Result<Lenient<T>>
where
    T: de::Deserialize<'de>,
{
    read_lenient(s, contract, Limits::default(), false)
}

/// `own`: `contract` is `T`'s own (its reading hint applies, ADR 0032).
fn read_lenient<'de, T>(
    s: &'de str,
    contract: &Contract,
    limits: Limits,
    own: bool,
) -> Result<Lenient<T>>
where
    T: de::Deserialize<'de>,
{
    let mut report = crate::value::parse_lenient_with_limits(s, contract, &limits)?.diagnostics();
    if report.prefix.is_none() {
        // no header line (E01): nothing to build
        return Ok(Lenient {
            value: None,
            report,
        });
    }
    let mut skip = report.invalid_lines.clone();
    loop {
        let mut de = Deserializer::with_limits(s, contract, limits);
        if own {
            de.own_type();
        }
        de.skip = skip.clone();
        let e = match T::deserialize(&mut de) {
            Ok(v) => {
                return Ok(Lenient {
                    value: Some(v),
                    report,
                })
            }
            Err(e) => e,
        };
        if e.is_stopped() {
            // the header is broken: the engine's errors are in the report
            return Ok(Lenient {
                value: None,
                report,
            });
        }
        // a value of a valid line the Rust type refused: that record is
        // left out (its line now invalid) and the document read again
        let line = e.diagnostics().first().map_or(0, Diagnostic::line);
        let record_line = report.valid_lines.contains(&line);
        report.ok = false;
        for d in e.diagnostics() {
            let at = report
                .errors
                .iter()
                .position(|x| x.line() == 0 || x.line() > d.line())
                .unwrap_or(report.errors.len());
            report.errors.insert(at, d.clone());
        }
        if e.diagnostics().is_empty() {
            report
                .errors
                .push(Diagnostic::new(Code::E06, line, None, e.to_string()));
        }
        if !record_line {
            return Ok(Lenient {
                value: None,
                report,
            });
        }
        report.valid_lines.retain(|&l| l != line);
        report.valid_records = report.valid_records.saturating_sub(1);
        let at = report.invalid_lines.partition_point(|&l| l < line);
        report.invalid_lines.insert(at, line);
        skip = report.invalid_lines.clone();
    }
}

/// The old name of [`from_str_with_contract`].
#[deprecated(
    since = "0.1.0",
    note = "renamed `from_str_with_contract` (ADR 0019: a suffix says what the variant adds)"
)]
pub fn from_str_with<'de, T>(s: &'de str, contract: &Contract) -> Result<T>
where
    T: de::Deserialize<'de>,
{
    from_str_with_contract(s, contract)
}

/// Where the deserializer's lines come from.
enum Source<'de> {
    Str(StrLines<'de>),
    Slice(SliceLines<'de>),
}

impl<'de> Source<'de> {
    #[inline(always)]
    fn next_line(&mut self) -> Result<Option<Line<'de>>> {
        match self {
            Source::Str(l) => l.next_line(),
            Source::Slice(l) => l.next_line(),
        }
    }

    /// The bytes not yet read.
    fn left(&self) -> usize {
        match self {
            Source::Str(l) => l.left(),
            Source::Slice(l) => l.left(),
        }
    }
}

/// The `.mini` deserializer over a whole document.
pub struct Deserializer<'de, 'c> {
    contract: &'c Contract,
    lines: Source<'de>,
    /// A read error (a limit, invalid UTF-8): it ends the document.
    read_error: Option<Error>,
    /// The engine's line-by-line state (header, unique values, counts,
    /// errors), shared with `mini::parse` and the streaming reader.
    engine: Engine<'c>,
    /// The engine's buffers, for the lines it checks itself (the header,
    /// and every line from the first that breaks a rule).
    scratch: Scratch<'de>,
    /// The single-pass reader's buffers.
    cursor: Cursor<'de>,
    /// Set once a record line broke a rule or serde refused a value: no
    /// more values are read, the engine checks the rest.
    stopped: bool,
    /// Physical lines left unread, ascending (the invalid lines of a
    /// lenient read, [`from_str_lenient`]).
    skip: Vec<usize>,
}

impl<'de, 'c> Deserializer<'de, 'c> {
    /// A deserializer for `text` under `contract` and the default
    /// [`Limits`]; the header is read now.
    pub fn new(text: &'de str, contract: &'c Contract) -> Self {
        Deserializer::with_limits(text, contract, Limits::default())
    }

    /// A deserializer for `text` under `contract` and `limits`.
    pub fn with_limits(text: &'de str, contract: &'c Contract, limits: Limits) -> Self {
        Deserializer::from_source(Source::Str(StrLines::new(text, limits)), contract)
    }

    fn from_source(lines: Source<'de>, contract: &'c Contract) -> Self {
        let mut de = Deserializer {
            contract,
            lines,
            read_error: None,
            engine: Engine::new(contract),
            scratch: Scratch::check_only(),
            cursor: Cursor::default(),
            stopped: false,
            skip: Vec::new(),
        };
        if let Some(line) = de.next_line() {
            de.engine.check_line(line, &mut de.scratch);
        }
        de
    }

    /// The contract is the deserialized type's own (`T::cached_contract()`
    /// of a [`MiniDocument`]): the reading hint its derive left applies
    /// (ADR 0032). A contract handed in by a caller may be another type's.
    fn own_type(&mut self) {
        self.cursor.hint = self.contract.read_hint();
    }

    /// The next significant line; a read error is kept and ends the lines.
    #[inline(always)]
    fn next_line(&mut self) -> Option<Line<'de>> {
        if self.read_error.is_some() {
            return None;
        }
        loop {
            match self.lines.next_line() {
                Ok(Some(line)) if self.skip.binary_search(&line.number).is_ok() => continue,
                Ok(line) => return line,
                Err(e) => {
                    self.read_error = Some(e);
                    return None;
                }
            }
        }
    }

    /// Reads the next record line with the single-pass reader (the
    /// `cursor` module), handing it to `seed`. At the first line that
    /// breaks a rule (or whose value serde refuses), the engine checks
    /// that line for its diagnostics, and reading stops.
    fn next_record<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        self.next_record_with(|de| seed.deserialize(de))
    }

    /// [`Self::next_record`] with the record built by `read` (serde's
    /// `Deserialize`, or a derived record's direct reader).
    #[inline(always)]
    fn next_record_with<V>(
        &mut self,
        read: impl FnOnce(cursor::LineDe<'_, 'de, '_>) -> Result<V>,
    ) -> Result<Option<V>> {
        if self.stopped {
            return Ok(None);
        }
        let Some(line) = self.next_line() else {
            return Ok(None);
        };
        let result = cursor::read_record_with(
            &mut self.engine,
            &mut self.cursor,
            &mut self.scratch,
            line,
            read,
        );
        if result.is_err() {
            self.stopped = true;
        }
        result.map(Some)
    }

    /// Finishes: the engine checks every line serde did not read, then the
    /// count (E04); `value` is returned only if the document had no error.
    /// An error serde raised on a valid value (a type the contract allows
    /// but the Rust type does not) is reported among the document's
    /// diagnostics, in line order.
    pub fn end<T>(mut self, value: Result<T>) -> Result<T> {
        if let Some(e) = self.read_error.take() {
            return Err(e);
        }
        self.stopped = true;
        if self.engine.has_header() {
            while let Some(line) = self.next_line() {
                self.engine.check_line(line, &mut self.scratch);
            }
        }
        if let Some(e) = self.read_error.take() {
            return Err(e);
        }
        if !self.engine.has_header() {
            // no line at all: the document's one error (E01), which
            // `deserialize_any` already gave
            return match value {
                Err(e) => Err(e),
                Ok(_) => Err(Error::invalid(self.engine.end_errors())),
            };
        }
        let errors = self.engine.end_errors();
        match value {
            Ok(v) if errors.is_empty() => Ok(v),
            Ok(_) => Err(Error::invalid(errors)),
            Err(e) if e.is_stopped() => Err(Error::invalid(errors)),
            Err(e) => Err(merge(errors, e)),
        }
    }
}

impl<'de> Deserializer<'de, '_> {
    /// The document's first error, before any value is read: a read error,
    /// or no header line.
    fn document_start(&mut self) -> Result<()> {
        if let Some(e) = self.read_error.take() {
            return Err(e);
        }
        if !self.engine.has_header() {
            let mut errors = self.engine.take_errors();
            errors.extend(self.engine.document_error());
            return Err(Error::invalid(errors));
        }
        Ok(())
    }

    /// The header's value, handed to `seed`.
    fn header_value<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let header = self.engine.header();
        let line = header.map_or(1, |h| h.line);
        let entries = header.map_or_else(Vec::new, |h| header_items(h, self.contract));
        // a header the engine already found broken (E03, E12, an n no
        // count can equal) is reported by the engine alone: serde's
        // "missing field n" would repeat its E03
        let broken = header.is_some_and(|h| h.n_impossible.is_some())
            || self.engine.errors().iter().any(|d| d.line() == line);
        seed.deserialize(HeaderDe { entries, line }).map_err(|e| {
            if broken {
                Error::stopped()
            } else {
                locate(e, line, None, || "header".to_string())
            }
        })
    }

    /// The header of a document read by its records' direct reader (ADR
    /// 0044), through serde, after the document's first checks (as serde's
    /// path reads it). Not public API.
    #[doc(hidden)]
    pub fn direct_header<H: de::Deserialize<'de>>(&mut self) -> Result<H> {
        self.document_start()?;
        self.header_value(std::marker::PhantomData)
    }

    /// The records of a document, each read by `R`'s direct reader (ADR
    /// 0044), in a vector sized from the header's `n`, capped by what the
    /// input has left (`check::records_to_reserve`). Not public API.
    #[doc(hidden)]
    pub fn direct_records<R: direct::DirectRecord<'de>>(&mut self) -> Result<Vec<R>> {
        let expected = RecordsDe { de: self }.size_hint().unwrap_or(0);
        let mut records = Vec::with_capacity(crate::check::records_to_reserve(
            expected,
            std::mem::size_of::<R>(),
            self.lines.left(),
        ));
        loop {
            // each record is pushed where it is built (a record moved
            // through `Result`s is copied each time: memcpy by the clock,
            // and a store its load cannot forward from, round 25); one the
            // line's later rules refuse is taken back
            let before = records.len();
            let read =
                self.next_record_with(|de| direct::push_direct_record::<R>(de, &mut records));
            match read {
                Ok(Some(())) => {}
                Ok(None) => return Ok(records),
                Err(e) => {
                    records.truncate(before);
                    return Err(e);
                }
            }
        }
    }
}

/// Adds an error serde raised to the engine's diagnostics: located ones go
/// in line order (before the document-level ones, which have line 0);
/// others follow them.
fn merge(mut errors: Vec<Diagnostic>, e: Error) -> Error {
    if e.diagnostics().is_empty() {
        return e.prepend(errors);
    }
    for d in e.diagnostics() {
        let at = errors
            .iter()
            .position(|x| x.line() == 0 || x.line() > d.line())
            .unwrap_or(errors.len());
        errors.insert(at, d.clone());
    }
    Error::invalid(errors)
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.document_start()?;
        visitor.visit_map(DocAccess { de: self, step: 0 })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The document as a map: `prefix`, `header`, then the records key.
struct DocAccess<'a, 'de, 'c> {
    de: &'a mut Deserializer<'de, 'c>,
    step: u8,
}

impl<'de> MapAccess<'de> for DocAccess<'_, 'de, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        let key = match self.step {
            0 => "prefix",
            1 => "header",
            2 => self.de.contract.records_key(),
            _ => return Ok(None),
        };
        seed.deserialize(key.into_deserializer()).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        self.step += 1;
        let header = self.de.engine.header();
        match self.step {
            1 => {
                let prefix = header.map(|h| h.prefix.clone()).unwrap_or_default();
                seed.deserialize(de::value::StringDeserializer::<Error>::new(prefix))
            }
            2 => self.de.header_value(seed),
            _ => seed.deserialize(RecordsDe { de: self.de }),
        }
    }
}

/// A tuple as the map of its present components (as the canonical object
/// has it): `parts` in component order, `None` for an empty optional one,
/// each present part made a deserializer by `de_of`. Shared by the record
/// reader (`field.rs`) and the header's typed values (`checked.rs`).
pub(super) fn visit_components<'de, 'c, P, D, V>(
    comps: &'c [crate::contract::Component],
    parts: impl Iterator<Item = Option<P>>,
    mut de_of: impl FnMut(&'c crate::contract::Component, P) -> D,
    visitor: V,
) -> Result<V::Value>
where
    D: IntoDeserializer<'de, Error>,
    V: Visitor<'de>,
{
    let present = comps
        .iter()
        .zip(parts)
        .filter_map(|(c, p)| p.map(|p| (c.name.as_str(), de_of(c, p))));
    let mut map = de::value::MapDeserializer::new(present);
    let v = visitor.visit_map(&mut map)?;
    map.end()?;
    Ok(v)
}

/// Turns an unlocated serde error into an E06 diagnostic at a line, field
/// and path; located errors pass through. The path is only built for an
/// error that needs it.
pub(crate) fn locate(
    e: Error,
    line: usize,
    field: Option<&str>,
    path: impl FnOnce() -> String,
) -> Error {
    match e.custom_message() {
        Some(m) => Error::invalid(vec![Diagnostic::new(
            Code::E06,
            line,
            field.map(str::to_string),
            m.to_string(),
        )
        .with_path(path())]),
        None => e,
    }
}
