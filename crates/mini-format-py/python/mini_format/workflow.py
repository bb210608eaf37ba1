"""From a model to validated data in one call: the workflow (``mini_tools::workflow``).

generate → extract → validate → repair the broken lines → continue a cut
answer → decode, on the compiled engine of the Rust crate ``mini_tools``
(ADR 0025 for the rules, ADR 0028 for this binding).  The model is yours: any
Python callable ``generate(prompt) -> str`` (or an ``async`` one for
:meth:`Workflow.run_async`).

>>> from mini_format import Workflow
>>> wf = Workflow({"prefix": "todo", "records_key": "tasks",
...                "core": [{"name": "title", "type": "str"}, {"name": "done", "type": "bool"}]})
>>> answers = iter(["todo|n=2\\nbuy milk|false\\nwrite docs|maybe", "todo|n=1\\nwrite docs|true"])
>>> wf.run(lambda prompt: next(answers), "two chores")["tasks"][1]
{'title': 'write docs', 'done': True}
>>> wf.summary()
'2 valid records · 1 selective correction(s) · 2 model call(s)'

The rules are the engine's, not the reference's (``minifmt.workflow``): a
repair asks only for the broken lines and never lets the reply replace a
valid line or the header's ``n``; a cut answer keeps its complete records and
asks only for the missing ones; an answer with no document (prose, a refusal,
an empty reply) is asked again in full within the repair budget; the model is
called at most ``1 + max_repairs + max_continuations`` times; and a run that
does not end with exactly ``n`` valid records raises :class:`WorkflowError`
(never a partial value as a success; the valid records are in
:attr:`WorkflowError.partial`).

**What the model callable receives** is a :class:`ModelRequest`: a ``str``
(the whole prompt, to send as it is) that also carries ``call``, ``kind``
(``"generate"``, ``"regenerate"``, ``"repair"``, ``"continue"``),
``system``/``user`` (the same text split for chat APIs) and the kind's
details (``lines``, ``missing``/``kept``, ``reason``).

**What it may return**:

* a ``str``: the answer text;
* a pair ``(text, finish_reason)``: ``"length"`` (or ``"max_tokens"``) says
  the provider stopped at its output limit, any other string that it ended
  normally, ``None`` that it did not say;
* a dict ``{"text": ..., "finish_reason": ..., "usage": {...}, "cut": ...,
  "details": {...}}`` (``"content"`` is accepted for ``"text"``; every key
  but the text is optional; ``cut`` (a bool) overrides ``finish_reason``;
  ``usage`` has ``prompt_tokens``/``completion_tokens``/``total_tokens``, or
  ``input_tokens``/``output_tokens``, and is summed in the report;
  ``details`` is kept in the report for that call: never put credentials in
  it).

**When the callable raises**, the run stops there: the engine records the
call as a model failure (its message in the report) and the run raises
:class:`WorkflowError` (``reason == "model"``, the report kept) *chained from*
the callable's exception (``raise ... from exc``: it is ``__cause__``, and
also :attr:`WorkflowError.exception`).  An exception that is not an
``Exception`` (``KeyboardInterrupt``, ``SystemExit``,
``asyncio.CancelledError``) is re-raised unchanged instead; the report of the
interrupted run is still in :attr:`Workflow.last_run`.
"""
from __future__ import annotations

import asyncio
import inspect
import os
import threading
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import _native
from ._core import Contract
from .errors import MiniError, _errors

__all__ = ["Workflow", "WorkflowError", "ModelRequest", "MAX_REPAIR_ROUNDS",
           "MAX_CONTINUATION_ROUNDS"]

#: The most repair (and regeneration) rounds a run may be given.
MAX_REPAIR_ROUNDS = 3
#: The most continuation rounds a run may be given.
MAX_CONTINUATION_ROUNDS = 2

#: ``finish_reason`` values that mean "stopped at the output limit"
#: (OpenAI-compatible APIs say ``length``; Anthropic's ``stop_reason`` says
#: ``max_tokens``).
_CUT_REASONS = ("length", "max_tokens")

