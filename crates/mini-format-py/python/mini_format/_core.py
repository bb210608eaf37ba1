"""Contracts, the registry, parsing and serialization (re-exported by ``mini_format``)."""
from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional, Union

from . import _native
from .errors import E_FORK, MiniError, MiniValidationError, _errors, _reraise

__all__ = ["Field", "HeaderKey", "Contract", "Registry", "Document", "parse", "dumps",
           "detect_prefix", "canonical_equal", "roundtrip_ok", "spec_block"]

_NativeError = _native.NativeError


class Field:
    """One record field (or tuple component) of a contract, read-only.

    The attribute names are the reference's: ``name``, ``type`` (``str``,
    ``int``, ``float``, ``bool``, ``enum``, ``date``, ``decimal``, ``list``,
    ``mlist``, ``tuple``), ``optional``, ``unique``, ``values`` (enum),
    ``item`` and ``item_values`` (list element type), ``min``/``max`` (range,
    or list arity), ``marker`` (mlist rule), ``items`` (tuple components, as
    Fields), ``count_key``, ``json_items``/``json_selected`` (an mlist's two
    canonical keys), ``desc`` and ``default``; plus ``extension`` (whether it
    comes after the core).
    """

    __slots__ = ("name", "type", "optional", "unique", "values", "item", "item_values", "min",
                 "max", "marker", "items", "count_key", "json_items", "json_selected", "desc",
                 "default", "extension", "_signature", "_raw")

    def __init__(self, info: Mapping[str, Any], raw: Mapping[str, Any]) -> None:
        self.name: str = info["name"]
        self.type: str = info["type"]
        self.optional: bool = bool(info.get("optional", False))
        self.unique: bool = bool(info.get("unique", False))
        vals = info.get("values")
        self.values: Optional[List[str]] = list(vals) if self.type == "enum" and vals else None
        self.item: str = info.get("item") or "str"
        ivals = info.get("item_values")
        self.item_values: Optional[List[str]] = list(ivals) if ivals else None
        self.min: Any = raw.get("min")
        self.max: Any = raw.get("max")
        self.marker: str = info.get("marker") or "exactly_one"
        comps = raw.get("items") if isinstance(raw.get("items"), list) else []
        self.items: List[Field] = [
            Field(c, comps[i] if i < len(comps) and isinstance(comps[i], dict) else {})
            for i, c in enumerate(info.get("items") or [])
        ]
        self.count_key: Optional[str] = info.get("count_key")
        self.json_items: str = info.get("json_items") or "items"
        self.json_selected: str = info.get("json_selected") or "selected"
        self.desc: str = info.get("desc") or ""
        self.default: Any = info.get("default")
        self.extension: bool = bool(info.get("extension", False))
        self._signature: str = info.get("signature") or self.type
        self._raw: Dict[str, Any] = dict(raw)

    def signature(self) -> str:
        """A short readable signature, e.g. ``options:mlist<str>*exactly_one``."""
        return f"{self.name}:{self._signature}" + ("?" if self.optional else "")

    def to_dict(self) -> Dict[str, Any]:
        """The field as written in the contract (a copy)."""
        return copy.deepcopy(self._raw)

    def __repr__(self) -> str:
        return f"Field({self.signature()!r})"


class HeaderKey:
    """A typed header key: ``name``, ``type``, ``required``, ``item``, ``items``,
    ``values``, ``default``, ``desc``."""

    __slots__ = ("name", "type", "required", "item", "items", "values", "default", "desc")

    def __init__(self, info: Mapping[str, Any], raw: Mapping[str, Any]) -> None:
        self.name: str = info["name"]
        self.type: str = info["type"]
        self.required: bool = bool(info.get("required", False))
        self.item: str = info.get("item") or "str"
        comps = raw.get("items") if isinstance(raw.get("items"), list) else []
        self.items: List[Field] = [
            Field(c, comps[i] if i < len(comps) and isinstance(comps[i], dict) else {})
            for i, c in enumerate(info.get("items") or [])
        ]
        vals = info.get("values") or info.get("item_values")
        self.values: Optional[List[str]] = list(vals) if vals else None
        self.default: Any = info.get("default")
        self.desc: str = info.get("desc") or ""

    def __repr__(self) -> str:
        return f"HeaderKey({self.name!r}, type={self.type!r}, required={self.required!r})"


