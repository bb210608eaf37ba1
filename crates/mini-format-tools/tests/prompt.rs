//! The specification block (`mini_tools::prompt`) for the 14 upstream families,
//! read from `../shared/conformance` (relative to the crate root) or from
//! `MINI_CONFORMANCE`, in both languages.

use std::path::PathBuf;

use mini::contract::{Kind, MarkerRule, ScalarType};
use mini::Contract;
use mini_tools::prompt::{example, spec_block, Lang};

fn conformance_dir() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join("../shared/conformance"),
    }
}

fn families() -> Vec<(String, Contract)> {
    let forks = conformance_dir().join("forks");
    assert!(
        forks.is_dir(),
        "the upstream families are not at {}: put the suite at ../shared/conformance \
         (next to the crate) or set MINI_CONFORMANCE=/path/to/conformance",
        forks.display()
    );
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&forks).expect("forks readable") {
        let dir = entry.expect("entry").path();
        let path = dir.join("contract.json");
        if path.is_file() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, Contract::from_path(&path).expect("valid contract")));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(out.len(), 14, "the upstream suite has 14 families");
    out
}

const LANGS: [Lang; 2] = [Lang::En, Lang::Es];

fn example_of(block: &str, lang: Lang) -> Option<&str> {
    let marker = match lang {
        Lang::En => "Valid example:\n",
        Lang::Es => "Ejemplo válido:\n",
    };
    block.split(marker).nth(1)
}

#[test]
fn title_description_and_header_shape() {
    for (name, c) in families() {
        for lang in LANGS {
            let b = spec_block(&c, lang, None);
            let first = b.lines().next().unwrap();
            assert!(
                first.contains(&format!("'{}'", c.prefix())),
                "{name}: {first}"
            );
            assert!(
                first.contains(&format!("v{}", c.version())),
                "{name}: {first}"
            );
            if let Some(n) = c.meta("name") {
                assert!(first.contains(n), "{name}: {first}");
            }
            if let Some(d) = c.meta("description") {
                assert!(b.contains(d), "{name}: description missing");
            }
            // header shape: prefix|n=<int> first, every key but v, optional ones marked
            let shape_start = format!("'{}|n=<int>", c.prefix());
            let shape_line = b
                .lines()
                .find(|l| l.contains(&shape_start))
                .unwrap_or_else(|| panic!("{name}: no header shape"));
            for k in c.header_keys() {
                let entry = format!("{}=<", k.name);
                if k.name == "v" {
                    assert!(
                        !shape_line.contains("|v=<"),
                        "{name}: v in the header shape"
                    );
                    continue;
                }
                let at = shape_line
                    .find(&format!("|{entry}"))
                    .unwrap_or_else(|| panic!("{name}: header key {} missing", k.name));
                let rest = &shape_line[at + 1..];
                let end = rest.find(['|', '\'']).unwrap();
                assert_eq!(
                    rest[..end].ends_with('?'),
                    !k.required,
                    "{name}/{}: optional marker",
                    k.name
                );
            }
            let n_rule = match lang {
                Lang::En => "must equal the exact number of record lines",
                Lang::Es => "debe ser igual al número exacto de líneas de registro",
            };
            assert!(b.contains(n_rule), "{name}: n rule");
        }
    }
}

