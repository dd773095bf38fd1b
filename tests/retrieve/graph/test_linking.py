"""Mention linking over node names (``retrieve.graph.linking``): brackets, exact names,
fuzzy/BM25 names, typos, ambiguity, learned template words and aliases, a batch."""

from __future__ import annotations

import numpy as np
import pytest
from kg_fixtures import shop

from skbsearch.index.sparse import BM25Index
from skbsearch.kb import SKBBuilder
from skbsearch.retrieve.graph.linking import NameLinker


def _linker(kb, **kw):
    names = BM25Index.from_texts(((nid, nm or "") for nid, nm in zip(kb.ids, kb.column("name"), strict=True)),
                                 stopwords="en")
    return NameLinker(kb, names, **kw)


@pytest.fixture(scope="module")
def kb():
    return shop()


@pytest.fixture(scope="module")
def linker(kb):
    return _linker(kb)


def _by_id(kb, anchors):
    return {kb.ids[a.node]: a for a in anchors}


def test_exact_name_in_plain_text(kb, linker):
    got = _by_id(kb, linker.link("mugs by zenith please"))
    assert got["brand:zen"].source == "exact" and got["brand:zen"].conf == pytest.approx(1.0)
    assert got["brand:zen"].words == (2,)


def test_bracketed_mention_is_a_strong_hint_not_a_requirement(kb, linker):
    got = _by_id(kb, linker.link("boots like the [Acme Ridge Boot]"))
    assert got["p3"].source == "bracket" and got["p3"].conf == 1.0
    # words inside a resolved bracket are not linked again (no fuzzy 'Acme Canyon Boot')
    assert "p4" not in got
    plain = _by_id(kb, linker.link("boots like the Acme Ridge Boot"))
    assert "p3" in plain and plain["p3"].source in ("exact", "fuzzy")


def test_partial_names_link_fuzzily_with_a_share(kb, linker):
    got = _by_id(kb, linker.link("something bought with the Acme Trail mug"))
    assert got["p1"].source in ("exact", "fuzzy") and got["p1"].conf > 0.5
    weak = _by_id(kb, linker.link("a trail mug"))
    assert "p1" in weak and weak["p1"].conf < got["p1"].conf  # 'Acme' not said


def test_typos_are_corrected_by_character_trigrams(kb, linker):
    got = _by_id(kb, linker.link("rain boots from Boreallis"))
    assert "brand:bor" in got
    assert _by_id(kb, _linker(kb, typo_min=0.99).link("rain boots from Boreallis")).get("brand:bor") is None


def test_ambiguous_names_keep_every_candidate():
    b = SKBBuilder()
    b.add_node("brand:nova", "brand", "Nova")
    b.add_node("p:nova", "product", "Nova")
    b.add_node("p:x", "product", "Other")
    b.add_edge("p:x", "has_brand", "brand:nova")
    kb = b.build()
    got = _by_id(kb, _linker(kb).link("anything by [Nova]"))
    assert {"brand:nova", "p:nova"} <= set(got)
    assert sum(got[n].conf for n in ("brand:nova", "p:nova")) == pytest.approx(1.0)
    assert got["brand:nova"].conf > got["p:nova"].conf  # more linked first


def test_template_words_stop_linking_after_fit_background(kb):
    linker = _linker(kb)
    before = _by_id(kb, linker.link("show me mugs by Acme"))
    assert before["cat:mug"].conf > 0.5  # 'mugs' names the category 'Mugs'
    linker.fit_background([f"show me mugs by {b}" for b in ("X", "Y", "Z", "W")] + ["a boot"])
    after = _by_id(kb, linker.link("show me mugs by Acme"))
    assert after.get("cat:mug") is None or after["cat:mug"].conf < 0.2
    assert after["brand:acme"].conf == pytest.approx(1.0)


def test_aliases_learned_from_judged_queries(kb):
    import numpy as np
    from kg_fixtures import PRODUCTS

    from skbsearch.retrieve.graph.linking import learn_aliases

    linker = _linker(kb)
    texts, answers = [], []
    for brand in ("Acme", "Zenith", "Borealis"):
        for form in ("a cup by {b}", "any {b} cup", "{b} boots"):
            texts.append(form.format(b=brand))
            cat = "mug" if "cup" in form else "boot"
            answers.append(np.array([int(kb.index_of(p)) for p, v in PRODUCTS.items()
                                     if v[2] == cat and kb.node(p).name.startswith(brand)]))
    # template words ('a', 'by', 'any') are frequent in the queries, 'cup' is not
    linker.fit_background(texts + [f"any {w} by a maker" for w in ("hat", "lamp", "pen", "sock") * 10])
    aliases = learn_aliases(linker, texts, answers, linker.link_many(texts))
    assert [kb.ids[n] for n, _ in aliases["cup"]] == ["cat:mug"]
    assert "boots" not in aliases  # 'boots' already names the category Boots
    linker.aliases = aliases
    got = _by_id(kb, linker.link("a cup for camping"))
    assert got["cat:mug"].source == "alias" and got["cat:mug"].words == (1,)


def test_words_names_and_a_batch(kb, linker):
    zen = linker.word_id("zenith")
    assert zen is not None and linker.word_id("zenitth") == zen  # a typo, corrected
    assert linker.word_id("zenitth", correct=False) is None and linker.word_id("the") is None  # a stopword
    assert linker.name_ids(kb.index_of("brand:zen")) == frozenset({zen})
    assert linker.prepare() is linker
    texts = ["mugs by zenith please", "boots like the [Acme Ridge Boot]", ""]
    assert linker.link_many(texts) == [linker.link(t) for t in texts]
    assert linker.link("") == [] and linker.informativeness([]) == 0.0


def test_bm25_top_k_over_names_with_a_mask(kb, linker):
    from skbsearch.retrieve.graph.linking import bm25_top_k

    toks = linker.names.tokenize(["acme mug"])[0]
    rows, scores = bm25_top_k(linker.names, toks, 3)
    assert kb.ids[int(rows[0])] == "p1" and len(rows) == 3 and list(scores) == sorted(scores, reverse=True)
    mask = np.zeros(linker.names.num_docs, bool)
    mask[[kb.index_of("p5"), kb.index_of("brand:acme")]] = True
    masked, _ = bm25_top_k(linker.names, toks, 3, mask)
    assert sorted(kb.ids[int(r)] for r in masked) == ["brand:acme", "p5"]
