//! `#[derive(mini::Mini)]`: the `describe()` trees and contracts it
//! produces, the serde attributes it honours, the contract rules checked
//! when the contract is built (E20), and — through trybuild — the
//! attributes rejected at compile time (`tests/ui/*.rs`, pinned `.stderr`).

// Most types here exist only to be described.
#![allow(dead_code)]

use std::borrow::Cow;

use mini::__private::typed::{Bound, Describe, FieldAttrs, FieldDesc, StructDesc};
use mini::contract::{MarkerRule, ScalarType};
use mini::{Code, Mini};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

// ---------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------

fn contract_json<T: Mini>() -> Value {
    let contract = T::try_contract().unwrap_or_else(|e| panic!("contract: {e}"));
    serde_json::to_value(&contract).unwrap()
}

/// The E20 message of a type whose attributes do not make a contract.
fn e20<T: Mini>() -> String {
    let err = T::try_contract().expect_err("expected E20");
    assert_eq!(err.code(), Some(Code::E20), "{err}");
    err.diagnostics()[0].message().to_string()
}

fn fields(d: &Describe) -> &[FieldDesc] {
    match d {
        Describe::Struct(s) => &s.fields,
        other => panic!("not a struct: {other:?}"),
    }
}

fn names(d: &Describe) -> Vec<&str> {
    fields(d).iter().map(|f| f.name.as_ref()).collect()
}

fn field(name: &'static str, ty: Describe, attrs: FieldAttrs) -> FieldDesc {
    FieldDesc {
        name: Cow::Borrowed(name),
        ty,
        attrs,
    }
}

fn plain(name: &'static str, ty: Describe) -> FieldDesc {
    field(name, ty, FieldAttrs::default())
}

const STR: Describe = Describe::Scalar(ScalarType::Str);
const INT: Describe = Describe::Scalar(ScalarType::Int);
const FLOAT: Describe = Describe::Scalar(ScalarType::Float);

fn opt(d: Describe) -> Describe {
    Describe::Optional(Box::new(d))
}

fn list(d: Describe) -> Describe {
    Describe::List(Box::new(d))
}

// ---------------------------------------------------------------------------
// the quiz example
// ---------------------------------------------------------------------------

#[derive(Debug, PartialEq, Serialize, Deserialize, mini::Mini)]
#[mini(prefix = "quiz", records = "items")]
struct Quiz {
    header: QuizHeader,
    items: Vec<Question>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, mini::Mini)]
struct QuizHeader {
    n: u32,
    k: u32,
    topic: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, mini::Mini)]
struct Question {
    #[mini(unique)]
    id: String,
    stem: String,
    #[mini(
        mlist = "exactly_one",
        selected = "answer",
        count_key = "k",
        min = 2,
        max = 6
    )]
    options: Vec<String>,
    answer: usize,
    #[mini(min = 1, max = 5)]
    level: u8,
    level_name: Level,
    tags: Vec<String>,
    irt: Irt,
    #[mini(extension)]
    note: Option<String>,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, mini::Mini)]
#[serde(rename_all = "lowercase")]
enum Level {
    Remember,
    Understand,
    Apply,
    Analyze,
    Evaluate,
    Create,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, mini::Mini)]
struct Irt {
    a: f64,
    b: f64,
    c: f64,
}