#[test]
fn every_field_enum_value_count_key_and_rule_is_stated() {
    for (name, c) in families() {
        for lang in LANGS {
            let b = spec_block(&c, lang, None);
            for (i, f) in c.fields().iter().enumerate() {
                let line = b
                    .lines()
                    .find(|l| l.starts_with(&format!("  {}. {}: ", i + 1, f.name)))
                    .unwrap_or_else(|| panic!("{name}: field {} ({}) missing", i + 1, f.name));
                if let Some(d) = &f.desc {
                    assert!(line.contains(d.as_str()), "{name}/{}: desc", f.name);
                }
                let optional = lang_pick(lang, "optional", "opcional");
                assert_eq!(
                    line.contains(optional),
                    f.optional,
                    "{name}/{}: optional",
                    f.name
                );
                let unique = lang_pick(lang, "unique", "único");
                assert_eq!(line.contains(unique), f.unique, "{name}/{}: unique", f.name);
                match &f.kind {
                    Kind::Scalar(s) => {
                        assert!(line.contains(s.ty.name()), "{name}/{}: type", f.name);
                        for v in &s.values {
                            assert!(line.contains(v.as_str()), "{name}/{}: value {v}", f.name);
                        }
                        if let Some(m) = &s.min {
                            assert!(
                                line.contains(&mini::__private::check::bound_text(m)),
                                "{name}/{}: min",
                                f.name
                            );
                        }
                        if let Some(m) = &s.max {
                            assert!(
                                line.contains(&mini::__private::check::bound_text(m)),
                                "{name}/{}: max",
                                f.name
                            );
                        }
                    }
                    Kind::List { item, arity } | Kind::MList { item, arity, .. } => {
                        assert!(line.contains(item.ty.name()), "{name}/{}: item", f.name);
                        for v in &item.values {
                            assert!(
                                line.contains(v.as_str()),
                                "{name}/{}: item value {v}",
                                f.name
                            );
                        }
                        if let Some(k) = &arity.count_key {
                            assert!(
                                line.contains(&format!("'{k}'")),
                                "{name}/{}: count key",
                                f.name
                            );
                            // and the header key says what it counts
                            let key_line = b
                                .lines()
                                .find(|l| l.trim_start().starts_with(&format!("{k}: ")))
                                .unwrap_or_else(|| panic!("{name}: header key {k} undocumented"));
                            assert!(
                                key_line.contains(&f.name),
                                "{name}: {k} does not name {}",
                                f.name
                            );
                        }
                        for bound in [arity.min, arity.max].into_iter().flatten() {
                            if bound > 0 {
                                assert!(
                                    line.contains(&bound.to_string()),
                                    "{name}/{}: arity",
                                    f.name
                                );
                            }
                        }
                        if let Kind::MList { marker, .. } = &f.kind {
                            let rule = match (marker, lang) {
                                (MarkerRule::ExactlyOne, Lang::En) => "exactly one element carries",
                                (MarkerRule::ExactlyOne, Lang::Es) => {
                                    "exactamente un elemento lleva"
                                }
                                (MarkerRule::AtLeastOne, Lang::En) => {
                                    "at least one element carries"
                                }
                                (MarkerRule::AtLeastOne, Lang::Es) => "al menos un elemento lleva",
                                (MarkerRule::AtMostOne, Lang::En) => "at most one element carries",
                                (MarkerRule::AtMostOne, Lang::Es) => {
                                    "como máximo un elemento lleva"
                                }
                                (MarkerRule::Any, Lang::En) => "any number of elements",
                                (MarkerRule::Any, Lang::Es) => "cualquier número de elementos",
                            };
                            assert!(line.contains(rule), "{name}/{}: marker rule", f.name);
                        }
                    }
                    Kind::Tuple(comps) => {
                        let layout: Vec<&str> = comps.iter().map(|x| x.name.as_str()).collect();
                        assert!(
                            line.contains(&format!(
                                "'{}'",
                                layout.join(&c.separator().to_string())
                            )),
                            "{name}/{}: tuple layout",
                            f.name
                        );
                        for comp in comps {
                            assert!(
                                line.contains(&format!("{}: {}", comp.name, comp.scalar.ty.name())),
                                "{name}/{}: component {}",
                                f.name,
                                comp.name
                            );
                            for v in &comp.scalar.values {
                                assert!(
                                    line.contains(v.as_str()),
                                    "{name}/{}: tuple value {v}",
                                    f.name
                                );
                            }
                        }
                    }
                }
            }
            // every header key's enum values and tuple components too
            for k in c.header_keys().iter().filter(|k| k.name != "v") {
                let key_line = b
                    .lines()
                    .find(|l| l.trim_start().starts_with(&format!("{}: ", k.name)))
                    .unwrap_or_else(|| panic!("{name}: header key {} undocumented", k.name));
                if let Kind::Tuple(comps) = &k.kind {
                    for comp in comps {
                        assert!(
                            key_line.contains(&comp.name),
                            "{name}/{}: {}",
                            k.name,
                            comp.name
                        );
                    }
                }
            }
        }
    }
}

