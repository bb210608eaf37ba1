"""The workflow (``mini_format.Workflow``) with scripted Python models.

A scripted model returns planned answers in order and records every request
it received.  No network, no timing.
"""
from __future__ import annotations

import asyncio
import json
import pickle
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

import mini_format
from mini_format import (Contract, MiniError, ModelRequest, Workflow, WorkflowError)
from mini_format.workflow import MAX_CONTINUATION_ROUNDS, MAX_REPAIR_ROUNDS

TODO_DICT = {
    "prefix": "todo", "records_key": "tasks",
    "core": [{"name": "title", "type": "str", "unique": True},
             {"name": "done", "type": "bool"},
             {"name": "due", "type": "date", "optional": True}],
}
TODO = Contract.from_dict(TODO_DICT)


class Script:
    """A model that returns planned replies (or raises planned exceptions)."""

    def __init__(self, *replies: Any) -> None:
        self.replies = list(replies)
        self.requests: List[ModelRequest] = []

    def __call__(self, prompt: ModelRequest) -> Any:
        self.requests.append(prompt)
        if not self.replies:
            raise LookupError("the script has no more answers")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def kinds(self) -> List[str]:
        return [r.kind for r in self.requests]


class AsyncScript(Script):
    """The same script as an ``async`` callable (it yields to the loop first)."""

    async def __call__(self, prompt: ModelRequest) -> Any:  # type: ignore[override]
        await asyncio.sleep(0)
        return Script.__call__(self, prompt)


def stages(report: Dict[str, Any], name: str) -> List[Dict[str, Any]]:
    return [s for s in report["stages"] if s["stage"] == name]


# ------------------------------------------------------------ success paths

def test_public_names() -> None:
    for name in ("Workflow", "WorkflowError", "ModelRequest"):
        assert hasattr(mini_format, name), name
    assert mini_format.workflow.Workflow is Workflow
    assert issubclass(WorkflowError, ValueError)  # as the reference's
    assert (MAX_REPAIR_ROUNDS, MAX_CONTINUATION_ROUNDS) == (3, 2)


def test_a_valid_first_answer_takes_one_call() -> None:
    m = Script("todo|n=2\nbuy milk|false|2026-12-24\nwrite docs|true|")
    wf = Workflow(TODO)
    value = wf.run(m, "two chores")
    assert value == {"prefix": "todo", "header": {"n": 2, "v": 1}, "tasks": [
        {"title": "buy milk", "done": False, "due": "2026-12-24"},
        {"title": "write docs", "done": True, "due": None}]}
    assert m.kinds() == ["generate"]
    req = m.requests[0]
    # the request is the prompt (a str) with its details
    assert isinstance(req, str) and req == req.prompt == wf.prompt("two chores")
    assert req.startswith("Task:\ntwo chores") and ".mini FORMAT — family 'todo'" in req
    assert (req.call, req.lines, req.missing, req.kept, req.reason) == (1, [], None, None, None)
    assert req.prompt == f"{req.user}\n\n{req.system}"
    assert req.messages() == [{"role": "system", "content": req.system},
                              {"role": "user", "content": req.user}]
    assert pickle.loads(pickle.dumps(req)) == req
    report = wf.last_run
    assert report is not None and report["ok"] is True and report["calls"] == 1
    assert report["max_calls"] == 4 and report["records"] == 2
    assert report["summary"] == "2 valid records · 1 model call(s)" == wf.summary()
    assert wf.summary("es") == "2 registros válidos · 1 llamada(s) al modelo"
    assert wf.last_text == "todo|n=2\nbuy milk|false|2026-12-24\nwrite docs|true|"
    json.dumps(report)  # the report is plain JSON data


def test_the_contract_may_be_a_dict_or_a_path(tmp_path: Path) -> None:
    (tmp_path / "contract.json").write_text(json.dumps(TODO_DICT), encoding="utf-8")
    for contract in (TODO_DICT, tmp_path, str(tmp_path / "contract.json")):
        wf = Workflow(contract)  # type: ignore[arg-type]
        assert wf.contract == TODO
        assert wf.process("todo|n=1\na|true|")["tasks"][0]["title"] == "a"
    with pytest.raises(TypeError):
        Workflow(42)  # type: ignore[arg-type]
    with pytest.raises(MiniError) as e:
        Workflow({"prefix": "x"})
    assert e.value.code == "E20"


