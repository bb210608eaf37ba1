//! `mini_format._native`: the thin native layer of the Python package
//! `mini_format` (issue 19, ADR 0028).
//!
//! Everything here calls the public API of `mini` (the core) and
//! `mini_tools`; the Python API (`Contract`, `parse`, `Reader`, the error
//! classes, …) is written in Python on top of it (`python/mini_format/`).
//! Values cross as Python objects: ints of any size stay exact (this crate
//! builds the core with `arbitrary_precision`), floats are Python floats
//! (the shortest round-trip digits going back), dicts keep their key order.
//!
//! The workflow (`mini_tools::workflow`) runs with the GIL released
//! ([`Python::detach`]); each model call takes it again
//! ([`Python::attach`]) to call the Python callable, whose exception is kept
//! (handed back to the Python layer) and becomes the run's model failure.
//!
//! No Rust panic reaches Python as a crash or as PyO3's `PanicException`:
//! every entry point runs inside [`guard`], which turns a panic into a
//! `RuntimeError` naming it as a bug.
//!
//! `unsafe` is forbidden in this crate's own code. The code that PyO3's
//! macros expand to lives behind the macros' own `#[allow]`s; none of it is
//! written here.
#![forbid(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

use mini::contract::{check_fork, Field, HeaderKey, Kind};
use mini::{Contract, Diagnostic, PushOptions, PushParser, Registry};
use mini_tools::prompt::Lang;
use mini_tools::workflow::{
    Failure, ModelReply, ModelRequest, Outcome, Usage, Workflow, WorkflowError,
};
use pyo3::exceptions::{PyException, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Number, Value};

pyo3::create_exception!(
    _native,
    NativeError,
    PyException,
    "An error of the engine: args are (message, kind, diagnostics), where kind is \
     'invalid', 'utf8', 'limit', 'io' or 'other' and diagnostics a list of \
     (code, line, field or None, message) tuples. The Python layer turns it into \
     MiniError / MiniValidationError / OSError / ValueError."
);

/// How deep a Python value may nest on its way to JSON (a self-containing
/// list would otherwise recurse forever).
const MAX_DEPTH: usize = 256;

/// Runs `f`, turning a Rust panic into a `RuntimeError`.
fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(PyRuntimeError::new_err(format!(
                "internal error in mini-format's engine (please report it): {what}"
            )))
        }
    }
}

type DiagTuple = (String, usize, Option<String>, String);

fn diag(d: &Diagnostic) -> DiagTuple {
    (
        d.code().as_str().to_string(),
        d.line(),
        d.field().map(str::to_string),
        d.message().to_string(),
    )
}

fn diags(ds: &[Diagnostic]) -> Vec<DiagTuple> {
    ds.iter().map(diag).collect()
}

/// The engine's error as a `NativeError(message, kind, diagnostics)`.
fn err(e: mini::Error) -> PyErr {
    let kind = if !e.diagnostics().is_empty() {
        "invalid"
    } else if e.is_utf8() {
        "utf8"
    } else if e.limit_exceeded().is_some() {
        "limit"
    } else if e.is_io() {
        "io"
    } else {
        "other"
    };
    NativeError::new_err((e.to_string(), kind, diags(e.diagnostics())))
}

// ---------------------------------------------------------------- values

fn number_to_py<'py>(py: Python<'py>, n: &Number) -> PyResult<Bound<'py, PyAny>> {
    if let Some(i) = n.as_i64() {
        return Ok(i.into_pyobject(py)?.into_any());
    }
    if let Some(u) = n.as_u64() {
        return Ok(u.into_pyobject(py)?.into_any());
    }
    let s = n.to_string();
    if s.contains(['.', 'e', 'E']) {
        let f: f64 = s
            .parse()
            .map_err(|_| PyValueError::new_err(format!("not a number: {s}")))?;
        Ok(PyFloat::new(py, f).into_any())
    } else {
        // an int beyond 64 bits: Python's own int() reads the digits exactly
        py.get_type::<PyInt>().call1((s,))
    }
}

fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => number_to_py(py, n)?,
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(m) => map_to_py(py, m)?.into_any(),
    })
}

fn map_to_py<'py>(py: Python<'py>, m: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, x) in m {
        d.set_item(PyString::new(py, k), to_py(py, x)?)?;
    }
    Ok(d)
}

/// The keys of the records of one document as Python strings, made once:
/// every record has the contract's keys in the same order.
#[derive(Default)]
struct KeyCache<'py> {
    keys: Vec<(String, Bound<'py, PyString>)>,
}

impl<'py> KeyCache<'py> {
    fn record(&mut self, py: Python<'py>, m: &Map<String, Value>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (i, (k, x)) in m.iter().enumerate() {
            let v = to_py(py, x)?;
            match self.keys.get(i) {
                Some((name, key)) if name == k => d.set_item(key, v)?,
                _ => {
                    let key = PyString::new(py, k);
                    d.set_item(&key, v)?;
                    if i == self.keys.len() {
                        self.keys.push((k.clone(), key));
                    }
                }
            }
        }
        Ok(d)
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_string())
}

/// A Python value as JSON: None, bool, int (any size), float (finite), str,
/// dict with str keys (order kept), list or tuple.
fn from_py(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "value nested more than {MAX_DEPTH} levels deep (a list or dict that contains itself?)"
        )));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.is_instance_of::<PyInt>() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        let s = obj.str()?.to_string();
        return s
            .parse::<Number>()
            .map(Value::Number)
            .map_err(|e| PyValueError::new_err(format!("int {s} not representable: {e}")));
    }
    if obj.is_instance_of::<PyFloat>() {
        let f: f64 = obj.extract()?;
        return Number::from_f64(f).map(Value::Number).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{f} has no .mini (JSON) form: only finite floats do"
            ))
        });
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut m = Map::with_capacity(d.len());
        for (k, v) in d.iter() {
            let key = match k.cast::<PyString>() {
                Ok(s) => s.to_cow()?.into_owned(),
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "dict keys must be str, not {}",
                        type_name(&k)
                    )))
                }
            };
            m.insert(key, from_py(&v, depth + 1)?);
        }
        return Ok(Value::Object(m));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|x| from_py(&x, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| from_py(&x, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::Array);
    }
    Err(PyTypeError::new_err(format!(
        "{} is not a JSON value (None, bool, int, float, str, list, tuple or dict)",
        type_name(obj)
    )))
}

// -------------------------------------------------------------- contract

/// A validated contract (the engine's `mini::Contract`).
#[pyclass(frozen, module = "mini_format._native")]
struct NativeContract {
    inner: Arc<Contract>,
}

fn field_info<'py>(py: Python<'py>, f: &Field) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &f.name)?;
    d.set_item("optional", f.optional)?;
    d.set_item("unique", f.unique)?;
    d.set_item("extension", f.extension)?;
    d.set_item("desc", f.desc.as_deref())?;
    d.set_item(
        "default",
        match &f.default {
            Some(v) => to_py(py, v)?,
            None => py.None().into_bound(py),
        },
    )?;
    kind_info(py, &d, &f.kind)?;
    Ok(d)
}

fn header_key_info<'py>(py: Python<'py>, h: &HeaderKey) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", &h.name)?;
    d.set_item("required", h.required)?;
    d.set_item("desc", h.desc.as_deref())?;
    d.set_item(
        "default",
        match &h.default {
            Some(v) => to_py(py, v)?,
            None => py.None().into_bound(py),
        },
    )?;
    kind_info(py, &d, &h.kind)?;
    Ok(d)
}

