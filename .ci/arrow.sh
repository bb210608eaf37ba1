#!/usr/bin/env bash
# The end-to-end query of mini-format-arrow (issue 22, ADR 0030): a virtual
# environment under target/ with DuckDB's wheel from PyPI (nothing
# compiled), then the Rust test that writes a family fixture to Parquet and
# has DuckDB GROUP BY it (crates/mini-format-arrow/tests/query.py).
# Fails, never skips, when Python, venv or duckdb is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/arrow-venv
command -v python3 >/dev/null || { echo "arrow.sh: python3 not found" >&2; exit 1; }
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --only-binary=:all: duckdb
"$venv/bin/python" -c "import duckdb; print('duckdb', duckdb.__version__)"
export MINI_ARROW_PYTHON="$PWD/$venv/bin/python"
cargo test -p mini-format-arrow --test duckdb -- --ignored --nocapture
