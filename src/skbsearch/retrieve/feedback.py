"""Pseudo-relevance feedback over a BM25 index: expand a query with its top documents' terms.

RM3-style, without a model: the ``docs`` best documents for a seed query give every term
the mean of its BM25 weights in them times the share of those documents that use it (words
the topic's documents share, not one document's rare name); the ``terms`` heaviest terms
(not the query's own, not numbers) form an expansion query whose weights sum to 1, scored
by BM25. The caller interpolates it with the original query, ``(1 - lambda) * original +
lambda * expansion`` (each original term weighing 1 / the query's length). A query whose
words a relevant document does not use ("smartphone" for a post that says "phone") still
reaches it through the words the topic's other documents share with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from skbsearch.index.sparse import BM25Index

_NUMBER = re.compile(r"[\d:.,/-]+")


class TermFeedback:
    """Expansion scores from a seed ranking (see the module docstring).

    Args:
        index: the BM25 index the seed scores and expansion scores come from.
        docs: feedback documents (the seed ranking's top).
        terms: expansion terms kept.
    """

    def __init__(self, index: BM25Index, docs: int = 20, terms: int = 20) -> None:
        if docs < 1 or terms < 1:
            raise ValueError("docs and terms must be >= 1")
        self.index, self.docs, self.terms = index, docs, terms
        s = index.bm25.scores
        n_vocab = len(s["indptr"]) - 1
        index.check_terms([range(n_vocab)])  # every posting is read: a saved index's are checked first
        self.by_term = sp.csc_matrix((s["data"], s["indices"], s["indptr"]), shape=(int(s["num_docs"]), n_vocab))
        self.matrix = self.by_term.tocsr()
        vocab = index.tokenizer.get_vocab_dict()
        self.skip = np.zeros(n_vocab, dtype=bool)
        for word, tid in vocab.items():
            if 0 <= int(tid) < n_vocab and _NUMBER.fullmatch(str(word)):
                self.skip[int(tid)] = True
        self._rows = np.arange(int(s["num_docs"]), dtype=np.int64)

    def expansion(self, seed: np.ndarray, exclude: Sequence[int] = ()) -> list[tuple[int, float]]:
        """The expansion terms (token id, weight) of a seed ranking's top documents."""
        if not len(seed) or seed.max() <= 0:
            return []
        k = min(self.docs, int((seed > 0).sum()))
        top = np.argpartition(-seed, k - 1)[:k]
        sub = self.matrix[top]
        # Mean BM25 weight times the share of feedback documents that use the term: words
        # the topic's documents share ("battery", "camera"), not one document's rare name.
        share = np.asarray((sub > 0).sum(axis=0)).ravel() / k
        w = np.asarray(sub.sum(axis=0)).ravel() / k * share
        w[self.skip] = 0.0
        if len(exclude):
            w[np.asarray(list(exclude), dtype=np.int64)] = 0.0
        best = np.argsort(-w, kind="stable")[: self.terms]
        return [(int(t), float(w[t])) for t in best if w[t] > 0]

    def scores(self, seed: np.ndarray, exclude: Sequence[int] = ()) -> np.ndarray:
        """Every document's BM25 score for the expansion query, its term weights summing to 1
        (on the scale of a query whose terms each weigh 1 / its length)."""
        terms = self.expansion(seed, exclude)
        if not terms:
            return np.zeros(len(self._rows), dtype=np.float64)
        # The terms' score columns, weighted and summed (the per-term constant of bm25l/bm25+
        # is the same for every document).
        cols = self.by_term[:, [t for t, _ in terms]]
        weights = np.array([w for _, w in terms])
        return np.asarray(cols @ (weights / weights.sum()), dtype=np.float64).ravel()
