"""A witness chain from the caller's walks equals the one the type graph walks itself."""

from __future__ import annotations

import numpy as np

from skbsearch.retrieve.graph.metapaths import TypeGraph
from skbsearch.synth.catalogue import generate_catalogue


def test_witness_from_given_frontiers_matches():
    kb = generate_catalogue(300, seed=1, n_queries=1).skb
    tg = TypeGraph(kb)
    brand = int(kb.index_of(next(i for i, t in zip(kb.ids, kb.column("type"), strict=True)
                                 if t == "brand")))
    path = ("brand", "has_brand^-1", "also_bought")
    fronts = [np.array([brand], np.int64)]
    for k in range(1, len(path)):
        fronts.append(tg.follow(brand, path[: k + 1]))
    assert len(fronts[-1]) > 0
    for target in fronts[-1][:25].tolist():
        assert tg.witness(brand, path, target, fronts) == tg.witness(brand, path, target)
    outside = int(np.setdiff1d(np.arange(kb.num_nodes), fronts[-1])[0])
    assert tg.witness(brand, path, outside, fronts) is None is tg.witness(brand, path, outside)
