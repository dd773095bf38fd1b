"""The base class of pairwise re-rankers: cross-encoder, LLM, contextual triple re-ranker.

A pairwise re-ranker scores each (query, candidate) pair on its own. What differs between
them is only how a batch of pairs becomes scores; everything else lives here once:

* **depth**: only the top ``top_k`` candidates of the incoming run are scored;
* **text rendering**: :meth:`PairwiseReranker.render` turns a (query, doc id) pair into
  the texts the model reads (the query's text and ``doc_text(doc_id)``; an optional
  ``context(query, doc_id)`` third segment);
* **batching**: pairs are scored ``batch_size`` at a time, optionally in length order
  (less padding for transformer models), with progress reported per batch;
* **the order past the depth**: candidates beyond ``top_k`` keep their incoming order,
  below every re-scored candidate (score ``floor - j``, ``floor`` the lowest re-scored
  score and ``j`` = 1, 2, ... their position past the depth).

Subclasses implement :meth:`PairwiseReranker.score_pairs`::

    class LengthReranker(PairwiseReranker):
        def score_pairs(self, query_texts, doc_texts, contexts=None):
            return np.array([-len(d) for d in doc_texts], dtype=np.float32)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from skbsearch.core.deadline import check_deadline
from skbsearch.core.errors import InputError
from skbsearch.core.operators import StageBase
from skbsearch.core.progress import ProgressFn, counter
from skbsearch.core.types import Query, Run

DocText = Callable[[str], str] | Mapping[str, str]
Context = Callable[[Query, str], str]


class PairwiseReranker(StageBase):
    """Re-score each query's top-``top_k`` candidates pair by pair (module docstring).

    Args:
        doc_text: ``doc_id -> text`` (a callable or a mapping); ``None`` for subclasses that
            only score texts (:meth:`score_texts`) or override :meth:`render`.
        top_k: how many candidates of the incoming run to re-score (>= 1).
        batch_size: pairs per :meth:`score_pairs` call (>= 1).
        context: optional ``(query, doc_id) -> text``, a third segment for the model.
        progress: ``progress(stage, done, total)`` over pairs (:mod:`skbsearch.core.progress`).
        label: the stage name reported to ``progress`` (default: :attr:`short_name`).
    """

    #: Short name: progress label and the suffix of the output run's name.
    short_name = "pairwise"
    #: Score pairs in order of text length (transformers pad less); results are unchanged.
    sort_by_length = False

    def __init__(self, doc_text: DocText | None = None, *, top_k: int = 100,
                 batch_size: int = 32, context: Context | None = None,
                 progress: ProgressFn | None = None, label: str | None = None) -> None:
        if top_k < 1:
            raise InputError("top_k must be >= 1", field="top_k")
        if batch_size < 1:
            raise InputError("batch_size must be >= 1", field="batch_size")
        self.doc_text = doc_text.__getitem__ if isinstance(doc_text, Mapping) else doc_text
        self.top_k, self.batch_size = top_k, batch_size
        self.context_fn = context
        self.progress = progress
        self.label = label or self.short_name

    # ------------------------------------------------------------------ the subclass part
    def score_pairs(self, query_texts: Sequence[str], doc_texts: Sequence[str],
                    contexts: Sequence[str] | None = None) -> np.ndarray:
        """Scores ``(n,)`` of aligned pairs (at most ``batch_size`` of them); higher = better."""
        raise NotImplementedError

    def adjust(self, scores: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """Hook after scoring: ``ranks`` are the pairs' 0-based positions in the incoming run."""
        return scores

    # ------------------------------------------------------------------ shared machinery
    def render(self, query: Query, doc_id: str) -> tuple[str, str]:
        """The (query text, document text) the model reads for one pair."""
        if self.doc_text is None:
            raise InputError(f"{type(self).__name__} has no doc_text to render documents",
                             field="doc_text")
        try:
            return query.text, str(self.doc_text(doc_id))
        except KeyError as e:
            raise InputError(f"no text for document {e.args[0]!r}; doc_text must cover every "
                             "candidate of the run", field="doc_text") from None

    def score_texts(self, query_texts: Sequence[str], doc_texts: Sequence[str],
                    contexts: Sequence[str] | None = None) -> np.ndarray:
        """Scores of aligned pairs, ``batch_size`` at a time (length order if
        :attr:`sort_by_length`), reporting progress per batch."""
        n = len(query_texts)
        if len(doc_texts) != n or (contexts is not None and len(contexts) != n):
            raise InputError("query, document (and context) lists must have the same length",
                             field="doc_texts")
        out = np.zeros(n, dtype=np.float64)  # float32 model scores are kept exactly
        if n == 0:
            return out
        if self.sort_by_length:
            lengths = [len(query_texts[i]) + len(doc_texts[i])
                       + (len(contexts[i]) if contexts is not None else 0) for i in range(n)]
            order = np.argsort(lengths, kind="stable")
        else:
            order = np.arange(n)
        tick = counter(self.progress, self.label, n)
        for s in range(0, n, self.batch_size):
            check_deadline()
            idx = order[s: s + self.batch_size]
            q = [query_texts[i] for i in idx]
            d = [doc_texts[i] for i in idx]
            c = [contexts[i] for i in idx] if contexts is not None else None
            got = np.asarray(self.score_pairs(q, d, c), dtype=np.float64).reshape(-1)
            if len(got) != len(idx):
                raise ValueError(f"{type(self).__name__}.score_pairs returned {len(got)} scores "
                                 f"for {len(idx)} pairs")
            out[idx] = got
            tick(len(idx))
        return out

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        if run is None:
            raise ValueError(f"{type(self).__name__} re-ranks a run: put a retriever before it")
        jobs: list[tuple[Query, str, int]] = []
        for q in queries:
            jobs.extend((q, d, r) for r, (d, _) in enumerate(run.ranked(q.id)[: self.top_k]))
        texts = [self.render(q, d) for q, d, _ in jobs]
        contexts = ([self.context_fn(q, d) for q, d, _ in jobs] if self.context_fn is not None
                    else None)
        scores = self.score_texts([t[0] for t in texts], [t[1] for t in texts], contexts)
        scores = self.adjust(scores, np.array([r for _, _, r in jobs], dtype=np.int64))
        out = Run({q.id: {} for q in queries if q.id in run}, name=f"{run.name}>>{self.short_name}")
        for (q, d, _), s in zip(jobs, scores, strict=True):
            out[q.id][d] = float(s)
        for q in queries:
            scored = out.get(q.id)
            if scored:
                keep_order_past_depth(scored, run.ranked(q.id)[self.top_k:])
        return out

    def __repr__(self) -> str:
        return f"{type(self).__name__}(top_k={self.top_k})"


def keep_order_past_depth(scored: dict[str, float], rest: Sequence[tuple[str, float]]) -> None:
    """Give the candidates past the depth (``rest``, in run order) scores below ``scored``."""
    floor = min(scored.values())
    for j, (d, _) in enumerate(rest, start=1):
        scored[d] = floor - j
