"""Persist enriched documents (text, derived facts, index tokens) as JSONL in an index directory.

One :class:`~skbsearch.enrich.base.EnrichedDocument` a line, as its ``to_dict()``::

    {"id": "7", "text": "...", "facts": [{"kind": "date", "value": "2024-10-06", ...}],
     "tokens": ["2024-10-06", "october", ...], "meta": {}}

The file is written atomically (temp file + rename), so a crash leaves the previous file
intact. Facts are read back at query time by constraint scoring and readers, so nothing
is re-derived after indexing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from skbsearch.core.atomic import atomic_write_bytes
from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl
from skbsearch.enrich.base import EnrichedDocument, Fact

#: The file name inside an index directory.
ENRICHED_FILE = "enriched.jsonl"


def _file_of(path: str | Path) -> Path:
    p = Path(path)
    return p / ENRICHED_FILE if p.is_dir() or not p.suffix else p


def document_from_dict(d: Mapping[str, Any], *, file: str | Path | None = None,
                       line: int | None = None) -> EnrichedDocument:
    """The inverse of :meth:`EnrichedDocument.to_dict` (errors name the file and line)."""
    for key in ("id", "text"):
        if key not in d:
            raise InputError(f"enriched document has no '{key}'; rebuild the index",
                             file=file, line=line, field=key)
    try:
        facts = [Fact.from_dict(f) for f in d.get("facts") or []]
    except (KeyError, TypeError, ValueError) as e:
        raise InputError(f"malformed fact ({e}); rebuild the index", file=file, line=line,
                         field="facts") from None
    return EnrichedDocument(str(d["id"]), str(d["text"]), facts, [str(t) for t in d.get("tokens") or []],
                            dict(d.get("meta") or {}))


def save_enriched(path: str | Path, docs: Iterable[EnrichedDocument]) -> Path:
    """Write ``docs`` as JSONL, atomically.

    Args:
        path: an index directory (the file is ``<dir>/enriched.jsonl``) or a ``.jsonl`` path.
        docs: the enriched documents, in index order.

    Returns:
        The file written.
    """
    out = _file_of(path)
    lines = [json.dumps(d.to_dict(), ensure_ascii=False, default=str) for d in docs]
    atomic_write_bytes(out, ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8"))
    return out


def load_enriched(path: str | Path) -> list[EnrichedDocument]:
    """Read the documents :func:`save_enriched` wrote (a directory or the ``.jsonl`` file)."""
    f = _file_of(path)
    if not f.is_file():
        raise InputError(f"no enriched documents at {f}; build the index with enrichment first",
                         file=f)
    docs: list[EnrichedDocument] = []
    for n, rec in iter_jsonl(f, what="one JSON object a line (rebuild the index if it is damaged)"):
        docs.append(document_from_dict(rec, file=f, line=n))
    return docs
