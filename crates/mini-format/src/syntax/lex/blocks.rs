//! The lexer's fast paths on the block masks (`scan::Block`, ADR 0033):
//! fields, plain list elements, a quoted element's close, and the count
//! of a list whose elements are not read. Each decides only what it can
//! decide alone; anything else goes back to the grammar in `lex.rs`, which
//! gives every error, and the tests in `lex/tests.rs` compare both. Each
//! walk runs in the machine's widest lanes (`scan::widest`, ADR 0059),
//! through a small struct whose `walk` is built into the function made
//! for those lanes.

use super::*;

/// The byte-level field splitter: each `|` and `\` found on the block
/// masks (under a separator that is not ASCII, by `memchr2`); a
/// valid escape is skipped with the character it protects. Returns false,
/// with `out` cleared, at the first invalid or dangling escape (the `nom`
/// grammar then splits the line and reports it).
pub fn split_fields_fast<'a>(line: &'a str, sep: char, out: &mut Vec<RawField<'a>>) -> bool {
    out.clear();
    let Ok(sep_byte) = u8::try_from(sep) else {
        return split_fields_memchr(line, sep, out);
    };
    if !sep.is_ascii() {
        return split_fields_memchr(line, sep, out);
    }
    crate::syntax::scan::widest(SplitFields {
        line,
        sep: sep_byte,
        out,
    })
}

/// [`split_fields_blocks`] as a walk for [`widest`](crate::syntax::scan::widest).
struct SplitFields<'o, 'a> {
    line: &'a str,
    sep: u8,
    out: &'o mut Vec<RawField<'a>>,
}

impl crate::syntax::scan::LaneWalk for SplitFields<'_, '_> {
    type Output = bool;

    #[inline(always)]
    fn walk<L: crate::syntax::scan::Lanes>(self, lanes: L) -> bool {
        split_fields_blocks(lanes, self.line, self.sep, self.out)
    }
}

/// [`split_fields_fast`]'s walk under an ASCII separator `sep_byte`, the
/// line read in 64-byte blocks of lanes `lanes`.
#[inline(always)]
fn split_fields_blocks<'a, L: crate::syntax::scan::Lanes>(
    lanes: L,
    line: &'a str,
    sep_byte: u8,
    out: &mut Vec<RawField<'a>>,
) -> bool {
    use crate::syntax::scan::{escaped_bits, Block};
    let bytes = line.as_bytes();
    let (mut start, mut carry, mut base) = (0usize, 0u64, 0usize);
    // whether the field being read has a backslash so far
    let mut escaped = false;
    while base < bytes.len() {
        let block = Block::load_in(lanes, bytes, base);
        let [mut pipes, backslash] = block.masks([b'|', b'\\']);
        if backslash != 0 || carry != 0 {
            let esc = escaped_bits(backslash, &mut carry);
            // an escape of anything else (a dangling one escapes the zero
            // past the end): the grammar reports it
            if esc & !block.escapable(sep_byte) != 0 {
                out.clear();
                return false;
            }
            pipes &= !esc;
        }
        // the block's backslashes not yet in a field (a block starts at or
        // after the current field's start: no bit of it is an earlier
        // field's)
        let mut unseen = backslash;
        while pipes != 0 {
            let k = pipes.trailing_zeros() as usize;
            let below = (pipes & pipes.wrapping_neg()) - 1;
            pipes &= pipes - 1;
            escaped |= unseen & below != 0;
            unseen &= !below;
            push_field_exact(line, start, base + k, escaped, out);
            start = base + k + 1;
            escaped = false;
        }
        escaped |= unseen != 0;
        base += 64;
    }
    if carry != 0 {
        // a dangling backslash at the end of a 64-byte block
        out.clear();
        return false;
    }
    push_field_exact(line, start, bytes.len(), escaped, out);
    true
}

/// [`push_field`] when `escaped` is exact: whether the field has a
/// backslash (trimming takes none away: a backslash is no whitespace).
#[inline(always)]
pub(super) fn push_field_exact<'a>(
    line: &'a str,
    start: usize,
    end: usize,
    escaped: bool,
    out: &mut Vec<RawField<'a>>,
) {
    let trimmed = trim_raw(&line[start..end]);
    out.push(RawField {
        raw: trimmed,
        escaped,
        offset: offset_in(line, trimmed),
    });
}

