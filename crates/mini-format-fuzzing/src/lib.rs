//! Fuzz target bodies and their inputs (issue 6: no input crashes, hangs
//! or exhausts the parser; escapes and markers always round-trip).
//!
//! Compiled only with the `fuzzing` feature. The cargo-fuzz project in
//! `fuzz/` (its own workspace, nightly, libFuzzer) has one thin
//! `fuzz_target!` per body below; `tests/fuzz_replay.rs` replays every seed
//! (`fuzz/seeds/<target>/`) and every saved crash
//! (`fuzz/regressions/<target>/`) through the same bodies on stable with
//! `cargo test --features fuzzing --test fuzz_replay`. `docs/fuzzing.md`
//! says how to run them and what each one asserts.
//!
//! | target | input | asserts |
//! |---|---|---|
//! | [`parse_bytes`] | raw bytes | no panic; strict ⇔ lenient without errors; limits; lenient ⊆ line-by-line |
//! | [`escape_marker_roundtrip`] | [`EscapeInput`] | `parse(dumps(o)) ≡ o` or a documented rejection; the quoted spelling parses the same |
//! | [`canonical_roundtrip`] | [`CanonicalInput`] | generated contract + valid object: `parse(dumps(o)) ≡ o`, `dumps(parse(t)) == t` |
//! | [`stream_chunks`] | [`StreamInput`] | the push [`Reader`] equals the whole-text parse for any chunking |
//! | [`contract_json`] | raw bytes → JSON | `Contract::from_value` gives a contract or E20; a contract round-trips |
//! | `typed_roundtrip` (feature `derive`) | `TypedDoc` | `from_str(to_string(x)) == x` for `#[derive(mini::Mini)]` types |
//!
//! Every body panics (with a message naming the property) when a property
//! fails; that is what the fuzzer reports as a crash.
//!
//! ## Inputs and seeds
//!
//! The structured inputs decode with [`arbitrary`] exactly as
//! `libfuzzer-sys` does ([`decode`]: `arbitrary_take_rest`). They only read
//! from the front of the data (integers, enum tags, continuation flags), so
//! [`Encode`] can write the bytes of a chosen value: that is how the seed
//! files are made from the upstream fixtures and the examples.
//!
//! ## Known findings
//!
//! A property violation found by fuzzing is saved under
//! `fuzz/regressions/<target>/` and keeps failing the replay test until it
//! is fixed. To explore *past* a reported finding, list its id in the
//! environment variable `MINI_FUZZ_TOLERATE` (comma-separated, see
//! [`KNOWN_FINDINGS`]); CI never sets it.

use std::collections::BTreeSet;
use std::panic::Location;
use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{json, Map, Number, Value};

use mini::__private::check::number::Dec;
use mini::__private::syntax::{self, is_space};
use mini::contract::Contract;
use mini::stream::{Reader, ReaderOptions, StreamEnd};
use mini::value::{self, equivalent, Document, ParseOptions, Record};
use mini::{Code, Diagnostic};

// ---------------------------------------------------------------------------
// targets
// ---------------------------------------------------------------------------

/// The fuzz targets, by name (the file names under `fuzz/fuzz_targets/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// [`parse_bytes`].
    ParseBytes,
    /// [`escape_marker_roundtrip`].
    EscapeMarkerRoundtrip,
    /// [`canonical_roundtrip`].
    CanonicalRoundtrip,
    /// [`stream_chunks`].
    StreamChunks,
    /// [`contract_json`].
    ContractJson,
    /// [`typed_roundtrip`] (with the `derive` feature).
    TypedRoundtrip,
    /// [`lexer_equivalence`].
    LexerEquivalence,
}

impl Target {
    /// Every target.
    pub const ALL: &'static [Target] = &[
        Target::ParseBytes,
        Target::EscapeMarkerRoundtrip,
        Target::CanonicalRoundtrip,
        Target::StreamChunks,
        Target::ContractJson,
        Target::TypedRoundtrip,
        Target::LexerEquivalence,
    ];

    /// The target's name (`parse_bytes`, …).
    pub fn name(self) -> &'static str {
        match self {
            Target::ParseBytes => "parse_bytes",
            Target::EscapeMarkerRoundtrip => "escape_marker_roundtrip",
            Target::CanonicalRoundtrip => "canonical_roundtrip",
            Target::StreamChunks => "stream_chunks",
            Target::ContractJson => "contract_json",
            Target::TypedRoundtrip => "typed_roundtrip",
            Target::LexerEquivalence => "lexer_equivalence",
        }
    }

    /// The target named `name`.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.iter().copied().find(|t| t.name() == name)
    }

    /// Runs the target on raw fuzzer bytes, decoding structured inputs the
    /// way `libfuzzer-sys` does (an input that does not decode is skipped).
    pub fn run(self, data: &[u8]) {
        match self {
            Target::ParseBytes => parse_bytes(data),
            Target::ContractJson => contract_json(data),
            Target::LexerEquivalence => lexer_equivalence(data),
            Target::EscapeMarkerRoundtrip => {
                if let Some(input) = decode::<EscapeInput>(data) {
                    escape_marker_roundtrip(&input);
                }
            }
            Target::CanonicalRoundtrip => {
                if let Some(input) = decode::<CanonicalInput>(data) {
                    canonical_roundtrip(&input);
                }
            }
            Target::StreamChunks => {
                if let Some(input) = decode::<StreamInput>(data) {
                    stream_chunks(&input);
                }
            }
            Target::TypedRoundtrip => {
                if let Some(input) = decode::<TypedDoc>(data) {
                    typed_roundtrip(&input);
                }
            }
        }
    }
}

/// Decodes fuzzer bytes into a structured input exactly as
/// `libfuzzer-sys`'s `fuzz_target!` does: inputs shorter than the type's
/// minimum size are skipped, then `arbitrary_take_rest`.
pub fn decode<'a, T: Arbitrary<'a>>(data: &'a [u8]) -> Option<T> {
    if data.len() < T::size_hint(0).0 {
        return None;
    }
    T::arbitrary_take_rest(Unstructured::new(data)).ok()
}

/// Findings that `MINI_FUZZ_TOLERATE` may name, with what they are (a
/// finding's id stays here after its fix; its minimized input stays under
/// `fuzz/regressions/`).
pub const KNOWN_FINDINGS: &[(&str, &str)] = &[(
    "null-single-component",
    "dumps wrote the null optional component of a one-component tuple as \
     nothing, so the field (or header value) was empty: zero components, E07 \
     on reading a required tuple or a header key, null for an optional \
     field (fixed in 42dc6a9; fuzz/regressions/canonical_roundtrip/\
     null-single-component-header guards it)",
)];

fn tolerated(id: &str) -> bool {
    static LIST: OnceLock<Vec<String>> = OnceLock::new();
    LIST.get_or_init(|| {
        std::env::var("MINI_FUZZ_TOLERATE")
            .map(|v| v.split(',').map(|s| s.trim().to_string()).collect())
            .unwrap_or_default()
    })
    .iter()
    .any(|k| k == id || k == "all")
}

#[track_caller]
fn fail(what: impl std::fmt::Display) -> ! {
    panic!("property violated ({}): {what}", Location::caller())
}

// ---------------------------------------------------------------------------
// seed encoding and small input types
// ---------------------------------------------------------------------------

/// Writes the bytes that this module's [`Arbitrary`] impls decode back to a
/// chosen value (seed files are made with it).
///
/// It mirrors `arbitrary` 1.x: integers are little-endian and read from the
/// front, `bool` is the low bit of a byte, a derived enum's variant is
/// chosen by `(u32 × count) >> 32`.
#[derive(Debug, Default, Clone)]
pub struct SeedWriter {
    bytes: Vec<u8>,
}

impl SeedWriter {
    /// An empty writer.
    pub fn new() -> Self {
        SeedWriter::default()
    }

    /// A `u8`.
    pub fn u8(&mut self, x: u8) -> &mut Self {
        self.bytes.push(x);
        self
    }

    /// A `u16`.
    pub fn u16(&mut self, x: u16) -> &mut Self {
        self.bytes.extend_from_slice(&x.to_le_bytes());
        self
    }

    /// A `u32`.
    pub fn u32(&mut self, x: u32) -> &mut Self {
        self.bytes.extend_from_slice(&x.to_le_bytes());
        self
    }

    /// A `u64`.
    pub fn u64(&mut self, x: u64) -> &mut Self {
        self.bytes.extend_from_slice(&x.to_le_bytes());
        self
    }

    /// A `bool`.
    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.u8(u8::from(b))
    }

    /// The tag of variant `index` of a derived enum with `count` variants.
    pub fn variant(&mut self, index: u32, count: u32) -> &mut Self {
        let (i, n) = (u64::from(index), u64::from(count));
        let tag = (i << 32).div_ceil(n);
        self.u32(u32::try_from(tag).unwrap_or(u32::MAX))
    }

    /// Raw bytes (for an input's trailing "rest of the data").
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.bytes.extend_from_slice(b);
        self
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// Inputs whose fuzzer bytes can be written (see [`SeedWriter`]).
pub trait Encode {
    /// Appends the bytes that decode to `self`.
    fn encode(&self, w: &mut SeedWriter);

    /// The bytes that decode to `self`, as a seed file holds them.
    fn to_seed(&self) -> Vec<u8> {
        let mut w = SeedWriter::new();
        self.encode(&mut w);
        w.into_bytes()
    }
}

impl Encode for u8 {
    fn encode(&self, w: &mut SeedWriter) {
        w.u8(*self);
    }
}

impl Encode for u16 {
    fn encode(&self, w: &mut SeedWriter) {
        w.u16(*self);
    }
}

impl Encode for i16 {
    fn encode(&self, w: &mut SeedWriter) {
        w.bytes(&self.to_le_bytes());
    }
}

impl Encode for bool {
    fn encode(&self, w: &mut SeedWriter) {
        w.bool(*self);
    }
}

impl<T: Encode> Encode for Option<T> {
    fn encode(&self, w: &mut SeedWriter) {
        match self {
            None => {
                w.bool(false);
            }
            Some(x) => {
                w.bool(true);
                x.encode(w);
            }
        }
    }
}

/// Longest [`Seq`] decoded.
pub const SEQ_MAX: usize = 24;

/// A short sequence: each element is preceded by a continuation flag read
/// from the front (at most [`SEQ_MAX`] elements).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seq<T>(pub Vec<T>);

impl<T> Default for Seq<T> {
    fn default() -> Self {
        Seq(Vec::new())
    }
}

impl<'a, T: Arbitrary<'a>> Arbitrary<'a> for Seq<T> {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut out = Vec::new();
        while out.len() < SEQ_MAX && !u.is_empty() && bool::arbitrary(u)? {
            out.push(T::arbitrary(u)?);
        }
        Ok(Seq(out))
    }
}

impl<T: Encode> Encode for Seq<T> {
    fn encode(&self, w: &mut SeedWriter) {
        for x in self.0.iter().take(SEQ_MAX) {
            w.bool(true);
            x.encode(w);
        }
        if self.0.len() < SEQ_MAX {
            w.bool(false);
        }
    }
}

/// One piece of a fuzzed string, biased to what `.mini` treats specially.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum Piece {
    /// `|`
    Pipe,
    /// `,`
    Comma,
    /// `;`
    Semicolon,
    /// TAB
    Tab,
    /// `*`
    Star,
    /// `\`
    Backslash,
    /// `"`
    Quote,
    /// LF
    Lf,
    /// CR
    Cr,
    /// CR LF
    CrLf,
    /// a space
    Space,
    /// `=`
    Equals,
    /// `·` (a separator of the fuzz contracts)
    MiddleDot,
    /// `a`–`z`
    Letter(u8),
    /// `0`–`9`
    Digit(u8),
    /// One of [`UNICODE`].
    Unicode(u8),
    /// Any scalar value (`u32` modulo U+110000; surrogates become U+FFFD).
    Char(u32),
}

const PIECE_VARIANTS: u32 = 17;

/// Non-ASCII characters [`Piece::Unicode`] picks from: letters, CJK, an
/// emoji, and the Unicode whitespace `.mini` trims (NBSP, U+2028, U+3000,
/// U+0085, the information separators) or does not (U+200B, U+FEFF).
pub const UNICODE: [char; 16] = [
    'é', 'ß', 'ñ', '漢', '😀', '\u{a0}', '\u{2028}', '\u{3000}', '\u{85}', '\u{1f}', '\u{1c}',
    '\u{200b}', '\u{feff}', '¦', '\u{0}', 'Ω',
];

