//! `mini_tools::tokens`: the tokenizer, the renderings and the statistics.
//!
//! The upstream families are read from `../shared/conformance` (relative to
//! the crate root) or from the directory in `MINI_CONFORMANCE`.
#![cfg(feature = "tokens")]

use std::path::PathBuf;

use mini::Contract;
use mini_tools::tokens::{count, render, stats, Encoding, Format, Stats};
use serde_json::Value;

/// The reference's published counts (o200k_base) that do not depend on the
/// shape of the canonical object: `.mini` and flattened CSV.
const PUBLISHED_MINI_CSV: [(&str, usize, usize); 14] = [
    ("a", 813, 811),
    ("card", 523, 493),
    ("cat", 381, 367),
    ("cls", 384, 419),
    ("code", 613, 569),
    ("log", 524, 496),
    ("map", 252, 220),
    ("ner", 227, 204),
    ("q", 1162, 1165),
    ("r", 380, 373),
    ("s", 314, 278),
    ("sum", 591, 559),
    ("tc", 499, 472),
    ("us", 459, 442),
];

fn forks_dir() -> PathBuf {
    let dir = match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join("../shared/conformance"),
    };
    let forks = dir.join("forks");
    assert!(
        forks.is_dir(),
        "the upstream families are not at {}: put the conformance data at \
         ../shared/conformance or set MINI_CONFORMANCE",
        forks.display()
    );
    forks
}

fn family(prefix: &str) -> (Contract, String) {
    let dir = forks_dir().join(prefix);
    let contract = Contract::from_path(dir.join("contract.json")).expect("contract");
    let text = std::fs::read_to_string(dir.join("fixtures/valid.mini")).expect("fixture");
    (contract, text)
}

fn canonical(prefix: &str) -> (Contract, String, Value) {
    let (c, text) = family(prefix);
    let v = mini::parse(&text, &c)
        .expect("valid fixture")
        .into_canonical();
    (c, text, v)
}

/// A small RFC 4180 reader: rows split on `\n` outside quotes, fields on
/// `,`, `"…"` quoting with `""` for a quote.
fn read_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
        } else {
            match c {
                '"' => {
                    assert!(field.is_empty(), "quote inside an unquoted field");
                    quoted = true;
                }
                ',' => row.push(std::mem::take(&mut field)),
                '\n' => {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                _ => field.push(c),
            }
        }
    }
    assert!(!quoted, "unterminated quoted field");
    row.push(field);
    rows.push(row);
    rows
}

fn small_contract() -> Contract {
    Contract::from_json(
        r#"{
        "prefix": "t", "records_key": "rows",
        "core": [
            {"name": "id", "type": "str", "unique": true},
            {"name": "note", "type": "str"},
            {"name": "tags", "type": "list", "item": "str", "optional": true},
            {"name": "picks", "type": "mlist", "item": "str", "marker": "any",
             "json": {"items": "choices", "selected": "chosen"}},
            {"name": "pos", "type": "tuple", "items": [
                {"name": "x", "type": "float"}, {"name": "y", "type": "float"}]},
            {"name": "ok", "type": "bool"}
        ]
    }"#,
    )
    .expect("contract")
}

const SMALL_DOC: &str = "t|n=3\n\
    r1|plain|a,b,c|p*,q,r*|1.5,-2|true\n\
    r2|a\\, \"quoted\" note||x,y*|0,0|false\n\
    r3|two\\nlines|solo|only*|3,4.25|1";

#[test]
fn hello_world_is_two_tokens_in_both_encodings() {
    assert_eq!(count("hello world", Encoding::O200kBase), 2);
    assert_eq!(count("hello world", Encoding::Cl100kBase), 2);
}

#[test]
fn known_small_counts() {
    for enc in Encoding::ALL {
        assert_eq!(count("", enc), 0);
        assert_eq!(count("hello", enc), 1);
    }
    // OpenAI's cookbook: cl100k_base encodes "tiktoken is great!" as
    // [83, 1609, 5963, 374, 2294, 0].
    assert_eq!(count("tiktoken is great!", Encoding::Cl100kBase), 6);
}

#[test]
fn special_token_text_is_ordinary_text() {
    // tiktoken's encode(text, disallowed_special=()): no special token, the
    // text is split like any other.
    for enc in Encoding::ALL {
        assert!(count("<|endoftext|>", enc) > 1);
    }
}