fn kind_info(py: Python<'_>, d: &Bound<'_, PyDict>, k: &Kind) -> PyResult<()> {
    d.set_item("type", k.type_name())?;
    d.set_item("signature", k.signature())?;
    match k {
        Kind::Scalar(s) => {
            d.set_item("values", s.values.clone())?;
        }
        Kind::List { item, arity } => {
            d.set_item("item", item.ty.name())?;
            d.set_item("item_values", item.values.clone())?;
            d.set_item("count_key", arity.count_key.as_deref())?;
        }
        Kind::MList {
            item,
            arity,
            marker,
            items_key,
            selected_key,
        } => {
            d.set_item("item", item.ty.name())?;
            d.set_item("item_values", item.values.clone())?;
            d.set_item("count_key", arity.count_key.as_deref())?;
            d.set_item("marker", marker.name())?;
            d.set_item("json_items", items_key)?;
            d.set_item("json_selected", selected_key)?;
        }
        Kind::Tuple(parts) => {
            let comps = PyList::empty(py);
            for c in parts {
                let cd = PyDict::new(py);
                cd.set_item("name", &c.name)?;
                cd.set_item("type", c.scalar.ty.name())?;
                cd.set_item("values", c.scalar.values.clone())?;
                cd.set_item("optional", c.optional)?;
                cd.set_item("desc", c.desc.as_deref())?;
                comps.append(cd)?;
            }
            d.set_item("items", comps)?;
        }
    }
    Ok(())
}

#[pymethods]
impl NativeContract {
    /// Validates a contract given as a Python value (a dict); E20 on failure.
    #[staticmethod]
    fn from_obj(obj: &Bound<'_, PyAny>) -> PyResult<NativeContract> {
        guard(|| {
            let v = from_py(obj, 0)?;
            let c = Contract::from_value(v).map_err(err)?;
            Ok(NativeContract { inner: Arc::new(c) })
        })
    }

    /// Validates a contract from its JSON text; E20 on failure.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<NativeContract> {
        guard(|| {
            let c = Contract::from_json(text).map_err(err)?;
            Ok(NativeContract { inner: Arc::new(c) })
        })
    }

    /// The contract as it was read (a dict).
    fn raw<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(|| to_py(py, self.inner.to_value()))
    }

    #[getter]
    fn prefix(&self) -> &str {
        self.inner.prefix()
    }

    #[getter]
    fn version(&self) -> u64 {
        self.inner.version()
    }

    #[getter]
    fn separator(&self) -> String {
        self.inner.separator().to_string()
    }

    #[getter]
    fn records_key(&self) -> &str {
        self.inner.records_key()
    }

    #[getter]
    fn parent(&self) -> Option<&str> {
        self.inner.parent()
    }

    #[getter]
    fn core_len(&self) -> usize {
        self.inner.core().len()
    }

    /// A descriptive key of the contract (`name`, `description`, …).
    fn meta(&self, key: &str) -> Option<&str> {
        self.inner.meta(key)
    }

    /// Every field (core then extensions) as dicts of the engine's model.
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        guard(|| {
            self.inner
                .fields()
                .iter()
                .map(|f| field_info(py, f))
                .collect()
        })
    }

    /// The typed header keys, in canonical order, as dicts.
    fn header_keys<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        guard(|| {
            self.inner
                .header_keys()
                .iter()
                .map(|h| header_key_info(py, h))
                .collect()
        })
    }

    /// The fork invariants of `self` against `parent` (E21 diagnostics).
    fn check_fork_of(&self, parent: &NativeContract) -> PyResult<Vec<DiagTuple>> {
        guard(|| Ok(diags(&check_fork(&self.inner, &parent.inner))))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<NativeContract>() {
            Ok(o) => *self.inner == *o.get().inner,
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.inner.prefix().hash(&mut h);
        h.finish()
    }
}

// ----------------------------------------------------------------- parse

/// The 1-based physical line of the header (the first line that is not
/// blank after the BOM and a CR), 0 without one: the core's rule.
fn header_line_of(text: &str) -> usize {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if !is_blank(line) {
            return i + 1;
        }
    }
    0
}

