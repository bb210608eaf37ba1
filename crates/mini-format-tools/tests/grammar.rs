//! The exported grammars (`mini_tools::grammar`) run in real engines:
//!
//! * the regex form with the `regex` crate, anchored `\A(?:…)\z`;
//! * the Lark form with `llguidance` (its Earley parser and lexer, fed one
//!   byte per token through toktrie's single-byte approximate tokenizer),
//!   and with the Python `lark` package (`MINI_LARK_PYTHON`, required under
//!   CI);
//! * the GBNF form with `schoolmarm`, a Rust port of llama.cpp's grammar
//!   engine (parser and pushdown stacks), fed the document character by
//!   character.
//!
//! For every upstream family (read from `../shared/conformance`, relative to
//! the crate root, or from `MINI_CONFORMANCE`): the valid and escaping
//! fixtures are accepted by all three engines, the bad fixtures and lexically
//! broken variants are rejected by all three, and the three always agree.
//! The upstream strict cases check the regex form against the parser.

use std::path::PathBuf;

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::{ApproximateTokEnv, TokEnv};
use llguidance::{Matcher, ParserFactory};
use mini::{Code, Contract};
use mini_tools::grammar::{grammar, GrammarFormat};

fn conformance_dir() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join("../shared/conformance"),
    }
}

struct Family {
    name: String,
    dir: PathBuf,
    contract: Contract,
}

impl Family {
    fn fixture(&self, name: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.join("fixtures").join(name)).ok()
    }
}

fn families() -> Vec<Family> {
    let forks = conformance_dir().join("forks");
    assert!(
        forks.is_dir(),
        "the upstream families are not at {}: put the suite at ../shared/conformance \
         (next to the crate) or set MINI_CONFORMANCE=/path/to/conformance",
        forks.display()
    );
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&forks).expect("forks readable") {
        let dir = entry.expect("dir entry").path();
        let path = dir.join("contract.json");
        if !path.is_file() {
            continue;
        }
        let contract = Contract::from_path(&path).expect("upstream contract is valid");
        out.push(Family {
            name: dir.file_name().unwrap().to_string_lossy().into_owned(),
            dir,
            contract,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(out.len(), 14, "the upstream suite has 14 families");
    out
}

/// Record lines of a fixture (every significant line after the header).
fn record_count(text: &str) -> usize {
    text.lines().filter(|l| !l.trim().is_empty()).count() - 1
}

// ---- engines -------------------------------------------------------------

fn compile_regex(contract: &Contract, records: Option<usize>) -> regex::Regex {
    let rx = grammar(contract, GrammarFormat::Regex, records);
    regex::RegexBuilder::new(&format!("\\A(?:{rx})\\z"))
        .size_limit(1 << 30)
        .dfa_size_limit(1 << 28)
        .build()
        .unwrap_or_else(|e| panic!("regex of '{}' does not compile: {e}", contract.prefix()))
}

fn tok_env() -> TokEnv {
    ApproximateTokEnv::single_byte_env()
}

struct LarkEngine {
    env: TokEnv,
    fresh: Matcher,
}

impl LarkEngine {
    fn new(contract: &Contract, records: Option<usize>) -> LarkEngine {
        let text = grammar(contract, GrammarFormat::Lark, records);
        let env = tok_env();
        let mut factory = ParserFactory::new_simple(&env).expect("factory");
        factory.quiet();
        let parser = factory
            .create_parser(TopLevelGrammar::from_lark(text.clone()))
            .unwrap_or_else(|e| panic!("llguidance rejects the Lark grammar: {e}\n{text}"));
        LarkEngine {
            env,
            fresh: Matcher::new(Ok(parser)),
        }
    }

    fn accepts(&self, doc: &str) -> bool {
        let mut m = self.fresh.deep_clone();
        let tokens = self.env.tokenize_bytes(doc.as_bytes());
        assert_eq!(tokens.len(), doc.len(), "one token per byte");
        let consumed = m.try_consume_tokens(&tokens).unwrap_or(0);
        consumed == tokens.len() && m.is_accepting().unwrap_or(false)
    }
}

struct GbnfEngine {
    grammar: schoolmarm::Grammar,
}

impl GbnfEngine {
    fn new(contract: &Contract, records: Option<usize>) -> GbnfEngine {
        let text = grammar(contract, GrammarFormat::Gbnf, records);
        let grammar = schoolmarm::Grammar::new(&text)
            .unwrap_or_else(|e| panic!("the GBNF grammar does not load: {e:?}\n{text}"));
        GbnfEngine { grammar }
    }

    fn accepts(&self, doc: &str) -> bool {
        let mut state = schoolmarm::GrammarState::new(self.grammar.clone()).expect("state");
        // one character at a time, as a sampler would feed tokens
        let mut buf = [0u8; 4];
        for c in doc.chars() {
            if state.accept_token(c.encode_utf8(&mut buf)).is_err() {
                return false;
            }
        }
        state.is_accepting()
    }
}

/// The three engines for one contract and record count.
struct Engines {
    regex: regex::Regex,
    lark: LarkEngine,
    gbnf: GbnfEngine,
}

impl Engines {
    fn new(contract: &Contract, records: Option<usize>) -> Engines {
        Engines {
            regex: compile_regex(contract, records),
            lark: LarkEngine::new(contract, records),
            gbnf: GbnfEngine::new(contract, records),
        }
    }

    /// Whether the document is accepted; the three engines must agree.
    fn accepts(&self, doc: &str, what: &str) -> bool {
        let r = self.regex.is_match(doc);
        let l = self.lark.accepts(doc);
        let g = self.gbnf.accepts(doc);
        assert!(
            r == l && l == g,
            "{what}: engines disagree (regex {r}, lark {l}, gbnf {g}) on\n{doc}"
        );
        r
    }
}

// ---- document surgery ----------------------------------------------------

/// Splits a line at unescaped `|`.
fn split_fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let last = out.last_mut().unwrap();
                last.push('\\');
                if let Some(n) = chars.next() {
                    last.push(n);
                }
            }
            '|' => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// `text` with field `field` of line `line` (0 = header) replaced.
fn with_field(text: &str, line: usize, field: usize, value: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i != line {
                return l.to_string();
            }
            let mut fields = split_fields(l);
            fields[field] = value.to_string();
            fields.join("|")
        })
        .collect();
    lines.join("\n")
}

