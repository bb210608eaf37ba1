//! A small grammar IR shared by the three renderers: literals, character
//! classes, sequences, alternations, bounded repetitions and references to
//! named rules. The language it describes is always regular (no rule refers
//! to itself), so the regex renderer can inline every reference.

/// One grammar expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Node {
    /// A literal string (never empty).
    Lit(String),
    /// A character class: inclusive ranges, possibly negated. A negated
    /// class matches any Unicode scalar value outside the ranges.
    Class {
        ranges: Vec<(char, char)>,
        negated: bool,
    },
    /// A sequence; the empty sequence is ε.
    Seq(Vec<Node>),
    /// An alternation of at least two members, none of them ε.
    Alt(Vec<Node>),
    /// `node{min,max}`; `max = None` is unbounded.
    Rep(Box<Node>, u32, Option<u32>),
    /// A reference to rule number `usize` of the [`Rules`] table.
    Ref(usize),
}

impl Node {
    /// ε, the empty string.
    pub(crate) fn empty() -> Node {
        Node::Seq(Vec::new())
    }

    /// True for ε.
    pub(crate) fn is_empty(&self) -> bool {
        matches!(self, Node::Seq(v) if v.is_empty())
    }
}

/// A literal (ε for the empty string).
pub(crate) fn lit(s: &str) -> Node {
    if s.is_empty() {
        Node::empty()
    } else {
        Node::Lit(s.to_string())
    }
}

/// A one-character literal.
pub(crate) fn ch(c: char) -> Node {
    Node::Lit(c.to_string())
}

/// Sorted, merged ranges.
fn normalize(mut ranges: Vec<(char, char)>) -> Vec<(char, char)> {
    ranges.sort_unstable();
    let mut out: Vec<(char, char)> = Vec::with_capacity(ranges.len());
    for (lo, hi) in ranges {
        match out.last_mut() {
            Some(last) if (last.1 as u32) + 1 >= lo as u32 => {
                if hi > last.1 {
                    last.1 = hi;
                }
            }
            _ => out.push((lo, hi)),
        }
    }
    out
}

/// The class of the given ranges.
pub(crate) fn class(ranges: Vec<(char, char)>) -> Node {
    Node::Class {
        ranges: normalize(ranges),
        negated: false,
    }
}

/// The class of the given characters.
pub(crate) fn one_of(chars: &[char]) -> Node {
    class(chars.iter().map(|&c| (c, c)).collect())
}

/// Any character except the given ranges.
pub(crate) fn none_of_ranges(ranges: Vec<(char, char)>) -> Node {
    Node::Class {
        ranges: normalize(ranges),
        negated: true,
    }
}

/// Any character except the given ones.
pub(crate) fn none_of(chars: &[char]) -> Node {
    none_of_ranges(chars.iter().map(|&c| (c, c)).collect())
}

/// A sequence (flattened; ε members dropped).
pub(crate) fn seq(items: Vec<Node>) -> Node {
    let mut out = Vec::with_capacity(items.len());
    for n in items {
        match n {
            Node::Seq(inner) => out.extend(inner),
            other => out.push(other),
        }
    }
    // merge adjacent literals for compact output
    let mut merged: Vec<Node> = Vec::with_capacity(out.len());
    for n in out {
        match (merged.last_mut(), n) {
            (Some(Node::Lit(a)), Node::Lit(b)) => a.push_str(&b),
            (_, n) => merged.push(n),
        }
    }
    if merged.len() == 1 {
        merged.pop().unwrap_or_else(Node::empty)
    } else {
        Node::Seq(merged)
    }
}

