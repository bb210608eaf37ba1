use super::*;

fn fields(line: &str, sep: char) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut errs = Vec::new();
    split_fields(line, sep, &mut out, &mut errs);
    (
        out.iter().map(|f| f.text(sep).into_owned()).collect(),
        errs.len(),
    )
}

/// A random text of fewer than `max` pieces drawn from `pieces` (its
/// length drawn first, then each piece).
fn random_text<P: std::fmt::Display>(
    rng: &mut impl FnMut() -> u64,
    pieces: &[P],
    max: u64,
) -> String {
    use std::fmt::Write as _;
    let len = rng() % max;
    let mut text = String::new();
    for _ in 0..len {
        let piece = &pieces[(rng() % pieces.len() as u64) as usize];
        write!(text, "{piece}").expect("writing to a String");
    }
    text
}

fn list(raw: &str, sep: char) -> Result<Vec<(String, bool)>, SyntaxErrorKind> {
    let mut out = Vec::new();
    split_list(raw, sep, &mut out).map_err(|e| e.kind)?;
    Ok(out
        .into_iter()
        .map(|e| (e.text.into_owned(), e.marked))
        .collect())
}

#[test]
fn fields_split_on_unescaped_pipes_and_trim() {
    assert_eq!(
        fields(" a | b\\|c |", ','),
        (vec!["a".into(), "b|c".into(), "".into()], 0)
    );
    assert_eq!(fields("", ','), (vec!["".into()], 0));
    assert_eq!(fields("a\\n x", ','), (vec!["a\n x".into()], 0));
}

#[test]
fn bad_escapes_are_reported_and_kept_literally() {
    assert_eq!(
        fields("a\\qb|c", ','),
        (vec!["a\\qb".into(), "c".into()], 1)
    );
    assert_eq!(fields("a\\", ','), (vec!["a\\".into()], 1));
    assert_eq!(fields("a\\;", ','), (vec!["a\\;".into()], 1));
    assert_eq!(fields("a\\;", ';'), (vec!["a;".into()], 0));
    // `\,` is valid whatever the separator
    assert_eq!(fields("a\\,", ';'), (vec!["a,".into()], 0));
}

#[test]
fn information_separators_are_whitespace() {
    assert_eq!(trim_raw("\u{1f}a\u{3000}"), "a");
}

#[test]
fn escaped_whitespace_separator_survives_trimming() {
    assert_eq!(trim_raw("a\\\t"), "a\\\t");
    assert_eq!(trim_raw("a\\\\\t"), "a\\\\");
    assert_eq!(trim_raw("  a  "), "a");
}

#[test]
fn lists_markers_and_quotes() {
    assert_eq!(list("", ','), Ok(vec![]));
    assert_eq!(
        list("a*, b ,c", ','),
        Ok(vec![
            ("a".into(), true),
            ("b".into(), false),
            ("c".into(), false)
        ])
    );
    assert_eq!(
        list("a,", ','),
        Ok(vec![("a".into(), false), ("".into(), false)])
    );
    assert_eq!(list("a\\*", ','), Ok(vec![("a*".into(), false)]));
    assert_eq!(
        list("\"x, y\"*,z", ','),
        Ok(vec![("x, y".into(), true), ("z".into(), false)])
    );
    assert_eq!(
        list("\"x*\",z", ','),
        Ok(vec![("x".into(), true), ("z".into(), false)])
    );
    assert_eq!(
        list("\"x\\*\",z", ','),
        Ok(vec![("x*".into(), false), ("z".into(), false)])
    );
    assert_eq!(
        list("\"say \"\"hi\"\"\"", ','),
        Ok(vec![("say \"hi\"".into(), false)])
    );
    assert_eq!(list("\"\"", ','), Ok(vec![("".into(), false)]));
    assert_eq!(
        list("\\\"a,b", ','),
        Ok(vec![("\"a".into(), false), ("b".into(), false)])
    );
    assert_eq!(list("a\"b", ','), Ok(vec![("a\"b".into(), false)]));
    assert_eq!(list("\"open", ','), Err(SyntaxErrorKind::UnclosedQuote));
    assert_eq!(list("\"a\"x,b", ','), Err(SyntaxErrorKind::TextAfterQuote));
    assert_eq!(
        list("a;b\\;c", ';'),
        Ok(vec![("a".into(), false), ("b;c".into(), false)])
    );
}