fn with_line(text: &str, line: usize, f: impl Fn(&str) -> String) -> String {
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| if i == line { f(l) } else { l.to_string() })
        .collect();
    lines.join("\n")
}

fn first_field(contract: &Contract, pred: impl Fn(&mini::contract::Kind) -> bool) -> Option<usize> {
    contract.core().iter().position(|f| pred(&f.kind))
}

fn scalar_of(ty: mini::contract::ScalarType) -> impl Fn(&mini::contract::Kind) -> bool {
    move |k| matches!(k, mini::contract::Kind::Scalar(s) if s.ty == ty)
}

/// Lexically broken variants of a valid document: `(what, text)`.
fn broken_variants(f: &Family, valid: &str) -> Vec<(String, String)> {
    use mini::contract::{Kind, ScalarType};
    let c = &f.contract;
    let mut out = vec![
        (
            "dangling backslash".to_string(),
            with_line(valid, 1, |l| format!("{l}\\")),
        ),
        (
            "invalid escape \\q".to_string(),
            with_line(valid, 1, |l| format!("{l}\\q")),
        ),
        ("wrong prefix".to_string(), with_field(valid, 0, 0, "zz")),
        (
            "header without n".to_string(),
            with_line(valid, 0, |l| {
                split_fields(l)
                    .into_iter()
                    .filter(|e| !e.starts_with("n="))
                    .collect::<Vec<_>>()
                    .join("|")
            }),
        ),
        (
            "one field too many".to_string(),
            with_line(valid, 1, |l| {
                format!("{l}{}", "|x".repeat(c.extensions().len() + 1))
            }),
        ),
        (
            "one field too few".to_string(),
            with_line(valid, 1, |l| {
                let mut fs = split_fields(l);
                fs.truncate(c.core().len() - 1);
                fs.join("|")
            }),
        ),
    ];
    if let Some(i) = first_field(c, |k| {
        matches!(k, Kind::List { .. } | Kind::MList { .. } | Kind::Tuple(_))
    }) {
        out.push((
            "unclosed quote".to_string(),
            with_field(valid, 1, i, "\"never closed"),
        ));
        out.push((
            "text after a closing quote".to_string(),
            with_field(valid, 1, i, "\"a\"b"),
        ));
    }
    if let Some(i) = first_field(c, scalar_of(ScalarType::Enum)) {
        out.push((
            "wrong enum value".to_string(),
            with_field(valid, 1, i, "NOT_A_VALUE"),
        ));
    }
    for ty in [ScalarType::Int, ScalarType::Float, ScalarType::Bool] {
        if let Some(i) = first_field(c, scalar_of(ty)) {
            out.push((
                format!("x in a {} field", ty.name()),
                with_field(valid, 1, i, "x"),
            ));
        }
    }
    if let Some(i) = first_field(c, |k| matches!(k, Kind::List { .. })) {
        let fs = split_fields(valid.lines().nth(1).unwrap_or_default());
        out.push((
            "marker in a plain list".to_string(),
            with_field(valid, 1, i, &format!("{}*", fs[i])),
        ));
    }
    if let Some(i) = first_field(c, |k| matches!(k, Kind::Tuple(_))) {
        let fs = split_fields(valid.lines().nth(1).unwrap_or_default());
        out.push((
            "tuple with one component too many".to_string(),
            with_field(valid, 1, i, &format!("{}{}x", fs[i], c.separator())),
        ));
    }
    out
}

