"""The texts a BM25 index of an SKB is built from (``index.bm25_docs``): each layout's fields,
some rows or all, the manifest's ``source`` and the texts read back from it (what catch-up
re-tokenises), a layout that does not match its fields refused."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import ArtefactError, InputError
from skbsearch.index.bm25_docs import field_texts, relation_texts, skb_source, source_texts
from skbsearch.kb.store import SKB

DOCS = ["product: Red shoe\ndescription: a red running shoe", "product: Blue hat",
        "brand: Acme\ndescription: maker of things"]
RELATIONS = ["brand: Acme", "brand: Acme", "brand (reverse): Red shoe, Blue hat"]


@pytest.fixture(scope="module")
def skb() -> SKB:
    """Two products of one brand; the hat has no description."""
    return SKB.from_columns(["p1", "p2", "b1"], ["product", "product", "brand"], ["Red shoe", "Blue hat", "Acme"],
                            fields={"description": ["a red running shoe", None, "maker of things"]},
                            edges=(np.array([0, 1]), ["brand", "brand"], np.array([2, 2])))


def test_one_rendered_document_with_or_without_relation_lines(skb: SKB) -> None:
    assert field_texts(skb) == {"document": DOCS}
    inline = field_texts(skb, add_rel=True)["document"]
    assert inline == [d + "\n" + r for d, r in zip(DOCS, RELATIONS, strict=True)]


def test_relation_lines_as_a_second_field(skb: SKB) -> None:
    assert field_texts(skb, add_rel=True, rel_weight=0.5) == {"document": DOCS, "relations": RELATIONS}
    assert relation_texts(skb, None, 10) == RELATIONS
    assert relation_texts(skb, np.array([2]), 1) == ["brand (reverse): Red shoe (+1 more)"]  # at most 1 a relation


def test_columns_as_fields_for_some_rows(skb: SKB) -> None:
    assert field_texts(skb, fields=[" name ", "description", ""]) == {
        "name": ["Red shoe", "Blue hat", "Acme"], "description": ["a red running shoe", None, "maker of things"]}
    got = field_texts(skb, np.array([2, 0]), fields=["description", "colour"], add_rel=True)
    assert got == {"description": ["maker of things", "a red running shoe"], "colour": [None, None],
                   "relations": [RELATIONS[2], RELATIONS[0]]}
    assert field_texts(skb, np.array([1]), fields=["name"], add_rel=True, only="relations") == {
        "relations": [RELATIONS[1]]}
    with pytest.raises(InputError, match="no fields given"):
        field_texts(skb, fields=[" ", ""])


def test_source_records_the_layout_and_the_skb(skb: SKB) -> None:
    split = skb_source(skb, fields=None, add_rel=True, rel_weight=0.5, max_per_relation=3)
    assert split == {"kind": "skb", "path": None, "num_nodes": 3, "skb_hash": None, "fields": None,
                     "add_rel": True, "max_per_relation": 3, "rel_weight": 0.5, "node_order": True}
    # rel_weight only counts for the split layout
    assert skb_source(skb, fields=["name"], add_rel=True, rel_weight=0.5, max_per_relation=3)["rel_weight"] is None


def test_saved_skb_source_names_its_directory_and_hash(skb: SKB, tmp_path) -> None:
    skb.save(tmp_path / "kb")
    saved = SKB.load(tmp_path / "kb")
    src = skb_source(saved, fields=["name"], add_rel=False, rel_weight=None, max_per_relation=10)
    assert src["path"] == str((tmp_path / "kb").absolute()) and src["skb_hash"] == saved.meta["content_hash"]


@pytest.mark.parametrize(("fields", "add_rel", "rel_weight", "index_fields"), [
    (None, False, None, ["document"]), (None, True, None, ["document"]),
    (None, True, 0.5, ["document", "relations"]), (["name", "description"], True, None,
                                                   ["name", "description", "relations"])])
def test_source_texts_read_back_what_the_build_indexed(skb: SKB, fields, add_rel, rel_weight,
                                                       index_fields) -> None:
    src = skb_source(skb, fields=fields, add_rel=add_rel, rel_weight=rel_weight, max_per_relation=10)
    built = field_texts(skb, fields=fields, add_rel=add_rel, rel_weight=rel_weight)
    assert list(built) == index_fields
    rows = np.array([2, 1])
    for f in index_fields:
        assert source_texts(skb, rows, src, index_fields, only=f) == [built[f][2], built[f][1]]


def test_source_texts_of_a_one_column_index_and_a_mismatch(skb: SKB) -> None:
    names = skb_source(skb, fields=["name"], add_rel=False, rel_weight=None, max_per_relation=10)
    assert source_texts(skb, np.array([0, 2]), names, ["document"], only="document") == ["Red shoe", "Acme"]
    plain = skb_source(skb, fields=None, add_rel=False, rel_weight=None, max_per_relation=10)
    with pytest.raises(ArtefactError, match=r"index fields \['document', 'relations'\] do not match.*rebuild"):
        source_texts(skb, np.array([0]), plain, ["document", "relations"], only="relations")
