#!/usr/bin/env python3
"""Ratios over many code layouts of the same code (issue 21, round 27).

Since round 24 the ledger has seen the same instructions run 4% apart when
the code moved (ADR 0057: a change that only computes a capacity, or a
link by gold instead of LLD). One layout is one sample of that effect, so
an A/B or a ratio read on one build can be the layout's and not the
code's. This tool takes many samples: it links the profile example K
times, each with LLD's `--shuffle-sections=.text*=SEED` (every function
is its own section, so each seed puts the functions in another order and
at other offsets within a cache line), and reads a ratio on each layout.

    layouts.py build DIR [K]
        Builds the profile example of the working tree once (`cargo rustc`
        with `-C save-temps` and `--print link-args`; the example's source
        is touched so that cargo links it again), then relinks its
        objects K times (8 by default), seeds 1..K, into DIR/layout-SEED.
        Needs the toolchain's default LLD link (`-fuse-ld=lld`). The
        objects `-C save-temps` keeps stay in target/release/examples
        (about 100 MB; the next build overwrites them).

    layouts.py ratio DIR FAMILY MINI_OP PEER_OP [ROUNDS [RECORDS]]
        On each layout, ROUNDS runs (10 by default; the runs go round the
        layouts, one run of each a round, so that a disturbance of the
        machine falls on all of them) of both operations in turn in one
        process (as `inturn.py`), each the best of 10
        repetitions of RECORDS records (5,000): the layout's ratio of
        records/s (the peer's minimum time over mini's). Then the median,
        mean, minimum and maximum over the layouts.

    layouts.py ab BASE_DIR NEW_DIR FAMILY OP [ROUNDS [RECORDS]]
        The same operation on each layout of two builds, round after round
        (base's seed k, then new's seed k, for every k): new / base of the
        mean of the layouts' minimum times, and of their medians. Below 1
        is faster.

The layouts of two builds are independent samples (the same seed on other
code is another order), so `ab` compares the two sets, never seed k with
seed k.
"""

import os
import re
import shlex
import statistics
import subprocess
import sys

from ab_rounds import one_run as run_profile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def fail(message):
    sys.exit(f"layouts.py: {message}")


def build(out_dir, k):
    os.makedirs(out_dir, exist_ok=True)
    # cargo prints the link command only when it links: the example is
    # touched so that it is compiled and linked again
    os.utime(os.path.join(ROOT, "crates", "mini-format", "examples", "profile.rs"))
    done = subprocess.run(
        ["cargo", "rustc", "--release", "-p", "mini-format", "--example", "profile",
         "--", "-C", "save-temps", "--print", "link-args"],
        cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        fail("the build failed:\n" + done.stderr[-2000:])
    # the link command is the one line that calls the C compiler driver
    lines = [l for l in done.stdout.splitlines() if '"cc"' in l or " cc " in l]
    if not lines:
        fail("cargo printed no link command")
    link = lines[-1]
    if '"-fuse-ld=lld"' not in link:
        fail("the example is not linked by LLD; --shuffle-sections is LLD's")
    found = re.search(r'"-o" "([^"]*)"', link)
    if not found:
        fail("no output file in the link command")
    for seed in range(1, k + 1):
        target = os.path.join(out_dir, f"layout-{seed}")
        cmd = link.replace(found.group(0),
                           f'"-o" {shlex.quote(target)} "-Wl,--shuffle-sections=.text*={seed}"')
        linked = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
        if linked.returncode != 0:
            fail(f"relinking seed {seed} failed:\n{linked.stderr[-2000:]}")
        print(target, flush=True)


def layouts(directory):
    found = sorted((int(m.group(1)), os.path.join(directory, name))
                   for name in os.listdir(directory)
                   for m in [re.fullmatch(r"layout-(\d+)", name)] if m)
    if not found:
        fail(f"no layout-SEED binary in {directory} (run `layouts.py build` first)")
    return [path for _, path in found]


def one_run(binary, family, ops, records):
    """One run of the profile example (`ab_rounds.one_run`: pinned, the
    best of 10 repetitions): each operation's best time a record, the
    operations in turn."""
    best, text = run_profile(binary, family, ",".join(ops), records)
    if len(ops) == 1:
        # one operation: `one_run` has parsed its time already
        return {ops[0]: best}
    times = dict(re.findall(r"^(\w+): ([0-9.]+) ns/record", text, re.M))
    for op in ops:
        if op not in times:
            fail(f"no time for {op} in the output of {binary} {family} {','.join(ops)}")
    return {op: float(times[op]) for op in ops}


def best_times(binaries, family, ops, rounds, records):
    """For each binary, the minimum time a record of each operation over
    `rounds` runs. The runs go round the binaries (one run of each, then
    the next round), so that a disturbance of the machine that lasts a
    while falls on every layout alike instead of on one."""
    best = [{op: float("inf") for op in ops} for _ in binaries]
    for _ in range(rounds):
        for b, binary in enumerate(binaries):
            for op, t in one_run(binary, family, ops, records).items():
                best[b][op] = min(best[b][op], t)
    return best


def summary(values):
    return (f"median {statistics.median(values):.3f}  mean {statistics.mean(values):.3f}  "
            f"min {min(values):.3f}  max {max(values):.3f}")


def ratio(directory, family, mine, peer, rounds, records):
    ratios = []
    binaries = layouts(directory)
    for binary, t in zip(binaries, best_times(binaries, family, [mine, peer], rounds, records)):
        ratios.append(t[peer] / t[mine])
        print(f"{os.path.basename(binary)}: {mine} {t[mine]:.1f} ns, {peer} {t[peer]:.1f} ns, "
              f"ratio {ratios[-1]:.3f}x", flush=True)
    print(f"{family} {mine} vs {peer}, {len(ratios)} layouts, ratio (records/s): {summary(ratios)}")


def ab(base_dir, new_dir, family, op, rounds, records):
    base, new = layouts(base_dir), layouts(new_dir)
    if len(base) != len(new):
        fail(f"{len(base)} layouts against {len(new)}")
    # base's and new's layouts alternate within each round
    both = [b for pair in zip(base, new) for b in pair]
    best = [t[op] for t in best_times(both, family, [op], rounds, records)]
    tb, tn = best[0::2], best[1::2]
    for b, x, y in zip(base, tb, tn):
        print(f"{os.path.basename(b)}: base {x:.1f} ns, new {y:.1f} ns", flush=True)
    print(f"{family} {op}, {len(tb)} layouts each: base {summary(tb)}")
    print(f"{family} {op}, {len(tn)} layouts each:  new {summary(tn)}")
    print(f"new/base: mean {statistics.mean(tn) / statistics.mean(tb):.3f}  "
          f"median {statistics.median(tn) / statistics.median(tb):.3f}")


def main():
    args = sys.argv[1:]
    if args[:1] == ["build"] and len(args) in (2, 3):
        build(args[1], int(args[2]) if len(args) == 3 else 8)
    elif args[:1] == ["ratio"] and 5 <= len(args) <= 7:
        ratio(args[1], args[2], args[3], args[4],
              int(args[5]) if len(args) > 5 else 10, args[6] if len(args) > 6 else "5000")
    elif args[:1] == ["ab"] and 5 <= len(args) <= 7:
        ab(args[1], args[2], args[3], args[4],
           int(args[5]) if len(args) > 5 else 10, args[6] if len(args) > 6 else "5000")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
