//! Contract → grammar rules. See the module documentation of
//! [`crate::grammar`] for what is enforced and what is not.

use std::collections::BTreeSet;

use super::ir::*;
use crate::contract::{Arity, Component, Contract, Field, Kind, MarkerRule, Scalar, ScalarType};
use crate::syntax::is_space;

/// Marked lists whose `min`/`max` exceed this keep their marker rule but
/// lose their arity in the grammar (the exact product of both grows
/// quadratically in the bound).
pub(crate) const MARKED_ARITY_LIMIT: u64 = 32;

/// Up to this many required header keys may come in any order; beyond it
/// they must follow the contract's order.
pub(crate) const PERMUTED_REQUIRED_KEYS: usize = 3;

/// How characters of a known text are written at a position.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// A scalar field or header value.
    Scalar,
    /// A bare (unquoted) list element or tuple component.
    Bare,
    /// Inside a quoted element.
    Quoted,
}

/// One list element shape: the non-blank forms, and whether a blank element
/// (whitespace only, empty text) is also valid.
#[derive(Clone)]
struct El {
    nb: Node,
    blank: bool,
}

/// The marked forms of an element, registered as a rule only when used.
struct Marked {
    name: String,
    node: Node,
}

/// The whitespace the parser trims (`syntax::is_space`), line feed excluded
/// (a line never contains one).
fn ws_ranges() -> Vec<(char, char)> {
    let mut out: Vec<(char, char)> = Vec::new();
    for v in 0u32..=0x3000 {
        let Some(c) = char::from_u32(v) else { continue };
        if c == '\n' || !is_space(c) {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 as u32 + 1 == v => last.1 = c,
            _ => out.push((c, c)),
        }
    }
    out
}

fn plus_chars(mut ranges: Vec<(char, char)>, extra: &[char]) -> Vec<(char, char)> {
    ranges.extend(extra.iter().map(|&c| (c, c)));
    ranges
}

fn minus_char(ranges: &[(char, char)], c: char) -> Vec<(char, char)> {
    let mut out = Vec::new();
    for &(lo, hi) in ranges {
        if c < lo || c > hi {
            out.push((lo, hi));
            continue;
        }
        if lo < c {
            if let Some(p) = char::from_u32(c as u32 - 1) {
                out.push((lo, p));
            }
        }
        if c < hi {
            if let Some(n) = char::from_u32(c as u32 + 1) {
                out.push((n, hi));
            }
        }
    }
    out
}

fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    s.trim_matches('-').to_string()
}

fn u32_of(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

fn permutations(items: &[usize]) -> Vec<Vec<usize>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for (i, &first) in items.iter().enumerate() {
        let mut rest = items.to_vec();
        rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first);
            out.push(p);
        }
    }
    out
}

pub(crate) struct Builder<'c> {
    c: &'c Contract,
    sep: char,
    ws_sep: bool,
    pub(crate) rules: Rules,
    ws: Vec<(char, char)>,
    ws_el: Vec<(char, char)>,
}

impl<'c> Builder<'c> {
    pub(crate) fn new(c: &'c Contract) -> Self {
        let sep = c.separator();
        let ws = ws_ranges();
        let ws_el = minus_char(&ws, sep);
        Builder {
            c,
            sep,
            ws_sep: is_space(sep),
            rules: Rules::default(),
            ws,
            ws_el,
        }
    }

    // ---- basic pieces -------------------------------------------------

    /// `ws*`: blanks the parser trims around a field or header value.
    fn w(&mut self) -> Node {
        let c = class(self.ws.clone());
        star(self.rules.define("ws", c))
    }

    /// Blanks around a list element (the separator excluded).
    fn w_el(&mut self) -> Node {
        let c = class(self.ws_el.clone());
        star(self.rules.define("ws-el", c))
    }

    /// `escape ::= "\" ( "|" | "," | SEP | "*" | '"' | "\" | "n" )`
    fn esc(&mut self) -> Node {
        let node = seq(vec![
            ch('\\'),
            one_of(&['|', ',', '*', '"', '\\', 'n', self.sep]),
        ]);
        self.rules.define("escape", node)
    }

