//! Resolving a text's escapes (SPEC 1.1 §3): `\n` a line break, a valid
//! escape its character, anything else after a backslash kept as written
//! (the lexer has already reported it). A short text is read from one
//! backslash to the next; a long one on its 64-byte block masks (ADR
//! 0051).

use super::is_escapable;

/// Whether the character at `at` of `raw`, whose first byte is `b` and
/// which follows a backslash, is one an escape protects (`n` aside, which
/// the callers decode first).
#[inline(always)]
fn escapes(raw: &str, at: usize, b: u8, sep: char) -> bool {
    if b.is_ascii() {
        is_escapable(char::from(b), sep)
    } else {
        escapes_wide(raw, at, sep)
    }
}

/// [`escapes`] for a character outside ASCII: only a separator outside
/// ASCII is escaped. Out of line, so that its callers do not encode the
/// separator on every call (ADR 0051).
#[cold]
#[inline(never)]
fn escapes_wide(raw: &str, at: usize, sep: char) -> bool {
    !sep.is_ascii() && raw[at..].starts_with(sep)
}

/// Resolves the escapes of raw text. Invalid escapes are kept literally (the
/// lexer has already reported them); a dangling backslash is kept too.
pub fn unescape(raw: &str, sep: char) -> String {
    let mut out = String::with_capacity(raw.len());
    unescape_into(raw, sep, &mut out);
    out
}

/// [`unescape`] into an existing buffer (appends).
pub fn unescape_into(raw: &str, sep: char, out: &mut String) {
    if raw.len() >= LONG_TEXT {
        return unescape_long(raw, sep, out);
    }
    let bytes = raw.as_bytes();
    // where the next run to copy starts, where the next backslash is looked
    // for (past the escaped character, which may be a backslash)
    let (mut run, mut from) = (0usize, 0usize);
    loop {
        let pos = crate::syntax::scan::find_byte(bytes, from, b'\\');
        let Some(&b) = bytes.get(pos + 1) else {
            // no backslash left, or a dangling one: kept, with the last run
            break;
        };
        from = pos + 2;
        if b == b'n' {
            out.push_str(&raw[run..pos]);
            out.push('\n');
            run = from;
        } else if escapes(raw, pos + 1, b, sep) {
            // the backslash dropped: the escaped character starts the
            // next run
            out.push_str(&raw[run..pos]);
            run = pos + 1;
        }
        // otherwise not an escape: the backslash stays in the run (a
        // search from inside a multi-byte character finds no backslash
        // there)
    }
    out.push_str(&raw[run..]);
}

/// [`unescape_into`] for a text whose escaped bytes are known (`escaped`:
/// bit `i` set when byte `i` follows a backslash that escapes it, as the
/// list walk's masks give them,
/// [`Escapes::mapped`](super::Escapes::mapped)): the runs between them
/// copied whole, with no search. The same text as
/// [`unescape_into`] for the bits of the odd-run rule; a bit past the
/// text (the list walk hands the next elements' too), or one not after a
/// backslash, is ignored (never a panic).
pub fn unescape_mapped(raw: &str, sep: char, mut escaped: u128, out: &mut String) {
    let bytes = raw.as_bytes();
    // where the next run to copy starts
    let mut run = 0usize;
    while escaped != 0 {
        // the escaped byte, one past its backslash
        let at = escaped.trailing_zeros() as usize;
        escaped &= escaped - 1;
        // a bit past the text (so are all the later ones), at or before
        // the run, or not after a backslash: not an escape
        let Some(&b) = bytes.get(at) else {
            break;
        };
        if bytes.get(at.wrapping_sub(1)) != Some(&b'\\') {
            continue;
        }
        if at <= run {
            continue;
        }
        run = resolve_escape(raw, at, b, sep, run, out);
    }
    // `run` is at most one past an escaped byte of the text: in it
    out.push_str(&raw[run..]);
}

