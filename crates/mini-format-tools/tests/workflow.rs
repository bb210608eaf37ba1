//! The workflow with scripted models: each test plans the answers, runs the
//! workflow, and checks the result, the report and every request the model
//! received. No network, no timing.

use std::collections::VecDeque;

use mini::Contract;
use mini_tools::prompt::Lang;
use mini_tools::workflow::{
    CallKind, CutSignal, Failure, ModelReply, ModelRequest, Stage, Usage, Workflow,
};
use serde::Deserialize;

const TODO: &str = r#"{
    "prefix": "todo", "records_key": "tasks",
    "core": [
        {"name": "title", "type": "str", "unique": true},
        {"name": "done", "type": "bool"},
        {"name": "due", "type": "date", "optional": true}
    ]
}"#;

fn todo() -> Contract {
    Contract::from_json(TODO).unwrap()
}

/// A model that returns planned replies in order and records every request.
struct Script {
    replies: VecDeque<Result<ModelReply, String>>,
    requests: Vec<ModelRequest>,
}

impl Script {
    fn new(replies: Vec<ModelReply>) -> Self {
        Script {
            replies: replies.into_iter().map(Ok).collect(),
            requests: Vec::new(),
        }
    }

    fn texts(texts: &[&str]) -> Self {
        Script::new(texts.iter().map(|t| ModelReply::text(*t)).collect())
    }

    fn answer(&mut self, request: &ModelRequest) -> Result<ModelReply, String> {
        self.requests.push(request.clone());
        self.replies
            .pop_front()
            .unwrap_or_else(|| Err("the script has no more answers".to_string()))
    }

    fn kinds(&self) -> Vec<&'static str> {
        self.requests.iter().map(|r| r.kind.name()).collect()
    }
}

fn stages<'a>(stages: &'a [Stage], name: &str) -> Vec<&'a Stage> {
    stages
        .iter()
        .filter(|s| {
            serde_json::to_value(s).unwrap()["stage"] == serde_json::Value::String(name.into())
        })
        .collect()
}