// ---- tests ---------------------------------------------------------------

#[test]
fn every_family_grammar_loads_in_every_engine() {
    for f in families() {
        for records in [None, Some(3)] {
            let _ = Engines::new(&f.contract, records);
        }
    }
}

#[test]
fn fixtures_are_accepted_and_rejected_as_the_parser_says() {
    let mut checked = 0;
    for f in families() {
        let any = Engines::new(&f.contract, None);
        for name in ["valid.mini", "escaping.mini"] {
            let text = f.fixture(name).expect("fixture present");
            mini::parse(&text, &f.contract).expect("upstream fixture parses");
            assert!(
                any.accepts(&text, &format!("{}/{name}", f.name)),
                "{}/{name} rejected",
                f.name
            );
            checked += 1;
        }
        for name in ["bad_arity.mini", "bad_marker.mini", "bad_type.mini"] {
            let Some(text) = f.fixture(name) else {
                continue;
            };
            assert!(mini::parse(&text, &f.contract).is_err());
            assert!(
                !any.accepts(&text, &format!("{}/{name}", f.name)),
                "{}/{name} accepted",
                f.name
            );
            checked += 1;
        }
        // the record count is not tied to n without a fixed count …
        let bad_count = f.fixture("bad_count.mini").expect("bad_count present");
        assert!(any.accepts(&bad_count, "bad_count, free count"));
        // … and is with one
        let valid = f.fixture("valid.mini").expect("valid present");
        let n = record_count(&valid);
        let fixed = Engines::new(&f.contract, Some(n));
        // the fixtures end with LF; the final LF is optional
        let bare = valid.trim_end_matches('\n');
        assert!(fixed.accepts(&valid, "valid, fixed count"));
        assert!(fixed.accepts(bare, "valid without final LF"));
        assert!(!fixed.accepts(&format!("{valid}\n"), "valid + blank line"));
        assert!(!fixed.accepts(&bad_count, "bad_count, fixed count"));
        let one_less: Vec<&str> = valid.lines().take(n).collect();
        assert_eq!(one_less.len(), n);
        assert!(!fixed.accepts(&one_less.join("\n"), "one record short"));
        let fixed_one = Engines::new(&f.contract, Some(1));
        let escaping = f.fixture("escaping.mini").expect("escaping present");
        assert!(fixed_one.accepts(&escaping, "escaping, fixed count 1"));
        checked += 5;
    }
    eprintln!("{checked} fixture checks");
}

#[test]
fn lexically_broken_documents_are_rejected() {
    let mut checked = 0;
    for f in families() {
        let engines = Engines::new(&f.contract, None);
        let valid = f.fixture("valid.mini").expect("valid present");
        for (what, text) in broken_variants(&f, &valid) {
            let what = format!("{}: {what}", f.name);
            assert!(
                mini::parse(&text, &f.contract).is_err(),
                "{what}: the variant should be invalid for the parser"
            );
            assert!(!engines.accepts(&text, &what), "{what}: accepted\n{text}");
            checked += 1;
        }
    }
    eprintln!("{checked} broken variants rejected");
}

