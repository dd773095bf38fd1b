"""The MetaQA protocol (:func:`run_metaqa`): any pipeline spec, fitted on the training
questions' answers, scored per hop; see :mod:`skbsearch.benchmarks.metaqa`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.benchmarks.metaqa.protocol import (
    HOPS,
    MetaQAQuestion,
    in_train_half,
    load_kb,
    read_split,
    run_pipeline,
    score_hop,
)
from skbsearch.benchmarks.metaqa.spec import spec_stage
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError
from skbsearch.core.types import Query, Run
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph.exact_names import strip_brackets
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.stages import parse

Report = Callable[[str, int, int], None]

#: The default pipeline: the graph stage, fitted on the training questions' answers.
DEFAULT_SPEC = "graph"


@dataclass(frozen=True)
class MetaQASettings:
    """The protocol's settings (see :func:`run_metaqa`), checked on construction."""

    data_dir: Path
    split: str = "dev"
    hops: tuple[int, ...] = HOPS
    limit: int | None = None
    train_on: str = "all"
    brackets: bool = True
    cache_dir: str | Path | None = None
    train_fraction: float = 0.5
    batch_size: int = 1

    def __post_init__(self) -> None:
        if self.split not in ("dev", "test"):
            raise InputError(f"split must be 'dev' or 'test', got {self.split!r}", field="split")
        if self.train_on not in ("all", "hop"):
            raise InputError(f"train_on must be 'all' or 'hop', got {self.train_on!r}", field="train_on")
        bad = [h for h in self.hops if h not in HOPS]
        if bad:
            raise InputError(f"hops must be among {HOPS}, got {bad}", field="hops")
        if self.batch_size < 1:
            raise InputError("batch_size must be >= 1", field="batch_size")


@dataclass
class _Scores:
    """Per-hop metrics, question counts and latency percentiles, and their weighted mean."""

    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    latency: dict[str, float] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)


def run_metaqa(
    data_dir: str | Path,
    spec: str = DEFAULT_SPEC,
    split: str = "dev",
    hops: Sequence[int] = HOPS,
    limit: int | None = None,
    train_on: str = "all",
    *,
    brackets: bool = True,
    cache_dir: str | Path | None = None,
    train_fraction: float = 0.5,
    batch_size: int = 1,
    progress: Report | None = None,
) -> BenchmarkResult:
    """Run the MetaQA protocol with one pipeline spec and return per-hop numbers.

    The pipeline runs on the MetaQA SKB; its trainable stages (the graph stage) are fitted
    on the training questions and their answer nodes only (:mod:`.spec`; no question-type
    labels), cached by spec and training data.

    Args:
        data_dir: the MetaQA folder (``kb.tsv``, ``{h}-hop/qa_*.txt``).
        spec: any pipeline spec (``graph``, ``graph(top_paths=1)``, ``bm25``, ``graph >> llm(...)``).
        split: ``dev`` (fit on one hash half of dev, score the other) or ``test``
            (fit on all of dev, score ``qa_test.txt``).
        hops: which hops to score.
        limit: score at most this many questions per hop.
        train_on: ``all`` (dev questions of every hop in the folder) or ``hop`` (same hop:
            one fitted pipeline per hop).
        brackets: the pipeline sees the ``[topic]`` markup (the standard setting); without,
            the brackets are removed from every question it sees.
        batch_size: questions per pipeline call (latency = call time / batch size).
        progress: ``progress(stage, done, total)`` callback.
    """
    parse(spec)  # a bad spec fails before the KB loads
    s = MetaQASettings(Path(data_dir), split, tuple(hops), limit, train_on, brackets, cache_dir,
                       train_fraction, batch_size)
    report = progress or (lambda stage, done, total: None)
    t_start = time.perf_counter()
    report("load kb", 0, 1)
    skb = load_kb(s.data_dir, cache_dir)
    linker = NameLinker(skb)
    report("load kb", 1, 1)
    stages, info, n_train = _fit_stages(s, skb, linker, spec, report)
    scores = _score_hops(s, skb, linker, stages, report)
    config = {
        "data": str(s.data_dir), "split": split, "hops": list(s.hops), "limit": limit,
        "pipeline": spec, "train_on": train_on, "brackets": brackets, "batch_size": batch_size,
        "protocol": _protocol(s, spec), "n_questions": scores.counts, "n_train": n_train,
        "spec": info, "kb": {"nodes": skb.num_nodes, "edges": skb.num_edges},
        "seconds": round(time.perf_counter() - t_start, 2),
    }
    return BenchmarkResult("metaqa", config, scores.metrics, scores.groups, scores.latency)