/// [`split_fields_fast`] under a separator that is not ASCII: `memchr2`
/// finds each `|` and `\`; a valid escape is skipped with the character it
/// protects.
fn split_fields_memchr<'a>(line: &'a str, sep: char, out: &mut Vec<RawField<'a>>) -> bool {
    out.clear();
    let bytes = line.as_bytes();
    let (mut start, mut from, mut escaped) = (0, 0, false);
    while let Some(p) = memchr2(b'|', b'\\', &bytes[from..]) {
        let at = from + p;
        if bytes[at] == b'|' {
            push_field(line, start, at, escaped, out);
            start = at + 1;
            from = at + 1;
            escaped = false;
            continue;
        }
        // `\` is one byte: `at + 1` is a character boundary
        match line[at + 1..].chars().next() {
            Some(c) if is_escapable(c, sep) => {
                escaped = true;
                from = at + 1 + c.len_utf8();
            }
            _ => {
                out.clear();
                return false;
            }
        }
    }
    push_field(line, start, bytes.len(), escaped, out);
    true
}

/// [`scan_quoted`]'s first pass under an ASCII separator, on the block
/// masks (64 bytes a step, escapes by the odd-run rule): the closing
/// quote's offset, whether the last piece is a plain run ending in `*`,
/// and whether the body before it has no `""` or escape. `None` when an
/// escape before the close is not one (or dangles), or nothing closes.
/// `pieces` is told where the bytes to decode are (see [`QuotedPieces`]).
pub(super) fn find_close<P: QuotedPieces>(
    body: &str,
    sep: u8,
    pieces: &mut P,
) -> Option<(usize, bool, bool)> {
    crate::syntax::scan::widest(FindClose { body, sep, pieces })
}

/// [`find_close_in`] as a walk for [`widest`](crate::syntax::scan::widest).
struct FindClose<'p, 'a, P> {
    body: &'a str,
    sep: u8,
    pieces: &'p mut P,
}

impl<P: QuotedPieces> crate::syntax::scan::LaneWalk for FindClose<'_, '_, P> {
    type Output = Option<(usize, bool, bool)>;

    #[inline(always)]
    fn walk<L: crate::syntax::scan::Lanes>(self, lanes: L) -> Self::Output {
        find_close_in(lanes, self.body, self.sep, self.pieces)
    }
}

/// [`find_close`]'s walk, the body read in 64-byte blocks of lanes `lanes`.
#[inline(always)]
fn find_close_in<P: QuotedPieces, L: crate::syntax::scan::Lanes>(
    lanes: L,
    body: &str,
    sep: u8,
    pieces: &mut P,
) -> Option<(usize, bool, bool)> {
    use crate::syntax::scan::{escaped_bits, Block};
    let bytes = body.as_bytes();
    let (mut carry, mut base) = (0u64, 0usize);
    // quotes before `skip` are the second of a `""`; `plain`: no `""` or
    // backslash so far; whether the last byte of the previous block was
    // escaped
    let (mut skip, mut plain, mut last_escaped) = (0usize, true, false);
    loop {
        if base > bytes.len() {
            return None;
        }
        let block = Block::load_in(lanes, bytes, base);
        let [mut quotes, backslash] = block.masks([b'"', b'\\']);
        let mut esc = 0;
        let mut invalid = 0;
        if backslash != 0 || carry != 0 {
            esc = escaped_bits(backslash, &mut carry);
            invalid = esc & !block.escapable(sep);
            quotes &= !esc;
        }
        while quotes != 0 {
            let k = quotes.trailing_zeros() as usize;
            quotes &= quotes - 1;
            let at = base + k;
            if at < skip {
                continue;
            }
            if bytes.get(at + 1) == Some(&b'"') {
                plain = false;
                skip = at + 2;
                pieces.doubled_quote(at + 1);
                continue;
            }
            // the close: what came before it in this block counts
            let below = (1u64 << k) - 1;
            if invalid & below != 0 {
                return None;
            }
            plain &= backslash & below == 0;
            pieces.escaped(base, esc & below);
            let before_escaped = match k {
                0 => last_escaped,
                _ => esc >> (k - 1) & 1 == 1,
            };
            let marker = at > 0 && bytes[at - 1] == b'*' && !before_escaped && at > skip;
            return Some((at, marker, plain));
        }
        if invalid != 0 {
            return None;
        }
        plain &= backslash == 0;
        pieces.escaped(base, esc);
        last_escaped = esc >> 63 == 1;
        base += 64;
        if base >= bytes.len() {
            return None;
        }
    }
}

