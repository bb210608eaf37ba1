//! The `mini` binary: exit codes, outputs, stdin, garbage input.

use std::io::{BufRead, BufReader, Write};

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mini(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mini"));
    cmd.args(args)
        .current_dir(root())
        .env_remove("MINI_FORKS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("mini runs");
    {
        let mut pipe = child.stdin.take().expect("stdin");
        if let Some(data) = stdin {
            pipe.write_all(data).expect("write stdin");
        }
    }
    child.wait_with_output().expect("mini finishes")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const FORKS: &str = "examples/forks";

#[test]
fn validate_ok_prints_the_summary_line() {
    let o = mini(&["validate", "examples/quiz.mini", "--forks", FORKS], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "OK: prefix=quiz v1 records=4 n=4\n");
}

#[test]
fn validate_invalid_lists_every_error_and_exits_1() {
    let o = mini(
        &["validate", "examples/truncated.mini", "--forks", FORKS],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("E07 line 3 [options]: list has 3 elements but header k=4"),
        "{out}"
    );
    assert!(
        out.contains("E05 line 5: record has 3 fields, core requires 7"),
        "{out}"
    );
    assert!(out.contains("E04 document:"), "{out}");
    assert!(out.ends_with("INVALID: 3 error(s)\n"), "{out}");
}

#[test]
fn unknown_prefix_is_unverified_not_invalid() {
    let o = mini(&["validate", "-", "--forks", FORKS], Some(b"zz|n=1\nx"));
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("UNVERIFIED: no contract for prefix 'zz'"),
        "{}",
        stderr(&o)
    );
    // without any source of contracts either
    let o = mini(&["validate", "examples/quiz.mini"], None);
    assert_eq!(o.status.code(), Some(3));
}

#[test]
fn explicit_prefix_and_contract_are_honoured() {
    let o = mini(
        &[
            "validate",
            "examples/quiz.mini",
            "-p",
            "quiz",
            "--forks",
            FORKS,
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let o = mini(
        &[
            "validate",
            "examples/quiz.mini",
            "--contract",
            "examples/forks/tk/contract.json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("E02 line 1"), "{}", stdout(&o));
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(mini(&["validate"], None).status.code(), Some(2));
    assert_eq!(mini(&["frobnicate"], None).status.code(), Some(2));
    let o = mini(&["validate", "no/such/file.mini", "--forks", FORKS], None);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot read"), "{}", stderr(&o));
    let o = mini(
        &[
            "validate",
            "examples/quiz.mini",
            "--contract",
            "no/such.json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn env_var_points_at_the_forks() {
    let o = Command::new(env!("CARGO_BIN_EXE_mini"))
        .args(["validate", "examples/tickets.mini"])
        .current_dir(root())
        .env("MINI_FORKS", FORKS)
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn invalid_utf8_and_binary_input_are_clear_errors() {
    let o = mini(
        &["validate", "-", "--forks", FORKS],
        Some(b"quiz|n=1|k=4\nq1|caf\xe9|x"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("invalid UTF-8 at line 2, byte offset 6 in the line"),
        "{}",
        stdout(&o)
    );
    let o = mini(
        &["to-json", "-", "--forks", FORKS],
        Some(b"\x00\x01\x02\xff\xfe"),
    );
    assert_eq!(o.status.code(), Some(1));
    // binary that is valid UTF-8: parsed, rejected, no panic
    let o = mini(
        &["validate", "-", "-p", "quiz", "--forks", FORKS],
        Some(b"\x00\x01|\x02\n\x03"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("E02 line 1"), "{}", stdout(&o));
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn empty_input_is_e01_whatever_the_contract() {
    let o = mini(&["validate", "-"], Some(b"\n \n"));
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("E01 document"), "{}", stdout(&o));
}

#[test]
fn to_json_and_from_json_round_trip() {
    let o = mini(
        &[
            "to-json",
            "examples/tickets.mini",
            "--forks",
            FORKS,
            "--compact",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let json = stdout(&o);
    assert_eq!(json.lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["tickets"][0]["refund"], "19.90");
    assert_eq!(v["tickets"][2]["pinned"], serde_json::json!([0, 1]));
    let back = mini(&["from-json", "-", "--forks", FORKS], Some(json.as_bytes()));
    assert_eq!(back.status.code(), Some(0), "{}", stderr(&back));
    let original = std::fs::read_to_string(root().join("examples/tickets.mini")).unwrap();
    assert_eq!(stdout(&back), original);
}

#[test]
fn to_json_strict_rejects_and_lenient_keeps_valid_records() {
    let o = mini(
        &["to-json", "examples/truncated.mini", "--forks", FORKS],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).is_empty());
    assert!(stderr(&o).contains("INVALID: 3 error(s)"));
    let o = mini(
        &[
            "to-json",
            "examples/truncated.mini",
            "--forks",
            FORKS,
            "--lenient",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["items"].as_array().map(Vec::len), Some(2));
    assert!(stderr(&o).contains("E05 line 5"));
}

#[test]
fn from_json_rejects_invalid_objects_with_the_parser_code() {
    let bad = br#"{"prefix":"quiz","header":{"k":4},"items":[{"id":"q1","stem":"s","options":["a","b","c","d"],"answer":7,"level":1,"level_name":"apply","tags":[],"irt":{"a":1,"b":1,"c":0}}]}"#;
    let o = mini(&["from-json", "-", "--forks", FORKS], Some(bad));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("E08 line 2 [options]"),
        "{}",
        stderr(&o)
    );
    let o = mini(&["from-json", "-", "--forks", FORKS], Some(b"{not json"));
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn diagnose_reports_unknown_n_as_null() {
    let o = mini(
        &["diagnose", "-", "--forks", FORKS],
        Some(b"quiz|n=many|k=4\nq1|s|a*,b,c,d|1|apply||1,1,0"),
    );
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["declared_n"], serde_json::Value::Null);
    assert_eq!(v["missing_records"], serde_json::Value::Null);
    assert_eq!(v["truncated"], serde_json::Value::Null);
    assert_eq!(v["valid_records"], 1);
    let o = mini(
        &["diagnose", "examples/truncated.mini", "--forks", FORKS],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(v["missing_records"], 1);
    assert_eq!(v["truncated"], true);
    assert_eq!(v["invalid_lines"], serde_json::json!([3, 5]));
}

#[test]
fn conformance_command_ends_with_the_count_line() {
    let dir =
        std::env::var("MINI_CONFORMANCE").unwrap_or_else(|_| "../shared/conformance".to_string());
    let o = mini(&["conformance", &dir], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).lines().last(), Some("376 passed, 0 failed"));
}

#[test]
fn repair_prompt_and_merge_round_trip() {
    let doc =
        "Here you go:\n```\nquiz|n=2|k=2\nq1|s|a*,b|1|apply||1,1,0\nq2|s|a,b|1|apply||1,1,0\n```\n";
    let dir = std::env::temp_dir().join(format!("mini-cli-repair-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let doc_path = dir.join("doc.mini");
    std::fs::write(&doc_path, doc).unwrap();
    let p = doc_path.to_str().unwrap();
    let o = mini(
        &["repair-prompt", p, "--forks", FORKS, "--lang", "es"],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("[L3] q2|s|a,b|1|apply||1,1,0"),
        "{}",
        stdout(&o)
    );
    assert!(stderr(&o).contains("fixed:"), "{}", stderr(&o));
    let o = mini(
        &["merge", p, "-", "--forks", FORKS],
        Some(b"quiz|n=1\nq2|s|a,b*|1|apply||1,1,0\n"),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "quiz|n=2|k=2\nq1|s|a*,b|1|apply||1,1,0\nq2|s|a,b*|1|apply||1,1,0\n"
    );
    assert!(stderr(&o).contains("applied [L3]"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn model_side_commands_run() {
    let o = mini(&["prompt", "quiz", "--forks", FORKS, "--lang", "es"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("level_name"));
    let o = mini(
        &[
            "grammar",
            "quiz",
            "--forks",
            FORKS,
            "--format",
            "regex",
            "--records",
            "2",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let re = regex::Regex::new(&format!(r"\A(?:{})\z", stdout(&o).trim_end())).unwrap();
    assert!(re.is_match("quiz|n=2|k=2\nq1|s|a*,b|1|apply||1,1,0\nq2|s|a,b*|1|apply||1,1,0"));
    let o = mini(&["to-schema", "quiz", "--forks", FORKS], None);
    assert_eq!(o.status.code(), Some(0));
    let o = mini(&["from-schema", "-", "-p", "quiz"], Some(&o.stdout));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = mini(
        &[
            "stats",
            "examples/quiz.mini",
            "--forks",
            FORKS,
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["records"], 4);
    let o = mini(&["check-forks", "examples/forks"], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).lines().last(), Some("ALL FORKS PASS (2 forks)"));
    let dir =
        std::env::var("MINI_CONFORMANCE").unwrap_or_else(|_| "../shared/conformance".to_string());
    let o = mini(&["check-forks", &format!("{dir}/forks")], None);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(stdout(&o).lines().last(), Some("ALL FORKS PASS (14 forks)"));
}

#[test]
fn ndjson_stream_emits_the_first_record_before_the_input_ends() {
    let root = root();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mini"))
        .args(["to-json", "--stream", "-", "--forks", "examples/forks"])
        .current_dir(&root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin
        .write_all(b"quiz|n=2|k=2\nq1|first?|a*,b|1|apply||1,1,0\n")
        .unwrap();
    stdin.flush().unwrap();
    // the pipe stays open: the first record must arrive now
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    let v: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["id"], "q1");
    stdin
        .write_all(b"q2|second?|a,b*|2|apply||1,1,0\n")
        .unwrap();
    drop(stdin);
    let mut second = String::new();
    stdout.read_line(&mut second).unwrap();
    assert_eq!(serde_json::from_str::<Value>(&second).unwrap()["answer"], 1);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    let summary: Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
    assert_eq!(summary["summary"]["complete"], true);
    assert_eq!(summary["summary"]["received"], 2);
}

#[test]
fn tokens_and_stats_agree_and_savings_read_as_savings() {
    // quiz.mini quotes a list element (not the canonical form); tickets.mini
    // is as the serializer writes it
    for (file, canonical) in [
        ("examples/quiz.mini", false),
        ("examples/tickets.mini", true),
    ] {
        let o = mini(&["tokens", file], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let counted: usize = stdout(&o).split(' ').next().unwrap().parse().unwrap();
        let o = mini(&["stats", file, "--forks", FORKS, "--format", "json"], None);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["formats"][0]["format"], "mini");
        assert_eq!(v["written_tokens"], counted, "{file}");
        assert_eq!(
            v["formats"][0]["tokens"] == counted,
            canonical,
            "{file}: {v}"
        );
        // a saving is positive, named saving_pct
        assert!(v["formats"][0]["saving_pct"].as_f64().unwrap() > 0.0, "{v}");
        let o = mini(&["stats", file, "--forks", FORKS], None);
        let table = stdout(&o);
        let row = table.lines().find(|l| l.starts_with(".mini")).unwrap();
        assert!(row.contains("saves ") && row.ends_with(" %"), "{row}");
        let note =
            format!("(.mini as written: {counted} tokens; the table counts its canonical form)");
        assert_eq!(table.contains(&note), !canonical, "{table}");
    }
}

// ---- issue 14: the reference's CLI habits (item 6) -------------------------

#[test]
fn validate_lenient_keeps_the_valid_records() {
    // truncated.mini: 2 valid records, 3 errors
    let args = ["validate", "examples/truncated.mini", "--forks", FORKS];
    let strict = mini(&args, None);
    assert_eq!(strict.status.code(), Some(1));
    let o = mini(&[&args[..], &["--lenient"]].concat(), None);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    // every error is still reported, then the lenient verdict
    assert!(out.contains("E04 document:"), "{out}");
    assert!(
        out.ends_with("LENIENT: 2 valid record(s) kept, 3 error(s)\n"),
        "{out}"
    );
    // a valid document reads as without --lenient
    let o = mini(
        &[
            "validate",
            "examples/quiz.mini",
            "--forks",
            FORKS,
            "--lenient",
        ],
        None,
    );
    assert_eq!(stdout(&o), "OK: prefix=quiz v1 records=4 n=4\n");
    // nothing valid left: invalid even when lenient
    let o = mini(
        &["validate", "-", "--forks", FORKS, "--lenient"],
        Some(b"quiz|n=2|k=4\nq1|x\nq2|y"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).ends_with("INVALID: 2 error(s)\n"),
        "{}",
        stdout(&o)
    );
}

fn json_of(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", stdout(o), stderr(o)))
}

#[test]
fn diagnose_always_prints_json() {
    // no contract found: unverified, exit 3, still JSON
    let o = mini(&["diagnose", "-", "--forks", FORKS], Some(b"zz|n=1\nx"));
    assert_eq!(o.status.code(), Some(3));
    let v = json_of(&o);
    assert_eq!(v["status"], "unverified");
    assert!(v["reason"].as_str().unwrap().contains("'zz'"), "{v}");
    // a first line of prose is no header (not a family named `hello world`)
    let o = mini(
        &["diagnose", "-", "--forks", FORKS],
        Some(b"hello world\nquiz|n=0|k=4"),
    );
    assert_eq!(o.status.code(), Some(3));
    let v = json_of(&o);
    assert_eq!(v["status"], "unverified");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.starts_with("no header"), "{reason}");
    // the same for validate
    let o = mini(&["validate", "-", "--forks", FORKS], Some(b"hello world\n"));
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stderr(&o).contains("UNVERIFIED: no header"),
        "{}",
        stderr(&o)
    );
    // valid and invalid documents carry their status
    let o = mini(&["diagnose", "examples/quiz.mini", "--forks", FORKS], None);
    assert_eq!(o.status.code(), Some(0));
    let v = json_of(&o);
    assert_eq!(v["status"], "valid");
    assert_eq!(v["valid_lines"], serde_json::json!([2, 3, 4, 5]));
    // invalid UTF-8: JSON, the lines before it, and where it is
    let o = mini(
        &["diagnose", "-", "--forks", FORKS],
        Some(b"quiz|n=2|k=4\nq1|s|a*,b,c,d|1|apply||1,1,0\nq2|caf\xe9|x"),
    );
    assert_eq!(o.status.code(), Some(1));
    let v = json_of(&o);
    assert_eq!(v["status"], "invalid");
    assert_eq!(
        v["input_error"],
        "invalid UTF-8 at line 3, byte offset 6 in the line"
    );
    assert_eq!(v["valid_lines"], serde_json::json!([2]));
    // an empty document: E01, as JSON
    let o = mini(&["diagnose", "-"], Some(b"\n"));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(json_of(&o)["errors"][0]["code"], "E01");
}

#[test]
fn family_commands_take_prefix_positional_or_with_p() {
    for cmd in [
        &["grammar", "--format", "lark"][..],
        &["prompt"][..],
        &["to-schema"][..],
    ] {
        let positional = mini(&[cmd, &["quiz", "--forks", FORKS]].concat(), None);
        assert_eq!(
            positional.status.code(),
            Some(0),
            "{cmd:?}: {}",
            stderr(&positional)
        );
        let flag = mini(&[cmd, &["-p", "quiz", "--forks", FORKS]].concat(), None);
        assert_eq!(flag.status.code(), Some(0), "{cmd:?} -p: {}", stderr(&flag));
        assert_eq!(stdout(&flag), stdout(&positional), "{cmd:?}");
        let long = mini(
            &[cmd, &["--prefix", "quiz", "--forks", FORKS]].concat(),
            None,
        );
        assert_eq!(stdout(&long), stdout(&positional), "{cmd:?}");
        // and --contract PATH (item 7: to-schema too)
        let path = mini(
            &[cmd, &["--contract", "examples/forks/quiz/contract.json"]].concat(),
            None,
        );
        assert_eq!(
            path.status.code(),
            Some(0),
            "{cmd:?} --contract: {}",
            stderr(&path)
        );
        assert_eq!(stdout(&path), stdout(&positional), "{cmd:?}");
    }
}

// ---- issue 14: bounded memory and output contracts (item 7) ----------------

#[test]
fn stream_ends_with_its_summary_on_invalid_utf8() {
    let o = mini(
        &["to-json", "--stream", "-", "--forks", FORKS],
        Some(b"quiz|n=2|k=4\nq1|s|a*,b,c,d|1|apply||1,1,0\nq2|caf\xe9|x"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o).lines().count(), 1, "the record before it");
    let err = stderr(&o);
    let summary: Value = serde_json::from_str(err.lines().last().unwrap()).unwrap();
    assert_eq!(summary["summary"]["complete"], false);
    assert_eq!(summary["summary"]["received"], 1);
    assert_eq!(
        summary["summary"]["input_error"],
        "invalid UTF-8 at line 3, byte offset 6 in the line"
    );
}
