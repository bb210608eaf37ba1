#!/usr/bin/env python3
"""Page faults a repetition, beside the clock, per operation: how much
fresh memory the allocator asks the kernel for each time a document is
read and dropped again (issue 21, round 26; ADR 0057).

    cargo build --release -p mini-format --example profile
    python3 crates/mini-format/benches/faults.py \\
        target/release/examples/profile quiz typed,typed_json,floor_typed [100000]

Each operation runs in its own process, pinned to CPU 1, twice: with
`MINI_PROFILE_REPEAT=2` and with `MINI_PROFILE_REPEAT=6`, under
`perf stat -e page-faults` (a software event: it needs no hardware
counter). The difference over the four extra repetitions is what one
repetition faults, without the data's generation, which both runs share.
The second run's best time a record is printed beside it.

At 5,000 records glibc keeps the freed heap for the next repetition and
every reader faults almost nothing; at 100,000 records (the criterion
bench's scale) glibc trims the top of its heap when a document is dropped
and the next one faults it in again, and how much it trims depends on the
size of the largest block freed before (its dynamic mmap and trim
thresholds), so the readers differ by how their vectors grew, not by how
they read. To see the readers without it, pin glibc's thresholds for the
run (the environment is passed on):

    GLIBC_TUNABLES=glibc.malloc.trim_threshold=4000000000:glibc.malloc.mmap_threshold=4000000000 \\
        python3 crates/mini-format/benches/faults.py BIN quiz typed,typed_json
"""

import re
import shutil
import sys

from ab_rounds import one_run


def run(binary, family, op, records, repeat):
    """One process: its page faults and its best time a record (ns)."""
    best, text = one_run(binary, family, op, records, repeat,
                         prefix=["perf", "stat", "-x,", "-e", "page-faults"])
    faults = re.search(r"^(\d+),[^,]*,page-faults", text, re.M)
    if not faults:
        sys.exit(f"faults.py: no page-fault count from perf for {family} {op}")
    return int(faults.group(1)), best


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, family, ops = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    records = int(sys.argv[4]) if len(sys.argv) > 4 else 100_000
    if not shutil.which("perf"):
        sys.exit("faults.py: needs `perf` (perf stat -e page-faults)")
    print(f"{family}, {records} records: page faults a repetition, best time a record")
    for op in ops:
        few, _ = run(binary, family, op, records, 2)
        many, best = run(binary, family, op, records, 6)
        per = max(0, round((many - few) / 4))
        print(f"{op:>14}: {per:9d} faults ({per * 4096 / 1e6:6.1f} MB), {best:8.1f} ns a record")


if __name__ == "__main__":
    main()
