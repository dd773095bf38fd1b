"""Train the contextual triple re-ranker on CPU (Sun et al., 2024, sec. 3.2.2).

For each training question, the :class:`~skbsearch.rerank.triples.TripleRetriever`'s
documents plus the inferred gold documents give labelled triples
(:func:`skbsearch.rerank.labels.label_candidates`, ``"triple"`` labels = the paper's,
``"document"`` = the ablation). Up to ``positives`` positive and ``negatives`` negative
triples are sampled a question; each becomes ``(question, triple, context, label)`` and
the model (a :class:`~skbsearch.rerank.cross_encoder.CrossEncoderModel`, from the packaged
MiniLM by default) is fitted with binary cross-entropy (the paper's classification
objective), AdamW with linear warm-up and decay, length-bucketed batches, and an optional
time budget. ``context=False`` trains the no-context ablation on the same examples.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.rerank.cross_encoder import CrossEncoderModel
from skbsearch.rerank.labels import label_candidates
from skbsearch.rerank.triples import INFO_KEY, TripleCandidate, TripleRetriever, triple_inputs
from skbsearch.train.amp import AmpTrainer
from skbsearch.train.cross_encoder import TrainResult, tail_mean, warmup_linear

LABELS = ("triple", "document")


@dataclass(frozen=True)
class KGQAExample:
    """A training question: text (topic may be bracketed), topic and answer node indices."""

    text: str
    topics: tuple[int, ...]
    answers: tuple[int, ...]


@dataclass
class TripleTrainConfig:
    """Labelling, sampling and optimisation settings (sized for a shared 2-core CPU)."""

    labels: str = "triple"
    context: bool = True
    compact_context: bool = True
    positives: int = 2
    negatives: int = 4
    epochs: int = 1
    batch_size: int = 16
    lr: float = 1e-4
    group_loss: float = 1.0
    head_lr: float | None = 2e-3
    warmup: float = 0.1
    weight_decay: float = 0.01
    max_length: int = 96
    time_budget_s: float | None = None
    seed: int = 0
    threads: int | None = 1
    device: str | None = None
    precision: str | None = None

    def __post_init__(self) -> None:
        if self.labels not in LABELS:
            raise InputError(f"labels must be one of {LABELS}, got {self.labels!r}", field="labels")
        if self.positives < 1 or self.negatives < 1:
            raise InputError("positives and negatives must be >= 1", field="positives")
        if self.batch_size < 1:
            raise InputError("batch_size must be >= 1", field="batch_size")


@dataclass(frozen=True)
class TripleExample:
    """One training input: question, triple sentence, context, 0/1 label, question number."""

    question: str
    passage: str
    context: str
    label: int
    group: int = 0


def make_examples(retriever: TripleRetriever, questions: Sequence[KGQAExample],
                  config: TripleTrainConfig, *, batch: int = 64,
                  progress: Callable[[int, int], None] | None = None) -> list[TripleExample]:
    """Labelled, sampled triples of ``questions`` (always with context text; the trainer
    drops it when ``config.context`` is off, so both variants see the same triples)."""
    rng = random.Random(config.seed)
    skb, docs = retriever.skb, retriever.documents
    names = skb.column("name") if config.compact_context else None
    out: list[TripleExample] = []
    for s in range(0, len(questions), batch):
        chunk = list(questions[s : s + batch])
        got = retriever.retrieve([q.text for q in chunk])
        for n, (q, r) in enumerate(zip(chunk, got, strict=True), start=s):
            labelled = label_candidates(skb, docs, r.documents, q.topics, q.answers,
                                        strategy=config.labels, doc_of_edge=retriever.doc_of_edge,
                                        incident=retriever.incident)
            pos = [t for t in labelled if t.label]
            neg = [t for t in labelled if not t.label]
            if not pos or not neg:
                continue
            picked = rng.sample(pos, min(config.positives, len(pos))) + rng.sample(
                neg, min(config.negatives, len(neg)))
            cands = [TripleCandidate(t.edge, t.document, t.position, -1, "train", 0.0) for t in picked]
            qs, ps, cs = triple_inputs(q.text, cands, docs, names)
            out += [TripleExample(a, b, c, t.label, n) for a, b, c, t in zip(qs, ps, cs or [], picked, strict=True)]
        if progress is not None:
            progress(min(s + batch, len(questions)), len(questions))
    return out


def _batches(examples: list[TripleExample], size: int, rng: random.Random) -> list[list[TripleExample]]:
    """Batches of whole questions (a question's triples stay together), in random order."""
    groups: dict[int, list[TripleExample]] = {}
    for e in examples:
        groups.setdefault(e.group, []).append(e)
    keys = list(groups)
    rng.shuffle(keys)
    out: list[list[TripleExample]] = [[]]
    for k in keys:
        if out[-1] and len(out[-1]) + len(groups[k]) > size:
            out.append([])
        out[-1].extend(groups[k])
    return [b for b in out if b]


def _group_loss(torch: Any, logits: Any, batch: Sequence[TripleExample]) -> Any:
    """Mean over the batch's questions of ``-log(sum_pos exp(s) / sum_all exp(s))``."""
    groups = torch.tensor([e.group for e in batch], device=logits.device)
    labels = torch.tensor([bool(e.label) for e in batch], device=logits.device)
    losses = []
    for g in torch.unique(groups):
        m = groups == g
        s, y = logits[m], labels[m]
        if y.any() and (~y).any():
            losses.append(torch.logsumexp(s, 0) - torch.logsumexp(s[y], 0))
    return torch.stack(losses).mean() if losses else logits.sum() * 0.0


def train_triple_reranker(model: CrossEncoderModel, examples: Sequence[TripleExample],
                          config: TripleTrainConfig | None = None, *, out_dir: str | Path | None = None,
                          progress: Callable[[int, int, float], None] | None = None,
                          info: dict[str, Any] | None = None) -> TrainResult:
    """Fine-tune ``model`` in place on ``examples``; save to ``out_dir`` when given.

    The loss is BCE on the 0/1 labels (the paper's classification objective) plus
    ``config.group_loss`` times a listwise term that ranks each question's positive
    triples above its negatives (without it, MiniLM on a 2-core budget tends to settle
    on the label prior before it separates the classes).

    ``progress(step, total_steps, loss)`` is called after every optimiser step.
    """
    import torch

    from skbsearch.rerank.gnn_models import torch_threads

    config = config or TripleTrainConfig()
    if not examples:
        raise InputError("no training triples: the questions gave no positive and negative "
                         "candidates (check the data and the retriever)", field="data")
    rng = random.Random(config.seed)
    torch.manual_seed(config.seed)
    epochs = [_batches(list(examples), config.batch_size, rng) for _ in range(config.epochs)]
    total = sum(len(e) for e in epochs)
    head = [p for n, p in model.model.named_parameters() if n.startswith(("classifier", "bert.pooler"))]
    body = [p for n, p in model.model.named_parameters() if not n.startswith(("classifier", "bert.pooler"))]
    opt = torch.optim.AdamW([{"params": body}, {"params": head, "lr": config.head_lr or config.lr}],
                            lr=config.lr, weight_decay=config.weight_decay)
    sched = warmup_linear(opt, total, config.warmup)
    bce = torch.nn.BCEWithLogitsLoss()
    amp = AmpTrainer(config.device, config.precision, clip=1.0)
    model.to(amp.spec)
    result = TrainResult()
    start = time.perf_counter()
    model.max_length = config.max_length
    model.model.train()
    with torch_threads(config.threads):
        for batch in (b for e in epochs for b in e):
            if config.time_budget_s is not None and time.perf_counter() - start > config.time_budget_s:
                result.stopped_by = "time_budget"
                break
            ctx = [e.context for e in batch] if config.context else None
            with amp.autocast():
                logits = model.forward([e.question for e in batch], [e.passage for e in batch], ctx)
            logits = logits.float()
            loss = bce(logits, torch.tensor([float(e.label) for e in batch], device=logits.device))
            if config.group_loss:
                loss = loss + config.group_loss * _group_loss(torch, logits, batch)
            amp.step(loss, opt, model.model.parameters())
            sched.step()
            result.steps += 1
            result.examples += len(batch)
            result.losses.append(float(loss.item()))
            if progress is not None:
                progress(result.steps, total, result.losses[-1])
    result.seconds = time.perf_counter() - start
    model.model.eval()
    model.info[INFO_KEY] = {"context": config.context, "compact_context": config.compact_context,
                            "labels": config.labels, **(info or {})}
    model.info["training"] = {**asdict(config), "device": amp.record(), "steps": result.steps,
                              "examples": result.examples,
                              "positives_share": float(np.mean([e.label for e in examples])),
                              "seconds": round(result.seconds, 1), "stopped_by": result.stopped_by,
                              "final_loss": tail_mean(result.losses)}
    if out_dir is not None:
        result.model_dir = str(model.save(out_dir))
    return result
