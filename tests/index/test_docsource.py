"""What a dense or multi-vector index embeds: documents from an SKB (rendered, with the
provenance record every engine writes alike) or from (doc_ids, texts), checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.documents import DocumentRenderer
from skbsearch.index.docsource import DocSource, skb_record, skb_renderer
from skbsearch.kb.store import SKB


def _shop() -> SKB:
    return SKB.from_columns(["p1", "p2", "b1"], ["product", "product", "brand"],
                            ["Rain jacket", "Wool hat", "Acme"],
                            fields={"description": ["Keeps you dry.", "Warm.", None]},
                            edges=(np.array([0, 1]), ["brand", "brand"], np.array([2, 2])))


def test_documents_of_an_skb_are_its_rendered_nodes() -> None:
    skb = _shop()
    renderer = DocumentRenderer()
    src = DocSource.from_any(skb)
    assert src.doc_ids == ["p1", "p2", "b1"] and src.node_index is None
    assert src.texts == renderer.render_many(skb, None)
    assert "Rain jacket" in src.texts[0] and "Keeps you dry." in src.texts[0]
    some = DocSource.from_any(skb, renderer, indices=[2, 0])
    assert some.doc_ids == ["b1", "p1"] and some.node_index is not None
    assert some.node_index.tolist() == [2, 0]
    assert some.texts == [src.texts[2], src.texts[0]]
    assert some.source == src.source == skb_record(skb, renderer)


def test_the_provenance_record_names_the_skb_and_the_rendering(tmp_path: Path) -> None:
    skb = _shop()
    skb.save(tmp_path / "skb")
    rec = skb_record(SKB.load(tmp_path / "skb"), skb_renderer(["description "], add_rel=True,
                                                               max_per_relation=3))
    assert rec["kind"] == "skb" and rec["num_nodes"] == 3
    assert rec["skb_hash"] == skb.meta["content_hash"] and rec["path"] == str((tmp_path / "skb").absolute())
    assert (rec["fields"], rec["add_rel"], rec["max_per_relation"]) == (["description"], True, 3)
    assert skb_record(_shop(), DocumentRenderer())["path"] is None  # never saved


def test_a_pair_of_ids_and_texts_is_checked() -> None:
    src = DocSource.from_any(([1, 2], ["one", "two"]))
    assert (src.doc_ids, src.texts, src.source) == (["1", "2"], ["one", "two"], {"kind": "texts"})
    with pytest.raises(InputError, match="2 doc ids but 1 texts"):
        DocSource.from_any((["a", "b"], ["only one"]))
    with pytest.raises(InputError, match=r"record 3, field 'doc_id': duplicate doc id 'a'"):
        DocSource.from_any((["a", "b", "a"], ["x", "y", "z"]))
    with pytest.raises(InputError, match="an SKB or a \\(doc_ids, texts\\) pair"):
        DocSource.from_any("not documents")


def test_field_weights_are_for_bm25_only() -> None:
    with pytest.raises(InputError, match="field weights apply to bm25 indexes only"):
        skb_renderer(field_weights={"title": 2.0})
    assert skb_renderer(None).fields is None
