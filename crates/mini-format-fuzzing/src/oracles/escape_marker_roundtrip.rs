//! `escape_marker_roundtrip`: escapes and markers always read back.

use crate::*;
use std::collections::BTreeSet;
use std::sync::OnceLock;

use arbitrary::Arbitrary;
use serde_json::{json, Value};

use mini::contract::Contract;
use mini::value::{self, equivalent};
use mini::Code;

// ---------------------------------------------------------------------------
// escape_marker_roundtrip
// ---------------------------------------------------------------------------

/// One element of the marked list of [`EscapeInput`].
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct Marked {
    /// The element.
    pub text: Text,
    /// Whether it carries the marker.
    pub selected: bool,
}

impl Encode for Marked {
    fn encode(&self, w: &mut SeedWriter) {
        self.text.encode(w);
        self.selected.encode(w);
    }
}

/// The input of [`escape_marker_roundtrip`]: strings biased to the
/// characters `.mini` escapes, placed in every position.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct EscapeInput {
    /// The contract's list separator.
    pub separator: Separator,
    /// The marker rule of the marked list.
    pub rule: Rule,
    /// A declared `str` header key (`h`).
    pub header: Text,
    /// The scalar field `s`.
    pub scalar: Text,
    /// The plain list `l` (also written as the header list `hl`).
    pub list: Seq<Text>,
    /// The marked list `m` and its markers.
    pub marked: Seq<Marked>,
    /// Tuple component `a` (required).
    pub tuple_a: Text,
    /// Tuple component `b` (optional: `None` is null).
    pub tuple_b: Option<Text>,
    /// Bits choosing the hand-written spelling (quotes or escapes, where
    /// the marker goes, padding, `""` or `\"`).
    pub style: u64,
}

impl Encode for EscapeInput {
    fn encode(&self, w: &mut SeedWriter) {
        self.separator.encode(w);
        self.rule.encode(w);
        self.header.encode(w);
        self.scalar.encode(w);
        self.list.encode(w);
        self.marked.encode(w);
        self.tuple_a.encode(w);
        self.tuple_b.encode(w);
        w.u64(self.style);
    }
}

pub(crate) fn escape_contracts() -> &'static [Contract] {
    static CONTRACTS: OnceLock<Vec<Contract>> = OnceLock::new();
    CONTRACTS.get_or_init(|| {
        let mut out = Vec::new();
        for sep in Separator::ALL {
            for rule in Rule::ALL {
                out.push(contract(json!({
                    "prefix": "e",
                    "list_separator": sep.char().to_string(),
                    "header": {"keys": {
                        "h": {"type": "str"},
                        "hl": {"type": "list", "item": "str"}
                    }},
                    "core": [
                        {"name": "s", "type": "str"},
                        {"name": "l", "type": "list", "item": "str"},
                        {"name": "m", "type": "mlist", "item": "str", "marker": rule.name(),
                         "json": {"items": "m", "selected": "sel"}},
                        {"name": "t", "type": "tuple", "items": [
                            {"name": "a", "type": "str"},
                            {"name": "b", "type": "str", "optional": true}]}
                    ]
                })));
            }
        }
        out
    })
}

/// A source of style bits.
pub(crate) struct Style(u64, u32);

impl Style {
    pub(crate) fn bit(&mut self) -> bool {
        let b = self.0 >> (self.1 % 64) & 1 == 1;
        self.1 += 1;
        b
    }
}

/// The escaped spelling of a scalar written from SPEC 1.1 §3.3 on its own,
/// independently of the crate's one-pass escaper (which the round trips
/// check): the backslash first, then `|`, then every line break (CRLF, CR,
/// LF) as `\n`.
pub(crate) fn hand_scalar(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace("\r\n", "\\n")
        .replace(['\r', '\n'], "\\n")
}

