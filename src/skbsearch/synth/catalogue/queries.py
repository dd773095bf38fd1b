"""STaRK-style queries over the synthetic catalogue, with qrels computed from the graph.

A query starts from a target product (and, for relational templates, an anchor edge),
states a relational requirement plus textual properties the target has, then its answer
set is computed from scratch: the relational part by walking the SKB graph
(``has_brand^-1``, ``also_bought``, ...), the textual part from the generator's records
of which features a description states and which aspects a review praises. The target
is always among the answers; other products that satisfy every constraint are too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from skbsearch.core.types import Qrels, Query
from skbsearch.kb.store import SKB
from skbsearch.synth.catalogue.text import ASPECT_KEYS, FEATURE_KEYS
from skbsearch.synth.catalogue.vocab import ASPECTS, CATEGORIES, COLORS, FEATURES

#: Relational templates (STaRK A.2 style): the constraints each query starts with.
TEMPLATES: dict[str, tuple[str, ...]] = {
    "brand+category+feature": ("brand", "category", "feature"),
    "also_bought+category+feature": ("also_bought", "category", "feature"),
    "category+color+feature": ("category", "color", "feature"),
    "brand+category+aspect": ("brand", "category", "aspect"),
    "also_viewed+category+price": ("also_viewed", "category", "max_price"),
    "brand+category+color+price": ("brand", "category", "color", "max_price"),
    "category+feature+aspect+rating": ("category", "feature", "aspect", "min_rating"),
    "bought_with_brand+category+feature": ("bought_with_brand", "category", "feature"),
}
#: Constraints added (in random order) while a query has too many answers.
EXTRAS = ("color", "feature2", "max_price", "min_rating", "aspect", "brand")
NICE_PRICES = np.array([10, 15, 20, 25, 30, 40, 50, 60, 75, 100, 125, 150, 200, 250, 300, 400, 500, 750, 1000, 1500, 2000, 5000])

OPENERS = ("Looking for", "I need", "Can you recommend", "Searching for", "Any suggestions for",
           "I want to buy", "Show me", "Help me find")
BRAND = ("from {b}", "by {b}", "made by {b}", "from the brand {b}")
BOUGHT = ("that people also bought with the {a}", "that is often bought together with the {a}",
          "that shoppers purchased alongside the {a}", "to go with the {a}")
VIEWED = ("that people who looked at the {a} also viewed", "that shoppers browsing the {a} also checked out",
          "that came up for others who viewed the {a}")
WITH_BRAND = ("that customers often buy together with {b} products", "frequently bought alongside items from {b}",
              "that people pair with something from {b}")
ASPECT = ("with reviews praising its {q}", "that reviewers love for its {q}", "whose reviews rave about its {q}",
          "with great reviews for {q}")
PRICE = ("under ${x}", "for less than ${x}", "priced below ${x}", "that costs under ${x}")
RATING = ("rated {r} stars or higher", "with at least {r} stars", "with an average rating of {r} or more")


@dataclass
class CatalogueFacts:
    """Ground truth the generator recorded per product (index = product node index)."""

    n_products: int
    n_brands: int
    brand_names: np.ndarray
    models: np.ndarray
    titles: np.ndarray
    cat: np.ndarray
    brand: np.ndarray
    color: np.ndarray
    feature_ids: np.ndarray
    feature_bits: np.ndarray
    praise_bits: np.ndarray
    price: np.ndarray
    rating: np.ndarray

    def brand_node(self, b: int) -> int:
        """Node index of brand ``b``."""
        return self.n_products + int(b)

    def category_node(self, c: int) -> int:
        """Node index of category ``c``."""
        return self.n_products + self.n_brands + int(c)

    def color_node(self, k: int) -> int:
        """Node index of colour ``k``."""
        return self.n_products + self.n_brands + len(CATEGORIES) + int(k)


def answers(skb: SKB, facts: CatalogueFacts, c: dict[str, Any]) -> np.ndarray:
    """Product indices meeting every constraint in ``c`` (relations via the SKB graph)."""
    g = skb.graph
    sets = []
    if "brand" in c:
        sets.append(g.follow([facts.brand_node(c["brand"])], ["has_brand^-1"]))
    if "category" in c:
        sets.append(g.follow([facts.category_node(c["category"])], ["has_category^-1"]))
    if "color" in c:
        sets.append(g.follow([facts.color_node(c["color"])], ["has_color^-1"]))
    if "also_bought" in c:
        sets.append(g.follow([c["also_bought"]], ["also_bought"]))
    if "also_viewed" in c:
        sets.append(g.follow([c["also_viewed"]], ["also_viewed"]))
    if "bought_with_brand" in c:
        sets.append(g.follow([facts.brand_node(c["bought_with_brand"])], ["has_brand^-1", "also_bought"]))
    cand = sets[0].astype(np.int64)
    for s in sets[1:]:
        cand = np.intersect1d(cand, s, assume_unique=True)
    cand = cand[cand < facts.n_products]
    for f in c.get("feature", []):
        cand = cand[(facts.feature_bits[cand] >> np.uint64(f)) & np.uint64(1) == 1]
    if "aspect" in c:
        cand = cand[(facts.praise_bits[cand] >> np.uint64(c["aspect"])) & np.uint64(1) == 1]
    if "max_price" in c:
        cand = cand[facts.price[cand] < c["max_price"]]
    if "min_rating" in c:
        cand = cand[facts.rating[cand] >= c["min_rating"]]
    return cand


def _bits(x: int | np.integer) -> list[int]:
    x = int(x)
    return [i for i in range(64) if (x >> i) & 1]


def _add(rng: np.random.Generator, key: str, t: int, c: dict[str, Any], facts: CatalogueFacts) -> bool:
    """Add constraint ``key`` taken from target product ``t``; False if impossible."""
    if key in ("brand", "category", "color"):
        if key in c:
            return False
        c[key] = int(getattr(facts, "cat" if key == "category" else key)[t])
    elif key in ("feature", "feature2"):
        left = [f for f in _bits(facts.feature_bits[t]) if f not in c.get("feature", [])]
        if not left:
            return False
        c.setdefault("feature", []).append(int(rng.choice(left)))
    elif key == "aspect":
        praised = _bits(facts.praise_bits[t])
        if "aspect" in c or not praised:
            return False
        c["aspect"] = int(rng.choice(praised))
    elif key == "max_price":
        if "max_price" in c:
            return False
        c["max_price"] = int(NICE_PRICES[np.searchsorted(NICE_PRICES, facts.price[t], side="right")])
    elif key == "min_rating":
        r = float(np.floor(facts.rating[t] * 2) / 2)
        if "min_rating" in c or r < 3.5:
            return False
        c["min_rating"] = r
    return True


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _anchor(rng: np.random.Generator, facts: CatalogueFacts, a: int) -> str:
    if rng.random() < 0.4:
        return str(facts.titles[a])
    noun = CATEGORIES[int(facts.cat[a])].nouns[0]
    return f"{facts.brand_names[facts.brand[a]]} {facts.models[a]} {noun}"


def render(rng: np.random.Generator, c: dict[str, Any], facts: CatalogueFacts) -> str:
    """Verbalise constraints ``c`` as a shopper's request (paraphrasing product text)."""
    cat = CATEGORIES[c["category"]]
    noun = _pick(rng, cat.nouns)
    adjs: list[str] = []
    post: list[str] = []
    if "color" in c:
        color = COLORS[c["color"]]
        if rng.random() < 0.7:
            adjs.append(color)
        else:
            post.append(f"in {color}")
    for k, f in enumerate(c.get("feature", [])):
        feat = FEATURES[FEATURE_KEYS[f]]
        if k == 0 and rng.random() < 0.5:
            adjs.append(_pick(rng, feat.adj))
        else:
            post.append(_pick(rng, feat.rel))
    if "brand" in c:
        post.insert(0, _pick(rng, BRAND).format(b=facts.brand_names[c["brand"]]))
    if "also_bought" in c:
        post.append(_pick(rng, BOUGHT).format(a=_anchor(rng, facts, c["also_bought"])))
    if "also_viewed" in c:
        post.append(_pick(rng, VIEWED).format(a=_anchor(rng, facts, c["also_viewed"])))
    if "bought_with_brand" in c:
        post.append(_pick(rng, WITH_BRAND).format(b=facts.brand_names[c["bought_with_brand"]]))
    if "aspect" in c:
        post.append(_pick(rng, ASPECT).format(q=_pick(rng, ASPECTS[ASPECT_KEYS[c["aspect"]]].query)))
    if "max_price" in c:
        post.append(_pick(rng, PRICE).format(x=c["max_price"]))
    if "min_rating" in c:
        post.append(_pick(rng, RATING).format(r=f"{c['min_rating']:g}"))
    head = " ".join([a for a in adjs if a] + [noun])
    article = "a pair of" if noun.endswith("s") else ("an" if head[0] in "aeiou" else "a")
    opener = _pick(rng, OPENERS)
    text = f"{opener} {article} {head}"
    if post:
        text += " " + post[0] + "".join(", " + p for p in post[1:])
    return text + ("?" if opener.startswith(("Can", "Any")) else ".")


