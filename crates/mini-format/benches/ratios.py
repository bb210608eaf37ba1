#!/usr/bin/env python3
"""Prints the table of docs/performance.md from criterion's estimates.

Run after `cargo bench -p mini-format --bench throughput`:

    python3 crates/mini-format/benches/ratios.py [target/criterion] [records]

For each family and operation: mini's and serde_json's time (criterion's
middle estimate of the mean), their MB/s (of each side's own text, from the
bench's throughput setting) and records/s, and the ratio mini ÷ serde_json
in records/s, next to the goal of issue 21; then, where the bench has a
`floor` row (quiz: the hand-written reader and writer of
benches/support/floor.rs), mini ÷ floor and serde_json ÷ floor. Both sides ran in the same
`cargo bench` run; the machine is shared, so read the ratios.
"""

import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
RECORDS = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000

GOALS = {
    "typed_decode": ("≥ 1×", 1.0),
    "serialize": ("≥ 1.2×", 1.2),
    "dynamic_decode": ("≥ 1×", 1.0),
    "validate": ("≥ 1×", 1.0),
}

# issue 21: mini within 1.25× of the hand-written floor on decode, i.e.
# mini records/s ÷ floor records/s ≥ 0.8
FLOOR_GOAL = {"typed_decode": ("≥ 0.8× (within 1.25×)", 0.8)}


def estimate(family, op, side):
    base = os.path.join(ROOT, f"{family}_{op}", side, "new")
    if not os.path.isdir(base):
        base = os.path.join(ROOT, f"{family}/{op}", side, "new")
    try:
        with open(os.path.join(base, "estimates.json")) as f:
            mean = json.load(f)["mean"]["point_estimate"]  # ns
        with open(os.path.join(base, "benchmark.json")) as f:
            throughput = json.load(f).get("throughput") or {}
    except FileNotFoundError:
        return None
    size = throughput.get("Bytes")
    return mean, size


def main():
    print("| family | operation | mini time | mini MB/s | serde_json time | serde_json MB/s | ratio (records/s) | goal |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for family in ["quiz", "rubric", "notes"]:
        for op in ["typed_decode", "serialize", "dynamic_decode", "validate", "stream", "stream_typed"]:
            m = estimate(family, op, "mini")
            if m is None:
                continue
            j = estimate(family, op, "serde_json")
            mt, msize = m
            mbs = f"{msize / mt * 1e3:.0f}" if msize else "—"
            if j:
                jt, jsize = j
                jbs = f"{jsize / jt * 1e3:.0f}" if jsize else "—"
                ratio = jt / mt
                goal, want = GOALS.get(op, ("—", None))
                met = "" if want is None else (" met" if ratio >= want else " missed")
                print(f"| {family} | {op} | {mt / 1e6:.0f} ms | {mbs} | {jt / 1e6:.0f} ms | {jbs} | {ratio:.2f}× | {goal}{met} |")
            else:
                print(f"| {family} | {op} | {mt / 1e6:.0f} ms | {mbs} | — | — | — | — |")
    print()
    print("| family | operation | floor time | floor MB/s | mini ÷ floor | serde_json ÷ floor | goal |")
    print("|---|---|---:|---:|---:|---:|---|")
    for family in ["quiz", "rubric", "notes"]:
        for op in ["typed_decode", "serialize", "validate"]:
            fl = estimate(family, op, "floor")
            m = estimate(family, op, "mini")
            if fl is None or m is None:
                continue
            ft, fsize = fl
            j = estimate(family, op, "serde_json")
            fbs = f"{fsize / ft * 1e3:.0f}" if fsize else "—"
            jr = f"{ft / j[0]:.2f}×" if j else "—"
            ratio = ft / m[0]
            goal, want = FLOOR_GOAL.get(op, ("—", None))
            met = "" if want is None else (" met" if ratio >= want else " missed")
            print(f"| {family} | {op} | {ft / 1e6:.0f} ms | {fbs} | {ratio:.2f}× | {jr} | {goal}{met} |")
    print(f"\n(records per run: {RECORDS}; records/s = records ÷ time)")


if __name__ == "__main__":
    main()
