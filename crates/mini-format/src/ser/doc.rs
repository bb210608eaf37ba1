//! The document: two walks over the value. The first reads only the
//! `prefix`, the `header` (its entries are kept, checked and escaped, in a
//! small buffer) and the records' length (`n`), without visiting the
//! records (it counts them only when their sequence has no length). The
//! second writes the header line when the records begin, then each record
//! as it comes.

use serde::Serialize;
use serde_json::Value;

use crate::check::{document_errors, HeaderInfo};
use crate::contract::Contract;
use crate::error::{Code, Diagnostic, Error, Result};

use super::compound::TupleScratch;
use super::enc::Enc;
use super::enc::Rec;
use super::fast::derived::RecordsOut;
use super::header::HeaderSink;
use super::out::Out;
use super::record::RecordsSink;
use super::report::{merge, phase, Claims};
use super::sink::{Abort, Keyed, Keys, Leaf, Ser, Sink, Skip, R};

/// Writes `value` (shaped like the canonical object) under `contract`:
/// the text, or every error in the parser's order. With a writer, the text
/// goes to it and the `String` returned is empty.
/// `direct`: the records' derived writer, when the value is a derived
/// document under its own contract (ADR 0047).
pub(super) fn encode<'c, T: Serialize + ?Sized>(
    value: &T,
    contract: &'c Contract,
    writer: Option<&'c mut (dyn std::io::Write + 'c)>,
    direct: Option<DirectRecords<T>>,
) -> Result<String> {
    let mut enc = Enc {
        c: contract,
        sep: contract.separator(),
        out: Out::new(writer),
        refusals: Vec::new(),
        found: Vec::new(),
        head: Vec::new(),
        info: HeaderInfo::default(),
        header_written: false,
        records_seen: false,
        records_done: false,
        n: 0,
        records: 0,
        record_lines: 0,
        last_note: None,
        claims: Claims::new(contract),
        arity_ok: vec![super::leaf::Interval::NONE; contract.fields().len()],
        rec: Rec::new(contract),
        tup: TupleScratch::default(),
        fast: super::enc::Fast::new(contract),
    };
    match run(value, &mut enc, direct) {
        Ok(()) => enc.finish(),
        Err(Abort::NotObject(t)) => Err(Error::invalid(vec![Diagnostic::new(
            Code::E06,
            0,
            None,
            format!("a canonical object is a JSON object, got {t}"),
        )])),
        Err(Abort::Io(e)) => Err(e.into()),
        Err(Abort::Custom(m)) => Err(Error::message(m)),
        Err(Abort::Len(_)) => Err(Error::message("the records' length was not read")),
    }
}

/// A document's records written by their derived writer (the document's
/// `Mini::__write_records`).
pub(super) type DirectRecords<T> = fn(&T, &mut RecordsOut<'_, '_>);

fn run<T: Serialize + ?Sized>(value: &T, enc: &mut Enc<'_>, direct: Option<DirectRecords<T>>) -> R {
    value.serialize(Ser(DocSink {
        enc: &mut *enc,
        probe: true,
    }))?;
    if !enc.records_seen {
        let rk = enc.c.records_key();
        enc.refuse(
            phase::RECORDS,
            Diagnostic::new(
                Code::E06,
                0,
                Some(rk.to_string()),
                format!("the object has no '{rk}' array"),
            ),
        );
    }
    enc.claims.reserve(enc.c, enc.n as u64);
    // the second walk writes only the records: their derived writer, when
    // it runs, is all of it
    if let Some(write) = direct.filter(|_| enc.records_seen && !enc.records_done) {
        let mut out = RecordsOut::new(&mut *enc);
        write(value, &mut out);
        if let Some(done) = out.done() {
            enc.records_done = true;
            return done;
        }
    }
    value.serialize(Ser(DocSink { enc, probe: false }))
}

impl Enc<'_> {
    pub(super) fn refuse(&mut self, phase: u8, d: Diagnostic) {
        self.refusals.push((phase, d));
    }

    /// Whether an error was found so far.
    pub(super) fn failing(&self) -> bool {
        !self.refusals.is_empty() || !self.found.is_empty()
    }

    fn finish(mut self) -> Result<String> {
        if !self.header_written {
            // no records array: the header line is the whole text
            self.write_header()
                .map_err(|e| Error::message(e.to_string()))?;
        }
        if self.records_done && self.records != self.n {
            return Err(Error::message(format!(
                "the records sequence gave {} records, not the {} it announced",
                self.records, self.n
            )));
        }
        if let Some((i, note)) = self.last_note.take() {
            if let Some(d) = self.found.get_mut(i) {
                *d = crate::check::with_note(d, &note);
            }
        }
        if let Some(d) = document_errors(Some(&self.info), self.record_lines) {
            self.found.push(d);
        }
        // debug builds (tests, fuzzing): the serializer's own checks find
        // exactly what the engine finds on the whole text (ADR 0023)
        #[cfg(debug_assertions)]
        if self.refusals.is_empty() {
            let text = self.out.text();
            let engine = crate::value::diagnostics(&text, self.c);
            debug_assert_eq!(
                self.found, engine,
                "the per-value checks differ from the engine on:\n{text}"
            );
        }
        let errors = merge(self.refusals, self.found, self.c);
        if !errors.is_empty() {
            return Err(Error::invalid(errors));
        }
        Ok(self.out.finish()?)
    }
}

