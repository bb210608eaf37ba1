//! Generators: the structured fuzz inputs, their seed encoding, and the
//! contracts and objects they build.

pub(crate) mod canonical;

use arbitrary::{Arbitrary, Unstructured};

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
    pub(crate) bytes: Vec<u8>,
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

pub(crate) const PIECE_VARIANTS: u32 = 17;

/// Non-ASCII characters [`Piece::Unicode`] picks from: letters, CJK, an
/// emoji, and the Unicode whitespace `.mini` trims (NBSP, U+2028, U+3000,
/// U+0085, the information separators) or does not (U+200B, U+FEFF).
pub const UNICODE: [char; 16] = [
    'é', 'ß', 'ñ', '漢', '😀', '\u{a0}', '\u{2028}', '\u{3000}', '\u{85}', '\u{1f}', '\u{1c}',
    '\u{200b}', '\u{feff}', '¦', '\u{0}', 'Ω',
];

impl Piece {
    pub(crate) fn push_to(self, out: &mut String) {
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

    pub(crate) fn index(self) -> usize {
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

    pub(crate) fn single(self) -> bool {
        matches!(self, Rule::ExactlyOne | Rule::AtMostOne)
    }

    pub(crate) fn allows(self, marked: usize) -> bool {
        match self {
            Rule::ExactlyOne => marked == 1,
            Rule::AtLeastOne => marked >= 1,
            Rule::AtMostOne => marked <= 1,
            Rule::Any => true,
        }
    }

    pub(crate) fn needs_one(self) -> bool {
        matches!(self, Rule::ExactlyOne | Rule::AtLeastOne)
    }
}

impl Encode for Rule {
    fn encode(&self, w: &mut SeedWriter) {
        w.variant(*self as u32, 4);
    }
}
