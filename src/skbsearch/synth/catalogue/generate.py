"""A seeded, **synthetic** product-catalogue SKB in the spirit of STaRK-Amazon.

Products (``p0``, ``p1``, ...) with generated ``title``, ``description`` and ``reviews``
and the attributes ``price`` and ``rating``; ``brand``, ``category`` and ``color`` nodes;
edges ``has_brand``, ``has_category``, ``has_color`` (product -> x) and ``also_bought``,
``also_viewed`` (product -> product, targets drawn by a heavy-tailed popularity within
the same or a related category). All names are invented. Queries combine a relational
requirement with textual properties, and their qrels are computed from the graph and
the generator's records (see :mod:`skbsearch.synth.catalogue.queries`).

Everything is vectorised (numpy) and built with :meth:`SKB.from_columns`, so the same
code makes 1K or 1M products.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from skbsearch.core.atomic import atomic_dir, recover_dir
from skbsearch.core.errors import InputError
from skbsearch.core.jsonl import iter_jsonl
from skbsearch.core.types import Qrels, Query
from skbsearch.kb.graph import unique_sorted
from skbsearch.kb.store import SKB
from skbsearch.synth.catalogue import text as text
from skbsearch.synth.catalogue.queries import CatalogueFacts, generate_queries
from skbsearch.synth.catalogue.vocab import (
    BRAND_PREFIXES,
    BRAND_SUFFIXES,
    BRAND_TAILS,
    CATEGORIES,
    COLORS,
    MODEL_SUFFIXES,
    MODEL_WORDS,
)

RELATIONS = ("has_brand", "has_category", "has_color", "also_bought", "also_viewed")
GENERATOR = "skbsearch.synth.catalogue v1 (synthetic)"
_CAT_INDEX = {c.key: i for i, c in enumerate(CATEGORIES)}


@dataclass
class CatalogueDataset:
    """A synthetic catalogue SKB with queries and qrels (grade 1 = satisfies the query)."""

    skb: SKB
    queries: list[Query]
    qrels: Qrels
    config: dict[str, Any] = field(default_factory=dict)

    def save(self, path: str | Path, *, overwrite: bool = True) -> Path:
        """Write ``skb/``, ``queries.jsonl``, ``qrels.trec`` and ``dataset.json`` atomically."""
        final = Path(path)
        with atomic_dir(final, overwrite=overwrite, kind="catalogue",
                        keep=("skb/indexes",)) as tmp:
            self.skb.save(tmp / "skb")
            with (tmp / "queries.jsonl").open("w", encoding="utf-8") as fh:
                for q in self.queries:
                    fh.write(json.dumps({"id": q.id, "text": q.text, "meta": q.meta}) + "\n")
            self.qrels.to_trec(tmp / "qrels.trec")
            config = {"artefact": "catalogue", **self.config}
            (tmp / "dataset.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
        self.skb.path = final / "skb"
        return final

    @classmethod
    def load(cls, path: str | Path) -> CatalogueDataset:
        """Open a directory written by :meth:`save` (the SKB graph is memory-mapped)."""
        path = Path(path)
        qfile = path / "queries.jsonl"
        if not path.exists():
            recover_dir(path)  # a save killed while swapping directories
        if not qfile.is_file():
            raise InputError(
                "not a catalogue dataset (no queries.jsonl); make one with 'skb synth catalogue'",
                file=qfile,
            )
        queries = []
        for n, rec in iter_jsonl(qfile, what="one query object a line"):
            try:
                queries.append(Query(str(rec["id"]), str(rec["text"]), dict(rec.get("meta", {}))))
            except KeyError as e:
                raise InputError("query record lacks a field", file=qfile, line=n, field=str(e.args[0])) from None
        cfg_file = path / "dataset.json"
        config = json.loads(cfg_file.read_text(encoding="utf-8")) if cfg_file.is_file() else {}
        config.pop("artefact", None)
        return cls(SKB.load(path / "skb"), queries, Qrels.from_trec(path / "qrels.trec"), config)


# ---------------------------------------------------------------------- sampling helpers
def _zipf(rng: np.random.Generator, n: int, a: float) -> np.ndarray:
    """Shuffled weights ``1/(rank+1)^a`` (a skewed popularity over ``n`` items)."""
    return rng.permutation(1.0 / np.arange(1, n + 1) ** a)


class _GroupedSampler:
    """Draw items of a requested group with probability proportional to their weight."""

    def __init__(self, groups: np.ndarray, weights: np.ndarray, n_groups: int) -> None:
        self.order = np.argsort(groups, kind="stable")
        self.cw = np.cumsum(weights[self.order])
        self.bounds = np.searchsorted(groups[self.order], np.arange(n_groups + 1))

    def draw(self, rng: np.random.Generator, groups: np.ndarray) -> np.ndarray:
        """One item per entry of ``groups`` (-1 where a group is empty)."""
        lo_i, hi_i = self.bounds[groups], self.bounds[groups + 1]
        if len(self.order) == 0:
            return np.full(len(groups), -1, np.int64)
        lo = np.where(lo_i > 0, self.cw[np.maximum(lo_i - 1, 0)], 0.0)
        hi = self.cw[np.maximum(hi_i - 1, 0)]
        u = lo + rng.random(len(groups)) * (hi - lo)
        order = np.argsort(u)  # sorted needles make searchsorted ~4x faster (cache-friendly)
        pos = np.empty(len(u), np.int64)
        pos[order] = np.searchsorted(self.cw, u[order], side="right")
        pos = np.clip(pos, lo_i, np.maximum(hi_i - 1, lo_i))
        return np.where(hi_i > lo_i, self.order[np.minimum(pos, len(self.order) - 1)], -1)


def _category_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-category global feature ids, aspect ids and related categories (-1 padded)."""
    C = len(CATEGORIES)
    feats = np.full((C, text.MAX_SLOTS), -1, np.int16)
    asps = np.full((C, text.MAX_ASPECTS), -1, np.int16)
    related = np.zeros((C, 3), np.int16)
    for i, c in enumerate(CATEGORIES):
        feats[i, : len(c.features)] = [text.FEATURE_KEYS.index(f) for f in c.features]
        asps[i, : len(c.aspects)] = [text.ASPECT_KEYS.index(a) for a in c.aspects]
        related[i] = [_CAT_INDEX[c.related[j % len(c.related)]] for j in range(3)]
    return feats, asps, related


