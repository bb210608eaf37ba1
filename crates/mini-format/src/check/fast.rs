//! `mini::check` on the compiled plan (issue 21, ADR 0031): each record
//! line is walked once over the plan's steps, every rule looked up by
//! index (the count key by its slot, resolved once from the header; the
//! unique field by its slot), with the engine's rule functions
//! (`check_atom`, `check_float`, `arity_allows`, `MarkerRule::allows`) and
//! verdicts only: no `FieldValue`, no `Place`, no text built except the
//! unique key, in one reused buffer, probed and inserted with one hash.
//!
//! A line the walk does not accept (any fault, an escape the byte-level
//! splitter leaves to `nom`, more fields than the contract has, a unique
//! clash) is handed to the engine ([`Engine::check_line`]), which reads it
//! again and reports the exact codes, lines, fields and messages, as ADR
//! 0024's single-pass reader does. The header is always the engine's.

use super::record::arity_allows;
use super::*;
use crate::plan::{Plan, StepKind};

/// Validation of one document: the engine, the plan, and the walk's
/// reused buffers.
pub(crate) struct Validator<'c, 'a> {
    engine: Engine<'c>,
    plan: Plan<'c>,
    scratch: Scratch<'a>,
    fields: Vec<RawField<'a>>,
    elements: Vec<Element<'a>>,
    /// The unique key of each unique slot for the line being walked.
    keys: Vec<String>,
    /// The header's count keys, one per plan slot (once the header is read).
    counts: Box<[u64]>,
    /// Whether the walk runs: false before the header, and for a document
    /// whose count keys are not all plain `u64`s or whose unique fields are
    /// not all scalars (the engine then reads every line).
    fast: bool,
    /// Record lines the walk accepted (for the tests).
    walked: usize,
}

impl<'c, 'a> Validator<'c, 'a> {
    pub(crate) fn new(contract: &'c Contract) -> Self {
        let plan = Plan::compile(contract);
        Validator {
            engine: Engine::new(contract),
            keys: vec![String::new(); plan.uniques.len()],
            plan,
            scratch: Scratch::check_only(),
            fields: Vec::new(),
            elements: Vec::new(),
            counts: Box::new([]),
            fast: false,
            walked: 0,
        }
    }

    /// Checks one significant line.
    pub(crate) fn line(&mut self, line: Line<'a>) {
        if self.fast && self.walk(line) {
            self.engine.accepted();
            self.walked += 1;
            return;
        }
        if self.engine.check_line(line, &mut self.scratch) == Checked::Header {
            self.resolve();
        }
    }

    /// Every error of the document (the document-level one last).
    pub(crate) fn finish(self) -> Vec<Diagnostic> {
        self.engine.finish().errors
    }

    /// The header facts the walk reads by slot.
    fn resolve(&mut self) {
        let Some(header) = self.engine.header() else {
            return;
        };
        let counts: Option<Box<[u64]>> = self
            .plan
            .count_keys
            .iter()
            .map(|key| {
                header
                    .counts
                    .iter()
                    .find(|(k, _)| k == key)
                    .and_then(|(_, v)| *v)
            })
            .collect();
        self.fast = self.plan.scalar_uniques && counts.is_some();
        self.counts = counts.unwrap_or_default();
    }

