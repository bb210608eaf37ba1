#!/usr/bin/env bash
# The Python package `mini-format` (crates/mini-format-py, ADR 0028): builds
# the extension into a virtual environment under target/ and runs its pytest
# suite (the upstream conformance suite through the Python API included).
# A missing toolchain (python3 >= 3.9 with venv, cargo) is a failure, never a
# skip. Called from .ci/run as `bash .ci/python.sh`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CRATE="$ROOT/crates/mini-format-py"
VENV="$ROOT/target/py-venv"
WHEELS="$ROOT/target/py-wheels"
# its own target dir: the crate is its own workspace (features differ from
# the main workspace's build, ADR 0028)
export CARGO_TARGET_DIR="$ROOT/target/py"

fail() { echo "python.sh: $*" >&2; exit 1; }

command -v cargo >/dev/null 2>&1 || fail "cargo not found: the Rust toolchain is required"
PY="${PYTHON:-python3}"
command -v "$PY" >/dev/null 2>&1 || fail "$PY not found: Python >= 3.9 is required"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' \
    || fail "Python >= 3.9 is required, found $("$PY" --version 2>&1)"
"$PY" -c 'import venv, ensurepip' 2>/dev/null || fail "$PY has no venv/ensurepip module (install python3-venv)"

start=$(date +%s)
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV" || fail "cannot create the virtual environment $VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade \
    "maturin>=1.9,<2" "pytest>=8" || fail "cannot install maturin and pytest from PyPI"

rm -rf "$WHEELS"
(cd "$CRATE" && "$VENV/bin/maturin" build --release --quiet --interpreter "$VENV/bin/python" \
    --out "$WHEELS") || fail "maturin build failed"
shopt -s nullglob
wheels=("$WHEELS"/mini_format-*.whl)
[ "${#wheels[@]}" -eq 1 ] || fail "expected one wheel in $WHEELS, found ${#wheels[@]}"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
    --no-deps "${wheels[0]}" || fail "cannot install ${wheels[0]}"
built=$(date +%s)
echo "python.sh: built and installed $(basename "${wheels[0]}") in $((built - start)) s"

# the installed wheel is what is tested (not the source folder)
cd "$CRATE"
"$VENV/bin/python" -m pytest -p no:cacheprovider tests
echo "python.sh: done in $(( $(date +%s) - start )) s"
