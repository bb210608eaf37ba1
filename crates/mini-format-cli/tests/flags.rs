//! Issue 20: exact numbers by default, `--out`, `--name`, `--records-key`,
//! `stats` on JSON, `--extract`, the hints and the delimiter warning.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("flags");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

fn mini(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mini"))
        .args(args)
        .current_dir(root())
        .env_remove("MINI_FORKS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mini runs");
    {
        let mut pipe = child.stdin.take().expect("stdin");
        if let Some(data) = stdin {
            pipe.write_all(data).expect("write stdin");
        }
    }
    child.wait_with_output().expect("mini finishes")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one-int contract, written once for the whole test binary: the tests
/// run in parallel, and rewriting a shared file (truncate, then write) let
/// another test's `mini` read it empty and exit 2 (a contract error).
fn one_int() -> String {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let p = tmp("one-int.json");
        std::fs::write(
            &p,
            r#"{"prefix": "x", "core": [{"name": "v", "type": "int"}]}"#,
        )
        .expect("write");
        p.to_string_lossy().into_owned()
    })
    .clone()
}

#[test]
fn the_binary_reads_big_ints_exactly() {
    let c = one_int();
    let doc = b"x|n=1\n123456789012345678901234567890";
    let o = mini(&["to-json", "-", "--contract", &c, "--compact"], Some(doc));
    if cfg!(feature = "arbitrary_precision") {
        // the default build of the binary
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
        assert_eq!(
            out(&o),
            "{\"prefix\":\"x\",\"header\":{\"n\":1,\"v\":1},\"records\":[{\"v\":123456789012345678901234567890}]}\n"
        );
        // and back, digit for digit
        let json = tmp("big.json");
        std::fs::write(&json, out(&o)).expect("write");
        let back = mini(
            &["from-json", &json.to_string_lossy(), "--contract", &c],
            None,
        );
        assert_eq!(out(&back), "x|n=1\n123456789012345678901234567890\n");
        // the stream says the same
        let s = mini(&["to-json", "--stream", "-", "--contract", &c], Some(doc));
        assert_eq!(out(&s), "{\"v\":123456789012345678901234567890}\n");
    } else {
        assert_eq!(o.status.code(), Some(1));
        assert!(err(&o).contains("arbitrary_precision"), "{}", err(&o));
    }
}