/// The block splitter (64 bytes a step, escapes resolved by the
/// odd-run rule) against the grammar on long random lines: runs of
/// backslashes across block edges, dangling and invalid escapes,
/// non-ASCII text, every separator kind.
#[test]
fn the_block_splitter_agrees_with_the_grammar() {
    // escapes as pairs (valid under some separator), a lone backslash
    // now and then (dangling or invalid)
    let tokens = [
        "a", "|", r"\\", r"\|", r"\,", r"\;", r"\n", r"\*", "\\\t", r"\·", r#"\""#, ",", ";", "*",
        "\"", "n", " ", "\t", "é", "·", "xyz",
    ];
    let mut rng = crate::test_rng(0x5eed_b10c_4a11_0001);
    let mut fast = 0;
    for round in 0..20_000 {
        let mut line = random_text(&mut rng, &tokens, 120);
        if round % 7 == 0 {
            let at = (rng() as usize % (line.len() + 1)..=line.len())
                .find(|&i| line.is_char_boundary(i))
                .unwrap_or(line.len());
            line.insert(at, '\\');
        }
        for sep in [',', ';', '\t', '·'] {
            let (mut a, mut b, mut ea, mut eb) = (vec![], vec![], vec![], vec![]);
            fast += usize::from(split_fields_fast(&line, sep, &mut a));
            split_fields(&line, sep, &mut a, &mut ea);
            split_fields_nom(&line, sep, &mut b, &mut eb);
            assert_eq!((&a, &ea), (&b, &eb), "{line:?} {sep:?}");
        }
    }
    assert!(fast > 3_000, "the block splitter took {fast} lines");
}

/// The element count and the markers from the masks are the element
/// path's, on every list it takes (no unescaped quote, every unescaped `*`
/// a marker right before a separator or the end), and it declines the
/// others.
#[test]
fn the_counted_list_is_the_split_list() {
    let tokens = [
        "a", ",", ";", r"\,", r"\\", r"\*", r#"\""#, " ", "é", "xyz", "\t", "b*\0",
    ];
    let mut rng = crate::test_rng(0xc0a7_1157_0000_0001);
    let (mut counted, mut declined, mut long, mut with_marks) = (0, 0, 0, 0);
    for _ in 0..20_000 {
        // up to three blocks; an unescaped marker or quote now and then
        let len = (rng() % 120) as usize;
        let raw: String = (0..len)
            .map(|_| match rng() % 80 {
                0 => "*",
                1 => "\"",
                k => tokens[(k % tokens.len() as u64) as usize],
            })
            .collect();
        for sep in [',', ';', '\t', '·'] {
            // a marked element before this separator
            let raw = raw.replace('\0', &sep.to_string());
            let mut out = vec![];
            let split = split_list_unread(&raw, sep, &mut out);
            match count_plain_list(&raw, sep) {
                Some((n, marked)) => {
                    counted += 1;
                    long += usize::from(raw.len() > 64);
                    with_marks += usize::from(marked > 0);
                    assert!(split.is_ok(), "{raw:?} {sep:?}");
                    assert_eq!(n, out.len(), "{raw:?} {sep:?}");
                    let want = out.iter().filter(|e| e.marked).count();
                    assert_eq!(marked, want, "{raw:?} {sep:?}");
                    assert!(out.iter().all(|e| !e.quoted), "{raw:?}");
                }
                None => declined += 1,
            }
        }
    }
    assert!(
        counted > 5_000 && declined > 5_000 && long > 1_000 && with_marks > 1_000,
        "{counted} {declined} {long} {with_marks}"
    );
}

