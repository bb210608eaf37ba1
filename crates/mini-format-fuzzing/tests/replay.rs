//! Replays the fuzz corpus on stable: every seed (`fuzz/seeds/<target>/`)
//! and every saved crash (`fuzz/regressions/<target>/`) goes through the
//! same bodies the fuzz targets run (`mini_fuzzing`), so a fixed crash
//! stays fixed and a reported one keeps failing until it is fixed.
//!
//! Run with `cargo test --features fuzzing --test fuzz_replay` (without the
//! feature this file compiles to nothing).
//!
//! `MINI_FUZZ_WRITE_SEEDS=1` first regenerates the seed files from the
//! upstream fixtures (`../shared/conformance`, or `MINI_CONFORMANCE`) and
//! the examples; only candidates that pass are written.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;

use mini::Contract;
use mini_fuzzing::{
    self, CanonicalInput, ContractSpec, Edit, Encode, Entropy, EquivalenceInput, EscapeInput,
    Marked, Rule, Separator, Seq, StreamInput, Target, Text,
};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn upstream() -> PathBuf {
    std::env::var_os("MINI_CONFORMANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/conformance"))
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    out.sort();
    out
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "non-string panic".to_string())
}

static SEEDS: Once = Once::new();

fn ensure_seeds() {
    SEEDS.call_once(|| {
        if std::env::var_os("MINI_FUZZ_WRITE_SEEDS").is_some() {
            write_seeds();
        }
    });
}

fn replay(target: Target) {
    ensure_seeds();
    let mut failures = Vec::new();
    let mut seeds = 0;
    for kind in ["seeds", "regressions"] {
        for file in files(&root().join("fuzz").join(kind).join(target.name())) {
            let bytes = std::fs::read(&file).unwrap();
            if kind == "seeds" {
                seeds += 1;
            }
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| target.run(&bytes))) {
                failures.push(format!(
                    "{kind}/{}/{}: {}",
                    target.name(),
                    file.file_name().unwrap().to_string_lossy(),
                    panic_message(&*p)
                ));
            }
        }
    }
    assert!(seeds > 0, "no seeds for {}", target.name());
    assert!(
        failures.is_empty(),
        "{} input(s) fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn replay_parse_bytes() {
    replay(Target::ParseBytes);
}

#[test]
fn replay_escape_marker_roundtrip() {
    replay(Target::EscapeMarkerRoundtrip);
}

#[test]
fn replay_canonical_roundtrip() {
    replay(Target::CanonicalRoundtrip);
}

#[test]
fn replay_stream_chunks() {
    replay(Target::StreamChunks);
}

#[test]
fn replay_contract_json() {
    replay(Target::ContractJson);
}

#[test]
fn replay_typed_roundtrip() {
    replay(Target::TypedRoundtrip);
}

#[test]
fn replay_lexer_equivalence() {
    replay(Target::LexerEquivalence);
}

#[test]
fn replay_typed_equivalence() {
    replay(Target::TypedEquivalence);
}

/// `parse`, the typed Deserializer (into `serde_json::Value` and through
/// the entry points a derived type uses) and `check` agree on every strict
/// and lenient case of the upstream suite and every fixture of its
/// families, valid or not: same canonical value, or the same diagnostics
/// in the same order with the same messages.
#[test]
fn typed_equivalence_holds_on_the_upstream_suite() {
    let mut docs: Vec<(String, Contract, String)> = Vec::new();
    for (fam, c, fixtures, _) in families() {
        for (stem, t) in fixtures {
            docs.push((format!("forks/{fam}/{stem}"), c.clone(), t));
        }
    }
    for f in files(&upstream().join("cases")) {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        for case in file["cases"].as_array().unwrap() {
            let (Some("strict" | "lenient"), Some(text)) =
                (case["mode"].as_str(), case["input"].as_str())
            else {
                continue;
            };
            let contract = match (&case["contract"], case["family"].as_str()) {
                (Value::Object(_), _) => Contract::from_value(case["contract"].clone()),
                (_, Some(fam)) => {
                    Contract::from_path(upstream().join("forks").join(fam).join("contract.json"))
                }
                _ => continue,
            };
            let Ok(c) = contract else { continue };
            let id = case["id"].as_str().unwrap_or("?");
            docs.push((format!("cases/{id}"), c, text.to_string()));
        }
    }
    let (mut valid, mut invalid, mut failures) = (0, 0, Vec::new());
    for (id, c, text) in &docs {
        if mini::parse(text, c).is_ok() {
            valid += 1;
        } else {
            invalid += 1;
        }
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| {
            mini_fuzzing::typed_equivalence_text(text, c)
        })) {
            failures.push(format!("{id}: {}", panic_message(&*p)));
        }
    }
    println!("typed equivalence: {valid} valid and {invalid} invalid upstream documents");
    assert!(
        valid > 50 && invalid > 100,
        "upstream suite not found: {valid} valid, {invalid} invalid"
    );
    assert!(
        failures.is_empty(),
        "{} of {} documents disagree:\n{}",
        failures.len(),
        docs.len(),
        failures.join("\n")
    );
}