impl Piece {
    fn push_to(self, out: &mut String) {
        match self {
            Piece::Pipe => out.push('|'),
            Piece::Comma => out.push(','),
            Piece::Semicolon => out.push(';'),
            Piece::Tab => out.push('\t'),
            Piece::Star => out.push('*'),
            Piece::Backslash => out.push('\\'),
            Piece::Quote => out.push('"'),
            Piece::Lf => out.push('\n'),
            Piece::Cr => out.push('\r'),
            Piece::CrLf => out.push_str("\r\n"),
            Piece::Space => out.push(' '),
            Piece::Equals => out.push('='),
            Piece::MiddleDot => out.push('·'),
            Piece::Letter(b) => out.push(char::from(b'a' + b % 26)),
            Piece::Digit(b) => out.push(char::from(b'0' + b % 10)),
            Piece::Unicode(i) => out.push(UNICODE[usize::from(i) % UNICODE.len()]),
            Piece::Char(x) => out.push(char::from_u32(x % 0x11_0000).unwrap_or('\u{fffd}')),
        }
    }

    /// The piece that writes `c` (ASCII letters and digits get their own
    /// pieces; anything else unusual is [`Piece::Char`]).
    pub fn of_char(c: char) -> Piece {
        match c {
            '|' => Piece::Pipe,
            ',' => Piece::Comma,
            ';' => Piece::Semicolon,
            '\t' => Piece::Tab,
            '*' => Piece::Star,
            '\\' => Piece::Backslash,
            '"' => Piece::Quote,
            '\n' => Piece::Lf,
            '\r' => Piece::Cr,
            ' ' => Piece::Space,
            '=' => Piece::Equals,
            '·' => Piece::MiddleDot,
            'a'..='z' => Piece::Letter(c as u8 - b'a'),
            '0'..='9' => Piece::Digit(c as u8 - b'0'),
            c => match UNICODE.iter().position(|&u| u == c) {
                Some(i) => Piece::Unicode(i as u8),
                None => Piece::Char(c as u32),
            },
        }
    }
}

impl Encode for Piece {
    fn encode(&self, w: &mut SeedWriter) {
        let n = PIECE_VARIANTS;
        match *self {
            Piece::Pipe => w.variant(0, n),
            Piece::Comma => w.variant(1, n),
            Piece::Semicolon => w.variant(2, n),
            Piece::Tab => w.variant(3, n),
            Piece::Star => w.variant(4, n),
            Piece::Backslash => w.variant(5, n),
            Piece::Quote => w.variant(6, n),
            Piece::Lf => w.variant(7, n),
            Piece::Cr => w.variant(8, n),
            Piece::CrLf => w.variant(9, n),
            Piece::Space => w.variant(10, n),
            Piece::Equals => w.variant(11, n),
            Piece::MiddleDot => w.variant(12, n),
            Piece::Letter(b) => w.variant(13, n).u8(b),
            Piece::Digit(b) => w.variant(14, n).u8(b),
            Piece::Unicode(b) => w.variant(15, n).u8(b),
            Piece::Char(x) => w.variant(16, n).u32(x),
        };
    }
}

/// A fuzzed string: a sequence of [`Piece`]s.
#[derive(Debug, Clone, PartialEq, Eq, Default, Arbitrary)]
pub struct Text(pub Seq<Piece>);

impl Text {
    /// The string.
    pub fn string(&self) -> String {
        let mut s = String::new();
        for p in &self.0 .0 {
            p.push_to(&mut s);
        }
        s
    }

    /// The text that writes `s` (truncated to [`SEQ_MAX`] pieces).
    pub fn of(s: &str) -> Text {
        let mut pieces = Vec::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if pieces.len() == SEQ_MAX {
                break;
            }
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
                pieces.push(Piece::CrLf);
            } else {
                pieces.push(Piece::of_char(c));
            }
        }
        Text(Seq(pieces))
    }
}

impl Encode for Text {
    fn encode(&self, w: &mut SeedWriter) {
        self.0.encode(w);
    }
}

/// The list separator of a fuzz contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum Separator {
    /// `,` (the default).
    Comma,
    /// `;`
    Semicolon,
    /// TAB, a separator that is also whitespace.
    Tab,
    /// `·` (U+00B7), a non-ASCII separator.
    MiddleDot,
}

impl Separator {
    /// Every separator.
    pub const ALL: [Separator; 4] = [
        Separator::Comma,
        Separator::Semicolon,
        Separator::Tab,
        Separator::MiddleDot,
    ];

    /// The character.
    pub fn char(self) -> char {
        match self {
            Separator::Comma => ',',
            Separator::Semicolon => ';',
            Separator::Tab => '\t',
            Separator::MiddleDot => '·',
        }
    }

    /// The separator for `c`, if it is one of these.
    pub fn of_char(c: char) -> Option<Separator> {
        Separator::ALL.into_iter().find(|s| s.char() == c)
    }

    fn index(self) -> usize {
        self as usize
    }
}

impl Encode for Separator {
    fn encode(&self, w: &mut SeedWriter) {
        w.variant(*self as u32, 4);
    }
}

/// A marked-list rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum Rule {
    /// `exactly_one`
    ExactlyOne,
    /// `at_least_one`
    AtLeastOne,
    /// `at_most_one`
    AtMostOne,
    /// `any`
    Any,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 4] = [
        Rule::ExactlyOne,
        Rule::AtLeastOne,
        Rule::AtMostOne,
        Rule::Any,
    ];

    /// The contract name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::ExactlyOne => "exactly_one",
            Rule::AtLeastOne => "at_least_one",
            Rule::AtMostOne => "at_most_one",
            Rule::Any => "any",
        }
    }

    fn single(self) -> bool {
        matches!(self, Rule::ExactlyOne | Rule::AtMostOne)
    }

    fn allows(self, marked: usize) -> bool {
        match self {
            Rule::ExactlyOne => marked == 1,
            Rule::AtLeastOne => marked >= 1,
            Rule::AtMostOne => marked <= 1,
            Rule::Any => true,
        }
    }

    fn needs_one(self) -> bool {
        matches!(self, Rule::ExactlyOne | Rule::AtLeastOne)
    }
}

impl Encode for Rule {
    fn encode(&self, w: &mut SeedWriter) {
        w.variant(*self as u32, 4);
    }
}

// ---------------------------------------------------------------------------
// helpers shared by the bodies
// ---------------------------------------------------------------------------

/// Whether the serializer can carry `s` unchanged in a value (no outer
/// whitespace other than line breaks, which it escapes; ADR 0004).
fn survives(s: &str) -> bool {
    let trimmed = |c: char| is_space(c) && c != '\n' && c != '\r';
    !(s.starts_with(trimmed) || s.ends_with(trimmed))
}

/// Whether `dumps` writes `s` under list separator `sep`: it survives, or
/// its only outer whitespace is a whitespace separator (a TAB), which the
/// serializer writes `\<sep>` in every position (SPEC 1.1 §3.3).
fn writable(s: &str, sep: char) -> bool {
    let trimmed = |c: char| is_space(c) && c != '\n' && c != '\r' && c != sep;
    !(s.starts_with(trimmed) || s.ends_with(trimmed))
}

/// `s` without the outer whitespace the serializer refuses.
fn survivor(s: &str) -> String {
    s.trim_matches(|c: char| is_space(c) && c != '\n' && c != '\r')
        .to_string()
}

/// What a string reads back as after `dumps`: every line break (CRLF or a
/// lone CR) becomes LF (ADR 0004).
fn breaks_normalized(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\r', "\n")
}

