"""Fine-tune a cross-encoder re-ranker on CPU (:class:`~skbsearch.rerank.cross_encoder.CrossEncoderModel`).

Training data are *judged queries*: a query text with graded passages. Sources:

* ``trecdl:DIR/dl19``: TREC DL judgements (``DIR/dl19_qrels.json``) over the passages of
  ``DIR/dl19_bm25_top100.json`` (unjudged passages are not used);
* ``nq:FILE``: NQ-open oracle questions (``nq-open-oracle.jsonl.gz``), the gold passage
  graded 1 and BM25-hard negatives (other questions' passages that rank high for the
  question but contain none of its answers) graded 0; ``dense_negatives`` adds negatives
  mined the same way with a bi-encoder;
* ``trecdl-candidates:DIR/dl19``: every query's BM25 top-100 passages *without* grades
  (``DIR/dl19_bm25_top100.json`` only; no judgements are read). Such passages train only
  through a teacher's scores (distillation), so they need ``teacher``.

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

import bm25s
import numpy as np

from skbsearch.core.errors import InputError
from skbsearch.datasets.nq import read_nq_open
from skbsearch.datasets.trecdl import load_trecdl, read_trecdl_candidates
from skbsearch.rerank.cross_encoder import CrossEncoderModel
from skbsearch.train.amp import AmpTrainer


@dataclass
class JudgedQuery:
    """A training query: its text and ``(passage text, grade)`` judgements.

    ``unjudged`` passages have no grade and train only by distillation; ``teacher`` maps
    a passage text (judged or not) to a teacher's score (see :func:`add_teacher_scores`).
    """

    id: str
    text: str
    judged: list[tuple[str, int]]
    max_grade: int = 1
    source: str = ""
    unjudged: list[str] = field(default_factory=list)
    teacher: dict[str, float] | None = None

    def passages(self) -> list[str]:
        """Every passage of the query, judged first."""
        return [p for p, _ in self.judged] + self.unjudged


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


def load_trecdl_candidates(prefix: str | Path,
                           query_ids: set[str] | None = None) -> list[JudgedQuery]:
    """Every query's BM25 candidates of a TREC DL year as *unjudged* passages (no qrels read).

    ``prefix`` is ``DIR/dl19`` (reads ``DIR/dl19_bm25_top100.json`` only). The queries
    train only by distillation: give them teacher scores (:func:`add_teacher_scores`).
    """
    p = Path(prefix)
    queries, run, texts = read_trecdl_candidates(p.parent, p.name)
    out = []
    for q in queries:
        if query_ids is not None and q.id not in query_ids:
            continue
        passages = [texts[d] for d in run.get(q.id, {}) if d in texts]
        if passages:
            out.append(JudgedQuery(q.id, q.text, [], max_grade=1,
                                   source=f"trecdl-candidates:{p.name}", unjudged=passages))
    return out


def _mine_negatives(ranked: Sequence[Sequence[int]], rows: list[dict[str, Any]],
                    n: int) -> list[list[int]]:
    """Per question, the first ``n`` ranked passages (not its own) without any of its answers."""
    out = []
    for i, r in enumerate(rows):
        negs: list[int] = []
        for j in ranked[i]:
            j = int(j)
            text = rows[j]["p"].lower()
            if j != i and not any(a and a in text for a in r["a"]):
                negs.append(j)
            if len(negs) >= n:
                break
        out.append(negs)
    return out


def load_nq_queries(path: str | Path, hard_negatives: int = 3, limit: int | None = None,
                    seed: int = 0, dense_negatives: int = 0,
                    encoder: Any = None) -> list[JudgedQuery]:
    """NQ-open oracle questions with their gold passage and hard negatives (grade 0).

    ``hard_negatives`` come from BM25 over the other questions' passages;
    ``dense_negatives`` more from the bi-encoder ``encoder`` (a registry name or an
    :class:`~skbsearch.encoders.registry.Encoder`; default the packaged MiniLM) over the
    same passages, skipping those BM25 already gave. A negative never contains an answer.
    """
    rows = [{"q": r.question, "a": [a.lower() for a in r.answers], "p": r.passage}
            for r in read_nq_open(path, limit=limit, seed=seed)]
    passages = [r["p"] for r in rows]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(passages, stopwords="en", show_progress=False), show_progress=False)
    k = min(len(passages), hard_negatives + 6)
    docs, _ = retriever.retrieve(bm25s.tokenize([r["q"] for r in rows], stopwords="en",
                                                show_progress=False), k=k, show_progress=False)
    negs = _mine_negatives(docs, rows, hard_negatives)
    if dense_negatives > 0:
        q_emb, p_emb = _encode([r["q"] for r in rows], passages, encoder)
        k = min(len(passages), hard_negatives + dense_negatives + 6)
        sims = q_emb @ p_emb.T
        ranked = np.argsort(-sims, axis=1, kind="stable")[:, :k]
        ranked = [[j for j in ranked[i] if j not in seen]
                  for i, seen in enumerate(set(n) for n in negs)]
        negs = [a + b for a, b in zip(negs, _mine_negatives(ranked, rows, dense_negatives),
                                      strict=True)]
    return [JudgedQuery(f"nq{i}", r["q"], [(r["p"], 1), *((passages[j], 0) for j in negs[i])],
                        1, "nq") for i, r in enumerate(rows)]


def load_data_spec(spec: str, nq_limit: int | None = None, seed: int = 0,
                   dense_negatives: int = 0, encoder: Any = None) -> list[JudgedQuery]:
    """Judged queries from ``trecdl:DIR/dl19``, ``trecdl-candidates:DIR/dl19`` or ``nq:FILE``
    (see the module docstring); ``dense_negatives`` and ``encoder`` apply to NQ."""
    kind, _, where = spec.partition(":")
    if kind == "trecdl" and where:
        return load_trecdl_queries(where)
    if kind == "trecdl-candidates" and where:
        return load_trecdl_candidates(where)
    if kind == "nq" and where:
        return load_nq_queries(where, limit=nq_limit, seed=seed,
                               dense_negatives=dense_negatives, encoder=encoder)
    raise InputError(f"cannot read training data {spec!r}; write trecdl:DIR/dl19, "
                     "trecdl-candidates:DIR/dl19 or nq:FILE", field="data")


# ---------------------------------------------------------------------- teacher
def _encode(queries: Sequence[str], passages: Sequence[str],
            encoder: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors of ``queries`` and ``passages`` (cached under the default embedding cache)."""
    from skbsearch.encoders.cache import default_cache_dir, encode_texts
    from skbsearch.encoders.registry import load_encoder

    enc = load_encoder(encoder)
    cache = default_cache_dir()
    return (encode_texts(enc, list(queries), cache), encode_texts(enc, list(passages), cache))


def add_teacher_scores(queries: Sequence[JudgedQuery], encoder: Any = None) -> None:
    """Set every query's ``teacher``: the cosine of the bi-encoder ``encoder`` (a registry
    name or an Encoder; default the packaged MiniLM) between the query and each passage."""
    texts = sorted({p for q in queries for p in q.passages()})
    if not texts:
        return
    index = {t: i for i, t in enumerate(texts)}
    q_emb, p_emb = _encode([q.text for q in queries], texts, encoder)
    for i, q in enumerate(queries):
        rows = [index[p] for p in q.passages()]
        scores = p_emb[rows] @ q_emb[i]
        q.teacher = {p: float(s) for p, s in zip(q.passages(), scores, strict=True)}


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
