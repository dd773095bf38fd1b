"""MetaQA protocol pieces: reading questions, the cached KB, gold answers, the reachability
ceiling, the relation-path model, per-hop scoring and the text stage.

Shared by :mod:`.run` (the protocol) and :mod:`.rerank` (the re-ranking pipeline); see
:mod:`skbsearch.benchmarks.metaqa` for the layout and the protocol.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from skbsearch.benchmarks.metaqa.paths import RelationPathRetriever
from skbsearch.core.errors import InputError
from skbsearch.core.paths import cache_root as default_cache_root
from skbsearch.core.types import Qrels, Query, Run
from skbsearch.eval.evaluate import evaluate
from skbsearch.kb.loaders.triples import load_triples
from skbsearch.kb.store import SKB
from skbsearch.retrieve.entity_docs import EntityDocumentAnswerer, document_index
from skbsearch.retrieve.graph.exact_names import bracket_mentions
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.graph.relpath import RelationPathModel, accuracy, label_paths
from skbsearch.verbalise import entity_documents

HOPS = (1, 2, 3)
STAGE_METRICS = ["hit@1", "hit@5", "recall@20", "mrr"]


@dataclass(frozen=True)
class MetaQAQuestion:
    """One question: id, text (topic in brackets), gold answer names, hop, qtype."""

    id: str
    text: str
    answers: tuple[str, ...]
    hop: int
    qtype: str | None = None


# ---------------------------------------------------------------------- reading
def read_questions(path: str | Path, hop: int, qtype_path: str | Path | None = None) -> list[MetaQAQuestion]:
    """Read ``qa_*.txt`` (and its qtype file when given) of one hop."""
    path = Path(path)
    if not path.is_file():
        raise InputError("question file not found; expected DIR/{h}-hop/qa_{split}.txt", file=path)
    qtypes: list[str] | None = None
    if qtype_path is not None:
        qtypes = [ln.strip() for ln in Path(qtype_path).read_text(encoding="utf-8").splitlines()]
    out = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        if len(parts) != 2:
            raise InputError(f"expected 'question<TAB>answers', got {len(parts)} columns", file=path, line=n)
        if not bracket_mentions(parts[0]):
            raise InputError("no [topic entity] in the question", file=path, line=n, field="question")
        answers = tuple(a for a in parts[1].split("|") if a)
        if not answers:
            raise InputError("no answers", file=path, line=n, field="answers")
        qtype = None
        if qtypes is not None:
            if n > len(qtypes) or not qtypes[n - 1]:
                raise InputError("no question type for this line", file=qtype_path, line=n)
            qtype = qtypes[n - 1]
        out.append(MetaQAQuestion(f"{hop}hop-{path.stem}-{n}", parts[0], answers, hop, qtype))
    return out


def read_split(data_dir: str | Path, hop: int, split: str) -> list[MetaQAQuestion]:
    """Questions of one hop and split, with qtypes when ``qa_{split}_qtype.txt`` exists."""
    d = Path(data_dir) / f"{hop}-hop"
    qt = d / f"qa_{split}_qtype.txt"
    return read_questions(d / f"qa_{split}.txt", hop, qt if qt.is_file() else None)


def in_train_half(question: str, train_fraction: float = 0.5) -> bool:
    """Deterministic split of dev questions by a hash of their text."""
    h = int.from_bytes(hashlib.sha1(question.encode("utf-8")).digest()[:8], "big")
    return (h % 10_000) < train_fraction * 10_000


# ---------------------------------------------------------------------- caching
def cache_root(cache_dir: str | Path | None = None) -> Path:
    """``cache_dir``, else ``$SKB_CACHE_DIR``, else ``~/.cache/skbsearch``."""
    if cache_dir is not None:
        return Path(cache_dir)
    return default_cache_root()


def content_digest(*parts: bytes) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(p)
        h.update(b"\0")
    return h.hexdigest()[:16]


def load_kb(data_dir: str | Path, cache_dir: str | Path | None = None) -> SKB:
    """The SKB of ``DIR/kb.tsv``, built once and cached by the file's content hash."""
    kb = Path(data_dir) / "kb.tsv"
    if not kb.is_file():
        raise InputError("MetaQA KB not found; expected DIR/kb.tsv", file=kb)
    target = cache_root(cache_dir) / "metaqa" / f"kb-{content_digest(kb.read_bytes())}"
    if (target / "meta.json").is_file():
        return SKB.load(target)
    skb = load_triples(kb, types="metaqa")
    skb.save(target)
    return SKB.load(target)


