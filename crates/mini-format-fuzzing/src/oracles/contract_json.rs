//! `contract_json`: arbitrary JSON as a contract.json.

use crate::*;

use arbitrary::Unstructured;
use serde_json::{json, Map, Number, Value};

use mini::contract::Contract;
use mini::value::{self};
use mini::Code;

// ---------------------------------------------------------------------------
// contract_json
// ---------------------------------------------------------------------------

/// Words the JSON generator of [`contract_json`] favours for keys and
/// strings: the vocabulary of contract.json.
pub const CONTRACT_WORDS: [&str; 48] = [
    "prefix",
    "version",
    "list_separator",
    "records_key",
    "parent",
    "header",
    "keys",
    "required",
    "core",
    "extensions",
    "name",
    "type",
    "item",
    "item_values",
    "values",
    "min",
    "max",
    "count_key",
    "marker",
    "json",
    "items",
    "selected",
    "optional",
    "unique",
    "default",
    "desc",
    "n",
    "v",
    "k",
    "str",
    "int",
    "float",
    "bool",
    "enum",
    "date",
    "decimal",
    "list",
    "mlist",
    "tuple",
    "exactly_one",
    "at_least_one",
    "at_most_one",
    "any",
    ",",
    ";",
    "\t",
    "2024-02-29",
    "prefix-1",
];

/// Builds a `serde_json::Value` from fuzzer bytes, biased to the shape of a
/// contract.
pub(crate) struct JsonGen<'a> {
    pub(crate) g: Gen<'a>,
    pub(crate) budget: usize,
}

impl JsonGen<'_> {
    pub(crate) fn string(&mut self) -> String {
        let i = self.g.byte();
        match CONTRACT_WORDS.get(usize::from(i)) {
            Some(w) => (*w).to_string(),
            None if i < 200 => format!("{}{}", CONTRACT_WORDS[usize::from(i) % 48], i % 3),
            None => self.g.text(),
        }
    }

    pub(crate) fn number(&mut self) -> Value {
        let n = match self.g.byte() % 6 {
            0 => Number::from(i64::from(self.g.byte() % 12) - 2),
            1 => Number::from(u64::from(self.g.word()) << 40),
            2 => Number::from_f64(f64::from(self.g.word() as i16) / 4.0)
                .unwrap_or_else(|| Number::from(0)),
            3 => {
                let texts = [
                    "1e999",
                    "-0",
                    "18446744073709551616",
                    "0.5",
                    "2.0",
                    "-9007199254740993",
                    "1E+2",
                ];
                // without `arbitrary_precision`, serde_json has no number
                // for "1e999" (out of range): a contract cannot hold it
                texts[self.g.below(texts.len())]
                    .parse::<Number>()
                    .unwrap_or_else(|_| Number::from(0))
            }
            _ => Number::from(self.g.byte() % 8),
        };
        Value::Number(n)
    }

    pub(crate) fn value(&mut self, depth: usize) -> Value {
        if self.budget == 0 {
            return Value::Null;
        }
        self.budget -= 1;
        match self.g.byte() % 9 {
            0 => Value::Null,
            1 => Value::Bool(self.g.flag()),
            2 => self.number(),
            3 | 4 => Value::String(self.string()),
            5 | 6 if depth > 0 => {
                let n = self.g.below(5);
                Value::Array((0..n).map(|_| self.value(depth - 1)).collect())
            }
            _ if depth > 0 => self.object(depth - 1),
            _ => Value::String(self.string()),
        }
    }

    pub(crate) fn object(&mut self, depth: usize) -> Value {
        let n = self.g.below(7);
        let mut m = Map::new();
        for _ in 0..n {
            let k = self.string();
            let v = self.value(depth);
            m.insert(k, v);
        }
        Value::Object(m)
    }

    /// A field-like object: mostly the keys a field has.
    pub(crate) fn field(&mut self, depth: usize) -> Value {
        let mut m = Map::new();
        m.insert("name".into(), Value::String(self.string()));
        m.insert("type".into(), Value::String(self.string()));
        for key in [
            "item",
            "values",
            "item_values",
            "min",
            "max",
            "marker",
            "json",
            "count_key",
            "optional",
            "unique",
            "default",
            "items",
        ] {
            if self.g.byte() % 4 != 0 {
                continue;
            }
            let v = match key {
                "values" | "item_values" => {
                    let n = self.g.below(4);
                    Value::Array((0..n).map(|_| Value::String(self.string())).collect())
                }
                "min" | "max" if self.g.flag() => self.number(),
                "json" => json!({"items": self.string(), "selected": self.string()}),
                "items" if depth > 0 => {
                    let n = self.g.below(4);
                    Value::Array((0..n).map(|_| self.field(depth - 1)).collect())
                }
                "optional" | "unique" => Value::Bool(self.g.flag()),
                _ => self.value(depth),
            };
            m.insert(key.into(), v);
        }
        if self.g.byte() % 8 == 0 {
            let k = self.string();
            let v = self.value(depth);
            m.insert(k, v);
        }
        Value::Object(m)
    }

    /// A contract-like object.
    pub(crate) fn contract(&mut self) -> Value {
        let mut m = Map::new();
        m.insert("prefix".into(), Value::String(self.string()));
        if self.g.flag() {
            m.insert("list_separator".into(), Value::String(self.string()));
        }
        if self.g.flag() {
            m.insert("records_key".into(), Value::String(self.string()));
        }
        if self.g.flag() {
            m.insert("version".into(), self.number());
        }
        if self.g.flag() {
            let mut keys = Map::new();
            for _ in 0..self.g.below(4) {
                let k = self.string();
                keys.insert(k, self.field(1));
            }
            let n = self.g.below(3);
            let required: Vec<Value> = (0..n).map(|_| Value::String(self.string())).collect();
            m.insert("header".into(), json!({"keys": keys, "required": required}));
        }
        let n = self.g.below(5);
        m.insert(
            "core".into(),
            Value::Array((0..n).map(|_| self.field(2)).collect()),
        );
        if self.g.flag() {
            let n = self.g.below(3);
            m.insert(
                "extensions".into(),
                Value::Array((0..n).map(|_| self.field(2)).collect()),
            );
        }
        if self.g.byte() % 4 == 0 {
            let k = self.string();
            let v = self.value(3);
            m.insert(k, v);
        }
        Value::Object(m)
    }
}