def _raw_fields(raw: Any, key: str) -> List[Dict[str, Any]]:
    if isinstance(raw, dict) and isinstance(raw.get(key), list):
        return [f if isinstance(f, dict) else {} for f in raw[key]]
    return []


class Contract:
    """A validated contract: the description of one ``.mini`` family.

    Build one with :meth:`from_dict`, :meth:`load` (a ``contract.json`` file)
    or :meth:`from_json`.  An invalid contract raises :class:`MiniError` E20
    (its ``errors`` list every problem).  Contracts are immutable: our loader
    validates once, so the reference's mutable dataclass fields are read-only
    properties here.  The rules are ours, stricter than the reference's
    (ADR 0005: e.g. unknown keys, a bad range or an enum default outside its
    values are E20).
    """

    __slots__ = ("_native", "_raw", "_fields", "_header_keys")

    def __init__(self, native: Any) -> None:
        if not isinstance(native, _native.NativeContract):
            raise TypeError("use Contract.from_dict(), Contract.load() or Contract.from_json()")
        self._native = native
        self._raw: Dict[str, Any] = native.raw()
        core = _raw_fields(self._raw, "core")
        ext = _raw_fields(self._raw, "extensions")
        raws = core + ext
        self._fields = [Field(info, raws[i] if i < len(raws) else {})
                        for i, info in enumerate(native.fields())]
        hraw = self._raw.get("header", {}) if isinstance(self._raw, dict) else {}
        hkeys = hraw.get("keys", {}) if isinstance(hraw, dict) else {}
        self._header_keys: Dict[str, HeaderKey] = {}
        for info in native.header_keys():
            r = hkeys.get(info["name"]) if isinstance(hkeys, dict) else None
            self._header_keys[info["name"]] = HeaderKey(info, r if isinstance(r, dict) else {})

    # ---------------------------------------------------------------- io
    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "Contract":
        """Validate a contract given as a dict (raises :class:`MiniError` E20)."""
        if not isinstance(d, Mapping):
            raise TypeError(f"a contract is a dict, not {type(d).__name__}")
        try:
            return Contract(_native.NativeContract.from_obj(dict(d)))
        except _NativeError as e:
            _reraise(e, many=False)

    @staticmethod
    def from_json(text: str) -> "Contract":
        """Validate a contract given as JSON text (raises :class:`MiniError` E20)."""
        if not isinstance(text, str):
            raise TypeError(f"contract JSON text must be str, not {type(text).__name__}")
        try:
            return Contract(_native.NativeContract.from_json(text))
        except _NativeError as e:
            _reraise(e, many=False)

    @staticmethod
    def load(path: Union[str, "os.PathLike[str]"]) -> "Contract":
        """Read and validate a ``contract.json`` file."""
        with open(path, "r", encoding="utf-8") as fh:
            return Contract.from_json(fh.read())

    def to_dict(self) -> Dict[str, Any]:
        """The contract as it was read (a deep copy of the dict given or loaded)."""
        return copy.deepcopy(self._raw)

    # ---------------------------------------------------------- properties
    @property
    def prefix(self) -> str:
        """The family prefix written first in the header."""
        return self._native.prefix

    @property
    def version(self) -> int:
        """The contract version (``v`` in the header)."""
        return self._native.version

    @property
    def records_key(self) -> str:
        """The key of the records array in the canonical object."""
        return self._native.records_key

    @property
    def list_separator(self) -> str:
        """The list element separator (``,`` by default)."""
        return self._native.separator

    @property
    def parent(self) -> Optional[str]:
        """The prefix of the parent family, for a fork."""
        return self._native.parent

    def _meta(self, key: str, default: str = "") -> str:
        v = self._native.meta(key)
        return default if v is None else v

    @property
    def name(self) -> str:
        """The family's readable name."""
        return self._meta("name")

    @property
    def description(self) -> str:
        """The family's description."""
        return self._meta("description")

    @property
    def domain(self) -> str:
        """The family's domain."""
        return self._meta("domain")

    @property
    def author(self) -> str:
        """The family's author."""
        return self._meta("author")

    @property
    def license(self) -> str:
        """The family's license (``MIT`` when not given)."""
        return self._meta("license", "MIT")

    @property
    def source(self) -> str:
        """Where the family comes from."""
        return self._meta("source")

    @property
    def fields(self) -> List[Field]:
        """Every field: the core, then the extensions."""
        return list(self._fields)

    @property
    def core(self) -> List[Field]:
        """The core fields (every record has them)."""
        return self._fields[: self._native.core_len]

    @property
    def extensions(self) -> List[Field]:
        """The extension fields (optional, at the end of a record)."""
        return self._fields[self._native.core_len:]

    @property
    def arity(self) -> int:
        """The number of core fields."""
        return self._native.core_len

    @property
    def header_keys(self) -> Dict[str, HeaderKey]:
        """The typed header keys by name, in canonical order (``n`` and ``v`` included)."""
        return dict(self._header_keys)

    def field_index(self) -> Dict[str, int]:
        """Field name -> position (0-based)."""
        return {f.name: i for i, f in enumerate(self._fields)}

    def signature(self) -> str:
        """The record layout: core signatures, then ``||`` and the extensions."""
        core = " | ".join(f.signature() for f in self.core)
        ext = " | ".join(f.signature() for f in self.extensions)
        return core + (f" || {ext}" if ext else "")

    def check_fork_of(self, parent: "Contract") -> List[MiniError]:
        """The fork invariants of this contract against ``parent``: a list of E21 errors."""
        if not isinstance(parent, Contract):
            raise TypeError(f"parent must be a Contract, not {type(parent).__name__}")
        return _errors(self._native.check_fork_of(parent._native))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Contract):
            return NotImplemented
        return bool(self._native == other._native)

    def __hash__(self) -> int:
        return hash(self._native)

    def __repr__(self) -> str:
        return f"Contract(prefix={self.prefix!r}, version={self.version}, fields={len(self._fields)})"