_Usage = Tuple[Optional[int], Optional[int], Optional[int]]
_Reply = Tuple[str, Optional[bool], Optional[_Usage], Any]


class WorkflowError(ValueError):
    """A run that did not deliver every record, valid.

    A ``ValueError``, like the reference's.  Attributes:

    * ``report``: the report of every stage up to the failure (a dict, the
      same as :attr:`Workflow.last_run`);
    * ``text``: the last working ``.mini`` document (``""`` when none was read);
    * ``errors``: the diagnostics of its last validation, as
      :class:`~mini_format.MiniError` (``codes``: their codes);
    * ``partial``: the valid records of the last document, marked partial:
      ``{"value": <canonical object with the valid records only>, "records":
      <count>, "target": <records required or None>}``, or ``None`` when no
      header was read;
    * ``reason``: why it failed: ``"invalid"`` (lines still invalid after
      every repair round), ``"incomplete"`` (records still missing after every
      continuation), ``"wrong_count"``, ``"no_document"``, ``"model"`` (the
      callable raised or returned something that is not a reply),
      ``"config"`` or ``"decode"``;
    * ``exception``: the callable's exception when ``reason == "model"``
      because it raised (also ``__cause__``), else ``None``.
    """

    report: Dict[str, Any]
    text: str
    errors: List[MiniError]
    partial: Optional[Dict[str, Any]]
    reason: str
    exception: Optional[BaseException]

    def __init__(self, message: str, report: Dict[str, Any], *, text: str = "",
                 errors: Optional[List[MiniError]] = None,
                 partial: Optional[Dict[str, Any]] = None, reason: str = "other",
                 exception: Optional[BaseException] = None) -> None:
        super().__init__(message)
        self.report = report
        self.text = text
        self.errors = list(errors or [])
        self.partial = partial
        self.reason = reason
        self.exception = exception

    @property
    def codes(self) -> List[str]:
        """The codes of :attr:`errors`, in order."""
        return [e.code for e in self.errors]

    @property
    def summary(self) -> str:
        """The report's one-line summary (English)."""
        return str(self.report.get("summary", ""))


class ModelRequest(str):
    """One call to the model: the whole prompt as a ``str``, plus its details.

    Being a ``str``, it can be sent as it is (``generate(prompt: str)`` works
    unchanged).  Attributes: ``call`` (1-based), ``kind`` (``"generate"``,
    ``"regenerate"``, ``"repair"``, ``"continue"``), ``prompt`` (the text, a
    plain ``str``), ``system`` (the format block, for a system message; empty
    for a repair) and ``user`` (the call's own text); ``lines`` (a repair: the
    1-based lines asked for, else ``[]``), ``missing`` and ``kept`` (a
    continuation: records asked for and already kept, else ``None``),
    ``reason`` (a regeneration: what was wrong with the previous answer, else
    ``None``).
    """

    call: int
    kind: str
    prompt: str
    system: str
    user: str
    lines: List[int]
    missing: Optional[int]
    kept: Optional[int]
    reason: Optional[str]

    def __new__(cls, info: Mapping[str, Any]) -> "ModelRequest":
        self = super().__new__(cls, info["prompt"])
        kind = dict(info.get("kind") or {})
        self.call = int(info["call"])
        self.kind = str(kind.get("kind", "generate"))
        self.prompt = str(info["prompt"])
        self.system = str(info.get("system", ""))
        self.user = str(info.get("user", ""))
        self.lines = list(kind.get("lines") or [])
        self.missing = kind.get("missing")
        self.kept = kind.get("kept")
        self.reason = kind.get("reason")
        return self

    def messages(self) -> List[Dict[str, str]]:
        """The request as chat messages: a system message (the format block,
        when there is one) and a user message."""
        out = [{"role": "system", "content": self.system}] if self.system else []
        out.append({"role": "user", "content": self.user})
        return out

    def __repr__(self) -> str:
        extra = {"repair": f", lines={self.lines!r}",
                 "continue": f", missing={self.missing!r}, kept={self.kept!r}",
                 "regenerate": f", reason={self.reason!r}"}.get(self.kind, "")
        return f"ModelRequest(call={self.call!r}, kind={self.kind!r}{extra})"

    def __reduce__(self) -> Any:
        kind: Dict[str, Any] = {"kind": self.kind}
        if self.kind == "repair":
            kind["lines"] = self.lines
        elif self.kind == "continue":
            kind.update(missing=self.missing, kept=self.kept)
        elif self.kind == "regenerate":
            kind["reason"] = self.reason
        return (ModelRequest, ({"call": self.call, "kind": kind, "prompt": self.prompt,
                                "system": self.system, "user": self.user},))


