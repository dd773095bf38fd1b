"""Queries, Runs and Qrels to and from pandas DataFrames, in the column names PyTerrier and
ranx use.

* queries: ``qid`` + ``query`` (PyTerrier's topics) or ``id`` + ``text``;
* a Run: ``qid, docno, rank, score`` (PyTerrier's result frame; ``rank`` from 0, as
  PyTerrier numbers it), read back from those columns or ranx's ``q_id, doc_id, score``;
* Qrels: ``qid, docno, label`` (PyTerrier) or ranx's ``q_id, doc_id, score``.

pandas is imported only to build a frame; reading one needs only its ``columns`` and
column access, so any DataFrame-like object works.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from skbsearch.core.errors import InputError, MissingDependencyError

#: (id column, text column) pairs a frame of queries may use, in order of preference.
QUERY_COLUMNS = (("qid", "query"), ("id", "text"), ("query_id", "text"), ("qid", "text"))
#: (query, document, value) column names a Run or Qrels frame may use.
RUN_COLUMNS = (("qid", "docno", "score"), ("q_id", "doc_id", "score"), ("query_id", "doc_id", "score"))
QRELS_COLUMNS = (("qid", "docno", "label"), ("q_id", "doc_id", "score"), ("qid", "docno", "grade"),
                 ("query_id", "doc_id", "relevance"))


def is_frame(obj: Any) -> bool:
    """A pandas DataFrame (or anything shaped like one: ``columns`` and ``to_dict``)."""
    return hasattr(obj, "columns") and callable(getattr(obj, "to_dict", None))


def _pick(frame: Any, choices: Iterable[tuple[str, ...]], what: str) -> tuple[str, ...]:
    cols = [str(c) for c in frame.columns]
    for names in choices:
        if all(n in cols for n in names):
            return names
    wanted = " or ".join("/".join(n) for n in choices)
    raise InputError(f"a DataFrame of {what} needs the columns {wanted}; it has "
                     f"{', '.join(cols) or 'none'}", field="columns")


def _column(frame: Any, name: str) -> list[Any]:
    return list(frame[name].tolist() if hasattr(frame[name], "tolist") else frame[name])


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def query_rows(frame: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """``(id, text, meta)`` of each row of a frame with ``qid``/``query`` or ``id``/``text``
    columns (other columns go into ``meta``); a missing id or text, or a repeated id, is an
    InputError naming the row."""
    id_col, text_col = _pick(frame, QUERY_COLUMNS, "queries")
    extra = [str(c) for c in frame.columns if str(c) not in (id_col, text_col)]
    ids, texts = _column(frame, id_col), _column(frame, text_col)
    metas = {c: _column(frame, c) for c in extra}
    out, seen = [], set()
    for row, (qid, text) in enumerate(zip(ids, texts, strict=True), start=1):
        if _missing(qid) or _missing(text) or not str(text).strip():
            raise InputError("missing query id or text", line=row, field=text_col if not _missing(qid) else id_col)
        qid = str(qid)
        if qid in seen:
            raise InputError(f"query id {qid!r} appears twice", line=row, field=id_col)
        seen.add(qid)
        meta = {c: v[row - 1] for c, v in metas.items() if not _missing(v[row - 1])}
        out.append((qid, str(text), meta))
    return out


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:
        raise MissingDependencyError("pandas", "test", "DataFrames of runs") from None
    return pd


def run_to_frame(run: Mapping[str, Mapping[str, float]], ranked: Any) -> Any:
    """``qid, docno, rank, score`` rows, best first per query (``ranked(qid)`` gives the order)."""
    rows = [(qid, doc, rank, score) for qid in run for rank, (doc, score) in enumerate(ranked(qid))]
    return _pandas().DataFrame(rows, columns=["qid", "docno", "rank", "score"])


def triples_from_frame(frame: Any, kind: str) -> dict[str, dict[str, Any]]:
    """``{qid: {docid: value}}`` from a Run frame (``kind="run"``) or a Qrels frame
    (``kind="qrels"``); a repeated (query, document) pair or a missing value names the row."""
    q_col, d_col, v_col = _pick(frame, RUN_COLUMNS if kind == "run" else QRELS_COLUMNS,
                                "a run" if kind == "run" else "qrels")
    out: dict[str, dict[str, Any]] = {}
    rows = zip(_column(frame, q_col), _column(frame, d_col), _column(frame, v_col), strict=True)
    for row, (qid, doc, value) in enumerate(rows, start=1):
        if _missing(qid) or _missing(doc) or _missing(value):
            raise InputError("missing query, document or value", line=row, field=v_col)
        docs = out.setdefault(str(qid), {})
        if str(doc) in docs:
            raise InputError(f"document {doc!r} appears twice for query {qid!r}", line=row, field=d_col)
        docs[str(doc)] = value
    return out