def _as_contract(contract: Any) -> Contract:
    if isinstance(contract, Contract):
        return contract
    if isinstance(contract, Mapping):
        return Contract.from_dict(contract)
    raise TypeError(f"contract must be a Contract or a contract dict, not {type(contract).__name__}")


class Registry:
    """The families of a folder: ``<dir>/<prefix>/contract.json``.

    ``contracts`` maps prefix -> :class:`Contract`, ``paths`` prefix -> the
    family folder.  Iterating yields the contracts; ``prefix in registry``
    works.  :meth:`check` reports the fork invariants (E21).
    """

    def __init__(self, contracts: Optional[Mapping[str, Contract]] = None) -> None:
        self.contracts: Dict[str, Contract] = dict(contracts or {})
        self.paths: Dict[str, Path] = {}

    @classmethod
    def load(cls, forks_dir: Union[str, "os.PathLike[str]", None] = None) -> "Registry":
        """Load every ``*/contract.json`` of ``forks_dir``.

        Without a folder, ``$MINI_FORKS`` is used when set; otherwise the
        registry is empty (the package ships no families).  A missing folder is
        ``FileNotFoundError``; an invalid contract or a prefix registered twice
        is :class:`MiniError`.
        """
        reg = cls()
        if forks_dir is None:
            forks_dir = os.environ.get("MINI_FORKS") or None
        if forks_dir is None:
            return reg
        p = Path(forks_dir)
        if not p.is_dir():
            raise FileNotFoundError(f"forks directory not found: {p}")
        try:
            loaded = _native.registry_load(str(p))
        except _NativeError as e:
            _reraise(e, many=False)
        for prefix, path, native in loaded:
            reg.contracts[prefix] = Contract(native)
            if path is not None:
                reg.paths[prefix] = Path(path).parent
        return reg

    def add(self, contract: Contract) -> None:
        """Register one more contract (E21 if its prefix is taken)."""
        if not isinstance(contract, Contract):
            raise TypeError(f"expected a Contract, not {type(contract).__name__}")
        if contract.prefix in self.contracts:
            raise MiniError(E_FORK, 0, f"prefix '{contract.prefix}' already registered")
        self.contracts[contract.prefix] = contract

    def get(self, prefix: str) -> Contract:
        """The contract of ``prefix`` (:class:`MiniError` E21 if unknown)."""
        try:
            return self.contracts[prefix]
        except KeyError:
            raise MiniError(E_FORK, 0, f"unknown prefix '{prefix}'") from None

    def __contains__(self, prefix: object) -> bool:
        return prefix in self.contracts

    def __iter__(self) -> Iterator[Contract]:
        return iter(list(self.contracts.values()))

    def __len__(self) -> int:
        return len(self.contracts)

    def check(self) -> List[MiniError]:
        """Every fork against its parent: the list of violations (E21), empty when all hold."""
        try:
            return _errors(_native.check_forks([c._native for c in self.contracts.values()]))
        except _NativeError as e:
            _reraise(e, many=False)

    def lineage(self, prefix: str) -> List[str]:
        """``prefix`` and its ancestors, nearest first."""
        out = [prefix]
        c = self.get(prefix)
        while c.parent and c.parent not in out:
            out.append(c.parent)
            c = self.get(c.parent)
        return out

    def to_index(self) -> List[Dict[str, Any]]:
        """One summary dict per family (prefix, version, name, parent, domain, arity, ...)."""
        return [{"prefix": c.prefix, "version": c.version, "name": c.name, "parent": c.parent,
                 "domain": c.domain, "arity": c.arity, "extensions": len(c.extensions),
                 "signature": c.signature()} for c in self.contracts.values()]

    def __repr__(self) -> str:
        return f"Registry({sorted(self.contracts)!r})"


