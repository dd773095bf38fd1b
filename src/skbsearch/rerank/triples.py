"""Contextual triple re-ranking for KGQA (Sun et al., 2024, sec. 3.2.2).

Two parts:

* :class:`TripleRetriever` gathers a question's *candidate triples*: every triple of the
  top ``k_docs`` entity-centric documents by BM25 (the paper's retriever), plus, when a
  relation-path retriever is given (a :class:`PathSource`, such as MetaQA's
  :class:`~skbsearch.benchmarks.metaqa.paths.RelationPathRetriever`), the last-hop triple of a
  predicted relation path for each of its top ``k_paths`` answers (how multi-hop answers,
  which BM25 over the question cannot reach, enter the candidate set). Each candidate
  knows its document, its position there and the entity it answers with (the end that is
  not the topic entity; for path triples the end the walk reached).
* :class:`TripleReranker` scores ``(question, verbalised triple, context)`` with a
  :class:`~skbsearch.rerank.cross_encoder.CrossEncoderModel` using separate segments; the
  context is the other triples of the candidate's document (all share its subject, so
  the compact form names the subject once: ``"Kismet: directed by X; release year 1944"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from skbsearch.core.types import Query
from skbsearch.index.sparse import BM25Index
from skbsearch.kb.store import SKB
from skbsearch.rerank.cross_encoder import CrossEncoderModel
from skbsearch.rerank.labels import IncidentEdges
from skbsearch.rerank.pairwise import PairwiseReranker
from skbsearch.retrieve.graph.exact_names import strip_brackets
from skbsearch.retrieve.graph.linking import NameLinker
from skbsearch.retrieve.sparse import BM25Retriever
from skbsearch.verbalise import EntityDocument, document_of_edge

#: ``model.info`` key where the re-ranker's settings (context on/off, labels) are kept.
INFO_KEY = "triple_reranker"


@dataclass(frozen=True)
class TripleCandidate:
    """One candidate triple of a question.

    Attributes:
        edge: SKB edge index.
        document: position of its entity-centric document in the document list.
        position: its position inside that document.
        answer: the node it answers with (the end that is not the topic entity).
        source: ``"docs"`` (a BM25 document), ``"paths"`` (a graph path) or ``"both"``.
        score: the BM25 score of its document (0 for path-only triples).
        graph_score: the graph retriever's score of its answer (0 unless from a path).
    """

    edge: int
    document: int
    position: int
    answer: int
    source: str
    score: float
    graph_score: float = 0.0


@dataclass(frozen=True)
class PathAnswers:
    """One question's answers by relation paths, as a :class:`PathSource` gives them.

    Attributes:
        seeds: the linked topic nodes the paths start from.
        paths: the predicted relation paths worth following (steps, probability), most
            probable first.
        nodes: answer node indices, best first.
        scores: their scores.
    """

    seeds: list[int]
    paths: list[tuple[tuple[str, ...], float]]
    nodes: np.ndarray
    scores: np.ndarray


class PathSource(Protocol):
    """What :class:`TripleRetriever` needs of a relation-path retriever (MetaQA's
    :class:`~skbsearch.benchmarks.metaqa.paths.RelationPathRetriever` is one): its
    :class:`~skbsearch.retrieve.graph.linking.NameLinker` (the default topic linker), each
    question's :class:`PathAnswers`, and its walks."""

    @property
    def linker(self) -> NameLinker: ...

    def path_answers(self, texts: Sequence[str]) -> list[PathAnswers]:
        """Per question, its seeds, followed paths and scored answers."""
        ...

    def follow(self, seeds: Sequence[int], path: Sequence[str]) -> list[np.ndarray]:
        """Nodes reached from each seed along ``path``."""
        ...


@dataclass
class Retrieved:
    """A question's retrieval output: topic nodes, documents (best first), candidates.

    ``candidates`` are in retrieval order: BM25 documents' triples (document rank, then
    position), then path triples not already among them (graph score order).
    """

    topics: list[int]
    documents: list[int]
    candidates: list[TripleCandidate]


