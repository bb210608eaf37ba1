#!/usr/bin/env bash
# The A/B clock (ADR 0035, 0036): two builds of the profile example run
# alternately on the same operation, each the best of R runs, for P
# passes; prints both times per record and new ÷ base. Alternating the
# two makes both meet the same moments of a shared machine; the best of
# many runs is the least disturbed. A ratio under 1 is the new build
# faster. Build the base in a worktree, for instance:
#
#   git worktree add -f /tmp/base REV
#   (cd /tmp/base && CARGO_TARGET_DIR=/tmp/base-target \
#       cargo build --release -p mini-format --example profile)
#   cargo build --release -p mini-format --example profile
#   bash crates/mini-format/benches/ab.sh /tmp/base-target/release/examples/profile \
#       target/release/examples/profile rubric typed 3
#
# A change of a few percent can be code placement alone: build both with
# every function on its own 64-byte line, RUSTFLAGS="-C
# llvm-args=-align-all-functions=6" (and separate CARGO_TARGET_DIRs), and
# compare those too (docs/performance.md, sixth round).
#
# On a machine whose disturbances outlast a pass, benches/ab_rounds.py
# alternates many short runs instead (ADR 0037).
#
# Usage: ab.sh BASE NEW FAMILY OP [PASSES] [RECORDS]   (R: MINI_PROFILE_REPEAT, 60)
set -euo pipefail

if [ $# -lt 4 ]; then
    sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
base=$1 new=$2 family=$3 op=$4 passes=${5:-2} records=${6:-5000}
repeat=${MINI_PROFILE_REPEAT:-60}
case $op in
*,*)
    echo "ab.sh: one operation at a time (got $op)" >&2
    exit 2
    ;;
esac
for bin in "$base" "$new"; do
    if [ ! -x "$bin" ]; then
        echo "ab.sh: $bin is not an executable profile build" >&2
        exit 2
    fi
done

# the best time per record the profile example prints, in ns
best() {
    MINI_PROFILE_REPEAT=$repeat "$1" "$family" "$op" "$records" |
        sed -nE '1s/^([0-9.]+) ns\/record.*/\1/p'
}

for _ in $(seq "$passes"); do
    b=$(best "$base")
    n=$(best "$new")
    if [ -z "$b" ] || [ -z "$n" ]; then
        echo "ab.sh: no time read from the profile example" >&2
        exit 1
    fi
    awk -v f="$family" -v o="$op" -v b="$b" -v n="$n" \
        'BEGIN { printf "%s %s: base %.1f ns, new %.1f ns, new/base %.3f\n", f, o, b, n, n / b }'
done
