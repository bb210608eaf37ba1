"""Streaming: the Reader gives what parse gives, whatever the chunks."""
from __future__ import annotations

import io
from pathlib import Path
from typing import Any, List, Tuple

import pytest

from conftest import family_fixtures
from mini_format import (Contract, MiniError, MiniValidationError, Reader, ReaderResult,
                         StreamRecord, create_reader, parse, read_records)
from mini_format.errors import E_ARITY, E_COUNT_MISMATCH, E_NO_HEADER

FIXTURES = family_fixtures()

TODO = {"prefix": "todo", "records_key": "tasks",
        "core": [{"name": "title", "type": "str", "unique": True}, {"name": "done", "type": "bool"}]}


def contract_for(fixture: Path) -> Contract:
    return Contract.load(fixture.parent.parent / "contract.json")


def expected(text: str, c: Contract) -> Tuple[Any, List[Any]]:
    try:
        doc = parse(text, c, strict=False)
        return doc.records, [e.to_dict() for e in doc.errors]
    except MiniValidationError as e:  # no header line
        return [], [x.to_dict() for x in e.errors]


def streamed(chunks: List[Any], c: Contract) -> Tuple[ReaderResult, List[StreamRecord]]:
    r = Reader(c)
    got: List[StreamRecord] = []
    for ch in chunks:
        got.extend(r.push(ch))
    res = r.end()
    return res, got + res.final_records


def test_fixtures_are_there() -> None:
    assert len(FIXTURES) >= 14


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f"{p.parent.parent.name}/{p.name}" for p in FIXTURES])
def test_every_split_point_gives_the_parse(fixture: Path) -> None:
    c = contract_for(fixture)
    data = fixture.read_bytes()
    text = data.decode("utf-8")
    want_records, want_errors = expected(text, c)
    assert len(data) > 10
    for i in range(len(data) + 1):
        res, recs = streamed([data[:i], data[i:]], c)
        assert res.records == want_records, f"split at byte {i}"
        assert [e.to_dict() for e in res.errors] == want_errors, f"split at byte {i}"
        assert [r.record for r in recs] == want_records
        assert [r.index for r in recs] == list(range(len(want_records)))
    # one byte at a time (cuts inside every UTF-8 character), and one char at a time
    res, recs = streamed([data[i:i + 1] for i in range(len(data))], c)
    assert res.records == want_records and [e.to_dict() for e in res.errors] == want_errors
    res, recs = streamed(list(text), c)
    assert res.records == want_records and [e.to_dict() for e in res.errors] == want_errors
    assert res.document.record_lines == [r.line for r in recs]


def test_records_arrive_as_their_lines_close() -> None:
    r = Reader(TODO)
    assert r.push("todo|n=3\nbuy mi") == []
    assert r.header == {"n": 3, "v": 1} and r.prefix == "todo"
    assert r.pending == "buy mi"
    got = r.push("lk|false\nwrite")
    assert got == [StreamRecord({"title": "buy milk", "done": False}, 2, 0)]
    assert r.progress == (3, 1, 1, 0)
    res = r.end("|true")
    assert [x.record["title"] for x in res.final_records] == ["write"]
    assert not res.complete and res.terminated is False and res.valid == 2
    assert res.expected == 3 and res.missing == 1 and res.truncated is True
    assert [e.code for e in res.errors] == [E_COUNT_MISMATCH]
    assert r.ended


def test_utf8_cut_inside_a_character() -> None:
    data = "todo|n=1\ncafé ☕|true\n".encode("utf-8")
    cut = data.index("☕".encode("utf-8")) + 1
    r = Reader(TODO)
    assert r.push(data[:cut]) == []
    assert r.push(data[cut:])[0].record["title"] == "café ☕"
    assert r.end().complete


def test_incomplete_last_line() -> None:
    r = Reader(TODO)
    r.push("todo|n=2\na|true\nb")
    res = r.end()
    assert res.incomplete is not None
    assert res.incomplete.line == 3 and res.incomplete.text == "b" and not res.incomplete.is_header
    assert res.incomplete.fields_seen == 1
    assert [e.code for e in res.incomplete.errors] == [E_ARITY]
    assert res.truncated is True and not res.complete


