"""STaRK-style queries over the synthetic catalogue (``synth.catalogue.queries``), on a small
catalogue built by hand with its recorded facts: each constraint's answers from the graph
and the facts, the constraints as node ids and property names, a shopper's request that
paraphrases them, and generated queries whose target is always an answer. (Over a generated
catalogue, answers re-derived from edge lists and text: test_generate.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.kb.store import SKB
from skbsearch.synth.catalogue.queries import (
    TEMPLATES,
    CatalogueFacts,
    answers,
    generate_queries,
    gold,
    render,
)
from skbsearch.synth.catalogue.text import ASPECT_KEYS, FEATURE_KEYS
from skbsearch.synth.catalogue.vocab import ASPECTS, CATEGORIES, COLORS, FEATURES

WATERPROOF, BREATHABLE = FEATURE_KEYS.index("waterproof"), FEATURE_KEYS.index("breathable")
DURABILITY = ASPECT_KEYS.index("durability")
#: product: (brand, category, colour, features, praised aspects, price, rating)
PRODUCTS = [(0, 0, 0, [WATERPROOF], [DURABILITY], 120.99, 4.6), (0, 0, 1, [WATERPROOF, BREATHABLE], [], 80.99, 3.9),
            (1, 0, 0, [BREATHABLE], [DURABILITY], 60.99, 4.2), (1, 1, 0, [WATERPROOF], [], 90.99, 4.8),
            (0, 0, 0, [WATERPROOF], [DURABILITY], 45.99, 3.2)]
BOUGHT = [(3, 0), (3, 1), (2, 4)]  # also_bought: (anchor, target)
VIEWED = [(0, 2)]


def _bits(ids: list[int]) -> np.uint64:
    return np.uint64(sum(1 << i for i in ids))


@pytest.fixture(scope="module")
def shop() -> tuple[SKB, CatalogueFacts]:
    n, b = len(PRODUCTS), 2
    facts = CatalogueFacts(
        n_products=n, n_brands=b, brand_names=np.array(["Foxfield", "Norrow"], dtype=object),
        models=np.array(["Ridge", "Cirrus", "Vale", "Summit", "Tarn"], dtype=object),
        titles=np.array([f"Title {i}" for i in range(n)], dtype=object),
        cat=np.array([p[1] for p in PRODUCTS]), brand=np.array([p[0] for p in PRODUCTS]),
        color=np.array([p[2] for p in PRODUCTS]), feature_ids=np.zeros((n, 1), np.int64),
        feature_bits=np.array([_bits(p[3]) for p in PRODUCTS], np.uint64),
        praise_bits=np.array([_bits(p[4]) for p in PRODUCTS], np.uint64),
        price=np.array([p[5] for p in PRODUCTS]), rating=np.array([p[6] for p in PRODUCTS]))
    ids = ([f"p{i}" for i in range(n)] + [f"b{i}" for i in range(b)] + [f"cat:{c.key}" for c in CATEGORIES]
           + [f"color:{c}" for c in COLORS])
    types = ["product"] * n + ["brand"] * b + ["category"] * len(CATEGORIES) + ["color"] * len(COLORS)
    src, rel, dst = [], [], []
    for i, (br, ca, co, *_rest) in enumerate(PRODUCTS):
        for r, node in (("has_brand", facts.brand_node(br)), ("has_category", facts.category_node(ca)),
                        ("has_color", facts.color_node(co))):
            src.append(i), rel.append(r), dst.append(node)
    for r, pairs in (("also_bought", BOUGHT), ("also_viewed", VIEWED)):
        for a, t in pairs:
            src.append(a), rel.append(r), dst.append(t)
    skb = SKB.from_columns(ids, types, ids, edges=(np.array(src), rel, np.array(dst)))
    return skb, facts


@pytest.mark.parametrize(("c", "want"), [
    ({"brand": 0, "category": 0}, [0, 1, 4]),
    ({"brand": 0, "category": 0, "feature": [BREATHABLE]}, [1]),
    ({"category": 0, "color": 0, "feature": [WATERPROOF]}, [0, 4]),
    ({"category": 0, "aspect": DURABILITY}, [0, 2, 4]),
    ({"also_bought": 3, "category": 0}, [0, 1]),
    ({"also_viewed": 0, "category": 0, "max_price": 75}, [2]),
    ({"bought_with_brand": 1, "category": 0}, [0, 1, 4]),  # bought with products of Norrow (p2, p3)
    ({"category": 0, "min_rating": 4.0}, [0, 2]),
    ({"brand": 1, "category": 0, "color": 1}, [])])
def test_answers_meet_every_constraint(shop, c: dict, want: list[int]) -> None:
    skb, facts = shop
    assert answers(skb, facts, c).tolist() == want


def test_gold_names_nodes_and_properties(shop) -> None:
    skb, facts = shop
    c = {"brand": 1, "category": 0, "color": 0, "also_bought": 3, "feature": [WATERPROOF], "aspect": DURABILITY,
         "max_price": 100, "min_rating": 4.5}
    assert gold(c, skb, facts) == {"brand": "b1", "category": f"cat:{CATEGORIES[0].key}", "color": f"color:{COLORS[0]}",
                                   "also_bought": "p3", "feature": ["waterproof"], "aspect": "durability",
                                   "max_price": 100, "min_rating": 4.5}


def test_render_paraphrases_the_constraints(shop) -> None:
    _, facts = shop
    c = {"brand": 1, "category": 0, "feature": [WATERPROOF], "aspect": DURABILITY, "max_price": 100, "min_rating": 4.5}
    for seed in range(20):
        text = render(np.random.default_rng(seed), c, facts)
        assert "Norrow" in text and "$100" in text and "4.5" in text and text.endswith(("?", "."))
        assert any(n in text for n in CATEGORIES[0].nouns)
        assert any(w in text for w in FEATURES["waterproof"].adj + FEATURES["waterproof"].rel)
        assert any(q in text for q in ASPECTS["durability"].query)
        assert not any(s.rstrip(".") in text for s in FEATURES["waterproof"].desc)  # the query's own words


def _constraints(g: dict) -> dict:
    """The constraint indices behind a query's ``gold`` (the inverse of :func:`gold`)."""
    cats, colors = [f"cat:{c.key}" for c in CATEGORIES], [f"color:{c}" for c in COLORS]
    out: dict = {}
    for k, v in g.items():
        if k in ("brand", "bought_with_brand"):
            out[k] = int(v[1:])
        elif k in ("also_bought", "also_viewed"):
            out[k] = int(v[1:])
        elif k == "category":
            out[k] = cats.index(v)
        elif k == "color":
            out[k] = colors.index(v)
        elif k == "feature":
            out[k] = [FEATURE_KEYS.index(f) for f in v]
        elif k == "aspect":
            out[k] = ASPECT_KEYS.index(v)
        else:
            out[k] = v
    return out


def test_generated_queries_hold_their_target(shop) -> None:
    skb, facts = shop
    queries, qrels = generate_queries(np.random.default_rng(0), skb, facts, 12, max_answers=3)
    assert len(queries) >= 4 and len({q.text for q in queries}) == len(queries)
    assert len({q.meta["template"] for q in queries}) >= 3
    for q in queries:
        assert q.meta["template"] in TEMPLATES and q.meta["synthetic"] is True
        rel = qrels.relevant(q.id)
        assert 1 <= len(rel) <= 3 and q.meta["n_answers"] == len(rel)
        got = answers(skb, facts, _constraints(q.meta["gold"]))
        assert {skb.ids[i] for i in got} == rel  # the qrels are the constraints' answers