class TripleRetriever:
    """Candidate triples from BM25 entity-centric documents and graph paths.

    Args:
        skb: the knowledge base.
        documents: its entity-centric documents.
        index: a BM25 index over ``documents`` (ids = document ids); ``None``: no BM25.
        graph: a relation-path retriever for path triples (:class:`PathSource`); ``None``:
            documents only.
        linker: finds the topic entity by whole names (:meth:`NameLinker.link_exact
            <skbsearch.retrieve.graph.linking.NameLinker.link_exact>`; default: the graph
            retriever's, else one over ``skb``).
        k_docs: BM25 documents per question.
        k_paths: graph answers per question that contribute their last-hop triple.
        link_mode: how the topic is found (``auto``: brackets when present).
    """

    def __init__(self, skb: SKB, documents: Sequence[EntityDocument], index: BM25Index | None = None,
                 graph: PathSource | None = None, *, linker: NameLinker | None = None, k_docs: int = 2,
                 k_paths: int = 15, link_mode: str = "auto") -> None:
        if index is None and graph is None:
            raise ValueError("TripleRetriever needs a BM25 index, a graph retriever or both")
        self.skb = skb
        self.documents = list(documents)
        self.graph = graph
        self.linker = linker or (graph.linker if graph is not None else NameLinker(skb))
        self.k_docs, self.k_paths, self.link_mode = k_docs, k_paths, link_mode
        self.doc_of_edge = document_of_edge(self.documents, skb.num_edges)
        self.pos_of_edge = np.full(skb.num_edges, -1, np.int64)
        for d in self.documents:
            self.pos_of_edge[list(d.edges)] = np.arange(len(d.edges))
        self._doc_pos = {d.id: i for i, d in enumerate(self.documents)}
        self.incident = IncidentEdges(skb)
        self.bm25 = None
        if index is not None and k_docs > 0:
            self.bm25 = BM25Retriever(index, k=k_docs, n_threads=1, backend="numpy")

    def topics(self, text: str) -> list[int]:
        """Nodes of the question's best mention (exact-name matches when there are any)."""
        best = self.linker.link_exact(text, self.link_mode, 1).best
        if best is None:
            return []
        exact = [c.node for c in best.candidates if c.exact]
        return exact or [c.node for c in best.candidates]

    def _answer_end(self, edge: int, topics: set[int]) -> int:
        s, t = int(self.skb.edge_src[edge]), int(self.skb.edge_dst[edge])
        return s if t in topics and s not in topics else t

    def _doc_candidates(self, ranked: list[tuple[str, float]], topics: set[int]) -> list[TripleCandidate]:
        out = []
        for doc_id, score in ranked:
            p = self._doc_pos[doc_id]
            for j, e in enumerate(self.documents[p].edges):
                out.append(TripleCandidate(int(e), p, j, self._answer_end(int(e), topics), "docs", float(score)))
        return out

    def path_triples(self, texts: Sequence[str]) -> list[list[tuple[int, int, float]]]:
        """Per question, ``(edge, answer node, graph score)`` for the top ``k_paths`` answers:
        an edge of the last step of the most probable path that reaches the answer."""
        if self.graph is None or self.k_paths <= 0:
            return [[] for _ in texts]
        g = self.graph
        rels = self.skb.schema.relations
        out: list[list[tuple[int, int, float]]] = []
        for got in g.path_answers(list(texts)):
            seeds, nodes, scores = got.seeds, got.nodes, got.scores
            todo = {int(n): float(s) for n, s in zip(nodes[: self.k_paths], scores[: self.k_paths], strict=True)}
            found: list[tuple[int, int, float]] = []
            for path, _prob in got.paths:
                if not todo or not seeds:
                    continue
                before = g.follow(seeds, path[:-1]) if len(path) > 1 else [np.array([s]) for s in seeds]
                frontier = np.unique(np.concatenate(before)) if before else np.zeros(0, np.int64)
                last = path[-1]
                backwards = last.endswith("^-1")
                rel = rels.index(last[:-3] if backwards else last)
                for a in list(todo):
                    e = self.incident.of([a])
                    e = e[self.skb.edge_rel[e] == rel]
                    near, far = (self.skb.edge_src, self.skb.edge_dst) if not backwards else (
                        self.skb.edge_dst, self.skb.edge_src)
                    e = e[(far[e] == a) & np.isin(near[e], frontier)]
                    if len(e):
                        found.append((int(e[0]), a, todo.pop(a)))
            out.append(sorted(found, key=lambda x: -x[2]))
        return out

    def retrieve(self, texts: Sequence[str]) -> list[Retrieved]:
        """Topics, documents and candidate triples (retrieval order) for each question."""
        texts = list(texts)
        ranked: list[list[tuple[str, float]]] = [[] for _ in texts]
        if self.bm25 is not None:
            run = self.bm25([Query(str(i), strip_brackets(t)) for i, t in enumerate(texts)])
            ranked = [run.ranked(str(i)) for i in range(len(texts))]
        paths = self.path_triples(texts)
        out = []
        for text, docs, extra in zip(texts, ranked, paths, strict=True):
            topics = self.topics(text)
            cands = self._doc_candidates(docs, set(topics))
            at = {c.edge: i for i, c in enumerate(cands)}
            doc_list = [self._doc_pos[d] for d, _ in docs]
            for e, a, s in extra:
                if e in at:
                    cands[at[e]] = replace(cands[at[e]], answer=a, source="both", graph_score=s)
                    continue
                p = int(self.doc_of_edge[e])
                at[e] = len(cands)
                cands.append(TripleCandidate(e, p, int(self.pos_of_edge[e]), a, "paths", 0.0, s))
                if p not in doc_list:
                    doc_list.append(p)
            out.append(Retrieved(topics, doc_list, cands))
        return out


