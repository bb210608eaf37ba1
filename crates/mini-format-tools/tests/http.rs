//! The chat-completions model against a stub server on 127.0.0.1.

#[path = "support/stub.rs"]
mod stub;

use std::time::Duration;

use mini::Contract;
use mini_tools::workflow::http::{ChatConfig, ChatError, ChatModel};
use mini_tools::workflow::{CallKind, Failure, ModelRequest, Stage, Usage, Workflow};
use stub::{Response, Stub};

const KEY_VAR: &str = "MINI_TEST_CHAT_KEY";
const KEY: &str = "sk-test-secret-0123456789";

fn todo() -> Contract {
    Contract::from_json(
        r#"{"prefix": "todo", "records_key": "tasks",
            "core": [{"name": "title", "type": "str", "unique": true},
                     {"name": "done", "type": "bool"}]}"#,
    )
    .unwrap()
}

/// A config for the stub: fast retries, the test key variable.
fn config(stub: &Stub) -> ChatConfig {
    let mut c = ChatConfig::new(&stub.base, "stub-model");
    c.api_key_env = Some(KEY_VAR.to_string());
    c.backoff = Duration::from_millis(5);
    c.max_backoff = Duration::from_millis(20);
    c.timeout = Duration::from_secs(10);
    c
}

fn set_key() {
    // once, before any model of this binary reads it
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::env::set_var(KEY_VAR, KEY));
}

/// A request with a user message only (as a repair is).
fn request(user: &str) -> ModelRequest {
    ModelRequest::new(1, CallKind::Generate, String::new(), user.to_string())
}

