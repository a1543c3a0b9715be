"""The JSON documents relay writes (``relay bench ... --json``, ``relay tune --json``), as
records: one flat dict per row, ready for ``pandas.DataFrame(relay.results.records(path))``."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Union

Document = Dict[str, Any]


def load(path: Union[str, os.PathLike]) -> Document:
    """The whole document (its ``schema`` names the format: schemas/ in relay's sources)."""
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _flatten(value: Any, prefix: str, out: Dict[str, Any]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value  # lists stay lists: one cell


def records(source: Union[str, os.PathLike, Document], rows: str = "rows") -> List[Dict[str, Any]]:
    """One flat dict per entry of the document's ``rows`` (nested fields as ``"a.b"`` keys),
    each with the document's ``schema``, ``command`` and ``machine.*`` fields beside it, so
    that results of several runs concatenate into one table."""
    doc = source if isinstance(source, dict) else load(source)
    context: Dict[str, Any] = {}
    for key in ("schema", "command"):
        if key in doc:
            context[key] = doc[key]
    if isinstance(doc.get("machine"), dict):
        _flatten(doc["machine"], "machine", context)
    out = []
    for row in doc.get(rows, []):
        record = dict(context)
        _flatten(row, "", record)
        out.append(record)
    return out
