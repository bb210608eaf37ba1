"""Prompt blocks and JSON Schema through the Python API."""
from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

from mini_format import (Contract, MiniError, Registry, from_json_schema, from_pydantic, parse,
                         spec_block, to_json_schema)
from mini_format.schema import SCHEMA_DIALECT


def test_spec_block_languages_and_examples(forks_dir: Path) -> None:
    q = Contract.load(forks_dir / "q" / "contract.json")
    en = spec_block(q)
    es = spec_block(q, "es")
    assert "q|" in en and en != es
    with_example = spec_block(q, "en", 2)
    assert len(with_example) > len(en)
    example = with_example[len(en):].strip().splitlines()
    assert example[0].endswith(":")
    assert len(parse("\n".join(example[1:]), q).records) == 2  # the generated example is valid
    own = spec_block(q, "en", "q|n=0")
    assert own.endswith("Valid example:\nq|n=0")
    with pytest.raises(ValueError):
        spec_block(q, "fr")
    with pytest.raises(TypeError):
        spec_block(q, "en", 2.5)  # type: ignore[arg-type]


def test_json_schema_round_trip_for_every_family(forks_dir: Path) -> None:
    reg = Registry.load(forks_dir)
    for c in reg:
        s = to_json_schema(c)
        assert s["$schema"] == SCHEMA_DIALECT
        assert c.records_key in s["properties"]
        back = from_json_schema(s)
        assert back.prefix == c.prefix and [f.name for f in back.fields] == [f.name for f in c.fields]
        assert [f.type for f in back.fields] == [f.type for f in c.fields]
        record = to_json_schema(c, record_only=True)
        assert record["type"] == "object"


def test_from_json_schema_options_and_errors() -> None:
    schema = {"type": "object", "properties": {"title": {"type": "string", "pattern": "^a"},
                                               "n": {"type": "integer", "minimum": 0}},
              "required": ["title"]}
    warnings: List[str] = []
    c = from_json_schema(schema, "rec", name="Recs", records_key="items", warnings=warnings)
    assert c.prefix == "rec" and c.records_key == "items" and c.name == "Recs"
    assert [f.name for f in c.core] == ["title"] and [f.name for f in c.extensions] == ["n"]
    assert warnings and "pattern" in warnings[0]
    with pytest.raises(MiniError) as info:
        from_json_schema(schema, "rec", strict=True)
    assert info.value.code == "E20"
    with pytest.raises(MiniError):
        from_json_schema({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]})
    with pytest.raises(TypeError):
        from_json_schema("nope")  # type: ignore[arg-type]


def test_from_pydantic_asks_the_model_for_its_schema() -> None:
    class Model:
        @staticmethod
        def model_json_schema() -> dict:
            return {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}

    assert from_pydantic(Model, "pm").fields[0].type == "int"
    with pytest.raises(TypeError):
        from_pydantic(object(), "pm")