class Document:
    """A parsed document: the header, the valid records and every error.

    ``records`` are canonical dicts (key order of the contract), ``errors``
    :class:`MiniError` in line order.  ``header_line`` and ``record_lines``
    are physical 1-based line numbers; ``record_line_count`` counts the
    significant lines after the header, valid or not.

    Unknown stays unknown (ADR 0006): when ``n`` is absent or ill-typed,
    :attr:`missing_records` is ``None`` (not 0) and :attr:`truncated` is
    ``None`` unless the last line looks cut.
    """

    __slots__ = ("prefix", "version", "header", "records", "contract", "errors", "lines",
                 "header_line", "record_lines", "record_line_count", "_report")

    def __init__(self, contract: Contract, summary: Mapping[str, Any],
                 records: Optional[List[Dict[str, Any]]] = None,
                 record_lines: Optional[List[int]] = None) -> None:
        self.contract = contract
        self.prefix: Optional[str] = summary["prefix"]
        self.header: Dict[str, Any] = summary["header"] if summary["header"] is not None else {}
        v = self.header.get("v", 1)
        self.version: int = v if isinstance(v, int) and not isinstance(v, bool) else 1
        self.records: List[Dict[str, Any]] = summary["records"] if records is None else records
        self.record_lines: List[int] = (summary["record_lines"] if record_lines is None
                                        else record_lines)
        self.errors: List[MiniError] = _errors(summary["errors"])
        self.header_line: int = summary["header_line"]
        self.record_line_count: int = summary["record_line_count"]
        self.lines: int = self.record_line_count + (1 if self.header_line else 0)
        self._report = summary

    def to_canonical(self) -> Dict[str, Any]:
        """The canonical object ``{"prefix", "header", <records_key>: [...]}`` (valid records)."""
        return {"prefix": self.prefix, "header": dict(self.header),
                self.contract.records_key: [dict(r) for r in self.records]}

    @property
    def ok(self) -> bool:
        """True when there is no error."""
        return not self.errors

    def invalid_lines(self) -> List[int]:
        """Physical lines (ascending) of the rejected records: the lines to regenerate."""
        return list(self._report["invalid_lines"])

    def header_errors(self) -> List[MiniError]:
        """The errors of the header line (E02, E03, E12, a header E06/E07/E09, ...)."""
        return [e for e in self.errors if self.header_line and e.line == self.header_line]

    def document_errors(self) -> List[MiniError]:
        """Document-level errors (line 0: E01, E04)."""
        return [e for e in self.errors if e.line == 0]

    @property
    def declared_n(self) -> Optional[int]:
        """The header ``n`` when present and well typed."""
        return self._report["declared_n"]

    @property
    def missing_records(self) -> Optional[int]:
        """Records declared by ``n`` but absent (0 if none); ``None`` when ``n`` is unknown."""
        return self._report["missing_records"]

    @property
    def excess_records(self) -> Optional[int]:
        """Record lines beyond ``n`` (0 if none); ``None`` when ``n`` is unknown."""
        return self._report["excess_records"]

    @property
    def truncated(self) -> Optional[bool]:
        """True when lines are missing or the last record line looks cut (too few
        fields, a dangling backslash, an unclosed quote); False when ``n`` is
        known and nothing is missing or cut; None when ``n`` is unknown and the
        last line looks whole."""
        return self._report["truncated"]

    def diagnostics(self) -> Dict[str, Any]:
        """A JSON-serialisable report for partial recovery and regeneration."""
        return {
            "ok": self.ok,
            "prefix": self.prefix,
            "declared_n": self.declared_n,
            "record_lines": self.record_line_count,
            "valid_records": len(self.records),
            "valid_lines": list(self.record_lines),
            "invalid_lines": self.invalid_lines(),
            "missing_records": self.missing_records,
            "excess_records": self.excess_records,
            "truncated": self.truncated,
            "errors": [e.to_dict() for e in self.errors],
        }

    def __repr__(self) -> str:
        return (f"Document(prefix={self.prefix!r}, records={len(self.records)}, "
                f"errors={len(self.errors)})")


