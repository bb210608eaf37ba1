//! Fork tooling: `list_families`, `check_forks` and `new_fork` on the 14
//! upstream families and on broken or scaffolded families in temporary
//! directories.
//!
//! The families are read from `../shared/conformance/forks` (relative to
//! the crate root) or from `$MINI_CONFORMANCE/forks`; they are only ever
//! copied into `std::env::temp_dir()` subfolders, removed at the end.

use std::path::{Path, PathBuf};

use mini::{Code, Contract};
use mini_tools::family::{
    check_forks, field_spec, list_families, new_fork, parse_field_arg, render_families, FamilyCheck,
};
use serde_json::{json, Value};

fn forks_dir() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join("../shared/conformance"),
    }
    .join("forks")
}

/// A temporary directory removed on drop (even when the test fails).
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("mini-family-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).expect("temp dir");
        TempDir(p)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let p = e.expect("entry").path();
        let dest = to.join(p.file_name().expect("name"));
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

fn copy_family(tmp: &TempDir, prefix: &str) {
    copy_dir(&forks_dir().join(prefix), &tmp.0.join(prefix));
}

fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json");
    edit(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).expect("json")).expect("write");
}

fn family<'a>(report: &'a mini_tools::family::CheckReport, folder: &str) -> &'a FamilyCheck {
    report
        .families
        .iter()
        .find(|f| f.folder == folder)
        .unwrap_or_else(|| panic!("no family {folder}"))
}

#[test]
fn upstream_forks_all_pass() {
    let report = check_forks(forks_dir()).expect("readable");
    let text = report.render();
    assert!(report.ok, "{text}");
    assert_eq!(report.families.len(), 14);
    assert_eq!(
        text.lines().last(),
        Some("ALL FORKS PASS (14 forks)"),
        "{text}"
    );
    assert!(
        text.contains("q      ok  (12 records, 8 fixtures, lineage q -> a)"),
        "{text}"
    );
    for f in &report.families {
        assert!(f.passed(), "{}: {:?}", f.folder, f.problems);
        assert!(f.records.unwrap_or(0) > 0);
        assert!(f.fixtures.iter().any(|x| x == "escaping.mini"));
        assert!(f.fixtures.iter().any(|x| x.starts_with("bad_")));
    }
}

#[test]
fn list_families_matches_the_upstream_registry_index() {
    let families = list_families(forks_dir()).expect("families");
    assert_eq!(families.len(), 14);
    let ours = serde_json::to_value(&families).expect("serialize");
    let text = std::fs::read_to_string(forks_dir().join("registry.json")).expect("registry.json");
    let upstream: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(ours, upstream);
    let a = &families[0];
    assert_eq!(
        a.signature,
        "id:str | bloom:enum{L1|L2|L3|L4|L5|L6} | topic:str | statement:str | \
         options:mlist<str>[2..6]*1 | irt:tuple(a:float,b:float,c:float) | difficulty:int[1..5] | \
         cat:tuple(area:str,exposure_cap:float,demand:enum)"
    );
    let lines = render_families(&families);
    assert!(
        lines.contains("q      v1  parent=a      arity= 8+3  Formative quiz items"),
        "{lines}"
    );
    assert_eq!(lines.lines().count(), 14);
}

