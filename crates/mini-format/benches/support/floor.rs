//! The floor (issue 21): a hand-written, safe-Rust reader and writer for
//! exactly the quiz family's document shape (`data::Quiz`), into and from
//! the same structs, with every rule of its contract checked: the header's
//! required `n` and `k`, the field count (7 core fields and the optional
//! `note` extension), escapes, the `unique` id (a hash set of borrowed
//! slices with a cheap multiplicative hash), the marked list (exactly one
//! `*`, 2–6 elements, as many as the header's `k`), the bounded int
//! (`level` in 1..=5), the enum, the plain list (at most 5, no marker), the
//! tuple's arity and its bounded float (`irt.b` in −4..=4), and `n` against
//! the number of record lines.
//!
//! It is what the hardware allows for this shape, written by hand: one
//! walk of each line, seeking 32 bytes a step with vector compares (ADR
//! 0060), with the layout known in advance (no lookup of names,
//! rules or types), values typed straight from the input slice, strings
//! copied once (unescaped only when a `\` was seen), vectors sized from the
//! count key (capped by the contract's `max`). It knows no diagnostics
//! beyond a static reason and the line, and it reads no quoted list
//! elements (the quiz family never writes them): it is a measuring stick,
//! not a second implementation of the format.

#![allow(dead_code)]

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use crate::data::{Irt, Level, Question, Quiz, QuizHeader};

/// The notes family's reader (decode only), on the same scanning.
#[path = "floor_notes.rs"]
pub mod notes;
/// The rubric family's reader (decode only), on the same scanning.
#[path = "floor_rubric.rs"]
pub mod rubric;

/// A fault: the 1-based line and a static reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub line: usize,
    pub what: &'static str,
}

/// A multiplicative word-at-a-time hash (FxHash's mixing): the cheap hash
/// of the unique-id set.
#[derive(Default)]
pub struct Fx(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().unwrap());
            h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let r = chunks.remainder();
        if !r.is_empty() {
            let mut b = [0u8; 8];
            b[..r.len()].copy_from_slice(r);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(b)).wrapping_mul(K);
        }
        self.0 = h;
    }

    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(i)).wrapping_mul(K);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type Ids<'a> = HashSet<Cow<'a, str>, BuildHasherDefault<Fx>>;

/// A set of claimed ids (the quiz floor's texts, the rubric floor's
/// values), sized from the header's `n` capped at 65,536.
fn ids<K>(n: u64) -> HashSet<K, BuildHasherDefault<Fx>> {
    let cap = usize::try_from(n.min(1 << 16)).unwrap_or(0);
    HashSet::with_capacity_and_hasher(cap, BuildHasherDefault::default())
}

// ---------------------------------------------------------------------------
// scanning: 32 bytes a step, then eight
// ---------------------------------------------------------------------------

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that equals `b` (exact: no false
/// positives, since the borrow only runs past a zero byte's own lane when
/// that lane is already flagged, and only the lowest flag is read).
#[inline(always)]
fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (LO * u64::from(b));
    x.wrapping_sub(LO) & !x & HI
}

