"""Property (issue 25): after random sequences of upserts and deletions, every index that
follows the SKB answers exactly as a full build of the final data does.

The base is the shop SKB of ``tests/retrieve/graph/kg_fixtures.py``, with the default BM25 index
(relation lines: a node's document lists its neighbours' names, so a renamed or deleted
neighbour changes it), a plain BM25 index (no relation lines) and a dense index,
the name index and a ``graph`` model fitted *before* any update. Each example applies 1-3 random updates
(``skb kb update`` semantics) and compares ``bm25``, ``dense`` (MiniLM on CPU), their
``where`` filters and the fitted ``graph`` stage (ids and scores, to 1e-6) with a from-scratch build of the final records.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "retrieve" / "graph"))
from kg_fixtures import ALSO_BOUGHT, BRANDS, CATEGORIES, PRODUCTS, shop_queries  # noqa: E402
from live_data import apply, build, write_jsonl  # noqa: E402

from skbsearch.core.types import Query  # noqa: E402
from skbsearch.index.dense import DenseIndex  # noqa: E402
from skbsearch.index.live import catch_up  # noqa: E402
from skbsearch.index.sparse import BM25Index  # noqa: E402
from skbsearch.kb import SKB  # noqa: E402
from skbsearch.kb.update import update  # noqa: E402
from skbsearch.stages import fit, pipeline  # noqa: E402
from skbsearch.stages.context import StageContext  # noqa: E402

NODES = ([{"id": f"brand:{b}", "type": "brand", "name": n} for b, n in BRANDS.items()]
         + [{"id": f"cat:{c}", "type": "category", "name": n} for c, (n, _) in CATEGORIES.items()]
         + [{"id": p, "type": "product", "name": v[0], "description": v[3], "price": v[4], "rating": v[5]}
            for p, v in PRODUCTS.items()])
EDGES = ([{"source": p, "relation": "has_brand", "target": f"brand:{v[1]}"} for p, v in PRODUCTS.items()]
         + [{"source": p, "relation": "has_category", "target": f"cat:{v[2]}"} for p, v in PRODUCTS.items()]
         + [{"source": a, "relation": "also_bought", "target": c} for a, c in ALSO_BOUGHT])
QUERIES = [Query("a", "acme mugs"), Query("b", "ceramic cup dishwasher safe"),
           Query("c", "waterproof leather boots by Zenith"), Query("d", "what do people buy with the Acme Ridge Boot"),
           Query("e", "red rubber trail shoes")]
SPECS = ["dense(k=100)", "dense(k=100, where='price >= 40')", "bm25(k=100)", "bm25(k=100, where='price < 50')", "bm25(k=100, where='rating >= 4 AND price > 20')"]
WORDS = ["red", "ceramic", "cup", "boots", "leather", "trail", "waterproof", "mug", "winter", "rubber", "steel"]
PIDS = [f"p{i}" for i in range(1, 15)]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(SKB dir with bm25 + name indexes, fitted graph model dir), built once."""
    root = tmp_path_factory.mktemp("live")
    build(root / "src", NODES, EDGES, root / "kb")
    skb = SKB.load(root / "kb")
    BM25Index.default_for_skb(skb).save(root / "kb" / "indexes" / "bm25")
    BM25Index.from_skb(skb).save(root / "kb" / "plain-bm25")
    DenseIndex.from_skb(skb).save(root / "kb" / "indexes" / "dense")
    queries, qrels = shop_queries()
    p = pipeline("graph(k=100)", StageContext(skb, notify=lambda m: None))
    fit(p, queries, qrels)
    p.save_model(root / "model")
    return root / "kb", root / "model"


def _answers(skb_dir: Path, model: Path) -> dict[str, dict[str, dict[str, float]]]:
    ctx = StageContext(SKB.load(skb_dir), notify=lambda m: None)
    out = {spec: dict(pipeline(spec, ctx)(QUERIES)) for spec in SPECS}
    out["graph"] = dict(pipeline(f"graph(k=100, model='{model}')", ctx)(QUERIES))
    return out


def _same(live: dict, ref: dict) -> None:
    for spec in ref:
        for qid in ref[spec]:
            a, b = live[spec][qid], ref[spec][qid]
            assert set(a) == set(b), (spec, qid)
            assert all(abs(a[d] - b[d]) <= 1e-6 for d in b), (spec, qid, a, b)


