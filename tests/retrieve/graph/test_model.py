"""What the graph stage learns and how it is saved (``retrieve.graph.model``): the views its
anchor and metapath models read, the node types that carry text, an unfitted model's
probabilities, and a saved model read back whole (aliases, back-off, blend), damaged fields
refused. (A fitted model's round trip through the stage: tests/retrieve/graph/test_retriever.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kg_fixtures import movies, shop

from skbsearch.core.errors import ArtefactError
from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph.linking import Anchor
from skbsearch.retrieve.graph.model import KGModel, anchor_view, path_view, text_types

WORDS = ["what", "did", "people", "buy", "with", "the", "acme", "trail", "mug"]
ANCHOR = Anchor(node=3, conf=0.7, mention="acme trail mug", words=(6, 7, 8), source="fuzzy", whole=True)


def test_the_metapath_model_reads_the_query_with_the_mention_masked() -> None:
    view = path_view(WORDS, ANCHOR, "Product Line")
    assert view.split()[:6] == ["what", "did", "people", "buy", "with", "the"]
    assert len(view.split()) == 8 and view.endswith(" t_product_line")  # one mask for three words


def test_the_anchor_model_reads_the_link_and_the_words_before_it() -> None:
    assert anchor_view(WORDS, ANCHOR, 2, "product", False).split() == [
        "s_fuzzy", "c1", "r2", "t_product", "n3", "plain", "b_with", "b_the"]
    first = Anchor(node=1, conf=1.0, mention="what", words=(0,), source="bracket")
    assert anchor_view(WORDS, first, 9, "x y", True).split() == ["s_bracket", "c0", "r4", "t_x_y", "n1", "brackets"]


def test_text_types_are_those_whose_nodes_mostly_carry_text() -> None:
    assert text_types(shop()) == ["product"]  # brands and categories are bare names
    assert text_types(movies()) == []  # no text at all
    b = SKBBuilder()
    for i in range(4):
        b.add_node(f"d{i}", "doc", f"doc {i}", {"body": "some words"} if i < 2 else {})
    assert text_types(b.build()) == ["doc"] and text_types(b.build(), min_share=0.6) == []


def test_an_unfitted_model_has_no_anchor_model_and_one_answer_type() -> None:
    m = KGModel(answer_types=["product", "brand"])
    assert m.anchor_probs(["s_exact c0"]) is None and m.anchor_probs([]) is None
    assert m.type_probs(["a", "b"]) == [{"product": 1.0}, {"product": 1.0}]
    assert KGModel().type_probs(["a"]) == [{}]


def test_a_saved_model_reads_back_whole(tmp_path: Path) -> None:
    m = KGModel(answer_types=["product"], weights={"rel": 2.0, "text": 0.5, "attr": 1.0, "type": 0.0},
                background={"show": 0.9}, info={"queries": 12}, aliases={"cup": [("cat:mug", 0.8)]},
                blend=0.25, backoff={("brand", "has_brand^-1"): [("brand", "has_brand^-1", "also_bought")]},
                exclude_anchors=False)
    m.save(tmp_path / "m")
    back = KGModel.load(tmp_path / "m")
    assert back == m
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    meta["blend"] = 7.0  # out of range: clamped
    del meta["weights"]["type"]  # a weight missing: its default
    (tmp_path / "m" / "model.json").write_text(json.dumps(meta))
    again = KGModel.load(tmp_path / "m")
    assert again.blend == 1.0 and again.weights["type"] == KGModel().weights["type"]


@pytest.mark.parametrize("damage", [{"weights": None}, {"aliases": {"cup": [["cat:mug"]]}},
                                    {"backoff": [["brand"]]}])
def test_damaged_fields_are_refused(tmp_path: Path, damage: dict) -> None:
    KGModel(aliases={"cup": [("cat:mug", 0.8)]}).save(tmp_path / "m")
    meta = json.loads((tmp_path / "m" / "model.json").read_text())
    (tmp_path / "m" / "model.json").write_text(json.dumps({**meta, **damage}))
    with pytest.raises(ArtefactError, match="damaged graph-stage model.*fit it again"):
        KGModel.load(tmp_path / "m")
