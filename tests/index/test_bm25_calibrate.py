"""The default index's relation weight is chosen on the SKB itself (``index.bm25_calibrate``)."""

from __future__ import annotations

import pytest

from skbsearch.index import bm25_calibrate as cal
from skbsearch.index.sparse import DEFAULT_REL_WEIGHT, BM25Index
from skbsearch.kb.loaders import load
from skbsearch.synth.catalogue import generate_catalogue


def test_bare_names_and_small_skbs_keep_weight_one():
    names_only = generate_catalogue(1100, n_queries=0, seed=2, with_text=False).skb
    assert names_only.num_nodes >= cal.MIN_NODES
    choice = BM25Index._rel_weight(names_only, 10, {"combine": "sum"})
    assert choice.weight == DEFAULT_REL_WEIGHT and "bare names" in choice.reason
    small = generate_catalogue(50, n_queries=0, seed=2).skb
    assert BM25Index._rel_weight(small, 10, {"combine": "sum"}).reason.startswith("not calibrated")
    assert BM25Index._rel_weight(small, 10, {"combine": "bm25f"}).weight == DEFAULT_REL_WEIGHT


def test_a_catalogue_with_texts_is_calibrated_and_the_choice_recorded():
    skb = generate_catalogue(1100, n_queries=0, seed=2).skb
    idx = BM25Index.default_for_skb(skb)
    choice = idx.source["rel_weight_choice"]
    assert choice["reason"].startswith("calibrated") and choice["queries"] >= cal.MIN_QUERIES
    mrr = {float(w): v for w, v in choice["mrr"].items()}
    assert set(mrr) == set(cal.REL_WEIGHTS) and max(cal.REL_WEIGHTS) <= 1.0
    best = max(mrr, key=lambda w: (mrr[w], w))
    want = best if mrr[best] >= mrr[1.0] + cal.MIN_GAIN else 1.0
    assert idx.source["rel_weight"] == choice["weight"] == pytest.approx(want)
    assert idx.params["field_weights"]["relations"] == pytest.approx(want)


@pytest.mark.data
@pytest.mark.slow
def test_wordnet_glosses_weigh_relation_lines_less(shared_data):
    """WN18RR: nodes carry glosses and a parent lists its children; the SKB's own synthesised
    queries say the relation lines should count less than the node's own text."""
    skb = load(shared_data / "wn18rr", "kg")
    idx = BM25Index.default_for_skb(skb)
    assert idx.source["rel_weight"] < 1.0, idx.source["rel_weight_choice"]