#[test]
fn bad_marker_fixtures_use_regular_rules() {
    // a and q: exactly_one with no marker; cls: at_least_one with none.
    let mut seen = Vec::new();
    for f in families() {
        if f.fixture("bad_marker.mini").is_some() {
            let rules: Vec<&str> = f
                .contract
                .fields()
                .iter()
                .filter_map(|x| match &x.kind {
                    mini::contract::Kind::MList { marker, .. } => Some(marker.name()),
                    _ => None,
                })
                .collect();
            seen.push(format!("{}:{}", f.name, rules.join(",")));
        }
    }
    assert_eq!(seen, ["a:exactly_one", "cls:at_least_one", "q:exactly_one"]);
}

#[test]
fn what_the_grammar_cannot_see_is_left_to_the_parser() {
    let fams = families();
    let a = fams.iter().find(|f| f.name == "a").expect("family a");
    let engines = Engines::new(&a.contract, None);
    let valid = a.fixture("valid.mini").expect("valid");
    // duplicate unique id (E11)
    let dup = with_field(&valid, 2, 0, "i1");
    assert!(engines.accepts(&dup, "duplicate id"));
    assert_eq!(parse_codes(&dup, &a.contract), vec![Code::E11]);
    // count key (E07): k=5 but every options list has 4 elements
    let k5 = valid.replacen("|k=4", "|k=5", 1);
    assert!(engines.accepts(&k5, "count key"));
    assert!(parse_codes(&k5, &a.contract).contains(&Code::E07));
    // range (E13): difficulty 9 > max 5
    let range = with_field(&valid, 1, 6, "9");
    assert!(engines.accepts(&range, "range"));
    assert_eq!(parse_codes(&range, &a.contract), vec![Code::E13]);
}

fn parse_codes(text: &str, contract: &Contract) -> Vec<Code> {
    match mini::parse(text, contract) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().iter().map(|d| d.code()).collect(),
    }
}

#[test]
fn fixed_record_counts_use_a_repetition() {
    let fams = families();
    let c = &fams[0].contract;
    assert!(grammar(c, GrammarFormat::Gbnf, Some(12)).contains("(\"\\n\" record){12}"));
    assert!(grammar(c, GrammarFormat::Lark, Some(12)).contains("(\"\\n\" RECORD) ~ 12"));
    assert!(grammar(c, GrammarFormat::Regex, Some(12)).contains("){12}"));
    // and `n` is pinned
    let e = Engines::new(c, Some(0));
    let header = fams[0]
        .fixture("valid.mini")
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(!e.accepts(&header, "n=12 with no records"));
    assert!(e.accepts(&header.replacen("n=12", "n=0", 1), "n=0"));
    assert!(e.accepts(&header.replacen("n=12", "n=-00", 1), "n=-00"));
}

#[test]
fn gbnf_and_lark_have_the_same_rules() {
    for f in families() {
        let g = grammar(&f.contract, GrammarFormat::Gbnf, None);
        let l = grammar(&f.contract, GrammarFormat::Lark, None);
        let gnames: Vec<String> = g
            .lines()
            .filter(|x| !x.starts_with('#'))
            .map(|x| {
                x.split(" ::= ")
                    .next()
                    .unwrap()
                    .to_ascii_uppercase()
                    .replace('-', "_")
            })
            .collect();
        let lnames: Vec<String> = l
            .lines()
            .filter(|x| !x.starts_with("//"))
            .map(|x| x.split(": ").next().unwrap().to_string())
            .collect();
        assert_eq!(gnames.len(), lnames.len());
        assert_eq!(gnames[0], "ROOT");
        assert_eq!(lnames[0], "start");
        assert_eq!(gnames[1..], lnames[1..], "{}", f.name);
    }
}

#[test]
fn the_grammar_accepts_a_canonical_layout_only() {
    let fams = families();
    let card = fams.iter().find(|f| f.name == "card").expect("family card");
    let engines = Engines::new(&card.contract, None);
    let valid = card.fixture("valid.mini").expect("valid");
    // read by the parser, refused by the grammar (documented deviations)
    let blank_line = with_line(&valid, 1, |l| format!("{l}\n  "));
    let bom = format!("\u{feff}{valid}");
    let empty_entry = with_line(&valid, 0, |l| format!("{l}||"));
    for (what, text) in [
        ("blank line", &blank_line),
        ("BOM", &bom),
        ("empty header entry", &empty_entry),
    ] {
        mini::parse(text, &card.contract).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(!engines.accepts(text, what), "{what} accepted");
    }
    // a header key must be an identifier (SPEC §4): both refuse
    let odd_key = with_line(&valid, 0, |l| format!("{l}|my key=1"));
    assert!(mini::parse(&odd_key, &card.contract).is_err());
    assert!(!engines.accepts(&odd_key, "odd key"));
    // accepted by both: CRLF, blanks around values, unknown identifier keys,
    // header keys in any order, quoted list elements
    let crlf = valid.replace('\n', "\r\n");
    let padded = with_field(&valid, 1, 7, " 2.5 ");
    let unknown = with_line(&valid, 0, |l| format!("{l}|model=gpt|x_1=a=b"));
    let reordered = "card|src=x|n=1|d=2026\nc1|t|f|b||\"a, b\", c ,\"\"|L1|1.5";
    for (what, text) in [
        ("CRLF", crlf.as_str()),
        ("padded float", &padded),
        ("unknown keys", &unknown),
        ("keys in any order + quoted elements", reordered),
    ] {
        mini::parse(text, &card.contract).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(engines.accepts(text, what), "{what} rejected");
    }
}

