"""Derived forms of a question's words in the KG's own vocabulary: text evidence the stemmer misses.

A stemmer folds inflections ("parts", "part") but not derivations: "Which parts of Spain lie
in the *south*?" asks for the places whose glosses say "*southern* Spain", and BM25 sees no
match. When a question word is in none of the documents of the nodes the graph stage
reached (the parts of Spain), its derived forms may stand in for it: the words of the text
index's own vocabulary that extend the word ("southern", "southwestern"), scored at
:data:`DERIVED_WEIGHT` of the word itself. A word of fewer than :data:`MIN_LETTERS`
letters, or one that begins more than :data:`MAX_FORMS` words of the vocabulary (a prefix
that many words share says nothing about any of them), has none. Nothing here names a
particular KG's words; the vocabulary is the index's.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np

from skbsearch.index.sparse import BM25Index

#: the weight of a derived form's BM25 score against the word's own
DERIVED_WEIGHT = 0.5
#: the shortest word whose derived forms are looked for
MIN_LETTERS = 5
#: a word that begins more vocabulary words than this has none
MAX_FORMS = 50


class WordForms:
    """The derived forms of words in one BM25 index's vocabulary (see the module docstring).

    Args:
        index: the text index (its tokenizer's vocabulary, stems when it stems).
    """

    def __init__(self, index: BM25Index) -> None:
        self.index = index
        tok = index.tokenizer
        self._stem = tok.stemmer
        self._vocab: dict[str, int] = tok.stem_to_sid if self._stem is not None else tok.word_to_id
        self._stop = frozenset(tok.stopwords or ())
        self._keys = sorted(self._vocab)  # (references to the vocabulary's own strings)

    def extending(self, word: str) -> list[int]:
        """Token ids of the vocabulary's terms that extend ``word`` (its stem, when the index
        stems) by at least one letter; none for a short or stop word, or when more than
        :data:`MAX_FORMS` terms do."""
        if len(word) < MIN_LETTERS or not word.isalpha() or word in self._stop:
            return []
        key = self._stem(word) if self._stem is not None else word
        i = bisect.bisect_right(self._keys, key)
        out: list[int] = []
        while i < len(self._keys) and self._keys[i].startswith(key):
            if len(out) == MAX_FORMS:
                return []
            out.append(self._vocab[self._keys[i]])
            i += 1
        return out

    def back_off(self, words: Sequence[str], reached: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Extra text evidence of the index rows ``rows``: for each of the question's
        ``words`` in none of the ``reached`` rows (the documents of the nodes the graph
        reached; none: no back-off), :data:`DERIVED_WEIGHT` times the BM25 score of its
        derived forms."""
        out = np.zeros(len(rows))
        if not len(reached) or not len(rows):
            return out
        for word in dict.fromkeys(words):
            forms = self.extending(word)
            if not forms:
                continue
            own = self.index.tokenize([word])[0]
            if own and float(self.index.score_docs(own, reached).max()) > 0.0:
                continue
            out += DERIVED_WEIGHT * self.index.score_docs(forms, rows).astype(np.float64)
        return out
