//! Documents into record batches, one line at a time.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, StringArray, UInt64Array};
use arrow_schema::SchemaRef;
use mini::stream::LineSource;
use mini::{Contract, PushOptions, PushParser};
use serde_json::{Map, Value};

use crate::build::{build, check};
use crate::schema::{columns, Column, From};
use crate::{Diagnostic, Error, Result};

/// How documents are converted.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rows per record batch (at least 1; default 8192). A batch is
    /// emitted as soon as it is full: memory holds one batch of records,
    /// not the input.
    pub batch_size: usize,
    /// Lenient: keep the valid records of invalid documents and return
    /// every problem as a [`Diagnostic`] beside the batches. Strict (the
    /// default): the first problem is an [`Error::Invalid`].
    pub lenient: bool,
    /// Add the `header` and `header_extra` columns (default on).
    pub header: bool,
    /// Add the `source` (document id) and `source_line` columns
    /// (default off).
    pub source: bool,
    /// The core's limits for each document (default: only the line limit
    /// of [`mini::Limits::default`], any number of records and bytes).
    pub limits: mini::Limits,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            batch_size: 8192,
            lenient: false,
            header: true,
            source: false,
            limits: mini::Limits {
                max_input_bytes: usize::MAX,
                max_records: usize::MAX,
                ..mini::Limits::default()
            },
        }
    }
}

/// One document to convert: its id (for the `source` column and the
/// diagnostics) and where its text comes from.
pub struct Input<'a> {
    id: String,
    body: Body<'a>,
}

enum Body<'a> {
    Text(&'a str),
    Reader(Box<dyn Read + 'a>),
    Path(PathBuf),
}

impl<'a> Input<'a> {
    /// A document held in memory.
    pub fn text(id: impl Into<String>, text: &'a str) -> Self {
        Input {
            id: id.into(),
            body: Body::Text(text),
        }
    }

    /// A document read from `reader` (buffered here).
    pub fn reader(id: impl Into<String>, reader: impl Read + 'a) -> Self {
        Input {
            id: id.into(),
            body: Body::Reader(Box::new(reader)),
        }
    }

    /// A file, opened when its turn comes (its id is the path as given).
    pub fn file(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        Input {
            id: path.display().to_string(),
            body: Body::Path(path),
        }
    }

    /// The same input under another id.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }
}

impl<'a> std::convert::From<&'a str> for Input<'a> {
    fn from(text: &'a str) -> Self {
        Input::text("", text)
    }
}

/// The account of a finished conversion.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Documents read.
    pub documents: usize,
    /// Records converted (rows written).
    pub records: usize,
    /// Record batches produced.
    pub batches: usize,
    /// Every problem of a lenient conversion, in input order (empty when
    /// strict: a strict conversion with a problem is an error).
    pub diagnostics: Vec<Diagnostic>,
}

/// Converts documents of one contract to Arrow record batches.
#[derive(Debug, Clone)]
pub struct Converter {
    contract: Contract,
    options: Options,
    columns: Vec<Column>,
    schema: SchemaRef,
}

impl Converter {
    /// A converter for `contract`; fails when the contract has no Arrow
    /// schema ([`Error::Schema`]).
    pub fn new(contract: &Contract, options: Options) -> Result<Self> {
        let schema = Arc::new(crate::schema_with(contract, &options)?);
        Ok(Converter {
            contract: contract.clone(),
            columns: columns(contract, &options)?,
            options,
            schema,
        })
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The contract.
    pub fn contract(&self) -> &Contract {
        &self.contract
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The batches of `inputs`, read lazily in order: an iterator of
    /// `Result<RecordBatch>` (see [`Batches`]).
    pub fn batches<'a, I>(&'a self, inputs: I) -> Batches<'a, I::IntoIter>
    where
        I: IntoIterator<Item = Input<'a>>,
    {
        Batches {
            conv: self,
            inputs: inputs.into_iter(),
            doc: None,
            rows: Vec::new(),
            ready: VecDeque::new(),
            summary: Summary::default(),
            done: false,
        }
    }

    /// Every batch of one document held in memory, with the account.
    pub fn read_str(&self, text: &str) -> Result<(Vec<RecordBatch>, Summary)> {
        let mut batches = self.batches([Input::text("", text)]);
        let all = batches.by_ref().collect::<Result<Vec<_>>>()?;
        Ok((all, batches.into_summary()))
    }

    /// Every batch of one document read from `reader`, with the account.
    pub fn read<R: Read>(&self, reader: R) -> Result<(Vec<RecordBatch>, Summary)> {
        let mut batches = self.batches([Input::reader("", reader)]);
        let all = batches.by_ref().collect::<Result<Vec<_>>>()?;
        Ok((all, batches.into_summary()))
    }
}

/// One row waiting for its batch.
struct Row {
    record: Map<String, Value>,
    header: Option<Rc<Value>>,
    source: Rc<str>,
    line: usize,
}

/// The document being read.
struct Doc<'a> {
    id: Rc<str>,
    lines: LineSource<Box<dyn BufRead + 'a>>,
    parser: PushParser<'a>,
    header: Option<Rc<Value>>,
    errors_seen: usize,
    /// The last physical line read.
    line: usize,
}