# ------------------------------------------------------------ replies

def _count(usage: Mapping[str, Any], *names: str) -> Optional[int]:
    for name in names:
        v = usage.get(name)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise TypeError(f"usage {name} must be a non-negative int, not {v!r}")
        return v
    return None


def _usage(usage: Any) -> Optional[_Usage]:
    if usage is None:
        return None
    if not isinstance(usage, Mapping):
        # an SDK object (openai's CompletionUsage): read its attributes
        usage = {k: getattr(usage, k, None) for k in
                 ("prompt_tokens", "completion_tokens", "total_tokens", "input_tokens",
                  "output_tokens")}
    p = _count(usage, "prompt_tokens", "input_tokens")
    c = _count(usage, "completion_tokens", "output_tokens")
    t = _count(usage, "total_tokens")
    if t is None and p is not None and c is not None:
        t = p + c
    return (p, c, t)


def _cut(finish_reason: Any) -> Optional[bool]:
    if finish_reason is None:
        return None
    if not isinstance(finish_reason, str):
        raise TypeError(f"finish_reason must be a str or None, not {type(finish_reason).__name__}")
    return finish_reason in _CUT_REASONS


def _text(text: Any) -> str:
    if not isinstance(text, str):
        raise TypeError(f"the model's answer text must be str, not {type(text).__name__}")
    return text


def _reply(obj: Any) -> _Reply:
    """A reply of the model callable in the native layer's form."""
    if isinstance(obj, str):
        return (str(obj), None, None, None)
    if isinstance(obj, tuple) and len(obj) == 2:
        return (_text(obj[0]), _cut(obj[1]), None, None)
    if isinstance(obj, Mapping):
        text = obj["text"] if "text" in obj else obj.get("content")
        cut = _cut(obj.get("finish_reason"))
        if obj.get("cut") is not None:
            if not isinstance(obj["cut"], bool):
                raise TypeError(f"cut must be a bool or None, not {type(obj['cut']).__name__}")
            cut = obj["cut"]
        return (_text(text), cut, _usage(obj.get("usage")), obj.get("details"))
    if inspect.isawaitable(obj):
        if inspect.iscoroutine(obj):
            obj.close()  # never awaited: no RuntimeWarning
        raise TypeError("the model callable returned an awaitable: use Workflow.run_async")
    raise TypeError("the model callable must return str, (text, finish_reason) or a dict "
                    f"with 'text', not {type(obj).__name__}")


# ------------------------------------------------------------ workflow

def _contract_of(contract: Any) -> Contract:
    if isinstance(contract, Contract):
        return contract
    if isinstance(contract, Mapping):
        return Contract.from_dict(contract)
    if isinstance(contract, (str, os.PathLike)):
        path = Path(contract)
        return Contract.load(path / "contract.json" if path.is_dir() else path)
    raise TypeError("a workflow's contract is a Contract, a dict, or the path of a contract.json "
                    f"(or of its folder), not {type(contract).__name__}")


def _rounds(name: str, value: Any, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
        raise ValueError(f"{name} must be an int from 0 to {most}, not {value!r}")
    return value


def _expected(value: Any) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"expected_records must be a non-negative int or None, not {value!r}")
    return value


def _task(task: Any) -> str:
    if not isinstance(task, str):
        raise TypeError(f"task must be str, not {type(task).__name__}")
    return task


