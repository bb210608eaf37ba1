//! Runs the upstream conformance suite (376 cases) and the project's own
//! cases under `conformance/`.
//!
//! The upstream suite is read from `../shared/conformance` (relative to the
//! crate root) or from the directory in `MINI_CONFORMANCE`.
//!
//! A test of its own harness (`harness = false` in Cargo.toml): libtest
//! would hide the per-suite counts unless run with `--nocapture` and show
//! "2 passed" for 376 cases. Here every `cargo test` prints one line per
//! suite on stdout (`upstream: 376 passed, 0 failed`), each failing case,
//! and exits non-zero when a suite fails.

use std::path::PathBuf;

use mini_tools::conformance::{Report, Runner};

fn upstream_dir() -> PathBuf {
    match std::env::var_os("MINI_CONFORMANCE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join("../shared/conformance"),
    }
}

fn print_failures(report: &Report) {
    for o in report.outcomes.iter().filter(|o| o.failure.is_some()) {
        eprintln!(
            "FAIL {} ({}): {}",
            o.id,
            o.file.display(),
            o.failure.as_deref().unwrap_or("")
        );
    }
}

fn upstream_suite_passes() {
    let dir = upstream_dir();
    assert!(
        dir.join("cases").is_dir(),
        "the upstream conformance suite is not at {}: put it at ../shared/conformance \
         (next to the crate) or set MINI_CONFORMANCE=/path/to/conformance",
        dir.display()
    );
    let report = Runner::default().run_dir(&dir).expect("suite readable");
    print_failures(&report);
    println!("upstream: {}", report.summary());
    assert_eq!(
        report.outcomes.len(),
        376,
        "the upstream suite has 376 cases"
    );
    assert_eq!(report.failed(), 0, "{}", report.summary());
}

fn own_suite_passes() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join("conformance");
    let report = Runner::new([upstream_dir().join("forks")])
        .run_dir(&dir)
        .expect("own cases readable");
    print_failures(&report);
    println!("own: {}", report.summary());
    assert!(
        !report.outcomes.is_empty(),
        "no own cases found under conformance/cases"
    );
    assert_eq!(report.failed(), 0, "{}", report.summary());
    // the cases that need exact big ints run only with `arbitrary_precision`
    let big_int_cases = if mini::ARBITRARY_PRECISION { 0 } else { 5 };
    assert_eq!(report.not_run(), big_int_cases, "{}", report.summary());
}

/// A `dumps` case from its contract, input and expected errors.
fn dumps_case(
    input: serde_json::Value,
    errors: serde_json::Value,
) -> mini_tools::conformance::Case {
    serde_json::from_value(serde_json::json!({
        "id": "runner-dumps-first-error",
        "mode": "dumps",
        "contract": {"prefix": "t", "core": [{"name": "a", "type": "int"}]},
        "input": input,
        "expected": {"rejected": true, "errors": errors}
    }))
    .expect("a case")
}

/// As upstream's runner (`conformance/README.en.md`, `dumps` mode): a
/// rejection passes when the serializer's error, its first diagnostic, has
/// one of the expected `(code, line)` pairs; later diagnostics (other
/// records) are not judged.
fn dumps_rejection_is_judged_by_the_first_diagnostic() {
    let runner = Runner::default();
    let dir = std::path::Path::new(".");
    let two_bad = serde_json::json!({"prefix": "t", "header": {},
        "records": [{"a": "x"}, {"a": "y"}]});
    // the first diagnostic (E06 on line 2) is expected; the second record's
    // E06 on line 3 is not listed, and does not fail the case
    let case = dumps_case(
        two_bad.clone(),
        serde_json::json!([{"code": "E06", "line": 2}]),
    );
    assert_eq!(runner.run_case(&case, dir), Ok(()));
    // the first diagnostic is not among the expected pairs: a failure
    let case = dumps_case(two_bad, serde_json::json!([{"code": "E06", "line": 3}]));
    assert!(runner.run_case(&case, dir).is_err());
}

/// Runs both suites (each in its own unwinding scope, so that one failing
/// does not hide the other's counts) and fails the test binary if either
/// failed. `cargo test -- NAME` filters as libtest would.
fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let suites: [(&str, fn()); 3] = [
        ("upstream_suite_passes", upstream_suite_passes),
        ("own_suite_passes", own_suite_passes),
        (
            "dumps_rejection_is_judged_by_the_first_diagnostic",
            dumps_rejection_is_judged_by_the_first_diagnostic,
        ),
    ];
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, run) in suites {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        if std::panic::catch_unwind(run).is_err() {
            failed.push(name);
        }
    }
    println!(
        "conformance: {} check(s) run, {} failed{}",
        ran,
        failed.len(),
        if failed.is_empty() {
            String::new()
        } else {
            format!(": {}", failed.join(", "))
        }
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}
