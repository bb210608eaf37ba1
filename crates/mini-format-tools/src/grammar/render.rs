//! Rendering of the IR as GBNF (llama.cpp), Lark (the llguidance dialect)
//! and a single regular expression (Rust `regex` syntax, which is also
//! accepted by Python's `re` for everything emitted here).

use std::fmt::Write;

use super::ir::{Node, Rules};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Gbnf,
    Lark,
    Regex,
}

/// `\xHH`, `\uHHHH` or `\UHHHHHHHH`: the escape spelling the three
/// dialects share.
fn hex_escape(out: &mut String, c: char) {
    let v = c as u32;
    let _ = if v <= 0xFF {
        write!(out, "\\x{v:02X}")
    } else if v <= 0xFFFF {
        write!(out, "\\u{v:04X}")
    } else {
        write!(out, "\\U{v:08X}")
    };
}

/// A character inside `[...]`: ASCII letters and digits as they are, every
/// other character as a hex escape (no class metacharacter can leak).
fn class_char(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        hex_escape(out, c);
    }
}

fn class_body(ranges: &[(char, char)], negated: bool) -> String {
    let mut s = String::from("[");
    if negated {
        s.push('^');
    }
    for &(lo, hi) in ranges {
        class_char(&mut s, lo);
        if hi != lo {
            s.push('-');
            class_char(&mut s, hi);
        }
    }
    s.push(']');
    s
}

/// Characters that must not appear raw in a quoted literal.
fn needs_escape_in_string(c: char) -> bool {
    c.is_control() || (!c.is_ascii() && c.is_whitespace())
}

/// A GBNF string literal.
fn gbnf_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape_in_string(c) => hex_escape(&mut out, c),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Lark string literal (llguidance decodes them as JSON strings).
fn lark_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape_in_string(c) && (c as u32) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A regex literal.
fn regex_string(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
            out.push(c);
        } else if c == ' ' || c.is_ascii_alphanumeric() || c.is_ascii_punctuation() {
            out.push(c);
        } else if c.is_ascii() || needs_escape_in_string(c) {
            hex_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

fn rule_name(rules: &Rules, i: usize, d: Dialect) -> String {
    let name = rules.rules.get(i).map_or("missing", |r| r.0.as_str());
    match d {
        Dialect::Lark if i == 0 => "start".to_string(),
        Dialect::Lark => name.to_ascii_uppercase().replace('-', "_"),
        _ => name.to_string(),
    }
}

struct Renderer<'r> {
    rules: &'r Rules,
    d: Dialect,
    /// Rendered rule bodies, for the regex dialect (references are inlined).
    inlined: Vec<Option<String>>,
}

impl Renderer<'_> {
    /// The node a reference stands for in the regex dialect.
    fn resolve<'n>(&'n self, n: &'n Node) -> &'n Node {
        match (self.d, n) {
            (Dialect::Regex, Node::Ref(i)) => match self.rules.rules.get(*i) {
                Some((_, inner)) => self.resolve(inner),
                None => n,
            },
            _ => n,
        }
    }

    fn open(&self) -> &'static str {
        if self.d == Dialect::Regex {
            "(?:"
        } else {
            "("
        }
    }

    fn group(&mut self, n: &Node) -> String {
        format!("{}{})", self.open(), self.render(n))
    }

    /// Renders `n` so that a postfix operator applies to all of it.
    fn atom(&mut self, n: &Node) -> String {
        let atomic = match self.resolve(n) {
            Node::Class { .. } => true,
            Node::Ref(_) => true, // GBNF / Lark names
            Node::Lit(s) => self.d != Dialect::Regex || s.chars().count() == 1,
            Node::Seq(v) => v.is_empty(),
            Node::Alt(_) | Node::Rep(..) => false,
        };
        if atomic {
            self.render(n)
        } else {
            self.group(n)
        }
    }

    fn render(&mut self, n: &Node) -> String {
        match n {
            Node::Lit(s) => match self.d {
                Dialect::Gbnf => gbnf_string(s),
                Dialect::Lark => lark_string(s),
                Dialect::Regex => regex_string(s),
            },
            Node::Class { ranges, negated } => {
                let body = class_body(ranges, *negated);
                if self.d == Dialect::Lark {
                    format!("/{body}/")
                } else {
                    body
                }
            }
            Node::Seq(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|m| {
                        if matches!(self.resolve(m), Node::Alt(_)) {
                            self.group(m)
                        } else {
                            self.render(m)
                        }
                    })
                    .collect();
                let joiner = if self.d == Dialect::Regex { "" } else { " " };
                parts.join(joiner)
            }
            Node::Alt(items) => {
                let parts: Vec<String> = items.iter().map(|m| self.render(m)).collect();
                let joiner = if self.d == Dialect::Regex { "|" } else { " | " };
                parts.join(joiner)
            }
            Node::Rep(inner, min, max) => {
                let a = self.atom(inner);
                let suffix = match (*min, *max) {
                    (0, Some(1)) => "?".to_string(),
                    (0, None) => "*".to_string(),
                    (1, None) => "+".to_string(),
                    // Lark (Python `lark` and llguidance alike) spells a
                    // counted repetition `x ~ n` / `x ~ m..n`; it has no
                    // `{m,}`, so `x ~ m x*` stands for it
                    (m, Some(n)) if m == n && self.d == Dialect::Lark => format!(" ~ {m}"),
                    (m, Some(n)) if self.d == Dialect::Lark => format!(" ~ {m}..{n}"),
                    (m, None) if self.d == Dialect::Lark => format!(" ~ {m} {a}*"),
                    (m, Some(n)) if m == n => format!("{{{m}}}"),
                    (m, None) => format!("{{{m},}}"),
                    (m, Some(n)) => format!("{{{m},{n}}}"),
                };
                format!("{a}{suffix}")
            }
            Node::Ref(i) => match self.d {
                Dialect::Regex => {
                    if let Some(Some(s)) = self.inlined.get(*i) {
                        return s.clone();
                    }
                    let body = self
                        .rules
                        .rules
                        .get(*i)
                        .map(|r| r.1.clone())
                        .unwrap_or_else(Node::empty);
                    let s = self.render(&body);
                    if let Some(slot) = self.inlined.get_mut(*i) {
                        *slot = Some(s.clone());
                    }
                    s
                }
                d => rule_name(self.rules, *i, d),
            },
        }
    }
}