def test_the_prompt_names_the_expected_count() -> None:
    p = Workflow(TODO).prompt("chores", expected_records=12)
    assert "Required record count: 12 (the header declares n=12)." in p
    es = Workflow(TODO, lang="es").prompt("tareas", 3)
    assert es.startswith("Tarea:\ntareas\nNúmero de registros requerido: 3")


def test_one_broken_line_is_repaired_selectively() -> None:
    answer = ("Here you go:\n```mini\ntodo|n=3\nbuy milk|false|2026-12-24\nwrite docs|maybe|\n"
              "call mom|true|\n```")
    m = Script(answer, "todo|n=1\nwrite docs|false|")
    wf = Workflow(TODO)
    value = wf.run(m, "chores")
    assert m.kinds() == ["generate", "repair"]
    repair = m.requests[1]
    assert repair.call == 2 and repair.lines == [3]
    # the repair prompt names that line only
    assert "[L3] write docs|maybe|" in repair
    assert "[L2]" not in repair and "[L4]" not in repair
    assert repair.system == "" and repair.prompt == repair.user
    assert repr(repair) == "ModelRequest(call=2, kind='repair', lines=[3])"
    # every other line byte-identical
    assert wf.last_text == "todo|n=3\nbuy milk|false|2026-12-24\nwrite docs|false|\ncall mom|true|"
    assert value["tasks"][1] == {"title": "write docs", "done": False, "due": None}
    report = wf.last_run
    assert report is not None and report["calls"] == 2
    (rep,) = stages(report, "repair")
    assert (rep["asked"], rep["applied"], rep["refused"]) == (["L3"], ["L3"], None)
    assert len(stages(report, "extract")[0]["fixes"]) == 3
    assert report["summary"] == (
        "3 valid records · 1 selective correction(s) · 3 local fix(es) · 2 model call(s)")