fn lang_pick(lang: Lang, en: &'static str, es: &'static str) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Es => es,
    }
}

#[test]
fn lexical_rules_and_arity_are_stated() {
    for (name, c) in families() {
        let sep = c.separator();
        for lang in LANGS {
            let b = spec_block(&c, lang, None);
            for needle in [
                // one advice for a separator inside an element: escape it
                // (the repair prompt says the same)
                format!("a\\{sep} b*"),
                format!("'\\{sep}'"),
                "'\\*'".to_string(),
                "'\\|'".to_string(),
                "'\\\\'".to_string(),
                "'\\n'".to_string(),
                "true/false".to_string(),
            ] {
                assert!(b.contains(&needle), "{name}/{lang}: {needle} missing");
            }
            assert!(!b.contains("double quotes CSV-style"), "{name}/{lang}");
            let (one_line, unquoted, null) = match lang {
                Lang::En => (
                    "ONE line per record",
                    "Numbers unquoted",
                    "An empty field means null",
                ),
                Lang::Es => (
                    "UNA línea por registro",
                    "Números sin comillas",
                    "Un campo vacío significa nulo",
                ),
            };
            assert!(
                b.contains(one_line) && b.contains(unquoted) && b.contains(null),
                "{name}/{lang}"
            );
            let core = c.core().len();
            let ext = c.extensions().len();
            let arity = match (ext, lang) {
                (0, Lang::En) => format!("exactly {core} fields"),
                (0, Lang::Es) => format!("exactamente {core} campos"),
                (1, Lang::En) => format!("{core} core fields + up to 1 extension field ("),
                (e, Lang::En) => format!("{core} core fields + up to {e} extension fields"),
                (e, Lang::Es) => format!("{core} campos núcleo + hasta {e} de extensión"),
            };
            assert!(b.contains(&arity), "{name}/{lang}: record arity");
            // extensions are numbered after the core
            for (i, f) in c.extensions().iter().enumerate() {
                assert!(b.contains(&format!("  {}. {}: ", core + i + 1, f.name)));
            }
            // no example unless asked
            assert!(example_of(&b, lang).is_none());
        }
    }
}

#[test]
fn examples_parse_strictly_under_their_contract() {
    let mut parsed = 0;
    for (name, c) in families() {
        for lang in LANGS {
            for n in [1usize, 2, 3, 5] {
                let b = spec_block(&c, lang, Some(n));
                let ex = example_of(&b, lang)
                    .unwrap_or_else(|| panic!("{name}/{lang}: no example for {n} records"));
                let doc = mini::parse(ex, &c)
                    .unwrap_or_else(|e| panic!("{name}/{lang}: example does not parse: {e}\n{ex}"));
                assert_eq!(doc.records().len(), n, "{name}");
                assert_eq!(ex.lines().count(), n + 1, "{name}: one line per record");
                parsed += 1;
            }
        }
    }
    assert_eq!(parsed, 14 * 2 * 4);
}

#[test]
fn examples_follow_the_rules_they_illustrate() {
    for (name, c) in families() {
        let ex = example(&c, 4).unwrap_or_else(|| panic!("{name}: no example"));
        let doc = mini::parse(&ex, &c).unwrap();
        let canonical = doc.to_canonical();
        let rows = canonical[c.records_key()].as_array().unwrap();
        for (i, f) in c.fields().iter().enumerate() {
            match &f.kind {
                Kind::Scalar(s) if s.ty == ScalarType::Enum && !f.unique => {
                    // the first enum value (when present)
                    if let Some(v) = rows[0].get(&f.name) {
                        assert_eq!(
                            v,
                            &serde_json::Value::String(s.values[0].clone()),
                            "{name}/{}",
                            f.name
                        );
                    }
                }
                Kind::MList {
                    marker,
                    arity,
                    items_key,
                    selected_key,
                    ..
                } => {
                    let items = rows[0][items_key].as_array().unwrap();
                    if let Some(k) = &arity.count_key {
                        assert_eq!(canonical["header"][k], items.len(), "{name}: count key {k}");
                    }
                    let sel = &rows[0][selected_key];
                    match marker {
                        MarkerRule::ExactlyOne | MarkerRule::AtMostOne => assert_eq!(sel, 0),
                        _ => assert_eq!(sel, &serde_json::json!([0])),
                    }
                }
                _ => {}
            }
            if f.unique {
                let vals: Vec<String> = rows.iter().map(|r| r[&f.name].to_string()).collect();
                let mut dedup = vals.clone();
                dedup.sort();
                dedup.dedup();
                assert_eq!(dedup.len(), vals.len(), "{name}: field {i} repeats");
            }
        }
    }
}

