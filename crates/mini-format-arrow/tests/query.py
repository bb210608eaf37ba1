"""Query a Parquet file written by mini-format-arrow with DuckDB and compare
the answer with the family's canonical JSON.

usage: query.py FILE.parquet CANONICAL.json

A GROUP BY over the `q` family's fixture (Bloom level: records, summed
difficulty, mean IRT discrimination from the `irt` struct, options from the
mlist, hints from an optional field), and the header struct. Prints the SQL
and its rows; exits 1 on any difference. DuckDB is a real engine installed
from PyPI as a wheel (nothing compiled here): .ci/arrow.sh installs it.
"""

import json
import sys
from collections import defaultdict

import duckdb

SQL = """
SELECT bloom,
       count(*)               AS records,
       sum(difficulty)        AS difficulty,
       round(avg(irt.a), 6)   AS mean_a,
       sum(len(options))      AS options,
       count(hint)            AS hints
FROM read_parquet(?)
GROUP BY bloom
ORDER BY bloom
"""


def expected(canonical):
    groups = defaultdict(list)
    for r in canonical["items"]:
        groups[r["bloom"]].append(r)
    rows = []
    for bloom in sorted(groups):
        rs = groups[bloom]
        rows.append((
            bloom,
            len(rs),
            sum(r["difficulty"] for r in rs),
            round(sum(r["irt"]["a"] for r in rs) / len(rs), 6),
            sum(len(r["options"]) for r in rs),
            sum(1 for r in rs if r.get("hint") is not None),
        ))
    return rows


def main():
    path, canonical_path = sys.argv[1], sys.argv[2]
    with open(canonical_path, encoding="utf-8") as f:
        canonical = json.load(f)
    con = duckdb.connect()
    got = [tuple(r) for r in con.execute(SQL, [path]).fetchall()]
    print(f"duckdb {duckdb.__version__}")
    print(SQL.strip())
    print("bloom | records | difficulty | mean_a | options | hints")
    for r in got:
        print(" | ".join(str(x) for x in r))
    want = expected(canonical)
    ok = True
    if got != want:
        print(f"MISMATCH\n got: {got}\nwant: {want}", file=sys.stderr)
        ok = False
    header = con.execute(
        "SELECT DISTINCT header.n, header.m, header.k FROM read_parquet(?)", [path]
    ).fetchall()
    h = canonical["header"]
    if header != [(h["n"], h["m"], h["k"])]:
        print(f"HEADER MISMATCH: {header} vs {h}", file=sys.stderr)
        ok = False
    print(f"header: {header}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