def test_a_cut_answer_is_continued() -> None:
    # the last line looks valid, but the provider said it stopped at its limit
    first = {"text": "todo|n=4\na|true|\nb|false|\nc|true", "finish_reason": "length",
             "usage": {"prompt_tokens": 100, "completion_tokens": 20}}
    second = {"text": "todo|n=2\nc|true|2026-01-01\nd|false|", "finish_reason": "stop",
              "usage": {"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135},
              "details": {"latency_ms": 12}}
    m = Script(first, second)
    wf = Workflow(TODO)
    value = wf.run(m, "four chores")
    assert m.kinds() == ["generate", "continue"]
    cont = m.requests[1]
    assert (cont.missing, cont.kept) == (2, 2)
    assert "2 of 4 records were received and kept" in cont
    assert 'do not repeat them: ["a","b"]' in cont
    assert "first line is exactly:\ntodo|n=2" in cont
    assert [t["title"] for t in value["tasks"]] == ["a", "b", "c", "d"]
    assert wf.last_text == "todo|n=4\na|true|\nb|false|\nc|true|2026-01-01\nd|false|"
    report = wf.last_run
    assert report is not None
    (cut,) = stages(report, "cut")
    assert (cut["signal"], cut["kept"], cut["declared"], cut["dropped_line"]) == (
        "provider", 2, 4, "c|true")
    assert report["usage"] == {"prompt_tokens": 220, "completion_tokens": 35, "total_tokens": 255}
    assert report["calls_with_usage"] == 2
    calls = stages(report, "call")
    assert [c["cut"] for c in calls] == [True, False]
    assert calls[1]["details"] == {"latency_ms": 12}
    assert report["summary"] == "4 valid records · cut answer: 2 kept, 2 asked again · 2 model call(s)"


def test_usage_from_an_sdk_object_and_anthropic_names() -> None:
    from types import SimpleNamespace
    m = Script({"content": "todo|n=2\na|true|\nb|tr", "finish_reason": "max_tokens",
                "usage": {"input_tokens": 7, "output_tokens": 3}},
               {"text": "todo|n=1\nb|true|", "cut": False,
                "usage": SimpleNamespace(prompt_tokens=4, completion_tokens=2, total_tokens=6)})
    wf = Workflow(TODO)
    assert len(wf.run(m, "t")["tasks"]) == 2
    assert m.kinds() == ["generate", "continue"]
    assert wf.last_run is not None
    assert wf.last_run["usage"] == {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}


def test_a_cut_signalled_by_a_pair() -> None:
    m = Script(("todo|n=3\na|true|\nb|false|\nc|tr", "length"), ("todo|n=1\nc|true|", None))
    value = Workflow(TODO).run(m, "t")
    assert m.kinds() == ["generate", "continue"]
    assert [t["title"] for t in value["tasks"]] == ["a", "b", "c"]
    # a cut inferred without the provider's signal: fewer lines than n
    m = Script("todo|n=3\na|true|\nb|false|", "todo|n=1\nc|true|")
    wf = Workflow(TODO, lang="es")
    assert len(wf.run(m, "tareas")["tasks"]) == 3
    assert "PETICIÓN DE CONTINUACIÓN" in m.requests[1]
    assert wf.summary() == ("3 registros válidos · respuesta cortada: 2 conservados, "
                            "1 pedidos de nuevo · 2 llamada(s) al modelo")


def test_an_answer_with_no_document_is_regenerated() -> None:
    m = Script("I'm sorry, I cannot help with that.", "todo|n=1\na|true|")
    wf = Workflow(TODO)
    wf.run(m, "t")
    assert m.kinds() == ["generate", "regenerate"]
    assert "REGENERATION REQUEST" in m.requests[1]
    assert m.requests[1].reason and "no header line" in m.requests[1].reason
    assert wf.summary() == "1 valid records · 1 regeneration(s) · 2 model call(s)"


# ------------------------------------------------------------ failures

def test_rounds_exhausted_raise_with_the_report() -> None:
    m = Script("todo|n=2\na|true|\nb|maybe|", "todo|n=1\nb|perhaps|", "todo|n=1\nb|nope|")
    wf = Workflow(TODO)
    with pytest.raises(WorkflowError) as info:
        wf.run(m, "t", max_repairs=2)
    e = info.value
    assert m.kinds() == ["generate", "repair", "repair"]
    assert e.reason == "invalid" and e.exception is None and e.__cause__ is None
    assert "still invalid after every repair round" in str(e)
    assert e.report is wf.last_run and e.report["ok"] is False and e.report["calls"] == 3
    assert len(stages(e.report, "validate")) == 3
    assert e.summary.startswith("FAILED: 1 of 2 records valid")
    # a correction that is still invalid is left out: the last text keeps the line
    assert e.text == wf.last_text == "todo|n=2\na|true|\nb|maybe|"
    assert [r["applied"] for r in stages(e.report, "repair")] == [[], []]
    assert e.codes == ["E06"] and isinstance(e.errors[0], MiniError)
    assert (e.errors[0].line, e.errors[0].field) == (3, "done")
    # the valid records, marked partial: never a success
    assert e.partial is not None
    assert e.partial["records"] == 1 and e.partial["target"] == 2
    assert e.partial["value"]["tasks"] == [{"title": "a", "done": True, "due": None}]
    assert wf.summary().startswith("FAILED")


def test_a_short_batch_against_the_expected_count_fails() -> None:
    m = Script("todo|n=2\na|true|\nb|false|")
    with pytest.raises(WorkflowError) as info:
        Workflow(TODO).run(m, "t", expected_records=3, max_repairs=0)
    assert info.value.reason == "wrong_count"
    assert m.requests[0].count("Required record count: 3") == 1


def test_a_callable_that_raises_is_a_model_failure_chained() -> None:
    boom = ConnectionError("provider down")
    m = Script("todo|n=2\na|true|\nb|maybe|", boom)
    wf = Workflow(TODO)
    with pytest.raises(WorkflowError) as info:
        wf.run(m, "t")
    e = info.value
    assert e.reason == "model" and e.exception is boom and e.__cause__ is boom
    assert "the model call failed" in str(e) and "provider down" in str(e)
    # the report is kept, up to the failed call
    assert e.report is wf.last_run and e.report["calls"] == 2
    last_call = stages(e.report, "call")[-1]
    assert last_call["answer_chars"] is None
    assert last_call["error"] == "ConnectionError: provider down"
    assert e.text == "todo|n=2\na|true|\nb|maybe|"
    assert len(m.requests) == 2  # never called again after it raised


def test_a_reply_that_is_not_an_answer_is_a_model_failure() -> None:
    for bad in (42, b"todo|n=1\na|true|", ("a", "b", "c"), {"usage": {}},
                {"text": "x", "finish_reason": 3}, {"text": "x", "usage": {"prompt_tokens": -1}}):
        with pytest.raises(WorkflowError) as info:
            Workflow(TODO).run(Script(bad), "t")
        assert info.value.reason == "model", bad
        assert isinstance(info.value.__cause__, (TypeError, KeyError)), bad

    async def coroutine_model(prompt: str) -> str:
        return "todo|n=1\na|true|"

    with pytest.raises(WorkflowError, match="use Workflow.run_async") as info:
        Workflow(TODO).run(coroutine_model, "t")
    assert isinstance(info.value.__cause__, TypeError)


def test_an_interrupt_is_re_raised_unchanged() -> None:
    m = Script("todo|n=2\na|true|\nb|maybe|", KeyboardInterrupt())
    wf = Workflow(TODO)
    with pytest.raises(KeyboardInterrupt):
        wf.run(m, "t")
    assert wf.last_run is not None and wf.last_run["calls"] == 2 and not wf.last_run["ok"]


def test_the_call_bound_holds() -> None:
    answers = [
        lambda i: "no document",
        lambda i: "todo|n=3\na|maybe|\nb|maybe|\nc|maybe|",
        lambda i: (f"todo|n=5\nx{i}|true|\ny", "length"),
        lambda i: f"todo|n=9\nz{i}|true|\nq|maybe|",
    ]
    for answer in answers:
        for repairs in range(MAX_REPAIR_ROUNDS + 1):
            for continuations in range(MAX_CONTINUATION_ROUNDS + 1):
                calls: List[int] = []

                def model(prompt: str) -> Any:
                    calls.append(1)
                    return answer(len(calls))

                wf = Workflow(TODO)
                with pytest.raises(WorkflowError) as info:
                    wf.run(model, "t", max_repairs=repairs, max_continuations=continuations)
                assert len(calls) <= 1 + repairs + continuations
                assert info.value.report["calls"] == len(calls)
                assert info.value.report["max_calls"] == 1 + repairs + continuations
                assert wf.max_calls(repairs, continuations) == 1 + repairs + continuations


def test_misuse() -> None:
    wf = Workflow(TODO)
    for kwargs in ({"max_repairs": 4}, {"max_repairs": -1}, {"max_repairs": True},
                   {"max_continuations": 3}, {"max_continuations": 1.0},
                   {"expected_records": -1}, {"expected_records": "3"}):
        with pytest.raises(ValueError):
            wf.run(Script("todo|n=1\na|true|"), "t", **kwargs)
    with pytest.raises(TypeError):
        wf.run("not callable", "t")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        wf.run(Script(), 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Workflow(TODO, lang="fr")
    with pytest.raises(TypeError):
        wf.process(b"todo|n=1\na|true|")  # type: ignore[arg-type]
    assert Workflow(TODO).summary() == "no run yet"
    assert repr(wf) == "Workflow('todo', lang='en')"


# ------------------------------------------------------------ process

def test_process_without_a_model() -> None:
    wf = Workflow(TODO)
    assert wf.process("```\ntodo|n=1\na|true|\n```\n")["tasks"][0]["title"] == "a"
    assert wf.last_run is not None and wf.last_run["calls"] == 0
    with pytest.raises(WorkflowError) as info:
        wf.process("todo|n=2\na|true|")
    assert info.value.reason == "incomplete"
    with pytest.raises(WorkflowError) as info:
        wf.process("todo|n=1\na|maybe|")
    assert info.value.reason == "invalid" and info.value.errors[0].line == 2
    # the provider's cut signal, with no model to continue it
    with pytest.raises(WorkflowError) as info:
        wf.process("todo|n=2\na|true|\nb|true|", truncated=True)
    assert info.value.reason == "incomplete" and info.value.report["calls"] == 1


def test_process_with_a_model_repairs_the_given_answer() -> None:
    m = Script("todo|n=1\nb|false|")
    wf = Workflow(TODO)
    value = wf.process("todo|n=2\na|true|\nb|maybe|", generate=m, task="t")
    assert [t["done"] for t in value["tasks"]] == [True, False]
    assert m.kinds() == ["repair"] and m.requests[0].call == 2
    assert wf.last_run is not None and wf.last_run["calls"] == 2
    m = Script("todo|n=1\nc|false|")
    value = wf.process("todo|n=3\na|true|\nb|true|\nc|tr", generate=m, truncated=True)
    assert m.kinds() == ["continue"] and len(value["tasks"]) == 3


# ------------------------------------------------------------ async

def mixed_answers() -> List[Any]:
    return [("Sure:\n```\ntodo|n=4\na|true|\nb|maybe|\nc|tr", "length"),
            "todo|n=1\nb|false|",
            {"text": "todo|n=2\nc|true|\nd|false|",
             "usage": {"prompt_tokens": 5, "completion_tokens": 6}}]


def requests_of(s: Script) -> List[Any]:
    return [(r.call, r.kind, r.prompt, r.system, r.user, r.lines, r.missing, r.kept)
            for r in s.requests]


def test_async_equals_sync() -> None:
    wf = Workflow(TODO)
    sync_model = Script(*mixed_answers())
    sync_value = wf.run(sync_model, "t", max_repairs=2)
    sync_report, sync_text = wf.last_run, wf.last_text

    async_model = AsyncScript(*mixed_answers())
    async_value = asyncio.run(wf.run_async(async_model, "t", max_repairs=2))
    assert async_value == sync_value
    assert wf.last_run == sync_report and wf.last_text == sync_text
    assert requests_of(async_model) == requests_of(sync_model)
    assert sync_model.kinds() == ["generate", "repair", "continue"]
    assert sync_text == "todo|n=4\na|true|\nb|false|\nc|true|\nd|false|"

    # the same failure, the same chained exception
    for script in (Script, AsyncScript):
        m = script("todo|n=2\na|true|\nb|maybe|", ConnectionError("down"))
        with pytest.raises(WorkflowError) as info:
            if script is Script:
                wf.run(m, "t")
            else:
                asyncio.run(wf.run_async(m, "t"))
        assert info.value.reason == "model" and isinstance(info.value.__cause__, ConnectionError)
        assert info.value.report["calls"] == 2

    # a plain callable is accepted by run_async too
    assert asyncio.run(wf.run_async(Script("todo|n=1\na|true|"), "t"))["tasks"][0]["title"] == "a"


def test_async_calls_run_on_the_callers_loop() -> None:
    seen: List[Any] = []

    async def model(prompt: ModelRequest) -> str:
        seen.append((asyncio.get_running_loop(), threading.get_ident()))
        await asyncio.sleep(0)
        return ["todo|n=2\na|true|\nb|maybe|", "todo|n=1\nb|true|"][prompt.call - 1]

    async def main() -> Any:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        t = asyncio.ensure_future(ticker())
        try:
            value = await Workflow(TODO).run_async(model, "t")
        finally:
            t.cancel()
        return value, asyncio.get_running_loop(), threading.get_ident(), ticks

    value, loop, ident, ticks = asyncio.run(main())
    assert len(value["tasks"]) == 2
    assert seen == [(loop, ident), (loop, ident)]
    assert ticks > 0  # the loop stayed free while the engine worked


def test_cancelling_an_async_run_stops_it() -> None:
    started = threading.Event()
    calls: List[int] = []

    async def model(prompt: ModelRequest) -> str:
        calls.append(prompt.call)
        started.set()
        await asyncio.sleep(3600)
        return "never"

    async def main() -> None:
        task = asyncio.ensure_future(Workflow(TODO).run_async(model, "t"))
        while not started.is_set():
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert calls == [1]


# ------------------------------------------------------------ threads

def test_runs_in_several_threads_at_once() -> None:
    wf = Workflow(TODO)
    results: Dict[int, Any] = {}

    def worker(i: int) -> None:
        m = Script(f"todo|n=2\nt{i}|true|\nu{i}|maybe|", f"todo|n=1\nu{i}|false|")
        results[i] = wf.run(m, f"task {i}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(8):
        assert [t["title"] for t in results[i]["tasks"]] == [f"t{i}", f"u{i}"]


def test_the_module_examples_run() -> None:
    import doctest
    assert doctest.testmod(mini_format.workflow).failed == 0