#[test]
fn an_impossible_example_is_omitted() {
    let c = Contract::from_json(
        r#"{"prefix": "b", "core": [{"name": "flag", "type": "bool", "unique": true}]}"#,
    )
    .unwrap();
    let b = spec_block(&c, Lang::En, Some(3));
    assert!(example_of(&b, Lang::En).is_none());
    assert!(b.contains("flag: bool"));
    let b = spec_block(&c, Lang::En, Some(2));
    assert!(example_of(&b, Lang::En).is_some());
}

#[test]
fn languages_parse() {
    assert_eq!("es".parse::<Lang>(), Ok(Lang::Es));
    assert_eq!("EN".parse::<Lang>(), Ok(Lang::En));
    assert!("fr".parse::<Lang>().is_err());
    assert_eq!(Lang::Es.to_string(), "es");
}

/// The lists of free text with no count key are named, and escaping is
/// stressed for exactly them.
#[test]
fn unguarded_text_lists_are_singled_out() {
    let c = mini::Contract::from_json(
        r#"{"prefix": "t", "header": {"keys": {"k": {"type": "int"}}},
            "core": [{"name": "tags", "type": "list"},
                     {"name": "opts", "type": "mlist", "count_key": "k"},
                     {"name": "nums", "type": "list", "item": "int"}]}"#,
    )
    .expect("contract");
    let b = spec_block(&c, Lang::En, None);
    let line = b
        .lines()
        .find(|l| l.starts_with("- Take special care in"))
        .expect("the warning line");
    assert!(line.starts_with("- Take special care in tags:"), "{line}");
    assert!(line.contains("'\\,'"), "{line}");
    let es = spec_block(&c, Lang::Es, None);
    assert!(es.contains("- Cuidado especial en tags:"), "{es}");
    let plain =
        mini::Contract::from_json(r#"{"prefix": "t", "core": [{"name": "a", "type": "str"}]}"#)
            .expect("contract");
    assert!(!spec_block(&plain, Lang::En, None).contains("Take special care"));
}

#[test]
fn the_example_takes_the_examples_the_descriptions_give() {
    use mini_tools::sample::desc_example;
    assert_eq!(
        desc_example("psychometric model, e.g. IRT3PL").as_deref(),
        Some("IRT3PL")
    );
    assert_eq!(
        desc_example("a team (e.g. 'Billing'), free text").as_deref(),
        Some("Billing")
    );
    assert_eq!(
        desc_example("código, p. ej. ES-MAD; otro").as_deref(),
        Some("ES-MAD")
    );
    assert_eq!(desc_example("such as: Madrid").as_deref(), Some("Madrid"));
    assert_eq!(desc_example("question identifier"), None);
    assert_eq!(desc_example("e.g."), None);
    let c = Contract::from_json(
        r#"{"prefix": "t", "header": {"keys": {"model": {"type": "str", "desc": "model, e.g. IRT3PL"}},
                                      "required": ["n", "model"]},
            "core": [{"name": "id", "type": "str", "unique": true, "desc": "ticket id, e.g. T-100"},
                     {"name": "team", "type": "str", "desc": "owning team, e.g. Billing"},
                     {"name": "note", "type": "str", "desc": "free text"}]}"#,
    )
    .unwrap();
    let block = spec_block(&c, Lang::En, Some(2));
    assert!(
        block.contains("t|n=2|model=IRT3PL\nT-100|Billing|note\nT-100-2|Billing|note"),
        "{block}"
    );
}
