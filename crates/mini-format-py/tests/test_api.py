"""The core API: contracts, the registry, parse/Document, dumps, equality,
values crossing as Python objects, misuse."""
from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest

import mini_format
from mini_format import (Contract, Document, Field, MiniError, MiniValidationError, Registry,
                         canonical_equal, detect_prefix, dumps, parse, roundtrip_ok)

NUM = Contract.from_dict({
    "prefix": "num", "records_key": "rows",
    "header": {"keys": {"tag": {"type": "str"}, "k": {"type": "int"}}},
    "core": [{"name": "id", "type": "str"}, {"name": "i", "type": "int"},
             {"name": "f", "type": "float"}],
    "extensions": [{"name": "note", "type": "str"}],
})


def test_public_names() -> None:
    for name in ["Contract", "Field", "MiniError", "MiniValidationError", "Document", "parse", "dumps",
                 "detect_prefix", "Registry", "spec_block", "canonical_equal", "roundtrip_ok", "Reader",
                 "ReaderResult", "StreamRecord", "create_reader", "read_records", "from_json_schema",
                 "to_json_schema", "from_pydantic", "__version__", "SPEC_VERSION"]:
        assert hasattr(mini_format, name), name
    import importlib
    for mod in ("errors", "schema", "stream"):
        assert importlib.import_module(f"mini_format.{mod}") is getattr(mini_format, mod)
    assert mini_format.SPEC_VERSION == "1.1"


def test_contract_properties(forks_dir: Path) -> None:
    q = Contract.load(forks_dir / "q" / "contract.json")
    assert q.prefix == "q" and isinstance(q.version, int)
    assert q.arity == len(q.core) and q.fields == q.core + q.extensions
    assert all(isinstance(f, Field) for f in q.fields)
    assert "n" in q.header_keys and q.header_keys["n"].required
    d = q.to_dict()
    assert d["prefix"] == "q"
    assert Contract.from_dict(d) == q
    d["prefix"] = "changed"  # a copy: the contract does not change
    assert q.prefix == "q"
    assert q.signature().count("|") >= q.arity - 1
    assert NUM.records_key == "rows" and NUM.list_separator == ","
    assert [f.name for f in NUM.extensions] == ["note"] and NUM.extensions[0].optional
    assert list(NUM.header_keys)[:1] == ["n"] or "n" in NUM.header_keys


def test_field_attributes(forks_dir: Path) -> None:
    c = Contract.from_dict({"prefix": "t", "core": [
        {"name": "opts", "type": "mlist", "item": "str", "marker": "exactly_one", "min": 2, "max": 4},
        {"name": "pt", "type": "tuple", "items": [{"name": "x", "type": "int"}, {"name": "y", "type": "float", "optional": True}]},
        {"name": "lvl", "type": "enum", "values": ["lo", "hi"], "desc": "level"}]})
    opts, pt, lvl = c.fields
    assert (opts.type, opts.item, opts.marker, opts.min, opts.max) == ("mlist", "str", "exactly_one", 2, 4)
    assert (opts.json_items, opts.json_selected) == ("items", "correct")
    assert [x.name for x in pt.items] == ["x", "y"] and pt.items[1].optional
    assert lvl.values == ["lo", "hi"] and lvl.desc == "level"
    assert opts.to_dict()["marker"] == "exactly_one"


def test_registry(forks_dir: Path) -> None:
    reg = Registry.load(forks_dir)
    assert len(reg) == 14 and "q" in reg and "zzz" not in reg
    assert reg.get("q").prefix == "q"
    assert {c.prefix for c in reg} == set(reg.contracts)
    assert reg.paths["q"] == forks_dir / "q"
    assert reg.check() == []
    assert Registry.load(None).contracts == {} or "MINI_FORKS" in __import__("os").environ
    with pytest.raises(FileNotFoundError):
        Registry.load(forks_dir / "nowhere")
    with pytest.raises(MiniError):
        reg.add(reg.get("q"))


def test_document_attributes() -> None:
    text = "\nnum|n=4|k=2\nr1|1|0.5\nr2|x|1.5\n\nr3|3|2.5|hello\n"
    doc = parse(text, NUM, strict=False)
    assert isinstance(doc, Document) and not doc.ok
    assert doc.prefix == "num" and doc.header["n"] == 4 and doc.header["k"] == 2
    assert doc.header_line == 2 and doc.record_lines == [3, 6] and doc.record_line_count == 3
    assert doc.invalid_lines() == [4] and doc.missing_records == 1 and doc.truncated is True
    assert [e.code for e in doc.document_errors()] == ["E04"]
    assert doc.header_errors() == []
    assert doc.records[1] == {"id": "r3", "i": 3, "f": 2.5, "note": "hello"}
    assert doc.records[0]["note"] is None
    d = doc.diagnostics()
    assert d["invalid_lines"] == [4] and d["valid_lines"] == [3, 6] and d["declared_n"] == 4
    assert d["errors"][0]["code"] == "E06"
    canon = doc.to_canonical()
    assert list(canon) == ["prefix", "header", "rows"]
    bad_header = parse("num|n=1|k=x\nr|1|1.0\n", NUM, strict=False)
    assert [e.code for e in bad_header.header_errors()] == ["E06"]


