"""MetaQA's retrieve -> contextual re-rank -> answer pipeline: components and training.

Protocol: everything trained here (relation-path model of the graph retriever, triple
re-ranker) sees dev questions only. ``scope="half"`` trains on the hash train-half of dev
(:func:`skbsearch.benchmarks.metaqa.protocol.in_train_half`; for ``--split dev``, scored on the
other half); ``scope="all"`` trains on all of dev (for ``--split test``). Test questions
are never read. Models trained on first use are cached under
``cache_root()/metaqa/triple-reranker-<key>``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
from skbsearch.benchmarks.metaqa.protocol import (
    HOPS,
    MetaQAQuestion,
    answer_nodes,
    cache_root,
    content_digest,
    in_train_half,
    load_kb,
    make_text_stage,
    read_split,
    topic_nodes,
    train_path_model,
)
from skbsearch.core.errors import InputError
from skbsearch.kb.store import SKB
from skbsearch.rerank.cross_encoder import CrossEncoderModel
from skbsearch.rerank.triples import TripleRetriever
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.train.triples import (
    KGQAExample,
    TripleTrainConfig,
    make_examples,
    train_triple_reranker,
)

SCOPES = ("half", "all")
Progress = Callable[[str, int, int], None]


def dev_questions(data_dir: str | Path, scope: str, train_fraction: float = 0.5) -> list[MetaQAQuestion]:
    """Dev questions of every hop present: the train half (``half``) or all (``all``)."""
    if scope not in SCOPES:
        raise InputError(f"scope must be one of {SCOPES}, got {scope!r}", field="scope")
    out: list[MetaQAQuestion] = []
    for h in HOPS:
        if (Path(data_dir) / f"{h}-hop" / "qa_dev.txt").is_file():
            out += [q for q in read_split(data_dir, h, "dev")
                    if scope == "all" or in_train_half(q.text, train_fraction)]
    if not out:
        raise InputError("no dev questions found; expected DIR/{h}-hop/qa_dev.txt", file=data_dir)
    return out


def sample_per_hop(questions: Sequence[MetaQAQuestion], n: int | None, seed: int = 0) -> list[MetaQAQuestion]:
    """At most ``n`` questions, split evenly over hops (seeded sample)."""
    if n is None or n >= len(questions):
        return list(questions)
    rng = random.Random(seed)
    hops = sorted({q.hop for q in questions})
    out: list[MetaQAQuestion] = []
    for i, h in enumerate(hops):
        pool = [q for q in questions if q.hop == h]
        want = n // len(hops) + (1 if i < n % len(hops) else 0)
        out += rng.sample(pool, min(want, len(pool)))
    return out


def as_examples(skb: SKB, linker: NameLinker, questions: Sequence[MetaQAQuestion]) -> list[KGQAExample]:
    """Questions with their topic and gold answer nodes (questions without both are dropped)."""
    out = []
    for q in questions:
        t, a = topic_nodes(linker, q.text), answer_nodes(skb, linker, q.answers)
        if t and a:
            out.append(KGQAExample(q.text, tuple(t), tuple(a)))
    return out


class MetaQAComponents:
    """The KB, its entity-centric documents, their BM25 index and a graph retriever."""

    def __init__(self, data_dir: str | Path, scope: str, cache_dir: str | Path | None = None,
                 progress: Progress | None = None, train_fraction: float = 0.5) -> None:
        report = progress or (lambda s, d, t: None)
        report("load kb and documents", 0, 1)
        self.data_dir, self.scope, self.cache_dir = Path(data_dir), scope, cache_dir
        self.skb = load_kb(data_dir, cache_dir)
        self.linker = NameLinker(self.skb)
        text = make_text_stage(self.skb, cache_dir, 10)
        self.documents = list(text.documents.values())
        self.index = text.index
        self.train = dev_questions(data_dir, scope, train_fraction)
        path_model = train_path_model(self.skb, self.linker, self.train, cache_dir)
        self.graph = RelationPathRetriever(self.skb, path_model, self.linker, link_mode="brackets", k=100)
        report("load kb and documents", 1, 1)

    def retriever(self, k_docs: int = 2, k_paths: int = 15) -> Any:
        """A :class:`~skbsearch.rerank.triples.TripleRetriever` over these components."""
        return TripleRetriever(self.skb, self.documents, self.index, self.graph, linker=self.linker,
                               k_docs=k_docs, k_paths=k_paths, link_mode="brackets")


def train_metaqa_reranker(components: MetaQAComponents, out_dir: str | Path, config: TripleTrainConfig,
                          max_questions: int | None = 600, start: str = "minilm",
                          progress: Progress | None = None) -> dict[str, Any]:
    """Train a triple re-ranker on the components' dev questions; returns a summary."""
    report = progress or (lambda s, d, t: None)
    qs = sample_per_hop(components.train, max_questions, config.seed)
    examples_q = as_examples(components.skb, components.linker, qs)
    retriever = components.retriever()
    examples = make_examples(retriever, examples_q, config,
                             progress=lambda d, t: report("label training triples", d, t))
    model = CrossEncoderModel.from_encoder(start, max_length=config.max_length, seed=config.seed)
    model.info["start"] = start
    scope_text = "train hash-half of dev" if components.scope == "half" else "all of dev"
    result = train_triple_reranker(
        model, examples, config, out_dir=out_dir,
        progress=lambda s, t, loss: report(f"training (loss {loss:.3f})", s, t),
        info={"scope": components.scope, "questions": len(examples_q), "data": str(components.data_dir),
              "protocol": f"MetaQA dev questions ({scope_text}), sampled evenly over hops"})
    return {"out": str(out_dir), "scope": components.scope, "labels": config.labels,
            "context": config.context, "questions": len(examples_q), "examples": len(examples),
            "steps": result.steps, "seconds": round(result.seconds, 1), "stopped_by": result.stopped_by,
            "first_loss": result.losses[0] if result.losses else None,
            "final_loss": model.info["training"]["final_loss"]}


def cached_reranker(components: MetaQAComponents, config: TripleTrainConfig, max_questions: int | None = 600,
                    progress: Progress | None = None) -> Path:
    """The directory of a re-ranker for these settings, trained on first use."""
    key = content_digest(json.dumps([components.scope, str(components.data_dir.resolve()), max_questions,
                              sorted(vars(config).items())], default=str).encode())
    target = cache_root(components.cache_dir) / "metaqa" / f"triple-reranker-{key}"
    if not (target / "skb_cross_encoder.json").is_file():
        train_metaqa_reranker(components, target, config, max_questions, progress=progress)
    return target
