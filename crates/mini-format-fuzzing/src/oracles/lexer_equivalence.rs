//! `lexer_equivalence`: the lexer's fast paths against the `nom` grammar.

use crate::*;

use mini::__private::syntax::{self};

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
///    the error (kind, offset) of [`syntax::split_list_nom`];
/// 4. [`syntax::split_list_undecoded`] (validation's reading of a `str`
///    list) gives the same outcome, elements, markers and quoted flags,
///    and each element's text decodes to the grammar's (an unquoted one
///    keeps its escapes; a quoted one is the same text).
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

    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for raw in reference.iter().map(|f| f.raw).chain([line]) {
        let got = syntax::split_list(raw, sep, &mut a);
        let want = syntax::split_list_nom(raw, sep, &mut b);
        if got != want || (want.is_ok() && a != b) {
            fail(format!(
                "split_list ({got:?}, {a:?}) != grammar ({want:?}, {b:?}) on {raw:?} (separator {sep:?})"
            ));
        }
        let undecoded = syntax::split_list_undecoded(raw, sep, &mut c);
        let same_elements = || {
            c.len() == b.len()
                && c.iter().zip(&b).all(|(u, d)| {
                    u.marked == d.marked
                        && u.quoted == d.quoted
                        && if u.quoted {
                            u.text == d.text
                        } else {
                            syntax::unescape(&u.text, sep) == d.text
                        }
                })
        };
        if undecoded != want || (want.is_ok() && !same_elements()) {
            fail(format!(
                "split_list_undecoded ({undecoded:?}, {c:?}) != grammar ({want:?}, {b:?}) on {raw:?} (separator {sep:?})"
            ));
        }
    }
}
