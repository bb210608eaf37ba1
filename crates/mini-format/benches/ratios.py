#!/usr/bin/env python3
"""Prints the table of docs/performance.md from criterion's estimates.

Run after `cargo bench -p mini-format --bench throughput`:

    python3 crates/mini-format/benches/ratios.py [target/criterion] [records]

or, over several runs of the bench (each run's `target/criterion` copied
aside), the issue's table of three runs:

    python3 crates/mini-format/benches/ratios.py runs DIR1 DIR2 DIR3 [--records N]

which prints each run's ratio, their median, and a verdict with three
outcomes: "met" when every run meets the goal, "missed" when none does,
"unsettled" when the runs disagree (a ratio that moves across its goal
from one run to the next decides nothing).

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

ROOT = "target/criterion"
RECORDS = 100_000

GOALS = {
    "typed_decode": ("≥ 1×", 1.0),
    "serialize": ("≥ 1.2×", 1.2),
    "dynamic_decode": ("≥ 1×", 1.0),
    "validate": ("≥ 1×", 1.0),
}

# issue 21: mini within 1.25× of the hand-written floor on decode, i.e.
# mini records/s ÷ floor records/s ≥ 0.8
FLOOR_GOAL = {"typed_decode": ("≥ 0.8× (within 1.25×)", 0.8)}


FAMILIES = ["quiz", "rubric", "notes"]


def estimate(family, op, side, root=None):
    root = root or ROOT
    base = os.path.join(root, f"{family}_{op}", side, "new")
    if not os.path.isdir(base):
        base = os.path.join(root, f"{family}/{op}", side, "new")
    try:
        with open(os.path.join(base, "estimates.json")) as f:
            mean = json.load(f)["mean"]["point_estimate"]  # ns
        with open(os.path.join(base, "benchmark.json")) as f:
            throughput = json.load(f).get("throughput") or {}
    except FileNotFoundError:
        return None
    size = throughput.get("Bytes")
    return mean, size


def verdict(ratios, want):
    """Three outcomes: every run meets the goal, none does, or they disagree."""
    met = sum(r >= want for r in ratios)
    if met == len(ratios):
        return "met"
    if met == 0:
        return "missed"
    return f"unsettled (met in {met} of {len(ratios)} runs)"


def median(values):
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2


def ratio_runs(roots, family, op, numerator, denominator):
    """numerator's records/s ÷ denominator's in each run (time ÷ time), or
    None when a run lacks either side."""
    out = []
    for root in roots:
        a = estimate(family, op, numerator, root)
        b = estimate(family, op, denominator, root)
        if a is None or b is None:
            return None
        out.append(b[0] / a[0])
    return out


def runs(roots):
    """The table of several runs: each run's ratio, the median, the verdict."""
    for root in roots:
        if not os.path.isdir(root):
            sys.exit(f"ratios.py: no criterion directory {root}")
    n = len(roots)
    cols = " | ".join(f"run {i + 1}" for i in range(n))
    print(f"| family | operation | {cols} | median | goal | verdict |")
    print("|---|---|" + "---:|" * (n + 1) + "---|---|")
    for family in FAMILIES:
        for op in ["typed_decode", "serialize", "dynamic_decode", "validate"]:
            ratios = ratio_runs(roots, family, op, "mini", "serde_json")
            if ratios is None:
                continue
            goal, want = GOALS[op]
            cells = " | ".join(f"{r:.2f}×" for r in ratios)
            print(f"| {family} | {op} | {cells} | {median(ratios):.2f}× | {goal} | {verdict(ratios, want)} |")
    print()
    print(f"| family | operation | mini ÷ floor, {cols} | median | serde_json ÷ floor, median | goal | verdict |")
    print("|---|---|" + "---:|" * (n + 2) + "---|---|")
    for family in FAMILIES:
        for op in ["typed_decode", "serialize", "validate"]:
            ratios = ratio_runs(roots, family, op, "mini", "floor")
            if ratios is None:
                continue
            peer = ratio_runs(roots, family, op, "serde_json", "floor")
            peer_cell = f"{median(peer):.2f}×" if peer else "—"
            goal, want = FLOOR_GOAL.get(op, ("—", None))
            cells = " | ".join(f"{r:.2f}×" for r in ratios)
            said = "—" if want is None else verdict(ratios, want)
            print(f"| {family} | {op} | {cells} | {median(ratios):.2f}× | {peer_cell} | {goal} | {said} |")
    print(f"\n({n} runs of {RECORDS} records; ratios in records/s, each run's sides from the same process)")


def main():
    print("| family | operation | mini time | mini MB/s | serde_json time | serde_json MB/s | ratio (records/s) | goal |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for family in FAMILIES:
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
    for family in FAMILIES:
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
    args = sys.argv[1:]
    if args[:1] == ["runs"]:
        args = args[1:]
        if "--records" in args:
            k = args.index("--records")
            RECORDS = int(args[k + 1])
            del args[k : k + 2]
        if len(args) < 2:
            sys.exit("ratios.py runs: give two or more criterion directories")
        runs(args)
    else:
        if args:
            ROOT = args[0]
        if len(args) > 1:
            RECORDS = int(args[1])
        main()