#[test]
fn a_valid_first_answer_takes_one_call() {
    let mut m = Script::texts(&["todo|n=2\nbuy milk|false|2026-12-24\nwrite docs|true|"]);
    let run = Workflow::new(todo())
        .run("two chores", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(run.report.calls, 1);
    assert_eq!(m.kinds(), ["generate"]);
    assert_eq!(run.value["tasks"][0]["title"], "buy milk");
    assert_eq!(run.value["tasks"][1]["due"], serde_json::Value::Null);
    assert!(run.report.ok);
    assert_eq!(run.report.summary, "2 valid records · 1 model call(s)");
    // the first prompt: the task, then the format block
    let p = &m.requests[0].prompt;
    assert!(p.starts_with("Task:\ntwo chores"), "{p}");
    assert!(p.contains(".mini FORMAT — family 'todo'"), "{p}");
    assert_eq!(
        m.requests[0].prompt,
        Workflow::new(todo()).prompt("two chores")
    );
}

#[test]
fn the_prompt_names_the_expected_count() {
    let p = Workflow::new(todo()).expected_records(12).prompt("chores");
    assert!(
        p.contains("Required record count: 12 (the header declares n=12)."),
        "{p}"
    );
    let es = Workflow::new(todo())
        .lang(Lang::Es)
        .expected_records(3)
        .prompt("tareas");
    assert!(
        es.starts_with("Tarea:\ntareas\nNúmero de registros requerido: 3"),
        "{es}"
    );
}

#[test]
fn one_broken_line_is_repaired_selectively() {
    let answer = "Here you go:\n```mini\ntodo|n=3\nbuy milk|false|2026-12-24\nwrite docs|maybe|\ncall mom|true|\n```";
    let mut m = Script::texts(&[answer, "todo|n=1\nwrite docs|false|"]);
    let run = Workflow::new(todo())
        .run("chores", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(run.report.calls, 2);
    assert_eq!(m.kinds(), ["generate", "repair"]);
    assert_eq!(m.requests[1].kind, CallKind::Repair { lines: vec![3] });
    // the repair prompt names that line only
    let p = &m.requests[1].prompt;
    assert!(p.contains("[L3] write docs|maybe|"), "{p}");
    assert!(!p.contains("[L2]") && !p.contains("[L4]"), "{p}");
    // every other line byte-identical
    assert_eq!(
        run.text,
        "todo|n=3\nbuy milk|false|2026-12-24\nwrite docs|false|\ncall mom|true|"
    );
    assert_eq!(run.value["tasks"][1]["done"], false);
    let repair = stages(&run.report.stages, "repair");
    assert_eq!(repair.len(), 1);
    match repair[0] {
        Stage::Repair {
            asked,
            applied,
            refused,
            ..
        } => {
            assert_eq!(asked, &["L3"]);
            assert_eq!(applied, &["L3"]);
            assert!(refused.is_none());
        }
        other => panic!("{other:?}"),
    }
    // the extraction fixes are reported
    match stages(&run.report.stages, "extract")[0] {
        Stage::Extract { fixes, .. } => assert_eq!(fixes.len(), 3, "{fixes:?}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        run.report.summary,
        "3 valid records · 1 selective correction(s) · 3 local fix(es) · 2 model call(s)"
    );
}

#[test]
fn a_repair_reply_that_touches_a_valid_line_is_refused() {
    let doc = "todo|n=2\nbuy milk|false|\nwrite docs|maybe|";
    // the reply rewrites the valid line 2 as well: two lines for one item
    let mut m = Script::texts(&[doc, "todo|n=2\nbuy bread|true|\nwrite docs|true|"]);
    let err = Workflow::new(todo())
        .run("chores", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert!(matches!(err.failure(), Failure::Invalid { lines } if lines == &[3]));
    // nothing changed: the valid line is byte-identical
    assert_eq!(err.text(), doc);
    match stages(&err.report().stages, "repair")[0] {
        Stage::Repair {
            applied, refused, ..
        } => {
            assert!(applied.is_empty());
            assert!(refused
                .as_deref()
                .unwrap()
                .contains("2 correction line(s) but 1"));
        }
        other => panic!("{other:?}"),
    }
    // a correction that takes a valid record's unique value is refused too
    let mut m = Script::texts(&[doc, "todo|n=1\nbuy milk|true|"]);
    let err = Workflow::new(todo())
        .run("chores", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert_eq!(err.text(), doc);
    match stages(&err.report().stages, "repair")[0] {
        Stage::Repair { left, .. } => {
            assert!(
                left[0].reason.contains("reuses a unique value (title)"),
                "{left:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // the valid records come back marked partial, never as a success
    let partial = err.partial().unwrap();
    assert_eq!((partial.records, partial.target), (1, Some(2)));
    assert_eq!(partial.value["tasks"][0]["title"], "buy milk");
}

#[test]
fn a_cut_answer_with_the_provider_signal_is_continued() {
    // the last line looks valid but the provider says the answer was cut
    let first = ModelReply::text("todo|n=4\na|true|\nb|false|\nc|true")
        .with_cut(true)
        .with_usage(Usage::new(100, 20));
    let second = ModelReply::text("todo|n=2\nc|true|2026-01-01\nd|false|")
        .with_cut(false)
        .with_usage(Usage::new(120, 15));
    let mut m = Script::new(vec![first, second]);
    let run = Workflow::new(todo())
        .run("four chores", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(run.report.calls, 2);
    assert_eq!(
        m.requests[1].kind,
        CallKind::Continue {
            missing: 2,
            kept: 2
        }
    );
    let p = &m.requests[1].prompt;
    assert!(p.contains("2 of 4 records were received and kept"), "{p}");
    assert!(p.contains(r#"do not repeat them: ["a","b"]"#), "{p}");
    assert!(p.contains("first line is exactly:\ntodo|n=2"), "{p}");
    assert!(p.contains("Required record count: 2"), "{p}");
    // the header (and its n) as the model wrote it, exactly n records
    assert_eq!(
        run.text,
        "todo|n=4\na|true|\nb|false|\nc|true|2026-01-01\nd|false|"
    );
    match stages(&run.report.stages, "cut")[0] {
        Stage::Cut {
            signal,
            kept,
            dropped_line,
            declared,
            ..
        } => {
            assert_eq!(*signal, CutSignal::Provider);
            assert_eq!((*kept, *declared), (2, Some(4)));
            assert_eq!(dropped_line.as_deref(), Some("c|true"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(run.report.usage, Some(Usage::new(220, 35)));
    assert_eq!(run.report.calls_with_usage, 2);
    assert_eq!(
        run.report.summary,
        "4 valid records · cut answer: 2 kept, 2 asked again · 2 model call(s)"
    );
}

#[test]
fn a_provider_cut_right_after_a_line_break_keeps_the_last_line() {
    let first = ModelReply::text("todo|n=3\na|true|\nb|false|\n").with_cut(true);
    let mut m = Script::new(vec![first, ModelReply::text("todo|n=1\nc|true|")]);
    let run = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(run.text, "todo|n=3\na|true|\nb|false|\nc|true|");
    assert_eq!(
        m.requests[1].kind,
        CallKind::Continue {
            missing: 1,
            kept: 2
        }
    );
}

#[test]
fn a_cut_is_inferred_from_a_short_last_line() {
    let mut m = Script::texts(&["todo|n=3\na|true|\nb|false|\nc", "todo|n=1\nc|true|"]);
    let run = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(m.kinds(), ["generate", "continue"]);
    assert_eq!(run.text, "todo|n=3\na|true|\nb|false|\nc|true|");
    match stages(&run.report.stages, "cut")[0] {
        Stage::Cut {
            signal,
            dropped_line,
            ..
        } => {
            assert_eq!(*signal, CutSignal::ShortLastLine);
            assert_eq!(dropped_line.as_deref(), Some("c"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cut_is_inferred_from_fewer_lines_than_n() {
    let mut m = Script::texts(&["todo|n=3\na|true|\nb|false|", "todo|n=1\nc|true|"]);
    let run = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(m.kinds(), ["generate", "continue"]);
    assert_eq!(run.value["tasks"].as_array().unwrap().len(), 3);
    assert!(matches!(
        stages(&run.report.stages, "cut")[0],
        Stage::Cut {
            signal: CutSignal::FewerLines,
            dropped_line: None,
            kept: 2,
            ..
        }
    ));
}

#[test]
fn fewer_lines_than_n_with_an_invalid_last_line_drop_it() {
    // `b|fa|` has every field but its value was cut: with lines missing, the
    // last line is not known to be complete, so it is asked again
    let mut m = Script::texts(&["todo|n=3\na|true|\nb|fa|", "todo|n=2\nb|false|\nc|true|"]);
    let run = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(m.kinds(), ["generate", "continue"]);
    assert_eq!(
        m.requests[1].kind,
        CallKind::Continue {
            missing: 2,
            kept: 1
        }
    );
    assert_eq!(run.text, "todo|n=3\na|true|\nb|false|\nc|true|");
    assert!(matches!(
        stages(&run.report.stages, "cut")[0],
        Stage::Cut { signal: CutSignal::FewerLines, dropped_line: Some(l), .. } if l == "b|fa|"
    ));
    // with as many lines as n, the same line is a broken one: repaired
    let mut m = Script::texts(&["todo|n=2\na|true|\nb|fa|", "todo|n=1\nb|false|"]);
    Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(m.kinds(), ["generate", "repair"]);
}

#[test]
fn a_continuation_keeps_only_the_missing_records() {
    // the continuation repeats more records than asked: the extra is left out
    let mut m = Script::texts(&["todo|n=2\na|true|", "todo|n=3\nb|true|\nc|true|\nd|true|"]);
    let run = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(run.text, "todo|n=2\na|true|\nb|true|");
    assert!(matches!(
        stages(&run.report.stages, "continuation")[0],
        Stage::Continuation {
            requested: 1,
            appended: 1,
            extra_dropped: 2,
            ..
        }
    ));
}

#[test]
fn a_continuation_that_repeats_a_kept_record_is_repaired() {
    // the continuation's record takes the kept record's unique title (E11)
    let mut m = Script::texts(&[
        "todo|n=2\na|true|",
        "todo|n=1\na|false|",
        "todo|n=1\nb|false|",
    ]);
    let run = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(m.kinds(), ["generate", "continue", "repair"]);
    assert_eq!(run.text, "todo|n=2\na|true|\nb|false|");
}

#[test]
fn a_complete_but_short_batch_against_an_expected_count_fails() {
    let doc = "todo|n=2\na|true|\nb|false|";
    let mut m = Script::texts(&[doc]);
    let err = Workflow::new(todo())
        .expected_records(3)
        .max_repairs(0)
        .run("three chores", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert!(
        matches!(err.failure(), Failure::WrongCount(why) if why.contains("n=2 but 3 records are required")),
        "{:?}",
        err.failure()
    );
    assert_eq!(err.report().calls, 1);
    assert!(!err.report().ok);
    assert_eq!(err.partial().unwrap().records, 2);
    // with a round left it is regenerated, saying why
    let mut m = Script::texts(&[doc, "todo|n=3\na|true|\nb|false|\nc|true|"]);
    let run = Workflow::new(todo())
        .expected_records(3)
        .run("three chores", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(m.kinds(), ["generate", "regenerate"]);
    assert!(m.requests[1]
        .prompt
        .contains("n=2 but 3 records are required"));
    assert_eq!(run.value["tasks"].as_array().unwrap().len(), 3);
}

#[test]
fn more_record_lines_than_n_is_not_a_success() {
    let mut m = Script::texts(&["todo|n=1\na|true|\nb|false|"]);
    let err = Workflow::new(todo())
        .max_repairs(0)
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert!(
        matches!(err.failure(), Failure::WrongCount(_)),
        "{:?}",
        err.failure()
    );
}

#[test]
fn rounds_exhausted_fail_with_the_report() {
    let doc = "todo|n=2\na|true|\nb|maybe|";
    let mut m = Script::texts(&[doc, "todo|n=1\nb|perhaps|", "todo|n=1\nb|nope|"]);
    let err = Workflow::new(todo())
        .max_repairs(2)
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert_eq!(m.kinds(), ["generate", "repair", "repair"]);
    assert!(matches!(err.failure(), Failure::Invalid { lines } if lines == &[3]));
    assert_eq!(err.report().calls, 3);
    assert_eq!(stages(&err.report().stages, "validate").len(), 3);
    assert_eq!(
        err.diagnostics()[0].to_string(),
        "E06 line 3 [done]: expected true/false/1/0, got 'maybe'"
    );
    assert!(
        err.report()
            .summary
            .starts_with("FAILED: 1 of 2 records valid"),
        "{}",
        err.report().summary
    );
    assert!(err
        .to_string()
        .contains("still invalid after every repair round"));
    // the report is JSON
    let json: serde_json::Value = serde_json::from_str(&err.report().to_json()).unwrap();
    assert_eq!(json["ok"], false);
    assert_eq!(json["stages"][0]["stage"], "call");
    assert_eq!(json["stages"][0]["kind"], "generate");
}

#[test]
fn a_model_error_propagates_with_the_report() {
    let mut m = Script::texts(&["todo|n=2\na|true|\nb|maybe|"]);
    // the second call finds no more answers: the script returns an error
    let err = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert!(err.is_model_error());
    assert!(
        matches!(err.failure(), Failure::Model(e) if e.to_string() == "the script has no more answers")
    );
    assert_eq!(err.report().calls, 2);
    match err
        .report()
        .stages
        .iter()
        .rev()
        .find(|s| matches!(s, Stage::Call { .. }))
    {
        Some(Stage::Call {
            error,
            answer_chars,
            ..
        }) => {
            assert_eq!(error.as_deref(), Some("the script has no more answers"));
            assert_eq!(*answer_chars, None);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.text(), "todo|n=2\na|true|\nb|maybe|");
}

#[test]
fn an_answer_with_no_document_is_regenerated_once() {
    let mut m = Script::texts(&["I'm sorry, I cannot help with that.", "todo|n=1\na|true|"]);
    let run = Workflow::new(todo())
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(m.kinds(), ["generate", "regenerate"]);
    let p = &m.requests[1].prompt;
    assert!(p.contains("REGENERATION REQUEST"), "{p}");
    assert!(p.contains("no header line 'todo|n=…'"), "{p}");
    assert!(p.contains(".mini FORMAT"), "{p}");
    assert_eq!(run.report.calls, 2);
    assert_eq!(
        run.report.summary,
        "1 valid records · 1 regeneration(s) · 2 model call(s)"
    );
    // an empty reply, and a broken header, likewise
    for bad in ["", "todo|k=3\na|true|", "other|n=1\na|true|"] {
        let mut m = Script::texts(&[bad, "todo|n=1\na|true|"]);
        let run = Workflow::new(todo()).run("t", |r: &ModelRequest| m.answer(r));
        assert!(run.is_ok(), "{bad:?}");
        assert_eq!(m.kinds(), ["generate", "regenerate"], "{bad:?}");
    }
    // and with no round left, it fails saying so
    let mut m = Script::texts(&["no"]);
    let err = Workflow::new(todo())
        .max_repairs(0)
        .run("t", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert!(matches!(err.failure(), Failure::NoDocument(_)));
    assert!(err.partial().is_none());
}

#[test]
fn the_call_bound_holds() {
    // models that never give a usable answer: garbage, broken lines, cuts
    let answers: [fn(usize) -> ModelReply; 4] = [
        |_| ModelReply::text("no document"),
        |_| ModelReply::text("todo|n=3\na|maybe|\nb|maybe|\nc|maybe|"),
        |i| ModelReply::text(format!("todo|n=5\nx{i}|true|\ny")).with_cut(true),
        |i| ModelReply::text(format!("todo|n=9\nz{i}|true|\nq|maybe|")),
    ];
    for answer in answers {
        for repairs in 0..=3 {
            for continuations in 0..=2 {
                let mut calls = 0;
                let wf = Workflow::new(todo())
                    .max_repairs(repairs)
                    .max_continuations(continuations);
                let err = wf
                    .run("t", |_: &ModelRequest| {
                        calls += 1;
                        answer(calls)
                    })
                    .unwrap_err();
                assert!(calls <= 1 + repairs + continuations);
                assert_eq!(err.report().calls, calls);
                assert_eq!(err.report().max_calls, 1 + repairs + continuations);
            }
        }
    }
}

#[test]
fn rounds_out_of_range_are_a_configuration_error() {
    for wf in [
        Workflow::new(todo()).max_repairs(4),
        Workflow::new(todo()).max_continuations(3),
    ] {
        let mut calls = 0;
        let err = wf
            .run("t", |_: &ModelRequest| {
                calls += 1;
                "todo|n=0"
            })
            .unwrap_err();
        assert!(matches!(err.failure(), Failure::Config(_)));
        assert_eq!(calls, 0);
    }
}

#[derive(Debug, Deserialize, PartialEq, mini::Mini)]
#[mini(prefix = "todo", records = "tasks")]
struct Todos {
    tasks: Vec<Task>,
}

#[derive(Debug, Deserialize, PartialEq, mini::Mini)]
struct Task {
    #[mini(unique)]
    title: String,
    done: bool,
    due: Option<mini::Date>,
}

#[test]
fn a_typed_run_returns_the_structs() {
    let mut m = Script::texts(&[
        "```\ntodo|n=2\nbuy milk|false|2026-12-24\nwrite docs|maybe|\n```",
        "todo|n=1\nwrite docs|true|",
    ]);
    let run = Workflow::for_type::<Todos>()
        .unwrap()
        .run_typed::<Todos, _, _>("chores", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert_eq!(run.value.tasks.len(), 2);
    assert!(run.value.tasks[1].done);
    assert_eq!(run.report.records, 2);
}

#[test]
fn a_typed_run_refused_by_the_rust_type_is_a_decode_failure() {
    #[derive(Debug, Deserialize, mini::Mini)]
    #[mini(prefix = "c", records = "items")]
    struct Counts {
        #[allow(dead_code)]
        items: Vec<Count>,
    }
    #[derive(Debug, Deserialize, mini::Mini)]
    struct Count {
        #[allow(dead_code)]
        value: u8,
    }
    let mut m = Script::texts(&["c|n=1\n300"]);
    let err = Workflow::for_type::<Counts>()
        .unwrap()
        .run_typed::<Counts, _, _>("t", |r: &ModelRequest| m.answer(r))
        .unwrap_err();
    assert!(
        matches!(err.failure(), Failure::Decode),
        "{:?}",
        err.failure()
    );
    assert_eq!(err.diagnostics()[0].line(), 2);
}

/// The scripted answers of the async/sync comparison, and their cut signals.
fn mixed_answers() -> Vec<ModelReply> {
    vec![
        ModelReply::text("Sure:\n```\ntodo|n=4\na|true|\nb|maybe|\nc|tr").with_cut(true),
        ModelReply::text("todo|n=1\nb|false|"),
        ModelReply::text("todo|n=2\nc|true|\nd|false|").with_usage(Usage::new(5, 6)),
    ]
}

#[test]
fn async_equals_sync() {
    let wf = Workflow::new(todo()).max_repairs(2);
    let mut sync_model = Script::new(mixed_answers());
    let sync_run = wf
        .run("t", |r: &ModelRequest| sync_model.answer(r))
        .unwrap();

    let mut async_model = Script::new(mixed_answers());
    let async_run = pollster::block_on(wf.run_async("t", |r: ModelRequest| {
        let reply = async_model.answer(&r);
        async move { reply }
    }))
    .unwrap();
    assert_eq!(sync_run.value, async_run.value);
    assert_eq!(sync_run.text, async_run.text);
    assert_eq!(sync_run.report, async_run.report);
    assert_eq!(sync_model.requests, async_model.requests);
    assert_eq!(sync_model.kinds(), ["generate", "repair", "continue"]);
    assert_eq!(
        sync_run.text,
        "todo|n=4\na|true|\nb|false|\nc|true|\nd|false|"
    );

    // and the typed async form
    let mut m = Script::new(mixed_answers());
    let typed: Todos = pollster::block_on(wf.run_typed_async("t", |r: ModelRequest| {
        let reply = m.answer(&r);
        async move { reply }
    }))
    .unwrap()
    .value;
    assert_eq!(typed.tasks.len(), 4);
}

#[test]
fn spanish_requests_and_summary() {
    let mut m = Script::texts(&["todo|n=2\na|true|", "todo|n=1\nb|false|"]);
    let run = Workflow::new(todo())
        .lang(Lang::Es)
        .run("tareas", |r: &ModelRequest| m.answer(r))
        .unwrap();
    assert!(m.requests[1].prompt.contains("PETICIÓN DE CONTINUACIÓN"));
    assert_eq!(
        run.report.summary_es,
        "2 registros válidos · respuesta cortada: 1 conservados, 1 pedidos de nuevo · 2 llamada(s) al modelo"
    );
}

#[test]
fn process_runs_the_pipeline_without_a_model() {
    let wf = Workflow::new(todo());
    let run = wf.process("```\ntodo|n=1\na|true|\n```\n").unwrap();
    assert_eq!(run.report.calls, 0);
    assert_eq!(run.value["tasks"][0]["title"], "a");
    let err = wf.process("todo|n=2\na|true|").unwrap_err();
    assert!(matches!(
        err.failure(),
        Failure::Incomplete {
            expected: 2,
            received: 1
        }
    ));
    let err = wf.process("todo|n=1\na|maybe|").unwrap_err();
    assert!(matches!(err.failure(), Failure::Invalid { .. }));
    assert_eq!(err.diagnostics()[0].line(), 2);
}