/// What [`find_close`] tells of the bytes a quoted element decodes: each
/// is the second byte of a two-byte piece (the quote of a `""`, the byte
/// a backslash escapes), which the text keeps (a `\n` as a line break)
/// in place of the piece. A trait, not a closure: validation's no-op is
/// inlined away.
pub(super) trait QuotedPieces {
    /// The second quote of a `""`, at byte `at` of the body.
    fn doubled_quote(&mut self, at: usize);
    /// The escaped bytes of the 64-byte block at `base`, as a mask.
    fn escaped(&mut self, base: usize, mask: u64);
}

/// Validation (the body is given as written): where the pieces are is
/// not needed.
pub(super) struct NoPieces;

impl QuotedPieces for NoPieces {
    #[inline(always)]
    fn doubled_quote(&mut self, _: usize) {}
    #[inline(always)]
    fn escaped(&mut self, _: usize, _: u64) {}
}

/// How many 64-byte blocks of a quoted body [`PieceMasks`] holds; a
/// piece further on sends the element to [`scan_quoted`]'s decoding pass.
const PIECE_BLOCKS: usize = 4;

/// Where a quoted element's pieces are, one mask per 64-byte block of its
/// body (the first [`PIECE_BLOCKS`]), so that the text is decoded without
/// searching its body a second time (ADR 0050).
#[derive(Default)]
pub(super) struct PieceMasks {
    masks: [u64; PIECE_BLOCKS],
    /// A piece past the blocks held.
    overflow: bool,
}

impl QuotedPieces for PieceMasks {
    #[inline(always)]
    fn doubled_quote(&mut self, at: usize) {
        match self.masks.get_mut(at / 64) {
            Some(m) => *m |= 1 << (at % 64),
            None => self.overflow = true,
        }
    }

    #[inline(always)]
    fn escaped(&mut self, base: usize, mask: u64) {
        match self.masks.get_mut(base / 64) {
            Some(m) => *m |= mask,
            None => self.overflow |= mask != 0,
        }
    }
}

impl PieceMasks {
    /// The text of a body closing at `close`: each piece's second byte
    /// kept in its place as the first byte of the run copied after it
    /// (an escaped `n` pushed as a line break), the piece's first byte
    /// left out; `None` when a piece lies past the blocks held. The
    /// string reserves `close` bytes, one more than its text for each
    /// piece.
    #[inline(always)]
    pub(super) fn decode(&self, body: &str, close: usize) -> Option<String> {
        if self.overflow {
            return None;
        }
        // the body's length, as the second pass reserved: each piece makes
        // the text a byte shorter, and counting them is a software
        // popcount a mask on the baseline x86-64 target (ADR 0050 alt 4)
        let mut out = String::with_capacity(close);
        let bytes = body.as_bytes();
        let mut run = 0;
        for (i, &mask) in self.masks.iter().enumerate() {
            let mut mask = mask;
            while mask != 0 {
                let at = i * 64 + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                // the piece's first byte, a quote or a backslash, is
                // ASCII: `at - 1` and `at` are character boundaries; the
                // kept byte starts the next run (no `char` pushed), an
                // escaped `n` is a line break
                out.push_str(&body[run..at - 1]);
                run = at;
                if bytes[at] == b'n' {
                    out.push('\n');
                    run = at + 1;
                }
            }
        }
        out.push_str(&body[run..close]);
        Some(out)
    }
}

/// The list fast path: without a quote, every element is a run up to the
/// next unescaped separator, found 64 bytes at a time from the block's
/// masks (`scan::Block`; escapes resolved by the odd-run rule, no search
/// restarted at each backslash), decoded like the unquoted branch of
/// [`split_list`]. Returns false, having pushed nothing that
/// counts, when the text has a `"` (the quoted grammar decides).
#[inline(always)]
pub(super) fn plain_list<'a>(
    raw: &'a str,
    sep: u8,
    out: &mut Vec<Element<'a>>,
    decode: bool,
) -> bool {
    if decode {
        cut_plain_list(raw, sep, PushElements::<true> { out, sep })
    } else {
        cut_plain_list(raw, sep, PushElements::<false> { out, sep })
    }
}