/// One escape resolved, given its escaped byte `b` at `at` (one past its
/// backslash, `run < at`) and where the run to copy starts: the run up to
/// the backslash copied and the next run's start returned. `\n` is a line
/// break (the next run after it); a valid escape's backslash is dropped
/// (its character starts the next run); anything else is not an escape
/// and the backslash stays in the run.
#[inline(always)]
fn resolve_escape(raw: &str, at: usize, b: u8, sep: char, run: usize, out: &mut String) -> usize {
    if b == b'n' {
        out.push_str(&raw[run..at - 1]);
        out.push('\n');
        at + 1
    } else if escapes(raw, at, b, sep) {
        out.push_str(&raw[run..at - 1]);
        at
    } else {
        run
    }
}

/// The length from which [`unescape_into`] reads a text on the block masks
/// ([`unescape_long`]) instead of searching from one backslash to the next.
/// At least 64 (ADR 0051): every block is then a full one or the text's
/// last 64 bytes, never the zero-padded copy of a short text. Since the
/// walk runs in the widest lanes (ADR 0059) a call costs their dispatch,
/// which a text of 64–95 bytes with an escape or two does not earn back:
/// at 96 rubric's typed decode (46% of its descriptors 64 bytes or
/// more, ADR 0051) takes 0.99 the time, notes' no more (ADR 0065).
pub(super) const LONG_TEXT: usize = 96;

/// [`unescape_into`] for a text of at least [`LONG_TEXT`] bytes: the
/// escaped bytes of each 64-byte block found at once (the odd-run rule,
/// [`escaped_bits`](crate::syntax::scan::escaped_bits)), and the runs
/// between them copied whole, so that no search restarts after each
/// backslash (a long text full of escapes, as notes' titles and bodies).
/// The same text as the search: `\n` a line break, a valid escape its
/// character (the backslash dropped, the character left at the start of
/// the next run), an invalid or dangling one kept as written. Out of
/// line: inlined into [`unescape_into`], its registers weigh on the short
/// path too (rubric's typed decode 1.03× the time, ADR 0051).
#[inline(never)]
fn unescape_long(raw: &str, sep: char, out: &mut String) {
    crate::syntax::scan::widest(UnescapeLong { raw, sep, out })
}

/// [`unescape_blocks`] as a walk for [`widest`](crate::syntax::scan::widest).
struct UnescapeLong<'o, 'a> {
    raw: &'a str,
    sep: char,
    out: &'o mut String,
}

impl crate::syntax::scan::LaneWalk for UnescapeLong<'_, '_> {
    type Output = ();

    #[inline(always)]
    fn walk<L: crate::syntax::scan::Lanes>(self, lanes: L) {
        unescape_blocks(lanes, self.raw, self.sep, self.out)
    }
}

/// [`unescape_long`]'s walk, the text read in 64-byte blocks of lanes
/// `lanes`.
#[inline(always)]
fn unescape_blocks<L: crate::syntax::scan::Lanes>(
    lanes: L,
    raw: &str,
    sep: char,
    out: &mut String,
) {
    use crate::syntax::scan::{escaped_bits, Block};
    let bytes = raw.as_bytes();
    // where the next run to copy starts, the escape carried from one block
    // to the next, the block's first byte
    let (mut run, mut carry, mut base) = (0usize, 0u64, 0usize);
    while base < bytes.len() {
        let backslash = Block::load_in(lanes, bytes, base).mask(b'\\');
        if backslash != 0 || carry != 0 {
            let mut escaped = escaped_bits(backslash, &mut carry);
            while escaped != 0 {
                // the escaped byte, one past its backslash
                let at = base + escaped.trailing_zeros() as usize;
                escaped &= escaped - 1;
                let Some(&b) = bytes.get(at) else {
                    // a dangling backslash: kept, with the last run
                    break;
                };
                run = resolve_escape(raw, at, b, sep, run, out);
            }
        }
        base += 64;
    }
    out.push_str(&raw[run..]);
}
