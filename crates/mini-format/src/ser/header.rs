//! The header: its entries are kept (checked and escaped) in a small
//! buffer by the first walk, and written once, as one line, when the
//! records begin: `n` (the number of records) first, then the contract's
//! keys in its order, then the others in the order given; `v` omitted when
//! it is 1, null values omitted.

use std::borrow::Cow;

use serde::Serialize;

use crate::check::{check_arity, Atom, FieldValue, HeaderValue};
use crate::contract::{is_key, Kind, ScalarType};
use crate::error::{Code, Diagnostic};

use super::compound::{tuple_variant, Found, ListSer, TupleMap, TupleSer};
use super::enc::{Enc, HEntry};
use super::leaf::{e06, push_u64, write_scalar, write_undeclared, At, Memo, Pos};
use super::report::phase;
use super::sink::{Keyed, Keys, Leaf, Or, Ser, Sink, Skip, R};

/// The header value: an object (or null, an empty header).
pub(super) struct HeaderSink<'a, 'c> {
    pub(super) enc: &'a mut Enc<'c>,
}

impl<'a, 'c> Sink for HeaderSink<'a, 'c> {
    type Seq = Skip;
    type Map = Keys<HeaderKeys<'a, 'c>>;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        if !matches!(leaf, Leaf::Null) {
            self.enc.refuse(
                phase::HEADER,
                Diagnostic::new(
                    Code::E06,
                    1,
                    None,
                    format!("the header is an object, got {}", leaf.json_type()),
                ),
            );
        }
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Skip> {
        self.leaf(Leaf::Other("an array"))?;
        Ok(Skip)
    }
    fn map(self, _: Option<usize>) -> R<Self::Map> {
        Ok(Keys::new(HeaderKeys { enc: self.enc }))
    }
}

pub(super) struct HeaderKeys<'a, 'c> {
    enc: &'a mut Enc<'c>,
}

impl Keyed for HeaderKeys<'_, '_> {
    fn entry<V: Serialize + ?Sized>(&mut self, key: &str, v: &V) -> R {
        if key == "n" {
            // recomputed: the number of records
            return Ok(());
        }
        let enc = &mut *self.enc;
        let decl = enc.c.header_keys().iter().position(|h| h.name == key);
        let mut e = HEntry {
            key: key.to_string(),
            decl,
            ..HEntry::default()
        };
        let valid = is_key(key);
        v.serialize(Ser(ValueSink {
            enc: &mut *enc,
            e: &mut e,
            write: valid,
        }))?;
        if !e.cell.set {
            return Ok(());
        }
        if !valid {
            e.cell.refused = Some((Code::E12, format!("'{key}' is not a valid header key")));
        }
        match enc.head.iter_mut().find(|x| x.key == e.key) {
            Some(x) => *x = e,
            None => enc.head.push(e),
        }
        Ok(())
    }
    fn finish(self) -> R {
        Ok(())
    }
}

/// One header value. `cell.set` stays false for a value that is not
/// written at all (null, or `v` equal to 1).
struct ValueSink<'a, 'c> {
    enc: &'a mut Enc<'c>,
    e: &'a mut HEntry,
    /// False for a key that is refused whatever its value.
    write: bool,
}

impl<'a, 'c> Sink for ValueSink<'a, 'c> {
    type Seq = Or<ListSer<'a>>;
    type Map = TupleMap<'a>;
    fn leaf(self, leaf: Leaf<'_>) -> R {
        let e = self.e;
        if matches!(leaf, Leaf::Null) || (e.key == "v" && leaf.is_one()) {
            return Ok(());
        }
        e.cell.set = true;
        if !self.write {
            return Ok(());
        }
        let c = self.enc.c;
        let sep = self.enc.sep;
        match e.decl.map(|i| &c.header_keys()[i].kind) {
            None => {
                if let Err(f) = write_undeclared(&mut e.text, &leaf, sep) {
                    e.cell.refuse(f);
                }
            }
            Some(Kind::Scalar(s)) => {
                let at = At {
                    s,
                    sep,
                    pos: Pos::Field,
                    ranged: true,
                };
                match write_scalar(&mut e.text, &leaf, &at, None, &mut Memo::default()) {
                    Err(f) => e.cell.refuse(f),
                    Ok(w) if w.empty && s.ty != ScalarType::Str => {
                        // the engine's `check_kind` on an empty header value
                        e.cell.found = Some(Found::new((
                            Code::E06,
                            "required value is empty".to_string(),
                        )));
                    }
                    Ok(w) => {
                        e.cell.found = w.found.map(Found::new);
                        if s.ty == ScalarType::Int && e.cell.found.is_none() {
                            e.int = Some(e.text.clone());
                        }
                    }
                }
            }
            Some(Kind::List { .. } | Kind::MList { .. }) => e
                .cell
                .refuse(e06(format!("a list is an array, got {}", leaf.json_type()))),
            Some(Kind::Tuple(_)) => e.cell.refuse(e06(format!(
                "a tuple is an object, got {}",
                leaf.json_type()
            ))),
        }
        Ok(())
    }
    fn seq(self, _: Option<usize>) -> R<Self::Seq> {
        let e = self.e;
        e.cell.set = true;
        let c = self.enc.c;
        match e.decl.map(|i| &c.header_keys()[i].kind) {
            Some(Kind::List { item, .. } | Kind::MList { item, .. }) if self.write => Ok(Or::Go(
                ListSer::new(&mut e.text, item, self.enc.sep, &mut e.cell, false, false),
            )),
            _ => {
                ValueSink {
                    enc: self.enc,
                    e,
                    write: self.write,
                }
                .leaf(Leaf::Other("an array"))?;
                Ok(Or::Skip)
            }
        }
    }
    fn map(self, _: Option<usize>) -> R<Self::Map> {
        let e = self.e;
        e.cell.set = true;
        let c = self.enc.c;
        match e.decl.map(|i| &c.header_keys()[i].kind) {
            Some(Kind::Tuple(comps)) if self.write => Ok(Or::Go(Keys::new(TupleSer::new(
                &mut e.text,
                comps,
                self.enc.sep,
                &mut e.cell,
                &mut self.enc.tup,
                false,
            )))),
            _ => {
                ValueSink {
                    enc: self.enc,
                    e,
                    write: self.write,
                }
                .leaf(Leaf::Other("an object"))?;
                Ok(Or::Skip)
            }
        }
    }
    fn variant(self, variant: &'static str, json_type: &'static str) -> R {
        let e = self.e;
        let c = self.enc.c;
        match e.decl.map(|i| &c.header_keys()[i].kind) {
            Some(Kind::Tuple(comps)) if self.write => {
                e.cell.set = true;
                let t = TupleSer::new(
                    &mut e.text,
                    comps,
                    self.enc.sep,
                    &mut e.cell,
                    &mut self.enc.tup,
                    false,
                );
                tuple_variant(t, variant, json_type)
            }
            _ => ValueSink {
                enc: self.enc,
                e,
                write: self.write,
            }
            .leaf(Leaf::Other("an object")),
        }
    }
}