/// The upstream strict and lenient cases, in the three engines: what the
/// grammar accepts, the strict parser accepts up to the checks no grammar
/// can make; what the parser accepts, the grammar accepts unless the layout
/// is not canonical.
#[test]
fn upstream_cases_agree_with_the_parser() {
    let dir = conformance_dir().join("cases");
    let fams = families();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("cases readable")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let (mut agree, mut total) = (0, 0);
    let mut problems = Vec::new();
    for file in files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).expect("read")).expect("json");
        for case in v["cases"].as_array().expect("cases") {
            if case["mode"] != "strict" && case["mode"] != "lenient" {
                continue;
            }
            let Some(input) = case["input"].as_str() else {
                continue;
            };
            let contract = match (&case["contract"], case["family"].as_str()) {
                (serde_json::Value::Object(_), _) => {
                    match Contract::from_value(case["contract"].clone()) {
                        Ok(c) => c,
                        Err(_) => continue,
                    }
                }
                (_, Some(fam)) => match fams.iter().find(|f| f.name == fam) {
                    Some(f) => f.contract.clone(),
                    None => continue,
                },
                _ => continue,
            };
            total += 1;
            let id = case["id"].as_str().unwrap_or("?").to_string();
            let accepted = Engines::new(&contract, None).accepts(input, &id);
            let diags = parse_diagnostics(input, &contract);
            let codes: Vec<Code> = diags.iter().map(|d| d.code()).collect();
            let verdict = classify(accepted, &diags, input);
            match verdict {
                Ok(()) => agree += 1,
                Err(why) => problems.push(format!("{id}: {why} codes={codes:?} input={input:?}")),
            }
        }
    }
    eprintln!("{agree}/{total} upstream cases agree");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(total > 300, "only {total} cases with a text input found");
}

fn parse_diagnostics(text: &str, contract: &Contract) -> Vec<mini::Diagnostic> {
    match mini::parse(text, contract) {
        Ok(_) => Vec::new(),
        Err(e) => e.diagnostics().to_vec(),
    }
}

/// A diagnostic that needs memory across fields or lines, or arithmetic:
/// the documented limits of the grammars.
fn beyond_grammar(d: &mini::Diagnostic) -> bool {
    match d.code() {
        Code::E04 | Code::E11 | Code::E13 => true,
        Code::E07 => d.message().contains("but header"),
        Code::E12 => d.message().contains("repeated"),
        Code::E06 => d.message().contains("finite double"),
        _ => false,
    }
}

/// A layout the parser reads but the grammar does not produce.
fn non_canonical_layout(input: &str) -> bool {
    let body = input.strip_suffix('\n').unwrap_or(input);
    let header = body.split('\n').next().unwrap_or_default();
    input.starts_with('\u{feff}')
        || body.split('\n').any(|l| l.trim().is_empty())
        || header.split('|').skip(1).any(|e| e.trim().is_empty())
}

fn classify(accepted: bool, diags: &[mini::Diagnostic], input: &str) -> Result<(), String> {
    if accepted && !diags.iter().all(beyond_grammar) {
        return Err("grammar accepts, parser finds errors a grammar can see".into());
    }
    if !accepted && diags.is_empty() && !non_canonical_layout(input) {
        return Err("grammar rejects a valid document of canonical layout".into());
    }
    Ok(())
}

