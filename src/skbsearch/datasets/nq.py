"""NQ-open oracle files (``nq-open-oracle.jsonl.gz``): the reader, no models (layer L1).

One JSON record a line: ``question``, ``answers`` and ``ctxs`` (the gold passage first,
with ``title`` and ``text``). Used as judged training data for cross-encoders
(:func:`skbsearch.train.cross_encoder.load_nq_queries` adds BM25-hard negatives).
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
from pathlib import Path

from skbsearch.core.errors import InputError


@dataclass(frozen=True)
class NQRecord:
    """A question, its answer strings (lower-cased) and its gold passage ("title: text")."""

    question: str
    answers: tuple[str, ...]
    passage: str


def read_nq_open(path: str | Path, limit: int | None = None, seed: int = 0) -> list[NQRecord]:
    """Read an NQ-open oracle file (``.gz`` or plain); ``limit``: a seeded sample of N records."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"NQ file {path} not found", file=path, field="data")
    rows: list[NQRecord] = []
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                ctx = r["ctxs"][0]
                rows.append(NQRecord(r["question"], tuple(a.lower() for a in r.get("answers", [])),
                                     f"{ctx.get('title', '')}: {ctx['text']}".strip(": ")))
            except (json.JSONDecodeError, KeyError, IndexError, TypeError, AttributeError) as e:
                raise InputError(f"expected an NQ-open record with 'question' and 'ctxs': {e}",
                                 file=path, line=n) from None
    if limit is not None:
        rows = random.Random(seed).sample(rows, min(limit, len(rows)))
    return rows