/// `v` with [`breaks_normalized`] applied to every string value.
fn values_breaks_normalized(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(breaks_normalized(s)),
        Value::Array(a) => Value::Array(a.iter().map(values_breaks_normalized).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), values_breaks_normalized(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn codes(diags: &[Diagnostic]) -> BTreeSet<Code> {
    diags.iter().map(Diagnostic::code).collect()
}

fn render(diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Asserts that two documents are the same parse (errors, canonical object,
/// diagnostics).
fn same_document(a: &Document, b: &Document, what: &str) {
    if a.errors() != b.errors() {
        fail(format!(
            "{what}: errors differ:\n  {}\nvs\n  {}",
            render(a.errors()),
            render(b.errors())
        ));
    }
    if a.to_canonical() != b.to_canonical() {
        fail(format!(
            "{what}: canonical objects differ:\n  {}\nvs\n  {}",
            a.to_canonical(),
            b.to_canonical()
        ));
    }
    if a.diagnostics() != b.diagnostics() {
        fail(format!(
            "{what}: diagnostics differ:\n  {:?}\nvs\n  {:?}",
            a.diagnostics(),
            b.diagnostics()
        ));
    }
}

fn same_records(a: &[Record], b: &[Record], what: &str) {
    if a != b {
        fail(format!(
            "{what}: records differ:\n  {:?}\nvs\n  {:?}",
            a.iter()
                .map(|r| (r.line, r.index, &r.value))
                .collect::<Vec<_>>(),
            b.iter()
                .map(|r| (r.line, r.index, &r.value))
                .collect::<Vec<_>>()
        ));
    }
}

fn contract(v: Value) -> Contract {
    match Contract::from_value(v) {
        Ok(c) => c,
        Err(e) => fail(format!("a fuzz contract must be valid: {e}")),
    }
}

// ---------------------------------------------------------------------------
// the contracts of parse_bytes and stream_chunks
// ---------------------------------------------------------------------------

/// The contracts [`parse_bytes`] parses every input under, and
/// [`stream_chunks`] chooses from: upstream-like families with `,`, `;`,
/// TAB and `·` separators that together use every field type (str, int,
/// float, bool, enum, date, decimal, list, mlist with each of the four
/// marker rules, tuple), optional fields and components, defaults, unique
/// fields, extensions, typed header keys and count keys.
pub fn parse_contracts() -> &'static [Contract] {
    static CONTRACTS: OnceLock<Vec<Contract>> = OnceLock::new();
    CONTRACTS.get_or_init(|| {
        vec![
            // `a`/`q`-like: the quiz family of the upstream suite.
            contract(json!({
                "prefix": "q", "records_key": "items",
                "header": {
                    "required": ["n", "k"],
                    "keys": {
                        "k": {"type": "int"},
                        "t": {"type": "str", "default": "none"},
                        "bd": {"type": "list", "item": "int", "min": 1, "max": 6},
                        "cat": {"type": "tuple", "items": [
                            {"name": "theta", "type": "float"},
                            {"name": "max_items", "type": "int", "min": 0, "max": 99},
                            {"name": "ctrl", "type": "str", "optional": true}]},
                        "day": {"type": "date", "min": "2000-01-01"},
                        "lvl": {"type": "enum", "values": ["lo", "hi"]}
                    }
                },
                "core": [
                    {"name": "id", "type": "str", "unique": true},
                    {"name": "bloom", "type": "enum", "values": ["L1", "L2", "L3", "L4", "L5", "L6"]},
                    {"name": "statement", "type": "str"},
                    {"name": "options", "type": "mlist", "item": "str", "min": 2, "max": 6,
                     "marker": "exactly_one", "count_key": "k",
                     "json": {"items": "options", "selected": "correct"}},
                    {"name": "irt", "type": "tuple", "items": [
                        {"name": "a", "type": "float"},
                        {"name": "b", "type": "float", "min": -4, "max": 4},
                        {"name": "c", "type": "float", "optional": true}]},
                    {"name": "difficulty", "type": "int", "min": 1, "max": 5},
                    {"name": "tags", "type": "list", "item": "str", "optional": true}
                ],
                "extensions": [
                    {"name": "feedback", "type": "str"},
                    {"name": "score", "type": "decimal", "min": "0", "max": "100.00"}
                ]
            })),
            // `tk`-like: tickets with `;`, dates, decimals, bools, `any` and
            // `at_least_one` marked lists, a unique enum list.
            contract(json!({
                "prefix": "tk", "list_separator": ";", "records_key": "tickets",
                "header": {
                    "required": ["queue"],
                    "keys": {
                        "queue": {"type": "str"},
                        "day": {"type": "date"},
                        "team": {"type": "list", "item": "enum", "values": ["ana", "luis", "eva"]},
                        "m": {"type": "int", "min": 0, "max": 9}
                    }
                },
                "core": [
                    {"name": "id", "type": "str", "unique": true},
                    {"name": "opened", "type": "date", "min": "2020-01-01", "max": "2030-12-31"},
                    {"name": "level", "type": "enum", "values": ["low", "high", "critical"]},
                    {"name": "title", "type": "str"},
                    {"name": "areas", "type": "list", "item": "str", "max": 5},
                    {"name": "amount", "type": "decimal", "optional": true, "min": "-1000", "max": "1000"},
                    {"name": "urgent", "type": "bool"}
                ],
                "extensions": [
                    {"name": "owner", "type": "str", "default": "nobody"},
                    {"name": "labels", "type": "mlist", "item": "str", "marker": "any",
                     "json": {"items": "labels", "selected": "primary"}},
                    {"name": "refs", "type": "mlist", "item": "int", "marker": "at_least_one", "min": 1,
                     "json": {"items": "refs", "selected": "main_refs"}},
                    {"name": "codes", "type": "list", "item": "enum",
                     "item_values": ["A1", "B2", "C3"], "unique": true}
                ]
            })),
            // TAB separator, version 2, `at_most_one` with a count key,
            // date and decimal lists, optional tuple components.
            contract(json!({
                "prefix": "tb", "version": 2, "list_separator": "\t", "records_key": "rows",
                "header": {
                    "keys": {
                        "cnt": {"type": "int", "min": 0, "max": 8},
                        "span": {"type": "tuple", "items": [
                            {"name": "from", "type": "date"},
                            {"name": "to", "type": "date", "optional": true}]}
                    }
                },
                "core": [
                    {"name": "a", "type": "int", "unique": true},
                    {"name": "b", "type": "float", "optional": true, "min": -1e6, "max": 1e6},
                    {"name": "pick", "type": "mlist", "item": "str", "marker": "at_most_one",
                     "count_key": "cnt", "json": {"items": "choices", "selected": "chosen"}},
                    {"name": "when", "type": "mlist", "item": "date", "marker": "exactly_one",
                     "optional": true, "json": {"items": "dates", "selected": "main_date"}},
                    {"name": "amounts", "type": "list", "item": "decimal", "min": 0, "max": 3},
                    {"name": "pair", "type": "tuple", "items": [
                        {"name": "x", "type": "int"},
                        {"name": "y", "type": "str", "optional": true},
                        {"name": "z", "type": "bool"}]},
                    {"name": "flag", "type": "bool", "optional": true, "default": false}
                ],
                "extensions": [
                    {"name": "e1", "type": "list", "item": "float"},
                    {"name": "e2", "type": "tuple", "unique": true, "items": [
                        {"name": "d", "type": "date", "optional": true},
                        {"name": "m", "type": "decimal"}]}
                ]
            })),
            // A non-ASCII separator and a unique marked list of enums.
            contract(json!({
                "prefix": "nx", "list_separator": "·",
                "core": [
                    {"name": "tag", "type": "mlist", "item": "enum",
                     "item_values": ["red", "green", "blue"], "marker": "exactly_one",
                     "unique": true, "json": {"items": "tags", "selected": "main"}},
                    {"name": "bits", "type": "list", "item": "bool", "min": 1},
                    {"name": "note", "type": "str", "optional": true}
                ]
            })),
        ]
    })
}

/// One valid document per contract of [`parse_contracts`] (same order),
/// touching every field: seed material, and a check that the contracts are
/// reachable.
pub fn sample_documents() -> [&'static str; 4] {
    [
        "q|n=2|k=3|t=bio|bd=1,2|cat=0.5,12,|day=2024-02-29|lvl=hi\n\
         q1|L1|What \\| why?\\nNext|a\\,b*,\"c, d\",e\\*|0.9,-1,|3|x,y|fb|12.50\n\
         q2|L2|S2|x,y*,\"z\"\"q\"|1,2,0.25|5||",
        "tk|n=2|queue=billing|day=2026-11-28|team=ana;eva|m=3\n\
         T-1|2026-11-27|high|Charged twice|payments;invoices|19.90|true|ana|refund*;dup|7*;8|A1;B2\n\
         T-2|2026-11-28|low|Export? \\| now|account\\;s||0",
        "tb|n=2|cnt=2|span=2026-01-01\t\"\"\n\
         7|1.5|x*\ty|2026-01-02*\t2026-01-03|1.0\t-2.50|3\tfoo\ttrue|1|0.5\t1e3|2026-02-01\t9.99\n\
         8||p\tq|||4\t\tfalse|",
        "nx|n=2\nred·green*|1·0·true|ok\n\"blue\"*|false|",
    ]
}

// ---------------------------------------------------------------------------
// parse_bytes
// ---------------------------------------------------------------------------

/// Record lines per contract checked one by one against the whole parse
/// (keeps the target linear in its input).
const ALONE_LINES: usize = 48;

/// Arbitrary bytes through strict and lenient parsing under every contract
/// of [`parse_contracts`].
///
/// Asserts, for each contract:
///
/// 1. nothing panics; `mini::from_utf8` fails exactly when the bytes are not
///    UTF-8 (invalid bytes are then parsed lossily);
/// 2. `parse` succeeds exactly when `parse_lenient` reports no error, and
///    then gives the same document; otherwise its error lists the same
///    diagnostics; `validate` (values not kept) reports the same
///    diagnostics as `parse_lenient`;
/// 3. `parse_lenient_with` under the default limits equals `parse_lenient`,
///    and under tiny limits either equals it or fails with a limit that the
///    text really exceeds;
/// 4. the account is consistent: valid records + invalid record lines =
///    record lines, lines ascending, every error on line 0, the header line
///    or a record line;
/// 5. **lenient ⊆ line by line**: for each of the first record lines, the
///    one-record document made of the header line and that line
///    (`BOM + header + CRLF + line + CRLF`, which gives back both lines
///    byte for byte) reports the same header errors, and on the record line
///    the same diagnostics minus E11. So a record the lenient parse keeps is
///    accepted alone with the same value, and a rejected line is accepted
///    alone only when all its errors were E11 (uniqueness is the only
///    check that depends on other record lines; count keys and `v` come
///    from the same header; E04 and E01 are document-level, line 0);
/// 6. for a strictly valid document, `dumps` of its canonical object either
///    gives text that parses to an equivalent object and is a fixed point
///    of `dumps ∘ parse` (a raw CR in a value reads back as LF, ADR 0004),
///    or is one of the documented rejections: E06 (a
///    value with outer whitespace kept by quotes, or by `\<TAB>` under a
///    separator other than TAB, ADR 0004),
///    E12 (a header key that is not `[A-Za-z_][A-Za-z0-9_]*`); and the typed
///    serializer (`to_string_with`, checked value by value) gives the same
///    text or the same error codes as `dumps`.
pub fn parse_bytes(data: &[u8]) {
    let owned;
    let text = match std::str::from_utf8(data) {
        Ok(t) => {
            if value::from_utf8(data).is_err() {
                fail("mini::from_utf8 rejected valid UTF-8");
            }
            t
        }
        Err(e) => {
            match value::from_utf8(data) {
                Ok(_) => fail("mini::from_utf8 accepted invalid UTF-8"),
                Err(m) if !m.is_utf8() => fail(format!("not a UTF-8 error: {m}")),
                Err(m) => {
                    let line = data[..e.valid_up_to()]
                        .iter()
                        .filter(|&&b| b == b'\n')
                        .count()
                        + 1;
                    let want = format!(
                        "invalid UTF-8 at line {line}, byte offset {}",
                        e.valid_up_to()
                    );
                    if m.to_string() != want {
                        fail(format!("UTF-8 error '{m}', expected '{want}'"));
                    }
                }
            }
            owned = String::from_utf8_lossy(data).into_owned();
            &owned
        }
    };
    let _ = value::detect_prefix(text);
    for c in parse_contracts() {
        check_text(text, c);
    }
}

fn check_text(text: &str, c: &Contract) {
    let lenient = value::parse_lenient(text, c);
    match value::parse(text, c) {
        Ok(doc) => {
            if !lenient.is_valid() {
                fail("parse accepted a document in which parse_lenient found errors");
            }
            same_document(&doc, &lenient, "parse vs parse_lenient");
        }
        Err(e) => {
            if lenient.is_valid() {
                fail(format!(
                    "parse rejected ({e}) a document parse_lenient found valid"
                ));
            }
            if e.diagnostics() != lenient.errors() {
                fail("parse and parse_lenient report different errors");
            }
        }
    }
    if value::validate(text, c) != lenient.errors() {
        fail("validate and parse_lenient report different errors");
    }
    check_limits(text, c, &lenient);
    check_account(&lenient);
    check_line_by_line(text, c, &lenient);
    if lenient.is_valid() {
        check_redump(c, &lenient);
    }
}

fn check_limits(text: &str, c: &Contract, lenient: &Document) {
    if text.len() < 1 << 20 {
        match value::parse_lenient_with(text, c, &ParseOptions::default()) {
            Ok(d) => same_document(&d, lenient, "parse_lenient_with(default)"),
            Err(e) => fail(format!("default limits hit by {} bytes: {e}", text.len())),
        }
    }
    let tiny = ParseOptions {
        max_input_bytes: usize::MAX,
        max_line_bytes: 48,
        max_records: 2,
    };
    match value::parse_lenient_with(text, c, &tiny) {
        Ok(d) => same_document(&d, lenient, "parse_lenient_with(tiny)"),
        Err(e) => {
            let long = syntax::lines(text).any(|l| l.text.len() > tiny.max_line_bytes);
            let many = lenient.record_lines() > tiny.max_records;
            match e.limit_exceeded() {
                Some(mini::Limit::LineBytes) if long => {}
                Some(mini::Limit::Records) if many => {}
                _ => fail(format!(
                    "parse_lenient_with(tiny) failed with '{e}' (long line: {long}, too many records: {many})"
                )),
            }
        }
    }
}

fn check_account(doc: &Document) {
    let d = doc.diagnostics();
    if d.ok != doc.is_valid() || d.valid_records != doc.records().len() {
        fail("diagnostics disagree with the document");
    }
    if d.valid_lines != doc.records().iter().map(|r| r.line).collect::<Vec<_>>() {
        fail("valid_lines are not the records' lines");
    }
    if !doc
        .records()
        .windows(2)
        .all(|w| w[0].line < w[1].line && w[0].index < w[1].index)
    {
        fail("records out of order");
    }
    if doc.records().iter().any(|r| r.index >= doc.record_lines()) {
        fail("record index past the record lines");
    }
    if doc.has_header() {
        if d.valid_records + d.invalid_lines.len() != d.record_lines {
            fail(format!(
                "valid records ({}) + invalid lines ({}) != record lines ({})",
                d.valid_records,
                d.invalid_lines.len(),
                d.record_lines
            ));
        }
        if d.invalid_lines.iter().any(|l| d.valid_lines.contains(l)) {
            fail("a line is both valid and invalid");
        }
    } else if !doc.records().is_empty() || doc.errors().iter().any(|e| e.code() != Code::E01) {
        fail("a document without header has records or errors other than E01");
    }
}

type Diag3 = (Code, Option<String>, String);

fn on_line(doc: &Document, line: usize) -> Vec<Diag3> {
    doc.errors()
        .iter()
        .filter(|d| d.line() == line)
        .map(|d| {
            (
                d.code(),
                d.field().map(str::to_string),
                d.message().to_string(),
            )
        })
        .collect()
}

fn check_line_by_line(text: &str, c: &Contract, doc: &Document) {
    let mut lines = syntax::lines(text);
    let Some(header) = lines.next() else {
        return;
    };
    let header_errors = on_line(doc, header.number);
    let mut kept = doc.records().iter().peekable();
    for (index, line) in lines.enumerate().take(ALONE_LINES) {
        let one = format!("\u{feff}{}\r\n{}\r\n", header.text, line.text);
        let alone = value::parse_lenient(&one, c);
        if alone.record_lines() != 1 {
            fail(format!(
                "line {} alone under its header is not one record line",
                line.number
            ));
        }
        if on_line(&alone, 1) != header_errors {
            fail(format!(
                "the header reports other errors in a one-record document: {:?} vs {:?}",
                on_line(&alone, 1),
                header_errors
            ));
        }
        let mut full = on_line(doc, line.number);
        full.retain(|d| d.0 != Code::E11);
        let mine = on_line(&alone, 2);
        if mine != full {
            fail(format!(
                "line {} alone reports {mine:?}, in the document {full:?} (E11 aside)",
                line.number
            ));
        }
        let record = kept.next_if(|r| r.index == index);
        match (record, alone.records()) {
            (Some(r), [a]) if a.value == r.value => {}
            (Some(r), other) => fail(format!(
                "record of line {} kept by the lenient parse is not accepted alone with the same value: {:?} vs {:?}",
                line.number,
                r.value,
                other.iter().map(|a| &a.value).collect::<Vec<_>>()
            )),
            (None, []) => {}
            (None, [_]) if !on_line(doc, line.number).is_empty() => {
                // rejected only for E11, accepted alone: consistent
            }
            (None, _) => fail(format!(
                "line {} is accepted alone but neither kept nor reported",
                line.number
            )),
        }
    }
}

/// The typed serializer (`to_string_with`: the direct encoder, checked
/// value by value) writes what `dumps` wrote for `obj`, or refuses it with
/// the same error codes.
#[track_caller]
fn typed_writes_as_dumps(obj: &Value, c: &Contract, dumped: &mini::Result<String>) {
    let typed = mini::to_string_with(obj, c);
    let same = match (dumped, &typed) {
        (Ok(a), Ok(b)) => a == b,
        (Err(a), Err(b)) => codes(a.diagnostics()) == codes(b.diagnostics()),
        _ => false,
    };
    if !same {
        fail(format!(
            "to_string_with {typed:?} differs from dumps {dumped:?}\ncontract: {}\nobject: {obj}",
            serde_json::to_string(c).unwrap_or_default()
        ));
    }
}

fn check_redump(c: &Contract, doc: &Document) {
    let canonical = doc.to_canonical();
    let dumped = value::dumps(&canonical, c);
    typed_writes_as_dumps(&canonical, c, &dumped);
    match dumped {
        Ok(t) => {
            let again = match value::parse(&t, c) {
                Ok(d) => d,
                Err(e) => fail(format!("dumps gave text that does not parse: {e}\n{t}")),
            };
            // a raw CR (inside quotes, or mid-field) is written `\n`
            let want = values_breaks_normalized(&canonical);
            if !equivalent(&again.to_canonical(), &want) {
                fail(format!(
                    "parse(dumps(o)) differs from o (line breaks as LF):\n  {}\nvs\n  {want}",
                    again.to_canonical()
                ));
            }
            match value::dumps(&again.to_canonical(), c) {
                Ok(t2) if t2 == t => {}
                Ok(t2) => fail(format!("dumps ∘ parse is not idempotent:\n{t}\nvs\n{t2}")),
                Err(e) => fail(format!("dumps refused its own parsed output: {e}")),
            }
        }
        Err(e) => {
            let allowed: BTreeSet<Code> = [Code::E06, Code::E12].into();
            if !codes(e.diagnostics()).is_subset(&allowed) {
                fail(format!(
                    "dumps refused the canonical object of a valid document: {}",
                    render(e.diagnostics())
                ));
            }
        }
    }
}

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

fn escape_contracts() -> &'static [Contract] {
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
struct Style(u64, u32);

impl Style {
    fn bit(&mut self) -> bool {
        let b = self.0 >> (self.1 % 64) & 1 == 1;
        self.1 += 1;
        b
    }
}

/// The escaped spelling of a scalar written from SPEC 1.1 §3.3 on its own,
/// independently of the crate's one-pass escaper (which the round trips
/// check): the backslash first, then `|`, then every line break (CRLF, CR,
/// LF) as `\n`.
fn hand_scalar(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace("\r\n", "\\n")
        .replace(['\r', '\n'], "\\n")
}

/// Writes one list element or tuple component by hand, quoted or with
/// escapes; returns the value it must read back as.
fn hand_element(out: &mut String, text: &str, sep: char, marked: bool, st: &mut Style) -> String {
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
    match value::dumps(&obj, c) {
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
            match value::dumps(&doc.to_canonical(), c) {
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

// ---------------------------------------------------------------------------
// canonical_roundtrip
// ---------------------------------------------------------------------------

/// A scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Arbitrary)]
pub enum ScalarKind {
    /// `str`
    Str,
    /// `int`
    Int,
    /// `float`
    Float,
    /// `bool`
    Bool,
    /// `enum`
    Enum,
    /// `date`
    Date,
    /// `decimal`
    Decimal,
}

impl ScalarKind {
    fn name(self) -> &'static str {
        match self {
            ScalarKind::Str => "str",
            ScalarKind::Int => "int",
            ScalarKind::Float => "float",
            ScalarKind::Bool => "bool",
            ScalarKind::Enum => "enum",
            ScalarKind::Date => "date",
            ScalarKind::Decimal => "decimal",
        }
    }

    fn ranged(self) -> bool {
        matches!(
            self,
            ScalarKind::Int | ScalarKind::Float | ScalarKind::Date | ScalarKind::Decimal
        )
    }
}

impl Encode for ScalarKind {
    fn encode(&self, w: &mut SeedWriter) {
        w.variant(*self as u32, 7);
    }
}

/// A scalar of a generated contract: type, optional bounds, enum values.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ScalarSpec {
    /// The type.
    pub kind: ScalarKind,
    /// Lower bound seed (ranged types; a year for dates).
    pub min: Option<i16>,
    /// Upper bound seed.
    pub max: Option<i16>,
    /// Enumeration values (outer whitespace and CR removed; `A` if none).
    pub values: Seq<Text>,
}

impl Encode for ScalarSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.kind.encode(w);
        self.min.encode(w);
        self.max.encode(w);
        self.values.encode(w);
    }
}

/// A list or marked list of a generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ListSpec {
    /// The element type (no bounds: `min`/`max` of a list are its arity).
    pub item: ScalarSpec,
    /// Minimum arity seed (`% 5`).
    pub min: Option<u8>,
    /// Maximum arity seed (`% 7`).
    pub max: Option<u8>,
    /// Whether the length is the header count key `k` (then no min/max).
    pub count_key: bool,
}

impl Encode for ListSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.item.encode(w);
        self.min.encode(w);
        self.max.encode(w);
        self.count_key.encode(w);
    }
}