/// What [`cut_plain_list`] does with each element it cuts (a trait, not a
/// closure: its method is inlined into the walk, which a closure's call
/// was not on the general path).
trait CutElement<'a> {
    /// Whether [`take`](Self::take) is handed where each element's escaped
    /// bytes are (`window`); when false the walk does not follow them, and
    /// `window` is empty.
    const WANTS_BITS: bool = false;
    /// Takes one element's raw text, whether it holds a backslash, and,
    /// when [`WANTS_BITS`](Self::WANTS_BITS), the escaped bytes of the
    /// walk's last two blocks from the element's start
    /// ([`Window::element_bits`]); false stops the walk.
    fn take(&mut self, part: &'a str, escaped: bool, window: Window) -> bool;
}

impl<'a, C: CutElement<'a>> CutElement<'a> for &mut C {
    const WANTS_BITS: bool = C::WANTS_BITS;

    #[inline(always)]
    fn take(&mut self, part: &'a str, escaped: bool, window: Window) -> bool {
        (**self).take(part, escaped, window)
    }
}

/// The escaped bytes of the list walk's last two 64-byte blocks (the one
/// before in the low half, the one read in the high) and how far into
/// them the element being taken starts: its own escaped bytes are one
/// shift of them (ADR 0071), computed only for an element that holds a
/// backslash.
#[derive(Clone, Copy)]
struct Window {
    bits: u128,
    /// The element's start less the window's: 128 or more when the
    /// element started before the window (wrapped).
    from: usize,
}

impl Window {
    /// The escaped bytes from the element's start (bit `i`: byte `i` of
    /// its raw text follows an escaping backslash; bits past the text
    /// belong to what follows it), or `None` when it started before the
    /// window.
    #[inline(always)]
    fn element_bits(self) -> Option<u128> {
        (self.from < 128).then(|| self.bits >> self.from)
    }
}

/// Where the escapes of an element of [`plain_text_list`] (and of
/// [`split_list`]'s walk of a list with no quote, ADR 0073) are: sixteen
/// bytes, handed in two registers to the caller's closure (an enum with a
/// `u128` in it went through memory, ADR 0071).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Escapes(u128);

impl Escapes {
    /// The text holds no backslash.
    pub const NONE: Escapes = Escapes(0);
    /// The text holds a backslash, and its raw element (edge whitespace
    /// and marker with it) or the separator after it reaches a third of
    /// the walk's 64-byte blocks (a raw element of 64 bytes or fewer is
    /// always mapped). All bits set, which no text's escaped
    /// bytes are (two escaped bytes are never neighbours), and which would
    /// only cost a search if they were.
    const UNMAPPED: Escapes = Escapes(u128::MAX);

    /// The text's escaped bytes: bit `i` set when byte `i` follows a
    /// backslash that escapes it (the odd-run rule, whether or not the
    /// escape is a valid one; bits past the text's end may be set too,
    /// the bytes after it), for
    /// [`unescape_mapped`](super::unescape_mapped) to resolve with no
    /// search; zero when there is nothing to resolve (no backslash, or
    /// only a dangling one: the text as written). `None` when the walk
    /// did not map them: [`unescape_into`](super::unescape_into) searches.
    #[inline(always)]
    pub fn mapped(self) -> Option<u128> {
        (self != Escapes::UNMAPPED).then_some(self.0)
    }

    /// Where the escapes of `text` are: `text` is `part` trimmed and its
    /// marker taken off, `escaped` whether `part` holds a backslash, and
    /// `window` what the walk handed with `part`.
    #[inline(always)]
    fn of(part: &str, text: &str, escaped: bool, window: Window) -> Escapes {
        // the window is shifted only for an element with a backslash
        if !escaped {
            Escapes::NONE
        } else if let Some(bits) = window.element_bits() {
            // the trimmed text is a slice of `part`: its bits are
            // `part`'s from where it starts (under 128 bytes in: trimming
            // never takes a backslash away); those past its end, later
            // elements' or a dangling backslash's, `unescape_mapped` stops
            // at
            let lead = text.as_ptr() as usize - part.as_ptr() as usize;
            Escapes(bits.wrapping_shr(lead as u32))
        } else {
            Escapes::UNMAPPED
        }
    }
}

