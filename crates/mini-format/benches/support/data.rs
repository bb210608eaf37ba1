//! Deterministic generated data for the benchmarks (`benches/throughput.rs`)
//! and the memory example (`examples/stream_rss.rs`): three families, as
//! Rust types deriving `mini::Mini` + serde, with their `contract.json`
//! equivalents (`benches/contracts/*.json`, checked equal in `contracts_match`).
//!
//! Nothing is read from disk: every document is generated from a fixed seed
//! (SplitMix64), so every run measures the same bytes.
//!
//! - **quiz**: a marked list with a count key, a tuple of floats, ints with
//!   a range, an enum, a plain list, a unique id and an extension.
//! - **rubric**: plain lists with a count key whose elements carry escaped
//!   separators (`clear\, precise`), ints, a bounded float, a bool.
//! - **notes**: text-heavy: long values full of escapes (`\|`, `\\`, `\n`,
//!   `\*`) and CSV-style quoted list elements (`"say ""hi"", then go"`).

#![allow(dead_code)]

use mini::Mini;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------
// PRNG
// ---------------------------------------------------------------------------

/// SplitMix64: small, fast, deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// True with probability `num/den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.next_u64() as usize % xs.len()]
    }
}

const WORDS: &[&str] = &[
    "light",
    "energy",
    "cell",
    "plant",
    "water",
    "carbon",
    "oxygen",
    "leaf",
    "root",
    "growth",
    "protein",
    "enzyme",
    "membrane",
    "nucleus",
    "signal",
    "pathway",
    "molecule",
    "reaction",
    "balance",
    "system",
    "model",
    "theory",
    "evidence",
    "sample",
    "measure",
    "change",
    "force",
    "motion",
    "heat",
    "wave",
    "field",
    "charge",
    "current",
    "circuit",
    "voltage",
    "matter",
    "atom",
    "bond",
    "acid",
    "base",
    "salt",
    "solution",
    "mixture",
    "density",
    "pressure",
    "volume",
    "temperature",
    "climate",
    "ocean",
    "river",
    "mountain",
    "valley",
    "forest",
    "desert",
    "soil",
    "rock",
    "mineral",
    "fossil",
    "species",
    "habitat",
    "population",
    "community",
    "ecosystem",
    "argument",
    "claim",
    "reason",
    "source",
    "example",
    "structure",
    "clarity",
    "detail",
    "analysis",
    "summary",
    "method",
    "result",
    "question",
    "answer",
    "number",
    "fraction",
    "equation",
    "graph",
    "angle",
    "triangle",
    "circle",
    "area",
    "perimeter",
    "ratio",
    "percent",
];

fn words(rng: &mut Rng, lo: u64, hi: u64) -> String {
    let n = rng.range(lo, hi);
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick::<&str>(WORDS));
    }
    s
}

/// A float with two decimals in `lo..=hi` hundredths, as `f64`.
fn cents(rng: &mut Rng, lo: i64, hi: i64) -> f64 {
    let span = (hi - lo) as u64;
    (lo + rng.range(0, span) as i64) as f64 / 100.0
}

