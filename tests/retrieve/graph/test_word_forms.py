"""Derived forms of a question word in the KG's vocabulary (issue 32): "south" finds
"southern" among the nodes the graph reached when none of them says "south"."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.types import Query
from skbsearch.index.names import build_name_index
from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph import word_forms as wf
from skbsearch.retrieve.graph.retriever import SKBGraphRetriever

PARTS = {"castile": "a region in central Spain",
         "aragon": "a region in northeastern Spain",
         "leon": "a city in northwestern Spain",
         "seville": "a city in southwestern Spain on the Guadalquivir; a centre of trade and of the arts",
         "malaga": "a port city and resort in southern Spain on the Mediterranean coast",
         "granada": "a city in southern Spain at the foot of the Sierra Nevada mountains"}


def _spain():
    """WordNet-shaped: Spain's parts say where they lie as "southern" and "northwestern";
    "south" is a word of the KG's text elsewhere, in nodes the question does not reach."""
    b = SKBBuilder()
    b.add_node("es", "concept", "spain", {"description": "a parliamentary monarchy in southwestern Europe"})
    for node, gloss in PARTS.items():
        b.add_node(node, "concept", node, {"description": gloss})
        b.add_edge("es", "has part", node)
    b.add_node("wind", "concept", "sirocco", {"description": "a hot wind blowing from the south"})
    b.add_node("bird", "concept", "swallow", {"description": "a bird that flies south in winter"})
    b.add_edge("wind", "related", "bird")
    return b.build()


@pytest.fixture(scope="module")
def spain():
    kb = _spain()
    return kb, BM25Index.from_skb(kb, add_rel=True)


def test_a_word_is_extended_by_the_vocabulary_words_it_begins(spain):
    kb, text = spain
    forms = wf.WordForms(text)
    vocab = text.tokenizer.stem_to_sid if text.tokenizer.stemmer is not None else text.tokenizer.word_to_id
    got = {w for w, i in vocab.items() if i in set(forms.extending("south"))}
    assert got == {"southern", "southwestern"}  # never "south" itself
    assert forms.extending("spai") == [] and forms.extending("which") == []  # short; a stop word


def test_a_prefix_many_words_share_has_no_derived_forms():
    b = SKBBuilder()
    for i in range(wf.MAX_FORMS + 1):  # paintqaaq, paintqbaq, ...: words no stemmer folds
        b.add_node(f"n{i}", "concept", f"n{i}", {"description": f"paintq{chr(97 + i % 26)}{chr(97 + i // 26)}q"})
    text = BM25Index.from_skb(b.build())
    forms = wf.WordForms(text)
    assert forms.extending("paint") == []  # 51 words begin it: it says nothing of any
    assert len(forms.extending("paintqa")) == 2  # paintqaaq, paintqabq


def test_derived_forms_count_only_where_the_reached_nodes_lack_the_word(spain):
    kb, text = spain
    forms = wf.WordForms(text)
    rows = np.array([kb.index_of(n) for n in PARTS], np.int64)  # (the index is in node order)
    extra = forms.back_off(["parts", "spain", "south"], rows, rows)
    by = dict(zip(PARTS, extra, strict=True))
    assert by["malaga"] > 0 and by["granada"] > 0 and by["seville"] > 0  # southern, southwestern
    assert by["castile"] == by["aragon"] == by["leon"] == 0.0
    # a word some reached node says is its own evidence: no back-off
    with_south = np.append(rows, kb.index_of("wind"))
    assert not forms.back_off(["south"], with_south, rows).any()
    assert not forms.back_off(["south"], np.zeros(0, np.int64), rows).any()  # nothing reached


def test_the_graph_stage_ranks_the_parts_that_lie_in_the_south_first(spain):
    kb, text = spain
    names = build_name_index(kb)
    stage = SKBGraphRetriever(kb, text, names, k=10)
    ranked = [d for d, _ in stage([Query("q", "Which parts of Spain lie in the south?")]).ranked("q")]
    assert set(ranked[:3]) == {"malaga", "granada", "seville"}


def test_explain_names_the_derived_forms_evidence(spain):
    kb, text = spain
    stage = SKBGraphRetriever(kb, text, build_name_index(kb), k=10)
    q = Query("q", "Which parts of Spain lie in the south?")
    assert any("derived forms" in line for line in stage.explain(q, "malaga"))
    assert not any("derived forms" in line for line in stage.explain(q, "castile"))  # "central"