/// [`plain_list`]'s elements: pushed as the grammar's `Element`s, their
/// escapes resolved when `DECODE` (from the walk's masks, ADR 0073) or
/// kept as written.
struct PushElements<'o, 'a, const DECODE: bool> {
    out: &'o mut Vec<Element<'a>>,
    sep: u8,
}

impl<'a, const DECODE: bool> CutElement<'a> for PushElements<'_, 'a, DECODE> {
    const WANTS_BITS: bool = DECODE;

    #[inline(always)]
    fn take(&mut self, part: &'a str, escaped: bool, window: Window) -> bool {
        let sep = char::from(self.sep);
        if !(DECODE && escaped) {
            push_plain(part, escaped, sep, self.out, false);
            return true;
        }
        let (text, marked) = trim_marked(part, true);
        let text = match Escapes::of(part, text, true, window).mapped() {
            // nothing to resolve (only a dangling backslash): as written
            Some(0) => Cow::Borrowed(text),
            Some(bits) => {
                let mut decoded = String::with_capacity(text.len());
                super::unescape_mapped(text, sep, bits, &mut decoded);
                Cow::Owned(decoded)
            }
            None => Cow::Owned(super::unescape(text, sep)),
        };
        self.out.push(Element {
            text,
            marked,
            quoted: false,
        });
        true
    }
}

/// [`plain_text_list`]'s elements: counted, trimmed, their marker taken
/// off, and handed to the caller's `each`.
struct EachText<F> {
    each: F,
    n: usize,
}

impl<'a, F: FnMut(&'a str, Escapes, bool) -> bool> CutElement<'a> for EachText<F> {
    const WANTS_BITS: bool = true;

    #[inline(always)]
    fn take(&mut self, part: &'a str, escaped: bool, window: Window) -> bool {
        self.n += 1;
        let (text, marked) = trim_marked(part, escaped);
        (self.each)(text, Escapes::of(part, text, escaped, window), marked)
    }
}

/// The elements of a list of text with no quote, cut and handed to `each`
/// in one walk (the direct reader of a `Vec<String>`, ADR 0046): each
/// element's text trimmed and its marker taken off as [`split_list`] does,
/// where its escapes are (unresolved: [`Escapes`], mapped from the walk's
/// own masks for an element in two 64-byte blocks), and whether it was
/// marked. Returns how many there were (an empty text has none), or
/// `None` when the list needs the element grammar: a non-ASCII separator,
/// an unescaped `"`, or `each` refusing an element (it returned false). A
/// text that starts with `"` is refused before any element is cut.
#[inline(always)]
pub fn plain_text_list<'a>(
    raw: &'a str,
    sep: char,
    each: impl FnMut(&'a str, Escapes, bool) -> bool,
) -> Option<usize> {
    let sep = u8::try_from(sep).ok().filter(u8::is_ascii)?;
    match raw.as_bytes().first() {
        None => return Some(0),
        // a list written in quotes (CSV style) is the grammar's from the
        // start: no element is cut and copied for nothing
        Some(b'"') => return None,
        Some(_) => {}
    }
    let mut cut = EachText { each, n: 0 };
    cut_plain_list(raw, sep, &mut cut).then_some(cut.n)
}

/// Where the list grammar ([`list_with`]) puts the elements it reads: the
/// grammar's own `Element`s, or, for the direct reader of a quoted list
/// of text, each element handed on as it is read ([`quoted_text_list`]).
pub(super) trait TakeElements<'a> {
    /// Forgets any element taken so far (the grammar starts again).
    fn restart(&mut self);
    /// The fast path of a list with no quote ([`plain_list`]): false when
    /// it did not decide, having taken nothing that counts.
    fn plain(&mut self, raw: &'a str, sep: u8, decode: bool) -> bool;
    /// Takes one element.
    fn take(&mut self, element: Element<'a>);
}

impl<'a> TakeElements<'a> for Vec<Element<'a>> {
    #[inline(always)]
    fn restart(&mut self) {
        self.clear();
    }

    #[inline(always)]
    fn plain(&mut self, raw: &'a str, sep: u8, decode: bool) -> bool {
        plain_list(raw, sep, self, decode)
    }

    #[inline(always)]
    fn take(&mut self, element: Element<'a>) {
        self.push(element);
    }
}