#[test]
fn counts_are_deterministic_and_positive() {
    let (c, text) = family("q");
    for enc in Encoding::ALL {
        let a = stats(&text, &c, enc).expect("stats");
        let b = stats(&text, &c, enc).expect("stats");
        assert_eq!(a, b);
        assert_eq!(a.encoding, enc);
        assert_eq!(a.formats.len(), Format::ALL.len());
        for (f, want) in a.formats.iter().zip(Format::ALL) {
            assert_eq!(f.format, want);
            assert!(f.tokens > 0, "{} has no token", want.label());
            assert!(
                f.bytes >= f.tokens,
                "{}: fewer bytes than tokens",
                want.label()
            );
        }
        let r = render(&text, &c).expect("render");
        for f in Format::ALL {
            assert_eq!(count(r.get(f), enc), a.tokens(f));
            assert_eq!(r.get(f).len(), a.get(f).expect("format").bytes);
        }
    }
}

#[test]
fn encodings_have_names() {
    for enc in Encoding::ALL {
        assert_eq!(enc.name().parse::<Encoding>().expect("name"), enc);
        assert_eq!(enc.to_string(), enc.name());
        assert_eq!(
            serde_json::to_value(enc).expect("json"),
            Value::String(enc.name().to_string())
        );
    }
    assert_eq!(
        "o200k".parse::<Encoding>().expect("o200k"),
        Encoding::O200kBase
    );
    assert_eq!(
        "cl100k".parse::<Encoding>().expect("cl100k"),
        Encoding::Cl100kBase
    );
    assert!("p50k_base".parse::<Encoding>().is_err());
    assert_eq!(Encoding::default(), Encoding::O200kBase);
}

#[test]
fn mini_and_csv_counts_reproduce_the_published_ones() {
    for (prefix, mini_tokens, csv_tokens) in PUBLISHED_MINI_CSV {
        let (c, text) = family(prefix);
        let s = stats(&text, &c, Encoding::O200kBase).expect("stats");
        assert_eq!(s.records, 12, "{prefix}");
        assert_eq!(s.tokens(Format::Mini), mini_tokens, "{prefix} .mini");
        assert_eq!(s.tokens(Format::Csv), csv_tokens, "{prefix} CSV");
    }
}

#[test]
fn saving_is_positive_when_a_format_needs_fewer_tokens() {
    let (c, text) = family("q");
    let s = stats(&text, &c, Encoding::O200kBase).expect("stats");
    let mini = s.get(Format::Mini).expect("mini");
    assert!(mini.saving_pct > 0.0);
    assert!(s.tokens(Format::Mini) < s.tokens(Format::JsonCompact));
    assert_eq!(s.get(Format::JsonCompact).expect("json").saving_pct, 0.0);
    assert!(s.get(Format::JsonPretty).expect("pretty").saving_pct < 0.0);
    assert!(s.saving_pct(Format::Mini, Format::Toon) > 0.0);
    let want = (s.tokens(Format::JsonCompact) as f64 - s.tokens(Format::Mini) as f64)
        / s.tokens(Format::JsonCompact) as f64
        * 100.0;
    assert!((mini.saving_pct - want).abs() < 1e-9);
    assert!((s.saving_pct(Format::Mini, Format::JsonCompact) - want).abs() < 1e-9);
    // the table says it in words
    let table = s.render_table();
    let line = table
        .lines()
        .find(|l| l.starts_with(".mini"))
        .expect("mini row");
    assert!(line.ends_with(&format!("saves {want:.1} %")), "{line}");
    assert!(table.lines().any(|l| l.contains("% more")), "{table}");
    // map: CSV (no nesting to pay for) beats .mini, which has a header line
    let (c, text) = family("map");
    let s = stats(&text, &c, Encoding::O200kBase).expect("stats");
    assert!(s.saving_pct(Format::Mini, Format::Csv) < 0.0);
}

#[test]
fn a_document_as_written_and_its_stats_agree() {
    for prefix in ["q", "cat", "map"] {
        let (c, text) = family(prefix);
        // as the serializer writes it, in a file that ends with a line break
        let file = format!(
            "{}\n",
            mini::dumps(&mini::parse(&text, &c).expect("valid").into_canonical(), &c)
                .expect("dumps")
        );
        let s = stats(&file, &c, Encoding::O200kBase).expect("stats");
        let written =
            mini_tools::tokens::count_document(&file, Encoding::O200kBase).expect("count");
        assert_eq!(s.tokens(Format::Mini), written, "{prefix}");
        assert_eq!(s.written_tokens, Some(written), "{prefix}");
        assert!(!s.render_table().contains("as written"), "{prefix}");
    }
    // a document not in canonical form: both counts, said so
    let (c, text) = family("q");
    let padded = format!("\u{feff}{text}"); // a BOM, which the parser skips
    let s = stats(&padded, &c, Encoding::O200kBase).expect("stats");
    assert_ne!(s.written_tokens, Some(s.tokens(Format::Mini)));
    assert!(
        s.render_table().contains(".mini as written"),
        "{}",
        s.render_table()
    );
}