/// The lexer's fast paths equal the `nom` grammar on every line of every
/// upstream case and fixture, under each of the four separators (the
/// fuzz target `lexer_equivalence` checks arbitrary lines).
#[test]
fn lexer_fast_paths_equal_the_grammar_on_the_suite() {
    let (inputs, _) = cases();
    let mut texts: Vec<String> = inputs.into_iter().map(|(_, _, t)| t).collect();
    for (_, _, fixtures, _) in families() {
        texts.extend(fixtures.into_values());
    }
    assert!(texts.len() > 300, "upstream suite not found");
    let mut lines = 0;
    for t in &texts {
        for l in t.lines() {
            for sep in 0..Separator::ALL.len() as u8 {
                let mut bytes = vec![sep];
                bytes.extend_from_slice(l.as_bytes());
                mini_fuzzing::lexer_equivalence(&bytes);
            }
            lines += 1;
        }
    }
    assert!(lines > 1000, "only {lines} lines");
}

#[test]
fn the_sample_documents_are_valid() {
    for (doc, c) in mini_fuzzing::sample_documents()
        .iter()
        .zip(mini_fuzzing::parse_contracts())
    {
        if let Err(e) = mini::parse(doc, c) {
            panic!("sample for '{}' is invalid: {e}\n{doc}", c.prefix());
        }
    }
}

#[test]
fn encoded_inputs_decode_to_themselves() {
    let escape = EscapeInput {
        separator: Separator::Tab,
        rule: Rule::AtLeastOne,
        header: Text::of("h|\\\"=é"),
        scalar: Text::of(" pipe | \r\n😀 "),
        list: Seq(vec![Text::of("a,b"), Text::of(""), Text::of("*\u{85}")]),
        marked: Seq(vec![
            Marked {
                text: Text::of("x*"),
                selected: true,
            },
            Marked {
                text: Text::of("\"q\""),
                selected: false,
            },
        ]),
        tuple_a: Text::of("\u{10ffff}\u{0}"),
        tuple_b: Some(Text::of(";")),
        style: 0x0123_4567_89ab_cdef,
    };
    let seed = escape.to_seed();
    assert_eq!(
        mini_fuzzing::decode::<EscapeInput>(&seed),
        Some(escape.clone())
    );
    assert_eq!(escape.scalar.string(), " pipe | \r\n😀 ");

    for c in mini_fuzzing::parse_contracts() {
        let input = CanonicalInput {
            contract: ContractSpec::like(c),
            values: Entropy(b"q|n=1\nentropy".to_vec()),
        };
        let seed = input.to_seed();
        assert_eq!(mini_fuzzing::decode::<CanonicalInput>(&seed), Some(input));
    }

    let stream = StreamInput {
        contract: 2,
        limits: 0x5a,
        cuts: vec![0, 3, 65535],
        text: b"tb|n=0\n\xff".to_vec(),
    };
    assert_eq!(
        mini_fuzzing::decode::<StreamInput>(&stream.to_seed()),
        Some(stream)
    );
}

// ---------------------------------------------------------------------------
// seed generation (MINI_FUZZ_WRITE_SEEDS=1)
// ---------------------------------------------------------------------------

/// An upstream family: name, contract, fixture texts by file stem, and
/// its `escaping.json` canonical object.
type Family = (String, Contract, BTreeMap<String, String>, Option<Value>);

/// Upstream families.
fn families() -> Vec<Family> {
    let forks = upstream().join("forks");
    let mut out = Vec::new();
    for dir in files_and_dirs(&forks) {
        let contract_path = dir.join("contract.json");
        if !contract_path.is_file() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let contract = Contract::from_path(&contract_path).unwrap();
        let mut texts = BTreeMap::new();
        for f in files(&dir.join("fixtures")) {
            if f.extension().is_some_and(|x| x == "mini") {
                let stem = f.file_stem().unwrap().to_string_lossy().to_string();
                texts.insert(stem, std::fs::read_to_string(&f).unwrap());
            }
        }
        let escaping = std::fs::read_to_string(dir.join("fixtures/escaping.json"))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        out.push((name, contract, texts, escaping));
    }
    out
}