/// [`quoted_text_list`]'s elements: counted and handed to the caller.
struct EachElement<F> {
    each: F,
    n: usize,
}

impl<'a, F: FnMut(Cow<'a, str>, bool)> TakeElements<'a> for EachElement<F> {
    fn restart(&mut self) {
        // the grammar restarts only after the fast path, which this sink
        // never takes: nothing has been handed on
        debug_assert_eq!(self.n, 0);
    }

    #[inline(always)]
    fn plain(&mut self, _: &'a str, _: u8, _: bool) -> bool {
        false
    }

    #[inline(always)]
    fn take(&mut self, element: Element<'a>) {
        self.n += 1;
        (self.each)(element.text, element.marked);
    }
}

/// The elements of a list of text written with quotes (CSV style), read
/// by the list grammar ([`split_list`]: the same elements, decoded the
/// same way, and the same errors) and handed to `each` as they are read,
/// with whether each was marked: the direct reader of a `Vec<String>`
/// takes each text as it comes, with no vector of elements between
/// (ADR 0061). Returns how many there were, or `None` when
/// the list breaks the grammar (the element path then reads it again and
/// gives the error). Elements handed before an error are the caller's to
/// drop.
#[inline(always)]
pub fn quoted_text_list<'a>(
    raw: &'a str,
    sep: char,
    each: impl FnMut(Cow<'a, str>, bool),
) -> Option<usize> {
    let mut sink = EachElement { each, n: 0 };
    list_with(raw, sep, &mut sink, true, Decode::All).ok()?;
    Some(sink.n)
}

/// The walk of [`plain_list`] and [`plain_text_list`]: each element's raw
/// text (untrimmed) and whether it holds a backslash, to `each`. False
/// when `each` returns false or the text has an unescaped `"`; the
/// elements before it have been handed.
#[inline(always)]
fn cut_plain_list<'a>(raw: &'a str, sep: u8, each: impl CutElement<'a>) -> bool {
    crate::syntax::scan::widest(CutList { raw, sep, each })
}

/// [`cut_plain_blocks`] as a walk for [`widest`](crate::syntax::scan::widest).
struct CutList<'a, E> {
    raw: &'a str,
    sep: u8,
    each: E,
}

impl<'a, E: CutElement<'a>> crate::syntax::scan::LaneWalk for CutList<'a, E> {
    type Output = bool;

    #[inline(always)]
    fn walk<L: crate::syntax::scan::Lanes>(self, lanes: L) -> bool {
        cut_plain_blocks(lanes, self.raw, self.sep, self.each)
    }
}

/// [`cut_plain_list`]'s walk, the text read in 64-byte blocks of lanes
/// `lanes`.
#[inline(always)]
fn cut_plain_blocks<'a, L: crate::syntax::scan::Lanes, E: CutElement<'a>>(
    lanes: L,
    raw: &'a str,
    sep: u8,
    mut each: E,
) -> bool {
    use crate::syntax::scan::{escaped_bits, Block};
    let bytes = raw.as_bytes();
    let (mut start, mut carry, mut base) = (0usize, 0u64, 0usize);
    // whether the element being read has a backslash so far
    let mut escaped = false;
    // for a taker that wants them, the escaped bytes of the last two
    // blocks ([`Window`]): an element that starts in either is a shift
    // of them (one per escaped element, none per block, ADR 0071)
    let mut window = 0u128;
    // the window handed with the element from `start`, its last block
    // ending at `end` (`start < end`: 128 or more only when wrapped)
    let at = |window: u128, start: usize, end: usize| Window {
        bits: if E::WANTS_BITS { window } else { 0 },
        from: (start + 128).wrapping_sub(end),
    };
    while base < bytes.len() {
        // three masks taken one by one, not `Block::masks`'s array `map`:
        // with two walks calling it (the element path's and the direct
        // reader's), the `map` was left out of line (ADR 0046)
        let block = Block::load_in(lanes, bytes, base);
        let (mut seps, backslash, mut quote) =
            (block.mask(sep), block.mask(b'\\'), block.mask(b'"'));
        let mut esc = 0u64;
        if backslash != 0 || carry != 0 {
            // the byte after an escaping backslash is never structural (a
            // multi-byte character's continuation bytes never are)
            esc = escaped_bits(backslash, &mut carry);
            seps &= !esc;
            quote &= !esc;
        }
        if E::WANTS_BITS {
            window = (window >> 64) | (u128::from(esc) << 64);
        }
        if quote != 0 {
            return false;
        }
        // the block's backslashes not yet in an element (as in
        // `split_fields_fast`)
        let mut unseen = backslash;
        while seps != 0 {
            let k = seps.trailing_zeros() as usize;
            let below = (seps & seps.wrapping_neg()) - 1;
            seps &= seps - 1;
            escaped |= unseen & below != 0;
            unseen &= !below;
            if !each.take(&raw[start..base + k], escaped, at(window, start, base + 64)) {
                return false;
            }
            start = base + k + 1;
            escaped = false;
        }
        escaped |= unseen != 0;
        base += 64;
    }
    // the last block read ends at `base`
    each.take(&raw[start..], escaped, at(window, start, base))
}

