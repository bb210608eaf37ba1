//! `mini to-parquet` and `mini to-arrow` (feature `arrow`): a file, a
//! directory with its `source` column, stdin, strict and lenient, and the
//! usage errors. The files written are read back with the `parquet`
//! crate's Arrow reader and the Arrow IPC stream reader.
#![cfg(feature = "arrow")]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use mini_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{Map, Value};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn forks() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p).join("forks"),
        None => root().join("../shared/conformance/forks"),
    }
}

fn tmp(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("columnar");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
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
        .unwrap();
    {
        let mut pipe = child.stdin.take().unwrap();
        if let Some(data) = stdin {
            pipe.write_all(data).unwrap();
        }
    }
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn parquet_rows(path: &Path) -> Vec<Map<String, Value>> {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(path).unwrap())
        .unwrap()
        .build()
        .unwrap();
    reader
        .flat_map(|b| mini_arrow::to_json_rows(&b.unwrap()).unwrap())
        .collect()
}

fn canonical(prefix: &str) -> Value {
    let p = forks().join(prefix).join("fixtures/canonical.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn a_file_to_parquet() {
    let out = tmp("q.parquet");
    let file = forks().join("q/fixtures/valid.mini");
    let forks_dir = forks();
    let o = mini(
        &[
            "to-parquet",
            file.to_str().unwrap(),
            "--forks",
            forks_dir.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert!(
        text(&o.stdout).starts_with("OK: wrote "),
        "{}",
        text(&o.stdout)
    );
    let rows = parquet_rows(&out);
    let want = canonical("q");
    let items = want["items"].as_array().unwrap();
    assert_eq!(rows.len(), items.len());
    for (row, item) in rows.iter().zip(items) {
        assert_eq!(row["id"], item["id"]);
        assert_eq!(row["bloom"], item["bloom"]);
        assert_eq!(row["options"], item["options"]);
        assert_eq!(row["correct"], item["correct"]);
        assert_eq!(row["hint"], item["hint"]);
        assert_eq!(row["header"]["m"], want["header"]["m"]);
        assert!(
            !row.contains_key("source"),
            "one file: no source column unless --source"
        );
    }
}

#[test]
fn a_directory_strict_and_lenient() {
    let dir = forks().join("q/fixtures");
    let forks_dir = forks();
    let out = tmp("dir.parquet");
    let args = |extra: &[&'static str]| {
        let mut a: Vec<String> = [
            "to-parquet",
            dir.to_str().unwrap(),
            "-p",
            "q",
            "--forks",
            forks_dir.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    // strict: the first problem, no file
    let a = args(&[]);
    let o = mini(&a.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stdout).starts_with("bad_arity.mini: E05 line 3"),
        "{}",
        text(&o.stdout)
    );
    assert!(!out.exists(), "a strict failure writes nothing");
    // lenient: the valid records of every file, each problem on stderr
    let a = args(&["--lenient", "--batch-size", "7"]);
    let o = mini(&a.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(o.status.code(), Some(1), "problems were reported");
    let err = text(&o.stderr);
    for needle in [
        "bad_arity.mini: E05",
        "bad_count.mini: E04",
        "bad_marker.mini: E08",
        "bad_type.mini: E06",
    ] {
        assert!(err.contains(needle), "{needle}: {err}");
    }
    assert!(
        text(&o.stdout).starts_with("LENIENT: wrote "),
        "{}",
        text(&o.stdout)
    );
    let rows = parquet_rows(&out);
    let sources: std::collections::BTreeSet<_> = rows
        .iter()
        .map(|r| r["source"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        sources.into_iter().collect::<Vec<_>>(),
        [
            "bad_arity.mini",
            "bad_count.mini",
            "bad_marker.mini",
            "bad_type.mini",
            "escaping.mini",
            "valid.mini"
        ]
    );
    let valid: Vec<_> = rows
        .iter()
        .filter(|r| r["source"] == "valid.mini")
        .collect();
    assert_eq!(
        valid.len(),
        canonical("q")["items"].as_array().unwrap().len()
    );
    assert_eq!(valid[0]["source_line"], 2);
}

#[test]
fn stdin_to_an_arrow_ipc_stream() {
    let doc = std::fs::read(forks().join("cat/fixtures/valid.mini")).unwrap();
    let contract = forks().join("cat/contract.json");
    let out = tmp("cat.arrows");
    let o = mini(
        &[
            "to-arrow",
            "-",
            "--contract",
            contract.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--batch-size",
            "5",
            "--source",
        ],
        Some(&doc),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let reader = mini_arrow::arrow_ipc::reader::StreamReader::try_new(&bytes[..], None).unwrap();
    let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
    assert_eq!(
        batches.iter().map(|b| b.num_rows()).collect::<Vec<_>>(),
        [5, 5, 2]
    );
    let rows = mini_arrow::to_json_rows(&batches[2]).unwrap();
    let want = canonical("cat");
    assert_eq!(rows[1]["sku"], want["products"][11]["sku"]);
    assert_eq!(rows[1]["source"], "-");
    // without --contract, the prefix comes from the header line
    let forks_dir = forks();
    let o = mini(
        &[
            "to-arrow",
            "-",
            "--forks",
            forks_dir.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        Some(&doc),
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
}

#[test]
fn usage_errors() {
    let file = forks().join("q/fixtures/valid.mini");
    let out = tmp("never.parquet");
    let o = mini(
        &[
            "to-parquet",
            file.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(3), "no contract: unverified");
    let forks_dir = forks();
    let o = mini(
        &[
            "to-parquet",
            file.to_str().unwrap(),
            "--forks",
            forks_dir.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--batch-size",
            "0",
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    let o = mini(
        &[
            "to-parquet",
            "/nonexistent.mini",
            "--forks",
            forks_dir.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("cannot read /nonexistent.mini"));
    assert!(!out.exists());
}
