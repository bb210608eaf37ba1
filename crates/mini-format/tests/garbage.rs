//! Robustness: garbage, binary, random bytes, very long lines, storms of
//! structural characters and lone CRs, under contracts with the separators
//! `,` `;` tab and a non-ASCII one. Never a panic; strict accepts exactly
//! when lenient reports no error (with the same errors otherwise); every
//! record lenient keeps is one strict would accept on its own line; and
//! what lenient keeps can be written back by `dumps` (SPEC 1.1 §9).
//!
//! Randomness is a fixed-seed xorshift: every run tests the same inputs.

use std::panic::{catch_unwind, AssertUnwindSafe};

use mini::value::equivalent;
use mini::{Contract, Document};
use serde_json::Value;

// ---------------------------------------------------------------------------
// a tiny deterministic PRNG
// ---------------------------------------------------------------------------

struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> Self {
        XorShift(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform-ish in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

// ---------------------------------------------------------------------------
// contracts
// ---------------------------------------------------------------------------

/// A contract with one field of every shape, under list separator `sep`
/// (given as JSON string content).
fn rich(sep_json: &str) -> Contract {
    let json = format!(
        r#"{{
        "prefix": "g", "records_key": "rows", "list_separator": "{sep_json}",
        "header": {{"keys": {{
            "k": {{"type": "int", "min": 1, "max": 4}},
            "tag": {{"type": "str"}}
        }}}},
        "core": [
            {{"name": "id", "type": "str", "unique": true}},
            {{"name": "num", "type": "int", "min": -50, "max": 50}},
            {{"name": "f", "type": "float"}},
            {{"name": "b", "type": "bool"}},
            {{"name": "e", "type": "enum", "values": ["x", "y", "z z"]}},
            {{"name": "opts", "type": "mlist", "count_key": "k",
              "json": {{"items": "opts", "selected": "pick"}}}},
            {{"name": "tags", "type": "list", "item": "int", "max": 4}},
            {{"name": "pt", "type": "tuple", "items": [
                {{"name": "a", "type": "int"}},
                {{"name": "b", "type": "str", "optional": true}}
            ]}}
        ],
        "extensions": [
            {{"name": "d", "type": "date"}},
            {{"name": "m", "type": "decimal", "min": "-1000", "max": "1000"}},
            {{"name": "sel", "type": "mlist", "marker": "any",
              "json": {{"items": "sel", "selected": "sel_idx"}}}},
            {{"name": "memo", "type": "str"}}
        ]
    }}"#
    );
    Contract::from_json(&json)
        .unwrap_or_else(|e| panic!("contract with separator {sep_json:?}: {e}"))
}

/// A contract whose records are almost always valid: one str field.
fn plain() -> Contract {
    Contract::from_json(
        r#"{"prefix": "p", "core": [{"name": "s", "type": "str"}],
            "extensions": [{"name": "t", "type": "str"}]}"#,
    )
    .unwrap()
}

/// `(name, separator char, contract)` for every separator under test.
fn contracts() -> Vec<(&'static str, char, Contract)> {
    vec![
        ("comma", ',', rich(",")),
        ("semicolon", ';', rich(";")),
        ("tab", '\t', rich("\\t")),
        ("euro", '€', rich("€")),
    ]
}

// ---------------------------------------------------------------------------
// the properties every input must satisfy
// ---------------------------------------------------------------------------

fn show(text: &str) -> String {
    let s: String = text.chars().take(300).collect();
    if s.len() < text.len() {
        format!("{s:?}… ({} bytes)", text.len())
    } else {
        format!("{s:?}")
    }
}