def gold(c: dict[str, Any], skb: SKB, facts: CatalogueFacts) -> dict[str, Any]:
    """JSON-ready constraints with node ids and property names (for ``Query.meta``)."""
    out: dict[str, Any] = {}
    for k, v in c.items():
        if k in ("brand", "bought_with_brand"):
            out[k] = skb.ids[facts.brand_node(v)]
        elif k == "category":
            out[k] = skb.ids[facts.category_node(v)]
        elif k == "color":
            out[k] = skb.ids[facts.color_node(v)]
        elif k in ("also_bought", "also_viewed"):
            out[k] = skb.ids[v]
        elif k == "feature":
            out[k] = [FEATURE_KEYS[f] for f in v]
        elif k == "aspect":
            out[k] = ASPECT_KEYS[v]
        else:
            out[k] = v
    return out


def generate_queries(
    rng: np.random.Generator,
    skb: SKB,
    facts: CatalogueFacts,
    n_queries: int,
    *,
    max_answers: int = 20,
    max_tries: int = 50,
) -> tuple[list[Query], Qrels]:
    """``n_queries`` queries cycling through :data:`TEMPLATES`, each with 1..``max_answers`` answers."""
    names = list(skb.schema.relations)
    rel_edges = {r: np.flatnonzero(skb.edge_rel == names.index(r)) for r in ("also_bought", "also_viewed")}
    queries: list[Query] = []
    qrels: dict[str, dict[str, int]] = {}
    seen: set[str] = set()
    templates = list(TEMPLATES)
    attempts = 0
    while len(queries) < n_queries and attempts < max_tries * max(n_queries, 1):
        attempts += 1
        name = templates[len(queries) % len(templates)] if attempts % 5 else _pick(rng, tuple(templates))
        c: dict[str, Any] = {}
        rel = "also_bought" if name.startswith(("also_bought", "bought_with")) else "also_viewed" if name.startswith("also_viewed") else None
        if rel is not None:
            if len(rel_edges[rel]) == 0:
                continue
            e = int(rng.choice(rel_edges[rel]))
            anchor, t = int(skb.edge_src[e]), int(skb.edge_dst[e])
            if name.startswith("bought_with"):
                c["bought_with_brand"] = int(facts.brand[anchor])
            else:
                c[rel] = anchor
        else:
            t = int(rng.integers(facts.n_products))
        if not all(_add(rng, k, t, c, facts) for k in TEMPLATES[name] if k not in c and k != rel and k != "bought_with_brand"):
            continue
        ans = answers(skb, facts, c)
        for extra in rng.permutation(EXTRAS):
            if len(ans) <= max_answers:
                break
            if _add(rng, str(extra), t, c, facts):
                ans = answers(skb, facts, c)
        if t not in ans:
            raise RuntimeError(f"internal error: target p{t} does not satisfy its own query {c}")
        if len(ans) > max_answers:
            continue
        text = render(rng, c, facts)
        if text in seen:
            continue
        seen.add(text)
        qid = f"q{len(queries)}"
        meta = {"template": name, "gold": gold(c, skb, facts), "n_answers": len(ans), "synthetic": True}
        queries.append(Query(qid, text, meta))
        qrels[qid] = {skb.ids[int(p)]: 1 for p in ans}
    return queries, Qrels(qrels)
