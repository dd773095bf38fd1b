"""Textual properties of a gold answer without an LLM (``synth.queries.properties``): words,
a node's document and tokens, idf, a generic category from names many nodes share, noun-chunk
properties from salient positive sentences (never the name's words, never a negated one),
relation properties for a type without text, and the lexical or neighbour check."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.kb import SKBBuilder
from skbsearch.kb.store import SKB
from skbsearch.synth.queries.properties import PropertyExtractor, content_words, load_spacy, words

BRANDS = ["Foxfield", "Norrow", "Altura", "Kestrel"]
FEATURES = ["mesh vents keep you cool on steep climbs.", "a storm hood shields against driving rain.",
            "taped seams stop water at every joint.", "reflective piping glows under headlights."]


@pytest.fixture(scope="module")
def skb() -> SKB:
    """Eight hiking jackets and four water bottles of four brands; distinct descriptions."""
    b = SKBBuilder()
    for i in range(12):
        name = f"{BRANDS[i % 4]} Trail Hiking Jacket" if i < 8 else f"{BRANDS[i % 4]} Water Bottle"
        b.add_node(f"p{i}", "product", name, {"description": f"Model {i} has {FEATURES[i % 4]} "
                                                             "It does not have pockets. Great value for a weekend trip."})
    for i, brand in enumerate(BRANDS):
        b.add_node(f"b{i}", "brand", brand)
    for i in range(12):
        b.add_edge(f"p{i}", "has_brand", f"b{i % 4}")
    return b.build()


def test_words_and_content_words() -> None:
    assert words("A 2-year warranty, don't!") == ["a", "2-year", "warranty", "don't"]
    assert content_words("The mesh of a jacket is x") == ["mesh", "jacket"]


def test_no_spacy_model_means_the_regex_chunker() -> None:
    assert load_spacy(None) is None and load_spacy("no_such_spacy_model") is None


def test_documents_tokens_and_idf(skb: SKB) -> None:
    ex = PropertyExtractor(skb, "product")
    assert (ex.mode, ex.extractor, ex.fields, ex.n_docs) == ("text", "regex", ["description"], 12)
    assert "mesh vents keep you cool" in ex.document(0)
    b = SKBBuilder()
    b.add_node("x", "t", "X", {"text": "a 2-year warranty"})
    assert {"2-year", "2", "year", "warranty"} <= PropertyExtractor(b.build(), "t").tokens(0)  # hyphen parts too
    assert ex.idf("mesh") > ex.idf("jacket") and ex.idf("never-seen") > ex.idf("mesh")


def test_a_category_from_names_many_nodes_share(skb: SKB) -> None:
    ex = PropertyExtractor(skb, "product")
    jacket, bottle = ex.category(0), ex.category(9)
    assert (jacket.text, jacket.kind, jacket.words) == ("hiking jacket", "category", ("hiking", "jacket"))
    assert bottle.text == "water bottle" and ex.check(bottle, 9) and not ex.check(bottle, 0)


def test_text_properties_of_salient_positive_sentences(skb: SKB) -> None:
    ex = PropertyExtractor(skb, "product")
    for i in range(12):
        props = ex.text_properties(i, np.random.default_rng(i), 2)
        assert 1 <= len(props) <= 2
        for p in props:
            assert p.kind == "text" and p.source == "description" and len(p.words) >= 2
            assert not {"pockets", "hiking", "jacket", "water", "bottle"} & set(p.words)  # negated; the name's
            assert ex.check(p, i)
    first = {w for p in ex.text_properties(0, np.random.default_rng(0), 2) for w in p.words}
    again = ex.text_properties(0, np.random.default_rng(0), 2, exclude=first)  # words said elsewhere
    assert not any(set(p.words) & first for p in again)
    assert ex.parse([0, 1]) == [{}, {}]  # nothing to parse without spaCy


def test_relation_properties_for_a_type_without_text(skb: SKB) -> None:
    ex = PropertyExtractor(skb, "brand")
    assert (ex.mode, ex.extractor) == ("relation", "relations") and ex.category(12) is None
    b0, b1 = int(skb.index_of("b0")), int(skb.index_of("b1"))
    props = ex.relation_properties(b0, np.random.default_rng(0), 2, set(), set())
    assert len(props) == 2 and all(p.kind == "relation" and p.relation == "has_brand^-1" for p in props)
    assert all(ex.check(p, b0) and not ex.check(p, b1) for p in props)  # the same neighbour, not words
    assert props[0].to_dict(skb)["node"] == skb.ids[props[0].node] and props[0].to_dict()["node"] == props[0].node
    assert ex.relation_properties(b0, np.random.default_rng(0), 2, {"has_brand^-1"}, set()) == []