/// The core's blank line: only whitespace (and the separators U+001C–U+001F).
fn is_blank(line: &str) -> bool {
    line.chars()
        .all(|c| c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c))
}

fn is_blank_bytes(line: &[u8]) -> bool {
    for &b in line {
        if b.is_ascii() {
            if !(b.is_ascii_whitespace() || b == 0x0b || (0x1c..=0x1f).contains(&b)) {
                return false;
            }
        } else {
            return is_blank(&String::from_utf8_lossy(line));
        }
    }
    true
}

/// The summary of a document that the Python `Document` is built from.
fn summary<'py>(
    py: Python<'py>,
    doc: &mini::Document,
    header_line: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let rep = doc.diagnostics();
    d.set_item("prefix", doc.prefix())?;
    d.set_item(
        "header",
        match doc.header() {
            Some(h) => map_to_py(py, h)?.into_any(),
            None => py.None().into_bound(py),
        },
    )?;
    let mut keys = KeyCache::default();
    let mut recs = Vec::with_capacity(doc.records().len());
    let mut lines = Vec::with_capacity(doc.records().len());
    for r in doc.records() {
        recs.push(keys.record(py, &r.value)?);
        lines.push(r.line);
    }
    let records = PyList::new(py, recs)?;
    d.set_item("records", records)?;
    d.set_item("record_lines", lines)?;
    d.set_item("errors", diags(doc.errors()))?;
    d.set_item(
        "header_line",
        if doc.has_header() { header_line } else { 0 },
    )?;
    d.set_item("record_line_count", rep.record_lines)?;
    d.set_item("valid_records", rep.valid_records)?;
    d.set_item("declared_n", rep.declared_n)?;
    d.set_item("missing_records", rep.missing_records)?;
    d.set_item("excess_records", rep.excess_records)?;
    d.set_item("truncated", rep.truncated)?;
    d.set_item("invalid_lines", rep.invalid_lines)?;
    Ok(d)
}

/// Parses `text`: strict (`mini::parse`, errors raised) or lenient
/// (`mini::parse_lenient`, errors in the summary).
#[pyfunction]
fn parse<'py>(
    py: Python<'py>,
    text: &str,
    contract: &NativeContract,
    strict: bool,
) -> PyResult<Bound<'py, PyDict>> {
    guard(|| {
        let c = &contract.inner;
        let doc = if strict {
            mini::parse(text, c).map_err(err)?
        } else {
            mini::parse_lenient(text, c)
        };
        summary(py, &doc, header_line_of(text))
    })
}

/// The serializer: a canonical object (dict) to `.mini` text.
#[pyfunction]
fn dumps(obj: &Bound<'_, PyAny>, contract: &NativeContract) -> PyResult<String> {
    guard(|| {
        let v = from_py(obj, 0)?;
        mini::dumps(&v, &contract.inner).map_err(err)
    })
}