#[test]
fn broken_families_fail_with_their_reasons() {
    let tmp = TempDir::new("broken");
    for p in ["a", "card", "q", "cls"] {
        copy_family(&tmp, p);
    }
    // card: canonical.json no longer matches valid.mini
    edit_json(&tmp.0.join("card/fixtures/canonical.json"), |v| {
        v["cards"][1]["back"] = json!("something else")
    });
    // q: its parent is gone
    edit_json(&tmp.0.join("q/contract.json"), |v| {
        v["parent"] = json!("nope")
    });
    // cls → fork of a that retypes an inherited field
    edit_json(&tmp.0.join("cls/contract.json"), |v| {
        let mut a: Value = serde_json::from_str(
            &std::fs::read_to_string(forks_dir().join("a/contract.json")).expect("a"),
        )
        .expect("json");
        a["prefix"] = json!("cls");
        a["parent"] = json!("a");
        a["core"][6]["type"] = json!("str");
        a["core"][6].as_object_mut().expect("field").remove("min");
        a["core"][6].as_object_mut().expect("field").remove("max");
        *v = a;
    });
    // bad: an invalid contract
    std::fs::create_dir_all(tmp.0.join("bad")).expect("mkdir");
    std::fs::write(
        tmp.0.join("bad/contract.json"),
        r#"{"prefix": "bad", "core": []}"#,
    )
    .expect("write");
    // valid.mini with a trailing blank line too many still compares (rstrip)
    let valid = tmp.0.join("a/fixtures/valid.mini");
    let mut text = std::fs::read_to_string(&valid).expect("read");
    text.push('\n');
    std::fs::write(&valid, text).expect("write");

    let report = check_forks(&tmp.0).expect("readable");
    let text = report.render();
    assert!(!report.ok);
    assert_eq!(report.failed(), 4, "{text}");
    assert_eq!(
        text.lines().last(),
        Some("4 FORK(S) FAIL (5 forks)"),
        "{text}"
    );
    assert!(family(&report, "a").passed(), "{text}");

    let card = family(&report, "card");
    assert_eq!(card.problems.len(), 2, "{text}");
    assert!(card.problems[0].message.contains(
        "valid.mini parses to a canonical object that differs from canonical.json at cards[1].back"
    ));
    assert!(card.problems[1]
        .message
        .contains("canonical.json does not serialize to valid.mini byte for byte (line 3"));

    let q = family(&report, "q");
    assert_eq!(q.problems.len(), 1, "{text}");
    assert_eq!(q.problems[0].code, Some(Code::E21));
    assert!(q.problems[0].message.contains("parent family 'nope'"));
    assert_eq!(q.lineage, ["q", "nope"]);

    let cls = family(&report, "cls");
    assert_eq!(cls.problems[0].code, Some(Code::E21), "{text}");
    assert!(cls.problems[0]
        .message
        .contains("I3: field 'difficulty' changes type"));
    // its old fixtures no longer fit the new contract either
    assert!(cls.problems.len() > 1);

    let bad = family(&report, "bad");
    assert!(bad.prefix.is_none());
    assert_eq!(bad.problems[0].code, Some(Code::E20));
    assert!(
        text.contains("bad    FAIL\n  - E20: contract.json:"),
        "{text}"
    );
}

#[test]
fn misplaced_and_duplicate_prefixes_fail() {
    let tmp = TempDir::new("dup");
    copy_family(&tmp, "s");
    copy_dir(&forks_dir().join("s"), &tmp.0.join("s2"));
    std::fs::remove_file(tmp.0.join("s/fixtures/bad_type.mini")).expect("rm");
    std::fs::write(tmp.0.join("s/fixtures/bad_extra.mini"), "s|n=0").expect("write");
    let report = check_forks(&tmp.0).expect("readable");
    let s = family(&report, "s");
    assert_eq!(s.problems.len(), 1, "{}", report.render());
    assert!(s.problems[0]
        .message
        .contains("bad_extra.mini should be rejected"));
    let s2 = family(&report, "s2");
    let msgs: Vec<&str> = s2.problems.iter().map(|p| p.message.as_str()).collect();
    assert!(msgs
        .iter()
        .any(|m| m.contains("must be named after its prefix 's'")));
    assert!(msgs
        .iter()
        .any(|m| m.contains("declared by another folder")));
}

#[test]
fn new_fork_from_a_parent_passes_check_forks() {
    let tmp = TempDir::new("fork");
    copy_family(&tmp, "a");
    copy_family(&tmp, "q");
    let path = new_fork(
        &tmp.0,
        "quiz2",
        Some("a"),
        &[("feedback", "str"), ("level", "enum{easy|hard}")],
    )
    .expect("new fork");
    assert_eq!(path, tmp.0.join("quiz2/contract.json"));
    let c = Contract::from_path(&path).expect("contract");
    assert_eq!(c.parent(), Some("a"));
    assert_eq!(c.core().len(), 8);
    assert_eq!(c.extensions().len(), 2);
    assert!(c.extensions().iter().all(|f| f.optional));
    assert_eq!(c.header_key("k").map(|k| k.required), Some(false));
    // a fork of a fork keeps the parent's extensions optional
    new_fork(
        &tmp.0,
        "q3",
        Some("q"),
        &[("tags", "list<str>[0..4]"), ("pick", "mlist<{x|y|z}>*1+")],
    )
    .expect("fork of q");
    let q3 = Contract::from_path(tmp.0.join("q3/contract.json")).expect("q3");
    assert_eq!(q3.core().len(), 8);
    assert_eq!(q3.extensions().len(), 5);
    let fx = tmp.0.join("q3/fixtures");
    for f in [
        "valid.mini",
        "canonical.json",
        "escaping.mini",
        "escaping.json",
        "bad_count.mini",
        "bad_arity.mini",
        "bad_type.mini",
    ] {
        assert!(fx.join(f).is_file(), "{f}");
    }
    let report = check_forks(&tmp.0).expect("readable");
    let text = report.render();
    assert!(report.ok, "{text}");
    assert_eq!(text.lines().last(), Some("ALL FORKS PASS (4 forks)"));
    assert!(text.contains("lineage q3 -> q -> a"), "{text}");
    // the escaping fixture holds the reserved characters
    let esc = std::fs::read_to_string(fx.join("escaping.mini")).expect("escaping");
    assert!(esc.contains("pipe \\| and back\\\\slash"), "{esc}");
}

