"""The error model: stable codes, :class:`MiniError` and :class:`MiniValidationError`.

Every violation found by the engine is one :class:`MiniError` with its stable
code (``"E01"`` … ``"E13"``, ``"E20"``, ``"E21"``), the 1-based physical line
it is on (0 for a document-level error such as E01 or E04), the field it
concerns (``""`` when none) and a message that says what to do.  A strict
parse raises :class:`MiniValidationError` carrying every error found.

The code constants have the names of the reference implementation
(``minifmt.errors``), so ``if e.code == E_ARITY:`` works unchanged.
"""
from __future__ import annotations

from typing import Any, Dict, List, NoReturn, Optional, Sequence, Tuple

__all__ = [
    "MiniError", "MiniValidationError", "CODES",
    "E_NO_HEADER", "E_UNKNOWN_PREFIX", "E_NO_COUNT", "E_COUNT_MISMATCH", "E_ARITY", "E_TYPE",
    "E_LIST_ARITY", "E_MARKER", "E_ESCAPE", "E_ENUM", "E_UNIQUE", "E_HEADER_KEY", "E_RANGE",
    "E_CONTRACT", "E_FORK",
]

#: The document has no header line.
E_NO_HEADER = "E01"
#: The header prefix does not match the contract (or is not registered).
E_UNKNOWN_PREFIX = "E02"
#: The header does not declare ``n``.
E_NO_COUNT = "E03"
#: The number of record lines differs from ``n``.
E_COUNT_MISMATCH = "E04"
#: A record has fewer fields than the core, or more than core + extensions.
E_ARITY = "E05"
#: A value does not match its declared type.
E_TYPE = "E06"
#: A list or tuple has a wrong number of elements.
E_LIST_ARITY = "E07"
#: The ``*`` markers of a list break its marker rule.
E_MARKER = "E08"
#: An invalid escape, a dangling backslash or an unclosed quote.
E_ESCAPE = "E09"
#: A value outside its enumerated set.
E_ENUM = "E10"
#: A repeated value in a field declared ``unique``.
E_UNIQUE = "E11"
#: A header key missing, repeated or malformed.
E_HEADER_KEY = "E12"
#: A number (or date) outside its declared range.
E_RANGE = "E13"
#: The contract itself is invalid.
E_CONTRACT = "E20"
#: A fork invariant is broken (core changed, unknown parent, prefix clash, …).
E_FORK = "E21"

#: Every code, in order.
CODES: Tuple[str, ...] = (E_NO_HEADER, E_UNKNOWN_PREFIX, E_NO_COUNT, E_COUNT_MISMATCH, E_ARITY,
                          E_TYPE, E_LIST_ARITY, E_MARKER, E_ESCAPE, E_ENUM, E_UNIQUE, E_HEADER_KEY,
                          E_RANGE, E_CONTRACT, E_FORK)


class MiniError(Exception):
    """One error: ``code``, ``line`` (0 = the document), ``message`` and ``field``.

    Raised alone where one problem stops the work (an invalid contract, a value
    the serializer refuses); collected in :attr:`Document.errors` and in
    :class:`MiniValidationError` otherwise.  When the engine found several
    problems at once (a contract with two broken fields), the first is this
    error and :attr:`errors` holds all of them.
    """

    code: str
    line: int
    message: str
    field: str
    errors: List["MiniError"]

    def __init__(self, code: str, line: int, message: str, field: str = "") -> None:
        super().__init__(code, line, message, field)
        self.code = code
        self.line = line
        self.message = message
        self.field = field or ""
        self.errors = [self]

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "document"
        fld = f" [{self.field}]" if self.field else ""
        return f"{self.code} {where}{fld}: {self.message}"

    def __repr__(self) -> str:
        return (f"MiniError(code={self.code!r}, line={self.line!r}, message={self.message!r}, "
                f"field={self.field!r})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MiniError):
            return NotImplemented
        return (self.code, self.line, self.message, self.field) == (
            other.code, other.line, other.message, other.field)

    def __hash__(self) -> int:
        return hash((self.code, self.line, self.message, self.field))

    def __reduce__(self) -> Any:
        return (MiniError, (self.code, self.line, self.message, self.field))

    def to_dict(self) -> Dict[str, Any]:
        """The error as a plain dict: ``code``, ``line``, ``field``, ``message``."""
        return {"code": self.code, "line": self.line, "field": self.field, "message": self.message}


class MiniValidationError(Exception):
    """Raised by a strict parse (or a strict reader's ``end``) with every error found.

    ``errors`` is the list of :class:`MiniError`, in line order; ``codes`` their
    codes.  A strict :class:`~mini_format.stream.Reader` also sets ``result``,
    the :class:`~mini_format.stream.ReaderResult` of the stream.
    """

    errors: List[MiniError]
    result: Any

    def __init__(self, errors: Optional[Sequence[MiniError]] = None) -> None:
        self.errors = list(errors or [])
        self.result = None
        super().__init__(self.errors)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)

    def __repr__(self) -> str:
        return f"MiniValidationError({self.errors!r})"

    def __reduce__(self) -> Any:
        return (MiniValidationError, (self.errors,))

    @property
    def codes(self) -> List[str]:
        """The codes of :attr:`errors`, in order."""
        return [e.code for e in self.errors]


# ------------------------------------------------------------ internal

DiagTuple = Tuple[str, int, Optional[str], str]


def _error(t: DiagTuple) -> MiniError:
    """A MiniError from the engine's (code, line, field, message) tuple."""
    code, line, field, message = t
    return MiniError(code, line, message, field or "")


def _errors(ts: Sequence[DiagTuple]) -> List[MiniError]:
    return [_error(t) for t in ts]


def _single(errs: List[MiniError], fallback: str) -> MiniError:
    if not errs:
        return MiniError(E_CONTRACT, 0, fallback)
    first = MiniError(errs[0].code, errs[0].line, errs[0].message, errs[0].field)
    first.errors = errs
    return first


def _reraise(e: BaseException, *, many: bool) -> NoReturn:
    """Turns the native layer's NativeError into this module's exceptions.

    ``many``: a MiniValidationError (parse, reader); otherwise one MiniError
    (contracts, serializer, schema import, registry).
    """
    message, kind, diags = e.args
    if kind == "invalid":
        errs = _errors(diags)
        if many:
            raise MiniValidationError(errs) from None
        raise _single(errs, message) from None
    if kind == "io":
        raise OSError(message) from None
    # invalid UTF-8 (with its line and byte offset), a resource limit, other
    raise ValueError(message) from None
