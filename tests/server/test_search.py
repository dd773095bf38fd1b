"""Searching and explaining over HTTP, below the routes (server/search.py): hits with ranks,
names, types and evidence for the first hits only, the single and batch shapes, a node's
rank and the hit above it, a pipeline's unreadable file told without its path, and the
named pipelines warmed when a snapshot loads."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from serving import build_skb

from skbsearch.core.errors import InputError
from skbsearch.server.errors import UnknownNode
from skbsearch.server.pipelines import PipelinePolicy, PipelineRequest
from skbsearch.server.search import explain_node, get_pipeline, run_search, warm_pipelines
from skbsearch.server.snapshot import Snapshot
from skbsearch.synth.catalogue import CatalogueDataset


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Snapshot, CatalogueDataset, Path]:
    root = tmp_path_factory.mktemp("search")
    ds = build_skb(root / "skb", 60, seed=0)
    return Snapshot.load(root / "skb"), ds, root


POLICY = PipelinePolicy()


def test_hits_carry_rank_name_type_and_evidence_for_the_first_only(served) -> None:  # noqa: ANN001
    snap, ds, _ = served
    text = ds.queries[0].text
    out = run_search(snap, POLICY, PipelineRequest("graph", k=4), [text], evidence=3,
                     evidence_budget=2, batch=False)
    assert out["pipeline"] == "graph" and out["retriever"] is None and out["snapshot"] == snap.identity
    hits = out["results"]["hits"]
    assert out["results"]["query"] == text and [h["rank"] for h in hits] == [1, 2, 3, 4]
    for h in hits:
        node = ds.skb.node(h["id"])
        assert (h["name"], h["type"]) == (node.name, node.type) and isinstance(h["score"], float)
    assert [bool(h["evidence"]) for h in hits] == [True, True, False, False]
    assert all(len(h["evidence"]) <= 3 for h in hits)
    none = run_search(snap, POLICY, PipelineRequest("graph", k=2), [text], evidence=0,
                      evidence_budget=10, batch=False)
    assert all(h["evidence"] == [] for h in none["results"]["hits"])


def test_a_batch_answers_a_list_and_the_old_retriever_field_names_itself(served) -> None:  # noqa: ANN001
    snap, ds, _ = served
    texts = [q.text for q in ds.queries[:3]]
    out = run_search(snap, POLICY, PipelineRequest(None, retriever="bm25", k=2), texts, evidence=0,
                     evidence_budget=0, batch=True)
    assert out["retriever"] == "bm25" and out["pipeline"] == "bm25(k=2)"
    assert [r["query"] for r in out["results"]] == texts
    assert all(len(r["hits"]) <= 2 for r in out["results"])


def test_a_pipeline_is_built_once_a_snapshot(served) -> None:  # noqa: ANN001
    snap, _, _ = served
    req = PipelineRequest("bm25 % 3")
    assert get_pipeline(snap, POLICY, req) is get_pipeline(snap, POLICY, PipelineRequest("bm25 % 3"))


def test_explain_gives_the_rank_the_hit_above_and_the_evidence(served) -> None:  # noqa: ANN001
    snap, ds, _ = served
    text = ds.queries[0].text
    top = run_search(snap, POLICY, PipelineRequest("graph", k=3), [text], evidence=0,
                     evidence_budget=0, batch=False)["results"]["hits"]
    out = explain_node(snap, POLICY, PipelineRequest("graph"), text, top[1]["id"], evidence=5)
    assert out["rank"] == 2 and out["score"] == pytest.approx(top[1]["score"])
    assert out["above"]["id"] == top[0]["id"] and out["evidence"]
    assert out["name"] == ds.skb.node(top[1]["id"]).name and out["retrieved"] >= 3
    first = explain_node(snap, POLICY, PipelineRequest("graph"), text, top[0]["id"], evidence=5)
    assert first["rank"] == 1 and first["above"] is None
    with pytest.raises(UnknownNode, match="unknown node id 'no-such-node'"):
        explain_node(snap, POLICY, PipelineRequest("graph"), text, "no-such-node", evidence=5)


def test_a_named_pipelines_unreadable_file_is_told_without_its_path(served) -> None:  # noqa: ANN001
    snap, ds, root = served
    missing = root / "gone.trec"
    policy = PipelinePolicy({"saved": f"run('{missing}')"})
    with pytest.raises(InputError, match="a file named by the pipeline could not be read") as e:
        run_search(snap, policy, PipelineRequest("saved"), ["x"], evidence=0, evidence_budget=0,
                   batch=False)
    assert str(missing) not in str(e.value) and e.value.file is None


def test_warming_builds_every_named_pipeline_and_logs_a_broken_one(served, caplog) -> None:  # noqa: ANN001
    _, _, root = served
    snap = Snapshot.load(root / "skb")
    policy = PipelinePolicy({"saved": f"run('{root / 'gone.trec'}')", "top": "bm25 % 5"})
    with caplog.at_level(logging.WARNING, logger="skbsearch.server"):
        warm_pipelines(snap, policy)
    assert "named pipeline 'saved' could not be prepared" in caplog.text
    named = policy.pipelines(snap.skb.num_edges)
    assert {"bm25", "graph", "top"} <= set(named)
    assert all(PipelineRequest(n).key() in snap.pipelines for n in named if n != "saved")
    assert snap.pipelines.nbytes > 0  # measured: counted in the cache's budget
