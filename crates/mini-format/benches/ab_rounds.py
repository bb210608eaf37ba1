#!/usr/bin/env python3
"""The A/B clock in many short rounds, for a machine whose disturbances
last longer than one of `ab.sh`'s passes (ADR 0037).

Runs two builds of the profile example alternately, ROUNDS times each,
every run the best of 10 repetitions of RECORDS records, and prints the
fastest run of each build and its tenth percentile, and new / base for
both. A disturbance that lasts a whole `ab.sh` pass (seen on 2026-12-02:
best-of-100 times twice the quiet ones) spoils one short run here, not
the minimum.

Usage: ab_rounds.py BASE NEW FAMILY OP [ROUNDS] [RECORDS]
  (ROUNDS 40, RECORDS 5000; runs pinned to CPU 1 when `taskset` exists)
"""

import os
import re
import shutil
import subprocess
import sys


def one_run(binary, family, op, records, repeat=10, prefix=()):
    """One run's best time per record, in ns, and its whole output; the
    run goes under `prefix` when one is given (`faults.py`: `perf stat`)."""
    cmd = [binary, family, op, str(records)]
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "1"] + cmd
    cmd = list(prefix) + cmd
    env = dict(os.environ, MINI_PROFILE_REPEAT=str(repeat))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    text = out.stdout + out.stderr
    found = re.search(r"([0-9.]+) ns/record", text)
    if not found:
        sys.exit(f"{os.path.basename(sys.argv[0])}: no time in the output of {' '.join(cmd)}")
    return float(found.group(1)), text


def main():
    if len(sys.argv) < 5 or "," in sys.argv[4]:
        sys.exit(__doc__)
    base, new, family, op = sys.argv[1:5]
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 40
    records = int(sys.argv[6]) if len(sys.argv) > 6 else 5000
    times = {base: [], new: []}
    for _ in range(rounds):
        for binary in (base, new):
            times[binary].append(one_run(binary, family, op, records)[0])
    b, n = sorted(times[base]), sorted(times[new])
    p10 = rounds // 10
    print(
        f"{family} {op}: base min {b[0]:.1f} p10 {b[p10]:.1f} ns, "
        f"new min {n[0]:.1f} p10 {n[p10]:.1f} ns, "
        f"new/base min {n[0] / b[0]:.3f} p10 {n[p10] / b[p10]:.3f}"
    )


if __name__ == "__main__":
    main()
