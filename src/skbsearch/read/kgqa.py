"""KGQA answers from re-ranked triples: extractive (the triple's answer end) or an LLM.

* :func:`rank_answers`: an answer node scores the best score of the candidate triples
  that answer with it (:attr:`TripleCandidate.answer`, the end that is not the topic
  entity); topic nodes are never answers; ties keep retrieval order.
* :class:`LLMTripleReader`: the question and the top-K verbalised triples in one prompt
  to any client of :func:`skbsearch.llm.get_client`; the reply is mapped back to a node
  when it names one.
* :class:`RerankKGQA`: the full stage, retrieval -> contextual re-rank -> answer, as a
  Run over answer node ids (``reranker=None``: answers in retrieval order).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from skbsearch.core.operators import StageBase
from skbsearch.core.types import Query, Run
from skbsearch.read.llm import parse_answer
from skbsearch.rerank.triples import Retrieved, TripleCandidate, TripleReranker, TripleRetriever
from skbsearch.retrieve.graph.exact_names import normalise, strip_brackets

SYSTEM = "You answer questions from knowledge-graph facts. Reply with the answer entity only."
TEMPLATE = """Facts:
{facts}

Answer the question with one entity named in the facts.
Question: {question}
Answer:"""


def retrieval_scores(n: int) -> np.ndarray:
    """Scores that keep retrieval order (first candidate highest)."""
    return -np.arange(n, dtype=np.float64)


def order(scores: np.ndarray) -> np.ndarray:
    """Candidate positions by score, best first (ties: earlier candidate first)."""
    scores = np.asarray(scores, dtype=np.float64)
    return np.lexsort((np.arange(len(scores)), -scores))


def fused_scores(candidates: Sequence[TripleCandidate], logits: np.ndarray, graph_weight: float,
                 floor: float = 1e-4) -> np.ndarray:
    """Re-ranker logits plus ``graph_weight * log(graph score)`` (a product of experts with
    the relation-path prior; triples no predicted path reaches get ``floor``)."""
    g = np.array([max(c.graph_score, floor) for c in candidates], dtype=np.float64)
    return np.asarray(logits, dtype=np.float64) + graph_weight * np.log(g)


def rank_answers(candidates: Sequence[TripleCandidate], scores: np.ndarray, topics: Sequence[int],
                 k: int = 100) -> list[tuple[int, float]]:
    """Answer nodes, best first: each scores its best triple; topic nodes left out."""
    banned = set(topics)
    best: dict[int, float] = {}
    for i in order(scores):
        a = candidates[int(i)].answer
        if a in banned or a in best:
            continue
        best[a] = float(scores[int(i)])
        if len(best) >= k:
            break
    return list(best.items())


class LLMTripleReader:
    """Generate the answer from the top-``k`` re-ranked triples with a chat LLM.

    Args:
        client: an :class:`~skbsearch.llm.LLMClient` (e.g. ``get_client("smollm2")``).
        top_k: triples in the prompt.
        max_tokens: answer length limit.
    """

    def __init__(self, client: Any, top_k: int = 20, max_tokens: int = 24) -> None:
        self.client, self.top_k, self.max_tokens = client, top_k, max_tokens

    def prompt(self, question: str, facts: Sequence[str]) -> str:
        """The user prompt: numbered facts, then the question."""
        lines = "\n".join(f"{i}. {f}" for i, f in enumerate(facts[: self.top_k], start=1))
        return TEMPLATE.format(facts=lines, question=strip_brackets(question))

    def answer_many(self, items: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
        """One answer string per ``(question, ranked fact sentences)``."""
        convs = [[{"role": "system", "content": SYSTEM}, {"role": "user", "content": self.prompt(q, f)}]
                 for q, f in items]
        replies = self.client.chat(convs, max_tokens=self.max_tokens, temperature=0.0)
        return [parse_answer(r) for r in replies]


class RerankKGQA(StageBase):
    """Retrieval -> contextual triple re-ranking -> answers, as a stage.

    Args:
        retriever: a :class:`TripleRetriever`.
        reranker: a :class:`TripleReranker`; ``None`` answers in retrieval order.
        reader: ``None`` (extractive: :func:`rank_answers`) or an :class:`LLMTripleReader`,
            whose answer, when it names a candidate's answer node, goes first.
        k: answers kept per question.
        graph_weight: add ``graph_weight * log(graph score)`` to the re-ranker logits
            (:func:`fused_scores`; 0: the re-ranker alone, as in the paper).
        batch_size: questions re-ranked per scoring pass.
        progress: ``progress(n)`` after every ``n`` questions answered.
    """

    def __init__(self, retriever: TripleRetriever, reranker: TripleReranker | None = None,
                 reader: LLMTripleReader | None = None, *, k: int = 100, graph_weight: float = 0.0,
                 batch_size: int = 16,
                 name: str = "rerank-kgqa", progress: Callable[[int], None] | None = None) -> None:
        self.retriever, self.reranker, self.reader = retriever, reranker, reader
        self.k, self.batch_size, self.name, self.progress = k, batch_size, name, progress
        self.graph_weight = graph_weight
        self._names = retriever.skb.column("name")

    def scored(self, texts: Sequence[str]) -> list[tuple[Retrieved, np.ndarray]]:
        """Retrieval output and candidate scores (re-ranker logits or retrieval order)."""
        out: list[tuple[Retrieved, np.ndarray]] = []
        for s in range(0, len(texts), self.batch_size):
            chunk = list(texts[s : s + self.batch_size])
            got = self.retriever.retrieve(chunk)
            if self.reranker is None:
                scores = [retrieval_scores(len(r.candidates)) for r in got]
            else:
                scores = self.reranker.score(chunk, [r.candidates for r in got])
                if self.graph_weight:
                    scores = [fused_scores(r.candidates, s, self.graph_weight) for r, s in zip(got, scores, strict=True)]
            out.extend(zip(got, scores, strict=True))
            if self.progress is not None:
                self.progress(len(chunk))
        return out

    def facts(self, retrieved: Retrieved, scores: np.ndarray, k: int) -> list[str]:
        """The top-``k`` candidate triples as sentences."""
        docs = self.retriever.documents
        return [docs[c.document].sentences[c.position]
                for c in (retrieved.candidates[int(i)] for i in order(scores)[:k])]

    def answers(self, texts: Sequence[str]) -> list[list[tuple[int, float]]]:
        """Ranked answer nodes per question."""
        scored = self.scored(texts)
        ranked = [rank_answers(r.candidates, s, r.topics, self.k) for r, s in scored]
        if self.reader is None:
            return ranked
        replies = self.reader.answer_many(
            [(t, self.facts(r, s, self.reader.top_k)) for t, (r, s) in zip(texts, scored, strict=True)])
        out = []
        for reply, answers in zip(replies, ranked, strict=True):
            key = normalise(reply)
            hit = [a for a in answers if normalise(self._names[a[0]] or "") == key]
            top = (hit[0][1] if hit else 0.0) + 1e6
            out.append(([(hit[0][0], top)] if hit else []) + [a for a in answers if not hit or a[0] != hit[0][0]])
        return out

    def __call__(self, queries: Sequence[Query], run: Run | None = None) -> Run:
        """A Run over answer node ids (``run`` is ignored)."""
        queries = list(queries)
        ids = self.retriever.skb.ids
        out = Run(name=self.name)
        for q, answers in zip(queries, self.answers([q.text for q in queries]), strict=True):
            out[q.id] = {ids[n]: s for n, s in answers}
        return out

    def __repr__(self) -> str:
        return f"RerankKGQA({self.reranker!r}, reader={type(self.reader).__name__ if self.reader else 'extractive'})"
