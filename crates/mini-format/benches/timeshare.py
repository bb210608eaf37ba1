#!/usr/bin/env python3
"""Where the clock goes, beside where the instructions go, per function.

This machine exposes no hardware counters (`perf stat`: "not supported"),
so earlier rounds could count instructions (callgrind) and time whole
operations (the A/B and in-turn tools), but not see which functions take
the time. `perf record -e cpu-clock` samples the clock through a software
timer, which needs no counter. This script profiles one operation both
ways and prints, per function, its share of the samples (time), its share
of the instructions, and their ratio: a function whose time share is well
above its instruction share stalls (cache misses, mispredictions); one
well below runs many instructions a cycle.

    cargo build --release -p mini-format --example profile
    python3 crates/mini-format/benches/timeshare.py \\
        target/release/examples/profile quiz typed [repeat] [top]

The callgrind run counts the measured operation only (`*measured*`, 5,000
records). The perf run samples the whole process, `repeat` times over
20,000 records (`MINI_PROFILE_REPEAT`, 40 by default), so the generation
of the data is a small part of its samples; the script prints the share
of samples that fall outside the functions the callgrind run saw and
leaves them out, so that both columns are shares of the same functions.
A function that both the measured operation and the data's generation
run (the allocator, `memcpy`) keeps all its samples, the generation's
share included: its time share reads a few percent high.
Functions inlined into others count as their callers in both profiles.
The last column turns each function's samples into nanoseconds a record
(one sample every 0.1 ms of CPU time): a mean over every repetition of
one process, which on a shared machine moves a lot from one process to
the next; compare it between two operations only when they were profiled
one after the other and differ by much.
Neither share is a measure of speed by itself: compare the same operation
of two binaries with the A/B tool (ADR 0037).
"""

import os
import re
import subprocess
import sys
import tempfile


def same_name(name):
    """One name for a function in both profiles: callgrind marks a
    recursive call (`f'2`), and the two tools name glibc's aliases
    differently. The two runs may also take different machine paths for
    the same code: valgrind emulates no AVX-512, so on a machine with it
    the block walks run in `pulp`'s V4 function under perf and in its V3
    function under callgrind, and glibc's `memcpy` takes its EVEX or AVX
    variant; each is given one name for both."""
    name = re.sub(r"'\d+$", "", name)
    name = re.sub(r"@GLIBC[\w.]*$", "", name)
    if re.fullmatch(r"pulp::x86::v[34]::V[34]::vectorize::imp_fastcall", name):
        return "block walks (pulp::x86::V3 or V4::vectorize)"
    if re.fullmatch(r"__mem(cpy|move)_(avx|evex|avx512)\w*_unaligned_erms", name):
        return "memcpy (glibc's vector variant)"
    return {
        "cfree": "free",
    }.get(name, name)


def instruction_shares(binary, family, op, tmp):
    """Exclusive instruction share of each function, in percent."""
    costs, total = instruction_costs(binary, family, op, tmp)
    return {k: 100.0 * v / total for k, v in costs.items()} if total else {}


def instruction_costs(binary, family, op, tmp):
    """Exclusive instructions of each function in the measured operation
    (5,000 records), and their total (`benches/parts.py` uses it too)."""
    out = os.path.join(tmp, "cg.out")
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=*measured*",
            f"--callgrind-out-file={out}",
            binary,
            family,
            op,
            "5000",
        ],
        check=True,
        capture_output=True,
    )
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=no", "--threshold=100", out],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    costs, total, table = {}, 0, False
    row = re.compile(r"^\s*([\d,]+)\s+\([^)]*\)\s+(.*)$")
    for line in text.splitlines():
        if "file:function" in line:
            table = True
            continue
        if not table:
            continue
        if not line.strip():
            if costs:
                break
            continue
        m = row.match(line)
        if not m:
            continue
        cost = int(m.group(1).replace(",", ""))
        # `file:function [object]`: one function's cost is spread over the
        # files its inlined code came from
        name = re.sub(r"\s+\[[^\]]*\]$", "", m.group(2))
        name = same_name(name.split(":", 1)[1] if ":" in name else name)
        costs[name] = costs.get(name, 0) + cost
        total += cost
    return costs, total


def time_shares(binary, family, op, repeat, tmp):
    """Clock samples of each function (one every 0.1 ms of CPU time)."""
    data = os.path.join(tmp, "perf.data")
    env = dict(os.environ, MINI_PROFILE_REPEAT=str(repeat))
    subprocess.run(
        ["perf", "record", "-q", "-e", "cpu-clock", "-F", "10000", "-o", data,
         binary, family, op, "20000"],
        check=True,
        capture_output=True,
        env=env,
    )
    text = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "symbol",
         "--stdio", "--percent-limit", "0", "-n"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    samples = {}
    # `perf report` may end a row with columns it cannot fill (`-  -`)
    row = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+\[[.k]\]\s+(.*?)(?:\s+-\s+-)?\s*$")
    for line in text.splitlines():
        m = row.match(line)
        if m:
            name = same_name(m.group(2))
            samples[name] = samples.get(name, 0) + int(m.group(1))
    return samples


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, family, op = sys.argv[1:4]
    repeat = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    top = int(sys.argv[5]) if len(sys.argv) > 5 else 30
    with tempfile.TemporaryDirectory() as tmp:
        ir = instruction_shares(binary, family, op, tmp)
        samples = time_shares(binary, family, op, repeat, tmp)
    total = sum(samples.values())
    if not ir or not total:
        sys.exit("no profile: is valgrind and perf installed, and the binary built?")
    outside = sum(v for k, v in samples.items() if k not in ir)
    inside = total - outside
    # both shares over the measured functions only, so that they compare
    clock = {k: 100.0 * v / inside for k, v in samples.items() if k in ir} if inside else {}
    # one sample every 0.1 ms of CPU time, over `repeat` runs of 20,000 records
    ns_per_record = 1e5 / (repeat * 20000)
    print(f"{family} {op}: time % (perf cpu-clock), instructions % (callgrind), ratio,")
    print("and each function's clock in ns a record (to compare two operations' profiles)")
    print(f"measured functions: {inside * ns_per_record:.0f} ns a record; samples outside them "
          f"(left out): {100.0 * outside / total:.1f}%")
    print(f"{'time %':>7} {'instr %':>8} {'ratio':>6} {'ns/rec':>7}  function")
    rows = sorted(ir, key=lambda k: -max(ir[k], clock.get(k, 0.0)))[:top]
    for name in sorted(rows, key=lambda k: -clock.get(k, 0.0)):
        t, i = clock.get(name, 0.0), ir[name]
        ratio = f"{t / i:6.2f}" if i >= 0.05 else "     -"
        ns = samples.get(name, 0) * ns_per_record
        print(f"{t:7.2f} {i:8.2f} {ratio} {ns:7.1f}  {name[:100]}")


if __name__ == "__main__":
    main()