#[test]
fn a_valid_answer_in_one_call_and_the_requests_the_server_saw() {
    set_key();
    let stub = Stub::start(vec![Response::completion(
        "```\ntodo|n=2\nbuy milk|false\nwrite docs|true\n```",
        "stop",
        (50, 12),
    )]);
    let model = ChatModel::new(config(&stub)).unwrap();
    assert!(model.has_key());
    let mut wf = Workflow::new(todo()).expected_records(2);
    wf = wf.max_repairs(1);
    let run = wf
        .run("two chores", |r: &ModelRequest| model.call(r))
        .unwrap();
    assert_eq!(run.report.calls, 1);
    assert_eq!(run.value["tasks"][1]["title"], "write docs");
    assert_eq!(run.report.usage, Some(Usage::new(50, 12)));
    let got = stub.requests();
    assert_eq!(got.len(), 1);
    assert_eq!(
        (got[0].method.as_str(), got[0].path.as_str()),
        ("POST", "/v1/chat/completions")
    );
    assert_eq!(
        got[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = got[0].json();
    assert_eq!(body["model"], "stub-model");
    assert_eq!(body["messages"][0]["role"], "system");
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains(".mini FORMAT"));
    assert_eq!(body["messages"][1]["role"], "user");
    assert!(body["messages"][1]["content"]
        .as_str()
        .unwrap()
        .starts_with("Task:\ntwo chores"));
    assert!(body.get("response_format").is_none());
    // the key is in the header only: not in the body, not in the report
    assert!(!got[0].body.contains(KEY));
    assert!(!run.report.to_json().contains(KEY));
    // the report has the HTTP status and latency of the call
    match &run.report.stages[0] {
        Stage::Call {
            details: Some(d), ..
        } => {
            assert_eq!(d["http"][0]["status"], 200);
            assert!(d["http"][0]["latency_ms"].is_u64());
            assert_eq!(d["finish_reason"], "stop");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cut_answer_is_continued_and_usage_summed() {
    set_key();
    let stub = Stub::start(vec![
        Response::completion("todo|n=3\na|true\nb|false\nc|tr", "length", (40, 30)),
        Response::completion("todo|n=1\nc|true", "stop", (60, 5)),
    ]);
    let model = ChatModel::new(config(&stub)).unwrap();
    let run = Workflow::new(todo())
        .run("three", |r: &ModelRequest| model.call(r))
        .unwrap();
    assert_eq!(run.text, "todo|n=3\na|true\nb|false\nc|true");
    assert_eq!(run.report.calls, 2);
    assert_eq!(run.report.usage, Some(Usage::new(100, 35)));
    let got = stub.requests();
    let user = got[1].json()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(user.contains("CONTINUATION REQUEST"), "{user}");
    assert!(user.contains("2 of 3 records"), "{user}");
    assert!(matches!(
        run.report.stages.iter().find(|s| matches!(s, Stage::Cut { .. })),
        Some(Stage::Cut { dropped_line: Some(l), .. }) if l == "c|tr"
    ));
}

#[test]
fn a_429_is_retried_and_counted_as_one_call() {
    set_key();
    let mut busy = Response::error(429, "slow down");
    busy.headers.push(("Retry-After".into(), "0".into()));
    let stub = Stub::start(vec![
        busy,
        Response::completion("todo|n=1\na|true", "stop", (1, 1)),
    ]);
    let model = ChatModel::new(config(&stub)).unwrap();
    let run = Workflow::new(todo())
        .max_repairs(0)
        .max_continuations(0)
        .run("one", |r: &ModelRequest| model.call(r))
        .unwrap();
    assert_eq!(run.report.calls, 1, "a retry is not a workflow round");
    assert_eq!(stub.requests().len(), 2);
    match &run.report.stages[0] {
        Stage::Call {
            details: Some(d), ..
        } => {
            let http = d["http"].as_array().unwrap();
            assert_eq!(http.len(), 2);
            assert_eq!(
                (http[0]["status"].as_u64(), http[1]["status"].as_u64()),
                (Some(429), Some(200))
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_500_every_time_ends_after_the_bounded_retries() {
    set_key();
    let stub = Stub::start(vec![Response::error(500, "boom"); 3]);
    let mut c = config(&stub);
    c.retries = 2;
    let model = ChatModel::new(c).unwrap();
    let err = Workflow::new(todo())
        .run("t", |r: &ModelRequest| model.call(r))
        .unwrap_err();
    assert_eq!(stub.requests().len(), 3);
    assert!(err.is_model_error());
    assert_eq!(err.report().calls, 1);
    let Failure::Model(e) = err.failure() else {
        panic!("{:?}", err.failure())
    };
    let chat = e.source_error().downcast_ref::<ChatError>().unwrap();
    assert_eq!(
        chat,
        &ChatError::Unavailable {
            status: 500,
            attempts: 3,
            message: "boom".into()
        }
    );
    assert!(
        e.to_string()
            .contains("(HTTP 500 after 3 attempt(s)): boom"),
        "{e}"
    );
}

#[test]
fn a_401_is_a_clear_error_that_does_not_show_the_key() {
    set_key();
    let stub = Stub::start(vec![Response::error(401, "Incorrect API key provided")]);
    let model = ChatModel::new(config(&stub)).unwrap();
    let err = model.call(&request("t")).unwrap_err();
    assert!(matches!(err, ChatError::Unauthorized { status: 401, .. }));
    let text = err.to_string();
    assert!(text.contains("refused the key (HTTP 401)"), "{text}");
    assert!(!text.contains(KEY));
    assert!(!format!("{model:?}").contains(KEY));
    assert_eq!(stub.requests().len(), 1, "a 401 is not retried");
}

#[test]
fn a_404_and_a_malformed_body_are_typed_errors() {
    set_key();
    let stub = Stub::start(vec![
        Response::error(404, "model 'nope' not found"),
        Response::raw(200, "<html>not json</html>"),
        Response::raw(200, r#"{"choices": []}"#),
        Response::raw(200, r#"{"choices": [{"message": {"content": 42}}]}"#),
    ]);
    let model = ChatModel::new(config(&stub)).unwrap();
    let e = model.call(&request("t")).unwrap_err();
    assert!(
        matches!(&e, ChatError::NotFound { message } if message == "model 'nope' not found"),
        "{e}"
    );
    for want in ["not JSON", "no choices[0]", "content is not a string"] {
        let e = model.call(&request("t")).unwrap_err();
        assert!(
            matches!(&e, ChatError::Malformed(m) if m.contains(want)),
            "{e}"
        );
    }
}

#[test]
fn a_refused_connection_and_bad_configurations() {
    // a port nothing listens on: bind, read the port, close
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let model =
        ChatModel::new(ChatConfig::new(format!("http://127.0.0.1:{port}/v1"), "m")).unwrap();
    let e = model.call(&request("t")).unwrap_err();
    assert!(matches!(e, ChatError::Connect(_)), "{e:?}");
    assert!(e.to_string().contains("cannot reach the chat endpoint"));
    let mut c = ChatConfig::new("http://127.0.0.1:1/v1", "m");
    c.extra.insert(
        "response_format".into(),
        serde_json::json!({"type": "json_object"}),
    );
    assert!(matches!(ChatModel::new(c), Err(ChatError::Config(_))));
    assert!(matches!(
        ChatModel::new(ChatConfig::new("127.0.0.1/v1", "m")),
        Err(ChatError::Config(_))
    ));
}

#[test]
fn no_key_sends_no_authorization_and_options_reach_the_body() {
    let stub = Stub::start(vec![Response::completion("todo|n=0", "stop", (1, 1))]);
    let mut c = config(&stub);
    c.api_key_env = None;
    c.temperature = Some(0.2);
    c.max_tokens = Some(256);
    c.extra.insert("seed".into(), serde_json::json!(7));
    let model = ChatModel::new(c).unwrap();
    assert!(!model.has_key());
    let reply = model.call(&request("t")).unwrap();
    assert_eq!(reply.cut, Some(false));
    let got = stub.requests();
    assert_eq!(got[0].header("authorization"), None);
    let body = got[0].json();
    assert_eq!(
        (
            body["temperature"].as_f64(),
            body["max_tokens"].as_u64(),
            body["seed"].as_u64()
        ),
        (Some(0.2), Some(256), Some(7))
    );
    // a request with no system part sends the user message alone
    assert_eq!(body["messages"].as_array().unwrap().len(), 1);
}