/// A tuple component of a generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ComponentSpec {
    /// Its scalar.
    pub scalar: ScalarSpec,
    /// Whether it may be null.
    pub optional: bool,
}

impl Encode for ComponentSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.scalar.encode(w);
        self.optional.encode(w);
    }
}

/// The shape of a generated field or header key.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub enum ShapeSpec {
    /// A scalar.
    Scalar(ScalarSpec),
    /// `list<T>`.
    List(ListSpec),
    /// `mlist<T>` with a rule (a header key gets a plain list instead).
    MList(ListSpec, Rule),
    /// `tuple(…)` (at least one component).
    Tuple(Seq<ComponentSpec>),
}

impl Encode for ShapeSpec {
    fn encode(&self, w: &mut SeedWriter) {
        match self {
            ShapeSpec::Scalar(s) => {
                w.variant(0, 4);
                s.encode(w);
            }
            ShapeSpec::List(l) => {
                w.variant(1, 4);
                l.encode(w);
            }
            ShapeSpec::MList(l, r) => {
                w.variant(2, 4);
                l.encode(w);
                r.encode(w);
            }
            ShapeSpec::Tuple(c) => {
                w.variant(3, 4);
                c.encode(w);
            }
        }
    }
}

/// A field (or header key) of a generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct FieldSpec {
    /// Its shape.
    pub shape: ShapeSpec,
    /// `optional` (a header key: not required).
    pub optional: bool,
    /// `unique` (fields only).
    pub unique: bool,
    /// Whether it has a `default` (scalars of non-unique fields, header
    /// keys that are not required).
    pub default: bool,
    /// Picks the spelling of its name.
    pub name: u8,
}

impl Encode for FieldSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.shape.encode(w);
        self.optional.encode(w);
        self.unique.encode(w);
        self.default.encode(w);
        self.name.encode(w);
    }
}

/// A generated contract.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct ContractSpec {
    /// The list separator.
    pub separator: Separator,
    /// `version` seed (1 or 2).
    pub version: u8,
    /// Picks `records_key`.
    pub records_key: u8,
    /// Typed header keys (at most 6).
    pub header: Seq<FieldSpec>,
    /// Core fields (at most 8; a `str` field if none).
    pub core: Seq<FieldSpec>,
    /// Extensions (at most 4; always optional).
    pub extensions: Seq<FieldSpec>,
}

impl Encode for ContractSpec {
    fn encode(&self, w: &mut SeedWriter) {
        self.separator.encode(w);
        self.version.encode(w);
        self.records_key.encode(w);
        self.header.encode(w);
        self.core.encode(w);
        self.extensions.encode(w);
    }
}

/// The rest of the fuzzer's data, drawn from while the values are made.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Entropy(pub Vec<u8>);

impl<'a> Arbitrary<'a> for Entropy {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Entropy(u.bytes(u.len())?.to_vec()))
    }

    fn arbitrary_take_rest(u: Unstructured<'a>) -> arbitrary::Result<Self> {
        Ok(Entropy(u.take_rest().to_vec()))
    }
}

impl Encode for Entropy {
    fn encode(&self, w: &mut SeedWriter) {
        w.bytes(&self.0);
    }
}

/// The input of [`canonical_roundtrip`]: a contract and the data its
/// values are drawn from.
#[derive(Debug, Clone, PartialEq, Eq, Arbitrary)]
pub struct CanonicalInput {
    /// The contract.
    pub contract: ContractSpec,
    /// Where the header and record values come from.
    pub values: Entropy,
}

impl Encode for CanonicalInput {
    fn encode(&self, w: &mut SeedWriter) {
        self.contract.encode(w);
        self.values.encode(w);
    }
}

impl ContractSpec {
    /// A spec shaped like `c` (types, rules, flags, separator; bounds and
    /// enum values are approximated): seeds made from upstream contracts.
    pub fn like(c: &Contract) -> ContractSpec {
        use mini::contract::{Bound, Kind, MarkerRule, Scalar, ScalarType};
        fn kind(t: ScalarType) -> ScalarKind {
            match t {
                ScalarType::Str => ScalarKind::Str,
                ScalarType::Int => ScalarKind::Int,
                ScalarType::Float => ScalarKind::Float,
                ScalarType::Bool => ScalarKind::Bool,
                ScalarType::Enum => ScalarKind::Enum,
                ScalarType::Date => ScalarKind::Date,
                ScalarType::Decimal => ScalarKind::Decimal,
            }
        }
        fn bound(b: Option<&Bound>) -> Option<i16> {
            match b? {
                Bound::Number(d) => d.format(false).parse::<f64>().ok().map(|f| f as i16),
                Bound::Date(s) => s.get(..4).and_then(|y| y.parse().ok()),
            }
        }
        fn scalar(s: &Scalar) -> ScalarSpec {
            ScalarSpec {
                kind: kind(s.ty),
                min: bound(s.min.as_ref()),
                max: bound(s.max.as_ref()),
                values: Seq(s.values.iter().take(6).map(|v| Text::of(v)).collect()),
            }
        }
        fn shape(k: &Kind) -> ShapeSpec {
            let list = |item: &Scalar, arity: &mini::contract::Arity| ListSpec {
                item: scalar(item),
                min: arity.min.map(|m| m.min(4) as u8),
                max: arity.max.map(|m| m.min(6) as u8),
                count_key: arity.count_key.is_some(),
            };
            match k {
                Kind::Scalar(s) => ShapeSpec::Scalar(scalar(s)),
                Kind::List { item, arity } => ShapeSpec::List(list(item, arity)),
                Kind::MList {
                    item,
                    arity,
                    marker,
                    ..
                } => ShapeSpec::MList(
                    list(item, arity),
                    match marker {
                        MarkerRule::ExactlyOne => Rule::ExactlyOne,
                        MarkerRule::AtLeastOne => Rule::AtLeastOne,
                        MarkerRule::AtMostOne => Rule::AtMostOne,
                        MarkerRule::Any => Rule::Any,
                    },
                ),
                Kind::Tuple(comps) => ShapeSpec::Tuple(Seq(comps
                    .iter()
                    .map(|c| ComponentSpec {
                        scalar: scalar(&c.scalar),
                        optional: c.optional,
                    })
                    .collect())),
            }
        }
        let field = |f: &mini::contract::Field, i: usize| FieldSpec {
            shape: shape(&f.kind),
            optional: f.optional,
            unique: f.unique,
            default: f.default.is_some(),
            name: i as u8,
        };
        ContractSpec {
            separator: Separator::of_char(c.separator()).unwrap_or(Separator::Comma),
            version: c.version() as u8,
            records_key: 0,
            header: Seq(c
                .header_keys()
                .iter()
                .filter(|h| h.name != "n" && h.name != "v")
                .take(6)
                .enumerate()
                .map(|(i, h)| FieldSpec {
                    shape: shape(&h.kind),
                    optional: !h.required,
                    unique: false,
                    default: h.default.is_some(),
                    name: i as u8,
                })
                .collect()),
            core: Seq(c
                .core()
                .iter()
                .take(8)
                .enumerate()
                .map(|(i, f)| field(f, i))
                .collect()),
            extensions: Seq(c
                .extensions()
                .iter()
                .take(4)
                .enumerate()
                .map(|(i, f)| field(f, i))
                .collect()),
        }
    }
}

