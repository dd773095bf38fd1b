"""Encoding with tokenisation off the critical path (the GPU encoder loop).

A plain "tokenise a batch, then run it" loop leaves a GPU idle while the CPU tokenises:
measured on an H100 with MiniLM-L6 shapes, the model alone embeds 81,000 docs/s at 128
tokens and such a loop 3,600. :func:`encode_overlapped` keeps the model busy: batches are
length-sorted (as sentence-transformers sorts them, so each batch holds the same texts and
the vectors are the same), a thread pool tokenises the next ``prefetch`` batches while the
model runs the current one (the Rust tokenizer releases the GIL), the token tensors go into
pinned memory and are copied without blocking on CUDA, and the embeddings stay on the
device until the end (one copy back, no sync a batch).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np


def length_order(texts: Sequence[str]) -> np.ndarray:
    """Longest first, as ``SentenceTransformer.encode`` orders its batches."""
    return np.argsort([-len(t) for t in texts])


def _preprocess(model: Any) -> Any:
    return getattr(model, "preprocess", None) or model.tokenize


def encode_overlapped(model: Any, texts: Sequence[str], batch_size: int, device: str, *,
                      workers: int = 4, prefetch: int = 8, pin: bool | None = None,
                      normalize: bool = True) -> np.ndarray:
    """Embed ``texts`` with a ``SentenceTransformer`` ``model`` already on ``device``.

    Args:
        batch_size: texts per forward pass.
        device: ``"cpu"`` or ``"cuda:N"`` (where the model is).
        workers: tokeniser threads; ``prefetch``: batches tokenised ahead.
        pin: pin the token tensors (default: on CUDA).
        normalize: unit-length rows (as ``normalize_embeddings=True``).

    Returns ``(len(texts), dim)`` float32 in input order.
    """
    import torch

    n = len(texts)
    order = length_order(texts)
    batches = [order[s : s + batch_size] for s in range(0, n, max(1, batch_size))]
    prep = _preprocess(model)
    pin = device.startswith("cuda") if pin is None else pin

    def tokenise(idx: np.ndarray) -> dict[str, Any]:
        feats = prep([texts[i] for i in idx])
        if pin:
            feats = {k: v.pin_memory() if isinstance(v, torch.Tensor) else v
                     for k, v in feats.items()}
        return feats

    parts: list[Any] = []
    model.eval()
    with ThreadPoolExecutor(max(1, workers)) as pool, torch.inference_mode():
        ahead = max(1, prefetch)
        pending = deque(pool.submit(tokenise, b) for b in batches[:ahead])
        for j in range(len(batches)):
            feats = pending.popleft().result()
            if j + ahead < len(batches):
                pending.append(pool.submit(tokenise, batches[j + ahead]))
            feats = {k: v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v
                     for k, v in feats.items()}
            emb = model(feats)["sentence_embedding"].float()
            if normalize:
                emb = torch.nn.functional.normalize(emb, p=2, dim=1)
            parts.append(emb)
    if not parts:
        return np.zeros((0, 0), np.float32)
    sorted_emb = torch.cat(parts).cpu().numpy()
    out = np.empty_like(sorted_emb)
    out[order] = sorted_emb
    return np.ascontiguousarray(out, dtype=np.float32)