/// The conformance suite's equality of canonical objects
/// (`mini::value::equivalent`).
#[pyfunction]
fn equivalent(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<bool> {
    guard(|| Ok(mini::value::equivalent(&from_py(a, 0)?, &from_py(b, 0)?)))
}

/// The prefix of the first significant line, if any.
#[pyfunction]
fn detect_prefix(text: &str) -> PyResult<Option<String>> {
    guard(|| Ok(mini::detect_prefix(text)))
}

// -------------------------------------------------------------- registry

/// Loads `dir/*/contract.json`: a list of (prefix, path, contract).
#[pyfunction]
fn registry_load(dir: &str) -> PyResult<Vec<(String, Option<String>, NativeContract)>> {
    guard(|| {
        let reg = Registry::load(dir).map_err(err)?;
        Ok(reg
            .iter()
            .map(|c| {
                (
                    c.prefix().to_string(),
                    reg.path(c.prefix()).map(|p| p.display().to_string()),
                    NativeContract {
                        inner: Arc::new(c.clone()),
                    },
                )
            })
            .collect())
    })
}

/// The fork invariants of a set of contracts (`Registry::check_forks`).
#[pyfunction]
fn check_forks(contracts: Vec<PyRef<'_, NativeContract>>) -> PyResult<Vec<DiagTuple>> {
    guard(|| {
        let mut reg = Registry::new();
        for c in &contracts {
            reg.insert((*c.inner).clone()).map_err(err)?;
        }
        Ok(reg
            .check_forks()
            .values()
            .flat_map(|ds| ds.iter().map(diag))
            .collect())
    })
}

// ----------------------------------------------------------- tools: prompt

fn lang_of(code: &str) -> PyResult<Lang> {
    Lang::from_code(code)
        .ok_or_else(|| PyValueError::new_err(format!("lang must be 'en' or 'es', not {code:?}")))
}

/// `mini_tools::prompt::spec_block`.
#[pyfunction]
#[pyo3(signature = (contract, lang, example=None))]
fn spec_block(contract: &NativeContract, lang: &str, example: Option<usize>) -> PyResult<String> {
    guard(|| {
        Ok(mini_tools::prompt::spec_block(
            &contract.inner,
            lang_of(lang)?,
            example,
        ))
    })
}

/// `mini_tools::schema::to_schema`.
#[pyfunction]
fn to_json_schema<'py>(
    py: Python<'py>,
    contract: &NativeContract,
    record_only: bool,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        to_py(
            py,
            &mini_tools::schema::to_schema(&contract.inner, record_only),
        )
    })
}

/// `mini_tools::schema::from_schema`: (contract, warnings).
#[pyfunction]
#[pyo3(signature = (schema, prefix, strict))]
fn from_json_schema(
    schema: &Bound<'_, PyAny>,
    prefix: Option<&str>,
    strict: bool,
) -> PyResult<(NativeContract, Vec<String>)> {
    guard(|| {
        let v = from_py(schema, 0)?;
        let (c, warnings) = mini_tools::schema::from_schema(&v, prefix, strict).map_err(err)?;
        Ok((NativeContract { inner: Arc::new(c) }, warnings))
    })
}

// ------------------------------------------------------------- streaming

type Slot<'a> = Option<PushParser<'a>>;

self_cell::self_cell!(
    /// A push parser and the contract it borrows, owned together.
    struct ParserCell {
        owner: Arc<Contract>,
        #[not_covariant]
        dependent: Slot,
    }
);

struct ReaderState {
    cell: ParserCell,
    contract: Arc<Contract>,
    /// The bytes of the line not yet closed by LF.
    partial: Vec<u8>,
    /// Physical lines closed so far.
    lines: usize,
    /// Significant (not blank) lines closed so far, header included.
    significant: usize,
    /// The header (prefix, header object, line), once its line closed.
    header: Option<(Option<String>, Map<String, Value>, usize)>,
}

impl ReaderState {
    /// Tracks one closed line (the core parses it; this keeps the header
    /// and the counts the Python reader shows while the stream runs).
    fn closed(&mut self, line: &[u8]) {
        self.lines += 1;
        let mut line = line;
        if self.lines == 1 {
            line = line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(line);
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if is_blank_bytes(line) {
            return;
        }
        self.significant += 1;
        if self.header.is_none() {
            let text = String::from_utf8_lossy(line);
            let doc = mini::parse_lenient(&text, &self.contract);
            self.header = Some((
                doc.prefix().map(str::to_string),
                doc.header().cloned().unwrap_or_default(),
                self.lines,
            ));
        }
    }
}

/// The engine's push parser (`mini::PushParser`), lenient, fed bytes.
#[pyclass(module = "mini_format._native")]
struct NativeReader {
    state: Mutex<ReaderState>,
}

fn ended() -> PyErr {
    PyRuntimeError::new_err("mini reader already ended")
}

fn record_tuple<'py>(py: Python<'py>, r: &mini::Record) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(
        py,
        [
            r.line.into_pyobject(py)?.into_any(),
            map_to_py(py, &r.value)?.into_any(),
        ],
    )
}

