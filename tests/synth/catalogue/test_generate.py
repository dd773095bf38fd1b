"""The synthetic catalogue: determinism, schema, qrels re-derived from graph + text (every
vocabulary sentence naming one property: test_vocab.py), I/O, CLI."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from typer.testing import CliRunner

from skbsearch.cli import app
from skbsearch.core.errors import InputError
from skbsearch.synth import CatalogueDataset, generate_catalogue
from skbsearch.synth.catalogue.queries import TEMPLATES
from skbsearch.synth.catalogue.vocab import ASPECTS, FEATURES


@pytest.fixture(scope="module")
def ds() -> CatalogueDataset:
    return generate_catalogue(1500, seed=7, n_queries=120)


def _edge_sets(skb) -> dict[str, set[tuple[str, str]]]:
    ids = skb.ids
    out: dict[str, set[tuple[str, str]]] = {r: set() for r in skb.schema.relations}
    for s, r, d in zip(skb.edge_src.tolist(), skb.edge_rel.tolist(), skb.edge_dst.tolist(), strict=True):
        out[skb.schema.relations[r]].add((ids[s], ids[d]))
    return out


def test_deterministic_in_seed() -> None:
    a = generate_catalogue(300, seed=3, n_queries=20)
    b = generate_catalogue(300, seed=3, n_queries=20)
    c = generate_catalogue(300, seed=4, n_queries=20)
    assert [q.text for q in a.queries] == [q.text for q in b.queries]
    assert a.qrels == b.qrels
    assert a.skb.column("description") == b.skb.column("description")
    assert np.array_equal(a.skb.edge_dst, b.skb.edge_dst)
    assert [q.text for q in a.queries] != [q.text for q in c.queries]


def test_schema_and_structure(ds: CatalogueDataset) -> None:
    skb = ds.skb
    assert skb.type_names == ["brand", "category", "color", "product"]
    assert skb.schema.relations == ["has_brand", "has_category", "has_color", "also_bought", "also_viewed"]
    assert skb.schema.text_fields == ["title", "description", "reviews"]
    assert skb.schema.attributes == {"price": "double", "rating": "double"}
    assert skb.meta["synthetic"] is True
    prods = skb.nodes_of_type("product")
    assert len(prods) == 1500 and skb.ids[0] == "p0"
    assert all(skb.id_of(i).startswith("brand:") for i in skb.nodes_of_type("brand"))
    g = skb.graph
    for rel in ("has_brand", "has_category", "has_color"):
        assert (g.degree(rel)[prods] == 1).all()
        assert skb.schema.relation_roles[rel][0] == "product"
    node = skb.node("p5")
    assert set(node.fields) == {"title", "description", "reviews"}
    assert 1.0 <= node.attributes["rating"] <= 5.0 and node.attributes["price"] > 0
    assert skb.node(int(skb.nodes_of_type("brand")[0])).attributes == {}
    edges = _edge_sets(skb)
    for rel in ("also_bought", "also_viewed"):
        pairs = edges[rel]
        assert len(pairs) == int((skb.edge_rel == skb.schema.relations.index(rel)).sum())  # no duplicates
        assert all(s != d and s.startswith("p") and d.startswith("p") for s, d in pairs)
    indeg = g.degree("also_bought", "in")[prods]
    assert indeg.max() > 8 * max(indeg.mean(), 1)  # popularity skew


def test_qrels_rederived_from_graph_and_text(ds: CatalogueDataset) -> None:
    """Recompute every answer set from edge lists, generated text and attributes."""
    skb = ds.skb
    edges = _edge_sets(skb)
    by_target = {r: {} for r in edges}
    for r, pairs in edges.items():
        for s, d in pairs:
            by_target[r].setdefault(d, set()).add(s)
    out_of = {r: {} for r in edges}
    for r, pairs in edges.items():
        for s, d in pairs:
            out_of[r].setdefault(s, set()).add(d)
    products = [skb.ids[i] for i in skb.nodes_of_type("product")]
    desc = dict(zip(skb.ids, skb.column("description"), strict=True))
    reviews = dict(zip(skb.ids, skb.column("reviews"), strict=True))
    price = dict(zip(skb.ids, skb.column("price"), strict=True))
    rating = dict(zip(skb.ids, skb.column("rating"), strict=True))

    def praised(p: str, aspect: str) -> bool:
        lines = reviews[p].split("\n")
        return any(s in line for line in lines for s in ASPECTS[aspect].praise)

    assert len(ds.queries) == 120
    for q in ds.queries:
        g = q.meta["gold"]
        ok = set(products)
        for key, rel in (("brand", "has_brand"), ("category", "has_category"), ("color", "has_color")):
            if key in g:
                ok &= by_target[rel].get(g[key], set())
        for key in ("also_bought", "also_viewed"):
            if key in g:
                ok &= out_of[key].get(g[key], set())
        if "bought_with_brand" in g:
            makers = by_target["has_brand"].get(g["bought_with_brand"], set())
            ok &= set().union(*(out_of["also_bought"].get(p, set()) for p in makers))
        for f in g.get("feature", []):
            ok = {p for p in ok if any(s in desc[p] for s in FEATURES[f].desc)}
        if "aspect" in g:
            ok = {p for p in ok if praised(p, g["aspect"])}
        if "max_price" in g:
            ok = {p for p in ok if price[p] < g["max_price"]}
        if "min_rating" in g:
            ok = {p for p in ok if rating[p] >= g["min_rating"]}
        assert ok == ds.qrels.relevant(q.id), q
        assert 1 <= len(ok) <= 20 and q.meta["n_answers"] == len(ok)


def test_queries_are_varied_and_paraphrased(ds: CatalogueDataset) -> None:
    templates = {q.meta["template"] for q in ds.queries}
    assert templates == set(TEMPLATES)
    assert len({q.text for q in ds.queries}) == len(ds.queries)
    for q in ds.queries:
        for f in q.meta["gold"].get("feature", []):
            assert not any(s.rstrip(".") in q.text for s in FEATURES[f].desc)
        if "brand" in q.meta["gold"]:
            assert ds.skb.node(q.meta["gold"]["brand"]).name in q.text


def test_bm25_above_chance_not_perfect(ds: CatalogueDataset) -> None:
    bm25s = pytest.importorskip("bm25s")
    skb = ds.skb
    prods = skb.nodes_of_type("product")
    docs = [" ".join([skb.column(f)[i] for f in ("title", "description", "reviews")]) for i in prods]
    ret = bm25s.BM25()
    ret.index(bm25s.tokenize(docs, stopwords="en", show_progress=False), show_progress=False)
    top, _ = ret.retrieve(
        bm25s.tokenize([q.text for q in ds.queries], stopwords="en", show_progress=False), k=1, show_progress=False
    )
    hits = np.mean([skb.ids[prods[top[i, 0]]] in ds.qrels[q.id] for i, q in enumerate(ds.queries)])
    chance = np.mean([len(ds.qrels[q.id]) / len(prods) for q in ds.queries])
    assert hits > 10 * chance
    assert hits < 0.8


def test_without_text_same_graph(ds: CatalogueDataset) -> None:
    bare = generate_catalogue(1500, seed=7, n_queries=120, with_text=False)
    assert bare.skb.schema.text_fields == []
    assert np.array_equal(bare.skb.edge_src, ds.skb.edge_src)
    assert np.array_equal(bare.skb.edge_dst, ds.skb.edge_dst)
    assert bare.skb.column("name") == ds.skb.column("name")
    assert bare.qrels == ds.qrels


def test_save_load_round_trip(ds: CatalogueDataset, tmp_path) -> None:
    out = ds.save(tmp_path / "cat")
    assert ds.skb.path == out / "skb"
    back = CatalogueDataset.load(out)
    assert [(q.id, q.text, q.meta) for q in back.queries] == [(q.id, q.text, q.meta) for q in ds.queries]
    assert back.qrels == ds.qrels
    assert back.config["synthetic"] is True and back.config["seed"] == 7
    assert back.skb.num_nodes == ds.skb.num_nodes and back.skb.num_edges == ds.skb.num_edges
    assert back.skb.node("p9") == ds.skb.node("p9")
    seeds = back.skb.index_of(["p1", "p2"])
    assert np.array_equal(back.skb.graph.follow(seeds, ["has_brand", "has_brand^-1"]),
                          ds.skb.graph.follow(seeds, ["has_brand", "has_brand^-1"]))
    assert isinstance(back.skb.graph._csr["also_bought"][1], np.memmap)


def test_errors(tmp_path) -> None:
    with pytest.raises(InputError):
        generate_catalogue(0)
    with pytest.raises(InputError, match="queries.jsonl"):
        CatalogueDataset.load(tmp_path)
    ds = generate_catalogue(50, seed=1, n_queries=3)
    out = ds.save(tmp_path / "c")
    (out / "queries.jsonl").write_text('{"id": "q0", "text": "x"}\n{"id": "q1"}\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        CatalogueDataset.load(out)
    assert e.value.line == 2 and e.value.field == "text"


def test_cli(tmp_path) -> None:
    runner = CliRunner()
    out = tmp_path / "cat"
    res = runner.invoke(app, ["synth", "catalogue", str(out), "--products", "300", "--queries", "12", "--seed", "5", "--json"])
    assert res.exit_code == 0, res.output
    info = json.loads(res.stdout)
    assert info["nodes"]["product"] == 300 and info["queries"] == 12 and info["synthetic"] is True
    assert (out / "skb" / "meta.json").is_file() and (out / "qrels.trec").is_file()
    again = runner.invoke(app, ["synth", "catalogue", str(out), "--products", "300"])
    assert again.exit_code == 2 and "--force" in again.output
    forced = runner.invoke(app, ["synth", "catalogue", str(out), "--products", "200", "--queries", "5", "--force"])
    assert forced.exit_code == 0 and "product" in forced.output
    assert len(CatalogueDataset.load(out).skb.nodes_of_type("product")) == 200


@pytest.mark.slow
def test_100k_generates_quickly() -> None:
    t = time.perf_counter()
    big = generate_catalogue(100_000, seed=0, n_queries=100)
    assert time.perf_counter() - t < 60
    assert big.skb.num_edges > 8 * 100_000 and len(big.queries) == 100