/// Quoted elements found on the block masks (`find_close`) read as the
/// grammar reads them: texts, markers, errors; and the unread split
/// (validation) has the grammar's count, markers and errors.
#[test]
fn quoted_lists_on_the_masks_read_as_the_grammar() {
    // inside quotes: doubled quotes, escapes (an invalid one rarely),
    // markers, long runs that carry the close into a later block
    let inside = [
        "\"\"",
        r#"\""#,
        "*",
        ",",
        ";",
        r"\\",
        r"\,",
        r"\*",
        r"\n",
        " ",
        "a",
        "é",
        "·",
        "xyz",
        "wwwwwwwwwwwwwwwwwwwwwwww",
    ];
    let outside = ["a", " ", "*", r"\,", "é", "\""];
    let mut rng = crate::test_rng(0x0b10_c0de_0000_0001);
    let mut quoted = 0;
    for _ in 0..30_000 {
        let mut raw = String::new();
        for e in 0..(rng() % 4) {
            if e > 0 {
                raw.push(if rng() % 8 == 0 { ';' } else { ',' });
            }
            if rng() % 3 == 0 {
                for _ in 0..(rng() % 4) {
                    raw.push_str(outside[(rng() % outside.len() as u64) as usize]);
                }
                continue;
            }
            raw.push_str(if rng() % 4 == 0 { " \"" } else { "\"" });
            for _ in 0..(rng() % 12) {
                raw.push_str(inside[(rng() % inside.len() as u64) as usize]);
            }
            match rng() % 40 {
                0 => raw.push_str(r"\q"),
                1 => raw.push('\\'),
                _ => {}
            }
            if rng() % 20 != 0 {
                raw.push('"');
            }
            raw.push_str(["", "*", " *", " ", "x"][(rng() % 5) as usize]);
        }
        for sep in [',', ';', '·'] {
            let (mut fast, mut nom, mut unread) = (vec![], vec![], vec![]);
            let got = split_list(&raw, sep, &mut fast);
            let want = split_list_nom(&raw, sep, &mut nom);
            assert_eq!(got, want, "{raw:?} {sep:?}");
            let un = split_list_unread(&raw, sep, &mut unread);
            assert_eq!(un, want, "unread {raw:?} {sep:?}");
            if want.is_ok() {
                assert_eq!(fast, nom, "{raw:?} {sep:?}");
                let shape =
                    |v: &[Element]| v.iter().map(|e| (e.marked, e.quoted)).collect::<Vec<_>>();
                assert_eq!(shape(&unread), shape(&nom), "unread {raw:?} {sep:?}");
                quoted += nom.iter().filter(|e| e.quoted).count();
            }
        }
    }
    assert!(quoted > 10_000, "{quoted} quoted elements read");
}

