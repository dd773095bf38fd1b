"""A static model's text vectors from cached whitespace-separated words.

A static model's text vector is the mean of its tokens' rows. With a tokenizer that splits on
whitespace before anything else (BERT's WordPiece pre-tokenizer, ``Whitespace``), a text's
tokens are its whitespace-separated words' tokens one after the other, so the sum of its
rows is the sum of per-word sums. Knowledge-base text repeats its words (Zipf), so each
distinct word is tokenised once and kept as ``(sum of its rows, number of tokens)``; a batch
of texts is then one sparse product ``texts x words @ word sums``: the tokenizer, which is
most of a static model's time, runs on the new words only. Texts longer than the model's
``max_length`` tokens (which it truncates) go through the model's own ``encode``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

#: Pre-tokenizers that split on whitespace first (a word tokenised alone = in context).
WORD_SPLITTING = frozenset({"BertPreTokenizer", "Whitespace", "WhitespaceSplit"})
#: Normalizers that never join or split across whitespace.
WORD_SAFE_NORMALIZERS = frozenset({"BertNormalizer", "Lowercase", "NFC", "NFD", "NFKC", "NFKD",
                                   "StripAccents", "Strip"})
#: Distinct words kept (then the cache starts afresh): bounds its memory.
MAX_WORDS = 500_000


def splits_on_whitespace(tokenizer: Any) -> bool:
    """True when ``tokenizer`` (a ``tokenizers.Tokenizer``) tokenises each whitespace-separated
    word on its own, so the word cache gives the same tokens."""
    try:
        spec = json.loads(tokenizer.to_str())
    except (AttributeError, ValueError):
        return False
    pre = spec.get("pre_tokenizer") or {}
    norm = spec.get("normalizer")
    norms = (norm.get("normalizers", []) if norm and norm.get("type") == "Sequence"
             else [norm] if norm else [])
    return (pre.get("type") in WORD_SPLITTING
            and all(n.get("type") in WORD_SAFE_NORMALIZERS for n in norms))


class WordCache:
    """Sum vectors of a static model's tokens over texts, one tokenisation per distinct word.

    Args:
        model: a ``model2vec.StaticModel`` whose tokenizer :func:`splits_on_whitespace`.
    """

    def __init__(self, model: Any) -> None:
        self.model = model
        emb = np.asarray(model.embedding, dtype=np.float32)
        mapping = getattr(model, "token_mapping", None)
        weights = getattr(model, "weights", None)
        n_tokens = len(mapping) if mapping is not None else emb.shape[0]
        ids = np.arange(n_tokens)
        table = emb[mapping[ids]] if mapping is not None else emb
        if weights is not None:
            table = table * np.asarray(weights, dtype=np.float32)[ids, None]
        self.table = np.ascontiguousarray(table, dtype=np.float32)
        self.max_length = getattr(model, "max_length", None)
        self.max_chars = (self.max_length * int(getattr(model, "median_token_length", 1))
                          if self.max_length else None)
        self._clear()

    def _clear(self) -> None:
        self.words: dict[str, int] = {}
        self.sums = np.zeros((0, self.table.shape[1]), np.float32)
        self.counts = np.zeros(0, np.int64)

    def _add(self, new: list[str]) -> None:
        """Tokenise ``new`` words (one batch) and append their sums and token counts."""
        ids = self.model.tokenize(new)
        lens = np.fromiter((len(i) for i in ids), np.int64, len(ids))
        flat = np.fromiter((t for i in ids for t in i), np.int64, int(lens.sum()))
        ptr = np.concatenate([[0], np.cumsum(lens)])
        tok = sp.csr_matrix((np.ones(len(flat), np.float32), flat, ptr),
                            shape=(len(new), self.table.shape[0]))
        self.sums = np.concatenate([self.sums, np.asarray(tok @ self.table, np.float32)])
        self.counts = np.concatenate([self.counts, lens])

    def sum_vectors(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(sum of token rows, number of tokens)`` per text; texts over ``max_length``
        tokens (or ``max_length x median_token_length`` characters) get their mean from
        the model's own ``encode`` and a count of -1."""
        if len(self.words) > MAX_WORDS:
            self._clear()
        words = self.words
        rows: list[int] = []
        ptr = [0]
        new: list[str] = []
        for text in texts:
            for w in text.split():
                r = words.get(w)
                if r is None:
                    r = words[w] = len(words)
                    new.append(w)
                rows.append(r)
            ptr.append(len(rows))
        if new:
            self._add(new)
        m = sp.csr_matrix((np.ones(len(rows), np.float32), np.asarray(rows, np.int64),
                           np.asarray(ptr, np.int64)), shape=(len(texts), len(words)))
        out = np.asarray(m @ self.sums, np.float32)
        counts = np.asarray(m @ self.counts.astype(np.float32)).astype(np.int64)
        long = [i for i, t in enumerate(texts)
                if (self.max_length and counts[i] > self.max_length)
                or (self.max_chars and len(t) > self.max_chars)]
        if long:  # the model truncates these: its own encode does it exactly
            out[long] = self.model.encode([texts[i] for i in long], show_progress_bar=False,
                                          use_multiprocessing=False, normalize=False)
            counts[long] = -1
        return out, counts