    /// One written character or escape of a scalar value, excluding the
    /// characters in `not` (and always `|`, `\`, line feed).
    fn piece(&mut self, name: &str, not: Vec<(char, char)>) -> Node {
        let e = self.esc();
        let node = alt(vec![none_of_ranges(plus_chars(not, &['|', '\\', '\n'])), e]);
        self.rules.define(name, node)
    }

    /// The separator.
    fn sep(&self) -> Node {
        ch(self.sep)
    }

    /// How `c` may be written at a position of context `ctx`.
    fn sp(&self, c: char, ctx: Ctx) -> Node {
        let escaped = || lit(&format!("\\{c}"));
        match c {
            '|' => lit("\\|"),
            '\\' => lit("\\\\"),
            '\n' => lit("\\n"),
            _ => match ctx {
                Ctx::Scalar if matches!(c, ',' | '*' | '"') || c == self.sep => {
                    alt(vec![ch(c), escaped()])
                }
                Ctx::Bare if c == self.sep => escaped(),
                Ctx::Bare if matches!(c, ',' | '*' | '"') => alt(vec![ch(c), escaped()]),
                Ctx::Quoted if c == '"' => alt(vec![lit("\"\""), lit("\\\"")]),
                Ctx::Quoted if matches!(c, ',' | '*') || c == self.sep => {
                    alt(vec![ch(c), escaped()])
                }
                _ => ch(c),
            },
        }
    }