def _dev_train(s: MetaQASettings, hop_list: Sequence[int]) -> list[MetaQAQuestion]:
    """The training questions of these hops: the train half of dev (``test``: all of dev)."""
    out: list[MetaQAQuestion] = []
    for h in hop_list:
        if (s.data_dir / f"{h}-hop" / "qa_dev.txt").is_file():
            qs = read_split(s.data_dir, h, "dev")
            out += [q for q in qs if s.split == "test" or in_train_half(q.text, s.train_fraction)]
    return out


def _fit_stages(s: MetaQASettings, skb: SKB, linker: NameLinker, spec: str, report: Report
                ) -> tuple[dict[int, Callable[[list[Query]], Run]], dict[str, Any], dict[str, int]]:
    """The fitted pipeline that answers each hop (one for all hops unless ``train_on='hop'``),
    what to record of it, and the training questions per hop."""
    available = [h for h in HOPS if (s.data_dir / f"{h}-hop" / "qa_dev.txt").is_file()]
    stage_for: dict[int, Callable[[list[Query]], Run]] = {}
    info: dict[str, Any] = {}
    n_train: dict[str, int] = {}
    for h in s.hops:
        train = _dev_train(s, available if s.train_on == "all" else [h])
        n_train[f"{h}-hop"] = len(train)
        if not stage_for or s.train_on == "hop":
            stage, info = spec_stage(skb, linker, spec, train, cache_dir=s.cache_dir,
                                     brackets=s.brackets, report=report)
        stage_for[h] = stage
    return stage_for, info, n_train


def _test_questions(s: MetaQASettings, h: int) -> tuple[list[MetaQAQuestion], list[MetaQAQuestion]]:
    """The hop's scored questions, and the same as the pipeline sees them."""
    qs = read_split(s.data_dir, h, s.split)
    if s.split == "dev":
        qs = [q for q in qs if not in_train_half(q.text, s.train_fraction)]
    if s.limit is not None:
        qs = qs[: s.limit]
    if s.brackets:
        return qs, qs
    return qs, [MetaQAQuestion(q.id, strip_brackets(q.text), q.answers, q.hop, q.qtype) for q in qs]


def _score_hops(s: MetaQASettings, skb: SKB, linker: NameLinker,
                stage_for: dict[int, Callable[[list[Query]], Run]], report: Report) -> _Scores:
    """Answer and score every hop; the overall metrics are means weighted by question count."""
    out = _Scores()
    all_lat: list[np.ndarray] = []
    weighted: dict[str, float] = {}
    for h in s.hops:
        qs, qs_in = _test_questions(s, h)
        name = f"{h}-hop"
        done = [0]

        def tick(n: int, name: str = name, total: int = len(qs), done: list[int] = done) -> None:
            done[0] += n
            report(f"answer {name}", done[0], total)

        run, lat = run_pipeline(stage_for[h], qs_in, s.batch_size, tick)
        out.groups[name] = score_hop(skb, linker, qs, run)
        out.counts[name] = len(qs)
        if len(lat):
            out.latency[f"{name}.p50"] = float(np.percentile(lat, 50))
            out.latency[f"{name}.p95"] = float(np.percentile(lat, 95))
        all_lat.append(lat)
        for m, v in out.groups[name].items():
            weighted[m] = weighted.get(m, 0.0) + v * len(qs)
    total = sum(out.counts.values())
    out.metrics = {m: v / total for m, v in weighted.items()} if total else {}
    lat_all = np.concatenate(all_lat) if all_lat else np.zeros(0)
    if len(lat_all):
        out.latency["p50"] = float(np.percentile(lat_all, 50))
        out.latency["p95"] = float(np.percentile(lat_all, 95))
    return out


def _protocol(s: MetaQASettings, spec: str) -> str:
    """One sentence for the result's config: what was fitted on what, and what was scored."""
    train_part = "all dev questions" if s.split == "test" else f"the {s.train_fraction:.0%} hash-half of dev"
    hop_part = " of every hop" if s.train_on == "all" else " of the same hop"
    scored = "; scored on the other half" if s.split == "dev" else f"; scored on qa_{s.split}.txt"
    markup = "" if s.brackets else "; questions without the [topic] brackets"
    return (f"{s.split}: pipeline {spec} with its trainable stages fitted on the questions and "
            f"answer nodes (no question types) of {train_part}{hop_part}{scored}{markup}")