def parse(text: str, contract: Contract, strict: bool = True) -> Document:
    """Parse ``text`` against ``contract``.

    ``strict=True`` raises :class:`MiniValidationError` listing every error;
    ``strict=False`` returns a :class:`Document` whose ``records`` are the
    valid lines and whose ``errors`` list the rest.  A text without a header
    line raises E01 in both modes, as in the reference.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    c = _as_contract(contract)
    try:
        summary = _native.parse(text, c._native, bool(strict))
    except _NativeError as e:
        _reraise(e, many=True)
    if summary["prefix"] is None:
        raise MiniValidationError(_errors(summary["errors"]))
    return Document(c, summary)


def dumps(obj: Mapping[str, Any], contract: Contract) -> str:
    """Serialize a canonical object (``{"header": {...}, <records_key>: [...]}``) to ``.mini`` text.

    ``n`` is written from the number of records.  A value the contract
    forbids raises :class:`MiniError` (ADR 0004/0023: the serializer checks
    with the parser's rules and refuses what the parser would reject).
    """
    if not isinstance(obj, Mapping):
        raise TypeError(f"dumps expects a dict (a canonical object), not {type(obj).__name__}")
    c = _as_contract(contract)
    try:
        return _native.dumps(dict(obj), c._native)
    except _NativeError as e:
        _reraise(e, many=False)


def detect_prefix(text: str) -> Optional[str]:
    """The prefix of the first significant line (``None`` for an empty text)."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}")
    return _native.detect_prefix(text)


def canonical_equal(a: Any, b: Any) -> bool:
    """Structural equality of canonical objects, as the conformance suite judges it.

    Numbers compare by value (``1 == 1.0``, relative tolerance 1e-12), a
    boolean never equals a number, and a key absent from one object equals a
    null in the other.  Values that are not JSON fall back to ``==``.
    """
    try:
        return bool(_native.equivalent(a, b))
    except (TypeError, ValueError):
        return bool(a == b)


def roundtrip_ok(obj: Mapping[str, Any], contract: Contract) -> bool:
    """``obj -> .mini -> obj'`` gives ``obj`` back and ``text -> obj -> text`` is stable."""
    c = _as_contract(contract)
    text = dumps(obj, c)
    back = parse(text, c).to_canonical()
    records = obj.get(c.records_key, obj.get("records", []))
    header = dict(obj.get("header") or {})
    header["n"] = len(records)
    if "v" not in header and "v" in c.header_keys:
        header["v"] = c.header_keys["v"].default if c.header_keys["v"].default is not None else 1
    ref = {"prefix": c.prefix, "header": header, c.records_key: records}
    return canonical_equal(back, ref) and dumps(back, c) == text


def spec_block(contract: Contract, lang: str = "en", example: Union[int, str, None] = None) -> str:
    """The specification block a model needs to write documents of ``contract``.

    ``lang`` is ``"en"`` or ``"es"``.  ``example`` may be a number of records
    (our generator writes a valid example of that many records, omitted when
    the contract cannot produce one), or a document text to append as the
    reference does; ``None`` gives no example.
    """
    c = _as_contract(contract)
    if not isinstance(lang, str):
        raise TypeError(f"lang must be str, not {type(lang).__name__}")
    if example is None or isinstance(example, str):
        block = _native.spec_block(c._native, lang, None)
        if example:
            block += "\n" + ("Ejemplo válido:" if lang.lower() == "es" else "Valid example:")
            block += "\n" + example
        return block
    if isinstance(example, bool) or not isinstance(example, int):
        raise TypeError(f"example must be a record count, a text or None, not {type(example).__name__}")
    if example < 0:
        raise ValueError("example must be a non-negative record count")
    return _native.spec_block(c._native, lang, example)


def _load_json(path: Union[str, "os.PathLike[str]"]) -> Any:
    with open(path, "r", encoding="utf-8") as fh:
        return json.load(fh)