fn level_values() -> Vec<String> {
    [
        "remember",
        "understand",
        "apply",
        "analyze",
        "evaluate",
        "create",
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn quiz_enum_describe() {
    assert_eq!(Level::describe(), Describe::Enum(level_values()));
}

#[test]
fn quiz_describe_tree() {
    let irt = Describe::Struct(StructDesc {
        rust_name: "Irt",
        fields: vec![plain("a", FLOAT), plain("b", FLOAT), plain("c", FLOAT)],
        ..Default::default()
    });
    assert_eq!(Irt::describe(), irt);

    let header = Describe::Struct(StructDesc {
        rust_name: "QuizHeader",
        fields: vec![plain("n", INT), plain("k", INT), plain("topic", opt(STR))],
        ..Default::default()
    });
    assert_eq!(QuizHeader::describe(), header);

    let question = Describe::Struct(StructDesc {
        rust_name: "Question",
        fields: vec![
            field(
                "id",
                STR,
                FieldAttrs {
                    unique: true,
                    ..Default::default()
                },
            ),
            plain("stem", STR),
            field(
                "options",
                list(STR),
                FieldAttrs {
                    mlist: Some(MarkerRule::ExactlyOne),
                    selected: Some("answer"),
                    count_key: Some("k"),
                    min: Some(Bound::Int(2)),
                    max: Some(Bound::Int(6)),
                    ..Default::default()
                },
            ),
            plain("answer", INT),
            field(
                "level",
                INT,
                FieldAttrs {
                    min: Some(Bound::Int(1)),
                    max: Some(Bound::Int(5)),
                    ..Default::default()
                },
            ),
            plain("level_name", Describe::Enum(level_values())),
            plain("tags", list(STR)),
            plain("irt", irt),
            field(
                "note",
                opt(STR),
                FieldAttrs {
                    extension: true,
                    ..Default::default()
                },
            ),
        ],
        ..Default::default()
    });
    assert_eq!(Question::describe(), question);

    assert_eq!(
        Quiz::describe(),
        Describe::Struct(StructDesc {
            rust_name: "Quiz",
            prefix: Some("quiz"),
            records: Some("items"),
            fields: vec![plain("header", header), plain("items", list(question))],
            ..Default::default()
        })
    );
}

#[test]
fn quiz_contract() {
    assert_eq!(
        contract_json::<Quiz>(),
        json!({
            "prefix": "quiz",
            "records_key": "items",
            "header": {
                "required": ["n", "k"],
                "keys": {"k": {"type": "int"}, "topic": {"type": "str"}}
            },
            "core": [
                {"name": "id", "type": "str", "unique": true},
                {"name": "stem", "type": "str"},
                {"name": "options", "type": "mlist", "item": "str", "marker": "exactly_one",
                 "json": {"items": "options", "selected": "answer"},
                 "min": 2, "max": 6, "count_key": "k"},
                {"name": "level", "type": "int", "min": 1, "max": 5},
                {"name": "level_name", "type": "enum", "values": level_values()},
                {"name": "tags", "type": "list", "item": "str"},
                {"name": "irt", "type": "tuple", "items": [
                    {"name": "a", "type": "float"},
                    {"name": "b", "type": "float"},
                    {"name": "c", "type": "float"}
                ]}
            ],
            "extensions": [{"name": "note", "type": "str"}]
        })
    );
}

#[test]
fn quiz_contract_parses_the_quiz_format() {
    let contract = Quiz::contract();
    let text = "quiz|n=2|k=4|topic=photosynthesis\n\
        q1|Where does photosynthesis take place?|chloroplasts*,nucleus,mitochondria,ribosomes|1|remember|biology|0.9,-1,0.25\n\
        q2|Which gas is released?|carbon dioxide,oxygen*,nitrogen,\"hydrogen, as H2\"|2|understand||1.1,-0.3,0.25|see p. 4";
    let doc = mini::parse(text, &contract).unwrap();
    let c = doc.to_canonical();
    assert_eq!(c["items"][0]["answer"], 0);
    assert_eq!(c["items"][1]["answer"], 1);
    assert_eq!(c["items"][1]["options"][3], "hydrogen, as H2");
    assert_eq!(c["items"][0]["level_name"], "remember");
    assert_eq!(c["items"][1]["note"], "see p. 4");
    assert_eq!(c["items"][1]["irt"]["b"].as_f64(), Some(-0.3));
}

#[test]
fn document_contract_is_cached() {
    let a = Quiz::cached_contract().unwrap();
    let b = Quiz::cached_contract().unwrap();
    let (Cow::Borrowed(a), Cow::Borrowed(b)) = (a, b) else {
        panic!("a document type's contract is cached");
    };
    assert!(std::ptr::eq(a, b));
    assert_eq!(serde_json::to_value(a).unwrap(), contract_json::<Quiz>());
}

// ---------------------------------------------------------------------------
// serde names
// ---------------------------------------------------------------------------

#[derive(Serialize, Deserialize, mini::Mini)]
#[serde(rename_all = "camelCase")]
struct Renamed {
    first_name: String,
    #[serde(rename = "LAST")]
    last_name: String,
    #[serde(rename(serialize = "same", deserialize = "same"))]
    both_ways: u8,
    #[serde(alias = "older")]
    r#type: String,
    plain: bool,
}

#[test]
fn field_rename_and_rename_all() {
    let d = Renamed::describe();
    assert_eq!(names(&d), ["firstName", "LAST", "same", "type", "plain"]);
    assert_eq!(fields(&d)[4].ty, Describe::Scalar(ScalarType::Bool));
}

macro_rules! field_rule {
    ($name:ident, $rule:literal) => {
        #[derive(Serialize, Deserialize, mini::Mini)]
        #[serde(rename_all = $rule)]
        #[allow(non_snake_case)]
        struct $name {
            one: u8,
            two_words: u8,
            three_word_name: u8,
        }
    };
}

field_rule!(FLower, "lowercase");
field_rule!(FUpper, "UPPERCASE");
field_rule!(FPascal, "PascalCase");
field_rule!(FCamel, "camelCase");
field_rule!(FSnake, "snake_case");
field_rule!(FScreamingSnake, "SCREAMING_SNAKE_CASE");
field_rule!(FKebab, "kebab-case");
field_rule!(FScreamingKebab, "SCREAMING-KEBAB-CASE");

#[test]
fn every_rename_all_rule_on_fields() {
    let cases: [(Describe, [&str; 3]); 8] = [
        (FLower::describe(), ["one", "two_words", "three_word_name"]),
        (FUpper::describe(), ["ONE", "TWO_WORDS", "THREE_WORD_NAME"]),
        (FPascal::describe(), ["One", "TwoWords", "ThreeWordName"]),
        (FCamel::describe(), ["one", "twoWords", "threeWordName"]),
        (FSnake::describe(), ["one", "two_words", "three_word_name"]),
        (
            FScreamingSnake::describe(),
            ["ONE", "TWO_WORDS", "THREE_WORD_NAME"],
        ),
        (FKebab::describe(), ["one", "two-words", "three-word-name"]),
        (
            FScreamingKebab::describe(),
            ["ONE", "TWO-WORDS", "THREE-WORD-NAME"],
        ),
    ];
    for (d, want) in &cases {
        assert_eq!(names(d), want);
    }
}

/// The names serde itself writes, to check the derive agrees with serde.
fn serde_field_names<T: Serialize>(v: &T) -> Vec<String> {
    match serde_json::to_value(v).unwrap() {
        Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("{other}"),
    }
}

#[test]
fn field_names_agree_with_serde() {
    let v = FScreamingKebab {
        one: 1,
        two_words: 2,
        three_word_name: 3,
    };
    assert_eq!(serde_field_names(&v), names(&FScreamingKebab::describe()));
    let v = Renamed {
        first_name: String::new(),
        last_name: String::new(),
        both_ways: 0,
        r#type: String::new(),
        plain: true,
    };
    assert_eq!(serde_field_names(&v), names(&Renamed::describe()));
}

macro_rules! variant_rule {
    ($name:ident, $rule:literal) => {
        #[derive(Serialize, Deserialize, mini::Mini)]
        #[serde(rename_all = $rule)]
        enum $name {
            One,
            TwoWords,
            #[serde(rename = "kept As-is")]
            Renamed,
        }
    };
}

variant_rule!(VLower, "lowercase");
variant_rule!(VUpper, "UPPERCASE");
variant_rule!(VPascal, "PascalCase");
variant_rule!(VCamel, "camelCase");
variant_rule!(VSnake, "snake_case");
variant_rule!(VScreamingSnake, "SCREAMING_SNAKE_CASE");
variant_rule!(VKebab, "kebab-case");
variant_rule!(VScreamingKebab, "SCREAMING-KEBAB-CASE");

#[test]
fn every_rename_all_rule_on_variants() {
    let e = |a: &str, b: &str| Describe::Enum(vec![a.into(), b.into(), "kept As-is".into()]);
    assert_eq!(VLower::describe(), e("one", "twowords"));
    assert_eq!(VUpper::describe(), e("ONE", "TWOWORDS"));
    assert_eq!(VPascal::describe(), e("One", "TwoWords"));
    assert_eq!(VCamel::describe(), e("one", "twoWords"));
    assert_eq!(VSnake::describe(), e("one", "two_words"));
    assert_eq!(VScreamingSnake::describe(), e("ONE", "TWO_WORDS"));
    assert_eq!(VKebab::describe(), e("one", "two-words"));
    assert_eq!(VScreamingKebab::describe(), e("ONE", "TWO-WORDS"));
    // serde agrees
    assert_eq!(
        serde_json::to_value(VScreamingKebab::TwoWords).unwrap(),
        "TWO-WORDS"
    );
    assert_eq!(serde_json::to_value(VCamel::Renamed).unwrap(), "kept As-is");
}

#[derive(Serialize, Deserialize, mini::Mini)]
enum Plain {
    Red,
    #[serde(rename = "GREEN")]
    Green,
    #[serde(skip)]
    Internal,
    Blue,
}

#[test]
fn variant_rename_and_skip() {
    assert_eq!(
        Plain::describe(),
        Describe::Enum(vec!["Red".into(), "GREEN".into(), "Blue".into()])
    );
}

#[derive(Serialize, Deserialize, mini::Mini)]
enum Empty {}

#[test]
fn empty_enum() {
    assert_eq!(Empty::describe(), Describe::Enum(vec![]));
}

// ---------------------------------------------------------------------------
// skip and default
// ---------------------------------------------------------------------------

#[derive(Serialize, Deserialize, mini::Mini)]
struct Skipping {
    a: String,
    #[serde(skip)]
    cache: Vec<Vec<u8>>,
    #[serde(skip_serializing, skip_deserializing)]
    also_skipped: std::collections::HashMap<String, String>,
    b: i64,
}

#[test]
fn skipped_fields_are_left_out() {
    assert_eq!(
        Skipping::describe(),
        Describe::Struct(StructDesc {
            rust_name: "Skipping",
            fields: vec![plain("a", STR), plain("b", INT)],
            ..Default::default()
        })
    );
}

fn default_level() -> u8 {
    3
}

#[derive(Serialize, Deserialize, mini::Mini)]
#[mini(prefix = "d")]
struct Defaults {
    header: DefaultsHeader,
    records: Vec<DefaultsRecord>,
}

#[derive(Default, Serialize, Deserialize, mini::Mini)]
#[serde(default)]
struct DefaultsHeader {
    n: u32,
    src: String,
}

#[derive(Serialize, Deserialize, mini::Mini)]
struct DefaultsRecord {
    id: String,
    #[serde(default)]
    count: u32,
    #[serde(default = "default_level")]
    level: u8,
    #[mini(extension)]
    #[serde(default)]
    extra: String,
}

#[test]
fn serde_default_marks_fields() {
    let d = FieldAttrs {
        serde_default: true,
        ..Default::default()
    };
    // header: container default → every field
    assert_eq!(
        fields(&DefaultsHeader::describe())
            .iter()
            .map(|f| f.attrs.serde_default)
            .collect::<Vec<_>>(),
        [true, true]
    );
    let rec = DefaultsRecord::describe();
    let attrs: Vec<&FieldAttrs> = fields(&rec).iter().map(|f| &f.attrs).collect();
    assert_eq!(*attrs[0], FieldAttrs::default());
    assert_eq!(*attrs[1], d);
    assert_eq!(*attrs[2], d);
    assert_eq!(
        *attrs[3],
        FieldAttrs {
            extension: true,
            serde_default: true,
            ..Default::default()
        }
    );
}

#[test]
fn serde_default_contract() {
    assert_eq!(
        contract_json::<Defaults>(),
        json!({
            "prefix": "d",
            "records_key": "records",
            "header": {"required": ["n"], "keys": {"src": {"type": "str"}}},
            "core": [
                {"name": "id", "type": "str"},
                {"name": "count", "type": "int", "optional": true},
                {"name": "level", "type": "int", "optional": true}
            ],
            "extensions": [{"name": "extra", "type": "str"}]
        })
    );
}

// ---------------------------------------------------------------------------
// every attribute
// ---------------------------------------------------------------------------

#[derive(Serialize, Deserialize, mini::Mini)]
#[mini(prefix = "all", records = "rows", separator = ';', version = 2)]
#[mini(name = "Everything", description = "Every attribute at once")]
struct All {
    prefix: String,
    header: AllHeader,
    rows: Vec<AllRow>,
}

#[derive(Serialize, Deserialize, mini::Mini)]
struct AllHeader {
    n: u32,
    v: Option<u32>,
    #[mini(min = 1, max = 8, desc = "options per row")]
    k: u32,
    #[mini(min = "2024-01-01")]
    since: Option<mini::Date>,
}

#[derive(Serialize, Deserialize, mini::Mini)]
enum Colour {
    Red,
    Green,
}

#[derive(Serialize, Deserialize, mini::Mini)]
struct Point {
    #[mini(min = -90.0, max = 90.0, desc = "latitude")]
    lat: f64,
    #[mini(min = -180, max = 180)]
    lon: i32,
    label: Option<String>,
    colour: Colour,
}

#[derive(Serialize, Deserialize, mini::Mini)]
struct AllRow {
    #[mini(unique, desc = "row id")]
    id: u64,
    #[mini(min = -3)]
    #[mini(max = 1.5e3)]
    score: f32,
    #[mini(min = "0.00", max = "99.99")]
    price: mini::Decimal,
    #[mini(mlist = "exactly_one", selected = "pick", count_key = "k")]
    one: Vec<String>,
    pick: usize,
    #[mini(mlist = "at_most_one", selected = "maybe")]
    zero_or_one: Vec<Colour>,
    maybe: Option<usize>,
    #[mini(mlist = "at_least_one", selected = "some", min = 1)]
    many: Vec<i32>,
    some: Vec<usize>,
    #[mini(mlist = "any", selected = "picked", max = 10)]
    any: Vec<bool>,
    picked: Vec<usize>,
    #[mini(count_key = "k", max = 4)]
    plain: Vec<Colour>,
    at: Point,
    #[mini(extension, desc = "free text")]
    note: Option<String>,
    #[mini(extension, unique)]
    ext_id: Option<String>,
}

#[test]
fn every_attribute_describe() {
    let Describe::Struct(all) = All::describe() else {
        panic!()
    };
    assert_eq!(
        (
            all.prefix,
            all.records,
            all.separator,
            all.version,
            all.name,
            all.description
        ),
        (
            Some("all"),
            Some("rows"),
            Some(';'),
            Some(2),
            Some("Everything"),
            Some("Every attribute at once")
        )
    );
    let header = AllHeader::describe();
    let k = &fields(&header)[2].attrs;
    assert_eq!(
        *k,
        FieldAttrs {
            min: Some(Bound::Int(1)),
            max: Some(Bound::Int(8)),
            desc: Some("options per row"),
            ..Default::default()
        }
    );
    assert_eq!(fields(&header)[3].attrs.min, Some(Bound::Str("2024-01-01")));

    let point = Point::describe();
    let lat = &fields(&point)[0].attrs;
    assert_eq!(
        (&lat.min, &lat.max),
        (&Some(Bound::Float(-90.0)), &Some(Bound::Float(90.0)))
    );
    let lon = &fields(&point)[1].attrs;
    assert_eq!(
        (&lon.min, &lon.max),
        (&Some(Bound::Int(-180)), &Some(Bound::Int(180)))
    );

    let row = AllRow::describe();
    let f = fields(&row);
    assert_eq!(f[1].attrs.min, Some(Bound::Int(-3)));
    assert_eq!(f[1].attrs.max, Some(Bound::Float(1500.0)));
    assert_eq!(f[2].attrs.max, Some(Bound::Str("99.99")));
    let rules: Vec<Option<MarkerRule>> = f.iter().map(|f| f.attrs.mlist).collect();
    assert_eq!(
        rules,
        [
            None,
            None,
            None,
            Some(MarkerRule::ExactlyOne),
            None,
            Some(MarkerRule::AtMostOne),
            None,
            Some(MarkerRule::AtLeastOne),
            None,
            Some(MarkerRule::Any),
            None,
            None,
            None,
            None,
            None
        ]
    );
    assert_eq!(
        f[14].attrs,
        FieldAttrs {
            extension: true,
            unique: true,
            ..Default::default()
        }
    );
}

#[test]
fn every_attribute_contract() {
    let colours = json!(["Red", "Green"]);
    assert_eq!(
        contract_json::<All>(),
        json!({
            "prefix": "all",
            "version": 2,
            "name": "Everything",
            "description": "Every attribute at once",
            "list_separator": ";",
            "records_key": "rows",
            "header": {
                "required": ["n", "k"],
                "keys": {
                    "k": {"type": "int", "min": 1, "max": 8, "desc": "options per row"},
                    "since": {"type": "date", "min": "2024-01-01"}
                }
            },
            "core": [
                {"name": "id", "type": "int", "unique": true, "desc": "row id"},
                {"name": "score", "type": "float", "min": -3, "max": 1500.0},
                {"name": "price", "type": "decimal", "min": "0.00", "max": "99.99"},
                {"name": "one", "type": "mlist", "item": "str", "marker": "exactly_one",
                 "json": {"items": "one", "selected": "pick"}, "count_key": "k"},
                {"name": "zero_or_one", "type": "mlist", "item": "enum", "item_values": colours,
                 "marker": "at_most_one", "json": {"items": "zero_or_one", "selected": "maybe"}},
                {"name": "many", "type": "mlist", "item": "int", "marker": "at_least_one",
                 "json": {"items": "many", "selected": "some"}, "min": 1},
                {"name": "any", "type": "mlist", "item": "bool", "marker": "any",
                 "json": {"items": "any", "selected": "picked"}, "max": 10},
                {"name": "plain", "type": "list", "item": "enum", "item_values": colours,
                 "count_key": "k", "max": 4},
                {"name": "at", "type": "tuple", "items": [
                    {"name": "lat", "type": "float", "min": -90.0, "max": 90.0, "desc": "latitude"},
                    {"name": "lon", "type": "int", "min": -180, "max": 180},
                    {"name": "label", "type": "str", "optional": true},
                    {"name": "colour", "type": "enum", "values": colours}
                ]}
            ],
            "extensions": [
                {"name": "note", "type": "str", "desc": "free text"},
                {"name": "ext_id", "type": "str", "unique": true}
            ]
        })
    );
    let c = All::contract();
    assert_eq!((c.separator(), c.version()), (';', 2));
}

/// Attribute values passed through `macro_rules!` (which wraps them in
/// invisible groups).
macro_rules! bounded {
    ($name:ident, $min:expr, $max:literal, $desc:literal) => {
        #[derive(mini::Mini)]
        struct $name {
            #[mini(min = $min, max = -$max, desc = $desc)]
            x: i32,
        }
    };
}

bounded!(Bounded, -5, 1, "from a macro");

#[test]
fn attribute_values_from_macro_rules() {
    assert_eq!(
        fields(&Bounded::describe())[0].attrs,
        FieldAttrs {
            min: Some(Bound::Int(-5)),
            max: Some(Bound::Int(-1)),
            desc: Some("from a macro"),
            ..Default::default()
        }
    );
}

/// Field types whose names the generated code also uses inside
/// `describe()` are still the user's types.
mod shadowing {
    #![allow(clippy::upper_case_acronyms)]

    #[derive(mini::Mini)]
    pub struct Reset {
        pub a: String,
    }

    #[derive(mini::Mini)]
    pub enum BUSY {
        On,
    }

    #[derive(mini::Mini)]
    pub struct CELL {
        pub r: Reset,
        pub b: BUSY,
    }
}

#[test]
fn generated_names_do_not_shadow_field_types() {
    let d = shadowing::CELL::describe();
    assert!(matches!(&fields(&d)[0].ty, Describe::Struct(s) if s.rust_name == "Reset"));
    assert_eq!(fields(&d)[1].ty, Describe::Enum(vec!["On".into()]));
}

/// Lifetimes are allowed (the contract does not depend on them), and so
/// are raw identifiers.
#[derive(Serialize, Deserialize, mini::Mini)]
#[mini(prefix = "b")]
struct Borrowed<'a> {
    #[serde(borrow)]
    records: Vec<BorrowedRow<'a>>,
}

#[derive(Serialize, Deserialize, mini::Mini)]
struct BorrowedRow<'a> {
    r#type: &'a str,
    #[serde(borrow)]
    text: Cow<'a, str>,
    boxed: Box<str>,
}