#[test]
fn lenient_to_json_keeps_an_impossible_n() {
    let c = one_int();
    let o = mini(
        &["to-json", "-", "--contract", &c, "--lenient", "--compact"],
        Some(b"x|n=-1\n5"),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_str(&out(&o)).expect("json");
    assert_eq!(v["header"]["n"], -1);
    assert!(
        err(&o).contains("header declares n=-1 but the document has 1 record line:"),
        "{}",
        err(&o)
    );
    let o = mini(&["diagnose", "-", "--contract", &c], Some(b"x|n=-1\n5"));
    let d: Value = serde_json::from_str(&out(&o)).expect("json");
    assert_eq!(d["missing_records"], Value::Null, "unknown, not 0");
}

#[test]
fn out_writes_the_file_only_on_success_with_lf() {
    let c = one_int();
    let target = tmp("out.json");
    let target_s = target.to_string_lossy().into_owned();
    std::fs::write(&target, "old\r\n").expect("write");
    // a failing command leaves the file alone and prints no document
    let o = mini(
        &["to-json", "-", "--contract", &c, "--out", &target_s],
        Some(b"x|n=2\n5"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(out(&o), "");
    assert!(err(&o).contains("not written"), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\r\n");
    // a successful one replaces it whole; CRLF input gives LF output
    let o = mini(
        &["to-json", "-", "--contract", &c, "--out", &target_s],
        Some(b"x|n=1\r\n5\r\n"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o), "");
    let written = std::fs::read_to_string(&target).unwrap();
    assert!(!written.contains('\r'));
    let v: Value = serde_json::from_str(&written).expect("json");
    assert_eq!(v["records"][0]["v"], 5);
    // from-json, to-schema, from-schema
    let text = tmp("out.mini");
    let o = mini(
        &[
            "from-json",
            &target_s,
            "--contract",
            &c,
            "--out",
            &text.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "x|n=1\n5\n");
    let schema = tmp("quiz.schema.json");
    let schema_s = schema.to_string_lossy().into_owned();
    let o = mini(
        &[
            "to-schema",
            "quiz",
            "--forks",
            "examples/forks",
            "--out",
            &schema_s,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert_eq!(out(&o), "");
    let contract = tmp("from-schema.json");
    let o = mini(
        &[
            "from-schema",
            &schema_s,
            "--name",
            "Quiz, imported",
            "--records-key",
            "questions",
            "--out",
            &contract.to_string_lossy(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let c: Value =
        serde_json::from_str(&std::fs::read_to_string(&contract).unwrap()).expect("json");
    assert_eq!(c["name"], "Quiz, imported");
    assert_eq!(c["records_key"], "questions");
    // a records key the format refuses is E20, and nothing is written
    let o = mini(&["from-schema", &schema_s, "--records-key", "header"], None);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("E20"), "{}", err(&o));
}

#[test]
fn new_fork_takes_a_name() {
    let dir = tmp("forks-named");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let d = dir.to_string_lossy().into_owned();
    let o = mini(
        &[
            "new-fork",
            "note",
            "--add",
            "text:str",
            "--name",
            "Short notes",
            "--forks",
            &d,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    let c: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("note/contract.json")).expect("contract"),
    )
    .expect("json");
    assert_eq!(c["name"], "Short notes");
    let o = mini(&["forks", &d], None);
    assert!(out(&o).contains("Short notes"), "{}", out(&o));
    let o = mini(&["check-forks", &d], None);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
}

#[cfg(feature = "tokens")]
#[test]
fn stats_reads_the_canonical_json_of_a_document() {
    let a = mini(
        &[
            "stats",
            "examples/quiz.mini",
            "--forks",
            "examples/forks",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(a.status.code(), Some(0), "{}", err(&a));
    let json = mini(
        &["to-json", "examples/quiz.mini", "--forks", "examples/forks"],
        None,
    );
    let path = tmp("quiz.json");
    std::fs::write(&path, out(&json)).expect("write");
    let b = mini(
        &[
            "stats",
            &path.to_string_lossy(),
            "--forks",
            "examples/forks",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(b.status.code(), Some(0), "{}", err(&b));
    // the same data, measured from either side (`written_tokens` counts the
    // file as written: the .mini file ends with a newline, dumps does not)
    let (a, b): (Value, Value) = (
        serde_json::from_str(&out(&a)).expect("json"),
        serde_json::from_str(&out(&b)).expect("json"),
    );
    assert_eq!(a["formats"], b["formats"]);
    assert_eq!(a["records"], b["records"]);
    assert!(a["formats"].as_array().is_some_and(|f| f.len() == 6));
    // a JSON object the contract refuses is INVALID
    std::fs::write(
        &path,
        r#"{"prefix": "quiz", "header": {"n": 1}, "items": []}"#,
    )
    .unwrap();
    let c = mini(
        &[
            "stats",
            &path.to_string_lossy(),
            "--forks",
            "examples/forks",
        ],
        None,
    );
    assert_eq!(c.status.code(), Some(1), "{}", err(&c));
}

const ANSWER: &[u8] = b"Sure! Here is the list:\n```mini\nx|n=2\n5\n6\n```\nHope it helps!\n";

#[test]
fn extract_runs_before_validate_to_json_and_diagnose() {
    let c = one_int();
    let o = mini(
        &["validate", "-", "--contract", &c, "--extract"],
        Some(ANSWER),
    );
    assert_eq!(o.status.code(), Some(0), "{}{}", out(&o), err(&o));
    assert_eq!(out(&o), "OK: prefix=x v1 records=2 n=2\n");
    assert!(
        err(&o).contains("fixed: skipped 1 line(s) of prose"),
        "{}",
        err(&o)
    );
    let o = mini(
        &["to-json", "-", "--contract", &c, "--extract", "--compact"],
        Some(ANSWER),
    );
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        err(&o).contains("fixed: removed the opening code fence"),
        "{}",
        err(&o)
    );
    let o = mini(
        &["to-json", "--stream", "-", "--contract", &c, "--extract"],
        Some(ANSWER),
    );
    assert_eq!(out(&o), "{\"v\":5}\n{\"v\":6}\n");
    let o = mini(
        &["diagnose", "-", "--contract", &c, "--extract"],
        Some(ANSWER),
    );
    assert_eq!(o.status.code(), Some(0));
    let d: Value = serde_json::from_str(&out(&o)).expect("json");
    assert_eq!(d["status"], "valid");
    assert!(err(&o).contains("fixed:"), "{}", err(&o));
    for cmd in ["validate", "to-json", "diagnose"] {
        let help = mini(&[cmd, "--help"], None);
        assert!(out(&help).contains("--extract"), "{cmd}");
    }
}

#[test]
fn without_extract_the_first_and_last_lines_are_named() {
    let c = one_int();
    let o = mini(&["validate", "-", "--contract", &c], Some(ANSWER));
    assert_eq!(o.status.code(), Some(1));
    let text = out(&o);
    assert!(
        text.contains("the first line looks like prose, not a header: extract the document"),
        "{text}"
    );
    // without a contract: the prose is named in the UNVERIFIED reason
    let o = mini(&["validate", "-"], Some(ANSWER));
    assert_eq!(o.status.code(), Some(3));
    assert!(
        err(&o).contains("looks like prose or a Markdown fence"),
        "{}",
        err(&o)
    );
    // a closing fence is not called a truncation
    let o = mini(&["validate", "-", "--contract", &c], Some(b"x|n=1\n5\n```"));
    let text = out(&o);
    assert!(
        text.contains("looks like a Markdown fence (```), not a record"),
        "{text}"
    );
    assert!(!text.contains("looks truncated"), "{text}");
}

#[test]
fn lists_of_free_text_without_a_count_key_are_warned_about() {
    // quiz's `tags` is list<str> with no count_key; its options have k
    let o = mini(
        &[
            "validate",
            "examples/quiz.mini",
            "--forks",
            "examples/forks",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let e = err(&o);
    assert!(
        e.contains(
            "warning: quiz: field 'tags' (list<str>) is a list of free text with no count_key"
        ),
        "{e}"
    );
    assert!(!e.contains("'options'"), "{e}");
    let o = mini(&["check-forks", "examples/forks"], None);
    assert!(out(&o).contains("  warning: field 'tags'"), "{}", out(&o));
    // a one-int contract has no list: no warning
    let c = one_int();
    let o = mini(&["validate", "-", "--contract", &c], Some(b"x|n=1\n5"));
    assert_eq!(err(&o), "");
}

#[test]
fn the_new_flags_are_in_help_and_forks_says_what_it_prints() {
    for (cmd, flags) in [
        ("to-json", &["--out", "--extract"][..]),
        ("from-json", &["--out"][..]),
        ("to-schema", &["--out"][..]),
        ("from-schema", &["--out", "--name", "--records-key"][..]),
        ("new-fork", &["--name"][..]),
    ] {
        let help = out(&mini(&[cmd, "--help"], None));
        for f in flags {
            assert!(help.contains(f), "{cmd} {f}: {help}");
        }
    }
    let help = out(&mini(&["--help"], None));
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("forks"))
        .expect("forks in --help");
    assert!(line.contains("name"), "{line}");
    assert!(!line.contains("signature"), "{line}");
}

#[test]
fn merge_lists_the_rejected_corrections_errors_as_remaining() {
    let c = one_int();
    let doc = tmp("merge-doc.mini");
    std::fs::write(&doc, "x|n=2\n1\nzz\n").expect("write");
    let o = mini(
        &["merge", &doc.to_string_lossy(), "-", "--contract", &c],
        Some(b"x|n=1\nstill-not-an-int"),
    );
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(e.contains("unresolved [L3]"), "{e}");
    assert!(
        e.contains("remaining [L3] (the rejected correction): E06")
            && e.contains("'still-not-an-int'"),
        "{e}"
    );
    // the original line's error is not listed instead
    assert!(!e.contains("got 'zz'"), "{e}");
}
