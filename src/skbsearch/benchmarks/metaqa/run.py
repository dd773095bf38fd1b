"""The MetaQA protocol (:func:`run_metaqa`); see :mod:`skbsearch.benchmarks.metaqa`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from skbsearch.benchmarks.metaqa.protocol import (
    HOPS,
    MetaQAQuestion,
    fit_backoff,
    in_train_half,
    load_kb,
    make_text_stage,
    read_split,
    run_pipeline,
    score_hop,
    train_path_model,
)
from skbsearch.benchmarks.metaqa.rerank import rerank_stage
from skbsearch.benchmarks.metaqa.spec import is_spec, spec_stage
from skbsearch.benchmarks.result import BenchmarkResult
from skbsearch.core.errors import InputError
from skbsearch.core.types import Query, Run
from skbsearch.kb.store import SKB
from skbsearch.retrieve.graph import GraphRetriever
from skbsearch.retrieve.linking import EntityLinker
from skbsearch.retrieve.relpath import RelationPathModel
from skbsearch.stages import parse

Report = Callable[[str, int, int], None]


@dataclass(frozen=True)
class _Settings:
    """The arguments of one :func:`run_metaqa` call, checked."""

    data_dir: Path
    split: str
    hops: Sequence[int]
    limit: int | None
    pipeline: str
    train_on: str
    spec: bool
    cache_dir: str | Path | None
    link_mode: str
    train_fraction: float
    top_paths: int
    k: int
    batch_size: int
    model_dir: str | Path | None
    graph_weight: float
    backoff: bool


@dataclass
class _Stages:
    """What the training phase hands the scoring phase: a stage per hop and its notes."""

    stage_for: dict[int, Callable[[list[Query]], Run]] = field(default_factory=dict)
    models: dict[int, RelationPathModel] = field(default_factory=dict)
    train_counts: dict[str, int] = field(default_factory=dict)
    rerank_info: dict[str, object] = field(default_factory=dict)
    spec_info: dict[str, object] = field(default_factory=dict)


@dataclass
class _Scores:
    """Per-hop metrics, question counts and latency percentiles, and their weighted mean."""

    groups: dict[str, dict[str, float]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    latency: dict[str, float] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)


def run_metaqa(
    data_dir: str | Path,
    split: str = "dev",
    hops: Sequence[int] = HOPS,
    limit: int | None = None,
    pipeline: str = "graph",
    train_on: str = "all",
    *,
    cache_dir: str | Path | None = None,
    link_mode: str = "brackets",
    train_fraction: float = 0.5,
    top_paths: int = 3,
    k: int = 100,
    batch_size: int = 1,
    progress: Report | None = None,
    model_dir: str | Path | None = None,
    graph_weight: float = 0.0,
    backoff: bool = True,
) -> BenchmarkResult:
    """Run the MetaQA protocol (module docstring) and return per-hop numbers.

    Args:
        data_dir: the MetaQA folder (``kb.tsv``, ``{h}-hop/qa_*.txt``).
        split: ``dev`` (train on one hash half of dev, score the other) or ``test``
            (train on all of dev, score ``qa_test.txt``).
        hops: which hops to score.
        limit: score at most this many questions per hop.
        pipeline: ``graph`` (linking + relation paths), ``text`` (BM25 over
            entity-centric documents; no training), ``rerank``, or any pipeline spec (e.g.
            ``kg``: its trainable stages fit on the training questions' answer nodes,
            :mod:`.spec`).
        train_on: ``all`` (dev questions of every hop in the folder) or ``hop`` (same hop).
        link_mode: ``brackets`` (topic given, the standard setting) or ``ngram``
            (brackets removed; n-gram dictionary linking).
        batch_size: questions per stage call (latency = call time / batch size).
        progress: ``progress(stage, done, total)`` callback.
        model_dir: ``rerank`` pipeline: the triple re-ranker (``skb train triple-reranker``;
            default: trained on first use and cached, see :mod:`.rerank`).
        graph_weight: ``rerank`` pipeline: add ``graph_weight * log(relation-path score)``
            to the re-ranker's logits (0: the re-ranker alone).
        backoff: ``graph`` pipeline: when the predicted path reaches nothing from the topic
            (the KB lacks the fact), follow the paths that answered instead on the training
            questions (:meth:`GraphRetriever.fit_backoff`), then the model's next paths.
    """
    spec = _check_arguments(split, pipeline, train_on, hops)
    s = _Settings(Path(data_dir), split, hops, limit, pipeline, train_on, spec, cache_dir, link_mode,
                  train_fraction, top_paths, k, batch_size, model_dir, graph_weight, backoff)
    report = progress or (lambda stage, done, total: None)
    t_start = time.perf_counter()
    report("load kb", 0, 1)
    skb = load_kb(s.data_dir, cache_dir)
    linker = EntityLinker(skb)
    report("load kb", 1, 1)
    stages = _build_stages(s, skb, linker, report)
    scores = _score_hops(s, skb, linker, stages, report)
    config = {
        "data": str(s.data_dir), "split": split, "hops": list(hops), "limit": limit,
        "pipeline": pipeline, "train_on": train_on, "link_mode": link_mode,
        "top_paths": top_paths, "k": k, **({"backoff": backoff} if pipeline == "graph" else {}),
        "batch_size": batch_size, "protocol": _protocol(s),
        "n_questions": scores.counts, "n_train": stages.train_counts,
        **({"reranker": stages.rerank_info} if stages.rerank_info else {}),
        **({"spec": stages.spec_info} if stages.spec_info else {}),
        "kb": {"nodes": skb.num_nodes, "edges": skb.num_edges},
        "seconds": round(time.perf_counter() - t_start, 2),
    }
    return BenchmarkResult("metaqa", config, scores.metrics, scores.groups, scores.latency)


def _check_arguments(split: str, pipeline: str, train_on: str, hops: Sequence[int]) -> bool:
    """Refuse bad arguments before the KB loads; returns whether ``pipeline`` is a spec."""
    if split not in ("dev", "test"):
        raise InputError(f"split must be 'dev' or 'test', got {split!r}", field="split")
    spec = is_spec(pipeline)  # any registered pipeline, e.g. the general graph stage 'kg'
    if spec:
        parse(pipeline)  # a bad spec fails before the KB loads
    if train_on not in ("all", "hop"):
        raise InputError(f"train_on must be 'all' or 'hop', got {train_on!r}", field="train_on")
    bad = [h for h in hops if h not in HOPS]
    if bad:
        raise InputError(f"hops must be among {HOPS}, got {bad}", field="hops")
    return spec


def _dev_train(s: _Settings, hop_list: Sequence[int]) -> list[MetaQAQuestion]:
    """The training questions of these hops: the train half of dev (``test``: all of dev)."""
    out: list[MetaQAQuestion] = []
    for h in hop_list:
        if (s.data_dir / f"{h}-hop" / "qa_dev.txt").is_file():
            qs = read_split(s.data_dir, h, "dev")
            out += [q for q in qs if s.split == "test" or in_train_half(q.text, s.train_fraction)]
    return out


def _build_stages(s: _Settings, skb: SKB, linker: EntityLinker, report: Report) -> _Stages:
    """Build (and train where the pipeline trains) the stage that answers each hop."""
    available = [h for h in HOPS if (s.data_dir / f"{h}-hop" / "qa_dev.txt").is_file()]
    out = _Stages()
    text_stage = make_text_stage(skb, s.cache_dir, s.k) if s.pipeline == "text" else None
    if s.pipeline == "rerank":
        if s.link_mode != "brackets":
            raise InputError("the rerank pipeline needs the bracketed topic (--link brackets)", field="link_mode")
        text_stage, out.rerank_info = rerank_stage(s.data_dir, s.split, s.model_dir, cache_dir=s.cache_dir,
                                                   train_fraction=s.train_fraction, progress=report, k=s.k,
                                                   graph_weight=s.graph_weight)
    for h in s.hops:
        if text_stage is not None:
            out.stage_for[h] = text_stage
            continue
        train = _dev_train(s, available if s.train_on == "all" else [h])
        out.train_counts[f"{h}-hop"] = len(train)
        if s.spec:
            if not out.stage_for or s.train_on == "hop":
                spec_stage_h, out.spec_info = spec_stage(skb, linker, s.pipeline, train, cache_dir=s.cache_dir,
                                                         brackets=s.link_mode != "ngram", report=report)
            out.stage_for[h] = spec_stage_h
            continue
        report(f"train relation paths ({len(train)} questions)", 0, 1)
        out.stage_for[h], out.models[h] = _graph_stage(s, skb, linker, train)
        report(f"train relation paths ({len(train)} questions)", 1, 1)
    return out


def _graph_stage(s: _Settings, skb: SKB, linker: EntityLinker,
                 train: list[MetaQAQuestion]) -> tuple[GraphRetriever, RelationPathModel]:
    """The ``graph`` pipeline for one hop: a relation-path model trained on ``train``."""
    model = train_path_model(skb, linker, train, s.cache_dir)
    if s.link_mode == "ngram":
        linker_h = EntityLinker(skb).fit_background(q.text for q in train)
    else:
        linker_h = linker
    graph = GraphRetriever(skb, model, linker_h, link_mode=s.link_mode, top_paths=s.top_paths, k=s.k,
                           backoff=len(model.classes) if s.backoff else 0)
    if s.backoff:
        fit_backoff(skb, linker_h, graph, train)
    return graph, model


def _test_questions(s: _Settings, h: int) -> tuple[list[MetaQAQuestion], list[MetaQAQuestion]]:
    """The hop's scored questions, and the same as the stage sees them (no topic markup for ngram)."""
    qs = read_split(s.data_dir, h, s.split)
    if s.split == "dev":
        qs = [q for q in qs if not in_train_half(q.text, s.train_fraction)]
    if s.limit is not None:
        qs = qs[: s.limit]
    if s.link_mode == "ngram":  # the stage must not see the topic markup
        qs_in = [MetaQAQuestion(q.id, q.text.replace("[", "").replace("]", ""), q.answers, q.hop, q.qtype) for q in qs]
    else:
        qs_in = qs
    return qs, qs_in


