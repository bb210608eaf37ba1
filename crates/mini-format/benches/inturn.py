#!/usr/bin/env python3
"""Mini against serde_json (and the floor) in turn, in many short rounds:
issue 21's ratios on a noisy machine (ADR 0037, 0038).

For each family and operation pair (mini's, the peer's), runs the profile
example ROUNDS times with both operations in turn within each repetition
(`MINI_PROFILE_REPEAT=10`, 5,000 records unless told, pinned to CPU 1), and prints each
side's minimum time per record and the ratio of records/s (mini's first)
at the minimum and the tenth percentile.

Usage: inturn.py PROFILE_BINARY [ROUNDS [FAMILY [RECORDS]]]
  (ROUNDS 30; FAMILY: only its pairs, `all` for every family; RECORDS
  5000: 100000 reads the scale of the criterion bench, where glibc's heap
  trimming weighs on every reader; see benches/faults.py and ADR 0057)
"""

import subprocess, re, os, sys
if len(sys.argv) < 2:
    sys.exit(__doc__)
b = sys.argv[1]; rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 30
env = dict(os.environ, MINI_PROFILE_REPEAT="10")
pairs = [(f, a, c) for f in ("quiz","rubric","notes") for a, c in (("typed","typed_json"),("serialize","serialize_json"),("dynamic","dynamic_json"),("validate","ignored_json"))]
# mini against the hand-written floor (quiz), and the floor against serde_json
pairs += [("quiz", a, "floor_" + a) for a in ("typed", "serialize", "validate")]
pairs += [("quiz", "floor_typed", "typed_json"), ("quiz", "floor_serialize", "serialize_json"),
          ("quiz", "floor_validate", "ignored_json")]
# the rubric floor's reader (thirteenth round, ADR 0043)
pairs += [("rubric", "typed", "floor_typed"), ("rubric", "floor_typed", "typed_json")]
# the notes floor's reader (twenty-third round, ADR 0054)
pairs += [("notes", "typed", "floor_typed"), ("notes", "floor_typed", "typed_json")]
# mini's direct reader against its serde path, same binary (ADR 0044)
pairs += [(f, "typed", "typed_serde") for f in ("quiz", "rubric", "notes")]
if len(sys.argv) > 3 and sys.argv[3] != "all":
    # only the pairs of one family: inturn.py BIN ROUNDS FAMILY
    pairs = [p for p in pairs if p[0] == sys.argv[3]]
records = sys.argv[4] if len(sys.argv) > 4 else "5000"
for f, a, c in pairs:
    ta, tc = [], []
    for _ in range(rounds):
        out = subprocess.run(["taskset","-c","1",b,f,f"{a},{c}",records],capture_output=True,text=True,env=env).stdout
        t = dict(re.findall(r"^(\w+): ([0-9.]+) ns/record", out, re.M))
        ta.append(float(t[a])); tc.append(float(t[c]))
    ta.sort(); tc.sort(); p = rounds//10
    print(f"{f} {a} vs {c}: {ta[0]:.1f} / {tc[0]:.1f} ns, ratio (records/s) min {tc[0]/ta[0]:.2f}x p10 {tc[p]/ta[p]:.2f}x", flush=True)