    /// The walk of one record line: true when the line keeps every rule
    /// and its unique keys were claimed (the engine has not seen it).
    fn walk(&mut self, line: Line<'a>) -> bool {
        let plan = &self.plan;
        let sep = plan.sep;
        if !syntax::split_fields_fast(line.text, sep, &mut self.fields) {
            return false;
        }
        let nf = self.fields.len();
        if nf < plan.core || nf > plan.steps.len() {
            return false;
        }
        for (i, step) in plan.steps.iter().enumerate() {
            let Some(raw) = self.fields.get(i) else {
                // an absent extension: its default
                continue;
            };
            if raw.is_empty() {
                if step.optional {
                    if let Some(u) = step.unique {
                        self.keys[usize::from(u)].clear();
                    }
                    continue;
                }
                if !matches!(step.kind, StepKind::List { .. }) {
                    return false;
                }
            }
            let ok = match step.kind {
                StepKind::Str(_) => {
                    if let Some(u) = step.unique {
                        let key = &mut self.keys[usize::from(u)];
                        key.clear();
                        key.push('s');
                        key.push_str(&raw.text(sep));
                    }
                    true
                }
                StepKind::Scalar(s) => match step.unique {
                    None if s.ty == ScalarType::Float => {
                        check_float(raw.text(sep), s, true).is_ok()
                    }
                    None => check_atom(raw.text(sep), s, true).is_ok(),
                    Some(u) => match check_atom(raw.text(sep), s, true) {
                        Ok(a) => {
                            let key = &mut self.keys[usize::from(u)];
                            key.clear();
                            a.unique_key(key);
                            true
                        }
                        Err(_) => false,
                    },
                },
                StepKind::List {
                    item,
                    arity,
                    count,
                    marker,
                } => {
                    if item.ty == ScalarType::Str {
                        // elements not read: counted from the masks when
                        // no element is quoted or marked
                        if let Some(n) = syntax::count_plain_list(raw.raw, sep) {
                            let count = count.map(|c| self.counts[usize::from(c)]);
                            if !arity_allows(n, arity, count) {
                                return false;
                            }
                            if !marker.is_none_or(|rule| rule.allows(0)) {
                                return false;
                            }
                            continue;
                        }
                    }
                    let split = if item.ty == ScalarType::Str {
                        syntax::split_list_unread
                    } else {
                        syntax::split_list
                    };
                    if split(raw.raw, sep, &mut self.elements).is_err() {
                        return false;
                    }
                    let count = count.map(|c| self.counts[usize::from(c)]);
                    if !arity_allows(self.elements.len(), arity, count) {
                        return false;
                    }
                    let mut marked = 0;
                    for e in self.elements.drain(..) {
                        marked += usize::from(e.marked);
                        if item.ty != ScalarType::Str
                            && (e.text.is_empty() || check_atom(e.text, item, false).is_err())
                        {
                            return false;
                        }
                    }
                    match marker {
                        Some(rule) => rule.allows(marked),
                        None => marked == 0,
                    }
                }
                StepKind::Tuple(comps) => {
                    if syntax::split_list(raw.raw, sep, &mut self.elements).is_err()
                        || self.elements.len() != comps.len()
                    {
                        return false;
                    }
                    comps.iter().zip(self.elements.drain(..)).all(|(c, e)| {
                        if e.marked {
                            return false;
                        }
                        if e.text.is_empty() {
                            return c.optional;
                        }
                        if c.scalar.ty == ScalarType::Float {
                            check_float(e.text, &c.scalar, true).is_ok()
                        } else {
                            check_atom(e.text, &c.scalar, true).is_ok()
                        }
                    })
                }
            };
            if !ok {
                return false;
            }
        }
        if plan.uniques.is_empty() {
            return true;
        }
        // one probe per unique key (a clash: the engine reports it)
        let (uniques, keys, fields) = (&plan.uniques, &self.keys, &self.fields);
        let claims = uniques
            .iter()
            .zip(keys)
            .filter(|(&f, _)| fields.get(f).is_some_and(|r| !r.is_empty()))
            .map(|(&f, k)| (f, k.as_str()));
        self.engine.uniques.claim_all(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The oracle: the walk gives exactly the engine's diagnostics.
    fn same(text: &str, contract: &Contract) -> usize {
        let mut engine = Engine::new(contract);
        let mut scratch = Scratch::check_only();
        for line in crate::read::lines(text) {
            engine.check_line(line, &mut scratch);
        }
        let want = engine.finish().errors;
        let mut v = Validator::new(contract);
        for line in crate::read::lines(text) {
            v.line(line);
        }
        let walked = v.walked;
        assert_eq!(v.finish(), want, "{text}");
        walked
    }

    #[test]
    fn the_walk_reports_what_the_engine_reports() {
        let c = Contract::from_json(
            r#"{"prefix": "q", "header": {"keys": {"k": {"type": "int"}}},
                "core": [
                  {"name": "id", "type": "str", "unique": true},
                  {"name": "o", "type": "mlist", "count_key": "k", "min": 2, "max": 4,
                   "json": {"items": "o", "selected": "a"}},
                  {"name": "l", "type": "int", "min": 1, "max": 5},
                  {"name": "e", "type": "enum", "values": ["x", "y"]},
                  {"name": "t", "type": "list", "item": "int", "max": 3},
                  {"name": "p", "type": "tuple", "items": [
                    {"name": "a", "type": "float"},
                    {"name": "b", "type": "float", "min": -4, "max": 4, "optional": true}]}
                ],
                "extensions": [{"name": "u", "type": "int", "unique": true}]}"#,
        )
        .unwrap();
        let good = "q|n=3|k=3\na|r,g*,b|1|x|1,2|0.5,1\nb\\|c|r*,g,b|5|y||1,\nc|r,g,b*|3|x|3|1,-4|7";
        assert_eq!(same(good, &c), 3, "every valid line is walked");
        for bad in [
            "q|n=2|k=3\na|r,g*,b|1|x|1,2|0.5,1\na|r*,g,b|5|y||1,",
            "q|n=2|k=3\na|r,g*,b|1|x|1,2|0.5,1|4\nb|r*,g,b|5|y||1,|4",
            "q|n=1|k=3\na|r,g*|1|x|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b*|1|x|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|6|x|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|z|1,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2*|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,,2|0.5,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|0.5,9",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|0.5",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|,1",
            "q|n=1|k=3\na|r,g*,b|1|x|1,2|0.5,1|1|extra",
            "q|n=1|k=3\na|r,g*,b|1|x",
            "q|n=1|k=3\n|r,g*,b|1|x|1,2|0.5,1",
            "q|n=1|k=3\na\\q|r,g*,b|1|x|1,2|0.5,1",
            "q|n=1|k=x\na|r,g*,b|1|x|1,2|0.5,1",
            "q|n=2|k=3\na|r,g*,b|1|x|1,2|0.5,1",
        ] {
            same(bad, &c);
        }
        // every one-byte edit of the valid document (a deletion, or one of
        // the structural characters in its place): the same diagnostics
        let chars = ['|', ',', '*', '\\', '"', ' ', 'x', '0', '-', '9', '.', 'n'];
        for (at, _) in good.char_indices() {
            let mut cut = good.to_string();
            cut.remove(at);
            same(&cut, &c);
            for ch in chars {
                let mut edit = good.to_string();
                edit.replace_range(at..at + 1, ch.encode_utf8(&mut [0; 4]));
                same(&edit, &c);
            }
        }
    }
}