/// Parses `text` both ways without panicking and checks that they agree and
/// that the lenient account is coherent. Returns the lenient document.
#[track_caller]
fn check(text: &str, c: &Contract) -> Document {
    let run = catch_unwind(AssertUnwindSafe(|| {
        // no limit: the inputs here include lines past the default 1 MiB,
        // and what is checked is strict against lenient
        let strict = mini::parse_with_limits(text, c, &mini::Limits::UNLIMITED);
        let lenient = mini::parse_lenient(text, c);
        let _ = mini::detect_prefix(text);
        (strict, lenient)
    }));
    let (strict, lenient) = match run {
        Ok(r) => r,
        Err(_) => panic!("panic on input {} (contract {})", show(text), c.prefix()),
    };
    match &strict {
        Ok(doc) => {
            assert!(
                lenient.is_valid(),
                "strict accepted, lenient reported errors: {}",
                show(text)
            );
            assert_eq!(doc.to_canonical(), lenient.to_canonical(), "{}", show(text));
        }
        Err(e) => {
            assert!(
                !e.diagnostics().is_empty(),
                "strict error without diagnostics: {e}"
            );
            assert_eq!(e.diagnostics(), lenient.errors(), "{}", show(text));
        }
    }
    let d = lenient.diagnostics();
    assert_eq!(d.ok, strict.is_ok());
    assert_eq!(d.valid_records, lenient.records().len());
    assert_eq!(d.valid_lines.len(), d.valid_records);
    assert!(
        d.valid_lines.windows(2).all(|w| w[0] < w[1]),
        "{:?}",
        d.valid_lines
    );
    assert!(
        d.invalid_lines.windows(2).all(|w| w[0] < w[1]),
        "{:?}",
        d.invalid_lines
    );
    assert!(
        d.valid_lines.iter().all(|l| !d.invalid_lines.contains(l)),
        "a line is both valid and invalid: {}",
        show(text)
    );
    assert!(
        d.valid_records + d.invalid_lines.len() <= d.record_lines,
        "{}",
        show(text)
    );
    let physical = text.split('\n').count();
    for e in &d.errors {
        assert!(
            e.line() <= physical,
            "{e} beyond the last line ({physical}): {}",
            show(text)
        );
        // rendering never panics and has the documented shape
        // (a line-0 diagnostic reads "E04 document: …", ADR 0021)
        let s = e.to_string();
        let place = match e.line() {
            0 => "document".to_string(),
            n => format!("line {n}"),
        };
        assert!(s.starts_with(&format!("{} {place}", e.code())), "{s}");
    }
    match d.declared_n {
        Some(n) => {
            let lines = d.record_lines as u64;
            assert_eq!(d.missing_records, Some(n.saturating_sub(lines)));
            assert_eq!(d.excess_records, Some(lines.saturating_sub(n)));
            assert!(d.truncated.is_some());
        }
        None => {
            assert_eq!(
                d.missing_records,
                None,
                "unknown n is not 0: {}",
                show(text)
            );
            assert_eq!(d.excess_records, None);
        }
    }
    if !lenient.has_header() {
        assert_eq!(lenient.errors().len(), 1);
        assert_eq!(lenient.errors()[0].code(), mini::Code::E01);
    }
    lenient
}

/// The physical line `number` (1-based) of `text`, without a CR before LF.
fn physical_line(text: &str, number: usize) -> &str {
    let line = text
        .split('\n')
        .nth(number - 1)
        .expect("record line exists");
    line.strip_suffix('\r').unwrap_or(line)
}

/// Every record lenient keeps is accepted by strict on its own, under the
/// same header (`header_n1`: the document's header with n=1), with the same
/// canonical record.
#[track_caller]
fn check_records_alone(text: &str, doc: &Document, header_n1: &str, c: &Contract) {
    for r in doc.records() {
        let single = format!("{header_n1}\n{}", physical_line(text, r.line));
        match mini::parse(&single, c) {
            Ok(alone) => {
                assert_eq!(alone.records().len(), 1);
                assert_eq!(
                    alone.records()[0].value,
                    r.value,
                    "line {} decodes differently alone: {}",
                    r.line,
                    show(&single)
                );
            }
            Err(e) => panic!(
                "lenient kept line {} but strict rejects it alone: {e}\n{}",
                r.line,
                show(&single)
            ),
        }
    }
}