fn renderer(rules: &Rules, d: Dialect) -> Renderer<'_> {
    Renderer {
        rules,
        d,
        inlined: vec![None; rules.rules.len()],
    }
}

/// GBNF: one `name ::= body` line per rule, `root` first.
pub(crate) fn gbnf(rules: &Rules, header: &str) -> String {
    let mut r = renderer(rules, Dialect::Gbnf);
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    for (i, (_, body)) in rules.rules.iter().enumerate() {
        let name = rule_name(rules, i, Dialect::Gbnf);
        let _ = writeln!(out, "{name} ::= {}", r.render(body));
    }
    out
}

/// Lark (llguidance dialect): `start` is a rule over line lexemes; every
/// other rule is an uppercase terminal, compiled to one regular expression.
pub(crate) fn lark(rules: &Rules, header: &str) -> String {
    let mut r = renderer(rules, Dialect::Lark);
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "// {line}");
    }
    for (i, (_, body)) in rules.rules.iter().enumerate() {
        let name = rule_name(rules, i, Dialect::Lark);
        let _ = writeln!(out, "{name}: {}", r.render(body));
    }
    out
}

/// One regular expression for the whole document (unanchored: the caller
/// anchors it, or uses a full-match API).
pub(crate) fn regex(rules: &Rules) -> String {
    let mut r = renderer(rules, Dialect::Regex);
    let root = rules
        .rules
        .first()
        .map(|r| r.1.clone())
        .unwrap_or_else(Node::empty);
    r.render(&root)
}

#[cfg(test)]
mod tests {
    use super::super::ir::*;
    use super::*;

    fn rules_of(root: Node) -> Rules {
        let mut r = Rules::default();
        let i = r.reserve("root");
        r.set(i, root);
        r
    }

    #[test]
    fn precedence_and_escaping() {
        let mut r = rules_of(Node::empty());
        let x = r.define("x", alt(vec![lit("a|b"), one_of(&['-', '/'])]));
        r.set(
            0,
            seq(vec![star(x), rep(lit("\"\\"), 2, Some(3)), ch('\n')]),
        );
        assert_eq!(
            gbnf(&r, ""),
            "root ::= x* \"\\\"\\\\\"{2,3} \"\\n\"\nx ::= \"a|b\" | [\\x2D\\x2F]\n"
        );
        assert_eq!(
            lark(&r, ""),
            "start: X* \"\\\"\\\\\" ~ 2..3 \"\\n\"\nX: \"a|b\" | /[\\x2D\\x2F]/\n"
        );
        assert_eq!(regex(&r), "(?:a\\|b|[\\x2D\\x2F])*(?:\"\\\\){2,3}\\x0A");
    }

    #[test]
    fn lark_repetitions_use_the_tilde() {
        let mut r = rules_of(Node::empty());
        let x = r.define("x", lit("a"));
        r.set(
            0,
            seq(vec![
                rep(x.clone(), 3, Some(3)),
                rep(x.clone(), 0, Some(4)),
                rep(x, 2, None),
            ]),
        );
        assert_eq!(lark(&r, ""), "start: X ~ 3 X ~ 0..4 X ~ 2 X*\nX: \"a\"\n");
        assert_eq!(gbnf(&r, ""), "root ::= x{3} x{0,4} x{2,}\nx ::= \"a\"\n");
    }
}
