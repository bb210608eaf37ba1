#!/usr/bin/env python3
"""Prints the table of docs/performance.md from criterion's estimates.

Run after `cargo bench -p mini-format --bench throughput`:

    python3 crates/mini-format/benches/ratios.py [target/criterion] [records]

For each family and operation: mini's and serde_json's time (criterion's
middle estimate of the mean), their MB/s (of each side's own text, from the
bench's throughput setting) and records/s, and the ratio mini ÷ serde_json
in records/s, next to the goal of issue 13. Both sides ran in the same
`cargo bench` run; the machine is shared, so read the ratios.
"""

import json
import os
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"
RECORDS = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000

GOALS = {
    "typed_decode": ("≥ 2×", 2.0),
    "serialize": ("≥ 1×", 1.0),
    "dynamic_decode": ("≥ 1×", 1.0),
    "validate": ("≥ 1× and ≥ 1 GB/s", 1.0),
}


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
                if op == "validate" and msize and msize / mt * 1e3 < 1000:
                    met = " missed"
                print(f"| {family} | {op} | {mt / 1e6:.0f} ms | {mbs} | {jt / 1e6:.0f} ms | {jbs} | {ratio:.2f}× | {goal}{met} |")
            else:
                print(f"| {family} | {op} | {mt / 1e6:.0f} ms | {mbs} | — | — | — | — |")
    print(f"\n(records per run: {RECORDS}; records/s = records ÷ time)")


if __name__ == "__main__":
    main()