/// A quoted element decoded from the pieces its close-finding pass kept
/// (ADR 0050) reads as the grammar reads it at every length: pieces in
/// each of the blocks the masks hold, across a block's edge (a `""` or an
/// escape split at byte 63 or 64), and past the last block held (the
/// second decoding pass).
#[test]
fn quoted_pieces_decode_as_the_grammar_at_every_length() {
    let pieces = ["\"\"", r"\\", r"\n", r"\,", r"\*", r#"\""#, "é"];
    let mut rng = crate::test_rng(0x0b10_c0de_0000_0050);
    let mut past_the_masks = 0;
    for _ in 0..4_000 {
        let mut body = String::new();
        let len = (rng() % 700) as usize;
        while body.len() < len {
            if rng() % 6 == 0 {
                body.push_str(pieces[(rng() % pieces.len() as u64) as usize]);
            } else {
                body.push('a');
            }
        }
        let raw = format!("\"{body}\",x");
        let (mut fast, mut nom) = (vec![], vec![]);
        split_list(&raw, ',', &mut fast).unwrap();
        split_list_nom(&raw, ',', &mut nom).unwrap();
        assert_eq!(fast, nom, "{raw:?}");
        past_the_masks += usize::from(body.len() > 256);
    }
    assert!(past_the_masks > 1_000, "{past_the_masks}");
}

#[test]
fn fast_paths_agree_with_the_grammar() {
    let lines = [
        r#""a\nb","c""d"*,"e\*",x\,y*"#,
        r#""x\|y" , "*" ,"" ,"a*"*"#,
        r#""bad\q",b"#,
        r#""dangling\"#,
        r#""open,b"#,
        r"a\\|b\|c| d \\\	|",
        r"é\·x·\,",
    ];
    for line in lines {
        for sep in [',', ';', '\t', '·'] {
            let (mut a, mut b, mut ea, mut eb) = (vec![], vec![], vec![], vec![]);
            split_fields(line, sep, &mut a, &mut ea);
            split_fields_nom(line, sep, &mut b, &mut eb);
            assert_eq!((&a, &ea), (&b, &eb), "{line:?} {sep:?}");
            let (mut x, mut y) = (vec![], vec![]);
            let got = split_list(line, sep, &mut x);
            let want = split_list_nom(line, sep, &mut y);
            assert_eq!(got, want, "{line:?} {sep:?}");
            if want.is_ok() {
                assert_eq!(x, y, "{line:?} {sep:?}");
            }
        }
    }
    let mut out = vec![];
    split_list(r#""a\nb"x"#, ',', &mut out).unwrap_err();
    split_list(r#""a\nb""c"*"#, ',', &mut out).unwrap();
    assert_eq!(out[0].text, "a\nb\"c");
    assert!(out[0].marked);
}

#[test]
fn entries_split_at_first_unescaped_equals() {
    assert_eq!(split_entry(" k = a=b "), Some(("k", "a=b")));
    assert_eq!(split_entry("k\\=v"), None);
    assert_eq!(split_entry("noeq"), None);
}

/// `unescape_into` resolves the valid escapes (ASCII, `\n`, a non-ASCII
/// separator), keeps an invalid escape and a dangling backslash as written,
/// and appends to what the buffer held.
#[test]
fn unescaping_resolves_valid_escapes_and_keeps_the_rest() {
    let cases = [
        (r#"a\,b\|c\*d\"e\\f"#, ',', "a,b|c*d\"e\\f"),
        (r"line\nnext", ',', "line\nnext"),
        (r"a\;b\,c", ';', "a;b,c"),
        ("a\\·b", '·', "a·b"),
        ("a\\·b", ',', "a\\·b"),
        (r"a\xb\;", ',', r"a\xb\;"),
        (r"end\", ',', r"end\"),
        (r"\\\", ',', r"\\"),
        ("", ',', ""),
        (
            "no escapes at all, longer than sixteen bytes",
            ',',
            "no escapes at all, longer than sixteen bytes",
        ),
    ];
    for (raw, sep, want) in cases {
        let mut out = String::from("kept:");
        unescape_into(raw, sep, &mut out);
        assert_eq!(out, format!("kept:{want}"), "{raw:?} sep {sep:?}");
        assert_eq!(unescape(raw, sep), want, "{raw:?} sep {sep:?}");
    }
}

/// The escape rule walked a character at a time: the reference for
/// `unescape`.
fn unescaped_by_chars(raw: &str, sep: char) -> String {
    let mut out = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut ahead = chars.clone();
        match ahead.next() {
            Some('n') => out.push('\n'),
            Some(e) if is_escapable(e, sep) => out.push(e),
            // not an escape: the backslash stays, what follows is read
            // as text
            _ => {
                out.push('\\');
                continue;
            }
        }
        chars = ahead;
    }
    out
}

/// `unescape` is the escape rule walked a character at a time, on random
/// texts of escapes, backslashes, separators (ASCII or not) and
/// multi-byte characters, around the sixteen-byte search steps.
#[test]
fn unescaping_is_the_rule_walked_a_character_at_a_time() {
    let alphabet = [
        'a', '\\', '\\', ',', ';', '·', 'é', 'n', '*', '"', '|', 'x', ' ',
    ];
    let mut rng = crate::test_rng(0x5e5c_a9e5_0000_0001);
    for _ in 0..20_000 {
        let raw = random_text(&mut rng, &alphabet, 48);
        for sep in [',', ';', '·'] {
            assert_eq!(
                unescape(&raw, sep),
                unescaped_by_chars(&raw, sep),
                "{raw:?} sep {sep:?}"
            );
        }
    }
}

/// A text of `LONG_TEXT` (96) bytes or more is unescaped on the block
/// masks (`unescape_long`, ADR 0051, 0065), a shorter one by the search:
/// either way the same text as the rule walked a
/// character at a time, with escapes, runs of backslashes and multi-byte
/// characters anywhere (across the 64-byte blocks, in the last block that
/// overlaps the one before, a backslash dangling at the end), and appended
/// to what the buffer already holds.
#[test]
fn a_long_text_is_unescaped_on_the_block_masks_as_the_rule_says() {
    let pieces = [
        "a", "\\", "\\", "\\\\", "\\n", "\\,", "\\|", "\\·", "\\é", "\\x", ",", ";", "·", "é",
        "word ", "*", "\"", "|", " ",
    ];
    let mut rng = crate::test_rng(0x5e5c_a9e5_0000_0002);
    let (mut long, mut searched) = (0, 0);
    for _ in 0..6_000 {
        let raw = random_text(&mut rng, &pieces, 160);
        long += usize::from(raw.len() >= unescape::LONG_TEXT);
        // 64 bytes and more, but searched
        searched += usize::from((64..unescape::LONG_TEXT).contains(&raw.len()));
        for sep in [',', ';', '·'] {
            let mut out = String::from("kept:");
            unescape_into(&raw, sep, &mut out);
            let want = unescaped_by_chars(&raw, sep);
            assert_eq!(out, format!("kept:{want}"), "{raw:?} sep {sep:?}");
        }
    }
    assert!(long > 3_000, "only {long} texts reached the block path");
    assert!(searched > 300, "only {searched} texts of 64-95 bytes");
}

/// Unquoted elements split on the block masks read as the grammar reads
/// them: valid escapes (`\n` too) across 64-byte blocks, many in one
/// element, invalid and dangling ones kept as written, escaped and
/// unescaped markers, trimmed spaces, an escaped separator, escaped
/// whitespace at an element's end (ASCII or not: trimming keeps it).
#[test]
fn plain_elements_decoded_on_the_masks_read_as_the_grammar() {
    let tokens = [
        "a",
        "xyz",
        "wwwwwwwwwwwwwwwwwwww",
        " ",
        "é",
        "·",
        r"\,",
        r"\;",
        r"\\",
        r"\n",
        r"\*",
        r"\|",
        r#"\""#,
        r"\·",
        "\\ ",
        "\\\t",
        "\\\u{3000}",
        ",",
        ";",
        "*",
        " *",
    ];
    let mut rng = crate::test_rng(0x9a1e_e5c4_0000_0001);
    let (mut decoded, mut long) = (0, 0);
    for round in 0..30_000 {
        let mut raw = random_text(&mut rng, &tokens, 40);
        match round % 13 {
            0 => raw.push('\\'),
            1 => {
                let at = (raw.len() / 2..=raw.len())
                    .find(|&i| raw.is_char_boundary(i))
                    .unwrap_or(raw.len());
                raw.insert_str(at, r"\q");
            }
            _ => {}
        }
        long += usize::from(raw.len() > 64);
        for sep in [',', ';', '·'] {
            let (mut fast, mut nom) = (vec![], vec![]);
            let got = split_list(&raw, sep, &mut fast);
            let want = split_list_nom(&raw, sep, &mut nom);
            assert_eq!(got, want, "{raw:?} {sep:?}");
            assert_eq!(fast, nom, "{raw:?} {sep:?}");
            decoded += fast
                .iter()
                .filter(|e| matches!(e.text, Cow::Owned(_)))
                .count();
        }
    }
    assert!(
        decoded > 20_000 && long > 5_000,
        "{decoded} decoded, {long} long"
    );
}

/// A list text with no quote, marker or escape has the elements
/// `split_list` reads (trimmed, none marked, borrowed) and their count;
/// any other text is left to the element path.
#[test]
fn plain_elements_are_the_split_lists() {
    let tokens = [
        "1", "-2.5", "x", " ", "\t", ",", ";", "é", "·", "\"", "*", r"\,",
    ];
    let mut rng = crate::test_rng(0x91a1_e1e3_0000_0001);
    let (mut plain, mut left) = (0, 0);
    for _ in 0..20_000 {
        let raw = random_text(&mut rng, &tokens, 12);
        let raw = trim_raw(&raw);
        for sep in [',', ';', '·'] {
            let mut out = vec![];
            let split = split_list(raw, sep, &mut out);
            match plain_elements(raw, sep) {
                Some((n, pieces)) => {
                    plain += 1;
                    assert!(split.is_ok(), "{raw:?} {sep:?}");
                    let pieces: Vec<&str> = pieces.collect();
                    assert_eq!(n, pieces.len(), "{raw:?} {sep:?}");
                    let want: Vec<&str> = out.iter().map(|e| e.text.as_ref()).collect();
                    assert_eq!(pieces, want, "{raw:?} {sep:?}");
                    assert!(out.iter().all(|e| !e.marked), "{raw:?}");
                }
                None => {
                    left += 1;
                    let needs = raw.contains(['"', '*', '\\']) || !sep.is_ascii();
                    assert!(needs, "{raw:?} {sep:?} left to the element path");
                }
            }
        }
    }
    assert!(plain > 10_000 && left > 10_000, "{plain} {left}");
}

/// A list of text read in one walk (ADR 0046) hands the elements
/// `split_list` reads, once unescaped, their markers and their count; a
/// text it leaves to the element path has a `"` (or a non-ASCII
/// separator), and one its caller refuses is left too.
#[test]
fn plain_text_lists_are_the_split_lists() {
    let tokens = [
        "ab", "1", " ", "\t", ",", ";", "é", "·", "\"", "*", r"\,", r"\\", r"\*", r"\n", r"\|",
        r"\;", "\\\"", r"\ ",
    ];
    let mut rng = crate::test_rng(0x91a1_e1e3_0000_0046);
    let (mut plain, mut left, mut escaped_seen, mut marked_seen) = (0, 0, 0, 0);
    for _ in 0..40_000 {
        let raw = random_text(&mut rng, &tokens, 14);
        for sep in [',', ';', '·'] {
            let mut out = vec![];
            let split = split_list(&raw, sep, &mut out);
            let mut got: Vec<(String, bool)> = vec![];
            match plain_text_list(&raw, sep, |text, escapes, marked| {
                escaped_seen += usize::from(escapes != Escapes::NONE);
                // a text with no backslash is `NONE`; one with an escape
                // never is (a dangling backslash alone may be)
                if !text.contains('\\') {
                    assert_eq!(escapes, Escapes::NONE, "{raw:?} {text:?}");
                } else if escaped_bytes_of(text.as_bytes()) != 0 {
                    assert_ne!(escapes, Escapes::NONE, "{raw:?} {text:?}");
                }
                got.push((unescape(text, sep), marked));
                true
            }) {
                Some(n) => {
                    plain += 1;
                    marked_seen += usize::from(got.iter().any(|(_, m)| *m));
                    assert!(split.is_ok(), "{raw:?} {sep:?}");
                    assert_eq!(n, got.len(), "{raw:?} {sep:?}");
                    let want: Vec<(String, bool)> =
                        out.iter().map(|e| (e.text.to_string(), e.marked)).collect();
                    assert_eq!(got, want, "{raw:?} {sep:?}");
                    assert!(out.iter().all(|e| !e.quoted), "{raw:?}");
                }
                None => {
                    left += 1;
                    // a `"` anywhere sends the text to the grammar (which
                    // may read it as part of an unquoted element)
                    let needs = !sep.is_ascii() || raw.contains('"');
                    assert!(needs, "{raw:?} {sep:?} left to the element path");
                }
            }
        }
        // a caller that refuses the second element stops the walk there
        let mut taken = 0;
        let read = plain_text_list(&raw, ',', |_, _, _| {
            taken += 1;
            taken < 2
        });
        if taken >= 2 {
            assert_eq!(read, None, "{raw:?}");
            assert_eq!(taken, 2, "{raw:?}");
        }
    }
    assert!(plain > 20_000 && left > 20_000, "{plain} {left}");
    assert!(escaped_seen > 10_000, "{escaped_seen}");
    assert!(marked_seen > 3_000, "{marked_seen}");
}

/// The escaped bytes of a text by the odd-run rule, read a byte at a
/// time: the reference for the bits the list walk maps.
fn escaped_bytes_of(text: &[u8]) -> u128 {
    let (mut bits, mut after_escape) = (0u128, false);
    for (i, &b) in text.iter().enumerate() {
        if after_escape {
            bits |= 1u128.checked_shl(i as u32).unwrap_or(0);
            after_escape = false;
        } else {
            after_escape = b == b'\\';
        }
    }
    bits
}

/// The list walk maps each element's escaped bytes from its own masks
/// (`Escapes::mapped`, ADR 0071) for every element that lies with its
/// separator in two 64-byte blocks (every raw element of up to 64
/// bytes), its edges trimmed and its marker taken off: the bits are the
/// odd-run rule's, and `unescape_mapped` gives the text `unescape`
/// gives. An escaped element that reaches a third block is not mapped
/// (`None`); one with no backslash maps to no bit.
#[test]
fn the_list_walk_maps_each_elements_escapes() {
    let pieces = [
        "word ",
        "a",
        "\\",
        "\\\\",
        "\\n",
        "\\,",
        "\\|",
        "\\·",
        "\\é",
        "\\x",
        "\\ ",
        "\\*",
        ",",
        ", ",
        ",",
        "é",
        "·",
        " ",
        "*",
        "*,",
        "some longer words ",
    ];
    let mut rng = crate::test_rng(0x5e5c_a9e5_0000_0071);
    let (mut mapped, mut unmapped, mut plain, mut past_a_block) = (0, 0, 0, 0);
    for _ in 0..8_000 {
        let raw = random_text(&mut rng, &pieces, 60);
        for sep in [',', ';'] {
            let mut start = 0usize;
            let walked = plain_text_list(&raw, sep, |text, escapes, marked| {
                let at = text.as_ptr() as usize - raw.as_ptr() as usize;
                past_a_block += usize::from(at / 64 != (at + text.len()) / 64);
                assert!(at >= start, "{raw:?}");
                start = at + text.len();
                match escapes.mapped() {
                    Some(bits) => {
                        if text.contains('\\') {
                            mapped += 1;
                        } else {
                            plain += 1;
                        }
                        assert!(text.len() <= 128 || bits == 0, "{raw:?} {text:?}");
                        // the text's own bits, and past it only escaped
                        // bytes after it (those the walk has read; past
                        // the list, a dangling backslash's)
                        let mask =
                            |len: usize| u128::MAX.checked_shr(128 - len as u32).unwrap_or(0);
                        let own = mask(text.len());
                        assert_eq!(
                            bits & own,
                            escaped_bytes_of(text.as_bytes()),
                            "{raw:?} {text:?} {marked}"
                        );
                        let after = &raw.as_bytes()[at..(at + 128).min(raw.len())];
                        let stray = bits & !own & !escaped_bytes_of(after) & mask(after.len());
                        assert_eq!(stray, 0, "{raw:?} {text:?}");
                        let mut out = String::from("kept:");
                        unescape_mapped(text, sep, bits, &mut out);
                        assert_eq!(out, format!("kept:{}", unescape(text, sep)), "{raw:?}");
                    }
                    None => {
                        unmapped += 1;
                        assert!(text.contains('\\'), "{raw:?} {text:?}");
                        // only an element whose raw text (its edges'
                        // whitespace and marker with it) and separator
                        // reach a third block is unmapped
                        let first = raw[..at].rfind(sep).map_or(0, |s| s + 1) / 64;
                        let tail = &raw[at + text.len()..];
                        let last = (at + text.len() + tail.find(sep).unwrap_or(tail.len())) / 64;
                        assert!(last >= first + 2, "{raw:?} {text:?}");
                    }
                }
                true
            });
            assert!(walked.is_some(), "{raw:?} {sep:?}");
        }
    }
    assert!(mapped > 20_000, "only {mapped} mapped elements");
    assert!(unmapped > 300, "only {unmapped} unmapped elements");
    assert!(plain > 5_000, "only {plain} elements with no escape");
    assert!(
        past_a_block > 5_000,
        "only {past_a_block} elements across blocks"
    );
}

/// `unescape_mapped` trusts no bit: one past the text, one not after a
/// backslash, or every bit set, gives no panic, and the odd-run bits give
/// what `unescape_into` gives.
#[test]
fn unescape_mapped_ignores_bits_that_are_not_escapes() {
    for (raw, sep) in [
        (r"a\,b\\c\n", ','),
        ("é\\·x", '·'),
        (r"end\", ','),
        ("", ','),
    ] {
        let mut want = String::new();
        unescape_into(raw, sep, &mut want);
        let mut got = String::new();
        unescape_mapped(raw, sep, escaped_bytes_of(raw.as_bytes()), &mut got);
        assert_eq!(got, want, "{raw:?}");
        for bits in [u128::MAX, 1, 1 << 127, 0b10] {
            let mut out = String::new();
            unescape_mapped(raw, sep, bits, &mut out);
            assert!(out.len() <= raw.len(), "{raw:?} {bits:b}");
        }
        let mut out = String::new();
        unescape_mapped(raw, sep, 0, &mut out);
        assert_eq!(out, raw, "no bit: the text as written");
    }
}

/// The block walks' tests again with every walk in narrower lanes:
/// 32-byte ones (`scan::Wide256`, where the machine has AVX2), then
/// 16-byte ones (`scan::Narrow`). The tests above run the widest lanes
/// the machine has (`scan::widest`); the walks are one generic code, and
/// each lane set's masks are tested in `scan`.
#[test]
fn the_block_walks_agree_in_narrower_lanes_too() {
    for bits in [256, 128] {
        crate::syntax::scan::tests::in_lanes_up_to(bits, || {
            the_block_splitter_agrees_with_the_grammar();
            the_counted_list_is_the_split_list();
            quoted_lists_on_the_masks_read_as_the_grammar();
            quoted_pieces_decode_as_the_grammar_at_every_length();
            fast_paths_agree_with_the_grammar();
            a_long_text_is_unescaped_on_the_block_masks_as_the_rule_says();
            plain_elements_decoded_on_the_masks_read_as_the_grammar();
            plain_elements_are_the_split_lists();
            plain_text_lists_are_the_split_lists();
            the_list_walk_maps_each_elements_escapes();
        });
    }
}