def _score_hops(s: _Settings, skb: SKB, linker: EntityLinker, stages: _Stages, report: Report) -> _Scores:
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

        run, lat = run_pipeline(stages.stage_for[h], qs_in, s.batch_size, tick)
        out.groups[name] = score_hop(skb, linker, qs, run, stages.models.get(h))
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


def _protocol(s: _Settings) -> str:
    """One sentence for the result's config: what was trained on what, and what was scored."""
    train_part = "all dev questions" if s.split == "test" else f"the {s.train_fraction:.0%} hash-half of dev"
    hop_part = " of every hop" if s.train_on == "all" else " of the same hop"
    scored = "; scored on the other half" if s.split == "dev" else f"; scored on qa_{s.split}.txt"
    if s.pipeline == "graph":
        return (f"{s.split}: relation-path model trained on " + train_part + hop_part + scored
                + ("; path back-off learned on the same training questions" if s.backoff else ""))
    if s.spec:
        return (f"{s.split}: pipeline {s.pipeline} with its trainable stages fitted on the questions and "
                + "answer nodes (no question types) of " + train_part + hop_part + scored)
    if s.pipeline == "rerank":
        return (f"{s.split}: BM25 + graph-path candidate triples, contextual re-ranker and relation-path "
                + "model trained on " + ("all dev questions" if s.split == "test" else "the hash train-half of dev")
                + ", extractive answers")
    return (f"{s.split}: BM25 over entity-centric documents (10 triples max), answers = their entities, no training"
            + ("; scored on the dev half not used for training by the graph pipeline" if s.split == "dev" else ""))