// ---------------------------------------------------------------------------
// quiz
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "quiz", records = "items")]
pub struct Quiz {
    pub header: QuizHeader,
    pub items: Vec<Question>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct QuizHeader {
    pub n: u64,
    pub k: u32,
    pub topic: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct Question {
    #[mini(unique)]
    pub id: String,
    pub stem: String,
    #[mini(
        mlist = "exactly_one",
        selected = "answer",
        count_key = "k",
        min = 2,
        max = 6
    )]
    pub options: Vec<String>,
    pub answer: usize,
    #[mini(min = 1, max = 5)]
    pub level: u8,
    pub level_name: Level,
    #[mini(max = 5)]
    pub tags: Vec<String>,
    pub irt: Irt,
    #[mini(extension)]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Mini)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Remember,
    Understand,
    Apply,
    Analyze,
    Evaluate,
    Create,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct Irt {
    pub a: f64,
    #[mini(min = -4.0, max = 4.0)]
    pub b: f64,
    pub c: f64,
}

const LEVELS: [Level; 6] = [
    Level::Remember,
    Level::Understand,
    Level::Apply,
    Level::Analyze,
    Level::Evaluate,
    Level::Create,
];

/// The `i`-th question of the quiz family.
pub fn question(rng: &mut Rng, i: usize) -> Question {
    let options = (0..4)
        .map(|_| {
            let mut o = words(rng, 1, 3);
            if rng.chance(1, 8) {
                o.push_str(", again");
            }
            o
        })
        .collect();
    let tags = (0..rng.range(0, 3)).map(|_| words(rng, 1, 1)).collect();
    Question {
        id: format!("q{i}"),
        stem: format!("{}?", words(rng, 6, 12)),
        options,
        answer: rng.range(0, 3) as usize,
        level: rng.range(1, 5) as u8,
        level_name: *rng.pick(&LEVELS),
        tags,
        irt: Irt {
            a: cents(rng, 50, 250),
            b: cents(rng, -300, 300),
            c: cents(rng, 0, 35),
        },
        note: rng.chance(1, 5).then(|| words(rng, 3, 8)),
    }
}

pub fn quiz(records: usize) -> Quiz {
    let mut rng = Rng::new(0x5157_4951);
    Quiz {
        header: QuizHeader {
            n: records as u64,
            k: 4,
            topic: Some("general science".to_string()),
        },
        items: (0..records).map(|i| question(&mut rng, i)).collect(),
    }
}

// ---------------------------------------------------------------------------
// rubric
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "rubric", records = "criteria")]
pub struct Rubric {
    pub header: RubricHeader,
    pub criteria: Vec<Criterion>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct RubricHeader {
    pub n: u64,
    pub levels: u32,
    pub course: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct Criterion {
    #[mini(unique)]
    pub id: u32,
    pub name: String,
    #[mini(count_key = "levels")]
    pub descriptors: Vec<String>,
    #[mini(count_key = "levels")]
    pub points: Vec<u32>,
    #[mini(min = 0, max = 1)]
    pub weight: f64,
    pub required: bool,
}

pub fn criterion(rng: &mut Rng, i: usize) -> Criterion {
    let descriptors = (0..4)
        .map(|_| {
            // every descriptor carries one or two commas: escaped separators
            let mut d = words(rng, 2, 5);
            d.push_str(", ");
            d.push_str(&words(rng, 2, 5));
            if rng.chance(1, 2) {
                d.push_str(", and ");
                d.push_str(&words(rng, 1, 3));
            }
            d
        })
        .collect();
    let top = rng.range(4, 10) as u32;
    Criterion {
        id: i as u32 + 1,
        name: words(rng, 2, 4),
        descriptors,
        points: (0..4).map(|j| top.saturating_sub(j * 2)).collect(),
        weight: cents(rng, 5, 40),
        required: rng.chance(1, 2),
    }
}

pub fn rubric(records: usize) -> Rubric {
    let mut rng = Rng::new(0x5255_4252);
    Rubric {
        header: RubricHeader {
            n: records as u64,
            levels: 4,
            course: "Writing 101".to_string(),
        },
        criteria: (0..records).map(|i| criterion(&mut rng, i)).collect(),
    }
}

// ---------------------------------------------------------------------------
// notes (text-heavy)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
#[mini(prefix = "notes", records = "notes")]
pub struct Notes {
    pub header: NotesHeader,
    pub notes: Vec<Note>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct NotesHeader {
    pub n: u64,
    pub source: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Mini)]
pub struct Note {
    pub id: u64,
    pub title: String,
    pub body: String,
    pub quotes: Vec<String>,
    pub author: String,
    pub lang: Lang,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Mini)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    En,
    Es,
    Fr,
    De,
}

/// Text with the characters `.mini` must escape: `|`, `\`, line breaks,
/// `"`, `*` and commas.
fn noisy_text(rng: &mut Rng, lo: u64, hi: u64) -> String {
    const NOISE: &[&str] = &[
        " | ",
        "\\",
        "\n",
        " \"quoted\" ",
        "*",
        ", ",
        " a|b ",
        "C:\\dir\\file",
        "\n\n",
        " 5*3 ",
    ];
    let n = rng.range(lo, hi);
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick::<&str>(WORDS));
        if rng.chance(1, 4) {
            s.push_str(rng.pick::<&str>(NOISE));
        }
    }
    s.push('.');
    s
}