#[test]
fn lifetimes_and_raw_identifiers() {
    assert_eq!(names(&BorrowedRow::describe()), ["type", "text", "boxed"]);
    assert_eq!(
        contract_json::<Borrowed>()["core"],
        json!([
            {"name": "type", "type": "str"},
            {"name": "text", "type": "str"},
            {"name": "boxed", "type": "str"}
        ])
    );
    assert!(matches!(Borrowed::cached_contract(), Ok(Cow::Borrowed(_))));
}

// ---------------------------------------------------------------------------
// rules checked when the contract is built (E20)
// ---------------------------------------------------------------------------

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct MlistWithoutSelected {
    records: Vec<MlistWithoutSelectedRow>,
}

#[derive(mini::Mini)]
struct MlistWithoutSelectedRow {
    #[mini(mlist = "exactly_one")]
    options: Vec<String>,
}

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct ExtensionNotOptional {
    records: Vec<ExtensionNotOptionalRow>,
}

#[derive(mini::Mini)]
struct ExtensionNotOptionalRow {
    id: String,
    #[mini(extension)]
    note: String,
}

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct WrongSelection {
    records: Vec<WrongSelectionRow>,
}

#[derive(mini::Mini)]
struct WrongSelectionRow {
    #[mini(mlist = "at_most_one", selected = "answer")]
    options: Vec<String>,
    answer: usize,
}

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct MissingSelection {
    records: Vec<MissingSelectionRow>,
}