product = st.builds(
    lambda pid, brand, cat, words, price, rating: {
        "id": pid, "type": "product", "name": f"{BRANDS[brand]} {words[0].title()} {CATEGORIES[cat][1]}",
        "description": " ".join(words), "price": price, "rating": rating, "_brand": brand, "_cat": cat},
    st.sampled_from(PIDS), st.sampled_from(sorted(BRANDS)), st.sampled_from(sorted(CATEGORIES)),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=5), st.integers(5, 150), st.sampled_from([3.0, 4.5]))
step = st.fixed_dictionaries({
    "upsert": st.lists(product, max_size=3, unique_by=lambda r: r["id"]),
    "delete": st.lists(st.sampled_from(PIDS), max_size=2, unique=True),
    "also": st.lists(st.tuples(st.sampled_from(PIDS), st.sampled_from(PIDS)), max_size=2),
    "unlink": st.lists(st.integers(0, 1000), max_size=2)})


def _valid(step: dict, nodes: list[dict], edges: list[dict]) -> dict:
    """Drop the parts of a random step that ``skb kb update`` would reject."""
    ids = {n["id"] for n in nodes}
    delete = [d for d in step["delete"] if d in ids and d not in {u["id"] for u in step["upsert"]}]
    upsert = [{k: v for k, v in u.items() if not k.startswith("_")} for u in step["upsert"]]
    final = (ids - set(delete)) | {u["id"] for u in upsert}
    add = [{"source": u["id"], "relation": "has_brand", "target": f"brand:{u['_brand']}"}
           for u in step["upsert"] if u["id"] not in ids]
    add += [{"source": a, "relation": "also_bought", "target": c} for a, c in step["also"]
            if a in final and c in final]
    unlink = list({(e["source"], e["relation"], e["target"]): e for e in
                   (edges[i % len(edges)] for i in step["unlink"] if edges)}.values())
    return {"upsert": upsert, "delete": delete, "add": add, "unlink": unlink}


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # no shrinking: the notes show the steps
@given(steps=st.lists(step, min_size=1, max_size=3))
def test_indexes_follow_updates_exactly(base: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory,
                                        steps: list[dict]) -> None:
    skb_dir, model = base
    work = tmp_path_factory.mktemp("ex")
    live = work / "kb"
    shutil.copytree(skb_dir, live)
    nodes, edges = NODES, EDGES
    for k, raw in enumerate(steps):
        s = _valid(raw, nodes, edges)
        note(f"update {k}: {s}")
        files: dict[str, Path] = {}
        if s["upsert"]:
            files["nodes"] = write_jsonl(work / f"n{k}.jsonl", s["upsert"])
        if s["add"]:
            files["edges"] = write_jsonl(work / f"e{k}.jsonl", s["add"])
        if s["unlink"]:
            files["delete_edges"] = write_jsonl(work / f"x{k}.jsonl", s["unlink"])
        if s["delete"]:
            (work / f"d{k}.txt").write_text("".join(d + "\n" for d in s["delete"]), encoding="utf-8")
            files["delete_nodes"] = work / f"d{k}.txt"
        update(live, **files)
        nodes, edges = apply(nodes, edges, upsert=s["upsert"], add_edges=s["add"],
                             delete_nodes=s["delete"], delete_edges=s["unlink"])
    ref = work / "ref"
    build(work / "final", nodes, edges, ref)
    BM25Index.default_for_skb(SKB.load(ref)).save(ref / "indexes" / "bm25")
    DenseIndex.from_skb(SKB.load(ref)).save(ref / "indexes" / "dense")
    _same(_answers(live, model), _answers(ref, model))
    plain = catch_up(BM25Index.load(live / "plain-bm25"), SKB.load(live))
    _same(_plain(plain), _plain(BM25Index.from_skb(SKB.load(ref))))


def _plain(index: BM25Index) -> dict[str, dict[str, dict[str, float]]]:
    """The plain index's answers to the queries: ``{"plain": {query: {id: score}}}``."""
    out = {}
    for q in QUERIES:
        rows, scores = index.top_rows(index.tokenize([q.text])[0], 100)
        out[q.id] = {index.doc_ids[int(r)]: float(s) for r, s in zip(rows, scores, strict=True)}
    return {"plain": out}
