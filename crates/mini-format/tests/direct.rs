//! The derive's direct reader (ADR 0044) against serde's path: for a
//! derived document type, `mini::from_str` reads the records with the
//! reader `#[derive(Mini)]` wrote, and must give exactly what the same
//! read through the type's `Deserialize` gives (`from_str_through_serde`):
//! the same value for a valid document, the same errors for a broken one.
//! The documents are valid ones and every one-byte edit, cut and line edit
//! of them, on a record type with every field kind the direct reader takes
//! and some it hands back to serde.

#[path = "../benches/support/data.rs"]
mod data;
#[path = "support/derived_types.rs"]
mod derived_types;

use derived_types::{Color, KitHeader, PlainHeader, Renamed, Rng, COLORS};

use mini::__private::direct::{
    from_str_through_serde, Probe, ViaDirectDocument as _, ViaSerdeDocument as _,
};
use mini::Mini;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "kit", records = "rows")]
struct Kit {
    header: KitHeader,
    rows: Vec<Row>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct Row {
    #[mini(unique)]
    id: u16,
    name: String,
    small: i8,
    big: i64,
    #[mini(min = 0, max = 1)]
    ratio: f32,
    score: f64,
    flag: bool,
    #[mini(mlist = "exactly_one", selected = "pick", count_key = "k")]
    options: Vec<String>,
    pick: usize,
    #[mini(mlist = "at_most_one", selected = "maybe")]
    colors: Vec<Color>,
    maybe: Option<usize>,
    #[mini(mlist = "any", selected = "chosen")]
    levels: Vec<u8>,
    chosen: Vec<usize>,
    #[mini(max = 3)]
    tags: Vec<String>,
    counts: Vec<u32>,
    weights: Vec<f32>,
    checks: Vec<bool>,
    shades: Vec<Color>,
    shade: Color,
    pos: Point,
    opt_text: Option<String>,
    opt_num: Option<i32>,
    // no direct reader for a date: serde reads it
    when: mini::Date,
    #[mini(extension)]
    note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct Point {
    x: f64,
    y: i32,
    z: Option<u8>,
}

/// A document whose records serde reads because the record type says so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "opt", records = "rows")]
struct OptedOut {
    header: PlainHeader,
    rows: Vec<OptedOutRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(through_serde)]
struct OptedOutRow {
    name: String,
    age: u8,
}

/// A record with a hand-written `Deserialize` (it doubles `age`): only
/// `#[mini(through_serde)]` keeps it, since the direct reader does not
/// call it.
#[derive(Debug, Clone, PartialEq, Serialize, Mini)]
#[mini(through_serde)]
struct Doubled {
    name: String,
    age: u8,
}

impl<'de> Deserialize<'de> for Doubled {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            name: String,
            age: u8,
        }
        let raw = Raw::deserialize(d)?;
        Ok(Doubled {
            name: raw.name,
            age: raw.age.saturating_mul(2),
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "dbl", records = "rows")]
struct DoubledDoc {
    header: PlainHeader,
    rows: Vec<Doubled>,
}

const WORDS: [&str; 6] = ["alpha", "b, c", "pipe|d", "star*", "back\\slash", "x"];

fn row(rng: &mut Rng, i: usize) -> Row {
    let word = |rng: &mut Rng| WORDS[rng.below(WORDS.len() as u64) as usize].to_string();
    let color = |rng: &mut Rng| COLORS[rng.below(3) as usize];
    let n_colors = rng.below(3) as usize;
    let n_levels = 1 + rng.below(3) as usize;
    Row {
        id: i as u16 + 1,
        name: word(rng),
        small: rng.below(200) as i8,
        big: rng.next() as i64 >> 3,
        ratio: rng.below(5) as f32 / 4.0,
        score: rng.below(1000) as f64 / 8.0 - 40.0,
        flag: rng.below(2) == 0,
        options: (0..3).map(|_| word(rng)).collect(),
        pick: rng.below(3) as usize,
        colors: (0..n_colors).map(|_| color(rng)).collect(),
        maybe: (n_colors > 0 && rng.below(2) == 0).then(|| rng.below(n_colors as u64) as usize),
        levels: (0..n_levels).map(|_| rng.below(250) as u8).collect(),
        chosen: (0..n_levels).filter(|_| rng.below(2) == 0).collect(),
        tags: (0..rng.below(4)).map(|_| word(rng)).collect(),
        counts: (0..rng.below(3))
            .map(|_| rng.below(100_000) as u32)
            .collect(),
        weights: (0..rng.below(3))
            .map(|_| rng.below(64) as f32 / 8.0)
            .collect(),
        checks: (0..rng.below(3)).map(|_| rng.below(2) == 0).collect(),
        shades: (0..rng.below(3)).map(|_| color(rng)).collect(),
        shade: color(rng),
        pos: Point {
            x: rng.below(100) as f64 / 3.0,
            y: rng.below(100) as i32 - 50,
            z: (rng.below(2) == 0).then(|| rng.below(9) as u8),
        },
        opt_text: (rng.below(2) == 0).then(|| word(rng)),
        opt_num: (rng.below(2) == 0).then(|| rng.below(1000) as i32 - 500),
        when: "2026-12-04".parse().expect("a date"),
        note: (rng.below(3) == 0).then(|| word(rng)),
    }
}

fn kit(seed: u64, records: usize) -> Kit {
    let mut rng = Rng(seed);
    Kit {
        header: KitHeader {
            n: records as u64,
            k: 3,
            label: (seed % 2 == 0).then(|| "a label".to_string()),
        },
        rows: (0..records).map(|i| row(&mut rng, i)).collect(),
    }
}

/// The two readers agree on `text`: the same value, or the same error.
fn agree<T>(text: &str) -> bool
where
    T: for<'de> Deserialize<'de> + mini::MiniDocument + PartialEq + std::fmt::Debug,
{
    let direct = mini::from_str::<T>(text);
    let serde = from_str_through_serde::<T>(text);
    match (&direct, &serde) {
        (Ok(a), Ok(b)) => assert_eq!(a, b, "values differ on {text:?}"),
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string(), "errors differ on {text:?}");
            assert_eq!(
                a.diagnostics(),
                b.diagnostics(),
                "diagnostics differ on {text:?}"
            );
        }
        _ => panic!("one reader accepted {text:?}: direct {direct:?}, serde {serde:?}"),
    }
    direct.is_ok()
}