/// A small deterministic generator (xorshift64*), to avoid a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// One random edit (insert, delete or replace one character) with the
/// characters that matter to the grammar.
fn mutate(rng: &mut Rng, doc: &str) -> String {
    const ALPHABET: [char; 21] = [
        ';', '|', '\\', ',', '*', '"', ' ', '\t', '\n', '=', '-', '.', 'e', 'x', 'n', '0', '1',
        '9', 'L', 'é', '\u{3000}',
    ];
    let chars: Vec<char> = doc.chars().collect();
    let at = rng.below(chars.len() + 1);
    let c = ALPHABET[rng.below(ALPHABET.len())];
    let mut out = chars.clone();
    match rng.below(3) {
        0 => out.insert(at, c),
        1 if at < chars.len() => {
            out.remove(at);
        }
        _ if at < chars.len() => out[at] = c,
        _ => out.push(c),
    }
    out.into_iter().collect()
}

/// Random single-character edits of small valid documents: the three
/// engines agree, and the grammar agrees with the parser up to its
/// documented limits. `MINI_GRAMMAR_ROUNDS` (default 40) sets the edits per
/// document, `MINI_GRAMMAR_SEED` the seed.
#[test]
fn random_edits_agree_with_the_parser() {
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let rounds = env("MINI_GRAMMAR_ROUNDS", 40);
    let mut rng = Rng(env("MINI_GRAMMAR_SEED", 0x9E37_79B9_7F4A_7C15) | 1);
    let (mut accepted, mut rejected) = (0, 0);
    let mut problems = Vec::new();
    for f in families() {
        let engines = Engines::new(&f.contract, None);
        let valid = f.fixture("valid.mini").expect("valid");
        let lines: Vec<&str> = valid.lines().collect();
        let header = lines[0].replacen(&format!("n={}", lines.len() - 1), "n=1", 1);
        let mut bases = vec![f.fixture("escaping.mini").expect("escaping")];
        bases.extend(lines[1..4].iter().map(|r| format!("{header}\n{r}")));
        for base in &bases {
            mini::parse(base, &f.contract).expect("base document is valid");
            for round in 0..rounds {
                let mut doc = mutate(&mut rng, base);
                if round % 4 == 3 {
                    doc = mutate(&mut rng, &doc);
                }
                let ok = engines.accepts(&doc, &format!("{} mutant", f.name));
                let diags = parse_diagnostics(&doc, &f.contract);
                if let Err(why) = classify(ok, &diags, &doc) {
                    let codes: Vec<Code> = diags.iter().map(|d| d.code()).collect();
                    problems.push(format!("{}: {why} {codes:?} {doc:?}", f.name));
                }
                if ok {
                    accepted += 1;
                } else {
                    rejected += 1;
                }
            }
        }
    }
    eprintln!("{accepted} mutants accepted, {rejected} rejected");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(accepted > 100 && rejected > 100);
}