class Workflow:
    """The workflow over one contract: ``Workflow(contract, lang="en")``.

    ``contract`` is a :class:`~mini_format.Contract`, a contract dict, or the
    path of a ``contract.json`` (or of the folder that holds one, like the
    reference's ``bundle``).  ``lang`` is the language of the prompts and of
    :meth:`summary`, ``"en"`` (the default; the reference defaults to ``"es"``
    without a ``setup.json``) or ``"es"``.

    Every run sets :attr:`last_run` (the report, as a dict; also after a
    failure) and :attr:`last_text` (the final or last working ``.mini``
    text).  A ``Workflow`` holds no other state: runs may go on in several
    threads at once (``last_run`` is then the report of the one that ended
    last).
    """

    contract: Contract
    lang: str
    #: The report of the last run that ended (a dict), or None.
    last_run: Optional[Dict[str, Any]]
    #: The final (or, after a failure, the last working) ``.mini`` text.
    last_text: Optional[str]

    def __init__(self, contract: Union[Contract, Mapping[str, Any], str, "os.PathLike[str]"],
                 lang: Optional[str] = "en") -> None:
        lang = "en" if lang is None else lang
        if lang not in ("en", "es"):
            raise ValueError(f"lang must be 'en' or 'es', not {lang!r}")
        self.contract = _contract_of(contract)
        self.lang = lang
        self.last_run = None
        self.last_text = None

    def _engine(self, expected_records: Any, max_repairs: Any,
                max_continuations: Any) -> Any:
        return _native.NativeWorkflow(
            self.contract._native, self.lang, _expected(expected_records),
            _rounds("max_repairs", max_repairs, MAX_REPAIR_ROUNDS),
            _rounds("max_continuations", max_continuations, MAX_CONTINUATION_ROUNDS))

    def prompt(self, task: str, expected_records: Optional[int] = None) -> str:
        """The first request's prompt: the task, the required record count when
        one is given, and the contract's format block, in one text to send as
        it is (the same text the first call of :meth:`run` receives)."""
        return self._engine(expected_records, 1, 2).prompt(_task(task))

    def max_calls(self, max_repairs: int = 1, max_continuations: int = 2) -> int:
        """The most model calls a run makes: ``1 + max_repairs + max_continuations``."""
        return int(self._engine(None, max_repairs, max_continuations).max_calls)

    def run(self, generate: Callable[[ModelRequest], Any], task: str, *,
            expected_records: Optional[int] = None, max_repairs: int = 1,
            max_continuations: int = 2) -> Dict[str, Any]:
        """Ask ``generate`` for the document of ``task``; return the canonical object.

        ``generate(prompt)`` is called at most ``1 + max_repairs +
        max_continuations`` times (see the module docs for what it receives
        and may return).  ``max_repairs`` (0–3) bounds the selective repairs
        and full regenerations, ``max_continuations`` (0–2) the requests for
        the missing records of a cut answer; ``expected_records`` makes any
        other record count a failure.  Returns ``{"prefix", "header",
        "<records_key>": [...]}``; raises :class:`WorkflowError` otherwise.
        The engine runs without the GIL; it is taken again for each call.
        """
        if not callable(generate):
            raise TypeError(f"generate must be callable, not {type(generate).__name__}")
        native = self._engine(expected_records, max_repairs, max_continuations)
        task = _task(task)

        def call(info: Mapping[str, Any]) -> _Reply:
            return _reply(generate(ModelRequest(info)))

        return self._finish(native.run(task, call))

    async def run_async(self, generate: Callable[[ModelRequest], Awaitable[Any]], task: str, *,
                        expected_records: Optional[int] = None, max_repairs: int = 1,
                        max_continuations: int = 2) -> Dict[str, Any]:
        """:meth:`run` with an ``async`` model callable (a plain one works too).

        The engine runs in a worker thread (``asyncio.to_thread``); each call
        of ``generate`` runs on the caller's event loop
        (``asyncio.run_coroutine_threadsafe``), so the loop stays free while
        the engine works and the callable may use the loop's clients.  Same
        results, report and errors as :meth:`run` on the same answers.
        Cancelling the awaiting task cancels the call in flight and stops the
        run before any further call.
        """
        if not callable(generate):
            raise TypeError(f"generate must be callable, not {type(generate).__name__}")
        native = self._engine(expected_records, max_repairs, max_continuations)
        task = _task(task)
        loop = asyncio.get_running_loop()
        lock = threading.Lock()
        cancelled = False
        inflight: List[Any] = []

        async def invoke(request: ModelRequest) -> Any:
            got = generate(request)
            if inspect.isawaitable(got):
                got = await got
            return got

        def call(info: Mapping[str, Any]) -> _Reply:
            # in the worker thread, with the GIL (the native layer took it)
            with lock:
                if cancelled:
                    raise asyncio.CancelledError()
                fut = asyncio.run_coroutine_threadsafe(invoke(ModelRequest(info)), loop)
                inflight[:] = [fut]
            try:
                return _reply(fut.result())
            finally:
                inflight.clear()

        try:
            result = await asyncio.to_thread(native.run, task, call)
        except asyncio.CancelledError:
            with lock:
                cancelled = True
                for fut in inflight:
                    fut.cancel()
            raise
        return self._finish(result)

    def process(self, text: str, *, generate: Optional[Callable[[ModelRequest], Any]] = None,
                task: str = "", expected_records: Optional[int] = None, max_repairs: int = 1,
                max_continuations: int = 2, truncated: Optional[bool] = None) -> Dict[str, Any]:
        """Run the pipeline on an answer already in hand; return the canonical object.

        Without ``generate`` (and ``truncated``) nothing is asked: the text is
        extracted, validated and decoded, and a broken, cut or short answer is
        a :class:`WorkflowError`.  With ``generate`` (the reference's
        signature), ``text`` stands as the answer to the first call (the
        report counts it as call 1) and ``generate`` answers the repairs and
        continuations, as in :meth:`run`.  ``truncated`` is the provider's
        signal for ``text`` (``finish_reason == "length"``); without
        ``generate`` a cut answer cannot be continued and fails.
        """
        text = _text(text)
        if generate is None and truncated is None:
            native = self._engine(expected_records, 0, 0)
            return self._finish(native.process(text))
        if generate is not None and not callable(generate):
            raise TypeError(f"generate must be callable, not {type(generate).__name__}")
        if truncated is not None and not isinstance(truncated, bool):
            raise TypeError(f"truncated must be a bool or None, not {type(truncated).__name__}")
        if generate is None:
            max_repairs = max_continuations = 0
        native = self._engine(expected_records, max_repairs, max_continuations)
        first: _Reply = (text, truncated, None, None)

        def call(info: Mapping[str, Any]) -> _Reply:
            if info["call"] == 1:
                return first
            assert generate is not None  # no round is left without it
            return _reply(generate(ModelRequest(info)))

        return self._finish(native.run(_task(task), call))

    def summary(self, lang: Optional[str] = None) -> str:
        """The last run's one-line summary, in ``lang`` (default: the workflow's),
        e.g. ``12 valid records · cut answer: 7 kept, 5 asked again · 1
        selective correction(s) · 3 model call(s)``."""
        lang = self.lang if lang is None else lang
        if lang not in ("en", "es"):
            raise ValueError(f"lang must be 'en' or 'es', not {lang!r}")
        if self.last_run is None:
            return "ninguna ejecución todavía" if lang == "es" else "no run yet"
        return str(self.last_run["summary_es" if lang == "es" else "summary"])

    def _finish(self, result: Mapping[str, Any]) -> Dict[str, Any]:
        self.last_run = result["report"]
        self.last_text = result["text"]
        if result["ok"]:
            return result["value"]
        exc = result.get("exception")
        if exc is not None and not isinstance(exc, Exception):
            raise exc  # KeyboardInterrupt, SystemExit, CancelledError: unchanged
        error = WorkflowError(result["message"], result["report"], text=result["text"],
                              errors=_errors(result["diagnostics"]), partial=result["partial"],
                              reason=result["failure"], exception=exc)
        if exc is not None:
            raise error from exc
        raise error

    def __repr__(self) -> str:
        return f"Workflow({self.contract.prefix!r}, lang={self.lang!r})"