/// Every one-byte edit of `text` (each character deleted, or replaced by
/// one of `chars`), every cut, and each line dropped or repeated.
fn damaged(text: &str) -> Vec<String> {
    const CHARS: [char; 14] = [
        ',', '|', '*', '\\', '"', ' ', '0', '9', '-', 'x', '.', 'e', 'n', '=',
    ];
    let mut out = Vec::new();
    for (at, c) in text.char_indices() {
        let mut cut = text.to_string();
        cut.remove(at);
        out.push(cut);
        out.push(text[..at].to_string());
        for ch in CHARS {
            let mut edit = text.to_string();
            edit.replace_range(at..at + c.len_utf8(), ch.encode_utf8(&mut [0; 4]));
            out.push(edit);
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    for k in 0..lines.len() {
        let mut dropped = lines.clone();
        dropped.remove(k);
        out.push(dropped.join("\n"));
        let mut repeated = lines.clone();
        repeated.insert(k, lines[k]);
        out.push(repeated.join("\n"));
    }
    out
}

#[test]
fn the_derive_writes_a_direct_reader_only_where_serde_would_read_the_same() {
    // a macro: the probe picks by the concrete type (in a generic function
    // every type would look like one without a direct reader)
    macro_rules! has_direct {
        ($t:ty, $text:expr) => {{
            let contract = <$t as Mini>::contract();
            let mut de = mini::Deserializer::new($text, &contract);
            (&Probe::<$t>::new()).read_document(&mut de).is_some()
        }};
    }
    assert!(has_direct!(Kit, "kit|n=0|k=3"));
    assert!(has_direct!(data::Quiz, "quiz|n=0|k=4"));
    assert!(has_direct!(data::Rubric, "rubric|n=0|levels=4|course=x"));
    assert!(has_direct!(data::Notes, "notes|n=0"));
    assert!(!has_direct!(Renamed, "ren|n=0"));
    assert!(!has_direct!(OptedOut, "opt|n=0"));
    assert!(!has_direct!(DoubledDoc, "dbl|n=0"));
}

#[test]
fn a_hand_written_deserialize_is_kept_with_through_serde() {
    let doc: DoubledDoc = mini::from_str("dbl|n=1\nann|21").expect("valid");
    assert_eq!(doc.rows[0].age, 42);
    let doc: Renamed = mini::from_str("ren|n=1\nann|21").expect("valid");
    assert_eq!(doc.rows[0].first_name, "ann");
}

#[test]
fn the_direct_reader_reads_what_serde_reads_on_valid_documents() {
    for seed in 1..=40 {
        let doc = kit(seed * 7919, 1 + (seed as usize % 6));
        let text = mini::to_string(&doc).expect("generated documents are valid");
        assert!(agree::<Kit>(&text), "{text}");
        assert_eq!(mini::from_str::<Kit>(&text).expect("valid"), doc);
    }
    let quiz = mini::to_string(&data::quiz(300)).expect("valid");
    assert!(agree::<data::Quiz>(&quiz));
    let rubric = mini::to_string(&data::rubric(300)).expect("valid");
    assert!(agree::<data::Rubric>(&rubric));
    let notes = mini::to_string(&data::notes(300)).expect("valid");
    assert!(agree::<data::Notes>(&notes));
}

#[test]
fn the_direct_reader_fails_as_serde_fails_on_damaged_documents() {
    let mut compared = 0;
    let mut refused = 0;
    for seed in [3u64, 11, 29] {
        let text = mini::to_string(&kit(seed, 2)).expect("valid");
        for edit in damaged(&text) {
            compared += 1;
            refused += usize::from(!agree::<Kit>(&edit));
        }
    }
    for text in [
        mini::to_string(&data::quiz(2)).expect("valid"),
        mini::to_string(&data::rubric(2)).expect("valid"),
    ] {
        for edit in damaged(&text) {
            compared += 1;
            let ok = if text.starts_with("quiz") {
                agree::<data::Quiz>(&edit)
            } else {
                agree::<data::Rubric>(&edit)
            };
            refused += usize::from(!ok);
        }
    }
    // the edits exercise both outcomes, most of them refusals
    assert!(compared > 20_000, "{compared}");
    assert!(
        refused > compared / 2 && refused < compared,
        "{refused} of {compared}"
    );
}

/// `kit(seed, records)` with the text fields plain (no escape, no
/// optional text), so that a record line splits on `|` into its fields.
fn plain_kit(seed: u64, records: usize) -> Kit {
    let mut doc = kit(seed, records);
    for r in &mut doc.rows {
        r.name = "plain".to_string();
        r.options = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        r.tags.clear();
        r.opt_text = None;
        r.note = None;
    }
    doc
}

#[test]
fn values_the_rust_type_refuses_give_serde_errors_through_the_direct_reader() {
    // valid under the contract, refused by the Rust type: the direct
    // reader hands them to serde, which says why
    let base = mini::to_string(&plain_kit(5, 1)).expect("valid");
    let line = base.lines().nth(1).expect("a record").to_string();
    let fields: Vec<&str> = line.split('|').collect();
    for (at, value) in [
        (2, "300"),
        (2, "-129"),
        (0, "70000"),
        (3, "99999999999999999999"),
    ] {
        let mut f: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
        f[at] = value.to_string();
        let text = format!("{}\n{}", base.lines().next().expect("header"), f.join("|"));
        let err = mini::from_str::<Kit>(&text).expect_err("out of the Rust type's range");
        assert!(!agree::<Kit>(&text));
        assert!(!err.diagnostics().is_empty(), "{err}");
    }
}

/// Bools, floats and ints typed on the direct reader's plain path (round
/// 24 of issue 21: no text decoded, no typed value built) take and refuse
/// what serde's path takes and refuses, for every scalar field of a row
/// and texts around each rule: the bool spellings, bounds, signs, leading
/// zeros, exponents, escapes, blanks, a unique id's clash.
#[test]
fn plain_scalars_on_the_direct_path_agree_with_serde() {
    let base = mini::to_string(&plain_kit(5, 2)).expect("valid");
    let texts = [
        "true",
        "false",
        "1",
        "0",
        "2",
        "-1",
        "TRUE",
        "yes",
        " true",
        "tru\\e",
        "",
        "1.0",
        "0.25",
        "-0",
        "-0.0",
        "01",
        "1e0",
        "0.5e1",
        "1.",
        ".5",
        "+1",
        "0x1",
        "1_0",
        "127",
        "128",
        "-128",
        "-129",
        "65535",
        "65536",
        "1",
        "2",
        "\\1",
        "99999999999999999999",
        "1.25",
        "-40.5",
        "1e309",
        "NaN",
        "inf",
    ];
    // each text in each field `at` of the last record line of `base`
    // (a line with no escaped `|`), read both ways
    fn swapped<T>(base: &str, at: &[usize], texts: &[&str]) -> (usize, usize)
    where
        T: for<'de> Deserialize<'de> + mini::MiniDocument + PartialEq + std::fmt::Debug,
    {
        let (head, last) = base.trim_end().rsplit_once('\n').expect("two lines");
        assert!(!last.contains("\\|"), "{last}");
        let fields: Vec<&str> = last.split('|').collect();
        let (mut read, mut refused) = (0, 0);
        for &at in at {
            for text in texts {
                let mut f: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
                f[at] = text.to_string();
                if agree::<T>(&format!("{head}\n{}", f.join("|"))) {
                    read += 1;
                } else {
                    refused += 1;
                }
            }
        }
        (read, refused)
    }
    // id (unique, u16), small (i8), big (i64), ratio (f32 in 0..1),
    // score (f64), flag (bool)
    let (read, refused) = swapped::<Kit>(&base, &[0, 2, 3, 4, 5, 6], &texts);
    assert!(read > 30 && refused > 100, "{read} read, {refused} refused");
    // rubric: id (unique, u32), weight (f64 in 0..1), required (bool)
    let rubric = mini::to_string(&data::rubric(2)).expect("valid");
    let (read, refused) = swapped::<data::Rubric>(&rubric, &[0, 4, 5], &texts);
    assert!(read > 10 && refused > 60, "{read} read, {refused} refused");
    // quiz: level (u8 in 1..5)
    let mut quiz = data::quiz(1);
    quiz.items[0].stem = "a stem".to_string();
    quiz.items[0].note = None;
    let quiz = mini::to_string(&quiz).expect("valid");
    let (read, refused) = swapped::<data::Quiz>(&quiz, &[3], &texts);
    assert!(read >= 2 && refused > 20, "{read} read, {refused} refused");
}

/// A one-record document written out, its record line cut into fields,
/// for tests that put other text in one field or two.
struct OneRecord {
    header: String,
    fields: Vec<String>,
}

impl OneRecord {
    fn of(doc: &Kit) -> Self {
        let text = mini::to_string(doc).expect("valid");
        let (header, line) = text.split_once('\n').expect("a record");
        OneRecord {
            header: header.to_string(),
            fields: line.split('|').map(str::to_string).collect(),
        }
    }

    /// The index of the field written `text`.
    fn at(&self, text: &str) -> usize {
        self.fields
            .iter()
            .position(|f| f == text)
            .unwrap_or_else(|| panic!("no field {text:?} in {:?}", self.fields))
    }

    /// The document with each field `i` of `edits` written as its text.
    fn with(&self, edits: &[(usize, &str)]) -> String {
        let mut f: Vec<&str> = self.fields.iter().map(String::as_str).collect();
        for &(i, text) in edits {
            f[i] = text;
        }
        format!("{}\n{}", self.header, f.join("|"))
    }
}

/// A plain list read in one walk (ADR 0046): a `Vec<String>` or a list
/// of numbers or bools whose text is plain is read as it is cut, and any
/// other text (quotes, markers, a broken arity, an element the type or
/// the rules refuse) goes to the element path. Either way the values and
/// the errors are serde's path's.
#[test]
fn plain_lists_read_in_one_walk_agree_with_serde() {
    let mut doc = kit(17, 1);
    let r = &mut doc.rows[0];
    r.tags = vec!["t1".into(), "t2".into()];
    r.counts = vec![7, 8];
    r.weights = vec![0.5, 2.0];
    r.checks = vec![true, false];
    let one = OneRecord::of(&doc);
    let at = |text: &str| one.at(text);
    let (tags, counts, weights, checks) = (at("t1,t2"), at("7,8"), at("0.5,2"), at("true,false"));
    let with = |i: usize, value: &str| one.with(&[(i, value)]);
    let read = |text: &str| mini::from_str::<Kit>(text).map(|k| k.rows[0].clone());

    // texts of text lists, and the elements they hold (`None`: refused)
    let text_lists: [(&str, Option<&[&str]>); 16] = [
        ("", Some(&[])),
        ("a,b", Some(&["a", "b"])),
        (" a , b ", Some(&["a", "b"])),
        (r"a\,b,c", Some(&["a,b", "c"])),
        (r"a\ ,b", None),
        (r"x\n,\|,\\", Some(&["x\n", "|", "\\"])),
        (r"a\*", Some(&["a*"])),
        ("a,", Some(&["a", ""])),
        ("é,·", Some(&["é", "·"])),
        ("\"q, r\",s", Some(&["q, r", "s"])),
        ("a,\"q\"", Some(&["a", "q"])),
        ("a\"b", Some(&["a\"b"])),
        ("a*,b", None),
        (r"a\\*", None),
        ("a,b,c,d", None),
        ("\"a", None),
    ];
    // each text in field `i`: both readers agree, and a kept one holds
    // the elements `get` finds in the row
    fn check_list<T, W>(text: &str, doc: &str, want: Option<&W>, get: impl Fn(&Row) -> &T)
    where
        T: std::fmt::Debug + PartialEq<W> + ?Sized,
        W: std::fmt::Debug + ?Sized,
    {
        let ok = agree::<Kit>(doc);
        match want {
            Some(want) => {
                assert!(ok, "{text:?} refused");
                let kit = mini::from_str::<Kit>(doc).expect("valid");
                assert_eq!(get(&kit.rows[0]), want, "{text:?}");
            }
            None => assert!(!ok, "{text:?} accepted"),
        }
    }
    for (text, want) in text_lists {
        check_list(text, &with(tags, text), want, |r| &r.tags[..]);
    }

    // texts of number and bool lists
    let counts_texts: [(&str, Option<&[u32]>); 11] = [
        ("", Some(&[])),
        ("1,2,3", Some(&[1, 2, 3])),
        (" 1 , 2 ", Some(&[1, 2])),
        ("4294967295", Some(&[u32::MAX])),
        ("1,,2", None),
        ("1,", None),
        ("4294967296", None),
        ("-1", None),
        ("1*", None),
        (r"1\,2", None),
        ("x", None),
    ];
    for (text, want) in counts_texts {
        check_list(text, &with(counts, text), want, |r| &r.counts[..]);
    }
    for (text, ok) in [("0.25, 1e2", true), ("1.5,", false), ("nan", false)] {
        assert_eq!(agree::<Kit>(&with(weights, text)), ok, "{text:?}");
    }
    let doc = with(weights, "0.25, 1e2");
    assert_eq!(read(&doc).expect("valid").weights, [0.25, 100.0]);
    for (text, ok) in [("true,0,1", true), ("yes", false), ("true*", false)] {
        assert_eq!(agree::<Kit>(&with(checks, text)), ok, "{text:?}");
    }
    let doc = with(checks, "true,0,1");
    assert_eq!(read(&doc).expect("valid").checks, [true, false, true]);
}

/// A list of text whose first element is quoted (CSV style) is read by
/// the list grammar with each text taken as it is read (round 30 of issue
/// 21): doubled quotes, escapes, inner and outer markers, plain elements
/// after a quoted one, and every error the grammar, the arity, the count
/// key and the marker rules give, as serde's path reads them.
#[test]
fn quoted_text_lists_taken_as_read_agree_with_serde() {
    let mut doc = kit(23, 1);
    doc.rows[0].tags = vec!["t1".into(), "t2".into()];
    doc.rows[0].options = vec!["o1".into(), "o2".into(), "o3".into()];
    doc.rows[0].pick = 1;
    let one = OneRecord::of(&doc);
    let (tags, options, pick) = (one.at("t1,t2"), one.at("o1,o2*,o3"), one.at("1"));
    let row = |text: &str| mini::from_str::<Kit>(text).expect("valid").rows[0].clone();

    // `tags`: a plain list of at most 3 (`None`: refused)
    let plain: [(&str, Option<&[&str]>); 14] = [
        ("\"a\"", Some(&["a"])),
        ("\"a\",\"b\"", Some(&["a", "b"])),
        ("\"q, r\",s", Some(&["q, r", "s"])),
        ("\"say \"\"hi\"\"\", x ", Some(&["say \"hi\"", "x"])),
        (r#""a\|b\nc","d\\""#, Some(&["a|b\nc", "d\\"])),
        ("\"\",\"\"", Some(&["", ""])),
        ("\"a\" , \"b\" ", Some(&["a", "b"])),
        ("\"a\",", Some(&["a", ""])),
        ("\"a\"*", None),
        ("\"a*\"", None),
        ("\"a\",\"b\",\"c\",\"d\"", None),
        ("\"a\"b", None),
        ("\"a", None),
        ("\"a\",b*", None),
    ];
    for (text, want) in plain {
        let doc = one.with(&[(tags, text)]);
        assert_eq!(agree::<Kit>(&doc), want.is_some(), "{text:?}");
        if let Some(want) = want {
            assert_eq!(row(&doc).tags, want, "{text:?}");
        }
    }

    // `options`: exactly one marked of `k` = 3, its index in `pick`
    type Kept = Option<(&'static [&'static str], usize)>;
    let marked: [(&str, Kept); 7] = [
        ("\"a\"*,\"b\",\"c\"", Some((&["a", "b", "c"], 0))),
        ("\"a\",\"b*\",c", Some((&["a", "b", "c"], 1))),
        ("\"a\",\"b\",c*", Some((&["a", "b", "c"], 2))),
        ("\"a\",\"b\",\"c\\*\"", None),
        ("\"a\"*,\"b\"*,\"c\"", None),
        ("\"a\"*,\"b\"", None),
        ("\"a\"*,\"b\",\"c\",\"d\"", None),
    ];
    for (text, want) in marked {
        // the selection field holds the index the marker gives
        let k = want.map_or(1, |(_, k)| k).to_string();
        let doc = one.with(&[(options, text), (pick, &k)]);
        assert_eq!(agree::<Kit>(&doc), want.is_some(), "{text:?}");
        if let Some((want, k)) = want {
            let r = row(&doc);
            assert_eq!(r.options, want, "{text:?}");
            assert_eq!(r.pick, k, "{text:?}");
        }
    }
}

/// A document whose records hold a count-keyed list of `i64`: signed
/// ints read by the byte walk of ADR 0052.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "ints", records = "rows")]
struct Ints {
    header: KitHeader,
    rows: Vec<IntsRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct IntsRow {
    #[mini(count_key = "k")]
    values: Vec<i64>,
    tail: u8,
}

/// [`Ints`] under the list separator `-`, which is also an int's sign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "ints", records = "rows", separator = '-')]
struct DashInts {
    header: KitHeader,
    rows: Vec<IntsRow>,
}

/// A count-keyed plain list of ints is read by one byte walk (ADR 0052)
/// when every element is a canonical int of up to 18 digits the Rust type
/// holds; any other text (a space, a leading zero, `-0`, a sign, an
/// escape, a marker, an empty element, more digits, a value the type
/// refuses, the wrong count) falls to the walk that cuts the elements
/// first. Either way the values and the errors are serde's path's.
#[test]
fn count_keyed_int_lists_read_by_the_byte_walk_agree_with_serde() {
    // rubric's `points` (`Vec<u32>`, count key `levels` = 4)
    let mut doc = data::rubric(1);
    doc.criteria[0].points = vec![9, 7, 5, 3];
    let base = mini::to_string(&doc).expect("valid");
    assert!(base.contains("|9,7,5,3|"), "{base}");
    let points: [(&str, Option<[u32; 4]>); 18] = [
        ("9,7,5,3", Some([9, 7, 5, 3])),
        ("0,10,200,4294967295", Some([0, 10, 200, u32::MAX])),
        (" 9 , 7,5,3 ", Some([9, 7, 5, 3])),
        ("09,7,5,3", Some([9, 7, 5, 3])),
        ("9,7,5,3,", None),
        ("9,7,5", None),
        ("9,7,5,3,1", None),
        ("9,,5,3", None),
        ("9,7,5,4294967296", None),
        ("9,7,5,-3", None),
        ("9,7,5,-0", Some([9, 7, 5, 0])),
        ("+9,7,5,3", None),
        ("9,7,5,3*", None),
        (r"9\,7,5,3", None),
        ("9,7,5,1234567890123456789", None),
        ("9,7,5,123456789012345678901", None),
        ("9,7,5,3.0", None),
        ("9,7,5,x", None),
    ];
    for (text, want) in points {
        let edited = base.replace("|9,7,5,3|", &format!("|{text}|"));
        kept_as(&edited, want, |r: &data::Rubric| {
            r.criteria[0].points.clone()
        });
    }

    // signed ints, a count key of 3
    let head = "ints|n=1|k=3";
    let ints: [(&str, Option<[i64; 3]>); 9] = [
        ("-5,0,5", Some([-5, 0, 5])),
        (
            "-999999999999999999,1,2",
            Some([-999_999_999_999_999_999, 1, 2]),
        ),
        ("9223372036854775807,1,2", Some([i64::MAX, 1, 2])),
        ("-9223372036854775808,1,2", Some([i64::MIN, 1, 2])),
        ("-0,1,2", Some([0, 1, 2])),
        ("--1,1,2", None),
        ("-,1,2", None),
        ("9223372036854775808,1,2", None),
        ("1,2", None),
    ];
    for (text, want) in ints {
        kept_as(&format!("{head}\n{text}|7"), want, |d: &Ints| {
            d.rows[0].values.clone()
        });
    }

    // under the separator `-` a `-` cuts the list: never a sign
    let dash: [(&str, Option<[i64; 3]>); 4] = [
        ("1-2-3", Some([1, 2, 3])),
        ("-1-2", None),
        ("1--2-3", None),
        ("0-10-2", Some([0, 10, 2])),
    ];
    for (text, want) in dash {
        kept_as(&format!("{head}\n{text}|7"), want, |d: &DashInts| {
            d.rows[0].values.clone()
        });
    }
}

/// A document whose records have two unique fields, an int and a text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "pair", records = "rows")]
struct Pairs {
    header: PlainHeader,
    rows: Vec<PairRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct PairRow {
    #[mini(unique)]
    a: u32,
    #[mini(unique)]
    b: String,
}

/// A unique int's key is its value when the int is short and canonical
/// (ADR 0053), its canonical text otherwise (`007`): both kinds meet in
/// one set, alone (rubric's `id`) or beside a text key (two unique
/// fields), so `1` and `01` clash, as serde's path says.
#[test]
fn unique_int_keys_by_value_and_by_text_clash_as_serde_says() {
    let rubric = mini::to_string(&data::rubric(2)).expect("valid");
    let second = rubric.lines().nth(2).expect("a second record");
    assert!(second.starts_with("2|"), "{second}");
    for (id, kept) in [
        ("2", true),
        ("02", true),
        ("1", false),
        ("01", false),
        ("001", false),
    ] {
        let doc = rubric.replace(second, &format!("{id}{}", &second[1..]));
        assert_eq!(agree::<data::Rubric>(&doc), kept, "{id}");
    }
    for (line, kept) in [
        ("3|z", true),
        ("03|z", true),
        ("01|z", false),
        ("1|z", false),
        ("3|x", false),
        ("2|y", false),
    ] {
        let doc = format!("pair|n=3\n1|x\n2|y\n{line}");
        assert_eq!(agree::<Pairs>(&doc), kept, "{line}");
    }
}

/// Both readers agree on `doc`, and it is read with `want` where `get`
/// looks (`None`: refused).
fn kept_as<T, W, V>(doc: &str, want: Option<W>, get: impl Fn(&T) -> V)
where
    T: for<'de> Deserialize<'de> + mini::MiniDocument + PartialEq + std::fmt::Debug,
    V: PartialEq<W> + std::fmt::Debug,
    W: std::fmt::Debug,
{
    let ok = agree::<T>(doc);
    match want {
        Some(want) => {
            assert!(ok, "{doc:?} refused");
            assert_eq!(
                get(&mini::from_str::<T>(doc).expect("valid")),
                want,
                "{doc:?}"
            );
        }
        None => assert!(!ok, "{doc:?} accepted"),
    }
}

/// A tuple read as a struct in one walk (ADR 0049): when its text is
/// plain (no quote, marker or escape) and has as many components as the
/// contract, each component is typed by its rules as the struct takes it;
/// any other text goes to the checked path, which types them all first.
/// Either way the values and the errors are serde's path's, also when a
/// component the Rust type refuses comes before one that breaks a rule
/// (the rule's error comes first, as when every component was checked
/// before any was read).
#[test]
fn plain_tuples_read_in_one_walk_agree_with_serde() {
    let mut doc = kit(23, 1);
    doc.rows[0].pos = Point {
        x: 1.5,
        y: -7,
        z: Some(4),
    };
    let base = mini::to_string(&doc).expect("valid");
    let (header, line) = base.split_once('\n').expect("a record");
    let fields: Vec<&str> = line.split('|').collect();
    let at = fields
        .iter()
        .position(|f| *f == "1.5,-7,4")
        .unwrap_or_else(|| panic!("no tuple field in {line}"));
    let with = |value: &str| {
        let mut f = fields.clone();
        f[at] = value;
        format!("{header}\n{}", f.join("|"))
    };
    let point = |x, y, z| Some(Point { x, y, z });
    let cases: [(&str, Option<Point>); 18] = [
        ("1.5,-7,4", point(1.5, -7, Some(4))),
        (" 2 , 3 , 0 ", point(2.0, 3, Some(0))),
        ("1e2,0,", point(100.0, 0, None)),
        ("\"1.5\",-7,4", point(1.5, -7, Some(4))),
        ("1.5,-7", None),
        ("1.5,-7,4,5", None),
        (",-7,4", None),
        ("x,-7,4", None),
        ("1.5,-7.5,4", None),
        ("nan,-7,4", None),
        ("1.5*,-7,4", None),
        ("1.5,-7,4*", None),
        (r"1.5,-7,4\,", None),
        // refused by the Rust type (i32, u8), not by the rules
        ("1.5,3000000000,4", None),
        ("1.5,-7,300", None),
        ("1.5,3000000000,300", None),
        // a refusal, then a broken rule: the rule's error is the one given
        ("1.5,3000000000,x", None),
        ("1.5,3000000000,", None),
    ];
    for (text, want) in cases {
        let doc = with(text);
        let ok = agree::<Kit>(&doc);
        match want {
            Some(want) => {
                assert!(ok, "{text:?} refused");
                let kit = mini::from_str::<Kit>(&doc).expect("valid");
                assert_eq!(kit.rows[0].pos, want, "{text:?}");
            }
            None => assert!(!ok, "{text:?} accepted"),
        }
    }
    // the rule's error, not the type's: the line is reported by the
    // engine, with the field and the component it broke
    let err = mini::from_str::<Kit>(&with("1.5,3000000000,x")).expect_err("broken");
    assert!(
        err.diagnostics()
            .iter()
            .any(|d| d.code() == mini::Code::E06 && d.field() == Some("pos.z")),
        "{err}: {:?}",
        err.diagnostics()
    );
}

/// A unit enum's name is checked against the contract's values, not only
/// against the Rust type's variants: under a contract whose `lang` knows
/// `en`, `fr` and an `xx` the type lacks, `es` breaks E10 and `xx` is
/// refused by the type, while `en` and `fr` read (the direct reader's
/// enum fast path, round 24 of issue 21; it fails without the E10 test).
#[test]
fn an_enum_name_keeps_the_contracts_values_through_the_direct_reader() {
    use data::{Lang, Notes};
    let mut json = Notes::contract().to_value().clone();
    let fields = json["core"].as_array_mut().expect("core fields");
    let lang = fields
        .iter_mut()
        .find(|f| f["name"] == "lang")
        .expect("a lang field");
    assert_eq!(lang["values"], serde_json::json!(["en", "es", "fr", "de"]));
    lang["values"] = serde_json::json!(["en", "fr", "xx"]);
    let narrow = mini::Contract::from_json(&json.to_string()).expect("a contract");
    // the records read by the derive's direct reader under `narrow`
    let direct = |text: &str| {
        let mut de = mini::Deserializer::new(text, &narrow);
        let value = Probe::<Notes>::new()
            .read_document(&mut de)
            .expect("Notes has a direct reader");
        de.end(value)
    };
    let mut doc = data::notes(2);
    for (lang, want) in [
        (Lang::En, None),
        (Lang::Fr, None),
        (Lang::Es, Some(mini::Code::E10)),
    ] {
        doc.notes[1].lang = lang;
        let text = mini::to_string(&doc).expect("valid");
        let read = direct(&text);
        match want {
            None => assert_eq!(read.expect("valid under the contract"), doc),
            Some(code) => {
                let err = read.expect_err("a name the contract lacks");
                assert_eq!(err.code(), Some(code), "{err}");
                let first = &err.diagnostics()[0];
                assert_eq!((first.line(), first.field()), (3, Some("lang")), "{err}");
            }
        }
    }
    doc.notes[1].lang = Lang::En;
    let text = mini::to_string(&doc).expect("valid");
    assert!(text.ends_with("|en"), "lang is the last field");
    let text = format!("{}xx", text.strip_suffix("en").expect("en"));
    let err = direct(&text).expect_err("not a Lang");
    let first = &err.diagnostics()[0];
    assert_eq!((first.line(), first.field()), (3, Some("lang")), "{err}");
}
