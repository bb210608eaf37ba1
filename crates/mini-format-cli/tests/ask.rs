//! `mini ask` with small scripts as `--model-cmd`, and `mini process`.
//! The scripts are real commands run through the shell; no network.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn mini(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mini"))
        .args(args)
        .current_dir(dir)
        .env_remove("MINI_FORKS")
        .output()
        .expect("mini runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A scratch directory with the todo contract and a model script that
/// answers call N with `answer-N.txt` and logs each prompt it receives.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str, answers: &[&str]) -> Self {
        let dir = std::env::temp_dir().join(format!("mini-ask-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("todo.json"),
            r#"{"prefix": "todo", "records_key": "tasks",
                "core": [{"name": "title", "type": "str", "unique": true},
                         {"name": "done", "type": "bool"}]}"#,
        )
        .unwrap();
        for (i, a) in answers.iter().enumerate() {
            std::fs::write(dir.join(format!("answer-{}.txt", i + 1)), a).unwrap();
        }
        std::fs::write(
            dir.join("model.sh"),
            "cat > \"prompt-$MINI_CALL.txt\"\n\
             echo \"$MINI_CALL_KIND\" >> kinds.txt\n\
             [ -f \"answer-$MINI_CALL.txt\" ] || { echo \"no answer $MINI_CALL\" >&2; exit 7; }\n\
             cat \"answer-$MINI_CALL.txt\"\n",
        )
        .unwrap();
        Scratch { dir }
    }

    fn ask(&self, extra: &[&str]) -> Output {
        let mut args = vec![
            "ask",
            "--contract",
            "todo.json",
            "--task",
            "two chores",
            "--model-cmd",
            "sh model.sh",
        ];
        args.extend_from_slice(extra);
        mini(&args, &self.dir)
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.dir.join(file)).unwrap_or_default()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn ask_repairs_a_broken_line_with_the_model_command() {
    let s = Scratch::new(
        "repair",
        &[
            "Sure!\n```\ntodo|n=2\nbuy milk|false\nwrite docs|maybe\n```\n",
            "todo|n=1\nwrite docs|true\n",
        ],
    );
    let o = s.ask(&["--report", "report.json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["tasks"][1]["done"], true);
    assert_eq!(
        text(&o.stderr).trim(),
        "2 valid records · 1 selective correction(s) · 3 local fix(es) · 2 model call(s)"
    );
    assert_eq!(s.read("kinds.txt"), "generate\nrepair\n");
    // the prompt went to the command's standard input
    assert!(s.read("prompt-1.txt").starts_with("Task:\ntwo chores"));
    assert!(s.read("prompt-2.txt").contains("[L3] write docs|maybe"));
    let report: serde_json::Value = serde_json::from_str(&s.read("report.json")).unwrap();
    assert_eq!(report["ok"], true);
    assert_eq!(report["calls"], 2);
}

#[test]
fn ask_continues_a_cut_answer_and_honours_the_expected_count() {
    let s = Scratch::new(
        "cut",
        &["todo|n=3\na|true\nb|fa", "todo|n=2\nb|false\nc|true\n"],
    );
    let o = s.ask(&["--expected-records", "3", "--compact"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(s.read("kinds.txt"), "generate\ncontinue\n");
    assert!(s
        .read("prompt-2.txt")
        .contains("1 of 3 records were received and kept"));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["tasks"].as_array().unwrap().len(), 3);
    assert_eq!(text(&o.stdout).lines().count(), 1);
}

#[test]
fn ask_exits_1_when_the_rounds_are_exhausted_and_writes_the_report() {
    let s = Scratch::new("invalid", &["todo|n=1\na|maybe\n", "todo|n=1\na|perhaps\n"]);
    let o = s.ask(&["--report", "report.json", "--lang", "es"]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("E06 line 2 [done]"), "{err}");
    assert!(
        err.contains("still invalid after every repair round"),
        "{err}"
    );
    assert!(err.contains("FALLO: 0 de 1 registros válidos"), "{err}");
    assert!(o.stdout.is_empty());
    let report: serde_json::Value = serde_json::from_str(&s.read("report.json")).unwrap();
    assert_eq!(report["ok"], false);
    // --max-repairs 0: one call only
    let s = Scratch::new("norepair", &["todo|n=1\na|maybe\n"]);
    let o = s.ask(&["--max-repairs", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(s.read("kinds.txt"), "generate\n");
}

#[test]
fn a_failing_model_command_exits_2_with_its_stderr() {
    let s = Scratch::new("fail", &["todo|n=2\na|true\nb|maybe\n"]);
    // the second call finds no recorded answer: the script exits 7
    let o = s.ask(&[]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("the model command exited with status 7: no answer 2"),
        "{err}"
    );
}

#[test]
fn an_empty_answer_is_an_answer_with_no_document() {
    let s = Scratch::new("empty", &["", "todo|n=1\na|true\n"]);
    let o = s.ask(&[]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(s.read("kinds.txt"), "generate\nregenerate\n");
    assert!(s.read("prompt-2.txt").contains("the answer is empty"));
}

#[test]
fn ask_usage_errors_and_unverified() {
    let s = Scratch::new("usage", &[]);
    // rounds out of range
    let o = s.ask(&["--max-repairs", "4"]);
    assert_eq!(o.status.code(), Some(2));
    // no task
    let o = mini(
        &["ask", "--contract", "todo.json", "--model-cmd", "true"],
        &s.dir,
    );
    assert_eq!(o.status.code(), Some(2));
    // no contract for the prefix: unverified, no model call
    let o = mini(
        &[
            "ask",
            "-p",
            "nope",
            "--forks",
            ".",
            "--task",
            "t",
            "--model-cmd",
            "sh model.sh",
        ],
        &s.dir,
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert_eq!(s.read("kinds.txt"), "");
}

#[test]
fn the_shipped_example_replays_repair_and_continuation() {
    let report = std::env::temp_dir().join(format!("mini-ask-example-{}.json", std::process::id()));
    let o = mini(
        &[
            "ask",
            "-p",
            "quiz",
            "--forks",
            "examples/forks",
            "--task-file",
            "examples/model/task.txt",
            "--model-cmd",
            "sh examples/model/replay.sh",
            "--report",
            report.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["items"].as_array().unwrap().len(), 5);
    assert_eq!(json["items"][1]["level"], 2);
    let err = text(&o.stderr);
    assert!(
        err.lines().last().unwrap_or_default().starts_with(
            "5 valid records · cut answer: 3 kept, 2 asked again · 1 selective correction(s)"
        ),
        "{err}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let _ = std::fs::remove_file(&report);
    let kinds: Vec<&str> = r["stages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["stage"] == "call")
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["generate", "repair", "continue"]);
}

#[test]
fn process_reads_an_answer_in_hand() {
    let s = Scratch::new("process", &[]);
    std::fs::write(s.dir.join("a.txt"), "Here:\n```\ntodo|n=1\na|true\n```\n").unwrap();
    let o = mini(&["process", "a.txt", "--contract", "todo.json"], &s.dir);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["tasks"][0]["title"], "a");
    // the prefix is read from the extracted header when no contract is named
    std::fs::create_dir_all(s.dir.join("forks/todo")).unwrap();
    std::fs::copy(
        s.dir.join("todo.json"),
        s.dir.join("forks/todo/contract.json"),
    )
    .unwrap();
    let o = mini(&["process", "a.txt", "--forks", "forks"], &s.dir);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // a broken or cut answer: the diagnostics and exit 1
    std::fs::write(s.dir.join("b.txt"), "todo|n=2\na|maybe\n").unwrap();
    let o = mini(&["process", "b.txt", "--contract", "todo.json"], &s.dir);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("E06 line 2 [done]"));
    assert!(o.stdout.is_empty());
    // no contract found: unverified
    let o = mini(&["process", "b.txt"], &s.dir);
    assert_eq!(o.status.code(), Some(3));
}