/// What lenient keeps from a document whose header is valid can be written
/// back, and the text reads back to the same records (SPEC 1.1 §9).
#[track_caller]
fn check_writes_back(text: &str, doc: &Document, c: &Contract) {
    let canonical = doc.to_canonical();
    let out = match mini::dumps(&canonical, c) {
        Ok(out) => out,
        Err(e) => panic!(
            "dumps refused what lenient accepted: {e}\ninput {}\ncanonical {}",
            show(text),
            canonical
        ),
    };
    let again = match mini::parse(&out, c) {
        Ok(d) => d.to_canonical(),
        Err(e) => panic!("dumps output does not parse: {e}\n{}", show(&out)),
    };
    let key = c.records_key();
    assert!(
        equivalent(&again[key], &canonical[key]),
        "records changed through dumps:\n{}\n{}\n{}",
        show(text),
        canonical[key],
        again[key]
    );
    let mut h1 = canonical["header"].clone();
    let mut h2 = again["header"].clone();
    h1.as_object_mut().unwrap().remove("n");
    h2.as_object_mut().unwrap().remove("n");
    assert!(
        equivalent(&h1, &h2),
        "header changed through dumps: {h1} vs {h2}"
    );
}

// ---------------------------------------------------------------------------
// hand-written garbage
// ---------------------------------------------------------------------------

fn fixed_garbage(sep: char) -> Vec<String> {
    let s = sep;
    let mut v: Vec<String> = [
        "",
        "\0",
        "\0\0|\0\n\0",
        "|",
        "||||||||",
        "\\",
        "\\\\\\",
        "\"",
        "\"\"\"\"\"",
        "*",
        "****",
        "=",
        "=\n=\n=",
        "\r",
        "\r\r\r",
        "\r\n\r\n",
        "\u{feff}",
        "\u{feff}\u{feff}g|n=0",
        "\u{7f}\u{1b}[31m\u{7}",
        "g",
        "g|",
        "g|n",
        "g|n=",
        "g|=",
        "g|=|=|=",
        "g|n==1",
        "g|n=1=",
        "g|n=\0",
        "g|n=99999999999999999999999999999999",
        "g|n=18446744073709551616",
        "g|n=18446744073709551615",
        "g|n=-0",
        "g|n=1|k=99999999999999999999999",
        "g|n=1|k=-99999999999999999999999",
        "g|n=1|v=99999999999999999999999",
        "g|n=1|v=0",
        "g|n=1|v=-1",
        "g|n=1\n|",
        "g|n=1\n\\",
        "g|n=1\n\"",
        "g|n=1\n*",
        "g|n=1\n\0|\0|\0|\0|\0|\0|\0|\0",
        "g|n=1|k=2\rr1|1|1|1|x|a*,b||1",
        "g|n=1|k=2\nr1\r|1\r|1|1|x|a*,b||1\r",
        "g|n=1|k=2\nr1|1|1|1|x|a*\rb||1",
        "g|n=1|k=1\nr1|1|1e999999999999999999999|1|x|a*||1",
        "g|n=1|k=1\nr1|1|1e-999999999999999999999|1|x|a*||1",
        "g|n=1|k=1\nr1|1|-0.0e-0|1|x|a*||1",
        "p|n=1\n\0",
        "p|n=2\n\u{85}x\u{85}\n\u{3000}\u{1f}y",
    ]
    .iter()
    .map(|x| x.to_string())
    .collect();
    v.extend([
        format!("g|n=1|k=2\nr1|1|1|1|x|\"a{s}b*|1{s}|1"),
        format!("g|n=1|k=2\nr1|1|1|1|x|\"\"\"*{s}\"\"|1{s}|1"),
        format!("g|n=1|k=2\nr1|1|1|1|x|a\\{s}*{s}b\\*|1{s}|1"),
        format!("g|n=1|k=2\nr1|1|1|1|x|*{s}*|1{s}|1"),
        format!("g|n=1|k=2\nr1|1|1|1|x|\\*{s}\\\"{s}\"\\\"\"*|{s}{s}{s}|1{s}{s}"),
        format!("g|n=1|k=2\nr1|1|1|1|x|{s}{s}{s}*{s}|{s}|{s}"),
        format!("g|n=1|k=2|tag=\"{s}\"\nr1|1|1|1|x|\" a \" * {s} b |  |  1 {s} q "),
        format!("g|n=1|k=2\nr1|1|1|1|x|a*{s}b||1{s}|2024-02-29|-0.00|\"a\"*{s}\"b\"*|m"),
        "g|n=1|k=1|v=2\nr1|1|1|1|x|a*||1|||||x|\\q".to_string(),
    ]);
    v
}

#[test]
fn fixed_garbage_never_panics() {
    for (_, sep, c) in contracts() {
        for text in fixed_garbage(sep) {
            check(&text, &c);
        }
    }
    for text in fixed_garbage(',') {
        check(&text, &plain());
    }
}