/// The number of elements of a list whose elements are not read (the
/// plan's validation walk of a `str` list: count and markers only), and
/// how many of them are marked, from the block masks alone: the unescaped
/// separators plus one, and the unescaped `*` right before a separator or
/// at the end of the text. `None` when the text has an unescaped `"` (a
/// quoted element) or another unescaped `*` (one before a space, or inside
/// an element: the element path decides); an empty text is the empty list.
pub fn count_plain_list(raw: &str, sep: char) -> Option<(usize, usize)> {
    let sep = u8::try_from(sep)
        .ok()
        .filter(|b| b.is_ascii() && !matches!(b, b'*' | b'"'))?;
    match raw.as_bytes().first() {
        None => return Some((0, 0)),
        // a quoted first element (`raw` is trimmed): not counted here
        Some(b'"') => return None,
        Some(_) => {}
    }
    crate::syntax::scan::widest(CountList { raw, sep })
}

/// [`count_plain_blocks`] as a walk for [`widest`](crate::syntax::scan::widest).
struct CountList<'a> {
    raw: &'a str,
    sep: u8,
}

impl crate::syntax::scan::LaneWalk for CountList<'_> {
    type Output = Option<(usize, usize)>;

    #[inline(always)]
    fn walk<L: crate::syntax::scan::Lanes>(self, lanes: L) -> Self::Output {
        count_plain_blocks(lanes, self.raw, self.sep)
    }
}

/// [`count_plain_list`]'s walk over a text that does not start with `"`,
/// in 64-byte blocks of lanes `lanes`.
#[inline(always)]
fn count_plain_blocks<L: crate::syntax::scan::Lanes>(
    lanes: L,
    raw: &str,
    sep: u8,
) -> Option<(usize, usize)> {
    use crate::syntax::scan::{escaped_bits, Block};
    let bytes = raw.as_bytes();
    let (mut count, mut marked, mut carry, mut base) = (1, 0, 0u64, 0);
    // an unescaped `*` ended the previous block: a marker if this block
    // starts with a separator
    let mut star_before = false;
    while base < bytes.len() {
        let block = Block::load_in(lanes, bytes, base);
        let [mut seps, backslash] = block.masks([sep, b'\\']);
        let mut other = block.mask_any([b'"', b'*']);
        if backslash != 0 || carry != 0 {
            let esc = escaped_bits(backslash, &mut carry);
            seps &= !esc;
            other &= !esc;
        }
        if other != 0 || star_before {
            // the unescaped quotes and stars
            let [quote, star] = block.masks([b'"', b'*']).map(|m| m & other);
            if quote != 0 || (star_before && seps & 1 == 0) {
                return None;
            }
            marked += usize::from(star_before);
            // the bytes that end an element: the one before each
            // separator, and the text's last byte (in this block or a
            // later one)
            let left = bytes.len() - base;
            let (ends, inner) = match left {
                65.. => (seps >> 1, star & (u64::MAX >> 1)),
                _ => ((seps >> 1) | 1 << (left - 1), star),
            };
            if inner & !ends != 0 {
                return None;
            }
            marked += inner.count_ones() as usize;
            star_before = star != inner;
        }
        count += seps.count_ones() as usize;
        base += 64;
    }
    Some((count, marked))
}
