"""Cross-encoder training pairs and losses (train/cross_encoder.py): unjudged pairs ordered
by the teacher, the BCE, hard-pair and distillation parts of the loss."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from skbsearch.core.errors import InputError  # noqa: E402
from skbsearch.train.cross_encoder import (  # noqa: E402
    JudgedQuery,
    TrainConfig,
    make_examples,
    pair_losses,
)


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKB_CACHE_DIR", str(tmp_path / "cache"))  # never the user's cache


def test_unjudged_pairs_are_ordered_by_the_teacher() -> None:
    teacher = {"a": 0.9, "b": 0.5, "c": 0.1, "d": 0.3}
    q = JudgedQuery("1", "q", [("a", 2), ("b", 0)], max_grade=2, unjudged=["c", "d"],
                    teacher=teacher)
    ex = make_examples([q], random.Random(0))
    judged = [e for e in ex if not math.isnan(e[3])]
    assert len(judged) == 1 and judged[0][1:3] == ("a", "b")
    assert judged[0][5] == pytest.approx(0.4)  # labelled pairs carry the teacher margin too
    for _, better, worse, _lb, _lw, margin in ex:
        assert teacher[better] >= teacher[worse]
        assert margin == pytest.approx(teacher[better] - teacher[worse])
    assert all(math.isnan(e[3]) and math.isnan(e[4]) for e in ex if e not in judged)
    # without teacher scores, unjudged passages give no pairs
    assert len(make_examples([JudgedQuery("1", "q", [], unjudged=["c", "d"])],
                             random.Random(0))) == 0


def test_pair_losses_parts() -> None:
    nan = math.nan
    batch = [("q", "a", "b", 1.0, 0.0, 0.2), ("q", "c", "d", nan, nan, 0.1)]
    logits = torch.tensor([2.0, 1.0, -1.0, 0.5])  # better a, c; worse b, d
    cfg = TrainConfig(distill_temperature=0.1)
    F = torch.nn.functional
    bce = F.binary_cross_entropy_with_logits(torch.tensor([2.0, -1.0]), torch.tensor([1.0, 0.0]))
    hard = F.softplus(torch.tensor(-3.0))
    kl = F.binary_cross_entropy_with_logits(torch.tensor([3.0, 0.5]),
                                            torch.sigmoid(torch.tensor([2.0, 1.0])))
    assert float(pair_losses(logits, batch, cfg)) == pytest.approx(float(bce + hard + kl), rel=1e-5)
    mse = F.mse_loss(torch.tensor([3.0, 0.5]), torch.tensor([2.0, 1.0]))
    cfg = TrainConfig(distill_temperature=0.1, distill_loss="margin-mse", distill_weight=0.5)
    assert float(pair_losses(logits, batch, cfg)) == pytest.approx(float(bce + hard + 0.5 * mse),
                                                                   rel=1e-5)
    cfg = TrainConfig(distill_weight=0.0)
    assert float(pair_losses(logits, batch, cfg)) == pytest.approx(float(bce + hard), rel=1e-5)
    # only unlabelled pairs: the distillation loss alone, and it has a gradient
    x = torch.tensor([0.0, 0.0], requires_grad=True)
    loss = pair_losses(x, batch[1:], TrainConfig())
    loss.backward()
    assert x.grad is not None and float(x.grad.abs().sum()) > 0
    with pytest.raises(InputError):
        TrainConfig(distill_loss="bogus")
    with pytest.raises(InputError):
        TrainConfig(distill_temperature=0.0)