#[derive(mini::Mini)]
struct MissingSelectionRow {
    #[mini(mlist = "any", selected = "nope")]
    options: Vec<String>,
}

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct CoreAfterExtension {
    records: Vec<CoreAfterExtensionRow>,
}

#[derive(mini::Mini)]
struct CoreAfterExtensionRow {
    #[mini(extension)]
    note: Option<String>,
    id: String,
}

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct MlistNotList {
    records: Vec<MlistNotListRow>,
}

#[derive(mini::Mini)]
struct MlistNotListRow {
    #[mini(mlist = "exactly_one", selected = "answer")]
    options: String,
    answer: usize,
}

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct CountKeyOnScalar {
    records: Vec<CountKeyOnScalarRow>,
}

#[derive(mini::Mini)]
struct CountKeyOnScalarRow {
    #[mini(count_key = "k")]
    id: String,
}

#[derive(mini::Mini)]
#[mini(prefix = "x")]
struct Recursive {
    records: Vec<Node>,
}

#[derive(mini::Mini)]
struct Node {
    id: String,
    children: Vec<Node>,
}

#[test]
fn e20_mlist_without_selected() {
    let m = e20::<MlistWithoutSelected>();
    assert!(m.contains("MlistWithoutSelectedRow.options"), "{m}");
    assert!(m.contains("selected"), "{m}");
}

