"""Streaming: read a document as a model writes it.

:class:`Reader` accepts fragments of text, or of UTF-8 bytes cut anywhere
(inside a multi-byte character too), and returns each record as soon as its
line is closed by LF.  :meth:`Reader.end` gives the account of the stream:
the :class:`~mini_format.Document`, records and errors are those of
``parse(full_text, contract, strict=False)`` on the whole text, plus what was
expected, received, missing and cut off.  The parsing is the engine's push
parser (``mini::PushParser``), the same engine as :func:`mini_format.parse`.

Memory: the reader keeps the current unfinished line, the errors and the
values of ``unique`` fields.  Records are kept only with
``keep_records=True`` (the default of :class:`Reader`; :func:`read_records`
defaults to ``False``, since it yields every record).

Differences from the reference (``minifmt.stream``), each from our ADRs:

* ``ReaderResult.missing``/``excess`` and ``truncated`` are ``None`` when
  ``n`` is unknown (ADR 0006: unknown is not zero).
* Invalid UTF-8 in byte chunks raises ``ValueError`` naming the line and the
  byte offset; the reference replaces it with U+FFFD.
* A line longer than the engine's limit (``mini::Limits``) raises
  ``ValueError`` instead of growing without bound.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import (Any, Callable, Dict, Generator, Iterable, List, Mapping, NamedTuple, Optional,
                    Union)

from . import _native
from ._core import Contract, Document, _as_contract
from .errors import MiniError, MiniValidationError, _errors, _reraise

__all__ = ["Reader", "ReaderResult", "ReaderProgress", "StreamRecord", "IncompleteRecord",
           "create_reader", "read_records", "Chunk"]

#: What :meth:`Reader.push` accepts.
Chunk = Union[str, bytes, bytearray, memoryview]

_NativeError = _native.NativeError


class StreamRecord(NamedTuple):
    """A record, emitted as soon as its line closed."""

    #: The canonical record (a dict).
    record: Dict[str, Any]
    #: Its physical line, 1-based.
    line: int
    #: Its position among the valid records, 0-based.
    index: int


@dataclass
class IncompleteRecord:
    """The last line, received without a final LF, that failed validation
    (typical of a truncated output)."""

    #: Its physical line.
    line: int
    #: Its text.
    text: str
    #: ``|``-separated fields present (approximate: quotes are not resolved).
    fields_seen: int
    #: Whether it is the header line.
    is_header: bool
    #: Its errors.
    errors: List[MiniError] = field(default_factory=list)


class ReaderProgress(NamedTuple):
    """Where a stream stands: ``expected`` (``n``), ``received`` record lines,
    ``valid`` records and ``errors`` so far."""

    expected: Optional[int]
    received: int
    valid: int
    errors: int


@dataclass
class ReaderResult:
    """The account of a finished stream."""

    #: The document (its records are the kept ones).
    document: Document
    #: The kept records (empty with ``keep_records=False``).
    records: List[Dict[str, Any]]
    #: Every error.
    errors: List[MiniError]
    #: ``n`` declared in the header (``None`` if absent or ill-typed).
    expected: Optional[int]
    #: Record lines received, valid or not.
    received: int
    #: Valid records.
    valid: int
    #: ``max(0, expected - received)``; ``None`` when ``n`` is unknown.
    missing: Optional[int]
    #: ``max(0, received - expected)``; ``None`` when ``n`` is unknown.
    excess: Optional[int]
    #: Whether the stream ended with LF (or nothing was pending).
    terminated: bool
    #: The unterminated last line, when it failed validation.
    incomplete: Optional[IncompleteRecord]
    #: Records missing or the last line cut; ``None`` when ``n`` is unknown and nothing looks cut.
    truncated: Optional[bool]
    #: No error of any kind.
    complete: bool
    #: Records completed by ``end()`` itself (a last valid line without LF); counted in ``valid``.
    final_records: List[StreamRecord] = field(default_factory=list)


def _fields_seen(line: str) -> int:
    n, i = 1, 0
    while i < len(line):
        ch = line[i]
        if ch == "\\":
            i += 1
        elif ch == "|":
            n += 1
        i += 1
    return n


class Reader:
    """An incremental reader of one document of ``contract`` (a
    :class:`~mini_format.Contract` or a contract dict).

    ``strict=False`` (the default) is tolerant; with ``strict=True``
    :meth:`end` raises :class:`MiniValidationError` (with ``.result``) when
    there were errors.  Callbacks: ``on_header(prefix, header, line)``,
    ``on_record(StreamRecord)``, ``on_error(MiniError)``.  Do not mix str and
    bytes chunks in one stream (``TypeError``); pushing after :meth:`end` is
    ``RuntimeError``.
    """

    def __init__(self, contract: Union[Contract, Mapping[str, Any]], strict: bool = False,
                 keep_records: bool = True,
                 on_header: Optional[Callable[[str, Dict[str, Any], int], None]] = None,
                 on_record: Optional[Callable[[StreamRecord], None]] = None,
                 on_error: Optional[Callable[[MiniError], None]] = None) -> None:
        self._contract = _as_contract(contract)
        self._strict = bool(strict)
        self._keep = bool(keep_records)
        self._native = _native.NativeReader(self._contract._native, False)
        self._records: List[Dict[str, Any]] = []
        self._lines: List[int] = []
        self._valid = 0
        self._mode: Optional[str] = None
        self._header_seen = False
        self._reported = 0
        self._ended = False
        self._on_header, self._on_record, self._on_error = on_header, on_record, on_error

    # ------------------------------------------------------------ helpers
    def _bytes(self, chunk: Any) -> bytes:
        if isinstance(chunk, str):
            if self._mode == "bytes":
                raise TypeError("do not mix str and bytes chunks in one stream")
            self._mode = "str"
            return chunk.encode("utf-8")
        if isinstance(chunk, (bytes, bytearray, memoryview)):
            if self._mode == "str":
                raise TypeError("do not mix str and bytes chunks in one stream")
            self._mode = "bytes"
            return bytes(chunk)
        raise TypeError(f"chunk must be str or bytes, not {type(chunk).__name__}")

    def _accept(self, got: List[Any]) -> List[StreamRecord]:
        out: List[StreamRecord] = []
        for line, rec in got:
            sr = StreamRecord(rec, line, self._valid)
            self._valid += 1
            if self._keep:
                self._records.append(rec)
                self._lines.append(line)
            out.append(sr)
        return out

    def _callbacks(self, out: List[StreamRecord]) -> None:
        if not self._header_seen:
            h = self._native.header()
            if h is not None:
                self._header_seen = True
                if self._on_header is not None:
                    self._on_header(h[0] if h[0] is not None else "", h[1], h[2])
        if self._on_record is not None:
            for r in out:
                self._on_record(r)
        if self._on_error is not None:
            errs = self._native.errors()
            while self._reported < len(errs):
                self._on_error(_errors([errs[self._reported]])[0])
                self._reported += 1

    # ---------------------------------------------------------------- API
    def push(self, chunk: Chunk) -> List[StreamRecord]:
        """Add a fragment (str, or UTF-8 bytes; not both in one stream).
        Returns the records its line breaks completed."""
        if self._ended:
            raise RuntimeError("mini reader already ended")
        data = self._bytes(chunk)
        try:
            got = self._native.push(data)
        except _NativeError as e:
            _reraise(e, many=True)
        out = self._accept(got)
        self._callbacks(out)
        return out

    def end(self, tail: Optional[Chunk] = None, chunk: Optional[Chunk] = None) -> ReaderResult:
        """Close the stream (optionally with a last fragment, ``tail`` or
        ``chunk``) and return the :class:`ReaderResult`."""
        if self._ended:
            raise RuntimeError("mini reader already ended")
        if tail is not None and chunk is not None:
            raise TypeError("give the last fragment once (tail or chunk)")
        last = tail if tail is not None else chunk
        if last is not None:
            self.push(last)
        self._ended = True
        try:
            s = self._native.end()
        except _NativeError as e:
            _reraise(e, many=True)
        final = self._accept([s["last_record"]] if s["last_record"] is not None else [])
        self._callbacks(final)
        document = Document(self._contract, s, self._records, self._lines)
        if self._on_error is not None:
            for e in document.errors[self._reported:]:
                self._on_error(e)
            self._reported = len(document.errors)
        incomplete: Optional[IncompleteRecord] = None
        if s["incomplete"] is not None:
            line, text, errs = s["incomplete"]
            if errs:
                incomplete = IncompleteRecord(line=line, text=text, fields_seen=_fields_seen(text),
                                              is_header=line == s["header_line"] or not s["header"],
                                              errors=_errors(errs))
        result = ReaderResult(document=document, records=document.records, errors=document.errors,
                              expected=s["expected"], received=s["received"], valid=s["valid"],
                              missing=s["missing"], excess=s["excess"], terminated=s["terminated"],
                              incomplete=incomplete, truncated=s["truncated"],
                              complete=s["complete"], final_records=final)
        if self._strict and document.errors:
            exc = MiniValidationError(list(document.errors))
            exc.result = result
            raise exc
        return result

    @property
    def contract(self) -> Contract:
        """The contract of the stream."""
        return self._contract

    @property
    def prefix(self) -> str:
        """The prefix of the header, once its line closed (``""`` before)."""
        h = self._native.header()
        return "" if h is None or h[0] is None else h[0]

    @property
    def header(self) -> Optional[Dict[str, Any]]:
        """The canonical header, once its line closed (``None`` before)."""
        h = self._native.header()
        return None if h is None else h[1]

    @property
    def records(self) -> List[Dict[str, Any]]:
        """The records kept so far (``keep_records=True``)."""
        return self._records

    @property
    def errors(self) -> List[MiniError]:
        """The errors found so far."""
        return _errors(self._native.errors())

    @property
    def pending(self) -> str:
        """The text of the current line, not yet closed by LF."""
        return self._native.counts()[2]

    @property
    def progress(self) -> ReaderProgress:
        """``(expected, received, valid, errors)`` so far."""
        _, significant, _ = self._native.counts()
        h = self._native.header()
        expected = None
        if h is not None:
            n = h[1].get("n")
            if isinstance(n, int) and not isinstance(n, bool):
                expected = n
        received = max(0, significant - 1)
        return ReaderProgress(expected, received, self._valid, len(self._native.errors()))

    @property
    def ended(self) -> bool:
        """Whether :meth:`end` was called."""
        return self._ended


def create_reader(contract: Union[Contract, Mapping[str, Any]], **options: Any) -> Reader:
    """A :class:`Reader` for ``contract`` (``strict``, ``keep_records``,
    ``on_header``, ``on_record``, ``on_error``)."""
    return Reader(contract, **options)


def read_records(chunks: Union[Iterable[Chunk], Chunk, Any],
                 contract: Union[Contract, Mapping[str, Any]], keep_records: bool = False,
                 **options: Any) -> Generator[StreamRecord, None, ReaderResult]:
    """Yield the records of a stream as they complete.

    ``chunks`` is a str, bytes, an iterable of fragments, or a file object
    (text or binary: read 64 KiB at a time).  The generator's return value
    (``StopIteration.value``, or the value of ``yield from``) is the
    :class:`ReaderResult`.  Records are not kept unless ``keep_records=True``.
    """
    reader = Reader(contract, keep_records=keep_records, **options)
    source: Iterable[Any]
    if isinstance(chunks, (str, bytes, bytearray, memoryview)):
        source = [chunks]
    elif hasattr(chunks, "read") and callable(chunks.read):
        def _file(f: Any) -> Iterable[Any]:
            while True:
                block = f.read(65536)
                if not block:
                    return
                yield block
        source = _file(chunks)
    else:
        source = chunks
    for chunk in source:
        for rec in reader.push(chunk):
            yield rec
    result = reader.end()
    for rec in result.final_records:
        yield rec
    return result
