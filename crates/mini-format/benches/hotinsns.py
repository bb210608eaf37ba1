#!/usr/bin/env python3
"""Where the clock stops inside one function: its instructions with the
most clock samples, each with the source line it was compiled from.

    cargo build --release -p mini-format --example profile
    python3 crates/mini-format/benches/hotinsns.py \\
        target/release/examples/profile rubric typed \\
        mini::de::Deserializer::direct_records [count]

`timeshare.py` says which functions take more time than their
instructions suggest; this says which instructions. `perf record -e
cpu-clock` samples the operation (`MINI_PROFILE_REPEAT`, 200 by default,
over 5,000 records, pinned to CPU 1), `perf annotate` gives each
instruction of `function` its share of the function's samples, and
`addr2line` names the source line of each. A sample lands on the
instruction after the one that waited (skid): read a hot instruction
together with the one before it. Round 25 of issue 21 (ADR 0056) found
this way a 16-byte load of a record just written in two 8-byte halves
(a store the processor cannot forward to the load), which no count of
instructions shows.
"""

import os
import re
import subprocess
import sys
import tempfile


def hot_instructions(binary, family, op, function, tmp):
    """`(share %, address, instruction)` of `function`'s sampled
    instructions, hottest first."""
    data = os.path.join(tmp, "perf.data")
    env = dict(os.environ, MINI_PROFILE_REPEAT=os.environ.get("MINI_PROFILE_REPEAT", "200"))
    subprocess.run(
        ["perf", "record", "-q", "-e", "cpu-clock", "-c", "20000", "-o", data,
         "taskset", "-c", "1", binary, family, op, "5000"],
        check=True, capture_output=True, env=env,
    )
    text = subprocess.run(
        ["perf", "annotate", "-i", data, "--stdio", "-s", function],
        check=True, capture_output=True, text=True,
    ).stdout
    hot = []
    for line in text.splitlines():
        m = re.match(r"^\s+(\d+\.\d+)\s*:\s+([0-9a-f]+):\s+(.*)$", line)
        if m and float(m.group(1)) > 0:
            insn = re.sub(r"\s+", " ", m.group(3).split("<")[0]).strip()
            hot.append((float(m.group(1)), int(m.group(2), 16), insn))
    return sorted(hot, reverse=True)


def source_lines(binary, addresses):
    """The source line each address was compiled from (the innermost
    inlined function's)."""
    out = subprocess.run(
        ["addr2line", "-e", binary] + [hex(a) for a in addresses],
        capture_output=True, text=True,
    ).stdout.splitlines()
    return {
        a: (line.split("/")[-1].split(" ")[0] if line else "?")
        for a, line in zip(addresses, out)
    }


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    binary, family, op, function = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 15
    with tempfile.TemporaryDirectory() as tmp:
        hot = hot_instructions(binary, family, op, function, tmp)[:count]
    lines = source_lines(binary, [a for _, a, _ in hot])
    print(f"{family} {op}: the hottest instructions of {function}")
    print(" share %  address  instruction                               source line")
    for share, at, insn in hot:
        print(f"{share:8.2f}  {at:7x}  {insn[:40]:40}  {lines[at]}")


if __name__ == "__main__":
    main()