def _bitmask(ids: np.ndarray) -> np.ndarray:
    """OR of ``1 << id`` over each row's non-negative ids, as uint64."""
    bits = np.where(ids >= 0, np.left_shift(np.uint64(1), np.maximum(ids, 0).astype(np.uint64)), np.uint64(0))
    return np.bitwise_or.reduce(bits.astype(np.uint64), axis=1)


def _brands(rng: np.random.Generator, n_products: int) -> tuple[np.ndarray, np.ndarray]:
    """Unique invented brand names and their (brand, category) pairs."""
    C = len(CATEGORIES)
    per_tail = len(BRAND_PREFIXES) * len(BRAND_SUFFIXES)
    B = int(np.clip(n_products // 40, C, per_tail * len(BRAND_TAILS)))
    code = rng.choice(per_tail if B <= per_tail else per_tail * len(BRAND_TAILS), B, replace=False)
    pre = np.array(BRAND_PREFIXES, dtype=object)[code % len(BRAND_PREFIXES)]
    suf = np.array(BRAND_SUFFIXES, dtype=object)[(code // len(BRAND_PREFIXES)) % len(BRAND_SUFFIXES)]
    names = pre + suf + np.array(BRAND_TAILS, dtype=object)[code // per_tail]
    primary = rng.permutation(np.arange(B) % C)
    n_extra = rng.choice(3, B, p=[0.5, 0.35, 0.15])
    extra_b = np.repeat(np.arange(B), n_extra)
    pairs = np.unique(np.concatenate([np.arange(B) * C + primary, extra_b * C + rng.integers(0, C, len(extra_b))]))
    return names, pairs


def _edges(
    rng: np.random.Generator, cat: np.ndarray, sampler: _GroupedSampler, related: np.ndarray, mean: float, p_same: float
) -> tuple[np.ndarray, np.ndarray]:
    """Product -> product edges: Poisson out-degree, popular targets in same/related category."""
    n = len(cat)
    src = np.repeat(np.arange(n), rng.poisson(mean, n))
    same = rng.random(len(src)) < p_same
    tcat = np.where(same, cat[src], related[cat[src], rng.integers(0, related.shape[1], len(src))])
    dst = sampler.draw(rng, tcat)
    retry = dst < 0
    dst[retry] = sampler.draw(rng, cat[src[retry]])
    key = unique_sorted(src[dst != src] * np.int64(n) + dst[dst != src])
    return key // n, key % n


# ---------------------------------------------------------------------- generator
def generate_catalogue(
    n_products: int = 1000,
    *,
    seed: int = 0,
    n_queries: int = 100,
    with_text: bool = True,
    max_answers: int = 20,
    progress: Callable[[str], None] | None = None,
) -> CatalogueDataset:
    """Generate a synthetic catalogue SKB, queries and qrels (deterministic in ``seed``).

    Args:
        n_products: number of product nodes (brands scale with it: about one per 40).
        seed: random seed; the same arguments give the same dataset.
        n_queries: number of queries (fewer if the catalogue is too small to vary them).
        with_text: generate ``title``/``description``/``reviews`` (names are always made).
        max_answers: queries with more answers get extra constraints or are dropped.
        progress: called with a stage name as each stage starts.
    """
    if n_products < 1:
        raise InputError("n_products must be at least 1", field="n_products")
    step = progress or (lambda _s: None)
    rng = np.random.default_rng(seed)
    n, C, K = int(n_products), len(CATEGORIES), len(COLORS)
    cat_feats, cat_asps, related = _category_tables()

    step("products")
    cat, color, brand_names, brand, models = _products(rng, n)
    B = len(brand_names)
    feature_ids, title_feature = _features(rng, cat, cat_feats)
    aspect_ids, positive, stars, rating = _reviews(rng, cat, cat_asps)
    base = np.array([c.price for c in CATEGORIES])[cat] * rng.lognormal(0.0, 0.45, n)
    price = np.floor(np.maximum(base, 3.0)) + 0.99

    titles = text.product_titles(brand_names[brand], models, cat, color, title_feature)
    facts = CatalogueFacts(
        n_products=n, n_brands=B, brand_names=brand_names, models=models, titles=titles, cat=cat,
        brand=brand, color=color, feature_ids=feature_ids, feature_bits=_bitmask(feature_ids),
        praise_bits=_bitmask(np.where(positive, aspect_ids, -1)), price=price, rating=rating,
    )
    fields: dict[str, Any] = {}
    if with_text:
        step("text")
        pad = [None] * (B + C + K)
        trng = np.random.default_rng([seed, 1])  # own stream: the graph is the same without text
        desc = text.product_descriptions(trng, brand_names[brand], models, cat, color, feature_ids)
        revs = text.product_reviews(trng, aspect_ids, positive, stars)
        fields = {"title": list(titles) + pad, "description": list(desc) + pad, "reviews": list(revs) + pad}

    step("edges")
    src, rel, dst = _all_edges(rng, facts, related)

    step("skb")
    ids, types, names, attributes = _node_columns(facts)
    config = {
        "generator": GENERATOR, "synthetic": True, "n_products": n, "seed": seed,
        "n_queries": n_queries, "with_text": with_text, "max_answers": max_answers,
    }
    skb = SKB.from_columns(
        ids, types, names, fields=fields, attributes=attributes, edges=(src, rel, dst),
        relations=list(RELATIONS), meta={"source": GENERATOR, "synthetic": True, "seed": seed},
    )
    step("queries")
    queries, qrels = generate_queries(rng, skb, facts, n_queries, max_answers=max_answers)
    return CatalogueDataset(skb, queries, qrels, config)


def _products(
    rng: np.random.Generator, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each product's category, color, brand (brands sell in a few categories) and model name.

    Returns ``(cat, color, brand_names, brand, models)``: ``brand`` indexes ``brand_names``.
    """
    C, K = len(CATEGORIES), len(COLORS)
    cat = rng.choice(C, n, p=(w := _zipf(rng, C, 0.5)) / w.sum()).astype(np.int64)
    color = rng.choice(K, n, p=(w := _zipf(rng, K, 0.7)) / w.sum()).astype(np.int64)
    brand_names, pairs = _brands(rng, n)
    brand_pop = _zipf(rng, len(brand_names), 0.8)
    pair_sampler = _GroupedSampler(pairs % C, brand_pop[pairs // C], C)
    brand = (pairs // C)[pair_sampler.draw(rng, cat)]
    models = np.array(MODEL_WORDS, dtype=object)[rng.integers(0, len(MODEL_WORDS), n)] + np.array(
        MODEL_SUFFIXES, dtype=object
    )[rng.integers(0, len(MODEL_SUFFIXES), n)]
    return cat, color, brand_names, brand, models


def _features(rng: np.random.Generator, cat: np.ndarray, cat_feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each product's features (``[n, MAX_SLOTS]``, -1 = none; at least one) and title feature."""
    n = len(cat)
    n_feat = (cat_feats >= 0).sum(1)[cat]
    valid = np.arange(text.MAX_SLOTS)[None, :] < n_feat[:, None]
    has = (rng.random((n, text.MAX_SLOTS)) < 0.35) & valid
    none = np.flatnonzero(~has.any(1))
    has[none, (rng.random(len(none)) * n_feat[none]).astype(np.int64)] = True
    feature_ids = np.where(has, cat_feats[cat], -1).astype(np.int16)
    title_feature = np.where(rng.random(n) < 0.6, feature_ids[np.arange(n), has.argmax(1)], -1)
    return feature_ids, title_feature


def _reviews(
    rng: np.random.Generator, cat: np.ndarray, cat_asps: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One to three reviews a product: ``(aspect_ids, positive, stars, rating)``.

    ``aspect_ids`` is ``[n, 3]`` (-1 = no review); the rating is the mean of the stars and a
    prior of 4, with noise, rounded to one decimal in 1..5.
    """
    n = len(cat)
    n_asp = (cat_asps >= 0).sum(1)[cat]
    n_rev = rng.integers(1, 4, n)
    slot = (rng.integers(0, 64, n)[:, None] + np.arange(3)[None, :]) % n_asp[:, None]
    aspect_ids = np.where(np.arange(3)[None, :] < n_rev[:, None], cat_asps[cat[:, None], slot], -1)
    positive = rng.random((n, 3)) < rng.beta(4, 2, n)[:, None]
    stars = np.where(positive, rng.integers(4, 6, (n, 3)), rng.integers(1, 4, (n, 3)))
    used = aspect_ids >= 0
    rating = ((stars * used).sum(1) + 4.0) / (n_rev + 1) + rng.normal(0, 0.2, n)
    rating = np.round(np.clip(rating, 1.0, 5.0), 1)
    return aspect_ids, positive, stars, rating


def _all_edges(
    rng: np.random.Generator, facts: CatalogueFacts, related: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(src, rel, dst)`` of every edge: product -> brand/category/color, then the
    ``also_bought`` and ``also_viewed`` product -> product edges (node rows as in
    :func:`_node_columns`; ``rel`` indexes :data:`RELATIONS`)."""
    n, B, C = facts.n_products, facts.n_brands, len(CATEGORIES)
    cat = facts.cat
    pop = rng.pareto(1.5, n) + 1.0
    sampler = _GroupedSampler(cat, pop, C)
    ab_src, ab_dst = _edges(rng, cat, sampler, related, 3.0, 0.4)
    av_src, av_dst = _edges(rng, cat, sampler, related, 4.0, 0.85)
    prod = np.arange(n)
    src = np.concatenate([prod, prod, prod, ab_src, av_src])
    dst = np.concatenate([n + facts.brand, n + B + cat, n + B + C + facts.color, ab_dst, av_dst])
    rel = np.repeat(np.arange(5, dtype=np.int16), [n, n, n, len(ab_src), len(av_src)])
    return src, rel, dst


def _node_columns(facts: CatalogueFacts) -> tuple[list[str], list[str], list[str], dict[str, pa.Array]]:
    """``(ids, types, names, attributes)`` of the nodes: products, brands, categories, colors."""
    n, B, C, K = facts.n_products, facts.n_brands, len(CATEGORIES), len(COLORS)
    ids = [f"p{i}" for i in range(n)]
    ids += ["brand:" + b.replace(" & ", "-").replace(" ", "-") for b in facts.brand_names]
    ids += [f"category:{c.key}" for c in CATEGORIES] + [f"color:{k}" for k in COLORS]
    types = ["product"] * n + ["brand"] * B + ["category"] * C + ["color"] * K
    names = (list(facts.titles) + list(facts.brand_names)
             + [c.key.replace("-", " ").title() for c in CATEGORIES] + list(COLORS))
    null = np.concatenate([np.zeros(n, bool), np.ones(B + C + K, bool)])
    pad_f = np.zeros(B + C + K)
    attributes = {
        "price": pa.array(np.concatenate([facts.price, pad_f]), mask=null),
        "rating": pa.array(np.concatenate([facts.rating, pad_f]), mask=null),
    }
    return ids, types, names, attributes
