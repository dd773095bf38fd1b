"""A tiny model2vec model (a six-word vocabulary, 4-d vectors) saved in a temp dir, and the
references the static encoder's tests check it against (model2vec's own ``encode``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

VOCAB = ["[UNK]", "red", "kettle", "steel", "blue", "knife"]
VECTORS = np.array([[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [1, 1, 0, 0],
                    [0, 0, 1, 1]], dtype=np.float32)


def tiny_model(path: Path, vectors: np.ndarray = VECTORS, *, max_length: int = 512,
               pre_tokenizer: str = "Whitespace") -> Path:
    """Save a model2vec model with a word-level tokenizer over :data:`VOCAB`."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, pre_tokenizers
    from tokenizers.models import WordLevel

    tok = Tokenizer(WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.pre_tokenizer = getattr(pre_tokenizers, pre_tokenizer)()
    StaticModel(vectors=vectors, tokenizer=tok, normalize=True,
                max_length=max_length).save_pretrained(str(path))
    return path


def model2vec_vectors(enc: Any, texts: list[str]) -> np.ndarray:
    """model2vec's own ``encode``, normalised in float32 (the reference)."""
    ref = enc.static.encode(texts, show_progress_bar=False, use_multiprocessing=False,
                            normalize=False).astype(np.float32)
    norms = np.linalg.norm(ref, axis=1, keepdims=True)
    return ref / np.where(norms == 0, 1, norms)


def expected(words: list[str]) -> np.ndarray:
    v = VECTORS[[VOCAB.index(w) for w in words]].mean(axis=0)
    return v / np.linalg.norm(v)