/// Contracts the upstream families do not exercise: other separators (`;`
/// and TAB), enum values with characters that need escaping, dates,
/// decimals, every marker rule, optional tuple components, typed header
/// keys. Their synthetic examples and hand-written documents, and random
/// edits of both, behave as the parser says.
#[test]
fn odd_contracts_agree_with_the_parser() {
    let odd_enum = r#"["a*", "\"q", "x,y", "x;y", "p|q", "n"]"#;
    let contracts = [
        format!(
            r#"{{"prefix": "od", "list_separator": ";",
            "header": {{"required": ["mode"], "keys": {{
                "mode": {{"type": "enum", "values": ["x", "y"]}},
                "k": {{"type": "int"}},
                "seeds": {{"type": "list", "item": "int", "min": 1}}}}}},
            "core": [
                {{"name": "id", "type": "str", "unique": true}},
                {{"name": "day", "type": "date", "min": "2020-01-01"}},
                {{"name": "amount", "type": "decimal"}},
                {{"name": "e", "type": "enum", "values": {odd_enum}}},
                {{"name": "es", "type": "list", "item": "enum", "item_values": {odd_enum}, "max": 3}},
                {{"name": "pick", "type": "mlist", "item": "int", "marker": "at_most_one", "max": 4,
                    "json": {{"items": "pick", "selected": "picked"}}}},
                {{"name": "tags", "type": "mlist", "item": "enum", "item_values": ["u", "v"], "marker": "any",
                    "json": {{"items": "tags", "selected": "tagged"}}}},
                {{"name": "sel", "type": "mlist", "marker": "at_least_one", "count_key": "k",
                    "json": {{"items": "sel", "selected": "chosen"}}}},
                {{"name": "t", "type": "tuple", "items": [
                    {{"name": "a", "type": "str", "optional": true}},
                    {{"name": "b", "type": "date"}},
                    {{"name": "c", "type": "decimal", "optional": true}}]}},
                {{"name": "flag", "type": "bool", "optional": true}}],
            "extensions": [{{"name": "extra", "type": "float"}}]}}"#
        ),
        r#"{"prefix": "tb", "list_separator": "\t",
            "header": {"keys": {"k": {"type": "int"}}},
            "core": [
                {"name": "id", "type": "str"},
                {"name": "xs", "type": "list", "min": 1, "max": 3},
                {"name": "ts", "type": "tuple", "items": [
                    {"name": "a", "type": "int"}, {"name": "b", "type": "str", "optional": true}]},
                {"name": "ml", "type": "mlist", "marker": "exactly_one", "count_key": "k"}]}"#
            .to_string(),
        r#"{"prefix": "one", "core": [{"name": "note", "type": "str", "optional": true}],
            "extensions": [{"name": "more", "type": "int"}]}"#
            .to_string(),
    ];
    let hand_written: [&[&str]; 3] = [
        &[
            "od|mode=x|n=2|k=2|seeds=1;2\n\
             r1|2024-02-29|-0.50|p\\|q|a\\*;\\\"q;x\\;y|1*;2|u*;v*|\"a;b\"*;c|;2020-01-01;|true|1e3\n\
             r2|2021-12-31|7|a*|\"x;y\"|\"3\";4|u|\"c\"\"d\"*;\"e*\"|x;2020-01-02;1.5|",
            "od|n=1|mode=y\nr1|2020-01-01|0|\"q||||*|;2020-01-01;|",
        ],
        &[
            "tb|n=2|k=2\nr1|a\tb|1\t\"\"|x*\ty\nr2|\"a\tb\"| -2\tz |\"p\tq\"\t\"r\"*",
            // a trailing tab separator is trimmed with the field
            "tb|n=1\nr1|a\t\tb|1\t\\\t|\tx*\t",
        ],
        &["one|n=3\nx\n|5\n|"],
    ];
    let env = |k: &str, d: u64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let rounds = env("MINI_GRAMMAR_ROUNDS", 40) * 4;
    let mut rng = Rng(env("MINI_GRAMMAR_SEED", 0x5DEE_CE66_D1CE_4E5B) | 1);
    let mut problems = Vec::new();
    let mut checked = 0;
    for (text, docs) in contracts.iter().zip(hand_written) {
        let c = Contract::from_json(text).expect("test contract");
        let engines = Engines::new(&c, None);
        let mut bases: Vec<String> = docs.iter().map(|d| d.to_string()).collect();
        bases.extend((1..=3).filter_map(|n| mini_tools::prompt::example(&c, n)));
        assert!(bases.len() > docs.len(), "{}: no example", c.prefix());
        for base in &bases {
            mini::parse(base, &c)
                .unwrap_or_else(|e| panic!("{}: base invalid: {e}\n{base}", c.prefix()));
            assert!(
                engines.accepts(base, c.prefix()),
                "{}: base rejected\n{base}",
                c.prefix()
            );
            for _ in 0..rounds {
                let mut doc = mutate(&mut rng, base);
                if rng.below(3) == 0 {
                    doc = mutate(&mut rng, &doc);
                }
                let ok = engines.accepts(&doc, c.prefix());
                let diags = parse_diagnostics(&doc, &c);
                if let Err(why) = classify(ok, &diags, &doc) {
                    let codes: Vec<Code> = diags.iter().map(|d| d.code()).collect();
                    problems.push(format!("{}: {why} {codes:?} {doc:?}", c.prefix()));
                }
                checked += 1;
            }
        }
    }
    eprintln!("{checked} edits of odd contracts checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    // with a tab separator, a trailing tab is trimmed with the field: the
    // tuple has one component (E07) for both
    let c = Contract::from_json(&contracts[1]).expect("tb");
    let doc = "tb|n=1\nr1|a|1\t|x*";
    assert!(mini::parse(doc, &c).is_err());
    assert!(!Engines::new(&c, None).accepts(doc, "trailing tab"));
}

// ---- Python `lark` -------------------------------------------------------