#[test]
fn new_family_from_scratch_passes_check_forks() {
    let tmp = TempDir::new("scratch");
    let specs = [
        "id:str",
        "title",
        "labels:list<str>[0..5]",
        "priority:enum{low|high}",
        "pick:mlist<str>[2..4]*1",
        "score:float[0..1]?",
        "span:tuple(start:int[0..],end:int?)",
        "due:date[2026-01-01..]",
        "price:decimal[0..]",
        "done:bool",
        "marks:mlist<int>*",
    ];
    let add: Vec<(String, String)> = specs
        .iter()
        .map(|s| parse_field_arg(s).expect("arg"))
        .collect();
    let path = new_fork(&tmp.0, "ticket", None, &add).expect("new family");
    let c = Contract::from_path(&path).expect("contract");
    assert_eq!(c.parent(), None);
    assert_eq!(c.core().len(), 11);
    assert_eq!(
        mini_tools::family::signature(&c),
        "id:str | title:str | labels:list<str>[0..5] | priority:enum{low|high} | \
         pick:mlist<str>[2..4]*1 | score:float[0..1]? | span:tuple(start:int,end:int) | \
         due:date[2026-01-01..] | price:decimal[0..] | done:bool | marks:mlist<int>*"
    );
    // then a fork of it
    new_fork(&tmp.0, "ticket2", Some("ticket"), &[("note", "str")]).expect("fork");
    let report = check_forks(&tmp.0).expect("readable");
    assert!(report.ok, "{}", report.render());
    assert_eq!(
        report.render().lines().last(),
        Some("ALL FORKS PASS (2 forks)")
    );
    let canonical: Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.0.join("ticket/fixtures/canonical.json")).expect("read"),
    )
    .expect("json");
    assert_eq!(canonical["records"].as_array().map(Vec::len), Some(2));
    assert_eq!(canonical["records"][1]["score"], Value::Null);
}

#[test]
fn new_fork_refuses_bad_requests() {
    let tmp = TempDir::new("refuse");
    copy_family(&tmp, "a");
    let none: &[(&str, &str)] = &[];
    let e = new_fork(&tmp.0, "a", None, &[("x", "str")]).expect_err("exists");
    assert_eq!(e.code(), Some(Code::E21));
    let e = new_fork(&tmp.0, "z", Some("nope"), none).expect_err("no parent");
    assert_eq!(e.code(), Some(Code::E21));
    let e = new_fork(&tmp.0, "z", None, none).expect_err("no field");
    assert_eq!(e.code(), Some(Code::E20));
    let e = new_fork(&tmp.0, "z", Some("a"), &[("bloom", "str")]).expect_err("duplicate");
    assert_eq!(e.code(), Some(Code::E20));
    let e = new_fork(&tmp.0, "9z", None, &[("x", "str")]).expect_err("bad prefix");
    assert_eq!(e.code(), Some(Code::E20));
    assert!(!tmp.0.join("9z").exists());
    assert!(!tmp.0.join("z").exists());
    for bad in [
        "lst<str>",
        "list<str",
        "enum{}",
        "int[a..b]",
        "str[1..2]",
        "list<list<str>>",
    ] {
        let e = field_spec("f", bad).expect_err(bad);
        assert_eq!(e.code(), Some(Code::E20), "{bad}");
    }
    assert_eq!(
        field_spec("o", "mlist<str>[2..6]*0..1?").expect("spec"),
        json!({"name": "o", "type": "mlist", "item": "str", "min": 2, "max": 6,
               "marker": "at_most_one", "json": {"items": "o", "selected": "o_selected"},
               "optional": true})
    );
}
