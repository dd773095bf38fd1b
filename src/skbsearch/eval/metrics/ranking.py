"""Run + Qrels as dense arrays: the input every metric kernel works on.

Ranking convention (the one trec_eval, pytrec_eval and ir-measures use): candidates are
sorted by score, highest first, and **ties in score are broken by doc id in descending
(byte-wise) order**, so among equal scores ``"d9"`` ranks above ``"d10"`` above ``"d1"``.
This is what trec_eval's ``form_res_rels.c`` does and it makes every metric here agree with
trec_eval even on tied runs. (``Run.ranked``/``Run.top`` in :mod:`skbsearch.core.types` break
ties by *ascending* doc id; ranx keeps insertion order. With no tied scores all agree.)
The tie-aware metrics in :mod:`skbsearch.eval.metrics.tied` do not depend on this order.

Every query of the qrels is a row (in qrels order); a query missing from the run is an
empty row and scores 0 on every metric (trec_eval ``-c``). Run queries without qrels are
ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from skbsearch.core.types import Qrels


def check_cutoff(k: int | None, required: bool = False) -> None:
    """Raise ``ValueError`` unless ``k`` is a positive int (or None when not ``required``)."""
    if k is None:
        if required:
            raise ValueError("this metric needs a cut-off k")
        return
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"cut-off k must be an integer >= 1, got {k!r}")


def judge(run: Mapping[str, Mapping[str, float]], qrels: Qrels | Mapping, k: int | None = None,
          *, required: bool = False) -> RankedJudgements:
    """Check the cut-off ``k`` (:func:`check_cutoff`), then judge ``run`` against ``qrels``
    (:meth:`RankedJudgements.build`): the first step of every ranking metric."""
    check_cutoff(k, required)
    return RankedJudgements.build(run, qrels)


def ranked_doc_ids(scores: Mapping[str, float]) -> list[tuple[str, float]]:
    """Candidates of one query in trec_eval order: score desc, then doc id desc."""
    return sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)


@dataclass(frozen=True)
class RankedJudgements:
    """Dense, padded arrays of one run judged against qrels.

    Attributes:
        query_ids: row order (the qrels' queries).
        grades: ``(Q, D)`` grade of the document at each rank (0-based); ``nan`` for
            unjudged documents and padding.
        scores: ``(Q, D)`` run score at each rank; ``nan`` for padding.
        lengths: ``(Q,)`` number of retrieved documents per query.
        ideal: ``(Q, J)`` judged grades of each query sorted descending (0-padded).
        n_judged: ``(Q,)`` number of judged documents per query.
    """

    query_ids: list[str]
    grades: np.ndarray
    scores: np.ndarray
    lengths: np.ndarray
    ideal: np.ndarray
    n_judged: np.ndarray
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(
        cls, run: Mapping[str, Mapping[str, float]], qrels: Qrels | Mapping
    ) -> RankedJudgements:
        """Judge ``run`` against ``qrels`` (see the module docstring for the conventions)."""
        qids = [str(q) for q in qrels]
        rows = [ranked_doc_ids(run.get(q, {})) for q in qids]
        depth = max((len(r) for r in rows), default=0)
        width = max((len(qrels[q]) for q in qids), default=0)
        grades = np.full((len(qids), depth), np.nan)
        scores = np.full((len(qids), depth), np.nan)
        ideal = np.zeros((len(qids), width))
        lengths = np.zeros(len(qids), dtype=np.int64)
        n_judged_q = np.zeros(len(qids), dtype=np.int64)
        for i, (q, row) in enumerate(zip(qids, rows, strict=True)):
            judged = qrels[q]
            lengths[i] = len(row)
            if row:
                scores[i, : len(row)] = [s for _, s in row]
                grades[i, : len(row)] = [judged.get(d, np.nan) for d, _ in row]
            g = sorted((float(v) for v in judged.values()), reverse=True)
            ideal[i, : len(g)] = g
            n_judged_q[i] = len(g)
        return cls(qids, grades, scores, lengths, ideal, n_judged_q)

    def per_query(self, values: np.ndarray) -> dict[str, float]:
        """``{query_id: value}`` from a ``(Q,)`` array of kernel output."""
        return {q: float(v) for q, v in zip(self.query_ids, values, strict=True)}

    @property
    def depth(self) -> int:
        """Longest ranking (columns of ``grades``)."""
        return int(self.grades.shape[1])

    def relevant(self, min_grade: int = 1) -> np.ndarray:
        """``(Q, D)`` bool: the document at each rank is judged ``>= min_grade``."""
        key = ("rel", min_grade)
        if key not in self._cache:
            with np.errstate(invalid="ignore"):
                self._cache[key] = np.nan_to_num(self.grades, nan=-np.inf) >= min_grade
        return self._cache[key]

    def n_relevant(self, min_grade: int = 1) -> np.ndarray:
        """``(Q,)`` number of documents judged ``>= min_grade`` in the qrels."""
        key = ("nrel", min_grade)
        if key not in self._cache:
            cols = np.arange(self.ideal.shape[1])
            real = cols[None, :] < self.n_judged[:, None]  # ideal is 0-padded
            self._cache[key] = np.sum(real & (self.ideal >= min_grade), axis=1).astype(np.float64)
        return self._cache[key]

    def gains(self, min_grade: int = 1, gains: str = "linear") -> tuple[np.ndarray, np.ndarray]:
        """Gains of the ranking and of the ideal ranking (grades below ``min_grade`` gain 0).

        ``gains="linear"``: gain = grade (trec_eval, Järvelin & Kekäläinen 2002);
        ``gains="exp"``: gain = 2^grade - 1 (Burges et al. 2005).
        """
        if gains not in ("linear", "exp"):
            raise ValueError(f"gains must be 'linear' or 'exp', got {gains!r}")
        g = np.nan_to_num(self.grades, nan=0.0)
        ideal = self.ideal
        g = np.where(g >= max(min_grade, 1), g, 0.0)
        ideal = np.where(ideal >= max(min_grade, 1), ideal, 0.0)
        if gains == "exp":
            g, ideal = np.exp2(g) - 1.0, np.exp2(ideal) - 1.0
        return g, ideal

    def ties(self) -> tuple[np.ndarray, np.ndarray]:
        """``(above, size)``, both ``(Q, D)`` ints: for the document at each rank, how many
        documents have a strictly higher score and how many share its score (itself included).
        """
        if "ties" not in self._cache:
            q, d = self.scores.shape
            if q * d == 0:
                z = np.zeros((q, d), dtype=np.int64)
                self._cache["ties"] = (z, z)
            else:
                s = self.scores
                new = np.ones((q, d), dtype=bool)
                new[:, 1:] = s[:, 1:] != s[:, :-1]  # nan padding never equals: own groups
                flat_new = new.ravel()
                gid = np.cumsum(flat_new) - 1
                starts = np.flatnonzero(flat_new)
                size = np.bincount(gid)[gid].reshape(q, d)
                pos = np.arange(q * d)
                above = (starts[gid] - (pos // d) * d).reshape(q, d)
                self._cache["ties"] = (above.astype(np.int64), size.astype(np.int64))
        return self._cache["ties"]