impl Enc<'_> {
    /// Writes the header line, and reports its entries' refusals and what
    /// the engine would find on it, in the order the keys are written.
    /// Builds the header facts the records are checked against.
    pub(super) fn write_header(&mut self) -> R {
        self.header_written = true;
        let c = self.c;
        let buf = &mut self.out.buf;
        buf.push_str(c.prefix());
        buf.push_str("|n=");
        push_u64(buf, self.n as u64);
        let info = &mut self.info;
        info.prefix = c.prefix().to_string();
        info.line = 1;
        info.version = 1;
        info.n = Some(self.n as u64);
        info.n_present = true;
        info.entries.push((
            "n".to_string(),
            HeaderValue::Typed(FieldValue::Atom(Atom::Int(Cow::Owned(self.n.to_string())))),
        ));
        let keys = c.header_keys();
        let mut order: Vec<usize> = Vec::with_capacity(self.head.len());
        for (d, hk) in keys.iter().enumerate() {
            if hk.name != "n" {
                order.extend(self.head.iter().position(|e| e.decl == Some(d)));
            }
        }
        order.extend((0..self.head.len()).filter(|&i| self.head[i].decl.is_none()));
        let mut written = vec![false; keys.len()];
        for i in order {
            let e = &self.head[i];
            if let Some((code, msg)) = &e.cell.refused {
                let d = Diagnostic::new(*code, 1, Some(e.key.clone()), msg.clone());
                self.refusals.push((phase::HEADER_KEY, d));
                continue;
            }
            let buf = &mut self.out.buf;
            buf.push('|');
            buf.push_str(&e.key);
            buf.push('=');
            buf.push_str(&e.text);
            let Some(d) = e.decl else {
                continue;
            };
            written[d] = true;
            let found = match &keys[d].kind {
                Kind::List { arity, .. } | Kind::MList { arity, .. } => {
                    match check_arity(e.cell.count, arity, &self.info) {
                        Err(v) => Some(Found::new(v)),
                        Ok(()) => e.cell.found.clone(),
                    }
                }
                _ => e.cell.found.clone(),
            };
            match found {
                Some(f) => {
                    let field = match (f.comp, &keys[d].kind) {
                        (Some(k), Kind::Tuple(comps)) => format!("{}.{}", e.key, comps[k].name),
                        _ => e.key.clone(),
                    };
                    self.found
                        .push(Diagnostic::new(f.code, 1, Some(field), f.msg));
                }
                None => {
                    if let Some(int) = &e.int {
                        self.info.entries.push((
                            e.key.clone(),
                            HeaderValue::Typed(FieldValue::Atom(Atom::Int(Cow::Owned(
                                int.clone(),
                            )))),
                        ));
                    }
                }
            }
        }
        for (d, hk) in keys.iter().enumerate() {
            if written[d] || hk.name == "n" {
                continue;
            }
            if hk.required {
                // the engine's `check_header`: a required key not written
                self.found.push(Diagnostic::new(
                    Code::E12,
                    1,
                    Some(hk.name.clone()),
                    format!("required header key '{}' missing", hk.name),
                ));
            } else if let Some(v) = &hk.default {
                self.info
                    .entries
                    .push((hk.name.clone(), HeaderValue::Default(v.clone())));
            }
        }
        let bad = self.failing();
        self.out.end(0, bad)
    }
}
