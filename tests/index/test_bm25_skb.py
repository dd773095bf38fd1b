"""A BM25 index of an SKB's nodes (``index.bm25_skb``): the rendered document or node
columns as fields, relation lines inline or as a weighted field, and the default index's
options (relation lines weighted as the SKB's own queries say, how its fields combine)."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.index import get_kind
from skbsearch.index.bm25_skb import DEFAULT_MAX_PER_RELATION, DEFAULT_REL_B, DEFAULT_REL_WEIGHT
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder


def _all_scores(index: BM25Index, text: str) -> np.ndarray:
    toks = index.tokenize([text])[0]
    return index.score_docs(toks, np.arange(index.num_docs)) + index.constant(toks)


def _shop():
    b = SKBBuilder()
    b.add_node("p1", "product", "Trail Runner", {"description": "running shoes for trails"},
               {"price": 80.0})
    b.add_node("p2", "product", "Pasta Pot", {"description": "a steel pot"}, {"price": 15.0})
    b.add_node("b1", "brand", "Acme")
    b.add_edge("p1", "has_brand", "b1")
    b.add_edge("p2", "has_brand", "b1")
    return b.build()


def test_from_skb_rendered_and_fields():
    skb = _shop()
    doc = BM25Index.from_skb(skb, add_rel=True)
    assert doc.doc_ids == skb.ids and doc.source["kind"] == "skb"
    # with add_rel, the brand's document names its products
    acme = skb.ids.index("b1")
    assert _all_scores(doc, "pasta pot")[acme] > 0
    fields = BM25Index.from_skb(skb, fields=["name", "description"], add_rel=True,
                                field_weights={"name": 3, "relations": 0.5})
    assert fields.params["fields"] == ["name", "description", "relations"]
    s = _all_scores(fields, "acme")
    assert s[acme] > 0 and s[skb.ids.index("p1")] > 0  # via the relations field
    with pytest.raises(InputError):
        BM25Index.from_skb(skb, fields=["nope"])


def test_default_index_has_weighted_relation_field():
    """The default (``skb index --kind bm25``, stages' on-demand index): the rendered
    document plus relation lines with neighbour names as a second, weighted field."""
    skb = _shop()
    idx = get_kind("bm25").build(skb)
    assert idx.params["fields"] == ["document", "relations"]
    assert idx.params["field_weights"] == {"document": 1.0, "relations": DEFAULT_REL_WEIGHT}
    assert idx.source["add_rel"] and idx.source["rel_weight"] == DEFAULT_REL_WEIGHT
    acme = skb.ids.index("b1")
    assert _all_scores(idx, "pasta pot")[acme] > 0  # the brand's relations name its products
    plain = get_kind("bm25").build(skb, add_rel=False)
    assert plain.params["fields"] == ["document"] and _all_scores(plain, "pasta pot")[acme] == 0
    assert BM25Index.from_skb(skb).params["fields"] == ["document"]  # the library call is unchanged


def test_relation_lines_as_a_second_field_weigh_rel_weight() -> None:
    skb = _shop()
    idx = BM25Index.from_skb(skb, add_rel=True, rel_weight=0.25, field_weights={"document": 2.0})
    assert idx.params["fields"] == ["document", "relations"]
    assert idx.params["field_weights"] == {"document": 2.0, "relations": 0.25}
    assert idx.source["rel_weight"] == 0.25 and idx.source["num_nodes"] == 3
    acme = skb.ids.index("b1")
    inline = BM25Index.from_skb(skb, add_rel=True)  # one field: names count fully
    assert 0 < _all_scores(idx, "pasta pot")[acme] < _all_scores(inline, "pasta pot")[acme]
    with pytest.raises(InputError, match="no fields given"):
        BM25Index.from_skb(skb, fields=[" ", ""])


def test_default_options_of_a_small_skb() -> None:
    skb = _shop()
    opts, extra = BM25Index.default_options(skb)
    assert opts == {"fields": None, "add_rel": True, "rel_weight": DEFAULT_REL_WEIGHT,
                    "max_per_relation": DEFAULT_MAX_PER_RELATION, "combine": "sum"}
    assert extra["rel_weight_choice"]["weight"] == DEFAULT_REL_WEIGHT
    assert extra["rel_weight_choice"]["reason"].startswith("not calibrated")  # too small to calibrate
    # given a relation weight, nothing is chosen
    opts, extra = BM25Index.default_options(skb, rel_weight=0.5, max_per_relation=3)
    assert opts["rel_weight"] == 0.5 and opts["max_per_relation"] == 3 and extra == {}


def test_default_options_of_bm25f_columns_and_no_relations() -> None:
    skb = _shop()
    opts, extra = BM25Index.default_options(skb, combine="bm25f")
    assert opts["field_b"] == {"relations": DEFAULT_REL_B} and opts["rel_weight"] == DEFAULT_REL_WEIGHT
    assert extra["rel_weight_choice"]["reason"] == "not calibrated: combine=bm25f"
    own_b, _ = BM25Index.default_options(skb, combine="bm25f", field_b={"relations": 0.9})
    assert own_b["field_b"] == {"relations": 0.9}
    cols, extra = BM25Index.default_options(skb, fields=["name"])  # columns: no default combination
    assert cols == {"fields": ["name"], "add_rel": True, "rel_weight": None,
                    "max_per_relation": DEFAULT_MAX_PER_RELATION} and extra == {}
    plain, extra = BM25Index.default_options(skb, add_rel=False, k1=0.9)
    assert plain["add_rel"] is False and plain["k1"] == 0.9 and "combine" not in plain and extra == {}


def test_default_index_records_the_choice_and_builds_from_the_options() -> None:
    skb = _shop()
    idx = BM25Index.default_for_skb(skb, combine="bm25f")
    assert idx.params["combine"] == "bm25f" and idx.params["field_b"] == {"relations": DEFAULT_REL_B}
    assert idx.source["rel_weight_choice"]["reason"] == "not calibrated: combine=bm25f"
    opts, _ = BM25Index.default_options(skb, combine="bm25f")
    same = BM25Index.from_skb(skb, **opts)
    assert same.params == idx.params
    np.testing.assert_array_equal(_all_scores(idx, "acme pasta"), _all_scores(same, "acme pasta"))