/// Writes one list element or tuple component by hand, quoted or with
/// escapes; returns the value it must read back as.
pub(crate) fn hand_element(
    out: &mut String,
    text: &str,
    sep: char,
    marked: bool,
    st: &mut Style,
) -> String {
    if st.bit() {
        out.push(' ');
    }
    let quoted = text.is_empty() || !survives(text) || st.bit();
    let value;
    if quoted {
        // "…": `""` or `\"` for a quote, raw CR, `\n` for LF, `\|`, `\\`,
        // the separator and `*` literal (or escaped), a final `*` escaped.
        out.push('"');
        let chars: Vec<char> = text.chars().collect();
        for (i, &c) in chars.iter().enumerate() {
            match c {
                '"' if st.bit() => out.push_str("\\\""),
                '"' => out.push_str("\"\""),
                '\\' => out.push_str("\\\\"),
                '|' => out.push_str("\\|"),
                '\n' => out.push_str("\\n"),
                '*' if i + 1 == chars.len() => out.push_str("\\*"),
                c if (c == sep || c == ',' || c == '*') && st.bit() => {
                    out.push('\\');
                    out.push(c);
                }
                c => out.push(c),
            }
        }
        let inside = marked && st.bit();
        if inside {
            out.push('*');
        }
        out.push('"');
        if marked && (!inside || st.bit()) {
            if st.bit() {
                out.push(' ');
            }
            out.push('*');
        }
        value = text.to_string();
    } else {
        // bare: `\<sep>`, a leading `\"`, a final `\*`, `\|`, `\\`, `\n`.
        let mut chars = text.chars().peekable();
        let mut first = true;
        while let Some(c) = chars.next() {
            let last = chars.peek().is_none();
            match c {
                '\\' => out.push_str("\\\\"),
                '|' => out.push_str("\\|"),
                '\n' => out.push_str("\\n"),
                '\r' => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    out.push_str("\\n");
                }
                '"' if first || st.bit() => out.push_str("\\\""),
                '*' if last || st.bit() => out.push_str("\\*"),
                c if c == sep => {
                    out.push('\\');
                    out.push(c);
                }
                ',' if st.bit() => out.push_str("\\,"),
                c => out.push(c),
            }
            first = false;
        }
        if marked {
            if st.bit() {
                out.push(' ');
            }
            out.push('*');
        }
        value = breaks_normalized(text);
    }
    if st.bit() {
        out.push(' ');
    }
    value
}

