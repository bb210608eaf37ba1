//! The record writer `#[derive(Mini)]` generates (ADR 0047) against
//! serde's walk: for a derived document type, `mini::to_string` writes the
//! records with the derived writer, and must give exactly what the same
//! write through the type's `Serialize` gives (`to_string_through_serde`):
//! the same text for a valid document, the same errors for a refused one.
//! The documents are generated valid ones and each of them broken in one
//! place (a selection out of range or missing, a count, a bound, a clash,
//! a blank value), on record types with every field kind, and on types
//! the derived writer must leave to serde.

#[path = "../benches/support/data.rs"]
mod data;
#[path = "support/derived_types.rs"]
mod derived_types;

use derived_types::{Color, KitHeader, PlainHeader, Renamed, RenamedRow, Rng, COLORS};

use mini::__private::write::to_string_through_serde;
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
    #[mini(min = -5, max = 100)]
    small: i8,
    // an f64: an f32 goes to the general path (through serde too)
    #[mini(min = 0, max = 1)]
    ratio: f64,
    #[mini(mlist = "exactly_one", selected = "pick", count_key = "k")]
    options: Vec<String>,
    pick: usize,
    #[mini(mlist = "at_most_one", selected = "maybe")]
    colors: Vec<Color>,
    maybe: Option<usize>,
    #[mini(max = 3)]
    tags: Vec<String>,
    shade: Color,
    pos: Point,
    opt_text: Option<String>,
    #[mini(extension)]
    note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct Point {
    x: f64,
    #[mini(min = -10, max = 10)]
    y: i32,
    z: Option<u8>,
}

