"""The MetaQA protocol (:func:`run_metaqa`); see :mod:`skbsearch.benchmarks.metaqa`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
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
from skbsearch.errors import InputError
from skbsearch.retrieve.graph import GraphRetriever
from skbsearch.retrieve.linking import EntityLinker
from skbsearch.retrieve.relpath import RelationPathModel
from skbsearch.stages import parse
from skbsearch.types import Query, Run


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
    progress: Callable[[str, int, int], None] | None = None,
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
    data_dir = Path(data_dir)
    report = progress or (lambda stage, done, total: None)
    t_start = time.perf_counter()
    report("load kb", 0, 1)
    skb = load_kb(data_dir, cache_dir)
    linker = EntityLinker(skb)
    report("load kb", 1, 1)

    def dev_train(hop_list: Sequence[int]) -> list[MetaQAQuestion]:
        out: list[MetaQAQuestion] = []
        for h in hop_list:
            if (data_dir / f"{h}-hop" / "qa_dev.txt").is_file():
                qs = read_split(data_dir, h, "dev")
                out += [q for q in qs if split == "test" or in_train_half(q.text, train_fraction)]
        return out

    available = [h for h in HOPS if (data_dir / f"{h}-hop" / "qa_dev.txt").is_file()]
    models: dict[int, RelationPathModel] = {}
    train_counts: dict[str, int] = {}
    stage_for: dict[int, Callable[[list[Query]], Run]] = {}
    text_stage = make_text_stage(skb, cache_dir, k) if pipeline == "text" else None
    rerank_info: dict[str, object] = {}
    if pipeline == "rerank":
        if link_mode != "brackets":
            raise InputError("the rerank pipeline needs the bracketed topic (--link brackets)", field="link_mode")
        text_stage, rerank_info = rerank_stage(data_dir, split, model_dir, cache_dir=cache_dir,
                                               train_fraction=train_fraction, progress=report, k=k,
                                               graph_weight=graph_weight)
    spec_info: dict[str, object] = {}
    for h in hops:
        if text_stage is not None:
            stage_for[h] = text_stage
            continue
        if spec:
            train = dev_train(available if train_on == "all" else [h])
            if not stage_for or train_on == "hop":
                spec_stage_h, spec_info = spec_stage(skb, linker, pipeline, train, cache_dir=cache_dir,
                                                     brackets=link_mode != "ngram", report=report)
            stage_for[h] = spec_stage_h
            train_counts[f"{h}-hop"] = len(train)
            continue
        train = dev_train(available if train_on == "all" else [h])
        report(f"train relation paths ({len(train)} questions)", 0, 1)
        models[h] = train_path_model(skb, linker, train, cache_dir)
        train_counts[f"{h}-hop"] = len(train)
        if link_mode == "ngram":
            linker_h = EntityLinker(skb).fit_background(q.text for q in train)
        else:
            linker_h = linker
        graph = GraphRetriever(skb, models[h], linker_h, link_mode=link_mode, top_paths=top_paths, k=k,
                               backoff=len(models[h].classes) if backoff else 0)
        if backoff:
            fit_backoff(skb, linker_h, graph, train)
        stage_for[h] = graph
        report(f"train relation paths ({len(train)} questions)", 1, 1)

    groups: dict[str, dict[str, float]] = {}
    latency: dict[str, float] = {}
    counts: dict[str, int] = {}
    all_lat: list[np.ndarray] = []
    weighted: dict[str, float] = {}
    for h in hops:
        qs = read_split(data_dir, h, split)
        if split == "dev":
            qs = [q for q in qs if not in_train_half(q.text, train_fraction)]
        if limit is not None:
            qs = qs[:limit]
        if link_mode == "ngram":  # the stage must not see the topic markup
            qs_in = [MetaQAQuestion(q.id, q.text.replace("[", "").replace("]", ""), q.answers, q.hop, q.qtype) for q in qs]
        else:
            qs_in = qs
        name = f"{h}-hop"
        done = [0]

        def tick(n: int, name: str = name, total: int = len(qs), done: list[int] = done) -> None:
            done[0] += n
            report(f"answer {name}", done[0], total)

        run, lat = run_pipeline(stage_for[h], qs_in, batch_size, tick)
        groups[name] = score_hop(skb, linker, qs, run, models.get(h))
        counts[name] = len(qs)
        if len(lat):
            latency[f"{name}.p50"] = float(np.percentile(lat, 50))
            latency[f"{name}.p95"] = float(np.percentile(lat, 95))
        all_lat.append(lat)
        for m, v in groups[name].items():
            weighted[m] = weighted.get(m, 0.0) + v * len(qs)
    total = sum(counts.values())
    metrics = {m: v / total for m, v in weighted.items()} if total else {}
    lat_all = np.concatenate(all_lat) if all_lat else np.zeros(0)
    if len(lat_all):
        latency["p50"] = float(np.percentile(lat_all, 50))
        latency["p95"] = float(np.percentile(lat_all, 95))
    protocol = (
        f"{split}: relation-path model trained on "
        + ("all dev questions" if split == "test" else f"the {train_fraction:.0%} hash-half of dev")
        + (" of every hop" if train_on == "all" else " of the same hop")
        + ("; scored on the other half" if split == "dev" else f"; scored on qa_{split}.txt")
        + ("; path back-off learned on the same training questions" if backoff else "")
        if pipeline == "graph"
        else f"{split}: pipeline {pipeline} with its trainable stages fitted on the questions and "
        + "answer nodes (no question types) of " + ("all dev questions" if split == "test"
                                                     else f"the {train_fraction:.0%} hash-half of dev")
        + (" of every hop" if train_on == "all" else " of the same hop")
        + ("; scored on the other half" if split == "dev" else f"; scored on qa_{split}.txt")
        if spec
        else f"{split}: BM25 + graph-path candidate triples, contextual re-ranker and relation-path "
        + "model trained on " + ("all dev questions" if split == "test" else "the hash train-half of dev")
        + ", extractive answers" if pipeline == "rerank"
        else f"{split}: BM25 over entity-centric documents (10 triples max), answers = their entities, no training"
        + ("; scored on the dev half not used for training by the graph pipeline" if split == "dev" else "")
    )
    config = {
        "data": str(data_dir), "split": split, "hops": list(hops), "limit": limit,
        "pipeline": pipeline, "train_on": train_on, "link_mode": link_mode,
        "top_paths": top_paths, "k": k, **({"backoff": backoff} if pipeline == "graph" else {}),
        "batch_size": batch_size, "protocol": protocol,
        "n_questions": counts, "n_train": train_counts, **({"reranker": rerank_info} if rerank_info else {}),
        **({"spec": spec_info} if spec_info else {}),
        "kb": {"nodes": skb.num_nodes, "edges": skb.num_edges},
        "seconds": round(time.perf_counter() - t_start, 2),
    }
    return BenchmarkResult("metaqa", config, metrics, groups, latency)