#[test]
fn nul_and_control_characters_are_content() {
    // NUL and C0 controls other than whitespace are ordinary characters
    let c = plain();
    let doc = check("p|n=1\na\0b\u{1}|\u{7}", &c);
    assert!(doc.is_valid(), "{:?}", doc.errors());
    assert_eq!(doc.records()[0].value["s"], "a\0b\u{1}");
    assert_eq!(doc.records()[0].value["t"], "\u{7}");
    // U+001C..U+001F and U+0085 are whitespace: trimmed at the edges
    let doc = check("p|n=1\n\u{1c}\u{85}x\u{1f}|\u{85}", &c);
    assert!(doc.is_valid(), "{:?}", doc.errors());
    assert_eq!(doc.records()[0].value["s"], "x");
    assert_eq!(doc.records()[0].value["t"], Value::Null);
}

#[test]
fn lone_cr_is_not_a_line_break() {
    let c = plain();
    // one line: the whole text is the header, and the header has no records
    let doc = check("p|n=1\rx", &c);
    assert_eq!(doc.record_lines(), 0);
    // a lone CR inside a record is content; before LF it is dropped
    let doc = check("p|n=2\r\na\rb\r\nc\r\r\n", &c);
    assert!(doc.is_valid(), "{:?}", doc.errors());
    assert_eq!(doc.records()[0].value["s"], "a\rb");
    assert_eq!(
        doc.records()[1].value["s"],
        "c",
        "a CR at the edge is trimmed whitespace"
    );
    // only CRs: no header
    let doc = check("\r\r\r", &c);
    assert!(!doc.has_header());
}

// ---------------------------------------------------------------------------
// invalid UTF-8
// ---------------------------------------------------------------------------

#[test]
fn invalid_utf8_reports_line_and_byte_offset() {
    // the offset is counted within the line it names (ADR 0019)
    let cases: [(&[u8], usize, usize); 5] = [
        (b"p|n=1\nr1|\xff", 2, 3),
        (b"\xfe", 1, 0),
        (b"p|n=1\xc3", 1, 5),
        (b"p|n=2\n\nok\n\xed\xa0\x80", 4, 0),
        (b"p|n=1\n\xe2\x82\xac|\xe2\x82", 2, 4),
    ];
    for (bytes, line, offset) in cases {
        let err = mini::from_utf8(bytes).unwrap_err();
        assert!(err.is_utf8(), "{err}");
        assert!(err.diagnostics().is_empty());
        let s = err.to_string();
        assert!(
            s.contains(&format!("line {line}")),
            "{s} (expected line {line})"
        );
        assert!(
            s.contains(&format!("byte offset {offset}")),
            "{s} (expected offset {offset})"
        );
    }
    assert_eq!(mini::from_utf8(b"p|n=0\n\xe2\x82\xac").unwrap(), "p|n=0\n€");
}

