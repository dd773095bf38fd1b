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
from typing import TextIO

from skbsearch.core.errors import InputError
from skbsearch.core.lines import bounded


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
        try:
            _records(fh, path, rows)
        except UnicodeDecodeError as e:
            raise InputError(f"not UTF-8 text ({e.reason})", file=path) from None
        except (gzip.BadGzipFile, EOFError) as e:
            raise InputError(f"damaged gzip file ({e or 'truncated'})", file=path) from None
    if limit is not None:
        rows = random.Random(seed).sample(rows, min(limit, len(rows)))
    return rows


def _records(fh: TextIO, path: Path, rows: list[NQRecord]) -> None:
    """Append the records of an open NQ-open file to ``rows`` (lines bounded: :mod:`core.lines`)."""
    for n, line in enumerate(bounded(fh, path), start=1):
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