def test_unknown_n_is_not_zero() -> None:
    doc = parse("num\nr|1|1.0\n", NUM, strict=False)
    assert doc.declared_n is None and doc.missing_records is None


def test_big_ints_exact() -> None:
    for v in [2**64, -(2**64) - 1, 10**40 + 7, 2**63 - 1, -(2**63)]:
        text = dumps({"header": {}, "rows": [{"id": "a", "i": v, "f": 0.5}]}, NUM)
        assert str(v) in text
        back = parse(text, NUM).records[0]["i"]
        assert back == v and type(back) is int
    assert parse("num|n=1|k=123456789012345678901234567890\nr|1|1\n", NUM).header["k"] == 123456789012345678901234567890


def test_floats_round_trip() -> None:
    rng = random.Random(19)
    values = [0.1, 1e-300, 1.7976931348623157e308, 5e-324, -0.0, 1 / 3, 123456.789] + [
        rng.uniform(-1e6, 1e6) for _ in range(300)] + [rng.random() * 10 ** rng.randint(-30, 30) for _ in range(300)]
    obj = {"header": {}, "rows": [{"id": f"r{i}", "i": i, "f": v} for i, v in enumerate(values)]}
    back = parse(dumps(obj, NUM), NUM).records
    for v, r in zip(values, back):
        assert r["f"] == v and type(r["f"]) is float
        if v != 0:  # the serializer writes -0.0 as 0 (the engine's canonical zero)
            assert math.copysign(1, r["f"]) == math.copysign(1, v)


def test_key_order_kept() -> None:
    c = Contract.from_dict({"prefix": "o", "header": {"keys": {"z": {"type": "int"}, "a": {"type": "str"}}},
                            "core": [{"name": "zeta", "type": "str"}, {"name": "alpha", "type": "int"}]})
    doc = parse("o|a=x|z=1|n=1|extra=q\nw|2\n", c)
    assert list(doc.records[0]) == ["zeta", "alpha"]
    # the engine's order: as written, then the defaults of absent keys
    assert list(doc.header) == ["a", "z", "n", "extra", "v"]
    assert list(parse("o|n=1|extra=q|z=1|a=x\nw|2\n", c).header) == ["n", "extra", "z", "a", "v"]


def test_dumps_and_roundtrip(forks_dir: Path) -> None:
    reg = Registry.load(forks_dir)
    checked = 0
    for fixture in sorted(forks_dir.glob("*/fixtures/valid.mini")):
        c = reg.get(fixture.parent.parent.name)
        doc = parse(fixture.read_text(encoding="utf-8"), c)
        canon = doc.to_canonical()
        assert roundtrip_ok(canon, c)
        assert canonical_equal(parse(dumps(canon, c), c).to_canonical(), canon)
        checked += 1
    assert checked == 14


def test_canonical_equal() -> None:
    assert canonical_equal({"a": 1, "b": [1.0, "x"]}, {"a": 1.0, "b": [1, "x"]})
    assert not canonical_equal({"a": 1}, {"a": 2})
    assert not canonical_equal({"a": True}, {"a": 1})
    assert canonical_equal({"a": None}, {})
    assert canonical_equal({1, 2}, {2, 1})  # not JSON: ==
    assert not canonical_equal([1, 2], [1, 2, 3])


def test_detect_prefix() -> None:
    assert detect_prefix("\n\nquiz|n=2\n") == "quiz"
    assert detect_prefix("") is None


def test_misuse() -> None:
    with pytest.raises(TypeError):
        parse(b"num|n=0\n", NUM)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse("num|n=0\n", 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        dumps([1, 2], NUM)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        dumps({"header": {}, "rows": [{"id": {1, 2}, "i": 1, "f": 1.0}]}, NUM)
    with pytest.raises(TypeError):
        dumps({"header": {}, "rows": [{1: "x"}]}, NUM)
    with pytest.raises(ValueError):
        dumps({"header": {}, "rows": [{"id": "a", "i": 1, "f": float("nan")}]}, NUM)
    loop: Any = []
    loop.append(loop)
    with pytest.raises(ValueError):
        dumps({"header": {}, "rows": loop}, NUM)
    with pytest.raises(TypeError):
        Contract.from_dict("not a dict")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        Contract(None)
    with pytest.raises(TypeError):
        NUM.check_fork_of({"prefix": "x"})  # type: ignore[arg-type]
    with pytest.raises(MiniValidationError):
        parse("", NUM, strict=False)


def test_contract_dict_accepted_where_reader_takes_one() -> None:
    doc = parse("t|n=1\nx\n", {"prefix": "t", "core": [{"name": "a", "type": "str"}]})  # type: ignore[arg-type]
    assert doc.records == [{"a": "x"}]