#[test]
fn random_bytes() {
    let mut rng = XorShift::new(0x5eed_0001);
    let cs = contracts();
    for round in 0..400 {
        let len = rng.below(200);
        let mut bytes = rng.bytes(len);
        if round % 2 == 0 {
            // give the parser a header to get past
            let mut with_header = b"g|n=2|k=2\n".to_vec();
            with_header.extend_from_slice(&bytes);
            bytes = with_header;
        }
        match std::str::from_utf8(&bytes) {
            Ok(s) => {
                assert_eq!(mini::from_utf8(&bytes).unwrap(), s);
            }
            Err(std_err) => {
                let at = std_err.valid_up_to();
                let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
                let start = bytes[..at]
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |p| p + 1);
                let at = at - start;
                let err = mini::from_utf8(&bytes).unwrap_err();
                assert!(err.is_utf8());
                let msg = err.to_string();
                assert!(
                    msg.contains(&format!("line {line},")),
                    "{msg} vs line {line}"
                );
                assert!(
                    msg.contains(&format!("byte offset {at}")),
                    "{msg} vs offset {at}"
                );
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let (_, _, c) = &cs[round % cs.len()];
        check(&text, c);
        check(&text, &plain());
    }
}

// ---------------------------------------------------------------------------
// very long lines and storms of structural characters
// ---------------------------------------------------------------------------

#[test]
fn very_long_lines() {
    // linear in the line length (SPEC 1.1 §4); kept moderate for debug builds
    const N: usize = 30_000;
    for (name, sep, c) in contracts() {
        let s = sep.to_string();
        let storms: Vec<String> = vec![
            "a".repeat(N * 3),
            "\\".repeat(N),
            "\\".repeat(N + 1),
            "\\|".repeat(N),
            "\\\\|".repeat(N),
            "\"".repeat(N),
            "\"\"".repeat(N),
            "*".repeat(N),
            "|".repeat(N),
            format!("{s}*").repeat(N),
            format!("\"a\"*{s}").repeat(N),
            format!("\"a{s}").repeat(N),
            format!("\\{s}").repeat(N),
            "=".repeat(N),
            " ".repeat(N),
            "\u{0}".repeat(N),
        ];
        for storm in &storms {
            // as a header, as a whole record, and inside the list fields
            check(storm, &c);
            check(&format!("g|n=1|k=2\n{storm}"), &c);
            check(
                &format!("g|n=1|k=2\nr1|1|1|1|x|{storm}|{storm}|{storm}|||{storm}|{storm}"),
                &c,
            );
            check(&format!("g|n=1|k=2|tag={storm}\nr1|1|1|1|x|a*{s}b||1"), &c);
        }
        // a huge but valid list, and a huge valid string
        let big = format!("a{s}").repeat(N) + "b*";
        let doc = check(&format!("g|n=1\nr1|1|1|1|x|{big}||1{s}q"), &c);
        assert!(doc.is_valid(), "{name}: {:?}", doc.errors().first());
        assert_eq!(
            doc.records()[0].value["opts"].as_array().unwrap().len(),
            N + 1
        );
        assert_eq!(doc.records()[0].value["pick"], N);
        let long = "x\\|".repeat(N);
        let doc = check(&format!("g|n=1|k=1\nr1|1|1|1|x|a*||1{s}q||||{long}"), &c);
        assert!(doc.is_valid(), "{name}: {:?}", doc.errors().first());
        assert_eq!(
            doc.records()[0].value["memo"].as_str().unwrap().len(),
            2 * N
        );
    }
}

#[test]
fn many_lines() {
    let c = plain();
    let mut text = String::from("p|n=20000");
    for i in 0..20_000 {
        text.push_str(&format!("\nline {i}"));
    }
    let doc = check(&text, &c);
    assert!(doc.is_valid());
    assert_eq!(doc.records().len(), 20_000);
    // every second line breaks uniqueness-free rules: an invalid escape
    let mut text = String::from("p|n=20000");
    for i in 0..20_000 {
        text.push_str(if i % 2 == 0 { "\nok" } else { "\nbad\\q" });
    }
    let d = check(&text, &c).diagnostics();
    assert_eq!(d.valid_records, 10_000);
    assert_eq!(d.invalid_lines.len(), 10_000);
    assert_eq!(d.invalid_lines[0], 3);
}

// ---------------------------------------------------------------------------
// random documents: structured enough to be often valid
// ---------------------------------------------------------------------------

const ALPHABET: &[char] = &[
    'a', 'b', 'z', '0', '1', '9', '-', '.', 'e', 'E', '+', 'n', ' ', ' ', '|', '|', '\\', '\\',
    '*', '"', '"', ',', ';', '\t', '=', '\0', '\u{7}', '\u{1b}', 'é', '€', '\u{85}', '\u{3000}',
    '\u{feff}', '\r',
];

fn garbage_piece(rng: &mut XorShift) -> String {
    let len = rng.below(10);
    (0..len).map(|_| *rng.pick(ALPHABET)).collect()
}

/// `(good, bad)` raw texts for one field of [`rich`]; `S` stands for the
/// list separator.
struct Pool {
    good: Vec<String>,
    bad: Vec<String>,
}

fn pool(sep: char, good: &[&str], bad: &[&str]) -> Pool {
    let l = |parts: &[&str]| -> Vec<String> {
        parts
            .iter()
            .map(|p| p.replace('S', &sep.to_string()))
            .collect()
    };
    Pool {
        good: l(good),
        bad: l(bad),
    }
}

/// Pools for the fields of [`rich`] except `opts` (index 5), which depends
/// on the header's `k` and is built by [`random_opts`].
fn pools(s: char) -> Vec<Pool> {
    vec![
        // id (unique str)
        pool(
            s,
            &[
                "r1", "r2", "r3", "r4", "a\\|b", "x y", "\"q\"", "é", "\\n", "*", " pad ",
            ],
            &[""],
        ),
        // num (int -50..50)
        pool(
            s,
            &["0", "-7", "50", "007", "-0", "-50"],
            &["51", "x", "", "1.5"],
        ),
        // f (float)
        pool(
            s,
            &["1e3", "-2.5E-2", "0.5", "3", "00.5", "-0", "1E+2"],
            &["1.", "NaN", "1e400", ""],
        ),
        // b (bool)
        pool(s, &["true", "false", "1", "0"], &["yes", ""]),
        // e (enum)
        pool(s, &["x", "y", " z z "], &["Z", ""]),
        // opts: see random_opts
        pool(s, &[], &[]),
        // tags (list<int>, max 4)
        pool(
            s,
            &["", "1S2", " 3 ", "-1S007", "1S2S3S4"],
            &["1Sx", "1*", "1S2S3S4S5", "1SS2"],
        ),
        // pt (tuple a:int, b:str optional)
        pool(
            s,
            &["1Sq", "7Sa\\Sb", " 2 S \"w\" ", "3S\"x*\""],
            &["1", "xSq", "1SqSr", "", "1*Sq"],
        ),
        // d (date)
        pool(
            s,
            &["2024-02-29", "9999-12-31", ""],
            &["2023-02-29", "2024-1-1"],
        ),
        // m (decimal -1000..1000)
        pool(
            s,
            &["007.50", "-0.00", "-1000", "12", ""],
            &["1e3", "1000.0001"],
        ),
        // sel (mlist any)
        pool(
            s,
            &["", "aSb", "a*Sb*", "\"x\"*", "\"\"*", "\"aSb*\"S\"\"\"\""],
            &["\"x", "\"a\"b"],
        ),
        // memo (str)
        pool(
            s,
            &[
                "hello",
                "a\\\\b",
                "\"",
                "*",
                "=",
                "\\nedge\\n",
                "a\\Sb",
                "x\0y",
            ],
            &["bad\\q", "trail\\"],
        ),
    ]
}

/// An `opts` value: usually `k` elements with exactly one marked.
fn random_opts(rng: &mut XorShift, sep: char, k: usize) -> String {
    const ELEMENTS: &[&str] = &[
        "a",
        "b c",
        "\"qSr\"",
        "d\\Se",
        "\"\"",
        "f\\*",
        " g ",
        "\"say \"\"hi\"\"\"",
    ];
    let count = if rng.chance(85) { k } else { rng.below(6) };
    let marked = rng.below(count.max(1));
    let extra_mark = rng.chance(5);
    let mut parts = Vec::with_capacity(count);
    for i in 0..count {
        let mut e = rng.pick(ELEMENTS).replace('S', &sep.to_string());
        if i == marked || (extra_mark && i + 1 == count) {
            if e.ends_with('"') && e.len() > 2 && rng.chance(50) {
                // marker just before the closing quote
                e.insert(e.len() - 1, '*');
            } else {
                e.push_str(if rng.chance(50) { "*" } else { " * " });
            }
        }
        parts.push(e);
    }
    parts.join(&sep.to_string())
}

fn random_record(rng: &mut XorShift, pools: &[Pool], sep: char, k: usize) -> String {
    let count = match rng.below(20) {
        0 => rng.below(8),                   // too few
        1 => pools.len() + 1 + rng.below(2), // too many
        _ => 8 + rng.below(pools.len() - 7), // core plus a prefix of the extensions
    };
    let mut fields = Vec::with_capacity(count);
    for i in 0..count {
        let roll = rng.below(100);
        let raw = if i >= pools.len() || roll < 3 {
            garbage_piece(rng)
        } else if i == 5 {
            random_opts(rng, sep, k)
        } else if roll < 10 {
            rng.pick(&pools[i].bad).clone()
        } else {
            rng.pick(&pools[i].good).clone()
        };
        fields.push(raw);
    }
    fields.join("|")
}

/// A header for [`rich`] with `n` records (placeholder `{n}`) and its `k`;
/// always valid apart from n itself.
fn random_header_template(rng: &mut XorShift) -> (String, usize) {
    let k = 1 + rng.below(4);
    let extra = *rng.pick(&[
        "",
        "|v=2",
        "|v=1",
        "|tag=x",
        "|model=m-1",
        "|tag=a\\|b|v=3",
        "| k2 = 7 ",
    ]);
    (format!("g|n={{n}}|k={k}{extra}"), k)
}

#[test]
fn random_documents() {
    let mut rng = XorShift::new(0xdead_beef_cafe);
    let mut valid_docs = 0;
    let mut kept_records = 0;
    for (name, sep, c) in contracts() {
        let pools = pools(sep);
        for _ in 0..1000 {
            let (template, k) = random_header_template(&mut rng);
            let lines = rng.below(8);
            let n = if rng.chance(80) { lines } else { rng.below(10) };
            let mut text = template.replace("{n}", &n.to_string());
            let crlf = rng.chance(20);
            for _ in 0..lines {
                if rng.chance(10) {
                    text.push_str(if crlf { "\r\n  " } else { "\n\t" });
                }
                text.push_str(if crlf { "\r\n" } else { "\n" });
                text.push_str(&random_record(&mut rng, &pools, sep, k));
            }
            let doc = check(&text, &c);
            if doc.is_valid() {
                valid_docs += 1;
            }
            kept_records += doc.records().len();
            let header_n1 = template.replace("{n}", "1");
            let header_ok = doc.errors().iter().all(|e| e.line() != 1);
            assert!(
                header_ok,
                "{name}: generated header rejected: {:?}",
                doc.errors()
            );
            check_records_alone(&text, &doc, &header_n1, &c);
            // a lone CR inside a value is written back as \n (deliberate
            // line-break normalisation): leave those out of the write-back check
            if !text.replace("\r\n", "\n").contains('\r') {
                check_writes_back(&text, &doc, &c);
            }
        }
    }
    eprintln!("random documents: {valid_docs} valid, {kept_records} records kept");
    // the generator is useful: it produces valid documents and valid records
    assert!(valid_docs > 300, "only {valid_docs} valid documents");
    assert!(kept_records > 2000, "only {kept_records} records kept");
}

#[test]
fn random_lines_plain_contract() {
    // a contract that accepts almost anything: garbage lines are mostly valid
    let c = plain();
    let mut rng = XorShift::new(42);
    for _ in 0..500 {
        let lines = rng.below(6);
        let mut text = format!("p|n={lines}");
        for _ in 0..lines {
            text.push('\n');
            text.push_str(&garbage_piece(&mut rng));
            text.push_str(&garbage_piece(&mut rng));
        }
        let doc = check(&text, &c);
        if doc.errors().iter().all(|e| e.line() != 1) {
            check_records_alone(&text, &doc, "p|n=1", &c);
        }
    }
}

// ---------------------------------------------------------------------------
// write-back (SPEC 1.1 §9) of what the parser accepts
// ---------------------------------------------------------------------------

#[track_caller]
fn accepted_and_written_back(text: &str, c: &Contract) {
    let doc = mini::parse(text, c).unwrap_or_else(|e| panic!("rejected {}: {e}", show(text)));
    check_writes_back(text, &doc, c);
}

#[test]
fn write_back_every_separator() {
    for (_, s, c) in contracts() {
        let text = format!(
            "g|n=2|k=2|tag=t|model=m\n\
             r1|007|1e3|1|x|\"a{s}b\"*{s}c\\*|1{s}2|3{s}x\\{s}y|2024-02-29|007.50|a*{s}b*|\\nm\\n\n\
             r2|-0|-2.5E-2|0| z z |\"\"{s}d *|| 4 {s} w |||\"\"*"
        );
        accepted_and_written_back(&text, &c);
    }
}

#[test]
fn write_back_tab_separator_null_last_tuple_component() {
    // {"a": 1, "b": null} is written `1<TAB>`, whose trailing tab is then
    // trimmed as whitespace: the text has one component (E07)
    let c = rich("\\t");
    accepted_and_written_back("g|n=1|k=1\nr1|1|1|1|x|a*||1\t\"\"", &c);
    let obj = serde_json::json!({
        "prefix": "g", "header": {"k": 1},
        "rows": [{"id": "r1", "num": 1, "f": 1, "b": true, "e": "x",
                  "opts": ["a"], "pick": 0, "tags": [], "pt": {"a": 1, "b": null}}]
    });
    let out = mini::dumps(&obj, &c).unwrap_or_else(|e| panic!("dumps refused a valid object: {e}"));
    let back = mini::parse(&out, &c).unwrap_or_else(|e| panic!("{out:?}: {e}"));
    assert!(equivalent(&back.to_canonical()["rows"], &obj["rows"]));
}

#[test]
fn tab_separator_escaped_tab_at_value_edge_is_kept_and_written_back() {
    // `\<TAB>` is a valid escape under separator tab and survives trimming
    // (ADR 0010), so a value may start or end with a tab; dumps writes it
    // back escaped (issue 14; before, it refused it as outer whitespace)
    let c = rich("\\t");
    for (text, check) in [
        ("g|n=1|k=1\nr1|1|1|1|x|a*||1\tq\\\t", ("pt", "q\t")),
        (
            "g|n=1|k=1\nr1|1|1|1|x|a*||1\tq||||\\\tmemo",
            ("memo", "\tmemo"),
        ),
    ] {
        let doc = mini::parse(text, &c).expect("accepted");
        let o = doc.to_canonical();
        let got = match check.0 {
            "pt" => &o["rows"][0]["pt"]["b"],
            f => &o["rows"][0][f],
        };
        assert_eq!(got, check.1);
        let back = mini::dumps(&o, &c).expect("written back");
        let again = mini::parse(&back, &c).expect("re-parsed");
        assert!(equivalent(&again.to_canonical(), &o), "{back}");
    }
}

#[test]
fn header_keys_outside_the_grammar_are_e12() {
    // SPEC 1.1 §4 `key ::= [A-Za-z_] [A-Za-z0-9_]*`: an entry whose key is
    // outside the grammar is a malformed header entry (E12, ADR 0007), so
    // every accepted document can be written back
    let c = plain();
    for (header, key) in [
        ("p|n=1|a b=1", "a b"),
        ("p|n=1|=x", ""),
        ("p|n=1|é=2", "é"),
        ("p|n=1|9x=3", "9x"),
        ("p|n=1|a-b=4", "a-b"),
    ] {
        let err = mini::parse(&format!("{header}\nrow"), &c).unwrap_err();
        let d = &err.diagnostics()[0];
        assert_eq!(
            (d.code(), d.line(), d.field()),
            (mini::Code::E12, 1, Some(key)),
            "{header}"
        );
        // lenient keeps the record
        let doc = mini::parse_lenient(&format!("{header}\nrow"), &c);
        assert_eq!(doc.records().len(), 1);
    }
    // near miss: a key in the grammar goes through
    accepted_and_written_back("p|n=1|_a9=1\nrow", &c);
}

#[test]
fn write_back_float_with_extreme_exponent() {
    // 1e-400 underflows a double but is kept exactly and written back; an
    // exponent beyond ±10000 is refused at parse time (ADR 0003)
    let c = Contract::from_json(r#"{"prefix": "x", "core": [{"name": "f", "type": "float"}]}"#)
        .unwrap();
    accepted_and_written_back("x|n=1\n1e-400", &c);
    let err = mini::parse("x|n=1\n1e-99999999999999999999", &c).unwrap_err();
    assert_eq!(err.code(), Some(mini::Code::E06));
}

#[test]
#[cfg(feature = "arbitrary_precision")]
fn write_back_int_with_many_digits_and_trailing_zeros() {
    // every digit is written, never an exponent (ADR 0003)
    let c =
        Contract::from_json(r#"{"prefix": "x", "core": [{"name": "i", "type": "int"}]}"#).unwrap();
    let text = format!(
        "x|n=3\n1{}\n-{}\n{}",
        "0".repeat(40),
        "9".repeat(60),
        "0".repeat(50)
    );
    accepted_and_written_back(&text, &c);
    let canonical = mini::parse(&text, &c).unwrap().to_canonical();
    let out = mini::dumps(&canonical, &c).unwrap();
    assert_eq!(
        out,
        format!("x|n=3\n1{}\n-{}\n0", "0".repeat(40), "9".repeat(60))
    );
}