/// An alternation (flattened, deduplicated; an ε member makes the whole
/// alternation optional).
pub(crate) fn alt(items: Vec<Node>) -> Node {
    let mut out: Vec<Node> = Vec::with_capacity(items.len());
    let mut nullable = false;
    for n in items {
        let members = match n {
            Node::Alt(inner) => inner,
            other => vec![other],
        };
        for m in members {
            if m.is_empty() {
                nullable = true;
            } else if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    let body = match out.len() {
        0 => Node::empty(),
        1 => out.pop().unwrap_or_else(Node::empty),
        _ => Node::Alt(out),
    };
    if nullable {
        opt(body)
    } else {
        body
    }
}

/// `node{min,max}`.
pub(crate) fn rep(node: Node, min: u32, max: Option<u32>) -> Node {
    if node.is_empty() || max == Some(0) {
        return Node::empty();
    }
    if min == 1 && max == Some(1) {
        return node;
    }
    // `(x?)?` and `(x*)?` are just `x?` / `x*`
    if let Node::Rep(inner, 0, m) = &node {
        if min == 0 && (max == Some(1) || max.is_none()) && (m.is_none() || *m == Some(1)) {
            let max = if m.is_none() || max.is_none() {
                None
            } else {
                Some(1)
            };
            return Node::Rep(inner.clone(), 0, max);
        }
    }
    Node::Rep(Box::new(node), min, max)
}

/// `node?`
pub(crate) fn opt(node: Node) -> Node {
    rep(node, 0, Some(1))
}

/// `node*`
pub(crate) fn star(node: Node) -> Node {
    rep(node, 0, None)
}

/// `node+`
pub(crate) fn plus(node: Node) -> Node {
    rep(node, 1, None)
}

/// `node{n}`
pub(crate) fn times(node: Node, n: u32) -> Node {
    rep(node, n, Some(n))
}

/// The named rules of a grammar; rule 0 is the start rule.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    pub(crate) rules: Vec<(String, Node)>,
}

impl Rules {
    /// Registers `node` under `name` and returns a reference to it. An
    /// identical node already registered is reused (whatever its name); a
    /// name already taken gets a numeric suffix.
    pub(crate) fn define(&mut self, name: &str, node: Node) -> Node {
        if let Some(i) = self.rules.iter().position(|(_, n)| *n == node) {
            return Node::Ref(i);
        }
        let mut unique = name.to_string();
        let mut k = 2;
        while self.rules.iter().any(|(n, _)| *n == unique) {
            unique = format!("{name}-{k}");
            k += 1;
        }
        self.rules.push((unique, node));
        Node::Ref(self.rules.len() - 1)
    }

    /// Registers `node` under `name` (made unique) even when an identical
    /// rule exists: for rules whose name tells the reader something (fields).
    pub(crate) fn define_named(&mut self, name: &str, node: Node) -> Node {
        let mut unique = name.to_string();
        let mut k = 2;
        while self.rules.iter().any(|(n, _)| *n == unique) {
            unique = format!("{name}-{k}");
            k += 1;
        }
        self.rules.push((unique, node));
        Node::Ref(self.rules.len() - 1)
    }

    /// Reserves a rule, to be set with [`Rules::set`].
    pub(crate) fn reserve(&mut self, name: &str) -> usize {
        self.rules.push((name.to_string(), Node::empty()));
        self.rules.len() - 1
    }

    /// Sets the body of a reserved rule.
    pub(crate) fn set(&mut self, index: usize, node: Node) {
        if let Some(r) = self.rules.get_mut(index) {
            r.1 = node;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_simplify() {
        assert_eq!(seq(vec![lit("a"), lit("b")]), lit("ab"));
        assert_eq!(alt(vec![lit("a"), Node::empty()]), opt(lit("a")));
        assert_eq!(alt(vec![lit("a"), lit("a")]), lit("a"));
        assert_eq!(rep(lit("a"), 1, Some(1)), lit("a"));
        assert_eq!(opt(star(lit("a"))), star(lit("a")));
        assert_eq!(
            class(vec![('b', 'c'), ('a', 'a'), ('x', 'x')]),
            Node::Class {
                ranges: vec![('a', 'c'), ('x', 'x')],
                negated: false
            }
        );
    }
}
