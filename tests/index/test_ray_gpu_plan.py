"""``skb index --engine ray --kind dense``: GPU actors where the cluster has GPUs, CPU
actors otherwise (the plan from the cluster's resources; no Ray needed)."""

from __future__ import annotations

import pytest

from skbsearch.core.errors import InputError
from skbsearch.index.distributed_dense import plan_actors


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
