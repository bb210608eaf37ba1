"""Throughput of mini_format against the standard library's json, in one process.

Generates one large document (RECORDS records of a mixed contract: strings
with escapes, ints, floats, bools, an enum, a list, a marked list), then
times, best of REPEAT runs each:

* mini_format.parse(text, contract)    vs  json.loads(the same data as JSON)
* mini_format.dumps(canonical, contract) vs json.dumps(canonical)

and prints records per second and the ratio (json time / mini time; above 1
means mini_format is faster).  Not a test: run it by hand,

    python crates/mini-format-py/benches/bench.py [RECORDS]
"""
from __future__ import annotations

import json
import platform
import random
import sys
import time
from typing import Any, Callable, Dict, List

import mini_format

CONTRACT = mini_format.Contract.from_dict({
    "prefix": "bench", "records_key": "items",
    "header": {"keys": {"topic": {"type": "str"}}},
    "core": [
        {"name": "id", "type": "str", "unique": True},
        {"name": "title", "type": "str"},
        {"name": "qty", "type": "int", "min": 0},
        {"name": "score", "type": "float"},
        {"name": "ok", "type": "bool"},
        {"name": "level", "type": "enum", "values": ["low", "mid", "high"]},
        {"name": "tags", "type": "list", "item": "str"},
        {"name": "options", "type": "mlist", "item": "str", "marker": "exactly_one"},
    ],
})
WORDS = ["alpha", "beta", "gamma", "delta", "with, comma", "pipe|bar", "naïve", "zeta", "eta"]


def make(n: int) -> Dict[str, Any]:
    rng = random.Random(2026)
    items: List[Dict[str, Any]] = []
    for i in range(n):
        opts = rng.sample(WORDS, 3)
        items.append({
            "id": f"r{i}",
            "title": " ".join(rng.choice(WORDS) for _ in range(4)),
            "qty": rng.randint(0, 10**6),
            "score": round(rng.uniform(-100, 100), 4),
            "ok": rng.random() < 0.5,
            "level": rng.choice(["low", "mid", "high"]),
            "tags": rng.sample(WORDS, 2),
            "items": opts,
            "correct": rng.randrange(3),
        })
    return {"prefix": "bench", "header": {"topic": "bench"}, "items": items}


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    repeat = 5
    obj = make(n)
    text = mini_format.dumps(obj, CONTRACT)
    js = json.dumps(obj, ensure_ascii=False)
    canonical = mini_format.parse(text, CONTRACT).to_canonical()
    assert mini_format.canonical_equal(canonical["items"], json.loads(js)["items"]), "the two forms differ"
    print(f"mini_format {mini_format.__version__} bench: {n} records, .mini {len(text.encode()):,} bytes, "
          f"JSON {len(js.encode()):,} bytes; Python {platform.python_version()}; best of {repeat}")
    rows = [
        ("parse", best(lambda: mini_format.parse(text, CONTRACT), repeat), best(lambda: json.loads(js), repeat)),
        ("dumps", best(lambda: mini_format.dumps(canonical, CONTRACT), repeat),
         best(lambda: json.dumps(canonical, ensure_ascii=False), repeat)),
    ]
    print(f"{'op':<6} {'mini_format rec/s':>18} {'json rec/s':>12} {'ratio json/mini':>16}")
    for op, tm, tj in rows:
        print(f"{op:<6} {n / tm:>18,.0f} {n / tj:>12,.0f} {tj / tm:>16.2f}")


if __name__ == "__main__":
    main()