def test_unknown_n_stays_unknown() -> None:
    res = Reader(TODO).end("todo\na|true\n")
    assert res.expected is None and res.missing is None and res.excess is None


def test_callbacks() -> None:
    seen: List[Any] = []
    r = create_reader(TODO, on_header=lambda p, h, line: seen.append(("h", p, h, line)),
                      on_record=lambda rec: seen.append(("r", rec.line)),
                      on_error=lambda e: seen.append(("e", e.code, e.line)))
    r.push("\ntodo|n=3\na|true\na|false\n")
    r.end("c|maybe")
    assert seen == [("h", "todo", {"n": 3, "v": 1}, 2), ("r", 3), ("e", "E11", 4), ("e", "E06", 5)]


def test_strict_reader_raises_with_result() -> None:
    r = Reader(TODO, strict=True)
    r.push("todo|n=2\na|true\n")
    with pytest.raises(MiniValidationError) as info:
        r.end()
    assert info.value.codes == [E_COUNT_MISMATCH]
    assert isinstance(info.value.result, ReaderResult) and info.value.result.valid == 1


def test_empty_stream() -> None:
    res = Reader(TODO).end()
    assert [e.code for e in res.errors] == [E_NO_HEADER]
    with pytest.raises(MiniValidationError):
        Reader(TODO, strict=True).end()


def test_keep_records_false() -> None:
    r = Reader(TODO, keep_records=False)
    assert len(r.push("todo|n=2\na|true\nb|false\n")) == 2
    res = r.end()
    assert res.records == [] and r.records == [] and res.valid == 2 and res.complete


def test_misuse() -> None:
    r = Reader(TODO)
    r.push("todo|n=0\n")
    with pytest.raises(TypeError):
        r.push(b"x")
    with pytest.raises(TypeError):
        r.push(42)  # type: ignore[arg-type]
    r.end()
    with pytest.raises(RuntimeError):
        r.push("more")
    with pytest.raises(RuntimeError):
        r.end()
    with pytest.raises(TypeError):
        Reader(42)  # type: ignore[arg-type]
    b = Reader(TODO)
    b.push(b"todo|n=0\n")
    with pytest.raises(TypeError):
        b.push("text")


def test_invalid_utf8_is_an_error() -> None:
    r = Reader(TODO)
    with pytest.raises(ValueError, match="UTF-8"):
        r.push(b"todo|n=1\n\xff\xfe|true\n")


DOC = "todo|n=3\nbuy milk|false\nwrite docs|true\ncall mom|true\n"


@pytest.mark.parametrize("source", [
    DOC, DOC.encode(), [DOC[:5], DOC[5:17], DOC[17:]], (b for b in [DOC.encode()[:11], DOC.encode()[11:]]),
    "file-bytes", "file-text",
])
def test_read_records_sources(source: Any) -> None:
    if source == "file-bytes":
        source = io.BytesIO(DOC.encode())
    elif source == "file-text":
        source = io.StringIO(DOC)
    gen = read_records(source, TODO)
    titles = []
    while True:
        try:
            titles.append(next(gen).record["title"])
        except StopIteration as stop:
            result = stop.value
            break
    assert titles == ["buy milk", "write docs", "call mom"]
    assert result.complete and result.records == []


def test_read_records_yield_from_and_file(tmp_path: Path) -> None:
    p = tmp_path / "doc.mini"
    p.write_bytes(DOC.encode())

    def outer() -> Any:
        res = yield from read_records(open(p, "rb"), TODO, keep_records=True)
        return res

    g = outer()
    assert len(list(g)) == 3


def test_read_records_result_keeps_when_asked() -> None:
    def drive() -> Any:
        return (yield from read_records(DOC, TODO, keep_records=True))

    g = drive()
    try:
        while True:
            next(g)
    except StopIteration as stop:
        assert len(stop.value.records) == 3


def test_stream_errors_are_mini_errors() -> None:
    r = Reader(TODO)
    r.push("todo|n=1\na|nope\n")
    (e,) = r.errors
    assert isinstance(e, MiniError) and (e.code, e.line, e.field) == ("E06", 2, "done")