/// A resolved scalar of a built contract.
#[derive(Debug, Clone)]
struct Sc {
    kind: ScalarKind,
    min: Option<(Dec, String)>,
    max: Option<(Dec, String)>,
    values: Vec<String>,
}

#[derive(Debug, Clone)]
enum Shape {
    Scalar(Sc),
    List {
        item: Sc,
        min: usize,
        max: Option<usize>,
        count: bool,
    },
    MList {
        item: Sc,
        min: usize,
        max: Option<usize>,
        count: bool,
        rule: Rule,
    },
    Tuple(Vec<(String, Sc, bool)>),
}

#[derive(Debug, Clone)]
struct Fld {
    name: String,
    shape: Shape,
    optional: bool,
    unique: bool,
    default: Option<(Value, Value)>,
    items_key: String,
    selected_key: String,
}

/// `(key, value)` entries of a record object.
type Entries = Vec<(String, Value)>;

/// A header key of a built contract: name, shape, required, default
/// `(object, expected)`.
type HeaderEntry = (String, Shape, bool, Option<(Value, Value)>);

/// Draws values from the entropy bytes (zeros once they run out, which
/// still makes valid values).
struct Gen<'a> {
    u: Unstructured<'a>,
}

const FIELD_NAMES: [&str; 6] = ["f", "field ", "fé", "f|", "f*", "F_"];
const RECORDS_KEYS: [&str; 4] = ["records", "items", "rows", "data"];

impl Gen<'_> {
    fn byte(&mut self) -> u8 {
        u8::arbitrary(&mut self.u).unwrap_or(0)
    }

    fn word(&mut self) -> u16 {
        u16::arbitrary(&mut self.u).unwrap_or(0)
    }

    fn flag(&mut self) -> bool {
        self.byte() & 1 == 1
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::from(self.byte()) % n
        }
    }

    fn text(&mut self) -> String {
        Text::arbitrary(&mut self.u).unwrap_or_default().string()
    }

    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.byte() % 10))
            .collect()
    }

    fn scalar_spec(&mut self, s: &ScalarSpec, ranged: bool) -> (Value, Sc) {
        let mut j = Map::new();
        j.insert("type".into(), json!(s.kind.name()));
        let mut sc = Sc {
            kind: s.kind,
            min: None,
            max: None,
            values: Vec::new(),
        };
        if s.kind == ScalarKind::Enum {
            let mut values: Vec<String> = s
                .values
                .0
                .iter()
                .take(6)
                .map(|t| survivor(&t.string().replace('\r', "")))
                .filter(|v| !v.is_empty())
                .collect();
            if values.is_empty() {
                values.push("A".to_string());
            }
            j.insert("values".into(), json!(values));
            sc.values = values;
        }
        if ranged && s.kind.ranged() {
            let mut bounds = Vec::new();
            for b in [s.min, s.max] {
                let Some(b) = b else {
                    bounds.push(None);
                    continue;
                };
                let (jv, text) = match s.kind {
                    ScalarKind::Int => (json!(b), b.to_string()),
                    ScalarKind::Float => {
                        let f = f64::from(b) / 8.0;
                        let n = Number::from_f64(f).unwrap_or_else(|| Number::from(0));
                        (Value::Number(n.clone()), n.to_string())
                    }
                    ScalarKind::Decimal => {
                        let t = format!(
                            "{}{}.{:02}",
                            if b < 0 { "-" } else { "" },
                            b.unsigned_abs() / 100,
                            b.unsigned_abs() % 100
                        );
                        (json!(t), t)
                    }
                    _ => {
                        let y = 1 + u32::from(b.unsigned_abs()) % 9999;
                        let t = format!("{y:04}-{:02}-01", 1 + b.unsigned_abs() % 12);
                        (json!(t), t)
                    }
                };
                let d = if s.kind == ScalarKind::Date {
                    Dec::parse("0")
                } else {
                    Dec::parse(&text)
                };
                let Some(d) = d else {
                    fail(format!("bound {text} is not a number"))
                };
                bounds.push(Some((jv, d, text)));
            }
            let mut hi = bounds.pop().flatten();
            let mut lo = bounds.pop().flatten();
            if let (Some(a), Some(b)) = (&lo, &hi) {
                let reversed = if s.kind == ScalarKind::Date {
                    a.2 > b.2
                } else {
                    a.1 > b.1
                };
                if reversed {
                    std::mem::swap(&mut lo, &mut hi);
                }
            }
            if let Some((jv, d, text)) = lo {
                j.insert("min".into(), jv);
                sc.min = Some((d, text));
            }
            if let Some((jv, d, text)) = hi {
                j.insert("max".into(), jv);
                sc.max = Some((d, text));
            }
        }
        (Value::Object(j), sc)
    }

    fn list_spec(
        &mut self,
        l: &ListSpec,
        rule: Option<Rule>,
    ) -> (Map<String, Value>, Sc, usize, Option<usize>) {
        let (item_json, item) = self.scalar_spec(&l.item, false);
        let mut j = Map::new();
        j.insert(
            "type".into(),
            json!(if rule.is_some() { "mlist" } else { "list" }),
        );
        j.insert("item".into(), json!(item.kind.name()));
        if let Some(v) = item_json.get("values") {
            j.insert("item_values".into(), v.clone());
        }
        let (mut min, mut max) = (
            l.min.map(|m| usize::from(m % 5)),
            l.max.map(|m| usize::from(m % 7)),
        );
        if let (Some(a), Some(b)) = (min, max) {
            if a > b {
                (min, max) = (Some(b), Some(a));
            }
        }
        if rule.is_some_and(Rule::needs_one) && max == Some(0) {
            max = Some(1);
        }
        if l.count_key {
            j.insert("count_key".into(), json!("k"));
            (min, max) = (None, None);
        }
        if let Some(m) = min {
            j.insert("min".into(), json!(m));
        }
        if let Some(m) = max {
            j.insert("max".into(), json!(m));
        }
        if let Some(r) = rule {
            j.insert("marker".into(), json!(r.name()));
        }
        (j, item, min.unwrap_or(0), max)
    }

    /// `(contract JSON, resolved shape)`; header keys get no marked lists.
    fn shape(&mut self, s: &ShapeSpec, header: bool) -> (Map<String, Value>, Shape) {
        match s {
            ShapeSpec::Scalar(sc) => {
                let (j, sc) = self.scalar_spec(sc, true);
                let Value::Object(j) = j else { unreachable!() };
                (j, Shape::Scalar(sc))
            }
            ShapeSpec::List(l) => {
                let (j, item, min, max) = self.list_spec(l, None);
                let count = l.count_key && !header;
                let mut j = j;
                if header {
                    j.remove("count_key");
                }
                (
                    j,
                    Shape::List {
                        item,
                        min,
                        max,
                        count,
                    },
                )
            }
            ShapeSpec::MList(l, _) if header => self.shape(&ShapeSpec::List(l.clone()), true),
            ShapeSpec::MList(l, rule) => {
                let (j, item, min, max) = self.list_spec(l, Some(*rule));
                (
                    j,
                    Shape::MList {
                        item,
                        min,
                        max,
                        count: l.count_key,
                        rule: *rule,
                    },
                )
            }
            ShapeSpec::Tuple(comps) => {
                let mut items = Vec::new();
                let mut resolved = Vec::new();
                for (i, c) in comps.0.iter().take(5).enumerate() {
                    let (j, sc) = self.scalar_spec(&c.scalar, true);
                    let Value::Object(mut j) = j else {
                        unreachable!()
                    };
                    let name = format!("c{i}");
                    j.insert("name".into(), json!(name));
                    if c.optional {
                        j.insert("optional".into(), json!(true));
                    }
                    items.push(Value::Object(j));
                    resolved.push((name, sc, c.optional));
                }
                if items.is_empty() {
                    items.push(json!({"name": "c0", "type": "str"}));
                    resolved.push((
                        "c0".to_string(),
                        Sc {
                            kind: ScalarKind::Str,
                            min: None,
                            max: None,
                            values: Vec::new(),
                        },
                        false,
                    ));
                }
                let mut j = Map::new();
                j.insert("type".into(), json!("tuple"));
                j.insert("items".into(), Value::Array(items));
                (j, Shape::Tuple(resolved))
            }
        }
    }

    /// A valid scalar: `(object value, expected parsed value)`. `empty_ok`:
    /// a `str` may be `""` (list elements, header values).
    fn scalar(&mut self, sc: &Sc, empty_ok: bool) -> (Value, Value) {
        let clamp = |t: String| -> String {
            let Some(d) = Dec::parse(&t) else { return t };
            if let Some((m, text)) = &sc.min {
                if d < *m {
                    return text.clone();
                }
            }
            if let Some((m, text)) = &sc.max {
                if d > *m {
                    return text.clone();
                }
            }
            t
        };
        match sc.kind {
            ScalarKind::Str => {
                let mut s = survivor(&self.text());
                if s.is_empty() && !empty_ok {
                    s = "x".to_string();
                }
                (json!(s), json!(breaks_normalized(&s)))
            }
            ScalarKind::Enum => {
                let v = sc.values[self.below(sc.values.len())].clone();
                (json!(v), json!(v))
            }
            ScalarKind::Bool => {
                let b = self.flag();
                (json!(b), json!(b))
            }
            ScalarKind::Int => {
                let raw = match self.byte() % 4 {
                    0 => (self.byte() as i8).to_string(),
                    1 => (i32::from(self.word() as i16) * 1000 + i32::from(self.word() as i16))
                        .to_string(),
                    2 => {
                        let neg = if self.flag() { "-" } else { "" };
                        // 18 digits always fit i64: beyond that only a build
                        // with `arbitrary_precision` holds the int (ADR 0019)
                        let most = if mini::ARBITRARY_PRECISION { 40 } else { 18 };
                        let n = 1 + self.below(most);
                        format!("{neg}{}", self.digits(n))
                    }
                    _ => "0".to_string(),
                };
                let t = clamp(canonical_int(&raw));
                let n = number(&t);
                (Value::Number(n.clone()), Value::Number(n))
            }
            ScalarKind::Float => {
                let raw = if self.flag() {
                    let bits = u64::from(self.word()) << 48
                        | u64::from(self.word()) << 16
                        | u64::from(self.word());
                    let f = f64::from_bits(bits);
                    if f.is_finite() {
                        Number::from_f64(f).map_or_else(|| "0".to_string(), |n| n.to_string())
                    } else {
                        "0.5".to_string()
                    }
                } else {
                    let neg = if self.flag() { "-" } else { "" };
                    let n = 1 + self.below(20);
                    let int = canonical_int(&self.digits(n));
                    let frac = if self.flag() {
                        let k = 1 + self.below(20);
                        format!(".{}", self.digits(k))
                    } else {
                        String::new()
                    };
                    let exp = if self.flag() {
                        format!("e{}", i32::from(self.byte() % 61) - 30)
                    } else {
                        String::new()
                    };
                    format!("{neg}{int}{frac}{exp}")
                };
                let t = clamp(raw);
                let n = float_number(&t);
                (Value::Number(n.clone()), Value::Number(n))
            }
            ScalarKind::Decimal => {
                let neg = if self.flag() { "-" } else { "" };
                let n = 1 + self.below(24);
                let int = self.digits(n);
                let frac = if self.flag() {
                    let k = 1 + self.below(12);
                    format!(".{}", self.digits(k))
                } else {
                    String::new()
                };
                let t = clamp(format!("{neg}{int}{frac}"));
                let canonical = canonical_decimal(&t);
                if !t.contains('.') && canonical.len() < 16 && self.flag() {
                    (Value::Number(number(&canonical)), json!(canonical))
                } else {
                    (json!(t), json!(canonical))
                }
            }
            ScalarKind::Date => {
                let y = 1 + u32::from(self.word()) % 9999;
                let m = 1 + u32::from(self.byte()) % 12;
                let dim = match m {
                    2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
                    2 => 28,
                    4 | 6 | 9 | 11 => 30,
                    _ => 31,
                };
                let d = 1 + u32::from(self.byte()) % dim;
                let mut t = format!("{y:04}-{m:02}-{d:02}");
                if let Some((_, lo)) = &sc.min {
                    if t < *lo {
                        t = lo.clone();
                    }
                }
                if let Some((_, hi)) = &sc.max {
                    if t > *hi {
                        t = hi.clone();
                    }
                }
                (json!(t), json!(t))
            }
        }
    }

    fn length(&mut self, min: usize, max: Option<usize>, count: Option<usize>) -> usize {
        if let Some(k) = count {
            return k;
        }
        let hi = max.unwrap_or(min + 4).min(min + 6);
        min + self.below(hi.saturating_sub(min) + 1)
    }

    /// A valid value of a field: `(object entries, expected entries)`.
    fn field(&mut self, f: &Fld, k: usize) -> (Entries, Entries) {
        let absent = f.optional && self.byte() % 4 == 0;
        let default = f.default.as_ref().map_or(Value::Null, |d| d.1.clone());
        match &f.shape {
            Shape::Scalar(sc) => {
                if absent {
                    return (
                        vec![(f.name.clone(), Value::Null)],
                        vec![(f.name.clone(), default)],
                    );
                }
                let (o, e) = self.scalar(sc, false);
                (vec![(f.name.clone(), o)], vec![(f.name.clone(), e)])
            }
            Shape::List {
                item,
                min,
                max,
                count,
            } => {
                if absent {
                    return (vec![], vec![(f.name.clone(), default)]);
                }
                let n = self.length(*min, *max, count.then_some(k));
                let (o, e): (Vec<Value>, Vec<Value>) =
                    (0..n).map(|_| self.scalar(item, true)).unzip();
                let e = if e.is_empty() && f.optional {
                    default
                } else {
                    Value::Array(e)
                };
                (
                    vec![(f.name.clone(), Value::Array(o))],
                    vec![(f.name.clone(), e)],
                )
            }
            Shape::MList {
                item,
                min,
                max,
                count,
                rule,
            } => {
                let (ik, sk) = (f.items_key.clone(), f.selected_key.clone());
                if absent {
                    return (vec![], vec![(ik, default), (sk, Value::Null)]);
                }
                let mut n = self.length(*min, *max, count.then_some(k));
                if rule.needs_one() && n == 0 {
                    n = 1;
                }
                let (o, e): (Vec<Value>, Vec<Value>) =
                    (0..n).map(|_| self.scalar(item, true)).unzip();
                let sel = match rule {
                    Rule::ExactlyOne => json!(self.below(n)),
                    Rule::AtMostOne if n > 0 && self.flag() => json!(self.below(n)),
                    Rule::AtMostOne => Value::Null,
                    Rule::AtLeastOne | Rule::Any => {
                        let mut v: Vec<usize> = (0..n).filter(|_| self.flag()).collect();
                        if v.is_empty() && *rule == Rule::AtLeastOne {
                            v.push(self.below(n));
                        }
                        json!(v)
                    }
                };
                if n == 0 && f.optional {
                    return (
                        vec![(ik.clone(), Value::Array(o)), (sk.clone(), sel)],
                        vec![(ik, default), (sk, Value::Null)],
                    );
                }
                (
                    vec![(ik.clone(), Value::Array(o)), (sk.clone(), sel.clone())],
                    vec![(ik, Value::Array(e)), (sk, sel)],
                )
            }
            Shape::Tuple(comps) => {
                if absent {
                    return (
                        vec![(f.name.clone(), Value::Null)],
                        vec![(f.name.clone(), default)],
                    );
                }
                let mut o = Map::new();
                let mut e = Map::new();
                for (name, sc, optional) in comps {
                    if *optional && self.byte() % 3 == 0 {
                        if self.flag() {
                            o.insert(name.clone(), Value::Null);
                        }
                        e.insert(name.clone(), Value::Null);
                    } else {
                        let (a, b) = self.scalar(sc, false);
                        o.insert(name.clone(), a);
                        e.insert(name.clone(), b);
                    }
                }
                (
                    vec![(f.name.clone(), Value::Object(o))],
                    vec![(f.name.clone(), Value::Object(e))],
                )
            }
        }
    }
}