/// The record batches of a sequence of documents (from
/// [`Converter::batches`]): each item is a full batch (the last may be
/// shorter) or the error that ended a strict conversion. The diagnostics
/// of a lenient one accumulate beside it: [`Batches::diagnostics`],
/// [`Batches::into_summary`].
pub struct Batches<'a, I> {
    conv: &'a Converter,
    inputs: I,
    doc: Option<Doc<'a>>,
    rows: Vec<Row>,
    ready: VecDeque<Error>,
    summary: Summary,
    done: bool,
}

impl<'a, I: Iterator<Item = Input<'a>>> Batches<'a, I> {
    /// The diagnostics found so far.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.summary.diagnostics
    }

    /// The account so far (complete once the iterator returned `None`).
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The account, with every diagnostic.
    pub fn into_summary(self) -> Summary {
        self.summary
    }

    /// A problem: a diagnostic when lenient, the end of the conversion when
    /// strict.
    fn problem(&mut self, d: Diagnostic) {
        if self.conv.options.lenient {
            self.summary.diagnostics.push(d);
        } else if let Some(Error::Invalid(ds)) = self.ready.back_mut() {
            ds.push(d);
        } else {
            self.ready.push_back(Error::Invalid(vec![d]));
        }
    }

    fn open(&mut self, input: Input<'a>) -> Option<Doc<'a>> {
        let reader: Box<dyn BufRead + 'a> = match input.body {
            Body::Text(t) => Box::new(t.as_bytes()),
            Body::Reader(r) => Box::new(BufReader::with_capacity(1 << 16, r)),
            Body::Path(p) => match std::fs::File::open(&p) {
                Ok(f) => Box::new(BufReader::with_capacity(1 << 16, f)),
                Err(e) => {
                    let e = mini::Error::message(format!("cannot read {}: {e}", p.display()));
                    self.problem(Diagnostic::input(&input.id, 0, &e));
                    return None;
                }
            },
        };
        let opts = PushOptions {
            strict: false,
            keep_records: false,
            limits: self.conv.options.limits,
        };
        Some(Doc {
            id: Rc::from(input.id),
            lines: LineSource::new(reader, self.conv.options.limits),
            parser: PushParser::with_options(&self.conv.contract, opts),
            header: None,
            errors_seen: 0,
            line: 0,
        })
    }

    /// Checks a valid record against the columns and queues it.
    fn record(&mut self, id: &Rc<str>, header: &Option<Rc<Value>>, rec: mini::Record) {
        for c in &self.conv.columns {
            if let From::Record(key) = &c.from {
                if let Err(e) = check(c.field.data_type(), rec.value.get(key)) {
                    self.problem(Diagnostic::column(id, rec.line, key, e));
                    return;
                }
            }
        }
        self.rows.push(Row {
            record: rec.value,
            header: header.clone(),
            source: id.clone(),
            line: rec.line,
        });
    }

    /// Reads the current document until one line has been pushed (or it
    /// ends); false when there is no current document.
    fn step(&mut self) -> bool {
        let Some(mut doc) = self.doc.take() else {
            return false;
        };
        let id = doc.id.clone();
        let (records, ended, failure) = match doc.lines.next_line() {
            Ok(Some(line)) => {
                doc.line = line.number;
                if doc.header.is_none() {
                    if let Some(text) = line.text {
                        // the header's typed values, through the core (the
                        // push parser reports its errors on the same line)
                        let parsed = mini::parse_lenient(text, &self.conv.contract);
                        doc.header = parsed.header().map(|h| Rc::new(Value::Object(h.clone())));
                    }
                }
                match doc.parser.push(line.raw) {
                    Ok(records) => (records, false, None),
                    Err(e) => (Vec::new(), true, Some((doc.line, e))),
                }
            }
            Ok(None) => (Vec::new(), true, None),
            Err(e) => (Vec::new(), true, Some((doc.line + 1, e))),
        };
        let header = doc.header.clone();
        for r in records {
            self.record(&id, &header, r);
        }
        let new: Vec<Diagnostic> = doc.parser.errors()[doc.errors_seen..]
            .iter()
            .map(|d| Diagnostic::engine(&id, d))
            .collect();
        doc.errors_seen += new.len();
        for d in new {
            self.problem(d);
        }
        if !ended {
            self.doc = Some(doc);
            return true;
        }
        if let Some((line, e)) = failure {
            self.problem(Diagnostic::input(&id, line, &e));
        }
        let seen = doc.errors_seen;
        match doc.parser.end() {
            Ok(end) => {
                if let Some(r) = end.last_record {
                    self.record(&id, &header, r);
                }
                let rest: Vec<Diagnostic> = end
                    .document
                    .errors()
                    .get(seen..)
                    .unwrap_or_default()
                    .iter()
                    .map(|d| Diagnostic::engine(&id, d))
                    .collect();
                for d in rest {
                    self.problem(d);
                }
            }
            Err(e) => self.problem(Diagnostic::input(&id, 0, &e)),
        }
        self.summary.documents += 1;
        true
    }

    fn flush(&mut self) -> Result<RecordBatch> {
        let take = self.rows.len().min(self.conv.options.batch_size.max(1));
        let rows: Vec<Row> = self.rows.drain(..take).collect();
        let mut arrays: Vec<ArrayRef> = Vec::with_capacity(self.conv.columns.len());
        for c in &self.conv.columns {
            let dt = c.field.data_type();
            let array = match &c.from {
                From::Record(key) => {
                    let vals: Vec<Option<&Value>> =
                        rows.iter().map(|r| r.record.get(key)).collect();
                    build(dt, &vals)
                }
                From::Header => {
                    let vals: Vec<Option<&Value>> =
                        rows.iter().map(|r| r.header.as_deref()).collect();
                    build(dt, &vals)
                }
                From::HeaderExtra(declared) => {
                    let extra: Vec<Option<Value>> = rows
                        .iter()
                        .map(|r| {
                            let h = r.header.as_deref()?.as_object()?;
                            Some(Value::Object(
                                h.iter()
                                    .filter(|(k, _)| !declared.contains(k))
                                    .map(|(k, v)| (k.clone(), v.clone()))
                                    .collect(),
                            ))
                        })
                        .collect();
                    let vals: Vec<Option<&Value>> = extra.iter().map(Option::as_ref).collect();
                    build(dt, &vals)
                }
                From::Source => Ok(Arc::new(StringArray::from_iter_values(
                    rows.iter().map(|r| &*r.source),
                )) as ArrayRef),
                From::Line => Ok(Arc::new(UInt64Array::from_iter_values(
                    rows.iter().map(|r| r.line as u64),
                )) as ArrayRef),
            }
            .map_err(|message| Error::Schema {
                field: c.field.name().clone(),
                message,
            })?;
            arrays.push(array);
        }
        let batch = RecordBatch::try_new(self.conv.schema.clone(), arrays)?;
        self.summary.records += batch.num_rows();
        self.summary.batches += 1;
        Ok(batch)
    }
}

impl<'a, I: Iterator<Item = Input<'a>>> Iterator for Batches<'a, I> {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(e) = self.ready.pop_front() {
                // strict: the first problem ends the conversion
                self.done = true;
                self.doc = None;
                self.rows.clear();
                return Some(Err(e));
            }
            if self.rows.len() >= self.conv.options.batch_size.max(1) {
                return Some(self.flush());
            }
            if self.done {
                return (!self.rows.is_empty()).then(|| self.flush());
            }
            if self.doc.is_none() {
                match self.inputs.next() {
                    Some(input) => self.doc = self.open(input),
                    None => self.done = true,
                }
                continue;
            }
            self.step();
        }
    }
}