#[pymethods]
impl NativeReader {
    #[new]
    fn new(contract: &NativeContract, keep_records: bool) -> NativeReader {
        let opts = PushOptions {
            strict: false,
            keep_records,
            ..PushOptions::default()
        };
        let owner = Arc::clone(&contract.inner);
        let cell = ParserCell::new(owner, |c| Some(PushParser::with_options(c, opts)));
        NativeReader {
            state: Mutex::new(ReaderState {
                cell,
                contract: Arc::clone(&contract.inner),
                partial: Vec::new(),
                lines: 0,
                significant: 0,
                header: None,
            }),
        }
    }

    /// Feeds UTF-8 bytes (cut anywhere); returns the (line, record) of the
    /// valid records whose lines closed.
    fn push<'py>(&self, py: Python<'py>, chunk: &[u8]) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        guard(|| {
            let mut st = self
                .state
                .lock()
                .map_err(|_| PyRuntimeError::new_err("reader unusable after an internal error"))?;
            let got = st.cell.with_dependent_mut(|_, slot| match slot {
                Some(p) => p.push(chunk).map_err(err),
                None => Err(ended()),
            })?;
            // the reader's own view of the lines: header and counts
            let mut rest = chunk;
            while let Some(p) = rest.iter().position(|&b| b == b'\n') {
                let mut line = std::mem::take(&mut st.partial);
                line.extend_from_slice(&rest[..p]);
                st.closed(&line);
                rest = &rest[p + 1..];
            }
            st.partial.extend_from_slice(rest);
            got.iter().map(|r| record_tuple(py, r)).collect()
        })
    }

    /// The errors found so far.
    fn errors(&self) -> PyResult<Vec<DiagTuple>> {
        guard(|| {
            let mut st = self
                .state
                .lock()
                .map_err(|_| PyRuntimeError::new_err("reader unusable after an internal error"))?;
            Ok(st.cell.with_dependent_mut(|_, slot| match slot {
                Some(p) => diags(p.errors()),
                None => Vec::new(),
            }))
        })
    }

    /// (prefix, header, line) once the header line closed, else None.
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        guard(|| {
            let st = self
                .state
                .lock()
                .map_err(|_| PyRuntimeError::new_err("reader unusable after an internal error"))?;
            match &st.header {
                None => Ok(None),
                Some((prefix, h, line)) => Ok(Some(PyTuple::new(
                    py,
                    [
                        prefix.into_pyobject(py)?.into_any(),
                        map_to_py(py, h)?.into_any(),
                        line.into_pyobject(py)?.into_any(),
                    ],
                )?)),
            }
        })
    }

    /// (physical lines closed, significant lines closed, pending text).
    fn counts(&self) -> PyResult<(usize, usize, String)> {
        guard(|| {
            let st = self
                .state
                .lock()
                .map_err(|_| PyRuntimeError::new_err("reader unusable after an internal error"))?;
            let valid = match std::str::from_utf8(&st.partial) {
                Ok(s) => s.to_string(),
                Err(e) => String::from_utf8_lossy(&st.partial[..e.valid_up_to()]).into_owned(),
            };
            Ok((st.lines, st.significant, valid))
        })
    }

    /// Ends the stream: the account of `mini::PushParser::end` as a dict.
    fn end<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            let mut st = self
                .state
                .lock()
                .map_err(|_| PyRuntimeError::new_err("reader unusable after an internal error"))?;
            let header_line = match &st.header {
                Some(h) => h.2,
                // an unterminated header line is the next physical line
                None => st.lines + 1,
            };
            let end = st
                .cell
                .with_dependent_mut(|_, slot| slot.take().map(PushParser::end))
                .ok_or_else(ended)?
                .map_err(err)?;
            let d = summary(py, &end.document, header_line)?;
            d.set_item("expected", end.expected)?;
            d.set_item("received", end.received)?;
            d.set_item("valid", end.valid)?;
            d.set_item("missing", end.missing)?;
            d.set_item("excess", end.excess)?;
            d.set_item("terminated", end.last_line_terminated)?;
            d.set_item("complete", end.complete)?;
            d.set_item(
                "incomplete",
                end.incomplete_line
                    .as_ref()
                    .map(|l| (l.line, l.text.clone(), diags(&l.errors))),
            )?;
            d.set_item(
                "last_record",
                match &end.last_record {
                    Some(r) => Some(record_tuple(py, r)?),
                    None => None,
                },
            )?;
            st.partial.clear();
            Ok(d)
        })
    }

    /// Whether `end` was called.
    #[getter]
    fn ended(&self) -> PyResult<bool> {
        let mut st = self
            .state
            .lock()
            .map_err(|_| PyRuntimeError::new_err("reader unusable after an internal error"))?;
        Ok(st.cell.with_dependent_mut(|_, slot| slot.is_none()))
    }
}