fn files_and_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// A case input: (category, id, text).
type CaseInput = (String, String, String);

/// Case inputs of the upstream suite: (id, input text) for parse modes,
/// and the inline contracts.
fn cases() -> (Vec<CaseInput>, Vec<(String, Value)>) {
    let mut inputs = Vec::new();
    let mut contracts = Vec::new();
    for f in files(&upstream().join("cases")) {
        let file: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let category = f.file_stem().unwrap().to_string_lossy().to_string();
        for case in file["cases"].as_array().unwrap() {
            let id = case["id"].as_str().unwrap_or("case").to_string();
            match (case["mode"].as_str(), &case["input"]) {
                (Some("strict" | "lenient"), Value::String(t)) => {
                    inputs.push((category.clone(), id.clone(), t.clone()))
                }
                (Some("contract"), v) => contracts.push((id.clone(), v.clone())),
                _ => {}
            }
            if case["contract"].is_object() {
                contracts.push((format!("{id}-contract"), case["contract"].clone()));
            }
        }
    }
    (inputs, contracts)
}

fn strings_in(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings_in(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings_in(x, out)),
        _ => {}
    }
}

struct SeedSet {
    target: Target,
    seeds: Vec<(String, Vec<u8>)>,
}

impl SeedSet {
    fn new(target: Target) -> Self {
        SeedSet {
            target,
            seeds: Vec::new(),
        }
    }

    fn add(&mut self, name: &str, bytes: Vec<u8>) {
        let name: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        self.seeds.push((name, bytes));
    }

    /// Writes the candidates that pass (one that fails is a finding, not
    /// a seed: it is printed and left out).
    fn write(self, limit: usize) {
        let dir = root().join("fuzz/seeds").join(self.target.name());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut written = 0;
        for (name, bytes) in self.seeds {
            if written == limit {
                break;
            }
            let target = self.target;
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| target.run(&bytes))) {
                eprintln!(
                    "seed candidate {}/{name} fails, not written: {}",
                    target.name(),
                    panic_message(&*p)
                );
                continue;
            }
            std::fs::write(dir.join(&name), &bytes).unwrap();
            written += 1;
        }
        eprintln!("wrote {written} seeds for {}", self.target.name());
    }
}

/// Cut points that fall inside the interesting places of a text: escapes,
/// quotes, markers, line breaks and multi-byte characters.
fn cuts(text: &str, salt: usize) -> Vec<u16> {
    let mut out = Vec::new();
    for (i, c) in text.char_indices() {
        let interesting = matches!(c, '\\' | '"' | '*' | '\n' | '\r' | '|') || c.len_utf8() > 1;
        if interesting && (i + salt) % 3 == 0 {
            out.push((i + 1) as u16);
        }
        if out.len() == 16 {
            break;
        }
    }
    out
}

