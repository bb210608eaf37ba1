"""Every error code through the Python API, and the error classes' attributes."""
from __future__ import annotations

import pickle
from typing import List

import pytest

import mini_format.errors as errors
from mini_format import Contract, MiniError, MiniValidationError, Registry, dumps, parse

ALL = {
    "prefix": "all", "records_key": "rows",
    "header": {"required": ["n", "k"], "keys": {"k": {"type": "int"}}},
    "core": [
        {"name": "id", "type": "str", "unique": True},
        {"name": "qty", "type": "int", "min": 0, "max": 10},
        {"name": "color", "type": "enum", "values": ["red", "blue"]},
        {"name": "tags", "type": "list", "item": "str", "min": 1, "max": 2},
        {"name": "opts", "type": "mlist", "item": "str", "marker": "exactly_one"},
    ],
}
C = Contract.from_dict(ALL)
OK = "r1|5|red|a,b|x*,y"


def codes_of(text: str) -> List[tuple]:
    with pytest.raises(MiniValidationError) as info:
        parse(text, C)
    return [(e.code, e.line) for e in info.value.errors]


@pytest.mark.parametrize("text,want", [
    ("", [("E01", 0)]),
    ("\n  \n", [("E01", 0)]),
    ("other|n=1|k=1\n" + OK, [("E02", 1)]),
    ("all|k=1\n" + OK, [("E03", 1)]),
    ("all|n=2|k=1\n" + OK, [("E04", 0)]),
    ("all|n=1|k=1\nr1|5|red", [("E05", 2)]),
    ("all|n=1|k=1\nr1|five|red|a|x*", [("E06", 2)]),
    ("all|n=1|k=1\nr1|5|red|a,b,c|x*", [("E07", 2)]),
    ("all|n=1|k=1\nr1|5|red|a|x,y", [("E08", 2)]),
    ("all|n=1|k=1\nr\\q1|5|red|a|x*", [("E09", 2)]),
    ("all|n=1|k=1\nr1|5|green|a|x*", [("E10", 2)]),
    ("all|n=2|k=1\n" + OK + "\n" + OK, [("E11", 3)]),
    ("all|n=1\n" + OK, [("E12", 1)]),
    ("all|n=1|k=1\nr1|11|red|a|x*", [("E13", 2)]),
])
def test_every_parse_code(text: str, want: List[tuple]) -> None:
    assert codes_of(text) == want
    # the lenient parse reports the same errors (except E01, raised in both modes)
    if want[0][0] != "E01":
        doc = parse(text, C, strict=False)
        assert [(e.code, e.line) for e in doc.errors] == want


def test_contract_code_e20() -> None:
    with pytest.raises(MiniError) as info:
        Contract.from_dict({"prefix": "9bad", "core": [{"name": "a", "type": "nope"}]})
    e = info.value
    assert e.code == errors.E_CONTRACT == "E20" and e.line == 0
    assert len(e.errors) >= 2 and all(x.code == "E20" for x in e.errors)
    with pytest.raises(MiniError) as info2:
        Contract.from_json("{not json")
    assert info2.value.code == "E20"


def test_fork_code_e21() -> None:
    child = Contract.from_dict({"prefix": "kid", "parent": "all", "core": [{"name": "id", "type": "int"}]})
    errs = child.check_fork_of(C)
    assert errs and all(e.code == errors.E_FORK for e in errs)
    reg = Registry({"all": C, "kid": child})
    assert {e.code for e in reg.check()} == {"E21"}
    with pytest.raises(MiniError) as info:
        reg.get("nobody")
    assert info.value.code == "E21"


def test_serializer_refusal_is_a_mini_error() -> None:
    obj = {"header": {"k": 1}, "rows": [{"id": "a", "qty": 99, "color": "red", "tags": ["t"],
                                          "items": ["x"], "correct": 0}]}
    with pytest.raises(MiniError) as info:
        dumps(obj, C)
    assert info.value.code == "E13" and info.value.field == "qty"


def test_error_attributes() -> None:
    with pytest.raises(MiniValidationError) as info:
        parse("all|n=1|k=1\nr1|five|red|a|x*", C)
    v = info.value
    assert v.codes == ["E06"]
    (e,) = v.errors
    assert isinstance(e, MiniError) and isinstance(e, Exception)
    assert (e.code, e.line, e.field) == ("E06", 2, "qty")
    assert "five" in e.message
    assert e.to_dict() == {"code": "E06", "line": 2, "field": "qty", "message": e.message}
    assert str(e) == f"E06 line 2 [qty]: {e.message}"
    assert str(v) == str(e)
    assert pickle.loads(pickle.dumps(e)) == e
    assert pickle.loads(pickle.dumps(v)).codes == ["E06"]
    doc_level = MiniError("E04", 0, "count")
    assert str(doc_level) == "E04 document: count" and doc_level.field == ""


def test_code_constants() -> None:
    names = ["E_NO_HEADER", "E_UNKNOWN_PREFIX", "E_NO_COUNT", "E_COUNT_MISMATCH", "E_ARITY", "E_TYPE",
             "E_LIST_ARITY", "E_MARKER", "E_ESCAPE", "E_ENUM", "E_UNIQUE", "E_HEADER_KEY", "E_RANGE",
             "E_CONTRACT", "E_FORK"]
    values = [getattr(errors, n) for n in names]
    assert values == [f"E{i:02d}" for i in range(1, 14)] + ["E20", "E21"]
    assert list(errors.CODES) == values