/// The index of the first byte at or after `from` that is one of `set`,
/// or `bytes.len()`: 32 bytes a step while 32 are left (`wide::u8x32`:
/// one AVX2 compare a byte of `set` in a build for x86-64-v3, two SSE2
/// ones in the baseline build), then eight.
#[inline(always)]
pub(crate) fn find<const N: usize>(bytes: &[u8], mut from: usize, set: [u8; N]) -> usize {
    while let Some(chunk) = bytes.get(from..).and_then(<[u8]>::first_chunk::<32>) {
        let v = wide::u8x32::new(*chunk);
        let mut hit = wide::u8x32::splat(0);
        for b in set {
            hit |= wide::CmpEq::cmp_eq(v, wide::u8x32::splat(b));
        }
        let m = hit.move_mask() as u32;
        if m != 0 {
            return from + m.trailing_zeros() as usize;
        }
        from += 32;
    }
    while from + 8 <= bytes.len() {
        let w = u64::from_le_bytes(bytes[from..from + 8].try_into().unwrap());
        let mut m = 0;
        for b in set {
            m |= eq_mask(w, b);
        }
        if m != 0 {
            return from + (m.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    while from < bytes.len() && !set.contains(&bytes[from]) {
        from += 1;
    }
    from
}

// ---------------------------------------------------------------------------
// reading
// ---------------------------------------------------------------------------

type R<T> = Result<T, &'static str>;

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    if b.first().is_some_and(|&c| is_space(c)) || b.last().is_some_and(|&c| is_space(c)) {
        s.trim_matches(|c| c == ' ' || c == '\t')
    } else {
        s
    }
}

/// The fields of one line: each call gives the next field (trimmed, and
/// whether it has a `\`), every escape checked.
struct Fields<'a> {
    line: &'a str,
    pos: usize,
}

impl<'a> Fields<'a> {
    fn new(line: &'a str) -> Self {
        Fields { line, pos: 0 }
    }

    #[inline]
    fn next(&mut self) -> R<Option<(&'a str, bool)>> {
        let b = self.line.as_bytes();
        if self.pos > b.len() {
            return Ok(None);
        }
        let start = self.pos;
        let mut i = start;
        let mut esc = false;
        loop {
            i = find(b, i, [b'|', b'\\']);
            if i >= b.len() || b[i] == b'|' {
                break;
            }
            match b.get(i + 1) {
                Some(b'|' | b',' | b'*' | b'"' | b'\\' | b'n') => {}
                _ => return Err("invalid escape"),
            }
            esc = true;
            i += 2;
        }
        self.pos = i + 1;
        Ok(Some((trim(&self.line[start..i]), esc)))
    }

    fn required(&mut self) -> R<(&'a str, bool)> {
        self.next()?.ok_or("too few fields")
    }
}

/// The decoded text of a field or element (its escapes were checked).
fn unescape(raw: &str, escaped: bool) -> Cow<'_, str> {
    if !escaped {
        return Cow::Borrowed(raw);
    }
    // from one `\` to the next ([`find`]); the runs between are
    // copied whole
    let mut out = String::with_capacity(raw.len());
    let b = raw.as_bytes();
    let mut run = 0;
    loop {
        let i = find(b, run, [b'\\']);
        out.push_str(&raw[run..i]);
        if i >= b.len() {
            break;
        }
        out.push(if b[i + 1] == b'n' {
            '\n'
        } else {
            b[i + 1] as char
        });
        run = i + 2;
    }
    Cow::Owned(out)
}

fn owned(raw: &str, escaped: bool) -> String {
    if escaped {
        unescape(raw, true).into_owned()
    } else {
        raw.to_owned()
    }
}

/// Walks the elements of a list field (separator `,`): `f(text, escaped,
/// marked)` for each. Returns the element count.
#[inline]
fn elements<'a>(raw: &'a str, mut f: impl FnMut(&'a str, bool, bool) -> R<()>) -> R<usize> {
    if raw.is_empty() {
        return Ok(0);
    }
    let b = raw.as_bytes();
    let (mut start, mut i, mut esc, mut n) = (0, 0, false, 0);
    loop {
        i = find(b, i, [b',', b'\\', b'"']);
        let end = i >= b.len();
        if end || b[i] == b',' {
            i = i.min(b.len());
            let mut part = trim(&raw[start..i]);
            let mut marked = false;
            if part.ends_with('*') {
                let bs = if esc {
                    part.as_bytes()[..part.len() - 1]
                        .iter()
                        .rev()
                        .take_while(|&&c| c == b'\\')
                        .count()
                } else {
                    0
                };
                if bs % 2 == 0 {
                    marked = true;
                    part = trim(&part[..part.len() - 1]);
                }
            }
            f(part, esc, marked)?;
            n += 1;
            if end {
                return Ok(n);
            }
            i += 1;
            start = i;
            esc = false;
            continue;
        }
        if b[i] == b'"' {
            return Err("quoted element (not read by the floor)");
        }
        esc = true;
        i += 2;
    }
}

