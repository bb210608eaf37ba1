#!/usr/bin/env python3
"""Hot code lines per record: how much code one record runs through.

Instruction counts do not see the front end: two readers with the same
count per record run at different speeds when one of them touches far more
distinct code per record than the L1 instruction cache holds (32 KiB,
8-way, 64-byte lines on the machines measured here: 64 sets of 8 lines).
This script reads a callgrind profile written with `--dump-instr=yes` and
counts the 64-byte code lines that run at least once per record on
average (self cost of at least `records` instructions), how many of them
fall in each cache set, and which functions they belong to:

    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out \\
        --toggle-collect='*measured*' target/release/examples/profile quiz typed 5000
    python3 crates/mini-format/benches/hotlines.py cg.out 5000 [top]

A line count well past 8 × 64 = 512, or sets holding more than 8 hot
lines, means the record's code is evicted before the next record runs it
again (see docs/performance.md, fourth round, and ADR 0034). Deterministic
for a given binary and input, like the instruction counts.

A profile written with `--cache-sim=yes` (and `--branch-sim=yes`) also
gets the simulated L1 instruction-cache misses (and branch mispredictions)
per record: what the line count predicts, counted. Neither is a clock:
the sixth round (ADR 0036) found changes that cut the simulated misses by
a third and moved the time by 1%.
"""

import collections
import re
import sys

SETS = 64
WAYS = 8


def hot_lines(path, records):
    """The hot 64-byte code lines of a callgrind profile, with the function
    each belongs to."""
    names = {}
    cost = collections.Counter()
    owner = {}
    totals = collections.Counter()
    events = []
    addr = 0
    fn = None
    after_call = False
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if line.startswith(("fn=", "cfn=")):
                m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", line.strip())
                if m:
                    if m.group(2):
                        names[m.group(1)] = m.group(2)
                    if line.startswith("fn="):
                        fn = names.get(m.group(1))
                continue
            if line.startswith("calls="):
                # the next line is the call's inclusive cost, not self cost
                after_call = True
                continue
            head = line[:1]
            if not (head.isdigit() or head in "+-*"):
                continue
            parts = line.split()
            pos = parts[0]
            if pos.startswith("0x"):
                addr = int(pos, 16)
            elif pos[0] in "+-":
                step = pos[1:]
                d = int(step, 16) if step.startswith("0x") else int(step)
                addr = addr + d if pos[0] == "+" else addr - d
            elif pos != "*":
                addr = int(pos)
            if after_call:
                after_call = False
                continue
            # positions: instr line; then the events (Ir first); an event
            # left out at the end of a line is zero
            if len(parts) > 2:
                cost[addr] += int(parts[2])
                owner[addr >> 6] = fn
                for name, v in zip(events, parts[2:]):
                    totals[name] += int(v)
    per_line = collections.Counter()
    for a, c in cost.items():
        per_line[a >> 6] += c
    hot = [k for k, c in per_line.items() if c >= records]
    return hot, owner, totals


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, records = sys.argv[1], int(sys.argv[2])
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 15
    hot, owner, totals = hot_lines(path, records)
    sets = collections.Counter(k % SETS for k in hot)
    over = sum(1 for n in sets.values() if n > WAYS)
    print(
        f"hot code lines per record: {len(hot)} ({len(hot) * 64} bytes); "
        f"fullest set {max(sets.values(), default=0)} lines, "
        f"{over} of {SETS} sets over {WAYS}"
    )
    simulated = [
        (label, totals[event] / records)
        for event, label in (
            ("I1mr", "I1 misses"),
            ("Bcm", "conditional mispredictions"),
            ("Bim", "indirect mispredictions"),
        )
        if event in totals
    ]
    if simulated:
        print("per record (simulated): " + ", ".join(f"{label} {v:.1f}" for label, v in simulated))
    for name, n in collections.Counter(owner.get(k) for k in hot).most_common(top):
        print(f"{n:5}  {(name or '?')[:140]}")


if __name__ == "__main__":
    main()