/// The Python that runs the Python `lark` check: `MINI_LARK_PYTHON` (which
/// `.ci/run` points at the virtual environment it installs `lark` into) or
/// `python3`. `None` when it cannot import `lark`.
fn lark_python() -> Option<String> {
    let python = std::env::var("MINI_LARK_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let ok = std::process::Command::new(&python)
        .args(["-c", "import lark"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then_some(python)
}

/// Loads every grammar with `lark.Lark` (Earley, the default) and parses the
/// documents each must accept and reject; prints one line per failure.
const LARK_CHECK: &str = r#"
import json, sys, lark
failures = []
for g in json.load(sys.stdin):
    try:
        parser = lark.Lark(g["grammar"], start="start")
    except Exception as e:
        failures.append(f"{g['name']}: does not load: {type(e).__name__}: {e}")
        continue
    for doc, want in [(d, True) for d in g["accept"]] + [(d, False) for d in g["reject"]]:
        try:
            parser.parse(doc)
            got = True
        except lark.exceptions.LarkError:
            got = False
        if got != want:
            failures.append(f"{g['name']}: {'rejects' if want else 'accepts'} {doc!r}")
for f in failures:
    print(f)
print(f"{len(failures)} failures")
"#;

/// The exported Lark grammar is Lark: the Python `lark` package (the
/// reference implementation of the dialect) loads the grammar of each of the
/// 14 upstream families, accepts their valid and escaping fixtures and
/// rejects their bad ones, as llguidance does. Skipped with a note when no
/// Python with `lark` is found, except under CI (`CI` set), where that fails.
#[test]
fn every_family_grammar_loads_in_python_lark() {
    let Some(python) = lark_python() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no Python with the `lark` package was found: set \
             MINI_LARK_PYTHON to a python that can `import lark` (.ci/run installs one)"
        );
        eprintln!(
            "NOTE: every_family_grammar_loads_in_python_lark checked nothing: no Python \
             with `lark` (set MINI_LARK_PYTHON)"
        );
        return;
    };
    let mut jobs = Vec::new();
    for f in families() {
        let valid = f.fixture("valid.mini").expect("valid present");
        let escaping = f.fixture("escaping.mini").expect("escaping present");
        let bad: Vec<String> = ["bad_arity.mini", "bad_marker.mini", "bad_type.mini"]
            .iter()
            .filter_map(|n| f.fixture(n))
            .collect();
        jobs.push(serde_json::json!({
            "name": format!("{} (any count)", f.name),
            "grammar": grammar(&f.contract, GrammarFormat::Lark, None),
            "accept": [valid, escaping],
            "reject": bad,
        }));
        let n = record_count(&valid);
        jobs.push(serde_json::json!({
            "name": format!("{} (n={n})", f.name),
            "grammar": grammar(&f.contract, GrammarFormat::Lark, Some(n)),
            "accept": [valid],
            "reject": [valid.lines().take(n).collect::<Vec<_>>().join("\n")],
        }));
    }
    // a list with a lower bound only, and one with both (also in llguidance)
    let bounds = Contract::from_json(
        r#"{"prefix": "lm", "core": [{"name": "xs", "type": "list", "min": 2},
            {"name": "ys", "type": "list", "item": "int", "min": 1, "max": 3}]}"#,
    )
    .expect("contract");
    let lark = grammar(&bounds, GrammarFormat::Lark, None);
    let (good, bad) = (
        ["lm|n=1\na,b,c|1,2,3", "lm|n=2\na,b|1\nc,d,e,f|4,5"],
        ["lm|n=1\na|1", "lm|n=1\na,b|1,2,3,4", "lm|n=1\na,b|"],
    );
    let engines = Engines::new(&bounds, None);
    for d in good {
        assert!(
            engines.accepts(d, d) && mini::parse(d, &bounds).is_ok(),
            "{d}"
        );
    }
    for d in bad {
        assert!(
            !engines.accepts(d, d) && mini::parse(d, &bounds).is_err(),
            "{d}"
        );
    }
    jobs.push(serde_json::json!({
        "name": "lm (list bounds)", "grammar": lark, "accept": good, "reject": bad,
    }));
    let mut child = std::process::Command::new(&python)
        .args(["-c", LARK_CHECK])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python runs");
    let input = serde_json::to_vec(&jobs).expect("json");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        stdin.write_all(&input).expect("write to python");
    });
    let out = child.wait_with_output().expect("python finishes");
    writer.join().expect("writer");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.lines().last() == Some("0 failures"),
        "Python lark disagrees:\n{stdout}\n{stderr}"
    );
    assert_eq!(jobs.len(), 29);
}