/// An int: `-?[0-9]+`, within i64.
fn int(raw: &str) -> R<i64> {
    let b = raw.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 18 {
        return Err("expected int");
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return Err("expected int");
        }
        v = v * 10 + i64::from(d - b'0');
    }
    Ok(if neg { -v } else { v })
}

/// A float: `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`, finite.
fn float(raw: &str) -> R<f64> {
    float_syntax(raw)?;
    let v: f64 = raw.parse().map_err(|_| "expected number")?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("not a finite double")
    }
}

/// A float's text checked without reading the double: its syntax, and a
/// finite value for sure (no exponent and at most 300 characters; any
/// other text is read).
fn float_checked(raw: &str) -> R<()> {
    if raw.len() <= 300 && !raw.bytes().any(|c| c == b'e' || c == b'E') {
        float_syntax(raw)
    } else {
        float(raw).map(drop)
    }
}

/// `-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn float_syntax(raw: &str) -> R<()> {
    let b = raw.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    if !digits(&mut i) {
        return Err("expected number");
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return Err("expected number");
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return Err("expected number");
        }
    }
    if i != b.len() {
        return Err("expected number");
    }
    Ok(())
}

fn level_name(raw: &str) -> R<Level> {
    Ok(match raw {
        "remember" => Level::Remember,
        "understand" => Level::Understand,
        "apply" => Level::Apply,
        "analyze" => Level::Analyze,
        "evaluate" => Level::Evaluate,
        "create" => Level::Create,
        _ => return Err("not in the enum"),
    })
}

/// Walks a header line: its prefix checked, then `entry(key, value,
/// escaped)` for each `key=value` entry (both trimmed).
fn header_entries<'a>(
    line: &'a str,
    prefix: &str,
    mut entry: impl FnMut(&'a str, &'a str, bool) -> R<()>,
) -> R<()> {
    let mut f = Fields::new(line);
    if f.required()?.0 != prefix {
        return Err("wrong prefix");
    }
    while let Some((raw, esc)) = f.next()? {
        let (key, value) = raw.split_once('=').ok_or("header entry without =")?;
        entry(trim(key), trim(value), esc)?;
    }
    Ok(())
}

/// A header count: an int that fits `T`.
fn count<T: TryFrom<i64>>(value: &str, what: &'static str) -> R<T> {
    T::try_from(int(value)?).map_err(|_| what)
}

fn header(line: &str) -> R<QuizHeader> {
    let (mut n, mut k, mut topic) = (None, None, None);
    header_entries(line, "quiz", |key, value, esc| {
        match key {
            "n" => n = Some(count(value, "n < 0")?),
            "k" => k = Some(count(value, "k out of range")?),
            "topic" => topic = Some(owned(value, esc)),
            _ => {}
        }
        Ok(())
    })?;
    Ok(QuizHeader {
        n: n.ok_or("header lacks n")?,
        k: k.ok_or("header lacks k")?,
        topic,
    })
}

/// The significant lines: `(1-based number, text)`, blank lines skipped.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty())
}