#[test]
fn json_renderings_parse_back_to_the_canonical_object() {
    let (c, text, v) = canonical("q");
    let r = render(&text, &c).expect("render");
    assert_eq!(r.mini, mini::dumps(&v, &c).expect("dumps"));
    let compact: Value = serde_json::from_str(&r.json_compact).expect("compact JSON");
    let pretty: Value = serde_json::from_str(&r.json_pretty).expect("pretty JSON");
    assert_eq!(compact, v);
    assert_eq!(pretty, v);
    assert!(!r.json_compact.contains('\n'));
    assert!(r
        .json_compact
        .starts_with(r#"{"prefix":"q","header":{"n":12,"m":"IRT3PL","#));
    assert!(r.json_pretty.contains("\n  \"header\": {\n    \"n\": 12,"));
    // non-ASCII is written as is, like ensure_ascii=False
    assert!(r.json_compact.contains("Biología"));
}

#[test]
fn csv_parses_back_one_row_per_record() {
    for (prefix, _, _) in PUBLISHED_MINI_CSV {
        let (c, text, v) = canonical(prefix);
        let r = render(&text, &c).expect("render");
        let rows = read_csv(&r.csv);
        let records = v[c.records_key()].as_array().expect("records");
        assert_eq!(rows.len() - 1, records.len(), "{prefix}: rows");
        let width = rows[0].len();
        assert!(
            rows.iter().all(|row| row.len() == width),
            "{prefix}: ragged"
        );
        // the first field is a scalar in every family: its column carries it
        let first = &c.fields()[0].name;
        assert_eq!(&rows[0][0], first, "{prefix}");
        for (row, rec) in rows[1..].iter().zip(records) {
            assert_eq!(Some(row[0].as_str()), rec[first].as_str(), "{prefix}");
        }
    }
}

#[test]
fn csv_flattening_follows_the_upstream_method() {
    let (c, text, v) = canonical("q");
    let r = render(&text, &c).expect("render");
    let rows = read_csv(&r.csv);
    let head: Vec<&str> = rows[0].iter().map(String::as_str).collect();
    assert_eq!(
        head,
        [
            "id",
            "bloom",
            "topic",
            "statement",
            "options_1",
            "options_2",
            "options_3",
            "options_4",
            "correct",
            "irt_a",
            "irt_b",
            "irt_c",
            "difficulty",
            "cat_area",
            "cat_exposure_cap",
            "cat_demand",
            "feedback",
            "hint",
            "objective"
        ]
    );
    let items = v["items"].as_array().expect("items");
    for (row, item) in rows[1..].iter().zip(items) {
        // fixed-arity (k=4) options as numbered columns
        for i in 0..4 {
            assert_eq!(Some(row[4 + i].as_str()), item["options"][i].as_str());
        }
        // the selection is 1-based
        let sel = item["correct"].as_u64().expect("index");
        assert_eq!(row[8], (sel + 1).to_string());
        // integral floats as .mini writes them: -1.0 → -1
        let b = item["irt"]["b"].as_f64().expect("b");
        assert_eq!(row[10].parse::<f64>().expect("number"), b);
        assert!(!row[10].ends_with(".0"));
    }
    // a comma forces quoting
    assert!(r.csv.contains(",\"impacto, justicia y evidencia\","));
    // the header line is dropped
    assert!(!r.csv.contains("IRT3PL"));
}

#[test]
fn csv_quotes_joins_and_selects() {
    let c = small_contract();
    let r = render(SMALL_DOC, &c).expect("render");
    let rows = read_csv(&r.csv);
    assert_eq!(rows.len(), 4);
    assert_eq!(
        rows[0],
        ["id", "note", "tags", "choices", "chosen", "pos_x", "pos_y", "ok"]
    );
    assert_eq!(
        rows[1],
        ["r1", "plain", "a;b;c", "p;q;r", "1;3", "1.5", "-2", "true"]
    );
    assert_eq!(
        rows[2],
        [
            "r2",
            "a, \"quoted\" note",
            "",
            "x;y",
            "2",
            "0",
            "0",
            "false"
        ]
    );
    assert_eq!(
        rows[3],
        ["r3", "two\nlines", "solo", "only", "1", "3", "4.25", "true"]
    );
    assert!(r.csv.contains("\"a, \"\"quoted\"\" note\""));
    assert!(r.csv.contains("\"two\nlines\""));
}

#[test]
fn toon_parses_back_to_the_same_data() {
    for prefix in ["q", "card", "map"] {
        let (c, text, v) = canonical(prefix);
        let r = render(&text, &c).expect("render");
        let decoded: Value = toon_format::decode_default(&r.toon).expect("TOON decodes");
        assert!(
            mini::value::equivalent(&decoded, &v),
            "{prefix}: TOON does not carry the canonical object"
        );
        assert_eq!(
            mini::dumps(&decoded, &c).expect("dumps"),
            r.mini,
            "{prefix}: TOON → .mini"
        );
        let flat: Value = toon_format::decode_default(&r.toon_flat).expect("flat TOON decodes");
        assert_eq!(
            flat[c.records_key()].as_array().map(Vec::len),
            v[c.records_key()].as_array().map(Vec::len),
            "{prefix}: flat TOON rows"
        );
        assert!(mini::value::equivalent(&flat["header"], &v["header"]));
    }
}

#[test]
fn toon_of_a_small_document_round_trips() {
    let c = small_contract();
    let doc = mini::parse(SMALL_DOC, &c).expect("valid");
    let v = doc.to_canonical();
    let r = render(SMALL_DOC, &c).expect("render");
    let decoded: Value = toon_format::decode_default(&r.toon).expect("TOON decodes");
    assert!(mini::value::equivalent(&decoded, &v), "{}", r.toon);
    assert_eq!(mini::dumps(&decoded, &c).expect("dumps"), r.mini);
}

#[test]
fn stats_serialize_to_json_and_back() {
    let (c, text) = family("cat");
    let s = stats(&text, &c, Encoding::Cl100kBase).expect("stats");
    let json = serde_json::to_value(&s).expect("serialize");
    assert_eq!(json["prefix"], "cat");
    assert_eq!(json["records"], 12);
    assert_eq!(json["encoding"], "cl100k_base");
    assert_eq!(json["formats"][1]["format"], "json_compact");
    assert!(json["formats"][0]["saving_pct"].as_f64().expect("f64") > 0.0);
    let back: Stats = serde_json::from_value(json).expect("deserialize");
    assert_eq!(back.prefix, s.prefix);
    assert_eq!(back.encoding, s.encoding);
    for (a, b) in back.formats.iter().zip(&s.formats) {
        assert_eq!((a.format, a.tokens, a.bytes), (b.format, b.tokens, b.bytes));
        assert!((a.saving_pct - b.saving_pct).abs() < 1e-9);
    }
}

#[test]
fn table_lists_every_format() {
    let (c, text) = family("s");
    let s = stats(&text, &c, Encoding::O200kBase).expect("stats");
    let t = s.render_table();
    assert!(t.starts_with("s: 12 record(s), o200k_base\n"));
    // one more line when the fixture is not in canonical form
    let note = usize::from(s.written_tokens != Some(s.tokens(Format::Mini)));
    assert_eq!(t.lines().count(), 2 + Format::ALL.len() + note);
    for f in Format::ALL {
        let line = t
            .lines()
            .find(|l| l.starts_with(&format!("{:<18} ", f.label())))
            .unwrap_or_else(|| panic!("no line for {}", f.label()));
        assert!(line.contains(&s.tokens(f).to_string()));
        if f == Format::JsonCompact {
            assert!(line.ends_with("baseline"), "{line}");
        } else {
            assert!(line.ends_with(" %") || line.ends_with("% more"), "{line}");
        }
    }
}

#[test]
fn invalid_documents_are_refused() {
    let (c, _) = family("q");
    let err = stats("q|n=2\ni1|L1", &c, Encoding::O200kBase).expect_err("invalid");
    assert!(!err.diagnostics().is_empty());
    assert!(render("", &c).is_err());
}

#[test]
fn empty_document_has_only_the_csv_column_row() {
    let c = small_contract();
    let r = render("t|n=0", &c).expect("render");
    let rows = read_csv(&r.csv);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].len(), 8);
    let s = stats("t|n=0", &c, Encoding::O200kBase).expect("stats");
    assert_eq!(s.records, 0);
}