def compact_context(document: EntityDocument, position: int, subject_name: str | None = None) -> str:
    """The other triples of ``document`` as one string, their shared subject named once."""
    others = document.context(position)
    if subject_name:
        prefix = subject_name + " "
        parts = [s[len(prefix):] if s.startswith(prefix) else s for s in others]
        return f"{subject_name}: " + "; ".join(parts) if parts else ""
    return ". ".join(others)


def triple_inputs(question: str, candidates: Sequence[TripleCandidate], documents: Sequence[EntityDocument],
                  names: Sequence[str | None] | None = None, *, context: bool = True,
                  ) -> tuple[list[str], list[str], list[str] | None]:
    """Re-ranker inputs: the question (brackets removed), each candidate's sentence and,
    when ``context``, the other triples of its document (compact when ``names`` given)."""
    q = strip_brackets(question)
    qs, ps, cs = [], [], []
    for c in candidates:
        doc = documents[c.document]
        qs.append(q)
        ps.append(doc.sentences[c.position])
        if context:
            cs.append(compact_context(doc, c.position, names[doc.subject] if names is not None else None))
    return qs, ps, (cs if context else None)


class TripleReranker(PairwiseReranker):
    """Score candidate triples with a cross-encoder: question | triple | context segments.

    A :class:`~skbsearch.rerank.pairwise.PairwiseReranker` over triples: the pairs are
    (question, verbalised triple) with the triple's document as context, scored in
    length-sorted batches by :meth:`score_texts`.

    Args:
        model: a :class:`CrossEncoderModel` or a directory written by
            ``skb train triple-reranker``.
        skb: the knowledge base (subject names for the compact context).
        documents: the entity-centric documents the candidates point into.
        context: use the context segment (default: as the model was trained).
        compact: name the shared subject once in the context.
        batch_size: pairs per forward pass.
        threads: torch threads while scoring (``None``: unchanged).
    """

    short_name = "triples"
    sort_by_length = True

    def __init__(self, model: Any, skb: SKB, documents: Sequence[EntityDocument], *,
                 context: bool | None = None, compact: bool | None = None, batch_size: int = 32,
                 threads: int | None = 1) -> None:
        super().__init__(None, batch_size=batch_size)
        self.model = model if isinstance(model, CrossEncoderModel) else CrossEncoderModel.load(Path(model))
        info = self.model.info.get(INFO_KEY, {})
        self.context = bool(info.get("context", True)) if context is None else context
        self.compact = bool(info.get("compact_context", True)) if compact is None else compact
        self.documents = list(documents)
        self.names = skb.column("name")
        self.threads = threads

    def inputs(self, question: str, candidates: Sequence[TripleCandidate]) -> tuple[list[str], list[str], list[str] | None]:
        """Aligned (question, triple sentence, context) lists; contexts ``None`` when off."""
        return triple_inputs(question, candidates, self.documents, self.names if self.compact else None,
                             context=self.context)

    def score_pairs(self, query_texts: Sequence[str], doc_texts: Sequence[str],
                    contexts: Sequence[str] | None = None) -> np.ndarray:
        """Logits of (question, triple[, context]) pairs."""
        return self.model.score(query_texts, doc_texts, contexts, len(query_texts))

    def score(self, questions: Sequence[str], candidates: Sequence[Sequence[TripleCandidate]],
              progress: Any = None) -> list[np.ndarray]:
        """Logits per question, aligned with its candidates (one batched scoring pass).

        ``progress``: a ``progress(stage, done, total)`` callback over pairs.
        """
        from skbsearch.rerank.gnn_models import torch_threads

        qs: list[str] = []
        ps: list[str] = []
        cs: list[str] = []
        for question, cands in zip(questions, candidates, strict=True):
            a, b, c = self.inputs(question, cands)
            qs += a
            ps += b
            cs += c or []
        self.progress = progress
        with torch_threads(self.threads):
            flat = self.score_texts(qs, ps, cs if self.context else None).astype(np.float32)
        bounds = np.cumsum([0] + [len(c) for c in candidates])
        return [flat[bounds[i] : bounds[i + 1]] for i in range(len(candidates))]

    def __repr__(self) -> str:
        return f"TripleReranker(context={self.context}, compact={self.compact})"
