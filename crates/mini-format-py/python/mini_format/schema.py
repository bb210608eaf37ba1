"""Contracts to and from JSON Schema (draft 2020-12), and Pydantic models.

:func:`to_json_schema` describes the canonical object of a contract (or one
record); :func:`from_json_schema` builds a contract from a record or document
schema.  What JSON Schema cannot express (prefix, version, separator,
``unique``, marked lists, ``count_key``, …) travels in ``x-mini``
annotations, so contract -> schema -> contract is lossless.  Both are the
engine's ``mini_tools::schema``; its mapping rules (our ADRs) apply, e.g.
``format: date`` and ``format: decimal`` map to the ``date`` and ``decimal``
types.
"""
from __future__ import annotations

import copy
from typing import Any, Dict, List, Mapping, Optional

from . import _native
from ._core import Contract, _as_contract
from .errors import _reraise

__all__ = ["from_json_schema", "to_json_schema", "from_pydantic", "SCHEMA_DIALECT"]

#: The JSON Schema dialect written and read.
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def to_json_schema(contract: Contract, record_only: bool = False) -> Dict[str, Any]:
    """The JSON Schema of the canonical object of ``contract`` (or of one record
    with ``record_only=True``), with ``x-mini`` annotations."""
    c = _as_contract(contract)
    return _native.to_json_schema(c._native, bool(record_only))


def from_json_schema(schema: Mapping[str, Any], prefix: Optional[str] = None, *,
                     name: Optional[str] = None, records_key: Optional[str] = None,
                     strict: bool = False, warnings: Optional[List[str]] = None) -> Contract:
    """Build a contract from a JSON Schema (record or document form).

    ``prefix`` is required unless the schema carries one (``x-mini`` or a
    ``prefix`` property with ``const``).  Keywords without a contract
    equivalent are appended to ``warnings`` (or raise E20 with
    ``strict=True``); shapes no contract can hold raise :class:`MiniError` E20.
    ``name`` and ``records_key`` override the ones found in the schema.
    """
    if not isinstance(schema, Mapping):
        raise TypeError(f"a JSON Schema is a dict, not {type(schema).__name__}")
    try:
        native, warns = _native.from_json_schema(dict(schema), prefix, bool(strict))
    except _native.NativeError as e:
        _reraise(e, many=False)
    if warnings is not None:
        warnings.extend(warns)
    contract = Contract(native)
    if name is None and records_key is None:
        return contract
    d = contract.to_dict()
    if name is not None:
        d["name"] = name
    if records_key is not None:
        d["records_key"] = records_key
    return Contract.from_dict(d)


def from_pydantic(model: Any, prefix: str, **options: Any) -> Contract:
    """Build a contract from a Pydantic model class (v2 ``model_json_schema``,
    v1 ``schema``); Pydantic is not a dependency, the model is only asked for
    its JSON Schema.  Options are those of :func:`from_json_schema`."""
    if hasattr(model, "model_json_schema"):
        schema = model.model_json_schema()
    elif hasattr(model, "schema"):
        schema = model.schema()
    else:
        raise TypeError("expected a Pydantic model class")
    return from_json_schema(copy.deepcopy(schema), prefix, **options)