# ---------------------------------------------------------------------- gold answers
def answer_nodes(skb: SKB, linker: NameLinker, answers: Sequence[str]) -> list[int]:
    """Node indices of gold answer names (exact name, else the normalised name)."""
    out: list[int] = []
    for a in answers:
        cands = linker.lookup(a)
        exact = [c.node for c in cands if c.exact]
        out.extend(exact or [c.node for c in cands])
    return sorted(set(out))


def topic_nodes(linker: NameLinker, question: str) -> list[int]:
    """Nodes named by the bracketed topic mention (exact matches preferred)."""
    out: list[int] = []
    for m in bracket_mentions(question):
        cands = linker.lookup(m)
        out.extend([c.node for c in cands if c.exact] or [c.node for c in cands])
    return out


def path_answers(skb: SKB, topic: Sequence[int], path: Sequence[str]) -> np.ndarray:
    """Nodes a relation path reaches from the topic, walks never passing the topic again."""
    frontier = np.asarray(topic, np.int64)
    for step in path:
        frontier = np.setdiff1d(skb.graph.follow(frontier, [step]), topic)
    return frontier


def reachable(
    skb: SKB, linker: NameLinker, questions: Sequence[MetaQAQuestion], gold: Sequence[list[int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Per question: is a gold answer reachable from the topic (gold path, else h hops)?

    Also returns, for questions with a qtype, the expected Hits@1 of answering with the
    gold path and a uniformly random pick among what it reaches (walks not returning to
    the topic): below 1 when a name stands for several films (remakes) whose facts the
    KB merges, so the reached set mixes gold and non-gold answers. NaN without a qtype.
    """
    out = np.zeros(len(questions), bool)
    top1 = np.full(len(questions), np.nan)
    schema = skb.schema
    for i, (q, g) in enumerate(zip(questions, gold, strict=True)):
        topic = topic_nodes(linker, q.text)
        answers = np.setdiff1d(np.asarray(g, np.int64), topic)
        if q.qtype is not None:
            top1[i] = 0.0
        if not topic or not len(answers):
            continue
        if q.qtype is not None:
            path = label_paths([q.qtype], schema)[0]
            out[i] = bool(np.isin(answers, skb.graph.follow(topic, list(path))).any())
            frontier = path_answers(skb, topic, path)
            if len(frontier):
                top1[i] = float(np.isin(frontier, answers).mean())
        else:  # meet in the middle: radius ceil(h/2) from the topic, floor(h/2) from answers
            near = skb.graph.k_hop(topic, (q.hop + 1) // 2)
            out[i] = bool(np.intersect1d(near, skb.graph.k_hop(answers, q.hop // 2)).size)
    return out, top1


# ---------------------------------------------------------------------- training
def train_path_model(
    skb: SKB,
    linker: NameLinker,
    questions: Sequence[MetaQAQuestion],
    cache_dir: str | Path | None = None,
) -> RelationPathModel:
    """Train (or load from cache) the relation-path model on labelled questions."""
    labelled = [q for q in questions if q.qtype]
    if not labelled:
        raise InputError("no questions with a qtype to train the relation-path model on; "
                         "the folder needs {h}-hop/qa_dev.txt and qa_dev_qtype.txt")
    texts = [linker.link_exact(q.text, "brackets").masked for q in labelled]
    paths = label_paths([q.qtype or "" for q in labelled], skb.schema)
    key = content_digest(*(f"{t}\t{'|'.join(p)}".encode() for t, p in zip(texts, paths, strict=True)))
    target = cache_root(cache_dir) / "metaqa" / f"relpath-{key}"
    if (target / "model.json").is_file():
        return RelationPathModel.load(target)
    model = RelationPathModel().fit(texts, paths)
    model.save(target)
    return model


def fit_backoff(skb: SKB, linker: NameLinker, stage: RelationPathRetriever,
                questions: Sequence[MetaQAQuestion]) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """Fit the graph stage's back-off paths (:meth:`RelationPathRetriever.fit_backoff`) on the
    labelled training questions: their qtype paths and gold answer nodes (looked up only
    for the questions whose path reaches nothing)."""
    labelled = [q for q in questions if q.qtype]
    return stage.fit_backoff([q.text for q in labelled], label_paths([q.qtype or "" for q in labelled], skb.schema),
                             lambda i: answer_nodes(skb, linker, labelled[i].answers))


# ---------------------------------------------------------------------- scoring
def hits_at_1(run: Run, skb: SKB, questions: Sequence[MetaQAQuestion]) -> np.ndarray:
    """Per question: is the name of the top-ranked node one of the gold answer strings?"""
    names = skb.column("name")
    out = np.zeros(len(questions))
    for k, q in enumerate(questions):
        ranked = run.ranked(q.id)
        if ranked:
            out[k] = names[int(skb.index_of(ranked[0][0]))] in q.answers
    return out


def ambiguity_split(hits: np.ndarray, ceiling: np.ndarray, top1: np.ndarray) -> dict[str, float]:
    """Separate what the KB cannot decide from what the pipeline gets wrong.

    A question is *ambiguous* when its gold path reaches both gold and non-gold answers
    (``0 < top1 < 1``: a name the KB merges stands for several films and the question
    means one of them; nothing in the question or KB says which). Returns the ambiguous
    share, Hits@1 and the ceiling on the other (decidable) questions, and Hits@1 on the
    ambiguous ones next to the expected Hits@1 of a random pick among the reached answers.
    Questions without a qtype (``NaN``) are left out of all four.
    """
    known = ~np.isnan(top1)
    amb = known & (top1 > 0) & (top1 < 1)
    clear = known & ~amb
    out = {"ambiguous": float(amb.sum() / max(known.sum(), 1))}
    if clear.any():
        out["hits@1_decidable"] = float(hits[clear].mean())
        out["ceiling_decidable"] = float(ceiling[clear].mean())
    if amb.any():
        out["hits@1_ambiguous"] = float(hits[amb].mean())
        out["random_ambiguous"] = float(top1[amb].mean())
    return out


def run_pipeline(
    stage: Callable[[list[Query]], Run],
    questions: Sequence[MetaQAQuestion],
    batch_size: int = 1,
    on_batch: Callable[[int], None] | None = None,
) -> tuple[Run, np.ndarray]:
    """Run a stage over questions in batches; returns the Run and per-question ms."""
    run = Run()
    lat = np.zeros(len(questions))
    for s in range(0, len(questions), batch_size):
        batch = [Query(q.id, q.text) for q in questions[s : s + batch_size]]
        t0 = time.perf_counter()
        out = stage(batch)
        lat[s : s + len(batch)] = (time.perf_counter() - t0) * 1000.0 / len(batch)
        run.update(out)
        if on_batch is not None:
            on_batch(len(batch))
    return run, lat


def score_hop(
    skb: SKB,
    linker: NameLinker,
    questions: Sequence[MetaQAQuestion],
    run: Run,
    model: RelationPathModel | None = None,
) -> dict[str, float]:
    """The hop's metrics (fractions): hits@1, STaRK metrics, ceiling, path accuracy."""
    gold = [answer_nodes(skb, linker, q.answers) for q in questions]
    ids = skb.ids
    qrels = Qrels({q.id: {ids[n]: 1 for n in g} for q, g in zip(questions, gold, strict=True)})
    hits = hits_at_1(run, skb, questions)
    metrics = {"hits@1": float(hits.mean())}
    metrics.update(evaluate(run, qrels, STAGE_METRICS))
    ceiling, top1 = reachable(skb, linker, questions, gold)
    metrics["ceiling"] = float(ceiling.mean())
    if not np.isnan(top1).all():
        metrics["ceiling_top1"] = float(np.nanmean(top1))
        metrics.update(ambiguity_split(hits, ceiling, top1))
    metrics["answer_in_kb"] = float(np.mean([bool(g) for g in gold]))
    labelled = [q for q in questions if q.qtype]
    if model is not None and labelled:
        texts = [linker.link_exact(q.text, "brackets").masked for q in labelled]
        metrics["path_acc"] = accuracy(model, texts, label_paths([q.qtype or "" for q in labelled], skb.schema))
    return metrics


# ---------------------------------------------------------------------- protocol
def make_text_stage(skb: SKB, cache_dir: str | Path | None, k: int) -> EntityDocumentAnswerer:
    """BM25 over entity-centric documents (10 triples max); answers = their entities."""
    docs = entity_documents(skb, max_triples=10, seed=0)
    base = Path(skb.path) if skb.path is not None else cache_root(cache_dir) / "metaqa" / "kb-mem"
    index = document_index(docs, base.parent / f"{base.name}.docs-bm25")
    return EntityDocumentAnswerer(skb, docs, index, k_docs=10, k=k)