fn number(text: &str) -> Number {
    match text.parse::<Number>() {
        Ok(n) => n,
        Err(e) => fail(format!("generated number {text:?} is not JSON: {e}")),
    }
}

/// A float field's JSON number: the digits as written with
/// `arbitrary_precision`; otherwise the correctly rounded `f64` (an
/// integral text must not become a JSON int: the float is what reads back).
fn float_number(text: &str) -> Number {
    if mini::ARBITRARY_PRECISION {
        return number(text);
    }
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) => n,
        None => fail(format!("generated float {text:?} is not a finite f64")),
    }
}

/// Canonical int text, written independently of `check::number`.
fn canonical_int(t: &str) -> String {
    let (neg, digits) = t.strip_prefix('-').map_or((false, t), |d| (true, d));
    let digits = digits.trim_start_matches('0');
    match (digits.is_empty(), neg) {
        (true, _) => "0".to_string(),
        (false, true) => format!("-{digits}"),
        (false, false) => digits.to_string(),
    }
}

/// Canonical decimal text (SPEC 1.1 §6), written independently of
/// `check::number`.
fn canonical_decimal(t: &str) -> String {
    let (neg, body) = t.strip_prefix('-').map_or((false, t), |b| (true, b));
    let (int, frac) = body
        .split_once('.')
        .map_or((body, None), |(i, f)| (i, Some(f)));
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let zero = int == "0" && frac.is_none_or(|f| f.bytes().all(|b| b == b'0'));
    let mut out = String::new();
    if neg && !zero {
        out.push('-');
    }
    out.push_str(int);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

struct Built {
    contract: Contract,
    records_key: String,
    header: Vec<HeaderEntry>,
    fields: Vec<Fld>,
    core: usize,
    defaults: bool,
    k_min: usize,
}

fn build(spec: &ContractSpec, g: &mut Gen<'_>) -> Built {
    let sep = spec.separator.char();
    let records_key = RECORDS_KEYS[usize::from(spec.records_key) % RECORDS_KEYS.len()].to_string();
    let mut header_json = Map::new();
    let mut required = Vec::new();
    let mut header = Vec::new();
    let mut defaults = false;
    for (i, h) in spec.header.0.iter().take(6).enumerate() {
        let name = format!("h{i}");
        let (mut j, shape) = g.shape(&h.shape, true);
        let mut default = None;
        if !h.optional {
            required.push(name.clone());
        } else if let (true, Shape::Scalar(sc)) = (h.default, &shape) {
            // a default is inserted verbatim: give it in canonical form
            let (_, e) = g.scalar(sc, true);
            j.insert("default".into(), e.clone());
            default = Some((e.clone(), e));
            defaults = true;
        }
        header_json.insert(name.clone(), Value::Object(j));
        header.push((name, shape, !h.optional, default));
    }
    let mut fields = Vec::new();
    let mut core_json = Vec::new();
    let mut ext_json = Vec::new();
    let mut uses_k = false;
    let mut k_needs_one = false;
    let core_specs: Vec<&FieldSpec> = spec.core.0.iter().take(8).collect();
    let fallback = FieldSpec {
        shape: ShapeSpec::Scalar(ScalarSpec {
            kind: ScalarKind::Str,
            min: None,
            max: None,
            values: Seq::default(),
        }),
        optional: false,
        unique: false,
        default: false,
        name: 0,
    };
    let core_specs = if core_specs.is_empty() {
        vec![&fallback]
    } else {
        core_specs
    };
    let core = core_specs.len();
    let all = core_specs
        .into_iter()
        .map(|f| (f, false))
        .chain(spec.extensions.0.iter().take(4).map(|f| (f, true)));
    for (i, (f, extension)) in all.enumerate() {
        let name = format!(
            "{}{i}",
            FIELD_NAMES[usize::from(f.name) % FIELD_NAMES.len()]
        );
        let (mut j, shape) = g.shape(&f.shape, false);
        j.insert("name".into(), json!(name));
        let optional = f.optional || extension;
        if f.optional {
            j.insert("optional".into(), json!(true));
        }
        if f.unique {
            j.insert("unique".into(), json!(true));
        }
        let (items_key, selected_key) = (format!("{name}.items"), format!("{name}.sel"));
        if let Shape::MList { count, rule, .. } = &shape {
            j.insert(
                "json".into(),
                json!({"items": items_key, "selected": selected_key}),
            );
            uses_k |= *count;
            k_needs_one |= *count && rule.needs_one();
        }
        if let Shape::List { count, .. } = &shape {
            uses_k |= *count;
        }
        let mut default = None;
        if let Shape::Scalar(sc) = &shape {
            if f.default && optional && !f.unique {
                // a default is inserted verbatim: give it in canonical form
                let (_, e) = g.scalar(sc, false);
                j.insert("default".into(), e.clone());
                default = Some((e.clone(), e));
                defaults = true;
            }
        }
        if extension {
            ext_json.push(Value::Object(j));
        } else {
            core_json.push(Value::Object(j));
        }
        fields.push(Fld {
            name,
            shape,
            optional,
            unique: f.unique,
            default,
            items_key,
            selected_key,
        });
    }
    if uses_k {
        header_json.insert("k".into(), json!({"type": "int"}));
        header.push((
            "k".to_string(),
            Shape::Scalar(Sc {
                kind: ScalarKind::Int,
                min: None,
                max: None,
                values: Vec::new(),
            }),
            true,
            None,
        ));
    }
    let mut j = json!({
        "prefix": "cx",
        "version": 1 + spec.version % 2,
        "list_separator": sep.to_string(),
        "records_key": records_key,
        "header": {"keys": header_json, "required": required},
        "core": core_json,
    });
    if !ext_json.is_empty() {
        j["extensions"] = Value::Array(ext_json);
    }
    let contract = match Contract::from_value(j.clone()) {
        Ok(c) => c,
        Err(e) => fail(format!("generated contract rejected: {e}\n{j}")),
    };
    Built {
        contract,
        records_key,
        header,
        fields,
        core,
        defaults,
        k_min: usize::from(k_needs_one),
    }
}

/// A valid header value of `shape`: `(object value, expected)`.
fn header_value(g: &mut Gen<'_>, shape: &Shape) -> (Value, Value) {
    match shape {
        Shape::Scalar(sc) => g.scalar(sc, true),
        Shape::List { item, min, max, .. } | Shape::MList { item, min, max, .. } => {
            let n = g.length(*min, *max, None);
            let (o, e): (Vec<Value>, Vec<Value>) = (0..n).map(|_| g.scalar(item, true)).unzip();
            (Value::Array(o), Value::Array(e))
        }
        Shape::Tuple(comps) => {
            let mut o = Map::new();
            let mut e = Map::new();
            for (name, sc, optional) in comps {
                if *optional && g.byte() % 3 == 0 {
                    e.insert(name.clone(), Value::Null);
                } else {
                    let (a, b) = g.scalar(sc, false);
                    o.insert(name.clone(), a);
                    e.insert(name.clone(), b);
                }
            }
            (Value::Object(o), Value::Object(e))
        }
    }
}

/// Whether a tuple value is a one-component tuple whose component is null,
/// which the serializer cannot write (see [`KNOWN_FINDINGS`]).
fn null_single(value: &Value, comps: usize) -> bool {
    let Value::Object(m) = value else {
        return false;
    };
    comps == 1 && m.get("c0").is_none_or(Value::is_null)
}

/// A generated contract and a canonical object that is valid under it (types,
/// bounds, arity, count keys, marker rules, unique fields, no outer
/// whitespace) go through `dumps` and back.
///
/// Asserts that `dumps` succeeds, that its text parses strictly to an
/// object equivalent to the one written (`n` recomputed, `v` and defaults
/// added, line breaks read back as LF, decimals canonical, an empty
/// optional list read back as null), and that `dumps(parse(t)) == t`
/// (when defaults are involved, that `parse(dumps(parse(t))) ≡ parse(t)`).
/// The one documented rejection is a record whose only core field writes
/// nothing and whose extensions are null: its line is blank, so the check
/// parse reports E04 (ADR 0004, upstream 0017 D-11).
pub fn canonical_roundtrip(input: &CanonicalInput) {
    let mut g = Gen {
        u: Unstructured::new(&input.values.0),
    };
    let b = build(&input.contract, &mut g);
    let c = &b.contract;
    // header
    let mut header = Map::new();
    let mut want_header = Map::new();
    let records = g.below(7);
    let mut k = 0;
    let mut null_singles = false;
    for (name, shape, required, default) in &b.header {
        if name == "k" {
            k = g.below(4) + b.k_min;
            header.insert("k".into(), json!(k));
            want_header.insert("k".into(), json!(k));
            continue;
        }
        if *required || g.flag() {
            let (o, e) = header_value(&mut g, shape);
            if let Shape::Tuple(comps) = shape {
                null_singles |= null_single(&o, comps.len());
            }
            header.insert(name.clone(), o);
            want_header.insert(name.clone(), e);
        } else if let Some((_, e)) = default {
            want_header.insert(name.clone(), e.clone());
        }
    }
    for i in 0..g.below(3) {
        let v = survivor(&g.text());
        header.insert(format!("x{i}"), json!(v));
        want_header.insert(format!("x{i}"), json!(breaks_normalized(&v)));
    }
    if g.flag() {
        header.insert("n".into(), json!(g.byte()));
    }
    let mut recs = Vec::new();
    let mut wants: Vec<Map<String, Value>> = Vec::new();
    let mut blank = false;
    for _ in 0..records {
        let mut rec = Map::new();
        let mut want = Map::new();
        let mut writes_nothing = Vec::new();
        for f in &b.fields {
            let (o, e) = g.field(f, k);
            let empty = o.iter().all(|(_, v)| match v {
                Value::Null => true,
                Value::Array(a) => a.is_empty(),
                _ => false,
            });
            writes_nothing.push(empty);
            if let Shape::Tuple(comps) = &f.shape {
                null_singles |= o.iter().any(|(_, v)| null_single(v, comps.len()));
            }
            for (key, v) in o {
                if !v.is_null() || g.flag() {
                    rec.insert(key, v);
                }
            }
            want.extend(e);
        }
        // unique fields: drop a record whose value repeats an earlier one
        let clash = b.fields.iter().filter(|f| f.unique).any(|f| {
            let key = |m: &Map<String, Value>| match &f.shape {
                Shape::MList { .. } => json!([m.get(&f.items_key), m.get(&f.selected_key)]),
                _ => m.get(&f.name).cloned().unwrap_or(Value::Null),
            };
            wants.iter().any(|w| equivalent(&key(w), &key(&want)))
        });
        if clash {
            continue;
        }
        if b.core == 1 && writes_nothing.iter().all(|&e| e) {
            blank = true;
        }
        recs.push(Value::Object(rec));
        wants.push(want);
    }
    want_header.insert("n".into(), json!(recs.len()));
    want_header.entry("v").or_insert(json!(1));
    let mut obj = Map::new();
    if g.flag() {
        obj.insert("prefix".into(), json!("cx"));
    }
    obj.insert("header".into(), Value::Object(header));
    obj.insert(b.records_key.clone(), Value::Array(recs));
    let obj = Value::Object(obj);
    let want = json!({
        "prefix": "cx",
        "header": want_header,
        b.records_key.as_str(): wants,
    });
    let result = value::dumps(&obj, c);
    typed_writes_as_dumps(&obj, c, &result);
    if null_singles && tolerated("null-single-component") {
        return;
    }
    match result {
        Err(e) if blank && codes(e.diagnostics()) == [Code::E04].into() => {}
        Err(e) => fail(format!(
            "dumps refused a valid object{}: {}\ncontract: {}\nobject: {obj}",
            if null_singles {
                " (it has a one-component tuple whose component is null)"
            } else {
                ""
            },
            render(e.diagnostics()),
            c.to_value()
        )),
        Ok(t) => {
            if blank {
                fail(format!(
                    "a blank record line was written and accepted:\n{t}"
                ));
            }
            let doc = match value::parse(&t, c) {
                Ok(d) => d,
                Err(e) => fail(format!("dumps output does not parse: {e}\n{t}")),
            };
            let got = doc.to_canonical();
            if !equivalent(&got, &want) {
                fail(format!(
                    "parse(dumps(o)) is not o:\n  {got}\nvs\n  {want}\ncontract: {}\ntext:\n{t}",
                    c.to_value()
                ));
            }
            match value::dumps(&got, c) {
                Ok(t2) if t2 == t => {}
                Ok(t2) if b.defaults => match value::parse(&t2, c) {
                    Ok(d2) if equivalent(&d2.to_canonical(), &got) => {}
                    _ => fail(format!("dumps ∘ parse changed the object:\n{t}\nvs\n{t2}")),
                },
                Ok(t2) => fail(format!("dumps(parse(t)) != t:\n{t}\nvs\n{t2}")),
                Err(e) => fail(format!("dumps refused its own parsed output: {e}\n{t}")),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// stream_chunks
// ---------------------------------------------------------------------------

/// Most chunk boundaries of a [`StreamInput`].
pub const MAX_CUTS: usize = 16;

/// The input of [`stream_chunks`]: a document (any bytes) and where to cut
/// it into chunks.
///
/// Layout: `contract: u8` (index into [`parse_contracts`]), `limits: u8`
/// (bits 0–2: `max_records`, bits 3–6: `max_line_bytes / 8 − 1`), `cuts: u8`
/// (count, `% (MAX_CUTS + 1)`), that many `u16` offsets (`% (len + 1)`),
/// then the document: the rest of the data.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StreamInput {
    /// Index of the contract (modulo the number of contracts).
    pub contract: u8,
    /// Limits for the limited readers (see the layout).
    pub limits: u8,
    /// Chunk boundaries (offsets modulo `len + 1`, sorted, deduplicated).
    pub cuts: Vec<u16>,
    /// The document.
    pub text: Vec<u8>,
}

impl<'a> Arbitrary<'a> for StreamInput {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let contract = u8::arbitrary(u)?;
        let limits = u8::arbitrary(u)?;
        let n = usize::from(u8::arbitrary(u)?) % (MAX_CUTS + 1);
        let mut cuts = Vec::with_capacity(n);
        for _ in 0..n {
            cuts.push(u16::arbitrary(u)?);
        }
        let text = u.bytes(u.len())?.to_vec();
        Ok(StreamInput {
            contract,
            limits,
            cuts,
            text,
        })
    }

    fn arbitrary_take_rest(mut u: Unstructured<'a>) -> arbitrary::Result<Self> {
        Self::arbitrary(&mut u)
    }
}

impl Encode for StreamInput {
    fn encode(&self, w: &mut SeedWriter) {
        w.u8(self.contract).u8(self.limits);
        let cuts = &self.cuts[..self.cuts.len().min(MAX_CUTS)];
        w.u8(cuts.len() as u8);
        for &c in cuts {
            w.u16(c);
        }
        w.bytes(&self.text);
    }
}

struct Streamed {
    end: mini::Result<StreamEnd>,
    seen: Vec<Record>,
    push_error: Option<mini::Error>,
}

fn stream(c: &Contract, chunks: &[&[u8]], opts: ReaderOptions) -> Streamed {
    let mut r = Reader::with_options(c, opts);
    let mut seen = Vec::new();
    for ch in chunks {
        match r.push(ch) {
            Ok(recs) => seen.extend(recs),
            Err(e) => {
                return Streamed {
                    end: Err(mini::Error::message("stopped")),
                    seen,
                    push_error: Some(e),
                }
            }
        }
    }
    Streamed {
        end: r.end(),
        seen,
        push_error: None,
    }
}

/// A document cut into arbitrary chunks through the push [`Reader`].
///
/// Asserts that:
///
/// 1. for bytes that are not UTF-8, the reader fails with the same error
///    (line and byte offset) as `mini::from_utf8` on the whole text;
/// 2. otherwise the lenient reader's document equals `parse_lenient` of the
///    whole text (errors, canonical object, diagnostics); the records it
///    returned while reading (plus `last_record`) are the document's, in
///    order; the [`StreamEnd`] account agrees with the diagnostics, and
///    `last_line_terminated` / `incomplete_line` describe the text's end;
/// 3. a strict reader fails exactly when the text has errors, with them;
///    a reader that keeps no records reports the same errors and counts;
/// 4. with `max_records`, the reader and `parse_lenient_with` fail alike
///    (same message) or give the same document; with `max_line_bytes`, the
///    reader is at least as strict as `parse_lenient_with` and gives the
///    same document when it accepts.
pub fn stream_chunks(input: &StreamInput) {
    let contracts = parse_contracts();
    let c = &contracts[usize::from(input.contract) % contracts.len()];
    let bytes = input.text.as_slice();
    let mut cuts: Vec<usize> = input
        .cuts
        .iter()
        .map(|&x| usize::from(x) % (bytes.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    let mut from = 0;
    for &cut in &cuts {
        chunks.push(&bytes[from..cut]);
        from = cut;
    }
    chunks.push(&bytes[from..]);
    let unlimited = ReaderOptions {
        max_line_bytes: usize::MAX,
        ..ReaderOptions::default()
    };

    let text = match value::from_utf8(bytes) {
        Ok(t) => t,
        Err(whole) => {
            let s = stream(c, &chunks, unlimited);
            let err = match (s.push_error, s.end) {
                (Some(e), _) | (None, Err(e)) => e,
                (None, Ok(_)) => fail(format!("reader accepted invalid UTF-8 ({whole})")),
            };
            if !err.is_utf8() || err.to_string() != whole.to_string() {
                fail(format!(
                    "reader failed with '{err}', whole text with '{whole}'"
                ));
            }
            return;
        }
    };
    let whole = value::parse_lenient(text, c);

    // 2. the lenient reader
    let s = stream(c, &chunks, unlimited);
    if let Some(e) = s.push_error {
        fail(format!("push failed on UTF-8 text: {e}"));
    }
    let end = match s.end {
        Ok(e) => e,
        Err(e) => fail(format!("a lenient reader's end failed: {e}")),
    };
    same_document(&end.document, &whole, "reader vs parse_lenient");
    let mut seen = s.seen;
    seen.extend(end.last_record.clone());
    same_records(&seen, whole.records(), "records returned by the reader");
    let d = whole.diagnostics();
    if end.expected != d.declared_n
        || end.received != d.record_lines
        || end.valid != d.valid_records
        || end.missing != d.missing_records
        || end.excess != d.excess_records
        || end.truncated != d.truncated
        || end.complete != whole.is_valid()
    {
        fail(format!(
            "StreamEnd disagrees with the diagnostics: {end:?} vs {d:?}"
        ));
    }
    let terminated = bytes.is_empty() || bytes.ends_with(b"\n");
    if end.last_line_terminated != terminated {
        fail("last_line_terminated is wrong");
    }
    let tail_start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let tail_line = bytes[..tail_start].iter().filter(|&&b| b == b'\n').count() + 1;
    let mut tail = &text[tail_start..];
    if tail_line == 1 {
        tail = tail.strip_prefix('\u{feff}').unwrap_or(tail);
    }
    let tail = tail.strip_suffix('\r').unwrap_or(tail);
    let want_incomplete = (!terminated && !syntax::is_blank(tail)).then_some((tail_line, tail));
    let got_incomplete = end
        .incomplete_line
        .as_ref()
        .map(|l| (l.line, l.text.as_str()));
    if got_incomplete != want_incomplete {
        fail(format!(
            "incomplete_line is {got_incomplete:?}, expected {want_incomplete:?}"
        ));
    }
    if let Some(l) = &end.incomplete_line {
        let errs: Vec<&Diagnostic> = whole
            .errors()
            .iter()
            .filter(|d| d.line() == l.line)
            .collect();
        if l.errors.iter().collect::<Vec<_>>() != errs {
            fail("incomplete_line errors are not its line's errors");
        }
    }
    if let Some(r) = &end.last_record {
        if Some(r.line) != want_incomplete.map(|w| w.0) {
            fail("last_record does not come from the unterminated last line");
        }
    }

    // 3. strict, and without keeping records
    let strict = stream(
        c,
        &chunks,
        ReaderOptions {
            strict: true,
            ..unlimited
        },
    );
    match strict.end {
        Ok(e) if whole.is_valid() => same_document(&e.document, &whole, "strict reader"),
        Err(e) if !whole.is_valid() && strict.push_error.is_none() => {
            if e.diagnostics() != whole.errors() {
                fail("strict reader reports other errors");
            }
        }
        Ok(_) => fail("strict reader accepted a document with errors"),
        Err(e) => fail(format!("strict reader failed on a valid document: {e}")),
    }
    let light = stream(
        c,
        &chunks,
        ReaderOptions {
            keep_records: false,
            ..unlimited
        },
    );
    match light.end {
        Ok(e) => {
            if !e.document.records().is_empty()
                || e.document.errors() != whole.errors()
                || e.valid != whole.diagnostics().valid_records
                || e.received != whole.record_lines()
            {
                fail("a reader that keeps no records disagrees with the whole parse");
            }
        }
        Err(e) => fail(format!("keep_records=false reader failed: {e}")),
    }

    // 4. limits
    let max_records = usize::from(input.limits & 7);
    let limited = stream(
        c,
        &chunks,
        ReaderOptions {
            max_records,
            ..unlimited
        },
    );
    let opts = ParseOptions {
        max_records,
        ..ParseOptions::UNLIMITED
    };
    match (
        limited.push_error.map(Err).unwrap_or(limited.end),
        value::parse_lenient_with(text, c, &opts),
    ) {
        (Ok(a), Ok(b)) => {
            same_document(&a.document, &b, "max_records reader vs parse_lenient_with")
        }
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        (a, b) => fail(format!(
            "max_records={max_records}: reader {:?}, parse_lenient_with {:?}",
            a.map(|e| e.valid).map_err(|e| e.to_string()),
            b.map(|d| d.records().len()).map_err(|e| e.to_string())
        )),
    }
    let max_line_bytes = 8 * (1 + usize::from(input.limits >> 3 & 15));
    let limited = stream(
        c,
        &chunks,
        ReaderOptions {
            max_line_bytes,
            ..ReaderOptions::default()
        },
    );
    let opts = ParseOptions {
        max_line_bytes,
        ..ParseOptions::UNLIMITED
    };
    match (
        limited.push_error.map(Err).unwrap_or(limited.end),
        value::parse_lenient_with(text, c, &opts),
    ) {
        (Ok(a), Ok(b)) => same_document(
            &a.document,
            &b,
            "max_line_bytes reader vs parse_lenient_with",
        ),
        (Err(a), _) if a.limit_exceeded() == Some(mini::Limit::LineBytes) => {}
        (a, b) => fail(format!(
            "max_line_bytes={max_line_bytes}: reader {:?}, parse_lenient_with {:?}",
            a.map(|e| e.valid).map_err(|e| e.to_string()),
            b.map(|d| d.records().len()).map_err(|e| e.to_string())
        )),
    }
}

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
struct JsonGen<'a> {
    g: Gen<'a>,
    budget: usize,
}

impl JsonGen<'_> {
    fn string(&mut self) -> String {
        let i = self.g.byte();
        match CONTRACT_WORDS.get(usize::from(i)) {
            Some(w) => (*w).to_string(),
            None if i < 200 => format!("{}{}", CONTRACT_WORDS[usize::from(i) % 48], i % 3),
            None => self.g.text(),
        }
    }

    fn number(&mut self) -> Value {
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

    fn value(&mut self, depth: usize) -> Value {
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

    fn object(&mut self, depth: usize) -> Value {
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
    fn field(&mut self, depth: usize) -> Value {
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
    fn contract(&mut self) -> Value {
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
    match value::dumps(&empty, &c) {
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

// ---------------------------------------------------------------------------
// typed_roundtrip (needs the `derive` feature)
// ---------------------------------------------------------------------------

pub use typed_target::{typed_roundtrip, TypedDoc, TypedHeader, TypedLevel, TypedPair, TypedRow};

mod typed_target {
    use std::collections::BTreeSet;

    use arbitrary::Arbitrary;
    use serde::{Deserialize, Serialize};

    use super::{breaks_normalized, codes, fail, render, survivor};
    use mini::Code;

    /// The document type of [`typed_roundtrip`] (`#[derive(mini::Mini)]`).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    #[mini(prefix = "ty", records = "rows", separator = ';')]
    pub struct TypedDoc {
        /// The header.
        pub header: TypedHeader,
        /// The records.
        pub rows: Vec<TypedRow>,
    }

    /// The header of [`TypedDoc`].
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    pub struct TypedHeader {
        /// The record count (recomputed by the serializer).
        pub n: u32,
        /// Options per row (count key of `options`).
        pub k: u32,
        /// A free header value.
        pub topic: Option<String>,
    }

    /// A unit enum.
    #[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    #[serde(rename_all = "lowercase")]
    pub enum TypedLevel {
        /// `low`
        Low,
        /// `high`
        High,
        /// `critical`
        Critical,
    }

    /// A tuple (a struct used as a field).
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    pub struct TypedPair {
        /// Required component.
        pub a: i32,
        /// Optional component.
        pub b: Option<String>,
    }

    /// A record of [`TypedDoc`]: every kind of field.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, mini::Mini, Arbitrary)]
    pub struct TypedRow {
        /// A unique string.
        #[mini(unique)]
        pub id: String,
        /// An enum.
        pub level: TypedLevel,
        /// A float.
        pub score: f64,
        /// An optional int.
        pub count: Option<i64>,
        /// A list of strings.
        pub tags: Vec<String>,
        /// A marked list with one selection, its length the header `k`.
        #[mini(mlist = "exactly_one", selected = "answer", count_key = "k")]
        pub options: Vec<String>,
        /// The selected option.
        pub answer: usize,
        /// A marked list of ints with any number of selections.
        #[mini(mlist = "any", selected = "picked")]
        pub labels: Vec<i32>,
        /// The selected labels.
        pub picked: Vec<usize>,
        /// A tuple.
        pub pair: TypedPair,
        /// A bool.
        pub flag: bool,
        /// An extension.
        #[mini(extension)]
        pub note: Option<String>,
    }

    fn strings(doc: &mut TypedDoc, f: &mut dyn FnMut(&mut String)) {
        if let Some(t) = &mut doc.header.topic {
            f(t);
        }
        for r in &mut doc.rows {
            f(&mut r.id);
            r.tags.iter_mut().for_each(&mut *f);
            r.options.iter_mut().for_each(&mut *f);
            if let Some(b) = &mut r.pair.b {
                f(b);
            }
            if let Some(n) = &mut r.note {
                f(n);
            }
        }
    }

    /// What a document reads back as: `n` recomputed, line breaks as LF,
    /// the `any` selection ascending.
    fn read_back(doc: &TypedDoc) -> TypedDoc {
        let mut d = doc.clone();
        d.header.n = d.rows.len() as u32;
        strings(&mut d, &mut |s| *s = breaks_normalized(s));
        for r in &mut d.rows {
            r.picked.sort_unstable();
        }
        d
    }

    /// A document every value of which can be written.
    fn writable(doc: &TypedDoc) -> TypedDoc {
        let mut d = doc.clone();
        d.rows.truncate(8);
        strings(&mut d, &mut |s| *s = survivor(s));
        let k = d.rows.first().map_or(1, |r| r.options.len().clamp(1, 6));
        d.header.k = k as u32;
        for (i, r) in d.rows.iter_mut().enumerate() {
            r.id = format!("{i}{}", r.id);
            if !r.score.is_finite() {
                r.score = 0.5;
            }
            r.options.resize(k, "o".to_string());
            r.answer %= k;
            r.labels.truncate(16);
            r.picked = r
                .picked
                .iter()
                .filter(|&&p| p < r.labels.len())
                .copied()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            for o in [&mut r.pair.b, &mut r.note] {
                if o.as_deref() == Some("") {
                    *o = None;
                }
            }
        }
        d
    }

    fn roundtrip(doc: &TypedDoc) -> Result<(), mini::Error> {
        let t = mini::to_string(doc)?;
        let back: TypedDoc = match mini::from_str(&t) {
            Ok(b) => b,
            Err(e) => fail(format!("to_string gave text from_str rejects: {e}\n{t}")),
        };
        if back != read_back(doc) {
            fail(format!(
                "from_str(to_string(x)) != x:\n  {back:?}\nvs\n  {:?}\ntext:\n{t}",
                read_back(doc)
            ));
        }
        match mini::to_string(&back) {
            Ok(t2) if t2 == t => Ok(()),
            Ok(t2) => fail(format!(
                "to_string ∘ from_str is not idempotent:\n{t}\nvs\n{t2}"
            )),
            Err(e) => fail(format!("to_string refused what from_str read: {e}")),
        }
    }

    /// Values of `#[derive(mini::Mini)]` types through `mini::to_string`
    /// and `mini::from_str`.
    ///
    /// 1. As generated: `to_string` either writes text that `from_str` reads
    ///    back as the same value (`n` recomputed, line breaks as LF, the
    ///    `any` selection ascending), with `to_string ∘ from_str` a fixed
    ///    point, or refuses with E06 (outer whitespace, an empty scalar, a
    ///    non-finite float), E07 (a count-key or tuple mismatch), E08 (a
    ///    selection out of range or repeated) or E11 (a repeated `id`).
    /// 2. Made writable (whitespace trimmed, ids made unique, counts
    ///    aligned, selections in range, finite floats): it must round-trip.
    pub fn typed_roundtrip(doc: &TypedDoc) {
        if let Err(e) = roundtrip(doc) {
            let allowed: BTreeSet<Code> = [Code::E06, Code::E07, Code::E08, Code::E11].into();
            if e.diagnostics().is_empty() || !codes(e.diagnostics()).is_subset(&allowed) {
                fail(format!(
                    "to_string refused with {e} ({})",
                    render(e.diagnostics())
                ));
            }
        }
        let w = writable(doc);
        if let Err(e) = roundtrip(&w) {
            fail(format!(
                "a writable value was refused: {e} ({})\n{w:?}",
                render(e.diagnostics())
            ));
        }
    }
}

// ---------------------------------------------------------------------------
// lexer_equivalence
// ---------------------------------------------------------------------------

/// The byte-level fast paths of the lexer against the `nom` grammar
/// (issue 7: a hand-written fast path must be proven equal to the grammar).
///
/// The first byte picks the list separator (one of [`Separator::ALL`]);
/// the rest, read as UTF-8 (lossily), is one line. Checked:
/// 1. [`syntax::split_fields_fast`] succeeds exactly when the `nom`
///    splitter [`syntax::split_fields_nom`] reports no lexical error, and
///    then gives the same fields (text, escape flag, offset);
/// 2. [`syntax::split_fields`] (what the engine calls) gives the fields and
///    errors of the `nom` splitter on every line;
/// 3. for the raw text of every field, and for the whole line,
///    [`syntax::split_list`] gives the elements (text, marker, quoted) or
///    the error (kind, offset) of [`syntax::split_list_nom`].
pub fn lexer_equivalence(data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let sep = Separator::ALL[usize::from(first) % Separator::ALL.len()].char();
    let line = String::from_utf8_lossy(rest);
    let line = line.as_ref();

    let (mut reference, mut ref_errors) = (Vec::new(), Vec::new());
    syntax::split_fields_nom(line, sep, &mut reference, &mut ref_errors);
    let mut fast = Vec::new();
    let fast_ok = syntax::split_fields_fast(line, sep, &mut fast);
    if fast_ok != ref_errors.is_empty() {
        fail(format!(
            "split_fields_fast {} but the grammar reports {:?} on {line:?}",
            if fast_ok { "succeeded" } else { "gave up" },
            ref_errors
        ));
    }
    if fast_ok && fast != reference {
        fail(format!(
            "split_fields_fast {fast:?} != grammar {reference:?} on {line:?}"
        ));
    }
    let (mut fields, mut errors) = (Vec::new(), Vec::new());
    syntax::split_fields(line, sep, &mut fields, &mut errors);
    if fields != reference || errors != ref_errors {
        fail(format!(
            "split_fields ({fields:?}, {errors:?}) != grammar ({reference:?}, {ref_errors:?}) on {line:?}"
        ));
    }

    let (mut a, mut b) = (Vec::new(), Vec::new());
    for raw in reference.iter().map(|f| f.raw).chain([line]) {
        let got = syntax::split_list(raw, sep, &mut a);
        let want = syntax::split_list_nom(raw, sep, &mut b);
        if got != want || (want.is_ok() && a != b) {
            fail(format!(
                "split_list ({got:?}, {a:?}) != grammar ({want:?}, {b:?}) on {raw:?} (separator {sep:?})"
            ));
        }
    }
}
