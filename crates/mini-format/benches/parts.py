#!/usr/bin/env python3
"""Instructions a record by part of the work, for several operations side
by side: the allocator, copies, dropping the result, the `unique` set,
reading the line, numbers and rules, and the rest ("glue": the serde
layers per field and per element, the cursor's bookkeeping; for
serde_json, its parsing too, which lives in the same functions).

    cargo build --release -p mini-format --example profile
    python3 crates/mini-format/benches/parts.py \\
        target/release/examples/profile rubric typed floor_typed typed_json

Each operation is counted by callgrind (`*measured*`, 5,000 records,
exclusive costs; code inlined into a function counts as that function),
and each function goes to the first part whose pattern its name matches
(`PARTS`). The split is by name, so it is approximate: a rule inlined
into a serde method counts as glue. It answers where two operations'
instructions differ (ADR 0043), not how fast either is.
"""

import re
import sys
import tempfile

from timeshare import instruction_costs

RECORDS = 5000
PARTS = [
    ("allocator", r"malloc|free|_int_|unlink_chunk|consolidate|__rdl_|__rust_alloc|"
                  r"__rust_dealloc|realloc|finish_grow|RawVec.*grow|do_reserve"),
    ("copies", r"memcpy|memmove|memset"),
    ("dropping the result", r"drop_in_place"),
    ("unique set", r"unique|HashTable|HashMap|hashbrown|foldhash|claim"),
    ("reading the line", r"split_fields|list_with|plain_list|push_plain|unescape|syntax::scan|"
                         r"Fields>?::next|Fields::required|text_list|floor::elements|memchr|"
                         r"floor::lines|next_line|StrLines|Cursor::start|trim|"
                         r"notes::quotes|notes::quoted|notes::plain|notes::text|Fields>::text"),
    ("numbers and rules", r"check_|number::|fast_plain|dec2flt|parse_number|floor::int|"
                          r"floor::float|boolean|level_name|notes::lang|from_str"),
    ("glue", r"."),
]


def part_of(name):
    return next(part for part, pattern in PARTS if re.search(pattern, name))


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, family, ops = sys.argv[1], sys.argv[2], sys.argv[3:]
    columns = []
    with tempfile.TemporaryDirectory() as tmp:
        for op in ops:
            costs, total = instruction_costs(binary, family, op, tmp)
            if not total:
                sys.exit(f"no profile of {op}: is valgrind installed, and the binary built?")
            parts = {}
            for name, cost in costs.items():
                part = part_of(name)
                parts[part] = parts.get(part, 0) + cost
            columns.append((parts, total))
    print(f"{family}: instructions a record (callgrind, {RECORDS:,} records)")
    print("| part | " + " | ".join(ops) + " |")
    print("|---|" + "---:|" * len(ops))
    for part, _ in PARTS:
        print(f"| {part} | " + " | ".join(f"{p.get(part, 0) / RECORDS:,.0f}" for p, _ in columns) + " |")
    print("| total | " + " | ".join(f"{t / RECORDS:,.0f}" for _, t in columns) + " |")


if __name__ == "__main__":
    main()