#[test]
fn e20_extension_not_optional() {
    let m = e20::<ExtensionNotOptional>();
    assert!(m.contains("ExtensionNotOptionalRow.note"), "{m}");
    assert!(m.contains("Option<T>"), "{m}");
}

#[test]
fn e20_selection_of_the_wrong_type() {
    let m = e20::<WrongSelection>();
    assert!(m.contains("Option<usize>"), "{m}");
}

#[test]
fn e20_selection_not_a_field() {
    let m = e20::<MissingSelection>();
    assert!(m.contains("nope"), "{m}");
}

#[test]
fn e20_core_after_extension() {
    let m = e20::<CoreAfterExtension>();
    assert!(m.contains("CoreAfterExtensionRow.id"), "{m}");
}

#[test]
fn e20_mlist_on_a_scalar() {
    let m = e20::<MlistNotList>();
    assert!(m.contains("Vec"), "{m}");
}

#[test]
fn e20_count_key_on_a_scalar() {
    let m = e20::<CountKeyOnScalar>();
    assert!(m.contains("count_key"), "{m}");
}

// A document without its records field, or with it under another name
// than `#[mini(records)]` says, is a compile error (tests/ui/records_field_name.rs).

#[test]
fn e20_not_a_document() {
    let m = e20::<Question>();
    assert!(m.contains("Question has no #[mini(prefix"), "{m}");
    let m = e20::<Level>();
    assert!(m.contains("only a struct"), "{m}");
}