// -------------------------------------------------------------- workflow

/// A configured `mini_tools::workflow::Workflow` (the Python `Workflow`
/// builds one per call with that call's rounds and expected count).
#[pyclass(frozen, module = "mini_format._native")]
struct NativeWorkflow {
    inner: Workflow,
}

/// Serde's view of a workflow value (a request, a report) as Python.
fn serde_to_py<'py>(py: Python<'py>, v: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let v = serde_json::to_value(v)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot serialize a workflow value: {e}")))?;
    to_py(py, &v)
}

/// The reply the Python layer hands back for one call: the tuple
/// `(text, cut, usage, details)`, `usage` being `None` or
/// `(prompt_tokens, completion_tokens, total_tokens)` (each `None` when
/// unknown) and `details` `None` or a JSON value.
type ReplyTuple<'py> = (
    String,
    Option<bool>,
    Option<(Option<u64>, Option<u64>, Option<u64>)>,
    Option<Bound<'py, PyAny>>,
);

fn reply_of(obj: &Bound<'_, PyAny>) -> PyResult<ModelReply> {
    let (text, cut, usage, details): ReplyTuple<'_> = obj.extract()?;
    let details = match details {
        Some(d) if !d.is_none() => Some(from_py(&d, 0)?),
        _ => None,
    };
    Ok(ModelReply {
        text,
        cut,
        usage: usage.map(|(p, c, t)| Usage {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: t,
        }),
        details,
    })
}

/// One model call: takes the GIL, calls the Python `model` with the request
/// as a dict and reads its reply. A Python exception (any, `BaseException`
/// included) is kept in `raised` for the Python layer and becomes the
/// model's failure (its text goes into the report).
fn call_model(
    model: &Py<PyAny>,
    req: &ModelRequest,
    raised: &mut Option<PyErr>,
) -> Result<ModelReply, String> {
    if raised.is_some() {
        // the engine stops at a model failure; never call again after one
        return Err("an earlier model call raised".to_string());
    }
    Python::attach(|py| {
        let got = serde_to_py(py, req)
            .and_then(|request| model.bind(py).call1((request,)))
            .and_then(|reply| reply_of(&reply));
        got.map_err(|e| {
            let message = e.to_string();
            *raised = Some(e);
            message
        })
    })
}

fn failure_name(f: &Failure) -> &'static str {
    match f {
        Failure::Config(_) => "config",
        Failure::Model(_) => "model",
        Failure::NoDocument(_) => "no_document",
        Failure::Invalid { .. } => "invalid",
        Failure::Incomplete { .. } => "incomplete",
        Failure::WrongCount(_) => "wrong_count",
        Failure::Decode => "decode",
        _ => "other",
    }
}

