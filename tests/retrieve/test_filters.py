"""Hard filters: node types and SQL predicates return only matching nodes, for any k."""

from __future__ import annotations

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.retrieve.filters import NodeFilter, parse_types
from skbsearch.retrieve.sparse import BM25Retriever

WORDS = "waterproof running hiking shoes boots jacket steel pot pasta red blue light".split()


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> SKB:
    rng = np.random.default_rng(7)
    n = 200
    types = np.where(np.arange(n) % 4 == 0, "brand", "product").tolist()
    names = [f"Item {i}" for i in range(n)]
    desc = [" ".join(rng.choice(WORDS, size=rng.integers(1, 8))) for _ in range(n)]
    price = [None if t == "brand" else float(rng.integers(5, 100)) for t in types]
    skb = SKB.from_columns([f"n{i}" for i in range(n)], types, names,
                           fields={"description": desc}, attributes={"price": price})
    skb.save(tmp_path_factory.mktemp("skb") / "shop")
    return SKB.load(skb.path)


@pytest.fixture(scope="module")
def index(shop) -> BM25Index:
    return BM25Index.from_skb(shop)


def _truth(shop: SKB, index: BM25Index, text: str, allowed: set[str]) -> dict[str, float]:
    toks = index.tokenize([text])[0]
    s = index.score_docs(toks, np.arange(index.num_docs))
    return {index.doc_ids[i]: float(s[i]) for i in np.flatnonzero(s > 0)
            if index.doc_ids[i] in allowed}


def _allowed(shop: SKB, types=(), where=None) -> set[str]:
    clause = [f"({where})"] if where else []
    if types:
        clause.append("type IN (" + ", ".join(f"'{t}'" for t in types) + ")")
    sql = "SELECT id FROM nodes" + (" WHERE " + " AND ".join(clause) if clause else "")
    return set(shop.sql(sql).column("id").to_pylist())


CASES = [
    ((), None),
    (("product",), None),
    (("brand",), None),
    ((), "price < 20"),
    (("product",), "price BETWEEN 30 AND 40"),
    (("product",), "price < 0"),  # nothing passes
]


@pytest.mark.parametrize(("types", "where"), CASES)
@pytest.mark.parametrize("k", [1, 3, 10, 1000])
def test_filtered_results_are_exact(shop, index, types, where, k):
    allowed = _allowed(shop, types, where)
    r = BM25Retriever(index, k=k, filter=NodeFilter(types, where), skb=shop, backend="numpy")
    for text in ["waterproof boots", "pasta", "red light jacket", "nothingmatches"]:
        got = dict(r.search(text, k=k))
        truth = _truth(shop, index, text, allowed)
        assert set(got) <= allowed
        assert all(v > 0 for v in got.values())
        assert len(got) == min(k, len(truth))
        for d, v in got.items():
            assert truth[d] == pytest.approx(v, rel=1e-6)
        rest = [v for d, v in truth.items() if d not in got]
        if got and rest:
            assert max(rest) <= min(got.values()) + 1e-6


def test_filter_loads_skb_from_index_source(shop, index):
    r = BM25Retriever(index, k=50, filter=NodeFilter(("brand",)))
    hits = r.search("boots", k=50)
    assert hits and all(shop.node(d).type == "brand" for d, _ in hits)


def test_filter_needs_an_skb_for_text_indexes():
    index = BM25Index.from_texts([("a", "boots")])
    with pytest.raises(InputError, match="needs the SKB"):
        BM25Retriever(index, filter=NodeFilter(("brand",))).search("boots")


def test_filter_on_index_with_other_doc_order(shop):
    # an index over a subset of nodes, in reverse order, maps filters by id
    ids = shop.ids[::-2]
    texts = [shop.node(i).fields.get("description", "") for i in ids]
    sub = BM25Index.from_texts(zip(ids, texts, strict=True))
    f = NodeFilter(("product",), "price >= 50")
    mask = f.doc_mask(shop, sub.doc_ids)
    allowed = _allowed(shop, ("product",), "price >= 50")
    assert [d for d, m in zip(sub.doc_ids, mask, strict=True) if m] == [d for d in ids if d in allowed]
    hits = BM25Retriever(sub, k=500, filter=f, skb=shop).search("shoes", k=500)
    assert hits and {d for d, _ in hits} <= allowed


def test_filter_errors_and_parsing(shop):
    with pytest.raises(InputError, match="unknown node type"):
        NodeFilter(("gadget",)).node_indices(shop)
    with pytest.raises(InputError, match="field 'where'.*expected a column or a literal"):
        NodeFilter(where="price <<< 3").node_indices(shop)
    assert parse_types("product, brand") == ("product", "brand")
    assert parse_types(["product", "brand,x", ""]) == ("product", "brand", "x")
    assert NodeFilter(where="  ").is_empty
    assert str(NodeFilter(("product",), "price < 3")) == "type in (product) AND (price < 3)"
    assert len(NodeFilter().node_indices(shop)) == shop.num_nodes


def test_cli_index_and_filtered_search(shop, tmp_path):
    import json

    from typer.testing import CliRunner

    from skbsearch.cli import app

    runner = CliRunner()
    out = tmp_path / "ix"
    res = runner.invoke(app, ["index", str(shop.path), "--out", str(out), "--fields",
                              "name,description", "--field-weights", "description=2", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["num_docs"] == shop.num_nodes
    res = runner.invoke(app, ["search", str(shop.path), "waterproof boots", "-k", "500",
                              "--index", str(out), "--type", "product", "--where", "price < 20",
                              "--json"])
    assert res.exit_code == 0, res.output
    results = json.loads(res.stdout)["results"]
    allowed = _allowed(shop, ("product",), "price < 20")
    assert results and {r["id"] for r in results} <= allowed
    assert [r["rank"] for r in results] == list(range(1, len(results) + 1))
    assert all(r["score"] > 0 and r["evidence"] and r["type"] == "product" for r in results)
    res = runner.invoke(app, ["search", str(shop.path), "boots", "--index", str(out),
                              "--type", "gadget"])
    assert res.exit_code == 2 and "unknown node type" in res.output
