"""A bag-of-words encoder and TREC DL candidate files for the training-data tests (fast:
no model)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from skbsearch.encoders.registry import Encoder


class WordEncoder(Encoder):
    """A deterministic bag-of-words encoder: cosine = shared-word overlap."""

    name = model_id = "test-words"
    dim = 64

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace("?", " ").replace(".", " ").split():
                out[i, sum(map(ord, w)) % self.dim] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def write_trecdl(d: Path, qrels: bool = True) -> None:
    """One DL19 query with four BM25 candidates (and its qrels unless ``qrels`` is false)."""
    texts = ["fleas live up to a year", "the stock market fell", "a flea can live long",
             "bananas are yellow"]
    hits = [{"qid": 1, "docid": f"d{i}", "content": t, "score": 4.0 - i, "rank": i + 1}
            for i, t in enumerate(texts)]
    (d / "dl19_bm25_top100.json").write_text(json.dumps([{"query": "how long do fleas live",
                                                           "hits": hits}]))
    if qrels:
        (d / "dl19_qrels.json").write_text(json.dumps({"1": {"d0": "3", "d1": "0"}}))
