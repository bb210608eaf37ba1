//! `mini ask --endpoint` against a stub chat-completions server on
//! 127.0.0.1 (feature `http`, on by default).

use std::process::{Command, Output};

#[path = "../../mini-format-tools/tests/support/stub.rs"]
mod stub;

use stub::{Response, Stub};

const KEY: &str = "sk-cli-secret-42";

fn ask(stub: &Stub, dir: &std::path::Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "ask".to_string(),
        "--contract".into(),
        dir.join("todo.json").to_string_lossy().into_owned(),
        "--task".into(),
        "two chores".into(),
        "--endpoint".into(),
        stub.base.clone(),
        "--model".into(),
        "stub-model".into(),
        "--api-key-env".into(),
        "MINI_TEST_KEY".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    Command::new(env!("CARGO_BIN_EXE_mini"))
        .args(&args)
        .env("MINI_TEST_KEY", KEY)
        .output()
        .expect("mini runs")
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mini-ask-http-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("todo.json"),
        r#"{"prefix": "todo", "records_key": "tasks",
            "core": [{"name": "title", "type": "str", "unique": true},
                     {"name": "done", "type": "bool"}]}"#,
    )
    .unwrap();
    dir
}

#[test]
fn ask_against_a_chat_endpoint_with_a_report() {
    let dir = scratch("ok");
    let stub = Stub::start(vec![
        Response::completion(
            "Sure:\n```\ntodo|n=2\nbuy milk|false\nwrite d",
            "length",
            (300, 40),
        ),
        Response::completion("todo|n=1\nwrite docs|true", "stop", (320, 10)),
    ]);
    let report = dir.join("report.json");
    let o = ask(
        &stub,
        &dir,
        &[
            "--max-tokens",
            "64",
            "--temperature",
            "0",
            "--report",
            report.to_str().unwrap(),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["tasks"][1]["title"], "write docs");
    let got = stub.requests();
    assert_eq!(got.len(), 2);
    let body = got[0].json();
    assert_eq!(body["model"], "stub-model");
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(
        got[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    for r in &got {
        assert!(!r.body.contains(KEY));
    }
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(!text.contains(KEY));
    let r: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(r["usage"]["total_tokens"], 670);
    assert_eq!(r["stages"][0]["details"]["http"][0]["status"], 200);
    assert_eq!(r["stages"][0]["cut"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_endpoint_failure_exits_2_without_the_key() {
    let dir = scratch("401");
    let stub = Stub::start(vec![Response::error(401, "bad key")]);
    let o = ask(&stub, &dir, &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("refused the key (HTTP 401): bad key"), "{err}");
    assert!(!err.contains(KEY));
    // --endpoint without --model is a usage error
    let o = Command::new(env!("CARGO_BIN_EXE_mini"))
        .args([
            "ask",
            "--contract",
            "x.json",
            "--task",
            "t",
            "--endpoint",
            "http://127.0.0.1:1/v1",
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