/// The document: a struct or map with `prefix`, `header` and the records.
struct DocSink<'a, 'c> {
    enc: &'a mut Enc<'c>,
    /// The first walk (prefix, header, length) or the second (records).
    probe: bool,
}

impl<'a, 'c> Sink for DocSink<'a, 'c> {
    type Seq = Skip;
    type Map = Keys<DocKeys<'a, 'c>>;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        Err(Abort::NotObject(leaf.json_type()))
    }
    fn seq(self, _: Option<usize>) -> R<Skip> {
        Err(Abort::NotObject("an array"))
    }
    fn map(self, _: Option<usize>) -> R<Self::Map> {
        Ok(Keys::new(DocKeys {
            enc: self.enc,
            probe: self.probe,
        }))
    }
}

struct DocKeys<'a, 'c> {
    enc: &'a mut Enc<'c>,
    probe: bool,
}

impl Keyed for DocKeys<'_, '_> {
    fn entry<V: Serialize + ?Sized>(&mut self, key: &str, v: &V) -> R {
        let enc = &mut *self.enc;
        let records = key == enc.c.records_key();
        if !self.probe {
            if records && !enc.records_done {
                enc.records_done = true;
                v.serialize(Ser(RecordsSink { enc }))?;
            }
            return Ok(());
        }
        if key == "prefix" {
            enc.prefix(v)?;
        } else if key == "header" {
            v.serialize(Ser(HeaderSink { enc: &mut *enc }))?;
        }
        if records && !enc.records_seen {
            enc.records_seen = true;
            match v.serialize(Ser(LenProbe { enc: &mut *enc })) {
                Ok(()) => {}
                Err(Abort::Len(Some(n))) => enc.n = n,
                Err(Abort::Len(None)) => {
                    // no length: count the records (without visiting them)
                    let mut n = 0;
                    v.serialize(Ser(Counter(&mut n)))?;
                    enc.n = n;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    fn finish(self) -> R {
        Ok(())
    }
}

impl Enc<'_> {
    /// `prefix`: null, or the contract's (E02 otherwise, line 1).
    fn prefix<V: Serialize + ?Sized>(&mut self, v: &V) -> R {
        match serde_json::to_value(v).map_err(|e| Abort::Custom(e.to_string()))? {
            Value::Null => {}
            Value::String(p) if p == self.c.prefix() => {}
            p => self.refuse(
                phase::PREFIX,
                Diagnostic::new(
                    Code::E02,
                    1,
                    None,
                    format!("prefix {p} does not match contract '{}'", self.c.prefix()),
                ),
            ),
        }
        Ok(())
    }
}

/// The records value in the first walk: its length, or why it is no array.
struct LenProbe<'a, 'c> {
    enc: &'a mut Enc<'c>,
}

impl Sink for LenProbe<'_, '_> {
    type Seq = Skip;
    type Map = Skip;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        let rk = self.enc.c.records_key();
        self.enc.refuse(
            phase::RECORDS,
            Diagnostic::new(
                Code::E06,
                0,
                Some(rk.to_string()),
                format!("'{rk}' must be an array, got {}", leaf.json_type()),
            ),
        );
        self.enc.records_done = true;
        Ok(())
    }
    fn seq(self, len: Option<usize>) -> R<Skip> {
        Err(Abort::Len(len))
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        self.leaf(Leaf::Other("an object"))?;
        Ok(Skip)
    }
}

/// Counts a sequence's elements without serializing them.
struct Counter<'a>(&'a mut usize);

impl<'a> Sink for Counter<'a> {
    type Seq = Count<'a>;
    type Map = Skip;
    fn leaf(self, _: Leaf<'_>) -> R {
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Count<'a>> {
        Ok(Count(self.0))
    }
    fn map(self, _: Option<usize>) -> R<Skip> {
        Ok(Skip)
    }
}

struct Count<'a>(&'a mut usize);

impl serde::ser::SerializeSeq for Count<'_> {
    type Ok = ();
    type Error = Abort;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, _: &T) -> R {
        *self.0 += 1;
        Ok(())
    }
    fn end(self) -> R {
        Ok(())
    }
}
