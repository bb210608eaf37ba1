//! `mini validate`, `diagnose` and `to-json --stream` run in bounded memory
//! whatever the input size (issue 14, item 7): on a 64 MiB document the peak
//! resident memory of the `mini` process stays under a bound far below the
//! input size. Nothing is timed: the peak is the kernel's account of the
//! finished children (`getrusage(RUSAGE_CHILDREN)`, `ru_maxrss`), in this
//! test binary, which runs no other child.
//!
//! The contract is the quiz family's without `unique`: checking a unique
//! field (E11) must remember each distinct value seen, which is the one
//! thing that grows with the records (as in the library's `validate`).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Peak resident set size of every waited-for child so far, in bytes.
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0, "getrusage");
    // Linux reports kilobytes
    u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024
}

/// A valid quiz document of about `bytes` bytes.
fn big_document(bytes: usize) -> PathBuf {
    let line = |i: usize| {
        format!(
            "q{i}|Where does photosynthesis mainly take place, case {i}?|chloroplasts*,nucleus,mitochondria,ribosomes|1|remember|biology,cells|0.9,-1,0.25\n"
        )
    };
    let per = line(1_000_000).len();
    let n = bytes / per;
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("big-{n}.mini"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    writeln!(f, "quiz|n={n}|k=4|topic=photosynthesis").expect("write");
    for i in 0..n {
        f.write_all(line(i).as_bytes()).expect("write");
    }
    f.flush().expect("flush");
    path
}

#[test]
fn validate_diagnose_and_stream_run_in_bounded_memory() {
    const INPUT: usize = 64 << 20;
    const BOUND: u64 = 16 << 20;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let doc = big_document(INPUT);
    let size = std::fs::metadata(&doc).expect("doc").len();
    assert!(
        size > 2 * BOUND,
        "the input ({size} bytes) outgrows the bound"
    );
    let doc = doc.to_string_lossy().into_owned();
    let quiz = std::fs::read_to_string(root.join("examples/forks/quiz/contract.json"))
        .expect("quiz contract");
    let mut contract: serde_json::Value = serde_json::from_str(&quiz).expect("json");
    contract["core"][0]
        .as_object_mut()
        .expect("id field")
        .remove("unique");
    let contract_path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("quiz-not-unique.json");
    std::fs::write(&contract_path, contract.to_string()).expect("write contract");
    let contract_path = contract_path.to_string_lossy().into_owned();
    for args in [
        vec!["validate", &doc],
        vec!["diagnose", &doc],
        vec!["to-json", "--stream", &doc],
    ] {
        let status = Command::new(env!("CARGO_BIN_EXE_mini"))
            .args(&args)
            .args(["--contract", &contract_path])
            .current_dir(&root)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("mini runs");
        assert_eq!(status.code(), Some(0), "{args:?}");
        let peak = children_peak_rss();
        assert!(
            peak < BOUND,
            "{args:?}: peak RSS {} MiB on a {} MiB input (bound {} MiB)",
            peak >> 20,
            size >> 20,
            BOUND >> 20
        );
        eprintln!("{args:?}: peak RSS so far {} MiB", peak >> 20);
    }
    let _ = std::fs::remove_file(&doc);
}