/// A record whose selection is not right after its list: no derived
/// writer (serde's walk and the general path write it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "far", records = "rows")]
struct Far {
    header: PlainHeader,
    rows: Vec<FarRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct FarRow {
    #[mini(mlist = "exactly_one", selected = "pick")]
    options: Vec<String>,
    name: String,
    pick: usize,
}

/// A record with an `any` marked list: its selection is a list of
/// indices, which the straight writer leaves to the general path (through
/// serde or the derived writer alike).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "any", records = "rows")]
struct Picks {
    header: PlainHeader,
    rows: Vec<AnyRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
struct AnyRow {
    name: String,
    #[mini(mlist = "any", selected = "chosen")]
    levels: Vec<u8>,
    chosen: Vec<usize>,
    // a date: the straight writer leaves it to the general path
    when: mini::Date,
}

/// A record type that is read only (no `Serialize`): its derive still
/// compiles, and its writer is simply not there.
#[derive(Debug, Clone, PartialEq, Deserialize, Mini)]
struct ReadOnlyRow {
    name: String,
    stamp: Stamp,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Mini)]
struct Stamp {
    at: u32,
}

/// How many records the derived writers wrote straight so far: counted in
/// debug builds only (`None` in release builds, where nothing counts).
fn derived_written() -> Option<usize> {
    #[cfg(debug_assertions)]
    return Some(mini::__private::write::derived_records_written());
    #[cfg(not(debug_assertions))]
    None
}

/// Checks that `count` records were written by the derived writers since
/// `before` (debug builds).
fn assert_derived(before: Option<usize>, count: usize) {
    if let (Some(b), Some(now)) = (before, derived_written()) {
        assert_eq!(now - b, count, "records the derived writers wrote");
    }
}

const WORDS: [&str; 7] = [
    "alpha",
    "b, c",
    "pipe|d",
    "star*",
    "back\\slash",
    "x",
    "end\\",
];

fn row(rng: &mut Rng, i: usize) -> Row {
    let word = |rng: &mut Rng| WORDS[rng.below(WORDS.len() as u64) as usize].to_string();
    let color = |rng: &mut Rng| COLORS[rng.below(3) as usize];
    let n_colors = rng.below(3) as usize;
    Row {
        id: i as u16 + 1,
        name: word(rng),
        small: rng.below(100) as i8 - 5,
        ratio: rng.below(5) as f64 / 4.0,
        options: (0..3).map(|_| word(rng)).collect(),
        pick: rng.below(3) as usize,
        colors: (0..n_colors).map(|_| color(rng)).collect(),
        maybe: (n_colors > 0 && rng.below(2) == 0).then(|| rng.below(n_colors as u64) as usize),
        tags: (0..rng.below(4)).map(|_| word(rng)).collect(),
        shade: color(rng),
        pos: Point {
            x: rng.below(1000) as f64 / 16.0,
            y: rng.below(21) as i32 - 10,
            z: (rng.below(2) == 0).then(|| rng.below(9) as u8),
        },
        opt_text: (rng.below(2) == 0).then(|| word(rng)),
        note: (rng.below(3) == 0).then(|| word(rng)),
    }
}

fn kit(rng: &mut Rng, records: usize) -> Kit {
    Kit {
        header: KitHeader {
            n: records as u64,
            k: 3,
            label: Some("a|b".into()),
        },
        rows: (0..records).map(|i| row(rng, i)).collect(),
    }
}

/// Each way one record of a valid document is broken.
const BREAKS: usize = 14;

fn broken(doc: &Kit, at: usize, how: usize) -> Kit {
    let mut doc = doc.clone();
    let r = &mut doc.rows[at];
    match how {
        0 => r.pick = 3,                     // selection out of range
        1 => r.pick = usize::MAX,            // far out of range
        2 => r.options.truncate(2),          // count key says 3
        3 => r.maybe = Some(r.colors.len()), // at_most_one out of range
        4 => r.small = 101,                  // above its bound
        5 => r.ratio = 1.5,                  // above its bound
        6 => r.pos.y = -11,                  // a tuple component below its bound
        7 => r.id = 1,                       // a unique clash (or none when at = 0)
        8 => r.name = String::new(),         // a required value missing
        9 => r.name = " padded ".into(),     // spaces parsing would trim
        10 => r.options[1] = "a\nb".into(),  // a line break in an element
        11 => r.tags = vec!["t".into(); 4],  // more elements than allowed
        12 => r.note = Some(String::new()),  // an empty extension
        _ => r.ratio = f64::NAN,             // no text for it
    }
    doc
}

/// The derived writer and serde's walk give the same text or the same
/// errors; a written document reads back as the value written.
fn same_as_serde<T>(doc: &T) -> Result<String, String>
where
    T: Serialize + Mini + mini::MiniDocument + std::fmt::Debug + PartialEq,
    T: serde::de::DeserializeOwned,
{
    let derived = mini::to_string(doc).map_err(|e| e.to_string());
    let serde = to_string_through_serde(doc).map_err(|e| e.to_string());
    assert_eq!(derived, serde, "derived writer ≠ serde's walk on {doc:#?}");
    derived
}

#[test]
fn valid_documents_are_written_as_serde_writes_them() {
    let mut rng = Rng(0x5eed_0047);
    for records in [1, 2, 7, 40] {
        for _ in 0..25 {
            let doc = kit(&mut rng, records);
            let before = derived_written();
            let text = same_as_serde(&doc);
            let text = text.unwrap_or_else(|e| panic!("refused: {e} on {doc:#?}"));
            // every generated record is one the straight writer takes
            assert_derived(before, records);
            let back: Kit = mini::from_str(&text).expect("reads back");
            // ratio and x are exact quarters and sixteenths
            assert_eq!(back, doc);
        }
    }
}

#[test]
fn broken_documents_get_the_errors_serde_gets() {
    let mut rng = Rng(0xbad_0047);
    let mut refused = 0;
    for case in 0..(BREAKS * 12) {
        let doc = kit(&mut rng, 6);
        let at = case % doc.rows.len();
        let bad = broken(&doc, at, case % BREAKS);
        if same_as_serde(&bad).is_err() {
            refused += 1;
        }
    }
    // every break refuses the document, but a clash on the first record
    // (no record before it has id 1) and padded spaces (escaped by the
    // general path)
    assert!(refused >= BREAKS * 12 * 3 / 4, "only {refused} refused");
}

#[test]
fn a_writer_stream_gets_the_same_text() {
    let mut rng = Rng(0x57_0047);
    let doc = kit(&mut rng, 30);
    let text = mini::to_string(&doc).expect("valid");
    let mut out = Vec::new();
    mini::to_writer(&mut out, &doc).expect("valid");
    assert_eq!(String::from_utf8(out).expect("utf-8"), text);
}

#[test]
fn types_without_a_derived_writer_are_written_by_serde() {
    let far = Far {
        header: PlainHeader { n: 2 },
        rows: vec![
            FarRow {
                options: vec!["a".into(), "b".into()],
                name: "one".into(),
                pick: 1,
            },
            FarRow {
                options: vec!["c".into(), "d".into()],
                name: "two".into(),
                pick: 2,
            },
        ],
    };
    let before = derived_written();
    let refused = same_as_serde(&far).expect_err("pick 2 of 2 options");
    assert!(refused.contains("E"), "{refused}");
    let mut far = far;
    far.rows[1].pick = 0;
    assert_eq!(
        same_as_serde(&far).as_deref(),
        Ok("far|n=2\na,b*|one\nc*,d|two")
    );
    let renamed = Renamed {
        header: PlainHeader { n: 1 },
        rows: vec![RenamedRow {
            first_name: "Ana".into(),
            age: 30,
        }],
    };
    assert_eq!(same_as_serde(&renamed).as_deref(), Ok("ren|n=1\nAna|30"));
    let picks = Picks {
        header: PlainHeader { n: 2 },
        rows: vec![
            AnyRow {
                name: "a".into(),
                levels: vec![1, 2, 3],
                chosen: vec![0, 2],
                when: "2026-12-04".parse().expect("a date"),
            },
            AnyRow {
                name: "b".into(),
                levels: vec![4],
                chosen: vec![1],
                when: "2026-12-05".parse().expect("a date"),
            },
        ],
    };
    same_as_serde(&picks).expect_err("index 1 of one level");
    let mut picks = picks;
    picks.rows[1].chosen.clear();
    assert_eq!(
        same_as_serde(&picks).as_deref(),
        Ok("any|n=2\na|1*,2,3*|2026-12-04\nb|4|2026-12-05")
    );
    assert_derived(before, 0);
    // a read-only record type derives its contract and reader
    let _ = ReadOnlyRow::describe();
    let _ = Stamp::describe();
}

#[test]
fn the_bench_families_are_written_as_serde_writes_them() {
    let before = derived_written();
    let quiz = data::quiz(300);
    same_as_serde(&quiz).expect("quiz is valid");
    let rubric = data::rubric(300);
    same_as_serde(&rubric).expect("rubric is valid");
    let notes = data::notes(300);
    same_as_serde(&notes).expect("notes is valid");
    assert_derived(before, 900);
}

/// The straight writer's remembered verdicts (ADR 0048) never accept what
/// the rules refuse. A list's element counts and a bounded int are
/// remembered as the interval of values the rules accepted, so a value
/// outside that interval, late in a document whose valid records widened
/// it, must still be asked and refused. The oracle is the contract's
/// rules written out here (tags at most 3, `small` in -5..=100, `pos.y`
/// in -10..=10), not serde's walk, which shares the memos.
#[test]
fn remembered_verdicts_never_accept_a_refused_value() {
    let mut rng = Rng(0x0048_4d45);
    for round in 0..80 {
        let mut doc = kit(&mut rng, 12);
        let at = 6 + rng.below(6) as usize;
        let low = rng.below(2) == 0;
        let field = match round % 4 {
            0 => {
                doc.rows[at].tags = vec!["t".into(); 4];
                "tags"
            }
            1 => {
                doc.rows[at].small = if low { -6 } else { 101 };
                "small"
            }
            2 => {
                doc.rows[at].pos.y = if low { -11 } else { 11 };
                "pos.y"
            }
            _ => {
                // inside every interval: written, and read back
                let text = mini::to_string(&doc).expect("a valid document");
                let back: Kit = mini::from_str(&text).expect("reads back");
                assert_eq!(back, doc);
                continue;
            }
        };
        let err = mini::to_string(&doc).expect_err("an out-of-range value is refused");
        let d = &err.diagnostics()[0];
        // the header is line 1, record `at` is line `at + 2`
        assert_eq!((d.line(), d.field()), (at + 2, Some(field)), "{err}");
    }
}