/// A run's result as a dict: `ok` true with `value`, `text` and `report`,
/// or `ok` false with `failure`, `message`, `report`, `text`,
/// `diagnostics`, `partial` and `exception` (the Python exception the
/// model raised, or None).
fn run_result<'py>(
    py: Python<'py>,
    result: Result<Outcome<Value>, Box<WorkflowError>>,
    raised: Option<PyErr>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    match result {
        Ok(o) => {
            d.set_item("ok", true)?;
            d.set_item("value", to_py(py, &o.value)?)?;
            d.set_item("text", o.text)?;
            d.set_item("report", serde_to_py(py, &o.report)?)?;
        }
        Err(e) => {
            d.set_item("ok", false)?;
            d.set_item("failure", failure_name(e.failure()))?;
            d.set_item("message", e.to_string())?;
            d.set_item("report", serde_to_py(py, e.report())?)?;
            d.set_item("text", e.text())?;
            d.set_item("diagnostics", diags(e.diagnostics()))?;
            let partial = match e.partial() {
                Some(p) => {
                    let pd = PyDict::new(py);
                    pd.set_item("value", to_py(py, &p.value)?)?;
                    pd.set_item("records", p.records)?;
                    pd.set_item("target", p.target)?;
                    pd.into_any()
                }
                None => py.None().into_bound(py),
            };
            d.set_item("partial", partial)?;
            d.set_item("exception", raised.map(|err| err.into_value(py)))?;
        }
    }
    Ok(d)
}

#[pymethods]
impl NativeWorkflow {
    #[new]
    #[pyo3(signature = (contract, lang, expected_records, max_repairs, max_continuations))]
    fn new(
        contract: &NativeContract,
        lang: &str,
        expected_records: Option<usize>,
        max_repairs: usize,
        max_continuations: usize,
    ) -> PyResult<NativeWorkflow> {
        guard(|| {
            let mut w = Workflow::new((*contract.inner).clone())
                .lang(lang_of(lang)?)
                .max_repairs(max_repairs)
                .max_continuations(max_continuations);
            if let Some(n) = expected_records {
                w = w.expected_records(n);
            }
            Ok(NativeWorkflow { inner: w })
        })
    }

    /// The first request's prompt for `task`.
    fn prompt(&self, task: &str) -> PyResult<String> {
        guard(|| Ok(self.inner.prompt(task)))
    }

    /// The most model calls a run makes.
    #[getter]
    fn max_calls(&self) -> usize {
        self.inner.max_calls()
    }

    /// Runs the workflow with `model(request: dict) -> (text, cut, usage,
    /// details)`. The GIL is released while the engine works and taken
    /// again for each call of `model`.
    fn run<'py>(
        &self,
        py: Python<'py>,
        task: String,
        model: Py<PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            let mut raised: Option<PyErr> = None;
            let wf = &self.inner;
            let result = py.detach(|| {
                wf.run(&task, |req: &ModelRequest| {
                    call_model(&model, req, &mut raised)
                })
            });
            run_result(py, result, raised)
        })
    }

    /// The pipeline on an answer in hand, with no model.
    fn process<'py>(&self, py: Python<'py>, answer: String) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            let wf = &self.inner;
            let result = py.detach(|| wf.process(&answer));
            run_result(py, result, None)
        })
    }
}

/// Whether this build keeps ints beyond 64 bits exact (always true here).
#[pyfunction]
fn arbitrary_precision() -> bool {
    mini::ARBITRARY_PRECISION
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add_class::<NativeContract>()?;
    m.add_class::<NativeReader>()?;
    m.add_class::<NativeWorkflow>()?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(dumps, m)?)?;
    m.add_function(wrap_pyfunction!(equivalent, m)?)?;
    m.add_function(wrap_pyfunction!(detect_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(registry_load, m)?)?;
    m.add_function(wrap_pyfunction!(check_forks, m)?)?;
    m.add_function(wrap_pyfunction!(spec_block, m)?)?;
    m.add_function(wrap_pyfunction!(to_json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(from_json_schema, m)?)?;
    m.add_function(wrap_pyfunction!(arbitrary_precision, m)?)?;
    Ok(())
}