/// One record line into a `Question`, every rule checked; its id claimed.
#[inline]
fn question<'a>(line: &'a str, k: u32, seen: &mut Ids<'a>) -> R<Question> {
    let mut f = Fields::new(line);
    let (raw, esc) = f.required()?;
    if raw.is_empty() {
        return Err("id is empty");
    }
    if !seen.insert(unescape(raw, esc)) {
        return Err("duplicate id");
    }
    let id = owned(raw, esc);
    let (raw, esc) = f.required()?;
    if raw.is_empty() {
        return Err("stem is empty");
    }
    let stem = owned(raw, esc);
    let (raw, _) = f.required()?;
    let mut options = Vec::with_capacity((k as usize).min(6));
    let mut answer = None;
    let mut marks = 0;
    let n = elements(raw, |t, esc, marked| {
        if marked {
            answer = Some(options.len());
            marks += 1;
        }
        options.push(owned(t, esc));
        Ok(())
    })?;
    if !(2..=6).contains(&n) || n != k as usize {
        return Err("options: wrong count");
    }
    if marks != 1 {
        return Err("options: exactly one * required");
    }
    let (raw, _) = f.required()?;
    let level = int(raw)?;
    if !(1..=5).contains(&level) {
        return Err("level out of range");
    }
    let level_name = level_name(f.required()?.0)?;
    let (raw, _) = f.required()?;
    let mut tags = Vec::new();
    let n = elements(raw, |t, esc, marked| {
        if marked {
            return Err("marker in a plain list");
        }
        if tags.len() == 5 {
            return Err("tags: more than 5");
        }
        tags.push(owned(t, esc));
        Ok(())
    })?;
    debug_assert!(n <= 5);
    let irt = irt(f.required()?.0)?;
    let note = match f.next()? {
        None => None,
        Some(("", _)) => None,
        Some((raw, esc)) => Some(owned(raw, esc)),
    };
    if f.next()?.is_some() {
        return Err("too many fields");
    }
    Ok(Question {
        id,
        stem,
        options,
        answer: answer.unwrap_or(0),
        level: level as u8,
        level_name,
        tags,
        irt,
        note,
    })
}

fn irt(raw: &str) -> R<Irt> {
    let mut parts = [0.0f64; 3];
    let n = elements(raw, |t, _, marked| {
        if marked {
            return Err("marker in a tuple");
        }
        if t.is_empty() {
            return Err("empty tuple component");
        }
        Ok(())
    })?;
    if n != 3 {
        return Err("tuple expects 3 components");
    }
    // the components hold no escape nor quote (they are numbers): a split
    for (slot, t) in parts.iter_mut().zip(raw.split(',')) {
        *slot = float(trim(t))?;
    }
    if !(-4.0..=4.0).contains(&parts[1]) {
        return Err("irt.b out of range");
    }
    Ok(Irt {
        a: parts[0],
        b: parts[1],
        c: parts[2],
    })
}

/// The tuple checked without building it (validation): three
/// components, each a finite number, `b` within its bounds; only `b` is
/// read as a double. A component is the trimmed text between commas: a
/// number holds no escape, quote or marker, so any of them fails its
/// syntax.
fn check_irt(raw: &str) -> R<()> {
    const COUNT: &str = "tuple expects 3 components";
    let bytes = raw.as_bytes();
    let first = memchr::memchr(b',', bytes).ok_or(COUNT)?;
    let second = first + 1 + memchr::memchr(b',', &bytes[first + 1..]).ok_or(COUNT)?;
    if memchr::memchr(b',', &bytes[second + 1..]).is_some() {
        return Err(COUNT);
    }
    float_checked(trim(&raw[..first]))?;
    float_checked(trim(&raw[second + 1..]))?;
    if !(-4.0..=4.0).contains(&float(trim(&raw[first + 1..second]))?) {
        return Err("irt.b out of range");
    }
    Ok(())
}

/// Reads a quiz document into a `Quiz`, every rule checked.
pub fn decode(text: &str) -> Result<Quiz, Fault> {
    let (header, rest) = head(text, header)?;
    let mut seen = ids(header.n);
    let items = body(text, rest, header.n, |line| {
        question(line, header.k, &mut seen)
    })?;
    Ok(Quiz { header, items })
}