/// Escapes and markers in every position of a record: scalar fields, list
/// elements, marked elements (selected or not), tuple components, header
/// values and header lists.
///
/// 1. **Serializer.** The canonical object is built and written with
///    `dumps`. Values it cannot carry must be refused with the parser's
///    code, on the right field: outer whitespace (other than a TAB
///    separator, written `\<TAB>`) and empty scalars or components are E06
///    (ADR 0004), a selection that breaks the marker
///    rule (or is several indices under a single-index rule) is E08.
///    Anything else must be written, parse back strictly to an equivalent
///    object (line breaks read back as LF), and be a fixed point of
///    `dumps ∘ parse`.
/// 2. **Hand spelling.** The same values are written by hand, every list
///    element and component either quoted (`"a, b"*`, `"x*"`, `""` or `\"`
///    for quotes, raw CR, padding blanks, markers inside or after the
///    quotes) or bare with escapes, chosen by [`EscapeInput::style`];
///    values with outer whitespace or empty are always quoted, and header
///    list elements get stray markers (ignored there). The document must
///    parse strictly to exactly those values (quoted text keeps its outer
///    whitespace and raw CR), or fail with E08 alone when the markers break
///    the rule.
pub fn escape_marker_roundtrip(input: &EscapeInput) {
    let sep = input.separator.char();
    let rule = input.rule;
    let c = &escape_contracts()[input.separator.index() * 4 + rule as usize];
    let h = input.header.string();
    let s = input.scalar.string();
    let list: Vec<String> = input.list.0.iter().map(Text::string).collect();
    let items: Vec<String> = input.marked.0.iter().map(|m| m.text.string()).collect();
    let marks: Vec<usize> = (0..items.len())
        .filter(|&i| input.marked.0[i].selected)
        .collect();
    let a = input.tuple_a.string();
    let b = input.tuple_b.as_ref().map(Text::string);

    // 1. the serializer
    let sel = if rule.single() {
        match marks.as_slice() {
            [] => Value::Null,
            [i] => json!(i),
            many => json!(many),
        }
    } else {
        json!(marks)
    };
    let obj = json!({
        "prefix": "e",
        "header": {"h": h, "hl": list},
        "records": [{
            "s": s, "l": list, "m": items, "sel": sel,
            "t": {"a": a, "b": b}
        }]
    });
    let mut expected: Vec<(&str, BTreeSet<Code>)> = Vec::new();
    let e06: BTreeSet<Code> = [Code::E06].into();
    if !writable(&h, sep) {
        expected.push(("h", e06.clone()));
    }
    if !list.iter().all(|x| writable(x, sep)) {
        expected.push(("hl", e06.clone()));
    }
    if s.is_empty() || !writable(&s, sep) {
        expected.push(("s", e06.clone()));
    }
    if !list.iter().all(|x| writable(x, sep)) {
        expected.push(("l", e06.clone()));
    }
    if !rule.allows(marks.len()) || (rule.single() && marks.len() > 1) {
        expected.push(("m", [Code::E08].into()));
    } else if !items.iter().all(|x| writable(x, sep)) {
        expected.push(("m", e06.clone()));
    }
    let b_bad = b
        .as_ref()
        .is_some_and(|b| b.is_empty() || !writable(b, sep));
    if a.is_empty() || !writable(&a, sep) || b_bad {
        expected.push(("t", e06.clone()));
    }
    match mini::dumps(&obj, c) {
        Ok(t) => {
            if !expected.is_empty() {
                fail(format!(
                    "dumps wrote what it must refuse ({expected:?}):\n{t}"
                ));
            }
            let doc = match value::parse(&t, c) {
                Ok(d) => d,
                Err(e) => fail(format!("dumps output does not parse: {e}\n{t}")),
            };
            let want = json!({
                "prefix": "e",
                "header": {"n": 1, "v": 1, "h": breaks_normalized(&h),
                           "hl": list.iter().map(|x| breaks_normalized(x)).collect::<Vec<_>>()},
                "records": [{
                    "s": breaks_normalized(&s),
                    "l": list.iter().map(|x| breaks_normalized(x)).collect::<Vec<_>>(),
                    "m": items.iter().map(|x| breaks_normalized(x)).collect::<Vec<_>>(),
                    "sel": sel,
                    "t": {"a": breaks_normalized(&a), "b": b.as_deref().map(breaks_normalized)}
                }]
            });
            if !equivalent(&doc.to_canonical(), &want) {
                fail(format!(
                    "parse(dumps(o)) differs from o:\n  {}\nvs\n  {want}\ntext:\n{t}",
                    doc.to_canonical()
                ));
            }
            match mini::dumps(&doc.to_canonical(), c) {
                Ok(t2) if t2 == t => {}
                Ok(t2) => fail(format!("dumps ∘ parse not idempotent:\n{t}\nvs\n{t2}")),
                Err(e) => fail(format!("dumps refused its own parsed output: {e}")),
            }
        }
        Err(e) => {
            if expected.is_empty() {
                fail(format!(
                    "dumps refused a writable object: {}\n{obj}",
                    render(e.diagnostics())
                ));
            }
            let got: BTreeSet<&str> = e.diagnostics().iter().filter_map(|d| d.field()).collect();
            let want: BTreeSet<&str> = expected.iter().map(|(f, _)| *f).collect();
            if got != want {
                fail(format!(
                    "dumps refused fields {got:?}, expected {want:?}: {}",
                    render(e.diagnostics())
                ));
            }
            for d in e.diagnostics() {
                let ok = expected
                    .iter()
                    .any(|(f, cs)| Some(*f) == d.field() && cs.contains(&d.code()));
                if !ok {
                    fail(format!("unexpected refusal {d} (expected {expected:?})"));
                }
            }
        }
    }

    // 2. the hand-written spelling
    let mut st = Style(input.style, 0);
    let h2 = if survives(&h) {
        h.clone()
    } else {
        "h".to_string()
    };
    let s2 = if !s.is_empty() && survives(&s) {
        s.clone()
    } else {
        "s".to_string()
    };
    let mut line1 = format!("e|n=1|h={}|hl=", hand_scalar(&h2));
    let mut hl_values = Vec::new();
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            line1.push(sep);
        }
        let stray = st.bit() && st.bit();
        hl_values.push(hand_element(&mut line1, x, sep, stray, &mut st));
    }
    let mut line2 = hand_scalar(&s2);
    line2.push('|');
    let mut l_values = Vec::new();
    for (i, x) in list.iter().enumerate() {
        if i > 0 {
            line2.push(sep);
        }
        l_values.push(hand_element(&mut line2, x, sep, false, &mut st));
    }
    line2.push('|');
    let mut m_values = Vec::new();
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            line2.push(sep);
        }
        m_values.push(hand_element(
            &mut line2,
            x,
            sep,
            marks.contains(&i),
            &mut st,
        ));
    }
    line2.push('|');
    let a2 = if a.is_empty() { "a" } else { a.as_str() };
    let a_value = hand_element(&mut line2, a2, sep, false, &mut st);
    line2.push(sep);
    let b_value = match b.as_deref() {
        None | Some("") => {
            if sep == '\t' || st.bit() {
                line2.push_str("\"\"");
            }
            Value::Null
        }
        Some(b) => Value::String(hand_element(&mut line2, b, sep, false, &mut st)),
    };
    let text = format!("{line1}\n{line2}");
    let quoted_sel = if rule.single() {
        marks.first().map_or(Value::Null, |i| json!(i))
    } else {
        json!(marks)
    };
    let want = json!({
        "prefix": "e",
        "header": {"n": 1, "v": 1, "h": breaks_normalized(&h2), "hl": hl_values},
        "records": [{
            "s": breaks_normalized(&s2), "l": l_values, "m": m_values, "sel": quoted_sel,
            "t": {"a": a_value, "b": b_value}
        }]
    });
    match value::parse(&text, c) {
        Ok(doc) => {
            if !rule.allows(marks.len()) {
                fail(format!(
                    "markers breaking {} were accepted:\n{text}",
                    rule.name()
                ));
            }
            if !equivalent(&doc.to_canonical(), &want) {
                fail(format!(
                    "hand-written spelling reads back differently:\n  {}\nvs\n  {want}\ntext:\n{text}",
                    doc.to_canonical()
                ));
            }
        }
        Err(e) => {
            let only_e08 = e
                .diagnostics()
                .iter()
                .all(|d| d.code() == Code::E08 && d.field() == Some("m"));
            if rule.allows(marks.len()) || !only_e08 {
                fail(format!(
                    "hand-written spelling rejected: {}\ntext:\n{text}",
                    render(e.diagnostics())
                ));
            }
        }
    }
}