#[test]
fn e20_recursive_type_does_not_overflow() {
    let d = Node::describe();
    assert_eq!(
        fields(&d)[1].ty,
        list(Describe::Unsupported(
            "a struct that contains itself cannot be written: a .mini record is one flat line"
        ))
    );
    // The guard is reset: describing again gives the same tree.
    assert_eq!(Node::describe(), d);
    e20::<Recursive>();
}

#[test]
fn e20_is_cached_with_its_code() {
    for _ in 0..2 {
        let err = ExtensionNotOptional::cached_contract().unwrap_err();
        assert_eq!(err.code(), Some(Code::E20));
        assert!(
            err.to_string().contains("ExtensionNotOptionalRow.note"),
            "{err}"
        );
    }
}

#[test]
#[should_panic(expected = "invalid mini contract")]
fn contract_panics_on_e20() {
    let _ = MlistWithoutSelected::contract();
}

// ---------------------------------------------------------------------------
// compile errors
// ---------------------------------------------------------------------------

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

// ---------------------------------------------------------------------------
// #[mini(crate = "…")]: the expansion names the crate by the given path
// ---------------------------------------------------------------------------

/// `mini` under another name, as a crate that re-exports it (or renames the
/// dependency) sees it.
mod renamed_crate {
    extern crate mini as renamed;

    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize, renamed::Mini)]
    #[mini(crate = "renamed", prefix = "t", records = "tasks")]
    pub struct Todos {
        pub tasks: Vec<Task>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize, renamed::Mini)]
    #[mini(crate = "renamed")]
    pub struct Task {
        #[mini(unique)]
        pub title: String,
        pub state: State,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize, renamed::Mini)]
    #[mini(crate = "self::renamed")]
    #[serde(rename_all = "lowercase")]
    pub enum State {
        Open,
        Done,
    }

    pub fn read(text: &str) -> renamed::Result<Todos> {
        renamed::from_str(text)
    }
}

#[test]
fn crate_attribute_names_the_mini_crate_by_another_path() {
    let todos = renamed_crate::read("t|n=1\nbuy milk|done").unwrap();
    assert_eq!(todos.tasks[0].state, renamed_crate::State::Done);
    let c = <renamed_crate::Todos as Mini>::contract();
    assert_eq!(
        contract_json::<renamed_crate::Todos>()["core"][1]["values"],
        json!(["open", "done"])
    );
    assert_eq!(c.records_key(), "tasks");
    assert!(c.fields()[0].unique);
}