fn write_seeds() {
    let families = families();
    assert!(
        families.len() >= 14,
        "upstream families not found under {}",
        upstream().display()
    );
    let (case_inputs, case_contracts) = cases();
    let examples: Vec<(String, String)> = files(&root().join("examples"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "mini"))
        .map(|p| {
            (
                p.file_stem().unwrap().to_string_lossy().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    let example_contracts: Vec<(String, String)> = files_and_dirs(&root().join("examples/forks"))
        .into_iter()
        .filter(|d| d.join("contract.json").is_file())
        .map(|d| {
            (
                d.file_name().unwrap().to_string_lossy().to_string(),
                std::fs::read_to_string(d.join("contract.json")).unwrap(),
            )
        })
        .collect();

    // texts: samples, examples, escaping fixtures, bad fixtures of `a`,
    // three small cases of each parsing category
    let mut texts: Vec<(String, String)> = Vec::new();
    for (doc, c) in mini_fuzzing::sample_documents()
        .iter()
        .zip(mini_fuzzing::parse_contracts())
    {
        texts.push((format!("sample-{}.mini", c.prefix()), doc.to_string()));
    }
    for (name, t) in &examples {
        texts.push((format!("example-{name}.mini"), t.clone()));
    }
    for (fam, _, fx, _) in &families {
        if let Some(t) = fx.get("escaping") {
            texts.push((format!("fx-{fam}-escaping.mini"), t.clone()));
        }
        if fam == "a" {
            for (stem, t) in fx.iter().filter(|(s, _)| s.as_str() != "escaping") {
                texts.push((format!("fx-a-{stem}.mini"), t.clone()));
            }
        }
    }
    let mut per_category: BTreeMap<&str, usize> = BTreeMap::new();
    for (cat, id, t) in &case_inputs {
        let wanted = [
            "escapes",
            "quotes",
            "mlist",
            "lists",
            "truncation",
            "header",
            "tuples",
        ];
        if !wanted.contains(&cat.as_str()) || t.len() > 600 {
            continue;
        }
        let n = per_category.entry(cat).or_default();
        if *n < 3 {
            *n += 1;
            texts.push((format!("case-{id}.mini"), t.clone()));
        }
    }

    let mut parse = SeedSet::new(Target::ParseBytes);
    for (name, t) in &texts {
        parse.add(name, t.as_bytes().to_vec());
    }
    parse.write(48);

    let mut stream = SeedSet::new(Target::StreamChunks);
    for (i, (name, t)) in texts.iter().enumerate() {
        let input = StreamInput {
            contract: (i % mini_fuzzing::parse_contracts().len()) as u8,
            limits: (i * 37 % 256) as u8,
            cuts: cuts(t, i),
            text: t.as_bytes().to_vec(),
        };
        stream.add(name, input.to_seed());
    }
    stream.write(40);

    let mut escape = SeedSet::new(Target::EscapeMarkerRoundtrip);
    let mut pools: Vec<(String, Vec<String>)> = Vec::new();
    for (fam, _, _, esc) in &families {
        if let Some(v) = esc {
            let mut s = Vec::new();
            strings_in(v, &mut s);
            pools.push((format!("fx-{fam}-escaping"), s));
        }
    }
    for (name, t) in &examples {
        pools.push((
            format!("example-{name}"),
            t.split(['|', '\n']).map(str::to_string).collect(),
        ));
    }
    for (i, (name, pool)) in pools.iter().enumerate() {
        if pool.len() < 4 {
            continue;
        }
        let at = |k: usize| Text::of(&pool[(k * 7 + i) % pool.len()]);
        let input = EscapeInput {
            separator: Separator::ALL[i % 4],
            rule: Rule::ALL[(i / 4) % 4],
            header: at(0),
            scalar: at(1),
            list: Seq((2..5).map(at).collect()),
            marked: Seq((5..8)
                .map(|k| Marked {
                    text: at(k),
                    selected: (k + i) % 2 == 0,
                })
                .collect()),
            tuple_a: at(8),
            tuple_b: (i % 3 != 0).then(|| at(9)),
            style: 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1),
        };
        escape.add(
            &format!("{name}-{}", Separator::ALL[i % 4].char().escape_debug()),
            input.to_seed(),
        );
    }
    escape.write(40);

    let mut canonical = SeedSet::new(Target::CanonicalRoundtrip);
    for (fam, c, fx, _) in &families {
        let entropy = fx
            .get("valid")
            .map(|t| t.as_bytes()[..t.len().min(1024)].to_vec());
        let input = CanonicalInput {
            contract: ContractSpec::like(c),
            values: Entropy(entropy.unwrap_or_default()),
        };
        canonical.add(&format!("fx-{fam}"), input.to_seed());
    }
    for (i, (doc, c)) in mini_fuzzing::sample_documents()
        .iter()
        .zip(mini_fuzzing::parse_contracts())
        .enumerate()
    {
        let input = CanonicalInput {
            contract: ContractSpec::like(c),
            values: Entropy(
                doc.as_bytes()
                    .iter()
                    .map(|b| b.wrapping_mul(i as u8 + 3))
                    .collect(),
            ),
        };
        canonical.add(&format!("sample-{}", c.prefix()), input.to_seed());
    }
    for (name, json) in &example_contracts {
        let c = Contract::from_json(json).unwrap();
        let input = CanonicalInput {
            contract: ContractSpec::like(&c),
            values: Entropy(json.as_bytes()[..json.len().min(1024)].to_vec()),
        };
        canonical.add(&format!("example-{name}"), input.to_seed());
    }
    canonical.write(40);

    let mut contracts = SeedSet::new(Target::ContractJson);
    let mut add_json = |name: &str, text: &str| {
        let mut bytes = vec![0u8];
        bytes.extend_from_slice(text.as_bytes());
        contracts.add(name, bytes);
    };
    for (fam, c, _, _) in &families {
        add_json(
            &format!("fx-{fam}.json"),
            &serde_json::to_string_pretty(c).unwrap(),
        );
    }
    for (name, json) in &example_contracts {
        add_json(&format!("example-{name}.json"), json);
    }
    for c in mini_fuzzing::parse_contracts() {
        add_json(
            &format!("fuzz-{}.json", c.prefix()),
            &serde_json::to_string(c).unwrap(),
        );
    }
    for (id, v) in case_contracts
        .iter()
        .filter(|(id, _)| !id.ends_with("-contract"))
    {
        add_json(&format!("case-{id}.json"), &v.to_string());
    }
    for (i, (id, _, t)) in case_inputs.iter().take(4).enumerate() {
        let mut bytes = vec![1u8 + 2 * i as u8];
        bytes.extend_from_slice(id.as_bytes());
        bytes.extend_from_slice(t.as_bytes());
        contracts.add(&format!("generated-{i}.bin"), bytes);
    }
    contracts.write(48);

    // lexer: one line each (escapes and quotes first), the separator byte
    // cycling through the four separators
    let mut lexer = SeedSet::new(Target::LexerEquivalence);
    let mut lines: Vec<(String, &str)> = Vec::new();
    for (name, t) in &texts {
        for (k, l) in t.lines().enumerate() {
            if l.contains(['\\', '"']) {
                lines.push((format!("{name}-{}", k + 1), l));
            }
        }
    }
    for (i, (name, l)) in lines.iter().enumerate() {
        let mut bytes = vec![i as u8];
        bytes.extend_from_slice(l.as_bytes());
        lexer.add(name, bytes);
    }
    lexer.write(48);

    // typed equivalence: each contract with a valid document and with one
    // of the edit plans below (the values drawn from a fixture's text)
    {
        let plans: Vec<Vec<Edit>> = vec![
            vec![Edit::Cut(0x0140)],
            vec![Edit::Token {
                line: 1,
                field: 2,
                token: 1,
            }],
            vec![Edit::RepeatLine(1)],
            vec![Edit::Element {
                line: 1,
                field: 3,
                elem: 0,
                op: 0,
            }],
            vec![Edit::Escape { at: 24, c: 8 }],
            vec![Edit::SetN(5)],
            vec![Edit::ShortLine { line: 2, keep: 2 }],
            vec![Edit::DropLine(0)],
            vec![
                Edit::Token {
                    line: 2,
                    field: 1,
                    token: 12,
                },
                Edit::Element {
                    line: 1,
                    field: 1,
                    elem: 1,
                    op: 2,
                },
            ],
            vec![Edit::ExtraField {
                line: 1,
                text: Text::of("extra"),
            }],
            vec![Edit::Insert {
                at: 30,
                text: Text::of("\"\r\n"),
            }],
        ];
        let mut sources: Vec<(String, Contract, Vec<u8>)> = Vec::new();
        for (fam, c, fx, _) in &families {
            let entropy = fx
                .get("valid")
                .map(|t| t.as_bytes()[..t.len().min(1024)].to_vec());
            sources.push((format!("fx-{fam}"), c.clone(), entropy.unwrap_or_default()));
        }
        for (doc, c) in mini_fuzzing::sample_documents()
            .iter()
            .zip(mini_fuzzing::parse_contracts())
        {
            sources.push((
                format!("sample-{}", c.prefix()),
                c.clone(),
                doc.as_bytes().to_vec(),
            ));
        }
        for (name, json) in &example_contracts {
            let c = Contract::from_json(json).unwrap();
            let entropy = json.as_bytes()[..json.len().min(1024)].to_vec();
            sources.push((format!("example-{name}"), c, entropy));
        }
        let mut equivalence = SeedSet::new(Target::TypedEquivalence);
        for (i, (name, c, entropy)) in sources.iter().enumerate() {
            let spec = ContractSpec::like(c);
            let valid = EquivalenceInput {
                contract: spec.clone(),
                edits: Seq(Vec::new()),
                values: Entropy(entropy.clone()),
            };
            equivalence.add(&format!("{name}-valid"), valid.to_seed());
            let edited = EquivalenceInput {
                contract: spec,
                edits: Seq(plans[i % plans.len()].clone()),
                values: Entropy(entropy.clone()),
            };
            equivalence.add(&format!("{name}-edited"), edited.to_seed());
        }
        equivalence.write(48);
    }

    // typed: any bytes decode to a value; the texts give varied strings
    {
        let mut typed = SeedSet::new(Target::TypedRoundtrip);
        for (name, t) in texts.iter().take(24) {
            typed.add(name, t.as_bytes()[..t.len().min(1024)].to_vec());
        }
        typed.write(24);
    }
}