pub fn note(rng: &mut Rng, i: usize) -> Note {
    let quotes = (0..rng.range(1, 3))
        .map(|_| {
            format!(
                "{}, \"{}\", {}",
                words(rng, 2, 4),
                words(rng, 1, 3),
                noisy_text(rng, 2, 6)
            )
        })
        .collect();
    Note {
        id: i as u64,
        title: noisy_text(rng, 3, 7),
        body: noisy_text(rng, 30, 70),
        quotes,
        author: words(rng, 2, 2),
        lang: *rng.pick(&[Lang::En, Lang::Es, Lang::Fr, Lang::De]),
    }
}

pub fn notes(records: usize) -> Notes {
    let mut rng = Rng::new(0x4e4f_5445);
    Notes {
        header: NotesHeader {
            n: records as u64,
            source: Some("field notes | archive".to_string()),
        },
        notes: (0..records).map(|i| note(&mut rng, i)).collect(),
    }
}

/// The notes family written by hand, with CSV-style quoted list elements
/// (`mini::to_string` never writes quotes: it escapes instead). Reads back
/// as the same `Notes`.
pub fn notes_text_quoted(doc: &Notes) -> String {
    use mini::__private::syntax::escape_scalar_into;
    let mut out = String::with_capacity(doc.notes.len() * 600);
    out.push_str("notes|n=");
    out.push_str(&doc.notes.len().to_string());
    if let Some(s) = &doc.header.source {
        out.push_str("|source=");
        escape_scalar_into(&mut out, s);
    }
    for n in &doc.notes {
        out.push('\n');
        out.push_str(&n.id.to_string());
        out.push('|');
        escape_scalar_into(&mut out, &n.title);
        out.push('|');
        escape_scalar_into(&mut out, &n.body);
        out.push('|');
        for (i, q) in n.quotes.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            // `"…"`: quotes doubled; `\`, `|` and line breaks escaped; a
            // final `*` escaped (it would be the marker)
            out.push('"');
            let body = q.strip_suffix('*').unwrap_or(q);
            for c in body.chars() {
                match c {
                    '"' => out.push_str("\"\""),
                    '\\' => out.push_str("\\\\"),
                    '|' => out.push_str("\\|"),
                    '\n' => out.push_str("\\n"),
                    c => out.push(c),
                }
            }
            if body.len() < q.len() {
                out.push_str("\\*");
            }
            out.push('"');
        }
        out.push('|');
        escape_scalar_into(&mut out, &n.author);
        out.push('|');
        out.push_str(match n.lang {
            Lang::En => "en",
            Lang::Es => "es",
            Lang::Fr => "fr",
            Lang::De => "de",
        });
    }
    out
}

// ---------------------------------------------------------------------------
// contracts
// ---------------------------------------------------------------------------

/// The `contract.json` equivalents of the three document types.
pub const QUIZ_CONTRACT: &str = include_str!("../contracts/quiz.json");
pub const RUBRIC_CONTRACT: &str = include_str!("../contracts/rubric.json");
pub const NOTES_CONTRACT: &str = include_str!("../contracts/notes.json");

/// Checks that each derived contract is the `contract.json` equivalent
/// (same header keys, fields, types, bounds, markers and count keys).
pub fn contracts_match() {
    fn same(derived: mini::Contract, json: &str) {
        let file = mini::Contract::from_json(json).expect("contract.json");
        assert_eq!(derived.prefix(), file.prefix());
        assert_eq!(derived.records_key(), file.records_key());
        assert_eq!(derived.separator(), file.separator());
        assert_eq!(derived.fields(), file.fields(), "{}", file.prefix());
        let keys = |c: &mini::Contract| {
            let mut k: Vec<_> = c
                .header_keys()
                .iter()
                .map(|h| (h.name.clone(), h.kind.clone(), h.required))
                .collect();
            k.sort_by(|a, b| a.0.cmp(&b.0));
            k
        };
        assert_eq!(keys(&derived), keys(&file), "{}", file.prefix());
    }
    same(Quiz::contract(), QUIZ_CONTRACT);
    same(Rubric::contract(), RUBRIC_CONTRACT);
    same(Notes::contract(), NOTES_CONTRACT);
}