    /// Every spelling of the text `s` at a position of context `ctx`. In a
    /// bare element a leading `"` must be escaped (it would open a quote);
    /// with `last_star_escaped` a trailing `*` must be escaped (it would be
    /// read as the marker).
    fn spell(&self, s: &str, ctx: Ctx, last_star_escaped: bool) -> Node {
        let n = s.chars().count();
        let parts = s
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i == 0 && c == '"' && ctx == Ctx::Bare {
                    lit("\\\"")
                } else if i + 1 == n && c == '*' && last_star_escaped {
                    lit("\\*")
                } else {
                    self.sp(c, ctx)
                }
            })
            .collect();
        seq(parts)
    }

    // ---- scalar lexical forms -----------------------------------------

    fn digit(&mut self) -> Node {
        let d = class(vec![('0', '9')]);
        self.rules.define("digit", d)
    }

    fn ctx_suffix(ctx: Ctx) -> &'static str {
        match ctx {
            Ctx::Scalar => "",
            Ctx::Bare => "-bare",
            Ctx::Quoted => "-quoted",
        }
    }

    fn int(&mut self, ctx: Ctx) -> Node {
        let d = self.digit();
        let node = seq(vec![opt(self.sp('-', ctx)), plus(d)]);
        self.rules
            .define(&format!("int{}", Self::ctx_suffix(ctx)), node)
    }

    fn decimal(&mut self, ctx: Ctx) -> Node {
        let d = self.digit();
        let node = seq(vec![
            opt(self.sp('-', ctx)),
            plus(d.clone()),
            opt(seq(vec![self.sp('.', ctx), plus(d)])),
        ]);
        self.rules
            .define(&format!("decimal{}", Self::ctx_suffix(ctx)), node)
    }

    fn float(&mut self, ctx: Ctx) -> Node {
        let d = self.digit();
        let node = seq(vec![
            opt(self.sp('-', ctx)),
            plus(d.clone()),
            opt(seq(vec![self.sp('.', ctx), plus(d.clone())])),
            opt(seq(vec![
                one_of(&['e', 'E']),
                opt(alt(vec![self.sp('+', ctx), self.sp('-', ctx)])),
                plus(d),
            ])),
        ]);
        self.rules
            .define(&format!("float{}", Self::ctx_suffix(ctx)), node)
    }

    fn bool_(&mut self) -> Node {
        let node = alt(vec![lit("true"), lit("false"), lit("1"), lit("0")]);
        self.rules.define("bool", node)
    }

    /// `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar between
    /// 0001-01-01 and 9999-12-31 (leap years included).
    fn date(&mut self, ctx: Ctx) -> Node {
        let d = self.digit();
        let nz = class(vec![('1', '9')]);
        let dash = self.sp('-', ctx);
        let year = alt(vec![
            seq(vec![nz.clone(), d.clone(), d.clone(), d.clone()]),
            seq(vec![ch('0'), nz.clone(), d.clone(), d.clone()]),
            seq(vec![lit("00"), nz.clone(), d.clone()]),
            seq(vec![lit("000"), nz.clone()]),
        ]);
        let year = self.rules.define("year", year);
        let day_1_28 = alt(vec![
            seq(vec![ch('0'), nz.clone()]),
            seq(vec![ch('1'), d.clone()]),
            seq(vec![ch('2'), class(vec![('0', '8')])]),
        ]);
        let day_1_30 = alt(vec![
            seq(vec![ch('0'), nz.clone()]),
            seq(vec![one_of(&['1', '2']), d.clone()]),
            lit("30"),
        ]);
        let day_1_31 = alt(vec![
            seq(vec![ch('0'), nz]),
            seq(vec![one_of(&['1', '2']), d.clone()]),
            seq(vec![ch('3'), one_of(&['0', '1'])]),
        ]);
        let m31 = alt(vec![
            seq(vec![ch('0'), one_of(&['1', '3', '5', '7', '8'])]),
            seq(vec![ch('1'), one_of(&['0', '2'])]),
        ]);
        let m30 = alt(vec![
            seq(vec![ch('0'), one_of(&['4', '6', '9'])]),
            lit("11"),
        ]);
        let month_day = alt(vec![
            seq(vec![m31, dash.clone(), day_1_31]),
            seq(vec![m30, dash.clone(), day_1_30]),
            seq(vec![lit("02"), dash.clone(), day_1_28]),
        ]);
        // two-digit multiples of 4 other than 00
        let four = alt(vec![
            seq(vec![ch('0'), one_of(&['4', '8'])]),
            seq(vec![
                one_of(&['2', '4', '6', '8']),
                one_of(&['0', '4', '8']),
            ]),
            seq(vec![
                one_of(&['1', '3', '5', '7', '9']),
                one_of(&['2', '6']),
            ]),
        ]);
        let leap = alt(vec![
            seq(vec![d.clone(), d, four.clone()]),
            seq(vec![four, lit("00")]),
        ]);
        let node = alt(vec![
            seq(vec![year, dash.clone(), month_day]),
            seq(vec![leap, dash.clone(), lit("02"), dash, lit("29")]),
        ]);
        self.rules
            .define(&format!("date{}", Self::ctx_suffix(ctx)), node)
    }

    /// The lexical form of a non-str scalar (enum: its spelled values).
    fn atom(&mut self, s: &Scalar, ctx: Ctx, last_star_escaped: bool, name: &str) -> Node {
        if ctx != Ctx::Scalar || last_star_escaped {
            // register the plain spelling first, so that an identical
            // spelling in another context reuses its name
            let _ = self.atom(s, Ctx::Scalar, false, name);
        }
        match s.ty {
            ScalarType::Int => self.int(ctx),
            ScalarType::Float => self.float(ctx),
            ScalarType::Decimal => self.decimal(ctx),
            ScalarType::Bool => self.bool_(),
            ScalarType::Date => self.date(ctx),
            ScalarType::Enum | ScalarType::Str => {
                let values: Vec<Node> = s
                    .values
                    .iter()
                    .filter(|v| !v.is_empty())
                    .map(|v| self.spell(v, ctx, last_star_escaped))
                    .collect();
                let node = alt(values);
                let star = if last_star_escaped { "-unmarked" } else { "" };
                self.rules.define(
                    &format!("enum-{}{}{star}", sanitize(name), Self::ctx_suffix(ctx)),
                    node,
                )
            }
        }
    }

    // ---- elements -------------------------------------------------------

    /// The element pieces of bare text: any character but the separator,
    /// `|`, `\` and line feed, or an escape.
    fn bare_pieces(&mut self) -> (Node, Node, Node, Node, Node) {
        let ws = self.ws.clone();
        let sep = self.sep;
        let any = self.piece("el-char", vec![(sep, sep)]);
        let first = self.piece("el-first", plus_chars(ws.clone(), &[sep, '"']));
        let last = self.piece("el-last", plus_chars(ws.clone(), &[sep, '*']));
        let single = self.piece("el-single", plus_chars(ws.clone(), &[sep, '"', '*']));
        let last_marked = self.piece("el-last-m", plus_chars(ws, &[sep]));
        (any, first, last, single, last_marked)
    }

    /// Pieces inside quotes: `""`, escapes, anything but `"`, `\`, `|`, LF;
    /// and the same without a plain `*` (a last plain `*` is the marker).
    fn quoted_pieces(&mut self) -> (Node, Node) {
        let e = self.esc();
        let any = alt(vec![
            none_of(&['"', '\\', '|', '\n']),
            lit("\"\""),
            e.clone(),
        ]);
        let any = self.rules.define("q-char", any);
        let last = alt(vec![none_of(&['"', '\\', '|', '\n', '*']), lit("\"\""), e]);
        let last = self.rules.define("q-last", last);
        (any, last)
    }

    /// A `str` element: unmarked (`blank` when the text may be empty) and
    /// marked forms.
    fn str_element(&mut self, nonempty: bool) -> (El, Marked) {
        let w = self.w_el();
        let (any, first, last, single, last_m) = self.bare_pieces();
        let (q_any, q_last) = self.quoted_pieces();
        let q = || ch('"');
        let bare_u = seq(vec![
            w.clone(),
            alt(vec![
                single,
                seq(vec![first.clone(), star(any.clone()), last]),
            ]),
            w.clone(),
        ]);
        let q_content_u = seq(vec![star(q_any.clone()), q_last]);
        let quoted_u = seq(vec![
            w.clone(),
            q(),
            if nonempty {
                q_content_u.clone()
            } else {
                opt(q_content_u.clone())
            },
            q(),
            w.clone(),
        ]);
        let bare_content = seq(vec![first, opt(seq(vec![star(any), last_m]))]);
        let bare_m = seq(vec![
            w.clone(),
            if nonempty {
                seq(vec![bare_content, w.clone()])
            } else {
                opt(seq(vec![bare_content, w.clone()]))
            },
            ch('*'),
            w.clone(),
        ]);
        let quoted_m = seq(vec![
            w.clone(),
            q(),
            alt(vec![
                seq(vec![
                    if nonempty {
                        q_content_u.clone()
                    } else {
                        opt(q_content_u.clone())
                    },
                    q(),
                    w.clone(),
                    ch('*'),
                ]),
                seq(vec![
                    if nonempty {
                        plus(q_any.clone())
                    } else {
                        star(q_any.clone())
                    },
                    ch('*'),
                    q(),
                    opt(seq(vec![w.clone(), ch('*')])),
                ]),
            ]),
            w,
        ]);
        let (uname, mname) = if nonempty {
            ("str-el-nonempty", "str-el-nonempty-m")
        } else {
            ("str-el", "str-el-m")
        };
        let u = alt(vec![bare_u, quoted_u]);
        let u = self.rules.define(uname, u);
        let m = Marked {
            name: mname.to_string(),
            node: alt(vec![bare_m, quoted_m]),
        };
        (
            El {
                nb: u,
                blank: !nonempty,
            },
            m,
        )
    }

    /// A typed element (never empty): unmarked and marked forms. With
    /// `optional`, an empty element (blank or `""`) is valid too.
    fn typed_element(&mut self, s: &Scalar, name: &str, optional: bool) -> (El, Marked) {
        let w = self.w_el();
        let q = || ch('"');
        let bare = self.atom(s, Ctx::Bare, true, name);
        let bare_m = self.atom(s, Ctx::Bare, false, name);
        let quoted = self.atom(s, Ctx::Quoted, true, name);
        let quoted_m = self.atom(s, Ctx::Quoted, false, name);
        let mut u = vec![
            seq(vec![w.clone(), bare, w.clone()]),
            seq(vec![w.clone(), q(), quoted.clone(), q(), w.clone()]),
        ];
        let mut m = vec![
            seq(vec![w.clone(), bare_m, w.clone(), ch('*'), w.clone()]),
            seq(vec![
                w.clone(),
                q(),
                quoted,
                q(),
                w.clone(),
                ch('*'),
                w.clone(),
            ]),
            seq(vec![
                w.clone(),
                q(),
                quoted_m,
                ch('*'),
                q(),
                opt(seq(vec![w.clone(), ch('*')])),
                w.clone(),
            ]),
        ];
        if optional {
            u.push(seq(vec![w.clone(), lit("\"\""), w.clone()]));
            m.push(seq(vec![
                w.clone(),
                alt(vec![
                    seq(vec![lit("\"\""), w.clone(), ch('*')]),
                    seq(vec![lit("\"*\""), opt(seq(vec![w.clone(), ch('*')]))]),
                    ch('*'),
                ]),
                w,
            ]));
        }
        let base = format!(
            "{}-el{}",
            if s.ty == ScalarType::Enum {
                format!("enum-{}", sanitize(name))
            } else {
                s.ty.name().to_string()
            },
            if optional { "-opt" } else { "" }
        );
        let u = self.rules.define(&base, alt(u));
        let m = Marked {
            name: format!("{base}-m"),
            node: alt(m),
        };
        (
            El {
                nb: u,
                blank: optional,
            },
            m,
        )
    }

    /// An element of a list of `item`s.
    fn item_element(&mut self, item: &Scalar, name: &str) -> (El, Marked) {
        if item.ty == ScalarType::Str {
            self.str_element(false)
        } else {
            self.typed_element(item, name, false)
        }
    }

    /// A tuple component.
    fn component(&mut self, c: &Component, field: &str) -> (El, Marked) {
        if c.scalar.ty == ScalarType::Str {
            self.str_element(!c.optional)
        } else {
            self.typed_element(&c.scalar, &format!("{field}-{}", c.name), c.optional)
        }
    }

    // ---- lists ----------------------------------------------------------

    fn full(&mut self, e: &El) -> Node {
        if e.blank {
            let w = self.w_el();
            alt(vec![e.nb.clone(), w])
        } else {
            e.nb.clone()
        }
    }

    /// The first or last element of a list of two or more: with a
    /// whitespace separator it cannot be blank (the field is trimmed first).
    fn edge(&mut self, e: &El) -> Node {
        if self.ws_sep {
            e.nb.clone()
        } else {
            self.full(e)
        }
    }

    /// `i ∈ [a, b]` elements `e`, each followed by the separator.
    fn pre(&mut self, e: &El, a: u64, b: Option<u64>) -> Node {
        if b == Some(0) {
            return Node::empty();
        }
        let (edge, full) = (self.edge(e), self.full(e));
        let core = seq(vec![
            edge,
            self.sep(),
            rep(
                seq(vec![full, self.sep()]),
                u32_of(a.max(1) - 1),
                b.map(|b| u32_of(b - 1)),
            ),
        ]);
        if a == 0 {
            opt(core)
        } else {
            core
        }
    }

    /// `j ∈ [a, b]` elements `e`, each preceded by the separator.
    fn post(&mut self, e: &El, a: u64, b: Option<u64>) -> Node {
        if b == Some(0) {
            return Node::empty();
        }
        let (edge, full) = (self.edge(e), self.full(e));
        let core = seq(vec![
            rep(
                seq(vec![self.sep(), full]),
                u32_of(a.max(1) - 1),
                b.map(|b| u32_of(b - 1)),
            ),
            self.sep(),
            edge,
        ]);
        if a == 0 {
            opt(core)
        } else {
            core
        }
    }

    /// A list of `lo..=hi` elements `e` (one or more; zero elements is the
    /// empty field, reported by the caller).
    fn plain(&mut self, e: &El, lo: u64, hi: Option<u64>) -> Option<Node> {
        let mut alts = Vec::new();
        if lo <= 1 && hi.is_none_or(|h| h >= 1) {
            alts.push(e.nb.clone());
        }
        if hi.is_none_or(|h| h >= 2) {
            let lo2 = lo.max(2);
            let (edge, full) = (self.edge(e), self.full(e));
            alts.push(seq(vec![
                edge.clone(),
                rep(
                    seq(vec![self.sep(), full]),
                    u32_of(lo2 - 2),
                    hi.map(|h| u32_of(h - 2)),
                ),
                self.sep(),
                edge,
            ]));
        }
        (!alts.is_empty()).then(|| alt(alts))
    }

    /// Lists of `lo..=hi` elements whose first marked element is `m`:
    /// unmarked `u` before it, `after` elements after it.
    fn first_marked(
        &mut self,
        u: &El,
        m: &Node,
        after: &El,
        lo: u64,
        hi: Option<u64>,
    ) -> Option<Node> {
        let lo1 = lo.max(1);
        let relaxed = hi.is_some_and(|h| h > MARKED_ARITY_LIMIT) || lo1 - 1 > MARKED_ARITY_LIMIT;
        let mut alts = Vec::new();
        match hi {
            _ if relaxed => {
                alts.push(seq(vec![
                    self.pre(u, 0, None),
                    m.clone(),
                    self.post(after, 0, None),
                ]));
            }
            Some(h) => {
                for i in 0..h {
                    let jlo = lo1.saturating_sub(1 + i);
                    alts.push(seq(vec![
                        self.pre(u, i, Some(i)),
                        m.clone(),
                        self.post(after, jlo, Some(h - 1 - i)),
                    ]));
                }
            }
            None => {
                for i in 0..lo1 - 1 {
                    alts.push(seq(vec![
                        self.pre(u, i, Some(i)),
                        m.clone(),
                        self.post(after, lo1 - 1 - i, None),
                    ]));
                }
                alts.push(seq(vec![
                    self.pre(u, lo1 - 1, None),
                    m.clone(),
                    self.post(after, 0, None),
                ]));
            }
        }
        (!alts.is_empty()).then(|| alt(alts))
    }

    /// A list-typed value: its non-blank forms and whether the empty value
    /// (zero elements) is valid. `marker`: `None` for a plain list (no `*`
    /// allowed); header lists pass `Some(Any)` (markers are ignored there).
    fn list(
        &mut self,
        item: &Scalar,
        arity: &Arity,
        marker: Option<MarkerRule>,
        name: &str,
    ) -> (Option<Node>, bool) {
        let (u, m) = self.item_element(item, name);
        if marker.is_none() {
            let lo = arity.min.unwrap_or(0);
            return (self.plain(&u, lo, arity.max), lo == 0);
        }
        let m = self.rules.define(&m.name, m.node);
        let lo = arity.min.unwrap_or(0);
        let hi = arity.max;
        let any = El {
            nb: alt(vec![u.nb.clone(), m.clone()]),
            blank: u.blank,
        };
        let zero = lo == 0;
        match marker {
            None => (self.plain(&u, lo, hi), zero),
            Some(MarkerRule::Any) => (self.plain(&any, lo, hi), zero),
            Some(MarkerRule::ExactlyOne) => (self.first_marked(&u, &m, &u, lo, hi), false),
            Some(MarkerRule::AtLeastOne) => (self.first_marked(&u, &m, &any, lo, hi), false),
            Some(MarkerRule::AtMostOne) => {
                let none = self.plain(&u, lo, hi);
                let one = self.first_marked(&u, &m, &u, lo, hi);
                let both: Vec<Node> = none.into_iter().chain(one).collect();
                ((!both.is_empty()).then(|| alt(both)), zero)
            }
        }
    }

    /// A tuple value (never empty): its components in order.
    fn tuple(&mut self, comps: &[Component], in_header: bool, name: &str) -> Node {
        let els: Vec<El> = comps
            .iter()
            .map(|c| {
                let (u, m) = self.component(c, name);
                if in_header {
                    let m = self.rules.define(&m.name, m.node);
                    El {
                        nb: alt(vec![u.nb, m]),
                        blank: u.blank,
                    }
                } else {
                    u
                }
            })
            .collect();
        if els.len() == 1 {
            return els[0].nb.clone();
        }
        let mut parts = Vec::new();
        let last = els.len() - 1;
        for (i, e) in els.iter().enumerate() {
            if i > 0 {
                parts.push(self.sep());
            }
            let node = if i == 0 || i == last {
                self.edge(e)
            } else {
                self.full(e)
            };
            parts.push(node);
        }
        seq(parts)
    }

    /// The value of a field or header key: non-blank forms and whether a
    /// blank value is valid.
    fn value(&mut self, kind: &Kind, optional: bool, in_header: bool, name: &str) -> (Node, bool) {
        let w = self.w();
        let wrap = |b: &mut Self, n: Node| {
            if b.ws_sep {
                let w = b.w();
                seq(vec![w.clone(), n, w])
            } else {
                n
            }
        };
        match kind {
            Kind::Scalar(s) if s.ty == ScalarType::Str => {
                let ws = self.ws.clone();
                let first = self.piece("text-first", ws);
                let any = self.piece("text-char", Vec::new());
                if in_header {
                    (star(any), false)
                } else {
                    (seq(vec![w, first, star(any)]), optional)
                }
            }
            Kind::Scalar(s) => {
                let a = self.atom(s, Ctx::Scalar, false, name);
                (seq(vec![w.clone(), a, w]), optional)
            }
            Kind::List { item, arity } => {
                let marker = in_header.then_some(MarkerRule::Any);
                let (nb, zero) = self.list(item, arity, marker, name);
                match nb {
                    Some(nb) => (wrap(self, nb), optional || zero),
                    None => (w, true),
                }
            }
            Kind::MList {
                item,
                arity,
                marker,
                ..
            } => {
                let (nb, zero) = self.list(item, arity, Some(*marker), name);
                match nb {
                    Some(nb) => (wrap(self, nb), optional || zero),
                    None => (w, true),
                }
            }
            Kind::Tuple(comps) => {
                let t = self.tuple(comps, in_header, name);
                (wrap(self, t), optional)
            }
        }
    }

    fn with_blank(&mut self, nb: Node, blank: bool) -> Node {
        if blank {
            let w = self.w();
            alt(vec![nb, w])
        } else {
            nb
        }
    }

    // ---- header -----------------------------------------------------------

    /// `n`: a non-negative int, or exactly `records` when the count is fixed.
    fn n_value(&mut self, records: Option<usize>) -> Node {
        let w = self.w();
        let d = self.digit();
        let minus = self.sp('-', Ctx::Scalar);
        let body = match records {
            None => alt(vec![plus(d), seq(vec![minus, plus(ch('0'))])]),
            Some(0) => seq(vec![opt(minus), plus(ch('0'))]),
            Some(n) => seq(vec![star(ch('0')), lit(&n.to_string())]),
        };
        seq(vec![w.clone(), body, w])
    }

    /// Identifiers that are none of `words`.
    fn not_words(words: &[&str], prefix: &str) -> Node {
        let first = prefix.is_empty();
        let mut alphabet: Vec<char> = ('A'..='Z').chain('a'..='z').chain(['_']).collect();
        if !first {
            alphabet.extend('0'..='9');
        }
        let nexts: BTreeSet<char> = words
            .iter()
            .filter_map(|w| w.strip_prefix(prefix).and_then(|r| r.chars().next()))
            .filter(|c| alphabet.contains(c))
            .collect();
        let mut alts = Vec::new();
        if !first && !words.contains(&prefix) {
            alts.push(Node::empty());
        }
        for &c in &nexts {
            let mut p = prefix.to_string();
            p.push(c);
            alts.push(seq(vec![ch(c), Self::not_words(words, &p)]));
        }
        let rest: Vec<char> = alphabet
            .iter()
            .copied()
            .filter(|c| !nexts.contains(c))
            .collect();
        if !rest.is_empty() {
            alts.push(seq(vec![
                one_of(&rest),
                star(class(vec![('0', '9'), ('A', 'Z'), ('_', '_'), ('a', 'z')])),
            ]));
        }
        alt(alts)
    }

    fn header(&mut self, records: Option<usize>) -> Node {
        let c = self.c;
        let w = self.w();
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for hk in c.header_keys() {
            let value = if hk.name == "n" {
                self.n_value(records)
            } else {
                let (nb, blank) = self.value(&hk.kind, false, true, &hk.name);
                self.with_blank(nb, blank)
            };
            let entry = seq(vec![w.clone(), lit(&hk.name), w.clone(), ch('='), value]);
            let entry = self
                .rules
                .define(&format!("key-{}", sanitize(&hk.name)), entry);
            if hk.required || hk.name == "n" {
                if hk.name == "n" {
                    required.insert(0, entry);
                } else {
                    required.push(entry);
                }
            } else {
                optional.push(entry);
            }
        }
        let names: Vec<&str> = c.header_keys().iter().map(|k| k.name.as_str()).collect();
        let unknown_key = Self::not_words(&names, "");
        let unknown_key = self.rules.define("unknown-key", unknown_key);
        let any = self.piece("text-char", Vec::new());
        let unknown = seq(vec![w.clone(), unknown_key, w.clone(), ch('='), star(any)]);
        optional.push(self.rules.define("key-unknown", unknown));
        let other = alt(optional);
        let other = self.rules.define("other-key", other);
        let gap = star(seq(vec![ch('|'), other]));
        let gap = self.rules.define("other-keys", gap);
        let indices: Vec<usize> = (0..required.len()).collect();
        let orders = if required.len() <= PERMUTED_REQUIRED_KEYS {
            permutations(&indices)
        } else {
            vec![indices]
        };
        let entries = alt(orders
            .into_iter()
            .map(|order| {
                let mut parts = vec![gap.clone()];
                for i in order {
                    parts.push(ch('|'));
                    parts.push(required[i].clone());
                    parts.push(gap.clone());
                }
                seq(parts)
            })
            .collect());
        let prefix = self.spell(c.prefix(), Ctx::Scalar, false);
        seq(vec![w.clone(), prefix, w, entries])
    }

    // ---- records ----------------------------------------------------------

    /// A field: the rule for its full form, its non-blank forms (not
    /// registered) and whether it may be blank.
    fn field(&mut self, f: &Field, i: usize) -> (Node, Node, bool) {
        let (nb, blank) = self.value(&f.kind, f.optional, false, &f.name);
        let name = format!("f{}-{}", i + 1, sanitize(&f.name));
        let full = self.with_blank(nb.clone(), blank);
        let full = self.rules.define_named(&name, full);
        (full, nb, blank)
    }

    fn record(&mut self) -> Node {
        let c = self.c;
        let core: Vec<(Node, Node, bool)> = c
            .core()
            .iter()
            .enumerate()
            .map(|(i, f)| self.field(f, i))
            .collect();
        let ext: Vec<Node> = c
            .extensions()
            .iter()
            .enumerate()
            .map(|(i, f)| self.field(f, core.len() + i).0)
            .collect();
        // optional extension tail: ("|" e1 ("|" e2 (…)?)?)?
        let mut tail = Node::empty();
        let mut tail_from_first = Node::empty();
        for (i, e) in ext.iter().enumerate().rev() {
            let step = seq(vec![ch('|'), e.clone(), tail]);
            if i == 0 {
                tail_from_first = step.clone();
            }
            tail = opt(step);
        }
        if core.len() == 1 && core[0].2 {
            // a line holding one blank field is a blank line, not a record
            let (full, nb, _) = core[0].clone();
            let name = format!("f1-{}-nonblank", sanitize(&c.core()[0].name));
            let nb = self.rules.define_named(&name, nb);
            let mut alts = vec![seq(vec![nb, tail])];
            if !ext.is_empty() {
                alts.push(seq(vec![full, tail_from_first]));
            }
            return alt(alts);
        }
        let mut parts = Vec::new();
        for (i, (full, _, _)) in core.into_iter().enumerate() {
            if i > 0 {
                parts.push(ch('|'));
            }
            parts.push(full);
        }
        parts.push(tail);
        seq(parts)
    }

    /// The whole grammar; rule 0 is the document.
    pub(crate) fn build(mut self, records: Option<usize>) -> Rules {
        let root = self.rules.reserve("root");
        let header_i = self.rules.reserve("header");
        let record_i = self.rules.reserve("record");
        let header = self.header(records);
        self.rules.set(header_i, header);
        let record = self.record();
        self.rules.set(record_i, record);
        let line = seq(vec![ch('\n'), Node::Ref(record_i)]);
        let lines = match records {
            Some(n) => times(line, u32_of(n as u64)),
            None => star(line),
        };
        self.rules
            .set(root, seq(vec![Node::Ref(header_i), lines, opt(ch('\n'))]));
        self.rules
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_class_matches_is_space() {
        let ranges = ws_ranges();
        for v in 0u32..=0x10FFFF {
            let Some(c) = char::from_u32(v) else { continue };
            let inside = ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi);
            assert_eq!(inside, is_space(c) && c != '\n', "U+{v:04X}");
        }
    }

    #[test]
    fn permutations_of_three() {
        assert_eq!(permutations(&[0, 1, 2]).len(), 6);
        assert_eq!(permutations(&[]), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn minus_char_splits_ranges() {
        assert_eq!(minus_char(&[('\t', '\r')], '\t'), vec![('\n', '\r')]);
        assert_eq!(minus_char(&[('a', 'e')], 'c'), vec![('a', 'b'), ('d', 'e')]);
    }
}
