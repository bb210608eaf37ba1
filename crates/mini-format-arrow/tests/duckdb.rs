//! End to end: the Parquet file written from the `q` family's fixture is
//! queried by DuckDB (a GROUP BY, tests/query.py) and the answer compared
//! with the canonical JSON.
//!
//! The Python comes from `MINI_ARROW_PYTHON` (`.ci/arrow.sh` points it at a
//! virtual environment under `target/` with the `duckdb` wheel). The test
//! is `#[ignore]`d in a plain `cargo test`, so that it shows as ignored,
//! never as passed; `.ci/arrow.sh` runs it with `--ignored`, and then a
//! missing variable or a Python that cannot run the query fails it.

mod common;

use common::*;
use mini_arrow::{Converter, Input, Options};

#[test]
#[ignore = "needs DuckDB in a Python: .ci/arrow.sh runs it (MINI_ARROW_PYTHON)"]
fn duckdb_groups_the_parquet_like_the_canonical_json() {
    let python = std::env::var_os("MINI_ARROW_PYTHON")
        .expect("set MINI_ARROW_PYTHON to a Python with duckdb (.ci/arrow.sh does)");
    let families = families();
    let (_, contract, dir) = families.iter().find(|f| f.0 == "q").unwrap();
    let text = std::fs::read_to_string(dir.join("fixtures/valid.mini")).unwrap();
    let path = tmp("q-duckdb.parquet");
    let conv = Converter::new(
        contract,
        Options {
            batch_size: 5,
            ..Options::default()
        },
    )
    .unwrap();
    conv.write_parquet(
        [Input::text("valid.mini", &text)],
        std::fs::File::create(&path).unwrap(),
    )
    .unwrap();
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/query.py");
    let out = std::process::Command::new(&python)
        .arg(script)
        .arg(&path)
        .arg(dir.join("fixtures/canonical.json"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {python:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "query.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
