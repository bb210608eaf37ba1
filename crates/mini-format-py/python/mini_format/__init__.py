""".mini for Python, on the compiled engine of the Rust crate ``mini``.

The API is the one of the reference implementation (``minifmt``): code
written against it runs after changing the import.

>>> from mini_format import Contract, parse, dumps
>>> c = Contract.from_dict({"prefix": "todo", "records_key": "tasks",
...     "core": [{"name": "title", "type": "str"}, {"name": "done", "type": "bool"}]})
>>> doc = parse("todo|n=1\\nbuy milk|false\\n", c)
>>> doc.records
[{'title': 'buy milk', 'done': False}]
>>> dumps(doc.to_canonical(), c)
'todo|n=1\\nbuy milk|false'

The workflow (``mini_format.workflow``: :class:`Workflow`) drives a Python
model callable, sync or ``async``: generate, validate, repair the broken
lines, continue a cut answer, decode.

Where our documented decisions (the ADRs of the Rust project) differ from
the reference, this package follows ours: see the package README.
"""
from __future__ import annotations

from . import errors, schema, stream, workflow
from ._core import (Contract, Document, Field, HeaderKey, Registry, canonical_equal,
                    detect_prefix, dumps, parse, roundtrip_ok, spec_block)
from .errors import MiniError, MiniValidationError
from .schema import from_json_schema, from_pydantic, to_json_schema
from .stream import (IncompleteRecord, Reader, ReaderProgress, ReaderResult, StreamRecord,
                     create_reader, read_records)
from .workflow import ModelRequest, Workflow, WorkflowError

#: The version of this package.
__version__ = "0.1.0"
#: The SPEC version implemented.
SPEC_VERSION = "1.1"

__all__ = ["Contract", "Field", "HeaderKey", "MiniError", "MiniValidationError", "Document",
           "parse", "dumps", "detect_prefix", "Registry", "spec_block", "canonical_equal",
           "roundtrip_ok", "Reader", "ReaderResult", "ReaderProgress", "StreamRecord",
           "IncompleteRecord", "create_reader", "read_records", "from_json_schema",
           "to_json_schema", "from_pydantic", "Workflow", "WorkflowError", "ModelRequest",
           "errors", "stream", "schema", "workflow", "__version__",
           "SPEC_VERSION"]
