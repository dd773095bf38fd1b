"""Labelled G-RAG query graphs with a learnable signal, for the training-loop tests (no
parser, no encoder: fast)."""

from __future__ import annotations

import torch

from skbsearch.rerank.gnn import QueryGraph


def synthetic_graphs(n_queries: int, seed: int, n: int = 20, d: int = 16) -> list[QueryGraph]:
    """Relevance is carried by feature 0 of the documents, which y does not look at.

    The questions share direction 1, so a model can learn to move feature 0 there.
    """
    g = torch.Generator().manual_seed(seed)
    out = []
    for qi in range(n_queries):
        x = torch.randn(n, d, generator=g)
        labels = (x[:, 0] > 0.8).float() + (x[:, 0] > 1.5).float()
        x = x / x.norm(dim=1, keepdim=True)  # unit vectors, like sentence embeddings
        y = 0.3 * torch.randn(d, generator=g)
        y[0], y[1] = 0.0, 1.0
        y = y / y.norm()
        src = torch.arange(n - 1)
        ei = torch.stack([torch.cat([src, src + 1]), torch.cat([src + 1, src])])
        out.append(QueryGraph(f"q{qi}", [f"d{i}" for i in range(n)], x, y, ei,
                              torch.ones(ei.shape[1], 2), torch.zeros(n), labels))  # fmt: skip
    return out
