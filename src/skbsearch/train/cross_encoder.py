"""Fine-tune a cross-encoder re-ranker on CPU (:class:`~skbsearch.rerank.cross_encoder.CrossEncoderModel`).

Training data are *judged queries* (:mod:`skbsearch.train.judged`: TREC DL judgements, NQ-open
with hard negatives, or unjudged candidates that train only through a teacher).

Each example is a (query, better passage, worse passage) group; a random passage of
another query stands in when a query has no worse judged passage. The loss is pointwise
BCE on ``grade / max_grade`` plus a pairwise logistic loss ``softplus(s_worse - s_better)``.

Distillation (:func:`add_teacher_scores`): a teacher, the bi-encoder by default, scores
every (query, passage) of a query by cosine. Pairs whose two passages both have a
teacher score add ``distill_weight`` times a distillation loss on the student's margin
``s_better - s_worse`` against the teacher's margin ``m = t_better - t_worse`` at
temperature ``T``: ``kl`` is the pair's KL (binary cross-entropy of
``sigmoid(s_better - s_worse)`` against ``sigmoid(m / T)``), ``margin-mse`` is
MarginMSE ``(s_better - s_worse - m / T)^2``. Unjudged passages form extra pairs (each
with a random other passage of its query, ordered by the teacher) that carry only this
loss.
Batches are bucketed by length (less padding); AdamW with linear warm-up and decay;
training stops at ``max_steps``, after ``epochs`` passes, or when ``time_budget_s`` runs out.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from skbsearch.core.errors import InputError
from skbsearch.rerank.cross_encoder import CrossEncoderModel
from skbsearch.train.amp import AmpTrainer
from skbsearch.train.judged import (  # noqa: F401 - re-exported: the training data's names
    JudgedQuery,
    add_teacher_scores,
    load_data_spec,
    load_nq_queries,
    load_trecdl_candidates,
    load_trecdl_queries,
)

#: Distillation losses on the student's pair margin (see the module docstring).
DISTILL_LOSSES = ("kl", "margin-mse")


@dataclass
class TrainConfig:
    """Optimisation settings (defaults sized for 2 shared CPU cores); ``device`` and
    ``precision`` as :func:`skbsearch.core.devices.resolve` (fp16 on a GPU: autocast + GradScaler)."""

    epochs: int = 1
    max_steps: int | None = None
    batch_size: int = 16
    lr: float = 5e-5
    warmup: float = 0.1
    weight_decay: float = 0.01
    pairwise_weight: float = 1.0
    distill_weight: float = 1.0
    distill_loss: str = "kl"
    distill_temperature: float = 0.05
    time_budget_s: float | None = None
    seed: int = 0
    threads: int | None = None
    device: str | None = None
    precision: str | None = None

    def __post_init__(self) -> None:
        if self.distill_loss not in DISTILL_LOSSES:
            raise InputError(f"distill_loss must be one of {', '.join(DISTILL_LOSSES)}",
                             field="distill_loss")
        if self.distill_temperature <= 0:
            raise InputError("distill_temperature must be > 0", field="distill_temperature")
        if self.batch_size < 2 or self.batch_size % 2:
            raise InputError("batch_size must be an even number >= 2 (pairs)", field="batch_size")
        if self.max_steps is not None and self.max_steps < 1:
            raise InputError("max_steps must be >= 1", field="max_steps")


@dataclass
class TrainResult:
    """What training did: steps, examples seen, seconds and the loss curve."""

    steps: int = 0
    examples: int = 0
    seconds: float = 0.0
    stopped_by: str = "epochs"
    losses: list[float] = field(default_factory=list)
    model_dir: str | None = None


# ---------------------------------------------------------------------- examples
Example = tuple[str, str, str, float, float, float]


def make_examples(queries: Sequence[JudgedQuery], rng: random.Random) -> list[Example]:
    """One epoch of ``(query, better, worse, better label, worse label, teacher margin)``.

    Every passage graded above the query's minimum is a ``better`` once, paired with a
    random passage of lower grade (labels are ``grade / max_grade``). Every unjudged
    passage of a query with teacher scores is paired once with a random other passage of
    the query, ordered by the teacher; its labels are NaN (no BCE, no hard pairwise loss).
    The margin is ``teacher[better] - teacher[worse]``, NaN without teacher scores.
    """
    pool = [p for q in queries for p, _ in q.judged] or [p for q in queries for p in q.unjudged]
    nan = math.nan
    out: list[Example] = []
    for q in queries:
        t = q.teacher or {}
        for text, g in q.judged:
            lower = [(p, h) for p, h in q.judged if h < g]
            if g <= 0 and lower == []:
                continue
            if lower:
                worse, h = rng.choice(lower)
            else:
                worse, h = rng.choice(pool), 0
            margin = t[text] - t[worse] if text in t and worse in t else nan
            out.append((q.text, text, worse, g / q.max_grade, h / q.max_grade, margin))
        if not t or not q.unjudged:
            continue
        every = q.passages()
        for text in q.unjudged:
            other = rng.choice(every)
            if other == text:
                continue
            a, b = (text, other) if t[text] >= t[other] else (other, text)
            out.append((q.text, a, b, nan, nan, t[a] - t[b]))
    rng.shuffle(out)
    return out


def pair_losses(logits: Any, batch: Sequence[Example], config: TrainConfig) -> Any:
    """The loss of a batch: ``logits`` are the better passages' then the worse ones'.

    Pointwise BCE on the labelled passages, ``pairwise_weight`` times the pairwise
    logistic loss on the labelled pairs, and ``distill_weight`` times the distillation
    loss on the pairs with a teacher margin (module docstring).
    """
    import torch
    import torch.nn.functional as F

    n = len(batch)
    logits = logits.float()
    labels = torch.tensor([e[3] for e in batch] + [e[4] for e in batch], dtype=logits.dtype,
                          device=logits.device)
    margins = torch.tensor([e[5] for e in batch], dtype=logits.dtype, device=logits.device)
    loss = logits.sum() * 0.0
    known = ~torch.isnan(labels)
    if known.any():
        loss = loss + F.binary_cross_entropy_with_logits(logits[known], labels[known])
    labelled = known[:n] & known[n:]
    diff = logits[:n] - logits[n:]
    if config.pairwise_weight and labelled.any():
        loss = loss + config.pairwise_weight * F.softplus(-diff[labelled]).mean()
    taught = ~torch.isnan(margins)
    if config.distill_weight and taught.any():
        target = margins[taught] / config.distill_temperature
        if config.distill_loss == "kl":
            d = F.binary_cross_entropy_with_logits(diff[taught], torch.sigmoid(target))
        else:
            d = F.mse_loss(diff[taught], target)
        loss = loss + config.distill_weight * d
    return loss


def _batches(examples: list, per_batch: int, rng: random.Random) -> list[list]:
    """Length-bucketed batches: sort windows of 50 batches by length, shuffle batches."""
    batches = []
    window = per_batch * 50
    for s in range(0, len(examples), window):
        chunk = sorted(examples[s : s + window], key=lambda e: len(e[0]) + len(e[1]) + len(e[2]))
        batches.extend(chunk[i : i + per_batch] for i in range(0, len(chunk), per_batch))
    rng.shuffle(batches)
    return batches


# ---------------------------------------------------------------------- training
def warmup_linear(opt: Any, total: int, warmup: float) -> Any:
    """A LambdaLR schedule: linear warm-up over ``warmup`` of ``total`` steps, then linear decay to 0."""
    import torch

    warm = max(1, int(warmup * total))
    return torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm))))


def train_cross_encoder(
    model: CrossEncoderModel,
    queries: Sequence[JudgedQuery],
    config: TrainConfig | None = None,
    *,
    out_dir: str | Path | None = None,
    progress: Callable[[int, int, float], None] | None = None,
) -> TrainResult:
    """Fine-tune ``model`` in place on ``queries``; save it to ``out_dir`` when given.

    ``progress(step, total_steps, loss)`` is called after every optimiser step.
    """
    import torch

    from skbsearch.rerank.gnn_models import torch_threads

    config = config or TrainConfig()
    if not queries:
        raise InputError("no training queries (check the --data sources)", field="data")
    rng = random.Random(config.seed)
    torch.manual_seed(config.seed)
    per_batch = config.batch_size // 2
    epochs = [_batches(make_examples(queries, rng), per_batch, rng) for _ in range(config.epochs)]
    total = sum(len(e) for e in epochs)
    if config.max_steps is not None:
        total = min(total, config.max_steps)
    if total == 0:
        raise InputError("the training data give no (better, worse) passage pairs", field="data")
    amp = AmpTrainer(config.device, config.precision, clip=1.0)
    model.to(amp.spec)
    opt = torch.optim.AdamW(model.model.parameters(), lr=config.lr,
                            weight_decay=config.weight_decay)
    sched = warmup_linear(opt, total, config.warmup)
    result = TrainResult()
    start = time.perf_counter()
    model.model.train()
    with torch_threads(config.threads):
        for batch in (b for e in epochs for b in e):
            if result.steps >= total:
                result.stopped_by = "max_steps"
                break
            if config.time_budget_s is not None and time.perf_counter() - start > config.time_budget_s:
                result.stopped_by = "time_budget"
                break
            qs = [e[0] for e in batch] * 2
            ps = [e[1] for e in batch] + [e[2] for e in batch]
            with amp.autocast():
                logits = model.forward(qs, ps)
            n = len(batch)
            loss = pair_losses(logits, batch, config)
            amp.step(loss, opt, model.model.parameters())
            sched.step()
            result.steps += 1
            result.examples += 2 * n
            result.losses.append(float(loss.item()))
            if progress is not None:
                progress(result.steps, total, result.losses[-1])
    result.seconds = time.perf_counter() - start
    model.model.eval()
    if out_dir is not None:
        model.info["training"] = {**asdict(config), "device": amp.record(), "steps": result.steps,
                                  "examples": result.examples, "seconds": round(result.seconds, 1),
                                  "stopped_by": result.stopped_by,
                                  "final_loss": tail_mean(result.losses)}
        model.info.setdefault("data", sorted({q.source for q in queries}))
        result.model_dir = str(model.save(out_dir))
    return result


def tail_mean(xs: list[float], n: int = 20) -> float:
    """The mean of the last ``n`` values (a training run's final loss); NaN when empty."""
    tail = xs[-n:]
    return float(sum(tail) / len(tail)) if tail else math.nan