/// A document's first significant line read by `header`, and the lines
/// after it.
pub(crate) fn head<'a, H>(
    text: &'a str,
    header: impl FnOnce(&'a str) -> R<H>,
) -> Result<(H, impl Iterator<Item = (usize, &'a str)>), Fault> {
    let mut it = lines(text);
    let (hl, h) = it.next().ok_or(Fault {
        line: 0,
        what: "no header",
    })?;
    let header = header(h).map_err(|what| Fault { line: hl, what })?;
    Ok((header, it))
}

/// The record lines read by `record` (a fault on its 1-based line), into a
/// vector sized from `n` capped by what `text` can hold; their count
/// checked against `n`.
pub(crate) fn body<'a, T>(
    text: &'a str,
    lines: impl Iterator<Item = (usize, &'a str)>,
    n: u64,
    mut record: impl FnMut(&'a str) -> R<T>,
) -> Result<Vec<T>, Fault> {
    let cap = usize::try_from(n.min(text.len() as u64 / 16)).unwrap_or(0);
    let mut items = Vec::with_capacity(cap);
    for (ln, line) in lines {
        items.push(record(line).map_err(|what| Fault { line: ln, what })?);
    }
    if items.len() as u64 != n {
        return Err(Fault {
            line: 0,
            what: "n differs from the record lines",
        });
    }
    Ok(items)
}

/// One record line checked, nothing built but the id's claim.
#[inline]
fn check_question<'a>(line: &'a str, k: u32, seen: &mut Ids<'a>) -> R<()> {
    let mut f = Fields::new(line);
    let (raw, esc) = f.required()?;
    if raw.is_empty() {
        return Err("id is empty");
    }
    if !seen.insert(unescape(raw, esc)) {
        return Err("duplicate id");
    }
    if f.required()?.0.is_empty() {
        return Err("stem is empty");
    }
    let (raw, _) = f.required()?;
    let mut marks = 0;
    let n = elements(raw, |_, _, marked| {
        marks += usize::from(marked);
        Ok(())
    })?;
    if !(2..=6).contains(&n) || n != k as usize {
        return Err("options: wrong count");
    }
    if marks != 1 {
        return Err("options: exactly one * required");
    }
    let level = int(f.required()?.0)?;
    if !(1..=5).contains(&level) {
        return Err("level out of range");
    }
    level_name(f.required()?.0)?;
    let n = elements(f.required()?.0, |_, _, marked| {
        if marked {
            Err("marker in a plain list")
        } else {
            Ok(())
        }
    })?;
    if n > 5 {
        return Err("tags: more than 5");
    }
    check_irt(f.required()?.0)?;
    f.next()?;
    if f.next()?.is_some() {
        return Err("too many fields");
    }
    Ok(())
}

/// Checks a quiz document, every rule, building nothing.
pub fn validate(text: &str) -> Result<(), Fault> {
    let (header, rest) = head(text, header)?;
    let mut seen = ids(header.n);
    // a vector of `()` holds no memory
    body(text, rest, header.n, |line| {
        check_question(line, header.k, &mut seen)
    })
    .map(drop)
}

// ---------------------------------------------------------------------------
// writing
// ---------------------------------------------------------------------------

/// Appends `s` escaped as a scalar (`\`, `|`, line break) or, when `elem`,
/// as a list element (also `,`, a leading `"` and a final `*`).
#[inline]
fn escape(out: &mut String, s: &str, elem: bool) -> R<()> {
    let b = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    loop {
        i = if elem {
            find(b, i, [b'\\', b'|', b'\n', b'\r', b',', b'"', b'*'])
        } else {
            find(b, i, [b'\\', b'|', b'\n', b'\r'])
        };
        let Some(&c) = b.get(i) else { break };
        i += 1;
        let i = i - 1;
        let esc = match c {
            b'\\' => "\\\\",
            b'|' => "\\|",
            b'\n' => "\\n",
            b'\r' => return Err("carriage return in text"),
            b',' if elem => "\\,",
            b'"' if elem && i == 0 => "\\\"",
            b'*' if elem && i + 1 == b.len() => "\\*",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        out.push_str(esc);
        run = i + 1;
    }
    out.push_str(&s[run..]);
    if b.first().is_some_and(|&c| is_space(c)) || b.last().is_some_and(|&c| is_space(c)) {
        return Err("outer whitespace in text");
    }
    Ok(())
}

fn put_uint(out: &mut String, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // ASCII digits
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap());
}

/// Appends a finite double as `Display` writes it (the bytes mini writes
/// for a double within `1e-15..1e15`, the only ones this family has), in
/// its shortest digits by `zmij` (serde_json's float printer) when they are
/// at most 15 significant ones with no exponent: then they are the only
/// shortest digits and `Display`'s too. Otherwise `Display` itself.
fn put_float(out: &mut String, x: f64) -> R<()> {
    use std::fmt::Write as _;
    if !x.is_finite() {
        return Err("not a finite double");
    }
    if x == 0.0 {
        out.push('0');
        return Ok(());
    }
    let mut buf = zmij::Buffer::new();
    let t = buf.format_finite(x);
    let t = t.strip_suffix(".0").unwrap_or(t);
    if t.len() <= 16 && (1e-5..1e15).contains(&x.abs()) {
        out.push_str(t);
    } else {
        write!(out, "{x}").unwrap();
    }
    Ok(())
}

fn put_record(out: &mut String, q: &Question, k: u32) -> R<()> {
    if q.id.is_empty() || q.stem.is_empty() {
        return Err("empty required text");
    }
    escape(out, &q.id, false)?;
    out.push('|');
    escape(out, &q.stem, false)?;
    out.push('|');
    let n = q.options.len();
    if !(2..=6).contains(&n) || n != k as usize || q.answer >= n {
        return Err("options: wrong count or answer");
    }
    for (i, o) in q.options.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        escape(out, o, true)?;
        if i == q.answer {
            out.push('*');
        }
    }
    out.push('|');
    if !(1..=5).contains(&q.level) {
        return Err("level out of range");
    }
    put_uint(out, u64::from(q.level));
    out.push('|');
    out.push_str(match q.level_name {
        Level::Remember => "remember",
        Level::Understand => "understand",
        Level::Apply => "apply",
        Level::Analyze => "analyze",
        Level::Evaluate => "evaluate",
        Level::Create => "create",
    });
    out.push('|');
    if q.tags.len() > 5 {
        return Err("tags: more than 5");
    }
    for (i, t) in q.tags.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        escape(out, t, true)?;
    }
    out.push('|');
    if !(-4.0..=4.0).contains(&q.irt.b) {
        return Err("irt.b out of range");
    }
    put_float(out, q.irt.a)?;
    out.push(',');
    put_float(out, q.irt.b)?;
    out.push(',');
    put_float(out, q.irt.c)?;
    if let Some(note) = &q.note {
        out.push('|');
        escape(out, note, false)?;
    }
    Ok(())
}

/// Writes a `Quiz` as `.mini` (the bytes `mini::to_string` writes for
/// this family), every rule the Rust type does not guarantee checked.
pub fn encode(doc: &Quiz) -> Result<String, Fault> {
    let mut out = String::with_capacity(64 + doc.items.len() * 192);
    out.push_str("quiz|n=");
    put_uint(&mut out, doc.items.len() as u64);
    out.push_str("|k=");
    put_uint(&mut out, u64::from(doc.header.k));
    if let Some(t) = &doc.header.topic {
        out.push_str("|topic=");
        escape(&mut out, t, false).map_err(|what| Fault { line: 1, what })?;
    }
    let mut seen: HashSet<&str, BuildHasherDefault<Fx>> =
        HashSet::with_capacity_and_hasher(doc.items.len(), BuildHasherDefault::default());
    for (i, q) in doc.items.iter().enumerate() {
        let fault = |what| Fault { line: i + 2, what };
        if !seen.insert(&q.id) {
            return Err(fault("duplicate id"));
        }
        out.push('\n');
        put_record(&mut out, q, doc.header.k).map_err(fault)?;
    }
    Ok(out)
}
