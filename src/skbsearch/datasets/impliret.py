"""IMPLIRET pool files (Taghavi et al., 2025): the reader, no models (layer L1).

Folder layout: ``DIR/{arithmetic,temporal,wknow}_{multispeaker,unispeaker}.jsonl``, one
record a line (``id``, ``tuple_set_id``, ``document``, ``question``, ``answer`` and
``forum_question`` or ``main_speaker``). A pool is a corpus (its documents) and its
queries, each with one positive: the document on the same line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl
from skbsearch.core.types import Qrels, Query

CATEGORIES = ("arithmetic", "temporal", "wknow")
STYLES = ("multispeaker", "unispeaker")
POOLS = tuple(f"{c}_{s}" for c in CATEGORIES for s in STYLES)


@dataclass(frozen=True)
class ImpliretRecord:
    """One line of a pool: a document and the query whose positive it is."""

    id: str
    tuple_set_id: str
    document: str
    question: str
    answer: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def load_pool(path: str | Path) -> list[ImpliretRecord]:
    """Read one pool file; errors name the file, line and field."""
    path = Path(path)
    out: list[ImpliretRecord] = []
    seen: set[str] = set()
    for n, rec in iter_jsonl(path):
        for key in ("document", "question"):
            if not isinstance(rec.get(key), str) or not rec[key].strip():
                raise InputError(f"missing or empty '{key}'", file=path, line=n, field=key)
        rid = str(rec.get("id", n - 1))
        if rid in seen:
            raise InputError(f"duplicate id {rid!r}; ids must be unique within a pool", file=path,
                             line=n, field="id")
        seen.add(rid)
        extra = {k: v for k, v in rec.items() if k not in ("id", "tuple_set_id", "document", "question", "answer")}
        out.append(ImpliretRecord(rid, str(rec.get("tuple_set_id", "")), rec["document"], rec["question"],
                                  str(rec.get("answer", "")), extra))
    if not out:
        raise InputError("pool file has no records", file=path)
    return out


def discover_pools(data: str | Path) -> tuple[dict[str, Path], list[str]]:
    """The pool files present in ``data`` (in :data:`POOLS` order) and the missing pool names."""
    data = Path(data)
    if not data.is_dir():
        raise InputError(f"IMPLIRET folder not found: {data}; expected DIR/<category>_<style>.jsonl",
                         field="data")
    present = {p: data / f"{p}.jsonl" for p in POOLS if (data / f"{p}.jsonl").is_file()}
    missing = [p for p in POOLS if p not in present]
    if not present:
        raise InputError(f"no IMPLIRET pool in {data}; expected files like arithmetic_unispeaker.jsonl",
                         field="data")
    return present, missing


def pool_queries(records: Sequence[ImpliretRecord], limit: int | None = None) -> tuple[list[Query], Qrels]:
    """The queries of a pool (first ``limit``) and their qrels (own document, grade 1)."""
    chosen = list(records)[:limit] if limit else list(records)
    queries = [Query(r.id, r.question, {"tuple_set_id": r.tuple_set_id}) for r in chosen]
    return queries, Qrels({r.id: {r.id: 1} for r in chosen})
