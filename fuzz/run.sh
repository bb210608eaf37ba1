#!/usr/bin/env bash
# Builds every fuzz target of `mini` with nightly and runs each one for
# FUZZ_SECONDS seconds (default 60), one after the other. Fails on the
# first crash, leak, timeout or OOM, leaving the input in
# fuzz/artifacts/<target>/ (save it under fuzz/regressions/<target>/).
#
#   fuzz/run.sh                       # every target, 60 s each
#   FUZZ_SECONDS=600 fuzz/run.sh      # longer
#   fuzz/run.sh parse_bytes           # some targets only
#   FUZZ_SANITIZER=address fuzz/run.sh  # with ASan (default: none; the
#                                       # crate forbids unsafe code)
#
# New corpus entries go to fuzz/corpus/<target>/ (not committed); the
# committed seeds in fuzz/seeds/<target>/ are read only. See docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")"

FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
FUZZ_SANITIZER="${FUZZ_SANITIZER:-none}"
TOOLCHAIN="${FUZZ_TOOLCHAIN:-nightly}"

if ! cargo +"$TOOLCHAIN" --version >/dev/null 2>&1; then
    echo "run.sh: the $TOOLCHAIN toolchain is required (rustup toolchain install $TOOLCHAIN)" >&2
    exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo fuzz list)
fi

echo "== build (${TOOLCHAIN}, sanitizer ${FUZZ_SANITIZER})"
cargo +"$TOOLCHAIN" fuzz build --sanitizer "$FUZZ_SANITIZER"

status=0
for t in "${targets[@]}"; do
    echo "== fuzz $t for ${FUZZ_SECONDS}s"
    mkdir -p "corpus/$t"
    seeds=()
    for d in "seeds/$t" "regressions/$t"; do
        [ -d "$d" ] && seeds+=("$d")
    done
    log="artifacts/$t.log"
    mkdir -p artifacts
    set +e
    cargo +"$TOOLCHAIN" fuzz run --sanitizer "$FUZZ_SANITIZER" "$t" "corpus/$t" "${seeds[@]}" -- \
        -max_total_time="$FUZZ_SECONDS" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
        2>&1 | tee "$log" | grep -E 'DONE|INITED|ERROR|SUMMARY|panicked|property violated|Test unit written'
    rc=${PIPESTATUS[0]}
    set -e
    if [ "$rc" -ne 0 ] || ! grep -qE '^#[0-9]+[[:space:]]+DONE' "$log"; then
        echo "run.sh: $t FAILED (exit $rc; full log: fuzz/$log)" >&2
        status=1
        break
    fi
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$log" | sed "s/^/  $t /" || true
done
exit "$status"
