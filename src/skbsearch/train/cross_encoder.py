"""Fine-tune a cross-encoder re-ranker on CPU (:class:`~skbsearch.rerank.cross_encoder.CrossEncoderModel`).

Training data are *judged queries*: a query text with graded passages. Sources:

* ``trecdl:DIR/dl19``: TREC DL judgements (``DIR/dl19_qrels.json``) over the passages of
  ``DIR/dl19_bm25_top100.json`` (unjudged passages are not used);
* ``nq:FILE``: NQ-open oracle questions (``nq-open-oracle.jsonl.gz``), the gold passage
  graded 1 and BM25-hard negatives (other questions' passages that rank high for the
  question but contain none of its answers) graded 0.

Each example is a (query, better passage, worse passage) group; a random passage of
another query stands in when a query has no worse judged passage. The loss is pointwise
BCE on ``grade / max_grade`` plus a pairwise logistic loss ``softplus(s_worse - s_better)``.
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

import bm25s

from skbsearch.datasets.nq import read_nq_open
from skbsearch.datasets.trecdl import load_trecdl
from skbsearch.errors import InputError
from skbsearch.rerank.cross_encoder import CrossEncoderModel


@dataclass
class JudgedQuery:
    """A training query: its text and ``(passage text, grade)`` judgements."""

    id: str
    text: str
    judged: list[tuple[str, int]]
    max_grade: int = 1
    source: str = ""


@dataclass
class TrainConfig:
    """Optimisation settings (defaults sized for 2 shared CPU cores)."""

    epochs: int = 1
    max_steps: int | None = None
    batch_size: int = 16
    lr: float = 5e-5
    warmup: float = 0.1
    weight_decay: float = 0.01
    pairwise_weight: float = 1.0
    time_budget_s: float | None = None
    seed: int = 0
    threads: int | None = None

    def __post_init__(self) -> None:
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


# ---------------------------------------------------------------------- data sources
def load_trecdl_queries(prefix: str | Path, query_ids: set[str] | None = None) -> list[JudgedQuery]:
    """Judged queries of a TREC DL year: ``prefix`` is ``DIR/dl19`` (reads ``DIR/dl19_*.json``)."""
    p = Path(prefix)
    data = load_trecdl(p.parent, p.name)
    out = []
    for q in data.queries:
        if query_ids is not None and q.id not in query_ids:
            continue
        judged = [(data.doc_text[d], g) for d, g in data.qrels.get(q.id, {}).items()
                  if d in data.doc_text]
        if judged:
            out.append(JudgedQuery(q.id, q.text, judged, max_grade=3, source=f"trecdl:{p.name}"))
    return out


def load_nq_queries(path: str | Path, hard_negatives: int = 3, limit: int | None = None,
                    seed: int = 0) -> list[JudgedQuery]:
    """NQ-open oracle questions with their gold passage and BM25-hard negatives."""
    rows = [{"q": r.question, "a": list(r.answers), "p": r.passage}
            for r in read_nq_open(path, limit=limit, seed=seed)]
    passages = [r["p"] for r in rows]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(passages, stopwords="en", show_progress=False), show_progress=False)
    k = min(len(passages), hard_negatives + 6)
    docs, _ = retriever.retrieve(bm25s.tokenize([r["q"] for r in rows], stopwords="en",
                                                show_progress=False), k=k, show_progress=False)
    out = []
    for i, r in enumerate(rows):
        negs = []
        for j in docs[i]:
            j = int(j)
            text = passages[j].lower()
            if j != i and not any(a and a in text for a in r["a"]):
                negs.append((passages[j], 0))
            if len(negs) >= hard_negatives:
                break
        out.append(JudgedQuery(f"nq{i}", r["q"], [(r["p"], 1), *negs], 1, "nq"))
    return out


def load_data_spec(spec: str, nq_limit: int | None = None, seed: int = 0) -> list[JudgedQuery]:
    """Judged queries from ``trecdl:DIR/dl19`` or ``nq:FILE`` (see the module docstring)."""
    kind, _, where = spec.partition(":")
    if kind == "trecdl" and where:
        return load_trecdl_queries(where)
    if kind == "nq" and where:
        return load_nq_queries(where, limit=nq_limit, seed=seed)
    raise InputError(f"cannot read training data {spec!r}; write trecdl:DIR/dl19 or nq:FILE",
                     field="data")


# ---------------------------------------------------------------------- examples
def make_examples(queries: Sequence[JudgedQuery], rng: random.Random) -> list[tuple[str, str, str, float, float]]:
    """One epoch of ``(query, better, worse, better label, worse label)`` groups.

    Every passage graded above the query's minimum is a ``better`` once, paired with a
    random passage of lower grade (labels are ``grade / max_grade``).
    """
    pool = [p for q in queries for p, _ in q.judged]
    out = []
    for q in queries:
        for text, g in q.judged:
            lower = [(t, h) for t, h in q.judged if h < g]
            if g <= 0 and lower == []:
                continue
            if lower:
                worse, h = rng.choice(lower)
            else:
                worse, h = rng.choice(pool), 0
            out.append((q.text, text, worse, g / q.max_grade, h / q.max_grade))
    rng.shuffle(out)
    return out


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
    opt = torch.optim.AdamW(model.model.parameters(), lr=config.lr,
                            weight_decay=config.weight_decay)
    sched = warmup_linear(opt, total, config.warmup)
    bce = torch.nn.BCEWithLogitsLoss()
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
            labels = torch.tensor([e[3] for e in batch] + [e[4] for e in batch])
            logits = model.forward(qs, ps)
            n = len(batch)
            loss = bce(logits, labels)
            if config.pairwise_weight:
                loss = loss + config.pairwise_weight * torch.nn.functional.softplus(
                    logits[n:] - logits[:n]).mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.model.parameters(), 1.0)
            opt.step()
            sched.step()
            result.steps += 1
            result.examples += 2 * n
            result.losses.append(float(loss.item()))
            if progress is not None:
                progress(result.steps, total, result.losses[-1])
    result.seconds = time.perf_counter() - start
    model.model.eval()
    if out_dir is not None:
        model.info["training"] = {**asdict(config), "steps": result.steps,
                                  "examples": result.examples, "seconds": round(result.seconds, 1),
                                  "stopped_by": result.stopped_by,
                                  "final_loss": _tail_mean(result.losses)}
        model.info.setdefault("data", sorted({q.source for q in queries}))
        result.model_dir = str(model.save(out_dir))
    return result


def _tail_mean(xs: list[float], n: int = 20) -> float:
    tail = xs[-n:]
    return float(sum(tail) / len(tail)) if tail else math.nan
