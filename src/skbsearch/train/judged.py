"""Training data are *judged queries*: a query text with graded passages. Sources:

* ``trecdl:DIR/dl19``: TREC DL judgements (``DIR/dl19_qrels.json``) over the passages of
  ``DIR/dl19_bm25_top100.json`` (unjudged passages are not used);
* ``nq:FILE``: NQ-open oracle questions (``nq-open-oracle.jsonl.gz``), the gold passage
  graded 1 and BM25-hard negatives (other questions' passages that rank high for the
  question but contain none of its answers) graded 0; ``dense_negatives`` adds negatives
  mined the same way with a bi-encoder;
* ``trecdl-candidates:DIR/dl19``: every query's BM25 top-100 passages *without* grades
  (``DIR/dl19_bm25_top100.json`` only; no judgements are read). Such passages train only
  through a teacher's scores (distillation), so they need ``teacher``.

:func:`add_teacher_scores` gives the queries a teacher's scores (a bi-encoder's cosine) for
distillation (see :mod:`skbsearch.train.cross_encoder`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.datasets.nq import read_nq_open
from skbsearch.datasets.trecdl import load_trecdl, read_trecdl_candidates


@dataclass
class JudgedQuery:
    """A training query: its text and ``(passage text, grade)`` judgements.

    ``unjudged`` passages have no grade and train only by distillation; ``teacher`` maps
    a passage text (judged or not) to a teacher's score (see :func:`add_teacher_scores`).
    """

    id: str
    text: str
    judged: list[tuple[str, int]]
    max_grade: int = 1
    source: str = ""
    unjudged: list[str] = field(default_factory=list)
    teacher: dict[str, float] | None = None

    def passages(self) -> list[str]:
        """Every passage of the query, judged first."""
        return [p for p, _ in self.judged] + self.unjudged


# ---------------------------------------------------------------------- data sources
def load_trecdl_queries(prefix: str | Path, query_ids: set[str] | None = None) -> list[JudgedQuery]:
    """Judged queries of a TREC DL year: ``prefix`` is ``DIR/dl19`` (reads ``DIR/dl19_*.json``)."""
    p = Path(prefix)
    data = load_trecdl(p.parent, p.name)
    out = []
    for q in data.queries:
        if query_ids is not None and q.id not in query_ids:
            continue
        judged = [(data.doc_text[d], g) for d, g in data.qrels.get(q.id, {}).items()
                  if d in data.doc_text]
        if judged:
            out.append(JudgedQuery(q.id, q.text, judged, max_grade=3, source=f"trecdl:{p.name}"))
    return out


def load_trecdl_candidates(prefix: str | Path,
                           query_ids: set[str] | None = None) -> list[JudgedQuery]:
    """Every query's BM25 candidates of a TREC DL year as *unjudged* passages (no qrels read).

    ``prefix`` is ``DIR/dl19`` (reads ``DIR/dl19_bm25_top100.json`` only). The queries
    train only by distillation: give them teacher scores (:func:`add_teacher_scores`).
    """
    p = Path(prefix)
    queries, run, texts = read_trecdl_candidates(p.parent, p.name)
    out = []
    for q in queries:
        if query_ids is not None and q.id not in query_ids:
            continue
        passages = [texts[d] for d in run.get(q.id, {}) if d in texts]
        if passages:
            out.append(JudgedQuery(q.id, q.text, [], max_grade=1,
                                   source=f"trecdl-candidates:{p.name}", unjudged=passages))
    return out


def _mine_negatives(ranked: Sequence[Sequence[int]], rows: list[dict[str, Any]],
                    n: int) -> list[list[int]]:
    """Per question, the first ``n`` ranked passages (not its own) without any of its answers."""
    out = []
    for i, r in enumerate(rows):
        negs: list[int] = []
        for j in ranked[i]:
            j = int(j)
            text = rows[j]["p"].lower()
            if j != i and not any(a and a in text for a in r["a"]):
                negs.append(j)
            if len(negs) >= n:
                break
        out.append(negs)
    return out


def load_nq_queries(path: str | Path, hard_negatives: int = 3, limit: int | None = None,
                    seed: int = 0, dense_negatives: int = 0,
                    encoder: Any = None) -> list[JudgedQuery]:
    """NQ-open oracle questions with their gold passage and hard negatives (grade 0).

    ``hard_negatives`` come from BM25 over the other questions' passages;
    ``dense_negatives`` more from the bi-encoder ``encoder`` (a registry name or an
    :class:`~skbsearch.encoders.registry.Encoder`; default the packaged MiniLM) over the
    same passages, skipping those BM25 already gave. A negative never contains an answer.
    """
    rows = [{"q": r.question, "a": [a.lower() for a in r.answers], "p": r.passage}
            for r in read_nq_open(path, limit=limit, seed=seed)]
    passages = [r["p"] for r in rows]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(passages, stopwords="en", show_progress=False), show_progress=False)
    k = min(len(passages), hard_negatives + 6)
    docs, _ = retriever.retrieve(bm25s.tokenize([r["q"] for r in rows], stopwords="en",
                                                show_progress=False), k=k, show_progress=False)
    negs = _mine_negatives(docs, rows, hard_negatives)
    if dense_negatives > 0:
        q_emb, p_emb = _encode([r["q"] for r in rows], passages, encoder)
        k = min(len(passages), hard_negatives + dense_negatives + 6)
        sims = q_emb @ p_emb.T
        ranked = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        ranked = [[j for j in ranked[i] if j not in seen]
                  for i, seen in enumerate(set(n) for n in negs)]
        negs = [a + b for a, b in zip(negs, _mine_negatives(ranked, rows, dense_negatives),
                                      strict=True)]
    return [JudgedQuery(f"nq{i}", r["q"], [(r["p"], 1), *((passages[j], 0) for j in negs[i])],
                        1, "nq") for i, r in enumerate(rows)]


def load_data_spec(spec: str, nq_limit: int | None = None, seed: int = 0,
                   dense_negatives: int = 0, encoder: Any = None) -> list[JudgedQuery]:
    """Judged queries from ``trecdl:DIR/dl19``, ``trecdl-candidates:DIR/dl19`` or ``nq:FILE``
    (see the module docstring); ``dense_negatives`` and ``encoder`` apply to NQ."""
    kind, _, where = spec.partition(":")
    if kind == "trecdl" and where:
        return load_trecdl_queries(where)
    if kind == "trecdl-candidates" and where:
        return load_trecdl_candidates(where)
    if kind == "nq" and where:
        return load_nq_queries(where, limit=nq_limit, seed=seed,
                               dense_negatives=dense_negatives, encoder=encoder)
    raise InputError(f"cannot read training data {spec!r}; write trecdl:DIR/dl19, "
                     "trecdl-candidates:DIR/dl19 or nq:FILE", field="data")


# ---------------------------------------------------------------------- teacher
def _encode(queries: Sequence[str], passages: Sequence[str],
            encoder: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of ``queries`` and ``passages`` (cached under the default embedding cache)."""
    from skbsearch.encoders.cache import default_cache_dir, encode_texts
    from skbsearch.encoders.registry import load_encoder

    enc = load_encoder(encoder)
    cache = default_cache_dir()
    return (encode_texts(enc, list(queries), cache), encode_texts(enc, list(passages), cache))


def add_teacher_scores(queries: Sequence[JudgedQuery], encoder: Any = None) -> None:
    """Set every query's ``teacher``: the cosine of the bi-encoder ``encoder`` (a registry
    name or an Encoder; default the packaged MiniLM) between the query and each passage."""
    texts = sorted({p for q in queries for p in q.passages()})
    if not texts:
        return
    index = {t: i for i, t in enumerate(texts)}
    q_emb, p_emb = _encode([q.text for q in queries], texts, encoder)
    for i, q in enumerate(queries):
        rows = [index[p] for p in q.passages()]
        scores = p_emb[rows] @ q_emb[i]
        q.teacher = {p: float(s) for p, s in zip(q.passages(), scores, strict=True)}
