"""TREC Deep Learning passage files (DL19 / DL20): the reader, no models (layer L1).

Folder layout::

    DIR/{year}_bm25_top100.json   [{"query": ..., "hits": [{"qid", "docid", "content", "score", "rank"}, ...]}, ...]
    DIR/{year}_qrels.json         {qid: {docid: "grade"}}   (grades 0-3)

Used by the TREC DL benchmark (:mod:`skbsearch.benchmarks.trecdl`) and by cross-encoder
training (:func:`skbsearch.train.cross_encoder.load_trecdl_queries`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from skbsearch.core.errors import InputError
from skbsearch.core.types import Qrels, Query, Run


@dataclass
class TrecDLData:
    """One TREC DL year: judged queries, the BM25 run, qrels and passage texts."""

    year: str
    queries: list[Query]
    run: Run
    qrels: Qrels
    doc_text: dict[str, str]
    path: Path


def load_trecdl(data_dir: str | Path, year: str = "dl19") -> TrecDLData:
    """Read ``DIR/{year}_bm25_top100.json`` and ``DIR/{year}_qrels.json``."""
    d = Path(data_dir)
    run_path, qrels_path = d / f"{year}_bm25_top100.json", d / f"{year}_qrels.json"
    for p in (run_path, qrels_path):
        if not p.is_file():
            raise InputError(f"TREC DL file not found; expected {year}_bm25_top100.json and "
                             f"{year}_qrels.json in {d}", file=p)
    queries, run, texts = read_trecdl_candidates(d, year)
    return TrecDLData(year, queries, run, Qrels.from_json(qrels_path), texts, d)


def read_trecdl_candidates(data_dir: str | Path,
                           year: str = "dl19") -> tuple[list[Query], Run, dict[str, str]]:
    """Queries, BM25 run and passage texts of ``DIR/{year}_bm25_top100.json`` alone.

    No judgements are read, so this works on a year whose qrels nobody has (unlabelled
    candidates, e.g. for distillation from a teacher's scores).
    """
    run_path = Path(data_dir) / f"{year}_bm25_top100.json"
    if not run_path.is_file():
        raise InputError(f"TREC DL file not found; expected {year}_bm25_top100.json in "
                         f"{Path(data_dir)}", file=run_path)
    try:
        records = json.loads(run_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg}", file=run_path, line=e.lineno) from None
    queries: list[Query] = []
    run = Run(name="bm25")
    texts: dict[str, str] = {}
    for n, rec in enumerate(records, start=1):
        try:
            hits = rec["hits"]
            qid = str(hits[0]["qid"]) if hits else str(rec["qid"])
            queries.append(Query(qid, str(rec["query"])))
            run[qid] = {str(h["docid"]): float(h["score"]) for h in hits}
            texts.update({str(h["docid"]): str(h["content"]) for h in hits})
        except (KeyError, TypeError, IndexError) as e:
            raise InputError(f"expected {{'query', 'hits': [{{'qid', 'docid', 'content', "
                             f"'score'}}]}}: missing {e}", file=run_path, line=n) from None
    return queries, run, texts