/// Arbitrary JSON as a contract.json.
///
/// The first byte chooses how the JSON is made: even, the rest is parsed as
/// JSON text (`serde_json`, arbitrary precision, key order kept); odd, a
/// value is generated from the rest, biased to contract keys, types and
/// rules. Asserts that `Contract::from_value` gives a contract or an error
/// made only of E20 diagnostics on line 0 (never a panic), and that a
/// contract keeps its JSON (`to_value`), loads again from its serialized
/// text into an equal contract, parses a header-only document, and that
/// `dumps` of an empty canonical object is accepted by `parse` or refused
/// only with E12 (a required header key missing).
pub fn contract_json(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let raw = if mode & 1 == 0 {
        match serde_json::from_slice::<Value>(rest) {
            Ok(v) => v,
            Err(_) => return,
        }
    } else {
        JsonGen {
            g: Gen {
                u: Unstructured::new(rest),
            },
            budget: 200,
        }
        .contract()
    };
    let c = match Contract::from_value(raw.clone()) {
        Ok(c) => c,
        Err(e) => {
            if e.diagnostics().is_empty() {
                fail(format!("contract error without diagnostics: {e}"));
            }
            for d in e.diagnostics() {
                if d.code() != Code::E20 || d.line() != 0 {
                    fail(format!("a contract error is not E20 on line 0: {d}"));
                }
            }
            return;
        }
    };
    if c.to_value() != &raw {
        fail("to_value is not the JSON the contract was read from");
    }
    let text = match serde_json::to_string(&c) {
        Ok(t) => t,
        Err(e) => fail(format!("a contract does not serialize: {e}")),
    };
    match Contract::from_json(&text) {
        Ok(back) if back == c => {}
        Ok(_) => fail("a contract loaded from its own JSON differs"),
        Err(e) => fail(format!("a contract's own JSON does not load: {e}\n{text}")),
    }
    let doc = value::parse_lenient(&format!("{}|n=0", c.prefix()), &c);
    let _ = doc.diagnostics();
    let _ = doc.to_canonical();
    let empty = json!({"prefix": c.prefix(), "header": {}, c.records_key(): []});
    match mini::dumps(&empty, &c) {
        Ok(t) => {
            if let Err(e) = value::parse(&t, &c) {
                fail(format!("dumps of an empty object does not parse: {e}\n{t}"));
            }
        }
        Err(e) => {
            let needs = c.header_keys().iter().any(|k| k.required && k.name != "n");
            if !needs || codes(e.diagnostics()) != [Code::E12].into() {
                fail(format!("dumps refused an empty object: {e}"));
            }
        }
    }
}
